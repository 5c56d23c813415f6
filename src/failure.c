/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * failure.c - failure evidence patterns, root-cause priority and the join
 * with Slurm's final job state.
 *
 * The wordings come from the real excerpts in shared/data/real-logs (see
 * its SOURCES.md), from Slurm's slurmstepd format strings quoted there,
 * and from Megatron-LM's own messages (megatron/core/rerun_state_machine.py
 * and param_and_grad_buffer.py @d98e8a6).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "error.h"
#include "failure.h"
#include "logparse.h"
#include "xalloc.h"

struct failure_scan {
	pcre2_code *re;
	pcre2_match_data *md;
	int nrules;
	const uint8_t *first_bytes;  /* PCRE2's start bitmap, or NULL */
	uint32_t min_length;         /* shortest match */
};

static const char *const failure_names[] = {
	[FAILURE_NONE] = "none",
	[FAILURE_CUDA_OOM] = "cuda_oom",
	[FAILURE_HOST_OOM] = "host_oom",
	[FAILURE_TIMEOUT] = "timeout",
	[FAILURE_HUNG_AFTER_FINISH] = "hung_after_finish",
	[FAILURE_FAILED_AFTER_FINISH] = "failed_after_finish",
	[FAILURE_NCCL_TIMEOUT] = "nccl_timeout",
	[FAILURE_NCCL_ERROR] = "nccl_error",
	[FAILURE_ILLEGAL_MEMORY_ACCESS] = "illegal_memory_access",
	[FAILURE_NAN_LOSS] = "nan_loss",
	[FAILURE_STRAGGLER] = "straggler",
	[FAILURE_NODE_FAIL] = "node_fail",
	[FAILURE_PREEMPTED] = "preempted",
	[FAILURE_CANCELLED] = "cancelled",
	[FAILURE_EXIT_NONZERO] = "exit_nonzero",
	[FAILURE_UNKNOWN] = "unknown",
};
_Static_assert(sizeof failure_names / sizeof failure_names[0] ==
               FAILURE_COUNT, "a name for every failure class");

/* Rules that mark the end of training rather than a failure. */
#define RULE_FINISHED FAILURE_COUNT

struct failure_rule {
	int kind;          /* enum failure_class, or RULE_FINISHED */
	const char *re;    /* PCRE2, without capturing groups */
};

/*
 * One rule per wording.  Where two rules can match at the same place the
 * earlier one is reported, so the specific rules come before the generic
 * "SomethingError: " one.  No rule starts with a digit, a space or the
 * punctuation of a time stamp (a look-behind holds what comes before the
 * first letter), so the start-byte prefilter in failure_scan_line() skips
 * the time-stamp prefixes of step records without calling PCRE2.
 */
static const struct failure_rule failure_rules[] = {
	/* PyTorch: "CUDA out of memory" in RuntimeError (<= 1.x),
	 * torch.cuda.OutOfMemoryError (2.0-2.3), torch.OutOfMemoryError
	 * (2.4+); "HIP out of memory" on ROCm. */
	{ FAILURE_CUDA_OOM, "(?:CUDA|HIP) out of memory" },
	{ FAILURE_CUDA_OOM, "OutOfMemoryError" },
	/* The runtime's cudaErrorMemoryAllocation; the driver's
	 * CUDA_ERROR_OUT_OF_MEMORY through C10_CUDA_DRIVER_CHECK, which the
	 * allocator's expandable segments (PyTorch 2.1+) raise; Transformer
	 * Engine's NVTE_CHECK_CUDA writes "CUDA Error: ". */
	{ FAILURE_CUDA_OOM, "CUDA (?:driver )?[Ee]rror: out of memory" },
	/* NCCL's alloc.h: "Cuda failure 2 'out of memory'" (older NCCL
	 * without the number), nccl issues #1235 and Megatron-LM #1509. */
	{ FAILURE_CUDA_OOM, "Cuda failure (?:[0-9]+ )?'out of memory'" },
	{ FAILURE_CUDA_OOM, "(?:CUBLAS|CUDNN)_STATUS_ALLOC_FAILED" },
	{ FAILURE_CUDA_OOM, "(?<=cuda)ErrorMemoryAllocation|"
	                    "CUDA_ERROR_OUT_OF_MEMORY" },
	/* slurmstepd: "Detected 1 oom-kill event(s)" (older Slurm),
	 * "Detected 2 oom_kill events" (21.08+), "Exceeded job memory
	 * limit", "Job 5 exceeded memory limit (9 > 8), being killed";
	 * srun: "task 4: Out Of Memory"; the kernel's own OOM killer. */
	{ FAILURE_HOST_OOM, "oom[-_]kill" },
	{ FAILURE_HOST_OOM, "(?<=: )Out Of Memory" },
	{ FAILURE_HOST_OOM, "[Ee]xceeded (?:job |step )?memory limit" },
	{ FAILURE_HOST_OOM, "Out of memory: Kill(?:ed)? process" },
	/* PyTorch's c10 alloc_cpu.cpp when malloc fails (Linux, Windows). */
	{ FAILURE_HOST_OOM, "DefaultCPUAllocator: (?:can't allocate|not "
	                    "enough) memory" },
	/* slurmstepd: "*** STEP 1.0 ON n CANCELLED AT t DUE TO TIME LIMIT". */
	{ FAILURE_TIMEOUT, "DUE TO TIME LIMIT" },
	/* PyTorch ProcessGroupNCCL watchdog, every version 1.x to 2.9. */
	{ FAILURE_NCCL_TIMEOUT, "Watchdog caught collective operation "
	                        "timeout" },
	/* The gap is bounded: failure_scan_line() restarts after each
	 * match start, and an unbounded one made a line of many
	 * "ProcessGroupNCCL" cost the square of its length. */
	{ FAILURE_NCCL_TIMEOUT, "DistBackendError.{0,1024}?(?:[Tt]imeout|"
	                        "timed out)" },
	{ FAILURE_NCCL_TIMEOUT, "ProcessGroupNCCL.{0,1024}?\\btimed out" },
	/* NCCL's own error results: PyTorch's NCCLUtils "NCCL error in:
	 * NCCLUtils.hpp:82, invalid argument, NCCL version 2.4.8" (every
	 * version), "NCCL error: unhandled system error" (an abort's
	 * reason), "NCCL Error 2:" (THD); the ncclResult_t names torch
	 * 2.x prints after it; a DistBackendError without a timeout (the
	 * rule above takes those, as it comes first). */
	{ FAILURE_NCCL_ERROR, "NCCL [Ee]rror\\b" },
	{ FAILURE_NCCL_ERROR, "nccl(?:UnhandledCudaError|SystemError|"
	                      "InternalError|InvalidArgument|InvalidUsage|"
	                      "RemoteError)\\b" },
	{ FAILURE_NCCL_ERROR, "DistBackendError" },
	/* A GPU's hardware, not the layout: the Xids of NVIDIA's catalog
	 * (docs.nvidia.com/deploy/xid-errors) that end the processes on
	 * the GPU: a double-bit ECC error (48), an ECC error contained to
	 * them or not (94, 95), the GPU off the bus (79); CUDA's
	 * cudaErrorECCUncorrectable and cudaErrorNvlinkUncorrectable.  Not
	 * those a job runs on through (63 a row remapped, 92 a single-bit
	 * rate): those name no cause.  On other nodes the same layout
	 * runs: a node failure, retried elsewhere.  First: at the same
	 * place, the first rule that matches names the line. */
	{ FAILURE_NODE_FAIL, "\\bXid \\((?:PCI:)?[0-9A-Fa-f:.]+\\): "
	                     "(?:48|79|9[45])\\b|"
	                     "GPU has fallen off the bus|"
	                     "uncorrectable (?:ECC|NVLink) error" },
	/* CUDA faults of a kernel, and the driver's other Xid reports
	 * (13 an engine exception, 31 a page fault: the kernel's own).
	 * Not those that name no fault: 63 (a row remapped) and 92 (a
	 * single-bit error rate) a job runs on through, and 45 the
	 * driver's cleanup after any killed process, a time limit's or a
	 * cancel's too. */
	{ FAILURE_ILLEGAL_MEMORY_ACCESS, "an illegal (?:memory access|"
	                                 "instruction) was encountered" },
	{ FAILURE_ILLEGAL_MEMORY_ACCESS, "CUDA error: (?:misaligned address|"
	                                 "unspecified launch failure)" },
	{ FAILURE_ILLEGAL_MEMORY_ACCESS, "\\bXid \\((?:PCI:)?[0-9A-Fa-f:.]+"
	                                 "\\): (?!(?:45|63|92)\\b)" },
	/* Megatron-LM: "found NaN in local grad norm", "found Inf in local
	 * forward loss calculation", rerun state machine "Unexpected result
	 * nan (message='loss is NaN')"; Lightning's EarlyStopping "= nan is
	 * not finite"; autograd anomaly mode; TensorBoard's NaN warning. */
	{ FAILURE_NAN_LOSS, "found (?:NaN|Inf) in local" },
	{ FAILURE_NAN_LOSS, "loss is NaN|Unexpected result -?(?:nan|inf)\\b" },
	{ FAILURE_NAN_LOSS, "(?<== nan |= inf )is not finite" },
	{ FAILURE_NAN_LOSS, "returned nan values|"
	                    "NaN or Inf found in input tensor" },
	/* Megatron grad norm (NVIDIA dgxc-benchmarking pretrain_log_parser.py
	 * flags the same), torchtitan grad_norm. */
	{ FAILURE_NAN_LOSS, "\\bgrad[ _]norm\\s*:\\s*-?(?:nan|inf)\\b" },
	/* nvidia-resiliency-ext's StragglerDetectionCallback (NeMo 2.0) with
	 * stop_if_detected logs this, then every rank exits 1; its report
	 * alone ("STRAGGLER DETECTION WARNING") stops nothing. */
	{ FAILURE_STRAGGLER, "Detected stragglers\\. Terminating training" },
	{ FAILURE_NODE_FAIL, "DUE TO NODE FAILURE|Node failure on|"
	                     "\\bNODE_FAIL\\b" },
	/* slurmstepd, sacct, and NeMo's PreemptionCallback. */
	{ FAILURE_PREEMPTED, "DUE TO (?:PREEMPTION|JOB REQUEUE)|"
	                     "\\bPREEMPTED\\b|Preemption detected" },
	/* A plain cancel: the time stamp is followed by the stars at once
	 * (also the pre-2016 "CANCELLED AT t *** on node"). */
	{ FAILURE_CANCELLED, "CANCELLED AT \\S+ \\*\\*\\*|"
	                     "\\bCANCELLED by [0-9]+" },
	/* srun, torchrun and NVIDIA's ft_launcher, mpirun, slurmstepd. */
	{ FAILURE_EXIT_NONZERO, "Exited with exit code [1-9]" },
	{ FAILURE_EXIT_NONZERO, "failed \\(exitcode: -?[1-9]" },
	{ FAILURE_EXIT_NONZERO, "ChildFailedError|exited with non-zero "
	                        "status|returned a non-zero exit code" },
	{ FAILURE_EXIT_NONZERO, "tasks? [0-9,-]+: (?:Bus error|Segmentation "
	                        "fault|Aborted|Floating point exception|"
	                        "Illegal instruction)" },
	{ FAILURE_EXIT_NONZERO, "(?<=\\*\\*\\* )(?:JOB|STEP) \\S+ ON \\S+ "
	                        "FAILED" },
	/* Any other exception: the last line of a Python traceback, a C++
	 * terminate, NeMo's error log lines. */
	{ FAILURE_UNKNOWN, "(?:Error|Exception): " },
	{ FAILURE_UNKNOWN, "terminate called after throwing an instance of|"
	                   "Segmentation fault|(?<=\\[)NeMo E " },
	/* Megatron-LM training.py print_datetime('after training is done');
	 * Lightning's max_steps stop; torchtitan train.py @000204a. */
	{ RULE_FINISHED, "(?<=\\[)after training is done\\]|"
	                 "`Trainer\\.fit` stopped: `max_steps=[0-9]+` reached|"
	                 "INFO - Training completed" },
};

#define NRULES ((int)(sizeof(failure_rules) / sizeof(failure_rules[0])))

/*
 * Each class's priority, highest first (see failure.h for why); none is
 * 0.  Every other class has its own rank: test-logparse checks that
 * failure_pick returns each one alone, so a class left out here (rank
 * 0, the same as none) fails the test rather than vanishing.
 */
static const int failure_rank[] = {
	[FAILURE_NONE] = 0,
	[FAILURE_NODE_FAIL] = 14,
	[FAILURE_PREEMPTED] = 13,
	[FAILURE_CUDA_OOM] = 12,
	[FAILURE_HOST_OOM] = 11,
	[FAILURE_ILLEGAL_MEMORY_ACCESS] = 10,
	[FAILURE_NAN_LOSS] = 9,
	[FAILURE_STRAGGLER] = 8,
	[FAILURE_NCCL_TIMEOUT] = 7,
	[FAILURE_NCCL_ERROR] = 6,
	[FAILURE_TIMEOUT] = 5,
	[FAILURE_HUNG_AFTER_FINISH] = 4,
	[FAILURE_FAILED_AFTER_FINISH] = 4,
	[FAILURE_EXIT_NONZERO] = 3,
	[FAILURE_CANCELLED] = 2,
	[FAILURE_UNKNOWN] = 1,
};
_Static_assert(sizeof failure_rank / sizeof failure_rank[0] ==
               FAILURE_COUNT, "a rank for every failure class");

const char *
failure_class_name(enum failure_class c)
{
	if ((int)c < 0 || c >= FAILURE_COUNT)
		return "?";
	return failure_names[c];
}

int
failure_class_parse(const char *s, enum failure_class *out)
{
	for (int i = 0; i < FAILURE_COUNT; i++)
		if (!strcmp(s, failure_names[i])) {
			*out = (enum failure_class)i;
			return 0;
		}
	return -1;
}

struct failure_scan *
failure_scan_new(void)
{
	struct failure_scan *fs = xcalloc(1, sizeof(*fs));
	struct strbuf sb = STRBUF_INIT;
	PCRE2_SIZE off;
	int code;

	/* (rule0)|(rule1)|...: the group that matched names the rule. */
	for (int i = 0; i < NRULES; i++)
		strbuf_addf(&sb, "%s(%s)", i ? "|" : "", failure_rules[i].re);
	fs->re = pcre2_compile((PCRE2_SPTR)sb.buf, sb.len, 0, &code, &off,
	                       NULL);
	if (fs->re == NULL) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(code, msg, sizeof msg);
		bug("failure pattern does not compile at offset %zu: %s",
		    (size_t)off, (char *)msg);
	}
	/* Without JIT support pcre2_match interprets: slower, same result. */
	(void)pcre2_jit_compile(fs->re, PCRE2_JIT_COMPLETE);
	fs->md = pcre2_match_data_create_from_pattern(fs->re, NULL);
	fs->nrules = NRULES;
	/* The bytes a match can start with, as PCRE2 worked them out. */
	if (pcre2_pattern_info(fs->re, PCRE2_INFO_FIRSTBITMAP,
	                       &fs->first_bytes) != 0)
		fs->first_bytes = NULL;
	if (pcre2_pattern_info(fs->re, PCRE2_INFO_MINLENGTH,
	                       &fs->min_length) != 0)
		fs->min_length = 0;
	strbuf_release(&sb);
	return fs;
}

void
failure_scan_free(struct failure_scan *fs)
{
	if (fs == NULL)
		return;
	pcre2_match_data_free(fs->md);
	pcre2_code_free(fs->re);
	free(fs);
}

/* The rule whose group took part in the last match. */
static int
matched_rule(struct failure_scan *fs)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(fs->md);

	for (int i = 0; i < fs->nrules; i++)
		if (ov[2 * (size_t)(i + 1)] != PCRE2_UNSET)
			return i;
	bug("failure pattern matched no rule");
}

/* Whether some byte of s[0..n) can start a match: a loop over a bitmap
 * costs far less than a call of pcre2_match on a short string. */
static bool
may_match(const struct failure_scan *fs, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (n < fs->min_length)
		return false;
	if (fs->first_bytes == NULL)
		return true;
	for (size_t i = 0; i + fs->min_length <= n; i++)
		if (fs->first_bytes[u[i] >> 3] & (1u << (u[i] & 7)))
			return true;
	return false;
}

void
failure_scan_line(struct failure_scan *fs, const char *s, size_t n,
                  struct failure_hits *hits)
{
	PCRE2_SIZE at = 0;

	if (!may_match(fs, s, n))
		return;

	/* Every match, overlapping ones too: restart one byte after the
	 * start of each, so a generic rule cannot hide a specific one. */
	while (at < n) {
		int rc = pcre2_match(fs->re, (PCRE2_SPTR)s, n, at, 0, fs->md,
		                     NULL);
		PCRE2_SIZE *ov;
		int kind;

		if (rc < 0)
			break;
		ov = pcre2_get_ovector_pointer(fs->md);
		kind = failure_rules[matched_rule(fs)].kind;
		if (kind == RULE_FINISHED)
			hits->finished = true;
		else
			hits->classes |= FAILURE_BIT(kind);
		at = ov[0] + 1;
	}
}

enum failure_class
failure_pick(unsigned seen, bool finished)
{
	enum failure_class best = FAILURE_NONE;

	for (int c = 0; c < FAILURE_COUNT; c++)
		if ((seen & FAILURE_BIT(c)) &&
		    failure_rank[c] > failure_rank[best])
			best = (enum failure_class)c;
	return best == FAILURE_TIMEOUT && finished ? FAILURE_HUNG_AFTER_FINISH
	                                           : best;
}

/* Whether log class c names a cause that outranks a time limit. */
static bool
outranks_timeout(enum failure_class c)
{
	return (int)c >= 0 && c < FAILURE_COUNT &&
	       failure_rank[c] > failure_rank[FAILURE_TIMEOUT];
}

/* Whether state s is name, or name followed by a space (sacct writes
 * "CANCELLED by 1234"). */
static bool
state_is(const char *s, const char *name)
{
	size_t n = strlen(name);

	return !strncasecmp(s, name, n) && (s[n] == '\0' || s[n] == ' ');
}

enum failure_class
failure_join(const char *slurm_state, const struct log_result *r)
{
	enum failure_class log = r ? r->failure : FAILURE_NONE;
	bool finished = r && r->finished;

	if (slurm_state == NULL)
		return log;
	if (state_is(slurm_state, "OUT_OF_MEMORY") ||
	    state_is(slurm_state, "oom"))
		return FAILURE_HOST_OOM;
	if (state_is(slurm_state, "NODE_FAIL") ||
	    state_is(slurm_state, "BOOT_FAIL"))
		return FAILURE_NODE_FAIL;
	if (state_is(slurm_state, "PREEMPTED"))
		return FAILURE_PREEMPTED;
	if (state_is(slurm_state, "TIMEOUT") ||
	    state_is(slurm_state, "DEADLINE")) {
		if (outranks_timeout(log))
			return log;
		return finished ? FAILURE_HUNG_AFTER_FINISH : FAILURE_TIMEOUT;
	}
	if (state_is(slurm_state, "FAILED")) {
		if (log != FAILURE_NONE && log != FAILURE_UNKNOWN &&
		    log != FAILURE_EXIT_NONZERO)
			return log;
		return finished ? FAILURE_FAILED_AFTER_FINISH
		                : FAILURE_EXIT_NONZERO;
	}
	if (state_is(slurm_state, "CANCELLED"))
		return log == FAILURE_NONE || log == FAILURE_UNKNOWN ||
		       log == FAILURE_EXIT_NONZERO ? FAILURE_CANCELLED : log;
	/* Exit 0: an exception named only by the generic rule did not end
	 * the job (caught and logged, or "Exception ignored in" at exit),
	 * and after the log said training was done nothing a line named
	 * ("CUDA out of memory" in an echoed comment) stopped the run. */
	if (state_is(slurm_state, "COMPLETED") &&
	    (log == FAILURE_UNKNOWN || finished))
		return FAILURE_NONE;
	return log;
}
