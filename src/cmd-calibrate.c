/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-calibrate.c - 'paratune calibrate': fit the estimator's constants
 * to measured runs per GPU type, report the error before and after with
 * k-fold cross-validation, and write the calibration group a site file
 * includes.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cmd-calibrate.h"
#include "error.h"
#include "json.h"
#include "strlist.h"
#include "table.h"
#include "util.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_calibrate_entry;

#define FOLDS_MAX 1000
#define RANK_WEIGHT_MAX 1000.0

/* The groups reported, in order; a row's own group outside them is
 * reported after them. */
static const char *const groups[] = { "dense-bf16", "dense-fp8", "moe" };
#define NGROUPS (sizeof groups / sizeof groups[0])

/* One GPU's rows and fit. */
struct gpu_fit {
	const char *gpu;
	struct calib_row *rows;   /* copies of the input's */
	int n;
	const struct calibration *start; /* the fit's start, "default" */
	struct calib_fit fit;
};

/* How the command fits. */
struct fit_how {
	struct calib_opts opts;
	const struct calibration *start;
	int pool;                 /* one fit to every GPU's rows */
	const struct str_list *groups; /* only rows of these (none: all) */
};

/* The label of a pooled fit's rows (no catalog GPU is named so). */
#define POOL_LABEL "all GPUs"

/* ---- fitting per GPU ----------------------------------------------------- */

/* The distinct GPUs of the input's rows, in order of appearance, each
 * with its rows and fit.  Returns how many. */
static int
fit_gpus(const struct calib_input *in, const char *name,
         const struct fit_how *how, struct gpu_fit **out)
{
	struct gpu_fit *g = xcalloc((size_t)in->n + 1, sizeof(*g));
	int ng = 0;

	for (int i = 0; i < in->n; i++) {
		const char *gpu = how->pool ? POOL_LABEL : in->gpu[i];
		int k;

		if (how->groups->n > 0 &&
		    str_list_find(how->groups, in->rows[i].group) < 0)
			continue;
		for (k = 0; k < ng && strcmp(g[k].gpu, gpu); k++)
			;
		if (k == ng) {
			g[ng].gpu = gpu;
			g[ng].start = how->start;
			g[ng++].rows = xcalloc((size_t)in->n,
			                       sizeof(struct calib_row));
		}
		g[k].rows[g[k].n++] = in->rows[i];
	}
	for (int k = 0; k < ng; k++) {
		calibrate_fit_opts(g[k].rows, g[k].n, g[k].start, &how->opts,
		                   &g[k].fit);
		snprintf(g[k].fit.cal.name, sizeof g[k].fit.cal.name, "%s",
		         name);
	}
	*out = g;
	return ng;
}

static void
free_gpus(struct gpu_fit *g, int ng)
{
	for (int k = 0; k < ng; k++) {
		calibrate_fit_release(&g[k].fit);
		free(g[k].rows);
	}
	free(g);
}

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

/* "12.3 %" or "-". */
static void
add_pct(struct table *t, double v)
{
	if (isfinite(v))
		table_add(t, "%.1f %%", 100 * v);
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

/* The row predicted best as a cell: "yes" when it is the best. */
static const char *
predicted_cell(const struct gpu_fit *g, const struct calib_campaign_rank *c)
{
	if (c->predicted == c->best)
		return "yes";
	return c->predicted < 0 ? "(a tie)" : g->rows[c->predicted].where;
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
		table_add(&t, "%s", predicted_cell(g, &b[i]));
		table_add(&t, "%s", predicted_cell(g, &c[i]));
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

static void
print_constants(FILE *f, const struct gpu_fit *g)
{
	const char *cols[] = { "constant", ">default", ">fitted", ">low",
		">high", "", NULL };
	const struct calibration *d = g->start;
	struct table t;

	table_init(&t, cols);
	for (int p = 0; p < CAL_NPARAMS; p++) {
		const struct cal_param_info *pi = calibration_param(p);

		table_add(&t, "%s", pi->key);
		table_add(&t, "%.4g", d->v[p]);
		table_add(&t, "%.4g", g->fit.cal.v[p]);
		table_add(&t, "%.4g", pi->lo);
		table_add(&t, "%.4g", pi->hi);
		table_add(&t, "%s", !g->fit.active[p]
		          ? "(no row depends on it: kept)"
		          : g->fit.fixed[p] ? "(fixed: kept)" : "");
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

	table_init(&t, cols);
	for (int i = 0; i < g->n; i++) {
		const struct calib_fit *fit = &g->fit;

		table_add(&t, "%s", g->rows[i].where);
		table_add(&t, "%s", g->rows[i].group);
		table_add(&t, "%.3f", g->rows[i].step_s);
		table_add(&t, "%.3f", fit->pred_before[i]);
		table_add(&t, "%.3f", fit->pred_in[i]);
		table_add(&t, "%.3f", fit->pred_cv[i]);
		table_add(&t, "%+.1f %%",
		          100 * (fit->pred_cv[i] / g->rows[i].step_s - 1));
	}
	table_print(&t, f);
	table_release(&t);
}

static void
print_table(FILE *f, const struct gpu_fit *g, bool verbose)
{
	const char *cols[] = { "group", ">mape_before", ">rows",
		">mape_fitted", ">mape_cv", NULL };
	const struct calib_fit *fit = &g->fit;
	struct table t;
	double mb, ma;
	int nm;

	fprintf(f, "%s: %d measured run%s%s\n", g->gpu, g->n,
	        g->n == 1 ? "" : "s", fit->folds >= 2
	        ? "" : ", too few to cross-validate");
	if (fit->folds >= 2)
		fprintf(f, "  error: before with the %s, fitted in-sample, "
		        "and %d-fold cross-validated (each fold predicted by "
		        "a fit to the others)\n", calibration_label(g->start),
		        fit->folds);
	table_init(&t, cols);
	each_group(g, group_row, &t);
	table_print(&t, f);
	table_release(&t);
	mb = memory_mape(g, fit->mem_before, &nm);
	ma = memory_mape(g, fit->mem_after, &nm);
	if (nm > 0)
		fprintf(f, "  peak memory: %d rows, error %.1f %% before, "
		        "%.1f %% fitted\n", nm, 100 * mb, 100 * ma);
	fprintf(f, "  interval: measured between %.3f and %.3f times the "
	        "prediction (10th-90th percentile of the %s residuals)\n",
	        exp(fit->cal.residual_low), exp(fit->cal.residual_high),
	        fit->folds >= 2 ? "cross-validated" : "built-in");
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

	json_begin_object(j, NULL);
	json_string(j, "gpu", g->gpu);
	json_string(j, "name", g->fit.cal.name);
	json_int(j, "runs", g->n);
	json_int(j, "folds", g->fit.folds);
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
		json_end_object(j);
	}
	json_end_object(j);
	json_number(j, "residual_low", g->fit.cal.residual_low);
	json_number(j, "residual_high", g->fit.cal.residual_high);
	json_begin_array(j, "groups");
	each_group(g, group_json, j);
	json_end_array(j);
	campaigns_json(j, g);
	rows_json(j, g);
	json_end_object(j);
}

static void
print_json(FILE *f, const struct gpu_fit *g, int ng)
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

/* ---- the output file ----------------------------------------------------- */

/* The libconfig file: a comment naming the inputs and rows, then one
 * calibration group with a member per GPU. */
static void
write_config(struct strbuf *sb, const struct gpu_fit *g, int ng,
             int ninputs, char **inputs)
{
	strbuf_addstr(sb, "# paratune calibration (paratune.conf(5)), "
	              "written by paratune calibrate from:\n");
	for (int i = 0; i < ninputs; i++)
		strbuf_addf(sb, "#   %s\n", inputs[i]);
	for (int k = 0; k < ng; k++) {
		strbuf_addf(sb, "# %s: %d rows:", g[k].gpu, g[k].n);
		for (int i = 0; i < g[k].n; i++)
			strbuf_addf(sb, "%s%s", i % 4 ? " " : "\n#   ",
			            g[k].rows[i].where);
		strbuf_addch(sb, '\n');
	}
	strbuf_addstr(sb, "calibration = {\n");
	for (int k = 0; k < ng; k++)
		calibrate_write_entry(sb, g[k].gpu, &g[k].fit.cal);
	strbuf_addstr(sb, "};\n");
}

/* ---- the command --------------------------------------------------------- */

/* Whether path is a directory. */
static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Every input into in; 0 or the first error's exit code. */
static int
read_inputs(struct cmd_ctx *ctx, int n, char **inputs, const char *gpu,
            struct calib_input *in)
{
	struct plan_opts po = PLAN_OPTS(ctx);
	int status = 0;

	po.quiet = true;
	for (int i = 0; i < n && status == 0; i++)
		status = is_dir(inputs[i])
		         ? calib_read_dir(in, inputs[i], gpu)
		         : calib_read_csv(in, inputs[i], &po, gpu);
	return status;
}

/* The constants --fix names (KEY or KEY,KEY...) into o->fixed; 0 or
 * EXIT_USAGE after an error. */
static int
parse_fixed(const struct str_list *fix, struct calib_opts *o)
{
	for (int i = 0; i < fix->n; i++) {
		char *list = xstrdup(fix->v[i]), *save = NULL;

		for (char *k = strtok_r(list, ",", &save); k;
		     k = strtok_r(NULL, ",", &save)) {
			int p = calibration_param_find(k);

			if (p < 0) {
				error("--fix '%s': not a constant of calibrate "
				      "(its table names them)", k);
				free(list);
				return EXIT_USAGE;
			}
			o->fixed[p] = true;
		}
		free(list);
	}
	return 0;
}

/* Check the options; 0 or EXIT_USAGE after an error. */
static int
check_options(const struct calib_opts *o, const char *name)
{
	if (o->folds < 2 || o->folds > FOLDS_MAX) {
		error("--folds %d is out of range (2 to %d)", o->folds,
		      FOLDS_MAX);
		return EXIT_USAGE;
	}
	if (!(o->rank_weight >= 0 && o->rank_weight <= RANK_WEIGHT_MAX)) {
		error("--rank-weight %g is out of range (0 to %g)",
		      o->rank_weight, RANK_WEIGHT_MAX);
		return EXIT_USAGE;
	}
	if (strlen(name) >= sizeof(((struct calibration *)0)->name) ||
	    !*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
	                    "OPQRSTUVWXYZ0123456789._-") != strlen(name) ||
	    name[0] == '.' || name[0] == '-') {
		error("--name '%s': letters, digits, '.', '_' and '-', not "
		      "starting with '.' or '-', at most 63", name);
		return EXIT_USAGE;
	}
	return 0;
}

static int
cmd_calibrate_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *out = NULL, *gpu = NULL, *name = "calibrated";
	struct str_list fix = STR_LIST_INIT, group = STR_LIST_INIT;
	struct fit_how how = { CALIB_OPTS_INIT, NULL, 0, &group };
	struct calib_opts *co = &how.opts;
	int status = EXIT_OK, n, ng = 0, hand_set = 0;
	const struct option opts[] = {
		OPT_STR('o', "output", &out, "FILE",
		        "write the calibration group to FILE"),
		OPT_STR(0, "gpu", &gpu, "NAME",
		        "only the rows of this GPU type"),
		OPT_STR(0, "name", &name, "NAME",
		        "the calibration's name (default calibrated)"),
		OPT_INTEGER(0, "folds", &co->folds, "K",
		            "cross-validation folds (default 5)"),
		OPT_NUMBER(0, "rank-weight", &co->rank_weight, "W",
		           "weight of the ordering of each campaign's "
		           "configurations in the fit (default 0: the "
		           "error alone)"),
		OPT_STRLIST(0, "fix", &fix, "KEY[,KEY...]",
		            "keep these constants at their start values"),
		OPT_STRLIST(0, "group", &group, "GROUP",
		            "only the runs of this group (repeatable)"),
		OPT_BOOLEAN(0, "pool", &how.pool,
		            "one fit to the rows of every GPU (not written)"),
		OPT_BOOLEAN(0, "hand-set", &hand_set,
		            "start from the hand-set constants, not the "
		            "shipped defaults (bench/fit-defaults)"),
		OPT_FORMAT_(NULL),
		OPT_FINISH,
	};
	struct calib_input in;
	struct gpu_fit *g = NULL;
	struct strbuf sb = STRBUF_INIT;

	memset(&in, 0, sizeof in);
	if ((n = cmd_parse_args(ctx, &cmd_calibrate_entry, opts, argc, argv, 1,
	                        -1, &status)) < 0)
		goto cleanup;
	if ((status = check_options(co, name)) != 0 ||
	    (status = parse_fixed(&fix, co)) != 0)
		goto cleanup;
	if (how.pool && out) {
		error("--pool with -o: a fit to every GPU's runs is no GPU's "
		      "calibration");
		status = EXIT_USAGE;
		goto cleanup;
	}
	how.start = hand_set ? calibration_hand_set() : calibration_default();
	if ((status = read_inputs(ctx, n, argv + 1, gpu, &in)) != 0)
		goto cleanup;
	if (in.n == 0) {
		error("no measured run%s%s%s in the input", gpu ? " of GPU '" : "",
		      gpu ? gpu : "", gpu ? "'" : "");
		status = EXIT_DATAERR;
		goto cleanup;
	}
	ng = fit_gpus(&in, name, &how, &g);
	if (ng == 0) {
		error("no measured run of the groups named in the input");
		status = EXIT_DATAERR;
		goto cleanup;
	}
	if (out) {
		write_config(&sb, g, ng, n, argv + 1);
		if (write_file_atomic(out, sb.buf, sb.len, 0644) != 0) {
			status = EXIT_CANTCREAT;
			goto cleanup;
		}
	}
	if (ctx->format == FORMAT_JSON)
		print_json(ctx->out, g, ng);
	else
		for (int k = 0; k < ng; k++)
			print_table(ctx->out, &g[k], ctx->verbosity > 0);
	if (out && ctx->format != FORMAT_JSON && ctx->verbosity >= 0)
		fprintf(ctx->out, "wrote %s\n", out);
cleanup:
	str_list_clear(&fix);
	str_list_clear(&group);
	free_gpus(g, ng);
	strbuf_release(&sb);
	calib_input_release(&in);
	return status;
}

const struct cmd_entry cmd_calibrate_entry = {
	"calibrate", NULL, "INPUT...",
	"fit the estimator's constants to measured runs",
	cmd_calibrate_exec,
};
