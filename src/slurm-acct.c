/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm-acct.c - what slurmdbd remembers of paratune's jobs, once the
 * controller has forgotten them (MinJobAge): their final state, exit
 * status, reason and nodes, read through libslurmdb's job query.
 *
 * slurmdbd is optional on a cluster and may be down while the controller
 * is up; each is a different answer (SLURM_E_NOT_FOUND, "accounting is
 * not configured", against SLURM_E_UNREACHABLE), so that a campaign
 * waits for an outage rather than calling its jobs lost.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodelist.h"
#include "slurm-int.h"
#include "stderr-capture.h"
#include "strbuf.h"
#include "xalloc.h"

/* ---- accounting ---------------------------------------------------------- */

/* Learn ClusterName and AccountingStorageType from the controller once. */
static int
acct_conf(struct slurm_conn *c, struct strbuf *err)
{
	slurm_conf_t *conf = NULL;
	const char *type;

	if (c->conf_loaded)
		return SLURM_E_OK;
	if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS)
		return slurm_fail(err, errno,
		                  "cannot read the cluster configuration");
	type = conf->accounting_storage_type;
	if (type && *type && strcmp(type, "accounting_storage/none"))
		c->storage = xstrdup(type);
	c->cluster = xstrdup(conf->cluster_name ? conf->cluster_name : "");
	SLURM_FREE_CONF(conf);
	c->conf_loaded = true;
	return SLURM_E_OK;
}

/*
 * What libslurm's log line (said) adds to its reason, onto sb: the
 * line without the function that logged it and without the reason
 * at its end, "failed to open persistent connection to
 * host:localhost:6819" of "slurm_persist_conn_open_without_init:
 * failed to open ...:6819: Connection refused".  Nothing where that
 * leaves nothing.
 */
static void
acct_detail(struct strbuf *sb, const char *said, const char *reason)
{
	struct strbuf line = STRBUF_INIT;
	const char *p;
	size_t id, n, r = strlen(reason);

	slurm_log_line(&line, said);
	p = line.buf;
	id = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (id > 0 && !strncmp(p + id, ": ", 2))
		p += id + 2;
	n = strlen(p);
	if (n >= r + 2 && !strcmp(p + n - r, reason) &&
	    !strncmp(p + n - r - 2, ": ", 2))
		n -= r + 2;
	if (n > 0 && strncmp(p, reason, n))
		strbuf_addf(sb, " (libslurm: %.*s)", (int)n, p);
	strbuf_release(&line);
}

/*
 * slurmdbd out of reach, into err: what was not done and libslurm's
 * reason, e (ESLURM_DB_CONNECTION where it gave none).  libslurm logged
 * its own lines to stderr meanwhile (said, captured there); what the
 * first adds to the reason is said after it, in one message.
 */
static void
acct_fail(const struct slurm_conn *c, struct strbuf *err, int e,
          const char *said, const char *what)
{
	e = e ? e : ESLURM_DB_CONNECTION;
	slurm_fail(err, e, "%s slurmdbd (%s)", what, c->storage);
	if (err)
		acct_detail(err, said, slurm_strerror(e));
}

/* Open the slurmdbd connection if it is not open. */
static int
acct_connect(struct slurm_conn *c, struct strbuf *err)
{
	struct stderr_capture cap;
	struct strbuf said = STRBUF_INIT;
	int e;

	if (c->db)
		return SLURM_E_OK;
	/* libslurm logs its connection's failures to stderr, before
	 * paratune's message and in its own words: kept for that. */
	stderr_capture_begin(&cap);
	/* As sacct does: success is errno still 0 after the call. */
	errno = 0;
	c->db = slurmdb_connection_get(NULL);
	e = errno;
	if (c->db && e != SLURM_SUCCESS)
		slurmdb_connection_close(&c->db);
	stderr_capture_end(&cap, &said);
	if (c->db && e == SLURM_SUCCESS) {
		strbuf_release(&said);
		return SLURM_E_OK;
	}
	c->db = NULL;
	if (e == ESLURM_DB_CONNECTION && err) {
		/* slurmdbd's own answer to the connection: its database
		 * (MariaDB) is down.  "cannot reach slurmdbd" sent the
		 * sysadmin to a daemon that runs. */
		slurm_fail(err, e, "slurmdbd (%s) answers but cannot reach "
		           "its database", c->storage);
		acct_detail(err, said.buf, slurm_strerror(e));
	} else {
		acct_fail(c, err, e, said.buf, "cannot reach");
	}
	strbuf_release(&said);
	return SLURM_E_UNREACHABLE;
}

/* A time of an accounting record; 0 for none.  A job that never
 * started (cancelled while it waited) has NO_VAL there, which read as a
 * start in 2106 and an end before it. */
static time_t
acct_time(time_t t)
{
	return t > 0 && t < (time_t)NO_VAL ? t : 0;
}

/* Our record of a job from its accounting record. */
static void
job_from_rec(struct slurm_job *j, const slurmdb_job_rec_t *in)
{
	memset(j, 0, sizeof(*j));
	j->job_id = in->jobid;
	slurm_copy(j->name, sizeof j->name, in->jobname);
	j->state = slurm_state_from(in->state);
	slurm_exit_status(in->exitcode, &j->exit_code, &j->exit_signal);
	slurm_reason(j->reason, sizeof j->reason, in->state_reason_prev,
	             NULL);
	/* slurmdbd writes "None assigned" for a job that never ran. */
	if (in->nodes && strcmp(in->nodes, "None assigned"))
		nodelist_copy(j->nodes, sizeof j->nodes, in->nodes);
	j->submit_time = acct_time(in->submit);
	j->start_time = acct_time(in->start);
	j->end_time = acct_time(in->end);
	j->from_accounting = true;
}

/* Keep the records of list that match; the list stays the caller's. */
static void
acct_collect(struct slurm_conn *c, SLURM_LIST list, const char *prefix,
             time_t since)
{
	SLURM_LIST_ITR it = slurm_list_iterator_create(list);
	const slurmdb_job_rec_t *rec;
	size_t plen = prefix ? strlen(prefix) : 0;

	c->nacct = 0;
	while ((rec = slurm_list_next(it)) != NULL) {
		if (prefix && strncmp(rec->jobname ? rec->jobname : "",
		                      prefix, plen))
			continue;
		if (since > 0 && rec->submit < since)
			continue;
		ALLOC_GROW(c->acct, (size_t)c->nacct + 1, c->acct_alloc);
		job_from_rec(&c->acct[c->nacct++], rec);
	}
	slurm_list_iterator_destroy(it);
}

/*
 * The query for every job of ours; the conditions are those of
 * slurmdbd's MySQL plugin (as_mysql_jobacct_process.c, 22.05 and 26.x):
 * - db_flags NOTSET and exitcode -1: 0 would mean "flags = 0" and "exit
 *   code 0" and match almost nothing (the testbed notes saw an empty list);
 * - NO_DEFAULT_USAGE: no hidden "since midnight" window, and no rule that
 *   a job must once have been eligible (a job cancelled while held never
 *   was); by id there is then no time condition at all, by name only
 *   "ended since `since` or not ended";
 * - NO_TRUNC: real start and end times, not clipped to the window (else
 *   a running job's end reads "now");
 * - NO_STEP: steps are not needed, and cost a query per job;
 * - DUP by id: every record of the id, not only the newest.  A
 *   controller that lost its state numbers jobs from 1 again, and the
 *   newest job of a reused id is someone else's; the caller picks its
 *   own by name.  By name, one record per id is all there is to see.
 * The lists hold the caller's own strings and records, so they have no
 * destructors and slurmdb_destroy_job_cond() (which would xfree() them)
 * is not used.
 */
static void
acct_cond(slurmdb_job_cond_t *cond, char *cluster, char *uid,
          slurm_selected_step_t *steps, int nids, time_t since)
{
	memset(cond, 0, sizeof(*cond));
	cond->cluster_list = slurm_list_create(NULL);
	slurm_list_append(cond->cluster_list, cluster);
	cond->userid_list = slurm_list_create(NULL);
	slurm_list_append(cond->userid_list, uid);
	cond->flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_TRUNC |
	              JOBCOND_FLAG_NO_DEFAULT_USAGE;
	cond->db_flags = SLURMDB_JOB_FLAG_NOTSET;
	cond->exitcode = -1;
	if (nids > 0) {
		cond->flags |= JOBCOND_FLAG_DUP;
		cond->step_list = slurm_list_create(NULL);
		for (int i = 0; i < nids; i++)
			slurm_list_append(cond->step_list, &steps[i]);
	} else {
		cond->usage_start = since > 0 ? since : 1;
	}
}

/* Free the lists acct_cond made (not their items). */
static void
acct_cond_release(slurmdb_job_cond_t *cond)
{
	if (cond->cluster_list)
		slurm_list_destroy(cond->cluster_list);
	if (cond->userid_list)
		slurm_list_destroy(cond->userid_list);
	if (cond->step_list)
		slurm_list_destroy(cond->step_list);
}

/* Be ready to ask slurmdbd: the cluster's configuration read, its
 * accounting configured and the connection open. */
static int
acct_ready(struct slurm_conn *c, struct strbuf *err)
{
	int ret;

	if ((ret = acct_conf(c, err)) != SLURM_E_OK)
		return ret;
	if (c->storage == NULL) {
		if (err) {
			strbuf_reset(err);
			strbuf_addstr(err, "accounting is not configured "
			              "(no AccountingStorageType)");
		}
		return SLURM_E_NOT_FOUND;
	}
	return acct_connect(c, err);
}

/* The nids jobs of ids as the steps of a query; the caller frees them. */
static slurm_selected_step_t *
acct_steps(const uint32_t *ids, int nids)
{
	slurm_selected_step_t *steps = xcalloc((size_t)nids, sizeof(*steps));

	for (int i = 0; i < nids; i++) {
		/* NO_VAL: the whole job, as sacct -j ID asks. */
		steps[i].array_task_id = NO_VAL;
		steps[i].het_job_offset = NO_VAL;
		steps[i].step_id.job_id = ids[i];
		steps[i].step_id.step_id = NO_VAL;
		steps[i].step_id.step_het_comp = NO_VAL;
	}
	return steps;
}

/* slurmdbd's answer to cond, or NULL after its failure into err. */
static SLURM_LIST
acct_jobs_get(struct slurm_conn *c, slurmdb_job_cond_t *cond,
              struct strbuf *err)
{
	struct stderr_capture cap;
	struct strbuf said = STRBUF_INIT;
	SLURM_LIST list;
	int e;

	stderr_capture_begin(&cap);	/* as in acct_connect */
	errno = 0;
	list = slurmdb_jobs_get(c->db, cond);
	e = errno;
	/* A dropped connection is reopened by the next call. */
	if (list == NULL) {
		slurmdb_connection_close(&c->db);
		c->db = NULL;
	}
	stderr_capture_end(&cap, list ? NULL : &said);
	if (list == NULL)
		acct_fail(c, err, e, said.buf, "cannot read accounting from");
	strbuf_release(&said);
	return list;
}

/* Look jobs up in slurmdbd, by id or by name prefix. */
int
slurm_accounting(struct slurm_conn *c, const uint32_t *ids, int nids,
                 const char *name_prefix, time_t since,
                 const struct slurm_job **jobs, int *n, struct strbuf *err)
{
	slurmdb_job_cond_t cond;
	slurm_selected_step_t *steps = NULL;
	SLURM_LIST list;
	char uid[16];
	int ret;

	*jobs = NULL;
	*n = 0;
	c->nacct = 0;
	if ((ret = acct_ready(c, err)) != SLURM_E_OK)
		return ret;
	if (ids == NULL)
		nids = 0;
	if (nids > 0)
		steps = acct_steps(ids, nids);
	snprintf(uid, sizeof uid, "%u", (unsigned)c->uid);
	acct_cond(&cond, c->cluster, uid, steps, nids,
	          nids > 0 ? 0 : since);
	list = acct_jobs_get(c, &cond, err);
	if (list == NULL) {
		ret = SLURM_E_UNREACHABLE;
	} else {
		acct_collect(c, list, nids > 0 ? NULL : name_prefix,
		             nids > 0 ? 0 : since);
		slurm_list_destroy(list);
		*jobs = c->acct;
		*n = c->nacct;
		ret = SLURM_E_OK;
	}
	acct_cond_release(&cond);
	free(steps);
	return ret;
}
