/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * json.h - a small streaming JSON writer.
 *
 * Keys are snake_case by convention; numbers are numbers (non-finite
 * values become null); strings are escaped.  Commas are tracked here so
 * callers only say what comes next.
 */
#ifndef PARATUNE_JSON_H
#define PARATUNE_JSON_H

#include <stdbool.h>

#include "strbuf.h"

#define JSON_MAX_DEPTH 32

struct json {
	struct strbuf *out;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool pretty;
};

void json_init(struct json *j, struct strbuf *out, bool pretty);
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
/* key is NULL inside arrays. */
void json_string(struct json *j, const char *key, const char *s);
void json_number(struct json *j, const char *key, double v);
/* v with 15 significant digits, not 10: every decimal of up to 15
 * digits (a figure in hundredths up to 10^13) comes out in full. */
void json_number_full(struct json *j, const char *key, double v);
void json_int(struct json *j, const char *key, long long v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* Append s as a quoted JSON string. */
void json_quote(struct strbuf *out, const char *s);

#endif
