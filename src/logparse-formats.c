/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-formats.c - the step records of Megatron-LM, NeMo 2.0, NeMo 1.x
 * and torchtitan.
 *
 * Each parser looks for its record heads with one PCRE2 pattern (after a
 * memchr prefilter that rejects most lines for the price of one scan),
 * then reads the "key: value" fields with plain C: fields come in any
 * order and with keys of several words, so one regex per field would scan
 * every line once per key.  A record whose fields are all "key: number" is
 * marked clean, and the failure patterns skip it.
 *
 * Field names are those printed by Megatron-LM training.py @d98e8a6
 * (training_log), Megatron-Bridge train_utils.py @067f987, Megatron-
 * DeepSpeed and the NeMo and torchtitan lines in shared/data/real-logs.
 */
#include "autoconfig.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "error.h"
#include "logparse-int.h"
#include "xalloc.h"

/* Megatron: " iteration       10/     500 |"; no colon after the word
 * (the HF m4 trainer's "iteration:  2500/500000" is another format),
 * and not NeMo 2.0's "Training epoch 0, iteration 9/49 |". */
static const char megatron_head_re[] =
	"(?<!, )iteration\\s+([0-9]+)\\s*/\\s*([0-9]+)\\s*\\|";
/* NeMo 2.0: "Training epoch 0, iteration 9/49". */
static const char nemo2_head_re[] =
	"Training epoch ([0-9]+), iteration ([0-9]+)/([0-9]+)";
/* NeMo 1.x tqdm: "Epoch 0: :  33%|███ | 10/30 [00:28<00:57, k=v]" or,
 * with no known total, "Epoch 0: : 51it [00:20, k=v]". */
static const char nemo1_bar_re[] =
	"Epoch ([0-9]+):(?:[^|\\[]*\\|[^|]*\\|\\s*([0-9]+)(?:/([0-9]+))?"
	"|[^|\\[]*?([0-9]+)it)\\s*\\[([^\\]]*)\\]";
/* torchtitan: "step: 10  loss:  9.1234"; not "validate step:". */
static const char titan_step_re[] =
	"(?<!validate )(?<![\\w])step:\\s*([0-9]+)\\s+loss:";

/*
 * Compile one built-in pattern; failing to is a bug.  The record heads
 * found by next_head() are compiled anchored: PCRE2's JIT ignores
 * PCRE2_ANCHORED given at match time and falls back to the interpreter.
 */
static pcre2_code *
compile_builtin(const char *re, uint32_t options, pcre2_match_data **md)
{
	PCRE2_SIZE off;
	int code;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
	                              options, &code, &off, NULL);

	if (c == NULL) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(code, msg, sizeof msg);
		bug("pattern '%s' does not compile at offset %zu: %s", re,
		    (size_t)off, (char *)msg);
	}
	(void)pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
	*md = pcre2_match_data_create_from_pattern(c, NULL);
	return c;
}

void
logparse_formats_init(struct logparse *lp)
{
	struct logparse_builtin *b = xcalloc(1, sizeof(*b));

	b->megatron_head = compile_builtin(megatron_head_re, PCRE2_ANCHORED,
	                                   &b->megatron_md);
	b->nemo2_head = compile_builtin(nemo2_head_re, PCRE2_ANCHORED,
	                                &b->nemo2_md);
	b->nemo1_bar = compile_builtin(nemo1_bar_re, 0, &b->nemo1_md);
	b->titan_step = compile_builtin(titan_step_re, 0, &b->titan_md);
	lp->builtin = b;
}

void
logparse_formats_release(struct logparse *lp)
{
	struct logparse_builtin *b = lp->builtin;

	if (b == NULL)
		return;
	pcre2_match_data_free(b->megatron_md);
	pcre2_match_data_free(b->nemo2_md);
	pcre2_match_data_free(b->nemo1_md);
	pcre2_match_data_free(b->titan_md);
	pcre2_code_free(b->megatron_head);
	pcre2_code_free(b->nemo2_head);
	pcre2_code_free(b->nemo1_bar);
	pcre2_code_free(b->titan_step);
	free(b);
	lp->builtin = NULL;
}

/* ---- small scanners --------------------------------------------------- */

/*
 * The first needle[0..len) in s[0..n), or NULL.  glibc's memmem works out
 * the needle's critical factorisation on every call, which costs more
 * than the short prefixes searched here; memchr on the first byte and a
 * memcmp do not.
 */
static const char *
find(const char *s, size_t n, const char *needle, size_t len)
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

/* A whole non-negative integer of at most 18 digits. */
static bool
span_long(const char *s, size_t n, long *out)
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

/* Group g of the last match in md as an integer; -1 when unset. */
static long
group_long(pcre2_match_data *md, const char *s, int g)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	size_t at = 2 * (size_t)g;
	long v;

	if ((int)pcre2_get_ovector_count(md) <= g || ov[at] == PCRE2_UNSET)
		return -1;
	if (!span_long(s + ov[at], ov[at + 1] - ov[at], &v))
		return -1;
	return v;
}

/* A step on the current line that says nothing yet. */
static void
step_init(struct log_step *st, struct log_reader *rd)
{
	st->step = -1;
	st->line = rd->lineno;
	st->step_time_s = st->loss = st->tokens_per_s = NAN;
	st->tflops = st->mem_gib = NAN;
}

/* ---- "key: value | key: value" fields (Megatron, NeMo 2.0) ------------ */

struct field {
	const char *key, *val;
	size_t klen, vlen;
};

/* Whether field f has key k. */
static bool
key_is(const struct field *f, const char *k)
{
	size_t n = strlen(k);

	return f->klen == n && !memcmp(f->key, k, n);
}

/* The value of f as a number (NAN when it is none); *special is set for
 * nan and inf. */
static double
field_num(const struct field *f, bool *special)
{
	double v;

	if (!logparse_number(f->val, f->vlen, false, &v, special)) {
		*special = false;
		return NAN;
	}
	return v;
}

/* The value of f as a finite number, or NAN. */
static double
field_value(const struct field *f)
{
	bool special;
	double v = field_num(f, &special);

	return special ? NAN : v;
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

/*
 * The next '|'-separated field of [*p, end).  Returns false at the end.
 * *clean is cleared when the field is not "key: number" or empty.
 * (This runs for every field of every record: the trimming is written
 * out on local pointers.)
 */
static bool
next_field(const char **p, const char *end, struct field *f, bool *clean)
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

/* A nan or inf loss (or grad norm): the run is diverging. */
static void
nan_evidence(struct log_reader *rd, const char *s, size_t n)
{
	rd->res->nan_seen = true;
	reader_evidence(rd, FAILURE_NAN_LOSS, s, n);
}

/* ---- Megatron-LM ------------------------------------------------------ */

/* One Megatron field into st. */
static void
megatron_field(struct log_reader *rd, const struct field *f,
               struct log_step *st, bool *have_lm_loss, const char *s,
               size_t n)
{
	bool special;
	double v;

	if (key_is(f, "elapsed time per iteration (ms)"))
		st->step_time_s = field_value(f) / 1000.0;
	else if (key_is(f, "lm loss") ||
	         (key_is(f, "loss") && !*have_lm_loss)) {
		*have_lm_loss = *have_lm_loss || key_is(f, "lm loss");
		v = field_num(f, &special);
		st->loss = special ? NAN : v;
		if (special)
			nan_evidence(rd, s, n);
	} else if (key_is(f, "throughput per GPU (TFLOP/s/GPU)") ||
	           key_is(f, "TFLOPs"))
		st->tflops = field_value(f);
	else if (key_is(f, "tokens/sec/gpu") ||
	         key_is(f, "tokens per gpu per second (tgs)"))
		st->tokens_per_s = field_value(f);
	else if (key_is(f, "number of nan iterations")) {
		/* Mostly "0": not worth a conversion. */
		if (!(f->vlen == 1 && f->val[0] == '0') && field_value(f) > 0)
			reader_evidence(rd, FAILURE_NAN_LOSS, s, n);
	} else if (key_is(f, "grad norm")) {
		/* A number that starts with a digit is finite. */
		if (f->vlen && !logparse_is_digit(f->val[0]) &&
		    (field_num(f, &special), special))
			nan_evidence(rd, s, n);
	}
}

/* The fields of a Megatron record in s[from..to) into st; whether all
 * were clean. */
static bool
megatron_fields(struct log_reader *rd, const char *s, size_t n, size_t from,
                size_t to, struct log_step *st)
{
	bool clean = true, have_lm_loss = false;
	struct field f;

	for (const char *p = s + from; next_field(&p, s + to, &f, &clean);)
		megatron_field(rd, &f, st, &have_lm_loss, s, n);
	return clean;
}

/*
 * The next record head at or after from: the next place where word
 * (wlen bytes, from the head pattern) is followed by what quick() accepts,
 * confirmed by a match of re (compiled anchored; left in md).  Returns
 * its offset, or n.  find() and a byte check turn away the "iteration"
 * of "elapsed time per iteration (ms)" without a call of PCRE2.
 */
static size_t
next_head(const pcre2_code *re, pcre2_match_data *md, const char *s,
          size_t from, size_t n, const char *word, size_t wlen,
          bool (*quick)(const char *s, size_t i, size_t n))
{
	while (from < n) {
		const char *p = find(s + from, n - from, word, wlen);
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
	size_t head = next_head(b->megatron_head, md, s, 0, n, "iteration",
	                        9, megatron_quick);

	while (head < n) {
		size_t fields = pcre2_get_ovector_pointer(md)[1], region;
		long step = group_long(md, s, 1), total = group_long(md, s, 2);
		struct log_step st;
		bool clean;

		/*
		 * A record runs to the next record on the line, found first:
		 * reading each record's fields to the end of the line cost
		 * the square of its length on a line of many records.
		 */
		region = next_head(b->megatron_head, md, s, fields, n,
		                   "iteration", 9, megatron_quick);
		step_init(&st, rd);
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

/*
 * "[Rank 0] (after 20 iterations) memory (MB) | allocated: ... | max
 * allocated: ... | reserved: ... | max reserved: ..." (MiB), and
 * Megatron-Bridge's "memory (GB) | mem-max-allocated-gigabytes: ..."
 * (bytes / 1e9: train_utils.py report_memory @067f987).
 */
void
logparse_megatron_memory(struct log_reader *rd, const char *s, size_t n)
{
	const char *m = find(s, n, "memory (", 8), *p;
	double unit, alloc = NAN, reserved = NAN;
	struct field f;
	bool clean = true;

	if (m == NULL || (size_t)(s + n - m) < 13 || m[10] != ')' ||
	    m[11] != ' ' || m[12] != '|')
		return;
	if (!memcmp(m + 8, "MB", 2))
		unit = MIB;
	else if (!memcmp(m + 8, "GB", 2))
		unit = 1e9;
	else
		return;
	for (p = m + 13; next_field(&p, s + n, &f, &clean);) {
		if (key_is(&f, "max allocated") ||
		    key_is(&f, "mem-max-allocated-gigabytes"))
			alloc = field_value(&f) * unit / GIB;
		else if (key_is(&f, "max reserved") ||
		         key_is(&f, "mem-max-reserved-gigabytes"))
			reserved = field_value(&f) * unit / GIB;
	}
	reader_memory(rd, alloc, reserved, NAN);
	if (clean)
		reader_clean_span(rd, (size_t)(m - s), n);
}

/* ---- NeMo 2.0 --------------------------------------------------------- */

/* One NeMo 2.0 field into st; *global gets global_step. */
static void
nemo2_field(struct log_reader *rd, const struct field *f,
            struct log_step *st, long *global, const char *s, size_t n)
{
	bool special;
	double v;

	if (key_is(f, "train_step_timing in s"))
		st->step_time_s = field_value(f);
	else if (key_is(f, "reduced_train_loss")) {
		v = field_num(f, &special);
		st->loss = special ? NAN : v;
		if (special)
			nan_evidence(rd, s, n);
	} else if (key_is(f, "global_step")) {
		v = field_value(f);
		if (v >= 0 && v < 1e15 && v == floor(v))
			*global = (long)v;
	} else if (key_is(f, "tokens_per_sec_per_gpu"))
		st->tokens_per_s = field_value(f);
	else if (key_is(f, "TFLOPS_per_GPU"))
		st->tflops = field_value(f);
	else if (key_is(f, "max_memory_reserved")) {
		st->mem_gib = field_value(f) / GIB;
		reader_memory(rd, NAN, st->mem_gib, NAN);
	} else if (key_is(f, "max_memory_allocated"))
		reader_memory(rd, field_value(f) / GIB, NAN, NAN);
	else if (key_is(f, "peak_memory_usage")) {
		/* Bytes, as dgxc-benchmarking's READMEs show it; which peak
		 * (allocated or reserved) is not documented. */
		v = field_value(f) / GIB;
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
	struct field f;

	*global = -1;
	for (const char *p = s + from; next_field(&p, s + to, &f, &clean);)
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
	size_t head = next_head(b->nemo2_head, md, s, 0, n,
	                        "Training epoch ", 15, nemo2_quick);

	while (head < n) {
		size_t fields = pcre2_get_ovector_pointer(md)[1], region;
		long iter = group_long(md, s, 2), last = group_long(md, s, 3);
		long global;
		struct log_step st;
		bool clean;

		/* As for Megatron: the record ends at the next head. */
		region = next_head(b->nemo2_head, md, s, fields, n,
		                   "Training epoch ", 15, nemo2_quick);
		step_init(&st, rd);
		clean = nemo2_fields(rd, s, n, fields, region, &st, &global);
		if (iter >= 0) {
			st.step = global >= 0 ? global : iter;
			/* "iteration 49/49" is the last of 50 (dgxc-
			 * benchmarking llama3.1 README: global_step 49 of
			 * a 50-step run).  The iteration restarts at every
			 * epoch, the total does not: a run of several
			 * epochs ends at the global step that is it. */
			if (last >= 0) {
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

/* ---- NeMo 1.x progress bars ------------------------------------------- */

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
			st->step_time_s = v;
		else if (ITEM_IS("reduced_train_loss") ||
		         (ITEM_IS("loss") && !have_reduced)) {
			have_reduced = have_reduced ||
			               ITEM_IS("reduced_train_loss");
			st->loss = special ? NAN : v;
			if (special)
				nan_evidence(rd, s, n);
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
	rd->res->total_steps = total;
	if (step == total)
		reader_finished(rd);
	else if (step > total && rd->finished && !rd->finish_said) {
		rd->finished = false;
		rd->finished_line = 0;
	}
}

void
logparse_nemo1(struct log_reader *rd, const char *s, size_t n)
{
	const struct logparse_builtin *b = rd->lp->builtin;
	pcre2_match_data *md = b->nemo1_md;
	PCRE2_SIZE at = 0;

	if (!find(s, n, "Epoch ", 6))
		return;
	while (at < n && pcre2_match(b->nemo1_bar, (PCRE2_SPTR)s, n, at, 0,
	                             md, NULL) > 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		long epoch = group_long(md, s, 1);
		long count = group_long(md, s, 2), total = group_long(md, s, 3);
		struct log_step st;

		if (count < 0)
			count = group_long(md, s, 4);
		at = ov[1];
		if (count < 0 || epoch < 0)
			continue;
		step_init(&st, rd);
		st.step = nemo1_global(rd, epoch, count);
		nemo1_postfix(rd, s + ov[10], s + ov[11], &st, s, n);
		if (total > 0)
			nemo1_total(rd, st.step, total);
		reader_add_step(rd, &st, LOG_FORMAT_NEMO1);
		reader_clean_span(rd, ov[0], ov[1]);
	}
}

/* ---- torchtitan ------------------------------------------------------- */

/* The "key: value" pairs after the loss: how far they are clean. */
static size_t
titan_fields(struct log_reader *rd, const char *s, size_t i, size_t n,
             struct log_step *st)
{
	size_t ok = i;

	for (;;) {
		size_t k, v;
		double num;

		while (i < n && logparse_is_space(s[i]))
			i++;
		for (k = i; i < n && (s[i] == '_' || (s[i] >= 'a' &&
		     s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'));)
			i++;
		if (i == k || i >= n || s[i] != ':')
			return ok;
		v = logparse_number_prefix(s + i + 1, n - i - 1, true, &num);
		if (v == 0)
			return ok;
#define KEY_IS(w) (i - k == sizeof(w) - 1 && !memcmp(s + k, w, i - k))
		if (KEY_IS("tps") || KEY_IS("wps"))
			st->tokens_per_s = num;
		else if (KEY_IS("tflops"))
			st->tflops = num;
		else if (KEY_IS("memory")) {
			st->mem_gib = num;
			reader_memory(rd, NAN, num, NAN);
		} else if (KEY_IS("grad_norm") && !isfinite(num))
			nan_evidence(rd, s, n);
#undef KEY_IS
		i += 1 + v;
		/* Units glued to the number: "GiB(52.28%)", "%". */
		while (i < n && !logparse_is_space(s[i]))
			i++;
		ok = i;
	}
}

/*
 * The first time stamp "YYYY-MM-DD HH:MM:SS" (or with a 'T'), with its
 * fraction after ',' or '.', in s[0..n): torchtitan's logger writes
 * "2025-03-12 11:10:21,511".  Whole seconds and the fraction apart, so
 * that the difference of two keeps the milliseconds exact.  false when
 * there is none.
 */
static bool
titan_clock(const char *s, size_t n, long long *sec, double *frac)
{
	static const char shape[] = "dddd-dd-dd dd:dd:dd";
	const size_t len = sizeof shape - 1;

	for (size_t i = 0; i + len <= n; i++) {
		int v[6] = { 0 }, f = 0;
		double scale = 0.1;
		struct tm tm;
		size_t k;

		for (k = 0; k < len; k++) {
			char c = s[i + k];

			if (shape[k] == 'd' ? c < '0' || c > '9'
			    : shape[k] == ' ' ? c != ' ' && c != 'T'
			    : c != shape[k])
				break;
			if (shape[k] == 'd')
				v[f] = v[f] * 10 + (c - '0');
			else
				f++;
		}
		if (k < len)
			continue;
		*frac = 0;
		k = i + len + 1;
		while (i + len < n && (s[i + len] == ',' ||
		       s[i + len] == '.') && k < n && s[k] >= '0' &&
		       s[k] <= '9') {
			*frac += (s[k++] - '0') * scale;
			scale /= 10;
		}
		memset(&tm, 0, sizeof tm);
		tm.tm_year = v[0] - 1900;
		tm.tm_mon = v[1] - 1;
		tm.tm_mday = v[2];
		tm.tm_hour = v[3];
		tm.tm_min = v[4];
		tm.tm_sec = v[5];
		/* Only differences are used, local time or UTC; a
		 * daylight-saving step in a log of local time is a gap
		 * (titan_step_time). */
		*sec = (long long)timegm(&tm);
		return true;
	}
	return false;
}

/* The rank a line's prefix s[0..n) names: torchrun's "[rank3]:" or
 * srun -l's " 3: "; -1 when it names none. */
static long
titan_rank(const char *s, size_t n)
{
	const char *p = find(s, n, "[rank", 5);
	size_t i = 0, d;
	long r;

	if (p) {
		i = (size_t)(p - s) + 5;
		for (d = i; d < n && logparse_is_digit(s[d]); d++)
			;
		return d < n && s[d] == ']' && span_long(s + i, d - i, &r)
		       ? r : -1;
	}
	while (i < n && s[i] == ' ')
		i++;
	for (d = i; d < n && logparse_is_digit(s[d]); d++)
		;
	return d < n && s[d] == ':' && span_long(s + i, d - i, &r) ? r : -1;
}

/*
 * torchtitan logs tokens per second, not a step time: the time between
 * two step lines over the steps between them is one (one step apart, or
 * its log_freq).  Every rank may print its lines, and a rank's come late
 * when its pipe is flushed late: the clock reads the lines of the first
 * rank seen alone (a step keeps its first record, but one without a
 * time gives way to the first with one).  The same step again is passed
 * over; a step back (a restarted run) starts again from it; a clock
 * that stood still or went back gives no time.
 */
static void
titan_step_time(struct log_reader *rd, const char *s, size_t head,
                struct log_step *st)
{
	size_t start = head;
	long long sec;
	double frac, dt;
	long rank;

	while (start > 0 && s[start - 1] != '\n')
		start--;
	if (!titan_clock(s + start, head - start, &sec, &frac))
		return;
	rank = titan_rank(s + start, head - start);
	if (rd->titan_clocked && rank != rd->titan_rank)
		return;
	rd->titan_rank = rank;
	if (rd->titan_clocked && st->step == rd->titan_step)
		return;
	dt = (double)(sec - rd->titan_sec) + (frac - rd->titan_frac);
	if (rd->titan_clocked && st->step > rd->titan_step && dt > 0) {
		double per = dt / (double)(st->step - rd->titan_step);

		/* Ten times the last is no step but a gap the lines span
		 * (a checkpoint, an evaluation, a restart that went on
		 * counting, a clock put forward): no time. */
		if (rd->titan_last_s > 0 && per > 10 * rd->titan_last_s) {
			rd->res->clock_gaps++;
		} else {
			st->step_time_s = per;
			rd->titan_last_s = per;
			rd->res->clocked_steps++;
		}
	}
	rd->titan_clocked = true;
	rd->titan_step = st->step;
	rd->titan_sec = sec;
	rd->titan_frac = frac;
}

void
logparse_torchtitan(struct log_reader *rd, const char *s, size_t n)
{
	const struct logparse_builtin *b = rd->lp->builtin;
	pcre2_match_data *md = b->titan_md;
	PCRE2_SIZE at = 0;

	if (!find(s, n, "step:", 5))
		return;
	while (at < n && pcre2_match(b->titan_step, (PCRE2_SPTR)s, n, at, 0,
	                             md, NULL) > 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		size_t head = ov[0], i = ov[1], k;
		struct log_step st;
		double loss;

		at = ov[1];
		step_init(&st, rd);
		st.step = group_long(md, s, 1);
		k = logparse_number_prefix(s + i, n - i, false, &loss);
		if (st.step < 0 || k == 0)
			continue;
		st.loss = isfinite(loss) ? loss : NAN;
		if (!isfinite(loss))
			nan_evidence(rd, s, n);
		i = titan_fields(rd, s, i + k, n, &st);
		titan_step_time(rd, s, head, &st);
		at = i > at ? i : at;
		reader_add_step(rd, &st, LOG_FORMAT_TORCHTITAN);
		reader_clean_span(rd, head, i);
	}
}
