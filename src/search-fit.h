/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * search-fit.h - the correction a campaign learns from its own runs:
 * log(measured / predicted step time) as a global term plus one slope
 * per layout dimension, fitted by ridge regression (a prior toward no
 * correction), and the interval a corrected prediction carries.
 *
 * Features of a layout: 1 (the global factor), log2 of tp, pp, mbs, vp,
 * cp and ep, and whether it recomputes selectively or fully.  Log2
 * slopes are what an estimator misses when it underrates a cost that
 * grows with each doubling (communication with tp, the bubble with pp,
 * kernel efficiency with mbs), and a slope carries what one measured
 * level says to the levels not yet measured, which per-level terms
 * cannot.
 */
#ifndef PARATUNE_SEARCH_FIT_H
#define PARATUNE_SEARCH_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "layout.h"

enum fit_term {
	FIT_GLOBAL, FIT_TP, FIT_PP, FIT_MBS, FIT_VP, FIT_CP, FIT_EP,
	FIT_SELECTIVE, FIT_FULL, FIT_NTERMS,
};

/*
 * The prior: each coefficient is shrunk toward 0 as if by a
 * pseudo-measurement of weight FIT_LAMBDA_* saying "no correction".
 * The global factor is held loosely: one run is the best estimate of
 * it there is, and one run moves it by 1 / 1.1 of what it saw.  The
 * slopes are held firmly: one run cannot tell a slope from the global
 * factor, so it moves them little (a run 50 % off at tp 2 changes tp 8
 * against tp 1 by about 10 %); runs at two levels of a dimension tell
 * it, and move it most of the way (tests/unit/test-search.c).
 */
#define FIT_LAMBDA_GLOBAL 0.1
#define FIT_LAMBDA_SLOPE 1.0
/*
 * The interval: sigma, the spread of log(measured / corrected
 * prediction), from the residuals with FIT_PRIOR_N pseudo-residuals of
 * FIT_PRIOR_SIGMA (predictions are 5-40 % off on real clusters, issue
 * 14), never below FIT_MIN_SIGMA (the run-to-run jitter of a measured
 * step time).  The optimistic end is the prediction times
 * exp(-FIT_Z * sigma): a one-sided 95 % bound.
 */
#define FIT_PRIOR_N 2.0
#define FIT_PRIOR_SIGMA 0.10
#define FIT_MIN_SIGMA 0.03
#define FIT_Z 1.645

struct fit_model {
	int runs;                 /* measured runs fitted; 0: no fit yet */
	double coef[FIT_NTERMS];  /* log-scale corrections */
	double sigma;             /* spread of the log-ratio */
};

/* The features of layout l. */
void fit_features(const struct layout *l, double x[FIT_NTERMS]);

/*
 * Fit a model to n runs: x[i] the features of run i, y[i] its
 * log(measured / predicted).  Returns 0, or -1 when n < 1 or a value is
 * not finite (m is then no correction).
 */
int fit_solve(const double (*x)[FIT_NTERMS], const double *y, int n,
              struct fit_model *m);

/* The prediction pred_s corrected by m for layout l (m->runs == 0: pred_s). */
double fit_predict(const struct fit_model *m, const struct layout *l,
                   double pred_s);
/* The low end of the corrected prediction's interval. */
double fit_optimistic(const struct fit_model *m, const struct layout *l,
                      double pred_s);
/*
 * The optimistic end the adaptive search's stop rule uses: that of
 * fit_optimistic, or, when the campaign's calibration was fitted to
 * measured runs (calibrated) and the plan gave pred_low_s (its interval's
 * low end, > 0), the lower of that and pred_low_s corrected by m:
 * neither the site's residuals nor this campaign's spread rules out a
 * candidate the other says could still win.
 */
double fit_optimistic_interval(const struct fit_model *m,
                               const struct layout *l, double pred_s,
                               double pred_low_s, bool calibrated);
/* The global factor, exp(coef[FIT_GLOBAL]). */
double fit_factor(const struct fit_model *m);

/*
 * The coefficients as the journal and the state file write them:
 * FIT_NTERMS numbers, comma-separated, "%.6g" each.  fit_parse reads
 * them back (with sigma's text): 0, or -1 when a value is missing, not
 * finite or outside [-10, 10] (a factor beyond e^10 is no correction
 * but a broken file); m is unchanged then.
 */
void fit_format_coef(const struct fit_model *m, char *buf, size_t len);
int fit_parse(const char *coef, const char *sigma, struct fit_model *m);

#endif
