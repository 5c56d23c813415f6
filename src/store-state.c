/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store-state.c - candidate states and the campaign's state checkpoint.
 *
 * The state file is line-oriented text, "key=value" words after the
 * candidate name, so that a person can read it and a truncated or
 * corrupted file is reported with its line number rather than half
 * loaded.  It is also a file a user can edit: every value is checked as
 * the journal's are, and a candidate named twice is refused rather than
 * submitted twice.
 */
#include "autoconfig.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "store-int.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

#define STATE_MAGIC "# paratune state 1"

static const char *const state_names[] = {
	[CS_PLANNED] = "planned",
	[CS_QUEUED] = "queued",
	[CS_SUBMITTING] = "submitting",
	[CS_PENDING] = "pending",
	[CS_RUNNING] = "running",
	[CS_COMPLETED] = "completed",
	[CS_OOM] = "oom",
	[CS_FAILED] = "failed",
	[CS_TIMEOUT] = "timeout",
	[CS_NODE_FAIL] = "node_fail",
	[CS_PREEMPTED] = "preempted",
	[CS_CANCELLED] = "cancelled",
	[CS_PRUNED] = "pruned",
	[CS_SKIPPED] = "skipped",
};
_Static_assert(sizeof state_names / sizeof state_names[0] == CS_COUNT,
               "a name for every candidate state");

const char *
cand_state_name(enum cand_state s)
{
	return (unsigned)s < CS_COUNT ? state_names[s] : "?";
}

int
cand_state_parse(const char *s)
{
	for (int i = 0; i < CS_COUNT; i++)
		if (!strcmp(s, state_names[i]))
			return i;
	return -1;
}

bool
cand_state_final(enum cand_state s)
{
	return s >= CS_COMPLETED;
}

bool
cand_state_active(enum cand_state s)
{
	return s == CS_SUBMITTING || s == CS_PENDING || s == CS_RUNNING;
}

struct cand_status *
state_find(struct state *st, const char *name)
{
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->v[i].name, name))
			return &st->v[i];
	return NULL;
}

/* By name, and candidates of one name in the order of st->v. */
static int
compare_by_name(const void *pa, const void *pb)
{
	const struct cand_status *a = *(struct cand_status *const *)pa;
	const struct cand_status *b = *(struct cand_status *const *)pb;
	int c = strcmp(a->name, b->name);

	return c ? c : (a > b) - (a < b);
}

struct cand_status **
state_by_name(const struct state *st)
{
	/* An array of pointers, as sizeof says. */
	/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
	struct cand_status **v = xcalloc((size_t)st->n + 1,
	                                         sizeof(struct cand_status *));

	for (int i = 0; i < st->n; i++)
		v[i] = &st->v[i];
	/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
	qsort(v, (size_t)st->n, sizeof(*v), compare_by_name);
	return v;
}

struct cand_status *
state_by_name_find(struct cand_status *const *v, int n, const char *name)
{
	size_t lo = 0, hi = (size_t)n;

	/* The first of the names >= name: bsearch could land on any. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (size_t)n && !strcmp(v[lo]->name, name) ? v[lo] : NULL;
}

/* ---- writing ----------------------------------------------------------- */

/* Values never hold spaces: replace anything odd so a line stays one
 * record whatever Slurm put in a reason or node list. */
static void
add_word(struct strbuf *sb, const char *key, const char *v)
{
	strbuf_addf(sb, " %s=", key);
	if (*v == '\0')
		strbuf_addch(sb, '-');
	for (; *v; v++)
		strbuf_addch(sb, (*v > ' ' && *v < 0x7f && *v != '=') ? *v
		                                                      : '_');
}

static void
state_line(struct strbuf *sb, const struct cand_status *c)
{
	strbuf_addf(sb, "%s state=%s rank=%d base=%d unsafe=%d attempt=%d "
	            "job=%" PRIu32 " exit=%d signal=%d submit=%ld start=%ld "
	            "end=%ld", c->name, cand_state_name(c->state), c->rank,
	            c->base, c->unsafe, c->attempt, c->job_id, c->exit_code,
	            c->exit_signal, c->submit_time, c->start_time,
	            c->end_time);
	add_word(sb, "tag", c->tag);
	add_word(sb, "nodes", c->nodes);
	add_word(sb, "reason", c->reason);
	add_word(sb, "exclude", c->exclude);
	add_word(sb, "source", c->source);
	if (c->by[0])
		add_word(sb, "by", c->by);
	if (c->fits_by[0])
		add_word(sb, "fits", c->fits_by);
	if (c->lost > 0)
		strbuf_addf(sb, " lost=%d", c->lost);
	if (c->spent_s > 0)
		strbuf_addf(sb, " spent=%ld", c->spent_s);
	strbuf_addch(sb, '\n');
}

int
state_save(const char *dir, const struct state *st)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/state", dir);
	int ret;

	strbuf_addf(&sb, "%s\ncampaign %s\njournal %ld\n", STATE_MAGIC,
	            st->campaign_id, st->journal_seq);
	if (st->sequential)
		strbuf_addstr(&sb, "sequential 1\n");
	if (st->model.runs > 0) {
		char coef[192];

		fit_format_coef(&st->model, coef, sizeof coef);
		strbuf_addf(&sb, "model %d %.6g %s\n", st->model.runs,
		            st->model.sigma, coef);
	}
	if (st->stop_reason[0])
		strbuf_addf(&sb, "stopped %s\n", st->stop_reason);
	for (int i = 0; i < st->n; i++)
		state_line(&sb, &st->v[i]);
	strbuf_addstr(&sb, "end\n"); /* a missing end = a truncated file */
	ret = write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	free(path);
	return ret;
}

/* ---- reading ----------------------------------------------------------- */

static int
copy_word(char *dst, size_t len, const char *v)
{
	if (!strcmp(v, "-"))
		v = "";
	if (strlen(v) >= len)
		return -1;
	strcpy(dst, v);
	return 0;
}

static int
parse_long_word(const char *v, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	return (errno || *end || end == v) ? -1 : 0;
}

/* Parse v as a whole number within [lo, hi]; -1 otherwise. */
static int
parse_ranged(const char *v, long lo, long hi, long *out)
{
	return parse_long_word(v, out) || *out < lo || *out > hi ? -1 : 0;
}

/* Apply one key=value word to a candidate; -1 when it is not valid. */
static int
apply_word(struct cand_status *c, const char *key, const char *v)
{
	long n = 0;
	int s;

	if (!strcmp(key, "state"))
		return (s = cand_state_parse(v)) < 0 ? -1
		       : (c->state = (enum cand_state)s, 0);
	if (!strcmp(key, "tag")) return copy_word(c->tag, sizeof c->tag, v);
	if (!strcmp(key, "nodes"))
		return copy_word(c->nodes, sizeof c->nodes, v);
	if (!strcmp(key, "reason"))
		return copy_word(c->reason, sizeof c->reason, v);
	if (!strcmp(key, "exclude"))
		return copy_word(c->exclude, sizeof c->exclude, v);
	if (!strcmp(key, "source"))
		return copy_word(c->source, sizeof c->source, v);
	if (!strcmp(key, "by")) return copy_word(c->by, sizeof c->by, v);
	if (!strcmp(key, "fits"))
		return copy_word(c->fits_by, sizeof c->fits_by, v);
	if (!strcmp(key, "rank"))
		return parse_ranged(v, 1, INT_MAX, &n) ? -1
		       : (c->rank = (int)n, 0);
	if (!strcmp(key, "base") || !strcmp(key, "unsafe")) {
		if (parse_ranged(v, 0, 1, &n))
			return -1;
		*(key[0] == 'b' ? &c->base : &c->unsafe) = n != 0;
		return 0;
	}
	if (!strcmp(key, "attempt"))
		return parse_ranged(v, 0, STORE_MAX_ATTEMPT, &n) ? -1
		       : (c->attempt = (int)n, 0);
	if (!strcmp(key, "lost"))
		return parse_ranged(v, 0, STORE_MAX_ATTEMPT, &n) ? -1
		       : (c->lost = (int)n, 0);
	if (!strcmp(key, "job"))
		return parse_ranged(v, 0, UINT32_MAX, &n) ? -1
		       : (c->job_id = (uint32_t)n, 0);
	if (!strcmp(key, "exit") || !strcmp(key, "signal")) {
		if (parse_ranged(v, INT_MIN, INT_MAX, &n))
			return -1;
		*(key[0] == 'e' ? &c->exit_code : &c->exit_signal) = (int)n;
		return 0;
	}
	if (parse_ranged(v, 0, LONG_MAX, &n) != 0)
		return -1;
	if (!strcmp(key, "submit")) c->submit_time = n;
	else if (!strcmp(key, "start")) c->start_time = n;
	else if (!strcmp(key, "end")) c->end_time = n;
	else if (!strcmp(key, "spent")) c->spent_s = n;
	else return -1;
	return 0;
}

static int
parse_candidate(char *line, struct cand_status *c)
{
	char *save = NULL, *w = strtok_r(line, " ", &save);

	memset(c, 0, sizeof(*c));
	if (w == NULL || copy_word(c->name, sizeof c->name, w) != 0)
		return -1;
	while ((w = strtok_r(NULL, " ", &save)) != NULL) {
		char *eq = strchr(w, '=');

		if (eq == NULL)
			return -1;
		*eq = '\0';
		if (apply_word(c, w, eq + 1) != 0)
			return -1;
	}
	/* Lost submissions are some of the attempts, never more. */
	return c->lost > c->attempt ? -1 : 0;
}

/* "model RUNS SIGMA COEF,...": the last refit. */
static int
state_parse_model(struct state *st, char *rest)
{
	char *save = NULL, *runs = strtok_r(rest, " ", &save);
	char *sigma = strtok_r(NULL, " ", &save);
	char *coef = strtok_r(NULL, " ", &save);
	struct fit_model m;
	long n;

	memset(&m, 0, sizeof(m));
	if (runs == NULL || sigma == NULL || coef == NULL ||
	    strtok_r(NULL, " ", &save) != NULL ||
	    parse_ranged(runs, 1, INT_MAX, &n) != 0 ||
	    fit_parse(coef, sigma, &m) != 0)
		return -1;
	m.runs = (int)n;
	st->model = m;
	return 0;
}

/* Whether name cannot be a candidate's; why then says so. */
static bool
name_refused(const char *name, struct strbuf *why)
{
	struct strbuf what = STRBUF_INIT;
	bool refused = !candidate_name_ok(name, &what);

	if (refused)
		strbuf_addf(why, "candidate name '%s' %s", name, what.buf);
	strbuf_release(&what);
	return refused;
}

/*
 * Parse one line into st; returns 1 at "end", 0 to go on, -1 on error
 * (with why set when a plain "malformed" would not say enough).
 */
static int
state_parse_line(struct state *st, char *line, int lineno,
                 struct strbuf *why)
{
	long seq;

	if (lineno == 1)
		return strcmp(line, STATE_MAGIC) ? -1 : 0;
	if (!strcmp(line, "end"))
		return 1;
	if (!strncmp(line, "campaign ", 9))
		return copy_word(st->campaign_id, sizeof st->campaign_id,
		                 line + 9);
	if (!strncmp(line, "journal ", 8))
		return parse_ranged(line + 8, 0, LONG_MAX, &seq) ? -1
		       : (st->journal_seq = seq, 0);
	if (!strcmp(line, "sequential 1"))
		return st->sequential = true, 0;
	if (!strncmp(line, "model ", 6))
		return state_parse_model(st, line + 6);
	if (!strncmp(line, "stopped ", 8))
		return !store_stop_reason_known(line + 8) ? -1
		       : copy_word(st->stop_reason, sizeof st->stop_reason,
		                   line + 8);
	if (st->n == st->alloc) {
		st->alloc = st->alloc ? st->alloc * 2 : 64;
		st->v = xreallocarray(st->v, (size_t)st->alloc, sizeof(*st->v));
	}
	if (parse_candidate(line, &st->v[st->n]) != 0)
		return -1;
	if (name_refused(st->v[st->n].name, why))
		return -1;
	st->n++;
	return 0;
}

/*
 * The first line naming a candidate an earlier line named (lines[i]:
 * the line of st->v[i]), or 0.  Checked once the file is read, by
 * sorting: a look-up per line made loading quadratic in the candidates,
 * and every status --watch refresh loads the state.
 */
static int
first_duplicate(const struct state *st, const int *lines)
{
	struct cand_status **v = state_by_name(st);
	int first = 0;

	for (int i = 1; i < st->n; i++) {
		/* Sorted by name, then position: v[i] is the later. */
		int line = lines[v[i] - st->v];

		if (!strcmp(v[i - 1]->name, v[i]->name) &&
		    (first == 0 || line < first))
			first = line;
	}
	free(v);
	return first;
}

int
store_file_capped(FILE *f, const char *path, long long read)
{
	struct stat st;

	if (read <= STORE_FILE_MAX &&
	    (fstat(fileno(f), &st) != 0 || st.st_size <= STORE_FILE_MAX))
		return 0;
	return error("cannot read '%s': larger than " STORE_FILE_MAX_TEXT
	             ", the most a campaign's state or candidates.csv may "
	             "hold (100,000 candidates, the most plan keeps, at the "
	             "longest lines paratune writes)", path);
}

/*
 * The lines of f, the state at path, into st: 0, or -1 after an error
 * naming the line (st then half read).  At most STORE_FILE_MAX bytes
 * are read, whatever the file grew to since its size was checked.
 */
static int
state_read(FILE *f, const char *path, struct state *st)
{
	char line[2048];
	struct strbuf why = STRBUF_INIT;
	int lineno = 0, r = 0, ret = -1, twice, had;
	size_t lines_alloc = 64;
	int *lines = xcalloc(lines_alloc, sizeof(int)); /* each candidate's */
	long long bytes = 0;

	while (r == 0 && fgets(line, sizeof line, f)) {
		size_t len = strlen(line);

		lineno++;
		bytes += (long long)len;
		if (bytes > STORE_FILE_MAX || len == 0 ||
		    line[len - 1] != '\n') {
			r = -1;
			break;
		}
		line[len - 1] = '\0';
		had = st->n;
		r = state_parse_line(st, line, lineno, &why);
		/* Kept for the one over the cap too: first_duplicate
		 * looks up the line of every candidate read. */
		if (st->n > had) {
			ALLOC_GROW(lines, (size_t)st->n, lines_alloc);
			lines[st->n - 1] = lineno;
		}
		if (st->n > STORE_CANDIDATES_MAX) {
			strbuf_addf(&why, "more than %d candidates, twice the "
			            "most plan keeps", STORE_CANDIDATES_MAX);
			r = -1;
		}
	}
	/* paratune writes nothing after "end": what follows was added by
	 * hand, and the next checkpoint would drop it without a word. */
	if (r == 1 && fgets(line, sizeof line, f)) {
		lineno++;
		strbuf_addstr(&why, "text after the end line");
		r = -1;
	}
	/* Past the cap, what was read says nothing.  Else a name twice is
	 * reported first, as it was when each line was checked as read:
	 * every other error stops the reading, so none of them can lie
	 * before it. */
	if (bytes > STORE_FILE_MAX)
		store_file_capped(f, path, bytes);
	else if ((twice = first_duplicate(st, lines)) > 0)
		error("%s:%d: candidate named twice", path, twice);
	else if (r < 0)
		error("%s:%d: %s", path, lineno,
		      why.len ? why.buf : "malformed state line");
	else if (r == 0)
		error("%s: truncated (no end line)", path);
	else
		ret = 0;
	strbuf_release(&why);
	free(lines);
	return ret;
}

int
state_load(const char *dir, struct state *st)
{
	char *path = xasprintf("%s/state", dir);
	FILE *f = fopen_regular(path);
	int ret = -1;

	memset(st, 0, sizeof(*st));
	if (f == NULL)
		error("cannot read '%s': %s", path, open_error(errno));
	/* Refused from its size, before a line of it is read. */
	else if (store_file_capped(f, path, 0) == 0)
		ret = state_read(f, path, st);
	if (f)
		fclose(f);
	if (ret != 0)
		state_release(st);
	free(path);
	return ret;
}

/* Order active candidates by job id, then by their place in the state. */
static int
cmp_job(const void *pa, const void *pb)
{
	const struct cand_status *a = *(const struct cand_status *const *)pa;
	const struct cand_status *b = *(const struct cand_status *const *)pb;

	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Sorted by job id rather than compared pairwise: with 40,000 running
 * candidates the pairs took 7 s of every open of the campaign. */
int
state_check_jobs(const char *dir, const struct state *st)
{
	const struct cand_status **v = xcalloc((size_t)st->n + 1,
	                                         sizeof(struct cand_status *));
	int n = 0, ret = 0;

	for (int i = 0; i < st->n; i++)
		if (st->v[i].job_id != 0 && cand_state_active(st->v[i].state))
			v[n++] = &st->v[i];
	qsort(v, (size_t)n, sizeof(struct cand_status *), cmp_job);
	for (int i = 1; i < n && ret == 0; i++)
		if (v[i]->job_id == v[i - 1]->job_id)
			ret = error("%s/state: candidates '%s' and '%s' both "
			            "hold job %" PRIu32 " (the state or "
			            "journal.log was edited)", dir,
			            v[i - 1]->name, v[i]->name, v[i]->job_id);
	free(v);
	return ret;
}

void
state_release(struct state *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}
