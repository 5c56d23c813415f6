/*
 * test-state.c - the state checkpoint and the journal: round trips,
 * truncation and corruption reported by line, torn journal lines, gaps,
 * and recovery by replay.
 */
#include "autoconfig.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "runner.h"
#include "state.h"
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
	CU_ASSERT_EQUAL_FATAL(state_save(dir, &a), 0);
	CU_ASSERT_EQUAL_FATAL(state_load(dir, &b), 0);
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
	struct load_arg la = { dir, { { 0 }, 0, NULL, 0, 0 } };
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

static int
collect(const struct journal_entry *e, void *arg)
{
	struct strbuf *sb = arg;

	strbuf_addf(sb, "%ld %s %s %s|", e->seq, e->event, e->name, e->detail);
	return 0;
}

static void
test_journal_append_and_replay(void)
{
	char *dir = harness_tmpdir();
	struct journal j;
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
	struct journal j;
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

struct replay_arg {
	const char *dir;
};

static int
replay_fn(void *arg)
{
	return journal_replay(((struct replay_arg *)arg)->dir, 0, NULL, NULL);
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

/* The state is a fold of the journal: events move candidates. */
static void
test_apply_events(void)
{
	struct state st;
	struct journal_entry e;
	bool seq = false;

	two_candidates(&st);
	memset(&e, 0, sizeof(e));
	e.seq = 7;
	strcpy(e.name, "llama_8b_tp_2");
	strcpy(e.event, "queued");
	CU_ASSERT_EQUAL(runner_apply(&st, &e, &seq), 0);
	CU_ASSERT_EQUAL(st.v[1].state, CS_QUEUED);
	strcpy(e.event, "intent");
	strcpy(e.detail, "tag=pt-0a1b2c3d-2-1 attempt=1 time=100");
	CU_ASSERT_EQUAL(runner_apply(&st, &e, &seq), 0);
	CU_ASSERT_EQUAL(st.v[1].state, CS_SUBMITTING);
	CU_ASSERT_STRING_EQUAL(st.v[1].tag, "pt-0a1b2c3d-2-1");
	CU_ASSERT_EQUAL(st.v[1].attempt, 1);
	strcpy(e.event, "submitted");
	strcpy(e.detail, "job=99 time=101");
	runner_apply(&st, &e, &seq);
	CU_ASSERT_EQUAL(st.v[1].state, CS_PENDING);
	CU_ASSERT_EQUAL(st.v[1].job_id, 99);
	strcpy(e.event, "state");
	strcpy(e.detail, "state=node_fail job=99 nodes=gpu3 source=controller");
	runner_apply(&st, &e, &seq);
	CU_ASSERT_EQUAL(st.v[1].state, CS_NODE_FAIL);
	strcpy(e.event, "retry");
	strcpy(e.detail, "exclude=gpu3");
	runner_apply(&st, &e, &seq);
	CU_ASSERT_EQUAL(st.v[1].state, CS_QUEUED);
	CU_ASSERT_STRING_EQUAL(st.v[1].exclude, "gpu3");
	CU_ASSERT_EQUAL(st.journal_seq, 7);
	strcpy(e.name, "nobody");
	CU_ASSERT_EQUAL(runner_apply(&st, &e, &seq), -1);
	state_release(&st);
}

static const struct harness_test state_tests[] = {
	{ "state round trip", test_round_trip },
	{ "truncated and corrupt state", test_truncated_and_corrupt },
	{ "journal append and replay", test_journal_append_and_replay },
	{ "torn journal line trimmed", test_torn_line_trimmed },
	{ "journal gap detected", test_gap_detected },
	{ "events fold into the state", test_apply_events },
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
