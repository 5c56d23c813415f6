/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* error.c - diagnostics on stderr. */
#include "autoconfig.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "safe-text.h"
#include "strbuf.h"

static void report(const char *prefix, const char *fmt, va_list ap,
                   const char *suffix) __attribute__((format(printf, 2, 0)));

static void
report(const char *prefix, const char *fmt, va_list ap, const char *suffix)
{
	/* One fprintf per part; stderr is unbuffered, so build the line
	 * first to keep concurrent writers from interleaving mid-line. */
	char line[4096];
	int n = vsnprintf(line, sizeof line, fmt, ap);
	struct strbuf sb = STRBUF_INIT;

	if (n < 0)
		line[0] = '\0';
	/* Messages quote user values (names, paths, log lines): escaped,
	 * so that they cannot drive the terminal; a message cut at the
	 * buffer's end stays valid UTF-8. */
	strbuf_addstr(&sb, prefix);
	safe_text_append(&sb, line);
	if (suffix) {
		strbuf_addstr(&sb, ": ");
		safe_text_append(&sb, suffix);
	}
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

int
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("error: ", fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int
error_errno(const char *fmt, ...)
{
	va_list ap;
	const char *why = strerror(errno);

	va_start(ap, fmt);
	report("error: ", fmt, ap, why);
	va_end(ap);
	return -1;
}

int
error_stdout(int status, int e)
{
	if (e)
		error("cannot write the standard output: %s", strerror(e));
	else
		error("cannot write the standard output");
	return status == EXIT_OK ? EXIT_IOERR : status;
}

void
warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning: ", fmt, ap, NULL);
	va_end(ap);
}

void
bug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("BUG: ", fmt, ap, NULL);
	va_end(ap);
	abort();
}
