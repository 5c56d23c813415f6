/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * jobscript.c - a candidate's job script: find, read and check the
 * template file, and render it with the variables of jobscript-vars.c.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "jobscript.h"
#include "owner.h"
#include "util.h"
#include "xalloc.h"

/* Whether s ends with suffix. */
static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Public: see jobscript.h. */
char *
jobscript_templates_dir(const struct settings *c, const char **from)
{
	const char *env = getenv("PARATUNE_TEMPLATES");
	bool set = c->run.templates_dir &&
	           settings_origin(c, "run.templates_dir");
	char *tree = NULL, *dir;

	*from = NULL;
	/* The built-in default directory gives way to the environment, so
	 * tests can point anywhere, and to the build tree paratune runs
	 * from, so that it works before it is installed. */
	if (env && *env && !set) {
		*from = "environment (PARATUNE_TEMPLATES)";
		return xstrdup(env);
	}
	if (!set && (tree = build_tree_dir()) != NULL) {
		*from = "build tree";
		dir = xasprintf("%s/templates", tree);
		free(tree);
		return dir;
	}
	return xstrdup(c->run.templates_dir ? c->run.templates_dir
	                                    : PARATUNE_DATADIR "/templates");
}

/* Public: see jobscript.h. */
void
jobscript_template_path(const struct settings *c, struct strbuf *path)
{
	const char *name = c->run.template_name ? c->run.template_name
	                                        : "megatron-lm";
	const char *from;
	char *dir;

	if (strchr(name, '/')) {
		strbuf_addstr(path, name);
		return;
	}
	dir = jobscript_templates_dir(c, &from);
	strbuf_addf(path, "%s/%s%s", dir, name,
	            ends_with(name, ".sbatch") ? "" : ".sbatch");
	free(dir);
}

/*
 * The largest template read: sbatch refuses a job script over 4 MiB
 * (slurm.conf SchedulerParameters max_script_size, 4 MB by default), so
 * a larger file is a wrong path rather than a template.
 */
#define TEMPLATE_FILE_MAX ((size_t)4 << 20)
static const char template_too_big[] =
	"larger than 4 MiB, the most sbatch takes in a job script";

/* "cannot open template": the file, and the run.template that chose it. */
static int
template_error(const struct settings *c, const char *path, const char *why)
{
	struct strbuf where = STRBUF_INIT;
	int ret;

	settings_where(c, "run.template", &where);
	ret = error("%scannot open template '%s' (run.template '%s'): %s",
	            where.buf, path,
	            c->run.template_name ? c->run.template_name : "", why);
	strbuf_release(&where);
	return ret;
}

/*
 * When the templates directory that path was looked for in is itself
 * missing, say so and where it was set (-1): the run.template line is
 * not what is wrong then.  0 when run.template is a path, path is not
 * in the directory, or the directory is there.
 */
static int
templates_dir_error(const struct settings *c, const char *path)
{
	const char *from;
	struct strbuf where = STRBUF_INIT;
	struct stat st;
	char *dir;
	bool in_dir;
	int e = 0;

	if (c->run.template_name && strchr(c->run.template_name, '/'))
		return 0;
	dir = jobscript_templates_dir(c, &from);
	/* path was looked for in dir, not named by its own path */
	in_dir = strncmp(path, dir, strlen(dir)) == 0 &&
	         path[strlen(dir)] == '/';

	if (in_dir && stat(dir, &st) != 0)
		e = errno;
	else if (in_dir && !S_ISDIR(st.st_mode))
		e = ENOTDIR;
	if (e) {
		if (!from)
			settings_where(c, "run.templates_dir", &where);
		error("%scannot use templates directory '%s' "
		      "(run.templates_dir%s%s): %s", where.buf, dir,
		      from ? ", from the " : "", from ? from : "",
		      strerror(e));
	}
	strbuf_release(&where);
	free(dir);
	return e ? -1 : 0;
}

/* Why the open file fd cannot be a template, or NULL when it can. */
static const char *
template_unfit(int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return strerror(errno);
	if (S_ISDIR(st.st_mode))
		return strerror(EISDIR);
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if ((unsigned long long)st.st_size > TEMPLATE_FILE_MAX)
		return template_too_big;
	return NULL;
}

/*
 * path opened for reading when it is a regular file of a template's
 * size, else NULL with *why: a FIFO would block plan for good and
 * /dev/zero fill its memory, each with a half-made campaign beside the
 * directory.  A symbolic link is followed: the template is the user's.
 */
static FILE *
open_template(const char *path, const char **why)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	FILE *f;

	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	if ((*why = template_unfit(fd)) == NULL) {
		/* Reads of a regular file never block: stdio gets an
		 * ordinary descriptor. */
		(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		if ((f = fdopen(fd, "r")) != NULL)
			return f;
		*why = strerror(errno);
	}
	close(fd);
	return NULL;
}

/* The line of the first NUL byte among the len bytes at s. */
static int
nul_line(const char *s, size_t len)
{
	const char *nul = memchr(s, '\0', len);
	int line = 1;

	for (const char *p = s; p < nul; p++)
		line += *p == '\n';
	return line;
}

/* Read a whole template into sb; -1 after an error naming it and, when
 * it cannot be opened, the run.template that chose it; run as root,
 * owner_root_path's status for one root does not read. */
static int
read_template(const struct settings *c, const char *path, struct strbuf *sb)
{
	const char *why = NULL;
	FILE *f;
	char buf[8192];
	size_t n;
	int ret = 0;

	/* Run as root, a template another user can change would write
	 * root's job scripts. */
	if ((ret = owner_root_path(path)) != 0)
		return ret;
	f = open_template(path, &why);
	if (!f)
		return templates_dir_error(c, path) ? -1
		       : template_error(c, path, why);
	/* Bounded again: the file may grow after the check. */
	while (sb->len <= TEMPLATE_FILE_MAX &&
	       (n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(sb, buf, n);
	if (ferror(f))
		ret = error_errno("cannot read template '%s'", path);
	else if (sb->len > TEMPLATE_FILE_MAX)
		ret = template_error(c, path, template_too_big);
	else if (strlen(sb->buf) != sb->len)
		ret = error("%s:%d: template holds a NUL byte (a binary "
		            "file?)", path, nul_line(sb->buf, sb->len));
	fclose(f);
	return ret;
}

/* The line of the template's '#!' line: the first that starts with it,
 * else 1, where one belongs. */
static int
shebang_line(const char *text)
{
	int line = 1;

	for (const char *p = text; *p; line++) {
		if (!strncmp(p, "#!", 2))
			return line;
		if (!(p = strchr(p, '\n')))
			break;
		p++;
	}
	return 1;
}

/*
 * Check that script starts with a '#!' line naming its interpreter by
 * its full path; -1 after an error naming the template's file and line.
 * sbatch refuses a script without one ("This does not look like a batch
 * script"), and the kernel cannot run '#!' alone or '#!bash' (a file in
 * the job's working directory): every job of the campaign would fail.
 */
static int
check_shebang(const char *path, const char *text, const char *script)
{
	const char *p;
	size_t n;

	if (strncmp(script, "#!", 2) != 0)
		return error("%s:1: the job script this template gives does "
		             "not start with a '#!' interpreter line "
		             "(#!/bin/bash)", path);
	p = script + 2;
	p += strspn(p, " \t");
	n = strcspn(p, " \t\r\n");
	if (n == 0)
		return error("%s:%d: the '#!' line names no interpreter "
		             "(#!/bin/bash)", path, shebang_line(text));
	if (*p != '/')
		return error("%s:%d: the '#!' line's interpreter '%.*s' is "
		             "not a full path (#!/bin/bash)", path,
		             shebang_line(text), n > 64 ? 64 : (int)n, p);
	/* A file saved with CRLF line ends: the kernel would look for
	 * "/bin/bash\r".  sbatch refuses such a script itself, but libslurm
	 * takes it as it is, and the job fails with no output. */
	if (strchr(script, '\r'))
		return error("%s:%d: the job script holds a carriage return "
		             "(a file saved with CRLF line ends?): the '#!' "
		             "line would name an interpreter ending in \\r; "
		             "save it with LF line ends", path,
		             shebang_line(text));
	return 0;
}

/* Public: see jobscript.h. */
int
jobscript_template_load(const struct settings *c, const char *template_path,
                        struct jobscript_template *t)
{
	strbuf_init(&t->path, 0);
	strbuf_init(&t->text, 0);
	if (template_path)
		strbuf_addstr(&t->path, template_path);
	else
		jobscript_template_path(c, &t->path);
	return read_template(c, t->path.buf, &t->text);
}

/* Public: see jobscript.h. */
void
jobscript_template_release(struct jobscript_template *t)
{
	strbuf_release(&t->text);
	strbuf_release(&t->path);
}

/* Public: see jobscript.h. */
int
jobscript_render_with(const struct settings *c,
                      const struct jobscript_template *t,
                      const struct layout *l, const char *name,
                      const char *campaign_dir, const char *run_dir,
                      struct strbuf *out)
{
	struct template_vars v = TEMPLATE_VARS_INIT;
	size_t start = out->len;
	int ret = -1;

	if (jobscript_vars(&v, c, l, name, campaign_dir, run_dir) == 0)
		ret = template_render(t->path.buf, t->text.buf, &v, out);
	if (ret == 0)
		ret = check_shebang(t->path.buf, t->text.buf, out->buf + start);
	template_vars_release(&v);
	return ret;
}

/* Public: see jobscript.h. */
int
jobscript_render(const struct settings *c, const struct layout *l,
                 const char *name, const char *campaign_dir,
                 const char *run_dir, const char *template_path,
                 struct strbuf *out)
{
	struct jobscript_template t;
	int ret = jobscript_template_load(c, template_path, &t);

	if (ret == 0)
		ret = jobscript_render_with(c, &t, l, name, campaign_dir,
		                            run_dir, out);
	jobscript_template_release(&t);
	return ret;
}
