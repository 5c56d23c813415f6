/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate-moe-time.c - what an MoE layer adds to the step time besides
 * its GEMMs: the token dispatcher's communication (alltoall, allgather or
 * flex), the part of it the EP all-to-all overlap leaves exposed, and
 * the memory-bound router and permutation kernels.  Each is one layer
 * and one micro-batch, weighted by the share of MoE layers (moe_frac).
 *
 * Sources: [MLM] Megatron-LM at d98e8a6 (2026-08-22):
 * megatron/core/transformer/moe/token_dispatcher.py, fused_a2a.py,
 * transformer_config.py.  The calibration's moe_dispatch_eff divides
 * every dispatcher's communication as it did the all-to-all's.
 */
#include "autoconfig.h"

#include <math.h>

#include "estimate-int.h"

/* Tokens one GPU routes per micro-batch: sequence parallelism splits a
 * tp group's tokens (Megatron-LM requires it with MoE and tp > 1). */
double
estimate_moe_tokens_in(const struct est *x)
{
	return x->seq_local * x->b / x->t;
}

/*
 * Distinct holders, of `holders` that share E experts evenly, that one
 * token's k experts land on, routing uniform: holders (1 - P(none on a
 * given one)), P = C(E - E/holders, k) / C(E, k).  Qwen3-30B-A3B (E
 * 128, k 8) over ep 8: 5.3 GPUs for 8 copies.
 */
/* Top-k above which P comes from lgamma: the product's loop took 16M
 * divisions an estimate at moe_router_topk = 2^24 (minutes per plan). */
#define RANKS_LOOP_MAX 1024

static double
distinct_holders(double E, double topk, double holders)
{
	double k = fmin(topk, E), off = E - E / holders, p = 1;

	if (holders <= 1)
		return 1;
	if ((int)k > RANKS_LOOP_MAX) {
		k = (int)k;
		/* A factor off - i is 0 or less: no holder is left out. */
		if (off <= k - 1)
			return holders;
		p = exp(lgamma(off + 1) - lgamma(off - k + 1) -
		        lgamma(E + 1) + lgamma(E - k + 1));
		return holders * (1 - p);
	}
	/* The product, bit for bit what it always was for usual top-k;
	 * once 0 (or underflowed to it) it stays 0. */
	for (int i = 0; i < (int)k && p > 0; i++)
		p *= fmax(0, off - i) / (E - i);
	return holders * (1 - p);
}

double
estimate_moe_ranks_per_token(const struct est *x)
{
	return distinct_holders(x->s.E, x->s.k, x->e);
}

/*
 * A forwarding dispatch or combine of flex (DeepEP's internode kernels)
 * and hybridep, one transfer: a token
 * crosses the network once to each other node that holds one of its
 * experts, to the GPU of its own local index there, which forwards it
 * over NVLink to the GPUs of that node that need it (the token's
 * SourceMeta names its RDMA rank and a bit per NVLink peer [DeepEP
 * csrc/kernels/internode.cu at 567632dd59; its README, "Normal kernels
 * with NVLink and RDMA forwarding"]; the DeepSeek-V3 report, arXiv
 * 2412.19437, section 3.2.2).  Each GPU's NIC carries a copy per other
 * node, and its NVLink the copies for every GPU but itself.  HybridEP
 * (hybridep) crosses NVLink domains the same way: "Similar to DeepEP,
 * Hybrid-EP first performs IB communication between peer GPUs, then
 * each rank distributes the received inter-node data locally", with a
 * buffer of a token per other domain [DeepEP hybrid-ep branch at
 * 94a9f8f, docs/Hybrid-EP_Implementation.md; RDMA since #494,
 * 2025-11-18].
 */
static double
forwarding_a2a_s(const struct est *x, double copy, double n)
{
	double nodes = estimate_group_nodes(x, n);
	double nvl = copy * estimate_moe_ranks_per_token(x) * (n - 1) / n;
	double nic = copy * distinct_holders(x->s.E, x->s.k, nodes) *
	             (nodes - 1) / nodes;

	return estimate_a2a_nodes_s(x, nic, nvl, n);
}

/*
 * Communication of one MoE layer and micro-batch, forward and backward
 * (dispatch and combine each way: four transfers of the same size):
 *   alltoall   each token's k copies over the ep group, (e-1)/e of them
 *              leaving the GPU, then an all-gather of the copies over
 *              etp [MLM MoEAlltoAllTokenDispatcher];
 *   allgather  every token of the etp x ep group gathered by every GPU
 *              of it, no top-k multiplier, and reduce-scattered back
 *              [MLM MoEAllGatherTokenDispatcher: "this allgather spans
 *              the communication domain of TP*EP"];
 *   flex       DeepEP sends a token once to each GPU that holds one of
 *              its experts (get_dispatch_layout's is_token_in_rank [MLM
 *              fused_a2a.py]), over the etp x ep group with the experts
 *              replicated etp times.  In 16 bits even for FP8 recipes:
 *              "HybridEP dispatcher does not support fp8 dispatch now"
 *              and DeepEP's is passed fp8_dispatch False [MLM
 *              fused_a2a.py]; only the ncclep backend quantises (mxfp8,
 *              moe_dispatch_fwd_dtype), which paratune does not render;
 *   hybridep   the same tokens as flex, after an all-gather of the
 *              routing map that starts each forward dispatch: a byte
 *              per token and expert from every rank of the group
 *              (deepseek-ai/DeepEP csrc/hybrid_ep/executor/executor.cu,
 *              allgather_routing_map), so the group's tokens times the
 *              experts, 134 MB at ep 64 for GPT-OSS 120B's 16,384-token
 *              micro-batches; combine and the backward reuse its handle.
 * Dropless imbalance scales the busiest GPU's share of the tokens (not
 * the routing map, the same size on every GPU).  The expert group
 * is a run of consecutive ranks, etp innermost, then ep [MLM
 * parallel_state.py]: on NVLink inside a domain, a rack-scale one
 * included (estimate_group_bw).
 */
/* The routing map a hybridep dispatch gathers first, in seconds. */
static double
routing_map_s(const struct est *x, double n)
{
	if (x->l->moe_dispatcher != MOE_DISPATCH_HYBRIDEP)
		return 0;
	return estimate_moe_tokens_in(x) * x->s.E * (n - 1) /
	       estimate_group_bw(x, n, 1);
}

double
estimate_moe_comm_s(const struct est *x)
{
	double row = x->act_bytes * x->s.h * estimate_moe_tokens_in(x);
	double n = x->te * x->e;
	double bytes_s;

	if (n <= 1)
		return 0;
	switch (x->l->moe_dispatcher) {
	case MOE_DISPATCH_ALLGATHER:
		bytes_s = row * (n - 1) / estimate_group_bw(x, n, 1);
		break;
	case MOE_DISPATCH_FLEX:
	case MOE_DISPATCH_HYBRIDEP:
		bytes_s = forwarding_a2a_s(x, row * x->te, n);
		break;
	default:
		bytes_s = estimate_a2a_s(x, row * x->s.k * (x->e - 1) / x->e,
		                         x->e, x->te);
		if (x->te > 1)
			bytes_s += row * x->s.k * (x->te - 1) /
			           estimate_group_bw(x, x->te, 1);
		break;
	}
	return (4 * bytes_s * estimate_moe_imbalance(x) +
	        routing_map_s(x, n)) * x->moe_frac /
	       x->k[CAL_MOE_DISPATCH_EFF];
}

/*
 * The EP all-to-all overlap (--overlap-moe-expert-parallel-comm) runs
 * one micro-batch's forward and another's backward as one schedule,
 * "merging FWD-BWD passes of adjacent microbatches" [MLM moe/README.md]:
 * the forward's dispatch and combine (half of comm) run under the other
 * micro-batch's backward (two thirds of the layer's compute), the
 * backward's under the forward (one third); --delay-wgrad-compute
 * moves the weight-gradient GEMMs behind the backward combine, which is
 * what leaves the backward's compute there to hide behind.  The first
 * forward and the last backward of a step have no partner: one
 * micro-batch of m keeps all of its communication.
 */
double
estimate_moe_exposed_s(const struct est *x, double comm, double compute)
{
	double paired;

	if (!x->l->moe_a2a_overlap || x->m <= 1)
		return comm;
	paired = fmax(0, comm / 2 - compute * 2 / 3) +
	         fmax(0, comm / 2 - compute / 3);
	return ((x->m - 1) * paired + comm) / x->m;
}

/*
 * Memory-bound MoE kernels of one layer and micro-batch, forward and
 * backward alike, at HBM speed:
 *   router     16-bit logits and fp32 probabilities of the E experts
 *              per token, written forward and read backward;
 *   alltoall   the permutation of the k copies before the all-to-all
 *              (read the tokens, write the copies), the sort of the
 *              received chunks by local expert and its inverse after
 *              (read and write the copies, twice), the unpermutation
 *              back (read the copies, write the tokens) [MLM
 *              MoEAlltoAllTokenDispatcher: permute, sort_chunks_by_idxs];
 *   allgather  a masked permutation that reads all n gathered tokens to
 *              pick the local experts' copies, and the scatter back
 *              [MLM MoEAllGatherTokenDispatcher, global_local_map];
 *   flex       DeepEP receives the tokens grouped by GPU; only the
 *              permutation to local experts and its inverse remain;
 *   hybridep   fuses even those into the dispatch and combine
 *              (Megatron-LM's moe_permute_fusion_into_hybridep, which
 *              NVIDIA's recipes leave on): none remain.
 */
double
estimate_moe_kernels_s(const struct est *x)
{
	double tok = estimate_moe_tokens_in(x);
	double copies = estimate_moe_token_copies(x);
	double row = x->act_bytes * x->s.h, n = x->te * x->e, bytes;

	switch (x->l->moe_dispatcher) {
	case MOE_DISPATCH_ALLGATHER:
		bytes = row * (2 * n * tok + 2 * copies);
		break;
	case MOE_DISPATCH_FLEX:
		bytes = row * 4 * copies;
		break;
	case MOE_DISPATCH_HYBRIDEP:
		bytes = 0;
		break;
	default:
		bytes = row * (2 * tok * (1 + x->s.k) + 4 * copies);
		break;
	}
	bytes += tok * x->s.E * (x->act_bytes + 4);
	return 2 * bytes * x->moe_frac / estimate_hbm_bytes_per_s(x->w->gpu);
}

/*
 * What a hybridep dispatch waits before its tokens move, once a layer
 * and micro-batch: the scan of the gathered routing map into each
 * token's destinations and the sizing of its buffers, a device query
 * and, when they grow, a reallocation ("sizes buffers dynamically (CPU
 * sync in dispatch)" [MLM token_dispatcher.py]).  A fixed budget per
 * expert rank, which the full-iteration graph renders, pre-sizes them,
 * "avoiding a per-step device query / realloc loop for buffer sizing"
 * (Megatron-LM's "MoE Paged Stash" guide).  Nothing public measures it
 * apart.  NVIDIA measured its effect in one build: GPT-OSS 120B on 64
 * GB200 ran 4.2 % faster on alltoall than on hybridep, its small
 * experts "leaving HybridEP's setup overhead unamortized"
 * (Megatron-Bridge pull request #3561, 2026-04-28).  hybridep_token_s
 * of the calibration is set from those pairs (bench/fit-hybridep: 70 ns
 * a token, 1.15 ms for GPT-OSS's micro-batches of 16,384 tokens).
 *
 * Per-layer CUDA graphs do not hide it, even with the moe_preprocess
 * scope: MoELayer.preprocess() only hands the routing map and
 * probabilities to the dispatcher (setup_metadata stores and reshapes
 * them), and the gather, scan and sizing run inside hybrid_ep_dispatch,
 * in the dispatch that stays eager [MLM token_dispatcher.py,
 * _HybridEPManager; transformer_config.py, cuda_graph_modules].
 *
 * Taken in proportion to the tokens the GPU routes, as the scan's work
 * is, rather than as a time per dispatch: the form is a choice made on
 * the published runs (bench/calibration, 2026-11-29, everything else
 * refitted), where a time per dispatch fitted to the same pairs left
 * the Qwen3 235B-A22B and DeepSeek-V3 runs (4,096 and 8,192 tokens a
 * micro-batch) slower still than they are predicted: MoE error of the
 * built-in constants 16.5 against 15.9 %, per GPU cross-validated
 * 18.9 against 18.0 %, the ranking alike.
 */
double
estimate_moe_setup_s(const struct est *x)
{
	if (x->l->moe_dispatcher != MOE_DISPATCH_HYBRIDEP ||
	    layout_full_iteration_graph(x->l))
		return 0;
	return x->k[CAL_HYBRIDEP_TOKEN_S] * estimate_moe_tokens_in(x) *
	       x->moe_frac;
}
