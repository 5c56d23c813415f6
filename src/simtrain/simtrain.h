/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * simtrain.h - paratune-simtrain, a simulated Megatron-LM trainer.
 *
 * It takes pretrain_gpt.py's own flags, asks paratune's estimator for the
 * memory and step time of the layout they describe, and prints what
 * Megatron-LM (2024, commit 3efa8c2 of NVIDIA/Megatron-LM) prints: its
 * startup lines, iteration lines, memory report, assertion failures and
 * PyTorch's CUDA out-of-memory error.  Tests and demos run whole campaigns
 * through Slurm with it where there is no GPU.
 *
 * The program is split in four files: simtrain-args.c (the flags),
 * simtrain-setup.c (flags to model, layout and estimate, with Megatron's
 * checks), simtrain-print.c (every line in Megatron's or PyTorch's
 * wording) and simtrain.c (main, the training loop, faults, signals).
 */
#ifndef PARATUNE_SIMTRAIN_H
#define PARATUNE_SIMTRAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "estimate.h"
#include "gpu.h"
#include "layout.h"
#include "model.h"
#include "strbuf.h"

#define SIMTRAIN_PROG "paratune-simtrain"

/* Exit statuses: Python's for an uncaught exception and argparse's. */
enum simtrain_exit {
	SIMTRAIN_EXIT_OK = 0,
	SIMTRAIN_EXIT_EXCEPTION = 1, /* Python ends with 1 on an exception */
	SIMTRAIN_EXIT_USAGE = 2,     /* argparse's parser.error() */
	SIMTRAIN_EXIT_INTERRUPT = 130, /* 128 + SIGINT during a hang */
};

/* Value of an integer flag that was not given: Python's None. */
#define SIMTRAIN_UNSET (-1)

/* An integer option with nargs='+': the first values and how many. */
struct simtrain_ints {
	int v[4];
	int n; /* 0: not given */
};

/* Every flag as Megatron-LM's argparse leaves it (its defaults). */
struct simtrain_args {
	/* parallel layout */
	int tp, pp, cp, ep, etp;
	int layers_per_vstage, vstages_per_rank;
	/* --decoder-first/last-pipeline-num-layers */
	int first_pipeline_layers, last_pipeline_layers;
	const char *pipeline_layout;  /* --pipeline-model-parallel-layout */
	int sequence_parallel;
	/* batch */
	int mbs, gbs;
	/* model shape */
	int num_layers, hidden_size, ffn_hidden_size, num_attention_heads;
	int group_query_attention, num_query_groups, kv_channels;
	int seq_length, max_position_embeddings, vocab_size;
	int swiglu, untie_embeddings, disable_bias_linear;
	const char *normalization, *position_embedding_type;
	int num_experts, moe_router_topk, moe_ffn_hidden_size;
	int moe_grouped_gemm;
	/* architectures of issue 12 (Megatron-LM at d98e8a64) */
	int multi_latent_attention, q_lora_rank, kv_lora_rank;
	int qk_head_dim, qk_pos_emb_head_dim, v_head_dim;
	int mtp_num_layers, moe_shared_expert_intermediate_size;
	int qk_layernorm, add_qkv_bias, window_attn_skip_freq;
	const char *moe_layer_freq, *window_size, *softmax_type;
	/* activations and routers of presets (Megatron-LM at d98e8a64) */
	int squared_relu, quick_geglu;
	const char *glu_linear_offset, *activation_func_clamp_value;
	const char *moe_router_score_function;
	int moe_router_num_groups, moe_router_group_topk;
	const char *moe_router_topk_scaling_factor;
	int moe_router_enable_expert_bias;
	const char *moe_router_bias_update_rate, *mscale_all_dim;
	const char *rotary_scaling_factor;
	int reuse_grad_buf_for_mxfp8_param_ag;
	/* precision, recompute, optimizer */
	int bf16, fp16;
	const char *fp8_format;
	const char *recompute_granularity, *recompute_method;
	int recompute_num_layers;
	unsigned recompute_modules;  /* BIT(RCM_*) given; 0: core_attn */
	int use_distributed_optimizer, overlap_grad_reduce;
	int overlap_param_gather;
	const char *attention_backend, *transformer_impl, *tokenizer_type;
	/* the tuning guide's switches (Megatron-LM at d98e8a64) */
	int account_for_embedding, account_for_loss;
	const char *fp8_recipe;
	int fp8_param_gather, tp_comm_overlap, use_megatron_fsdp;
	const char *fp4_format, *fp4_recipe;
	int fp4_param_gather;
	int grad_reduce_in_bf16;
	const char *data_parallel_sharding_strategy, *ckpt_format;
	const char *cuda_graph_impl, *cp_comm_type;
	const char *moe_token_dispatcher_type, *moe_flex_dispatcher_backend;
	int overlap_moe_expert_parallel_comm, delay_wgrad_compute;
	/* what a full-iteration CUDA graph of an MoE model takes */
	int no_check_for_nan_in_loss_and_grad, use_te_op_fuser;
	int moe_paged_stash, moe_pad_experts_for_cuda_graph_inference;
	const char *moe_expert_rank_capacity_factor;
	struct simtrain_ints hierarchical_cp; /* nargs='+' */
	int cpu_offloading_num_layers;
	/* length and logging */
	int train_iters, exit_duration_in_mins, log_interval, log_throughput;
	int eval_iters, mock_data, exit_signal_handler;
	const char *exit_signal;  /* "SIGTERM", "SIGUSR2", ... */
	/* paratune's own */
	const char *gpu;
	int help, version;
};

/* Fill a with Megatron-LM's defaults. */
void simtrain_args_init(struct simtrain_args *a);
/*
 * Parse argv as argparse would; argv strings are borrowed, not copied.
 * Returns 0, or SIMTRAIN_EXIT_USAGE after printing argparse's message.
 */
int simtrain_args_parse(struct simtrain_args *a, int argc, char **argv);
/* The --help text, generated from the option table. */
void simtrain_args_help(FILE *f);
/*
 * FNV-1a hash of every flag's value (in table order, however it was
 * spelled on the command line), the world size and the GPU: the seed of
 * all simulated noise, so that the same configuration prints the same
 * numbers.
 */
uint64_t simtrain_args_hash(const struct simtrain_args *a, int world);

/* A fault injected through PARATUNE_SIM_FAULT. */
enum simtrain_fault_kind {
	FAULT_NONE,
	FAULT_NCCL_TIMEOUT,
	FAULT_NAN,
	FAULT_HANG,
	FAULT_CRASH,
	FAULT_OOM,
	FAULT_HANG_AFTER_FINISH,
};

struct simtrain_fault {
	enum simtrain_fault_kind kind;
	int step; /* the iteration it strikes at */
};

/* One frame of a Python traceback, in Megatron-LM's source. */
struct simtrain_frame {
	const char *file;     /* relative to the Megatron-LM checkout */
	int line;
	const char *function;
	const char *code;
};

/* Where in pretrain() an exception is raised: picks the outer frames. */
enum simtrain_stage {
	STAGE_ARGS,  /* initialize_megatron -> validate_args */
	STAGE_MODEL, /* setup_model_and_optimizer */
	STAGE_STEP,  /* train -> train_step, in the first iteration */
};

/* A Python exception Megatron would raise, and where. */
struct simtrain_failure {
	const char *exception;   /* "AssertionError", "ValueError", ... */
	char message[320];       /* "" for a bare assert */
	enum simtrain_stage stage;
	const struct simtrain_frame *frame; /* the innermost frame */
};

/* Everything the run knows; built once by simtrain_setup(). */
struct simtrain_job {
	struct simtrain_args args;
	struct model model;
	struct gpu gpu;
	struct workload work;
	struct layout layout;
	struct estimate est;
	int world, rank, local_rank;
	int gpus_per_node;       /* from the launcher's environment */
	int tp_rank, pp_rank, dp_rank;
	int padded_vocab;
	bool gbs_defaulted;      /* --global-batch-size was not given */
	uint64_t seed;
	double speedup;          /* simulated seconds per real second */
	struct simtrain_fault fault;
	char node[65];           /* host name, as os.uname()[1] (utsname) */
	bool truth;              /* step time and memory from a truth file */
};

/*
 * PARATUNE_SIM_TRUTH and PARATUNE_CANDIDATE (simtrain-truth.c): take
 * the candidate's step time and peak memory from the truth file.
 * Returns 1 when it did, 0 when the estimator's figures stay (with a
 * warning on standard error when a truth file was named).
 */
int simtrain_apply_truth(struct simtrain_job *j);

/*
 * Build the model, workload and layout from j->args, j->world and
 * j->gpu, check them as Megatron-LM does and run the estimator.  Returns
 * 0, or -1 with *fail describing the exception Megatron would raise.
 */
int simtrain_setup(struct simtrain_job *j, struct simtrain_failure *fail);

/* ---- Megatron-LM's checks, as it raises them (simtrain-check.c) ------ */

/* validate_args() on j->args and j->world: 0, or -1 with *fail set (it
 * clears *fail first). */
int simtrain_check_args(struct simtrain_job *j, struct simtrain_failure *fail);
/*
 * A --pipeline-model-parallel-layout unrolled as Megatron-LM parses it
 * (simtrain-layout.c) into out; -1 when it would pass
 * SIMTRAIN_LAYOUT_MAX bytes.
 */
#define SIMTRAIN_LAYOUT_MAX (1u << 20)
int simtrain_layout_expand(const char *in, struct strbuf *out);
/* --pipeline-model-parallel-layout against the model, as Megatron-LM's
 * PipelineParallelLayerLayout checks it, and against the split
 * paratune simulates (layout_vstage_split). */
int simtrain_check_layout(const struct simtrain_job *j,
                          struct simtrain_failure *fail);
/* TransformerConfig.__post_init__'s recompute and offloading checks. */
int simtrain_check_config(const struct simtrain_args *a,
                          struct simtrain_failure *fail);
/* A model model_validate() refuses, for the reason why: -1. */
int simtrain_raise_model(struct simtrain_failure *fail, const char *why);
/* A layout_check() rule r of j's layout in Megatron's words: -1. */
int simtrain_raise_rule(const struct simtrain_job *j, enum layout_rule r,
                        struct simtrain_failure *fail);

/* ---- flag values with a small grammar (simtrain-args.c) -------------- */

/* A non-negative decimal at *p, which moves past it; 0 or -1. */
int simtrain_take_int(const char **p, int *out);
/* --moe-layer-freq 1 or "([0]*K+[1]*M)": *dense K, *total K + M (-1 for
 * 1); -1 for another pattern. */
int simtrain_moe_freq_first_dense(const char *freq, int *dense, int *total);

/* ---- output in Megatron-LM's and PyTorch's words (simtrain-print.c) -- */

/* Python's repr() of a finite float: "75682.0", "48465.275390625". */
void simtrain_py_float(char *buf, size_t len, double v);
/* PyTorch's format_size(): "786.00 MiB", "61.34 GiB". */
void simtrain_format_size(char *buf, size_t len, double bytes);
/* Local time now as Megatron stamps its lines: "2024-04-06 02:59:36". */
void simtrain_timestamp(char *buf, size_t len);
/* print_datetime(): "[what] datetime: 2024-04-06 02:59:36 ". */
void simtrain_print_datetime(FILE *f, const char *what);
/* A traceback ending in fail's exception. */
void simtrain_print_exception(FILE *f, const struct simtrain_failure *fail);
/* The parts of setup, each ending in a point where setup can fail. */
enum simtrain_phase {
	PHASE_INIT,  /* arguments, tokenizer, torch.distributed */
	PHASE_MODEL, /* parameters per rank (the model is built next) */
	PHASE_READY, /* model, optimizer and data built, training starts */
};
/* The lines rank 0 and each first data-parallel rank print in phase. */
void simtrain_print_startup(FILE *f, const struct simtrain_job *j,
                            enum simtrain_phase phase);
/* Theoretical memory footprints (rank 0, after the first report). */
void simtrain_print_theoretical_memory(FILE *f, const struct simtrain_job *j);
/* "[Rank r] (after N iterations) memory (MB) | allocated: ..." */
void simtrain_print_memory(FILE *f, const struct simtrain_job *j,
                           int iteration);
/*
 * torch.OutOfMemoryError with its traceback; at_setup when the weights
 * alone do not fit (raised while the model is moved to the GPU).
 */
void simtrain_print_oom(FILE *f, const struct simtrain_job *j,
                        bool at_setup);
/* ProcessGroupNCCL's watchdog timeout and the C++ terminate message. */
void simtrain_print_nccl_timeout(FILE *f, const struct simtrain_job *j,
                                 int iteration);
/* The loss assertion Megatron raises after NaN iterations. */
void simtrain_print_nan_assert(FILE *f, const struct simtrain_job *j);
/* A CUDA error (illegal memory access) raised during a step. */
void simtrain_print_crash(FILE *f, const struct simtrain_job *j);

/* ---- the simulation's deterministic noise (simtrain-args.c) ----------- */

/* Independent noise streams, so that no two quantities share draws. */
enum simtrain_stream {
	STREAM_BIAS,       /* the configuration's step time bias */
	STREAM_STEP,       /* per-step time noise */
	STREAM_LOSS,
	STREAM_GRAD_NORM,
	STREAM_FP16_SKIPS, /* iterations the fp16 loss scaler skips */
	STREAM_INIT_TIME,  /* "time to initialize megatron" */
	STREAM_OOM,        /* the out-of-memory message's figures */
	STREAM_NCCL,       /* the watchdog's "ran for" milliseconds */
};

/* A number in [-1, 1) from seed, a stream and an index. */
double simtrain_noise(uint64_t seed, uint64_t stream, uint64_t index);

#endif
