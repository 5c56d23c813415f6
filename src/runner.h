/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * runner.h - drives a campaign's jobs through Slurm: poll, retry,
 * resolve lost intents, submit what is due, cancel.
 *
 * The runner owns the connection to Slurm and nothing else: the
 * campaign directory and every transition belong to the store
 * (store.h), which the caller opens for writing and closes.
 */
#ifndef PARATUNE_RUNNER_H
#define PARATUNE_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "store.h"

struct slurm_conn;

struct runner {
	struct store *store;      /* the campaign, open for writing */
	struct slurm_conn *slurm; /* NULL until first needed */
	int verbosity;
	FILE *out;                /* where transitions are printed */
	int submitted, rejected;  /* submissions of this run */
	bool segment_warned;      /* said once that segments are not asked */
	bool unreachable;         /* the controller did not answer */
	/* NULL: the queued candidates by the plan's rank (the base first).
	 * Else the search's choice: only these, in this order (search.h);
	 * the caller owns the array. */
	struct cand_status **order;
	int norder;
};

void runner_init(struct runner *r, struct store *s, FILE *out,
                 int verbosity);
/* Close the connection to Slurm; the store stays the caller's. */
void runner_release(struct runner *r);

/*
 * A job the controller forgot and accounting never knew, judged by its
 * output file at path: Slurm's verdict (time limit, node failure,
 * preemption, cancelled), an OOM kill, or the trainer's last words;
 * CS_FAILED when none, or when the file cannot be read.
 */
enum cand_state runner_output_state(const char *path);
/*
 * The job an interrupted submission made, from the output it left in
 * its run directory dir: the newest slurm-ID.out (a regular file, not
 * followed) written at or after since, the intent's time; 0 when there
 * is none.  Where no accounting is kept, a job that ran and left the
 * controller (MinJobAge) before this run is known only by that file;
 * without it, it was called lost and the candidate ran twice.  The
 * intent's time and the file's are both this file system's clock as
 * this host sees it.
 */
uint32_t runner_output_newest(const char *dir, long since);

/*
 * Ask Slurm where every active job stands and record the transitions
 * (with retries for node failures and preemption).  Returns 0,
 * EXIT_TEMPFAIL when the controller or accounting cannot be reached,
 * or EXIT_IOERR when a transition cannot be recorded.
 */
int runner_poll(struct runner *r);

/*
 * Free space a job's run directory needs before it is submitted: a
 * training log of a few thousand steps, with room to spare.  A site's
 * scratch with less is full.
 */
#define RUNNER_MIN_FREE_MIB 64

/*
 * Submit queued candidates (r->order's, when set) while fewer than the
 * limit are active, none while the run's file system has under
 * RUNNER_MIN_FREE_MIB free.
 * dry_run prints what would be submitted.  0, EXIT_TEMPFAIL when Slurm
 * cannot be reached (the intent stays for the next run), EXIT_IOERR on
 * a full file system, or another exit code after an error message.
 */
int runner_submit_due(struct runner *r, bool dry_run);

/*
 * Cancel every queued or active candidate's job and record it.  A job
 * Slurm could not be told to cancel is not recorded: EXIT_TEMPFAIL when
 * it cannot be reached, EXIT_UNAVAILABLE when it refused.
 */
int runner_cancel_all(struct runner *r);

#endif
