/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-layout.c - every layout rule rejects what it must, with integer
 * arithmetic (NeMo's float check accepts non-integer data parallelism).
 */
#include "autoconfig.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "grid.h"
#include "layout.h"
#include "layout-switch.h"
#include "models.h"
#include "strbuf.h"

struct fixture {
	struct model m;
	struct gpu g;
	struct workload w;
};

static void
fixture_init(struct fixture *f, int nodes, int seq)
{
	f->m = test_llama3_8b();
	f->g = test_h100();
	memset(&f->w, 0, sizeof(f->w));
	f->w.model = &f->m;
	f->w.gpu = &f->g;
	f->w.precision = PREC_BF16;
	f->w.seq_length = seq;
	f->w.nodes = nodes;
	f->w.gpus_per_node = 8;
}

static struct layout
base(int tp, int pp, int cp, int mbs, int gbs)
{
	struct layout l;

	memset(&l, 0, sizeof(l));
	l.tp = tp;
	l.pp = pp;
	l.cp = cp;
	l.ep = 1;
	l.vp = 1;
	l.mbs = mbs;
	l.gbs = gbs;
	l.sequence_parallel = tp > 1;
	return l;
}

static enum layout_rule
check(struct fixture *f, struct layout l)
{
	return layout_check(&f->w, &l);
}

/*
 * NVLink segments: a node on an HGX/DGX machine; on an NVL72 (72 GPUs, 4
 * a tray) the whole job up to 18 trays, then the largest divisor of the
 * trays up to 18, as NVIDIA's scripts pass to sbatch --segment: 16 trays
 * for 32 or 64, 18 for 36, 17 for 34, and one tray when only 1
 * divides (19 trays).  The --segment that submit asks for is the same
 * in nodes, and none where there is nothing to place: one node, a
 * domain no wider than a node, or segments of one tray.
 */
static void
test_nvlink_segment(void)
{
	struct fixture f;
	static const int trays[][3] = {
		{ 1, 4, 0 }, { 16, 64, 16 }, { 18, 72, 18 }, { 32, 64, 16 },
		{ 36, 72, 18 }, { 64, 64, 16 }, { 19, 4, 0 }, { 34, 68, 17 },
		{ 2, 8, 2 },
	};

	fixture_init(&f, 4, 4096);
	CU_ASSERT_EQUAL(workload_nvlink_segment(&f.w), 8);
	CU_ASSERT_EQUAL(nvlink_segment_nodes(4, 8, 8), 0);
	CU_ASSERT_EQUAL(nvlink_segment_nodes(4, 8, 0), 0);
	CU_ASSERT_EQUAL(nvlink_segment_nodes(4, 0, 72), 0);
	f.g.nvlink_domain = 72;
	f.w.gpus_per_node = 4;
	for (size_t i = 0; i < sizeof trays / sizeof trays[0]; i++) {
		f.w.nodes = trays[i][0];
		CU_ASSERT_EQUAL(workload_nvlink_segment(&f.w), trays[i][1]);
		CU_ASSERT_EQUAL(nvlink_segment_nodes(trays[i][0], 4, 72),
		                trays[i][2]);
	}
	/* A site's --segment replaces paratune's, up to one domain. */
	f.w.nodes = 64;
	f.w.segment_nodes = 8;
	CU_ASSERT_EQUAL(workload_nvlink_segment(&f.w), 32);
	f.w.segment_nodes = 32;
	CU_ASSERT_EQUAL(workload_nvlink_segment(&f.w), 72);
}

static void
test_valid_layout_derives_dp(void)
{
	struct fixture f;
	struct layout l = base(2, 2, 2, 1, 64);

	fixture_init(&f, 2, 8192);
	CU_ASSERT_EQUAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(l.dp, 2); /* 16 / (2*2*2) */
}

static void
test_world_rule(void)
{
	struct fixture f;

	fixture_init(&f, 1, 8192);
	/* 8 GPUs: tp*pp*cp = 3 does not divide, 16 is more than the world.
	 * NeMo's float check would accept the first (dp 2.67). */
	CU_ASSERT_EQUAL(check(&f, base(1, 3, 1, 1, 64)), RULE_WORLD);
	CU_ASSERT_EQUAL(check(&f, base(4, 4, 1, 1, 64)), RULE_WORLD);
	CU_ASSERT_EQUAL(check(&f, base(0, 1, 1, 1, 64)), RULE_WORLD);
}

static void
test_heads_and_groups(void)
{
	struct fixture f;

	fixture_init(&f, 4, 8192);
	/* 32 heads, 8 query groups. */
	CU_ASSERT_EQUAL(check(&f, base(3, 1, 1, 1, 64)), RULE_WORLD);
	f.w.nodes = 3; /* 24 GPUs so that tp 3 divides the world */
	CU_ASSERT_EQUAL(check(&f, base(3, 1, 1, 1, 64)), RULE_HEADS);
	f.w.nodes = 4;
	/* tp 16 > 8 groups and a multiple of them: KV heads replicated. */
	f.m.num_attention_heads = 64;
	CU_ASSERT_EQUAL(check(&f, base(16, 1, 1, 1, 64)), LAYOUT_OK);
	/* 6 groups: tp 4 neither divides nor is a multiple. */
	f.m.num_query_groups = 6;
	f.m.num_attention_heads = 48;
	CU_ASSERT_EQUAL(check(&f, base(4, 1, 1, 1, 64)), RULE_GROUPS);
}

static void
test_layers_and_vp(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 4, 8192);
	CU_ASSERT_EQUAL(check(&f, base(1, 32, 1, 1, 64)), LAYOUT_OK);
	f.m.num_layers = 30;
	CU_ASSERT_EQUAL(check(&f, base(1, 4, 1, 1, 64)), RULE_LAYERS_PP);
	f.m.num_layers = 32;
	l = base(1, 1, 1, 1, 64);
	l.vp = 2; /* interleaving needs a pipeline */
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	l = base(1, 4, 1, 1, 64);
	l.vp = 3; /* 32 % (4*3) != 0 */
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	l.vp = 4; /* 32 % 16 == 0; dp 8, m = 64/8 = 8, 8 % 4 == 0 */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.gbs = 48; /* m = 6, not a multiple of pp 4 */
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP_MICRO);
}

static void
test_context_parallel(void)
{
	struct fixture f;

	fixture_init(&f, 1, 4100); /* 4100 % (2*2) == 0, % (2*8) != 0 */
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 2, 1, 64)), LAYOUT_OK);
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 8, 1, 64)), RULE_SEQ_CP);
}

static void
test_experts(void)
{
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64);

	fixture_init(&f, 1, 4096);
	l.ep = 2; /* dense model */
	CU_ASSERT_EQUAL(check(&f, l), RULE_EXPERTS);
	f.m = test_mixtral_8x7b();
	l.ep = 8;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.ep = 3;
	CU_ASSERT_EQUAL(check(&f, l), RULE_EXPERTS);
	/* EP folds into dp*cp*tp: tp 2, dp 4 -> etp*ep must divide 8. */
	l = base(2, 1, 1, 1, 64);
	l.ep = 8;
	l.etp = 2; /* 16 does not divide 8 */
	CU_ASSERT_EQUAL(check(&f, l), RULE_EXPERT_FOLD);
	l.etp = 1; /* 8 divides 8: EP is not multiplied into MP */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* Experts with biases (GPT-OSS): Megatron-LM takes etp 1 only,
	 * and etp 0 is tp's 2. */
	f.m.bias_linear = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.etp = 0;
	CU_ASSERT_EQUAL(check(&f, l), RULE_MOE_BIAS);
	l.etp = 2;
	l.ep = 4;
	CU_ASSERT_EQUAL(check(&f, l), RULE_MOE_BIAS);
}

static void
test_batch_rule(void)
{
	struct fixture f;

	fixture_init(&f, 1, 4096);
	/* dp 8: gbs 60 % (1*8) != 0 even though 60/8 is a float. */
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 1, 1, 60)), RULE_BATCH);
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 1, 4, 64)), LAYOUT_OK);
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 1, 16, 64)), RULE_BATCH);
}

static void
test_sequence_parallel_and_recompute(void)
{
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64);

	fixture_init(&f, 1, 4096);
	l.sequence_parallel = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_SP);
	l = base(1, 2, 1, 1, 64);
	l.recompute = RECOMPUTE_FULL;
	l.recompute_layers = 17; /* 16 layers per stage */
	CU_ASSERT_EQUAL(check(&f, l), RULE_RECOMPUTE);
	l.recompute_layers = 16;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* Each CP rank's tokens are scattered over tp: 4100 % 4 == 0,
	 * % 8 != 0; with cp 2, 2050 % 2 == 0, % 4 != 0. */
	fixture_init(&f, 1, 4100);
	CU_ASSERT_EQUAL(check(&f, base(4, 1, 1, 1, 64)), LAYOUT_OK);
	CU_ASSERT_EQUAL(check(&f, base(8, 1, 1, 1, 64)), RULE_SP);
	CU_ASSERT_EQUAL(check(&f, base(2, 1, 2, 1, 64)), LAYOUT_OK);
	CU_ASSERT_EQUAL(check(&f, base(4, 1, 2, 1, 64)), RULE_SP);
	l = base(8, 1, 1, 1, 64);
	l.sequence_parallel = false;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
}

/* The pipeline split counts the accounted embedding and loss as layers
 * (Megatron-LM transformer_block.py): 30 layers split over pp 4 only
 * with both flags (32 / 4), over pp 31 with one (31 / 31). */
static void
test_account_for_split(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 4, 8192);
	f.m.num_layers = 30;
	l = base(1, 4, 1, 1, 64);
	CU_ASSERT_EQUAL(check(&f, l), RULE_LAYERS_PP);
	l.account_embedding = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_LAYERS_PP); /* 31 % 4 */
	l.account_loss = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);       /* 32 % 4 */
	/* vp 2: 32 % (4*2) == 0, and m = 64/8 = 8 is a multiple of 4. */
	l.vp = 2;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.vp = 3;
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	/* Full recompute of 8 layers: a rank holds 32 / 4 of the split. */
	l = base(1, 4, 1, 1, 64);
	l.account_embedding = l.account_loss = true;
	l.recompute = RECOMPUTE_FULL;
	l.recompute_layers = 8;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.recompute_layers = 9;
	CU_ASSERT_EQUAL(check(&f, l), RULE_RECOMPUTE);
	/* With one stage the flags change nothing. */
	f.m.num_layers = 32;
	l = base(1, 1, 1, 1, 64);
	l.account_loss = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_ACCOUNT);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_ACCOUNT), RULE_KIND_NO_EFFECT);
}

/*
 * An uneven pipeline (transformer_config.py __post_init__): DeepSeek-V3's
 * 61 layers over 16 stages as 4 + 14 x 4 + 1, the layout of NVIDIA's
 * Megatron-MoE model zoo (runtime_configs/benchmarking/runtime.conf,
 * DeepSeek-V3: TP 1, PP 16, EP 64, PP_FIRST 4, PP_LAST 1), and
 * DeepSeek-V2's 60 over 16 with vp 2 as 2 + 14 x 4 + 2.
 */
/*
 * The counts a campaign that lists none gets (layout_auto_stages):
 * NVIDIA's DeepSeek-V3 recipes split 61 layers over 16 stages as
 * 4 + 14 x 4 + 1 and over 8 as 8 + 6 x 8 + 5 (Megatron-Bridge, as
 * tests/data/measured records them); even where the layers, or they
 * and the embedding and loss, divide; even (and then refused) where the
 * rounded-up share would leave the last stage nothing.
 */
static void
test_auto_stages(void)
{
	static const struct { int layers, pp, first, last; } cases[] = {
		{ 61, 16, 4, 1 }, { 61, 8, 8, 5 }, { 61, 4, 16, 13 },
		{ 61, 2, 0, 0 },   /* 62 = 2 x 31 with the embedding */
		{ 61, 1, 0, 0 }, { 61, 32, 0, 0 }, /* 2 x 31 = 62 > 61 */
		{ 126, 8, 0, 0 },  /* Llama 3.1 405B: 128 with both */
		{ 80, 16, 0, 0 }, { 94, 16, 0, 0 }, /* 96 = 16 x 6 */
	};
	struct fixture f;

	fixture_init(&f, 128, 4096);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct layout l = base(1, cases[i].pp, 1, 1, 8192);

		f.m.num_layers = cases[i].layers;
		l.first_stage_layers = l.last_stage_layers = 7;
		layout_auto_stages(&f.m, &l);
		CU_ASSERT_EQUAL(l.first_stage_layers, cases[i].first);
		CU_ASSERT_EQUAL(l.last_stage_layers, cases[i].last);
		if (cases[i].first > 0)
			CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	}
}

static void
test_uneven_pipeline(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 128, 4096);
	f.m.num_layers = 61;
	l = base(1, 16, 1, 1, 8192);
	CU_ASSERT_EQUAL(check(&f, l), RULE_LAYERS_PP);
	l.first_stage_layers = 4;
	l.last_stage_layers = 1;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_middle_layers(&f.m, &l), 4);
	CU_ASSERT_EQUAL(layout_first_layers(&f.m, &l), 4);
	CU_ASSERT_EQUAL(layout_last_layers(&f.m, &l), 1);
	l.last_stage_layers = 3; /* 54 % 14 */
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN);
	l.last_stage_layers = 0; /* first only: 57 % 15 */
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN);
	l.first_stage_layers = 1; /* 60 over 15 stages, the last among them */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_last_layers(&f.m, &l), 4);
	/* Megatron-LM refuses the counts with the account_for_* flags. */
	l.account_loss = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN);
	/* More layers given than there are, or none left for the middle. */
	l = base(1, 2, 1, 1, 8192);
	l.first_stage_layers = 40;
	l.last_stage_layers = 21;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.last_stage_layers = 30;
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN);
	l = base(1, 4, 1, 1, 8192);
	l.first_stage_layers = 40;
	l.last_stage_layers = 21; /* middle stages of no layer */
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN);
	/* vp: each count and each middle share a multiple of it. */
	f.m.num_layers = 60;
	l = base(1, 16, 1, 1, 8192);
	l.vp = 2;
	l.first_stage_layers = l.last_stage_layers = 2;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.first_stage_layers = 3;
	l.last_stage_layers = 1; /* middle 4, but 3 and 1 % 2 */
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	/* Both counts on pp 2 with vp: Megatron-LM's layer offsets
	 * divide by the middle stages, none (ZeroDivisionError); one
	 * count leaves the other stage as the middle one. */
	l = base(1, 2, 1, 1, 8192);
	l.vp = 2;
	l.first_stage_layers = 32;
	l.last_stage_layers = 28;
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN);
	l.last_stage_layers = 0;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.vp = 1;
	l.last_stage_layers = 28;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* Full recompute names at most the smallest stage's layers. */
	l = base(1, 16, 1, 1, 8192);
	l.first_stage_layers = l.last_stage_layers = 2;
	l.recompute = RECOMPUTE_FULL;
	l.recompute_layers = 2;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.recompute_layers = 3;
	CU_ASSERT_EQUAL(check(&f, l), RULE_RECOMPUTE);
	/* With one stage the counts change nothing. */
	l = base(1, 1, 1, 1, 8192);
	l.first_stage_layers = 4;
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN_PP1);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_UNEVEN_PP1),
	                RULE_KIND_NO_EFFECT);
}

/* A layout string as layout_vstage_string writes it for l. */
static bool
vstage_string_is(const struct model *m, const struct layout *l,
                 const char *want)
{
	struct strbuf s = STRBUF_INIT;
	const char *got;
	bool same;

	layout_vstage_string(m, l, &s);
	got = s.buf ? s.buf : "";
	same = !strcmp(got, want);
	if (!same)
		fprintf(stderr, "\n  layout '%s', wanted '%s'", got, want);
	strbuf_release(&s);
	return same;
}

/*
 * A pipeline layout (Megatron-LM's --pipeline-model-parallel-layout):
 * Megatron-Bridge's DeepSeek-V3 layouts (at 067f987, the perf recipes
 * of each GPU in perf_recipes/deepseek/, and recipes/deepseek/h100/
 * deepseek_v3.py _get_deepseek_v3_pipeline_layout): "Et|(tt|)*30mL"
 * on pp 8 vp 4 (H100),
 * "Et*4|(t*4|)*14tmL" on 16 virtual stages (pp 16, pp 8 vp 2, pp 4 vp 4,
 * pp 2 vp 8), "Et*8|(t*8|)*6t*5mL" on pp 8.  Its ranks hold a first or
 * last stage and vp - 1 middle ones.
 */
static void
test_pipeline_layout(void)
{
	static const struct {
		int pp, vp, first, each, last;
		const char *text;
	} cases[] = {
		{ 8, 4, 1, 2, 0, "Et|(t*2|)*30mL" },
		{ 16, 1, 4, 4, 1, "Et*4|(t*4|)*14tmL" },
		{ 8, 2, 4, 4, 1, "Et*4|(t*4|)*14tmL" },
		{ 2, 8, 4, 4, 1, "Et*4|(t*4|)*14tmL" },
		{ 8, 1, 8, 8, 5, "Et*8|(t*8|)*6t*5mL" },
		{ 4, 1, 16, 16, 13, "Et*16|(t*16|)*2t*13mL" },
		{ 2, 1, 31, 31, 30, "Et*31|t*30mL" },
	};
	struct fixture f;
	struct layout l;
	int first, each, last, from, n;

	fixture_init(&f, 128, 4096);
	f.m.num_layers = 61;
	f.m.mtp_num_layers = 1;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		l = base(1, cases[i].pp, 1, 1, 8192);
		l.vp = cases[i].vp;
		l.pipeline_layout = true;
		CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
		CU_ASSERT(layout_vstage_split(&f.m, &l, &first, &each, &last));
		CU_ASSERT_EQUAL(first, cases[i].first);
		CU_ASSERT_EQUAL(each, cases[i].each);
		CU_ASSERT_EQUAL(last, cases[i].last);
		CU_ASSERT(vstage_string_is(&f.m, &l, cases[i].text));
	}
	/* pp 8 vp 4: ranks of 1 + 3 x 2, 4 x 2 and 3 x 2 + 0 layers;
	 * virtual stage 9 (rank 1's second chunk) from layer 1 + 8 x 2. */
	l = base(1, 8, 1, 1, 8192);
	l.vp = 4;
	l.pipeline_layout = true;
	CU_ASSERT_EQUAL(layout_first_layers(&f.m, &l), 7);
	CU_ASSERT_EQUAL(layout_middle_layers(&f.m, &l), 8);
	CU_ASSERT_EQUAL(layout_last_layers(&f.m, &l), 6);
	CU_ASSERT_EQUAL(layout_largest_chunk(&f.m, &l), 2);
	layout_chunk_span(&f.m, &l, 1, 1, &from, &n);
	CU_ASSERT_EQUAL(from, 17);
	CU_ASSERT_EQUAL(n, 2);
	layout_chunk_span(&f.m, &l, 7, 3, &from, &n);
	CU_ASSERT_EQUAL(from, 61);
	CU_ASSERT_EQUAL(n, 0);
	layout_chunk_span(&f.m, &l, 0, 0, &from, &n);
	CU_ASSERT_EQUAL(from, 0);
	CU_ASSERT_EQUAL(n, 1);
	/* Without the layout the stage counts cannot take vp 4. */
	l.pipeline_layout = false;
	layout_auto_stages(&f.m, &l);
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	CU_ASSERT(layout_auto_vstages(&f.m, &l, false));
	CU_ASSERT(l.pipeline_layout);
	CU_ASSERT_EQUAL(l.first_stage_layers + l.last_stage_layers, 0);
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* Counts vp takes need no layout. */
	l = base(1, 16, 1, 1, 8192);
	layout_auto_stages(&f.m, &l);
	CU_ASSERT_FALSE(layout_auto_vstages(&f.m, &l, false));
	/* Nor is one taken that cannot split: 64 stages for 61 layers
	 * stay refused by the counts' rule. */
	l.vp = 4;
	CU_ASSERT_FALSE(layout_auto_vstages(&f.m, &l, false));
	CU_ASSERT_FALSE(l.pipeline_layout);
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	/* pp 2 splits 61 layers + the embedding evenly (grid_account_auto)
	 * but vp 8 cannot take 31 a stage: GB300's pp 2 vp 8 is the layout,
	 * the flags cleared, where paratune set them. */
	l = base(1, 2, 1, 1, 8192);
	grid_account_auto(&f.m, -1, -1, &l);
	CU_ASSERT(l.account_embedding);
	l.vp = 8;
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	CU_ASSERT_FALSE(layout_auto_vstages(&f.m, &l, false));
	CU_ASSERT(layout_auto_vstages(&f.m, &l, true));
	CU_ASSERT(l.pipeline_layout);
	CU_ASSERT_FALSE(l.account_embedding || l.account_loss);
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_first_layers(&f.m, &l), 32);
	/* vp 31 takes the flags' split: no layout. */
	l = base(1, 2, 1, 1, 8192);
	grid_account_auto(&f.m, -1, -1, &l);
	l.vp = 31;
	CU_ASSERT_FALSE(layout_auto_vstages(&f.m, &l, true));
	CU_ASSERT(l.account_embedding);
	/* Nor where the layers divide pp alone: 64 over pp 2 is the
	 * split, and vp 3 stays refused. */
	f.m.num_layers = 64;
	l = base(1, 2, 1, 1, 8192);
	l.vp = 3;
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	CU_ASSERT_FALSE(layout_auto_vstages(&f.m, &l, true));
	f.m.num_layers = 61;
	/* Not with the counts nor the account_for_* flags, and not with
	 * more middle stages than the layers fill (61 over 64). */
	l = base(1, 8, 1, 1, 8192);
	l.vp = 4;
	l.pipeline_layout = true;
	l.first_stage_layers = 1;
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN);
	l.first_stage_layers = 0;
	l.account_loss = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN);
	l.account_loss = false;
	l.vp = 8;
	CU_ASSERT_FALSE(layout_vstage_split(&f.m, &l, &first, &each, &last));
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN);
	/* With one stage it changes nothing. */
	l = base(1, 1, 1, 1, 8192);
	l.pipeline_layout = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_UNEVEN_PP1);
}

/* Megatron-LM's rules on the switches (arguments.py validate_args). */
static void
test_switch_rules(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 1, 4096);
	/* TP overlap needs sequence parallelism. */
	l = base(2, 1, 1, 1, 64);
	l.tp_comm_overlap = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.sequence_parallel = false;
	CU_ASSERT_EQUAL(check(&f, l), RULE_TP_OVERLAP);
	/* The parameter-gather overlap needs a sharded optimizer and the
	 * gradient overlap. */
	l = base(1, 1, 1, 1, 64);
	l.overlap_param_gather = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_PARAM_GATHER);
	l.distributed_optimizer = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_PARAM_GATHER);
	l.overlap_grad_reduce = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* FSDP replaces the distributed optimizer, and is sharded too. */
	l.fsdp = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_FSDP);
	l.distributed_optimizer = false;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* FP8 parameter gather needs a sharded optimizer, and FP8. */
	l = base(1, 1, 1, 1, 64);
	l.fp8_param_gather = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_FP8_PARAM);
	l.distributed_optimizer = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_NO_FP8);
	f.w.precision = PREC_FP8;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* MXFP8 needs Blackwell's block-scaled tensor cores: Transformer
	 * Engine refuses it on Hopper (check_mxfp8_support); without a
	 * compute capability an FP4 peak marks such GPUs. */
	l.fp8_recipe = FP8_MXFP8;
	CU_ASSERT_EQUAL(check(&f, l), RULE_FP8_GPU);
	f.g.peak_tflops[PREC_FP4] = 2 * f.g.peak_tflops[PREC_FP8];
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.g.peak_tflops[PREC_FP4] = 0;
	f.w.precision = PREC_BF16;
	l.fp8_param_gather = false;
	CU_ASSERT_EQUAL(check(&f, l), RULE_NO_FP8);
	/* Under fp4 the recipe is FP8's alone, while the parameter gather
	 * is --fp4-param-gather, which Megatron-LM takes without a sharded
	 * optimizer. */
	f.w.precision = PREC_FP4;
	CU_ASSERT_EQUAL(check(&f, l), RULE_NO_FP8);
	l.fp8_recipe = FP8_DELAYED;
	l.fp8_param_gather = true;
	l.distributed_optimizer = false;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_NO_FP8), RULE_KIND_NO_EFFECT);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_FP8_PARAM), RULE_KIND_INVALID);
	/* FP8 attention: with fp8 only, and in the fused kernel, which
	 * alone runs it in Transformer Engine. */
	l = base(1, 1, 1, 1, 64);
	l.fp8_dot_product_attention = true;
	f.w.precision = PREC_BF16;
	CU_ASSERT_EQUAL(check(&f, l), RULE_NO_FP8);
	f.w.precision = PREC_FP4;
	CU_ASSERT_EQUAL(check(&f, l), RULE_NO_FP8);
	f.w.precision = PREC_FP8;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.attention = ATTN_UNFUSED;
	CU_ASSERT_EQUAL(check(&f, l), RULE_FP8_DPA);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_FP8_DPA), RULE_KIND_INVALID);
}

/* Token dispatchers: any on an MoE model, flex (DeepEP) only where the
 * expert group ep*etp has more than one rank; only the default on a
 * dense one. */
static void
test_dispatcher_rules(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 1, 4096);
	l = base(1, 1, 1, 1, 64);
	l.moe_dispatcher = MOE_DISPATCH_ALLGATHER;
	CU_ASSERT_EQUAL(check(&f, l), RULE_MOE_DENSE);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_MOE_DENSE), RULE_KIND_NO_EFFECT);
	f.m = test_mixtral_8x7b();
	l = base(1, 1, 1, 1, 64);
	l.ep = l.etp = 1;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.moe_dispatcher = MOE_DISPATCH_ALLGATHER;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.moe_dispatcher = MOE_DISPATCH_FLEX;
	CU_ASSERT_EQUAL(check(&f, l), RULE_FLEX_EP);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_FLEX_EP), RULE_KIND_INVALID);
	l.moe_dispatcher = MOE_DISPATCH_HYBRIDEP;
	CU_ASSERT_EQUAL(check(&f, l), RULE_FLEX_EP);
	l.ep = 8;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.moe_dispatcher = MOE_DISPATCH_FLEX;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l = base(2, 1, 1, 1, 64);  /* ep 1 with etp 2: TPxEP = 2 */
	l.ep = 1;
	l.etp = 2;
	l.moe_dispatcher = MOE_DISPATCH_FLEX;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	CU_ASSERT_STRING_EQUAL(moe_dispatcher_name(MOE_DISPATCH_FLEX), "flex");
	CU_ASSERT_STRING_EQUAL(moe_dispatcher_name(MOE_DISPATCH_HYBRIDEP),
	                       "hybridep");
	CU_ASSERT_EQUAL(layout_choice_parse(moe_dispatcher_names, "hybridep"),
	                MOE_DISPATCH_HYBRIDEP);
	fixture_init(&f, 1, 4096);
	l = base(1, 1, 1, 1, 64);
	l.moe_a2a_overlap = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_MOE_DENSE);
	CU_ASSERT_EQUAL(layout_choice_parse(moe_dispatcher_names, "allgather"),
	                MOE_DISPATCH_ALLGATHER);
}

/* The EP all-to-all overlap as transformer_config.py asserts it, each
 * condition broken alone from a valid Mixtral layout (ep 8, alltoall,
 * pp 1, selective recompute of core_attn, bf16). */
static void
test_a2a_overlap_rules(void)
{
	struct fixture f;
	struct layout ok, l;

	fixture_init(&f, 2, 4096);
	f.m = test_mixtral_8x7b();
	ok = base(1, 1, 1, 1, 64);
	ok.ep = 8;
	ok.etp = 1;
	ok.recompute = RECOMPUTE_SELECTIVE;
	ok.moe_a2a_overlap = true;
	CU_ASSERT_EQUAL(check(&f, ok), LAYOUT_OK);
	l = ok;
	l.moe_dispatcher = MOE_DISPATCH_FLEX;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.moe_dispatcher = MOE_DISPATCH_HYBRIDEP;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.moe_dispatcher = MOE_DISPATCH_ALLGATHER;
	CU_ASSERT_EQUAL(check(&f, l), RULE_A2A_OVERLAP);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_A2A_OVERLAP), RULE_KIND_INVALID);
	l = ok;
	l.ep = 1;
	CU_ASSERT_EQUAL(check(&f, l), RULE_A2A_OVERLAP);
	l = ok;
	l.recompute = RECOMPUTE_FULL;
	CU_ASSERT_EQUAL(check(&f, l), RULE_A2A_OVERLAP);
	l = ok;
	l.recompute_modules = RCM_BIT(RCM_MOE);
	CU_ASSERT_EQUAL(check(&f, l), RULE_A2A_OVERLAP);
	l.recompute_modules = RCM_BIT(RCM_LAYERNORM);
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l = base(1, 2, 1, 1, 64);  /* pp 2 without vp */
	l.ep = 8;
	l.etp = 1;
	l.moe_a2a_overlap = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_A2A_OVERLAP);
	l.vp = 2;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l = ok;
	f.w.precision = PREC_FP32;
	CU_ASSERT_EQUAL(check(&f, l), RULE_A2A_OVERLAP);
	f.w.precision = PREC_FP8;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.m.mtp_num_layers = 2;
	CU_ASSERT_EQUAL(check(&f, l), RULE_A2A_OVERLAP);
}

/* Context parallel communication: only with cp > 1; a2a scatters the
 * heads of a tp rank over cp (32 heads and 8 KV heads in Llama 3 8B). */
static void
test_cp_comm_rules(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 2, 8192);
	l = base(1, 1, 1, 1, 64);
	l.cp_comm = CP_COMM_A2A;
	CU_ASSERT_EQUAL(check(&f, l), RULE_CP_COMM);
	l = base(2, 1, 8, 1, 64); /* 4 KV heads a tp rank, cp 8 */
	l.cp_comm = CP_COMM_A2A;
	CU_ASSERT_EQUAL(check(&f, l), RULE_CP_A2A);
	l = base(2, 1, 4, 1, 64); /* 16 and 4 heads a rank over cp 4 */
	l.cp_comm = CP_COMM_A2A;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.cp_comm = CP_COMM_ALL_GATHER;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* a2a+p2p: the all-to-all level stays in the node's NVLink domain
	 * of 8 and splits the heads: tp 2, cp 8 -> 4 (4 KV heads a rank),
	 * the ring over 2; tp 4, cp 4 -> 2 (2 KV heads a rank). */
	l = base(2, 1, 8, 1, 64);
	l.cp_comm = CP_COMM_A2A_P2P;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_cp_a2a_size(&f.w, &l), 4);
	l = base(4, 1, 4, 1, 64);
	l.cp_comm = CP_COMM_A2A_P2P;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_cp_a2a_size(&f.w, &l), 2);
	l = base(8, 1, 2, 1, 64); /* tp 8 fills the domain */
	CU_ASSERT_EQUAL(layout_cp_a2a_size(&f.w, &l), 1);
	/* No kernel runs cp with unfused attention, nor a softmax offset
	 * (sinks) under cp but with a2a. */
	l = base(2, 1, 4, 1, 64);
	l.attention = ATTN_UNFUSED;
	CU_ASSERT_EQUAL(check(&f, l), RULE_CP_KERNEL);
	l = base(2, 1, 4, 1, 64);
	f.m.softmax_type = SOFTMAX_LEARNABLE;
	CU_ASSERT_EQUAL(check(&f, l), RULE_CP_KERNEL);
	l.cp_comm = CP_COMM_A2A;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l = base(2, 1, 1, 1, 64);
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
}

/* CPU offloading (transformer_config.py): no pipeline, no recompute,
 * no CUDA graphs, fewer layers than the model. */
static void
test_offload_rule(void)
{
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64);

	fixture_init(&f, 1, 4096);
	l.offload_layers = 31;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.offload_layers = 32;
	CU_ASSERT_EQUAL(check(&f, l), RULE_OFFLOAD);
	l.offload_layers = 4;
	l.recompute = RECOMPUTE_SELECTIVE;
	CU_ASSERT_EQUAL(check(&f, l), RULE_OFFLOAD);
	l.recompute = RECOMPUTE_NONE;
	l.cuda_graphs = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_OFFLOAD);
	l.cuda_graph_full_iteration = true;   /* a graph of the whole step */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l = base(1, 2, 1, 1, 64);
	l.offload_layers = 4;
	CU_ASSERT_EQUAL(check(&f, l), RULE_OFFLOAD);
}

/*
 * CUDA graphs (transformer_config.py): per-layer graphs refuse full
 * recomputation, a full-iteration graph takes it; the full-iteration
 * switch needs graphs; an MoE model captured whole needs the flex
 * dispatcher, grouped GEMM and no CPU offloading (NVIDIA's recipes'
 * fixed expert-rank budgets and paged stash).
 */
static void
test_cuda_graph_rules(void)
{
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64), moe;

	fixture_init(&f, 1, 4096);
	l.cuda_graphs = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.recompute = RECOMPUTE_FULL;
	l.recompute_layers = 1;
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPHS_FULL);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_GRAPHS_FULL), RULE_KIND_INVALID);
	l.cuda_graph_full_iteration = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.cuda_graphs = false;
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPH_ITER);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_GRAPH_ITER), RULE_KIND_NO_EFFECT);

	fixture_init(&f, 2, 4096);
	f.m = test_mixtral_8x7b();
	moe = base(1, 1, 1, 1, 64);
	moe.ep = 8;
	moe.etp = 1;
	moe.moe_grouped_gemm = true;
	moe.moe_dispatcher = MOE_DISPATCH_HYBRIDEP;
	moe.cuda_graphs = moe.cuda_graph_full_iteration = true;
	CU_ASSERT_EQUAL(check(&f, moe), LAYOUT_OK);
	l = moe;
	l.moe_dispatcher = MOE_DISPATCH_ALLTOALL;
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPH_MOE);
	l.moe_dispatcher = MOE_DISPATCH_FLEX;  /* deepep: no token budget */
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPH_MOE);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_GRAPH_MOE), RULE_KIND_INVALID);
	l = moe;
	l.moe_grouped_gemm = false;
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPH_MOE);
	l = moe;
	l.offload_layers = 4;
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPH_MOE);
	l = moe;   /* per-layer graphs: any dispatcher */
	l.cuda_graph_full_iteration = false;
	l.moe_dispatcher = MOE_DISPATCH_ALLTOALL;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
}

/*
 * NeMo 2.0's per-layer graphs (enable_cuda_graph on the Megatron core
 * 0.13 of its 25.07 container) take no recomputation, selective
 * included; Transformer Engine's on today's core take selective.
 */
static void
test_nemo2_graph_rules(void)
{
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64);

	fixture_init(&f, 1, 4096);
	l.cuda_graphs = true;
	l.recompute = RECOMPUTE_SELECTIVE;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.w.core = CORE_NEMO2;
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPHS_NEMO2);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_GRAPHS_NEMO2),
	                RULE_KIND_INVALID);
	l.recompute = RECOMPUTE_FULL;
	l.recompute_layers = 1;
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPHS_NEMO2);
	l.recompute = RECOMPUTE_NONE;
	l.recompute_layers = 0;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.offload_layers = 4;   /* offloading refuses the graphs first */
	CU_ASSERT_EQUAL(check(&f, l), RULE_OFFLOAD);
	l.offload_layers = 0;
	l.cuda_graphs = false;  /* recompute without graphs */
	l.recompute = RECOMPUTE_SELECTIVE;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);

	/* 0.13's graph holds a whole layer: a dropless MoE one syncs with
	 * the host; Transformer Engine's leaves the experts eager. */
	fixture_init(&f, 2, 4096);
	f.m = test_mixtral_8x7b();
	l = base(1, 1, 1, 1, 64);
	l.ep = 8;
	l.etp = 1;
	l.moe_grouped_gemm = true;
	l.cuda_graphs = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.w.core = CORE_NEMO2;
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPHS_NEMO2);
	l.cuda_graphs = false;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
}

/*
 * The FP8 recipes by the GPU's compute capability, as Transformer
 * Engine checks them (gpu.c): MXFP8 on 10.x and 11.x, blockwise from
 * 9.0 (Transformer Engine 2.5, NeMo 2.0's: 9.x only).  A compute
 * capability overrules the FP4 peak that stands for it otherwise.
 */
static void
test_fp8_recipe_by_compute_capability(void)
{
	static const struct {
		double cc;
		enum layout_rule mxfp8, blockwise, blockwise_nemo2;
	} bands[] = {
		{ 8.0, RULE_FP8_GPU, RULE_FP8_GPU, RULE_FP8_GPU },
		{ 8.9, RULE_FP8_GPU, RULE_FP8_GPU, RULE_FP8_GPU },  /* L40S */
		{ 9.0, RULE_FP8_GPU, LAYOUT_OK, LAYOUT_OK },
		{ 10.0, LAYOUT_OK, LAYOUT_OK, RULE_FP8_GPU },
		{ 10.3, LAYOUT_OK, LAYOUT_OK, RULE_FP8_GPU },       /* B300 */
		{ 11.0, LAYOUT_OK, LAYOUT_OK, RULE_FP8_GPU },
		{ 12.0, RULE_FP8_GPU, LAYOUT_OK, RULE_FP8_GPU },    /* RTX */
	};
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64);

	fixture_init(&f, 1, 4096);
	f.w.precision = PREC_FP8;
	f.g.peak_tflops[PREC_FP4] = 2 * f.g.peak_tflops[PREC_FP8];
	for (size_t i = 0; i < sizeof(bands) / sizeof(bands[0]); i++) {
		f.g.compute_capability = bands[i].cc;
		f.w.core = CORE_CURRENT;
		l.fp8_recipe = FP8_MXFP8;
		CU_ASSERT_EQUAL(check(&f, l), bands[i].mxfp8);
		l.fp8_recipe = FP8_BLOCKWISE;
		CU_ASSERT_EQUAL(check(&f, l), bands[i].blockwise);
		f.w.core = CORE_NEMO2;
		CU_ASSERT_EQUAL(check(&f, l), bands[i].blockwise_nemo2);
		/* Per-tensor scaling runs wherever FP8 does. */
		l.fp8_recipe = FP8_TENSORWISE;
		CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	}
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_FP8_GPU), RULE_KIND_INVALID);
	/* FP8 operands in any layout (is_non_tn_fp8_gemm_supported): 10.x,
	 * 11.x and 13.0 up, not Hopper nor the 12.x parts. */
	f.g.compute_capability = 9.0;
	CU_ASSERT_FALSE(gpu_fp8_any_layout(&f.g));
	f.g.compute_capability = 10.3;
	CU_ASSERT_TRUE(gpu_fp8_any_layout(&f.g));
	f.g.compute_capability = 12.0;
	CU_ASSERT_FALSE(gpu_fp8_any_layout(&f.g));
	f.g.compute_capability = 13.0;
	CU_ASSERT_TRUE(gpu_fp8_any_layout(&f.g));
	/* Outside FP8 the recipe is no layout of the GPU's to refuse. */
	f.g.compute_capability = 8.0;
	f.w.precision = PREC_BF16;
	f.w.core = CORE_CURRENT;
	l.fp8_recipe = FP8_DELAYED;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
}

/*
 * What NeMo 2.0's 25.07 container (core 0.13, Transformer Engine 2.5)
 * refuses in FP8, recompute modules and dispatch that a current
 * Megatron-LM runs: blockwise FP8 on Blackwell (the GPU rule's, as its
 * Transformer Engine 2.5 has it), MXFP8 weights gathered in FP8 with
 * the overlap or FSDP, moe_act or layernorm recompute with any FP8
 * recipe, shared_experts recompute, DeepEP on Blackwell.
 */
static void
test_nemo2_fp8_rules(void)
{
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64);

	fixture_init(&f, 1, 4096);
	f.w.precision = PREC_FP8;
	f.g.peak_tflops[PREC_FP4] = 2 * f.g.peak_tflops[PREC_FP8];
	l.fp8_recipe = FP8_BLOCKWISE;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.w.core = CORE_NEMO2;
	CU_ASSERT_EQUAL(check(&f, l), RULE_FP8_GPU);
	f.g.peak_tflops[PREC_FP4] = 0;  /* Hopper runs it */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.g.peak_tflops[PREC_FP4] = 2 * f.g.peak_tflops[PREC_FP8];
	l.fp8_recipe = FP8_MXFP8;
	l.distributed_optimizer = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* MXFP8 weights gathered in FP8 go through the gradient buffer,
	 * which core 0.13 gathers without the overlap. */
	l.fp8_param_gather = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.overlap_grad_reduce = true;
	l.overlap_param_gather = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_NEMO2_CONTAINER);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_NEMO2_CONTAINER), RULE_KIND_INVALID);
	f.w.core = CORE_CURRENT;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* Nor under Megatron-FSDP. */
	l.overlap_param_gather = false;
	l.distributed_optimizer = false;
	l.fsdp = true;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.w.core = CORE_NEMO2;
	CU_ASSERT_EQUAL(check(&f, l), RULE_NEMO2_CONTAINER);
	f.w.core = CORE_CURRENT;

	/* Tensorwise scaling takes layernorm recompute on a current core
	 * only; shared_experts is no module of 0.13's in any precision. */
	l = base(1, 1, 1, 1, 64);
	l.fp8_recipe = FP8_TENSORWISE;
	l.recompute = RECOMPUTE_SELECTIVE;
	l.recompute_modules = RCM_BIT(RCM_LAYERNORM);
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.w.core = CORE_NEMO2;
	CU_ASSERT_EQUAL(check(&f, l), RULE_NEMO2_CONTAINER);
	f.w.precision = PREC_BF16;
	l.fp8_recipe = FP8_DELAYED;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.recompute_modules = RCM_BIT(RCM_SHARED_EXPERTS);
	CU_ASSERT_EQUAL(check(&f, l), RULE_NEMO2_CONTAINER);

	/* NeMo 2.4 runs DeepEP on Ampere and Hopper only: the flex
	 * dispatcher on Blackwell is refused, alltoall is not. */
	fixture_init(&f, 2, 4096);
	f.m = test_mixtral_8x7b();
	l = base(1, 1, 1, 1, 64);
	l.ep = 8;
	l.etp = 1;
	l.moe_dispatcher = MOE_DISPATCH_FLEX;
	f.w.core = CORE_NEMO2;
	f.g.compute_capability = 9.0;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.g.compute_capability = 10.0;
	CU_ASSERT_EQUAL(check(&f, l), RULE_NEMO2_CONTAINER);
	f.w.core = CORE_CURRENT;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	f.w.core = CORE_NEMO2;
	l.moe_dispatcher = MOE_DISPATCH_ALLTOALL;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	/* A dense model's dispatcher has no effect, whatever the GPU. */
	fixture_init(&f, 1, 4096);
	f.w.core = CORE_NEMO2;
	f.g.compute_capability = 10.0;
	l = base(1, 1, 1, 1, 64);
	l.moe_dispatcher = MOE_DISPATCH_FLEX;
	CU_ASSERT_EQUAL(check(&f, l), RULE_MOE_DENSE);
}

/*
 * A graph that captures the whole layer or step refuses selective
 * recompute of a module with dropout (transformer_config.py): core_attn
 * with attention dropout, mlp and moe with hidden dropout.  GPT-3's
 * learned positions mean dropout 0.1; Llama 3's RoPE none.
 */
static void
test_graph_dropout_rule(void)
{
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64);

	fixture_init(&f, 1, 2048);
	l.cuda_graphs = true;
	l.recompute = RECOMPUTE_SELECTIVE;        /* core_attn */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK); /* Llama 3: no dropout */
	f.m.position_embedding_type = POS_LEARNED;
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPHS_DROPOUT);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_GRAPHS_DROPOUT),
	                RULE_KIND_INVALID);
	l.cuda_graph_full_iteration = true;       /* the whole step too */
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPHS_DROPOUT);
	l.recompute_modules = RCM_BIT(RCM_LAYERNORM); /* no random numbers */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.cuda_graph_full_iteration = false;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.recompute_modules |= RCM_BIT(RCM_MLP);  /* hidden dropout */
	CU_ASSERT_EQUAL(check(&f, l), RULE_GRAPHS_DROPOUT);
	l.cuda_graphs = false;                    /* no graph */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.cuda_graphs = true;
	l.recompute = RECOMPUTE_NONE;
	l.recompute_modules = 0;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
}

/* The tuning guide's placement rules, and relaxing each by name. */
static void
test_topology_rules(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 4, 8192);
	/* H100: NVLink domain 8.  tp 16 crosses nodes. */
	f.m.num_attention_heads = 64;
	f.m.num_query_groups = 16;
	l = base(16, 1, 1, 1, 64);
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), RULE_TP_NVLINK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 1u << RELAX_TP_NVLINK),
	                LAYOUT_OK);
	l = base(8, 1, 1, 1, 64);
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), LAYOUT_OK);
	/* Experts: ep 16 x etp 1 crosses; ep 8 stays in the node. */
	f.m = test_mixtral_8x7b();
	f.m.num_experts = 16;
	l = base(1, 1, 1, 1, 64);
	l.ep = 16;
	l.etp = 1;
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), RULE_EP_NVLINK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 1u << RELAX_EP_NVLINK),
	                LAYOUT_OK);
	l.ep = 8;
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), LAYOUT_OK);
	/* CP only where the sequence is longer than the hidden size. */
	fixture_init(&f, 1, 4096); /* Llama 3 8B: hidden 4096 */
	l = base(1, 1, 2, 1, 64);
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), RULE_CP_SEQ);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 1u << RELAX_CP_SEQ),
	                LAYOUT_OK);
	f.w.seq_length = 4104; /* 4104 % 4 == 0, longer than 4096 */
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), LAYOUT_OK);
}

/*
 * GB200 NVL72: 72 GPUs a domain, 4 a node.  The guide's example: TP 4,
 * DP 16, PP 4 on 256 GPUs puts 64 GPUs in a stage, which does not
 * divide 72, so groups cross domains; TP 4, DP 18, PP 4 on 288 fills
 * each domain with 72; a job inside one domain is always aligned.
 */
static void
test_nvl72_alignment(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 64, 8192);
	f.g.nvlink_domain = 72;
	f.w.gpus_per_node = 4;
	l = base(4, 4, 1, 1, 64);   /* 256 GPUs: dp 16 */
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(l.dp, 16);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), RULE_NVL72);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 1u << RELAX_NVL72),
	                LAYOUT_OK);
	f.w.nodes = 72;             /* 288 GPUs: dp 18, 72 a stage */
	l = base(4, 4, 1, 1, 72);
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(l.dp, 18);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), LAYOUT_OK);
	f.w.nodes = 16;             /* 64 GPUs: one domain */
	l = base(4, 4, 1, 1, 64);
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), LAYOUT_OK);
	/* An 8-GPU H100 node is its own domain: the rule does not apply. */
	f.g.nvlink_domain = 8;
	f.w.gpus_per_node = 8;
	f.w.nodes = 32;             /* 256 GPUs, tp 4 pp 4: dp 16 */
	CU_ASSERT_EQUAL_FATAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(layout_topology(&f.w, &l, 0), LAYOUT_OK);
}

/* Every rule has a name and a kind; the relax names are the config's. */
static void
test_rule_names_and_kinds(void)
{
	for (int r = 1; r < RULE_COUNT; r++) {
		CU_ASSERT_PTR_NOT_NULL(layout_rule_name((enum layout_rule)r));
		CU_ASSERT_NOT_EQUAL(layout_rule_kind((enum layout_rule)r),
		                    RULE_KIND_OK);
	}
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_HEADS), RULE_KIND_INVALID);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_MP_RANGE), RULE_KIND_CONTROL);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_TP_NVLINK), RULE_KIND_CONTROL);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_BUBBLE), RULE_KIND_CONTROL);
	CU_ASSERT_EQUAL(layout_rule_kind(RULE_UNBALANCE), RULE_KIND_CONTROL);
	CU_ASSERT_STRING_EQUAL(layout_relax_names[RELAX_TP_NVLINK],
	                       "tp_nvlink");
	CU_ASSERT_STRING_EQUAL(layout_relax_names[RELAX_NVL72], "nvl72_align");
	CU_ASSERT_PTR_NULL(layout_relax_names[RELAX_COUNT]);
	CU_ASSERT_STRING_EQUAL(cp_comm_name(CP_COMM_A2A_P2P), "a2a+p2p");
	CU_ASSERT_STRING_EQUAL(fp8_recipe_name(FP8_DELAYED), "delayed");
	CU_ASSERT_STRING_EQUAL(recompute_method_name(RECOMPUTE_UNIFORM),
	                       "uniform");
	CU_ASSERT_EQUAL(layout_choice_parse(cp_comm_names, "all_gather"),
	                CP_COMM_ALL_GATHER);
	CU_ASSERT_EQUAL(layout_choice_parse(cp_comm_names, "allgather"), -1);
}

/* Full recompute's method and count as a run does them (llama3 8B, 32
 * layers: pp 4 gives chunks of 8, with vp 2 of 4). */
static int
effective(const struct fixture *f, const struct layout *l,
          enum recompute_method *m)
{
	int n;

	layout_recompute_effective(&f->m, l, m, &n);
	return n;
}

/*
 * Block over 0 layers, over the chunk's own count, or past it (up to
 * the stage's, which vp 2 allows), and uniform in runs of one, are one
 * run: every layer one at a time.  Uniform over 0 is uniform over the
 * chunk, which it renders as; a shorter block or run is a run of its
 * own.  An uneven pipeline's largest chunk decides for block.
 */
static void
test_recompute_effective(void)
{
	struct fixture f;
	struct layout l = base(1, 4, 1, 1, 64), x;
	enum recompute_method m;

	fixture_init(&f, 4, 4096);
	l.recompute = RECOMPUTE_FULL;
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 8);
	CU_ASSERT_EQUAL(m, RECOMPUTE_BLOCK);
	l.recompute_layers = 8;
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 8);
	CU_ASSERT_EQUAL(m, RECOMPUTE_BLOCK);
	l.recompute_layers = 4;
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 4);
	l.recompute_method = RECOMPUTE_UNIFORM;
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 4);
	CU_ASSERT_EQUAL(m, RECOMPUTE_UNIFORM);
	l.recompute_layers = 1;
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 8);
	CU_ASSERT_EQUAL(m, RECOMPUTE_BLOCK);
	l.recompute_layers = 0;
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 8);
	CU_ASSERT_EQUAL(m, RECOMPUTE_UNIFORM);
	l.vp = 2;
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 4);
	l.recompute_method = RECOMPUTE_BLOCK;
	l.recompute_layers = 8; /* past the chunk, within the stage */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 4);
	x = l;
	x.recompute_layers = 0;
	CU_ASSERT_TRUE(layout_recompute_same(&f.m, &l, &x));
	CU_ASSERT_TRUE(layout_same_run(&f.m, &l, &x));
	CU_ASSERT_FALSE(layout_equal(&l, &x));
	x.recompute_method = RECOMPUTE_UNIFORM; /* the chunk in one run */
	CU_ASSERT_FALSE(layout_recompute_same(&f.m, &l, &x));
	x.recompute_layers = 1;
	CU_ASSERT_TRUE(layout_same_run(&f.m, &l, &x));
	x.cuda_graphs = true; /* the rest still counts */
	CU_ASSERT_FALSE(layout_same_run(&f.m, &l, &x));
	/* 10 + 6 + 6 + 10: block 6 leaves layers of the end stages. */
	l = base(1, 4, 1, 1, 64);
	l.recompute = RECOMPUTE_FULL;
	l.first_stage_layers = l.last_stage_layers = 10;
	CU_ASSERT_EQUAL(layout_largest_chunk(&f.m, &l), 10);
	CU_ASSERT_EQUAL(layout_recompute_limit(&f.m, &l), 6);
	l.recompute_layers = 6;
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 6);
	l.recompute_layers = 0;
	CU_ASSERT_EQUAL(effective(&f, &l, &m), 10);
	/* Selective recompute: the modules, core_attn being the default. */
	l.recompute = x.recompute = RECOMPUTE_SELECTIVE;
	l.recompute_modules = RCM_BIT(RCM_CORE_ATTN);
	x.recompute_modules = 0;
	CU_ASSERT_TRUE(layout_recompute_same(&f.m, &l, &x));
	x.recompute_modules = RCM_BIT(RCM_MLP);
	CU_ASSERT_FALSE(layout_recompute_same(&f.m, &l, &x));
}

/* Two layouts differing in one switch are different configurations. */
static void
test_equal_sees_switches(void)
{
	struct layout a = base(2, 1, 1, 1, 64), b = a;

	CU_ASSERT_TRUE(layout_equal(&a, &b));
	b.cuda_graphs = true;
	CU_ASSERT_FALSE(layout_equal(&a, &b));
	b = a;
	b.offload_layers = 2;
	CU_ASSERT_FALSE(layout_equal(&a, &b));
	b = a;
	b.cp_comm = CP_COMM_A2A;
	CU_ASSERT_FALSE(layout_equal(&a, &b));
	b = a;
	b.first_stage_layers = 3;
	CU_ASSERT_FALSE(layout_equal(&a, &b));
	b = a;
	b.last_stage_layers = 3;
	CU_ASSERT_FALSE(layout_equal(&a, &b));
	b = a;
	b.fp8_dot_product_attention = true;
	CU_ASSERT_FALSE(layout_equal(&a, &b));
}

static void
test_names_parse(void)
{
	CU_ASSERT_EQUAL(recompute_parse("selective"), RECOMPUTE_SELECTIVE);
	CU_ASSERT_EQUAL(recompute_parse("sel"), -1);
	CU_ASSERT_STRING_EQUAL(recompute_short(RECOMPUTE_SELECTIVE), "sel");
	CU_ASSERT_EQUAL(attention_parse("unfused"), ATTN_UNFUSED);
	CU_ASSERT_EQUAL(attention_parse("fused"), -1);
}

/* Every switch away from its default. */
static struct layout
all_switches_set(void)
{
	struct layout l = base(2, 2, 2, 1, 64);

	l.recompute = RECOMPUTE_FULL;
	l.recompute_method = RECOMPUTE_UNIFORM;
	l.sequence_parallel = l.distributed_optimizer = true;
	l.attention = ATTN_UNFUSED;
	l.account_embedding = l.account_loss = true;
	l.fp8_recipe = FP8_MXFP8;
	l.fp8_param_gather = l.cuda_graphs = l.tp_comm_overlap = true;
	l.overlap_grad_reduce = l.overlap_param_gather = l.fsdp = true;
	l.cp_comm = CP_COMM_A2A_P2P;
	l.moe_grouped_gemm = true;
	l.offload_layers = 3;
	l.first_stage_layers = 5;
	l.last_stage_layers = 7;
	l.grad_reduce_bf16 = true;
	l.moe_dispatcher = MOE_DISPATCH_FLEX;
	l.moe_a2a_overlap = true;
	l.fp8_dot_product_attention = true;
	return l;
}

/* Each switch written as a CSV cell reads back as it was. */
static void
test_switch_cells_round_trip(void)
{
	struct layout a = all_switches_set(), b = base(2, 2, 2, 1, 64);
	struct strbuf sb = STRBUF_INIT;

	b.recompute = RECOMPUTE_FULL;
	for (int s = 0; s < SW_COUNT; s++) {
		if (s == SW_RECOMPUTE_MODULES)  /* selective: below */
			continue;
		strbuf_reset(&sb);
		layout_switch_format(&a, PREC_FP8, (enum layout_switch)s, &sb);
		CU_ASSERT(sb.len > 0);
		CU_ASSERT_EQUAL(layout_switch_parse(&b, (enum layout_switch)s,
		                                    sb.buf), 0);
	}
	CU_ASSERT_TRUE(layout_equal(&a, &b));
	strbuf_reset(&sb);
	layout_switch_format(&a, PREC_FP8, SW_CP_COMM_TYPE, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "a2a+p2p");
	strbuf_release(&sb);
}

/* Selective recompute's modules: a set written "a+b" in Megatron-LM's
 * order, core_attn alone kept as the zero default. */
static void
test_recompute_modules_cells(void)
{
	struct layout a = base(2, 2, 2, 1, 64), b;
	struct strbuf sb = STRBUF_INIT;

	a.recompute = RECOMPUTE_SELECTIVE;
	b = a;
	a.recompute_modules = RCM_BIT(RCM_LAYERNORM) | RCM_BIT(RCM_MOE_ACT);
	layout_switch_format(&a, PREC_BF16, SW_RECOMPUTE_MODULES, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "moe_act+layernorm");
	CU_ASSERT_EQUAL(layout_switch_parse(&b, SW_RECOMPUTE_MODULES,
	                                    "layernorm moe_act"), 0);
	CU_ASSERT_TRUE(layout_equal(&a, &b));
	CU_ASSERT_EQUAL(layout_switch_parse(&b, SW_RECOMPUTE_MODULES,
	                                    "core_attn"), 0);
	CU_ASSERT_EQUAL(b.recompute_modules, 0);
	strbuf_reset(&sb);
	layout_switch_format(&b, PREC_BF16, SW_RECOMPUTE_MODULES, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "core_attn");
	CU_ASSERT_EQUAL(layout_switch_parse(&b, SW_RECOMPUTE_MODULES,
	                                    "core_attn+moe_actt"), -1);
	CU_ASSERT_EQUAL(layout_switch_parse(&b, SW_RECOMPUTE_MODULES, "+"),
	                -1);
	a.recompute = RECOMPUTE_FULL;
	CU_ASSERT_EQUAL(layout_switch_get(&a, PREC_BF16, SW_RECOMPUTE_MODULES),
	                -1);
	strbuf_release(&sb);
}

/* What does not apply is empty, and empty changes nothing. */
static void
test_switch_cells_not_applying(void)
{
	struct layout a = all_switches_set(), b;

	a.recompute = RECOMPUTE_SELECTIVE;
	a.cp = 1;
	CU_ASSERT_EQUAL(layout_switch_get(&a, PREC_BF16, SW_RECOMPUTE_METHOD),
	                -1);
	CU_ASSERT_EQUAL(layout_switch_get(&a, PREC_BF16, SW_FP8_RECIPE), -1);
	CU_ASSERT_EQUAL(layout_switch_get(&a, PREC_BF16, SW_FP8_PARAM_GATHER),
	                -1);
	CU_ASSERT_EQUAL(layout_switch_get(&a, PREC_BF16, SW_CP_COMM_TYPE), -1);
	CU_ASSERT_EQUAL(layout_switch_get(&a, PREC_FP4,
	                                  SW_FP8_DOT_PRODUCT_ATTENTION), -1);
	CU_ASSERT_EQUAL(layout_switch_get(&a, PREC_FP8,
	                                  SW_FP8_DOT_PRODUCT_ATTENTION), 1);
	CU_ASSERT_EQUAL(layout_switch_get(&a, PREC_FP8, SW_FP8_RECIPE),
	                FP8_MXFP8);
	CU_ASSERT_EQUAL(layout_switch_get(&a, PREC_BF16, SW_OFFLOAD_LAYERS), 3);
	b = a;
	for (int s = 0; s < SW_COUNT; s++)
		CU_ASSERT_EQUAL(layout_switch_parse(&b, (enum layout_switch)s,
		                                    ""), 0);
	CU_ASSERT_TRUE(layout_equal(&a, &b));
}

static void
test_switch_cells_malformed(void)
{
	struct layout l = base(2, 1, 1, 1, 64), before = l;

	CU_ASSERT_EQUAL(layout_switch_parse(&l, SW_FSDP, "2"), -1);
	CU_ASSERT_EQUAL(layout_switch_parse(&l, SW_FSDP, "true"), -1);
	CU_ASSERT_EQUAL(layout_switch_parse(&l, SW_ATTENTION, "fused"), -1);
	CU_ASSERT_EQUAL(layout_switch_parse(&l, SW_OFFLOAD_LAYERS, "-1"), -1);
	CU_ASSERT_EQUAL(layout_switch_parse(&l, SW_OFFLOAD_LAYERS, "2x"), -1);
	CU_ASSERT_EQUAL(layout_switch_parse(&l, SW_COUNT, "1"), -1);
	CU_ASSERT_TRUE(layout_equal(&l, &before));
	CU_ASSERT_STRING_EQUAL(layout_switch_name(SW_ACCOUNT_LOSS),
	                       "account_for_loss_in_pipeline_split");
}

/*
 * Sizes a campaign or a flag allows (65536 each) whose products do not
 * fit an int: tp*pp wrapped to 0 and the world rule divided by it
 * (SIGFPE); pp*vp, ep*etp and mbs*dp wrapped the same way.
 */
static void
test_huge_sizes_do_not_wrap(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 1, 8192);
	CU_ASSERT_EQUAL(check(&f, base(65536, 65536, 1, 1, 64)), RULE_WORLD);
	CU_ASSERT_EQUAL(check(&f, base(65536, 65536, 65536, 1, 64)),
	                RULE_WORLD);
	CU_ASSERT_EQUAL(check(&f, base(2147483647, 2147483647, 2147483647,
	                               1, 64)), RULE_WORLD);
	/* pp 2, vp 2^31 - 1: the product overflows an int. */
	l = base(1, 2, 1, 1, 64);
	l.vp = 2147483647;
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	l = base(1, 2, 1, 1, 64);
	l.vp = 65536;
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	/* mbs * dp = 2^30 * 8 overflows an int. */
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 1, 1 << 30, 64)), RULE_BATCH);
	CU_ASSERT_EQUAL(layout_mul(65536, 65536), 4294967296LL);
	CU_ASSERT_EQUAL(layout_mul(LLONG_MAX / 2, 3), LLONG_MAX);
	/* Never 0, which the rules would divide by. */
	CU_ASSERT_EQUAL(layout_mul(0, 8), LLONG_MAX);
	CU_ASSERT_EQUAL(layout_mul(8, -1), LLONG_MAX);
	l = base(65536, 65536, 65536, 1, 64);
	CU_ASSERT_EQUAL(layout_model_parallel(&l), 281474976710656LL);
}

static const struct harness_test layout_tests[] = {
	{ "valid layout derives dp", test_valid_layout_derives_dp },
	{ "NVLink segments of the job", test_nvlink_segment },
	{ "huge sizes do not wrap", test_huge_sizes_do_not_wrap },
	{ "world size rule (integer)", test_world_rule },
	{ "heads and query groups", test_heads_and_groups },
	{ "layers and virtual pipeline", test_layers_and_vp },
	{ "context parallel", test_context_parallel },
	{ "experts fold into dp", test_experts },
	{ "global batch divisibility", test_batch_rule },
	{ "sequence parallel and recompute", test_sequence_parallel_and_recompute },
	{ "account flags in the pipeline split", test_account_for_split },
	{ "uneven pipeline", test_uneven_pipeline },
	{ "pipeline layout", test_pipeline_layout },
	{ "stage counts left to paratune", test_auto_stages },
	{ "switch rules", test_switch_rules },
	{ "context parallel communication", test_cp_comm_rules },
	{ "MoE token dispatchers", test_dispatcher_rules },
	{ "MoE all-to-all overlap", test_a2a_overlap_rules },
	{ "CUDA graphs", test_cuda_graph_rules },
	{ "NeMo 2.0's CUDA graphs", test_nemo2_graph_rules },
	{ "NeMo 2.0's FP8, recompute modules and DeepEP",
	  test_nemo2_fp8_rules },
	{ "FP8 recipes by compute capability",
	  test_fp8_recipe_by_compute_capability },
	{ "CUDA graphs and dropout", test_graph_dropout_rule },
	{ "activation offloading", test_offload_rule },
	{ "placement rules and relax", test_topology_rules },
	{ "NVL72 alignment", test_nvl72_alignment },
	{ "rule names and kinds", test_rule_names_and_kinds },
	{ "full recompute as it runs", test_recompute_effective },
	{ "layout_equal sees the switches", test_equal_sees_switches },
	{ "names parse", test_names_parse },
	{ "switch cells round trip", test_switch_cells_round_trip },
	{ "recompute modules cells", test_recompute_modules_cells },
	{ "switch cells that do not apply", test_switch_cells_not_applying },
	{ "malformed switch cells", test_switch_cells_malformed },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "layout", layout_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
