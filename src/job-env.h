/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * job-env.h - the environment a submitted job gets, as run.export says.
 *
 * run.export has sbatch's --export meaning, applied to the environment
 * that `submit` saw (DIR/submit.env), never to whatever process submits:
 *
 *   unset          paratune's own small set: PATH (a default when
 *                  unset), HOME, USER, SLURM_CONF, and LANG=C for the
 *                  English the log parser reads
 *   "ALL"          everything submit saw; NAME=VALUE entries beside
 *                  "ALL" are added or replace
 *   "NONE"         only submit's SLURM_* variables; Slurm loads the
 *                  user's login environment (SLURM_GET_USER_ENV=1)
 *   NAME, N=V ...  submit's SLURM_* variables, then each NAME that
 *                  submit saw set, then each N=V as given
 *
 * With run.export set, SLURM_EXPORT_ENV carries it into the job, as
 * sbatch does, so that srun inside propagates the same way.
 */
#ifndef PARATUNE_JOB_ENV_H
#define PARATUNE_JOB_ENV_H

#include <stdbool.h>

#include "strlist.h"

/* Whether s is an entry run.export accepts: ALL, NONE, NAME or
 * NAME=VALUE with NAME a shell variable name. */
bool job_env_export_valid(const char *s);

/*
 * Fill out (empty on entry) from seen (NAME=VALUE) as export says;
 * out is NULL-terminated beyond out->n, as libslurm wants its
 * environment.  Never empty: the controller refuses a job without one.
 */
void job_env_build(const struct str_list *seen, const struct str_list *export,
                   struct str_list *out);

/* Set "NAME=VALUE" in an environment job_env_build filled, replacing
 * the entry of that name; out stays NULL-terminated. */
void job_env_set(struct str_list *out, const char *kv);

#endif
