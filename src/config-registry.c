/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-registry.c - the registry of configuration keys.
 *
 * One static table declares every key once: its type, where it is
 * stored, its range, which layers may set it.  Parsing, checks, site
 * locks, `paratune config`, the frozen campaign.conf and the "did you
 * mean" suggestions (config-suggest.c) all walk it.
 */
#include "autoconfig.h"

#include <stddef.h>
#include <string.h>

#include "config-int.h"

#define FIELD_SIZE(type, f) sizeof(((type *)0)->f)

/* Choice lists in the order of the C enums they map onto. */
static const char *const mode_names[] = { "pretrain", "finetune", NULL };
static const char *const heuristics_names[] = { "model", "nemo", NULL };
const char *const config_precision_names[] = {
	"fp32", "fp16", "bf16", "fp8", "fp4", NULL }; /* enum precision */
static const char *const peft_names[] = { "none", "lora", NULL };
static const char *const strategy_names[] = { "adaptive", "all", "top",
                                              NULL };
static const char *const recompute_names[] = {
	"none", "selective", "full", NULL }; /* enum recompute */
static const char *const norm_names[] = { "LayerNorm", "RMSNorm", NULL };
static const char *const pos_emb_names[] = {
	"learned_absolute", "rope", "relative", NULL }; /* enum pos_emb_kind */
static const char *const arch_names[] = {
	"decoder", "encoder", "encoder_decoder", NULL }; /* enum model_arch */
static const char *const softmax_names[] = {
	"vanilla", "off-by-one", "learnable", NULL }; /* enum softmax_kind */
static const char *const router_score_names[] = {
	"softmax", "sigmoid", NULL }; /* enum router_score_kind */

/* KT_ENUM stores through an int: every such enum must be int-sized. */
_Static_assert(sizeof(enum campaign_mode) == sizeof(int), "enum size");
_Static_assert(sizeof(enum heuristics) == sizeof(int), "enum size");
_Static_assert(sizeof(enum precision) == sizeof(int), "enum size");
_Static_assert(sizeof(enum recompute) == sizeof(int), "enum size");
_Static_assert(sizeof(enum attention_impl) == sizeof(int), "enum size");
_Static_assert(sizeof(enum recompute_method) == sizeof(int), "enum size");
_Static_assert(sizeof(enum fp8_recipe) == sizeof(int), "enum size");
_Static_assert(sizeof(enum ce_fusion) == sizeof(int), "enum size");
_Static_assert(sizeof(enum framework) == sizeof(int), "enum size");
_Static_assert(sizeof(enum cp_comm) == sizeof(int), "enum size");
_Static_assert(sizeof(enum moe_dispatcher) == sizeof(int), "enum size");
_Static_assert(sizeof(enum norm_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum pos_emb_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum model_arch) == sizeof(int), "enum size");
_Static_assert(sizeof(enum softmax_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum router_score_kind) == sizeof(int), "enum size");

/*
 * Ranges are sanity bounds that catch typos (tp = 0, seq_length = -1,
 * an extra digit), not facts about hardware: each is far beyond any run
 * published so far (Llama 3 405B trained on 16,384 GPUs with TP 8,
 * PP 16, CP 16; Meta, "The Llama 3 Herd of Models", 2024, table 4).
 */
#define MAX_NODES 100000
#define MAX_PARALLEL CONFIG_MAX_PARALLEL
#define MAX_SEQ (1 << 24)
#define MAX_BATCH CONFIG_MAX_BATCH
#define MAX_DIM CONFIG_MAX_DIM
#define MAX_COUNT 1e9

#define CAMP(f) .in = IN_CAMPAIGN, .off = offsetof(struct settings, f)
#define MODEL(f) .in = IN_MODEL, .off = offsetof(struct model_group, f), \
	.flags = F_MEMBER
#define GPU(f) .in = IN_GPU, .off = offsetof(struct gpu, f), .flags = F_MEMBER
/* A rate where 0 means none or derived, else at least min: a tiny one
 * (3e-308) made every predicted time infinite. */
#define GPU_ZERO(f) .in = IN_GPU, .off = offsetof(struct gpu, f), \
	.flags = F_MEMBER | F_ZERO
#define CALIB(f) .in = IN_CALIBRATION, \
	.off = offsetof(struct calibration, f), .flags = F_MEMBER
#define CAL_KEY(key, p) { .path = "calibration." key, .type = KT_DOUBLE, \
	CALIB(v[CAL_##p]), .min = CAL_LO_##p, .max = CAL_HI_##p }
#define PATTERN(f) .in = IN_PATTERN, .off = offsetof(struct log_pattern, f), \
	.flags = F_MEMBER
#define INTS(p, f, lo, hi) { .path = (p), .type = KT_INTS, CAMP(f), \
	.min = (lo), .max = (hi), .flags = F_AUTO }
#define BASE_INT(p, f, lo, hi) { .path = (p), .type = KT_INT, \
	CAMP(base.layout.f), .min = (lo), .max = (hi), .layers = RUN_ONLY }
#define BOOLS(p, f) { .path = (p), .type = KT_BOOLS, CAMP(f) }
#define BASE_BOOL(p, f) { .path = (p), .type = KT_BOOL, \
	CAMP(base.layout.f), .layers = RUN_ONLY }
#define BASE_ENUM(p, f, c) { .path = (p), .type = KT_ENUM, \
	CAMP(base.layout.f), .layers = RUN_ONLY, .choices = (c) }
/* Megatron-LM's names for the switches it shares with NeMo's guide. */
#define AEMB "account_for_embedding_in_pipeline_split"
#define ALOSS "account_for_loss_in_pipeline_split"

const struct config_key config_registry[] = {
	{ .path = "name", .type = KT_STRING, CAMP(name), .layers = RUN_ONLY,
	  .size = CAMPAIGN_NAME_MAX + 1, .flags = F_NAME },
	{ .path = "model", .type = KT_MODEL, CAMP(model) },
	{ .path = "mode", .type = KT_ENUM, CAMP(mode), .choices = mode_names },
	{ .path = "peft", .type = KT_ENUM_STRING, CAMP(peft),
	  .choices = peft_names },
	{ .path = "nodes", .type = KT_INT, CAMP(nodes), .min = 1,
	  .max = MAX_NODES },
	/* GB200 NVL72 trays hold 4 GPUs, DGX/HGX 8; 64 leaves room. */
	{ .path = "gpus_per_node", .type = KT_INT, CAMP(gpus_per_node),
	  .min = 1, .max = 64 },
	{ .path = "gpu", .type = KT_STRING, CAMP(gpu_name) },
	{ .path = "seq_length", .type = KT_INT, CAMP(seq_length), .min = 1,
	  .max = MAX_SEQ },
	INTS("global_batch_size", global_batch_size, 1, MAX_BATCH),
	{ .path = "precision", .type = KT_ENUM, CAMP(precision),
	  .choices = config_precision_names },
	/* Dropless routing's busiest GPU over the balanced share; 1 is
	 * the forced balance of published benchmarks. */
	{ .path = "moe_token_imbalance", .type = KT_DOUBLE,
	  CAMP(moe_token_imbalance), .min = 1, .max = 64 },
	/* The loss kernel: Transformer Engine's keeps no fp32 copy of the
	 * logits, which changes what the last stage holds. */
	{ .path = "cross_entropy_fusion", .type = KT_ENUM,
	  CAMP(cross_entropy_fusion), .choices = ce_fusion_names },
	/* Whose training code ran: torchtitan's runs keep other tensors
	 * (its loss, torchao's FP8 inputs, FSDP2's fp32 shards). */
	{ .path = "framework", .type = KT_ENUM, CAMP(framework),
	  .choices = framework_names },
	{ .path = "num_tokens_in_b", .type = KT_DOUBLE, CAMP(num_tokens_in_b),
	  .min = 1e-6, .max = 1e9 },
	{ .path = "tflops_per_gpu", .type = KT_DOUBLE, CAMP(tflops_per_gpu),
	  .min = 1e-3, .max = 1e6 },
	{ .path = "max_training_days", .type = KT_DOUBLE,
	  CAMP(max_training_days), .min = 1e-3, .max = 36525 },
	{ .path = "cost_per_gpu_hour", .type = KT_DOUBLE,
	  CAMP(cost_per_gpu_hour), .min = 0, .max = 1e6 },
	{ .path = "currency", .type = KT_STRING, CAMP(currency),
	  .flags = F_SYMBOL },

	{ .path = "search", .type = KT_GROUP },
	{ .path = "search.heuristics", .type = KT_ENUM,
	  CAMP(search.heuristics), .choices = heuristics_names },
	{ .path = "search.strategy", .type = KT_ENUM,
	  CAMP(search.strategy), .choices = strategy_names },
	{ .path = "search.min_gain", .type = KT_DOUBLE, CAMP(search.min_gain),
	  .min = 0, .max = 1 },
	INTS("search.tensor_parallel", search.tp, 1, MAX_PARALLEL),
	INTS("search.pipeline_parallel", search.pp, 1, MAX_PARALLEL),
	INTS("search.context_parallel", search.cp, 1, MAX_PARALLEL),
	INTS("search.expert_parallel", search.ep, 1, MAX_PARALLEL),
	INTS("search.expert_tensor_parallel", search.etp, 1, MAX_PARALLEL),
	INTS("search.virtual_pipeline", search.vp, 1, MAX_PARALLEL),
	INTS("search.micro_batch_size", search.mbs, 1, MAX_BATCH),
	{ .path = "search.recompute", .type = KT_KINDS,
	  CAMP(search.recompute), .choices = recompute_names },
	/* 0: every layer of the stage (layout.h). */
	INTS("search.recompute_num_layers", search.recompute_layers, 0,
	     MAX_DIM),
	{ .path = "search.recompute_method", .type = KT_KINDS,
	  CAMP(search.recompute_method), .choices = recompute_method_names },
	{ .path = "search.sequence_parallel", .type = KT_BOOLS,
	  CAMP(search.sequence_parallel), .flags = F_AUTO },
	{ .path = "search.distributed_optimizer", .type = KT_BOOLS,
	  CAMP(search.distributed_optimizer) },
	/* Selective recompute's modules: sets such as "moe_act+layernorm". */
	{ .path = "search.recompute_modules", .type = KT_SETS,
	  CAMP(search.recompute_modules), .choices = recompute_module_names },
	{ .path = "search.attention", .type = KT_KINDS,
	  CAMP(search.attention), .choices = attention_names },
	/* The tuning guide's knobs (see layout.h for what each does). */
	/* "auto" (unset): what the pipeline split needs (grid.c). */
	{ .path = "search." AEMB, .type = KT_BOOLS,
	  CAMP(search.account_embedding), .flags = F_AUTO },
	{ .path = "search." ALOSS, .type = KT_BOOLS,
	  CAMP(search.account_loss), .flags = F_AUTO },
	{ .path = "search.fp8_recipe", .type = KT_KINDS,
	  CAMP(search.fp8_recipe), .choices = fp8_recipe_names },
	BOOLS("search.fp8_param_gather", search.fp8_param_gather),
	BOOLS("search.fp8_dot_product_attention",
	      search.fp8_dot_product_attention),
	BOOLS("search.grad_reduce_in_bf16", search.grad_reduce_bf16),
	BOOLS("search.cuda_graphs", search.cuda_graphs),
	BOOLS("search.cuda_graph_full_iteration",
	      search.cuda_graph_full_iteration),
	BOOLS("search.tp_comm_overlap", search.tp_comm_overlap),
	BOOLS("search.overlap_grad_reduce", search.overlap_grad_reduce),
	{ .path = "search.overlap_param_gather", .type = KT_BOOLS,
	  CAMP(search.overlap_param_gather), .flags = F_AUTO },
	BOOLS("search.fsdp", search.fsdp),
	{ .path = "search.cp_comm_type", .type = KT_KINDS,
	  CAMP(search.cp_comm_type), .choices = cp_comm_names },
	BOOLS("search.moe_grouped_gemm", search.moe_grouped_gemm),
	{ .path = "search.moe_token_dispatcher", .type = KT_KINDS,
	  CAMP(search.moe_dispatcher), .choices = moe_dispatcher_names },
	BOOLS("search.moe_a2a_overlap", search.moe_a2a_overlap),
	/* Layers whose activations go to host memory; 0: none. */
	{ .path = "search.activation_offload_layers", .type = KT_INTS,
	  CAMP(search.offload_layers), .min = 0, .max = MAX_DIM },
	/* An uneven pipeline's first and last stages; 0: an even share. */
	{ .path = "search.decoder_first_pipeline_num_layers",
	  .type = KT_INTS, CAMP(search.first_stage_layers), .min = 0,
	  .max = MAX_DIM },
	{ .path = "search.decoder_last_pipeline_num_layers",
	  .type = KT_INTS, CAMP(search.last_stage_layers), .min = 0,
	  .max = MAX_DIM },
	/* The tuning guide's placement rules a campaign turns off. */
	{ .path = "search.relax", .type = KT_KINDS, CAMP(search.relax),
	  .choices = layout_relax_names, .flags = F_EMPTY },
	/* nnScaler AutoDist's controls; a negative value sets no limit. */
	{ .path = "search.max_pipeline_bubble_ratio", .type = KT_DOUBLE,
	  CAMP(search.max_bubble_ratio), .min = -1, .max = 1 },
	{ .path = "search.max_pipeline_unbalance_ratio", .type = KT_DOUBLE,
	  CAMP(search.max_unbalance_ratio), .min = -1, .max = MAX_PARALLEL },
	{ .path = "search.min_model_parallel", .type = KT_INT,
	  CAMP(search.min_model_parallel), .min = 1, .max = MAX_PARALLEL },
	{ .path = "search.max_model_parallel", .type = KT_INT,
	  CAMP(search.max_model_parallel), .min = 1, .max = MAX_PARALLEL },
	{ .path = "search.max_candidates", .type = KT_INT,
	  CAMP(search.max_candidates), .min = 1, .max = MAX_COUNT },

	{ .path = "base", .type = KT_GROUP, .layers = RUN_ONLY },
	BASE_INT("base.tensor_parallel", tp, 1, MAX_PARALLEL),
	BASE_INT("base.pipeline_parallel", pp, 1, MAX_PARALLEL),
	BASE_INT("base.context_parallel", cp, 1, MAX_PARALLEL),
	BASE_INT("base.expert_parallel", ep, 1, MAX_PARALLEL),
	/* 0: the same as tensor_parallel (layout.h). */
	BASE_INT("base.expert_tensor_parallel", etp, 0, MAX_PARALLEL),
	BASE_INT("base.virtual_pipeline", vp, 1, MAX_PARALLEL),
	BASE_INT("base.micro_batch_size", mbs, 1, MAX_BATCH),
	BASE_INT("base.global_batch_size", gbs, 1, MAX_BATCH),
	{ .path = "base.recompute", .type = KT_ENUM,
	  CAMP(base.layout.recompute), .layers = RUN_ONLY,
	  .choices = recompute_names },
	BASE_INT("base.recompute_num_layers", recompute_layers, 0, MAX_DIM),
	{ .path = "base.sequence_parallel", .type = KT_BOOL,
	  CAMP(base.layout.sequence_parallel), .layers = RUN_ONLY },
	{ .path = "base.distributed_optimizer", .type = KT_BOOL,
	  CAMP(base.layout.distributed_optimizer), .layers = RUN_ONLY },
	{ .path = "base.attention", .type = KT_ENUM,
	  CAMP(base.layout.attention), .layers = RUN_ONLY,
	  .choices = attention_names },
	BASE_ENUM("base.recompute_method", recompute_method,
	          recompute_method_names),
	/* [] or unset: core_attn alone, Megatron-LM's default. */
	{ .path = "base.recompute_modules", .type = KT_KINDS,
	  CAMP(base.layout.recompute_modules), .layers = RUN_ONLY,
	  .flags = F_EMPTY, .choices = recompute_module_names },
	BASE_BOOL("base." AEMB, account_embedding),
	BASE_BOOL("base." ALOSS, account_loss),
	BASE_ENUM("base.fp8_recipe", fp8_recipe, fp8_recipe_names),
	BASE_BOOL("base.fp8_param_gather", fp8_param_gather),
	BASE_BOOL("base.fp8_dot_product_attention", fp8_dot_product_attention),
	BASE_BOOL("base.grad_reduce_in_bf16", grad_reduce_bf16),
	BASE_BOOL("base.cuda_graphs", cuda_graphs),
	BASE_BOOL("base.cuda_graph_full_iteration", cuda_graph_full_iteration),
	BASE_BOOL("base.tp_comm_overlap", tp_comm_overlap),
	BASE_BOOL("base.overlap_grad_reduce", overlap_grad_reduce),
	BASE_BOOL("base.overlap_param_gather", overlap_param_gather),
	BASE_BOOL("base.fsdp", fsdp),
	BASE_ENUM("base.cp_comm_type", cp_comm, cp_comm_names),
	BASE_BOOL("base.moe_grouped_gemm", moe_grouped_gemm),
	BASE_ENUM("base.moe_token_dispatcher", moe_dispatcher,
	          moe_dispatcher_names),
	BASE_BOOL("base.moe_a2a_overlap", moe_a2a_overlap),
	BASE_INT("base.activation_offload_layers", offload_layers, 0,
	         MAX_DIM),
	BASE_INT("base.decoder_first_pipeline_num_layers",
	         first_stage_layers, 0, MAX_DIM),
	BASE_INT("base.decoder_last_pipeline_num_layers",
	         last_stage_layers, 0, MAX_DIM),
	BASE_BOOL("base.pipeline_layout", pipeline_layout),

	{ .path = "limits", .type = KT_GROUP },
	{ .path = "limits.max_steps_per_run", .type = KT_INT,
	  CAMP(limits.max_steps_per_run), .min = 1, .max = MAX_COUNT },
	/* A year of minutes: longer is surely a typo. */
	{ .path = "limits.max_minutes_per_run", .type = KT_INT,
	  CAMP(limits.max_minutes_per_run), .min = 1, .max = 525960 },
	{ .path = "limits.max_concurrent_jobs", .type = KT_INT,
	  CAMP(limits.max_concurrent_jobs), .min = 1, .max = MAX_NODES },
	{ .path = "limits.retries", .type = KT_INT, CAMP(limits.retries),
	  .min = 0, .max = 100 },
	{ .path = "limits.gpu_hours", .type = KT_DOUBLE,
	  CAMP(limits.gpu_hours), .min = 0, .max = 1e9 },

	{ .path = "memory", .type = KT_GROUP },
	{ .path = "memory.margin_gb", .type = KT_DOUBLE,
	  CAMP(memory.margin_gb), .min = 0, .max = 1e6 },
	{ .path = "memory.gpu_memory_gb", .type = KT_DOUBLE,
	  CAMP(memory.gpu_memory_gb), .min = 0, .max = 1e6 },

	/* Bytes per parameter (nnScaler's opt_resident_coef and
	 * opt_transient_coef times the weight's bytes); a resident value
	 * below 0 keeps the precision's own.  1 KiB a parameter is far
	 * beyond any optimizer (Adam in fp32 keeps 16). */
	{ .path = "optimizer", .type = KT_GROUP },
	{ .path = "optimizer.resident_bytes_per_param", .type = KT_DOUBLE,
	  CAMP(optimizer.resident_bytes_per_param), .min = -1, .max = 1024 },
	{ .path = "optimizer.transient_bytes_per_param", .type = KT_DOUBLE,
	  CAMP(optimizer.transient_bytes_per_param), .min = 0, .max = 1024 },

	{ .path = "run", .type = KT_GROUP },
	/* Paths (a template is a name or a path): no longer than a path
	 * can be, or the open fails far from the key that gave it. */
	{ .path = "run.template", .type = KT_STRING, CAMP(run.template_name),
	  .size = PATH_MAX },
	{ .path = "run.templates_dir", .type = KT_STRING,
	  CAMP(run.templates_dir), .size = PATH_MAX },
	/* Relative to the campaign directory, where scripts/truth writes. */
	{ .path = "run.simulated_truth", .type = KT_STRING,
	  CAMP(run.simulated_truth), .size = PATH_MAX, .flags = F_CLEAR },
	/* A watcher ends each run once its step time is known. */
	{ .path = "run.early_stop", .type = KT_BOOL, CAMP(run.early_stop) },
	/* sbatch's --export: what of submit's environment jobs get. */
	{ .path = "run.export", .type = KT_STRINGS, CAMP(run.export),
	  .flags = F_EXPORT },

	{ .path = "slurm", .type = KT_GROUP },
	{ .path = "slurm.partition", .type = KT_STRING, CAMP(slurm.partition),
	  .flags = F_CLEAR | F_NAME },
	{ .path = "slurm.account", .type = KT_STRING, CAMP(slurm.account),
	  .flags = F_CLEAR | F_NAME },
	{ .path = "slurm.qos", .type = KT_STRING, CAMP(slurm.qos),
	  .flags = F_CLEAR | F_NAME },
	{ .path = "slurm.reservation", .type = KT_STRING,
	  CAMP(slurm.reservation), .flags = F_CLEAR | F_NAME },
	/* The gres type, for clusters whose nodes mix GPU models. */
	{ .path = "slurm.gpu_type", .type = KT_NAME, CAMP(slurm.gpu_type),
	  .size = FIELD_SIZE(struct settings, slurm.gpu_type),
	  .flags = F_CLEAR | F_NAME },
	{ .path = "slurm.directives", .type = KT_STRINGS,
	  CAMP(slurm.directives), .flags = F_OPTION },

	{ .path = "container", .type = KT_GROUP },
	{ .path = "container.image", .type = KT_STRING, CAMP(container.image),
	  .flags = F_CLEAR },
	{ .path = "container.mounts", .type = KT_STRING,
	  CAMP(container.mounts), .flags = F_CLEAR },
	{ .path = "container.workdir", .type = KT_STRING,
	  CAMP(container.workdir), .flags = F_CLEAR },

	{ .path = "env", .type = KT_ENV, CAMP(env) },

	{ .path = "results", .type = KT_GROUP },
	/* -1: automatic (10 % of the steps, at least 1). */
	{ .path = "results.skip_steps", .type = KT_INT,
	  CAMP(results.skip_steps), .min = -1, .max = MAX_COUNT },
	{ .path = "results.min_steps", .type = KT_INT,
	  CAMP(results.min_steps), .min = 1, .max = MAX_COUNT },
	{ .path = "results.patterns", .type = KT_PATTERNS,
	  CAMP(results.patterns) },

	{ .path = "policy", .type = KT_GROUP, .layers = SITE_ONLY },
	{ .path = "policy.locked", .type = KT_STRINGS, CAMP(policy.locked),
	  .layers = SITE_ONLY },
	/* The caps: 0, as when unset, caps nothing. */
	{ .path = "policy.max_nodes", .type = KT_INT, CAMP(policy.max_nodes),
	  .min = 0, .max = MAX_NODES, .layers = SITE_ONLY },
	{ .path = "policy.max_concurrent_jobs", .type = KT_INT,
	  CAMP(policy.max_concurrent_jobs), .min = 0, .max = MAX_NODES,
	  .layers = SITE_ONLY },
	/* A day in seconds: a longer minimum would stall every campaign. */
	{ .path = "policy.min_poll_interval", .type = KT_INT,
	  CAMP(policy.min_poll_interval), .min = 0, .max = 86400,
	  .layers = SITE_ONLY },
	{ .path = "policy.max_candidates", .type = KT_INT,
	  CAMP(policy.max_candidates), .min = 0, .max = MAX_COUNT,
	  .layers = SITE_ONLY },
	{ .path = "policy.max_gpu_hours", .type = KT_DOUBLE,
	  CAMP(policy.max_gpu_hours), .min = 0, .max = 1e9,
	  .layers = SITE_ONLY },
	{ .path = "policy.confirm_gpu_hours", .type = KT_DOUBLE,
	  CAMP(policy.confirm_gpu_hours), .min = 0, .max = 1e9,
	  .layers = SITE_ONLY },

	{ .path = "gpus", .type = KT_GPUS, CAMP(gpus) },
	{ .path = "calibration", .type = KT_CALIBRATION, CAMP(calibrations) },

	/* Members of model = { ... }: Megatron-LM's argument names. */
	{ .path = "model.name", .type = KT_NAME, MODEL(m.name),
	  .size = FIELD_SIZE(struct model, name) },
	/* The family heads every candidate's name, a run directory. */
	{ .path = "model.family", .type = KT_NAME, .in = IN_MODEL,
	  .off = offsetof(struct model_group, m.family),
	  .size = FIELD_SIZE(struct model, family),
	  .flags = F_MEMBER | F_NAME },
	{ .path = "model.nemo_recipe", .type = KT_NAME,
	  .in = IN_MODEL, .off = offsetof(struct model_group, m.nemo_recipe),
	  .size = FIELD_SIZE(struct model, nemo_recipe),
	  .flags = F_MEMBER | F_CLEAR | F_RECIPE },
	{ .path = "model.arch", .type = KT_ENUM, MODEL(m.arch),
	  .choices = arch_names },
	{ .path = "model.num_layers", .type = KT_INT, MODEL(m.num_layers),
	  .min = 1, .max = MAX_DIM },
	{ .path = "model.encoder_num_layers", .type = KT_INT,
	  MODEL(m.encoder_layers), .min = 0, .max = MAX_DIM },
	{ .path = "model.hidden_size", .type = KT_INT, MODEL(m.hidden_size),
	  .min = 1, .max = MAX_DIM },
	{ .path = "model.ffn_hidden_size", .type = KT_INT,
	  MODEL(m.ffn_hidden_size), .min = 1, .max = MAX_DIM },
	{ .path = "model.num_attention_heads", .type = KT_INT,
	  MODEL(m.num_attention_heads), .min = 1, .max = MAX_DIM },
	{ .path = "model.num_query_groups", .type = KT_INT,
	  MODEL(m.num_query_groups), .min = 1, .max = MAX_DIM },
	{ .path = "model.kv_channels", .type = KT_INT, MODEL(m.kv_channels),
	  .min = 1, .max = MAX_DIM },
	{ .path = "model.vocab_size", .type = KT_INT, MODEL(m.vocab_size),
	  .min = 1, .max = 1 << 30 },
	{ .path = "model.max_position_embeddings", .type = KT_INT,
	  MODEL(m.max_position_embeddings), .min = 1, .max = 1 << 30 },
	{ .path = "model.swiglu", .type = KT_BOOL, MODEL(m.swiglu) },
	{ .path = "model.normalization", .type = KT_ENUM,
	  MODEL(m.normalization), .choices = norm_names },
	{ .path = "model.position_embedding_type", .type = KT_ENUM,
	  MODEL(m.position_embedding_type), .choices = pos_emb_names },
	{ .path = "model.untie_embeddings_and_output_weights", .type = KT_BOOL,
	  MODEL(m.untie_embeddings) },
	{ .path = "model.add_bias_linear", .type = KT_BOOL,
	  MODEL(m.bias_linear) },
	{ .path = "model.add_qkv_bias", .type = KT_BOOL, MODEL(m.bias_qkv) },
	/* 0: a dense model, as Megatron-LM treats num_experts = 0. */
	{ .path = "model.num_experts", .type = KT_INT, MODEL(m.num_experts),
	  .min = 0, .max = MAX_DIM },
	{ .path = "model.moe_router_topk", .type = KT_INT,
	  MODEL(m.moe_router_topk), .min = 0, .max = MAX_DIM },
	{ .path = "model.moe_ffn_hidden_size", .type = KT_INT,
	  MODEL(m.moe_ffn_hidden_size), .min = 0, .max = MAX_DIM },
	{ .path = "model.moe_shared_expert_intermediate_size", .type = KT_INT,
	  MODEL(m.moe_shared_ffn_hidden_size), .min = 0, .max = MAX_DIM },
	/* An MoE model's first K layers dense: Megatron-LM's
	 * --moe-layer-freq "([0]*K+[1]*(L-K))". */
	{ .path = "model.moe_first_dense_layers", .type = KT_INT,
	  MODEL(m.moe_first_dense_layers), .min = 0, .max = MAX_DIM },
	{ .path = "model.moe_router_score_function", .type = KT_ENUM,
	  MODEL(m.moe_router_score_function), .choices = router_score_names },
	{ .path = "model.moe_router_num_groups", .type = KT_INT,
	  MODEL(m.moe_router_num_groups), .min = 0, .max = MAX_DIM },
	{ .path = "model.moe_router_group_topk", .type = KT_INT,
	  MODEL(m.moe_router_group_topk), .min = 0, .max = MAX_DIM },
	{ .path = "model.moe_router_topk_scaling_factor", .type = KT_DOUBLE,
	  MODEL(m.moe_router_topk_scaling_factor), .min = 0, .max = 1e6 },
	{ .path = "model.moe_router_enable_expert_bias", .type = KT_BOOL,
	  MODEL(m.moe_router_enable_expert_bias) },
	/* Multi-latent attention: on with kv_lora_rank > 0. */
	{ .path = "model.q_lora_rank", .type = KT_INT, MODEL(m.q_lora_rank),
	  .min = 0, .max = MAX_DIM },
	{ .path = "model.kv_lora_rank", .type = KT_INT, MODEL(m.kv_lora_rank),
	  .min = 0, .max = MAX_DIM },
	{ .path = "model.qk_head_dim", .type = KT_INT, MODEL(m.qk_head_dim),
	  .min = 0, .max = MAX_DIM },
	{ .path = "model.qk_pos_emb_head_dim", .type = KT_INT,
	  MODEL(m.qk_pos_emb_head_dim), .min = 0, .max = MAX_DIM },
	{ .path = "model.v_head_dim", .type = KT_INT, MODEL(m.v_head_dim),
	  .min = 0, .max = MAX_DIM },
	{ .path = "model.rotary_scaling_factor", .type = KT_DOUBLE,
	  MODEL(m.rotary_scaling_factor), .min = 0, .max = 1e6 },
	{ .path = "model.mscale_all_dim", .type = KT_DOUBLE,
	  MODEL(m.mscale_all_dim), .min = 0, .max = 1e6 },
	{ .path = "model.mtp_num_layers", .type = KT_INT,
	  MODEL(m.mtp_num_layers), .min = 0, .max = MAX_DIM },
	{ .path = "model.qk_layernorm", .type = KT_BOOL,
	  MODEL(m.qk_layernorm) },
	{ .path = "model.window_size", .type = KT_INT, MODEL(m.window_size),
	  .min = 0, .max = MAX_SEQ },
	{ .path = "model.window_attn_skip_freq", .type = KT_INT,
	  MODEL(m.window_attn_skip_freq), .min = 0, .max = MAX_DIM },
	{ .path = "model.softmax_type", .type = KT_ENUM,
	  MODEL(m.softmax_type), .choices = softmax_names },
	{ .path = "model.size_b", .type = KT_DOUBLE, MODEL(size_b),
	  .min = 1e-3, .max = 1e6 },

	/* Members of each gpus = ( { ... } ) entry. */
	{ .path = "gpus.name", .type = KT_NAME, GPU(name),
	  .size = FIELD_SIZE(struct gpu, name) },
	{ .path = "gpus.description", .type = KT_NAME, .in = IN_GPU,
	  .off = offsetof(struct gpu, description),
	  .size = FIELD_SIZE(struct gpu, description),
	  .flags = F_MEMBER | F_CLEAR },
	{ .path = "gpus.memory_gib", .type = KT_DOUBLE, GPU(memory_gib),
	  .min = 1e-3, .max = 1e6 },
	{ .path = "gpus.fp32_tflops", .type = KT_DOUBLE,
	  GPU_ZERO(peak_tflops[PREC_FP32]), .min = 1e-3, .max = 1e7 },
	{ .path = "gpus.fp16_tflops", .type = KT_DOUBLE,
	  GPU_ZERO(peak_tflops[PREC_FP16]), .min = 1e-3, .max = 1e7 },
	{ .path = "gpus.bf16_tflops", .type = KT_DOUBLE,
	  GPU(peak_tflops[PREC_BF16]), .min = 1e-3, .max = 1e7 },
	{ .path = "gpus.fp8_tflops", .type = KT_DOUBLE,
	  GPU_ZERO(peak_tflops[PREC_FP8]), .min = 1e-3, .max = 1e7 },
	/* NVFP4, dense; 0 (the default of a new entry): no FP4. */
	{ .path = "gpus.fp4_tflops", .type = KT_DOUBLE,
	  GPU_ZERO(peak_tflops[PREC_FP4]), .min = 1e-3, .max = 1e7 },
	{ .path = "gpus.nvlink_domain", .type = KT_INT, GPU(nvlink_domain),
	  .min = 1, .max = MAX_PARALLEL },
	/* Above 0: every collective's time divides by them. */
	{ .path = "gpus.nvlink_gbs", .type = KT_DOUBLE, GPU(nvlink_gbs),
	  .min = 1e-3, .max = 1e7 },
	{ .path = "gpus.network_gbs", .type = KT_DOUBLE, GPU(network_gbs),
	  .min = 1e-3, .max = 1e7 },
	/* 0: derived from the peak by the estimator (gpu.h). */
	{ .path = "gpus.hbm_tbs", .type = KT_DOUBLE, GPU_ZERO(hbm_tbs),
	  .min = 1e-3, .max = 1e4 },
	/* 0: PCIe Gen5 x16's 64 GB/s (gpu.h). */
	{ .path = "gpus.host_gbs", .type = KT_DOUBLE, GPU_ZERO(host_gbs),
	  .min = 1e-3, .max = 1e5 },
	/* CUDA's major.minor; 0 (a new entry's default): unknown, and
	 * an fp4 peak then stands for Blackwell (gpu.h). */
	{ .path = "gpus.compute_capability", .type = KT_DOUBLE,
	  GPU_ZERO(compute_capability), .min = 1.0, .max = 99.9 },

	/* Members of each calibration = { GPU = { ... } } entry: the
	 * estimator's constants within their physical bounds
	 * (calibration.c), and the fit's residual band and row count. */
	/* Empty for none: what plan writes into campaign.conf for a
	 * calibration whose layers named none (the built-in defaults'). */
	{ .path = "calibration.name", .type = KT_NAME, .in = IN_CALIBRATION,
	  .off = offsetof(struct calibration, name),
	  .flags = F_MEMBER | F_CLEAR,
	  .size = FIELD_SIZE(struct calibration, name) },
	CAL_KEY("gemm_eff_max", GEMM_EFF_MAX),
	CAL_KEY("gemm_tokens_half", GEMM_TOKENS_HALF),
	CAL_KEY("attn_eff_flash", ATTN_EFF_FLASH),
	CAL_KEY("fp8_gemm_eff", FP8_GEMM_EFF),
	CAL_KEY("comm_eff_nvlink", COMM_EFF_NVLINK),
	CAL_KEY("comm_eff_network", COMM_EFF_NETWORK),
	CAL_KEY("layer_overhead_s", LAYER_OVERHEAD_S),
	CAL_KEY("moe_dispatch_eff", MOE_DISPATCH_EFF),
	CAL_KEY("memory_fragmentation", MEM_FRAGMENTATION),
	CAL_KEY("fp8_block_gemm_eff", FP8_BLOCK_GEMM_EFF),
	CAL_KEY("fp4_gemm_eff", FP4_GEMM_EFF),
	CAL_KEY("moe_layer_overhead_s", MOE_LAYER_OVERHEAD_S),
	CAL_KEY("moe_gemm_eff", MOE_GEMM_EFF),
	CAL_KEY("hybridep_token_s", HYBRIDEP_TOKEN_S),
	{ .path = "calibration.residual_low", .type = KT_DOUBLE,
	  CALIB(residual_low), .min = -5, .max = 0 },
	{ .path = "calibration.residual_high", .type = KT_DOUBLE,
	  CALIB(residual_high), .min = 0, .max = 5 },
	{ .path = "calibration.rows", .type = KT_INT, CALIB(rows),
	  .min = 0, .max = MAX_COUNT },

	/* Members of each results.patterns entry. */
	{ .path = "results.patterns.name", .type = KT_STRING, PATTERN(name) },
	{ .path = "results.patterns.regex", .type = KT_STRING,
	  PATTERN(regex) },
};

/* How many keys: NKEYS here, config_nkeys in the other files. */
#define NKEYS ARRAY_SIZE(config_registry)

const size_t config_nkeys = NKEYS;

/* The registry entry for an exact dotted path, or NULL. */
const struct config_key *
config_registry_find(const char *path)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(config_registry[i].path, path))
			return &config_registry[i];
	return NULL;
}

bool
config_key_range(const char *path, double *min, double *max)
{
	const struct config_key *k = config_registry_find(path);

	if (!k || (k->type != KT_INT && k->type != KT_DOUBLE &&
	           k->type != KT_INTS))
		return false;
	*min = k->min;
	*max = k->max;
	return true;
}

/* Length of the parent group's path ("search" in "search.tp"); 0 at top. */
size_t
config_parent_len(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? (size_t)(dot - path) : 0;
}

/* The last component of a path. */
const char *
config_last_part(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? dot + 1 : path;
}

/* Whether k sits directly in the group whose path is prefix[0..len). */
bool
config_key_in_group(const struct config_key *k, const char *prefix,
                    size_t len)
{
	return config_parent_len(k->path) == len &&
	       !strncmp(k->path, prefix, len);
}
