/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-submit.c - 'paratune submit': select candidates and send the
 * first of them to Slurm; 'resume' carries on from there.  Running it
 * again with the same options selects nothing new.  It says what the
 * selection commits in GPU-hours and holds the site's caps on it.
 */
#include "autoconfig.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "calibration-note.h"
#include "cmd.h"
#include "error.h"
#include "owner.h"
#include "report-number.h"
#include "runner.h"
#include "safe-text.h"
#include "search.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_submit_entry;

struct submit_opts {
	int top, include_unsafe, sequential, dry_run, yes;
};

/* What the options select that is not selected yet. */
struct selection {
	struct cand_status **v;
	int n;
	int total;           /* selected in all, earlier submits included */
	int cancelled;       /* of those, cancelled: never queued again */
	double limit_gpu_hours, expected_gpu_hours; /* of the new ones */
	bool base_extra;     /* the base is new, beyond --top's N */
};

/*
 * Whether a candidate is one the options select.  --top N counts the
 * best N safe candidates (or any, with --include-unsafe) in rank order,
 * whether or not an earlier submit already selected them, so that the
 * same command run twice selects nothing new.  The base is always
 * selected, since results measure everything against it; it takes one
 * of the N places when it ranks among them.
 */
static bool
selected(const struct cand_status *c, const struct submit_opts *o,
         int *taken)
{
	if (c->base) {
		if (*taken < o->top)
			(*taken)++;
		return true;
	}
	/* Proved to fit by a completed run (fits): safe now. */
	if (cand_at_risk(c) && !o->include_unsafe)
		return false;
	if (*taken >= o->top)
		return false;
	(*taken)++;
	return true;
}

/* The predicted step time of a candidate, from candidates.csv; 0. */
static double
predicted_step(const struct candidate_table *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return t->v[i].pred_step_s;
	return 0;
}

static int
select_new(struct store *s, const struct submit_opts *o,
           struct selection *sel)
{
	struct candidate_table t;
	int taken = 0;

	if (store_read_candidates(s->dir, &t) != 0)
		return EXIT_DATAERR;
	sel->v = xcalloc((size_t)s->st.n + 1, sizeof(struct cand_status *));
	/* State entries are in rank order (plan writes them so). */
	for (int i = 0; i < s->st.n; i++) {
		struct cand_status *c = &s->st.v[i];
		bool beyond = taken >= o->top;
		bool chosen = selected(c, o, &taken);

		if (c->state != CS_PLANNED)
			sel->total++;
		sel->cancelled += chosen && c->state == CS_CANCELLED;
		if (!chosen || c->state != CS_PLANNED)
			continue;
		sel->v[sel->n++] = c;
		sel->base_extra |= c->base && beyond;
		sel->total++;
		sel->limit_gpu_hours += budget_job_limit(&s->settings);
		sel->expected_gpu_hours += budget_job_expected(&s->settings,
		        predicted_step(&t, c->name));
	}
	candidate_table_release(&t);
	return 0;
}

/* "FILE:LINE" where a policy key was set, for messages. */
static const char *
policy_where(const struct settings *c, const char *key)
{
	const struct origin *o = settings_origin(c, key);

	return o && o->file ? o->file : "the site file";
}

/* The site's caps on what a campaign selects and commits. */
static int
check_caps(const struct store *s, const struct selection *sel)
{
	const struct settings *c = &s->settings;
	struct budget b;

	if (c->policy.max_candidates && sel->total > c->policy.max_candidates) {
		error("%s: this would select %d candidates; "
		      "policy.max_candidates = %d (%s): select fewer with "
		      "--top", s->dir, sel->total,
		      c->policy.max_candidates,
		      policy_where(c, "policy.max_candidates"));
		return EXIT_CONFIG;
	}
	budget_compute(s, (long)time(NULL), &b);
	if (c->policy.max_gpu_hours > 0 &&
	    b.committed + sel->limit_gpu_hours > c->policy.max_gpu_hours) {
		error("%s: this would commit %.1f GPU-hours (%.1f already, %d "
		      "jobs of %.1f at their time limit); "
		      "policy.max_gpu_hours = %g (%s): select fewer with --top "
		      "or shorten limits.max_minutes_per_run", s->dir,
		      b.committed + sel->limit_gpu_hours, b.committed, sel->n,
		      budget_job_limit(c), c->policy.max_gpu_hours,
		      policy_where(c, "policy.max_gpu_hours"));
		return EXIT_CONFIG;
	}
	return 0;
}

/* Whether the adaptive search has stopped: it skips whatever is queued
 * from then on, so a selection commits nothing. */
static bool
search_stopped(const struct store *s)
{
	return s->settings.search.strategy == STRATEGY_ADAPTIVE &&
	       s->st.stop_reason[0];
}

/* " (cost at most $540, about $90)", in the campaign's currency. */
static void
print_cost(FILE *out, const struct settings *c, const struct selection *sel)
{
	const char *currency = c->currency;
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, " (cost at most ");
	report_add_money(&sb, currency,
	                 sel->limit_gpu_hours * c->cost_per_gpu_hour);
	strbuf_addstr(&sb, ", about ");
	report_add_money(&sb, currency,
	                 sel->expected_gpu_hours * c->cost_per_gpu_hour);
	strbuf_addch(&sb, ')');
	fputs(sb.buf, out);
	strbuf_release(&sb);
}

/* Say what the selection commits; on a terminal, a large one needs
 * --yes (policy.confirm_gpu_hours). */
static int
confirm(const struct store *s, const struct selection *sel,
        const struct submit_opts *o, struct cmd_ctx *ctx)
{
	const struct settings *c = &s->settings;
	double need = c->policy.confirm_gpu_hours;

	/* It said "at most N GPU-hours" of jobs that are never submitted. */
	if (sel->n > 0 && search_stopped(s)) {
		if (ctx->verbosity >= 0)
			fprintf(ctx->out, "selecting %d candidate%s, which "
			        "the search skips: it stopped (%s) and runs "
			        "nothing more; nothing is submitted\n", sel->n,
			        sel->n == 1 ? "" : "s", s->st.stop_reason);
		return 0;
	}
	if (sel->n > 0 && ctx->verbosity >= 0) {
		fprintf(ctx->out, "selecting %d candidate%s", sel->n,
		        sel->n == 1 ? "" : "s");
		/* "--top 8" and 9 selected: the base ranks below the 8. */
		if (sel->base_extra)
			fprintf(ctx->out, " (%d best predicted and the base, "
			        "which always runs)", sel->n - 1);
		fprintf(ctx->out, ": at most %.1f GPU-hours at their time "
		        "limits, about %.1f predicted", sel->limit_gpu_hours,
		        sel->expected_gpu_hours);
		if (c->cost_per_gpu_hour > 0)
			print_cost(ctx->out, c, sel);
		fputc('\n', ctx->out);
	}
	if (need > 0 && sel->limit_gpu_hours > need && !o->yes &&
	    !o->dry_run && isatty(STDIN_FILENO)) {
		error("this commits up to %.1f GPU-hours, above "
		      "policy.confirm_gpu_hours = %g: run again with --yes",
		      sel->limit_gpu_hours, need);
		return EXIT_USAGE;
	}
	return 0;
}

static int
queue_selected(struct store *s, const struct selection *sel,
               const struct submit_opts *o, struct cmd_ctx *ctx)
{
	for (int i = 0; i < sel->n; i++) {
		const struct cand_status *c = sel->v[i];

		if (o->dry_run) /* as confirm() said: queued, then skipped */
			safe_text_line(ctx->out, "would queue %s%s%s%s",
			               c->name, c->base ? " (base)" : "",
			               cand_at_risk(c) ? " (oom-risk)" : "",
			               search_stopped(s) ? ", which the "
			               "stopped search then skips" : "");
		else if (store_queue(s, sel->v[i]) != 0)
			return EXIT_IOERR;
	}
	/* A dry run with nothing new to queue says so too: silence read
	 * as a failure to select, or as an empty campaign. */
	/* "already were" (queued) read as waiting still, of a campaign
	 * that had ended: that says where its results are. */
	if (ctx->verbosity >= 0 && sel->n == 0 && store_all_final(&s->st))
		safe_text_line(ctx->out, "%s 0 candidates (all selected ones "
		               "already were, and have ended: 'paratune "
		               "results %s' shows what they measured)",
		               o->dry_run ? "would queue" : "queued", s->dir);
	else if (ctx->verbosity >= 0 && (!o->dry_run || sel->n == 0))
		fprintf(ctx->out, "%s %d candidate%s%s\n",
		        o->dry_run ? "would queue" : "queued", sel->n,
		        sel->n == 1 ? "" : "s",
		        sel->n == 0 ? " (all selected ones already were)" : "");
	/* Cancel is final: say so to whoever submits again after it. */
	if (ctx->verbosity >= 0 && sel->cancelled)
		fprintf(ctx->out, "%d selected candidate%s cancelled and "
		        "%s not queued again (plan the campaign anew to run "
		        "%s)\n", sel->cancelled,
		        sel->cancelled == 1 ? " was" : "s were",
		        sel->cancelled == 1 ? "is" : "are",
		        sel->cancelled == 1 ? "it" : "them");
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
	status = search_step(&r);
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

struct submit_call {
	struct cmd_ctx *ctx;
	const struct submit_opts *o;
	const char *dir;
};

/* Select and submit, as the directory's owner. */
static int
submit_dir(void *arg)
{
	struct submit_call *sc = arg;
	const struct submit_opts *o = sc->o;
	struct selection sel = { NULL, 0, 0, 0, 0, 0, false };
	struct store s;
	int status = store_open_site(&s, sc->dir,
	                             STORE_POLICY | (o->dry_run
	                             ? STORE_READ_ONLY : STORE_LOCK_WAIT),
	                             sc->ctx->site_path);

	if (status != 0)
		return status;
	/* Every job gets its environment from what this first submit saw,
	 * so that cron's resume gives them the same PATH.  A file that
	 * cannot be written (a full disk) costs only that: these jobs get
	 * the environment of now, and a later submit records it. */
	if (!o->dry_run && store_save_env(&s, environ) != 0)
		warning("the environment of the jobs was not recorded: they "
		        "get this submit's");
	/* Said before GPU-hours go to predictions a new plan would
	 * make otherwise. */
	if (sc->ctx->verbosity >= 0)
		calibration_note_dir(sc->dir, &s.settings,
		                     sc->ctx->site_path);
	status = select_new(&s, o, &sel);
	if (status == 0)
		status = check_caps(&s, &sel);
	if (status == 0)
		status = confirm(&s, &sel, o, sc->ctx);
	if (status == 0)
		status = queue_selected(&s, &sel, o, sc->ctx);
	if (status == 0 && !o->dry_run)
		status = submit_due(&s, sc->ctx);
	free(sel.v);
	/* Whatever was journaled is kept; the checkpoint follows it. */
	if (store_close(&s, !o->dry_run) != 0 && status == 0)
		status = EXIT_IOERR;
	return status;
}

static int
cmd_submit_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	/* No --top: every one (0 and negatives are refused, not "all"). */
	struct submit_opts o = { INT_MAX, 0, 0, 0, 0 };
	const struct option opts[] = {
		OPT_INTEGER('n', "top", &o.top, "N",
		            "only the N best predicted (the base always runs)"),
		OPT_BOOLEAN(0, "include-unsafe", &o.include_unsafe,
		            "also run candidates at risk of running "
		            "out of memory"),
		OPT_BOOLEAN(0, "sequential", &o.sequential,
		            "one job at a time"),
		OPT_BOOLEAN(0, "dry-run", &o.dry_run,
		            "print what would be submitted; submit nothing"),
		OPT_BOOLEAN('y', "yes", &o.yes,
		            "commit GPU-hours above policy.confirm_gpu_hours"),
		OPT_FINISH,
	};
	struct submit_call sc = { ctx, &o, NULL };
	int status;

	if (cmd_parse_args(ctx, &cmd_submit_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	if (o.top < 1) {
		error("--top must be at least 1, not %d (without it, every "
		      "safe candidate is selected)", o.top);
		return EXIT_USAGE;
	}
	sc.dir = argv[1];
	return owner_run(sc.dir, submit_dir, &sc);
}

const struct cmd_entry cmd_submit_entry = {
	"submit", NULL, "DIR",
	"select candidates and submit them to Slurm",
	cmd_submit_exec,
	NULL,
};
