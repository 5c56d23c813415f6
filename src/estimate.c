/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate.c - parameters, FLOPs, memory and step time of a layout.
 *
 * Sources, cited where each figure is used:
 *   [MEM]  Megatron-LM megatron/training/theoretical_memory_usage.py and
 *          docs/user-guide/features/dist_optimizer.md (bytes per param).
 *   [ACT]  Korthikanti et al. 2022, "Reducing Activation Recomputation in
 *          Large Transformer Models", arXiv 2205.05198, section 4.
 *   [FLOP] Megatron-LM megatron/training/training.py,
 *          num_floating_point_operations().
 *   [PIPE] Narayanan et al. 2021, "Efficient Large-Scale Language Model
 *          Training on GPU Clusters", arXiv 2104.04473 (bubble, comms).
 *   [NEMO] NeMo Auto Configurator's 72*B*L*s*h^2 model FLOPs.
 *   [CAL]  Efficiency constants, hand-set from the sources quoted
 *          beside them (calibration.c's hand_set).  The shipped defaults
 *          are `paratune calibrate`'s fit from those values to the
 *          published runs of tests/data/measured: bench/fit-defaults
 *          (make fit-defaults) writes them to calibration-defaults.h,
 *          with the constants it keeps hand-set and why, and the
 *          cross-validated error; tests/cli/fit-defaults.sh fails when
 *          the header is not what a fresh fit gives.  A site's own fit
 *          replaces them.  tests/unit/test-estimate checks the
 *          Megatron-LM README weak-scaling rows (H100, BF16) against
 *          them and bounds the error.
 *   [GUIDE] NVIDIA NeMo performance tuning guide (seeds): the knobs'
 *          effects, quoted where used.
 *   [MLM]  Megatron-LM at d98e8a64: transformer_block.py (pipeline
 *          split), recompute.py (recompute methods), Megatron FSDP.
 * Everything here is arithmetic on doubles: no allocation, no I/O.
 */
#include "autoconfig.h"

#include <math.h>

#include "estimate-int.h"

/* ---- model shape helpers --------------------------------------------- */


/* Megatron pads the vocabulary to a multiple of 128*tp [MEM]. */
static double
padded_vocab(int vocab, int tp)
{
	/* In long long: 128 * tp overflows an int from tp = 2^24. */
	long long mult = 128LL * (tp > 0 ? tp : 1);

	/* Integer division on purpose: round up to a multiple of mult. */
	return (double)(((vocab + mult - 1) / mult) * mult); /* NOLINT(bugprone-integer-division) */
}

/*
 * Attention shape: Q, K, V widths and the weights.  Multi-latent
 * attention [MLA: Megatron-LM megatron/core/transformer/
 * multi_latent_attention.py] has Q and K heads of qk_head_dim +
 * qk_pos_emb_head_dim and V heads of v_head_dim, and its own weights
 * (model_attn_params); K and V share kvd here as their mean width.
 */
static void
shape_attention(const struct model *m, int dk, int g, struct shape *s)
{
	double a = m->num_attention_heads;
	double dqk = m->qk_head_dim + m->qk_pos_emb_head_dim;

	if (m->kv_lora_rank <= 0) {
		s->q = a * dk;
		s->kvd = (double)g * dk;
		s->attn_w = 2.0 * s->h * s->q + 2.0 * s->h * s->kvd;
		s->score_w = s->q;
		return;
	}
	s->q = a * dqk;
	s->kvd = a * (dqk + m->v_head_dim) / 2;
	s->attn_w = model_attn_params(m);
	s->score_w = a * (dqk + m->v_head_dim) / 2;
}

static void
shape_of(const struct model *m, int tp, struct shape *s)
{
	int g = m->num_query_groups ? m->num_query_groups
	                            : m->num_attention_heads;
	int dk = m->kv_channels ? m->kv_channels
	                        : m->hidden_size / m->num_attention_heads;

	s->h = m->hidden_size;
	s->f = m->ffn_hidden_size;
	s->fe = m->moe_ffn_hidden_size ? m->moe_ffn_hidden_size : s->f;
	shape_attention(m, dk, g, s);
	s->dk = dk;
	s->V = padded_vocab(m->vocab_size, tp);
	s->L = m->num_layers;
	/* The first moe_first_dense_layers of an MoE model are dense
	 * (Megatron-LM's --moe-layer-freq). */
	s->Lmoe = model_moe_layers(m);
	s->Ldense = s->L - s->Lmoe;
	s->E = m->num_experts;
	s->k = m->moe_router_topk > 0 ? m->moe_router_topk : 1;
	s->shared_f = m->moe_shared_ffn_hidden_size;
	s->gated = m->swiglu ? 1.5 : 1.0;
	s->mtp = m->mtp_num_layers > 0 ? m->mtp_num_layers : 0;
}

/* Attention weights of one layer: Q, K, V and output projections (or
 * MLA's down and up projections). */
static double
attn_params(const struct shape *s)
{
	return s->attn_w;
}

/* Dense MLP weights of one layer (2 or 3 matrices). */
static double
mlp_params(const struct shape *s, double width)
{
	return 2.0 * s->gated * s->h * width;
}

/* ---- FLOPs ------------------------------------------------------------ */


/*
 * Attention scores and values per token, all layers [FLOP]: a causal
 * layer sees s/2 keys on average, a sliding-window layer min(w, s/2)
 * (GPT-OSS's 128-token windows), an encoder all s.
 */
static double
score_flops(const struct model *m, const struct shape *s, int seq_length)
{
	double keys = m->arch == ARCH_DECODER ? seq_length / 2.0 : seq_length;
	double win = fmin(m->window_size, keys), total = 0;
	int windowed = 0;

	for (int i = 0; i < m->num_layers; i++)
		windowed += model_layer_windowed(m, i);
	total = (s->L - windowed) * keys + windowed * win;
	return 12.0 * s->score_w * total;
}

static void
flops_per_token(const struct model *m, int seq_length,
                struct flop_parts *fp)
{
	struct shape s;
	double phi, moe_ffn, keys;

	shape_of(m, 1, &s);
	/* phi = 3 with SwiGLU else 2; V unpadded, as Megatron reports. */
	phi = m->swiglu ? 3.0 : 2.0;
	moe_ffn = 6.0 * s.h * phi * (s.fe * s.k + s.shared_f);
	fp->layers = 6.0 * s.h * phi * s.f * s.Ldense + moe_ffn * s.Lmoe +
	             6.0 * s.L * s.attn_w;
	fp->experts = 6.0 * s.h * phi * s.fe * s.k * s.Lmoe;
	fp->logits = 6.0 * s.h * m->vocab_size;
	fp->scores = score_flops(m, &s, seq_length);
	/*
	 * Each MTP layer [Megatron-LM multi_token_prediction.py]: eh_proj
	 * 2h x h, one transformer layer of the model's last kind with full
	 * attention, and its own pass through the output layer.
	 */
	keys = m->arch == ARCH_DECODER ? seq_length / 2.0 : seq_length;
	fp->mtp = s.mtp * (6.0 * 2 * s.h * s.h + 6.0 * s.attn_w +
	                   (s.Lmoe > 0 ? moe_ffn : 6.0 * s.h * phi * s.f) +
	                   12.0 * s.score_w * keys);
	fp->logits *= 1 + s.mtp;
}

double
estimate_flops_per_step(const struct model *m, int seq_length, int gbs)
{
	struct flop_parts fp;

	flops_per_token(m, seq_length, &fp);
	return (double)gbs * seq_length * (fp.layers + fp.scores + fp.logits +
	                                   fp.mtp);
}

double
estimate_flops_per_step_nemo(const struct model *m, int seq_length, int gbs)
{
	double B = gbs, L = m->num_layers, s = seq_length, h = m->hidden_size;
	double V = m->vocab_size;

	/* [NEMO]: ignores FFN width, SwiGLU, GQA and MoE by design. */
	return 72.0 * B * L * s * h * h *
	       (1.0 + s / (6.0 * h) + V / (12.0 * h * L));
}

const char *
memory_status_name(enum memory_status st)
{
	return st == MEM_SAFE ? "safe" : "oom-risk";
}

/* ---- parameters on each pipeline stage ---------------------------------- */



/* Weights of one layer's non-expert part on one GPU. */
static double
layer_dense_params(const struct est *x, bool moe_layer)
{
	const struct shape *s = &x->s;
	double norms = 2.0 * s->h *
	               (x->w->model->normalization == NORM_RMSNORM ? 1 : 2);
	double p = attn_params(s) / x->t + norms;
	bool bias = x->w->model->bias_linear;

	/* Biases: QKV and fc1 split over tp, the row-parallel outputs'
	 * biases are replicated. */
	if (bias || x->w->model->bias_qkv)
		p += (s->q + 2 * s->kvd) / x->t;
	if (bias)
		p += s->h + (moe_layer ? 0 : (2 * s->gated - 1) * s->f / x->t + s->h);
	/* Q and K norms of a head's width, a softmax offset per head:
	 * replicated, and small. */
	if (x->w->model->qk_layernorm && x->w->model->kv_lora_rank <= 0)
		p += 2 * s->dk;
	if (x->w->model->softmax_type == SOFTMAX_LEARNABLE)
		p += x->w->model->num_attention_heads;
	if (!moe_layer)
		return p + mlp_params(s, s->f) / x->t;
	/* Router replicated; shared experts split like a dense MLP. */
	return p + s->h * s->E + mlp_params(s, s->shared_f) / x->t;
}

/* Dense layers among layers [from, from + n): all of a dense model's,
 * the first moe_first_dense_layers of an MoE model's. */
static double
dense_layers_in(const struct est *x, double from, double n)
{
	if (x->s.Lmoe <= 0)
		return n;
	return fmax(0, fmin(n, x->s.Ldense - from));
}

/* A stage of n layers from layer `from` on: its parameters; embedding
 * and output added by the caller.  Dense first layers sit on the first
 * stage (its first model chunk with vp). */
static void
stage_init(const struct est *x, struct stage *st, double from, double n,
           bool first, bool last)
{
	double nd = dense_layers_in(x, from, n);
	bool moe = x->s.Lmoe > 0;

	st->layers = n;
	st->dense = nd * layer_dense_params(x, false) +
	            (n - nd) * layer_dense_params(x, moe);
	st->expert = moe ? (n - nd) * x->s.E * mlp_params(&x->s, x->s.fe) /
	                   (x->te * x->e) : 0;
	st->first = first;
	st->last = last;
	st->inflight = 1;
}

/*
 * The MTP layers go on the last stage [Megatron-LM
 * multi_token_prediction.py, "MTP on the last pipeline stage"]: each
 * one transformer layer, eh_proj 2h x h split over tp and three norms;
 * with a pipeline the stage also keeps a copy of the embedding they
 * read.  Counted as layers of the stage for activations and time.
 */
static void
stage_add_mtp(const struct est *x, struct stage *st, double emb)
{
	struct stage one;
	double n = x->s.mtp;

	if (n <= 0)
		return;
	stage_init(x, &one, x->s.L - 1, 1, false, false);
	st->layers += n;
	st->dense += n * (one.dense + 2 * x->s.h * x->s.h / x->t +
	                  3 * x->s.h) + (x->p > 1 ? emb : 0);
	st->expert += n * one.expert;
}

/*
 * The stages, with Megatron-LM's split: (layers + flags) / pp layers a
 * rank, one fewer on the first stage with account_embedding and on the
 * last with account_loss; or an uneven pipeline's own first and last
 * counts, the layers left shared by the stages between.  Under 1F1B the first stage holds min(m, p)
 * micro-batches, rank 1 one fewer; interleaving multiplies by
 * 1 + (p-1)/(p*v) [MEM, PIPE].
 */
static void
count_params(struct est *x)
{
	const struct model *mo = x->w->model;
	const struct layout *l = x->l;
	const struct shape *s = &x->s;
	double rank = layout_split_layers(mo, l) / x->p;
	double nfirst = rank - l->account_embedding;
	double nlast = rank - l->account_loss;
	double emb = s->V * s->h / x->t, pos = 0, vpf;
	struct stage *first = &x->stage[0], *last = &x->stage[1];

	x->layer_dense = (1 - x->moe_frac) * layer_dense_params(x, false) +
	                 x->moe_frac * layer_dense_params(x, true);
	x->layer_expert = x->moe_frac * s->E * mlp_params(s, s->fe) /
	                  (x->te * x->e);
	if (mo->position_embedding_type == POS_LEARNED)
		pos = (double)mo->max_position_embeddings * s->h;
	if (x->p == 1) {
		/* One stage holds everything; tied weights are one copy. */
		x->nstages = 1;
		stage_init(x, first, 0, s->L, true, true);
		first->dense += s->h + (mo->untie_embeddings ? emb : 0) +
		                emb + pos;
		stage_add_mtp(x, first, emb);
		return;
	}
	if (layout_uneven(l)) {
		rank = layout_middle_layers(mo, l);
		nfirst = layout_first_layers(mo, l);
		nlast = layout_last_layers(mo, l);
	}
	vpf = x->v > 1 ? 1 + (x->p - 1) / (x->p * x->v) : 1;
	x->nstages = x->p > 2 ? 3 : 2;
	stage_init(x, first, 0, nfirst, true, false);
	first->dense += emb + pos;
	first->inflight = x->v > 1 ? x->p * vpf : fmin(x->m, x->p);
	/* The last stage holds the output layer (a copy of tied weights)
	 * and the final norm. */
	stage_init(x, last, s->L - nlast, nlast, false, true);
	last->dense += s->h + emb;
	stage_add_mtp(x, last, emb);
	if (x->nstages == 3) {
		stage_init(x, &x->stage[2], nfirst, rank, false, false);
		x->stage[2].inflight = x->v > 1 ? (x->p - 1) * vpf
		                                : fmin(x->m, x->p - 1);
	}
}

/* The stage whose GPUs hold the most parameters. */
const struct stage *
estimate_heaviest_stage(const struct est *x)
{
	const struct stage *h = &x->stage[0];

	for (int i = 1; i < x->nstages; i++)
		if (x->stage[i].dense + x->stage[i].expert >
		    h->dense + h->expert)
			h = &x->stage[i];
	return h;
}

/* ---- memory ------------------------------------------------------------ */

/*
 * Bytes per parameter of weights, main gradients and optimizer state for
 * mixed precision with Adam [MEM]: bf16 keeps bf16 weights, fp32 main
 * grads, fp32 master weights and two fp32 moments (2 + 4 + 12 = 18);
 * fp16 keeps fp16 grads and an extra fp32 grad copy (2 + 2 + 16 = 20);
 * fp32 needs no master copy (4 + 4 + 8 = 16).  FP8 trains on bf16
 * weights; Transformer Engine caches an FP8 copy of each weight (+1).
 * With fp8_param_gather the FP8 copy is the weight ("keep the parameters
 * in FP8" [GUIDE]): 1 byte, the fp32 master staying in the optimizer.
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

void
estimate_bytes_per_param(const struct est *x, double *wt, double *gr, double *opt)
{
	switch (x->w->precision) {
	case PREC_FP32: *wt = 4; *gr = 4; *opt = 8; break;
	case PREC_FP16: *wt = 2; *gr = 2; *opt = 16; break;
	case PREC_FP8: *wt = 3; *gr = 4; *opt = 12; break;
	case PREC_FP4: *wt = 2 + 2 * FP4_BYTES; *gr = 4; *opt = 12; break;
	default: *wt = 2; *gr = 4; *opt = 12; break;
	}
	if (x->w->framework == FRAMEWORK_TORCHTITAN) {
		torchtitan_bytes_per_param(x, wt, gr, opt);
		return;
	}
	if (x->w->precision == PREC_FP8 && x->l->fp8_param_gather)
		*wt = 1;
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
 * LoRA trains low-rank adapters only: rank-16 adapters on the attention
 * projections are about 0.5 % of a 7B+ model's weights (Hu et al. 2021,
 * arXiv 2106.09685, table 4 scale), so frozen weights carry neither
 * gradients nor optimizer state and the adapters are this fraction.
 */
#define LORA_TRAINABLE_FRACTION 0.005

/*
 * Megatron FSDP gathers one layer's weights while the previous one
 * computes and reduce-scatters its gradients after its backward
 * ("overlaps the parameter AllGather and gradient ReduceScatter of each
 * Transformer layer with its associated forward and backward
 * computations" [GUIDE]): two layers are whole at a time.
 */
#define FSDP_GATHERED_LAYERS 2.0

/* Bytes a weight FSDP gathers holds: the resident copy's, but
 * torchtitan's fp32 shards gather in bf16, or in FP8 with
 * fp8_param_gather (torchao's enable_fsdp_float8_all_gather). */
static double
fsdp_gathered_bytes(const struct est *x)
{
	double wt, gr, opt;

	estimate_bytes_per_param(x, &wt, &gr, &opt);
	if (x->w->framework != FRAMEWORK_TORCHTITAN)
		return wt;
	return x->l->fp8_param_gather && x->w->precision == PREC_FP8
	       ? 1 : x->act_bytes;
}

/* Weights, gradients and optimizer state of a GPU of stage st. */
static void
memory_states(const struct est *x, const struct stage *st,
              struct memory_breakdown *mb)
{
	double wt, gr, opt, trainable, dense_shard, expert_shard, held;
	double transient = x->w->opt_transient_bytes;

	estimate_bytes_per_param(x, &wt, &gr, &opt);
	trainable = x->w->peft_lora ? LORA_TRAINABLE_FRACTION : 1.0;
	/* The distributed optimizer and FSDP shard over dp*cp for dense
	 * weights and over the expert data-parallel group for experts
	 * [MEM]. */
	dense_shard = x->sharded ? x->d * x->c : 1;
	expert_shard = x->sharded ? x->t * x->c * x->d / (x->te * x->e) : 1;
	held = st->dense + st->expert;
	mb->weights = held * wt;
	if (x->l->fsdp) {
		double gathered = FSDP_GATHERED_LAYERS *
		                  (x->layer_dense + x->layer_expert);

		held = st->dense / dense_shard + st->expert / expert_shard +
		       gathered;
		mb->weights = held * wt +
		              gathered * (fsdp_gathered_bytes(x) - wt);
	}
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
static double
moe_layer_activations(const struct est *x)
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
	 * layernorm module discards and recomputes), dropout masks:
	 * replicated over tp unless sequence parallel splits them. */
	repl = sb * s->h * (2 * ab + ((rc & RCM_BIT(RCM_LAYERNORM)) ? 0 : 2 * gin) +
	                    (x->dropout ? 2 : 0));
	/* Q, K, V (mla_up_proj recomputes them from the latents), the
	 * attention output, softmax statistics. */
	split = sb * (((rc & RCM_BIT(RCM_MLA_UP_PROJ)) ? 0 : ab * (s->q + 2 * s->kvd)) +
	              gin * s->q) + 4 * heads * sb;
	if (x->l->attention == ATTN_UNFUSED && scores_kept)
		split += heads * sb * x->seq_local * (2 * ab + 1);
	if (moe_layer)
		return repl / spdiv + split / x->t + moe_layer_activations(x);
	/* fc1 output (2f wide when gated) and the fc2 input, unless the mlp
	 * module recomputes them. */
	if (!(rc & RCM_BIT(RCM_MLP)))
		split += sb * s->f * (ab * 2 * s->gated - ab + gin);
	return repl / spdiv + split / x->t;
}

/* The per-layer activations every stage is built from. */
static void
layer_activation_sizes(struct est *x)
{
	x->a_full = (1 - x->moe_frac) * layer_activations(x, false, false) +
	            x->moe_frac * layer_activations(x, true, false);
	x->a_input = layer_activations(x, false, true);
	x->a_one = layer_activations(x, x->s.Lmoe > 0, false);
}

/* Layers of a stage that full recompute of the block method recomputes:
 * the first N of each of the v model chunks [MLM recompute.py]. */
static double
block_layers(const struct est *x, double n)
{
	if (x->l->recompute_layers <= 0)
		return n;
	return fmin(x->l->recompute_layers * x->v, n);
}

/* Layers a uniform chunk holds: N, or the whole model chunk for 0. */
static double
uniform_chunk(const struct est *x, double n)
{
	double chunk = n / x->v;

	if (x->l->recompute_layers <= 0 || chunk < 1)
		return fmax(chunk, 1);
	return fmin(x->l->recompute_layers, chunk);
}

/* Layers of a stage recomputed in the backward pass. */
double
estimate_recomputed_layers(const struct est *x, double n)
{
	if (x->l->recompute != RECOMPUTE_FULL)
		return 0;
	return x->l->recompute_method == RECOMPUTE_UNIFORM
	       ? n : block_layers(x, n);
}

/*
 * Activations of one micro-batch through a stage of n layers.  Block
 * keeps the input of each recomputed layer; uniform keeps the input of
 * each chunk only [MLM recompute.py]; offloaded layers keep theirs on
 * the host.
 */
static double
stage_activations(const struct est *x, double n)
{
	const struct layout *l = x->l;
	double a_full = x->a_full, a_rc = x->a_input, nrc, chunks;
	double off = fmin(l->offload_layers, n);

	if (l->recompute == RECOMPUTE_FULL &&
	    l->recompute_method == RECOMPUTE_UNIFORM) {
		chunks = x->v * ceil(n / x->v / uniform_chunk(x, n));
		return chunks * a_rc;
	}
	nrc = estimate_recomputed_layers(x, n);
	return (n - nrc - off) * a_full + nrc * a_rc;
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
 * gradient of its input, fp32 each: 12 bytes a logit.  Compiled
 * (torchtitan compiles the loss with the model from 2025 on
 * [components/loss.py@e7c0cae]), inductor saves the smaller 16-bit
 * input, recomputes the softmax in the backward and writes a 16-bit
 * gradient: 2 x 2 bytes.
 */
#define TORCH_LOSS_BYTES 12.0
static double
logit_bytes(const struct est *x)
{
	switch (x->w->ce_fusion) {
	case CE_FUSION_TE:
		return x->act_bytes;
	case CE_FUSION_TORCH:
		return TORCH_LOSS_BYTES;
	case CE_FUSION_COMPILED:
		return 2 * x->act_bytes;
	default:
		return x->act_bytes + 4;
	}
}

/*
 * Activations on a stage: its in-flight micro-batches, the embedding's
 * output on the first stage, and on the last one micro-batch plus the
 * logits (logit_bytes).
 */
static double
memory_activations(const struct est *x, const struct stage *st)
{
	double spdiv = x->l->sequence_parallel ? x->t : 1;
	double sb = x->seq_local * x->b;
	double emb = sb * x->s.h * (x->act_bytes + (x->dropout ? 1 : 0)) /
	             spdiv;
	/* MTP layers each compute their own logits (last stage). */
	double logits = sb * x->s.V / x->t * logit_bytes(x) *
	                (1 + x->s.mtp);
	double act = stage_activations(x, st->layers);
	double working = recompute_working(x, st->layers);

	if (st->first && st->last)
		return act + emb + logits + working;
	if (st->first)
		return st->inflight * (act + emb) + working;
	if (st->last)
		return act + logits + working;
	return st->inflight * act + working;
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

static double
memory_buffers(const struct est *x, double activations)
{
	int comms = (x->t > 1) + (x->p > 1) + (x->c > 1) + (x->d > 1) +
	            (x->e > 1);
	double graphs = !x->l->cuda_graphs ? 0
	              : x->p > 1 ? CUDA_GRAPH_PP_BYTES : CUDA_GRAPH_BYTES;
	double deepep = x->l->moe_dispatcher == MOE_DISPATCH_FLEX
	                ? deepep_buffer_bytes(x) : 0;

	return BUFFER_BASE_BYTES + comms * BUFFER_PER_COMM_BYTES +
	       x->k[CAL_MEM_FRAGMENTATION] * activations + graphs + deepep;
}

/* Where stage i of x->stage (first, last, rank 1) is listed: first,
 * middle, last. */
static int
stage_slot(const struct est *x, int i)
{
	if (x->nstages == 1 || i == 0)
		return 0;
	return i == 2 ? 1 : x->nstages - 1;
}

/* Fill the breakdown for the most loaded GPU (first, last or rank 1),
 * and each stage's total in pipeline order. */
static void
estimate_memory(const struct est *x, struct estimate *out)
{
	static const char *const names[3][3] = {
		{ "all" }, { "first", "last" }, { "first", "middle", "last" },
	};

	out->nstages = x->nstages;
	for (int i = 0; i < x->nstages; i++) {
		struct memory_breakdown mb;
		int slot = stage_slot(x, i);

		memory_states(x, &x->stage[i], &mb);
		mb.activations = memory_activations(x, &x->stage[i]);
		mb.buffers = memory_buffers(x, mb.activations);
		mb.total = mb.weights + mb.gradients + mb.optimizer +
		           mb.activations + mb.buffers;
		out->stages[slot].name = names[x->nstages - 1][slot];
		out->stages[slot].layers = x->stage[i].layers;
		out->stages[slot].total = mb.total;
		if (i == 0 || mb.total > out->mem.total)
			out->mem = mb;
	}
}

/* ---- the whole estimate -------------------------------------------------- */

static void
est_init(struct est *x, const struct workload *w, const struct layout *l)
{
	x->w = w;
	x->l = l;
	x->k = (w->cal ? w->cal : calibration_default())->v;
	shape_of(w->model, l->tp, &x->s);
	x->t = l->tp;
	x->p = l->pp;
	x->c = l->cp;
	x->e = l->ep;
	x->te = layout_etp(l);
	x->v = l->vp > 1 ? l->vp : 1;
	x->d = l->dp > 0 ? l->dp : 1;
	x->b = l->mbs;
	x->m = (double)l->gbs / (l->mbs * x->d);
	x->seq_local = (double)w->seq_length / l->cp;
	x->act_bytes = w->precision == PREC_FP32 ? 4 : 2;
	/* FP8 and FP4 linear layers keep their inputs for the backward in
	 * the GEMM's format (Transformer Engine saves the quantized tensor);
	 * torchao's Float8Linear, which torchtitan uses, saves the 16-bit
	 * input and casts it again in the backward (matmul_with_hp_or_
	 * float8_args: ctx.save_for_backward(input_hp, weight_hp_t)). */
	x->gemm_in_bytes = w->framework == FRAMEWORK_TORCHTITAN ? x->act_bytes
	                   : w->precision == PREC_FP8 ? 1
	                   : w->precision == PREC_FP4 ? FP4_BYTES
	                   : x->act_bytes;
	x->moe_frac = x->s.L > 0 ? x->s.Lmoe / x->s.L : 0;
	x->sharded = l->distributed_optimizer || l->fsdp;
	/* Under torchtitan, selective is its per-op policy, which has no
	 * modules. */
	x->titan_sac = l->recompute == RECOMPUTE_SELECTIVE &&
	               w->framework == FRAMEWORK_TORCHTITAN;
	x->modules = l->recompute == RECOMPUTE_SELECTIVE && !x->titan_sac
	             ? layout_recompute_modules(l) : 0;
	/* GPT-3, BERT and T5 recipes train with dropout 0.1; the RoPE-era
	 * recipes (Llama, Mistral, Qwen, ...) set it to 0. */
	x->dropout = w->model->position_embedding_type != POS_ROPE;
	count_params(x);
	layer_activation_sizes(x);
	flops_per_token(w->model, w->seq_length, &x->fp);
}

double
estimate_moe_layer_bytes(const struct workload *w, const struct layout *l)
{
	struct est x;

	est_init(&x, w, l);
	return x.s.Lmoe > 0 ? moe_layer_activations(&x) : 0;
}

/* The step time's interval from the calibration's residual band. */
static void
estimate_interval(const struct calibration *cal, struct estimate *out)
{
	out->step_s_low = out->step_s * exp(cal->residual_low);
	out->step_s_high = out->step_s * exp(cal->residual_high);
}

void
estimate_layout(const struct workload *w, const struct layout *l,
                struct estimate *out)
{
	struct est x;
	double world = workload_world(w), capacity;
	double tokens = (double)l->gbs * w->seq_length;
	const struct stage *heavy;

	est_init(&x, w, l);
	heavy = estimate_heaviest_stage(&x);
	out->params_total = model_params(w->model);
	out->params_per_gpu = heavy->dense + heavy->expert;
	/* estimate_flops_per_step() from the parts already at hand. */
	out->flops_per_step = tokens * (x.fp.layers + x.fp.scores +
	                                x.fp.logits + x.fp.mtp);
	out->flops_per_step_nemo =
		estimate_flops_per_step_nemo(w->model, w->seq_length, l->gbs);
	estimate_memory(&x, out);
	capacity = (w->gpu_memory_gib - w->margin_gib) * GIB;
	out->memory_status = out->mem.total <= capacity ? MEM_SAFE
	                                                : MEM_OOM_RISK;
	estimate_time(&x, out);
	estimate_interval(w->cal ? w->cal : calibration_default(), out);
	out->tokens_per_s_per_gpu = tokens / (out->step_s * world);
	out->tflops_per_gpu = out->flops_per_step / (out->step_s * world) /
	                      1e12;
	out->mfu = out->tflops_per_gpu /
	           w->gpu->peak_tflops[w->precision];
	out->train_days = w->num_tokens_b * 1e9 / tokens * out->step_s /
	                  86400.0;
}
