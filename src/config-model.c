/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-model.c - the model key: a preset name, an architecture of
 * one's own, or a family (gpt3, t5, mt5, bert) whose architecture is
 * generated once every layer is read, its size recommended from the
 * budget when not given.  A model replaces what lower layers gave whole.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"
#include "error.h"
#include "sizing.h"
#include "util.h"
#include "xalloc.h"

/* ---- reading the model key --------------------------------------------- */

/* Forget the model a lower layer gave. */
static void
model_clear(struct settings *c)
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
	char q[QUOTE_CUT_SIZE];
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
	config_suggest_names(&hint, name, names, (int)n);
	ret = config_key_error(ld, s, k, "unknown model %s%s; 'paratune "
	                       "models' lists the presets", quote_cut(name, q),
	                       hint.buf);
	strbuf_release(&hint);
	free(names);
	return ret;
}

/*
 * Whether v can name a NeMo 2.0 recipe factory: NeMo-Run resolves
 * "nemo llm pretrain --factory NAME" as a registered Python name or a
 * dotted path to one (nemo_run/cli/cli_parser.py parse_factory), so a
 * Python identifier or identifiers joined by '.'.  ASCII only, which
 * also keeps it one shell word in nemo2.sbatch.
 */
static bool
recipe_syntax_ok(const char *v)
{
	bool start = true;

	for (; *v; v++) {
		if (*v == '.' && !start) {
			start = true;
			continue;
		}
		if (!(*v == '_' || (*v >= 'a' && *v <= 'z') ||
		      (*v >= 'A' && *v <= 'Z') ||
		      (!start && *v >= '0' && *v <= '9')))
			return false;
		start = false;
	}
	return !start;
}

/* The recipes the presets name, each once, into *names (allocated). */
static int
preset_recipes(const char ***names)
{
	size_t n = model_preset_count();
	int k = 0;

	*names = xcalloc(n ? n : 1, sizeof(**names));
	for (size_t i = 0; i < n; i++) {
		const char *r = model_preset_at(i)->nemo_recipe;
		int j;

		for (j = 0; j < k && strcmp((*names)[j], r); j++)
			;
		if (*r && j == k)
			(*names)[k++] = r;
	}
	return k;
}

/*
 * model.nemo_recipe.  Refused when it cannot name a factory at all
 * (recipe_syntax_ok).  A well-formed name no preset carries stays: NeMo
 * has recipes paratune has no preset for, and one can register one's
 * own, so the list is not the set of valid names.  Only one a typo away
 * from a preset's recipe gets a warning, with the ones it is near.
 */
int
config_check_recipe(struct loader *ld, const struct config_key *k,
                    const config_setting_t *s, const char *v)
{
	struct strbuf hint = STRBUF_INIT;
	const char **names;
	int n = preset_recipes(&names), i, ret = 0;
	char q[QUOTE_CUT_SIZE];

	for (i = 0; i < n && strcmp(names[i], v); i++)
		;
	if (i == n)
		config_suggest_names(&hint, v, names, n);
	if (!recipe_syntax_ok(v)) {
		ret = config_key_error(ld, s, k, "%s is not a recipe factory "
		                       "name (a Python identifier, or "
		                       "identifiers joined by '.')%s",
		                       quote_cut(v, q), hint.buf);
	} else if (hint.len && !ld->quiet) {
		struct origin o = config_origin_at(ld, s);

		warning("%s:%d: key '%s': %s is not a "
		        "preset's recipe%s; it is kept, for a recipe of "
		        "NeMo's without a preset or one of one's own",
		        o.file, o.line, k->path, quote_cut(v, q), hint.buf);
	}
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

/*
 * Megatron-LM's ffn_hidden_size for a model that gives none: 4h, or
 * SwiGLU's 8h/3 rounded down to 64.  A legal hidden_size (up to 2^24)
 * gives one past ffn_hidden_size's own range, which plan froze into
 * campaign.conf and no command could read back: refused here, naming
 * hidden_size.  moe_ffn_hidden_size defaults to it, with the same range.
 */
static int
default_ffn(struct loader *ld, const struct config_key *k,
            const config_setting_t *s, struct model *m)
{
	const struct config_key *ffn =
		config_registry_find("model.ffn_hidden_size");
	double v = m->swiglu ? floor(4.0 * m->hidden_size * 2 / 3 / 64) * 64
	                     : 4.0 * m->hidden_size;

	if (v > ffn->max)
		return config_key_error(ld, s, k, "hidden_size %d gives "
		                        "ffn_hidden_size %.0f (%s), more "
		                        "than %.0f: give ffn_hidden_size",
		                        m->hidden_size, v, m->swiglu
		                        ? "SwiGLU's 8/3 of it" : "4 times it",
		                        ffn->max);
	m->ffn_hidden_size = (int)v;
	return 0;
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
	if (!config_has_member(s, "num_query_groups"))
		m->num_query_groups = m->num_attention_heads;
	if (!config_has_member(s, "kv_channels")) {
		if (m->hidden_size % m->num_attention_heads)
			return config_key_error(ld, s, k, "hidden_size %d is "
			                        "not a multiple of "
			                        "num_attention_heads %d: give "
			                        "kv_channels", m->hidden_size,
			                        m->num_attention_heads);
		m->kv_channels = m->hidden_size / m->num_attention_heads;
	}
	if (!config_has_member(s, "ffn_hidden_size") &&
	    default_ffn(ld, k, s, m) != 0)
		return -1;
	if (m->num_experts > 0 && !config_has_member(s, "moe_router_topk"))
		m->moe_router_topk = 2;
	if (m->num_experts > 0 && !config_has_member(s, "moe_ffn_hidden_size"))
		m->moe_ffn_hidden_size = m->ffn_hidden_size;
	/* Megatron-LM's MLA defaults (arguments.py: --qk-head-dim 128,
	 * --qk-pos-emb-head-dim 64, --v-head-dim 128). */
	if (m->kv_lora_rank > 0 && !config_has_member(s, "qk_head_dim"))
		m->qk_head_dim = 128;
	if (m->kv_lora_rank > 0 &&
	    !config_has_member(s, "qk_pos_emb_head_dim"))
		m->qk_pos_emb_head_dim = 64;
	if (m->kv_lora_rank > 0 && !config_has_member(s, "v_head_dim"))
		m->v_head_dim = 128;
	if (m->arch == ARCH_ENCDEC &&
	    !config_has_member(s, "encoder_num_layers"))
		m->encoder_layers = m->num_layers / 2;
	if (!m->name[0])
		memcpy(m->name, "custom", sizeof "custom");
	if (!m->family[0])
		memcpy(m->family, "custom", sizeof "custom");
	return 0;
}

/* The first of the keys that make a model group an architecture. */
static const char *
architecture_key(const config_setting_t *s)
{
	return config_has_member(s, "num_layers") ? "num_layers"
	       : config_has_member(s, "hidden_size") ? "hidden_size"
	       : "num_attention_heads";
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

	/* Before the keys it lacks: a family to generate from, given an
	 * architecture's key as well, lacks nothing but its mistake. */
	if (config_has_member(s, "size_b"))
		return config_key_error(ld, s, k, "size_b generates an "
		                        "architecture from a family (with "
		                        "only name, family, size_b and "
		                        "vocab_size); '%s' belongs to an "
		                        "explicit architecture instead",
		                        architecture_key(s));
	for (int i = 0; required[i]; i++)
		if (!config_has_member(s, required[i]))
			return config_key_error(ld, s, k, "an architecture "
			                        "needs '%s'", required[i]);
	if (model_fill_defaults(ld, k, s, &mg->m) != 0)
		return -1;
	if (model_validate(&mg->m, why, sizeof why) != 0)
		return config_key_error(ld, s, k, "%s", why);
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

	if (!config_has_member(s, "family"))
		return config_key_error(ld, s, k, "a model group needs an "
		                        "architecture (num_layers, "
		                        "hidden_size, num_attention_heads, "
		                        "vocab_size, max_position_embeddings) "
		                        "or a family (gpt3, t5, mt5, bert) to "
		                        "generate one");
	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(s,
		                                                   (unsigned)i);
		const char *name = config_setting_name(m);
		int j;

		for (j = 0; allowed[j] && strcmp(allowed[j], name); j++)
			;
		if (!allowed[j])
			return config_at_error(ld, m, "key 'model.%s': a "
			                       "generated architecture takes "
			                       "only name, family, size_b and "
			                       "vocab_size", name);
	}
	if (sizing_family_parse(mg->m.family) < 0)
		return config_at_error(ld,
		                       config_setting_get_member(s, "family"),
		                       "key 'model.family': '%s' cannot be "
		                       "generated (gpt3, t5, mt5 or bert; "
		                       "other families need an architecture)",
		                       mg->m.family);
	model_clear(ld->c);
	memcpy(f->family, mg->m.family, sizeof f->family);
	f->size_b = mg->size_b;
	f->vocab_size = mg->m.vocab_size;
	ld->c->model_name = xstrdup(mg->m.name[0] ? mg->m.name : f->family);
	ld->c->model_custom = true;
	return 0;
}

/* model: a preset name or a group; it replaces what lower layers gave. */
int
config_apply_model(struct loader *ld, const struct config_key *k,
                   const config_setting_t *s)
{
	struct model_group mg;

	if (config_is_string(s))
		return set_model_preset(ld, k, s);
	if (!config_setting_is_group(s))
		return config_key_error(ld, s, k, "expects a preset name or a "
		                        "group, not %s", config_kind_name(s));
	model_group_defaults(&mg);
	if (config_apply_members(ld, s, "model", IN_MODEL, &mg) != 0)
		return -1;
	if (config_has_member(s, "num_layers") ||
	    config_has_member(s, "hidden_size") ||
	    config_has_member(s, "num_attention_heads"))
		return set_model_custom(ld, k, s, &mg);
	return set_model_family(ld, k, s, &mg);
}

/* ---- generating a family's architecture -------------------------------- */

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
generate_model(struct settings *c)
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
			return config_origin_error(c, "model", "the budget (%d "
			                           "GPUs, %g days) recommends "
			                           "no model size", gpus,
			                           c->max_training_days);
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
		return config_origin_error(c, "model", "no %s architecture of "
		                           "%.2f B parameters: %s", f->family,
		                           size, why);
	snprintf(m.name, sizeof m.name, "%s", c->model_name);
	memcpy(m.family, f->family, sizeof m.family);
	generated_defaults(&m, c->seq_length);
	c->model = m;
	return 0;
}

/* The model is known after the last layer, or it is an error when a
 * campaign file was read. */
int
config_resolve_model(struct settings *c,
                     const struct config_sources *src)
{
	if (c->model.num_layers == 0 && c->model_family.family[0])
		return generate_model(c);
	if (c->model.num_layers == 0 && src->campaign_path)
		return error("%s: key 'model' is not set (a preset such as "
		             "\"llama3_8b\", or a group)", src->campaign_path);
	return 0;
}
