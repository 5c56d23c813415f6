/*
 * cmd-cancel.c - 'paratune cancel': cancel every job of a campaign and
 * record it, so that resume submits nothing more.
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <stdio.h>

#include "cmd.h"
#include "error.h"
#include "runner.h"

extern const struct cmd_entry cmd_cancel_entry;

static int
cancel_all(struct runner *r)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	for (int i = 0; i < r->st.n && ret == 0; i++) {
		struct cand_status *c = &r->st.v[i];

		if (c->state != CS_QUEUED && !cand_state_active(c->state))
			continue;
		if (c->job_id && r->slurm &&
		    slurm_cancel(r->slurm, c->job_id, &err) != SLURM_E_OK) {
			warning("job %" PRIu32 " of %s: %s", c->job_id, c->name,
			        err.buf);
			strbuf_reset(&err);
		}
		ret = runner_event(r, false, "cancelled", c->name, "job=%" PRIu32,
		                   c->job_id);
		if (ret == 0 && r->verbosity >= 0)
			fprintf(r->out, "%s: cancelled%s\n", c->name,
			        c->job_id ? "" : " (not submitted)");
	}
	strbuf_release(&err);
	return ret ? EXIT_DATAERR : 0;
}

static int
cmd_cancel_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct option opts[] = { OPT_FINISH };
	struct runner r;
	int status;

	if (cmd_parse_args(ctx, &cmd_cancel_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	status = runner_open(&r, argv[1], RUNNER_LOCK_WAIT, ctx->out,
	                     ctx->verbosity);
	if (status != 0)
		return status;
	/* Learn the ids of jobs whose submission was in flight first. */
	status = runner_poll(&r);
	if (status == 0)
		status = cancel_all(&r);
	if (runner_close(&r, true) != 0 && status == 0)
		status = EXIT_IOERR;
	return status;
}

const struct cmd_entry cmd_cancel_entry = {
	"cancel", NULL, "DIR", "cancel every job of a campaign",
	cmd_cancel_exec,
};
