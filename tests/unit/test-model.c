/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-model.c - the preset catalog against published parameter totals,
 * hand-worked counts, validation, and the GPU catalog.
 */
#include "autoconfig.h"

#include <math.h>
#include <string.h>

#include "gpu.h"
#include "harness.h"
#include "model.h"
#include "models.h"

/* ---- presets against published totals --------------------------------- */

/*
 * The GPT-3 paper (arXiv 2005.14165, Table 2.1) rounds to two
 * significant figures: 1.3B is 1.316 B, 2.7B is 2.652 B, 13B is 12.85 B
 * for the shapes it lists, and its 350M is the 24 x 1024 shape OpenAI
 * itself later counted as 355M (GPT-2 medium).  Qwen3-1.7B's card
 * rounds 1.72 B to "1.7B" (its "Non-Embedding 1.4B" is the 1.41 B
 * counted).  These five are held to 2 %; every other preset to 1 %.
 */
static double
published_tolerance(const char *name)
{
	static const char *const rounded[] = {
		"gpt3_350m", "gpt3_1p3b", "gpt3_2p7b", "gpt3_13b",
		"qwen3_1p7b",
	};

	for (size_t i = 0; i < sizeof(rounded) / sizeof(rounded[0]); i++)
		if (!strcmp(rounded[i], name))
			return 0.02;
	return 0.01;
}

static void
test_every_preset_matches_its_published_total(void)
{
	size_t n = model_preset_count();

	CU_ASSERT_FATAL(n >= 40);
	for (size_t i = 0; i < n; i++) {
		const struct model *m = model_preset_at(i);
		double b = model_params(m) / 1e9;
		double tol = published_tolerance(m->name);

		CU_ASSERT_FATAL(m->published_params_b > 0);
		if (fabs(b / m->published_params_b - 1) > tol)
			fprintf(stderr, "%s: %.4f B counted, %.4f B "
			        "published\n", m->name, b,
			        m->published_params_b);
		ASSERT_NEAR_REL(b, m->published_params_b, tol);
	}
}

/* The list of families and sizes, by NeMo's recipe spelling. */
static void
test_catalog_covers_the_required_models(void)
{
	static const char *const names[] = {
		"gpt3_126m", "gpt3_350m", "gpt3_760m", "gpt3_1p3b",
		"gpt3_2p7b", "gpt3_6p7b", "gpt3_13b", "gpt3_175b",
		"llama2_7b", "llama2_13b", "llama2_70b", "llama3_8b",
		"llama3_70b", "llama31_8b", "llama31_70b", "llama31_405b",
		"mistral_7b", "mixtral_8x7b", "mixtral_8x22b", "gemma_2b",
		"gemma_7b", "gemma2_9b", "gemma2_27b", "nemotron4_15b",
		"nemotron4_340b", "starcoder_15b", "starcoder2_3b",
		"starcoder2_7b", "starcoder2_15b", "qwen2_500m",
		"qwen2_1p5b", "qwen2_7b", "qwen2_72b", "qwen25_500m",
		"qwen25_1p5b", "qwen25_3b", "qwen25_7b", "qwen25_14b",
		"qwen25_32b", "qwen25_72b", "bert_110m", "bert_340m",
		"t5_220m", "t5_770m", "t5_3b", "t5_11b",
		"qwen3_600m", "qwen3_1p7b", "qwen3_4b", "qwen3_8b",
		"qwen3_14b", "qwen3_32b", "qwen3_30b_a3b", "qwen3_235b_a22b",
		"deepseek_v3", "gpt_oss_20b", "gpt_oss_120b",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct model *m = model_preset_find(names[i]);

		CU_ASSERT_PTR_NOT_NULL(m);
		if (m)
			CU_ASSERT_STRING_EQUAL(m->name, names[i]);
	}
	CU_ASSERT_PTR_NULL(model_preset_find("llama3-8b"));
	CU_ASSERT_PTR_NULL(model_preset_find(""));
	CU_ASSERT_PTR_NULL(model_preset_at(model_preset_count()));
}

/* Every preset is valid and has a unique name. */
static void
test_presets_validate_and_are_unique(void)
{
	size_t n = model_preset_count();
	char why[256];

	for (size_t i = 0; i < n; i++) {
		const struct model *m = model_preset_at(i);

		CU_ASSERT_EQUAL(model_validate(m, why, sizeof why), 0);
		CU_ASSERT_PTR_EQUAL(model_preset_find(m->name), m);
		for (size_t k = i + 1; k < n; k++)
			CU_ASSERT(strcmp(m->name, model_preset_at(k)->name));
	}
}

/* Recipes NeMo 2.0 ships (nemo/collections/llm/recipes/__init__.py). */
static void
test_nemo_recipes(void)
{
	CU_ASSERT_STRING_EQUAL(model_preset_find("llama31_405b")->nemo_recipe,
	                       "llama31_405b");
	CU_ASSERT_STRING_EQUAL(model_preset_find("mixtral_8x7b")->nemo_recipe,
	                       "mixtral_8x7b");
	CU_ASSERT_STRING_EQUAL(model_preset_find("qwen2_1p5b")->nemo_recipe,
	                       "qwen2_1p5b");
	CU_ASSERT_STRING_EQUAL(model_preset_find("bert_340m")->nemo_recipe,
	                       "bert_340m");
	/* NeMo has no Llama 2 70B recipe, and its t5_3b is another shape. */
	CU_ASSERT_STRING_EQUAL(model_preset_find("llama2_70b")->nemo_recipe,
	                       "");
	CU_ASSERT_STRING_EQUAL(model_preset_find("t5_3b")->nemo_recipe, "");
	/* nemo/collections/llm/recipes/{deepseek_v3,qwen3_30b_a3b,
	 * gpt_oss_120b}.py. */
	CU_ASSERT_STRING_EQUAL(model_preset_find("deepseek_v3")->nemo_recipe,
	                       "deepseek_v3");
	CU_ASSERT_STRING_EQUAL(
		model_preset_find("qwen3_30b_a3b")->nemo_recipe,
		"qwen3_30b_a3b");
	CU_ASSERT_STRING_EQUAL(model_preset_find("gpt_oss_120b")->nemo_recipe,
	                       "gpt_oss_120b");
}

/* ---- exact counts of released checkpoints ----------------------------- */

/* Totals of the Hugging Face checkpoints (safetensors metadata). */
static void
test_checkpoint_totals(void)
{
	CU_ASSERT_DOUBLE_EQUAL(model_params(model_preset_find("llama3_8b")),
	                       8030261248.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(model_params(model_preset_find("llama2_7b")),
	                       6738415616.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(model_params(model_preset_find("llama2_70b")),
	                       68976648192.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(model_params(model_preset_find("mixtral_8x7b")),
	                       46702792704.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(model_params(model_preset_find("gemma_7b")),
	                       8537680896.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(model_params(model_preset_find("t5_220m")),
	                       222903552.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(model_params(model_preset_find("t5_770m")),
	                       737668096.0, 0.5);
}

/* Mistral AI: 12.9 B of Mixtral 8x7B's and 39 B of 8x22B's are active
 * per token (the 8x22B card: 39.1 B). */
static void
test_moe_active_params(void)
{
	const struct model *m7 = model_preset_find("mixtral_8x7b");
	const struct model *m22 = model_preset_find("mixtral_8x22b");
	const struct model *dense = model_preset_find("llama3_70b");

	ASSERT_NEAR_REL(model_active_params(m7) / 1e9, 12.9, 0.01);
	ASSERT_NEAR_REL(model_active_params(m22) / 1e9, 39.1, 0.01);
	ASSERT_NEAR_REL(model_params(m7) / 1e9, 46.7, 0.01);
	CU_ASSERT_DOUBLE_EQUAL(model_active_params(dense), model_params(dense),
	                       0);
}

/*
 * Llama 3 8B by hand: attention 2*4096*4096 (Q, O) + 2*4096*1024 (K, V
 * of 8 groups x 128) = 41,943,040; SwiGLU 3*4096*14336 = 176,160,768;
 * two RMSNorms 8,192: 218,112,000 a layer.  Untied embeddings
 * 2*128256*4096 = 1,050,673,152.  Total with the final norm:
 * 32*218,112,000 + 1,050,673,152 + 4,096 = 8,030,261,248.
 */
static void
test_llama3_8b_by_hand(void)
{
	const struct model *m = model_preset_find("llama3_8b");

	CU_ASSERT_DOUBLE_EQUAL(model_layer_params(m), 218112000.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(model_embedding_params(m), 1050673152.0, 0.5);
}

/*
 * GPT-3 175B by hand: 12h^2 + 13h = 1,812,099,072 a layer (QKV and
 * output with biases 4h^2 + 4h, MLP 8h^2 + 5h, two LayerNorms 4h);
 * embeddings (50257 + 2048 positions) * 12288 = 642,723,840, tied.
 */
static void
test_gpt3_175b_by_hand(void)
{
	const struct model *m = model_preset_find("gpt3_175b");

	CU_ASSERT_DOUBLE_EQUAL(model_layer_params(m), 1812099072.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(model_embedding_params(m), 642723840.0, 0.5);
}

/*
 * T5-base by hand: an encoder layer is 4*768*768 + 2*768*3072 + 2*768
 * = 7,079,424, a decoder layer adds cross-attention and its norm:
 * 9,439,488; the average over 12 + 12 is 8,259,456.  Embeddings are
 * shared: 32128 * 768 = 24,674,304 (relative positions add none).
 */
static void
test_t5_base_by_hand(void)
{
	const struct model *m = model_preset_find("t5_220m");

	CU_ASSERT_DOUBLE_EQUAL(model_layer_params(m), 8259456.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(model_embedding_params(m), 24674304.0, 0.5);
}

/* Qwen's QKV bias adds q + 2 kv = 3584 + 2*4*128 = 4608 a layer. */
static void
test_qkv_bias(void)
{
	struct model m = *model_preset_find("qwen2_7b");
	double with = model_layer_params(&m);

	m.bias_qkv = false;
	CU_ASSERT_DOUBLE_EQUAL(with - model_layer_params(&m), 4608.0, 0);
}

/*
 * A small MoE worked by hand: h 64, 4 heads of 16, 2 groups, 4 experts
 * of width 32 (top 1) and a shared expert of 48, SwiGLU, RMSNorm.
 * Attention 2*64*64 + 2*64*32 = 12,288; experts 4*3*64*32 = 24,576;
 * router 64*4 = 256; shared 3*64*48 = 9,216; norms 128: 46,464.
 * Active: one expert 6,144 instead of four: 28,032.
 */
static void
test_moe_layer_by_hand(void)
{
	struct model m = test_mixtral_8x7b();

	m.num_layers = 2;
	m.hidden_size = 64;
	m.num_attention_heads = 4;
	m.num_query_groups = 2;
	m.kv_channels = 16;
	m.num_experts = 4;
	m.moe_router_topk = 1;
	m.moe_ffn_hidden_size = 32;
	m.moe_shared_ffn_hidden_size = 48;
	m.vocab_size = 100;
	CU_ASSERT_DOUBLE_EQUAL(model_layer_params(&m), 46464.0, 0);
	/* + untied embeddings 2*100*64 + final norm 64 */
	CU_ASSERT_DOUBLE_EQUAL(model_params(&m), 2 * 46464.0 + 12800 + 64, 0);
	CU_ASSERT_DOUBLE_EQUAL(model_active_params(&m),
	                       2 * 28032.0 + 12800 + 64, 0);
}

/*
 * DeepSeek-V3's multi-latent attention by hand: q down 7168*1536 =
 * 11,010,048; q up 1536*128*192 = 37,748,736; kv down 7168*(512+64) =
 * 4,128,768; kv up 512*128*(128+128) = 16,777,216; output 128*128*7168 =
 * 117,440,512 (together 187,105,280); the two latent norms 1536 + 512:
 * 187,107,328.
 */
static void
test_mla_by_hand(void)
{
	struct model m = *model_preset_find("deepseek_v3");

	CU_ASSERT_DOUBLE_EQUAL(model_attn_params(&m), 187107328.0, 0);
	/* Without a Q rank, Q is one 7168 x 128*192 projection. */
	m.q_lora_rank = 0;
	CU_ASSERT_DOUBLE_EQUAL(model_attn_params(&m),
	                       187107328.0 - 11010048 - 37748736 - 1536 +
	                       7168.0 * 128 * 192, 0);
}

/*
 * DeepSeek-V3: "671B of the Main Model weights" and "37B activated"
 * (DeepSeek-V3 README and arXiv 2412.19437, abstract).  The main model
 * counts 671.0 B; its active count is 37.55 B (the embedding and output
 * layer included, as for Mixtral above): the paper's 37B is that
 * rounded, 1.5 % off, so the active figure is held to 2 %.  One MTP
 * layer (an MoE layer, 3 norms, eh_proj 2*7168^2) adds 11.6 B.
 */
static void
test_deepseek_v3_main_and_active(void)
{
	struct model m = *model_preset_find("deepseek_v3");
	double with_mtp = model_params(&m);
	double moe_layer, dense_layer;

	CU_ASSERT_EQUAL(model_moe_layers(&m), 58);
	m.mtp_num_layers = 0;
	ASSERT_NEAR_REL(model_params(&m) / 1e9, 671.0, 0.01);
	ASSERT_NEAR_REL(model_active_params(&m) / 1e9, 37.0, 0.02);
	moe_layer = 187107328.0 + 256 * 44040192.0 + 44040192.0 +
	            7168.0 * 256 + 2 * 7168.0;
	CU_ASSERT_DOUBLE_EQUAL(with_mtp - model_params(&m),
	                       moe_layer + 3 * 7168.0 + 2 * 7168.0 * 7168, 1);
	CU_ASSERT_DOUBLE_EQUAL(model_mtp_params(&m), 0, 0);
	/* The first 3 layers are dense (FFN 18432) instead of MoE. */
	dense_layer = 187107328.0 + 3 * 7168.0 * 18432 + 2 * 7168.0;
	{
		double three_dense = model_params(&m);

		m.moe_first_dense_layers = 0;
		CU_ASSERT_EQUAL(model_moe_layers(&m), 61);
		CU_ASSERT_DOUBLE_EQUAL(model_params(&m) - three_dense,
		                       3 * (moe_layer - dense_layer), 1);
	}
}

/*
 * Qwen3's active totals (model cards: 3.3 B and 22 B activated; the
 * 3.35 B counted rounds to 3.3, held to 2 %), and its QK norms: one
 * RMSNorm of head_dim 128 on Q and one on K, 256 a layer.
 */
static void
test_qwen3_counts(void)
{
	struct model m = *model_preset_find("qwen3_8b");
	double with = model_layer_params(&m);

	ASSERT_NEAR_REL(model_active_params(
		model_preset_find("qwen3_235b_a22b")) / 1e9, 22.0, 0.01);
	ASSERT_NEAR_REL(model_active_params(
		model_preset_find("qwen3_30b_a3b")) / 1e9, 3.3, 0.02);
	m.qk_layernorm = false;
	CU_ASSERT_DOUBLE_EQUAL(with - model_layer_params(&m), 256.0, 0);
	/* 32 heads x 128 = 4096 = hidden, but the 14B's 40 x 128 = 5120
	 * and the 32B's 64 x 128 = 8192 != 5120: Q is 5120 x 8192. */
	m = *model_preset_find("qwen3_32b");
	CU_ASSERT_DOUBLE_EQUAL(model_attn_params(&m),
	                       2.0 * 5120 * 8192 + 2.0 * 5120 * 1024 + 256, 0);
}

/*
 * GPT-OSS: the model card's active counts (5.13 B, 3.61 B) leave out the
 * embedding table (201088 x 2880); its sinks add 64 a layer; layers
 * alternate windowed (first) and full.
 */
static void
test_gpt_oss_counts(void)
{
	struct model m = *model_preset_find("gpt_oss_120b");
	double emb = 201088.0 * 2880, with = model_layer_params(&m);

	ASSERT_NEAR_REL((model_active_params(&m) - emb) / 1e9, 5.13, 0.01);
	ASSERT_NEAR_REL((model_active_params(model_preset_find(
		"gpt_oss_20b")) - emb) / 1e9, 3.61, 0.01);
	m.softmax_type = SOFTMAX_VANILLA;
	CU_ASSERT_DOUBLE_EQUAL(with - model_layer_params(&m), 64.0, 0);
	CU_ASSERT(model_layer_windowed(&m, 0));
	CU_ASSERT(!model_layer_windowed(&m, 1));
	CU_ASSERT(model_layer_windowed(&m, 34));
	CU_ASSERT(!model_layer_windowed(&m, 35));
	m.window_attn_skip_freq = 0;
	CU_ASSERT(model_layer_windowed(&m, 35));
	m.window_size = 0;
	CU_ASSERT(!model_layer_windowed(&m, 0));
}

/* The estimator's test fixture and the catalog agree on shapes. */
static void
test_fixture_matches_catalog(void)
{
	struct model t = test_llama3_8b();
	const struct model *m = model_preset_find("llama3_8b");

	CU_ASSERT_DOUBLE_EQUAL(model_params(&t), model_params(m), 0);
	CU_ASSERT_EQUAL(t.max_position_embeddings, m->max_position_embeddings);
	CU_ASSERT_EQUAL(t.untie_embeddings, m->untie_embeddings);
}

static void
test_activation_names(void)
{
	struct model m = *model_preset_find("nemotron4_15b");

	CU_ASSERT_STRING_EQUAL(model_activation_name(&m), "squared-relu");
	CU_ASSERT_STRING_EQUAL(
		model_activation_name(model_preset_find("gemma2_9b")), "geglu");
	CU_ASSERT_STRING_EQUAL(
		model_activation_name(model_preset_find("llama3_8b")),
		"swiglu");
	CU_ASSERT_STRING_EQUAL(
		model_activation_name(model_preset_find("t5_3b")), "relu");
	CU_ASSERT_STRING_EQUAL(
		model_activation_name(model_preset_find("gpt_oss_20b")),
		"quick-geglu");
	/* Changing the gate makes it the user's own architecture. */
	m.swiglu = true;
	CU_ASSERT_STRING_EQUAL(model_activation_name(&m), "swiglu");
	strcpy(m.name, "mine");
	m.swiglu = false;
	CU_ASSERT_STRING_EQUAL(model_activation_name(&m), "gelu");
}

/* ---- validation ------------------------------------------------------- */

/* Validate m and check that the reason mentions word. */
static void
expect_invalid(const struct model *m, const char *word)
{
	char why[256] = "";

	CU_ASSERT_EQUAL(model_validate(m, why, sizeof why), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, word));
	if (!strstr(why, word))
		fprintf(stderr, "reason '%s' lacks '%s'\n", why, word);
}

static void
test_validate_rejects(void)
{
	struct model m = test_llama3_8b();
	char why[256];

	CU_ASSERT_EQUAL(model_validate(&m, why, sizeof why), 0);
	m.num_query_groups = 6;
	expect_invalid(&m, "num_query_groups 6");
	m = test_llama3_8b();
	m.hidden_size = 0;
	expect_invalid(&m, "hidden_size");
	m = test_llama3_8b();
	m.vocab_size = -5;
	expect_invalid(&m, "vocab_size must be positive, not -5");
	m = test_llama3_8b();
	m.ffn_hidden_size = 0;
	expect_invalid(&m, "ffn_hidden_size");
	m = test_mixtral_8x7b();
	CU_ASSERT_EQUAL(model_validate(&m, why, sizeof why), 0);
	m.moe_router_topk = 9;
	expect_invalid(&m, "moe_router_topk 9");
	m = test_mixtral_8x7b();
	m.moe_router_topk = 0;
	expect_invalid(&m, "moe_router_topk 0");
	m = test_mixtral_8x7b();
	m.moe_ffn_hidden_size = 0;
	expect_invalid(&m, "moe_ffn_hidden_size");
	m = test_mixtral_8x7b();
	m.num_experts = -1;
	expect_invalid(&m, "negative");
	m = *model_preset_find("t5_220m");
	m.encoder_layers = m.num_layers;
	expect_invalid(&m, "encoder layers");
}

static void
test_validate_rejects_architectures(void)
{
	struct model m = *model_preset_find("deepseek_v3");

	m.v_head_dim = 0;
	expect_invalid(&m, "v_head_dim");
	m = *model_preset_find("deepseek_v3");
	m.num_query_groups = 8;
	expect_invalid(&m, "num_query_groups 8");
	m = *model_preset_find("deepseek_v3");
	m.moe_first_dense_layers = 61;
	expect_invalid(&m, "moe_first_dense_layers 61");
	m = test_llama3_8b();
	m.q_lora_rank = 64;
	expect_invalid(&m, "kv_lora_rank");
	m = test_llama3_8b();
	m.moe_first_dense_layers = 1;
	expect_invalid(&m, "num_experts");
	m = test_llama3_8b();
	m.window_attn_skip_freq = 2;
	expect_invalid(&m, "window_size");
	m = *model_preset_find("t5_220m");
	m.mtp_num_layers = 1;
	expect_invalid(&m, "decoder");
}

/* ---- GPU catalog ------------------------------------------------------ */

static void
test_gpu_catalog_builtin(void)
{
	static const char *const names[] = {
		"a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200",
		"b200", "gb200", "b300", "gb300", "l40s", "mi300x",
	};
	struct gpu_catalog cat;
	const struct gpu *g;

	gpu_catalog_init(&cat);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		g = gpu_catalog_find(&cat, names[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(g);
		CU_ASSERT(g->memory_gib > 0);
		CU_ASSERT(g->peak_tflops[PREC_BF16] > 0);
		CU_ASSERT(g->nvlink_domain >= 1);
	}
	/* NVIDIA H100 datasheet: 1979 TFLOPS BF16 with sparsity (a
	 * rounded figure: half of it to within half a TFLOPS). */
	g = gpu_catalog_find(&cat, "h100-sxm");
	CU_ASSERT_DOUBLE_EQUAL(g->peak_tflops[PREC_BF16], 1979.0 / 2, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(g->nvlink_gbs, 900.0 / 2, 0);
	/* A100 has no FP8; GB200's NVLink domain is the NVL72 rack. */
	CU_ASSERT_EQUAL(gpu_catalog_find(&cat, "a100-80gb")
	                ->peak_tflops[PREC_FP8], 0);
	CU_ASSERT_EQUAL(gpu_catalog_find(&cat, "gb200")->nvlink_domain, 72);
	/* GB300 NVL72 datasheet: 360 PF FP8 dense over 72 GPUs, 576 TB/s
	 * of HBM3e, one 800 Gb/s NIC a GPU; B300 trains at B200's rates. */
	g = gpu_catalog_find(&cat, "gb300");
	CU_ASSERT_DOUBLE_EQUAL(g->peak_tflops[PREC_FP8], 360e3 / 72, 0);
	CU_ASSERT_DOUBLE_EQUAL(g->hbm_tbs, 576.0 / 72, 0);
	CU_ASSERT_DOUBLE_EQUAL(g->network_gbs, 800.0 / 8, 0);
	CU_ASSERT_EQUAL(g->nvlink_domain, 72);
	CU_ASSERT_DOUBLE_EQUAL(gpu_catalog_find(&cat, "b300")
	                       ->peak_tflops[PREC_BF16],
	                       gpu_catalog_find(&cat, "b200")
	                       ->peak_tflops[PREC_BF16], 0);
	CU_ASSERT(gpu_catalog_find(&cat, "b300")->memory_gib >
	          gpu_catalog_find(&cat, "b200")->memory_gib);
	CU_ASSERT_EQUAL(gpu_catalog_find(&cat, "l40s")->nvlink_domain, 1);
	/* NVFP4, dense: HGX B200 144 PF and GB200 NVL72 1,440 PF with
	 * sparsity (half of it dense) over 8 and 72 GPUs; HGX B300 108 PF
	 * and GB300 NVL72 1,080 PF dense.  Hopper has none. */
	CU_ASSERT_DOUBLE_EQUAL(gpu_catalog_find(&cat, "b200")
	                       ->peak_tflops[PREC_FP4], 144e3 / 2 / 8, 0);
	CU_ASSERT_DOUBLE_EQUAL(gpu_catalog_find(&cat, "gb200")
	                       ->peak_tflops[PREC_FP4], 1440e3 / 2 / 72, 0);
	CU_ASSERT_DOUBLE_EQUAL(gpu_catalog_find(&cat, "b300")
	                       ->peak_tflops[PREC_FP4], 108e3 / 8, 0);
	CU_ASSERT_DOUBLE_EQUAL(gpu_catalog_find(&cat, "gb300")
	                       ->peak_tflops[PREC_FP4], 1080e3 / 72, 0);
	CU_ASSERT_EQUAL(gpu_catalog_find(&cat, "h100-sxm")
	                ->peak_tflops[PREC_FP4], 0);
	CU_ASSERT_EQUAL(gpu_catalog_find(&cat, "h200")
	                ->peak_tflops[PREC_FP4], 0);
	CU_ASSERT_PTR_NULL(gpu_catalog_find(&cat, "h100"));
	gpu_catalog_release(&cat);
	CU_ASSERT_EQUAL(cat.n, 0);
}

static void
test_gpu_catalog_put(void)
{
	struct gpu_catalog cat;
	struct gpu g = test_h100();
	size_t n;

	gpu_catalog_init(&cat);
	n = cat.n;
	g.memory_gib = 70;
	gpu_catalog_put(&cat, &g);
	CU_ASSERT_EQUAL(cat.n, n);
	CU_ASSERT_DOUBLE_EQUAL(gpu_catalog_find(&cat, "h100-sxm")->memory_gib,
	                       70, 0);
	strcpy(g.name, "lab-gpu");
	gpu_catalog_put(&cat, &g);
	CU_ASSERT_EQUAL(cat.n, n + 1);
	CU_ASSERT_PTR_NOT_NULL(gpu_catalog_find(&cat, "lab-gpu"));
	gpu_catalog_release(&cat);
}

static void
test_precision_names(void)
{
	CU_ASSERT_EQUAL(precision_parse("bf16"), PREC_BF16);
	CU_ASSERT_EQUAL(precision_parse("fp8"), PREC_FP8);
	CU_ASSERT_EQUAL(precision_parse("fp16"), PREC_FP16);
	CU_ASSERT_EQUAL(precision_parse("fp32"), PREC_FP32);
	CU_ASSERT_EQUAL(precision_parse("BF16"), -1);
	CU_ASSERT_EQUAL(precision_parse("int8"), -1);
	for (int p = 0; p < PREC_COUNT; p++)
		CU_ASSERT_EQUAL(precision_parse(precision_name((enum precision)p)), p);
}

static const struct harness_test preset_tests[] = {
	{ "every preset within 1 % of its published total",
	  test_every_preset_matches_its_published_total },
	{ "catalog covers the required models",
	  test_catalog_covers_the_required_models },
	{ "presets validate and are unique",
	  test_presets_validate_and_are_unique },
	{ "NeMo recipe names", test_nemo_recipes },
	{ "activation names", test_activation_names },
	{ NULL, NULL },
};

static const struct harness_test count_tests[] = {
	{ "checkpoint totals", test_checkpoint_totals },
	{ "MoE active parameters", test_moe_active_params },
	{ "Llama 3 8B by hand", test_llama3_8b_by_hand },
	{ "GPT-3 175B by hand", test_gpt3_175b_by_hand },
	{ "T5-base by hand", test_t5_base_by_hand },
	{ "QKV bias", test_qkv_bias },
	{ "MoE layer by hand", test_moe_layer_by_hand },
	{ "MLA by hand", test_mla_by_hand },
	{ "DeepSeek-V3 main model, active, MTP, dense layers",
	  test_deepseek_v3_main_and_active },
	{ "Qwen3 counts", test_qwen3_counts },
	{ "GPT-OSS counts", test_gpt_oss_counts },
	{ "test fixture matches catalog", test_fixture_matches_catalog },
	{ NULL, NULL },
};

static const struct harness_test validate_tests[] = {
	{ "validate rejects bad shapes", test_validate_rejects },
	{ "validate rejects bad architectures",
	  test_validate_rejects_architectures },
	{ NULL, NULL },
};

static const struct harness_test gpu_tests[] = {
	{ "built-in catalog", test_gpu_catalog_builtin },
	{ "put replaces and adds", test_gpu_catalog_put },
	{ "precision names", test_precision_names },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "model presets", preset_tests },
	{ "parameter counts", count_tests },
	{ "model validation", validate_tests },
	{ "GPU catalog", gpu_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
