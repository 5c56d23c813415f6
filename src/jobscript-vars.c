/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * jobscript-vars.c - a candidate's template variables, from the campaign's
 * settings and the layout (the variables are listed in jobscript.h).
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "directive.h"
#include "error.h"
#include "jobscript.h"
#include "layout-switch.h"
#include "util.h"
#include "xalloc.h"

#ifndef PARATUNE_BINDIR
#define PARATUNE_BINDIR "/usr/local/bin"
#endif

/* Set name to s, or leave it unset when s is NULL or empty. */
static void
set_text(struct template_vars *v, const char *name, const char *s)
{
	template_vars_set_str(v, name, s && *s ? s : NULL);
}

/*
 * Selective recompute's modules when they are not Megatron-LM's default
 * (core_attn alone), unset otherwise: recompute_modules as separate
 * words for --recompute-modules (nargs='+'; the names are identifiers,
 * so the text needs no quoting).  recompute_modules_list, always set,
 * the modules (that default included) as a Python list for NeMo's
 * model.config.recompute_modules.
 */
static void
vars_recompute_modules(struct template_vars *v, const struct layout *l)
{
	struct strbuf words = STRBUF_INIT, list = STRBUF_INIT;

	template_vars_set_str(v, "recompute_modules", NULL);
	/* Always for NeMo: a recipe's own modules (DeepSeek-V3's
	 * mla_up_proj and layernorm) would otherwise stay. */
	template_vars_set_str(v, "recompute_modules_list", "[\"core_attn\"]");
	if (l->recompute != RECOMPUTE_SELECTIVE || l->recompute_modules == 0)
		return;
	layout_switch_set_names(SW_RECOMPUTE_MODULES,
	                        (int)l->recompute_modules, ' ', &words);
	strbuf_addch(&list, '[');
	for (int i = 0; i < RCM_COUNT; i++)
		if (l->recompute_modules & RCM_BIT(i))
			strbuf_addf(&list, "%s\"%s\"", list.len > 1 ? "," : "",
			            recompute_module_names[i]);
	strbuf_addch(&list, ']');
	template_vars_set_raw(v, "recompute_modules", words.buf);
	template_vars_set_str(v, "recompute_modules_list", list.buf);
	strbuf_release(&words);
	strbuf_release(&list);
}

/*
 * Megatron-LM's --recompute-method and --recompute-num-layers for full
 * recompute (recompute.py): "block" recomputes the first N layers of
 * each model chunk, "uniform" splits every chunk into runs of N layers
 * and keeps only each run's input.  Block over every layer is uniform
 * with runs of one; uniform with 0 is one run per model chunk.
 */
static void
vars_recompute(struct template_vars *v, const struct settings *c,
               const struct layout *l)
{
	int chunk = layout_uniform_whole(&c->model, l);
	bool full = l->recompute == RECOMPUTE_FULL;
	bool uniform = l->recompute_method == RECOMPUTE_UNIFORM;

	template_vars_set_str(v, "recompute", recompute_name(l->recompute));
	template_vars_set_bool(v, "recompute_full", full);
	template_vars_set_bool(v, "recompute_selective",
	                       l->recompute == RECOMPUTE_SELECTIVE);
	template_vars_set_int(v, "recompute_layers", l->recompute_layers);
	vars_recompute_modules(v, l);
	template_vars_set_str(v, "recompute_method", NULL);
	template_vars_set_str(v, "recompute_num_layers", NULL);
	if (!full)
		return;
	if (uniform || l->recompute_layers == 0) {
		template_vars_set_str(v, "recompute_method", "uniform");
		template_vars_set_int(v, "recompute_num_layers",
		                      !uniform ? 1 : l->recompute_layers > 0
		                      ? l->recompute_layers : chunk);
	} else {
		template_vars_set_str(v, "recompute_method", "block");
		template_vars_set_int(v, "recompute_num_layers",
		                      l->recompute_layers);
	}
}

/*
 * Context parallelism's communication, only with cp > 1: a2a+p2p needs
 * --hierarchical-context-parallel-sizes A P (arguments.py asserts it),
 * the all-to-all level first (parallel_state.py's level 0 is the
 * innermost ranks).
 */
static void
vars_cp_comm(struct template_vars *v, const struct settings *c,
             const struct layout *l)
{
	struct workload w;
	int a2a;

	template_vars_set_str(v, "cp_comm_type", NULL);
	template_vars_set_str(v, "cp_a2a_size", NULL);
	template_vars_set_str(v, "cp_p2p_size", NULL);
	if (l->cp <= 1)
		return;
	template_vars_set_str(v, "cp_comm_type", cp_comm_name(l->cp_comm));
	if (l->cp_comm != CP_COMM_A2A_P2P)
		return;
	settings_workload(c, &w);
	a2a = layout_cp_a2a_size(&w, l);
	template_vars_set_int(v, "cp_a2a_size", a2a);
	template_vars_set_int(v, "cp_p2p_size", l->cp / a2a);
}

/* The tuning guide's switches. */
/*
 * CUDA graphs: per layer (Transformer Engine's) or the whole iteration;
 * an MoE model captured whole takes the settings of NVIDIA's recipes
 * that capture MoE models (layout.c, graphs_refused): the hybridep
 * dispatcher (check_moe requires it), a budget of 1.5 times the balanced
 * share per expert rank, paged stashing, Transformer Engine's op fuser.
 * Per layer, an MoE model's graphs hold attention, the router and the
 * dispatch's preprocessing, as NVIDIA's MoE recipes capture them
 * (Megatron-Bridge's Qwen3 30B-A3B B200 configs: cuda_graph_scope attn,
 * moe_router, moe_preprocess): without --cuda-graph-modules Megatron-LM
 * captures the whole layer, the dropless experts' host syncs with it.
 */
static void
vars_cuda_graphs(struct template_vars *v, const struct settings *c,
                 const struct layout *l)
{
	bool layers = l->cuda_graphs && !layout_full_iteration_graph(l);

	template_vars_set_bool(v, "cuda_graphs", l->cuda_graphs);
	template_vars_set_bool(v, "cuda_graph_layers", layers);
	template_vars_set_str(v, "cuda_graph_modules", NULL);
	if (layers && c->model.num_experts > 0)
		template_vars_set_raw(v, "cuda_graph_modules",
		                      "attn moe_router moe_preprocess");
	template_vars_set_bool(v, "cuda_graph_full_iteration",
	                       layout_full_iteration_graph(l));
	template_vars_set_bool(v, "moe_full_iteration_graph",
	                       layout_full_iteration_graph(l) &&
	                       l->moe_dispatcher == MOE_DISPATCH_HYBRIDEP);
}

/*
 * Megatron-LM's --attention-backend for the layout's attention.  With
 * "flash", Megatron-LM turns Transformer Engine's other kernels off, and
 * TE's flash path takes neither a softmax offset (GPT-OSS's sinks) nor
 * fp32 inputs (dot_product_attention/utils.py): the run would stop with
 * no backend available.  Those get "auto", TE's own choice among the
 * kernels that can run them.
 */
static const char *
attention_backend(const struct settings *c, const struct layout *l)
{
	if (l->attention != ATTN_FLASH)
		return attention_name(l->attention);
	return c->model.softmax_type != SOFTMAX_VANILLA ||
	       c->precision == PREC_FP32 ? "auto" : "flash";
}

/* hybridep is Megatron-LM's flex dispatcher on its hybridep backend. */
static void
vars_dispatcher(struct template_vars *v, const struct layout *l)
{
	bool hybridep = l->moe_dispatcher == MOE_DISPATCH_HYBRIDEP;
	const char *type = layout_flex_dispatcher(l)
	                   ? "flex" : moe_dispatcher_name(l->moe_dispatcher);

	template_vars_set_str(v, "moe_token_dispatcher", type);
	template_vars_set_bool(v, "moe_flex", layout_flex_dispatcher(l));
	template_vars_set_bool(v, "moe_hybridep", hybridep);
	template_vars_set_bool(v, "moe_alltoall",
	                       l->moe_dispatcher == MOE_DISPATCH_ALLTOALL);
	template_vars_set_str(v, "moe_flex_backend",
	                      hybridep ? "hybridep" : "deepep");
}

static void
vars_switches(struct template_vars *v, const struct settings *c,
              const struct layout *l)
{
	template_vars_set_bool(v, "sequence_parallel", l->sequence_parallel);
	template_vars_set_bool(v, "distributed_optimizer",
	                       l->distributed_optimizer);
	template_vars_set_str(v, "attention", attention_name(l->attention));
	template_vars_set_str(v, "attention_backend",
	                      attention_backend(c, l));
	template_vars_set_bool(v, "account_embedding", l->account_embedding);
	template_vars_set_bool(v, "account_loss", l->account_loss);
	template_vars_set_str(v, "fp8_recipe", fp8_recipe_name(l->fp8_recipe));
	template_vars_set_bool(v, "fp8_blockwise",
	                       c->precision == PREC_FP8 &&
	                       l->fp8_recipe == FP8_BLOCKWISE);
	template_vars_set_bool(v, "fp8_param_gather", l->fp8_param_gather);
	/* MXFP8 weights gathered in FP8 reuse the gradient buffer, as the
	 * estimate counts them: without it Megatron-LM warns of "significant
	 * amount additional GPU memory" (core/optimizer/optimizer_config.py)
	 * and its own MXFP8 tests and NVIDIA's recipes set both. */
	template_vars_set_bool(v, "mxfp8_param_gather",
	                       c->precision == PREC_FP8 &&
	                       l->fp8_recipe == FP8_MXFP8 &&
	                       l->fp8_param_gather);
	template_vars_set_bool(v, "fp8_dot_product_attention",
	                       c->precision == PREC_FP8 &&
	                       l->fp8_dot_product_attention);
	template_vars_set_bool(v, "grad_reduce_in_bf16", l->grad_reduce_bf16);
	vars_cuda_graphs(v, c, l);
	template_vars_set_bool(v, "tp_comm_overlap", l->tp_comm_overlap);
	template_vars_set_bool(v, "overlap_grad_reduce",
	                       l->overlap_grad_reduce);
	template_vars_set_bool(v, "overlap_param_gather",
	                       l->overlap_param_gather);
	template_vars_set_bool(v, "fsdp", l->fsdp);
	template_vars_set_bool(v, "moe_grouped_gemm", l->moe_grouped_gemm);
	vars_dispatcher(v, l);
	template_vars_set_bool(v, "moe_a2a_overlap", l->moe_a2a_overlap);
	template_vars_set_int(v, "activation_offload_layers",
	                      l->offload_layers);
	vars_cp_comm(v, c, l);
	/* Never set: a template names one to refuse a switch it cannot
	 * pass on, and rendering stops there with the name as the reason
	 * (NeMo 2.0's command line cannot add the callback TP overlap
	 * needs, nor hierarchical context-parallel groups, nor the EP
	 * overlap its Megatron core predates). */
	template_vars_set_str(v, "tp_comm_overlap_needs_megatron_lm", NULL);
	template_vars_set_str(v, "a2a_p2p_needs_megatron_lm", NULL);
	template_vars_set_str(v, "moe_a2a_overlap_needs_megatron_lm", NULL);
	template_vars_set_str(v, "cuda_graph_full_iteration_needs_megatron_lm",
	                      NULL);
}

/* The candidate's layout. */
static void
vars_layout(struct template_vars *v, const struct settings *c,
            const struct layout *l, const char *name)
{
	int vp = l->vp > 1 ? l->vp : 1;

	template_vars_set_str(v, "name", name);
	template_vars_set_int(v, "tp", l->tp);
	template_vars_set_int(v, "pp", l->pp);
	template_vars_set_int(v, "cp", l->cp);
	template_vars_set_int(v, "ep", l->ep);
	template_vars_set_int(v, "etp", layout_etp(l));
	template_vars_set_int(v, "vp", vp);
	template_vars_set_str(v, "vp_layers", NULL);
	template_vars_set_str(v, "vp_stages", NULL);
	template_vars_set_bool(v, "vp_interleaved", vp > 1);
	/* Megatron-LM counts the accounted embedding and loss as layers
	 * of the split (arguments.py); an uneven pipeline's stages hold
	 * different layer counts, so it gives the virtual stages per rank
	 * instead (transformer_config.py checks each count % vp). */
	template_vars_set_str(v, "pipeline_layout", NULL);
	if (l->pipeline_layout && l->pp > 1) {
		struct strbuf s = STRBUF_INIT;

		layout_vstage_string(&c->model, l, &s);
		template_vars_set_str(v, "pipeline_layout", s.buf);
		strbuf_release(&s);
	} else if (vp > 1 && layout_uneven(l))
		template_vars_set_int(v, "vp_stages", vp);
	else if (vp > 1)
		template_vars_set_int(v, "vp_layers",
		                      layout_split_layers(&c->model, l) /
		                      (l->pp * vp));
	template_vars_set_str(v, "first_pipeline_num_layers", NULL);
	template_vars_set_str(v, "last_pipeline_num_layers", NULL);
	if (l->first_stage_layers > 0)
		template_vars_set_int(v, "first_pipeline_num_layers",
		                      l->first_stage_layers);
	if (l->last_stage_layers > 0)
		template_vars_set_int(v, "last_pipeline_num_layers",
		                      l->last_stage_layers);
	template_vars_set_int(v, "mbs", l->mbs);
	template_vars_set_int(v, "gbs", l->gbs);
	template_vars_set_int(v, "dp", l->dp);
	vars_recompute(v, c, l);
	vars_switches(v, c, l);
}

/* Megatron-LM's --position-embedding-type value. */
static const char *
position_embedding_name(enum pos_emb_kind k)
{
	return k == POS_ROPE ? "rope"
	     : k == POS_RELATIVE ? "relative" : "learned_absolute";
}

/*
 * Megatron-LM's --moe-layer-freq for an MoE model whose first K layers
 * are dense: "([0]*K+[1]*(L-K))", the Python expression its
 * moe_freq_type evaluates (DeepSeek-V3: "([0]*3+[1]*58)"); unset when
 * every layer is MoE or the model is dense.
 */
static void
vars_moe_layer_freq(struct template_vars *v, const struct model *m)
{
	char freq[64];
	int k = m->moe_first_dense_layers;

	if (m->num_experts <= 0 || k <= 0) {
		template_vars_set_str(v, "moe_layer_freq", NULL);
		return;
	}
	snprintf(freq, sizeof freq, "([0]*%d+[1]*%d)", k, m->num_layers - k);
	template_vars_set_str(v, "moe_layer_freq", freq);
}

/* A positive figure as the shortest fixed-point decimal that gives it
 * back (argparse's float() reads 4e+01, but people read 40), else with
 * every digit; unset at 0, so that a section on it leaves the option
 * out. */
static void
vars_number(struct template_vars *v, const char *name, double value)
{
	char text[32];

	if (!(value > 0)) {
		template_vars_set_str(v, name, NULL);
		return;
	}
	snprintf(text, sizeof text, "%.17g", value);
	for (int decimals = 0; decimals <= 6; decimals++) {
		char fixed[32];

		snprintf(fixed, sizeof fixed, "%.*f", decimals, value);
		if (strtod(fixed, NULL) == value) {
			memcpy(text, fixed, sizeof text);
			break;
		}
	}
	template_vars_set_str(v, name, text);
}

/* The router's model flags, all unset or false on a dense model. */
static void
vars_router(struct template_vars *v, const struct model *m)
{
	bool moe = m->num_experts > 0;

	template_vars_set_str(v, "moe_router_score_function",
	                      !moe ? NULL
	                      : m->moe_router_score_function == ROUTER_SIGMOID
	                      ? "sigmoid" : "softmax");
	/* Softmax is Megatron-LM's default, and older releases have no
	 * --moe-router-score-function: templates pass sigmoid alone. */
	template_vars_set_bool(v, "moe_router_sigmoid",
	                       moe && m->moe_router_score_function ==
	                              ROUTER_SIGMOID);
	template_vars_set_int(v, "moe_router_num_groups",
	                      moe ? m->moe_router_num_groups : 0);
	template_vars_set_int(v, "moe_router_group_topk",
	                      moe ? m->moe_router_group_topk : 0);
	vars_number(v, "moe_router_topk_scaling_factor",
	            moe ? m->moe_router_topk_scaling_factor : 0);
	template_vars_set_bool(v, "moe_router_enable_expert_bias",
	                       moe && m->moe_router_enable_expert_bias);
}

/*
 * The MLP's activation.  Megatron-LM's pretrain_gpt.py takes --swiglu,
 * --squared-relu and --quick-geglu (with GPT-OSS's offset and clamp) and
 * GELU by default; it has no option for GeGLU, whose three projections
 * --swiglu gives with SiLU in place of GELU (the same GEMMs and
 * memory, another model), so geglu is said for the template to warn.
 */
static void
vars_activation(struct template_vars *v, const struct model *m)
{
	const char *act = model_activation_name(m);
	bool quick = !strcmp(act, "quick-geglu");

	template_vars_set_str(v, "activation", act);
	template_vars_set_bool(v, "swiglu", m->swiglu && !quick);
	template_vars_set_bool(v, "geglu", !strcmp(act, "geglu"));
	template_vars_set_bool(v, "squared_relu",
	                       !strcmp(act, "squared-relu"));
	template_vars_set_bool(v, "quick_geglu", quick);
}

/* The custom-architecture switches: multi-latent attention, shared
 * experts, dense first layers, MTP, QK norms, sliding windows, softmax
 * offsets, Q/K/V biases (0 or false when the model has none). */
static void
vars_model_arch(struct template_vars *v, const struct model *m)
{
	static const char *const softmax[] = {
		"vanilla", "off-by-one", "learnable",
	};

	/* pretrain_gpt.py builds decoders only. */
	template_vars_set_bool(v, "decoder_only", m->arch == ARCH_DECODER);
	template_vars_set_bool(v, "mla", m->kv_lora_rank > 0);
	template_vars_set_int(v, "q_lora_rank", m->q_lora_rank);
	template_vars_set_int(v, "kv_lora_rank", m->kv_lora_rank);
	template_vars_set_int(v, "qk_head_dim", m->qk_head_dim);
	template_vars_set_int(v, "qk_pos_emb_head_dim",
	                      m->qk_pos_emb_head_dim);
	template_vars_set_int(v, "v_head_dim", m->v_head_dim);
	template_vars_set_int(v, "moe_shared_expert_intermediate_size",
	                      m->num_experts > 0
	                      ? m->moe_shared_ffn_hidden_size : 0);
	vars_moe_layer_freq(v, m);
	template_vars_set_int(v, "mtp_num_layers", m->mtp_num_layers);
	template_vars_set_bool(v, "qk_layernorm", m->qk_layernorm);
	template_vars_set_bool(v, "add_qkv_bias",
	                       m->bias_qkv && !m->bias_linear);
	template_vars_set_int(v, "window_size", m->window_size);
	template_vars_set_int(v, "window_attn_skip_freq",
	                      m->window_size > 0 ? m->window_attn_skip_freq
	                                         : 0);
	template_vars_set_str(v, "softmax_type",
	                      softmax[m->softmax_type <= SOFTMAX_LEARNABLE
	                              ? m->softmax_type : 0]);
	template_vars_set_bool(v, "softmax_offset",
	                       m->softmax_type != SOFTMAX_VANILLA);
	vars_number(v, "rotary_scaling_factor",
	            m->kv_lora_rank > 0 ? m->rotary_scaling_factor : 0);
	vars_number(v, "mscale_all_dim",
	            m->kv_lora_rank > 0 ? m->mscale_all_dim : 0);
}

/* The model's shape. */
static void
vars_model(struct template_vars *v, const struct settings *c)
{
	const struct model *m = &c->model;
	enum pos_emb_kind pos = m->position_embedding_type;
	int kv = m->kv_channels > 0 ? m->kv_channels
	       : m->num_attention_heads > 0
	       ? m->hidden_size / m->num_attention_heads : 0;

	set_text(v, "model_name", c->model_name ? c->model_name : m->name);
	set_text(v, "nemo_recipe", m->nemo_recipe);
	template_vars_set_int(v, "num_layers", m->num_layers);
	template_vars_set_int(v, "hidden_size", m->hidden_size);
	template_vars_set_int(v, "ffn_hidden_size", m->ffn_hidden_size);
	template_vars_set_int(v, "num_attention_heads", m->num_attention_heads);
	template_vars_set_int(v, "num_query_groups", m->num_query_groups);
	template_vars_set_bool(v, "gqa", m->num_query_groups > 0 &&
	                       m->num_query_groups < m->num_attention_heads);
	template_vars_set_int(v, "kv_channels", kv);
	template_vars_set_int(v, "vocab_size", m->vocab_size);
	template_vars_set_int(v, "max_position_embeddings",
	                      m->max_position_embeddings);
	/* Megatron-LM asserts max_position_embeddings >= seq_length: a
	 * RoPE model trained on longer sequences needs the larger table. */
	template_vars_set_int(v, "max_positions",
	                      c->seq_length > m->max_position_embeddings
	                      ? c->seq_length : m->max_position_embeddings);
	template_vars_set_int(v, "seq_length", c->seq_length);
	vars_activation(v, m);
	vars_router(v, m);
	template_vars_set_bool(v, "rmsnorm", m->normalization == NORM_RMSNORM);
	template_vars_set_str(v, "normalization",
	                      m->normalization == NORM_RMSNORM ? "RMSNorm"
	                                                       : "LayerNorm");
	template_vars_set_bool(v, "rope", pos == POS_ROPE);
	/* What the estimate takes (model_dropout).  Said always, since
	 * Megatron-LM's default is 0.1, and CUDA graphs refuse dropout
	 * under selective recompute ("attention dropout is not supported
	 * with graphed attention recomputation", TransformerConfig), which
	 * the layout rules leave out with it (layout.c, graphed_dropout). */
	template_vars_set_str(v, "dropout", model_dropout(m) ? "0.1" : "0.0");
	template_vars_set_str(v, "position_embedding_type",
	                      position_embedding_name(pos));
	template_vars_set_bool(v, "untie_embeddings", m->untie_embeddings);
	template_vars_set_bool(v, "disable_bias_linear", !m->bias_linear);
	template_vars_set_bool(v, "moe", m->num_experts > 0);
	/* moe_token_imbalance 1, the estimate's default, is the forced
	 * balance the published benchmarks run with (NVIDIA's MoE
	 * performance configs set moe_router_force_load_balancing): the
	 * runs measure what the estimate predicts, not a router still
	 * learning its balance. */
	template_vars_set_bool(v, "moe_force_balance",
	                       m->num_experts > 0 &&
	                       c->moe_token_imbalance <= 1);
	template_vars_set_int(v, "num_experts", m->num_experts);
	template_vars_set_int(v, "moe_router_topk", m->moe_router_topk);
	/* Megatron-LM's default expert width is ffn_hidden_size. */
	template_vars_set_int(v, "moe_ffn_hidden_size",
	                      m->num_experts > 0 && m->moe_ffn_hidden_size == 0
	                      ? m->ffn_hidden_size : m->moe_ffn_hidden_size);
	vars_model_arch(v, m);
}

/* Precision, the campaign's names and the run limits. */
static void
vars_run(struct template_vars *v, const struct settings *c,
         const char *campaign_dir, const char *run_dir)
{
	int minutes = c->limits.max_minutes_per_run;
	/* Megatron-LM checks --exit-duration-in-mins after each step, and
	 * Lightning's Timer checks trainer.max_time; stop 10 % (at least 2
	 * minutes) before Slurm's limit kills the job. */
	int margin = minutes / 10 > 2 ? minutes / 10 : 2;
	int exit_min = minutes - margin > 1 ? minutes - margin : 1;
	char hms[32];

	template_vars_set_str(v, "precision", precision_name(c->precision));
	template_vars_set_bool(v, "bf16", c->precision == PREC_BF16 ||
	                       c->precision == PREC_FP8 ||
	                       c->precision == PREC_FP4);
	template_vars_set_bool(v, "fp16", c->precision == PREC_FP16);
	template_vars_set_bool(v, "fp8", c->precision == PREC_FP8);
	template_vars_set_bool(v, "fp4", c->precision == PREC_FP4);
	template_vars_set_str(v, "cross_entropy_fusion",
	                      c->cross_entropy_fusion == CE_FUSION_NONE ? NULL
	                      : ce_fusion_names[c->cross_entropy_fusion]);
	template_vars_set_bool(v, "cross_entropy_te",
	                       c->cross_entropy_fusion == CE_FUSION_TE);
	template_vars_set_bool(v, "framework_torchtitan",
	                       c->framework == FRAMEWORK_TORCHTITAN);
	set_text(v, "campaign_name", c->name);
	set_text(v, "campaign_dir", campaign_dir);
	set_text(v, "run_dir", run_dir);
	set_text(v, "gpu", c->gpu.name[0] ? c->gpu.name : c->gpu_name);
	template_vars_set_bool(v, "blackwell", gpu_blackwell(&c->gpu));
	template_vars_set_int(v, "max_steps", c->limits.max_steps_per_run);
	snprintf(hms, sizeof hms, "%02d:%02d:00", minutes / 60, minutes % 60);
	template_vars_set_str(v, "time_limit", hms);
	template_vars_set_int(v, "time_limit_min", minutes);
	template_vars_set_int(v, "exit_duration_min", exit_min);
	/* Lightning's "DD:HH:MM:SS" (its Timer callback splits on ':'). */
	snprintf(hms, sizeof hms, "%02d:%02d:%02d:00", exit_min / 1440,
	         exit_min / 60 % 24, exit_min % 60);
	template_vars_set_str(v, "exit_duration_dhms", hms);
}

/* Whether an #SBATCH option holds nothing sbatch or a shell would parse. */
static bool
directive_ok(const char *s)
{
	if (strncmp(s, "--", 2) != 0 || !s[2])
		return false;
	for (s += 2; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && !strchr("=,:./-_@%", *s))
			return false;
	return true;
}

/*
 * sbatch_directives: one "#SBATCH" line per extra option.  Each must be
 * one paratune also applies when it submits (directive.h): the script's
 * lines serve a person who runs sbatch on it by hand.
 */
static int
vars_directives(struct template_vars *v, const struct settings *c)
{
	struct strbuf sb = STRBUF_INIT, where = STRBUF_INIT;
	struct strbuf why = STRBUF_INIT;
	struct sbatch_extras extras = { 0 };
	int ret = 0;

	for (int i = 0; i < c->slurm.directives.n && !ret; i++) {
		const char *d = c->slurm.directives.v[i];

		if (!directive_ok(d))
			strbuf_addf(&why, "'%s' cannot be an #SBATCH line (it "
			            "must start with '--' and hold only "
			            "letters, digits and =,:./-_@%%)", d);
		else if (sbatch_extras_add(&extras, d, &why) == 0) {
			strbuf_addf(&sb, "%s#SBATCH %s", i ? "\n" : "", d);
			continue;
		}
		settings_where(c, "slurm.directives", &where);
		ret = error("%sslurm.directives: %s", where.buf, why.buf);
	}
	if (!ret)
		template_vars_set_raw(v, "sbatch_directives", sb.buf);
	strbuf_release(&sb);
	strbuf_release(&where);
	strbuf_release(&why);
	return ret;
}

/* Length of a shell variable name at the start of s, 0 when none. */
static size_t
env_name_len(const char *s)
{
	size_t n = 0;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
	      *s == '_'))
		return 0;
	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
	       (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
		n++;
	return n;
}

/* env_exports: "export NAME='VALUE'" per env entry, the value quoted. */
static int
vars_env(struct template_vars *v, const struct settings *c)
{
	struct strbuf sb = STRBUF_INIT, where = STRBUF_INIT;
	int ret = 0;

	for (int i = 0; i < c->env.n && !ret; i++) {
		const char *e = c->env.v[i];
		size_t n = env_name_len(e);

		if (n > 0 && e[n] == '=') {
			strbuf_addf(&sb, "%sexport %.*s=", i ? "\n" : "",
			            (int)n, e);
			template_shell_quote(&sb, e + n + 1);
			continue;
		}
		settings_where(c, "env", &where);
		ret = error("%senv: '%s' is not NAME=VALUE with a variable "
		            "name", where.buf, e);
	}
	if (!ret)
		template_vars_set_raw(v, "env_exports", sb.buf);
	strbuf_release(&sb);
	strbuf_release(&where);
	return ret;
}

/* Slurm options, the container and the simulated trainer. */
static void
vars_slurm(struct template_vars *v, const struct settings *c)
{
	const char *simtrain = getenv("PARATUNE_SIMTRAIN");
	int seg;

	template_vars_set_int(v, "nodes", c->nodes);
	template_vars_set_int(v, "gpus_per_node", c->gpus_per_node);
	/* One task per GPU, as Megatron-LM and NeMo are launched under srun
	 * (notes on launch interfaces). */
	template_vars_set_int(v, "ntasks_per_node", c->gpus_per_node);
	template_vars_set_int(v, "world_size",
	                      (long long)c->nodes * c->gpus_per_node);
	set_text(v, "partition", c->slurm.partition);
	set_text(v, "account", c->slurm.account);
	set_text(v, "qos", c->slurm.qos);
	set_text(v, "reservation", c->slurm.reservation);
	set_text(v, "gpu_type", c->slurm.gpu_type);
	/* A --segment of slurm.directives has its own #SBATCH line. */
	seg = settings_segment_directive(c) > 0 ? 0
	      : nvlink_segment_nodes(c->nodes, c->gpus_per_node,
	                             c->gpu.nvlink_domain);
	if (seg > 0)
		template_vars_set_int(v, "segment_nodes", seg);
	else
		template_vars_set_str(v, "segment_nodes", NULL);
	template_vars_set_str(v, "tag", NULL);
	template_vars_set_bool(v, "container",
	                       c->container.image && *c->container.image);
	set_text(v, "container_image", c->container.image);
	set_text(v, "container_mounts", c->container.mounts);
	set_text(v, "container_workdir", c->container.workdir);
	if (simtrain && *simtrain) {
		template_vars_set_str(v, "simtrain", simtrain);
	} else {
		/* The build tree's when paratune runs from one. */
		char *tree = build_tree_dir();
		char *path = tree ? xasprintf("%s/paratune-simtrain", tree)
		             : xstrdup(PARATUNE_BINDIR "/paratune-simtrain");

		template_vars_set_str(v, "simtrain", path);
		free(path);
		free(tree);
	}
}

/*
 * run.early_stop: the job script runs `paratune watch` on its own log,
 * this paratune (the build tree's when it runs from one, as for the
 * simulated trainer), with the campaign's warm-up and minimum steps.
 */
static void
vars_watch(struct template_vars *v, const struct settings *c)
{
	const char *self = getenv("PARATUNE_SELF");
	char *tree = NULL, *path;

	template_vars_set_bool(v, "early_stop", c->run.early_stop);
	if (self && *self)
		path = xstrdup(self);
	else if ((tree = build_tree_dir()) != NULL)
		path = xasprintf("%s/paratune", tree);
	else
		path = xstrdup(PARATUNE_BINDIR "/paratune");
	template_vars_set_str(v, "paratune", path);
	template_vars_set_int(v, "skip_steps", c->results.skip_steps);
	template_vars_set_int(v, "min_steps", c->results.min_steps);
	free(path);
	free(tree);
}

/*
 * What kind of training: the estimate of a LoRA campaign counts only the
 * adapters as trained, so a template must run LoRA or refuse it, never
 * run plain pretraining in its place.
 */
static void
vars_mode(struct template_vars *v, const struct settings *c)
{
	bool finetune = c->mode == MODE_FINETUNE;
	bool lora = c->peft && !strcmp(c->peft, "lora");

	template_vars_set_str(v, "mode", finetune ? "finetune" : "pretrain");
	template_vars_set_str(v, "peft", c->peft ? c->peft : "none");
	template_vars_set_bool(v, "finetune", finetune);
	template_vars_set_bool(v, "peft_lora", lora);
	/* NeMo 2.0's command: its recipes register a pretrain and a
	 * finetune factory under the model's name. */
	template_vars_set_str(v, "nemo_task", finetune ? "finetune"
	                                               : "pretrain");
	template_vars_set_bool(v, "nemo_recipe_has_task",
	                       model_nemo_has_task(&c->model, finetune));
}

/* run.simulated_truth, absolute: a relative one is the campaign
 * directory's (scripts/truth writes DIR/truth.csv). */
static void
vars_truth(struct template_vars *v, const struct settings *c,
           const char *campaign_dir)
{
	const char *t = c->run.simulated_truth;
	char *path;

	if (t == NULL || *t == '\0') {
		template_vars_set_str(v, "simulated_truth", NULL);
		return;
	}
	path = t[0] == '/' ? xstrdup(t) : xasprintf("%s/%s", campaign_dir, t);
	template_vars_set_str(v, "simulated_truth", path);
	free(path);
}

/* Public: see jobscript.h. */
int
jobscript_vars(struct template_vars *v, const struct settings *c,
               const struct layout *l, const char *name,
               const char *campaign_dir, const char *run_dir)
{
	vars_layout(v, c, l, name);
	vars_model(v, c);
	vars_mode(v, c);
	vars_run(v, c, campaign_dir, run_dir);
	vars_slurm(v, c);
	vars_truth(v, c, campaign_dir);
	vars_watch(v, c);
	if (vars_directives(v, c) || vars_env(v, c))
		return -1;
	return 0;
}
