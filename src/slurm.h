/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm.h - paratune's adapter to Slurm.
 *
 * Only the adapter's slurm*.c files and their private slurm-int.h
 * include Slurm's headers (scripts/lint and tests/cli/layering.sh check
 * it): the rest of paratune sees these types, and only the runner calls
 * these functions.  Everything here goes through libslurm
 * (the controller's RPCs) and libslurmdb (accounting), never through the
 * sbatch/squeue/sacct commands.
 */
#ifndef PARATUNE_SLURM_H
#define PARATUNE_SLURM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "strbuf.h"

struct sbatch_extras;

/* Base job states, mapped from Slurm's JOB_STATE_BASE values. */
enum job_state {
	JOB_ST_PENDING,
	JOB_ST_RUNNING,
	JOB_ST_SUSPENDED,
	JOB_ST_COMPLETED,
	JOB_ST_CANCELLED,
	JOB_ST_FAILED,
	JOB_ST_TIMEOUT,
	JOB_ST_NODE_FAIL,
	JOB_ST_PREEMPTED,
	JOB_ST_BOOT_FAIL,
	JOB_ST_DEADLINE,
	JOB_ST_OUT_OF_MEMORY,
	JOB_ST_UNKNOWN,
};

/* "PENDING", "OUT_OF_MEMORY", ... as sacct prints them. */
const char *job_state_name(enum job_state s);
/* Inverse of job_state_name; JOB_ST_UNKNOWN when unknown. */
enum job_state job_state_parse(const char *s);
/* Whether the job will not change any more. */
bool job_state_final(enum job_state s);

struct slurm_job {
	uint32_t job_id;
	char name[128];          /* the job name: paratune's tag */
	enum job_state state;
	int exit_code;           /* exit status of the batch script */
	int exit_signal;         /* signal that ended it, 0 if none */
	char reason[64];         /* pending/failure reason, "" if none */
	char nodes[256];         /* node list, "" while pending */
	char work_dir[1024];     /* the directory it was submitted to run
	                          * in; "" if unknown (accounting) or too
	                          * long to hold */
	time_t submit_time, start_time, end_time;
	bool from_accounting;    /* found in slurmdbd, not the controller */
};

/* Whether a pending job's reason (its name, as slurm_job.reason holds
 * it) is one it cannot get past by waiting: PartitionTimeLimit and the
 * other limits only the sysadmin or a new plan changes. */
bool slurm_reason_blocks(const char *reason);
/* Whether reason is one of Slurm's reasons for a job to wait (Priority,
 * Resources, JobHeldAdmin, ...), not one for a job to end (NodeDown,
 * NonZeroExitCode, ...). */
bool slurm_reason_waits(const char *reason);

struct slurm_submit_req {
	const char *name;        /* job name, carries the tag */
	const char *comment;     /* free text (the candidate's name) */
	const char *script;      /* the whole batch script */
	const char *work_dir;
	const char *std_out;     /* path pattern, e.g.
	                          * DIR/runs/N/slurm-%j.out */
	const char *std_err;     /* NULL: same as std_out */
	int time_limit_min;
	int nodes;
	int ntasks_per_node;
	int gpus_per_node;       /* 0: ask for no GPUs */
	const char *gpu_type;    /* "h100" for gpu:h100:N; NULL: any type */
	const char *partition, *account, *qos, *reservation; /* NULL: default */
	const char *exclude;     /* nodes not to use (a retry
	                          * after a failure) */
	int segment_nodes;       /* --segment: nodes per NVLink segment;
	                          * 0: none */
	bool hold;               /* submit held (benchmarks) */
	const char *const *env;  /* NAME=VALUE, NULL-terminated; NULL: ours */
	const struct sbatch_extras *extras; /* slurm.directives; NULL: none */
};

/*
 * Whether this libslurm can ask for segments (job_desc_msg_t.segment_size,
 * Slurm 24.05): with an older one, segment_nodes is not applied.
 */
bool slurm_can_segment(void);

/* Errors: a temporary one (controller unreachable, busy) is retried by
 * the next cron run; a rejection is final for that job. */
enum slurm_err {
	SLURM_E_OK = 0,
	SLURM_E_UNREACHABLE = -1, /* controller or slurmdbd down: exit 75 */
	SLURM_E_REJECTED = -2,    /* the controller refused the request */
	SLURM_E_NOT_FOUND = -3,
	/* Refused for a state of the cluster a sysadmin changes back (a
	 * partition drained or down, a reservation's maintenance, a QOS
	 * threshold): the same request may be taken later. */
	SLURM_E_REFUSED_NOW = -4,
	/* Refused for good because no node can take the job as asked
	 * ("Requested node configuration is not available"): a retry's
	 * exclusion of every node it may have, or a request no node
	 * fits. */
	SLURM_E_NO_NODES = -5,
};

struct slurm_conn;

/* slurm_init and the caller's identity; NULL + message on failure. */
struct slurm_conn *slurm_open(struct strbuf *err);
void slurm_close(struct slurm_conn *c);

/*
 * Submit a batch job.  Retries temporary controller errors a few times
 * with a bounded backoff; returns SLURM_E_OK with *job_id, or an error
 * with its text in err.
 */
int slurm_submit(struct slurm_conn *c, const struct slurm_submit_req *req,
                 uint32_t *job_id, struct strbuf *err);

/*
 * Load every job of this user the controller holds, in ONE RPC (it
 * passes the previous update time, so an unchanged controller answers
 * from the cache).  *jobs points into c and stays valid until the next
 * call.  Returns SLURM_E_OK or SLURM_E_UNREACHABLE.
 */
int slurm_poll(struct slurm_conn *c, const struct slurm_job **jobs, int *n,
               struct strbuf *err);

/*
 * Look jobs up in accounting (for jobs the controller already forgot):
 * by id when ids is not NULL (every job that had the id: a controller
 * that lost its state gives ids again), else every job of this user
 * whose name starts with name_prefix, submitted since `since`.  The
 * result array is owned by c until the next call.  SLURM_E_NOT_FOUND
 * when accounting is not configured (the caller falls back to the job's
 * own output).
 */
int slurm_accounting(struct slurm_conn *c, const uint32_t *ids, int nids,
                     const char *name_prefix, time_t since,
                     const struct slurm_job **jobs, int *n,
                     struct strbuf *err);

int slurm_cancel(struct slurm_conn *c, uint32_t job_id, struct strbuf *err);
/* Release a held job (benchmarks and tests). */
int slurm_release(struct slurm_conn *c, uint32_t job_id, struct strbuf *err);

#endif
