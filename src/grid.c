/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * grid.c - walk, check, estimate and rank every combination of the
 * lists grid-spec.c expanded.
 *
 * The loops are nested by how much a choice constrains the rest:
 * tp, pp and cp decide the world split and most shape rules, so a
 * combination failing there skips (and counts) all its inner ones at
 * once.  That keeps a grid of millions of combinations to a few
 * integer checks each, with the estimator run only on valid ones.
 */
#include "autoconfig.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "grid.h"
#include "grid-name.h"
#include "xalloc.h"

/* ---- ranking and the bounded heap ---------------------------------------- */

int
candidate_compare(const struct candidate *a, const struct candidate *b)
{
	const struct layout *x = &a->layout, *y = &b->layout;
	double ta, tb;

	if (a->est.memory_status != b->est.memory_status)
		return a->est.memory_status == MEM_SAFE ? -1 : 1;
	/* At risk: the nearest to fitting first.  By time, a campaign
	 * where none fits ranked first a layout of 24,852 GiB a GPU (Llama
	 * 3.1 70B at sequence 131072 on 16 H100 nodes, tp 1 pp 1) and one of
	 * 79 GiB at 1254: what --include-unsafe runs first, and what plan
	 * calls the best, must be the one most likely to fit. */
	if (a->est.memory_status == MEM_OOM_RISK &&
	    a->est.mem.total != b->est.mem.total)
		return a->est.mem.total < b->est.mem.total ? -1 : 1;
	/* Time per sample, so that different global batches compare. */
	ta = a->est.step_s / x->gbs;
	tb = b->est.step_s / y->gbs;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	/* Ties: the smaller model-parallel layout is the simpler one. */
	if (layout_model_parallel(x) != layout_model_parallel(y))
		return layout_model_parallel(x) < layout_model_parallel(y)
		       ? -1 : 1;
	if (x->mbs != y->mbs)
		return y->mbs - x->mbs;
	return strcmp(a->name, b->name);
}

/* Max-heap on candidate_compare: the worst kept candidate at the root. */
static void
heap_sift_down(struct candidate *v, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		struct candidate tmp;

		if (l < n && candidate_compare(&v[l], &v[m]) > 0)
			m = l;
		if (r < n && candidate_compare(&v[r], &v[m]) > 0)
			m = r;
		if (m == i)
			return;
		tmp = v[i];
		v[i] = v[m];
		v[m] = tmp;
		i = m;
	}
}

static void
heap_sift_up(struct candidate *v, int i)
{
	while (i > 0) {
		int parent = (i - 1) / 2;
		struct candidate tmp;

		if (candidate_compare(&v[i], &v[parent]) <= 0)
			return;
		tmp = v[i];
		v[i] = v[parent];
		v[parent] = tmp;
		i = parent;
	}
}

/* Keep c if it is among the best res->cap; count it as dropped if not. */
static void
heap_offer(struct grid_result *res, const struct candidate *c)
{
	if (res->n < res->cap) {
		ALLOC_GROW(res->v, (size_t)res->n + 1, res->alloc);
		res->v[res->n] = *c;
		heap_sift_up(res->v, res->n++);
		return;
	}
	res->stats.dropped++;
	if (res->n == 0 || candidate_compare(c, &res->v[0]) >= 0)
		return;
	res->v[0] = *c;
	heap_sift_down(res->v, res->n, 0);
}

static int
qsort_compare(const void *a, const void *b)
{
	return candidate_compare(a, b);
}

/* Nearest first; equals keep the order the walk met them in. */
static void
near_sort(struct grid_result *res)
{
	for (int i = 1; i < res->nnear; i++)
		for (int j = i; j > 0 && res->near[j].score >
		                         res->near[j - 1].score; j--) {
			struct grid_near tmp = res->near[j];

			res->near[j] = res->near[j - 1];
			res->near[j - 1] = tmp;
		}
}

void
grid_finish(struct grid_result *res)
{
	/* v stays NULL until a candidate is kept, and qsort's pointer
	 * must not be NULL even for none. */
	if (res->n > 1)
		qsort(res->v, (size_t)res->n, sizeof(*res->v), qsort_compare);
	for (int i = 0; i < res->n; i++)
		res->v[i].rank = i + 1;
	near_sort(res);
}

void
grid_result_release(struct grid_result *res)
{
	free(res->v);
	free(res->notes);
	memset(res, 0, sizeof(*res));
}

void
grid_candidate(const struct grid_spec *spec, const struct workload *w,
               const char *name_prefix, const struct layout *l,
               struct candidate *out)
{
	memset(out, 0, sizeof(*out));
	out->layout = *l;
	estimate_layout(w, l, &out->est);
	candidate_name(spec, w, name_prefix, out);
}

/* ---- the walk --------------------------------------------------------- */

/*
 * Counts of combinations, saturating at LLONG_MAX: lists of 64 values on
 * a few axes multiply past 2^63, and a wrapped count went to 0 or below,
 * which let check_leaves pass a grid of 2^64 layouts.  Both non-negative.
 */
static long long
count_mul(long long a, long long b)
{
	long long r;

	return __builtin_mul_overflow(a, b, &r) ? LLONG_MAX : r;
}

static long long
count_add(long long a, long long b)
{
	long long r;

	return __builtin_add_overflow(a, b, &r) ? LLONG_MAX : r;
}

struct walk {
	const struct grid_spec *spec;
	const struct workload *w;
	const char *prefix;
	struct grid_result *res;
	grid_progress_fn progress;
	void *arg;
	long long total, next_progress;
	double leaves;          /* grid_leaves' count */
	bool rc_repeat;         /* the recompute an earlier pair gave */
};

#define PROGRESS_EVERY (1LL << 20)

/* Count n combinations, left out by rule unless it is LAYOUT_OK. */
static void
walk_count(struct walk *wk, long long n, enum layout_rule rule)
{
	struct grid_stats *st = &wk->res->stats;

	st->examined = count_add(st->examined, n);
	st->by_rule[rule] = count_add(st->by_rule[rule], n);
	switch (layout_rule_kind(rule)) {
	case RULE_KIND_INVALID:
		st->invalid = count_add(st->invalid, n);
		break;
	case RULE_KIND_NO_EFFECT:
		st->no_effect = count_add(st->no_effect, n);
		break;
	case RULE_KIND_CONTROL:
		st->removed = count_add(st->removed, n);
		break;
	case RULE_KIND_OK:
		break;
	}
	if (wk->progress && st->examined >= wk->next_progress) {
		wk->progress(wk->arg, st->examined, wk->total);
		wk->next_progress = count_add(st->examined, PROGRESS_EVERY);
	}
}

/*
 * How far a removed layout got: the rules of a built layout come after
 * those tp, pp and cp decide alone, placement rules after Megatron-LM's,
 * and the controls on the estimate last.  A switch without effect is a
 * duplicate, not a near miss (-1).
 */
static int
near_score(enum layout_rule rule, bool leaf)
{
	switch (layout_rule_kind(rule)) {
	case RULE_KIND_NO_EFFECT:
	case RULE_KIND_OK:
		return -1;
	case RULE_KIND_INVALID:
		return leaf ? 1 : 0;
	case RULE_KIND_CONTROL:
		break;
	}
	if (rule == RULE_BUBBLE || rule == RULE_UNBALANCE ||
	    rule == RULE_NONFINITE)
		return 3;
	return leaf ? 2 : 0;
}

/*
 * Keep l among the nearest removed layouts: in place of the farthest
 * kept one when it got further, never more than two of one rule, so
 * that one rule does not crowd out the others.
 */
static void
near_offer(struct grid_result *res, const struct layout *l,
           enum layout_rule rule, bool leaf)
{
	int score = near_score(rule, leaf), same = 0, worst = -1;

	if (score < 0)
		return;
	for (int i = 0; i < res->nnear; i++) {
		if (res->near[i].rule == rule && ++same >= 2)
			return;
		if (worst < 0 || res->near[i].score < res->near[worst].score)
			worst = i;
	}
	if (res->nnear < GRID_NEAR_MAX)
		worst = res->nnear++;
	else if (res->near[worst].score >= score)
		return;
	res->near[worst].layout = *l;
	res->near[worst].rule = rule;
	res->near[worst].leaf = leaf;
	res->near[worst].score = score;
}

/* The search controls an estimate answers: bubble, then imbalance;
 * before them, a prediction that is not a number at all (inf, NaN),
 * which would rank anywhere and be written as "-nan". */
static enum layout_rule
estimate_control(const struct grid_spec *spec, const struct estimate *e)
{
	if (!estimate_finite(e))
		return RULE_NONFINITE;
	if (spec->max_bubble >= 0 && e->bubble_ratio > spec->max_bubble)
		return RULE_BUBBLE;
	if (spec->max_unbalance >= 0 &&
	    e->unbalance_ratio > spec->max_unbalance)
		return RULE_UNBALANCE;
	return LAYOUT_OK;
}

/*
 * Check, estimate and offer one fully specified layout: Megatron-LM's
 * rules first, then the placement rules, then the controls on the
 * estimate, so that a layout is blamed on the first kind it breaks.
 */
static void
walk_leaf(struct walk *wk, struct layout *l)
{
	enum layout_rule rule = layout_check(wk->w, l);
	struct candidate c;

	/* After layout_check, so that an invalid layout is blamed on its
	 * rule: a repeat is a valid layout the grid already has. */
	if (rule == LAYOUT_OK && wk->rc_repeat)
		rule = RULE_RC_SAME;
	if (rule == LAYOUT_OK)
		rule = layout_topology(wk->w, l, wk->spec->relax);
	if (rule != LAYOUT_OK) {
		walk_count(wk, 1, rule);
		near_offer(wk->res, l, rule, true);
		return;
	}
	c.layout = *l;
	c.base = false;
	c.rank = 0;
	c.name[0] = '\0';
	estimate_layout(wk->w, l, &c.est);
	rule = estimate_control(wk->spec, &c.est);
	walk_count(wk, 1, rule);
	if (rule != LAYOUT_OK) {
		near_offer(wk->res, l, rule, true);
		return;
	}
	wk->res->stats.valid++;
	if (c.est.memory_status == MEM_SAFE)
		wk->res->stats.safe++;
	else
		wk->res->stats.oom_risk++;
	/* Name only what the heap will keep: snprintf dominates otherwise. */
	if (wk->res->n < wk->res->cap ||
	    candidate_compare(&c, &wk->res->v[0]) < 0)
		candidate_name(wk->spec, wk->w, wk->prefix, &c);
	heap_offer(wk->res, &c);
}

/* The switches that change speed only, innermost. */
static void
walk_speed(struct walk *wk, struct layout *l)
{
	const struct grid_spec *s = wk->spec;

	for (int a = 0; a < s->attention.n; a++)
	for (int b = 0; b < s->tp_overlap.n; b++)
	for (int c = 0; c < s->cuda_graphs.n; c++)
	for (int d = 0; d < s->fp8_recipe.n; d++)
	for (int e = 0; e < s->fp8_param_gather.n; e++)
	for (int f = 0; f < s->cp_comm.n; f++)
	for (int g = 0; g < s->grouped_gemm.n; g++)
	for (int h = 0; h < s->dispatcher.n; h++)
	for (int i = 0; i < s->a2a_overlap.n; i++)
	for (int j = 0; j < s->graph_full_iter.n; j++)
	for (int k = 0; k < s->fp8_dpa.n; k++) {
		l->attention = (enum attention_impl)s->attention.v[a];
		l->tp_comm_overlap = s->tp_overlap.v[b] != 0;
		l->cuda_graphs = s->cuda_graphs.v[c] != 0;
		l->fp8_recipe = (enum fp8_recipe)s->fp8_recipe.v[d];
		l->fp8_param_gather = s->fp8_param_gather.v[e] != 0;
		l->cp_comm = (enum cp_comm)s->cp_comm.v[f];
		l->moe_grouped_gemm = s->grouped_gemm.v[g] != 0;
		l->moe_dispatcher = (enum moe_dispatcher)s->dispatcher.v[h];
		l->moe_a2a_overlap = s->a2a_overlap.v[i] != 0;
		l->cuda_graph_full_iteration = s->graph_full_iter.v[j] != 0;
		l->fp8_dot_product_attention = s->fp8_dpa.v[k] != 0;
		walk_leaf(wk, l);
	}
}

/* Combinations walk_speed visits. */
static long long
speed_size(const struct grid_spec *s)
{
	const int n[] = {
		s->attention.n, s->tp_overlap.n, s->cuda_graphs.n,
		s->fp8_recipe.n, s->fp8_param_gather.n, s->cp_comm.n,
		s->grouped_gemm.n, s->dispatcher.n, s->a2a_overlap.n,
		s->graph_full_iter.n, s->fp8_dpa.n
	};
	long long size = 1;

	for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
		size = count_mul(size, n[i]);
	return size;
}

/* The switches that change memory: sequence parallel, sharding, DP
 * overlap, offloading. */
static void
walk_memory(struct walk *wk, struct layout *l)
{
	const struct grid_spec *s = wk->spec;

	for (int a = 0; a < s->sp.n; a++)
	for (int b = 0; b < s->distopt.n; b++)
	for (int c = 0; c < s->fsdp.n; c++)
	for (int d = 0; d < s->ogr.n; d++)
	for (int e = 0; e < s->opg.n; e++)
	for (int f = 0; f < s->offload.n; f++)
	for (int g = 0; g < s->grad_bf16.n; g++) {
		l->sequence_parallel = s->sp.v[a] < 0 ? l->tp > 1
		                                      : s->sp.v[a] != 0;
		l->distributed_optimizer = s->distopt.v[b] != 0;
		l->fsdp = s->fsdp.v[c] != 0;
		l->overlap_grad_reduce = s->ogr.v[d] != 0;
		/* auto: on where Megatron-LM allows it */
		l->overlap_param_gather = s->opg.v[e] < 0
			? l->overlap_grad_reduce &&
			  (l->distributed_optimizer || l->fsdp)
			: s->opg.v[e] != 0;
		l->offload_layers = s->offload.v[f];
		l->grad_reduce_bf16 = s->grad_bf16.v[g] != 0;
		walk_speed(wk, l);
	}
}

/* Combinations walk_memory visits below one call. */
static long long
memory_size(const struct grid_spec *s)
{
	const int n[] = {
		s->sp.n, s->distopt.n, s->fsdp.n, s->ogr.n, s->opg.n,
		s->offload.n, s->grad_bf16.n
	};
	long long size = 1;

	for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
		size = count_mul(size, n[i]);
	return size;
}

/*
 * Whether full recompute's count b and method m give the run of a pair
 * before them in the lists (layout_recompute_effective): 0 and a chunk's
 * own count, uniform 1 and block over every layer.  The first pair
 * listed stands, so that the grid runs each recompute once; a count past
 * the stage is RULE_RECOMPUTE's, neither a repeat nor one to repeat.
 */
static bool
recompute_repeats(const struct walk *wk, const struct layout *l, int b,
                  int m)
{
	const struct grid_spec *s = wk->spec;
	const struct model *md = wk->w->model;
	int limit = layout_recompute_limit(md, l);
	struct layout x = *l;

	if (l->recompute_layers > limit)
		return false;
	for (int i = 0; i <= b; i++)
		for (int j = 0; j < (i < b ? s->recompute_method.n : m); j++) {
			x.recompute_layers = s->recompute_layers.v[i];
			x.recompute_method = (enum recompute_method)
				s->recompute_method.v[j];
			if (x.recompute_layers <= limit &&
			    layout_recompute_same(md, &x, l))
				return true;
		}
	return false;
}

/* Recompute kinds; layer counts and methods only for full recompute. */
static void
walk_switches(struct walk *wk, struct layout *l)
{
	const struct grid_spec *s = wk->spec;

	for (int a = 0; a < s->recompute.n; a++) {
		bool full = s->recompute.v[a] == RECOMPUTE_FULL;
		bool sel = s->recompute.v[a] == RECOMPUTE_SELECTIVE;
		int nb = full ? s->recompute_layers.n : 1;
		int nm = full ? s->recompute_method.n : 1;
		int nr = sel ? s->rc_modules.n : 1;

		l->recompute = (enum recompute)s->recompute.v[a];
		for (int b = 0; b < nb; b++)
		for (int m = 0; m < nm; m++)
		for (int r = 0; r < nr; r++) {
			l->recompute_layers = full ? s->recompute_layers.v[b]
			                           : 0;
			l->recompute_method = (enum recompute_method)
				s->recompute_method.v[m];
			l->recompute_modules =
				sel ? (unsigned)s->rc_modules.v[r] : 0;
			wk->rc_repeat = full && recompute_repeats(wk, l, b, m);
			walk_memory(wk, l);
		}
	}
}

static long long
switches_size(const struct grid_spec *s)
{
	long long kinds = 0;

	for (int i = 0; i < s->recompute.n; i++)
		kinds += s->recompute.v[i] == RECOMPUTE_FULL
		         ? (long long)s->recompute_layers.n *
		           s->recompute_method.n
		         : s->recompute.v[i] == RECOMPUTE_SELECTIVE
		         ? s->rc_modules.n : 1;
	/* kinds stays small (lists of at most GRID_LIST_MAX); the
	 * products of many lists are what overflow. */
	return count_mul(count_mul(kinds, memory_size(s)), speed_size(s));
}

/* Whether etp value v, beside 0 (tp's own size) on the same axis,
 * gives tp's size again: the layout 0 already gave (etp 1 at tp 1). */
static bool
etp_repeats_default(const struct grid_axis *etp, int v, int tp)
{
	if (v == 0 || v != tp)
		return false;
	for (int i = 0; i < etp->n; i++)
		if (etp->v[i] == 0)
			return true;
	return false;
}

/* Whether the campaign leaves both account_for_* flags to paratune. */
static bool
account_auto(const struct grid_spec *s)
{
	return s->account_embedding.n == 1 &&
	       s->account_embedding.v[0] == -1 &&
	       s->account_loss.n == 1 && s->account_loss.v[0] == -1;
}

/* l's pipeline split back to split's: stage counts and flags, no
 * layout. */
static void
restore_split(struct layout *l, const struct layout *split)
{
	l->first_stage_layers = split->first_stage_layers;
	l->last_stage_layers = split->last_stage_layers;
	l->account_embedding = split->account_embedding;
	l->account_loss = split->account_loss;
	l->pipeline_layout = false;
}

/*
 * Where the campaign leaves the pipeline split automatic and vp cannot
 * take the one the pipeline got (stage counts, or the account_for_*
 * flags, each stage a multiple of vp), the pipeline layout splits the
 * layers over the virtual stages instead, as NVIDIA's DeepSeek-V3
 * recipes run pp 8 vp 4 and pp 2 vp 8 (layout_vstage_split), on a core
 * whose template passes one (layout_core_auto_vstages).  split: the
 * pipeline's own, restored for each vp.
 */
static void
auto_pipeline_layout(const struct walk *wk, struct layout *l,
                     const struct layout *split)
{
	const struct grid_axis *f = &wk->spec->first_layers;

	restore_split(l, split);
	if (f->n == 1 && f->v[0] == GRID_STAGES_AUTO &&
	    layout_core_auto_vstages(wk->w->core))
		layout_auto_vstages(wk->w->model, l,
		                    account_auto(wk->spec));
}

/* Virtual stages, micro- and global batch sizes, and the switches;
 * split: the pipeline's own stage counts and flags. */
static void
walk_vp_batches(struct walk *wk, struct layout *l, const struct layout *split)
{
	const struct grid_spec *s = wk->spec;
	int nvp = s->vp_rule == VP_NEMO ? 1 : s->vp.n;

	for (int c = 0; c < nvp; c++)
	for (int d = 0; d < s->mbs.n; d++)
	for (int e = 0; e < s->gbs.n; e++) {
		if (s->vp_rule == VP_NEMO)
			l->vp = l->pp > 2 ? wk->w->model->num_layers / l->pp
			                  : 1;
		else
			l->vp = s->vp.v[c];
		auto_pipeline_layout(wk, l, split);
		l->mbs = s->mbs.v[d];
		l->gbs = s->gbs.v[e];
		walk_switches(wk, l);
	}
}

static void
walk_batches(struct walk *wk, struct layout *l)
{
	struct layout split = *l;

	walk_vp_batches(wk, l, &split);
	/* The next ep and etp start from the pipeline's own split. */
	restore_split(l, &split);
}

/* Combinations walk_batches visits below one call. */
static long long
batches_size(const struct grid_spec *s)
{
	long long vp = s->vp_rule == VP_NEMO ? 1 : s->vp.n;

	return count_mul(count_mul(count_mul(vp, s->mbs.n), s->gbs.n),
	                 switches_size(s));
}

/* Everything below tp, pp, cp and the pipeline split. */
static void
walk_inner(struct walk *wk, struct layout *l)
{
	const struct grid_spec *s = wk->spec;

	for (int a = 0; a < s->ep.n; a++)
	for (int b = 0; b < s->etp.n; b++) {
		if (etp_repeats_default(&s->etp, s->etp.v[b], l->tp)) {
			walk_count(wk, batches_size(s), RULE_ETP_TP);
			continue;
		}
		l->ep = s->ep.v[a];
		l->etp = s->etp.v[b];
		walk_batches(wk, l);
	}
}

static long long
inner_size(const struct grid_spec *s)
{
	return count_mul(count_mul(s->ep.n, s->etp.n), batches_size(s));
}

long long
grid_spec_size(const struct grid_spec *s)
{
	double n = (double)s->tp.n * s->pp.n * s->cp.n *
	           s->account_embedding.n * s->account_loss.n *
	           s->first_layers.n * s->last_layers.n *
	           (double)inner_size(s);

	return n >= (double)LLONG_MAX ? LLONG_MAX : (long long)n;
}

/*
 * Unset account_for_* flags (-1): what the pipeline split needs.  The
 * layers divide over the stages as they are; else with the embedding as
 * a layer; else with the loss too (transformer_block.py).
 */
static void
account_flags(const struct walk *wk, int embedding, int loss,
              struct layout *l)
{
	grid_account_auto(wk->w->model, embedding, loss, l);
}

void
grid_account_auto(const struct model *m, int embedding, int loss,
                  struct layout *l)
{
	int layers = m->num_layers;
	/* Megatron-LM takes an uneven pipeline without the flags. */
	bool as_is = l->pp <= 1 || layers % l->pp == 0 || layout_uneven(l);
	bool one = !as_is && (layers + 1) % l->pp == 0;

	if (embedding < 0)
		l->account_embedding = !as_is;
	if (loss < 0)
		l->account_loss = !as_is && !one;
}

/*
 * The rules tp, pp, cp and the pipeline split decide alone, in
 * layout_check's order so that a pruned combination is blamed on the
 * rule layout_check would name; the model-parallel bounds are the
 * grid's own.
 */
static enum layout_rule
outer_rule(const struct walk *wk, const struct layout *l)
{
	const struct model *m = wk->w->model;
	int world = workload_world(wk->w);
	long long mp = layout_model_parallel(l);
	int g = m->num_query_groups ? m->num_query_groups
	                            : m->num_attention_heads;

	if (mp > world || world % mp != 0)
		return RULE_WORLD;
	if (mp < wk->spec->min_mp || mp > wk->spec->max_mp)
		return RULE_MP_RANGE;
	if (m->num_attention_heads % l->tp != 0)
		return RULE_HEADS;
	if (g % l->tp != 0 && !(l->tp > g && l->tp % g == 0))
		return RULE_GROUPS;
	/* vp is not known yet: only the split over the stages. */
	struct layout one = *l;

	one.vp = 1;
	return layout_split_rule(m, &one);
}

/*
 * The outer combination's stage layer counts: with pp 1 they change
 * nothing, so the first of each list stands as 0 (an even split of one
 * stage) and the others are the same run (RULE_UNEVEN_PP1).  Counts the
 * campaign leaves automatic follow pp (layout_auto_stages).
 */
static enum layout_rule
stage_layers(const struct grid_spec *spec, const struct model *m, int f,
             int z, struct layout *l)
{
	/* The pipeline layout is the virtual stages' (walk_batches). */
	l->pipeline_layout = false;
	if (l->pp == 1) {
		l->first_stage_layers = l->last_stage_layers = 0;
		return f == 0 && z == 0 ? LAYOUT_OK : RULE_UNEVEN_PP1;
	}
	if (spec->first_layers.v[f] == GRID_STAGES_AUTO) {
		layout_auto_stages(m, l);
		return LAYOUT_OK;
	}
	l->first_stage_layers = spec->first_layers.v[f];
	l->last_stage_layers = spec->last_layers.v[z];
	return LAYOUT_OK;
}

/* What walk_outer does with one outer combination and its rule. */
typedef void (*outer_fn)(struct walk *wk, struct layout *l,
                         enum layout_rule rule);

/* Every combination of tp, pp, cp and the pipeline split, to visit. */
static void
walk_outer(struct walk *wk, outer_fn visit)
{
	const struct grid_spec *spec = wk->spec;
	const struct workload *w = wk->w;
	struct layout l;

	memset(&l, 0, sizeof(l));
	for (int a = 0; a < spec->tp.n; a++)
	for (int b = 0; b < spec->pp.n; b++)
	for (int c = 0; c < spec->cp.n; c++)
	for (int d = 0; d < spec->account_embedding.n; d++)
	for (int e = 0; e < spec->account_loss.n; e++)
	for (int f = 0; f < spec->first_layers.n; f++)
	for (int z = 0; z < spec->last_layers.n; z++) {
		enum layout_rule rule;

		l.tp = spec->tp.v[a];
		l.pp = spec->pp.v[b];
		l.cp = spec->cp.v[c];
		rule = stage_layers(spec, w->model, f, z, &l);
		l.account_embedding = spec->account_embedding.v[d] != 0;
		l.account_loss = spec->account_loss.v[e] != 0;
		account_flags(wk, spec->account_embedding.v[d],
		              spec->account_loss.v[e], &l);
		if (rule == LAYOUT_OK)
			rule = outer_rule(wk, &l);
		visit(wk, &l, rule);
	}
}

/* walk_outer's visit for grid_run: count a broken outer combination
 * whole, walk the rest. */
static void
outer_walk(struct walk *wk, struct layout *l, enum layout_rule rule)
{
	if (rule != LAYOUT_OK) {
		walk_count(wk, inner_size(wk->spec), rule);
		near_offer(wk->res, l, rule, false);
		return;
	}
	walk_inner(wk, l);
}

/* walk_outer's visit for grid_leaves: add what a kept one walks. */
static void
outer_leaves(struct walk *wk, struct layout *l, enum layout_rule rule)
{
	(void)l;
	if (rule == LAYOUT_OK)
		wk->leaves += (double)inner_size(wk->spec);
}

double
grid_leaves(const struct grid_spec *spec, const struct workload *w)
{
	struct walk wk = { .spec = spec, .w = w };

	walk_outer(&wk, outer_leaves);
	return wk.leaves;
}

void
grid_run(const struct grid_spec *spec, const struct workload *w,
         const char *name_prefix, int cap, struct grid_result *res,
         grid_progress_fn progress, void *arg)
{
	struct walk wk = { spec, w, name_prefix, res, progress, arg,
	                   grid_spec_size(spec), PROGRESS_EVERY, 0, false };

	memset(res, 0, sizeof(*res));
	/* v grows with what is kept: search.max_candidates may be 10^9
	 * (616 GB at once) for a grid of 16. */
	res->cap = cap > 0 ? cap : 1;
	walk_outer(&wk, outer_walk);
	if (progress)
		progress(arg, res->stats.examined, wk.total);
}

/* ---- the base configuration ------------------------------------------- */

int
grid_add_base(struct grid_result *res, const struct grid_spec *spec,
              const struct workload *w, const char *name_prefix,
              const struct layout *base)
{
	struct candidate c;

	/* The same run spelled otherwise (recompute 0 beside the chunk's
	 * own count) is the base too: the grid kept it once. */
	for (int i = 0; i < res->n; i++)
		if (layout_same_run(w->model, &res->v[i].layout, base)) {
			res->v[i].base = true;
			grid_finish(res);
			return i;
		}
	grid_candidate(spec, w, name_prefix, base, &c);
	c.base = true;
	for (int i = 0; i < res->n; i++)
		if (!strcmp(res->v[i].name, c.name)) {
			candidate_name_base(spec, w, name_prefix, &c);
			break;
		}
	grid_finish(res);
	/* Full: the base takes the place of the worst kept candidate. */
	if (res->n == res->cap)
		res->n--;
	ALLOC_GROW(res->v, (size_t)res->n + 1, res->alloc);
	res->v[res->n++] = c;
	grid_finish(res);
	for (int i = 0; i < res->n; i++)
		if (res->v[i].base)
			return i;
	bug("base candidate lost");
}

int
grid_default_base(const struct grid_result *res)
{
	int best = -1;

	for (int i = 0; i < res->n; i++) {
		const struct candidate *c = &res->v[i];

		if (c->est.memory_status != MEM_SAFE)
			continue;
		if (best < 0 || layout_model_parallel(&c->layout) <
		                layout_model_parallel(&res->v[best].layout))
			best = i;
	}
	return best;
}
