/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * budget.c - GPU-hours used and committed by a campaign (budget.h).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "safe-text.h"

static double
job_gpus(const struct settings *c)
{
	return (double)c->nodes * (double)c->gpus_per_node;
}

/*
 * The nodes c was planned on, from its name ("{family}_{size}b_{nodes}
 * nodes_tp_...", candidate_name_prefix), else the campaign's.  After
 * campaign.conf's nodes were edited since plan (store.c warns of it),
 * status and results counted every job's GPU-hours at the edited count;
 * submit and resume refuse such a campaign.
 */
static double
cand_nodes(const struct settings *k, const struct cand_status *c)
{
	int nodes = candidate_name_nodes(c->name);

	return nodes > 0 ? (double)nodes : (double)k->nodes;
}

/* GPU-hours of one job of c: its nodes times the campaign's GPUs each. */
static double
cand_gpus(const struct settings *k, const struct cand_status *c)
{
	return cand_nodes(k, c) * (double)k->gpus_per_node;
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

double
budget_cand_seconds(const struct cand_status *c, long now)
{
	return (double)c->spent_s + budget_job_seconds(c, now);
}

void
budget_compute(const struct store *s, long now, struct budget *b)
{
	const struct settings *k = &s->settings;

	b->used = b->committed = b->queued = 0;
	for (int i = 0; i < s->st.n; i++) {
		const struct cand_status *c = &s->st.v[i];
		double gpus = cand_gpus(k, c);
		double limit = k->limits.max_minutes_per_run / 60.0 * gpus;
		double used = budget_cand_seconds(c, now) / 3600.0 * gpus;

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

bool
budget_holds_queued(const struct store *s, const struct settings *site,
                    long now, double *after)
{
	struct budget b;
	double sum;

	if (site->policy.max_gpu_hours <= 0)
		return false;
	budget_compute(s, now, &b);
	if (b.queued <= 0)
		return false;
	sum = b.committed - b.queued + budget_job_limit(&s->settings);
	if (after)
		*after = sum;
	return sum > site->policy.max_gpu_hours;
}

/* A campaign held with no job left in Slurm waits for the site, not for
 * a job's end: status said "only resume submits them" of candidates
 * that resume never would, and --watch waited for ever. */
void
budget_held_text(const struct store *s, const struct settings *site,
                 long now, struct strbuf *out)
{
	int n[CS_COUNT], active = store_active_count(&s->st);
	double after = 0;
	const struct origin *o;

	if (!budget_holds_queued(s, site, now, &after))
		return;
	store_counts(&s->st, n);
	strbuf_addf(out, "%d queued, held by policy.max_gpu_hours = %g",
	            n[CS_QUEUED], site->policy.max_gpu_hours);
	if ((o = settings_origin(site, "policy.max_gpu_hours")) && o->file)
		strbuf_addf(out, " (%s:%d)", o->file, o->line);
	strbuf_addf(out, ": the next job could take the campaign to %.1f "
	            "GPU-hours; ", after);
	if (active > 0)
		strbuf_addf(out, "it waits for the %d active job%s to end",
		            active, active == 1 ? "" : "s");
	else {
		strbuf_addstr(out, "nothing runs until the site raises the "
		              "cap ('paratune cancel ");
		safe_text_append(out, s->dir);
		strbuf_addstr(out, "' ends the campaign)");
	}
}
