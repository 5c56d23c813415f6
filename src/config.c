/*
 * config.c - the layered campaign configuration.
 *
 * One static registry of keys drives everything: parsing, type and range
 * checks, "did you mean" suggestions, which layer may set what, site
 * locks, `paratune config` and the frozen campaign.conf.  libconfig parses
 * each file; a value is checked and stored the moment its key is met, so
 * every error names the file and line it comes from.
 *
 * Layers, lowest first: campaign_init's defaults, the site file, the user
 * file, the campaign file, the command line ("key=value").  Group members
 * merge key by key; lists of named things (gpus, results.patterns, env,
 * slurm.directives) merge entry by entry; a model is replaced whole.
 */
#include "autoconfig.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "cmd.h"
#include "config.h"
#include "error.h"
#include "json.h"
#include "sizing.h"
#include "xalloc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FIELD_SIZE(type, f) sizeof(((type *)0)->f)

/* ---- the registry ------------------------------------------------------- */

/* How a value is written in a file and where it is stored. */
enum key_type {
	KT_GROUP,       /* a group of further keys */
	KT_INT,         /* int */
	KT_DOUBLE,      /* double; an integer is accepted */
	KT_BOOL,        /* bool */
	KT_STRING,      /* char *, owned */
	KT_NAME,        /* char[size] */
	KT_ENUM,        /* one of choices, stored in an int-sized enum */
	KT_ENUM_STRING, /* one of choices, stored as char * */
	KT_INTS,        /* int, list of ints, or "auto": struct int_list */
	KT_KINDS,       /* one or a list of choices: bit mask */
	KT_BOOLS,       /* bool or list of bools (or "auto"): bit mask */
	KT_STRINGS,     /* string or list of strings, appended */
	KT_ENV,         /* list of "NAME=VALUE", merged by NAME */
	KT_MODEL,       /* preset name or a group */
	KT_GPUS,        /* list of GPU catalog entries */
	KT_PATTERNS,    /* list of { name; regex; } */
};

/* The struct a key's offset refers to. */
enum key_in {
	IN_CAMPAIGN,    /* struct campaign */
	IN_MODEL,       /* struct model_group, inside model = { ... } */
	IN_GPU,         /* struct gpu, inside gpus = ( { ... } ) */
	IN_PATTERN,     /* struct log_pattern, inside results.patterns */
};

enum config_layer {
	LAYER_DEFAULT, LAYER_SITE, LAYER_USER, LAYER_CAMPAIGN, LAYER_CMDLINE,
};

#define SITE_ONLY BIT(LAYER_SITE)
#define RUN_ONLY (BIT(LAYER_CAMPAIGN) | BIT(LAYER_CMDLINE))

#define F_AUTO   0x01u  /* accepts "auto" */
#define F_MEMBER 0x02u  /* only inside its parent's value */
#define F_CLEAR  0x04u  /* an empty string unsets it */
#define F_NAME   0x08u  /* [A-Za-z0-9._-]+, not starting with '.' or '-' */
#define F_OPTION 0x10u  /* each string is a command-line option ("-...") */

struct config_key {
	const char *path;       /* "search.tensor_parallel" */
	enum key_type type;
	enum key_in in;
	size_t off;             /* offset of the field in the 'in' struct */
	size_t size;            /* KT_NAME: size of the char array */
	double min, max;        /* numbers and list elements */
	unsigned layers;        /* BIT(LAYER_*) that may set it; 0: all */
	unsigned flags;
	const char *const *choices; /* KT_ENUM*, KT_KINDS; NULL-terminated */
};

/* A model = { ... } group while it is being read. */
struct model_group {
	struct model m;
	double size_b;
};

/* Choice lists in the order of the C enums they map onto. */
static const char *const mode_names[] = { "pretrain", "finetune", NULL };
static const char *const heuristics_names[] = { "model", "nemo", NULL };
static const char *const precision_names[] = {
	"fp32", "fp16", "bf16", "fp8", NULL }; /* enum precision */
static const char *const peft_names[] = { "none", "lora", NULL };
static const char *const recompute_names[] = {
	"none", "selective", "full", NULL }; /* enum recompute */
static const char *const attention_names[] = {
	"flash", "unfused", NULL }; /* enum attention_impl */
static const char *const norm_names[] = { "LayerNorm", "RMSNorm", NULL };
static const char *const pos_emb_names[] = {
	"learned_absolute", "rope", "relative", NULL }; /* enum pos_emb_kind */
static const char *const arch_names[] = {
	"decoder", "encoder", "encoder_decoder", NULL }; /* enum model_arch */

/* KT_ENUM stores through an int: every such enum must be int-sized. */
_Static_assert(sizeof(enum campaign_mode) == sizeof(int), "enum size");
_Static_assert(sizeof(enum heuristics) == sizeof(int), "enum size");
_Static_assert(sizeof(enum precision) == sizeof(int), "enum size");
_Static_assert(sizeof(enum recompute) == sizeof(int), "enum size");
_Static_assert(sizeof(enum attention_impl) == sizeof(int), "enum size");
_Static_assert(sizeof(enum norm_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum pos_emb_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum model_arch) == sizeof(int), "enum size");

/*
 * Ranges are sanity bounds that catch typos (tp = 0, seq_length = -1,
 * an extra digit), not facts about hardware: each is far beyond any run
 * published so far (Llama 3 405B trained on 16,384 GPUs with TP 8,
 * PP 16, CP 16; Meta, "The Llama 3 Herd of Models", 2024, table 4).
 */
#define MAX_NODES 100000
#define MAX_PARALLEL 65536
#define MAX_SEQ (1 << 24)
#define MAX_BATCH (1 << 24)
#define MAX_DIM (1 << 24)
#define MAX_COUNT 1e9

#define CAMP(f) .in = IN_CAMPAIGN, .off = offsetof(struct campaign, f)
#define MODEL(f) .in = IN_MODEL, .off = offsetof(struct model_group, f), \
	.flags = F_MEMBER
#define GPU(f) .in = IN_GPU, .off = offsetof(struct gpu, f), .flags = F_MEMBER
#define PATTERN(f) .in = IN_PATTERN, .off = offsetof(struct log_pattern, f), \
	.flags = F_MEMBER
#define INTS(p, f, lo, hi) { .path = (p), .type = KT_INTS, CAMP(f), \
	.min = (lo), .max = (hi), .flags = F_AUTO }
#define BASE_INT(p, f, lo, hi) { .path = (p), .type = KT_INT, \
	CAMP(base.layout.f), .min = (lo), .max = (hi), .layers = RUN_ONLY }

static const struct config_key registry[] = {
	{ .path = "name", .type = KT_STRING, CAMP(name), .layers = RUN_ONLY,
	  .flags = F_NAME },
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
	  .choices = precision_names },
	{ .path = "num_tokens_in_b", .type = KT_DOUBLE, CAMP(num_tokens_in_b),
	  .min = 1e-6, .max = 1e9 },
	{ .path = "tflops_per_gpu", .type = KT_DOUBLE, CAMP(tflops_per_gpu),
	  .min = 1e-3, .max = 1e6 },
	{ .path = "max_training_days", .type = KT_DOUBLE,
	  CAMP(max_training_days), .min = 1e-3, .max = 36525 },
	{ .path = "cost_per_gpu_hour", .type = KT_DOUBLE,
	  CAMP(cost_per_gpu_hour), .min = 0, .max = 1e6 },

	{ .path = "search", .type = KT_GROUP },
	{ .path = "search.heuristics", .type = KT_ENUM,
	  CAMP(search.heuristics), .choices = heuristics_names },
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
	{ .path = "search.sequence_parallel", .type = KT_BOOLS,
	  CAMP(search.sequence_parallel), .flags = F_AUTO },
	{ .path = "search.distributed_optimizer", .type = KT_BOOLS,
	  CAMP(search.distributed_optimizer) },
	{ .path = "search.attention", .type = KT_KINDS,
	  CAMP(search.attention), .choices = attention_names },
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

	{ .path = "memory", .type = KT_GROUP },
	{ .path = "memory.margin_gb", .type = KT_DOUBLE,
	  CAMP(memory.margin_gb), .min = 0, .max = 1e6 },
	{ .path = "memory.gpu_memory_gb", .type = KT_DOUBLE,
	  CAMP(memory.gpu_memory_gb), .min = 0, .max = 1e6 },

	{ .path = "run", .type = KT_GROUP },
	{ .path = "run.template", .type = KT_STRING, CAMP(run.template_name) },
	{ .path = "run.templates_dir", .type = KT_STRING,
	  CAMP(run.templates_dir) },

	{ .path = "slurm", .type = KT_GROUP },
	{ .path = "slurm.partition", .type = KT_STRING, CAMP(slurm.partition),
	  .flags = F_CLEAR },
	{ .path = "slurm.account", .type = KT_STRING, CAMP(slurm.account),
	  .flags = F_CLEAR },
	{ .path = "slurm.qos", .type = KT_STRING, CAMP(slurm.qos),
	  .flags = F_CLEAR },
	{ .path = "slurm.reservation", .type = KT_STRING,
	  CAMP(slurm.reservation), .flags = F_CLEAR },
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
	{ .path = "policy.max_nodes", .type = KT_INT, CAMP(policy.max_nodes),
	  .min = 1, .max = MAX_NODES, .layers = SITE_ONLY },
	{ .path = "policy.max_concurrent_jobs", .type = KT_INT,
	  CAMP(policy.max_concurrent_jobs), .min = 1, .max = MAX_NODES,
	  .layers = SITE_ONLY },
	/* A day in seconds: a longer minimum would stall every campaign. */
	{ .path = "policy.min_poll_interval", .type = KT_INT,
	  CAMP(policy.min_poll_interval), .min = 0, .max = 86400,
	  .layers = SITE_ONLY },

	{ .path = "gpus", .type = KT_GPUS, CAMP(gpus) },

	/* Members of model = { ... }: Megatron-LM's argument names. */
	{ .path = "model.name", .type = KT_NAME, MODEL(m.name),
	  .size = FIELD_SIZE(struct model, name) },
	{ .path = "model.family", .type = KT_NAME, MODEL(m.family),
	  .size = FIELD_SIZE(struct model, family) },
	{ .path = "model.nemo_recipe", .type = KT_NAME,
	  .in = IN_MODEL, .off = offsetof(struct model_group, m.nemo_recipe),
	  .size = FIELD_SIZE(struct model, nemo_recipe),
	  .flags = F_MEMBER | F_CLEAR },
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
	  GPU(peak_tflops[PREC_FP32]), .min = 0, .max = 1e7 },
	{ .path = "gpus.fp16_tflops", .type = KT_DOUBLE,
	  GPU(peak_tflops[PREC_FP16]), .min = 0, .max = 1e7 },
	{ .path = "gpus.bf16_tflops", .type = KT_DOUBLE,
	  GPU(peak_tflops[PREC_BF16]), .min = 1e-3, .max = 1e7 },
	{ .path = "gpus.fp8_tflops", .type = KT_DOUBLE,
	  GPU(peak_tflops[PREC_FP8]), .min = 0, .max = 1e7 },
	{ .path = "gpus.nvlink_domain", .type = KT_INT, GPU(nvlink_domain),
	  .min = 1, .max = MAX_PARALLEL },
	{ .path = "gpus.nvlink_gbs", .type = KT_DOUBLE, GPU(nvlink_gbs),
	  .min = 0, .max = 1e7 },
	{ .path = "gpus.network_gbs", .type = KT_DOUBLE, GPU(network_gbs),
	  .min = 0, .max = 1e7 },
	/* 0: derived from the peak by the estimator (gpu.h). */
	{ .path = "gpus.hbm_tbs", .type = KT_DOUBLE, GPU(hbm_tbs),
	  .min = 0, .max = 1e4 },

	/* Members of each results.patterns entry. */
	{ .path = "results.patterns.name", .type = KT_STRING, PATTERN(name) },
	{ .path = "results.patterns.regex", .type = KT_STRING,
	  PATTERN(regex) },
};

#define NKEYS ARRAY_SIZE(registry)

/* The registry entry for an exact dotted path, or NULL. */
static const struct config_key *
registry_find(const char *path)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(registry[i].path, path))
			return &registry[i];
	return NULL;
}

/* Length of the parent group's path ("search" in "search.tp"); 0 at top. */
static size_t
parent_len(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? (size_t)(dot - path) : 0;
}

/* The last component of a path. */
static const char *
last_part(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? dot + 1 : path;
}

/* Whether k sits directly in the group whose path is prefix[0..len). */
static bool
key_in_group(const struct config_key *k, const char *prefix, size_t len)
{
	return parent_len(k->path) == len && !strncmp(k->path, prefix, len);
}

/* ---- suggestions ------------------------------------------------------- */

/* ASCII lower case; the locale must not change what a typo is. */
static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Optimal string alignment distance (Damerau-Levenshtein with adjacent
 * transpositions), ignoring case. */
static int
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *rows = xcalloc(3 * (lb + 1), sizeof(*rows));
	int *prev2 = rows, *prev = rows + lb + 1, *cur = rows + 2 * (lb + 1);
	int d;

	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int *t;

		cur[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = lower(a[i - 1]), cb = lower(b[j - 1]);
			int best = prev[j - 1] + (ca != cb);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == lower(b[j - 2]) &&
			    lower(a[i - 2]) == cb && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(rows);
	return d;
}

/*
 * The most edits that still read as a typo of word: one for very short
 * words, where two edits turn anything into anything, then about one in
 * four characters (git's help.c uses a similar length-scaled cut-off).
 */
static int
typo_budget(const char *word)
{
	size_t n = strlen(word);

	return n <= 3 ? 1 : n <= 8 ? 2 : 3;
}

/* Whether cand starts with word, ignoring case. */
static bool
has_prefix(const char *cand, const char *word)
{
	for (; *word; word++, cand++)
		if (lower(*word) != lower(*cand))
			return false;
	return true;
}

/* Index of the closest candidate, or -1: see config_closest. */
static int
closest_index(const char *word, const char *const *cands, int n)
{
	int best = -1, best_d = INT_MAX;
	size_t best_len = SIZE_MAX;

	for (int i = 0; i < n; i++) {
		int d = edit_distance(word, cands[i]);

		if (d <= typo_budget(word) && d < (int)strlen(cands[i]) &&
		    d < best_d) {
			best = i;
			best_d = d;
		}
	}
	if (best >= 0 || strlen(word) < 3)
		return best;
	/* A truncated name ("llama3" for "llama3_8b"): the shortest one. */
	for (int i = 0; i < n; i++)
		if (has_prefix(cands[i], word) && strlen(cands[i]) < best_len) {
			best = i;
			best_len = strlen(cands[i]);
		}
	return best;
}

/* Public: see config.h. */
const char *
config_closest(const char *word, const char *const *cands, int n)
{
	int i = closest_index(word, cands, n);

	return i < 0 ? NULL : cands[i];
}

/*
 * Append " (did you mean 'a'?)" or " (did you mean 'a', 'b' or 'c'?)":
 * up to three candidates within the typo budget, closest first; nothing
 * when none is close.
 */
static void
suggest_names(struct strbuf *sb, const char *word, const char *const *cands,
              int n)
{
	int pick[3], dist[3], npick = 0;

	for (int i = 0; i < n; i++) {
		int d = edit_distance(word, cands[i]), j;

		if (d > typo_budget(word) || d >= (int)strlen(cands[i]))
			continue;
		for (j = npick; j > 0 && dist[j - 1] > d; j--)
			if (j < 3) {
				pick[j] = pick[j - 1];
				dist[j] = dist[j - 1];
			}
		if (j < 3) {
			pick[j] = i;
			dist[j] = d;
			if (npick < 3)
				npick++;
		}
	}
	if (npick == 0 && (pick[0] = closest_index(word, cands, n)) >= 0)
		npick = 1;
	if (npick == 0)
		return;
	strbuf_addf(sb, " (did you mean '%s'", cands[pick[0]]);
	for (int j = 1; j < npick; j++)
		strbuf_addf(sb, "%s'%s'", j == npick - 1 ? " or " : ", ",
		            cands[pick[j]]);
	strbuf_addstr(sb, "?)");
}

/*
 * The registry path closest to an unknown one: a sibling in the same
 * group first ("search.tensor_paralel"), then any path ("serch.tp"), then
 * any key by its last part ("tensor_parallel" at the top level).  Inside
 * a model, gpus or patterns group only siblings count.
 */
static const char *
suggest_key(const char *path, enum key_in in)
{
	const char *cands[NKEYS];
	const struct config_key *keys[NKEYS];
	size_t plen = parent_len(path);
	int n = 0, i;

	for (size_t k = 0; k < NKEYS; k++)
		if (registry[k].in == in &&
		    key_in_group(&registry[k], path, plen)) {
			keys[n] = &registry[k];
			cands[n++] = last_part(registry[k].path);
		}
	if ((i = closest_index(last_part(path), cands, n)) >= 0)
		return keys[i]->path;
	if (in != IN_CAMPAIGN)
		return NULL;
	n = 0;
	for (size_t k = 0; k < NKEYS; k++)
		if (!(registry[k].flags & F_MEMBER)) {
			keys[n] = &registry[k];
			cands[n++] = registry[k].path;
		}
	if ((i = closest_index(path, cands, n)) >= 0)
		return keys[i]->path;
	for (i = 0; i < n; i++)
		cands[i] = last_part(keys[i]->path);
	i = closest_index(last_part(path), cands, n);
	return i >= 0 ? keys[i]->path : NULL;
}

/* ---- provenance -------------------------------------------------------- */

/* The campaign's copy of a file name, kept as long as the campaign. */
static const char *
intern(struct campaign *c, const char *file)
{
	for (int i = 0; i < c->nfiles; i++)
		if (!strcmp(c->files[i], file))
			return c->files[i];
	c->files = xreallocarray(c->files, (size_t)c->nfiles + 1,
	                         sizeof(*c->files));
	c->files[c->nfiles] = xstrdup(file);
	return c->files[c->nfiles++];
}

/* Remember that key got its value at o (the last layer wins). */
static void
record(struct campaign *c, const char *key, struct origin o)
{
	for (int i = 0; i < c->nvalues; i++)
		if (!strcmp(c->values[i].key, key)) {
			c->values[i].origin = o;
			return;
		}
	if (c->nvalues == c->values_alloc) {
		c->values_alloc = c->values_alloc ? 2 * c->values_alloc : 32;
		c->values = xreallocarray(c->values, (size_t)c->values_alloc,
		                          sizeof(*c->values));
	}
	c->values[c->nvalues].key = key;
	c->values[c->nvalues++].origin = o;
}

/* The origin of a key, from the provenance list. */
const struct origin *
campaign_origin(const struct campaign *c, const char *key)
{
	for (int i = 0; i < c->nvalues; i++)
		if (!strcmp(c->values[i].key, key))
			return &c->values[i].origin;
	return NULL;
}

/* Whether any layer set key. */
static bool
key_set(const struct campaign *c, const char *key)
{
	return campaign_origin(c, key) != NULL;
}

/* "FILE:LINE" of a key's value, or "built-in default". */
static void
origin_text(const struct campaign *c, const char *key, char *buf,
            size_t len)
{
	const struct origin *o = campaign_origin(c, key);

	if (o)
		snprintf(buf, len, "%s:%d", o->file, o->line);
	else
		snprintf(buf, len, "built-in default");
}

/* "error: FILE:LINE: key 'K': MSG" at the place key got its value. */
static int __attribute__((format(printf, 3, 4)))
origin_error(const struct campaign *c, const char *key, const char *fmt, ...)
{
	char where[512], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	origin_text(c, key, where, sizeof where);
	return error("%s: key '%s': %s", where, key, msg);
}

/* ---- value writers ----------------------------------------------------- */

/*
 * Values are walked once (key_visit) and written through a sink: one
 * writes libconfig syntax on one line, the other JSON.  Inside groups
 * items have names; inside lists name is NULL.
 */
struct value_sink {
	void (*open)(void *arg, const char *name, char kind); /* [ ( { */
	void (*close)(void *arg, char kind);
	void (*integer)(void *arg, const char *name, long long v);
	void (*number)(void *arg, const char *name, double v);
	void (*boolean)(void *arg, const char *name, bool v);
	void (*string)(void *arg, const char *name, const char *s);
};

#define CONF_DEPTH 8

/* One-line libconfig text. */
struct conf_text {
	struct strbuf *out;
	int depth;
	char kind[CONF_DEPTH];
	int count[CONF_DEPTH];
	bool unset;             /* the top-level value was a NULL string */
};

/* Separator and name before an item. */
static void
conf_item(struct conf_text *w, const char *name)
{
	if (w->depth == 0)
		return;
	if (w->kind[w->depth] == '{')
		strbuf_addf(w->out, " %s = ", name);
	else if (w->count[w->depth])
		strbuf_addstr(w->out, ", ");
	w->count[w->depth]++;
}

/* Terminator after an item. */
static void
conf_done(struct conf_text *w)
{
	if (w->depth > 0 && w->kind[w->depth] == '{')
		strbuf_addch(w->out, ';');
}

/* Open a list or group. */
static void
conf_open(void *arg, const char *name, char kind)
{
	struct conf_text *w = arg;

	conf_item(w, name);
	strbuf_addch(w->out, kind);
	if (++w->depth >= CONF_DEPTH)
		bug("configuration value nested too deep");
	w->kind[w->depth] = kind;
	w->count[w->depth] = 0;
}

/* Close the innermost list or group. */
static void
conf_close(void *arg, char kind)
{
	struct conf_text *w = arg;

	strbuf_addstr(w->out, kind == '{' ? " }" : kind == '[' ? "]" : ")");
	w->depth--;
	conf_done(w);
}

/* An integer item. */
static void
conf_integer(void *arg, const char *name, long long v)
{
	struct conf_text *w = arg;

	conf_item(w, name);
	strbuf_addf(w->out, "%lld", v);
	conf_done(w);
}

/*
 * A double that reads back exactly: the shortest of %.15g..%.17g that
 * round-trips, with ".0" so libconfig reads a float.
 */
static void
conf_double(struct strbuf *out, double v)
{
	char buf[64];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	strbuf_addstr(out, buf);
	if (!strpbrk(buf, ".eE"))
		strbuf_addstr(out, ".0");
}

/* A floating-point item. */
static void
conf_number(void *arg, const char *name, double v)
{
	struct conf_text *w = arg;

	conf_item(w, name);
	conf_double(w->out, v);
	conf_done(w);
}

/* A boolean item. */
static void
conf_boolean(void *arg, const char *name, bool v)
{
	struct conf_text *w = arg;

	conf_item(w, name);
	strbuf_addstr(w->out, v ? "true" : "false");
	conf_done(w);
}

/* A libconfig string literal (escapes as libconfig's scanner reads them). */
static void
conf_quote(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_addf(out, "\\x%02x", *p);
		else
			strbuf_addch(out, (char)*p);
	}
	strbuf_addch(out, '"');
}

/* A string item; a NULL string at the top level is "unset". */
static void
conf_string(void *arg, const char *name, const char *s)
{
	struct conf_text *w = arg;

	if (s == NULL && w->depth == 0) {
		w->unset = true;
		return;
	}
	conf_item(w, name);
	conf_quote(w->out, s ? s : "");
	conf_done(w);
}

static const struct value_sink conf_sink = {
	conf_open, conf_close, conf_integer, conf_number, conf_boolean,
	conf_string,
};

/* A JSON object for a group, an array for a list. */
static void
json_sink_open(void *arg, const char *name, char kind)
{
	if (kind == '{')
		json_begin_object(arg, name);
	else
		json_begin_array(arg, name);
}

/* Close what json_sink_open opened. */
static void
json_sink_close(void *arg, char kind)
{
	if (kind == '{')
		json_end_object(arg);
	else
		json_end_array(arg);
}

/* A JSON integer. */
static void
json_sink_integer(void *arg, const char *name, long long v)
{
	json_int(arg, name, v);
}

/* A JSON number. */
static void
json_sink_number(void *arg, const char *name, double v)
{
	json_number(arg, name, v);
}

/* A JSON boolean. */
static void
json_sink_boolean(void *arg, const char *name, bool v)
{
	json_bool(arg, name, v);
}

/* A JSON string, or null. */
static void
json_sink_string(void *arg, const char *name, const char *s)
{
	json_string(arg, name, s);
}

static const struct value_sink json_sink = {
	json_sink_open, json_sink_close, json_sink_integer, json_sink_number,
	json_sink_boolean, json_sink_string,
};

/* ---- reading values back out of a campaign ---------------------------- */

/* An int-sized enum field (see the static assertions above). */
static int
enum_load(const void *field)
{
	int v;

	memcpy(&v, field, sizeof v);
	return v;
}

/* Store into an int-sized enum field. */
static void
enum_store(void *field, int v)
{
	memcpy(field, &v, sizeof v);
}

/* The name of choice v, or "?" when v is outside the list. */
static const char *
choice_name(const char *const *choices, int v)
{
	for (int i = 0; choices[i]; i++)
		if (i == v)
			return choices[i];
	return "?";
}

static void key_visit(const struct campaign *c, const void *base,
                      const struct config_key *k,
                      const struct value_sink *vs, void *arg,
                      const char *name);

/* Every member of one struct (model, gpu, pattern) as a group. */
static void
visit_members(const struct campaign *c, enum key_in in, const void *base,
              const struct value_sink *vs, void *arg, const char *name)
{
	vs->open(arg, name, '{');
	for (size_t i = 0; i < NKEYS; i++) {
		const struct config_key *k = &registry[i];

		if (k->in == in && strcmp(k->path, "model.size_b"))
			key_visit(c, base, k, vs, arg, last_part(k->path));
	}
	vs->close(arg, '{');
}

/* The model: the whole architecture, or a family still to generate. */
static void
visit_model(const struct campaign *c, const struct value_sink *vs,
            void *arg, const char *name)
{
	const struct model_family_spec *f = &c->model_family;
	struct model_group mg;

	if (c->model.num_layers > 0) {
		memset(&mg, 0, sizeof mg);
		mg.m = c->model;
		visit_members(c, IN_MODEL, &mg, vs, arg, name);
	} else if (f->family[0]) {
		vs->open(arg, name, '{');
		vs->string(arg, "name", c->model_name);
		vs->string(arg, "family", f->family);
		if (f->size_b > 0)
			vs->number(arg, "size_b", f->size_b);
		if (f->vocab_size > 0)
			vs->integer(arg, "vocab_size", f->vocab_size);
		vs->close(arg, '{');
	} else {
		vs->string(arg, name, NULL);
	}
}

/* The catalog entries that some layer added or changed. */
static void
visit_gpus(const struct campaign *c, const struct value_sink *vs, void *arg,
           const char *name)
{
	vs->open(arg, name, '(');
	for (int i = 0; i < c->gpus_set.n; i++) {
		const struct gpu *g = gpu_catalog_find(&c->gpus,
		                                       c->gpus_set.v[i]);

		if (g)
			visit_members(c, IN_GPU, g, vs, arg, NULL);
	}
	vs->close(arg, '(');
}

/* A searched integer: "auto" or a list. */
static void
visit_ints(const struct int_list *l, const struct value_sink *vs, void *arg,
           const char *name)
{
	if (l->is_auto) {
		vs->string(arg, name, "auto");
		return;
	}
	vs->open(arg, name, '[');
	for (int i = 0; i < l->n; i++)
		vs->integer(arg, NULL, l->v[i]);
	vs->close(arg, '[');
}

/* A bit mask of choices as a list of their names. */
static void
visit_kinds(unsigned mask, const char *const *choices,
            const struct value_sink *vs, void *arg, const char *name)
{
	vs->open(arg, name, '[');
	for (int i = 0; choices[i]; i++)
		if (mask & BIT(i))
			vs->string(arg, NULL, choices[i]);
	vs->close(arg, '[');
}

/* A bool set: "auto" when empty, a bool when one, else a list. */
static void
visit_bools(unsigned mask, const struct value_sink *vs, void *arg,
            const char *name)
{
	if (mask == 0) {
		vs->string(arg, name, "auto");
	} else if (mask == BIT(0) || mask == BIT(1)) {
		vs->boolean(arg, name, mask == BIT(1));
	} else {
		vs->open(arg, name, '[');
		vs->boolean(arg, NULL, false);
		vs->boolean(arg, NULL, true);
		vs->close(arg, '[');
	}
}

/* A string list. */
static void
visit_strings(const struct str_list *l, const struct value_sink *vs,
              void *arg, const char *name)
{
	vs->open(arg, name, '[');
	for (int i = 0; i < l->n; i++)
		vs->string(arg, NULL, l->v[i]);
	vs->close(arg, '[');
}

/* The log patterns as a list of groups. */
static void
visit_patterns(const struct campaign *c, const struct value_sink *vs,
               void *arg, const char *name)
{
	vs->open(arg, name, '(');
	for (int i = 0; i < c->results.npatterns; i++)
		visit_members(c, IN_PATTERN, &c->results.patterns[i], vs, arg,
		              NULL);
	vs->close(arg, '(');
}

/* Write the value of key k, stored in base, through a sink. */
static void
key_visit(const struct campaign *c, const void *base,
          const struct config_key *k, const struct value_sink *vs,
          void *arg, const char *name)
{
	const char *p = (const char *)base + k->off;

	switch (k->type) {
	case KT_INT:
		vs->integer(arg, name, *(const int *)(const void *)p);
		break;
	case KT_DOUBLE:
		vs->number(arg, name, *(const double *)(const void *)p);
		break;
	case KT_BOOL:
		vs->boolean(arg, name, *(const bool *)(const void *)p);
		break;
	case KT_STRING:
	case KT_ENUM_STRING:
		vs->string(arg, name, *(char *const *)(const void *)p);
		break;
	case KT_NAME:
		vs->string(arg, name, p);
		break;
	case KT_ENUM:
		vs->string(arg, name, choice_name(k->choices, enum_load(p)));
		break;
	case KT_INTS:
		visit_ints((const void *)p, vs, arg, name);
		break;
	case KT_KINDS:
		visit_kinds(*(const unsigned *)(const void *)p, k->choices, vs,
		            arg, name);
		break;
	case KT_BOOLS:
		visit_bools(*(const unsigned *)(const void *)p, vs, arg, name);
		break;
	case KT_STRINGS:
	case KT_ENV:
		visit_strings((const void *)p, vs, arg, name);
		break;
	case KT_MODEL:
		visit_model(c, vs, arg, name);
		break;
	case KT_GPUS:
		visit_gpus(c, vs, arg, name);
		break;
	case KT_PATTERNS:
		visit_patterns(c, vs, arg, name);
		break;
	case KT_GROUP:
		bug("key_visit on group '%s'", k->path);
	}
}

/* A key's value as one line of libconfig; false when it is unset. */
static bool
key_text(const struct campaign *c, const void *base,
         const struct config_key *k, struct strbuf *out)
{
	struct conf_text w = { .out = out };

	key_visit(c, base, k, &conf_sink, &w, NULL);
	return !w.unset;
}

/* ---- the loader -------------------------------------------------------- */

/* The state of one campaign_load: which layer is being read, from where. */
struct loader {
	struct campaign *c;
	enum config_layer layer;
	const char *file;       /* interned: the layer's file, "command line" */
	const char *dir;        /* the layer file's directory, for @include */
	int line;               /* command line: the setting's number, else 0 */
};

/* The name to report for a file libconfig read: an @include'd one is
 * named relative to the including file's directory. */
static const char *
source_name(struct loader *ld, const char *file)
{
	char *path;
	const char *name;

	if (file == NULL)
		return ld->file;
	if (file[0] == '/' || ld->dir == NULL || !strcmp(file, ld->file))
		return intern(ld->c, file);
	path = xasprintf("%s/%s", ld->dir, file);
	name = intern(ld->c, path);
	free(path);
	return name;
}

/* Where a setting came from: its file (an @include'd one included). */
static struct origin
setting_origin(struct loader *ld, const config_setting_t *s)
{
	struct origin o;

	if (ld->line > 0) {
		o.file = ld->file;
		o.line = ld->line;
		return o;
	}
	o.file = source_name(ld, config_setting_source_file(s));
	o.line = (int)config_setting_source_line(s);
	return o;
}

/* "error: FILE:LINE: MSG" at a setting. */
static int __attribute__((format(printf, 3, 4)))
at_error(struct loader *ld, const config_setting_t *s, const char *fmt, ...)
{
	struct origin o = setting_origin(ld, s);
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return error("%s:%d: %s", o.file, o.line, msg);
}

/* "error: FILE:LINE: key 'K': MSG" at a setting. */
static int __attribute__((format(printf, 4, 5)))
key_error(struct loader *ld, const config_setting_t *s,
          const struct config_key *k, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return at_error(ld, s, "key '%s': %s", k->path, msg);
}

/* "error: FILE:LINE: unknown key 'P' (did you mean 'Q'?)". */
static int
unknown_key(struct loader *ld, const config_setting_t *s, const char *path,
            enum key_in in)
{
	const char *near = suggest_key(path, in);

	if (near)
		return at_error(ld, s, "unknown key '%s' (did you mean '%s'?)",
		                path, near);
	return at_error(ld, s, "unknown key '%s'", path);
}

/* What a setting holds, for messages ("a string"). */
static const char *
setting_kind(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP: return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a number with a fraction";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "a boolean";
	case CONFIG_TYPE_ARRAY: return "an array";
	case CONFIG_TYPE_LIST: return "a list";
	default: return "nothing";
	}
}

/* Whether a setting is an array or a list. */
static bool
is_list(const config_setting_t *s)
{
	return config_setting_is_array(s) || config_setting_is_list(s);
}

/* Whether a setting is an integer of either width. */
static bool
is_int(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

/* Whether a setting is a string. */
static bool
is_string(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_STRING;
}

/* "element 3: " for the third list element, "" for a single value. */
static void
element_prefix(char *buf, size_t len, int idx)
{
	if (idx < 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, "element %d: ", idx + 1);
}

/* An integer setting within k's range; idx >= 0 inside a list. */
static int
read_int(struct loader *ld, const struct config_key *k,
          const config_setting_t *s, int idx, int *out)
{
	char where[32];
	long long v;

	element_prefix(where, sizeof where, idx);
	if (!is_int(s))
		return key_error(ld, s, k, "%sexpects an integer, not %s",
		                 where, setting_kind(s));
	v = config_setting_get_int64(s);
	if ((double)v < k->min || (double)v > k->max)
		return key_error(ld, s, k, "%s%lld is out of range (%.0f to "
		                 "%.0f)", where, v, k->min, k->max);
	*out = (int)v;
	return 0;
}

/* A number (an integer will do) within k's range. */
static int
read_double(struct loader *ld, const struct config_key *k,
             const config_setting_t *s, double *out)
{
	double v;

	if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(s);
	else if (is_int(s))
		v = (double)config_setting_get_int64(s);
	else
		return key_error(ld, s, k, "expects a number, not %s",
		                 setting_kind(s));
	if (!(v >= k->min && v <= k->max))
		return key_error(ld, s, k, "%g is out of range (%g to %g)", v,
		                 k->min, k->max);
	*out = v;
	return 0;
}

/* Letters, digits, '.', '_' and '-', not starting with '.' or '-'. */
static bool
valid_name(const char *s)
{
	if (*s == '\0' || *s == '.' || *s == '-')
		return false;
	for (; *s; s++)
		if (!(strchr("._-", *s) || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/*
 * A string setting: never a line break (values end up in sbatch scripts
 * line by line), empty only where F_CLEAR allows, a name where F_NAME
 * asks for one.
 */
static int
read_string(struct loader *ld, const struct config_key *k,
             const config_setting_t *s, int idx, const char **out)
{
	char where[32];
	const char *v;

	element_prefix(where, sizeof where, idx);
	if (!is_string(s))
		return key_error(ld, s, k, "%sexpects a string, not %s", where,
		                 setting_kind(s));
	v = config_setting_get_string(s);
	if (strpbrk(v, "\n\r"))
		return key_error(ld, s, k, "%scontains a line break", where);
	if (*v == '\0' && !(k->flags & F_CLEAR))
		return key_error(ld, s, k, "%sis empty", where);
	if ((k->flags & F_NAME) && !valid_name(v))
		return key_error(ld, s, k, "%s'%s' is not a valid name "
		                 "(letters, digits, '.', '_' and '-', not "
		                 "starting with '.' or '-')", where, v);
	if ((k->flags & F_OPTION) && v[0] != '-')
		return key_error(ld, s, k, "%s'%s' is not an option (such as "
		                 "\"--exclusive\")", where, v);
	*out = v;
	return 0;
}

/* One of k's choices; its index. */
static int
read_choice(struct loader *ld, const struct config_key *k,
             const config_setting_t *s, int idx, int *out)
{
	struct strbuf msg = STRBUF_INIT;
	const char *v;
	int n, ret;

	if (read_string(ld, k, s, idx, &v) != 0)
		return -1;
	for (n = 0; k->choices[n]; n++)
		if (!strcmp(k->choices[n], v)) {
			*out = n;
			return 0;
		}
	if (idx >= 0)
		strbuf_addf(&msg, "element %d: ", idx + 1);
	strbuf_addf(&msg, "unknown value '%s'", v);
	suggest_names(&msg, v, k->choices, n);
	strbuf_addstr(&msg, "; one of:");
	for (int i = 0; i < n; i++)
		strbuf_addf(&msg, "%s %s", i ? "," : "", k->choices[i]);
	ret = key_error(ld, s, k, "%s", msg.buf);
	strbuf_release(&msg);
	return ret;
}

/* int, double, bool, string, name and enum keys into base. */
static int
store_scalar(struct loader *ld, const struct config_key *k,
             const config_setting_t *s, void *base)
{
	void *p = (char *)base + k->off;
	const char *str;
	int v;

	switch (k->type) {
	case KT_INT:
		return read_int(ld, k, s, -1, p);
	case KT_DOUBLE:
		return read_double(ld, k, s, p);
	case KT_BOOL:
		if (config_setting_type(s) != CONFIG_TYPE_BOOL)
			return key_error(ld, s, k, "expects true or false, not "
			                 "%s", setting_kind(s));
		*(bool *)p = config_setting_get_bool(s);
		return 0;
	case KT_STRING:
		if (read_string(ld, k, s, -1, &str) != 0)
			return -1;
		free(*(char **)p);
		*(char **)p = *str ? xstrdup(str) : NULL;
		return 0;
	case KT_NAME:
		if (read_string(ld, k, s, -1, &str) != 0)
			return -1;
		if (strlen(str) >= k->size)
			return key_error(ld, s, k, "'%s' is longer than %zu "
			                 "characters", str, k->size - 1);
		memcpy(p, str, strlen(str) + 1);
		return 0;
	case KT_ENUM:
	case KT_ENUM_STRING:
		if (read_choice(ld, k, s, -1, &v) != 0)
			return -1;
		if (k->type == KT_ENUM) {
			enum_store(p, v);
		} else {
			free(*(char **)p);
			*(char **)p = xstrdup(k->choices[v]);
		}
		return 0;
	default:
		bug("store_scalar on '%s'", k->path);
	}
}

/* An integer, a list of them, or "auto" (where allowed). */
static int
read_ints(struct loader *ld, const struct config_key *k,
           const config_setting_t *s, struct int_list *out)
{
	struct int_list l;
	int n;

	memset(&l, 0, sizeof l);
	if (is_string(s) && (k->flags & F_AUTO) &&
	    !strcmp(config_setting_get_string(s), "auto")) {
		l.is_auto = true;
	} else if (is_int(s)) {
		/* One value is a one-element list, as in NeMo. */
		if (read_int(ld, k, s, -1, &l.v[0]) != 0)
			return -1;
		l.n = 1;
	} else if (is_list(s)) {
		n = config_setting_length(s);
		if (n == 0)
			return key_error(ld, s, k, "the list is empty");
		if (n > CONFIG_LIST_MAX)
			return key_error(ld, s, k, "%d values; at most %d",
			                 n, CONFIG_LIST_MAX);
		for (int i = 0; i < n; i++)
			if (read_int(ld, k, config_setting_get_elem(s,
			              (unsigned)i), i, &l.v[i]) != 0)
				return -1;
		l.n = n;
	} else {
		const char *str = is_string(s) ? config_setting_get_string(s)
		                               : NULL;

		return key_error(ld, s, k, "expects an integer, a list of "
		                 "integers%s, not %s%s%s%s",
		                 k->flags & F_AUTO ? " or \"auto\"" : "",
		                 setting_kind(s), str ? " '" : "",
		                 str ? str : "", str ? "'" : "");
	}
	*out = l;
	return 0;
}

/* One choice or a list of them, as a bit mask. */
static int
read_kinds(struct loader *ld, const struct config_key *k,
            const config_setting_t *s, unsigned *out)
{
	unsigned mask = 0;
	int v, n;

	if (is_string(s)) {
		if (read_choice(ld, k, s, -1, &v) != 0)
			return -1;
		*out = BIT(v);
		return 0;
	}
	if (!is_list(s))
		return key_error(ld, s, k, "expects a string or a list of "
		                 "strings, not %s", setting_kind(s));
	if ((n = config_setting_length(s)) == 0)
		return key_error(ld, s, k, "the list is empty");
	for (int i = 0; i < n; i++) {
		if (read_choice(ld, k, config_setting_get_elem(s,
		                 (unsigned)i), i, &v) != 0)
			return -1;
		mask |= BIT(v);
	}
	*out = mask;
	return 0;
}

/* A bool, a list of bools, or "auto" (where allowed): BIT(0) off,
 * BIT(1) on, 0 auto. */
static int
read_bools(struct loader *ld, const struct config_key *k,
            const config_setting_t *s, unsigned *out)
{
	unsigned mask = 0;
	int n = is_list(s) ? config_setting_length(s) : 0;

	if (is_string(s) && (k->flags & F_AUTO) &&
	    !strcmp(config_setting_get_string(s), "auto")) {
		*out = 0;
		return 0;
	}
	if (config_setting_type(s) == CONFIG_TYPE_BOOL) {
		*out = BIT(config_setting_get_bool(s) ? 1 : 0);
		return 0;
	}
	if (!is_list(s) || n == 0)
		return key_error(ld, s, k, "expects true, false, a list of "
		                 "them%s, not %s",
		                 k->flags & F_AUTO ? " or \"auto\"" : "",
		                 n == 0 && is_list(s) ? "an empty list"
		                                      : setting_kind(s));
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s,
		                                                   (unsigned)i);

		if (config_setting_type(e) != CONFIG_TYPE_BOOL)
			return key_error(ld, e, k, "element %d: expects true "
			                 "or false, not %s", i + 1,
			                 setting_kind(e));
		mask |= BIT(config_setting_get_bool(e) ? 1 : 0);
	}
	*out = mask;
	return 0;
}

/* A string or a list of strings, each checked, into a fresh list. */
static int
read_strings(struct loader *ld, const struct config_key *k,
              const config_setting_t *s, struct str_list *out)
{
	const char *v;
	int n;

	if (is_string(s)) {
		if (read_string(ld, k, s, -1, &v) != 0)
			return -1;
		str_list_push(out, v);
		return 0;
	}
	if (!is_list(s))
		return key_error(ld, s, k, "expects a list of strings, not %s",
		                 setting_kind(s));
	n = config_setting_length(s);
	for (int i = 0; i < n; i++) {
		if (read_string(ld, k, config_setting_get_elem(s, (unsigned)i),
		                 i, &v) != 0)
			return -1;
		str_list_push(out, v);
	}
	return 0;
}

/* Length of NAME in "NAME=VALUE" when NAME is a shell variable name. */
static size_t
env_name_len(const char *s)
{
	size_t n = 0;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') ||
	      s[0] == '_'))
		return 0;
	while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') ||
	       (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
		n++;
	return s[n] == '=' ? n : 0;
}

/* env = ["NAME=VALUE", ...]: merged by NAME, the later layer winning. */
static int
apply_env(struct loader *ld, const struct config_key *k,
          const config_setting_t *s)
{
	struct str_list add = STR_LIST_INIT, *env = &ld->c->env;
	int ret = read_strings(ld, k, s, &add);

	for (int i = 0; i < add.n && ret == 0; i++) {
		size_t n = env_name_len(add.v[i]);
		int j;

		if (n == 0) {
			ret = key_error(ld, s, k, "'%s' is not NAME=VALUE with "
			                "a variable name", add.v[i]);
			break;
		}
		for (j = 0; j < env->n; j++)
			if (!strncmp(env->v[j], add.v[i], n + 1))
				break;
		if (j < env->n) {
			free(env->v[j]);
			env->v[j] = xstrdup(add.v[i]);
		} else {
			str_list_push(env, add.v[i]);
		}
	}
	str_list_clear(&add);
	return ret;
}

/* A list of strings appended to what lower layers gave, without
 * repeating one. */
static int
apply_strings(struct loader *ld, const struct config_key *k,
              const config_setting_t *s)
{
	struct str_list add = STR_LIST_INIT;
	struct str_list *l = (void *)((char *)ld->c + k->off);
	int ret = read_strings(ld, k, s, &add);

	for (int i = 0; i < add.n && ret == 0; i++)
		if (str_list_find(l, add.v[i]) < 0)
			str_list_push(l, add.v[i]);
	str_list_clear(&add);
	return ret;
}

/* Members of a model, gpus or patterns group into base; each member must
 * be a key of that group. */
static int
apply_members(struct loader *ld, const config_setting_t *s,
              const char *prefix, enum key_in in, void *base)
{
	int ret = 0, n = config_setting_length(s);

	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(s,
		                                                   (unsigned)i);
		char *path = xasprintf("%s.%s", prefix, config_setting_name(m));
		const struct config_key *k = registry_find(path);

		if (k == NULL || k->in != in)
			ret |= unknown_key(ld, m, path, in);
		else
			ret |= store_scalar(ld, k, m, base);
		free(path);
	}
	return ret;
}

/* ---- models ------------------------------------------------------------ */

/* Forget the model a lower layer gave. */
static void
model_clear(struct campaign *c)
{
	free(c->model_name);
	free(c->size_reason);
	c->model_name = c->size_reason = NULL;
	memset(&c->model, 0, sizeof c->model);
	memset(&c->model_family, 0, sizeof c->model_family);
	c->model_custom = false;
}

/* model = "llama3_8b": a preset from the catalog. */
static int
set_model_preset(struct loader *ld, const struct config_key *k,
                 const config_setting_t *s)
{
	const char *name = config_setting_get_string(s);
	const struct model *m = model_preset_find(name);
	size_t n = model_preset_count();
	const char **names;
	struct strbuf hint = STRBUF_INIT;
	int ret;

	if (m) {
		model_clear(ld->c);
		ld->c->model = *m;
		ld->c->model_name = xstrdup(name);
		return 0;
	}
	names = xcalloc(n ? n : 1, sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = model_preset_at(i)->name;
	suggest_names(&hint, name, names, (int)n);
	ret = key_error(ld, s, k, "unknown model '%s'%s; 'paratune models' "
	                "lists the presets", name, hint.buf);
	strbuf_release(&hint);
	free(names);
	return ret;
}

/* Megatron-LM's defaults for a custom architecture (Megatron-LM d98e8a6,
 * megatron/core/transformer/transformer_config.py and
 * megatron/training/arguments.py). */
static void
model_group_defaults(struct model_group *mg)
{
	memset(mg, 0, sizeof(*mg));
	mg->m.arch = ARCH_DECODER;
	mg->m.normalization = NORM_LAYERNORM;        /* normalization */
	mg->m.position_embedding_type = POS_LEARNED; /* learned_absolute */
	mg->m.bias_linear = true;                    /* add_bias_linear */
}

/* Whether a group names a member. */
static bool
has_member(const config_setting_t *s, const char *name)
{
	return config_setting_get_member(s, name) != NULL;
}

/*
 * Fill what a custom architecture left out the way Megatron-LM's
 * validate_args does (arguments.py at d98e8a6): query groups = heads,
 * kv_channels = hidden / heads, ffn = 4h, or int(4h * 2/3 / 64) * 64 with
 * SwiGLU; MoE top-k 2 and expert FFN = ffn when experts are given.
 */
static int
model_fill_defaults(struct loader *ld, const struct config_key *k,
                    const config_setting_t *s, struct model *m)
{
	if (!has_member(s, "num_query_groups"))
		m->num_query_groups = m->num_attention_heads;
	if (!has_member(s, "kv_channels")) {
		if (m->hidden_size % m->num_attention_heads)
			return key_error(ld, s, k, "hidden_size %d is not a "
			                 "multiple of num_attention_heads %d: "
			                 "give kv_channels", m->hidden_size,
			                 m->num_attention_heads);
		m->kv_channels = m->hidden_size / m->num_attention_heads;
	}
	if (!has_member(s, "ffn_hidden_size"))
		m->ffn_hidden_size = m->swiglu
			? (int)(4.0 * m->hidden_size * 2 / 3 / 64) * 64
			: 4 * m->hidden_size;
	if (m->num_experts > 0 && !has_member(s, "moe_router_topk"))
		m->moe_router_topk = 2;
	if (m->num_experts > 0 && !has_member(s, "moe_ffn_hidden_size"))
		m->moe_ffn_hidden_size = m->ffn_hidden_size;
	if (m->arch == ARCH_ENCDEC && !has_member(s, "encoder_num_layers"))
		m->encoder_layers = m->num_layers / 2;
	if (!m->name[0])
		memcpy(m->name, "custom", sizeof "custom");
	if (!m->family[0])
		memcpy(m->family, "custom", sizeof "custom");
	return 0;
}

/* model = { num_layers = ...; ... }: an architecture of one's own. */
static int
set_model_custom(struct loader *ld, const struct config_key *k,
                 const config_setting_t *s, struct model_group *mg)
{
	/* Megatron-LM requires these (arguments.py, required_args), and
	 * the vocabulary, which its tokenizer would otherwise give. */
	static const char *const required[] = {
		"num_layers", "hidden_size", "num_attention_heads",
		"vocab_size", "max_position_embeddings", NULL,
	};
	char why[256];

	for (int i = 0; required[i]; i++)
		if (!has_member(s, required[i]))
			return key_error(ld, s, k, "an architecture needs "
			                 "'%s'", required[i]);
	if (has_member(s, "size_b"))
		return key_error(ld, s, k, "size_b goes with a family to "
		                 "generate, not with an explicit architecture");
	if (model_fill_defaults(ld, k, s, &mg->m) != 0)
		return -1;
	if (model_validate(&mg->m, why, sizeof why) != 0)
		return key_error(ld, s, k, "%s", why);
	model_clear(ld->c);
	ld->c->model = mg->m;
	ld->c->model_name = xstrdup(mg->m.name);
	ld->c->model_custom = true;
	return 0;
}

/* model = { family = "gpt3"; size_b = 5.0; }: generated at the end. */
static int
set_model_family(struct loader *ld, const struct config_key *k,
                 const config_setting_t *s, struct model_group *mg)
{
	static const char *const allowed[] = {
		"name", "family", "size_b", "vocab_size", NULL,
	};
	struct model_family_spec *f = &ld->c->model_family;
	int n = config_setting_length(s);

	if (!has_member(s, "family"))
		return key_error(ld, s, k, "a model group needs an "
		                 "architecture (num_layers, hidden_size, "
		                 "num_attention_heads, vocab_size, "
		                 "max_position_embeddings) or a family (gpt3, "
		                 "t5, mt5, bert) to generate one");
	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(s,
		                                                   (unsigned)i);
		const char *name = config_setting_name(m);
		int j;

		for (j = 0; allowed[j] && strcmp(allowed[j], name); j++)
			;
		if (!allowed[j])
			return at_error(ld, m, "key 'model.%s': a generated "
			                "architecture takes only name, family, "
			                "size_b and vocab_size", name);
	}
	if (sizing_family_parse(mg->m.family) < 0)
		return at_error(ld, config_setting_get_member(s, "family"),
		                "key 'model.family': '%s' cannot be generated "
		                "(gpt3, t5, mt5 or bert; other families need "
		                "an architecture)", mg->m.family);
	model_clear(ld->c);
	memcpy(f->family, mg->m.family, sizeof f->family);
	f->size_b = mg->size_b;
	f->vocab_size = mg->m.vocab_size;
	ld->c->model_name = xstrdup(mg->m.name[0] ? mg->m.name : f->family);
	ld->c->model_custom = true;
	return 0;
}

/* model: a preset name or a group; it replaces what lower layers gave. */
static int
apply_model(struct loader *ld, const struct config_key *k,
            const config_setting_t *s)
{
	struct model_group mg;

	if (is_string(s))
		return set_model_preset(ld, k, s);
	if (!config_setting_is_group(s))
		return key_error(ld, s, k, "expects a preset name or a group, "
		                 "not %s", setting_kind(s));
	model_group_defaults(&mg);
	if (apply_members(ld, s, "model", IN_MODEL, &mg) != 0)
		return -1;
	if (has_member(s, "num_layers") || has_member(s, "hidden_size") ||
	    has_member(s, "num_attention_heads"))
		return set_model_custom(ld, k, s, &mg);
	return set_model_family(ld, k, s, &mg);
}

/* ---- GPU catalog entries and log patterns ------------------------------ */

/*
 * A new catalog entry must say what the estimator needs.  FP16 defaults
 * to the BF16 rate and TF32 to half of it, as on A100 and H100 (NVIDIA
 * A100 datasheet: 312/312/156 TFLOPS dense; H100 SXM: 989/989/495).
 */
static int
gpu_complete(struct loader *ld, const struct config_key *k,
             const config_setting_t *e, struct gpu *g)
{
	static const char *const required[] = {
		"memory_gib", "bf16_tflops", "nvlink_domain", "nvlink_gbs",
		"network_gbs", NULL,
	};

	for (int i = 0; required[i]; i++)
		if (!has_member(e, required[i]))
			return key_error(ld, e, k, "new GPU '%s' needs '%s'",
			                 g->name, required[i]);
	if (!has_member(e, "fp16_tflops"))
		g->peak_tflops[PREC_FP16] = g->peak_tflops[PREC_BF16];
	if (!has_member(e, "fp32_tflops"))
		g->peak_tflops[PREC_FP32] = g->peak_tflops[PREC_BF16] / 2;
	return 0;
}

/* One gpus entry: overrides the named catalog entry field by field, or
 * adds a new one. */
static int
apply_gpu_entry(struct loader *ld, const struct config_key *k,
                const config_setting_t *e)
{
	struct campaign *c = ld->c;
	const struct gpu *old;
	const char *name;
	struct gpu g;

	if (!config_setting_is_group(e))
		return key_error(ld, e, k, "each entry is a group "
		                 "{ name = ...; ... }, not %s",
		                 setting_kind(e));
	if (!config_setting_lookup_string(e, "name", &name))
		return key_error(ld, e, k, "each entry needs a name");
	old = gpu_catalog_find(&c->gpus, name);
	if (old)
		g = *old;
	else
		memset(&g, 0, sizeof g);
	if (apply_members(ld, e, "gpus", IN_GPU, &g) != 0)
		return -1;
	if (!valid_name(g.name))
		return key_error(ld, e, k, "'%s' is not a valid GPU name",
		                 g.name);
	if (!old && gpu_complete(ld, k, e, &g) != 0)
		return -1;
	gpu_catalog_put(&c->gpus, &g);
	if (str_list_find(&c->gpus_set, g.name) < 0)
		str_list_push(&c->gpus_set, g.name);
	return 0;
}

/* gpus = ( { ... }, ... ): catalog additions and overrides. */
static int
apply_gpus(struct loader *ld, const struct config_key *k,
           const config_setting_t *s)
{
	int ret = 0, n;

	if (config_setting_is_group(s))
		return apply_gpu_entry(ld, k, s);
	if (!is_list(s))
		return key_error(ld, s, k, "expects a list of groups: gpus = "
		                 "( { name = \"...\"; ... } ), not %s",
		                 setting_kind(s));
	n = config_setting_length(s);
	for (int i = 0; i < n; i++)
		ret |= apply_gpu_entry(ld, k,
		                       config_setting_get_elem(s, (unsigned)i));
	return ret;
}

/* A regex compiles as PCRE2 compiles it for the log parser. */
static int
check_regex(struct loader *ld, const struct config_key *k,
            const config_setting_t *e, const char *regex)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE offset;
	int code;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)regex,
	                               PCRE2_ZERO_TERMINATED, 0, &code,
	                               &offset, NULL);

	if (re) {
		pcre2_code_free(re);
		return 0;
	}
	pcre2_get_error_message(code, msg, sizeof msg);
	return key_error(ld, e, k, "regex '%s' does not compile at offset "
	                 "%zu: %s", regex, (size_t)offset, (char *)msg);
}

/* Whether s is a pattern name: letters, digits and '_' (a CSV column). */
static bool
valid_pattern_name(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* Add pattern p, replacing one of the same name; takes p's strings. */
static void
pattern_merge(struct campaign *c, struct log_pattern *p)
{
	for (int i = 0; i < c->results.npatterns; i++) {
		struct log_pattern *q = &c->results.patterns[i];

		if (!strcmp(q->name, p->name)) {
			free(q->name);
			free(q->regex);
			*q = *p;
			return;
		}
	}
	c->results.patterns = xreallocarray(c->results.patterns,
	                                    (size_t)c->results.npatterns + 1,
	                                    sizeof(*c->results.patterns));
	c->results.patterns[c->results.npatterns++] = *p;
}

/* One results.patterns entry. */
static int
apply_pattern(struct loader *ld, const struct config_key *k,
              const config_setting_t *e)
{
	struct log_pattern p = { NULL, NULL };
	int ret = -1;

	if (!config_setting_is_group(e))
		return key_error(ld, e, k, "each entry is a group "
		                 "{ name = ...; regex = ...; }, not %s",
		                 setting_kind(e));
	if (apply_members(ld, e, "results.patterns", IN_PATTERN, &p) != 0)
		goto cleanup;
	if (!p.name || !p.regex)
		key_error(ld, e, k, "each entry needs a name and a regex");
	else if (!valid_pattern_name(p.name))
		key_error(ld, e, k, "pattern name '%s' is not letters, digits "
		          "and '_'", p.name);
	else if (check_regex(ld, k, e, p.regex) == 0)
		ret = 0;
	if (ret == 0) {
		pattern_merge(ld->c, &p);
		return 0;
	}
cleanup:
	free(p.name);
	free(p.regex);
	return ret;
}

/* results.patterns = ( { name = ...; regex = ...; }, ... ). */
static int
apply_patterns(struct loader *ld, const struct config_key *k,
               const config_setting_t *s)
{
	int ret = 0, n;

	if (config_setting_is_group(s))
		return apply_pattern(ld, k, s);
	if (!is_list(s))
		return key_error(ld, s, k, "expects a list of groups, not %s",
		                 setting_kind(s));
	n = config_setting_length(s);
	for (int i = 0; i < n; i++)
		ret |= apply_pattern(ld, k,
		                     config_setting_get_elem(s, (unsigned)i));
	return ret;
}

/* ---- keys, groups, locks ---------------------------------------------- */

/* Store a top-level or group-member key of the campaign and record where
 * it came from. */
static int
apply_leaf(struct loader *ld, const struct config_key *k,
           const config_setting_t *s)
{
	void *p = (char *)ld->c + k->off;
	int ret;

	switch (k->type) {
	case KT_INTS:
		ret = read_ints(ld, k, s, p);
		break;
	case KT_KINDS:
		ret = read_kinds(ld, k, s, p);
		break;
	case KT_BOOLS:
		ret = read_bools(ld, k, s, p);
		break;
	case KT_STRINGS:
		ret = apply_strings(ld, k, s);
		break;
	case KT_ENV:
		ret = apply_env(ld, k, s);
		break;
	case KT_MODEL:
		ret = apply_model(ld, k, s);
		break;
	case KT_GPUS:
		ret = apply_gpus(ld, k, s);
		break;
	case KT_PATTERNS:
		ret = apply_patterns(ld, k, s);
		break;
	default:
		ret = store_scalar(ld, k, s, ld->c);
		break;
	}
	if (ret == 0)
		record(ld->c, k->path, setting_origin(ld, s));
	return ret;
}

/* The policy.locked entry that covers path (itself or a group above
 * it), or NULL. */
static const char *
lock_for(const struct campaign *c, const char *path)
{
	for (int i = 0; i < c->policy.locked.n; i++) {
		const char *l = c->policy.locked.v[i];
		size_t n = strlen(l);

		if (!strncmp(path, l, n) && (path[n] == '\0' || path[n] == '.'))
			return l;
	}
	return NULL;
}

/*
 * A locked key set above the site layer: restating the site's value is
 * fine (a frozen campaign.conf carries every value), changing it is not.
 */
static int
apply_locked(struct loader *ld, const struct config_key *k,
             const config_setting_t *s)
{
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	int ret;

	key_text(ld->c, ld->c, k, &before);
	ret = apply_leaf(ld, k, s);
	key_text(ld->c, ld->c, k, &after);
	if (ret == 0 && strcmp(before.buf, after.buf) != 0)
		ret = at_error(ld, s, "key '%s' is locked by the site "
		               "configuration %s", k->path,
		               ld->c->policy.site_file);
	strbuf_release(&before);
	strbuf_release(&after);
	return ret;
}

/* Which layers may set a key, for messages. */
static const char *
layers_text(unsigned layers)
{
	if (layers == SITE_ONLY)
		return "in the site configuration";
	if (layers == RUN_ONLY)
		return "in a campaign file or on the command line";
	return "in other layers";
}

static int apply_group(struct loader *ld, const config_setting_t *s,
                       const char *prefix);

/* One key of the campaign (not a member of a model/gpus/patterns). */
static int
apply_key(struct loader *ld, const struct config_key *k,
          const config_setting_t *s)
{
	if (k->layers && !(k->layers & BIT(ld->layer)))
		return key_error(ld, s, k, "can only be set %s",
		                 layers_text(k->layers));
	if (k->type == KT_GROUP) {
		if (!config_setting_is_group(s))
			return key_error(ld, s, k, "is a group: write %s = "
			                 "{ ... }, not %s", last_part(k->path),
			                 setting_kind(s));
		return apply_group(ld, s, k->path);
	}
	if (ld->layer > LAYER_SITE && lock_for(ld->c, k->path))
		return apply_locked(ld, k, s);
	return apply_leaf(ld, k, s);
}

/* Every member of a group (the root when prefix is NULL).  Goes on after
 * an error so that one run reports every mistake in a file. */
static int
apply_group(struct loader *ld, const config_setting_t *s, const char *prefix)
{
	int ret = 0, n = config_setting_length(s);

	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(s,
		                                                   (unsigned)i);
		const char *name = config_setting_name(m);
		char *path = prefix ? xasprintf("%s.%s", prefix, name)
		                    : xstrdup(name);
		const struct config_key *k = registry_find(path);

		if (k == NULL || k->in != IN_CAMPAIGN)
			ret |= unknown_key(ld, m, path, IN_CAMPAIGN);
		else
			ret |= apply_key(ld, k, m);
		free(path);
	}
	return ret;
}

/* policy.locked may name only keys that exist (a typo would lock
 * nothing and nobody would notice). */
static int
check_locked_keys(struct campaign *c)
{
	int ret = 0;

	for (int i = 0; i < c->policy.locked.n; i++) {
		const char *l = c->policy.locked.v[i];
		const struct config_key *k = registry_find(l);
		const char *near;

		if (k && !(k->flags & F_MEMBER))
			continue;
		near = suggest_key(l, IN_CAMPAIGN);
		ret = origin_error(c, "policy.locked", "unknown key '%s'%s%s%s",
		                   l, near ? " (did you mean '" : "",
		                   near ? near : "", near ? "'?)" : "");
	}
	return ret;
}

/* ---- files and the command line --------------------------------------- */

/* The directory part of path, for @include. */
static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/*
 * Read one layer's file.  Returns 0 when read, 1 when it is optional and
 * missing, -1 after an error.
 */
static int
load_file(struct loader *ld, enum config_layer layer, const char *path,
          bool must_exist, const char *what)
{
	struct stat st;
	config_t cfg;
	char *dir;
	int ret;

	if (stat(path, &st) != 0) {
		if (errno == ENOENT && !must_exist)
			return 1;
		return error_errno("cannot read %s '%s'", what, path);
	}
	if (S_ISDIR(st.st_mode))
		return error("cannot read %s '%s': it is a directory", what,
		             path);
	config_init(&cfg);
	dir = dir_of(path);
	config_set_include_dir(&cfg, dir);
	ld->layer = layer;
	ld->file = intern(ld->c, path);
	ld->dir = strchr(path, '/') ? dir : NULL;
	ld->line = 0;
	if (config_read_file(&cfg, path))
		ret = apply_group(ld, config_root_setting(&cfg), NULL);
	else if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
		ret = error("cannot read %s '%s'", what, path);
	else
		ret = error("%s:%d: %s",
		            source_name(ld, config_error_file(&cfg)),
		            config_error_line(&cfg), config_error_text(&cfg));
	config_destroy(&cfg);
	ld->dir = NULL;
	free(dir);
	return ret;
}

/* The site layer: --site, else $PARATUNE_SITE_CONF, else the installed
 * file, which alone may be missing. */
static int
load_site(struct loader *ld, const struct config_sources *src)
{
	const char *path = src->site_path, *env;
	bool must = true;
	int ret;

	if (src->no_site)
		return 0;
	if (path == NULL && (env = getenv("PARATUNE_SITE_CONF")) != NULL) {
		if (*env == '\0')
			return 0;
		path = env;
	}
	if (path == NULL) {
		path = PARATUNE_SYSCONFDIR "/paratune.conf";
		must = false;
	}
	ret = load_file(ld, LAYER_SITE, path, must, "site configuration");
	if (ret < 0)
		return -1;
	if (ret == 0) {
		ld->c->policy.site_file = xstrdup(path);
		return check_locked_keys(ld->c);
	}
	return 0;
}

/* The user layer: $XDG_CONFIG_HOME/paratune/config, else
 * ~/.config/paratune/config (the XDG base directory default). */
static int
load_user(struct loader *ld, const struct config_sources *src)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *path;
	int ret;

	if (src->no_user)
		return 0;
	if (src->user_path)
		return load_file(ld, LAYER_USER, src->user_path, true,
		                 "user configuration") < 0 ? -1 : 0;
	if (xdg && xdg[0] == '/')
		path = xasprintf("%s/paratune/config", xdg);
	else if (home && *home)
		path = xasprintf("%s/.config/paratune/config", home);
	else
		return 0;
	ret = load_file(ld, LAYER_USER, path, false, "user configuration");
	free(path);
	return ret < 0 ? -1 : 0;
}

/* Whether a command-line value is a bare word to be read as a string:
 * h100-sxm, auto, /path/to/templates, nvcr.io/nvidia/nemo:24.07, or
 * nothing at all ("slurm.qos=" unsets it). */
static bool
bare_word(const char *v)
{
	return !strchr("\"[({", *v) && !strpbrk(v, "\";\n\r");
}

/* Keys whose value is a single string, so that `name=2024` is a name. */
static bool
wants_string(const struct config_key *k)
{
	return k->type == KT_STRING || k->type == KT_NAME ||
	       k->type == KT_ENUM || k->type == KT_ENUM_STRING ||
	       k->type == KT_MODEL;
}

/* Parse "v = VALUE;" into cfg; a bare word is taken as a string. */
static int
parse_setting_value(config_t *cfg, const struct config_key *k,
                    const char *value)
{
	char *text = xasprintf("v = %s;", value);
	int ok = config_read_string(cfg, text);
	const config_setting_t *v = ok ? config_lookup(cfg, "v") : NULL;
	struct strbuf quoted = STRBUF_INIT;

	free(text);
	if (ok && !(wants_string(k) && config_setting_is_scalar(v) &&
	            !is_string(v)))
		return 0;
	if (!ok && !bare_word(value))
		return -1;
	strbuf_addstr(&quoted, "v = ");
	conf_quote(&quoted, value);
	strbuf_addch(&quoted, ';');
	config_destroy(cfg);
	config_init(cfg);
	ok = config_read_string(cfg, quoted.buf);
	strbuf_release(&quoted);
	return ok ? 0 : -1;
}

/* One "key=value" from the command line. */
static int
apply_setting(struct loader *ld, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const struct config_key *k;
	config_t cfg;
	char *key;
	int ret;

	if (eq == NULL || eq == arg)
		return error("%s:%d: '%s' is not KEY=VALUE", ld->file, ld->line,
		             arg);
	key = xstrndup(arg, (size_t)(eq - arg));
	k = registry_find(key);
	config_init(&cfg);
	if (k && (k->flags & F_MEMBER))
		ret = error("%s:%d: key '%s' can only be given inside its "
		            "group ('%.*s = { ... }')", ld->file, ld->line, key,
		            (int)parent_len(key), key);
	else if (k == NULL)
		ret = unknown_key(ld, config_root_setting(&cfg), key,
		                  IN_CAMPAIGN);
	else if (parse_setting_value(&cfg, k, eq + 1) != 0)
		ret = error("%s:%d: key '%s': cannot read value '%s': %s",
		            ld->file, ld->line, key, eq + 1,
		            config_error_text(&cfg));
	else
		ret = apply_key(ld, k, config_lookup(&cfg, "v"));
	config_destroy(&cfg);
	free(key);
	return ret;
}

/* The command-line layer: origin "command line", line = index + 1. */
static int
load_settings(struct loader *ld, const struct config_sources *src)
{
	int ret = 0;

	ld->layer = LAYER_CMDLINE;
	ld->file = intern(ld->c, "command line");
	for (int i = 0; i < src->nsettings; i++) {
		ld->line = i + 1;
		ret |= apply_setting(ld, src->settings[i]);
	}
	ld->line = 0;
	return ret;
}

/* ---- resolving and cross-checking ------------------------------------- */

/* The vocabulary NeMo's Auto Configurator assumes for a family with none
 * given (NeMo-Framework-Launcher 5014162, auto_configurator/conf/
 * search_config/{gpt3,t5,mt5,bert}/unknown_size.yaml: vocab_size). */
static int
family_vocab(enum sizing_family f)
{
	switch (f) {
	case SIZING_GPT3: return 51200;
	case SIZING_T5: return 29000;
	case SIZING_MT5: return 250000;
	case SIZING_BERT: return 30522;
	}
	return 51200;
}

/* What a generated architecture leaves at zero: max positions =
 * seq_length (a generated model has no other limit), and Megatron-LM's
 * query groups = heads, kv_channels = hidden / heads, ffn = 4h. */
static void
generated_defaults(struct model *m, int seq_length)
{
	if (m->max_position_embeddings == 0)
		m->max_position_embeddings = seq_length;
	if (m->num_query_groups == 0)
		m->num_query_groups = m->num_attention_heads;
	if (m->kv_channels == 0 && m->num_attention_heads > 0)
		m->kv_channels = m->hidden_size / m->num_attention_heads;
	if (m->ffn_hidden_size == 0)
		m->ffn_hidden_size = 4 * m->hidden_size;
}

/* Generate the architecture of a { family = ...; } model, recommending
 * its size from the budget when size_b is not given. */
static int
generate_model(struct campaign *c)
{
	const struct model_family_spec *f = &c->model_family;
	enum sizing_family fam = (enum sizing_family)sizing_family_parse(
		f->family);
	int gpus = c->nodes * c->gpus_per_node;
	double size = f->size_b;
	char why[256];
	struct model m;

	memset(&m, 0, sizeof m);
	if (size <= 0) {
		size = sizing_recommend_params_b(fam, c->max_training_days,
		                                 gpus, c->tflops_per_gpu,
		                                 c->num_tokens_in_b);
		if (!(size > 0))
			return origin_error(c, "model", "the budget (%d GPUs, "
			                    "%g days) recommends no model size",
			                    gpus, c->max_training_days);
		c->size_reason = xasprintf("recommended %.2f B parameters: %d "
		                           "GPUs x %g TFLOPS for %g days on %g "
		                           "B tokens", size, gpus,
		                           c->tflops_per_gpu,
		                           c->max_training_days,
		                           c->num_tokens_in_b);
	} else {
		c->size_reason = xasprintf("%g B parameters as given by "
		                           "model.size_b", size);
	}
	if (sizing_architecture(fam, size, f->vocab_size ? f->vocab_size
	                        : family_vocab(fam), c->seq_length, &m, why,
	                        sizeof why) != 0)
		return origin_error(c, "model", "no %s architecture of %.2f B "
		                    "parameters: %s", f->family, size, why);
	snprintf(m.name, sizeof m.name, "%s", c->model_name);
	memcpy(m.family, f->family, sizeof m.family);
	generated_defaults(&m, c->seq_length);
	c->model = m;
	return 0;
}

/* The model is known after the last layer, or it is an error when a
 * campaign file was read. */
static int
resolve_model(struct campaign *c, const struct config_sources *src)
{
	if (c->model.num_layers == 0 && c->model_family.family[0])
		return generate_model(c);
	if (c->model.num_layers == 0 && src->campaign_path)
		return error("%s: key 'model' is not set (a preset such as "
		             "\"llama3_8b\", or a group)", src->campaign_path);
	return 0;
}

/* Copy the campaign's GPU from the catalog, with memory.gpu_memory_gb. */
static int
resolve_gpu(struct campaign *c, const struct config_sources *src)
{
	const struct gpu *g;

	if (c->gpu_name == NULL) {
		if (src->campaign_path)
			return error("%s: key 'gpu' is not set (a name from "
			             "'paratune gpus', such as \"h100-sxm\")",
			             src->campaign_path);
		return 0;
	}
	g = gpu_catalog_find(&c->gpus, c->gpu_name);
	if (g == NULL) {
		struct strbuf hint = STRBUF_INIT;
		const char **names = xcalloc(c->gpus.n + 1, sizeof(*names));
		int ret;

		for (size_t i = 0; i < c->gpus.n; i++)
			names[i] = c->gpus.v[i].name;
		suggest_names(&hint, c->gpu_name, names, (int)c->gpus.n);
		ret = origin_error(c, "gpu", "unknown GPU '%s'%s; 'paratune "
		                   "gpus' lists the catalog", c->gpu_name,
		                   hint.buf);
		strbuf_release(&hint);
		free(names);
		return ret;
	}
	c->gpu = *g;
	if (c->memory.gpu_memory_gb > 0)
		c->gpu.memory_gib = c->memory.gpu_memory_gb;
	if (!(g->peak_tflops[c->precision] > 0))
		return origin_error(c, "precision", "GPU '%s' has no %s peak "
		                    "in the catalog", g->name,
		                    precision_names[c->precision]);
	return 0;
}

/*
 * Fill the base configuration's unset fields: tp/pp/cp/ep/vp 1, etp as
 * tp, micro-batch 1, the first global batch size (0 when it is "auto":
 * the planner's choice), the first recompute kind searched, sequence
 * parallel when tp > 1, distributed optimizer on, flash attention.
 */
static void
resolve_base(struct campaign *c)
{
	struct layout *l = &c->base.layout;
	bool any = false;

	for (size_t i = 0; i < NKEYS; i++)
		if (!strncmp(registry[i].path, "base.", 5) &&
		    key_set(c, registry[i].path))
			any = true;
	c->base.set = any;
	if (!any)
		return;
	if (!key_set(c, "base.tensor_parallel")) l->tp = 1;
	if (!key_set(c, "base.pipeline_parallel")) l->pp = 1;
	if (!key_set(c, "base.context_parallel")) l->cp = 1;
	if (!key_set(c, "base.expert_parallel")) l->ep = 1;
	if (!key_set(c, "base.virtual_pipeline")) l->vp = 1;
	if (!key_set(c, "base.micro_batch_size")) l->mbs = 1;
	if (!key_set(c, "base.global_batch_size"))
		l->gbs = c->global_batch_size.is_auto
			? 0 : c->global_batch_size.v[0];
	if (!key_set(c, "base.recompute")) {
		l->recompute = RECOMPUTE_NONE;
		for (int r = RECOMPUTE_FULL; r >= RECOMPUTE_NONE; r--)
			if (c->search.recompute & BIT(r))
				l->recompute = (enum recompute)r;
	}
	if (!key_set(c, "base.sequence_parallel"))
		l->sequence_parallel = l->tp > 1;
	if (!key_set(c, "base.distributed_optimizer"))
		l->distributed_optimizer = true;
	if (!key_set(c, "base.attention"))
		l->attention = ATTN_FLASH;
	l->dp = 0;
}

/* The site's caps: policy.max_nodes and policy.max_concurrent_jobs. */
static int
check_policy(struct campaign *c)
{
	char cap[512];
	int ret = 0;

	if (c->policy.max_nodes && c->nodes > c->policy.max_nodes) {
		origin_text(c, "policy.max_nodes", cap, sizeof cap);
		ret = origin_error(c, "nodes", "%d nodes is more than the site "
		                   "allows: policy.max_nodes = %d (%s)",
		                   c->nodes, c->policy.max_nodes, cap);
	}
	if (c->policy.max_concurrent_jobs &&
	    c->limits.max_concurrent_jobs > c->policy.max_concurrent_jobs) {
		/* The built-in default follows the cap; a value someone
		 * chose does not. */
		if (!key_set(c, "limits.max_concurrent_jobs")) {
			c->limits.max_concurrent_jobs =
				c->policy.max_concurrent_jobs;
			return ret;
		}
		origin_text(c, "policy.max_concurrent_jobs", cap, sizeof cap);
		ret = origin_error(c, "limits.max_concurrent_jobs", "%d is "
		                   "more than the site allows: "
		                   "policy.max_concurrent_jobs = %d (%s)",
		                   c->limits.max_concurrent_jobs,
		                   c->policy.max_concurrent_jobs, cap);
	}
	return ret;
}

/* Checks across keys, once every layer is read. */
static int
check_campaign(struct campaign *c, const struct config_sources *src)
{
	const struct search_space *s = &c->search;
	int skip = c->results.skip_steps > 0 ? c->results.skip_steps : 1;
	int ret = check_policy(c);

	if (src->campaign_path && c->name == NULL)
		ret = error("%s: key 'name' is not set (letters, digits, '.', "
		            "'_' and '-')", src->campaign_path);
	if (c->mode == MODE_FINETUNE && (s->tp.is_auto || s->pp.is_auto))
		ret = origin_error(c, "mode", "finetune needs explicit "
		                   "search.tensor_parallel and "
		                   "search.pipeline_parallel lists (those of "
		                   "the checkpoint), not \"auto\"");
	if (!strcmp(c->peft, "lora") && c->mode != MODE_FINETUNE)
		ret = origin_error(c, "peft", "\"lora\" needs mode = "
		                   "\"finetune\"");
	if (s->min_model_parallel > s->max_model_parallel)
		ret = origin_error(c, "search.min_model_parallel", "%d is more "
		                   "than search.max_model_parallel %d",
		                   s->min_model_parallel,
		                   s->max_model_parallel);
	if (c->results.min_steps + skip > c->limits.max_steps_per_run)
		ret = origin_error(c, "results.min_steps", "%d measured steps "
		                   "after %d skipped do not fit in "
		                   "limits.max_steps_per_run %d",
		                   c->results.min_steps, skip,
		                   c->limits.max_steps_per_run);
	if (c->model.max_position_embeddings > 0 &&
	    c->seq_length > c->model.max_position_embeddings) {
		char where[512];

		origin_text(c, "seq_length", where, sizeof where);
		warning("%s: key 'seq_length': %d is longer than the model's "
		        "max_position_embeddings %d; Megatron-LM refuses that "
		        "(arguments.py asserts max_position_embeddings >= "
		        "seq_length), so runs must raise it", where,
		        c->seq_length, c->model.max_position_embeddings);
	}
	return ret;
}

/* Everything after the last layer. */
static int
finish(struct campaign *c, const struct config_sources *src)
{
	if (resolve_model(c, src) != 0 || resolve_gpu(c, src) != 0)
		return -1;
	resolve_base(c);
	return check_campaign(c, src);
}

/* ---- public interface -------------------------------------------------- */

/* Built-in defaults, the lowest layer. */
void
campaign_init(struct campaign *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = MODE_PRETRAIN;
	c->peft = xstrdup("none");
	c->nodes = 1;
	c->gpus_per_node = 8;            /* a DGX/HGX node */
	c->seq_length = 2048;            /* NeMo Launcher's GPT default */
	c->global_batch_size.is_auto = true;
	c->precision = PREC_BF16;
	/* NeMo Auto Configurator's defaults (notes: NeMo auto configurator,
	 * section 1): 300 B tokens (Launcher), 140 TFLOPS, 2 days. */
	c->num_tokens_in_b = 300;
	c->tflops_per_gpu = 140;
	c->max_training_days = 2;
	c->search.heuristics = HEUR_MODEL;
	c->search.tp.is_auto = c->search.pp.is_auto = true;
	c->search.vp.is_auto = c->search.mbs.is_auto = true;
	c->search.etp.is_auto = c->search.recompute_layers.is_auto = true;
	c->search.cp.n = c->search.ep.n = 1;
	c->search.cp.v[0] = c->search.ep.v[0] = 1;
	c->search.recompute = BIT(RECOMPUTE_SELECTIVE);
	c->search.sequence_parallel = 0;          /* auto: on when tp > 1 */
	c->search.distributed_optimizer = BIT(1);
	c->search.attention = BIT(ATTN_FLASH);
	c->search.min_model_parallel = 1;
	c->search.max_model_parallel = 64;        /* the example */
	c->search.max_candidates = 10000;
	/* NeMo: max_steps_per_run 50, max_minutes_per_run 20 (Launcher). */
	c->limits.max_steps_per_run = 50;
	c->limits.max_minutes_per_run = 20;
	c->limits.max_concurrent_jobs = 8;
	c->limits.retries = 2;
	c->memory.margin_gb = 4.0;
	c->run.template_name = xstrdup("megatron-lm");
	c->run.templates_dir = xstrdup(PARATUNE_DATADIR "/templates");
	c->results.skip_steps = -1;
	c->results.min_steps = 5;
	gpu_catalog_init(&c->gpus);
}

/* Free every string, list and table the campaign owns. */
void
campaign_release(struct campaign *c)
{
	char **strings[] = {
		&c->name, &c->model_name, &c->size_reason, &c->peft,
		&c->gpu_name, &c->run.template_name, &c->run.templates_dir,
		&c->slurm.partition, &c->slurm.account, &c->slurm.qos,
		&c->slurm.reservation, &c->container.image,
		&c->container.mounts, &c->container.workdir,
		&c->policy.site_file,
	};

	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		free(*strings[i]);
	str_list_clear(&c->slurm.directives);
	str_list_clear(&c->env);
	str_list_clear(&c->policy.locked);
	str_list_clear(&c->gpus_set);
	for (int i = 0; i < c->results.npatterns; i++) {
		free(c->results.patterns[i].name);
		free(c->results.patterns[i].regex);
	}
	free(c->results.patterns);
	gpu_catalog_release(&c->gpus);
	free(c->values);
	for (int i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	memset(c, 0, sizeof(*c));
}

/* Every layer in order, then resolution and checks. */
int
campaign_load(struct campaign *c, const struct config_sources *src)
{
	struct loader ld = { .c = c };

	if (load_site(&ld, src) != 0 || load_user(&ld, src) != 0)
		return EXIT_CONFIG;
	if (src->campaign_path &&
	    load_file(&ld, LAYER_CAMPAIGN, src->campaign_path, true,
	              "campaign file") != 0)
		return EXIT_CONFIG;
	if (load_settings(&ld, src) != 0 || finish(c, src) != 0)
		return EXIT_CONFIG;
	return 0;
}

/* The sources a command has: --site, CAMPAIGN, --set. */
int
campaign_load_for(struct campaign *c, const struct cmd_ctx *ctx,
                  const char *path, const struct str_list *settings)
{
	struct config_sources src;

	memset(&src, 0, sizeof src);
	src.site_path = ctx ? ctx->site_path : NULL;
	src.campaign_path = path;
	if (settings) {
		src.settings = (const char *const *)settings->v;
		src.nsettings = settings->n;
	}
	campaign_init(c);
	return campaign_load(c, &src);
}

/* What the estimator needs, pointing into c. */
void
campaign_workload(const struct campaign *c, struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->model = &c->model;
	w->gpu = &c->gpu;
	w->precision = c->precision;
	w->seq_length = c->seq_length;
	w->nodes = c->nodes;
	w->gpus_per_node = c->gpus_per_node;
	w->peft_lora = c->peft && !strcmp(c->peft, "lora");
	/* The keys keep NeMo's "gb" spelling but, like the catalog, mean
	 * GiB: c->gpu already carries memory.gpu_memory_gb. */
	w->gpu_memory_gib = c->memory.gpu_memory_gb > 0
		? c->memory.gpu_memory_gb : c->gpu.memory_gib;
	w->margin_gib = c->memory.margin_gb;
	w->num_tokens_b = c->num_tokens_in_b;
}

/* ---- writing the resolved campaign ------------------------------------ */

/* End a written line with its origin when asked: "  # FILE:LINE". */
static void
write_origin(struct strbuf *out, const struct origin *o, bool with_origin)
{
	if (!with_origin)
		strbuf_addch(out, '\n');
	else if (o)
		strbuf_addf(out, "  # %s:%d\n", o->file, o->line);
	else
		strbuf_addstr(out, "  # default\n");
}

/* The members of a model, GPU or pattern, one per line. */
static void
write_members(const struct campaign *c, struct strbuf *out, int indent,
              enum key_in in, const void *base, const struct origin *o,
              bool with_origin)
{
	struct strbuf v = STRBUF_INIT;

	for (size_t i = 0; i < NKEYS; i++) {
		const struct config_key *k = &registry[i];

		if (k->in != in || !strcmp(k->path, "model.size_b"))
			continue;
		strbuf_reset(&v);
		key_text(c, base, k, &v);
		strbuf_addchars(out, ' ', (size_t)indent);
		strbuf_addf(out, "%s = %s;", last_part(k->path), v.buf);
		write_origin(out, o, with_origin);
	}
	strbuf_release(&v);
}

/* The model as a full architecture group: a frozen campaign must not
 * depend on the preset catalog of a later version. */
static void
write_model(const struct campaign *c, struct strbuf *out, int indent,
            const struct origin *o, bool with_origin)
{
	struct model_group mg;

	memset(&mg, 0, sizeof mg);
	mg.m = c->model;
	strbuf_addchars(out, ' ', (size_t)indent);
	strbuf_addstr(out, "model = {\n");
	write_members(c, out, indent + 2, IN_MODEL, &mg, o, with_origin);
	strbuf_addchars(out, ' ', (size_t)indent);
	strbuf_addstr(out, "};\n");
}

/* The campaign's own GPU entry, for the same reason. */
static void
write_gpu(const struct campaign *c, struct strbuf *out,
          const struct origin *o, bool with_origin)
{
	const struct gpu *g = c->gpu_name
		? gpu_catalog_find(&c->gpus, c->gpu_name) : NULL;

	if (g == NULL)
		return;
	if (str_list_find(&c->gpus_set, g->name) < 0)
		o = NULL; /* the built-in catalog's entry */
	strbuf_addstr(out, "gpus = (\n  {\n");
	write_members(c, out, 4, IN_GPU, g, o, with_origin);
	strbuf_addstr(out, "  }\n);\n");
}

/* results.patterns, one pattern per line. */
static void
write_patterns(const struct campaign *c, struct strbuf *out, int indent,
               const struct origin *o, bool with_origin)
{
	strbuf_addchars(out, ' ', (size_t)indent);
	strbuf_addstr(out, "patterns = (\n");
	for (int i = 0; i < c->results.npatterns; i++) {
		struct conf_text w = { .out = out };

		strbuf_addchars(out, ' ', (size_t)indent + 2);
		visit_members(c, IN_PATTERN, &c->results.patterns[i],
		              &conf_sink, &w, NULL);
		if (i + 1 < c->results.npatterns)
			strbuf_addch(out, ',');
		write_origin(out, o, with_origin);
	}
	strbuf_addchars(out, ' ', (size_t)indent);
	strbuf_addstr(out, ");\n");
}

/* One key: "name = value;" or its multi-line form. */
static void
write_key(const struct campaign *c, const struct config_key *k,
          struct strbuf *out, int indent, bool with_origin)
{
	const struct origin *o = campaign_origin(c, k->path);
	struct strbuf v = STRBUF_INIT;

	if (k->type == KT_MODEL) {
		if (c->model.num_layers > 0)
			write_model(c, out, indent, o, with_origin);
	} else if (k->type == KT_GPUS) {
		write_gpu(c, out, o, with_origin);
	} else if (k->type == KT_PATTERNS) {
		if (c->results.npatterns > 0)
			write_patterns(c, out, indent, o, with_origin);
	} else if (key_text(c, c, k, &v) &&
	           !((k->type == KT_STRINGS || k->type == KT_ENV) &&
	             !strcmp(v.buf, "[]"))) {
		strbuf_addchars(out, ' ', (size_t)indent);
		strbuf_addf(out, "%s = %s;", last_part(k->path), v.buf);
		write_origin(out, o, with_origin);
	}
	strbuf_release(&v);
}

/* Every key but the site policy, grouped as in a campaign file. */
void
campaign_write(const struct campaign *c, struct strbuf *out,
               bool with_origin)
{
	strbuf_addstr(out, "# paratune campaign with every layer resolved "
	              "(see paratune.conf(5))\n");
	for (size_t i = 0; i < NKEYS; i++) {
		const struct config_key *k = &registry[i];
		size_t len = strlen(k->path);

		/* Site policy is the site's, not the campaign's. */
		if (parent_len(k->path) != 0 || (k->flags & F_MEMBER) ||
		    k->layers == SITE_ONLY)
			continue;
		if (k->type != KT_GROUP) {
			write_key(c, k, out, 0, with_origin);
			continue;
		}
		if (!strcmp(k->path, "base") && !c->base.set)
			continue;
		strbuf_addf(out, "%s = {\n", k->path);
		for (size_t j = 0; j < NKEYS; j++)
			if (key_in_group(&registry[j], k->path, len) &&
			    !(registry[j].flags & F_MEMBER))
				write_key(c, &registry[j], out, 2,
				          with_origin);
		strbuf_addstr(out, "};\n");
	}
}

/* What each_key hands to its callback. */
struct each_ctx {
	const struct campaign *c;
	void (*fn)(void *arg, const char *key, const char *value,
	           const struct origin *origin);
	struct json *json;
	void *arg;
};

/* Call one of the walkers below for every key shown by `paratune
 * config`: a resolved model member by member, gpus only when set. */
static void
each_key(struct each_ctx *ec,
         void (*fn)(struct each_ctx *ec, const struct config_key *k,
                    const void *base, const struct origin *o))
{
	const struct campaign *c = ec->c;
	struct model_group mg;

	memset(&mg, 0, sizeof mg);
	mg.m = c->model;
	for (size_t i = 0; i < NKEYS; i++) {
		const struct config_key *k = &registry[i];
		const struct origin *o = campaign_origin(c, k->path);

		if (k->type == KT_GROUP || (k->flags & F_MEMBER))
			continue;
		if (k->type == KT_GPUS && c->gpus_set.n == 0)
			continue;
		if (!strncmp(k->path, "base.", 5) && !c->base.set)
			continue;
		if (k->type != KT_MODEL || c->model.num_layers == 0) {
			fn(ec, k, c, o);
			continue;
		}
		for (size_t j = 0; j < NKEYS; j++)
			if (registry[j].in == IN_MODEL &&
			    strcmp(registry[j].path, "model.size_b"))
				fn(ec, &registry[j], &mg, o);
	}
}

/* campaign_each_value's walker: the value as libconfig text. */
static void
each_value_text(struct each_ctx *ec, const struct config_key *k,
                const void *base, const struct origin *o)
{
	static const struct origin builtin = { NULL, 0 };
	struct strbuf v = STRBUF_INIT;
	bool set = key_text(ec->c, base, k, &v);

	ec->fn(ec->arg, k->path, set ? v.buf : NULL, o ? o : &builtin);
	strbuf_release(&v);
}

/* Public: see config.h. */
void
campaign_each_value(const struct campaign *c,
                    void (*fn)(void *arg, const char *key,
                               const char *value,
                               const struct origin *origin),
                    void *arg)
{
	struct each_ctx ec = { c, fn, NULL, arg };

	each_key(&ec, each_value_text);
}

/* campaign_write_json's walker: value, file and line. */
static void
each_value_json(struct each_ctx *ec, const struct config_key *k,
                const void *base, const struct origin *o)
{
	json_begin_object(ec->json, k->path);
	key_visit(ec->c, base, k, &json_sink, ec->json, "value");
	json_string(ec->json, "file", o ? o->file : NULL);
	if (o)
		json_int(ec->json, "line", o->line);
	else
		json_null(ec->json, "line");
	json_end_object(ec->json);
}

/* Public: see config.h. */
void
campaign_write_json(const struct campaign *c, struct json *j)
{
	struct each_ctx ec = { c, NULL, j, NULL };

	json_begin_object(j, "values");
	each_key(&ec, each_value_json);
	json_end_object(j);
}
