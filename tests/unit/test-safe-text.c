/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* test-safe-text.c - terminal escaping, UTF-8 repair, CSV cells. */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "harness.h"
#include "json.h"
#include "report.h"
#include "safe-text.h"
#include "table.h"

#define FFFD "\xef\xbf\xbd"

/* safe_text_append of s, as a fresh string. */
static char *
safe(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	safe_text_append(&sb, s);
	return strbuf_detach(&sb, NULL);
}

static char *
csv(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	csv_cell_append(&sb, s);
	return strbuf_detach(&sb, NULL);
}

static char *
repair(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	utf8_repair_append(&sb, s, strlen(s));
	return strbuf_detach(&sb, NULL);
}

#define CHECK(fn, in, want)                                                   \
	do {                                                                  \
		char *got_ = fn(in);                                          \
		CU_ASSERT_STRING_EQUAL(got_, want);                           \
		free(got_);                                                   \
	} while (0)

static void
test_controls_escaped(void)
{
	/* The title-setting sequence a candidate name could carry. */
	CHECK(safe, "a\x1b]0;owned\x07z", "a\\x1b]0;owned\\x07z");
	CHECK(safe, "l1\nl2\tx\r", "l1\\nl2\\tx\\r");
	CHECK(safe, "del\x7f", "del\\x7f");
	/* U+009B, the one-character CSI, encoded in UTF-8. */
	CHECK(safe, "c1\xc2\x9b" "2J", "c1\\u{009b}2J");
	/* RIGHT-TO-LEFT OVERRIDE reorders what follows. */
	CHECK(safe, "ab\xe2\x80\xae" "cd", "ab\\u{202e}cd");
	/* Plain text and valid UTF-8 pass as they are. */
	CHECK(safe, "llama3_70b_4nodes", "llama3_70b_4nodes");
	CHECK(safe, "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x9a\x80",
	      "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x9a\x80");
}

static void
test_invalid_utf8_replaced(void)
{
	/* A stray continuation byte and a raw C1 CSI byte. */
	CHECK(safe, "a\x80z\x9b", "a" FFFD "z" FFFD);
	/* Overlong '/' (C0 AF) and overlong NUL in three bytes. */
	CHECK(repair, "\xc0\xaf", FFFD FFFD);
	CHECK(repair, "\xe0\x80\x80", FFFD FFFD FFFD);
	/* A surrogate, U+D800. */
	CHECK(repair, "\xed\xa0\x80", FFFD FFFD FFFD);
	/* U+110000, above the last code point, and F5. */
	CHECK(repair, "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);
	CHECK(repair, "\xf5", FFFD);
	/* A sequence cut short by the end of the text. */
	CHECK(repair, "ok\xe6\x97", "ok" FFFD FFFD);
	/* The largest valid code point, U+10FFFF, is kept. */
	CHECK(repair, "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");
	CU_ASSERT_FALSE(utf8_valid("\xed\xa0\x80", 3));
	CU_ASSERT_TRUE(utf8_valid("\xed\x9f\xbf", 3)); /* U+D7FF */
	CU_ASSERT_TRUE(utf8_valid("", 0));
}

/* Whether s is plain text; why, when it is not, must equal want. */
static void
check_plain(const char *s, const char *want)
{
	struct strbuf why = STRBUF_INIT;

	CU_ASSERT_EQUAL(safe_text_plain(s, &why), want == NULL);
	CU_ASSERT_EQUAL(safe_text_plain(s, NULL), want == NULL);
	CU_ASSERT_STRING_EQUAL(why.buf, want ? want : "");
	strbuf_release(&why);
}

static void
test_plain_text(void)
{
	check_plain("", NULL);
	check_plain("nvcr.io#nvidia/nemo:25.04", NULL);
	check_plain("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80", NULL);
	/* U+00A0, just above C1, and U+2028 are shown, not acted on. */
	check_plain("a\xc2\xa0" "b\xe2\x80\xa8", NULL);
	check_plain("evil\x1b]0;x\x07", "the control character \\x1b at "
	            "byte 5");
	check_plain("a\tb", "the control character \\t at byte 2");
	check_plain("del\x7f", "the control character \\x7f at byte 4");
	/* C1 in UTF-8 (U+0085, U+009B) and as a raw byte. */
	check_plain("x\xc2\x85", "the control character \\u{0085} at "
	            "byte 2");
	check_plain("\xc2\x9b" "2J", "the control character \\u{009b} at "
	            "byte 1");
	check_plain("\x9b" "2J", "invalid UTF-8 (the byte 0x9b) at byte 1");
	check_plain("ok\xe6\x97", "invalid UTF-8 (the byte 0xe6) at "
	            "byte 3");
	/* The bidi overrides, isolates and marks. */
	check_plain("ab\xe2\x80\xae" "cd", "the bidi control \\u{202e} at "
	            "byte 3");
	check_plain("\xe2\x81\xa6", "the bidi control \\u{2066} at "
	            "byte 1");
	check_plain("\xe2\x81\xa9", "the bidi control \\u{2069} at "
	            "byte 1");
	check_plain("\xe2\x80\x8f", "the bidi control \\u{200f} at "
	            "byte 1");
}

static void
test_csv_neutralised(void)
{
	CHECK(csv, "=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"");
	CHECK(csv, "+1", "'+1");
	CHECK(csv, "-2+3", "'-2+3");
	CHECK(csv, "@SUM(A1)", "'@SUM(A1)");
	CHECK(csv, "\tx", "'\tx");
	CHECK(csv, "CUDA out of memory", "CUDA out of memory");
	CHECK(csv, "a,b", "\"a,b\"");
	CHECK(csv, "", "");
	/* Newlines stay in a quoted field; ESC does not. */
	CHECK(csv, "l1\nl2\x1b[2J", "\"l1\nl2\\x1b[2J\"");
	CHECK(csv, "bad\xff", "bad" FFFD);
}

static void
test_table_cells_escaped(void)
{
	static const char *const cols[] = { "name", ">n", NULL };
	struct table t;
	char *out;
	size_t len;
	FILE *f = tmpfile();

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	table_init(&t, cols);
	table_add(&t, "%s", "x\x1b]0;title\x07\xff");
	table_add(&t, "%d", 1);
	table_add(&t, "%s", "\xc3\xa9");
	table_add(&t, "%d", 22);
	table_print(&t, f);
	table_release(&t);
	len = (size_t)ftell(f);
	rewind(f);
	out = calloc(1, len + 1);
	CU_ASSERT_EQUAL(fread(out, 1, len, f), len);
	fclose(f);
	CU_ASSERT_PTR_NULL(memchr(out, 0x1b, len));
	CU_ASSERT_TRUE(utf8_valid(out, len));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "x\\x1b]0;title\\x07" FFFD));
	/* Aligned by characters: "é" is one column wide, not two. */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n\xc3\xa9" "                   22\n"));
	free(out);
}

static void
test_json_valid(void)
{
	struct strbuf sb = STRBUF_INIT;

	json_quote(&sb, "e\x1b[31m\xff\xc2\x85\xed\xa0\x80\xc3\xa9");
	CU_ASSERT_STRING_EQUAL(sb.buf, "\"e\\u001b[31m\\ufffd\\u0085"
	                       "\\ufffd\\ufffd\\ufffd\xc3\xa9\"");
	strbuf_release(&sb);
}

/* SVG and HTML: one stray byte would make the chart ill-formed. */
static void
test_report_escape_valid(void)
{
	struct strbuf sb = STRBUF_INIT;

	report_escape(&sb, "<a>&\xff\xc3\xa9\x1b\xed\xa0\x80");
	CU_ASSERT_STRING_EQUAL(sb.buf, "&lt;a&gt;&amp;" FFFD "\xc3\xa9 "
	                       FFFD FFFD FFFD);
	CU_ASSERT_TRUE(utf8_valid(sb.buf, sb.len));
	strbuf_release(&sb);
}

static int
print_error(void *arg)
{
	return error("unknown candidate '%s'", (const char *)arg);
}

static void
test_error_escaped(void)
{
	int ret;
	char *err = harness_capture_stderr(print_error,
	                                   (void *)"n\x1b]0;x\x07\n\xff", &ret);

	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_STRING_EQUAL(err, "error: unknown candidate "
	                       "'n\\x1b]0;x\\x07\\n" FFFD "'\n");
	free(err);
}

/* A line naming a candidate or a directory: the arguments spelled out,
 * its own newline kept. */
static void
test_line_escaped(void)
{
	FILE *f = tmpfile();
	char out[128];
	size_t len;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	safe_text_line(f, "%s: finished in %d s", "/h/c\x1b]0;x\x07\n\xff",
	               3);
	len = (size_t)ftell(f);
	rewind(f);
	CU_ASSERT_EQUAL_FATAL(fread(out, 1, len, f), len);
	out[len] = '\0';
	fclose(f);
	CU_ASSERT_STRING_EQUAL(out, "/h/c\\x1b]0;x\\x07\\n" FFFD
	                       ": finished in 3 s\n");
}

static const struct harness_test safe_text_tests[] = {
	{ "control characters escaped", test_controls_escaped },
	{ "invalid UTF-8 replaced", test_invalid_utf8_replaced },
	{ "plain text told from control text", test_plain_text },
	{ "CSV cells neutralised", test_csv_neutralised },
	{ "table cells escaped", test_table_cells_escaped },
	{ "JSON strings valid and escaped", test_json_valid },
	{ "error messages escaped", test_error_escaped },
	{ "printed lines escaped", test_line_escaped },
	{ "SVG and HTML text valid UTF-8", test_report_escape_valid },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "safe-text", safe_text_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
