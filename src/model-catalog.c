/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * model-catalog.c - the preset catalog: every preset's shape, its
 * activation's name and which NeMo 2.0 recipe trains it.
 *
 * Preset names follow NeMo 2.0's recipe names (nemo/collections/llm/
 * recipes/ at NVIDIA/NeMo 8cfedd72): "<family>_<size>", the size in
 * millions below one billion ("gpt3_126m", "qwen2_500m"), "p" for a
 * decimal point ("qwen2_1p5b", "gpt3_1p3b"), as NeMo spells qwen2_1p5b.
 * Where NeMo has a recipe that trains the same shape, nemo_recipe names
 * it; where it has none (or its recipe of that name trains another
 * shape) nemo_recipe is "".
 *
 * Shapes are those of each model's published configuration (Hugging Face
 * config.json, or the paper where there is no checkpoint); the source is
 * above each family.  published_params_b is the public total quoted in
 * the same place.  Parameter counts are in model.c.
 */
#include "autoconfig.h"

#include <stdbool.h>
#include <string.h>

#include "model.h"
/* A preset and what struct model cannot say: its activation's name. */
struct preset {
	struct model m;
	const char *activation;
};

/* ---- the catalog ---------------------------------------------------- */

/*
 * GPT-3: Brown et al. 2020, arXiv 2005.14165, Table 2.1 (layers, d_model,
 * heads, d_head; 2048 positions); GPT-2 BPE vocabulary of 50257; learned
 * positions, pre-LayerNorm, GELU, biases, tied embeddings (GPT-2 code).
 * The table is inconsistent twice: 1.3B has "24 heads of 128" for a
 * width of 2048, and 13B a width of 5140 for 40 heads of 128; Megatron-LM
 * and NeMo train 16 heads of 128 and a width of 5120, and so does this
 * catalog.  NeMo 2.0 has a recipe for 175B only.
 */
/* The preset macros below expand each argument as a whole initializer
 * value (".num_layers = L,"), where parentheses would add nothing. */
/* NOLINTBEGIN(bugprone-macro-parentheses) */
#define GPT3(nm, recipe, L, h, a, pub) { { \
	.name = nm, .family = "gpt3", .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = h, \
	.ffn_hidden_size = 4 * (h), .num_attention_heads = a, \
	.num_query_groups = a, .kv_channels = (h) / (a), \
	.vocab_size = 50257, .max_position_embeddings = 2048, \
	.normalization = NORM_LAYERNORM, \
	.position_embedding_type = POS_LEARNED, .bias_linear = true, \
	.published_params_b = pub }, "gelu" }

/*
 * Llama-like decoders: RMSNorm, SwiGLU, RoPE, no biases, untied output
 * layer, head dimension hidden / heads.  Columns: layers, hidden, FFN,
 * heads, KV heads, vocabulary, max positions.
 */
#define LLAMA(nm, fam, recipe, L, h, f, a, g, V, pos, pub) { { \
	.name = nm, .family = fam, .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = h, \
	.ffn_hidden_size = f, .num_attention_heads = a, \
	.num_query_groups = g, .kv_channels = (h) / (a), \
	.vocab_size = V, .max_position_embeddings = pos, .swiglu = true, \
	.normalization = NORM_RMSNORM, .position_embedding_type = POS_ROPE, \
	.untie_embeddings = true, .published_params_b = pub }, "swiglu" }

/* Mixtral: a Llama-like decoder whose every MLP is E experts, top-k. */
#define MIXTRAL(nm, recipe, L, h, f, a, g, V, pos, E, k, pub) { { \
	.name = nm, .family = "mixtral", .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = h, \
	.ffn_hidden_size = f, .num_attention_heads = a, \
	.num_query_groups = g, .kv_channels = (h) / (a), \
	.vocab_size = V, .max_position_embeddings = pos, .swiglu = true, \
	.normalization = NORM_RMSNORM, .position_embedding_type = POS_ROPE, \
	.untie_embeddings = true, .num_experts = E, .moe_router_topk = k, \
	.moe_ffn_hidden_size = f, .published_params_b = pub }, "swiglu" }

/* Qwen2 and Qwen2.5: Llama-like with biases on Q, K and V; the small
 * models tie their embeddings (tie_word_embeddings). */
#define QWEN(nm, fam, recipe, L, h, f, a, g, V, pos, untie, pub) { { \
	.name = nm, .family = fam, .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = h, \
	.ffn_hidden_size = f, .num_attention_heads = a, \
	.num_query_groups = g, .kv_channels = (h) / (a), \
	.vocab_size = V, .max_position_embeddings = pos, .swiglu = true, \
	.normalization = NORM_RMSNORM, .position_embedding_type = POS_ROPE, \
	.untie_embeddings = untie, .bias_qkv = true, \
	.published_params_b = pub }, "swiglu" }

/*
 * Gemma and Gemma 2: GeGLU (gated, three projections), RMSNorm, RoPE,
 * tied embeddings, vocabulary 256000, 8192 positions, an explicit head
 * dimension.  Gemma 2 adds a norm after attention and after the MLP
 * (2h per layer, 0.01 % of the total), which struct model cannot say.
 */
#define GEMMA(nm, fam, recipe, L, h, f, a, g, d, pub) { { \
	.name = nm, .family = fam, .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = h, \
	.ffn_hidden_size = f, .num_attention_heads = a, \
	.num_query_groups = g, .kv_channels = d, .vocab_size = 256000, \
	.max_position_embeddings = 8192, .swiglu = true, \
	.normalization = NORM_RMSNORM, .position_embedding_type = POS_ROPE, \
	.published_params_b = pub }, "geglu" }

/*
 * Nemotron-4: squared-ReLU MLP (two projections), LayerNorm, RoPE, no
 * biases, untied, vocabulary 256000, 4096 positions (NeMo's
 * NemotronConfig and Nemotron4Config15B/340B, nemo/collections/llm/gpt/
 * model/nemotron.py; arXiv 2402.16819 and 2406.11704).
 */
#define NEMOTRON4(nm, recipe, L, h, f, a, g, pub) { { \
	.name = nm, .family = "nemotron", .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = h, \
	.ffn_hidden_size = f, .num_attention_heads = a, \
	.num_query_groups = g, .kv_channels = (h) / (a), \
	.vocab_size = 256000, .max_position_embeddings = 4096, \
	.normalization = NORM_LAYERNORM, .position_embedding_type = POS_ROPE, \
	.untie_embeddings = true, .published_params_b = pub }, \
	"squared-relu" }

/* StarCoder2: GELU, LayerNorm, RoPE, biases everywhere, vocabulary 49152,
 * 16384 positions; 3B and 7B tie their embeddings, 15B does not
 * (bigcode/starcoder2-{3b,7b,15b} config.json; NeMo
 * Starcoder2Config3B/7B/15B). */
#define STARCODER2(nm, recipe, L, h, f, a, g, untie, pub) { { \
	.name = nm, .family = "starcoder2", .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = h, \
	.ffn_hidden_size = f, .num_attention_heads = a, \
	.num_query_groups = g, .kv_channels = (h) / (a), \
	.vocab_size = 49152, .max_position_embeddings = 16384, \
	.normalization = NORM_LAYERNORM, .position_embedding_type = POS_ROPE, \
	.untie_embeddings = untie, .bias_linear = true, \
	.published_params_b = pub }, "gelu" }

/* BERT: post-LayerNorm encoder, GELU, biases, learned positions (512),
 * WordPiece vocabulary 30522, tied MLM decoder (google-bert/
 * bert-{base,large}-uncased config.json; Devlin et al. 2019). */
#define BERT(nm, recipe, L, h, a, pub) { { \
	.name = nm, .family = "bert", .nemo_recipe = recipe, \
	.arch = ARCH_ENCODER, .num_layers = L, .encoder_layers = L, \
	.hidden_size = h, .ffn_hidden_size = 4 * (h), \
	.num_attention_heads = a, .num_query_groups = a, \
	.kv_channels = (h) / (a), .vocab_size = 30522, \
	.max_position_embeddings = 512, .normalization = NORM_LAYERNORM, \
	.position_embedding_type = POS_LEARNED, .bias_linear = true, \
	.published_params_b = pub }, "gelu" }

/*
 * T5 (v1.0): encoder and decoder of L layers each, ReLU MLP, RMS-style
 * layer norm without bias, no linear biases, relative position bias,
 * vocabulary 32128, tied embeddings, trained at 512 tokens
 * (google-t5/t5-{base,large,3b,11b}/config.json: num_layers, d_model,
 * d_ff, num_heads, d_kv).  NeMo's t5_220m recipe has the same shape;
 * its t5_3b and t5_11b recipes train other shapes (T5Config3B is
 * hidden 2048, FFN 5120), so those presets name no recipe.
 */
#define T5(nm, recipe, L, h, f, a, d, pub) { { \
	.name = nm, .family = "t5", .nemo_recipe = recipe, \
	.arch = ARCH_ENCDEC, .num_layers = 2 * (L), .encoder_layers = L, \
	.hidden_size = h, .ffn_hidden_size = f, .num_attention_heads = a, \
	.num_query_groups = a, .kv_channels = d, .vocab_size = 32128, \
	.max_position_embeddings = 512, .normalization = NORM_RMSNORM, \
	.position_embedding_type = POS_RELATIVE, \
	.published_params_b = pub }, "relu" }

/*
 * Qwen3: Llama-like with RMSNorm on each head's Q and K (q_norm, k_norm),
 * no biases, a head dimension of 128 whatever the width (so heads x 128
 * != hidden), 40960 positions, vocabulary 151936; the three small models
 * tie their embeddings (Qwen/Qwen3-{0.6B,1.7B,4B,8B,14B,32B} config.json:
 * head_dim, attention_bias false, tie_word_embeddings).  Columns:
 * layers, hidden, FFN, heads, KV heads, untied.
 */
#define QWEN3(nm, recipe, L, h, f, a, g, untie, pub) { { \
	.name = nm, .family = "qwen3", .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = h, \
	.ffn_hidden_size = f, .num_attention_heads = a, \
	.num_query_groups = g, .kv_channels = 128, .vocab_size = 151936, \
	.max_position_embeddings = 40960, .swiglu = true, \
	.normalization = NORM_RMSNORM, .position_embedding_type = POS_ROPE, \
	.untie_embeddings = untie, .qk_layernorm = true, \
	.published_params_b = pub }, "swiglu" }

/* Qwen3 MoE: every layer's MLP is E experts of width fe, top-k, no
 * shared expert (Qwen/Qwen3-30B-A3B and Qwen3-235B-A22B config.json:
 * num_experts, num_experts_per_tok, moe_intermediate_size,
 * decoder_sparse_step 1, mlp_only_layers []); untied.  The dense
 * intermediate_size is kept as ffn_hidden_size though no layer uses it. */
#define QWEN3MOE(nm, recipe, L, h, f, fe, a, g, E, k, pub) { { \
	.name = nm, .family = "qwen3", .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = h, \
	.ffn_hidden_size = f, .num_attention_heads = a, \
	.num_query_groups = g, .kv_channels = 128, .vocab_size = 151936, \
	.max_position_embeddings = 40960, .swiglu = true, \
	.normalization = NORM_RMSNORM, .position_embedding_type = POS_ROPE, \
	.untie_embeddings = true, .qk_layernorm = true, .num_experts = E, \
	.moe_router_topk = k, .moe_ffn_hidden_size = fe, \
	.published_params_b = pub }, "swiglu" }

/*
 * GPT-OSS (openai/gpt-oss-{20b,120b} config.json): hidden 2880, 64
 * query heads and 8 KV heads of 64 (q width 4096 != hidden), experts of
 * width 2880 top-4, biases on every projection and expert, a learnable
 * softmax offset per head ("sinks"), a 128-token sliding window on every
 * other layer starting with the first (layer_types), RMSNorm, RoPE,
 * 131072 positions, vocabulary 201088, untied.  In Megatron-LM terms:
 * --softmax-type learnable --window-size 128,0 --window-attn-skip-freq 2.
 * Its gated activation (three projections) is what Megatron-LM calls
 * quick GeGLU: x * sigmoid(1.702 x) on the gate, clamped to 7, times the
 * linear half plus 1 (config.json's swiglu_limit 7.0; Megatron-LM's
 * examples/gptoss/02_train.sh: --quick-geglu --glu-linear-offset 1.0
 * --activation-func-clamp-value 7.0).
 */
#define GPTOSS(nm, recipe, L, E, pub) { { \
	.name = nm, .family = "gpt_oss", .nemo_recipe = recipe, \
	.arch = ARCH_DECODER, .num_layers = L, .hidden_size = 2880, \
	.ffn_hidden_size = 2880, .num_attention_heads = 64, \
	.num_query_groups = 8, .kv_channels = 64, .vocab_size = 201088, \
	.max_position_embeddings = 131072, .swiglu = true, \
	.normalization = NORM_RMSNORM, .position_embedding_type = POS_ROPE, \
	.untie_embeddings = true, .bias_linear = true, .num_experts = E, \
	.moe_router_topk = 4, .moe_ffn_hidden_size = 2880, \
	.window_size = 128, .window_attn_skip_freq = 2, \
	.softmax_type = SOFTMAX_LEARNABLE, .published_params_b = pub }, \
	"quick-geglu" }
/* NOLINTEND(bugprone-macro-parentheses) */

static const struct preset model_presets[] = {
	/* Totals: the paper's Table 2.1, which rounds to two significant
	 * figures (1.3B, 2.7B, 13B) and under-reports the 24 x 1024
	 * shape, whose count is 356M (OpenAI renamed GPT-2's copy of it
	 * from 345M to 355M). */
	GPT3("gpt3_126m", "", 12, 768, 12, 0.125),
	GPT3("gpt3_350m", "", 24, 1024, 16, 0.350),
	GPT3("gpt3_760m", "", 24, 1536, 16, 0.760),
	GPT3("gpt3_1p3b", "", 24, 2048, 16, 1.3),
	GPT3("gpt3_2p7b", "", 32, 2560, 32, 2.7),
	GPT3("gpt3_6p7b", "", 32, 4096, 32, 6.7),
	GPT3("gpt3_13b", "", 40, 5120, 40, 13.0),
	GPT3("gpt3_175b", "gpt3_175b", 96, 12288, 96, 175.0),

	/* Llama 2 (meta-llama/Llama-2-{7,13,70}b-hf config.json; totals
	 * 6,738,415,616, 13,015,864,320 and 68,976,648,192 from the
	 * checkpoints).  NeMo 2.0 has a recipe for 7B only. */
	LLAMA("llama2_7b", "llama", "llama2_7b", 32, 4096, 11008, 32, 32,
	      32000, 4096, 6.74),
	LLAMA("llama2_13b", "llama", "", 40, 5120, 13824, 40, 40, 32000,
	      4096, 13.02),
	LLAMA("llama2_70b", "llama", "", 80, 8192, 28672, 64, 8, 32000,
	      4096, 68.98),
	/* Llama 3 and 3.1 (meta-llama/Meta-Llama-3-{8,70}B and
	 * Llama-3.1-{8,70,405}B config.json; totals from the model
	 * cards: 8.03 B, 70.6 B, 405 B). */
	LLAMA("llama3_8b", "llama", "llama3_8b", 32, 4096, 14336, 32, 8,
	      128256, 8192, 8.03),
	LLAMA("llama3_70b", "llama", "llama3_70b", 80, 8192, 28672, 64, 8,
	      128256, 8192, 70.6),
	LLAMA("llama31_8b", "llama", "llama31_8b", 32, 4096, 14336, 32, 8,
	      128256, 131072, 8.03),
	LLAMA("llama31_70b", "llama", "llama31_70b", 80, 8192, 28672, 64, 8,
	      128256, 131072, 70.6),
	LLAMA("llama31_405b", "llama", "llama31_405b", 126, 16384, 53248,
	      128, 8, 128256, 131072, 405.0),

	/* Mistral 7B v0.1 (mistralai/Mistral-7B-v0.1 config.json; 7.24 B
	 * on its Hub page). */
	LLAMA("mistral_7b", "mistral", "mistral_7b", 32, 4096, 14336, 32, 8,
	      32000, 32768, 7.24),
	/* Mixtral (mistralai/Mixtral-8x7B-v0.1 and Mixtral-8x22B-v0.1
	 * config.json; Mistral AI's announcements: 46.7 B total, 12.9 B
	 * active; 141 B total, 39 B active). */
	MIXTRAL("mixtral_8x7b", "mixtral_8x7b", 32, 4096, 14336, 32, 8,
	        32000, 32768, 8, 2, 46.7),
	MIXTRAL("mixtral_8x22b", "mixtral_8x22b", 56, 6144, 16384, 48, 8,
	        32768, 65536, 8, 2, 141.0),

	/* Gemma (google/gemma-{2b,7b} config.json; totals from Gemma's
	 * report, arXiv 2403.08295, Table 2: embedding + non-embedding). */
	GEMMA("gemma_2b", "gemma", "gemma_2b", 18, 2048, 16384, 8, 1, 256,
	      2.51),
	GEMMA("gemma_7b", "gemma", "gemma_7b", 28, 3072, 24576, 16, 16, 256,
	      8.54),
	/* Gemma 2 (google/gemma-2-{2b,9b,27b} config.json; totals from the
	 * Gemma 2 report, arXiv 2408.00118, Table 2). */
	GEMMA("gemma2_2b", "gemma2", "gemma2_2b", 26, 2304, 9216, 8, 4, 256,
	      2.61),
	GEMMA("gemma2_9b", "gemma2", "gemma2_9b", 42, 3584, 14336, 16, 8,
	      256, 9.24),
	GEMMA("gemma2_27b", "gemma2", "gemma2_27b", 46, 4608, 36864, 32, 16,
	      128, 27.23),

	/* Nemotron-4: 3.2 B embedding + 12.5 B non-embedding parameters
	 * (arXiv 2402.16819, section 2); 9.4 B + 331.6 B (arXiv
	 * 2406.11704, Table 1). */
	NEMOTRON4("nemotron4_15b", "nemotron4_15b", 32, 6144, 24576, 48, 8,
	          15.7),
	NEMOTRON4("nemotron4_340b", "nemotron4_340b", 96, 18432, 73728, 96,
	          8, 341.0),

	/* StarCoder (bigcode/starcoder config.json, GPTBigCode: 40 layers,
	 * 6144 wide, 48 heads sharing one K/V head, learned positions,
	 * 8192 tokens, tied; "15.5B parameter models" on its card). */
	{ {
		.name = "starcoder_15b", .family = "starcoder",
		.nemo_recipe = "starcoder_15b", .arch = ARCH_DECODER,
		.num_layers = 40, .hidden_size = 6144,
		.ffn_hidden_size = 24576, .num_attention_heads = 48,
		.num_query_groups = 1, .kv_channels = 128,
		.vocab_size = 49152, .max_position_embeddings = 8192,
		.normalization = NORM_LAYERNORM,
		.position_embedding_type = POS_LEARNED, .bias_linear = true,
		.published_params_b = 15.5,
	}, "gelu" },
	/* Totals from the Hub pages: 3.03 B, 7.17 B, 16 B. */
	STARCODER2("starcoder2_3b", "starcoder2_3b", 30, 3072, 12288, 24, 2,
	           false, 3.03),
	STARCODER2("starcoder2_7b", "starcoder2_7b", 32, 4608, 18432, 36, 4,
	           false, 7.17),
	STARCODER2("starcoder2_15b", "starcoder2_15b", 40, 6144, 24576, 48,
	           4, true, 16.0),

	/* Qwen2 (Qwen/Qwen2-{0.5B,1.5B,7B,72B} config.json; totals as the
	 * Hub counts the checkpoints: 0.49, 1.54, 7.62, 72.7 B). */
	QWEN("qwen2_500m", "qwen2", "qwen2_500m", 24, 896, 4864, 14, 2,
	     151936, 131072, false, 0.49),
	QWEN("qwen2_1p5b", "qwen2", "qwen2_1p5b", 28, 1536, 8960, 12, 2,
	     151936, 131072, false, 1.54),
	QWEN("qwen2_7b", "qwen2", "qwen2_7b", 28, 3584, 18944, 28, 4,
	     152064, 131072, true, 7.62),
	QWEN("qwen2_72b", "qwen2", "qwen2_72b", 80, 8192, 29568, 64, 8,
	     152064, 131072, true, 72.71),
	/* Qwen2.5 (Qwen/Qwen2.5-{0.5B,...,72B} config.json; "Number of
	 * Parameters" on each model card). */
	QWEN("qwen25_500m", "qwen25", "qwen25_500m", 24, 896, 4864, 14, 2,
	     151936, 32768, false, 0.49),
	QWEN("qwen25_1p5b", "qwen25", "qwen25_1p5b", 28, 1536, 8960, 12, 2,
	     151936, 131072, false, 1.54),
	QWEN("qwen25_3b", "qwen25", "", 36, 2048, 11008, 16, 2, 151936,
	     32768, false, 3.09),
	QWEN("qwen25_7b", "qwen25", "qwen25_7b", 28, 3584, 18944, 28, 4,
	     152064, 131072, true, 7.61),
	QWEN("qwen25_14b", "qwen25", "qwen25_14b", 48, 5120, 13824, 40, 8,
	     152064, 131072, true, 14.7),
	QWEN("qwen25_32b", "qwen25", "qwen25_32b", 64, 5120, 27648, 40, 8,
	     152064, 131072, true, 32.5),
	QWEN("qwen25_72b", "qwen25", "qwen25_72b", 80, 8192, 29568, 64, 8,
	     152064, 131072, true, 72.7),

	/* Qwen3 dense: "Number of Parameters" on each model card (0.6B,
	 * 1.7B, 4.0B, 8.2B, 14.8B, 32.8B). */
	QWEN3("qwen3_600m", "qwen3_600m", 28, 1024, 3072, 16, 8, false, 0.6),
	QWEN3("qwen3_1p7b", "qwen3_1p7b", 28, 2048, 6144, 16, 8, false, 1.7),
	QWEN3("qwen3_4b", "qwen3_4b", 36, 2560, 9728, 32, 8, false, 4.0),
	QWEN3("qwen3_8b", "qwen3_8b", 36, 4096, 12288, 32, 8, true, 8.2),
	QWEN3("qwen3_14b", "qwen3_14b", 40, 5120, 17408, 40, 8, true, 14.8),
	QWEN3("qwen3_32b", "qwen3_32b", 64, 5120, 25600, 64, 8, true, 32.8),
	/* Qwen3 MoE: 30.5 B total, 3.3 B active; 235 B total, 22 B active
	 * (model cards). */
	QWEN3MOE("qwen3_30b_a3b", "qwen3_30b_a3b", 48, 2048, 6144, 768, 32,
	         4, 128, 8, 30.5),
	QWEN3MOE("qwen3_235b_a22b", "qwen3_235b_a22b", 94, 4096, 12288, 1536,
	         64, 4, 128, 8, 235.0),

	/*
	 * DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json): 61 layers, the
	 * first 3 dense (first_k_dense_replace) with FFN 18432, then 256
	 * routed experts of 2048 top-8 and one shared expert of 2048
	 * (n_shared_experts x moe_intermediate_size); MLA with q_lora_rank
	 * 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64,
	 * v_head_dim 128, norms on both latents; 128 heads, hidden 7168,
	 * vocabulary 129280, untied, 163840 positions, one MTP layer
	 * (num_nextn_predict_layers).  Its README: 685 B on the Hub, "671B
	 * of the Main Model weights and 14B of the Multi-Token Prediction
	 * (MTP) Module weights" (the MTP file repeats the embedding and the
	 * output head, which Megatron-LM shares: 683 B counted here).  NeMo's
	 * recipe trains this shape (deepseek_v3.py).  Its router: sigmoid
	 * scores (scoring_func), a token's 8 experts from the best 4 of 8
	 * groups (topk_group, n_group), weights scaled by 2.5
	 * (routed_scaling_factor), balanced by a per-expert bias
	 * (topk_method noaux_tc); YaRN of factor 40 with mscale_all_dim 1
	 * (rope_scaling).
	 * Megatron-LM's DeepSeek-V3 example says the same in its flags
	 * (examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh).
	 */
	{ {
		.name = "deepseek_v3", .family = "deepseek",
		.nemo_recipe = "deepseek_v3", .arch = ARCH_DECODER,
		.num_layers = 61, .hidden_size = 7168,
		.ffn_hidden_size = 18432, .num_attention_heads = 128,
		.num_query_groups = 128, .kv_channels = 128,
		.vocab_size = 129280, .max_position_embeddings = 163840,
		.swiglu = true, .normalization = NORM_RMSNORM,
		.position_embedding_type = POS_ROPE, .untie_embeddings = true,
		.num_experts = 256, .moe_router_topk = 8,
		.moe_ffn_hidden_size = 2048,
		.moe_shared_ffn_hidden_size = 2048,
		.moe_first_dense_layers = 3,
		.moe_router_score_function = ROUTER_SIGMOID,
		.moe_router_num_groups = 8, .moe_router_group_topk = 4,
		.moe_router_topk_scaling_factor = 2.5,
		.moe_router_enable_expert_bias = true, .q_lora_rank = 1536,
		.kv_lora_rank = 512, .qk_head_dim = 128,
		.qk_pos_emb_head_dim = 64, .v_head_dim = 128,
		.rotary_scaling_factor = 40, .mscale_all_dim = 1.0,
		.mtp_num_layers = 1, .qk_layernorm = true,
		.published_params_b = 685.0,
	}, "swiglu" },

	/* GPT-OSS: 20.91 B total (3.61 B active) and 116.83 B (5.13 B
	 * active), the model card's table of parameter counts. */
	GPTOSS("gpt_oss_20b", "gpt_oss_20b", 24, 32, 20.91),
	GPTOSS("gpt_oss_120b", "gpt_oss_120b", 36, 128, 116.83),

	/* BERT: 110M on the model card; 336M as the Hub counts the
	 * bert-large-uncased checkpoint (the paper rounds it to 340M). */
	BERT("bert_110m", "bert_110m", 12, 768, 12, 0.110),
	BERT("bert_340m", "bert_340m", 24, 1024, 16, 0.336),

	/* T5: totals as the Hub counts the google-t5 checkpoints (223M,
	 * 738M, 2.85B, 11.3B; the paper's 220M/770M/3B/11B are rounded). */
	T5("t5_220m", "t5_220m", 12, 768, 3072, 12, 64, 0.223),
	T5("t5_770m", "", 24, 1024, 4096, 16, 64, 0.738),
	T5("t5_3b", "", 24, 1024, 16384, 32, 128, 2.85),
	T5("t5_11b", "", 24, 1024, 65536, 128, 128, 11.3),
};

#define PRESET_COUNT (sizeof(model_presets) / sizeof(model_presets[0]))

/* How many presets the catalog has. */
size_t
model_preset_count(void)
{
	return PRESET_COUNT;
}

/* The i-th preset in catalog order; NULL past the end. */
const struct model *
model_preset_at(size_t i)
{
	return i < PRESET_COUNT ? &model_presets[i].m : NULL;
}

/* The catalog entry named name, with its activation; NULL when none. */
static const struct preset *
model_preset_entry(const char *name)
{
	for (size_t i = 0; i < PRESET_COUNT; i++)
		if (!strcmp(model_presets[i].m.name, name))
			return &model_presets[i];
	return NULL;
}

/* The preset named name; NULL when there is none. */
const struct model *
model_preset_find(const char *name)
{
	const struct preset *p = model_preset_entry(name);

	return p ? &p->m : NULL;
}

/* The activation's name: the preset's own, else from the flag. */
const char *
model_activation_name(const struct model *m)
{
	const struct preset *p = model_preset_entry(m->name);

	/* A copy of a preset keeps its name; a changed flag means the
	 * user's own architecture, described by the flag alone. */
	if (p && p->m.swiglu == m->swiglu)
		return p->activation;
	return m->swiglu ? "swiglu" : "gelu";
}

/*
 * The recipes that register one task only; every other one of the
 * presets' registers both [NeMo 8cfedd7 nemo/collections/llm/recipes/
 * NAME.py, its @run.cli.factory(target=pretrain|finetune) functions].
 * GPT-OSS's (fine-tune only) came after NeMo 2.4, the nemo2 template's
 * 25.07 container (e0b34d0d, 2025-08-19): none there.
 */
static const struct {
	const char *recipe;
	bool pretrain, finetune;
} nemo_one_task[] = {
	{ "bert_110m", true, false },
	{ "bert_340m", true, false },
	{ "gpt3_175b", true, false },
	{ "gpt_oss_20b", false, false },
	{ "gpt_oss_120b", false, false },
};

bool
model_nemo_has_task(const struct model *m, bool finetune)
{
	size_t n = sizeof nemo_one_task / sizeof nemo_one_task[0];

	if (!m->nemo_recipe[0])
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nemo_one_task[i].recipe, m->nemo_recipe))
			return finetune ? nemo_one_task[i].finetune
			                : nemo_one_task[i].pretrain;
	return true;
}
