/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * search.h - what a campaign's measurements prove about the candidates
 * it has not run yet (search.strategy = "adaptive").
 *
 * An out-of-memory run proves that every candidate needing at least as
 * much memory would run out too; those still queued are pruned (a store
 * event naming the candidate that proved it) and never submitted.
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
 * or -1 after an error message.
 */
int search_prune(struct store *s, FILE *out, int verbosity);

struct runner;
/*
 * One step of a campaign, as submit and resume take it: ask Slurm where
 * the jobs stand, prune what that proves, submit what is due.  0 or an
 * exit code (runner.h's).
 */
int search_step(struct runner *r);

#endif
