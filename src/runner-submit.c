/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * runner-submit.c - submits a campaign's due candidates to Slurm, each
 * exactly once: the next queued one, while the concurrency limit, the
 * site's GPU-hour budget and the run directory's free space allow; its
 * job script, read only when it is the user's own; its request,
 * environment and directives; and what Slurm's answer makes of it.
 * Following the jobs once submitted is runner.c's.
 */
#include "autoconfig.h"

#include <errno.h>
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
#include "runner-int.h"
#include "safe-text.h"
#include "slurm.h"
#include "util.h"
#include "xalloc.h"

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
	char *run = runner_run_dir(r, c);
	char *path = xasprintf("%s/job.sbatch", run);
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
 * segments of it (layout-topology.c, or the site's --segment); a
 * libslurm older than 24.05 cannot ask Slurm for them, so say once that
 * the placement is the site's.
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
 * Record slurm_submit's answer s to c's submission as tag (id, the job
 * it made; err, Slurm's words; avoided, the nodes the request that got
 * the answer excluded, or NULL): submitted, rejected for good, queued
 * again when Slurm refuses it for now, or left to the intent when Slurm
 * cannot be reached.  0 or an exit code.
 */
static int
submit_outcome(struct runner *r, struct cand_status *c, int s, uint32_t id,
               const char *tag, const char *err, const char *avoided)
{
	char why[64];
	int ret;

	if (s == SLURM_E_UNREACHABLE) {
		/* The intent stays: the next run looks the tag up first.
		 * err says "cannot submit job 'TAG': ..." itself. */
		error("%s: %s: %s", r->store->dir, c->name, err);
		r->unreachable = true;
		return EXIT_TEMPFAIL;
	}
	if (s == SLURM_E_REFUSED_NOW) {
		/* A drained partition refuses every candidate alike: each
		 * failed for good burnt the campaign for a maintenance.
		 * Slurm made no job, so the candidate is queued again (no
		 * try spent) and the round stops here. */
		error("Slurm refuses %s for now: %s; it stays queued, and "
		      "resume submits it once Slurm takes it", c->name, err);
		return store_requeue_lost(r->store, c) ? EXIT_IOERR
		                                       : EXIT_TEMPFAIL;
	}
	if (s != SLURM_E_OK) {
		/* A retry avoids the failed job's nodes: say so, or a
		 * campaign that needs all of them reads as Slurm's fault. */
		error("Slurm rejected %s: %s%s%s%s", c->name, err,
		      avoided ? " (paratune asked it to avoid " : "",
		      avoided ? avoided : "", avoided ? ", where its failed "
		      "attempt ran)" : "");
		r->rejected++;
		rejected_reason(err, why, sizeof why);
		return store_rejected(r->store, c, why) ? EXIT_IOERR : 0;
	}
	/* Fault injection for the exactly-once test (as git's GIT_TEST_*
	 * variables): die between the call and the record. */
	if (getenv("PARATUNE_TEST_KILL_AFTER_SUBMIT"))
		raise(SIGKILL);
	r->submitted++;
	ret = store_submitted(r->store, c, id) ? EXIT_IOERR : 0;
	if (ret == 0 && r->verbosity >= 0)
		safe_text_line(r->out, "%s: submitted as job %" PRIu32
		               " (%s)", c->name, id, tag);
	return ret;
}

/*
 * A retry avoids the nodes where its failed attempt ran (maybe_retry).
 * Where those were all the nodes it can have, as after an outage of
 * munge that failed every node at once, Slurm refused it for good
 * ("Requested node configuration is not available") and the candidate
 * was lost with its retry.  A rejected request made no job, so the same
 * tag is sent once more without the exclusion, and said.  Only that
 * rejection: one for another reason (an account, a partition) would be
 * met again, the job sent twice and the warning wrong.
 */
static int
submit_anywhere(struct runner *r, const struct cand_status *c,
                struct slurm_submit_req *req, uint32_t *id,
                struct strbuf *err)
{
	warning("%s: Slurm refused it avoiding %s, where its failed "
	        "attempt ran (%s): submitting it without avoiding them",
	        c->name, req->exclude, err->buf);
	req->exclude = NULL;
	return slurm_submit(r->slurm, req, id, err);
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
	char *run = runner_run_dir(r, c);
	char *out = output_pattern(run);
	char tag[64];
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
	if (s == SLURM_E_NO_NODES && req.exclude)
		s = submit_anywhere(r, c, &req, &id, &err);
	ret = submit_outcome(r, c, s, id, tag, err.buf, req.exclude);
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
		run = runner_run_dir(r, c);
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
