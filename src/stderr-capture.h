/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * stderr-capture.h - keep what a library writes to stderr during a call
 * off the terminal, for its caller to say in its own words.  libslurm
 * logs to stderr by itself (its log options are not in Slurm's public
 * headers) and printed its internal lines before paratune's message.
 */
#ifndef PARATUNE_STDERR_CAPTURE_H
#define PARATUNE_STDERR_CAPTURE_H

struct strbuf;

/* The real stderr while a capture runs, and where the capture goes. */
struct stderr_capture {
	int saved;      /* a copy of the real stderr; -1: not capturing */
	int fd;         /* the scratch file that stands in for it */
};

/*
 * Send stderr (the descriptor, and the stream: flushed first) to an
 * unlinked scratch file until stderr_capture_end.  Where that cannot be
 * done, stderr is left as it is, and the library's lines reach the
 * terminal as before: shown rather than lost.  Not for a process with
 * other threads writing to stderr meanwhile.
 */
void stderr_capture_begin(struct stderr_capture *cap);
/*
 * Put the real stderr back; append to out (NULL: drop it) what was
 * written meanwhile, cut at STDERR_CAPTURE_MAX bytes.
 */
void stderr_capture_end(struct stderr_capture *cap, struct strbuf *out);

#define STDERR_CAPTURE_MAX 4096

#endif
