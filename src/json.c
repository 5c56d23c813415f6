/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* json.c - streaming JSON writer. */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "json.h"
#include "safe-text.h"
#include "util.h"

void
json_init(struct json *j, struct strbuf *out, bool pretty)
{
	j->out = out;
	j->depth = 0;
	j->need_comma[0] = false;
	j->pretty = pretty;
}

void
json_quote(struct strbuf *out, const char *s)
{
	size_t n = strlen(s);
	unsigned cp;

	strbuf_addch(out, '"');
	for (size_t i = 0, l; i < n; i += l) {
		l = utf8_decode(s + i, n - i, &cp);
		if (l == 0) {
			/* JSON is UTF-8 (RFC 8259, 8.1): a log's stray byte
			 * becomes U+FFFD rather than an invalid document. */
			strbuf_addstr(out, "\\ufffd");
			l = 1;
			continue;
		}
		switch (cp) {
		case '"': strbuf_addstr(out, "\\\""); break;
		case '\\': strbuf_addstr(out, "\\\\"); break;
		case '\n': strbuf_addstr(out, "\\n"); break;
		case '\r': strbuf_addstr(out, "\\r"); break;
		case '\t': strbuf_addstr(out, "\\t"); break;
		default:
			/* C0, DEL and C1 escaped too: a document printed
			 * to a terminal must not drive it. */
			if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
				strbuf_addf(out, "\\u%04x", cp);
			else
				strbuf_add(out, s + i, l);
		}
	}
	strbuf_addch(out, '"');
}

/* Comma, newline, indent and key before a value. */
static void
json_prefix(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		strbuf_addch(j->out, ',');
	j->need_comma[j->depth] = true;
	if (j->pretty && j->depth > 0) {
		strbuf_addch(j->out, '\n');
		strbuf_addchars(j->out, ' ', (size_t)j->depth * 2);
	}
	if (key) {
		json_quote(j->out, key);
		strbuf_addstr(j->out, j->pretty ? ": " : ":");
	}
}

static void
json_open(struct json *j, const char *key, char c)
{
	json_prefix(j, key);
	strbuf_addch(j->out, c);
	if (j->depth + 1 >= JSON_MAX_DEPTH)
		bug("json nesting too deep");
	j->need_comma[++j->depth] = false;
}

static void
json_close(struct json *j, char c)
{
	bool had = j->need_comma[j->depth];

	j->depth--;
	if (j->pretty && had) {
		strbuf_addch(j->out, '\n');
		strbuf_addchars(j->out, ' ', (size_t)j->depth * 2);
	}
	strbuf_addch(j->out, c);
	if (j->depth == 0 && j->pretty)
		strbuf_addch(j->out, '\n');
}

void
json_begin_object(struct json *j, const char *key)
{
	json_open(j, key, '{');
}
void json_end_object(struct json *j) { json_close(j, '}'); }
void
json_begin_array(struct json *j, const char *key)
{
	json_open(j, key, '[');
}
void json_end_array(struct json *j) { json_close(j, ']'); }

void
json_string(struct json *j, const char *key, const char *s)
{
	json_prefix(j, key);
	if (s)
		json_quote(j->out, s);
	else
		strbuf_addstr(j->out, "null");
}

void
json_number(struct json *j, const char *key, double v)
{
	json_prefix(j, key);
	format_number(j->out, v, 10);
}

void
json_number_full(struct json *j, const char *key, double v)
{
	json_prefix(j, key);
	format_number(j->out, v, 15);
}

void
json_int(struct json *j, const char *key, long long v)
{
	json_prefix(j, key);
	strbuf_addf(j->out, "%lld", v);
}

void
json_bool(struct json *j, const char *key, bool v)
{
	json_prefix(j, key);
	strbuf_addstr(j->out, v ? "true" : "false");
}

void
json_null(struct json *j, const char *key)
{
	json_prefix(j, key);
	strbuf_addstr(j->out, "null");
}
