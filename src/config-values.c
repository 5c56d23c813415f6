/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-values.c - one setting read into the campaign: its type checked
 * and converted (integers, numbers, booleans, strings, names, choices,
 * lists of them), its range and form validated, and where it came from
 * recorded.  Every error names the file and line of the setting.
 */
#include "autoconfig.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"
#include "error.h"
#include "layout-switch.h"
#include "safe-text.h"
#include "util.h"
#include "xalloc.h"

/* Store into an int-sized enum field. */
static void
enum_store(void *field, int v)
{
	memcpy(field, &v, sizeof v);
}

/* What a setting holds, for messages ("a string"). */
const char *
config_kind_name(const config_setting_t *s)
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

/* Room for kind_with_value's text. */
#define KIND_SIZE (QUOTE_CUT_SIZE + 16)

/* What s is, with its value when it is a string, a fraction or a
 * boolean: "-s seq_length=4k" is told it gave the string '4k', not only
 * "a string".  A long string is cut (quote_cut). */
static void
kind_with_value(const config_setting_t *s, char *buf, size_t len)
{
	char q[QUOTE_CUT_SIZE];

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_STRING:
		snprintf(buf, len, "the string %s",
		         quote_cut(config_setting_get_string(s), q));
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, len, "the number %g",
		         config_setting_get_float(s));
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, len, "the boolean %s",
		         config_setting_get_bool(s) ? "true" : "false");
		break;
	default:
		snprintf(buf, len, "%s", config_kind_name(s));
		break;
	}
}

/* Whether a setting is an array or a list. */
bool
config_is_list(const config_setting_t *s)
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
bool
config_is_string(const config_setting_t *s)
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
	char where[32], what[KIND_SIZE];
	long long v;

	element_prefix(where, sizeof where, idx);
	if (!is_int(s)) {
		kind_with_value(s, what, sizeof what);
		return config_key_error(ld, s, k, "%sexpects an integer, not "
		                        "%s", where, what);
	}
	v = config_setting_get_int64(s);
	if ((double)v < k->min || (double)v > k->max)
		return config_key_error(ld, s, k, "%s%lld is out of range "
		                        "(%.0f to %.0f)", where, v, k->min,
		                        k->max);
	*out = (int)v;
	return 0;
}

/* A number (an integer will do) within k's range. */
static int
read_double(struct loader *ld, const struct config_key *k,
             const config_setting_t *s, double *out)
{
	char what[KIND_SIZE];
	double v;

	if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(s);
	else if (is_int(s))
		v = (double)config_setting_get_int64(s);
	else {
		kind_with_value(s, what, sizeof what);
		return config_key_error(ld, s, k, "expects a number, not %s",
		                        what);
	}
	/* 0 stands apart where it means "none": a tiny peak (3e-308)
	 * made every predicted time infinite. */
	if ((k->flags & F_ZERO) && v == 0)
		;
	else if (!(v >= k->min && v <= k->max))
		return config_key_error(ld, s, k, "%g is out of range (%s%g "
		                        "to %g)", v, k->flags & F_ZERO
		                        ? "0, or " : "", k->min, k->max);
	*out = v;
	return 0;
}

/* Letters, digits, '.', '_' and '-', not starting with '.' or '-'. */
bool
config_valid_name(const char *s)
{
	if (*s == '\0' || *s == '.' || *s == '-')
		return false;
	for (; *s; s++)
		if (!(strchr("._-", *s) || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

bool
config_valid_currency(const char *v)
{
	return *v != '\0' && strlen(v) <= CURRENCY_MAX &&
	       safe_text_plain(v, NULL);
}

/*
 * Whether a string setting is plain text (safe_text_plain): values are
 * printed on terminals -- other users' too, when root's cron runs
 * paratune over their campaigns -- and in cron mail and job scripts, so
 * none may carry what a terminal acts on (ESC ] 0 ; retitles it, 0x9b
 * is a one-byte CSI) or what reorders the text shown.  Every string key
 * comes here, so no key can forget to check.
 */
static int
check_plain(struct loader *ld, const struct config_key *k,
            const config_setting_t *s, const char *where, const char *v)
{
	struct strbuf why = STRBUF_INIT;
	char q[QUOTE_CUT_SIZE];
	int ret = 0;

	if (!safe_text_plain(v, &why))
		ret = config_key_error(ld, s, k, "%s%s holds %s (only "
		                       "printable UTF-8 text is allowed)",
		                       where, quote_cut(v, q), why.buf);
	strbuf_release(&why);
	return ret;
}

/*
 * A string setting: never a line break (values end up in sbatch scripts
 * line by line), plain text (check_plain), empty only where F_CLEAR
 * allows, shorter than k->size where it is set, a name where F_NAME
 * asks for one, a short symbol where F_SYMBOL does, a recipe factory
 * where F_RECIPE does.
 */
static int
read_string(struct loader *ld, const struct config_key *k,
             const config_setting_t *s, int idx, const char **out)
{
	char where[32], q[QUOTE_CUT_SIZE];
	const char *v;

	*out = ""; /* defined on every path, whatever the error
	            * helper returns */
	element_prefix(where, sizeof where, idx);
	if (!config_is_string(s))
		return config_key_error(ld, s, k, "%sexpects a string, not %s",
		                        where, config_kind_name(s));
	v = config_setting_get_string(s);
	if (strpbrk(v, "\n\r"))
		return config_key_error(ld, s, k, "%scontains a line break",
		                        where);
	if (check_plain(ld, k, s, where, v) != 0)
		return -1;
	if (*v == '\0' && !(k->flags & F_CLEAR))
		return config_key_error(ld, s, k, "%sis empty", where);
	if (k->size && strlen(v) >= k->size)
		return config_key_error(ld, s, k, "%s%s is longer than %zu "
		                        "bytes", where, quote_cut(v, q),
		                        k->size - 1);
	/* An empty name is the F_CLEAR case above, not a bad name. */
	if ((k->flags & F_NAME) && *v && !config_valid_name(v))
		return config_key_error(ld, s, k, "%s%s is not a valid name "
		                        "(letters, digits, '.', '_' and '-', "
		                        "not starting with '.' or '-')", where,
		                        quote_cut(v, q));
	if ((k->flags & F_SYMBOL) && !config_valid_currency(v))
		return config_key_error(ld, s, k, "%s%s is not a currency "
		                        "symbol (at most %d bytes, no control "
		                        "character)", where, quote_cut(v, q),
		                        CURRENCY_MAX);
	if ((k->flags & F_RECIPE) && *v &&
	    config_check_recipe(ld, k, s, v) != 0)
		return -1;
	if ((k->flags & F_OPTION) && v[0] != '-')
		return config_key_error(ld, s, k, "%s%s is not an option "
		                        "(such as \"--exclusive\")", where,
		                        quote_cut(v, q));
	*out = v;
	return 0;
}

/* One of k's choices; its index. */
static int
read_choice(struct loader *ld, const struct config_key *k,
             const config_setting_t *s, int idx, int *out)
{
	struct strbuf msg = STRBUF_INIT;
	char q[QUOTE_CUT_SIZE];
	const char *v;
	int n, ret;

	*out = 0; /* defined on every path, as in read_string() */
	if (read_string(ld, k, s, idx, &v) != 0)
		return -1;
	for (n = 0; k->choices[n]; n++)
		if (!strcmp(k->choices[n], v)) {
			*out = n;
			return 0;
		}
	if (idx >= 0)
		strbuf_addf(&msg, "element %d: ", idx + 1);
	strbuf_addf(&msg, "unknown value %s", quote_cut(v, q));
	config_suggest_names(&msg, v, k->choices, n);
	strbuf_addstr(&msg, "; one of:");
	for (int i = 0; i < n; i++)
		strbuf_addf(&msg, "%s %s", i ? "," : "", k->choices[i]);
	ret = config_key_error(ld, s, k, "%s", msg.buf);
	strbuf_release(&msg);
	return ret;
}

/* One "a+b" set of k's choices (spaces separate too); its bit mask. */
static int
read_set(struct loader *ld, const struct config_key *k,
         const config_setting_t *s, int idx, int *out)
{
	struct strbuf msg = STRBUF_INIT;
	char q[QUOTE_CUT_SIZE], *word;
	unsigned mask;
	const char *v, *bad;
	size_t len;
	int ret;

	if (read_string(ld, k, s, idx, &v) != 0)
		return -1;
	if (layout_set_parse(k->choices, v, &mask, &bad, &len) == 0) {
		*out = (int)mask;
		return 0;
	}
	if (idx >= 0)
		strbuf_addf(&msg, "element %d: ", idx + 1);
	if (!bad) {
		strbuf_addstr(&msg, "an empty set");
	} else {
		word = xstrndup(bad, len);
		strbuf_addf(&msg, "unknown value %s; one of:",
		            quote_cut(word, q));
		free(word);
		for (int i = 0; k->choices[i]; i++)
			strbuf_addf(&msg, "%s %s", i ? "," : "", k->choices[i]);
	}
	ret = config_key_error(ld, s, k, "%s", msg.buf);
	strbuf_release(&msg);
	return ret;
}

/* One set or a list of them. */
static int
read_sets(struct loader *ld, const struct config_key *k,
          const config_setting_t *s, struct int_list *out)
{
	struct int_list l;
	int n = config_is_list(s) ? config_setting_length(s) : 1;

	memset(&l, 0, sizeof l);
	if (!config_is_list(s)) {
		if (read_set(ld, k, s, -1, &l.v[0]) != 0)
			return -1;
		l.n = 1;
		*out = l;
		return 0;
	}
	if (n == 0 || n > CONFIG_LIST_MAX)
		return config_key_error(ld, s, k, "%d sets; from 1 to %d", n,
		                        CONFIG_LIST_MAX);
	for (int i = 0; i < n; i++)
		if (read_set(ld, k, config_setting_get_elem(s, (unsigned)i), i,
		             &l.v[i]) != 0)
			return -1;
	l.n = n;
	*out = l;
	return 0;
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
			return config_key_error(ld, s, k, "expects true or "
			                        "false, not %s",
			                        config_kind_name(s));
		*(bool *)p = config_setting_get_bool(s);
		return 0;
	case KT_STRING:
		if (read_string(ld, k, s, -1, &str) != 0)
			return -1;
		free(*(char **)p);
		*(char **)p = *str ? xstrdup(str) : NULL;
		return 0;
	case KT_NAME:
		/* read_string held it to k->size, the array's. */
		if (read_string(ld, k, s, -1, &str) != 0)
			return -1;
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
	if (config_is_string(s) && (k->flags & F_AUTO) &&
	    !strcmp(config_setting_get_string(s), "auto")) {
		l.is_auto = true;
	} else if (is_int(s)) {
		/* One value is a one-element list, as in NeMo. */
		if (read_int(ld, k, s, -1, &l.v[0]) != 0)
			return -1;
		l.n = 1;
	} else if (config_is_list(s)) {
		n = config_setting_length(s);
		if (n == 0)
			return config_key_error(ld, s, k, "the list is empty");
		if (n > CONFIG_LIST_MAX)
			return config_key_error(ld, s, k, "%d values; at most "
			                        "%d", n, CONFIG_LIST_MAX);
		for (int i = 0; i < n; i++)
			if (read_int(ld, k, config_setting_get_elem(s,
			              (unsigned)i), i, &l.v[i]) != 0)
				return -1;
		l.n = n;
	} else {
		char what[KIND_SIZE];

		kind_with_value(s, what, sizeof what);
		return config_key_error(ld, s, k, "expects an integer, a list "
		                        "of integers%s, not %s",
		                        k->flags & F_AUTO ? " or \"auto\"" : "",
		                        what);
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

	if (config_is_string(s)) {
		if (read_choice(ld, k, s, -1, &v) != 0)
			return -1;
		*out = BIT(v);
		return 0;
	}
	if (!config_is_list(s))
		return config_key_error(ld, s, k, "expects a string or a list "
		                        "of strings, not %s",
		                        config_kind_name(s));
	if ((n = config_setting_length(s)) == 0 && !(k->flags & F_EMPTY))
		return config_key_error(ld, s, k, "the list is empty");
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
	int n = config_is_list(s) ? config_setting_length(s) : 0;

	if (config_is_string(s) && (k->flags & F_AUTO) &&
	    !strcmp(config_setting_get_string(s), "auto")) {
		*out = 0;
		return 0;
	}
	if (config_setting_type(s) == CONFIG_TYPE_BOOL) {
		*out = BIT(config_setting_get_bool(s) ? 1 : 0);
		return 0;
	}
	if (!config_is_list(s) || n == 0)
		return config_key_error(ld, s, k, "expects true, false, a list "
		                        "of them%s, not %s",
		                        k->flags & F_AUTO ? " or \"auto\"" : "",
		                        n == 0 && config_is_list(s)
		                        ? "an empty list"
		                        : config_kind_name(s));
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s,
		                                                   (unsigned)i);

		if (config_setting_type(e) != CONFIG_TYPE_BOOL)
			return config_key_error(ld, e, k, "element %d: expects "
			                        "true or false, not %s", i + 1,
			                        config_kind_name(e));
		mask |= BIT(config_setting_get_bool(e) ? 1 : 0);
	}
	*out = mask;
	return 0;
}

/* A string or a list of strings, each checked, into out. */
int
config_read_strings(struct loader *ld, const struct config_key *k,
                    const config_setting_t *s, struct str_list *out)
{
	const char *v;
	int n;

	if (config_is_string(s)) {
		if (read_string(ld, k, s, -1, &v) != 0)
			return -1;
		str_list_push(out, v);
		return 0;
	}
	if (!config_is_list(s))
		return config_key_error(ld, s, k, "expects a list of strings, "
		                        "not %s", config_kind_name(s));
	n = config_setting_length(s);
	for (int i = 0; i < n; i++) {
		if (read_string(ld, k, config_setting_get_elem(s, (unsigned)i),
		                 i, &v) != 0)
			return -1;
		str_list_push(out, v);
	}
	return 0;
}

/* Members of a model, gpus or patterns group into base; each member must
 * be a key of that group. */
int
config_apply_members(struct loader *ld, const config_setting_t *s,
                     const char *prefix, enum key_in in, void *base)
{
	return config_apply_members_but(ld, s, prefix, in, base, NULL);
}

/* Whether name is one of names (NULL-terminated; NULL for none). */
static bool
name_in(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (!strcmp(*names, name))
			return true;
	return false;
}

int
config_apply_members_but(struct loader *ld, const config_setting_t *s,
                         const char *prefix, enum key_in in, void *base,
                         const char *const *but)
{
	int ret = 0, n = config_setting_length(s);

	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(s,
		                                                   (unsigned)i);
		char *path = xasprintf("%s.%s", prefix, config_setting_name(m));
		const struct config_key *k = config_registry_find(path);

		if (name_in(but, config_setting_name(m)))
			; /* the caller's own */
		else if (k == NULL || k->in != in)
			ret |= config_unknown_key(ld, m, path, in);
		else
			ret |= store_scalar(ld, k, m, base);
		free(path);
	}
	return ret;
}

/* The entry of list s before index i with the name entry i has, or
 * NULL. */
static const config_setting_t *
earlier_same_name(const config_setting_t *s, int i)
{
	const char *name = NULL, *other = NULL;
	const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

	if (!config_setting_is_group(e) ||
	    !config_setting_lookup_string(e, "name", &name))
		return NULL;
	for (int j = 0; j < i; j++) {
		const config_setting_t *f =
			config_setting_get_elem(s, (unsigned)j);

		if (config_setting_is_group(f) &&
		    config_setting_lookup_string(f, "name", &other) &&
		    !strcmp(name, other))
			return f;
	}
	return NULL;
}

/*
 * A later layer's entry replaces a lower one's of its name (a
 * campaign's over the site's); within one list, the first of two would
 * be lost without a word.
 */
int
config_entry_once(struct loader *ld, const struct config_key *k,
                  const config_setting_t *s, int i, const char *what)
{
	const config_setting_t *first = earlier_same_name(s, i);
	const char *name = NULL;
	char q[QUOTE_CUT_SIZE];

	if (first == NULL)
		return 0;
	config_setting_lookup_string(config_setting_get_elem(s, (unsigned)i),
	                             "name", &name);
	return config_key_error(ld, config_setting_get_elem(s, (unsigned)i),
	                        k, "%s name %s is given twice (first on "
	                        "line %d)", what,
	                        quote_cut(name ? name : "", q),
	                        (int)config_setting_source_line(first));
}

/* Public: see config-int.h. */
int
config_apply_entries(struct loader *ld, const struct config_key *k,
                     const config_setting_t *s, const char *what,
                     int (*apply)(struct loader *, const struct config_key *,
                                  const config_setting_t *))
{
	int ret = 0, n = config_setting_length(s);

	for (int i = 0; i < n; i++) {
		if (config_entry_once(ld, k, s, i, what) != 0)
			ret = -1;
		else
			ret |= apply(ld, k,
			             config_setting_get_elem(s, (unsigned)i));
	}
	return ret;
}

/* Whether a group names a member. */
bool
config_has_member(const config_setting_t *s, const char *name)
{
	return config_setting_get_member(s, name) != NULL;
}

/*
 * A run.template written as a relative path in a file ("./my.sbatch")
 * is beside that file: it was opened from the working directory, so the
 * campaign planned from its own directory only.  Made absolute, so that
 * the frozen campaign.conf names the same file from anywhere; one given
 * with --set is the working directory's, made absolute the same way.
 */
static int
template_beside_file(struct loader *ld, const struct config_key *k,
                     const config_setting_t *s)
{
	char **name = &ld->c->run.template_name;
	char *dir, *beside, *path;
	const char *rel;

	if (*name == NULL || (*name)[0] == '/' || strchr(*name, '/') == NULL)
		return 0;
	for (rel = *name; !strncmp(rel, "./", 2); rel += 2)
		;
	/* --set's (ld->line: the command line's) is the working
	 * directory's, made absolute too, or the frozen campaign.conf
	 * named another file beside itself. */
	dir = ld->line > 0 ? xstrdup(".")
	                   : path_dir(config_origin_at(ld, s).file);
	beside = strcmp(dir, ".") ? xasprintf("%s/%s", dir, rel)
	                          : xstrdup(rel);
	path = path_absolute(beside);
	free(beside);
	free(dir);
	if (strlen(path) >= PATH_MAX) {
		free(path);
		return config_key_error(ld, s, k, "'%s' beside its file is "
		                        "no path this system can open", *name);
	}
	free(*name);
	*name = path;
	return 0;
}

/* Store a top-level or group-member key of the campaign and record where
 * it came from. */
int
config_apply_leaf(struct loader *ld, const struct config_key *k,
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
	case KT_SETS:
		ret = read_sets(ld, k, s, p);
		break;
	case KT_BOOLS:
		ret = read_bools(ld, k, s, p);
		break;
	case KT_STRINGS:
		ret = config_apply_strings(ld, k, s);
		break;
	case KT_ENV:
		ret = config_apply_env(ld, k, s);
		break;
	case KT_MODEL:
		ret = config_apply_model(ld, k, s);
		break;
	case KT_GPUS:
		ret = config_apply_gpus(ld, k, s);
		break;
	case KT_PATTERNS:
		ret = config_apply_patterns(ld, k, s);
		break;
	case KT_CALIBRATION:
		ret = config_apply_calibration(ld, k, s);
		break;
	default:
		ret = store_scalar(ld, k, s, ld->c);
		if (ret == 0 && !strcmp(k->path, "run.template"))
			ret = template_beside_file(ld, k, s);
		break;
	}
	if (ret == 0)
		config_record(ld->c, k->path, config_origin_at(ld, s));
	return ret;
}
