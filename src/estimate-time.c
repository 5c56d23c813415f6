/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate-time.c - the time of one layer and micro-batch of a layout:
 * compute at a calibrated efficiency, TP/CP/EP/PP communication over
 * the catalog's bandwidths (estimate-links.c; the MoE layer's own parts
 * are estimate-moe-time.c); estimate-pipeline.c builds the step from
 * it, stage by stage.
 * Sources are listed at the top of estimate.c and cited where each
 * figure is used.
 */
#include "autoconfig.h"

#include <math.h>

#include "estimate-int.h"

/* ---- step time ----------------------------------------------------------- */

/*
 * Efficiency constants [CAL]: the fitted ones are data (calibration.c,
 * x->k).  The values below are those they were hand-set with; the
 * shipped defaults are bench/fit-defaults' fit from them to the
 * published runs (calibration-defaults.h says which it fits,
 * bench/fit-defaults why it keeps the others hand-set), and a site's
 * `paratune calibrate` fit replaces them.  Large BF16 GEMMs in
 * cuBLAS/Transformer Engine were taken to reach about 75 % of the
 * H100's dense peak (gemm_eff_max 0.75: a hand-set guess, no
 * measurement cited; the fit moves it); narrow per-GPU GEMMs (small
 * h/tp) and short micro-batches lose more to tile quantisation and
 * kernel tails, modelled as saturating curves (gemm_tokens_half 192
 * tokens).  Fused (flash) attention runs at roughly half of peak over
 * forward and backward (FlashAttention-2 paper, Dao 2023, arXiv
 * 2307.08691: 50-73 % of A100 peak forward, lower backward;
 * attn_eff_flash 0.45); unfused attention far less.  FP8 GEMMs run at
 * the FP8 peak with the BF16 efficiency times fp8_gemm_eff for the
 * per-tensor recipes (delayed, tensorwise) and fp8_block_gemm_eff for
 * the block-scaled ones (mxfp8, blockwise): both hand-set 1.0, shipped
 * fitted, the published FP8 runs being slower; the recipes also differ
 * in the casting of the GEMM inputs (fp8_cast_s).
 */
#define GEMM_WIDTH_HALF 96.0     /* per-GPU columns at which eff halves */
#define ATTN_EFF_UNFUSED 0.20
/*
 * attn_eff_flash is that of heads of 128 (Llama, Qwen3, most of the
 * published runs).  Narrower heads do less matrix work per element of
 * the softmax and per tile loaded: FlashAttention-3's BF16 forward on
 * H100 reaches about three quarters of its head-dim-128 rate with heads
 * of 64 (2024, arXiv 2407.08608, figure 5: 497 against 648 TFLOP/s at
 * 16k tokens), and no more than that rate with heads of 256.  Modelled
 * as d / (d + 64) relative to 128's, at most 1: 0.75 for GPT-OSS's
 * heads of 64, 0.9 for 96.
 */
#define ATTN_HEAD_HALF 64.0
#define ATTN_HEAD_REF 128.0
/*
 * Memory-bound work per token and layer (norms, residual adds,
 * activation functions, rotary embeddings, dropout, bias adds; forward
 * and backward), in bytes of HBM traffic per hidden and per FFN column.
 */
#define ELEMWISE_BYTES_PER_H 160.0
#define ELEMWISE_BYTES_PER_F 10.0
/* Launch and framework overhead per layer and micro-batch (eager
 * PyTorch without CUDA graphs issues ~40 kernels per layer):
 * layer_overhead_s of the calibration, hand-set at 150 us and shipped
 * so (bench/fit-defaults keeps it). */
/*
 * An MoE layer also waits on its host once a micro-batch: the token
 * dispatchers copy the tokens per expert to the host to size their
 * buffers and all-to-alls, and synchronize (alltoall: "A
 * synchronization is needed before expert parallel AlltoAll
 * communication to get the input_splits and output_splits CPU
 * values"; flex with HybridEP "sizes buffers dynamically (CPU sync in
 * dispatch)" [MLM token_dispatcher.py]), so the GPU drains, and then
 * runs the rest of the layer no faster than the host issues it.  Much
 * of that issue is per local expert: Transformer Engine's GroupedLinear
 * holds a weight per expert (weight0 ... weight{num_gemms - 1}) and
 * splits the tokens among them for one GEMM each (module/
 * grouped_linear.py, general_grouped_gemm over multi-stream cuBLAS
 * workspaces), forward and backward.  So the host's time
 * is moe_layer_overhead_s of the calibration per local expert (E / ep)
 * and micro-batch, and it overlaps the GPU's rather than adding to it:
 * a layer takes about the longer of the two, more where they are
 * close (the GPU idles after each synchronization until the host is
 * ahead again), taken as their cubic sum (gpu^3 + host^3)^(1/3): the
 * larger when one dominates, 26 % above either when they are equal.
 * The exponent is a choice among 2, 3 and 4 on the published runs
 * (bench/calibration, 2026-11-28, with everything else refitted): the
 * MoE error of the built-in constants 15.5, 15.2 and 15.4 %, per GPU
 * cross-validated 18.0, 17.1 and 17.2 % (the worst GPU 20.4, 19.6 and
 * 19.3 %); its one degree of freedom is fitted to those runs like the
 * constants are, and says no more than they do.
 *
 * The published runs (tests/data/measured) show both.  Qwen3 30B-A3B
 * on 8 B200 (ep 8, 16 local experts) takes 8.8 ms a layer and
 * micro-batch at mbs 1, where the estimate's GPU work is about 3 ms, and
 * 12.6 ms at mbs 4, where it is about 10.7 ms: a floor, not a sum.
 * Qwen3 235B-A22B on GB200 (ep 32, 4 local experts, mbs 1) takes what
 * the GPU work alone predicts.  A time added to every MoE layer (the
 * model until 2026-11-27, 3.0 ms fitted) left the first 30 % fast and
 * the second 40-50 % slow.  Nothing public measures the host's time
 * apart: it is fitted to the published MoE runs (bench/fit-defaults,
 * second stage, with moe_gemm_eff below); the full-iteration rows have
 * no host to wait on and do not pull on it.  DeepSeek-V3's runs (ep 8,
 * 32 local experts) come out slow with it, 11 % on B200 and 23 % on
 * B300 on average (bench/README.md): the host's time there grows less
 * than in proportion.
 */
/*
 * The routed experts' GEMMs run at moe_gemm_eff of a dense GEMM's
 * efficiency at their tokens and width, times a curve in the model's
 * hidden width (expert_width_efficiency, below): grouped GEMMs over many small
 * experts, and whatever else grows with the experts' work that the
 * estimate does not count apart (the permutations and the router are
 * counted, estimate-moe-time.c).  Hand-set 1; fitted with
 * moe_layer_overhead_s to the published MoE runs (bench/fit-defaults,
 * second stage): 0.37 on 2026-11-28, with the MoE error of the built-in
 * constants at 15.2 %, 15.8 % cross-validated (24.8 % with a host time
 * alone, 2026-11-26); 0.35 on 2026-11-29, once hybridep was costed apart
 * from flex and four runs of one build joined (15.9 %, 16.5 %); 0.41 at
 * width 4,096 on 2026-12-02, with the width curve (14.7 %, 16.1 %);
 * 0.42 on 2026-12-03, once tiles were charged their padding
 * (estimate-tiles.c: 13.5 %, 14.7 %); 0.41 on 2026-12-04, once the 23
 * runs with FP8 attention had it at the FP8 rate (12.6 %, 13.7 %).
 * One host time per layer did not fit both GPT-OSS 120B's 16,384-token
 * micro-batches and Qwen3 235B-A22B's 256 micro-batches of 4,096
 * (bench/README.md); a part in proportion to the experts' work does
 * most of that.
 */
/*
 * CUDA graphs replay a layer's kernels without the host [GUIDE: "CUDA
 * graph to eliminate repeated static host code execution"]; on MoE
 * layers they are "restricted to the dense modules only", so the
 * router, permutation and expert kernels, about half of such a layer's
 * launches, stay eager.  A graphed layer still costs the host its
 * graph launches, one forward and one backward: 2 of the ~40 launches
 * that layer_overhead_s prices.
 */
#define CUDA_GRAPH_MOE_EAGER 0.5
#define CUDA_GRAPH_LAUNCHES_LEFT (2.0 / 40)
/*
 * A full-iteration graph (cuda_graph_full_iteration) replays the whole
 * step, forward, backward and optimizer, without the host: no launch
 * overhead is left, and an MoE layer cannot wait on its host, since
 * the recipes that capture MoE models give each expert rank a fixed
 * token budget instead of copying the counts to the host (layout.c,
 * graphs_refused).  Whether the grouped GEMMs then run over those
 * budgets (1.5 times the balanced share) or over the tokens received is
 * not modelled: the latter is taken.  Published runs of one layout:
 * Qwen3 30B-A3B on 8 GB200, 6.4-6.6 s a step with the full-iteration
 * graph (26.06 to 26.08 containers) against 9.9-10.1 s with per-layer
 * graphs (26.02 to 26.04.01), the EP overlap on with the former only
 * (tests/data/measured).
 */
static double
launch_overhead_s(const struct est *x)
{
	const struct layout *l = x->l;
	double overhead = x->k[CAL_LAYER_OVERHEAD_S];

	if (layout_full_iteration_graph(l))
		return 0;
	if (l->cuda_graphs)
		overhead *= x->moe_frac * CUDA_GRAPH_MOE_EAGER +
		            (1 - x->moe_frac) * CUDA_GRAPH_LAUNCHES_LEFT;
	return overhead;
}

/* Two times that overlap, as the MoE layer's GPU and host times do
 * (above): their cubic sum. */
static double
overlap_sum(double a, double b)
{
	return cbrt(a * a * a + b * b * b);
}

/* A layer's compute time gpu_s with the MoE layer's host floor (above). */
static double
moe_host_floor(const struct est *x, double gpu_s)
{
	double local_experts = x->s.E / x->e;
	double host_s = x->moe_frac * local_experts *
	                x->k[CAL_MOE_LAYER_OVERHEAD_S];

	if (layout_full_iteration_graph(x->l) || !(host_s > 0))
		return gpu_s;
	return overlap_sum(gpu_s, host_s);
}
/*
 * The embedding's backward writes a dense vocabulary-by-hidden gradient
 * in 16 bits, which is then read and added into the fp32 main gradient
 * (read and write): 2 + 2 + 4 + 4 bytes per embedding parameter and
 * micro-batch of HBM traffic on the first stage.  It is what makes the
 * first stage heavy enough for account_for_embedding [GUIDE].
 */
#define EMB_GRAD_BYTES 12.0
/* Share of TP communication left exposed: without overlap all of it.
 * With tp_comm_overlap the all-gathers hide under their GEMMs and the
 * pipelined GEMM-then-reduce-scatter leaves "a 1x ReduceScatter chunk
 * exposed" of num_splits = 4 [GUIDE]: a quarter. */
#define TP_EXPOSED 1.0
#define TP_EXPOSED_OVERLAP 0.25
/*
 * Share of a linear layer's GEMM work that is left when its weight is
 * frozen: of the forward, input-gradient and weight-gradient GEMMs, 2 + 2
 * + 2 FLOPs per weight and token [FLOP], the weight gradient goes (LoRA
 * computes no gradient for the frozen weights, Hu et al. 2021, arXiv
 * 2106.09685, section 4.2; Transformer Engine's linear modules skip the
 * wgrad GEMM of a weight without requires_grad).  The adapters' own
 * GEMMs, of rank r against h, are not counted.
 */
static double
frozen_gemm_share(const struct est *x)
{
	return x->w->peft_lora ? 4.0 / 6 : 1;
}

/* The saturating curve of GEMM efficiency in the tokens of one GEMM. */
static double
tokens_efficiency(const struct est *x, double tokens)
{
	return tokens / (tokens + x->k[CAL_GEMM_TOKENS_HALF]);
}

/*
 * Whether recipe r scales FP8 by blocks (MXFP8's 1x32, blockwise's
 * 1x128 and 128x128), which GEMMs consume through block-scaled
 * instructions or per-block rescaling, rather than by tensor: the
 * recipes run at different shares of the FP8 peak (the published
 * Blackwell runs of one campaign and release are 0.9-26 % faster per
 * sample with current scaling than with MXFP8, 2-7 % where the layout
 * is the same too; bench/calibration's ranking within one release), so
 * each family has its own efficiency: fp8_gemm_eff and
 * fp8_block_gemm_eff.
 */
static bool
fp8_block_scaled(enum fp8_recipe r)
{
	return r == FP8_MXFP8 || r == FP8_BLOCKWISE;
}

/*
 * Whether the linear layers' GEMMs run in a low-precision format: FP8, or
 * NVFP4 (fprop, dgrad and wgrad alike, Transformer Engine's
 * NVFP4BlockScaling).  NVFP4 takes fp4_gemm_eff of its own: its kernels
 * (and the Hadamard transform and stochastic rounding around them)
 * differ from FP8's, and the published NVFP4 runs fit it apart.
 */
static bool
low_precision(enum precision p)
{
	return p == PREC_FP8 || p == PREC_FP4;
}

/* A GEMM's share of the 16-bit peak, by its width and tokens. */
static double
bf16_gemm_efficiency(const struct est *x)
{
	double width = x->s.h / x->t;
	double tokens = x->seq_local * x->b;

	return x->k[CAL_GEMM_EFF_MAX] * width / (width + GEMM_WIDTH_HALF) *
	       tokens_efficiency(x, tokens);
}

/* The precision's (and FP8 recipe's) efficiency over BF16's. */
static double
low_precision_gain(const struct est *x)
{
	switch (x->w->precision) {
	case PREC_FP4:
		return x->k[CAL_FP4_GEMM_EFF];
	case PREC_FP8:
		return x->k[fp8_block_scaled(x->l->fp8_recipe)
		            ? CAL_FP8_BLOCK_GEMM_EFF : CAL_FP8_GEMM_EFF];
	default:
		return 1;
	}
}

/* A layer GEMM's share of the peak its precision runs at. */
static double
gemm_efficiency(const struct est *x)
{
	return bf16_gemm_efficiency(x) * low_precision_gain(x);
}

/*
 * FP8 GEMMs read FP8 inputs, which someone has to write: each linear
 * layer's input forward and its output gradient backward are cast from
 * 16 bits, with a transposed copy for the other GEMM of the backward
 * pass (Transformer Engine's cast-transpose kernels on Hopper; MXFP8
 * writes row- and column-wise copies on Blackwell): 2 bytes read and
 * 1 + 1 written per element, at HBM speed.  Current (tensorwise)
 * scaling reads the tensor once more for its amax before the cast;
 * delayed scaling takes its scale from the amax history and fuses the
 * new amax into the cast; block scaling adds one scale per block (1x128
 * for blockwise, 1x32 for MXFP8, in both copies).  Blackwell's FP8
 * GEMMs take per-tensor-scaled operands in any layout, so delayed and
 * current scaling write no transposed copy there (Transformer Engine's
 * is_non_tn_fp8_gemm_supported(), gpu_fp8_any_layout(); a
 * block-scaled copy cannot be transposed, its blocks run along the
 * other axis).  Weights are cast once a step (Transformer
 * Engine caches them over the micro-batches) and not counted.
 */
static double
fp8_cast_bytes_per_element(enum fp8_recipe r, bool any_layout)
{
	double transposed = any_layout ? 0 : 1;

	switch (r) {
	case FP8_TENSORWISE: return 5.0 + transposed;
	case FP8_BLOCKWISE: return 4.0 + 2.0 * 4 / 128;
	case FP8_MXFP8: return 4.0 + 2.0 / 32;
	case FP8_DELAYED: break;
	}
	return 3.0 + transposed;
}

/*
 * NVFP4 (Transformer Engine's NVFP4BlockScaling, arXiv 2509.25149): each
 * GEMM input is read once for its per-tensor amax (the FP32 second-level
 * scale must be known before the cast), then read again and written
 * row-wise and column-wise (the wgrad copy after the random Hadamard
 * transform, fused into the cast), 0.5 byte an element each with one
 * E4M3 scale byte per 16: 2 + 2 + 2 x (0.5 + 1/16) bytes.
 */
static double
fp4_cast_bytes_per_element(void)
{
	return 2.0 + 2.0 + 2 * FP4_BYTES;
}

/* Elements per token one layer casts on a tp rank: input and output
 * gradient of QKV, the attention projection and the two MLP GEMMs (the
 * routed experts' for each of the k copies of a token, and a shared
 * expert's). */
static double
fp8_cast_elements(const struct est *x)
{
	const struct shape *s = &x->s;
	double attn = (s->h + s->q + 2 * s->kvd) + (s->q + s->h);
	double out = s->gated > 1 ? 2 : 1; /* fc1's output columns per f */
	double dense = (s->h + out * s->f) + (s->f + s->h);
	double moe = s->k * ((s->h + out * s->fe) + (s->fe + s->h));

	if (s->shared_f > 0)
		moe += (s->h + out * s->shared_f) + (s->shared_f + s->h);
	return (attn + (1 - x->moe_frac) * dense + x->moe_frac * moe) / x->t;
}

/* Peak FLOP/s of the GEMMs: FP8 runs them at the FP8 rate, FP4 at the
 * NVFP4 rate; attention and the rest stay in BF16. */
static double
peak_flops(const struct est *x, bool gemm)
{
	const struct gpu *g = x->w->gpu;
	enum precision p = x->w->precision;

	if (!gemm && low_precision(p))
		p = PREC_BF16;
	return g->peak_tflops[p] * 1e12;
}

/*
 * The routed experts' grouped GEMMs gain on wider models: their share
 * of a dense GEMM's efficiency goes as h / (h + MOE_WIDTH_HALF), taken
 * relative to its value at h = MOE_WIDTH_REF, where moe_gemm_eff
 * applies as it is (so its bounds and meaning stay).  A GEMM's tile
 * pays a fixed epilogue against a main loop as long as its reduction
 * dimension, which is h for the first expert GEMM forward and the
 * second's input gradient; the dense layers' per-GPU width (h/tp,
 * GEMM_WIDTH_HALF 96) barely moves above 2,048.  The form and its
 * half-width were chosen on the published MoE runs (bench/calibration,
 * 2026-12-02, every constant refitted each time; MoE k-fold error over
 * all GPUs, then the median signed error of DeepSeek-V3, GPT-OSS 120B,
 * Qwen3 235B-A22B and Qwen3 30B-A3B): one factor for every model 20.4 %
 * (+29.5, -21.3, +15.1, +5.6 %); half-widths of 2,048 17.5 % (+16.8,
 * -17.1, +13.1, +16.8), 3,000 16.9 %, 4,000 16.6 %, 8,192 15.9 % (+6.4,
 * -14.3, +9.9, +26.8), 16,384 15.8 %, 64,000 16.3 %; the experts' FFN
 * width fe in place of h 25-28 %, their geometric mean 22 %; an HBM
 * cost per routed copy and FFN column instead of the curve 19.6-20.2 %.
 * The wider the half, the better DeepSeek-V3 and the worse Qwen3
 * 30B-A3B (h 2,048): 2,048 is taken, where no model's median is
 * beyond 17.1 %, not the lowest error over all.  What DeepSeek-V3 still asks
 * beyond it may be software its runs name and the estimate does not
 * model (fused grouped MLP kernels, FP8 attention; the rows' notes).
 */
#define MOE_WIDTH_HALF 2048.0
#define MOE_WIDTH_REF 4096.0

static double
expert_width_efficiency(const struct est *x)
{
	double h = x->s.h;

	return h / (h + MOE_WIDTH_HALF) /
	       (MOE_WIDTH_REF / (MOE_WIDTH_REF + MOE_WIDTH_HALF));
}

/*
 * GEMM time of one layer.  The experts' GEMMs run on the tokens each
 * local expert receives, not on the micro-batch's: the copies a GPU
 * holds (k of each of the tp group's tokens, gathered over etp) over
 * its E/e experts; the token curve is taken there instead of at the
 * dense layers' s*b (a grouped GEMM is one kernel, but each expert's
 * rows are their own M dimension [MLM experts.py TEGroupedMLP]).
 * Without grouped GEMM each local expert runs its own GEMMs, which the
 * curve makes slower again by the ratio of k*s*b to its share
 * [GUIDE: "enabling grouped GEMM can significantly improve computation
 * efficiency"].  Widths that fill no whole tile pay for its padding
 * (estimate-tiles.c).
 */
static double
layer_gemm_s(const struct est *x, const struct flop_parts *fp,
             double tokens)
{
	double per_flop = tokens / x->s.L /
	                  (peak_flops(x, true) * gemm_efficiency(x));
	double sb = x->seq_local * x->b, sbk = sb * x->s.k, slowdown = 1;
	double per_expert = sbk * x->te / x->t * x->e / x->s.E;

	if (fp->experts > 0)
		slowdown = tokens_efficiency(x, sb) /
		           (tokens_efficiency(x, per_expert) *
		            x->k[CAL_MOE_GEMM_EFF] *
		            expert_width_efficiency(x));
	if (!x->l->moe_grouped_gemm && fp->experts > 0)
		slowdown *= tokens_efficiency(x, sbk) /
		            tokens_efficiency(x, sbk * x->e / x->s.E);
	/* The busiest GPU's experts set the pace of every layer. */
	return ((fp->layers - fp->experts) * estimate_dense_tile_slowdown(x) +
	        fp->experts * slowdown * estimate_moe_imbalance(x) *
	        estimate_expert_tile_slowdown(x)) * per_flop *
	       frozen_gemm_share(x);
}

/*
 * Forward FLOPs per token, all layers, of the GEMMs that recompute
 * modules re-run: the dense MLPs (mlp), the routed and shared experts
 * (moe), the shared experts (shared_experts), MLA's up projections
 * (mla_up_proj) [MLM transformer_config.py recompute_modules].
 */
static double
module_gemm_flops(const struct est *x)
{
	const struct shape *s = &x->s;
	const struct model *m = x->w->model;
	double phi = 2 * s->gated, fl = 0;
	double shared = 2 * s->h * phi * s->shared_f * s->Lmoe;

	if (x->modules & RCM_BIT(RCM_MLP))
		fl += 2 * s->h * phi * s->f * s->Ldense;
	if (x->modules & RCM_BIT(RCM_MOE))
		fl += x->fp.experts / 3 + shared;
	else if (x->modules & RCM_BIT(RCM_SHARED_EXPERTS))
		fl += shared;
	if ((x->modules & RCM_BIT(RCM_MLA_UP_PROJ)) && m->kv_lora_rank > 0)
		fl += 2 * s->L * m->num_attention_heads *
		      (m->q_lora_rank * (m->qk_head_dim +
		                         m->qk_pos_emb_head_dim) +
		       m->kv_lora_rank * (m->qk_head_dim + m->v_head_dim));
	return fl;
}

/*
 * The share of attention's time that its forward takes, which selective
 * recompute's core_attn module runs again in the backward: Megatron-LM
 * checkpoints the core attention whatever its kernel, fused included
 * (Attention._checkpointed_attention_forward, taken whenever
 * recompute_granularity is selective with core_attn [MLM
 * transformer/attention.py]).  Unfused, a third of forward and
 * backward; fused, 2/7: a flash-attention backward recomputes the
 * scores and takes 2.5 times the forward's FLOPs, as FlashAttention's
 * own benchmarks count it (Dao-AILab/flash-attention
 * benchmarks/benchmark_flash_attention.py, flops(): bwd 2.5 f, fwd_bwd
 * 3.5 f), so the forward is 1 of 3.5.
 */
/* Public: see estimate-int.h. */
double
estimate_attention_forward_share(const struct layout *l)
{
	return l->attention == ATTN_FLASH ? 1 / 3.5 : 1 / 3.0;
}

/*
 * What torchtitan's per-op selective checkpointing re-runs of a layer
 * and micro-batch: the second, fourth and sixth matmuls, wk, wo and w3
 * (the gate's other half; none without a gated MLP), whose outputs it
 * does not keep (estimate-memory.c, titan_sac_activations); the elementwise
 * work they feed is charged with the layer's.
 */
static double
titan_sac_recompute_s(const struct est *x, double tokens)
{
	const struct shape *s = &x->s;
	double flops = 2 * s->h * (s->kvd + s->q) +
	               (s->gated > 1 ? 2 * s->h * s->f * (1 - x->moe_frac) : 0);

	return tokens * flops / (peak_flops(x, true) * gemm_efficiency(x));
}

/*
 * What selective recompute's modules re-run per layer and micro-batch:
 * their GEMMs at the layer's efficiency, the MoE layer's dispatch and
 * combine forward (half its all-to-alls), and the memory-bound norms
 * (layernorm) and expert activations (moe_act) at HBM speed.
 */
static double
layer_modules_s(const struct est *x, const struct layer_time *lt,
                double tokens)
{
	double sb = x->seq_local * x->b;
	double hbm = estimate_hbm_bytes_per_s(x->w->gpu);
	double ab = x->act_bytes, t = 0;
	double copies = estimate_moe_token_copies(x);

	if (x->titan_sac)
		return titan_sac_recompute_s(x, tokens);
	if (!x->modules)
		return 0;
	t += tokens * module_gemm_flops(x) / x->s.L /
	     (peak_flops(x, true) * gemm_efficiency(x));
	if (x->modules & RCM_BIT(RCM_MOE))
		t += lt->ep / 2;
	if (x->modules & RCM_BIT(RCM_LAYERNORM))
		t += 2 * 2 * ab * sb * x->s.h /
		     (x->l->sequence_parallel ? x->t : 1) / hbm;
	if (x->modules & RCM_BIT(RCM_MOE_ACT))
		t += x->moe_frac * copies * x->s.fe / x->te * 3 * ab / hbm;
	return t;
}

/*
 * Peak FLOP/s of attention's two batched GEMMs (scores and their
 * product with V, forward and backward): the BF16 rate, or the FP8 rate
 * with fp8_dot_product_attention, where Transformer Engine's fused
 * (cuDNN) kernel takes Q, K, V and the output gradient in FP8.  It is
 * modelled as the BF16 kernel at the FP8 rate, attn_eff_flash kept;
 * its casts of Q, K, V and the output gradient are not counted (a few
 * bytes per element of the layer's activations, against work that
 * grows with the sequence), nor the FP8 copies it saves for backward in
 * the memory estimate (counted at BF16's size, the safe side).
 */
static double
attention_peak_flops(const struct est *x)
{
	if (x->w->precision == PREC_FP8 && x->l->fp8_dot_product_attention)
		return x->w->gpu->peak_tflops[PREC_FP8] * 1e12;
	return peak_flops(x, false);
}

/* Fused attention's efficiency at the model's head width. */
static double
flash_head_efficiency(const struct est *x)
{
	double d = x->s.head_w;

	return fmin(1, d / (d + ATTN_HEAD_HALF) /
	               (ATTN_HEAD_REF / (ATTN_HEAD_REF + ATTN_HEAD_HALF)));
}

/*
 * FFN columns per token of the micro-batch whose activation function
 * (and its bias and gating) one GPU runs in a layer: the dense MLP's f
 * over tp; on an MoE layer each routed copy's fe over etp, for the
 * copies its local experts receive (k a token, balanced), and the
 * shared experts' over tp.  Qwen3's f is k x fe, so its MoE layers
 * come out as before; GPT-OSS's f is fe, a quarter of its k = 4 copies.
 */
static double
ffn_columns(const struct est *x)
{
	double sb = x->seq_local * x->b;
	double moe = estimate_moe_token_copies(x) / sb * x->s.fe / x->te +
	             x->s.shared_f / x->t;

	return (1 - x->moe_frac) * x->s.f / x->t + x->moe_frac * moe;
}

/* Compute of one layer and one micro-batch, the logits and the
 * embedding gradient. */
static void
layer_compute(const struct est *x, struct layer_time *lt)
{
	const struct layout *l = x->l;
	const struct flop_parts *fp = &x->fp;
	double tokens = x->b * x->w->seq_length / (x->t * x->c);
	double sb = x->seq_local * x->b;
	double hbm = estimate_hbm_bytes_per_s(x->w->gpu);
	double elem;
	double attn_eff = l->attention == ATTN_FLASH
	                  ? x->k[CAL_ATTN_EFF_FLASH] * flash_head_efficiency(x)
	                  : ATTN_EFF_UNFUSED;

	lt->attn = tokens * fp->scores_kernel / x->s.L /
	           (attention_peak_flops(x) * attn_eff);
	elem = sb * (ELEMWISE_BYTES_PER_H * x->s.h /
	             (l->sequence_parallel ? x->t : 1) +
	             ELEMWISE_BYTES_PER_F * ffn_columns(x) * x->s.gated) / hbm;
	lt->fp8_cast = 0;
	if (x->w->precision == PREC_FP8)
		lt->fp8_cast = sb * fp8_cast_elements(x) *
		               fp8_cast_bytes_per_element(l->fp8_recipe,
		                   gpu_fp8_any_layout(x->w->gpu)) / hbm;
	if (x->w->precision == PREC_FP4)
		lt->fp8_cast = sb * fp8_cast_elements(x) *
		               fp4_cast_bytes_per_element() / hbm;
	lt->gemm = layer_gemm_s(x, fp, tokens);
	lt->compute = moe_host_floor(x, lt->gemm +
	                                lt->attn + elem + lt->fp8_cast +
	                                launch_overhead_s(x) +
	                                estimate_moe_kernels_s(x) +
	                                estimate_moe_setup_s(x));
	/* Megatron-LM quantizes inside the transformer layers only
	 * (get_fp4_context per layer [MLM fp4_utils.py]): under FP4 the
	 * output layer runs in BF16, at the BF16 rate and efficiency. */
	if (x->w->precision == PREC_FP4)
		lt->logits = tokens * fp->logits /
		             (peak_flops(x, false) * bf16_gemm_efficiency(x));
	else
		lt->logits = tokens * fp->logits /
		             (peak_flops(x, true) * gemm_efficiency(x));
	lt->logits *= frozen_gemm_share(x);
	/* A frozen embedding (LoRA) writes no gradient. */
	lt->embedding = x->w->peft_lora ? 0
	                : EMB_GRAD_BYTES * x->s.V * x->s.h / x->t / hbm;
}

/*
 * Context-parallel communication of one layer, what attention does not
 * hide [GUIDE, "cp_comm_type"]: p2p passes K and V around a ring, c-1
 * steps forward and K, V and their gradients backward, hidden behind
 * attention; all_gather gathers K and V before attention and
 * reduce-scatters their gradients, exposed; a2a (Ulysses) exchanges Q,
 * K, V and the output forward and their gradients backward, exposed;
 * a2a+p2p runs a2a inside a node and the ring across.  KV heads are
 * split over tp (one replicated head at least).
 */
static double
layer_cp_comm(const struct est *x, double attn)
{
	const struct layout *l = x->l;
	double ab = x->act_bytes, sb = x->seq_local * x->b, c = x->c;
	double kv = fmax(x->s.kvd / x->t, x->s.dk), qkvo, ring, a2a = 0;
	double c1 = 1, inner;

	if (c <= 1)
		return 0;
	qkvo = ab * sb * (2 * x->s.q / x->t + 2 * kv);
	switch (l->cp_comm) {
	case CP_COMM_ALL_GATHER:
		return 2 * (c - 1) * 2 * ab * sb * kv /
		       estimate_group_bw(x, x->t * c, x->t);
	case CP_COMM_A2A:
		return 2 * (c - 1) / c * qkvo /
		       estimate_group_bw(x, x->t * c, x->t);
	case CP_COMM_A2A_P2P:
		c1 = layout_cp_a2a_size(x->w, l);
		a2a = 2 * (c1 - 1) / c1 * qkvo /
		      estimate_group_bw(x, x->t * c1, x->t);
		break;
	default:
		break;
	}
	inner = c / c1;
	ring = 3 * (inner - 1) * 2 * ab * sb * kv /
	       estimate_group_bw(x, x->t * c, x->t * c1);
	return a2a + fmax(0, ring - attn);
}

/*
 * Bandwidth of the pipeline's send and receive.  Stages are the
 * outermost ranks, t*c*d apart; the slowest boundary sets the pace of
 * every stage, and one of them leaves the NVLink domain unless the
 * whole pipeline group, the job, fits in one (a node, or an NVL72 rack).
 * Across domains each GPU sends to its peer over its own NIC: a pair,
 * not a collective's k members a node (stride at least what NCCL sees
 * as a node).
 */
static double
pp_bw(const struct est *x)
{
	double tcd = x->t * x->c * x->d;

	return estimate_group_bw(x, tcd * x->p,
	                         fmax(tcd, estimate_nccl_node_gpus(x)));
}

/* Communication of one layer and one micro-batch [PIPE]. */
static void
layer_comm(const struct est *x, struct layer_time *lt)
{
	const struct layout *l = x->l;
	double ab = x->act_bytes, sb = x->seq_local * x->b, copy;

	/* TP: one all-reduce of the layer's activations (reduce-scatter
	 * + all-gather under sequence parallel move the same bytes);
	 * estimate_tp_collectives_fwd() says how many a layer runs. */
	lt->tp_ar = (l->tp_comm_overlap ? TP_EXPOSED_OVERLAP : TP_EXPOSED) *
	            estimate_allreduce_s(ab * sb * x->s.h, x->t,
	                        estimate_group_bw(x, x->t, 1));
	lt->cp = layer_cp_comm(x, lt->attn);
	/* EP: the token dispatcher's transfers, what the all-to-all
	 * overlap leaves of them (estimate-moe-time.c). */
	lt->ep = estimate_moe_exposed_s(x, estimate_moe_comm_s(x),
	                                lt->compute);
	/* PP: activations forward and gradients backward per boundary;
	 * interleaving crosses v times as many boundaries. */
	lt->pp = x->p > 1 ? 2 * x->v * ab * sb * x->s.h /
	                        (l->sequence_parallel ? x->t : 1) /
	                        pp_bw(x)
	                  : 0;
	/* An offloaded layer's activations go out during its forward,
	 * overlapped with the next layer's forward (a third of the work),
	 * and come back during the backward (two thirds). */
	lt->offload = 0;
	if (l->offload_layers > 0) {
		copy = x->a_full / estimate_host_bytes_per_s(x->w->gpu);
		lt->offload = fmax(0, copy - lt->compute / 3) +
		              fmax(0, copy - 2 * lt->compute / 3);
	}
}

/*
 * TP all-reduces (or reduce-scatter and all-gather pairs under sequence
 * parallelism) of one layer's forward [PIPE]: the attention's, and the
 * MLP's on a dense layer.  An MoE layer's routed experts move their
 * tokens with the dispatcher instead, over the expert tensor-parallel
 * group (MoEAlltoAllTokenDispatcher gathers the tokens the all-to-all
 * brought over etp and reduce-scatters them back [MLM
 * token_dispatcher.py]), which estimate_moe_comm_s() counts; only its
 * shared experts, a dense MLP split over tp [MLM shared_experts.py],
 * have a TP all-reduce of their own.
 */
/* Public: see estimate-int.h. */
double
estimate_tp_collectives_fwd(const struct est *x)
{
	double moe = x->s.shared_f > 0 ? 1 : 0;

	return 1 + (1 - x->moe_frac) + x->moe_frac * moe;
}

/* Public: see estimate-int.h. */
void
estimate_layer_time(const struct est *x, struct layer_time *lt)
{
	layer_compute(x, lt);
	layer_comm(x, lt);
	lt->modules = layer_modules_s(x, lt,
	                              x->b * x->w->seq_length / (x->t * x->c));
}
