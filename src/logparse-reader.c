/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-reader.c - the line reader: chunks into lines (line breaks,
 * carriage returns, "^M", long lines, NUL bytes), each line through the
 * record parsers, the extra patterns and the failure patterns, and the
 * stores they fill (steps, evidence, memory).
 */
#include "autoconfig.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logparse-int.h"
#include "xalloc.h"

/* Length of the UTF-8 sequence at s[0..n), or 0 when it is invalid. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 :
	             s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (s[0] >= 0xf8 || len == 0 || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* The evidence text of a line: trimmed, at most LOGPARSE_EVIDENCE_MAX
 * bytes, valid UTF-8 (other bytes and control characters become '?'). */
static char *
evidence_text(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0;

	while (n && (u[n - 1] == ' ' || u[n - 1] == '\t'))
		n--;
	while (i < n && (u[i] == ' ' || u[i] == '\t'))
		i++;
	while (i < n) {
		size_t len = u[i] < 0x80 ? 1 : utf8_len(u + i, n - i);

		if (sb.len + (len ? len : 1) > LOGPARSE_EVIDENCE_MAX)
			break;
		if (len == 0 || (len == 1 && (u[i] < 0x20 || u[i] == 0x7f))) {
			strbuf_addch(&sb, u[i] == '\t' ? ' ' : '?');
			i++;
		} else {
			strbuf_add(&sb, s + i, len);
			i += len;
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* ---- the reader's stores ------------------------------------------------ */

/* The slot where step's search starts: Fibonacci hashing (Knuth, TAOCP
 * 6.4) spreads consecutive steps over the table. */
static size_t
slot_of(const struct log_reader *rd, long step)
{
	uint64_t h = (uint64_t)step * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (rd->nslots - 1);
}

/* Position of step in res->steps, or -1. */
static long
index_find(const struct log_reader *rd, long step)
{
	if (rd->nslots == 0)
		return -1;
	for (size_t i = slot_of(rd, step);; i = (i + 1) & (rd->nslots - 1)) {
		uint32_t pos = rd->slots[i];

		if (pos == 0)
			return -1;
		if (rd->res->steps[pos - 1].step == step)
			return (long)pos - 1;
	}
}

/* Index the step at position pos (linear probing). */
static void
index_put(struct log_reader *rd, size_t pos)
{
	long step = rd->res->steps[pos].step;
	size_t i = slot_of(rd, step);

	while (rd->slots[i])
		i = (i + 1) & (rd->nslots - 1);
	rd->slots[i] = (uint32_t)pos + 1;
}

/* Keep the table at most half full (and make it on first use). */
static void
index_grow(struct log_reader *rd, size_t need)
{
	if (rd->nslots && need * 2 <= rd->nslots)
		return;
	free(rd->slots);
	if (rd->nslots == 0)
		rd->nslots = 1024;
	while (need * 2 > rd->nslots)
		rd->nslots *= 2;
	rd->slots = xcalloc(rd->nslots, sizeof(*rd->slots));
	for (size_t p = 0; p < rd->res->nsteps; p++)
		index_put(rd, p);
}

/* Training went on after line: an earlier exception or exit did not end
 * the run, nor did a preemption or a node failure that Slurm requeued
 * the job after, its next attempt writing on in the same log (see
 * logparse.h). */
static void
supersede(struct log_reader *rd, long line)
{
	static const enum failure_class transient[] = {
		FAILURE_UNKNOWN, FAILURE_EXIT_NONZERO, FAILURE_PREEMPTED,
		FAILURE_NODE_FAIL,
	};

	for (size_t i = 0; i < sizeof transient / sizeof *transient; i++) {
		struct log_evidence *e = &rd->res->seen[transient[i]];

		if (e->text && e->line < line) {
			log_evidence_clear(e);
			rd->seen &= ~FAILURE_BIT(transient[i]);
		}
	}
}

/* Whether a step time is one no run takes (LOGPARSE_STEP_S_MAX and
 * LOGPARSE_STEP_S_MIN). */
static bool
step_time_absurd(double t)
{
	return !isnan(t) && (!(fabs(t) <= LOGPARSE_STEP_S_MAX) ||
	                     (t > 0 && t < LOGPARSE_STEP_S_MIN));
}

/* Keep a new step, its time left out when it is absurd. */
static void
append_step(struct log_reader *rd, const struct log_step *st)
{
	struct log_result *res = rd->res;

	ALLOC_GROW(res->steps, res->nsteps + 1, res->alloc_steps);
	res->steps[res->nsteps] = *st;
	if (step_time_absurd(st->step_time_s)) {
		res->steps[res->nsteps].step_time_s = NAN;
		if (res->bad_step_times++ == 0)
			res->bad_step_time_line = st->line;
	}
}

void
reader_add_step(struct log_reader *rd, const struct log_step *st,
                enum log_format fmt)
{
	struct log_result *res = rd->res;
	long pos = -1;

	if (st->step > res->last_step)
		res->last_step = st->step;
	/* Steps mostly come in order: a step past the highest is new, and
	 * the index is made only when one comes back. */
	if (res->nsteps && st->step <= rd->max_step) {
		index_grow(rd, res->nsteps + 1);
		pos = index_find(rd, st->step);
	}
	/* Training went on: a new step, or an earlier one again (a restart
	 * from a checkpoint).  The highest step once more is only another
	 * rank's copy of it, printed after the failure as well as before. */
	if (pos < 0 || st->step < rd->max_step)
		supersede(rd, st->line);
	if (pos >= 0) {
		struct log_step *old = &res->steps[pos];

		if (isnan(old->step_time_s) && !isnan(st->step_time_s) &&
		    !step_time_absurd(st->step_time_s))
			*old = *st;
		return;
	}
	if (res->nsteps >= LOGPARSE_STEPS_MAX) {
		res->steps_capped = true;
		return;
	}
	append_step(rd, st);
	if (rd->nslots) {
		index_grow(rd, res->nsteps + 1);
		index_put(rd, res->nsteps);
	}
	if (res->nsteps == 0 || st->step > rd->max_step)
		rd->max_step = st->step;
	res->nsteps++;
	rd->records[fmt]++;
}

void
reader_finished(struct log_reader *rd)
{
	if (!rd->finished)
		rd->finished_line = rd->lineno;
	rd->finished = true;
}

void
reader_past_total(struct log_reader *rd)
{
	/* That total was an epoch's: the run's is not known (watch would
	 * end a run at it, status count 13 of 10). */
	rd->res->total_steps = -1;
	if (rd->finished && !rd->finish_said) {
		rd->finished = false;
		rd->finished_line = 0;
	}
}

void
reader_evidence(struct log_reader *rd, enum failure_class c, const char *s,
                size_t n)
{
	struct log_evidence *e = &rd->res->seen[c];

	rd->seen |= FAILURE_BIT(c);
	if (e->text)
		return;
	e->line = rd->lineno;
	e->text = evidence_text(s, n);
}

void
reader_clean_span(struct log_reader *rd, size_t start, size_t end)
{
	if (rd->nspans < READER_SPANS_MAX && start < end) {
		rd->spans[rd->nspans].start = start;
		rd->spans[rd->nspans].end = end;
		rd->nspans++;
	}
}

/* *have = max(*have, v), ignoring NAN. */
static void
keep_max(double *have, double v)
{
	if (!isnan(v) && (isnan(*have) || v > *have))
		*have = v;
}

/* v, or NAN when it is a reading no GPU gives (see LOGPARSE_MEM_GIB_MAX),
 * which is counted. */
static double
believed_memory(struct log_reader *rd, double v)
{
	struct log_result *r = rd->res;

	if (isnan(v) || (v >= 0 && v <= LOGPARSE_MEM_GIB_MAX))
		return v;
	if (r->bad_mem_readings++ == 0)
		r->bad_mem_line = rd->lineno;
	return NAN;
}

void
reader_memory(struct log_reader *rd, double alloc_gib, double reserved_gib,
              double peak_gib)
{
	struct log_result *r = rd->res;

	alloc_gib = believed_memory(rd, alloc_gib);
	reserved_gib = believed_memory(rd, reserved_gib);
	peak_gib = believed_memory(rd, peak_gib);

	keep_max(&r->mem_max_allocated_gib, alloc_gib);
	keep_max(&r->mem_max_reserved_gib, reserved_gib);
	keep_max(&r->mem_peak_gib, alloc_gib);
	keep_max(&r->mem_peak_gib, reserved_gib);
	keep_max(&r->mem_peak_gib, peak_gib);
}

/* ---- one line ----------------------------------------------------------- */

/* s[0..n) without ANSI escape sequences, in rd->scratch; new length. */
static size_t
strip_ansi(struct log_reader *rd, const char *s, size_t n)
{
	size_t k = 0;

	if (rd->scratch_alloc < n + READER_PAD) {
		rd->scratch = xrealloc(rd->scratch, n + READER_PAD);
		rd->scratch_alloc = n + READER_PAD;
	}
	for (size_t i = 0; i < n;) {
		if (s[i] != '\x1b') {
			rd->scratch[k++] = s[i++];
			continue;
		}
		/* CSI: ESC [ parameters, intermediates, one final byte
		 * (ECMA-48 5.4); any other escape is two bytes. */
		if (i + 1 < n && s[i + 1] == '[') {
			for (i += 2; i < n && (s[i] < 0x40 || s[i] > 0x7e);)
				i++;
			i++;
		} else
			i += 2;
	}
	memset(rd->scratch + k, 0, READER_PAD);
	return k;
}

/* The value of group g of u's last match as a number; NAN if none. */
static double
user_number(const struct logparse_user *u, const char *s, int g)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(u->md);
	double v;
	bool special;

	if (g == 0 || (uint32_t)g >= pcre2_get_ovector_count(u->md) ||
	    ov[2 * (size_t)g] == PCRE2_UNSET ||
	    !logparse_number(s + ov[2 * (size_t)g],
	                     ov[2 * (size_t)g + 1] - ov[2 * (size_t)g], true,
	                     &v, &special))
		return NAN;
	return v;
}

/* One match of a pattern with a step group. */
static void
user_step(struct log_reader *rd, const struct logparse_user *u,
          const char *s)
{
	double step = user_number(u, s, u->g_step);
	struct log_step st;

	if (isnan(step) || step < 0 || step > 1e15 || step != floor(step))
		return;
	st.step = (long)step;
	st.line = rd->lineno;
	st.step_time_s = u->g_time ? user_number(u, s, u->g_time)
	                           : user_number(u, s, u->g_time_ms) / 1000.0;
	st.loss = user_number(u, s, u->g_loss);
	st.tokens_per_s = user_number(u, s, u->g_tokens);
	st.tflops = user_number(u, s, u->g_tflops);
	st.mem_gib = user_number(u, s, u->g_mem);
	st.gbs = 0;
	reader_memory(rd, NAN, NAN, st.mem_gib);
	reader_add_step(rd, &st, LOG_FORMAT_UNKNOWN);
}

/* Keep what match md of u captured in s: the value group, else the
 * first group, else the whole match. */
static void
user_keep_text(const struct logparse_user *u, const char *s,
               struct log_pattern_hits *h)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(u->md);
	size_t g = u->g_value ? (size_t)u->g_value : 1;

	if (g >= pcre2_get_ovector_count(u->md) || ov[2 * g] == PCRE2_UNSET)
		g = 0;
	free(h->last_text);
	/* \K in a lookahead can end a match before its start. */
	h->last_text = evidence_text(s + ov[2 * g], ov[2 * g + 1] > ov[2 * g]
	                             ? ov[2 * g + 1] - ov[2 * g] : 0);
}

/* Every match of every extra pattern in the line. */
static void
reader_user(struct log_reader *rd, const char *s, size_t n, bool steps)
{
	for (int i = 0; i < rd->lp->nuser; i++) {
		const struct logparse_user *u = &rd->lp->user[i];
		PCRE2_SIZE at = 0;

		while (at <= n && pcre2_match(u->re, (PCRE2_SPTR)s, n, at, 0,
		                              u->md, NULL) >= 0) {
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(u->md);

			if (u->hits >= 0) {
				struct log_pattern_hits *h =
					&rd->res->patterns[u->hits];
				double v = user_number(u, s, u->g_value ?
				                       u->g_value : 1);

				if (h->count++ == 0) {
					h->first.line = rd->lineno;
					h->first.text = evidence_text(s, n);
				}
				if (!isnan(v))
					h->last_value = v;
				user_keep_text(u, s, h);
			} else if (steps)
				user_step(rd, u, s);
			if (u->cls != FAILURE_NONE)
				reader_evidence(rd, u->cls, s, n);
			/* An empty match must not stop the scan. */
			at = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
		}
	}
}

/* A format named by its keys when the file has no record at all. */
static void
weak_format(struct log_reader *rd, const char *s, size_t n)
{
	if (memmem(s, n, "train_step_timing in s:", 23))
		rd->weak_format = LOG_FORMAT_NEMO2;
	else if (memmem(s, n, "train_step_timing in s=", 23))
		rd->weak_format = LOG_FORMAT_NEMO1;
	else if (memmem(s, n, "elapsed time per iteration (ms):", 32))
		rd->weak_format = LOG_FORMAT_MEGATRON;
}

/* Sort the clean spans by start (there are at most a few). */
static void
sort_spans(struct log_reader *rd)
{
	for (int i = 1; i < rd->nspans; i++) {
		struct reader_span sp = rd->spans[i];
		int j = i;

		for (; j > 0 && rd->spans[j - 1].start > sp.start; j--)
			rd->spans[j] = rd->spans[j - 1];
		rd->spans[j] = sp;
	}
}

/* Run the failure patterns over the parts of the line outside clean
 * records, and keep what they found. */
static void
reader_failures(struct log_reader *rd, const char *s, size_t n)
{
	struct failure_hits hits = { 0, false };
	size_t at = 0;

	sort_spans(rd);
	for (int i = 0; i <= rd->nspans; i++) {
		size_t end = i < rd->nspans ? rd->spans[i].start : n;

		if (end > at)
			failure_scan_line(rd->lp->fail, s + at, end - at,
			                  &hits);
		if (i < rd->nspans && rd->spans[i].end > at)
			at = rd->spans[i].end;
	}
	if (hits.finished) {
		reader_finished(rd);
		rd->finish_said = true;
	}
	for (int c = 1; c < FAILURE_COUNT; c++)
		if (hits.classes & FAILURE_BIT(c))
			reader_evidence(rd, (enum failure_class)c, s, n);
}

/*
 * Where the clean records that end the first lim bytes of the line begin.
 * A record runs to the end of its line or to the next record, so once a
 * parser has claimed the tail of a line, the next parsers need only look
 * at what comes before it: a search over a short prefix instead of one
 * over the whole line.
 */
static size_t
uncovered(const struct log_reader *rd, size_t lim)
{
	bool moved = true;

	while (moved) {
		moved = false;
		for (int i = 0; i < rd->nspans; i++) {
			const struct reader_span *sp = &rd->spans[i];

			if (sp->start < lim && sp->end >= lim) {
				lim = sp->start;
				moved = true;
			}
		}
	}
	return lim;
}

/* One line (between two line breaks), at most LOGPARSE_LINE_MAX bytes. */
static void
reader_line(struct log_reader *rd, const char *s, size_t n)
{
	/* A line cut off, at the file's end or by a hole of NUL bytes, may
	 * end mid-value ("(ms): 89" of 89075.2): no step from it. */
	bool steps = !rd->last_unterminated && !rd->cut_by_nul;

	if (n == 0)
		return;
	if (memchr(s, '\x1b', n)) {
		n = strip_ansi(rd, s, n);
		s = rd->scratch;
	}
	rd->nspans = 0;
	if (steps) {
		static void (*const parsers[])(struct log_reader *,
		                               const char *, size_t) = {
			logparse_megatron, logparse_megatron_memory,
			logparse_nemo2, logparse_nemo1, logparse_torchtitan,
		};
		size_t lim = n;

		for (size_t i = 0; i < sizeof(parsers) / sizeof(*parsers) &&
		     lim > 0; i++) {
			parsers[i](rd, s, lim);
			lim = uncovered(rd, lim);
		}
		if (rd->res->nsteps == 0 &&
		    rd->weak_format == LOG_FORMAT_UNKNOWN)
			weak_format(rd, s, n);
	}
	if (rd->lp->nuser)
		reader_user(rd, s, n, steps);
	reader_failures(rd, s, n);
}

/* s[0..n) copied with READER_PAD zero bytes after it. */
static const char *
pad_line(struct log_reader *rd, const char *s, size_t n)
{
	if (rd->padded_alloc < n + READER_PAD) {
		free(rd->padded);
		rd->padded_alloc = n + READER_PAD;
		rd->padded = xmalloc(rd->padded_alloc);
	}
	memcpy(rd->padded, s, n);
	memset(rd->padded + n, 0, READER_PAD);
	return rd->padded;
}

/* A line as read: cut to LOGPARSE_LINE_MAX, counted when it was cut. */
static void
reader_raw_line(struct log_reader *rd, const char *s, size_t n, bool capped)
{
	if (capped || n > LOGPARSE_LINE_MAX) {
		rd->res->long_lines++;
		if (n > LOGPARSE_LINE_MAX)
			n = LOGPARSE_LINE_MAX;
	}
	/* Lines inside the chunk have the rest of the chunk after them. */
	if (rd->feed_end == NULL || rd->feed_end - (s + n) < READER_PAD)
		s = pad_line(rd, s, n);
	reader_line(rd, s, n);
}

/* ---- line breaks -------------------------------------------------------- */

/* Keep the start of a line that goes on in the next chunk. */
static void
carry_add(struct log_reader *rd, const char *p, size_t n)
{
	size_t room = LOGPARSE_LINE_MAX - rd->carry.len;

	if (rd->carry_capped)
		return;
	if (n > room) {
		n = room;
		rd->carry_capped = true;
	}
	strbuf_add(&rd->carry, p, n);
}

void
reader_flush(struct log_reader *rd)
{
	const char *end = rd->feed_end;

	/* The carry's own slack serves as padding: no copy. */
	strbuf_grow(&rd->carry, READER_PAD);
	memset(rd->carry.buf + rd->carry.len, 0, READER_PAD);
	rd->feed_end = rd->carry.buf + rd->carry.len + READER_PAD;
	reader_raw_line(rd, rd->carry.buf, rd->carry.len, rd->carry_capped);
	rd->feed_end = end;
	strbuf_reset(&rd->carry);
	rd->carry_capped = false;
}

/* The next break of each kind at or after the last search; end if none. */
struct breaks {
	const char *nl, *cr, *caret_m, *nul;
};

/* The next "^M" in [p, end); end when none is complete in the chunk. */
static const char *
find_caret_m(const char *p, const char *end)
{
	while (p < end) {
		const char *q = memchr(p, '^', (size_t)(end - p));

		if (q == NULL || q + 1 >= end)
			return end;
		if (q[1] == 'M')
			return q;
		p = q + 1;
	}
	return end;
}

/* The next line break in [p, end) and its length, or NULL.  Each kind
 * is searched again only once p has passed its last position, so a
 * chunk is scanned once per kind whatever its lines.  A run of NUL
 * bytes breaks a line too: a node that crashed leaves such a hole in
 * its log, and what was written after it (the failure) would otherwise
 * be glued to the line before it, or cut with it past
 * LOGPARSE_LINE_MAX. */
static const char *
next_break(struct breaks *bk, const char *p, const char *end, size_t *len)
{
	const char *b;

	if (bk->nl == NULL || bk->nl < p) {
		bk->nl = memchr(p, '\n', (size_t)(end - p));
		if (bk->nl == NULL)
			bk->nl = end;
	}
	if (bk->cr == NULL || bk->cr < p) {
		bk->cr = memchr(p, '\r', (size_t)(end - p));
		if (bk->cr == NULL)
			bk->cr = end;
	}
	if (bk->caret_m == NULL || bk->caret_m < p)
		bk->caret_m = find_caret_m(p, end);
	if (bk->nul == NULL || bk->nul < p) {
		bk->nul = memchr(p, '\0', (size_t)(end - p));
		if (bk->nul == NULL)
			bk->nul = end;
	}
	b = bk->nl < bk->cr ? bk->nl : bk->cr;
	if (bk->caret_m < b)
		b = bk->caret_m;
	if (bk->nul < b)
		b = bk->nul;
	if (b == end)
		return NULL;
	*len = b == bk->caret_m ? 2 : 1;
	if (b == bk->nul)
		while (b + *len < end && b[*len] == '\0')
			(*len)++;
	return b;
}

/* Count NUL bytes: a binary or corrupt file is reported, not fatal. */
static void
count_nuls(struct log_reader *rd, const char *p, size_t len)
{
	const char *end = p + len, *z;

	while ((z = memchr(p, '\0', (size_t)(end - p))) != NULL) {
		if (rd->res->first_nul_offset < 0)
			rd->res->first_nul_offset =
				(long long)rd->res->bytes_read +
				(long long)(z - (end - len));
		rd->res->nul_bytes++;
		p = z + 1;
	}
}

void
logparse_feed(struct log_reader *rd, const void *buf, size_t len)
{
	const char *p = buf, *end = p + len;
	struct breaks bk = { NULL, NULL, NULL, NULL };

	if (len == 0)
		return;
	count_nuls(rd, p, len);
	rd->res->bytes_read += len;
	rd->feed_end = end;
	/* A "^M" cut between two chunks. */
	if (rd->carry.len && !rd->carry_capped &&
	    rd->carry.buf[rd->carry.len - 1] == '^' && *p == 'M') {
		strbuf_setlen(&rd->carry, rd->carry.len - 1);
		reader_flush(rd);
		p++;
	}
	while (p < end) {
		size_t blen;
		const char *b = next_break(&bk, p, end, &blen);

		if (b == NULL) {
			carry_add(rd, p, (size_t)(end - p));
			break;
		}
		rd->cut_by_nul = *b == '\0';
		if (rd->carry.len) {
			carry_add(rd, p, (size_t)(b - p));
			reader_flush(rd);
		} else
			reader_raw_line(rd, p, (size_t)(b - p), false);
		rd->cut_by_nul = false;
		if (*b == '\n')
			rd->lineno++;
		p = b + blen;
	}
	rd->line_open = end[-1] != '\n';
	rd->feed_end = NULL;
	/* Known as soon as it is read: watch ends a run on it. */
	rd->res->finished = rd->finished;
}
