/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * runner-int.h - what the runner's halves share: runner.c (polling,
 * retrying and cancelling the jobs Slurm holds) and runner-submit.c
 * (submitting what is due).  Only src/runner*.c include it; everyone
 * else goes through runner.h.
 */
#ifndef PARATUNE_RUNNER_INT_H
#define PARATUNE_RUNNER_INT_H

#include "runner.h"

/* c's run directory, runs/NAME (allocated): its job script, where its
 * job runs and writes. */
char *runner_run_dir(const struct runner *r, const struct cand_status *c);

/* Connect to Slurm on first use (r->slurm); 0, or EXIT_TEMPFAIL after
 * an error naming the campaign, with r->unreachable set. */
int runner_slurm(struct runner *r);

#endif
