/*
 * test-grid.c - the streamed grid: counts worked by hand, ranking,
 * bounded memory (the cap keeps exactly the best), the base.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "grid.h"
#include "harness.h"
#include "models.h"

/* A campaign of Llama 3 8B on one node, searched lists set below. */
static void
campaign_fixture(struct campaign *c)
{
	campaign_init(c);
	c->model = test_llama3_8b();
	c->gpu = test_h100();
	c->nodes = 1;
	c->gpus_per_node = 8;
	c->seq_length = 4096;
	c->precision = PREC_BF16;
	c->memory.margin_gb = 4;
	c->search.heuristics = HEUR_MODEL;
	c->search.min_model_parallel = 1;
	c->search.max_model_parallel = 64;
}

static void
set_list(struct int_list *l, int n, const int *v)
{
	l->is_auto = false;
	l->n = n;
	for (int i = 0; i < n; i++)
		l->v[i] = v[i];
}

static void
small_lists(struct campaign *c)
{
	static const int tp[] = { 1, 2, 4, 8 }, pp[] = { 1, 2 }, one[] = { 1 };
	static const int mbs[] = { 1, 2 }, gbs[] = { 64 };

	set_list(&c->search.tp, 4, tp);
	set_list(&c->search.pp, 2, pp);
	set_list(&c->search.cp, 1, one);
	set_list(&c->search.ep, 1, one);
	set_list(&c->search.vp, 1, one);
	set_list(&c->search.mbs, 2, mbs);
	set_list(&c->global_batch_size, 1, gbs);
	c->search.recompute = BIT(RECOMPUTE_SELECTIVE);
}

static void
run(struct campaign *c, int cap, struct grid_spec *spec,
    struct grid_result *res, struct workload *w)
{
	struct strbuf notes = STRBUF_INIT;

	CU_ASSERT_EQUAL_FATAL(grid_spec_init(spec, c, &notes), 0);
	campaign_workload(c, w);
	w->model = &c->model;
	w->gpu = &c->gpu;
	w->gpu_memory_gib = c->gpu.memory_gib;
	grid_run(spec, w, "llama_8.03b_1nodes", cap, res, NULL, NULL);
	grid_finish(res);
	strbuf_release(&notes);
}

/*
 * 4 tp x 2 pp x 2 mbs = 16 combinations.  tp 8 with pp 2 needs 16 GPUs
 * (2 combinations invalid by the world rule); every other one divides
 * heads 32, groups 8, layers 32 and gbs 64 % (mbs*dp) (dp <= 8, mbs <= 2).
 */
static void
test_counts_by_hand(void)
{
	struct campaign c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	run(&c, 100, &spec, &res, &w);
	CU_ASSERT_EQUAL(grid_spec_size(&spec), 16);
	CU_ASSERT_EQUAL(res.stats.examined, 16);
	CU_ASSERT_EQUAL(res.stats.invalid, 2);
	CU_ASSERT_EQUAL(res.stats.invalid_by_rule[RULE_WORLD], 2);
	CU_ASSERT_EQUAL(res.stats.valid, 14);
	CU_ASSERT_EQUAL(res.stats.safe + res.stats.oom_risk, 14);
	CU_ASSERT_EQUAL(res.n, 14);
	CU_ASSERT_EQUAL(res.stats.dropped, 0);
	grid_result_release(&res);
	campaign_release(&c);
}

static void
test_ranked_and_named(void)
{
	struct campaign c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	run(&c, 100, &spec, &res, &w);
	for (int i = 0; i < res.n; i++) {
		CU_ASSERT_EQUAL(res.v[i].rank, i + 1);
		if (i > 0)
			CU_ASSERT(candidate_compare(&res.v[i - 1], &res.v[i]) < 0);
		for (int j = 0; j < i; j++)
			CU_ASSERT(strcmp(res.v[i].name, res.v[j].name) != 0);
	}
	/* Safe candidates come before the ones at risk. */
	for (int i = 1; i < res.n; i++)
		CU_ASSERT(!(res.v[i - 1].est.memory_status == MEM_OOM_RISK &&
		            res.v[i].est.memory_status == MEM_SAFE));
	CU_ASSERT_STRING_EQUAL(strstr(res.v[0].name, "_seq_") ?
	                       strstr(res.v[0].name, "_seq_") : "",
	                       "_seq_4096_gbs_64");
	CU_ASSERT(strncmp(res.v[0].name, "llama_8.03b_1nodes_tp_", 22) == 0);
	grid_result_release(&res);
	campaign_release(&c);
}

/* A capped run keeps exactly the best of the uncapped one. */
static void
test_cap_keeps_the_best(void)
{
	struct campaign c;
	struct grid_spec spec;
	struct grid_result all, top;
	struct workload w;

	campaign_fixture(&c);
	small_lists(&c);
	run(&c, 100, &spec, &all, &w);
	run(&c, 5, &spec, &top, &w);
	CU_ASSERT_EQUAL(top.n, 5);
	CU_ASSERT_EQUAL(top.stats.dropped, 9);
	CU_ASSERT_EQUAL(top.stats.valid, 14);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_STRING_EQUAL(top.v[i].name, all.v[i].name);
	grid_result_release(&all);
	grid_result_release(&top);
	campaign_release(&c);
}

/* "auto" vp: every divisor of the layers, filtered by the rules. */
static void
test_auto_vp_and_rule_totals(void)
{
	struct campaign c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	long long sum = 0;

	campaign_fixture(&c);
	small_lists(&c);
	c.search.vp.is_auto = true;
	run(&c, 1000, &spec, &res, &w);
	/* Divisors of 32: 1 2 4 8 16 32. */
	CU_ASSERT_EQUAL(spec.vp.n, 6);
	CU_ASSERT_EQUAL(res.stats.examined, 16 * 6);
	for (int r = 0; r < RULE_COUNT; r++)
		sum += res.stats.invalid_by_rule[r];
	CU_ASSERT_EQUAL(sum, res.stats.invalid);
	/* pp 2 allows vp 2, 4, 8, 16 (32 % (2*vp) == 0); m = 64/(mbs*dp)
	 * must be a multiple of 2: tp 1: dp 4, m 16 or 8; tp 2: dp 2, m 32
	 * or 16; tp 4: dp 1, m 64 or 32: all even.  So 3 tp x 2 mbs x 4 vp
	 * = 24 interleaved candidates plus the 14 without. */
	CU_ASSERT_EQUAL(res.stats.valid, 14 + 24);
	grid_result_release(&res);
	campaign_release(&c);
}

/* The base is marked, and added in place of the worst when not kept. */
static void
test_base_added(void)
{
	struct campaign c;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	struct layout base;
	int i;

	campaign_fixture(&c);
	small_lists(&c);
	run(&c, 3, &spec, &res, &w);
	base = res.v[2].layout; /* kept: just marked */
	i = grid_add_base(&res, &spec, &w, "x", &base);
	CU_ASSERT(res.v[i].base);
	CU_ASSERT_EQUAL(res.n, 3);
	grid_result_release(&res);

	run(&c, 3, &spec, &res, &w);
	memset(&base, 0, sizeof(base));
	base.tp = 8; base.pp = 1; base.cp = base.ep = base.vp = 1;
	base.mbs = 2; base.gbs = 64;
	base.recompute = RECOMPUTE_SELECTIVE;
	base.sequence_parallel = true;
	base.distributed_optimizer = true;
	CU_ASSERT_EQUAL_FATAL(layout_check(&w, &base), LAYOUT_OK);
	i = grid_add_base(&res, &spec, &w, "x", &base);
	CU_ASSERT_EQUAL(res.n, 3);
	CU_ASSERT(res.v[i].base);
	CU_ASSERT_EQUAL(res.v[i].layout.tp, 8);
	CU_ASSERT_EQUAL(res.v[i].rank, i + 1);
	grid_result_release(&res);
	campaign_release(&c);
}

/* Finetune without explicit tp and pp lists is refused. */
static int
finetune_auto(void *arg)
{
	struct campaign *c = arg;
	struct grid_spec spec;
	struct strbuf notes = STRBUF_INIT;
	int r = grid_spec_init(&spec, c, &notes);

	strbuf_release(&notes);
	return r;
}

static void
test_finetune_needs_lists(void)
{
	struct campaign c;
	char *err;
	int ret;

	campaign_fixture(&c);
	c.mode = MODE_FINETUNE;
	c.search.tp.is_auto = true;
	err = harness_capture_stderr(finetune_auto, &c, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "finetune"));
	free(err);
	campaign_release(&c);
}

static const struct harness_test grid_tests[] = {
	{ "counts worked by hand", test_counts_by_hand },
	{ "ranked, unique names", test_ranked_and_named },
	{ "the cap keeps the best", test_cap_keeps_the_best },
	{ "auto vp and rule totals", test_auto_vp_and_rule_totals },
	{ "base marked or added", test_base_added },
	{ "finetune needs tp and pp lists", test_finetune_needs_lists },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "grid", grid_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
