/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * simtrain-setup.c - from pretrain_gpt.py's flags to paratune's model,
 * workload and layout, with the checks Megatron-LM makes on the way
 * (simtrain-check.c) where Megatron-LM makes them.
 */
#include "autoconfig.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "simtrain.h"

/* ---- building paratune's structures ------------------------------------ */

/* Multi-latent attention, MTP, QK norms, Q/K/V biases, sliding windows
 * and softmax offsets, as model.h describes them. */
static void
build_model_arch(const struct simtrain_args *a, struct model *m)
{
	const char *p = a->window_size;
	int w = 0;

	if (a->multi_latent_attention) {
		m->q_lora_rank = a->q_lora_rank;
		m->kv_lora_rank = a->kv_lora_rank;
		m->qk_head_dim = a->qk_head_dim;
		m->qk_pos_emb_head_dim = a->qk_pos_emb_head_dim;
		m->v_head_dim = a->v_head_dim;
		m->num_query_groups = m->num_attention_heads;
	}
	m->mtp_num_layers = a->mtp_num_layers;
	m->qk_layernorm = a->qk_layernorm;
	m->bias_qkv = a->add_qkv_bias;
	/* tuple_type: "W,0" or "(W,0)"; the left extent is the window. */
	p += *p == '(';
	if (simtrain_take_int(&p, &w) == 0)
		m->window_size = w;
	m->window_attn_skip_freq = m->window_size > 0
		? a->window_attn_skip_freq : 0;
	m->softmax_type = !strcmp(a->softmax_type, "learnable")
		? SOFTMAX_LEARNABLE
		: !strcmp(a->softmax_type, "off-by-one") ? SOFTMAX_OFF_BY_ONE
		                                         : SOFTMAX_VANILLA;
}

/* megatron's defaults for the shape arguments left unset (arguments.py
 * 412-425): 4h, or 8h/3 rounded down to a multiple of 64 with SwiGLU. */
static void
build_model(const struct simtrain_args *a, struct model *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "pretrain_gpt");
	snprintf(m->family, sizeof(m->family), "gpt");
	m->arch = ARCH_DECODER;
	m->num_layers = a->num_layers;
	m->hidden_size = a->hidden_size;
	m->ffn_hidden_size = a->ffn_hidden_size;
	if (m->ffn_hidden_size == SIMTRAIN_UNSET)
		m->ffn_hidden_size = a->swiglu
			? (int)(4.0 * a->hidden_size * 2 / 3 / 64) * 64
			: 4 * a->hidden_size;
	m->num_attention_heads = a->num_attention_heads;
	m->num_query_groups = a->group_query_attention
		? a->num_query_groups : a->num_attention_heads;
	m->kv_channels = a->kv_channels != SIMTRAIN_UNSET
		? a->kv_channels : a->hidden_size / a->num_attention_heads;
	/* GPT-2's BPE vocabulary, pretrain_gpt.py's default tokenizer;
	 * NullTokenizer adds an end-of-document token (tokenizer.py). */
	m->vocab_size = a->vocab_size != SIMTRAIN_UNSET ? a->vocab_size
	                                                : 50257;
	if (!strcmp(a->tokenizer_type, "NullTokenizer"))
		m->vocab_size += 1;
	m->max_position_embeddings = a->max_position_embeddings;
	/* Quick GeGLU gates like SwiGLU: three projections. */
	m->swiglu = a->swiglu || a->quick_geglu;
	m->normalization = !strcmp(a->normalization, "RMSNorm")
		? NORM_RMSNORM : NORM_LAYERNORM;
	/* "none" has no position table, like RoPE as far as memory goes. */
	m->position_embedding_type =
		!strcmp(a->position_embedding_type, "learned_absolute")
		? POS_LEARNED : POS_ROPE;
	m->untie_embeddings = a->untie_embeddings;
	m->bias_linear = !a->disable_bias_linear;
	if (a->num_experts != SIMTRAIN_UNSET) {
		int total;

		m->num_experts = a->num_experts;
		m->moe_router_topk = a->moe_router_topk;
		m->moe_ffn_hidden_size = a->moe_ffn_hidden_size !=
			SIMTRAIN_UNSET ? a->moe_ffn_hidden_size
			               : m->ffn_hidden_size;
		m->moe_shared_ffn_hidden_size =
			a->moe_shared_expert_intermediate_size;
		if (simtrain_moe_freq_first_dense(a->moe_layer_freq,
		                         &m->moe_first_dense_layers,
		                         &total) != 0)
			m->moe_first_dense_layers = 0;
	}
	build_model_arch(a, m);
}

/*
 * Full recompute as the layout names it (layout.h): block recomputes the
 * first N layers of each chunk, all of them when N reaches the stage;
 * uniform keeps the input of each run of N layers, and runs of one are
 * block over every layer.
 */
static void
build_recompute(const struct simtrain_args *a, struct layout *l)
{
	int split = a->num_layers + a->account_for_embedding +
	            a->account_for_loss;
	int n = a->recompute_num_layers;

	l->recompute_layers = 0;
	l->recompute_method = RECOMPUTE_BLOCK;
	l->recompute_modules = l->recompute == RECOMPUTE_SELECTIVE
		? layout_modules_canonical(a->recompute_modules) : 0;
	if (l->recompute != RECOMPUTE_FULL)
		return;
	if (!strcmp(a->recompute_method, "block")) {
		if (n < split / a->pp)
			l->recompute_layers = n;
	} else if (n > 1) {
		l->recompute_method = RECOMPUTE_UNIFORM;
		l->recompute_layers = n;
	}
}

/* The tuning guide's switches.  Megatron FSDP with everything sharded
 * is the layout's FSDP, which stands in for the distributed optimizer
 * it runs on; a partial sharding counts as the distributed optimizer. */
static void
build_switches(const struct simtrain_args *a, struct layout *l)
{
	int r = layout_choice_parse(fp8_recipe_names, a->fp8_recipe);
	int c = layout_choice_parse(cp_comm_names, a->cp_comm_type);
	int d = layout_choice_parse(moe_dispatcher_names,
	                            a->moe_token_dispatcher_type);

	l->account_embedding = a->account_for_embedding;
	l->account_loss = a->account_for_loss;
	l->first_stage_layers = a->first_pipeline_layers == SIMTRAIN_UNSET
	                        ? 0 : a->first_pipeline_layers;
	l->last_stage_layers = a->last_pipeline_layers == SIMTRAIN_UNSET
	                       ? 0 : a->last_pipeline_layers;
	l->pipeline_layout = a->pipeline_layout != NULL;
	/* "custom" recipes are the user's own: counted as delayed. */
	l->fp8_recipe = r < 0 ? FP8_DELAYED : (enum fp8_recipe)r;
	/* One layout switch for both: fp4 and fp8 exclude each other. */
	l->fp8_param_gather = a->fp8_param_gather || a->fp4_param_gather;
	l->grad_reduce_bf16 = a->grad_reduce_in_bf16;
	l->cuda_graphs = strcmp(a->cuda_graph_impl, "none") != 0;
	l->cuda_graph_full_iteration =
		!strcmp(a->cuda_graph_impl, "full_iteration");
	l->tp_comm_overlap = a->tp_comm_overlap;
	l->overlap_grad_reduce = a->overlap_grad_reduce;
	l->overlap_param_gather = a->overlap_param_gather;
	l->fsdp = a->use_megatron_fsdp &&
	          !strcmp(a->data_parallel_sharding_strategy,
	                  "optim_grads_params");
	if (l->fsdp)
		l->distributed_optimizer = false;
	l->cp_comm = c < 0 || a->cp == 1 ? CP_COMM_P2P : (enum cp_comm)c;
	l->moe_grouped_gemm = a->moe_grouped_gemm;
	/* flex on hybridep is the estimator's hybridep; on deepep or
	 * ncclep (not modelled apart), its flex. */
	l->moe_dispatcher = d < 0 || a->num_experts <= 0
	                    ? MOE_DISPATCH_ALLTOALL : (enum moe_dispatcher)d;
	if (l->moe_dispatcher == MOE_DISPATCH_FLEX &&
	    !strcmp(a->moe_flex_dispatcher_backend, "hybridep"))
		l->moe_dispatcher = MOE_DISPATCH_HYBRIDEP;
	l->moe_a2a_overlap = a->overlap_moe_expert_parallel_comm &&
	                     a->num_experts > 0;
	l->offload_layers = a->cpu_offloading_num_layers > 0
	                    ? a->cpu_offloading_num_layers : 0;
}

/* Recompute and kernels as the estimator names them. */
static void
build_layout(const struct simtrain_args *a, struct layout *l)
{
	const char *g = a->recompute_granularity;
	bool local = !strcmp(a->transformer_impl, "local");

	l->tp = a->tp;
	l->pp = a->pp;
	l->cp = a->cp;
	l->ep = a->ep;
	l->etp = a->etp != SIMTRAIN_UNSET ? a->etp : 0;
	l->mbs = a->mbs;
	/* Megatron turns sequence parallelism off when tp is 1. */
	l->sequence_parallel = a->sequence_parallel && a->tp > 1;
	l->distributed_optimizer = a->use_distributed_optimizer ||
	                           a->use_megatron_fsdp;
	l->recompute = !g ? RECOMPUTE_NONE
	             : !strcmp(g, "full") ? RECOMPUTE_FULL
	                                  : RECOMPUTE_SELECTIVE;
	build_recompute(a, l);
	build_switches(a, l);
	l->attention = !strcmp(a->attention_backend, "unfused") ||
	               !strcmp(a->attention_backend, "local") ||
	               (!strcmp(a->attention_backend, "auto") && local)
	               ? ATTN_UNFUSED : ATTN_FLASH;
}

static enum precision
build_precision(const struct simtrain_args *a)
{
	if (a->fp8_format)
		return PREC_FP8;
	if (a->fp4_format)
		return PREC_FP4;
	if (a->bf16)
		return PREC_BF16;
	return a->fp16 ? PREC_FP16 : PREC_FP32;
}

/* Ranks in Megatron's order, tensor parallel innermost: tp-cp-dp-pp. */
static void
assign_ranks(struct simtrain_job *j)
{
	const struct layout *l = &j->layout;
	int tcp = l->tp * l->cp;

	j->tp_rank = j->rank % l->tp;
	j->dp_rank = j->rank / tcp % l->dp;
	j->pp_rank = j->rank / (tcp * l->dp);
}

int
simtrain_setup(struct simtrain_job *j, struct simtrain_failure *f)
{
	const struct simtrain_args *a = &j->args;
	struct workload *w = &j->work;
	enum layout_rule r;
	char why[256];
	int mult;

	if (simtrain_check_args(j, f) != 0)
		return -1;
	build_model(a, &j->model);
	if (model_validate(&j->model, why, sizeof(why)) != 0)
		return simtrain_raise_model(f, why);
	if (simtrain_check_config(a, f) != 0)
		return -1;
	build_layout(a, &j->layout);
	if (simtrain_check_layout(j, f) != 0)
		return -1;
	memset(w, 0, sizeof(*w));
	w->model = &j->model;
	w->gpu = &j->gpu;
	w->precision = build_precision(a);
	w->seq_length = a->seq_length;
	w->gpus_per_node = j->gpus_per_node;
	w->nodes = j->world / j->gpus_per_node;
	w->gpu_memory_gib = j->gpu.memory_gib;
	/* Micro-batches that interleaving cannot split fail only in the
	 * first step, after the whole setup has been printed. */
	/* A switch without effect is no error: Megatron-LM runs it. */
	r = layout_check(w, &j->layout);
	if (layout_rule_kind(r) == RULE_KIND_NO_EFFECT)
		r = LAYOUT_OK;
	if (r != LAYOUT_OK && r != RULE_VP_MICRO)
		return simtrain_raise_rule(j, r, f);
	assign_ranks(j);
	/* make_vocab_size_divisible_by (128) times tp (tokenizer.py). */
	mult = 128 * j->layout.tp;
	j->padded_vocab = (j->model.vocab_size + mult - 1) / mult * mult;
	estimate_layout(w, &j->layout, &j->est);
	return r == LAYOUT_OK ? 0 : simtrain_raise_rule(j, r, f);
}
