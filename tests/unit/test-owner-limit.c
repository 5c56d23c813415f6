/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* test-owner-limit.c - a look at a path in a child under a time limit:
 * what it answers, and what is said when it gives no answer. */
#include "autoconfig.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "owner-int.h"

/* Looks that answer 42, never answer, or are killed. */
static int
look_answers(const void *arg)
{
	(void)arg;
	return 42;
}

static int
look_hangs(const void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

static int
look_killed(const void *arg)
{
	(void)arg;
	raise(SIGKILL);
	return 0;
}

struct limited_call {
	int (*fn)(const void *arg);
	const char *path;
	unsigned limit_s;
};

static int
limited_fn(void *arg)
{
	struct limited_call *c = arg;

	return owner_limited(c->fn, c->path, c->limit_s, c->path);
}

static void
test_answer_and_limit(void)
{
	struct limited_call c = { look_answers, "/some/path", 5 };
	char *err;
	int ret;

	err = harness_capture_stderr(limited_fn, &c, &ret);
	CU_ASSERT_EQUAL(ret, 42);
	CU_ASSERT_STRING_EQUAL(err, "");
	free(err);
	/* Past the limit: -2, for the caller to say. */
	c.fn = look_hangs;
	c.limit_s = 1;
	err = harness_capture_stderr(limited_fn, &c, &ret);
	CU_ASSERT_EQUAL(ret, -2);
	free(err);
}

/*
 * A look whose child is killed before it answers (the OOM killer, an
 * operator) is an error that names the path looked at and the signal:
 * the callers refuse the path on it (77, 78, 75) and add nothing, so
 * with several inputs the message alone says which one it was.
 */
static void
test_killed_named(void)
{
	struct limited_call c = { look_killed, "/some/path", 5 };
	char *err;
	int ret;

	err = harness_capture_stderr(limited_fn, &c, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'/some/path'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "signal 9"));
	free(err);
}

static const struct harness_test limit_tests[] = {
	{ "an answer, and the limit", test_answer_and_limit },
	{ "a killed look names its path", test_killed_named },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "owner-limit", limit_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
