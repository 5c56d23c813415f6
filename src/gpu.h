/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * gpu.h - the GPU catalog: memory, dense peak throughput by precision and
 * interconnect, with site overrides.
 */
#ifndef PARATUNE_GPU_H
#define PARATUNE_GPU_H

#include <stdbool.h>
#include <stddef.h>

/* PREC_FP4 is NVFP4 (E2M1 values, an E4M3 scale per 16 elements and an
 * FP32 scale per tensor: Transformer Engine's NVFP4BlockScaling), which
 * only Blackwell's tensor cores run. */
enum precision { PREC_FP32, PREC_FP16, PREC_BF16, PREC_FP8, PREC_FP4,
                 PREC_COUNT };

struct gpu {
	char name[32];        /* catalog key, e.g. "h100-sxm" */
	char description[64];
	double memory_gib;    /* usable device memory */
	double peak_tflops[PREC_COUNT]; /* dense tensor-core peak (fp32: TF32,
	                                 * fp4: NVFP4); 0: not supported */
	int nvlink_domain;    /* GPUs in one NVLink domain */
	double nvlink_gbs;    /* NVLink GB/s per GPU, one direction */
	double network_gbs;   /* scale-out GB/s per GPU, one direction */
	double hbm_tbs;       /* memory bandwidth TB/s; 0: derive from peak */
	double host_gbs;      /* GB/s per GPU, one direction, to host memory
	                       * (activation offloading); 0: PCIe Gen5 x16 */
	double compute_capability; /* CUDA's, e.g. 9.0 for H100; 0: unknown
	                            * (or not an NVIDIA GPU) */
};

struct gpu_catalog {
	struct gpu *v;
	size_t n, alloc;
};

/* Fill a catalog with the built-in entries. */
void gpu_catalog_init(struct gpu_catalog *cat);
void gpu_catalog_release(struct gpu_catalog *cat);
/* Exact lookup; NULL when absent. */
const struct gpu *gpu_catalog_find(const struct gpu_catalog *cat,
                                   const char *name);
/* Add an entry or replace the one with the same name. */
void gpu_catalog_put(struct gpu_catalog *cat, const struct gpu *g);

/*
 * What the tensor cores of g run, as Transformer Engine tells them by
 * compute capability; where the catalog has none, an NVFP4 peak, which
 * only Blackwell's tensor cores have, stands for 10.x (gpu.c says
 * where each band comes from).
 */
bool gpu_mxfp8(const struct gpu *g);           /* MXFP8: 10.x, 11.x */
bool gpu_fp8_any_layout(const struct gpu *g);  /* FP8 GEMM operands in
                                                * any layout */
bool gpu_blackwell(const struct gpu *g);       /* 10.0 or above */
/* Blockwise FP8 (128x128 and 1x128 scales): 9.0 and above; with
 * Transformer Engine 2.5 (NeMo 2.0's 25.07 container), 9.x only. */
bool gpu_fp8_blockwise(const struct gpu *g, bool te_2_5);

const char *precision_name(enum precision p);
/* Parse "bf16", "fp8", "fp4", "fp16", "fp32"; -1 when unknown. */
int precision_parse(const char *s);

#endif
