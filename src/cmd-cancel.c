/*
 * cmd-cancel.c - 'paratune cancel': cancel every job of a campaign and
 * record it, so that resume submits nothing more.  A job Slurm was not
 * told to cancel (the controller is down) is not recorded as cancelled.
 */
#include "autoconfig.h"

#include <stdio.h>

#include "cmd.h"
#include "error.h"
#include "runner.h"

extern const struct cmd_entry cmd_cancel_entry;

static int
cmd_cancel_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct option opts[] = { OPT_FINISH };
	struct store s;
	struct runner r;
	int status;

	if (cmd_parse_args(ctx, &cmd_cancel_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	status = store_open(&s, argv[1], STORE_LOCK_WAIT);
	if (status != 0)
		return status;
	runner_init(&r, &s, ctx->out, ctx->verbosity);
	/* Learn the ids of jobs whose submission was in flight first. */
	status = runner_poll(&r);
	if (status == 0)
		status = runner_cancel_all(&r);
	runner_release(&r);
	if (store_close(&s, true) != 0 && status == 0)
		status = EXIT_IOERR;
	return status;
}

const struct cmd_entry cmd_cancel_entry = {
	"cancel", NULL, "DIR", "cancel every job of a campaign",
	cmd_cancel_exec,
};
