/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-templates-real.c - the Megatron-LM and NeMo 2.0 job-script
 * templates, rendered for a grid of candidates that sets every switch and
 * run by bash with stand-ins for scontrol, srun, python and nemo, which
 * print what they were given.  Megatron-LM's flags are checked against
 * the option list of its parser (tests/data/megatron-args.txt), NeMo's
 * overrides against the paths in the notes on launch interfaces.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "harness.h"
#include "jobscript.h"
#include "models.h"
#include "strbuf.h"
#include "strlist.h"
#include "util.h"
#include "xalloc.h"

/* ---- Megatron-LM's options ----------------------------------------------- */

/* Read tests/data/megatron-args.txt: one "--opt" or "--opt {a,b}" each. */
static void
megatron_args_load(struct str_list *known)
{
	char *path = harness_srcpath("tests/data/megatron-args.txt");
	char *text = harness_slurp(path, NULL);
	char *line, *save = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] == '-')
			str_list_push(known, line);
	free(text);
	free(path);
}

/* The line of the list for option opt, or NULL when the parser lacks it. */
static const char *
megatron_args_find(const struct str_list *known, const char *opt)
{
	size_t n = strlen(opt);

	for (int i = 0; i < known->n; i++)
		if (!strncmp(known->v[i], opt, n) &&
		    (known->v[i][n] == '\0' || known->v[i][n] == ' '))
			return known->v[i];
	return NULL;
}

/* Whether value is one of the comma-separated choices in "{a,b,c}". */
static bool
choice_listed(const char *choices, const char *value)
{
	size_t n = strlen(value);
	const char *p = choices + 1;

	for (;;) {
		if (!strncmp(p, value, n) && (p[n] == ',' || p[n] == '}'))
			return true;
		p = strchr(p, ',');
		if (!p)
			return false;
		p++;
	}
}

/*
 * Whether passing opt (with value, NULL for none) to pretrain_gpt.py is
 * wrong: an option the parser does not know, or a value outside its
 * choices.  The reason is added to why.
 */
static bool
megatron_flag_wrong(const struct str_list *known, const char *opt,
                    const char *value, struct strbuf *why)
{
	const char *line = megatron_args_find(known, opt);
	const char *choices;

	if (!line) {
		strbuf_addf(why, "unknown option %s; ", opt);
		return true;
	}
	choices = strchr(line, '{');
	if (choices && (!value || !choice_listed(choices, value))) {
		strbuf_addf(why, "%s %s is not one of %s; ", opt,
		            value ? value : "(none)", choices);
		return true;
	}
	return false;
}

/* Count the wrong and repeated options of a pretrain_gpt.py argv. */
static int
megatron_argv_problems(const struct str_list *known,
                       const struct str_list *argv, struct strbuf *why)
{
	int problems = 0;

	for (int i = 0; i < argv->n; i++) {
		const char *opt = argv->v[i];
		const char *value = i + 1 < argv->n &&
		                    strncmp(argv->v[i + 1], "--", 2)
		                    ? argv->v[i + 1] : NULL;

		if (strncmp(opt, "--", 2))
			continue;
		problems += megatron_flag_wrong(known, opt, value, why);
		for (int j = 0; j < i; j++)
			if (!strcmp(argv->v[j], opt)) {
				strbuf_addf(why, "%s given twice; ", opt);
				problems++;
			}
	}
	return problems;
}

/* ---- NeMo 2.0's overrides ------------------------------------------------ */

/*
 * Override paths of NeMo 2.0 recipes the template may use: those of the
 * notes on launch interfaces (NeMo 8cfedd72), then, below the blank line,
 * fields of the objects the recipes build, from NeMo's
 * recipes/optim/adam.py (OptimizerConfig of
 * distributed_fused_adam_with_cosine_annealing) and
 * recipes/precision/mixed_precision.py (fp16_mixed).
 */
static const char *const nemo_known_keys[] = {
	"trainer.strategy.tensor_model_parallel_size",
	"trainer.strategy.pipeline_model_parallel_size",
	"trainer.strategy.pipeline_dtype",
	"trainer.strategy.context_parallel_size",
	"trainer.strategy.expert_model_parallel_size",
	"trainer.strategy.expert_tensor_parallel_size",
	"trainer.strategy.virtual_pipeline_model_parallel_size",
	"trainer.strategy.sequence_parallel",
	"data.micro_batch_size", "data.global_batch_size", "data.seq_length",
	"model.config.seq_length", "trainer.max_steps",
	"trainer.log_every_n_steps", "trainer.limit_val_batches",
	"trainer.val_check_interval", "trainer.num_nodes", "trainer.devices",
	"log.ckpt", "trainer.enable_checkpointing",
	"model.config.recompute_granularity", "model.config.recompute_method",
	"model.config.recompute_num_layers", "trainer.plugins.fp8",
	"trainer.plugins.fp8_recipe", "model.config.enable_cuda_graph",
	"trainer.strategy.use_te_rng_tracker",
	/* MegatronStrategy's ddp, Megatron core's DistributedDataParallelConfig
	 * (distributed_data_parallel_config.py), built whole. */
	"trainer.strategy.ddp",

	/* The tuning guide's knobs (seeds, "Index - List of Tuning Knobs")
	 * under the recipe's paths, checked in NeMo 8cfedd72:
	 * MegatronStrategy's arguments (fsdp, save_ckpt_format,
	 * account_for_*), DistributedDataParallelConfig's sharding,
	 * TransformerConfig's fields, MegatronMixedPrecision's
	 * fp8_param_gather and scripts/performance/helpers.py's offloading
	 * settings. */
	"trainer.strategy.account_for_embedding_in_pipeline_split",
	"trainer.strategy.account_for_loss_in_pipeline_split",
	"trainer.strategy.fsdp",
	/* Off under FSDP, as NeMo's performance scripts set it
	 * (helpers.py): Transformer Engine's layers read it before NeMo
	 * turns it off when wrapping the model. */
	"model.config.gradient_accumulation_fusion",
	/* Core 0.13's TransformerConfig field (transformer_config.py,
	 * router.py: apply_random_logits). */
	"model.config.moe_router_force_load_balancing",
	"model.config.cp_comm_type", "model.config.moe_grouped_gemm",
	/* TransformerConfig's token dispatcher and its DeepEP switch
	 * (moe_enable_deepep: Megatron-LM core before the flex backends
	 * had a name of their own; still accepted, as deepep). */
	"model.config.moe_token_dispatcher_type",
	"model.config.moe_shared_expert_overlap",
	"model.config.recompute_modules",
	"model.config.moe_enable_deepep",
	"model.config.cpu_offloading", "model.config.cpu_offloading_weights",
	"model.config.cpu_offloading_num_layers",
	"trainer.plugins.fp8_param_gather",
	/* MegatronMixedPrecision's field for FP8 attention
	 * (nemo/lightning/pytorch/plugins/mixed_precision.py). */
	"trainer.plugins.fp8_dot_product_attention",
	/* The loss kernel: GPTConfig's cross_entropy_loss_fusion
	 * (nemo/collections/llm/gpt/model/base.py) and Megatron core's
	 * cross_entropy_fusion_impl, as scripts/performance/helpers.py sets
	 * it (recipe.model.config.cross_entropy_fusion_impl = "te"). */
	"model.config.cross_entropy_loss_fusion",
	"model.config.cross_entropy_fusion_impl",
	/* An uneven pipeline: MegatronStrategy's arguments as NeMo's
	 * scripts/performance recipes set them (DeepSeek-V3's
	 * recipe.trainer.strategy.num_layers_in_first_pipeline_stage). */
	"trainer.strategy.num_layers_in_first_pipeline_stage",
	"trainer.strategy.num_layers_in_last_pipeline_stage",

	/* Core 0.13's OptimizerConfig field: the distributed optimizer
	 * writes MXFP8 weights into the gradient buffer
	 * (optimizer_config.py, distrib_optimizer.py). */
	"optim.config.reuse_grad_buf_for_mxfp8_param_ag",
	"optim.config.use_distributed_optimizer", "optim.config.bf16",
	"optim.config.fp16", "trainer.plugins.precision",
	"trainer.plugins.params_dtype", "trainer.plugins.pipeline_dtype",
	"trainer.plugins.grad_reduce_in_fp32",

	/* Lightning's Trainer argument, "DD:HH:MM:SS" among its forms
	 * (lightning/pytorch/trainer/trainer.py); nl.Trainer inherits it. */
	"trainer.max_time",
	/* Appended to with += (run.early_stop's PreemptionCallback): the
	 * recipes' trainers hold a list of callbacks (TimingCallback). */
	"trainer.callbacks",
};

/* Whether the KEY of "KEY=VALUE" is a known override path. */
static bool
nemo_key_known(const char *word, size_t keylen)
{
	size_t n = sizeof nemo_known_keys / sizeof nemo_known_keys[0];

	for (size_t i = 0; i < n; i++)
		if (strlen(nemo_known_keys[i]) == keylen &&
		    !strncmp(nemo_known_keys[i], word, keylen))
			return true;
	return false;
}

/* Count overrides (argv after "--yes") that are unknown or repeated. */
static int
nemo_argv_problems(const struct str_list *argv, int first,
                   struct strbuf *why)
{
	int problems = 0;

	for (int i = first; i < argv->n; i++) {
		const char *eq = strchr(argv->v[i], '=');
		size_t keylen = eq ? (size_t)(eq - argv->v[i]) : 0;

		/* nemo_run's "KEY+=VALUE" appends to a list. */
		if (keylen > 0 && argv->v[i][keylen - 1] == '+')
			keylen--;
		if (!eq || !eq[1] || !nemo_key_known(argv->v[i], keylen)) {
			strbuf_addf(why, "unknown override '%s'; ", argv->v[i]);
			problems++;
		}
		for (int j = first; eq && j < i; j++)
			if (!strncmp(argv->v[j], argv->v[i], keylen + 1)) {
				strbuf_addf(why, "%.*s set twice; ",
				            (int)keylen, argv->v[i]);
				problems++;
			}
	}
	return problems;
}

/* ---- the grid ------------------------------------------------------------ */

enum model_kind {
	M_LLAMA3_8B, M_MIXTRAL_8X7B, M_GPT_1P3B, M_DEEPSEEK_V3, M_GPT_OSS_120B,
	M_NEMOTRON4_15B, M_GEMMA_7B,
};

/*
 * What each model must turn into, from its published configuration (see
 * models.h): Llama 3 8B and Mixtral 8x7B are GQA (8 groups), SwiGLU,
 * RMSNorm, RoPE, untied, bias-free; the GPT is Megatron-LM's 1.3B shape
 * (24 layers, 16 heads, hidden 2048) made GPT-3-like here: LayerNorm,
 * learned positions, biases, tied embeddings.  DeepSeek-V3 is the
 * catalog's preset: multi-latent attention (no query groups), 256
 * experts top-8 with a shared expert, 3 dense first layers, one MTP
 * layer, QK (latent) norms, a sigmoid router over 8 groups with an
 * expert bias.  GPT-OSS 120B is llama-style but keeps its biases, gates
 * with quick GeGLU, and has 128-token windows on every other layer and
 * sinks.  Nemotron-4 15B has a squared-ReLU MLP of two projections,
 * LayerNorm and no biases, untied; Gemma 7B a GeGLU MLP, which
 * pretrain_gpt.py builds only as SwiGLU, and tied embeddings.
 */
static const struct model_expect {
	const char *layers, *vocab, *groups, *position, *norm;
	const char *experts, *topk, *recipe;
	const char *activation;  /* model_activation_name */
	bool untied, bias_free;  /* --untie-..., --disable-bias-linear */
} model_expects[] = {
	[M_LLAMA3_8B] = { "32", "128256", "8", "rope", "RMSNorm", NULL, NULL,
	                  "llama3_8b", "swiglu", true, true },
	[M_MIXTRAL_8X7B] = { "32", "32000", "8", "rope", "RMSNorm", "8", "2",
	                     "mixtral_8x7b", "swiglu", true, true },
	[M_GPT_1P3B] = { "24", "131072", NULL, "learned_absolute",
	                 "LayerNorm", NULL, NULL, NULL, "gelu", false, false },
	[M_DEEPSEEK_V3] = { "61", "129280", NULL, "rope", "RMSNorm", "256",
	                    "8", "deepseek_v3", "swiglu", true, true },
	[M_GPT_OSS_120B] = { "36", "201088", "8", "rope", "RMSNorm", "128",
	                     "4", "gpt_oss_120b", "quick-geglu", true, false },
	[M_NEMOTRON4_15B] = { "32", "256000", "8", "rope", "LayerNorm", NULL,
	                      NULL, "nemotron4_15b", "squared-relu", true,
	                      true },
	[M_GEMMA_7B] = { "28", "256000", NULL, "rope", "RMSNorm", NULL, NULL,
	                 "gemma_7b", "geglu", false, true },
};

struct real_case {
	const char *what;
	enum model_kind model;
	const char *gpu;
	int nodes, seq_length;
	enum precision precision;
	int tp, pp, cp, ep, etp, vp, dp, mbs, gbs;
	enum recompute recompute;
	int recompute_layers;
	bool sp, distopt, container, mounts, workdir, env;
	enum attention_impl attention;
	/* The tuning guide's switches. */
	enum recompute_method rc_method;
	bool account_embedding, account_loss, fp8_param_gather, cuda_graphs;
	bool tp_overlap, ogr, opg, fsdp, grouped_gemm;
	enum fp8_recipe fp8_recipe;
	enum cp_comm cp_comm;
	enum moe_dispatcher dispatcher;
	bool a2a_overlap;
	bool full_iteration;     /* with cuda_graphs: one graph a step */
	int offload;
	int first_layers, last_layers; /* an uneven pipeline; 0: even */
	/* The pipeline layout's string, worked out by hand; NULL: none. */
	const char *pipeline_layout;
	/* Worked out by hand from the above. */
	const char *vp_layers;        /* layers / (pp * vp); NULL: none */
	const char *vp_stages;        /* vp of an uneven pipeline */
	const char *recompute_method; /* full: uniform (all) or block (N) */
	const char *recompute_num;
	const char *max_positions;    /* max(seq_length, the model's) */
	const char *max_connections;  /* CUDA_DEVICE_MAX_CONNECTIONS */
	const char *cp_sizes[2];      /* a2a+p2p: hierarchical CP sizes */
	const char *nemo_refuses;     /* what nemo2.sbatch's refusal says */
	/* paratune-simtrain is Megatron-LM of 2024 (3efa8c2), which refused
	 * some layouts that later versions run: its message. */
	const char *simtrain_refuses;
};

/*
 * Eight GPUs a node; dp = nodes * 8 / (tp * pp * cp).  With env the
 * campaign sets CUDA_DEVICE_MAX_CONNECTIONS=8, which stays only where
 * TP and CP are 1; B200 takes 32 (NeMo's PerfEnvPlugin).
 */
static const struct real_case grid[] = {
	{ .what = "dense baseline", .model = M_LLAMA3_8B, .gpu = "h100-sxm",
	  .nodes = 1, .seq_length = 8192, .precision = PREC_BF16,
	  .tp = 1, .pp = 1, .cp = 1, .ep = 1, .vp = 1, .dp = 8, .mbs = 1,
	  .gbs = 64, .recompute = RECOMPUTE_NONE, .attention = ATTN_FLASH,
	  .ogr = true, .max_positions = "8192" },
	{ .what = "tp2 pp4 vp2 full", .model = M_LLAMA3_8B, .gpu = "h100-sxm",
	  .nodes = 2, .seq_length = 8192, .precision = PREC_BF16,
	  .tp = 2, .pp = 4, .cp = 1, .ep = 1, .vp = 2, .dp = 2, .mbs = 1,
	  .gbs = 128, .recompute = RECOMPUTE_FULL, .sp = true,
	  .distopt = true, .container = true, .mounts = true, .env = true,
	  .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .vp_layers = "4",
	  .recompute_method = "uniform", .recompute_num = "1",
	  .max_positions = "8192", .max_connections = "1" },
	{ .what = "tp8 cp2 fp8 long", .model = M_LLAMA3_8B, .gpu = "h100-sxm",
	  .nodes = 2, .seq_length = 16384, .precision = PREC_FP8,
	  .tp = 8, .pp = 1, .cp = 2, .ep = 1, .vp = 1, .dp = 1, .mbs = 1,
	  .gbs = 32, .recompute = RECOMPUTE_SELECTIVE, .sp = true,
	  .distopt = true, .container = true, .workdir = true,
	  .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .max_positions = "16384",
	  .max_connections = "1" },
	{ .what = "moe tp2 pp4 ep4 etp1", .model = M_MIXTRAL_8X7B,
	  .gpu = "h100-sxm", .nodes = 4, .seq_length = 4096,
	  .precision = PREC_BF16, .tp = 2, .pp = 4, .cp = 1, .ep = 4,
	  .etp = 1, .vp = 1, .dp = 4, .mbs = 1, .gbs = 256,
	  .recompute = RECOMPUTE_FULL, .recompute_layers = 2, .sp = true,
	  .distopt = true, .env = true, .attention = ATTN_FLASH,
	  .ogr = true, .opg = true, .grouped_gemm = true,
	  .recompute_method = "block", .recompute_num = "2",
	  .max_positions = "32768", .max_connections = "1" },
	{ .what = "moe cp2 ep8 fp16", .model = M_MIXTRAL_8X7B,
	  .gpu = "h100-sxm", .nodes = 2, .seq_length = 4096,
	  .precision = PREC_FP16, .tp = 1, .pp = 1, .cp = 2, .ep = 8,
	  .etp = 1, .vp = 1, .dp = 8, .mbs = 2, .gbs = 64,
	  .recompute = RECOMPUTE_NONE, .attention = ATTN_FLASH,
	  .ogr = true, .grouped_gemm = true,
	  .max_positions = "32768", .max_connections = "1",
	  .simtrain_refuses = "AssertionError: Expert parallelism is not "
	                      "supported with fp16 training." },
	{ .what = "deepseek-v3 pp16 4+14x4+1 ep32", .model = M_DEEPSEEK_V3,
	  .gpu = "h100-sxm", .nodes = 64, .seq_length = 4096,
	  .precision = PREC_BF16, .tp = 1, .pp = 16, .cp = 1, .ep = 32,
	  .etp = 1, .vp = 1, .dp = 32, .mbs = 1, .gbs = 1024,
	  .recompute = RECOMPUTE_FULL, .recompute_layers = 1,
	  .distopt = true, .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .grouped_gemm = true, .first_layers = 4, .last_layers = 1,
	  .recompute_method = "block", .recompute_num = "1",
	  .max_positions = "163840" },
	/* Megatron-Bridge's DeepSeek-V3 on 1024 H100 (perf_recipes/
	 * deepseek/h100/deepseek_v3.py at 067f987: tp 2 pp 8 vp 4 ep 64,
	 * "Et|(tt|)*30mL", recompute mla_up_proj and mlp). */
	{ .what = "deepseek-v3 pp8 vp4 layout ep64", .model = M_DEEPSEEK_V3,
	  .gpu = "h100-sxm", .nodes = 128, .seq_length = 4096,
	  .precision = PREC_BF16, .tp = 2, .pp = 8, .cp = 1, .ep = 64,
	  .etp = 1, .vp = 4, .dp = 64, .mbs = 1, .gbs = 16384,
	  .recompute = RECOMPUTE_SELECTIVE, .sp = true,
	  .distopt = true, .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .grouped_gemm = true, .pipeline_layout = "Et|(t*2|)*30mL",
	  .max_positions = "163840", .max_connections = "1",
	  .nemo_refuses = "passes no pipeline layout" },
	{ .what = "gpt-oss-120b pp4 ep8", .model = M_GPT_OSS_120B,
	  .gpu = "h100-sxm", .nodes = 4, .seq_length = 4096,
	  .precision = PREC_BF16, .tp = 1, .pp = 4, .cp = 1, .ep = 8,
	  .etp = 1, .vp = 1, .dp = 8, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_SELECTIVE, .distopt = true,
	  .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .grouped_gemm = true, .max_positions = "131072",
	  .dispatcher = MOE_DISPATCH_FLEX,
	  /* NeMo's GPT-OSS recipes register a finetune factory only. */
	  .nemo_refuses = "registers no factory for this mode" },
	{ .what = "nemotron4-15b tp4 squared relu", .model = M_NEMOTRON4_15B,
	  .gpu = "h100-sxm", .nodes = 1, .seq_length = 4096,
	  .precision = PREC_BF16, .tp = 4, .pp = 1, .cp = 1, .ep = 1,
	  .vp = 1, .dp = 2, .mbs = 1, .gbs = 32, .recompute = RECOMPUTE_NONE,
	  .sp = true, .distopt = true, .attention = ATTN_FLASH, .ogr = true,
	  .max_positions = "4096", .max_connections = "1" },
	{ .what = "gemma-7b tp2 geglu", .model = M_GEMMA_7B,
	  .gpu = "h100-sxm", .nodes = 1, .seq_length = 8192,
	  .precision = PREC_BF16, .tp = 2, .pp = 1, .cp = 1, .ep = 1,
	  .vp = 1, .dp = 4, .mbs = 1, .gbs = 32, .recompute = RECOMPUTE_NONE,
	  .sp = true, .distopt = true, .attention = ATTN_FLASH, .ogr = true,
	  .max_positions = "8192", .max_connections = "1" },
	{ .what = "gpt tp8 selective unfused", .model = M_GPT_1P3B,
	  .gpu = "h100-sxm", .nodes = 1, .seq_length = 2048,
	  .precision = PREC_FP16, .tp = 8, .pp = 1, .cp = 1, .ep = 1,
	  .vp = 1, .dp = 1, .mbs = 4, .gbs = 32,
	  .recompute = RECOMPUTE_SELECTIVE, .sp = true, .container = true,
	  .env = true, .attention = ATTN_UNFUSED, .ogr = true,
	  .max_positions = "4096",
	  .max_connections = "1" },
	{ .what = "gpt pp4 vp3 fp32", .model = M_GPT_1P3B, .gpu = "h100-sxm",
	  .nodes = 2, .seq_length = 2048, .precision = PREC_FP32,
	  .tp = 1, .pp = 4, .cp = 1, .ep = 1, .vp = 3, .dp = 4, .mbs = 1,
	  .gbs = 64, .recompute = RECOMPUTE_FULL, .recompute_layers = 1,
	  .distopt = true, .env = true, .attention = ATTN_FLASH,
	  .ogr = true, .opg = true,
	  .vp_layers = "2", .recompute_method = "block",
	  .recompute_num = "1", .max_positions = "4096",
	  .max_connections = "8" },
	{ .what = "b200 tp2 pp2", .model = M_LLAMA3_8B, .gpu = "b200",
	  .nodes = 1, .seq_length = 8192, .precision = PREC_BF16,
	  .tp = 2, .pp = 2, .cp = 1, .ep = 1, .vp = 1, .dp = 2, .mbs = 1,
	  .gbs = 64, .recompute = RECOMPUTE_NONE, .sp = true,
	  .distopt = true, .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .max_positions = "8192", .max_connections = "32" },
	/*
	 * The tuning guide's switches.  FSDP with FP8 parameters, CUDA
	 * graphs, TP overlap and both account flags: (32 + 2) / 2 = 17
	 * layers a rank; FSDP sets 32 connections over TP's 1.
	 */
	{ .what = "fsdp fp8 params graphs tp overlap account",
	  .model = M_LLAMA3_8B, .gpu = "h100-sxm", .nodes = 2,
	  .seq_length = 8192, .precision = PREC_FP8, .tp = 2, .pp = 2,
	  .cp = 1, .ep = 1, .vp = 1, .dp = 4, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_SELECTIVE, .sp = true, .fsdp = true,
	  .ogr = true, .opg = true, .attention = ATTN_FLASH,
	  .fp8_recipe = FP8_TENSORWISE, .fp8_param_gather = true,
	  .cuda_graphs = true, .tp_overlap = true, .account_embedding = true,
	  .account_loss = true, .max_positions = "8192",
	  .max_connections = "32",
	  .nemo_refuses = "TP communication overlap" },
	/*
	 * a2a+p2p over cp 4 with tp 4: the all-to-all level is 2 (tp 4 x 2
	 * fills the 8-GPU node; 8 heads and 2 KV heads a tp rank), the ring
	 * 2.  Uniform recompute in runs of 4 layers.
	 */
	{ .what = "cp4 a2a+p2p uniform recompute", .model = M_LLAMA3_8B,
	  .gpu = "h100-sxm", .nodes = 2, .seq_length = 16384,
	  .precision = PREC_BF16, .tp = 4, .pp = 1, .cp = 4, .ep = 1,
	  .vp = 1, .dp = 1, .mbs = 1, .gbs = 16,
	  .recompute = RECOMPUTE_FULL, .recompute_layers = 4,
	  .rc_method = RECOMPUTE_UNIFORM, .sp = true, .distopt = true,
	  .ogr = true, .opg = true, .attention = ATTN_FLASH,
	  .cp_comm = CP_COMM_A2A_P2P, .recompute_method = "uniform",
	  .recompute_num = "4", .max_positions = "16384",
	  .max_connections = "1", .cp_sizes = { "2", "2" },
	  .nemo_refuses = "hierarchical groups of cp_comm_type a2a+p2p" },
	/* Offloading 4 layers with Ulysses CP, no DP overlap, replicated
	 * optimizer state. */
	{ .what = "offload cp2 a2a no overlap", .model = M_LLAMA3_8B,
	  .gpu = "h100-sxm", .nodes = 1, .seq_length = 8192,
	  .precision = PREC_BF16, .tp = 1, .pp = 1, .cp = 2, .ep = 1,
	  .vp = 1, .dp = 4, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_NONE, .attention = ATTN_FLASH,
	  .cp_comm = CP_COMM_A2A, .offload = 4, .max_positions = "8192",
	  .max_connections = "1" },
	/* The EP all-to-all overlap with DeepEP, pp 2 interleaved (the
	 * overlap asserts vp with pp > 1): 32 / (2 * 2) = 8 layers a
	 * chunk.  NeMo 25.07's Megatron core predates the overlap. */
	{ .what = "moe flex a2a overlap vp2", .model = M_MIXTRAL_8X7B,
	  .gpu = "h100-sxm", .nodes = 2, .seq_length = 4096,
	  .precision = PREC_BF16, .tp = 1, .pp = 2, .cp = 1, .ep = 8,
	  .etp = 1, .vp = 2, .dp = 8, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_SELECTIVE, .distopt = true, .ogr = true,
	  .opg = true, .attention = ATTN_FLASH, .grouped_gemm = true,
	  .dispatcher = MOE_DISPATCH_FLEX, .a2a_overlap = true,
	  .vp_layers = "8", .max_positions = "32768",
	  .nemo_refuses = "MoE all-to-all overlap (overlap_moe" },
	/* MXFP8 weights gathered in FP8 under Megatron-FSDP, which NeMo
	 * 25.07's core does through the parameter buffer only. */
	{ .what = "b200 mxfp8 param gather fsdp", .model = M_LLAMA3_8B,
	  .gpu = "b200", .nodes = 1, .seq_length = 8192,
	  .precision = PREC_FP8, .tp = 1, .pp = 1, .cp = 1, .ep = 1,
	  .vp = 1, .dp = 8, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_NONE, .fsdp = true, .ogr = true,
	  .attention = ATTN_FLASH, .fp8_recipe = FP8_MXFP8,
	  .fp8_param_gather = true, .max_positions = "8192",
	  .max_connections = "32",
	  .nemo_refuses = "not under Megatron-FSDP" },
	/* Blockwise FP8 on Blackwell: Transformer Engine 2.9 and later run
	 * it, NeMo 25.07's 2.5 on Hopper only. */
	{ .what = "b200 blockwise fp8", .model = M_LLAMA3_8B,
	  .gpu = "b200", .nodes = 1, .seq_length = 8192,
	  .precision = PREC_FP8, .tp = 1, .pp = 1, .cp = 1, .ep = 1,
	  .vp = 1, .dp = 8, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_NONE, .distopt = true, .ogr = true,
	  .opg = true, .attention = ATTN_FLASH, .fp8_recipe = FP8_BLOCKWISE,
	  .max_positions = "8192",
	  .nemo_refuses = "runs blockwise FP8 on Hopper only" },
	/* DeepEP on Blackwell, which Megatron-LM runs and NeMo 2.4 does
	 * not (its DeepEPCallback: compute capability 8 and 9 only). */
	{ .what = "b200 moe flex deepep", .model = M_MIXTRAL_8X7B,
	  .gpu = "b200", .nodes = 1, .seq_length = 4096,
	  .precision = PREC_BF16, .tp = 1, .pp = 1, .cp = 1, .ep = 8,
	  .etp = 1, .vp = 1, .dp = 8, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_SELECTIVE, .distopt = true, .ogr = true,
	  .opg = true, .attention = ATTN_FLASH, .grouped_gemm = true,
	  .dispatcher = MOE_DISPATCH_FLEX, .max_positions = "32768",
	  .nemo_refuses = "DeepEP on Ampere and Hopper only" },
	/* One CUDA graph of the whole iteration, as NVIDIA's Llama 3 8B
	 * Blackwell recipes run; with CPU offloading, which per-layer
	 * graphs refuse. */
	{ .what = "b200 full-iteration graph offload", .model = M_LLAMA3_8B,
	  .gpu = "b200", .nodes = 1, .seq_length = 8192,
	  .precision = PREC_FP8, .tp = 1, .pp = 1, .cp = 1, .ep = 1,
	  .vp = 1, .dp = 8, .mbs = 2, .gbs = 128,
	  .recompute = RECOMPUTE_NONE, .distopt = true, .ogr = true,
	  .opg = true, .attention = ATTN_FLASH, .fp8_recipe = FP8_TENSORWISE,
	  .cuda_graphs = true, .full_iteration = true, .offload = 2,
	  .max_positions = "8192",
	  .nemo_refuses = "the full-iteration CUDA graph came" },
	/* An MoE model in one graph: flex on hybridep, fixed expert-rank
	 * budgets and paged stashing (Megatron-Bridge v0.5.0's
	 * set_full_iter_cg_configs).  NeMo 25.07 has neither. */
	{ .what = "moe hybridep full-iteration graph", .model = M_MIXTRAL_8X7B,
	  .gpu = "h100-sxm", .nodes = 1, .seq_length = 4096,
	  .precision = PREC_BF16, .tp = 1, .pp = 1, .cp = 1, .ep = 8,
	  .etp = 1, .vp = 1, .dp = 8, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_FULL, .recompute_layers = 1,
	  .rc_method = RECOMPUTE_BLOCK, .recompute_method = "block",
	  .recompute_num = "1", .distopt = true, .ogr = true,
	  .opg = true, .attention = ATTN_FLASH, .grouped_gemm = true,
	  .dispatcher = MOE_DISPATCH_HYBRIDEP, .cuda_graphs = true,
	  .full_iteration = true, .max_positions = "32768",
	  .nemo_refuses = "hybridep backend (moe_flex_dispatcher_backend)" },
	/* MoE with one GEMM per expert and all-gather CP. */
	{ .what = "moe all_gather no grouped gemm", .model = M_MIXTRAL_8X7B,
	  .gpu = "h100-sxm", .nodes = 2, .seq_length = 4096,
	  .precision = PREC_BF16, .tp = 1, .pp = 1, .cp = 2, .ep = 8,
	  .etp = 1, .vp = 1, .dp = 8, .mbs = 2, .gbs = 64,
	  .recompute = RECOMPUTE_NONE, .distopt = true, .ogr = true,
	  .opg = true, .attention = ATTN_FLASH,
	  .cp_comm = CP_COMM_ALL_GATHER, .max_positions = "32768",
	  .max_connections = "1", .dispatcher = MOE_DISPATCH_ALLGATHER },
	/* MXFP8 (Blackwell), its weights gathered in FP8 through the
	 * gradient buffer, and uniform recompute of each whole model
	 * chunk: 32 / (2 * 2) = 8 layers a run. */
	{ .what = "b200 mxfp8 vp2 uniform chunks", .model = M_LLAMA3_8B,
	  .gpu = "b200", .nodes = 1, .seq_length = 8192,
	  .precision = PREC_FP8, .tp = 2, .pp = 2, .cp = 1, .ep = 1,
	  .vp = 2, .dp = 2, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_FULL, .rc_method = RECOMPUTE_UNIFORM,
	  .sp = true, .distopt = true, .ogr = true, .opg = true,
	  .attention = ATTN_FLASH, .fp8_recipe = FP8_MXFP8,
	  .fp8_param_gather = true, .vp_layers = "8",
	  .recompute_method = "uniform", .recompute_num = "8",
	  .max_positions = "8192",
	  .nemo_refuses = "without the parameter-gather overlap",
	  .max_connections = "32" },
	/* The same without the parameter-gather overlap, which NeMo
	 * 25.07's core gathers MXFP8 weights without, through the
	 * gradient buffer. */
	{ .what = "b200 mxfp8 param gather no overlap", .model = M_LLAMA3_8B,
	  .gpu = "b200", .nodes = 1, .seq_length = 8192,
	  .precision = PREC_FP8, .tp = 2, .pp = 2, .cp = 1, .ep = 1,
	  .vp = 2, .dp = 2, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_FULL, .rc_method = RECOMPUTE_UNIFORM,
	  .sp = true, .distopt = true, .ogr = true, .opg = false,
	  .attention = ATTN_FLASH, .fp8_recipe = FP8_MXFP8,
	  .fp8_param_gather = true, .vp_layers = "8",
	  .recompute_method = "uniform", .recompute_num = "8",
	  .max_positions = "8192", .max_connections = "32" },
	/* NVFP4 on Blackwell: --fp4-format e2m1 --fp4-recipe nvfp4 in
	 * bf16, and with fp8_param_gather --fp4-param-gather; nemo2.sbatch
	 * refuses FP4, which NeMo 2.4 lacks (test_fp4_precision). */
	{ .what = "b200 nvfp4", .model = M_LLAMA3_8B, .gpu = "b200",
	  .nodes = 1, .seq_length = 8192, .precision = PREC_FP4,
	  .tp = 1, .pp = 1, .cp = 1, .ep = 1, .vp = 1, .dp = 8, .mbs = 1,
	  .gbs = 64, .recompute = RECOMPUTE_SELECTIVE, .distopt = true,
	  .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .max_positions = "8192", .nemo_refuses = "has no FP4" },
	{ .what = "gb200 nvfp4 param gather", .model = M_LLAMA3_8B,
	  .gpu = "gb200", .nodes = 2, .seq_length = 8192,
	  .precision = PREC_FP4, .tp = 2, .pp = 2, .cp = 1, .ep = 1,
	  .vp = 2, .dp = 4, .mbs = 1, .gbs = 64,
	  .recompute = RECOMPUTE_SELECTIVE, .sp = true, .distopt = true,
	  .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .fp8_param_gather = true, .vp_layers = "8",
	  .max_positions = "8192", .max_connections = "32",
	  .nemo_refuses = "has no FP4" },
	/* Blackwell Ultra in its NVL72 rack: NeMo's 32 connections. */
	{ .what = "gb300 tp2", .model = M_LLAMA3_8B, .gpu = "gb300",
	  .nodes = 1, .seq_length = 8192, .precision = PREC_BF16,
	  .tp = 2, .pp = 1, .cp = 1, .ep = 1, .vp = 1, .dp = 4, .mbs = 1,
	  .gbs = 64, .recompute = RECOMPUTE_SELECTIVE, .sp = true,
	  .distopt = true, .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .max_positions = "8192", .max_connections = "32" },
	/* An uneven pipeline with interleaving: 32 layers as 6 + 8 + 8 +
	 * 10, each a multiple of vp 2, so Megatron-LM takes the virtual
	 * stages per rank rather than layers per virtual stage. */
	{ .what = "uneven pp4 vp2", .model = M_LLAMA3_8B, .gpu = "h100-sxm",
	  .nodes = 2, .seq_length = 8192, .precision = PREC_BF16,
	  .tp = 2, .pp = 4, .cp = 1, .ep = 1, .vp = 2, .dp = 2, .mbs = 1,
	  .gbs = 128, .recompute = RECOMPUTE_SELECTIVE, .sp = true,
	  .distopt = true, .attention = ATTN_FLASH, .ogr = true, .opg = true,
	  .first_layers = 6, .last_layers = 10, .vp_stages = "2",
	  .max_positions = "8192", .max_connections = "1" },
};

#define GRID_SIZE (sizeof grid / sizeof grid[0])

/* The campaign's env list when a case has one. */
static const char *const site_env[] = {
	"NCCL_DEBUG=INFO", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False",
	"NVTE_FUSED_ATTN=1", "CUDA_DEVICE_MAX_CONNECTIONS=8",
	"MEGATRON_LM=/site/megatron-lm",
};

/* The architecture of a model kind (models.h; recipe as expected). */
static struct model
case_model(enum model_kind k)
{
	struct model m = k == M_MIXTRAL_8X7B ? test_mixtral_8x7b()
	               : k == M_GPT_1P3B ? test_megatron_gpt(16, 2048, 24)
	               : k == M_DEEPSEEK_V3 ? *model_preset_find("deepseek_v3")
	               : k == M_GPT_OSS_120B
	               ? *model_preset_find("gpt_oss_120b")
	               : k == M_NEMOTRON4_15B
	               ? *model_preset_find("nemotron4_15b")
	               : k == M_GEMMA_7B ? *model_preset_find("gemma_7b")
	               : test_llama3_8b();

	if (k == M_GPT_1P3B) {
		m.position_embedding_type = POS_LEARNED;
		m.bias_linear = true;
		m.untie_embeddings = false;
	}
	if (model_expects[k].recipe)
		snprintf(m.nemo_recipe, sizeof m.nemo_recipe, "%s",
		         model_expects[k].recipe);
	return m;
}

/* A campaign for one case, built by hand as a campaign file would. */
static void
case_campaign(struct settings *c, const struct real_case *rc)
{
	settings_init(c);
	c->name = xstrdup("real templates");
	c->model_name = xstrdup("model");
	c->gpu_name = xstrdup(rc->gpu);
	c->gpu = *gpu_catalog_find(&c->gpus, rc->gpu);
	c->model = case_model(rc->model);
	c->nodes = rc->nodes;
	c->gpus_per_node = 8;
	c->seq_length = rc->seq_length;
	c->precision = rc->precision;
	if (rc->container)
		c->container.image = xstrdup("nvcr.io#nvidia/nemo:25.07");
	if (rc->mounts)
		c->container.mounts = xstrdup("/lustre:/lustre");
	if (rc->workdir)
		c->container.workdir = xstrdup("/workspace");
	for (size_t i = 0; rc->env && i < sizeof site_env / sizeof site_env[0];
	     i++)
		str_list_push(&c->env, site_env[i]);
}

/* The layout of one case. */
static void
case_layout(struct layout *l, const struct real_case *rc)
{
	memset(l, 0, sizeof(*l));
	l->tp = rc->tp;
	l->pp = rc->pp;
	l->cp = rc->cp;
	l->ep = rc->ep;
	l->etp = rc->etp;
	l->vp = rc->vp;
	l->dp = rc->dp;
	l->mbs = rc->mbs;
	l->gbs = rc->gbs;
	l->recompute = rc->recompute;
	l->recompute_layers = rc->recompute_layers;
	l->sequence_parallel = rc->sp;
	l->distributed_optimizer = rc->distopt;
	l->attention = rc->attention;
	l->recompute_method = rc->rc_method;
	l->account_embedding = rc->account_embedding;
	l->account_loss = rc->account_loss;
	l->fp8_recipe = rc->fp8_recipe;
	l->fp8_param_gather = rc->fp8_param_gather;
	l->cuda_graphs = rc->cuda_graphs;
	l->cuda_graph_full_iteration = rc->full_iteration;
	l->tp_comm_overlap = rc->tp_overlap;
	l->overlap_grad_reduce = rc->ogr;
	l->overlap_param_gather = rc->opg;
	l->fsdp = rc->fsdp;
	l->cp_comm = rc->cp_comm;
	l->moe_grouped_gemm = rc->grouped_gemm;
	l->moe_dispatcher = rc->dispatcher;
	l->moe_a2a_overlap = rc->a2a_overlap;
	l->offload_layers = rc->offload;
	l->first_stage_layers = rc->first_layers;
	l->last_stage_layers = rc->last_layers;
	l->pipeline_layout = rc->pipeline_layout != NULL;
}

/* Render templates/NAME for a case into out; 0 or -1. */
static int
render_case(const struct real_case *rc, const char *name,
            const char *run_dir, struct strbuf *out)
{
	char *rel = xasprintf("templates/%s", name);
	char *path = harness_srcpath(rel);
	struct settings c;
	struct layout l;
	int ret;

	case_campaign(&c, rc);
	case_layout(&l, rc);
	ret = jobscript_render(&c, &l, "cand", "/c", run_dir, path, out);
	settings_release(&c);
	free(path);
	free(rel);
	return ret;
}

/* ---- running a script with stand-ins ------------------------------------- */

/* scontrol show hostnames LIST: two names, the first naming the list. */
static const char fake_scontrol[] =
	"#!/bin/sh\n"
	"[ \"$1 $2\" = 'show hostnames' ] || exit 2\n"
	"printf 'first-of-%s\\nsecond\\n' \"$3\"\n";
/* srun: print its own options, then run the command as rank 13 of 16,
 * the sixth task of its node. */
static const char fake_srun[] =
	"#!/bin/bash\n"
	"while [ $# -gt 0 ] && [ \"${1#--}\" != \"$1\" ]; do\n"
	"\tprintf 'SRUN %s\\n' \"$1\"\n"
	"\tshift\n"
	"done\n"
	"export SLURM_PROCID=13 SLURM_LOCALID=5 SLURM_NTASKS=16\n"
	"exec \"$@\"\n";
/* python and nemo: print the directory, environment and arguments. */
static const char fake_program[] =
	"#!/bin/sh\n"
	"printf 'CWD %s\\n' \"$PWD\"\n"
	"env | sed 's/^/ENV /'\n"
	"for a in \"$@\"; do printf 'ARG %s\\n' \"$a\"; done\n";

/* A scratch directory with bin/ holding the stand-ins; caller frees. */
static char *
fake_cluster(void)
{
	static const struct { const char *name, *text; } fakes[] = {
		{ "scontrol", fake_scontrol }, { "srun", fake_srun },
		{ "python", fake_program }, { "nemo", fake_program },
	};
	char *dir = harness_tmpdir();
	char *bin;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	bin = xasprintf("%s/bin", dir);
	CU_ASSERT_EQUAL(mkdir(bin, 0700), 0);
	for (size_t i = 0; i < sizeof fakes / sizeof fakes[0]; i++) {
		char *p = xasprintf("%s/%s", bin, fakes[i].name);

		CU_ASSERT_EQUAL(write_file_atomic(p, fakes[i].text,
		                                  strlen(fakes[i].text), 0700),
		                0);
		free(p);
	}
	free(bin);
	return dir;
}

/* What the stand-ins printed. */
struct run_output {
	struct str_list srun;  /* srun's own options */
	struct str_list env;   /* NAME=VALUE as the program saw them */
	struct str_list argv;  /* the program's arguments */
	struct strbuf cwd, all;
	int status;
};

/* Free what o holds. */
static void
run_output_release(struct run_output *o)
{
	str_list_clear(&o->srun);
	str_list_clear(&o->env);
	str_list_clear(&o->argv);
	strbuf_release(&o->cwd);
	strbuf_release(&o->all);
}

/* Sort the printed lines into o. */
static void
run_output_parse(struct run_output *o)
{
	char *text = xstrdup(o->all.buf), *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "SRUN ", 5))
			str_list_push(&o->srun, line + 5);
		else if (!strncmp(line, "ENV ", 4))
			str_list_push(&o->env, line + 4);
		else if (!strncmp(line, "ARG ", 4))
			str_list_push(&o->argv, line + 4);
		else if (!strncmp(line, "CWD ", 4))
			strbuf_addstr(&o->cwd, line + 4);
	}
	free(text);
}

/*
 * Write script to dir/job.sbatch, check it with bash -n, and run it in a
 * clean environment holding only what Slurm gives a batch script (job
 * 4242 on gpu[001-004]) and the stand-ins first on PATH.
 */
static void
run_script(const char *dir, const char *script, struct run_output *o)
{
	char *path = xasprintf("%s/job.sbatch", dir);
	char *cmd;
	FILE *p;
	char buf[4096];
	size_t n;

	memset(o, 0, sizeof(*o));
	strbuf_init(&o->cwd, 0);
	strbuf_init(&o->all, 0);
	CU_ASSERT_EQUAL(write_file_atomic(path, script, strlen(script), 0600),
	                0);
	cmd = xasprintf("bash -n '%s'", path);
	CU_ASSERT_EQUAL(system(cmd), 0);
	free(cmd);
	cmd = xasprintf("cd '%s' && env -i PATH='%s/bin:/usr/bin:/bin' "
	                "SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='gpu[001-004]' "
	                "bash job.sbatch 2>&1", dir, dir);
	p = popen(cmd, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		strbuf_add(&o->all, buf, n);
	o->status = pclose(p);
	run_output_parse(o);
	free(cmd);
	free(path);
}

/* The value of NAME in the program's environment, NULL when unset. */
static const char *
env_value(const struct run_output *o, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < o->env.n; i++)
		if (!strncmp(o->env.v[i], name, n) && o->env.v[i][n] == '=')
			return o->env.v[i] + n + 1;
	return NULL;
}

/* Assert that got is want (both may be NULL: absent), naming what. */
static void
expect_str(const char *what, const char *item, const char *got,
           const char *want)
{
	bool ok = want ? got && !strcmp(got, want) : !got;

	CU_ASSERT_TRUE(ok);
	if (!ok)
		fprintf(stderr, "\n%s: %s is '%s', want '%s'\n", what, item,
		        got ? got : "(absent)", want ? want : "(absent)");
}

/* Whether the list holds s. */
static bool
has(const struct str_list *l, const char *s)
{
	return str_list_find(l, s) >= 0;
}

/* ---- checks shared by both templates ------------------------------------- */

/* The tuning-guide defaults, the site's env list and the candidate's. */
static void
check_env(const struct real_case *rc, const struct run_output *o)
{
	const char *alloc = rc->env ? "expandable_segments:False"
	                  : !strcmp(rc->gpu, "b200") ? NULL
	                  : "expandable_segments:True";

	expect_str(rc->what, "CUDA_DEVICE_MAX_CONNECTIONS",
	           env_value(o, "CUDA_DEVICE_MAX_CONNECTIONS"),
	           rc->max_connections);
	expect_str(rc->what, "PYTORCH_CUDA_ALLOC_CONF",
	           env_value(o, "PYTORCH_CUDA_ALLOC_CONF"), alloc);
	expect_str(rc->what, "NCCL_P2P_NET_CHUNKSIZE",
	           env_value(o, "NCCL_P2P_NET_CHUNKSIZE"),
	           rc->pp > 1 ? "2097152" : NULL);
	expect_str(rc->what, "TORCH_NCCL_AVOID_RECORD_STREAMS",
	           env_value(o, "TORCH_NCCL_AVOID_RECORD_STREAMS"), "1");
	expect_str(rc->what, "NCCL_NVLS_ENABLE",
	           env_value(o, "NCCL_NVLS_ENABLE"), "0");
	expect_str(rc->what, "NVTE_FWD_LAYERNORM_SM_MARGIN",
	           env_value(o, "NVTE_FWD_LAYERNORM_SM_MARGIN"), "16");
	expect_str(rc->what, "NCCL_DEBUG", env_value(o, "NCCL_DEBUG"),
	           rc->env ? "INFO" : NULL);
	/* The guide's setting for offloading next to the network. */
	expect_str(rc->what, "NCCL_NET_GDR_C2C",
	           env_value(o, "NCCL_NET_GDR_C2C"), rc->offload ? "1" : NULL);
}

/* srun's options: one task per GPU and, with a container, pyxis's. */
static void
check_srun(const struct real_case *rc, const struct run_output *o,
           const char *run_dir)
{
	char *mounts = xasprintf("--container-mounts=%s%s:%s",
	                         rc->mounts ? "/lustre:/lustre," : "",
	                         run_dir, run_dir);
	char *workdir = xasprintf("--container-workdir=%s",
	                          rc->workdir ? "/workspace" : run_dir);
	int pyxis = 0;

	CU_ASSERT_TRUE(has(&o->srun, "--ntasks-per-node=8"));
	CU_ASSERT_TRUE(has(&o->srun, "--kill-on-bad-exit=1"));
	for (int i = 0; i < o->srun.n; i++)
		pyxis += strstr(o->srun.v[i], "container") != NULL;
	CU_ASSERT_EQUAL(pyxis, rc->container ? 5 : 0);
	if (rc->container) {
		CU_ASSERT_TRUE(has(&o->srun, "--container-image="
		                             "nvcr.io#nvidia/nemo:25.07"));
		CU_ASSERT_TRUE(has(&o->srun, mounts));
		CU_ASSERT_TRUE(has(&o->srun, workdir));
		CU_ASSERT_TRUE(has(&o->srun, "--no-container-mount-home"));
		CU_ASSERT_TRUE(has(&o->srun, "--container-writable"));
	}
	expect_str(rc->what, "working directory", o->cwd.buf, run_dir);
	free(workdir);
	free(mounts);
}

/*
 * Render templates/NAME for a case with its run directory in a scratch
 * cluster, and run it there; the scratch directory (caller removes and
 * frees it) and the run directory (caller frees) are returned.
 */
static char *
render_and_run(const struct real_case *rc, const char *name,
               char **run_dir, struct run_output *o)
{
	struct strbuf script = STRBUF_INIT;
	char *dir = fake_cluster();

	*run_dir = xasprintf("%s/runs/cand", dir);
	CU_ASSERT_EQUAL(mkdir_p(*run_dir, 0700), 0);
	CU_ASSERT_EQUAL_FATAL(render_case(rc, name, *run_dir, &script), 0);
	run_script(dir, script.buf, o);
	CU_ASSERT_EQUAL(o->status, 0);
	if (o->status)
		fprintf(stderr, "\n%s: %s failed:\n%s\n", rc->what, name,
		        o->all.buf);
	strbuf_release(&script);
	return dir;
}

/* ---- Megatron-LM --------------------------------------------------------- */

/* The value after flag: "" when the flag takes none, NULL when absent. */
static const char *
flag_value(const struct str_list *argv, const char *flag)
{
	for (int i = 0; i < argv->n; i++)
		if (!strcmp(argv->v[i], flag))
			return i + 1 < argv->n &&
			       strncmp(argv->v[i + 1], "--", 2)
			       ? argv->v[i + 1] : "";
	return NULL;
}

/* The n-th word after flag (1: its value), NULL when there is none. */
static const char *
argv_after(const struct str_list *argv, const char *flag, int n)
{
	for (int i = 0; i < argv->n; i++)
		if (!strcmp(argv->v[i], flag))
			return i + n < argv->n ? argv->v[i + n] : NULL;
	return NULL;
}

/* Assert the value after flag (see flag_value; NULL: absent). */
static void
expect_flag(const struct real_case *rc, const struct str_list *argv,
            const char *flag, const char *want)
{
	expect_str(rc->what, flag, flag_value(argv, flag), want);
}

/* Assert that flag is followed by the number want. */
static void
expect_int_flag(const struct real_case *rc, const struct str_list *argv,
                const char *flag, int want)
{
	char *s = xasprintf("%d", want);

	expect_flag(rc, argv, flag, s);
	free(s);
}

/* Followed by the number want, or absent when want is 0. */
static void
expect_int_or_none_flag(const struct real_case *rc,
                        const struct str_list *argv, const char *flag,
                        int want)
{
	if (want == 0)
		expect_flag(rc, argv, flag, NULL);
	else
		expect_int_flag(rc, argv, flag, want);
}

/* Present ("") when on, absent when off. */
static void
expect_switch(const struct real_case *rc, const struct str_list *argv,
              const char *flag, bool on)
{
	expect_flag(rc, argv, flag, on ? "" : NULL);
}

/* The parallel layout and the batch. */
static void
check_megatron_layout(const struct real_case *rc,
                      const struct str_list *argv)
{
	bool moe = model_expects[rc->model].experts != NULL;

	expect_int_flag(rc, argv, "--tensor-model-parallel-size", rc->tp);
	expect_int_flag(rc, argv, "--pipeline-model-parallel-size", rc->pp);
	expect_int_flag(rc, argv, "--context-parallel-size", rc->cp);
	expect_flag(rc, argv, "--num-layers-per-virtual-pipeline-stage",
	            rc->vp_layers);
	expect_flag(rc, argv, "--num-virtual-stages-per-pipeline-rank",
	            rc->vp_stages);
	expect_int_or_none_flag(rc, argv, "--decoder-first-pipeline-num-layers",
	                        rc->first_layers);
	expect_int_or_none_flag(rc, argv, "--decoder-last-pipeline-num-layers",
	                        rc->last_layers);
	expect_flag(rc, argv, "--pipeline-model-parallel-layout",
	            rc->pipeline_layout);
	expect_switch(rc, argv, "--sequence-parallel", rc->sp);
	expect_switch(rc, argv, "--account-for-embedding-in-pipeline-split",
	              rc->account_embedding);
	expect_switch(rc, argv, "--account-for-loss-in-pipeline-split",
	              rc->account_loss);
	expect_flag(rc, argv, "--cp-comm-type",
	            rc->cp > 1 ? cp_comm_name(rc->cp_comm) : NULL);
	expect_flag(rc, argv, "--hierarchical-context-parallel-sizes",
	            rc->cp_sizes[0]);
	if (rc->cp_sizes[0])
		expect_str(rc->what, "the ring's size",
		           argv_after(argv,
		                      "--hierarchical-context-parallel-sizes",
		                      2), rc->cp_sizes[1]);
	expect_int_flag(rc, argv, "--micro-batch-size", rc->mbs);
	expect_int_flag(rc, argv, "--global-batch-size", rc->gbs);
	if (moe) {
		expect_int_flag(rc, argv, "--expert-model-parallel-size",
		                rc->ep);
		expect_int_flag(rc, argv, "--expert-tensor-parallel-size",
		                rc->etp);
	} else {
		expect_flag(rc, argv, "--expert-model-parallel-size", NULL);
		expect_flag(rc, argv, "--expert-tensor-parallel-size", NULL);
	}
}

/* DeepSeek-V3's and GPT-OSS's switches (their config.json, in
 * Megatron-LM's names), and none of them for the other models. */
/* DeepSeek-V3's router (its config.json, and Megatron-LM's example
 * examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh); Megatron-LM's
 * defaults (softmax, ungrouped, unscaled) for the other models. */
static void
check_megatron_router(const struct real_case *rc,
                      const struct str_list *argv)
{
	bool ds = rc->model == M_DEEPSEEK_V3;

	expect_flag(rc, argv, "--moe-router-score-function",
	            ds ? "sigmoid" : NULL);
	expect_flag(rc, argv, "--moe-router-num-groups", ds ? "8" : NULL);
	expect_flag(rc, argv, "--moe-router-group-topk", ds ? "4" : NULL);
	expect_flag(rc, argv, "--moe-router-topk-scaling-factor",
	            ds ? "2.5" : NULL);
	expect_switch(rc, argv, "--moe-router-enable-expert-bias", ds);
	expect_flag(rc, argv, "--moe-router-bias-update-rate",
	            ds ? "1e-3" : NULL);
}

/* The MLP's activation as pretrain_gpt.py takes it: GeGLU has no flag
 * and trains as SwiGLU (the script says so on stderr); GPT-OSS's quick
 * GeGLU as Megatron-LM's examples/gptoss/02_train.sh passes it. */
static void
check_megatron_activation(const struct real_case *rc,
                          const struct str_list *argv)
{
	const char *act = model_expects[rc->model].activation;
	bool quick = !strcmp(act, "quick-geglu");

	expect_switch(rc, argv, "--swiglu",
	              !strcmp(act, "swiglu") || !strcmp(act, "geglu"));
	expect_switch(rc, argv, "--squared-relu",
	              !strcmp(act, "squared-relu"));
	expect_switch(rc, argv, "--quick-geglu", quick);
	expect_flag(rc, argv, "--glu-linear-offset", quick ? "1.0" : NULL);
	expect_flag(rc, argv, "--activation-func-clamp-value",
	            quick ? "7.0" : NULL);
}

static void
check_megatron_arch(const struct real_case *rc, const struct str_list *argv)
{
	bool ds = rc->model == M_DEEPSEEK_V3;
	bool oss = rc->model == M_GPT_OSS_120B;

	expect_switch(rc, argv, "--multi-latent-attention", ds);
	expect_flag(rc, argv, "--q-lora-rank", ds ? "1536" : NULL);
	expect_flag(rc, argv, "--kv-lora-rank", ds ? "512" : NULL);
	expect_flag(rc, argv, "--qk-head-dim", ds ? "128" : NULL);
	expect_flag(rc, argv, "--qk-pos-emb-head-dim", ds ? "64" : NULL);
	expect_flag(rc, argv, "--v-head-dim", ds ? "128" : NULL);
	expect_flag(rc, argv, "--moe-shared-expert-intermediate-size",
	            ds ? "2048" : NULL);
	expect_flag(rc, argv, "--moe-layer-freq", ds ? "([0]*3+[1]*58)" : NULL);
	expect_flag(rc, argv, "--mtp-num-layers", ds ? "1" : NULL);
	expect_switch(rc, argv, "--qk-layernorm", ds);
	expect_flag(rc, argv, "--window-size", oss ? "128,0" : NULL);
	expect_flag(rc, argv, "--window-attn-skip-freq", oss ? "2" : NULL);
	expect_flag(rc, argv, "--softmax-type", oss ? "learnable" : NULL);
	expect_flag(rc, argv, "--rotary-scaling-factor", ds ? "40" : NULL);
	expect_flag(rc, argv, "--mscale-all-dim", ds ? "1" : NULL);
	check_megatron_router(rc, argv);
	check_megatron_activation(rc, argv);
}

/* Megatron-LM's dispatcher type: hybridep is flex on its backend. */
static const char *
megatron_dispatcher(const struct real_case *rc)
{
	return rc->dispatcher == MOE_DISPATCH_HYBRIDEP
	       ? "flex" : moe_dispatcher_name(rc->dispatcher);
}

/* The flex dispatcher's backend, or NULL under another dispatcher. */
static const char *
flex_backend(const struct real_case *rc)
{
	return rc->dispatcher == MOE_DISPATCH_HYBRIDEP ? "hybridep"
	       : rc->dispatcher == MOE_DISPATCH_FLEX ? "deepep" : NULL;
}

/* The model's shape. */
static void
check_megatron_model(const struct real_case *rc,
                     const struct str_list *argv)
{
	const struct model_expect *m = &model_expects[rc->model];

	expect_flag(rc, argv, "--num-layers", m->layers);
	expect_flag(rc, argv, "--vocab-size", m->vocab);
	expect_switch(rc, argv, "--group-query-attention", m->groups);
	expect_flag(rc, argv, "--num-query-groups", m->groups);
	expect_flag(rc, argv, "--position-embedding-type", m->position);
	expect_flag(rc, argv, "--normalization", m->norm);
	expect_switch(rc, argv, "--untie-embeddings-and-output-weights",
	              m->untied);
	expect_switch(rc, argv, "--disable-bias-linear", m->bias_free);
	expect_flag(rc, argv, "--num-experts", m->experts);
	expect_flag(rc, argv, "--moe-router-topk", m->topk);
	expect_switch(rc, argv, "--moe-grouped-gemm",
	              m->experts && rc->grouped_gemm);
	expect_flag(rc, argv, "--moe-token-dispatcher-type",
	            m->experts ? megatron_dispatcher(rc) : NULL);
	expect_flag(rc, argv, "--moe-flex-dispatcher-backend",
	            m->experts ? flex_backend(rc) : NULL);
	expect_flag(rc, argv, "--moe-expert-rank-capacity-factor",
	            m->experts && rc->full_iteration ? "1.5" : NULL);
	expect_switch(rc, argv, "--moe-paged-stash",
	              m->experts && rc->full_iteration);
	expect_switch(rc, argv, "--moe-pad-experts-for-cuda-graph-inference",
	              m->experts && rc->full_iteration);
	expect_switch(rc, argv, "--use-transformer-engine-op-fuser",
	              m->experts && rc->full_iteration);
	expect_switch(rc, argv, "--overlap-moe-expert-parallel-comm",
	              m->experts && rc->a2a_overlap);
	expect_switch(rc, argv, "--delay-wgrad-compute",
	              m->experts && rc->a2a_overlap);
	expect_int_flag(rc, argv, "--seq-length", rc->seq_length);
	expect_flag(rc, argv, "--max-position-embeddings", rc->max_positions);
	check_megatron_arch(rc, argv);
}

/* Precision, recompute, optimizer and the run's length. */
static void
check_megatron_training(const struct real_case *rc,
                        const struct str_list *argv)
{
	bool full = rc->recompute == RECOMPUTE_FULL;

	bool fp4 = rc->precision == PREC_FP4;

	expect_switch(rc, argv, "--bf16", rc->precision == PREC_BF16 ||
	              rc->precision == PREC_FP8 || fp4);
	expect_switch(rc, argv, "--fp16", rc->precision == PREC_FP16);
	expect_flag(rc, argv, "--fp8-format",
	            rc->precision == PREC_FP8 ? "hybrid" : NULL);
	expect_flag(rc, argv, "--fp8-recipe", rc->precision == PREC_FP8
	            ? fp8_recipe_name(rc->fp8_recipe) : NULL);
	expect_switch(rc, argv, "--fp8-param-gather",
	              rc->fp8_param_gather && !fp4);
	expect_switch(rc, argv, "--reuse-grad-buf-for-mxfp8-param-ag",
	              rc->precision == PREC_FP8 && rc->fp8_param_gather &&
	              rc->fp8_recipe == FP8_MXFP8);
	expect_flag(rc, argv, "--fp4-format", fp4 ? "e2m1" : NULL);
	expect_flag(rc, argv, "--fp4-recipe", fp4 ? "nvfp4" : NULL);
	expect_switch(rc, argv, "--fp4-param-gather",
	              rc->fp8_param_gather && fp4);
	expect_flag(rc, argv, "--recompute-granularity",
	            full ? "full" : rc->recompute == RECOMPUTE_SELECTIVE
	            ? "selective" : NULL);
	expect_flag(rc, argv, "--recompute-method", rc->recompute_method);
	expect_flag(rc, argv, "--recompute-num-layers", rc->recompute_num);
	/* Megatron FSDP 1 runs on the distributed optimizer. */
	expect_switch(rc, argv, "--use-distributed-optimizer",
	              rc->distopt || rc->fsdp);
	expect_switch(rc, argv, "--use-megatron-fsdp", rc->fsdp);
	expect_flag(rc, argv, "--data-parallel-sharding-strategy",
	            rc->fsdp ? "optim_grads_params" : NULL);
	expect_flag(rc, argv, "--ckpt-format", rc->fsdp ? "fsdp_dtensor"
	                                                : NULL);
	/* run.early_stop (on by default): paratune watch ends the run
	 * with SIGUSR2, which srun forwards and Megatron-LM handles. */
	expect_switch(rc, argv, "--exit-signal-handler", true);
	expect_flag(rc, argv, "--exit-signal", "SIGUSR2");
	expect_switch(rc, argv, "--overlap-param-gather", rc->opg);
	expect_switch(rc, argv, "--overlap-grad-reduce", rc->ogr);
	expect_switch(rc, argv, "--tp-comm-overlap", rc->tp_overlap);
	expect_flag(rc, argv, "--cuda-graph-impl",
	            !rc->cuda_graphs ? NULL : rc->full_iteration
	            ? "full_iteration" : "transformer_engine");
	expect_switch(rc, argv, "--te-rng-tracker",
	              rc->cuda_graphs && !rc->full_iteration);
	expect_switch(rc, argv, "--no-check-for-nan-in-loss-and-grad",
	              rc->cuda_graphs && rc->full_iteration);
	if (rc->offload)
		expect_int_flag(rc, argv, "--cpu-offloading-num-layers",
		                rc->offload);
	else
		expect_flag(rc, argv, "--cpu-offloading-num-layers", NULL);
	/* TE's flash kernels run neither GPT-OSS's softmax offset nor
	 * fp32: Megatron-LM's "flash" would leave no kernel, so auto. */
	expect_flag(rc, argv, "--attention-backend",
	            rc->attention != ATTN_FLASH ? "unfused"
	            : rc->model == M_GPT_OSS_120B ||
	              rc->precision == PREC_FP32 ? "auto" : "flash");
	expect_switch(rc, argv, "--mock-data", true);
	expect_flag(rc, argv, "--tokenizer-type", "NullTokenizer");
	/* settings_init: 50 steps, 20 minutes; 20 - max(2, 20 / 10) = 18 */
	expect_flag(rc, argv, "--train-iters", "50");
	expect_flag(rc, argv, "--exit-duration-in-mins", "18");
	expect_flag(rc, argv, "--eval-iters", "0");
	expect_flag(rc, argv, "--log-interval", "1");
	expect_switch(rc, argv, "--log-throughput", true);
}

/*
 * Megatron-LM's rules on the tuning guide's flags at d98e8a64
 * (arguments.py validate_args, transformer_config.py __post_init__):
 * TP overlap needs sequence parallelism; FP8 parameter gather a sharded
 * optimizer; Megatron FSDP the fsdp_dtensor format; a2a+p2p the
 * hierarchical sizes, whose product is the CP size; CPU offloading no
 * pipeline, no recompute and no per-layer CUDA graphs.
 */
static void
check_megatron_switch_rules(const struct str_list *argv)
{
	const char *cp = flag_value(argv, "--context-parallel-size");
	const char *comm = flag_value(argv, "--cp-comm-type");
	const char *graph = flag_value(argv, "--cuda-graph-impl");
	const char *a2a, *ring;

	if (flag_value(argv, "--tp-comm-overlap"))
		CU_ASSERT_PTR_NOT_NULL(flag_value(argv, "--sequence-parallel"));
	if (flag_value(argv, "--fp8-param-gather"))
		CU_ASSERT_PTR_NOT_NULL(flag_value(argv,
		                       "--use-distributed-optimizer"));
	if (flag_value(argv, "--use-megatron-fsdp"))
		CU_ASSERT_STRING_EQUAL(flag_value(argv, "--ckpt-format"),
		                       "fsdp_dtensor");
	if (comm && !strcmp(comm, "a2a+p2p")) {
		a2a = argv_after(argv, "--hierarchical-context-parallel-sizes",
		                 1);
		ring = argv_after(argv, "--hierarchical-context-parallel-sizes",
		                  2);
		CU_ASSERT_FATAL(a2a && ring && cp);
		CU_ASSERT_EQUAL(atoi(a2a) * atoi(ring), atoi(cp));
	}
	if (flag_value(argv, "--cpu-offloading-num-layers")) {
		CU_ASSERT_STRING_EQUAL(flag_value(argv,
		                       "--pipeline-model-parallel-size"), "1");
		CU_ASSERT_PTR_NULL(flag_value(argv, "--recompute-granularity"));
		CU_ASSERT_FALSE(graph && strcmp(graph, "full_iteration"));
	}
}

/*
 * Megatron-LM's own rules on the flags (arguments.py validate_args):
 * --overlap-param-gather needs --use-distributed-optimizer and
 * --overlap-grad-reduce; full recompute needs a method and a layer count,
 * selective takes neither.
 */
static void
check_megatron_rules(const struct str_list *argv)
{
	const char *granularity = flag_value(argv, "--recompute-granularity");
	const char *graph = flag_value(argv, "--cuda-graph-impl");
	bool method = flag_value(argv, "--recompute-method") != NULL;
	bool layers = flag_value(argv, "--recompute-num-layers") != NULL;

	if (flag_value(argv, "--overlap-param-gather")) {
		CU_ASSERT_PTR_NOT_NULL(flag_value(argv,
		                       "--use-distributed-optimizer"));
		CU_ASSERT_PTR_NOT_NULL(flag_value(argv,
		                       "--overlap-grad-reduce"));
	}
	if (granularity && !strcmp(granularity, "full"))
		CU_ASSERT_TRUE(method && layers);
	/* A graph refuses full recompute but the whole iteration's, which
	 * needs the NaN check off (transformer_config.py, arguments.py). */
	if (granularity && !strcmp(granularity, "full") && graph)
		CU_ASSERT_STRING_EQUAL(graph, "full_iteration");
	if (graph && !strcmp(graph, "full_iteration"))
		CU_ASSERT_PTR_NOT_NULL(flag_value(argv,
		                       "--no-check-for-nan-in-loss-and-grad"));
	if (!granularity || !strcmp(granularity, "selective"))
		CU_ASSERT_FALSE(method || layers);
	check_megatron_switch_rules(argv);
}

/* Each task's rank from Slurm (the stand-in srun: rank 13 of 16, local
 * 5), the rendezvous, and no attention switches left for Megatron-LM to
 * refuse. */
static void
check_megatron_env(const struct real_case *rc, const struct run_output *o)
{
	expect_str(rc->what, "RANK", env_value(o, "RANK"), "13");
	expect_str(rc->what, "WORLD_SIZE", env_value(o, "WORLD_SIZE"), "16");
	expect_str(rc->what, "LOCAL_RANK", env_value(o, "LOCAL_RANK"), "5");
	expect_str(rc->what, "MASTER_ADDR", env_value(o, "MASTER_ADDR"),
	           "first-of-gpu[001-004]");
	/* 20000 + 4242 % 20000 */
	expect_str(rc->what, "MASTER_PORT", env_value(o, "MASTER_PORT"),
	           "24242");
	expect_str(rc->what, "NVTE_FLASH_ATTN",
	           env_value(o, "NVTE_FLASH_ATTN"), NULL);
	expect_str(rc->what, "NVTE_FUSED_ATTN",
	           env_value(o, "NVTE_FUSED_ATTN"), NULL);
	/* Graphs with expandable segments (arguments.py asserts it). */
	expect_str(rc->what, "NCCL_GRAPH_REGISTER",
	           env_value(o, "NCCL_GRAPH_REGISTER"),
	           rc->cuda_graphs && !rc->full_iteration ? "0" : NULL);
}

/* One case of the grid through templates/megatron-lm.sbatch. */
static void
check_megatron_case(const struct real_case *rc, const struct str_list *known)
{
	struct strbuf why = STRBUF_INIT;
	struct run_output o;
	char *run_dir;
	char *dir = render_and_run(rc, "megatron-lm.sbatch", &run_dir, &o);

	CU_ASSERT_TRUE_FATAL(o.argv.n > 0);
	expect_str(rc->what, "script", o.argv.v[0], rc->env
	           ? "/site/megatron-lm/pretrain_gpt.py"
	           : "/opt/megatron-lm/pretrain_gpt.py");
	CU_ASSERT_EQUAL(megatron_argv_problems(known, &o.argv, &why), 0);
	if (why.len)
		fprintf(stderr, "\n%s: %s\n", rc->what, why.buf);
	check_megatron_layout(rc, &o.argv);
	check_megatron_model(rc, &o.argv);
	check_megatron_training(rc, &o.argv);
	check_megatron_rules(&o.argv);
	check_env(rc, &o);
	check_megatron_env(rc, &o);
	check_srun(rc, &o, run_dir);
	harness_rmtree(dir);
	free(dir);
	free(run_dir);
	run_output_release(&o);
	strbuf_release(&why);
}

/* ---- NeMo 2.0 ------------------------------------------------------------ */

/* The value of override KEY in argv, NULL when not given. */
static const char *
override_value(const struct str_list *argv, const char *key)
{
	size_t n = strlen(key);

	for (int i = 0; i < argv->n; i++)
		if (!strncmp(argv->v[i], key, n) && argv->v[i][n] == '=')
			return argv->v[i] + n + 1;
	return NULL;
}

/* Assert the value of override key (NULL: not given). */
static void
expect_override(const struct real_case *rc, const struct str_list *argv,
                const char *key, const char *want)
{
	expect_str(rc->what, key, override_value(argv, key), want);
}

/* Assert that override key is the number want. */
static void
expect_int_override(const struct real_case *rc,
                    const struct str_list *argv, const char *key, int want)
{
	char *s = xasprintf("%d", want);

	expect_override(rc, argv, key, s);
	free(s);
}

/* num_layers_in_WHICH_pipeline_stage: the number, or None at 0, so that
 * a recipe's own counts (DeepSeek-V3's 3 and 2) do not stay. */
static void
expect_stage_override(const struct real_case *rc,
                      const struct str_list *argv, const char *which,
                      int want)
{
	char *key = xasprintf("trainer.strategy.num_layers_in_%s_pipeline_"
	                      "stage", which);

	if (want == 0)
		expect_override(rc, argv, key, "None");
	else
		expect_int_override(rc, argv, key, want);
	free(key);
}

/* "True" or "False", as nemo_run reads Python booleans. */
static const char *
py_bool(bool b)
{
	return b ? "True" : "False";
}

/* Whether the case gathers MXFP8 weights in FP8, through the gradient
 * buffer (the template variable mxfp8_param_gather). */
static bool
mxfp8_gather(const struct real_case *rc)
{
	return rc->precision == PREC_FP8 && rc->fp8_recipe == FP8_MXFP8 &&
	       rc->fp8_param_gather;
}

/* The data-parallel settings, one object for the recipes that set none
 * (fine-tuning, Qwen2, StarCoder), with the other recipes' own fields;
 * no field of it alone (ddp is the string "megatron" in those). */
static void
check_nemo_ddp(const struct real_case *rc, const struct str_list *argv)
{
	char *want = xasprintf("megatron.core.distributed."
	                       "DistributedDataParallelConfig("
	                       "check_for_nan_in_grad=True,"
	                       "grad_reduce_in_fp32=%s,"
	                       "overlap_grad_reduce=%s,"
	                       "overlap_param_gather=%s,%s%s)",
	                       rc->precision == PREC_FP16 ? "False" : "True",
	                       py_bool(rc->ogr), py_bool(rc->opg),
	                       rc->fsdp ? "data_parallel_sharding_strategy="
	                                  "optim_grads_params"
	                                : "average_in_collective=True",
	                       mxfp8_gather(rc) ? ",fp8_param_gather=True,"
	                                      "reuse_grad_buf_for_mxfp8_param_ag="
	                                      "True" : "");

	expect_override(rc, argv, "trainer.strategy.ddp", want);
	free(want);
	for (int i = 0; i < argv->n; i++)
		CU_ASSERT_PTR_NULL(strstr(argv->v[i], "trainer.strategy.ddp."));
}

/* The trainer, the layout and the data. */
static void
check_nemo_layout(const struct real_case *rc, const struct str_list *argv)
{
	char vp[16];

	snprintf(vp, sizeof vp, "%d", rc->vp);
	expect_int_override(rc, argv, "trainer.num_nodes", rc->nodes);
	expect_override(rc, argv, "trainer.devices", "8");
	expect_override(rc, argv, "trainer.max_steps", "50");
	/* 20 minutes, less max(2, 20/10) */
	expect_override(rc, argv, "trainer.max_time", "00:00:18:00");
	expect_override(rc, argv, "trainer.log_every_n_steps", "1");
	expect_override(rc, argv, "trainer.limit_val_batches", "0");
	expect_override(rc, argv, "trainer.val_check_interval", "50");
	expect_override(rc, argv, "trainer.enable_checkpointing", "False");
	expect_override(rc, argv, "log.ckpt", "None");
	expect_int_override(rc, argv,
	                    "trainer.strategy.tensor_model_parallel_size",
	                    rc->tp);
	expect_int_override(rc, argv,
	                    "trainer.strategy.pipeline_model_parallel_size",
	                    rc->pp);
	expect_int_override(rc, argv, "trainer.strategy.context_parallel_size",
	                    rc->cp);
	expect_int_override(rc, argv,
	                    "trainer.strategy.expert_model_parallel_size",
	                    rc->ep);
	/* etp 0 means "the same as tp" (layout.h) */
	expect_int_override(rc, argv,
	                    "trainer.strategy.expert_tensor_parallel_size",
	                    rc->etp ? rc->etp : rc->tp);
	expect_override(rc, argv,
	                "trainer.strategy.virtual_pipeline_model_parallel_size",
	                rc->vp > 1 ? vp : "None");
	expect_override(rc, argv, "trainer.strategy.sequence_parallel",
	                py_bool(rc->sp));
	expect_override(rc, argv,
	                "trainer.strategy.account_for_embedding_in_pipeline_"
	                "split", py_bool(rc->account_embedding));
	expect_override(rc, argv,
	                "trainer.strategy.account_for_loss_in_pipeline_split",
	                py_bool(rc->account_loss));
	expect_stage_override(rc, argv, "first", rc->first_layers);
	expect_stage_override(rc, argv, "last", rc->last_layers);
	expect_override(rc, argv, "model.config.cp_comm_type",
	                rc->cp > 1 ? cp_comm_name(rc->cp_comm) : NULL);
	expect_int_override(rc, argv, "data.micro_batch_size", rc->mbs);
	expect_int_override(rc, argv, "data.global_batch_size", rc->gbs);
	expect_int_override(rc, argv, "data.seq_length", rc->seq_length);
	expect_int_override(rc, argv, "model.config.seq_length",
	                    rc->seq_length);
}

/* Recompute and the optimizer. */
static void
check_nemo_recompute(const struct real_case *rc,
                     const struct str_list *argv)
{
	bool full = rc->recompute == RECOMPUTE_FULL;

	expect_override(rc, argv, "model.config.recompute_granularity",
	                full ? "full" : rc->recompute == RECOMPUTE_SELECTIVE
	                ? "selective" : "None");
	expect_override(rc, argv, "model.config.recompute_method",
	                full ? rc->recompute_method : "None");
	expect_override(rc, argv, "model.config.recompute_num_layers",
	                full ? rc->recompute_num : "None");
	/* Always, so that a recipe's own modules do not stay. */
	expect_override(rc, argv, "model.config.recompute_modules",
	                "[\"core_attn\"]");
	expect_override(rc, argv, "optim.config.use_distributed_optimizer",
	                py_bool(rc->distopt || rc->fsdp));
	expect_override(rc, argv,
	                "optim.config.reuse_grad_buf_for_mxfp8_param_ag",
	                mxfp8_gather(rc) ? "True" : NULL);
	check_nemo_ddp(rc, argv);
}

/* FSDP, CUDA graphs, grouped GEMM and offloading. */
static void
check_nemo_switches(const struct real_case *rc, const struct str_list *argv)
{
	bool moe = model_expects[rc->model].experts != NULL;
	char layers[16];

	snprintf(layers, sizeof layers, "%d", rc->offload);
	expect_override(rc, argv, "trainer.strategy.fsdp",
	                rc->fsdp ? "megatron" : NULL);
	expect_override(rc, argv, "trainer.strategy.save_ckpt_format", NULL);
	expect_override(rc, argv, "model.config.gradient_accumulation_fusion",
	                rc->fsdp ? "False" : NULL);
	expect_override(rc, argv,
	                "model.config.moe_router_force_load_balancing",
	                moe ? "True" : NULL);
	expect_override(rc, argv, "model.config.enable_cuda_graph",
	                py_bool(rc->cuda_graphs));
	expect_override(rc, argv, "trainer.strategy.use_te_rng_tracker",
	                rc->cuda_graphs ? "True" : NULL);
	expect_override(rc, argv, "model.config.moe_grouped_gemm",
	                moe ? py_bool(rc->grouped_gemm) : NULL);
	expect_override(rc, argv, "model.config.moe_token_dispatcher_type",
	                moe ? megatron_dispatcher(rc) : NULL);
	expect_override(rc, argv, "model.config.moe_enable_deepep",
	                moe && rc->dispatcher == MOE_DISPATCH_FLEX
	                ? "True" : NULL);
	/* Shared-expert overlap, on in DeepSeek-V3's config, runs with the
	 * alltoall dispatcher only. */
	expect_override(rc, argv, "model.config.moe_shared_expert_overlap",
	                moe && rc->dispatcher != MOE_DISPATCH_ALLTOALL
	                ? "False" : NULL);
	expect_override(rc, argv, "model.config.cpu_offloading",
	                rc->offload ? "True" : NULL);
	expect_override(rc, argv, "model.config.cpu_offloading_weights",
	                rc->offload ? "False" : NULL);
	expect_override(rc, argv, "model.config.cpu_offloading_num_layers",
	                rc->offload ? layers : NULL);
}

/*
 * Precision: the recipes train in bf16 (bf16_mixed), so bf16 and FP8
 * leave the plugin's precision alone; fp16 and fp32 replace it; FP8 adds
 * hybrid with delayed scaling; PP > 1 sends activations in the training
 * precision.
 */
static void
check_nemo_precision(const struct real_case *rc,
                     const struct str_list *argv)
{
	bool fp8 = rc->precision == PREC_FP8;
	bool fp16 = rc->precision == PREC_FP16;
	bool fp32 = rc->precision == PREC_FP32;
	const char *dtype = fp16 ? "torch.float16" : fp32 ? "torch.float32"
	                  : "torch.bfloat16";

	expect_override(rc, argv, "trainer.plugins.fp8", fp8 ? "hybrid" : NULL);
	expect_override(rc, argv, "trainer.plugins.fp4",
	                rc->precision == PREC_FP4 ? "e2m1" : NULL);
	expect_override(rc, argv, "trainer.plugins.fp4_recipe",
	                rc->precision == PREC_FP4 ? "nvfp4" : NULL);
	expect_override(rc, argv, "trainer.plugins.fp8_recipe",
	                fp8 ? fp8_recipe_name(rc->fp8_recipe) : NULL);
	expect_override(rc, argv, "trainer.plugins.fp8_param_gather",
	                fp8 ? py_bool(rc->fp8_param_gather) : NULL);
	expect_override(rc, argv, "trainer.plugins.precision",
	                fp16 ? "16-mixed" : fp32 ? "32" : NULL);
	expect_override(rc, argv, "trainer.plugins.params_dtype",
	                fp16 || fp32 ? dtype : NULL);
	expect_override(rc, argv, "optim.config.fp16",
	                fp16 ? "True" : fp32 ? "False" : NULL);
	expect_override(rc, argv, "trainer.strategy.pipeline_dtype",
	                rc->pp > 1 ? dtype : NULL);
}

/* NeMo's attention defaults, and no rank exports (Lightning's job). */
static void
check_nemo_env(const struct real_case *rc, const struct run_output *o)
{
	expect_str(rc->what, "NVTE_FLASH_ATTN",
	           env_value(o, "NVTE_FLASH_ATTN"), "1");
	expect_str(rc->what, "NVTE_FUSED_ATTN",
	           env_value(o, "NVTE_FUSED_ATTN"), "1");
	expect_str(rc->what, "NEMO_LOG_MEMORY_USAGE",
	           env_value(o, "NEMO_LOG_MEMORY_USAGE"), "1");
	expect_str(rc->what, "RANK", env_value(o, "RANK"), NULL);
}

/* The recipe's callbacks replaced by its timing alone (DeepSeek-V3's
 * would change the layout), and the override that makes a NeMo 2.0 run
 * stop cleanly on SIGUSR2 (12). */
static const char nemo_timing[] =
	"trainer.callbacks=[nemo.utils.exp_manager.TimingCallback()]";
static const char nemo_preemption[] =
	"trainer.callbacks+=[nemo.lightning.pytorch.callbacks."
	"PreemptionCallback(sig=12)]";

/* One case of the grid through templates/nemo2.sbatch. */
static void
check_nemo_case(const struct real_case *rc)
{
	static const char *const head[] = {
		"llm", "pretrain", "--factory", NULL, "--yes",
	};
	struct strbuf why = STRBUF_INIT;
	struct run_output o;
	char *run_dir;
	char *dir = render_and_run(rc, "nemo2.sbatch", &run_dir, &o);

	CU_ASSERT_TRUE_FATAL(o.argv.n > 5);
	for (int i = 0; i < 5; i++)
		expect_str(rc->what, "nemo argument", o.argv.v[i],
		           head[i] ? head[i] : model_expects[rc->model].recipe);
	CU_ASSERT_EQUAL(nemo_argv_problems(&o.argv, 5, &why), 0);
	if (why.len)
		fprintf(stderr, "\n%s: %s\n", rc->what, why.buf);
	check_nemo_layout(rc, &o.argv);
	check_nemo_recompute(rc, &o.argv);
	check_nemo_switches(rc, &o.argv);
	check_nemo_precision(rc, &o.argv);
	/* run.early_stop (on by default): paratune watch ends the run
	 * with SIGUSR2, which srun forwards and NeMo's PreemptionCallback,
	 * given that signal, handles. */
	CU_ASSERT_TRUE(has(&o.argv, nemo_preemption));
	CU_ASSERT_TRUE(has(&o.argv, nemo_timing));
	CU_ASSERT_TRUE(str_list_find(&o.argv, nemo_timing) <
	               str_list_find(&o.argv, nemo_preemption));
	check_env(rc, &o);
	check_nemo_env(rc, &o);
	check_srun(rc, &o, run_dir);
	harness_rmtree(dir);
	free(dir);
	free(run_dir);
	run_output_release(&o);
	strbuf_release(&why);
}

/* ---- the simulated trainer ----------------------------------------------- */

/* srun for paratune-simtrain: the job's last rank (the one that prints
 * iteration lines) of SIM_WORLD tasks. */
static const char fake_srun_last_rank[] =
	"#!/bin/bash\n"
	"while [ $# -gt 0 ] && [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
	"export SLURM_PROCID=$((SIM_WORLD - 1)) SLURM_LOCALID=7\n"
	"export SLURM_NTASKS=$SIM_WORLD\n"
	"exec \"$@\"\n";

/* The paratune-simtrain that make check built (PARATUNE_SIMTRAIN), else
 * the one in the build directory; the caller frees it. */
static char *
simtrain_path(void)
{
	const char *env = getenv("PARATUNE_SIMTRAIN");
	const char *build = getenv("PARATUNE_BUILDDIR");
	char *rel, *abs;

	if (env && *env)
		return xstrdup(env);
	/* The script runs in its run directory: an absolute path. */
	rel = xasprintf("%s/paratune-simtrain", build && *build ? build : ".");
	abs = realpath(rel, NULL);
	if (abs) {
		free(rel);
		return abs;
	}
	return rel;
}

/*
 * One case through templates/simulated.sbatch and the real
 * paratune-simtrain, 3 steps: its parser must take every flag the
 * template passes (no argparse error, exit status 2) and its setup every
 * layout (no exception); a layout that does not fit may end in the
 * simulated out-of-memory error, which comes after both.
 */
static void
check_simulated_case(const struct real_case *rc, const char *simtrain)
{
	char *dir = fake_cluster(), *run_dir = xasprintf("%s/runs/cand", dir);
	char *rel = harness_srcpath("templates/simulated.sbatch");
	char *srun = xasprintf("%s/bin/srun", dir), *path, *cmd;
	struct strbuf script = STRBUF_INIT, out = STRBUF_INIT;
	struct settings c;
	struct layout l;
	char buf[4096];
	size_t n;
	FILE *p;
	int status;
	bool oom;

	CU_ASSERT_EQUAL(write_file_atomic(srun, fake_srun_last_rank,
	                                  strlen(fake_srun_last_rank), 0700),
	                0);
	CU_ASSERT_EQUAL(mkdir_p(run_dir, 0700), 0);
	setenv("PARATUNE_SIMTRAIN", simtrain, 1);
	case_campaign(&c, rc);
	c.limits.max_steps_per_run = 3;
	case_layout(&l, rc);
	CU_ASSERT_EQUAL_FATAL(jobscript_render(&c, &l, "cand", "/c", run_dir,
	                                       rel, &script), 0);
	path = xasprintf("%s/job.sbatch", dir);
	CU_ASSERT_EQUAL(write_file_atomic(path, script.buf, script.len, 0600),
	                0);
	cmd = xasprintf("cd '%s' && env -i PATH='%s/bin:/usr/bin:/bin' "
	                "SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='gpu[001-004]' "
	                "SIM_WORLD=%d PARATUNE_SIM_SPEEDUP=1000 "
	                "bash job.sbatch 2>&1", dir, dir, rc->nodes * 8);
	p = popen(cmd, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		strbuf_add(&out, buf, n);
	status = pclose(p);
	oom = strstr(out.buf, "torch.OutOfMemoryError") != NULL;
	CU_ASSERT_PTR_NULL(strstr(out.buf, "error: "));
	if (rc->simtrain_refuses) {
		CU_ASSERT_PTR_NOT_NULL(strstr(out.buf, rc->simtrain_refuses));
	} else {
		CU_ASSERT_PTR_NULL(strstr(out.buf, "AssertionError"));
		CU_ASSERT_PTR_NULL(strstr(out.buf, "ValueError"));
		CU_ASSERT(status == 0 || oom);
		CU_ASSERT(oom ||
		          strstr(out.buf, "iteration        3/       3"));
	}
	if (strstr(out.buf, "error: ") || (!rc->simtrain_refuses &&
	    (strstr(out.buf, "Error:") || strstr(out.buf, "Error\n")) &&
	    !oom))
		fprintf(stderr, "\n%s: simulated.sbatch:\n%s\n", rc->what,
		        out.buf);
	settings_release(&c);
	strbuf_release(&script);
	strbuf_release(&out);
	harness_rmtree(dir);
	free(cmd);
	free(path);
	free(srun);
	free(rel);
	free(run_dir);
	free(dir);
}

/* Every case through simulated.sbatch and paratune-simtrain. */
static void
test_simulated_grid(void)
{
	char *simtrain = simtrain_path();
	char *saved = getenv("PARATUNE_SIMTRAIN")
		      ? xstrdup(getenv("PARATUNE_SIMTRAIN")) : NULL;

	CU_ASSERT_EQUAL_FATAL(access(simtrain, X_OK), 0);
	for (size_t i = 0; i < GRID_SIZE; i++)
		check_simulated_case(&grid[i], simtrain);
	if (saved)
		setenv("PARATUNE_SIMTRAIN", saved, 1);
	else
		unsetenv("PARATUNE_SIMTRAIN");
	free(saved);
	free(simtrain);
}

/* ---- tests --------------------------------------------------------------- */

/*
 * The option list holds what the notes on launch interfaces read from the
 * same commit, including options generated from dataclasses, and not the
 * names the notes say do not exist.
 */
static void
test_option_list(void)
{
	static const char *const lines[] = {
		"--normalization {LayerNorm,RMSNorm}",
		"--recompute-granularity {full,selective}",
		"--recompute-method {uniform,block}",
		"--fp8-format {e4m3,hybrid}",
		"--fp8-recipe {tensorwise,delayed,mxfp8,blockwise,custom}",
		"--moe-token-dispatcher-type {allgather,alltoall,flex}",
		"--timing-log-level {0,1,2}",
		"--attention-backend {flash,fused,unfused,local,auto}",
		("--transformer-impl {local,transformer_engine,"
		 "inference_optimized}"),
		"--num-layers-per-virtual-pipeline-stage",
		"--num-virtual-stages-per-pipeline-rank",
		"--expert-tensor-parallel-size", "--tp-comm-overlap",
		"--overlap-param-gather", "--log-throughput", "--mock-data",
	};
	struct str_list known = STR_LIST_INIT;

	megatron_args_load(&known);
	/* Several hundred: arguments.py's add_argument calls alone give
	 * 388 option strings at this commit. */
	CU_ASSERT_TRUE(known.n > 388);
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		CU_ASSERT_TRUE(has(&known, lines[i]));
		if (!has(&known, lines[i]))
			fprintf(stderr, "\nmissing: %s\n", lines[i]);
	}
	CU_ASSERT_PTR_NULL(megatron_args_find(&known, "--fp8"));
	CU_ASSERT_PTR_NULL(megatron_args_find(&known,
	                   "--virtual-pipeline-model-parallel-size"));
	str_list_clear(&known);
}

/* The checkers are able to fail: wrong names and values are caught. */
static void
test_checkers_reject_wrong_flags(void)
{
	static const char *const bad_argv[] = {
		"/opt/megatron-lm/pretrain_gpt.py", "--num-layers", "32",
		"--fp8", "--bf16", "--normalization", "rmsnorm", "--bf16",
	};
	static const char *const bad_overrides[] = {
		"trainer.strategy.tensor_model_parallel_size=2",
		"trainer.strategy.tensor_parallel_size=2", "data.seq_length",
		"trainer.max_steps=", "data.seq_length=4096",
		"data.seq_length=8192",
	};
	struct str_list known = STR_LIST_INIT, argv = STR_LIST_INIT;
	struct strbuf why = STRBUF_INIT;

	megatron_args_load(&known);
	CU_ASSERT_TRUE(megatron_flag_wrong(&known, "--fp8", NULL, &why));
	CU_ASSERT_TRUE(megatron_flag_wrong(&known, "--tensor-model-parallel",
	                                   "2", &why));
	CU_ASSERT_TRUE(megatron_flag_wrong(&known, "--fp8-format", "e5m2",
	                                   &why));
	CU_ASSERT_TRUE(megatron_flag_wrong(&known, "--recompute-method",
	                                   NULL, &why));
	CU_ASSERT_TRUE(megatron_flag_wrong(&known, "--attention-backend",
	                                   "fla", &why));
	CU_ASSERT_FALSE(megatron_flag_wrong(&known, "--attention-backend",
	                                    "unfused", &why));
	CU_ASSERT_FALSE(megatron_flag_wrong(&known, "--num-layers", "32",
	                                    &why));
	/* --fp8 unknown, rmsnorm not a choice, --bf16 twice */
	for (size_t i = 0; i < sizeof bad_argv / sizeof bad_argv[0]; i++)
		str_list_push(&argv, bad_argv[i]);
	CU_ASSERT_EQUAL(megatron_argv_problems(&known, &argv, &why), 3);
	str_list_clear(&argv);
	/* a misspelt path, a word without a value, an empty value, and
	 * data.seq_length given twice */
	for (size_t i = 0; i < sizeof bad_overrides / sizeof bad_overrides[0];
	     i++)
		str_list_push(&argv, bad_overrides[i]);
	CU_ASSERT_EQUAL(nemo_argv_problems(&argv, 0, &why), 4);
	str_list_clear(&argv);
	str_list_clear(&known);
	strbuf_release(&why);
}

/* The grid sets every switch both ways (the list, and the
 * tuning guide's knobs). */
static void
test_grid_covers_every_switch(void)
{
	unsigned long long seen = 0;
	int bit;

	for (size_t i = 0; i < GRID_SIZE; i++) {
		const struct real_case *rc = &grid[i];
		const bool on[] = {
			rc->tp == 1, rc->tp == 2, rc->tp == 8, rc->pp == 1,
			rc->pp == 4, rc->cp == 1, rc->cp == 2, rc->ep > 1,
			rc->etp > 0, rc->vp > 1, rc->vp == 1,
			rc->recompute == RECOMPUTE_NONE,
			rc->recompute == RECOMPUTE_SELECTIVE,
			rc->recompute == RECOMPUTE_FULL,
			rc->recompute_layers > 0,
			rc->model == M_MIXTRAL_8X7B,
			model_expects[rc->model].groups != NULL,
			model_expects[rc->model].groups == NULL,
			rc->container, !rc->container, rc->env, !rc->env,
			rc->mounts, rc->workdir,
			rc->attention == ATTN_UNFUSED,
			rc->precision == PREC_FP32, rc->precision == PREC_FP16,
			rc->precision == PREC_BF16, rc->precision == PREC_FP8,
			/* the tuning guide's knobs, both ways */
			rc->rc_method == RECOMPUTE_UNIFORM &&
				rc->recompute == RECOMPUTE_FULL,
			rc->rc_method == RECOMPUTE_BLOCK &&
				rc->recompute == RECOMPUTE_FULL,
			rc->account_embedding, rc->account_loss,
			rc->fp8_param_gather, rc->precision == PREC_FP8 &&
				!rc->fp8_param_gather,
			rc->fp8_recipe == FP8_DELAYED &&
				rc->precision == PREC_FP8,
			rc->fp8_recipe == FP8_TENSORWISE,
			rc->fp8_recipe == FP8_MXFP8,
			rc->cuda_graphs, !rc->cuda_graphs, rc->tp_overlap,
			rc->sp && !rc->tp_overlap, rc->ogr, !rc->ogr, rc->opg,
			!rc->opg, rc->fsdp, !rc->fsdp, rc->distopt,
			!rc->distopt,
			rc->cp > 1 && rc->cp_comm == CP_COMM_P2P,
			rc->cp_comm == CP_COMM_ALL_GATHER,
			rc->cp_comm == CP_COMM_A2A,
			rc->cp_comm == CP_COMM_A2A_P2P,
			rc->ep > 1 && rc->grouped_gemm,
			rc->ep > 1 && !rc->grouped_gemm, rc->offload > 0,
			rc->dispatcher == MOE_DISPATCH_ALLGATHER,
			rc->dispatcher == MOE_DISPATCH_FLEX,
			rc->dispatcher == MOE_DISPATCH_HYBRIDEP,
			rc->a2a_overlap,
			rc->full_iteration && rc->ep > 1,
			rc->full_iteration && rc->ep == 1,
		};

		for (bit = 0; bit < (int)(sizeof on / sizeof on[0]); bit++)
			if (on[bit])
				seen |= 1ULL << bit;
	}
	/* 63 conditions, each met by some case */
	CU_ASSERT_EQUAL(bit, 63);
	CU_ASSERT_EQUAL(seen, (1ULL << 63) - 1);
}

/* Every case through megatron-lm.sbatch. */
static void
test_megatron_grid(void)
{
	struct str_list known = STR_LIST_INIT;

	megatron_args_load(&known);
	for (size_t i = 0; i < GRID_SIZE; i++)
		check_megatron_case(&grid[i], &known);
	str_list_clear(&known);
}

/* Every case with a NeMo recipe through nemo2.sbatch, but those it
 * refuses (test_nemo_refuses, and NVFP4 parameter gather:
 * test_fp4_precision). */
static void
test_nemo_grid(void)
{
	for (size_t i = 0; i < GRID_SIZE; i++)
		if (model_expects[grid[i].model].recipe &&
		    !grid[i].nemo_refuses)
			check_nemo_case(&grid[i]);
}

/*
 * run.early_stop in nemo2.sbatch: on, the trainer runs in the
 * background with PreemptionCallback listening for SIGUSR2 and paratune
 * watch sends it that; off, neither, and the script still parses and
 * waits for the trainer.
 */
static void
test_nemo_early_stop(void)
{
	static const char *const watcher[] = {
		"\"${overrides[@]}\" &\ntrainer=$!\n",
		"\t'/opt/pt/paratune' watch --pid \"$trainer\" --signal USR2 "
		"\\\n\t\t--skip-steps -1 --min-steps 5 \\\n"
		"\t\t--output \"watch-$SLURM_JOB_ID.txt\" \"$log\" &\n",
		"\nwait \"$trainer\" || status=$?\n", "\nexit \"$status\"\n",
	};
	char *path = harness_srcpath("templates/nemo2.sbatch");
	char *dir = harness_tmpdir(), *file = xasprintf("%s/j.sbatch", dir);
	struct strbuf out = STRBUF_INIT;
	struct settings c;
	struct layout l;

	setenv("PARATUNE_SELF", "/opt/pt/paratune", 1);
	case_campaign(&c, &grid[0]);
	case_layout(&l, &grid[0]);
	for (int on = 1; on >= 0; on--) {
		char *cmd = xasprintf("bash -n '%s'", file);

		c.run.early_stop = on;
		strbuf_reset(&out);
		CU_ASSERT_EQUAL_FATAL(jobscript_render(&c, &l, "cand", "/c",
		                                       "/c/r", path, &out), 0);
		/* The watcher (the second) only when on; the rest always. */
		for (size_t i = 0; i < sizeof watcher / sizeof watcher[0]; i++)
			CU_ASSERT_EQUAL(strstr(out.buf, watcher[i]) != NULL,
			                on || i != 1);
		CU_ASSERT_EQUAL(strstr(out.buf, "paratune' watch ") != NULL,
		                on);
		CU_ASSERT_EQUAL(strstr(out.buf, nemo_preemption) != NULL, on);
		CU_ASSERT_EQUAL(write_file_atomic(file, out.buf, out.len, 0600),
		                0);
		CU_ASSERT_EQUAL(system(cmd), 0);
		free(cmd);
	}
	unsetenv("PARATUNE_SELF");
	settings_release(&c);
	strbuf_release(&out);
	harness_rmtree(dir);
	free(file);
	free(dir);
	free(path);
}

/* Render template name (under templates/) for c and l into out. */
static int
render_named(const char *name, struct settings *c, struct layout *l,
             struct strbuf *out)
{
	char *rel = xasprintf("templates/%s", name);
	char *path = harness_srcpath(rel);
	int ret;

	strbuf_reset(out);
	ret = jobscript_render(c, l, "cand", "/c", "/c/r", path, out);
	free(path);
	free(rel);
	return ret;
}

/*
 * cross_entropy_fusion: Megatron-LM gets both flags for native and
 * refuses te, which its training script rejects; NeMo gets the config
 * fields, and an explicit False for none (GPTConfig's default is True,
 * and the estimate assumes the unfused kernel).
 */
static void
test_cross_entropy_fusion(void)
{
	struct strbuf out = STRBUF_INIT;
	struct settings c;
	struct layout l;

	case_campaign(&c, &grid[0]);
	case_layout(&l, &grid[0]);
	CU_ASSERT_EQUAL_FATAL(render_named("megatron-lm.sbatch", &c, &l, &out),
	                      0);
	CU_ASSERT_PTR_NULL(strstr(out.buf, "--cross-entropy"));
	CU_ASSERT_EQUAL_FATAL(render_named("nemo2.sbatch", &c, &l, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf,
	        "\tmodel.config.cross_entropy_loss_fusion=False\n"));
	CU_ASSERT_PTR_NULL(strstr(out.buf, "cross_entropy_fusion_impl"));

	c.cross_entropy_fusion = CE_FUSION_NATIVE;
	CU_ASSERT_EQUAL_FATAL(render_named("megatron-lm.sbatch", &c, &l, &out),
	                      0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf,
	        "\t--cross-entropy-loss-fusion \\\n"
	        "\t--cross-entropy-fusion-impl native \\\n"));
	CU_ASSERT_EQUAL_FATAL(render_named("nemo2.sbatch", &c, &l, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf,
	        "\tmodel.config.cross_entropy_loss_fusion=True\n"
	        "\tmodel.config.cross_entropy_fusion_impl=native\n"));

	c.cross_entropy_fusion = CE_FUSION_TE;
	CU_ASSERT_EQUAL(render_named("megatron-lm.sbatch", &c, &l, &out), -1);
	CU_ASSERT_EQUAL_FATAL(render_named("nemo2.sbatch", &c, &l, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf,
	        "\tmodel.config.cross_entropy_fusion_impl=te\n"));

	/* A torchtitan campaign estimates torchtitan's memory: neither
	 * template runs it. */
	c.framework = FRAMEWORK_TORCHTITAN;
	c.cross_entropy_fusion = CE_FUSION_TORCH;
	CU_ASSERT_EQUAL(render_named("megatron-lm.sbatch", &c, &l, &out), -1);
	CU_ASSERT_EQUAL(render_named("nemo2.sbatch", &c, &l, &out), -1);
	settings_release(&c);
	strbuf_release(&out);
}

/*
 * fp8_dot_product_attention: NeMo gets MegatronMixedPrecision's field;
 * Megatron-LM's command line has no flag for it, nor has simtrain's
 * (which takes Megatron-LM's), so those two templates refuse it.  Under
 * BF16 the switch does not apply: nothing is passed on nor refused.
 */
static void
test_fp8_dot_product_attention(void)
{
	static const char *const plain[] = {
		"megatron-lm.sbatch", "simulated.sbatch", "nemo2.sbatch",
	};
	struct strbuf out = STRBUF_INIT;
	struct settings c;
	struct layout l;

	case_campaign(&c, &grid[2]);
	case_layout(&l, &grid[2]);
	CU_ASSERT_EQUAL_FATAL(c.precision, PREC_FP8);
	CU_ASSERT_EQUAL_FATAL(render_named("nemo2.sbatch", &c, &l, &out), 0);
	CU_ASSERT_PTR_NULL(strstr(out.buf, "fp8_dot_product_attention"));
	l.fp8_dot_product_attention = true;
	CU_ASSERT_EQUAL_FATAL(render_named("nemo2.sbatch", &c, &l, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf,
	        "\ttrainer.plugins.fp8_dot_product_attention=True\n"));
	CU_ASSERT_EQUAL(render_named("megatron-lm.sbatch", &c, &l, &out), -1);
	CU_ASSERT_EQUAL(render_named("simulated.sbatch", &c, &l, &out), -1);
	c.precision = PREC_BF16;
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
		CU_ASSERT_EQUAL(render_named(plain[i], &c, &l, &out), 0);
		CU_ASSERT_PTR_NULL(strstr(out.buf,
		                          "fp8_dot_product_attention"));
	}
	settings_release(&c);
	strbuf_release(&out);
}

/* Render nemo2.sbatch for the case arg (for harness_capture_stderr). */
static int
call_render_nemo(void *arg)
{
	struct strbuf out = STRBUF_INIT;
	int ret = render_case(arg, "nemo2.sbatch", "/c/runs/x", &out);

	strbuf_release(&out);
	return ret;
}

/*
 * NVFP4: the megatron-lm template passes Megatron-LM's FP4 flags, and
 * --fp4-param-gather for fp8_param_gather, never the FP8 ones; nemo2
 * passes MegatronMixedPrecision's fp4 and fp4_recipe, and refuses the
 * parameter gather, which that plugin does not have.
 */
static void
test_fp4_precision(void)
{
	struct strbuf out = STRBUF_INIT;
	struct settings c;
	struct layout l;
	char *msg;
	int ret;
	size_t g = 0;

	while (g < GRID_SIZE && !(grid[g].precision == PREC_FP4 &&
	                          grid[g].fp8_param_gather))
		g++;
	CU_ASSERT_FATAL(g < GRID_SIZE);
	case_campaign(&c, &grid[g]);
	case_layout(&l, &grid[g]);
	CU_ASSERT_EQUAL_FATAL(render_named("megatron-lm.sbatch", &c, &l, &out),
	                      0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf,
	        "\t--fp4-format e2m1 --fp4-recipe nvfp4 \\\n"
	        "\t--fp4-param-gather \\\n"));
	CU_ASSERT_PTR_NULL(strstr(out.buf, "--fp8-"));
	msg = harness_capture_stderr(call_render_nemo, (void *)&grid[g], &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nemo2.sbatch:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cannot run the campaign: NeMo "
	                              "2.0's 25.07 container (NeMo 2.4) has "
	                              "no FP4"));
	free(msg);
	/* Nor without the parameter gather: NeMo 2.4 has no FP4 at all. */
	l.fp8_param_gather = false;
	CU_ASSERT_NOT_EQUAL(render_named("nemo2.sbatch", &c, &l, &out), 0);
	settings_release(&c);
	strbuf_release(&out);
}

/* A model without a NeMo recipe stops at rendering, saying so. */
static void
test_nemo_needs_recipe(void)
{
	int tested = 0;

	for (size_t i = 0; i < GRID_SIZE; i++) {
		char *msg;
		int ret;

		if (model_expects[grid[i].model].recipe)
			continue;
		msg = harness_capture_stderr(call_render_nemo,
		                             (void *)&grid[i], &ret);
		CU_ASSERT_EQUAL(ret, -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nemo2.sbatch:"));
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, "the model has no NeMo 2.0 "
		                              "recipe"));
		free(msg);
		tested++;
	}
	CU_ASSERT_TRUE(tested > 0);
}

/*
 * TP overlap, a2a+p2p, the MoE all-to-all overlap, blockwise FP8 and
 * DeepEP on Blackwell, MXFP8 weights gathered in FP8 with the overlap
 * or FSDP and full-iteration graphs stop nemo2.sbatch at rendering, saying why and that the
 * megatron-lm template runs them, before anything is submitted.
 */
static void
test_nemo_refuses(void)
{
	int tested = 0;

	for (size_t i = 0; i < GRID_SIZE; i++) {
		char *msg;
		int ret;

		if (!grid[i].nemo_refuses)
			continue;
		msg = harness_capture_stderr(call_render_nemo,
		                             (void *)&grid[i], &ret);
		CU_ASSERT_EQUAL(ret, -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nemo2.sbatch:"));
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, "this template cannot run "
		                              "the campaign: "));
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, grid[i].nemo_refuses));
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, "megatron-lm"));
		free(msg);
		tested++;
	}
	CU_ASSERT_EQUAL(tested, 13);
}

/* Every case of the grid is a layout Megatron-LM accepts. */
static void
test_grid_layouts_valid(void)
{
	for (size_t i = 0; i < GRID_SIZE; i++) {
		struct settings c;
		struct workload w;
		struct layout l;
		enum layout_rule r;

		case_campaign(&c, &grid[i]);
		case_layout(&l, &grid[i]);
		settings_workload(&c, &w);
		r = layout_check(&w, &l);
		CU_ASSERT_EQUAL(r, LAYOUT_OK);
		if (r != LAYOUT_OK)
			fprintf(stderr, "\n%s: %s\n", grid[i].what,
			        layout_rule_name(r));
		CU_ASSERT_EQUAL(l.dp, grid[i].dp);
		settings_release(&c);
	}
}

static const struct harness_test list_tests[] = {
	{ "Megatron-LM option list", test_option_list },
	{ "checkers reject wrong flags", test_checkers_reject_wrong_flags },
	{ "grid covers every switch", test_grid_covers_every_switch },
	{ "grid layouts are valid", test_grid_layouts_valid },
	{ NULL, NULL },
};

/* The installed templates that ask Slurm for the job's resources. */
static const char *const real_templates[] = { "megatron-lm.sbatch",
	"nemo2.sbatch", "simulated.sbatch" };

/* Run check over each installed template with grid[0]'s campaign and
 * layout, which check may change and renders with render_afresh. */
static void
each_real_template(void (*check)(const char *name, const char *path,
                                 struct settings *c, struct layout *l))
{
	for (size_t i = 0; i < sizeof real_templates / sizeof real_templates[0];
	     i++) {
		char *rel = xasprintf("templates/%s", real_templates[i]);
		char *path = harness_srcpath(rel);
		struct settings c;
		struct layout l;

		case_campaign(&c, &grid[0]);
		case_layout(&l, &grid[0]);
		check(real_templates[i], path, &c, &l);
		settings_release(&c);
		free(path);
		free(rel);
	}
}

/* Render path for c and l into out, afresh; jobscript_render's result. */
static int
render_afresh(const char *path, const struct settings *c,
              const struct layout *l, struct strbuf *out)
{
	strbuf_reset(out);
	return jobscript_render(c, l, "cand", "/c", "/c/r", path, out);
}

/* slurm.gpu_type: every real template asks for typed GPUs in its
 * #SBATCH lines, and for any GPU without it. */
static void
check_gpu_type(const char *name, const char *path, struct settings *c,
               struct layout *l)
{
	struct strbuf out = STRBUF_INIT;

	CU_ASSERT_EQUAL(render_afresh(path, c, l, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf, "#SBATCH --gpus-per-node=8\n"));
	CU_ASSERT_PTR_NULL(strstr(out.buf, "--gres"));
	snprintf(c->slurm.gpu_type, sizeof c->slurm.gpu_type, "h100");
	CU_ASSERT_EQUAL(render_afresh(path, c, l, &out), 0);
	if (!strstr(out.buf, "#SBATCH --gres=gpu:h100:8\n"))
		fprintf(stderr, "%s: no typed gres\n", name);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf, "#SBATCH --gres=gpu:h100:8\n"));
	CU_ASSERT_PTR_NULL(strstr(out.buf, "--gpus-per-node="));
	strbuf_release(&out);
}

static void
test_gpu_type(void)
{
	each_real_template(check_gpu_type);
}

/*
 * NVLink segments: every real template asks for the job's segments
 * where the GPU's NVLink domain spans nodes (GB200 NVL72: two nodes of
 * 4 GPUs, one segment of both) and never on one node or an HGX machine
 * (grid[0]'s H100s); a site's --segment directive replaces paratune's.
 */
static void
check_segment(const char *name, const char *path, struct settings *c,
              struct layout *l)
{
	struct strbuf out = STRBUF_INIT;

	CU_ASSERT_EQUAL(render_afresh(path, c, l, &out), 0);
	CU_ASSERT_PTR_NULL(strstr(out.buf, "--segment"));
	c->gpu = *gpu_catalog_find(&c->gpus, "gb200");
	CU_ASSERT_EQUAL(render_afresh(path, c, l, &out), 0);
	CU_ASSERT_PTR_NULL(strstr(out.buf, "--segment"));
	c->nodes = 2;
	c->gpus_per_node = 4;
	CU_ASSERT_EQUAL(render_afresh(path, c, l, &out), 0);
	if (!strstr(out.buf, "#SBATCH --segment=2\n"))
		fprintf(stderr, "%s: no segment\n", name);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf, "#SBATCH --segment=2\n"));
	str_list_push(&c->slurm.directives, "--segment=1");
	CU_ASSERT_EQUAL(render_afresh(path, c, l, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.buf, "#SBATCH --segment=1\n"));
	CU_ASSERT_PTR_NULL(strstr(out.buf, "--segment=2"));
	strbuf_release(&out);
}

static void
test_segment(void)
{
	each_real_template(check_segment);
}

static const struct harness_test template_tests[] = {
	{ "slurm.gpu_type asks for typed GPUs", test_gpu_type },
	{ "NVLink segments of GB200 jobs", test_segment },
	{ "megatron-lm.sbatch over the grid", test_megatron_grid },
	{ "nemo2.sbatch over the grid", test_nemo_grid },
	{ "nemo2.sbatch needs a recipe", test_nemo_needs_recipe },
	{ "nemo2.sbatch stops cleanly on early stop", test_nemo_early_stop },
	{ "cross_entropy_fusion in both templates", test_cross_entropy_fusion },
	{ "fp8_dot_product_attention: NeMo's field, refused elsewhere",
	  test_fp8_dot_product_attention },
	{ "simulated.sbatch runs paratune-simtrain", test_simulated_grid },
	{ "nemo2.sbatch refuses what it cannot pass",
	  test_nemo_refuses },
	{ "NVFP4 flags, and nemo2 refusing FP4",
	  test_fp4_precision },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "checks", list_tests },
	{ "real templates", template_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
