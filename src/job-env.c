/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* job-env.c - the job's environment from run.export and DIR/submit.env. */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "job-env.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

/* Length of the shell variable name at the start of s (0: none). */
static size_t
name_len(const char *s)
{
	return shell_name_len(s);
}

bool
job_env_export_valid(const char *s)
{
	size_t n = name_len(s);

	return n > 0 && (s[n] == '\0' || s[n] == '=');
}

/* The entry of l for the n-byte name, or NULL. */
static char **
env_slot(const struct str_list *l, const char *name, size_t n)
{
	for (int i = 0; i < l->n; i++)
		if (!strncmp(l->v[i], name, n) && l->v[i][n] == '=')
			return &l->v[i];
	return NULL;
}

/* Set "NAME=VALUE" in out, replacing an entry of the same name. */
static void
env_set(struct str_list *out, const char *kv)
{
	char **slot = env_slot(out, kv, strcspn(kv, "="));

	if (slot) {
		free(*slot);
		*slot = xstrdup(kv);
	} else {
		str_list_push(out, kv);
	}
}

/* Copy NAME's entry from seen, or name=dflt when seen lacks it and dflt
 * is not NULL. */
static void
env_pass(struct str_list *out, const struct str_list *seen,
         const char *name, const char *dflt)
{
	char **slot = env_slot(seen, name, strlen(name));

	if (slot) {
		env_set(out, *slot);
	} else if (dflt) {
		char *kv = xasprintf("%s=%s", name, dflt);

		env_set(out, kv);
		free(kv);
	}
}

static bool
has(const struct str_list *l, const char *s)
{
	return str_list_find(l, s) >= 0;
}

/* SLURM_CONF and the rest of Slurm's own variables, as sbatch always
 * passes them. */
static void
env_slurm(struct str_list *out, const struct str_list *seen)
{
	for (int i = 0; i < seen->n; i++)
		if (!strncmp(seen->v[i], "SLURM_", 6))
			env_set(out, seen->v[i]);
}

/* "ALL", "NONE" or the list, comma-separated, for SLURM_EXPORT_ENV. */
static void
export_value(const struct str_list *export, struct str_list *out)
{
	struct strbuf kv = STRBUF_INIT;

	strbuf_addstr(&kv, "SLURM_EXPORT_ENV=");
	for (int i = 0; i < export->n; i++)
		strbuf_addf(&kv, "%s%s", i ? "," : "", export->v[i]);
	env_set(out, kv.buf);
	strbuf_release(&kv);
}

/* Terminate out with NULL past its last entry: push grows the array
 * by a slot, which then holds the NULL instead of a string. */
static void
env_terminate(struct str_list *out)
{
	str_list_push(out, "");
	free(out->v[--out->n]);
	out->v[out->n] = NULL;
}

void
job_env_set(struct str_list *out, const char *kv)
{
	env_set(out, kv);
	env_terminate(out);
}

void
job_env_build(const struct str_list *seen, const struct str_list *export,
              struct str_list *out)
{
	if (export->n == 0) {
		/* Debian's login.defs ENV_PATH, without /usr/games. */
		env_pass(out, seen, "PATH", "/usr/local/bin:/usr/bin:/bin");
		env_pass(out, seen, "HOME", NULL);
		env_pass(out, seen, "USER", NULL);
		env_pass(out, seen, "SLURM_CONF", NULL);
		env_set(out, "LANG=C");
		env_terminate(out);
		return;
	}
	if (has(export, "ALL")) {
		for (int i = 0; i < seen->n; i++)
			env_set(out, seen->v[i]);
	} else {
		env_slurm(out, seen);
	}
	if (has(export, "NONE"))
		env_set(out, "SLURM_GET_USER_ENV=1");
	for (int i = 0; i < export->n; i++) {
		const char *e = export->v[i];

		if (!strcmp(e, "ALL") || !strcmp(e, "NONE"))
			continue;
		if (strchr(e, '='))
			env_set(out, e);
		else
			env_pass(out, seen, e, NULL);
	}
	export_value(export, out);
	env_terminate(out);
}
