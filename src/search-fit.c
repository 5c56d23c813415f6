/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * search-fit.c - ridge regression of the prediction error on the
 * layout (search-fit.h).  Pure arithmetic: no files, no state.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-fit.h"

/* log2 of a parallel size, 0 for what is unset (0 or 1). */
static double
lg(int v)
{
	return v > 1 ? log2((double)v) : 0.0;
}

void
fit_features(const struct layout *l, double x[FIT_NTERMS])
{
	x[FIT_GLOBAL] = 1.0;
	x[FIT_TP] = lg(l->tp);
	x[FIT_PP] = lg(l->pp);
	x[FIT_MBS] = lg(l->mbs);
	x[FIT_VP] = lg(l->vp);
	x[FIT_CP] = lg(l->cp);
	x[FIT_EP] = lg(l->ep);
	x[FIT_SELECTIVE] = l->recompute == RECOMPUTE_SELECTIVE;
	x[FIT_FULL] = l->recompute == RECOMPUTE_FULL;
}

/* Solve a x = b for symmetric positive definite a (Cholesky, in place);
 * -1 when a is not positive definite. */
static int
cholesky_solve(double a[FIT_NTERMS][FIT_NTERMS], double b[FIT_NTERMS])
{
	enum { N = FIT_NTERMS };

	for (int j = 0; j < N; j++) {
		double d = a[j][j];

		for (int k = 0; k < j; k++)
			d -= a[j][k] * a[j][k];
		if (!(d > 0))
			return -1;
		a[j][j] = sqrt(d);
		for (int i = j + 1; i < N; i++) {
			double s = a[i][j];

			for (int k = 0; k < j; k++)
				s -= a[i][k] * a[j][k];
			a[i][j] = s / a[j][j];
		}
	}
	for (int i = 0; i < N; i++) {      /* L z = b */
		for (int k = 0; k < i; k++)
			b[i] -= a[i][k] * b[k];
		b[i] /= a[i][i];
	}
	for (int i = N - 1; i >= 0; i--) { /* L' x = z */
		for (int k = i + 1; k < N; k++)
			b[i] -= a[k][i] * b[k];
		b[i] /= a[i][i];
	}
	return 0;
}

/* The spread: residuals pooled with the prior's pseudo-residuals. */
static double
fit_sigma(const double (*x)[FIT_NTERMS], const double *y, int n,
          const double coef[FIT_NTERMS])
{
	double ss = FIT_PRIOR_N * FIT_PRIOR_SIGMA * FIT_PRIOR_SIGMA, s;

	for (int i = 0; i < n; i++) {
		double r = y[i];

		for (int j = 0; j < FIT_NTERMS; j++)
			r -= coef[j] * x[i][j];
		ss += r * r;
	}
	s = sqrt(ss / (n + FIT_PRIOR_N));
	return s > FIT_MIN_SIGMA ? s : FIT_MIN_SIGMA;
}

int
fit_solve(const double (*x)[FIT_NTERMS], const double *y, int n,
          struct fit_model *m)
{
	double a[FIT_NTERMS][FIT_NTERMS], b[FIT_NTERMS];

	memset(m, 0, sizeof(*m));
	m->sigma = FIT_PRIOR_SIGMA;
	if (n < 1)
		return -1;
	/* Normal equations with the prior on the diagonal:
	 * (X'X + L) c = X'y. */
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	for (int j = 0; j < FIT_NTERMS; j++)
		a[j][j] = j == FIT_GLOBAL ? FIT_LAMBDA_GLOBAL
		                          : FIT_LAMBDA_SLOPE;
	for (int i = 0; i < n; i++) {
		if (!isfinite(y[i]))
			return -1;
		for (int j = 0; j < FIT_NTERMS; j++) {
			b[j] += x[i][j] * y[i];
			for (int k = 0; k < FIT_NTERMS; k++)
				a[j][k] += x[i][j] * x[i][k];
		}
	}
	if (cholesky_solve(a, b) != 0)
		return -1;
	for (int j = 0; j < FIT_NTERMS; j++) {
		/* What the journal keeps is what everyone applies. */
		char t[32];

		snprintf(t, sizeof t, "%.6g", b[j]);
		m->coef[j] = strtod(t, NULL);
		if (!isfinite(m->coef[j]) || fabs(m->coef[j]) > 10)
			return memset(m, 0, sizeof(*m)), -1;
	}
	{
		char t[32];

		snprintf(t, sizeof t, "%.6g", fit_sigma(x, y, n, m->coef));
		m->sigma = strtod(t, NULL);
	}
	m->runs = n;
	return 0;
}

/* coef . features(l) */
static double
fit_log_correction(const struct fit_model *m, const struct layout *l)
{
	double x[FIT_NTERMS], s = 0;

	if (m->runs <= 0)
		return 0;
	fit_features(l, x);
	for (int j = 0; j < FIT_NTERMS; j++)
		s += m->coef[j] * x[j];
	return s;
}

double
fit_predict(const struct fit_model *m, const struct layout *l,
            double pred_s)
{
	return pred_s * exp(fit_log_correction(m, l));
}

double
fit_optimistic(const struct fit_model *m, const struct layout *l,
               double pred_s)
{
	double sigma = m->runs > 0 ? m->sigma : FIT_PRIOR_SIGMA;

	return fit_predict(m, l, pred_s) * exp(-FIT_Z * sigma);
}

double
fit_optimistic_interval(const struct fit_model *m, const struct layout *l,
                        double pred_s, double pred_low_s, bool calibrated)
{
	double opt = fit_optimistic(m, l, pred_s);

	if (calibrated && pred_low_s > 0)
		opt = fmin(opt, fit_predict(m, l, pred_low_s));
	return opt;
}

double
fit_factor(const struct fit_model *m)
{
	return m->runs > 0 ? exp(m->coef[FIT_GLOBAL]) : 1.0;
}

void
fit_format_coef(const struct fit_model *m, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int j = 0; j < FIT_NTERMS && used < len; j++) {
		int w = snprintf(buf + used, len - used, "%s%.6g",
		                 j ? "," : "", m->coef[j]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* One number of [-10, 10] from *p, moving past it; -1 when none. */
static int
parse_one(const char **p, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(*p, &end);
	if (errno || end == *p || !isfinite(*v) || fabs(*v) > 10)
		return -1;
	*p = end;
	return 0;
}

int
fit_parse(const char *coef, const char *sigma, struct fit_model *m)
{
	struct fit_model t = *m;
	const char *p = coef;

	for (int j = 0; j < FIT_NTERMS; j++) {
		if (j > 0 && *p++ != ',')
			return -1;
		if (parse_one(&p, &t.coef[j]) != 0)
			return -1;
	}
	if (*p != '\0')
		return -1;
	p = sigma;
	if (parse_one(&p, &t.sigma) != 0 || *p != '\0' || t.sigma < 0)
		return -1;
	*m = t;
	return 0;
}
