/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * stderr-capture.c - stderr sent to a scratch file for the length of a
 * library call (stderr-capture.h).
 *
 * A file and not a pipe: this process writes and reads the capture
 * itself, and a pipe that filled up during the call would block it on
 * its own write for ever.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "stderr-capture.h"
#include "strbuf.h"

/* Send stderr to a scratch file, or leave it as it is. */
void
stderr_capture_begin(struct stderr_capture *cap)
{
	FILE *f;

	cap->saved = -1;
	cap->fd = -1;
	fflush(stderr);
	/* tmpfile(): unlinked at once, gone whatever becomes of us. */
	if ((f = tmpfile()) == NULL)
		return;
	cap->fd = dup(fileno(f));
	fclose(f);
	if (cap->fd < 0)
		return;
	cap->saved = dup(STDERR_FILENO);
	if (cap->saved < 0 || dup2(cap->fd, STDERR_FILENO) < 0) {
		if (cap->saved >= 0)
			close(cap->saved);
		close(cap->fd);
		cap->saved = cap->fd = -1;
	}
}

/* Up to max bytes of fd, from its start, onto out. */
static void
capture_read(int fd, struct strbuf *out, size_t max)
{
	char buf[512];
	size_t got = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return;
	while (got < max) {
		size_t want = max - got < sizeof buf ? max - got : sizeof buf;

		n = read(fd, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf_add(out, buf, (size_t)n);
		got += (size_t)n;
	}
}

/* Put the real stderr back; what was written meanwhile onto out. */
void
stderr_capture_end(struct stderr_capture *cap, struct strbuf *out)
{
	if (cap->saved < 0)
		return;
	fflush(stderr);
	dup2(cap->saved, STDERR_FILENO);
	close(cap->saved);
	if (out)
		capture_read(cap->fd, out, STDERR_CAPTURE_MAX);
	close(cap->fd);
	cap->saved = cap->fd = -1;
}
