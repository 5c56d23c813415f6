/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * error.h - messages and exit codes.
 *
 * Messages follow git's rules: lower case, no full stop, say what failed
 * and quote the subject.  Lower layers report with error() and return its
 * value; only the command layer decides to exit, with an exit_code.
 */
#ifndef PARATUNE_ERROR_H
#define PARATUNE_ERROR_H

/*
 * Exit codes, after sysexits.h: the one table of paratune(1) and the
 * README, and every command returns only these (tests/cli/exit-codes.sh
 * runs each command against each class).
 */
enum exit_code {
	EXIT_OK = 0,
	EXIT_USAGE = 64,       /* bad command line, or --yes needed */
	EXIT_DATAERR = 65,     /* a campaign directory, log or file that is
	                          there but damaged or edited */
	EXIT_NOINPUT = 66,     /* a file or directory named does not exist,
	                          or is not a campaign directory */
	EXIT_UNAVAILABLE = 69, /* Slurm answered and refused: every
	                          submission rejected, a cancel refused */
	EXIT_SOFTWARE = 70,    /* an internal error */
	EXIT_CANTCREAT = 73,   /* an output cannot be created */
	EXIT_IOERR = 74,       /* the state or journal cannot be written */
	EXIT_TEMPFAIL = 75,    /* Slurm cannot be reached, or has no
	                          configuration here: run again later */
	EXIT_NOPERM = 77,      /* the campaign directory is another user's */
	EXIT_CONFIG = 78,      /* configuration: file, line and key named */
};

/*
 * Print "error: ..." to stderr as one write, control characters and
 * invalid UTF-8 of what it quotes escaped (safe-text.h); returns -1 so
 * callers can return it.
 */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* error() with ": <strerror(errno)>" appended. */
int error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The standard output could not be written (e its errno, or 0 where
 * only the stream's error flag says so): said; EXIT_IOERR for a
 * command that had succeeded, a failed one keeping its status. */
int error_stdout(int status, int e);
/* An internal bug: print and abort. */
void bug(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif
