/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * run-progress.h - how far a running job's training has got, as the
 * end of its output log (runs/NAME/slurm-ID.out, the log results
 * reads) says: the step it logged last, the run's total when the log
 * prints one, and the latest step time.  For status: read-only, quiet,
 * and cheap whatever the log's size.
 */
#ifndef PARATUNE_RUN_PROGRESS_H
#define PARATUNE_RUN_PROGRESS_H

#include "store.h"
#include "strbuf.h"

/* Bytes read at most of each log, at its end: a record line is some
 * hundred bytes, so this holds thousands of them. */
#define RUN_PROGRESS_TAIL ((long long)1 << 20)

struct run_progress {
	long step;           /* the highest step logged; -1: unknown */
	long total_steps;    /* the steps the run was set to do; -1 */
	double step_s;       /* the latest step time logged, s; NAN */
};

/*
 * The progress of each of s's candidates, in s->st's order (free() the
 * array).  Only a running job's log is read; every other candidate, and
 * one whose log is missing, unreadable, a link, not a regular file, or
 * without a step record in its last RUN_PROGRESS_TAIL bytes, has none
 * known.  Never writes, never prints, never fails.
 */
struct run_progress *run_progress_read(const struct store *s);

/* "120/500 1.234s", "120 1.234s" (no total), "120/500" (no time), or
 * "-" when no step is known. */
void run_progress_text(const struct run_progress *p, struct strbuf *sb);

#endif
