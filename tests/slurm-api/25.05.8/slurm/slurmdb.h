/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * <slurm/slurmdb.h> of Slurm 25.05.8: paratune's own description of the
 * interface, not Slurm's header.  Read from SchedMD/slurm tag
 * slurm-25-05-8-1, slurm/slurmdb.h (25.05.8 is the series' latest release).
 * It declares only what paratune's Slurm adapter names, as this release
 * declares it, for scripts/slurm-compat; see tests/slurm-api/README.md.
 */
#ifndef PARATUNE_DESC_SLURMDB_H
#define PARATUNE_DESC_SLURMDB_H

#include <slurm/slurm.h>

/* slurmdb_job_cond_t.flags */
#define JOBCOND_FLAG_DUP SLURM_BIT(0)
#define JOBCOND_FLAG_NO_STEP SLURM_BIT(1)
#define JOBCOND_FLAG_NO_TRUNC SLURM_BIT(2)
#define JOBCOND_FLAG_NO_DEFAULT_USAGE SLURM_BIT(7)
/* slurmdb_job_cond_t.db_flags */
#define SLURMDB_JOB_FLAG_NOTSET SLURM_BIT(0)

/* The lists are list_t * from 24.11 (List until 24.05). */

/* Which jobs a query asks slurmdbd for. */
typedef struct {
	list_t *cluster_list;
	uint32_t db_flags;
	int32_t exitcode;
	uint32_t flags;
	list_t *step_list;
	time_t usage_start;
	list_t *userid_list;
} slurmdb_job_cond_t;

/* One job as slurmdbd remembers it. */
typedef struct {
	time_t end;
	uint32_t exitcode;
	uint32_t jobid;
	char *jobname;
	char *nodes;
	time_t start;
	uint32_t state;
	uint32_t state_reason_prev;
	time_t submit;
} slurmdb_job_rec_t;

extern void *slurmdb_connection_get(uint16_t *persist_conn_flags);
extern int slurmdb_connection_close(void **db);
/* A list of slurmdb_job_rec_t, or NULL with errno set */
extern list_t *slurmdb_jobs_get(void *db, slurmdb_job_cond_t *cond);

#endif
