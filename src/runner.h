/*
 * runner.h - carries a campaign through Slurm: lock, recover from the
 * journal, poll, retry, submit what is due, checkpoint.
 *
 * Every change to a candidate is a journal event first and a state
 * change second (runner_event), so the state file is only a checkpoint
 * of the journal and a crash at any moment loses nothing.
 */
#ifndef PARATUNE_RUNNER_H
#define PARATUNE_RUNNER_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "slurm.h"
#include "state.h"

struct runner {
	char *dir;                /* absolute campaign directory */
	struct campaign campaign; /* DIR/campaign.conf, frozen at plan */
	struct state st;
	struct journal journal;
	struct slurm_conn *slurm; /* NULL until first needed */
	int lock_fd;
	bool sequential;          /* one job at a time (submit --sequential) */
	int verbosity;
	FILE *out;                /* where transitions are printed */
	int transitions;
};

enum runner_open_flags {
	RUNNER_LOCK_WAIT = 1,     /* wait for the lock (cancel) */
	RUNNER_LOCK_TRY = 2,      /* give up at once when held (resume) */
	RUNNER_READ_ONLY = 4,     /* no lock, no journal writes (status) */
};

/*
 * Open the campaign at dir: load its frozen configuration and state and
 * replay journal lines the state lacks.  Returns 0, 1 when the lock is
 * held by another process (RUNNER_LOCK_TRY), or an exit code > 1 after
 * an error message.
 */
int runner_open(struct runner *r, const char *dir, int flags, FILE *out,
                int verbosity);
/* Checkpoint the state (when anything changed) and release. */
int runner_close(struct runner *r, bool save);

/* Apply one journal event to the state (also used by replay). */
int runner_apply(struct state *st, const struct journal_entry *e,
                 bool *sequential);

/* Journal an event and apply it. */
int runner_event(struct runner *r, bool sync, const char *event,
                 const char *name, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * Ask Slurm where every active job stands and record the transitions
 * (with retries for node failures and preemption).  Returns 0, or
 * EXIT_TEMPFAIL when the controller cannot be reached.
 */
int runner_poll(struct runner *r);

/* Submit queued candidates while fewer than the limit are active.
 * dry_run prints what would be submitted.  0 or an exit code. */
int runner_submit_due(struct runner *r, bool dry_run);

/* Counts of candidates by state, for progress lines. */
void runner_counts(const struct state *st, int counts[CS_COUNT]);
/* "12 done, 3 running, 4 pending, 1 failed of 20" */
void runner_progress(const struct state *st, struct strbuf *out);
bool runner_all_final(const struct state *st);

#endif
