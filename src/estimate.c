/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate.c - parameters and FLOPs of a layout, and the whole estimate:
 * memory (estimate-memory.c) and step time (estimate-pipeline.c).
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
	/* NOLINTNEXTLINE(bugprone-integer-division) */
	return (double)(((vocab + mult - 1) / mult) * mult);
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
		s->head_w = dk;
		return;
	}
	s->q = a * dqk;
	s->kvd = a * (dqk + m->v_head_dim) / 2;
	s->attn_w = model_attn_params(m);
	s->score_w = a * (dqk + m->v_head_dim) / 2;
	s->head_w = (dqk + m->v_head_dim) / 2;
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
	/* A T5 decoder layer's cross-attention sees every encoder key. */
	total += (double)model_cross_layers(m) * seq_length;
	return 12.0 * s->score_w * total;
}

/*
 * The same work as the fused attention kernels do it: in tiles of
 * queries by keys, skipping a tile only when the mask hides all of it
 * and computing the others whole, the mask applied inside
 * (FlashAttention-2, Dao 2023, arXiv 2307.08691, section 3.1.1: of the
 * causal mask's blocks those wholly above the diagonal are skipped and
 * the mask is applied to one block a row; section 3.3: blocks of 64
 * or 128 a side).  A sliding window is taken to be bounded the same
 * way, by the first and last key tile a query tile needs; the tiles
 * of cuDNN's Blackwell kernels are not published, and 128 is taken.
 * A causal layer of n tiles then computes (n + 1)/2 key tiles a query
 * tile on average, s/2 + 64 keys; a window of w keys (the query and
 * the w - 1 before it) spans w + 127 keys from the first query of a
 * tile to the last, 2 tiles, 256 keys for GPT-OSS's 128: twice what
 * the model FLOPs count.  Only the time uses it; the model FLOPs stay
 * Megatron-LM's.
 */
#define ATTN_TILE 128.0

static double
score_kernel_flops(const struct model *m, const struct shape *s,
                   int seq_length)
{
	double n = ceil(seq_length / ATTN_TILE);
	double all = n * ATTN_TILE;
	double causal = ATTN_TILE * (n + 1) / 2;
	double keys = m->arch == ARCH_DECODER ? causal : all;
	double win = 0, total;
	int windowed = 0;

	if (m->window_size > 0)
		win = fmin(ATTN_TILE * ceil((m->window_size + ATTN_TILE - 1) /
		                            ATTN_TILE), keys);
	for (int i = 0; i < m->num_layers; i++)
		windowed += model_layer_windowed(m, i);
	total = (s->L - windowed) * keys + windowed * win;
	total += (double)model_cross_layers(m) * all;
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
	             6.0 * (s.L + model_cross_layers(m)) * s.attn_w;
	fp->experts = 6.0 * s.h * phi * s.fe * s.k * s.Lmoe;
	fp->logits = 6.0 * s.h * m->vocab_size;
	fp->scores = score_flops(m, &s, seq_length);
	fp->scores_kernel = score_kernel_flops(m, &s, seq_length);
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
	/* MLA's down projections stay whole on each tp rank
	 * (model_mla_replicated_params). */
	double whole = model_mla_replicated_params(x->w->model);
	double p = (attn_params(s) - whole) / x->t + whole + norms;
	bool bias = x->w->model->bias_linear;

	/* Biases: QKV and fc1 split over tp, the row-parallel outputs'
	 * biases are replicated. */
	if (bias || x->w->model->bias_qkv)
		p += (s->q + 2 * s->kvd) / x->t;
	if (bias)
		p += s->h + (moe_layer ? 0
		             : (2 * s->gated - 1) * s->f / x->t + s->h);
	/* Q and K norms of a head's width, a softmax offset per head:
	 * replicated, and small. */
	if (x->w->model->qk_layernorm && x->w->model->kv_lora_rank <= 0)
		p += 2 * s->dk;
	if (x->w->model->softmax_type == SOFTMAX_LEARNABLE)
		p += x->w->model->num_attention_heads;
	/* A T5 decoder layer's cross-attention and its norm, averaged over
	 * the layers as model_layer_params() averages them. */
	p += (double)model_cross_layers(x->w->model) / s->L *
	     (attn_params(s) / x->t + norms / 2);
	if (!moe_layer)
		return p + mlp_params(s, s->f) / x->t;
	/* Router replicated; shared experts split like a dense MLP. */
	return p + s->h * s->E + mlp_params(s, s->shared_f) / x->t;
}

/* One MoE layer's routed experts on one GPU, with their biases
 * (GPT-OSS's): E experts over the etp x ep group. */
static double
layer_expert_params(const struct est *x)
{
	const struct shape *s = &x->s;
	double bias = x->w->model->bias_linear
	              ? (2 * s->gated - 1) * s->fe + s->h : 0;

	return s->E * (mlp_params(s, s->fe) + bias) / (x->te * x->e);
}

/* Public: see estimate-int.h. */
void
estimate_stage_init(const struct est *x, struct stage *st, int rank)
{
	const struct model *mo = x->w->model;
	bool moe = x->s.Lmoe > 0;
	int nd, n = layout_rank_layers(mo, x->l, rank, &nd);

	st->rank = rank;
	st->layers = n;
	st->dense_layers = nd;
	st->mtp = 0;
	st->plain = 0;
	st->dense = nd * layer_dense_params(x, false) +
	            (n - nd) * layer_dense_params(x, moe);
	st->expert = moe ? (n - nd) * layer_expert_params(x) : 0;
	st->first = rank == 0;
	st->last = rank == x->l->pp - 1;
}

/*
 * The MTP layers go on the last stage, its last model chunk
 * [Megatron-LM multi_token_prediction.py mtp_on_this_rank: "all of MTP
 * layers on the last pipeline stage"]: each one transformer layer of
 * the model's last kind, eh_proj 2h x h split over tp and three norms;
 * with a pipeline the stage also keeps a copy of the embedding they
 * read.  Counted as layers of the stage for activations and time.
 */
static void
stage_add_mtp(const struct est *x, struct stage *st, double emb)
{
	bool moe = x->s.Lmoe > 0;
	double n = x->s.mtp;

	if (n <= 0)
		return;
	st->layers += n;
	st->dense_layers += moe ? 0 : n;
	st->mtp = n;
	st->dense += n * (layer_dense_params(x, moe) +
	                  2 * x->s.h * x->s.h / x->t + 3 * x->s.h) +
	             (x->p > 1 ? emb : 0);
	st->plain += x->p > 1 ? emb : 0;
	st->expert += moe ? n * layer_expert_params(x) : 0;
}

/*
 * The middle ranks whose GPUs hold the most memory (middle) and the
 * most parameters (params: with dense first layers not always the
 * same rank; the data-parallel communication and the optimizer step
 * take the latter).  Middle ranks hold as many layers as each other,
 * chunk by chunk, and a later rank holds no more micro-batches of any
 * chunk in flight than an earlier one (estimate-inflight.c): of the
 * ranks with the same number of dense layers (then in the same chunks:
 * they are the model's first) the earliest is the heaviest, so only
 * the first of each count is weighed, and none after the first with
 * none.
 */
static void
pick_middle(struct est *x, struct stage *middle, struct stage *params)
{
	struct memory_breakdown mb;
	struct stage st;
	double top = -1, total;
	int prev = -1, dense;

	/* Without dense first layers every middle rank holds alike. */
	if (x->s.Lmoe <= 0 || x->s.Ldense <= 0) {
		estimate_stage_init(x, middle, 1);
		*params = *middle;
		return;
	}
	for (int r = 1; r < x->l->pp - 1; r++) {
		layout_rank_layers(x->w->model, x->l, r, &dense);
		if (dense == prev && dense == 0)
			break;
		if (dense == prev)
			continue;
		prev = dense;
		estimate_stage_init(x, &st, r);
		total = estimate_stage_memory(x, &st, &mb);
		if (total > top) {
			top = total;
			*middle = st;
		}
		if (r == 1 || st.dense + st.expert > params->dense +
		                                      params->expert)
			*params = st;
	}
}

/*
 * The stages: the first and the last rank, and the heaviest middle
 * one, each with the layers Megatron-LM gives it (layout_chunk_span):
 * an even split's (layers + flags) / pp a rank, one fewer on the first
 * stage with account_embedding and on the last with account_loss; or
 * an uneven pipeline's own first and last counts, the layers left
 * shared by the stages between.
 */
static void
count_params(struct est *x)
{
	const struct model *mo = x->w->model;
	const struct shape *s = &x->s;
	double emb = s->V * s->h / x->t, pos, rest;
	struct stage *first = &x->stage[0], *last = &x->stage[1];

	x->layer_dense = (1 - x->moe_frac) * layer_dense_params(x, false) +
	                 x->moe_frac * layer_dense_params(x, true);
	x->layer_expert = x->moe_frac * layer_expert_params(x);
	/* Learned positions and BERT's token types, not split over tp;
	 * the final norms and the heads model.c counts, on the last. */
	pos = model_embedding_params(mo) - (double)mo->vocab_size * s->h *
	                                   (mo->untie_embeddings ? 2 : 1);
	rest = model_other_params(mo);
	estimate_stage_init(x, first, 0);
	if (x->p == 1) {
		/* One stage holds everything; tied weights are one copy. */
		x->nstages = 1;
		first->dense += rest + (mo->untie_embeddings ? emb : 0) +
		                emb + pos;
		first->plain += (mo->untie_embeddings ? emb : 0) + emb + pos;
		stage_add_mtp(x, first, emb);
		return;
	}
	x->nstages = x->p > 2 ? 3 : 2;
	first->dense += emb + pos;
	first->plain += emb + pos;
	/* The last stage holds the output layer (a copy of tied weights)
	 * and the final norm. */
	estimate_stage_init(x, last, x->l->pp - 1);
	last->dense += rest + emb;
	last->plain += emb;
	stage_add_mtp(x, last, emb);
	if (x->nstages == 3)
		pick_middle(x, &x->stage[2], &x->params_middle);
}

/* Public: see estimate-int.h. */
void
estimate_layer_kind(const struct est *x, bool moe, struct est *kind)
{
	const struct model *m = x->w->model;
	const struct shape *s = &x->s;
	double phi = m->swiglu ? 3.0 : 2.0;
	double attn = 6.0 * (s->L + model_cross_layers(m)) * s->attn_w;
	double ffn = moe ? 6.0 * s->h * phi * (s->fe * s->k + s->shared_f)
	                 : 6.0 * s->h * phi * s->f;

	*kind = *x;
	kind->moe_frac = moe ? 1 : 0;
	kind->s.Lmoe = moe ? s->L : 0;
	kind->s.Ldense = s->L - kind->s.Lmoe;
	kind->fp.layers = attn + s->L * ffn;
	kind->fp.experts = moe ? 6.0 * s->h * phi * s->fe * s->k * s->L : 0;
	/* What an offloaded layer of the kind copies to the host. */
	kind->a_full = moe ? x->a_moe : x->a_dense;
}

/* Public: see estimate-int.h. */
const struct stage *
estimate_heaviest_stage(const struct est *x)
{
	const struct stage *h = &x->stage[0];

	for (int i = 1; i < x->nstages; i++)
		if (x->stage[i].dense + x->stage[i].expert >
		    h->dense + h->expert)
			h = &x->stage[i];
	if (x->nstages == 3 && x->params_middle.dense +
	    x->params_middle.expert > h->dense + h->expert)
		h = &x->params_middle;
	return h;
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
	x->dropout = model_dropout(w->model);
	/* The activation sizes first: the middle stage is chosen by its
	 * memory. */
	estimate_layer_activation_sizes(x);
	count_params(x);
	flops_per_token(w->model, w->seq_length, &x->fp);
}

double
estimate_moe_layer_bytes(const struct workload *w, const struct layout *l)
{
	struct est x;

	est_init(&x, w, l);
	return x.s.Lmoe > 0 ? estimate_moe_layer_activations(&x) : 0;
}

bool
estimate_finite(const struct estimate *e)
{
	return isfinite(e->step_s) && e->step_s > 0 &&
	       isfinite(e->step_s_low) && isfinite(e->step_s_high) &&
	       isfinite(e->tflops_per_gpu) && isfinite(e->mem.total);
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
	/* At least the one step that takes in a token: 1000 tokens of a
	 * 1 M-token batch trained "in 0.014 seconds" of a 15 s step. */
	out->train_days = fmax(1.0, w->num_tokens_b * 1e9 / tokens) *
	                  out->step_s / 86400.0;
}
