/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout.c - the divisibility rules of a parallel layout, and the tuning
 * guide's placement rules.
 *
 * Megatron-LM's own checks (megatron/training/arguments.py,
 * megatron/core/transformer/transformer_config.py and
 * megatron/core/parallel_state.py at d98e8a64; summarised in the notes on
 * estimation and launch interfaces), in integer arithmetic.  The order of
 * the checks is the order a user would fix them in: world size first,
 * then the model shape, then the switches, then the batch.
 */
#include "autoconfig.h"

#include <string.h>

#include "layout.h"
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
	                        "recompute", RULE_KIND_INVALID },
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
	[RULE_MXFP8_GPU] = { "mxfp8 needs MX tensor cores (Blackwell)",
	                     RULE_KIND_INVALID },
	[RULE_NO_FP8] = { "fp8_recipe needs fp8, fp8_param_gather fp8/fp4",
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

const char *const layout_relax_names[] = {
	"tp_nvlink", "ep_nvlink", "cp_seq", "nvl72_align", NULL
};
const char *const recompute_method_names[] = { "block", "uniform", NULL };
const char *const recompute_module_names[] = {
	"core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe",
	"shared_experts", NULL
};
const char *const attention_names[] = { "flash", "unfused", NULL };
const char *const fp8_recipe_names[] = {
	"delayed", "tensorwise", "mxfp8", "blockwise", NULL
};
const char *const ce_fusion_names[] = {
	"none", "native", "te", "torch", "compiled", NULL
};
const char *const framework_names[] = { "megatron", "torchtitan", NULL };
const char *const cp_comm_names[] = {
	"p2p", "all_gather", "a2a", "a2a+p2p", NULL
};
const char *const moe_dispatcher_names[] = {
	"alltoall", "allgather", "flex", "hybridep", NULL
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
static bool
a2a_splits_heads(const struct model *m, int tp, int size)
{
	return (m->num_attention_heads / tp) % size == 0 &&
	       kv_heads_per_rank(m, tp) % size == 0;
}

/*
 * An uneven pipeline as transformer_config.py checks it: each count
 * given is positive and a multiple of vp, the layers left divide over
 * the stages left into a multiple of vp, and layers are left exactly
 * when stages are.  Megatron-LM refuses it with the account_for_*
 * flags.  With pp 1 the counts change nothing (check_no_effect).
 */
static enum layout_rule
uneven_rule(const struct model *m, const struct layout *l)
{
	int vp = l->vp > 1 ? l->vp : 1, left, stages;

	if (l->pp == 1)
		return LAYOUT_OK;
	if (l->account_embedding || l->account_loss ||
	    l->first_stage_layers < 0 || l->last_stage_layers < 0)
		return RULE_UNEVEN;
	if (l->first_stage_layers % vp != 0 || l->last_stage_layers % vp != 0)
		return RULE_VP;
	layout_uneven_middle(m, l, &left, &stages);
	if (left < 0 || (left > 0) != (stages > 0) ||
	    (stages > 0 && left % stages != 0))
		return RULE_UNEVEN;
	if (stages > 0 && (left / stages) % vp != 0)
		return RULE_VP;
	return LAYOUT_OK;
}

enum layout_rule
layout_split_rule(const struct model *m, const struct layout *l)
{
	int split = layout_split_layers(m, l);

	if (layout_uneven(l))
		return uneven_rule(m, l);
	if (split % l->pp != 0)
		return RULE_LAYERS_PP;
	if (l->vp > 1 &&
	    (l->pp == 1 || split % layout_mul(l->pp, l->vp) != 0))
		return RULE_VP;
	return LAYOUT_OK;
}

void
layout_uneven_middle(const struct model *m, const struct layout *l,
                     int *layers, int *stages)
{
	*layers = m->num_layers;
	*stages = l->pp;
	if (l->first_stage_layers > 0) {
		*layers -= l->first_stage_layers;
		(*stages)--;
	}
	if (l->last_stage_layers > 0) {
		*layers -= l->last_stage_layers;
		(*stages)--;
	}
}

void
layout_auto_stages(const struct model *m, struct layout *l)
{
	int layers = m->num_layers, pp = l->pp, each;

	l->first_stage_layers = l->last_stage_layers = 0;
	if (pp <= 1 || layout_divides_split(layers, pp))
		return;
	each = (layers + pp - 1) / pp;
	if (layers - each * (pp - 1) < 1)
		return;
	l->first_stage_layers = each;
	l->last_stage_layers = layers - each * (pp - 1);
}

int
layout_middle_layers(const struct model *m, const struct layout *l)
{
	int left, stages;

	if (!layout_uneven(l))
		return layout_split_layers(m, l) / l->pp;
	layout_uneven_middle(m, l, &left, &stages);
	return stages > 0 ? left / stages : 0;
}

int
layout_first_layers(const struct model *m, const struct layout *l)
{
	if (l->first_stage_layers > 0)
		return l->first_stage_layers;
	return layout_middle_layers(m, l) - l->account_embedding;
}

int
layout_last_layers(const struct model *m, const struct layout *l)
{
	if (l->last_stage_layers > 0)
		return l->last_stage_layers;
	return layout_middle_layers(m, l) - l->account_loss;
}

/* The most layers full recompute may name: an even split's share of a
 * rank (the flags counted), or an uneven one's smallest stage. */
static int
fewest_stage_layers(const struct model *m, const struct layout *l)
{
	int n = layout_middle_layers(m, l), f, z;

	if (!layout_uneven(l))
		return layout_split_layers(m, l) / l->pp;
	f = layout_first_layers(m, l);
	z = layout_last_layers(m, l);
	if (l->pp == 2 || n == 0)
		return f < z ? f : z;
	return n < f ? (n < z ? n : z) : (f < z ? f : z);
}

int
layout_recompute_limit(const struct model *m, const struct layout *l)
{
	return fewest_stage_layers(m, l);
}

int
layout_largest_chunk(const struct model *m, const struct layout *l)
{
	int vp = l->vp > 1 ? l->vp : 1;
	int n = layout_middle_layers(m, l);
	int f = layout_first_layers(m, l), z = layout_last_layers(m, l);

	if (f > n)
		n = f;
	if (z > n)
		n = z;
	/* Rounded up: a layout whose vp does not divide is refused later
	 * (RULE_VP), and must not come out as 0 layers before. */
	n = (n + vp - 1) / vp;
	return n > 1 ? n : 1;
}

/*
 * Uniform runs as long as a middle stage's chunk.  A pipeline of two
 * uneven stages has no middle one: its smaller stage's chunk then, the
 * longest run RULE_RECOMPUTE lets full recompute name.  Never 0:
 * Megatron-LM's uniform loop steps by the count (recompute.py,
 * "layer_idx += self.config.recompute_num_layers") and would not end.
 */
int
layout_uniform_whole(const struct model *m, const struct layout *l)
{
	int vp = l->vp > 1 ? l->vp : 1;
	int n = layout_middle_layers(m, l);

	if (n <= 0)
		n = fewest_stage_layers(m, l);
	n /= vp;
	return n > 1 ? n : 1;
}

/*
 * Megatron-LM applies --recompute-num-layers to each model chunk
 * (recompute.py at d98e8a64; transformer_block.py _checkpointed_forward
 * before): block checkpoints layers [0, N) one at a time, so any N from
 * the chunk's layers up is every layer, as uniform in runs of one is;
 * uniform checkpoints [0, N), [N, 2N), ... (the last run cut at the
 * chunk's end at d98e8a64, past it before), so only the count uniform 0
 * renders as (layout_uniform_whole) is that run again.
 */
void
layout_recompute_effective(const struct model *m, const struct layout *l,
                           enum recompute_method *method, int *layers)
{
	int chunk = layout_largest_chunk(m, l);
	int n = l->recompute_layers;

	*method = l->recompute_method;
	if (*method == RECOMPUTE_UNIFORM && n <= 0)
		n = layout_uniform_whole(m, l);
	if (*method == RECOMPUTE_UNIFORM && n == 1) {
		*method = RECOMPUTE_BLOCK;
		n = 0;
	}
	if (*method == RECOMPUTE_BLOCK && (n <= 0 || n > chunk))
		n = chunk;
	*layers = n;
}

bool
layout_recompute_same(const struct model *m, const struct layout *a,
                      const struct layout *b)
{
	enum recompute_method ma, mb;
	int na, nb;

	if (a->recompute != b->recompute)
		return false;
	if (a->recompute == RECOMPUTE_SELECTIVE)
		return layout_recompute_modules(a) ==
		       layout_recompute_modules(b);
	if (a->recompute != RECOMPUTE_FULL)
		return true;
	layout_recompute_effective(m, a, &ma, &na);
	layout_recompute_effective(m, b, &mb, &nb);
	return ma == mb && na == nb;
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
	if (layers && w->layer_graphs == LAYER_GRAPHS_NEMO2 &&
	    l->recompute != RECOMPUTE_NONE)
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
	    !a2a_splits_heads(m, l->tp, l->cp))
		return RULE_CP_A2A;
	if ((r = graphs_rule(w, l)) != LAYOUT_OK)
		return r;
	if (l->offload_layers > 0 &&
	    (l->pp > 1 || l->recompute != RECOMPUTE_NONE ||
	     l->offload_layers >= m->num_layers))
		return RULE_OFFLOAD;
	/* MXFP8 scales blocks of 32 values in the tensor cores, which
	 * Blackwell has and Hopper lacks: Transformer Engine refuses it
	 * below compute capability 10.0 (check_mxfp8_support).  The
	 * catalog marks such cores by an FP4 peak, which needs them too. */
	if (w->precision == PREC_FP8 && l->fp8_recipe == FP8_MXFP8 &&
	    w->gpu && !(w->gpu->peak_tflops[PREC_FP4] > 0))
		return RULE_MXFP8_GPU;
	if (check_moe(w, l) != LAYOUT_OK)
		return check_moe(w, l);
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
	if (w->precision != PREC_FP8 && l->fp8_recipe != FP8_DELAYED)
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
	    l->recompute_layers > fewest_stage_layers(w->model, l))
		return RULE_RECOMPUTE;
	return check_no_effect(w, l);
}

/* ---- the tuning guide's placement rules ---------------------------------- */

/*
 * Nodes of a job of `nodes` nodes of gpn GPUs that paratune places in
 * one NVLink domain of `domain` GPUs, or 0 when a domain is no wider
 * than a node (nothing to place) or a segment would be one node.  When
 * a domain spans nodes (GB200 and GB300 NVL72: 72 GPUs, 18 trays of
 * 4), the job is placed as NVIDIA's Blackwell performance runs ask
 * Slurm to place it: in segments of the largest number of nodes that
 * divides the job's and fits a domain (sbatch --segment; Megatron-Bridge
 * scripts/performance/utils/executors.py, slurm_executor: 16 trays, 64
 * GPUs, for 64 or 256 GPUs), each segment in one domain.  paratune asks
 * for the same segments when it submits (runner-submit.c), where its
 * libslurm can (24.05 and later); a site places them with topology/block.
 */
int
nvlink_segment_nodes(int nodes, int gpn, int domain)
{
	int trays;

	if (gpn < 1 || domain <= gpn || nodes < 2)
		return 0;
	trays = domain / gpn;
	if (nodes <= trays)
		return nodes;
	for (int seg = trays; seg > 1; seg--)
		if (nodes % seg == 0)
			return seg;
	return 0;
}

/*
 * GPUs of the job that share one NVLink domain: the domain's when it
 * is no wider than a node, else the job's segment of it (the site's
 * --segment, else nvlink_segment_nodes; never more than a domain), or a
 * node's when the job has none.
 */
int
workload_nvlink_segment(const struct workload *w)
{
	int gpn = w->gpus_per_node > 0 ? w->gpus_per_node : 1;
	int domain = w->gpu->nvlink_domain, seg;

	if (domain <= gpn)
		return domain > 0 ? domain : 1;
	if (w->segment_nodes > 0)
		return w->segment_nodes * gpn < domain
		       ? w->segment_nodes * gpn : domain;
	seg = nvlink_segment_nodes(w->nodes, gpn, domain);
	return (seg > 0 ? seg : 1) * gpn;
}

/*
 * Whether every group of size consecutive ranks stays inside one domain
 * of the given size.  Groups start at multiples of their size, so they
 * stay inside when they divide the domain; a job no larger than one
 * domain is inside it whole (its nodes are allocated together).
 */
static bool
inside_domain(long long size, int domain, int world)
{
	if (world <= domain)
		return true;
	return size <= domain && domain % size == 0;
}

/*
 * NVIDIA's performance tuning guide: "the tensor-parallel size should
 * ideally be confined to the high-bandwidth intra-node network (NVLink
 * domain)"; "EP is kept within the high-bandwidth intra-node network";
 * CP helps "when the sequence length ... is significantly larger than
 * the hidden size", and "when the sequence length is smaller than the
 * hidden size, CP produces narrow (or skinny) tensor shards"; on NVL72
 * "choose TP and DP sizes such that the product of TP x DP divides evenly
 * into the NVL72 configuration".  Megatron orders ranks tp, cp, dp, pp
 * from the innermost, and the experts' etp, ep inside tp*cp*dp, so each
 * group is a run of consecutive ranks.
 */
enum layout_rule
layout_topology(const struct workload *w, const struct layout *l,
                unsigned relax)
{
	const struct gpu *g = w->gpu;
	int domain = g->nvlink_domain > 0 ? g->nvlink_domain : 1;
	int world = workload_world(w), block = l->tp * l->cp * l->dp;
	long long experts = layout_mul(layout_etp(l), l->ep);

	if (!(relax & (1u << RELAX_TP_NVLINK)) &&
	    !inside_domain(l->tp, domain, world))
		return RULE_TP_NVLINK;
	if (!(relax & (1u << RELAX_EP_NVLINK)) && l->ep > 1 &&
	    !inside_domain(experts, domain, world))
		return RULE_EP_NVLINK;
	if (!(relax & (1u << RELAX_CP_SEQ)) && l->cp > 1 &&
	    w->seq_length <= w->model->hidden_size)
		return RULE_CP_SEQ;
	/* Only rack-scale domains (GB200 NVL72: 72 GPUs, 4 a node) can put
	 * a node's ranks of one stage in two domains. */
	if (!(relax & (1u << RELAX_NVL72)) && domain > w->gpus_per_node &&
	    world > domain && domain % block != 0 && block % domain != 0)
		return RULE_NVL72;
	return LAYOUT_OK;
}

/* The all-to-all level of a2a+p2p context parallelism (layout.h). */
int
layout_cp_a2a_size(const struct workload *w, const struct layout *l)
{
	int domain = w->gpu->nvlink_domain > 0 ? w->gpu->nvlink_domain : 1;

	for (int size = l->cp; size > 1; size--)
		if (l->cp % size == 0 && l->tp * size <= domain &&
		    a2a_splits_heads(w->model, l->tp, size))
			return size;
	return 1;
}

/* ---- names ------------------------------------------------------------ */

static const char *const recompute_names[] = {
	[RECOMPUTE_NONE] = "none",
	[RECOMPUTE_SELECTIVE] = "selective",
	[RECOMPUTE_FULL] = "full",
};
static const char *const recompute_shorts[] = {
	[RECOMPUTE_NONE] = "none",
	[RECOMPUTE_SELECTIVE] = "sel",
	[RECOMPUTE_FULL] = "full",
};
_Static_assert(sizeof recompute_names / sizeof recompute_names[0] ==
               RECOMPUTE_FULL + 1, "a name for every recompute kind");
_Static_assert(sizeof recompute_shorts / sizeof recompute_shorts[0] ==
               RECOMPUTE_FULL + 1, "a short name for every recompute kind");

const char *
recompute_name(enum recompute r)
{
	return recompute_names[r];
}

const char *
recompute_short(enum recompute r)
{
	return recompute_shorts[r];
}

int
recompute_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, recompute_names[i]))
			return i;
	return -1;
}

const char *
attention_name(enum attention_impl a)
{
	return a == ATTN_FLASH ? "flash" : "unfused";
}

int
attention_parse(const char *s)
{
	if (!strcmp(s, "flash"))
		return ATTN_FLASH;
	if (!strcmp(s, "unfused"))
		return ATTN_UNFUSED;
	return -1;
}

/* "block" or "uniform". */
const char *
recompute_method_name(enum recompute_method m)
{
	return recompute_method_names[m == RECOMPUTE_UNIFORM];
}

/* "delayed", "tensorwise", "mxfp8" or "blockwise". */
const char *
fp8_recipe_name(enum fp8_recipe r)
{
	return (unsigned)r <= FP8_BLOCKWISE ? fp8_recipe_names[r] : "?";
}

bool
layout_param_gather_applies(enum precision p)
{
	return p == PREC_FP8 || p == PREC_FP4;
}

/* "p2p", "all_gather", "a2a" or "a2a+p2p". */
const char *
cp_comm_name(enum cp_comm c)
{
	return (unsigned)c <= CP_COMM_A2A_P2P ? cp_comm_names[c] : "?";
}

/* "alltoall", "allgather", "flex" or "hybridep". */
const char *
moe_dispatcher_name(enum moe_dispatcher d)
{
	return (unsigned)d <= MOE_DISPATCH_HYBRIDEP ? moe_dispatcher_names[d]
	                                            : "?";
}

/* The index of s among names, or -1. */
int
layout_choice_parse(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

bool
layout_equal(const struct layout *a, const struct layout *b)
{
	return a->tp == b->tp && a->pp == b->pp && a->cp == b->cp &&
	       a->ep == b->ep && layout_etp(a) == layout_etp(b) &&
	       a->vp == b->vp && a->mbs == b->mbs && a->gbs == b->gbs &&
	       a->recompute == b->recompute &&
	       a->recompute_layers == b->recompute_layers &&
	       a->recompute_method == b->recompute_method &&
	       a->recompute_modules == b->recompute_modules &&
	       a->sequence_parallel == b->sequence_parallel &&
	       a->distributed_optimizer == b->distributed_optimizer &&
	       a->attention == b->attention &&
	       a->account_embedding == b->account_embedding &&
	       a->account_loss == b->account_loss &&
	       a->first_stage_layers == b->first_stage_layers &&
	       a->last_stage_layers == b->last_stage_layers &&
	       a->fp8_recipe == b->fp8_recipe &&
	       a->fp8_param_gather == b->fp8_param_gather &&
	       a->cuda_graphs == b->cuda_graphs &&
	       a->tp_comm_overlap == b->tp_comm_overlap &&
	       a->overlap_grad_reduce == b->overlap_grad_reduce &&
	       a->overlap_param_gather == b->overlap_param_gather &&
	       a->grad_reduce_bf16 == b->grad_reduce_bf16 &&
	       a->fsdp == b->fsdp && a->cp_comm == b->cp_comm &&
	       a->moe_grouped_gemm == b->moe_grouped_gemm &&
	       a->moe_dispatcher == b->moe_dispatcher &&
	       a->moe_a2a_overlap == b->moe_a2a_overlap &&
	       a->cuda_graph_full_iteration == b->cuda_graph_full_iteration &&
	       a->offload_layers == b->offload_layers;
}

bool
layout_same_run(const struct model *m, const struct layout *a,
                const struct layout *b)
{
	struct layout x = *b;

	if (!layout_recompute_same(m, a, b))
		return false;
	/* Spelled as a spells it, the rest must be equal. */
	x.recompute_layers = a->recompute_layers;
	x.recompute_method = a->recompute_method;
	x.recompute_modules = a->recompute_modules;
	return layout_equal(a, &x);
}
