/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-include.c - every @include target checked before libconfig
 * reads the file.
 *
 * libconfig 1.5 (Debian 12) opens an @include'd path with fopen(), which
 * succeeds on a directory; its flex scanner then fails to read it and
 * calls exit(2) ("input in flex scanner failed"), taking down the whole
 * process: with `resume DIR...` every later campaign too.  Version 1.7
 * added config_set_include_func() to hook the opening, but 1.5 has no
 * hook, so the files are read here first, the way libconfig's scanner
 * finds the directives, and each target must be a readable regular file.
 * Each is opened once and read whole; libconfig is given what was read
 * (struct config_file, config-int.h), never a name to open again.  Each
 * line is read as libconfig's scanner reads it by config-scan.c.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-int.h"
#include "config-scan.h"
#include "error.h"
#include "owner.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

/* libconfig's own limit (MAX_INCLUDE_DEPTH): it reads files included
 * this deep below the layer's file, and no deeper.  A cycle is refused
 * before it gets there. */
#define INCLUDE_DEPTH_MAX 10

/* Where targets are looked for, how messages name the files, and the
 * copies made for libconfig. */
struct include_walk {
	const char *dir;        /* the include directory: the layer file's */
	bool qualify;           /* name an included file DIR/TARGET, as the
	                           loader does when the top path has a '/' */
	int refusal;            /* owner_root_path's when root refuses a
	                           target */
	struct config_files *files;
	/* The files being read, the top one first, by their identity:
	 * libconfig reads INCLUDE_DEPTH_MAX below the top. */
	dev_t dev[INCLUDE_DEPTH_MAX + 1];
	ino_t ino[INCLUDE_DEPTH_MAX + 1];
};

static int check_text(struct include_walk *w, const struct strbuf *src,
                      const char *name, int depth, const char *key,
                      struct strbuf *out);

/* The depth of the file being read that st is (a file that includes
 * the one at depth, or that one itself), or -1. */
static int
include_cycle(const struct include_walk *w, const struct stat *st,
              int depth)
{
	for (int i = 0; i <= depth; i++)
		if (w->dev[i] == st->st_dev && w->ino[i] == st->st_ino)
			return i;
	return -1;
}

static const char include_too_large[] =
	"larger than the " CONFIG_FILE_MAX_TEXT " a configuration file may "
	"hold with the files it includes";

/* A new entry of files, for the file an @include names target (NULL:
 * the layer's own). */
static struct config_file *
files_add(struct config_files *files, const char *target)
{
	struct config_file *cf = xcalloc(1, sizeof(*cf));

	cf->target = target ? xstrdup(target) : NULL;
	cf->fd = -1;
	strbuf_init(&cf->text, 0);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
	ALLOC_GROW(files->v, files->n + 1, files->alloc);
	files->v[files->n++] = cf;
	return cf;
}

/* cf's text into an anonymous file, which libconfig opens as
 * CONFIG_INCLUDE_DIR/ID. */
static int
files_copy(struct config_file *cf)
{
	cf->fd = memfd_create("paratune-include", MFD_CLOEXEC);
	if (cf->fd < 0 || write_all(cf->fd, cf->text.buf, cf->text.len) != 0)
		return -1;
	snprintf(cf->id, sizeof cf->id, "%d", cf->fd);
	return 0;
}

/*
 * The target open at fd, which the @include at name:line calls target,
 * read whole (within what the layer may still read), checked in turn
 * (its own messages naming it file) and copied for libconfig: *id names
 * the copy.
 */
static int
read_target(struct include_walk *w, int fd, const char *name, long line,
            const char *target, const char *file, int depth,
            const char *key, const char **id)
{
	struct strbuf src = STRBUF_INIT;
	struct config_file *cf;
	int r = read_capped(fd, CONFIG_FILE_MAX - w->files->bytes, &src);
	int ret;

	if (r < 0)
		ret = error_errno("%s:%ld: cannot include '%s'", name, line,
		                  target);
	else if (r > 0)
		ret = error("%s:%ld: cannot include '%s': %s", name, line,
		            target, include_too_large);
	else {
		w->files->bytes += src.len;
		cf = files_add(w->files, target);
		ret = check_text(w, &src, file, depth, key, &cf->text);
		if (ret == 0 && files_copy(cf) != 0)
			ret = error_errno("%s:%ld: cannot include '%s': cannot "
			                  "copy it", name, line, target);
		*id = cf->id;
	}
	strbuf_release(&src);
	return ret;
}

/* Whether the target, whose fstat is st, may be read: 0, or -1 after
 * an error naming the @include at name:line. */
static int
target_unfit(struct include_walk *w, const char *name, long line,
             const char *target, const struct stat *st, int depth)
{
	int cycle;

	if (S_ISDIR(st->st_mode))
		return error("%s:%ld: cannot include '%s': it is a directory",
		             name, line, target);
	if (!S_ISREG(st->st_mode))
		return error("%s:%ld: cannot include '%s': not a regular file",
		             name, line, target);
	/* libconfig would read it again and again, to its depth limit:
	 * its message was the first key set twice ("duplicate setting
	 * name"), at line 1 of a file no one had changed. */
	if ((cycle = include_cycle(w, st, depth)) == depth)
		return error("%s:%ld: cannot include '%s': the file includes "
		             "itself", name, line, target);
	if (cycle >= 0)
		return error("%s:%ld: cannot include '%s': it includes this "
		             "file (an @include cycle)", name, line, target);
	if ((unsigned long long)st->st_size > CONFIG_FILE_MAX - w->files->bytes)
		return error("%s:%ld: cannot include '%s': %s", name, line,
		             target, include_too_large);
	if (depth >= INCLUDE_DEPTH_MAX)
		return error("%s:%ld: cannot include '%s': @include nested "
		             "more than %d deep", name, line, target,
		             INCLUDE_DEPTH_MAX);
	return 0;
}

/*
 * One target named at name:line, inside the group key: opened once,
 * without waiting on a FIFO, a regular file, read and checked in turn.
 * libconfig 1.5 opens include_dir/TARGET, an absolute TARGET too (so it
 * could not be named at all); it is given the copy instead, named *id,
 * and an absolute TARGET is opened where it says.
 */
static int
check_target(struct include_walk *w, const char *name, long line,
             const char *target, int depth, const char *key,
             const char **id)
{
	char *full = target[0] == '/' ? xstrdup(target)
	                              : xasprintf("%s/%s", w->dir, target);
	struct stat st;
	int fd = -1, ret;

	/* Run as root, checked before the open, which would follow another
	 * user's link with root's rights (to a device, or a FIFO whose
	 * writer it wakes). */
	if ((w->refusal = owner_root_path(full)) != 0) {
		ret = error("%s:%ld: not including '%s' with root's rights",
		            name, line, target);
	} else if ((fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
	           fstat(fd, &st) != 0)
		ret = error_errno("%s:%ld: cannot include '%s'", name, line,
		                  target);
	else if ((ret = target_unfit(w, name, line, target, &st,
	                             depth)) == 0) {
		w->dev[depth + 1] = st.st_dev;
		w->ino[depth + 1] = st.st_ino;
		ret = read_target(w, fd, name, line, target,
		                  w->qualify ? full : target, depth + 1, key,
		                  id);
	}
	if (fd >= 0)
		close(fd);
	free(full);
	return ret;
}

/* "FILE:LINE: key 'search.tensor_parallel': integer 4294967300 is out of
 * range (1 to 65536)", the key's range where it is known, else what the
 * literal can hold; the key left out where the literal has none. */
static int
wide_error(const char *name, long lineno, const struct code_scan *s)
{
	char *lit = xstrndup(s->wide, s->wide_len);
	struct literal_range r;
	char q[QUOTE_CUT_SIZE];
	int ret;

	config_literal_range(lit, s->wide_key.len ? s->wide_key.buf : NULL,
	                     &r);
	text_cut(lit, q);
	if (s->wide_key.len)
		ret = error("%s:%ld: key '%s': %s %s is out of range (%s)",
		            name, lineno, s->wide_key.buf, r.kind, q, r.range);
	else
		ret = error("%s:%ld: %s %s is out of range (%s)", name,
		            lineno, r.kind, q, r.range);
	free(lit);
	return ret;
}

/* The @include line with its target named id instead: what is before
 * the opening quote and after the closing one (rest) kept as it was. */
static void
rewrite_include(struct strbuf *out, const struct strbuf *line,
                const char *rest, const char *id)
{
	const char *quote = strchr(line->buf, '"');

	strbuf_add(out, line->buf, (size_t)(quote + 1 - line->buf));
	strbuf_addstr(out, id);
	strbuf_addch(out, '"');
	strbuf_add(out, rest, line->len - (size_t)(rest - line->buf));
}

/*
 * Check every @include of a file's text src (named name in messages),
 * whose settings are members of the group key ("" at the top), into out
 * with each @include naming the copy of its target.
 */
static int
check_text(struct include_walk *w, const struct strbuf *src,
           const char *name, int depth, const char *key, struct strbuf *out)
{
	const char *p = src->buf, *end = src->buf + src->len;
	struct strbuf line = STRBUF_INIT;
	struct code_scan s = CODE_SCAN_INIT;
	long lineno = 0, comment_line = 0;
	int ret = 0;

	strbuf_addstr(&s.key, key);
	while (ret == 0 && config_next_line(&p, end, &line)) {
		const char *code = line.buf, *id = "";
		bool was_in_comment = s.in_comment;
		char *target = NULL;
		int inc = s.in_comment ? 0
		          : config_include_target(line.buf, &target, &code);

		lineno++;
		s.lineno = lineno;
		if (inc < 0) {
			ret = error("%s:%ld: the @include's file name has no "
			            "closing quote", name, lineno);
			break;
		}
		if (inc > 0) {
			ret = check_target(w, name, lineno, target, depth,
			                   s.key.buf, &id);
			free(target);
			if (ret != 0)
				break;
			rewrite_include(out, &line, code, id);
		} else
			strbuf_add(out, line.buf, line.len);
		if (p[-1] == '\n')
			strbuf_addch(out, '\n');
		scan_line(&s, code);
		/* Open at the end of the line: opened on it, unless it was
		 * open already and the line has no end mark to close it. */
		if (s.in_comment &&
		    (!was_in_comment || strstr(line.buf, "*/")))
			comment_line = lineno;
		if (s.wide)
			ret = wide_error(name, lineno, &s);
		else if (s.nul_line)
			ret = error("%s:%ld: a string holds \\x00, a NUL byte, "
			            "which libconfig drops from it", name,
			            lineno);
	}
	/* libconfig 1.5 takes the end of the file as the comment's end:
	 * every setting after a stray opening would be dropped unseen. */
	if (ret == 0 && s.in_comment)
		ret = error("%s:%ld: a comment opened here is never closed",
		            name, comment_line);
	code_scan_release(&s);
	strbuf_release(&line);
	return ret;
}

/* ---- the public interface ----------------------------------------------- */

int
config_read_files(const struct strbuf *text, const struct stat *st,
                  const char *path, const char *include_dir, int *refusal,
                  struct config_files *files)
{
	struct include_walk w = { .dir = include_dir,
	                          .qualify = strchr(path, '/') != NULL,
	                          .files = files };
	struct config_file *top = files_add(files, NULL);
	int ret;

	w.dev[0] = st->st_dev;
	w.ino[0] = st->st_ino;
	files->bytes = text->len;
	ret = check_text(&w, text, path, 0, "", &top->text);
	*refusal = w.refusal;
	return ret;
}

const struct config_file *
config_files_find(const struct config_files *fs, const char *id)
{
	if (fs->n == 0)
		return NULL;
	if (id == NULL)
		return fs->v[0];
	for (size_t i = 1; i < fs->n; i++)
		if (!strcmp(fs->v[i]->id, id))
			return fs->v[i];
	return NULL;
}

void
config_files_release(struct config_files *files)
{
	for (size_t i = 0; i < files->n; i++) {
		struct config_file *cf = files->v[i];

		if (cf->fd >= 0)
			close(cf->fd);
		strbuf_release(&cf->text);
		free(cf->target);
		free(cf);
	}
	free(files->v);
	memset(files, 0, sizeof(*files));
}
