/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * simtrain-layout.c - a --pipeline-model-parallel-layout string unrolled
 * as Megatron-LM's PipelineParallelLayerLayout.parse_str_to_list does
 * (megatron/core/transformer/pipeline_parallel_layer_layout.py at
 * d98e8a64): commas dropped, then every "(...)*n" and then every "x*n"
 * repeated, leaving one letter per layer and '|' between stages.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <string.h>

#include "simtrain.h"

/* A repeat count after '*': its digits parsed, their end in *end; -1
 * without digits (no repeat: the text stays), -2 past max. */
static long
repeat_count(const char *p, const char **end, long max)
{
	long n = 0;

	if (*p != '*' || !isdigit((unsigned char)p[1]))
		return -1;
	for (p++; isdigit((unsigned char)*p); p++) {
		n = n * 10 + (*p - '0');
		if (n > max)
			return -2;
	}
	*end = p;
	return n;
}

/* Append n copies of len bytes at s, within SIMTRAIN_LAYOUT_MAX. */
static int
repeat(struct strbuf *out, const char *s, size_t len, long n)
{
	if (len > 0 && (size_t)n > (SIMTRAIN_LAYOUT_MAX - out->len) / len)
		return -1;
	for (long i = 0; i < n; i++)
		strbuf_add(out, s, len);
	return 0;
}

/* The regular expression r'\(([^)]+)\)\*(\d+)', then r'(.)\*(\d+)'. */
static int
unroll(const char *in, bool groups, struct strbuf *out)
{
	const char *p = in, *end, *close;
	long n;

	while (*p) {
		n = -1;
		if (groups && *p == '(' && (close = strchr(p + 1, ')')) &&
		    close > p + 1)
			n = repeat_count(close + 1, &end, SIMTRAIN_LAYOUT_MAX);
		else if (!groups && p[1])
			n = repeat_count(p + 1, &end, SIMTRAIN_LAYOUT_MAX);
		if (n == -2)
			return -1;
		if (n >= 0 && groups) {
			if (repeat(out, p + 1, (size_t)(close - p - 1), n) != 0)
				return -1;
			p = end;
		} else if (n >= 0) {
			if (repeat(out, p, 1, n) != 0)
				return -1;
			p = end;
		} else if (repeat(out, p++, 1, 1) != 0) {
			return -1;
		}
	}
	return 0;
}

int
simtrain_layout_expand(const char *in, struct strbuf *out)
{
	struct strbuf plain = STRBUF_INIT, once = STRBUF_INIT;
	int ret;

	for (const char *p = in; *p; p++)
		if (*p != ',')
			strbuf_addch(&plain, *p);
	ret = unroll(plain.buf ? plain.buf : "", true, &once);
	if (ret == 0)
		ret = unroll(once.buf ? once.buf : "", false, out);
	strbuf_release(&plain);
	strbuf_release(&once);
	return ret;
}
