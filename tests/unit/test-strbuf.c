/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* test-strbuf.c - strbuf and xasprintf invariants. */
#include "autoconfig.h"

#include <string.h>
#include <stdlib.h>

#include "harness.h"
#include "strbuf.h"
#include "xalloc.h"

static void
test_init_is_empty_string(void)
{
	struct strbuf sb = STRBUF_INIT;

	CU_ASSERT_PTR_NOT_NULL(sb.buf);
	CU_ASSERT_STRING_EQUAL(sb.buf, "");
	CU_ASSERT_EQUAL(sb.len, 0);
	strbuf_release(&sb);
}

static void
test_addf_grows(void)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i);
	CU_ASSERT_EQUAL(sb.len, strlen(sb.buf));
	CU_ASSERT_EQUAL(strncmp(sb.buf, "0,1,2,", 6), 0);
	CU_ASSERT_EQUAL(strcmp(sb.buf + sb.len - 4, "999,"), 0);
	strbuf_release(&sb);
}

static void
test_detach_transfers_ownership(void)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *s;

	strbuf_addstr(&sb, "hello  \n");
	strbuf_rtrim(&sb);
	s = strbuf_detach(&sb, &len);
	CU_ASSERT_STRING_EQUAL(s, "hello");
	CU_ASSERT_EQUAL(len, 5);
	CU_ASSERT_EQUAL(sb.len, 0);
	CU_ASSERT_STRING_EQUAL(sb.buf, "");
	free(s);
	/* Detaching an empty buffer still gives a fresh allocation. */
	s = strbuf_detach(&sb, NULL);
	CU_ASSERT_STRING_EQUAL(s, "");
	free(s);
}

/* Lengths either side of xasprintf's stack buffer (256 bytes). */
static void
test_xasprintf_any_length(void)
{
	static const size_t lens[] = { 0, 1, 254, 255, 256, 257, 4096 };

	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		char *want = malloc(lens[i] + 1), *got;

		memset(want, 'a' + (int)(i % 26), lens[i]);
		want[lens[i]] = '\0';
		got = xasprintf("%s", want);
		CU_ASSERT_EQUAL(strlen(got), lens[i]);
		CU_ASSERT_STRING_EQUAL(got, want);
		free(got);
		free(want);
	}
}

static const struct harness_test strbuf_tests[] = {
	{ "init is an empty string", test_init_is_empty_string },
	{ "addf grows and keeps NUL", test_addf_grows },
	{ "detach transfers ownership", test_detach_transfers_ownership },
	{ "xasprintf, short and long", test_xasprintf_any_length },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "strbuf", strbuf_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
