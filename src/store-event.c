/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store-event.c - the campaign's events: how each is written to the
 * journal, read back, and applied to the state.
 *
 * Each transition is one typed function (store_queue, store_intent,
 * ...) beside the one function that applies its event, so that what a
 * command records and what a replay after a crash rebuilds cannot
 * differ: both go through the apply function.  A journal line is
 * "SEQ TIME EVENT NAME key=value...", every value range-checked when it
 * is read back, since the journal is a file its owner can edit; keys it
 * does not know are passed over.
 */
#include "autoconfig.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "nodelist.h"
#include "store-int.h"
#include "strbuf.h"
#include "util.h"

/* ---- payload fields ------------------------------------------------------ */

/* In the order they are written: "submitted" has been "job= time=" and
 * "state" "state= job= exit= ..." since the first release, and scripts
 * read them so. */
enum ev_field {
	F_CAMPAIGN, F_CANDIDATES, F_LOST, F_SEQUENTIAL, F_TAG, F_ATTEMPT,
	F_STATE, F_JOB, F_TIME, F_EXIT, F_SIGNAL, F_START, F_END, F_NODES,
	F_REASON, F_EXCLUDE, F_SOURCE, F_BY, F_RUNS, F_FACTOR, F_SIGMA,
	F_COEF, F_COUNT,
};

#define EVBIT(f) (1u << (f))

static const char *const field_names[] = {
	[F_CAMPAIGN] = "campaign", [F_CANDIDATES] = "candidates",
	[F_LOST] = "lost", [F_SEQUENTIAL] = "sequential", [F_TAG] = "tag",
	[F_ATTEMPT] = "attempt", [F_TIME] = "time", [F_STATE] = "state",
	[F_JOB] = "job", [F_EXIT] = "exit", [F_SIGNAL] = "signal",
	[F_START] = "start", [F_END] = "end", [F_NODES] = "nodes",
	[F_REASON] = "reason", [F_EXCLUDE] = "exclude",
	[F_SOURCE] = "source", [F_BY] = "by", [F_RUNS] = "runs",
	[F_FACTOR] = "factor", [F_SIGMA] = "sigma", [F_COEF] = "coef",
};
_Static_assert(sizeof field_names / sizeof field_names[0] == F_COUNT,
               "a name for every event field");

/* Where a string field lives in an event, and its size; NULL for a
 * number. */
static char *
field_text(struct store_event *ev, enum ev_field f, size_t *len)
{
	switch (f) {
	case F_CAMPAIGN: *len = sizeof ev->campaign_id; return ev->campaign_id;
	case F_LOST:
	case F_TAG: *len = sizeof ev->tag; return ev->tag;
	case F_NODES: *len = sizeof ev->nodes; return ev->nodes;
	case F_REASON: *len = sizeof ev->reason; return ev->reason;
	case F_EXCLUDE: *len = sizeof ev->exclude; return ev->exclude;
	case F_SOURCE: *len = sizeof ev->source; return ev->source;
	case F_BY: *len = sizeof ev->by; return ev->by;
	case F_FACTOR: *len = sizeof ev->factor; return ev->factor;
	case F_SIGMA: *len = sizeof ev->sigma; return ev->sigma;
	case F_COEF: *len = sizeof ev->coef; return ev->coef;
	default: return NULL;
	}
}

/* A number field's value, for writing. */
static long
field_number(const struct store_event *ev, enum ev_field f)
{
	switch (f) {
	case F_CANDIDATES: return ev->candidates;
	case F_SEQUENTIAL: return ev->sequential;
	case F_ATTEMPT: return ev->attempt;
	case F_TIME: return ev->time;
	case F_JOB: return (long)ev->job_id;
	case F_EXIT: return ev->exit_code;
	case F_SIGNAL: return ev->exit_signal;
	case F_START: return ev->start_time;
	case F_END: return ev->end_time;
	case F_RUNS: return ev->runs;
	default: return 0;
	}
}

/* Store a number field read back, within its range; -1 outside it. */
static int
set_number(struct store_event *ev, enum ev_field f, long v)
{
	switch (f) {
	case F_CANDIDATES:
		if (v < 0 || v > INT_MAX) return -1;
		ev->candidates = (int)v; return 0;
	case F_SEQUENTIAL:
		if (v < 0 || v > 1) return -1;
		ev->sequential = v != 0; return 0;
	case F_ATTEMPT:
		if (v < 1 || v > STORE_MAX_ATTEMPT) return -1;
		ev->attempt = (int)v; return 0;
	case F_JOB:
		if (v < 0 || v > (long)UINT32_MAX) return -1;
		ev->job_id = (uint32_t)v; return 0;
	case F_EXIT:
	case F_SIGNAL:
		if (v < INT_MIN || v > INT_MAX) return -1;
		*(f == F_EXIT ? &ev->exit_code : &ev->exit_signal) = (int)v;
		return 0;
	case F_TIME: if (v < 0) return -1; ev->time = v; return 0;
	case F_START: if (v < 0) return -1; ev->start_time = v; return 0;
	case F_END: if (v < 0) return -1; ev->end_time = v; return 0;
	case F_RUNS:
		if (v < 1 || v > INT_MAX) return -1;
		ev->runs = (int)v; return 0;
	default: return -1;
	}
}

/* ---- the kinds of event -------------------------------------------------- */

struct event_kind {
	const char *name;
	bool candidate;        /* names a candidate */
	unsigned required;     /* fields it must carry */
	unsigned written;      /* fields it writes, in enum order */
	void (*apply)(struct state *st, struct cand_status *c,
	              const struct store_event *ev);
};

static void apply_planned(struct state *st, struct cand_status *c,
                          const struct store_event *ev);
static void apply_queued(struct state *st, struct cand_status *c,
                         const struct store_event *ev);
static void apply_policy(struct state *st, struct cand_status *c,
                         const struct store_event *ev);
static void apply_intent(struct state *st, struct cand_status *c,
                         const struct store_event *ev);
static void apply_submitted(struct state *st, struct cand_status *c,
                            const struct store_event *ev);
static void apply_state(struct state *st, struct cand_status *c,
                        const struct store_event *ev);
static void apply_retry(struct state *st, struct cand_status *c,
                        const struct store_event *ev);
static void apply_rejected(struct state *st, struct cand_status *c,
                           const struct store_event *ev);
static void apply_cancelled(struct state *st, struct cand_status *c,
                            const struct store_event *ev);
static void apply_pruned(struct state *st, struct cand_status *c,
                         const struct store_event *ev);
static void apply_refit(struct state *st, struct cand_status *c,
                        const struct store_event *ev);
static void apply_stopped(struct state *st, struct cand_status *c,
                          const struct store_event *ev);
static void apply_skipped(struct state *st, struct cand_status *c,
                          const struct store_event *ev);
static void apply_fits(struct state *st, struct cand_status *c,
                       const struct store_event *ev);

#define JOB_FIELDS (EVBIT(F_STATE) | EVBIT(F_JOB) | EVBIT(F_EXIT) | \
	EVBIT(F_SIGNAL) | EVBIT(F_START) | EVBIT(F_END) | EVBIT(F_NODES) | \
	EVBIT(F_REASON) | EVBIT(F_SOURCE))

#define REFIT_FIELDS (EVBIT(F_RUNS) | EVBIT(F_FACTOR) | EVBIT(F_SIGMA) | \
	EVBIT(F_COEF))

static const struct event_kind kinds[] = {
	/* What planned carries is in the state file written with it. */
	[EV_PLANNED] = { "planned", false, 0,
		EVBIT(F_CAMPAIGN) | EVBIT(F_CANDIDATES), apply_planned },
	[EV_QUEUED] = { "queued", true, 0, EVBIT(F_LOST), apply_queued },
	[EV_POLICY] = { "policy", false, EVBIT(F_SEQUENTIAL),
		EVBIT(F_SEQUENTIAL), apply_policy },
	[EV_INTENT] = { "intent", true, EVBIT(F_TAG) | EVBIT(F_ATTEMPT),
		EVBIT(F_TAG) | EVBIT(F_ATTEMPT) | EVBIT(F_TIME), apply_intent },
	[EV_SUBMITTED] = { "submitted", true, EVBIT(F_JOB),
		EVBIT(F_JOB) | EVBIT(F_TIME), apply_submitted },
	[EV_STATE] = { "state", true, EVBIT(F_STATE), JOB_FIELDS,
		apply_state },
	[EV_RETRY] = { "retry", true, 0, EVBIT(F_EXCLUDE), apply_retry },
	[EV_REJECTED] = { "rejected", true, 0, EVBIT(F_REASON),
		apply_rejected },
	[EV_CANCELLED] = { "cancelled", true, 0, EVBIT(F_JOB) | EVBIT(F_END),
		apply_cancelled },
	[EV_PRUNED] = { "pruned", true, EVBIT(F_BY), EVBIT(F_BY),
		apply_pruned },
	[EV_FINISHED] = { "finished", false, 0, 0, NULL },
	[EV_REFIT] = { "refit", false, REFIT_FIELDS, REFIT_FIELDS,
		apply_refit },
	[EV_STOPPED] = { "stopped", false, EVBIT(F_REASON), EVBIT(F_REASON),
		apply_stopped },
	[EV_SKIPPED] = { "skipped", true, EVBIT(F_REASON), EVBIT(F_REASON),
		apply_skipped },
	[EV_FITS] = { "fits", true, EVBIT(F_BY), EVBIT(F_BY), apply_fits },
};
_Static_assert(sizeof kinds / sizeof kinds[0] == EV_COUNT,
               "a kind for every event");

const char *
store_event_name(enum store_event_type t)
{
	return (unsigned)t < EV_COUNT ? kinds[t].name : "?";
}

/* ---- reading and writing lines ------------------------------------------- */

/* Values never hold spaces or '=': anything odd becomes '_', so that a
 * line stays one record whatever Slurm put in a reason or node list. */
static bool
word_char(char ch)
{
	return ch > ' ' && ch < 0x7f && ch != '=';
}

static void
add_value(struct strbuf *sb, const char *v)
{
	if (*v == '\0')
		strbuf_addch(sb, '-');
	for (; *v; v++)
		strbuf_addch(sb, word_char(*v) ? *v : '_');
}

/* The key=value words of an event, in a fixed order. */
static void
event_detail(const struct store_event *ev, struct strbuf *sb)
{
	unsigned fields = kinds[ev->type].written & ev->has;

	for (int f = 0; f < F_COUNT; f++) {
		char *text;
		size_t len;

		if (!(fields & EVBIT(f)))
			continue;
		strbuf_addf(sb, "%s%s=", sb->len ? " " : "", field_names[f]);
		text = field_text((struct store_event *)ev, (enum ev_field)f,
		                  &len);
		if (f == F_STATE)
			strbuf_addstr(sb, cand_state_name(ev->state));
		else if (text)
			add_value(sb, text);
		else
			strbuf_addf(sb, "%ld",
			            field_number(ev, (enum ev_field)f));
	}
	if (sb->len == 0)
		strbuf_addch(sb, '-');
}

/* One key=value word into ev; -1 when it is not valid, -2 when its key
 * was given before (paratune writes each once: the second is an edit). */
static int
parse_word(struct store_event *ev, const char *key, const char *v)
{
	char *end, *text;
	size_t len;
	long n;
	int f, s;

	/* A key this release does not know is passed over: a later
	 * release may write more, and what it adds cannot change what
	 * this one applies. */
	for (f = 0; f < F_COUNT; f++)
		if (!strcmp(key, field_names[f]))
			break;
	if (f == F_COUNT)
		return 0;
	if (ev->has & EVBIT(f))
		return -2;
	ev->has |= EVBIT(f);
	if (f == F_STATE)
		return (s = cand_state_parse(v)) < 0 ? -1
		       : (ev->state = (enum cand_state)s, 0);
	text = field_text(ev, (enum ev_field)f, &len);
	if (text) {
		if (!strcmp(v, "-"))
			v = "";
		if (strlen(v) >= len)
			return -1;
		memcpy(text, v, strlen(v) + 1);
		return 0;
	}
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || end == v)
		return -1;
	return set_number(ev, (enum ev_field)f, n);
}

/* The values of the search's events that their words alone do not
 * check: the model's numbers, the reasons it knows. */
static int
event_check_search(struct store_event *ev, const char *path, int lineno)
{
	if (ev->type == EV_REFIT) {
		if (fit_parse(ev->coef, ev->sigma, &ev->model) != 0)
			return error("%s:%d: refit event: invalid model", path,
			             lineno);
		ev->model.runs = ev->runs;
	}
	if ((ev->type == EV_STOPPED || ev->type == EV_SKIPPED) &&
	    !store_stop_reason_known(ev->reason))
		return error("%s:%d: %s event: unknown reason '%s'", path,
		             lineno, kinds[ev->type].name, ev->reason);
	return 0;
}

int
store_event_parse(const struct journal_entry *e, const char *path,
                  struct store_event *ev)
{
	char detail[sizeof e->detail], *save = NULL, *w;
	int t;

	memset(ev, 0, sizeof(*ev));
	ev->seq = e->seq;
	for (t = 0; t < EV_COUNT; t++)
		if (!strcmp(e->event, kinds[t].name))
			break;
	if (t == EV_COUNT)
		return error("%s:%d: unknown event '%s'", path, e->lineno,
		             e->event);
	ev->type = (enum store_event_type)t;
	if (strcmp(e->name, "-"))
		memcpy(ev->name, e->name, strlen(e->name) + 1);
	memcpy(detail, e->detail, sizeof detail);
	for (w = strtok_r(detail, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		int bad;

		if (!strcmp(w, "-"))
			continue;
		if (eq == NULL)
			bad = 1;
		else {
			*eq = '\0';
			bad = parse_word(ev, w, eq + 1);
			*eq = '=';
		}
		if (bad == -2)
			return error("%s:%d: %s event: '%.*s' given twice",
			             path, e->lineno, kinds[t].name,
			             (int)(eq - w), w);
		if (bad)
			return error("%s:%d: %s event: invalid value '%s'",
			             path, e->lineno, kinds[t].name, w);
	}
	if ((ev->has & kinds[t].required) != kinds[t].required)
		return error("%s:%d: %s event lacks a value it needs", path,
		             e->lineno, kinds[t].name);
	if (kinds[t].candidate != (ev->name[0] != '\0'))
		return error("%s:%d: %s event %s a candidate", path, e->lineno,
		             kinds[t].name, kinds[t].candidate ? "without"
		                                               : "with");
	return event_check_search(ev, path, e->lineno);
}

int
store_event_apply(struct state *st, const struct store_event *ev,
                  const char *path)
{
	const struct event_kind *k = &kinds[ev->type];
	struct cand_status *c = NULL;

	st->journal_seq = ev->seq;
	if (k->candidate && (c = state_find(st, ev->name)) == NULL)
		return error("%s:%ld: unknown candidate '%s'", path,
		             ev->seq, ev->name);
	/* A job id comes only after the intent that asked for it: a line
	 * added by hand would make cancel and status act on any job. */
	if (ev->type == EV_SUBMITTED && c && c->state != CS_SUBMITTING)
		return error("%s:%ld: job %u for '%s', which was %s, "
		             "not being submitted: no intent before it", path,
		             ev->seq, (unsigned)ev->job_id, ev->name,
		             cand_state_name(c->state));
	if (k->apply)
		k->apply(st, c, ev);
	return 0;
}

/* Journal an event and apply it; the transition functions end here. */
static int
record(struct store *s, struct store_event *ev, bool sync)
{
	struct strbuf detail = STRBUF_INIT;
	int ret;

	event_detail(ev, &detail);
	ret = journal_append(&s->journal, sync, kinds[ev->type].name,
	                     ev->name, "%s", detail.buf);
	strbuf_release(&detail);
	if (ret != 0)
		return -1;
	ev->seq = s->journal.seq;
	s->transitions++;
	/* As check_line reads the journal: events of no candidate (a
	 * refit, a policy) change no ending. */
	if (ev->type == EV_FINISHED)
		s->journal_ended = true;
	else if (ev->name[0])
		s->journal_ended = false;
	return store_event_apply(&s->st, ev, s->journal.path);
}

/* An event of type t for candidate c (NULL: campaign-wide). */
static void
event_init(struct store_event *ev, enum store_event_type t,
           const struct cand_status *c)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = t;
	if (c)
		memcpy(ev->name, c->name, strlen(c->name) + 1);
}

/*
 * Copy a string into an event field, cut to fit, with what cannot stand
 * in a journal word replaced as add_value would: the state this run
 * holds must be the one a replay of its journal rebuilds.
 */
static void
copy_text(char *dst, size_t len, const char *src)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	for (size_t i = 0; i < n; i++) {
		dst[i] = '_';
		if (word_char(src[i]))
			dst[i] = src[i];
	}
	dst[n] = '\0';
}

/* A node list as copy_text copies it, cut visibly (nodelist.h). */
static void
copy_nodes(char *dst, size_t len, const char *src)
{
	char fit[sizeof ((struct store_event *)0)->nodes];

	nodelist_copy(fit, len < sizeof fit ? len : sizeof fit, src);
	copy_text(dst, len, fit);
}

/* ---- the transitions, each beside what applies it ------------------------ */

int
store_event_planned(struct store_journal *j, const char *campaign_id,
                    int candidates)
{
	/* Synced: the state written next includes this line. */
	return journal_append(j, true, "planned", NULL,
	                      "campaign=%s candidates=%d", campaign_id,
	                      candidates);
}

static void
apply_planned(struct state *st, struct cand_status *c,
              const struct store_event *ev)
{
	(void)st, (void)c, (void)ev; /* the state file is written with it */
}

int
store_queue(struct store *s, struct cand_status *c)
{
	struct store_event ev;

	event_init(&ev, EV_QUEUED, c);
	return record(s, &ev, false);
}

/* An intent that never reached Slurm: queued again (lost=TAG). */
int
store_requeue_lost(struct store *s, struct cand_status *c)
{
	struct store_event ev;

	event_init(&ev, EV_QUEUED, c);
	copy_text(ev.tag, sizeof ev.tag, c->tag);
	ev.has = EVBIT(F_LOST);
	return record(s, &ev, false);
}

static void
apply_queued(struct state *st, struct cand_status *c,
             const struct store_event *ev)
{
	(void)st;
	/* A submission that never reached Slurm tried nothing: counted
	 * apart, so that limits.retries is spent on jobs that ran. */
	if ((ev->has & EVBIT(F_LOST)) && c->lost < c->attempt)
		c->lost++;
	c->state = CS_QUEUED;
}

int
store_set_sequential(struct store *s)
{
	struct store_event ev;

	event_init(&ev, EV_POLICY, NULL);
	ev.sequential = true;
	ev.has = EVBIT(F_SEQUENTIAL);
	return record(s, &ev, false);
}

static void
apply_policy(struct state *st, struct cand_status *c,
             const struct store_event *ev)
{
	(void)c;
	st->sequential = ev->sequential;
}

int
store_intent(struct store *s, struct cand_status *c, const char *tag)
{
	struct store_event ev;

	if (c->attempt >= STORE_MAX_ATTEMPT)
		return error("%s: %d attempts already", c->name, c->attempt);
	event_init(&ev, EV_INTENT, c);
	copy_text(ev.tag, sizeof ev.tag, tag);
	ev.attempt = c->attempt + 1;
	ev.time = (long)time(NULL);
	ev.has = kinds[EV_INTENT].written;
	/* On the disk before the call, so that a crash after the call
	 * finds the job by its tag instead of submitting it again. */
	return record(s, &ev, true);
}

/* Seconds the candidate's newest job ran: to its end, or where Slurm
 * gave none, to the next attempt's intent at the latest. */
static long
job_ran_s(const struct cand_status *c, long intent)
{
	long end = c->end_time > 0 ? c->end_time : intent;

	if (intent > 0 && end > intent)
		end = intent;
	return c->start_time > 0 && end > c->start_time
	       ? end - c->start_time : 0;
}

static void
apply_intent(struct state *st, struct cand_status *c,
             const struct store_event *ev)
{
	(void)st;
	c->state = CS_SUBMITTING;
	c->attempt = ev->attempt;
	c->job_id = 0;
	c->submit_time = ev->time;
	memcpy(c->tag, ev->tag, sizeof c->tag);
	/* What Slurm said of the previous attempt's job is not this one's:
	 * a retry pending behind its exclusion showed the failed job's
	 * nodes, reason and run time.  Its time stays spent, apart: kept
	 * in the start and end, the budget lost it once the retry ran. */
	c->spent_s += job_ran_s(c, ev->time);
	c->start_time = c->end_time = 0;
	c->nodes[0] = '\0';
	c->reason[0] = '\0';
	c->exit_code = c->exit_signal = 0;
}

int
store_submitted(struct store *s, struct cand_status *c, uint32_t job_id)
{
	struct store_event ev;

	event_init(&ev, EV_SUBMITTED, c);
	ev.job_id = job_id;
	ev.time = (long)time(NULL);
	ev.has = kinds[EV_SUBMITTED].written;
	return record(s, &ev, false);
}

static void
apply_submitted(struct state *st, struct cand_status *c,
                const struct store_event *ev)
{
	(void)st;
	c->state = CS_PENDING;
	c->job_id = ev->job_id;
	if (ev->has & EVBIT(F_TIME))
		c->submit_time = ev->time;
}

/* Whether the nodes recorded while job ran stand for it now that it
 * ended: the controller drops a node from an ending job's list as the
 * node fails or finishes, so that a node failure on gpu[3-4] came back
 * as "gpu4", the one node that did not fail. */
static bool
nodes_of_ended(const struct cand_status *c, const struct job_report *job)
{
	return cand_state_final(job->state) && c->nodes[0] &&
	       c->job_id == job->job_id;
}

int
store_job_state(struct store *s, struct cand_status *c,
                const struct job_report *job)
{
	struct store_event ev;

	event_init(&ev, EV_STATE, c);
	ev.state = job->state;
	ev.job_id = job->job_id;
	copy_text(ev.reason, sizeof ev.reason, job->reason);
	copy_text(ev.source, sizeof ev.source, job->source);
	ev.has = EVBIT(F_STATE) | EVBIT(F_JOB) | EVBIT(F_REASON) |
	         EVBIT(F_SOURCE);
	/* What only Slurm knows; a verdict from the job's output leaves
	 * the recorded times and nodes as they were. */
	if (strcmp(job->source, "log")) {
		ev.exit_code = job->exit_code;
		ev.exit_signal = job->exit_signal;
		/* A pending job's are what Slurm's scheduler expects:
		 * status showed a job that never ran as run for its whole
		 * limit, and the budget counted it once the expected
		 * start passed with the job still waiting. */
		if (job->state != CS_PENDING) {
			ev.start_time = job->start_time;
			ev.end_time = job->end_time;
		}
		copy_nodes(ev.nodes, sizeof ev.nodes,
		           nodes_of_ended(c, job) ? c->nodes : job->nodes);
		ev.has = JOB_FIELDS;
	}
	return record(s, &ev, false);
}

bool
store_reason_differs(const struct cand_status *c, const char *reason)
{
	char text[sizeof c->reason];

	copy_text(text, sizeof text, reason);
	return strcmp(text, c->reason) != 0;
}

static void
apply_state(struct state *st, struct cand_status *c,
            const struct store_event *ev)
{
	(void)st;
	c->state = ev->state;
	if (ev->has & EVBIT(F_JOB)) c->job_id = ev->job_id;
	if (ev->has & EVBIT(F_EXIT)) c->exit_code = ev->exit_code;
	if (ev->has & EVBIT(F_SIGNAL)) c->exit_signal = ev->exit_signal;
	if (ev->has & EVBIT(F_START)) c->start_time = ev->start_time;
	if (ev->has & EVBIT(F_END)) c->end_time = ev->end_time;
	if (ev->has & EVBIT(F_NODES))
		memcpy(c->nodes, ev->nodes, sizeof c->nodes);
	if (ev->has & EVBIT(F_REASON))
		memcpy(c->reason, ev->reason, sizeof c->reason);
	if (ev->has & EVBIT(F_SOURCE))
		memcpy(c->source, ev->source, sizeof c->source);
}

int
store_retry(struct store *s, struct cand_status *c, const char *exclude)
{
	struct store_event ev;

	event_init(&ev, EV_RETRY, c);
	copy_nodes(ev.exclude, sizeof ev.exclude, exclude);
	ev.has = EVBIT(F_EXCLUDE);
	return record(s, &ev, false);
}

static void
apply_retry(struct state *st, struct cand_status *c,
            const struct store_event *ev)
{
	(void)st;
	c->state = CS_QUEUED;
	if (ev->has & EVBIT(F_EXCLUDE))
		memcpy(c->exclude, ev->exclude, sizeof c->exclude);
}

int
store_rejected(struct store *s, struct cand_status *c, const char *reason)
{
	struct store_event ev;

	event_init(&ev, EV_REJECTED, c);
	copy_text(ev.reason, sizeof ev.reason, reason);
	ev.has = EVBIT(F_REASON);
	return record(s, &ev, false);
}

static void
apply_rejected(struct state *st, struct cand_status *c,
               const struct store_event *ev)
{
	(void)st;
	c->state = CS_FAILED;
	if (ev->has & EVBIT(F_REASON))
		memcpy(c->reason, ev->reason, sizeof c->reason);
}

int
store_cancelled(struct store *s, struct cand_status *c)
{
	struct store_event ev;

	event_init(&ev, EV_CANCELLED, c);
	ev.job_id = c->job_id;
	ev.has = EVBIT(F_JOB);
	/* A job that started ends now: the end recorded while it ran was
	 * Slurm's expected one, and its whole time limit counted spent. */
	if (c->start_time > 0 && c->end_time > (long)time(NULL)) {
		ev.end_time = (long)time(NULL);
		ev.has |= EVBIT(F_END);
	}
	return record(s, &ev, false);
}

static void
apply_cancelled(struct state *st, struct cand_status *c,
                const struct store_event *ev)
{
	(void)st;
	c->state = CS_CANCELLED;
	/* Why it was pending is no longer why anything is. */
	c->reason[0] = '\0';
	if (ev->has & EVBIT(F_END))
		c->end_time = ev->end_time;
}

int
store_pruned(struct store *s, struct cand_status *c, const char *by)
{
	struct store_event ev;

	event_init(&ev, EV_PRUNED, c);
	copy_text(ev.by, sizeof ev.by, by);
	ev.has = EVBIT(F_BY);
	return record(s, &ev, false);
}

static void
apply_pruned(struct state *st, struct cand_status *c,
             const struct store_event *ev)
{
	(void)st;
	c->state = CS_PRUNED;
	memcpy(c->by, ev->by, sizeof c->by);
}

int
store_fits(struct store *s, struct cand_status *c, const char *by)
{
	struct store_event ev;

	event_init(&ev, EV_FITS, c);
	copy_text(ev.by, sizeof ev.by, by);
	ev.has = EVBIT(F_BY);
	return record(s, &ev, false);
}

/* Only the proof is recorded: applied twice (a replay), it is the same
 * state, and what is selected from it is decided elsewhere. */
static void
apply_fits(struct state *st, struct cand_status *c,
           const struct store_event *ev)
{
	(void)st;
	memcpy(c->fits_by, ev->by, sizeof c->fits_by);
}

int
store_finished(struct store *s)
{
	struct store_event ev;

	event_init(&ev, EV_FINISHED, NULL);
	return record(s, &ev, false);
}

/* ---- the adaptive search ------------------------------------------------- */

bool
store_stop_reason_known(const char *reason)
{
	return !strcmp(reason, STORE_STOP_NO_GAIN) ||
	       !strcmp(reason, STORE_STOP_BUDGET);
}

int
store_refit(struct store *s, const struct fit_model *m)
{
	struct store_event ev;

	event_init(&ev, EV_REFIT, NULL);
	ev.runs = m->runs;
	snprintf(ev.factor, sizeof ev.factor, "%.4f", fit_factor(m));
	snprintf(ev.sigma, sizeof ev.sigma, "%.6g", m->sigma);
	fit_format_coef(m, ev.coef, sizeof ev.coef);
	ev.has = REFIT_FIELDS;
	/* Applied from its text, as a replay would. */
	if (m->runs < 1 || fit_parse(ev.coef, ev.sigma, &ev.model) != 0)
		return error("refit: invalid model");
	ev.model.runs = m->runs;
	return record(s, &ev, false);
}

static void
apply_refit(struct state *st, struct cand_status *c,
            const struct store_event *ev)
{
	(void)c;
	st->model = ev->model;
}

int
store_stopped(struct store *s, const char *reason)
{
	struct store_event ev;

	event_init(&ev, EV_STOPPED, NULL);
	copy_text(ev.reason, sizeof ev.reason, reason);
	ev.has = EVBIT(F_REASON);
	/* Synced: skipping is final, and its reason must not be lost. */
	return record(s, &ev, true);
}

static void
apply_stopped(struct state *st, struct cand_status *c,
              const struct store_event *ev)
{
	(void)c;
	/* A known reason (event_check_search): it fits. */
	memcpy(st->stop_reason, ev->reason,
	       strnlen(ev->reason, sizeof st->stop_reason - 1));
	st->stop_reason[strnlen(ev->reason, sizeof st->stop_reason - 1)] = 0;
}

int
store_skipped(struct store *s, struct cand_status *c, const char *reason)
{
	struct store_event ev;

	event_init(&ev, EV_SKIPPED, c);
	copy_text(ev.reason, sizeof ev.reason, reason);
	ev.has = EVBIT(F_REASON);
	return record(s, &ev, false);
}

static void
apply_skipped(struct state *st, struct cand_status *c,
              const struct store_event *ev)
{
	(void)st;
	c->state = CS_SKIPPED;
	memcpy(c->reason, ev->reason, sizeof c->reason);
}
