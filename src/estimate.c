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
 *   [CAL]  Constants fitted to the Megatron-LM README weak-scaling table
 *          (H100, BF16); bench/calibration prints the fit.
 * Everything here is arithmetic on doubles: no allocation, no I/O.
 */
#include "autoconfig.h"

#include <math.h>

#include "estimate.h"

/* ---- model shape helpers --------------------------------------------- */

/* Shape numbers used everywhere below, derived once per call. */
struct shape {
	double h, f, fe, q, kvd, V, L, Lmoe, Ldense, E, k, shared_f;
	double gated;        /* 3/2 with SwiGLU (three projections) else 1 */
};

/* Megatron pads the vocabulary to a multiple of 128*tp [MEM]. */
static double
padded_vocab(int vocab, int tp)
{
	int mult = 128 * tp;

	return (double)(((vocab + mult - 1) / mult) * mult);
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
	s->q = (double)m->num_attention_heads * dk;
	s->kvd = (double)g * dk;
	s->V = padded_vocab(m->vocab_size, tp);
	s->L = m->num_layers;
	s->Lmoe = m->num_experts > 0 ? s->L : 0;
	s->Ldense = s->L - s->Lmoe;
	s->E = m->num_experts;
	s->k = m->moe_router_topk > 0 ? m->moe_router_topk : 1;
	s->shared_f = m->moe_shared_ffn_hidden_size;
	s->gated = m->swiglu ? 1.5 : 1.0;
}

/* Attention weights of one layer: Q, K, V and output projections. */
static double
attn_params(const struct shape *s)
{
	return 2.0 * s->h * s->q + 2.0 * s->h * s->kvd;
}

/* Dense MLP weights of one layer (2 or 3 matrices). */
static double
mlp_params(const struct shape *s, double width)
{
	return 2.0 * s->gated * s->h * width;
}

/* ---- FLOPs ------------------------------------------------------------ */

/* Model FLOPs per token of one step, forward and backward [FLOP]. */
struct flop_parts {
	double layers;  /* GEMMs of every transformer layer */
	double scores;  /* attention scores and values */
	double logits;  /* output layer */
};

static void
flops_per_token(const struct model *m, int seq_length,
                struct flop_parts *fp)
{
	struct shape s;
	double phi;

	shape_of(m, 1, &s);
	/* phi = 3 with SwiGLU else 2; V unpadded, as Megatron reports. */
	phi = m->swiglu ? 3.0 : 2.0;
	fp->layers = 6.0 * s.h * (phi * s.f * s.Ldense +
	                          phi * (s.fe * s.k + s.shared_f) * s.Lmoe) +
	             6.0 * s.L * (s.h * (s.q + 2.0 * s.kvd) + s.q * s.h);
	fp->logits = 6.0 * s.h * m->vocab_size;
	/* Causal decoders compute half of the 12*q*L*s^2 score FLOPs. */
	fp->scores = (m->arch == ARCH_DECODER ? 6.0 : 12.0) * s.q * s.L *
	             (double)seq_length;
}

double
estimate_flops_per_step(const struct model *m, int seq_length, int gbs)
{
	struct flop_parts fp;

	flops_per_token(m, seq_length, &fp);
	return (double)gbs * seq_length * (fp.layers + fp.scores + fp.logits);
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

/* ---- parameters on the most loaded GPU --------------------------------- */

/* Per-GPU state of one estimate, derived once and shared by the parts. */
struct est {
	const struct workload *w;
	const struct layout *l;
	struct shape s;
	double t, p, c, e, te, v, d, b, m; /* sizes as doubles */
	double seq_local;                  /* s / cp */
	double act_bytes;                  /* bytes of a 16/32-bit activation */
	double gemm_in_bytes;              /* 1 for FP8 GEMM inputs */
	bool dropout;
	/* Parameters held by a GPU of the first / last stage. */
	double dense_first, dense_last, expert_stage;
};

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
	if (!moe_layer)
		return p + mlp_params(s, s->f) / x->t;
	/* Router replicated; shared experts split like a dense MLP. */
	return p + s->h * s->E + mlp_params(s, s->shared_f) / x->t;
}

static void
count_params(struct est *x)
{
	const struct model *mo = x->w->model;
	const struct shape *s = &x->s;
	double per_stage = s->L / x->p;
	double moe_frac = s->L > 0 ? s->Lmoe / s->L : 0;
	double dense = per_stage * ((1 - moe_frac) * layer_dense_params(x, false) +
	                            moe_frac * layer_dense_params(x, true));
	double emb = s->V * s->h / x->t;

	x->expert_stage = per_stage * moe_frac * s->E *
	                  mlp_params(s, s->fe) / (x->te * x->e);
	x->dense_first = dense + emb;
	if (mo->position_embedding_type == POS_LEARNED)
		x->dense_first += (double)mo->max_position_embeddings * s->h;
	/* The last stage holds the output layer; tied weights keep a copy
	 * there when the pipeline separates it from the embedding. */
	x->dense_last = dense + s->h; /* final norm */
	if (x->p > 1 || mo->untie_embeddings)
		x->dense_last += emb;
	if (x->p == 1)
		x->dense_first = x->dense_last +
		                 (x->dense_first - dense);
}

/* ---- memory ------------------------------------------------------------ */

/*
 * Bytes per parameter of weights, main gradients and optimizer state for
 * mixed precision with Adam [MEM]: bf16 keeps bf16 weights, fp32 main
 * grads, fp32 master weights and two fp32 moments (2 + 4 + 12 = 18);
 * fp16 keeps fp16 grads and an extra fp32 grad copy (2 + 2 + 16 = 20);
 * fp32 needs no master copy (4 + 4 + 8 = 16).  FP8 trains on bf16
 * weights; Transformer Engine caches an FP8 copy of each weight (+1).
 */
static void
bytes_per_param(enum precision prec, double *wt, double *gr, double *opt)
{
	switch (prec) {
	case PREC_FP32: *wt = 4; *gr = 4; *opt = 8; break;
	case PREC_FP16: *wt = 2; *gr = 2; *opt = 16; break;
	case PREC_FP8: *wt = 3; *gr = 4; *opt = 12; break;
	default: *wt = 2; *gr = 4; *opt = 12; break;
	}
}

/*
 * LoRA trains low-rank adapters only: rank-16 adapters on the attention
 * projections are about 0.5 % of a 7B+ model's weights (Hu et al. 2021,
 * arXiv 2106.09685, table 4 scale), so frozen weights carry neither
 * gradients nor optimizer state and the adapters are this fraction.
 */
#define LORA_TRAINABLE_FRACTION 0.005

static void
memory_states(const struct est *x, double dense, struct memory_breakdown *mb)
{
	const struct layout *l = x->l;
	double wt, gr, opt, trainable, dense_shard, expert_shard;
	double expert = x->expert_stage;

	bytes_per_param(x->w->precision, &wt, &gr, &opt);
	mb->weights = (dense + expert) * wt;
	trainable = x->w->peft_lora ? LORA_TRAINABLE_FRACTION : 1.0;
	mb->gradients = (dense + expert) * gr * trainable;
	/* The distributed optimizer shards over dp*cp for dense weights and
	 * over the expert data-parallel group for experts [MEM]. */
	dense_shard = l->distributed_optimizer ? x->d * x->c : 1;
	expert_shard = l->distributed_optimizer
	                   ? x->t * x->c * x->d / (x->te * x->e) : 1;
	mb->optimizer = (dense / dense_shard + expert / expert_shard) * opt *
	                trainable;
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

	if (recomputed) /* full recompute keeps only the layer input */
		return ab * sb * s->h / spdiv;
	/* Norm inputs, the two GEMM inputs after the norms, dropout masks:
	 * replicated over tp unless sequence parallel splits them. */
	repl = sb * s->h * (2 * ab + 2 * gin + (x->dropout ? 2 : 0));
	/* Q, K, V, the attention output, softmax statistics. */
	split = sb * (ab * (s->q + 2 * s->kvd) + gin * s->q) + 4 * heads * sb;
	if (x->l->attention == ATTN_UNFUSED &&
	    x->l->recompute == RECOMPUTE_NONE)
		split += heads * sb * x->seq_local * (2 * ab + 1);
	if (!moe_layer) {
		/* fc1 output (2f wide when gated) and the fc2 input. */
		split += sb * s->f * (ab * 2 * s->gated - ab + gin);
		return repl / spdiv + split / x->t;
	}
	/* MoE: router logits (fp32), permuted tokens in and out, and the
	 * experts' MLP activations for the k copies of each token. */
	repl += sb * s->E * 4;
	split += sb * s->k * (2 * ab * s->h +
	                      s->fe * (ab * 2 * s->gated - ab + gin)) *
	         x->t / x->te;
	return repl / spdiv + split / x->t;
}

/* Activations of one micro-batch through one pipeline stage. */
static double
stage_activations(const struct est *x)
{
	const struct layout *l = x->l;
	double per_stage = x->s.L / x->p;
	double moe_frac = x->s.L > 0 ? x->s.Lmoe / x->s.L : 0;
	double nrc = 0, a_full, a_rc;

	if (l->recompute == RECOMPUTE_FULL)
		nrc = l->recompute_layers > 0 ? l->recompute_layers : per_stage;
	a_full = (1 - moe_frac) * layer_activations(x, false, false) +
	         moe_frac * layer_activations(x, true, false);
	a_rc = layer_activations(x, false, true);
	return (per_stage - nrc) * a_full + nrc * a_rc;
}

/*
 * Activations on the first and the last stage.  Under 1F1B the first
 * stage holds min(m, p) micro-batches, interleaving multiplies that by
 * 1 + (p-1)/(p*v) [MEM, PIPE]; the last stage holds one, plus the logits
 * (16-bit and the fp32 copy the cross-entropy works on).
 */
static void
memory_activations(const struct est *x, double *first, double *last)
{
	double stage = stage_activations(x);
	double spdiv = x->l->sequence_parallel ? x->t : 1;
	double sb = x->seq_local * x->b;
	double emb = sb * x->s.h * (x->act_bytes + (x->dropout ? 1 : 0)) /
	             spdiv;
	double logits = sb * x->s.V / x->t * (x->act_bytes + 4);
	double inflight = fmin(x->m, x->p);
	double working = 0;

	/* Full recompute re-materialises one layer during its backward. */
	if (x->l->recompute == RECOMPUTE_FULL)
		working = layer_activations(x, x->s.Lmoe > 0, false);
	if (x->v > 1)
		inflight = x->p * (1 + (x->p - 1) / (x->p * x->v));
	if (x->p == 1) {
		*first = *last = stage + emb + logits + working;
		return;
	}
	*first = inflight * (stage + emb) + working;
	*last = stage + logits + working;
}

/*
 * What the framework holds besides the model: CUDA context, cuBLAS
 * workspaces and NCCL buffers (1-3 GB per GPU in practice, notes on
 * estimation), more with each communicator, plus allocator fragmentation
 * of the activation pool.
 */
#define BUFFER_BASE_BYTES (1.25 * GIB)
#define BUFFER_PER_COMM_BYTES (0.125 * GIB)
#define FRAGMENTATION 0.10

static double
memory_buffers(const struct est *x, double activations)
{
	int comms = (x->t > 1) + (x->p > 1) + (x->c > 1) + (x->d > 1) +
	            (x->e > 1);

	return BUFFER_BASE_BYTES + comms * BUFFER_PER_COMM_BYTES +
	       FRAGMENTATION * activations;
}

/* Fill the breakdown for the most loaded GPU (first or last stage). */
static void
estimate_memory(const struct est *x, struct memory_breakdown *mem)
{
	struct memory_breakdown first, last;
	double act_first, act_last;

	memory_activations(x, &act_first, &act_last);
	memory_states(x, x->dense_first, &first);
	memory_states(x, x->dense_last, &last);
	first.activations = act_first;
	last.activations = act_last;
	first.buffers = memory_buffers(x, act_first);
	last.buffers = memory_buffers(x, act_last);
	first.total = first.weights + first.gradients + first.optimizer +
	              first.activations + first.buffers;
	last.total = last.weights + last.gradients + last.optimizer +
	             last.activations + last.buffers;
	*mem = first.total >= last.total ? first : last;
}

/* ---- step time ----------------------------------------------------------- */

/*
 * Efficiency constants [CAL].  Large BF16 GEMMs in cuBLAS/Transformer
 * Engine reach about 70-75 % of the H100's dense peak; narrow per-GPU
 * GEMMs (small h/tp) and short micro-batches lose more to tile
 * quantisation and kernel tails, modelled as saturating curves.  Fused
 * (flash) attention runs at roughly half of peak over forward and
 * backward (FlashAttention-2 paper, Dao 2023, arXiv 2307.08691: 50-73 %
 * of A100 peak forward, lower backward); unfused attention far less.
 */
#ifndef GEMM_EFF_MAX
#define GEMM_EFF_MAX 0.75
#endif
#ifndef GEMM_WIDTH_HALF
#define GEMM_WIDTH_HALF 96.0     /* per-GPU columns at which eff halves */
#endif
#ifndef GEMM_TOKENS_HALF
#define GEMM_TOKENS_HALF 192.0   /* micro-batch tokens at which eff halves */
#endif
#ifndef ATTN_EFF_FLASH
#define ATTN_EFF_FLASH 0.45
#endif
#ifndef ATTN_EFF_UNFUSED
#define ATTN_EFF_UNFUSED 0.20
#endif
/*
 * Memory-bound work per token and layer (norms, residual adds,
 * activation functions, rotary embeddings, dropout, bias adds; forward
 * and backward), in bytes of HBM traffic per hidden and per FFN column.
 */
#ifndef ELEMWISE_BYTES_PER_H
#define ELEMWISE_BYTES_PER_H 160.0
#endif
#ifndef ELEMWISE_BYTES_PER_F
#define ELEMWISE_BYTES_PER_F 10.0
#endif
/* Launch and framework overhead per layer and micro-batch (eager
 * PyTorch without CUDA graphs issues ~40 kernels per layer). */
#ifndef LAYER_OVERHEAD_S
#define LAYER_OVERHEAD_S 150e-6
#endif
/* Share of link bandwidth NCCL collectives achieve (nccl-tests busbw). */
/* Share of TP communication left exposed: Transformer Engine overlaps
 * part of the sequence-parallel all-gather and reduce-scatter with the
 * neighbouring GEMMs [CAL]. */
#ifndef TP_EXPOSED
#define TP_EXPOSED 1.0
#endif
/* Share of the last micro-batch's backward (and the first one's
 * forward) that data-parallel communication can hide behind. */
#ifndef DP_OVERLAP
#define DP_OVERLAP 1.0
#endif
#ifndef COMM_EFF
#define COMM_EFF 0.85
#endif
/* Optimizer step: read and write fp32 master weights and two moments,
 * read fp32 grads, write bf16 weights: bytes per parameter of a shard. */
#ifndef OPT_STEP_BYTES
#define OPT_STEP_BYTES 30.0
#endif

/* HBM bandwidth in bytes/s; catalogs without it get peak/300, the
 * FLOP:byte ratio of the H100 SXM (989 TFLOPS : 3.35 TB/s). */
static double
hbm_bytes_per_s(const struct gpu *g)
{
	if (g->hbm_tbs > 0)
		return g->hbm_tbs * 1e12;
	return g->peak_tflops[PREC_BF16] * 1e12 / 300.0;
}

/*
 * Bandwidth per GPU, in bytes/s, of a collective over a group that spans
 * span consecutive ranks with its members stride ranks apart (Megatron
 * orders ranks tp, cp, dp, pp from the innermost).  Inside a node it is
 * NVLink.  Across nodes NCCL runs one channel per NIC, so a group with k
 * members on each node moves data at k NICs' rate, up to NVLink's.
 */
static double
group_bw(const struct est *x, double span, double stride)
{
	const struct gpu *g = x->w->gpu;
	double domain = g->nvlink_domain > 0 ? g->nvlink_domain : 1;
	double gpn = x->w->gpus_per_node, k;

	if (span <= domain && span <= gpn)
		return g->nvlink_gbs * 1e9 * COMM_EFF;
	k = fmax(1, gpn / stride);
	return fmin(g->nvlink_gbs, k * g->network_gbs) * 1e9 * COMM_EFF;
}

/* Ring all-reduce time of bytes over n ranks. */
static double
allreduce_s(double bytes, double n, double bw)
{
	return n > 1 ? 2.0 * (n - 1) / n * bytes / bw : 0;
}

static double
gemm_efficiency(const struct est *x)
{
	double width = x->s.h / x->t;
	double tokens = x->seq_local * x->b;

	return GEMM_EFF_MAX * width / (width + GEMM_WIDTH_HALF) *
	       tokens / (tokens + GEMM_TOKENS_HALF);
}

/* Peak FLOP/s of the GEMMs: FP8 runs them at the FP8 rate. */
static double
peak_flops(const struct est *x, bool gemm)
{
	const struct gpu *g = x->w->gpu;
	enum precision p = x->w->precision;

	if (!gemm && p == PREC_FP8)
		p = PREC_BF16;
	return g->peak_tflops[p] * 1e12;
}

/* Time of one micro-batch through the slowest stage, split in parts. */
struct mb_time {
	double compute, recompute, tp, cp, ep, pp;
};

static void
microbatch_compute(const struct est *x, struct mb_time *mt)
{
	const struct layout *l = x->l;
	struct flop_parts fp;
	double tokens = x->b * x->w->seq_length / (x->t * x->c);
	double per_stage = x->s.L / x->p;
	double sb = x->seq_local * x->b, hbm = hbm_bytes_per_s(x->w->gpu);
	double gemm_s, attn_s, elem_s, layer_s, nrc = 0;
	double attn_eff = l->attention == ATTN_FLASH ? ATTN_EFF_FLASH
	                                             : ATTN_EFF_UNFUSED;

	flops_per_token(x->w->model, x->w->seq_length, &fp);
	gemm_s = tokens * fp.layers / x->p /
	         (peak_flops(x, true) * gemm_efficiency(x));
	attn_s = tokens * fp.scores / x->p / (peak_flops(x, false) * attn_eff);
	elem_s = per_stage * sb *
	         (ELEMWISE_BYTES_PER_H * x->s.h /
	              (l->sequence_parallel ? x->t : 1) +
	          ELEMWISE_BYTES_PER_F * x->s.f * x->s.gated / x->t) / hbm;
	layer_s = gemm_s + attn_s + elem_s + LAYER_OVERHEAD_S * per_stage;
	/* The last stage also runs the output layer and the loss. */
	mt->compute = layer_s + tokens * fp.logits /
	              (peak_flops(x, true) * gemm_efficiency(x));
	/* Recomputation repeats the forward pass: a third of fwd+bwd. */
	if (l->recompute == RECOMPUTE_FULL)
		nrc = l->recompute_layers > 0 ? l->recompute_layers : per_stage;
	mt->recompute = layer_s / 3.0 * nrc / per_stage;
	if (l->recompute == RECOMPUTE_SELECTIVE &&
	    l->attention == ATTN_UNFUSED)
		mt->recompute += attn_s / 3.0;
	mt->cp = attn_s; /* the ring exchange hides behind attention */
}

/* Communication of one micro-batch through a stage [PIPE]. */
static void
microbatch_comm(const struct est *x, struct mb_time *mt)
{
	const struct layout *l = x->l;
	double per_stage = x->s.L / x->p, ab = x->act_bytes;
	double sb = x->seq_local * x->b, nrc = 0, ar, ring, a2a, hide;

	if (l->recompute == RECOMPUTE_FULL)
		nrc = l->recompute_layers > 0 ? l->recompute_layers : per_stage;
	/* TP: two all-reduces forward, two backward, two more when the
	 * layer's forward is recomputed (reduce-scatter + all-gather under
	 * sequence parallel move the same bytes). */
	ar = allreduce_s(ab * sb * x->s.h, x->t, group_bw(x, x->t, 1));
	mt->tp = TP_EXPOSED * ar * (4 * per_stage + 2 * nrc);
	/* CP: c-1 ring steps of the local K and V forward, K, V and their
	 * gradients backward. */
	ring = x->c > 1 ? 3 * (x->c - 1) * 2 * ab * sb * x->s.kvd /
	                      group_bw(x, x->t * x->c, x->t) * per_stage
	                : 0;
	hide = mt->cp;
	mt->cp = fmax(0, ring - hide);
	/* EP: dispatch and combine all-to-alls, forward and backward. */
	a2a = x->e > 1 ? 4 * ab * sb * x->s.k * x->s.h * (x->e - 1) / x->e /
	                     group_bw(x, x->te * x->e, x->te)
	               : 0;
	mt->ep = a2a * per_stage * (x->s.L > 0 ? x->s.Lmoe / x->s.L : 0);
	/* PP: activations forward and gradients backward per boundary;
	 * interleaving crosses v times as many boundaries. */
	mt->pp = x->p > 1 ? 2 * x->v * ab * sb * x->s.h /
	                        (l->sequence_parallel ? x->t : 1) /
	                        group_bw(x, x->t * x->c * x->d + 1,
	                                 x->t * x->c * x->d)
	                  : 0;
}

/*
 * Data-parallel gradient reduction and parameter gathering, overlapped
 * with the backward of the last and the forward of the first
 * micro-batch; returns the exposed part.
 */
static double
dp_exposed(const struct est *x, double params, double t_mb,
           double *total)
{
	double wt, gr, opt, n = x->d * x->c, bw, rs, ag;

	bytes_per_param(x->w->precision, &wt, &gr, &opt);
	if (n <= 1) {
		*total = 0;
		return 0;
	}
	bw = group_bw(x, x->t * x->c * x->d, x->t * x->c);
	if (x->l->distributed_optimizer) {
		rs = (n - 1) / n * params * gr / bw;
		ag = (n - 1) / n * params * 2 / bw;
	} else {
		rs = allreduce_s(params * gr, n, bw);
		ag = 0;
	}
	*total = rs + ag;
	return fmax(0, rs - DP_OVERLAP * t_mb * 2 / 3) +
	       fmax(0, ag - DP_OVERLAP * t_mb / 3);
}

static void
estimate_time(const struct est *x, struct estimate *out)
{
	struct mb_time mt;
	double t_mb, params = fmax(x->dense_first, x->dense_last);
	double shard = x->l->distributed_optimizer ? x->d * x->c : 1;
	double dp_total, opt_s;

	microbatch_compute(x, &mt);
	microbatch_comm(x, &mt);
	t_mb = mt.compute + mt.recompute + mt.tp + mt.cp + mt.ep + mt.pp;
	out->compute_s = x->m * mt.compute;
	out->recompute_s = x->m * mt.recompute;
	out->tp_comm_s = x->m * mt.tp;
	out->cp_comm_s = x->m * mt.cp;
	out->ep_comm_s = x->m * mt.ep;
	out->pp_comm_s = x->m * mt.pp;
	/* Fill and drain: (p-1)/v micro-batch slots [PIPE]. */
	out->bubble_s = (x->p - 1) / x->v * t_mb;
	out->dp_comm_s = dp_exposed(x, params + x->expert_stage, t_mb,
	                            &dp_total);
	opt_s = OPT_STEP_BYTES * (params / shard + x->expert_stage) /
	        hbm_bytes_per_s(x->w->gpu);
	out->step_s = x->m * t_mb + out->bubble_s + out->dp_comm_s + opt_s;
	out->bubble_ratio = out->bubble_s / out->step_s;
}

/* ---- the whole estimate -------------------------------------------------- */

static void
est_init(struct est *x, const struct workload *w, const struct layout *l)
{
	x->w = w;
	x->l = l;
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
	x->gemm_in_bytes = w->precision == PREC_FP8 ? 1 : x->act_bytes;
	/* GPT-3, BERT and T5 recipes train with dropout 0.1; the RoPE-era
	 * recipes (Llama, Mistral, Qwen, ...) set it to 0. */
	x->dropout = w->model->position_embedding_type != POS_ROPE;
	count_params(x);
}

void
estimate_layout(const struct workload *w, const struct layout *l,
                struct estimate *out)
{
	struct est x;
	double world = workload_world(w), capacity;
	double tokens = (double)l->gbs * w->seq_length;

	est_init(&x, w, l);
	out->params_total = model_params(w->model);
	out->params_per_gpu = fmax(x.dense_first, x.dense_last) +
	                      x.expert_stage;
	out->flops_per_step = estimate_flops_per_step(w->model, w->seq_length,
	                                              l->gbs);
	out->flops_per_step_nemo =
		estimate_flops_per_step_nemo(w->model, w->seq_length, l->gbs);
	estimate_memory(&x, &out->mem);
	capacity = (w->gpu_memory_gib - w->margin_gib) * GIB;
	out->memory_status = out->mem.total <= capacity ? MEM_SAFE
	                                                : MEM_OOM_RISK;
	estimate_time(&x, out);
	out->tokens_per_s_per_gpu = tokens / (out->step_s * world);
	out->tflops_per_gpu = out->flops_per_step / (out->step_s * world) /
	                      1e12;
	out->mfu = out->tflops_per_gpu /
	           w->gpu->peak_tflops[w->precision];
	out->train_days = w->num_tokens_b * 1e9 / tokens * out->step_s /
	                  86400.0;
}
