/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-nemo1.c - the steps of NeMo 1.x, read from its tqdm progress
 * bars: "Epoch 0: :  33%|███ | 10/30 [00:28<00:57, k=v]" or, with no
 * known total, "Epoch 0: : 51it [00:20, k=v]" (the pattern is in
 * logparse-formats.c).  The bar counts the steps of its epoch; the
 * global step is worked out here.
 */
#include "autoconfig.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "logparse-int.h"
#include "xalloc.h"

/* Trim spaces from both ends of [*s, *s + *n). */
static void
trim(const char **s, size_t *n)
{
	while (*n && logparse_is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && logparse_is_space((*s)[*n - 1]))
		(*n)--;
}

/* The tqdm postfix "elapsed<left, rate, key=value, ..." into st. */
static void
nemo1_postfix(struct log_reader *rd, const char *p, const char *end,
              struct log_step *st, const char *s, size_t n)
{
	bool have_reduced = false;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *item = p, *eq;
		size_t len = (size_t)((comma ? comma : end) - p);
		double v;
		bool special;

		p = comma ? comma + 1 : end;
		trim(&item, &len);
		eq = memchr(item, '=', len);
		if (eq == NULL)
			continue;
		if (!logparse_number(eq + 1, len - (size_t)(eq + 1 - item),
		                     false, &v, &special))
			continue;
#define ITEM_IS(k) ((size_t)(eq - item) == sizeof(k) - 1 && \
		    !memcmp(item, k, sizeof(k) - 1))
		if (ITEM_IS("train_step_timing in s"))
			st->step_time_s = special ? INFINITY : v;
		else if (ITEM_IS("reduced_train_loss") ||
		         (ITEM_IS("loss") && !have_reduced)) {
			have_reduced = have_reduced ||
			               ITEM_IS("reduced_train_loss");
			st->loss = special ? NAN : v;
			if (special)
				logparse_nan_evidence(rd, s, n);
		}
#undef ITEM_IS
	}
}

/* Epochs given a start of their own; a bar of a later one counts as
 * of the last of them (a damaged line, not a run of that many). */
#define NEMO1_EPOCHS_MAX 65536

/* a + b, or LONG_MAX where that overflows (both non-negative). */
static long
add_capped(long a, long b)
{
	return a > LONG_MAX - b ? LONG_MAX : a + b;
}

/*
 * The global step of a NeMo 1.x bar at count in epoch e.  The counter
 * starts again at every epoch (NeMo's CustomProgressBar shows the
 * optimizer steps of the epoch, get_current_epoch_step, over max_steps;
 * Lightning's bar the batches of the epoch), so an epoch starts where
 * the one before it ended, at its highest count.  An epoch shown again
 * (a restart from its checkpoint) keeps the start it had, and its steps
 * repeat as a restart's do; epochs the log skips add no steps.
 */
static long
nemo1_global(struct log_reader *rd, long e, long count)
{
	size_t n = rd->nemo1_epochs;

	if (e >= NEMO1_EPOCHS_MAX)
		e = NEMO1_EPOCHS_MAX - 1;
	if ((size_t)e >= n) {
		long start = n ? add_capped(rd->nemo1_base[n - 1],
		                            rd->nemo1_top) : 0;

		rd->nemo1_base = xreallocarray(rd->nemo1_base, (size_t)e + 1,
		                               sizeof(*rd->nemo1_base));
		for (size_t i = n; i <= (size_t)e; i++)
			rd->nemo1_base[i] = start;
		rd->nemo1_epochs = (size_t)e + 1;
		rd->nemo1_top = 0;
	}
	if ((size_t)e + 1 == rd->nemo1_epochs && count > rd->nemo1_top)
		rd->nemo1_top = count;
	return add_capped(rd->nemo1_base[e], count);
}

/*
 * A bar at global step step of total: the run is finished at its total
 * (CustomProgressBar's is max_steps).  Lightning's own bar counts the
 * batches of one epoch over that epoch's: a later epoch goes past it,
 * and the finish the end of the first seemed to be is withdrawn, unless
 * the log said so itself.
 */
static void
nemo1_total(struct log_reader *rd, long step, long total)
{
	if (step > total) {
		reader_past_total(rd);
		return;
	}
	rd->res->total_steps = total;
	if (step == total)
		reader_finished(rd);
}

void
logparse_nemo1(struct log_reader *rd, const char *s, size_t n)
{
	const struct logparse_builtin *b = rd->lp->builtin;
	pcre2_match_data *md = b->nemo1_md;
	PCRE2_SIZE at = 0;

	if (!logparse_find(s, n, "Epoch ", 6))
		return;
	while (at < n && pcre2_match(b->nemo1_bar, (PCRE2_SPTR)s, n, at, 0,
	                             md, NULL) > 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		long epoch = logparse_group_long(md, s, 1);
		long count = logparse_group_long(md, s, 2);
		long total = logparse_group_long(md, s, 3);
		struct log_step st;

		if (count < 0)
			count = logparse_group_long(md, s, 4);
		at = ov[1];
		if (count < 0 || epoch < 0)
			continue;
		logparse_step_init(&st, rd);
		st.step = nemo1_global(rd, epoch, count);
		nemo1_postfix(rd, s + ov[10], s + ov[11], &st, s, n);
		if (total > 0)
			nemo1_total(rd, st.step, total);
		reader_add_step(rd, &st, LOG_FORMAT_NEMO1);
		reader_clean_span(rd, ov[0], ov[1]);
	}
}
