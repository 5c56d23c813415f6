/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm-state.c - Slurm's words for a job into paratune's: the job
 * states and their names, the reasons a job waits or ended, and the
 * exit status.  Tables kept apart from the RPCs, since both the
 * controller's records (slurm.c) and slurmdbd's (slurm-acct.c) are
 * decoded through them.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "slurm-int.h"
#include "slurm.h"

/* ---- job states ---------------------------------------------------------- */

/* Names as sacct and squeue print them; job_state_string() is internal
 * to libslurm, so paratune keeps its own table. */
static const char *const job_state_names[] = {
	[JOB_ST_PENDING] = "PENDING",
	[JOB_ST_RUNNING] = "RUNNING",
	[JOB_ST_SUSPENDED] = "SUSPENDED",
	[JOB_ST_COMPLETED] = "COMPLETED",
	[JOB_ST_CANCELLED] = "CANCELLED",
	[JOB_ST_FAILED] = "FAILED",
	[JOB_ST_TIMEOUT] = "TIMEOUT",
	[JOB_ST_NODE_FAIL] = "NODE_FAIL",
	[JOB_ST_PREEMPTED] = "PREEMPTED",
	[JOB_ST_BOOT_FAIL] = "BOOT_FAIL",
	[JOB_ST_DEADLINE] = "DEADLINE",
	[JOB_ST_OUT_OF_MEMORY] = "OUT_OF_MEMORY",
	[JOB_ST_UNKNOWN] = "UNKNOWN",
};

/* Slurm's base states (enum job_states, slurm.h) to ours. */
static const enum job_state job_state_by_base[JOB_END] = {
	[JOB_PENDING] = JOB_ST_PENDING,
	[JOB_RUNNING] = JOB_ST_RUNNING,
	[JOB_SUSPENDED] = JOB_ST_SUSPENDED,
	[JOB_COMPLETE] = JOB_ST_COMPLETED,
	[JOB_CANCELLED] = JOB_ST_CANCELLED,
	[JOB_FAILED] = JOB_ST_FAILED,
	[JOB_TIMEOUT] = JOB_ST_TIMEOUT,
	[JOB_NODE_FAIL] = JOB_ST_NODE_FAIL,
	[JOB_PREEMPTED] = JOB_ST_PREEMPTED,
	[JOB_BOOT_FAIL] = JOB_ST_BOOT_FAIL,
	[JOB_DEADLINE] = JOB_ST_DEADLINE,
	[JOB_OOM] = JOB_ST_OUT_OF_MEMORY,
};

/* Name a state. */
const char *
job_state_name(enum job_state s)
{
	return (unsigned)s <= JOB_ST_UNKNOWN ? job_state_names[s] : "UNKNOWN";
}

/* Read a state name back; JOB_ST_UNKNOWN for anything else. */
enum job_state
job_state_parse(const char *s)
{
	for (int i = 0; i < JOB_ST_UNKNOWN; i++)
		if (!strcmp(s, job_state_names[i]))
			return (enum job_state)i;
	return JOB_ST_UNKNOWN;
}

/* Whether a job in state s will not change any more. */
bool
job_state_final(enum job_state s)
{
	return s != JOB_ST_PENDING && s != JOB_ST_RUNNING &&
	       s != JOB_ST_SUSPENDED && s != JOB_ST_UNKNOWN;
}

/*
 * Our state from Slurm's job_state word.  A job being requeued still
 * shows the base state that ended its last run (NODE_FAIL, ...) with a
 * requeue flag above it, but it is going back to the queue under the same
 * id: report it PENDING so that nobody submits it a second time.
 */
enum job_state
slurm_state_from(uint32_t word)
{
	uint32_t base = word & JOB_STATE_BASE;

	if (word & (JOB_REQUEUE | JOB_REQUEUE_HOLD | JOB_REQUEUE_FED |
	            JOB_SPECIAL_EXIT))
		return JOB_ST_PENDING;
	return base < JOB_END ? job_state_by_base[base] : JOB_ST_UNKNOWN;
}

/* Reason names as squeue prints them (job_reason_string() in Slurm
 * 22.05's src/common/slurm_protocol_defs.c, which libslurm does not
 * declare publicly); the rarer limit reasons are shown by number.
 * PartitionConfig is what a job past its partition's MaxTime waits on
 * first in the testbed (Slurm 22.05), PartitionTimeLimit a few seconds
 * later (tests/integration/admin.sh). */
static const char *const job_reason_names[] = {
	[WAIT_PRIORITY] = "Priority",
	[WAIT_DEPENDENCY] = "Dependency",
	[WAIT_RESOURCES] = "Resources",
	[WAIT_PART_NODE_LIMIT] = "PartitionNodeLimit",
	[WAIT_PART_TIME_LIMIT] = "PartitionTimeLimit",
	[WAIT_PART_DOWN] = "PartitionDown",
	[WAIT_PART_INACTIVE] = "PartitionInactive",
	[WAIT_HELD] = "JobHeldAdmin",
	[WAIT_TIME] = "BeginTime",
	[WAIT_LICENSES] = "Licenses",
	[WAIT_ASSOC_JOB_LIMIT] = "AssociationJobLimit",
	[WAIT_ASSOC_RESOURCE_LIMIT] = "AssociationResourceLimit",
	[WAIT_ASSOC_TIME_LIMIT] = "AssociationTimeLimit",
	[WAIT_RESERVATION] = "Reservation",
	[WAIT_NODE_NOT_AVAIL] = "ReqNodeNotAvail",
	[WAIT_HELD_USER] = "JobHeldUser",
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 5, 0)
	/* 25.05 removed front-end nodes (SchedMD/slurm 98a706a) */
	[WAIT_FRONT_END] = "FrontEndDown",
#endif
	[FAIL_DEFER] = "SchedDefer",
	[FAIL_DOWN_PARTITION] = "PartitionDown",
	[FAIL_DOWN_NODE] = "NodeDown",
	[FAIL_BAD_CONSTRAINTS] = "BadConstraints",
	[FAIL_SYSTEM] = "SystemFailure",
	[FAIL_LAUNCH] = "JobLaunchFailure",
	[FAIL_EXIT_CODE] = "NonZeroExitCode",
	[FAIL_TIMEOUT] = "TimeLimit",
	[FAIL_INACTIVE_LIMIT] = "InactiveLimit",
	[FAIL_ACCOUNT] = "InvalidAccount",
	[FAIL_QOS] = "InvalidQOS",
	[WAIT_QOS_THRES] = "QOSUsageThreshold",
	[WAIT_QOS_JOB_LIMIT] = "QOSJobLimit",
	[WAIT_QOS_RESOURCE_LIMIT] = "QOSResourceLimit",
	[WAIT_QOS_TIME_LIMIT] = "QOSTimeLimit",
	[WAIT_CLEANING] = "Cleaning",
	[WAIT_PROLOG] = "Prolog",
	[WAIT_QOS] = "QOSNotAllowed",
	[WAIT_ACCOUNT] = "AccountNotAllowed",
	[WAIT_DEP_INVALID] = "DependencyNeverSatisfied",
	/* The limits a job cannot wait past (reason_blocking). */
	[WAIT_QOS_MAX_WALL_PER_JOB] = "QOSMaxWallDurationPerJobLimit",
	[WAIT_ASSOC_MAX_WALL_PER_JOB] = "AssocMaxWallDurationPerJobLimit",
	[WAIT_PART_CONFIG] = "PartitionConfig",
};

#define JOB_REASON_COUNT \
	(sizeof(job_reason_names) / sizeof(job_reason_names[0]))

/* Fill dst with the reason's name, Slurm's description, or its number. */
void
slurm_reason(char *dst, size_t size, uint32_t reason, const char *desc)
{
	const char *name = reason < JOB_REASON_COUNT
	                   ? job_reason_names[reason] : NULL;

	if (name)
		snprintf(dst, size, "%s", name);
	else if (desc && *desc)
		snprintf(dst, size, "%s", desc);
	else if (reason != WAIT_NO_REASON)
		snprintf(dst, size, "reason-%u", (unsigned)reason);
	else
		dst[0] = '\0';
}

/*
 * The reasons a pending job cannot get past by waiting: a limit of its
 * partition, association or QOS, or a request Slurm cannot meet, which
 * only the sysadmin or a new plan changes.
 */
static const bool reason_blocking[JOB_REASON_COUNT] = {
	[WAIT_PART_TIME_LIMIT] = true, [WAIT_PART_NODE_LIMIT] = true,
	[WAIT_PART_CONFIG] = true, [FAIL_BAD_CONSTRAINTS] = true,
	[FAIL_ACCOUNT] = true, [FAIL_QOS] = true, [WAIT_QOS] = true,
	[WAIT_ACCOUNT] = true, [WAIT_QOS_MAX_WALL_PER_JOB] = true,
	[WAIT_ASSOC_MAX_WALL_PER_JOB] = true,
};

bool
slurm_reason_blocks(const char *reason)
{
	for (size_t i = 0; i < JOB_REASON_COUNT; i++)
		if (reason_blocking[i] && !strcmp(reason, job_reason_names[i]))
			return true;
	return false;
}

/* Slurm's reasons for a job to end (FAIL_*); the others are waits.
 * PartitionDown names one of each: taken as an end. */
static const bool reason_ends[JOB_REASON_COUNT] = {
	[FAIL_DEFER] = true, [FAIL_DOWN_PARTITION] = true,
	[FAIL_DOWN_NODE] = true, [FAIL_BAD_CONSTRAINTS] = true,
	[FAIL_SYSTEM] = true, [FAIL_LAUNCH] = true, [FAIL_EXIT_CODE] = true,
	[FAIL_TIMEOUT] = true, [FAIL_INACTIVE_LIMIT] = true,
	[FAIL_ACCOUNT] = true, [FAIL_QOS] = true,
};

bool
slurm_reason_waits(const char *reason)
{
	bool found = false;

	for (size_t i = 0; i < JOB_REASON_COUNT; i++) {
		if (!job_reason_names[i] || strcmp(reason, job_reason_names[i]))
			continue;
		if (reason_ends[i])
			return false;
		found = true;
	}
	return found;
}

/* Split a wait() status as sacct does: "exit:signal". */
void
slurm_exit_status(uint32_t status, int *code, int *sig)
{
	int st = (int)status;

	*code = *sig = 0;
	if (status == NO_VAL)
		return;
	*code = WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		*sig = WTERMSIG(st);
}
