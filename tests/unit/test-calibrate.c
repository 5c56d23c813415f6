/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-calibrate.c - `paratune calibrate`'s fit (calibrate.h): rows
 * generated with known constants give those constants back from the
 * defaults, fits stay within the physical bounds (and a constant pinned
 * at one is said to be), the error is
 * cross-validated, and malformed measured-runs files are refused with
 * their file, line and column.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calibrate.h"
#include "calibrate-int.h"
#include "cmd-calibrate.h"
#include "error.h"
#include "harness.h"
#include "models.h"
#include "xalloc.h"

#define MAX_ROWS 64

/* The rows' model and GPU, shared by every row. */
static struct model llama;
static struct gpu h100;

static struct workload
workload_of(int seq, int nodes)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	w.model = &llama;
	w.gpu = &h100;
	w.precision = PREC_BF16;
	w.seq_length = seq;
	w.nodes = nodes;
	w.gpus_per_node = 8;
	w.gpu_memory_gib = h100.memory_gib;
	w.margin_gib = 4;
	w.num_tokens_b = 1000;
	return w;
}

static struct layout
layout_of(int tp, int pp, int mbs, int dp)
{
	struct layout l;

	memset(&l, 0, sizeof(l));
	l.tp = tp;
	l.pp = pp;
	l.cp = l.ep = l.vp = 1;
	l.dp = dp;
	l.mbs = mbs;
	l.gbs = 64;
	l.recompute = RECOMPUTE_SELECTIVE;
	l.sequence_parallel = tp > 1;
	l.distributed_optimizer = true;
	l.attention = ATTN_FLASH;
	l.overlap_grad_reduce = true;
	l.overlap_param_gather = true;
	l.moe_grouped_gemm = true;
	return l;
}

/*
 * Dense Llama 3 8B rows over tp, pp, mbs, two sequence lengths and one
 * or two nodes, measured as the estimator predicts them with truth
 * (times 1 + noise[i % 4] when noise is given); every other row has a
 * measured peak.  Returns how many.
 */
static int
make_rows(struct calib_row *rows, const struct calibration *truth,
          const double *noise)
{
	static const int tps[] = { 1, 2, 4, 8 }, pps[] = { 1, 2 };
	static const int mbss[] = { 1, 4 }, seqs[] = { 2048, 8192 };
	int n = 0;

	llama = test_llama3_8b();
	h100 = test_h100();
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 2; b++)
			for (int c = 0; c < 2; c++)
				for (int s = 0; s < 2; s++) {
					int nodes = (a + b + c + s) % 2 + 1;
					int dp = 8 * nodes / (tps[a] * pps[b]);
					struct calib_row *r = &rows[n];
					double mem;

					memset(r, 0, sizeof(*r));
					r->w = workload_of(seqs[s], nodes);
					r->l = layout_of(tps[a], pps[b], mbss[c], dp);
					if (layout_check(&r->w, &r->l) != LAYOUT_OK)
						continue;
					r->group = calibrate_group(&r->w);
					r->where = "generated";
					r->step_s = calibrate_predict(r, truth, &mem);
					if (noise)
						r->step_s *= 1 + noise[n % 4];
					r->peak_gib = n % 2 ? mem : 0;
					n++;
				}
	return n;
}

/* A calibration away from the defaults, inside the bounds. */
static struct calibration
truth_calibration(void)
{
	struct calibration t;

	calibration_init(&t);
	t.v[CAL_GEMM_EFF_MAX] = 0.62;
	t.v[CAL_GEMM_TOKENS_HALF] = 320;
	t.v[CAL_ATTN_EFF_FLASH] = 0.36;
	t.v[CAL_COMM_EFF_NVLINK] = 0.70;
	t.v[CAL_COMM_EFF_NETWORK] = 0.60;
	t.v[CAL_LAYER_OVERHEAD_S] = 300e-6;
	t.v[CAL_MEM_FRAGMENTATION] = 0.25;
	return t;
}

/* Rows made with known constants give them back, from the defaults,
 * and the error falls to nothing, cross-validated too. */
static void
test_recovers_known_constants(void)
{
	struct calib_row rows[MAX_ROWS];
	struct calibration truth = truth_calibration();
	struct calib_fit f;
	int n = make_rows(rows, &truth, NULL);

	CU_ASSERT_FATAL(n >= 20);
	CU_ASSERT_EQUAL_FATAL(calibrate_fit(rows, n, calibration_default(), 5,
	                                    &f), 0);
	ASSERT_NEAR_REL(f.cal.v[CAL_GEMM_EFF_MAX], 0.62, 0.02);
	ASSERT_NEAR_REL(f.cal.v[CAL_GEMM_TOKENS_HALF], 320, 0.05);
	ASSERT_NEAR_REL(f.cal.v[CAL_ATTN_EFF_FLASH], 0.36, 0.03);
	ASSERT_NEAR_REL(f.cal.v[CAL_COMM_EFF_NVLINK], 0.70, 0.05);
	/* The least determined at these rows (it trades against the GEMM
	 * curve): CAL_PRIOR's pull toward the default leaves it 5.1 % off,
	 * inside 5 % without the prior. */
	ASSERT_NEAR_REL(f.cal.v[CAL_LAYER_OVERHEAD_S], 300e-6, 0.08);
	ASSERT_NEAR_REL(f.cal.v[CAL_MEM_FRAGMENTATION], 0.25, 0.02);
	/* Dense BF16 rows say nothing about FP8 or MoE: kept, inactive. */
	CU_ASSERT_FALSE(f.active[CAL_FP8_GEMM_EFF]);
	CU_ASSERT_FALSE(f.active[CAL_MOE_DISPATCH_EFF]);
	CU_ASSERT_DOUBLE_EQUAL(f.cal.v[CAL_FP8_GEMM_EFF],
	                       calibration_default()->v[CAL_FP8_GEMM_EFF], 1e-12);
	CU_ASSERT(calibrate_mape(rows, f.pred_before, n, NULL, NULL) > 0.05);
	CU_ASSERT(calibrate_mape(rows, f.pred_in, n, NULL, NULL) < 0.002);
	CU_ASSERT(calibrate_mape(rows, f.pred_cv, n, "dense-bf16", NULL) <
	          0.005);
	CU_ASSERT_EQUAL(f.cal.rows, n);
	CU_ASSERT(f.cal.residual_low <= 0 && f.cal.residual_high >= 0);
	CU_ASSERT(f.cal.residual_high - f.cal.residual_low < 0.01);
	/* Every constant found inside its bounds: none said to be at one,
	 * nor the inactive ones, kept wherever their start lies. */
	for (int p = 0; p < CAL_NPARAMS; p++)
		CU_ASSERT_EQUAL(calibrate_at_bound(&f, p), CALIB_INSIDE);
	CU_ASSERT_EQUAL(calibrate_bounds_hit(&f), 0);
	calibrate_fit_release(&f);
}

/*
 * Rows whose measured peaks hold more fragmentation than its upper
 * bound allows (0.8 of the activations, the bound 0.5): the fit can
 * only go to the bound, and says so of that constant alone (the step
 * times do not depend on it, so nothing else bends to it); the others,
 * inside theirs, are found again.  Attention slower than its lower
 * bound was no such test: the GEMM curve took the slack and pinned
 * gemm_tokens_half at its own lower bound too.
 */
static void
test_pinned_at_bound(void)
{
	struct calib_row rows[MAX_ROWS];
	struct calibration truth = truth_calibration();
	const struct cal_param_info *pi =
		calibration_param(CAL_MEM_FRAGMENTATION);
	struct calib_fit f;
	int n;

	truth.v[CAL_MEM_FRAGMENTATION] = 0.8;
	CU_ASSERT_FATAL(truth.v[CAL_MEM_FRAGMENTATION] > pi->hi);
	n = make_rows(rows, &truth, NULL);
	CU_ASSERT_EQUAL_FATAL(calibrate_fit(rows, n, calibration_default(), 5,
	                                    &f), 0);
	CU_ASSERT_DOUBLE_EQUAL(f.cal.v[CAL_MEM_FRAGMENTATION], pi->hi,
	                       CALIB_BOUND_TOL * (pi->hi - pi->lo));
	CU_ASSERT_EQUAL(calibrate_at_bound(&f, CAL_MEM_FRAGMENTATION),
	                CALIB_AT_HIGH);
	CU_ASSERT_STRING_EQUAL(calibrate_bound_name(CALIB_AT_HIGH), "high");
	CU_ASSERT_STRING_EQUAL(calibrate_bound_name(CALIB_AT_LOW), "low");
	CU_ASSERT_PTR_NULL(calibrate_bound_name(CALIB_INSIDE));
	CU_ASSERT_EQUAL(calibrate_bounds_hit(&f), 1);
	ASSERT_NEAR_REL(f.cal.v[CAL_GEMM_EFF_MAX], 0.62, 0.02);
	calibrate_fit_release(&f);
}

/* Runs twice as fast as the defaults predict cannot be reached inside
 * the bounds: every constant stays within them, the GEMM efficiency
 * pinned at its ceiling. */
/*
 * Qwen3 30B-A3B rows over ep, mbs and nodes, measured with a known MoE
 * host time (0.3 ms a local expert) and experts' GEMM efficiency (0.6),
 * the built-in constants otherwise: a fit of those two, the others
 * fixed as bench/fit-defaults' second stage fixes them, gives them back
 * (the host's time is a floor under each micro-batch's layer, the
 * efficiency scales the experts' GEMMs, so the rows tell them apart);
 * dense rows would leave them inactive.
 */
/* Qwen3 30B-A3B rows over ep, mbs and nodes measured as truth predicts
 * them, into rows; how many. */
static int
make_moe_rows(struct calib_row *rows, const struct calibration *truth)
{
	static const int eps[] = { 1, 2, 4, 8 }, mbss[] = { 1, 2, 4 };
	const struct model *m = model_preset_find("qwen3_30b_a3b");
	double mem;
	int n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	h100 = test_h100();
	for (int e = 0; e < 4; e++)
		for (int b = 0; b < 3; b++)
			for (int nodes = 1; nodes <= 2; nodes++) {
				struct calib_row *r = &rows[n];

				memset(r, 0, sizeof(*r));
				r->w = workload_of(4096, nodes);
				r->w.model = m;
				r->l = layout_of(1, 1, mbss[b], 8 * nodes);
				r->l.ep = eps[e];
				r->l.gbs = 256;
				if (layout_check(&r->w, &r->l) != LAYOUT_OK)
					continue;
				r->group = calibrate_group(&r->w);
				r->where = "generated";
				r->step_s = calibrate_predict(r, truth, &mem);
				n++;
			}
	return n;
}

static void
test_recovers_moe_overhead(void)
{
	struct calib_row rows[MAX_ROWS];
	struct calibration truth = *calibration_default();
	struct calib_opts o = CALIB_OPTS_INIT;
	struct calib_fit f;
	int n;

	truth.v[CAL_MOE_LAYER_OVERHEAD_S] = 0.3e-3;
	truth.v[CAL_MOE_GEMM_EFF] = 0.6;
	n = make_moe_rows(rows, &truth);
	CU_ASSERT_FATAL(n >= 12);
	CU_ASSERT_STRING_EQUAL(rows[0].group, "moe");
	for (int p = 0; p < CAL_NPARAMS; p++)
		o.fixed[p] = p != CAL_MOE_LAYER_OVERHEAD_S &&
		             p != CAL_MOE_GEMM_EFF;
	CU_ASSERT_EQUAL_FATAL(calibrate_fit_opts(rows, n,
	                                         calibration_hand_set(), &o,
	                                         &f), 0);
	CU_ASSERT(f.active[CAL_MOE_LAYER_OVERHEAD_S]);
	CU_ASSERT(f.active[CAL_MOE_GEMM_EFF]);
	calibrate_fit_release(&f);
	/* From the built-in constants, which are the truth but for it. */
	CU_ASSERT_EQUAL_FATAL(calibrate_fit_opts(rows, n,
	                                         calibration_default(), &o,
	                                         &f), 0);
	ASSERT_NEAR_REL(f.cal.v[CAL_MOE_LAYER_OVERHEAD_S], 0.3e-3, 0.01);
	ASSERT_NEAR_REL(f.cal.v[CAL_MOE_GEMM_EFF], 0.6, 0.01);
	CU_ASSERT(calibrate_mape(rows, f.pred_in, n, NULL, NULL) < 0.001);
	calibrate_fit_release(&f);
}

/*
 * A GPU whose runs are all MoE runs keeps the constants dense layers
 * share at their start and fits the MoE-only ones: the rows below are
 * made with a GEMM efficiency of 0.55 and MoE constants at the start's,
 * and a fit free to move gemm_eff_max would follow it; this one leaves
 * it at the start, marks it kept, and moves the MoE constants to make up
 * what it can.  Unfixed, nothing else holds them back: the same rows
 * fitted with a dense one added move gemm_eff_max.
 */
static void
test_moe_rows_keep_dense_constants(void)
{
	struct calib_row rows[MAX_ROWS];
	const struct calibration *start = calibration_default();
	struct calibration truth = *start;
	struct calib_fit f;
	int n;

	truth.v[CAL_GEMM_EFF_MAX] = 0.55;
	n = make_moe_rows(rows, &truth);
	CU_ASSERT_FATAL(n >= 12);
	CU_ASSERT_EQUAL_FATAL(calibrate_fit(rows, n, start, 3, &f), 0);
	CU_ASSERT(f.active[CAL_GEMM_EFF_MAX]);
	CU_ASSERT(f.moe_kept[CAL_GEMM_EFF_MAX]);
	CU_ASSERT(f.moe_kept[CAL_ATTN_EFF_FLASH]);
	CU_ASSERT_FALSE(f.moe_kept[CAL_MOE_GEMM_EFF]);
	CU_ASSERT_FALSE(f.moe_kept[CAL_MOE_LAYER_OVERHEAD_S]);
	CU_ASSERT_DOUBLE_EQUAL(f.cal.v[CAL_GEMM_EFF_MAX],
	                       start->v[CAL_GEMM_EFF_MAX], 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f.cal.v[CAL_ATTN_EFF_FLASH],
	                       start->v[CAL_ATTN_EFF_FLASH], 1e-12);
	/* Slower GEMMs come out as slower experts. */
	CU_ASSERT(f.cal.v[CAL_MOE_GEMM_EFF] <
	          start->v[CAL_MOE_GEMM_EFF] - 0.02);
	calibrate_fit_release(&f);
	/* One dense row among them: the two stages, gemm_eff_max free. */
	rows[n] = rows[0];
	rows[n].w.model = model_preset_find("llama3_8b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(rows[n].w.model);
	rows[n].l.ep = 1;
	CU_ASSERT_EQUAL_FATAL(layout_check(&rows[n].w, &rows[n].l), LAYOUT_OK);
	rows[n].group = calibrate_group(&rows[n].w);
	rows[n].step_s = calibrate_predict(&rows[n], &truth, NULL);
	CU_ASSERT_EQUAL_FATAL(calibrate_fit(rows, n + 1, start, 3, &f), 0);
	CU_ASSERT_FALSE(f.moe_kept[CAL_GEMM_EFF_MAX]);
	CU_ASSERT(fabs(f.cal.v[CAL_GEMM_EFF_MAX] - start->v[CAL_GEMM_EFF_MAX]) >
	          0.05);
	calibrate_fit_release(&f);
}

/*
 * Dense and MoE rows together fit in two stages: the dense rows, made
 * with gemm_eff_max 0.65, give it back although the MoE rows run 40 %
 * slower than the estimate makes them (something it misses), whatever
 * their micro-batch, which the MoE layer's overhead, a time per
 * micro-batch fitted after to the MoE rows, cannot follow alone: a
 * joint fit lowers gemm_eff_max for them.
 */
static void
test_staged_fit(void)
{
	static const int eps[] = { 2, 4, 8 };
	const struct model *m = model_preset_find("qwen3_30b_a3b");
	struct calib_row rows[MAX_ROWS];
	struct calibration truth = *calibration_default();
	struct calib_opts o = CALIB_OPTS_INIT;
	struct calib_fit f;
	double mem, dense_err;
	int n, dense;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	truth.v[CAL_GEMM_EFF_MAX] = 0.65;
	CU_ASSERT_FATAL(make_rows(rows, &truth, NULL) >= 8);
	n = dense = 8;   /* as many dense rows as MoE ones, about */
	for (int e = 0; e < 3; e++)
		for (int mbs = 1; mbs <= 4; mbs *= 4) {
			struct calib_row *r = &rows[n];

			memset(r, 0, sizeof(*r));
			r->w = workload_of(4096, 1);
			r->w.model = m;
			r->l = layout_of(1, 1, mbs, 8);
			r->l.ep = eps[e];
			r->l.gbs = 256;
			if (layout_check(&r->w, &r->l) != LAYOUT_OK)
				continue;
			r->group = calibrate_group(&r->w);
			r->campaign = "moe";
			r->where = "generated";
			r->step_s = 1.4 * calibrate_predict(r, &truth, &mem);
			n++;
		}
	CU_ASSERT_FATAL(n - dense >= 4);
	for (int p = 0; p < CAL_NPARAMS; p++)
		o.fixed[p] = p != CAL_GEMM_EFF_MAX &&
		             p != CAL_MOE_LAYER_OVERHEAD_S;
	CU_ASSERT_EQUAL_FATAL(calibrate_fit_opts(rows, n,
	                                         calibration_default(), &o,
	                                         &f), 0);
	ASSERT_NEAR_REL(f.cal.v[CAL_GEMM_EFF_MAX], 0.65, 0.005);
	dense_err = calibrate_mape(rows, f.pred_in, dense, NULL, NULL);
	CU_ASSERT(dense_err < 0.002);
	calibrate_fit_release(&f);
}

/*
 * One GPU's rows: its first 8 dense rows (make_rows) and Qwen3
 * 30B-A3B's over ep and micro-batch, each its own campaign, measured as
 * the estimator predicts them with truth.  Returns how many.
 */
static int
make_gpu_rows(struct calib_row *rows, const struct calibration *truth)
{
	static const int eps[] = { 2, 4, 8 }, mbss[] = { 1, 2, 4 };
	static const char *const campaigns[] = { "ep2", "ep4", "ep8" };
	const struct model *m = model_preset_find("qwen3_30b_a3b");
	int n = 8;
	double mem;

	if (!m || make_rows(rows, truth, NULL) < n)
		return 0;
	for (int e = 0; e < 3; e++)
		for (int b = 0; b < 3; b++) {
			struct calib_row *r = &rows[n];

			memset(r, 0, sizeof(*r));
			r->w = workload_of(4096, 1);
			r->w.model = m;
			r->l = layout_of(1, 1, mbss[b], 8);
			r->l.ep = eps[e];
			r->l.gbs = 256;
			if (layout_check(&r->w, &r->l) != LAYOUT_OK)
				continue;
			r->group = calibrate_group(&r->w);
			r->campaign = campaigns[e];
			r->where = "generated";
			r->step_s = calibrate_predict(r, truth, &mem);
			n++;
		}
	return n;
}

/*
 * The MoE-only constants fitted once over two GPUs (calibrate_share):
 * rows made with a GEMM efficiency of their own per GPU (0.62 and 0.78)
 * and one MoE host time and expert GEMM efficiency (0.4 ms a local
 * expert, 0.55) give the latter back from the defaults, each GPU's MoE
 * rows predicted
 * with its own gemm_eff_max (fitted per GPU first), in-sample and
 * cross-validated; gemm_eff_max, which dense rows move, is not shared,
 * and the dense rows get no prediction from it.
 */
static void
test_shared_moe_constants(void)
{
	static const double eff[2] = { 0.62, 0.78 };
	struct calib_row a[MAX_ROWS], b[MAX_ROWS], *rows[2] = { a, b };
	struct calib_row all[2 * MAX_ROWS];
	const struct calibration *base[2 * MAX_ROWS];
	struct calib_opts o = CALIB_OPTS_INIT;
	struct calib_fit f[2];
	struct calib_shared sh;
	int n[2], total = 0, moe = 0;

	for (int p = 0; p < CAL_NPARAMS; p++)
		o.fixed[p] = p != CAL_GEMM_EFF_MAX &&
		             p != CAL_MOE_LAYER_OVERHEAD_S &&
		             p != CAL_MOE_GEMM_EFF;
	for (int k = 0; k < 2; k++) {
		struct calibration truth = *calibration_default();

		truth.v[CAL_GEMM_EFF_MAX] = eff[k];
		truth.v[CAL_MOE_LAYER_OVERHEAD_S] = 0.4e-3;
		truth.v[CAL_MOE_GEMM_EFF] = 0.55;
		n[k] = make_gpu_rows(rows[k], &truth);
		CU_ASSERT_FATAL(n[k] >= 14);
		CU_ASSERT_EQUAL_FATAL(calibrate_fit_opts(rows[k], n[k],
		                          calibration_default(), &o, &f[k]), 0);
		ASSERT_NEAR_REL(f[k].cal.v[CAL_GEMM_EFF_MAX], eff[k], 0.005);
		for (int i = 0; i < n[k]; i++) {
			all[total] = rows[k][i];
			base[total++] = &f[k].cal;
		}
	}
	CU_ASSERT_EQUAL(calibrate_share(all, total, base,
	                                calibration_default(), &o, &sh), 2);
	CU_ASSERT(sh.shared[CAL_MOE_LAYER_OVERHEAD_S]);
	CU_ASSERT(sh.shared[CAL_MOE_GEMM_EFF]);
	CU_ASSERT(!sh.shared[CAL_GEMM_EFF_MAX]);
	ASSERT_NEAR_REL(sh.cal.v[CAL_MOE_LAYER_OVERHEAD_S], 0.4e-3, 0.01);
	ASSERT_NEAR_REL(sh.cal.v[CAL_MOE_GEMM_EFF], 0.55, 0.01);
	for (int i = 0; i < total; i++) {
		if (!calibrate_row_moe(&all[i])) {
			CU_ASSERT_EQUAL(sh.pred_in[i], 0);
			continue;
		}
		moe++;
		ASSERT_NEAR_REL(sh.pred_in[i], all[i].step_s, 0.002);
		ASSERT_NEAR_REL(sh.pred_cv[i], all[i].step_s, 0.01);
	}
	CU_ASSERT(moe >= 12);
	free(sh.pred_in);
	free(sh.pred_cv);
	calibrate_fit_release(&f[0]);
	calibrate_fit_release(&f[1]);
}

static void
test_bounds_hold(void)
{
	struct calib_row rows[MAX_ROWS];
	struct calib_fit f;
	int n = make_rows(rows, calibration_default(), NULL);

	for (int i = 0; i < n; i++) {
		rows[i].step_s *= 0.3;
		rows[i].peak_gib *= 3;
	}
	CU_ASSERT_EQUAL_FATAL(calibrate_fit(rows, n, calibration_default(), 4,
	                                    &f), 0);
	for (int p = 0; p < CAL_NPARAMS; p++) {
		const struct cal_param_info *pi = calibration_param(p);

		CU_ASSERT(f.cal.v[p] >= pi->lo && f.cal.v[p] <= pi->hi);
	}
	CU_ASSERT_DOUBLE_EQUAL(f.cal.v[CAL_GEMM_EFF_MAX],
	                       CAL_HI_GEMM_EFF_MAX, 0.01);
	CU_ASSERT_DOUBLE_EQUAL(f.cal.v[CAL_MEM_FRAGMENTATION],
	                       CAL_HI_MEM_FRAGMENTATION, 0.01);
	CU_ASSERT_EQUAL(calibrate_at_bound(&f, CAL_GEMM_EFF_MAX),
	                CALIB_AT_HIGH);
	CU_ASSERT_EQUAL(calibrate_at_bound(&f, CAL_MEM_FRAGMENTATION),
	                CALIB_AT_HIGH);
	/* What the bounds left unexplained shows in the band, which
	 * still holds the prediction itself. */
	CU_ASSERT(f.cal.residual_low < -0.1);
	CU_ASSERT_DOUBLE_EQUAL(f.cal.residual_high, 0, 1e-12);
	calibrate_fit_release(&f);
}

/* A constant the fit kept (--fix) at a start on its bound is not said
 * to be at it: no run asked for it there. */
static void
test_kept_on_bound(void)
{
	struct calib_row rows[MAX_ROWS];
	struct calibration truth = truth_calibration(), start;
	struct calib_opts o = CALIB_OPTS_INIT;
	struct calib_fit f;
	int n = make_rows(rows, &truth, NULL);

	start = *calibration_default();
	start.v[CAL_LAYER_OVERHEAD_S] = 0;
	o.fixed[CAL_LAYER_OVERHEAD_S] = true;
	CU_ASSERT_EQUAL_FATAL(calibrate_fit_opts(rows, n, &start, &o, &f), 0);
	CU_ASSERT_DOUBLE_EQUAL(f.cal.v[CAL_LAYER_OVERHEAD_S], 0, 1e-15);
	CU_ASSERT_EQUAL(calibrate_at_bound(&f, CAL_LAYER_OVERHEAD_S),
	                CALIB_INSIDE);
	calibrate_fit_release(&f);
}

/* Noisy rows: the cross-validated error is reported beside the
 * in-sample one and is not below it; folds never exceed the rows; one
 * row cannot be validated and keeps the built-in band. */
static void
test_kfold_reported(void)
{
	static const double noise[] = { 0.04, -0.03, 0.02, -0.05 };
	struct calib_row rows[MAX_ROWS];
	struct calibration truth = truth_calibration();
	struct calib_fit f;
	int n = make_rows(rows, &truth, noise);
	double in, cv;

	CU_ASSERT_EQUAL_FATAL(calibrate_fit(rows, n, calibration_default(), 5,
	                                    &f), 0);
	CU_ASSERT_EQUAL(f.folds, 5);
	in = calibrate_mape(rows, f.pred_in, n, NULL, NULL);
	cv = calibrate_mape(rows, f.pred_cv, n, NULL, NULL);
	CU_ASSERT(in > 0.005 && in < 0.06);
	CU_ASSERT(cv >= in - 1e-6);
	CU_ASSERT(cv < 0.10);
	CU_ASSERT(f.cal.residual_low < -0.01);
	CU_ASSERT(f.cal.residual_high > 0.01);
	calibrate_fit_release(&f);

	CU_ASSERT_EQUAL_FATAL(calibrate_fit(rows, 3, calibration_default(), 5,
	                                    &f), 0);
	CU_ASSERT_EQUAL(f.folds, 3);
	CU_ASSERT_EQUAL(f.cal.rows, 0);
	calibrate_fit_release(&f);
	CU_ASSERT_EQUAL_FATAL(calibrate_fit(rows, 1, calibration_default(), 5,
	                                    &f), 0);
	CU_ASSERT_EQUAL(f.folds, 0);
	CU_ASSERT_DOUBLE_EQUAL(f.cal.residual_low, CAL_DEFAULT_RESIDUAL_LOW,
	                       1e-12);
	calibrate_fit_release(&f);
	CU_ASSERT_EQUAL(calibrate_fit(rows, 0, calibration_default(), 5, &f),
	                -1);
}

/* The interval holds 80 % of new runs: from 9 runs on the j-th smallest
 * and largest cross-validated residuals, j = (n + 1) / 10; under 9 the
 * built-in band widened to every residual, not measured (rows 0).  The
 * interpolated 10th and 90th percentiles held neither of two runs'. */
static void
test_residual_band(void)
{
	struct calib_row rows[19];
	double pred[19];
	struct calibration cal;

	memset(rows, 0, sizeof rows);
	for (int i = 0; i < 19; i++) {
		pred[i] = 1.0;
		/* residuals -0.09 .. +0.09 in steps of 0.01 */
		rows[i].step_s = exp((i - 9) * 0.01);
	}
	CU_ASSERT_TRUE(calibrate_residual_band(rows, pred, 19, &cal));
	CU_ASSERT_DOUBLE_EQUAL(cal.residual_low, -0.08, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cal.residual_high, 0.08, 1e-9);
	CU_ASSERT_TRUE(calibrate_residual_band(rows + 5, pred, 9, &cal));
	CU_ASSERT_DOUBLE_EQUAL(cal.residual_low, -0.04, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cal.residual_high, 0.04, 1e-9);
	/* Two runs, +0.044 and -0.029 */
	rows[0].step_s = exp(0.044);
	rows[1].step_s = exp(-0.029);
	CU_ASSERT_FALSE(calibrate_residual_band(rows, pred, 2, &cal));
	CU_ASSERT_DOUBLE_EQUAL(cal.residual_low, CAL_DEFAULT_RESIDUAL_LOW,
	                       1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cal.residual_high, CAL_DEFAULT_RESIDUAL_HIGH,
	                       1e-12);
	/* ... one beyond the built-in band widens it */
	rows[0].step_s = exp(0.5);
	CU_ASSERT_FALSE(calibrate_residual_band(rows, pred, 2, &cal));
	CU_ASSERT_DOUBLE_EQUAL(cal.residual_high, 0.5, 1e-9);
}

/* The hand-set constants are those the estimator had as #defines (the
 * start of bench/fit-defaults' fit); they and the shipped defaults it
 * fitted lie in their bounds. */
static void
test_defaults_in_bounds(void)
{
	const struct calibration *d = calibration_default();
	const struct calibration *h = calibration_hand_set();

	CU_ASSERT_DOUBLE_EQUAL(h->v[CAL_GEMM_EFF_MAX], 0.75, 0);
	CU_ASSERT_DOUBLE_EQUAL(h->v[CAL_GEMM_TOKENS_HALF], 192, 0);
	CU_ASSERT_DOUBLE_EQUAL(h->v[CAL_ATTN_EFF_FLASH], 0.45, 0);
	CU_ASSERT_DOUBLE_EQUAL(h->v[CAL_FP8_GEMM_EFF], 1.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(h->v[CAL_COMM_EFF_NVLINK], 0.85, 0);
	CU_ASSERT_DOUBLE_EQUAL(h->v[CAL_LAYER_OVERHEAD_S], 150e-6, 0);
	CU_ASSERT_DOUBLE_EQUAL(h->v[CAL_MEM_FRAGMENTATION], 0.10, 0);
	for (int p = 0; p < CAL_NPARAMS; p++) {
		const struct cal_param_info *pi = calibration_param(p);

		CU_ASSERT(d->v[p] >= pi->lo && d->v[p] <= pi->hi);
		CU_ASSERT(h->v[p] >= pi->lo && h->v[p] <= pi->hi);
		CU_ASSERT_EQUAL(calibration_param_find(pi->key), p);
	}
	CU_ASSERT_STRING_EQUAL(calibration_label(d), "built-in defaults");
	CU_ASSERT_STRING_EQUAL(calibration_label(h), "hand-set constants");
	CU_ASSERT_FALSE(calibration_fitted(d));
	CU_ASSERT_FALSE(calibration_fitted(h));
}

/* The written group reads back: numbers as libconfig floats. */
static void
test_write_entry(void)
{
	struct calibration c = truth_calibration();
	struct strbuf sb = STRBUF_INIT;

	snprintf(c.name, sizeof c.name, "site-1");
	c.v[CAL_FP8_GEMM_EFF] = 1.0;
	c.v[CAL_LAYER_OVERHEAD_S] = 1e-5;
	c.residual_low = -0.08;
	c.residual_high = 0.09;
	c.rows = 14;
	calibrate_write_entry(&sb, "h100-sxm", &c);
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "  h100-sxm = {\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "name = \"site-1\";"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "layer_overhead_s = 1.0e-05;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "fp8_gemm_eff = 1.0;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "residual_low = -0.08;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, "rows = 14;"));
	strbuf_release(&sb);
}

/* ---- ranking ------------------------------------------------------------- */

/* A hand-made row of campaign camp (NULL: none): a tp-wide layout with
 * gbs, measured step_s. */
static struct calib_row
rank_row(const char *camp, const char *group, int tp, int gbs,
         double step_s)
{
	struct calib_row r;

	memset(&r, 0, sizeof r);
	llama = test_llama3_8b();
	h100 = test_h100();
	r.w = workload_of(4096, 1);
	r.l = layout_of(tp, 1, 1, 8 / tp);
	r.l.gbs = gbs;
	r.step_s = step_s;
	r.group = group;
	r.where = "hand";
	r.campaign = camp;
	return r;
}

/*
 * Repeated layouts count once, by their fastest run; a campaign of one
 * configuration is not counted; configurations compare per sample; a
 * pair measured within 3 % is not judged; a predicted tie is no hit and
 * half a pair.
 */
static void
test_rank_metric(void)
{
	struct calib_row rows[12];
	double pred[12];
	struct calib_rank r;
	struct calib_campaign_rank *c;
	int rep[12], n = 0, m;

	/* A: tp 1 twice (10.5 s, then 10 s: the second stands for it),
	 * tp 2 at 12 s, tp 4 at 10.2 s (tied with tp 1); tp 2 predicted
	 * fastest: a miss, both judged pairs reversed. */
	rows[n] = rank_row("A", "dense-bf16", 1, 64, 10.5); pred[n++] = 9;
	rows[n] = rank_row("A", "dense-bf16", 1, 64, 10.0); pred[n++] = 9;
	rows[n] = rank_row("A", "dense-bf16", 2, 64, 12.0); pred[n++] = 8;
	rows[n] = rank_row("A", "dense-bf16", 4, 64, 10.2); pred[n++] = 9.5;
	/* B: one layout twice: not a ranking. */
	rows[n] = rank_row("B", "dense-bf16", 1, 64, 3.0); pred[n++] = 1;
	rows[n] = rank_row("B", "dense-bf16", 1, 64, 4.0); pred[n++] = 1;
	/* C: tp 2 with twice the batch is slower per step, faster per
	 * sample, and predicted so: a hit. */
	rows[n] = rank_row("C", "dense-bf16", 1, 64, 5.0); pred[n++] = 5.5;
	rows[n] = rank_row("C", "dense-bf16", 2, 128, 9.0); pred[n++] = 9.5;
	/* D (moe): predicted alike: a tie, half a pair. */
	rows[n] = rank_row("D", "moe", 1, 64, 7.0); pred[n++] = 7;
	rows[n] = rank_row("D", "moe", 2, 64, 8.0); pred[n++] = 7;
	/* No campaign: alone. */
	rows[n] = rank_row(NULL, "dense-bf16", 1, 64, 1.0); pred[n++] = 9;

	CU_ASSERT_EQUAL(calibrate_configs(rows, n, rep), 9);
	CU_ASSERT_EQUAL(rep[0], 1);
	CU_ASSERT_EQUAL(rep[1], 1);
	CU_ASSERT_EQUAL(rep[5], 4);
	CU_ASSERT_EQUAL(rep[10], 10);

	m = calibrate_rank_campaigns(rows, pred, n, NULL, &c);
	CU_ASSERT_EQUAL_FATAL(m, 3);
	CU_ASSERT_STRING_EQUAL(c[0].campaign, "A");
	CU_ASSERT_EQUAL(c[0].rows, 4);
	CU_ASSERT_EQUAL(c[0].configs, 3);
	CU_ASSERT_EQUAL(c[0].best, 1);
	CU_ASSERT_EQUAL(c[0].predicted, 2);
	CU_ASSERT_FALSE(c[0].near);
	/* tp 1 (9 s predicted) behind tp 2 (8 s) only: placed second. */
	CU_ASSERT_EQUAL(c[0].best_place, 2);
	CU_ASSERT_DOUBLE_EQUAL(c[0].best_behind, 9.0 / 8 - 1, 1e-12);
	CU_ASSERT_EQUAL(c[0].pairs, 2);
	CU_ASSERT_DOUBLE_EQUAL(c[0].concordant, 0, 1e-12);
	CU_ASSERT_STRING_EQUAL(c[1].campaign, "C");
	CU_ASSERT_EQUAL(c[1].best, 7);
	CU_ASSERT_EQUAL(c[1].predicted, 7);
	CU_ASSERT(c[1].near);
	CU_ASSERT_EQUAL(c[1].best_place, 1);
	CU_ASSERT_DOUBLE_EQUAL(c[1].best_behind, 0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c[1].concordant, 1, 1e-12);
	CU_ASSERT_EQUAL(c[2].predicted, -1);
	/* In a predicted tie the best is placed first: none is faster. */
	CU_ASSERT_EQUAL(c[2].best_place, 1);
	CU_ASSERT_DOUBLE_EQUAL(c[2].concordant, 0.5, 1e-12);
	free(c);

	calibrate_rank(rows, pred, n, NULL, &r);
	CU_ASSERT_EQUAL(r.campaigns, 3);
	CU_ASSERT_EQUAL(r.rows, 8);
	CU_ASSERT_EQUAL(r.configs, 7);
	CU_ASSERT_EQUAL(r.best, 1);
	CU_ASSERT_EQUAL(r.near, 1);
	CU_ASSERT_EQUAL(r.pairs, 4);
	CU_ASSERT_DOUBLE_EQUAL(r.concordant, 1.5, 1e-12);
	calibrate_rank(rows, pred, n, "moe", &r);
	CU_ASSERT_EQUAL(r.campaigns, 1);
	CU_ASSERT_EQUAL(r.pairs, 1);
	/* A's predictions put right: tp 1 fastest, tp 4, then tp 2. */
	pred[0] = pred[1] = 8;
	pred[2] = 9;
	pred[3] = 8.5;
	calibrate_rank(rows, pred, 4, NULL, &r);
	CU_ASSERT_EQUAL(r.best, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.concordant, 2, 1e-12);
}

/* The rows of make_rows in campaigns by sequence length and nodes, as
 * one campaign file each would be. */
static void
name_campaigns(struct calib_row *rows, int n)
{
	static const char *const names[] = { "s2k-n1", "s2k-n2", "s8k-n1",
		"s8k-n2" };

	for (int i = 0; i < n; i++)
		rows[i].campaign = names[(rows[i].w.seq_length > 2048) * 2 +
		                         (rows[i].w.nodes - 1)];
}

/* Rows the estimator made order every pair right: the ordering term
 * leaves the known constants where they were. */
static void
test_rank_term_keeps_recovery(void)
{
	struct calib_row rows[MAX_ROWS];
	struct calibration truth = truth_calibration();
	struct calib_opts o = CALIB_OPTS_INIT;
	struct calib_rank r;
	struct calib_fit f;
	int n = make_rows(rows, &truth, NULL);

	name_campaigns(rows, n);
	o.rank_weight = 10;
	CU_ASSERT_EQUAL_FATAL(calibrate_fit_opts(rows, n, calibration_default(),
	                                         &o, &f), 0);
	ASSERT_NEAR_REL(f.cal.v[CAL_GEMM_EFF_MAX], 0.62, 0.02);
	ASSERT_NEAR_REL(f.cal.v[CAL_ATTN_EFF_FLASH], 0.36, 0.03);
	ASSERT_NEAR_REL(f.cal.v[CAL_LAYER_OVERHEAD_S], 300e-6, 0.08);
	calibrate_rank(rows, f.pred_in, n, NULL, &r);
	CU_ASSERT(r.campaigns == 4 && r.pairs > 10);
	CU_ASSERT_DOUBLE_EQUAL(r.concordant, r.pairs, 1e-12);
	/* Folds hold out whole campaigns: at most four. */
	CU_ASSERT_EQUAL(f.folds, 4);
	calibrate_fit_release(&f);
}

/*
 * tp 8 runs 30 % slower than the estimator says with the known
 * constants (a cost none of them models): fitted on the error alone,
 * one campaign's fastest configuration is predicted behind another;
 * with the ordering term every campaign's fastest comes first and more
 * pairs are in order, at about the same error.
 */
static void
test_rank_term_orders(void)
{
	struct calib_row rows[MAX_ROWS];
	struct calibration truth = truth_calibration();
	struct calib_opts o = CALIB_OPTS_INIT;
	struct calib_rank r0, r3;
	struct calib_fit f0, f3;
	int n = make_rows(rows, &truth, NULL);

	name_campaigns(rows, n);
	for (int i = 0; i < n; i++) {
		if (rows[i].l.tp == 8)
			rows[i].step_s *= 1.3;
		rows[i].peak_gib = 0;
	}
	o.rank_weight = 0;
	CU_ASSERT_EQUAL_FATAL(calibrate_fit_opts(rows, n, calibration_default(),
	                                         &o, &f0), 0);
	o.rank_weight = 3;
	CU_ASSERT_EQUAL_FATAL(calibrate_fit_opts(rows, n, calibration_default(),
	                                         &o, &f3), 0);
	calibrate_rank(rows, f0.pred_in, n, NULL, &r0);
	calibrate_rank(rows, f3.pred_in, n, NULL, &r3);
	CU_ASSERT_EQUAL(r0.campaigns, 4);
	CU_ASSERT(r0.best < r0.campaigns);
	CU_ASSERT_EQUAL(r3.best, r3.campaigns);
	CU_ASSERT(r3.concordant > r0.concordant);
	CU_ASSERT(calibrate_mape(rows, f3.pred_in, n, NULL, NULL) <
	          calibrate_mape(rows, f0.pred_in, n, NULL, NULL) + 0.01);
	calibrate_fit_release(&f0);
	calibrate_fit_release(&f3);
}

/*
 * The ordering term of a campaign of 300 configurations (calibrate-
 * order.c sweeps it, where one of 64 or fewer is summed pair by pair) is
 * the sum over its pairs, as listed here: rows measured 3 % or more
 * apart per sample, the faster a, of max(0, log(pa / pb) - d / 2)^2;
 * rows out of the fit, or unpredicted, are left out of it, and the
 * latter still counted.  A second campaign of 5 is summed pair by pair.
 */
static void
test_rank_term_sweep(void)
{
	enum { N = 305 };
	struct calib_row *rows = xcalloc(N, sizeof(*rows));
	double pred[N], want = 0, got;
	bool in[N];
	struct calib_order ord;
	int pairs, want_pairs = 0;

	for (int i = 0; i < N; i++) {
		int tp = 1 << (i % 4), k = i / 4 + 1;
		/* scattered, not sorted, by measurement and prediction */
		double u = (i * 7919 % 1000) / 1000.0;
		double v = (i * 6271 % 997) / 997.0;

		rows[i] = rank_row(i < 300 ? "big" : "small", "dense-bf16", tp,
		                   64 * k, k * (3 + 2 * u));
		pred[i] = k * (3 + 2.5 * v);
		in[i] = i % 11 != 3;
	}
	pred[17] = 0;            /* unpredicted: counted, not summed */
	pred[40] = NAN;
	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++) {
			double ma = rows[a].step_s / rows[a].l.gbs;
			double mb = rows[b].step_s / rows[b].l.gbs;
			double s;

			if (a == b || !in[a] || !in[b] ||
			    strcmp(rows[a].campaign, rows[b].campaign) ||
			    !(mb - ma >= 0.03 * ma))
				continue;
			want_pairs++;
			if (!(pred[a] > 0) || !(pred[b] > 0) ||
			    !isfinite(pred[a]) || !isfinite(pred[b]))
				continue;
			s = log((pred[a] / rows[a].l.gbs) /
			        (pred[b] / rows[b].l.gbs)) - log(ma / mb) / 2;
			want += s > 0 ? s * s : 0;
		}
	calibrate_order_init(&ord, rows, N);
	got = calibrate_order_loss(&ord, rows, pred, in, &pairs);
	CU_ASSERT_EQUAL(pairs, want_pairs);
	CU_ASSERT(want_pairs > 20000);
	CU_ASSERT(want > 1);
	ASSERT_NEAR_REL(got, want, 1e-9);
	calibrate_order_release(&ord);
	free(rows);
}

/* The pairs of configurations a and b (rows) of one campaign, compared
 * one by one as the ranking always did. */
static void
naive_pairs(const struct calib_row *rows, const double *pred, const int *c,
            int m, int *pairs, double *concordant)
{
	*pairs = 0;
	*concordant = 0;
	for (int a = 0; a < m; a++)
		for (int b = a + 1; b < m; b++) {
			double ma = rows[c[a]].step_s / rows[c[a]].l.gbs;
			double mb = rows[c[b]].step_s / rows[c[b]].l.gbs;
			double pa = pred[c[a]] / rows[c[a]].l.gbs;
			double pb = pred[c[b]] / rows[c[b]].l.gbs;

			if (fabs(ma - mb) < CALIB_RANK_TIE * fmin(ma, mb))
				continue;
			(*pairs)++;
			if (pa == pb)
				*concordant += 0.5;
			else if ((pa < pb) == (ma < mb))
				*concordant += 1;
		}
}

/* n rows of campaigns "c0".."c2" (and some of none), with repeated
 * layouts among them or (distinct) none, measured and predicted times
 * with ties. */
static void
many_rows(struct calib_row *rows, double *pred, int n, bool distinct)
{
	static const char *const camp[] = { "c0", "c1", "c2", NULL };

	rows[0] = rank_row("c0", "dense-bf16", 1, 64, 1);
	for (int i = 0; i < n; i++) {
		int k = distinct ? i + 1 : i * 7919 % (n / 24) + 1;

		rows[i] = rows[0];
		rows[i].campaign = camp[i % 7 == 6 ? 3 : i % 3];
		rows[i].group = i % 5 ? "dense-bf16" : "moe";
		rows[i].l.tp = 1 << (i % 4);
		rows[i].l.gbs = 64 * k;
		rows[i].step_s = k * (3 + (i * 6271 % 1009) / 500.0);
		pred[i] = k * (3 + (i * 4001 % 37) / 36.0);
	}
	pred[n / 2] = NAN;
}

/*
 * The ranking sorts rows and sweeps each campaign's configurations: on
 * 2,000 rows (many of one layout, ties measured and predicted, a
 * missing prediction) its counts are those of comparing every pair, and
 * 30,000 rows of one campaign take well under half a second; compared
 * row with row they took 11 s (calibrate reports the ranking some ten
 * times).
 */
static void
test_rank_many(void)
{
	enum { N = 2000, BIG = 30000 };
	struct calib_row *rows = xcalloc(BIG, sizeof(*rows));
	double *pred = xcalloc(BIG, sizeof(*pred));
	int *rep = xcalloc(BIG, sizeof(*rep)), *c = xcalloc(BIG, sizeof(*c));
	struct calib_campaign_rank *cr;
	struct calib_rank r;
	clock_t t;
	int m, configs, halves = 0;

	many_rows(rows, pred, N, false);
	configs = calibrate_configs(rows, N, rep);
	CU_ASSERT(configs > 100 && configs < N);
	m = calibrate_rank_campaigns(rows, pred, N, "dense-bf16", &cr);
	CU_ASSERT_EQUAL(m, 3);
	for (int u = 0; u < m; u++) {
		int nc = 0, pairs, rows_in = 0;
		double conc;

		/* in order of appearance: c1 (row 1), c2, c0 (row 0: moe) */
		CU_ASSERT_STRING_EQUAL(cr[u].campaign, u == 0 ? "c1"
		                       : u == 1 ? "c2" : "c0");
		for (int i = 0; i < N; i++) {
			if (!rows[i].campaign ||
			    strcmp(rows[i].campaign, cr[u].campaign) ||
			    strcmp(rows[i].group, "dense-bf16"))
				continue;
			rows_in++;
			/* the fastest of its layout, the first such */
			for (int j = 0; j < N; j++) {
				double best = rows[rep[i]].step_s;

				if (rows[j].campaign == rows[i].campaign &&
				    layout_equal(&rows[j].l, &rows[i].l))
					CU_ASSERT(best < rows[j].step_s ||
					          (best == rows[j].step_s &&
					           rep[i] <= j));
			}
			if (rep[i] == i)
				c[nc++] = i;
		}
		naive_pairs(rows, pred, c, nc, &pairs, &conc);
		CU_ASSERT_EQUAL(cr[u].rows, rows_in);
		CU_ASSERT_EQUAL(cr[u].configs, nc);
		CU_ASSERT_EQUAL(cr[u].pairs, pairs);
		CU_ASSERT_EQUAL(cr[u].concordant, conc);
		CU_ASSERT(pairs > 1000);
		halves += conc != floor(conc);
	}
	CU_ASSERT(halves > 0);   /* some predicted ties */
	free(cr);
	many_rows(rows, pred, BIG, true);
	for (int i = 0; i < BIG; i++)
		rows[i].campaign = "c0";
	t = clock();
	calibrate_rank(rows, pred, BIG, NULL, &r);
	CU_ASSERT((double)(clock() - t) / CLOCKS_PER_SEC < 0.5);
	CU_ASSERT(r.campaigns == 1 && r.pairs > 100000000);
	free(rows);
	free(pred);
	free(rep);
	free(c);
}

/* ---- measured-runs files ------------------------------------------------- */

static const char campaign_text[] =
	"name = \"t\"; model = \"llama3_8b\"; nodes = 1; gpus_per_node = 8;\n"
	"gpu = \"h100-sxm\"; seq_length = 4096; global_batch_size = 64;\n"
	"base = { tensor_parallel = 2; };\n";

/* What read_csv_fn reads. */
struct csv_case {
	const char *path;
	struct calib_input in;
};

static int
read_csv_fn(void *arg)
{
	struct csv_case *cc = arg;
	struct plan_opts po = { NULL, true, false, false };

	return calib_read_csv(&cc->in, cc->path, &po, NULL);
}

/* Write text to DIR/name; the path is the caller's. */
static char *
write_in(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Read csv (in dir); returns the exit status, *err what was said. */
static int
read_case(const char *dir, const char *csv, char **err, int *rows)
{
	struct csv_case cc;
	int ret;

	memset(&cc, 0, sizeof cc);
	cc.path = write_in(dir, "runs.csv", csv);
	*err = harness_capture_stderr(read_csv_fn, &cc, &ret);
	*rows = cc.in.n;
	calib_input_release(&cc.in);
	free((char *)cc.path);
	return ret;
}

static void
test_csv_errors(void)
{
	char *dir = harness_tmpdir(), *err, *camp;
	int rows, ret;

	setenv("PARATUNE_SITE_CONF", "/dev/null", 1);
	camp = write_in(dir, "c.conf", campaign_text);
	/* A good file: the base, a row with tp 4, quoted note. */
	ret = read_case(dir, "campaign_file,tp,step_s,source,note\n"
	                "c.conf,,3.1,x,\n"
	                "c.conf,4,3.9,x,\"a, b\"\n", &err, &rows);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(rows, 2);
	free(err);
	/* An unknown column: line 1, its column. */
	ret = read_case(dir, "campaign_file,tp,stepp_s\nc.conf,2,3\n", &err,
	                &rows);
	CU_ASSERT_EQUAL(ret, EXIT_DATAERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "runs.csv:1:18: unknown column "
	                                   "'stepp_s'"));
	free(err);
	/* A bad number: line 3, the step_s field's column. */
	ret = read_case(dir, "campaign_file,tp,step_s\nc.conf,2,3\n"
	                "c.conf,2,fast\n", &err, &rows);
	CU_ASSERT_EQUAL(ret, EXIT_DATAERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "runs.csv:3:10: step_s 'fast'"));
	free(err);
	/* A bad layout value names its column. */
	ret = read_case(dir, "campaign_file,tp,step_s\nc.conf,x2,3\n", &err,
	                &rows);
	CU_ASSERT_EQUAL(ret, EXIT_DATAERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "runs.csv:2:8: 'x2' is not a "
	                                   "value of tp"));
	free(err);
	/* A missing campaign file: 66, its line and column. */
	ret = read_case(dir, "step_s,campaign_file\n3,none.conf\n", &err,
	                &rows);
	CU_ASSERT_EQUAL(ret, EXIT_NOINPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "runs.csv:2:3: campaign_file "
	                                   "'none.conf'"));
	free(err);
	/* No step_s column; an open quote. */
	ret = read_case(dir, "campaign_file,tp\nc.conf,2\n", &err, &rows);
	CU_ASSERT_EQUAL(ret, EXIT_DATAERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "runs.csv:1: no 'step_s' column"));
	free(err);
	ret = read_case(dir, "campaign_file,step_s,note\nc.conf,3,\"open\n",
	                &err, &rows);
	CU_ASSERT_EQUAL(ret, EXIT_DATAERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "runs.csv:2:10: unterminated"));
	free(err);
	free(camp);
	harness_rmtree(dir);
	free(dir);
}

/* Every member of a calibration has a bit, found by its key, and an
 * overlay copies the members of the set and no other: what the note of
 * a planned campaign computes a new plan from. */
static void
test_member_overlay(void)
{
	struct calibration dst, src;
	unsigned set = 1u << CAL_ATTN_EFF_FLASH | 1u << CAL_MEMBER_ROWS;

	for (int m = 0; m < CAL_NMEMBERS; m++)
		CU_ASSERT_EQUAL(calibration_member_find(
			calibration_member_key(m)), m);
	CU_ASSERT_EQUAL(calibration_member_find("frozen_own"), -1);
	CU_ASSERT_EQUAL(calibration_member_find("residual_high"),
	                CAL_MEMBER_RESIDUAL_HIGH);
	calibration_init(&dst);
	calibration_init(&src);
	src.v[CAL_ATTN_EFF_FLASH] = 0.5;
	src.v[CAL_GEMM_EFF_MAX] = 0.6;
	src.rows = 12;
	src.residual_low = -0.1;
	snprintf(src.name, sizeof src.name, "mine");
	calibration_overlay(&dst, &src, set);
	CU_ASSERT_DOUBLE_EQUAL(dst.v[CAL_ATTN_EFF_FLASH], 0.5, 0);
	CU_ASSERT_EQUAL(dst.rows, 12);
	CU_ASSERT_DOUBLE_EQUAL(dst.v[CAL_GEMM_EFF_MAX],
	                       calibration_default()->v[CAL_GEMM_EFF_MAX], 0);
	CU_ASSERT_DOUBLE_EQUAL(dst.residual_low,
	                       calibration_default()->residual_low, 0);
	CU_ASSERT_STRING_EQUAL(dst.name, "");
	calibration_overlay(&dst, &src, CAL_MEMBERS_ALL);
	CU_ASSERT_STRING_EQUAL(dst.name, "mine");
	CU_ASSERT_DOUBLE_EQUAL(dst.residual_low, -0.1, 0);
	CU_ASSERT_DOUBLE_EQUAL(dst.v[CAL_GEMM_EFF_MAX], 0.6, 0);
}

static const struct harness_test fit_tests[] = {
	{ "recovers known constants", test_recovers_known_constants },
	{ "recovers the MoE layer overhead and experts' GEMM efficiency",
	  test_recovers_moe_overhead },
	{ "MoE runs alone keep the dense constants",
	  test_moe_rows_keep_dense_constants },
	{ "dense rows fit first, MoE-only constants after",
	  test_staged_fit },
	{ "MoE constants fitted once over two GPUs' runs",
	  test_shared_moe_constants },
	{ "bounds hold", test_bounds_hold },
	{ "a constant pinned at a bound is said", test_pinned_at_bound },
	{ "a kept constant on a bound is not said", test_kept_on_bound },
	{ "k-fold error reported", test_kfold_reported },
	{ "interval holds 80 % of new runs", test_residual_band },
	{ "defaults in bounds", test_defaults_in_bounds },
	{ "members found by key and overlaid", test_member_overlay },
	{ "written entry", test_write_entry },
	{ "ranking of distinct configurations", test_rank_metric },
	{ "ordering term keeps recovery", test_rank_term_keeps_recovery },
	{ "ordering term orders", test_rank_term_orders },
	{ "ordering term swept over a large campaign", test_rank_term_sweep },
	{ "ranking of many rows", test_rank_many },
	{ NULL, NULL },
};

static const struct harness_test csv_tests[] = {
	{ "malformed measured-runs files", test_csv_errors },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "calibrate fit", fit_tests },
	{ "calibrate csv", csv_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
