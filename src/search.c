/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * search.c - what a run proves about the memory of the candidates not
 * run yet (search.h): an out-of-memory run prunes those that need at
 * least its memory, a completed run clears those planned as oom-risk
 * that need at most its memory.  One monotone relation serves both.
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "logparse.h"
#include "runner.h"
#include "safe-text.h"
#include "search.h"
#include "xalloc.h"

/* Memory saved by recomputation, least first: none keeps every
 * activation, selective drops attention's, full keeps layer inputs. */
static int
recompute_saving(enum recompute r)
{
	return r == RECOMPUTE_FULL ? 2 : r == RECOMPUTE_SELECTIVE ? 1 : 0;
}

/* The layout with what the relation compares set aside. */
static struct layout
rest_of(const struct layout *l)
{
	struct layout r = *l;

	r.tp = r.pp = r.cp = r.ep = r.dp = r.mbs = 0;
	r.etp = 0;
	r.recompute = RECOMPUTE_NONE;
	r.recompute_layers = 0;
	r.recompute_method = (enum recompute_method)0;
	r.sequence_parallel = false;
	return r;
}

static bool
same_rest(const struct layout *a, const struct layout *b)
{
	struct layout x = rest_of(a), y = rest_of(b);

	return x.vp == y.vp && x.gbs == y.gbs &&
	       x.distributed_optimizer == y.distributed_optimizer &&
	       x.attention == y.attention &&
	       x.account_embedding == y.account_embedding &&
	       x.account_loss == y.account_loss &&
	       x.fp8_recipe == y.fp8_recipe &&
	       x.fp8_param_gather == y.fp8_param_gather &&
	       x.fp8_dot_product_attention == y.fp8_dot_product_attention &&
	       x.cuda_graphs == y.cuda_graphs &&
	       x.tp_comm_overlap == y.tp_comm_overlap &&
	       x.overlap_grad_reduce == y.overlap_grad_reduce &&
	       x.overlap_param_gather == y.overlap_param_gather &&
	       x.fsdp == y.fsdp && x.cp_comm == y.cp_comm &&
	       x.moe_grouped_gemm == y.moe_grouped_gemm &&
	       x.moe_dispatcher == y.moe_dispatcher &&
	       x.moe_a2a_overlap == y.moe_a2a_overlap &&
	       x.cuda_graph_full_iteration == y.cuda_graph_full_iteration &&
	       x.offload_layers == y.offload_layers &&
	       x.first_stage_layers == y.first_stage_layers &&
	       x.last_stage_layers == y.last_stage_layers &&
	       x.pipeline_layout == y.pipeline_layout;
}

bool
search_needs_more_memory(const struct layout *y, const struct layout *x)
{
	/* Full recompute of fewer layers saves less: compare the counts
	 * only when both recompute fully (0 means every layer). */
	if (y->recompute == RECOMPUTE_FULL && x->recompute == RECOMPUTE_FULL &&
	    (y->recompute_method != x->recompute_method ||
	     (y->recompute_layers != x->recompute_layers &&
	      (y->recompute_layers == 0 ||
	       (x->recompute_layers != 0 &&
	        y->recompute_layers > x->recompute_layers)))))
		return false;
	return same_rest(y, x) && y->tp <= x->tp && y->pp <= x->pp &&
	       y->cp <= x->cp && y->ep <= x->ep && y->mbs >= x->mbs &&
	       recompute_saving(y->recompute) <= recompute_saving(x->recompute);
}

/* The candidates.csv row of name, or NULL. */
static const struct candidate_row *
row_of(const struct candidate_table *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return &t->v[i];
	return NULL;
}

/* Whether c ran out of memory: Slurm said so, or CUDA did in its log. */
static bool
ran_out_of_memory(const struct store *s, const struct cand_status *c)
{
	struct logparse lp;
	struct log_result r;
	char *rel, *runs;
	bool oom;

	if (c->state == CS_OOM)
		return true;
	if (c->state != CS_FAILED || c->job_id == 0)
		return false;
	rel = xasprintf("%s/slurm-%" PRIu32 ".out", c->name, c->job_id);
	runs = xasprintf("%s/runs", s->dir);
	logparse_init(&lp);
	logparse_regular_file(&lp, runs, rel, &r);
	oom = r.failure == FAILURE_CUDA_OOM || r.failure == FAILURE_HOST_OOM;
	log_result_release(&r);
	logparse_release(&lp);
	free(runs);
	free(rel);
	return oom;
}

/* The queued candidates whose layout needs at least x's memory. */
static int
prune_by(struct store *s, const struct candidate_table *t,
         const struct cand_status *x, const struct candidate_row *xr,
         FILE *out, int verbosity)
{
	int pruned = 0;

	for (int i = 0; i < s->st.n; i++) {
		struct cand_status *y = &s->st.v[i];
		const struct candidate_row *yr;

		if (y->state != CS_QUEUED || y->base ||
		    (yr = row_of(t, y->name)) == NULL || !yr->switches_known ||
		    !search_needs_more_memory(&yr->layout, &xr->layout))
			continue;
		if (pruned == 0 && !ran_out_of_memory(s, x))
			return 0;
		if (store_pruned(s, y, x->name) != 0)
			return -1;
		if (verbosity >= 0)
			safe_text_line(out, "%s: pruned: needs at least the "
			               "memory of %s, which ran out", y->name,
			               x->name);
		pruned++;
	}
	return pruned;
}

int
search_prune(struct store *s, FILE *out, int verbosity)
{
	struct candidate_table t;
	int total = 0, n = 0, queued = 0;

	if (s->settings.search.strategy != STRATEGY_ADAPTIVE)
		return 0;
	for (int i = 0; i < s->st.n; i++)
		queued += s->st.v[i].state == CS_QUEUED;
	if (queued == 0)
		return 0;
	if (store_read_candidates(s->dir, &t) != 0)
		return -2;
	for (int i = 0; i < s->st.n && n >= 0; i++) {
		const struct cand_status *x = &s->st.v[i];
		const struct candidate_row *xr;

		if ((x->state != CS_OOM && x->state != CS_FAILED) ||
		    (xr = row_of(&t, x->name)) == NULL || !xr->switches_known)
			continue;
		n = prune_by(s, &t, x, xr, out, verbosity);
		total += n > 0 ? n : 0;
	}
	candidate_table_release(&t);
	return n < 0 ? -1 : total;
}

/* ---- what a completed run proves ----------------------------------------- */

/* Record that every planned oom-risk candidate whose layout needs at
 * most the memory of x, which completed, fits.  How many, or -1. */
static int
prove_by(struct store *s, const struct candidate_table *t,
         const struct cand_status *x, const struct candidate_row *xr,
         FILE *out, int verbosity)
{
	int proved = 0;

	for (int i = 0; i < s->st.n; i++) {
		struct cand_status *y = &s->st.v[i];
		const struct candidate_row *yr;

		/* The relation read the other way: x needs at least y's. */
		if (y->state != CS_PLANNED || !cand_at_risk(y) ||
		    (yr = row_of(t, y->name)) == NULL || !yr->switches_known ||
		    !search_needs_more_memory(&xr->layout, &yr->layout))
			continue;
		if (store_fits(s, y, x->name) != 0)
			return -1;
		if (verbosity >= 0)
			safe_text_line(out, "%s: fits: needs at most the "
			               "memory of %s, which completed", y->name,
			               x->name);
		proved++;
	}
	return proved;
}

/* Whether the campaign selected every candidate planned safe (submit
 * without --top): one proved to fit is then one it would select. */
static bool
selected_every_safe(const struct state *st)
{
	for (int i = 0; i < st->n; i++)
		if (!st->v[i].unsafe && st->v[i].state == CS_PLANNED)
			return false;
	return true;
}

/* Queue the planned candidates proved to fit, for the search to rank
 * with the others: once the campaign selected every safe one and the
 * search has not stopped, and within the site's policy.max_candidates,
 * which submit holds the selection to.  0 or -1. */
static int
queue_proved(struct store *s, FILE *out, int verbosity)
{
	int cap = s->settings.policy.max_candidates, selected = 0;

	if (s->st.stop_reason[0] || !selected_every_safe(&s->st))
		return 0;
	for (int i = 0; i < s->st.n; i++)
		selected += s->st.v[i].state != CS_PLANNED;
	for (int i = 0; i < s->st.n; i++) {
		struct cand_status *c = &s->st.v[i];

		if (c->state != CS_PLANNED || !c->unsafe || !c->fits_by[0] ||
		    (cap > 0 && selected >= cap))
			continue;
		selected++;
		if (store_queue(s, c) != 0)
			return -1;
		if (verbosity >= 0)
			safe_text_line(out, "%s: queued: proved to fit by %s",
			               c->name, c->fits_by);
	}
	return 0;
}

int
search_prove(struct store *s, FILE *out, int verbosity)
{
	struct candidate_table t;
	int total = 0, n = 0, risky = 0;

	if (s->settings.search.strategy != STRATEGY_ADAPTIVE)
		return 0;
	for (int i = 0; i < s->st.n; i++)
		risky += s->st.v[i].state == CS_PLANNED &&
		         cand_at_risk(&s->st.v[i]);
	if (risky > 0 && store_read_candidates(s->dir, &t) != 0)
		return -2;
	for (int i = 0; i < s->st.n && risky > 0 && n >= 0; i++) {
		const struct cand_status *x = &s->st.v[i];
		const struct candidate_row *xr;

		if (x->state != CS_COMPLETED ||
		    (xr = row_of(&t, x->name)) == NULL || !xr->switches_known)
			continue;
		n = prove_by(s, &t, x, xr, out, verbosity);
		total += n > 0 ? n : 0;
	}
	if (risky > 0)
		candidate_table_release(&t);
	/* Also what an earlier run proved but did not queue (killed in
	 * between, or before every safe one was selected). */
	if (n < 0 || queue_proved(s, out, verbosity) != 0)
		return -1;
	return total;
}

/* The exit code of a prove or prune that returned n: a candidates.csv
 * that cannot be read is the campaign's data, a journal that cannot be
 * written the disk's. */
static int
search_exit(int n)
{
	return n == -2 ? EXIT_DATAERR : n < 0 ? EXIT_IOERR : 0;
}

int
search_step(struct runner *r)
{
	int status;

	/* Finished is final (store_ended): what its logs say now is for
	 * 'paratune results' to read, not a reason to refit or poll. */
	if (store_ended(r->store))
		return 0;
	status = runner_poll(r);

	/* What the runs measured proves what fits and what cannot, before
	 * anything more is submitted; a candidate proved to fit is queued
	 * first, so that an out-of-memory run can still prune it. */
	if (status == 0)
		status = search_exit(search_prove(r->store, r->out,
		                                  r->verbosity));
	if (status == 0)
		status = search_exit(search_prune(r->store, r->out,
		                                  r->verbosity));
	if (status == 0)
		status = search_adapt(r);
	if (status == 0)
		status = runner_submit_due(r, false);
	free(r->order);
	r->order = NULL;
	r->norder = 0;
	return status;
}
