/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate-tiles.c - what a layer's GEMMs lose to tile quantisation:
 * a GEMM kernel computes its output in whole tiles, so a dimension that
 * is not a multiple of the tile pays for the padded rest.
 *
 * The tile taken is 256 wide, the widest MMA both architectures issue:
 * Hopper's wgmma.mma_async shapes run from .m64n8k16 to .m64n256k16
 * (PTX ISA), Blackwell's 2-SM
 * tcgen05.mma computes 256 x 256 x 16 (NVIDIA/cutlass
 * examples/cute/tutorial/blackwell/04_mma_tma_2sm_sm100.cu).  Kernels
 * also run tiles of 128; which one cuBLAS or CUTLASS picks for a shape
 * is theirs to say.  On the published runs (bench/calibration,
 * 2026-12-03, every constant refitted) 256 gave an MoE k-fold error of
 * 16.0 % and per GPU at most 19.0 %, 128 gave 17.0 and 20.3 %, none
 * 17.5 and 20.8 %.
 *
 * Of the models with published runs only GPT-OSS (hidden and expert
 * widths of 2,880 = 11.25 x 256) and DeepSeek-V3's MLA (a KV down
 * projection of 512 + 64 columns) have such dimensions; the dense
 * presets are multiples of 256 throughout.
 */
#include "autoconfig.h"

#include <math.h>

#include "estimate-int.h"

#define GEMM_TILE 256.0

/* The share of its tiles a dimension of d fills. */
static double
tile_fill(double d)
{
	if (d <= 0)
		return 1;
	return d / (ceil(d / GEMM_TILE) * GEMM_TILE);
}

/*
 * Time over ideal of a linear layer from in to out columns: its
 * forward writes tokens x out, its input gradient tokens x in, its
 * weight gradient in x out, three GEMMs of the same FLOPs; the token
 * dimension is long and taken as filled.
 */
static double
linear_slowdown(double in, double out)
{
	double a = tile_fill(in), b = tile_fill(out);

	return (1 / b + 1 / a + 1 / (a * b)) / 3;
}

/* A sum of linear layers, each weighted by its FLOPs (in x out). */
struct linear_sum {
	double flops, time;
};

static void
add_linear(struct linear_sum *sum, double in, double out, double weight)
{
	double f = in * out * weight;

	sum->flops += f;
	sum->time += f * linear_slowdown(in, out);
}

/* The attention's linear layers on a tp rank: Q, K, V and the output
 * projection, or MLA's down and up projections [MLM
 * multi_latent_attention.py; the down projections are not split]. */
static void
add_attention(const struct est *x, struct linear_sum *sum)
{
	const struct model *m = x->w->model;
	const struct shape *s = &x->s;
	double t = x->t, a = m->num_attention_heads;
	double dqk = m->qk_head_dim + m->qk_pos_emb_head_dim;

	if (m->kv_lora_rank <= 0) {
		add_linear(sum, s->h, (s->q + 2 * s->kvd) / t, 1);
		add_linear(sum, s->q / t, s->h, 1);
		return;
	}
	if (m->q_lora_rank > 0) {
		add_linear(sum, s->h, m->q_lora_rank, 1);
		add_linear(sum, m->q_lora_rank, a * dqk / t, 1);
	} else {
		add_linear(sum, s->h, a * dqk / t, 1);
	}
	add_linear(sum, s->h, m->kv_lora_rank + m->qk_pos_emb_head_dim, 1);
	add_linear(sum, m->kv_lora_rank,
	           a * (m->qk_head_dim + m->v_head_dim) / t, 1);
	add_linear(sum, a * m->v_head_dim / t, s->h, 1);
}

/* An MLP of width f split over n ranks, weighted by w. */
static void
add_mlp(const struct est *x, struct linear_sum *sum, double f, double n,
        double w)
{
	double out = x->s.gated > 1 ? 2 : 1; /* fc1's columns per f */

	if (f <= 0 || w <= 0)
		return;
	add_linear(sum, x->s.h, out * f / n, w);
	add_linear(sum, f / n, x->s.h, w);
}

/* Public: see estimate-int.h. */
double
estimate_dense_tile_slowdown(const struct est *x)
{
	struct linear_sum sum = { 0, 0 };

	add_attention(x, &sum);
	add_mlp(x, &sum, x->s.f, x->t, 1 - x->moe_frac);
	add_mlp(x, &sum, x->s.shared_f, x->t, x->moe_frac);
	return sum.flops > 0 ? sum.time / sum.flops : 1;
}

/* Public: see estimate-int.h. */
double
estimate_expert_tile_slowdown(const struct est *x)
{
	struct linear_sum sum = { 0, 0 };

	add_mlp(x, &sum, x->s.fe, x->te, 1);
	return sum.flops > 0 ? sum.time / sum.flops : 1;
}
