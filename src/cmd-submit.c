/*
 * cmd-submit.c - 'paratune submit': select candidates and send the
 * first of them to Slurm; 'resume' carries on from there.  Running it
 * again with the same options selects nothing new.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <unistd.h>

#include "cmd.h"
#include "error.h"
#include "runner.h"

extern const struct cmd_entry cmd_submit_entry;

struct submit_opts {
	int top, include_unsafe, sequential, dry_run;
};

/*
 * Whether a candidate is one the options select.  --top N counts the
 * best N safe candidates (or any, with --include-unsafe) in rank order,
 * whether or not an earlier submit already selected them, so that the
 * same command run twice selects nothing new.
 */
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
queue_selected(struct store *s, const struct submit_opts *o, FILE *out,
               int verbosity)
{
	int taken = 0, queued = 0;

	/* State entries are in rank order (plan writes them so). */
	for (int i = 0; i < s->st.n; i++) {
		struct cand_status *c = &s->st.v[i];

		if (!selected(c, o, &taken) || c->state != CS_PLANNED)
			continue;
		if (o->dry_run)
			fprintf(out, "would queue %s%s%s\n", c->name,
			        c->base ? " (base)" : "",
			        c->unsafe ? " (oom-risk)" : "");
		else if (store_queue(s, c) != 0)
			return EXIT_IOERR;
		queued++;
	}
	if (verbosity >= 0 && !o->dry_run)
		fprintf(out, "queued %d candidate%s%s\n", queued,
		        queued == 1 ? "" : "s",
		        queued == 0 ? " (all selected ones already were)" : "");
	if (o->sequential && !o->dry_run && !s->st.sequential &&
	    store_set_sequential(s) != 0)
		return EXIT_IOERR;
	return 0;
}

/* Poll, then submit what is due; says what becomes of the rest. */
static int
submit_due(struct store *s, struct cmd_ctx *ctx)
{
	struct runner r;
	int status;

	runner_init(&r, s, ctx->out, ctx->verbosity);
	status = runner_poll(&r);
	if (status == 0)
		status = runner_submit_due(&r, false);
	if (status == EXIT_TEMPFAIL) {
		warning("what is queued stays queued: 'paratune resume %s' "
		        "submits it once Slurm answers", s->dir);
	} else if (status == 0 && r.rejected > 0 && r.submitted == 0) {
		error("Slurm rejected every submission (%d)", r.rejected);
		status = EXIT_UNAVAILABLE;
	}
	runner_release(&r);
	return status;
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
	struct store s;
	int status;

	if (cmd_parse_args(ctx, &cmd_submit_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	status = store_open(&s, argv[1], o.dry_run ? STORE_READ_ONLY
	                                           : STORE_LOCK_WAIT);
	if (status != 0)
		return status;
	/* Every job gets its environment from what this first submit saw,
	 * so that cron's resume gives them the same PATH. */
	if (!o.dry_run && store_save_env(&s, environ) != 0)
		status = EXIT_IOERR;
	if (status == 0)
		status = queue_selected(&s, &o, ctx->out, ctx->verbosity);
	if (status == 0 && !o.dry_run)
		status = submit_due(&s, ctx);
	/* Whatever was journaled is kept; the checkpoint follows it. */
	if (store_close(&s, !o.dry_run) != 0 && status == 0)
		status = EXIT_IOERR;
	return status;
}

const struct cmd_entry cmd_submit_entry = {
	"submit", NULL, "DIR [--top N] [--include-unsafe] [--sequential] "
	"[--dry-run]",
	"select candidates and submit them to Slurm",
	cmd_submit_exec,
};
