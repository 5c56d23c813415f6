/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * grid.h - the candidate grid: every combination of the searched values,
 * checked against the layout rules, estimated, and ranked.
 *
 * The grid is streamed: combinations are visited one at a time by an
 * odometer over the value lists, and only the best max_candidates are
 * kept (a bounded heap), so memory does not grow with the grid.
 */
#ifndef PARATUNE_GRID_H
#define PARATUNE_GRID_H

#include <stdbool.h>

#include "config.h"
#include "estimate.h"
#include "layout.h"

#define GRID_LIST_MAX 128

struct grid_axis {
	int v[GRID_LIST_MAX];
	int n;
	int dropped;    /* values past GRID_LIST_MAX left out, to warn of */
};

/* The stage layer counts of a campaign that lists none: each pp's own
 * (layout_auto_stages), in first_layers and last_layers alone. */
#define GRID_STAGES_AUTO (-1)

/* Resolved value lists ("auto" expanded) and bounds. */
struct grid_spec {
	struct grid_axis tp, pp, cp, ep, etp, vp, mbs, gbs;
	struct grid_axis account_embedding, account_loss; /* 0, 1 */
	struct grid_axis recompute;        /* enum recompute values */
	struct grid_axis recompute_layers; /* for full; 0 = all layers */
	struct grid_axis recompute_method; /* for full; enum recompute_method */
	struct grid_axis rc_modules;       /* for selective; BIT(RCM_*) sets,
	                                    * 0 for core_attn alone */
	struct grid_axis sp;               /* -1 auto (tp > 1), 0, 1 */
	struct grid_axis distopt;          /* 0, 1 */
	struct grid_axis fsdp;             /* 0, 1 */
	struct grid_axis ogr;              /* overlap_grad_reduce 0, 1 */
	struct grid_axis grad_bf16;        /* grad_reduce_in_bf16 0, 1 */
	struct grid_axis opg;              /* overlap_param_gather -1 auto */
	struct grid_axis offload;          /* activation offload layers */
	struct grid_axis first_layers;     /* first stage's layers; 0 even,
	                                    * GRID_STAGES_AUTO as pp needs */
	struct grid_axis last_layers;      /* last stage's layers; 0 even */
	struct grid_axis attention;        /* enum attention_impl */
	struct grid_axis tp_overlap;       /* tp_comm_overlap 0, 1 */
	struct grid_axis cuda_graphs;      /* 0, 1 */
	struct grid_axis fp8_recipe;       /* enum fp8_recipe */
	struct grid_axis fp8_param_gather; /* 0, 1 */
	struct grid_axis fp8_dpa;          /* fp8_dot_product_attention 0, 1 */
	struct grid_axis cp_comm;          /* enum cp_comm */
	struct grid_axis grouped_gemm;     /* 0, 1; one value when dense */
	struct grid_axis dispatcher;       /* enum moe_dispatcher; one value
	                                    * when dense */
	struct grid_axis a2a_overlap;      /* 0, 1; 0 alone when dense */
	struct grid_axis graph_full_iter;  /* 0, 1 */
	int min_mp, max_mp;
	unsigned relax;                    /* BIT(RELAX_*) turned off */
	double max_bubble, max_unbalance;  /* < 0: no limit */
	/* How vp values are chosen: the list, every divisor of the layers
	 * per stage, or NeMo's one layer per virtual stage when pp > 2. */
	enum { VP_LIST, VP_DIVISORS, VP_NEMO } vp_rule;
};

struct candidate {
	struct layout layout;
	struct estimate est;
	bool base;
	int rank;
	char name[192];
};

/*
 * What the walk saw: examined = valid + invalid + no_effect + removed,
 * each of the last three split by rule in by_rule (layout_rule_kind
 * says which kind a rule is).
 */
struct grid_stats {
	long long examined;
	long long invalid;        /* Megatron-LM would refuse them */
	long long no_effect;      /* a switch that changes nothing there */
	long long removed;        /* left out by a search control */
	long long by_rule[RULE_COUNT];
	long long valid;
	long long safe, oom_risk;
	long long dropped;        /* valid but beyond max_candidates */
};

/* Ranked candidates, best first once grid_finish() has run. */
/*
 * A layout the walk left out, kept to show how near the search came:
 * whole (leaf) when it was built to its switches, else only its tp, pp
 * and cp (the walk never built the rest).
 */
struct grid_near {
	struct layout layout;
	enum layout_rule rule;
	bool leaf;
	int score;                /* how far it got; higher is nearer */
};

#define GRID_NEAR_MAX 5

struct grid_result {
	struct candidate *v;
	int n, cap;               /* kept, and the most kept */
	size_t alloc;             /* slots of v, grown as candidates come */
	struct grid_stats stats;
	char *notes;              /* warnings about the search, or NULL */
	/* The removed layouts that got furthest through the rules, at
	 * most two a rule, nearest first once grid_finish() has run. */
	struct grid_near near[GRID_NEAR_MAX];
	int nnear;
};

/*
 * Expand the campaign's search section into lists.  Returns 0, or -1
 * after an error message (e.g. finetune without tp lists).
 */
int grid_spec_init(struct grid_spec *spec, const struct settings *c,
                   struct strbuf *notes);

/* Number of combinations the spec describes (vp auto counted as the
 * number of layer divisors), saturating at LLONG_MAX. */
long long grid_spec_size(const struct grid_spec *spec);

/*
 * Layouts grid_run would check one by one: the combinations below the
 * outer ones (tp, pp, cp, the pipeline split) that pass the rules those
 * decide alone, which are counted out whole.  A double: it can pass
 * LLONG_MAX.
 */
double grid_leaves(const struct grid_spec *spec, const struct workload *w);

/* The most layouts a plan checks one by one (grid_leaves): some 30 s
 * to a minute; a grid beyond it would run for hours or days. */
#define GRID_LEAVES_MAX 1e9

typedef void (*grid_progress_fn)(void *arg, long long examined,
                                 long long total);

/*
 * Visit every combination, keep the best cap candidates in res (ranked:
 * safe before oom-risk, then by predicted time per sample).  progress,
 * when not NULL, is called about every million combinations.
 */
void grid_run(const struct grid_spec *spec, const struct workload *w,
              const char *name_prefix, int cap, struct grid_result *res,
              grid_progress_fn progress, void *arg);

/* Sort the kept candidates and number their ranks from 1. */
void grid_finish(struct grid_result *res);
void grid_result_release(struct grid_result *res);

/* Estimate one layout and name it as the grid would. */
void grid_candidate(const struct grid_spec *spec, const struct workload *w,
                    const char *name_prefix, const struct layout *l,
                    struct candidate *out);
/*
 * Mark base (a layout that passed layout_check) as the base candidate,
 * adding it in place of the worst kept one when the grid did not keep
 * it, and re-rank.  Returns its index in res.
 */
int grid_add_base(struct grid_result *res, const struct grid_spec *spec,
                  const struct workload *w, const char *name_prefix,
                  const struct layout *base);
/* The safe kept candidate with the smallest model-parallel size (the
 * best ranked among equals), or -1 when none is safe.  Needs ranks. */
int grid_default_base(const struct grid_result *res);

/* Ordering used for ranks: negative when a is better than b. */
int candidate_compare(const struct candidate *a, const struct candidate *b);

/*
 * The account_for_* flags a campaign leaves to paratune ("auto": a flag
 * of -1) as the pipeline split needs them: none where the layers split
 * evenly over pp or the first and last stages have counts of their own,
 * else the embedding, and the loss too unless one extra layer is enough.
 * A flag of 0 or 1 is the campaign's and is kept.
 */
void grid_account_auto(const struct model *m, int embedding, int loss,
                       struct layout *l);

#endif
