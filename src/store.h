/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store.h - the campaign directory, and the one module that owns it.
 *
 *   DIR/campaign.conf   the merged configuration, frozen at plan time
 *   DIR/candidates.csv  every kept candidate with its estimates (and,
 *                       after a refit, the corrected prediction)
 *   DIR/plan.txt        the plan's summary, as printed
 *   DIR/state           where each candidate stands: a checkpoint
 *   DIR/journal.log     every transition, appended: the truth
 *   DIR/submit.env      the environment the first submit saw (0600)
 *   DIR/.lock           flock'd by every command that writes
 *   DIR/runs/NAME/      one directory per candidate (job.sbatch, logs)
 *
 * Every change to a candidate is an event: appended to the journal
 * first (and fsync'd when it is an intent to submit), then applied to
 * the in-memory state by the one function that applies that event.  The
 * state file is rewritten atomically once per command run, naming the
 * last journal line it includes; a command that finds later lines (a
 * crash between them and the checkpoint) applies them again, so a crash
 * at any moment loses nothing.  Submission is exactly-once because the
 * intent, with the job's tag, is on the disk before the call: a restart
 * looks the tag up in Slurm instead of submitting again.
 *
 * Readers (status, list, results, report) open the store read-only:
 * no lock is taken and nothing is written.  Only the runner, which
 * drives Slurm, and the commands that select or cancel candidates
 * record events.
 */
#ifndef PARATUNE_STORE_H
#define PARATUNE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "grid.h"
#include "search-fit.h"
#include "strbuf.h"
#include "strlist.h"

/* ---- candidate states ----------------------------------------------- */

enum cand_state {
	CS_PLANNED,     /* not selected for running */
	CS_QUEUED,      /* selected; waits for a free slot */
	CS_SUBMITTING,  /* intent journaled; job id not known yet */
	CS_PENDING,     /* submitted, waiting in Slurm's queue */
	CS_RUNNING,
	CS_COMPLETED,   /* from here on, final */
	CS_OOM,         /* Slurm OUT_OF_MEMORY */
	CS_FAILED,
	CS_TIMEOUT,
	CS_NODE_FAIL,
	CS_PREEMPTED,
	CS_CANCELLED,
	CS_PRUNED,      /* never run: a measurement proved it would fail */
	CS_SKIPPED,     /* never run: the search stopped (no_gain, budget) */
	CS_COUNT,
};

const char *cand_state_name(enum cand_state s);
int cand_state_parse(const char *s); /* -1 when unknown */
bool cand_state_final(enum cand_state s);
/* Submitted and not final: its job must be polled. */
bool cand_state_active(enum cand_state s);

/* The largest attempt number a state or journal may hold. */
#define STORE_MAX_ATTEMPT 1000

struct cand_status {
	char name[192];
	enum cand_state state;
	int rank;             /* the plan's rank (candidates.csv) */
	bool base;
	bool unsafe;          /* planned as oom-risk */
	int attempt;          /* 0 before the first submission */
	int lost;             /* of those, submissions that never reached
	                         Slurm (queued again): no try of the layout */
	uint32_t job_id;      /* 0 while none is known */
	char tag[64];         /* job name in Slurm */
	int exit_code, exit_signal;
	char nodes[128];
	char reason[64];
	char exclude[128];    /* nodes to avoid on the next attempt */
	long submit_time, start_time, end_time;  /* of the newest job */
	long spent_s;         /* seconds the earlier attempts' jobs ran */
	char source[16];      /* "controller", "accounting" or "log" */
	char by[192];         /* pruned: the candidate that proved it */
	char fits_by[192];    /* planned as oom-risk, but this completed
	                         candidate proved that it fits (fits) */
};

/* Why an adaptive search stopped submitting (store_stopped). */
#define STORE_STOP_NO_GAIN "no_gain"
#define STORE_STOP_BUDGET "budget"

struct state {
	char campaign_id[24];
	long journal_seq;     /* journal lines the checkpoint includes */
	bool sequential;      /* one job at a time (submit --sequential) */
	struct fit_model model;  /* the last refit; runs 0: none yet */
	char stop_reason[16];    /* why the search stopped; "" */
	struct cand_status *v;   /* in rank order, as plan wrote them */
	int n, alloc;
};

/* Linear: for one name.  Looking up each of many names, build
 * state_by_name's index once instead. */
struct cand_status *state_find(struct state *st, const char *name);
/*
 * st's candidates sorted by name (a name twice: in st's order), for
 * looking up many names in O(log n) each.  The pointers point into
 * st->v: the index holds while st->v is neither grown nor released.
 * The caller frees the array, never what it points to.
 */
struct cand_status **state_by_name(const struct state *st);
/* The candidate called name in index v of n entries (state_by_name's,
 * n being st->n), or NULL. */
struct cand_status *state_by_name_find(struct cand_status *const *v, int n,
                                       const char *name);

/* ---- the events ---------------------------------------------------------- */

/*
 * Every line of DIR/journal.log is one of these; the journal spells
 * them by their names.  Campaign-wide events name no candidate ("-").
 *
 *   planned    the directory was created (campaign=ID candidates=N)
 *   queued     a candidate was selected to run, or its lost intent was
 *              given up (lost=TAG): it waits for a free slot
 *   policy     the campaign runs one job at a time (sequential=1)
 *   intent     about to submit (tag=T attempt=N time=T); fsync'd before
 *              the call, so that a crash after it finds the job by tag
 *   submitted  Slurm took the job (job=ID time=T)
 *   state      what Slurm, accounting or the job's output said of the
 *              job (state=S job=ID exit= signal= start= end= nodes=
 *              reason= source=)
 *   retry      a node failure or preemption sends it back to the queue
 *              (exclude=NODES for the next attempt)
 *   rejected   Slurm refused the submission: final (reason=WHY)
 *   cancelled  `cancel` ended it (job=ID, 0 when never submitted;
 *              end=T when it ended a job that ran)
 *   pruned     a measurement proved it would run out of memory: final,
 *              never submitted (by=NAME, the candidate that ran out)
 *   fits       a measurement proved that a candidate planned as
 *              oom-risk fits in memory (by=NAME, a completed candidate
 *              that needs at least its memory): it may be selected as a
 *              safe one; its state is unchanged
 *   finished   `resume` saw every selected candidate final
 *   refit      the adaptive search fitted its correction to the
 *              measured runs (runs=N factor=F sigma=S coef=C,...; see
 *              search-fit.h): every prediction from here on is
 *              corrected by it
 *   stopped    the adaptive search stops submitting (reason=no_gain:
 *              nothing pending can beat the best measured by
 *              search.min_gain; reason=budget: the next job would pass
 *              limits.gpu_hours or policy.max_gpu_hours)
 *   skipped    a queued candidate the stopped search will not run:
 *              final, never submitted (reason=no_gain or budget)
 */
enum store_event_type {
	EV_PLANNED,
	EV_QUEUED,
	EV_POLICY,
	EV_INTENT,
	EV_SUBMITTED,
	EV_STATE,
	EV_RETRY,
	EV_REJECTED,
	EV_CANCELLED,
	EV_PRUNED,
	EV_FINISHED,
	EV_REFIT,
	EV_STOPPED,
	EV_SKIPPED,
	EV_FITS,
	EV_COUNT,
};

const char *store_event_name(enum store_event_type t);

/* What Slurm (or the job's output) says of a candidate's job. */
struct job_report {
	enum cand_state state;
	uint32_t job_id;
	int exit_code, exit_signal;
	long start_time, end_time;
	const char *nodes;    /* NULL or "" when unknown */
	const char *reason;
	const char *source;   /* "controller", "accounting" or "log" */
};

/* ---- the store ---------------------------------------------------------- */

struct store_journal {
	int fd;
	long seq;             /* sequence number of the last line */
	char *path;
};

struct store {
	char *dir;                /* absolute campaign directory */
	struct settings settings; /* DIR/campaign.conf, frozen at plan */
	struct state st;
	struct store_journal journal;
	int lock_fd;
	int transitions;          /* events recorded by this run */
	bool journal_ended;       /* it holds a "finished" and no
	                             candidate's event after it (as
	                             opened, then kept by each event) */
	long polled;              /* when Slurm last answered a poll; 0 */
};

enum store_open_flags {
	STORE_LOCK_WAIT = 1,      /* wait for the lock (submit, cancel) */
	STORE_LOCK_TRY = 2,       /* give up at once when held (resume) */
	STORE_READ_ONLY = 4,      /* no lock, no journal writes (readers) */
	STORE_POLICY = 8,         /* the current site file's locks and caps
	                             hold (submit, resume) */
	STORE_SAID = 16,          /* opened again by a caller that said what
	                             the first opening warned of (status's
	                             results, status --watch): not again */
	STORE_REPLACING = 32,     /* locked to be replaced (plan --force):
	                             its home is neither checked nor
	                             written (a refused replace left one) */
};

/*
 * Open the campaign at dir: lock it (unless read-only), load its frozen
 * configuration and state and apply the journal lines the state lacks.
 * Returns 0, 1 when the lock is held by another process
 * (STORE_LOCK_TRY), or an exit code > 1 after an error message naming
 * the file.  s is released on any return but 0.
 */
int store_open(struct store *s, const char *dir, int flags);
/* The same, the site file read under STORE_POLICY being site_path
 * (NULL: $PARATUNE_SITE_CONF, else the installed one). */
int store_open_site(struct store *s, const char *dir, int flags,
                    const char *site_path);
/*
 * Whether dir has a campaign.conf at all (of any kind: store_open judges
 * what it is).  Asked before the writers of dir are, so that /tmp or a
 * home directory given by mistake is "not a campaign" (66), not a
 * directory to chmod (77).  Only a name is looked up; nothing is read.
 */
bool store_has_campaign_file(const char *dir);
/*
 * Checkpoint the state when save and anything changed, then release
 * everything.  Returns 0 or EXIT_IOERR after an error message.
 */
int store_close(struct store *s, bool save);

/* Record that Slurm answered a poll now (status shows it). */
void store_mark_polled(struct store *s);

/*
 * The transitions.  Each appends its event to the journal and applies
 * it; 0, or -1 after an error message naming the journal (the event
 * then never happened).  Only a writable store records.
 */
int store_queue(struct store *s, struct cand_status *c);
int store_requeue_lost(struct store *s, struct cand_status *c);
int store_set_sequential(struct store *s);
int store_intent(struct store *s, struct cand_status *c, const char *tag);
int store_submitted(struct store *s, struct cand_status *c,
                    uint32_t job_id);
int store_job_state(struct store *s, struct cand_status *c,
                    const struct job_report *job);
/* Whether Slurm's reason differs from the one c records, as recorded
 * (a pending job's reason changes while its state does not). */
bool store_reason_differs(const struct cand_status *c, const char *reason);
int store_retry(struct store *s, struct cand_status *c,
                const char *exclude);
int store_rejected(struct store *s, struct cand_status *c,
                   const char *reason);
int store_cancelled(struct store *s, struct cand_status *c);
int store_pruned(struct store *s, struct cand_status *c, const char *by);
int store_fits(struct store *s, struct cand_status *c, const char *by);
int store_finished(struct store *s);
/* The adaptive search's transitions (search.h); reason is
 * STORE_STOP_NO_GAIN or STORE_STOP_BUDGET. */
int store_refit(struct store *s, const struct fit_model *m);
int store_stopped(struct store *s, const char *reason);
int store_skipped(struct store *s, struct cand_status *c,
                  const char *reason);
/* Whether reason is one a stopped or skipped event may carry. */
bool store_stop_reason_known(const char *reason);

/* ---- what a reader asks ---------------------------------------------- */

/* Counts of candidates by state. */
void store_counts(const struct state *st, int counts[CS_COUNT]);
/* "12 done, 3 running, 4 pending, ... of 20 selected" */
void store_progress(const struct state *st, struct strbuf *out);
/* Nothing queued or active. */
bool store_all_final(const struct state *st);
/*
 * Whether the campaign finished and nothing was selected since: its
 * journal holds a "finished" and no candidate's event after it, and
 * nothing is queued or active.  Such a campaign is final: submit and
 * resume neither poll, refit nor finish it again (a refit on logs
 * changed since journaled a second "finished" and rewrote the results);
 * 'paratune results' re-reads its logs.
 */
bool store_ended(const struct store *s);
/* Whether a candidate was ever selected (submit, the search): a plan
 * no one submitted has not ended, though nothing in it is active. */
bool store_any_selected(const struct state *st);
/* How many candidates have a job in Slurm, or one being submitted. */
int store_active_count(const struct state *st);
/* Planned as oom-risk and not proved to fit since (fits). */
bool cand_at_risk(const struct cand_status *c);

/* ---- DIR/submit.env: the environment submit saw ----------------------- */

/*
 * Record envp ("NAME=VALUE" entries) as DIR/submit.env, mode 0600,
 * unless an earlier submit did: the first one's is kept, so that every
 * job of the campaign, submitted by hand or by cron's resume, gets its
 * environment from the same place.  0, or -1 after an error message.
 */
int store_save_env(struct store *s, char *const *envp);
/*
 * Append the recorded entries to env.  0; 1 when none was recorded (a
 * campaign submitted by an older paratune); -1 after an error message
 * when the file is not a regular file of the user's that only the user
 * can change, or is not what store_save_env writes (env then empty).
 */
int store_load_env(const struct store *s, struct str_list *env);

/* ---- creating the directory (plan) ---------------------------------- */

/*
 * Create DIR with everything plan produces.  It is built in a temporary
 * directory beside DIR and renamed into place when complete, never over
 * anything: DIR is either absent or whole, and a directory that appeared
 * meanwhile is kept.  With force, an existing campaign is replaced, but
 * only when none of its jobs is queued, pending or running (refused,
 * naming them).  Returns 0, or after an error message EXIT_CONFIG when
 * the template cannot render the campaign, EXIT_CANTCREAT otherwise.
 */
int store_create(const char *dir, const struct settings *c,
                 const struct grid_result *res, const char *summary,
                 bool force);

/*
 * The most bytes DIR/state and DIR/candidates.csv may hold; a larger one
 * is refused from its size, unread (65).  The largest campaign plan
 * makes has PLAN_KEPT_MAX (100,000) candidates, and the longest line
 * paratune writes of one, every name and Slurm field at its full width,
 * is about 1.3 KiB in the state and 0.7 KiB in candidates.csv, where a
 * typical campaign's are 250 bytes: 128 MiB holds that largest campaign
 * at its longest lines with room, and the 420 MB a user could leave
 * there took their own command 4 GB of memory (a candidate's state is
 * about 1 KiB in memory, however short its line).
 */
#define STORE_FILE_MAX ((long long)128 << 20)
#define STORE_FILE_MAX_TEXT "128 MiB"
/*
 * The most candidates a state or candidates.csv may name: twice what
 * plan keeps.  The byte cap alone bounds memory only as well as lines
 * are long, and a line may be a bare name: 128 MiB of those were 15
 * million statuses of 1 KiB.  At this count a state takes at most
 * 200 MB of memory, a candidates table 77 MB.
 */
#define STORE_CANDIDATES_MAX 200000

/* ---- candidates.csv --------------------------------------------------- */

/* One row of candidates.csv as read back. */
struct candidate_row {
	int rank;
	char name[192];
	struct layout layout;
	double est_memory_gib;
	enum memory_status memory_status;
	double pred_step_s, pred_tflops_per_gpu, pred_mfu;
	/* The prediction's interval; 0 in files planned before it. */
	double pred_step_s_low, pred_step_s_high;
	bool base;
	/* The layout's switches came from the file: false for a campaign
	 * planned by paratune 0.1.0, whose file has no such columns. */
	bool switches_known;
	/* pred_now_step_s: the prediction as the last refit corrected it,
	 * in a file an adaptive search rewrote (store_write_predictions). */
	double pred_now_step_s;
	bool has_pred_now;
};

struct candidate_table {
	struct candidate_row *v;
	int n;
	size_t alloc;
};

/*
 * Read DIR/candidates.csv; -1 after an error naming file and line, the
 * table then empty.  A file with no candidate, or whose last line is
 * cut, is refused: plan always writes the base configuration.
 */
int store_read_candidates(const char *dir, struct candidate_table *t);
void candidate_table_release(struct candidate_table *t);
/* Warn of the candidates of st that t does not list (their runs would
 * be left out without a word), the first ten by name and the rest in
 * one line; returns how many. */
int candidates_missing_from(const struct candidate_table *t,
                            const struct state *st);
/*
 * Give candidates.csv a last column pred_now_step_s, each row's
 * pred_step_s corrected by m (fit_predict, "%.4f"), replacing the one
 * there: the plan's columns are kept as written, so that readers of
 * them by name or position see the same file.  Rewritten atomically
 * (store.h: temporary file created exclusively, fsync, rename) with the
 * file's mode, under the campaign's lock, and only when a value
 * differs, so that it is called after every step: a run killed between
 * a refit and the rewrite is caught up by the next.  Nothing is written
 * before the first refit (m->runs 0).  0, or -1 after an error message.
 */
int store_write_predictions(const char *dir, const struct fit_model *m);

/* The "{family}_{size}b_{nodes}nodes" part of candidate names. */
void candidate_name_prefix(const struct settings *c, char *buf, size_t len);

/* The node count a candidate name carries ("..._{nodes}nodes_tp_..."),
 * or 0 when the name has none. */
int candidate_name_nodes(const char *name);
/* Whether a planned candidate's name carries c's model family and node
 * count: else campaign.conf was edited since plan in what shapes it.
 * The size is not compared: a release that counts parameters better
 * names the same model anew. */
bool candidate_name_fits(const struct settings *c, const char *name);
/* "DIR/campaign.conf: its nodes or model changed since plan (it gives
 * FAMILY on N nodes; 'NAME' was planned)" into sb, for a name that
 * candidate_name_fits refused: the words every reader says it in. */
void candidate_name_unfit(struct strbuf *sb, const char *dir,
                          const struct settings *c, const char *name);

#endif
