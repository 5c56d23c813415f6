/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* test-job-env.c - run.export and DIR/submit.env. */
#include "autoconfig.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "job-env.h"
#include "store.h"
#include "xalloc.h"

/* What submit saw. */
static char *const seen_env[] = {
	"PATH=/opt/site/bin:/usr/bin", "HOME=/home/u", "USER=u",
	"SLURM_CONF=/etc/slurm/site.conf", "SLURM_ACCOUNT=a1",
	"TOKEN=secret", "MULTI=line1\nline2", NULL,
};

static void
list_of(struct str_list *l, char *const *v)
{
	for (; *v; v++)
		str_list_push(l, *v);
}

/* job_env_build(seen_env, export...) into out. */
static void
build(struct str_list *out, const char *const *export)
{
	struct str_list seen = STR_LIST_INIT, ex = STR_LIST_INIT;

	list_of(&seen, seen_env);
	for (; *export; export++)
		str_list_push(&ex, *export);
	job_env_build(&seen, &ex, out);
	/* libslurm counts the environment up to a NULL. */
	CU_ASSERT_PTR_NULL(out->v[out->n]);
	str_list_clear(&seen);
	str_list_clear(&ex);
}

static bool
has(const struct str_list *l, const char *kv)
{
	return str_list_find(l, kv) >= 0;
}

/* Whether l has an entry for name. */
static bool
has_name(const struct str_list *l, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < l->n; i++)
		if (!strncmp(l->v[i], name, n) && l->v[i][n] == '=')
			return true;
	return false;
}

static void
test_default(void)
{
	static const char *const none[] = { NULL };
	struct str_list out = STR_LIST_INIT;

	build(&out, none);
	CU_ASSERT_EQUAL(out.n, 5);
	CU_ASSERT_TRUE(has(&out, "PATH=/opt/site/bin:/usr/bin"));
	CU_ASSERT_TRUE(has(&out, "HOME=/home/u"));
	CU_ASSERT_TRUE(has(&out, "USER=u"));
	CU_ASSERT_TRUE(has(&out, "SLURM_CONF=/etc/slurm/site.conf"));
	CU_ASSERT_TRUE(has(&out, "LANG=C"));
	CU_ASSERT_FALSE(has_name(&out, "TOKEN"));
	CU_ASSERT_FALSE(has_name(&out, "SLURM_EXPORT_ENV"));
	str_list_clear(&out);
}

static void
test_all(void)
{
	static const char *const all[] = { "ALL", "TOKEN=replaced", NULL };
	struct str_list out = STR_LIST_INIT;

	build(&out, all);
	CU_ASSERT_TRUE(has(&out, "PATH=/opt/site/bin:/usr/bin"));
	CU_ASSERT_TRUE(has(&out, "MULTI=line1\nline2"));
	CU_ASSERT_TRUE(has(&out, "TOKEN=replaced"));
	CU_ASSERT_FALSE(has(&out, "TOKEN=secret"));
	CU_ASSERT_TRUE(has(&out, "SLURM_EXPORT_ENV=ALL,TOKEN=replaced"));
	CU_ASSERT_EQUAL(out.n, 8);
	str_list_clear(&out);
}

static void
test_none(void)
{
	static const char *const none[] = { "NONE", NULL };
	struct str_list out = STR_LIST_INIT;

	build(&out, none);
	CU_ASSERT_TRUE(has(&out, "SLURM_CONF=/etc/slurm/site.conf"));
	CU_ASSERT_TRUE(has(&out, "SLURM_ACCOUNT=a1"));
	CU_ASSERT_TRUE(has(&out, "SLURM_GET_USER_ENV=1"));
	CU_ASSERT_TRUE(has(&out, "SLURM_EXPORT_ENV=NONE"));
	CU_ASSERT_FALSE(has_name(&out, "PATH"));
	CU_ASSERT_FALSE(has_name(&out, "TOKEN"));
	CU_ASSERT_EQUAL(out.n, 4);
	str_list_clear(&out);
}

static void
test_list(void)
{
	static const char *const l[] = { "PATH", "UNSET_HERE", "OMP=4", NULL };
	struct str_list out = STR_LIST_INIT;

	build(&out, l);
	CU_ASSERT_TRUE(has(&out, "PATH=/opt/site/bin:/usr/bin"));
	CU_ASSERT_TRUE(has(&out, "OMP=4"));
	CU_ASSERT_TRUE(has(&out, "SLURM_ACCOUNT=a1"));
	CU_ASSERT_FALSE(has_name(&out, "UNSET_HERE"));
	CU_ASSERT_FALSE(has_name(&out, "HOME"));
	CU_ASSERT_FALSE(has_name(&out, "TOKEN"));
	CU_ASSERT_TRUE(has(&out, "SLURM_EXPORT_ENV=PATH,UNSET_HERE,OMP=4"));
	str_list_clear(&out);
}

static void
test_export_valid(void)
{
	CU_ASSERT_TRUE(job_env_export_valid("PATH"));
	CU_ASSERT_TRUE(job_env_export_valid("_X1=a=b"));
	CU_ASSERT_FALSE(job_env_export_valid(""));
	CU_ASSERT_FALSE(job_env_export_valid("1X"));
	CU_ASSERT_FALSE(job_env_export_valid("A-B"));
	CU_ASSERT_FALSE(job_env_export_valid("=v"));
}

/* A store with just its directory, as store_save_env needs. */
static void
fake_store(struct store *s, char *dir)
{
	memset(s, 0, sizeof(*s));
	s->dir = dir;
}

static void
test_submit_env_recorded_once(void)
{
	char *dir = harness_tmpdir();
	char *path = xasprintf("%s/submit.env", dir);
	char *const later[] = { "PATH=/cron/bin", NULL };
	struct str_list env = STR_LIST_INIT;
	struct store s;
	struct stat st;

	fake_store(&s, dir);
	CU_ASSERT_EQUAL(store_load_env(&s, &env), 1); /* none yet */
	CU_ASSERT_EQUAL(store_save_env(&s, seen_env), 0);
	CU_ASSERT_EQUAL_FATAL(lstat(path, &st), 0);
	CU_ASSERT_TRUE(S_ISREG(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
	/* A later submission (cron's resume) changes nothing. */
	CU_ASSERT_EQUAL(store_save_env(&s, later), 0);
	CU_ASSERT_EQUAL(store_load_env(&s, &env), 0);
	CU_ASSERT_EQUAL(env.n, 7);
	CU_ASSERT_TRUE(has(&env, "PATH=/opt/site/bin:/usr/bin"));
	CU_ASSERT_TRUE(has(&env, "MULTI=line1\nline2"));
	str_list_clear(&env);
	/* One that others can change is refused. */
	CU_ASSERT_EQUAL(chmod(path, 0666), 0);
	CU_ASSERT_EQUAL(store_load_env(&s, &env), -1);
	CU_ASSERT_EQUAL(env.n, 0);
	/* So is a symbolic link in its place. */
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(symlink("/etc/passwd", path), 0);
	CU_ASSERT_EQUAL(store_load_env(&s, &env), -1);
	/* And a file that is not what store_save_env writes. */
	CU_ASSERT_EQUAL(unlink(path), 0);
	{
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

		CU_ASSERT_TRUE(fd >= 0);
		CU_ASSERT_EQUAL(write(fd, "PATH=/x\0noequals\0", 17), 17);
		close(fd);
	}
	CU_ASSERT_EQUAL(store_load_env(&s, &env), -1);
	CU_ASSERT_EQUAL(env.n, 0);
	harness_rmtree(dir);
	free(path);
	free(dir);
}

static const struct harness_test job_env_tests[] = {
	{ "no run.export: paratune's own set", test_default },
	{ "ALL: everything submit saw", test_all },
	{ "NONE: Slurm's variables only", test_none },
	{ "a list: the names and values given", test_list },
	{ "run.export entries checked", test_export_valid },
	{ "submit.env written once, read back safely",
	  test_submit_env_recorded_once },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "job-env", job_env_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
