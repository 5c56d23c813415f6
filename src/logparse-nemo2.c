/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-nemo2.c - the step records of NeMo 2.0, "Training epoch 0,
 * iteration 49/49 | lr: 7.496e-06 | global_step: 49 | ... |
 * reduced_train_loss: 11.96 | train_step_timing in s: 12.39" (the head
 * pattern is in logparse-formats.c).  Field names are those of the NeMo
 * 2.0 lines in shared/data/real-logs.
 */
#include "autoconfig.h"

#include <math.h>

#include "logparse-int.h"

/* One NeMo 2.0 field into st; *global gets global_step. */
static void
nemo2_field(struct log_reader *rd, const struct logparse_field *f,
            struct log_step *st, long *global, const char *s, size_t n)
{
	bool special;
	double v;

	if (logparse_key_is(f, "train_step_timing in s"))
		st->step_time_s = logparse_field_time(f);
	else if (logparse_key_is(f, "reduced_train_loss")) {
		v = logparse_field_num(f, &special);
		st->loss = special ? NAN : v;
		if (special)
			logparse_nan_evidence(rd, s, n);
	} else if (logparse_key_is(f, "global_step")) {
		v = logparse_field_value(f);
		if (v >= 0 && v < 1e15 && v == floor(v))
			*global = (long)v;
	} else if (logparse_key_is(f, "global_batch_size"))
		st->gbs = logparse_field_count(f);
	else if (logparse_key_is(f, "tokens_per_sec_per_gpu"))
		st->tokens_per_s = logparse_field_value(f);
	else if (logparse_key_is(f, "TFLOPS_per_GPU"))
		st->tflops = logparse_field_value(f);
	else if (logparse_key_is(f, "max_memory_reserved")) {
		st->mem_gib = logparse_field_value(f) / GIB;
		reader_memory(rd, NAN, st->mem_gib, NAN);
	} else if (logparse_key_is(f, "max_memory_allocated"))
		reader_memory(rd, logparse_field_value(f) / GIB, NAN, NAN);
	else if (logparse_key_is(f, "peak_memory_usage")) {
		/* Bytes, as dgxc-benchmarking's READMEs show it; which peak
		 * (allocated or reserved) is not documented. */
		v = logparse_field_value(f) / GIB;
		if (isnan(st->mem_gib))
			st->mem_gib = v;
		reader_memory(rd, NAN, NAN, v);
	}
}

/* The fields of a NeMo 2.0 record in s[from..to) into st and *global;
 * whether all were clean. */
static bool
nemo2_fields(struct log_reader *rd, const char *s, size_t n, size_t from,
             size_t to, struct log_step *st, long *global)
{
	bool clean = true;
	struct logparse_field f;

	*global = -1;
	for (const char *p = s + from;
	     logparse_next_field(&p, s + to, &f, &clean);)
		nemo2_field(rd, &f, st, global, s, n);
	return clean;
}

/* "Training epoch " followed by a digit. */
static bool
nemo2_quick(const char *s, size_t i, size_t n)
{
	return i < n && logparse_is_digit(s[i]);
}

void
logparse_nemo2(struct log_reader *rd, const char *s, size_t n)
{
	const struct logparse_builtin *b = rd->lp->builtin;
	pcre2_match_data *md = b->nemo2_md;
	size_t head = logparse_next_head(b->nemo2_head, md, s, 0, n,
	                                 "Training epoch ", 15, nemo2_quick);

	while (head < n) {
		size_t fields = pcre2_get_ovector_pointer(md)[1], region;
		long iter = logparse_group_long(md, s, 2);
		long last = logparse_group_long(md, s, 3);
		long global;
		struct log_step st;
		bool clean;

		/* As for Megatron: the record ends at the next head. */
		region = logparse_next_head(b->nemo2_head, md, s, fields, n,
		                            "Training epoch ", 15,
		                            nemo2_quick);
		logparse_step_init(&st, rd);
		clean = nemo2_fields(rd, s, n, fields, region, &st, &global);
		if (iter >= 0) {
			st.step = global >= 0 ? global : iter;
			/* "iteration 49/49" is the last of 50 (dgxc-
			 * benchmarking llama3.1 README: global_step 49 of
			 * a 50-step run).  The iteration restarts at every
			 * epoch, the total does not: a run of several
			 * epochs ends at the global step that is it.  Where
			 * the total was an epoch's, a later epoch's global
			 * step goes past it: not finished after all. */
			if (last >= 0 && st.step > last)
				reader_past_total(rd);
			else if (last >= 0) {
				rd->res->total_steps = last + 1;
				if (iter == last || global == last)
					reader_finished(rd);
			}
			reader_add_step(rd, &st, LOG_FORMAT_NEMO2);
			if (clean)
				reader_clean_span(rd, head, region);
		}
		head = region;
	}
}
