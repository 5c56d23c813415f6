/*
 * cmd-submit.c - 'paratune submit': select candidates and send the
 * first of them to Slurm; 'resume' carries on from there.
 */
#include "autoconfig.h"

#include <stdio.h>

#include "cmd.h"
#include "error.h"
#include "runner.h"

extern const struct cmd_entry cmd_submit_entry;

struct submit_opts {
	int top, include_unsafe, sequential, dry_run;
};

/* Whether a planned candidate is selected by the options. */
static bool
selected(const struct cand_status *c, const struct submit_opts *o,
         int *taken)
{
	if (c->base)
		return true; /* results measure everything against it */
	if (c->unsafe && !o->include_unsafe)
		return false;
	if (o->top > 0 && *taken >= o->top)
		return false;
	(*taken)++;
	return true;
}

static int
queue_selected(struct runner *r, const struct submit_opts *o)
{
	int taken = 0, queued = 0;

	/* State entries are in rank order (plan writes them so). */
	for (int i = 0; i < r->st.n; i++) {
		struct cand_status *c = &r->st.v[i];

		if (c->state != CS_PLANNED || !selected(c, o, &taken))
			continue;
		if (o->dry_run) {
			fprintf(r->out, "would queue %s%s%s\n", c->name,
			        c->base ? " (base)" : "",
			        c->unsafe ? " (oom-risk)" : "");
		} else if (runner_event(r, false, "queued", c->name, "-") != 0) {
			return EXIT_DATAERR;
		}
		queued++;
	}
	if (r->verbosity >= 0 && !o->dry_run)
		fprintf(r->out, "queued %d candidates\n", queued);
	if (o->sequential && !o->dry_run &&
	    runner_event(r, false, "policy", NULL, "sequential=1") != 0)
		return EXIT_DATAERR;
	return 0;
}

static int
cmd_submit_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct submit_opts o = { 0, 0, 0, 0 };
	const struct option opts[] = {
		OPT_INTEGER('n', "top", &o.top, "N",
		            "only the N best predicted (the base always runs)"),
		OPT_BOOLEAN(0, "include-unsafe", &o.include_unsafe,
		            "also run candidates at risk of running out of memory"),
		OPT_BOOLEAN(0, "sequential", &o.sequential,
		            "one job at a time"),
		OPT_BOOLEAN(0, "dry-run", &o.dry_run,
		            "print what would be submitted; submit nothing"),
		OPT_FINISH,
	};
	struct runner r;
	int status;

	if (cmd_parse_args(ctx, &cmd_submit_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	status = runner_open(&r, argv[1], o.dry_run ? RUNNER_READ_ONLY
	                                            : RUNNER_LOCK_WAIT,
	                     ctx->out, ctx->verbosity);
	if (status != 0)
		return status;
	status = queue_selected(&r, &o);
	if (status == 0 && o.dry_run) {
		runner_close(&r, false);
		return EXIT_OK;
	}
	if (status == 0)
		status = runner_poll(&r);
	if (status == 0)
		status = runner_submit_due(&r, false);
	if (runner_close(&r, true) != 0 && status == 0)
		status = EXIT_IOERR;
	return status;
}

const struct cmd_entry cmd_submit_entry = {
	"submit", NULL, "DIR [--top N] [--include-unsafe] [--sequential] "
	"[--dry-run]",
	"select candidates and submit them to Slurm",
	cmd_submit_exec,
};
