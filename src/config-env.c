/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-env.c - the lists of strings a campaign hands on to each job
 * and to sbatch: env (merged by variable name, the names Slurm or the
 * job script sets refused), run.export as --export reads it, and
 * slurm.directives; and the other lists that add up across layers
 * (policy.locked).  Every error names the file and line of the setting.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "config-int.h"
#include "directive.h"
#include "job-env.h"
#include "util.h"
#include "xalloc.h"

/* Length of NAME in "NAME=VALUE" when NAME is a shell variable name. */
static size_t
env_name_len(const char *s)
{
	size_t n = shell_name_len(s);

	return n && s[n] == '=' ? n : 0;
}

/* The element of add before index i that sets the variable add.v[i]
 * (whose name is n bytes long) sets, or -1. */
static int
env_earlier(const struct str_list *add, int i, size_t n)
{
	for (int j = 0; j < i; j++)
		if (!strncmp(add->v[j], add->v[i], n + 1))
			return j;
	return -1;
}

/*
 * Whether the n-byte name at name is one that Slurm or each job's
 * script sets for the job itself: the job script exports env after its
 * own and before srun, so SLURM_JOB_ID=1 sent srun to another job, and
 * PARATUNE_CANDIDATE named another candidate to early stop; srun reads
 * SLURM_NTASKS and SLURM_NNODES back as -n and -N.  Slurm's
 * input variables (SLURM_MPI_TYPE, SLURM_CPU_BIND, ...) are not among
 * them: setting those is what env is for.
 */
static bool
env_reserved(const char *name, size_t n)
{
	static const char *const prefix[] = { "SLURM_JOB", "SLURM_STEP" };
	static const char *const own[] = {
		"SLURM_NODELIST", "SLURM_PROCID", "SLURM_LOCALID",
		"SLURM_NODEID", "SLURM_NTASKS", "SLURM_NPROCS",
		"SLURM_NNODES", "SLURM_TASKS_PER_NODE",
		"PARATUNE_CAMPAIGN", "PARATUNE_CANDIDATE",
		"PARATUNE_SIM_TRUTH",
	};

	for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++)
		if (n >= strlen(prefix[i]) &&
		    !strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		if (strlen(own[i]) == n && !strncmp(name, own[i], n))
			return true;
	return false;
}

/* env = ["NAME=VALUE", ...]: merged by NAME, the later layer winning;
 * within one list the first of two would be lost without a word. */
int
config_apply_env(struct loader *ld, const struct config_key *k,
                 const config_setting_t *s)
{
	struct str_list add = STR_LIST_INIT, *env = &ld->c->env;
	char q[QUOTE_CUT_SIZE];
	int ret = config_read_strings(ld, k, s, &add);

	for (int i = 0; i < add.n && ret == 0; i++) {
		size_t n = env_name_len(add.v[i]);
		int j;

		if (n == 0) {
			ret = config_key_error(ld, s, k, "%s is not "
			                       "NAME=VALUE with a variable "
			                       "name", quote_cut(add.v[i], q));
			break;
		}
		if (env_reserved(add.v[i], n)) {
			ret = config_key_error(ld, s, k, "element %d: "
			                       "variable '%.*s' is set for "
			                       "each job by Slurm or its job "
			                       "script, not by env", i + 1,
			                       (int)n, add.v[i]);
			break;
		}
		if ((j = env_earlier(&add, i, n)) >= 0) {
			ret = config_key_error(ld, s, k, "element %d: "
			                       "variable '%.*s' is given "
			                       "twice (first in element %d)",
			                       i + 1, (int)n, add.v[i], j + 1);
			break;
		}
		for (j = 0; j < env->n; j++)
			if (!strncmp(env->v[j], add.v[i], n + 1))
				break;
		if (j < env->n) {
			free(env->v[j]);
			env->v[j] = xstrdup(add.v[i]);
		} else {
			str_list_push(env, add.v[i]);
		}
	}
	str_list_clear(&add);
	return ret;
}

/*
 * run.export as sbatch's --export reads it: "ALL" or "NONE" (not both),
 * NAME or NAME=VALUE.  It replaces what a lower layer set: ALL from the
 * site and NONE from a campaign do not add up.
 */
static int
check_export(struct loader *ld, const struct config_key *k,
             const config_setting_t *s, struct str_list *l,
             const struct str_list *add)
{
	char q[QUOTE_CUT_SIZE];

	for (int i = 0; i < add->n; i++) {
		const char *e = add->v[i];

		if (strcmp(e, "ALL") && strcmp(e, "NONE") &&
		    !job_env_export_valid(e))
			return config_key_error(ld, s, k, "%s is not ALL, "
			                        "NONE, NAME or NAME=VALUE",
			                        quote_cut(e, q));
	}
	if (str_list_find(add, "ALL") >= 0 && str_list_find(add, "NONE") >= 0)
		return config_key_error(ld, s, k, "ALL and NONE together");
	str_list_clear(l);
	return 0;
}

/* slurm.directives: each one paratune can set on the job, refused here
 * as any other bad value, with its file and line. */
static int
check_directives(struct loader *ld, const struct config_key *k,
                 const config_setting_t *s, const struct str_list *add)
{
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	for (int i = 0; i < add->n && !ret; i++) {
		struct sbatch_extras x = { 0 };

		if (sbatch_extras_add(&x, add->v[i], &why))
			ret = config_key_error(ld, s, k, "%s", why.buf);
	}
	strbuf_release(&why);
	return ret;
}

/* A list of strings appended to what lower layers gave, without
 * repeating one. */
int
config_apply_strings(struct loader *ld, const struct config_key *k,
                     const config_setting_t *s)
{
	struct str_list add = STR_LIST_INIT;
	struct str_list *l = (void *)((char *)ld->c + k->off);
	int ret = config_read_strings(ld, k, s, &add);

	if (ret == 0 && (k->flags & F_EXPORT))
		ret = check_export(ld, k, s, l, &add);
	if (ret == 0 && (k->flags & F_OPTION))
		ret = check_directives(ld, k, s, &add);
	for (int i = 0; i < add.n && ret == 0; i++)
		if (str_list_find(l, add.v[i]) < 0)
			str_list_push(l, add.v[i]);
	str_list_clear(&add);
	return ret;
}
