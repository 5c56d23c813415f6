/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * test-logparse.c - the log reader over every real excerpt in
 * $PARATUNE_REAL_LOGS (values read off the files by eye: see the table),
 * over edge cases generated here (empty, warm-up only, NaN from the
 * start, binary, a 10 MB line, a truncated last line, carriage returns,
 * glued records), extra patterns, the root-cause priority, the join with
 * Slurm's job state, and the 'parse' command.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "error.h"
#include "failure.h"
#include "harness.h"
#include "logparse-int.h"
#include "logparse.h"
#include "steady.h"
#include "strbuf.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_parse_entry;

#define NA NAN
#define REL 1e-9

/* ---- helpers ------------------------------------------------------------- */

/* Whether two values agree: both absent, or equal within REL. */
static bool
same(double got, double want)
{
	if (isnan(want))
		return isnan(got);
	return fabs(got - want) <= fabs(want) * REL;
}

/* Report a mismatch with the file it concerns, then fail. */
#define EXPECT(file, what, ok, fmt, got, want)                               \
	do {                                                                  \
		if (!(ok))                                                    \
			fprintf(stderr, "\n  %s: %s: got " fmt ", want "      \
			        fmt "\n", (file), (what), (got), (want));     \
		CU_ASSERT(ok);                                                \
	} while (0)
#define EXPECT_LONG(f, w, got, want) \
	EXPECT(f, w, (long)(got) == (long)(want), "%ld", (long)(got), \
	       (long)(want))
#define EXPECT_NUM(f, w, got, want) \
	EXPECT(f, w, same((got), (want)), "%.9g", (double)(got), \
	       (double)(want))
#define EXPECT_STR(f, w, got, want) \
	EXPECT(f, w, !strcmp((got), (want)), "%s", (got), (want))

/* Parse a string as a whole log. */
static void
parse_text(struct logparse *lp, const char *text, struct log_result *r)
{
	logparse_buffer(lp, text, strlen(text), "test", r);
}

/* A Megatron-LM iteration line as training.py prints it. */
static void
megatron_line(struct strbuf *sb, long it, long total, double ms, double loss)
{
	strbuf_addf(sb, " [2024-04-06 02:59:36] iteration %8ld/%8ld | "
	            "consumed samples: %12ld | elapsed time per iteration "
	            "(ms): %.1f | throughput per GPU (TFLOP/s/GPU): 239.8 | "
	            "learning rate: 8.600000E-06 | global batch size:   128 | "
	            "lm loss: %.6E | loss scale: 1.0 | grad norm: 1.426 | "
	            "number of skipped iterations:   0 | number of nan "
	            "iterations:   0 |\n", it, total, it * 128, ms, loss);
}

/* A Megatron-LM record of 2020, before the global batch size was
 * printed, of a 4-step run taking 1 s. */
static void
megatron_line_no_gbs(struct strbuf *sb, long it)
{
	strbuf_addf(sb, " iteration %8ld/       4 | elapsed time per "
	            "iteration (ms): 1000.0 | learning rate: 1.5E-04 | lm "
	            "loss: 1.0E+01 | loss scale: 4294967296.0 |\n", it);
}

/* ---- the real excerpts --------------------------------------------------- */

struct real_case {
	const char *file;
	enum log_format format;
	int steps;                       /* distinct steps */
	long first_step;
	double first_time, first_loss;   /* seconds; NA when absent */
	long last_step;
	double last_time, last_loss;
	enum failure_class failure;
	long failure_line;               /* 0 for none */
	bool finished;
	long total;                      /* -1 unknown */
};

#define MEG LOG_FORMAT_MEGATRON
#define NM2 LOG_FORMAT_NEMO2
#define NM1 LOG_FORMAT_NEMO1
#define TT LOG_FORMAT_TORCHTITAN
#define UNK LOG_FORMAT_UNKNOWN
/* A file with no step. */
#define NOSTEP(fmt) fmt, 0, -1, NA, NA, -1, NA, NA

/*
 * Read off each file: the step numbers, "elapsed time per iteration (ms)"
 * / 1000, "train_step_timing in s", the lm loss / reduced_train_loss /
 * torchtitan loss of the first and last distinct steps; the line of the
 * first evidence of the class that explains the failure.
 */
static const struct real_case real_cases[] = {
	/* Megatron-LM, Megatron-DeepSpeed, Megatron-Bridge */
	{ "megatron_bridge_iter_dgxc-benchmarking_llama3.1_readme.log", MEG,
	  1, 1, 20.2891, 12.58695, 1, 20.2891, 12.58695,
	  FAILURE_NONE, 0, true, 1 },
	{ "megatron_bridge_iter_mtp_losses_issue3427.log", MEG,
	  1, 50, 9.9694, 4.791878e-03, 50, 9.9694, 4.791878e-03,
	  FAILURE_NONE, 0, true, 50 },
	/* grad norm: nan on every line, no lm loss printed. */
	{ "megatron_deepspeed_iter_gradnorm_nan_bigscience_issue396.log", MEG,
	  3, 5426, 4.2479, NA, 5428, 4.2292, NA,
	  FAILURE_NAN_LOSS, 1, false, 250000 },
	{ "megatron_deepspeed_iter_tgs_aichipbenchmark_gpt3.log", MEG,
	  6, 5, 344.6561, 11.00078, 10, 344.8357, 10.99972,
	  FAILURE_NONE, 0, true, 10 },
	{ "megatron_deepspeed_iter_validation_aichipbenchmark_gpt3.log", MEG,
	  1, 2400, 315.8799, 9.002386, 2400, 315.8799, 9.002386,
	  FAILURE_NONE, 0, false, 8247 },
	{ "megatron_iter_bert_nccl_issue743_2022.log", MEG,
	  1, 10, 0.3562, NA, 10, 0.3562, NA,
	  FAILURE_NONE, 0, false, 1000000 },
	{ "megatron_iter_epfllm-megatron-llm_issue11.log", MEG,
	  4, 122, 86.5452, 2.504220, 125, 89.0752, 2.477393,
	  FAILURE_NONE, 0, false, 250000 },
	{ "megatron_iter_first_iter_no_loss_memory_line_2024_ja_doc.log", MEG,
	  3, 10, 13.0353, NA, 30, 12.0688, 8.995420,
	  FAILURE_NONE, 0, false, 500000 },
	{ "megatron_iter_isotimestamp_tokens_aichipbenchmark_qwenvl.log", MEG,
	  5, 51, 6.0490, 1.959154, 55, 6.0980, 1.806897,
	  FAILURE_NONE, 0, false, 20000 },
	{ "megatron_iter_megatronlm_issue60_2020.log", MEG,
	  2, 5, 16.4915, NA, 10, 1.9939, NA,
	  FAILURE_NONE, 0, false, 120000 },
	{ "megatron_iter_megatronlm_issue756_mixtral_2024a.log", MEG,
	  3, 43, 5.4449, 1.825991, 45, 5.7186, 1.834162,
	  FAILURE_NONE, 0, false, 100 },
	{ "megatron_iter_megatronlm_issue756_mixtral_2024b.log", MEG,
	  3, 71, 5.3616, 1.818812, 73, 5.8299, 1.798953,
	  FAILURE_NONE, 0, false, 100 },
	{ "megatron_iter_noleadingspace_epfllm_issue33.log", MEG,
	  2, 3383, 7.6131, 0.7334521, 3384, 7.8455, 0.7072597,
	  FAILURE_NONE, 0, false, 8000 },
	{ "megatron_iter_profiler_interleaved_fork_2024_ja_doc.log", MEG,
	  1, 4, 270.1254, 2.120380, 4, 270.1254, 2.120380,
	  FAILURE_NONE, 0, false, 25000 },

	/* NeMo 2.0: step = global_step, total = last iteration + 1 */
	{ "nemo2_crash_interleaved_rank_tracebacks_nemo_resiliency_demo.log",
	  NM2, 5, 11, 7.59, 11.03, 15, 7.589, 11.03,
	  FAILURE_UNKNOWN, 61, false, 20 },
	{ "nemo2_epoch_rollover_straggler_report_max_steps_nemo_resiliency_"
	  "demo.log", NM2, 2, 18, 7.637, 11.03, 19, 7.73, 11.03,
	  FAILURE_NONE, 0, true, 20 },
	{ "nemo2_ft_launcher_failure_restart_nemo_resiliency_demo.log",
	  NOSTEP(UNK), FAILURE_EXIT_NONZERO, 7, false, -1 },
	{ "nemo2_nemo-run_prefix_training_ckpt_nemo_resiliency_demo.log",
	  NM2, 12, 0, 10.31, 11.03, 11, 7.578, 11.03,
	  FAILURE_NONE, 0, false, 20 },
	/* A fragment without its head: NeMo 2.0 by its keys, no step. */
	{ "nemo2_partial_line_dgxc-benchmarking_ft_llama3_8b.log",
	  NOSTEP(NM2), FAILURE_NONE, 0, false, -1 },
	{ "nemo2_preemption_sigterm_graceful_nemo_resiliency_demo.log",
	  NM2, 3, 0, 10.43, 11.03, 2, 7.599, 11.03,
	  FAILURE_PREEMPTED, 6, false, 20 },
	{ "nemo2_resume_reordered_fields_nemo_resiliency_demo.log",
	  NM2, 10, 10, 10.26, 11.03, 19, 7.592, 11.03,
	  FAILURE_NONE, 0, true, 20 },
	/* The detector's stop, then torchrun's exit codes. */
	{ "nemo2_straggler_detection_terminate_childfailederror_nemo_"
	  "resiliency_demo.log", NM2, 6, 10, 7.599, 11.03, 15, 7.611, 11.03,
	  FAILURE_STRAGGLER, 31, false, 20 },
	{ "nemo2_train_step_timing_bionemo-recipes_pr740.log", NM2,
	  6, 120, 0.03146, 1.233, 125, 0.03147, 1.34,
	  FAILURE_NONE, 0, false, 150 },
	{ "nemo2_train_step_timing_dgxc-benchmarking_llama3.1_readme.log",
	  NM2, 1, 49, 12.39, 11.96, 49, 12.39, 11.96,
	  FAILURE_NONE, 0, true, 50 },
	{ "nemo2_train_step_timing_dgxc-benchmarking_nemotron_readme.log",
	  NM2, 1, 49, 2.693, 12.81, 49, 2.693, 12.81,
	  FAILURE_NONE, 0, true, 50 },
	{ "nemo2_train_step_timing_esm2_bionemo_aws_hyperpod_readme.log", NM2,
	  7, 28, 0.189, 2.778, 34, 0.1902, 2.788,
	  FAILURE_NONE, 0, false, 100 },
	{ "nemo2_train_step_timing_nemo-run_prefix_nemo-ai-workflow_readme.log",
	  NM2, 2, 0, 5.276, 14.66, 1, 2.008, 15.07,
	  FAILURE_NONE, 0, false, 100 },
	{ "nemo2_train_step_timing_nemo_diffusion_readme_dedented.log", NM2,
	  16, 0, 4.022, 0.5288, 15, 0.4301, 0.3763,
	  FAILURE_NONE, 0, false, 50000000 },
	{ "nemo2_train_step_timing_nemo_issue14850.log", NM2,
	  1, 400, 24.43, 4.625, 400, 24.43, 4.625,
	  FAILURE_NONE, 0, false, 1000 },
	{ "nemo2_train_step_timing_tokens_per_sec_aichipbenchmark_llama3.log",
	  NM2, 3, 97, 12.22, 6.265, 99, 12.21, 6.218,
	  FAILURE_NONE, 0, true, 100 },

	/* NeMo 1.x tqdm: step = the bar's counter */
	{ "nemo1_tb_derived_ci_metrics_gpt3_126m_nemo-launcher.json",
	  NOSTEP(UNK), FAILURE_NONE, 0, false, -1 },
	{ "nemo1_tb_derived_ci_metrics_gpt3_175b_nemo-launcher.json",
	  NOSTEP(UNK), FAILURE_NONE, 0, false, -1 },
	/* Three redraws of 6024 (two behind literal "^M"): one step. */
	{ "nemo1_tqdm_carriage_return_artifacts_earlystop_elyza_ptuning_ja.log",
	  NM1, 1, 6024, 2.590, 0.0252, 6024, 2.590, 0.0252,
	  FAILURE_NONE, 0, false, 10000 },
	{ "nemo1_tqdm_carriage_return_llama2_lora_launcher_ja.log", NM1,
	  1, 2000, 68.70, 0.139, 2000, 68.70, 0.139,
	  FAILURE_NONE, 0, true, 2000 },
	{ "nemo1_tqdm_dgxc-benchmarking_grok1_314b.log", NM1,
	  1, 50, 24.00, 0.186, 50, 24.00, 0.186,
	  FAILURE_NONE, 0, true, 50 },
	{ "nemo1_tqdm_dgxc-benchmarking_llama3.1_405b.log", NM1,
	  1, 50, 12.80, 11.70, 50, 12.80, 11.70,
	  FAILURE_NONE, 0, true, 50 },
	{ "nemo1_tqdm_dgxc-benchmarking_nemo_megatron_175b.log", NM1,
	  1, 50, 5.900, 6.130, 50, 5.900, 6.130,
	  FAILURE_NONE, 0, true, 50 },
	/* No train_step_timing: a step without a step time. */
	{ "nemo1_tqdm_nemo-framework-launcher_issue55.log", NM1,
	  1, 795, NA, 3.090, 795, NA, 3.090,
	  FAILURE_NONE, 0, false, 77225 },
	{ "nemo1_tqdm_nemo_logging_multiline_gcp_a3mega_bootcamp.log", NM1,
	  1, 7, 49.50, 11.50, 7, 49.50, 11.50,
	  FAILURE_NONE, 0, false, 15 },
	{ "nemo1_tqdm_validation_overwrite_awsome-distributed-training_eks.log",
	  NM1, 1, 2000, 1.900, 2.600, 2000, 1.900, 2.600,
	  FAILURE_NONE, 0, false, 603000 },

	/* torchtitan: no step time in the log; the time stamps of two step
	 * lines over the steps between them give one (none for the first:
	 * 19:46:19,145 - 19:46:17,508 = 1.637 s; 16:04:50,821 - 16:04:49,702
	 * = 1.119 s; 10 steps in 22:32:00,846 - 22:31:46,869 = 13.977 s;
	 * 22,092 - 22,009 = 0.083 s). */
	{ "torchtitan_step_grad_norm_all_ranks_torchtitan_pr2389.log", TT,
	  2, 4, NA, 7.62585, 5, 1.637, 7.07623, FAILURE_NONE, 0, false, -1 },
	{ "torchtitan_step_padded_memory_torchtitan_pr3393.log", TT,
	  5, 14, NA, 3.24405, 18, 1.119, 3.54399, FAILURE_NONE, 0, false,
	  -1 },
	{ "torchtitan_step_rank_prefixed_torchtitan_pr1287.log", TT,
	  6, 200, NA, 6.1384, 250, 1.3977, 5.8383, FAILURE_NONE, 0, false,
	  -1 },
	{ "torchtitan_step_small_model_reloop_torchtitan_pr950.log", TT,
	  8, 22, NA, 6.2250, 29, 0.083, 6.1441, FAILURE_NONE, 0, false, -1 },

	/* CUDA out of memory in every wording */
	{ "oom_nccl_cublas_megatronlm_issue1509.log",
	  NOSTEP(UNK), FAILURE_CUDA_OOM, 1, false, -1 },
	{ "oom_nccl_warn_legacy_no_errcode_nccl_issue1235.log",
	  NOSTEP(UNK), FAILURE_CUDA_OOM, 1, false, -1 },
	{ "oom_nccl_warn_timestamped_megatron-bridge_issue771.log",
	  NOSTEP(UNK), FAILURE_CUDA_OOM, 9, false, -1 },
	{ "oom_runtimeerror_legacy_megatronlm_issue92.log",
	  NOSTEP(UNK), FAILURE_CUDA_OOM, 9, false, -1 },
	{ "oom_torch_cuda_oome_capacty_typo_wrapped_speechgpt_issue49.log",
	  NOSTEP(UNK), FAILURE_CUDA_OOM, 1, false, -1 },
	{ "oom_torch_cuda_oome_pt20_format_megatronlm_issue525.log",
	  NOSTEP(UNK), FAILURE_CUDA_OOM, 1, false, -1 },
	{ "oom_torch_megatron_slime_issue1767.log",
	  NOSTEP(UNK), FAILURE_CUDA_OOM, 7, false, -1 },
	{ "oom_torch_ranked_bionemo_evo2_h100_learning-model-of-life.log",
	  NOSTEP(UNK), FAILURE_CUDA_OOM, 1, false, -1 },
	{ "oom_torch_ranked_bionemo_evo2_h200_learning-model-of-life.log",
	  NOSTEP(UNK), FAILURE_CUDA_OOM, 1, false, -1 },

	/* GPU faults */
	{ "illegal_memory_access_megatron_codegeex_issue160.log",
	  NOSTEP(UNK), FAILURE_ILLEGAL_MEMORY_ACCESS, 13, false, -1 },
	{ "illegal_memory_access_megatron_core_miles_issue308.log",
	  NOSTEP(UNK), FAILURE_ILLEGAL_MEMORY_ACCESS, 16, false, -1 },
	/* A watchdog line that is no timeout. */
	{ "illegal_memory_access_watchdog_pytorch_issue152780.log",
	  NOSTEP(UNK), FAILURE_ILLEGAL_MEMORY_ACCESS, 1, false, -1 },

	/* NCCL watchdog timeouts */
	{ "nccl_watchdog_c10_DistBackendError_megatronlm_issue935.log",
	  NOSTEP(UNK), FAILURE_NCCL_TIMEOUT, 2, false, -1 },
	{ "nccl_watchdog_dgxc-benchmarking_grok1_readme.log",
	  NOSTEP(UNK), FAILURE_NCCL_TIMEOUT, 1, false, -1 },
	/* The watchdog glued to a NeMo 1.x bar without train_step_timing. */
	{ "nccl_watchdog_legacy_interleaved_nemo1_tqdm_pytorch_issue118369.log",
	  NM1, 1, 32040, NA, 2.590, 32040, NA, 2.590,
	  FAILURE_NCCL_TIMEOUT, 2, false, 500150 },
	{ "nccl_watchdog_rank_prefixed_llamafactory_issue7396.log",
	  NOSTEP(UNK), FAILURE_NCCL_TIMEOUT, 1, false, -1 },

	/* Node failure beats the CUDA errors it caused. */
	{ "cuda_unknown_error_interleaved_terminate_node_failure_m4-logs_"
	  "tr141_nw02.log", NOSTEP(UNK), FAILURE_NODE_FAIL, 34, false, -1 },

	/* Slurm */
	{ "slurm_bus_error_cancel_hafs_issue101.log",
	  NOSTEP(UNK), FAILURE_EXIT_NONZERO, 1, false, -1 },
	{ "slurm_cancel_legacy_format_bcbio_issue741.log",
	  NOSTEP(UNK), FAILURE_CANCELLED, 1, false, -1 },
	/* "iteration:  2500/500000" is the HF m4 trainer, not Megatron. */
	{ "slurm_node_failure_after_validation_m4-logs_tr141_nw06.log",
	  NOSTEP(UNK), FAILURE_NODE_FAIL, 5, false, -1 },
	{ "slurm_oom_kill_batch_step_pybnf_issue118.log",
	  NOSTEP(UNK), FAILURE_HOST_OOM, 1, false, -1 },
	{ "slurm_oom_kill_new_format_tusas_issue149.log",
	  NOSTEP(UNK), FAILURE_HOST_OOM, 1, false, -1 },
	{ "slurm_oom_kill_old_format_hafs_issue101.log",
	  NOSTEP(UNK), FAILURE_HOST_OOM, 1, false, -1 },
	{ "slurm_oom_kill_plural_snakemake_pr371.log",
	  NOSTEP(UNK), FAILURE_HOST_OOM, 1, false, -1 },
	{ "slurm_preemption_gemmaker_pr242.log",
	  NOSTEP(UNK), FAILURE_PREEMPTED, 1, false, -1 },
	{ "slurm_preemption_interleaved_tqdm_torchrun_palmetto_chatexport.log",
	  NOSTEP(UNK), FAILURE_PREEMPTED, 1, false, -1 },
	/* NCCL's "invalid argument", then srun's exit codes. */
	{ "slurm_srun_exit_code_nccl_error_parlai_issue3084.log",
	  NOSTEP(UNK), FAILURE_NCCL_ERROR, 1, false, -1 },
	/* "[after training is done]" then the time limit: a hung exit. */
	{ "slurm_timelimit_after_training_megatron-bridge_issue1656.log",
	  NOSTEP(UNK), FAILURE_HUNG_AFTER_FINISH, 4, true, -1 },
	{ "slurm_timelimit_dgxc-benchmarking_llama4_finetune_readme.log",
	  NOSTEP(UNK), FAILURE_TIMEOUT, 2, false, -1 },
	{ "slurm_timelimit_force_terminated_desitarget_issue628.log",
	  NOSTEP(UNK), FAILURE_TIMEOUT, 3, false, -1 },
	{ "slurm_timelimit_job_and_step_zetta_issue671.log",
	  NOSTEP(UNK), FAILURE_TIMEOUT, 2, false, -1 },
	{ "slurm_timelimit_srun_label_prefix_ufs-weather-model_pr907.log",
	  NOSTEP(UNK), FAILURE_TIMEOUT, 3, false, -1 },
};

#define NREAL (sizeof(real_cases) / sizeof(real_cases[0]))

/* Read one excerpt; false (with a note) when the directory is absent. */
static bool
read_real(struct logparse *lp, const char *file, struct log_result *r)
{
	const char *dir = harness_real_logs();
	char *path;
	int rc;

	if (dir == NULL)
		return false;
	path = xasprintf("%s/%s", dir, file);
	rc = logparse_file(lp, path, r);
	CU_ASSERT_EQUAL(rc, 0);
	free(path);
	return true;
}

static void
check_real_case(struct logparse *lp, const struct real_case *c)
{
	struct log_result r;
	const struct log_step *first, *last;

	if (!read_real(lp, c->file, &r))
		return;
	EXPECT_STR(c->file, "format", log_format_name(r.format),
	           log_format_name(c->format));
	EXPECT_LONG(c->file, "steps", r.nsteps, c->steps);
	EXPECT_STR(c->file, "failure", failure_class_name(r.failure),
	           failure_class_name(c->failure));
	EXPECT_LONG(c->file, "failure line", r.evidence.line, c->failure_line);
	EXPECT_LONG(c->file, "finished", r.finished, c->finished);
	EXPECT_LONG(c->file, "total steps", r.total_steps, c->total);
	if (r.nsteps > 0 && (int)r.nsteps == c->steps) {
		first = &r.steps[0];
		last = &r.steps[r.nsteps - 1];
		EXPECT_LONG(c->file, "first step", first->step, c->first_step);
		EXPECT_NUM(c->file, "first step time", first->step_time_s,
		           c->first_time);
		EXPECT_NUM(c->file, "first loss", first->loss, c->first_loss);
		EXPECT_LONG(c->file, "last step", last->step, c->last_step);
		EXPECT_NUM(c->file, "last step time", last->step_time_s,
		           c->last_time);
		EXPECT_NUM(c->file, "last loss", last->loss, c->last_loss);
	}
	log_result_release(&r);
}

static void
test_real_excerpts(void)
{
	struct logparse lp;

	if (harness_real_logs() == NULL) {
		printf("\n  note: PARATUNE_REAL_LOGS unset; real excerpts "
		       "skipped\n");
		return;
	}
	logparse_init(&lp);
	for (size_t i = 0; i < NREAL; i++)
		check_real_case(&lp, &real_cases[i]);
	logparse_release(&lp);
}

/* Every excerpt in the directory has a row in the table. */
static void
test_real_excerpts_all_covered(void)
{
	const char *dir = harness_real_logs();
	struct dirent *e;
	DIR *d;
	int files = 0;

	if (dir == NULL)
		return;
	d = opendir(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)) != NULL) {
		bool found = false;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "SOURCES.md"))
			continue;
		files++;
		for (size_t i = 0; i < NREAL && !found; i++)
			found = !strcmp(real_cases[i].file, e->d_name);
		if (!found)
			fprintf(stderr, "\n  %s: no row in real_cases\n",
			        e->d_name);
		CU_ASSERT(found);
	}
	closedir(d);
	CU_ASSERT_EQUAL(files, (int)NREAL);
}

/* The global batch size file logs on every step, the first on line; no
 * step left out as a ramp-up's (each excerpt logs one size). */
static void
check_real_gbs(struct logparse *lp, const char *file, long gbs, long line)
{
	struct log_result r;
	struct log_step_stats st;

	if (!read_real(lp, file, &r))
		return;
	log_result_step_stats(&r, -1, &st);
	EXPECT_LONG(file, "global batch size", st.gbs, gbs);
	EXPECT_LONG(file, "its line", st.gbs_line, line);
	EXPECT_LONG(file, "ramp-up steps", st.ramp_up, 0);
	for (size_t i = 0; i < r.nsteps; i++)
		EXPECT_LONG(file, "a step's global batch size", r.steps[i].gbs,
		            gbs);
	log_result_release(&r);
}

/* Values beyond the first and last step, read off the files. */
static void
test_real_values(void)
{
	struct logparse lp;
	struct log_result r;

	logparse_init(&lp);
	/* Megatron memory line: max allocated 75078.4326171875 MiB, max
	 * reserved 75682.0 MiB; throughput 812.5 TFLOP/s/GPU. */
	if (read_real(&lp, "megatron_iter_first_iter_no_loss_memory_line_2024_"
	              "ja_doc.log", &r)) {
		ASSERT_NEAR_REL(r.mem_max_allocated_gib,
		                75078.4326171875 / 1024, REL);
		ASSERT_NEAR_REL(r.mem_max_reserved_gib, 75682.0 / 1024, REL);
		ASSERT_NEAR_REL(r.steps[0].tflops, 812.5, REL);
		log_result_release(&r);
	}
	/* Megatron-Bridge "-gigabytes" are 1e9 bytes: 194.41 and 216.89. */
	if (read_real(&lp, "megatron_bridge_iter_dgxc-benchmarking_llama3.1_"
	              "readme.log", &r)) {
		ASSERT_NEAR_REL(r.mem_max_allocated_gib, 194.41e9 / GIB, REL);
		ASSERT_NEAR_REL(r.mem_max_reserved_gib, 216.89e9 / GIB, REL);
		ASSERT_NEAR_REL(r.mem_peak_gib, 216.89e9 / GIB, REL);
		log_result_release(&r);
	}
	/* Megatron-DeepSpeed "tokens per gpu per second (tgs): 142.612". */
	if (read_real(&lp, "megatron_deepspeed_iter_tgs_aichipbenchmark_"
	              "gpt3.log", &r)) {
		ASSERT_NEAR_REL(r.steps[0].tokens_per_s, 142.612, REL);
		ASSERT_NEAR_REL(r.steps[0].tflops, 153.38, REL);
		log_result_release(&r);
	}
	/* A patched Megatron-LM's "tokens/sec/gpu: 10839.5" beside
	 * "throughput per GPU (TFLOP/s/GPU): 513.3"; the median of the
	 * four steps after the first is halfway between 10802.9 and
	 * 10837.4. */
	if (read_real(&lp, "megatron_iter_isotimestamp_tokens_"
	              "aichipbenchmark_qwenvl.log", &r)) {
		struct log_step_stats st;

		ASSERT_NEAR_REL(r.steps[0].tokens_per_s, 10839.5, REL);
		ASSERT_NEAR_REL(r.steps[0].tflops, 513.3, REL);
		ASSERT_NEAR_REL(r.steps[4].tokens_per_s, 10752.3, REL);
		log_result_step_stats(&r, -1, &st);
		ASSERT_NEAR_REL(st.tokens_per_s_median,
		                (10802.9 + 10837.4) / 2, REL);
		log_result_release(&r);
	}
	/* The 2020 memory line, without "[Rank 0]": "after 5 iterations
	 * memory (MB) | ... | max allocated: 12606.06201171875 | ... |
	 * max reserved: 17482.0". */
	if (read_real(&lp, "megatron_iter_megatronlm_issue60_2020.log", &r)) {
		ASSERT_NEAR_REL(r.mem_max_allocated_gib,
		                12606.06201171875 / 1024, REL);
		ASSERT_NEAR_REL(r.mem_max_reserved_gib, 17482.0 / 1024, REL);
		ASSERT_NEAR_REL(r.mem_peak_gib, 17482.0 / 1024, REL);
		log_result_release(&r);
	}
	/* Megatron-DeepSpeed "TFLOPs: 78.36", no tokens/s of its own
	 * ("samples per second" is the whole job's). */
	if (read_real(&lp, "megatron_deepspeed_iter_gradnorm_nan_bigscience_"
	              "issue396.log", &r)) {
		ASSERT_NEAR_REL(r.steps[0].tflops, 78.36, REL);
		ASSERT_NEAR_REL(r.steps[2].tflops, 78.71, REL);
		CU_ASSERT(isnan(r.steps[0].tokens_per_s));
		log_result_release(&r);
	}
	/* NeMo: max_memory_reserved 57696845824 B, TFLOPS_per_GPU 92.74. */
	if (read_real(&lp, "nemo2_train_step_timing_nemo_issue14850.log", &r)) {
		ASSERT_NEAR_REL(r.mem_max_reserved_gib, 57696845824.0 / GIB,
		                REL);
		ASSERT_NEAR_REL(r.mem_max_allocated_gib, 53930270720.0 / GIB,
		                REL);
		ASSERT_NEAR_REL(r.steps[0].tflops, 92.74, REL);
		log_result_release(&r);
	}
	/* NeMo "tokens_per_sec_per_gpu: 1.073e+04". */
	if (read_real(&lp, "nemo2_train_step_timing_tokens_per_sec_"
	              "aichipbenchmark_llama3.log", &r)) {
		ASSERT_NEAR_REL(r.steps[0].tokens_per_s, 1.073e4, REL);
		log_result_release(&r);
	}
	/* peak_memory_usage: 70833405952 bytes. */
	if (read_real(&lp, "nemo2_train_step_timing_dgxc-benchmarking_llama3.1_"
	              "readme.log", &r)) {
		ASSERT_NEAR_REL(r.mem_peak_gib, 70833405952.0 / GIB, REL);
		CU_ASSERT(isnan(r.mem_max_reserved_gib));
		log_result_release(&r);
	}
	if (read_real(&lp, "nemo2_train_step_timing_dgxc-benchmarking_"
	              "nemotron_readme.log", &r)) {
		ASSERT_NEAR_REL(r.mem_peak_gib, 72972500992.0 / GIB, REL);
		ASSERT_NEAR_REL(r.steps[0].mem_gib, 72972500992.0 / GIB, REL);
		log_result_release(&r);
	}
	/* torchtitan "tps: 5,856", "memory: 49.66GiB(52.28%)", "tflops:
	 * 339.16". */
	if (read_real(&lp, "torchtitan_step_rank_prefixed_torchtitan_"
	              "pr1287.log", &r)) {
		ASSERT_NEAR_REL(r.steps[0].tokens_per_s, 5856, REL);
		ASSERT_NEAR_REL(r.steps[0].tflops, 339.16, REL);
		ASSERT_NEAR_REL(r.steps[0].mem_gib, 49.66, REL);
		ASSERT_NEAR_REL(r.mem_max_reserved_gib, 49.66, REL);
		CU_ASSERT_EQUAL(r.steps[0].line, 2);
		/* The clocked step time agrees with the logged throughput:
		 * tps x step time is one sequence of 8192 tokens a GPU. */
		ASSERT_NEAR_REL(r.steps[5].tokens_per_s *
		                r.steps[5].step_time_s, 8192, 0.02);
		CU_ASSERT_EQUAL(r.clocked_steps, 5);
		log_result_release(&r);
	}
	/* Seven ranks print step 4 (two of them with another tflops). */
	if (read_real(&lp, "torchtitan_step_grad_norm_all_ranks_torchtitan_"
	              "pr2389.log", &r)) {
		CU_ASSERT_EQUAL(r.steps[0].line, 1);
		CU_ASSERT_EQUAL(r.steps[1].line, 8);
		ASSERT_NEAR_REL(r.steps[0].tflops, 314.71, REL);
		log_result_release(&r);
	}
	/* The global batch size each format logs, as printed: Megatron-LM's
	 * "global batch size:  1024", NeMo 2.0's "global_batch_size: 512";
	 * NeMo 1.x bars and torchtitan print none. */
	check_real_gbs(&lp, "megatron_iter_epfllm-megatron-llm_issue11.log",
	               1024, 1);
	check_real_gbs(&lp, "megatron_deepspeed_iter_tgs_aichipbenchmark_"
	               "gpt3.log", 1536, 1);
	check_real_gbs(&lp, "megatron_iter_megatronlm_issue60_2020.log", 0, 0);
	check_real_gbs(&lp, "nemo2_train_step_timing_nemo_issue14850.log", 512,
	               1);
	check_real_gbs(&lp, "nemo2_resume_reordered_fields_nemo_resiliency_"
	               "demo.log", 512, 16);
	check_real_gbs(&lp, "nemo1_tqdm_dgxc-benchmarking_llama3.1_405b.log", 0,
	               0);
	check_real_gbs(&lp, "torchtitan_step_rank_prefixed_torchtitan_"
	               "pr1287.log", 0, 0);
	/* The json excerpt has no final line break. */
	if (read_real(&lp, "nemo1_tb_derived_ci_metrics_gpt3_126m_nemo-"
	              "launcher.json", &r)) {
		CU_ASSERT(r.truncated);
		CU_ASSERT_EQUAL(r.lines, 1);
		log_result_release(&r);
	}
	logparse_release(&lp);
}

/* Whether two results say the same. */
static bool
results_equal(const struct log_result *a, const struct log_result *b)
{
	if (a->nsteps != b->nsteps || a->format != b->format ||
	    a->failure != b->failure || a->evidence.line != b->evidence.line ||
	    a->finished != b->finished || a->total_steps != b->total_steps ||
	    a->lines != b->lines || a->truncated != b->truncated ||
	    a->long_lines != b->long_lines ||
	    !same(a->mem_peak_gib, b->mem_peak_gib))
		return false;
	for (size_t i = 0; i < a->nsteps; i++)
		if (a->steps[i].step != b->steps[i].step ||
		    a->steps[i].line != b->steps[i].line ||
		    !same(a->steps[i].step_time_s, b->steps[i].step_time_s) ||
		    !same(a->steps[i].loss, b->steps[i].loss))
			return false;
	return true;
}

/* Feeding one byte at a time gives what one buffer gives: no line, "^M"
 * or record is lost where a chunk ends. */
static void
test_real_excerpts_any_chunking(void)
{
	const char *dir = harness_real_logs();
	struct logparse lp;

	if (dir == NULL)
		return;
	logparse_init(&lp);
	for (size_t i = 0; i < NREAL; i++) {
		char *path = xasprintf("%s/%s", dir, real_cases[i].file);
		size_t len;
		char *text = harness_slurp(path, &len);
		struct log_result whole, bytes;
		struct log_reader *rd;

		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		logparse_buffer(&lp, text, len, path, &whole);
		rd = logparse_begin(&lp, path, &bytes);
		for (size_t k = 0; k < len; k++)
			logparse_feed(rd, text + k, 1);
		logparse_finish(rd);
		if (!results_equal(&whole, &bytes))
			fprintf(stderr, "\n  %s: differs fed byte by byte\n",
			        real_cases[i].file);
		CU_ASSERT(results_equal(&whole, &bytes));
		log_result_release(&whole);
		log_result_release(&bytes);
		free(text);
		free(path);
	}
	logparse_release(&lp);
}

/* ---- edge cases ---------------------------------------------------------- */

static void
test_empty(void)
{
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;

	logparse_init(&lp);
	logparse_buffer(&lp, "", 0, "empty", &r);
	CU_ASSERT_EQUAL(r.format, LOG_FORMAT_UNKNOWN);
	CU_ASSERT_EQUAL(r.nsteps, 0);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NONE);
	CU_ASSERT_PTR_NULL(r.evidence.text);
	CU_ASSERT_EQUAL(r.lines, 0);
	CU_ASSERT_EQUAL(r.bytes_read, 0);
	CU_ASSERT(!r.truncated);
	log_result_step_stats(&r, -1, &st);
	CU_ASSERT_EQUAL(st.measured, 0);
	CU_ASSERT(isnan(st.mean_s) && isnan(st.median_s));
	log_result_release(&r);
	logparse_release(&lp);
}

/* One step is all warm-up: nothing left to measure. */
static void
test_only_warmup(void)
{
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;
	struct strbuf sb = STRBUF_INIT;

	logparse_init(&lp);
	megatron_line(&sb, 10, 100, 4000.0, 9.5);
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL(r.nsteps, 1);
	log_result_step_stats(&r, -1, &st);
	CU_ASSERT_EQUAL(st.timed, 1);
	CU_ASSERT_EQUAL(st.skipped, 1);
	CU_ASSERT_EQUAL(st.measured, 0);
	CU_ASSERT(isnan(st.mean_s));
	/* Asking for no warm-up measures it. */
	log_result_step_stats(&r, 0, &st);
	CU_ASSERT_EQUAL(st.measured, 1);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 4.0, 1e-12);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* Tokens/s leave out the warm-up as step times do: its slow first step
 * pulled the median of a short run down. */
static void
test_tokens_warmup(void)
{
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;
	struct strbuf sb = STRBUF_INIT;
	static const double tgs[] = { 50, 140, 141 };

	logparse_init(&lp);
	for (int i = 0; i < 3; i++)
		strbuf_addf(&sb, " iteration %8d/%8d | elapsed time per "
		            "iteration (ms): 1000.0 | tokens per gpu per second "
		            "(tgs): %.1f |\n", i + 1, 3, tgs[i]);
	parse_text(&lp, sb.buf, &r);
	log_result_step_stats(&r, -1, &st);
	CU_ASSERT_EQUAL(st.skipped, 1);
	CU_ASSERT_DOUBLE_EQUAL(st.tokens_per_s_median, 140.5, 1e-9);
	log_result_step_stats(&r, 0, &st);
	CU_ASSERT_DOUBLE_EQUAL(st.tokens_per_s_median, 140.0, 1e-9);
	/* All warm-up: no step time, and no tokens/s either. */
	log_result_step_stats(&r, 3, &st);
	CU_ASSERT(isnan(st.mean_s) && isnan(st.tokens_per_s_median));
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* A Megatron-LM record of a 9-step run at global batch size gbs. */
static void
megatron_gbs_line(struct strbuf *sb, long it, double ms, int gbs)
{
	strbuf_addf(sb, " iteration %8ld/       9 | elapsed time per "
	            "iteration (ms): %.1f | global batch size: %5d | lm "
	            "loss: 1.0 |\n", it, ms, gbs);
}

/*
 * A batch-size ramp-up (Megatron-LM's --rampup-batch-size): steps 1 to
 * 3 at 64, 128 and 192 sequences take 1 s, steps 4 to 9 at 256 take 12,
 * 4, 5, 5, 5 and 6 s.  Only the last six are measured, the warm-up (one
 * step of six) taken among them: mean 25/5 = 5 s.  Counted from step 1
 * the mean was (1 + 1 + 12 + 4 + 5 + 5 + 5 + 6) / 8 = 4.875 s, too fast
 * for 256 sequences.
 */
static void
test_gbs_ramp_up(void)
{
	static const double ms[] = { 12000, 4000, 5000, 5000, 5000, 6000 };
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;
	struct steady sd;
	struct strbuf sb = STRBUF_INIT;

	logparse_init(&lp);
	for (int i = 1; i <= 3; i++)
		megatron_gbs_line(&sb, i, 1000.0, 64 * i);
	for (int i = 4; i <= 9; i++)
		megatron_gbs_line(&sb, i, ms[i - 4], 256);
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 9);
	CU_ASSERT_EQUAL(r.steps[0].gbs, 64);
	CU_ASSERT_EQUAL(r.steps[8].gbs, 256);
	log_result_step_stats(&r, -1, &st);
	CU_ASSERT_EQUAL(st.gbs, 256);
	CU_ASSERT_EQUAL(st.gbs_line, 4);
	CU_ASSERT_EQUAL(st.ramp_up, 3);
	CU_ASSERT_EQUAL(st.timed, 6);
	CU_ASSERT_EQUAL(st.skipped, 1);
	CU_ASSERT_EQUAL(st.measured, 5);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 5.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.median_s, 5.0, 1e-12);
	/* watch measures the same steps. */
	steady_check(&r, -1, 1, 0.5, &sd);
	CU_ASSERT_EQUAL(sd.measured, 5);
	CU_ASSERT_EQUAL(sd.skipped, 1);
	CU_ASSERT_DOUBLE_EQUAL(sd.mean_s, 5.0, 1e-12);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/*
 * NeMo 2.0's global_batch_size, and a file that holds two runs: the
 * first at 512 sequences (steps 0 to 4, 8 s), the second, at 256 (steps
 * 5 to 9, 4 s).  The steps of the first are not measured; a record
 * without the size among those of the last one is.
 */
static void
test_gbs_two_runs(void)
{
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;
	struct strbuf sb = STRBUF_INIT;

	logparse_init(&lp);
	for (int i = 0; i < 10; i++)
		strbuf_addf(&sb, "Training epoch 0, iteration %d/19 | lr: "
		            "1e-05 | global_batch_size: %d | global_step: %d "
		            "| reduced_train_loss: 11.0 | train_step_timing in "
		            "s: %s\n", i, i < 5 ? 512 : 256, i,
		            i < 5 ? "8.0" : "4.0");
	strbuf_addstr(&sb, "Training epoch 0, iteration 10/19 | lr: 1e-05 | "
	              "global_step: 10 | train_step_timing in s: 4.0\n");
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 11);
	CU_ASSERT_EQUAL(r.steps[0].gbs, 512);
	CU_ASSERT_EQUAL(r.steps[10].gbs, 0);
	log_result_step_stats(&r, 0, &st);
	CU_ASSERT_EQUAL(st.gbs, 256);
	CU_ASSERT_EQUAL(st.gbs_line, 6);
	CU_ASSERT_EQUAL(st.ramp_up, 5);
	CU_ASSERT_EQUAL(st.measured, 6);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 4.0, 1e-12);
	log_result_release(&r);
	/* No size logged anywhere: every step measured, as before. */
	strbuf_reset(&sb);
	for (int i = 1; i <= 4; i++)
		megatron_line_no_gbs(&sb, i);
	parse_text(&lp, sb.buf, &r);
	log_result_step_stats(&r, 0, &st);
	CU_ASSERT_EQUAL(st.gbs, 0);
	CU_ASSERT_EQUAL(st.gbs_line, 0);
	CU_ASSERT_EQUAL(st.ramp_up, 0);
	CU_ASSERT_EQUAL(st.measured, 4);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median by sorting, to check the library's selection against. */
static double
sorted_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Medians of odd and even counts of random times, with repeats. */
static void
test_median_random(void)
{
	struct logparse lp;

	logparse_init(&lp);
	for (int n = 999; n <= 1002; n++) {
		struct strbuf sb = STRBUF_INIT;
		struct log_result r;
		struct log_step_stats st;
		double *v = xcalloc((size_t)n, sizeof(*v));
		unsigned long x = (unsigned long)n;

		for (int i = 0; i < n; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			/* Tenths of a millisecond, some repeated. */
			v[i] = (double)(1000 + (x >> 33) % 3000) / 10;
			megatron_line(&sb, i + 1, n, v[i], 5.0);
		}
		parse_text(&lp, sb.buf, &r);
		log_result_step_stats(&r, 0, &st);
		CU_ASSERT_EQUAL(st.measured, n);
		/* The line prints %.1f milliseconds: the same tenths. */
		CU_ASSERT_DOUBLE_EQUAL(st.median_s,
		                       sorted_median(v, n) / 1000.0, 1e-12);
		log_result_release(&r);
		strbuf_release(&sb);
		free(v);
	}
	logparse_release(&lp);
}

/* Warm-up of 10 %, at least 1; mean, median, sample deviation. */
static void
test_step_stats(void)
{
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;
	struct strbuf sb = STRBUF_INIT;
	static const double ms[] = { 10000, 2000, 4000, 6000 };

	logparse_init(&lp);
	for (int i = 0; i < 4; i++)
		megatron_line(&sb, i + 1, 4, ms[i], 5.0);
	parse_text(&lp, sb.buf, &r);
	/* 4 timed steps: 10 % is 0, so 1 is dropped: 2, 4, 6 s remain. */
	log_result_step_stats(&r, -1, &st);
	CU_ASSERT_EQUAL(st.skipped, 1);
	CU_ASSERT_EQUAL(st.measured, 3);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 4.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.median_s, 4.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.stdev_s, 2.0, 1e-12);
	/* All four: mean 5.5, median (4 + 6) / 2. */
	log_result_step_stats(&r, 0, &st);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 5.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.median_s, 5.0, 1e-12);
	CU_ASSERT(r.finished);
	log_result_release(&r);
	/* 25 steps: 10 % is 2 (the integer part). */
	strbuf_reset(&sb);
	for (int i = 1; i <= 25; i++)
		megatron_line(&sb, i, 100, 1000.0 * i, 5.0);
	parse_text(&lp, sb.buf, &r);
	log_result_step_stats(&r, -1, &st);
	CU_ASSERT_EQUAL(st.skipped, 2);
	CU_ASSERT_EQUAL(st.measured, 23);
	/* Steps 3..25 s: mean 14. */
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 14.0, 1e-9);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* torchtitan's step times from its time stamps: a step again (another
 * rank) is passed over, a gap of ten times the step before (here a
 * checkpoint of 60 s) is left untimed, and the steps after are timed. */
static void
test_titan_clock(void)
{
	static const char text[] =
	    "[titan] 2025-12-31 23:59:58,500 - root - INFO - step:  1  "
	    "loss:  9.0  memory:  1.0GiB(1%)  tps: 100\n"
	    "[titan] 2025-12-31 23:59:59,750 - root - INFO - step:  2  "
	    "loss:  8.0  memory:  1.0GiB(1%)  tps: 100\n"
	    "[titan] 2025-12-31 23:59:59,750 - root - INFO - step:  2  "
	    "loss:  8.0  memory:  1.0GiB(1%)  tps: 100\n"
	    "[titan] 2026-01-01 00:00:01,000 - root - INFO - step:  3  "
	    "loss:  7.0  memory:  1.0GiB(1%)  tps: 100\n"
	    "[titan] 2026-01-01 00:01:01,000 - root - INFO - step:  4  "
	    "loss:  6.0  memory:  1.0GiB(1%)  tps: 100\n"
	    "[titan] 2026-01-01 00:01:02,250 - root - INFO - step:  5  "
	    "loss:  5.0  memory:  1.0GiB(1%)  tps: 100\n";
	struct logparse lp;
	struct log_result r;

	logparse_init(&lp);
	parse_text(&lp, text, &r);
	CU_ASSERT_EQUAL(r.format, LOG_FORMAT_TORCHTITAN);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 5);
	CU_ASSERT(isnan(r.steps[0].step_time_s));
	/* Across the new year: 1.25 s. */
	ASSERT_NEAR_REL(r.steps[1].step_time_s, 1.25, REL);
	ASSERT_NEAR_REL(r.steps[2].step_time_s, 1.25, REL);
	CU_ASSERT(isnan(r.steps[3].step_time_s));
	ASSERT_NEAR_REL(r.steps[4].step_time_s, 1.25, REL);
	CU_ASSERT_EQUAL(r.clocked_steps, 3);
	CU_ASSERT_EQUAL(r.clock_gaps, 1);
	log_result_release(&r);
	logparse_release(&lp);
}

/* A clock set back (or lines out of order): step 3 stamped before step
 * 2 is left untimed, counted and noted, where it went by unsaid; step 4
 * is timed from step 3's stamp. */
static void
test_titan_clock_back(void)
{
	static const char text[] =
	    "[titan] 2026-01-01 00:00:10,000 - root - INFO - step:  1  "
	    "loss:  9.0  memory:  1.0GiB(1%)  tps: 100\n"
	    "[titan] 2026-01-01 00:00:12,000 - root - INFO - step:  2  "
	    "loss:  8.0  memory:  1.0GiB(1%)  tps: 100\n"
	    "[titan] 2026-01-01 00:00:11,000 - root - INFO - step:  3  "
	    "loss:  7.0  memory:  1.0GiB(1%)  tps: 100\n"
	    "[titan] 2026-01-01 00:00:13,000 - root - INFO - step:  4  "
	    "loss:  6.0  memory:  1.0GiB(1%)  tps: 100\n";
	struct logparse lp;
	struct log_result r;
	struct strbuf notes = STRBUF_INIT;

	logparse_init(&lp);
	parse_text(&lp, text, &r);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 4);
	CU_ASSERT(isnan(r.steps[2].step_time_s));
	ASSERT_NEAR_REL(r.steps[3].step_time_s, 2.0, REL);
	CU_ASSERT_EQUAL(r.clocked_steps, 2);
	CU_ASSERT_EQUAL(r.clock_back, 1);
	log_result_notes(&r, NULL, &notes);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes.buf, "1 step line stamped no "
	                              "later than the step line before, "
	                              "left untimed (a clock set back?)"));
	strbuf_release(&notes);
	log_result_release(&r);
	logparse_release(&lp);
}

/* A torchtitan step line of rank r at ms milliseconds past 00:00:00,
 * prefixed as torchrun (fmt 0) or srun -l (fmt 1) prefixes it. */
static void
titan_rank_line(struct strbuf *sb, int fmt, int r, int step, long ms)
{
	if (fmt == 0)
		strbuf_addf(sb, "[rank%d]:", r);
	else
		strbuf_addf(sb, "%2d: ", r);
	strbuf_addf(sb, "[titan] 2025-06-16 00:%02ld:%02ld,%03ld - root - "
	            "INFO - step: %2d  loss:  6.1384  memory: 49.66GiB"
	            "(52.28%%)  tps: 5,856  tflops: 339.16  mfu: 34.29%%\n",
	            ms / 60000, ms / 1000 % 60, ms % 1000, step);
}

/*
 * Every rank prints its step lines, and a rank's output can come late
 * (each rank's pipe is flushed on its own): rank 1's step 1 after rank
 * 0's step 2.  Each step is counted once, and its time is the time
 * stamps' of one rank, the first seen: rank 1's late line (its clock
 * 0.2 s behind) was taken for a restart and its time stamp mixed with
 * rank 0's, 1.4 s where every step took 1.5 s.
 */
static void
test_titan_interleaved_ranks(void)
{
	struct logparse lp;

	logparse_init(&lp);
	for (int fmt = 0; fmt < 2; fmt++) {
		struct strbuf sb = STRBUF_INIT;
		struct log_result r;

		for (int i = 1; i <= 10; i++) {
			titan_rank_line(&sb, fmt, 0, i, 1500L * i);
			if (i > 1)
				titan_rank_line(&sb, fmt, 1, i - 1,
				                1500L * (i - 1) + 200);
		}
		parse_text(&lp, sb.buf, &r);
		CU_ASSERT_EQUAL(r.format, LOG_FORMAT_TORCHTITAN);
		CU_ASSERT_EQUAL_FATAL(r.nsteps, 10);
		CU_ASSERT(isnan(r.steps[0].step_time_s));
		for (size_t k = 1; k < 10; k++) {
			CU_ASSERT_EQUAL(r.steps[k].step, (long)k + 1);
			ASSERT_NEAR_REL(r.steps[k].step_time_s, 1.5, REL);
		}
		CU_ASSERT_EQUAL(r.clocked_steps, 9);
		log_result_release(&r);
		strbuf_release(&sb);
	}
	logparse_release(&lp);
}

/* Zero and negative step times (a clock or a logger gone wrong) are
 * counted but measure nothing: the mean, median and deviation are of
 * the others (they were 0.4 and 0 s for 9, 1, 0, 0, 0, 1 s), and absent
 * when none is left.  A zero in the warm-up is warm-up still. */
static void
test_nonpositive_step_times(void)
{
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;
	struct strbuf sb = STRBUF_INIT;
	static const double ms[] = { 9000, 1000, 0, 0, 0, 1000, -3000, 4000 };
	static const double bad_ms[] = { 9000, 0, -1000, 0, -1000, 0 };

	logparse_init(&lp);
	for (int i = 0; i < 8; i++)
		megatron_line(&sb, i + 1, 8, ms[i], 5.0);
	parse_text(&lp, sb.buf, &r);
	log_result_step_stats(&r, -1, &st);
	CU_ASSERT_EQUAL(st.timed, 8);
	CU_ASSERT_EQUAL(st.skipped, 1);
	CU_ASSERT_EQUAL(st.measured, 7);
	CU_ASSERT_EQUAL(st.nonpositive, 4);
	CU_ASSERT_EQUAL(st.counted, 3);
	/* 1, 1 and 4 s. */
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 2.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.median_s, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.stdev_s, sqrt(3.0), 1e-12);
	/* The warm-up is counted among all timed steps, in log order. */
	log_result_step_stats(&r, 3, &st);
	CU_ASSERT_EQUAL(st.nonpositive, 3);
	CU_ASSERT_EQUAL(st.counted, 2);
	CU_ASSERT_DOUBLE_EQUAL(st.median_s, 2.5, 1e-12);
	log_result_release(&r);
	/* Nothing above zero after the warm-up: no figures at all. */
	strbuf_reset(&sb);
	for (int i = 0; i < 6; i++)
		megatron_line(&sb, i + 1, 6, bad_ms[i], 5.0);
	parse_text(&lp, sb.buf, &r);
	log_result_step_stats(&r, -1, &st);
	CU_ASSERT_EQUAL(st.measured, 5);
	CU_ASSERT_EQUAL(st.nonpositive, 5);
	CU_ASSERT_EQUAL(st.counted, 0);
	CU_ASSERT(isnan(st.mean_s) && isnan(st.median_s));
	CU_ASSERT(isnan(st.stdev_s));
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* Step times no run takes (1e300 ms, twenty-three digits, -1e12 ms) are
 * left out and counted, with the line of the first; the step itself is
 * kept.  "inf" is no number to Megatron's reader: no time, not counted.
 * Below 1 us (1e-300 ms, which ranked a run the fastest) likewise; zero
 * is noted apart as a nonpositive time. */
static void
test_absurd_step_times(void)
{
	struct logparse lp;
	struct log_result r;
	struct log_step_stats st;
	struct strbuf sb = STRBUF_INIT, notes = STRBUF_INIT;
	static const char *const ms[] = { "2000.0", "1e300",
		"99999999999999999999999", "4000.0", "inf", "-1e12", "6000.0" };

	logparse_init(&lp);
	for (int i = 0; i < 7; i++)
		strbuf_addf(&sb, " iteration %8d/%8d | elapsed time per "
		            "iteration (ms): %s | lm loss: 1.0E+00 |\n",
		            i + 1, 7, ms[i]);
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL(r.nsteps, 7);
	/* "inf" (and "nan") too: a damaged time, not a missing one. */
	CU_ASSERT_EQUAL(r.bad_step_times, 4);
	CU_ASSERT_EQUAL(r.bad_step_time_line, 2);
	CU_ASSERT(isnan(r.steps[1].step_time_s));
	log_result_step_stats(&r, 0, &st);
	CU_ASSERT_EQUAL(st.measured, 3);
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s, 4.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.stdev_s, 2.0, 1e-12);
	log_result_notes(&r, NULL, &notes);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes.buf, "4 step times under 1 us "
	                              "or over 1000000 s (11 days) left "
	                              "out, the first on line 2"));
	log_result_release(&r);
	parse_text(&lp, " iteration 1/ 2 | elapsed time per iteration (ms): "
	           "nan |\nTraining epoch 0, iteration 1/2 | global_step: 2 "
	           "| train_step_timing in s: nan\n", &r);
	CU_ASSERT_EQUAL(r.bad_step_times, 2);
	log_result_release(&r);
	/* 1e-300 ms is left out too; 0.001 ms (1 us) and 0 are times. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, " iteration 1/ 3 | elapsed time per iteration "
	              "(ms): 1e-300 |\n iteration 2/ 3 | elapsed time per "
	              "iteration (ms): 0.001 |\n iteration 3/ 3 | elapsed "
	              "time per iteration (ms): 0.0 |\n");
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL(r.bad_step_times, 1);
	CU_ASSERT_EQUAL(r.bad_step_time_line, 1);
	CU_ASSERT(isnan(r.steps[0].step_time_s));
	CU_ASSERT_DOUBLE_EQUAL(r.steps[1].step_time_s, 1e-6, 1e-12);
	CU_ASSERT_EQUAL(r.steps[2].step_time_s, 0.0);
	log_result_release(&r);
	/* Eleven days is still a step time. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, " iteration 1/ 1 | elapsed time per iteration "
	              "(ms): 1000000000.0 |\n");
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL(r.bad_step_times, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].step_time_s, 1e6, 1e-6);
	log_result_release(&r);
	strbuf_release(&notes);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* Memory no GPU has (1e30 MiB, an overflow to inf, below zero) is left
 * out and counted; the believable reading of the same line is kept. */
static void
test_absurd_memory(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf notes = STRBUF_INIT;
	static const char text[] =
		" iteration 1/ 1 | elapsed time per iteration (ms): 1000.0 |\n"
		"[Rank 0] (after 1 iterations) memory (MB) | allocated: 1.0 | "
		"max allocated: 1e30 | reserved: 2.0 | max reserved: 20480.0\n"
		"[Rank 1] (after 1 iterations) memory (MB) | allocated: 1.0 | "
		"max allocated: 1e306 | reserved: 2.0 | max reserved: -5\n";

	logparse_init(&lp);
	parse_text(&lp, text, &r);
	CU_ASSERT_EQUAL(r.bad_mem_readings, 3);
	CU_ASSERT_EQUAL(r.bad_mem_line, 2);
	CU_ASSERT(isnan(r.mem_max_allocated_gib));
	CU_ASSERT_DOUBLE_EQUAL(r.mem_peak_gib, 20.0, 1e-12);
	log_result_notes(&r, NULL, &notes);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes.buf, "3 memory readings over "
	                              "100000 GiB or below zero left out, "
	                              "the first on line 2"));
	log_result_release(&r);
	strbuf_release(&notes);
	logparse_release(&lp);
}

/* The statistics themselves never overflow: the deviation of steps near
 * the largest double is finite, as their mean and median are. */
static void
test_stats_no_overflow(void)
{
	struct log_step steps[4];
	struct log_result r;
	struct log_step_stats st;
	static const double t[] = { 1e308, 1.5e308, 1.7e308, 1.7e308 };

	memset(&r, 0, sizeof(r));
	for (int i = 0; i < 4; i++) {
		memset(&steps[i], 0, sizeof(steps[i]));
		steps[i].step = i + 1;
		steps[i].step_time_s = t[i];
		steps[i].tokens_per_s = NAN;
	}
	r.steps = steps;
	r.nsteps = 4;
	log_result_step_stats(&r, 0, &st);
	CU_ASSERT(isfinite(st.mean_s) && isfinite(st.stdev_s));
	CU_ASSERT(isfinite(st.median_s));
	CU_ASSERT_DOUBLE_EQUAL(st.mean_s / 1e308, 1.475, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.median_s / 1e308, 1.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.stdev_s / 1e308, sqrt(0.3275 / 3), 1e-12);
}

static void
test_nan_from_start(void)
{
	struct logparse lp;
	struct log_result r;

	logparse_init(&lp);
	/* Megatron skips a NaN loss when it averages (it prints no lm loss)
	 * and counts the iteration instead. */
	parse_text(&lp,
	           " iteration       10/     100 | consumed samples:  1280 | "
	           "elapsed time per iteration (ms): 1500.0 | global batch "
	           "size:   128 | loss scale: 1.0 | number of skipped "
	           "iterations:   0 | number of nan iterations:  10 |\n"
	           " iteration       20/     100 | consumed samples:  2560 | "
	           "elapsed time per iteration (ms): 1400.0 | global batch "
	           "size:   128 | loss scale: 1.0 | number of skipped "
	           "iterations:   0 | number of nan iterations:  10 |\n", &r);
	CU_ASSERT_EQUAL(r.nsteps, 2);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NAN_LOSS);
	CU_ASSERT_EQUAL(r.evidence.line, 1);
	CU_ASSERT(isnan(r.steps[0].loss));
	CU_ASSERT_DOUBLE_EQUAL(r.steps[1].step_time_s, 1.4, 1e-12);
	log_result_release(&r);
	/* NeMo prints it. */
	parse_text(&lp,
	           "Training epoch 0, iteration 0/9 | lr: 1e-05 | global_step: "
	           "0 | reduced_train_loss: nan | train_step_timing in s: 3.1\n"
	           "Training epoch 0, iteration 1/9 | lr: 1e-05 | global_step: "
	           "1 | reduced_train_loss: nan | train_step_timing in s: "
	           "2.9\n",
	           &r);
	CU_ASSERT_EQUAL(r.format, LOG_FORMAT_NEMO2);
	CU_ASSERT_EQUAL(r.nsteps, 2);
	CU_ASSERT(r.nan_seen);
	CU_ASSERT(isnan(r.steps[0].loss));
	CU_ASSERT_DOUBLE_EQUAL(r.steps[1].step_time_s, 2.9, 1e-12);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NAN_LOSS);
	CU_ASSERT_EQUAL(r.evidence.line, 1);
	log_result_release(&r);
	/* A clean Megatron line: "number of nan iterations:   0". */
	{
		struct strbuf sb = STRBUF_INIT;

		megatron_line(&sb, 1, 2, 1000, 3.0);
		parse_text(&lp, sb.buf, &r);
		CU_ASSERT_EQUAL(r.failure, FAILURE_NONE);
		CU_ASSERT(!r.nan_seen);
		log_result_release(&r);
		strbuf_release(&sb);
	}
	logparse_release(&lp);
}

/* The steps read from len bytes of text. */
static size_t
steps_read(struct logparse *lp, const char *text, size_t len)
{
	struct log_result r;
	size_t n;

	logparse_buffer(lp, text, len, "glued", &r);
	n = r.nsteps;
	log_result_release(&r);
	return n;
}

/* Record i of a Megatron-LM (h 0) or NeMo 2.0 log, on its own line. */
static void
glued_record(struct strbuf *sb, size_t h, int i)
{
	if (h == 0)
		strbuf_addf(sb, " iteration %8d/  100000 | elapsed time per "
		            "iteration (ms): 1234.5 | lm loss: 2.5E+00 |\n", i);
	else
		strbuf_addf(sb, "Training epoch 0, iteration %d/99999 | "
		            "global_step: %d | reduced_train_loss: 2.1 | "
		            "train_step_timing in s: 1.5 |\n", i, i);
}

/*
 * Records glued on long lines (no line break between them) are all
 * read, as many as one a line.  (Their reading was quadratic in the
 * line; bench/bench-longlines times it.)
 */
static void
test_glued_records(void)
{
	static const char *const formats[] = { "megatron", "nemo2" };
	struct logparse lp;

	logparse_init(&lp);
	for (size_t h = 0; h < 2; h++) {
		struct strbuf sb = STRBUF_INIT;
		size_t split_steps, glued_steps;

		for (int i = 1; sb.len < 200000; i++)
			glued_record(&sb, h, i);
		split_steps = steps_read(&lp, sb.buf, sb.len);
		/* Lines of about 50 kB; the last one ends in a line break,
		 * or it would be read as cut. */
		for (size_t k = 0, from = 0; k < sb.len; k++) {
			if (sb.buf[k] != '\n')
				continue;
			if (k - from < 50000 && k + 1 < sb.len)
				sb.buf[k] = ' ';
			else
				from = k + 1;
		}
		glued_steps = steps_read(&lp, sb.buf, sb.len);
		EXPECT(formats[h], "glued steps", glued_steps == split_steps &&
		       split_steps > 1000, "%zu", glued_steps, split_steps);
		strbuf_release(&sb);
	}
	logparse_release(&lp);
}

/*
 * A long line of many "ProcessGroupNCCL" with "timed out" at its end is
 * an NCCL timeout: the words are within 1 kB of each other.  (Its scan
 * was quadratic in the line; bench/bench-longlines times it.)  Apart by
 * more than 1 kB, they are not one message.
 */
static void
test_failure_scan_long_line(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT;

	logparse_init(&lp);
	while (sb.len < 100000)
		strbuf_addstr(&sb, "ProcessGroupNCCL x ");
	strbuf_addstr(&sb, "timed out\n");
	logparse_buffer(&lp, sb.buf, sb.len, "scan", &r);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NCCL_TIMEOUT);
	log_result_release(&r);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "ProcessGroupNCCL ");
	while (sb.len < 2000)
		strbuf_addstr(&sb, "x ");
	strbuf_addstr(&sb, "timed out\n");
	logparse_buffer(&lp, sb.buf, sb.len, "scan", &r);
	CU_ASSERT_NOT_EQUAL(r.failure, FAILURE_NCCL_TIMEOUT);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* Random bytes with NULs after three good lines, two good lines after. */
static void
test_binary(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT;
	unsigned long x = 12345;
	size_t text_len;

	logparse_init(&lp);
	for (int i = 1; i <= 3; i++)
		megatron_line(&sb, i, 10, 1000.0 * i, 5.0);
	text_len = sb.len;
	strbuf_addch(&sb, '\0');
	for (int i = 0; i < 65536; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		strbuf_addch(&sb, (char)(x >> 56));
	}
	strbuf_addch(&sb, '\n');
	for (int i = 4; i <= 5; i++)
		megatron_line(&sb, i, 10, 1000.0 * i, 5.0);
	logparse_buffer(&lp, sb.buf, sb.len, "binary", &r);
	CU_ASSERT(r.nul_bytes >= 1);
	CU_ASSERT_EQUAL(r.first_nul_offset, (long long)text_len);
	CU_ASSERT_EQUAL(r.bytes_read, sb.len);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 5);
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(r.steps[i].step, i + 1);
		CU_ASSERT_DOUBLE_EQUAL(r.steps[i].step_time_s, i + 1.0, 1e-12);
	}
	CU_ASSERT_EQUAL(r.steps[2].line, 3);
	CU_ASSERT_EQUAL(r.format, LOG_FORMAT_MEGATRON);
	{
		struct strbuf notes = STRBUF_INIT;
		char *want = xasprintf("%lld NUL bytes from offset %zu "
		                       "(binary?)", r.nul_bytes, text_len);

		log_result_notes(&r, NULL, &notes);
		CU_ASSERT_PTR_NOT_NULL(strstr(notes.buf, want));
		strbuf_release(&notes);
		free(want);
	}
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/*
 * A node that crashed leaves a hole of NUL bytes in its log, with what
 * was written after it on the same "line": past 1 MiB of it the line
 * was cut and the failure lost, and under that its evidence began with
 * the hole.  A run of NULs breaks the line.
 */
static void
test_nul_hole(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT;
	const char *fail = "slurmstepd: error: *** JOB 5 ON n1 CANCELLED AT "
	                   "2026-11-25T10:05:00 DUE TO NODE FAILURE ***";

	logparse_init(&lp);
	for (int i = 1; i <= 3; i++)
		megatron_line(&sb, i, 10, 1000.0, 5.0);
	strbuf_addstr(&sb, " [2026-11-25 10:00:04] iteration        4/");
	for (int i = 0; i < 2 * 1024 * 1024; i++)
		strbuf_addch(&sb, '\0');
	strbuf_addf(&sb, "%s\n", fail);
	logparse_buffer(&lp, sb.buf, sb.len, "hole", &r);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NODE_FAIL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.evidence.text);
	CU_ASSERT_STRING_EQUAL(r.evidence.text, fail);
	CU_ASSERT_EQUAL(r.evidence.line, 4);
	CU_ASSERT_EQUAL(r.nul_bytes, 2 * 1024 * 1024);
	CU_ASSERT_EQUAL(r.nsteps, 3);
	log_result_release(&r);
	/* A record the hole cut off mid-value ("89" of "89075.2") is
	 * no step, as a cut last line is none. */
	strbuf_reset(&sb);
	for (int i = 1; i <= 3; i++)
		megatron_line(&sb, i, 10, 89000.0, 5.0);
	strbuf_addstr(&sb, " iteration        4/      10 | elapsed time per "
	              "iteration (ms): 89");
	strbuf_addchars(&sb, '\0', 4096);
	strbuf_addf(&sb, "%s\n", fail);
	logparse_buffer(&lp, sb.buf, sb.len, "cut", &r);
	CU_ASSERT_EQUAL(r.nsteps, 3);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NODE_FAIL);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* Write data to a fresh file in dir; the caller frees the path. */
static char *
write_tmp(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

/* A 10 MB line: matched on its first MiB, and the lines after it read. */
static void
test_huge_line(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT;
	char *dir = harness_tmpdir(), *path;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	logparse_init(&lp);
	/* A record at the start of the line counts; its padding does not
	 * hide the three records after it. */
	megatron_line(&sb, 1, 10, 7000.0, 5.0);
	strbuf_setlen(&sb, sb.len - 1);
	strbuf_addchars(&sb, 'x', 10 * 1000 * 1000);
	strbuf_addch(&sb, '\n');
	for (int i = 2; i <= 4; i++)
		megatron_line(&sb, i, 10, 1000.0 * i, 5.0);
	logparse_buffer(&lp, sb.buf, sb.len, "huge", &r);
	CU_ASSERT_EQUAL(r.long_lines, 1);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 4);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].step_time_s, 7.0, 1e-12);
	CU_ASSERT_EQUAL(r.steps[3].line, 4);
	CU_ASSERT_EQUAL(r.lines, 4);
	log_result_release(&r);
	/* The same through a file, read in 64 KiB chunks. */
	path = write_tmp(dir, "huge.log", sb.buf, sb.len);
	CU_ASSERT_EQUAL(logparse_file(&lp, path, &r), 0);
	CU_ASSERT_EQUAL(r.long_lines, 1);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 4);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].step_time_s, 7.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[3].step_time_s, 4.0, 1e-12);
	CU_ASSERT_EQUAL(r.steps[3].line, 4);
	CU_ASSERT_EQUAL(r.bytes_read, sb.len);
	log_result_release(&r);
	free(path);
	harness_rmtree(dir);
	free(dir);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* Reading a log's tail (status): only its last bytes, from the first
 * line that starts in them, and quietly nothing from what is no regular
 * file beneath the directory. */
static void
test_regular_tail(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT;
	char *dir = harness_tmpdir(), *path, *link;
	size_t last3 = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	logparse_init(&lp);
	for (int i = 1; i <= 10; i++) {
		if (i == 8)
			last3 = sb.len;
		megatron_line(&sb, i, 10, 1000.0 * i, 5.0);
	}
	last3 = sb.len - last3;
	path = write_tmp(dir, "a.log", sb.buf, sb.len);
	/* Five bytes into step 7's line: that line is not taken. */
	CU_ASSERT_EQUAL(logparse_regular_tail(&lp, dir, "a.log",
	                                      (long long)last3 + 5, &r), 0);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 3);
	CU_ASSERT_EQUAL(r.steps[0].step, 8);
	CU_ASSERT_EQUAL(r.last_step, 10);
	CU_ASSERT_EQUAL(r.total_steps, 10);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[2].step_time_s, 10.0, 1e-12);
	CU_ASSERT(r.bytes_read <= last3 + 5);
	log_result_release(&r);
	/* A tail longer than the file reads all of it. */
	CU_ASSERT_EQUAL(logparse_regular_tail(&lp, dir, "a.log",
	                                      (long long)sb.len * 2, &r), 0);
	CU_ASSERT_EQUAL(r.nsteps, 10);
	log_result_release(&r);
	link = xasprintf("%s/link.log", dir);
	CU_ASSERT_EQUAL_FATAL(symlink(path, link), 0);
	CU_ASSERT_EQUAL(logparse_regular_tail(&lp, dir, "link.log", 4096, &r),
	                -1);
	CU_ASSERT_EQUAL(errno, ELOOP);
	CU_ASSERT_EQUAL(r.nsteps, 0);
	log_result_release(&r);
	CU_ASSERT_EQUAL(logparse_regular_tail(&lp, dir, "none.log", 4096, &r),
	                -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	log_result_release(&r);
	free(link);
	free(path);
	harness_rmtree(dir);
	free(dir);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* A last line without its end gives no step (its value may be cut) but
 * still gives evidence. */
static void
test_truncated_last_line(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT;
	size_t last;

	logparse_init(&lp);

	for (int i = 1; i <= 3; i++)
		megatron_line(&sb, i, 10, 1234.5, 5.0);
	last = sb.len;
	megatron_line(&sb, 4, 10, 1234.5, 5.0);
	/* Cut the fourth line's "1234.5" to "12". */
	strbuf_setlen(&sb, (size_t)(strstr(sb.buf + last, "(ms): 12") -
	                            sb.buf) + 8);
	logparse_buffer(&lp, sb.buf, sb.len, "cut", &r);
	CU_ASSERT(r.truncated);
	CU_ASSERT_EQUAL(r.nsteps, 3);
	CU_ASSERT_EQUAL(r.lines, 4);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NONE);
	{
		struct strbuf notes = STRBUF_INIT;

		log_result_notes(&r, NULL, &notes);
		CU_ASSERT_STRING_EQUAL(notes.buf, "last line has no line "
		                       "break (line 4: truncated?)");
		strbuf_release(&notes);
	}
	log_result_release(&r);
	strbuf_addstr(&sb, "\nRuntimeError: CUDA out of memory. Tried to a");
	logparse_buffer(&lp, sb.buf, sb.len, "cut", &r);
	CU_ASSERT(r.truncated);
	CU_ASSERT_EQUAL(r.failure, FAILURE_CUDA_OOM);
	CU_ASSERT_EQUAL(r.evidence.line, 5);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* Steps of two formats in one file are read as one run, and the notes
 * say how many came from the format that lost. */
static void
test_mixed_formats_noted(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT, notes = STRBUF_INIT;

	logparse_init(&lp);
	for (int i = 1; i <= 3; i++)
		megatron_line(&sb, i, 10, 88000.0, 5.0);
	strbuf_addstr(&sb, "Training epoch 0, iteration 7/9 | lr: 1e-05 | "
	              "global_step: 7 | reduced_train_loss: 4.2 | "
	              "train_step_timing in s: 7.6\n");
	logparse_buffer(&lp, sb.buf, sb.len, "mixed", &r);
	CU_ASSERT_EQUAL(r.format, LOG_FORMAT_MEGATRON);
	CU_ASSERT_EQUAL(r.nsteps, 4);
	CU_ASSERT_EQUAL(r.other_format_steps, 1);
	CU_ASSERT_EQUAL(r.other_format, LOG_FORMAT_NEMO2);
	log_result_notes(&r, NULL, &notes);
	CU_ASSERT_STRING_EQUAL(notes.buf, "1 step in nemo2 records among the "
	                       "megatron ones, read as one run (two runs in "
	                       "one log?)");
	log_result_release(&r);
	/* One format alone: no note. */
	strbuf_reset(&notes);
	strbuf_setlen(&sb, 0);
	megatron_line(&sb, 1, 10, 88000.0, 5.0);
	logparse_buffer(&lp, sb.buf, sb.len, "one", &r);
	CU_ASSERT_EQUAL(r.other_format_steps, 0);
	log_result_notes(&r, NULL, &notes);
	CU_ASSERT_STRING_EQUAL(notes.buf, "");
	log_result_release(&r);
	/* One NUL byte, one line too long: each said in the singular. */
	strbuf_reset(&notes);
	strbuf_setlen(&sb, 0);
	megatron_line(&sb, 1, 10, 88000.0, 5.0);
	strbuf_addch(&sb, '\0');
	strbuf_addchars(&sb, 'x', LOGPARSE_LINE_MAX + 10);
	strbuf_addch(&sb, '\n');
	logparse_buffer(&lp, sb.buf, sb.len, "odd", &r);
	log_result_notes(&r, NULL, &notes);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes.buf, "1 NUL byte from offset"));
	CU_ASSERT_PTR_NOT_NULL(strstr(notes.buf, "; 1 line over "));
	log_result_release(&r);
	strbuf_release(&notes);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* A NeMo 1.x bar at step i of 10, then sep. */
static void
add_bar(struct strbuf *sb, int i, const char *sep)
{
	strbuf_addf(sb, "Epoch 0: : %3d%%|##  | %d/10 [00:%02d<00:10, "
	            "reduced_train_loss=%.3f, global_step=%d.0, "
	            "train_step_timing in s=%.3f]%s", i * 10, i, i,
	            10.0 - i * 0.5, i - 1, 2.0 + i / 100.0, sep);
}

/* tqdm redraws with only carriage returns, and with "^M" as text. */
static void
test_carriage_returns(void)
{
	static const char *const seps[] = { "\r", "^M", "\r\n" };
	struct logparse lp;

	logparse_init(&lp);
	for (size_t s = 0; s < 3; s++) {
		struct strbuf sb = STRBUF_INIT;
		struct log_result r;

		for (int i = 1; i <= 10; i++) {
			/* Each step drawn twice, as tqdm redraws. */
			for (int k = 0; k < 2; k++)
				add_bar(&sb, i, seps[s]);
		}
		logparse_buffer(&lp, sb.buf, sb.len, "cr", &r);
		CU_ASSERT_EQUAL(r.format, LOG_FORMAT_NEMO1);
		CU_ASSERT_EQUAL_FATAL(r.nsteps, 10);
		CU_ASSERT_EQUAL(r.steps[9].step, 10);
		CU_ASSERT_DOUBLE_EQUAL(r.steps[9].step_time_s, 2.1, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(r.steps[0].loss, 9.5, 1e-12);
		/* Line numbers count "\n" only. */
		CU_ASSERT_EQUAL(r.steps[9].line, s == 2 ? 19 : 1);
		CU_ASSERT(r.finished);
		CU_ASSERT_EQUAL(r.total_steps, 10);
		CU_ASSERT(!r.truncated);
		log_result_release(&r);
		strbuf_release(&sb);
	}
	logparse_release(&lp);
}

/* A bar of NeMo 1.x's CustomProgressBar (nlp_overrides.py): "Epoch E",
 * the optimizer steps of that epoch over max_steps, then the postfix. */
static void
add_epoch_bar(struct strbuf *sb, int epoch, int i, int max_steps,
              double step_s)
{
	strbuf_addf(sb, "Epoch %d: : %3d%%|##  | %d/%d [00:%02d<00:10, "
	            "reduced_train_loss=2.000, train_step_timing in s=%.3f]"
	            "\r", epoch, 100 * i / max_steps, i, max_steps, i % 60,
	            step_s);
}

/*
 * NeMo 1.x's bar counts the steps of its epoch: the counter starts again
 * at every epoch (CustomProgressBar.get_current_epoch_step), and over the
 * total (max_steps) a run of several epochs never reaches 100 % within
 * one.  Epoch 1's steps were read as epoch 0's again and dropped: an
 * epoch starts where the one before it ended.  A restart that shows an
 * epoch again repeats its steps, which are kept as first seen.
 */
static void
test_nemo1_epochs(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT;

	logparse_init(&lp);
	/* Three epochs of 4 steps (drawn twice each), max_steps 12. */
	for (int e = 0; e < 3; e++) {
		for (int i = 1; i <= 4; i++) {
			add_epoch_bar(&sb, e, i, 12, 1.0 + e);
			add_epoch_bar(&sb, e, i, 12, 1.0 + e);
		}
		strbuf_addstr(&sb, "\n");
	}
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL(r.format, LOG_FORMAT_NEMO1);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 12);
	for (size_t k = 0; k < 12; k++) {
		CU_ASSERT_EQUAL(r.steps[k].step, (long)k + 1);
		CU_ASSERT_DOUBLE_EQUAL(r.steps[k].step_time_s,
		                       1.0 + (double)(k / 4), 1e-12);
		CU_ASSERT_EQUAL(r.steps[k].line, (long)(k / 4) + 1);
	}
	CU_ASSERT_EQUAL(r.total_steps, 12);
	CU_ASSERT(r.finished);
	log_result_release(&r);
	/* Stopped in epoch 1, restarted from its checkpoint at step 2 of
	 * it: steps 6 and 7 come again, and 8 is new. */
	strbuf_reset(&sb);
	for (int i = 1; i <= 4; i++)
		add_epoch_bar(&sb, 0, i, 12, 1.0);
	for (int i = 1; i <= 3; i++)
		add_epoch_bar(&sb, 1, i, 12, 2.0);
	strbuf_addstr(&sb, "\nRestoring states from the checkpoint\n");
	for (int i = 2; i <= 4; i++)
		add_epoch_bar(&sb, 1, i, 12, 9.0);
	strbuf_addstr(&sb, "\n");
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 8);
	CU_ASSERT_EQUAL(r.steps[6].step, 7);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[6].step_time_s, 2.0, 1e-12);
	CU_ASSERT_EQUAL(r.steps[7].step, 8);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[7].step_time_s, 9.0, 1e-12);
	CU_ASSERT(!r.finished);
	log_result_release(&r);
	/* Lightning's own bar: the batches of an epoch over the epoch's.
	 * The end of epoch 0 is no finish once epoch 1 goes past it, and
	 * an exception in epoch 1 is no teardown. */
	strbuf_reset(&sb);
	for (int e = 0; e < 2; e++)
		for (int i = 1; i <= 4; i++)
			strbuf_addf(&sb, "Epoch %d:  %d%%|#  | %d/4 "
			            "[00:01<00:01, 1.00it/s, loss=2.0]\n", e,
			            25 * i, i);
	strbuf_addstr(&sb, "RuntimeError: bad batch\n");
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL(r.nsteps, 8);
	CU_ASSERT(!r.finished);
	CU_ASSERT_EQUAL(r.failure, FAILURE_UNKNOWN);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/*
 * NeMo 2.0's iteration restarts at every epoch and its total is the
 * run's (max_steps - 1, 0-based): a run of several epochs ends at an
 * iteration under it, at the global step that is its total ("Training
 * epoch 1, iteration 0/19 | ... global_step: 19" in the resiliency demo,
 * max_steps 20).  It was not seen finished, and an exception of its
 * teardown was its failure.
 */
static void
test_nemo2_epochs(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT;

	logparse_init(&lp);
	for (int g = 0; g < 10; g++)
		strbuf_addf(&sb, "Training epoch %d, iteration %d/9 | "
		            "global_step: %d | reduced_train_loss: 3.5 | "
		            "train_step_timing in s: 1.5\n", g / 6, g % 6, g);
	strbuf_addstr(&sb, "AttributeError: 'NoneType' object has no "
	              "attribute 'python_exit_status'\n");
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL(r.nsteps, 10);
	CU_ASSERT_EQUAL(r.total_steps, 10);
	CU_ASSERT(r.finished);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NONE);
	log_result_release(&r);
	/* Where "/9" was an epoch's last iteration, the next epoch's
	 * global steps go past it: the run had not finished, and what
	 * ended it counts. */
	strbuf_reset(&sb);
	for (int g = 0; g < 14; g++)
		strbuf_addf(&sb, "Training epoch %d, iteration %d/9 | "
		            "global_step: %d | reduced_train_loss: 3.5 | "
		            "train_step_timing in s: 1.5\n", g / 10, g % 10,
		            g);
	strbuf_addstr(&sb, "RuntimeError: DataLoader worker (pid 4242) "
	              "exited unexpectedly\n");
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL(r.nsteps, 14);
	CU_ASSERT_FALSE(r.finished);
	/* Nor is that epoch's total the run's: watch ended a run at it. */
	CU_ASSERT_EQUAL(r.total_steps, -1);
	CU_ASSERT_EQUAL(r.failure, FAILURE_UNKNOWN);
	CU_ASSERT_EQUAL(r.evidence.line, 15);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* A NeMo 2.0 record ends at the line break: a "^M" or "\r" left in the
 * line would make "1.5^M" no number.  Fed whole and byte by byte, so a
 * "^M" cut between two chunks is seen too. */
static void
test_carriage_returns_nemo2(void)
{
	static const char *const seps[] = { "\r", "^M" };
	struct logparse lp;

	logparse_init(&lp);
	for (size_t s = 0; s < 2; s++) {
		struct strbuf sb = STRBUF_INIT;

		for (int i = 0; i < 5; i++)
			strbuf_addf(&sb, "Training epoch 0, iteration %d/4 "
			            "| global_step: %d | reduced_train_loss: "
			            "3.5 | train_step_timing in s: 1.%d%s", i,
			            i, i + 1, seps[s]);
		for (int whole = 0; whole < 2; whole++) {
			struct log_result r;

			if (whole) {
				logparse_buffer(&lp, sb.buf, sb.len, "cr", &r);
			} else {
				struct log_reader *rd =
					logparse_begin(&lp, "cr", &r);

				for (size_t k = 0; k < sb.len; k++)
					logparse_feed(rd, sb.buf + k, 1);
				logparse_finish(rd);
			}
			CU_ASSERT_EQUAL_FATAL(r.nsteps, 5);
			for (int i = 0; i < 5; i++)
				CU_ASSERT_DOUBLE_EQUAL(r.steps[i].step_time_s,
				                       1.0 + (i + 1) / 10.0,
				                       1e-12);
			CU_ASSERT(r.finished);
			log_result_release(&r);
		}
		strbuf_release(&sb);
	}
	logparse_release(&lp);
}

/* Several records, and failures, on one physical line. */
static void
test_glued(void)
{
	struct logparse lp;
	struct log_result r;
	struct strbuf sb = STRBUF_INIT;

	logparse_init(&lp);
	megatron_line(&sb, 1, 10, 1000, 5.0);
	strbuf_setlen(&sb, sb.len - 1);
	megatron_line(&sb, 2, 10, 2000, 4.0);
	strbuf_setlen(&sb, sb.len - 1);
	strbuf_addstr(&sb, "RuntimeError: CUDA out of memory. Tried to "
	              "allocate 2.00 GiB\n");
	parse_text(&lp, sb.buf, &r);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 2);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].step_time_s, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[1].step_time_s, 2.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[1].loss, 4.0, 1e-12);
	CU_ASSERT_EQUAL(r.failure, FAILURE_CUDA_OOM);
	CU_ASSERT_EQUAL(r.evidence.line, 1);
	log_result_release(&r);
	/* Two NeMo 2.0 records and a NeMo log line. */
	parse_text(&lp, "[NeMo I 2024-01-01 00:00:00 x:1] hi Training epoch 0, "
	           "iteration 3/9 | global_step: 3 | reduced_train_loss: 2.5 | "
	           "train_step_timing in s: 1.5Training epoch 0, iteration 4/9 "
	           "| global_step: 4 | reduced_train_loss: 2.4 | "
	           "train_step_timing in s: 1.25\n", &r);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 2);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].step_time_s, 1.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[1].step_time_s, 1.25, 1e-12);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NONE);
	log_result_release(&r);
	/* Two ranks' memory reports on one line: the higher peak. */
	parse_text(&lp, "[Rank 1] (after 10 iterations) memory (GB) | "
	           "mem-max-allocated-gigabytes: 150.5 | "
	           "mem-max-reserved-gigabytes: 200.2 | mem-allocated-count: "
	           "507[Rank 3] (after 10 iterations) memory (GB) | "
	           "mem-max-allocated-gigabytes: 120.5 | "
	           "mem-max-reserved-gigabytes: 160.24 | "
	           "mem-allocated-count: 9\n", &r);
	CU_ASSERT_DOUBLE_EQUAL(r.mem_max_reserved_gib, 200.2e9 / GIB, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.mem_max_allocated_gib, 150.5e9 / GIB, 1e-9);
	log_result_release(&r);
	/* In MiB, the peak glued to the next rank's report is read too. */
	parse_text(&lp, "[Rank 0] (after 10 iterations) memory (MB) | "
	           "allocated: 1000.0 | max allocated: 80000.0 | reserved: "
	           "85000.0 | max reserved: 90000.0[Rank 1] (after 10 "
	           "iterations) memory (MB) | allocated: 1000.0 | max "
	           "allocated: 3000.0 | reserved: 3500.0 | max reserved: "
	           "4000.0\n", &r);
	CU_ASSERT_DOUBLE_EQUAL(r.mem_max_reserved_gib, 90000.0 / 1024, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.mem_max_allocated_gib, 80000.0 / 1024, 1e-9);
	log_result_release(&r);
	strbuf_release(&sb);
	logparse_release(&lp);
}

/* The first complete record of a step is kept. */
static void
test_dedupe(void)
{
	struct logparse lp;
	struct log_result r;

	logparse_init(&lp);
	/* A bar without a step time, then one with it, then another rank's
	 * copy: the first complete one wins. */
	parse_text(&lp,
	           "Epoch 0: :  50%|#  | 5/10 [00:05<00:05, "
	           "reduced_train_loss=3.0]\n"
	           "Epoch 0: :  50%|#  | 5/10 [00:05<00:05, "
	           "reduced_train_loss=3.0, train_step_timing in s=1.5]\n"
	           "Epoch 0: :  50%|#  | 5/10 [00:05<00:05, "
	           "reduced_train_loss=3.0, train_step_timing in s=9.9]\n", &r);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 1);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].step_time_s, 1.5, 1e-12);
	CU_ASSERT_EQUAL(r.steps[0].line, 2);
	log_result_release(&r);
	/* A restart from a checkpoint prints steps 5..10 again: they stay
	 * as first seen, and the exception before the restart is no longer
	 * the end of the run. */
	{
		struct strbuf sb = STRBUF_INIT;

		for (int i = 1; i <= 10; i++)
			megatron_line(&sb, i, 12, 1000.0 * i, 5.0);
		strbuf_addstr(&sb, "RuntimeError: worker died\n");
		for (int i = 5; i <= 12; i++)
			megatron_line(&sb, i, 12, 99000.0, 5.0);
		parse_text(&lp, sb.buf, &r);
		CU_ASSERT_EQUAL_FATAL(r.nsteps, 12);
		CU_ASSERT_DOUBLE_EQUAL(r.steps[4].step_time_s, 5.0, 1e-12);
		CU_ASSERT_EQUAL(r.steps[4].line, 5);
		CU_ASSERT_EQUAL(r.steps[10].step, 11);
		CU_ASSERT_DOUBLE_EQUAL(r.steps[10].step_time_s, 99.0, 1e-12);
		CU_ASSERT_EQUAL(r.failure, FAILURE_NONE);
		CU_ASSERT(r.finished);
		log_result_release(&r);
		strbuf_release(&sb);
	}
	logparse_release(&lp);
}

/* torchtitan with its colours on (the default). */
static void
test_ansi_colours(void)
{
	struct logparse lp;
	struct log_result r;

	logparse_init(&lp);
	parse_text(&lp, "[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO "
	           "- \x1b[31mstep: 10  \x1b[32mloss:  9.1234  \x1b[38;2;54;"
	           "234;195mmemory: 33.24GiB(34.99%)  \x1b[34mtps: 7,123  "
	           "\x1b[36mtflops: 412.50  \x1b[35mmfu: 41.70%\x1b[39m\n"
	           "[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - "
	           "\x1b[33mvalidate step: 10  \x1b[32mloss:  8.0000\x1b[39m\n",
	           &r);
	CU_ASSERT_EQUAL(r.format, LOG_FORMAT_TORCHTITAN);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 1);
	CU_ASSERT_EQUAL(r.steps[0].step, 10);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].loss, 9.1234, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].tokens_per_s, 7123, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].tflops, 412.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].mem_gib, 33.24, 1e-9);
	CU_ASSERT(isnan(r.steps[0].step_time_s));
	log_result_release(&r);
	logparse_release(&lp);
}

/* ---- extra patterns ------------------------------------------------------ */

static void
test_user_pattern(void)
{
	struct logparse lp;
	struct log_result r;
	char err[256];

	logparse_init(&lp);
	CU_ASSERT_EQUAL(logparse_add_pattern(&lp, "mytrainer",
	                "my step (?<step>[0-9]+) took (?<step_time_ms>[0-9.]+) "
	                "ms, loss (?<loss>\\S+)", err, sizeof err), 0);
	CU_ASSERT_EQUAL(logparse_add_pattern(&lp, "grad_spikes",
	                "grad spike (?<value>[0-9.]+)", err, sizeof err), 0);
	CU_ASSERT_EQUAL(logparse_add_pattern(&lp, "nccl_timeout",
	                "NCCL.*[Tt]imeout", err, sizeof err), 0);
	parse_text(&lp, "my step 1 took 2500 ms, loss 7.5\n"
	           "grad spike 3.5\n"
	           "my step 2 took 2000.5 ms, loss 7.25\n"
	           "grad spike 12.25 and my step 3 took 1500 ms, loss 7\n"
	           "NCCL communicator: Timeout in allreduce\n", &r);
	CU_ASSERT_EQUAL_FATAL(r.nsteps, 3);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[0].step_time_s, 2.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[1].step_time_s, 2.0005, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.steps[2].loss, 7.0, 1e-12);
	CU_ASSERT_EQUAL(r.steps[2].line, 4);
	CU_ASSERT_EQUAL_FATAL(r.npatterns, 2);
	CU_ASSERT_STRING_EQUAL(r.patterns[0].name, "grad_spikes");
	CU_ASSERT_EQUAL(r.patterns[0].count, 2);
	CU_ASSERT_EQUAL(r.patterns[0].first.line, 2);
	CU_ASSERT_DOUBLE_EQUAL(r.patterns[0].last_value, 12.25, 1e-12);
	/* The last match's value group, and the whole match without a
	 * group: what results.csv shows in the pattern's column. */
	CU_ASSERT_STRING_EQUAL(r.patterns[0].last_text, "12.25");
	CU_ASSERT_EQUAL(r.patterns[1].count, 1);
	CU_ASSERT_STRING_EQUAL(r.patterns[1].last_text,
	                       "NCCL communicator: Timeout");
	CU_ASSERT_EQUAL(logparse_pattern_count(&lp), 2);
	CU_ASSERT_STRING_EQUAL(logparse_pattern_name(&lp, 1), "nccl_timeout");
	CU_ASSERT_PTR_NULL(logparse_pattern_name(&lp, 2));
	/* Named after a class: its matches are evidence of it. */
	CU_ASSERT_EQUAL(r.failure, FAILURE_NCCL_TIMEOUT);
	CU_ASSERT_EQUAL(r.evidence.line, 5);
	log_result_release(&r);
	logparse_release(&lp);
}

static void
test_bad_user_pattern(void)
{
	struct logparse lp;
	char err[256] = "";

	logparse_init(&lp);
	CU_ASSERT_EQUAL(logparse_add_pattern(&lp, "broken",
	                                     "step (?<step>[0-9]+", err,
	                                     sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "at offset 19"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "missing closing parenthesis"));
	CU_ASSERT_EQUAL(logparse_add_pattern(&lp, "", "x", err, sizeof err),
	                -1);
	CU_ASSERT_EQUAL(lp.nuser, 0);
	logparse_release(&lp);
}

/* ---- classification ------------------------------------------------------ */

struct priority_case {
	const char *text;
	enum failure_class want;
	long line;
};

static void
test_root_cause(void)
{
	static const struct priority_case cases[] = {
		/* An OOM leaves the other ranks in a collective. */
		{ "[rank1]: torch.OutOfMemoryError: CUDA out of memory.\n"
		  "[rank0]: Watchdog caught collective operation timeout: "
		  "WorkNCCL(SeqNum=5)\n", FAILURE_CUDA_OOM, 1 },
		/* A dead node makes NCCL time out before Slurm says so. */
		{ "[rank0]: Watchdog caught collective operation timeout\n"
		  "srun: error: Node failure on node7\n", FAILURE_NODE_FAIL,
		  2 },
		{ "CUDA error: an illegal memory access was encountered\n"
		  "srun: error: n1: tasks 0-7: Exited with exit code 1\n",
		  FAILURE_ILLEGAL_MEMORY_ACCESS, 1 },
		/* A GPU's hardware fails on one node: retried elsewhere. */
		{ "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the "
		  "bus.\n", FAILURE_NODE_FAIL, 1 },
		{ "NVRM: Xid (PCI:0000:3b:00): 48, pid=7, DBE (double bit "
		  "error) ECC error\n", FAILURE_NODE_FAIL, 1 },
		{ "[rank1]: RuntimeError: CUDA error: uncorrectable ECC error "
		  "encountered\n", FAILURE_NODE_FAIL, 1 },
		/* An Xid a job runs on through names no node failure. */
		{ " iteration        3/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nNVRM: Xid (PCI:0000:3b:00): 92, pid=7, "
		  "High single-bit ECC error rate\n iteration        4/     "
		  "100 | elapsed time per iteration (ms): 1000.0 |\n"
		  "torch.OutOfMemoryError: CUDA out of memory.\n",
		  FAILURE_CUDA_OOM, 4 },
		/* Nor one it ended on without another cause (45: the
		 * driver's cleanup of the killed process). */
		{ " iteration        3/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nNVRM: Xid (PCI:0000:3b:00): 63, pid=7, "
		  "Row Remapper: New row marked for remapping\n",
		  FAILURE_NONE, 0 },
		{ " iteration        3/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nNVRM: Xid (PCI:0000:3b:00): 45, pid=7, "
		  "Ch 00000010\n", FAILURE_NONE, 0 },
		/* A kernel's fault: the run's own. */
		{ "NVRM: Xid (PCI:0000:3b:00): 13, pid=7, Graphics "
		  "Exception\n", FAILURE_ILLEGAL_MEMORY_ACCESS, 1 },
		{ "NVRM: Xid (PCI:0000:3b:00): 31, pid=7, MMU Fault\n",
		  FAILURE_ILLEGAL_MEMORY_ACCESS, 1 },
		/* All steps done, then a watchdog timeout and the time
		 * limit: a rank hung at exit, the steps measured. */
		{ " iteration      100/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\n[rank3]: [Rank 3] Watchdog caught "
		  "collective operation timeout: WorkNCCL(SeqNum=9)\n"
		  "slurmstepd: error: *** STEP 1.0 ON n1 CANCELLED AT "
		  "2024-01-01T00:00:00 DUE TO TIME LIMIT ***\n",
		  FAILURE_HUNG_AFTER_FINISH, 3 },
		/* Other ranks print the last step again after the failure:
		 * training did not go on. */
		{ " iteration        5/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nValueError: shard 17 is empty\n"
		  " iteration        5/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\n", FAILURE_UNKNOWN, 2 },
		/* Preempted, requeued by Slurm, writing on in the same
		 * log, then out of memory: the last attempt's cause. */
		{ " iteration        5/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nslurmstepd: error: *** JOB 7 ON n1 "
		  "CANCELLED AT 2024-01-01T00:00:00 DUE TO PREEMPTION ***\n"
		  " iteration        6/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\ntorch.OutOfMemoryError: CUDA out of "
		  "memory.\n", FAILURE_CUDA_OOM, 4 },
		/* A restart from an earlier step: it did. */
		{ " iteration        5/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nValueError: shard 17 is empty\n"
		  " iteration        3/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\n", FAILURE_NONE, 0 },
		{ "slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT "
		  "2024-01-01T00:00:00 ***\n", FAILURE_CANCELLED, 1 },
		/* Time limit with no sign of the end: too slow. */
		{ " iteration        5/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nslurmstepd: error: *** STEP 1.0 ON n1 "
		  "CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT ***\n",
		  FAILURE_TIMEOUT, 2 },
		/* All steps done, then the time limit: hung at exit. */
		{ " iteration      100/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nslurmstepd: error: *** STEP 1.0 ON n1 "
		  "CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT ***\n",
		  FAILURE_HUNG_AFTER_FINISH, 2 },
		/* An exception training went on after is no failure. */
		{ "ModuleNotFoundError: No module named 'apex'\n"
		  " iteration        5/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\n", FAILURE_NONE, 0 },
		{ " iteration        5/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nValueError: bad batch\n", FAILURE_UNKNOWN,
		  2 },
		{ "srun: error: n1: task 3: Segmentation fault\n",
		  FAILURE_EXIT_NONZERO, 1 },
		{ "srun: error: n1: tasks 0-3: Terminated\n", FAILURE_NONE, 0 },
		{ "slurmstepd: error: Step 5.0 exceeded memory limit (9 > 8), "
		  "being killed\n", FAILURE_HOST_OOM, 1 },
		{ "slurmstepd: error: Exceeded job memory limit\n",
		  FAILURE_HOST_OOM, 1 },
		{ "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. "
		  "DefaultCPUAllocator: can't allocate memory: you tried to "
		  "allocate 8589934592 bytes. Error code 12 (Cannot allocate "
		  "memory)\n", FAILURE_HOST_OOM, 1 },
		{ "torch.distributed.DistBackendError: [3] is setting up NCCL "
		  "communicator and retrieving ncclUniqueId from [0] via c10d "
		  "key-value store by key '0', but store->get('0') got error: "
		  "Socket Timeout\n", FAILURE_NCCL_TIMEOUT, 1 },
		{ "[E ProcessGroupNCCL.cpp:1182] [Rank 0] Some NCCL operations "
		  "have failed or timed out.\n", FAILURE_NCCL_TIMEOUT, 1 },
		/* PyTorch 2.x with expandable segments, a driver call. */
		{ "[rank3]: RuntimeError: CUDA driver error: out of memory\n",
		  FAILURE_CUDA_OOM, 1 },
		/* Transformer Engine, under Megatron-LM and NeMo. */
		{ "RuntimeError: /opt/TransformerEngine/transformer_engine/"
		  "common/util/cuda_runtime.cpp:89 in function operator(): "
		  "CUDA Error: out of memory\n", FAILURE_CUDA_OOM, 1 },
		{ "Rank 3, node n1, device 3, iteration 12: Unexpected result "
		  "nan (message='loss is NaN')\n", FAILURE_NAN_LOSS, 1 },
		/* NCCL's own errors, in PyTorch 2.x's wording. */
		{ "[rank2]: torch.distributed.DistBackendError: NCCL error in: "
		  "ProcessGroupNCCL.cpp:2027, remote process exited or there "
		  "was a network error, NCCL version 2.21.5\n"
		  "srun: error: n1: tasks 0-7: Exited with exit code 1\n",
		  FAILURE_NCCL_ERROR, 1 },
		{ "ncclSystemError: System call (e.g. socket, malloc) or "
		  "external library call failed or device error.\n",
		  FAILURE_NCCL_ERROR, 1 },
		{ "[rank0]: torch.distributed.DistBackendError: [0] is setting "
		  "up NCCL communicator and retrieving ncclUniqueId from [0] "
		  "via c10d key-value store by key '0:1', but store->get"
		  "('0:1') got error: Connection reset by peer\n",
		  FAILURE_NCCL_ERROR, 1 },
		/* The watchdog's terminate names a DistBackendError, its
		 * what() the timeout: the timeout is the cause. */
		{ "terminate called after throwing an instance of "
		  "'c10::DistBackendError'\n  what():  [PG 1 Rank 7] "
		  "Process group watchdog thread terminated with exception: "
		  "[Rank 7] Watchdog caught collective operation timeout: "
		  "WorkNCCL(SeqNum=199)\n", FAILURE_NCCL_TIMEOUT, 2 },
		/* A rank timed out; the others lost it. */
		{ "[rank1]: RuntimeError: NCCL communicator was aborted on "
		  "rank 1.\n[rank0]: ncclRemoteError: A call failed possibly "
		  "due to a network error or a remote process exiting "
		  "prematurely.\n[rank3]: [Rank 3] Watchdog caught collective "
		  "operation timeout: WorkNCCL(SeqNum=5)\n",
		  FAILURE_NCCL_TIMEOUT, 3 },
		/* An allocation inside NCCL is out of memory first. */
		{ "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, "
		  "unhandled cuda error, NCCL version 2.14.3\n"
		  "ncclUnhandledCudaError: Call to CUDA function failed.\n"
		  "Last error:\nCuda failure 'out of memory'\n",
		  FAILURE_CUDA_OOM, 4 },
		/* The straggler detection stops every rank; the others then
		 * time out or exit 1. */
		{ "[NeMo E 2025-03-07 22:43:58 straggler_det_callback:239] "
		  "Detected stragglers. Terminating training...\n"
		  "[rank3]: [Rank 3] Watchdog caught collective operation "
		  "timeout: WorkNCCL(SeqNum=5)\nE0307 22:44:04.918000 192252 "
		  "api.py:862] failed (exitcode: 1) local_rank: 0\n",
		  FAILURE_STRAGGLER, 1 },
		/* Its report alone stops nothing. */
		{ "[NeMo W 2025-03-07 22:43:58 straggler_det_callback:106] "
		  "STRAGGLER DETECTION WARNING: Some GPUs have worse relative "
		  "performance. Affected ranks: {StragglerId(rank=5)}\n",
		  FAILURE_NONE, 0 },
		/* A NaN says more than the slowness it came with. */
		{ "Detected stragglers. Terminating training...\n"
		  "Rank 0: found NaN in local grad norm\n", FAILURE_NAN_LOSS,
		  2 },
		/* After the last step, an exception and an exit code are the
		 * teardown's: the run did every step. */
		{ " iteration        6/       6 | elapsed time per iteration "
		  "(ms): 1000.0 |\n[after training is done] datetime: "
		  "2024-05-01 10:01:00\ntorch.distributed.DistStoreError: "
		  "Socket Timeout\nsrun: error: n1: task 3: Exited with exit "
		  "code 1\n", FAILURE_NONE, 0 },
		{ "Training epoch 0, iteration 9/9 | global_step: 9 | "
		  "train_step_timing in s: 1.5\n`Trainer.fit` stopped: "
		  "`max_steps=10` reached.\nException ignored in: <function "
		  "_MultiProcessingDataLoaderIter.__del__>\nAttributeError: "
		  "'NoneType' object has no attribute 'python_exit_status'\n"
		  "[rank0]: ChildFailedError:\n", FAILURE_NONE, 0 },
		/* On the bar's own line, behind a carriage return. */
		{ "Epoch 0: 100%|##| 10/10 [00:10<00:00, "
		  "train_step_timing in s=1.0]\rRuntimeError: teardown\n",
		  FAILURE_NONE, 0 },
		/* A cause the log names still counts after the finish. */
		{ " iteration        6/       6 | elapsed time per iteration "
		  "(ms): 1000.0 |\ntorch.OutOfMemoryError: CUDA out of "
		  "memory.\n", FAILURE_CUDA_OOM, 2 },
		/* An exception before the marker, with no step after it,
		 * may have ended training: it counts. */
		{ " iteration        5/     100 | elapsed time per iteration "
		  "(ms): 1000.0 |\nValueError: bad batch\n[after training is "
		  "done] datetime: 2024-05-01 10:01:00\n", FAILURE_UNKNOWN,
		  2 },
		/* Not NCCL errors: the environment variable, and a word. */
		{ "TORCH_NCCL_ASYNC_ERROR_HANDLING=1 NCCL ErrorHandler\n",
		  FAILURE_NONE, 0 },
	};
	struct logparse lp;

	logparse_init(&lp);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct log_result r;

		parse_text(&lp, cases[i].text, &r);
		EXPECT_STR(cases[i].text, "class",
		           failure_class_name(r.failure),
		           failure_class_name(cases[i].want));
		EXPECT_LONG(cases[i].text, "line", r.evidence.line,
		            cases[i].line);
		log_result_release(&r);
	}
	logparse_release(&lp);
}

/* A finished run's teardown exception is no root cause, but its line
 * is kept, for the join with a FAILED state to show. */
static void
test_teardown_evidence(void)
{
	struct logparse lp;
	struct log_result r;

	logparse_init(&lp);
	parse_text(&lp, " iteration        6/       6 | elapsed time per "
	           "iteration (ms): 1000.0 |\nException ignored in: <function "
	           "_MultiProcessingDataLoaderIter.__del__>\nAttributeError: "
	           "'NoneType' object has no attribute "
	           "'python_exit_status'\n", &r);
	CU_ASSERT(r.finished);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NONE);
	CU_ASSERT_PTR_NULL(r.evidence.text);
	CU_ASSERT_EQUAL(r.seen[FAILURE_UNKNOWN].line, 3);
	CU_ASSERT_EQUAL(failure_join("FAILED", &r),
	                FAILURE_FAILED_AFTER_FINISH);
	CU_ASSERT_EQUAL(log_result_evidence(&r, FAILURE_FAILED_AFTER_FINISH),
	                &r.seen[FAILURE_UNKNOWN]);
	CU_ASSERT_EQUAL(failure_join("COMPLETED", &r), FAILURE_NONE);
	log_result_release(&r);
	logparse_release(&lp);
}

static void
test_class_names(void)
{
	enum failure_class c;

	CU_ASSERT_STRING_EQUAL(failure_class_name(FAILURE_NONE), "none");
	CU_ASSERT_STRING_EQUAL(
		failure_class_name(FAILURE_ILLEGAL_MEMORY_ACCESS),
		"illegal_memory_access");
	CU_ASSERT_STRING_EQUAL(failure_class_name(FAILURE_HUNG_AFTER_FINISH),
	                       "hung_after_finish");
	for (int i = 0; i < FAILURE_COUNT; i++) {
		CU_ASSERT_EQUAL(failure_class_parse(
			failure_class_name((enum failure_class)i), &c), 0);
		CU_ASSERT_EQUAL((int)c, i);
	}
	CU_ASSERT_EQUAL(failure_class_parse("oom", &c), -1);
	CU_ASSERT_STRING_EQUAL(log_format_name(LOG_FORMAT_NEMO1), "nemo1");
	CU_ASSERT_STRING_EQUAL(log_format_name(LOG_FORMAT_TORCHTITAN),
	                       "torchtitan");
}

struct join_case {
	const char *state;
	const char *log;      /* text of the log */
	enum failure_class want;
};

static void
test_slurm_join(void)
{
	static const char finished[] =
		" iteration      100/     100 | elapsed time per iteration "
		"(ms): 1000.0 |\n";
	static const char partial[] =
		" iteration       10/     100 | elapsed time per iteration "
		"(ms): 1000.0 |\n";
	static const char oom[] = "torch.OutOfMemoryError: CUDA out of "
		"memory.\n";
	static const struct join_case cases[] = {
		{ "OUT_OF_MEMORY", partial, FAILURE_HOST_OOM },
		{ "oom", "", FAILURE_HOST_OOM },
		{ "TIMEOUT", finished, FAILURE_HUNG_AFTER_FINISH },
		{ "TIMEOUT", partial, FAILURE_TIMEOUT },
		{ "timeout", "", FAILURE_TIMEOUT },
		{ "DEADLINE", partial, FAILURE_TIMEOUT },
		{ "TIMEOUT", oom, FAILURE_CUDA_OOM },
		{ "TIMEOUT", "RuntimeError: NCCL error in: NCCLUtils.hpp:82, "
		  "invalid argument, NCCL version 2.4.8\n",
		  FAILURE_NCCL_ERROR },
		{ "FAILED", oom, FAILURE_CUDA_OOM },
		{ "FAILED", partial, FAILURE_EXIT_NONZERO },
		/* Every step ran, then the exit code (a teardown's): the
		 * steps stand. */
		{ "FAILED", finished, FAILURE_FAILED_AFTER_FINISH },
		{ "FAILED", "KeyError: 'x'\n", FAILURE_EXIT_NONZERO },
		{ "NODE_FAIL", oom, FAILURE_NODE_FAIL },
		{ "BOOT_FAIL", "", FAILURE_NODE_FAIL },
		{ "PREEMPTED", partial, FAILURE_PREEMPTED },
		{ "CANCELLED by 1234", partial, FAILURE_CANCELLED },
		{ "CANCELLED", "slurmstepd: error: *** JOB 1 ON n CANCELLED AT "
		  "2021-06-18T13:05:36 DUE TO PREEMPTION ***\n",
		  FAILURE_PREEMPTED },
		{ "COMPLETED", finished, FAILURE_NONE },
		{ "COMPLETED", "Rank 0: found NaN in local grad norm\n",
		  FAILURE_NAN_LOSS },
		/* Exit 0 after an exception logged past the last step. */
		{ "COMPLETED", " iteration      100/     100 | elapsed time "
		  "per iteration (ms): 1000.0 |\nException ignored in: <function "
		  "_MultiProcessingDataLoaderIter.__del__>\nAttributeError: "
		  "'NoneType' object has no attribute 'python_exit_status'\n",
		  FAILURE_NONE },
		{ "completed", "wandb: ERROR Error: api key not configured\n",
		  FAILURE_NONE },
		/* A finished run whose teardown failed: Slurm saw the exit,
		 * and the steps stand. */
		{ "FAILED", " iteration      100/     100 | elapsed time per "
		  "iteration (ms): 1000.0 |\nRuntimeError: teardown\n",
		  FAILURE_FAILED_AFTER_FINISH },
		{ NULL, oom, FAILURE_CUDA_OOM },
		{ "RUNNING", partial, FAILURE_NONE },
	};
	struct logparse lp;

	logparse_init(&lp);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct log_result r;
		const char *state = cases[i].state ? cases[i].state : "(null)";

		parse_text(&lp, cases[i].log, &r);
		EXPECT_STR(state, "join",
		           failure_class_name(failure_join(cases[i].state, &r)),
		           failure_class_name(cases[i].want));
		log_result_release(&r);
	}
	CU_ASSERT_EQUAL(failure_join("TIMEOUT", NULL), FAILURE_TIMEOUT);
	CU_ASSERT_EQUAL(failure_join("COMPLETED", NULL), FAILURE_NONE);
	logparse_release(&lp);
}

/* ---- numbers ------------------------------------------------------------- */

static void
test_numbers(void)
{
	double v;
	bool special;

	CU_ASSERT(logparse_number(" 1.258695E+01 ", 14, false, &v, &special));
	CU_ASSERT_EQUAL(v, 12.58695);
	CU_ASSERT(!special);
	CU_ASSERT(logparse_number("4294967296.0", 12, false, &v, &special));
	CU_ASSERT_EQUAL(v, 4294967296.0);
	CU_ASSERT(logparse_number("1.073e+04", 9, false, &v, &special));
	CU_ASSERT_EQUAL(v, 10730.0);
	CU_ASSERT(logparse_number("2e+3", 4, false, &v, &special));
	CU_ASSERT_EQUAL(v, 2000.0);
	CU_ASSERT(logparse_number("0.000E+00", 9, false, &v, &special));
	CU_ASSERT_EQUAL(v, 0.0);
	CU_ASSERT(logparse_number("193,831", 7, true, &v, &special));
	CU_ASSERT_EQUAL(v, 193831.0);
	CU_ASSERT(!logparse_number("193,831", 7, false, &v, &special));
	CU_ASSERT(logparse_number("nan", 3, false, &v, &special));
	CU_ASSERT(isnan(v) && special);
	CU_ASSERT(logparse_number("-inf", 4, false, &v, &special));
	CU_ASSERT(isinf(v) && v < 0 && special);
	CU_ASSERT(!logparse_number("12abc", 5, false, &v, &special));
	CU_ASSERT(!logparse_number("", 0, false, &v, &special));
	/* 20 digits: off the fast path, still right. */
	CU_ASSERT(logparse_number("12345678901234567890.5", 22, false, &v,
	                          &special));
	ASSERT_NEAR_REL(v, 12345678901234567890.5, 1e-15);
	CU_ASSERT_EQUAL(logparse_number_prefix("49.66GiB(52.28%)", 16, false,
	                                       &v), 5);
	CU_ASSERT_EQUAL(v, 49.66);
}

/* ---- the files and the command ------------------------------------------- */

/* Read a missing file and a directory; both fail, both leave a result
 * to release. */
static int
read_unreadable(void *arg)
{
	const char *dir = arg;
	char *missing = xasprintf("%s/no-such.log", dir);
	struct logparse lp;
	struct log_result r;
	int fails = 0;

	logparse_init(&lp);
	fails += logparse_file(&lp, missing, &r) == -1;
	CU_ASSERT_STRING_EQUAL(r.name, missing);
	CU_ASSERT_EQUAL(r.nsteps, 0);
	CU_ASSERT_EQUAL(r.failure, FAILURE_NONE);
	log_result_release(&r);
	fails += logparse_file(&lp, dir, &r) == -1;
	log_result_release(&r);
	logparse_release(&lp);
	free(missing);
	return fails;
}

static void
test_file_errors(void)
{
	char *dir = harness_tmpdir();
	char *err;
	int fails;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	err = harness_capture_stderr(read_unreadable, dir, &fails);
	CU_ASSERT_EQUAL(fails, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "error: cannot open '"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such.log': No such file"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "it is a directory"));
	free(err);
	harness_rmtree(dir);
	free(dir);
}

struct parse_run {
	char **argv;
	int argc;
	FILE *out;
};

static int
run_parse(void *arg)
{
	struct parse_run *pr = arg;
	struct cmd_ctx ctx = { NULL, 0, FORMAT_TABLE, pr->out, "paratune", 0 };

	return cmd_parse_entry.exec(&ctx, pr->argc, pr->argv);
}

/* 'parse --format json' on a log and a missing file: both reported, the
 * exit status is 66. */
static void
test_parse_command(void)
{
	char *dir = harness_tmpdir();
	struct strbuf sb = STRBUF_INIT;
	char *log, *missing = xasprintf("%s/missing.log", dir), *out, *err;
	char *argv[8];
	struct parse_run pr;
	int ret;

	for (int i = 1; i <= 20; i++)
		megatron_line(&sb, i, 20, i == 1 ? 9000.0 : 2000.0, 5.0);
	strbuf_addstr(&sb, "slurmstepd: error: *** STEP 1.0 ON n1 CANCELLED AT "
	              "2024-01-01T00:00:00 DUE TO TIME LIMIT ***\n");
	log = write_tmp(dir, "a.log", sb.buf, sb.len);
	argv[0] = (char *)"parse";
	argv[1] = log;
	argv[2] = missing;
	argv[3] = (char *)"--format";
	argv[4] = (char *)"json";
	argv[5] = NULL;
	pr.argv = argv;
	pr.argc = 5;
	pr.out = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(pr.out);
	err = harness_capture_stderr(run_parse, &pr, &ret);
	CU_ASSERT_EQUAL(ret, EXIT_NOINPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "missing.log"));
	rewind(pr.out);
	strbuf_reset(&sb);
	{
		char buf[4096];
		size_t n;

		while ((n = fread(buf, 1, sizeof buf, pr.out)) > 0)
			strbuf_add(&sb, buf, n);
	}
	out = sb.buf;
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"format\": \"megatron\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"steps\": 20"));
	/* 20 steps: 2 dropped (10 %), 18 of 2.0 s. */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"step_time_mean_s\": 2,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"step_time_median_s\": 2,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"global_batch_size\": 128,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"class\": \"hung_after_finish\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"line\": 21"));
	/* The missing file is listed with no data. */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "missing.log"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"step_time_median_s\": null"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"global_batch_size\": null"));
	fclose(pr.out);
	free(err);
	/* No file at all is a usage error. */
	pr.argc = 1;
	pr.out = tmpfile();
	err = harness_capture_stderr(run_parse, &pr, &ret);
	CU_ASSERT_EQUAL(ret, EXIT_USAGE);
	fclose(pr.out);
	free(err);
	strbuf_release(&sb);
	harness_rmtree(dir);
	free(log);
	free(missing);
	free(dir);
}

/* Each class, seen alone, is the cause: a class without a priority
 * would come out as "none".  And the order failure.h gives holds. */
static void
test_failure_priority(void)
{
	for (int c = 1; c < FAILURE_COUNT; c++) {
		enum failure_class got = failure_pick(FAILURE_BIT(c), false);

		CU_ASSERT_EQUAL(got, (enum failure_class)c);
		if (got != (enum failure_class)c)
			fprintf(stderr, "\n%s alone picked as %s\n",
			        failure_class_name((enum failure_class)c),
			        failure_class_name(got));
		CU_ASSERT_STRING_NOT_EQUAL(failure_class_name(
		        (enum failure_class)c), "?");
	}
	CU_ASSERT_EQUAL(failure_pick(0, false), FAILURE_NONE);
	CU_ASSERT_EQUAL(failure_pick(FAILURE_BIT(FAILURE_NODE_FAIL) |
	                             FAILURE_BIT(FAILURE_CUDA_OOM), false),
	                FAILURE_NODE_FAIL);
	CU_ASSERT_EQUAL(failure_pick(FAILURE_BIT(FAILURE_CUDA_OOM) |
	                             FAILURE_BIT(FAILURE_NCCL_TIMEOUT) |
	                             FAILURE_BIT(FAILURE_UNKNOWN), false),
	                FAILURE_CUDA_OOM);
	CU_ASSERT_EQUAL(failure_pick(FAILURE_BIT(FAILURE_TIMEOUT), true),
	                FAILURE_HUNG_AFTER_FINISH);
	CU_ASSERT_EQUAL(failure_pick(FAILURE_BIT(FAILURE_TIMEOUT) |
	                             FAILURE_BIT(FAILURE_EXIT_NONZERO), false),
	                FAILURE_TIMEOUT);
}

static const struct harness_test real_tests[] = {
	{ "every excerpt: format, steps, values, failure",
	  test_real_excerpts },
	{ "every excerpt has a row", test_real_excerpts_all_covered },
	{ "memory, throughput and tokens", test_real_values },
	{ "any chunking reads the same", test_real_excerpts_any_chunking },
	{ NULL, NULL },
};

static const struct harness_test edge_tests[] = {
	{ "every failure class has a priority", test_failure_priority },
	{ "empty file", test_empty },
	{ "only warm-up steps", test_only_warmup },
	{ "tokens/s after the warm-up", test_tokens_warmup },
	{ "a batch-size ramp-up is not measured", test_gbs_ramp_up },
	{ "the steps at the last global batch size", test_gbs_two_runs },
	{ "step statistics", test_step_stats },
	{ "zero and negative step times", test_nonpositive_step_times },
	{ "torchtitan step times from time stamps", test_titan_clock },
	{ "torchtitan clock set back", test_titan_clock_back },
	{ "torchtitan ranks interleaved", test_titan_interleaved_ranks },
	{ "absurd step times left out", test_absurd_step_times },
	{ "statistics never overflow", test_stats_no_overflow },
	{ "absurd memory left out", test_absurd_memory },
	{ "median of random times", test_median_random },
	{ "NaN from the start", test_nan_from_start },
	{ "binary bytes between good lines", test_binary },
	{ "a hole of NUL bytes before the failure", test_nul_hole },
	{ "records glued on long lines", test_glued_records },
	{ "failure scan of a long line", test_failure_scan_long_line },
	{ "a 10 MB line", test_huge_line },
	{ "the tail of a log, quietly", test_regular_tail },
	{ "truncated last line", test_truncated_last_line },
	{ "two formats in one log are noted", test_mixed_formats_noted },
	{ "carriage returns and ^M", test_carriage_returns },
	{ "NeMo 1.x epochs count on", test_nemo1_epochs },
	{ "NeMo 2.0 epochs end at the last global step", test_nemo2_epochs },
	{ "carriage returns end a NeMo 2.0 record",
	  test_carriage_returns_nemo2 },
	{ "glued records", test_glued },
	{ "first complete record kept", test_dedupe },
	{ "ANSI colours", test_ansi_colours },
	{ "numbers", test_numbers },
	{ NULL, NULL },
};

static const struct harness_test pattern_tests[] = {
	{ "extra patterns", test_user_pattern },
	{ "a pattern that does not compile", test_bad_user_pattern },
	{ NULL, NULL },
};

static const struct harness_test failure_tests[] = {
	{ "root cause by priority", test_root_cause },
	{ "a finished run's teardown", test_teardown_evidence },
	{ "class and format names", test_class_names },
	{ "join with the Slurm state", test_slurm_join },
	{ NULL, NULL },
};

static const struct harness_test command_tests[] = {
	{ "files that cannot be read", test_file_errors },
	{ "parse command", test_parse_command },
	{ NULL, NULL },
};

/* ---- when the step time is known (steady.c) ------------------------------ */

/* A Megatron-LM log of n steps of total, step i taking ms(i). */
static void
steady_log(struct logparse *lp, int n, double (*ms)(int),
           struct log_result *r)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 1; i <= n; i++)
		megatron_line(&sb, i, 400, ms(i), 5.0);
	logparse_buffer(lp, sb.buf, sb.len, "steady", r);
	strbuf_release(&sb);
}

/* 3 s of warm-up, then 1000 and 1010 ms in turn. */
static double
alternating_ms(int i)
{
	return i == 1 ? 3000.0 : i % 2 ? 1010.0 : 1000.0;
}

/* 3 s of warm-up, then 2763 ms every step, as a log rounds them. */
static double
constant_ms(int i)
{
	return i == 1 ? 3000.0 : 2763.0;
}

/* A clock drifting from 1000 to 1100 ms: each step is like the last. */
static double
drifting_ms(int i)
{
	return 1000.0 + 100.0 * (i - 1) / 39.0;
}

/* alternating_ms with step 15 timed at zero, as a clock gone wrong. */
static double
zero_ms(int i)
{
	return i == 15 ? 0.0 : alternating_ms(i);
}

static void
test_steady_t95(void)
{
	CU_ASSERT_DOUBLE_EQUAL(steady_t95(1), 12.706, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(steady_t95(9.7), 2.262, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(steady_t95(29), 2.045, 1e-9);
	/* Past the table, within 0.001 of the exact quantiles. */
	CU_ASSERT_DOUBLE_EQUAL(steady_t95(30), 2.042, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(steady_t95(60), 2.000, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(steady_t95(120), 1.980, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(steady_t95(1e9), 1.960, 0.001);
	CU_ASSERT(isnan(steady_t95(0.5)));
}

static void
test_steady_rule(void)
{
	struct logparse lp;
	struct log_result r;
	struct steady s;

	logparse_init(&lp);
	/* 10 steps: one warm-up, 9 measured: under the minimum. */
	steady_log(&lp, 10, alternating_ms, &r);
	steady_check(&r, -1, 5, 0.01, &s);
	CU_ASSERT_FALSE(s.known);
	CU_ASSERT_EQUAL(s.measured, 9);
	CU_ASSERT_EQUAL(s.last_step, 10);
	log_result_release(&r);
	/* 11: 10 measured, well within 1 %. */
	steady_log(&lp, 11, alternating_ms, &r);
	steady_check(&r, -1, 5, 0.01, &s);
	CU_ASSERT_TRUE(s.known);
	CU_ASSERT_EQUAL(s.skipped, 1);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_s, 1.005, 1e-9);
	CU_ASSERT(s.half_rel < 0.005);
	/* results.min_steps above 10 waits for it. */
	steady_check(&r, -1, 12, 0.01, &s);
	CU_ASSERT_FALSE(s.known);
	/* So does a warm-up of 3 steps (results.skip_steps). */
	steady_check(&r, 3, 5, 0.01, &s);
	CU_ASSERT_FALSE(s.known);
	CU_ASSERT_EQUAL(s.measured, 8);
	log_result_release(&r);
	/* A drift: independent samples would put the mean within 0.9 %,
	 * but neighbouring steps are alike (r1 near 1) and count as far
	 * fewer: not known. */
	steady_log(&lp, 40, drifting_ms, &r);
	steady_check(&r, -1, 5, 0.01, &s);
	CU_ASSERT(s.r1 > 0.8);
	CU_ASSERT(s.n_eff < 4);
	CU_ASSERT_FALSE(s.known);
	log_result_release(&r);
	/* The same time every step: known, to within nothing (its mean's
	 * rounding had made the steps look correlated, the interval
	 * infinite). */
	steady_log(&lp, 30, constant_ms, &r);
	steady_check(&r, -1, 5, 0.01, &s);
	CU_ASSERT_TRUE(s.known);
	CU_ASSERT(s.half_rel < 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.n_eff, 27, 1e-9);
	log_result_release(&r);
	/* One step timed at zero: left out, as results' figures leave it
	 * out, and the others judged (it had ended all judging). */
	steady_log(&lp, 30, zero_ms, &r);
	steady_check(&r, -1, 5, 0.01, &s);
	CU_ASSERT_TRUE(s.known);
	CU_ASSERT_EQUAL(s.measured, 26);
	CU_ASSERT_EQUAL(s.dropped, 1);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_s, 1.005, 0.001);
	log_result_release(&r);
	logparse_release(&lp);
}

/* A fixed-seed generator (Knuth's MMIX LCG) and normal deviates from
 * it (Box-Muller): the same series on every machine. */
static double
sim_uniform(unsigned long long *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(*x >> 11) + 0.5) / 9007199254740992.0;
}

static double
sim_normal(unsigned long long *x)
{
	double u = sim_uniform(x), v = sim_uniform(x);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * Follow 200 runs of n steps whose times are 1 s times 1 + an AR(1)
 * series (coefficient rho, deviation sigma, stationary from the first
 * step) as watch does, one step at a time: *wrong the share of the
 * runs stopped whose mean was more than 1 % off the true 1 s, *median
 * the median step of the stops.  Returns the number of stops.
 */
static int
sim_stops(double rho, double sigma, int n, double *wrong, double *median)
{
	struct log_result r;
	int stops = 0, bad = 0, *at = xcalloc(200, sizeof(*at));

	memset(&r, 0, sizeof(r));
	r.steps = xcalloc((size_t)n, sizeof(*r.steps));
	for (int k = 0; k < 200; k++) {
		unsigned long long x = 12345 + 7919ull * (unsigned)k;
		double e = sigma * sim_normal(&x);
		struct steady s;

		for (int i = 0; i < n; i++) {
			r.steps[i].step = i + 1;
			r.steps[i].step_time_s = 1 + e;
			e = rho * e + sqrt(1 - rho * rho) * sigma *
			    sim_normal(&x);
		}
		for (r.nsteps = 1; r.nsteps <= (size_t)n; r.nsteps++) {
			steady_check(&r, -1, 1, 0.01, &s);
			if (s.known)
				break;
		}
		if (!s.known)
			continue;
		at[stops++] = (int)r.nsteps;
		bad += fabs(s.mean_s - 1) > 0.01;
	}
	/* The median: the least stop with more than half at or below. */
	*median = INFINITY;
	for (int i = 0; i < stops; i++) {
		int upto = 0;

		for (int j = 0; j < stops; j++)
			upto += at[j] <= at[i];
		if (upto > stops / 2 && at[i] < *median)
			*median = at[i];
	}
	*wrong = stops ? (double)bad / stops : NAN;
	free(at);
	free(r.steps);
	return stops;
}

/*
 * Step times that drift (clocks, heat, a neighbour's traffic) are an
 * AR(1) series with rho near 1.  Over 10 to 30 steps r1 came out far
 * below rho and the effective size far above the truth, and the stops
 * came early: 41 % of those at rho 0.9, sigma 2 % had a mean more than
 * 1 % off, where the interval claimed +-1 % at 95 %.
 */
static void
test_steady_drift(void)
{
	double wrong, median;

	CU_ASSERT(sim_stops(0.9, 0.02, 1500, &wrong, &median) >= 190);
	CU_ASSERT(wrong <= 0.10);
	/* Independent steps stop as early as before (median step 44). */
	CU_ASSERT(sim_stops(0, 0.03, 1500, &wrong, &median) == 200);
	CU_ASSERT(wrong <= 0.06);
	CU_ASSERT(median <= 50);
}

/* Past LOGPARSE_STEPS_MAX the records are dropped, and the last step
 * stayed at the cap's: --max-steps above it was never reached. */
static void
test_steady_capped(void)
{
	struct logparse lp;
	struct log_result r;
	struct log_reader *rd;
	struct log_step st;
	struct steady s;

	logparse_init(&lp);
	rd = logparse_begin(&lp, "capped", &r);
	memset(&st, 0, sizeof(st));
	st.step_time_s = 1.0;
	for (long i = 1; i <= LOGPARSE_STEPS_MAX + 5L; i++) {
		st.step = st.line = i;
		reader_add_step(rd, &st, LOG_FORMAT_MEGATRON);
	}
	logparse_finish(rd);
	CU_ASSERT_TRUE(r.steps_capped);
	CU_ASSERT_EQUAL(r.nsteps, LOGPARSE_STEPS_MAX);
	steady_check(&r, -1, 1, 0.01, &s);
	CU_ASSERT_EQUAL(s.last_step, LOGPARSE_STEPS_MAX + 5L);
	log_result_release(&r);
	logparse_release(&lp);
}

static const struct harness_test steady_tests[] = {
	{ "the last step past the steps kept", test_steady_capped },
	{ "Student's t quantiles", test_steady_t95 },
	{ "when the step time is known", test_steady_rule },
	{ "stops on drifting step times", test_steady_drift },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "steady", steady_tests },
	{ "real excerpts", real_tests },
	{ "edge cases", edge_tests },
	{ "extra patterns", pattern_tests },
	{ "failures", failure_tests },
	{ "command", command_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
