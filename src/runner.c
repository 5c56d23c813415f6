/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * runner.c - follows a campaign's jobs through Slurm: polls them,
 * retries node failures, resolves intents a crash left behind and
 * cancels them.  Every change it finds is recorded through the store's
 * transitions.  Submitting what is due is runner-submit.c's; what a
 * job's output says of it, runner-output.c's.
 */
#include "autoconfig.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "error.h"
#include "nodelist.h"
#include "runner-int.h"
#include "safe-text.h"
#include "slurm.h"
#include "xalloc.h"

/* An intent younger than this is not declared lost: accounting may not
 * have heard of a job that ran and left the controller within seconds. */
#define INTENT_GRACE_S 10
/* How long a job known to neither the controller nor accounting is
 * waited for before its own output decides what happened to it. */
#define ACCOUNTING_LAG_S 300
/* How far before its intent a job is looked for by tag in accounting.
 * The intent's time is this host's clock and the record's the
 * controller's: a submit host two minutes ahead missed its own job with
 * a minute's slack, and submitted the candidate again.  The tag alone
 * names the job; the window only bounds slurmdbd's search. */
#define INTENT_CLOCK_SLACK_S (7L * 86400)

/* ACCOUNTING_LAG_S, or the tests' shorter PARATUNE_TEST_ACCOUNTING_LAG. */
static long
accounting_lag_s(void)
{
	const char *t = getenv("PARATUNE_TEST_ACCOUNTING_LAG");
	long v = t ? strtol(t, NULL, 10) : -1;

	return v >= 0 && v < ACCOUNTING_LAG_S ? v : ACCOUNTING_LAG_S;
}

void
runner_init(struct runner *r, struct store *s, FILE *out, int verbosity)
{
	memset(r, 0, sizeof(*r));
	r->store = s;
	r->out = out;
	r->verbosity = verbosity;
}

void
runner_release(struct runner *r)
{
	if (r->slurm)
		slurm_close(r->slurm);
	r->slurm = NULL;
}

/* c's run directory (runner-int.h). */
char *
runner_run_dir(const struct runner *r, const struct cand_status *c)
{
	return xasprintf("%s/runs/%s", r->store->dir, c->name);
}

/* Connect to Slurm on first use; EXIT_TEMPFAIL when impossible. */
int
runner_slurm(struct runner *r)
{
	struct strbuf err = STRBUF_INIT;

	if (r->slurm)
		return 0;
	r->slurm = slurm_open(&err);
	/* Named: cron's resume over many campaigns printed the same line
	 * once for each, with nothing to tell them apart. */
	if (r->slurm == NULL) {
		error("%s: cannot reach Slurm: %s", r->store->dir, err.buf);
		strbuf_release(&err);
		r->unreachable = true;
		return EXIT_TEMPFAIL;
	}
	strbuf_release(&err);
	return 0;
}

/* ---- polling ----------------------------------------------------------- */

static enum cand_state
from_job_state(enum job_state s)
{
	switch (s) {
	case JOB_ST_PENDING: return CS_PENDING;
	case JOB_ST_RUNNING:
	case JOB_ST_SUSPENDED: return CS_RUNNING;
	case JOB_ST_COMPLETED: return CS_COMPLETED;
	case JOB_ST_CANCELLED: return CS_CANCELLED;
	case JOB_ST_TIMEOUT:
	case JOB_ST_DEADLINE: return CS_TIMEOUT;
	case JOB_ST_NODE_FAIL:
	case JOB_ST_BOOT_FAIL: return CS_NODE_FAIL;
	case JOB_ST_PREEMPTED: return CS_PREEMPTED;
	case JOB_ST_OUT_OF_MEMORY: return CS_OOM;
	default: return CS_FAILED;
	}
}

/*
 * c's job among jobs: by its id once known, by its tag before.  A job of
 * that id under another name is not c's: a controller that lost its
 * state numbers jobs from 1 again, and the id c recorded may now be
 * anyone's job (this user's, submitted by hand), which paratune must
 * neither adopt nor cancel.
 */
static const struct slurm_job *
find_job(const struct slurm_job *jobs, int n, const struct cand_status *c)
{
	for (int i = 0; i < n; i++) {
		bool named = c->tag[0] && !strcmp(jobs[i].name, c->tag);

		if (c->job_id ? jobs[i].job_id == c->job_id &&
		                (named || !c->tag[0])
		              : named)
			return &jobs[i];
	}
	return NULL;
}

/* A job of c's id that is not c's (see find_job), or NULL. */
static const struct slurm_job *
id_reused(const struct slurm_job *jobs, int n, const struct cand_status *c)
{
	for (int i = 0; c->job_id && c->tag[0] && i < n; i++)
		if (jobs[i].job_id == c->job_id && strcmp(jobs[i].name, c->tag))
			return &jobs[i];
	return NULL;
}

/* A job the controller forgot: accounting, by id or by tag. */
static int
lookup_accounting(struct runner *r, struct cand_status *c,
                  const struct slurm_job **job)
{
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *jobs;
	int n, ret;

	ret = c->job_id
	      ? slurm_accounting(r->slurm, &c->job_id, 1, NULL, 0, &jobs, &n,
	                         &err)
	      : slurm_accounting(r->slurm, NULL, 0, c->tag,
	                         c->submit_time - INTENT_CLOCK_SLACK_S, &jobs,
	                         &n, &err);
	*job = NULL;
	if (ret == SLURM_E_OK)
		*job = find_job(jobs, n, c);
	if (ret == SLURM_E_UNREACHABLE)
		error("%s: %s", r->store->dir, err.buf);
	strbuf_release(&err);
	return ret;
}

/*
 * The nodes c's job ran on.  The controller drops a failed node from an
 * ending job's list, so a node failure first seen after the job ended
 * (no nodes recorded while it ran) named only the nodes that survived,
 * and the retry avoided those; accounting keeps the whole allocation.
 */
static const char *
job_nodes(struct runner *r, struct cand_status *c,
          const struct slurm_job *job)
{
	const struct slurm_job *acct = NULL;

	if (from_job_state(job->state) != CS_NODE_FAIL || c->nodes[0] ||
	    job->from_accounting)
		return job->nodes;
	if (lookup_accounting(r, c, &acct) == SLURM_E_OK && acct &&
	    acct->nodes[0])
		return acct->nodes;
	return job->nodes;
}

/*
 * A suspended job (scontrol suspend, gang scheduling) holds its nodes
 * and counts as running, but its steps are stopped: status showed it
 * running like any other, and a campaign waited on it without a word.
 * It is running with this reason until Slurm resumes it.
 */
#define SUSPENDED_REASON "Suspended"

static bool
suspension_changed(const struct cand_status *c, const struct slurm_job *job)
{
	return (job->state == JOB_ST_SUSPENDED) !=
	       (strcmp(c->reason, SUSPENDED_REASON) == 0);
}

/* Record what Slurm says of c's job, printing the transition. */
static int
record_job(struct runner *r, struct cand_status *c,
           const struct slurm_job *job)
{
	enum cand_state next = from_job_state(job->state);
	enum cand_state prev = c->state;
	struct job_report rep = {
		.state = next, .job_id = job->job_id,
		.exit_code = job->exit_code, .exit_signal = job->exit_signal,
		.start_time = (long)job->start_time,
		.end_time = (long)job->end_time,
		.reason = job->reason,
		.source = job->from_accounting ? "accounting" : "controller",
	};
	int ret;

	/* A pending job's reason (Priority, Resources, a hold) is all
	 * status can say of why it waits: kept as Slurm says it now. */
	if (next == prev && (next != CS_RUNNING || c->nodes[0]) &&
	    (next != CS_PENDING || !store_reason_differs(c, job->reason)) &&
	    !suspension_changed(c, job))
		return 0;
	if (job->state == JOB_ST_SUSPENDED)
		rep.reason = SUSPENDED_REASON;
	rep.nodes = job_nodes(r, c, job);
	/* A job cancelled while it waited keeps, in Slurm, the reason it
	 * waited for: status showed "cancelled ... Priority" of a job
	 * that scancel ended, where paratune's own cancel clears it. */
	if (next == CS_CANCELLED && slurm_reason_waits(job->reason))
		rep.reason = "";
	/* Once a wait: Slurm calls one limit by two names as its
	 * scheduler passes (on the testbed, a job past the partition's
	 * MaxTime waits on PartitionConfig, then PartitionTimeLimit). */
	if (next == CS_PENDING && slurm_reason_blocks(job->reason) &&
	    !(prev == CS_PENDING && slurm_reason_blocks(c->reason)))
		warning("%s: job %" PRIu32 " cannot start while Slurm says "
		        "%s: it waits until the cluster's limits or the job "
		        "change ('paratune cancel' gives it up)", c->name,
		        job->job_id, job->reason);
	ret = store_job_state(r->store, c, &rep);
	if (ret == 0 && r->verbosity >= 0 && next != prev)
		safe_text_line(r->out, "%s: %s -> %s (job %" PRIu32 "%s%s)",
		               c->name, cand_state_name(prev),
		               cand_state_name(next), job->job_id,
		               c->nodes[0] ? " on " : "", c->nodes);
	return ret;
}

/* Node failures and preemption go back to the queue while attempts
 * remain; the next attempt avoids the node that failed. */
static int
maybe_retry(struct runner *r, struct cand_status *c)
{
	/* Submissions that never reached Slurm ran nothing to retry. */
	int ran = c->attempt - c->lost;

	bool failed = c->state == CS_NODE_FAIL;
	/* A list too long to keep whole is no list to give Slurm. */
	bool cut = failed && nodelist_cut(c->nodes);
	const char *avoid = failed && !cut ? c->nodes : "";

	if (c->state != CS_NODE_FAIL && c->state != CS_PREEMPTED)
		return 0;
	if (ran > r->store->settings.limits.retries)
		return 0;
	if (r->verbosity >= 0)
		safe_text_line(r->out, "%s: retrying (attempt %d of %d)%s%s%s",
		               c->name, ran + 1,
		               r->store->settings.limits.retries + 1,
		               *avoid ? " avoiding " : "", avoid,
		               cut ? " on any nodes (the failed job's node "
		                     "list is too long to keep whole)" : "");
	return store_retry(r->store, c, avoid);
}

/* c's job's output file, runs/NAME/slurm-ID.out (allocated). */
static char *
job_output(const struct runner *r, const struct cand_status *c)
{
	char *dir = runner_run_dir(r, c);
	char *path = xasprintf("%s/slurm-%" PRIu32 ".out", dir, c->job_id);

	free(dir);
	return path;
}

static enum cand_state
state_from_output(const struct runner *r, const struct cand_status *c)
{
	char *path = job_output(r, c);
	enum cand_state st = runner_output_state(path);

	free(path);
	return st;
}

/* Whether c's job left its output file (any kind of file). */
static bool
output_exists(const struct runner *r, const struct cand_status *c)
{
	char *path = job_output(r, c);
	struct stat st;
	bool there = lstat(path, &st) == 0 || errno != ENOENT;

	free(path);
	return there;
}

/* The job an interrupted submission made, from the output it left
 * (runner_output_newest). */
static uint32_t
output_since_intent(const struct runner *r, const struct cand_status *c)
{
	char *dir = runner_run_dir(r, c);
	uint32_t newest = runner_output_newest(dir, c->submit_time);

	free(dir);
	return newest;
}

/* An intent neither the controller nor accounting knows: the job its
 * output shows, or a submission that never reached Slurm. */
static int
intent_unknown(struct runner *r, struct cand_status *c)
{
	uint32_t id;

	if (time(NULL) - c->submit_time < INTENT_GRACE_S)
		return 0; /* accounting may not know it yet */
	if ((id = output_since_intent(r, c)) == 0) {
		if (r->verbosity >= 0)
			safe_text_line(r->out, "%s: job %s never reached "
			               "Slurm; queued again", c->name, c->tag);
		return store_requeue_lost(r->store, c);
	}
	if (r->verbosity >= 0)
		safe_text_line(r->out, "%s: job %s reached Slurm as job %"
		               PRIu32 " (its output is there)", c->name,
		               c->tag, id);
	return store_submitted(r->store, c, id);
}

/* Neither the controller nor accounting knows the job. */
static int
job_unknown(struct runner *r, struct cand_status *c)
{
	struct job_report rep = { 0 };
	enum cand_state st;
	int ret;

	if (c->state == CS_SUBMITTING) {
		if ((ret = intent_unknown(r, c)) != 0 ||
		    c->state == CS_SUBMITTING || c->state == CS_QUEUED)
			return ret;
	}
	/* Last seen pending, with no output (Slurm makes it when the job
	 * starts): it never ran (a controller that lost its state, no
	 * accounting), and tried nothing; queued again, as a lost intent
	 * is, not a failure that costs the candidate its place. */
	if (c->state == CS_PENDING && !output_exists(r, c)) {
		if (r->verbosity >= 0)
			safe_text_line(r->out, "%s: job %" PRIu32 " vanished "
			               "before it started (no output, unknown "
			               "to accounting); queued again", c->name,
			               c->job_id);
		return store_requeue_lost(r->store, c);
	}
	st = state_from_output(r, c);
	if (r->verbosity >= 0)
		safe_text_line(r->out, "%s: %s -> %s (job %" PRIu32 " gone; "
		               "judged from its output)", c->name,
		               cand_state_name(c->state), cand_state_name(st),
		               c->job_id);
	rep.state = st;
	rep.job_id = c->job_id;
	rep.reason = st == CS_FAILED ? "vanished" : "";
	rep.source = "log";
	return store_job_state(r->store, c, &rep);
}

/*
 * A job that runs in another directory than c's run directory: the
 * campaign was moved, or copied with its state (the copy finds the
 * original's jobs by their tags), after the job was submitted.  The
 * job writes its output where it runs, so this campaign would record
 * its end without its log.  Said on every poll while the job lasts,
 * since only the user can mend it.  Two paths of one directory (a bind
 * mount) are no move: stat only reads their metadata.
 */
static void
warn_elsewhere(const struct runner *r, const struct cand_status *c,
               const struct slurm_job *job)
{
	char *run;
	struct stat was, here;

	if (!job->work_dir[0])
		return;
	run = runner_run_dir(r, c);
	if (strcmp(job->work_dir, run) &&
	    !(stat(job->work_dir, &was) == 0 && stat(run, &here) == 0 &&
	      was.st_dev == here.st_dev && was.st_ino == here.st_ino))
		warning("%s: job %" PRIu32 " runs in %s, not in this "
		        "campaign (%s): the campaign was moved or copied "
		        "after the job was submitted, and its output goes "
		        "there; move the campaign back before the job ends, "
		        "or cancel the job ('paratune cancel') and submit "
		        "again", c->name, job->job_id, job->work_dir,
		        r->store->dir);
	free(run);
}

/* One candidate's job: controller, then accounting, then its output. */
static int
poll_one(struct runner *r, struct cand_status *c,
         const struct slurm_job *jobs, int n, bool *unreachable)
{
	const struct slurm_job *job = find_job(jobs, n, c);
	int ret;

	/* One refused connection says it for all: do not wait on a
	 * down slurmdbd once per candidate. */
	if (job == NULL && *unreachable)
		return 0;
	if (job == NULL) {
		ret = lookup_accounting(r, c, &job);
		if (ret == SLURM_E_UNREACHABLE) {
			*unreachable = true;
			return 0; /* decide nothing without accounting */
		}
		/* slurmdbd hears of a job's end a moment after the
		 * controller forgets it: give it time before guessing. */
		if (job == NULL && ret == SLURM_E_OK &&
		    c->state != CS_SUBMITTING &&
		    time(NULL) - c->submit_time < accounting_lag_s())
			return 0;
	}
	if (job == NULL) {
		ret = job_unknown(r, c);
	} else {
		warn_elsewhere(r, c, job);
		ret = record_job(r, c, job);
	}
	return ret == 0 ? maybe_retry(r, c) : ret;
}

int
runner_poll(struct runner *r)
{
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *jobs;
	bool unreachable = false, any = false;
	int n, ret;

	/* A retry is decided right after the failure is recorded; a crash
	 * between the two must not cost the candidate its retry. */
	for (int i = 0; i < r->store->st.n; i++)
		if (maybe_retry(r, &r->store->st.v[i]) != 0)
			return EXIT_IOERR;
	for (int i = 0; i < r->store->st.n; i++)
		any |= cand_state_active(r->store->st.v[i].state);
	if (!any)
		return 0;
	if ((ret = runner_slurm(r)) != 0)
		return ret;
	if (slurm_poll(r->slurm, &jobs, &n, &err) != SLURM_E_OK) {
		error("%s: %s", r->store->dir, err.buf);
		strbuf_release(&err);
		r->unreachable = true;
		return EXIT_TEMPFAIL;
	}
	strbuf_release(&err);
	store_mark_polled(r->store);
	for (int i = 0; i < r->store->st.n; i++) {
		struct cand_status *c = &r->store->st.v[i];

		if (cand_state_active(c->state) &&
		    poll_one(r, c, jobs, n, &unreachable) != 0)
			return EXIT_IOERR;
	}
	return unreachable ? EXIT_TEMPFAIL : 0;
}

/* ---- cancelling -------------------------------------------------------- */

/*
 * Whether cancel must leave c's job id alone: the controller holds it
 * under another name (find_job), and c's own job, gone with the
 * controller's old state, can run no more; or it is not among this
 * user's jobs at all, so c's job ended long ago, or the state was
 * edited to name another user's job, which an owner who is a Slurm
 * operator or an account's coordinator may cancel: either way nothing
 * of c's runs there.  Said.  The controller's jobs are asked once a
 * cancel (*n is -1 before, -2 after a poll that failed, which says
 * nothing here: the cancel's own answer decides then).
 */
static bool
cancel_leaves(struct runner *r, const struct slurm_job **jobs, int *n,
              const struct cand_status *c)
{
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *other;

	if (*n == -1 && slurm_poll(r->slurm, jobs, n, &err) != SLURM_E_OK)
		*n = -2;
	strbuf_release(&err);
	if (*n < 0)
		return false;
	other = id_reused(*jobs, *n, c);
	if (other)
		warning("%s: job %" PRIu32 " is no longer %s but '%s' (the "
		        "controller gave its id again): not cancelling it",
		        c->name, c->job_id, c->tag, other->name);
	else if (find_job(*jobs, *n, c) == NULL)
		warning("%s/state: %s: job %" PRIu32 " is not among this "
		        "user's jobs in Slurm (it ended, or is another "
		        "user's): not cancelling it", r->store->dir, c->name,
		        c->job_id);
	else
		return false;
	return true;
}

int
runner_cancel_all(struct runner *r)
{
	struct strbuf err = STRBUF_INIT;
	struct state *st = &r->store->st;
	const struct slurm_job *jobs = NULL;
	int ret = 0, s, n = 0, njobs = -1;

	for (int i = 0; i < st->n && ret == 0; i++) {
		struct cand_status *c = &st->v[i];

		if (c->state != CS_QUEUED && !cand_state_active(c->state))
			continue;
		if (c->job_id && (ret = runner_slurm(r)) != 0)
			break;
		/* A job Slurm may still run is never recorded as
		 * cancelled: resume would stop polling it.  One Slurm has
		 * forgotten (NOT_FOUND) can run no more. */
		s = c->job_id && !cancel_leaves(r, &jobs, &njobs, c)
		    ? slurm_cancel(r->slurm, c->job_id, &err) : SLURM_E_OK;
		if (s != SLURM_E_OK && s != SLURM_E_NOT_FOUND) {
			error("cannot cancel job %" PRIu32 " of %s: %s",
			      c->job_id, c->name, err.buf);
			ret = s == SLURM_E_UNREACHABLE ? EXIT_TEMPFAIL
			                               : EXIT_UNAVAILABLE;
			break;
		}
		if (store_cancelled(r->store, c) != 0) {
			ret = EXIT_IOERR;
			break;
		}
		if (r->verbosity >= 0)
			safe_text_line(r->out, "%s: cancelled%s", c->name,
			               c->job_id ? "" : " (not submitted)");
		n++;
	}
	/* Silence read as a cancel that did nothing, or failed. */
	if (ret == 0 && n == 0 && r->verbosity >= 0)
		fprintf(r->out, "nothing to cancel: no candidate is queued or "
		        "has a job in Slurm\n");
	strbuf_release(&err);
	return ret;
}
