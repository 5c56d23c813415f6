/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-parse.c - 'paratune parse LOG...': the log analysis alone, on any
 * files: format, steps, step-time statistics and the failure class with
 * its evidence line.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "error.h"
#include "json.h"
#include "logparse.h"
#include "owner.h"
#include "safe-text.h"
#include "table.h"
#include "util.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_parse_entry;

/* One file's result and whether it could be read.  The steps themselves
 * are freed once the statistics are taken, so that memory does not grow
 * with the number of files. */
struct parse_item {
	struct log_result res;   /* without its steps */
	size_t nsteps;
	struct log_step_stats stats;
	int status;              /* 0, or the exit code it calls for */
};

/* The reader's notes on a file, and step times that measure nothing
 * (left out of the figures and of the steps measured) or another batch
 * (a ramp-up's). */
static void
parse_notes(const struct parse_item *it, struct strbuf *sb)
{
	/* "unknown, 0 steps, none" alone reads as a clean run: an empty
	 * file (a job's output sent elsewhere, a FIFO no one wrote to)
	 * says so.  Not an error: what it says is all there is. */
	if (it->status == 0 && it->res.bytes_read == 0)
		strbuf_addstr(sb, "empty: no byte read");
	log_result_notes(&it->res, &it->stats, sb);
}

/* "12.3" or "-" for a number that is not there. */
static void
cell_number(struct table *t, double v, int digits)
{
	if (isfinite(v))
		table_add(t, "%.*f", digits, v);
	else
		table_add(t, "-");
}

/* The table for people, then the evidence lines and notes. */
static void
parse_table(FILE *f, const struct parse_item *items, int n)
{
	static const char *const cols[] = { "file", "format", ">steps",
		">measured", ">mean_s", ">median_s", ">peak_gib", "failure",
		">line", NULL };
	struct table t;

	table_init(&t, cols);
	for (int i = 0; i < n; i++) {
		const struct log_result *r = &items[i].res;

		table_add(&t, "%s", r->name);
		table_add(&t, "%s", log_format_name(r->format));
		table_add(&t, "%zu", items[i].nsteps);
		table_add(&t, "%d", items[i].stats.counted);
		cell_number(&t, items[i].stats.mean_s, 3);
		cell_number(&t, items[i].stats.median_s, 3);
		cell_number(&t, r->mem_peak_gib, 1);
		table_add(&t, "%s", items[i].status ? "(unreadable)"
		                    : failure_class_name(r->failure));
		if (r->evidence.text)
			table_add(&t, "%ld", r->evidence.line);
		else
			table_add(&t, "-");
	}
	table_print(&t, f);
	table_release(&t);
	/* Evidence as grep -n prints it: the file, the line, the text;
	 * both from the user's files, so escaped. */
	for (int i = 0; i < n; i++) {
		const struct log_result *r = &items[i].res;
		struct strbuf notes = STRBUF_INIT, line = STRBUF_INIT;

		if (r->evidence.text) {
			safe_text_append(&line, r->name);
			strbuf_addf(&line, ":%ld: ", r->evidence.line);
			safe_text_append(&line, r->evidence.text);
			fprintf(f, "%s\n", line.buf);
			strbuf_reset(&line);
		}
		parse_notes(&items[i], &notes);
		if (notes.len) {
			safe_text_append(&line, r->name);
			strbuf_addstr(&line, ": note: ");
			safe_text_append(&line, notes.buf);
			fprintf(f, "%s\n", line.buf);
		}
		strbuf_release(&line);
		strbuf_release(&notes);
	}
}

/* One file as a JSON object. */
static void
parse_json_item(struct json *j, const struct parse_item *it)
{
	const struct log_result *r = &it->res;
	struct strbuf notes = STRBUF_INIT;

	json_begin_object(j, NULL);
	json_string(j, "file", r->name);
	json_string(j, "format", log_format_name(r->format));
	json_int(j, "steps", (long long)it->nsteps);
	json_int(j, "measured_steps", it->stats.counted);
	json_number(j, "step_time_mean_s", it->stats.mean_s);
	json_number(j, "step_time_median_s", it->stats.median_s);
	json_number(j, "step_time_stdev_s", it->stats.stdev_s);
	json_number(j, "tokens_per_s_per_gpu_median",
	            it->stats.tokens_per_s_median);
	/* What the statistics were taken at, when the log says. */
	if (it->stats.gbs > 0)
		json_int(j, "global_batch_size", it->stats.gbs);
	else
		json_null(j, "global_batch_size");
	/* steps counts the records a log kept (one in ten at
	 * --log-interval 10): the step reached is another figure. */
	if (it->res.last_step >= 0)
		json_int(j, "last_step", it->res.last_step);
	else
		json_null(j, "last_step");
	if (r->total_steps >= 0)
		json_int(j, "total_steps", r->total_steps);
	else
		json_null(j, "total_steps");
	json_bool(j, "finished", r->finished);
	json_number(j, "mem_peak_gib", r->mem_peak_gib);
	json_begin_object(j, "failure");
	json_string(j, "class", failure_class_name(r->failure));
	if (r->evidence.text) {
		json_int(j, "line", r->evidence.line);
		json_string(j, "evidence", r->evidence.text);
	} else {
		json_null(j, "line");
		json_null(j, "evidence");
	}
	json_end_object(j);
	parse_notes(it, &notes);
	if (it->status)
		json_string(j, "error", "cannot be read");
	if (notes.len)
		json_string(j, "notes", notes.buf);
	json_end_object(j);
	strbuf_release(&notes);
}

/* The JSON array, one object per file. */
static void
parse_json(FILE *f, const struct parse_item *items, int n)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb, true);
	json_begin_array(&j, NULL);
	for (int i = 0; i < n; i++)
		parse_json_item(&j, &items[i]);
	json_end_array(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

/*
 * The log at path into *res, "-" standing for the standard input as in
 * cat and grep ('zcat run.log.gz | paratune parse -').  0, EXIT_NOINPUT
 * when it cannot be read, EXIT_NOPERM when root refuses it: a log in a
 * user's directory can be that user's link to root's files, or a FIFO
 * the user holds open.
 */
static int
read_log(struct logparse *lp, const char *path, struct log_result *res)
{
	int held;

	if (!strcmp(path, "-"))
		return logparse_stream(lp, stdin, "(standard input)", res) != 0
		       ? EXIT_NOINPUT : 0;
	if ((held = owner_root_path(path)) != 0) {
		logparse_result_empty(lp, path, res);
		return held;
	}
	return logparse_file(lp, path, res) != 0 ? EXIT_NOINPUT : 0;
}

/* Whether the file at path starts as gzip's files do (1f 8b). */
static bool
gzip_file(const char *path)
{
	unsigned char magic[2];
	FILE *f = strcmp(path, "-") ? fopen_regular(path) : NULL;
	bool gz;

	if (f == NULL)
		return false;
	gz = fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f &&
	     magic[1] == 0x8b;
	fclose(f);
	return gz;
}

/*
 * A file with NUL bytes and no step is no training log: said, and
 * EXIT_DATAERR, as watch says it.  Its row reads "unknown, 0 steps,
 * none", which alone looked like a clean run.
 */
static int
not_a_log(const char *path, const struct log_result *r)
{
	if (r->nul_bytes == 0 || r->nsteps > 0)
		return 0;
	if (gzip_file(path))
		error("'%s' is compressed (gzip): decompress it into 'paratune "
		      "parse -' (zcat %s | paratune parse -)", path, path);
	else
		error("'%s' is not a training log: NUL byte at offset %lld "
		      "and no step", path, r->first_nul_offset);
	return EXIT_DATAERR;
}

/* Read every file; 0, or the exit code of the last that could not be
 * read, EXIT_NOPERM before any other. */
static int
parse_files(struct parse_item *items, int n, char **paths, int skip)
{
	struct logparse lp;
	int status = EXIT_OK;

	logparse_init(&lp);
	for (int i = 0; i < n; i++) {
		struct parse_item *it = &items[i];

		it->status = read_log(&lp, paths[i], &it->res);
		if (it->status == 0)
			it->status = not_a_log(paths[i], &it->res);
		if (it->status != 0 && status != EXIT_NOPERM)
			status = it->status;
		log_result_step_stats(&it->res, skip, &it->stats);
		it->nsteps = it->res.nsteps;
		free(it->res.steps);
		it->res.steps = NULL;
		it->res.nsteps = it->res.alloc_steps = 0;
	}
	logparse_release(&lp);
	return status;
}

/* paratune parse LOG... */
static int
cmd_parse_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	int skip = OPT_INT_UNSET, min_steps = 1, status, n;
	const struct option opts[] = {
		OPT_FORMAT_(NULL),
		OPT_INTEGER(0, "skip-steps", &skip, "N",
		            "warm-up steps dropped (default -1: 10 %, at "
		            "least 1)"),
		OPT_INTEGER(0, "min-steps", &min_steps, "N",
		            "measured steps needed for a step time "
		            "(default 1)"),
		OPT_FINISH,
	};
	struct parse_item *items;

	n = cmd_parse_args(ctx, &cmd_parse_entry, opts, argc, argv, 1, -1,
	                   &status);
	if (n < 0)
		return status;
	if (skip < -1 && skip != OPT_INT_UNSET) {
		error("--skip-steps must be -1 (the default) or more, not %d",
		      skip);
		return EXIT_USAGE;
	}
	if (min_steps < 0) {
		error("--min-steps must be 0 or more, not %d", min_steps);
		return EXIT_USAGE;
	}
	if (skip == OPT_INT_UNSET)
		skip = -1; /* the default warm-up, as results.skip_steps */
	items = xcalloc((size_t)n, sizeof(*items));
	status = parse_files(items, n, argv + 1, skip);
	/* The tokens/s median is taken over the same too few steps: a
	 * figure of them beside blank step times read as measured. */
	for (int i = 0; i < n; i++)
		if (items[i].stats.counted < min_steps) {
			items[i].stats.mean_s = items[i].stats.median_s = NAN;
			items[i].stats.stdev_s = NAN;
			items[i].stats.tokens_per_s_median = NAN;
		}
	if (ctx->format == FORMAT_JSON)
		parse_json(ctx->out, items, n);
	else
		parse_table(ctx->out, items, n);
	for (int i = 0; i < n; i++)
		log_result_release(&items[i].res);
	free(items);
	return status;
}

const struct cmd_entry cmd_parse_entry = {
	"parse", NULL, "LOG...",
	"read training logs: format, steps, step time, failure and evidence",
	cmd_parse_exec,
	NULL,
};
