/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* test-stderr-capture.c - a library's stderr kept for its caller. */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "stderr-capture.h"
#include "strbuf.h"

/*
 * The test's own stand-in for the terminal: fd 2 on a scratch file for
 * the length of a test, so that what reaches "the real stderr" can be
 * read back.  *saved keeps CUnit's stderr; terminal_end returns what
 * the stand-in received (the caller frees it).
 */
static FILE *
terminal_begin(int *saved)
{
	FILE *f = tmpfile();

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fflush(stderr);
	*saved = dup(STDERR_FILENO);
	CU_ASSERT_FATAL(*saved >= 0);
	CU_ASSERT_FATAL(dup2(fileno(f), STDERR_FILENO) >= 0);
	return f;
}

static char *
terminal_end(FILE *f, int saved)
{
	char *text = calloc(1, 8192);
	size_t n;

	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	n = fread(text, 1, 8191, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

static void
test_library_lines_kept(void)
{
	struct stderr_capture cap;
	struct strbuf out = STRBUF_INIT;
	int saved;
	FILE *term = terminal_begin(&saved);
	char *shown;

	fputs("before\n", stderr);
	stderr_capture_begin(&cap);
	CU_ASSERT(cap.saved >= 0);
	/* Both ways a library writes: the stream, and the descriptor. */
	fputs("lib: error: via stdio\n", stderr);
	CU_ASSERT_EQUAL(write(STDERR_FILENO, "lib: error: via fd\n", 19), 19);
	stderr_capture_end(&cap, &out);
	fputs("after\n", stderr);
	shown = terminal_end(term, saved);
	CU_ASSERT_STRING_EQUAL(out.buf,
	                       "lib: error: via stdio\nlib: error: via fd\n");
	CU_ASSERT_STRING_EQUAL(shown, "before\nafter\n");
	CU_ASSERT_EQUAL(cap.saved, -1);
	free(shown);
	strbuf_release(&out);
}

static void
test_dropped_and_cut(void)
{
	struct stderr_capture cap;
	struct strbuf out = STRBUF_INIT;
	char line[100];
	int saved;
	FILE *term = terminal_begin(&saved);
	char *shown;

	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\n';
	stderr_capture_begin(&cap);
	fputs("dropped\n", stderr);
	stderr_capture_end(&cap, NULL);
	stderr_capture_begin(&cap);
	for (int i = 0; i < 2 * STDERR_CAPTURE_MAX / (int)sizeof line; i++)
		fwrite(line, 1, sizeof line, stderr);
	stderr_capture_end(&cap, &out);
	/* Ending twice (a caller's error path) does nothing more. */
	stderr_capture_end(&cap, &out);
	shown = terminal_end(term, saved);
	CU_ASSERT_STRING_EQUAL(shown, "");
	CU_ASSERT_EQUAL(out.len, STDERR_CAPTURE_MAX);
	free(shown);
	strbuf_release(&out);
}

static const struct harness_test capture_tests[] = {
	{ "library lines kept off stderr", test_library_lines_kept },
	{ "dropped, or cut at the maximum", test_dropped_and_cut },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "stderr-capture", capture_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
