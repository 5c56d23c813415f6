/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store-create.c - creating a campaign directory (plan): every file
 * built in a temporary directory beside it, then renamed into place,
 * never over anything that appeared meanwhile, never over a
 * campaign whose jobs are still in Slurm, and with --force over nothing
 * but a campaign or an empty directory.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "jobscript.h"
#include "owner.h"
#include "store-int.h"
#include "util.h"
#include "xalloc.h"

/* A file of the plan, synced with the rest by sync_tree. */
static int
write_text(const char *dir, const char *name, const struct strbuf *sb)
{
	char *path = xasprintf("%s/%s", dir, name);
	int ret = write_file_new(path, sb->buf, sb->len, 0644);

	free(path);
	return ret;
}

/* A campaign id for job tags: random, so that two plans of the same
 * campaign never share tags in Slurm's accounting. */
static void
new_campaign_id(char *buf, size_t len)
{
	unsigned char r[4] = { 0 };

	if (getentropy(r, sizeof r) != 0) {
		unsigned long x = (unsigned long)time(NULL) ^
		                  ((unsigned long)getpid() << 16);

		memcpy(r, &x, sizeof r);
	}
	snprintf(buf, len, "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
}

/* Every candidate planned, and the journal's first line. */
static int
write_initial_state(const char *dir, const struct grid_result *res)
{
	struct state st;
	struct store_journal j;
	int ret;

	memset(&st, 0, sizeof(st));
	new_campaign_id(st.campaign_id, sizeof st.campaign_id);
	st.v = xcalloc((size_t)res->n + 1, sizeof(*st.v));
	st.n = st.alloc = res->n;
	for (int i = 0; i < res->n; i++) {
		struct cand_status *c = &st.v[i];

		snprintf(c->name, sizeof c->name, "%s", res->v[i].name);
		c->state = CS_PLANNED;
		c->rank = res->v[i].rank;
		c->base = res->v[i].base;
		c->unsafe = res->v[i].est.memory_status != MEM_SAFE;
	}
	ret = journal_open(&j, dir);
	if (ret == 0) {
		ret = store_event_planned(&j, st.campaign_id, res->n);
		st.journal_seq = j.seq;
		journal_close(&j);
	}
	if (ret == 0)
		ret = state_save(dir, &st);
	state_release(&st);
	return ret;
}

/*
 * Render a candidate's job script into tmp/runs/NAME/job.sbatch, with
 * the paths it will have once tmp is renamed to final_dir, so a user can
 * read every script before anything is submitted.  Not synced here:
 * fill_dir syncs the whole directory once, after the last write.
 */
static int
write_job_script(const char *tmp, const char *final_dir,
                 const struct settings *c, const struct jobscript_template *t,
                 const struct candidate *cand, struct strbuf *sb)
{
	char *run = xasprintf("%s/runs/%s", tmp, cand->name);
	char *final_run = xasprintf("%s/runs/%s", final_dir, cand->name);
	char *path = xasprintf("%s/job.sbatch", run);
	int ret = EXIT_CANTCREAT;

	strbuf_reset(sb);
	/* A template that cannot render the campaign is the campaign's
	 * (or the site's) configuration, not a file that failed. */
	if (mkdir(run, 0755) != 0)
		error_errno("cannot create directory '%s'", run);
	else
		ret = jobscript_render_with(c, t, &cand->layout, cand->name,
		                            final_dir, final_run, sb) != 0
		      ? EXIT_CONFIG
		      : write_file_new(path, sb->buf, sb->len, 0755) != 0
		      ? EXIT_CANTCREAT : 0;
	free(path);
	free(final_run);
	free(run);
	return ret;
}

/* Every candidate's job script, from the template read once. */
static int
write_job_scripts(const char *tmp, const char *final_dir,
                  const struct settings *c, const struct grid_result *res)
{
	struct jobscript_template t;
	struct strbuf sb = STRBUF_INIT;
	int ret = jobscript_template_load(c, NULL, &t);

	if (ret < 0)
		ret = EXIT_CONFIG;

	for (int i = 0; ret == 0 && i < res->n; i++)
		ret = write_job_script(tmp, final_dir, c, &t, &res->v[i], &sb);
	jobscript_template_release(&t);
	strbuf_release(&sb);
	return ret;
}

/* Every file of the plan in the fresh directory tmp. */
static int
write_files(const char *tmp, const char *final_dir, const struct settings *c,
            const struct grid_result *res, const char *summary)
{
	struct strbuf sb = STRBUF_INIT;
	char *runs = xasprintf("%s/runs", tmp);
	int ret = EXIT_CANTCREAT;

	settings_write(c, &sb, false);
	if (write_text(tmp, "campaign.conf", &sb) != 0)
		goto cleanup;
	strbuf_reset(&sb);
	candidates_csv_write(&sb, res, c->precision);
	if (write_text(tmp, "candidates.csv", &sb) != 0)
		goto cleanup;
	strbuf_reset(&sb);
	strbuf_addstr(&sb, summary);
	if (write_text(tmp, "plan.txt", &sb) != 0 ||
	    store_home_write(tmp, final_dir) != 0 || mkdir_p(runs, 0755))
		goto cleanup;
	if ((ret = write_job_scripts(tmp, final_dir, c, res)) != 0)
		goto cleanup;
	ret = write_initial_state(tmp, res) != 0 ? EXIT_CANTCREAT : 0;
cleanup:
	free(runs);
	strbuf_release(&sb);
	return ret;
}

/*
 * Fill the fresh directory tmp with every file of the plan, and make it
 * all durable before it is renamed into place: a crash must leave
 * either the temporary directory or a whole campaign, never one whose
 * job scripts or state are missing or empty.  Nothing is synced while
 * the files are written (an fsync a file among the writes, each a
 * journal commit, took most of a plan's time): sync_tree syncs the lot
 * once, after the last write.
 */
static int
fill_dir(const char *tmp, const char *final_dir, const struct settings *c,
         const struct grid_result *res, const char *summary)
{
	int fd = sync_tree_open(tmp), ret;

	if (fd < 0)
		return EXIT_CANTCREAT;
	ret = write_files(tmp, final_dir, c, res, summary);
	if (ret != 0) {
		close(fd);
		return ret;
	}
	return sync_tree(fd, tmp) != 0 ? EXIT_CANTCREAT : 0;
}

/*
 * dir made absolute through its parent (dir itself need not exist),
 * without trailing slashes: "new/" names the directory new, and the
 * temporary directory goes beside it, not into it.  A last component
 * of . or .. names an existing directory: resolved whole.
 */
static char *
absolute_path(const char *dir)
{
	char *copy = xstrdup(dir), *slash, real[PATH_MAX], *res;
	const char *base;

	while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
		copy[strlen(copy) - 1] = '\0';
	slash = strrchr(copy, '/');
	base = slash ? slash + 1 : copy;
	if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		res = xstrdup(realpath(copy, real) ? real : copy);
	} else if (slash == NULL) {
		res = realpath(".", real) ? xasprintf("%s/%s", real, base)
		                          : xstrdup(copy);
	} else {
		*slash = '\0';
		res = realpath(copy[0] ? copy : "/", real)
		      ? xasprintf("%s/%s", strcmp(real, "/") ? real : "", base)
		      : xasprintf("%s/%s", copy, base);
	}
	free(copy);
	return res;
}

/*
 * Whether dir is the working directory or holds it: replacing it would
 * leave the user's shell in a deleted directory, where the new campaign
 * is not seen.
 */
static bool
holds_working_dir(const char *dir)
{
	char cwd[PATH_MAX];
	size_t n = strlen(dir);

	if (getcwd(cwd, sizeof cwd) == NULL)
		return false;
	return strncmp(cwd, dir, n) == 0 && (cwd[n] == '\0' || cwd[n] == '/');
}

/* Whether a directory holds no entry but . and ..; -1 unreadable. */
static int
dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (d == NULL)
		return -1;
	while (empty && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/*
 * --force replaces a campaign directory (one with paratune's state and
 * journal) or an empty directory, nothing else: "plan -o ~/work -f"
 * must not delete a user's files, nor follow a symbolic link to replace
 * what it names.  1 for a campaign, 0 for an empty directory, -1 after
 * an error naming what is there.
 */
static int
check_campaign_shape(const char *path, const char *dir)
{
	char *state = xasprintf("%s/state", path);
	char *journal = xasprintf("%s/journal.log", path);
	bool campaign = path_exists(state) && path_exists(journal);
	struct stat st;
	int empty;

	free(journal);
	free(state);
	if (lstat(path, &st) != 0)
		return error_errno("cannot replace '%s'", dir);
	if (S_ISLNK(st.st_mode))
		return error("cannot replace '%s': it is a symbolic link "
		             "(plan into the directory it names, or remove "
		             "the link)", dir);
	if (!S_ISDIR(st.st_mode))
		return error("cannot replace '%s': it is not a directory", dir);
	if (campaign)
		return 1;
	if ((empty = dir_is_empty(path)) < 0)
		return error_errno("cannot replace '%s'", dir);
	if (!empty)
		return error("cannot replace '%s': it is not a campaign "
		             "directory (no state and journal.log), and "
		             "--force replaces only campaigns or empty "
		             "directories; remove it by hand or plan into "
		             "another", dir);
	return 0;
}

/*
 * An existing campaign may be replaced only when Slurm has none of its
 * jobs: replacing it would orphan them and lose their results.  On
 * success the old campaign's lock is held in *old (closed by the
 * caller), so that no resume submits from it while it is replaced.
 */
static int
check_replaceable(const char *path, const char *dir, struct store *old)
{
	struct strbuf jobs = STRBUF_INIT;
	int n = 0, ret;

	memset(old, 0, sizeof(*old));
	old->lock_fd = old->journal.fd = -1;
	if ((ret = check_campaign_shape(path, dir)) != 1)
		return ret; /* 0: an empty directory, nothing to lose */
	ret = store_open(old, path, STORE_LOCK_TRY | STORE_REPLACING);
	if (ret == 1)
		return error("cannot replace '%s': another paratune is "
		             "working on it", dir);
	if (ret != 0)
		return error("cannot replace '%s': its state cannot be read "
		             "(move it away by hand if it is not needed)", dir);
	for (int i = 0; i < old->st.n; i++) {
		const struct cand_status *c = &old->st.v[i];

		if (!cand_state_active(c->state))
			continue;
		if (n++ < 8)
			strbuf_addf(&jobs, "%s%s (job %u, %s)",
			            n > 1 ? ", " : "",
			            c->name, (unsigned)c->job_id,
			            cand_state_name(c->state));
	}
	if (n == 0) {
		strbuf_release(&jobs);
		return 0;
	}
	ret = error("cannot replace '%s': %d of its jobs may still be in "
	            "Slurm: %s%s; run 'paratune cancel %s' first", dir, n,
	            jobs.buf, n > 8 ? ", ..." : "", dir);
	strbuf_release(&jobs);
	store_close(old, false);
	return ret;
}

/*
 * Rename tmp to path (dir, as the user named it) only when nothing is
 * there: a directory that appeared while we planned (another plan, a
 * user's files) is kept.
 */
static int
rename_noreplace(const char *tmp, const char *path, const char *dir)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EEXIST || errno == ENOTEMPTY)
		return error("'%s' appeared while planning; it is kept (plan "
		             "again, or use another directory)", dir);
	if (errno != EINVAL && errno != ENOSYS)
		return error_errno("cannot rename '%s' to '%s'", tmp, dir);
	/* A file system without RENAME_NOREPLACE: an empty directory can
	 * still be replaced in the instant between the check and the
	 * rename, but nothing with files in it. */
	if (path_exists(path))
		return error("'%s' appeared while planning; it is kept", dir);
	if (rename(tmp, path) != 0)
		return error_errno("cannot rename '%s' to '%s'", tmp, dir);
	return 0;
}

/* Make tmp a directory beside dir that only its owner can write. */
static int
make_temp_dir(char *tmp, const char *dir)
{
	mode_t mask;

	if (mkdtemp(tmp) == NULL)
		return error_errno("cannot create a directory beside '%s'",
		                   dir);
	/* mkdtemp makes 0700; the campaign follows the user's umask, but
	 * is never writable by its group or others, who could replace its
	 * state and job scripts whatever their own modes (a umask of 002
	 * or 000), and whom owner_run() refuses for that. */
	mask = umask(0);
	umask(mask);
	chmod(tmp, 0777 & ~(mask | S_IWGRP | S_IWOTH));
	return 0;
}

/*
 * Whether a campaign may be planned into dir (final_dir once absolute):
 * 0, or the exit code once said why not.  Nothing is locked or read
 * here: whether a campaign there may be replaced is check_replaceable's
 * question, asked once the new one is built.
 */
static int
check_target(const char *dir, const char *final_dir, bool force)
{
	/* Root plans only where no other user can rename or plant what it
	 * writes beside and removes (the old campaign under --force): the
	 * path as given, whose links absolute_path() has resolved. */
	int held;

	if ((held = owner_root_new_path(dir)) != 0 ||
	    (held = owner_root_new_path(final_dir)) != 0)
		return held;
	if (path_exists(final_dir) && !force) {
		error("'%s' already exists (--force replaces it once none of "
		      "its jobs is queued or running)", dir);
		return EXIT_CANTCREAT;
	}
	if (path_exists(final_dir) && holds_working_dir(final_dir)) {
		error("cannot replace '%s': it holds the working directory "
		      "(plan from outside it, or into another directory)", dir);
		return EXIT_CANTCREAT;
	}
	return 0;
}

int
store_create(const char *dir, const struct settings *c,
             const struct grid_result *res, const char *summary,
             bool force)
{
	char *final_dir = absolute_path(dir);
	char *tmp = xasprintf("%s.plan-XXXXXX", final_dir);
	char *old_dir = NULL;
	struct store old;
	int ret = EXIT_CANTCREAT, status;

	memset(&old, 0, sizeof(old));
	old.lock_fd = old.journal.fd = -1;
	if ((status = check_target(dir, final_dir, force)) != 0) {
		ret = status;
		goto cleanup;
	}
	if (make_temp_dir(tmp, dir) != 0)
		goto cleanup;
	if ((status = fill_dir(tmp, final_dir, c, res, summary)) != 0) {
		ret = status;
		goto fail;
	}
	if (force && path_exists(final_dir)) {
		if (check_replaceable(final_dir, dir, &old) != 0)
			goto fail;
		/* Move the old one aside first so a failure keeps it. */
		old_dir = xasprintf("%s.old-%ld", final_dir, (long)getpid());
		/* NOLINTNEXTLINE(readability-suspicious-call-argument) */
		if (rename(final_dir, old_dir) != 0) { /* dir to old_dir */
			error_errno("cannot move '%s' aside", dir);
			goto fail;
		}
	}
	if (rename_noreplace(tmp, final_dir, dir) != 0) {
		if (old_dir && rename(old_dir, final_dir) != 0)
			error_errno("the old campaign is left at '%s'",
			            old_dir);
		goto fail;
	}
	/* The rename itself made durable, as write_file_atomic does. */
	ret = fsync_parent(final_dir) != 0 ? EXIT_CANTCREAT : 0;
	if (old_dir)
		remove_tree(old_dir);
	goto cleanup;
fail:
	remove_tree(tmp);
cleanup:
	store_close(&old, false);
	free(final_dir);
	free(old_dir);
	free(tmp);
	return ret;
}
