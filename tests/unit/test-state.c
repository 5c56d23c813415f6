/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-state.c - the state checkpoint and the journal: round trips,
 * truncation and corruption reported by line, torn journal lines, gaps,
 * typed events and their replay, and values out of range refused.
 */
#include "autoconfig.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "harness.h"
#include "nodelist.h"
#include "mount-owner.h"
#include "runner.h"
#include "search.h"
#include "store-int.h"
#include "util.h"
#include "xalloc.h"

static void
two_candidates(struct state *st)
{
	memset(st, 0, sizeof(*st));
	strcpy(st->campaign_id, "0a1b2c3d");
	st->v = xcalloc(2, sizeof(*st->v));
	st->n = st->alloc = 2;
	strcpy(st->v[0].name, "llama_8b_tp_1");
	st->v[0].rank = 1;
	st->v[0].base = true;
	st->v[0].state = CS_RUNNING;
	st->v[0].job_id = 4242;
	strcpy(st->v[0].nodes, "gpu[1-2]");
	strcpy(st->v[0].reason, "a reason with spaces");
	strcpy(st->v[1].name, "llama_8b_tp_2");
	st->v[1].rank = 2;
	st->v[1].state = CS_PLANNED;
}

/* A store of two_candidates() in dir with its journal open: where the
 * transition tests start. */
static void
journal_store(struct store *s, char *dir)
{
	memset(s, 0, sizeof(*s));
	s->dir = dir;
	two_candidates(&s->st);
	CU_ASSERT_EQUAL_FATAL(journal_open(&s->journal, dir), 0);
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void
test_round_trip(void)
{
	char *dir = harness_tmpdir();
	struct state a, b;

	two_candidates(&a);
	strcpy(a.v[1].fits_by, "llama_8b_tp_1");
	a.v[0].attempt = 3;
	a.v[0].lost = 2;
	CU_ASSERT_EQUAL_FATAL(state_save(dir, &a), 0);
	CU_ASSERT_EQUAL_FATAL(state_load(dir, &b), 0);
	CU_ASSERT_EQUAL(b.v[0].lost, 2);
	CU_ASSERT_EQUAL(b.v[1].lost, 0);
	state_release(&b);
	/* More lost than attempts is no state paratune writes. */
	a.v[0].lost = 4;
	CU_ASSERT_EQUAL_FATAL(state_save(dir, &a), 0);
	CU_ASSERT_NOT_EQUAL(state_load(dir, &b), 0);
	a.v[0].lost = 2;
	CU_ASSERT_EQUAL_FATAL(state_save(dir, &a), 0);
	CU_ASSERT_EQUAL_FATAL(state_load(dir, &b), 0);
	CU_ASSERT_STRING_EQUAL(b.v[1].fits_by, "llama_8b_tp_1");
	CU_ASSERT_STRING_EQUAL(b.v[0].fits_by, "");
	CU_ASSERT_EQUAL(b.n, 2);
	CU_ASSERT_STRING_EQUAL(b.campaign_id, "0a1b2c3d");
	CU_ASSERT_STRING_EQUAL(b.v[0].name, "llama_8b_tp_1");
	CU_ASSERT_EQUAL(b.v[0].state, CS_RUNNING);
	CU_ASSERT_EQUAL(b.v[0].job_id, 4242);
	CU_ASSERT(b.v[0].base);
	CU_ASSERT_STRING_EQUAL(b.v[0].nodes, "gpu[1-2]");
	/* Spaces cannot split a record. */
	CU_ASSERT_STRING_EQUAL(b.v[0].reason, "a_reason_with_spaces");
	CU_ASSERT_EQUAL(b.v[1].state, CS_PLANNED);
	state_release(&a);
	state_release(&b);
	harness_rmtree(dir);
	free(dir);
}

struct load_arg {
	const char *dir;
	struct state st;
};

static int
load_fn(void *arg)
{
	struct load_arg *la = arg;

	return state_load(la->dir, &la->st);
}

/* A truncated or corrupted state is an error that names the line. */
static void
test_truncated_and_corrupt(void)
{
	char *dir = harness_tmpdir();
	char *path = xasprintf("%s/state", dir);
	struct load_arg la = { .dir = dir };
	struct state a;
	char *err, *text;
	size_t len;
	int ret;

	two_candidates(&a);
	state_save(dir, &a);
	text = harness_slurp(path, &len);
	/* Cut inside the second candidate line. */
	text[len - 20] = '\0';
	write_text(path, text);
	err = harness_capture_stderr(load_fn, &la, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "state:5"));
	free(err);
	write_text(path, "# paratune state 1\ncampaign x\njournal 1\n"
	                 "name state=bogus\nend\n");
	err = harness_capture_stderr(load_fn, &la, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "state:4: malformed"));
	free(err);
	free(text);
	state_release(&a);
	free(path);
	harness_rmtree(dir);
	free(dir);
}

/* The index by name finds every candidate, the first of a name given
 * twice, and nothing for a name it does not hold. */
static void
test_state_by_name(void)
{
	static const char *const names[] = { "m", "b", "z", "b", "a", "mm" };
	struct state st;
	struct cand_status **v;
	int n = (int)(sizeof names / sizeof names[0]);

	memset(&st, 0, sizeof(st));
	st.v = xcalloc((size_t)n, sizeof(*st.v));
	st.n = st.alloc = n;
	for (int i = 0; i < n; i++)
		strcpy(st.v[i].name, names[i]);
	v = state_by_name(&st);
	for (int i = 0; i < n; i++)
		CU_ASSERT_PTR_EQUAL(state_by_name_find(v, n, names[i]),
		                    &st.v[i == 3 ? 1 : i]);
	CU_ASSERT_PTR_NULL(state_by_name_find(v, n, ""));
	CU_ASSERT_PTR_NULL(state_by_name_find(v, n, "c"));
	CU_ASSERT_PTR_NULL(state_by_name_find(v, n, "zz"));
	CU_ASSERT_PTR_NULL(state_by_name_find(v, 0, "a"));
	free(v);
	state_release(&st);
}

/* A state a user edited: a candidate twice, values out of range. */
static void
test_state_refused(void)
{
	static const struct { const char *line, *msg; } cases[] = {
		{ "a state=queued rank=1\na state=queued rank=2\n",
		  "state:5: candidate named twice" },
		/* The first line that repeats a name, whichever name. */
		{ "b state=queued rank=1\na state=queued rank=2\n"
		  "c state=queued rank=3\nb state=queued rank=4\n"
		  "a state=queued rank=5\n",
		  "state:7: candidate named twice" },
		{ "a state=queued rank=1\na state=queued rank=2\n"
		  "a state=queued rank=3\n",
		  "state:5: candidate named twice" },
		/* Before a later error, as when each line was checked. */
		{ "a state=queued rank=1\na state=queued rank=2\n"
		  "b state=bogus\n", "state:5: candidate named twice" },
		{ "a state=pending rank=1 job=4294967296\n", "state:4: malformed" },
		{ "a state=pending rank=1 job=-1\n", "state:4: malformed" },
		{ "a state=queued rank=1 attempt=1001\n", "state:4: malformed" },
		{ "a state=queued rank=0\n", "state:4: malformed" },
		{ "a state=queued rank=1 base=2\n", "state:4: malformed" },
		{ "model 1 0.1 0,0\n", "state:4: malformed" },
		{ "stopped whim\n", "state:4: malformed" },
		{ "../x state=queued rank=1\n", "state:4: candidate name "
		  "'../x' has a '/' or a leading '.'" },
		{ "a\x1b]0;x\x07 state=queued rank=1\n", "state:4: candidate "
		  "name 'a\\x1b]0;x\\x07' holds the control character "
		  "\\x1b at byte 2" },
		{ "a\xe2\x80\xae state=queued rank=1\n", "state:4: candidate "
		  "name 'a\\u{202e}' holds the bidi control" },
	};
	char *dir = harness_tmpdir();
	char *path = xasprintf("%s/state", dir);
	struct load_arg la = { .dir = dir };

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *text = xasprintf("# paratune state 1\ncampaign x\n"
		                       "journal 1\n%send\n", cases[i].line);
		char *err;
		int ret;

		write_text(path, text);
		err = harness_capture_stderr(load_fn, &la, &ret);
		CU_ASSERT_EQUAL(ret, -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].msg));
		free(err);
		free(text);
	}
	/* The flag of submit --sequential survives the checkpoint. */
	write_text(path, "# paratune state 1\ncampaign x\njournal 1\n"
	                 "sequential 1\na state=queued rank=1\nend\n");
	CU_ASSERT_EQUAL(state_load(dir, &la.st), 0);
	CU_ASSERT(la.st.sequential);
	CU_ASSERT_EQUAL(state_save(dir, &la.st), 0);
	state_release(&la.st);
	CU_ASSERT_EQUAL(state_load(dir, &la.st), 0);
	CU_ASSERT(la.st.sequential);
	state_release(&la.st);
	free(path);
	harness_rmtree(dir);
	free(dir);
}

/*
 * A state of one candidate over STORE_CANDIDATES_MAX whose last line
 * repeats an earlier name: the name twice is reported first, as for a
 * shorter state, at the line that repeats it.  Its line was not kept,
 * and the duplicate check read an unset entry for it.
 */
static void
test_state_over_cap_duplicate(void)
{
	char *dir = harness_tmpdir();
	char *path = xasprintf("%s/state", dir);
	struct load_arg la = { .dir = dir };
	char *err, *want;
	FILE *f = fopen(path, "w");
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("# paratune state 1\ncampaign x\njournal 1\n", f);
	for (int i = 1; i <= STORE_CANDIDATES_MAX; i++)
		fprintf(f, "c%d state=queued rank=%d\n", i, i);
	/* Line 4 + STORE_CANDIDATES_MAX repeats c7, line 10. */
	fputs("c7 state=queued rank=7\nend\n", f);
	fclose(f);
	err = harness_capture_stderr(load_fn, &la, &ret);
	want = xasprintf("state:%d: candidate named twice",
	                 4 + STORE_CANDIDATES_MAX);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	free(want);
	free(err);
	free(path);
	harness_rmtree(dir);
	free(dir);
}

static int
collect(const struct journal_entry *e, const char *path, void *arg)
{
	struct strbuf *sb = arg;

	(void)path;
	strbuf_addf(sb, "%ld %s %s %s|", e->seq, e->event, e->name, e->detail);
	return 0;
}

static void
test_journal_append_and_replay(void)
{
	char *dir = harness_tmpdir();
	struct store_journal j;
	struct strbuf sb = STRBUF_INIT;
	char buf[32];

	CU_ASSERT_EQUAL_FATAL(journal_open(&j, dir), 0);
	CU_ASSERT_EQUAL(journal_append(&j, false, "planned", NULL, "n=2"), 0);
	CU_ASSERT_EQUAL(journal_append(&j, true, "intent", "c1",
	                               "tag=pt-x-1-1 attempt=1"), 0);
	CU_ASSERT_EQUAL(j.seq, 2);
	journal_close(&j);
	CU_ASSERT_EQUAL(journal_replay(dir, 1, collect, &sb), 0);
	CU_ASSERT_STRING_EQUAL(sb.buf, "2 intent c1 tag=pt-x-1-1 attempt=1|");
	CU_ASSERT_STRING_EQUAL(journal_value("tag=pt-x-1-1 attempt=1",
	                                     "attempt", buf, sizeof buf), "1");
	CU_ASSERT_PTR_NULL(journal_value("tag=a", "job", buf, sizeof buf));
	/* Reopening finds the last sequence number. */
	CU_ASSERT_EQUAL_FATAL(journal_open(&j, dir), 0);
	CU_ASSERT_EQUAL(j.seq, 2);
	journal_close(&j);
	strbuf_release(&sb);
	harness_rmtree(dir);
	free(dir);
}

/* A write cut by a crash leaves a line without newline: it never
 * happened, and the next append does not glue onto it. */
static void
test_torn_line_trimmed(void)
{
	char *dir = harness_tmpdir();
	char *path = xasprintf("%s/journal.log", dir);
	struct store_journal j;
	struct strbuf sb = STRBUF_INIT;
	int fd;

	CU_ASSERT_EQUAL_FATAL(journal_open(&j, dir), 0);
	journal_append(&j, false, "planned", NULL, "n=1");
	journal_close(&j);
	fd = open(path, O_WRONLY | O_APPEND);
	CU_ASSERT_EQUAL(write(fd, "2 2026-01-01T00:00:00Z inte", 27), 27);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(journal_open(&j, dir), 0);
	CU_ASSERT_EQUAL(j.seq, 1);
	journal_append(&j, false, "queued", "c1", "-");
	journal_close(&j);
	CU_ASSERT_EQUAL(journal_replay(dir, 0, collect, &sb), 0);
	CU_ASSERT_STRING_EQUAL(sb.buf, "1 planned - n=1|2 queued c1 -|");
	strbuf_release(&sb);
	free(path);
	harness_rmtree(dir);
	free(dir);
}

/* Write size bytes of text to dir/name and judge it as a job's output. */
static enum cand_state
output_state_of(const char *dir, const char *text, size_t size)
{
	char *path = xasprintf("%s/slurm-1.out", dir);
	FILE *f = fopen(path, "wb");
	enum cand_state st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(text, 1, size, f), size);
	fclose(f);
	st = runner_output_state(path);
	unlink(path);
	free(path);
	return st;
}

/* A forgotten job's output: Slurm's verdict found after NUL bytes a
 * dying trainer left on the same line, and across the reader's buffer
 * in an overlong line; nothing found is a failure. */
static void
test_output_state(void)
{
	static const char nul[] = "step 10\nbin\0\0ary slurmstepd: error: "
		"*** JOB 5 ON n1 CANCELLED AT 2026-01-01T00:00:00 DUE TO TIME "
		"LIMIT ***\n";
	static const char done[] = "[after training is done]\n";
	static const char fail[] = "Traceback (most recent call last):\n";
	const char *verdict = " *** DUE TO NODE FAILURE ***";
	char *dir = harness_tmpdir(), *missing = xasprintf("%s/none", dir);
	struct strbuf sb = STRBUF_INIT;

	CU_ASSERT_EQUAL(output_state_of(dir, nul, sizeof nul - 1), CS_TIMEOUT);
	CU_ASSERT_EQUAL(output_state_of(dir, done, sizeof done - 1),
	                CS_COMPLETED);
	CU_ASSERT_EQUAL(output_state_of(dir, fail, sizeof fail - 1), CS_FAILED);
	/* The verdict straddles byte 4095, where the buffer fills. */
	for (int i = 0; i < 4080; i++)
		strbuf_addch(&sb, 'x');
	strbuf_addstr(&sb, verdict);
	CU_ASSERT_EQUAL(output_state_of(dir, sb.buf, sb.len), CS_NODE_FAIL);
	CU_ASSERT_EQUAL(runner_output_state(missing), CS_FAILED);
	strbuf_release(&sb);
	free(missing);
	harness_rmtree(dir);
	free(dir);
}

struct replay_arg {
	const char *dir;
};

static int
replay_fn(void *arg)
{
	return journal_replay(((struct replay_arg *)arg)->dir, 0, NULL, NULL);
}

static int
journal_open_fn(void *arg)
{
	struct store_journal j;
	int ret = journal_open(&j, ((struct replay_arg *)arg)->dir);

	if (ret == 0)
		journal_close(&j);
	return ret;
}

/* A NUL byte inside the journal is damage, not a torn write: the replay
 * stops with an error naming the line instead of ending quietly before
 * the records after it (here a submission), and so does opening the
 * journal for appends. */
static void
test_nul_line_refused(void)
{
	static const char text[] =
		"1 2026-01-01T00:00:00Z planned - n=1\n"
		"2 2026-01-01T00:00:00Z queued c1\0 -\n"
		"3 2026-01-01T00:00:00Z submitted c1 job=7\n";
	char *dir = harness_tmpdir();
	char *path = xasprintf("%s/journal.log", dir);
	struct replay_arg ra = { dir };
	char *err;
	int fd, ret;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_EQUAL(write(fd, text, sizeof text - 1),
	                (ssize_t)(sizeof text - 1));
	close(fd);
	err = harness_capture_stderr(replay_fn, &ra, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "journal.log:2: malformed journal "
	                              "line (a NUL byte"));
	free(err);
	err = harness_capture_stderr(journal_open_fn, &ra, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "journal.log:2:"));
	free(err);
	free(path);
	harness_rmtree(dir);
	free(dir);
}

static void
test_gap_detected(void)
{
	char *dir = harness_tmpdir();
	char *path = xasprintf("%s/journal.log", dir);
	struct replay_arg ra = { dir };
	char *err;
	int ret;

	write_text(path, "1 2026-01-01T00:00:00Z planned - n=1\n"
	                 "3 2026-01-01T00:00:01Z queued c1 -\n");
	err = harness_capture_stderr(replay_fn, &ra, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "journal.log:2"));
	free(err);
	free(path);
	harness_rmtree(dir);
	free(dir);
}

/* Parse one journal line's parts and apply it; the result of both. */
static int
apply_line(struct state *st, long seq, const char *event, const char *name,
           const char *detail)
{
	struct journal_entry e;
	struct store_event ev;

	memset(&e, 0, sizeof(e));
	e.seq = seq;
	e.lineno = (int)seq;
	snprintf(e.event, sizeof e.event, "%s", event);
	snprintf(e.name, sizeof e.name, "%s", name);
	snprintf(e.detail, sizeof e.detail, "%s", detail);
	if (store_event_parse(&e, "journal.log", &ev) != 0)
		return -1;
	return store_event_apply(st, &ev, "journal.log");
}

struct apply_arg {
	struct state *st;
	const char *event, *name, *detail;
};

static int
apply_fn(void *arg)
{
	struct apply_arg *a = arg;

	return apply_line(a->st, 9, a->event, a->name, a->detail);
}

/* The state is a fold of the journal: events move candidates. */
static void
test_apply_events(void)
{
	struct state st;
	const char *c = "llama_8b_tp_2";

	two_candidates(&st);
	CU_ASSERT_EQUAL(apply_line(&st, 3, "queued", c, "-"), 0);
	CU_ASSERT_EQUAL(st.v[1].state, CS_QUEUED);
	CU_ASSERT_EQUAL(apply_line(&st, 4, "intent", c,
	                           "tag=pt-0a1b2c3d-2-1 attempt=1 time=100"), 0);
	CU_ASSERT_EQUAL(st.v[1].state, CS_SUBMITTING);
	CU_ASSERT_STRING_EQUAL(st.v[1].tag, "pt-0a1b2c3d-2-1");
	CU_ASSERT_EQUAL(st.v[1].attempt, 1);
	CU_ASSERT_EQUAL(apply_line(&st, 5, "submitted", c, "job=99 time=101"),
	                0);
	CU_ASSERT_EQUAL(st.v[1].state, CS_PENDING);
	CU_ASSERT_EQUAL(st.v[1].job_id, 99);
	CU_ASSERT_EQUAL(apply_line(&st, 6, "state", c, "state=node_fail "
	                           "job=99 nodes=gpu3 source=controller"), 0);
	CU_ASSERT_EQUAL(st.v[1].state, CS_NODE_FAIL);
	CU_ASSERT_EQUAL(apply_line(&st, 7, "retry", c, "exclude=gpu3"), 0);
	CU_ASSERT_EQUAL(st.v[1].state, CS_QUEUED);
	CU_ASSERT_STRING_EQUAL(st.v[1].exclude, "gpu3");
	CU_ASSERT_EQUAL(apply_line(&st, 8, "policy", "-", "sequential=1"), 0);
	/* A key a later release may add is passed over. */
	CU_ASSERT_EQUAL(apply_line(&st, 9, "retry", c, "exclude=gpu4 "
	                           "color=red"), 0);
	CU_ASSERT_STRING_EQUAL(st.v[1].exclude, "gpu4");
	CU_ASSERT(st.sequential);
	CU_ASSERT_EQUAL(st.journal_seq, 9);
	state_release(&st);
}

/* What the journal says is checked as strictly as the state: an edited
 * line is refused naming the file and line, never half applied. */
static void
test_events_refused(void)
{
	static const struct { const char *event, *name, *detail, *msg; }
	cases[] = {
		{ "queued", "nobody", "-", "unknown candidate 'nobody'" },
		{ "bogus", "llama_8b_tp_1", "-", "unknown event 'bogus'" },
		{ "submitted", "llama_8b_tp_1", "job=-4", "invalid value" },
		{ "submitted", "llama_8b_tp_1", "job=4294967296",
		  "invalid value" },
		{ "intent", "llama_8b_tp_1", "tag=x attempt=0", "invalid value" },
		{ "intent", "llama_8b_tp_1", "tag=x attempt=1001",
		  "invalid value" },
		{ "intent", "llama_8b_tp_1", "attempt=1", "lacks a value" },
		{ "state", "llama_8b_tp_1", "state=weird", "invalid value" },
		{ "state", "llama_8b_tp_1", "state=failed exit=x",
		  "invalid value 'exit=x'" },
		{ "finished", "llama_8b_tp_1", "-", "with a candidate" },
		{ "queued", "-", "-", "without a candidate" },
		{ "refit", "-", "runs=1 factor=1 sigma=0.1 coef=1,2",
		  "refit event: invalid model" },
		{ "refit", "-", "runs=0 factor=1 sigma=0.1 "
		  "coef=0,0,0,0,0,0,0,0,0", "invalid value 'runs=0'" },
		{ "refit", "-", "runs=1 coef=0,0,0,0,0,0,0,0,0",
		  "lacks a value" },
		{ "skipped", "llama_8b_tp_1", "reason=whim",
		  "unknown reason 'whim'" },
		{ "stopped", "-", "reason=-", "unknown reason ''" },
		{ "fits", "llama_8b_tp_2", "-", "fits event lacks a value" },
		{ "fits", "-", "by=llama_8b_tp_1", "without a candidate" },
	};
	struct state st;

	two_candidates(&st);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct apply_arg a = { &st, cases[i].event, cases[i].name,
		                       cases[i].detail };
		int ret;
		char *err = harness_capture_stderr(apply_fn, &a, &ret);

		CU_ASSERT_EQUAL(ret, -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "journal.log"));
		if (strstr(err, cases[i].msg) == NULL)
			fprintf(stderr, "case %zu: '%s'\n", i, err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].msg));
		free(err);
	}
	/* Nothing of the refused lines reached the candidates. */
	CU_ASSERT_EQUAL(st.v[0].state, CS_RUNNING);
	CU_ASSERT_EQUAL(st.v[0].job_id, 4242);
	CU_ASSERT_EQUAL(st.v[0].attempt, 0);
	state_release(&st);
}

static int
replay_into(const struct journal_entry *e, const char *path, void *arg)
{
	struct store_event ev;

	return store_event_parse(e, path, &ev) ||
	       store_event_apply(arg, &ev, path) ? -1 : 0;
}

/*
 * A node list longer than the field (a scattered allocation) is kept
 * cut visibly, not cut without a word: the cut list, an unclosed
 * bracket, went to Slurm as the nodes a retry avoids.
 */
static void
test_long_node_list(void)
{
	char *dir = harness_tmpdir();
	struct strbuf list = STRBUF_INIT;
	struct store s;
	struct job_report rep = { CS_NODE_FAIL, 77, 0, 0, 1000, 0, NULL, "",
	                          "controller" };
	struct cand_status *c;

	strbuf_addstr(&list, "gpu[001");
	for (int i = 4; i < 100; i += 3)
		strbuf_addf(&list, ",%03d", i);
	strbuf_addch(&list, ']');
	CU_ASSERT(list.len >= sizeof c->nodes);
	rep.nodes = list.buf;
	journal_store(&s, dir);
	c = &s.st.v[1];
	CU_ASSERT_EQUAL(store_queue(&s, c), 0);
	CU_ASSERT_EQUAL(store_intent(&s, c, "pt-0a1b2c3d-2-1"), 0);
	CU_ASSERT_EQUAL(store_submitted(&s, c, 77), 0);
	CU_ASSERT_EQUAL(store_job_state(&s, c, &rep), 0);
	CU_ASSERT_EQUAL(strlen(c->nodes), sizeof c->nodes - 1);
	CU_ASSERT(nodelist_cut(c->nodes));
	CU_ASSERT_EQUAL(strncmp(c->nodes, list.buf, sizeof c->nodes - 4), 0);
	/* A list that fits is kept as it is. */
	rep.nodes = "gpu[001,004]";
	c = &s.st.v[0];
	CU_ASSERT_EQUAL(store_queue(&s, c), 0);
	CU_ASSERT_EQUAL(store_intent(&s, c, "pt-0a1b2c3d-1-1"), 0);
	CU_ASSERT_EQUAL(store_submitted(&s, c, 78), 0);
	rep.job_id = 78;
	CU_ASSERT_EQUAL(store_job_state(&s, c, &rep), 0);
	CU_ASSERT_STRING_EQUAL(c->nodes, "gpu[001,004]");
	CU_ASSERT_FALSE(nodelist_cut(c->nodes));
	journal_close(&s.journal);
	state_release(&s.st);
	strbuf_release(&list);
	harness_rmtree(dir);
	free(dir);
}

/* A transition journals exactly what its replay rebuilds: apply the
 * journal written by the typed functions to a fresh copy and compare. */
static void
test_transitions_replay(void)
{
	char *dir = harness_tmpdir();
	struct store s;
	struct state copy;
	struct job_report rep = { CS_RUNNING, 77, 0, 0, 1000, 0,
	                          "gpu[1-2]", "", "controller" };
	struct cand_status *c;

	journal_store(&s, dir);
	two_candidates(&copy);
	c = &s.st.v[1];
	CU_ASSERT_EQUAL(store_queue(&s, c), 0);
	CU_ASSERT_EQUAL(store_set_sequential(&s), 0);
	CU_ASSERT_EQUAL(store_intent(&s, c, "pt-0a1b2c3d-2-1"), 0);
	CU_ASSERT_EQUAL(store_submitted(&s, c, 77), 0);
	CU_ASSERT_EQUAL(store_job_state(&s, c, &rep), 0);
	rep.state = CS_NODE_FAIL;
	rep.reason = "a reason with spaces";
	CU_ASSERT_EQUAL(store_job_state(&s, c, &rep), 0);
	CU_ASSERT_STRING_EQUAL(c->reason, "a_reason_with_spaces");
	CU_ASSERT_EQUAL(store_retry(&s, c, c->nodes), 0);
	CU_ASSERT_EQUAL(store_intent(&s, c, "pt-0a1b2c3d-2-2"), 0);
	CU_ASSERT_EQUAL(store_requeue_lost(&s, c), 0);
	CU_ASSERT_EQUAL(store_cancelled(&s, &s.st.v[0]), 0);
	CU_ASSERT_EQUAL(store_finished(&s), 0);
	CU_ASSERT_EQUAL(s.transitions, 11);
	CU_ASSERT_EQUAL(c->state, CS_QUEUED);
	CU_ASSERT_EQUAL(c->attempt, 2);
	/* The second submission never reached Slurm: no try of the layout,
	 * so limits.retries is not spent on it. */
	CU_ASSERT_EQUAL(c->lost, 1);
	CU_ASSERT_STRING_EQUAL(c->exclude, "gpu[1-2]");
	/* The next attempt's intent forgot the failed job's reason. */
	CU_ASSERT_STRING_EQUAL(c->reason, "");
	journal_close(&s.journal);
	{
		struct strbuf sb = STRBUF_INIT;

		CU_ASSERT_EQUAL(journal_replay(dir, 0, collect, &sb), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "3 intent llama_8b_tp_2 "
		                              "tag=pt-0a1b2c3d-2-1 attempt=1 "));
		CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "9 queued llama_8b_tp_2 "
		                              "lost=pt-0a1b2c3d-2-2|"));
		strbuf_release(&sb);
	}
	CU_ASSERT_EQUAL(journal_replay(dir, 0, replay_into, &copy), 0);
	for (int i = 0; i < 2; i++) {
		const struct cand_status *x = &s.st.v[i], *y = &copy.v[i];

		CU_ASSERT_EQUAL(x->state, y->state);
		CU_ASSERT_EQUAL(x->attempt, y->attempt);
		CU_ASSERT_EQUAL(x->lost, y->lost);
		CU_ASSERT_EQUAL(x->job_id, y->job_id);
		CU_ASSERT_EQUAL(x->start_time, y->start_time);
		CU_ASSERT_EQUAL(x->submit_time, y->submit_time);
		CU_ASSERT_STRING_EQUAL(x->tag, y->tag);
		CU_ASSERT_STRING_EQUAL(x->nodes, y->nodes);
		CU_ASSERT_STRING_EQUAL(x->reason, y->reason);
		CU_ASSERT_STRING_EQUAL(x->exclude, y->exclude);
		CU_ASSERT_STRING_EQUAL(x->source, y->source);
	}
	CU_ASSERT(copy.sequential);
	CU_ASSERT_EQUAL(copy.journal_seq, 11);
	state_release(&copy);
	state_release(&s.st);
	harness_rmtree(dir);
	free(dir);
}

/* c queued, submitted as job 77 under its first tag, and what Slurm
 * says of it (rep) recorded. */
static void
submit_job(struct store *s, struct cand_status *c,
           const struct job_report *rep)
{
	CU_ASSERT_EQUAL(store_queue(s, c), 0);
	CU_ASSERT_EQUAL(store_intent(s, c, "pt-0a1b2c3d-2-1"), 0);
	CU_ASSERT_EQUAL(store_submitted(s, c, 77), 0);
	CU_ASSERT_EQUAL(store_job_state(s, c, rep), 0);
}

/* A node failure on gpu[3-4] came back from the controller as "gpu4",
 * the node that did not fail, and the retry avoided it; the retry's
 * pending job then showed the failed job's nodes and reason. */
static void
test_node_fail_nodes(void)
{
	char *dir = harness_tmpdir();
	struct store s;
	struct job_report rep = { CS_RUNNING, 77, 0, 0, 1000, 0,
	                          "gpu[3-4]", "", "controller" };
	struct cand_status *c;

	journal_store(&s, dir);
	c = &s.st.v[1];
	submit_job(&s, c, &rep);
	rep.state = CS_NODE_FAIL;
	rep.nodes = "gpu4";
	rep.reason = "NodeDown";
	rep.exit_signal = 15;
	CU_ASSERT_EQUAL(store_job_state(&s, c, &rep), 0);
	CU_ASSERT_STRING_EQUAL(c->nodes, "gpu[3-4]");
	CU_ASSERT_EQUAL(store_retry(&s, c, c->nodes), 0);
	CU_ASSERT_STRING_EQUAL(c->exclude, "gpu[3-4]");
	CU_ASSERT_EQUAL(store_intent(&s, c, "pt-0a1b2c3d-2-2"), 0);
	CU_ASSERT_EQUAL(store_submitted(&s, c, 78), 0);
	CU_ASSERT_STRING_EQUAL(c->nodes, "");
	CU_ASSERT_STRING_EQUAL(c->reason, "");
	CU_ASSERT_EQUAL(c->exit_signal, 0);
	/* Its time stays spent for the budget, not shown as the retry's
	 * (test_retry_keeps_spent). */
	CU_ASSERT_EQUAL(c->start_time, 0);
	/* A job that ended before a node was recorded keeps Slurm's. */
	rep.job_id = 78;
	rep.state = CS_COMPLETED;
	rep.nodes = "gpu[1-2]";
	CU_ASSERT_EQUAL(store_job_state(&s, c, &rep), 0);
	CU_ASSERT_STRING_EQUAL(c->nodes, "gpu[1-2]");
	journal_close(&s.journal);
	state_release(&s.st);
	harness_rmtree(dir);
	free(dir);
}

/* A node failure's retry ran: the first job's 15 minutes stayed spent.
 * The retry's job took the candidate's start and end, and the budget
 * (limits.gpu_hours, policy.max_gpu_hours) forgot them; while the retry
 * was pending, status showed the failed job's run time beside it. */
static void
test_retry_keeps_spent(void)
{
	char *dir = harness_tmpdir();
	struct store s;
	struct state copy, back;
	struct job_report rep = { CS_RUNNING, 77, 0, 0, 1000, 0,
	                          "gpu[1-2]", "", "controller" };
	struct cand_status *c;
	struct budget b;

	journal_store(&s, dir);
	settings_init(&s.settings);
	s.settings.nodes = 1;
	s.settings.gpus_per_node = 8;
	s.settings.limits.max_minutes_per_run = 60;
	s.st.v[0].state = CS_COMPLETED;
	two_candidates(&copy);
	c = &s.st.v[1];
	submit_job(&s, c, &rep);
	rep.state = CS_NODE_FAIL;
	rep.end_time = 1000 + 900;
	CU_ASSERT_EQUAL(store_job_state(&s, c, &rep), 0);
	CU_ASSERT_EQUAL(store_retry(&s, c, c->nodes), 0);
	CU_ASSERT_EQUAL(store_intent(&s, c, "pt-0a1b2c3d-2-2"), 0);
	CU_ASSERT_EQUAL(store_submitted(&s, c, 78), 0);
	/* Pending: no time of its own yet, the first job's 0.25 h on 8
	 * GPUs spent. */
	CU_ASSERT_EQUAL(c->start_time, 0);
	CU_ASSERT_EQUAL(c->end_time, 0);
	CU_ASSERT_EQUAL(c->spent_s, 900);
	budget_compute(&s, 5000, &b);
	CU_ASSERT_DOUBLE_EQUAL(b.used, 2.0, 1e-9);
	rep.state = CS_RUNNING;
	rep.job_id = 78;
	rep.start_time = 5000;
	rep.end_time = 5000 + 3600;
	CU_ASSERT_EQUAL(store_job_state(&s, c, &rep), 0);
	/* 15 minutes into the retry: 2 GPU-hours each. */
	budget_compute(&s, 5000 + 900, &b);
	CU_ASSERT_DOUBLE_EQUAL(b.used, 4.0, 1e-9);
	/* Replayed and saved, the state keeps them. */
	journal_close(&s.journal);
	CU_ASSERT_EQUAL(journal_replay(dir, 0, replay_into, &copy), 0);
	CU_ASSERT_EQUAL(copy.v[1].spent_s, 900);
	CU_ASSERT_EQUAL(copy.v[1].start_time, 5000);
	CU_ASSERT_EQUAL_FATAL(state_save(dir, &copy), 0);
	CU_ASSERT_EQUAL_FATAL(state_load(dir, &back), 0);
	CU_ASSERT_EQUAL(back.v[1].spent_s, 900);
	CU_ASSERT_EQUAL(back.v[0].spent_s, 0);
	state_release(&back);
	state_release(&copy);
	state_release(&s.st);
	settings_release(&s.settings);
	harness_rmtree(dir);
	free(dir);
}

/* Slurm gives a pending job the start its scheduler expects and that
 * plus the time limit as its end: status showed a job that never ran
 * as having run its whole limit, and once the expected start passed
 * with the job still waiting, the budget counted it spent. */
static void
test_pending_has_no_times(void)
{
	char *dir = harness_tmpdir();
	struct store s;
	struct job_report rep = { CS_PENDING, 77, 0, 0, 1000, 1300,
	                          "", "Resources", "controller" };
	struct cand_status *c;
	struct budget b;

	journal_store(&s, dir);
	settings_init(&s.settings);
	s.settings.nodes = 1;
	s.settings.gpus_per_node = 8;
	s.settings.limits.max_minutes_per_run = 5;
	s.st.v[0].state = CS_COMPLETED;
	c = &s.st.v[1];
	submit_job(&s, c, &rep);
	CU_ASSERT_EQUAL(c->start_time, 0);
	CU_ASSERT_EQUAL(c->end_time, 0);
	budget_compute(&s, 2000, &b);
	CU_ASSERT_DOUBLE_EQUAL(b.used, 0.0, 1e-9);
	/* Once it runs, Slurm's start is the real one. */
	rep.state = CS_RUNNING;
	rep.start_time = 1500;
	rep.end_time = 1800;
	CU_ASSERT_EQUAL(store_job_state(&s, c, &rep), 0);
	CU_ASSERT_EQUAL(c->start_time, 1500);
	journal_close(&s.journal);
	state_release(&s.st);
	settings_release(&s.settings);
	harness_rmtree(dir);
	free(dir);
}

/* The search's events journal what a replay rebuilds, and the state
 * file keeps the model and the stop reason. */
static void
test_search_events_replay(void)
{
	char *dir = harness_tmpdir();
	struct store s;
	struct state copy, back;
	struct fit_model m;

	memset(&m, 0, sizeof(m));
	journal_store(&s, dir);
	two_candidates(&copy);
	s.st.v[1].state = copy.v[1].state = CS_QUEUED;
	m.runs = 2;
	m.coef[FIT_GLOBAL] = 0.123456789;
	m.coef[FIT_TP] = -0.02;
	m.sigma = 0.0812345678;
	CU_ASSERT_EQUAL(store_refit(&s, &m), 0);
	CU_ASSERT_EQUAL(store_stopped(&s, STORE_STOP_NO_GAIN), 0);
	CU_ASSERT_EQUAL(store_skipped(&s, &s.st.v[1], STORE_STOP_NO_GAIN), 0);
	/* What this run holds is the journal's text, not the doubles. */
	CU_ASSERT_DOUBLE_EQUAL(s.st.model.coef[FIT_GLOBAL], 0.123457, 1e-12);
	CU_ASSERT_EQUAL(s.st.model.runs, 2);
	CU_ASSERT_EQUAL(s.st.v[1].state, CS_SKIPPED);
	CU_ASSERT(cand_state_final(CS_SKIPPED));
	journal_close(&s.journal);
	CU_ASSERT_EQUAL(journal_replay(dir, 0, replay_into, &copy), 0);
	CU_ASSERT_EQUAL(copy.model.runs, 2);
	for (int j = 0; j < FIT_NTERMS; j++)
		CU_ASSERT_EQUAL(copy.model.coef[j], s.st.model.coef[j]);
	CU_ASSERT_EQUAL(copy.model.sigma, s.st.model.sigma);
	CU_ASSERT_STRING_EQUAL(copy.stop_reason, "no_gain");
	CU_ASSERT_EQUAL(copy.v[1].state, CS_SKIPPED);
	CU_ASSERT_STRING_EQUAL(copy.v[1].reason, "no_gain");
	/* The checkpoint carries them too. */
	CU_ASSERT_EQUAL(state_save(dir, &copy), 0);
	CU_ASSERT_EQUAL_FATAL(state_load(dir, &back), 0);
	CU_ASSERT_EQUAL(back.model.runs, 2);
	for (int j = 0; j < FIT_NTERMS; j++)
		CU_ASSERT_EQUAL(back.model.coef[j], s.st.model.coef[j]);
	CU_ASSERT_EQUAL(back.model.sigma, s.st.model.sigma);
	CU_ASSERT_STRING_EQUAL(back.stop_reason, "no_gain");
	CU_ASSERT_EQUAL(back.v[1].state, CS_SKIPPED);
	state_release(&back);
	state_release(&copy);
	state_release(&s.st);
	harness_rmtree(dir);
	free(dir);
}

/* A temporary file is created exclusively: a FIFO or a link planted at
 * its name is removed, never written through or waited on. */
static void
test_atomic_write_planted(void)
{
	char *dir = harness_tmpdir();
	char *path = xasprintf("%s/state", dir);
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	char *target = xasprintf("%s/target", dir);
	char *text;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(mkfifo(tmp, 0644), 0);
	CU_ASSERT_EQUAL(write_file_atomic(path, "one\n", 4, 0644), 0);
	text = harness_slurp(path, &len);
	CU_ASSERT_STRING_EQUAL(text, "one\n");
	free(text);
	write_text(target, "untouched\n");
	CU_ASSERT_EQUAL_FATAL(symlink(target, tmp), 0);
	CU_ASSERT_EQUAL(write_file_atomic(path, "two\n", 4, 0644), 0);
	text = harness_slurp(target, &len);
	CU_ASSERT_STRING_EQUAL(text, "untouched\n");
	free(text);
	text = harness_slurp(path, &len);
	CU_ASSERT_STRING_EQUAL(text, "two\n");
	free(text);
	free(target);
	free(tmp);
	free(path);
	harness_rmtree(dir);
	free(dir);
}

/* A plan's files: created fresh, never through a link or over a file
 * that is there; the tree synced once, with what it holds kept. */
static void
test_plan_files_synced(void)
{
	char *dir = harness_tmpdir();
	char *sub = xasprintf("%s/runs", dir);
	char *path = xasprintf("%s/job.sbatch", sub);
	char *link = xasprintf("%s/link", sub);
	char *target = xasprintf("%s/target", dir);
	char *text;
	size_t len;
	int fd = sync_tree_open(dir);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
	CU_ASSERT_EQUAL(write_file_new(path, "one\n", 4, 0644), 0);
	CU_ASSERT_EQUAL(write_file_new(path, "two\n", 4, 0644), -1);
	write_text(target, "untouched\n");
	CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
	CU_ASSERT_EQUAL(write_file_new(link, "two\n", 4, 0644), -1);
	CU_ASSERT_EQUAL(sync_tree(fd, dir), 0);
	text = harness_slurp(path, &len);
	CU_ASSERT_STRING_EQUAL(text, "one\n");
	free(text);
	text = harness_slurp(target, &len);
	CU_ASSERT_STRING_EQUAL(text, "untouched\n");
	free(text);
	CU_ASSERT_EQUAL(sync_tree_open(path), -1); /* not a directory */
	free(target);
	free(link);
	free(path);
	free(sub);
	harness_rmtree(dir);
	free(dir);
}

/* The monotone relation that pruning rests on. */
static void
test_needs_more_memory(void)
{
	struct layout x, y;

	memset(&x, 0, sizeof(x));
	x.tp = 4; x.pp = 2; x.cp = 2; x.ep = 1; x.vp = 1; x.mbs = 2;
	x.gbs = 256; x.recompute = RECOMPUTE_SELECTIVE;
	x.sequence_parallel = true;
	y = x;
	CU_ASSERT(search_needs_more_memory(&y, &x)); /* itself */
	y.tp = 2; y.sequence_parallel = true;
	CU_ASSERT(search_needs_more_memory(&y, &x));
	y.tp = 1; y.sequence_parallel = false; /* follows tp: not compared */
	CU_ASSERT(search_needs_more_memory(&y, &x));
	y.mbs = 4; y.pp = 1; y.cp = 1; y.recompute = RECOMPUTE_NONE;
	CU_ASSERT(search_needs_more_memory(&y, &x));
	/* Each direction that could need less breaks the relation. */
	y = x; y.tp = 8;
	CU_ASSERT(!search_needs_more_memory(&y, &x));
	y = x; y.mbs = 1;
	CU_ASSERT(!search_needs_more_memory(&y, &x));
	y = x; y.recompute = RECOMPUTE_FULL;
	CU_ASSERT(!search_needs_more_memory(&y, &x));
	y = x; y.pp = 4;
	CU_ASSERT(!search_needs_more_memory(&y, &x));
	/* Anything else that differs: not comparable. */
	y = x; y.offload_layers = 2;
	CU_ASSERT(!search_needs_more_memory(&y, &x));
	y = x; y.fsdp = true;
	CU_ASSERT(!search_needs_more_memory(&y, &x));
	y = x; y.vp = 2;
	CU_ASSERT(!search_needs_more_memory(&y, &x));
	/* Full recompute of fewer layers keeps more; of all (0) the least. */
	x.recompute = RECOMPUTE_FULL;
	y = x;
	x.recompute_layers = 4; y.recompute_layers = 2;
	CU_ASSERT(search_needs_more_memory(&y, &x));
	y.recompute_layers = 8;
	CU_ASSERT(!search_needs_more_memory(&y, &x));
	y.recompute_layers = 0;
	CU_ASSERT(!search_needs_more_memory(&y, &x));
	x.recompute_layers = 0; y.recompute_layers = 4;
	CU_ASSERT(search_needs_more_memory(&y, &x));
}

/* GPU-hours: Slurm's times for what ran, whole limits for what may. */
static void
test_budget(void)
{
	struct store s;
	struct budget b;

	memset(&s, 0, sizeof(s));
	settings_init(&s.settings);
	s.settings.nodes = 2;
	s.settings.gpus_per_node = 8;
	s.settings.limits.max_minutes_per_run = 30;  /* 8 GPU-hours */
	s.settings.limits.max_steps_per_run = 100;
	two_candidates(&s.st);
	/* Running for 15 of its 30 minutes: 0.25 h on 16 GPUs. */
	s.st.v[0].start_time = 1000;
	s.st.v[0].state = CS_RUNNING;
	s.st.v[1].state = CS_QUEUED;
	budget_compute(&s, 1000 + 900, &b);
	CU_ASSERT_DOUBLE_EQUAL(b.used, 4.0, 1e-9);
	/* used 4, the runner's rest 4, the queued one's limit 8 */
	CU_ASSERT_DOUBLE_EQUAL(b.committed, 16.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.queued, 8.0, 1e-9);
	s.st.v[0].state = CS_COMPLETED;
	s.st.v[0].end_time = 1000 + 450;
	s.st.v[1].state = CS_PLANNED;
	budget_compute(&s, 5000, &b);
	CU_ASSERT_DOUBLE_EQUAL(b.used, 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.committed, 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(budget_job_limit(&s.settings), 8.0, 1e-9);
	/* 3.6 s a step, 100 steps, 16 GPUs: 1.6 GPU-hours; none known:
	 * the limit. */
	CU_ASSERT_DOUBLE_EQUAL(budget_job_expected(&s.settings, 3.6), 1.6,
	                       1e-9);
	CU_ASSERT_DOUBLE_EQUAL(budget_job_expected(&s.settings, 0), 8.0,
	                       1e-9);
	/* Slurm gives a running job its expected end, start plus the time
	 * limit: 15 minutes in, 4 GPU-hours were used, not the limit's 8. */
	s.st.v[0].state = CS_RUNNING;
	s.st.v[0].end_time = 1000 + 1800;
	budget_compute(&s, 1000 + 900, &b);
	CU_ASSERT_DOUBLE_EQUAL(b.used, 4.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.committed, 8.0, 1e-9);
	/* report.html's progress chart places it by the same time. */
	CU_ASSERT_DOUBLE_EQUAL(budget_job_seconds(&s.st.v[0], 1000 + 900),
	                       900.0, 1e-9);
	/* Planned on 1 node, as its name says, where campaign.conf was
	 * edited to 2 since: 15 minutes on 8 GPUs are 2 GPU-hours, not
	 * 4; a name that says no nodes takes the campaign's. */
	strcpy(s.st.v[0].name, "llama_8.03b_1nodes_tp_1_pp_1");
	strcpy(s.st.v[1].name, "x_nodes_tp_2");
	s.st.v[1].state = CS_QUEUED;
	budget_compute(&s, 1000 + 900, &b);
	CU_ASSERT_DOUBLE_EQUAL(b.used, 2.0, 1e-9);
	/* used 2, the runner's rest 2, the queued one on 2 nodes 8 */
	CU_ASSERT_DOUBLE_EQUAL(b.committed, 12.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.queued, 8.0, 1e-9);
	state_release(&s.st);
	settings_release(&s.settings);
}

/* The progress line counts as failed what failed, not what Slurm ended
 * (a time limit, a node, preemption), which results may have measured. */
static void
test_progress_counts(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct state st;

	two_candidates(&st);
	st.v[0].state = CS_TIMEOUT;
	st.v[1].state = CS_OOM;
	store_progress(&st, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "0 done, 0 running, 0 pending, "
	                       "0 queued, 1 failed of 2 selected (0 not "
	                       "selected); 1 timed out");
	strbuf_reset(&sb);
	st.v[0].state = CS_NODE_FAIL;
	st.v[1].state = CS_PREEMPTED;
	store_progress(&st, &sb);
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, " 0 failed of 2 selected"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "; 1 ended by node failure; "
	                              "1 preempted"));
	strbuf_release(&sb);
	state_release(&st);
}

/* The site's cap holds queued candidates back when one more job at its
 * whole limit would pass it; the text says what frees them. */
static void
test_budget_holds(void)
{
	struct store s;
	struct settings site;
	struct strbuf sb = STRBUF_INIT;
	double after = 0;

	memset(&s, 0, sizeof(s));
	s.dir = (char *)"camp";
	settings_init(&s.settings);
	settings_init(&site);
	s.settings.nodes = 2;
	s.settings.gpus_per_node = 8;
	s.settings.limits.max_minutes_per_run = 30;  /* 8 GPU-hours */
	two_candidates(&s.st);
	s.st.v[0].state = CS_COMPLETED;              /* 2 used */
	s.st.v[0].start_time = 1000;
	s.st.v[0].end_time = 1000 + 450;
	s.st.v[1].state = CS_QUEUED;
	CU_ASSERT_FALSE(budget_holds_queued(&s, &site, 5000, NULL));
	site.policy.max_gpu_hours = 10;              /* 2 + 8 fits */
	CU_ASSERT_FALSE(budget_holds_queued(&s, &site, 5000, &after));
	CU_ASSERT_DOUBLE_EQUAL(after, 10.0, 1e-9);
	site.policy.max_gpu_hours = 9.5;
	CU_ASSERT_TRUE(budget_holds_queued(&s, &site, 5000, NULL));
	budget_held_text(&s, &site, 5000, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, "1 queued, held by "
	                       "policy.max_gpu_hours = 9.5: the next job "
	                       "could take the campaign to 10.0 GPU-hours; "
	                       "nothing runs until the site raises the cap "
	                       "('paratune cancel camp' ends the campaign)");
	/* With a job in Slurm, its end may free the budget. */
	s.st.v[0].state = CS_PENDING;
	strbuf_reset(&sb);
	budget_held_text(&s, &site, 5000, &sb);
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "it waits for the 1 active "
	                              "job to end"));
	/* Nothing queued: nothing held. */
	s.st.v[1].state = CS_COMPLETED;
	CU_ASSERT_FALSE(budget_holds_queued(&s, &site, 5000, NULL));
	strbuf_release(&sb);
	state_release(&s.st);
	settings_release(&s.settings);
	settings_release(&site);
}

/* Cancelling a running job records its end: the expected end Slurm
 * gave while it ran counted its whole time limit spent. */
static void
test_cancel_ends_job(void)
{
	char *dir = harness_tmpdir();
	long now = (long)time(NULL);
	struct store s;
	struct state copy;
	struct job_report rep = { CS_RUNNING, 77, 0, 0, 0, 0,
	                          "gpu[1-2]", "", "controller" };
	struct cand_status *c;

	rep.start_time = now - 60;
	rep.end_time = now + 3600;
	journal_store(&s, dir);
	two_candidates(&copy);
	c = &s.st.v[1];
	submit_job(&s, c, &rep);
	CU_ASSERT_EQUAL(store_cancelled(&s, c), 0);
	CU_ASSERT(c->end_time >= now && c->end_time < now + 3600);
	/* One never submitted has no end. */
	CU_ASSERT_EQUAL(store_cancelled(&s, &s.st.v[0]), 0);
	CU_ASSERT_EQUAL(s.st.v[0].end_time, 0);
	journal_close(&s.journal);
	CU_ASSERT_EQUAL(journal_replay(dir, 0, replay_into, &copy), 0);
	CU_ASSERT_EQUAL(copy.v[1].end_time, c->end_time);
	CU_ASSERT_EQUAL(copy.v[1].state, CS_CANCELLED);
	state_release(&copy);
	state_release(&s.st);
	harness_rmtree(dir);
	free(dir);
}

/*
 * Who mounted a FUSE file system, from lines of /proc/self/mountinfo
 * as the kernel writes them: a user's bindfs (its daemon answers stat()
 * with any owner), root's, other file systems, and lines cut short.
 */
static void
test_mount_user(void)
{
	struct mount_user m;

	memset(&m, 0, sizeof m);
	CU_ASSERT_TRUE(mount_user_parse("42 27 0:39 / /tmp/fz/mnt "
	        "rw,nosuid,nodev,relatime - fuse /tmp/fz/src "
	        "rw,user_id=1006,group_id=1007,default_permissions,"
	        "allow_other\n", &m));
	CU_ASSERT_EQUAL(m.major, 0);
	CU_ASSERT_EQUAL(m.minor, 39);
	CU_ASSERT_EQUAL(m.uid, 1006);
	CU_ASSERT_EQUAL(m.gid, 1007);
	/* Optional tags before the separator; fuse.NAME; options last. */
	CU_ASSERT_TRUE(mount_user_parse("51 30 0:48 / /home/m/x rw "
	        "shared:30 master:1 - fuse.sshfs m@h:/ rw,user_id=1001",
	        &m));
	CU_ASSERT_EQUAL(m.minor, 48);
	CU_ASSERT_EQUAL(m.uid, 1001);
	CU_ASSERT_EQUAL(m.gid, (gid_t)-1);
	CU_ASSERT_TRUE(mount_user_parse("60 1 8:17 / /mnt/usb rw - fuseblk "
	        "/dev/sdb1 rw,user_id=1002,group_id=1002\n", &m));
	CU_ASSERT_EQUAL(m.major, 8);
	/* Root's own FUSE, and file systems that are not FUSE. */
	CU_ASSERT_FALSE(mount_user_parse("42 27 0:39 / /mnt rw - fuse "
	        "/src rw,user_id=0,group_id=0,allow_other\n", &m));
	CU_ASSERT_FALSE(mount_user_parse("23 1 0:21 / /tmp rw - tmpfs "
	        "tmpfs rw,uid=1006\n", &m));
	CU_ASSERT_FALSE(mount_user_parse("24 1 0:22 / /x rw - fusectl "
	        "fusectl rw,user_id=1006\n", &m));
	/* Cut short, or an option only named like the one looked for. */
	CU_ASSERT_FALSE(mount_user_parse("42 27 0:39 / /mnt rw - fuse "
	        "/src\n", &m));
	CU_ASSERT_FALSE(mount_user_parse("42 27 0:39 / /mnt rw - fuse "
	        "/src rw,xuser_id=1006\n", &m));
	CU_ASSERT_FALSE(mount_user_parse("42 27 0:39 / /mnt rw - fuse "
	        "/src rw,user_id=12x\n", &m));
	CU_ASSERT_FALSE(mount_user_parse("42 27 / /mnt rw - fuse "
	        "/src rw,user_id=1006\n", &m));
	CU_ASSERT_FALSE(mount_user_parse("", &m));
}

/* The node count read back from names plan gives, and none from others. */
static void
test_candidate_name_nodes(void)
{
	CU_ASSERT_EQUAL(candidate_name_nodes(
	        "llama3_70b_16nodes_tp_4_pp_4_cp_1_vp_1_mbs_1_gbs_512"), 16);
	CU_ASSERT_EQUAL(candidate_name_nodes("model_0.12b_1nodes_tp_1"), 1);
	/* A family that holds digits is not read as the count. */
	CU_ASSERT_EQUAL(candidate_name_nodes("gpt4_8b_2nodes_tp_2"), 2);
	CU_ASSERT_EQUAL(candidate_name_nodes("8nodes_tp_1"), 0);
	CU_ASSERT_EQUAL(candidate_name_nodes("a_nodes_tp_1"), 0);
	CU_ASSERT_EQUAL(candidate_name_nodes("a_123456789nodes_tp_1"), 0);
	CU_ASSERT_EQUAL(candidate_name_nodes("a_12345678nodes_tp_1"),
	                12345678);
	CU_ASSERT_EQUAL(candidate_name_nodes("llama3_70b_4nodes_pp_1"), 0);
	CU_ASSERT_EQUAL(candidate_name_nodes(""), 0);
}

static const struct harness_test state_tests[] = {
	{ "state round trip", test_round_trip },
	{ "truncated and corrupt state", test_truncated_and_corrupt },
	{ "journal append and replay", test_journal_append_and_replay },
	{ "torn journal line trimmed", test_torn_line_trimmed },
	{ "NUL byte in the journal refused", test_nul_line_refused },
	{ "a forgotten job judged by its output", test_output_state },
	{ "journal gap detected", test_gap_detected },
	{ "events fold into the state", test_apply_events },
	{ "edited journal lines refused", test_events_refused },
	{ "transitions replay to the same state", test_transitions_replay },
	{ "a node list too long for its field", test_long_node_list },
	{ "a failed job keeps the nodes it ran on", test_node_fail_nodes },
	{ "a retried job's time stays spent", test_retry_keeps_spent },
	{ "a pending job has not started", test_pending_has_no_times },
	{ "search events replay to the same state",
	  test_search_events_replay },
	{ "edited state refused", test_state_refused },
	{ "a name twice past the candidate cap",
	  test_state_over_cap_duplicate },
	{ "candidates looked up by name", test_state_by_name },
	{ "GPU-hours used and committed", test_budget },
	{ "the site's cap holds queued candidates", test_budget_holds },
	{ "the progress line's counts", test_progress_counts },
	{ "cancel records a running job's end", test_cancel_ends_job },
	{ "what needs at least another's memory", test_needs_more_memory },
	{ "atomic writes through planted files", test_atomic_write_planted },
	{ "plan files created fresh and synced", test_plan_files_synced },
	{ "who mounted a FUSE file system", test_mount_user },
	{ "the node count in a candidate's name", test_candidate_name_nodes },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "state", state_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
