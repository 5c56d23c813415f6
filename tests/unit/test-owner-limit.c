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

/* Stopped, as the user a look acts as can stop it: continued. */
static int
look_stops(const void *arg)
{
	(void)arg;
	raise(SIGSTOP);
	return 7;
}

/* A look that leaves an answer in the memory arg points to. */
struct found {
	int code;
	char name[16];
};

static int
look_fills(const void *arg)
{
	struct found *f = *(struct found *const *)arg;

	f->code = 1234;
	strcpy(f->name, "alice");
	return 3;
}

struct limited_call {
	int (*fn)(const void *arg);
	const void *arg;
	void *out;
	size_t out_len;
	unsigned limit_s;
};

static int
limited_fn(void *arg)
{
	struct limited_call *c = arg;

	return owner_limited(c->fn, c->arg, c->out, c->out_len, c->limit_s,
	                     "/some/path");
}

static void
test_answer_and_limit(void)
{
	struct limited_call c = { look_answers, NULL, NULL, 0, 5 };
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
	struct limited_call c = { look_killed, NULL, NULL, 0, 5 };
	char *err;
	int ret;

	err = harness_capture_stderr(limited_fn, &c, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'/some/path'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "signal 9"));
	free(err);
}

/* What the child found comes back with its exit code; a child left
 * stopped is continued, and answers, rather than killed at its limit. */
static void
test_found_and_stopped(void)
{
	struct found f = { 0, "" }, *fp = &f;
	struct limited_call c = { look_fills, &fp, &f, sizeof f, 30 };
	char *err;
	int ret;

	err = harness_capture_stderr(limited_fn, &c, &ret);
	CU_ASSERT_EQUAL(ret, 3);
	CU_ASSERT_EQUAL(f.code, 1234);
	CU_ASSERT_STRING_EQUAL(f.name, "alice");
	free(err);
	c = (struct limited_call){ look_stops, NULL, NULL, 0, 30 };
	err = harness_capture_stderr(limited_fn, &c, &ret);
	CU_ASSERT_EQUAL(ret, 7);	/* not -2: killed at the limit */
	free(err);
}

static const struct harness_test limit_tests[] = {
	{ "an answer, and the limit", test_answer_and_limit },
	{ "what the look found; a stopped look", test_found_and_stopped },
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
