/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * results.h - what a campaign measured: each candidate's Slurm state
 * joined with its logs, the step-time statistics and what they mean for
 * the whole training (days, GPU-hours, cost), the ranking, the
 * recommendation, and the text of the files of DIR/results/ (which
 * cmd-results.c writes).
 *
 * A candidate is one of:
 *   not run      never selected (state "planned"): counted, shown nowhere
 *   in progress  queued, pending or running, not yet measured
 *   measured     at least results.min_steps timed steps after the warm-up
 *                (results.skip_steps) in one attempt's log, each timed
 *                above zero, however the job ended afterwards: its class
 *                stays in failure_class
 *   oom          its final class is cuda_oom or host_oom and it was not
 *                measured
 *   failed       any other end without a measurement
 * Pruned and skipped candidates (never submitted) count as failed
 * nowhere: they are counted apart (pruned, skipped_*).
 *
 * The final class is failure_join() of the state Slurm recorded for the
 * newest attempt and that attempt's log, DIR/runs/NAME/slurm-JOB.out.
 * Older attempts (retries after a node failure or a preemption) are read
 * only when the newest did not log enough steps: a configuration
 * measured once is measured.
 *
 * Why the newest attempt stopped (stop_reason), from its Slurm state,
 * its log and the verdict `paratune watch` left beside it
 * (DIR/runs/NAME/watch-JOB.txt, with run.early_stop):
 *   steady       COMPLETED after watch found the step time known and
 *                signalled the trainer
 *   max_steps    COMPLETED at its last step (limits.max_steps_per_run)
 *   exited       COMPLETED before its last step with no verdict: the
 *                trainer's own time limit (--exit-duration-in-mins) or
 *                a signal from elsewhere
 *   unknown      COMPLETED with no verdict and a log that cannot
 *                tell: none, not read in full, empty or no training log
 *   time_limit   Slurm's TIMEOUT
 *   oom          out of memory (Slurm's OUT_OF_MEMORY or the log's class)
 *   failed, cancelled, preempted, node_fail   the other final states
 *   pruned       never run
 * and none while it is planned, queued or running.
 */
#ifndef PARATUNE_RESULTS_H
#define PARATUNE_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "failure.h"
#include "logparse.h"
#include "store.h"
#include "strbuf.h"

/* The headroom the third recommendation asks for: 10 % of the GPU's
 * memory left free at the peak (issue 4, section 4). */
#define RESULTS_HEADROOM 0.10
/*
 * When the best's gain over the base is no gain: the difference of their
 * mean times per sample is at most RESULTS_NOISE_SE standard errors of
 * that difference (each mean's from its sample standard deviation over
 * its measured steps), or at most RESULTS_NOISE_REL of the base's time.
 * Two standard errors are the usual 95 % band of a difference of means;
 * successive step times are correlated, which makes the band if anything
 * too narrow, and a spread of zero (identical logged times) makes it
 * none, hence the floor: below half a percent the speed-up prints as
 * 1.00x, and the saving it names is the clock's, not the layout's.
 * With a standard deviation unknown (one measured step) the floor alone
 * applies.
 */
#define RESULTS_NOISE_SE 2.0
#define RESULTS_NOISE_REL 0.005
/* The largest MFU a measurement can have: model FLOPs are at most the
 * FLOPs a GPU does (recomputation only adds), and those at most its
 * dense peak. */
#define RESULTS_MFU_MAX 1.0
/* Rows of the top table unless --top says otherwise (NeMo's get_results
 * prints output_top_n = 10). */
#define RESULTS_TOP_DEFAULT 10

struct results_opts {
	int top;                  /* rows in the top table; 0: all */
	double cost_per_gpu_hour; /* < 0: the campaign's cost_per_gpu_hour */
	const char *currency;     /* NULL: "$" */
	const struct settings *site; /* the site's caps now (status,
	                                results); NULL: not known */
	/* The site and user files now, to note a calibration that a new
	 * plan would change (calibration-note.h); NULL: no note. */
	const struct settings *layers;
	/* The caller opened the campaign already and said what opening it
	 * warns of (STORE_SAID). */
	bool said;
};
#define RESULTS_OPTS_INIT \
	{ RESULTS_TOP_DEFAULT, -1.0, NULL, NULL, NULL, false }

enum result_kind {
	RESULT_NOT_RUN,
	RESULT_IN_PROGRESS,
	RESULT_MEASURED,
	RESULT_OOM,
	RESULT_FAILED,
	RESULT_KIND_COUNT,
};

/* What a measured candidate's step times mean; NAN where unknown. */
struct result_metrics {
	int steps;                    /* measured steps (after warm-up) */
	double step_mean_s, step_median_s, step_stdev_s; /* the sample
	                                 stdev: NAN for a single step */
	double samples_per_s;         /* gbs / mean */
	double tokens_per_s_per_gpu;  /* gbs * seq / mean / GPUs */
	double tflops_per_gpu;        /* Megatron-LM's FLOPs / mean / GPUs */
	double tflops_per_gpu_nemo;   /* NeMo's 72BLsh^2 figure, the same way */
	double mfu;                   /* tflops_per_gpu / dense peak */
	double train_days;            /* num_tokens_in_b at this speed */
	double gpu_hours;             /* train_days * 24 * GPUs */
	double cost;                  /* gpu_hours * cost_per_gpu_hour */
	double pred_error;            /* (predicted - measured) / measured */
};

struct result_row {
	struct candidate_row cand;    /* as planned (candidates.csv) */
	enum result_kind kind;
	bool in_state;                /* DIR/state knows it */
	const struct cand_status *status; /* its line of DIR/state, in
	                                 results.run.st (which owns it);
	                                 NULL when not in_state */
	enum cand_state state;        /* of the newest attempt */
	uint32_t job_id;
	int exit_code, exit_signal;
	char reason[64];              /* Slurm's reason, "" when none */
	const char *stop_reason;      /* see the top; NULL when none */
	int attempts;                 /* log files found */
	enum failure_class failure;   /* final class; FAILURE_NONE: clean */
	long line;                    /* evidence line; 0 when none */
	char *evidence;               /* valid UTF-8, no controls; or NULL */
	char *log;                    /* newest attempt's log, relative to
	                                 DIR; NULL when it left none */
	char *measured_log;           /* the log measured, or NULL */
	int log_steps;                /* steps the newest log measured,
	                                 timed above zero (parse's count) */
	char *note;                   /* why it has no measurement, or NULL */
	long ran_gbs;                 /* the global batch size the measured
	                                 log reports; 0 when it reports none */
	double mem_peak_gib;          /* the measured log's peak; NAN */
	char **pattern_values;        /* measured: per results.patterns
	                                 column, what its last match
	                                 captured (clean text) or NULL */
	struct result_metrics m;      /* kind == RESULT_MEASURED only */
	bool recommendable;           /* measured and ended in a class that
	                                 does not condemn the layout */
	int place;                    /* 1.. among the measured, fastest
	                                 first; 0.  Never shown as a rank:
	                                 ranks are the plan's (cand.rank) */
};

struct results {
	struct store run;             /* the campaign, opened read-only */
	double cost_per_gpu_hour;     /* 0: costs unknown */
	char *currency;
	double capacity_gib;          /* the GPU's memory */
	double peak_tflops;           /* dense peak at the precision */
	/* The GPUs the candidates ran on, as planned (candidates.csv), and
	 * the nodes they make: campaign.conf's nodes may have been edited
	 * since.  gpus is 0 when the candidates differ. */
	int gpus, nodes;
	char **pattern_cols;          /* results.csv's columns for the
	                                 campaign's results.patterns (those
	                                 without a step group), in order */
	int npattern_cols;
	struct result_row *v;         /* candidates.csv order */
	int n;
	int *ranked;                  /* measured rows, fastest first */
	int nranked;
	int count[RESULT_KIND_COUNT];
	/* Row indices; -1 when there is none. */
	int best;                     /* fastest recommendable */
	int base;                     /* the base configuration */
	int cheapest;                 /* lowest cost (GPU-hours) */
	int roomy;                    /* fastest with RESULTS_HEADROOM */
	/* Best over base when both are measured; NAN otherwise. */
	double speedup;
	double saved_days, saved_gpu_hours, saved_cost;
	/* The best is another than the base, but its gain over it is
	 * within the noise (results_within_noise). */
	bool within_noise;
	/* Why there is no comparison, NULL when there is one: "no_best",
	 * "no_base", "base_not_measured", "base_times_suspect" (a
	 * straggler), "base_other_gbs" (it ran another global batch size
	 * than planned) or "base_not_recommendable" (measured, then a
	 * failure that condemns its layout, or an impossible MFU). */
	const char *no_comparison;
	/* What the search cost: GPU-hours the campaign's jobs used (Slurm's
	 * start and end times by their GPUs), against what running every
	 * candidate would have (each at its predicted step time for
	 * limits.max_steps_per_run, within its time limit). */
	double campaign_gpu_hours, exhaustive_gpu_hours_estimate;
	int pruned;                   /* candidates a measurement ruled out */
	int proved_fits;              /* oom-risk ones a completed run proved
	                               * to fit */
	int skipped_no_gain;          /* skipped: nothing left could win */
	int skipped_budget;           /* skipped: the budget was spent */
	int unreadable;               /* logs and run directories that
	                                 could not be read (each named on
	                                 stderr as it was met) */
	/* Why the search stopped: "no_gain" or "budget" (a stopped event),
	 * "all_run" when every selected candidate ended without one,
	 * "cancelled" when they ended so because `cancel` ended some, ""
	 * while it goes on. */
	char stop_reason[16];
	/* Why the queued candidates wait, when the site's cap holds them
	 * (budget_held_text, with results_opts.site); NULL otherwise. */
	char *held;
};

/*
 * Load the campaign at dir (frozen configuration, candidates, state and
 * journal), read every candidate's logs and rank.  Returns 0, or an exit
 * code after an error message; release res either way.
 */
int results_load(struct results *res, const char *dir,
                 const struct results_opts *o);
void results_release(struct results *res);

/*
 * Fill row->m from step-time statistics st (st->measured steps) and the
 * campaign c at cost_per_gpu_hour (0: cost unknown), for the GPUs and
 * the global batch size the row ran (results_row_gpus, results_row_gbs).
 * Pure arithmetic.
 */
void results_measure(const struct settings *c, double cost_per_gpu_hour,
                     const struct log_step_stats *st,
                     struct result_row *row);

/* Whether a measured run that ended in class c may be recommended: not
 * when the class says the layout itself broke (out of memory, NaN loss,
 * a GPU fault, a crash), nor when its step times are suspect. */
bool results_class_recommendable(enum failure_class c);
/* Whether the step times of a run that ended in class c are suspect
 * though its layout did not fail: straggler, whose slow GPUs slowed the
 * steps before the detector stopped the run.  Such a run is measured
 * but neither recommended nor fitted; running it again measures it. */
bool results_class_times_suspect(enum failure_class c);

/* Whether r's MFU is above RESULTS_MFU_MAX: more model FLOPs than the
 * GPU's dense peak, which no run does.  Its figures are wrong (the
 * campaign's gpu or precision, the global batch size, or the log), so
 * it is noted and not recommended (results-row.c). */
bool results_mfu_impossible(const struct result_row *r);
/* The GPUs row ran on: tp * pp * cp * dp as planned; campaign.conf's
 * nodes * gpus_per_node for a row that gives none (a hand-made one). */
double results_row_gpus(const struct settings *c,
                        const struct result_row *row);
/* The global batch size row was measured at: the log's, else the
 * planned one. */
double results_row_gbs(const struct result_row *row);
/* Whether the log reports another global batch size than planned: a
 * template or a recipe overrode it.  Such a row is measured at the
 * batch size it ran, but what ran is not the configuration planned:
 * not recommended, and not fitted. */
bool results_row_other_gbs(const struct result_row *row);
/* Whether a measured row's step times cannot stand for its planned
 * configuration: its class makes them suspect, it ran another global
 * batch size, or its MFU is above 100 % (results_mfu_impossible).  The
 * adaptive search does not fit them. */
bool results_row_times_suspect(const struct result_row *row);

/* Order the measured rows, pick best, cheapest and roomy, and compare
 * best with base; results_load calls it. */
void results_rank(struct results *res);

/* Whether x's mean time per sample differs from b's by no more than
 * the noise of the two measurements (RESULTS_NOISE_SE, _REL). */
bool results_within_noise(const struct result_row *b,
                          const struct result_row *x);

/* Seconds per sample: how results are ordered (fastest first). */
double results_time_per_sample(const struct result_row *r);

/* A copy of s that is valid UTF-8 (a bad byte becomes U+FFFD) without
 * control characters (each becomes a space): log lines go into CSV, JSON,
 * SVG and HTML, which all need that. */
char *results_clean_text(const char *s);

/* Fill row (its candidate set, its metrics cleared) from its state s
 * (in res->run.st; NULL when the state does not know it) and the logs
 * of its run directory (results-row.c; for results_load). */
void results_row_collect(struct results *res, struct logparse *lp,
                         struct result_row *row,
                         const struct cand_status *s);

/* The memory compared with the headroom: the measured peak when the log
 * reports one, else the planner's estimate; GiB. */
double results_memory_gib(const struct result_row *r);

/* ---- files (results-write.c) ------------------------------------------ */

enum results_file { RESULTS_CSV, RESULTS_OOM_CSV, RESULTS_FAILED_CSV };

/* Every column of the three CSV files (and key of their JSON objects);
 * paratune(1), RESULT FILES, says what each holds. */
enum results_col {
	RC_RANK, RC_NAME, RC_TP, RC_PP, RC_CP, RC_EP, RC_ETP, RC_VP, RC_MBS,
	RC_GBS, RC_DP, RC_RECOMPUTE, RC_RECOMPUTE_LAYERS, RC_NODES,
	RC_GPUS_PER_NODE, RC_STEPS, RC_STEP_MEAN, RC_STEP_MEDIAN,
	RC_STEP_STDEV, RC_SAMPLES, RC_TOKENS, RC_TFLOPS, RC_MFU, RC_DAYS,
	RC_GPU_HOURS, RC_COST, RC_PRED_STEP, RC_PRED_ERROR, RC_TFLOPS_NEMO,
	RC_MEM_PEAK, RC_EST_MEMORY, RC_MEMORY_STATUS, RC_BASE, RC_CLASS,
	RC_EVIDENCE, RC_LINE, RC_LOG, RC_STATE, RC_EXIT_CODE, RC_EXIT_SIGNAL,
	RC_REASON, RC_NOTE, RC_STOP_REASON,
	/* The layout's switches, in enum layout_switch order. */
	RC_RECOMPUTE_METHOD, RC_SEQUENCE_PARALLEL, RC_DISTRIBUTED_OPTIMIZER,
	RC_ATTENTION, RC_ACCOUNT_EMBEDDING, RC_ACCOUNT_LOSS, RC_FP8_RECIPE,
	RC_FP8_PARAM_GATHER, RC_CUDA_GRAPHS, RC_TP_COMM_OVERLAP,
	RC_OVERLAP_GRAD_REDUCE, RC_OVERLAP_PARAM_GATHER, RC_FSDP,
	RC_CP_COMM_TYPE, RC_MOE_GROUPED_GEMM, RC_OFFLOAD_LAYERS,
	RC_FIRST_STAGE_LAYERS, RC_LAST_STAGE_LAYERS, RC_RECOMPUTE_MODULES,
	RC_GRAD_REDUCE_BF16,
	RC_MOE_DISPATCHER, RC_MOE_A2A_OVERLAP, RC_CUDA_GRAPH_FULL_ITERATION,
	RC_PIPELINE_LAYOUT, RC_FP8_DOT_PRODUCT_ATTENTION,
	RC_COUNT,
};

/* The columns of one file, in order; *n gets how many. */
const enum results_col *results_columns(enum results_file which, int *n);
/* The column's name: "step_time_mean_s". */
const char *results_col_name(enum results_col c);
/* Whether the column holds numbers (right-aligned for people). */
bool results_col_is_number(enum results_col c);
/* Append the cell as the CSV holds it, unquoted; nothing when unknown. */
void results_cell(const struct results *res, const struct result_row *r,
                  enum results_col c, struct strbuf *out);

/* Append s as one CSV field, quoted as RFC 4180 asks when it holds a
 * comma, a quote, a line break or leading or trailing space. */
void results_csv_field(struct strbuf *out, const char *s);
/* The whole of results.csv, oom.csv or failed.csv. */
void results_csv(const struct results *res, enum results_file which,
                 struct strbuf *out);
/* The JSON document of --format json. */
void results_json(const struct results *res, struct strbuf *out);

#endif
