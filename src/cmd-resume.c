/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-resume.c - 'paratune resume': the cron entry point.  Takes the
 * campaign's lock without waiting (another holder: nothing to do),
 * polls, submits what is due, and says when the campaign is finished.
 */
#include "autoconfig.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd-results.h"
#include "cmd.h"
#include "error.h"
#include "results.h"
#include "owner.h"
#include "safe-text.h"
#include "runner.h"
#include "search.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_resume_entry;

/*
 * What resume_dir returns, not its process's exit code, when the Slurm
 * controller did not answer: the campaigns after it on the command line
 * that need Slurm are not tried (not_tried).  Outside the exit codes paratune
 * documents; the command exits EXIT_TEMPFAIL for it.
 */
#define RESUME_CONTROLLER_DOWN 170

/* Poll and submit what is due; journal "finished" when all is final.
 * *down: the controller did not answer. */
static int
drive(struct store *s, struct cmd_ctx *ctx, bool *finished, bool *down)
{
	struct runner r;
	int status;

	runner_init(&r, s, ctx->out, ctx->verbosity);
	status = search_step(&r);
	*down = r.unreachable;
	runner_release(&r);
	/* Once per ending: no "finished" after the last candidate's
	 * event yet (this run's, or a submit's or cancel's that made the
	 * last one).  Counting this run's transitions instead let a
	 * refit, an event of no candidate, finish it again. */
	if (status == 0 && store_all_final(&s->st) && !s->journal_ended &&
	    store_any_selected(&s->st)) {
		struct strbuf sb = STRBUF_INIT;

		store_progress(&s->st, &sb);
		if (store_finished(s) != 0)
			status = EXIT_IOERR;
		else if (ctx->verbosity >= 0)
			safe_text_line(ctx->out, "%s: finished: %s", s->dir,
			               sb.buf);
		strbuf_release(&sb);
		*finished = status == 0;
	}
	return status;
}

struct resume_call {
	struct cmd_ctx *ctx;
	const char *dir;
	const char *down;  /* a campaign before that found Slurm down */
};

/*
 * The site's policy.min_poll_interval: a cron line every minute over a
 * thousand campaigns must not poll the controller more often than the
 * site allows.  Says so and tells when the next poll may come.
 */
static bool
too_soon(const struct store *s, const struct cmd_ctx *ctx)
{
	long min = s->settings.policy.min_poll_interval;
	long ago = (long)time(NULL) - s->polled;

	if (min <= 0 || s->polled <= 0 || ago >= min || ago < 0)
		return false;
	if (ctx->verbosity >= 0)
		safe_text_line(ctx->out, "%s: Slurm was polled %ld s ago; the "
		               "site allows one poll every %ld s "
		               "(policy.min_poll_interval)", s->dir, ago, min);
	return true;
}

/*
 * Whether a finished campaign's results are missing or older than its
 * journal: a resume stopped between journaling "finished" and writing
 * them (report.html, written last) left them so, and the resumes after
 * it, finding the campaign finished, did nothing more.
 */
static bool
results_behind(const struct store *s)
{
	char *path = xasprintf("%s/results/report.html", s->dir);
	struct stat js, rs;
	bool behind = false;

	if (stat(s->journal.path, &js) == 0)
		behind = lstat(path, &rs) != 0 ||
		         rs.st_mtim.tv_sec < js.st_mtim.tv_sec ||
		         (rs.st_mtim.tv_sec == js.st_mtim.tv_sec &&
		          rs.st_mtim.tv_nsec < js.st_mtim.tv_nsec);
	free(path);
	return behind;
}

/*
 * With nothing to do, resume said nothing: a campaign never submitted
 * waited for ever on its crontab line, and one finished earlier looked
 * like a resume that had not worked.  Cron's -q stays silent.
 */
static void
say_idle(const struct store *s, const struct cmd_ctx *ctx)
{
	if (ctx->verbosity < 0)
		return;
	if (!store_any_selected(&s->st))
		safe_text_line(ctx->out, "%s: nothing to do: no candidate is "
		               "selected yet ('paratune submit %s' selects "
		               "and submits them)", s->dir, s->dir);
	else if (store_ended(s))
		safe_text_line(ctx->out, "%s: finished earlier, nothing to do "
		               "('paratune results %s' shows what it "
		               "measured)", s->dir, s->dir);
}

/*
 * A campaign after one whose resume found the controller not answering,
 * when it needs Slurm (a job to poll, a candidate to submit): each
 * waited out libslurm's timeout in turn (about 9 s on the testbed), so
 * root's cron over a site's campaigns outlasted its interval while the
 * controller was down.  It is opened, so that what is wrong with it is
 * still said, and tried again at the next resume.
 */
static bool
not_tried(const struct store *s, const char *down)
{
	for (int i = 0; i < s->st.n; i++)
		if (cand_state_active(s->st.v[i].state) ||
		    s->st.v[i].state == CS_QUEUED) {
			error("%s: not tried: the Slurm controller did not "
			      "answer, or did not take paratune's credential, "
			      "for '%s' just before (the next resume tries "
			      "again)", s->dir, down);
			return true;
		}
	return false;
}

/* Carry one campaign a step further, as its owner; its exit code. */
static int
resume_dir(void *arg)
{
	struct resume_call *rc = arg;
	struct cmd_ctx *ctx = rc->ctx;
	const char *dir = rc->dir;
	struct store s;
	int status = store_open_site(&s, dir, STORE_LOCK_TRY | STORE_POLICY,
	                             ctx->site_path);
	bool finished = false, down = false;

	/* Fault injection for the privilege test: a resume that its user
	 * stopped, or that hangs, holding the campaign's lock. */
	if (getenv("PARATUNE_TEST_STOP_RESUME"))
		raise(SIGSTOP);
	while (getenv("PARATUNE_TEST_HANG_RESUME"))
		pause();
	if (status == 1) {
		if (ctx->verbosity >= 0)
			safe_text_line(ctx->out, "%s: another paratune is "
			               "working on it", dir);
		return EXIT_OK;
	}
	if (status != 0)
		return status;
	if (too_soon(&s, ctx)) {
		store_close(&s, false);
		return EXIT_OK;
	}
	if (rc->down && not_tried(&s, rc->down)) {
		store_close(&s, false);
		return RESUME_CONTROLLER_DOWN;
	}
	status = drive(&s, ctx, &finished, &down);
	if (status == 0 && !finished && store_ended(&s) &&
	    results_behind(&s)) {
		if (ctx->verbosity >= 0)
			safe_text_line(ctx->out, "%s: finished earlier, its "
			               "results missing or older than its "
			               "journal: writing them", dir);
		finished = true;
	} else if (status == 0 && !finished)
		say_idle(&s, ctx);
	/* Whatever was journaled is kept; the checkpoint follows it. */
	if (store_close(&s, true) != 0 && status == 0)
		status = EXIT_IOERR;
	if (status == EXIT_TEMPFAIL && down)
		return RESUME_CONTROLLER_DOWN;
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

/* "DIR:", its control characters spelled out: a cron line's glob
 * hands root directory names that users chose. */
static void
print_dir_line(FILE *out, const char *dir)
{
	struct strbuf sb = STRBUF_INIT;

	safe_text_append(&sb, dir);
	fprintf(out, "%s:\n", sb.buf);
	fflush(out);
	strbuf_release(&sb);
}

static int
cmd_resume_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct option opts[] = { OPT_FINISH };
	int status, n, worst = EXIT_OK;
	const char *down = NULL; /* the campaign that found Slurm down */

	n = cmd_parse_args(ctx, &cmd_resume_entry, opts, argc, argv, 1, -1,
	                   &status);
	if (n < 0)
		return status;
	for (int i = 1; i <= n; i++) {
		struct resume_call rc = { ctx, argv[i], down };
		int s;

		/* Its lines name candidates, not the campaign: two campaigns
		 * of one file name the same ones. */
		if (n > 1 && ctx->verbosity >= 0)
			print_dir_line(ctx->out, argv[i]);
		s = owner_run(argv[i], resume_dir, &rc);
		if (s == RESUME_CONTROLLER_DOWN) {
			if (!down)
				down = argv[i];
			s = EXIT_TEMPFAIL;
		}

		/* A broken directory outranks a controller that is down;
		 * either way the next directory is carried on. */
		if (s != EXIT_OK &&
		    (worst == EXIT_OK || worst == EXIT_TEMPFAIL))
			worst = s;
	}
	return worst;
}

const struct cmd_entry cmd_resume_entry = {
	"resume", NULL, "DIR...",
	"poll, submit what is due and collect (run it from cron)",
	cmd_resume_exec,
	NULL,
};
