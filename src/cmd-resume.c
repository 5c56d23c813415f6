/*
 * cmd-resume.c - 'paratune resume': the cron entry point.  Takes the
 * campaign's lock without waiting (another holder: nothing to do),
 * polls, submits what is due, and says when the campaign is finished.
 */
#include "autoconfig.h"

#include <stdio.h>

#include "cmd-results.h"
#include "cmd.h"
#include "error.h"
#include "results.h"
#include "runner.h"

extern const struct cmd_entry cmd_resume_entry;

/* Carry one campaign a step further; returns its exit code. */
static int
resume_one(struct cmd_ctx *ctx, const char *dir)
{
	struct runner r;
	int status = runner_open(&r, dir, RUNNER_LOCK_TRY, ctx->out,
	                         ctx->verbosity);
	bool finished = false;

	if (status == 1) {
		if (ctx->verbosity >= 0)
			fprintf(ctx->out, "%s: another paratune is working on "
			        "it\n", dir);
		return EXIT_OK;
	}
	if (status != 0)
		return status;
	status = runner_poll(&r);
	if (status == 0)
		status = runner_submit_due(&r, false);
	if (status == 0 && runner_all_final(&r.st) && r.transitions > 0) {
		struct strbuf sb = STRBUF_INIT;

		runner_progress(&r.st, &sb);
		if (runner_event(&r, false, "finished", NULL, "-") != 0)
			status = EXIT_DATAERR;
		else if (ctx->verbosity >= 0)
			fprintf(ctx->out, "%s: finished: %s\n", dir, sb.buf);
		strbuf_release(&sb);
		finished = status == 0;
	}
	/* Whatever was journaled is kept; the checkpoint follows it. */
	if (runner_close(&r, true) != 0 && status == 0)
		status = EXIT_IOERR;
	/* Collect once, after the lock is released: the results step only
	 * reads the campaign and writes DIR/results. */
	if (finished && status == 0) {
		struct results_opts o = RESULTS_OPTS_INIT;

		status = cmd_results_run(dir, &o, ctx->verbosity >= 0
		                                  ? ctx->out : NULL,
		                         FORMAT_TABLE);
	}
	return status;
}

static int
cmd_resume_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct option opts[] = { OPT_FINISH };
	int status, n, worst = EXIT_OK;

	n = cmd_parse_args(ctx, &cmd_resume_entry, opts, argc, argv, 1, -1,
	                   &status);
	if (n < 0)
		return status;
	for (int i = 1; i <= n; i++) {
		int s = resume_one(ctx, argv[i]);

		/* A broken directory outranks a controller that is down. */
		if (s != EXIT_OK && (worst == EXIT_OK || s == EXIT_DATAERR))
			worst = s;
	}
	return worst;
}

const struct cmd_entry cmd_resume_entry = {
	"resume", NULL, "DIR...",
	"poll, submit what is due and collect (run it from cron)",
	cmd_resume_exec,
};
