/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config.c - the layered campaign configuration: the loader.
 *
 * One static registry of keys (config-registry.c) drives everything:
 * parsing, type and range checks, "did you mean" suggestions, which layer
 * may set what, site locks, `paratune config` and the frozen
 * campaign.conf.  libconfig parses each file; a value is checked and
 * stored the moment its key is met (config-values.c, and config-model.c,
 * config-gpu.c, config-patterns.c for the groups), so every error names
 * the file and line it comes from.
 *
 * Layers, lowest first: settings_init's defaults, the site file, the user
 * file, the campaign file, the command line ("key=value").  Group members
 * merge key by key; lists of named things (gpus, results.patterns, env,
 * slurm.directives) merge entry by entry; a model is replaced whole.
 * This file reads the layers and applies site locks; config-resolve.c
 * applies the site's caps and checks the keys against each other once
 * all are read; whether the site file may be believed at all is
 * site-trust.c's question.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "config-int.h"
#include "directive.h"
#include "error.h"
#include "owner.h"
#include "util.h"
#include "xalloc.h"

/* ---- the loader -------------------------------------------------------- */

/* The name to report for a file libconfig read: an @include'd one is
 * named relative to the including file's directory. */
static const char *
source_name(struct loader *ld, const char *file)
{
	const struct config_file *cf;
	char *path;
	const char *name;

	if (file == NULL)
		return ld->file;
	/* libconfig names an included file by its copy (config-include.c) */
	if (ld->files && (cf = config_files_find(ld->files, file)) &&
	    cf->target)
		file = cf->target;
	if (file[0] == '/' || ld->dir == NULL || !strcmp(file, ld->file))
		return config_intern(ld->c, file);
	path = xasprintf("%s/%s", ld->dir, file);
	name = config_intern(ld->c, path);
	free(path);
	return name;
}

/* Where a setting came from: its file (an @include'd one included). */
struct origin
config_origin_at(struct loader *ld, const config_setting_t *s)
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
int
config_at_error(struct loader *ld, const config_setting_t *s,
                const char *fmt, ...)
{
	struct origin o = config_origin_at(ld, s);
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return error("%s:%d: %s", o.file, o.line, msg);
}

/* "error: FILE:LINE: key 'K': MSG" at a setting. */
int
config_key_error(struct loader *ld, const config_setting_t *s,
                 const struct config_key *k, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return config_at_error(ld, s, "key '%s': %s", k->path, msg);
}

/* "error: FILE:LINE: unknown key 'P' (did you mean 'Q'?)". */
int
config_unknown_key(struct loader *ld, const config_setting_t *s,
                   const char *path, enum key_in in)
{
	const char *near = config_suggest_key(path, in);

	if (near)
		return config_at_error(ld, s, "unknown key '%s' (did you mean "
		                       "'%s'?)", path, near);
	return config_at_error(ld, s, "unknown key '%s'", path);
}

/* ---- keys, groups, locks ---------------------------------------------- */

/* The policy.locked entry that covers path (itself or a group above
 * it), or NULL. */
static const char *
lock_for(const struct settings *c, const char *path)
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

	config_key_text(ld->c, ld->c, k, &before);
	ret = config_apply_leaf(ld, k, s);
	config_key_text(ld->c, ld->c, k, &after);
	if (ret == 0 && strcmp(before.buf, after.buf) != 0)
		ret = config_at_error(ld, s, "key '%s' is locked by the site "
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
		return config_key_error(ld, s, k, "can only be set %s",
		                        layers_text(k->layers));
	if (k->type == KT_GROUP) {
		if (!config_setting_is_group(s))
			return config_key_error(ld, s, k, "is a group: write "
			                        "%s = { ... }, not %s",
			                        config_last_part(k->path),
			                        config_kind_name(s));
		return apply_group(ld, s, k->path);
	}
	if (ld->layer > LAYER_SITE && lock_for(ld->c, k->path))
		return apply_locked(ld, k, s);
	return config_apply_leaf(ld, k, s);
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
		const struct config_key *k = config_registry_find(path);

		if (k == NULL || k->in != IN_CAMPAIGN)
			ret |= config_unknown_key(ld, m, path, IN_CAMPAIGN);
		else
			ret |= apply_key(ld, k, m);
		free(path);
	}
	return ret;
}

/*
 * 0 when the site can lock key k: not one that campaigns alone set
 * (name, base), nor the model when the site names none.  Every
 * campaign names both, so such a lock refused every campaign, while
 * paratune config showed the site file as fine.
 */
static int
check_lockable(struct settings *c, const struct config_key *k)
{
	if (k->layers && !(k->layers & BIT(LAYER_SITE)))
		return config_origin_error(c, "policy.locked", "'%s' is set "
		                           "by campaigns alone: locked, every "
		                           "campaign that sets it is refused",
		                           k->path);
	if (!strcmp(k->path, "model") && c->model.num_layers == 0 &&
	    !c->model_family.family[0])
		return config_origin_error(c, "policy.locked", "'model' is "
		                           "locked, but the site file names "
		                           "no model: every campaign names "
		                           "one and would be refused");
	return 0;
}

/* policy.locked may name only keys that exist (a typo would lock
 * nothing and nobody would notice). */
static int
check_locked_keys(struct settings *c)
{
	int ret = 0;

	for (int i = 0; i < c->policy.locked.n; i++) {
		const char *l = c->policy.locked.v[i];
		const struct config_key *k = config_registry_find(l);
		const char *near;

		if (k && !(k->flags & F_MEMBER)) {
			int bad = check_lockable(c, k);

			ret = bad ? bad : ret;
			continue;
		}
		near = config_suggest_key(l, IN_CAMPAIGN);
		ret = config_origin_error(c, "policy.locked",
		                          "unknown key '%s'%s%s%s", l,
		                          near ? " (did you mean '" : "",
		                          near ? near : "", near ? "'?)" : "");
	}
	return ret;
}

/* ---- files and the command line --------------------------------------- */

/* A string or group left open in an included file, which libconfig
 * blames on the including file's end: the first such file's hint. */
static void
included_unclosed_hint(struct loader *ld, const struct config_file *blamed,
                       struct strbuf *hint)
{
	for (size_t i = 0; ld->files && hint->len == 0 &&
	     i < ld->files->n; i++) {
		const struct config_file *f = ld->files->v[i];

		if (f != blamed && f->target)
			config_unclosed_hint(&f->text, source_name(ld, f->id),
			                     hint);
	}
}

/* libconfig's parse error, with the file and line it names. */
static int
parse_error(struct loader *ld, const config_t *cfg)
{
	const char *file = config_error_file(cfg);
	const struct config_file *cf = config_files_find(ld->files, file);
	struct strbuf hint = STRBUF_INIT;
	int ret;

	if (cf)
		config_syntax_hint(&cf->text, config_error_line(cfg),
		                   config_error_text(cfg), &hint);
	if (hint.len == 0 && !strcmp(config_error_text(cfg), "syntax error"))
		included_unclosed_hint(ld, cf, &hint);
	ret = error("%s:%d: %s%s", source_name(ld, file),
	            config_error_line(cfg), config_error_text(cfg), hint.buf);
	strbuf_release(&hint);
	return ret;
}

/*
 * Parse the files of a layer read from path (in dir) and apply their
 * settings.  libconfig reads the layer's file from memory and each
 * @include from its copy: nothing is opened by a name a user gave.
 */
static int
parse_layer(struct loader *ld, enum config_layer layer, const char *path,
            const char *dir, const struct config_files *files)
{
	const struct config_file *top = files->v[0];
	FILE *f = fmemopen(top->text.buf, top->text.len, "r");
	config_t cfg;
	int ret;

	if (f == NULL)
		return error_errno("cannot read '%s'", path);
	config_init(&cfg);
	config_set_include_dir(&cfg, CONFIG_INCLUDE_DIR);
	ld->layer = layer;
	ld->file = config_intern(ld->c, path);
	ld->dir = strchr(path, '/') ? dir : NULL;
	ld->files = files;
	ld->line = 0;
	if (config_read(&cfg, f))
		ret = apply_group(ld, config_root_setting(&cfg), NULL);
	else
		ret = parse_error(ld, &cfg);
	config_destroy(&cfg);
	fclose(f);
	ld->dir = NULL;
	ld->files = NULL;
	return ret;
}

/*
 * Read one layer's file.  Returns 0 when read, 1 when it is optional and
 * missing, -1 after an error.
 */
static int
load_file(struct loader *ld, enum config_layer layer, const char *path,
          bool must_exist, const char *what)
{
	struct config_files files = CONFIG_FILES_INIT;
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	char *dir = path_dir(path);
	int ret = config_read_layer(ld, layer, path, must_exist, what, &text,
	                            &st);

	if (ret == 0)
		ret = config_read_files(&text, &st, path, dir, &ld->refusal,
		                        &files);
	strbuf_release(&text);
	if (ret == 0)
		ret = parse_layer(ld, layer, path, dir, &files);
	config_files_release(&files);
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
	/* strchr() finds the terminating NUL: "" needs its own test. */
	return *v == '\0' ||
	       (!strchr("\"[({", *v) && !strpbrk(v, "\";\n\r"));
}

/* Keys whose value is a single string, so that `name=2024` is a name. */
static bool
wants_string(const struct config_key *k)
{
	return k->type == KT_STRING || k->type == KT_NAME ||
	       k->type == KT_ENUM || k->type == KT_ENUM_STRING ||
	       k->type == KT_MODEL;
}

/*
 * Whether "v = VALUE;" read as the one setting v: a VALUE of "4; gpu=x"
 * reads as two, and all but v would be dropped without a word.
 */
static bool
one_setting(const config_t *cfg)
{
	const config_setting_t *root = config_root_setting(cfg);

	return config_setting_length(root) == 1 &&
	       config_setting_get_member(root, "v") != NULL;
}

/*
 * Parse "v = VALUE;" into cfg; a bare word is taken as a string.
 * Returns -1 when VALUE cannot be read, -2 when it reads as more than
 * the one setting.
 */
static int
parse_setting_value(config_t *cfg, const struct config_key *k,
                    const char *value)
{
	char *text = xasprintf("v = %s;", value);
	int ok = config_read_string(cfg, text);
	const config_setting_t *v = ok ? config_lookup(cfg, "v") : NULL;
	struct strbuf quoted = STRBUF_INIT;

	free(text);
	if (ok && !one_setting(cfg))
		return -2;
	if (ok && !(wants_string(k) && config_setting_is_scalar(v) &&
	            !config_is_string(v)))
		return 0;
	if (!ok && !bare_word(value))
		return -1;
	strbuf_addstr(&quoted, "v = ");
	config_conf_quote(&quoted, value);
	strbuf_addch(&quoted, ';');
	config_destroy(cfg);
	config_init(cfg);
	ok = config_read_string(cfg, quoted.buf);
	strbuf_release(&quoted);
	return ok ? 0 : -1;
}

/* "key 'K': number 1e400 is out of range (...)" for a --set value. */
static int
wide_error(const struct loader *ld, const char *key, const char *lit)
{
	struct literal_range r;
	char q[QUOTE_CUT_SIZE];

	config_literal_range(lit, key, &r);
	return error("%s:%d: key '%s': %s %s is out of range (%s)", ld->file,
	             ld->line, key, r.kind, text_cut(lit, q), r.range);
}

/* One "key=value" from the command line. */
static int
apply_setting(struct loader *ld, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const struct config_key *k;
	struct value_scan vs = { false, NULL, false };
	config_t cfg;
	char *key, q[QUOTE_CUT_SIZE];
	int ret;

	if (eq == NULL || eq == arg)
		return error("%s:%d: %s is not KEY=VALUE", ld->file, ld->line,
		             quote_cut(arg, q));
	/* "KEY = VALUE" as in a file: the value is read by libconfig,
	 * which skips its blanks; the key's are trimmed here. */
	while (isspace((unsigned char)*arg))
		arg++;
	key = xstrndup(arg, (size_t)(eq - arg));
	for (size_t n = strlen(key); n > 0 &&
	     isspace((unsigned char)key[n - 1]); n--)
		key[n - 1] = '\0';
	k = config_registry_find(key);
	config_init(&cfg);
	if (k && !(k->flags & F_MEMBER))
		config_value_scan(eq + 1, &vs);
	if (k && (k->flags & F_MEMBER))
		ret = error("%s:%d: key '%s' can only be given inside its "
		            "group ('%.*s = { ... }')", ld->file, ld->line, key,
		            (int)config_parent_len(key), key);
	else if (k == NULL)
		ret = config_unknown_key(ld, config_root_setting(&cfg), key,
		                         IN_CAMPAIGN);
	else if (vs.includes)
		ret = error("%s:%d: key '%s': @include is not allowed in a "
		            "value", ld->file, ld->line, key);
	else if (vs.wide != NULL)
		ret = wide_error(ld, key, vs.wide);
	else if (vs.nul)
		ret = error("%s:%d: key '%s': a string holds \\x00, a NUL "
		            "byte, which libconfig drops from it", ld->file,
		            ld->line, key);
	else if ((ret = parse_setting_value(&cfg, k, eq + 1)) == -2)
		ret = error("%s:%d: --set %s: the value is more than one "
		            "setting (give one KEY=VALUE per --set)", ld->file,
		            ld->line, quote_cut(arg, q));
	else if (ret != 0)
		ret = error("%s:%d: key '%s': cannot read value %s: %s",
		            ld->file, ld->line, key, quote_cut(eq + 1, q),
		            config_error_text(&cfg));
	else
		ret = apply_key(ld, k, config_lookup(&cfg, "v"));
	config_destroy(&cfg);
	free(vs.wide);
	free(key);
	return ret;
}

/* The command-line layer: origin "command line", line = index + 1. */
static int
load_settings(struct loader *ld, const struct config_sources *src)
{
	int ret = 0;

	ld->layer = LAYER_CMDLINE;
	ld->file = config_intern(ld->c, "command line");
	for (int i = 0; i < src->nsettings; i++) {
		ld->line = i + 1;
		ret |= apply_setting(ld, src->settings[i]);
	}
	ld->line = 0;
	return ret;
}

/* ---- public interface -------------------------------------------------- */

/* The switches of search when a campaign names none. */
static void
search_switch_defaults(struct search_space *s)
{
	/* Megatron-LM's defaults (arguments.py, transformer_config.py):
	 * block recompute, no account flags, delayed FP8 scaling, BF16
	 * parameter gather, no CUDA graphs, no TP overlap, no FSDP, p2p
	 * context parallelism, no offloading.  DP overlap and grouped GEMM
	 * are off in Megatron-LM but were always on in paratune's
	 * templates and estimator (and NeMo's recipes turn them on). */
	s->recompute_method = BIT(RECOMPUTE_BLOCK);
	s->recompute_modules.n = 1;
	s->recompute_modules.v[0] = (int)BIT(RCM_CORE_ATTN);
	/* Unset (0): what the pipeline split needs (grid.c account_flags). */
	s->account_embedding = s->account_loss = 0;
	s->fp8_recipe = BIT(FP8_DELAYED);
	s->fp8_param_gather = s->cuda_graphs = BIT(0);
	s->grad_reduce_bf16 = BIT(0);
	s->tp_comm_overlap = s->fsdp = BIT(0);
	s->overlap_grad_reduce = BIT(1);
	s->overlap_param_gather = 0; /* auto */
	s->cp_comm_type = BIT(CP_COMM_P2P);
	s->moe_dispatcher = BIT(MOE_DISPATCH_ALLTOALL);
	s->moe_a2a_overlap = BIT(0);
	s->cuda_graph_full_iteration = BIT(0);
	s->fp8_dot_product_attention = BIT(0);
	s->moe_grouped_gemm = BIT(1);
	s->offload_layers.n = 1;
	s->offload_layers.v[0] = 0;
	s->first_stage_layers.n = s->last_stage_layers.n = 1;
	s->first_stage_layers.v[0] = 0;
	s->last_stage_layers.v[0] = 0;
}

/* What the grid searches when a campaign says nothing: the keys of
 * search. */
static void
search_defaults(struct search_space *s)
{
	s->heuristics = HEUR_MODEL;
	s->tp.is_auto = s->pp.is_auto = true;
	s->vp.is_auto = s->mbs.is_auto = true;
	s->etp.is_auto = s->recompute_layers.is_auto = true;
	/* Searched by default: CP where the sequence is long enough, EP
	 * over the experts of an MoE model (grid.c spec_auto_model); [1]
	 * hid the layouts NVIDIA's recipes use. */
	s->cp.is_auto = s->ep.is_auto = true;
	s->recompute = BIT(RECOMPUTE_SELECTIVE);
	s->sequence_parallel = 0;          /* auto: on when tp > 1 */
	s->distributed_optimizer = BIT(1);
	s->attention = BIT(ATTN_FLASH);
	search_switch_defaults(s);
	/* Relaxed by default: each would remove a layout NVIDIA ships in
	 * its own recipes (cp 2 at sequence 8192 for Llama 3 70B and 405B,
	 * EP 16-64 across H100 nodes for Qwen3 235B and DeepSeek-V3,
	 * power-of-two layouts of 256 GB200 GPUs).  A campaign that wants
	 * them sets search.relax to what it still relaxes. */
	s->relax = (1u << RELAX_EP_NVLINK) | (1u << RELAX_CP_SEQ) |
	                  (1u << RELAX_NVL72);
	s->max_bubble_ratio = -1;
	s->max_unbalance_ratio = -1;
	s->min_model_parallel = 1;
	/* No cap of its own: 64 dropped tp 8 x pp 8 x cp 2, Llama 3.1
	 * 405B's recipe; the GPU count bounds it anyway. */
	s->max_model_parallel = 65536;
	s->max_candidates = 10000;
	/* Issue 14: a pending candidate must be able to win by 2 %. */
	s->min_gain = 0.02;
}

/* Built-in defaults, the lowest layer. */
void
settings_init(struct settings *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = MODE_PRETRAIN;
	calibration_init(&c->calibration);
	c->peft = xstrdup("none");
	c->nodes = 1;
	c->gpus_per_node = 8;            /* a DGX/HGX node */
	c->seq_length = 2048;            /* NeMo Launcher's GPT default */
	c->moe_token_imbalance = 1;
	c->global_batch_size.is_auto = true;
	c->precision = PREC_BF16;
	/* NeMo Auto Configurator's defaults (notes: NeMo auto configurator,
	 * section 1): 300 B tokens (Launcher), 140 TFLOPS, 2 days. */
	c->num_tokens_in_b = 300;
	c->tflops_per_gpu = 140;
	c->max_training_days = 2;
	c->currency = xstrdup("$");
	search_defaults(&c->search);
	c->optimizer.resident_bytes_per_param = -1;
	c->optimizer.transient_bytes_per_param = 0;
	/* NeMo: max_steps_per_run 50, max_minutes_per_run 20 (Launcher). */
	c->limits.max_steps_per_run = 50;
	c->limits.max_minutes_per_run = 20;
	c->limits.max_concurrent_jobs = 8;
	c->limits.retries = 2;
	c->memory.margin_gb = 4.0;
	c->run.template_name = xstrdup("megatron-lm");
	c->run.templates_dir = xstrdup(PARATUNE_DATADIR "/templates");
	c->run.early_stop = true;
	c->results.skip_steps = -1;
	c->results.min_steps = 5;
	gpu_catalog_init(&c->gpus);
}

/* Free every string, list and table the campaign owns. */
void
settings_release(struct settings *c)
{
	char **strings[] = {
		&c->name, &c->model_name, &c->size_reason, &c->peft,
		&c->gpu_name, &c->currency, &c->run.template_name,
		&c->run.templates_dir,
		&c->run.simulated_truth,
		&c->slurm.partition, &c->slurm.account, &c->slurm.qos,
		&c->slurm.reservation, &c->container.image,
		&c->container.mounts, &c->container.workdir,
		&c->policy.site_file,
	};

	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		free(*strings[i]); /* cppcheck-suppress shadowVariable */
	str_list_clear(&c->slurm.directives);
	str_list_clear(&c->run.export);
	str_list_clear(&c->env);
	str_list_clear(&c->policy.locked);
	str_list_clear(&c->gpus_set);
	for (int i = 0; i < c->results.npatterns; i++) {
		free(c->results.patterns[i].name);
		free(c->results.patterns[i].regex);
	}
	free(c->results.patterns);
	gpu_catalog_release(&c->gpus);
	calibration_set_release(&c->calibrations);
	free(c->values);
	for (int i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	memset(c, 0, sizeof(*c));
}

/* Every layer in order, then resolution and checks. */
int
settings_load(struct settings *c, const struct config_sources *src)
{
	/* A frozen campaign.conf is no link (store.c refuses one): one
	 * put there since is not followed either. */
	struct loader ld = { .c = c, .quiet = src->frozen,
	                     .nofollow = src->frozen, .frozen = src->frozen };

	/* A file named that does not exist is missing input (66), not a
	 * configuration that is wrong. */
	if (load_site(&ld, src) != 0 || load_user(&ld, src) != 0 ||
	    (src->campaign_path &&
	     load_file(&ld, LAYER_CAMPAIGN, src->campaign_path, true,
	               "campaign file") != 0))
		return ld.refusal ? ld.refusal : ld.missing ? EXIT_NOINPUT
		       : EXIT_CONFIG;
	if (load_settings(&ld, src) != 0 || config_finish(c, src) != 0)
		return EXIT_CONFIG;
	return 0;
}

/* The sources a command has: --site, CAMPAIGN, --set. */
int
settings_load_for(struct settings *c, const char *site_path,
                  const char *path, const struct str_list *settings)
{
	struct config_sources src;
	int ret;

	memset(&src, 0, sizeof src);
	src.site_path = site_path;
	src.campaign_path = path;
	if (settings) {
		src.settings = (const char *const *)settings->v;
		src.nsettings = settings->n;
	}
	settings_init(c);
	ret = settings_load(c, &src);
	/* A failed load owns nothing the caller should have to free. */
	if (ret != 0)
		settings_release(c);
	return ret;
}

int
settings_segment_directive(const struct settings *c)
{
	struct sbatch_extras x = { 0 };
	struct strbuf why = STRBUF_INIT;

	/* Refused when the campaign was loaded if it does not parse. */
	for (int i = 0; i < c->slurm.directives.n; i++)
		(void)sbatch_extras_add(&x, c->slurm.directives.v[i], &why);
	strbuf_release(&why);
	return (int)x.segment;
}

int
settings_segment_nodes(const struct settings *c)
{
	int seg = settings_segment_directive(c);

	return seg > 0 ? seg
	       : nvlink_segment_nodes(c->nodes, c->gpus_per_node,
	                              c->gpu.nvlink_domain);
}

/*
 * The per-layer CUDA graphs the campaign's template renders: NeMo 2.0's
 * for the nemo2 template, named or as a path to nemo2.sbatch, else
 * Transformer Engine's, as Megatron-LM's template and the simulated
 * one pass them.
 */
enum template_core
settings_template_core(const struct settings *c)
{
	const char *name = c->run.template_name, *slash;

	if (!name)
		return CORE_CURRENT;
	if ((slash = strrchr(name, '/')) != NULL)
		name = slash + 1;
	return !strcmp(name, "nemo2") || !strcmp(name, "nemo2.sbatch")
	       ? CORE_NEMO2 : CORE_CURRENT;
}

/* What the estimator needs, pointing into c. */
void
settings_workload(const struct settings *c, struct workload *w)
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
	w->moe_token_imbalance = c->moe_token_imbalance;
	w->ce_fusion = c->cross_entropy_fusion;
	w->framework = c->framework;
	w->core = settings_template_core(c);
	w->opt_resident_set = c->optimizer.resident_bytes_per_param >= 0;
	w->opt_resident_bytes = w->opt_resident_set
		? c->optimizer.resident_bytes_per_param : 0;
	w->opt_transient_bytes = c->optimizer.transient_bytes_per_param;
	w->cal = &c->calibration;
	w->segment_nodes = settings_segment_directive(c);
}

int
settings_load_site(struct settings *c, const char *site_path)
{
	struct config_sources src;
	int status;

	memset(&src, 0, sizeof src);
	src.site_path = site_path;
	src.no_user = true;
	settings_init(c);
	if ((status = settings_load(c, &src)) == 0)
		return 0;
	settings_release(c);
	settings_init(c);
	return status;
}
