/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm.c - paratune's adapter to Slurm: its errors, and polling and
 * control of jobs through libslurm.  Opening the connection is
 * slurm-conf.c, submission slurm-submit.c, the decoding of states and
 * reasons slurm-state.c, accounting slurm-acct.c; those, this file and
 * slurm-int.h are the only files that see Slurm's headers.
 *
 * Everything goes through the controller's RPCs and slurmdbd's, never
 * through sbatch/squeue/sacct: one RPC per poll however many jobs a
 * campaign has, and errors as numbers rather than as text to scrape.
 * Written against Slurm 22.05 (Debian 12); the API differences of later
 * releases that touch these files are guarded by SLURM_VERSION_NUMBER,
 * and scripts/slurm-compat compiles them against a description of each
 * (tests/slurm-api: a Slurm name used here must be declared there).
 */
#include "autoconfig.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nodelist.h"
#include "slurm-int.h"
#include "slurm.h"
#include "strbuf.h"
#include "xalloc.h"

/* ---- errors -------------------------------------------------------------- */

/*
 * Which class of enum slurm_err an errno from libslurm belongs to.  The
 * communication and authentication failures are temporary: the cron
 * run that meets them exits 75 and the next one tries again.  The rest
 * are the controller's answers to this request.
 */
static enum slurm_err
slurm_err_class(int e)
{
	if ((e >= SLURM_COMMUNICATIONS_CONNECTION_ERROR &&
	     e <= SLURM_COMMUNICATIONS_SHUTDOWN_ERROR) ||
	    e == SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR ||
	    (e >= SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR &&
	     e <= SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR) ||
	    (e >= SLURM_E_SOCKET_FIRST &&
	     e <= SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT) ||
	    e == SLURM_PROTOCOL_AUTHENTICATION_ERROR ||
	    (e >= ESLURM_AUTH_CRED_INVALID && e <= ESLURM_AUTH_UNPACK) ||
	    e == ESLURM_DB_CONNECTION || e == ESLURM_DB_CONNECTION_INVALID ||
	    e == ESLURM_IN_STANDBY_MODE || e == ESLURM_IN_STANDBY_USE_BACKUP ||
	    e == SLURM_E_QUEUE_FULL || e == ESLURM_NODES_BUSY ||
	    e == ESLURM_PORTS_BUSY || e == EAGAIN || e == ECONNREFUSED ||
	    e == ETIMEDOUT || e == ECONNRESET || e == EHOSTUNREACH ||
	    e == ENETUNREACH)
		return SLURM_E_UNREACHABLE;
	if (e == ESLURM_INVALID_JOB_ID)
		return SLURM_E_NOT_FOUND;
	if (e == ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE)
		return SLURM_E_NO_NODES;
	if (e == ESLURM_PARTITION_NOT_AVAIL || e == ESLURM_PARTITION_DOWN ||
	    e == ESLURM_RESERVATION_MAINT || e == ESLURM_QOS_THRES)
		return SLURM_E_REFUSED_NOW;
	return SLURM_E_REJECTED;
}

/* Put "what: Slurm's text" into err; return the error's class. */
int
slurm_fail(struct strbuf *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		strbuf_reset(err);
		va_start(ap, fmt);
		strbuf_vaddf(err, fmt, ap);
		va_end(ap);
		strbuf_addf(err, ": %s", slurm_strerror(e));
	}
	return slurm_err_class(e);
}

/*
 * libslurm's reason for error e into sb, without the controller where
 * its text names it: "connect failure" of "Unable to contact slurm
 * controller (connect failure)".  For a message that names the
 * controller itself (poll_fail's): with libslurm's it named the
 * controller twice.
 */
static void
slurm_err_reason(struct strbuf *sb, int e)
{
	static const char head[] = "Unable to contact slurm controller (";
	const char *t = slurm_strerror(e);
	size_t n = strlen(t), h = sizeof head - 1;

	if (n > h + 1 && !strncmp(t, head, h) && t[n - 1] == ')')
		strbuf_add(sb, t + h, n - h - 1);
	else
		strbuf_addstr(sb, t);
}

/*
 * The first line of what libslurm logged (text), onto sb without its
 * "PROGRAM: error: " (or "fatal: ") prefix: libslurm names the program
 * as it was invoked, and paratune's own message says "error: " already.
 * A line of level info has no level: only "paratune: " goes.
 */
void
slurm_log_line(struct strbuf *sb, const char *text)
{
	size_t n = strcspn(text, "\n"), prog = strcspn(text, ": \n");
	const char *p = text;

	if (!strncmp(text + prog, ": error: ", 9) ||
	    !strncmp(text + prog, ": fatal: ", 9))
		p += prog + 9;
	else if (!strncmp(text, "paratune: ", 10))
		p += 10;
	else if (!strncmp(text, "error: ", 7) || !strncmp(text, "fatal: ", 7))
		p += 7;
	strbuf_add(sb, p, n - (size_t)(p - text));
}

/* ---- the controller's view ----------------------------------------------- */

/* Copy a possibly NULL string into a fixed field, truncating. */
void
slurm_copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* Our record of a job from the controller's record. */
static void
job_from_info(struct slurm_job *j, const slurm_job_info_t *in)
{
	memset(j, 0, sizeof(*j));
	j->job_id = in->job_id;
	slurm_copy(j->name, sizeof j->name, in->name);
	j->state = slurm_state_from(in->job_state);
	slurm_exit_status(in->exit_code, &j->exit_code, &j->exit_signal);
	slurm_reason(j->reason, sizeof j->reason, in->state_reason,
	             in->state_desc);
	nodelist_copy(j->nodes, sizeof j->nodes, in->nodes);
	if (in->work_dir && strlen(in->work_dir) < sizeof j->work_dir)
		slurm_copy(j->work_dir, sizeof j->work_dir, in->work_dir);
	j->submit_time = in->submit_time;
	j->start_time = in->start_time;
	j->end_time = in->end_time;
}

/*
 * A failed poll into err; its class.  One that did not reach the
 * controller says so, what was not done and libslurm's reason alone,
 * "cannot reach the Slurm controller: jobs not polled (connect
 * failure)" (slurm_err_reason); one it could not sign or that was
 * refused as unsigned says that instead (munged down is no controller
 * out of reach), with what libslurm logged meanwhile where that gives
 * the reason, "cannot authenticate to the Slurm controller: jobs not
 * polled (Protocol authentication error; libslurm: Munge encode failed:
 * ...)" (slurm-said.c).  Any other is said as slurm_fail says it.
 */
static int
poll_fail(struct strbuf *err, int e, const struct slurm_said *said)
{
	if (slurm_err_class(e) != SLURM_E_UNREACHABLE) {
		slurm_fail(err, e, "cannot load jobs");
		slurm_said_add(said, err);
		return slurm_err_class(e);
	}
	if (err) {
		strbuf_reset(err);
		strbuf_addstr(err, slurm_auth_error(e)
		              ? "cannot authenticate to the Slurm controller: "
		              : "cannot reach the Slurm controller: ");
		strbuf_addstr(err, "jobs not polled (");
		slurm_err_reason(err, e);
		if (said->reason.len > 0)
			strbuf_addf(err, "; libslurm: %s", said->reason.buf);
		strbuf_addch(err, ')');
	}
	return SLURM_E_UNREACHABLE;
}

/* Keep this user's jobs of the controller's answer msg in c. */
static void
poll_keep(struct slurm_conn *c, const job_info_msg_t *msg)
{
	/* Only the converted records are kept: the caller reads those,
	 * and libslurm's message would double the memory. */
	c->jobs_update = msg->last_update;
	c->polled = true;
	c->njobs = 0;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const slurm_job_info_t *in = &msg->job_array[i];

		if (in->user_id != (uint32_t)c->uid)
			continue;
		ALLOC_GROW(c->jobs, (size_t)c->njobs + 1, c->jobs_alloc);
		job_from_info(&c->jobs[c->njobs++], in);
	}
}

/* Load this user's jobs from the controller in one RPC. */
int
slurm_poll(struct slurm_conn *c, const struct slurm_job **jobs, int *n,
           struct strbuf *err)
{
	job_info_msg_t *msg = NULL;
	struct slurm_said said;
	int e = 0, ret = SLURM_E_OK;
	bool failed;

	*jobs = NULL;
	*n = 0;
	/* libslurm's lines go into paratune's message (slurm-said.c). */
	slurm_said_begin(&said);
	/* Given the time of our last answer, an unchanged controller says
	 * SLURM_NO_CHANGE_IN_DATA instead of sending every job again
	 * (squeue does the same: src/squeue/squeue.c). */
	failed = slurm_load_jobs(c->polled ? c->jobs_update : 0, &msg,
	                         SHOW_ALL) != SLURM_SUCCESS;
	if (failed)
		e = errno;
	slurm_said_end(&said, failed ? e : 0);
	if (!failed) {
		poll_keep(c, msg);
		slurm_free_job_info_msg(msg);
	} else if (e != SLURM_NO_CHANGE_IN_DATA || !c->polled) {
		ret = poll_fail(err, e, &said);
	}
	slurm_said_release(&said);
	if (ret != SLURM_E_OK)
		return ret;
	*jobs = c->jobs;
	*n = c->njobs;
	return SLURM_E_OK;
}

/* ---- control ------------------------------------------------------------- */

/*
 * Cancel a job as scancel does by default: SIGKILL to the whole job
 * (src/scancel/scancel.c).  A job that already ended is not an error.
 */
int
slurm_cancel(struct slurm_conn *c, uint32_t job_id, struct strbuf *err)
{
	struct slurm_said said;
	int e = 0, ret;

	slurm_said_begin(&said);	/* as in slurm_poll */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_step_id_t step = SLURM_STEP_ID_INITIALIZER;

	step.job_id = job_id;
	if (slurm_kill_job(step, SIGKILL, 0) != SLURM_SUCCESS)
		e = errno;
#else
	if (slurm_kill_job(job_id, SIGKILL, 0) != SLURM_SUCCESS)
		e = errno;
#endif
	slurm_said_end(&said, e);
	if (e == 0 || e == ESLURM_ALREADY_DONE) {
		ret = SLURM_E_OK;
	} else {
		ret = slurm_fail(err, e, "cannot cancel job %u",
		                 (unsigned)job_id);
		slurm_said_add(&said, err);
	}
	slurm_said_release(&said);
	return ret;
}

/*
 * Release a held job as `scontrol release` does: an update that sets
 * the priority to INFINITE, which asks the controller to compute it
 * again (src/scontrol/update_job.c, scontrol_hold).  Up to 25.05 by the
 * numeric id through slurm_update_job, as slurm_update_job2 leaks its
 * answer there (src/api/update_config.c, 22.05); job_desc_msg_t lost the
 * numeric job_id in 25.11, so from then on by the id as a string.
 */
int
slurm_release(struct slurm_conn *c, uint32_t job_id, struct strbuf *err)
{
	job_desc_msg_t desc;
	struct slurm_said said;
	int e = 0, ret;

	slurm_init_job_desc_msg(&desc);
	slurm_said_begin(&said);	/* as in slurm_poll */
	desc.priority = INFINITE;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	job_array_resp_msg_t *resp = NULL;
	char id[16];

	snprintf(id, sizeof id, "%u", (unsigned)job_id);
	desc.job_id_str = id;
	if (slurm_update_job2(&desc, &resp) != SLURM_SUCCESS)
		e = errno;
	else if (resp && resp->job_array_count > 0)
		e = (int)resp->error_code[0]; /* one job, one answer */
	if (resp)
		slurm_free_job_array_resp(resp);
#else
	desc.job_id = job_id;
	if (slurm_update_job(&desc) != SLURM_SUCCESS)
		e = errno;
#endif
	slurm_said_end(&said, e);
	ret = e == 0 ? SLURM_E_OK
	      : slurm_fail(err, e, "cannot release job %u", (unsigned)job_id);
	if (e != 0)
		slurm_said_add(&said, err);
	slurm_said_release(&said);
	return ret;
}
