/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-nemo-heuristics.c - NeMo Auto Configurator's search tables and the
 * Launcher's base-configuration rule.
 *
 * Expected values are read by hand from the rows in the notes (NeMo auto
 * configurator, section 3) and their sources: NVIDIA/NeMo core/
 * training_config.py (GPT3GridSearch, T5GridSearch, BertGridSearch) and
 * NeMo-Framework-Launcher autoconfig/base_config.py (_gbs_tp_pp_gpt3_*).
 * Divisor lists are worked out by hand for the layer counts used.
 */
#include "autoconfig.h"

#include <string.h>

#include "harness.h"
#include "nemo-heuristics.h"

#define H100_GB 80.0
#define A100_40_GB 40.0

/* A model of the given class with only what the tables read filled in. */
static struct model
shape(enum model_arch arch, int layers, int encoder_layers)
{
	struct model m;

	memset(&m, 0, sizeof(m));
	strcpy(m.name, "hand_built");
	m.arch = arch;
	m.num_layers = layers;
	m.encoder_layers = encoder_layers;
	m.hidden_size = 4096;
	m.ffn_hidden_size = 4 * 4096;
	m.num_attention_heads = 32;
	m.num_query_groups = 32;
	m.kv_channels = 128;
	m.vocab_size = 32000;
	return m;
}

static struct model
gpt(int layers)
{
	return shape(ARCH_DECODER, layers, 0);
}

/* Assert that a search list is exactly want[0..n-1]. */
#define ASSERT_LIST(got, ngot, ...)                                           \
	do {                                                                  \
		const int want_[] = { __VA_ARGS__ };                          \
		int nwant_ = (int)(sizeof(want_) / sizeof(want_[0]));         \
		CU_ASSERT_EQUAL_FATAL((ngot), nwant_);                        \
		for (int i_ = 0; i_ < nwant_; i_++)                           \
			CU_ASSERT_EQUAL((got)[i_], want_[i_]);                \
	} while (0)

static void
search(const struct model *m, double size_b, int seq, double gb,
       struct nemo_search *ns)
{
	CU_ASSERT_EQUAL_FATAL(nemo_search_space(m, size_b, seq, gb, ns), 0);
}

/* 7 B GPT (Llama-2-7B shape, 32 layers) at 8192 on 80 GB. */
static void
test_gpt_7b_seq8192(void)
{
	struct model m = gpt(32);
	struct nemo_search ns;

	search(&m, 6.74, 8192, H100_GB, &ns);
	CU_ASSERT_TRUE(ns.from_table);
	ASSERT_LIST(ns.tp, ns.ntp, 2, 4);
	ASSERT_LIST(ns.pp, ns.npp, 1, 2);       /* V[1,2] of 32 */
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2);
	CU_ASSERT_EQUAL(ns.gbs, 256);
	CU_ASSERT_EQUAL(ns.min_mp, 1);          /* class default MP 1-8 */
	CU_ASSERT_EQUAL(ns.max_mp, 8);
	CU_ASSERT_STRING_EQUAL(ns.note, "");
}

/* 20 B GPT-3 (NeMo's 20b: 44 layers) at 4096: the <= 23 B row. */
static void
test_gpt_20b_seq4096(void)
{
	struct model m = gpt(44);
	struct nemo_search ns;

	search(&m, 20.0, 4096, H100_GB, &ns);
	CU_ASSERT_TRUE(ns.from_table);
	ASSERT_LIST(ns.tp, ns.ntp, 4, 8);
	ASSERT_LIST(ns.pp, ns.npp, 1, 2);       /* 44 = 4*11: 1, 2 */
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2);
	CU_ASSERT_EQUAL(ns.gbs, 1024);
	CU_ASSERT_EQUAL(ns.min_mp, 4);
	CU_ASSERT_EQUAL(ns.max_mp, 16);
}

/* Small GPTs at 2048 keep the class's pp and mbs; gbs follows size. */
static void
test_gpt_small_seq2048_gbs_bands(void)
{
	struct model m = gpt(24);
	struct nemo_search ns;

	search(&m, 0.5, 2048, H100_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2);
	ASSERT_LIST(ns.pp, ns.npp, 1);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4, 8);
	CU_ASSERT_EQUAL(ns.gbs, 256);
	search(&m, 2.0, 2048, H100_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2, 4);
	CU_ASSERT_EQUAL(ns.gbs, 1024);
	search(&m, 5.0, 2048, H100_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2, 4);
	CU_ASSERT_EQUAL(ns.gbs, 2048);
}

/* Row bounds are inclusive: 13.0 is the <= 13 row, 13.01 the next. */
static void
test_gpt_row_bound_inclusive(void)
{
	struct model m = gpt(40);
	struct nemo_search ns;

	search(&m, 13.0, 2048, H100_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2, 4, 8);
	ASSERT_LIST(ns.pp, ns.npp, 1);
	search(&m, 13.01, 2048, H100_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2, 4);
	ASSERT_LIST(ns.pp, ns.npp, 1, 2, 4);    /* V[1,4] of 40 */
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4);
	CU_ASSERT_EQUAL(ns.min_mp, 4);
	CU_ASSERT_EQUAL(ns.max_mp, 8);
}

/* V[a,b] keeps only divisors of the layer count. */
static void
test_gpt_pp_range_is_layer_divisors(void)
{
	struct model odd = gpt(45), gpt3 = gpt(96);
	struct nemo_search ns;

	/* 30 B at 2048, the <= 45 row: V[1,4] of 45 is 1, 3. */
	search(&odd, 30.0, 2048, H100_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 2, 4, 8);
	ASSERT_LIST(ns.pp, ns.npp, 1, 3);
	CU_ASSERT_EQUAL(ns.min_mp, 8);
	CU_ASSERT_EQUAL(ns.max_mp, 32);
	/* GPT-3 175 B (96 layers), <= 195 row: V[4,16] of 96. */
	search(&gpt3, 175.0, 2048, H100_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 8);
	ASSERT_LIST(ns.pp, ns.npp, 4, 6, 8, 12, 16);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4);
	CU_ASSERT_EQUAL(ns.gbs, 2048);
	CU_ASSERT_EQUAL(ns.min_mp, 32);
	CU_ASSERT_EQUAL(ns.max_mp, 256);
}

/* 40 GB: one table for every seq, with literal PP lists for 4-13 B. */
static void
test_gpt_40gb(void)
{
	struct model m40 = gpt(40), m44 = gpt(44);
	struct nemo_search ns;

	search(&m40, 13.0, 8192, A100_40_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 4, 8);
	ASSERT_LIST(ns.pp, ns.npp, 1, 2, 4);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4);
	CU_ASSERT_EQUAL(ns.gbs, 2048);
	CU_ASSERT_EQUAL(ns.min_mp, 4);
	CU_ASSERT_EQUAL(ns.max_mp, 32);
	CU_ASSERT_STRING_EQUAL(ns.note, "");
	/* <= 8 B: pp 1,2 and only the minimum MP is raised. */
	search(&m40, 7.0, 2048, A100_40_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 2, 4, 8);
	ASSERT_LIST(ns.pp, ns.npp, 1, 2);
	CU_ASSERT_EQUAL(ns.min_mp, 2);
	CU_ASSERT_EQUAL(ns.max_mp, 8);
	/* <= 23 B: V[1,8] of 44 is 1, 2, 4; mbs stays the default. */
	search(&m44, 20.0, 2048, A100_40_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 2, 4, 8);
	ASSERT_LIST(ns.pp, ns.npp, 1, 2, 4);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4, 8);
	CU_ASSERT_EQUAL(ns.min_mp, 8);
	CU_ASSERT_EQUAL(ns.max_mp, 64);
}

/* Memory sizes NeMo does not know go to the nearer of 40 and 80 GB. */
static void
test_gpu_memory_nearest(void)
{
	struct model m = gpt(32);
	struct nemo_search ns;

	/* 7 B at 2048: 80 GB row tp 1,2,4; 40 GB row tp 2,4,8. */
	search(&m, 7.0, 2048, 48.0, &ns);               /* L40S */
	ASSERT_LIST(ns.tp, ns.ntp, 2, 4, 8);
	search(&m, 7.0, 2048, 74.5, &ns);               /* 80 GB in GiB */
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2, 4);
	search(&m, 7.0, 2048, 141.0, &ns);              /* H200 */
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2, 4);
}

/* Unlisted seq lengths use the next listed one up, and say so. */
static void
test_gpt_unlisted_seq(void)
{
	struct model m = gpt(32);
	struct nemo_search ns;

	search(&m, 7.0, 3000, H100_GB, &ns);    /* 4096, <= 8 row */
	CU_ASSERT_TRUE(ns.from_table);
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2, 4);
	ASSERT_LIST(ns.pp, ns.npp, 1, 2);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4);
	CU_ASSERT_EQUAL(ns.gbs, 1024);
	CU_ASSERT_PTR_NOT_NULL(strstr(ns.note, "seq 4096 rows"));
	search(&m, 7.0, 65536, H100_GB, &ns);   /* 32768, <= 8 row */
	ASSERT_LIST(ns.tp, ns.ntp, 4, 8);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1);
	CU_ASSERT_EQUAL(ns.gbs, 64);
	CU_ASSERT_EQUAL(ns.min_mp, 4);
	CU_ASSERT_EQUAL(ns.max_mp, 16);
	search(&m, 0.5, 1024, H100_GB, &ns);    /* 2048 */
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2);
	CU_ASSERT_EQUAL(ns.gbs, 256);
}

/* Beyond the last row: the class defaults, flagged, with a note. */
static void
test_gpt_beyond_table_uses_defaults(void)
{
	struct model m = gpt(80);
	struct nemo_search ns;

	search(&m, 70.6, 8192, H100_GB, &ns);
	CU_ASSERT_FALSE(ns.from_table);
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2, 4, 8);
	ASSERT_LIST(ns.pp, ns.npp, 1);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4, 8);
	CU_ASSERT_EQUAL(ns.gbs, 1024);
	CU_ASSERT_EQUAL(ns.min_mp, 1);
	CU_ASSERT_EQUAL(ns.max_mp, 8);
	CU_ASSERT_STRING_EQUAL(ns.note,
	        "NeMo's GPT 80 GB table at seq 8192 has no row for 70.6 B "
	        "parameters; using its class defaults (tp 1,2,4,8; pp 1; "
	        "mbs 1,2,4,8)");
	/* 1.2 T at 2048 is past the 1100 B row. */
	search(&m, 1200.0, 2048, H100_GB, &ns);
	CU_ASSERT_FALSE(ns.from_table);
	CU_ASSERT_EQUAL(ns.gbs, 1024);
	CU_ASSERT_PTR_NOT_NULL(strstr(ns.note, "1200.0 B"));
}

/* T5: valid PP is [1] + twice each divisor of the encoder's layers. */
static void
test_t5_rows(void)
{
	struct model t5_3b = shape(ARCH_ENCDEC, 48, 24);
	struct model big = shape(ARCH_ENCDEC, 72, 36);
	struct nemo_search ns;

	search(&t5_3b, 2.85, 512, H100_GB, &ns);        /* <= 4 row */
	CU_ASSERT_TRUE(ns.from_table);
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2, 4);
	ASSERT_LIST(ns.pp, ns.npp, 1);
	ASSERT_LIST(ns.mbs, ns.nmbs, 4, 6, 8, 12, 16, 24, 32, 48);
	CU_ASSERT_EQUAL(ns.gbs, 1920);
	/* 100 B, <= 165.5 row, V[4,16] of [1,2,4,6,8,12,18,24,36,72]. */
	search(&big, 100.0, 512, H100_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 8);
	ASSERT_LIST(ns.pp, ns.npp, 4, 6, 8, 12);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4, 6);
	CU_ASSERT_EQUAL(ns.min_mp, 32);
	CU_ASSERT_EQUAL(ns.max_mp, 128);
	/* 40 GB, <= 14.5 row: V[1,2] gives 1 (the [1]) and 2 (2*1). */
	search(&t5_3b, 11.0, 512, A100_40_GB, &ns);
	ASSERT_LIST(ns.tp, ns.ntp, 4, 8);
	ASSERT_LIST(ns.pp, ns.npp, 1, 2);
	ASSERT_LIST(ns.mbs, ns.nmbs, 2, 4, 6, 8, 12, 16);
	CU_ASSERT_EQUAL(ns.min_mp, 4);
	CU_ASSERT_EQUAL(ns.max_mp, 16);
	/* The smallest T5 rows alone use gbs 2048. */
	search(&t5_3b, 0.22, 512, H100_GB, &ns);
	ASSERT_LIST(ns.mbs, ns.nmbs, 16, 32, 64, 128);
	CU_ASSERT_EQUAL(ns.gbs, 2048);
}

/* BERT: PP rows are literal lists, not filtered by the layer count. */
static void
test_bert_rows(void)
{
	struct model m = shape(ARCH_ENCODER, 64, 0);
	struct model base = shape(ARCH_ENCODER, 12, 0);
	struct nemo_search ns;

	search(&m, 100.0, 512, H100_GB, &ns);           /* <= 165.5 */
	ASSERT_LIST(ns.tp, ns.ntp, 4, 8);
	ASSERT_LIST(ns.pp, ns.npp, 4, 6, 8, 16);        /* 6 kept */
	ASSERT_LIST(ns.mbs, ns.nmbs, 2, 4, 6, 8);
	CU_ASSERT_EQUAL(ns.gbs, 2048);
	CU_ASSERT_EQUAL(ns.min_mp, 16);
	CU_ASSERT_EQUAL(ns.max_mp, 128);
	search(&base, 0.11, 512, H100_GB, &ns);         /* bert_110m */
	ASSERT_LIST(ns.tp, ns.ntp, 1, 2);
	ASSERT_LIST(ns.pp, ns.npp, 1);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4, 6, 8, 12, 16);
	CU_ASSERT_EQUAL(ns.gbs, 256);
	search(&m, 200.0, 512, A100_40_GB, &ns);        /* <= 250.5 */
	ASSERT_LIST(ns.tp, ns.ntp, 8);
	ASSERT_LIST(ns.pp, ns.npp, 8, 16, 32);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2);
	CU_ASSERT_EQUAL(ns.min_mp, 64);
	CU_ASSERT_EQUAL(ns.max_mp, 512);
	/* Past 250.5 B: BERT's own defaults (gbs 1920). */
	search(&m, 300.0, 512, H100_GB, &ns);
	CU_ASSERT_FALSE(ns.from_table);
	ASSERT_LIST(ns.mbs, ns.nmbs, 1, 2, 4, 6, 8, 12, 16);
	CU_ASSERT_EQUAL(ns.gbs, 1920);
	CU_ASSERT_PTR_NOT_NULL(strstr(ns.note, "BERT 80 GB table"));
}

/* Inputs the tables cannot use are refused with a reason. */
static void
test_bad_input_refused(void)
{
	struct model none = gpt(0), m = gpt(32);
	struct nemo_search ns;

	CU_ASSERT_EQUAL(nemo_search_space(&none, 7.0, 2048, 80, &ns), -1);
	CU_ASSERT_NOT_EQUAL(ns.note[0], '\0');
	CU_ASSERT_EQUAL(nemo_search_space(&m, -1.0, 2048, 80, &ns), -1);
	CU_ASSERT_NOT_EQUAL(ns.note[0], '\0');
}

/* The Launcher's base configuration by size (80 GB, seq 2048). */
static void
test_base_config_80gb(void)
{
	struct model m = gpt(32);
	int tp = 0, pp = 0, gbs = 0;

	CU_ASSERT_EQUAL_FATAL(nemo_base_config(&m, 8.0, 2048, H100_GB, &tp,
	                                       &pp, &gbs), 0);
	CU_ASSERT_EQUAL(tp, 2);
	CU_ASSERT_EQUAL(pp, 1);
	CU_ASSERT_EQUAL(gbs, 2048);
	/* Llama 3 8B's 8.03 B is past the <= 8 row: the 13 B row's tp 4. */
	CU_ASSERT_EQUAL_FATAL(nemo_base_config(&m, 8.03, 2048, H100_GB, &tp,
	                                       &pp, &gbs), 0);
	CU_ASSERT_EQUAL(tp, 4);
	CU_ASSERT_EQUAL(pp, 1);
	CU_ASSERT_EQUAL_FATAL(nemo_base_config(&m, 175.0, 2048, H100_GB, &tp,
	                                       &pp, &gbs), 0);
	CU_ASSERT_EQUAL(tp, 8);
	CU_ASSERT_EQUAL(pp, 8);
	CU_ASSERT_EQUAL(gbs, 2048);
	CU_ASSERT_EQUAL_FATAL(nemo_base_config(&m, 0.126, 2048, H100_GB, &tp,
	                                       &pp, &gbs), 0);
	CU_ASSERT_EQUAL(tp, 1);
	CU_ASSERT_EQUAL(pp, 1);
	CU_ASSERT_EQUAL(gbs, 256);
	CU_ASSERT_EQUAL(nemo_base_config(&m, 1200.0, 2048, H100_GB, &tp, &pp,
	                                 &gbs), -1);
}

/* Other seq lengths have their own rows, which stop at 45.6 B. */
static void
test_base_config_long_seq(void)
{
	struct model m = gpt(32);
	int tp = 0, pp = 0, gbs = 0;

	CU_ASSERT_EQUAL_FATAL(nemo_base_config(&m, 7.0, 8192, H100_GB, &tp,
	                                       &pp, &gbs), 0);
	CU_ASSERT_EQUAL(tp, 2);
	CU_ASSERT_EQUAL(pp, 1);
	CU_ASSERT_EQUAL(gbs, 512);
	CU_ASSERT_EQUAL_FATAL(nemo_base_config(&m, 20.0, 8192, H100_GB, &tp,
	                                       &pp, &gbs), 0);
	CU_ASSERT_EQUAL(tp, 4);
	CU_ASSERT_EQUAL(pp, 4);
	CU_ASSERT_EQUAL(nemo_base_config(&m, 70.6, 8192, H100_GB, &tp, &pp,
	                                 &gbs), -1);
}

/* 40 GB: 175 B doubles PP to 16; small sizes raise TP instead. */
static void
test_base_config_40gb(void)
{
	struct model m = gpt(96);
	int tp = 0, pp = 0, gbs = 0;

	CU_ASSERT_EQUAL_FATAL(nemo_base_config(&m, 175.0, 2048, A100_40_GB,
	                                       &tp, &pp, &gbs), 0);
	CU_ASSERT_EQUAL(tp, 8);
	CU_ASSERT_EQUAL(pp, 16);
	CU_ASSERT_EQUAL(gbs, 2048);
	CU_ASSERT_EQUAL_FATAL(nemo_base_config(&m, 5.0, 2048, A100_40_GB,
	                                       &tp, &pp, &gbs), 0);
	CU_ASSERT_EQUAL(tp, 8);
	CU_ASSERT_EQUAL(pp, 1);
	/* The 40 GB rule lists seq 2048 only. */
	CU_ASSERT_EQUAL(nemo_base_config(&m, 5.0, 4096, A100_40_GB, &tp, &pp,
	                                 &gbs), -1);
}

/* The rule covers GPT-like models only. */
static void
test_base_config_gpt_only(void)
{
	struct model t5 = shape(ARCH_ENCDEC, 48, 24);
	struct model bert = shape(ARCH_ENCODER, 24, 0);
	int tp = 0, pp = 0, gbs = 0;

	CU_ASSERT_EQUAL(nemo_base_config(&t5, 2.85, 2048, H100_GB, &tp, &pp,
	                                 &gbs), -1);
	CU_ASSERT_EQUAL(nemo_base_config(&bert, 0.34, 2048, H100_GB, &tp, &pp,
	                                 &gbs), -1);
}

/* Fine-tuning bounds: products of the lists' minima and maxima, the
 * maximum capped at the GPU count, no overflow with huge lists. */
static void
test_finetune_mp(void)
{
	static const int tp[] = { 8, 2, 4 }, pp[] = { 2, 1 }, cp[] = { 1 };
	static const int huge[] = { 65536 };
	struct nemo_list lists[] = { { tp, 3 }, { pp, 2 }, { cp, 1 } };
	struct nemo_list big[] = { { huge, 1 }, { huge, 1 }, { huge, 1 } };
	int lo, hi;

	nemo_finetune_mp(lists, 3, 64, &lo, &hi);
	CU_ASSERT_EQUAL(lo, 2);
	CU_ASSERT_EQUAL(hi, 16);
	nemo_finetune_mp(lists, 3, 8, &lo, &hi);
	CU_ASSERT_EQUAL(lo, 2);
	CU_ASSERT_EQUAL(hi, 8);
	nemo_finetune_mp(lists, 0, 8, &lo, &hi);
	CU_ASSERT_EQUAL(lo, 1);
	CU_ASSERT_EQUAL(hi, 1);
	nemo_finetune_mp(big, 3, 6400000, &lo, &hi);
	CU_ASSERT_EQUAL(lo, 2147483647);
	CU_ASSERT_EQUAL(hi, 6400000);
}

static const struct harness_test search_tests[] = {
	{ "GPT 7 B at 8192 on 80 GB", test_gpt_7b_seq8192 },
	{ "GPT 20 B at 4096 on 80 GB", test_gpt_20b_seq4096 },
	{ "GPT small sizes and gbs bands", test_gpt_small_seq2048_gbs_bands },
	{ "row bounds are inclusive", test_gpt_row_bound_inclusive },
	{ "V[a,b] keeps layer divisors", test_gpt_pp_range_is_layer_divisors },
	{ "GPT 40 GB table", test_gpt_40gb },
	{ "GPU memory maps to 40 or 80", test_gpu_memory_nearest },
	{ "unlisted seq uses next listed", test_gpt_unlisted_seq },
	{ "beyond the table: defaults", test_gpt_beyond_table_uses_defaults },
	{ "T5 rows and valid PP", test_t5_rows },
	{ "BERT rows with literal PP", test_bert_rows },
	{ "bad input refused", test_bad_input_refused },
	{ "fine-tuning model-parallel bounds", test_finetune_mp },
	{ NULL, NULL },
};

static const struct harness_test base_tests[] = {
	{ "80 GB seq 2048", test_base_config_80gb },
	{ "80 GB longer seq", test_base_config_long_seq },
	{ "40 GB", test_base_config_40gb },
	{ "GPT-like only", test_base_config_gpt_only },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "nemo search space", search_tests },
	{ "nemo base config", base_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
