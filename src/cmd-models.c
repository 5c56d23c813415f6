/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-models.c - 'paratune models': the preset architectures with their
 * parameter counts, as a table or as JSON.
 */
#include "autoconfig.h"

#include <stdio.h>

#include "cmd.h"
#include "error.h"
#include "json.h"
#include "model.h"
#include "table.h"

extern const struct cmd_entry cmd_models_entry;

/* Megatron-LM's spelling of the normalization. */
static const char *
models_norm_name(const struct model *m)
{
	return m->normalization == NORM_RMSNORM ? "RMSNorm" : "LayerNorm";
}

/* Megatron-LM's position_embedding_type, "relative" for T5's. */
static const char *
models_position_name(const struct model *m)
{
	switch (m->position_embedding_type) {
	case POS_LEARNED:
		return "learned_absolute";
	case POS_ROPE:
		return "rope";
	case POS_RELATIVE:
		return "relative";
	}
	return "unknown";
}

/* Decoder, encoder or encoder-decoder. */
static const char *
models_arch_name(const struct model *m)
{
	switch (m->arch) {
	case ARCH_DECODER:
		return "decoder";
	case ARCH_ENCODER:
		return "encoder";
	case ARCH_ENCDEC:
		return "encoder-decoder";
	}
	return "unknown";
}

/* One table row per preset; MoE columns show "-" for dense models. */
static void
models_table(FILE *f)
{
	static const char *const cols[] = { "name", "family", ">params_b",
		">active_b", ">layers", ">hidden", ">ffn", ">heads", ">groups",
		">kv", ">vocab", ">seq", "act", "norm", "tied", "experts",
		"nemo_recipe", NULL };
	struct table t;

	table_init(&t, cols);
	for (size_t i = 0; i < model_preset_count(); i++) {
		const struct model *m = model_preset_at(i);

		table_add(&t, "%s", m->name);
		table_add(&t, "%s", m->family);
		table_add(&t, "%.2f", model_params(m) / 1e9);
		if (m->num_experts > 0)
			table_add(&t, "%.2f", model_active_params(m) / 1e9);
		else
			table_add(&t, "-");
		table_add(&t, "%d", m->num_layers);
		table_add(&t, "%d", m->hidden_size);
		table_add(&t, "%d", m->num_experts > 0
		          ? m->moe_ffn_hidden_size : m->ffn_hidden_size);
		table_add(&t, "%d", m->num_attention_heads);
		table_add(&t, "%d", m->num_query_groups);
		table_add(&t, "%d", m->kv_channels);
		table_add(&t, "%d", m->vocab_size);
		table_add(&t, "%d", m->max_position_embeddings);
		table_add(&t, "%s", model_activation_name(m));
		table_add(&t, "%s", models_norm_name(m));
		table_add(&t, "%s", m->untie_embeddings ? "no" : "yes");
		if (m->num_experts > 0)
			table_add(&t, "%d/top%d", m->num_experts,
			          m->moe_router_topk);
		else
			table_add(&t, "-");
		table_add(&t, "%s", m->nemo_recipe[0] ? m->nemo_recipe : "-");
	}
	table_print(&t, f);
	table_release(&t);
}

/* The architecture keys a preset may set beyond the classic shape:
 * shared experts, dense first layers, the router, MLA, MTP, QK norms,
 * windows. */
static void
models_json_arch(struct json *j, const struct model *m)
{
	static const char *const softmax[] = {
		"vanilla", "off-by-one", "learnable",
	};

	json_int(j, "moe_shared_expert_intermediate_size",
	         m->moe_shared_ffn_hidden_size);
	json_int(j, "moe_first_dense_layers", m->moe_first_dense_layers);
	json_string(j, "moe_router_score_function",
	            m->moe_router_score_function == ROUTER_SIGMOID
	            ? "sigmoid" : "softmax");
	json_int(j, "moe_router_num_groups", m->moe_router_num_groups);
	json_int(j, "moe_router_group_topk", m->moe_router_group_topk);
	json_number(j, "moe_router_topk_scaling_factor",
	            m->moe_router_topk_scaling_factor);
	json_bool(j, "moe_router_enable_expert_bias",
	          m->moe_router_enable_expert_bias);
	json_int(j, "q_lora_rank", m->q_lora_rank);
	json_int(j, "kv_lora_rank", m->kv_lora_rank);
	json_int(j, "qk_head_dim", m->qk_head_dim);
	json_int(j, "qk_pos_emb_head_dim", m->qk_pos_emb_head_dim);
	json_int(j, "v_head_dim", m->v_head_dim);
	json_number(j, "rotary_scaling_factor", m->rotary_scaling_factor);
	json_number(j, "mscale_all_dim", m->mscale_all_dim);
	json_int(j, "mtp_num_layers", m->mtp_num_layers);
	json_bool(j, "qk_layernorm", m->qk_layernorm);
	json_int(j, "window_size", m->window_size);
	json_int(j, "window_attn_skip_freq", m->window_attn_skip_freq);
	json_string(j, "softmax_type",
	            softmax[m->softmax_type <= SOFTMAX_LEARNABLE
	                    ? m->softmax_type : 0]);
}

/* One preset as a JSON object; keys are Megatron-LM's argument names. */
static void
models_json_one(struct json *j, const struct model *m)
{
	json_begin_object(j, NULL);
	json_string(j, "name", m->name);
	json_string(j, "family", m->family);
	json_string(j, "arch", models_arch_name(m));
	json_number(j, "params_b", model_params(m) / 1e9);
	json_number(j, "active_params_b", model_active_params(m) / 1e9);
	json_number(j, "published_params_b", m->published_params_b);
	json_int(j, "num_layers", m->num_layers);
	json_int(j, "encoder_num_layers", m->encoder_layers);
	json_int(j, "hidden_size", m->hidden_size);
	json_int(j, "ffn_hidden_size", m->ffn_hidden_size);
	json_int(j, "num_attention_heads", m->num_attention_heads);
	json_int(j, "num_query_groups", m->num_query_groups);
	json_int(j, "kv_channels", m->kv_channels);
	json_int(j, "vocab_size", m->vocab_size);
	json_int(j, "max_position_embeddings", m->max_position_embeddings);
	json_string(j, "activation", model_activation_name(m));
	json_string(j, "normalization", models_norm_name(m));
	json_string(j, "position_embedding_type", models_position_name(m));
	json_bool(j, "tied_embeddings", !m->untie_embeddings);
	json_int(j, "num_experts", m->num_experts);
	json_int(j, "moe_router_topk", m->moe_router_topk);
	json_int(j, "moe_ffn_hidden_size", m->moe_ffn_hidden_size);
	models_json_arch(j, m);
	json_string(j, "nemo_recipe", m->nemo_recipe);
	json_end_object(j);
}

/* Every preset as a JSON array. */
static void
models_json(FILE *f)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb, true);
	json_begin_array(&j, NULL);
	for (size_t i = 0; i < model_preset_count(); i++)
		models_json_one(&j, model_preset_at(i));
	json_end_array(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

/* paratune models [--format FMT]. */
static int
cmd_models_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		OPT_FORMAT_(NULL),
		OPT_FINISH,
	};
	int status;

	if (cmd_parse_args(ctx, &cmd_models_entry, opts, argc, argv, 0, 0,
	                   &status) < 0)
		return status;
	if ((status = cmd_check_site(ctx)) != EXIT_OK)
		return status;
	if (ctx->format == FORMAT_JSON)
		models_json(ctx->out);
	else
		models_table(ctx->out);
	return EXIT_OK;
}

const struct cmd_entry cmd_models_entry = {
	"models", NULL, NULL,
	"list the preset architectures and their parameter counts",
	cmd_models_exec,
	NULL,
};
