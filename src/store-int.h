/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store-int.h - the store's own pieces: the state file, the journal
 * file and the typed events.  Only src/store*.c, the unit tests and the
 * fuzz target include it; everyone else goes through store.h.
 */
#ifndef PARATUNE_STORE_INT_H
#define PARATUNE_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store.h"

/* ---- the state file (store-state.c) ------------------------------------ */

/*
 * Read DIR/state; -1 after an error naming file and line.  A line that
 * names a candidate twice, or holds a value out of range (attempt, job
 * id, state), is refused: the state is never trusted to be what
 * paratune wrote.
 */
int state_load(const char *dir, struct state *st);
/*
 * 0 when f, the campaign file at path, holds at most STORE_FILE_MAX
 * bytes, or had read bytes of it (the file can grow as it is read);
 * else -1 after an error naming path and the cap.
 */
int store_file_capped(FILE *f, const char *path, long long read);

/* store-home.c: DIR/home, the absolute path plan gave the campaign.
 * Write the home path (absolute) into where/home; 0 or -1 after an
 * error. */
int store_home_write(const char *where, const char *home_path);
/* A campaign opened to act on (submit, resume, cancel): 0, or
 * EXIT_DATAERR for a copy of a campaign that still lives at its home,
 * after a message naming both; a moved one takes its place as home. */
int store_home_check(struct store *s);
/* Write DIR/state atomically (temp, fsync, rename, fsync dir). */
int state_save(const char *dir, const struct state *st);
void state_release(struct state *st);
/*
 * -1, naming both, when two candidates still in Slurm (pending or
 * running) hold one job id: polling would give each the other's end.
 * Only an edit of DIR/state or DIR/journal.log makes them; paratune
 * takes each id from its own submission.
 */
int state_check_jobs(const char *dir, const struct state *st);

/* ---- the journal file (store-journal.c) ------------------------------- */

/* Open DIR/journal.log for appending and find its last sequence. */
int journal_open(struct store_journal *j, const char *dir);
/* The same with the last sequence known: seq, of a replay just read
 * under the lock (a torn last line, which the open cuts, not counted). */
int journal_open_at(struct store_journal *j, const char *dir, long seq);
void journal_close(struct store_journal *j);
/*
 * Append "SEQ TIME EVENT NAME DETAIL\n" in one write; with sync, fsync
 * before returning (intents).  Returns 0 or -1 after an error naming
 * the file.
 */
int journal_append(struct store_journal *j, bool sync, const char *event,
                   const char *name, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* One journal line, split but not interpreted. */
struct journal_entry {
	long seq;
	int lineno;
	char event[24];
	char name[192];
	char detail[512];     /* the rest: key=value words */
};

/*
 * Call fn for each journal line with seq > after, in order; stops and
 * returns -1 on a malformed line or a gap in the sequence, naming the
 * file and line.  fn gets the journal's path for its own messages.
 */
int journal_replay(const char *dir, long after,
                   int (*fn)(const struct journal_entry *e,
                             const char *path, void *arg),
                   void *arg);
/* Value of key in a detail string ("job=123 attempt=1"), or NULL;
 * copied into buf. */
const char *journal_value(const char *detail, const char *key, char *buf,
                          size_t len);

/* ---- typed events (store-event.c) ------------------------------------ */

/* One event with its payload; which fields it uses depends on type. */
struct store_event {
	enum store_event_type type;
	unsigned has;         /* which payload fields the line carried */
	long seq;
	char name[192];       /* "" for campaign-wide events */
	enum cand_state state;
	int attempt;
	uint32_t job_id;
	int exit_code, exit_signal;
	long time, start_time, end_time;
	bool sequential;
	char tag[64];
	char nodes[128];
	char reason[64];
	char exclude[128];
	char source[16];
	char by[192];
	char campaign_id[24];
	int candidates;
	int runs;             /* refit: measured runs fitted */
	char factor[24];      /* refit: the global factor, for people */
	char sigma[24];
	char coef[192];
	struct fit_model model; /* refit: parsed from coef and sigma */
};

/*
 * Turn a journal line into an event, checking every value's range;
 * -1 after an error naming path and line.
 */
int store_event_parse(const struct journal_entry *e, const char *path,
                      struct store_event *ev);
/*
 * Apply an event to a state: the only place where a transition changes
 * a candidate.  -1 after an error naming path and line (an event for a
 * candidate the state does not have).
 */
int store_event_apply(struct state *st, const struct store_event *ev,
                      const char *path);

/* The "planned" event that starts a journal (store-create.c). */
int store_event_planned(struct store_journal *j, const char *campaign_id,
                        int candidates);

/* ---- candidates.csv (store-candidates.c) ------------------------------ */

/*
 * Whether name can be a candidate's: it is a directory under runs/, so
 * never empty, never with '/' and never starting with '.' (".."), and
 * it is plain text (safe_text_plain), since root's cron prints it.
 * plan writes [A-Za-z0-9._-] alone; a name an earlier release made of
 * any printable family stays readable.  The state and candidates.csv
 * are both the owner's to edit.  If not, why gets what is wrong: "is
 * empty", "has a '/' or a leading '.': ...", "holds the control ...".
 */
bool candidate_name_ok(const char *name, struct strbuf *why);

/* Write candidates.csv's header line and one row per candidate. */
void candidates_csv_write(struct strbuf *sb, const struct grid_result *res,
                          enum precision precision);

#endif
