/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * harness.h - a CUnit runner shared by every unit test program.
 *
 * Each test program lists its suites in a NULL-terminated array of
 * struct harness_suite and calls harness_main().  The exit status is
 * non-zero when any assertion failed: CU_get_error() alone reports only
 * framework errors, and failures would pass silently.
 */
#ifndef PARATUNE_HARNESS_H
#define PARATUNE_HARNESS_H

#include <CUnit/CUnit.h>
#include <stddef.h>

struct harness_test {
	const char *name;
	void (*fn)(void);
};

struct harness_suite {
	const char *name;
	const struct harness_test *tests; /* ends with { NULL, NULL } */
};

int harness_main(int argc, char **argv, const struct harness_suite *suites);

/* Directory of the real log excerpts, or NULL when absent. */
const char *harness_real_logs(void);
/* Path of a file under the source tree; the caller frees it. */
char *harness_srcpath(const char *rel);
/* Read a whole file into a fresh NUL-terminated buffer; NULL on error. */
char *harness_slurp(const char *path, size_t *len);
/* Make an empty temporary directory; the caller frees the path. */
char *harness_tmpdir(void);
/* Remove a directory tree (used on temporary directories only). */
void harness_rmtree(const char *path);
/*
 * Run fn with stderr captured; returns what was written (caller frees).
 * *ret gets fn's return value.
 */
char *harness_capture_stderr(int (*fn)(void *), void *arg, int *ret);

#define ASSERT_NEAR_REL(actual, expected, rel)                                \
	CU_ASSERT_DOUBLE_EQUAL((actual), (expected),                          \
	                       fabs((double)(expected)) * (rel))

#endif
