/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * search-adapt.c - the adaptive search's learning loop (search.h): refit
 * the correction to what the campaign measured, re-rank what is queued,
 * and stop when nothing queued can win or the budget is spent.
 *
 * Everything it decides is a store event written before it takes
 * effect (refit, stopped, skipped); the order of submission is not: it
 * is a function of the state (the last refit) and candidates.csv, so a
 * command that runs after a crash computes the same order again.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "error.h"
#include "results.h"
#include "runner.h"
#include "search.h"
#include "xalloc.h"

/* A queued candidate with what the search expects of it. */
struct pending {
	struct cand_status *c;
	double now_tps;   /* corrected prediction, seconds per sample */
	double opt_tps;   /* the low end of its interval, the same way */
};

/* ---- refit ------------------------------------------------------------- */

/* Fit the correction to res's measured runs and record it when they
 * are not the runs the last refit saw.  0 or -1. */
static int
search_refit(struct store *s, const struct results *res, FILE *out,
             int verbosity)
{
	double (*x)[FIT_NTERMS] = xcalloc((size_t)res->n + 1, sizeof(*x));
	double *y = xcalloc((size_t)res->n + 1, sizeof(*y));
	struct fit_model m;
	int n = 0, ret = 0;

	for (int i = 0; i < res->n; i++) {
		const struct result_row *row = &res->v[i];

		/* Steps slowed by stragglers, or of another batch than
		 * the layout's, would skew the fit. */
		if (row->kind != RESULT_MEASURED ||
		    results_row_times_suspect(row) ||
		    !(row->cand.pred_step_s > 0) ||
		    !(row->m.step_mean_s > 0))
			continue;
		fit_features(&row->cand.layout, x[n]);
		y[n++] = log(row->m.step_mean_s / row->cand.pred_step_s);
	}
	if (n > 0 && n != s->st.model.runs &&
	    fit_solve((const double (*)[FIT_NTERMS])x, y, n, &m) == 0) {
		ret = store_refit(s, &m);
		if (ret == 0 && verbosity >= 0)
			fprintf(out, "refit on %d measured run%s: predictions "
			        "x%.3f, spread %.1f %%\n", n, n == 1 ? "" : "s",
			        fit_factor(&m), 100.0 * m.sigma);
	}
	free(x);
	free(y);
	return ret;
}

/* ---- ranking ----------------------------------------------------------- */

/* The corrected and optimistic seconds per sample of every queued
 * candidate; *n gets how many.  The caller frees the array. */
static struct pending *
pending_list(struct store *s, const struct results *res, int *n)
{
	struct pending *p = xcalloc((size_t)s->st.n + 1, sizeof(*p));
	/* One lookup a row: linear ones made resume quadratic. */
	struct cand_status **by_name = state_by_name(&s->st);

	*n = 0;
	for (int i = 0; i < res->n; i++) {
		const struct candidate_row *row = &res->v[i].cand;
		struct cand_status *c = state_by_name_find(by_name, s->st.n,
		                                           row->name);
		double gbs = row->layout.gbs > 0 ? row->layout.gbs : 1;

		if (c == NULL || c->state != CS_QUEUED)
			continue;
		p[*n].c = c;
		p[*n].now_tps = fit_predict(&s->st.model, &row->layout,
		                            row->pred_step_s) / gbs;
		p[*n].opt_tps = fit_optimistic_interval(&s->st.model,
		        &row->layout, row->pred_step_s, row->pred_step_s_low,
		        calibration_fitted(&s->settings.calibration)) / gbs;
		/* No prediction (0): it cannot be ranked, so it goes last
		 * and is never ruled out by one. */
		if (!(row->pred_step_s > 0))
			p[*n].now_tps = p[*n].opt_tps = HUGE_VAL;
		(*n)++;
	}
	free(by_name);
	return p;
}

/* The base first, then the fastest expected, then the plan's rank. */
static int
compare_pending(const void *pa, const void *pb)
{
	const struct pending *a = pa, *b = pb;

	if (a->c->base != b->c->base)
		return a->c->base ? -1 : 1;
	if (a->now_tps != b->now_tps)
		return a->now_tps < b->now_tps ? -1 : 1;
	return (a->c->rank > b->c->rank) - (a->c->rank < b->c->rank);
}

/*
 * Keep what can still win: a candidate whose optimistic seconds per
 * sample beat the best measured by more than search.min_gain, and the
 * base, which results compare every run to.  While nothing is
 * measured, everything can.  Any measured run sets the bar, not only
 * the base's: a faster candidate that ended while the base still ran
 * let one that could not beat it take the free slot.  Nothing is
 * skipped while a job is active (search_choose): held back, each is
 * judged again once that job's measurement and its refit are in.
 * Returns how many are kept (moved to the front).
 */
static int
keep_promising(const struct store *s, const struct results *res,
               struct pending *p, int n)
{
	double best, bar;
	int kept = 0;

	if (res->best < 0)
		return n;
	best = results_time_per_sample(&res->v[res->best]);
	bar = best * (1.0 - s->settings.search.min_gain);
	for (int i = 0; i < n; i++)
		if (p[i].opt_tps < bar || p[i].c->base)
			p[kept++] = p[i];
	return kept;
}

int
search_promising(struct store *s, const struct results *res)
{
	struct pending *p;
	int n, kept;

	if (s->settings.search.strategy != STRATEGY_ADAPTIVE ||
	    s->st.stop_reason[0])
		return -1;
	p = pending_list(s, res, &n);
	kept = keep_promising(s, res, p, n);
	free(p);
	return kept;
}

/* ---- stopping ---------------------------------------------------------- */

/*
 * Record that the search stops, then skip every queued candidate.  A
 * search that stopped already (a run killed among its skipped events,
 * or a later submit that queued more) only skips: it stays stopped.
 */
static int
search_stop(struct store *s, const char *reason, FILE *out, int verbosity)
{
	bool now = s->st.stop_reason[0] == '\0';
	int skipped = 0;

	if (now && store_stopped(s, reason) != 0)
		return -1;
	for (int i = 0; i < s->st.n; i++) {
		struct cand_status *c = &s->st.v[i];

		if (c->state != CS_QUEUED)
			continue;
		if (store_skipped(s, c, reason) != 0)
			return -1;
		skipped++;
	}
	if (verbosity >= 0 && (now || skipped > 0))
		fprintf(out, "search stopped (%s): %d candidate%s skipped\n",
		        reason, skipped, skipped == 1 ? "" : "s");
	return 0;
}

/* The campaign's cap on GPU-hours: the smaller of limits.gpu_hours and
 * policy.max_gpu_hours that is set; 0 when neither is. */
static double
gpu_hours_cap(const struct settings *k)
{
	double a = k->limits.gpu_hours, b = k->policy.max_gpu_hours;

	return a > 0 && (b <= 0 || a < b) ? a : b > 0 ? b : 0;
}

/* The key that sets gpu_hours_cap. */
static const char *
gpu_hours_cap_key(const struct settings *k)
{
	return gpu_hours_cap(k) == k->limits.gpu_hours ? "limits.gpu_hours"
	                                               : "policy.max_gpu_hours";
}

/*
 * How many more jobs the budget lets start now: each may be charged its
 * whole time limit (budget.h), on top of what the campaign used and
 * what its active jobs may still take.  -1: no cap.
 */
static int
budget_room(const struct store *s)
{
	const struct settings *k = &s->settings;
	double cap = gpu_hours_cap(k), job = budget_job_limit(k), room;
	struct budget b;

	if (cap <= 0 || job <= 0)
		return -1;
	budget_compute(s, (long)time(NULL), &b);
	room = cap - (b.committed - b.queued);
	return room < job ? 0 : (int)fmin(floor(room / job), (double)s->st.n);
}

/* Why the budget stops the search, in numbers: "search stopped
 * (budget)" alone did not say that a cap below one job's time limit
 * lets nothing run, which only a new plan with a larger cap or a
 * shorter limit mends. */
static void
budget_stop_note(const struct store *s, FILE *out, int verbosity)
{
	const struct settings *k = &s->settings;
	double cap = gpu_hours_cap(k);
	const char *key = gpu_hours_cap_key(k);
	struct budget b;

	if (verbosity < 0)
		return;
	budget_compute(s, (long)time(NULL), &b);
	fprintf(out, "budget: %.1f of %g GPU-hours used (%s); a job may "
	        "take %.1f at its time limit\n", b.committed - b.queued, cap,
	        key, budget_job_limit(k));
	if (cap < budget_job_limit(k))
		fprintf(out, "budget: not one job fits: plan again with a "
		        "larger %s or a shorter limits.max_minutes_per_run\n",
		        key);
}

/* ---- one step ---------------------------------------------------------- */

/*
 * Why nothing queued is submitted while jobs are active: none can win
 * (n 0), or one more job would pass the GPU-hour cap (room 0).  resume
 * submitted nothing and said nothing, while status said that resume
 * submits them (a held job kept a campaign so for ever).
 */
static void
say_wait(const struct runner *r, int queued, int n, int room, int active)
{
	const struct settings *k = &r->store->settings;
	const char *s = active == 1 ? "" : "s";

	if (r->verbosity < 0 || queued == 0 || active == 0)
		return;
	if (n == 0)
		fprintf(r->out, "search: none of the %d queued can beat the "
		        "best measured by search.min_gain (%g %%): it waits "
		        "for %d active job%s\n", queued,
		        100.0 * k->search.min_gain, active, s);
	else if (room == 0)
		fprintf(r->out, "search: one more job at its time limit would "
		        "pass %s = %g GPU-hours: it waits for %d active "
		        "job%s\n", gpu_hours_cap_key(k), gpu_hours_cap(k),
		        active, s);
}

/*
 * Decide what to submit from the ranked, promising candidates p[0..n):
 * set r->order, or stop the search when nothing can run any more and no
 * job is active (an active job's measurement could still change the
 * answer; its end frees budget).  0 or -1.
 */
static int
search_choose(struct runner *r, struct pending *p, int queued, int n)
{
	struct store *s = r->store;
	int room = budget_room(s), active = store_active_count(&s->st);

	if (queued > 0 && n == 0 && active == 0)
		return search_stop(s, STORE_STOP_NO_GAIN, r->out, r->verbosity);
	say_wait(r, queued, n, room, active);
	if (n > 0 && room == 0 && active == 0) {
		budget_stop_note(s, r->out, r->verbosity);
		return search_stop(s, STORE_STOP_BUDGET, r->out, r->verbosity);
	}
	if (room >= 0 && n > room)
		n = room;
	r->order = xcalloc((size_t)n + 1, sizeof(struct cand_status *));
	for (int i = 0; i < n; i++)
		r->order[i] = p[i].c;
	r->norder = n;
	return 0;
}

int
search_adapt(struct runner *r)
{
	struct results_opts o = RESULTS_OPTS_INIT;
	struct results res;
	struct pending *p;
	int status, n, kept;

	if (r->store->settings.search.strategy != STRATEGY_ADAPTIVE)
		return 0;
	/* Stopped is final: what is still queued is skipped, never run. */
	if (r->store->st.stop_reason[0]) {
		r->order = xcalloc(1, sizeof(struct cand_status *));
		return search_stop(r->store, r->store->st.stop_reason, r->out,
		                   r->verbosity) ? EXIT_IOERR : 0;
	}
	status = results_load(&res, r->store->dir, &o);
	if (status != 0) {
		results_release(&res);
		return status;
	}
	/* candidates.csv shows what the last refit predicts: rewritten
	 * when it does not yet (after this refit, or one that a killed run
	 * journaled but did not write out). */
	if (search_refit(r->store, &res, r->out, r->verbosity) != 0 ||
	    store_write_predictions(r->store->dir, &r->store->st.model) != 0) {
		results_release(&res);
		return EXIT_IOERR;
	}
	p = pending_list(r->store, &res, &n);
	qsort(p, (size_t)n, sizeof(*p), compare_pending);
	kept = keep_promising(r->store, &res, p, n);
	status = search_choose(r, p, n, kept) != 0 ? EXIT_IOERR : 0;
	free(p);
	results_release(&res);
	return status;
}
