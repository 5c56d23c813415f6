/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-config.c - 'paratune config': the merged configuration, each value
 * with the file and line it came from.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "config.h"
#include "error.h"
#include "jobscript.h"
#include "json.h"
#include "strbuf.h"
#include "table.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_config_entry;

/* One table row: key, value, origin. */
static void
add_row(void *arg, const char *key, const char *value,
        const struct origin *origin)
{
	struct table *t = arg;

	table_add(t, "%s", key);
	table_add(t, "%s", value ? value : "-");
	if (origin->file && origin->line > 0)
		table_add(t, "%s:%d", origin->file, origin->line);
	else if (origin->file)
		table_add(t, "%s", origin->file); /* the environment */
	else
		table_add(t, "default");
}

/*
 * run.templates_dir as plan uses it: PARATUNE_TEMPLATES, or the build
 * tree paratune runs from, stands in for the built-in default, which
 * config showed instead with origin "default".
 */
static void
show_templates_dir(struct settings *c)
{
	const char *from;
	char *dir = jobscript_templates_dir(c, &from);

	if (from)
		settings_use_templates_dir(c, dir, from);
	else
		free(dir);
}

/* key, value, origin; then why the model has its size. */
static void
print_table(FILE *out, const struct settings *c)
{
	static const char *const columns[] = { "key", "value", "origin", NULL };
	struct table t;

	table_init(&t, columns);
	settings_each_value(c, add_row, &t);
	table_print(&t, out);
	table_release(&t);
	if (c->size_reason)
		fprintf(out, "\nmodel size: %s\n", c->size_reason);
}

/* The same as JSON (keys documented in paratune(1)). */
static void
print_json(FILE *out, const struct settings *c, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb, true);
	json_begin_object(&j, NULL);
	json_string(&j, "campaign", path);
	json_string(&j, "site_file", c->policy.site_file);
	json_string(&j, "size_reason", c->size_reason);
	settings_write_json(c, &j);
	json_end_object(&j);
	fputs(sb.buf, out);
	strbuf_release(&sb);
}

/* paratune config [CAMPAIGN] [--set KEY=VALUE]... [--format FMT]. */
static int
cmd_config_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct str_list settings = STR_LIST_INIT;
	const struct option opts[] = {
		CONFIG_OPT_SET(&settings),
		OPT_FORMAT_(NULL),
		OPT_FINISH,
	};
	struct settings c;
	const char *path;
	int n, status = EXIT_OK;

	n = cmd_parse_args(ctx, &cmd_config_entry, opts, argc, argv, 0, 1,
	                   &status);
	if (n < 0)
		goto cleanup;
	path = n > 0 ? argv[1] : NULL;
	status = settings_load_for(&c, ctx->site_path, path, &settings);
	if (status == EXIT_OK)
		show_templates_dir(&c);
	if (status == EXIT_OK && ctx->format == FORMAT_JSON)
		print_json(ctx->out, &c, path);
	else if (status == EXIT_OK)
		print_table(ctx->out, &c);
	settings_release(&c);
cleanup:
	str_list_clear(&settings);
	return status;
}

const struct cmd_entry cmd_config_entry = {
	"config", NULL, "[CAMPAIGN]",
	"print the merged configuration with the origin of every value",
	cmd_config_exec,
	NULL,
};
