/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-megatron.c - the step records and memory reports of
 * Megatron-LM, Megatron-Bridge and Megatron-DeepSpeed:
 * " iteration       10/     500 | elapsed time per iteration (ms): ..."
 * (the head pattern is in logparse-formats.c).
 *
 * Field names are those printed by Megatron-LM training.py @d98e8a6
 * (training_log), Megatron-Bridge train_utils.py @067f987 and the
 * Megatron-DeepSpeed lines in shared/data/real-logs.
 */
#include "autoconfig.h"

#include <math.h>
#include <string.h>

#include "logparse-int.h"

/* One Megatron field into st. */
static void
megatron_field(struct log_reader *rd, const struct logparse_field *f,
               struct log_step *st, bool *have_lm_loss, const char *s,
               size_t n)
{
	bool special;
	double v;

	if (logparse_key_is(f, "elapsed time per iteration (ms)"))
		st->step_time_s = logparse_field_time(f) / 1000.0;
	else if (logparse_key_is(f, "lm loss") ||
	         (logparse_key_is(f, "loss") && !*have_lm_loss)) {
		*have_lm_loss = *have_lm_loss || logparse_key_is(f, "lm loss");
		v = logparse_field_num(f, &special);
		st->loss = special ? NAN : v;
		if (special)
			logparse_nan_evidence(rd, s, n);
	} else if (logparse_key_is(f, "throughput per GPU (TFLOP/s/GPU)") ||
	           logparse_key_is(f, "TFLOPs"))
		st->tflops = logparse_field_value(f);
	else if (logparse_key_is(f, "global batch size"))
		st->gbs = logparse_field_count(f);
	else if (logparse_key_is(f, "tokens/sec/gpu") ||
	         logparse_key_is(f, "tokens per gpu per second (tgs)"))
		st->tokens_per_s = logparse_field_value(f);
	else if (logparse_key_is(f, "number of nan iterations")) {
		/* Mostly "0": not worth a conversion. */
		if (!(f->vlen == 1 && f->val[0] == '0') &&
		    logparse_field_value(f) > 0)
			reader_evidence(rd, FAILURE_NAN_LOSS, s, n);
	} else if (logparse_key_is(f, "grad norm")) {
		/* A number that starts with a digit is finite. */
		if (f->vlen && !logparse_is_digit(f->val[0]) &&
		    (logparse_field_num(f, &special), special))
			logparse_nan_evidence(rd, s, n);
	}
}

/* The fields of a Megatron record in s[from..to) into st; whether all
 * were clean. */
static bool
megatron_fields(struct log_reader *rd, const char *s, size_t n, size_t from,
                size_t to, struct log_step *st)
{
	bool clean = true, have_lm_loss = false;
	struct logparse_field f;

	for (const char *p = s + from;
	     logparse_next_field(&p, s + to, &f, &clean);)
		megatron_field(rd, &f, st, &have_lm_loss, s, n);
	return clean;
}

/* "iteration" followed by spaces and a digit. */
static bool
megatron_quick(const char *s, size_t i, size_t n)
{
	if (i >= n || !logparse_is_space(s[i]))
		return false;
	while (i < n && logparse_is_space(s[i]))
		i++;
	return i < n && logparse_is_digit(s[i]);
}

void
logparse_megatron(struct log_reader *rd, const char *s, size_t n)
{
	const struct logparse_builtin *b = rd->lp->builtin;
	pcre2_match_data *md = b->megatron_md;
	size_t head = logparse_next_head(b->megatron_head, md, s, 0, n,
	                                 "iteration", 9, megatron_quick);

	while (head < n) {
		size_t fields = pcre2_get_ovector_pointer(md)[1], region;
		long step = logparse_group_long(md, s, 1);
		long total = logparse_group_long(md, s, 2);
		struct log_step st;
		bool clean;

		/*
		 * A record runs to the next record on the line, found first:
		 * reading each record's fields to the end of the line cost
		 * the square of its length on a line of many records.
		 */
		region = logparse_next_head(b->megatron_head, md, s, fields,
		                            n, "iteration", 9, megatron_quick);
		logparse_step_init(&st, rd);
		st.step = step;
		clean = megatron_fields(rd, s, n, fields, region, &st);
		if (total > 0) {
			rd->res->total_steps = total;
			if (step == total)
				reader_finished(rd);
		}
		if (step >= 0)
			reader_add_step(rd, &st, LOG_FORMAT_MEGATRON);
		if (clean && step >= 0)
			reader_clean_span(rd, head, region);
		head = region;
	}
}

/* The unit of the report whose head "memory (MB) |" is at m (end: the
 * line's end), or 0 when it is no such head. */
static double
memory_unit(const char *m, const char *end)
{
	if ((size_t)(end - m) < 13 || m[10] != ')' || m[11] != ' ' ||
	    m[12] != '|')
		return 0;
	if (!memcmp(m + 8, "MB", 2))
		return MIB;
	if (!memcmp(m + 8, "GB", 2))
		return 1e9;
	return 0;
}

/* A peak's value in GiB: up to a '[', where another rank's report was
 * glued on ("90000.0[Rank 1] (after 10 iterations) "), else NAN. */
static double
memory_value(const struct logparse_field *f, double unit)
{
	struct logparse_field v = *f;
	const char *glued = memchr(v.val, '[', v.vlen);

	if (glued)
		v.vlen = (size_t)(glued - v.val);
	return logparse_field_value(&v) * unit / GIB;
}

/* The peaks of one report, its fields in [p, end). */
static void
memory_fields(struct log_reader *rd, const char *p, const char *end,
              double unit, bool *clean)
{
	struct logparse_field f;

	while (logparse_next_field(&p, end, &f, clean)) {
		if (logparse_key_is(&f, "max allocated") ||
		    logparse_key_is(&f, "mem-max-allocated-gigabytes"))
			reader_memory(rd, memory_value(&f, unit), NAN, NAN);
		else if (logparse_key_is(&f, "max reserved") ||
		         logparse_key_is(&f, "mem-max-reserved-gigabytes"))
			reader_memory(rd, NAN, memory_value(&f, unit), NAN);
	}
}

/*
 * "[Rank 0] (after 20 iterations) memory (MB) | allocated: ... | max
 * allocated: ... | reserved: ... | max reserved: ..." (MiB), and
 * Megatron-Bridge's "memory (GB) | mem-max-allocated-gigabytes: ..."
 * (bytes / 1e9: train_utils.py report_memory @067f987).  Ranks that
 * report at once can glue their reports into one line ("...: 507[Rank
 * 3] ... memory (GB) | ..."): each report on the line is read with its
 * own unit, and the highest peak kept, as from the ranks' own lines.
 */
void
logparse_megatron_memory(struct log_reader *rd, const char *s, size_t n)
{
	const char *end = s + n, *m = logparse_find(s, n, "memory (", 8);
	const char *next;
	double unit;
	bool clean = true;

	if (m == NULL || memory_unit(m, end) == 0)
		return;
	for (const char *head = m; head; head = next) {
		next = logparse_find(head + 8, (size_t)(end - head - 8),
		                     "memory (", 8);
		if ((unit = memory_unit(head, end)) > 0)
			memory_fields(rd, head + 13, next ? next : end, unit,
			              &clean);
	}
	if (clean)
		reader_clean_span(rd, (size_t)(m - s), n);
}
