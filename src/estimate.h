/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate.h - memory, FLOPs and step time of a layout.
 *
 * Pure arithmetic on a workload and a layout: no allocation, no I/O, so
 * that the grid can run it a million times a second.
 */
#ifndef PARATUNE_ESTIMATE_H
#define PARATUNE_ESTIMATE_H

#include "layout.h"

enum memory_status { MEM_SAFE, MEM_OOM_RISK };

/* Bytes per GPU on the most loaded GPU: of the pipeline stage that needs
 * the most (estimate.stages has each one's total). */
struct memory_breakdown {
	double weights;
	double gradients;
	double optimizer;
	double activations;
	double buffers;   /* CUDA context, NCCL, allocator fragmentation,
	                   * CUDA graphs' static buffers */
	double total;
};

/* One pipeline stage's share: its layers and the memory of one of its
 * GPUs.  The middle is the rank between first and last whose GPUs need
 * the most memory (rank names it). */
struct stage_memory {
	const char *name;           /* "all", "first", "middle" or "last" */
	int rank;                   /* the pipeline rank it stands for */
	double layers;
	double dense_layers;        /* of them dense (all of a dense model's) */
	double total;               /* bytes */
};

struct estimate {
	double params_total;
	double params_per_gpu;      /* on the most loaded GPU */
	double flops_per_step;      /* Megatron-LM's model FLOPs */
	double flops_per_step_nemo; /* NeMo's 72BLsh^2(...) figure */
	struct memory_breakdown mem;  /* of the heaviest stage */
	struct stage_memory stages[3]; /* first, middle, last; one with pp 1 */
	int nstages;
	enum memory_status memory_status;
	/* Step time and its parts, seconds. */
	double step_s;
	/* Its interval from the calibration's residuals. */
	double step_s_low, step_s_high;
	double compute_s;
	double fp8_cast_s;          /* of compute: GEMM inputs cast to FP8
	                             * (or to NVFP4 with fp4) */
	double recompute_s;
	double tp_comm_s;
	double cp_comm_s;
	double ep_comm_s;
	double dp_comm_s;
	double pp_comm_s;
	double bubble_s;
	double offload_s;           /* activation copies to and from host */
	double bubble_ratio;        /* idle fraction of the pipeline */
	/* Pipeline stage imbalance: the slowest stage's micro-batch time
	 * over the mean of all stages', minus one (0 with one stage). */
	double unbalance_ratio;
	double tokens_per_s_per_gpu;
	double tflops_per_gpu;      /* model TFLOP/s per GPU */
	double mfu;                 /* against the GPU's dense peak */
	double train_days;          /* num_tokens_b at the predicted speed */
};

/* Estimate a layout that passed layout_check(). */
void estimate_layout(const struct workload *w, const struct layout *l,
                     struct estimate *out);

/* Whether e's step time (and its interval), throughput and memory are
 * finite numbers, the time above 0: what may be ranked or written. */
bool estimate_finite(const struct estimate *e);

/* Bytes one MoE layer keeps for the backward besides its attention
 * (router, routed experts, combine, shared experts), per micro-batch on
 * one GPU; 0 for a dense model. */
double estimate_moe_layer_bytes(const struct workload *w,
                                const struct layout *l);

/* Megatron-LM's FLOPs for one step of gbs sequences (notes: FLOPs). */
double estimate_flops_per_step(const struct model *m, int seq_length,
                               int gbs);
/* NeMo's 72*B*L*s*h^2*(1 + s/(6h) + V/(12hL)). */
double estimate_flops_per_step_nemo(const struct model *m, int seq_length,
                                    int gbs);
const char *memory_status_name(enum memory_status s);

#define GIB (1024.0 * 1024.0 * 1024.0)

#endif
