/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-torchtitan.c - the step lines of torchtitan, "step: 200
 * loss:  6.1384  memory: 49.66GiB(52.28%)  tps: 5,856  tflops: 339.16"
 * (the head pattern is in logparse-formats.c), and the step time their
 * time stamps give: torchtitan prints none.  Field names are those of
 * the torchtitan lines in shared/data/real-logs.
 */
#include "autoconfig.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "logparse-int.h"

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
			logparse_nan_evidence(rd, s, n);
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
	const char *p = logparse_find(s, n, "[rank", 5);
	size_t i = 0, d;
	long r;

	if (p) {
		i = (size_t)(p - s) + 5;
		for (d = i; d < n && logparse_is_digit(s[d]); d++)
			;
		return d < n && s[d] == ']' &&
		       logparse_span_long(s + i, d - i, &r) ? r : -1;
	}
	while (i < n && s[i] == ' ')
		i++;
	for (d = i; d < n && logparse_is_digit(s[d]); d++)
		;
	return d < n && s[d] == ':' &&
	       logparse_span_long(s + i, d - i, &r) ? r : -1;
}

/*
 * torchtitan logs tokens per second, not a step time: the time between
 * two step lines over the steps between them is one (one step apart, or
 * its log_freq).  Every rank may print its lines, and a rank's come late
 * when its pipe is flushed late: the clock reads the lines of the first
 * rank seen alone (a step keeps its first record, but one without a
 * time gives way to the first with one).  The same step again is passed
 * over; a step back (a restarted run) starts again from it; a clock
 * that stood still or went back gives no time, counted in clock_back.
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
	/* A later step stamped no later: the clock went back (or the
	 * lines came out of order); its time would be none or negative. */
	if (rd->titan_clocked && st->step > rd->titan_step && dt <= 0)
		rd->res->clock_back++;
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

	if (!logparse_find(s, n, "step:", 5))
		return;
	while (at < n && pcre2_match(b->titan_step, (PCRE2_SPTR)s, n, at, 0,
	                             md, NULL) > 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		size_t head = ov[0], i = ov[1], k;
		struct log_step st;
		double loss;

		at = ov[1];
		logparse_step_init(&st, rd);
		st.step = logparse_group_long(md, s, 1);
		k = logparse_number_prefix(s + i, n - i, false, &loss);
		if (st.step < 0 || k == 0)
			continue;
		st.loss = isfinite(loss) ? loss : NAN;
		if (!isfinite(loss))
			logparse_nan_evidence(rd, s, n);
		i = titan_fields(rd, s, i + k, n, &st);
		titan_step_time(rd, s, head, &st);
		at = i > at ? i : at;
		reader_add_step(rd, &st, LOG_FORMAT_TORCHTITAN);
		reader_clean_span(rd, head, i);
	}
}
