/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-report.c - what `paratune calibrate` prints of a fit: the
 * error per group before, after and cross-validated, the ranking of each
 * campaign's configurations, the constants and the rows, as a table or
 * as JSON.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate-report.h"
#include "json.h"
#include "strbuf.h"
#include "table.h"
#include "util.h"

/* The groups reported, in order; a row's own group outside them is
 * reported after them. */
static const char *const groups[] = { "dense-bf16", "dense-fp8", "moe" };
#define NGROUPS (sizeof groups / sizeof groups[0])

/* Whether group is one of groups[] (others are reported after). */
static bool
known_group(const char *group)
{
	for (size_t i = 0; i < NGROUPS; i++)
		if (!strcmp(groups[i], group))
			return true;
	return false;
}

/* Call fn for every group with rows, then for all rows (group NULL). */
static void
each_group(const struct gpu_fit *g,
           void (*fn)(const struct gpu_fit *g, const char *group,
                      void *arg),
           void *arg)
{
	for (size_t i = 0; i < NGROUPS; i++)
		for (int r = 0; r < g->n; r++)
			if (!strcmp(g->rows[r].group, groups[i])) {
				fn(g, groups[i], arg);
				break;
			}
	for (int r = 0; r < g->n; r++) {
		bool seen = false;

		if (known_group(g->rows[r].group))
			continue;
		for (int q = 0; q < r && !seen; q++)
			seen = !strcmp(g->rows[q].group, g->rows[r].group);
		if (!seen)
			fn(g, g->rows[r].group, arg);
	}
	fn(g, NULL, arg);
}

/* ---- the table ----------------------------------------------------------- */

/*
 * The percentage of share v, "12.3 %", into buf: one decimal, unless it
 * is a million or more, where it takes three figures ("1.2e+302 %")
 * rather than the 300 digits a measured step of 1e-300 s printed.
 * Public: see calibrate-report.h.
 */
const char *
calibrate_pct_text(char *buf, double v)
{
	double p = 100 * v;

	snprintf(buf, CALIB_PCT_SIZE, fabs(p) < 1e6 ? "%.1f %%" : "%.3g %%",
	         p);
	return buf;
}

/* The same with its sign: "+12.3 %". */
static const char *
pct_signed(char *buf, double v)
{
	double p = 100 * v;

	snprintf(buf, CALIB_PCT_SIZE, fabs(p) < 1e6 ? "%+.1f %%" : "%+.3g %%",
	         p);
	return buf;
}

/* "12.3 %" or "-". */
static void
add_pct(struct table *t, double v)
{
	char buf[CALIB_PCT_SIZE];

	if (isfinite(v))
		table_add(t, "%s", calibrate_pct_text(buf, v));
	else
		table_add(t, "-");
}

static void
group_row(const struct gpu_fit *g, const char *group, void *arg)
{
	struct table *t = arg;
	const struct calib_fit *f = &g->fit;
	int n;

	table_add(t, "%s", group ? group : "all");
	add_pct(t, calibrate_mape(g->rows, f->pred_before, g->n, group, &n));
	table_add(t, "%d", n);
	add_pct(t, calibrate_mape(g->rows, f->pred_in, g->n, group, NULL));
	add_pct(t, f->folds >= 2
	        ? calibrate_mape(g->rows, f->pred_cv, g->n, group, NULL)
	        : NAN);
}

/*
 * The constants the fit moved a quarter of their bounds or more from
 * the start, at most two, farthest first ("; it moved K a -> b and K a
 * -> b farthest"), into out: where a fit that generalises worse than
 * its start went, and so what --fix would keep.  On the published runs
 * GB200's dense runs (4,096 tokens a GEMM and more) moved
 * gemm_tokens_half from 192 to about 1,950, and its MoE runs' shorter
 * GEMMs paid for it (bench/README.md, 2026-12-04).  MoE-only constants
 * are left out of a dense group's note: its runs do not depend on them.
 */
#define MOVED_NOTE_MIN 0.25
#define MOVED_NOTE_MAX 2

static void
moved_note(struct strbuf *out, const struct gpu_fit *g, const char *group)
{
	const struct calib_fit *fit = &g->fit;
	bool moe = !strcmp(group, "moe"), taken[CAL_NPARAMS] = { false };

	for (int k = 0; k < MOVED_NOTE_MAX; k++) {
		int best = -1;
		double far = MOVED_NOTE_MIN;

		for (int p = 0; p < CAL_NPARAMS; p++) {
			const struct cal_param_info *pi = calibration_param(p);
			double d = fabs(fit->cal.v[p] - g->start->v[p]) /
			           (pi->hi - pi->lo);

			if (!taken[p] && (moe || !pi->moe_only) && d >= far) {
				far = d;
				best = p;
			}
		}
		if (best < 0)
			break;
		taken[best] = true;
		strbuf_addf(out, "%s %s %.4g -> %.4g",
		            k ? " and" : "; it moved",
		            calibration_param(best)->key,
		            g->start->v[best], fit->cal.v[best]);
	}
	if (out->len > 0)
		strbuf_addstr(out, " farthest");
}

/* Public: see calibrate-report.h. */
enum calib_verdict
calibrate_fit_verdict(const struct gpu_fit *g, double *before, double *cv)
{
	const struct calib_fit *fit = &g->fit;

	*before = calibrate_mape(g->rows, fit->pred_before, g->n, NULL, NULL);
	*cv = NAN;
	if (fit->folds < 2)
		return CALIB_UNCHECKED;
	*cv = calibrate_mape(g->rows, fit->pred_cv, g->n, NULL, NULL);
	return *cv < *before ? CALIB_IMPROVES : CALIB_WORSENS;
}

/*
 * The GPU's runs as a whole predicted no better than with the start's
 * constants (calibrate_fit_verdict): what `-o --only-better` leaves out,
 * said where the table shows it (GB200's published runs).
 */
static void
whole_note(FILE *f, const struct gpu_fit *g)
{
	double before, cv;
	char a[CALIB_PCT_SIZE], b[CALIB_PCT_SIZE];

	if (calibrate_fit_verdict(g, &before, &cv) != CALIB_WORSENS)
		return;
	fprintf(f, "  note: all: %s cross-validated against %s with the %s: "
	        "over all its runs the fit predicts no better than its "
	        "start (-o --only-better leaves it out)\n",
	        calibrate_pct_text(a, cv), calibrate_pct_text(b, before),
	        calibration_label(g->start));
}

/*
 * A group whose cross-validated error is over a point above its error
 * with the start's constants: the fit generalises worse than where it
 * began, which a site should know before it includes the result (the
 * published runs show it: GB200's MoE runs, 17.3 % against 9.3 %).
 */
static void
worse_note(const struct gpu_fit *g, const char *group, void *arg)
{
	FILE *f = arg;
	const struct calib_fit *fit = &g->fit;
	struct strbuf moved = STRBUF_INIT;
	double before, cv;
	char a[CALIB_PCT_SIZE], b[CALIB_PCT_SIZE];

	if (fit->folds < 2)
		return;
	if (group == NULL) {
		whole_note(f, g);
		return;
	}
	before = calibrate_mape(g->rows, fit->pred_before, g->n, group, NULL);
	cv = calibrate_mape(g->rows, fit->pred_cv, g->n, group, NULL);
	if (!(cv > before + 0.01))
		return;
	moved_note(&moved, g, group);
	fprintf(f, "  note: %s: %s cross-validated against %s with the %s: "
	        "the fit predicts these runs worse than its start%s (--fix "
	        "keeps constants, --group fits a group apart)\n", group,
	        calibrate_pct_text(a, cv), calibrate_pct_text(b, before),
	        calibration_label(g->start), moved.buf);
	strbuf_release(&moved);
}

/* Mean |memory error| of the rows with a measured peak; NAN when none. */
static double
memory_mape(const struct gpu_fit *g, const double *mem, int *count)
{
	double sum = 0;
	int k = 0;

	for (int i = 0; i < g->n; i++)
		if (g->rows[i].peak_gib > 0) {
			sum += fabs(mem[i] / g->rows[i].peak_gib - 1);
			k++;
		}
	*count = k;
	return k ? sum / k : NAN;
}

/* ---- ranking ------------------------------------------------------------- */

/* The ranking of g's rows of group (NULL: all) by the predictions
 * before, fitted and cross-validated, into r[3]. */
static void
gpu_rank(const struct gpu_fit *g, const char *group, struct calib_rank *r)
{
	calibrate_rank(g->rows, g->fit.pred_before, g->n, group, &r[0]);
	calibrate_rank(g->rows, g->fit.pred_in, g->n, group, &r[1]);
	calibrate_rank(g->rows, g->fit.folds >= 2 ? g->fit.pred_cv
	               : g->fit.pred_in, g->n, group, &r[2]);
}

/* A share of pairs as "12 %", or "-" of none. */
static void
add_share(struct table *t, double part, int whole)
{
	if (whole > 0)
		table_add(t, "%.0f %%", 100 * part / whole);
	else
		table_add(t, "-");
}

static void
rank_row(const struct gpu_fit *g, const char *group, void *arg)
{
	struct table *t = arg;
	struct calib_rank r[3];

	gpu_rank(g, group, r);
	if (r[0].campaigns == 0 && group != NULL)
		return;
	table_add(t, "%s", group ? group : "all");
	table_add(t, "%d", r[0].campaigns);
	table_add(t, "%d", r[0].configs);
	for (int k = 0; k < 3; k++)
		table_add(t, "%d", r[k].best);
	table_add(t, "%d", r[0].pairs);
	for (int k = 0; k < 3; k++)
		add_share(t, r[k].concordant, r[k].pairs);
}

/* The row predicted best as a cell of t: "yes" when it is the best, else
 * that row, where the best was placed and how far behind. */
static void
add_predicted(struct table *t, const struct gpu_fit *g,
              const struct calib_campaign_rank *c)
{
	char buf[CALIB_PCT_SIZE];

	if (c->predicted == c->best)
		table_add(t, "yes");
	else
		table_add(t, "%s, best placed %d (+%s)",
		          c->predicted < 0 ? "(a tie)"
		          : g->rows[c->predicted].where,
		          c->best_place,
		          calibrate_pct_text(buf, c->best_behind));
}

/* Each campaign's best and the configuration predicted best. */
static void
print_campaigns(FILE *f, const struct gpu_fit *g)
{
	const char *cols[] = { "campaign", ">configs", "best_measured",
		"predicted_before", "predicted_cv", NULL };
	struct calib_campaign_rank *b, *c;
	int m = calibrate_rank_campaigns(g->rows, g->fit.pred_before, g->n,
	                                 NULL, &b);
	struct table t;

	calibrate_rank_campaigns(g->rows, g->fit.folds >= 2 ? g->fit.pred_cv
	                         : g->fit.pred_in, g->n, NULL, &c);
	table_init(&t, cols);
	for (int i = 0; i < m; i++) {
		table_add(&t, "%s", b[i].campaign);
		table_add(&t, "%d", b[i].configs);
		table_add(&t, "%s", g->rows[b[i].best].where);
		add_predicted(&t, g, &b[i]);
		add_predicted(&t, g, &c[i]);
	}
	if (m > 0)
		table_print(&t, f);
	table_release(&t);
	free(b);
	free(c);
}

static void
print_ranking(FILE *f, const struct gpu_fit *g, bool verbose)
{
	const char *cols[] = { "group", ">campaigns", ">configs",
		">best_before", ">best_fitted", ">best_cv", ">pairs",
		">ordered_before", ">ordered_fitted", ">ordered_cv", NULL };
	struct calib_rank r[3];
	struct table t;

	gpu_rank(g, NULL, r);
	if (r[0].campaigns == 0) {
		fprintf(f, "  ranking: no campaign with two distinct "
		        "configurations\n");
		return;
	}
	fprintf(f, "  ranking: campaigns with two or more distinct "
	        "configurations (a layout measured again counts once, by its "
	        "fastest run), by time per sample; best: campaigns whose "
	        "fastest is predicted fastest; ordered: pairs whose measured "
	        "times differ by %.0f %% or more predicted in that order\n",
	        100 * CALIB_RANK_TIE);
	table_init(&t, cols);
	each_group(g, rank_row, &t);
	table_print(&t, f);
	table_release(&t);
	if (verbose)
		print_campaigns(f, g);
}

/*
 * The note on constant p's row into buf: why the fit kept it or where
 * it came from, and whether it ended on a bound (calibrate_at_bound),
 * "(every GPU's MoE runs; at upper bound)"; "" when none.
 */
#define NOTE_SIZE 96

static const char *
constant_note(char *buf, const struct calib_fit *fit, int p)
{
	const char *why = !fit->active[p] ? "no row depends on it: kept"
	                : fit->fixed[p] ? "fixed: kept"
	                : fit->moe_kept[p] ? "MoE runs only: kept"
	                : fit->shared[p] ? "every GPU's MoE runs" : NULL;
	enum calib_bound b = calibrate_at_bound(fit, p);
	const char *at = b == CALIB_AT_LOW ? "at lower bound"
	               : b == CALIB_AT_HIGH ? "at upper bound" : NULL;

	if (why && at)
		snprintf(buf, NOTE_SIZE, "(%s; %s)", why, at);
	else if (why || at)
		snprintf(buf, NOTE_SIZE, "(%s)", why ? why : at);
	else
		buf[0] = '\0';
	return buf;
}

static void
print_constants(FILE *f, const struct gpu_fit *g)
{
	const char *cols[] = { "constant", ">default", ">fitted", ">low",
		">high", "", NULL };
	const struct calibration *d = g->start;
	struct table t;
	char note[NOTE_SIZE];

	table_init(&t, cols);
	for (int p = 0; p < CAL_NPARAMS; p++) {
		const struct cal_param_info *pi = calibration_param(p);

		table_add(&t, "%s", pi->key);
		table_add(&t, "%.4g", d->v[p]);
		table_add(&t, "%.4g", g->fit.cal.v[p]);
		table_add(&t, "%.4g", pi->lo);
		table_add(&t, "%.4g", pi->hi);
		table_add(&t, "%s", constant_note(note, &g->fit, p));
	}
	table_print(&t, f);
	table_release(&t);
}

static void
print_rows(FILE *f, const struct gpu_fit *g)
{
	const char *cols[] = { "row", "group", ">measured_s", ">before_s",
		">after_s", ">cv_s", ">cv_error", NULL };
	struct table t;

	char buf[CALIB_PCT_SIZE];

	table_init(&t, cols);
	for (int i = 0; i < g->n; i++) {
		const struct calib_fit *fit = &g->fit;

		table_add(&t, "%s", g->rows[i].where);
		table_add(&t, "%s", g->rows[i].group);
		table_add(&t, "%.3f", g->rows[i].step_s);
		table_add(&t, "%.3f", fit->pred_before[i]);
		table_add(&t, "%.3f", fit->pred_in[i]);
		table_add(&t, "%.3f", fit->pred_cv[i]);
		table_add(&t, "%s", pct_signed(buf, fit->pred_cv[i] /
		                                   g->rows[i].step_s - 1));
	}
	table_print(&t, f);
	table_release(&t);
}

/* Public: see calibrate-report.h. */
/* Whether some constant of fit came from the fit shared by the GPUs. */
static bool
any_shared(const struct calib_fit *fit)
{
	for (int p = 0; p < CAL_NPARAMS; p++)
		if (fit->shared[p])
			return true;
	return false;
}

void
calibrate_report_table(FILE *f, const struct gpu_fit *g, bool verbose)
{
	const char *cols[] = { "group", ">mape_before", ">rows",
		">mape_fitted", ">mape_cv", NULL };
	const struct calib_fit *fit = &g->fit;
	struct table t;
	double mb, ma;
	char a[CALIB_PCT_SIZE], b[CALIB_PCT_SIZE];
	int nm;

	fprintf(f, "%s: %d measured run%s%s\n", g->gpu, g->n,
	        g->n == 1 ? "" : "s", fit->folds >= 2 ? ""
	        : g->n == 1 ? ", too few to cross-validate"
	        : ", all of one configuration: not cross-validated");
	if (fit->folds >= 2)
		fprintf(f, "  error: before with the %s, fitted in-sample, "
		        "and %d-fold cross-validated (each fold predicted by "
		        "a fit to the others)\n", calibration_label(g->start),
		        fit->folds);
	if (any_shared(fit))
		fprintf(f, "  moe rows: predicted with the constants marked "
		        "(every GPU's MoE runs), fitted once to the MoE runs "
		        "of every GPU, each with its own GPU's other "
		        "constants, and cross-validated in folds of those "
		        "runs' campaigns\n");
	table_init(&t, cols);
	each_group(g, group_row, &t);
	table_print(&t, f);
	table_release(&t);
	each_group(g, worse_note, f);
	mb = memory_mape(g, fit->mem_before, &nm);
	ma = memory_mape(g, fit->mem_after, &nm);
	if (nm > 0)
		fprintf(f, "  peak memory: %d rows, error %s before, %s "
		        "fitted\n", nm, calibrate_pct_text(a, mb),
		        calibrate_pct_text(b, ma));
	/* Not cross-validated, or too few rows for an 80 % interval: the
	 * band is the built-in one, no percentile of anything measured
	 * ("the built-in residuals"). */
	if (fit->cal.rows > 0)
		fprintf(f, "  interval: measured between %.3f and %.3f times "
		        "the prediction (the cross-validated residuals that "
		        "hold 80 %% of new runs)\n",
		        exp(fit->cal.residual_low),
		        exp(fit->cal.residual_high));
	else if (fit->folds >= 2)
		fprintf(f, "  interval: the built-in band, widened to hold "
		        "the cross-validated residuals: %.3f to %.3f times the "
		        "prediction (under %d runs measure no 80 %% "
		        "interval)\n", exp(fit->cal.residual_low),
		        exp(fit->cal.residual_high), CAL_BAND_MIN_ROWS);
	else
		fprintf(f, "  interval: the built-in band, %.3f to %.3f times "
		        "the prediction (no cross-validated residuals to take "
		        "it from)\n", exp(fit->cal.residual_low),
		        exp(fit->cal.residual_high));
	print_ranking(f, g, verbose);
	print_constants(f, g);
	if (verbose)
		print_rows(f, g);
}

/* ---- JSON ---------------------------------------------------------------- */

/* NAN as null. */
static void
json_num(struct json *j, const char *key, double v)
{
	if (isfinite(v))
		json_number(j, key, v);
	else
		json_null(j, key);
}

/* The ranking figures of group (NULL: all): counts of campaigns whose
 * best is predicted best, and of pairs predicted in order. */
static void
rank_json(struct json *j, const struct gpu_fit *g, const char *group)
{
	static const char *const when[] = { "before", "fitted", "cv" };
	struct calib_rank r[3];
	char key[32];

	gpu_rank(g, group, r);
	json_begin_object(j, "ranking");
	json_int(j, "campaigns", r[0].campaigns);
	json_int(j, "configs", r[0].configs);
	json_int(j, "rows", r[0].rows);
	json_int(j, "pairs", r[0].pairs);
	for (int k = 0; k < 3; k++) {
		snprintf(key, sizeof key, "best_%s", when[k]);
		json_int(j, key, r[k].best);
		snprintf(key, sizeof key, "near_%s", when[k]);
		json_int(j, key, r[k].near);
		snprintf(key, sizeof key, "ordered_%s", when[k]);
		json_number(j, key, r[k].concordant);
	}
	json_end_object(j);
}

static void
group_json(const struct gpu_fit *g, const char *group, void *arg)
{
	struct json *j = arg;
	const struct calib_fit *f = &g->fit;
	int n;
	double before = calibrate_mape(g->rows, f->pred_before, g->n, group,
	                               &n);

	json_begin_object(j, NULL);
	json_string(j, "group", group ? group : "all");
	json_int(j, "rows", n);
	json_num(j, "mape_before", before);
	json_num(j, "mape_fitted",
	         calibrate_mape(g->rows, f->pred_in, g->n, group, NULL));
	json_num(j, "mape_cv", f->folds >= 2
	         ? calibrate_mape(g->rows, f->pred_cv, g->n, group, NULL)
	         : NAN);
	rank_json(j, g, group);
	json_end_object(j);
}

/* The campaigns ranked, each with the rows predicted best. */
static void
campaigns_json(struct json *j, const struct gpu_fit *g)
{
	struct calib_campaign_rank *b, *c;
	int m = calibrate_rank_campaigns(g->rows, g->fit.pred_before, g->n,
	                                 NULL, &b);

	calibrate_rank_campaigns(g->rows, g->fit.folds >= 2 ? g->fit.pred_cv
	                         : g->fit.pred_in, g->n, NULL, &c);
	json_begin_array(j, "campaigns");
	for (int i = 0; i < m; i++) {
		json_begin_object(j, NULL);
		json_string(j, "campaign", b[i].campaign);
		json_string(j, "group", b[i].group);
		json_int(j, "rows", b[i].rows);
		json_int(j, "configs", b[i].configs);
		json_string(j, "best_measured", g->rows[b[i].best].where);
		if (b[i].predicted >= 0)
			json_string(j, "predicted_before",
			            g->rows[b[i].predicted].where);
		else
			json_null(j, "predicted_before");
		if (c[i].predicted >= 0)
			json_string(j, "predicted_cv",
			            g->rows[c[i].predicted].where);
		else
			json_null(j, "predicted_cv");
		json_int(j, "best_place_before", b[i].best_place);
		json_int(j, "best_place_cv", c[i].best_place);
		json_number(j, "best_behind_before", b[i].best_behind);
		json_number(j, "best_behind_cv", c[i].best_behind);
		json_int(j, "pairs", b[i].pairs);
		json_number(j, "ordered_before", b[i].concordant);
		json_number(j, "ordered_cv", c[i].concordant);
		json_end_object(j);
	}
	json_end_array(j);
	free(b);
	free(c);
}

static void
rows_json(struct json *j, const struct gpu_fit *g)
{
	const struct calib_fit *f = &g->fit;

	json_begin_array(j, "rows");
	for (int i = 0; i < g->n; i++) {
		const struct calib_row *r = &g->rows[i];

		json_begin_object(j, NULL);
		json_string(j, "row", r->where);
		json_string(j, "group", r->group);
		json_number(j, "measured_step_s", r->step_s);
		json_number(j, "pred_before_s", f->pred_before[i]);
		json_number(j, "pred_fitted_s", f->pred_in[i]);
		json_number(j, "pred_cv_s", f->pred_cv[i]);
		json_num(j, "measured_peak_gib",
		         r->peak_gib > 0 ? r->peak_gib : NAN);
		json_num(j, "pred_peak_before_gib",
		         r->peak_gib > 0 ? f->mem_before[i] : NAN);
		json_num(j, "pred_peak_fitted_gib",
		         r->peak_gib > 0 ? f->mem_after[i] : NAN);
		json_string(j, "memory_status_before", memory_status_name(
			calibrate_memory_status(r, g->start)));
		json_string(j, "memory_status_fitted", memory_status_name(
			calibrate_memory_status(r, &f->cal)));
		json_end_object(j);
	}
	json_end_array(j);
}

static void
gpu_json(struct json *j, const struct gpu_fit *g)
{
	const struct calibration *d = g->start;
	enum calib_verdict verdict;
	double before, cv;
	const char *at;

	json_begin_object(j, NULL);
	json_string(j, "gpu", g->gpu);
	json_string(j, "name", g->fit.cal.name);
	json_int(j, "runs", g->n);
	json_int(j, "folds", g->fit.folds);
	json_int(j, "constants_at_bound", calibrate_bounds_hit(&g->fit));
	verdict = calibrate_fit_verdict(g, &before, &cv);
	if (verdict == CALIB_UNCHECKED)
		json_null(j, "improves");
	else
		json_bool(j, "improves", verdict == CALIB_IMPROVES);
	json_begin_object(j, "constants");
	for (int p = 0; p < CAL_NPARAMS; p++) {
		const struct cal_param_info *pi = calibration_param(p);

		json_begin_object(j, pi->key);
		json_number(j, "default", d->v[p]);
		json_number(j, "fitted", g->fit.cal.v[p]);
		json_number(j, "low", pi->lo);
		json_number(j, "high", pi->hi);
		json_bool(j, "active", g->fit.active[p]);
		json_bool(j, "fixed", g->fit.fixed[p]);
		json_bool(j, "moe_kept", g->fit.moe_kept[p]);
		json_bool(j, "shared", g->fit.shared[p]);
		at = calibrate_bound_name(calibrate_at_bound(&g->fit, p));
		if (at)
			json_string(j, "at_bound", at);
		else
			json_null(j, "at_bound");
		json_end_object(j);
	}
	json_end_object(j);
	json_number(j, "residual_low", g->fit.cal.residual_low);
	json_number(j, "residual_high", g->fit.cal.residual_high);
	json_string(j, "interval", g->fit.cal.rows > 0 ? "measured"
	            : "built-in");
	json_begin_array(j, "groups");
	each_group(g, group_json, j);
	json_end_array(j);
	campaigns_json(j, g);
	rows_json(j, g);
	json_end_object(j);
}

/* Public: see calibrate-report.h. */
void
calibrate_report_json(FILE *f, const struct gpu_fit *g, int ng)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb, true);
	json_begin_object(&j, NULL);
	json_begin_array(&j, "calibrations");
	for (int k = 0; k < ng; k++)
		gpu_json(&j, &g[k]);
	json_end_array(&j);
	json_end_object(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}
