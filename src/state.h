/*
 * state.h - where every candidate of a campaign stands, and the journal
 * that makes submission exactly-once.
 *
 * DIR/state is a checkpoint, rewritten atomically once per command run.
 * DIR/journal.log is a write-ahead log: every transition is appended
 * (one line, one write) with a sequence number, and the intent to
 * submit is appended and fsync'd BEFORE the submission call.  The state
 * records the last sequence number it includes; a command that finds
 * journal lines beyond it (a crash between the call and the checkpoint)
 * replays them, and an intent with no submission after it is resolved
 * by looking the job's tag up in Slurm before anything is submitted
 * again.
 */
#ifndef PARATUNE_STATE_H
#define PARATUNE_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

enum cand_state {
	CS_PLANNED,     /* not selected for running */
	CS_QUEUED,      /* selected; waits for a free slot */
	CS_SUBMITTING,  /* intent journaled; job id not known yet */
	CS_PENDING,     /* submitted, waiting in Slurm's queue */
	CS_RUNNING,
	CS_COMPLETED,
	CS_OOM,         /* Slurm OUT_OF_MEMORY */
	CS_FAILED,
	CS_TIMEOUT,
	CS_NODE_FAIL,
	CS_PREEMPTED,
	CS_CANCELLED,
	CS_COUNT,
};

const char *cand_state_name(enum cand_state s);
int cand_state_parse(const char *s); /* -1 when unknown */
bool cand_state_final(enum cand_state s);
/* Submitted and not final: its job must be polled. */
bool cand_state_active(enum cand_state s);

struct cand_status {
	char name[192];
	enum cand_state state;
	int rank;
	bool base;
	bool unsafe;          /* planned as oom-risk */
	int attempt;          /* 0 before the first submission */
	uint32_t job_id;
	char tag[64];         /* job name in Slurm */
	int exit_code, exit_signal;
	char nodes[128];
	char reason[64];
	char exclude[128];    /* nodes to avoid on the next attempt */
	long submit_time, start_time, end_time;
	char source[16];      /* "controller", "accounting" or "log" */
};

struct state {
	char campaign_id[24];
	long journal_seq;     /* journal lines the checkpoint includes */
	struct cand_status *v;
	int n, alloc;
};

/* Read DIR/state; -1 after an error naming file and line. */
int state_load(const char *dir, struct state *st);
/* Write DIR/state atomically (temp, fsync, rename, fsync dir). */
int state_save(const char *dir, const struct state *st);
void state_release(struct state *st);
struct cand_status *state_find(struct state *st, const char *name);
struct cand_status *state_find_tag(struct state *st, const char *tag);

/* ---- journal ------------------------------------------------------------ */

struct journal {
	int fd;
	long seq;             /* sequence number of the last line */
	char *path;
};

/* Open DIR/journal.log for appending and find its last sequence. */
int journal_open(struct journal *j, const char *dir);
void journal_close(struct journal *j);
/*
 * Append "SEQ TIME EVENT NAME DETAIL\n" in one write; with sync, fsync
 * before returning (intents).  Returns 0 or -1 after an error.
 */
int journal_append(struct journal *j, bool sync, const char *event,
                   const char *name, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* One parsed journal line. */
struct journal_entry {
	long seq;
	char event[24];
	char name[192];
	char detail[512];     /* the rest: key=value words */
};

/*
 * Call fn for each journal line with seq > after, in order; stops and
 * returns -1 on a malformed line or a gap in the sequence.
 */
int journal_replay(const char *dir, long after,
                   int (*fn)(const struct journal_entry *e, void *arg),
                   void *arg);
/* Value of key in a detail string ("job=123 attempt=1"), or NULL;
 * copied into buf. */
const char *journal_value(const char *detail, const char *key, char *buf,
                          size_t len);

#endif
