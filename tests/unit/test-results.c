/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-results.c - the results step: metrics worked out by hand from a
 * hand-made Megatron-LM log, ranking and savings, CSV quoting, text
 * cleaning and escaping, and a whole campaign directory (planned by the
 * planner, with state and logs written here) read back.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd-results.h"
#include "store.h"
#include "cmd.h"
#include "error.h"
#include "harness.h"
#include "plan.h"
#include "report.h"
#include "report-number.h"
#include "results.h"
#include "store-int.h"
#include "util.h"
#include "xalloc.h"

/* ---- the hand-made log --------------------------------------------------- */

/*
 * Six Megatron-LM iteration lines, step times 10, 1, 2, 2, 2 and 3 s.
 * The default warm-up drops the first 10 % and at least 1 step, so the
 * measured steps are 1, 2, 2, 2, 3: mean 10/5 = 2, median 2, sample
 * variance ((1-2)^2 + 0 + 0 + 0 + (3-2)^2) / 4 = 0.5, stdev sqrt(0.5).
 * The memory line's max reserved 43008 MB (MiB, as Megatron-LM counts
 * them) is 43008 / 1024 = 42 GiB.
 */
#define ITER(n, ms)                                                          \
	" [2024-05-01 10:00:00] iteration        " #n "/       6 | "        \
	"consumed samples:          256 | elapsed time per iteration (ms): " \
	#ms " | learning rate: 1.000000E-05 | global batch size:   256 | "  \
	"lm loss: 1.050000E+01 | loss scale: 1.0 | grad norm: 1.000 | "      \
	"number of skipped iterations:   0 | number of nan iterations:   "  \
	"0 |\n"
static const char hand_log[] =
	ITER(1, 10000.0)
	"[Rank 0] (after 1 iterations) memory (MB) | allocated: 1000.0 | "
	"max allocated: 40960.0 | reserved: 43008.0 | max reserved: "
	"43008.0\n"
	ITER(2, 1000.0) ITER(3, 2000.0) ITER(4, 2000.0) ITER(5, 2000.0)
	ITER(6, 3000.0);

/* A PyTorch OOM whose evidence holds commas and double quotes (line 2). */
static const char oom_log[] =
	"setup\n"
	"[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to "
	"allocate 2.00 GiB. GPU 3 has a total capacity of 79.10 GiB of which "
	"1.50 GiB is free. Set PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:"
	"True\", see \"docs\"\n";

/*
 * The campaign: Llama 3 8B on 4 x 8 H100 SXM, sequence 2048 (not 4096:
 * at s = h = 4096 NeMo's formula happens to equal Megatron-LM's for this
 * model, 78Lh^2 + 6Lhs = 72Lh^2 + 12Lhs, and could not tell them apart).
 */
static const char campaign_conf[] =
	"name = \"unit\";\nmodel = \"llama3_8b\";\nnodes = 4;\n"
	"gpus_per_node = 8;\ngpu = \"h100-sxm\";\nseq_length = 2048;\n"
	"global_batch_size = 256;\nprecision = \"bf16\";\n"
	"num_tokens_in_b = 100;\ncost_per_gpu_hour = 3.0;\n"
	"search = { tensor_parallel = [1, 2, 4]; pipeline_parallel = [1];\n"
	"  context_parallel = [1]; virtual_pipeline = [1];\n"
	"  micro_batch_size = [1]; recompute = [\"selective\"]; };\n"
	"run = { template = \"simulated\"; };\n";

/*
 * Megatron-LM's FLOPs per token for Llama 3 8B (h 4096, L 32, f 14336,
 * q = 32 x 128 = 4096, g x dk = 8 x 128 = 1024, V 128256) at s = 2048,
 * from the formula in the notes (estimation.md, FLOPs):
 *   6h.3f.L               = 6*4096*3*14336*32       = 33,822,867,456
 *   6L(h(q + 2 dk g) + qh) = 192*(4096*6144 + 4096^2) = 8,053,063,680
 *   6hV                   = 6*4096*128256           = 3,152,019,456
 *   6qLs (causal)         = 6*4096*32*2048          = 1,610,612,736
 * NeMo's 72BLsh^2(1 + s/6h + V/12hL) per token = 72Lh^2 + 12Lsh + 6hV
 *   = 38,654,705,664 + 3,221,225,472 + 3,152,019,456.
 */
#define MEGATRON_FLOPS_PER_TOKEN 46638563328.0
#define NEMO_FLOPS_PER_TOKEN 45027950592.0
/* 256 sequences of 2048 tokens per step. */
#define TOKENS_PER_STEP 524288.0

/* Write text to dir/name (mkdir -p of its directory first). */
static void
put_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f;

	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

/* Load the campaign above from a file in tmp. */
static int
load_campaign(const char *tmp, struct settings *c)
{
	struct config_sources src;
	char *path = xasprintf("%s/unit.conf", tmp);
	int ret;

	put_file(tmp, "unit.conf", campaign_conf);
	memset(&src, 0, sizeof(src));
	src.no_site = true;
	src.no_user = true;
	src.campaign_path = path;
	settings_init(c);
	ret = settings_load(c, &src);
	free(path);
	return ret;
}

/* ---- metrics by hand ----------------------------------------------------- */

/* One cell of results.csv for a row with these figures. */
static void
check_cell(const struct result_row *r, enum results_col c, const char *want)
{
	struct results res;
	struct strbuf sb = STRBUF_INIT;

	memset(&res, 0, sizeof(res));
	results_cell(&res, r, c, &sb);
	CU_ASSERT_STRING_EQUAL(sb.buf, want);
	strbuf_release(&sb);
}

static void
test_metrics_by_hand(void)
{
	char *tmp = harness_tmpdir();
	struct settings c;
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;
	struct result_row row;
	/* 100 B tokens over 524,288 tokens per step, 2 s each. */
	double seconds = 100e9 / TOKENS_PER_STEP * 2.0;

	CU_ASSERT_EQUAL_FATAL(load_campaign(tmp, &c), 0);
	logparse_init(&lp);
	logparse_buffer(&lp, hand_log, strlen(hand_log), "hand.log", &r);
	log_result_step_stats(&r, c.results.skip_steps, &st);
	CU_ASSERT_EQUAL(st.measured, 5);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 2.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.median_s, 2.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.stdev_s, sqrt(0.5), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.mem_peak_gib, 42.0, 1e-9);

	memset(&row, 0, sizeof(row));
	row.cand.layout.gbs = 256;
	row.cand.pred_step_s = 2.2;
	results_measure(&c, 3.0, &st, &row);
	CU_ASSERT_EQUAL(row.m.steps, 5);
	/* 256 samples per 2 s; 524,288 tokens per 2 s over 32 GPUs. */
	CU_ASSERT_DOUBLE_EQUAL(row.m.samples_per_s, 128.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(row.m.tokens_per_s_per_gpu, 8192.0, 1e-9);
	/* FLOPs per step / 2 s / 32 GPUs / 1e12: 382.063 and 368.869. */
	ASSERT_NEAR_REL(row.m.tflops_per_gpu,
	                MEGATRON_FLOPS_PER_TOKEN * TOKENS_PER_STEP / 64e12,
	                1e-9);
	ASSERT_NEAR_REL(row.m.tflops_per_gpu, 382.063110782976, 1e-12);
	ASSERT_NEAR_REL(row.m.tflops_per_gpu_nemo, 368.868971249664, 1e-12);
	/* H100 SXM dense BF16 peak 989.4 TFLOP/s (the campaign's GPU). */
	ASSERT_NEAR_REL(row.m.mfu, 382.063110782976 / 989.4, 1e-9);
	/* 381,469.73 s = 4.4152 days = 105.96 h x 32 GPUs = 3,390.8. */
	ASSERT_NEAR_REL(row.m.train_days, seconds / 86400.0, 1e-12);
	ASSERT_NEAR_REL(row.m.train_days, 4.41515887, 1e-8);
	ASSERT_NEAR_REL(row.m.gpu_hours, 3390.84201, 1e-8);
	ASSERT_NEAR_REL(row.m.cost, 3.0 * 3390.84201, 1e-8);
	/* Predicted 2.2 s against 2 s measured: 10 % too slow. */
	CU_ASSERT_DOUBLE_EQUAL(row.m.pred_error, 0.1, 1e-12);

	/* Above the dense peak is no measurement: 0.7 s a step is 109 %
	 * MFU. */
	CU_ASSERT_FALSE(results_mfu_impossible(&row));
	st.mean_s = 0.7;
	results_measure(&c, 3.0, &st, &row);
	ASSERT_NEAR_REL(row.m.mfu, 382.063110782976 / 989.4 * 2 / 0.7,
	                1e-9);
	CU_ASSERT_TRUE(results_mfu_impossible(&row));
	st.mean_s = 2.0;

	/* No price: no cost, everything else the same. */
	results_measure(&c, 0.0, &st, &row);
	CU_ASSERT_TRUE(isnan(row.m.cost));
	ASSERT_NEAR_REL(row.m.gpu_hours, 3390.84201, 1e-8);

	/* One step left after a warm-up of five (results.min_steps may be
	 * 1): its mean is 3 s, its sample deviation unknown, not 0. */
	log_result_step_stats(&r, 5, &st);
	CU_ASSERT_EQUAL(st.measured, 1);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 3.0, 1e-12);
	CU_ASSERT_TRUE(isnan(st.stdev_s));
	results_measure(&c, 3.0, &st, &row);
	CU_ASSERT_TRUE(isnan(row.m.step_stdev_s));
	check_cell(&row, RC_STEP_STDEV, "");
	check_cell(&row, RC_STEP_MEAN, "3.0000");

	log_result_release(&r);
	logparse_release(&lp);
	settings_release(&c);
	harness_rmtree(tmp);
	free(tmp);
}

/*
 * The same log measured for a row planned at 128 sequences on 2 x 1 x 1 x
 * 8 = 16 GPUs, in the campaign of 4 x 8 = 32 GPUs (nodes edited after
 * the plan): the log's 256 sequences and the plan's 16 GPUs are what
 * ran.  256 / 2 s = 128 samples/s; 524,288 tokens / 2 s / 16 GPUs =
 * 16,384 per GPU; twice the TFLOP/s of 32 GPUs; the GPU-hours half
 * those of 32 GPUs (3,390.84 / 2).  No prediction error: the plan
 * predicted another batch.
 */
static void
test_metrics_as_run(void)
{
	char *tmp = harness_tmpdir();
	struct settings c;
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;
	struct result_row row;

	CU_ASSERT_EQUAL_FATAL(load_campaign(tmp, &c), 0);
	logparse_init(&lp);
	logparse_buffer(&lp, hand_log, strlen(hand_log), "hand.log", &r);
	log_result_step_stats(&r, c.results.skip_steps, &st);
	CU_ASSERT_EQUAL(st.gbs, 256);
	CU_ASSERT_EQUAL(st.gbs_line, 1);
	memset(&row, 0, sizeof(row));
	row.cand.layout = (struct layout){ .tp = 2, .pp = 1, .cp = 1, .dp = 8,
	                                   .gbs = 128 };
	row.cand.pred_step_s = 2.2;
	row.ran_gbs = st.gbs;
	results_measure(&c, 3.0, &st, &row);
	CU_ASSERT_DOUBLE_EQUAL(results_row_gpus(&c, &row), 16.0, 0);
	CU_ASSERT_TRUE(results_row_other_gbs(&row));
	CU_ASSERT_TRUE(results_row_times_suspect(&row));
	CU_ASSERT_DOUBLE_EQUAL(row.m.samples_per_s, 128.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(row.m.tokens_per_s_per_gpu, 16384.0, 1e-9);
	ASSERT_NEAR_REL(row.m.tflops_per_gpu, 2 * 382.063110782976, 1e-12);
	ASSERT_NEAR_REL(row.m.tflops_per_gpu_nemo, 2 * 368.868971249664,
	                1e-12);
	ASSERT_NEAR_REL(row.m.train_days, 4.41515887, 1e-8);
	ASSERT_NEAR_REL(row.m.gpu_hours, 3390.84201 / 2, 1e-8);
	CU_ASSERT_TRUE(isnan(row.m.pred_error));
	/* Ranked by the time of a sequence it ran: 2 s / 256. */
	CU_ASSERT_DOUBLE_EQUAL(results_time_per_sample(&row), 2.0 / 256,
	                       1e-15);
	/* The planned batch, logged: nothing to say. */
	row.cand.layout.gbs = 256;
	results_measure(&c, 3.0, &st, &row);
	CU_ASSERT_FALSE(results_row_other_gbs(&row));
	CU_ASSERT_FALSE(results_row_times_suspect(&row));
	CU_ASSERT_DOUBLE_EQUAL(row.m.pred_error, 0.1, 1e-12);
	/* More model FLOPs than the GPU's peak: the times are wrong for
	 * what the plan predicted, and the search does not fit them. */
	row.m.mfu = 1.065;
	CU_ASSERT_TRUE(results_row_times_suspect(&row));

	log_result_release(&r);
	logparse_release(&lp);
	settings_release(&c);
	harness_rmtree(tmp);
	free(tmp);
}

/* ---- ranking, recommendation, savings ------------------------------------ */

/* A measured row: step time, gbs, memory, class. */
static void
set_row(struct result_row *r, const char *name, double step_s, int gbs,
        double mem_gib, enum failure_class f, bool base)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->cand.name, sizeof r->cand.name, "%s", name);
	r->kind = RESULT_MEASURED;
	r->cand.layout.gbs = gbs;
	r->cand.base = base;
	r->cand.est_memory_gib = 70.0;
	r->mem_peak_gib = mem_gib;
	r->failure = f;
	r->recommendable = results_class_recommendable(f);
	r->m.step_mean_s = step_s;
	/* 1 B tokens of 1000-token sequences, 8 GPUs, $2 per GPU-hour. */
	r->m.train_days = 1e9 / (gbs * 1000.0) * step_s / 86400.0;
	r->m.gpu_hours = r->m.train_days * 24.0 * 8;
	r->m.cost = r->m.gpu_hours * 2.0;
}

static void
test_rank_and_savings(void)
{
	struct results res;

	memset(&res, 0, sizeof(res));
	res.capacity_gib = 80.0;
	res.n = 5;
	res.v = xcalloc(5, sizeof(*res.v));
	/* Time per sample: a 4/256, b 3/128, c 1.5/256 (fastest, but NaN),
	 * d 5/512, base 8/256. */
	set_row(&res.v[0], "a", 4.0, 256, 60.0, FAILURE_NONE, false);
	set_row(&res.v[1], "b", 3.0, 128, 75.0, FAILURE_TIMEOUT, false);
	set_row(&res.v[2], "c", 1.5, 256, 50.0, FAILURE_NAN_LOSS, false);
	set_row(&res.v[3], "d", 5.0, 512, 79.0, FAILURE_NONE, false);
	set_row(&res.v[4], "base", 8.0, 256, 30.0, FAILURE_NONE, true);
	results_rank(&res);
	/* 1.5/256 = .00586 < 5/512 = .00977 < 4/256 = .0156 < 3/128 =
	 * .0234 < 8/256 = .03125. */
	CU_ASSERT_EQUAL(res.nranked, 5);
	CU_ASSERT_EQUAL(res.ranked[0], 2);
	CU_ASSERT_EQUAL(res.ranked[1], 3);
	CU_ASSERT_EQUAL(res.ranked[2], 0);
	CU_ASSERT_EQUAL(res.ranked[3], 1);
	CU_ASSERT_EQUAL(res.ranked[4], 4);
	CU_ASSERT_EQUAL(res.v[2].place, 1);
	CU_ASSERT_EQUAL(res.v[4].place, 5);
	/* c is fastest but ended in NaN: d is best, and cheapest. */
	CU_ASSERT_EQUAL(res.best, 3);
	CU_ASSERT_EQUAL(res.cheapest, 3);
	CU_ASSERT_EQUAL(res.base, 4);
	/* d's 79 GiB peak leaves 1.25 % of 80; a's 60 leaves 25 %. */
	CU_ASSERT_EQUAL(res.roomy, 0);
	/* Base 8 s per 256 = 1/32 s per sample; d 5 s per 512: 3.2x. */
	CU_ASSERT_DOUBLE_EQUAL(res.speedup, (8.0 / 256) / (5.0 / 512),
	                       1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res.speedup, 3.2, 1e-12);
	/* Base: 1e9/256000 steps x 8 s = 31,250 s; d: 1e9/512000 x 5 s =
	 * 9,765.625 s; 21,484.375 s saved, x 8 GPUs / 3600, x $2. */
	CU_ASSERT_DOUBLE_EQUAL(res.saved_days, 21484.375 / 86400.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(res.saved_gpu_hours, 21484.375 * 8 / 3600.0,
	                       1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res.saved_cost, 21484.375 * 8 / 3600.0 * 2,
	                       1e-9);
	CU_ASSERT_EQUAL(res.count[RESULT_MEASURED], 5);

	CU_ASSERT_PTR_NULL(res.no_comparison);

	/* The base measured, then its times suspect (a straggler) or its
	 * layout condemned (NaN): no comparison, not "3.2x faster". */
	res.v[4].failure = FAILURE_STRAGGLER;
	res.v[4].recommendable = false;
	results_rank(&res);
	CU_ASSERT_EQUAL(res.best, 3);
	CU_ASSERT_TRUE(isnan(res.speedup));
	CU_ASSERT_TRUE(isnan(res.saved_cost));
	CU_ASSERT_STRING_EQUAL(res.no_comparison, "base_times_suspect");
	res.v[4].failure = FAILURE_NAN_LOSS;
	results_rank(&res);
	CU_ASSERT_TRUE(isnan(res.speedup));
	CU_ASSERT_STRING_EQUAL(res.no_comparison, "base_not_recommendable");
	res.v[4].recommendable = true;

	/* The base failed: nothing to compare, no division by zero. */
	res.v[4].kind = RESULT_FAILED;
	res.v[4].failure = FAILURE_CUDA_OOM;
	results_rank(&res);
	CU_ASSERT_EQUAL(res.base, 4);
	CU_ASSERT_EQUAL(res.best, 3);
	CU_ASSERT_TRUE(isnan(res.speedup));
	CU_ASSERT_TRUE(isnan(res.saved_days));
	CU_ASSERT_TRUE(isnan(res.saved_cost));
	CU_ASSERT_EQUAL(res.v[4].place, 0);
	CU_ASSERT_STRING_EQUAL(res.no_comparison, "base_not_measured");

	/* Nothing recommendable: no best, no pick at all. */
	for (int i = 0; i < 4; i++)
		res.v[i].recommendable = false;
	results_rank(&res);
	CU_ASSERT_EQUAL(res.best, -1);
	CU_ASSERT_EQUAL(res.cheapest, -1);
	CU_ASSERT_EQUAL(res.roomy, -1);
	free(res.v);
	free(res.ranked);
}

/* Two measured rows of gbs 256 with their mean, stdev and steps. */
static void
set_spread(struct result_row *r, double mean, double stdev, int steps)
{
	r->m.step_mean_s = mean;
	r->m.step_stdev_s = stdev;
	r->m.steps = steps;
}

/* A tie with the base recommended switching for nothing: "1.00x
 * faster; switching saves 0.00 days". */
static void
test_tie_and_noise(void)
{
	struct results res;

	memset(&res, 0, sizeof(res));
	res.capacity_gib = 80.0;
	res.n = 2;
	res.v = xcalloc(2, sizeof(*res.v));
	/* The base ranks after the other candidate in the plan. */
	set_row(&res.v[0], "a", 2.0, 256, 60.0, FAILURE_NONE, false);
	set_row(&res.v[1], "base", 2.0, 256, 60.0, FAILURE_NONE, true);
	res.v[0].cand.rank = 1;
	res.v[1].cand.rank = 9;
	set_spread(&res.v[0], 2.0, 0.0, 20);
	set_spread(&res.v[1], 2.0, 0.0, 20);
	results_rank(&res);
	CU_ASSERT_EQUAL(res.best, 1);
	CU_ASSERT_EQUAL(res.ranked[0], 1);
	CU_ASSERT_FALSE(res.within_noise);

	/* 1.990 s against 2.000 s, each with a 0.02 s spread over 20
	 * steps: standard error sqrt(2 x 0.02^2 / 20) = 0.00632 s, the
	 * 0.010 s difference under two of them. */
	set_spread(&res.v[0], 1.990, 0.02, 20);
	set_spread(&res.v[1], 2.000, 0.02, 20);
	results_rank(&res);
	CU_ASSERT_EQUAL(res.best, 0);
	CU_ASSERT_TRUE(res.within_noise);
	/* With 200 steps each the error is 0.002 s: a gain. */
	set_spread(&res.v[0], 1.990, 0.02, 200);
	set_spread(&res.v[1], 2.000, 0.02, 200);
	results_rank(&res);
	CU_ASSERT_FALSE(res.within_noise);
	/* No spread at all: under 0.5 % is noise, above it a gain. */
	set_spread(&res.v[0], 1.995, 0.0, 200);
	set_spread(&res.v[1], 2.000, 0.0, 200);
	results_rank(&res);
	CU_ASSERT_TRUE(res.within_noise);
	set_spread(&res.v[0], 1.980, 0.0, 200);
	results_rank(&res);
	CU_ASSERT_FALSE(res.within_noise);
	CU_ASSERT_DOUBLE_EQUAL(res.speedup, 2.0 / 1.98, 1e-12);
	free(res.v);
	free(res.ranked);
}

static void
test_recommendable_classes(void)
{
	CU_ASSERT_TRUE(results_class_recommendable(FAILURE_NONE));
	CU_ASSERT_TRUE(results_class_recommendable(FAILURE_TIMEOUT));
	CU_ASSERT_TRUE(results_class_recommendable(FAILURE_HUNG_AFTER_FINISH));
	CU_ASSERT_TRUE(
		results_class_recommendable(FAILURE_FAILED_AFTER_FINISH));
	CU_ASSERT_TRUE(results_class_recommendable(FAILURE_PREEMPTED));
	CU_ASSERT_FALSE(results_class_recommendable(FAILURE_CUDA_OOM));
	CU_ASSERT_FALSE(results_class_recommendable(FAILURE_HOST_OOM));
	CU_ASSERT_FALSE(results_class_recommendable(FAILURE_NAN_LOSS));
	CU_ASSERT_FALSE(
		results_class_recommendable(FAILURE_ILLEGAL_MEMORY_ACCESS));
	CU_ASSERT_FALSE(results_class_recommendable(FAILURE_NCCL_TIMEOUT));
	CU_ASSERT_FALSE(results_class_recommendable(FAILURE_NCCL_ERROR));
	/* The cluster's doing, but its steps were slowed. */
	CU_ASSERT_FALSE(results_class_recommendable(FAILURE_STRAGGLER));
	for (int c = 0; c < FAILURE_COUNT; c++)
		CU_ASSERT_EQUAL(
			results_class_times_suspect((enum failure_class)c),
			c == FAILURE_STRAGGLER);
}

/* ---- short trainings ----------------------------------------------------- */

static void
check_duration(double days, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	report_add_duration(&sb, days);
	CU_ASSERT_STRING_EQUAL(sb.buf, want);
	strbuf_release(&sb);
}

/* A training of 0.001 B tokens wrote 0.000 days and 0.0 GPU-hours
 * beside its cost in cents; the summary said "0.00 days". */
static void
test_short_training(void)
{
	struct result_row r;

	memset(&r, 0, sizeof(r));
	r.kind = RESULT_MEASURED;
	r.m.train_days = 0.0000110376;
	r.m.gpu_hours = 0.00847711;
	r.m.cost = 0.0254313;
	check_cell(&r, RC_DAYS, "0.0000110");
	check_cell(&r, RC_GPU_HOURS, "0.00848");
	check_cell(&r, RC_COST, "0.0254");
	/* Normal values as before. */
	r.m.train_days = 5.51895;
	r.m.gpu_hours = 4238.55;
	r.m.cost = 12715.66;
	check_cell(&r, RC_DAYS, "5.519");
	check_cell(&r, RC_GPU_HOURS, "4238.6");
	check_cell(&r, RC_COST, "12715.66");
	/* Too small for fixed point: significant digits all the same. */
	r.m.train_days = 1.5e-300;
	check_cell(&r, RC_DAYS, "1.5e-300");
	CU_ASSERT_EQUAL(figure_decimals(0.0, 3, 3), 3);
	CU_ASSERT_EQUAL(figure_decimals(0.25, 1, 2), 2);
	CU_ASSERT_EQUAL(figure_decimals(-0.0012, 2, 2), 4);
	CU_ASSERT_EQUAL(figure_decimals(1e-20, 2, 2), -1);
	check_duration(9.414, "9.41 days");
	check_duration(0.5, "12.0 hours");
	check_duration(0.0176, "25.3 minutes");
	check_duration(47.68 / 86400, "47.7 seconds");
	check_duration(0.012 / 86400, "0.012 seconds");
	check_duration(0.0, "0.00 days");
	/* Money keeps its cents, but a known cost never reads $0.00. */
	{
		struct strbuf sb = STRBUF_INIT;

		report_add_money(&sb, "$", 0.0012);
		strbuf_addch(&sb, ' ');
		report_add_money(&sb, "$", 0.45);
		CU_ASSERT_STRING_EQUAL(sb.buf, "$0.0012 $0.45");
		strbuf_release(&sb);
	}
}

/* ---- text ---------------------------------------------------------------- */

static void
check_field(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	results_csv_field(&sb, in);
	CU_ASSERT_STRING_EQUAL(sb.buf, want);
	strbuf_release(&sb);
}

static void
test_csv_quoting(void)
{
	/* RFC 4180, 2.6 and 2.7: fields with commas, quotes or line breaks
	 * are quoted, and a quote inside is doubled. */
	check_field("plain", "plain");
	check_field("", "");
	check_field("a,b", "\"a,b\"");
	/* A semicolon separates cells where the decimal mark is a comma:
	 * unquoted, "=cmd" after it would be a formula of its own. */
	check_field("oom;=cmd|' /C calc'!A0", "\"oom;=cmd|' /C calc'!A0\"");
	check_field("say \"hi\"", "\"say \"\"hi\"\"\"");
	check_field("two\nlines", "\"two\nlines\"");
	check_field("cr\r", "\"cr\r\"");
	check_field(" lead", "\" lead\"");
}

static void
check_clean(const char *in, const char *want)
{
	char *s = results_clean_text(in);

	CU_ASSERT_STRING_EQUAL(s, want);
	free(s);
}

static void
test_clean_text(void)
{
	check_clean("ok", "ok");
	check_clean("tab\there\x01", "tab here ");
	/* C1 controls as UTF-8 (U+009B, a CSI to xterm) and a bidi
	 * override (U+202E) reach no terminal either. */
	check_clean("a\xc2\x9b" "31mb", "a 31mb");
	check_clean("x\xe2\x80\xaey", "x y");
	/* Valid: é (C3 A9), € (E2 82 AC), 😀 (F0 9F 98 80). */
	check_clean("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
	            "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	/* A lone continuation byte, an overlong '/', a surrogate, a cut
	 * sequence: each bad byte is one U+FFFD. */
	check_clean("a\x80z", "a\xef\xbf\xbdz");
	check_clean("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");
	check_clean("\xed\xa0\x80",
	            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	check_clean("x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd");
}

static void
test_escape(void)
{
	struct strbuf sb = STRBUF_INIT;

	report_escape(&sb, "<b class='x'>R&D \"q\"</b>\x07");
	CU_ASSERT_STRING_EQUAL(sb.buf, "&lt;b class=&#39;x&#39;&gt;R&amp;D "
	                       "&quot;q&quot;&lt;/b&gt; ");
	strbuf_release(&sb);
}

/* ---- a whole campaign directory ------------------------------------------ */

/* Plan the campaign above into tmp/camp, with no site file, no user
 * file (XDG_CONFIG_HOME is tmp) and the source tree's templates. */
static int
plan_campaign(const char *tmp, char **dir)
{
	struct plan_opts o = { "/dev/null", true, false, false };
	struct plan p;
	char *conf = xasprintf("%s/unit.conf", tmp);
	char *templates = harness_srcpath("templates");
	int ret;

	setenv("XDG_CONFIG_HOME", tmp, 1);
	setenv("PARATUNE_TEMPLATES", templates, 1);
	free(templates);
	put_file(tmp, "unit.conf", campaign_conf);
	*dir = xasprintf("%s/camp", tmp);
	ret = plan_build(&p, &o, conf, NULL);
	if (ret == 0) {
		ret = store_create(*dir, &p.settings, &p.res,
		                          p.summary.buf, false);
		plan_release(&p);
	}
	free(conf);
	return ret;
}

/* The name of the candidate with this tensor parallel size. */
static const char *
name_of(const struct candidate_table *t, int tp)
{
	for (int i = 0; i < t->n; i++)
		if (t->v[i].layout.tp == tp)
			return t->v[i].name;
	return "?";
}

/* Set a candidate's state and job, and write its log when given. */
static void
set_candidate(const char *dir, struct state *st, const char *name,
              enum cand_state s, uint32_t job, int exit_code,
              const char *log)
{
	struct cand_status *c = state_find(st, name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	c->state = s;
	c->job_id = job;
	c->attempt = 1;
	c->exit_code = exit_code;
	if (log) {
		char *rel = xasprintf("runs/%s/slurm-%u.out", name,
		                      (unsigned)job);

		put_file(dir, rel, log);
		free(rel);
	}
}

static const struct result_row *
row_named(const struct results *res, const char *name)
{
	for (int i = 0; i < res->n; i++)
		if (!strcmp(res->v[i].cand.name, name))
			return &res->v[i];
	return NULL;
}

/* The campaign with tp 1 measured, tp 2 out of memory, tp 4 (the base
 * for an 8 B model by NeMo's rule) failed without a log. */
static void
check_campaign(const struct results *res, const struct candidate_table *t)
{
	const struct result_row *m = row_named(res, name_of(t, 1));
	const struct result_row *o = row_named(res, name_of(t, 2));
	const struct result_row *f = row_named(res, name_of(t, 4));

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(m->kind, RESULT_MEASURED);
	CU_ASSERT_EQUAL(m->place, 1);
	CU_ASSERT_DOUBLE_EQUAL(m->m.step_mean_s, 2.0, 1e-12);
	ASSERT_NEAR_REL(m->m.tflops_per_gpu, 382.063110782976, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(m->mem_peak_gib, 42.0, 1e-9);
	CU_ASSERT_EQUAL(o->kind, RESULT_OOM);
	CU_ASSERT_EQUAL(o->failure, FAILURE_CUDA_OOM);
	CU_ASSERT_EQUAL(o->line, 2);
	CU_ASSERT_EQUAL(f->kind, RESULT_FAILED);
	CU_ASSERT_EQUAL(f->failure, FAILURE_EXIT_NONZERO);
	CU_ASSERT_PTR_NULL(f->log);
	CU_ASSERT_EQUAL(res->best, (int)(m - res->v));
	CU_ASSERT_EQUAL(res->count[RESULT_MEASURED], 1);
	CU_ASSERT_EQUAL(res->count[RESULT_OOM], 1);
	CU_ASSERT_EQUAL(res->count[RESULT_FAILED], 1);
	/* The base (tp 4 by NeMo's rule for 8 B) failed: no comparison. */
	CU_ASSERT_EQUAL(res->base, (int)(f - res->v));
	CU_ASSERT_TRUE(isnan(res->speedup));
}

/* The columns results.csv starts with (issue 4, section 4). */
static const char results_header[] =
	"rank,name,tp,pp,cp,ep,etp,vp,mbs,gbs,dp,recompute,recompute_layers,"
	"nodes,gpus_per_node,measured_steps,step_time_mean_s,step_time_median_s,"
	"step_time_stdev_s,samples_per_s,tokens_per_s_per_gpu,tflops_per_gpu,"
	"mfu,train_days,gpu_hours,cost,pred_step_s,pred_error,";

/* oom.csv quotes the evidence and names the line. */
static void
check_oom_csv(const struct results *res)
{
	struct strbuf sb = STRBUF_INIT;

	results_csv(res, RESULTS_OOM_CSV, &sb);
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf,
		",cuda_oom,\"[rank3]: torch.OutOfMemoryError: CUDA out of "
		"memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
		"capacity of 79.10 GiB of which 1.50 GiB is free. Set "
		"PYTORCH_CUDA_ALLOC_CONF=\"\"expandable_segments:True\"\", "
		"see \"\"docs\"\"\",2,runs/"));
	strbuf_setlen(&sb, 0);
	results_csv(res, RESULTS_CSV, &sb);
	CU_ASSERT_EQUAL(strncmp(sb.buf, results_header,
	                        strlen(results_header)), 0);
	strbuf_release(&sb);
}

/* What the campaign file gave reaches the summary's head and its costs
 * escaped: the summary is printed on terminals and in cron mail. */
static void
check_summary_escaped(struct results *res)
{
	char model[] = "evil\x1b]0;pwned\x07\x1b[2J";
	char currency[] = "\xc2\x9b" "2J"; /* U+009B, a C1 CSI */
	char *keep_model = res->run.settings.model_name;
	char *keep_currency = res->currency;
	struct strbuf sb = STRBUF_INIT;

	res->run.settings.model_name = model;
	res->currency = currency;
	report_summary(res, 3, &sb);
	CU_ASSERT_PTR_NULL(strchr(sb.buf, '\x1b'));
	CU_ASSERT_PTR_NULL(strstr(sb.buf, "\xc2\x9b"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "campaign unit: "
	                              "evil\\x1b]0;pwned\\x07\\x1b[2J on 4"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "\\u{009b}2J"));
	strbuf_setlen(&sb, 0);
	/* submit's cost line writes money the same way. */
	report_add_money(&sb, "\x1b[8m", 3.0);
	CU_ASSERT_STRING_EQUAL(sb.buf, "3.00 \\x1b[8m");
	strbuf_release(&sb);
	res->run.settings.model_name = keep_model;
	res->currency = keep_currency;
}

static int
write_files_cb(void *arg)
{
	const struct results *res = arg;

	return cmd_results_write_files(res, "summary\n");
}

/* A symbolic link at DIR/results is refused, and nothing goes through
 * it. */
static void
check_symlink_refused(const struct results *res, const char *tmp)
{
	char *target = xasprintf("%s/elsewhere", tmp);
	char *link = xasprintf("%s/results", res->run.dir);
	char *leak = xasprintf("%s/results.csv", target);
	char *err;
	int ret;

	harness_rmtree(link);
	CU_ASSERT_EQUAL_FATAL(mkdir(target, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
	err = harness_capture_stderr(write_files_cb, (void *)res, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "symbolic link"));
	CU_ASSERT_FALSE(path_exists(leak));
	unlink(link);
	free(err);
	free(leak);
	free(link);
	free(target);
}

static void
test_campaign_dir(void)
{
	char *tmp = harness_tmpdir(), *dir = NULL, *csv;
	struct candidate_table t;
	struct state st;
	struct results res;
	struct results_opts o = RESULTS_OPTS_INIT;

	CU_ASSERT_EQUAL_FATAL(plan_campaign(tmp, &dir), 0);
	CU_ASSERT_EQUAL_FATAL(store_read_candidates(dir, &t), 0);
	CU_ASSERT_EQUAL_FATAL(t.n, 3);
	CU_ASSERT_EQUAL_FATAL(state_load(dir, &st), 0);
	set_candidate(dir, &st, name_of(&t, 1), CS_COMPLETED, 101, 0,
	              hand_log);
	set_candidate(dir, &st, name_of(&t, 2), CS_FAILED, 102, 1, oom_log);
	set_candidate(dir, &st, name_of(&t, 4), CS_FAILED, 104, 1, NULL);
	CU_ASSERT_EQUAL_FATAL(state_save(dir, &st), 0);
	state_release(&st);

	CU_ASSERT_EQUAL_FATAL(results_load(&res, dir, &o), 0);
	check_campaign(&res, &t);
	check_oom_csv(&res);
	check_summary_escaped(&res);
	CU_ASSERT_EQUAL(cmd_results_write_files(&res, "summary\n"), 0);
	csv = xasprintf("%s/results/failed.csv", dir);
	CU_ASSERT_TRUE(path_exists(csv));
	free(csv);
	check_symlink_refused(&res, tmp);
	results_release(&res);
	candidate_table_release(&t);
	harness_rmtree(tmp);
	free(dir);
	free(tmp);
}

static const struct harness_test results_tests[] = {
	{ "metrics worked out by hand", test_metrics_by_hand },
	{ "metrics for the batch and GPUs that ran", test_metrics_as_run },
	{ "ranking, recommendation and savings", test_rank_and_savings },
	{ "a tie or a gain within noise is no gain", test_tie_and_noise },
	{ "which classes may be recommended", test_recommendable_classes },
	{ "short trainings keep their digits", test_short_training },
	{ "CSV fields quoted as RFC 4180 says", test_csv_quoting },
	{ "log text made valid UTF-8", test_clean_text },
	{ "XML and HTML escaping", test_escape },
	{ "a campaign directory read back", test_campaign_dir },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "results", results_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
