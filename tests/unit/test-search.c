/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-search.c - the adaptive search's correction (search-fit.h): a
 * fit recovers a known deviation, the prior keeps one run from
 * reordering the campaign, and the journal's text of a model reads
 * back to the same numbers; and what a completed run proves fits
 * (search.h).
 */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "search-fit.h"
#include "search.h"
#include "store-int.h"
#include "util.h"
#include "xalloc.h"

static struct layout
lay(int tp, int pp, int mbs, enum recompute rc)
{
	struct layout l;

	memset(&l, 0, sizeof(l));
	l.tp = tp;
	l.pp = pp;
	l.cp = l.ep = l.vp = 1;
	l.mbs = mbs;
	l.gbs = 128;
	l.recompute = rc;
	return l;
}

/* 36 runs over tp x pp x mbs x recompute whose measured times are the
 * predictions times 1.2, times 1.05 per doubling of tp: the fit finds
 * both (the prior costs a little with this many runs). */
static void
test_fit_recovers_known_factor(void)
{
	static const int tps[] = { 1, 2, 4 }, pps[] = { 1, 2 }, mbss[] = { 1, 2 };
	double x[36][FIT_NTERMS], y[36];
	struct fit_model m;
	int n = 0;

	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 2; b++)
			for (int c = 0; c < 2; c++)
				for (int r = 0; r < 3; r++) {
					struct layout l = lay(tps[a], pps[b], mbss[c],
					                      (enum recompute)r);

					fit_features(&l, x[n]);
					y[n++] = log(1.2) + log(1.05) * log2(tps[a]);
				}
	CU_ASSERT_EQUAL_FATAL(fit_solve((const double (*)[FIT_NTERMS])x, y, n,
	                                &m), 0);
	CU_ASSERT_EQUAL(m.runs, 36);
	ASSERT_NEAR_REL(fit_factor(&m), 1.2, 0.02);
	CU_ASSERT_DOUBLE_EQUAL(m.coef[FIT_TP], log(1.05), 0.01);
	CU_ASSERT_DOUBLE_EQUAL(m.coef[FIT_PP], 0, 0.01);
	CU_ASSERT_DOUBLE_EQUAL(m.coef[FIT_MBS], 0, 0.01);
	/* An exact fit: the spread is the floor, not the prior's 10 %. */
	CU_ASSERT(m.sigma < 0.04);
	CU_ASSERT(m.sigma >= FIT_MIN_SIGMA);
	{
		struct layout l = lay(8, 1, 1, RECOMPUTE_NONE);

		/* tp 8 was never measured: the slope carries to it. */
		ASSERT_NEAR_REL(fit_predict(&m, &l, 1.0), 1.2 * pow(1.05, 3),
		                0.03);
	}
}

/* One run 50 % slower than predicted, at tp 2: the global factor takes
 * most of it, the slope little, so that tp 8 predicted 15 % slower
 * than tp 1 stays behind it. */
static void
test_prior_holds_one_point(void)
{
	struct layout l = lay(2, 1, 1, RECOMPUTE_NONE);
	struct layout a = lay(1, 1, 1, RECOMPUTE_NONE);
	struct layout b = lay(8, 1, 1, RECOMPUTE_NONE);
	double x[1][FIT_NTERMS], y[1] = { log(1.5) };
	struct fit_model m;

	fit_features(&l, x[0]);
	CU_ASSERT_EQUAL_FATAL(fit_solve((const double (*)[FIT_NTERMS])x, y, 1,
	                                &m), 0);
	CU_ASSERT(fit_factor(&m) > 1.3);
	CU_ASSERT(fit_factor(&m) < 1.5);
	/* The ratio of tp 8's correction to tp 1's: a few percent. */
	CU_ASSERT(fit_predict(&m, &b, 1.0) / fit_predict(&m, &a, 1.0) < 1.12);
	CU_ASSERT(fit_predict(&m, &b, 1.15) > fit_predict(&m, &a, 1.0));
	/* Few runs: the interval stays near the prior's width. */
	CU_ASSERT(m.sigma > 0.07);
	CU_ASSERT(fit_optimistic(&m, &a, 1.0) < fit_predict(&m, &a, 1.0));
}

/* Two runs at tp 1 and tp 4, 1.5 and 0.8 of their predictions: the
 * slope is learned most of the way (-0.23 a doubling) and reorders tp 8
 * predicted 60 % slower than tp 1 ahead of it. */
static void
test_two_levels_teach_a_slope(void)
{
	struct layout l1 = lay(1, 1, 1, RECOMPUTE_NONE);
	struct layout l4 = lay(4, 1, 1, RECOMPUTE_NONE);
	struct layout l8 = lay(8, 1, 1, RECOMPUTE_NONE);
	double x[2][FIT_NTERMS], y[2] = { log(1.5), log(0.8) };
	struct fit_model m;

	fit_features(&l1, x[0]);
	fit_features(&l4, x[1]);
	CU_ASSERT_EQUAL_FATAL(fit_solve((const double (*)[FIT_NTERMS])x, y, 2,
	                                &m), 0);
	CU_ASSERT(m.coef[FIT_TP] < -0.15);
	CU_ASSERT(m.coef[FIT_TP] > -0.32);
	CU_ASSERT(fit_predict(&m, &l8, 1.6) < fit_predict(&m, &l1, 1.0));
}

/* No run, or a value that is not finite: no fit, no correction. */
static void
test_fit_refuses(void)
{
	double x[1][FIT_NTERMS], y[1] = { NAN };
	struct layout l = lay(2, 1, 1, RECOMPUTE_NONE);
	struct fit_model m;

	fit_features(&l, x[0]);
	CU_ASSERT_EQUAL(fit_solve((const double (*)[FIT_NTERMS])x, y, 0, &m),
	                -1);
	CU_ASSERT_EQUAL(fit_solve((const double (*)[FIT_NTERMS])x, y, 1, &m),
	                -1);
	CU_ASSERT_EQUAL(m.runs, 0);
	CU_ASSERT_DOUBLE_EQUAL(fit_predict(&m, &l, 2.5), 2.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(fit_factor(&m), 1.0, 1e-12);
}

/* What the journal writes reads back to the same model; what it cannot
 * have written is refused. */
static void
test_model_text_round_trip(void)
{
	static const char *const bad[] = {
		"0,0,0,0,0,0,0,0", "0,0,0,0,0,0,0,0,0,0", "nan,0,0,0,0,0,0,0,0",
		"11,0,0,0,0,0,0,0,0", "0,0,0,0,0,0,0,0,x", "",
	};
	struct fit_model m, back;
	char buf[192];

	memset(&m, 0, sizeof(m));
	m.runs = 3;
	for (int j = 0; j < FIT_NTERMS; j++)
		m.coef[j] = 0.01 * (j + 1) * (j % 2 ? -1 : 1);
	m.sigma = 0.0625;
	fit_format_coef(&m, buf, sizeof buf);
	memset(&back, 0, sizeof(back));
	CU_ASSERT_EQUAL(fit_parse(buf, "0.0625", &back), 0);
	for (int j = 0; j < FIT_NTERMS; j++)
		CU_ASSERT_DOUBLE_EQUAL(back.coef[j], m.coef[j], 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(back.sigma, 0.0625, 1e-12);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CU_ASSERT_EQUAL(fit_parse(bad[i], "0.1", &back), -1);
	CU_ASSERT_EQUAL(fit_parse(buf, "-1", &back), -1);
	CU_ASSERT_EQUAL(fit_parse(buf, "inf", &back), -1);
	/* Refused text leaves the model as it was. */
	CU_ASSERT_DOUBLE_EQUAL(back.sigma, 0.0625, 1e-12);
}

/* ---- what a completed run proves ----------------------------------------- */

/* A campaign of five candidates in a scratch store: the base (tp 2,
 * mbs 1) has completed; tp 4 needs at most its memory, mbs 2 more, vp
 * 2 is not comparable, each planned oom-risk; tp 8 is safe, and queued
 * when all_safe_selected.  The caller releases it (prove_release). */
static void
prove_campaign(struct store *s, bool all_safe_selected)
{
	static const struct { const char *name; int tp, mbs, vp; bool unsafe;
	                      enum cand_state state; } c[] = {
		{ "m_tp2_mbs1", 2, 1, 1, false, CS_COMPLETED },
		{ "m_tp4_mbs1", 4, 1, 1, true, CS_PLANNED },
		{ "m_tp2_mbs2", 2, 2, 1, true, CS_PLANNED },
		{ "m_tp4_mbs1_vp2", 4, 1, 2, true, CS_PLANNED },
		{ "m_tp8_mbs1", 8, 1, 1, false, CS_QUEUED },
	};
	enum { N = sizeof c / sizeof c[0] };
	struct grid_result res;
	struct strbuf sb = STRBUF_INIT;
	char *csv;

	memset(s, 0, sizeof(*s));
	memset(&res, 0, sizeof(res));
	s->dir = harness_tmpdir();
	s->lock_fd = -1;
	settings_init(&s->settings);
	res.v = xcalloc(N, sizeof(*res.v));
	res.n = N;
	s->st.v = xcalloc(N, sizeof(*s->st.v));
	s->st.n = s->st.alloc = N;
	strcpy(s->st.campaign_id, "0a1b2c3d");
	for (int i = 0; i < N; i++) {
		struct candidate *k = &res.v[i];
		struct cand_status *st = &s->st.v[i];

		k->layout = lay(c[i].tp, 1, c[i].mbs, RECOMPUTE_NONE);
		k->layout.vp = c[i].vp;
		k->layout.dp = 16 / c[i].tp;
		k->rank = i + 1;
		k->base = i == 0;
		k->est.memory_status = c[i].unsafe ? MEM_OOM_RISK : MEM_SAFE;
		k->est.step_s = 1.0 + 0.1 * i;
		snprintf(k->name, sizeof k->name, "%s", c[i].name);
		snprintf(st->name, sizeof st->name, "%s", c[i].name);
		st->rank = i + 1;
		st->base = i == 0;
		st->unsafe = c[i].unsafe;
		st->state = c[i].state;
	}
	if (!all_safe_selected)
		s->st.v[N - 1].state = CS_PLANNED;
	candidates_csv_write(&sb, &res, PREC_BF16);
	csv = xasprintf("%s/candidates.csv", s->dir);
	CU_ASSERT_EQUAL_FATAL(write_file_atomic(csv, sb.buf, sb.len, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(journal_open(&s->journal, s->dir), 0);
	free(csv);
	free(res.v);
	strbuf_release(&sb);
}

static void
prove_release(struct store *s)
{
	journal_close(&s->journal);
	state_release(&s->st);
	settings_release(&s->settings);
	harness_rmtree(s->dir);
	free(s->dir);
}

static int
replay_into(const struct journal_entry *e, const char *path, void *arg)
{
	struct store_event ev;

	return store_event_parse(e, path, &ev) ||
	       store_event_apply(arg, &ev, path) ? -1 : 0;
}

/*
 * The completed base proves that tp 4 fits (a fits event naming it),
 * and nothing else: mbs 2 needs more, vp 2 is another layout.  With
 * every safe candidate selected it is queued for the search to rank.
 * A second step proves and queues nothing again, and the journal
 * replayed on the state before them rebuilds the same state.
 */
static void
test_completed_run_proves_fit(void)
{
	FILE *out = fopen("/dev/null", "w");
	struct store s, before;
	int transitions;

	prove_campaign(&s, true);
	prove_campaign(&before, true);
	CU_ASSERT_EQUAL(search_prove(&s, out, 0), 1);
	CU_ASSERT_STRING_EQUAL(s.st.v[1].fits_by, "m_tp2_mbs1");
	CU_ASSERT_EQUAL(s.st.v[1].state, CS_QUEUED);
	CU_ASSERT_FALSE(cand_at_risk(&s.st.v[1]));
	for (int i = 2; i < 4; i++) {
		CU_ASSERT_STRING_EQUAL(s.st.v[i].fits_by, "");
		CU_ASSERT_EQUAL(s.st.v[i].state, CS_PLANNED);
		CU_ASSERT_TRUE(cand_at_risk(&s.st.v[i]));
	}
	transitions = s.transitions;
	CU_ASSERT_EQUAL(transitions, 2); /* fits, then queued */
	CU_ASSERT_EQUAL(search_prove(&s, out, 0), 0);
	CU_ASSERT_EQUAL(s.transitions, transitions);
	CU_ASSERT_EQUAL(journal_replay(s.dir, 0, replay_into, &before.st), 0);
	CU_ASSERT_STRING_EQUAL(before.st.v[1].fits_by, "m_tp2_mbs1");
	CU_ASSERT_EQUAL(before.st.v[1].state, CS_QUEUED);
	/* Replayed again (a crash before the checkpoint): the same. */
	CU_ASSERT_EQUAL(journal_replay(s.dir, 0, replay_into, &before.st), 0);
	CU_ASSERT_EQUAL(before.st.v[1].state, CS_QUEUED);
	CU_ASSERT_EQUAL(before.st.journal_seq, 2);
	prove_release(&before);
	prove_release(&s);
	fclose(out);
}

/*
 * With a safe candidate left unselected (submit --top), the proof is
 * recorded but nothing is queued; once every safe one is selected, the
 * next step queues what was proved before.  A stopped search proves but
 * queues nothing, policy.max_candidates caps what is queued, and under
 * search.strategy = "all" nothing is proved.
 */
static void
test_proof_queues_only_what_submit_would(void)
{
	FILE *out = fopen("/dev/null", "w");
	struct store s;

	prove_campaign(&s, false);
	CU_ASSERT_EQUAL(search_prove(&s, out, 0), 1);
	CU_ASSERT_STRING_EQUAL(s.st.v[1].fits_by, "m_tp2_mbs1");
	CU_ASSERT_EQUAL(s.st.v[1].state, CS_PLANNED);
	CU_ASSERT_EQUAL(s.transitions, 1);
	s.st.v[4].state = CS_QUEUED;
	CU_ASSERT_EQUAL(search_prove(&s, out, 0), 0);
	CU_ASSERT_EQUAL(s.st.v[1].state, CS_QUEUED);
	CU_ASSERT_EQUAL(s.transitions, 2);
	prove_release(&s);

	prove_campaign(&s, true);
	strcpy(s.st.stop_reason, STORE_STOP_NO_GAIN);
	CU_ASSERT_EQUAL(search_prove(&s, out, 0), 1);
	CU_ASSERT_EQUAL(s.st.v[1].state, CS_PLANNED);
	prove_release(&s);

	/* The site's cap on selected candidates holds: 2 of 5 are. */
	prove_campaign(&s, true);
	s.settings.policy.max_candidates = 2;
	CU_ASSERT_EQUAL(search_prove(&s, out, 0), 1);
	CU_ASSERT_EQUAL(s.st.v[1].state, CS_PLANNED);
	s.settings.policy.max_candidates = 3;
	CU_ASSERT_EQUAL(search_prove(&s, out, 0), 0);
	CU_ASSERT_EQUAL(s.st.v[1].state, CS_QUEUED);
	prove_release(&s);

	prove_campaign(&s, true);
	s.settings.search.strategy = STRATEGY_ALL;
	CU_ASSERT_EQUAL(search_prove(&s, out, 0), 0);
	CU_ASSERT_EQUAL(s.transitions, 0);
	prove_release(&s);
	fclose(out);
}

/* ---- candidates.csv's current prediction ------------------------------- */

static ino_t
inode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_ino : 0;
}

static int
read_candidates_cb(void *arg)
{
	struct candidate_table t;
	int ret = store_read_candidates(arg, &t);

	candidate_table_release(&t);
	return ret;
}

/* A column this release does not know after fewer than all the switches
 * is a damaged header, not a later release's: refused.  plan is the
 * plan's file; the first 19 columns of each line are kept. */
static void
check_unknown_after_few_switches(const char *csv, const char *plan)
{
	struct strbuf sb = STRBUF_INIT;
	char *dir = path_dir(csv), *err;
	int ret;

	for (const char *p = plan; *p;) {
		size_t n = strcspn(p, "\n"), cut = 0;
		int commas = 0;

		while (cut < n && (p[cut] != ',' || ++commas < 19))
			cut++;
		strbuf_add(&sb, p, cut);
		strbuf_addstr(&sb, !strncmp(p, "rank,", 5) ? ",color\n"
		                                          : ",red\n");
		p += n + (p[n] == '\n');
	}
	CU_ASSERT_EQUAL(write_file_atomic(csv, sb.buf, sb.len, 0644), 0);
	err = harness_capture_stderr(read_candidates_cb, dir, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unexpected header"));
	free(err);
	free(dir);
	strbuf_release(&sb);
}

/*
 * After a refit candidates.csv gains a last column pred_now_step_s, the
 * plan's prediction as the refit corrects it, every plan column kept as
 * written; it is rewritten only when a value changes, holds one such
 * column whatever the number of refits, and a column this release does
 * not know is read past and kept.
 */
static void
test_candidates_now_column(void)
{
	struct store s;
	struct candidate_table t;
	struct fit_model m;
	char *csv, *plan, *plan_copy, *now, *line, *save = NULL;
	size_t len;
	ino_t ino;

	prove_campaign(&s, true);
	csv = xasprintf("%s/candidates.csv", s.dir);
	plan = harness_slurp(csv, &len);
	plan_copy = xstrdup(plan);
	memset(&m, 0, sizeof(m));
	/* No refit yet: the plan's file stays as it is. */
	CU_ASSERT_EQUAL(store_write_predictions(s.dir, &m), 0);
	now = harness_slurp(csv, &len);
	CU_ASSERT_STRING_EQUAL(now, plan);
	free(now);
	m.runs = 2;
	m.coef[FIT_GLOBAL] = log(1.25);
	m.coef[FIT_TP] = log(1.1);
	m.sigma = 0.05;
	CU_ASSERT_EQUAL(store_write_predictions(s.dir, &m), 0);
	CU_ASSERT_EQUAL_FATAL(store_read_candidates(s.dir, &t), 0);
	for (int i = 0; i < t.n; i++) {
		CU_ASSERT_TRUE(t.v[i].has_pred_now);
		CU_ASSERT_DOUBLE_EQUAL(t.v[i].pred_now_step_s,
		                       fit_predict(&m, &t.v[i].layout,
		                                   t.v[i].pred_step_s), 1e-4);
	}
	/* tp 2 base: 1.0 s x 1.25 x 1.1 */
	CU_ASSERT_DOUBLE_EQUAL(t.v[0].pred_now_step_s, 1.375, 1e-4);
	candidate_table_release(&t);
	/* Each plan line is still there, with one column more. */
	now = harness_slurp(csv, &len);
	for (line = strtok_r(plan, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *at = strstr(now, line);

		CU_ASSERT_PTR_NOT_NULL(at);
		if (at)
			CU_ASSERT_EQUAL(at[strlen(line)], ',');
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(now, ",pred_now_step_s\n"));
	free(now);
	/* The same model again: nothing to write. */
	ino = inode_of(csv);
	CU_ASSERT_EQUAL(store_write_predictions(s.dir, &m), 0);
	CU_ASSERT_EQUAL(inode_of(csv), ino);
	/* A later release's column, then a new refit: one
	 * pred_now_step_s, last, and the unknown column kept. */
	now = harness_slurp(csv, &len);
	{
		struct strbuf sb = STRBUF_INIT;
		char *p = now;

		while (*p) {
			size_t n = strcspn(p, "\n");

			strbuf_add(&sb, p, n);
			strbuf_addstr(&sb, sb.len == n &&
			              !strncmp(p, "rank,", 5) ? ",color\n"
			              : ",red\n");
			p += n + (p[n] == '\n');
		}
		CU_ASSERT_EQUAL(write_file_atomic(csv, sb.buf, sb.len, 0644),
		                0);
		strbuf_release(&sb);
	}
	free(now);
	CU_ASSERT_EQUAL_FATAL(store_read_candidates(s.dir, &t), 0);
	CU_ASSERT_DOUBLE_EQUAL(t.v[0].pred_now_step_s, 1.375, 1e-4);
	candidate_table_release(&t);
	m.coef[FIT_GLOBAL] = log(0.8);
	CU_ASSERT_EQUAL(store_write_predictions(s.dir, &m), 0);
	now = harness_slurp(csv, &len);
	CU_ASSERT_PTR_NOT_NULL(strstr(now, ",color,pred_now_step_s\n"));
	CU_ASSERT_PTR_NULL(strstr(strstr(now, "pred_now_step_s") + 1,
	                          "pred_now_step_s"));
	free(now);
	CU_ASSERT_EQUAL_FATAL(store_read_candidates(s.dir, &t), 0);
	CU_ASSERT_DOUBLE_EQUAL(t.v[0].pred_now_step_s, 0.88, 1e-4);
	candidate_table_release(&t);
	check_unknown_after_few_switches(csv, plan_copy);
	free(plan_copy);
	free(plan);
	free(csv);
	prove_release(&s);
}

static const struct harness_test prove_tests[] = {
	{ "a completed run proves what needs less fits",
	  test_completed_run_proves_fit },
	{ "a proof queues only what submit would select",
	  test_proof_queues_only_what_submit_would },
	{ NULL, NULL },
};

/*
 * A spreadsheet re-saving candidates.csv may quote every field and end
 * its lines in CR LF, as RFC 4180 has it: the file reads as plan wrote
 * it, and the refit rewrites it as plan writes, unquoted with LF.
 */
static void
test_candidates_quoted(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct candidate_table t;
	struct fit_model m;
	struct store s;
	char *csv, *plan, *now;
	int rows;
	size_t len;

	prove_campaign(&s, true);
	csv = xasprintf("%s/candidates.csv", s.dir);
	plan = harness_slurp(csv, &len);
	for (const char *p = plan; *p; p++)
		if (*p == '\n')
			strbuf_addstr(&sb, "\"\r\n");
		else if (*p == ',')
			strbuf_addstr(&sb, "\",\"");
		else if (p == plan || p[-1] == '\n')
			strbuf_addf(&sb, "\"%c", *p);
		else
			strbuf_addch(&sb, *p);
	CU_ASSERT_EQUAL(write_file_atomic(csv, sb.buf, sb.len, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(store_read_candidates(s.dir, &t), 0);
	rows = t.n;
	CU_ASSERT_TRUE(rows > 0);
	candidate_table_release(&t);
	memset(&m, 0, sizeof(m));
	m.runs = 2;
	m.coef[FIT_GLOBAL] = log(1.25);
	m.sigma = 0.05;
	CU_ASSERT_EQUAL(store_write_predictions(s.dir, &m), 0);
	now = harness_slurp(csv, &len);
	CU_ASSERT_PTR_NULL(strpbrk(now, "\"\r"));
	CU_ASSERT_EQUAL(strncmp(now, plan, strcspn(plan, "\n")), 0);
	CU_ASSERT_EQUAL_FATAL(store_read_candidates(s.dir, &t), 0);
	CU_ASSERT_EQUAL(t.n, rows);
	CU_ASSERT_TRUE(t.v[0].has_pred_now);
	candidate_table_release(&t);
	free(now);
	strbuf_release(&sb);
	free(plan);
	free(csv);
	prove_release(&s);
}

static const struct harness_test csv_tests[] = {
	{ "candidates.csv shows the current prediction",
	  test_candidates_now_column },
	{ "candidates.csv quoted as RFC 4180 allows",
	  test_candidates_quoted },
	{ NULL, NULL },
};

/* The stop rule's optimistic end: the calibration's interval counts
 * only when the calibration was fitted to measured runs, and then only
 * where it is lower than the refit's own bound. */
static void
test_optimistic_interval(void)
{
	struct layout l = lay(2, 1, 1, RECOMPUTE_NONE);
	struct fit_model m;
	double opt;

	memset(&m, 0, sizeof(m));
	m.runs = 2;
	m.coef[FIT_GLOBAL] = log(1.1);
	m.sigma = 0.05;
	opt = fit_optimistic(&m, &l, 2.0);
	/* Built-in defaults: the interval is not the site's; unchanged. */
	CU_ASSERT_DOUBLE_EQUAL(fit_optimistic_interval(&m, &l, 2.0, 1.0,
	                                               false), opt, 1e-12);
	/* Fitted: a low end of 1.5 s is 1.65 s corrected, below 2.02 s. */
	CU_ASSERT_DOUBLE_EQUAL(fit_optimistic_interval(&m, &l, 2.0, 1.5,
	                                               true), 1.65, 1e-9);
	/* A narrow interval does not raise the refit's bound. */
	CU_ASSERT_DOUBLE_EQUAL(fit_optimistic_interval(&m, &l, 2.0, 1.95,
	                                               true), opt, 1e-12);
	/* A plan without the column (0): the refit's bound. */
	CU_ASSERT_DOUBLE_EQUAL(fit_optimistic_interval(&m, &l, 2.0, 0, true),
	                       opt, 1e-12);
}

static const struct harness_test fit_tests[] = {
	{ "a fit recovers a known factor", test_fit_recovers_known_factor },
	{ "the prior holds one point", test_prior_holds_one_point },
	{ "two levels teach a slope", test_two_levels_teach_a_slope },
	{ "no runs, no correction", test_fit_refuses },
	{ "the model's text round trip", test_model_text_round_trip },
	{ "the calibrated optimistic end", test_optimistic_interval },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "search fit", fit_tests },
	{ "search proves fit", prove_tests },
	{ "search candidates.csv", csv_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
