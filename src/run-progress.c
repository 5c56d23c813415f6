/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * run-progress.c - how far running jobs have got, from the end of their
 * output logs (run-progress.h).
 *
 * A log lies in a directory its owner can write, and status runs from
 * root's cron: it is opened as results opens it (logparse_regular_tail:
 * no link followed anywhere beneath runs/, a FIFO or device refused
 * without blocking) and only its tail is read, so a planted terabyte
 * costs no more than a real log.  Whatever goes wrong leaves the
 * candidate's progress unknown: status still shows every row.
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "logparse.h"
#include "run-progress.h"
#include "xalloc.h"

static void
progress_unknown(struct run_progress *p)
{
	p->step = -1;
	p->total_steps = -1;
	p->step_s = NAN;
}

/* The latest step time among r's steps, those of the lines read last. */
static double
latest_step_time(const struct log_result *r)
{
	for (size_t i = r->nsteps; i-- > 0;)
		if (isfinite(r->steps[i].step_time_s))
			return r->steps[i].step_time_s;
	return NAN;
}

/* Read c's log beneath runs into p (left unknown when there is none). */
static void
progress_of(struct logparse *lp, const char *runs,
            const struct cand_status *c, struct run_progress *p)
{
	char *rel = xasprintf("%s/slurm-%" PRIu32 ".out", c->name, c->job_id);
	struct log_result r;

	/* What could be read before a read error still counts. */
	(void)logparse_regular_tail(lp, runs, rel, RUN_PROGRESS_TAIL, &r);
	if (r.nsteps > 0) {
		p->step = r.last_step;
		p->total_steps = r.total_steps > 0 ? r.total_steps : -1;
		p->step_s = latest_step_time(&r);
	}
	log_result_release(&r);
	free(rel);
}

struct run_progress *
run_progress_read(const struct store *s)
{
	const struct state *st = &s->st;
	struct run_progress *v = xcalloc(st->n ? (size_t)st->n : 1,
	                                 sizeof(*v));
	struct logparse lp;
	char *runs = NULL;

	for (int i = 0; i < st->n; i++) {
		const struct cand_status *c = &st->v[i];

		progress_unknown(&v[i]);
		if (c->state != CS_RUNNING || c->job_id == 0)
			continue;
		/* Compiling the patterns costs more than a short log:
		 * only once a job runs. */
		if (runs == NULL) {
			runs = xasprintf("%s/runs", s->dir);
			logparse_init(&lp);
		}
		progress_of(&lp, runs, c, &v[i]);
	}
	if (runs != NULL) {
		logparse_release(&lp);
		free(runs);
	}
	return v;
}

void
run_progress_text(const struct run_progress *p, struct strbuf *sb)
{
	if (p->step < 0) {
		strbuf_addch(sb, '-');
		return;
	}
	strbuf_addf(sb, "%ld", p->step);
	if (p->total_steps > 0)
		strbuf_addf(sb, "/%ld", p->total_steps);
	if (isfinite(p->step_s))
		strbuf_addf(sb, " %.3fs", p->step_s);
}
