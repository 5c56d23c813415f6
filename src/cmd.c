/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* cmd.c - command lookup and option parsing from option tables. */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "strbuf.h"
#include "strlist.h"
#include "error.h"
#include "util.h"

extern const struct cmd_entry cmd_models_entry, cmd_gpus_entry,
	cmd_size_entry, cmd_estimate_entry, cmd_plan_entry, cmd_list_entry,
	cmd_config_entry, cmd_parse_entry, cmd_submit_entry, cmd_resume_entry,
	cmd_status_entry, cmd_cancel_entry, cmd_results_entry,
	cmd_watch_entry, cmd_calibrate_entry;

const struct cmd_entry *const cmd_table[] = {
	&cmd_models_entry,
	&cmd_gpus_entry,
	&cmd_size_entry,
	&cmd_estimate_entry,
	&cmd_plan_entry,
	&cmd_list_entry,
	&cmd_submit_entry,
	&cmd_status_entry,
	&cmd_resume_entry,
	&cmd_cancel_entry,
	&cmd_results_entry,
	&cmd_calibrate_entry,
	&cmd_watch_entry,
	&cmd_parse_entry,
	&cmd_config_entry,
	NULL,
};

const struct cmd_entry *
cmd_find(const char *name, bool *ambiguous)
{
	const struct cmd_entry *found = NULL;
	size_t len = strlen(name);

	*ambiguous = false;
	for (int i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];

		if (!strcmp(e->name, name) ||
		    (e->alias && !strcmp(e->alias, name)))
			return e;
	}
	for (int i = 0; cmd_table[i] && len > 0; i++) {
		if (strncmp(cmd_table[i]->name, name, len) != 0)
			continue;
		if (found) {
			*ambiguous = true;
			return NULL;
		}
		found = cmd_table[i];
	}
	return found;
}

void
cmd_ambiguous(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(name);

	for (int i = 0; cmd_table[i]; i++)
		if (!strncmp(cmd_table[i]->name, name, len))
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "",
			            cmd_table[i]->name);
	error("ambiguous command '%s': %s (see 'paratune --help')", name,
	      sb.buf);
	strbuf_release(&sb);
}

void
cmd_synopsis(struct strbuf *sb, const struct cmd_entry *entry,
             const struct option *opts)
{
	strbuf_addf(sb, "usage: paratune %s", entry->name);
	if (entry->synopsis) {
		strbuf_addf(sb, " %s", entry->synopsis);
		return;
	}
	if (entry->args)
		strbuf_addf(sb, " %s", entry->args);
	for (const struct option *o = opts; o->type != OPT_END; o++) {
		strbuf_addstr(sb, " [");
		if (o->short_name)
			strbuf_addf(sb, "-%c|", o->short_name);
		strbuf_addf(sb, "--%s", o->long_name);
		if (o->argh)
			strbuf_addf(sb, " %s", o->argh);
		strbuf_addch(sb, ']');
		if (o->type == OPT_STRINGS)
			strbuf_addstr(sb, "...");
	}
}

/* The synopsis to f, as usage errors end. */
static void
print_synopsis(FILE *f, const struct cmd_entry *entry,
               const struct option *opts)
{
	struct strbuf sb = STRBUF_INIT;

	cmd_synopsis(&sb, entry, opts);
	fprintf(f, "%s\n", sb.buf);
	strbuf_release(&sb);
}

void
cmd_usage(FILE *f, const struct cmd_entry *entry, const struct option *opts)
{
	print_synopsis(f, entry, opts);
	fprintf(f, "\n%s\n\n", entry->summary);
	for (const struct option *o = opts; o->type != OPT_END; o++) {
		char left[64];
		int n;

		if (o->short_name)
			n = snprintf(left, sizeof left, "-%c, --%s",
			             o->short_name, o->long_name);
		else
			n = snprintf(left, sizeof left, "    --%s",
			             o->long_name);
		if (o->argh && n > 0 && (size_t)n < sizeof left)
			snprintf(left + n, sizeof left - (size_t)n, " %s",
			         o->argh);
		/* Too wide for the column: the help goes below, as in
		 * git's usage, rather than running into the option. */
		if (strlen(left) > 28)
			fprintf(f, "  %s\n  %-28s %s\n", left, "", o->help);
		else
			fprintf(f, "  %-28s %s\n", left, o->help);
	}
	fprintf(f, "  %-28s %s\n", "-h, --help", "show this help and exit");
	fprintf(f, "\nglobal options, here or before the command:\n"
	           "  %-28s %s\n  %-28s %s\n  %-28s %s\n",
	           "    --site FILE", "site configuration file",
	           "-q, --quiet", "print only errors, warnings and reports",
	           "-v, --verbose", "print more detail");
}

static const struct option *
find_long(const struct option *opts, const char *name, size_t len)
{
	for (const struct option *o = opts; o->type != OPT_END; o++)
		if (strlen(o->long_name) == len &&
		    !strncmp(o->long_name, name, len))
			return o;
	return NULL;
}

static const struct option *
find_short(const struct option *opts, char c)
{
	for (const struct option *o = opts; o->type != OPT_END; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

/*
 * -q (v = -1) or -v (v = 1) into ctx->verbosity; 0, or -1 after an error
 * when the other one was given, before the command or after it: the
 * last one won without a word, and a cron line with both printed what
 * it had asked not to.
 */
static int
set_verbosity(struct cmd_ctx *ctx, int v)
{
	if (ctx->verbosity == -v)
		return error("-q and -v together: give one");
	ctx->verbosity = v;
	return 0;
}

/*
 * The global options (--site FILE, -q, -v), which paratune.c reads
 * before the command and every command reads after it too, unless it
 * has an option of the same name.  1 or 2 words used, 0 when a is none.
 */
static int
parse_global(struct cmd_ctx *ctx, const char *a, const char *next)
{
	if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
		return set_verbosity(ctx, -1) ? -1 : 1;
	if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
		return set_verbosity(ctx, 1) ? -1 : 1;
	if (!strncmp(a, "--site=", 7)) {
		if (a[7] == '\0')
			return error("option '--site' needs a value");
		ctx->site_path = a + 7;
		return 1;
	}
	if (!strcmp(a, "--site")) {
		if (next == NULL)
			return error("option '--site' needs a value");
		ctx->site_path = next;
		return 2;
	}
	return 0;
}

/* Whether the word a names one of the command's own options, which a
 * global option of the same name does not shadow. */
static bool
own_option(const struct option *opts, const char *a)
{
	size_t len;

	if (a[1] != '-')
		return a[2] == '\0' && find_short(opts, a[1]) != NULL;
	len = strcspn(a + 2, "=");
	return find_long(opts, a + 2, len) != NULL;
}

/*
 * --format FMT into ctx->format: table or json, and csv only for a
 * command that writes it (OPT_FORMAT_CSV); the others printed a table
 * for csv and succeeded.  0, or -1 after naming the ones it takes.
 */
static int
set_format(struct cmd_ctx *ctx, bool csv, const char *arg)
{
	if (!strcmp(arg, "table"))
		ctx->format = FORMAT_TABLE;
	else if (!strcmp(arg, "json"))
		ctx->format = FORMAT_JSON;
	else if (csv && !strcmp(arg, "csv"))
		ctx->format = FORMAT_CSV;
	else
		return error("unknown format '%s' (%s)", arg,
		             csv ? "table, csv or json" : "table or json");
	return 0;
}

/* An integer option's value; 0 or -1 after an error message. */
static int
set_int(const struct option *o, const char *arg)
{
	int ret = parse_int(arg, (int *)o->value);

	/* OPT_INT_UNSET is "not given": no one types -2^31. */
	if (ret == 0 && *(int *)o->value == OPT_INT_UNSET)
		ret = -2;
	/* No option takes what an int cannot hold: the option's own range
	 * is said where its value is checked; an int's would mislead. */
	if (ret == -2)
		return error("option '--%s': %s is out of range", o->long_name,
		             arg);
	if (ret != 0)
		return error("option '--%s' wants an integer, not '%s'",
		             o->long_name, arg);
	return 0;
}

/* A number option's value; 0 or -1 after an error message. */
static int
set_double(const struct option *o, const char *arg)
{
	int ret = parse_double(arg, (double *)o->value);

	if (ret == -2)
		return error("option '--%s': %s is out of range (0, or a "
		             "magnitude from 2.2e-308 to 1.8e+308)",
		             o->long_name, arg);
	if (ret != 0)
		return error("option '--%s' wants a number, not '%s'",
		             o->long_name, arg);
	return 0;
}

/* Store one option's value; returns 0 or -1 after an error message. */
static int
set_option(struct cmd_ctx *ctx, const struct option *o, const char *arg)
{
	switch (o->type) {
	case OPT_BOOL:
		*(int *)o->value = 1;
		return 0;
	case OPT_INT:
		return set_int(o, arg);
	case OPT_DOUBLE:
		return set_double(o, arg);
	case OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_STRINGS:
		str_list_push((struct str_list *)o->value, arg);
		return 0;
	case OPT_FORMAT:
	case OPT_FORMAT_CSV:
		return set_format(ctx, o->type == OPT_FORMAT_CSV, arg);
	case OPT_END:
		break;
	}
	bug("option type %d", (int)o->type);
}

/* Handle one "--name[=value]" word; returns how many words it used. */
static int
parse_long(struct cmd_ctx *ctx, const struct option *opts, int argc,
           char **argv, int i)
{
	const char *name = argv[i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *o = find_long(opts, name, len);

	if (o == NULL)
		return error("unknown option '--%.*s'", (int)len, name);
	if (o->type == OPT_BOOL) {
		if (eq)
			return error("option '--%s' takes no value",
			             o->long_name);
		return set_option(ctx, o, NULL) ? -1 : 1;
	}
	if (eq)
		return set_option(ctx, o, eq + 1) ? -1 : 1;
	if (i + 1 >= argc)
		return error("option '--%s' needs a value", o->long_name);
	return set_option(ctx, o, argv[i + 1]) ? -1 : 2;
}

/* Handle one "-x[value]" word; returns how many words it used. */
static int
parse_short(struct cmd_ctx *ctx, const struct option *opts, int argc,
            char **argv, int i)
{
	const char *p = argv[i] + 1;

	for (; *p; p++) {
		const struct option *o = find_short(opts, *p);

		/* -q and -v are taken here too, in a word with the
		 * command's own ("-fq"), as they are alone (parse_global). */
		if (o == NULL && (*p == 'q' || *p == 'v')) {
			if (set_verbosity(ctx, *p == 'q' ? -1 : 1) != 0)
				return -1;
			continue;
		}
		if (o == NULL)
			return error("unknown option '-%c'", *p);
		if (o->type == OPT_BOOL) {
			set_option(ctx, o, NULL);
			continue;
		}
		if (p[1])
			return set_option(ctx, o, p + 1) ? -1 : 1;
		if (i + 1 >= argc)
			return error("option '-%c' needs a value", *p);
		return set_option(ctx, o, argv[i + 1]) ? -1 : 2;
	}
	return 1;
}

static bool
is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int
cmd_parse_options(struct cmd_ctx *ctx, const struct cmd_entry *entry,
                  const struct option *opts, int argc, char **argv)
{
	int npos = 0;
	bool only_pos = false;

	for (int i = 1; i < argc;) {
		const char *a = argv[i];
		int used;

		if (only_pos || a[0] != '-' || a[1] == '\0') {
			argv[1 + npos++] = argv[i++];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = true;
			i++;
			continue;
		}
		if (is_help(a)) {
			cmd_usage(ctx->out, entry, opts);
			return CMD_HELP;
		}
		used = own_option(opts, a) ? 0
		       : parse_global(ctx, a,
		                      i + 1 < argc ? argv[i + 1] : NULL);
		if (used == 0)
			used = a[1] == '-'
			       ? parse_long(ctx, opts, argc, argv, i)
			       : parse_short(ctx, opts, argc, argv, i);
		if (used < 0) {
			print_synopsis(stderr, entry, opts);
			return -1;
		}
		i += used;
	}
	return npos;
}

int
cmd_parse_args(struct cmd_ctx *ctx, const struct cmd_entry *entry,
               const struct option *opts, int argc, char **argv,
               int min_args, int max_args, int *status)
{
	int n = cmd_parse_options(ctx, entry, opts, argc, argv);

	if (n == CMD_HELP) {
		*status = EXIT_OK;
		return -1;
	}
	if (n < 0) {
		*status = EXIT_USAGE;
		return -1;
	}
	if (n < min_args || (max_args >= 0 && n > max_args)) {
		error("'%s' takes %s", entry->name,
		      entry->args ? entry->args : "no arguments");
		print_synopsis(stderr, entry, opts);
		*status = EXIT_USAGE;
		return -1;
	}
	return n;
}

int
cmd_check_site(const struct cmd_ctx *ctx)
{
	struct settings c;
	int status;

	if (ctx->site_path == NULL)
		return EXIT_OK;
	status = settings_load_site(&c, ctx->site_path);
	settings_release(&c);
	return status;
}
