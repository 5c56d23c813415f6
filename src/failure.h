/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * failure.h - what ended a training run, from its log and its Slurm state.
 *
 * The log reader (logparse.c) feeds every line it does not recognise as a
 * clean step record through failure_scan_line(), which finds the evidence
 * of each failure class in one PCRE2 pass.  The reader keeps the first
 * evidence line of each class; failure_pick() then names the root cause
 * by the priority below, and failure_join() combines that with the final
 * state Slurm recorded for the job.
 *
 * Root-cause priority, highest first (a class wins over every class after
 * it, wherever the two appear in the log):
 *
 *   node_fail > preempted > cuda_oom > host_oom > illegal_memory_access >
 *   nan_loss > straggler > nccl_timeout > nccl_error >
 *   timeout | hung_after_finish | failed_after_finish > exit_nonzero >
 *   cancelled > unknown
 *
 * Why: the scheduler's events (a dead node, a preemption) kill every rank,
 * and the NCCL errors, CUDA errors and exit codes that follow are their
 * consequences; an out-of-memory error or a GPU fault on one rank leaves
 * the other ranks waiting in a collective until the NCCL watchdog fires,
 * so the watchdog timeout is a consequence too; a NaN assert on one rank
 * hangs the others the same way; NeMo's straggler detection stops every
 * rank with exit status 1 once it finds GPUs slow, and ranks that leave
 * at different times fail in their collectives, so the NCCL errors and
 * exit codes after it are its consequence, while a layout that broke (an
 * OOM, a fault, a NaN) says more than the slowness the detector saw; a
 * watchdog that times out aborts its communicator, so what was pending on
 * it fails with NCCL errors (PyTorch's DistBackendError, "NCCL
 * communicator was aborted") and the peers of the rank that died see
 * ncclRemoteError: beside a timeout an NCCL error is its consequence,
 * alone it is the cause (a bad argument, a system or network failure),
 * more telling than the exit code that follows it; a hang that reaches
 * the time limit is reported by Slurm as a time limit; srun's "Exited
 * with exit code" and slurmstepd's plain "CANCELLED" follow from every
 * failure above, so they are the root cause only when nothing more
 * specific was logged; and an exception we do not recognise is the last
 * resort.  The two "after finish" classes are failure_join()'s alone:
 * the job ended badly (its time limit, or a non-zero exit that only
 * exit_nonzero or unknown would name) after its log ran every step, so
 * the steps it measured stand.
 */
#ifndef PARATUNE_FAILURE_H
#define PARATUNE_FAILURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The names (failure_class_name) are the CSV and JSON vocabulary. */
enum failure_class {
	FAILURE_NONE,                  /* "none": a clean run */
	FAILURE_CUDA_OOM,              /* "cuda_oom" */
	FAILURE_HOST_OOM,              /* "host_oom" */
	FAILURE_TIMEOUT,               /* "timeout": too slow for its steps */
	FAILURE_HUNG_AFTER_FINISH,     /* "hung_after_finish" */
	FAILURE_FAILED_AFTER_FINISH,   /* "failed_after_finish" */
	FAILURE_NCCL_TIMEOUT,          /* "nccl_timeout" */
	FAILURE_NCCL_ERROR,            /* "nccl_error": not a timeout */
	FAILURE_ILLEGAL_MEMORY_ACCESS, /* "illegal_memory_access", Xid */
	FAILURE_NAN_LOSS,              /* "nan_loss" */
	FAILURE_STRAGGLER,             /* "straggler": slow GPUs stopped it */
	FAILURE_NODE_FAIL,             /* "node_fail" */
	FAILURE_PREEMPTED,             /* "preempted" */
	FAILURE_CANCELLED,             /* "cancelled" */
	FAILURE_EXIT_NONZERO,          /* "exit_nonzero" */
	FAILURE_UNKNOWN,               /* "unknown": failed, cause unknown */
	FAILURE_COUNT,
};

/* "cuda_oom", ...; "?" out of range. */
const char *failure_class_name(enum failure_class c);
/* Inverse of failure_class_name; 0, or -1 when s names no class. */
int failure_class_parse(const char *s, enum failure_class *out);

/* What failure_scan_line() found in one line: a bit per class. */
#define FAILURE_BIT(c) (1u << (c))
struct failure_hits {
	unsigned classes;   /* FAILURE_BIT(class) for each class seen */
	bool finished;      /* a "training is done" marker */
};

/*
 * The evidence patterns, compiled once (with JIT where PCRE2 has it) into
 * one alternation; opaque, so that PCRE2's types stay in failure.c.  Not
 * thread-safe: the match data is reused.
 */
struct failure_scan;

/* Compile the built-in patterns; a pattern that does not compile is a
 * bug in failure.c and aborts.  Free with failure_scan_free (NULL too). */
struct failure_scan *failure_scan_new(void);
void failure_scan_free(struct failure_scan *fs);
/* Add to *hits what the n bytes at s show (s need not end in NUL). */
void failure_scan_line(struct failure_scan *fs, const char *s, size_t n,
                       struct failure_hits *hits);

/*
 * The root cause among the classes in seen (a FAILURE_BIT set) by the
 * priority above; a time limit becomes hung_after_finish when finished
 * says the log shows the run did all its steps.  FAILURE_NONE for 0.
 */
enum failure_class failure_pick(unsigned seen, bool finished);

struct log_result;
/*
 * The final class of a job from the state Slurm recorded at its end
 * (sacct's names: COMPLETED, FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL,
 * PREEMPTED, CANCELLED, BOOT_FAIL, DEADLINE, case-insensitive, "CANCELLED
 * by 123" too, and the campaign's own "oom") joined with the evidence in
 * its log r (may be NULL: no log).  slurm_state NULL or unknown: the log
 * decides alone.  The rules, in the order they apply:
 *   - OUT_OF_MEMORY is host_oom: only the cgroup OOM killer sets it;
 *     NODE_FAIL and BOOT_FAIL are node_fail; PREEMPTED is preempted;
 *   - TIMEOUT and DEADLINE keep a cause the log names that outranks a
 *     time limit (cuda_oom, nccl_timeout, ...); otherwise the job is
 *     hung_after_finish when the log shows it finished its steps, else
 *     timeout;
 *   - FAILED keeps the log's class; a clean-looking or unrecognised log
 *     becomes exit_nonzero (Slurm saw the non-zero exit);
 *   - CANCELLED keeps a log class that names a cause (a preemption or a
 *     node failure Slurm reported as a cancel, an OOM before a cancel),
 *     and is cancelled otherwise;
 *   - COMPLETED keeps the log's class but unknown, which is none: an
 *     exception that ended the job would have made its exit non-zero;
 *     after the log's "training is done" marker any class is none;
 *   - RUNNING and the rest keep the log's class.
 */
enum failure_class failure_join(const char *slurm_state,
                                const struct log_result *r);

#endif
