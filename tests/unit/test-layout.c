/*
 * test-layout.c - every layout rule rejects what it must, with integer
 * arithmetic (NeMo's float check accepts non-integer data parallelism).
 */
#include "autoconfig.h"

#include <string.h>

#include "harness.h"
#include "layout.h"
#include "models.h"

struct fixture {
	struct model m;
	struct gpu g;
	struct workload w;
};

static void
fixture_init(struct fixture *f, int nodes, int seq)
{
	f->m = test_llama3_8b();
	f->g = test_h100();
	memset(&f->w, 0, sizeof(f->w));
	f->w.model = &f->m;
	f->w.gpu = &f->g;
	f->w.precision = PREC_BF16;
	f->w.seq_length = seq;
	f->w.nodes = nodes;
	f->w.gpus_per_node = 8;
}

static struct layout
base(int tp, int pp, int cp, int mbs, int gbs)
{
	struct layout l;

	memset(&l, 0, sizeof(l));
	l.tp = tp;
	l.pp = pp;
	l.cp = cp;
	l.ep = 1;
	l.vp = 1;
	l.mbs = mbs;
	l.gbs = gbs;
	l.sequence_parallel = tp > 1;
	return l;
}

static enum layout_rule
check(struct fixture *f, struct layout l)
{
	return layout_check(&f->w, &l);
}

static void
test_valid_layout_derives_dp(void)
{
	struct fixture f;
	struct layout l = base(2, 2, 2, 1, 64);

	fixture_init(&f, 2, 8192);
	CU_ASSERT_EQUAL(layout_check(&f.w, &l), LAYOUT_OK);
	CU_ASSERT_EQUAL(l.dp, 2); /* 16 / (2*2*2) */
}

static void
test_world_rule(void)
{
	struct fixture f;

	fixture_init(&f, 1, 8192);
	/* 8 GPUs: tp*pp*cp = 3 does not divide, 16 is more than the world.
	 * NeMo's float check would accept the first (dp 2.67). */
	CU_ASSERT_EQUAL(check(&f, base(1, 3, 1, 1, 64)), RULE_WORLD);
	CU_ASSERT_EQUAL(check(&f, base(4, 4, 1, 1, 64)), RULE_WORLD);
	CU_ASSERT_EQUAL(check(&f, base(0, 1, 1, 1, 64)), RULE_WORLD);
}

static void
test_heads_and_groups(void)
{
	struct fixture f;

	fixture_init(&f, 4, 8192);
	/* 32 heads, 8 query groups. */
	CU_ASSERT_EQUAL(check(&f, base(3, 1, 1, 1, 64)), RULE_WORLD);
	f.w.nodes = 3; /* 24 GPUs so that tp 3 divides the world */
	CU_ASSERT_EQUAL(check(&f, base(3, 1, 1, 1, 64)), RULE_HEADS);
	f.w.nodes = 4;
	/* tp 16 > 8 groups and a multiple of them: KV heads replicated. */
	f.m.num_attention_heads = 64;
	CU_ASSERT_EQUAL(check(&f, base(16, 1, 1, 1, 64)), LAYOUT_OK);
	/* 6 groups: tp 4 neither divides nor is a multiple. */
	f.m.num_query_groups = 6;
	f.m.num_attention_heads = 48;
	CU_ASSERT_EQUAL(check(&f, base(4, 1, 1, 1, 64)), RULE_GROUPS);
}

static void
test_layers_and_vp(void)
{
	struct fixture f;
	struct layout l;

	fixture_init(&f, 4, 8192);
	CU_ASSERT_EQUAL(check(&f, base(1, 32, 1, 1, 64)), LAYOUT_OK);
	f.m.num_layers = 30;
	CU_ASSERT_EQUAL(check(&f, base(1, 4, 1, 1, 64)), RULE_LAYERS_PP);
	f.m.num_layers = 32;
	l = base(1, 1, 1, 1, 64);
	l.vp = 2; /* interleaving needs a pipeline */
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	l = base(1, 4, 1, 1, 64);
	l.vp = 3; /* 32 % (4*3) != 0 */
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP);
	l.vp = 4; /* 32 % 16 == 0; dp 8, m = 64/8 = 8, 8 % 4 == 0 */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.gbs = 48; /* m = 6, not a multiple of pp 4 */
	CU_ASSERT_EQUAL(check(&f, l), RULE_VP_MICRO);
}

static void
test_context_parallel(void)
{
	struct fixture f;

	fixture_init(&f, 1, 4100); /* 4100 % (2*2) == 0, % (2*8) != 0 */
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 2, 1, 64)), LAYOUT_OK);
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 8, 1, 64)), RULE_SEQ_CP);
}

static void
test_experts(void)
{
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64);

	fixture_init(&f, 1, 4096);
	l.ep = 2; /* dense model */
	CU_ASSERT_EQUAL(check(&f, l), RULE_EXPERTS);
	f.m = test_mixtral_8x7b();
	l.ep = 8;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
	l.ep = 3;
	CU_ASSERT_EQUAL(check(&f, l), RULE_EXPERTS);
	/* EP folds into dp*cp*tp: tp 2, dp 4 -> etp*ep must divide 8. */
	l = base(2, 1, 1, 1, 64);
	l.ep = 8;
	l.etp = 2; /* 16 does not divide 8 */
	CU_ASSERT_EQUAL(check(&f, l), RULE_EXPERT_FOLD);
	l.etp = 1; /* 8 divides 8: EP is not multiplied into MP */
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
}

static void
test_batch_rule(void)
{
	struct fixture f;

	fixture_init(&f, 1, 4096);
	/* dp 8: gbs 60 % (1*8) != 0 even though 60/8 is a float. */
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 1, 1, 60)), RULE_BATCH);
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 1, 4, 64)), LAYOUT_OK);
	CU_ASSERT_EQUAL(check(&f, base(1, 1, 1, 16, 64)), RULE_BATCH);
}

static void
test_sequence_parallel_and_recompute(void)
{
	struct fixture f;
	struct layout l = base(1, 1, 1, 1, 64);

	fixture_init(&f, 1, 4096);
	l.sequence_parallel = true;
	CU_ASSERT_EQUAL(check(&f, l), RULE_SP);
	l = base(1, 2, 1, 1, 64);
	l.recompute = RECOMPUTE_FULL;
	l.recompute_layers = 17; /* 16 layers per stage */
	CU_ASSERT_EQUAL(check(&f, l), RULE_RECOMPUTE);
	l.recompute_layers = 16;
	CU_ASSERT_EQUAL(check(&f, l), LAYOUT_OK);
}

static void
test_names_parse(void)
{
	CU_ASSERT_EQUAL(recompute_parse("selective"), RECOMPUTE_SELECTIVE);
	CU_ASSERT_EQUAL(recompute_parse("sel"), -1);
	CU_ASSERT_STRING_EQUAL(recompute_short(RECOMPUTE_SELECTIVE), "sel");
	CU_ASSERT_EQUAL(attention_parse("unfused"), ATTN_UNFUSED);
	CU_ASSERT_EQUAL(attention_parse("fused"), -1);
}

static const struct harness_test layout_tests[] = {
	{ "valid layout derives dp", test_valid_layout_derives_dp },
	{ "world size rule (integer)", test_world_rule },
	{ "heads and query groups", test_heads_and_groups },
	{ "layers and virtual pipeline", test_layers_and_vp },
	{ "context parallel", test_context_parallel },
	{ "experts fold into dp", test_experts },
	{ "global batch divisibility", test_batch_rule },
	{ "sequence parallel and recompute", test_sequence_parallel_and_recompute },
	{ "names parse", test_names_parse },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "layout", layout_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
