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
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-int.h"
#include "error.h"
#include "strbuf.h"
#include "xalloc.h"

/* libconfig's own limit (MAX_INCLUDE_DEPTH): deeper, it reports the
 * nesting itself, and a cycle ends here. */
#define INCLUDE_DEPTH_MAX 10

/* Whether the text at p, outside a comment, starts a block comment, and
 * where the line's code ends (a '#' or '//' comment); strings skipped. */
static bool
line_code(const char *p, bool in_comment)
{
	while (*p) {
		if (in_comment) {
			const char *end = strstr(p, "*/");

			if (end == NULL)
				return true;
			p = end + 2;
			in_comment = false;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			break;
		} else if (p[0] == '/' && p[1] == '*') {
			p += 2;
			in_comment = true;
		} else {
			p++;
		}
	}
	return in_comment;
}

/* The target of an "@include" line as libconfig's scanner reads it
 * (^[ \t]*@include[ \t]+"...", taken up to the next quote as it is), or
 * NULL when the line is no directive. */
static char *
include_target(const char *line)
{
	const char *p = line + strspn(line, " \t"), *end;

	if (strncmp(p, "@include", 8) != 0 || !strchr(" \t", p[8]) ||
	    p[8] == '\0')
		return NULL;
	p += 8;
	p += strspn(p, " \t");
	if (*p != '"' || (end = strchr(p + 1, '"')) == NULL)
		return NULL;
	return xstrndup(p + 1, (size_t)(end - p - 1));
}

/* The next line of f into sb, without its line break; false at the end. */
static bool
read_line(FILE *f, struct strbuf *sb)
{
	int ch;

	strbuf_setlen(sb, 0);
	while ((ch = getc(f)) != EOF && ch != '\n')
		strbuf_addch(sb, ch);
	return ch != EOF || sb->len > 0;
}

/* Where targets are looked for, and how messages name the files. */
struct include_walk {
	const char *dir;        /* libconfig's include directory */
	bool qualify;           /* name an included file DIR/TARGET, as the
	                           loader does when the top path has a '/' */
};

static int check_file(const struct include_walk *w, const char *path,
                      const char *name, int depth);

/* One target named at name:line: a readable regular file, checked in
 * turn.  libconfig opens include_dir/TARGET, an absolute TARGET too. */
static int
check_target(const struct include_walk *w, const char *name, long line,
             const char *target, int depth)
{
	char *full = xasprintf("%s/%s", w->dir, target);
	struct stat st;
	int ret = 0;

	if (stat(full, &st) != 0)
		/* libconfig 1.5 puts the directory before an absolute
		 * path too: say where it looked. */
		ret = error_errno("%s:%ld: cannot include '%s'%s%s%s", name,
		                  line, target, target[0] == '/' ? " (looked "
		                  "for '" : "", target[0] == '/' ? full : "",
		                  target[0] == '/' ? "')" : "");
	else if (S_ISDIR(st.st_mode))
		ret = error("%s:%ld: cannot include '%s': it is a directory",
		            name, line, target);
	else if (!S_ISREG(st.st_mode))
		ret = error("%s:%ld: cannot include '%s': not a regular file",
		            name, line, target);
	else if (access(full, R_OK) != 0)
		ret = error_errno("%s:%ld: cannot include '%s'", name, line,
		                  target);
	else if (depth + 1 < INCLUDE_DEPTH_MAX)
		ret = check_file(w, full, w->qualify ? full : target,
		                 depth + 1);
	free(full);
	return ret;
}

/* Check every @include of the file at path (named name in messages). */
static int
check_file(const struct include_walk *w, const char *path, const char *name,
           int depth)
{
	FILE *f = fopen(path, "r");
	struct strbuf line = STRBUF_INIT;
	bool in_comment = false;
	long lineno = 0;
	int ret = 0;

	if (f == NULL)
		return 0; /* libconfig reports what it cannot open */
	while (ret == 0 && read_line(f, &line)) {
		char *target = in_comment ? NULL : include_target(line.buf);

		lineno++;
		if (target) {
			ret = check_target(w, name, lineno, target, depth);
			free(target);
			continue;
		}
		in_comment = line_code(line.buf, in_comment);
	}
	strbuf_release(&line);
	fclose(f);
	return ret;
}

/* Whether a --set value holds an @include directive on a line of its own
 * (libconfig reads "v = VALUE;" from memory and would open the target).
 * Its first line follows "v = ", so it cannot be one. */
bool
config_value_includes(const char *value)
{
	const char *nl = strchr(value, '\n');
	char *line = xstrndup(value, nl ? (size_t)(nl - value)
	                                : strlen(value));
	bool in_comment = line_code(line, false), found = false;

	while (!found && nl) {
		const char *start = nl + 1;
		char *target;

		nl = strchr(start, '\n');
		free(line);
		line = xstrndup(start, nl ? (size_t)(nl - start)
		                          : strlen(start));
		target = in_comment ? NULL : include_target(line);
		found = target != NULL;
		free(target);
		in_comment = line_code(line, in_comment);
	}
	free(line);
	return found;
}

/* Check the @include targets of the file at path, recursively. */
int
config_check_includes(const char *path, const char *include_dir)
{
	struct include_walk w = { include_dir, strchr(path, '/') != NULL };

	return check_file(&w, path, path, 0);
}
