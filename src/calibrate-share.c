/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-share.c - the constants only MoE layers depend on, fitted
 * once to the MoE rows of several GPUs, each row predicted with its own
 * GPU's fit for every other constant (calibrate_share, calibrate.h), and
 * cross-validated over those rows' campaigns.  The objective and the
 * minimiser are calibrate.c's (calibrate-int.h).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "calibrate-int.h"
#include "xalloc.h"

/* Fit o's constants to the rows idx[0..n) (in: the same as flags) into
 * cal, and predict the rows test[0..ntest) with it into pred. */
static void
share_fold(struct objective *o, const int *idx, const bool *in, int n,
           const int *test, int ntest, double *pred, struct calibration *cal)
{
	calibrate_fit_rows(o, idx, in, n, cal);
	for (int i = 0; i < ntest; i++) {
		struct calibration own;
		double mem;

		pred[test[i]] = calibrate_predict(&o->rows[test[i]],
		                    calibrate_row_calibration(o, test[i], cal,
		                                              &own), &mem);
	}
}

/* The constants only MoE layers depend on (calibration.c) that the n
 * MoE rows moe_rows move and opts does not fix, into o->dims and
 * shared. */
static void
share_dims(struct objective *o, const struct calib_row *moe_rows, int n,
           const struct calib_opts *opts, bool *shared)
{
	for (int p = 0; p < CAL_NPARAMS; p++)
		if (calibration_param(p)->moe_only && !opts->fixed[p] &&
		    calibrate_param_active(moe_rows, n, &o->base, p)) {
			o->dims[o->ndims++] = p;
			shared[p] = true;
		}
}

/* Cross-validate the shared fit over the campaigns of the n MoE rows
 * moe[] (moe_rows: copies of them); returns how many folds (0: one
 * configuration, nothing held out). */
static int
share_cross_validate(struct objective *o, const int *moe,
                     const struct calib_row *moe_rows, int n,
                     const struct calib_opts *opts, double *pred_cv)
{
	int *unit = xcalloc((size_t)n, sizeof(*unit));
	int *train = xcalloc((size_t)n, sizeof(*train));
	int *test = xcalloc((size_t)n, sizeof(*test));
	bool *in = xcalloc((size_t)o->nrows, sizeof(*in));
	int units = calibrate_fold_units(moe_rows, n, unit);
	/* One configuration (units 1): no fold, nothing to hold out. */
	int folds = units < 2 ? 0 : opts->folds < units ? opts->folds : units;

	for (int k = 0; k < folds; k++) {
		int ntrain = 0, ntest = 0;
		struct calibration cal;

		memset(in, 0, (size_t)o->nrows * sizeof(*in));
		for (int i = 0; i < n; i++) {
			if (unit[i] % folds == k) {
				test[ntest++] = moe[i];
				continue;
			}
			in[moe[i]] = true;
			train[ntrain++] = moe[i];
		}
		share_fold(o, train, in, ntrain, test, ntest, pred_cv, &cal);
	}
	free(unit);
	free(train);
	free(test);
	free(in);
	return folds;
}

int
calibrate_share(const struct calib_row *rows, int n,
                const struct calibration *const *base,
                const struct calibration *start,
                const struct calib_opts *opts, struct calib_shared *out)
{
	struct objective o;
	int *moe = xcalloc((size_t)n + 1, sizeof(*moe)), nmoe = 0;
	bool *in = xcalloc((size_t)n + 1, sizeof(*in));
	struct calib_row *moe_rows = xcalloc((size_t)n + 1, sizeof(*moe_rows));

	memset(out, 0, sizeof(*out));
	memset(&o, 0, sizeof o);
	o.rows = rows;
	o.base = *start;
	o.nrows = n;
	o.row_base = base;
	o.pred = xcalloc((size_t)n + 1, sizeof(*o.pred));
	calibration_clamp(&o.base);
	out->cal = o.base;
	out->pred_in = xcalloc((size_t)n + 1, sizeof(double));
	out->pred_cv = xcalloc((size_t)n + 1, sizeof(double));
	for (int i = 0; i < n; i++)
		if (calibrate_row_moe(&rows[i])) {
			in[i] = true;
			moe_rows[nmoe] = rows[i];
			moe[nmoe++] = i;
		}
	share_dims(&o, moe_rows, nmoe, opts, out->shared);
	if (o.ndims > 0) {
		share_fold(&o, moe, in, nmoe, moe, nmoe, out->pred_in,
		           &out->cal);
		if (nmoe < 2 || share_cross_validate(&o, moe, moe_rows, nmoe,
		                                     opts, out->pred_cv) < 2)
			for (int i = 0; i < nmoe; i++)
				out->pred_cv[moe[i]] = out->pred_in[moe[i]];
	}
	out->evaluations = o.evaluations;
	free(moe);
	free(in);
	free(moe_rows);
	free(o.pred);
	return o.ndims;
}
