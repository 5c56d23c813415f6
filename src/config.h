/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config.h - the layered configuration of a campaign.
 *
 * Layers, lowest first: built-in defaults, the site config, the user
 * config, the campaign file, command-line settings.  Every key is declared
 * once in a registry (config-registry.c) that drives parsing
 * (config.c, config-values.c), type and range checks, "did you mean"
 * suggestions, site locks and caps, and `paratune config`
 * (config-visit.c, config-write.c).  Each value remembers the file and
 * line it came from.  A campaign directory reads its frozen copy through
 * the store (store.h), under the current site file for submit and
 * resume.
 */
#ifndef PARATUNE_CONFIG_H
#define PARATUNE_CONFIG_H

#include <stdbool.h>

#include "calibration.h"
#include "gpu.h"
#include "layout.h"
#include "model.h"
#include "strbuf.h"
#include "strlist.h"

#define CONFIG_LIST_MAX 64
/* The largest batch (global or micro) a campaign may name; also the
 * largest global batch size candidates.csv may hold. */
#define CONFIG_MAX_BATCH (1 << 24)
/* The largest parallel size (tp, pp, cp, ep, etp, vp) a campaign may
 * name; also the largest candidates.csv may hold. */
#define CONFIG_MAX_PARALLEL 65536
/* The largest model dimension or layer count a campaign may name. */
#define CONFIG_MAX_DIM (1 << 24)

/* A searched integer value: "auto", or an explicit list. */
struct int_list {
	bool is_auto;
	int n;
	int v[CONFIG_LIST_MAX];
};


enum campaign_mode { MODE_PRETRAIN, MODE_FINETUNE };
enum heuristics { HEUR_MODEL, HEUR_NEMO };
/* How a campaign runs its candidates: adaptive prunes what measurements
 * prove (search.h); all and top run what submit selects, as before. */
enum search_strategy { STRATEGY_ADAPTIVE, STRATEGY_ALL, STRATEGY_TOP };

/* Bit sets over small enums, for searched booleans and kinds. */
#define BIT(x) (1u << (x))

/*
 * What a campaign searches.  Switches are bit sets: BIT(0) off, BIT(1) on
 * for booleans (0 = auto where a key allows it), BIT(value) for kinds.
 * Defaults (settings_init) are Megatron-LM's own, except where the
 * estimator and the templates assumed otherwise before the switch was a
 * key: DP overlap on, grouped GEMM on.
 */
struct search_space {
	enum heuristics heuristics;
	enum search_strategy strategy;
	struct int_list tp, pp, cp, ep, etp, vp, mbs;
	struct int_list recompute_layers;
	unsigned recompute;             /* BIT(RECOMPUTE_*) */
	unsigned recompute_method;      /* BIT(RECOMPUTE_BLOCK/UNIFORM) */
	struct int_list recompute_modules; /* masks of BIT(RCM_*) */
	unsigned sequence_parallel;     /* 0 = auto: on when tp > 1 */
	unsigned distributed_optimizer;
	unsigned attention;             /* BIT(ATTN_*) */
	unsigned account_embedding;     /* account_for_embedding_in_... */
	unsigned account_loss;          /* account_for_loss_in_... */
	unsigned fp8_recipe;            /* BIT(FP8_*) */
	unsigned fp8_param_gather;
	unsigned fp8_dot_product_attention; /* BIT(0) off, BIT(1) on */
	unsigned grad_reduce_bf16;      /* BIT(0) off, BIT(1) on */
	unsigned moe_dispatcher;        /* BIT(MOE_DISPATCH_*) */
	unsigned moe_a2a_overlap;       /* BIT(0) off, BIT(1) on */
	unsigned cuda_graphs;
	unsigned cuda_graph_full_iteration; /* BIT(0) off, BIT(1) on */
	unsigned tp_comm_overlap;
	unsigned overlap_grad_reduce;
	unsigned overlap_param_gather;  /* 0 = auto: with grad reduce and a
	                                 * sharded optimizer */
	unsigned fsdp;
	unsigned cp_comm_type;          /* BIT(CP_COMM_*) */
	unsigned moe_grouped_gemm;
	struct int_list offload_layers; /* activation_offload_layers */
	/* decoder_first/last_pipeline_num_layers; 0 = an even share */
	struct int_list first_stage_layers, last_stage_layers;
	unsigned relax;                 /* BIT(RELAX_*): rules turned off */
	double max_bubble_ratio;        /* < 0: no limit */
	double max_unbalance_ratio;     /* < 0: no limit */
	int min_model_parallel, max_model_parallel;
	int max_candidates;             /* ranked candidates kept */
	double min_gain;                /* adaptive: stop when nothing pending
	                                 * can beat the best by this */
};

struct base_config {
	bool set;
	struct layout layout;
};

struct log_pattern {
	char *name;
	char *regex;
};

/* Where a value came from; file is NULL for built-in defaults. */
struct origin {
	const char *file; /* interned in the campaign; lives as long */
	int line;
};

/* The provenance of one key: the last layer that set it. */
struct config_value {
	const char *key;          /* registry path, "search.tensor_parallel" */
	struct origin origin;
};

/*
 * A model group with a family and no architecture, such as
 * { family = "gpt3"; size_b = 5.0; }: the architecture is generated at the
 * end of loading, once nodes, seq_length and the budget are known.
 */
struct model_family_spec {
	char family[16];          /* "gpt3", "t5", "mt5", "bert"; ""
	                           * when none */
	double size_b;            /* 0: recommended from the budget */
	int vocab_size;           /* 0: the family's NeMo default */
};

struct settings {
	char *name;
	char *model_name;        /* preset name, custom name or family */
	struct model model;      /* resolved architecture */
	bool model_custom;       /* given as a group, not a preset name */
	struct model_family_spec model_family; /* how a generated one was
	                                        * asked */
	char *size_reason;       /* why a size was chosen, or NULL */
	enum campaign_mode mode;
	char *peft;              /* "none" or "lora" */
	int nodes, gpus_per_node;
	char *gpu_name;
	struct gpu gpu;          /* resolved, with overrides applied */
	int seq_length;
	struct int_list global_batch_size;
	enum precision precision;
	double num_tokens_in_b;
	double moe_token_imbalance;  /* busiest GPU's copies over balanced */
	enum ce_fusion cross_entropy_fusion;
	enum framework framework;
	double tflops_per_gpu;
	double max_training_days;
	double cost_per_gpu_hour;
	char *currency;          /* of cost_per_gpu_hour, "$" by default */
	struct search_space search;
	struct base_config base;
	struct {
		int max_steps_per_run, max_minutes_per_run;
		int max_concurrent_jobs, retries;
		double gpu_hours;       /* the campaign's budget; 0: none */
	} limits;
	struct {
		double margin_gb;
		double gpu_memory_gb;    /* 0: the catalog's capacity */
	} memory;
	struct {
		/* < 0: the precision's own (12 bytes with bf16 Adam) */
		double resident_bytes_per_param;
		double transient_bytes_per_param;
	} optimizer;
	struct {
		char *template_name;
		char *templates_dir;
		char *simulated_truth;  /* truth file for paratune-simtrain */
		bool early_stop;        /* job scripts run paratune watch */
		struct str_list export; /* sbatch --export: ALL, NONE, names */
	} run;
	struct {
		char *partition, *account, *qos, *reservation;
		char gpu_type[64];          /* gres type: gpu:TYPE:N; "" any */
		struct str_list directives; /* extra "#SBATCH ..." options */
	} slurm;
	struct {
		char *image, *mounts, *workdir;
	} container;
	struct str_list env;        /* NAME=VALUE exports */
	struct {
		struct str_list locked;
		int max_nodes, max_concurrent_jobs, min_poll_interval;
		int max_candidates;     /* selected per campaign; 0 */
		double max_gpu_hours;   /* per campaign; 0: no cap */
		double confirm_gpu_hours; /* submit asks --yes above; 0 */
		char *site_file;        /* where the locks came from */
	} policy;
	struct {
		int skip_steps;         /* -1: 10 % and at least 1 */
		int min_steps;
		struct log_pattern *patterns;
		int npatterns;
	} results;
	struct gpu_catalog gpus;
	struct str_list gpus_set;   /* catalog entries a layer added/changed */
	/* calibration = { GPU = { ... }; }: per GPU type, as the layers set
	 * them, and the campaign GPU's (built-in defaults without one). */
	struct calibration_set calibrations;
	struct calibration calibration;
	/* Where the file that set it named the GPU; file NULL: built-in. */
	struct origin calibration_origin;

	/* Provenance, one entry per key set by any layer (last wins). */
	struct config_value *values;
	int nvalues, values_alloc;
	char **files;               /* interned file names */
	int nfiles;
};

/*
 * Where to read each layer from.  site_path NULL: $PARATUNE_SITE_CONF
 * (empty: no site file), else PARATUNE_SYSCONFDIR/paratune.conf, which
 * may be missing; a site file named explicitly must exist.  user_path
 * NULL: $XDG_CONFIG_HOME/paratune/config, else
 * $HOME/.config/paratune/config, either may be missing.
 */
struct config_sources {
	const char *site_path;     /* NULL: PARATUNE_SITE_CONF, then sysconf */
	bool no_site;              /* skip the site layer entirely */
	const char *user_path;     /* NULL: ~/.config/paratune/config */
	bool no_user;
	const char *campaign_path;
	/* "key=value" from the command line: the key is a dotted registry
	 * path, the value libconfig syntax ("[1, 2]", "4", "\"h100-sxm\"")
	 * or a bare word taken as a string ("h100-sxm", "auto"). */
	const char *const *settings;
	int nsettings;
	/* A planned campaign's frozen file: its warnings were given when
	 * it was planned, and each list or cron resume would repeat them. */
	bool frozen;
};

/* Defaults only; use before settings_load or on its own. */
void settings_init(struct settings *c);
/* Free everything c owns; c is zeroed (settings_init again to reuse). */
void settings_release(struct settings *c);

/*
 * Read every layer, validate, resolve the model and the GPU.  c must have
 * been set up with settings_init; release it afterwards even on error.
 * On error print "error: FILE:LINE: ..." and return EXIT_CONFIG (78), or
 * EXIT_NOINPUT (66) when a file named (the campaign, --site) does not
 * exist; run as root, EXIT_NOPERM (77) for a file it does not read as
 * another user's and EXIT_TEMPFAIL (75) for one whose look did not
 * finish (owner_root_path); 0 on success.  With a campaign file, name,
 * model and gpu are required.
 */
int settings_load(struct settings *c, const struct config_sources *src);

/*
 * settings_init, then settings_load as every command does it: the site
 * file site_path (--site; NULL: the usual one), the user config, the
 * campaign at path (NULL: none) and the --set KEY=VALUE settings (NULL:
 * none).  0, or settings_load's error status; release c afterwards
 * either way.
 */
int settings_load_for(struct settings *c, const char *site_path,
                      const char *path, const struct str_list *settings);

/*
 * The site file alone (site_path, else the usual one; no user file, no
 * campaign), for a reader that opened a campaign without the site's
 * caps and asks what they hold back now.  0, or when it cannot be read
 * (said why) EXIT_NOINPUT or EXIT_CONFIG as settings_load returns them;
 * c then has the defaults, no cap.  Release c either way.
 */
int settings_load_site(struct settings *c, const char *site_path);

/* Which layer set the calibration a campaign directory froze, as plan
 * recorded it in campaign.conf (frozen_from, paratune.conf(5)). */
enum frozen_calibration {
	FROZEN_CAL_DEFAULT,     /* none: the built-in defaults */
	FROZEN_CAL_UNRECORDED,  /* one, planned before plan recorded it */
	FROZEN_CAL_LAYERS,      /* the site or user file */
	FROZEN_CAL_CAMPAIGN,    /* the campaign file or the command line */
};

/* The record of frozen, a campaign directory's campaign.conf loaded
 * with config_sources.frozen. */
enum frozen_calibration
settings_frozen_calibration(const struct settings *frozen);

/* The --set option every command that loads a campaign offers (needs
 * cmd.h where it is used). */
#define CONFIG_OPT_SET(list) OPT_STRLIST('s', "set", (list), "KEY=VALUE", \
	"set a configuration key (repeatable), e.g. nodes=4")

/*
 * run.templates_dir as used rather than configured: dir (owned from now)
 * and its origin from (no line), for `config` to show what plan uses
 * when the environment or the build tree overrides the default.
 */
void settings_use_templates_dir(struct settings *c, char *dir,
                                const char *from);

/* Where key (a registry path such as "nodes") got its value; NULL when
 * it has its built-in default. */
const struct origin *settings_origin(const struct settings *c,
                                     const char *key);

/* Add "FILE:LINE: " to sb, for an error about key, when a file set it. */
void settings_where(const struct settings *c, const char *key,
                    struct strbuf *sb);
/* The key under group (a prefix such as "base.") that a file set
 * first, by file and line; NULL when no file set one. */
const char *settings_first_in(const struct settings *c, const char *group);

/*
 * Call fn for every key in registry order (a model group is given member
 * by member, "model.num_layers"), with its value in one-line libconfig
 * syntax (NULL when unset) and its origin (file NULL: built-in default).
 * The strings live only during the call.
 */
void settings_each_value(const struct settings *c,
                         void (*fn)(void *arg, const char *key,
                                    const char *value,
                                    const struct origin *origin),
                         void *arg);

struct json;
/*
 * Write "values": { KEY: { "value": V, "file": F, "line": N }, ... } into
 * the open JSON object j, keys and order as settings_each_value; values
 * are JSON numbers, strings, booleans, arrays, objects or null; file and
 * line are null for built-in defaults.
 */
void settings_write_json(const struct settings *c, struct json *j);

/*
 * Write the resolved campaign in libconfig syntax (plan freezes it into
 * DIR/campaign.conf; reading it back gives the same campaign).  With
 * with_origin, each line carries a comment naming its file and line.
 */
void settings_write(const struct settings *c, struct strbuf *out,
                    bool with_origin);

/* The workload of a campaign (pointers into c). */
void settings_workload(const struct settings *c, struct workload *w);
/* The Megatron core the campaign's template runs (nemo2's or current). */
enum template_core settings_template_core(const struct settings *c);
/*
 * Nodes per NVLink segment that the campaign's jobs ask Slurm for: a
 * --segment of slurm.directives, else the segment the estimates assume
 * (nvlink_segment_nodes); 0: none.
 */
int settings_segment_nodes(const struct settings *c);
/* The --segment of slurm.directives; 0 when none sets one. */
int settings_segment_directive(const struct settings *c);
/*
 * Whether s may name a currency (the currency key, results --currency):
 * it is printed beside every cost, on terminals and in cron mail, so 1
 * to CURRENCY_MAX bytes of plain text (safe_text_plain: valid UTF-8,
 * nothing a terminal would act on, C1 and bidi controls included; a
 * symbol such as the euro sign passes).
 */
#define CURRENCY_MAX 8
/*
 * The longest campaign name, in bytes.  The name is the campaign
 * directory's when plan is given no -o, and plan first builds it as
 * NAME.plan-XXXXXX: a file name holds at most NAME_MAX (255) bytes, and
 * 128 leaves room for that and for whatever else a site puts beside it.
 */
#define CAMPAIGN_NAME_MAX 128
bool config_valid_currency(const char *s);

/*
 * The switches of a default layout for campaign c (everything but the
 * sizes, the batch and recompute kind): for each switch the campaign's
 * default when the search holds it, else the value it searches; the
 * automatic ones derived from l's distributed optimizer, and those
 * without effect at l's precision, pp and cp left at their defaults.
 * Used for the base configuration; l's sizes must be set.
 */
void settings_default_switches(const struct settings *c, struct layout *l);

/*
 * The range of the number key at path ("cost_per_gpu_hour") as the
 * registry holds it, so that an option overriding a key refuses what
 * the key would; false when path names no number key.
 */
bool config_key_range(const char *path, double *min, double *max);

/* Closest string by edit distance among candidates, or NULL if none is
 * close enough to be a plausible typo. */
const char *config_closest(const char *word, const char *const *cands,
                           int n);


#endif
