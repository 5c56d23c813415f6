/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * simtrain-args.c - pretrain_gpt.py's flags, parsed the way argparse
 * parses them, and the configuration hash that seeds the noise.
 *
 * Names, defaults and choices are Megatron-LM's (megatron/training/
 * arguments.py at 3efa8c2, 2024; --num-virtual-stages-per-pipeline-rank,
 * --decoder-first/last-pipeline-num-layers and --attention-backend are
 * later additions, see the notes on launch interfaces).  Megatron
 * builds its parser with allow_abbrev=False, so only exact names
 * match; an unknown flag is argparse's "unrecognized arguments"
 * error with exit status 2.
 */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtrain.h"
#include "strbuf.h"
#include "util.h"

enum sopt_type {
	SOPT_GROUP,  /* a heading in --help, parses nothing */
	SOPT_FLAG,   /* action='store_true' */
	SOPT_INT,    /* type=int */
	SOPT_STR,    /* type=str */
	SOPT_CHOICE, /* type=str with choices */
	SOPT_INTS,   /* type=int, nargs='+': struct simtrain_ints */
	SOPT_NAMES,  /* nargs='*' of choices: an unsigned bit mask */
};

struct sopt {
	enum sopt_type type;
	const char *name;            /* without the leading "--" */
	size_t offset;               /* into struct simtrain_args */
	const char *const *choices;  /* NULL-terminated */
	const char *metavar;
	const char *help;
	/* Hashed only when given: flags added after the first release,
	 * so that a configuration keeps its simulated numbers. */
	bool hash_when_set;
};

#define OFF(field) offsetof(struct simtrain_args, field)
#define GROUP(title) { SOPT_GROUP, (title), 0, NULL, NULL, NULL, false }
#define FLAG(n, f, h) { SOPT_FLAG, (n), OFF(f), NULL, NULL, (h), false }
#define INT(n, f, h) { SOPT_INT, (n), OFF(f), NULL, "N", (h), false }
#define STR(n, f, m, h) { SOPT_STR, (n), OFF(f), NULL, (m), (h), false }
#define CHOICE(n, f, c, h) { SOPT_CHOICE, (n), OFF(f), (c), NULL, (h), false }
/* The same, for the tuning guide's switches (hashed when given). */
#define KFLAG(n, f, h) { SOPT_FLAG, (n), OFF(f), NULL, NULL, (h), true }
#define KINT(n, f, h) { SOPT_INT, (n), OFF(f), NULL, "N", (h), true }
#define KCHOICE(n, f, c, h) { SOPT_CHOICE, (n), OFF(f), (c), NULL, (h), true }
#define KSTR(n, f, m, h) { SOPT_STR, (n), OFF(f), NULL, (m), (h), true }
#define KINTS(n, f, h) { SOPT_INTS, (n), OFF(f), NULL, "N [N ...]", (h), true }
#define KNAMES(n, f, c, h) { SOPT_NAMES, (n), OFF(f), (c), "NAME [NAME ...]", \
	(h), true }

static const char *const norm_choices[] = { "LayerNorm", "RMSNorm", NULL };
static const char *const router_score_choices[] = {
	"softmax", "sigmoid", "sqrtsoftplus", NULL
};
static const char *const pos_choices[] = {
	"learned_absolute", "rope", "none", NULL
};
static const char *const fp8_choices[] = { "e4m3", "hybrid", NULL };
static const char *const fp8_recipe_choices[] = {
	"tensorwise", "delayed", "mxfp8", "blockwise", "custom", NULL
};
static const char *const fp4_choices[] = { "e2m1", NULL };
static const char *const fp4_recipe_choices[] = { "nvfp4", "custom", NULL };
/* Megatron-LM takes any string (nargs='+', one a layer) and leaves the
 * check to Transformer Engine; the simulation takes one of its four. */
static const char *const cp_comm_choices[] = {
	"p2p", "all_gather", "a2a", "a2a+p2p", NULL
};
static const char *const dispatcher_choices[] = {
	"allgather", "alltoall", "flex", NULL
};
static const char *const flex_backend_choices[] = {
	"deepep", "hybridep", "ncclep", NULL
};
static const char *const cuda_graph_choices[] = {
	"none", "local", "transformer_engine", "full_iteration", NULL
};
static const char *const sharding_choices[] = {
	"no_shard", "optim", "optim_grads", "optim_grads_params", NULL
};
static const char *const ckpt_format_choices[] = {
	"torch", "torch_dist", "torch_dcp", "fsdp_dtensor", NULL
};
static const char *const granularity_choices[] = {
	"full", "selective", NULL
};
static const char *const softmax_choices[] = {
	"vanilla", "off-by-one", "learnable", NULL };
static const char *const method_choices[] = { "uniform", "block", NULL };
static const char *const attention_choices[] = {
	"flash", "fused", "unfused", "local", "auto", NULL
};
static const char *const impl_choices[] = {
	"local", "transformer_engine", NULL
};
/* The catchable ones of the --exit-signal choices (Python's signal
 * names); Megatron-LM lists every signal, even SIGKILL. */
static const char *const exit_signal_choices[] = {
	"SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGTERM", NULL
};
static const char *const tokenizer_choices[] = {
	"BertWordPieceLowerCase", "BertWordPieceCase", "GPT2BPETokenizer",
	"SentencePieceTokenizer", "GPTSentencePieceTokenizer",
	"HuggingFaceTokenizer", "Llama2Tokenizer", "TikTokenizer",
	"NullTokenizer", NULL
};

static const struct sopt simtrain_opts[] = {
	GROUP("parallel layout"),
	INT("tensor-model-parallel-size", tp,
	    "Degree of tensor model parallelism."),
	INT("pipeline-model-parallel-size", pp,
	    "Degree of pipeline model parallelism."),
	INT("context-parallel-size", cp, "Degree of context parallelism."),
	INT("expert-model-parallel-size", ep,
	    "Degree of expert model parallelism."),
	INT("expert-tensor-parallel-size", etp,
	    "Degree of expert tensor parallelism (default: the tensor "
	    "parallel size)."),
	INT("num-layers-per-virtual-pipeline-stage", layers_per_vstage,
	    "Layers per virtual pipeline stage (interleaved schedule)."),
	INT("num-virtual-stages-per-pipeline-rank", vstages_per_rank,
	    "Virtual pipeline stages per pipeline rank."),
	STR("pipeline-model-parallel-layout", pipeline_layout, "LAYOUT",
	    "Layers of each virtual pipeline stage: E (embedding), t "
	    "(decoder), m (MTP), L (loss), '|' between stages, x*n and "
	    "(...)*n repeating."),
	INT("decoder-first-pipeline-num-layers", first_pipeline_layers,
	    "Transformer layers of the first pipeline stage (default: an "
	    "even share)."),
	INT("decoder-last-pipeline-num-layers", last_pipeline_layers,
	    "Transformer layers of the last pipeline stage (default: an "
	    "even share)."),
	FLAG("sequence-parallel", sequence_parallel,
	    "Enable sequence parallel optimization (ignored when tensor "
	    "parallel size is 1)."),
	KFLAG("account-for-embedding-in-pipeline-split",
	    account_for_embedding,
	    "Count the embedding as a layer in the pipeline split."),
	KFLAG("account-for-loss-in-pipeline-split", account_for_loss,
	    "Count the loss as a layer in the pipeline split."),
	KCHOICE("cp-comm-type", cp_comm_type, cp_comm_choices,
	    "Context parallel communication (default p2p; one value for "
	    "every layer)."),
	KINTS("hierarchical-context-parallel-sizes", hierarchical_cp,
	    "Context parallel group sizes, innermost first (a2a+p2p)."),
	GROUP("batch"),
	INT("micro-batch-size", mbs,
	    "Batch size per model instance (local batch size)."),
	INT("global-batch-size", gbs,
	    "Training batch size (default: micro-batch-size times "
	    "data-parallel size)."),
	GROUP("model shape"),
	INT("num-layers", num_layers, "Number of transformer layers."),
	INT("hidden-size", hidden_size, "Transformer hidden size."),
	INT("ffn-hidden-size", ffn_hidden_size,
	    "Transformer feed-forward network hidden size (default: 4*h, or "
	    "8h/3 rounded down to 64 with --swiglu)."),
	INT("num-attention-heads", num_attention_heads,
	    "Number of transformer attention heads."),
	FLAG("group-query-attention", group_query_attention,
	    "Use group-query attention."),
	INT("num-query-groups", num_query_groups,
	    "Number of query groups with --group-query-attention (default 1)."),
	INT("kv-channels", kv_channels,
	    "Projection weights dimension in multi-head attention (default: "
	    "hidden-size / num-attention-heads)."),
	INT("seq-length", seq_length, "Maximum sequence length to process."),
	INT("max-position-embeddings", max_position_embeddings,
	    "Maximum number of position embeddings to use."),
	INT("vocab-size", vocab_size,
	    "Size of vocab before EOD or padding (default 50257, the GPT-2 "
	    "BPE vocabulary)."),
	FLAG("swiglu", swiglu,
	    "Use gated linear units and SiLU activation instead of default "
	    "gelu."),
	KFLAG("squared-relu", squared_relu,
	    "Use squared relu activation instead of default gelu."),
	KFLAG("quick-geglu", quick_geglu,
	    "Use quick geglu activation instead of default gelu."),
	KSTR("glu-linear-offset", glu_linear_offset, "OFFSET",
	    "Offset added to the linear half of a GLU (default 0.0)."),
	KSTR("activation-func-clamp-value", activation_func_clamp_value,
	    "VALUE", "Clamp the activation's input to this value (default: "
	    "none)."),
	CHOICE("normalization", normalization, norm_choices,
	    "Which normalization technique to use."),
	CHOICE("position-embedding-type", position_embedding_type, pos_choices,
	    "Position embedding type."),
	FLAG("untie-embeddings-and-output-weights", untie_embeddings,
	    "Untie embeddings and output weights."),
	FLAG("disable-bias-linear", disable_bias_linear,
	    "Disable bias in the linear layers."),
	INT("num-experts", num_experts,
	    "Number of experts in a mixture-of-experts layer."),
	INT("moe-router-topk", moe_router_topk,
	    "Number of experts to route each token to (default 2)."),
	INT("moe-ffn-hidden-size", moe_ffn_hidden_size,
	    "Hidden size of each expert (default: ffn-hidden-size)."),
	KCHOICE("moe-router-score-function", moe_router_score_function,
	    router_score_choices,
	    "Score function of the router's logits (default softmax)."),
	KINT("moe-router-num-groups", moe_router_num_groups,
	    "Expert groups of group-limited routing (default: none)."),
	KINT("moe-router-group-topk", moe_router_group_topk,
	    "Groups a token's experts come from (default: none)."),
	KSTR("moe-router-topk-scaling-factor",
	    moe_router_topk_scaling_factor, "FACTOR",
	    "Scale on the top-k routing weights (default: none)."),
	KFLAG("moe-router-enable-expert-bias", moe_router_enable_expert_bias,
	    "Balance the load with a per-expert bias, without an auxiliary "
	    "loss."),
	KSTR("moe-router-bias-update-rate", moe_router_bias_update_rate,
	    "RATE", "Update rate of the expert bias (default 1e-3)."),
	FLAG("moe-grouped-gemm", moe_grouped_gemm,
	    "Use grouped GEMM for the experts."),
	KCHOICE("moe-token-dispatcher-type", moe_token_dispatcher_type,
	    dispatcher_choices, "Token dispatcher (default allgather)."),
	KCHOICE("moe-flex-dispatcher-backend", moe_flex_dispatcher_backend,
	    flex_backend_choices,
	    "Backend of the flex dispatcher (default deepep)."),
	KFLAG("overlap-moe-expert-parallel-comm",
	    overlap_moe_expert_parallel_comm,
	    "Overlap the EP all-to-alls with another micro-batch's compute."),
	KFLAG("delay-wgrad-compute", delay_wgrad_compute,
	    "Delay the weight-gradient GEMMs under the combine backward."),
	KSTR("moe-expert-rank-capacity-factor",
	    moe_expert_rank_capacity_factor, "FACTOR",
	    "Token budget per expert rank over its balanced share."),
	KFLAG("moe-paged-stash", moe_paged_stash,
	    "Stash expert activations in pages (needs a rank budget)."),
	KFLAG("moe-pad-experts-for-cuda-graph-inference",
	    moe_pad_experts_for_cuda_graph_inference,
	    "Pad the experts' inputs instead of syncing with the host."),
	KFLAG("use-transformer-engine-op-fuser", use_te_op_fuser,
	    "Fuse the expert MLP through Transformer Engine's op fuser."),
	KINT("moe-shared-expert-intermediate-size",
	    moe_shared_expert_intermediate_size,
	    "Shared expert total ffn hidden size."),
	KSTR("moe-layer-freq", moe_layer_freq, "MOE_LAYER_FREQ",
	    "Frequency between MoE layers and dense layers: 1, or "
	    "\"([0]*K+[1]*M)\" for K dense first layers (default 1)."),
	KFLAG("multi-latent-attention", multi_latent_attention,
	    "Use multi-latent attention for the model."),
	KINT("q-lora-rank", q_lora_rank,
	    "Rank of the query LoRA projection (default: none)."),
	KINT("kv-lora-rank", kv_lora_rank,
	    "Rank of the key-value LoRA projection (default 32)."),
	KINT("qk-head-dim", qk_head_dim,
	    "Dimension of the head in the QK projection (default 128)."),
	KINT("qk-pos-emb-head-dim", qk_pos_emb_head_dim,
	    "Dimension of the position embedding in the QK projection "
	    "(default 64)."),
	KINT("v-head-dim", v_head_dim,
	    "Dimension of the head in the V projection (default 128)."),
	KSTR("rotary-scaling-factor", rotary_scaling_factor, "FACTOR",
	    "Rotary scaling factor for the rotary embeddings (default 1.0)."),
	KSTR("mscale-all-dim", mscale_all_dim, "MSCALE",
	    "YaRN's attention scale on all dimensions under MLA (default "
	    "0.0)."),
	KINT("mtp-num-layers", mtp_num_layers,
	    "Number of multi-token-prediction layers (default: none)."),
	KFLAG("qk-layernorm", qk_layernorm,
	    "Whether to layer normalize the q and k attention embeddings."),
	KFLAG("add-qkv-bias", add_qkv_bias,
	    "Enable bias only in the QKV linear layers."),
	KSTR("window-size", window_size, "WINDOW_SIZE",
	    "Window size for window attention, \"W,0\" (default: none)."),
	KINT("window-attn-skip-freq", window_attn_skip_freq,
	    "Every N-th layer attends to the whole sequence."),
	KCHOICE("softmax-type", softmax_type, softmax_choices,
	    "Softmax type for attention (default vanilla)."),
	GROUP("precision, recompute and optimizer"),
	FLAG("bf16", bf16, "Run model in bfloat16 mode."),
	FLAG("fp16", fp16, "Run model in fp16 mode."),
	CHOICE("fp8-format", fp8_format, fp8_choices,
	    "Which fp8 format scheme to use for FP8 tensors."),
	KCHOICE("fp8-recipe", fp8_recipe, fp8_recipe_choices,
	    "FP8 scaling recipe (default delayed)."),
	KFLAG("grad-reduce-in-bf16", grad_reduce_in_bf16,
	    "Reduce gradients in bfloat16."),
	KFLAG("fp8-param-gather", fp8_param_gather,
	    "Keep parameters in FP8 and gather them in FP8."),
	KFLAG("reuse-grad-buf-for-mxfp8-param-ag",
	    reuse_grad_buf_for_mxfp8_param_ag,
	    "Gather MXFP8 parameters through the gradient buffer."),
	KCHOICE("fp4-format", fp4_format, fp4_choices,
	    "FP4 (NVFP4) training through Transformer Engine."),
	KCHOICE("fp4-recipe", fp4_recipe, fp4_recipe_choices,
	    "FP4 recipe (default nvfp4)."),
	KFLAG("fp4-param-gather", fp4_param_gather,
	    "Keep parameters in FP4 and gather them in FP4."),
	CHOICE("recompute-granularity", recompute_granularity,
	    granularity_choices,
	    "Checkpoint activations to fit larger models: full or selective."),
	CHOICE("recompute-method", recompute_method, method_choices,
	    "How full recomputation picks its layers."),
	INT("recompute-num-layers", recompute_num_layers,
	    "uniform: layers per recomputed unit; block: layers recomputed "
	    "per pipeline stage."),
	KNAMES("recompute-modules", recompute_modules, recompute_module_names,
	    "Submodules selective recompute re-runs (default core_attn)."),
	FLAG("use-distributed-optimizer", use_distributed_optimizer,
	    "Use distributed optimizer."),
	FLAG("overlap-grad-reduce", overlap_grad_reduce,
	    "Overlap DDP grad reduce."),
	FLAG("overlap-param-gather", overlap_param_gather,
	    "Overlap distributed optimizer param all-gather."),
	KFLAG("use-megatron-fsdp", use_megatron_fsdp,
	    "Use Megatron FSDP (with the distributed optimizer)."),
	KCHOICE("data-parallel-sharding-strategy",
	    data_parallel_sharding_strategy, sharding_choices,
	    "What Megatron FSDP shards (default no_shard)."),
	KCHOICE("ckpt-format", ckpt_format, ckpt_format_choices,
	    "Checkpoint format (Megatron FSDP needs fsdp_dtensor)."),
	KFLAG("tp-comm-overlap", tp_comm_overlap,
	    "Overlap tensor parallel communication with GEMMs (needs "
	    "--sequence-parallel)."),
	KCHOICE("cuda-graph-impl", cuda_graph_impl, cuda_graph_choices,
	    "CUDA graph implementation (default none)."),
	KFLAG("no-check-for-nan-in-loss-and-grad",
	    no_check_for_nan_in_loss_and_grad,
	    "Skip the NaN check (full_iteration graphs need it off)."),
	KINT("cpu-offloading-num-layers", cpu_offloading_num_layers,
	    "Layers whose activations are offloaded to the host (default "
	    "0)."),
	CHOICE("attention-backend", attention_backend, attention_choices,
	    "Attention backend; unfused and local are the unfused kernels."),
	CHOICE("transformer-impl", transformer_impl, impl_choices,
	    "Which Transformer implementation to use."),
	GROUP("length, logging and data"),
	INT("train-iters", train_iters,
	    "Total number of iterations to train over all training runs."),
	INT("exit-duration-in-mins", exit_duration_in_mins,
	    "Exit the program after this many minutes of wall time."),
	INT("log-interval", log_interval,
	    "Report loss and timing interval (default 100)."),
	FLAG("log-throughput", log_throughput,
	    "If set, calculate and log throughput per GPU."),
	INT("eval-iters", eval_iters,
	    "Number of iterations to run for evaluation (ignored: no "
	    "evaluation is simulated)."),
	FLAG("exit-signal-handler", exit_signal_handler,
	    "Dump and exit on SIGTERM (always on here; accepted for "
	    "compatibility)."),
	KCHOICE("exit-signal", exit_signal, exit_signal_choices,
	    "Signal for the signal handler to detect (default SIGTERM; "
	    "handled as SIGTERM is)."),
	FLAG("mock-data", mock_data, "Skip data loading and use mock data."),
	CHOICE("tokenizer-type", tokenizer_type, tokenizer_choices,
	    "What type of tokenizer to use."),
	GROUP("paratune"),
	STR("paratune-gpu", gpu, "NAME",
	    "GPU catalog entry to pretend to be (default h100-sxm; see "
	    "'paratune gpus')."),
};

#define N_OPTS (sizeof(simtrain_opts) / sizeof(simtrain_opts[0]))

void
simtrain_args_init(struct simtrain_args *a)
{
	memset(a, 0, sizeof(*a));
	/* megatron/training/arguments.py defaults */
	a->tp = a->pp = a->cp = a->ep = 1;
	a->etp = a->layers_per_vstage = a->vstages_per_rank = SIMTRAIN_UNSET;
	a->first_pipeline_layers = a->last_pipeline_layers = SIMTRAIN_UNSET;
	a->mbs = a->gbs = SIMTRAIN_UNSET;
	a->num_layers = a->hidden_size = a->ffn_hidden_size = SIMTRAIN_UNSET;
	a->num_attention_heads = a->kv_channels = SIMTRAIN_UNSET;
	a->num_query_groups = 1;
	a->seq_length = a->max_position_embeddings = SIMTRAIN_UNSET;
	a->vocab_size = SIMTRAIN_UNSET;
	a->normalization = "LayerNorm";
	a->position_embedding_type = "learned_absolute";
	a->num_experts = a->moe_ffn_hidden_size = SIMTRAIN_UNSET;
	a->moe_router_topk = 2;
	a->kv_lora_rank = 32;
	a->qk_head_dim = a->v_head_dim = 128;
	a->qk_pos_emb_head_dim = 64;
	a->moe_layer_freq = "1";
	a->softmax_type = "vanilla";
	a->glu_linear_offset = "0.0";
	a->activation_func_clamp_value = "";
	a->moe_router_score_function = "softmax";
	a->moe_router_topk_scaling_factor = "";
	a->moe_router_bias_update_rate = "1e-3";
	a->mscale_all_dim = "0.0";
	a->rotary_scaling_factor = "1.0";
	a->window_size = ""; /* None: "" keeps the hash of runs without it */
	a->recompute_num_layers = SIMTRAIN_UNSET;
	a->attention_backend = "auto";
	a->transformer_impl = "transformer_engine";
	a->exit_signal = "SIGTERM";
	a->fp8_recipe = "delayed";
	a->fp4_recipe = "nvfp4";
	a->data_parallel_sharding_strategy = "no_shard";
	a->ckpt_format = "torch_dist";
	a->cuda_graph_impl = "none";
	a->cp_comm_type = "p2p";
	a->moe_token_dispatcher_type = "allgather";
	a->moe_flex_dispatcher_backend = "deepep";
	a->train_iters = a->exit_duration_in_mins = SIMTRAIN_UNSET;
	a->log_interval = 100;
	a->eval_iters = 100;
	/* pretrain_gpt.py passes args_defaults tokenizer_type */
	a->tokenizer_type = "GPT2BPETokenizer";
	a->gpu = "h100-sxm";
}

/* argparse's "usage: ...\nPROG: error: ...\n" on stderr. */
static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "usage: %s [-h] [--version] [--FLAG [VALUE]]...\n",
	        SIMTRAIN_PROG);
	fprintf(stderr, "%s: error: ", SIMTRAIN_PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return SIMTRAIN_EXIT_USAGE;
}

static const struct sopt *
find_opt(const char *name, size_t len)
{
	for (size_t i = 0; i < N_OPTS; i++) {
		const struct sopt *o = &simtrain_opts[i];

		if (o->type != SOPT_GROUP && strlen(o->name) == len &&
		    !strncmp(o->name, name, len))
			return o;
	}
	return NULL;
}

/* argparse takes "-5" as a value (no option looks like a number). */
static bool
looks_like_value(const char *s)
{
	return s[0] != '-' || (s[1] >= '0' && s[1] <= '9') ||
	       (s[1] == '.' && s[2] >= '0' && s[2] <= '9');
}

/* Store one value; returns 0 or the usage error's status. */
static int
store_value(struct simtrain_args *a, const struct sopt *o, const char *v)
{
	char *base = (char *)a;
	int n;

	if (o->type == SOPT_INT) {
		if (parse_int(v, &n) != 0)
			return usage_error("argument --%s: invalid int value: "
			                   "'%s'", o->name, v);
		memcpy(base + o->offset, &n, sizeof(n));
		return 0;
	}
	if (o->type == SOPT_CHOICE) {
		size_t i;

		for (i = 0; o->choices[i]; i++)
			if (!strcmp(o->choices[i], v))
				break;
		if (!o->choices[i]) {
			struct strbuf sb = STRBUF_INIT;
			int status;

			for (i = 0; o->choices[i]; i++)
				strbuf_addf(&sb, "%s'%s'", i ? ", " : "",
				            o->choices[i]);
			status = usage_error("argument --%s: invalid choice: "
			                     "'%s' (choose from %s)", o->name,
			                     v, sb.buf);
			strbuf_release(&sb);
			return status;
		}
	}
	memcpy(base + o->offset, &v, sizeof(v));
	return 0;
}

/* Append one value of an nargs='+' option; returns 0 or a usage error. */
static int
ints_add(struct simtrain_ints *l, const struct sopt *o, const char *v)
{
	int n;

	if (parse_int(v, &n) != 0)
		return usage_error("argument --%s: invalid int value: '%s'",
		                   o->name, v);
	if (l->n < (int)(sizeof l->v / sizeof l->v[0]))
		l->v[l->n] = n;
	l->n++;
	return 0;
}

/* One name of an nargs='*' choice option into its mask. */
static int
names_add(unsigned *mask, const struct sopt *o, const char *v)
{
	for (int i = 0; o->choices[i]; i++)
		if (!strcmp(o->choices[i], v)) {
			*mask |= 1u << i;
			return 0;
		}
	/* transformer_config.py asserts; argparse takes any string. */
	return usage_error("argument --%s: invalid choices for "
	                   "recompute_modules: {'%s'}", o->name, v);
}

/* Every name that follows up to the next option, into a mask. */
static int
parse_names(struct simtrain_args *a, const struct sopt *o, int argc,
            char **argv, int *i, const char *eq_value)
{
	unsigned mask = 0;
	int ret = 0;

	if (eq_value)
		ret = names_add(&mask, o, eq_value);
	else
		while (ret == 0 && *i + 1 < argc &&
		       looks_like_value(argv[*i + 1]))
			ret = names_add(&mask, o, argv[++*i]);
	memcpy((char *)a + o->offset, &mask, sizeof(mask));
	return ret;
}

/*
 * An nargs='+' option: the value after '=', or every value that follows
 * up to the next option (argparse's greedy match); a repeated option
 * replaces the earlier list, as argparse's store does.
 */
static int
parse_ints(struct simtrain_args *a, const struct sopt *o, int argc,
           char **argv, int *i, const char *eq_value)
{
	struct simtrain_ints *l = (void *)((char *)a + o->offset);
	int ret = 0;

	memset(l, 0, sizeof(*l));
	if (eq_value)
		return ints_add(l, o, eq_value);
	while (ret == 0 && *i + 1 < argc && looks_like_value(argv[*i + 1]))
		ret = ints_add(l, o, argv[++*i]);
	if (ret == 0 && l->n == 0)
		return usage_error("argument --%s: expected at least one "
		                   "argument", o->name);
	return ret;
}

/*
 * One "--name[=value]" at argv[*i]; consumes its value.  Returns 0,
 * 1 when the flag is unknown (the caller collects it), or a usage
 * error's status.
 */
static int
parse_one(struct simtrain_args *a, int argc, char **argv, int *i)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct sopt *o = find_opt(arg, len);
	int one = 1;

	if (!o)
		return 1;
	if (o->type == SOPT_FLAG) {
		if (eq)
			return usage_error("argument --%s: ignored explicit "
			                   "argument '%s'", o->name, eq + 1);
		memcpy((char *)a + o->offset, &one, sizeof(one));
		return 0;
	}
	if (o->type == SOPT_INTS)
		return parse_ints(a, o, argc, argv, i, eq ? eq + 1 : NULL);
	if (o->type == SOPT_NAMES)
		return parse_names(a, o, argc, argv, i, eq ? eq + 1 : NULL);
	if (eq)
		return store_value(a, o, eq + 1);
	if (*i + 1 >= argc || !looks_like_value(argv[*i + 1]))
		return usage_error("argument --%s: expected one argument",
		                   o->name);
	return store_value(a, o, argv[++*i]);
}

int
simtrain_args_parse(struct simtrain_args *a, int argc, char **argv)
{
	struct strbuf unknown = STRBUF_INIT;
	int status = 0;

	for (int i = 1; i < argc && status == 0; i++) {
		const char *s = argv[i];
		int r = 1;

		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			a->help = 1;
			break; /* argparse acts on --help at once */
		}
		if (!strcmp(s, "--version")) {
			a->version = 1;
			break;
		}
		/* Anything else is unknown: pretrain_gpt.py takes no
		 * positional argument, and argparse lists an unknown flag
		 * together with the values that follow it. */
		if (s[0] == '-' && s[1] == '-' && s[2] != '\0')
			r = parse_one(a, argc, argv, &i);
		if (r == 1)
			strbuf_addf(&unknown, "%s%s", unknown.len ? " " : "",
			            s);
		else
			status = r;
	}
	if (status == 0 && unknown.len && !a->help && !a->version)
		status = usage_error("unrecognized arguments: %s",
		                     unknown.buf);
	strbuf_release(&unknown);
	return status;
}

/* One option's line(s) in argparse's layout: name at 2, help at 24. */
static void
help_option(FILE *f, const struct sopt *o)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "  --%s", o->name);
	if (o->type == SOPT_CHOICE) {
		strbuf_addstr(&sb, " {");
		for (size_t i = 0; o->choices[i]; i++)
			strbuf_addf(&sb, "%s%s", i ? "," : "", o->choices[i]);
		strbuf_addch(&sb, '}');
	} else if (o->metavar) {
		strbuf_addf(&sb, " %s", o->metavar);
	}
	if (sb.len < 22)
		fprintf(f, "%-24s%s\n", sb.buf, o->help);
	else
		fprintf(f, "%s\n%24s%s\n", sb.buf, "", o->help);
	strbuf_release(&sb);
}

void
simtrain_args_help(FILE *f)
{
	fprintf(f, "usage: %s [-h] [--version] [--FLAG [VALUE]]...\n\n"
	        "A simulated Megatron-LM pretrain_gpt.py: takes its flags, "
	        "predicts memory and step\ntime with paratune's estimator "
	        "and prints Megatron-LM's log lines.\n\n"
	        "options:\n"
	        "  -h, --help            show this help message and exit\n"
	        "  --version             show the version and exit\n",
	        SIMTRAIN_PROG);
	for (size_t i = 0; i < N_OPTS; i++) {
		if (simtrain_opts[i].type == SOPT_GROUP)
			fprintf(f, "\n%s:\n", simtrain_opts[i].name);
		else
			help_option(f, &simtrain_opts[i]);
	}
	fprintf(f, "\nenvironment: WORLD_SIZE, RANK (else SLURM_NTASKS, "
	        "SLURM_PROCID), LOCAL_RANK,\nPARATUNE_SIM_SPEEDUP, "
	        "PARATUNE_SIM_FAULT; see paratune-simtrain(1).\n");
}

/* FNV-1a, 64 bits (Fowler, Noll, Vo; IETF draft-eastlake-fnv). */
static uint64_t
fnv1a(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* offset basis */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL; /* FNV prime */
	}
	return h;
}

/*
 * "name=value\n" of one option for the hash; options marked
 * hash_when_set only when their value differs from the default dflt
 * (both are struct simtrain_args).
 */
static void
hash_option(struct strbuf *sb, const struct sopt *o, const char *base,
            const char *dflt)
{
	const struct simtrain_ints *l = (const void *)(base + o->offset);
	const char *s, *d;
	int n, dn;

	switch (o->type) {
	case SOPT_FLAG:
	case SOPT_INT:
		memcpy(&n, base + o->offset, sizeof(n));
		memcpy(&dn, dflt + o->offset, sizeof(dn));
		if (!o->hash_when_set || n != dn)
			strbuf_addf(sb, "%s=%d\n", o->name, n);
		break;
	case SOPT_NAMES:
		memcpy(&n, base + o->offset, sizeof(n));
		if (n != 0)
			strbuf_addf(sb, "%s=%d\n", o->name, n);
		break;
	case SOPT_INTS:
		if (l->n == 0)
			break;
		strbuf_addf(sb, "%s=", o->name);
		for (int i = 0; i < l->n && i < 4; i++)
			strbuf_addf(sb, "%s%d", i ? "," : "", l->v[i]);
		strbuf_addch(sb, '\n');
		break;
	default:
		memcpy(&s, base + o->offset, sizeof(s));
		memcpy(&d, dflt + o->offset, sizeof(d));
		if (!o->hash_when_set || !s || !d || strcmp(s, d) != 0)
			strbuf_addf(sb, "%s=%s\n", o->name, s ? s : "");
		break;
	}
}

uint64_t
simtrain_args_hash(const struct simtrain_args *a, int world)
{
	struct strbuf sb = STRBUF_INIT;
	struct simtrain_args dflt, v = *a;
	uint64_t h;

	simtrain_args_init(&dflt);
	/* How a run may be stopped does not change its step times: a job
	 * script that ends runs early (paratune watch) prints the same
	 * numbers as one that does not. */
	v.exit_signal_handler = dflt.exit_signal_handler;
	v.exit_signal = dflt.exit_signal;
	for (size_t i = 0; i < N_OPTS; i++) {
		const struct sopt *o = &simtrain_opts[i];

		if (o->type != SOPT_GROUP)
			hash_option(&sb, o, (const char *)&v,
			            (const char *)&dflt);
	}
	strbuf_addf(&sb, "world=%d\n", world);
	h = fnv1a(sb.buf, sb.len);
	strbuf_release(&sb);
	return h;
}

/* splitmix64's finaliser (Steele, Lea, Flood 2014): a well-mixed word
 * from any input, so nearby steps give unrelated noise. */
static uint64_t
splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

double
simtrain_noise(uint64_t seed, uint64_t stream, uint64_t index)
{
	uint64_t x = splitmix64(seed ^ splitmix64(stream) ^
	                        splitmix64(index + 0x632be59bd9b4e019ULL));

	/* The top 53 bits make a double in [0, 1). */
	return (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* ---- values of flags that carry a small grammar -------------------- */

/* A non-negative decimal at *p, which moves past it; 0 or -1. */
int
simtrain_take_int(const char **p, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(*p, &end, 10);
	if (end == *p || errno != 0 || v < 0 || v > INT_MAX)
		return -1;
	*out = (int)v;
	*p = end;
	return 0;
}

/* The literal lit at *p, which moves past it; 0 or -1. */
static int
take_lit(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n) != 0)
		return -1;
	*p += n;
	return 0;
}

/*
 * --moe-layer-freq as the simulator models it: 1 (every layer MoE) or
 * "([0]*K+[1]*M)" (K dense first layers); *dense gets K, *total K + M
 * (-1 for 1).  Returns -1 for another pattern.
 */
int
simtrain_moe_freq_first_dense(const char *freq, int *dense, int *total)
{
	const char *p = freq;
	bool paren = *p == '(';
	int k = 0, m = 0;

	if (!strcmp(freq, "1")) {
		*dense = 0;
		*total = -1;
		return 0;
	}
	p += paren;
	if (take_lit(&p, "[0]*") || simtrain_take_int(&p, &k) ||
	    take_lit(&p, "+[1]*") || simtrain_take_int(&p, &m) ||
	    (paren && take_lit(&p, ")")) || *p)
		return -1;
	*dense = k;
	*total = k + m;
	return 0;
}
