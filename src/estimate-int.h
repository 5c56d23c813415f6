/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate-int.h - what estimate.c (parameters, FLOPs), estimate-memory.c
 * and estimate-inflight.c (memory), estimate-time.c, estimate-pipeline.c,
 * estimate-dp.c and estimate-moe-time.c (step time) share.
 * Private to those files.
 */
#ifndef PARATUNE_ESTIMATE_INT_H
#define PARATUNE_ESTIMATE_INT_H

#include <stdbool.h>

#include "calibration.h"
#include "estimate.h"

/* Bytes of one NVFP4 element with its share of the block scales: half a
 * byte of E2M1 and one E4M3 scale byte per 16 elements (Transformer
 * Engine's NVFP4BlockScaling; arXiv 2509.25149, section 2). */
#define FP4_BYTES (0.5 + 1.0 / 16)

/* Shape numbers used everywhere below, derived once per call. */
struct shape {
	double h, f, fe, q, kvd, dk, V, L, Lmoe, Ldense, E, k, shared_f;
	double gated;        /* 3/2 with SwiGLU (three projections) else 1 */
	double attn_w;       /* attention weight matrices of one layer */
	double score_w;      /* heads x (Q.K width + V width) / 2 */
	double head_w;       /* one head's (Q.K width + V width) / 2 */
	double mtp;          /* multi-token-prediction layers */
};

/* Model FLOPs per token of one step, forward and backward [FLOP]. */
struct flop_parts {
	double layers;  /* GEMMs of every transformer layer */
	double experts; /* the routed experts' share of layers */
	double scores;  /* attention scores and values */
	double scores_kernel; /* the same as the fused kernels compute
	                       * them, tile by tile (estimate.c) */
	double logits;  /* output layer (and the MTP layers' own) */
	double mtp;     /* GEMMs and scores of the MTP layers */
};

/*
 * One pipeline rank as a GPU of it sees it, its layers placed as
 * Megatron-LM places them (layout_chunk_span).  The first and the last
 * stage differ from the others by the embedding and the output layer,
 * by one layer each when the pipeline split accounts for them, by their
 * own counts in an uneven pipeline [MLM transformer_block.py
 * get_num_layers_to_build], and with an MoE model's dense first layers
 * by which of them they hold; the middle stage is the middle rank whose
 * GPUs hold the most memory (estimate.c).
 */
struct stage {
	int rank;            /* pipeline rank */
	double layers;       /* transformer layers, the MTP ones included */
	double dense_layers; /* of them dense (none of the MTP ones of an
	                      * MoE model) */
	double mtp;          /* MTP layers (the last stage's last chunk) */
	double dense;        /* non-expert parameters on one GPU */
	double plain;        /* of them the embedding's and the output
	                      * layer's, never in FP8 or FP4 */
	double expert;       /* expert parameters on one GPU */
	bool first, last;    /* holds the embedding / the output layer */
};

/* Per-GPU state of one estimate, derived once and shared by the parts. */
struct est {
	const struct workload *w;
	const struct layout *l;
	const double *k;                   /* calibration constants */
	struct shape s;
	double t, p, c, e, te, v, d, b, m; /* sizes as doubles */
	double seq_local;                  /* s / cp */
	double act_bytes;                  /* bytes of a 16/32-bit activation */
	double gemm_in_bytes;              /* 1 for FP8 GEMM inputs,
	                                    * FP4_BYTES for NVFP4 */
	double moe_frac;                   /* share of MoE layers */
	double layer_dense, layer_expert;  /* one layer's params on a GPU */
	/* Activations of one layer and micro-batch: kept whole (the mix of
	 * dense and MoE layers), the input alone (recomputed), and one
	 * re-materialised layer of the model's kind. */
	double a_full, a_input, a_one;
	double a_dense, a_moe;             /* a_full of each kind of layer */
	struct flop_parts fp;              /* per token [FLOP] */
	bool dropout;
	bool sharded;                      /* distributed optimizer or FSDP */
	unsigned modules;                  /* BIT(RCM_*) selective recompute
	                                    * re-materialises; 0 without */
	bool titan_sac;                    /* torchtitan's per-op
	                                    * selective checkpointing
	                                    * (estimate-memory.c) */
	struct stage stage[3];             /* first, last, middle */
	struct stage params_middle;        /* the middle rank holding the
	                                    * most parameters (estimate.c) */
	int nstages;                       /* 1, 2 or 3 of them */
};

/* Layers of a stage of n layers whose forward pass is recomputed. */
double estimate_recomputed_layers(const struct est *x, double n);
/* estimate-pipeline.c: of the nrc layers of st recomputed, the dense
 * ones (each model chunk's first, for the block method). */
double estimate_dense_recomputed(const struct est *x, const struct stage *st,
                                 double nrc);
/* Dropless routing's busiest GPU over its balanced share of token
 * copies (moe_token_imbalance; 1 under forced balance). */
double estimate_moe_imbalance(const struct est *x);
/* Token copies the local experts of the busiest GPU process per MoE
 * layer and micro-batch (estimate-memory.c says how they are counted). */
double estimate_moe_token_copies(const struct est *x);
/* Bytes per parameter of weights, main gradients and optimizer state. */
void estimate_bytes_per_param(const struct est *x, double *wt, double *gr,
                              double *opt);
/* Share of the parameters that train: all but under LoRA, whose
 * frozen weights carry no gradient and no optimizer state
 * (estimate-memory.c). */
double estimate_trainable(const struct est *x);
/* Pipeline rank `rank` as a stage: its layers as Megatron-LM places
 * them (layout_chunk_span), of each kind, and their parameters; the
 * embedding, the output layer and the MTP layers not added. */
void estimate_stage_init(const struct est *x, struct stage *st, int rank);
/*
 * x as if every layer were of one kind, dense or MoE: the share of MoE
 * layers, the counts of each kind and the layers' FLOPs, so that a
 * layer's time computed from it is a layer of that kind's (an MoE
 * model's dense first layers run no dispatcher and no experts).
 */
void estimate_layer_kind(const struct est *x, bool moe, struct est *kind);
/* The stage whose GPUs hold the most parameters, a middle rank other
 * than the middle stage's among them. */
const struct stage *estimate_heaviest_stage(const struct est *x);
/* estimate-memory.c: the per-layer activations every stage is built
 * from (x->a_full, a_input, a_one); the routed and shared experts'
 * activations of one MoE layer and micro-batch; the memory breakdown of
 * the most loaded GPU and each stage's total into out. */
void estimate_layer_activation_sizes(struct est *x);
double estimate_moe_layer_activations(const struct est *x);
void estimate_memory(const struct est *x, struct estimate *out);
/* The memory of a GPU of stage st, its breakdown into mb. */
double estimate_stage_memory(const struct est *x, const struct stage *st,
                             struct memory_breakdown *mb);
/* Activations of one micro-batch through model chunk `chunk` of stage
 * st: its layers of each kind, the MTP layers on the last stage's last
 * chunk, the embedding's on the first stage's first (estimate-memory.c). */
double estimate_chunk_activations(const struct est *x,
                                  const struct stage *st, int chunk);
/* The most activations stage st holds at once over a step's in-flight
 * micro-batches, chunk by chunk (estimate-inflight.c). */
double estimate_inflight_peak(const struct est *x, const struct stage *st);
/*
 * One layer of one micro-batch, and what the first and last stages add.
 * Stage times are built from these by layer count (estimate-pipeline.c)
 * from a layer of each kind (estimate_layer_kind).
 */
struct layer_time {
	double compute;   /* GEMMs, attention, element-wise, launches */
	double gemm;      /* the GEMM part of compute */
	double attn;      /* the attention part of compute */
	double fp8_cast;  /* the FP8 casts part of compute */
	double tp_ar;     /* one TP all-reduce of the layer's activations */
	double cp;        /* exposed context-parallel communication */
	double ep;        /* expert all-to-alls */
	double offload;   /* exposed host copies of an offloaded layer */
	double logits;    /* output layer and loss (last stage) */
	double embedding; /* embedding gradient (first stage) */
	double pp;        /* send/receive per micro-batch */
	double modules;   /* forward of the modules selective recompute
	                   * re-materialises (recompute_modules) */
};

/* Step time and its parts (estimate-pipeline.c). */
void estimate_time(const struct est *x, struct estimate *out);
/* estimate-time.c: one layer's time, of the kind of estimate x; the
 * share of attention's time its forward takes (which selective
 * recompute's core_attn runs again); the TP collectives of one layer's
 * forward. */
void estimate_layer_time(const struct est *x, struct layer_time *lt);
double estimate_attention_forward_share(const struct layout *l);
double estimate_tp_collectives_fwd(const struct est *x);
/* estimate-dp.c: the exposed seconds of a step's data-parallel
 * communication over the dense and expert parameters a GPU holds, t_mb
 * a micro-batch's time (the FSDP one per micro-batch); the optimizer
 * step of stage st. */
double estimate_dp_exposed_s(const struct est *x, double dense,
                             double expert, double t_mb);
double estimate_fsdp_exposed_s(const struct est *x, double dense,
                               double expert, double t_mb);
double estimate_optimizer_step_s(const struct est *x,
                                 const struct stage *st);
/* estimate-links.c: HBM and host-link bandwidth in bytes/s. */
double estimate_hbm_bytes_per_s(const struct gpu *g);
double estimate_host_bytes_per_s(const struct gpu *g);
/* GPUs that NCCL sees as one node (estimate-links.c). */
double estimate_nccl_node_gpus(const struct est *x);
/* Bytes/s per GPU of a collective over span consecutive ranks, its
 * members stride apart, NVLink inside a node or a rack-scale NVLink
 * domain (estimate-links.c). */
double estimate_group_bw(const struct est *x, double span, double stride);
/* Seconds of an all-to-all in which a GPU sends bytes to the other
 * n - 1 members, stride ranks apart, over NVLink and its own NIC
 * (estimate-links.c). */
double estimate_a2a_s(const struct est *x, double bytes, double n,
                      double stride);
/* Nodes a group of n consecutive ranks spans (1 inside NVLink). */
double estimate_group_nodes(const struct est *x, double n);
/* A forwarding all-to-all: nic_bytes through each GPU's NIC beside
 * nvl_bytes over NVLink; nvl_bytes alone inside an NVLink domain. */
double estimate_a2a_nodes_s(const struct est *x, double nic_bytes,
                            double nvl_bytes, double n);
/* Seconds of a ring all-reduce of bytes over n ranks at bw bytes/s
 * (estimate-links.c). */
double estimate_allreduce_s(double bytes, double n, double bw);
/* Tokens one GPU routes per micro-batch (estimate-moe-time.c). */
double estimate_moe_tokens_in(const struct est *x);
/* estimate-moe-time.c, per layer and micro-batch, weighted by the share
 * of MoE layers: the dispatcher's communication forward and backward,
 * the part of comm the EP all-to-all overlap leaves exposed behind
 * compute, and the router and permutation kernels.  GPUs of the ep group
 * a token's k experts land on (flex sends it once to each). */
double estimate_moe_comm_s(const struct est *x);
double estimate_moe_exposed_s(const struct est *x, double comm,
                              double compute);
double estimate_moe_kernels_s(const struct est *x);
double estimate_moe_setup_s(const struct est *x);
double estimate_moe_ranks_per_token(const struct est *x);

/* estimate-tiles.c: time over ideal of a layer's GEMMs from the tiles
 * their widths leave part empty; the dense ones (attention, dense and
 * shared-expert MLPs) and the routed experts'. */
double estimate_dense_tile_slowdown(const struct est *x);
double estimate_expert_tile_slowdown(const struct est *x);

#endif
