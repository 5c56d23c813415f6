/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibration.c - the estimator's fitted constants: the values it was
 * hand-set with (estimate-time.c and estimate-memory.c cite where each
 * comes from), the shipped defaults that `paratune calibrate` fitted from
 * them to the published runs of tests/data/measured
 * (calibration-defaults.h, written by bench/fit-defaults), their
 * physical bounds, and per-GPU sets of them.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "calibration-defaults.h"
#include "error.h"
#include "xalloc.h"

/*
 * Bounds are what the hardware allows, so that a fit to a few noisy
 * rows cannot land on an impossible machine.
 */
static const struct cal_param_info params[CAL_NPARAMS] = {
	[CAL_GEMM_EFF_MAX] = { "gemm_eff_max",
		CAL_LO_GEMM_EFF_MAX, CAL_HI_GEMM_EFF_MAX,
		"a GEMM cannot beat the tensor-core peak, and clocks and "
		"tile tails keep even large ones below it; 30 % is below "
		"any recipe's large GEMMs" },
	[CAL_GEMM_TOKENS_HALF] = { "gemm_tokens_half",
		CAL_LO_GEMM_TOKENS_HALF, CAL_HI_GEMM_TOKENS_HALF,
		"a GEMM of a few tile rows (128-256 tokens) runs at about "
		"half speed; 16 to 2048 tokens spans tile sizes and waves" },
	[CAL_ATTN_EFF_FLASH] = { "attn_eff_flash",
		CAL_LO_ATTN_EFF_FLASH, CAL_HI_ATTN_EFF_FLASH,
		"FlashAttention-2/3 reach 35-75 % of peak forward, less "
		"backward (Dao 2023, arXiv 2307.08691; Shah 2024, "
		"arXiv 2407.08608)" },
	[CAL_FP8_GEMM_EFF] = { "fp8_gemm_eff",
		CAL_LO_FP8_GEMM_EFF, CAL_HI_FP8_GEMM_EFF,
		"FP8 GEMMs reach at most BF16's share of their (doubled) "
		"peak; at 0.5 FP8 would gain nothing over BF16" },
	[CAL_COMM_EFF_NVLINK] = { "comm_eff_nvlink",
		CAL_LO_COMM_EFF_NVLINK, CAL_HI_COMM_EFF_NVLINK,
		"NCCL bus bandwidth cannot exceed the link's; nccl-tests "
		"reach 80-90 % of NVLink on large messages" },
	[CAL_COMM_EFF_NETWORK] = { "comm_eff_network",
		CAL_LO_COMM_EFF_NETWORK, CAL_HI_COMM_EFF_NETWORK,
		"bus bandwidth cannot exceed the NICs'; congested fabrics "
		"fall far below it" },
	[CAL_LAYER_OVERHEAD_S] = { "layer_overhead_s",
		CAL_LO_LAYER_OVERHEAD_S, CAL_HI_LAYER_OVERHEAD_S,
		"about 40 launches of 3-10 us per layer in eager PyTorch; "
		"2 ms a layer would be a stalled host" },
	[CAL_MOE_DISPATCH_EFF] = { "moe_dispatch_eff",
		CAL_LO_MOE_DISPATCH_EFF, CAL_HI_MOE_DISPATCH_EFF,
		"an all-to-all moves at most a ring's bus bandwidth; "
		"uneven routing and small messages lose more", true },
	[CAL_MEM_FRAGMENTATION] = { "memory_fragmentation",
		CAL_LO_MEM_FRAGMENTATION, CAL_HI_MEM_FRAGMENTATION,
		"the caching allocator reserves more than it hands out: "
		"0 to half the activation pool again" },
	[CAL_FP8_BLOCK_GEMM_EFF] = { "fp8_block_gemm_eff",
		CAL_LO_FP8_BLOCK_GEMM_EFF, CAL_HI_FP8_BLOCK_GEMM_EFF,
		"block-scaled FP8 (MXFP8, blockwise) GEMMs reach at most "
		"BF16's share of the FP8 peak; at 0.5 they would gain "
		"nothing over BF16" },
	[CAL_FP4_GEMM_EFF] = { "fp4_gemm_eff",
		CAL_LO_FP4_GEMM_EFF, CAL_HI_FP4_GEMM_EFF,
		"NVFP4 GEMMs reach at most BF16's share of their peak (four "
		"times BF16's on B200 and GB200); at 0.25 FP4 would gain "
		"nothing over BF16 there" },
	[CAL_MOE_LAYER_OVERHEAD_S] = { "moe_layer_overhead_s",
		CAL_LO_MOE_LAYER_OVERHEAD_S, CAL_HI_MOE_LAYER_OVERHEAD_S,
		"the host's time per local expert of an MoE layer and "
		"micro-batch; 5 ms (80 ms a layer of 16 experts) would be a "
		"stalled host", true },
	[CAL_MOE_GEMM_EFF] = { "moe_gemm_eff",
		CAL_LO_MOE_GEMM_EFF, CAL_HI_MOE_GEMM_EFF,
		"grouped expert GEMMs reach at most a dense GEMM's share of "
		"peak at their size; below a fifth of it they would be "
		"launch-bound", true },
	[CAL_HYBRIDEP_TOKEN_S] = { "hybridep_token_s",
		CAL_LO_HYBRIDEP_TOKEN_S, CAL_HI_HYBRIDEP_TOKEN_S,
		"what a HybridEP dispatch waits before its tokens move "
		"(routing-map scan, buffer sizing), per token it routes; "
		"0.3 us, 5 ms for a micro-batch of 16,384 tokens, would be "
		"longer than the layer it serves",
		true },
};

/*
 * The values the estimator was built with, before any fit: the start
 * of bench/fit-defaults' fit (and of its pull toward the start), and
 * what constants it keeps (--fix) stay at.  estimate-time.c,
 * estimate-moe-time.c and estimate-memory.c say where each comes from;
 * hybridep_token_s is bench/fit-hybridep's, from the pairs NVIDIA
 * measured in one build with alltoall and with hybridep.
 */
static const struct calibration hand_set = {
	.name = "hand-set constants",
	.v = { 0.75, 192.0, 0.45, 1.0, 0.85, 0.85, 150e-6, 1.0, 0.10, 1.0,
	       1.0, 0.0, 1.0, 7.0e-8 },
	.residual_low = CAL_DEFAULT_RESIDUAL_LOW,
	.residual_high = CAL_DEFAULT_RESIDUAL_HIGH,
	.rows = 0,
};

/* Built-in defaults, shared read-only by workloads that name none:
 * calibration-defaults.h's, fitted (its head says how). */
static const struct calibration builtin = {
	.name = "",
	.v = CAL_DEFAULTS_FITTED,
	.residual_low = CAL_DEFAULT_RESIDUAL_LOW,
	.residual_high = CAL_DEFAULT_RESIDUAL_HIGH,
	.rows = 0,
};

const struct cal_param_info *
calibration_param(enum cal_param p)
{
	return &params[p];
}

int
calibration_param_find(const char *key)
{
	for (int p = 0; p < CAL_NPARAMS; p++)
		if (!strcmp(params[p].key, key))
			return p;
	return -1;
}

/* The members after the constants, in enum cal_member's order. */
static const char *const member_keys[] = {
	[CAL_MEMBER_NAME - CAL_NPARAMS] = "name",
	[CAL_MEMBER_RESIDUAL_LOW - CAL_NPARAMS] = "residual_low",
	[CAL_MEMBER_RESIDUAL_HIGH - CAL_NPARAMS] = "residual_high",
	[CAL_MEMBER_ROWS - CAL_NPARAMS] = "rows",
};
_Static_assert(CAL_NMEMBERS - CAL_NPARAMS ==
               sizeof member_keys / sizeof member_keys[0],
               "a key for every member");
_Static_assert(CAL_NMEMBERS < 32, "members fit in an unsigned");

int
calibration_member_find(const char *key)
{
	int p = calibration_param_find(key);

	if (p >= 0)
		return p;
	for (int m = CAL_NPARAMS; m < CAL_NMEMBERS; m++)
		if (!strcmp(member_keys[m - CAL_NPARAMS], key))
			return m;
	return -1;
}

const char *
calibration_member_key(int m)
{
	if (m < 0 || m >= CAL_NMEMBERS)
		bug("calibration_member_key(%d)", m);
	return m < CAL_NPARAMS ? params[m].key : member_keys[m - CAL_NPARAMS];
}

void
calibration_overlay(struct calibration *dst, const struct calibration *src,
                    unsigned members)
{
	for (int p = 0; p < CAL_NPARAMS; p++)
		if (members & 1u << p)
			dst->v[p] = src->v[p];
	if (members & 1u << CAL_MEMBER_NAME)
		memcpy(dst->name, src->name, sizeof dst->name);
	if (members & 1u << CAL_MEMBER_RESIDUAL_LOW)
		dst->residual_low = src->residual_low;
	if (members & 1u << CAL_MEMBER_RESIDUAL_HIGH)
		dst->residual_high = src->residual_high;
	if (members & 1u << CAL_MEMBER_ROWS)
		dst->rows = src->rows;
}

void
calibration_init(struct calibration *cal)
{
	*cal = builtin;
}

const struct calibration *
calibration_default(void)
{
	return &builtin;
}

const struct calibration *
calibration_hand_set(void)
{
	return &hand_set;
}

bool
calibration_same(const struct calibration *a, const struct calibration *b)
{
	for (int p = 0; p < CAL_NPARAMS; p++)
		if (a->v[p] != b->v[p])
			return false;
	return a->residual_low == b->residual_low &&
	       a->residual_high == b->residual_high &&
	       calibration_fitted(a) == calibration_fitted(b);
}

/*
 * A calibration without a name is the built-in defaults only when it
 * predicts as they do: a campaign file that sets one constant and no
 * name was shown as "built-in defaults" with other constants.
 */
const char *
calibration_label(const struct calibration *cal)
{
	if (cal == NULL)
		return "built-in defaults";
	if (cal->name[0])
		return cal->name;
	return calibration_same(cal, calibration_default())
	       ? "built-in defaults" : "unnamed";
}

bool
calibration_fitted(const struct calibration *cal)
{
	return cal && cal->rows > 0;
}

void
calibration_clamp(struct calibration *cal)
{
	for (int p = 0; p < CAL_NPARAMS; p++)
		cal->v[p] = fmin(params[p].hi, fmax(params[p].lo, cal->v[p]));
}

void
calibration_set_release(struct calibration_set *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}

const struct calibration_entry *
calibration_set_find(const struct calibration_set *set, const char *gpu)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].gpu, gpu))
			return &set->v[i];
	return NULL;
}

struct calibration_entry *
calibration_set_get(struct calibration_set *set, const char *gpu)
{
	struct calibration_entry *e;

	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].gpu, gpu))
			return &set->v[i];
	ALLOC_GROW(set->v, set->n + 1, set->alloc);
	e = &set->v[set->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->gpu, sizeof e->gpu, "%s", gpu);
	calibration_init(&e->cal);
	return e;
}
