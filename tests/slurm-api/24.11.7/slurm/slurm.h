/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * <slurm/slurm.h> of Slurm 24.11.7: paratune's own description of the
 * interface, not Slurm's header.  Read from SchedMD/slurm tag
 * slurm-24-11-7-1, slurm/slurm.h (24.11.7 is the series' latest release).
 * It declares only what paratune's Slurm adapter names, as this release
 * declares it, for scripts/slurm-compat; see tests/slurm-api/README.md.
 */
#ifndef PARATUNE_DESC_SLURM_H
#define PARATUNE_DESC_SLURM_H

/* What the real header includes, so that nothing the adapter gets
 * through it goes missing here. */
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include <inttypes.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* ---- numbers and flags --------------------------------------------------- */

#define SLURM_BIT(bit) ((uint64_t)1 << bit)

#define INFINITE (0xffffffff)
#define NO_VAL (0xfffffffe)
/* slurm_load_jobs() flags; a SLURM_BIT() from 24.11 */
#define SHOW_ALL SLURM_BIT(0)
/* job_desc_msg_t.pn_min_memory is per CPU when this bit is set */
#define MEM_PER_CPU 0x8000000000000000
/* job_desc_msg_t.warn_flags */
#define KILL_JOB_BATCH SLURM_BIT(0)

/* job_desc_msg_t.shared */
#define JOB_SHARED_NONE 0x0000
#define JOB_SHARED_USER 0x0002
#define JOB_SHARED_MCS 0x0003

/* job_desc_msg_t.mail_type */
#define MAIL_JOB_BEGIN SLURM_BIT(0)
#define MAIL_JOB_END SLURM_BIT(1)
#define MAIL_JOB_FAIL SLURM_BIT(2)
#define MAIL_JOB_REQUEUE SLURM_BIT(3)
#define MAIL_JOB_TIME100 SLURM_BIT(4)
#define MAIL_JOB_TIME90 SLURM_BIT(5)
#define MAIL_JOB_TIME80 SLURM_BIT(6)
#define MAIL_JOB_TIME50 SLURM_BIT(7)

/* ---- job states and reasons ---------------------------------------------- */

/* A job's state word: the base state in its low byte, flags above. */
enum job_states {
	JOB_PENDING = 0,
	JOB_RUNNING = 1,
	JOB_SUSPENDED = 2,
	JOB_COMPLETE = 3,
	JOB_CANCELLED = 4,
	JOB_FAILED = 5,
	JOB_TIMEOUT = 6,
	JOB_NODE_FAIL = 7,
	JOB_PREEMPTED = 8,
	JOB_BOOT_FAIL = 9,
	JOB_DEADLINE = 10,
	JOB_OOM = 11,
	JOB_END = 12,
};

#define JOB_STATE_BASE 0x000000ff
#define JOB_REQUEUE SLURM_BIT(10)
#define JOB_REQUEUE_HOLD SLURM_BIT(11)
#define JOB_SPECIAL_EXIT SLURM_BIT(12)
#define JOB_REQUEUE_FED SLURM_BIT(20)

/* Why a job waits or ended: the values the adapter names. */
enum job_state_reason {
	WAIT_NO_REASON = 0,
	WAIT_PRIORITY = 1,
	WAIT_DEPENDENCY = 2,
	WAIT_RESOURCES = 3,
	WAIT_PART_NODE_LIMIT = 4,
	WAIT_PART_TIME_LIMIT = 5,
	WAIT_PART_DOWN = 6,
	WAIT_PART_INACTIVE = 7,
	WAIT_HELD = 8,
	WAIT_TIME = 9,
	WAIT_LICENSES = 10,
	WAIT_ASSOC_JOB_LIMIT = 11,
	WAIT_ASSOC_RESOURCE_LIMIT = 12,
	WAIT_ASSOC_TIME_LIMIT = 13,
	WAIT_RESERVATION = 14,
	WAIT_NODE_NOT_AVAIL = 15,
	WAIT_HELD_USER = 16,
	WAIT_FRONT_END = 17, /* removed in 25.05 */
	FAIL_DEFER = 18,
	FAIL_DOWN_PARTITION = 19,
	FAIL_DOWN_NODE = 20,
	FAIL_BAD_CONSTRAINTS = 21,
	FAIL_SYSTEM = 22,
	FAIL_LAUNCH = 23,
	FAIL_EXIT_CODE = 24,
	FAIL_TIMEOUT = 25,
	FAIL_INACTIVE_LIMIT = 26,
	FAIL_ACCOUNT = 27,
	FAIL_QOS = 28,
	WAIT_QOS_THRES = 29,
	WAIT_QOS_JOB_LIMIT = 30,
	WAIT_QOS_RESOURCE_LIMIT = 31,
	WAIT_QOS_TIME_LIMIT = 32,
	WAIT_CLEANING = 35,
	WAIT_PROLOG = 36,
	WAIT_QOS = 37,
	WAIT_ACCOUNT = 38,
	WAIT_DEP_INVALID = 39,
	WAIT_QOS_MAX_WALL_PER_JOB = 51,
	WAIT_ASSOC_MAX_WALL_PER_JOB = 69,
	WAIT_PART_CONFIG = 178,
};

/* ---- job and step ids ---------------------------------------------------- */

/* 24.11 added sluid_t and slurm_step_id_t.sluid */
typedef uint64_t sluid_t;

typedef struct slurm_step_id_msg {
	uint32_t job_id;
	sluid_t sluid;
	uint32_t step_het_comp;
	uint32_t step_id;
} slurm_step_id_t;

/* A job, array task or step to look up in accounting. */
typedef struct {
	uint32_t array_task_id;
	uint32_t het_job_offset;
	slurm_step_id_t step_id;
} slurm_selected_step_t;

/* ---- lists --------------------------------------------------------------- */

typedef struct xlist list_t; /* added in 23.02 */
typedef struct listIterator list_itr_t; /* added in 23.02 */
typedef void (*ListDelF)(void *x);

/* list_t and list_itr_t since 23.02; append returns nothing */
extern list_t *slurm_list_create(ListDelF destroy);
extern void slurm_list_append(list_t *list, void *item);
extern void slurm_list_destroy(list_t *list);
extern list_itr_t *slurm_list_iterator_create(list_t *list);
extern void *slurm_list_next(list_itr_t *it);
extern void slurm_list_iterator_destroy(list_itr_t *it);

/* ---- submission ---------------------------------------------------------- */

/* A job's description: the members the adapter sets. */
typedef struct job_descriptor {
	char *account;
	char *comment;
	uint16_t cores_per_socket;
	uint16_t cpus_per_task;
	char *cpus_per_tres;
	uint32_t env_size;
	char **environment;
	char *exc_nodes;
	char *features;
	uint32_t group_id;
	uint32_t job_id; /* removed in 25.11 */
	char *job_id_str;
	char *licenses;
	uint16_t mail_type;
	char *mail_user;
	uint32_t max_nodes;
	char *mem_per_tres;
	uint32_t min_nodes;
	char *name;
	char *network;
	uint16_t ntasks_per_node;
	uint32_t num_tasks;
	char *partition;
	uint64_t pn_min_memory;
	uint32_t priority;
	char *qos;
	char *req_nodes;
	uint32_t req_switch;
	uint16_t requeue;
	char *reservation;
	char *script;
	uint16_t segment_size;
	uint16_t shared;
	char *std_err;
	char *std_out;
	uint16_t threads_per_core;
	uint32_t time_limit;
	uint32_t time_min;
	char *tres_per_node;
	uint32_t user_id;
	uint32_t wait4switch;
	uint16_t warn_flags;
	uint16_t warn_signal;
	uint16_t warn_time;
	char *wckey;
	char *work_dir;
} job_desc_msg_t;

/* The answer to a batch submission. */
typedef struct submit_response_msg {
	uint32_t job_id;
	char *job_submit_user_msg;
	uint32_t step_id; /* a slurm_step_id_t from 25.11 */
} submit_response_msg_t;

extern void slurm_init_job_desc_msg(job_desc_msg_t *desc);
extern int slurm_submit_batch_job(job_desc_msg_t *desc,
                                  submit_response_msg_t **answer);
extern void slurm_free_submit_response_response_msg(
	submit_response_msg_t *answer);

/* ---- the controller's jobs ----------------------------------------------- */

/* One job as slurmctld reports it. */
typedef struct job_info {
	time_t end_time;
	uint32_t exit_code;
	uint32_t job_id;
	uint32_t job_state;
	char *name;
	char *nodes;
	time_t start_time;
	char *state_desc;
	uint32_t state_reason; /* uint16_t up to 22.05 */
	time_t submit_time;
	uint32_t user_id;
	char *work_dir;
} slurm_job_info_t;

typedef struct job_info_msg {
	slurm_job_info_t *job_array;
	time_t last_update;
	uint32_t record_count;
} job_info_msg_t;

extern int slurm_load_jobs(time_t changed_since, job_info_msg_t **jobs,
                           uint16_t show_flags);
extern void slurm_free_job_info_msg(job_info_msg_t *jobs);

/* ---- control ------------------------------------------------------------- */

extern int slurm_kill_job(uint32_t job_id, uint16_t signal,
                          uint16_t flags);

/* One answer per job (or array task) that an update touched. */
typedef struct {
	uint32_t *error_code;
	uint32_t job_array_count;
} job_array_resp_msg_t;

extern int slurm_update_job(job_desc_msg_t *change);
extern int slurm_update_job2(job_desc_msg_t *change,
                             job_array_resp_msg_t **answers);
extern void slurm_free_job_array_resp(job_array_resp_msg_t *answers);

/* ---- configuration and the library --------------------------------------- */

typedef struct {
	char *accounting_storage_type;
	char *cluster_name;
} slurm_conf_t;

extern int slurm_load_ctl_conf(time_t changed_since, slurm_conf_t **conf);
/* renamed slurm_free_conf() in 26.05 */
extern void slurm_free_ctl_conf(slurm_conf_t *conf);

extern void slurm_init(const char *conf);
extern void slurm_fini(void);

#endif
