/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate.h - fitting the estimator's constants (calibration.h) to
 * measured runs: bounded least squares on log(predicted / measured),
 * k-fold cross-validation, and the calibration group written out.
 *
 * Pure computation on rows the caller built (cmd-calibrate.c reads them
 * from campaign directories and measured-runs CSV files).
 */
#ifndef PARATUNE_CALIBRATE_H
#define PARATUNE_CALIBRATE_H

#include <stdbool.h>

#include "calibration.h"
#include "estimate.h"
#include "strbuf.h"

/* One measured run. */
struct calib_row {
	struct workload w;       /* its campaign's; w.cal is replaced */
	struct layout l;
	double step_s;           /* measured seconds per step, > 0 */
	double peak_gib;         /* measured peak memory per GPU; 0: unknown */
	const char *group;       /* "dense-bf16", "dense-fp8" or "moe" */
	const char *where;       /* "FILE:LINE" or the candidate, for reports */
};

/* The fit of one set of rows. */
struct calib_fit {
	/* Fitted constants; residual band from the cross-validated
	 * residuals, rows the number of rows. */
	struct calibration cal;
	bool active[CAL_NPARAMS]; /* some row's prediction depends on it */
	int n, folds;             /* rows; folds of the cross-validation */
	/* Per row (n each, owned): step time predicted with the start
	 * constants, with the fit on all rows, and with the fit that held
	 * the row out (its fold's); memory likewise, 0 where unmeasured. */
	double *pred_before, *pred_in, *pred_cv;
	double *mem_before, *mem_after;
	int evaluations;          /* objective evaluations, all fits */
};

/* The group of a workload: "moe" with experts, else dense by precision. */
const char *calibrate_group(const struct workload *w);

/* Predicted step time (and peak memory in GiB into *mem_gib when not
 * NULL) of row r with constants cal. */
double calibrate_predict(const struct calib_row *r,
                         const struct calibration *cal, double *mem_gib);

/* The memory verdict of row r with constants cal (a run that ran should
 * not be predicted oom-risk). */
enum memory_status calibrate_memory_status(const struct calib_row *r,
                                           const struct calibration *cal);

/*
 * Fit the constants to n rows starting from start (bounded to
 * calibration.c's bounds; constants no row depends on keep start's
 * value), and cross-validate with folds folds (row i in fold i % folds;
 * at most n folds, none below 2 rows).  Deterministic.  out is released
 * with calibrate_fit_release.  Returns 0, or -1 when n < 1.
 */
int calibrate_fit(const struct calib_row *rows, int n,
                  const struct calibration *start, int folds,
                  struct calib_fit *out);
void calibrate_fit_release(struct calib_fit *f);

/* Mean |pred / measured - 1| over the rows of group (NULL: all) with a
 * prediction in pred; *count gets how many (NAN when none). */
double calibrate_mape(const struct calib_row *rows, const double *pred,
                      int n, const char *group, int *count);

/* The q-quantile (0..1) of n values, linearly interpolated; v is
 * sorted in place. */
double calibrate_quantile(double *v, int n, double q);

/* Append "  GPU = { name = ...; constants; residuals; rows; };" lines:
 * a member of the calibration group a site file includes. */
void calibrate_write_entry(struct strbuf *out, const char *gpu,
                           const struct calibration *cal);

#endif
