/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-search.c - the adaptive search's correction (search-fit.h): a
 * fit recovers a known deviation, the prior keeps one run from
 * reordering the campaign, and the journal's text of a model reads
 * back to the same numbers.
 */
#include "autoconfig.h"

#include <math.h>
#include <string.h>

#include "harness.h"
#include "search-fit.h"

static struct layout
lay(int tp, int pp, int mbs, enum recompute rc)
{
	struct layout l;

	memset(&l, 0, sizeof(l));
	l.tp = tp;
	l.pp = pp;
	l.cp = l.ep = l.vp = 1;
	l.mbs = mbs;
	l.gbs = 128;
	l.recompute = rc;
	return l;
}

/* 36 runs over tp x pp x mbs x recompute whose measured times are the
 * predictions times 1.2, times 1.05 per doubling of tp: the fit finds
 * both (the prior costs a little with this many runs). */
static void
test_fit_recovers_known_factor(void)
{
	static const int tps[] = { 1, 2, 4 }, pps[] = { 1, 2 }, mbss[] = { 1, 2 };
	double x[36][FIT_NTERMS], y[36];
	struct fit_model m;
	int n = 0;

	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 2; b++)
			for (int c = 0; c < 2; c++)
				for (int r = 0; r < 3; r++) {
					struct layout l = lay(tps[a], pps[b], mbss[c],
					                      (enum recompute)r);

					fit_features(&l, x[n]);
					y[n++] = log(1.2) + log(1.05) * log2(tps[a]);
				}
	CU_ASSERT_EQUAL_FATAL(fit_solve((const double (*)[FIT_NTERMS])x, y, n,
	                                &m), 0);
	CU_ASSERT_EQUAL(m.runs, 36);
	ASSERT_NEAR_REL(fit_factor(&m), 1.2, 0.02);
	CU_ASSERT_DOUBLE_EQUAL(m.coef[FIT_TP], log(1.05), 0.01);
	CU_ASSERT_DOUBLE_EQUAL(m.coef[FIT_PP], 0, 0.01);
	CU_ASSERT_DOUBLE_EQUAL(m.coef[FIT_MBS], 0, 0.01);
	/* An exact fit: the spread is the floor, not the prior's 10 %. */
	CU_ASSERT(m.sigma < 0.04);
	CU_ASSERT(m.sigma >= FIT_MIN_SIGMA);
	{
		struct layout l = lay(8, 1, 1, RECOMPUTE_NONE);

		/* tp 8 was never measured: the slope carries to it. */
		ASSERT_NEAR_REL(fit_predict(&m, &l, 1.0), 1.2 * pow(1.05, 3),
		                0.03);
	}
}

/* One run 50 % slower than predicted, at tp 2: the global factor takes
 * most of it, the slope little, so that tp 8 predicted 15 % slower
 * than tp 1 stays behind it. */
static void
test_prior_holds_one_point(void)
{
	struct layout l = lay(2, 1, 1, RECOMPUTE_NONE);
	struct layout a = lay(1, 1, 1, RECOMPUTE_NONE);
	struct layout b = lay(8, 1, 1, RECOMPUTE_NONE);
	double x[1][FIT_NTERMS], y[1] = { log(1.5) };
	struct fit_model m;

	fit_features(&l, x[0]);
	CU_ASSERT_EQUAL_FATAL(fit_solve((const double (*)[FIT_NTERMS])x, y, 1,
	                                &m), 0);
	CU_ASSERT(fit_factor(&m) > 1.3);
	CU_ASSERT(fit_factor(&m) < 1.5);
	/* The ratio of tp 8's correction to tp 1's: a few percent. */
	CU_ASSERT(fit_predict(&m, &b, 1.0) / fit_predict(&m, &a, 1.0) < 1.12);
	CU_ASSERT(fit_predict(&m, &b, 1.15) > fit_predict(&m, &a, 1.0));
	/* Few runs: the interval stays near the prior's width. */
	CU_ASSERT(m.sigma > 0.07);
	CU_ASSERT(fit_optimistic(&m, &a, 1.0) < fit_predict(&m, &a, 1.0));
}

/* Two runs at tp 1 and tp 4, 1.5 and 0.8 of their predictions: the
 * slope is learned most of the way (-0.23 a doubling) and reorders tp 8
 * predicted 60 % slower than tp 1 ahead of it. */
static void
test_two_levels_teach_a_slope(void)
{
	struct layout l1 = lay(1, 1, 1, RECOMPUTE_NONE);
	struct layout l4 = lay(4, 1, 1, RECOMPUTE_NONE);
	struct layout l8 = lay(8, 1, 1, RECOMPUTE_NONE);
	double x[2][FIT_NTERMS], y[2] = { log(1.5), log(0.8) };
	struct fit_model m;

	fit_features(&l1, x[0]);
	fit_features(&l4, x[1]);
	CU_ASSERT_EQUAL_FATAL(fit_solve((const double (*)[FIT_NTERMS])x, y, 2,
	                                &m), 0);
	CU_ASSERT(m.coef[FIT_TP] < -0.15);
	CU_ASSERT(m.coef[FIT_TP] > -0.32);
	CU_ASSERT(fit_predict(&m, &l8, 1.6) < fit_predict(&m, &l1, 1.0));
}

/* No run, or a value that is not finite: no fit, no correction. */
static void
test_fit_refuses(void)
{
	double x[1][FIT_NTERMS], y[1] = { NAN };
	struct layout l = lay(2, 1, 1, RECOMPUTE_NONE);
	struct fit_model m;

	fit_features(&l, x[0]);
	CU_ASSERT_EQUAL(fit_solve((const double (*)[FIT_NTERMS])x, y, 0, &m),
	                -1);
	CU_ASSERT_EQUAL(fit_solve((const double (*)[FIT_NTERMS])x, y, 1, &m),
	                -1);
	CU_ASSERT_EQUAL(m.runs, 0);
	CU_ASSERT_DOUBLE_EQUAL(fit_predict(&m, &l, 2.5), 2.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(fit_factor(&m), 1.0, 1e-12);
}

/* What the journal writes reads back to the same model; what it cannot
 * have written is refused. */
static void
test_model_text_round_trip(void)
{
	static const char *const bad[] = {
		"0,0,0,0,0,0,0,0", "0,0,0,0,0,0,0,0,0,0", "nan,0,0,0,0,0,0,0,0",
		"11,0,0,0,0,0,0,0,0", "0,0,0,0,0,0,0,0,x", "",
	};
	struct fit_model m, back;
	char buf[192];

	memset(&m, 0, sizeof(m));
	m.runs = 3;
	for (int j = 0; j < FIT_NTERMS; j++)
		m.coef[j] = 0.01 * (j + 1) * (j % 2 ? -1 : 1);
	m.sigma = 0.0625;
	fit_format_coef(&m, buf, sizeof buf);
	memset(&back, 0, sizeof(back));
	CU_ASSERT_EQUAL(fit_parse(buf, "0.0625", &back), 0);
	for (int j = 0; j < FIT_NTERMS; j++)
		CU_ASSERT_DOUBLE_EQUAL(back.coef[j], m.coef[j], 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(back.sigma, 0.0625, 1e-12);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CU_ASSERT_EQUAL(fit_parse(bad[i], "0.1", &back), -1);
	CU_ASSERT_EQUAL(fit_parse(buf, "-1", &back), -1);
	CU_ASSERT_EQUAL(fit_parse(buf, "inf", &back), -1);
	/* Refused text leaves the model as it was. */
	CU_ASSERT_DOUBLE_EQUAL(back.sigma, 0.0625, 1e-12);
}

/* The stop rule's optimistic end: the calibration's interval counts
 * only when the calibration was fitted to measured runs, and then only
 * where it is lower than the refit's own bound. */
static void
test_optimistic_interval(void)
{
	struct layout l = lay(2, 1, 1, RECOMPUTE_NONE);
	struct fit_model m;
	double opt;

	memset(&m, 0, sizeof(m));
	m.runs = 2;
	m.coef[FIT_GLOBAL] = log(1.1);
	m.sigma = 0.05;
	opt = fit_optimistic(&m, &l, 2.0);
	/* Built-in defaults: the interval is not the site's; unchanged. */
	CU_ASSERT_DOUBLE_EQUAL(fit_optimistic_interval(&m, &l, 2.0, 1.0,
	                                               false), opt, 1e-12);
	/* Fitted: a low end of 1.5 s is 1.65 s corrected, below 2.02 s. */
	CU_ASSERT_DOUBLE_EQUAL(fit_optimistic_interval(&m, &l, 2.0, 1.5,
	                                               true), 1.65, 1e-9);
	/* A narrow interval does not raise the refit's bound. */
	CU_ASSERT_DOUBLE_EQUAL(fit_optimistic_interval(&m, &l, 2.0, 1.95,
	                                               true), opt, 1e-12);
	/* A plan without the column (0): the refit's bound. */
	CU_ASSERT_DOUBLE_EQUAL(fit_optimistic_interval(&m, &l, 2.0, 0, true),
	                       opt, 1e-12);
}

static const struct harness_test fit_tests[] = {
	{ "a fit recovers a known factor", test_fit_recovers_known_factor },
	{ "the prior holds one point", test_prior_holds_one_point },
	{ "two levels teach a slope", test_two_levels_teach_a_slope },
	{ "no runs, no correction", test_fit_refuses },
	{ "the model's text round trip", test_model_text_round_trip },
	{ "the calibrated optimistic end", test_optimistic_interval },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "search fit", fit_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
