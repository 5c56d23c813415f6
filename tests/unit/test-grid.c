/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-grid.c - the streamed grid: counts worked by hand, ranking,
 * bounded memory (the cap keeps exactly the best), the base.
 */
#include "autoconfig.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "grid.h"
#include "harness.h"
#include "models.h"

/* A campaign of Llama 3 8B on one node, searched lists set below. */
static void
campaign_fixture(struct settings *c)
{
	settings_init(c);
	c->model = test_llama3_8b();
	c->gpu = test_h100();
	c->nodes = 1;
	c->gpus_per_node = 8;
	c->seq_length = 4096;
	c->precision = PREC_BF16;
	c->memory.margin_gb = 4;
	c->search.heuristics = HEUR_MODEL;
	c->search.min_model_parallel = 1;
	c->search.max_model_parallel = 64;
}

static void
set_list(struct int_list *l, int n, const int *v)
{
	l->is_auto = false;
	l->n = n;
	for (int i = 0; i < n; i++)
		l->v[i] = v[i];
}

static void
small_lists(struct settings *c)
{
	static const int tp[] = { 1, 2, 4, 8 }, pp[] = { 1, 2 }, one[] = { 1 };
	static const int mbs[] = { 1, 2 }, gbs[] = { 64 };

	set_list(&c->search.tp, 4, tp);
	set_list(&c->search.pp, 2, pp);
	set_list(&c->search.cp, 1, one);
	set_list(&c->search.ep, 1, one);
	set_list(&c->search.vp, 1, one);
	set_list(&c->search.mbs, 2, mbs);
	set_list(&c->global_batch_size, 1, gbs);
	c->search.recompute = BIT(RECOMPUTE_SELECTIVE);
}

static void
run(struct settings *c, int cap, struct grid_spec *spec,
    struct grid_result *res, struct workload *w)
{
	struct strbuf notes = STRBUF_INIT;

	CU_ASSERT_EQUAL_FATAL(grid_spec_init(spec, c, &notes), 0);
	settings_workload(c, w);
	w->model = &c->model;
	w->gpu = &c->gpu;
	w->gpu_memory_gib = c->gpu.memory_gib;
	grid_run(spec, w, "llama_8.03b_1nodes", cap, res, NULL, NULL);
	grid_finish(res);
	strbuf_release(&notes);
}

/*
 * 4 tp x 2 pp x 2 mbs = 16 combinations.  tp 8 with pp 2 needs 16 GPUs
 * (2 combinations invalid by the world rule); every other one divides
 * heads 32, groups 8, layers 32 and gbs 64 % (mbs*dp) (dp <= 8, mbs <= 2).
 */
static void
test_counts_by_hand(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(grid_spec_size(&spec), 16);
	CU_ASSERT_EQUAL(res.stats.examined, 16);
	CU_ASSERT_EQUAL(res.stats.invalid, 2);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_WORLD], 2);
	CU_ASSERT_EQUAL(res.stats.valid, 14);
	CU_ASSERT_EQUAL(res.stats.safe + res.stats.oom_risk, 14);
	CU_ASSERT_EQUAL(res.n, 14);
	CU_ASSERT_EQUAL(res.stats.dropped, 0);
	grid_result_release(&res);
	settings_release(&c);
}

static void
test_ranked_and_named(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	run(&c, 100, &spec, &res, &w);
	for (int i = 0; i < res.n; i++) {
		CU_ASSERT_EQUAL(res.v[i].rank, i + 1);
		if (i > 0)
			CU_ASSERT(candidate_compare(&res.v[i - 1], &res.v[i]) < 0);
		for (int j = 0; j < i; j++)
			CU_ASSERT(strcmp(res.v[i].name, res.v[j].name) != 0);
	}
	/* Safe candidates come before the ones at risk. */
	for (int i = 1; i < res.n; i++)
		CU_ASSERT(!(res.v[i - 1].est.memory_status == MEM_OOM_RISK &&
		            res.v[i].est.memory_status == MEM_SAFE));
	CU_ASSERT_STRING_EQUAL(strstr(res.v[0].name, "_seq_") ?
	                       strstr(res.v[0].name, "_seq_") : "",
	                       "_seq_4096_gbs_64");
	CU_ASSERT(strncmp(res.v[0].name, "llama_8.03b_1nodes_tp_", 22) == 0);
	grid_result_release(&res);
	settings_release(&c);
}

/* A capped run keeps exactly the best of the uncapped one. */
static void
test_cap_keeps_the_best(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result all, top;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	run(&c, 100, &spec, &all, &w);
	run(&c, 5, &spec, &top, &w);
	CU_ASSERT_EQUAL(top.n, 5);
	CU_ASSERT_EQUAL(top.stats.dropped, 9);
	CU_ASSERT_EQUAL(top.stats.valid, 14);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_STRING_EQUAL(top.v[i].name, all.v[i].name);
	grid_result_release(&all);
	grid_result_release(&top);
	settings_release(&c);
}

/* "auto" vp: every divisor of the layers, and of the layers with the
 * embedding and the loss counted (33, 34), filtered by the rules. */
static void
test_auto_vp_and_rule_totals(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	long long sum = 0;

	campaign_fixture(&c);
	small_lists(&c);
	c.search.vp.is_auto = true;
	run(&c, 1000, &spec, &res, &w);
	/* Divisors of 32: 1 2 4 8 16 32; of 33: 3 11; of 34: 17. */
	CU_ASSERT_EQUAL(spec.vp.n, 9);
	CU_ASSERT_EQUAL(res.stats.examined, 16 * 9);
	for (int r = 0; r < RULE_COUNT; r++)
		sum += res.stats.by_rule[r];
	CU_ASSERT_EQUAL(sum, res.stats.invalid + res.stats.no_effect +
	                res.stats.removed + res.stats.valid);
	CU_ASSERT_EQUAL(res.stats.by_rule[LAYOUT_OK], res.stats.valid);
	/* pp 2 allows vp 2, 4, 8, 16 (32 % (2*vp) == 0); m = 64/(mbs*dp)
	 * must be a multiple of 2: tp 1: dp 4, m 16 or 8; tp 2: dp 2, m 32
	 * or 16; tp 4: dp 1, m 64 or 32: all even.  So 3 tp x 2 mbs x 4 vp
	 * = 24 interleaved candidates plus the 14 without. */
	CU_ASSERT_EQUAL(res.stats.valid, 14 + 24);
	grid_result_release(&res);
	settings_release(&c);
}

/* The base is marked, and added in place of the worst when not kept. */
static void
test_base_added(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	struct layout base;
	int i;

	campaign_fixture(&c);
	small_lists(&c);
	run(&c, 3, &spec, &res, &w);
	base = res.v[2].layout; /* kept: just marked */
	i = grid_add_base(&res, &spec, &w, "x", &base);
	CU_ASSERT(res.v[i].base);
	CU_ASSERT_EQUAL(res.n, 3);
	grid_result_release(&res);

	run(&c, 3, &spec, &res, &w);
	memset(&base, 0, sizeof(base));
	base.tp = 8; base.pp = 1; base.cp = base.ep = base.vp = 1;
	base.mbs = 2; base.gbs = 64;
	base.recompute = RECOMPUTE_SELECTIVE;
	base.sequence_parallel = true;
	base.distributed_optimizer = true;
	CU_ASSERT_EQUAL_FATAL(layout_check(&w, &base), LAYOUT_OK);
	i = grid_add_base(&res, &spec, &w, "x", &base);
	CU_ASSERT_EQUAL(res.n, 3);
	CU_ASSERT(res.v[i].base);
	CU_ASSERT_EQUAL(res.v[i].layout.tp, 8);
	CU_ASSERT_EQUAL(res.v[i].rank, i + 1);
	grid_result_release(&res);
	settings_release(&c);
}

/* Every combination is counted once, in one of the four kinds. */
static void
check_totals(const struct grid_result *res)
{
	const struct grid_stats *st = &res->stats;
	long long kinds[4] = { 0 };

	CU_ASSERT_EQUAL(st->examined, st->valid + st->invalid +
	                st->no_effect + st->removed);
	for (int r = 0; r < RULE_COUNT; r++)
		kinds[layout_rule_kind((enum layout_rule)r)] += st->by_rule[r];
	CU_ASSERT_EQUAL(kinds[RULE_KIND_OK], st->valid);
	CU_ASSERT_EQUAL(kinds[RULE_KIND_INVALID], st->invalid);
	CU_ASSERT_EQUAL(kinds[RULE_KIND_NO_EFFECT], st->no_effect);
	CU_ASSERT_EQUAL(kinds[RULE_KIND_CONTROL], st->removed);
}

/*
 * CP at seq 4096 on Llama 3 8B (hidden 4096): the guide's rule removes
 * cp 2 (tp 1 and 2: 2 of 4 combinations), search.relax keeps them.
 */
static void
test_cp_seq_control_and_relax(void)
{
	static const int tp[] = { 1, 2 }, cp[] = { 1, 2 }, one[] = { 1 };
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	set_list(&c.search.tp, 2, tp);
	set_list(&c.search.pp, 1, one);
	set_list(&c.search.cp, 2, cp);
	set_list(&c.search.mbs, 1, one);
	/* Relaxed by default; a campaign applies it with relax = []. */
	c.search.relax = 0;
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(res.stats.examined, 4);
	CU_ASSERT_EQUAL(res.stats.removed, 2);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_CP_SEQ], 2);
	CU_ASSERT_EQUAL(res.stats.valid, 2);
	check_totals(&res);
	grid_result_release(&res);
	c.search.relax = BIT(RELAX_CP_SEQ);
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(res.stats.removed, 0);
	CU_ASSERT_EQUAL(res.stats.valid, 4);
	grid_result_release(&res);
	settings_release(&c);
}

/*
 * search.max_pipeline_bubble_ratio: tp 1, gbs 64 on 8 GPUs: pp 2 has
 * dp 4 and 16 micro-batches, a bubble of about 1/17 = 0.059; pp 4 has
 * 32 and about 3/35 = 0.086.  A limit of 0.07 removes pp 4 only.
 */
static void
test_bubble_control(void)
{
	static const int pp[] = { 1, 2, 4 }, one[] = { 1 };
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	set_list(&c.search.tp, 1, one);
	set_list(&c.search.pp, 3, pp);
	set_list(&c.search.mbs, 1, one);
	c.search.max_bubble_ratio = 0.07;
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(res.stats.examined, 3);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_BUBBLE], 1);
	CU_ASSERT_EQUAL(res.stats.valid, 2);
	for (int i = 0; i < res.n; i++)
		CU_ASSERT(res.v[i].layout.pp < 4 &&
		          res.v[i].est.bubble_ratio <= 0.07);
	/* The one removed layout is the nearest, whole. */
	CU_ASSERT_EQUAL_FATAL(res.nnear, 1);
	CU_ASSERT_EQUAL(res.near[0].rule, RULE_BUBBLE);
	CU_ASSERT_EQUAL(res.near[0].layout.pp, 4);
	CU_ASSERT_TRUE(res.near[0].leaf);
	check_totals(&res);
	grid_result_release(&res);
	settings_release(&c);
}

/*
 * The nearest removed layouts: pp 3 does not divide 8 GPUs (removed
 * before it is built), pp 4 breaks the bubble limit after its estimate:
 * the estimate control comes first; no rule holds more than two.
 */
static void
test_nearest_removed(void)
{
	static const int pp[] = { 3, 4, 5, 6, 7 }, one[] = { 1 };
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	int world = 0;

	campaign_fixture(&c);
	small_lists(&c);
	set_list(&c.search.tp, 1, one);
	set_list(&c.search.pp, 5, pp);
	set_list(&c.search.mbs, 1, one);
	c.search.max_bubble_ratio = 0.07;
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(res.stats.valid, 0);
	CU_ASSERT_EQUAL_FATAL(res.nnear, 3);
	CU_ASSERT_EQUAL(res.near[0].rule, RULE_BUBBLE);
	CU_ASSERT_TRUE(res.near[0].leaf);
	for (int i = 1; i < res.nnear; i++) {
		CU_ASSERT_EQUAL(res.near[i].rule, RULE_WORLD);
		CU_ASSERT_FALSE(res.near[i].leaf);
		world++;
	}
	CU_ASSERT_EQUAL(world, 2);
	grid_result_release(&res);
	settings_release(&c);
}

/*
 * search.max_pipeline_unbalance_ratio 0: one stage is balanced, every
 * pipeline has a heavier last stage (the logits): the 6 valid pp 2
 * combinations of the small grid go, the 8 with pp 1 stay.
 */
static void
test_unbalance_control(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	c.search.max_unbalance_ratio = 0;
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(res.stats.examined, 16);
	CU_ASSERT_EQUAL(res.stats.invalid, 2);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_UNBALANCE], 6);
	CU_ASSERT_EQUAL(res.stats.valid, 8);
	check_totals(&res);
	grid_result_release(&res);
	settings_release(&c);
}

/*
 * A switch without effect: cp_comm_type a2a with cp 1 is the p2p run
 * again, 14 of the 32 combinations (4 more are tp 8 pp 2, invalid).
 */
static void
test_no_effect_counts(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	c.search.cp_comm_type = BIT(CP_COMM_P2P) | BIT(CP_COMM_A2A);
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(grid_spec_size(&spec), 32);
	CU_ASSERT_EQUAL(res.stats.examined, 32);
	CU_ASSERT_EQUAL(res.stats.invalid, 4);
	CU_ASSERT_EQUAL(res.stats.no_effect, 14);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_CP_COMM], 14);
	CU_ASSERT_EQUAL(res.stats.valid, 14);
	check_totals(&res);
	grid_result_release(&res);
	settings_release(&c);
}

/*
 * The account flags join tp, pp, cp in the outer loop: 4 tp x 2 pp x
 * 2 x 2 flags x 2 mbs = 64.  pp 1: 8 valid without flags, 24 with one
 * or both (no effect).  pp 2: tp 8 is 8 world-invalid; 32 + 1 layers is
 * odd (12 invalid); none or both flags: 6 + 6 valid.
 */
static void
test_account_flags_counts(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	bool both = false;

	campaign_fixture(&c);
	small_lists(&c);
	c.search.account_embedding = BIT(0) | BIT(1);
	c.search.account_loss = BIT(0) | BIT(1);
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(grid_spec_size(&spec), 64);
	CU_ASSERT_EQUAL(res.stats.examined, 64);
	CU_ASSERT_EQUAL(res.stats.valid, 20);
	CU_ASSERT_EQUAL(res.stats.invalid, 20);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_WORLD], 8);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_LAYERS_PP], 12);
	CU_ASSERT_EQUAL(res.stats.no_effect, 24);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_ACCOUNT], 24);
	check_totals(&res);
	for (int i = 0; i < res.n; i++)
		if (strstr(res.v[i].name, "_ae_1_al_1"))
			both = true;
	CU_ASSERT_TRUE(both);
	grid_result_release(&res);
	settings_release(&c);
}

/*
 * FSDP replaces the distributed optimizer: with both searched, the 14
 * FSDP layouts that keep it are invalid; with it only on, every FSDP
 * layout is, and the notes say so.  The automatic parameter-gather
 * overlap follows FSDP.
 */
static void
test_fsdp_counts(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	struct strbuf notes = STRBUF_INIT;

	campaign_fixture(&c);
	small_lists(&c);
	c.search.fsdp = BIT(0) | BIT(1);
	c.search.distributed_optimizer = BIT(0) | BIT(1);
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(res.stats.examined, 64);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_FSDP], 14);
	CU_ASSERT_EQUAL(res.stats.valid, 42);
	for (int i = 0; i < res.n; i++) {
		const struct layout *l = &res.v[i].layout;

		CU_ASSERT_FALSE(l->fsdp && l->distributed_optimizer);
		CU_ASSERT_EQUAL(l->overlap_param_gather,
		                l->fsdp || l->distributed_optimizer);
	}
	check_totals(&res);
	grid_result_release(&res);
	c.search.distributed_optimizer = BIT(1);
	CU_ASSERT_EQUAL(grid_spec_init(&spec, &c, &notes), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes.buf, "FSDP"));
	strbuf_release(&notes);
	settings_release(&c);
}

/*
 * Recompute layer counts and methods multiply only full recompute:
 * selective + full x {0, 2} layers x {block, uniform} = 5 kinds, 80
 * combinations; names tell every one apart.  A dense model searches no
 * grouped GEMM.
 */
static void
test_recompute_kinds_and_names(void)
{
	static const int layers[] = { 0, 2 };
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	c.search.recompute = BIT(RECOMPUTE_SELECTIVE) | BIT(RECOMPUTE_FULL);
	set_list(&c.search.recompute_layers, 2, layers);
	c.search.recompute_method = BIT(RECOMPUTE_BLOCK) |
	                            BIT(RECOMPUTE_UNIFORM);
	c.search.moe_grouped_gemm = BIT(0) | BIT(1);
	run(&c, 1000, &spec, &res, &w);
	CU_ASSERT_EQUAL(spec.grouped_gemm.n, 1);
	CU_ASSERT_EQUAL(grid_spec_size(&spec), 80);
	CU_ASSERT_EQUAL(res.stats.examined, 80);
	CU_ASSERT_EQUAL(res.stats.valid, 14 * 5);
	for (int i = 0; i < res.n; i++)
		for (int j = 0; j < i; j++)
			CU_ASSERT(strcmp(res.v[i].name, res.v[j].name) != 0);
	/* tp 1 pp 1: uniform over the whole stage is one run of 32. */
	for (int i = 0; i < res.n; i++) {
		const struct layout *l = &res.v[i].layout;

		if (l->tp == 1 && l->pp == 1 && l->mbs == 1 &&
		    l->recompute == RECOMPUTE_FULL &&
		    l->recompute_method == RECOMPUTE_UNIFORM &&
		    l->recompute_layers == 0)
			CU_ASSERT_PTR_NOT_NULL(strstr(res.v[i].name,
			                              "_rc_unif32"));
	}
	grid_result_release(&res);
	settings_release(&c);
}

/*
 * One run spelled twice is kept once.  Full recompute x {0, 16, 4}
 * layers x {block, uniform}: at pp 1 (a chunk of 32) six runs; at pp 2
 * (16) block over 16 is block over 0, every layer, and uniform over 16
 * is uniform over 0, the chunk in one run: four runs and two repeats,
 * the first listed kept.  14 layouts valid (test_counts_by_hand), 6 of
 * them at pp 2.  A base spelled as a repeat is the kept candidate.
 */
static void
test_recompute_repeats(void)
{
	static const int layers[] = { 0, 16, 4 };
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	struct layout base;
	int i, all = 0;

	campaign_fixture(&c);
	small_lists(&c);
	c.search.recompute = BIT(RECOMPUTE_FULL);
	set_list(&c.search.recompute_layers, 3, layers);
	c.search.recompute_method = BIT(RECOMPUTE_BLOCK) |
	                            BIT(RECOMPUTE_UNIFORM);
	run(&c, 1000, &spec, &res, &w);
	CU_ASSERT_EQUAL(res.stats.examined, 96LL);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_RC_SAME], 12LL);
	CU_ASSERT_EQUAL(res.stats.no_effect, 12LL);
	CU_ASSERT_EQUAL(res.stats.valid, 72LL); /* 8 x 6 + 6 x 4 */
	CU_ASSERT_EQUAL(res.n, 72);
	for (i = 0; i < res.n; i++) {
		const struct layout *l = &res.v[i].layout;

		for (int j = 0; j < i; j++)
			CU_ASSERT(strcmp(res.v[i].name, res.v[j].name) != 0);
		if (l->pp == 2 && strstr(res.v[i].name, "_rc_full16")) {
			CU_ASSERT_EQUAL(l->recompute_layers, 0);
			all++;
		}
	}
	CU_ASSERT_EQUAL(all, 6);
	for (i = 0; i < res.n; i++)
		if (res.v[i].layout.pp == 2 &&
		    res.v[i].layout.recompute_layers == 0 &&
		    res.v[i].layout.recompute_method == RECOMPUTE_BLOCK)
			break;
	CU_ASSERT_FATAL(i < res.n);
	base = res.v[i].layout;
	base.recompute_layers = 16;
	CU_ASSERT_EQUAL(grid_add_base(&res, &spec, &w, "x", &base), i);
	CU_ASSERT_EQUAL(res.n, 72);
	grid_result_release(&res);
	settings_release(&c);
}

/* Token dispatchers, searched: each MoE candidate three times, named
 * _disp_a2a/_ag/_flex, flex only where ep*etp > 1; on a dense model the
 * axis is alltoall alone whatever the campaign lists. */
static void
test_dispatchers_searched(void)
{
	static const int ep[] = { 1, 8 }, one[] = { 1 };
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	int flex = 0, ag = 0, hep = 0;

	campaign_fixture(&c);
	small_lists(&c);
	c.search.moe_dispatcher = BIT(MOE_DISPATCH_ALLGATHER) |
	                          BIT(MOE_DISPATCH_FLEX) |
	                          BIT(MOE_DISPATCH_HYBRIDEP);
	run(&c, 1000, &spec, &res, &w);
	CU_ASSERT_EQUAL(spec.dispatcher.n, 1);
	CU_ASSERT_EQUAL(spec.dispatcher.v[0], MOE_DISPATCH_ALLTOALL);
	CU_ASSERT(res.n > 0);
	grid_result_release(&res);
	c.model = test_mixtral_8x7b();
	set_list(&c.search.ep, 2, ep);
	set_list(&c.search.etp, 1, one);
	set_list(&c.search.tp, 1, one);
	run(&c, 1000, &spec, &res, &w);
	CU_ASSERT_EQUAL(spec.dispatcher.n, 3);
	for (int i = 0; i < res.n; i++) {
		const struct layout *l = &res.v[i].layout;
		const char *name = res.v[i].name;

		if (l->moe_dispatcher == MOE_DISPATCH_FLEX) {
			flex++;
			CU_ASSERT_EQUAL(l->ep, 8);
			CU_ASSERT_PTR_NOT_NULL(strstr(name, "_disp_flex"));
		} else if (l->moe_dispatcher == MOE_DISPATCH_HYBRIDEP) {
			hep++;
			CU_ASSERT_EQUAL(l->ep, 8);
			CU_ASSERT_PTR_NOT_NULL(strstr(name, "_disp_hep"));
		} else {
			ag++;
			CU_ASSERT_PTR_NOT_NULL(strstr(name, "_disp_ag"));
		}
	}
	CU_ASSERT(flex > 0);
	CU_ASSERT_EQUAL(hep, flex);
	CU_ASSERT(ag > flex);   /* ep 1 has allgather only */
	grid_result_release(&res);
	settings_release(&c);
}

/* "auto" etp on an MoE model: tp's own size and 1, as NeMo's Qwen3
 * recipes run tp 4 with etp 1; at tp 1 the two are one layout, counted
 * once as without effect.  NeMo's heuristics and dense models keep
 * tp's size alone. */
static void
test_auto_etp(void)
{
	static const int tp[] = { 1, 2 }, two[] = { 2 }, one[] = { 1 };
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	struct strbuf notes = STRBUF_INIT;
	int unsplit = 0;

	campaign_fixture(&c);
	small_lists(&c);
	c.model = test_mixtral_8x7b();
	set_list(&c.search.tp, 2, tp);
	set_list(&c.search.pp, 1, one);
	set_list(&c.search.ep, 1, two);
	set_list(&c.search.mbs, 1, one);
	CU_ASSERT(c.search.etp.is_auto);
	run(&c, 1000, &spec, &res, &w);
	CU_ASSERT_EQUAL(spec.etp.n, 2);
	CU_ASSERT_EQUAL(res.stats.examined, 4);
	CU_ASSERT_EQUAL(res.stats.valid, 3);
	CU_ASSERT_EQUAL(res.stats.no_effect, 1);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_ETP_TP], 1);
	for (int i = 0; i < res.n; i++) {
		const struct layout *l = &res.v[i].layout;

		if (l->tp == 2 && layout_etp(l) == 1) {
			unsplit++;
			CU_ASSERT_PTR_NOT_NULL(strstr(res.v[i].name, "_etp_1"));
		}
	}
	CU_ASSERT_EQUAL(unsplit, 1);
	grid_result_release(&res);
	c.search.heuristics = HEUR_NEMO;
	CU_ASSERT_EQUAL(grid_spec_init(&spec, &c, &notes), 0);
	CU_ASSERT_EQUAL(spec.etp.n, 1);
	strbuf_release(&notes);
	settings_release(&c);
	campaign_fixture(&c);
	small_lists(&c);
	run(&c, 1000, &spec, &res, &w);
	CU_ASSERT_EQUAL(spec.etp.n, 1);
	grid_result_release(&res);
	settings_release(&c);
}

/* A name longer than a candidate's keeps its head and a hash of the
 * whole, so that names stay unique. */
static void
test_long_names_stay_unique(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	struct strbuf notes = STRBUF_INIT;
	char prefix[161];

	memset(prefix, 'x', sizeof prefix - 1);
	prefix[sizeof prefix - 1] = '\0';
	campaign_fixture(&c);
	small_lists(&c);
	CU_ASSERT_EQUAL_FATAL(grid_spec_init(&spec, &c, &notes), 0);
	settings_workload(&c, &w);
	grid_run(&spec, &w, prefix, 100, &res, NULL, NULL);
	grid_finish(&res);
	CU_ASSERT_EQUAL(res.n, 14);
	for (int i = 0; i < res.n; i++) {
		const char *name = res.v[i].name;
		size_t n = strlen(name);

		CU_ASSERT(n < sizeof res.v[i].name);
		CU_ASSERT(n > 10 && name[n - 10] == '_' && name[n - 9] == 'h');
		for (int j = 0; j < i; j++)
			CU_ASSERT(strcmp(name, res.v[j].name) != 0);
	}
	grid_result_release(&res);
	strbuf_release(&notes);
	settings_release(&c);
}

/* Finetune without explicit tp and pp lists is refused. */
static int
finetune_auto(void *arg)
{
	struct settings *c = arg;
	struct grid_spec spec;
	struct strbuf notes = STRBUF_INIT;
	int r = grid_spec_init(&spec, c, &notes);

	strbuf_release(&notes);
	return r;
}

static void
test_finetune_needs_lists(void)
{
	struct settings c;
	char *err;
	int ret;

	campaign_fixture(&c);
	c.mode = MODE_FINETUNE;
	c.search.tp.is_auto = true;
	err = harness_capture_stderr(finetune_auto, &c, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "finetune"));
	free(err);
	settings_release(&c);
}

/*
 * NeMo fine-tuning bounds the model-parallel size by the lists, not by
 * the pretraining table (notes: NeMo auto configurator, section 3):
 * min = 2*1*1, max = min(4*4*2, 64 GPUs).  The table's row for 8 B
 * would give other bounds; the campaign's built-in 64 does not narrow.
 */
static void
test_finetune_nemo_mp_bounds(void)
{
	static const int tp[] = { 4, 2 }, pp[] = { 1, 2, 4 }, cp[] = { 1, 2 };
	struct settings c;
	struct grid_spec spec;
	struct strbuf notes = STRBUF_INIT;

	campaign_fixture(&c);
	small_lists(&c);
	c.nodes = 8;
	c.mode = MODE_FINETUNE;
	c.search.heuristics = HEUR_NEMO;
	set_list(&c.search.tp, 2, tp);
	set_list(&c.search.pp, 3, pp);
	set_list(&c.search.cp, 2, cp);
	CU_ASSERT_EQUAL_FATAL(grid_spec_init(&spec, &c, &notes), 0);
	CU_ASSERT_EQUAL(spec.min_mp, 2);
	CU_ASSERT_EQUAL(spec.max_mp, 32);
	/* Capped at the GPU count: 4*4*2 = 32 > 16. */
	c.nodes = 2;
	CU_ASSERT_EQUAL_FATAL(grid_spec_init(&spec, &c, &notes), 0);
	CU_ASSERT_EQUAL(spec.min_mp, 2);
	CU_ASSERT_EQUAL(spec.max_mp, 16);
	/* Pretraining keeps the table's bounds. */
	c.nodes = 8;
	c.mode = MODE_PRETRAIN;
	CU_ASSERT_EQUAL_FATAL(grid_spec_init(&spec, &c, &notes), 0);
	CU_ASSERT(spec.min_mp != 2 || spec.max_mp != 32);
	strbuf_release(&notes);
	settings_release(&c);
}

/* tp = pp = 65536 in a campaign: the product wrapped an int to 0 and
 * the grid divided the GPU count by it (SIGFPE). */
static void
test_huge_sizes_counted_invalid(void)
{
	static const int huge[] = { 65536 }, one[] = { 1 };
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	set_list(&c.search.tp, 1, huge);
	set_list(&c.search.pp, 1, huge);
	set_list(&c.search.mbs, 1, one);
	run(&c, 10, &spec, &res, &w);
	CU_ASSERT_EQUAL(res.n, 0);
	CU_ASSERT_EQUAL(res.stats.examined, 1);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_WORLD], 1);
	grid_result_release(&res);
	settings_release(&c);
}

/*
 * Lists whose product passes 2^63: the counts wrapped (to 0 or below),
 * so that grid_leaves let a grid of 2^64 layouts through and the stats
 * read "-9079256848778919936 combinations".  They saturate now.
 */
static void
test_counts_saturate(void)
{
	static const int three[] = { 3 };
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	struct strbuf notes = STRBUF_INIT;

	campaign_fixture(&c);
	small_lists(&c);
	/* tp 3 divides no 8 GPUs: every combination is counted whole. */
	set_list(&c.search.tp, 1, three);
	set_list(&c.search.pp, 1, three);
	CU_ASSERT_EQUAL_FATAL(grid_spec_init(&spec, &c, &notes), 0);
	settings_workload(&c, &w);
	w.model = &c.model;
	w.gpu = &c.gpu;
	/* 128^10 of the speed switches alone; their values go unread. */
	spec.attention.n = spec.tp_overlap.n = spec.cuda_graphs.n =
	spec.fp8_recipe.n = spec.fp8_param_gather.n = spec.cp_comm.n =
	spec.grouped_gemm.n = spec.dispatcher.n = spec.a2a_overlap.n =
	spec.graph_full_iter.n = GRID_LIST_MAX;
	CU_ASSERT_EQUAL(grid_spec_size(&spec), LLONG_MAX);
	CU_ASSERT_EQUAL(grid_leaves(&spec, &w), 0);
	grid_run(&spec, &w, "x", 10, &res, NULL, NULL);
	CU_ASSERT_EQUAL(res.stats.examined, LLONG_MAX);
	CU_ASSERT_EQUAL(res.stats.invalid, LLONG_MAX);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_WORLD], LLONG_MAX);
	CU_ASSERT_EQUAL(res.n, 0);
	/* With tp 1 the same lists are all to check: far past 10^9. */
	spec.tp.v[0] = spec.pp.v[0] = 1;
	CU_ASSERT(grid_leaves(&spec, &w) > GRID_LEAVES_MAX);
	grid_result_release(&res);
	strbuf_release(&notes);
	settings_release(&c);
}

/*
 * A GPU with a peak of (almost) nothing: every predicted step time was
 * inf and its throughput NaN, ranked anyhow and written as "-nan".  The
 * grid leaves such layouts out, counted under their own rule.
 */
static void
test_nonfinite_left_out(void)
{
	struct settings c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	c.gpu.peak_tflops[PREC_BF16] = 0;
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(res.stats.examined, 16);
	CU_ASSERT_EQUAL(res.stats.by_rule[RULE_NONFINITE], 14);
	CU_ASSERT_EQUAL(res.stats.valid, 0);
	CU_ASSERT_EQUAL(res.n, 0);
	grid_result_release(&res);
	settings_release(&c);
}

/*
 * "auto" lists longer than the grid holds: 720720 layers split over 247
 * virtual-stage counts, and its experts over 240 ep sizes.  The grid
 * keeps the first 128 of each and dropped the rest without a word; it
 * warns now, naming the key and how many it left out.
 */
static void
test_long_auto_lists_warned(void)
{
	static const int one[] = { 1 };
	struct settings c;
	struct grid_spec spec;
	struct strbuf notes = STRBUF_INIT;

	campaign_fixture(&c);
	small_lists(&c);
	c.nodes = 100000;
	c.model.num_layers = 720720;
	c.model.num_experts = 720720;
	c.model.moe_router_topk = 2;
	c.search.vp.is_auto = true;
	c.search.ep.is_auto = true;
	c.search.ep.n = 0;
	set_list(&c.search.pp, 1, one);
	CU_ASSERT_EQUAL_FATAL(grid_spec_init(&spec, &c, &notes), 0);
	CU_ASSERT_EQUAL(spec.vp.n, GRID_LIST_MAX);
	CU_ASSERT_EQUAL(spec.ep.n, GRID_LIST_MAX);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes.buf, "warning: "
		"search.virtual_pipeline \"auto\" gives 247 values; the "
		"search takes the first 128 and leaves out 119"));
	CU_ASSERT_PTR_NOT_NULL(strstr(notes.buf, "warning: "
		"search.expert_parallel \"auto\" gives 240 values"));
	CU_ASSERT_PTR_NULL(strstr(notes.buf, "search.pipeline_parallel"));
	strbuf_release(&notes);
	settings_release(&c);
}

static const struct harness_test grid_tests[] = {
	{ "counts worked by hand", test_counts_by_hand },
	{ "ranked, unique names", test_ranked_and_named },
	{ "the cap keeps the best", test_cap_keeps_the_best },
	{ "auto vp and rule totals", test_auto_vp_and_rule_totals },
	{ "base marked or added", test_base_added },
	{ "finetune needs tp and pp lists", test_finetune_needs_lists },
	{ "finetune nemo model-parallel bounds",
	  test_finetune_nemo_mp_bounds },
	{ "huge sizes counted invalid", test_huge_sizes_counted_invalid },
	{ "counts saturate past 2^63", test_counts_saturate },
	{ "non-finite predictions left out", test_nonfinite_left_out },
	{ "long auto lists warned of", test_long_auto_lists_warned },
	{ "cp_seq control and relax", test_cp_seq_control_and_relax },
	{ "bubble control", test_bubble_control },
	{ "nearest removed layouts", test_nearest_removed },
	{ "unbalance control", test_unbalance_control },
	{ "switches without effect", test_no_effect_counts },
	{ "account flags counts", test_account_flags_counts },
	{ "fsdp and the distributed optimizer", test_fsdp_counts },
	{ "recompute kinds and names", test_recompute_kinds_and_names },
	{ "recompute spelled twice kept once", test_recompute_repeats },
	{ "token dispatchers searched", test_dispatchers_searched },
	{ "auto etp on MoE models", test_auto_etp },
	{ "long names stay unique", test_long_names_stay_unique },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "grid", grid_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
