/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-scan.c - a configuration file's text read line by line as
 * libconfig 1.5's scanner reads it: its comments, strings, groups and
 * literals, to say beforehand what libconfig would read wrong (a literal
 * it cuts to 32 bits, a \x00 it drops, an @include in a --set value) and
 * afterwards where its bare "syntax error" comes from.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"
#include "config-scan.h"
#include "strbuf.h"
#include "xalloc.h"

/* ---- literals libconfig 1.5 reads wrong ---------------------------------- */

/*
 * Whether the real literal from p to end is beyond a double: libconfig
 * reads 1e400 as inf and 1e-400 as 0 without a word, and the key's
 * range check would then name a value no one wrote.
 */
static bool
real_out_of_range(const char *p, const char *end)
{
	char *text = xstrndup(p, (size_t)(end - p));
	double v;
	bool out;

	errno = 0;
	v = strtod(text, NULL);
	out = errno == ERANGE || !isfinite(v);
	free(text);
	return out;
}

/*
 * libconfig 1.5 reads an integer literal without an L suffix into an int
 * and cuts a wider one to 32 bits without a word ("nodes = 4294967300"
 * reads 4; 1.7 promotes it to 64 bits): the width is checked here, in
 * the text, and so is a real's (real_out_of_range).  If the literal at p
 * (a word that starts with a digit, or a point and a digit) is a decimal
 * or hexadecimal integer that does not fit in an int, or a real a double
 * cannot hold, its length; else 0.  *end is the end of the word either
 * way.
 */
static size_t
wide_literal(const char *line, const char *p, const char **end)
{
	bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	/* A hexadecimal has no sign: libconfig reads one from 0x80000000
	 * to 0xFFFFFFFF into the int's sign bit, a negative no one wrote
	 * (0xFFFFFFFF is -1, "auto" or "no limit" for some keys). */
	unsigned long long cap = hex ? 0x7FFFFFFFULL
	                         : p > line && p[-1] == '-' ? 2147483648ULL
	                         : 2147483647ULL;
	unsigned long long v = 0;
	const char *q = p + (hex ? 2 : 0);
	bool wide = false;

	for (; hex ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q);
	     q++) {
		unsigned digit =
			isdigit((unsigned char)*q)
			? (unsigned)(*q - '0')
			: (unsigned)(tolower((unsigned char)*q) - 'a') + 10;

		v = v * (hex ? 16 : 10) + digit;
		if (v > cap) {
			wide = true;
			v = cap; /* no overflow of v itself */
		}
	}
	*end = q + strspn(q, "0123456789abcdefABCDEFxXlL.+-");
	/* An L-suffixed 64-bit integer is libconfig's to read whole. */
	if (*q == 'L')
		return 0;
	if (!hex && (*q == '.' || *q == 'e' || *q == 'E'))
		return real_out_of_range(p, *end) ? (size_t)(*end - p) : 0;
	return wide ? (size_t)(q - p) : 0;
}

/* The range a numeric key takes ("1 to 100000") into buf, or NULL: the
 * one to say of a literal too wide to hold, rather than the storage's,
 * which no key takes. */
static const char *
key_range(const char *path, char *buf, size_t len)
{
	const struct config_key *k = config_registry_find(path);

	if (k == NULL || !(k->type == KT_INT || k->type == KT_DOUBLE ||
	                   k->type == KT_INTS) || !(k->max > k->min))
		return NULL;
	snprintf(buf, len, "%s%.15g to %.15g",
	         (k->flags & F_ZERO) ? "0, or " : "", k->min, k->max);
	return buf;
}

void
config_literal_range(const char *lit, const char *key,
                     struct literal_range *r)
{
	bool hex = strstr(lit, "0x") || strstr(lit, "0X");

	if (!hex && strpbrk(lit, ".eE")) {
		r->kind = "number";
		r->range = "0, or a magnitude from 2.2e-308 to 1.8e+308";
	} else {
		r->kind = "integer";
		r->range = hex ? "at most 0x7FFFFFFF" : "at most 2147483647";
	}
	if (key && key_range(key, r->buf, sizeof r->buf))
		r->range = r->buf;
}

/* ---- the code of a line -------------------------------------------------- */

/* Public: see config-scan.h. */
void
code_scan_release(struct code_scan *s)
{
	strbuf_release(&s->key);
	strbuf_release(&s->name);
	strbuf_release(&s->wide_key);
	strbuf_release(&s->mixed_key);
}

/* The innermost open group, list or array ('{', '(', '['), or 0. */
static char
scan_top(const struct code_scan *s)
{
	if (s->depth == 0 || s->depth > SCAN_DEPTH_MAX)
		return 0;
	return s->open[s->depth - 1];
}

/* Whether a value read now is an element of a list or an array. */
static bool
scan_in_list(const struct code_scan *s)
{
	return !s->assigned && (scan_top(s) == '(' || scan_top(s) == '[');
}

/* The key a value read now is set to, into sb: "" when it is neither
 * a setting's value nor an element (text libconfig will refuse). */
static void
scan_value_key(const struct code_scan *s, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (!s->assigned && !scan_in_list(s))
		return;
	strbuf_add(sb, s->key.buf, s->key.len);
	if (s->assigned) {
		if (sb->len)
			strbuf_addch(sb, '.');
		strbuf_add(sb, s->name.buf, s->name.len);
	}
}

/* An escape in a string, p after its backslash: libconfig 1.5 drops a
 * NUL byte written \x00 from the string without a word ("gpu\x00evil"
 * read as "gpuevil"), where every other control character is refused
 * by the key's check; the first line with one is noted. */
static void
scan_escape(struct code_scan *s, const char *p)
{
	if ((p[0] == 'x' || p[0] == 'X') && p[1] == '0' && p[2] == '0' &&
	    s->nul_line == 0)
		s->nul_line = s->lineno > 0 ? s->lineno : 1;
}

/* A group, list or array opened: a setting's value names it. */
static void
scan_open(struct code_scan *s, char bracket)
{
	if (s->depth < SCAN_DEPTH_MAX) {
		s->key_len[s->depth] = s->key.len;
		s->open[s->depth] = bracket;
		s->open_line[s->depth] = s->lineno;
		s->kind[s->depth] = 0;
		if (s->assigned) {
			if (s->key.len)
				strbuf_addch(&s->key, '.');
			strbuf_add(&s->key, s->name.buf, s->name.len);
		}
	}
	s->depth++;
	s->assigned = false;
}

/* A group, list or array closed (one never opened is libconfig's to
 * report). */
static void
scan_close(struct code_scan *s)
{
	if (s->depth == 0)
		return;
	if (--s->depth < SCAN_DEPTH_MAX)
		strbuf_setlen(&s->key, s->key_len[s->depth]);
	s->assigned = false;
}

/* How a message names a value's type ("an integer" for 'i'). */
static const char *
scan_kind_name(char kind)
{
	switch (kind) {
	case 'b': return "a boolean";
	case 'i': return "an integer";
	case 'l': return "a 64-bit integer";
	case 'f': return "a number";
	default: return "a string";
	}
}

/*
 * A value of type kind read (scan_kind_name's letters): libconfig holds
 * an array's elements to its first one's type, int and 64-bit int
 * apart, and its "mismatched element type in array" names no key: the
 * first array to mix them is kept for syntax_hint's message.
 */
static void
scan_read(struct code_scan *s, char kind)
{
	if (scan_in_list(s) && scan_top(s) == '[') {
		char *first = &s->kind[s->depth - 1];

		if (*first == 0)
			*first = kind;
		else if (*first != kind && s->mixed[0] == 0) {
			s->mixed[0] = *first;
			s->mixed[1] = kind;
			strbuf_add(&s->mixed_key, s->key.buf, s->key.len);
		}
	}
	s->assigned = false;
}

/* A name: a setting's, or a value (true, false) where one is due. */
static void
scan_name(struct code_scan *s, const char *p, size_t len)
{
	if (s->assigned || scan_in_list(s)) {
		scan_read(s, 'b');
		return;
	}
	strbuf_reset(&s->name);
	strbuf_add(&s->name, p, len);
}

/* The type of the number literal from p to end, as scan_read takes
 * it: an L suffix makes a 64-bit integer, a point or an exponent a
 * real (in a decimal: 'e' is a digit in a hexadecimal). */
static char
scan_number_kind(const char *p, const char *end)
{
	bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');

	for (const char *q = p; q < end; q++)
		if (*q == 'L')
			return 'l';
	for (const char *q = p; !hex && q < end; q++)
		if (*q == '.' || *q == 'e' || *q == 'E')
			return 'f';
	return 'i';
}

/* The number literal at p (lit, with its point): its end; the first one
 * out of libconfig 1.5's range is kept, with its key and sign. */
static const char *
scan_number(struct code_scan *s, const char *line, const char *lit)
{
	const char *end;
	size_t n = wide_literal(line, lit, &end);

	if (n && s->wide == NULL) {
		bool neg = lit > line && lit[-1] == '-';

		s->wide = lit - neg;
		s->wide_len = n + neg;
		scan_value_key(s, &s->wide_key);
	}
	scan_read(s, scan_number_kind(lit, end));
	return end;
}

/*
 * Scan one line's code from p on; a '#' or '//' comment ends it.  The
 * first literal of the line out of libconfig 1.5's range is put in
 * s->wide, when none was before.
 */
void
scan_line(struct code_scan *s, const char *p)
{
	const char *line = p;

	while (*p) {
		if (s->in_comment) {
			const char *end = strstr(p, "*/");

			if (end == NULL)
				return;
			p = end + 2;
			s->in_comment = false;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1]) {
					p++;
					scan_escape(s, p);
				}
			if (*p)
				p++;
			else if (s->string_line == 0)
				s->string_line = s->lineno;
			scan_read(s, 's');
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			break;
		} else if (p[0] == '/' && p[1] == '*') {
			p += 2;
			s->in_comment = true;
		} else if (isalpha((unsigned char)*p) || *p == '_' ||
		           *p == '*') {
			size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz"
			                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			                       "0123456789_-*");

			scan_name(s, p, len);
			p += len;
		} else if (isdigit((unsigned char)*p)) {
			/* ".5e308" is a real from its point: 5e307. */
			p = scan_number(s, line, p > line && p[-1] == '.'
			                ? p - 1 : p);
		} else {
			if (*p == '=' || *p == ':')
				s->assigned = true;
			else if (*p == '{' || *p == '(' || *p == '[')
				scan_open(s, *p);
			else if (*p == '}' || *p == ')' || *p == ']')
				scan_close(s);
			else if (*p == ';' || *p == ',')
				s->assigned = false;
			p++;
		}
	}
}

/* ---- lines and @include directives --------------------------------------- */

/*
 * Whether line is an "@include" directive as libconfig's scanner reads
 * one (^[ \t]*@include[ \t]+"): 0 when it is not; 1 with its target in
 * *target (allocated) and in *rest the code after the closing quote;
 * -1 when the quote is not closed on the line.  The scanner takes the
 * name on to the next quote, across line breaks, so a missing quote
 * made the lines below part of the name (or, with no quote after them,
 * dropped them unread).  "\\" and "\"" are a backslash and a quote; the
 * scanner leaves any other backslash out of the name, and so does this.
 */
int
config_include_target(const char *line, char **target, const char **rest)
{
	const char *p = line + strspn(line, " \t");
	struct strbuf name = STRBUF_INIT;

	if (strncmp(p, "@include", 8) != 0 || !strchr(" \t", p[8]) ||
	    p[8] == '\0')
		return 0;
	p += 8;
	p += strspn(p, " \t");
	if (*p != '"')
		return 0;
	for (p++; *p && *p != '"'; p++)
		if (*p != '\\')
			strbuf_addch(&name, *p);
		else if (p[1] == '\\' || p[1] == '"')
			strbuf_addch(&name, *++p);
	if (*p != '"') {
		strbuf_release(&name);
		return -1;
	}
	*target = strbuf_detach(&name, NULL);
	*rest = p + 1;
	return 1;
}

/* The line at *p, before end, into sb without its line break; *p moves
 * past the break.  false at the end. */
bool
config_next_line(const char **p, const char *end, struct strbuf *sb)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	strbuf_reset(sb);
	strbuf_add(sb, *p, (size_t)((nl ? nl : end) - *p));
	*p = nl ? nl + 1 : end;
	return true;
}

/* ---- --set values ------------------------------------------------------- */

void
config_value_scan(const char *value, struct value_scan *out)
{
	struct strbuf line = STRBUF_INIT;
	struct code_scan s = CODE_SCAN_INIT;
	const char *p = value;

	memset(out, 0, sizeof(*out));
	for (;;) {
		size_t len = strcspn(p, "\n");
		const char *code;
		char *target = NULL;

		strbuf_setlen(&line, 0);
		strbuf_add(&line, p, len);
		/* Closed or not, an @include is refused. */
		if (p != value && !s.in_comment &&
		    config_include_target(line.buf, &target, &code) != 0)
			out->includes = true;
		else
			scan_line(&s, line.buf);
		if (s.wide && out->wide == NULL) /* s.wide points into line */
			out->wide = xstrndup(s.wide, s.wide_len);
		free(target);
		if (p[len] != '\n')
			break;
		p += len + 1;
	}
	out->nul = s.nul_line != 0;
	code_scan_release(&s);
	strbuf_release(&line);
}

/* ---- hints for libconfig's errors ---------------------------------------- */

/* The next line of a file's text scanned into s, an @include directive
 * left out as libconfig takes it; false at the end of the text. */
static bool
scan_next_line(struct code_scan *s, const char **p, const char *end,
               struct strbuf *l)
{
	const char *code;
	char *target = NULL;

	if (!config_next_line(p, end, l))
		return false;
	s->lineno++;
	code = l->buf;
	if (s->in_comment || config_include_target(l->buf, &target, &code) >= 0)
		scan_line(s, code);
	free(target);
	return true;
}

void
config_array_mismatch(const struct strbuf *text, long line,
                      struct strbuf *sb)
{
	const char *p = text->buf, *end = text->buf + text->len;
	struct strbuf l = STRBUF_INIT;
	struct code_scan s = CODE_SCAN_INIT;

	while (s.lineno < line && s.mixed[0] == 0 &&
	       scan_next_line(&s, &p, end, &l))
		;
	if (s.mixed[0] && s.mixed_key.len)
		strbuf_addf(sb, " '%s'", s.mixed_key.buf);
	if (s.mixed[0])
		strbuf_addf(sb, " (%s, then %s)", scan_kind_name(s.mixed[0]),
		            scan_kind_name(s.mixed[1]));
	code_scan_release(&s);
	strbuf_release(&l);
}

void
config_unclosed_hint(const struct strbuf *text, const char *name,
                     struct strbuf *sb)
{
	const char *p = text->buf, *end = text->buf + text->len;
	struct strbuf l = STRBUF_INIT;
	struct code_scan s = CODE_SCAN_INIT;
	bool group;

	while (s.string_line == 0 && scan_next_line(&s, &p, end, &l))
		;
	group = s.string_line == 0 && s.depth > 0 &&
	        s.depth <= SCAN_DEPTH_MAX;
	if (s.string_line || group) {
		long at = group ? s.open_line[s.depth - 1] : s.string_line;

		if (group)
			strbuf_addf(sb, " (the '%c' opened ",
			            s.open[s.depth - 1]);
		else
			strbuf_addstr(sb, " (the string opened ");
		if (name)
			strbuf_addf(sb, "at %s:%ld", name, at);
		else
			strbuf_addf(sb, "on line %ld", at);
		strbuf_addstr(sb, group ? " is never closed)"
		                        : " is not closed on its line)");
	}
	code_scan_release(&s);
	strbuf_release(&l);
}
