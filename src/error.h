/*
 * error.h - messages and exit codes.
 *
 * Messages follow git's rules: lower case, no full stop, say what failed
 * and quote the subject.  Lower layers report with error() and return its
 * value; only the command layer decides to exit, with an exit_code.
 */
#ifndef PARATUNE_ERROR_H
#define PARATUNE_ERROR_H

/* Exit codes, after sysexits.h; documented in paratune(1). */
enum exit_code {
	EXIT_OK = 0,
	EXIT_FAILURE_ = 1,   /* a command ran and reports a failure */
	EXIT_USAGE = 64,     /* bad command line */
	EXIT_DATAERR = 65,   /* broken campaign directory or input data */
	EXIT_NOINPUT = 66,   /* a named input file does not exist */
	EXIT_UNAVAILABLE = 69,
	EXIT_SOFTWARE = 70,  /* an internal error */
	EXIT_CANTCREAT = 73, /* an output file cannot be created */
	EXIT_IOERR = 74,
	EXIT_TEMPFAIL = 75,  /* try again later (controller down) */
	EXIT_NOPERM = 77,    /* not the campaign directory's owner */
	EXIT_CONFIG = 78,    /* configuration error */
};

/* Print "error: ..." to stderr; returns -1 so callers can return it. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* error() with ": <strerror(errno)>" appended. */
int error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An internal bug: print and abort. */
void bug(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif
