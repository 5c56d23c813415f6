/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * model.c - exact parameter counts of a model's shape, and the checks a
 * shape must pass.  The presets themselves are in model-catalog.c.
 */
#include "autoconfig.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* T5 learns one relative position bias per head and bucket, in the first
 * self-attention layer of the encoder and of the decoder; 32 buckets
 * (Hugging Face T5Config.relative_attention_num_buckets; Raffel et al.
 * 2020, arXiv 1910.10683, section 2.1). */
#define T5_RELATIVE_BUCKETS 32
/* BERT's segment vocabulary (Devlin et al. 2019, arXiv 1810.04805;
 * Hugging Face BertConfig.type_vocab_size). */
#define BERT_TOKEN_TYPES 2
/* BERT's next-sentence classifier: two classes (same sources). */
#define BERT_NSP_CLASSES 2

/* ---- parameter counts -------------------------------------------------- */

/* Query width (heads x head dimension) and K/V width (groups x head
 * dimension); the head dimension may differ from hidden / heads. */
static double
model_q_width(const struct model *m)
{
	return (double)m->num_attention_heads * m->kv_channels;
}

static double
model_kv_width(const struct model *m)
{
	int groups = m->num_query_groups > 0 ? m->num_query_groups
	                                     : m->num_attention_heads;

	return (double)groups * m->kv_channels;
}

/* One normalization: LayerNorm has a scale and a shift, RMSNorm a scale. */
static double
model_norm_params(const struct model *m)
{
	return (m->normalization == NORM_LAYERNORM ? 2.0 : 1.0) *
	       m->hidden_size;
}

/*
 * Multi-latent attention [MLA: Megatron-LM megatron/core/transformer/
 * multi_latent_attention.py, MLASelfAttention]: linear_q_down_proj
 * h x q_lora_rank and linear_q_up_proj q_lora_rank x heads*(qk + pe)
 * (or linear_q_proj h x heads*(qk + pe) without a Q rank),
 * linear_kv_down_proj h x (kv_lora_rank + pe), linear_kv_up_proj
 * kv_lora_rank x heads*(qk + v), linear_proj heads*v x h; with
 * qk_layernorm the q_layernorm and kv_layernorm on the two latents
 * (gpt_layer_specs.py builds them only then).
 */
static double
model_mla_params(const struct model *m)
{
	double h = m->hidden_size, a = m->num_attention_heads;
	double qr = m->q_lora_rank, kvr = m->kv_lora_rank;
	double qk = m->qk_head_dim, pe = m->qk_pos_emb_head_dim;
	double v = m->v_head_dim, norm = m->normalization == NORM_LAYERNORM
	                                 ? 2.0 : 1.0;
	double p = h * (kvr + pe) + kvr * a * (qk + v) + a * v * h;

	p += qr > 0 ? h * qr + qr * a * (qk + pe) : h * a * (qk + pe);
	if (m->qk_layernorm)
		p += norm * (kvr + qr);
	if (m->bias_linear)
		p += h;
	return p;
}

/*
 * The part of model_mla_params() that tensor parallelism leaves whole on
 * every rank: Megatron-LM's MLA spec builds linear_q_down_proj and
 * linear_kv_down_proj with backend.linear(), Transformer Engine's
 * TELinear, which MLASelfAttention builds with parallel_mode
 * "duplicated" [MLM models/gpt/gpt_layer_specs.py,
 * transformer/multi_latent_attention.py]; the norms on the two latents
 * are whole too.  0 without MLA.
 */
double
model_mla_replicated_params(const struct model *m)
{
	double h = m->hidden_size, qr = m->q_lora_rank;
	double kvr = m->kv_lora_rank, pe = m->qk_pos_emb_head_dim;
	double p;

	if (m->kv_lora_rank <= 0)
		return 0;
	p = h * (kvr + pe) + (qr > 0 ? h * qr : 0);
	if (m->qk_layernorm)
		p += (m->normalization == NORM_LAYERNORM ? 2.0 : 1.0) *
		     (kvr + qr);
	return p;
}

/* Q, K, V and output projections, with their biases; Q and K norms of
 * a head's width (Qwen3's q_norm and k_norm); one learnable softmax
 * offset per head with softmax_type learnable (GPT-OSS's sinks). */
double
model_attn_params(const struct model *m)
{
	double h = m->hidden_size, q = model_q_width(m), kv = model_kv_width(m);
	double p = 2.0 * h * q + 2.0 * h * kv;

	if (m->kv_lora_rank > 0)
		p = model_mla_params(m);
	else if (m->bias_linear)
		p += q + 2.0 * kv + h;
	else if (m->bias_qkv)
		p += q + 2.0 * kv;
	if (m->qk_layernorm && m->kv_lora_rank <= 0)
		p += 2.0 * m->kv_channels *
		     (m->normalization == NORM_LAYERNORM ? 2.0 : 1.0);
	if (m->softmax_type == SOFTMAX_LEARNABLE)
		p += m->num_attention_heads;
	return p;
}

/* An MLP of the given width: gated ones have gate, up and down
 * projections, others up and down; biases on each output. */
static double
model_mlp_params(const struct model *m, double width)
{
	double h = m->hidden_size;
	double p = (m->swiglu ? 3.0 : 2.0) * h * width;

	if (m->bias_linear)
		p += (m->swiglu ? 2.0 : 1.0) * width + h;
	return p;
}

/* The MLP block: dense, or experts (all, or the top-k a token uses),
 * the router (h x E, no bias in Megatron-LM) and any shared expert. */
static double
model_ffn_params(const struct model *m, bool active_only, bool moe)
{
	double experts;
	double p;

	if (!moe)
		return model_mlp_params(m, m->ffn_hidden_size);
	experts = active_only ? m->moe_router_topk : m->num_experts;
	p = experts * model_mlp_params(m, m->moe_ffn_hidden_size) +
	    (double)m->hidden_size * m->num_experts;
	if (m->moe_shared_ffn_hidden_size > 0)
		p += model_mlp_params(m, m->moe_shared_ffn_hidden_size);
	return p;
}

/* One layer: attention, MLP, a norm before each; a T5 decoder layer also
 * has cross-attention and its norm. */
static double
model_one_layer(const struct model *m, bool active_only, bool cross,
                bool moe)
{
	double p = model_attn_params(m) +
	           model_ffn_params(m, active_only, moe) +
	           2.0 * model_norm_params(m);

	if (cross)
		p += model_attn_params(m) + model_norm_params(m);
	return p;
}

/* Encoder layers of an encoder-decoder; the rest are decoder layers. */
static int
model_encdec_encoder_layers(const struct model *m)
{
	return m->encoder_layers > 0 ? m->encoder_layers : m->num_layers / 2;
}

int
model_cross_layers(const struct model *m)
{
	return m->arch == ARCH_ENCDEC
	       ? m->num_layers - model_encdec_encoder_layers(m) : 0;
}

/* MoE layers: all but the first dense ones (Megatron-LM's
 * --moe-layer-freq "([0]*K+[1]*(L-K))"); none in a dense model. */
int
model_moe_layers(const struct model *m)
{
	int dense = m->moe_first_dense_layers;

	if (m->num_experts <= 0)
		return 0;
	return m->num_layers > dense ? m->num_layers - dense : 0;
}

/* The pattern is indexed by the layer's number in the whole model
 * (gpt_layer_specs.py get_gpt_decoder_layer_specs builds every
 * layer's spec, then each chunk takes its slice), so a chunk's dense
 * layers are its overlap with the first K. */
int
model_dense_layers_in(const struct model *m, int from, int n)
{
	int end = from + n, dense = m->moe_first_dense_layers;

	if (n <= 0)
		return 0;
	if (m->num_experts <= 0)
		return n;
	if (from >= dense)
		return 0;
	return (end < dense ? end : dense) - (from > 0 ? from : 0);
}

/* All transformer layers together (the MTP layers apart). */
static double
model_all_layers(const struct model *m, bool active_only)
{
	int enc, moe = model_moe_layers(m);

	if (m->arch != ARCH_ENCDEC)
		return (m->num_layers - moe) *
		       model_one_layer(m, active_only, false, false) +
		       moe * model_one_layer(m, active_only, false, true);
	enc = model_encdec_encoder_layers(m);
	return enc * model_one_layer(m, active_only, false, moe > 0) +
	       (m->num_layers - enc) *
	       model_one_layer(m, active_only, true, moe > 0);
}

/*
 * One multi-token-prediction layer [Megatron-LM megatron/core/
 * transformer/multi_token_prediction.py, MultiTokenPredictionLayer]:
 * enorm and hnorm, eh_proj 2h x h, a transformer layer of the model's
 * last kind (an MoE layer in an MoE model) and its final_layernorm; the
 * embedding and output layer are the main model's.
 */
static double
model_mtp_layer(const struct model *m, bool active_only)
{
	double h = m->hidden_size;

	return 3.0 * model_norm_params(m) + 2.0 * h * h +
	       model_one_layer(m, active_only, false, m->num_experts > 0);
}

/* The multi-token-prediction layers' parameters. */
double
model_mtp_params(const struct model *m)
{
	return m->mtp_num_layers > 0
	       ? m->mtp_num_layers * model_mtp_layer(m, false) : 0;
}

/* Whether layer i (0-based) attends within a sliding window: every
 * layer but each window_attn_skip_freq-th (Megatron-LM counts layers
 * from 1: layer_number % window_attn_skip_freq == 0 is full). */
bool
model_layer_windowed(const struct model *m, int i)
{
	if (m->window_size <= 0)
		return false;
	return m->window_attn_skip_freq <= 0 ||
	       (i + 1) % m->window_attn_skip_freq != 0;
}

bool
model_dropout(const struct model *m)
{
	return m->position_embedding_type != POS_ROPE;
}

/* One layer's parameters, averaged over encoder and decoder layers. */
double
model_layer_params(const struct model *m)
{
	if (m->num_layers <= 0)
		return 0;
	return model_all_layers(m, false) / m->num_layers;
}

/* Token, position and segment embeddings, and an untied output layer. */
double
model_embedding_params(const struct model *m)
{
	double h = m->hidden_size;
	double p = (double)m->vocab_size * h;

	if (m->untie_embeddings)
		p += (double)m->vocab_size * h;
	if (m->position_embedding_type == POS_LEARNED)
		p += (double)m->max_position_embeddings * h;
	if (m->arch == ARCH_ENCODER)
		p += BERT_TOKEN_TYPES * h;
	return p;
}

/*
 * What is neither a layer nor an embedding: the final norm (one per
 * stack of T5, the embedding norm of post-LN BERT), T5's relative
 * position biases, and BERT's pooler, MLM transform (dense + norm +
 * output bias) and next-sentence classifier.
 */
double
model_other_params(const struct model *m)
{
	double h = m->hidden_size;

	switch (m->arch) {
	case ARCH_DECODER:
		return model_norm_params(m);
	case ARCH_ENCDEC:
		return 2.0 * model_norm_params(m) +
		       (m->position_embedding_type == POS_RELATIVE
		        ? 2.0 * T5_RELATIVE_BUCKETS * m->num_attention_heads
		        : 0);
	case ARCH_ENCODER:
		return model_norm_params(m) + (h * h + h) +
		       (h * h + h) + model_norm_params(m) + m->vocab_size +
		       (BERT_NSP_CLASSES * h + BERT_NSP_CLASSES);
	}
	return 0;
}

/* Every parameter: layers, embeddings and the rest. */
double
model_params(const struct model *m)
{
	return model_all_layers(m, false) + model_embedding_params(m) +
	       model_other_params(m) + model_mtp_params(m);
}

/* The parameters one token passes through: top-k experts only. */
double
model_active_params(const struct model *m)
{
	return model_all_layers(m, true) + model_embedding_params(m) +
	       model_other_params(m) +
	       (m->mtp_num_layers > 0
	        ? m->mtp_num_layers * model_mtp_layer(m, true) : 0);
}

/* ---- validation ----------------------------------------------------- */

/* The first non-positive size among the required ones, or NULL. */
static const char *
model_first_nonpositive(const struct model *m, int *value)
{
	const struct {
		const char *key;
		int value;
	} sizes[] = {
		{ "num_layers", m->num_layers },
		{ "hidden_size", m->hidden_size },
		{ "num_attention_heads", m->num_attention_heads },
		{ "num_query_groups", m->num_query_groups },
		{ "kv_channels", m->kv_channels },
		{ "vocab_size", m->vocab_size },
		{ "max_position_embeddings", m->max_position_embeddings },
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (sizes[i].value <= 0) {
			*value = sizes[i].value;
			return sizes[i].key;
		}
	}
	return NULL;
}

/*
 * Group-limited routing as Megatron-LM's group_limited_topk takes it
 * (megatron/core/transformer/moe/moe_utils.py): the experts split into
 * num_groups equal groups, each group scored by its best topk/group_topk
 * experts, and the token's topk experts taken from the group_topk best
 * groups, which must hold that many.
 */
static int
model_validate_router_groups(const struct model *m, char *why,
                             size_t whylen)
{
	int groups = m->moe_router_num_groups;
	int picked = m->moe_router_group_topk;

	if (groups == 0 && picked == 0)
		return 0;
	if (groups == 0 || picked == 0)
		return snprintf(why, whylen, "group-limited routing needs both "
		                "moe_router_num_groups and "
		                "moe_router_group_topk, not %d and %d",
		                groups, picked), -1;
	if (m->num_experts % groups != 0)
		return snprintf(why, whylen, "num_experts %d is not a multiple "
		                "of moe_router_num_groups %d",
		                m->num_experts, groups), -1;
	if (picked > groups || picked > m->moe_router_topk ||
	    (long)picked * (m->num_experts / groups) < m->moe_router_topk)
		return snprintf(why, whylen, "moe_router_group_topk %d must be "
		                "at most moe_router_num_groups %d and "
		                "moe_router_topk %d, and its groups must hold "
		                "moe_router_topk experts", picked, groups,
		                m->moe_router_topk), -1;
	return 0;
}

/* The router keys describe an MoE model's router: none on a dense one. */
static bool
model_has_router_keys(const struct model *m)
{
	return m->moe_router_score_function != ROUTER_SOFTMAX ||
	       m->moe_router_num_groups != 0 ||
	       m->moe_router_group_topk != 0 ||
	       m->moe_router_topk_scaling_factor != 0 ||
	       m->moe_router_enable_expert_bias;
}

/* DeepSeek-V3's expert bias balances sigmoid scores: Megatron-LM's
 * TransformerConfig refuses it with softmax ones. */
static int
model_validate_router_bias(const struct model *m, char *why, size_t whylen)
{
	if (m->moe_router_enable_expert_bias &&
	    m->moe_router_score_function != ROUTER_SIGMOID)
		return snprintf(why, whylen, "moe_router_enable_expert_bias "
		                "needs moe_router_score_function "
		                "\"sigmoid\""), -1;
	return 0;
}

/* Mixture-of-experts settings; 0 or -1 with the reason in why. */
static int
model_validate_moe(const struct model *m, char *why, size_t whylen)
{
	if (m->num_experts < 0 || m->moe_router_topk < 0 ||
	    m->moe_ffn_hidden_size < 0 || m->moe_shared_ffn_hidden_size < 0)
		return snprintf(why, whylen, "num_experts, moe_router_topk "
		                "and the expert FFN sizes cannot be "
		                "negative"), -1;
	if (m->num_experts == 0) {
		if (model_has_router_keys(m))
			return snprintf(why, whylen, "the moe_router_* keys "
			                "describe an MoE router, which needs "
			                "num_experts > 0"), -1;
		if (m->ffn_hidden_size <= 0)
			return snprintf(why, whylen, "ffn_hidden_size must be "
			                "positive, not %d",
			                m->ffn_hidden_size), -1;
		return 0;
	}
	if (m->moe_router_topk < 1 || m->moe_router_topk > m->num_experts)
		return snprintf(why, whylen, "moe_router_topk %d is not "
		                "between 1 and num_experts %d",
		                m->moe_router_topk, m->num_experts), -1;
	if (m->moe_ffn_hidden_size <= 0)
		return snprintf(why, whylen, "num_experts %d needs a positive "
		                "moe_ffn_hidden_size", m->num_experts), -1;
	if (model_validate_router_bias(m, why, whylen) != 0)
		return -1;
	return model_validate_router_groups(m, why, whylen);
}

/* Multi-latent attention: the ranks and head widths Megatron-LM's
 * MLATransformerConfig takes; none of them without kv_lora_rank. */
static int
model_validate_mla(const struct model *m, char *why, size_t whylen)
{
	if (m->kv_lora_rank <= 0) {
		if (m->q_lora_rank > 0 || m->qk_head_dim > 0 ||
		    m->qk_pos_emb_head_dim > 0 || m->v_head_dim > 0 ||
		    m->rotary_scaling_factor > 0 || m->mscale_all_dim > 0)
			return snprintf(why, whylen, "q_lora_rank, "
			                "qk_head_dim, qk_pos_emb_head_dim, "
			                "v_head_dim, rotary_scaling_factor and "
			                "mscale_all_dim describe multi-latent "
			                "attention, which needs "
			                "kv_lora_rank > 0"), -1;
		return 0;
	}
	if (m->qk_head_dim <= 0 || m->v_head_dim <= 0)
		return snprintf(why, whylen, "multi-latent attention needs "
		                "positive qk_head_dim and v_head_dim, not "
		                "%d and %d", m->qk_head_dim, m->v_head_dim), -1;
	/* MLA gives every head its own K and V from the latent. */
	if (m->num_query_groups != m->num_attention_heads)
		return snprintf(why, whylen, "multi-latent attention has no "
		                "query groups: num_query_groups %d must equal "
		                "num_attention_heads %d", m->num_query_groups,
		                m->num_attention_heads), -1;
	return 0;
}

/* First dense layers, MTP layers and sliding windows. */
static int
model_validate_layers(const struct model *m, char *why, size_t whylen)
{
	if (m->moe_first_dense_layers > 0 && m->num_experts <= 0)
		return snprintf(why, whylen, "moe_first_dense_layers %d needs "
		                "num_experts > 0",
		                m->moe_first_dense_layers), -1;
	if (m->moe_first_dense_layers >= m->num_layers &&
	    m->moe_first_dense_layers > 0)
		return snprintf(why, whylen, "moe_first_dense_layers %d leaves "
		                "no MoE layer of num_layers %d",
		                m->moe_first_dense_layers, m->num_layers), -1;
	if (m->mtp_num_layers > 0 && m->arch != ARCH_DECODER)
		return snprintf(why, whylen, "mtp_num_layers needs a decoder "
		                "(arch \"decoder\")"), -1;
	if (m->window_attn_skip_freq > 0 && m->window_size <= 0)
		return snprintf(why, whylen, "window_attn_skip_freq %d needs a "
		                "sliding window (window_size > 0)",
		                m->window_attn_skip_freq), -1;
	return 0;
}

/* Check sizes, grouping, encoder split and MoE settings. */
int
model_validate(const struct model *m, char *why, size_t whylen)
{
	int value = 0;
	const char *key = model_first_nonpositive(m, &value);

	if (key)
		return snprintf(why, whylen, "%s must be positive, not %d",
		                key, value), -1;
	/* Megatron-LM splits the heads into groups sharing one K/V head. */
	if (m->num_attention_heads % m->num_query_groups != 0)
		return snprintf(why, whylen, "num_attention_heads %d is not a "
		                "multiple of num_query_groups %d",
		                m->num_attention_heads,
		                m->num_query_groups), -1;
	if (m->arch == ARCH_ENCDEC &&
	    (m->encoder_layers <= 0 || m->encoder_layers >= m->num_layers))
		return snprintf(why, whylen, "an encoder-decoder needs between "
		                "1 and num_layers - 1 = %d encoder layers, not "
		                "%d", m->num_layers - 1, m->encoder_layers), -1;
	if (model_validate_mla(m, why, whylen) != 0 ||
	    model_validate_layers(m, why, whylen) != 0)
		return -1;
	return model_validate_moe(m, why, whylen);
}
