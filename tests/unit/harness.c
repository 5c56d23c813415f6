/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* harness.c - CUnit runner and small helpers for the unit tests. */
#include "autoconfig.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "strbuf.h"
#include "xalloc.h"

static int
add_suites(const struct harness_suite *suites)
{
	for (const struct harness_suite *s = suites; s->name; s++) {
		CU_pSuite cs = CU_add_suite(s->name, NULL, NULL);

		if (cs == NULL)
			return -1;
		for (const struct harness_test *t = s->tests; t->name; t++)
			if (CU_add_test(cs, t->name, t->fn) == NULL)
				return -1;
	}
	return 0;
}

int
harness_main(int argc, char **argv, const struct harness_suite *suites)
{
	unsigned failures;

	(void)argc;
	(void)argv;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 99;
	if (add_suites(suites) != 0) {
		fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 99;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failure_records();
	if (CU_get_error() != CUE_SUCCESS)
		failures++;
	CU_cleanup_registry();
	return failures ? 1 : 0;
}

const char *
harness_real_logs(void)
{
	const char *dir = getenv("PARATUNE_REAL_LOGS");
	struct stat st;

	if (dir == NULL || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return dir;
}

char *
harness_srcpath(const char *rel)
{
	const char *top = getenv("PARATUNE_SRCDIR");

	return xasprintf("%s/%s", top ? top : ".", rel);
}

char *
harness_slurp(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		strbuf_add(&sb, chunk, n);
	fclose(f);
	return strbuf_detach(&sb, len);
}

char *
harness_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *path = xasprintf("%s/paratune-test-XXXXXX", base ? base : "/tmp");

	if (mkdtemp(path) == NULL) {
		free(path);
		return NULL;
	}
	return path;
}

void
harness_rmtree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (d == NULL) {
		unlink(path);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char *p;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", path, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			harness_rmtree(p);
		else
			unlink(p);
		free(p);
	}
	closedir(d);
	rmdir(path);
}

char *
harness_capture_stderr(int (*fn)(void *), void *arg, int *ret)
{
	char *dir = harness_tmpdir();
	char *file = xasprintf("%s/stderr", dir);
	int saved = dup(STDERR_FILENO);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char *out;

	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	close(fd);
	*ret = fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	out = harness_slurp(file, NULL);
	harness_rmtree(dir);
	free(file);
	free(dir);
	return out ? out : xstrdup("");
}
