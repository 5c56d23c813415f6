/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-cancel.c - 'paratune cancel': cancel every job of a campaign and
 * record it, so that resume submits nothing more.  A job Slurm was not
 * told to cancel (the controller is down) is not recorded as cancelled.
 */
#include "autoconfig.h"

#include <stdio.h>

#include "cmd.h"
#include "error.h"
#include "owner.h"
#include "runner.h"

extern const struct cmd_entry cmd_cancel_entry;

struct cancel_call {
	struct cmd_ctx *ctx;
	const char *dir;
};

/* Cancel, as the directory's owner: Slurm takes cancels from them. */
static int
cancel_dir(void *arg)
{
	struct cancel_call *cc = arg;
	struct cmd_ctx *ctx = cc->ctx;
	struct store s;
	struct runner r;
	int status = store_open(&s, cc->dir, STORE_LOCK_WAIT);

	if (status != 0)
		return status;
	runner_init(&r, &s, ctx->out, ctx->verbosity);
	/* Learn the ids of jobs whose submission was in flight first. */
	status = runner_poll(&r);
	if (status == 0)
		status = runner_cancel_all(&r);
	runner_release(&r);
	/* "cannot reach Slurm" alone left open whether the campaign was
	 * cancelled: what it did not reach still runs, and resume would
	 * still submit what is queued. */
	if (status == EXIT_TEMPFAIL)
		warning("the campaign is not cancelled, or only in part: "
		        "its jobs may still run and resume still submits "
		        "what is queued; run 'paratune cancel %s' again once "
		        "Slurm answers", cc->dir);
	if (store_close(&s, true) != 0 && status == 0)
		status = EXIT_IOERR;
	return status;
}

static int
cmd_cancel_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct option opts[] = { OPT_FINISH };
	struct cancel_call cc = { ctx, NULL };
	int status;

	if (cmd_parse_args(ctx, &cmd_cancel_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	cc.dir = argv[1];
	return owner_run(cc.dir, cancel_dir, &cc);
}

const struct cmd_entry cmd_cancel_entry = {
	"cancel", NULL, "DIR", "cancel every job of a campaign",
	cmd_cancel_exec,
	NULL,
};
