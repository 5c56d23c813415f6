/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * model.h - transformer architectures: the preset catalog and parameter
 * counts.
 *
 * A struct model holds Megatron-LM's shape arguments, so a custom
 * architecture in a campaign maps onto it key for key.  Counts follow
 * megatron/training/theoretical_memory_usage.py (see the notes on
 * estimation), extended with biases so that presets land within 1 % of
 * their published totals.
 */
#ifndef PARATUNE_MODEL_H
#define PARATUNE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

enum model_arch {
	ARCH_DECODER, /* GPT-like causal decoder */
	ARCH_ENCODER, /* BERT */
	ARCH_ENCDEC,  /* T5: encoder + decoder with cross-attention */
};

enum norm_kind { NORM_LAYERNORM, NORM_RMSNORM };
enum pos_emb_kind { POS_LEARNED, POS_ROPE, POS_RELATIVE };
/* Megatron-LM's --softmax-type: learnable adds one logit offset per head
 * and layer (GPT-OSS's attention sinks). */
enum softmax_kind { SOFTMAX_VANILLA, SOFTMAX_OFF_BY_ONE, SOFTMAX_LEARNABLE };
/* Megatron-LM's --moe-router-score-function: how the router turns its
 * logits into expert weights. */
enum router_score_kind { ROUTER_SOFTMAX, ROUTER_SIGMOID };

struct model {
	char name[64];        /* preset name ("llama3_8b") or custom name */
	char family[16];      /* "gpt3", "llama", "mixtral", "bert",
	                       * "t5", ... */
	char nemo_recipe[64]; /* NeMo 2.0 recipe factory; "" when none */
	enum model_arch arch;
	int num_layers;       /* all transformer layers (T5: enc + dec) */
	int encoder_layers;   /* T5: how many of num_layers are encoder */
	int hidden_size;
	int ffn_hidden_size;  /* dense MLP width */
	int num_attention_heads;
	int num_query_groups; /* == heads without GQA */
	int kv_channels;      /* head dimension */
	int vocab_size;
	int max_position_embeddings;
	bool swiglu;          /* gated MLP (SwiGLU/GeGLU): 3 projections */
	enum norm_kind normalization;
	enum pos_emb_kind position_embedding_type;
	bool untie_embeddings; /* separate output layer weights */
	bool bias_linear;     /* biases on linear layers (GPT-3, BERT) */
	bool bias_qkv;        /* biases on QKV only (Qwen2) */
	int num_experts;      /* 0 for dense models */
	int moe_router_topk;
	int moe_ffn_hidden_size;
	int moe_shared_ffn_hidden_size; /* shared expert width, 0 = none */
	int moe_first_dense_layers; /* an MoE model's first K layers dense */
	/* The router as the model defines it (Megatron-LM's --moe-router-*
	 * flags of the same names): group-limited routing takes a token's
	 * top-k from its moe_router_group_topk best of moe_router_num_groups
	 * expert groups (0: no groups); the top-k weights are scaled by
	 * moe_router_topk_scaling_factor (0: not scaled); an expert bias
	 * balances the load without an auxiliary loss (DeepSeek-V3). */
	enum router_score_kind moe_router_score_function;
	int moe_router_num_groups;
	int moe_router_group_topk;
	double moe_router_topk_scaling_factor;
	bool moe_router_enable_expert_bias;
	/* Multi-latent attention (DeepSeek-V2/V3), on when kv_lora_rank > 0:
	 * Q through a rank-q_lora_rank bottleneck (0: projected directly),
	 * K and V through a rank-kv_lora_rank latent plus a shared RoPE key
	 * of qk_pos_emb_head_dim; per head qk_head_dim + qk_pos_emb_head_dim
	 * for Q and K, v_head_dim for V. */
	int q_lora_rank;
	int kv_lora_rank;
	int qk_head_dim;
	int qk_pos_emb_head_dim;
	int v_head_dim;
	/* YaRN under MLA (Megatron-LM's MLA rotary embedding is YaRN over
	 * 4096 original positions, mscale 1): its scaling factor, which
	 * pretrain_gpt.py sets to 1 (no scaling) unless told
	 * (--rotary-scaling-factor), and the attention scale over all
	 * dimensions (--mscale-all-dim, 0 by default); 0 leaves each at
	 * Megatron-LM's default. */
	double rotary_scaling_factor;
	double mscale_all_dim;
	int mtp_num_layers;   /* multi-token-prediction layers (last stage) */
	bool qk_layernorm;    /* a norm on each head's Q and K */
	int window_size;      /* sliding-window attention span; 0 = none */
	int window_attn_skip_freq; /* every N-th layer full; 0 = none full */
	enum softmax_kind softmax_type;
	double published_params_b; /* public total, 0 when unknown */
};

/* The built-in presets, in catalog order. */
size_t model_preset_count(void);
const struct model *model_preset_at(size_t i);
/* Look up a preset by exact name; NULL when there is none. */
const struct model *model_preset_find(const char *name);

/*
 * Name of the MLP activation ("swiglu", "geglu", "quick-geglu", "gelu",
 * "squared-relu", "relu"): a preset's own when m is (a copy of) one,
 * else "swiglu" or "gelu" from m->swiglu.  A static string.
 */
const char *model_activation_name(const struct model *m);

/* Whether m's NeMo 2.0 recipe registers a factory for finetuning
 * (finetune true) or pretraining; false without a recipe. */
bool model_nemo_has_task(const struct model *m, bool finetune);

/* Total parameter count (all experts). */
double model_params(const struct model *m);
/* Parameters touched per token (top-k experts only). */
double model_active_params(const struct model *m);
/* Parameters of one transformer layer (average over dense/MoE mix). */
double model_layer_params(const struct model *m);
/* Embedding (and untied output layer) parameters. */
double model_embedding_params(const struct model *m);
/* Parameters of one attention block (MLA or Q/K/V/output). */
double model_attn_params(const struct model *m);
/* Of an MLA layer's attention weights, those whole on every tp rank
 * (the down projections and the latents' norms); 0 without MLA. */
double model_mla_replicated_params(const struct model *m);
/* Parameters of the multi-token-prediction layers. */
double model_mtp_params(const struct model *m);
/* Final norms, T5's relative position biases, BERT's pooler and heads:
 * what is neither a layer nor an embedding. */
double model_other_params(const struct model *m);
/* Layers with cross-attention (a T5 decoder's); 0 for other models. */
int model_cross_layers(const struct model *m);
/* MoE layers of m (all but the first dense ones); 0 for a dense model. */
int model_moe_layers(const struct model *m);
/* Dense layers among layers [from, from + n), 0-based: all n of a
 * dense model, those of an MoE model's first moe_first_dense_layers. */
int model_dense_layers_in(const struct model *m, int from, int n);
/* Whether layer i (0-based) uses sliding-window attention. */
bool model_layer_windowed(const struct model *m, int i);
/* Whether m trains with dropout (0.1 on the attention probabilities
 * and the hidden states): the GPT-3, BERT and T5 recipes do, the
 * RoPE-era ones (Llama, Mistral, Qwen, ...) set it to 0. */
bool model_dropout(const struct model *m);

/*
 * Check that a (custom) architecture is self-consistent; on failure
 * return -1 and leave a one-line reason (no "error:" prefix) in why,
 * which has room for whylen bytes.
 */
int model_validate(const struct model *m, char *why, size_t whylen);

#endif
