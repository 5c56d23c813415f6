/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout.c - the divisibility rules of a parallel layout: which layouts
 * Megatron-LM runs, and which switches would change nothing in one.
 *
 * Megatron-LM's own checks (megatron/training/arguments.py,
 * megatron/core/transformer/transformer_config.py and
 * megatron/core/parallel_state.py at d98e8a64; summarised in the notes on
 * estimation and launch interfaces), in integer arithmetic.  The order of
 * the checks is the order a user would fix them in: world size first,
 * then the model shape, then the switches, then the batch.  How the
 * layers split over the pipeline is layout-stages.c's, where each
 * parallel group sits layout-topology.c's.
 */
#include "autoconfig.h"

#include "layout.h"
#include "layout-int.h"
#include "strbuf.h"

static const struct {
	const char *name;
	enum rule_kind kind;
} rules[RULE_COUNT] = {
	[LAYOUT_OK] = { "ok", RULE_KIND_OK },
	[RULE_WORLD] = { "tp*pp*cp must divide the GPU count",
	                 RULE_KIND_INVALID },
	[RULE_HEADS] = { "attention heads % tp", RULE_KIND_INVALID },
	[RULE_GROUPS] = { "query groups vs tp", RULE_KIND_INVALID },
	[RULE_LAYERS_PP] = { "layers % pp", RULE_KIND_INVALID },
	[RULE_UNEVEN] = { "first/last stage layers: layers left % stages left",
	                  RULE_KIND_INVALID },
	[RULE_VP] = { "vp needs pp > 1 and layers % (pp*vp)",
	              RULE_KIND_INVALID },
	[RULE_VP_MICRO] = { "interleaving needs micro-batches % pp",
	                    RULE_KIND_INVALID },
	[RULE_SEQ_CP] = { "seq_length % (2*cp)", RULE_KIND_INVALID },
	[RULE_EXPERTS] = { "experts % ep", RULE_KIND_INVALID },
	[RULE_EXPERT_FOLD] = { "ep*etp must divide tp*cp*dp",
	                       RULE_KIND_INVALID },
	[RULE_MOE_BIAS] = { "experts with biases need etp 1",
	                    RULE_KIND_INVALID },
	[RULE_BATCH] = { "gbs % (mbs*dp)", RULE_KIND_INVALID },
	[RULE_SP] = { "sequence parallel needs tp > 1 and (seq_length/cp) % tp",
	              RULE_KIND_INVALID },
	[RULE_RECOMPUTE] = { "recompute layers > layers per stage",
	                     RULE_KIND_INVALID },
	[RULE_MP_RANGE] = { "model parallel size outside min..max",
	                    RULE_KIND_CONTROL },
	[RULE_TP_OVERLAP] = { "tp_comm_overlap needs sequence parallel",
	                      RULE_KIND_INVALID },
	[RULE_PARAM_GATHER] = { "overlap_param_gather needs distopt/fsdp "
	                        "and overlap_grad_reduce", RULE_KIND_INVALID },
	[RULE_FSDP] = { "fsdp replaces the distributed optimizer",
	                RULE_KIND_INVALID },
	[RULE_FP8_PARAM] = { "fp8_param_gather needs distopt or fsdp",
	                     RULE_KIND_INVALID },
	[RULE_CP_A2A] = { "a2a: heads per tp rank % cp", RULE_KIND_INVALID },
	[RULE_CP_KERNEL] = { "cp > 1 needs a fused attention kernel: not "
	                     "unfused; sinks need cp_comm_type a2a",
	                     RULE_KIND_INVALID },
	[RULE_OFFLOAD] = { "offload needs pp 1, no recompute, no layer "
	                   "graphs, fewer layers than the model's",
	                   RULE_KIND_INVALID },
	[RULE_FLEX_EP] = { "flex and hybridep dispatchers need ep*etp > 1",
	                   RULE_KIND_INVALID },
	[RULE_A2A_OVERLAP] = { "moe_a2a_overlap needs ep > 1, not allgather, "
	                       "vp with pp > 1, no full or moe recompute, "
	                       "bf16/fp16/fp8, <= 1 MTP layer",
	                       RULE_KIND_INVALID },
	[RULE_GRAPHS_FULL] = { "cuda_graphs with full recompute need "
	                       "cuda_graph_full_iteration", RULE_KIND_INVALID },
	[RULE_GRAPHS_NEMO2] = { "nemo2: per-layer cuda_graphs take no "
	                        "recompute nor MoE", RULE_KIND_INVALID },
	[RULE_GRAPHS_DROPOUT] = { "cuda_graphs with dropout: no core_attn, "
	                          "mlp or moe recompute", RULE_KIND_INVALID },
	[RULE_GRAPH_MOE] = { "cuda_graph_full_iteration on MoE needs hybridep, "
	                     "grouped GEMM, no offload", RULE_KIND_INVALID },
	[RULE_RC_MODULES] = { "recompute_modules: moe_act needs grouped GEMM, "
	                      "mla_up_proj MLA, neither moe_act nor layernorm "
	                      "delayed fp8", RULE_KIND_INVALID },
	[RULE_RC_MODULES_NO_EFFECT] = { "recompute_modules need selective "
	                                "recompute (MoE ones an MoE model)",
	                                RULE_KIND_NO_EFFECT },
	[RULE_FP8_DPA] = { "fp8_dot_product_attention needs fused "
	                   "attention", RULE_KIND_INVALID },
	[RULE_FP8_GPU] = { "fp8_recipe the GPU lacks: mxfp8 needs compute "
	                   "capability 10-11, blockwise 9+ (nemo2 9)",
	                   RULE_KIND_INVALID },
	[RULE_NEMO2_CONTAINER] = { "nemo2: no mxfp8 param gather with its "
	                           "overlap or fsdp, fp8 with moe_act/"
	                           "layernorm or shared_experts recompute, "
	                           "DeepEP on Blackwell",
	                           RULE_KIND_INVALID },
	[RULE_NO_FP8] = { "fp8_recipe/fp8_dot_product_attention need fp8, "
	                  "fp8_param_gather fp8/fp4",
	                  RULE_KIND_NO_EFFECT },
	[RULE_CP_COMM] = { "cp_comm_type needs cp > 1", RULE_KIND_NO_EFFECT },
	[RULE_GRAPH_ITER] = { "cuda_graph_full_iteration needs cuda_graphs",
	                      RULE_KIND_NO_EFFECT },
	[RULE_MOE_DENSE] = { "moe_token_dispatcher/moe_a2a_overlap need an "
	                     "MoE model",
	                     RULE_KIND_NO_EFFECT },
	[RULE_ACCOUNT] = { "account_for_* need pp > 1", RULE_KIND_NO_EFFECT },
	[RULE_UNEVEN_PP1] = { "first/last stage layers need pp > 1",
	                      RULE_KIND_NO_EFFECT },
	[RULE_RC_SAME] = { "recompute count/method: the same run as an "
	                   "earlier one", RULE_KIND_NO_EFFECT },
	[RULE_ETP_TP] = { "etp equal to tp: the default etp's layout",
	                  RULE_KIND_NO_EFFECT },
	[RULE_TP_NVLINK] = { "tp_nvlink: tp inside an NVLink domain",
	                     RULE_KIND_CONTROL },
	[RULE_EP_NVLINK] = { "ep_nvlink: ep*etp inside an NVLink domain",
	                     RULE_KIND_CONTROL },
	[RULE_CP_SEQ] = { "cp_seq: cp only when seq_length > hidden",
	                  RULE_KIND_CONTROL },
	[RULE_NVL72] = { "nvl72_align: tp*cp*dp vs NVLink domain",
	                 RULE_KIND_CONTROL },
	[RULE_BUBBLE] = { "pipeline bubble > max ratio", RULE_KIND_CONTROL },
	[RULE_UNBALANCE] = { "stage unbalance > max ratio",
	                     RULE_KIND_CONTROL },
	[RULE_NONFINITE] = { "prediction not finite (the GPU's rates)",
	                     RULE_KIND_CONTROL },
};

const char *
layout_rule_name(enum layout_rule r)
{
	return (unsigned)r < RULE_COUNT ? rules[r].name : "?";
}

/* Which kind of rule r is. */
enum rule_kind
layout_rule_kind(enum layout_rule r)
{
	return (unsigned)r < RULE_COUNT ? rules[r].kind : RULE_KIND_INVALID;
}

/* KV heads on one tp rank: split over tp, or one replicated head. */
static int
kv_heads_per_rank(const struct model *m, int tp)
{
	int g = m->num_query_groups > 0 ? m->num_query_groups
	                                : m->num_attention_heads;

	return g >= tp ? g / tp : 1;
}

/* Whether an all-to-all over size ranks can split a tp rank's heads. */
bool
layout_a2a_splits_heads(const struct model *m, int tp, int size)
{
	return (m->num_attention_heads / tp) % size == 0 &&
	       kv_heads_per_rank(m, tp) % size == 0;
}

/* Rules that depend only on the model shape and tp/pp/vp/cp/ep. */
static enum layout_rule
check_shape(const struct workload *w, const struct layout *l)
{
	const struct model *m = w->model;
	int g = m->num_query_groups > 0 ? m->num_query_groups
	                                : m->num_attention_heads;
	enum layout_rule r;

	if (m->num_attention_heads % l->tp != 0)
		return RULE_HEADS;
	/* KV heads split over tp, or are replicated when tp exceeds them. */
	if (g % l->tp != 0 && !(l->tp > g && l->tp % g == 0))
		return RULE_GROUPS;
	if ((r = layout_split_rule(m, l)) != LAYOUT_OK)
		return r;
	if (l->cp > 1 && w->seq_length % (2 * l->cp) != 0)
		return RULE_SEQ_CP;
	if (l->ep > 1 && (m->num_experts == 0 || m->num_experts % l->ep != 0))
		return RULE_EXPERTS;
	/* "Bias in Moe is only supported when ETP==1" (Megatron-LM
	 * TransformerConfig, add_bias_linear with an expert tensor parallel
	 * size above 1): GPT-OSS's experts keep their biases. */
	if (m->num_experts > 0 && m->bias_linear && layout_etp(l) > 1)
		return RULE_MOE_BIAS;
	/* Megatron-LM scatters each CP rank's tokens over tp
	 * (tensor_parallel/mappings.py: "First dimension of the tensor
	 * should be divisible by tensor parallel size"). */
	if (l->sequence_parallel &&
	    (l->tp == 1 || (w->seq_length / l->cp) % l->tp != 0))
		return RULE_SP;
	return LAYOUT_OK;
}

/*
 * What NeMo 2.0's 25.07 container (Megatron core 0.13, Transformer
 * Engine 2.5) refuses that a current Megatron-LM runs, in FP8, recompute
 * modules and dispatch (its blockwise FP8 on Blackwell:
 * layout_fp8_recipe_runs):
 * - MXFP8 weights gathered in FP8 with the parameter-gather overlap or
 *   FSDP: core 0.13 maps them into the parameter buffer, which TE 2.5
 *   cannot do (replace_raw_data for MXFP8Tensor), unless
 *   reuse_grad_buf_for_mxfp8_param_ag, which the template renders and
 *   which 0.13 runs with the distributed optimizer and without the
 *   overlap only ("MXFP8 param currently does not support DP AG
 *   overlap", distributed_data_parallel.py);
 * - moe_act or layernorm recompute with any FP8 recipe ("moe_act and
 *   layernorm recompute cannot work with fp8", core 0.13
 *   transformer_config.py; later cores refuse delayed scaling only);
 * - shared_experts, which core 0.13's recompute modules do not have;
 * - the flex dispatcher (DeepEP) on Blackwell: NeMo 2.4 enables DeepEP
 *   on compute capability 8.x and 9.x only (DeepEPCallback), and its
 *   own DeepSeek-V3 script takes alltoall on Blackwell "because deepEP
 *   is not supported yet" (scripts/performance/llm/
 *   pretrain_deepseek_v3.py); the DeepEP of mid-2025 built for SM90.
 */
static bool
nemo2_refuses(const struct workload *w, const struct layout *l)
{
	unsigned rc = l->recompute == RECOMPUTE_SELECTIVE
	              ? layout_recompute_modules(l) : 0;
	bool fp8 = w->precision == PREC_FP8;

	return (fp8 && l->fp8_recipe == FP8_MXFP8 && l->fp8_param_gather &&
	        (l->overlap_param_gather || l->fsdp)) ||
	       (fp8 && (rc & (RCM_BIT(RCM_MOE_ACT) |
	                      RCM_BIT(RCM_LAYERNORM)))) ||
	       (rc & RCM_BIT(RCM_SHARED_EXPERTS)) ||
	       (w->model->num_experts > 0 &&
	        l->moe_dispatcher == MOE_DISPATCH_FLEX && w->gpu &&
	        gpu_blackwell(w->gpu));
}

/*
 * Whether the GPU's tensor cores run the FP8 recipe, as Transformer
 * Engine checks it before the first step (gpu.c): MXFP8 scales blocks
 * of 32 values in the tensor cores, which Blackwell data-center parts
 * have and Hopper, Ada and the 12.x Blackwell parts lack; blockwise
 * scaling needs Hopper or later, and NeMo 2.0's Transformer Engine 2.5
 * runs it on Hopper only.
 */
bool
layout_fp8_recipe_runs(const struct workload *w, enum fp8_recipe r)
{
	if (w->precision != PREC_FP8 || !w->gpu)
		return true;
	if (r == FP8_MXFP8)
		return gpu_mxfp8(w->gpu);
	if (r == FP8_BLOCKWISE)
		return gpu_fp8_blockwise(w->gpu, w->core == CORE_NEMO2);
	return true;
}

/*
 * A module list Megatron-LM refuses (TransformerConfig.__post_init__):
 * moe_act needs grouped GEMM, mla_up_proj multi-latent attention, and
 * with FP8 delayed scaling neither moe_act nor layernorm is allowed.
 */
static enum layout_rule
check_modules(const struct workload *w, const struct layout *l)
{
	unsigned rc = layout_recompute_modules(l);

	if (l->recompute != RECOMPUTE_SELECTIVE)
		return LAYOUT_OK;
	if ((rc & RCM_BIT(RCM_MOE_ACT)) && !l->moe_grouped_gemm)
		return RULE_RC_MODULES;
	if ((rc & RCM_BIT(RCM_MLA_UP_PROJ)) && w->model->kv_lora_rank <= 0)
		return RULE_RC_MODULES;
	if (w->precision == PREC_FP8 && l->fp8_recipe == FP8_DELAYED &&
	    (rc & (RCM_BIT(RCM_MOE_ACT) | RCM_BIT(RCM_LAYERNORM))))
		return RULE_RC_MODULES;
	return LAYOUT_OK;
}

/*
 * What the EP all-to-all overlap asserts [MLM transformer_config.py
 * __post_init__, overlap_moe_expert_parallel_comm]: expert parallelism,
 * the alltoall or flex dispatcher (either backend), virtual pipeline
 * stages when pp > 1,
 * no full recomputation (nor its method and layer count) and no "moe" in
 * recompute_modules, a bf16 or fp16 model (FP8 runs a bf16 model), at
 * most one MTP layer.  --delay-wgrad-compute, which the switch renders
 * with it, asserts the overlap and Transformer Engine, which the
 * templates always use.
 */
static bool
a2a_overlap_refused(const struct workload *w, const struct layout *l)
{
	unsigned rc = layout_recompute_modules(l);

	return l->ep <= 1 || l->moe_dispatcher == MOE_DISPATCH_ALLGATHER ||
	       (l->pp > 1 && l->vp <= 1) || l->recompute == RECOMPUTE_FULL ||
	       (l->recompute == RECOMPUTE_SELECTIVE &&
	        (rc & RCM_BIT(RCM_MOE))) ||
	       w->precision == PREC_FP32 || w->model->mtp_num_layers > 1;
}

/*
 * The token dispatchers as Megatron-LM builds them: flex's buffer, on
 * either backend, "requires TPxEP > 1" over the expert tensor and expert
 * parallel group [MLM token_dispatcher.py MoEFlexTokenDispatcher];
 * allgather and alltoall run with any sizes.
 */
static enum layout_rule
check_moe(const struct workload *w, const struct layout *l)
{
	if (w->model->num_experts <= 0)
		return LAYOUT_OK;
	if (layout_flex_dispatcher(l) && l->ep * layout_etp(l) <= 1)
		return RULE_FLEX_EP;
	if (l->moe_a2a_overlap && a2a_overlap_refused(w, l))
		return RULE_A2A_OVERLAP;
	if (layout_full_iteration_graph(l) &&
	    (l->moe_dispatcher != MOE_DISPATCH_HYBRIDEP ||
	     !l->moe_grouped_gemm || l->offload_layers > 0))
		return RULE_GRAPH_MOE;
	return LAYOUT_OK;
}

bool
layout_full_iteration_graph(const struct layout *l)
{
	return l->cuda_graphs && l->cuda_graph_full_iteration;
}

bool
layout_flex_dispatcher(const struct layout *l)
{
	return l->moe_dispatcher == MOE_DISPATCH_FLEX ||
	       l->moe_dispatcher == MOE_DISPATCH_HYBRIDEP;
}

bool
layout_param_gather_applies(enum precision p)
{
	return p == PREC_FP8 || p == PREC_FP4;
}

/*
 * Whether selective recompute re-runs a module that draws random numbers
 * inside a CUDA graph that captures it [MLM transformer_config.py
 * __post_init__, 2b343d7 on; lines 2871-2899 at d98e8a64: "Graphed
 * recompute module doesn't accept random number"].  With attention
 * dropout, core_attn is refused ("attention dropout is not supported
 * with graphed attention recomputation"); with hidden dropout, mlp and
 * moe ("hidden dropout is not supported with graphed MLP/MoE
 * recomputation").  Every module is inside the graph: the templates
 * capture whole layers (no --cuda-graph-modules) or the whole
 * iteration, and render both dropouts 0.1 where model_dropout says so.
 */
static bool
graphed_dropout(const struct model *m, const struct layout *l)
{
	unsigned random = RCM_BIT(RCM_CORE_ATTN) | RCM_BIT(RCM_MLP) |
	                  RCM_BIT(RCM_MOE);

	return l->recompute == RECOMPUTE_SELECTIVE && model_dropout(m) &&
	       (layout_recompute_modules(l) & random) != 0;
}

/*
 * CUDA graphs [MLM transformer_config.py __post_init__, Megatron-LM
 * 2b343d7 (December 2025) on; lines 2798-2858 at d98e8a64]: with graphs
 * on, "full recompute is only supported with full iteration CUDA
 * graph", and CPU offloading refuses per-layer graphs but not the
 * full-iteration one.  NeMo 2.0's per-layer graphs refuse more: its
 * 25.07 container runs Megatron core 0.13 (NeMo v2.4.0
 * requirements/manifest.json pins Megatron-LM 03f7793, 0.13.0rc1),
 * whose enable_cuda_graph raises "CUDA graphs not supported with
 * activation recomputation." for any recompute_granularity, selective
 * as well as full (transformer_config.py:1164-1168 there; the same
 * through core 0.15).  NVIDIA's NeMo performance scripts reset the
 * recipe's recompute wherever they turn graphs on.  Selective recompute
 * of a module with dropout, in either graph: graphed_dropout.
 *
 * A full-iteration graph cannot hold the host synchronisations of a
 * dropless MoE layer: NVIDIA's recipes that capture MoE models give
 * every expert rank a fixed token budget
 * (moe_expert_rank_capacity_factor 1.5, which needs the flex
 * dispatcher's hybridep or ncclep backend, so paratune's hybridep, and
 * Transformer Engine's op fuser, which needs grouped GEMM) and stash
 * activations in pages (moe_paged_stash, which refuses CPU offloading)
 * [Megatron-Bridge v0.5.0 scripts/performance/configs/qwen/
 * qwen3_llm_pretrain.py and gpt_oss/gpt_oss_llm_pretrain.py
 * set_full_iter_cg_configs; utils/overrides.py
 * cutedsl_fused_grouped_mlp]: check_moe says so.
 */
static enum layout_rule
graphs_rule(const struct workload *w, const struct layout *l)
{
	bool layers = l->cuda_graphs && !l->cuda_graph_full_iteration;

	if (layers && l->offload_layers > 0)
		return RULE_OFFLOAD;
	if (layers && w->core == CORE_NEMO2 &&
	    (l->recompute != RECOMPUTE_NONE || w->model->num_experts > 0))
		return RULE_GRAPHS_NEMO2;
	if (layers && l->recompute == RECOMPUTE_FULL)
		return RULE_GRAPHS_FULL;
	if (l->cuda_graphs && graphed_dropout(w->model, l))
		return RULE_GRAPHS_DROPOUT;
	return LAYOUT_OK;
}

/*
 * The switches Megatron-LM refuses in combination (arguments.py
 * validate_args, transformer_config.py __post_init__): TP overlap needs
 * sequence parallelism; the parameter-gather overlap and FP8 parameter
 * gather need a sharded optimizer (the distributed one or Megatron FSDP),
 * the former the gradient overlap too; CPU offloading refuses pipelines,
 * recomputation, CUDA graphs and offloading every layer.  FSDP with the
 * distributed optimizer is paratune's rule: FSDP shards the optimizer
 * state itself, so the two are one choice, not two.
 */
static enum layout_rule
check_switches(const struct workload *w, const struct layout *l)
{
	bool sharded = l->distributed_optimizer || l->fsdp;
	const struct model *m = w->model;
	enum layout_rule r;

	if (l->tp_comm_overlap && !l->sequence_parallel)
		return RULE_TP_OVERLAP;
	if (l->fsdp && l->distributed_optimizer)
		return RULE_FSDP;
	if (l->overlap_param_gather && (!sharded || !l->overlap_grad_reduce))
		return RULE_PARAM_GATHER;
	/* Megatron-LM refuses --fp8-param-gather without a sharded
	 * optimizer; --fp4-param-gather it accepts (arguments.py). */
	if (l->fp8_param_gather && !sharded && w->precision != PREC_FP4)
		return RULE_FP8_PARAM;
	/* Transformer Engine's a2a scatters the heads over the CP ranks. */
	if (l->cp > 1 && l->cp_comm == CP_COMM_A2A &&
	    !layout_a2a_splits_heads(m, l->tp, l->cp))
		return RULE_CP_A2A;
	/* Transformer Engine's unfused attention runs no context
	 * parallelism, its flash kernels no softmax offset (GPT-OSS's
	 * sinks), and its fused ones an offset under cp only with a2a
	 * (dot_product_attention/utils.py): otherwise the run stops with
	 * no attention backend. */
	if (l->cp > 1 &&
	    (l->attention == ATTN_UNFUSED ||
	     (m->softmax_type != SOFTMAX_VANILLA &&
	      l->cp_comm != CP_COMM_A2A)))
		return RULE_CP_KERNEL;
	if ((r = graphs_rule(w, l)) != LAYOUT_OK)
		return r;
	if (l->offload_layers > 0 &&
	    (l->pp > 1 || l->recompute != RECOMPUTE_NONE ||
	     l->offload_layers >= m->num_layers))
		return RULE_OFFLOAD;
	/* Transformer Engine trains FP8 attention in its fused (cuDNN)
	 * kernel only: "Disabling UnfusedDotProductAttention for FP8
	 * attention", and FlashAttention 2, 3 and 4 likewise
	 * [TE attention/dot_product_attention/utils.py at d0067d0]. */
	if (l->fp8_dot_product_attention && l->attention == ATTN_UNFUSED)
		return RULE_FP8_DPA;
	if (!layout_fp8_recipe_runs(w, l->fp8_recipe))
		return RULE_FP8_GPU;
	if (check_moe(w, l) != LAYOUT_OK)
		return check_moe(w, l);
	if (w->core == CORE_NEMO2 && nemo2_refuses(w, l))
		return RULE_NEMO2_CONTAINER;
	return check_modules(w, l);
}

/* Modules that re-materialise nothing here: any but the default without
 * selective recompute, the MoE ones on a dense model, shared_experts
 * without shared experts. */
static bool
modules_no_effect(const struct model *m, const struct layout *l)
{
	unsigned rc = layout_recompute_modules(l);
	unsigned moe = RCM_BIT(RCM_MOE_ACT) | RCM_BIT(RCM_MOE) |
	               RCM_BIT(RCM_SHARED_EXPERTS);

	if (l->recompute != RECOMPUTE_SELECTIVE)
		return l->recompute_modules != 0;
	if (m->num_experts <= 0 && (rc & moe))
		return true;
	return (rc & RCM_BIT(RCM_SHARED_EXPERTS)) &&
	       m->moe_shared_ffn_hidden_size <= 0;
}

/* Switches that change nothing in this layout: only their default is
 * kept, so that the grid does not run the same job twice.  (Grouped GEMM
 * on a dense model is the grid's to drop: the model does not vary.) */
static enum layout_rule
check_no_effect(const struct workload *w, const struct layout *l)
{
	if (w->precision != PREC_FP8 &&
	    (l->fp8_recipe != FP8_DELAYED || l->fp8_dot_product_attention))
		return RULE_NO_FP8;
	if (!layout_param_gather_applies(w->precision) && l->fp8_param_gather)
		return RULE_NO_FP8;
	if (l->cp == 1 && l->cp_comm != CP_COMM_P2P)
		return RULE_CP_COMM;
	if (!l->cuda_graphs && l->cuda_graph_full_iteration)
		return RULE_GRAPH_ITER;
	if (w->model->num_experts <= 0 &&
	    (l->moe_dispatcher != MOE_DISPATCH_ALLTOALL || l->moe_a2a_overlap))
		return RULE_MOE_DENSE;
	if (l->pp == 1 && (l->account_embedding || l->account_loss))
		return RULE_ACCOUNT;
	if (l->pp == 1 && layout_uneven(l))
		return RULE_UNEVEN_PP1;
	if (modules_no_effect(w->model, l))
		return RULE_RC_MODULES_NO_EFFECT;
	return LAYOUT_OK;
}

void
layout_describe(struct strbuf *sb, const struct workload *w,
                const struct layout *l, enum layout_rule r)
{
	strbuf_addf(sb, "tp %d pp %d cp %d", l->tp, l->pp, l->cp);
	if (w->model->num_experts == 0 && l->ep > 1)
		strbuf_addf(sb, " ep %d", l->ep);
	else if (w->model->num_experts > 0)
		strbuf_addf(sb, " ep %d etp %d%s", l->ep, layout_etp(l),
		            l->etp ? "" : " (tp's)");
	strbuf_addf(sb, " vp %d mbs %d gbs %d", l->vp, l->mbs, l->gbs);
	if (r != RULE_WORLD)
		strbuf_addf(sb, " dp %d", l->dp);
	strbuf_addf(sb, "; %d GPUs, %d layers", workload_world(w),
	            w->model->num_layers);
	if (w->model->num_experts == 0 && l->ep > 1)
		strbuf_addstr(sb, ", no experts");
	if (r == RULE_FP8_GPU && w->gpu) {
		strbuf_addf(sb, "; %s fp8 on %s",
		            fp8_recipe_name(l->fp8_recipe), w->gpu->name);
		if (w->gpu->compute_capability > 0)
			strbuf_addf(sb, ", compute capability %.1f",
			            w->gpu->compute_capability);
	}
}

enum layout_rule
layout_check(const struct workload *w, struct layout *l)
{
	int world = workload_world(w);
	long long mp;
	enum layout_rule r;
	int micro;

	if (l->tp < 1 || l->pp < 1 || l->cp < 1 || l->ep < 1 || l->vp < 1 ||
	    l->mbs < 1 || l->gbs < 1)
		return RULE_WORLD;
	/* In long long: tp = pp = 65536 wraps an int to 0. */
	mp = layout_model_parallel(l);
	if (mp > world || world % mp != 0)
		return RULE_WORLD;
	l->dp = (int)(world / mp);
	if ((r = check_shape(w, l)) != LAYOUT_OK ||
	    (r = check_switches(w, l)) != LAYOUT_OK)
		return r;
	/* Expert layers re-fold the same GPUs: etp*ep*edp = tp*cp*dp (at
	 * most the world size, as tp*cp*dp is). */
	if ((long long)(l->tp * l->cp * l->dp) %
	    layout_mul(layout_etp(l), l->ep) != 0)
		return RULE_EXPERT_FOLD;
	if (l->gbs % layout_mul(l->mbs, l->dp) != 0)
		return RULE_BATCH;
	micro = (int)(l->gbs / layout_mul(l->mbs, l->dp));
	if (l->vp > 1 && micro % l->pp != 0)
		return RULE_VP_MICRO;
	if (l->recompute == RECOMPUTE_FULL &&
	    l->recompute_layers > layout_recompute_limit(w->model, l))
		return RULE_RECOMPUTE;
	return check_no_effect(w, l);
}
