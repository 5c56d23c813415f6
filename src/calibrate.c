/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate.c - fit the estimator's constants to measured runs.
 *
 * The objective is the sum over rows of log(predicted / measured)^2 for
 * the step time, plus the same for peak memory where it was measured:
 * relative error, so that a 100 s step counts no more than a 1 s one.
 * A small pull toward the starting constants (CAL_PRIOR) keeps
 * constants that the rows barely tell apart where they were.  Dense and
 * MoE rows together are fitted in two stages (fit_subset); over several
 * GPUs' fits, the second stage may be one fit to all their MoE rows,
 * each row with its own GPU's other constants (calibrate-share.c).
 *
 * The rows' error weighs a campaign's configurations by how far each
 * is off, not by their order, and order is what a planner needs.  So
 * an ordering term may be added: for each pair of distinct
 * configurations of one campaign (calibrate.h) whose measured times per
 * sample differ by CALIB_RANK_TIE or more (faster a, slower b, measured
 * log ratio d = log(a / b) < 0), the square of how far the predicted
 * log ratio falls short of d / 2, max(0, log(pred a / pred b) - d / 2)^2:
 * nothing when the prediction orders them with at least half the
 * measured gap, growing as it reverses them.  It is scaled by
 * rows / pairs so that rank_weight compares a row's error with a
 * pair's; rows the estimator made itself order every pair right, so it
 * moves no fit to them.
 *
 * Its default weight is 0, from measurement: on the published runs of
 * tests/data/measured (bench/calibration, 2026-11-26, folds by
 * campaign) the error alone already kept the order of the built-in
 * constants (the fastest predicted fastest in 11 of 19 campaigns and
 * 22 of 31 pairs in order, before, fitted and cross-validated), and
 * weights 0.1 to 100 gained at most one pair cross-validated (weight
 * 10 put two more campaigns' fastest first in-sample, none held out)
 * while the dense FP8 error rose from 14.5 % to 15.3-32 %.  A site
 * whose campaigns it does reorder can ask for it (--rank-weight;
 * tests/unit/test-calibrate.c has such rows).
 *
 * The minimiser is Nelder-Mead (Nelder and Mead 1965; the standard
 * coefficients 1, 2, 1/2, 1/2 of Lagarias et al. 1998, SIAM J. Optim.
 * 9(1)) over each constant mapped to [0, 1] of its bounds and folded
 * back into them (a triangle wave), so that every point it tries is a
 * physical machine and no penalty is needed.  A handful of constants
 * and a few hundred rows need nothing more; it adds no dependency and is
 * deterministic.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "calibrate-int.h"
#include "xalloc.h"

/*
 * Weight of the pull toward the start, per constant, in the squared
 * distance over its bounds' width: a constant pulled across its whole
 * bounds costs what ten rows 3 % off do (10 x 0.03^2 of log error
 * squared), 3 % being about the noise of a published throughput (repeat
 * runs and releases differ by 1-3 %).  The start is a fit to every
 * published run (bench/fit-defaults); a GPU's few rows should not drag
 * a constant across its range on less evidence than that.  Measured on
 * the published runs (bench/calibration, 2026-11-27, folds by
 * campaign, fitted per GPU), from 1e-6, which only broke ties: dense
 * FP8 5.7 -> 4.3 % (B200's two campaigns 14.8 -> 1.0 %: fitted to one,
 * the other had been off by 27-30 %), NVFP4 6.7 -> 5.8 %, MoE 18.5 ->
 * 19.2 %, the fastest predicted fastest 21 -> 22 of 26 and pairs in
 * order 48 -> 49 of 52; at 1e-3, MoE 20.1 %, the rest alike.  A
 * weakly determined constant comes back short of its truth: the ten
 * generated rows of tests/data/calibrate give attn_eff_flash 0.430 for
 * 0.40 (the default 0.45), at 0.05 % error.
 */
#define CAL_PRIOR 1e-2
/* Nelder-Mead: evaluations per constant and restarts from the best. */
#define NM_EVALS_PER_DIM 300
#define NM_RESTARTS 3
#define NM_STEP 0.1
#define NM_TOL 1e-14

const char *
calibrate_group(const struct workload *w)
{
	if (w->model->num_experts > 0)
		return "moe";
	return w->precision == PREC_FP8 ? "dense-fp8" : "dense-bf16";
}

double
calibrate_predict(const struct calib_row *r, const struct calibration *cal,
                  double *mem_gib)
{
	struct workload w = r->w;
	struct estimate e;

	w.cal = cal;
	estimate_layout(&w, &r->l, &e);
	if (mem_gib)
		*mem_gib = e.mem.total / GIB;
	return e.step_s;
}

enum memory_status
calibrate_memory_status(const struct calib_row *r,
                        const struct calibration *cal)
{
	struct workload w = r->w;
	struct estimate e;

	w.cal = cal;
	estimate_layout(&w, &r->l, &e);
	return e.memory_status;
}

/* ---- the objective ------------------------------------------------------- */

/* u folded into [0, 1]: a triangle wave of period 2. */
static double
fold01(double u)
{
	double t = fmod(fabs(u), 2.0);

	return t > 1 ? 2 - t : t;
}

/* The constant's position in [0, 1] of its bounds. */
static double
to_unit(int p, double v)
{
	const struct cal_param_info *pi = calibration_param(p);

	return (v - pi->lo) / (pi->hi - pi->lo);
}

/* The calibration at point u of the search space. */
static void
point_calibration(const struct objective *o, const double *u,
                  struct calibration *cal)
{
	*cal = o->base;
	for (int i = 0; i < o->ndims; i++) {
		const struct cal_param_info *pi = calibration_param(o->dims[i]);

		cal->v[o->dims[i]] = pi->lo + (pi->hi - pi->lo) * fold01(u[i]);
	}
}

/* Squared log error of one row under cal; its prediction into *pred. */
static double
row_loss(const struct calib_row *r, const struct calibration *cal,
         double *pred_out)
{
	double mem, pred = calibrate_predict(r, cal, &mem), d, loss;

	*pred_out = pred;
	if (!(pred > 0) || !isfinite(pred))
		return 1e6;
	d = log(pred / r->step_s);
	loss = d * d;
	if (r->peak_gib > 0 && mem > 0) {
		d = log(mem / r->peak_gib);
		loss += d * d;
	}
	return loss;
}

/* The ordering term (above) over the pairs of this fit's rows, with the
 * predictions row_loss left in o->pred (calibrate-order.c). */
static double
rank_loss(const struct objective *o)
{
	double sum;
	int k;

	if (!(o->rank_weight > 0) || o->order == NULL)
		return 0;
	sum = calibrate_order_loss(o->order, o->rows, o->pred, o->in, &k);
	return k ? o->rank_weight * sum * o->n / k : 0;
}

/* Row r's calibration at cal: cal itself, or with row bases
 * (calibrate_share) the row's own GPU's with o's constants at cal's,
 * written into own. */
const struct calibration *
calibrate_row_calibration(const struct objective *o, int r,
                          const struct calibration *cal,
                          struct calibration *own)
{
	if (!o->row_base)
		return cal;
	*own = *o->row_base[r];
	for (int d = 0; d < o->ndims; d++)
		own->v[o->dims[d]] = cal->v[o->dims[d]];
	return own;
}

static double
objective_eval(struct objective *o, const double *u)
{
	struct calibration cal;
	double sum = 0;

	o->evaluations++;
	point_calibration(o, u, &cal);
	for (int i = 0; i < o->n; i++) {
		int r = o->idx[i];
		struct calibration own;

		sum += row_loss(&o->rows[r],
		                calibrate_row_calibration(o, r, &cal, &own),
		                &o->pred[r]);
	}
	sum += rank_loss(o);
	for (int i = 0; i < o->ndims; i++) {
		int p = o->dims[i];
		double d = to_unit(p, cal.v[p]) - to_unit(p, o->base.v[p]);

		sum += CAL_PRIOR * d * d;
	}
	return sum;
}

/* ---- Nelder-Mead --------------------------------------------------------- */

/* Vertex i of a simplex s of vertices m wide. */
static double *
vtx(double *s, int i, int m)
{
	return s + (size_t)i * (size_t)m;
}

/* x = a + t (b - a), m wide. */
static void
nm_line(double *x, const double *a, const double *b, double t, int m)
{
	for (int j = 0; j < m; j++)
		x[j] = a[j] + t * (b[j] - a[j]);
}

/* Sort the m+1 vertices (rows of s, width m) by f, best first. */
static void
nm_sort(double *s, double *f, int m)
{
	double *tmp = xcalloc((size_t)m, sizeof(*tmp));

	for (int i = 1; i <= m; i++)
		for (int k = i; k > 0 && f[k] < f[k - 1]; k--) {
			double t = f[k];

			f[k] = f[k - 1];
			f[k - 1] = t;
			memcpy(tmp, vtx(s, k, m), (size_t)m * sizeof(*tmp));
			memcpy(vtx(s, k, m), vtx(s, k - 1, m),
			       (size_t)m * sizeof(*tmp));
			memcpy(vtx(s, k - 1, m), tmp, (size_t)m * sizeof(*tmp));
		}
	free(tmp);
}

/* Shrink every vertex toward the best and re-evaluate. */
static void
nm_shrink(struct objective *o, double *s, double *f, int m)
{
	for (int i = 1; i <= m; i++) {
		nm_line(vtx(s, i, m), s, vtx(s, i, m), 0.5, m);
		f[i] = objective_eval(o, vtx(s, i, m));
	}
}

/* The first simplex s and its values f: x, and x one step NM_STEP
 * along each of its m axes. */
static void
nm_start(struct objective *o, double *s, double *f, const double *x, int m)
{
	for (int i = 0; i <= m; i++) {
		memcpy(vtx(s, i, m), x, (size_t)m * sizeof(*x));
		if (i > 0) /* step inward from the bounds' upper half */
			vtx(s, i, m)[i - 1] += fold01(x[i - 1]) > 0.5 ? -NM_STEP
			                                           : NM_STEP;
		f[i] = objective_eval(o, vtx(s, i, m));
	}
}

/* c = the centroid of the m best vertices of s (all but the worst). */
static void
nm_centroid(double *c, double *s, int m)
{
	memset(c, 0, (size_t)m * sizeof(*c));
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			c[j] += vtx(s, i, m)[j] / m;
}

/*
 * One Nelder-Mead run from x (m wide; the best point on return) with
 * initial steps NM_STEP; returns the objective there.
 */
static double
nm_run(struct objective *o, double *x, int m)
{
	double *s = xcalloc((size_t)(m + 1) * (size_t)m, sizeof(*s));
	double *f = xcalloc((size_t)m + 1, sizeof(*f));
	double *c = xcalloc((size_t)m, sizeof(*c));
	double *r = xcalloc((size_t)m, sizeof(*r));
	double *e = xcalloc((size_t)m, sizeof(*e));
	double fr, fe, best;
	int budget = NM_EVALS_PER_DIM * m;

	nm_start(o, s, f, x, m);
	for (int it = 0; it < budget; it++) {
		nm_sort(s, f, m);
		if (f[m] - f[0] <= NM_TOL * (1 + fabs(f[0])))
			break;
		nm_centroid(c, s, m);
		nm_line(r, c, vtx(s, m, m), -1.0, m);   /* reflect */
		fr = objective_eval(o, r);
		if (fr < f[0]) {
			nm_line(e, c, vtx(s, m, m), -2.0, m);  /* expand */
			fe = objective_eval(o, e);
			memcpy(vtx(s, m, m), fe < fr ? e : r,
			       (size_t)m * sizeof(*e));
			f[m] = fmin(fe, fr);
		} else if (fr < f[m - 1]) {
			memcpy(vtx(s, m, m), r, (size_t)m * sizeof(*r));
			f[m] = fr;
		} else {
			/* contract outside or inside */
			bool out = fr < f[m];

			nm_line(e, c, out ? r : vtx(s, m, m), 0.5, m);
			fe = objective_eval(o, e);
			if (fe < (out ? fr : f[m])) {
				memcpy(vtx(s, m, m), e, (size_t)m * sizeof(*e));
				f[m] = fe;
			} else {
				nm_shrink(o, s, f, m);
			}
		}
	}
	nm_sort(s, f, m);
	memcpy(x, s, (size_t)m * sizeof(*x));
	best = f[0];
	free(s);
	free(f);
	free(c);
	free(r);
	free(e);
	return best;
}

/* ---- fitting ------------------------------------------------------------- */

/* Whether some row's step time or measured memory moves with p. */
bool
calibrate_param_active(const struct calib_row *rows, int n,
                       const struct calibration *start, int p)
{
	const struct cal_param_info *pi = calibration_param(p);
	struct calibration lo = *start, hi = *start;

	lo.v[p] = pi->lo;
	hi.v[p] = pi->hi;
	for (int i = 0; i < n; i++) {
		double ml, mh, tl = calibrate_predict(&rows[i], &lo, &ml);
		double th = calibrate_predict(&rows[i], &hi, &mh);

		if (fabs(tl - th) > 1e-9 * fabs(tl) ||
		    (rows[i].peak_gib > 0 && fabs(ml - mh) > 1e-9 * fabs(ml)))
			return true;
	}
	return false;
}

bool
calibrate_row_moe(const struct calib_row *r)
{
	return r->w.model->num_experts > 0;
}

/* Fit the rows idx[0..n) (in: the same as flags) from o->base over the
 * constants o->dims; cal gets the result. */
void
calibrate_fit_rows(struct objective *o, const int *idx, const bool *in,
                   int n, struct calibration *cal)
{
	double x[CAL_NPARAMS], prev = HUGE_VAL, f;

	o->idx = idx;
	o->in = in;
	o->n = n;
	for (int i = 0; i < o->ndims; i++)
		x[i] = to_unit(o->dims[i], o->base.v[o->dims[i]]);
	for (int k = 0; k < NM_RESTARTS && o->ndims > 0; k++) {
		f = nm_run(o, x, o->ndims);
		if (!(f < prev - NM_TOL * (1 + fabs(f))))
			break;
		prev = f;
	}
	point_calibration(o, x, cal);
	calibration_clamp(cal);
}

/*
 * Fit the rows idx[0..n) (in: the same as flags) from o->base; cal gets
 * the result.  With dense and MoE rows together, in two stages, as
 * bench/fit-defaults fits the built-in constants: the constants some
 * dense row moves with are fitted to the dense rows, then those only
 * MoE rows move with (the MoE layer's host wait, the experts' GEMM
 * efficiency, the dispatch efficiency) to the MoE rows, the others
 * kept (those no dense row moves were left out of o->dims by
 * calibrate_fit_opts).  A joint fit lets what the estimate misses on
 * MoE layers (bench/README.md) pull the GEMM efficiencies the dense
 * rows measure: per GPU on the published runs (bench/calibration,
 * 2026-11-26, before moe_gemm_eff), cross-validated, dense FP8 16.0 %
 * jointly and 6.3 % in stages, NVFP4 14.2 % and 9.9 %; MoE 25.5 % and
 * 30.5 %, the price of not bending the dense constants to it.
 */
static void
fit_subset(struct objective *o, const int *idx, const bool *in, int n,
           struct calibration *cal)
{
	int *part = xcalloc((size_t)n, sizeof(*part));
	bool *sub = xcalloc((size_t)o->nrows, sizeof(*sub));
	int dims[CAL_NPARAMS], ndims = o->ndims, k = 0, moe = 0;
	struct calibration base = o->base;

	memcpy(dims, o->dims, sizeof dims);
	for (int i = 0; i < n; i++)
		moe += calibrate_row_moe(&o->rows[idx[i]]);
	if (moe == 0) {
		calibrate_fit_rows(o, idx, in, n, cal);
		goto out;
	}
	/* MoE rows alone (a fold without the dense ones): the second
	 * stage only */
	for (int stage = moe == n; stage < 2; stage++) {
		bool want_moe = stage == 1;

		o->ndims = 0;
		for (int d = 0; d < ndims; d++)
			if (o->dense_moves[dims[d]] != want_moe)
				o->dims[o->ndims++] = dims[d];
		k = 0;
		memset(sub, 0, (size_t)o->nrows * sizeof(*sub));
		for (int i = 0; i < n; i++)
			if (calibrate_row_moe(&o->rows[idx[i]]) == want_moe) {
				part[k++] = idx[i];
				sub[idx[i]] = in[idx[i]];
			}
		calibrate_fit_rows(o, part, sub, k, cal);
		o->base = *cal;   /* the second stage starts from the first */
	}
	o->ndims = ndims;
	memcpy(o->dims, dims, sizeof dims);
out:
	o->base = base;
	free(part);
	free(sub);
}

/* Predictions of the rows idx[0..n) with cal into pred (and mem). */
static void
predict_rows(const struct calib_row *rows, const int *idx, int n,
             const struct calibration *cal, double *pred, double *mem)
{
	for (int i = 0; i < n; i++) {
		double m;

		pred[idx[i]] = calibrate_predict(&rows[idx[i]], cal, &m);
		if (mem)
			mem[idx[i]] = rows[idx[i]].peak_gib > 0 ? m : 0;
	}
}

/*
 * With fewer than two campaigns, each row's unit is its configuration,
 * by first appearance: with a row's own index, the runs of one
 * configuration (repeats, other releases) fell in different folds, and
 * each was predicted by a fit to the others, its own layout measured:
 * one configuration measured four times gave "4-fold cross-validated,
 * 0.7 %".  One configuration is one unit: nothing to validate on.
 */
static int
config_units(const struct calib_row *rows, int n, int *unit)
{
	int *rep = xcalloc((size_t)n + 1, sizeof(*rep));
	int *id = xcalloc((size_t)n + 1, sizeof(*id)), units = 0;

	calibrate_configs(rows, n, rep);
	for (int i = 0; i < n; i++)
		id[i] = -1;
	for (int i = 0; i < n; i++) {
		if (id[rep[i]] < 0)
			id[rep[i]] = units++;
		unit[i] = id[rep[i]];
	}
	free(rep);
	free(id);
	return units;
}

/* Each row's unit of cross-validation into unit[i]: the index of its
 * campaign in order of appearance (a row without one is its own); with
 * fewer than two campaigns, of its configuration (config_units).
 * Returns how many units. */
int
calibrate_fold_units(const struct calib_row *rows, int n, int *unit)
{
	int units = 0;

	for (int i = 0; i < n; i++) {
		unit[i] = -1;
		for (int k = 0; k < i && rows[i].campaign; k++)
			if (rows[k].campaign &&
			    !strcmp(rows[k].campaign, rows[i].campaign)) {
				unit[i] = unit[k];
				break;
			}
		if (unit[i] < 0)
			unit[i] = units++;
	}
	if (units < 2)
		units = config_units(rows, n, unit);
	return units;
}

/* Cross-validate: each fold's rows predicted by a fit to the others. */
static void
cross_validate(struct objective *o, const struct calib_row *rows, int n,
               const int *unit, int folds, double *pred_cv)
{
	int *train = xcalloc((size_t)n, sizeof(*train));
	int *test = xcalloc((size_t)n, sizeof(*test));
	bool *in = xcalloc((size_t)n, sizeof(*in));

	for (int k = 0; k < folds; k++) {
		int ntrain = 0, ntest = 0;
		struct calibration cal;

		for (int i = 0; i < n; i++) {
			in[i] = unit[i] % folds != k;
			if (in[i])
				train[ntrain++] = i;
			else
				test[ntest++] = i;
		}
		fit_subset(o, train, in, ntrain, &cal);
		predict_rows(rows, test, ntest, &cal, pred_cv, NULL);
	}
	free(train);
	free(test);
	free(in);
}

static int
compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

bool
calibrate_residual_band(const struct calib_row *rows, const double *pred,
                        int n, struct calibration *cal)
{
	double *res = xcalloc((size_t)n, sizeof(*res));
	int j = (n + 1) / 10;
	bool measured = j >= 1;

	for (int i = 0; i < n; i++)
		res[i] = log(rows[i].step_s / pred[i]);
	qsort(res, (size_t)n, sizeof(*res), compare_double);
	if (measured) {
		cal->residual_low = res[j - 1];
		cal->residual_high = res[n - j];
	} else {
		cal->residual_low = fmin(CAL_DEFAULT_RESIDUAL_LOW, res[0]);
		cal->residual_high = fmax(CAL_DEFAULT_RESIDUAL_HIGH,
		                          res[n - 1]);
	}
	cal->residual_low = fmin(0, fmax(-5, cal->residual_low));
	cal->residual_high = fmax(0, fmin(5, cal->residual_high));
	free(res);
	return measured;
}

/* Which constants some dense row's prediction moves with. */
static void
dense_params(struct objective *o, const struct calib_row *rows, int n)
{
	int *dense = xcalloc((size_t)n, sizeof(*dense)), k = 0;
	struct calib_row *copy;

	for (int i = 0; i < n; i++)
		if (!calibrate_row_moe(&rows[i]))
			dense[k++] = i;
	copy = xcalloc((size_t)(k ? k : 1), sizeof(*copy));
	for (int i = 0; i < k; i++)
		copy[i] = rows[dense[i]];
	for (int p = 0; p < CAL_NPARAMS; p++)
		o->dense_moves[p] =
			k > 0 && calibrate_param_active(copy, k, &o->base, p);
	free(copy);
	free(dense);
}

int
calibrate_fit(const struct calib_row *rows, int n,
              const struct calibration *start, int folds,
              struct calib_fit *out)
{
	struct calib_opts o = CALIB_OPTS_INIT;

	o.folds = folds;
	return calibrate_fit_opts(rows, n, start, &o, out);
}

/*
 * The objective of a fit of rows[0..n) from start: its rows and start,
 * and the constants it moves (o->dims), which out records with the
 * ones it keeps and why.
 */
static void
objective_setup(struct objective *o, const struct calib_row *rows, int n,
                const struct calibration *start,
                const struct calib_opts *opts, struct calib_fit *out)
{
	memset(o, 0, sizeof *o);
	o->rows = rows;
	o->base = *start;
	o->rank_weight = opts->rank_weight;
	o->pred = xcalloc((size_t)n, sizeof(*o->pred));
	calibration_clamp(&o->base);
	o->nrows = n;
	dense_params(o, rows, n);
	/*
	 * The constants dense layers share that no dense row moves (all of
	 * them for a GPU measured on MoE runs alone; fp8_block_gemm_eff
	 * where only the MoE runs scale by blocks) stay at the start: MoE
	 * rows do not tell them from what the estimate misses on MoE
	 * layers, which made B300's fit, from its 19 MoE runs, put four of
	 * them on a bound (gemm_eff_max 0.95, gemm_tokens_half 16,
	 * layer_overhead_s 2 ms, fp8_block_gemm_eff 1; bench/calibration,
	 * 2026-11-28).
	 */
	for (int p = 0; p < CAL_NPARAMS; p++) {
		out->fixed[p] = opts->fixed[p];
		out->moe_kept[p] = !calibration_param(p)->moe_only &&
		                   !o->dense_moves[p];
		if ((out->active[p] = calibrate_param_active(rows, n,
		                                             &o->base, p)) &&
		    !opts->fixed[p] && !out->moe_kept[p])
			o->dims[o->ndims++] = p;
	}
	if (o->rank_weight > 0) {
		o->order = xcalloc(1, sizeof(*o->order));
		calibrate_order_init(o->order, rows, n);
	}
}

int
calibrate_fit_opts(const struct calib_row *rows, int n,
                   const struct calibration *start,
                   const struct calib_opts *opts, struct calib_fit *out)
{
	struct objective o;
	int *all, *unit, units;
	bool *in, measured = false;

	memset(out, 0, sizeof(*out));
	if (n < 1)
		return -1;
	objective_setup(&o, rows, n, start, opts, out);
	unit = xcalloc((size_t)n, sizeof(*unit));
	units = calibrate_fold_units(rows, n, unit);
	out->n = n;
	out->folds = units >= 2 ? (opts->folds < units ? opts->folds : units)
	                        : 0;
	out->pred_before = xcalloc((size_t)n, sizeof(double));
	out->pred_in = xcalloc((size_t)n, sizeof(double));
	out->pred_cv = xcalloc((size_t)n, sizeof(double));
	out->mem_before = xcalloc((size_t)n, sizeof(double));
	out->mem_after = xcalloc((size_t)n, sizeof(double));
	all = xcalloc((size_t)n, sizeof(*all));
	in = xcalloc((size_t)n, sizeof(*in));
	for (int i = 0; i < n; i++) {
		all[i] = i;
		in[i] = true;
	}
	predict_rows(rows, all, n, &o.base, out->pred_before, out->mem_before);
	fit_subset(&o, all, in, n, &out->cal);
	predict_rows(rows, all, n, &out->cal, out->pred_in, out->mem_after);
	if (out->folds >= 2) {
		cross_validate(&o, rows, n, unit, out->folds, out->pred_cv);
		measured = calibrate_residual_band(rows, out->pred_cv, n,
		                                   &out->cal);
	} else {
		/* One row, or one configuration: nothing to validate on;
		 * the built-in band. */
		memcpy(out->pred_cv, out->pred_in, (size_t)n * sizeof(double));
		out->cal.residual_low = CAL_DEFAULT_RESIDUAL_LOW;
		out->cal.residual_high = CAL_DEFAULT_RESIDUAL_HIGH;
	}
	/* rows says the interval was measured (calibration_fitted): a
	 * calibration of one configuration, whose interval is the
	 * built-in band, made estimate call that band the calibration's
	 * residuals and the adaptive search rely on it. */
	out->cal.rows = measured ? n : 0;
	out->evaluations = o.evaluations;
	free(all);
	free(in);
	free(unit);
	free(o.pred);
	if (o.order)
		calibrate_order_release(o.order);
	free(o.order);
	return 0;
}

void
calibrate_fit_release(struct calib_fit *f)
{
	free(f->pred_before);
	free(f->pred_in);
	free(f->pred_cv);
	free(f->mem_before);
	free(f->mem_after);
	memset(f, 0, sizeof(*f));
}

/* ---- reporting ----------------------------------------------------------- */

enum calib_bound
calibrate_at_bound(const struct calib_fit *f, int p)
{
	const struct cal_param_info *pi = calibration_param(p);
	double tol = CALIB_BOUND_TOL * (pi->hi - pi->lo), v = f->cal.v[p];

	if (!f->active[p] || f->fixed[p] || f->moe_kept[p])
		return CALIB_INSIDE;
	if (v <= pi->lo + tol)
		return CALIB_AT_LOW;
	if (v >= pi->hi - tol)
		return CALIB_AT_HIGH;
	return CALIB_INSIDE;
}

const char *
calibrate_bound_name(enum calib_bound b)
{
	return b == CALIB_AT_LOW ? "low" : b == CALIB_AT_HIGH ? "high" : NULL;
}

int
calibrate_bounds_hit(const struct calib_fit *f)
{
	int k = 0;

	for (int p = 0; p < CAL_NPARAMS; p++)
		k += calibrate_at_bound(f, p) != CALIB_INSIDE;
	return k;
}

double
calibrate_mape(const struct calib_row *rows, const double *pred, int n,
               const char *group, int *count)
{
	double sum = 0;
	int k = 0;

	for (int i = 0; i < n; i++) {
		if (group && strcmp(rows[i].group, group))
			continue;
		if (!(pred[i] > 0))
			continue;
		sum += fabs(pred[i] / rows[i].step_s - 1);
		k++;
	}
	if (count)
		*count = k;
	return k ? sum / k : NAN;
}

double
calibrate_quantile(double *v, int n, double q)
{
	double pos, frac;
	int i;

	if (n < 1)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), compare_double);
	pos = q * (n - 1);
	i = (int)floor(pos);
	frac = pos - i;
	return i + 1 < n ? v[i] + frac * (v[i + 1] - v[i]) : v[n - 1];
}

/* A number libconfig reads back as a float: "%.6g", with ".0" added
 * where that printed no point (libconfig's floats need one). */
static void
add_float(struct strbuf *out, double v)
{
	char buf[64], *e;

	snprintf(buf, sizeof buf, "%.6g", v);
	if (strchr(buf, '.') == NULL) {
		e = strchr(buf, 'e');
		if (e) {
			char tail[32];

			snprintf(tail, sizeof tail, "%s", e);
			snprintf(e, sizeof buf - (size_t)(e - buf), ".0%s",
			         tail);
		} else {
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
			         ".0");
		}
	}
	strbuf_addstr(out, buf);
}

void
calibrate_write_entry(struct strbuf *out, const char *gpu,
                      const struct calibration *cal)
{
	strbuf_addf(out, "  %s = {\n", gpu);
	if (cal->name[0])
		strbuf_addf(out, "    name = \"%s\";\n", cal->name);
	for (int p = 0; p < CAL_NPARAMS; p++) {
		strbuf_addf(out, "    %s = ", calibration_param(p)->key);
		add_float(out, cal->v[p]);
		strbuf_addstr(out, ";\n");
	}
	strbuf_addstr(out, "    residual_low = ");
	add_float(out, cal->residual_low);
	strbuf_addstr(out, ";\n    residual_high = ");
	add_float(out, cal->residual_high);
	strbuf_addf(out, ";\n    rows = %d;\n  };\n", cal->rows);
}

