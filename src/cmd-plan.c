/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-plan.c - 'paratune plan': expand the grid, estimate and rank every
 * candidate, choose the base configuration and write the campaign
 * directory.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"
#include "cmd.h"
#include "config.h"
#include "error.h"
#include "grid.h"
#include "json.h"
#include "nemo-heuristics.h"
#include "plan.h"
#include "safe-text.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_plan_entry;

/* Print one candidate line as plan keeps it.  The step time is the
 * one candidates.csv keeps (four decimals), so that list, which reads
 * that, prints the same figure (2.93549 printed 2.935 here and 2.936
 * there, from 2.9355). */
static void
print_candidate(FILE *f, const struct candidate *c)
{
	safe_text_line(f, "%4d  %-8s %7.1f GiB  %8.3f s  %6.1f TFLOP/s  %s%s",
	               c->rank, memory_status_name(c->est.memory_status),
	               c->est.mem.total / GIB,
	               round(c->est.step_s * 1e4) / 1e4,
	               c->est.tflops_per_gpu, c->name,
	               c->base ? "  (base)" : "");
}

static void
print_json(FILE *f, const struct plan *p, const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb, true);
	json_begin_object(&j, NULL);
	json_string(&j, "directory", dir);
	plan_stats_json(&j, p);
	json_begin_array(&j, "candidates");
	for (int i = 0; i < p->res.n; i++)
		plan_candidate_json(&j, &p->res.v[i],
		                    p->settings.precision);
	json_end_array(&j);
	json_end_object(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

static int
cmd_plan_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *dir = NULL;
	int force = 0, status = EXIT_OK;
	struct str_list settings = STR_LIST_INIT;
	const struct option opts[] = {
		OPT_STR('o', "output", &dir, "DIR",
		        "campaign directory (default: the campaign's name)"),
		OPT_BOOLEAN('f', "force", &force,
		            "replace an existing campaign (or empty) "
		            "directory"),
		OPT_STRLIST('s', "set", &settings, "KEY=VALUE",
		            "override a configuration key (repeatable)"),
		OPT_BOOLEAN(0, "progress", &ctx->progress,
		            "show progress on stderr even when it is not a "
		            "terminal (never with -q)"),
		OPT_FORMAT_(NULL),
		OPT_FINISH,
	};
	struct plan p;
	struct plan_opts po;

	if (cmd_parse_args(ctx, &cmd_plan_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		goto cleanup;
	/* Else the whole plan is built, then its rename to "" fails. */
	if (dir && *dir == '\0') {
		error("option '--output' wants a directory, not ''");
		status = EXIT_USAGE;
		goto cleanup;
	}
	po = PLAN_OPTS(ctx);
	po.searched_only = true;
	status = plan_build(&p, &po, argv[1], &settings);
	if (status != EXIT_OK)
		goto cleanup;
	if (dir == NULL)
		dir = p.settings.name;
	if ((status = store_create(dir, &p.settings, &p.res, p.summary.buf,
	                           force)) != 0) {
		/* store_create said what failed */
	} else if (ctx->format == FORMAT_JSON) {
		print_json(ctx->out, &p, dir);
	} else if (ctx->verbosity >= 0) {
		for (int i = 0; i < p.res.n; i++)
			print_candidate(ctx->out, &p.res.v[i]);
		fprintf(ctx->out, "%s", p.summary.buf);
		safe_text_line(ctx->out, "wrote %s", dir);
	}
	plan_release(&p);
cleanup:
	str_list_clear(&settings);
	return status;
}

const struct cmd_entry cmd_plan_entry = {
	"plan", NULL,
	"CAMPAIGN",
	"expand, estimate and rank the candidates into a campaign directory",
	cmd_plan_exec,
	NULL,
};
