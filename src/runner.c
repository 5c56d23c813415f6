/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * runner.c - drives a campaign's jobs through Slurm: polls them,
 * retries node failures, resolves intents a crash left behind and
 * submits what is due.  Every change it finds is recorded through the
 * store's transitions.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "directive.h"
#include "error.h"
#include "job-env.h"
#include "runner.h"
#include "safe-text.h"
#include "slurm.h"
#include "util.h"
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

/* c's run directory: its job script, where its job runs and writes. */
static char *
run_dir(const struct runner *r, const struct cand_status *c)
{
	return xasprintf("%s/runs/%s", r->store->dir, c->name);
}

/* Connect to Slurm on first use; EXIT_TEMPFAIL when impossible. */
static int
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
	    (next != CS_PENDING || !store_reason_differs(c, job->reason)))
		return 0;
	rep.nodes = job_nodes(r, c, job);
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

	if (c->state != CS_NODE_FAIL && c->state != CS_PREEMPTED)
		return 0;
	if (ran > r->store->settings.limits.retries)
		return 0;
	if (r->verbosity >= 0)
		safe_text_line(r->out, "%s: retrying (attempt %d of %d)%s%s",
		               c->name, ran + 1,
		               r->store->settings.limits.retries + 1,
		               c->state == CS_NODE_FAIL ? " avoiding " : "",
		               c->state == CS_NODE_FAIL ? c->nodes : "");
	return store_retry(r->store, c,
	                   c->state == CS_NODE_FAIL ? c->nodes : "");
}

/* c's job's output file, runs/NAME/slurm-ID.out (allocated). */
static char *
job_output(const struct runner *r, const struct cand_status *c)
{
	char *dir = run_dir(r, c);
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
	char *dir = run_dir(r, c);
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
	run = run_dir(r, c);
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
		error("%s: cannot reach the Slurm controller: %s",
		      r->store->dir, err.buf);
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

/* ---- submitting -------------------------------------------------------- */

/*
 * slurmctld refuses a batch script over SchedulerParameters
 * max_script_size, 4 MB by default (slurm.conf(5)); the templates are
 * held to the same (jobscript.c).  A larger job.sbatch is not what plan
 * rendered, and is not read whole: a sparse one of gigabytes took as
 * much memory, and one of 1 GB went to Slurm.
 */
#define JOB_SCRIPT_MAX ((size_t)4 << 20)

/*
 * c's job script, read whole: it is what Slurm runs with this user's
 * rights, so only a file of the user's that nobody else can change is
 * submitted (a script planted through a link, or left writable by a
 * group, would run someone else's commands as this user).
 */
static char *
read_script(const struct runner *r, const struct cand_status *c)
{
	char *run = run_dir(r, c), *path = xasprintf("%s/job.sbatch", run);
	struct strbuf sb = STRBUF_INIT;
	FILE *f = fopen_regular(path);
	struct stat st = { 0 };
	int ret = -1;

	if (f == NULL)
		error("cannot read job script '%s': %s", path,
		      open_error(errno));
	else if (fstat(fileno(f), &st) != 0 || !stat_is_private(&st))
		error("job script '%s' (owner uid %ld, mode %04o) is not a "
		      "file of yours that only you can change: refusing to "
		      "submit it", path, (long)st.st_uid,
		      (unsigned)(st.st_mode & 07777));
	else if ((unsigned long long)st.st_size > JOB_SCRIPT_MAX ||
	         (ret = read_capped(fileno(f), JOB_SCRIPT_MAX, &sb)) > 0)
		ret = error("job script '%s' is larger than 4 MiB, the most "
		            "Slurm takes by default (max_script_size): "
		            "refusing to submit it", path);
	else if (ret < 0)
		error_errno("cannot read job script '%s'", path);
	if (f)
		fclose(f);
	free(path);
	free(run);
	if (ret != 0)
		strbuf_release(&sb);
	return ret == 0 ? strbuf_detach(&sb, NULL) : NULL;
}

/* The best ranked queued candidate (the base first), or NULL; the
 * first still queued of r->order when the search set one. */
static struct cand_status *
next_queued(struct runner *r)
{
	struct cand_status *best = NULL;

	if (r->order) {
		for (int i = 0; i < r->norder; i++)
			if (r->order[i]->state == CS_QUEUED)
				return r->order[i];
		return NULL;
	}

	for (int i = 0; i < r->store->st.n; i++) {
		struct cand_status *c = &r->store->st.v[i];

		if (c->state != CS_QUEUED)
			continue;
		if (best == NULL || (c->base && !best->base) ||
		    (c->base == best->base && c->rank < best->rank))
			best = c;
	}
	return best;
}

static void
fill_request(const struct runner *r, const struct cand_status *c,
             struct slurm_submit_req *req, const char *run,
             const char *out)
{
	const struct settings *k = &r->store->settings;

	memset(req, 0, sizeof(*req));
	req->name = c->tag;
	req->comment = c->name;
	req->work_dir = run;
	req->std_out = out;
	req->time_limit_min = k->limits.max_minutes_per_run;
	req->nodes = k->nodes;
	req->ntasks_per_node = k->gpus_per_node;
	req->gpus_per_node = k->gpus_per_node;
	req->gpu_type = k->slurm.gpu_type[0] ? k->slurm.gpu_type : NULL;
	req->partition = k->slurm.partition;
	req->account = k->slurm.account;
	req->qos = k->slurm.qos;
	req->reservation = k->slurm.reservation;
	req->exclude = c->exclude[0] ? c->exclude : NULL;
	req->segment_nodes = settings_segment_nodes(k);
}

/*
 * The estimates place a job whose NVLink domain spans nodes in
 * segments of it (layout.c, or the site's --segment); a libslurm older
 * than 24.05 cannot ask Slurm for them, so say once that the placement
 * is the site's.
 */
static void
warn_segments(struct runner *r, const struct slurm_submit_req *req)
{
	if (req->segment_nodes == 0 || slurm_can_segment() ||
	    r->segment_warned)
		return;
	r->segment_warned = true;
	warning("%s: each job should ask for NVLink segments of %d node%s "
	        "(--segment), which the estimates assume, but this paratune "
	        "was built against a Slurm older than 24.05, which cannot "
	        "ask for them: the jobs may straddle NVLink domains",
	        r->store->dir, req->segment_nodes,
	        req->segment_nodes == 1 ? "" : "s");
}

/* The campaign's slurm.directives, checked when it was planned. */
static int
runner_extras(const struct runner *r, struct sbatch_extras *x)
{
	const struct str_list *d = &r->store->settings.slurm.directives;
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	memset(x, 0, sizeof(*x));
	for (int i = 0; i < d->n && !ret; i++)
		if (sbatch_extras_add(x, d->v[i], &why))
			ret = error("%s: slurm.directives: %s", r->store->dir,
			            why.buf);
	strbuf_release(&why);
	return ret;
}

/* The job's environment: run.export applied to what submit saw (this
 * process's own for a campaign first submitted by an older paratune),
 * and --hint for the srun inside, as sbatch exports it. */
static int
runner_env(const struct runner *r, const struct sbatch_extras *x,
           struct str_list *env)
{
	struct str_list seen = STR_LIST_INIT;
	int ret = store_load_env(r->store, &seen);

	for (char **e = environ; ret == 1 && *e; e++)
		str_list_push(&seen, *e);
	if (ret >= 0)
		job_env_build(&seen, &r->store->settings.run.export, env);
	if (ret >= 0 && cpu_hint_name(x->hint)) {
		char *kv = xasprintf("SLURM_HINT=%s", cpu_hint_name(x->hint));

		job_env_set(env, kv);
		free(kv);
	}
	str_list_clear(&seen);
	return ret < 0 ? -1 : 0;
}

/*
 * The reason recorded for a rejected submission, into out: "rejected:"
 * and Slurm's own words, what follows slurm_fail's "cannot submit job
 * 'TAG': ", as much as the state's reason holds.  results shows it,
 * where the submit's message is long gone under cron.
 */
static void
rejected_reason(const char *err, char *out, size_t len)
{
	const char *why = strstr(err, ": ");

	snprintf(out, len, "rejected%s%s", why ? ":" : "", why ? why + 2 : "");
}

/*
 * Slurm's output file pattern for the run directory run: "%" written
 * "%%", which Slurm reads as a "%" (sbatch(1), filename pattern), as it
 * would read a campaign at /scratch/50%/x's "%/" as a symbol and the job
 * fail with no output.  A backslash would turn every symbol off, %j
 * included: NULL after an error naming the path.
 */
static char *
output_pattern(const char *run)
{
	struct strbuf sb = STRBUF_INIT;

	if (strchr(run, '\\')) {
		error("'%s' holds a backslash, which Slurm's output file "
		      "pattern cannot hold (it turns off %%j): plan the "
		      "campaign under a path without one", run);
		return NULL;
	}
	for (const char *p = run; *p; p++) {
		if (*p == '%')
			strbuf_addch(&sb, '%');
		strbuf_addch(&sb, *p);
	}
	strbuf_addstr(&sb, "/slurm-%j.out");
	return strbuf_detach(&sb, NULL);
}

/*
 * Submit one candidate exactly once: the intent (with the job's tag) is
 * journaled and fsync'd before the call, so a crash after the call is
 * resolved by finding the tag in Slurm rather than by submitting again.
 */
static int
submit_one(struct runner *r, struct cand_status *c, const char *script)
{
	struct slurm_submit_req req;
	struct sbatch_extras extras;
	struct str_list env = STR_LIST_INIT;
	struct strbuf err = STRBUF_INIT;
	char *run = run_dir(r, c);
	char *out = output_pattern(run);
	char tag[64], why[64];
	uint32_t id = 0;
	int ret = EXIT_DATAERR, s;

	if (out == NULL || runner_extras(r, &extras) ||
	    runner_env(r, &extras, &env))
		goto cleanup;
	snprintf(tag, sizeof tag, "pt-%s-%d-%d", r->store->st.campaign_id,
	         c->rank, c->attempt + 1);
	if (store_intent(r->store, c, tag) != 0) {
		ret = EXIT_IOERR;
		goto cleanup;
	}
	/* Fault injection for the lost-submission test: die between the
	 * intent and the call, which then never reaches Slurm. */
	if (getenv("PARATUNE_TEST_KILL_BEFORE_SUBMIT"))
		raise(SIGKILL);
	fill_request(r, c, &req, run, out);
	warn_segments(r, &req);
	req.script = script;
	req.extras = &extras;
	req.env = (const char *const *)env.v;
	s = slurm_submit(r->slurm, &req, &id, &err);
	if (s == SLURM_E_UNREACHABLE) {
		/* The intent stays: the next run looks the tag up first.
		 * err says "cannot submit job 'TAG': ..." itself. */
		error("%s: %s: %s", r->store->dir, c->name, err.buf);
		r->unreachable = true;
		ret = EXIT_TEMPFAIL;
	} else if (s == SLURM_E_REFUSED_NOW) {
		/* A drained partition refuses every candidate alike: each
		 * failed for good burnt the campaign for a maintenance.
		 * Slurm made no job, so the candidate is queued again (no
		 * try spent) and the round stops here. */
		error("Slurm refuses %s for now: %s; it stays queued, and "
		      "resume submits it once Slurm takes it", c->name,
		      err.buf);
		ret = store_requeue_lost(r->store, c) ? EXIT_IOERR
		                                      : EXIT_TEMPFAIL;
	} else if (s != SLURM_E_OK) {
		/* A retry avoids the failed job's nodes: say so, or a
		 * campaign that needs all of them reads as Slurm's fault. */
		error("Slurm rejected %s: %s%s%s%s", c->name, err.buf,
		      c->exclude[0] ? " (paratune asked it to avoid " : "",
		      c->exclude, c->exclude[0] ? ", where its failed "
		      "attempt ran)" : "");
		r->rejected++;
		rejected_reason(err.buf, why, sizeof why);
		ret = store_rejected(r->store, c, why) ? EXIT_IOERR : 0;
	} else {
		/* Fault injection for the exactly-once test (as git's
		 * GIT_TEST_* variables): die between the call and the
		 * record. */
		if (getenv("PARATUNE_TEST_KILL_AFTER_SUBMIT"))
			raise(SIGKILL);
		r->submitted++;
		ret = store_submitted(r->store, c, id) ? EXIT_IOERR : 0;
		if (ret == 0 && r->verbosity >= 0)
			safe_text_line(r->out, "%s: submitted as job %" PRIu32
			               " (%s)", c->name, id, tag);
	}
cleanup:
	str_list_clear(&env);
	free(out);
	free(run);
	strbuf_release(&err);
	return ret;
}

/*
 * The site's policy.max_gpu_hours: a job is submitted only while what
 * the campaign has used and what its submitted jobs may still take,
 * plus this job's whole time limit, stay within it.  The candidate
 * stays queued (a site may raise the cap).
 */
static bool
over_budget(struct runner *r, const struct cand_status *c)
{
	const struct settings *k = &r->store->settings;
	double after;

	if (!budget_holds_queued(r->store, k, (long)time(NULL), &after))
		return false;
	if (r->verbosity >= 0)
		safe_text_line(r->out, "%s: stays queued: submitting it "
		               "could take the campaign to %.1f GPU-hours, "
		               "above policy.max_gpu_hours = %g", c->name,
		               after, k->policy.max_gpu_hours);
	return true;
}

/*
 * 0 when the file system of path (what: "the run directory") has room
 * for what a job writes there, else EXIT_IOERR after an error.  On a
 * full one the campaign went on submitting: every job wrote an empty
 * log, was recorded completed with no output and failed, and the queue
 * burnt away while the state could not even be saved.
 */
static int
room_at(const char *path, const char *what)
{
	double free_mib;
	bool inodes;

	if (fs_room(path, &free_mib, &inodes) != 0)
		return 0;  /* not knowable here: the writes will tell */
	if (free_mib >= RUNNER_MIN_FREE_MIB && inodes)
		return 0;
	error("%s '%s' has %.1f MiB%s free, under %d: not submitting until "
	      "there is room (its jobs would write no log and fail)", what,
	      path, free_mib, inodes ? "" : " and no inode",
	      RUNNER_MIN_FREE_MIB);
	return EXIT_IOERR;
}

int
runner_submit_due(struct runner *r, bool dry_run)
{
	const struct store *s = r->store;
	int limit = s->st.sequential ? 1
	            : s->settings.limits.max_concurrent_jobs;
	int active = store_active_count(&s->st), ret;
	struct cand_status *c;

	if (dry_run) {
		for (int i = 0; i < r->store->st.n; i++)
			if (r->store->st.v[i].state == CS_QUEUED)
				safe_text_line(r->out, "would submit %s%s",
				               r->store->st.v[i].name,
				               r->store->st.v[i].base
				               ? " (base)" : "");
		return 0;
	}
	while (active < limit && (c = next_queued(r)) != NULL) {
		char *run, *script;

		if (over_budget(r, c))
			break;
		/* Where the job writes; the campaign's own files are
		 * small, and a failed write of them is said and undone
		 * (a campaign directory on a small file system, its runs/
		 * a link to a big one, is fine: diskfull.sh). */
		run = run_dir(r, c);
		ret = room_at(run, "the run directory");
		free(run);
		if (ret != 0)
			return ret;
		/* Read before Slurm is asked: a script that cannot go (not
		 * the user's alone, too large) needs no controller to be
		 * refused. */
		if ((script = read_script(r, c)) == NULL)
			return EXIT_DATAERR;
		if ((ret = runner_slurm(r)) == 0)
			ret = submit_one(r, c, script);
		free(script);
		if (ret != 0)
			return ret;
		active += cand_state_active(c->state);
	}
	return 0;
}

/* ---- cancelling -------------------------------------------------------- */

/*
 * Whether the controller holds c's job id under another name, which
 * cancel must leave alone (find_job): said, and c's own job, gone with
 * the controller's old state, can run no more.  The controller's jobs
 * are asked once a cancel (*jobs, *n; *n < 0 before); a poll that fails
 * says nothing here, and the cancel's own answer decides then.
 */
static bool
cancel_reused(struct runner *r, const struct slurm_job **jobs, int *n,
              const struct cand_status *c)
{
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *other;

	if (*n < 0 && slurm_poll(r->slurm, jobs, n, &err) != SLURM_E_OK)
		*n = 0;
	strbuf_release(&err);
	other = id_reused(*jobs, *n, c);
	if (other)
		warning("%s: job %" PRIu32 " is no longer %s but '%s' (the "
		        "controller gave its id again): not cancelling it",
		        c->name, c->job_id, c->tag, other->name);
	return other != NULL;
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
		s = c->job_id && !cancel_reused(r, &jobs, &njobs, c)
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
