/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate-memory.c - the memory of a layout on each pipeline stage:
 * weights, gradients and optimizer state, activations (dense and MoE
 * layers, recompute, the logits and the loss), and the framework's
 * buffers.  Sources as in estimate.c ([MEM], [ACT], [GUIDE], [MLM],
 * [CAL]).  Arithmetic on doubles: no allocation, no I/O.
 */
#include "autoconfig.h"

#include <math.h>

#include "estimate-int.h"

/* ---- memory ------------------------------------------------------------ */

/*
 * torchtitan keeps fp32 parameters, which FSDP2 shards and gathers in
 * bf16 for the compute, and reduces gradients in fp32
 * (MixedPrecisionPolicy(param_dtype, reduce_dtype) with
 * training.mixed_precision_param bf16 and _reduce fp32
 * [torchtitan parallelisms/parallelize_llama.py, config_manager.py
 * @ba24697]); Adam's two moments are fp32.  torchao's FP8 linears cast
 * the weight at each use and cache no FP8 copy.  4 + 4 + 8.
 */
static void
torchtitan_bytes_per_param(const struct est *x, double *wt, double *gr,
                           double *opt)
{
	*wt = 4;
	*gr = 4;
	*opt = x->w->opt_resident_set ? x->w->opt_resident_bytes : 8;
}

/*
 * Bytes a parameter's cached FP8 copies take.  Transformer Engine casts
 * each weight once a step and keeps the cast over the micro-batches in
 * the usages its GEMMs need: row-wise for the forward and column-wise
 * for the input gradient (TE pytorch/module/linear.py, weight_quantizer
 * set_usage(rowwise=True, columnwise=...) and get_weight_workspace
 * with cache_name "weight"; TE 1.x passed weight_fp8 and weight_t_fp8,
 * both cached).  A per-tensor-scaled copy serves both where FP8 GEMMs
 * take any layout (Blackwell, gpu_fp8_any_layout()); on Hopper the
 * column-wise copy is a transpose.  Block scaling keeps two copies,
 * since a block-scaled copy cannot be transposed: MXFP8 with an E8M0
 * scale per 32 elements, blockwise with an fp32 scale per 128 x 128
 * weight block (negligible).  The same copies as the casts of the
 * activations write (estimate-time.c, fp8_cast_bytes_per_element).
 */
static double
fp8_weight_copy_bytes(const struct est *x)
{
	switch (x->l->fp8_recipe) {
	case FP8_MXFP8: return 2 * (1 + 1.0 / 32);
	case FP8_BLOCKWISE: return 2;
	case FP8_DELAYED:
	case FP8_TENSORWISE: break;
	}
	return gpu_fp8_any_layout(x->w->gpu) ? 1 : 2;
}

/*
 * Bytes per parameter of weights, main gradients and optimizer state for
 * mixed precision with Adam [MEM]: bf16 keeps bf16 weights, fp32 main
 * grads, fp32 master weights and two fp32 moments (2 + 4 + 12 = 18);
 * fp16 keeps fp16 grads and an extra fp32 grad copy (2 + 2 + 16 = 20);
 * fp32 needs no master copy (4 + 4 + 8 = 16).  FP8 trains on bf16
 * weights; Transformer Engine caches FP8 copies of each weight
 * (fp8_weight_copy_bytes: +1 on Blackwell with per-tensor scaling, +2
 * on Hopper, about +2 with block scaling).
 * With fp8_param_gather the FP8 copies are the weight ("keep the
 * parameters in FP8" [GUIDE]), the bf16 weight goes and the fp32 master
 * stays in the optimizer; what the backward GEMM reads is kept beside
 * what the forward reads, as without it: after each parameter
 * all-gather Transformer Engine creates the transpose of a per-tensor
 * FP8 weight where the GEMM cannot read it column-wise (Hopper) and the
 * column-wise copy of a blockwise one; an MXFP8 weight is cast to both
 * [TE pytorch/tensor/utils.py post_all_gather_processing,
 * cast_master_weights_to_fp8].  So fp8_weight_copy_bytes: 1 byte on
 * Blackwell with per-tensor scaling, 2 on Hopper or blockwise, 2.06
 * with MXFP8.
 * FP4 (NVFP4) also trains on bf16 weights; Transformer Engine caches each
 * weight quantized row-wise (fprop) and column-wise (dgrad), each copy
 * 0.5 byte an element and one E4M3 scale byte per 16 (TE
 * NVFP4BlockScaling; NVIDIA, "Pretraining Large Language Models with
 * NVFP4", arXiv 2509.25149): 2 + 2 x (0.5 + 1/16).  With
 * fp8_param_gather (--fp4-param-gather, Megatron-LM's fp4_param: "keep
 * the parameters in fp4 precision" [MLM transformer_config.py]) the
 * bf16 weight goes and the two NVFP4 copies stay.  The per-tensor FP32
 * scales are a few bytes a tensor and not counted.
 * optimizer.resident_bytes_per_param replaces the optimizer's bytes.
 */
void
estimate_bytes_per_param(const struct est *x, double *wt, double *gr,
                         double *opt)
{
	if (x->w->framework == FRAMEWORK_TORCHTITAN) {
		torchtitan_bytes_per_param(x, wt, gr, opt);
		return;
	}
	switch (x->w->precision) {
	case PREC_FP32: *wt = 4; *gr = 4; *opt = 8; break;
	case PREC_FP16: *wt = 2; *gr = 2; *opt = 16; break;
	case PREC_FP8:
		*wt = 2 + fp8_weight_copy_bytes(x); *gr = 4; *opt = 12;
		break;
	case PREC_FP4: *wt = 2 + 2 * FP4_BYTES; *gr = 4; *opt = 12; break;
	default: *wt = 2; *gr = 4; *opt = 12; break;
	}
	if (x->w->precision == PREC_FP8 && x->l->fp8_param_gather)
		*wt = fp8_weight_copy_bytes(x);
	if (x->w->precision == PREC_FP4 && x->l->fp8_param_gather)
		*wt = 2 * FP4_BYTES;
	/* --grad-reduce-in-bf16 keeps the main gradients in bf16 instead of
	 * fp32 (arguments.py: accumulate_allreduce_grads_in_fp32 off), which
	 * also halves what data parallelism reduces. */
	if (x->l->grad_reduce_bf16 && x->w->precision != PREC_FP32)
		*gr = 2;
	if (x->w->opt_resident_set)
		*opt = x->w->opt_resident_bytes;
}

/*
 * LoRA trains low-rank adapters only, so frozen weights carry neither
 * gradients nor optimizer state and the adapters are this fraction.
 * An adapter of rank r on a d-by-k weight adds r(d + k) parameters (Hu
 * et al. 2021, arXiv 2106.09685, section 4.1).  At rank 16 on every
 * linear layer of Llama 2 7B (h 4096, FFN 11008, 32 layers) that is
 * 40 M of 6.74 B, 0.59 %; on the attention projections alone 0.25 %.
 * 0.5 % is a round figure between them; the error either way is 16
 * bytes (gradient and optimizer state) per parameter of the
 * difference: at 7B at most 0.27 GB before sharding.
 */
#define LORA_TRAINABLE_FRACTION 0.005

/* Public: see estimate-int.h. */
double
estimate_trainable(const struct est *x)
{
	return x->w->peft_lora ? LORA_TRAINABLE_FRACTION : 1.0;
}

/*
 * Megatron FSDP gathers one layer's weights while the previous one
 * computes and reduce-scatters its gradients after its backward
 * ("overlaps the parameter AllGather and gradient ReduceScatter of each
 * Transformer layer with its associated forward and backward
 * computations" [GUIDE]): two layers are whole at a time.
 */
#define FSDP_GATHERED_LAYERS 2.0

/* Bytes a weight FSDP gathers holds: the resident copy's (wt), but
 * torchtitan's fp32 shards gather in bf16, or in FP8 with
 * fp8_param_gather (torchao's enable_fsdp_float8_all_gather). */
static double
fsdp_gathered_bytes(const struct est *x, double wt)
{
	if (x->w->framework != FRAMEWORK_TORCHTITAN)
		return wt;
	return x->l->fp8_param_gather && x->w->precision == PREC_FP8
	       ? 1 : x->act_bytes;
}

/*
 * What the weights of the embedding and the output layer differ from
 * wt bytes a parameter: they are not Transformer Engine modules
 * (Megatron-LM's GPTModel builds VocabParallelEmbedding and
 * tensor_parallel.ColumnParallelLinear [MLM gpt_model.py]), so FP8 and
 * FP4 keep no low-precision copy of them, and fp8_param_gather leaves
 * them in bf16.  torchtitan's bytes (torchtitan_bytes_per_param) are
 * its own.
 */
static double
plain_weight_bytes(const struct est *x, const struct stage *st, double wt,
                   double dense_shard)
{
	double held = x->l->fsdp ? st->plain / dense_shard : st->plain;

	if (x->w->framework == FRAMEWORK_TORCHTITAN ||
	    (x->w->precision != PREC_FP8 && x->w->precision != PREC_FP4))
		return 0;
	return held * (2 - wt);
}

/* Weights, gradients and optimizer state of a GPU of stage st. */
static void
memory_states(const struct est *x, const struct stage *st,
              struct memory_breakdown *mb)
{
	double wt, gr, opt, trainable, dense_shard, expert_shard, held;
	double gathered = 0;
	double transient = x->w->opt_transient_bytes;

	estimate_bytes_per_param(x, &wt, &gr, &opt);
	trainable = estimate_trainable(x);
	/* The distributed optimizer and FSDP shard over dp*cp for dense
	 * weights and over the expert data-parallel group for experts
	 * [MEM]. */
	dense_shard = x->sharded ? x->d * x->c : 1;
	expert_shard = x->sharded ? x->t * x->c * x->d / (x->te * x->e) : 1;
	held = st->dense + st->expert;
	if (x->l->fsdp) {
		gathered = FSDP_GATHERED_LAYERS *
		           (x->layer_dense + x->layer_expert);
		held = st->dense / dense_shard + st->expert / expert_shard +
		       gathered;
	}
	mb->weights = held * wt + gathered * (fsdp_gathered_bytes(x, wt) - wt) +
	              plain_weight_bytes(x, st, wt, dense_shard);
	mb->gradients = held * gr * trainable;
	/* The transient buffer lives through the step of the same shard
	 * (nnScaler's opt_transient_coef). */
	mb->optimizer = (st->dense / dense_shard + st->expert / expert_shard) *
	                (opt + transient) * trainable;
}

double
estimate_moe_imbalance(const struct est *x)
{
	return fmax(1, x->w->moe_token_imbalance);
}

/*
 * Token copies the local experts of one GPU process per MoE layer and
 * micro-batch.  Each of the tp ranks routes its s*b/tp tokens (sequence
 * parallel splits them; Megatron-LM requires it with MoE and tp > 1)
 * to k experts; the all-to-all over the ep group evens the copies out
 * over its ranks, and expert tensor parallelism all-gathers them over
 * its etp ranks [MLM token_dispatcher.py, MoEAlltoAllTokenDispatcher;
 * parallel_state.py carves ep x etp out of tp x cp x dp].  Published
 * benchmarks force a balanced router; moe_token_imbalance scales the busiest
 * GPU's share for dropless routing.
 */
double
estimate_moe_token_copies(const struct est *x)
{
	return x->seq_local * x->b * x->s.k * x->te / x->t *
	       estimate_moe_imbalance(x);
}

/*
 * Bytes one MoE layer keeps for the backward besides its attention, per
 * micro-batch on one GPU:
 *   router   logits (16-bit) and fp32 probabilities of the E experts
 *            for each of the GPU's tokens [MLM router.py];
 *   experts  per token copy: fc1's input (h), fc1's output (2 fe/etp
 *            gated, else fe/etp) and fc2's input (fe/etp) [MLM
 *            experts.py, TEGroupedMLP];
 *   (combine nothing: since Megatron-LM core 0.13 the experts weight
 *            each copy by its probability inside the activation, so the
 *            unpermute keeps no copy of their output [MLM commit 2659630,
 *            "Memory efficient token permutation", 2025-04; experts.py
 *            weighted_bias_swiglu_impl]);
 *   shared   the shared experts, a dense MLP over every token split
 *            over tp [MLM shared_experts.py].
 */
double
estimate_moe_layer_activations(const struct est *x)
{
	const struct shape *s = &x->s;
	double ab = x->act_bytes, gin = x->gemm_in_bytes;
	double tokens = x->seq_local * x->b / x->t;  /* this GPU's */
	double copies = estimate_moe_token_copies(x), fe = s->fe / x->te;
	double mlp_out = ab * (2 * s->gated - 1);     /* fc1 output per col */
	unsigned rc = x->modules;
	double fc2_in = (rc & RCM_BIT(RCM_MOE_ACT)) ? 0 : gin;

	if (rc & RCM_BIT(RCM_MOE))  /* only the input, kept by the norm */
		return 0;
	return tokens * s->E * (ab + 4) +
	       copies * (gin * s->h + fe * (mlp_out + fc2_in)) +
	       ((rc & RCM_BIT(RCM_SHARED_EXPERTS)) ? 0
	        : tokens * s->shared_f * (mlp_out + gin));
}

/*
 * What torchtitan's per-op selective checkpointing keeps of a dense
 * layer and micro-batch (selective_ac_option "op": every op of its save
 * list but every second matmul, recomputing the rest
 * [torchtitan parallelisms/parallelize_llama.py@ba24697,
 * _custom_policy]): the block's input, the attention kernel's output
 * and its fp32 log-sum-exp per head, and the outputs of the first,
 * third, fifth and seventh matmuls, wq, wv, w1 and w2 (w2's row-parallel
 * output is whole on each tp rank).  Llama 3 8B: 8192 + 8320 + 2 x
 * (4096 + 1024 + 14336 + 4096) = 63,616 bytes a token.
 */
static double
titan_sac_activations(const struct est *x)
{
	const struct shape *s = &x->s;
	double ab = x->act_bytes, sb = x->seq_local * x->b;
	double spdiv = x->l->sequence_parallel ? x->t : 1;
	double heads = x->w->model->num_attention_heads;

	return sb * (ab * s->h / spdiv + ab * s->h +
	             (ab * (2 * s->q + s->kvd + s->f) + 4 * heads) / x->t);
}

/*
 * Bytes a token of MLA's latents keeps: the down projections' outputs,
 * q_compressed and kv_compressed, feed the up projections through their
 * norms (TELayerNormColumnParallelLinear with qk_layernorm), which keep
 * the norm's input and the GEMM's input, q_lora_rank + kv_lora_rank
 * wide.  mla_up_proj recomputes the up projections from the latents and
 * keeps its checkpoint's inputs alone, the two latents and the rotary
 * part of K (k_pos_emb) [MLM multi_latent_attention.py,
 * qkv_up_checkpoint].  The down projections run on each tp rank's own
 * tokens under sequence parallelism, on every token without: the
 * latents are split like the layer's input.
 */
static double
mla_latent_bytes(const struct est *x)
{
	const struct model *m = x->w->model;
	double lat = m->kv_lora_rank + (m->q_lora_rank > 0 ? m->q_lora_rank
	                                                    : 0);
	double norm = m->qk_layernorm ? x->act_bytes : 0;

	if (m->kv_lora_rank <= 0)
		return 0;
	if (x->modules & RCM_BIT(RCM_MLA_UP_PROJ))
		return x->act_bytes * (lat + m->qk_pos_emb_head_dim);
	return (norm + x->gemm_in_bytes) * lat;
}

/* Activation bytes of one transformer layer for one micro-batch [ACT]. */
static double
layer_activations(const struct est *x, bool moe_layer, bool recomputed)
{
	const struct shape *s = &x->s;
	double ab = x->act_bytes, gin = x->gemm_in_bytes;
	double sb = x->seq_local * x->b;
	double spdiv = x->l->sequence_parallel ? x->t : 1;
	double repl, split, heads = x->w->model->num_attention_heads;

	unsigned rc = x->modules;
	bool scores_kept = x->l->recompute == RECOMPUTE_NONE ||
	                   (x->l->recompute == RECOMPUTE_SELECTIVE &&
	                    !(rc & RCM_BIT(RCM_CORE_ATTN)));

	if (recomputed) /* full recompute keeps only the layer input */
		return ab * sb * s->h / spdiv;
	if (x->titan_sac && !moe_layer)
		return titan_sac_activations(x);
	/* Norm inputs, the two GEMM inputs after the norms (which the
	 * layernorm module discards and recomputes), dropout masks, MLA's
	 * latents: replicated over tp unless sequence parallel splits
	 * them. */
	repl = sb * s->h * (2 * ab +
	                    ((rc & RCM_BIT(RCM_LAYERNORM)) ? 0 : 2 * gin) +
	                    (x->dropout ? 2 : 0)) +
	       sb * mla_latent_bytes(x);
	/* Q, K, V (mla_up_proj recomputes them from the latents), the
	 * attention output, softmax statistics. */
	split = sb * (((rc & RCM_BIT(RCM_MLA_UP_PROJ)) ? 0
	               : ab * (s->q + 2 * s->kvd)) +
	              gin * s->q) + 4 * heads * sb;
	if (x->l->attention == ATTN_UNFUSED && scores_kept)
		split += heads * sb * x->seq_local * (2 * ab + 1);
	if (moe_layer)
		return repl / spdiv + split / x->t +
		       estimate_moe_layer_activations(x);
	/* fc1 output (2f wide when gated) and the fc2 input, unless the mlp
	 * module recomputes them. */
	if (!(rc & RCM_BIT(RCM_MLP)))
		split += sb * s->f * (ab * 2 * s->gated - ab + gin);
	return repl / spdiv + split / x->t;
}

/* Public: see estimate-int.h. */
void
estimate_layer_activation_sizes(struct est *x)
{
	x->a_dense = layer_activations(x, false, false);
	x->a_moe = x->s.Lmoe > 0 ? layer_activations(x, true, false) : 0;
	x->a_full = (1 - x->moe_frac) * x->a_dense + x->moe_frac * x->a_moe;
	x->a_input = layer_activations(x, false, true);
	x->a_one = layer_activations(x, x->s.Lmoe > 0, false);
}

/* Layers of a model chunk of n that full recompute of the block
 * method recomputes: its first N [MLM recompute.py]. */
static double
block_layers(const struct est *x, double n)
{
	if (x->l->recompute_layers <= 0)
		return n;
	return fmin(x->l->recompute_layers, n);
}

/* The layers of a uniform run: N, or for 0 what the job script
 * renders it as (layout_uniform_whole: a middle stage's chunk), which
 * a longer chunk of an uneven first or last stage runs twice. */
static double
uniform_run(const struct est *x)
{
	if (x->l->recompute_layers > 0)
		return x->l->recompute_layers;
	return layout_uniform_whole(x->w->model, x->l);
}

/* Layers a uniform run holds in a stage of n: uniform_run, at most the
 * model chunk. */
static double
uniform_chunk(const struct est *x, double n)
{
	double chunk = n / x->v;

	if (chunk < 1)
		return 1;
	return fmin(uniform_run(x), chunk);
}

/* Layers of a stage of n recomputed in the backward pass: the block
 * method's first N of each of its v model chunks. */
double
estimate_recomputed_layers(const struct est *x, double n)
{
	if (x->l->recompute != RECOMPUTE_FULL)
		return 0;
	if (x->l->recompute_method == RECOMPUTE_UNIFORM ||
	    x->l->recompute_layers <= 0)
		return n;
	return fmin(x->l->recompute_layers * x->v, n);
}

/*
 * Activations of one micro-batch through a model chunk of n layers,
 * nd of them dense, which come first (the dense layers are the model's
 * first).  Block keeps the input of each recomputed layer, its first
 * N; uniform keeps the input of each run of N only [MLM recompute.py];
 * offloaded layers, the chunk's share of the stage's (off of stage_n;
 * offloading needs pp 1, so the one chunk's), keep theirs on the host:
 * the first ones, as Transformer Engine's offload context takes the
 * first num_layers of the layers it sees (get_cpu_offload_context).
 */
static double
chunk_layer_activations(const struct est *x, double n, double nd,
                        double stage_n)
{
	const struct layout *l = x->l;
	double run, nrc, off, kept, kept_dense;

	if (n <= 0)
		return 0;
	if (l->recompute == RECOMPUTE_FULL &&
	    l->recompute_method == RECOMPUTE_UNIFORM) {
		run = fmin(uniform_run(x), n);
		return ceil(n / run) * x->a_input;
	}
	nrc = l->recompute == RECOMPUTE_FULL ? block_layers(x, n) : 0;
	off = stage_n > 0 ? fmin(l->offload_layers, stage_n) * n / stage_n
	                  : 0;
	kept = n - nrc - off;
	kept_dense = fmax(0, fmin(kept, nd - nrc - off));
	return kept_dense * x->a_dense + (kept - kept_dense) * x->a_moe +
	       nrc * x->a_input;
}

/* What full recompute re-materialises during a backward: one layer
 * (block), or one chunk (uniform). */
static double
recompute_working(const struct est *x, double n)
{
	double one = x->a_one;

	if (x->l->recompute != RECOMPUTE_FULL)
		return 0;
	if (x->l->recompute_method == RECOMPUTE_UNIFORM)
		return uniform_chunk(x, n) * one;
	return one;
}

/*
 * Bytes per logit the last stage holds for the loss: the 16-bit logits
 * and the fp32 copy Megatron-LM's cross-entropy, fused natively or not,
 * makes of them (cross_entropy.py calculate_logits_max: .float(); the
 * exp of the copy is saved for the backward).  Transformer Engine's
 * kernel writes the gradient into the 16-bit logits in its forward and
 * keeps nothing else [TE pytorch/triton/cross_entropy.py; Megatron-LM
 * language_module.py te_parallel_cross_entropy].
 *
 * torchtitan computes PyTorch's cross_entropy on pred.float() and drops
 * the 16-bit logits before the backward ("need to free to before bwd to
 * avoid peaking memory": del pred [torchtitan train.py@ba24697, the
 * code of its December 2024 benchmarks]).  Eager, log_softmax saves its
 * fp32 output; the backward's first step holds it, its gradient and the
 * gradient of its input, fp32 each: 12 bytes a logit.  With tensor
 * parallelism torchtitan shards the logits over the vocabulary and runs
 * the loss under PyTorch's loss_parallel (enable_loss_parallel, on by
 * default [torchtitan config_manager.py@ba24697]), whose log_softmax is
 * written out in Python (torch/distributed/tensor/parallel/loss.py,
 * _log_softmax): beside the 16-bit logits and the fp32 copy it holds the
 * shifted copy and then either its exp or the result, fp32 each, at the
 * forward's loss: 2 + 4 + 4 + 4 = 14 bytes, more than the backward's
 * (which merges the two backwards into one softmax).  Compiled
 * (torchtitan compiles the loss with the model from 2025 on
 * [components/loss.py@e7c0cae]), inductor saves the smaller 16-bit
 * input, recomputes the softmax in the backward and writes a 16-bit
 * gradient: 2 x 2 bytes.
 */
#define TORCH_LOSS_BYTES 12.0
#define TORCH_LOSS_PARALLEL_BYTES 14.0
static double
logit_bytes(const struct est *x)
{
	switch (x->w->ce_fusion) {
	case CE_FUSION_TE:
		return x->act_bytes;
	case CE_FUSION_TORCH:
		return x->t > 1 ? TORCH_LOSS_PARALLEL_BYTES : TORCH_LOSS_BYTES;
	case CE_FUSION_COMPILED:
		return 2 * x->act_bytes;
	default:
		return x->act_bytes + 4;
	}
}

/*
 * torchtitan's tensor parallelism runs through DTensor: with sequence
 * parallelism a column-parallel linear's input is redistributed to a
 * whole-sequence tensor before its GEMM (in FP8 under its Float8
 * recipes: Float8ColwiseParallel, PrepareFloat8ModuleInput [torchtitan
 * parallelisms/parallelize_llama.py@ba24697]), and in the backward its
 * input gradient is computed whole (a Partial) before the reduce-scatter
 * to the sequence shards: two whole-sequence tensors, s x b x h each,
 * beside the layer's own activations.  Asynchronous TP
 * (tp_comm_overlap; enable_async_tensor_parallel) fuses each collective
 * with its GEMM in chunks and does not hold them.  The measured pair:
 * Llama 3.1 70B on 256 H100 96 GB, FSDP 32 x TP 8, mbs 16, Float8,
 * 71.9 GiB reserved at most without AsyncTP and 67.6 GiB with it
 * (torchtitan benchmarks/llama3_h100_202412_torchtitan.md, Table 4).
 * Megatron-LM gathers into one reused global buffer and publishes no
 * peaks to check it against: not counted there.
 */
static double
titan_tp_transient(const struct est *x)
{
	double gathered = x->w->precision == PREC_FP8 ? 1 : x->act_bytes;

	if (x->w->framework != FRAMEWORK_TORCHTITAN || x->t <= 1 ||
	    !x->l->sequence_parallel || x->l->tp_comm_overlap)
		return 0;
	return x->seq_local * x->b * x->s.h * (gathered + x->act_bytes);
}

/* Bytes a micro-batch's embedding keeps for its backward on the first
 * stage: its int64 token ids and, with dropout, the mask; its output
 * is the first layer's input, which layer_activations() counts ([MEM]:
 * 8sb and sbh a micro-batch; [ACT] section 4.3). */
static double
embedding_activations(const struct est *x)
{
	double spdiv = x->l->sequence_parallel ? x->t : 1;
	double sb = x->seq_local * x->b;

	return sb * (8 + x->s.h * (x->dropout ? 1 : 0) / spdiv);
}

/* Public: see estimate-int.h. */
double
estimate_chunk_activations(const struct est *x, const struct stage *st,
                           int chunk)
{
	const struct model *m = x->w->model;
	int from, n, nd;
	int v = x->l->pp > 1 && x->l->vp > 1 ? x->l->vp : 1;

	layout_chunk_span(m, x->l, st->rank, chunk, &from, &n);
	nd = model_dense_layers_in(m, from, n);
	/* The MTP layers, of the model's last kind, follow the last. */
	if (st->last && chunk == v - 1) {
		n += (int)st->mtp;
		nd += x->s.Lmoe > 0 ? 0 : (int)st->mtp;
	}
	return chunk_layer_activations(x, n, nd, st->layers) +
	       (st->first && chunk == 0 ? embedding_activations(x) : 0);
}

/*
 * Activations on a stage: what its in-flight micro-batches keep at the
 * peak (estimate-inflight.c), and on the last the logits of one
 * (logit_bytes): its last model chunk, which holds the output layer,
 * runs each micro-batch's backward right after its forward.
 */
static double
memory_activations(const struct est *x, const struct stage *st)
{
	double sb = x->seq_local * x->b;
	/* MTP layers each compute their own logits (last stage). */
	double logits = sb * x->s.V / x->t * logit_bytes(x) *
	                (1 + x->s.mtp);
	double working = recompute_working(x, st->layers) +
	                 titan_tp_transient(x);
	double act = st->first && st->last
	             ? estimate_chunk_activations(x, st, 0)
	             : estimate_inflight_peak(x, st);

	return act + (st->last ? logits : 0) + working;
}

/*
 * What the framework holds besides the model: CUDA context, cuBLAS
 * workspaces and NCCL buffers (1-3 GB per GPU in practice, notes on
 * estimation), more with each communicator, plus allocator fragmentation
 * of the activation pool (memory_fragmentation of the calibration,
 * hand-set at 10 % and shipped so: bench/fit-defaults keeps it, [CAL]).
 */
#define BUFFER_BASE_BYTES (1.25 * GIB)
#define BUFFER_PER_COMM_BYTES (0.125 * GIB)
/*
 * CUDA graphs "require additional memory for static buffer management,
 * typically adding a few gigabytes for static buffers, while models with
 * PP size > 1 may consume over 10GB" [GUIDE].
 */
#define CUDA_GRAPH_BYTES (2.0 * GIB)
#define CUDA_GRAPH_PP_BYTES (10.0 * GIB)

/*
 * DeepEP's buffers, which the flex dispatcher allocates once for its
 * group of etp x ep ranks, sized by the larger of the dispatch and
 * combine configs' hints for tokens of h x 2 bytes [MLM fused_a2a.py
 * get_buffer, get_hidden_bytes].  DeepEP [deep_ep/buffer.py,
 * csrc/config.hpp]: 20 SMs make 10 channels; up to 8 peers over
 * NVLink, the rest over RDMA; a channel holds, for each NVLink peer,
 * 256 received tokens (288 for 16 to 64 ranks, 560 for 128, 720 above),
 * each with room for 128 top-k indices (8 bytes), weights and scales
 * (4 each), and for each RDMA peer 128 tokens twice, plus 1 MiB.
 */
#define DEEPEP_CHANNELS 10.0
#define DEEPEP_NVL_PEERS 8.0
#define DEEPEP_TOKEN_META (128.0 * (8 + 4 + 4))

static double
deepep_buffer_bytes(const struct est *x)
{
	double n = x->te * x->e, token = 2 * x->s.h + DEEPEP_TOKEN_META;
	double recv = n <= 8 ? 256 : n <= 64 ? 288 : n <= 128 ? 560 : 720;
	double bytes = DEEPEP_CHANNELS * fmin(n, DEEPEP_NVL_PEERS) * recv *
	               token;

	if (n > DEEPEP_NVL_PEERS)
		bytes += DEEPEP_CHANNELS * (n / DEEPEP_NVL_PEERS) * 128 * 2 *
		         token + 1048576;
	return bytes;
}

/*
 * HybridEP's buffers, the hybridep backend's (deepseek-ai/DeepEP branch
 * hybrid-ep, csrc/hybrid_ep/buffer/intranode.cu, NVLCoordinator, and
 * internode_doca.cu, RDMACoordinator), sized for the worst case: every
 * token of the group routed to one GPU.  Megatron-LM sizes them by the
 * tokens a GPU routes (fused_a2a.py, init_hybrid_ep_buffer: seq_len as
 * max_num_of_tokens_per_rank), once for its group of etp x ep ranks.
 * For T tokens, n ranks, r of them in an NVLink domain: n x T slots,
 * shared by dispatch and combine, each a BF16 token (2h bytes; HybridEP
 * has no FP8 dispatch), its probabilities for the E/ep experts of each
 * of the r GPUs (4 bytes each) and a scale per 128 values (4 bytes).
 * Across n / r domains the RDMA side adds T of its own tokens, with the
 * probabilities of every expert, and for each other domain a dispatch
 * slot (token, probabilities, scales) and two combine slots (token and
 * probabilities).  Its few flags and per-block counters are left out.
 * GPT-OSS 120B at mbs 4 and ep 64 in one NVL72: 6.7 GB.
 */
static double
hybridep_buffer_bytes(const struct est *x)
{
	double n = x->te * x->e, r = fmin(n, estimate_nccl_node_gpus(x));
	double tokens = estimate_moe_tokens_in(x), h = x->s.h;
	double probs = 4 * x->s.E / x->e * r, scales = 4 * h / 128;
	double slot = 2 * h + probs + scales, domains = n / r;
	double bytes = n * tokens * slot;

	if (domains > 1)
		bytes += tokens * (2 * h + probs * domains + scales) +
		         tokens * (domains - 1) * (slot + 2 * (2 * h + probs));
	return bytes;
}

/* The flex dispatcher's buffers, by its backend. */
static double
flex_buffer_bytes(const struct est *x)
{
	switch (x->l->moe_dispatcher) {
	case MOE_DISPATCH_FLEX: return deepep_buffer_bytes(x);
	case MOE_DISPATCH_HYBRIDEP: return hybridep_buffer_bytes(x);
	default: return 0;
	}
}

static double
memory_buffers(const struct est *x, double activations)
{
	int comms = (x->t > 1) + (x->p > 1) + (x->c > 1) + (x->d > 1) +
	            (x->e > 1);
	double graphs = !x->l->cuda_graphs ? 0
	              : x->p > 1 ? CUDA_GRAPH_PP_BYTES : CUDA_GRAPH_BYTES;

	return BUFFER_BASE_BYTES + comms * BUFFER_PER_COMM_BYTES +
	       x->k[CAL_MEM_FRAGMENTATION] * activations + graphs +
	       flex_buffer_bytes(x);
}

/* Where stage i of x->stage (first, last, middle) is listed: first,
 * middle, last. */
static int
stage_slot(const struct est *x, int i)
{
	if (x->nstages == 1 || i == 0)
		return 0;
	return i == 2 ? 1 : x->nstages - 1;
}

/* Public: see estimate-int.h. */
double
estimate_stage_memory(const struct est *x, const struct stage *st,
                      struct memory_breakdown *mb)
{
	memory_states(x, st, mb);
	mb->activations = memory_activations(x, st);
	mb->buffers = memory_buffers(x, mb->activations);
	mb->total = mb->weights + mb->gradients + mb->optimizer +
	            mb->activations + mb->buffers;
	return mb->total;
}

/* Fill the breakdown for the most loaded GPU (first, middle or last),
 * and each stage's total in pipeline order. */
/* Public: see estimate-int.h. */
void
estimate_memory(const struct est *x, struct estimate *out)
{
	static const char *const names[3][3] = {
		{ "all" }, { "first", "last" }, { "first", "middle", "last" },
	};

	out->nstages = x->nstages;
	for (int i = 0; i < x->nstages; i++) {
		struct memory_breakdown mb;
		const struct stage *st = &x->stage[i];
		int slot = stage_slot(x, i);

		estimate_stage_memory(x, st, &mb);
		out->stages[slot].name = names[x->nstages - 1][slot];
		out->stages[slot].rank = st->rank;
		out->stages[slot].layers = st->layers;
		out->stages[slot].dense_layers = st->dense_layers;
		out->stages[slot].total = mb.total;
		if (i == 0 || mb.total > out->mem.total)
			out->mem = mb;
	}
}
