/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * budget.h - the GPU-hours a campaign has used and may still use, for
 * the site's policy.max_gpu_hours and for what submit says it commits.
 *
 * A job can be charged at most its whole time limit
 * (limits.max_minutes_per_run) times its GPUs, so that is what a job
 * not yet started commits; a started one has used what Slurm's start
 * and end times say, and commits the rest of its limit while it runs.
 */
#ifndef PARATUNE_BUDGET_H
#define PARATUNE_BUDGET_H

#include "store.h"
#include "strbuf.h"

struct budget {
	double used;       /* started jobs, from Slurm's times */
	double committed;  /* used, plus what every job not final may take */
	double queued;     /* of that, the jobs not submitted yet */
};

/* The most GPU-hours one job of the campaign can be charged. */
double budget_job_limit(const struct settings *c);
/* The GPU-hours one job is expected to take: its predicted step time
 * times limits.max_steps_per_run, within its limit (pred_step_s <= 0:
 * the limit). */
double budget_job_expected(const struct settings *c, double pred_step_s);
/* Seconds c's newest job has run by now: 0 before it started, up to
 * now while it runs (Slurm's end time is then its expected end). */
double budget_job_seconds(const struct cand_status *c, long now);
/* Seconds all of c's jobs have run by now: the earlier attempts' and
 * the newest's. */
double budget_cand_seconds(const struct cand_status *c, long now);
/* What the campaign in s has used and committed at time now. */
void budget_compute(const struct store *s, long now, struct budget *b);

/*
 * Whether the site's policy.max_gpu_hours, as site holds it (the
 * store's own settings when opened under STORE_POLICY), holds the
 * campaign's queued candidates back at time now: what it has used and
 * its submitted jobs may still take, plus one more job's whole limit,
 * passes the cap.  *after (may be NULL) is set to that sum.
 */
bool budget_holds_queued(const struct store *s, const struct settings *site,
                         long now, double *after);
/*
 * Add why the queued candidates are held, and what frees them, to out
 * (no newline).  Only when budget_holds_queued() says they are.
 */
void budget_held_text(const struct store *s, const struct settings *site,
                      long now, struct strbuf *out);

#endif
