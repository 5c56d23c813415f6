/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm-int.h - what the adapter's files (slurm.c, slurm-state.c,
 * slurm-conf.c, slurm-submit.c, slurm-acct.c) share: Slurm's headers,
 * the differences between Slurm releases that touch them, the
 * connection, and the helpers that turn Slurm's records into ours.
 * Nothing else includes it: the rest of paratune sees only slurm.h.
 */
#ifndef PARATUNE_SLURM_INT_H
#define PARATUNE_SLURM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include "slurm.h"
#include "stderr-capture.h"
#include "strbuf.h"
#include "strlist.h"

/* ---- differences between Slurm releases ---------------------------------- */

#ifndef SLURM_VERSION_NUM
#define SLURM_VERSION_NUM(a, b, c) (((a) << 16) + ((b) << 8) + (c))
#endif

/* list_t/list_itr_t appeared in 23.02 next to List/ListIterator, which
 * 24.05 (ListIterator) and 24.11 (List) removed (slurm/slurm.h at the
 * tags slurm-23-02-0-1, slurm-24-05-0-1, slurm-24-11-0-1). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#define SLURM_LIST list_t *
#define SLURM_LIST_ITR list_itr_t *
#else
#define SLURM_LIST List
#define SLURM_LIST_ITR ListIterator
#endif

/* 25.11 replaced submit_response_msg_t's job_id by a slurm_step_id_t
 * (SchedMD/slurm 12a6e0d, "Switch to step_id in submit_response_msg_t"). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
#define SUBMIT_RESP_JOB_ID(r) ((r)->step_id.job_id)
#else
#define SUBMIT_RESP_JOB_ID(r) ((r)->job_id)
#endif

/* sbatch --gpus-per-node writes "gres:gpu:N" up to 23.02 and "gres/gpu:N"
 * from 23.11 (src/common/slurm_opt.c at slurm-22-05-8-1 and
 * slurm-23-11-0-1); 22.05's TresPerNode shows "gres:gpu:8" here. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
#define GPU_TRES_FMT "gres/gpu:%d"
#define GPU_TRES_TYPED_FMT "gres/gpu:%s:%d"
#else
#define GPU_TRES_FMT "gres:gpu:%d"
#define GPU_TRES_TYPED_FMT "gres:gpu:%s:%d"
#endif

/* 26.05 renamed slurm_free_ctl_conf() (SchedMD/slurm 654434e) and made
 * slurm_kill_job() take a slurm_step_id_t (4a398f5; the uint32_t form
 * is left only under SLURM_BACKWARD_COMPAT). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
#define SLURM_FREE_CONF slurm_free_conf
#else
#define SLURM_FREE_CONF slurm_free_ctl_conf
#endif

/* Error 2007 was ESLURM_ERROR_ON_DESC_TO_RECORD_COPY, which sbatch
 * retries as "job queue full"; it became ESLURM_MAX_JOB_COUNT in the
 * point release 26.05.2, not at a major release (SchedMD/slurm 748c02f
 * and 6a78841, picked from master's 150a4ff and 084526c: slurm_errno.h
 * at the tags slurm-26-05-1-1 and slurm-26-05-2-1). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 2)
#define SLURM_E_QUEUE_FULL ESLURM_MAX_JOB_COUNT
#else
#define SLURM_E_QUEUE_FULL ESLURM_ERROR_ON_DESC_TO_RECORD_COPY
#endif

/* slurm_errno.h's "socket specific Slurm communications error" block
 * starts at 5000 in every release, but its first names were removed in
 * 23.02 (SchedMD/slurm 059aad4, "Remove three unused return codes"). */
#define SLURM_E_SOCKET_FIRST 5000
/* SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT of that block, the one before
 * SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT (5005) in every release: a
 * request sent and not answered in MessageTimeout. */
#define SLURM_E_SOCKET_TIMEOUT 5004

/* ---- the connection ------------------------------------------------------ */

struct slurm_conn {
	uid_t uid;
	gid_t gid;
	struct str_list env;       /* the default job environment */

	time_t jobs_update;        /* last_update of the last job load */
	bool polled;               /* jobs_update is from a real answer */
	struct slurm_job *jobs;    /* this user's jobs in the controller */
	int njobs;
	size_t jobs_alloc;

	struct slurm_job *acct;    /* the last accounting answer */
	int nacct;
	size_t acct_alloc;
	void *db;                  /* slurmdbd connection, opened lazily */
	bool conf_loaded;
	char *cluster;             /* ClusterName */
	char *storage;             /* AccountingStorageType, NULL if none */
};

/* ---- records ------------------------------------------------------------- */

/* Our state for Slurm's state word (base state and flags). */
enum job_state slurm_state_from(uint32_t word);
/* Fill dst with the reason's name, Slurm's description, or its number. */
void slurm_reason(char *dst, size_t size, uint32_t reason, const char *desc);
/* Split a wait() status as sacct does: "exit:signal". */
void slurm_exit_status(uint32_t status, int *code, int *sig);
/* Copy a possibly NULL string into a fixed field, truncating. */
void slurm_copy(char *dst, size_t size, const char *src);
/* Put "what: Slurm's text" into err; return the error's class. */
__attribute__((format(printf, 3, 4))) int
slurm_fail(struct strbuf *err, int e, const char *fmt, ...);
/* The first line of libslurm's log text onto sb, without its prefix. */
void slurm_log_line(struct strbuf *sb, const char *text);

/* ---- what libslurm said during a request (slurm-said.c) ------------------ */

/* Whether e is libslurm's failure to sign or check a request (munge's,
 * or a credential the controller refused). */
bool slurm_auth_error(int e);

/* Its lines kept off stderr while a request runs, and their reason. */
struct slurm_said {
	struct stderr_capture cap;
	struct strbuf reason;   /* after a failure: libslurm's reason, if
	                           it gave one Slurm's error text lacks */
};

/* Keep libslurm's lines off stderr until slurm_said_end. */
void slurm_said_begin(struct slurm_said *s);
/* Put stderr back; for a failure e (0: success), its reason in s. */
void slurm_said_end(struct slurm_said *s, int e);
/* " (libslurm: REASON)" onto err (may be NULL) when s has a reason. */
void slurm_said_add(const struct slurm_said *s, struct strbuf *err);
void slurm_said_release(struct slurm_said *s);

#endif
