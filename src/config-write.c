/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-write.c - where each value came from, and the resolved campaign
 * written out: campaign.conf (settings_write), the `paratune config`
 * listing (settings_each_value) and its JSON (settings_write_json).
 */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"
#include "error.h"
#include "json.h"
#include "xalloc.h"

/* ---- provenance -------------------------------------------------------- */

/* The campaign's copy of a file name, kept as long as the campaign. */
const char *
config_intern(struct settings *c, const char *file)
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
void
config_record(struct settings *c, const char *key, struct origin o)
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

/* Public: see config.h. */
void
settings_use_templates_dir(struct settings *c, char *dir, const char *from)
{
	struct origin o = { config_intern(c, from), 0 };

	free(c->run.templates_dir);
	c->run.templates_dir = dir;
	config_record(c, "run.templates_dir", o);
}

/* The origin of a key, from the provenance list. */
const struct origin *
settings_origin(const struct settings *c, const char *key)
{
	for (int i = 0; i < c->nvalues; i++)
		if (!strcmp(c->values[i].key, key))
			return &c->values[i].origin;
	return NULL;
}

/* Public: see config.h. */
void
settings_where(const struct settings *c, const char *key, struct strbuf *sb)
{
	const struct origin *o = settings_origin(c, key);

	if (o && o->file)
		strbuf_addf(sb, "%s:%d: ", o->file, o->line);
}

/* Public: see config.h.  Files are compared by name only to keep one
 * file's keys together; within a file the line decides. */
const char *
settings_first_in(const struct settings *c, const char *group)
{
	const struct origin *best = NULL;
	const char *key = NULL;
	size_t n = strlen(group);

	for (int i = 0; i < c->nvalues; i++) {
		const struct origin *o = &c->values[i].origin;

		if (strncmp(c->values[i].key, group, n) || !o->file)
			continue;
		if (!best || (!strcmp(o->file, best->file) &&
		              o->line < best->line)) {
			best = o;
			key = c->values[i].key;
		}
	}
	return key;
}

/* Whether any layer set key. */
bool
config_key_set(const struct settings *c, const char *key)
{
	return settings_origin(c, key) != NULL;
}

/* "FILE:LINE" of a key's value, or "built-in default". */
void
config_origin_text(const struct settings *c, const char *key, char *buf,
                   size_t len)
{
	const struct origin *o = settings_origin(c, key);

	if (o)
		snprintf(buf, len, "%s:%d", o->file, o->line);
	else
		snprintf(buf, len, "built-in default");
}

/* "error: FILE:LINE: key 'K': MSG" at the place key got its value. */
int
config_origin_error(const struct settings *c, const char *key,
                    const char *fmt, ...)
{
	char where[512], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	config_origin_text(c, key, where, sizeof where);
	return error("%s: key '%s': %s", where, key, msg);
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
write_members(const struct settings *c, struct strbuf *out, int indent,
              enum key_in in, const void *base, const struct origin *o,
              bool with_origin)
{
	struct strbuf v = STRBUF_INIT;

	for (size_t i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_registry[i];

		if (k->in != in || !strcmp(k->path, "model.size_b"))
			continue;
		strbuf_reset(&v);
		config_key_text(c, base, k, &v);
		strbuf_addchars(out, ' ', (size_t)indent);
		strbuf_addf(out, "%s = %s;", config_last_part(k->path), v.buf);
		write_origin(out, o, with_origin);
	}
	strbuf_release(&v);
}

/* The model as a full architecture group: a frozen campaign must not
 * depend on the preset catalog of a later version. */
static void
write_model(const struct settings *c, struct strbuf *out, int indent,
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
write_gpu(const struct settings *c, struct strbuf *out,
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

/* Which members the campaign file or the command line set: a new plan
 * keeps those, and takes the others from the site and user files. */
static void
write_frozen_own(struct strbuf *out, unsigned own)
{
	const char *sep = "";

	strbuf_addstr(out, "    frozen_own = [");
	for (int m = 0; m < CAL_NMEMBERS; m++)
		if (own & 1u << m) {
			strbuf_addf(out, "%s\"%s\"", sep,
			            calibration_member_key(m));
			sep = ", ";
		}
	strbuf_addstr(out, "];\n");
}

/*
 * The campaign GPU's calibration, when a layer set one: a frozen
 * campaign keeps the constants it was planned with.  frozen_from names
 * the layer that set it, which the frozen file alone cannot tell: the
 * note of calibration-note.c needs it to know whether a new plan of the
 * same campaign would keep them.
 */
static void
write_calibration(const struct settings *c, struct strbuf *out,
                  const struct origin *o, bool with_origin)
{
	const struct calibration_entry *e = c->gpu_name
		? calibration_set_find(&c->calibrations, c->gpu_name) : NULL;
	int from;

	if (e == NULL)
		return;
	strbuf_addf(out, "calibration = {\n  %s = {\n", e->gpu);
	write_members(c, out, 4, IN_CALIBRATION, &e->cal, o, with_origin);
	/* A frozen load read it all as the campaign layer: keep its own
	 * record, should one be written out again. */
	from = e->frozen_from ? e->frozen_from : e->layer;
	strbuf_addf(out, "    frozen_from = \"%s\";", config_layer_name(from));
	write_origin(out, o, with_origin);
	if (from >= LAYER_CAMPAIGN)
		write_frozen_own(out, e->own);
	strbuf_addstr(out, "  };\n};\n");
}

/* results.patterns, one pattern per line. */
static void
write_patterns(const struct settings *c, struct strbuf *out, int indent,
               const struct origin *o, bool with_origin)
{
	strbuf_addchars(out, ' ', (size_t)indent);
	strbuf_addstr(out, "patterns = (\n");
	for (int i = 0; i < c->results.npatterns; i++) {
		strbuf_addchars(out, ' ', (size_t)indent + 2);
		config_members_text(c, IN_PATTERN, &c->results.patterns[i],
		                    out);
		if (i + 1 < c->results.npatterns)
			strbuf_addch(out, ',');
		write_origin(out, o, with_origin);
	}
	strbuf_addchars(out, ' ', (size_t)indent);
	strbuf_addstr(out, ");\n");
}

/* One key: "name = value;" or its multi-line form. */
static void
write_key(const struct settings *c, const struct config_key *k,
          struct strbuf *out, int indent, bool with_origin)
{
	const struct origin *o = settings_origin(c, k->path);
	struct strbuf v = STRBUF_INIT;

	if (k->type == KT_MODEL) {
		if (c->model.num_layers > 0)
			write_model(c, out, indent, o, with_origin);
	} else if (k->type == KT_GPUS) {
		write_gpu(c, out, o, with_origin);
	} else if (k->type == KT_CALIBRATION) {
		write_calibration(c, out, o, with_origin);
	} else if (k->type == KT_PATTERNS) {
		if (c->results.npatterns > 0)
			write_patterns(c, out, indent, o, with_origin);
	} else if (config_key_text(c, c, k, &v) &&
	           !((k->type == KT_STRINGS || k->type == KT_ENV) &&
	             !strcmp(v.buf, "[]"))) {
		strbuf_addchars(out, ' ', (size_t)indent);
		strbuf_addf(out, "%s = %s;", config_last_part(k->path), v.buf);
		write_origin(out, o, with_origin);
	}
	strbuf_release(&v);
}

/* Every key but the site policy, grouped as in a campaign file. */
/*
 * The templates directory, left at its built-in default, names where
 * this installation keeps templates: freezing it would tie a campaign
 * directory to one installation and hide PARATUNE_TEMPLATES from it.
 */
static bool
install_default(const struct settings *c, const struct config_key *k,
                bool with_origin)
{
	return !with_origin && !strcmp(k->path, "run.templates_dir") &&
	       settings_origin(c, k->path) == NULL;
}

void
settings_write(const struct settings *c, struct strbuf *out,
               bool with_origin)
{
	strbuf_addstr(out, "# paratune campaign with every layer resolved "
	              "(see paratune.conf(5))\n");
	for (size_t i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_registry[i];
		size_t len = strlen(k->path);

		/* Site policy is the site's, not the campaign's. */
		if (config_parent_len(k->path) != 0 || (k->flags & F_MEMBER) ||
		    k->layers == SITE_ONLY)
			continue;
		if (k->type != KT_GROUP) {
			write_key(c, k, out, 0, with_origin);
			continue;
		}
		if (!strcmp(k->path, "base") && !c->base.set)
			continue;
		strbuf_addf(out, "%s = {\n", k->path);
		for (size_t j = 0; j < config_nkeys; j++)
			if (config_key_in_group(&config_registry[j], k->path,
			                        len) &&
			    !(config_registry[j].flags & F_MEMBER) &&
			    !install_default(c, &config_registry[j],
			                     with_origin))
				write_key(c, &config_registry[j], out, 2,
				          with_origin);
		strbuf_addstr(out, "};\n");
	}
}

/* What each_key hands to its callback. */
struct each_ctx {
	const struct settings *c;
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
	const struct settings *c = ec->c;
	struct model_group mg;

	memset(&mg, 0, sizeof mg);
	mg.m = c->model;
	for (size_t i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_registry[i];
		const struct origin *o = settings_origin(c, k->path);

		if (k->type == KT_GROUP || (k->flags & F_MEMBER))
			continue;
		if ((k->type == KT_GPUS && c->gpus_set.n == 0) ||
		    (k->type == KT_CALIBRATION && c->calibrations.n == 0))
			continue;
		if (!strncmp(k->path, "base.", 5) && !c->base.set)
			continue;
		if (k->type != KT_MODEL || c->model.num_layers == 0) {
			fn(ec, k, c, o);
			continue;
		}
		for (size_t j = 0; j < config_nkeys; j++)
			if (config_registry[j].in == IN_MODEL &&
			    strcmp(config_registry[j].path, "model.size_b"))
				fn(ec, &config_registry[j], &mg, o);
	}
}

/* settings_each_value's walker: the value as libconfig text. */
static void
each_value_text(struct each_ctx *ec, const struct config_key *k,
                const void *base, const struct origin *o)
{
	static const struct origin builtin = { NULL, 0 };
	struct strbuf v = STRBUF_INIT;
	bool set = config_key_text(ec->c, base, k, &v);

	ec->fn(ec->arg, k->path, set ? v.buf : NULL, o ? o : &builtin);
	strbuf_release(&v);
}

/* Public: see config.h. */
void
settings_each_value(const struct settings *c,
                    void (*fn)(void *arg, const char *key,
                               const char *value,
                               const struct origin *origin),
                    void *arg)
{
	struct each_ctx ec = { c, fn, NULL, arg };

	each_key(&ec, each_value_text);
}

/* settings_write_json's walker: value, file and line. */
static void
each_value_json(struct each_ctx *ec, const struct config_key *k,
                const void *base, const struct origin *o)
{
	json_begin_object(ec->json, k->path);
	config_key_json(ec->c, base, k, ec->json, "value");
	json_string(ec->json, "file", o ? o->file : NULL);
	if (o && o->line > 0) /* 0: no file, as the environment */
		json_int(ec->json, "line", o->line);
	else
		json_null(ec->json, "line");
	json_end_object(ec->json);
}

/* Public: see config.h. */
void
settings_write_json(const struct settings *c, struct json *j)
{
	struct each_ctx ec = { c, NULL, j, NULL };

	json_begin_object(j, "values");
	each_key(&ec, each_value_json);
	json_end_object(j);
}
