/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* safe-text.c - escaping for terminals, UTF-8 repair, CSV cells. */
#include "autoconfig.h"

#include <stdarg.h>
#include <string.h>

#include "safe-text.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* What the escaping leaves as it is. */
enum keep {
	KEEP_NONE = 0,
	KEEP_LINES = 1,  /* \n and \t */
	KEEP_CR = 2,     /* \r, inside a quoted CSV field */
};

static bool
is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t
utf8_decode(const char *s, size_t n, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
	size_t len;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0; /* continuation, overlong lead (C0, C1)
		           * or > U+10FFFF */
	/* The second byte's range excludes overlong forms (E0, F0),
	 * surrogates (ED) and code points above U+10FFFF (F4). */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (!is_cont(p[i]))
			return 0;
	*cp = len == 2 ? p[0] & 0x1fu : len == 3 ? p[0] & 0x0fu : p[0] & 0x07u;
	for (size_t i = 1; i < len; i++)
		*cp = (*cp << 6) | (p[i] & 0x3fu);
	return len;
}

bool
utf8_valid(const char *s, size_t n)
{
	unsigned cp;

	for (size_t i = 0, l; i < n; i += l)
		if ((l = utf8_decode(s + i, n - i, &cp)) == 0)
			return false;
	return true;
}

void
utf8_repair_append(struct strbuf *out, const char *s, size_t n)
{
	unsigned cp;

	for (size_t i = 0, l; i < n; i += l) {
		l = utf8_decode(s + i, n - i, &cp);
		if (l == 0) {
			strbuf_addstr(out, REPLACEMENT);
			l = 1;
		} else {
			strbuf_add(out, s + i, l);
		}
	}
}

/* Characters that reorder the text around them when shown (the
 * "Trojan Source" controls): they would make a name read differently. */
static bool
is_bidi_control(unsigned cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* One control character, spelled out unless kept. */
static void
add_control(struct strbuf *out, unsigned cp, unsigned keep)
{
	if (((cp == '\n' || cp == '\t') && (keep & KEEP_LINES)) ||
	    (cp == '\r' && (keep & KEEP_CR))) {
		strbuf_addch(out, (char)cp);
		return;
	}
	switch (cp) {
	case '\n': strbuf_addstr(out, "\\n"); break;
	case '\t': strbuf_addstr(out, "\\t"); break;
	case '\r': strbuf_addstr(out, "\\r"); break;
	default:
		if (cp < 0x80)
			strbuf_addf(out, "\\x%02x", cp);
		else
			strbuf_addf(out, "\\u{%04x}", cp);
	}
}

/* C0, DEL and C1: what a terminal acts on rather than shows. */
static bool
is_control(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

bool
safe_text_shown(unsigned cp)
{
	return !is_control(cp) && !is_bidi_control(cp);
}

static void
escape_append(struct strbuf *out, const char *s, size_t n, unsigned keep)
{
	unsigned cp;

	for (size_t i = 0, l; i < n; i += l) {
		l = utf8_decode(s + i, n - i, &cp);
		if (l == 0) {
			strbuf_addstr(out, REPLACEMENT);
			l = 1;
		} else if (is_control(cp)) {
			add_control(out, cp, keep);
		} else if (is_bidi_control(cp)) {
			strbuf_addf(out, "\\u{%04x}", cp);
		} else {
			strbuf_add(out, s + i, l);
		}
	}
}

void
safe_text_append(struct strbuf *out, const char *s)
{
	escape_append(out, s, strlen(s), KEEP_NONE);
}

void
safe_text_append_lines(struct strbuf *out, const char *s)
{
	escape_append(out, s, strlen(s), KEEP_LINES);
}

void
safe_text_line(FILE *out, const char *fmt, ...)
{
	struct strbuf text = STRBUF_INIT, line = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&text, fmt, ap);
	va_end(ap);
	safe_text_append(&line, text.buf);
	strbuf_addch(&line, '\n');
	fputs(line.buf, out);
	strbuf_release(&text);
	strbuf_release(&line);
}

bool
safe_text_plain(const char *s, struct strbuf *why)
{
	size_t n = strlen(s);
	unsigned cp;

	for (size_t i = 0, l; i < n; i += l) {
		l = utf8_decode(s + i, n - i, &cp);
		if (l != 0 && !is_control(cp) && !is_bidi_control(cp))
			continue;
		if (why == NULL)
			return false;
		if (l == 0) {
			strbuf_addf(why, "invalid UTF-8 (the byte 0x%02x)",
			            (unsigned char)s[i]);
		} else {
			strbuf_addstr(why, is_control(cp) ? "the control "
			              "character " : "the bidi control ");
			add_control(why, cp, KEEP_NONE);
		}
		strbuf_addf(why, " at byte %zu", i + 1);
		return false;
	}
	return true;
}

/* Append s as an RFC 4180 field, quoted when it needs to be: for a
 * comma, a quote or a line end, and for a semicolon, the separator of
 * spreadsheets in locales whose decimal mark is a comma, which would
 * split the cell there (and evaluate a "=..." after it). */
static void
csv_quote(struct strbuf *out, const char *s, size_t n)
{
	if (!strpbrk(s, ",;\"\r\n") && (n == 0 || (s[0] != ' ' &&
	                                          s[n - 1] != ' '))) {
		strbuf_add(out, s, n);
		return;
	}
	strbuf_addch(out, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			strbuf_addch(out, '"'); /* RFC 4180, 2.7: doubled */
		strbuf_addch(out, s[i]);
	}
	strbuf_addch(out, '"');
}

void
csv_cell_append(struct strbuf *out, const char *s)
{
	struct strbuf cell = STRBUF_INIT;

	/* A spreadsheet evaluates a cell starting with these as a formula
	 * (tab and CR because some strip them first). */
	if (s[0] && strchr("=+-@\t\r", s[0]))
		strbuf_addch(&cell, '\'');
	escape_append(&cell, s, strlen(s), KEEP_LINES | KEEP_CR);
	csv_quote(out, cell.buf, cell.len);
	strbuf_release(&cell);
}
