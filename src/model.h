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

struct model {
	char name[64];        /* preset name ("llama3_8b") or custom name */
	char family[16];      /* "gpt3", "llama", "mixtral", "bert", "t5", ... */
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
	double published_params_b; /* public total, 0 when unknown */
};

/* The built-in presets, in catalog order. */
size_t model_preset_count(void);
const struct model *model_preset_at(size_t i);
/* Look up a preset by exact name; NULL when there is none. */
const struct model *model_preset_find(const char *name);

/*
 * Name of the MLP activation ("swiglu", "geglu", "gelu", "squared-relu",
 * "relu"): a preset's own when m is (a copy of) one, else "swiglu" or
 * "gelu" from m->swiglu.  A static string.
 */
const char *model_activation_name(const struct model *m);

/* Total parameter count (all experts). */
double model_params(const struct model *m);
/* Parameters touched per token (top-k experts only). */
double model_active_params(const struct model *m);
/* Parameters of one transformer layer (average over dense/MoE mix). */
double model_layer_params(const struct model *m);
/* Embedding (and untied output layer) parameters. */
double model_embedding_params(const struct model *m);

/*
 * Check that a (custom) architecture is self-consistent; on failure
 * return -1 and leave a one-line reason (no "error:" prefix) in why,
 * which has room for whylen bytes.
 */
int model_validate(const struct model *m, char *why, size_t whylen);

#endif
