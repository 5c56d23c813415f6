/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* steady.c - when a run's step time is known (see steady.h). */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>

#include "steady.h"
#include "xalloc.h"

/*
 * Two-sided 95 % quantiles of Student's t for 1 to 30 degrees of freedom
 * (any table, e.g. NIST/SEMATECH e-Handbook of Statistical Methods,
 * section 1.3.6.7.2); beyond, the Cornish-Fisher expansion in 1/df
 * (Abramowitz and Stegun 26.7.5), within 0.001 of the exact value.
 */
static const double t95_table[30] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
	2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
	2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
	2.048, 2.045, 2.042,
};

double
steady_t95(double df)
{
	const double z = 1.959964;
	double z3 = z * z * z, z5 = z3 * z * z;

	if (!(df >= 1))
		return NAN;
	if (df < 30) {
		/* A fractional df (an effective size) takes the lower
		 * whole df: the wider, safer interval. */
		return t95_table[(int)df - 1];
	}
	return z + (z3 + z) / (4 * df) +
	       (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
}

/* The measured step times of r in log order, after the ramp-up and
 * the warm-up, as log_result_step_stats takes them: a time of zero or
 * less (under LOGPARSE_STEP_S_MIN) is the clock's fault and left out.
 * The count in *n (allocated, the caller frees). */
static double *
measured_times(const struct log_result *r, int skipped, int *n)
{
	double *v = xcalloc(r->nsteps + 1, sizeof(*v));
	int seen = 0, k = 0;
	long gbs;

	for (size_t i = log_result_gbs_start(r, &gbs); i < r->nsteps; i++) {
		if (!isfinite(r->steps[i].step_time_s))
			continue;
		if (seen++ >= skipped &&
		    r->steps[i].step_time_s >= LOGPARSE_STEP_S_MIN)
			v[k++] = r->steps[i].step_time_s;
	}
	*n = k;
	return v;
}

/* Lag-1 autocorrelation of v[0..n) about mean; NAN under 3 values or
 * with no spread at all.  Identical times (a log's 2763.0 ms each step)
 * differ from their mean by its rounding alone, all on one side: their
 * "correlation" came out near 1 and the interval infinite, so a spread
 * under 1e-12 of the mean counts as none. */
static double
lag1(const double *v, int n, double mean)
{
	double num = 0, den = 0;

	if (n < 3)
		return NAN;
	for (int i = 0; i < n; i++)
		den += (v[i] - mean) * (v[i] - mean);
	for (int i = 0; i + 1 < n; i++)
		num += (v[i] - mean) * (v[i + 1] - mean);
	return den > n * (1e-12 * mean) * (1e-12 * mean) ? num / den : NAN;
}

/*
 * r1 with the small-sample bias taken off: over n values of an AR(1)
 * series with coefficient rho, the lag-1 estimate falls short by about
 * (1 + 4 rho) / n (Marriott and Pope, "Bias in the estimation of
 * autocorrelations", Biometrika 41 (1954) 390-402), which at 10 to 30
 * steps is a large part of rho itself.  NAN stays NAN; at 1 or above
 * (the steps no better than one sample) it is 1.
 */
static double
lag1_unbiased(double r1, int n)
{
	double r;

	if (isnan(r1))
		return r1;
	r = r1 + (1 + 4 * r1) / n;
	return r < 1 ? r : 1;
}

/* The difference between the means of the first and the second half of
 * v[0..n), n >= 2 (the middle value of an odd n in neither). */
static double
halves_diff(const double *v, int n)
{
	double a = 0, b = 0;
	int h = n / 2;

	for (int i = 0; i < h; i++) {
		a += v[i];
		b += v[n - h + i];
	}
	return fabs(b - a) / h;
}

/*
 * Whether steps that pass the interval look settled enough to believe
 * it.  Waiting for the first step at which the interval is narrow
 * enough picks, among drifting runs, those whose few first steps
 * happened to lie close together, and r1 over them is too uncertain to
 * say how few independent samples they are.  So correlated steps must
 * be worth STEADY_MIN_EFF independent ones, and the means of the first
 * and second half of the steps must agree within the interval: a drift
 * the correlation does not show yet shows there.
 */
static bool
steady_settled(const struct steady *s, double r1)
{
	if (r1 > 0 && s->n_eff < STEADY_MIN_EFF)
		return false;
	return s->halves_rel <= s->half_rel;
}

void
steady_check(const struct log_result *r, int skip_steps, int min_steps,
             double rel, struct steady *out)
{
	struct log_step_stats st;
	double *v, half, r1;
	int n;

	log_result_step_stats(r, skip_steps, &st);
	out->known = false;
	out->measured = st.counted;
	out->dropped = st.measured - st.counted;
	out->skipped = st.skipped;
	out->mean_s = st.mean_s;
	out->half_rel = out->r1 = NAN;
	out->n_eff = 0;
	/* The last step kept, or past the steps kept the highest read:
	 * --max-steps above LOGPARSE_STEPS_MAX is reached too. */
	out->last_step = r->nsteps ? r->steps[r->nsteps - 1].step : -1;
	if (r->steps_capped && r->last_step > out->last_step)
		out->last_step = r->last_step;
	v = measured_times(r, st.skipped, &n);
	out->r1 = lag1(v, n, st.mean_s);
	out->halves_rel = n >= 2 ? halves_diff(v, n) / st.mean_s : NAN;
	free(v);
	/* A step timed at zero or less was only ever the clock's fault:
	 * left out, as results' figures leave it (one such step had ended
	 * the judging for the rest of the run). */
	if (n < 2 || !(st.mean_s > 0))
		return;
	r1 = lag1_unbiased(out->r1, n);
	out->n_eff = n;
	if (r1 > 0)
		out->n_eff = n * (1 - r1) / (1 + r1);
	if (out->n_eff < 2)
		return;
	half = steady_t95(out->n_eff - 1) * st.stdev_s / sqrt(out->n_eff);
	out->half_rel = half / st.mean_s;
	out->known = n >= STEADY_MIN_STEPS && n >= min_steps &&
	             out->half_rel <= rel && steady_settled(out, r1);
}
