/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* util.c - number parsing and file-system helpers. */
#include "autoconfig.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "error.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

/* Whether s can start a number as written: not empty, no leading blank
 * (strtol and strtod skip it, and " 5" passed where "5 " failed). */
static bool
number_start(const char *s)
{
	return s != NULL && *s != '\0' && !isspace((unsigned char)*s);
}

int
parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (!number_start(s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end != '\0')
		return -1;
	if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
		return -2;
	if (errno)
		return -1;
	*out = (int)v;
	return 0;
}

int
parse_double(const char *s, double *out)
{
	char *end;
	double v;

	/* strtod reads hexadecimal too: --tflops 0x10 was 16, where --gpus
	 * 0x10 and every integer refuse it. */
	if (!number_start(s) || strpbrk(s, "xX"))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0')
		return -1;
	if (errno == ERANGE)
		return -2; /* 1e400, 1e-400 */
	if (errno || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* Public: see util.h. */
int
fsync_parent(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int fd, ret = 0;

	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fsync(fd) != 0)
		ret = error_errno("cannot sync directory '%s'", dir);
	if (fd >= 0)
		close(fd);
	free(dir);
	return ret;
}

int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Whether path names something a file renamed onto it would destroy: a
 * device, FIFO or socket, or a link to one (/dev/stdout), said in an
 * error.  rename(2) replaces the name, not what it leads to, so that
 * `calibrate -o /dev/null` run as root put a regular file in place of
 * the device node.  A link to a regular file, or to nothing, is
 * replaced by the new file as before.
 */
static bool
not_replaceable(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0 || S_ISREG(st.st_mode) ||
	    S_ISDIR(st.st_mode))
		return false;
	error("cannot replace '%s': not a regular file (a file written "
	      "there would take the place of the device, FIFO or socket); "
	      "name a file", path);
	return true;
}

char *
write_file_prepare(const char *path, const void *data, size_t len,
                   int mode)
{
	char *tmp;
	int fd;

	if (not_replaceable(path))
		return NULL;
	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	/* Created exclusively: whatever sits at the temporary name (a
	 * stale file of a killed run with our pid, or a link or FIFO
	 * planted there) is removed, never written through or waited on. */
	if (unlink(tmp) != 0 && errno != ENOENT) {
		error_errno("cannot remove '%s'", tmp);
		goto fail;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	          mode);

	if (fd < 0) {
		/* The file asked for: the temporary name is ours, and a
		 * missing or unwritable directory is the same for both. */
		error_errno("cannot create '%s'", path);
		goto fail;
	}
	if (write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		error_errno("cannot write '%s'", path);
		close(fd);
		unlink(tmp);
		goto fail;
	}
	if (close(fd) != 0) {
		error_errno("cannot write '%s'", path);
		unlink(tmp);
		goto fail;
	}
	return tmp;
fail:
	free(tmp);
	return NULL;
}

int
write_file_commit(const char *path, char *tmp)
{
	if (rename(tmp, path) != 0) {
		error_errno("cannot replace '%s'", path);
		write_file_abandon(tmp);
		return -1;
	}
	free(tmp);
	return fsync_parent(path);
}

void
write_file_abandon(char *tmp)
{
	unlink(tmp);
	free(tmp);
}

int
write_file_atomic(const char *path, const void *data, size_t len, int mode)
{
	char *tmp = write_file_prepare(path, data, len, mode);

	return tmp ? write_file_commit(path, tmp) : -1;
}

/* Public: see util.h. */
int
write_file_new(const char *path, const void *data, size_t len, int mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	              O_CLOEXEC, mode);

	if (fd < 0)
		return error_errno("cannot create '%s'", path);
	if (write_all(fd, data, len) != 0) {
		error_errno("cannot write '%s'", path);
		close(fd);
		return -1;
	}
	if (close(fd) != 0)
		return error_errno("cannot write '%s'", path);
	return 0;
}

static int fsync_beneath(int fd, const char *path);

/* fsync the entry name of the directory dir (at path): a directory with
 * all it holds, anything else alone. */
static int
fsync_entry(int dir, const char *path, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	                O_CLOEXEC);
	struct stat st;
	char *sub;
	int ret;

	if (fd < 0 || fstat(fd, &st) != 0) {
		ret = error_errno("cannot sync '%s/%s'", path, name);
	} else if (S_ISDIR(st.st_mode)) {
		sub = xasprintf("%s/%s", path, name);
		ret = fsync_beneath(fd, sub); /* closes fd */
		free(sub);
		return ret;
	} else {
		ret = fsync(fd) == 0 ? 0
		      : error_errno("cannot sync '%s/%s'", path, name);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* fsync what the open directory fd (at path) holds, then fd itself;
 * stops at the first failure.  Closes fd. */
static int
fsync_beneath(int fd, const char *path)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int ret = 0;

	if (d == NULL) {
		close(fd);
		return error_errno("cannot read directory '%s'", path);
	}
	while (ret == 0 && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			ret = fsync_entry(dirfd(d), path, e->d_name);
	if (ret == 0 && fsync(dirfd(d)) != 0)
		ret = error_errno("cannot sync directory '%s'", path);
	closedir(d);
	return ret;
}

/* Public: see util.h. */
int
sync_tree_open(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return error_errno("cannot open directory '%s'", dir);
	return fd;
}

/* Public: see util.h. */
int
sync_tree(int fd, const char *dir)
{
	/* One writeback of the file system for every file at once, where
	 * one fsync a file costs a journal commit or a disk cache flush
	 * each.  It reports the write errors met since fd was opened
	 * (Linux 5.8 and later).  Where it is refused (a filter on system
	 * calls), every file and directory is synced one by one. */
	if (syncfs(fd) == 0) {
		close(fd);
		return 0;
	}
	if (errno != ENOSYS && errno != EPERM) {
		error_errno("cannot sync '%s'", dir);
		close(fd);
		return -1;
	}
	return fsync_beneath(fd, dir);
}

int
mkdir_p(const char *path, int mode)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1; *s && ret == 0; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST)
			ret = error_errno("cannot create directory '%s'", p);
		*s = '/';
	}
	if (ret == 0 && mkdir(p, (mode_t)mode) != 0 && errno != EEXIST)
		ret = error_errno("cannot create directory '%s'", p);
	free(p);
	return ret;
}

/*
 * Remove the entry name of directory parent and, for a directory,
 * everything in it, never following a symbolic link: each directory is
 * opened from its parent's descriptor with O_NOFOLLOW, so one renamed
 * away and replaced by a link meanwhile (a user's, under root's plan
 * --force) cannot lead the removal anywhere else; the link itself is
 * what gets removed.
 */
static int
remove_at(int parent, const char *name)
{
	struct dirent *e;
	int fd, ret = 0;
	DIR *d;

	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	            O_CLOEXEC);
	if (fd < 0)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    remove_at(dirfd(d), e->d_name) != 0)
			ret = -1;
	closedir(d);
	if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		ret = -1;
	return ret;
}

int
remove_tree(const char *path)
{
	return remove_at(AT_FDCWD, path);
}

bool
path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int
fs_room(const char *path, double *free_mib, bool *inodes)
{
	struct statvfs fs;

	if (statvfs(path, &fs) != 0)
		return -1;
	*free_mib = (double)fs.f_bavail * (double)fs.f_frsize / 1048576.0;
	*inodes = fs.f_files == 0 || fs.f_favail > 0;
	return 0;
}

void
format_number(struct strbuf *sb, double v, int digits)
{
	if (!isfinite(v)) {
		strbuf_addstr(sb, "null");
		return;
	}
	v += 0.0; /* -0 + 0 is +0: print "0", never "-0" */
	strbuf_addf(sb, "%.*g", digits, v);
}

int
figure_decimals(double v, int decimals, int sig)
{
	int need;

	if (!isfinite(v) || v == 0)
		return decimals;
	/* The first significant digit is 10^mag's: sig of them show
	 * with sig - 1 - mag decimals. */
	need = sig - 1 - (int)floor(log10(fabs(v)));
	if (need <= decimals)
		return decimals;
	return need <= FIGURE_DECIMALS_MAX ? need : -1;
}

/* quote_cut and text_cut, with q around the text. */
static const char *
cut(const char *s, char *buf, const char *q)
{
	size_t n = strlen(s), shown = QUOTE_CUT_SHOWN;

	if (n <= shown) {
		snprintf(buf, QUOTE_CUT_SIZE, "%s%s%s", q, s, q);
		return buf;
	}
	/* Back to the start of a character (at most three bytes, the
	 * longest tail): a cut one would show as U+FFFD. */
	while (shown > QUOTE_CUT_SHOWN - 3 &&
	       ((unsigned char)s[shown] & 0xc0) == 0x80)
		shown--;
	snprintf(buf, QUOTE_CUT_SIZE, "%s%.*s...%s (%zu bytes)", q, (int)shown,
	         s, q, n);
	return buf;
}

const char *
quote_cut(const char *s, char *buf)
{
	return cut(s, buf, "'");
}

const char *
text_cut(const char *s, char *buf)
{
	return cut(s, buf, "");
}

int
output_file_check(const char *path)
{
	char *dir;
	struct stat st;
	int ret = 0;

	if (not_replaceable(path))
		return -1;
	dir = path_dir(path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		ret = -1;
	} else if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		ret = -1;
	} else if (access(dir, W_OK | X_OK) != 0) {
		ret = -1;  /* missing or not ours to write: errno says */
	}
	if (ret != 0)
		error_errno("cannot create '%s'", path);
	free(dir);
	return ret;
}

char *
path_absolute(const char *path)
{
	char cwd[PATH_MAX];

	return path[0] == '/' || getcwd(cwd, sizeof cwd) == NULL
	       ? xstrdup(path) : xasprintf("%s/%s", cwd, path);
}

char *
path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* fd as a stream when it is a regular file, or with pipes a pipe or
 * FIFO; closed and NULL (errno EINVAL for anything else) when not. */
static FILE *
fdopen_kind(int fd, bool pipes)
{
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 ||
	    !(S_ISREG(st.st_mode) || (pipes && S_ISFIFO(st.st_mode)))) {
		int e = errno;

		if (fstat(fd, &st) == 0)
			e = EINVAL;
		close(fd);
		errno = e;
		return NULL;
	}
	/* Reads of a regular file never block, and a pipe's should wait
	 * for its writer: stdio gets an ordinary descriptor. */
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	f = fdopen(fd, "r");
	if (f == NULL)
		close(fd);
	return f;
}

FILE *
fopen_regular(const char *path)
{
	return fdopen_kind(open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	                              O_CLOEXEC), false);
}

FILE *
fopen_named(const char *path)
{
	return fdopen_kind(open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC),
	                   true);
}

int
read_capped(int fd, size_t max, struct strbuf *sb)
{
	size_t start = sb->len;

	for (;;) {
		size_t want = max + 1 - (sb->len - start);
		ssize_t n;

		if (want == 0)
			return 1;
		if (want > 65536)
			want = 65536;
		strbuf_grow(sb, want);
		n = read(fd, sb->buf + sb->len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		strbuf_setlen(sb, sb->len + (size_t)n);
	}
}

static bool
is_link_at(int at, const char *name)
{
	struct stat st;

	return fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISLNK(st.st_mode);
}

FILE *
fopen_regular_beneath(const char *dir, const char *rel)
{
	char *copy = xstrdup(rel), *part = copy, *slash;
	int at = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), next, e;

	/* Each directory of rel is opened from the one before, refusing a
	 * link: a runs/NAME made a link to another's directory is not
	 * entered, whatever the links' own targets. */
	while (at >= 0 && (slash = strchr(part, '/')) != NULL) {
		*slash = '\0';
		next = openat(at, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		                        O_CLOEXEC);
		e = errno;
		if (next < 0 && e == ENOTDIR && is_link_at(at, part))
			e = ELOOP; /* O_DIRECTORY answers before O_NOFOLLOW */
		close(at);
		errno = e;
		at = next;
		part = slash + 1;
	}
	next = at < 0 ? -1 : openat(at, part, O_RDONLY | O_NOFOLLOW |
	                                      O_NONBLOCK | O_CLOEXEC);
	e = errno;
	if (at >= 0)
		close(at);
	free(copy);
	errno = e;
	return fdopen_kind(next, false);
}

bool
stat_is_private(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == geteuid() &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

const char *
open_error(int e)
{
	/* O_NOFOLLOW's "Too many levels of symbolic links" misleads. */
	return e == EINVAL ? "not a regular file"
	       : e == ELOOP ? "a symbolic link, not followed" : strerror(e);
}

char *
build_tree_dir(void)
{
	char exe[PATH_MAX], *dir, *probe;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	bool tree;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	dir = path_dir(exe);
	probe = xasprintf("%s/templates/megatron-lm.sbatch", dir);
	tree = access(probe, R_OK) == 0;
	free(probe);
	probe = xasprintf("%s/paratune-simtrain", dir);
	tree = tree && access(probe, X_OK) == 0;
	free(probe);
	if (!tree) {
		free(dir);
		return NULL;
	}
	return dir;
}

size_t
shell_name_len(const char *s)
{
	size_t n = 0;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') ||
	      s[0] == '_'))
		return 0;
	while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') ||
	       (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
		n++;
	return n;
}
