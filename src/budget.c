/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * budget.c - GPU-hours used and committed by a campaign (budget.h).
 */
#include "autoconfig.h"

#include "budget.h"

static double
job_gpus(const struct settings *c)
{
	return (double)c->nodes * (double)c->gpus_per_node;
}

double
budget_job_limit(const struct settings *c)
{
	return c->limits.max_minutes_per_run / 60.0 * job_gpus(c);
}

double
budget_job_expected(const struct settings *c, double pred_step_s)
{
	double limit = budget_job_limit(c);
	double h = pred_step_s * c->limits.max_steps_per_run / 3600.0 *
	           job_gpus(c);

	return pred_step_s > 0 && h < limit ? h : limit;
}

/* Seconds a started job has run by now (0 when it has not started).
 * A running job's end time is Slurm's expected end, its start plus the
 * time limit: counted as spent, the whole limit showed spent at once. */
double
budget_job_seconds(const struct cand_status *c, long now)
{
	long end = c->end_time > 0 && c->end_time < now ? c->end_time : now;

	return c->start_time > 0 && end > c->start_time
	       ? (double)(end - c->start_time) : 0.0;
}

void
budget_compute(const struct store *s, long now, struct budget *b)
{
	const struct settings *k = &s->settings;
	double limit = budget_job_limit(k);

	b->used = b->committed = b->queued = 0;
	for (int i = 0; i < s->st.n; i++) {
		const struct cand_status *c = &s->st.v[i];
		double used = budget_job_seconds(c, now) / 3600.0 * job_gpus(k);

		b->used += used;
		/* A running job may take the rest of its limit; one still
		 * to start (again, after a retry) its whole limit. */
		if (c->state == CS_RUNNING)
			b->committed += used < limit ? limit - used : 0;
		else if (c->state == CS_QUEUED || cand_state_active(c->state))
			b->committed += limit;
		if (c->state == CS_QUEUED)
			b->queued += limit;
	}
	b->committed += b->used;
}
