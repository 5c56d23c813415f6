/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-int.h - the objective and fitting steps calibrate.c shares
 * with calibrate-share.c (the MoE-only constants fitted once over
 * several GPUs); not part of calibrate.h's interface.
 */
#ifndef PARATUNE_CALIBRATE_INT_H
#define PARATUNE_CALIBRATE_INT_H

#include "calibrate.h"

/* Seconds per sample of a step of s seconds of row r: configurations
 * of other global batch sizes compare by it (calibrate-rank.c). */
double calibrate_per_sample(const struct calib_row *r, double s);

/* A value and the place in an array it belongs to, sorted by value then
 * place (calibrate_by_value_cmp, a qsort comparator): the ranking and
 * the ordering term sort configurations' times so. */
struct calib_by_value {
	double v;
	int j;
};
int calibrate_by_value_cmp(const void *a, const void *b);

/* A place of the ordering term's Fenwick tree (calibrate-order.c). */
struct order_sums {
	double count, sum, squares;
};
/* The ordering term's campaigns (calibrate-order.c), with scratch
 * space for an evaluation. */
struct calib_order {
	struct order_pair *pairs; /* of the small campaigns */
	int npairs;
	struct order_campaign *c; /* the large ones */
	int nc, max_m;            /* campaigns; the most configurations */
	struct calib_by_value *by_x; /* max_m each: */
	double *x;
	struct order_sums *fen;   /* (max_m + 1) */
	int *rank;
};
/* The campaigns with two or more configurations of rows[0..n). */
void calibrate_order_init(struct calib_order *ord,
                          const struct calib_row *rows, int n);
void calibrate_order_release(struct calib_order *ord);
/* The sum over the pairs of rows in (flags) of the term, with the
 * predictions pred (per row); *pairs gets how many pairs. */
double calibrate_order_loss(struct calib_order *ord,
                            const struct calib_row *rows,
                            const double *pred, const bool *in, int *pairs);

/* What the objective needs: the rows it sums over and the mapping. */
struct objective {
	const struct calib_row *rows;
	const int *idx;          /* the rows of this fit */
	int n;
	struct calibration base; /* start: inactive constants, prior */
	int dims[CAL_NPARAMS];   /* the active constants */
	int ndims;
	int evaluations;
	double rank_weight;
	struct calib_order *order; /* with rank_weight > 0 */
	const bool *in;          /* per row: in this fit */
	double *pred;            /* per row: scratch */
	/* Per row, the calibration its other constants come from (the
	 * row's GPU's, calibrate_share); NULL: base for every row. */
	const struct calibration *const *row_base;
	int nrows;               /* rows, all of them */
	bool dense_moves[CAL_NPARAMS]; /* some dense row moves with it */
};
/* Row r's calibration at cal: cal itself, or with row bases
 * (calibrate_share) the row's own GPU's with o's constants at cal's,
 * written into own. */
const struct calibration *calibrate_row_calibration(
	const struct objective *o, int r, const struct calibration *cal,
	struct calibration *own);
/* Whether some row's step time or measured memory moves with p. */
bool calibrate_param_active(const struct calib_row *rows, int n,
                            const struct calibration *start, int p);
/* Fit the rows idx[0..n) (in: the same as flags) from o->base over the
 * constants o->dims; cal gets the result. */
void calibrate_fit_rows(struct objective *o, const int *idx, const bool *in,
                        int n, struct calibration *cal);
/* Each row's unit of cross-validation into unit[i] (its campaign's
 * index, calibrate.c); returns how many units. */
int calibrate_fold_units(const struct calib_row *rows, int n, int *unit);

#endif
