/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * grid.c - expand, check, estimate and rank every combination.
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "grid.h"
#include "nemo-heuristics.h"
#include "xalloc.h"

/* ---- ranking and the bounded heap ---------------------------------------- */

int
candidate_compare(const struct candidate *a, const struct candidate *b)
{
	const struct layout *x = &a->layout, *y = &b->layout;
	double ta, tb;

	if (a->est.memory_status != b->est.memory_status)
		return a->est.memory_status == MEM_SAFE ? -1 : 1;
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

/* ---- names ------------------------------------------------------------ */

/* A name being built, longer than a candidate's so that overflow shows. */
struct name_buf {
	char s[512];
	size_t n;
};

/* Append a formatted token to a name. */
static void name_add(struct name_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
name_add(struct name_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->n >= sizeof b->s)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
	va_end(ap);
	b->n = n < 0 ? sizeof b->s : b->n + (size_t)n;
}

/* Whether an axis has more than one value, so names must show it. */
static bool
searched(const struct grid_axis *a)
{
	return a->n > 1;
}

/* Short names of FP8 recipes and CP communication types for candidate
 * names, which hold only [A-Za-z0-9._-]. */
static const char *const fp8_short[] = { "dl", "tw", "mx", "bw" };
static const char *const cp_comm_short[] = { "p2p", "ag", "a2a", "a2ap2p" };
/* Recompute modules in enum recompute_module order. */
static const char *const rc_module_short[] = {
	"ca", "ma", "ln", "mla", "mlp", "moe", "se",
};

/* "_rcm_ma.ln": the modules of selective recompute, when searched. */
static void
name_modules(const struct grid_spec *spec, const struct layout *l,
             struct name_buf *b)
{
	unsigned rc = layout_recompute_modules(l);
	char sep = '_';

	if (!searched(&spec->rc_modules) || l->recompute != RECOMPUTE_SELECTIVE)
		return;
	name_add(b, "_rcm");
	for (int i = 0; i < RCM_COUNT; i++)
		if (rc & RCM_BIT(i)) {
			name_add(b, "%c%s", sep, rc_module_short[i]);
			sep = '.';
		}
}

/* The recompute part of a name: "_rc_sel", "_rc_full4" (block, layers
 * recomputed per stage), "_rc_unif2" (uniform, layers per chunk). */
static void
name_recompute(const struct grid_spec *spec, const struct workload *w,
               const struct layout *l, struct name_buf *b)
{
	int split = layout_split_layers(w->model, l);
	int layers;

	if (!searched(&spec->recompute) && !searched(&spec->recompute_layers) &&
	    !searched(&spec->recompute_method))
		return;
	if (l->recompute != RECOMPUTE_FULL) {
		name_add(b, "_rc_%s", recompute_short(l->recompute));
	} else if (l->recompute_method == RECOMPUTE_UNIFORM) {
		layers = l->recompute_layers ? l->recompute_layers
		         : split / (l->pp * (l->vp > 1 ? l->vp : 1));
		name_add(b, "_rc_unif%d", layers);
	} else {
		layers = l->recompute_layers ? l->recompute_layers
		         : split / l->pp;
		name_add(b, "_rc_full%d", layers);
	}
}

/* The switches this campaign searches, one token each. */
static void
name_switches(const struct grid_spec *spec, const struct layout *l,
              struct name_buf *b)
{
	if (searched(&spec->etp)) name_add(b, "_etp_%d", layout_etp(l));
	if (searched(&spec->sp)) name_add(b, "_sp_%d", l->sequence_parallel);
	if (searched(&spec->distopt))
		name_add(b, "_do_%d", l->distributed_optimizer);
	if (searched(&spec->attention))
		name_add(b, "_attn_%s", attention_name(l->attention));
	if (searched(&spec->account_embedding))
		name_add(b, "_ae_%d", l->account_embedding);
	if (searched(&spec->account_loss))
		name_add(b, "_al_%d", l->account_loss);
	if (searched(&spec->fp8_recipe))
		name_add(b, "_fp8_%s", fp8_short[l->fp8_recipe]);
	if (searched(&spec->fp8_param_gather))
		name_add(b, "_fpg_%d", l->fp8_param_gather);
	if (searched(&spec->cuda_graphs)) name_add(b, "_cg_%d", l->cuda_graphs);
	if (searched(&spec->tp_overlap))
		name_add(b, "_tpo_%d", l->tp_comm_overlap);
	if (searched(&spec->ogr))
		name_add(b, "_ogr_%d", l->overlap_grad_reduce);
	if (searched(&spec->opg))
		name_add(b, "_opg_%d", l->overlap_param_gather);
	if (searched(&spec->fsdp)) name_add(b, "_fsdp_%d", l->fsdp);
	if (searched(&spec->grad_bf16))
		name_add(b, "_grb_%d", l->grad_reduce_bf16);
	if (searched(&spec->cp_comm))
		name_add(b, "_cpc_%s", cp_comm_short[l->cp_comm]);
	if (searched(&spec->grouped_gemm))
		name_add(b, "_gg_%d", l->moe_grouped_gemm);
	if (searched(&spec->offload))
		name_add(b, "_off_%d", l->offload_layers);
	if (searched(&spec->first_layers))
		name_add(b, "_pf_%d", l->first_stage_layers);
	if (searched(&spec->last_layers))
		name_add(b, "_pl_%d", l->last_stage_layers);
	name_modules(spec, l, b);
}

/* FNV-1a, 32 bits (Fowler, Noll, Vo; IETF draft-eastlake-fnv). */
static unsigned
name_hash(const char *s, size_t n)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/*
 * The NeMo naming scheme, extended for the axes this campaign searches.
 * A name too long for a candidate keeps its head and ends in a hash of
 * the whole, so that names stay unique.
 */
static void
candidate_name(const struct grid_spec *spec, const struct workload *w,
               const char *prefix, struct candidate *c)
{
	const struct layout *l = &c->layout;
	struct name_buf b = { .n = 0 };
	size_t keep = sizeof c->name - 11; /* "_h", 8 digits, NUL */

	name_add(&b, "%s_tp_%d_pp_%d_cp_%d_ep_%d_mbs_%d_vp_", prefix, l->tp,
	         l->pp, l->cp, l->ep, l->mbs);
	if (l->vp > 1)
		name_add(&b, "%d", l->vp);
	else
		name_add(&b, "None");
	name_add(&b, "_seq_%d_gbs_%d", w->seq_length, l->gbs);
	name_recompute(spec, w, l, &b);
	name_switches(spec, l, &b);
	if (b.n < sizeof c->name) {
		memcpy(c->name, b.s, b.n + 1);
		return;
	}
	if (b.n > sizeof b.s - 1)
		b.n = sizeof b.s - 1;
	memcpy(c->name, b.s, keep);
	snprintf(c->name + keep, sizeof c->name - keep, "_h%08x",
	         name_hash(b.s, b.n));
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

struct walk {
	const struct grid_spec *spec;
	const struct workload *w;
	const char *prefix;
	struct grid_result *res;
	grid_progress_fn progress;
	void *arg;
	long long total, next_progress;
};

#define PROGRESS_EVERY (1LL << 20)

/* Count n combinations, left out by rule unless it is LAYOUT_OK. */
static void
walk_count(struct walk *wk, long long n, enum layout_rule rule)
{
	struct grid_stats *st = &wk->res->stats;

	st->examined += n;
	st->by_rule[rule] += n;
	switch (layout_rule_kind(rule)) {
	case RULE_KIND_INVALID: st->invalid += n; break;
	case RULE_KIND_NO_EFFECT: st->no_effect += n; break;
	case RULE_KIND_CONTROL: st->removed += n; break;
	case RULE_KIND_OK: break;
	}
	if (wk->progress && st->examined >= wk->next_progress) {
		wk->progress(wk->arg, st->examined, wk->total);
		wk->next_progress = st->examined + PROGRESS_EVERY;
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
	if (rule == RULE_BUBBLE || rule == RULE_UNBALANCE)
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

/* The search controls an estimate answers: bubble, then imbalance. */
static enum layout_rule
estimate_control(const struct grid_spec *spec, const struct estimate *e)
{
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
	for (int g = 0; g < s->grouped_gemm.n; g++) {
		l->attention = (enum attention_impl)s->attention.v[a];
		l->tp_comm_overlap = s->tp_overlap.v[b] != 0;
		l->cuda_graphs = s->cuda_graphs.v[c] != 0;
		l->fp8_recipe = (enum fp8_recipe)s->fp8_recipe.v[d];
		l->fp8_param_gather = s->fp8_param_gather.v[e] != 0;
		l->cp_comm = (enum cp_comm)s->cp_comm.v[f];
		l->moe_grouped_gemm = s->grouped_gemm.v[g] != 0;
		walk_leaf(wk, l);
	}
}

/* Combinations walk_speed visits. */
static long long
speed_size(const struct grid_spec *s)
{
	return (long long)s->attention.n * s->tp_overlap.n *
	       s->cuda_graphs.n * s->fp8_recipe.n * s->fp8_param_gather.n *
	       s->cp_comm.n * s->grouped_gemm.n;
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
	return (long long)s->sp.n * s->distopt.n * s->fsdp.n * s->ogr.n *
	       s->opg.n * s->offload.n * s->grad_bf16.n;
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
			l->recompute_modules = sel ? (unsigned)s->rc_modules.v[r]
			                           : 0;
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
	return kinds * memory_size(s) * speed_size(s);
}

/* Everything below tp, pp, cp and the pipeline split. */
static void
walk_inner(struct walk *wk, struct layout *l)
{
	const struct grid_spec *s = wk->spec;
	int nvp = s->vp_rule == VP_NEMO ? 1 : s->vp.n;

	for (int a = 0; a < s->ep.n; a++)
	for (int b = 0; b < s->etp.n; b++)
	for (int c = 0; c < nvp; c++)
	for (int d = 0; d < s->mbs.n; d++)
	for (int e = 0; e < s->gbs.n; e++) {
		l->ep = s->ep.v[a];
		l->etp = s->etp.v[b];
		if (s->vp_rule == VP_NEMO)
			l->vp = l->pp > 2 ? wk->w->model->num_layers / l->pp : 1;
		else
			l->vp = s->vp.v[c];
		l->mbs = s->mbs.v[d];
		l->gbs = s->gbs.v[e];
		walk_switches(wk, l);
	}
}

static long long
inner_size(const struct grid_spec *s)
{
	long long vp = s->vp_rule == VP_NEMO ? 1 : s->vp.n;

	return (long long)s->ep.n * s->etp.n * vp * s->mbs.n * s->gbs.n *
	       switches_size(s);
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
 * stage) and the others are the same run (RULE_UNEVEN_PP1).
 */
static enum layout_rule
stage_layers(const struct grid_spec *spec, int f, int z, struct layout *l)
{
	if (l->pp == 1) {
		l->first_stage_layers = l->last_stage_layers = 0;
		return f == 0 && z == 0 ? LAYOUT_OK : RULE_UNEVEN_PP1;
	}
	l->first_stage_layers = spec->first_layers.v[f];
	l->last_stage_layers = spec->last_layers.v[z];
	return LAYOUT_OK;
}

void
grid_run(const struct grid_spec *spec, const struct workload *w,
         const char *name_prefix, int cap, struct grid_result *res,
         grid_progress_fn progress, void *arg)
{
	struct walk wk = { spec, w, name_prefix, res, progress, arg,
	                   grid_spec_size(spec), PROGRESS_EVERY };
	long long inner = inner_size(spec);
	struct layout l;

	memset(res, 0, sizeof(*res));
	res->cap = cap > 0 ? cap : 1;
	res->v = xcalloc((size_t)res->cap, sizeof(*res->v));
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
		rule = stage_layers(spec, f, z, &l);
		l.account_embedding = spec->account_embedding.v[d] != 0;
		l.account_loss = spec->account_loss.v[e] != 0;
		account_flags(&wk, spec->account_embedding.v[d],
		              spec->account_loss.v[e], &l);
		if (rule == LAYOUT_OK)
			rule = outer_rule(&wk, &l);
		if (rule != LAYOUT_OK) {
			walk_count(&wk, inner, rule);
			near_offer(res, &l, rule, false);
			continue;
		}
		walk_inner(&wk, &l);
	}
	/* After the flat nest of loops above, not inside it. */
	if (progress) /* NOLINT(readability-misleading-indentation) */
		progress(arg, res->stats.examined, wk.total);
}

/* ---- expanding the search section ------------------------------------------- */

static void
axis_push(struct grid_axis *a, int v)
{
	for (int i = 0; i < a->n; i++)
		if (a->v[i] == v)
			return;
	if (a->n < GRID_LIST_MAX)
		a->v[a->n++] = v;
}

static void
axis_from_list(struct grid_axis *a, const struct int_list *l)
{
	a->n = 0;
	for (int i = 0; i < l->n; i++)
		axis_push(a, l->v[i]);
}

/* The list, or 0 alone when it is empty or "auto". */
static void
axis_from_list_or_0(struct grid_axis *a, const struct int_list *l)
{
	if (l->is_auto || l->n == 0)
		axis_push(a, 0);
	else
		axis_from_list(a, l);
}

/* Every divisor of n not above limit, ascending. */
static void
axis_divisors(struct grid_axis *a, int n, int limit)
{
	a->n = 0;
	for (int d = 1; d <= n && d <= limit; d++)
		if (n % d == 0)
			axis_push(a, d);
}

static void
axis_from_bits(struct grid_axis *a, unsigned bits, int nvalues)
{
	a->n = 0;
	for (int i = 0; i < nvalues; i++)
		if (bits & BIT(i))
			axis_push(a, i);
}

/* Whether pp stages split the layers with a first and last stage
 * count the campaign lists (DeepSeek-V3's 61 layers over 16). */
static bool
uneven_splits(const struct settings *c, int pp)
{
	const struct int_list *f = &c->search.first_stage_layers;
	const struct int_list *z = &c->search.last_stage_layers;
	struct layout l;

	memset(&l, 0, sizeof(l));
	l.pp = pp;
	l.vp = 1;
	for (int i = 0; i < (f->is_auto ? 0 : f->n); i++)
		for (int j = 0; j < (z->is_auto ? 0 : z->n); j++) {
			l.first_stage_layers = f->v[i];
			l.last_stage_layers = z->v[j];
			if (pp > 1 && layout_uneven(&l) &&
			    layout_split_rule(&c->model, &l) == LAYOUT_OK)
				return true;
		}
	return false;
}

/* "auto" for the parallel sizes under paratune's own heuristics: every
 * value that can be valid, for each axis no list or table filled. */
static void
spec_auto_model(struct grid_spec *spec, const struct settings *c)
{
	const struct model *m = &c->model;
	int world = c->nodes * c->gpus_per_node;
	int domain = c->gpu.nvlink_domain > 0 ? c->gpu.nvlink_domain : 1;
	int tp_max = domain < c->gpus_per_node ? domain : c->gpus_per_node;

	/* TP stays inside one NVLink domain (tuning guide). */
	if (spec->tp.n == 0)
		for (int t = 1; t <= tp_max && t <= world; t++)
			axis_push(&spec->tp, t);
	/* PP: the divisors of the layers, and of the layers plus the
	 * embedding and the loss counted as layers (account_for_*), so
	 * that 126 layers (Llama 3.1 405B) split over 4, 8 or 16 stages. */
	if (spec->pp.n == 0)
		for (int d = 1; d <= world && d <= m->num_layers + 2; d++)
			if (m->num_layers % d == 0 ||
			    (m->num_layers + 1) % d == 0 ||
			    (m->num_layers + 2) % d == 0 ||
			    uneven_splits(c, d))
				axis_push(&spec->pp, d);
	/* CP: powers of two dividing seq/2 (the ring splits 2*cp chunks)
	 * that leave each rank at least 4096 tokens, where NVIDIA's
	 * recipes start using it (cp 2 at sequence 8192 for Llama 3 70B). */
	if (spec->cp.n == 0)
		for (int k = 1; k <= 32 && k <= world; k *= 2)
			if (k == 1 || (c->seq_length % (2 * k) == 0 &&
			               c->seq_length / k >= 4096))
				axis_push(&spec->cp, k);
	if (spec->ep.n == 0)
		axis_divisors(&spec->ep, m->num_experts > 0 ? m->num_experts : 1,
		              world);
	/* NeMo's default micro-batch list, a good spread for any size. */
	if (spec->mbs.n == 0)
		for (int b = 1; b <= 8; b *= 2)
			axis_push(&spec->mbs, b);
}

/* "auto" under NeMo's tables; explicit lists still win. */
static int
spec_auto_nemo(struct grid_spec *spec, const struct settings *c,
               struct strbuf *notes)
{
	struct nemo_search ns;
	double size_b = model_params(&c->model) / 1e9;

	if (nemo_search_space(&c->model, size_b, c->seq_length,
	                      c->gpu.memory_gib, &ns) != 0)
		return error("search.heuristics 'nemo': %s", ns.note);
	if (ns.note[0])
		strbuf_addf(notes, "warning: %s\n", ns.note);
	if (c->search.pp.is_auto && ns.npp == 0)
		strbuf_addf(notes, "warning: NeMo's pipeline range for this "
		            "size holds no divisor of %d layers: no candidate "
		            "can be valid\n", c->model.num_layers);
	if (c->search.tp.is_auto)
		for (int i = 0; i < ns.ntp; i++)
			axis_push(&spec->tp, ns.tp[i]);
	if (c->search.pp.is_auto)
		for (int i = 0; i < ns.npp; i++)
			axis_push(&spec->pp, ns.pp[i]);
	if (c->search.mbs.is_auto)
		for (int i = 0; i < ns.nmbs; i++)
			axis_push(&spec->mbs, ns.mbs[i]);
	if (c->global_batch_size.is_auto)
		axis_push(&spec->gbs, ns.gbs);
	/* NeMo's tables have no CP or EP: its default lists, [1]. */
	if (spec->cp.n == 0)
		axis_push(&spec->cp, 1);
	if (spec->ep.n == 0)
		axis_push(&spec->ep, 1);
	/* The campaign's bounds narrow the table's; they never widen it.
	 * Fine-tuning has no table bounds (spec_finetune_mp). */
	if (c->mode == MODE_FINETUNE)
		return 0;
	if (ns.min_mp > spec->min_mp)
		spec->min_mp = ns.min_mp;
	if (ns.max_mp < spec->max_mp)
		spec->max_mp = ns.max_mp;
	return 0;
}

/*
 * NeMo's bounds for fine-tuning: from the searched tp, pp and cp lists
 * and the GPU count, not the pretraining table's; bounds the campaign
 * sets itself narrow them, its built-in defaults do not.
 */
static void
spec_finetune_mp(struct grid_spec *spec, const struct settings *c)
{
	const struct nemo_list lists[] = {
		{ spec->tp.v, spec->tp.n },
		{ spec->pp.v, spec->pp.n },
		{ spec->cp.v, spec->cp.n },
	};
	int lo, hi;

	nemo_finetune_mp(lists, 3, c->nodes * c->gpus_per_node, &lo, &hi);
	spec->min_mp = lo;
	spec->max_mp = hi;
	if (settings_origin(c, "search.min_model_parallel") &&
	    c->search.min_model_parallel > lo)
		spec->min_mp = c->search.min_model_parallel;
	if (settings_origin(c, "search.max_model_parallel") &&
	    c->search.max_model_parallel < hi)
		spec->max_mp = c->search.max_model_parallel;
}

/* A global batch size for "auto": NeMo's table value for the size. */
static int
auto_gbs(const struct settings *c)
{
	struct nemo_search ns;

	if (nemo_search_space(&c->model, model_params(&c->model) / 1e9,
	                      c->seq_length, c->gpu.memory_gib, &ns) == 0 &&
	    ns.gbs > 0)
		return ns.gbs;
	return 1024; /* NeMo 2.0's GPT class default */
}

/* A boolean axis from a bit set: BIT(0) off, BIT(1) on; dflt when 0. */
static void
axis_bools(struct grid_axis *a, unsigned bits, unsigned dflt)
{
	axis_from_bits(a, bits ? bits : dflt, 2);
}

/* The tuning guide's switches.  Grouped GEMM only matters with experts,
 * so a dense model keeps one value of it. */
static void
spec_switches(struct grid_spec *spec, const struct settings *c)
{
	const struct search_space *s = &c->search;

	/* Unset: what the pipeline split needs (account_flags). */
	if (s->account_embedding == 0)
		axis_push(&spec->account_embedding, -1);
	else
		axis_from_bits(&spec->account_embedding, s->account_embedding, 2);
	if (s->account_loss == 0)
		axis_push(&spec->account_loss, -1);
	else
		axis_from_bits(&spec->account_loss, s->account_loss, 2);
	axis_from_bits(&spec->recompute_method, s->recompute_method
	               ? s->recompute_method : BIT(RECOMPUTE_BLOCK), 2);
	spec->rc_modules.n = 0;
	for (int i = 0; i < s->recompute_modules.n; i++)
		axis_push(&spec->rc_modules, (int)layout_modules_canonical(
			(unsigned)s->recompute_modules.v[i]));
	if (spec->rc_modules.n == 0)
		axis_push(&spec->rc_modules, 0);
	axis_bools(&spec->fsdp, s->fsdp, BIT(0));
	axis_bools(&spec->ogr, s->overlap_grad_reduce, BIT(1));
	axis_bools(&spec->grad_bf16, s->grad_reduce_bf16, BIT(0));
	if (s->overlap_param_gather == 0)
		axis_push(&spec->opg, -1);
	else
		axis_from_bits(&spec->opg, s->overlap_param_gather, 2);
	if (s->offload_layers.is_auto || s->offload_layers.n == 0)
		axis_push(&spec->offload, 0);
	else
		axis_from_list(&spec->offload, &s->offload_layers);
	axis_from_list_or_0(&spec->first_layers, &s->first_stage_layers);
	axis_from_list_or_0(&spec->last_layers, &s->last_stage_layers);
	axis_bools(&spec->tp_overlap, s->tp_comm_overlap, BIT(0));
	axis_bools(&spec->cuda_graphs, s->cuda_graphs, BIT(0));
	axis_from_bits(&spec->fp8_recipe, s->fp8_recipe ? s->fp8_recipe
	               : BIT(FP8_DELAYED), 4);
	axis_bools(&spec->fp8_param_gather, s->fp8_param_gather, BIT(0));
	axis_from_bits(&spec->cp_comm, s->cp_comm_type ? s->cp_comm_type
	               : BIT(CP_COMM_P2P), 4);
	axis_bools(&spec->grouped_gemm, s->moe_grouped_gemm, BIT(1));
	if (c->model.num_experts == 0)
		spec->grouped_gemm.n = 1;
	spec->relax = s->relax;
	spec->max_bubble = s->max_bubble_ratio;
	spec->max_unbalance = s->max_unbalance_ratio;
}

static void
spec_lists(struct grid_spec *spec, const struct settings *c)
{
	const struct search_space *s = &c->search;

	if (!s->tp.is_auto) axis_from_list(&spec->tp, &s->tp);
	if (!s->pp.is_auto) axis_from_list(&spec->pp, &s->pp);
	if (!s->cp.is_auto) axis_from_list(&spec->cp, &s->cp);
	if (!s->ep.is_auto) axis_from_list(&spec->ep, &s->ep);
	if (!s->mbs.is_auto) axis_from_list(&spec->mbs, &s->mbs);
	if (!c->global_batch_size.is_auto)
		axis_from_list(&spec->gbs, &c->global_batch_size);
	if (s->etp.is_auto)
		axis_push(&spec->etp, 0);
	else
		axis_from_list(&spec->etp, &s->etp);
	if (s->recompute_layers.is_auto)
		axis_push(&spec->recompute_layers, 0);
	else
		axis_from_list(&spec->recompute_layers, &s->recompute_layers);
	axis_from_bits(&spec->recompute, s->recompute ? s->recompute
	               : BIT(RECOMPUTE_SELECTIVE), 3);
	if (s->sequence_parallel == 0)
		axis_push(&spec->sp, -1);
	else
		axis_from_bits(&spec->sp, s->sequence_parallel, 2);
	axis_from_bits(&spec->distopt, s->distributed_optimizer
	               ? s->distributed_optimizer : BIT(1), 2);
	axis_from_bits(&spec->attention, s->attention ? s->attention
	               : BIT(ATTN_FLASH), 2);
	spec_switches(spec, c);
}

/* Warnings about switch lists that leave some value no valid layout. */
static void
spec_notes(const struct grid_spec *spec, struct strbuf *notes)
{
	bool fsdp_on = false, distopt_off = false;

	for (int i = 0; i < spec->fsdp.n; i++)
		fsdp_on |= spec->fsdp.v[i] != 0;
	for (int i = 0; i < spec->distopt.n; i++)
		distopt_off |= spec->distopt.v[i] == 0;
	if (fsdp_on && !distopt_off)
		strbuf_addstr(notes, "warning: FSDP replaces the distributed "
		              "optimizer: with search.distributed_optimizer "
		              "only true, no FSDP candidate can be valid (add "
		              "false to it)\n");
}

int
grid_spec_init(struct grid_spec *spec, const struct settings *c,
               struct strbuf *notes)
{
	const struct search_space *s = &c->search;

	memset(spec, 0, sizeof(*spec));
	if (c->mode == MODE_FINETUNE && (s->tp.is_auto || s->pp.is_auto))
		return error("finetune mode needs explicit "
		             "search.tensor_parallel and "
		             "search.pipeline_parallel lists");
	spec->min_mp = s->min_model_parallel;
	spec->max_mp = s->max_model_parallel;
	spec_lists(spec, c);
	if (s->heuristics == HEUR_NEMO &&
	    spec_auto_nemo(spec, c, notes) != 0)
		return -1;
	spec_auto_model(spec, c); /* fills what is still empty */
	if (s->heuristics == HEUR_NEMO && c->mode == MODE_FINETUNE)
		spec_finetune_mp(spec, c);
	if (spec->gbs.n == 0)
		axis_push(&spec->gbs, auto_gbs(c));
	if (!s->vp.is_auto) {
		spec->vp_rule = VP_LIST;
		axis_from_list(&spec->vp, &s->vp);
	} else if (s->heuristics == HEUR_NEMO) {
		spec->vp_rule = VP_NEMO;
		axis_push(&spec->vp, 1);
	} else {
		spec->vp_rule = VP_DIVISORS;
		axis_divisors(&spec->vp, c->model.num_layers,
		              c->model.num_layers);
	}
	spec_notes(spec, notes);
	return 0;
}

/* ---- the base configuration ---------------------------------------------------- */

int
grid_add_base(struct grid_result *res, const struct grid_spec *spec,
              const struct workload *w, const char *name_prefix,
              const struct layout *base)
{
	struct candidate c;

	for (int i = 0; i < res->n; i++)
		if (layout_equal(&res->v[i].layout, base)) {
			res->v[i].base = true;
			grid_finish(res);
			return i;
		}
	grid_candidate(spec, w, name_prefix, base, &c);
	c.base = true;
	grid_finish(res);
	/* Full: the base takes the place of the worst kept candidate. */
	if (res->n == res->cap)
		res->n--;
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
