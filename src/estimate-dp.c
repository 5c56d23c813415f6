/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate-dp.c - what data parallelism adds to a step: the gradients
 * reduced and the parameters gathered over the dense and the expert
 * data-parallel groups, what of it overlap hides (with and without
 * FSDP), and the optimizer step over the parameters a GPU holds.
 * Sources are listed at the top of estimate.c.
 */
#include "autoconfig.h"

#include <math.h>

#include "estimate-int.h"

/* Share of the last micro-batch's backward (and the first one's
 * forward) that data-parallel communication can hide behind, when its
 * overlap is on. */
#define DP_OVERLAP 1.0

/* Bytes a parameter all-gathers: 16 bits, or the low-precision copy
 * with fp8_param_gather (--fp8-param-gather, --fp4-param-gather: in
 * NVFP4, row-wise with its scales). */
static double
gather_bytes(const struct est *x)
{
	if (!x->l->fp8_param_gather)
		return 2;
	if (x->w->precision == PREC_FP8)
		return 1;
	return x->w->precision == PREC_FP4 ? FP4_BYTES : 2;
}

/*
 * The two groups a GPU's gradients are reduced and its parameters
 * gathered over [MLM parallel_state.py, initialize_model_parallel;
 * distributed_data_parallel.py]: the dense parameters over the data-
 * and context-parallel group (intra_dp_cp_group), d*c members t ranks
 * apart (ranks ordered tp, cp, dp, pp); the expert parameters over the
 * expert data-parallel group (intra_expt_dp_group), whose rank generator
 * orders etp, ep, edp, pp from the innermost (RankGenerator(tp=etp,
 * ep=ep, dp=edp, cp=1), expert_data_parallel_size = world /
 * (etp*ep*pp)): t*c*d / (etp*ep) members, etp*ep ranks apart over the
 * same t*c*d ranks.  Spread over more nodes, a group has fewer members
 * a node and moves at fewer NICs' rate.
 */
struct dp_group {
	double params, n, bw;
};

static void
dp_groups(const struct est *x, double dense, double expert,
          struct dp_group g[2])
{
	double tcd = x->t * x->c * x->d, ranks = x->te * x->e;

	g[0].params = dense;
	g[0].n = x->d * x->c;
	g[0].bw = estimate_group_bw(x, tcd, x->t);
	g[1].params = expert;
	g[1].n = tcd / ranks;
	g[1].bw = estimate_group_bw(x, tcd, ranks);
}

/*
 * Data-parallel gradient reduction and parameter gathering, overlapped
 * with the backward of the last and the forward of the first
 * micro-batch when their overlap is on; returns the exposed part.  Both
 * groups' transfers run in the same windows (Megatron-LM's DDP keeps
 * the expert parameters in buckets of their own, issued as the backward
 * reaches them) and share each GPU's links: their times add before the
 * window is taken off, once.
 */
double
estimate_dp_exposed_s(const struct est *x, double dense, double expert,
                      double t_mb)
{
	const struct layout *l = x->l;
	double wt, gr, opt, gather = gather_bytes(x), rs = 0, ag = 0;
	struct dp_group g[2];

	estimate_bytes_per_param(x, &wt, &gr, &opt);
	dp_groups(x, dense, expert, g);
	for (int i = 0; i < 2; i++) {
		/* Only trainable parameters have buckets, and the
		 * distributed optimizer gathers only what it updates
		 * (Megatron-LM's DDP skips those without requires_grad
		 * [MLM distributed_data_parallel.py]). */
		double n = g[i].n, p = g[i].params * estimate_trainable(x);

		if (n <= 1 || p <= 0)
			continue;
		if (l->distributed_optimizer) {
			rs += (n - 1) / n * p * gr / g[i].bw;
			ag += (n - 1) / n * p * gather / g[i].bw;
		} else {
			rs += estimate_allreduce_s(p * gr, n, g[i].bw);
		}
	}
	return fmax(0, rs - (l->overlap_grad_reduce ? DP_OVERLAP : 0) *
	                    t_mb * 2 / 3) +
	       fmax(0, ag - (l->overlap_param_gather ? DP_OVERLAP : 0) *
	                    t_mb / 3);
}

/*
 * FSDP gathers every layer's weights forward and again backward and
 * reduce-scatters its gradients, each micro-batch, layer by layer under
 * the layer's compute [GUIDE], the experts' over the expert
 * data-parallel group; returns the exposed time of one micro-batch.
 */
double
estimate_fsdp_exposed_s(const struct est *x, double dense, double expert,
                        double t_mb)
{
	double wt, gr, opt, gather = gather_bytes(x), comm = 0;
	struct dp_group g[2];

	estimate_bytes_per_param(x, &wt, &gr, &opt);
	dp_groups(x, dense, expert, g);
	/* Frozen weights are gathered too, but reduce no gradient. */
	for (int i = 0; i < 2; i++)
		if (g[i].n > 1)
			comm += (g[i].n - 1) / g[i].n * g[i].params *
			        (2 * gather + gr * estimate_trainable(x)) /
			        g[i].bw;
	return fmax(0, comm - t_mb);
}

/*
 * Optimizer step: read and write the resident state (fp32 master weights
 * and two moments: 2 x 12 bytes), read the main gradients, write the
 * weights, and write and read any transient buffer; per parameter of a
 * shard (30 bytes in bf16).  A sharded optimizer holds 1/(d*c) of the
 * dense parameters and 1/edp of the expert ones, each over the group
 * that reduces them (dp_groups), as the memory estimate counts them.
 */
double
estimate_optimizer_step_s(const struct est *x, const struct stage *st)
{
	double wt, gr, opt, bytes, held = st->dense + st->expert;
	struct dp_group g[2];

	estimate_bytes_per_param(x, &wt, &gr, &opt);
	bytes = 2 * opt + gr + wt + 2 * x->w->opt_transient_bytes;
	if (x->sharded) {
		dp_groups(x, st->dense, st->expert, g);
		held = g[0].params / g[0].n + g[1].params / g[1].n;
	}
	/* Under LoRA it steps the adapters alone. */
	return bytes * held * estimate_trainable(x) /
	       estimate_hbm_bytes_per_s(x->w->gpu);
}
