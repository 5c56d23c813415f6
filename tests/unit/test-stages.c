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

static const struct harness_test stage_tests[] = {
	{ "DeepSeek-V3 uneven, no interleaving", test_deepseek_uneven_vp1 },
	{ "DeepSeek-V3 interleaved, layers counted for the flags",
	  test_deepseek_interleaved_flags },
	{ "uneven and interleaved", test_uneven_interleaved },
	{ "a dense model", test_dense_model },
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
