/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store-env.c - DIR/submit.env: the environment `submit` saw.
 *
 * A job's environment is built from this file, never from the process
 * that happens to submit it: an interactive `submit` and cron's `resume`
 * then give every job of a campaign the same PATH.  The file is written
 * once, by the first submit, and only read afterwards.  It holds the
 * submitting shell's variables (tokens among them), so it is the user's
 * alone (0600), and it is read back only when it is a regular file that
 * the user owns and no one else can change.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "store.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

#define SUBMIT_ENV "submit.env"
/* Far above any real environment (Linux caps argv + envp at 2 MiB). */
#define SUBMIT_ENV_MAX (4 << 20)

/* "NAME=VALUE\0" for each entry of envp with a name; values may hold
 * newlines, never a NUL. */
static void
env_serialise(char *const *envp, struct strbuf *sb)
{
	for (; *envp; envp++) {
		const char *eq = strchr(*envp, '=');

		if (eq && eq != *envp)
			strbuf_add(sb, *envp, strlen(*envp) + 1);
	}
}

int
store_save_env(struct store *s, char *const *envp)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/" SUBMIT_ENV, s->dir);
	char *tmp = xasprintf("%s/.submit.env.XXXXXX", s->dir);
	int fd, ret = 0;

	if (access(path, F_OK) == 0 || errno != ENOENT)
		goto cleanup; /* recorded by an earlier submit: kept */
	env_serialise(envp, &sb);
	/* Written whole beside it, then linked into place: link() never
	 * replaces, so the first submit's file is the one that stays,
	 * and no reader sees it half written. */
	if ((fd = mkstemp(tmp)) < 0) {
		ret = error_errno("cannot create '%s'", tmp);
		goto cleanup;
	}
	if (fchmod(fd, 0600) != 0 || write_all(fd, sb.buf, sb.len) != 0 ||
	    fsync(fd) != 0) {
		ret = error_errno("cannot write '%s'", tmp);
		close(fd);
		unlink(tmp);
		goto cleanup;
	}
	close(fd);
	if (link(tmp, path) != 0 && errno != EEXIST)
		ret = error_errno("cannot create '%s'", path);
	unlink(tmp);
cleanup:
	strbuf_release(&sb);
	free(tmp);
	free(path);
	return ret;
}

/* Read all of fd (at most SUBMIT_ENV_MAX bytes) into sb. */
static int
read_all(int fd, struct strbuf *sb, const char *path)
{
	char buf[8192];
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error_errno("cannot read '%s'", path);
		strbuf_add(sb, buf, (size_t)n);
		if (sb->len > SUBMIT_ENV_MAX)
			return error("%s: larger than %d bytes", path,
			             SUBMIT_ENV_MAX);
	}
	return 0;
}

/* Open path as a file only its owner, the user, can change. */
static int
open_private(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			return -2;
		return error_errno("cannot open '%s'", path);
	}
	if (fstat(fd, &st) != 0 || !stat_is_private(&st)) {
		close(fd);
		return error("%s: not a regular file of yours that only you "
		             "can change: refused", path);
	}
	return fd;
}

int
store_load_env(const struct store *s, struct str_list *env)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/" SUBMIT_ENV, s->dir);
	int fd = open_private(path), ret = 0;

	if (fd < 0) {
		ret = fd == -2 ? 1 : -1;
		goto cleanup;
	}
	ret = read_all(fd, &sb, path);
	close(fd);
	if (ret == 0 && sb.len && sb.buf[sb.len - 1] != '\0')
		ret = error("%s: cut short (its last entry has no end)", path);
	for (size_t at = 0; ret == 0 && at < sb.len;) {
		const char *e = sb.buf + at;
		const char *eq = strchr(e, '=');

		if (eq == NULL || eq == e) {
			ret = error("%s: entry %d is not NAME=VALUE", path,
			            env->n + 1);
			break;
		}
		str_list_push(env, e);
		at += strlen(e) + 1;
	}
	if (ret != 0)
		str_list_clear(env);
cleanup:
	strbuf_release(&sb);
	free(path);
	return ret;
}
