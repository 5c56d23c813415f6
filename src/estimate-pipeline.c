/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate-pipeline.c - the step of a layout from its layers' times
 * (estimate-time.c): a micro-batch through each stage, of its own dense
 * and MoE layers, the slowest stage that sets the pipeline's pace, the
 * stages' imbalance, the bubble, and the data-parallel communication
 * and optimizer step (estimate-dp.c) of the stage holding the most
 * parameters.  Sources are listed at the top of estimate.c.
 */
#include "autoconfig.h"

#include <math.h>

#include "estimate-int.h"

/* One micro-batch through one stage, in parts. */
struct stage_time {
	double compute, recompute, tp, cp, ep, pp, offload, total;
	double fp8_cast;  /* of compute */
};

/*
 * What a stage waits of its pipeline sends and receives, pp_s, of one
 * micro-batch, whose compute is compute_s.  The interleaved schedule
 * overlaps them with the next model chunk's compute: Megatron-LM keeps
 * overlap_p2p_comm on with virtual stages (--no-overlap-p2p-communication
 * turns it off; arguments.py sets it off without them), as
 * Megatron-Bridge's and NeMo's communication-overlap settings do ("PP
 * overlap": overlap_p2p_comm with vp > 1, batched sends otherwise;
 * Megatron-Bridge comm_overlap.py).  A chunk's send hides under a
 * chunk's compute, so only what exceeds it shows; 1F1B without virtual
 * stages waits for every send.
 */
static double
pp_exposed_s(const struct est *x, double pp_s, double compute_s)
{
	if (x->v <= 1)
		return pp_s;
	return fmax(0, pp_s - compute_s);
}

/* A layer of each kind, dense and MoE: the estimate of that kind
 * (estimate_layer_kind) and its time.  A model of one kind has the
 * same in both. */
struct layer_kinds {
	struct est x[2];
	struct layer_time lt[2];
};

/*
 * Of the nrc layers of stage st that full recompute repeats, the dense
 * ones: every one, but with the block method of N each model chunk's
 * first N, its dense layers first (they are the model's first)
 * [MLM recompute.py], as estimate-memory.c keeps their inputs.  A
 * share in proportion had DeepSeek-V3's first stage on pp 16 (three
 * dense layers, one MoE) with N = 3 recompute 0.75 of an MoE layer.
 */
double
estimate_dense_recomputed(const struct est *x, const struct stage *st,
                          double nrc)
{
	const struct layout *l = x->l;
	int vp = l->vp > 1 ? l->vp : 1, from, n;
	double sum = 0;

	if (nrc <= 0 || st->dense_layers <= 0)
		return 0;
	if (nrc >= st->layers)
		return st->dense_layers;
	for (int c = 0; c < vp; c++) {
		layout_chunk_span(x->w->model, l, st->rank, c, &from, &n);
		sum += fmin(l->recompute_layers,
		            model_dense_layers_in(x->w->model, from, n));
	}
	return fmin(sum, nrc);
}

/* What nk layers of one kind add to a stage, rc of them recomputed and
 * noff of them offloaded. */
static void
stage_add_layers(const struct est *x, const struct layer_time *lt,
                 double nk, double rc, double noff, struct stage_time *out)
{
	const struct layout *l = x->l;

	out->compute += nk * lt->compute;
	out->fp8_cast += nk * lt->fp8_cast;
	/* Recomputation repeats the forward pass: a third of fwd+bwd,
	 * but half of frozen GEMMs' (LoRA), whose backward computes no
	 * weight gradient (frozen_gemm_share): the forward is as long as
	 * in full training. */
	out->recompute += rc * (lt->compute / 3 +
	                        (x->w->peft_lora ? lt->gemm / 6 : 0));
	if (l->recompute == RECOMPUTE_SELECTIVE &&
	    (x->modules & RCM_BIT(RCM_CORE_ATTN)))
		out->recompute += nk * lt->attn *
		                  estimate_attention_forward_share(l);
	out->recompute += nk * lt->modules;
	/* Forward and backward, and the forward again when recomputed. */
	out->tp += lt->tp_ar * estimate_tp_collectives_fwd(x) * (2 * nk + rc);
	out->cp += nk * lt->cp;
	out->ep += nk * lt->ep;
	out->offload += noff * lt->offload;
}

/* One micro-batch through stage st: its dense and its MoE layers, the
 * logits on the last stage, the embedding's gradient on the first. */
static void
stage_time(const struct layer_kinds *k, const struct stage *st,
           struct stage_time *out)
{
	const struct est *x = &k->x[0];
	const struct layer_time *lt = &k->lt[0];
	double n = st->layers, nrc = estimate_recomputed_layers(x, n);
	double nd = st->dense_layers, off = fmin(x->l->offload_layers, n);
	double rcd = estimate_dense_recomputed(x, st, nrc);

	*out = (struct stage_time){ 0 };
	/* The offloaded layers are the first (estimate-memory.c), the
	 * dense ones before the others. */
	stage_add_layers(x, lt, nd, rcd, fmin(off, nd), out);
	stage_add_layers(&k->x[1], &k->lt[1], n - nd, nrc - rcd,
	                 off - fmin(off, nd), out);
	out->compute += (st->last ? lt->logits : 0) +
	                (st->first ? lt->embedding : 0);
	out->pp = pp_exposed_s(x, lt->pp, out->compute + out->recompute);
	out->total = out->compute + out->recompute + out->tp + out->cp +
	             out->ep + out->pp + out->offload;
}

/*
 * The middle stages' times, summed, and the slowest of them.  Rank 1
 * stands for all p - 2 when the layers are of one kind; with dense
 * first layers the ranks that hold some differ from the others.
 */
static double
middle_times(const struct est *x, const struct layer_kinds *k,
             struct stage_time *slowest)
{
	struct stage st;
	struct stage_time t;
	double sum = 0;

	stage_time(k, &x->stage[2], slowest);
	if (x->s.Lmoe <= 0 || x->s.Ldense <= 0)
		return (x->p - 2) * slowest->total;
	for (int r = 1; r < x->l->pp - 1; r++) {
		estimate_stage_init(x, &st, r);
		stage_time(k, &st, &t);
		sum += t.total;
		if (t.total > slowest->total)
			*slowest = t;
	}
	return sum;
}

/* Slowest stage (sets the pipeline's pace) and the stages' imbalance. */
static void
pipeline_times(const struct est *x, const struct layer_kinds *k,
               struct stage_time *slowest, double *unbalance)
{
	struct stage_time t;
	double sum;

	stage_time(k, &x->stage[0], slowest);
	sum = slowest->total;
	if (x->nstages > 1) {
		stage_time(k, &x->stage[1], &t);
		sum += t.total;
		if (t.total > slowest->total)
			*slowest = t;
	}
	if (x->nstages == 3) {
		sum += middle_times(x, k, &t);
		if (t.total > slowest->total)
			*slowest = t;
	}
	*unbalance = x->nstages > 1 ? slowest->total / (sum / x->p) - 1 : 0;
}

/* The layer of each kind: both x's own when its layers are of one. */
static void
layer_kinds_init(const struct est *x, struct layer_kinds *k)
{
	if (x->s.Lmoe > 0 && x->s.Ldense > 0) {
		estimate_layer_kind(x, false, &k->x[0]);
		estimate_layer_kind(x, true, &k->x[1]);
	} else {
		k->x[0] = k->x[1] = *x;
	}
	estimate_layer_time(&k->x[0], &k->lt[0]);
	k->lt[1] = k->lt[0];
	if (x->s.Lmoe > 0 && x->s.Ldense > 0)
		estimate_layer_time(&k->x[1], &k->lt[1]);
}

void
estimate_time(const struct est *x, struct estimate *out)
{
	const struct stage *heavy = estimate_heaviest_stage(x);
	struct layer_kinds k;
	struct stage_time st;
	double t_mb;

	layer_kinds_init(x, &k);
	pipeline_times(x, &k, &st, &out->unbalance_ratio);
	t_mb = st.total;
	out->compute_s = x->m * st.compute;
	out->fp8_cast_s = x->m * st.fp8_cast;
	out->recompute_s = x->m * st.recompute;
	out->tp_comm_s = x->m * st.tp;
	out->cp_comm_s = x->m * st.cp;
	out->ep_comm_s = x->m * st.ep;
	out->pp_comm_s = x->m * st.pp;
	out->offload_s = x->m * st.offload;
	/* Fill and drain: (p-1)/v micro-batch slots [PIPE]. */
	out->bubble_s = (x->p - 1) / x->v * t_mb;
	out->dp_comm_s = x->l->fsdp
	                 ? x->m * estimate_fsdp_exposed_s(x, heavy->dense,
	                                                  heavy->expert, t_mb)
	                 : estimate_dp_exposed_s(x, heavy->dense,
	                                         heavy->expert, t_mb);
	out->step_s = x->m * t_mb + out->bubble_s + out->dp_comm_s +
	              estimate_optimizer_step_s(x, heavy);
	out->bubble_ratio = out->bubble_s / out->step_s;
}

