/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-record.c - what the record parsers of logparse-megatron.c,
 * logparse-nemo2.c, logparse-nemo1.c and logparse-torchtitan.c share:
 * byte scanners, match groups as numbers, a step that says nothing yet,
 * the '|'-separated "key: value" fields of Megatron-LM and NeMo 2.0, the
 * next record head on a line, and the evidence of a diverging run.
 */
#include "autoconfig.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "logparse-int.h"

/* ---- small scanners --------------------------------------------------- */

/*
 * glibc's memmem works out the needle's critical factorisation on every
 * call, which costs more than the short prefixes searched here; memchr
 * on the first byte and a memcmp do not.
 */
const char *
logparse_find(const char *s, size_t n, const char *needle, size_t len)
{
	const char *end = s + n;

	while (len <= (size_t)(end - s)) {
		size_t room = (size_t)(end - s) - len + 1;
		const char *p = memchr(s, needle[0], room);

		if (p == NULL)
			return NULL;
		if (!memcmp(p + 1, needle + 1, len - 1))
			return p;
		s = p + 1;
	}
	return NULL;
}

bool
logparse_span_long(const char *s, size_t n, long *out)
{
	long v = 0;

	if (n == 0 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!logparse_is_digit(s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

long
logparse_group_long(pcre2_match_data *md, const char *s, int g)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	size_t at = 2 * (size_t)g;
	long v;

	if ((int)pcre2_get_ovector_count(md) <= g || ov[at] == PCRE2_UNSET)
		return -1;
	if (!logparse_span_long(s + ov[at], ov[at + 1] - ov[at], &v))
		return -1;
	return v;
}

void
logparse_step_init(struct log_step *st, struct log_reader *rd)
{
	st->step = -1;
	st->line = rd->lineno;
	st->step_time_s = st->loss = st->tokens_per_s = NAN;
	st->tflops = st->mem_gib = NAN;
	st->gbs = 0;
}

/* ---- "key: value | key: value" fields (Megatron, NeMo 2.0) ------------ */

double
logparse_field_num(const struct logparse_field *f, bool *special)
{
	double v;

	if (!logparse_number(f->val, f->vlen, false, &v, special)) {
		*special = false;
		return NAN;
	}
	return v;
}

double
logparse_field_value(const struct logparse_field *f)
{
	bool special;
	double v = logparse_field_num(f, &special);

	return special ? NAN : v;
}

double
logparse_field_time(const struct logparse_field *f)
{
	bool special;
	double v = logparse_field_num(f, &special);

	return special ? INFINITY : v;
}

long
logparse_field_count(const struct logparse_field *f)
{
	double v = logparse_field_value(f);

	/* 1e15 as for a step number: a long on every platform. */
	return v >= 1 && v < 1e15 && v == floor(v) ? (long)v : 0;
}

/* Whether s[0..n) looks like a number, decided from its bytes alone:
 * only the clean test needs it, for every field, and converting every
 * value would cost more than reading the line. */
static bool
looks_numeric(const char *s, size_t n)
{
	bool digit = false;

	if (n && (*s == '-' || *s == '+')) {
		s++;
		n--;
	}
	if (n >= 3 && (*s == 'n' || *s == 'N' || *s == 'i' || *s == 'I') &&
	    (!strncasecmp(s, "nan", 3) || !strncasecmp(s, "inf", 3)))
		return n == 3 || (n == 8 && !strncasecmp(s, "infinity", 8));
	for (size_t i = 0; i < n; i++) {
		if (logparse_is_digit(s[i]))
			digit = true;
		else if (s[i] != '.' && s[i] != 'e' && s[i] != 'E' &&
		         s[i] != '-' && s[i] != '+')
			return false;
	}
	return digit;
}

/* This runs for every field of every record: the trimming is written
 * out on local pointers. */
bool
logparse_next_field(const char **p, const char *end,
                    struct logparse_field *f, bool *clean)
{
	const char *seg = *p, *stop, *colon, *k, *ke, *v;

	if (seg >= end)
		return false;
	stop = memchr(seg, '|', (size_t)(end - seg));
	*p = stop ? stop + 1 : end;
	if (stop == NULL)
		stop = end;
	while (seg < stop && logparse_is_space(*seg))
		seg++;
	while (stop > seg && logparse_is_space(stop[-1]))
		stop--;
	f->key = f->val = seg;
	f->klen = f->vlen = 0;
	if (seg == stop)
		return true;
	colon = memchr(seg, ':', (size_t)(stop - seg));
	if (colon == NULL) {
		*clean = false;
		return true;
	}
	for (k = seg, ke = colon; ke > k && logparse_is_space(ke[-1]);)
		ke--;
	for (v = colon + 1; v < stop && logparse_is_space(*v);)
		v++;
	f->key = k;
	f->klen = (size_t)(ke - k);
	f->val = v;
	f->vlen = (size_t)(stop - v);
	if (!looks_numeric(f->val, f->vlen))
		*clean = false;
	return true;
}

/* ---- record heads and evidence ---------------------------------------- */

/* logparse_find() and a byte check turn away the "iteration" of "elapsed
 * time per iteration (ms)" without a call of PCRE2. */
size_t
logparse_next_head(const pcre2_code *re, pcre2_match_data *md,
                   const char *s, size_t from, size_t n, const char *word,
                   size_t wlen, bool (*quick)(const char *s, size_t i,
                                              size_t n))
{
	while (from < n) {
		const char *p = logparse_find(s + from, n - from, word, wlen);
		size_t at;

		if (p == NULL)
			return n;
		at = (size_t)(p - s);
		if (quick(s, at + wlen, n) &&
		    pcre2_match(re, (PCRE2_SPTR)s, n, at, 0, md, NULL) > 0)
			return at;
		from = at + 1;
	}
	return n;
}

void
logparse_nan_evidence(struct log_reader *rd, const char *s, size_t n)
{
	rd->res->nan_seen = true;
	reader_evidence(rd, FAILURE_NAN_LOSS, s, n);
}
