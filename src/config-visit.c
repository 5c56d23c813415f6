/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-visit.c - the values of a campaign read back out, key by key,
 * as one line of libconfig or as JSON, so that campaign.conf, `paratune
 * config` and its JSON all show the same values.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"
#include "error.h"
#include "json.h"

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
void
config_conf_quote(struct strbuf *out, const char *s)
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
	config_conf_quote(w->out, s ? s : "");
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

/* An int-sized enum field (see the static assertions in
 * config-registry.c). */
static int
enum_load(const void *field)
{
	int v;

	memcpy(&v, field, sizeof v);
	return v;
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

static void key_visit(const struct settings *c, const void *base,
                      const struct config_key *k,
                      const struct value_sink *vs, void *arg,
                      const char *name);

/* Every member of one struct (model, gpu, pattern) as a group. */
static void
visit_members(const struct settings *c, enum key_in in, const void *base,
              const struct value_sink *vs, void *arg, const char *name)
{
	vs->open(arg, name, '{');
	for (size_t i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_registry[i];

		if (k->in == in && strcmp(k->path, "model.size_b"))
			key_visit(c, base, k, vs, arg,
			          config_last_part(k->path));
	}
	vs->close(arg, '{');
}

/* The model: the whole architecture, or a family still to generate. */
static void
visit_model(const struct settings *c, const struct value_sink *vs,
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
visit_gpus(const struct settings *c, const struct value_sink *vs, void *arg,
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

/* The calibrations some layer set, one GPU = { ... } each. */
static void
visit_calibrations(const struct settings *c, const struct value_sink *vs,
                   void *arg, const char *name)
{
	vs->open(arg, name, '{');
	for (size_t i = 0; i < c->calibrations.n; i++)
		visit_members(c, IN_CALIBRATION, &c->calibrations.v[i].cal,
		              vs, arg, c->calibrations.v[i].gpu);
	vs->close(arg, '{');
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

/* Sets of choices as a list of "a+b" strings. */
static void
visit_sets(const struct int_list *l, const char *const *choices,
           const struct value_sink *vs, void *arg, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	vs->open(arg, name, '[');
	for (int i = 0; i < l->n; i++) {
		strbuf_reset(&sb);
		for (int c = 0; choices[c]; c++)
			if ((unsigned)l->v[i] & BIT(c))
				strbuf_addf(&sb, "%s%s", sb.len ? "+" : "",
				            choices[c]);
		vs->string(arg, NULL, sb.buf);
	}
	vs->close(arg, '[');
	strbuf_release(&sb);
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
visit_patterns(const struct settings *c, const struct value_sink *vs,
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
key_visit(const struct settings *c, const void *base,
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
	case KT_SETS:
		visit_sets((const void *)p, k->choices, vs, arg, name);
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
	case KT_CALIBRATION:
		visit_calibrations(c, vs, arg, name);
		break;
	case KT_GROUP:
		bug("key_visit on group '%s'", k->path);
	}
}

/* A key's value as one line of libconfig; false when it is unset. */
bool
config_key_text(const struct settings *c, const void *base,
                const struct config_key *k, struct strbuf *out)
{
	struct conf_text w = { .out = out };

	key_visit(c, base, k, &conf_sink, &w, NULL);
	return !w.unset;
}

/* A key's value as a JSON member. */
void
config_key_json(const struct settings *c, const void *base,
                const struct config_key *k, struct json *j, const char *name)
{
	key_visit(c, base, k, &json_sink, j, name);
}

/* Every member of a model, GPU or pattern as one line of libconfig. */
void
config_members_text(const struct settings *c, enum key_in in,
                    const void *base, struct strbuf *out)
{
	struct conf_text w = { .out = out };

	visit_members(c, in, base, &conf_sink, &w, NULL);
}
