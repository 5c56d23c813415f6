/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-stages.c - which layers each pipeline rank and model chunk
 * builds, and which of them are dense, worked by hand from Megatron-LM
 * at d98e8a64 (transformer_layer.py get_transformer_layer_offset,
 * transformer_block.py get_num_layers_to_build, gpt_layer_specs.py:
 * the MoE layer pattern indexed by the layer's number in the model),
 * and what the estimate makes of them stage by stage.
 */
#include "autoconfig.h"

#include <math.h>
#include <string.h>

#include "estimate.h"
#include "harness.h"
#include "layout.h"
#include "model.h"
#include "models.h"

static struct layout
pipeline(int pp, int vp)
{
	struct layout l;

	memset(&l, 0, sizeof(l));
	l.tp = l.cp = l.ep = 1;
	l.pp = pp;
	l.vp = vp;
	l.mbs = 1;
	l.gbs = 1024;
	return l;
}

/* Chunk `chunk` of rank `rank` spans [from, from + n), with dense of
 * them dense. */
static void
assert_chunk(const struct model *m, const struct layout *l, int rank,
             int chunk, int from, int n, int dense)
{
	int f, k;

	layout_chunk_span(m, l, rank, chunk, &f, &k);
	CU_ASSERT_EQUAL(f, from);
	CU_ASSERT_EQUAL(k, n);
	CU_ASSERT_EQUAL(model_dense_layers_in(m, f, k), dense);
}

/* Rank `rank` holds n layers, dense of them dense. */
static void
assert_rank(const struct model *m, const struct layout *l, int rank, int n,
            int dense)
{
	int d;

	CU_ASSERT_EQUAL(layout_rank_layers(m, l, rank, &d), n);
	CU_ASSERT_EQUAL(d, dense);
}

/*
 * DeepSeek-V3, 61 layers, the first 3 dense, without interleaving: the
 * recipes' uneven splits, pp 16 as 4 + 14 x 4 + 1 and pp 8 as
 * 8 + 6 x 8 + 5; each stage contiguous, the dense ones all on the first.
 */
static void
test_deepseek_uneven_vp1(void)
{
	const struct model *m = model_preset_find("deepseek_v3");
	struct layout l = pipeline(16, 1);

	l.first_stage_layers = 4;
	l.last_stage_layers = 1;
	assert_chunk(m, &l, 0, 0, 0, 4, 3);
	assert_chunk(m, &l, 1, 0, 4, 4, 0);
	assert_chunk(m, &l, 14, 0, 56, 4, 0);
	assert_chunk(m, &l, 15, 0, 60, 1, 0);
	l = pipeline(8, 1);
	l.first_stage_layers = 8;
	l.last_stage_layers = 5;
	assert_chunk(m, &l, 0, 0, 0, 8, 3);
	assert_chunk(m, &l, 1, 0, 8, 8, 0);
	assert_chunk(m, &l, 6, 0, 48, 8, 0);
	assert_chunk(m, &l, 7, 0, 56, 5, 0);
	/* The first count alone: 57 over the 15 stages left, 4 more
	 * than 56 and so refused; 60 + 1 over pp 16 as 1 + 15 x 4: the
	 * dense layers on ranks 0 (one) and 1 (two). */
	l = pipeline(16, 1);
	l.first_stage_layers = 1;
	assert_rank(m, &l, 0, 1, 1);
	assert_chunk(m, &l, 1, 0, 1, 4, 2);
	assert_chunk(m, &l, 15, 0, 57, 4, 0);
}

/*
 * 61 layers with the embedding and the loss counted, 63 = 7 x 9 on
 * pp 7, vp 3: chunks of 3, a round of 21.  Rank 0's first chunk gives
 * its first place to the embedding, layers 0 and 1; every later chunk
 * starts one layer early: rank 1 holds 2, 3, 4 (layer 2 dense), 23-25
 * and 44-46; rank 6's last chunk gives its last place to the loss,
 * 59 and 60.
 */
static void
test_deepseek_interleaved_flags(void)
{
	const struct model *m = model_preset_find("deepseek_v3");
	struct layout l = pipeline(7, 3);

	l.account_embedding = l.account_loss = true;
	assert_chunk(m, &l, 0, 0, 0, 2, 2);
	assert_chunk(m, &l, 0, 1, 20, 3, 0);
	assert_chunk(m, &l, 0, 2, 41, 3, 0);
	assert_chunk(m, &l, 1, 0, 2, 3, 1);
	assert_chunk(m, &l, 1, 1, 23, 3, 0);
	assert_chunk(m, &l, 1, 2, 44, 3, 0);
	assert_chunk(m, &l, 6, 0, 17, 3, 0);
	assert_chunk(m, &l, 6, 1, 38, 3, 0);
	assert_chunk(m, &l, 6, 2, 59, 2, 0);
	assert_rank(m, &l, 0, 8, 2);
	assert_rank(m, &l, 1, 9, 1);
	assert_rank(m, &l, 2, 9, 0);
	assert_rank(m, &l, 6, 8, 0);
	/* pp 9, vp 7: chunks of one layer, a round of 9.  Rank 0's
	 * first chunk is the embedding alone; the dense layers 0, 1, 2
	 * land on ranks 1, 2 and 3, none on the first stage. */
	l = pipeline(9, 7);
	l.account_embedding = l.account_loss = true;
	assert_chunk(m, &l, 0, 0, 0, 0, 0);
	assert_chunk(m, &l, 0, 1, 8, 1, 0);
	assert_chunk(m, &l, 1, 0, 0, 1, 1);
	assert_chunk(m, &l, 3, 0, 2, 1, 1);
	assert_chunk(m, &l, 4, 0, 3, 1, 0);
	assert_chunk(m, &l, 8, 6, 61, 0, 0);
	assert_chunk(m, &l, 7, 6, 60, 1, 0);
	assert_rank(m, &l, 0, 6, 0);
	assert_rank(m, &l, 1, 7, 1);
	assert_rank(m, &l, 3, 7, 1);
	assert_rank(m, &l, 4, 7, 0);
	assert_rank(m, &l, 8, 6, 0);
}

/*
 * An uneven interleaved pipeline: 60 layers, 3 dense, pp 4, vp 2, 4 on
 * the first and the last stage.  Each round takes 2 on the first, 13
 * on each middle stage and 2 on the last (30 a round): rank 0 holds
 * 0-1 and 30-31, rank 1 2-14 (layer 2 dense) and 32-44, rank 3 28-29
 * and 58-59.  Without interleaving rank 0 holds 0-3, the three dense.
 */
static void
test_uneven_interleaved(void)
{
	struct model m = *model_preset_find("deepseek_v3");
	struct layout l = pipeline(4, 2);

	m.num_layers = 60;
	l.first_stage_layers = l.last_stage_layers = 4;
	assert_chunk(&m, &l, 0, 0, 0, 2, 2);
	assert_chunk(&m, &l, 0, 1, 30, 2, 0);
	assert_chunk(&m, &l, 1, 0, 2, 13, 1);
	assert_chunk(&m, &l, 1, 1, 32, 13, 0);
	assert_chunk(&m, &l, 2, 0, 15, 13, 0);
	assert_chunk(&m, &l, 2, 1, 45, 13, 0);
	assert_chunk(&m, &l, 3, 0, 28, 2, 0);
	assert_chunk(&m, &l, 3, 1, 58, 2, 0);
	l.vp = 1;
	assert_rank(&m, &l, 0, 4, 3);
	assert_chunk(&m, &l, 1, 0, 4, 26, 0);
	assert_chunk(&m, &l, 3, 0, 56, 4, 0);
}

/*
 * A dense model: every layer dense.  Llama 3 8B's 32 layers on pp 4,
 * vp 2 (chunks of 4, a round of 16), and 31 with the embedding
 * counted on pp 4 (8 a rank, 7 on the first).
 */
static void
test_dense_model(void)
{
	struct model m = test_llama3_8b();
	struct layout l = pipeline(4, 2);

	assert_chunk(&m, &l, 0, 0, 0, 4, 4);
	assert_chunk(&m, &l, 0, 1, 16, 4, 4);
	assert_chunk(&m, &l, 3, 0, 12, 4, 4);
	assert_chunk(&m, &l, 3, 1, 28, 4, 4);
	assert_rank(&m, &l, 2, 8, 8);
	m.num_layers = 31;
	l = pipeline(4, 1);
	l.account_embedding = true;
	assert_chunk(&m, &l, 0, 0, 0, 7, 7);
	assert_chunk(&m, &l, 1, 0, 7, 8, 8);
	assert_chunk(&m, &l, 3, 0, 23, 8, 8);
	/* One stage holds every layer, vp or not. */
	l = pipeline(1, 1);
	assert_rank(&m, &l, 0, 31, 31);
}

/* ---- the estimate, stage by stage ---------------------------------- */

/* The campaign defaults (config.c) on a pipeline of pp x vp. */
static struct layout
layout_of(int pp, int vp, int ep, int gbs)
{
	struct layout l = pipeline(pp, vp);

	l.ep = ep;
	l.gbs = gbs;
	l.recompute = RECOMPUTE_SELECTIVE;
	l.distributed_optimizer = true;
	l.attention = ATTN_FLASH;
	l.overlap_grad_reduce = true;
	l.overlap_param_gather = true;
	l.moe_grouped_gemm = true;
	return l;
}

static void
estimate_ok(const struct workload *w, struct layout *l, struct estimate *e)
{
	CU_ASSERT_EQUAL_FATAL(layout_check(w, l), LAYOUT_OK);
	estimate_layout(w, l, e);
}

static void
assert_stage(const struct estimate *e, int slot, const char *name,
             int rank, double layers, double dense)
{
	CU_ASSERT_STRING_EQUAL(e->stages[slot].name, name);
	CU_ASSERT_EQUAL(e->stages[slot].rank, rank);
	CU_ASSERT_EQUAL(e->stages[slot].layers, layers);
	CU_ASSERT_EQUAL(e->stages[slot].dense_layers, dense);
}

/*
 * DeepSeek-V3 on pp 16 as 4 + 14 x 4 + 1, ep 8, 128 GPUs: the first
 * stage holds the three dense layers and one MoE layer; rank 1, the
 * middle stage that holds the most micro-batches, layers 4-7, all MoE;
 * the last layer 60 and the MTP layer.  A middle or last GPU's memory
 * is then what it is with no dense layer at all: its layers are the
 * same (the estimate gave every layer the activations of the model's
 * average layer, 3/61 dense, until 2026-12-01).
 */
static void
test_deepseek_stages_vp1(void)
{
	struct model m = *model_preset_find("deepseek_v3");
	struct gpu g = test_b200();
	struct workload w = test_workload_of(&m, &g, 4096, 16);
	struct layout l = layout_of(16, 1, 8, 256);
	struct estimate a, b;

	l.first_stage_layers = 4;
	l.last_stage_layers = 1;
	estimate_ok(&w, &l, &a);
	CU_ASSERT_EQUAL_FATAL(a.nstages, 3);
	assert_stage(&a, 0, "first", 0, 4, 3);
	assert_stage(&a, 1, "middle", 1, 4, 0);
	assert_stage(&a, 2, "last", 15, 2, 0);
	m.moe_first_dense_layers = 0;
	estimate_ok(&w, &l, &b);
	assert_stage(&b, 0, "first", 0, 4, 0);
	ASSERT_NEAR_REL(a.stages[1].total, b.stages[1].total, 1e-12);
	ASSERT_NEAR_REL(a.stages[2].total, b.stages[2].total, 1e-12);
	CU_ASSERT(a.stages[0].total < b.stages[0].total);
}

/*
 * DeepSeek-V3 with both layers counted on pp 9, vp 7 (chunks of one
 * layer, test_deepseek_interleaved_flags): the first stage holds 6 MoE
 * layers and no dense one (the estimate put all three there until
 * 2026-12-01), the last 6 MoE layers and the MTP layer, so both weigh
 * what they weigh without dense layers.  Ranks 1-3 hold one dense
 * layer each; rank 4, 7 MoE layers, outweighs rank 1 by 6 + 1 MoE
 * layers against 6 + 1 dense at ep 8, and is the middle stage.
 */
static void
test_deepseek_stages_interleaved(void)
{
	struct model m = *model_preset_find("deepseek_v3");
	struct gpu g = test_b200();
	struct workload w = test_workload_of(&m, &g, 4096, 9);
	struct layout l = layout_of(9, 7, 8, 144);
	struct estimate a, b;

	l.account_embedding = l.account_loss = true;
	estimate_ok(&w, &l, &a);
	CU_ASSERT_EQUAL_FATAL(a.nstages, 3);
	assert_stage(&a, 0, "first", 0, 6, 0);
	assert_stage(&a, 1, "middle", 4, 7, 0);
	assert_stage(&a, 2, "last", 8, 7, 0);
	m.moe_first_dense_layers = 0;
	estimate_ok(&w, &l, &b);
	assert_stage(&b, 1, "middle", 1, 7, 0);
	ASSERT_NEAR_REL(a.stages[0].total, b.stages[0].total, 1e-12);
	ASSERT_NEAR_REL(a.stages[2].total, b.stages[2].total, 1e-12);
	/* Rank 1 holds more micro-batches in flight than rank 4. */
	CU_ASSERT(b.stages[1].total > a.stages[1].total);
}

/*
 * Chunk by chunk in flight, pp 2, vp 2, m 8: rank 0 warms up
 * 2 + 2 = 4 chunk forwards (0, 1 of chunk 0, 0, 1 of chunk 1) and runs
 * the fifth (chunk 0) before its first backward (chunk 1): it holds 3
 * of chunk 0 and 2 of chunk 1, then 4 and 1, and so on.  With a layer's
 * activations a and the embedding's token ids e = 8 s b = 65,536 bytes
 * (chunk 0's alone):
 *   32 layers, chunks of 8:             4 (8a + e) + 8a  = 40a + 4e
 *   31 with the embedding counted,
 *   chunk 0 of 7:   max(3 (7a + e) + 16a, 4 (7a + e) + 8a) = 37a + 3e
 * against 2 (16a + e) and 2 (15a + e) without interleaving.  The
 * estimate took 5/2 micro-batches of the whole stage, 40a + 2.5e and
 * 37.5a + 2.5e, until 2026-12-01.  A vocabulary of 128 keeps the first
 * stage the heaviest.
 */
static void
test_inflight_per_chunk(void)
{
	struct model m = test_llama3_8b();
	struct gpu g = test_h100();
	struct workload w = test_workload_of(&m, &g, 8192, 1);
	struct layout l = layout_of(2, 1, 1, 32); /* dp 4, m 8 */
	struct estimate e32, e32v, e31, e31v;
	double a, e = 65536;

	m.vocab_size = 128;
	estimate_ok(&w, &l, &e32);
	l.vp = 2;
	estimate_ok(&w, &l, &e32v);
	m.num_layers = 31;
	l.account_embedding = true;
	estimate_ok(&w, &l, &e31v);
	l.vp = 1;
	estimate_ok(&w, &l, &e31);
	a = (e32.mem.activations - e31.mem.activations) / 2;
	ASSERT_NEAR_REL(e32.mem.activations, 2 * (16 * a + e), 1e-12);
	ASSERT_NEAR_REL(e32v.mem.activations, 40 * a + 4 * e, 1e-12);
	ASSERT_NEAR_REL(e31v.mem.activations, 37 * a + 3 * e, 1e-12);
}

/* a and b take the same step, part for part. */
static void
assert_same_step(const struct estimate *a, const struct estimate *b)
{
	ASSERT_NEAR_REL(a->step_s, b->step_s, 1e-12);
	ASSERT_NEAR_REL(a->compute_s, b->compute_s, 1e-12);
	ASSERT_NEAR_REL(a->ep_comm_s, b->ep_comm_s, 1e-12);
	ASSERT_NEAR_REL(a->tp_comm_s, b->tp_comm_s, 1e-12);
	ASSERT_NEAR_REL(a->dp_comm_s, b->dp_comm_s, 1e-12);
}

/*
 * The pipeline's pace is its slowest stage's, and a stage takes the
 * time of its own layers: a dense layer runs no dispatcher, no router
 * and no experts.  DeepSeek-V3 on pp 16 as 1 + 15 x 4 (ranks 0 and 1
 * hold the dense layers) and on pp 9, vp 7 with both flags (ranks 1,
 * 2 and 3 hold one each): the last stage, 4 (or 6) MoE layers, the MTP
 * layer and the logits, sets the pace and holds the most parameters,
 * and it holds no dense layer, so the step is what it is without dense
 * layers.  The estimate gave every layer the model's average layer's
 * time, 3/61 of a dense one's, until 2026-12-01.
 */
static void
test_deepseek_step_time(void)
{
	struct model m = *model_preset_find("deepseek_v3");
	struct gpu g = test_b200();
	struct workload w = test_workload_of(&m, &g, 4096, 16);
	struct layout l = layout_of(16, 1, 8, 256);
	struct estimate a, b;

	l.first_stage_layers = 1;
	estimate_ok(&w, &l, &a);
	m.moe_first_dense_layers = 0;
	estimate_ok(&w, &l, &b);
	assert_same_step(&a, &b);
	m.moe_first_dense_layers = 3;
	w = test_workload_of(&m, &g, 4096, 9);
	l = layout_of(9, 7, 8, 144);
	l.account_embedding = l.account_loss = true;
	estimate_ok(&w, &l, &a);
	m.moe_first_dense_layers = 0;
	estimate_ok(&w, &l, &b);
	assert_same_step(&a, &b);
}

/*
 * The stage holding the most parameters need not be the one holding
 * the most memory.  DeepSeek-V3 with a vocabulary of 128 on pp 9, vp 7,
 * both flags, ep 64, 576 B200: a GPU's MoE layer is
 *   187,107,328 (MLA) + 14,336 (norms) + 1,835,008 (router)
 *   + 44,040,192 (shared expert) + 256 x 44,040,192 / 64
 *   = 409,157,632,
 * a dense one 187,107,328 + 14,336 + 3 x 7168 x 18432 = 583,483,392.
 * Rank 4, 7 MoE layers, holds the most memory (their activations);
 * rank 1, a dense layer and 6 MoE layers, the most parameters,
 * 3,038,429,184, more than the last stage's 7 MoE layers (the MTP one)
 * and eh_proj, 2,968,727,552 in all.  The estimate weighed only the
 * middle stage's (and so the last's) until 2026-12-01.
 */
static void
test_params_heaviest_middle(void)
{
	struct model m = *model_preset_find("deepseek_v3");
	struct gpu g = test_b200();
	struct workload w = test_workload_of(&m, &g, 4096, 72);
	struct layout l = layout_of(9, 7, 64, 576);
	struct estimate e;

	m.vocab_size = 128;
	l.account_embedding = l.account_loss = true;
	estimate_ok(&w, &l, &e);
	assert_stage(&e, 1, "middle", 4, 7, 0);
	CU_ASSERT(e.stages[1].total > e.stages[2].total);
	ASSERT_NEAR_REL(e.params_per_gpu,
	                583483392.0 + 6 * 409157632.0, 1e-12);
}

/* DeepSeek-V3's activations on one stage (pp 1, ep 8, no
 * recompute) with its first `off` layers offloaded to the host. */
static double
offloaded_activations(const struct model *m, int ep, int off,
                      double *offload_s)
{
	struct gpu g = test_b200();
	struct workload w = test_workload_of(m, &g, 4096, 1);
	struct layout l = layout_of(1, 1, ep, 64);
	struct estimate e;

	l.recompute = RECOMPUTE_NONE;
	l.offload_layers = off;
	estimate_ok(&w, &l, &e);
	if (offload_s)
		*offload_s = e.offload_s;
	return e.mem.activations;
}

/*
 * Transformer Engine's offload context takes the first num_layers
 * layers it sees (get_cpu_offload_context): DeepSeek-V3's first three
 * offloaded free three dense layers' activations (those of the same
 * model with every layer dense), the fourth an MoE layer's (those of
 * the model without dense layers); and their copies to the host take
 * the time of dense layers' copies.  Until 2026-12-01 the estimate
 * took MoE layers off first, and timed the copies by the average
 * layer.
 */
static void
test_offload_first_layers(void)
{
	struct model ds = *model_preset_find("deepseek_v3");
	struct model moe = ds, dense = ds;
	double a_dense, a_moe, t3, t3_dense;

	moe.moe_first_dense_layers = 0;
	dense.num_experts = 0;
	dense.moe_router_topk = 0;
	a_dense = offloaded_activations(&dense, 1, 0, NULL) -
	          offloaded_activations(&dense, 1, 1, NULL);
	a_moe = offloaded_activations(&moe, 8, 0, NULL) -
	        offloaded_activations(&moe, 8, 1, NULL);
	CU_ASSERT(a_moe > a_dense);
	ASSERT_NEAR_REL(offloaded_activations(&ds, 8, 0, NULL) -
	                offloaded_activations(&ds, 8, 3, &t3), 3 * a_dense,
	                1e-9);
	ASSERT_NEAR_REL(offloaded_activations(&ds, 8, 3, NULL) -
	                offloaded_activations(&ds, 8, 4, NULL), a_moe, 1e-9);
	offloaded_activations(&dense, 1, 3, &t3_dense);
	CU_ASSERT(t3 > 0);
	ASSERT_NEAR_REL(t3, t3_dense, 1e-12);
}

/*
 * Uniform full recompute of 0 renders as --recompute-num-layers of a
 * middle stage's chunk, without one the smaller stage's
 * (layout_uniform_whole): Llama 3 8B on pp 2 as 20 + 12 runs 12, so the
 * first stage recomputes [0, 12) and [12, 20), two inputs kept and 12
 * layers at most rebuilt at once.  The estimate is that of uniform 12,
 * the same job; it took the first stage's 20 layers as one run until
 * 2026-12-01.
 */
static void
test_uniform_whole_uneven(void)
{
	struct model m = test_llama3_8b();
	struct gpu g = test_h100();
	struct workload w = test_workload_of(&m, &g, 8192, 1);
	struct layout l = layout_of(2, 1, 1, 128);
	struct estimate zero, twelve, even;

	l.first_stage_layers = 20;
	l.last_stage_layers = 12;
	l.recompute = RECOMPUTE_FULL;
	l.recompute_method = RECOMPUTE_UNIFORM;
	l.recompute_layers = 0;
	CU_ASSERT_EQUAL(layout_uniform_whole(&m, &l), 12);
	estimate_ok(&w, &l, &zero);
	l.recompute_layers = 12;
	estimate_ok(&w, &l, &twelve);
	ASSERT_NEAR_REL(zero.stages[0].total, twelve.stages[0].total, 1e-12);
	ASSERT_NEAR_REL(zero.mem.total, twelve.mem.total, 1e-12);
	ASSERT_NEAR_REL(zero.step_s, twelve.step_s, 1e-12);
	/* And not that of one run of 20: the first stage holds more
	 * than the even split's, whose 16 are one run each. */
	l.first_stage_layers = l.last_stage_layers = 0;
	l.recompute_layers = 0;
	estimate_ok(&w, &l, &even);
	CU_ASSERT(zero.stages[0].total > even.stages[0].total);
}

static const struct harness_test stage_tests[] = {
	{ "DeepSeek-V3 uneven, no interleaving", test_deepseek_uneven_vp1 },
	{ "DeepSeek-V3 interleaved, layers counted for the flags",
	  test_deepseek_interleaved_flags },
	{ "uneven and interleaved", test_uneven_interleaved },
	{ "a dense model", test_dense_model },
	{ "DeepSeek-V3's stages, no interleaving", test_deepseek_stages_vp1 },
	{ "DeepSeek-V3's stages, interleaved",
	  test_deepseek_stages_interleaved },
	{ "in flight chunk by chunk", test_inflight_per_chunk },
	{ "DeepSeek-V3's step, stage by stage", test_deepseek_step_time },
	{ "the first layers offloaded", test_offload_first_layers },
	{ "uniform recompute of 0 on an uneven pipeline",
	  test_uniform_whole_uneven },
	{ "the most parameters on a middle rank",
	  test_params_heaviest_middle },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "stages", stage_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
