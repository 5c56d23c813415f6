/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-list.c - 'paratune list': the candidates of a campaign directory
 * with their memory status (or the run that proved one fits) and
 * predicted rank.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "owner.h"
#include "store.h"
#include "cmd.h"
#include "error.h"
#include "json.h"
#include "table.h"

extern const struct cmd_entry cmd_list_entry;

/* The prediction as the campaign's last refit corrects it (the plan's
 * own before any). */
static double
pred_now(const struct fit_model *m, const struct candidate_row *r)
{
	return fit_predict(m, &r->layout, r->pred_step_s);
}

/* The completed candidate that proved r fits (a fits event), or NULL. */
static const char *
fits_by(const struct state *st, const struct candidate_row *r)
{
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->v[i].name, r->name))
			return st->v[i].fits_by[0] ? st->v[i].fits_by : NULL;
	return NULL;
}

/* The plan's rank of the candidate called name; 0 when none is. */
static int
rank_of(const struct candidate_table *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return t->v[i].rank;
	return 0;
}

static void
list_table(FILE *f, const struct candidate_table *t, const struct state *st)
{
	const struct fit_model *m = &st->model;
	static const char *const cols[] = { ">rank", ">tp", ">pp", ">cp",
		">ep", ">vp", ">mbs", ">gbs", ">dp", "recompute", ">mem_gib",
		"memory", ">pred_step_s", ">now_step_s", ">tflops", "name",
		NULL };
	struct table tb;

	table_init(&tb, cols);
	for (int i = 0; i < t->n; i++) {
		const struct candidate_row *r = &t->v[i];
		const struct layout *l = &r->layout;

		table_add(&tb, "%d", r->rank);
		table_add(&tb, "%d", l->tp);
		table_add(&tb, "%d", l->pp);
		table_add(&tb, "%d", l->cp);
		table_add(&tb, "%d", l->ep);
		table_add(&tb, "%d", l->vp);
		table_add(&tb, "%d", l->mbs);
		table_add(&tb, "%d", l->gbs);
		table_add(&tb, "%d", l->dp);
		table_add(&tb, "%s", recompute_name(l->recompute));
		table_add(&tb, "%.1f", r->est_memory_gib);
		/* By its rank, the table's first column: names are long. */
		if (fits_by(st, r))
			table_add(&tb, "fits (proved by rank %d)",
			          rank_of(t, fits_by(st, r)));
		else
			table_add(&tb, "%s",
			          memory_status_name(r->memory_status));
		table_add(&tb, "%.3f", r->pred_step_s);
		table_add(&tb, "%.3f", pred_now(m, r));
		table_add(&tb, "%.1f", r->pred_tflops_per_gpu);
		table_add(&tb, "%s%s", r->name, r->base ? " (base)" : "");
	}
	table_print(&tb, f);
	table_release(&tb);
}

static void
list_json(FILE *f, const struct candidate_table *t, const struct state *st)
{
	const struct fit_model *m = &st->model;
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb, true);
	json_begin_array(&j, NULL);
	for (int i = 0; i < t->n; i++) {
		const struct candidate_row *r = &t->v[i];

		json_begin_object(&j, NULL);
		json_int(&j, "rank", r->rank);
		json_string(&j, "name", r->name);
		json_int(&j, "tp", r->layout.tp);
		json_int(&j, "pp", r->layout.pp);
		json_int(&j, "cp", r->layout.cp);
		json_int(&j, "ep", r->layout.ep);
		json_int(&j, "etp", r->layout.etp);
		json_int(&j, "vp", r->layout.vp);
		json_int(&j, "mbs", r->layout.mbs);
		json_int(&j, "gbs", r->layout.gbs);
		json_int(&j, "dp", r->layout.dp);
		json_string(&j, "recompute",
		            recompute_name(r->layout.recompute));
		json_number(&j, "est_memory_gib", r->est_memory_gib);
		json_string(&j, "memory_status",
		            memory_status_name(r->memory_status));
		if (fits_by(st, r))
			json_string(&j, "fits_by", fits_by(st, r));
		else
			json_null(&j, "fits_by");
		json_number(&j, "pred_step_s", r->pred_step_s);
		json_number(&j, "pred_now_step_s", pred_now(m, r));
		json_number(&j, "pred_tflops_per_gpu", r->pred_tflops_per_gpu);
		json_bool(&j, "base", r->base);
		json_end_object(&j);
	}
	json_end_array(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

struct list_call {
	struct cmd_ctx *ctx;
	const char *dir;
};

/* The listing itself, as the directory's owner. */
static int
list_dir(void *arg)
{
	struct list_call *lc = arg;
	struct cmd_ctx *ctx = lc->ctx;
	struct candidate_table t;
	struct store s;
	int status;

	/* Through the store, so that a directory that is not a campaign
	 * is told apart from a damaged one. */
	if ((status = store_open(&s, lc->dir, STORE_READ_ONLY)) != 0)
		return status;
	if (store_read_candidates(s.dir, &t) != 0) {
		store_close(&s, false);
		return EXIT_DATAERR;
	}
	if (ctx->format == FORMAT_JSON)
		list_json(ctx->out, &t, &s.st);
	else
		list_table(ctx->out, &t, &s.st);
	candidate_table_release(&t);
	store_close(&s, false);
	return EXIT_OK;
}

static int
cmd_list_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct option opts[] = { OPT_FORMAT_(NULL), OPT_FINISH };
	struct list_call lc = { ctx, NULL };
	int status;

	if (cmd_parse_args(ctx, &cmd_list_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	lc.dir = argv[1];
	return owner_run(lc.dir, list_dir, &lc);
}

const struct cmd_entry cmd_list_entry = {
	"list", NULL, "DIR",
	"the candidates of a campaign with memory status and predicted rank",
	cmd_list_exec,
	NULL,
};
