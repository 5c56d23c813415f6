/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * results.c - measure, rank and say which configuration to train with,
 * over the rows results-row.c joins from each candidate's state and logs.
 *
 * One struct logparse (the built-in patterns and the campaign's
 * results.patterns, compiled once) reads every log of the campaign.
 */
#include "autoconfig.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "estimate.h"
#include "budget.h"
#include "results.h"
#include "safe-text.h"
#include "util.h"
#include "xalloc.h"

/* ---- text from logs ------------------------------------------------------ */

/*
 * Copy s as valid UTF-8 showing nothing a terminal acts on: C0, DEL and
 * C1 controls and the bidi controls that reorder a line become spaces
 * (safe_text_shown), invalid bytes U+FFFD.
 */
char *
results_clean_text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(s);

	while (n > 0) {
		unsigned cp;
		size_t len = utf8_decode(s, n, &cp);

		if (len == 0) {
			strbuf_addstr(&sb, "\xef\xbf\xbd"); /* U+FFFD */
			len = 1;
		} else if (!safe_text_shown(cp)) {
			strbuf_addch(&sb, ' ');
		} else {
			strbuf_add(&sb, s, len);
		}
		s += len;
		n -= len;
	}
	return strbuf_detach(&sb, NULL);
}

/* ---- measuring ----------------------------------------------------------- */

/* Every metric unknown (NAN). */
static void
metrics_clear(struct result_metrics *m)
{
	m->steps = 0;
	m->step_mean_s = m->step_median_s = m->step_stdev_s = NAN;
	m->samples_per_s = m->tokens_per_s_per_gpu = NAN;
	m->tflops_per_gpu = m->tflops_per_gpu_nemo = m->mfu = NAN;
	m->train_days = m->gpu_hours = m->cost = m->pred_error = NAN;
}


/* The plan's layout, not campaign.conf: its nodes may have been edited
 * after the jobs ran (the store warns of it), and the job scripts were
 * rendered at plan time. */
double
results_row_gpus(const struct settings *c, const struct result_row *row)
{
	const struct layout *l = &row->cand.layout;
	double gpus = (double)l->tp * l->pp * l->cp * l->dp;

	return gpus > 0 ? gpus : (double)c->nodes * c->gpus_per_node;
}

double
results_row_gbs(const struct result_row *row)
{
	return row->ran_gbs > 0 ? (double)row->ran_gbs
	                        : (double)row->cand.layout.gbs;
}

bool
results_row_other_gbs(const struct result_row *row)
{
	return row->ran_gbs > 0 && row->ran_gbs != row->cand.layout.gbs;
}

bool
results_row_times_suspect(const struct result_row *row)
{
	return results_class_times_suspect(row->failure) ||
	       results_row_other_gbs(row) || results_mfu_impossible(row);
}

/* What a measured row's step times mean for the whole training. */
void
results_measure(const struct settings *c, double cost_per_gpu_hour,
                const struct log_step_stats *st, struct result_row *row)
{
	struct result_metrics *m = &row->m;
	double gpus = results_row_gpus(c, row);
	double gbs = results_row_gbs(row), seq = c->seq_length;
	double mean = st->mean_s, peak = c->gpu.peak_tflops[c->precision];
	/* The prediction is for the planned batch, not another one. */
	double pred = results_row_other_gbs(row) ? 0 : row->cand.pred_step_s;
	double flops;

	metrics_clear(m);
	m->steps = st->counted;
	m->step_mean_s = mean;
	m->step_median_s = st->median_s;
	m->step_stdev_s = st->stdev_s;
	if (!(mean > 0))
		return;
	m->samples_per_s = gbs / mean;
	m->tokens_per_s_per_gpu = gbs * seq / mean / gpus;
	/* The FLOPs of one sequence times the sequences: a batch size a log
	 * reports need not fit an int. */
	flops = estimate_flops_per_step(&c->model, c->seq_length, 1) * gbs;
	m->tflops_per_gpu = flops / mean / gpus / 1e12;
	flops = estimate_flops_per_step_nemo(&c->model, c->seq_length, 1) *
	        gbs;
	m->tflops_per_gpu_nemo = flops / mean / gpus / 1e12;
	if (peak > 0)
		m->mfu = m->tflops_per_gpu / peak;
	/* Steps for the whole training: its tokens over the tokens of one
	 * step (gbs sequences of seq tokens). */
	m->train_days = c->num_tokens_in_b * 1e9 / (gbs * seq) * mean /
	                86400.0;
	m->gpu_hours = m->train_days * 24.0 * gpus;
	if (cost_per_gpu_hour > 0)
		m->cost = m->gpu_hours * cost_per_gpu_hour;
	if (pred > 0)
		m->pred_error = (pred - mean) / mean;
}

/* Classes that end a run without condemning its layout or the step
 * times it measured. */
bool
results_class_recommendable(enum failure_class c)
{
	switch (c) {
	case FAILURE_NONE:
	case FAILURE_TIMEOUT:           /* the time limit, after its steps */
	case FAILURE_HUNG_AFTER_FINISH: /* at exit, after every step */
	case FAILURE_FAILED_AFTER_FINISH:
	case FAILURE_NODE_FAIL:         /* the cluster's doing */
	case FAILURE_PREEMPTED:
	case FAILURE_CANCELLED:
		return true;
	default:
		/* straggler is the cluster's doing too, but the slow GPUs
		 * slowed the steps it would be recommended by. */
		return false;
	}
}

bool
results_class_times_suspect(enum failure_class c)
{
	return c == FAILURE_STRAGGLER;
}

bool
results_mfu_impossible(const struct result_row *r)
{
	return isfinite(r->m.mfu) && r->m.mfu > RESULTS_MFU_MAX;
}

/* The ranking key: mean step time over the global batch it ran. */
double
results_time_per_sample(const struct result_row *r)
{
	return r->m.step_mean_s / results_row_gbs(r);
}

/* Measured peak memory, else the planner's estimate. */
double
results_memory_gib(const struct result_row *r)
{
	return isfinite(r->mem_peak_gib) && r->mem_peak_gib > 0
	       ? r->mem_peak_gib : r->cand.est_memory_gib;
}

/* ---- ranking ------------------------------------------------------------- */

/* Fastest first; ties to the base (switching to a configuration
 * exactly as fast gains nothing), then by the planner's rank, then by
 * name (qsort on pointers to rows). */
static int
compare_rows(const void *pa, const void *pb)
{
	const struct result_row *a = *(const struct result_row *const *)pa;
	const struct result_row *b = *(const struct result_row *const *)pb;
	double x = results_time_per_sample(a), y = results_time_per_sample(b);

	if (x != y)
		return x < y ? -1 : 1;
	if (a->cand.base != b->cand.base)
		return a->cand.base ? -1 : 1;
	if (a->cand.rank != b->cand.rank)
		return a->cand.rank < b->cand.rank ? -1 : 1;
	return strcmp(a->cand.name, b->cand.name);
}

/* Sort the measured indices through an array of row pointers. */
static void
sort_ranked(struct results *res)
{
	/* An array of pointers: sizeof(*rows) is a pointer's size. */
	const struct result_row **rows = xcalloc((size_t)res->nranked + 1,
		sizeof(*rows)); /* NOLINT(bugprone-sizeof-expression) */

	for (int i = 0; i < res->nranked; i++)
		rows[i] = &res->v[res->ranked[i]];
	/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
	qsort(rows, (size_t)res->nranked, sizeof(*rows), compare_rows);
	for (int i = 0; i < res->nranked; i++)
		res->ranked[i] = (int)(rows[i] - res->v);
	free(rows);
}

/* Cost for the cheapest pick; GPU-hours when no rate is known. */
static double
row_cost(const struct result_row *r)
{
	return isfinite(r->m.cost) ? r->m.cost : r->m.gpu_hours;
}

/* Best, cheapest and roomy among the recommendable, in ranked order. */
static void
pick_recommendations(struct results *res)
{
	double limit = (1.0 - RESULTS_HEADROOM) * res->capacity_gib;

	for (int i = 0; i < res->nranked; i++) {
		int k = res->ranked[i];
		const struct result_row *r = &res->v[k];

		if (!r->recommendable)
			continue;
		if (res->best < 0)
			res->best = k;
		if (res->cheapest < 0 ||
		    row_cost(r) < row_cost(&res->v[res->cheapest]))
			res->cheapest = k;
		if (res->roomy < 0 && results_memory_gib(r) <= limit)
			res->roomy = k;
	}
}

/* The variance of r's mean time per sample: the sample variance of its
 * step times over its steps, scaled as the mean is; NAN when the
 * standard deviation is unknown. */
static double
mean_variance(const struct result_row *r)
{
	double se = results_time_per_sample(r) * r->m.step_stdev_s /
	            r->m.step_mean_s;

	return r->m.steps > 0 ? se * se / r->m.steps : NAN;
}

bool
results_within_noise(const struct result_row *b, const struct result_row *x)
{
	double tb = results_time_per_sample(b);
	double diff = fabs(tb - results_time_per_sample(x));
	double se = sqrt(mean_variance(b) + mean_variance(x));

	if (diff <= RESULTS_NOISE_REL * tb)
		return true;
	return isfinite(se) && diff <= RESULTS_NOISE_SE * se;
}

/* Why best and base cannot be compared; NULL when they can.  A base
 * measured but not recommendable (its steps slowed by stragglers, a
 * run of another global batch size, a failure that condemns its
 * layout, an impossible MFU) has times no saving can be counted from:
 * "1.33x slower; switching costs" came of a straggler's. */
static const char *
no_comparison(const struct results *res)
{
	const struct result_row *b;

	if (res->best < 0)
		return "no_best";
	if (res->base < 0)
		return "no_base";
	b = &res->v[res->base];
	if (b->kind != RESULT_MEASURED)
		return "base_not_measured";
	if (results_class_times_suspect(b->failure))
		return "base_times_suspect";
	if (results_row_other_gbs(b))
		return "base_other_gbs";
	if (!b->recommendable)
		return "base_not_recommendable";
	return NULL;
}

/* Best against base, when both were measured and the base's times
 * count. */
static void
compare_with_base(struct results *res)
{
	const struct result_row *b, *x;

	res->speedup = res->saved_days = NAN;
	res->saved_gpu_hours = res->saved_cost = NAN;
	res->within_noise = false;
	res->no_comparison = no_comparison(res);
	if (res->no_comparison)
		return;
	b = &res->v[res->base];
	x = &res->v[res->best];
	res->within_noise = res->best != res->base &&
	                    results_within_noise(b, x);
	res->speedup = results_time_per_sample(b) /
	               results_time_per_sample(x);
	res->saved_days = b->m.train_days - x->m.train_days;
	res->saved_gpu_hours = b->m.gpu_hours - x->m.gpu_hours;
	res->saved_cost = b->m.cost - x->m.cost;
}

/* Rank the measured rows and pick the recommendations. */
void
results_rank(struct results *res)
{
	int place = 0;

	free(res->ranked);
	res->ranked = xcalloc((size_t)res->n + 1, sizeof(*res->ranked));
	res->nranked = 0;
	memset(res->count, 0, sizeof(res->count));
	res->best = res->base = res->cheapest = res->roomy = -1;
	for (int i = 0; i < res->n; i++) {
		res->count[res->v[i].kind]++;
		if (res->v[i].cand.base && res->base < 0)
			res->base = i;
		if (res->v[i].kind == RESULT_MEASURED)
			res->ranked[res->nranked++] = i;
	}
	sort_ranked(res);
	for (int i = 0; i < res->n; i++)
		res->v[i].place = 0;
	for (int i = 0; i < res->nranked; i++)
		res->v[res->ranked[i]].place = ++place;
	pick_recommendations(res);
	compare_with_base(res);
}

/* ---- loading ------------------------------------------------------------- */

/* Compile the campaign's results.patterns into lp; EXIT_CONFIG when one
 * does not compile (the loader checked them: a hand-edited file). */
static int
add_patterns(const struct results *res, struct logparse *lp)
{
	const struct settings *c = &res->run.settings;

	for (int i = 0; i < c->results.npatterns; i++) {
		const struct log_pattern *p = &c->results.patterns[i];
		char err[256];

		if (logparse_add_pattern(lp, p->name, p->regex, err,
		                         sizeof err) != 0) {
			error("%s/campaign.conf: results.patterns '%s': %s",
			      res->run.dir, p->name, err);
			return EXIT_CONFIG;
		}
	}
	return 0;
}

/* Whether name is a column of results.csv already, or the key "status"
 * that the JSON's best and base objects add. */
static bool
fixed_column(const char *name)
{
	int n;
	const enum results_col *cols = results_columns(RESULTS_CSV, &n);

	if (!strcmp(name, "status"))
		return true;
	for (int i = 0; i < n; i++)
		if (!strcmp(results_col_name(cols[i]), name))
			return true;
	return false;
}

/* The columns the counting patterns of lp add to results.csv: named
 * after the pattern, "pattern_NAME" where a column has the name. */
static void
pattern_columns(struct results *res, const struct logparse *lp)
{
	res->npattern_cols = logparse_pattern_count(lp);
	res->pattern_cols = xcalloc((size_t)res->npattern_cols + 1,
	                            sizeof(*res->pattern_cols));
	for (int i = 0; i < res->npattern_cols; i++) {
		const char *name = logparse_pattern_name(lp, i);

		res->pattern_cols[i] = fixed_column(name)
		                       ? xasprintf("pattern_%s", name)
		                       : xstrdup(name);
	}
}

/* Settings that come from the options or the campaign. */
static void
results_settings(struct results *res, const struct results_opts *o)
{
	const struct settings *c = &res->run.settings;

	res->cost_per_gpu_hour = o->cost_per_gpu_hour >= 0
	                         ? o->cost_per_gpu_hour
	                         : c->cost_per_gpu_hour;
	res->currency = xstrdup(o->currency ? o->currency : c->currency);
	/* c->gpu carries memory.gpu_memory_gb already (config-gpu.c). */
	res->capacity_gib = c->gpu.memory_gib;
	res->peak_tflops = c->gpu.peak_tflops[c->precision];
}

/* Whether `cancel` ended any candidate: the campaign did not run out. */
static bool
any_cancelled(const struct state *st)
{
	for (int i = 0; i < st->n; i++)
		if (st->v[i].state == CS_CANCELLED)
			return true;
	return false;
}

/* Whether no candidate ever had a job: Slurm rejected every one that
 * was submitted ("every selected candidate ran" said the opposite). */
static bool
none_ran(const struct state *st)
{
	for (int i = 0; i < st->n; i++)
		if (st->v[i].job_id != 0)
			return false;
	return true;
}

/* What the campaign spent, against running every candidate. */
static void
search_cost(struct results *res, const struct candidate_table *t)
{
	const struct settings *c = &res->run.settings;
	struct budget b;

	budget_compute(&res->run, (long)time(NULL), &b);
	res->campaign_gpu_hours = b.used;
	res->exhaustive_gpu_hours_estimate = 0;
	for (int i = 0; i < t->n; i++)
		res->exhaustive_gpu_hours_estimate +=
			budget_job_expected(c, t->v[i].pred_step_s);
	for (int i = 0; i < res->run.st.n; i++) {
		const struct cand_status *s = &res->run.st.v[i];

		res->pruned += s->state == CS_PRUNED;
		res->proved_fits += s->fits_by[0] != 0;
		if (s->state == CS_SKIPPED)
			*(strcmp(s->reason, STORE_STOP_BUDGET)
			  ? &res->skipped_no_gain : &res->skipped_budget) += 1;
	}
	if (res->run.st.stop_reason[0])
		memcpy(res->stop_reason, res->run.st.stop_reason,
		       sizeof res->stop_reason);
	else if (store_all_final(&res->run.st) &&
	         store_any_selected(&res->run.st))
		strcpy(res->stop_reason, any_cancelled(&res->run.st)
		                         ? "cancelled"
		                         : none_ran(&res->run.st) ? "rejected"
		                         : "all_run");
}

/* Why the site's cap holds the queued candidates back; NULL if not. */
static char *
held_text(const struct store *s, const struct settings *site)
{
	struct strbuf sb = STRBUF_INIT;

	budget_held_text(s, site, (long)time(NULL), &sb);
	if (sb.len == 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* The GPUs and nodes the plan gave the candidates (results.h). */
static void
planned_gpus(struct results *res)
{
	const struct settings *c = &res->run.settings;
	double gpus = res->n > 0 ? results_row_gpus(c, &res->v[0]) : 0;

	for (int i = 1; i < res->n; i++)
		if (results_row_gpus(c, &res->v[i]) != gpus)
			gpus = 0;
	res->gpus = gpus > 0 && gpus <= INT_MAX ? (int)gpus : 0;
	res->nodes = res->gpus > 0 && c->gpus_per_node > 0 &&
	             res->gpus % c->gpus_per_node == 0
	             ? res->gpus / c->gpus_per_node : c->nodes;
}

/* Load a campaign directory and join, measure and rank. */
int
results_load(struct results *res, const char *dir,
             const struct results_opts *o)
{
	struct candidate_table t;
	struct logparse lp;
	struct cand_status **by_name;
	int status;

	memset(res, 0, sizeof(*res));
	res->best = res->base = res->cheapest = res->roomy = -1;
	res->no_comparison = "no_best";
	res->speedup = res->saved_days = NAN;
	res->saved_gpu_hours = res->saved_cost = NAN;
	status = store_open(&res->run, dir, STORE_READ_ONLY |
	                    (o->said ? STORE_SAID : 0));
	if (status != 0)
		return status;
	results_settings(res, o);
	if (store_read_candidates(res->run.dir, &t) != 0)
		return EXIT_DATAERR;
	logparse_init(&lp);
	status = add_patterns(res, &lp);
	if (status == 0)
		pattern_columns(res, &lp);
	res->v = xcalloc((size_t)t.n + 1, sizeof(*res->v));
	/* One index for every row: a linear look-up each made loading
	 * quadratic in the candidates (4 minutes for 100,000). */
	by_name = state_by_name(&res->run.st);
	for (int i = 0; status == 0 && i < t.n; i++) {
		struct result_row *row = &res->v[res->n++];

		row->cand = t.v[i];
		row->mem_peak_gib = NAN;
		metrics_clear(&row->m);
		results_row_collect(res, &lp, row,
		                    state_by_name_find(by_name,
		                                       res->run.st.n,
		                                       row->cand.name));
	}
	free(by_name);
	logparse_release(&lp);
	planned_gpus(res);
	if (status == 0)
		candidates_missing_from(&t, &res->run.st);
	search_cost(res, &t);
	candidate_table_release(&t);
	if (status == 0)
		results_rank(res);
	if (o->site)
		res->held = held_text(&res->run, o->site);
	return status;
}

/* Free everything results_load made. */
void
results_release(struct results *res)
{
	for (int i = 0; i < res->n; i++) {
		free(res->v[i].evidence);
		free(res->v[i].log);
		free(res->v[i].measured_log);
		free(res->v[i].note);
		for (int k = 0; res->v[i].pattern_values &&
		                k < res->npattern_cols; k++)
			free(res->v[i].pattern_values[k]);
		free(res->v[i].pattern_values);
	}
	for (int k = 0; k < res->npattern_cols; k++)
		free(res->pattern_cols[k]);
	free(res->pattern_cols);
	free(res->held);
	free(res->v);
	free(res->ranked);
	free(res->currency);
	if (res->run.dir)
		store_close(&res->run, false);
	memset(res, 0, sizeof(*res));
}
