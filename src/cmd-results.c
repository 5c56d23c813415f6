/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-results.c - 'paratune results DIR': which configuration to train
 * with, how much faster and cheaper it is than the base, and why every
 * other candidate lost or failed; writes DIR/results/.
 *
 * results.c measures and ranks, results-write.c and report*.c make the
 * text of each file; this file decides what is written where and what is
 * printed, and the exit code.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "calibration-note.h"
#include "cmd-results.h"
#include "config.h"
#include "error.h"
#include "owner.h"
#include "report.h"
#include "safe-text.h"
#include "util.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_results_entry;

/* ---- DIR/results/ -------------------------------------------------------- */

/* Create DIR/results, or use it when it is a real directory: a symbolic
 * link planted there would send the files elsewhere. */
static int
results_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return error_errno("cannot create '%s'", path);
	if (lstat(path, &st) != 0)
		return error_errno("cannot examine '%s'", path);
	if (S_ISLNK(st.st_mode))
		return error("'%s' is a symbolic link: refusing to write "
		             "through it (remove it and run again)", path);
	if (!S_ISDIR(st.st_mode))
		return error("'%s' exists and is not a directory", path);
	return 0;
}

/* Write one file of DIR/results/ atomically. */
static int
write_one(const char *dir, const char *name, const struct strbuf *sb)
{
	char *path = xasprintf("%s/%s", dir, name);
	int ret = write_file_atomic(path, sb->buf, sb->len, 0644);

	free(path);
	return ret;
}

/* Write every file of DIR/results/. */
int
cmd_results_write_files(const struct results *res, const char *summary)
{
	static const char *const csv_names[] = { "results.csv", "oom.csv",
		"failed.csv" };
	char *dir = xasprintf("%s/results", res->run.dir);
	struct strbuf sb = STRBUF_INIT;
	int ret = results_dir(dir);

	for (int f = 0; ret == 0 && f < 3; f++) {
		strbuf_setlen(&sb, 0);
		results_csv(res, (enum results_file)f, &sb);
		ret = write_one(dir, csv_names[f], &sb);
	}
	if (ret == 0) {
		strbuf_setlen(&sb, 0);
		strbuf_addstr(&sb, summary);
		ret = write_one(dir, "summary.txt", &sb);
	}
	if (ret == 0) {
		strbuf_setlen(&sb, 0);
		report_svg(res, &sb);
		ret = write_one(dir, "chart.svg", &sb);
	}
	if (ret == 0) {
		strbuf_setlen(&sb, 0);
		report_html(res, summary, &sb);
		ret = write_one(dir, "report.html", &sb);
	}
	strbuf_release(&sb);
	free(dir);
	return ret;
}

/* ---- the command --------------------------------------------------------- */

/* "wrote DIR/results/: ...", the directory's control characters spelled
 * out: root's cron collects users' campaigns. */
static void
add_wrote(struct strbuf *sb, const char *dir)
{
	strbuf_addstr(sb, "\nwrote ");
	safe_text_append(sb, dir);
	strbuf_addstr(sb, "/results/: results.csv, oom.csv, failed.csv, "
	              "summary.txt, chart.svg, report.html\n");
}

/* Load, write DIR/results/ and print in the format asked. */
int
cmd_results_run(const char *dir, const struct results_opts *o, FILE *out,
                enum output_format format)
{
	struct results res;
	struct strbuf summary = STRBUF_INIT, sb = STRBUF_INIT;
	int status = results_load(&res, dir, o), mfu;

	if (status != 0)
		goto cleanup;
	if (o->layers)
		calibration_note_stale(dir, &res.run.settings, o->layers);
	report_summary(&res, o->top, &summary);
	mfu = report_mfu_impossible_count(&res);
	/* Said on stderr too: --format json and csv print no summary. */
	if (mfu > 0)
		warning("%d measured candidate%s of '%s' show%s an MFU above "
		        "100 %%, more than the GPU's dense peak: not "
		        "recommended (the note in results.csv says why)", mfu,
		        mfu == 1 ? "" : "s", res.run.dir, mfu == 1 ? "s" : "");
	if (cmd_results_write_files(&res, summary.buf) != 0)
		status = EXIT_CANTCREAT;
	if (format == FORMAT_JSON)
		results_json(&res, &sb);
	else if (format == FORMAT_CSV)
		results_csv(&res, RESULTS_CSV, &sb);
	else
		strbuf_addstr(&sb, summary.buf);
	if (format == FORMAT_TABLE && status == 0)
		add_wrote(&sb, res.run.dir);
	if (out) /* resume -q collects silently */
		fwrite(sb.buf, 1, sb.len, out);
	/* Like cp -r: everything readable is written, then the command
	 * fails, so root's cron does not take a partial table for a whole
	 * one.  Each log was named on stderr when it was met. */
	if (res.unreadable > 0 && status == 0) {
		error("%d log%s or run director%s of '%s' could not be read "
		      "(named above): the results count only what the others "
		      "said", res.unreadable, res.unreadable == 1 ? "" : "s",
		      res.unreadable == 1 ? "y" : "ies", res.run.dir);
		status = EXIT_DATAERR;
	}
cleanup:
	strbuf_release(&sb);
	strbuf_release(&summary);
	results_release(&res);
	return status;
}

struct results_call {
	const char *dir;
	const struct results_opts *o;
	struct cmd_ctx *ctx;
};

/* cmd_results_run as the directory's owner (owner.h), with the site's
 * caps as they are now: whether one holds queued candidates back. */
static int
results_as_owner(void *arg)
{
	struct results_call *rc = arg;
	struct results_opts o = *rc->o;
	struct settings site, layers;
	bool noted = false;
	int status;

	if (settings_load_site(&site, rc->ctx->site_path) == 0) {
		o.site = &site;
		/* With the site read only: else its error came twice. */
		noted = rc->ctx->verbosity >= 0 &&
		        settings_load_for(&layers, rc->ctx->site_path, NULL,
		                          NULL) == 0;
	}
	if (noted)
		o.layers = &layers;
	status = cmd_results_run(rc->dir, &o, rc->ctx->out, rc->ctx->format);
	if (noted)
		settings_release(&layers);
	settings_release(&site);
	return status;
}

/* 0 when --cost-per-gpu-hour (NAN: not given) is within the range of
 * the key it overrides; 1e308 was taken, and every cost became
 * infinite and vanished from the summary. */
static int
check_cost(double cost)
{
	double lo, hi;

	if (isnan(cost))
		return 0;
	if (!config_key_range("cost_per_gpu_hour", &lo, &hi))
		bug("cost_per_gpu_hour is no number key");
	if (cost < lo)
		error("--cost-per-gpu-hour must be %g or more, not %g", lo,
		      cost);
	else if (cost > hi)
		error("--cost-per-gpu-hour must be at most %g, as the key "
		      "cost_per_gpu_hour, not %.15g", hi, cost);
	else
		return 0;
	return EXIT_USAGE;
}

/* Parse the options and run cmd_results_run. */
static int
cmd_results_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct results_opts o = RESULTS_OPTS_INIT;
	double cost = NAN;  /* stays NAN unless the option is given */
	int status;
	const struct option opts[] = {
		OPT_INTEGER(0, "top", &o.top, "N",
		            "rows of the top table, and of failures when over "
		            "20 (default 10; 0: all)"),
		OPT_NUMBER(0, "cost-per-gpu-hour", &cost, "X",
		           "price of one GPU-hour (default: the campaign's "
		           "cost_per_gpu_hour)"),
		OPT_STR(0, "currency", &o.currency, "SYMBOL",
		        "currency of costs (default: the campaign's "
		        "currency, $)"),
		OPT_FORMAT_WITH_CSV("output format: table, csv (results.csv) "
		                    "or json"),
		OPT_FINISH,
	};

	if (cmd_parse_args(ctx, &cmd_results_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	if (o.top < 0) {
		error("--top must be 0 (all) or more, not %d", o.top);
		return EXIT_USAGE;
	}
	if (check_cost(cost) != 0)
		return EXIT_USAGE;
	if (o.currency && !config_valid_currency(o.currency)) {
		error("--currency '%s' is not a currency symbol (1 to %d "
		      "bytes of printable UTF-8 text)", o.currency,
		      CURRENCY_MAX);
		return EXIT_USAGE;
	}
	if (!isnan(cost))
		o.cost_per_gpu_hour = cost;
	{
		struct results_call rc = { argv[1], &o, ctx };

		return owner_run(argv[1], results_as_owner, &rc);
	}
}

const struct cmd_entry cmd_results_entry = {
	"results", NULL, "DIR",
	"what the campaign measured: best configuration, speed-up, cost, "
	"failures",
	cmd_results_exec,
	NULL,
};
