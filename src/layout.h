/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout.h - one parallel configuration of a training run and the rules
 * that make it valid.
 *
 * The rules are Megatron-LM's (notes on estimation, "Parallel layout
 * rules"), checked with integer arithmetic: NeMo's float quotient accepts
 * a non-integer data-parallel size, paratune does not.  Besides them come
 * the rules of NVIDIA's performance tuning guide on where each parallel
 * group should sit (layout_topology), which a campaign may relax.
 */
#ifndef PARATUNE_LAYOUT_H
#define PARATUNE_LAYOUT_H

#include <limits.h>
#include <stdbool.h>

#include "gpu.h"
#include "model.h"

struct calibration;

enum recompute { RECOMPUTE_NONE, RECOMPUTE_SELECTIVE, RECOMPUTE_FULL };
enum attention_impl { ATTN_FLASH, ATTN_UNFUSED };

/*
 * Megatron-LM's --recompute-method for full recompute.  Block comes
 * first so that a zeroed layout means what recompute_layers meant before
 * the method was a knob: the first N layers (all when N is 0), each
 * recomputed on its own.
 */
enum recompute_method { RECOMPUTE_BLOCK, RECOMPUTE_UNIFORM };

/*
 * Megatron-LM's --recompute-modules, what selective recompute
 * re-materialises (transformer_config.py recompute_modules; core_attn
 * is its default).  struct layout keeps them as a bit mask in which 0
 * stands for that default, so that a zeroed layout means Megatron-LM's.
 */
enum recompute_module {
	RCM_CORE_ATTN, RCM_MOE_ACT, RCM_LAYERNORM, RCM_MLA_UP_PROJ, RCM_MLP,
	RCM_MOE, RCM_SHARED_EXPERTS, RCM_COUNT,
};
#define RCM_BIT(m) (1u << (m))

/* Megatron-LM's --fp8-recipe; delayed scaling is its default. */
enum fp8_recipe { FP8_DELAYED, FP8_TENSORWISE, FP8_MXFP8, FP8_BLOCKWISE };

/* Megatron-LM's --cp-comm-type (Transformer Engine's names); p2p is its
 * default. */
enum cp_comm { CP_COMM_P2P, CP_COMM_ALL_GATHER, CP_COMM_A2A, CP_COMM_A2A_P2P };

/* How the loss is computed from the logits: Megatron-LM's unfused
 * vocab-parallel cross-entropy (its default), --cross-entropy-loss-fusion
 * with --cross-entropy-fusion-impl native or te; under torchtitan,
 * PyTorch's cross_entropy on an fp32 copy of the logits, eager or
 * compiled with torch.compile. */
enum ce_fusion {
	CE_FUSION_NONE, CE_FUSION_NATIVE, CE_FUSION_TE, CE_FUSION_TORCH,
	CE_FUSION_COMPILED
};

/* The training code whose memory the estimate models: Megatron-LM's
 * (Megatron-LM, NeMo and Megatron-Bridge share Megatron core), or
 * torchtitan's, whose published runs are calibration data; the shipped
 * templates render Megatron-LM's only. */
enum framework { FRAMEWORK_MEGATRON, FRAMEWORK_TORCHTITAN };

/*
 * The Megatron core a job script runs on, whose rules differ: Megatron-LM's
 * own template runs a current one (d98e8a64), the nemo2 template NeMo
 * 2.0's 25.07 container (core 0.13, Transformer Engine 2.5).  Their
 * per-layer CUDA graphs differ most: Transformer Engine's take selective
 * recompute, and full in a full-iteration graph only; 0.13's
 * enable_cuda_graph no recomputation at all, and captures whole layers,
 * a dropless MoE layer's host synchronisations included.
 */
enum template_core { CORE_CURRENT, CORE_NEMO2 };

/* Megatron-LM's --moe-token-dispatcher-type.  Its own default is
 * allgather; paratune's is alltoall, which its templates always passed
 * and NVIDIA's performance recipes run.  flex is the fused DeepEP
 * dispatch (--moe-flex-dispatcher-backend deepep), hybridep the flex
 * dispatcher on NVIDIA's HybridEP backend (--moe-token-dispatcher-type
 * flex --moe-flex-dispatcher-backend hybridep): the two cost differently
 * (estimate-moe-time.c), so they are two values of one key. */
enum moe_dispatcher { MOE_DISPATCH_ALLTOALL, MOE_DISPATCH_ALLGATHER,
                      MOE_DISPATCH_FLEX, MOE_DISPATCH_HYBRIDEP };

/*
 * A zeroed layout (with the sizes filled in) is Megatron-LM's default for
 * every switch below except moe_grouped_gemm and the DP overlaps, which
 * the campaign defaults turn on (config.c), and the token dispatcher
 * (enum moe_dispatcher).
 */
struct layout {
	int tp;   /* tensor parallel */
	int pp;   /* pipeline parallel */
	int cp;   /* context parallel */
	int ep;   /* expert parallel (carved out of dp*cp*tp) */
	int etp;  /* expert tensor parallel; 0 means "same as tp" */
	int vp;   /* virtual stages per pipeline rank; 1 = no interleaving */
	int dp;   /* data parallel, derived: world / (tp*pp*cp) */
	int mbs;  /* micro-batch size */
	int gbs;  /* global batch size */
	enum recompute recompute;
	/*
	 * Full recompute, Megatron-LM's --recompute-num-layers: block, the
	 * first N layers of each model chunk (0 = every layer); uniform,
	 * chunks of N layers of which only the input is kept (0 = the
	 * whole model chunk as one).
	 */
	int recompute_layers;
	enum recompute_method recompute_method;
	unsigned recompute_modules;  /* BIT(RCM_*) with selective; 0: the
	                              * default, core_attn alone */
	bool sequence_parallel;
	bool distributed_optimizer;
	enum attention_impl attention;
	/* The embedding and the loss count as one layer each in the
	 * pipeline split: (layers + flags) % pp, one layer fewer on the
	 * first and last stage (transformer_block.py). */
	bool account_embedding;
	bool account_loss;
	/*
	 * An uneven pipeline: the layers of the first and of the last stage
	 * (Megatron-LM's --decoder-first/last-pipeline-num-layers), 0 when
	 * that stage takes its even share.  The stages left split the
	 * layers left evenly.  Not with the account_for_* flags.
	 */
	int first_stage_layers;
	int last_stage_layers;
	/*
	 * The layers split over the pp x vp virtual stages by Megatron-LM's
	 * --pipeline-model-parallel-layout, as Megatron-Bridge's
	 * DeepSeek-V3 recipes write it (layout_vstage_split): the split an
	 * interleaved pipeline takes where the stage counts above cannot
	 * give one (each a multiple of vp).  Not with those counts nor the
	 * account_for_* flags.
	 */
	bool pipeline_layout;
	enum fp8_recipe fp8_recipe;   /* with fp8 precision */
	bool fp8_param_gather;        /* weights kept and gathered in FP8,
	                               * in NVFP4 with fp4 precision
	                               * (layout_param_gather_applies) */
	bool fp8_dot_product_attention; /* with fp8: attention's two
	                               * batched GEMMs in FP8 (Transformer
	                               * Engine's fused attention) */
	bool cuda_graphs;             /* per-layer graphs (Transformer
	                               * Engine) */
	bool cuda_graph_full_iteration; /* with cuda_graphs: the whole
	                               * iteration in one graph instead
	                               * (--cuda-graph-impl full_iteration) */
	bool tp_comm_overlap;         /* TP communication under the GEMMs */
	bool overlap_grad_reduce;     /* DP gradient reduction under backward */
	bool overlap_param_gather;    /* DP parameter gather under forward */
	bool grad_reduce_bf16;        /* main gradients kept and reduced in
	                               * bf16 (--grad-reduce-in-bf16) */
	bool fsdp;                    /* Megatron FSDP: weights and grads
	                               * sharded too */
	enum cp_comm cp_comm;         /* with cp > 1 */
	bool moe_grouped_gemm;        /* one GEMM for all local experts */
	enum moe_dispatcher moe_dispatcher; /* with an MoE model */
	bool moe_a2a_overlap;         /* one micro-batch's dispatch and
	                               * combine under another's compute,
	                               * weight gradients delayed
	                               * (--overlap-moe-expert-parallel-comm
	                               * --delay-wgrad-compute) */
	int offload_layers;           /* layers whose activations go to host */
};

/* Everything about a run that is not the layout. */
struct workload {
	const struct model *model;
	const struct gpu *gpu;
	enum precision precision;
	int seq_length;
	int nodes;
	int gpus_per_node;
	bool peft_lora;          /* frozen base weights: no grads/optimizer */
	double gpu_memory_gib;   /* capacity used for safe/oom-risk */
	double margin_gib;       /* kept free below capacity */
	double num_tokens_b;     /* for training days */
	/* Dropless routing: the busiest GPU's token copies over its
	 * balanced share (0 or 1: balanced). */
	double moe_token_imbalance;
	enum ce_fusion ce_fusion;  /* the loss's cross-entropy kernel */
	enum framework framework;  /* whose training code runs */
	enum template_core core;   /* the template's (run.template) */
	/* Optimizer bytes per parameter replacing the precision's resident
	 * state (master weights and moments) when opt_resident_set, and a
	 * temporary buffer of the optimizer step (nnScaler's
	 * opt_resident_coef and opt_transient_coef, in bytes). */
	bool opt_resident_set;
	double opt_resident_bytes;
	double opt_transient_bytes;
	/* The estimator's efficiency constants; NULL: the built-in ones. */
	const struct calibration *cal;
	/* Nodes per NVLink segment the site asks for (slurm.directives'
	 * --segment); 0: paratune's own (nvlink_segment_nodes). */
	int segment_nodes;
};

/* Why a layout is invalid or left out; LAYOUT_OK when it is kept. */
enum layout_rule {
	LAYOUT_OK = 0,
	RULE_WORLD,        /* tp*pp*cp does not divide the world size */
	RULE_HEADS,        /* heads % tp */
	RULE_GROUPS,       /* query groups neither multiple nor divisor of tp */
	RULE_LAYERS_PP,    /* (layers + account flags) % pp */
	RULE_UNEVEN,       /* first/last stage layers: no account flags,
	                    * the layers left % the stages left */
	RULE_VP,           /* vp needs pp > 1 and layers % (pp*vp) */
	RULE_VP_MICRO,     /* interleaving needs micro-batches % pp == 0 */
	RULE_SEQ_CP,       /* seq % (2*cp) */
	RULE_EXPERTS,      /* experts % ep, or ep > 1 on a dense model */
	RULE_EXPERT_FOLD,  /* etp*ep does not divide tp*cp*dp */
	RULE_MOE_BIAS,     /* experts with biases split over etp > 1 */
	RULE_BATCH,        /* gbs % (mbs*dp) */
	RULE_SP,           /* sequence parallel: tp > 1, (seq/cp) % tp */
	RULE_RECOMPUTE,    /* recompute layers beyond the stage's layers */
	RULE_MP_RANGE,     /* model parallel size outside [min, max] */
	RULE_TP_OVERLAP,   /* tp_comm_overlap needs sequence parallel */
	RULE_PARAM_GATHER, /* param gather overlap: distopt/FSDP, grad
	                    * reduce overlap */
	RULE_FSDP,         /* FSDP replaces the distributed optimizer */
	RULE_FP8_PARAM,    /* fp8_param_gather needs distopt or FSDP */
	RULE_CP_A2A,       /* a2a: heads and KV heads per tp rank % cp */
	RULE_CP_KERNEL,    /* cp > 1 with no attention kernel that runs it:
	                      unfused, or a softmax offset without a2a */
	RULE_OFFLOAD,      /* offload: pp 1, no recompute, no graphs */
	RULE_FLEX_EP,      /* flex or hybridep needs ep*etp > 1 */
	RULE_A2A_OVERLAP,  /* moe_a2a_overlap: ep > 1, not allgather, vp
	                    * with pp > 1, no full recompute nor moe module,
	                    * not fp32, at most one MTP layer */
	RULE_GRAPHS_FULL,  /* per-layer CUDA graphs with full recompute */
	RULE_GRAPHS_NEMO2, /* NeMo 2.0's per-layer CUDA graphs with any
	                    * recompute, or of an MoE model */
	RULE_GRAPHS_DROPOUT, /* CUDA graphs with selective recompute of
	                      * a module that drops out */
	RULE_GRAPH_MOE,    /* full-iteration graph of an MoE model: hybridep,
	                    * grouped GEMM, no CPU offloading */
	RULE_RC_MODULES,   /* moe_act without grouped GEMM, mla_up_proj
	                    * without MLA, moe_act/layernorm with delayed
	                    * FP8 scaling */
	RULE_FP8_DPA,      /* fp8_dot_product_attention with unfused
	                    * attention */
	RULE_FP8_GPU,      /* an FP8 recipe the GPU's tensor cores lack:
	                    * mxfp8 without MX cores, blockwise below
	                    * Hopper (nemo2: on Blackwell) */
	RULE_NEMO2_CONTAINER, /* nemo2 (core 0.13, TE 2.5): mxfp8
	                       * with fp8_param_gather and its overlap or
	                       * FSDP, moe_act/layernorm recompute with any
	                       * FP8, shared_experts recompute, flex
	                       * dispatch (DeepEP) on Blackwell */
	RULE_NO_FP8,       /* fp8 recipe or FP8 attention without fp8,
	                    * param gather without fp8 or fp4 */
	RULE_CP_COMM,      /* cp_comm_type other than p2p with cp 1 */
	RULE_GRAPH_ITER,   /* cuda_graph_full_iteration without graphs */
	RULE_MOE_DENSE,    /* MoE switches other than their default on a
	                    * dense model */
	RULE_ACCOUNT,      /* account_for_* with pp 1 */
	RULE_UNEVEN_PP1,   /* first/last stage layers with pp 1 */
	RULE_RC_MODULES_NO_EFFECT, /* modules without selective recompute,
	                            * MoE modules on a dense model */
	RULE_RC_SAME,      /* full recompute's count and method: the run
	                    * an earlier pair of the lists gives */
	RULE_ETP_TP,       /* etp listed beside its default (tp's own
	                    * size) and equal to tp: the default's layout */
	RULE_TP_NVLINK,    /* tp crosses an NVLink domain */
	RULE_EP_NVLINK,    /* ep*etp crosses an NVLink domain */
	RULE_CP_SEQ,       /* cp > 1 with seq_length <= hidden_size */
	RULE_NVL72,        /* tp*cp*dp not aligned with the NVLink domain */
	RULE_BUBBLE,       /* bubble above search.max_pipeline_bubble_ratio */
	RULE_UNBALANCE,    /* stage imbalance above the unbalance ratio */
	RULE_NONFINITE,    /* the estimate's time or memory is inf or NaN */
	RULE_COUNT,
};

/* What breaking a rule means. */
enum rule_kind {
	RULE_KIND_OK,
	RULE_KIND_INVALID,   /* Megatron-LM would refuse the run */
	RULE_KIND_NO_EFFECT, /* a switch that changes nothing here: the
	                      * same run as the one with its default */
	RULE_KIND_CONTROL,   /* left out by a search control */
};

/* Whether the whole iteration is one CUDA graph (cuda_graphs with
 * cuda_graph_full_iteration), not a graph per layer. */
bool layout_full_iteration_graph(const struct layout *l);
/* The dispatcher is flex on either backend (deepep or hybridep). */
bool layout_flex_dispatcher(const struct layout *l);

/* Short name of a rule for tables ("attention heads % tp"). */
const char *layout_rule_name(enum layout_rule r);
/* Whether w's GPU runs FP8 recipe r (true unless w is FP8 on a GPU
 * whose compute capability lacks it; layout.c says which). */
bool layout_fp8_recipe_runs(const struct workload *w, enum fp8_recipe r);
struct strbuf;
/*
 * Append the values that rule r judges l by, for an error about it:
 * "tp 1 pp 2 cp 1 vp 1 mbs 3 gbs 256 dp 8; 16 GPUs, 32 layers" (ep and
 * etp for an MoE model; dp once the sizes divide the GPUs).
 */
void layout_describe(struct strbuf *sb, const struct workload *w,
                     const struct layout *l, enum layout_rule r);
/* Which kind of rule r is. */
enum rule_kind layout_rule_kind(enum layout_rule r);

/*
 * The tuning guide's placement rules a campaign can relax by name
 * (search.relax): bit i of a relax mask turns off rule i of this list.
 */
enum layout_relax {
	RELAX_TP_NVLINK,   /* "tp_nvlink" */
	RELAX_EP_NVLINK,   /* "ep_nvlink" */
	RELAX_CP_SEQ,      /* "cp_seq" */
	RELAX_NVL72,       /* "nvl72_align" */
	RELAX_COUNT,
};

/* The relax names in enum layout_relax order, NULL-terminated. */
extern const char *const layout_relax_names[];
/* Choice names in enum order, NULL-terminated. */
extern const char *const recompute_method_names[];
extern const char *const attention_names[];
extern const char *const fp8_recipe_names[];
extern const char *const ce_fusion_names[];
extern const char *const framework_names[];
extern const char *const cp_comm_names[];
extern const char *const moe_dispatcher_names[];
extern const char *const recompute_module_names[];

/* The modules selective recompute re-materialises, as a mask of
 * BIT(RCM_*): core_attn alone where the layout keeps 0. */
static inline unsigned
layout_recompute_modules(const struct layout *l)
{
	return l->recompute_modules ? l->recompute_modules
	                            : RCM_BIT(RCM_CORE_ATTN);
}

/* A mask as struct layout keeps it: core_attn alone becomes 0. */
static inline unsigned
layout_modules_canonical(unsigned mask)
{
	return mask == RCM_BIT(RCM_CORE_ATTN) ? 0 : mask;
}

/* World size of a workload. */
static inline int
workload_world(const struct workload *w)
{
	return w->nodes * w->gpus_per_node;
}

/* GPUs of the job that one NVLink segment holds (layout-topology.c). */
int workload_nvlink_segment(const struct workload *w);
/* Nodes per NVLink segment of a job of nodes nodes of gpn GPUs
 * (sbatch --segment); 0: none. */
int nvlink_segment_nodes(int nodes, int gpn, int domain);

/* Effective expert tensor parallel size. */
static inline int
layout_etp(const struct layout *l)
{
	return l->etp > 0 ? l->etp : l->tp;
}

/*
 * a*b for sizes of at least 1, saturated at LLONG_MAX: products of
 * layout sizes are compared with the GPU count, never stored in an int,
 * so that sizes a campaign or a flag allows (65536 each) cannot wrap
 * to 0 and divide by it.  A size below 1 makes the product LLONG_MAX
 * too: larger than any GPU count, and never 0 to divide by.
 */
static inline long long
layout_mul(long long a, long long b)
{
	if (a <= 0 || b <= 0)
		return LLONG_MAX;
	return a > LLONG_MAX / b ? LLONG_MAX : a * b;
}

/* Model-parallel size as NeMo counts it for min/max: tp*pp*cp. */
static inline long long
layout_model_parallel(const struct layout *l)
{
	return layout_mul(layout_mul(l->tp, l->pp), l->cp);
}

/* Layers the pipeline splits: the model's plus one per account flag. */
static inline int
layout_split_layers(const struct model *m, const struct layout *l)
{
	return m->num_layers + l->account_embedding + l->account_loss;
}

/* Whether d divides the layers as they are, or with the embedding and
 * the loss counted as layers (layers + 1, layers + 2): the splits an
 * even pipeline, and its virtual stages, can take. */
static inline bool
layout_divides_split(int layers, int d)
{
	return layers % d == 0 || (layers + 1) % d == 0 ||
	       (layers + 2) % d == 0;
}

/* Whether the first or the last stage has a layer count of its own,
 * by the counts or by a pipeline layout. */
static inline bool
layout_uneven(const struct layout *l)
{
	return l->first_stage_layers > 0 || l->last_stage_layers > 0 ||
	       l->pipeline_layout;
}

/*
 * A pipeline layout's virtual stages (l->pipeline_layout), in Megatron-
 * LM's order (stage v on rank v % pp): each middle one takes
 * ceil(layers / (pp x vp)) layers, the first what is left up to that
 * (with the embedding), the last the rest (with the MTP layers and the
 * loss), as set_deepseek_v3_pipeline_model_parallel_layout gives
 * DeepSeek-V3's 61 layers: "Et|(tt|)*30mL" on pp 8 vp 4, "Et*4|(t*4|)*14tmL"
 * on 16 stages.  false where the middle stages leave the first a
 * negative count (too many stages for the layers).
 */
bool layout_vstage_split(const struct model *m, const struct layout *l,
                         int *first, int *each, int *last);
/* Megatron-LM's --pipeline-model-parallel-layout for l's split, as
 * "Et*F|(t*K|)*N" then the last stage's "t*Z", MTP's "m"s and "L". */
struct strbuf;
void layout_vstage_string(const struct model *m, const struct layout *l,
                          struct strbuf *out);

/*
 * The transformer layers of each stage that has no count of its own:
 * with an uneven pipeline, the layers left over the stages left
 * (0 when none is left); else the split's layers over pp, one fewer on
 * a stage that holds the embedding or the loss as a layer.  Only
 * meaningful for a layout whose split layout_check accepted.
 */
int layout_middle_layers(const struct model *m, const struct layout *l);
/* An uneven pipeline's middle: the layers and the stages left once the
 * first and last counts are taken (each may be 0 or negative). */
void layout_uneven_middle(const struct model *m, const struct layout *l,
                          int *layers, int *stages);
/* Layers of the first and of the last stage (pp > 1). */
int layout_first_layers(const struct model *m, const struct layout *l);
int layout_last_layers(const struct model *m, const struct layout *l);
/*
 * The first and last stages' layer counts a campaign that lists none
 * gets at l->pp: 0 and 0 (an even split) where the layers, or they plus
 * the embedding and the loss counted as layers, divide over the stages;
 * else every stage but the last takes ceil(L / pp) and the last the
 * rest, the split NVIDIA's DeepSeek-V3 recipes give its 61 layers (pp
 * 16: 4 + 14 x 4 + 1, pp 8: 8 + 6 x 8 + 5); 0 and 0 again where the
 * rest would leave the last stage no layer.
 */
void layout_auto_stages(const struct model *m, struct layout *l);
/*
 * Where l interleaves (vp > 1) a pipeline whose split vp cannot take
 * (each stage count must be a multiple of vp), the pipeline layout
 * instead: the counts cleared and l->pipeline_layout set, as NVIDIA's
 * DeepSeek-V3 recipes run pp 8 vp 4.  The split is the stage counts,
 * or, with account_auto (paratune, not the campaign, sets the
 * account_for_* flags), the flags that make the layers divide pp (61
 * layers + 1 over pp 2, which vp 8 cannot take: GB300's pp 2 vp 8);
 * then the flags are cleared too.  Whether it did.
 */
bool layout_auto_vstages(const struct model *m, struct layout *l,
                         bool account_auto);
/*
 * Whether paratune may give a job on this core a pipeline layout of
 * its own (layout_auto_vstages, and vp "auto"'s 2, 4 and 8 for it):
 * not on nemo2, whose template passes none and refuses one.  The
 * campaign's pipeline_layout switch is the template's to judge.
 */
bool layout_core_auto_vstages(enum template_core core);

/*
 * Megatron-LM's placement of model chunk `chunk` (0 to vp - 1) of
 * pipeline rank `rank`: its first transformer layer, 0-based over the
 * whole model, in *from and its count in *n (0 where the embedding or
 * the loss counted as a layer takes a chunk's only place).  With pp 1
 * the one chunk holds every layer.  Only meaningful for a layout whose
 * split layout_check accepted.
 */
void layout_chunk_span(const struct model *m, const struct layout *l,
                       int rank, int chunk, int *from, int *n);
/* Transformer layers of pipeline rank `rank` over its model chunks;
 * how many of them are dense (model_dense_layers_in) in *dense. */
int layout_rank_layers(const struct model *m, const struct layout *l,
                       int rank, int *dense);

/* The most transformer layers one model chunk (a stage's share over
 * vp) holds, at least 1. */
int layout_largest_chunk(const struct model *m, const struct layout *l);
/* The most layers full recompute may name (RULE_RECOMPUTE): an even
 * split's share of a stage, or an uneven pipeline's smallest stage. */
int layout_recompute_limit(const struct model *m, const struct layout *l);
/* The count uniform recompute of 0 (each chunk in one run) renders as:
 * a middle stage's chunk (without one, the smaller stage's), at least
 * 1. */
int layout_uniform_whole(const struct model *m, const struct layout *l);
/*
 * Full recompute's method and count as the run does them, so that two
 * spellings of one run compare equal: block over a count of 0, or of at
 * least the largest chunk, is every layer one at a time, as uniform in
 * runs of one is (block, the largest chunk); uniform over 0 is uniform
 * over layout_uniform_whole.
 */
void layout_recompute_effective(const struct model *m, const struct layout *l,
                                enum recompute_method *method, int *layers);
/* Whether a and b recompute alike: one kind, and with full recompute
 * one effective method and count, with selective one module set. */
bool layout_recompute_same(const struct model *m, const struct layout *a,
                           const struct layout *b);

/*
 * Whether the layers split over l's pipeline as Megatron-LM allows
 * (transformer_config.py __post_init__): RULE_LAYERS_PP, RULE_UNEVEN or
 * RULE_VP when not, LAYOUT_OK when they do.
 */
enum layout_rule layout_split_rule(const struct model *m,
                                   const struct layout *l);

/*
 * Fill l->dp from the world size and check every rule Megatron-LM
 * makes, then the switches that would have no effect; returns the first
 * rule broken, or LAYOUT_OK.  Invalid rules come before no-effect ones,
 * so a no-effect answer means Megatron-LM would run the layout.
 */
enum layout_rule layout_check(const struct workload *w, struct layout *l);

/*
 * The tuning guide's placement rules on a layout that passed
 * layout_check, except those whose bit is set in relax (BIT of enum
 * layout_relax): TP and EP*ETP inside one NVLink domain, CP only where
 * the sequence is longer than the hidden size, and on rack-scale
 * domains (wider than a node) TP*CP*DP aligned with the domain.
 */
enum layout_rule layout_topology(const struct workload *w,
                                 const struct layout *l, unsigned relax);

/*
 * The first level of a2a+p2p context parallelism: the largest divisor of
 * cp whose all-to-all stays inside a node (tp * size <= GPUs of an
 * NVLink domain within the node) and splits the heads and KV heads of a
 * tp rank evenly; the ring runs over cp / size groups.
 */
int layout_cp_a2a_size(const struct workload *w, const struct layout *l);

/* Same configuration (dp is derived and not compared). */
bool layout_equal(const struct layout *a, const struct layout *b);
/* The same run: equal but for how the recompute is spelled
 * (layout_recompute_same). */
bool layout_same_run(const struct model *m, const struct layout *a,
                     const struct layout *b);

const char *recompute_name(enum recompute r);  /* "none", "selective", "full" */
const char *recompute_short(enum recompute r); /* "none", "sel", "full" */
int recompute_parse(const char *s);            /* -1 when unknown */
const char *attention_name(enum attention_impl a);
int attention_parse(const char *s);
const char *recompute_method_name(enum recompute_method m);
const char *fp8_recipe_name(enum fp8_recipe r);
/* Whether the fp8_param_gather switch acts at precision p: with fp8 it is
 * --fp8-param-gather, with fp4 --fp4-param-gather (one switch, since the
 * two precisions exclude each other). */
bool layout_param_gather_applies(enum precision p);
const char *cp_comm_name(enum cp_comm c);     /* Megatron-LM's value */
const char *moe_dispatcher_name(enum moe_dispatcher d); /* "alltoall" */
/* The name of the first of names equal to s, or -1. */
int layout_choice_parse(const char *const *names, const char *s);

#endif
