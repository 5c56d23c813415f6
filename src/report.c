/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * report.c - the summary of a campaign's results, in the units a person
 * plans a training run with: seconds per step, TFLOP/s per GPU, days,
 * GPU-hours and money.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report-number.h"
#include "safe-text.h"
#include "table.h"
#include "util.h"

/* "9.41 days, 7,227 GPU-hours, $21,681" (no cost without a rate);
 * "25.3 minutes, 0.45 GPU-hours, $1.35" for a short one. */
static void
add_training(struct strbuf *out, const struct results *res,
             const struct result_metrics *m)
{
	report_add_duration(out, m->train_days);
	strbuf_addstr(out, ", ");
	report_add_grouped_figure(out, m->gpu_hours, 0);
	strbuf_addstr(out, " GPU-hours");
	if (isfinite(m->cost)) {
		strbuf_addstr(out, ", ");
		report_add_money(out, res->currency, m->cost);
	}
}

/* ---- the head ------------------------------------------------------------ */

int
report_mfu_impossible_count(const struct results *res)
{
	int n = 0;

	for (int i = 0; i < res->nranked; i++)
		n += results_mfu_impossible(&res->v[res->ranked[i]]);
	return n;
}

/* Measured MFUs above 100 %, which no GPU reaches. */
static void
summary_mfu_warning(struct strbuf *out, const struct results *res)
{
	int n = report_mfu_impossible_count(res);

	if (n == 0)
		return;
	strbuf_addf(out, "warning: %d measured candidate%s show%s an MFU "
	            "above 100 %%, more than the GPU's dense peak: the "
	            "campaign's gpu or precision, the global batch size or "
	            "the log%s wrong; not recommended\n", n,
	            n == 1 ? "" : "s", n == 1 ? "s" : "",
	            n == 1 ? " is" : "s are");
}

/* The GPUs every candidate ran on, as planned; campaign.conf's when the
 * candidates differ (a hand-edited candidates.csv). */
static int
report_gpus(const struct results *res)
{
	const struct settings *c = &res->run.settings;

	return res->gpus > 0 ? res->gpus : c->nodes * c->gpus_per_node;
}

/* The campaign and how many candidates are in each group. */
static void
summary_campaign(struct strbuf *out, const struct results *res)
{
	const struct settings *c = &res->run.settings;
	int cancelled = 0;

	/* The names come from the campaign file, and root's cron shows
	 * this head to its owner's terminal and mail: escaped, so that
	 * no name can drive them, whatever the loader let by. */
	strbuf_addstr(out, "campaign ");
	safe_text_append(out, c->name);
	strbuf_addstr(out, ": ");
	safe_text_append(out, c->model_name);
	strbuf_addf(out, " on %d node%s x %d ", res->nodes,
	            res->nodes == 1 ? "" : "s", c->gpus_per_node);
	safe_text_append(out, c->gpu.name);
	strbuf_addf(out, " (%d GPUs), %s, sequence %d, %g B tokens\n",
	            report_gpus(res), precision_name(c->precision),
	            c->seq_length, c->num_tokens_in_b);
	if (res->nodes != c->nodes)
		strbuf_addf(out, "(campaign.conf says %d nodes since plan: the "
		            "figures are for the %d the candidates were "
		            "planned and ran on)\n", c->nodes, res->nodes);
	strbuf_addf(out, "%d candidates: %d measured, %d out of memory, "
	            "%d failed", res->n, res->count[RESULT_MEASURED],
	            res->count[RESULT_OOM], res->count[RESULT_FAILED]);
	/* A run cancelled before enough steps has no result, but its
	 * layout did not fail: say how many of the failed those are. */
	for (int i = 0; i < res->n; i++)
		cancelled += res->v[i].kind == RESULT_FAILED &&
		             res->v[i].failure == FAILURE_CANCELLED;
	if (cancelled > 0)
		strbuf_addf(out, " (%d cancelled before enough steps)",
		            cancelled);
	strbuf_addf(out, ", %d in progress, %d not run\n",
	            res->count[RESULT_IN_PROGRESS],
	            res->count[RESULT_NOT_RUN]);
	strbuf_addf(out, "predictions: calibration %s\n",
	            calibration_label(&c->calibration));
	if (res->cost_per_gpu_hour <= 0)
		strbuf_addstr(out, "(no cost_per_gpu_hour: costs are not "
		              "shown; set it or pass --cost-per-gpu-hour)\n");
	summary_mfu_warning(out, res);
}

/* Two lines on a measured row's speed and what it means for training. */
static void
summary_speed(struct strbuf *out, const struct results *res,
              const struct result_row *r)
{
	const struct result_metrics *m = &r->m;
	const struct settings *c = &res->run.settings;

	strbuf_addf(out, "  %.3f s per step (median %.3f s, ",
	            m->step_mean_s, m->step_median_s);
	/* One step has no sample deviation. */
	if (isfinite(m->step_stdev_s))
		strbuf_addf(out, "stdev %.3f s", m->step_stdev_s);
	else
		strbuf_addstr(out, "stdev unknown");
	strbuf_addf(out, ", %d step%s), ", m->steps, m->steps == 1 ? "" : "s");
	report_add_number(out, m->samples_per_s, 1);
	strbuf_addstr(out, " samples/s, ");
	report_add_grouped(out, m->tokens_per_s_per_gpu, 0);
	strbuf_addstr(out, " tokens/s per GPU,\n  ");
	report_add_number(out, m->tflops_per_gpu, 1);
	strbuf_addstr(out, " TFLOP/s per GPU (MFU ");
	report_add_number(out, m->mfu * 100.0, 1);
	strbuf_addf(out, " %%%s)\n  training on %g B tokens: ",
	            results_mfu_impossible(r) ? ", above 100 %: see the "
	            "warning above" : "", c->num_tokens_in_b);
	add_training(out, res, m);
	strbuf_addch(out, '\n');
}

/* "best" or "base": its name and speed, or why it has none. */
static void
summary_pick(struct strbuf *out, const struct results *res,
             const char *label, int idx)
{
	const struct result_row *r = &res->v[idx];

	if (r->kind == RESULT_MEASURED) {
		strbuf_addf(out, "%s: rank %d  %s", label, r->cand.rank,
		            r->cand.name);
		if (r->failure != FAILURE_NONE)
			strbuf_addf(out, " (ended in failure class %s "
			            "after its steps)",
			            failure_class_name(r->failure));
		if (results_row_other_gbs(r))
			strbuf_addf(out, " (ran gbs %ld, planned %d)",
			            r->ran_gbs, r->cand.layout.gbs);
		strbuf_addch(out, '\n');
		summary_speed(out, res, r);
		return;
	}
	strbuf_addf(out, "%s: %s\n  ", label, r->cand.name);
	if (r->kind == RESULT_OOM || r->kind == RESULT_FAILED)
		strbuf_addf(out, "failed (%s): no measurement to compare "
		            "with\n", failure_class_name(r->failure));
	else if (r->kind == RESULT_IN_PROGRESS)
		strbuf_addf(out, "not measured yet (%s): no comparison\n",
		            cand_state_name(r->state));
	else
		strbuf_addstr(out, "not run: no comparison\n");
}

/* Why a measured base is not compared with the best: its times do not
 * count. */
static void
summary_no_comparison(struct strbuf *out, const struct result_row *b)
{
	strbuf_addstr(out, "best against base: no comparison: ");
	if (results_class_times_suspect(b->failure))
		strbuf_addstr(out, "slow GPUs (stragglers) slowed the base's "
		              "steps, its step times are suspect: run it "
		              "again\n");
	else if (results_row_other_gbs(b))
		strbuf_addf(out, "the base ran global batch size %ld, not the "
		            "%d planned: what ran is not the base "
		            "configuration\n", b->ran_gbs, b->cand.layout.gbs);
	else if (results_class_recommendable(b->failure))
		strbuf_addstr(out, "the base's MFU is above 100 %, its "
		              "figures are wrong\n");
	else
		strbuf_addf(out, "the base ended in failure class %s after "
		            "its measured steps, a failure that condemns its "
		            "layout\n",
		            failure_class_name(b->failure));
}

/*
 * What switching from the base to the best saves or costs.  Time and
 * GPU-hours go together only on equal GPU counts: a best on twice the
 * base's GPUs saves days and costs GPU-hours, which one verb for both
 * called a saving ("saves 7.4 hours, 1,183 GPU-hours and $3,549").
 * Money follows the GPU-hours (one price for both).
 */
static void
summary_saving(struct strbuf *out, const struct results *res)
{
	bool days_saved = res->saved_days >= 0;
	bool hours_saved = res->saved_gpu_hours >= 0;

	strbuf_addf(out, "switching %s ", days_saved ? "saves" : "costs");
	report_add_duration(out, fabs(res->saved_days));
	if (hours_saved != days_saved)
		strbuf_addf(out, " but %s ", hours_saved ? "saves" : "costs");
	else
		strbuf_addstr(out, isfinite(res->saved_cost) ? ", " : " and ");
	report_add_grouped_figure(out, fabs(res->saved_gpu_hours), 0);
	strbuf_addstr(out, " GPU-hours");
	if (isfinite(res->saved_cost)) {
		strbuf_addstr(out, " and ");
		report_add_money(out, res->currency, fabs(res->saved_cost));
	}
	strbuf_addstr(out, " over the whole training\n");
}

/* Best, base, and what switching from base to best gains. */
static void
summary_best_base(struct strbuf *out, const struct results *res)
{
	strbuf_addch(out, '\n');
	summary_pick(out, res, "best", res->best);
	if (res->base < 0) {
		strbuf_addstr(out, "base: none in candidates.csv: no "
		              "comparison\n");
		return;
	}
	if (res->base == res->best) {
		strbuf_addstr(out, "base: the same configuration: the base is "
		              "already the fastest\n");
		return;
	}
	summary_pick(out, res, "base", res->base);
	if (res->v[res->base].kind == RESULT_MEASURED && res->no_comparison)
		summary_no_comparison(out, &res->v[res->base]);
	if (!isfinite(res->speedup))
		return;
	/* "1.00x faster; switching saves 0.00 days" recommended a change
	 * for a difference the measurement cannot tell from none. */
	if (res->within_noise) {
		strbuf_addf(out, "best against base: the base is as fast as "
		            "the best (within noise), %.3fx measured; "
		            "switching gains nothing measurable\n",
		            res->speedup);
		return;
	}
	strbuf_addf(out, "best against base: %.2fx %s; ",
	            res->speedup >= 1 ? res->speedup : 1.0 / res->speedup,
	            res->speedup >= 1 ? "faster" : "slower");
	summary_saving(out, res);
}

const char *
report_stop_text(const char *reason)
{
	if (!strcmp(reason, "no_gain"))
		return "no candidate left could beat the best measured by "
		       "search.min_gain";
	if (!strcmp(reason, "budget"))
		return "the next job would pass limits.gpu_hours or "
		       "policy.max_gpu_hours";
	if (!strcmp(reason, "cancelled"))
		/* Slurm's own cancel (scancel) reads the same in the
		 * state: it was blamed on paratune cancel. */
		return "a cancel ended some of its jobs: paratune cancel, "
		       "or scancel in Slurm";
	if (!strcmp(reason, "rejected"))
		return "Slurm rejected every submission: no candidate ran";
	return "every selected candidate ran";
}

/* What the search cost against running every candidate. */
static void
summary_search_cost(struct strbuf *out, const struct results *res)
{
	double all = res->exhaustive_gpu_hours_estimate;

	strbuf_addstr(out, "search: ");
	report_add_gpu_hours(out, res->campaign_gpu_hours);
	strbuf_addstr(out, " spent");
	if (all > 0)
		strbuf_addf(out, ", %.0f %% of the %.1f that running every "
		            "candidate would take (predicted)",
		            100.0 * res->campaign_gpu_hours / all, all);
	strbuf_addf(out, "; %d measured", res->nranked);
	if (res->pruned)
		strbuf_addf(out, ", %d pruned by what ran", res->pruned);
	if (res->proved_fits)
		strbuf_addf(out, ", %d oom-risk proved to fit by what ran",
		            res->proved_fits);
	if (res->skipped_no_gain)
		strbuf_addf(out, ", %d skipped (no_gain)",
		            res->skipped_no_gain);
	if (res->skipped_budget)
		strbuf_addf(out, ", %d skipped (budget)", res->skipped_budget);
	strbuf_addch(out, '\n');
	if (res->stop_reason[0])
		strbuf_addf(out, "search stopped: %s (%s)\n", res->stop_reason,
		            report_stop_text(res->stop_reason));
}

/* ---- the top table ------------------------------------------------------- */

/* The memory cell: a measured peak, or "45.5 est" from the planner;
 * never wider than report_add_number writes (a log's peak is what it
 * says). */
static void
cell_memory(struct table *t, const struct result_row *r)
{
	struct strbuf sb = STRBUF_INIT;
	bool measured = isfinite(r->mem_peak_gib) && r->mem_peak_gib > 0;

	report_add_number(&sb,
	                  measured ? r->mem_peak_gib : r->cand.est_memory_gib,
	                  1);
	table_add(t, measured ? "%s" : "%s est", sb.buf);
	strbuf_release(&sb);
}

/* What the note column says about a row. */
static void
cell_note(struct table *t, const struct results *res, int idx)
{
	const struct result_row *r = &res->v[idx];
	struct strbuf sb = STRBUF_INIT;

	if (idx == res->best)
		strbuf_addstr(&sb, "best");
	if (r->cand.base)
		strbuf_addf(&sb, "%sbase", sb.len ? ", " : "");
	if (r->failure != FAILURE_NONE)
		strbuf_addf(&sb, "%s%s", sb.len ? ", " : "",
		            failure_class_name(r->failure));
	if (results_mfu_impossible(r))
		strbuf_addf(&sb, "%sMFU over 100 %%", sb.len ? ", " : "");
	if (results_row_other_gbs(r))
		strbuf_addf(&sb, "%sran gbs %ld", sb.len ? ", " : "",
		            r->ran_gbs);
	if (!r->recommendable)
		strbuf_addf(&sb, "%snot recommended", sb.len ? ", " : "");
	/* Measured while its job runs on: the counts put it with the
	 * measured, not in progress, and nothing else said it ran on. */
	if (cand_state_active(r->state) || r->state == CS_QUEUED)
		strbuf_addf(&sb, "%sstill %s", sb.len ? ", " : "",
		            cand_state_name(r->state));
	table_add(t, "%s", sb.len ? sb.buf : "");
	strbuf_release(&sb);
}

/* One row of the top table. */
static void
summary_row(struct table *t, const struct results *res, int idx)
{
	const struct result_row *r = &res->v[idx];
	const struct layout *l = &r->cand.layout;
	struct strbuf cost = STRBUF_INIT;

	table_add(t, "%d", r->cand.rank);
	table_add(t, "%d", l->tp);
	table_add(t, "%d", l->pp);
	table_add(t, "%d", l->cp);
	table_add(t, "%d", l->ep);
	table_add(t, "%d", l->vp);
	table_add(t, "%d", l->mbs);
	table_add(t, "%d", l->gbs);
	table_add(t, "%s", recompute_short(l->recompute));
	table_add(t, "%.3f", r->m.step_mean_s);
	report_add_number(&cost, r->m.tflops_per_gpu, 1);
	table_add(t, "%s", cost.buf);
	strbuf_setlen(&cost, 0);
	report_add_number(&cost, r->m.mfu * 100.0, 1);
	table_add(t, "%s", cost.buf);
	strbuf_setlen(&cost, 0);
	cell_memory(t, r);
	report_add_figure(&cost, r->m.train_days, 2);
	table_add(t, "%s", cost.buf);
	strbuf_setlen(&cost, 0);
	report_add_grouped_figure(&cost, r->m.gpu_hours, 0);
	table_add(t, "%s", cost.buf);
	strbuf_setlen(&cost, 0);
	if (isfinite(r->m.cost))
		report_add_money(&cost, res->currency, r->m.cost);
	table_add(t, "%s", cost.len ? cost.buf : "-");
	if (isfinite(r->m.pred_error) &&
	    fabs(r->m.pred_error * 100.0) >= REPORT_FIXED_MAX)
		table_add(t, "%+.4g", r->m.pred_error * 100.0);
	else if (isfinite(r->m.pred_error))
		table_add(t, "%+.1f", r->m.pred_error * 100.0);
	else
		table_add(t, "-");
	cell_note(t, res, idx);
	strbuf_release(&cost);
}

/* The table printed into a strbuf (table.h prints to a FILE). */
static void
table_to_strbuf(const struct table *t, struct strbuf *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return;
	table_print(t, f);
	fclose(f);
	strbuf_add(out, buf, len);
	free(buf);
}

/* The top N measured rows as a table. */
static void
summary_top(struct strbuf *out, const struct results *res, int top)
{
	static const char *const cols[] = { ">rank", ">tp", ">pp", ">cp",
		">ep", ">vp", ">mbs", ">gbs", "recompute", ">step_s",
		">TFLOP/s/GPU", ">MFU_%", ">mem_GiB", ">days", ">GPU-hours",
		">cost", ">vs_plan_%", "note", NULL };
	int n = top > 0 && top < res->nranked ? top : res->nranked;
	struct table t;

	if (res->nranked == 0)
		return;
	strbuf_addf(out, "\n%s %d of %d measured, fastest first (time per "
	            "sample):\n", n < res->nranked ? "top" : "all", n,
	            res->nranked);
	table_init(&t, cols);
	for (int i = 0; i < n; i++)
		summary_row(&t, res, res->ranked[i]);
	table_to_strbuf(&t, out);
	table_release(&t);
	strbuf_addstr(out, "(mem_GiB: the peak the log reports, or the "
	              "planner's estimate marked est; vs_plan_%: (predicted - "
	              "measured) / measured step time)\n");
}

/* ---- recommendations ----------------------------------------------------- */

/* One recommendation with its days, GPU-hours and cost. */
static void
recommend_line(struct strbuf *out, const struct results *res,
               const char *label, int idx)
{
	const struct result_row *r = &res->v[idx];

	strbuf_addf(out, "  %s: rank %d %s\n    ", label, r->cand.rank,
	            r->cand.name);
	add_training(out, res, &r->m);
	strbuf_addch(out, '\n');
}

/* The cheapest: with one GPU count per campaign it is the fastest. */
static void
recommend_cheapest(struct strbuf *out, const struct results *res)
{
	if (res->cheapest != res->best || res->gpus == 0) {
		recommend_line(out, res, "cheapest", res->cheapest);
		return;
	}
	strbuf_addf(out, "  cheapest: the same as the fastest: every "
	            "candidate runs on the same %d GPUs, so the cost of the "
	            "training follows its time\n", res->gpus);
}

/* The fastest that leaves RESULTS_HEADROOM of memory free. */
static void
recommend_roomy(struct strbuf *out, const struct results *res)
{
	const struct result_row *r;
	double mem;
	bool measured;

	if (res->roomy < 0) {
		strbuf_addf(out, "  fastest with %.0f %% memory headroom: none "
		            "of the measured candidates leaves %.0f %% of the "
		            "%.1f GiB free\n", RESULTS_HEADROOM * 100,
		            RESULTS_HEADROOM * 100, res->capacity_gib);
		return;
	}
	r = &res->v[res->roomy];
	mem = results_memory_gib(r);
	measured = isfinite(r->mem_peak_gib) && r->mem_peak_gib > 0;
	strbuf_addf(out, "  fastest with at least %.0f %% memory headroom: "
	            "%s\n    ", RESULTS_HEADROOM * 100,
	            res->roomy == res->best ? "the same as the fastest"
	                                    : r->cand.name);
	report_add_number(out, mem, 1);
	strbuf_addf(out, " GiB %s of %.1f GiB (%.0f %% free); ",
	            measured ? "measured peak" : "estimated",
	            res->capacity_gib,
	            100.0 * (1.0 - mem / res->capacity_gib));
	if (res->roomy != res->best)
		strbuf_addf(out, "rank %d, ", r->cand.rank);
	add_training(out, res, &r->m);
	strbuf_addch(out, '\n');
}

/* Why a measured row is not recommended: the batch it ran, and its
 * class or an MFU no GPU reaches. */
static void
why_not_recommended(struct strbuf *out, const struct result_row *r)
{
	bool gbs = results_row_other_gbs(r);

	if (gbs)
		strbuf_addf(out, "ran global batch size %ld, not the %d "
		            "planned (see its note)", r->ran_gbs,
		            r->cand.layout.gbs);
	if (!results_class_recommendable(r->failure))
		strbuf_addf(out, "%sended in failure class %s after its "
		            "measured steps%s",
		            gbs ? "; " : "", failure_class_name(r->failure),
		            results_class_times_suspect(r->failure)
		            ? " (slow GPUs slowed them: run it again)" : "");
	else if (results_mfu_impossible(r))
		strbuf_addf(out, "%sshows an MFU of %.1f %%, above 100 %%: its "
		            "figures are wrong", gbs ? "; " : "",
		            r->m.mfu * 100.0);
}

/* Fastest, cheapest, roomiest, and faster ones not recommended. */
static void
summary_recommend(struct strbuf *out, const struct results *res)
{
	strbuf_addstr(out, "\nrecommendations:\n");
	recommend_line(out, res, "fastest", res->best);
	recommend_cheapest(out, res);
	recommend_roomy(out, res);
	for (int i = 0; i < res->nranked; i++) {
		const struct result_row *r = &res->v[res->ranked[i]];

		if (r->place >= res->v[res->best].place)
			break;
		strbuf_addf(out, "  not recommended although faster: rank %d "
		            "%s ", r->cand.rank, r->cand.name);
		why_not_recommended(out, r);
		strbuf_addch(out, '\n');
	}
}

/* ---- what failed --------------------------------------------------------- */

/* One failed row: name, class, note, estimate and evidence. */
static void
failure_lines(struct strbuf *out, const struct result_row *r)
{
	strbuf_addf(out, "  %s: %s", r->cand.name,
	            failure_class_name(r->failure));
	if (r->kind == RESULT_OOM) {
		strbuf_addstr(out, "; planned at ");
		report_add_number(out, r->cand.est_memory_gib, 1);
		strbuf_addf(out, " GiB (%s)",
		            memory_status_name(r->cand.memory_status));
	}
	if (r->note)
		strbuf_addf(out, "; %s", r->note);
	strbuf_addch(out, '\n');
	if (r->evidence)
		strbuf_addf(out, "    %s:%ld: %s\n", r->log, r->line,
		            r->evidence);
}

/*
 * The first rows of one kind with their class and evidence, in the
 * plan's order: REPORT_FAILURES_SHOWN, or top when that is more (top 0:
 * all).  Every one of them was listed: 5,000 failed candidates made
 * 10,000 lines of cron mail, which their CSV file holds anyway.
 */
static void
summary_failures(struct strbuf *out, const struct results *res, int top,
                 enum result_kind kind, const char *title,
                 const char *file)
{
	int shown = 0, limit = top == 0 ? res->n
	                      : top > REPORT_FAILURES_SHOWN ? top
	                      : REPORT_FAILURES_SHOWN;

	if (res->count[kind] == 0)
		return;
	strbuf_addf(out, "\n%s (%d, see results/%s):\n", title,
	            res->count[kind], file);
	for (int i = 0; i < res->n && shown < limit; i++)
		if (res->v[i].kind == kind) {
			failure_lines(out, &res->v[i]);
			shown++;
		}
	if (res->count[kind] > shown)
		strbuf_addf(out, "  ... and %d more: see results/%s\n",
		            res->count[kind] - shown, file);
}

/* The first candidates still queued or running, as many as
 * summary_failures shows: a campaign of 10,000 queued ones listed each
 * on every results run (cron mail); status lists them all. */
static void
summary_in_progress(struct strbuf *out, const struct results *res, int top)
{
	int shown = 0, limit = top == 0 ? res->n
	                      : top > REPORT_FAILURES_SHOWN ? top
	                      : REPORT_FAILURES_SHOWN;

	if (res->count[RESULT_IN_PROGRESS] == 0)
		return;
	/* Held by the site's cap with no job left, the campaign would
	 * never end as "run results again" promised. */
	if (res->held)
		strbuf_addf(out, "\nin progress (%d, no measurement yet):\n",
		            res->count[RESULT_IN_PROGRESS]);
	else
		strbuf_addf(out, "\nin progress (%d, no measurement yet: run "
		            "results again when the campaign ends):\n",
		            res->count[RESULT_IN_PROGRESS]);
	for (int i = 0; i < res->n && shown < limit; i++)
		if (res->v[i].kind == RESULT_IN_PROGRESS) {
			strbuf_addf(out, "  %s: %s\n", res->v[i].cand.name,
			            cand_state_name(res->v[i].state));
			shown++;
		}
	if (res->count[RESULT_IN_PROGRESS] > shown) {
		strbuf_addf(out, "  ... and %d more: see 'paratune status ",
		            res->count[RESULT_IN_PROGRESS] - shown);
		safe_text_append(out, res->run.dir);
		strbuf_addstr(out, "'\n");
	}
	if (res->held)
		strbuf_addf(out, "%s\n", res->held);
}

/* Why none of the measured candidates is recommended: failures that
 * condemn their layouts, step times slowed by stragglers, which condemn
 * nothing but are no measurement either, an MFU above 100 %, which
 * says the figures are wrong, or a run of another global batch size
 * than planned, which measured another configuration.  Each kind's
 * count sits between the two halves of its clause. */
enum { NO_BEST_KINDS = 4 };
static const char *const no_best_clause[NO_BEST_KINDS][2] = {
	{ "", " ended in a failure that condemns its layout" },
	{ "slow GPUs (stragglers) slowed the steps of ", ": run those again" },
	{ "", " show an MFU above 100 % (check the campaign's gpu, precision "
	  "and global batch size, and the logs)" },
	{ "", " ran another global batch size than planned (see their "
	  "notes)" },
};

/* The text when every measured candidate is of one kind. */
static void
no_best_each(struct strbuf *out, int kind, int n)
{
	if (kind == 0)
		strbuf_addf(out, "no recommendation: each of the %d measured "
		            "candidates ended in a failure that condemns its "
		            "layout\n", n);
	else if (kind == 1)
		strbuf_addf(out, "no recommendation: slow GPUs (stragglers) "
		            "slowed the steps of each of the %d measured "
		            "candidates: run them again\n", n);
	else if (kind == 2)
		strbuf_addf(out, "no recommendation: each of the %d measured "
		            "candidates shows an MFU above 100 %%: check the "
		            "campaign's gpu, precision and global batch size, "
		            "and the logs\n", n);
	else
		strbuf_addf(out, "no recommendation: each of the %d measured "
		            "candidates ran another global batch size than "
		            "planned (see their notes): make the template or "
		            "recipe run the planned one\n", n);
}

/* The kind of a measured row that is not recommended (no_best_clause):
 * another batch first, as what ran was not planned, whatever its
 * class; then condemned, suspect, or allowed by its class and so
 * refused for its MFU. */
static int
no_best_kind(const struct result_row *r)
{
	if (results_row_other_gbs(r))
		return 3;
	if (results_class_times_suspect(r->failure))
		return 1;
	return results_class_recommendable(r->failure) ? 2 : 0;
}

static void
no_best_measured(struct strbuf *out, const struct results *res)
{
	int n[NO_BEST_KINDS] = { 0 }, kinds = 0, done = 0;

	for (int i = 0; i < res->nranked; i++)
		n[no_best_kind(&res->v[res->ranked[i]])]++;
	for (int k = 0; k < NO_BEST_KINDS; k++)
		kinds += n[k] > 0;
	for (int k = 0; kinds == 1 && k < NO_BEST_KINDS; k++)
		if (n[k] > 0)
			no_best_each(out, k, n[k]);
	if (kinds == 1)
		return;
	strbuf_addf(out, "no recommendation: of the %d measured candidates, ",
	            res->nranked);
	for (int k = 0; k < NO_BEST_KINDS; k++) {
		if (n[k] == 0)
			continue;
		if (done++)
			strbuf_addstr(out, done == kinds ? ", and " : ", ");
		strbuf_addf(out, "%s%d%s", no_best_clause[k][0], n[k],
		            no_best_clause[k][1]);
	}
	strbuf_addch(out, '\n');
}

/* Why there is no best configuration. */
static void
summary_no_best(struct strbuf *out, const struct results *res)
{
	int ran = res->count[RESULT_OOM] + res->count[RESULT_FAILED];

	strbuf_addch(out, '\n');
	if (res->nranked > 0)
		no_best_measured(out, res);
	else if (ran > 0)
		strbuf_addf(out, "no candidate was measured: %d ran out of "
		            "memory and %d failed otherwise; why each, below\n",
		            res->count[RESULT_OOM], res->count[RESULT_FAILED]);
	else if (res->count[RESULT_IN_PROGRESS] > 0)
		strbuf_addstr(out, "no candidate has been measured yet\n");
	else if (!strcmp(res->stop_reason, "cancelled"))
		strbuf_addstr(out, "no candidate was run: the campaign was "
		              "cancelled before any job started\n");
	/* It said "submit the campaign first" of one submitted whose
	 * search skipped everything (a budget below one job's limit). */
	else if (res->stop_reason[0])
		strbuf_addf(out, "no candidate was run: the search stopped "
		            "before any job started (%s: %s)\n",
		            res->stop_reason,
		            report_stop_text(res->stop_reason));
	else
		strbuf_addstr(out, "no candidate was run: submit the campaign "
		              "first (paratune submit)\n");
	if (res->base >= 0 && res->v[res->base].kind != RESULT_NOT_RUN)
		summary_pick(out, res, "base", res->base);
}

/* The whole summary, as printed and as summary.txt.  Its lines name
 * candidates, which root's cron shows to their owner's terminal and
 * mail: the whole text passes through the escaping once more, so that
 * no name can drive them, whatever the readers let by. */
void
report_summary(const struct results *res, int top, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;

	summary_campaign(&sb, res);
	if (res->best >= 0) {
		summary_best_base(&sb, res);
		summary_top(&sb, res, top);
		summary_recommend(&sb, res);
	} else {
		summary_no_best(&sb, res);
		summary_top(&sb, res, top);
	}
	summary_failures(&sb, res, top, RESULT_OOM, "out of memory",
	                 "oom.csv");
	summary_failures(&sb, res, top, RESULT_FAILED, "failed",
	                 "failed.csv");
	summary_in_progress(&sb, res, top);
	summary_search_cost(&sb, res);
	safe_text_append_lines(out, sb.buf);
	strbuf_release(&sb);
}
