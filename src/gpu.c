/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * gpu.c - the built-in GPU catalog, and the FP8 recipes its compute
 * capabilities run.
 *
 * Units, the same for every entry:
 *   memory_gib   GiB (2^30 bytes) of device memory as the driver reports
 *                its total (nvidia-smi memory.total, in MiB, / 1024):
 *                what a training process can actually allocate from,
 *                a little under the marketing figure.
 *   peak_tflops  dense tensor-core peak, 10^12 FLOP/s, without the 2:4
 *                sparsity that datasheets quote first (their figure / 2);
 *                fp32 is TF32 on the tensor cores; fp4 is NVFP4, on
 *                Blackwell only (the other entries leave it 0); 0 = not
 *                supported.
 *   nvlink_gbs   GB/s (10^9 bytes) per GPU in one direction into its
 *                NVLink (or Infinity Fabric) domain: half the
 *                bidirectional figure on the datasheet.
 *   network_gbs  GB/s per GPU in one direction to other nodes: the NIC
 *                line rate in Gb/s / 8, for one NIC per GPU as NVIDIA's
 *                DGX and HGX reference designs have.
 *   hbm_tbs      device memory bandwidth, TB/s.
 *   host_gbs     GB/s per GPU in one direction to the host's memory:
 *                PCIe Gen5 x16 moves 32 GT/s x 16 lanes, 64 GB/s (PCI-SIG;
 *                Gen4 half of it); Grace systems join each Grace CPU to
 *                its two GPUs over NVLink-C2C at 900 GB/s bidirectional
 *                (GB200/GB300 NVL72 datasheets), 225 GB/s a GPU each way.
 *   compute_capability
 *                CUDA's, major.minor, from NVIDIA's table of them
 *                (developer.nvidia.com/cuda-gpus, "CUDA GPU Compute
 *                Capability"): A100 8.0; L40S 8.9; H100 and H200 9.0;
 *                B200 and GB200 10.0; B300 and GB300 10.3.  MI300X, no
 *                CUDA GPU, has none (0).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "xalloc.h"

static const struct gpu gpu_builtin[] = {
	/* NVIDIA A100 datasheet (2021): TF32 156, FP16/BF16 312 dense, no
	 * FP8; NVLink 3 600 GB/s bidirectional; HBM2 1.555 TB/s (40 GB),
	 * HBM2e 2.039 TB/s (80 GB SXM).  nvidia-smi reports 40,536 MiB and
	 * 81,920 MiB.  DGX A100: eight 200 Gb/s HDR InfiniBand NICs. */
	{ "a100-40gb", "NVIDIA A100 SXM4 40 GB (DGX/HGX A100)", 39.6,
	  { 156, 312, 312, 0 }, 8, 300, 25, 1.555, 32,
	  .compute_capability = 8.0 },
	{ "a100-80gb", "NVIDIA A100 SXM4 80 GB (DGX/HGX A100)", 80.0,
	  { 156, 312, 312, 0 }, 8, 300, 25, 2.039, 32,
	  .compute_capability = 8.0 },
	/* NVIDIA H100 datasheet (SXM5): TF32 989, FP16/BF16 1979, FP8 3958
	 * with sparsity; dense 494.7, 989.4, 1978.9.  NVLink 4 900 GB/s
	 * bidirectional, HBM3 3.35 TB/s, 81,559 MiB.  DGX H100: eight
	 * 400 Gb/s ConnectX-7 NICs. */
	{ "h100-sxm", "NVIDIA H100 SXM5 80 GB (DGX/HGX H100)", 79.6,
	  { 494.7, 989.4, 989.4, 1978.9 }, 8, 450, 50, 3.35, 64,
	  .compute_capability = 9.0 },
	/* NVIDIA H100 datasheet (PCIe): TF32 756, FP16/BF16 1513, FP8 3026
	 * with sparsity; HBM2e 2.0 TB/s, 81,559 MiB.  Its NVLink bridge
	 * joins two cards at 600 GB/s bidirectional, so the NVLink domain
	 * is a pair (a site without bridges sets 1).  PCIe servers usually
	 * carry one 400 Gb/s NIC per two GPUs. */
	{ "h100-pcie", "NVIDIA H100 PCIe 80 GB, NVLink bridge pairs", 79.6,
	  { 378, 756.5, 756.5, 1513 }, 2, 300, 25, 2.0, 64,
	  .compute_capability = 9.0 },
	/* NVIDIA H200 datasheet (SXM): H100's compute, 141 GB HBM3e at
	 * 4.8 TB/s (143,771 MiB), NVLink 4 900 GB/s; HGX H200 with one
	 * 400 Gb/s NIC per GPU. */
	{ "h200", "NVIDIA H200 SXM 141 GB (HGX H200)", 140.4,
	  { 494.7, 989.4, 989.4, 1978.9 }, 8, 450, 50, 4.8, 64,
	  .compute_capability = 9.0 },
	/* NVIDIA HGX B200 datasheet (8 GPUs, with sparsity): TF32 18 PF,
	 * FP16/BF16 36 PF, FP8 72 PF, so 1125, 2250, 4500 dense per GPU;
	 * NVLink 5 1.8 TB/s bidirectional; HBM3e 8 TB/s, 183,359 MiB;
	 * DGX B200: eight 400 Gb/s ConnectX-7 NICs.  FP4 Tensor Core
	 * 144 PF with sparsity, so 9000 dense per GPU (the datasheet's
	 * sparse figure / 2 / 8). */
	{ "b200", "NVIDIA B200 180 GB (DGX/HGX B200)", 179.1,
	  { 1125, 2250, 2250, 4500, 9000 }, 8, 900, 50, 8.0, 64,
	  .compute_capability = 10.0 },
	/* NVIDIA GB200 NVL72 datasheet (72 GPUs, with sparsity): TF32
	 * 180 PF, FP16/BF16 360 PF, FP8 720 PF, so 1250, 2500, 5000 dense
	 * per GPU; 13.4 TB HBM3e (186 GB per GPU, 185 GiB usable) at 8 TB/s;
	 * one NVLink 5 domain of 72 GPUs at 1.8 TB/s bidirectional each;
	 * one 400 Gb/s ConnectX-7 per GPU.  FP4 Tensor Core 1,440 PF with
	 * sparsity, so 10000 dense per GPU (/ 2 / 72). */
	{ "gb200", "NVIDIA GB200 NVL72 (72-GPU NVLink domain)", 185.0,
	  { 1250, 2500, 2500, 5000, 10000 }, 72, 900, 50, 8.0, 225,
	  .compute_capability = 10.0 },
	/* NVIDIA HGX B300 (Blackwell Ultra) datasheet, dense per GPU:
	 * TF32 1.1 PF, FP16/BF16 2.25 PF, FP8 4.5 PF (B200's rates; the
	 * Ultra's gains are FP4 and attention exponentials); FP4 Tensor
	 * Core 144 PF with sparsity, 108 PF dense (the datasheet gives both:
	 * Blackwell Ultra's sparse FP4 is not twice its dense), 13500 dense
	 * per GPU; 288 GB HBM3e (12-high stacks) at 8 TB/s; NVLink
	 * 5 1.8 TB/s bidirectional; one 800 Gb/s ConnectX-8 SuperNIC per
	 * GPU.  The driver's total is not in the datasheet: 288 GB is taken
	 * as 268.2 GiB, and a site that reads less sets memory_gib. */
	{ "b300", "NVIDIA B300 288 GB (HGX B300, Blackwell Ultra)", 268.2,
	  { 1125, 2250, 2250, 4500, 13500 }, 8, 900, 100, 8.0, 64,
	  .compute_capability = 10.3 },
	/* NVIDIA GB300 NVL72 datasheet (72 GPUs, dense): FP8 360 PF,
	 * FP16/BF16 180 PF, TF32 90 PF, FP4 1,080 PF (1,440 with
	 * sparsity), so 5000, 2500, 1250 and 15000 per GPU; up to
	 * 20 TB HBM3e (288 GB per GPU, taken as above) at 576 TB/s (8 TB/s
	 * per GPU); one NVLink 5 domain of 72 GPUs, 130 TB/s in all (1.8
	 * TB/s per GPU bidirectional); 72 ConnectX-8 800 Gb/s NICs, one per
	 * GPU. */
	{ "gb300", "NVIDIA GB300 NVL72 (72-GPU NVLink domain)", 268.2,
	  { 1250, 2500, 2500, 5000, 15000 }, 72, 900, 100, 8.0, 225,
	  .compute_capability = 10.3 },
	/* NVIDIA L40S datasheet: TF32 366, FP16/BF16 733, FP8 1466 with
	 * sparsity (183, 362.05, 733 dense); 48 GB GDDR6 with ECC at
	 * 864 GB/s (46,068 MiB).  No NVLink: GPUs meet over PCIe Gen4 x16,
	 * 32 GB/s each way, each one its own domain.  OVX servers carry
	 * one 400 Gb/s NIC per two GPUs. */
	{ "l40s", "NVIDIA L40S 48 GB, PCIe only (no NVLink)", 45.0,
	  { 183, 362.05, 362.05, 733 }, 1, 32, 25, 0.864, 32,
	  .compute_capability = 8.9 },
	/* AMD Instinct MI300X datasheet: TF32 653.7, FP16/BF16 1307.4,
	 * FP8 2614.9 dense; 192 GB HBM3 at 5.3 TB/s (rocm-smi: 205,822,
	 * 885,888 bytes); seven Infinity Fabric links, 896 GB/s
	 * bidirectional in all, joining the 8 GPUs of a platform; one
	 * 400 Gb/s NIC per GPU. */
	{ "mi300x", "AMD Instinct MI300X 192 GB (8-GPU platform)", 191.7,
	  { 653.7, 1307.4, 1307.4, 2614.9 }, 8, 448, 50, 5.3, 64,
	  .compute_capability = 0 },
};

#define GPU_BUILTIN_COUNT (sizeof(gpu_builtin) / sizeof(gpu_builtin[0]))

/* A fresh catalog holding the built-in entries. */
void
gpu_catalog_init(struct gpu_catalog *cat)
{
	cat->v = NULL;
	cat->n = cat->alloc = 0;
	for (size_t i = 0; i < GPU_BUILTIN_COUNT; i++)
		gpu_catalog_put(cat, &gpu_builtin[i]);
}

/* Free the entries; cat is empty afterwards. */
void
gpu_catalog_release(struct gpu_catalog *cat)
{
	free(cat->v);
	cat->v = NULL;
	cat->n = cat->alloc = 0;
}

/* Index of the entry named name, or -1. */
static long
gpu_catalog_index(const struct gpu_catalog *cat, const char *name)
{
	for (size_t i = 0; i < cat->n; i++)
		if (!strcmp(cat->v[i].name, name))
			return (long)i;
	return -1;
}

/* The entry named name; NULL when absent. */
const struct gpu *
gpu_catalog_find(const struct gpu_catalog *cat, const char *name)
{
	long i = gpu_catalog_index(cat, name);

	return i < 0 ? NULL : &cat->v[i];
}

/* Replace the entry of the same name, or append g. */
void
gpu_catalog_put(struct gpu_catalog *cat, const struct gpu *g)
{
	long i = gpu_catalog_index(cat, g->name);

	if (i >= 0) {
		/* i >= 0 only when cat->v holds entries. */
		/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
		cat->v[i] = *g;
		return;
	}
	ALLOC_GROW(cat->v, cat->n + 1, cat->alloc);
	cat->v[cat->n++] = *g;
}

/* Indexed by enum precision; the spelling of the campaign key. */
static const char *const precision_names[] = {
	[PREC_FP32] = "fp32",
	[PREC_FP16] = "fp16",
	[PREC_BF16] = "bf16",
	[PREC_FP8] = "fp8",
	[PREC_FP4] = "fp4",
};
_Static_assert(sizeof precision_names / sizeof precision_names[0] ==
               PREC_COUNT, "a name for every precision");

/* "bf16" and the like; "unknown" out of range. */
const char *
precision_name(enum precision p)
{
	if ((int)p < 0 || p >= PREC_COUNT)
		return "unknown";
	return precision_names[p];
}

/* The precision spelled s, or -1. */
int
precision_parse(const char *s)
{
	for (int p = 0; p < PREC_COUNT; p++)
		if (!strcmp(precision_names[p], s))
			return p;
	return -1;
}

/*
 * The bands are Transformer Engine's (transformer_engine/pytorch/
 * quantization.py and utils.py, d0067d0, 2026-08; fp8.py of v2.5):
 * check_mxfp8_support runs MXFP8 from 10.0 and "not on 12.0+
 * architectures yet"; is_non_tn_fp8_gemm_supported takes FP8 operands
 * in any layout on 10.x, 11.x and 13.0 up; check_fp8_block_scaling_support
 * runs blockwise scaling from 9.0 since v2.9, where v2.5 to v2.8 stopped
 * below 10.0 ("FP8 block scaled GEMM requires Hopper"): the megatron-lm
 * template's Blackwell runs take Transformer Engine 2.9 or later, the
 * nemo2 template's 25.07 container has 2.5.  Without a compute
 * capability an NVFP4 peak marks a Blackwell data-center part.
 */
static bool
gpu_cc_known(const struct gpu *g)
{
	return g->compute_capability > 0;
}

bool
gpu_blackwell(const struct gpu *g)
{
	if (gpu_cc_known(g))
		return g->compute_capability >= 10.0;
	return g->peak_tflops[PREC_FP4] > 0;
}

bool
gpu_mxfp8(const struct gpu *g)
{
	if (gpu_cc_known(g))
		return g->compute_capability >= 10.0 &&
		       g->compute_capability < 12.0;
	return gpu_blackwell(g);
}

bool
gpu_fp8_any_layout(const struct gpu *g)
{
	if (gpu_cc_known(g))
		return gpu_mxfp8(g) || g->compute_capability >= 13.0;
	return gpu_blackwell(g);
}

bool
gpu_fp8_blockwise(const struct gpu *g, bool te_2_5)
{
	if (!gpu_cc_known(g))
		return !(te_2_5 && gpu_blackwell(g));
	return g->compute_capability >= 9.0 &&
	       !(te_2_5 && g->compute_capability >= 10.0);
}
