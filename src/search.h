/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * search.h - what a campaign's measurements prove about the candidates
 * it has not run yet (search.strategy = "adaptive").
 *
 * An out-of-memory run proves that every candidate needing at least as
 * much memory would run out too; those still queued are pruned (a store
 * event naming the candidate that proved it) and never submitted.  A
 * completed run proves the same the other way: a candidate planned as
 * oom-risk that needs at most its memory fits (a fits event), and may
 * run.
 * Every measured run corrects the predictions of those still queued,
 * which are submitted fastest expected first until none can win.
 */
#ifndef PARATUNE_SEARCH_H
#define PARATUNE_SEARCH_H

#include <stdbool.h>
#include <stdio.h>

#include "layout.h"
#include "store.h"

/*
 * Whether layout y needs at least the memory per GPU of layout x by a
 * monotone relation: the same layout but for a micro-batch at least as
 * large, no more recomputation, and tensor, pipeline, context and expert
 * parallel sizes no larger (each shards weights or activations, so a
 * smaller one leaves more on every GPU).  Sequence parallelism follows
 * tp and is not compared.
 */
bool search_needs_more_memory(const struct layout *y, const struct layout *x);

/*
 * Under search.strategy = "adaptive": prune every queued candidate that
 * an out-of-memory run (Slurm's OUT_OF_MEMORY, or CUDA's out of memory
 * in its log) proves would run out too.  Returns how many were pruned,
 * or after an error message -2 (candidates.csv cannot be read) or -1
 * (the journal cannot be written).
 */
int search_prune(struct store *s, FILE *out, int verbosity);

/*
 * Under search.strategy = "adaptive": record (a fits event naming it)
 * that a completed run proves every candidate planned as oom-risk, and
 * not selected for that reason, whose layout needs at most its memory
 * (search_needs_more_memory read the other way) fits too.  Once the
 * campaign selected every safe candidate (submit without --top), those
 * proved are queued, for search_adapt to rank by their prediction like
 * the others, as many as policy.max_candidates leaves room for; a
 * stopped search queues none.  Each is proved once: a
 * candidate proved already is not looked at again.  Returns how many
 * were proved now, or -2 or -1 after an error message as search_prune.
 */
int search_prove(struct store *s, FILE *out, int verbosity);

struct results;
struct runner;
/*
 * Under search.strategy = "adaptive", after a poll and a prune: refit
 * the correction (search-fit.h) to the campaign's measured runs when
 * there are new ones (a refit event), rank the queued candidates by
 * their corrected prediction (the base first) and keep those that can
 * still win: the low end of their interval beats the best measured by
 * more than search.min_gain.  Sets r->order to what may be submitted
 * now (at most what limits.gpu_hours and policy.max_gpu_hours leave
 * room for; the caller frees it).  When nothing may run and no job is
 * active, the search stops (a stopped event) and every queued
 * candidate is skipped with the reason: no_gain or budget.  The base
 * is always kept; the bar is set by any measured run.  0 or an exit
 * code.
 */
int search_adapt(struct runner *r);

/*
 * Under search.strategy = "adaptive", a search not stopped: how many
 * queued candidates can still win by res's measurements and the last
 * refit (those search_adapt would submit, before the budget); -1 under
 * another strategy, or once the search stopped.
 */
int search_promising(struct store *s, const struct results *res);

/*
 * One step of a campaign, as submit and resume take it: ask Slurm where
 * the jobs stand, prune what that proves, learn from what was measured,
 * submit what is due.  0 or an exit code (runner.h's).
 */
int search_step(struct runner *r);

#endif
