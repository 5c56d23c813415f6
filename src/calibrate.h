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
	/* The rows whose configurations compete: the same campaign file
	 * named by the same input (one source's runs of one workload);
	 * NULL: a row alone. */
	const char *campaign;
};

/* The fit of one set of rows. */
struct calib_fit {
	/* Fitted constants; residual band from the cross-validated
	 * residuals, rows the number of rows. */
	struct calibration cal;
	bool active[CAL_NPARAMS]; /* some row's prediction depends on it */
	bool fixed[CAL_NPARAMS];  /* the options kept it at its start */
	/* Kept at its start: a constant dense layers share that only MoE
	 * rows move (calibrate.c, calibrate_fit_opts). */
	bool moe_kept[CAL_NPARAMS];
	/* Fitted once to the MoE runs of every GPU (calibrate_share). */
	bool shared[CAL_NPARAMS];
	int n, folds;             /* rows; folds of the cross-validation */
	/* Per row (n each, owned): step time predicted with the start
	 * constants, with the fit on all rows, and with the fit that held
	 * the row out (its fold's); memory likewise, 0 where unmeasured. */
	double *pred_before, *pred_in, *pred_cv;
	double *mem_before, *mem_after;
	int evaluations;          /* objective evaluations, all fits */
};

/*
 * Where a fitted constant ended: at its low or high bound, or inside.
 * One at a bound is where the runs asked for more than is physical: the
 * estimate misses something they measure, or the bound is wrong, and a
 * site should know before it includes the fit.  The minimiser folds
 * each constant back into its bounds (calibrate.c), so one the runs
 * push past a bound converges onto it (layer_overhead_s 4e-15 of 0 to
 * 2 ms on the published runs), while one the pull toward the start
 * holds short of it stays clear (0.997 of 0.3 to 1: 0.4 % of the
 * width): CALIB_BOUND_TOL of the bounds' width lies between.
 */
enum calib_bound { CALIB_INSIDE, CALIB_AT_LOW, CALIB_AT_HIGH };
#define CALIB_BOUND_TOL 1e-3

/* Where constant p of fit f ended; CALIB_INSIDE for a constant the fit
 * kept at its start (inactive, fixed, MoE runs only), wherever that
 * lies: no run asked for it. */
enum calib_bound calibrate_at_bound(const struct calib_fit *f, int p);
/* "low", "high", or NULL inside. */
const char *calibrate_bound_name(enum calib_bound b);
/* How many of f's constants are at a bound. */
int calibrate_bounds_hit(const struct calib_fit *f);

/* Whether row r is of an MoE model (its model has experts, whatever
 * its group). */
bool calibrate_row_moe(const struct calib_row *r);

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

/* How to fit. */
struct calib_opts {
	int folds;               /* cross-validation folds */
	/* Weight of the ordering term (calibrate.c) against the rows'
	 * error; 0: the rows' error alone. */
	double rank_weight;
	bool fixed[CAL_NPARAMS]; /* kept at start's value, not fitted */
};
/* Ordering term weight when none is named (calibrate.c says why). */
#define CALIB_RANK_WEIGHT_DEFAULT 0.0
#define CALIB_OPTS_INIT { 5, CALIB_RANK_WEIGHT_DEFAULT, { false } }

/*
 * Fit the constants to n rows starting from start (bounded to
 * calibration.c's bounds; constants no row depends on, or that o fixes,
 * keep start's value), and cross-validate with o->folds folds.  The
 * folds hold out whole campaigns (the k-th distinct campaign, in order
 * of appearance, in fold k % folds; rows without one count as
 * campaigns of their own), so that a campaign's rows, and the ranking
 * of its configurations, are judged by a fit that saw none of them;
 * with fewer than two campaigns, the k-th distinct configuration is in
 * fold k % folds.  At most as many folds as campaigns (configurations);
 * below 2, none (out->folds 0, pred_cv the in-sample predictions).
 * Deterministic.  out
 * is released with calibrate_fit_release.  Returns 0, or -1 when n < 1.
 */
int calibrate_fit_opts(const struct calib_row *rows, int n,
                       const struct calibration *start,
                       const struct calib_opts *o, struct calib_fit *out);
/* calibrate_fit_opts with CALIB_OPTS_INIT but folds. */
int calibrate_fit(const struct calib_row *rows, int n,
                  const struct calibration *start, int folds,
                  struct calib_fit *out);

/* ---- ranking ---------------------------------------------------------------
 *
 * What a planner must get right is the order of the configurations it
 * may run.  Rows of one campaign that share a layout (every layout and
 * switch column equal) are one configuration measured several times,
 * e.g. in several software releases: the estimator predicts them alike,
 * so which of them is "fastest" is no judgment of it.  Each
 * configuration stands for its fastest measured run; configurations are
 * compared by step time per sample (step_s / gbs: one campaign has one
 * sequence length and GPU count, so this is time per token).
 */

/* Measured per-sample times within this share of each other are a tie
 * (published throughputs are rounded and repeat runs vary by 1-3 %):
 * such a pair's order is not judged. */
#define CALIB_RANK_TIE 0.03

/* One campaign with two or more distinct configurations. */
struct calib_campaign_rank {
	const char *campaign, *group;  /* its first row's */
	int rows, configs;
	int best;         /* the row of the fastest measured configuration */
	int predicted;    /* the row predicted fastest; -1: two or more tie */
	bool near;        /* predicted's measured per-sample time within
	                   * CALIB_RANK_TIE of best's */
	int best_place;   /* best's place in the predicted order: 1 + the
	                   * configurations predicted faster */
	double best_behind; /* best's prediction over the fastest
	                     * prediction, less 1 (0 when placed first) */
	int pairs;        /* configurations' pairs not tied as measured */
	double concordant; /* of them, predicted in the measured order (a
	                    * predicted tie counts half) */
};

/* The sum over campaigns. */
struct calib_rank {
	int campaigns, rows, configs;
	int best;         /* campaigns whose best is predicted best */
	int near;         /* ... whose predicted best is within the tie */
	int pairs;
	double concordant;
};

/* For each row, the row that stands for its configuration (the fastest
 * measured per sample of the rows with its campaign and layout) into
 * rep[i]; returns how many distinct configurations. */
int calibrate_configs(const struct calib_row *rows, int n, int *rep);

/* The campaigns of the rows of group (NULL: all) that have two or more
 * configurations, ranked by pred (per row), into *out (owned, NULL when
 * none); returns how many. */
int calibrate_rank_campaigns(const struct calib_row *rows,
                             const double *pred, int n, const char *group,
                             struct calib_campaign_rank **out);
/* Their sum into *out. */
void calibrate_rank(const struct calib_row *rows, const double *pred,
                    int n, const char *group, struct calib_rank *out);
void calibrate_fit_release(struct calib_fit *f);

/*
 * cal's residual band from the n rows' cross-validated predictions pred,
 * widened to hold 0.  Of n residuals log(measured / predicted) that are
 * alike, a new run's falls between the j-th smallest and the j-th
 * largest with probability (n + 1 - 2j) / (n + 1): with j = (n + 1) / 10
 * those two hold 80 % of new runs, and the band is theirs (true).  Under
 * CAL_BAND_MIN_ROWS rows no two do: the band is the built-in one,
 * widened to hold every residual (false; rows = 0).  The 10th and 90th
 * percentiles, interpolated, held neither of two runs' residuals.
 */
#define CAL_BAND_MIN_ROWS 9
bool calibrate_residual_band(const struct calib_row *rows,
                             const double *pred, int n,
                             struct calibration *cal);

/* Constants fitted once over several GPUs' MoE rows (calibrate_share). */
struct calib_shared {
	bool shared[CAL_NPARAMS]; /* the constants fitted jointly */
	struct calibration cal;   /* their values (the others: start's) */
	double *pred_in, *pred_cv; /* per row (owned); MoE rows only */
	int evaluations;
};

/*
 * Fit the constants only MoE layers depend on (cal_param_info.moe_only:
 * the MoE layer's host time, the experts' GEMM efficiency, the dispatch
 * efficiency) that the MoE rows move and opts does not fix, jointly to
 * the MoE rows of rows[0..n), each row predicted with base[i] for every
 * other constant: its GPU's own fit.  Cross-validated over the MoE
 * rows' campaigns, all GPUs together, with opts->folds folds.  Returns
 * how many constants it fitted (0: none, and out's predictions stay 0,
 * as they do for dense rows).  The caller frees out's arrays.
 */
int calibrate_share(const struct calib_row *rows, int n,
                    const struct calibration *const *base,
                    const struct calibration *start,
                    const struct calib_opts *opts, struct calib_shared *out);

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
