/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-file.c - a layer's file, opened once and read whole, and what
 * libconfig's parse errors leave out of their messages.
 *
 * The file is opened by its name once (O_NONBLOCK: a FIFO put in its
 * place does not block the open), fstat'd, and read from that one
 * descriptor; everything after works on the bytes read.  A check by
 * name followed by another open let a user swap a FIFO in between:
 * root's child for that user's campaign then waited in open() until its
 * time limit.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-int.h"
#include "error.h"
#include "owner.h"
#include "site-trust.h"
#include "strbuf.h"
#include "strlist.h"
#include "util.h"
#include "xalloc.h"

/*
 * Whether the file open with st is one to read: a regular file (a
 * symbolic link to one too, but for a frozen campaign.conf), or
 * /dev/null as the site file (read as empty; site_conf_trusted() lets it
 * through).  A FIFO or a pipe (estimate <(cat FILE)) waits on its
 * writer, maybe for good (a FIFO swapped in for a campaign's file held
 * cron's resume to its time limit), and /dev/zero never ends.
 */
static bool
regular_input(enum config_layer layer, const char *path,
              const struct stat *st)
{
	return S_ISREG(st->st_mode) ||
	       (layer == LAYER_SITE && S_ISCHR(st->st_mode) &&
	        !strcmp(path, "/dev/null"));
}

/* The keys line sets ("name =" or "name:"), in order, into names. */
static void
line_keys(const char *line, struct str_list *names)
{
	for (const char *p = line; *p; p++) {
		size_t len = 0, gap;

		if (!isalpha((unsigned char)*p) && *p != '*')
			continue;
		while (isalnum((unsigned char)p[len]) || p[len] == '_' ||
		       p[len] == '-' || p[len] == '*')
			len++;
		gap = strspn(p + len, " \t") + len;
		if (p[gap] == '=' || p[gap] == ':') {
			char *name = xstrndup(p, len);

			str_list_push(names, name);
			free(name);
		}
		p += len - 1;
	}
}

/* Whether the first 64 KiB of text hold a NUL or a control byte that
 * libconfig text never holds. */
static bool
binary_text(const struct strbuf *text)
{
	const char *p = text->buf;
	const char *end = p + (text->len < 65536 ? text->len : 65536);

	for (; p < end; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == 0 || (c < 32 && c != '\t' && c != '\n' &&
		               c != '\r' && c != '\f'))
			return true;
	}
	return false;
}

/* What to do about key set twice.  A site file that includes the
 * published calibration and then its own calibrate -o output (as the
 * README's steps lead to) was refused with no way out in view: one
 * file sets calibration once, but a later layer adds its members. */
static void
duplicate_hint(const char *key, struct strbuf *sb)
{
	if (strcmp(key, "calibration") != 0)
		return;
	strbuf_addstr(sb, " (a file with the files it @includes sets "
	              "calibration once: merge the GPUs' members into one "
	              "group, or include one file from the user or "
	              "campaign file, whose members replace the site "
	              "file's GPU by GPU)");
}

void
config_syntax_hint(const struct strbuf *text, int line, const char *msg,
                   struct strbuf *sb)
{
	const char *p = text->buf, *end = text->buf + text->len, *nl;
	struct str_list names = STR_LIST_INIT;
	const char *twice = NULL;
	char *buf;
	int n;

	/* Some Windows editors start a UTF-8 file with one; libconfig
	 * reads its three bytes as code, a bare "syntax error". */
	if (line == 1 && !strncmp(p, "\xEF\xBB\xBF", 3)) {
		strbuf_addstr(sb, " (the file starts with a UTF-8 byte order "
		              "mark: save it without one)");
		return;
	}
	if (binary_text(text)) {
		strbuf_addstr(sb, " (a binary file, not libconfig text?)");
		return;
	}
	if (!strcmp(msg, "mismatched element type in array"))
		config_array_mismatch(text, line, sb);
	if (!strcmp(msg, "syntax error"))
		config_unclosed_hint(text, NULL, sb);
	if (strcmp(msg, "duplicate setting name") != 0)
		return;
	for (n = 1; n < line && p < end; p++)
		n += *p == '\n';
	if (n != line || p >= end)
		return;
	nl = memchr(p, '\n', (size_t)(end - p));
	buf = xstrndup(p, (size_t)((nl ? nl : end) - p));
	line_keys(buf, &names);
	free(buf);
	/* One key: that one; one set twice on the line: that one; else
	 * every key the line sets, one of which was set before. */
	for (int i = 0; i < names.n && !twice; i++)
		for (int j = i + 1; j < names.n && !twice; j++)
			if (!strcmp(names.v[i], names.v[j]))
				twice = names.v[i];
	if (twice || names.n == 1) {
		strbuf_addf(sb, " '%s'", twice ? twice : names.v[0]);
		duplicate_hint(twice ? twice : names.v[0], sb);
	} else
		for (int i = 0; i < names.n; i++)
			strbuf_addf(sb, "%s'%s'%s", i ? ", " : " (one of ",
			            names.v[i], i + 1 < names.n ? "" : ")");
	str_list_clear(&names);
}

/* Whether the layer's file, st its fstat, is one to read: 0, or -1
 * after an error naming it as what. */
static int
layer_unfit(struct loader *ld, enum config_layer layer, const char *path,
            const char *what, const struct stat *st)
{
	if (S_ISDIR(st->st_mode)) {
		/* Missing input, as estimate and list say a directory
		 * without campaign.conf is. */
		char *conf = xasprintf("%s/campaign.conf", path);
		struct stat cs;
		bool planned = layer == LAYER_CAMPAIGN &&
		               stat(conf, &cs) == 0 && S_ISREG(cs.st_mode);

		ld->missing = true;
		error("cannot read %s '%s': it is a directory%s%s%s", what,
		      path,
		      planned ? " (a planned campaign: its file is '" : "",
		      planned ? conf : "", planned ? "')" : "");
		free(conf);
		return -1;
	}
	if (!regular_input(layer, path, st))
		return error("cannot read %s '%s': it is not a regular file",
		             what, path);
	if ((unsigned long long)st->st_size > CONFIG_FILE_MAX)
		return error("cannot read %s '%s': larger than "
		             CONFIG_FILE_MAX_TEXT ", the most a configuration "
		             "file may hold", what, path);
	return 0;
}

int
config_read_layer(struct loader *ld, enum config_layer layer,
                  const char *path, bool must_exist, const char *what,
                  struct strbuf *text, struct stat *st)
{
	bool nofollow = ld->nofollow && layer == LAYER_CAMPAIGN;
	int fd, ret;

	/* Run as root, a file another user can change or point elsewhere
	 * would show root's files to that user (a link, an @include) or
	 * set what root's jobs run: refused, as calibrate refuses it, and
	 * before it is opened, which would follow that user's link with
	 * root's rights (to a device, or a FIFO whose writer it wakes). */
	if ((ld->refusal = owner_root_path(path)) != 0)
		return -1;
	/* The site file sets what every user's jobs run: only one that no
	 * one else can change (site-trust.c), judged after the path as
	 * every file root reads.  A look that did not finish is no verdict
	 * on the file (75). */
	if (layer == LAYER_SITE && (ret = site_conf_trusted(path)) != 0) {
		if (ret == EXIT_TEMPFAIL)
			ld->refusal = EXIT_TEMPFAIL;
		return -1;
	}
	/* O_NONBLOCK: a FIFO's open returns at once, to be refused by its
	 * fstat.  What is read after is a regular file or /dev/null, whose
	 * reads never wait, so the flag need not be cleared. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
	                (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT && !must_exist)
			return 1;
		/* libconfig says only that it could not read the file:
		 * say why, and make it missing input (66) as a file that
		 * is not there. */
		ld->missing = e == ENOENT || e == EACCES;
		return error("cannot read %s '%s': %s", what, path,
		             nofollow ? open_error(e) : strerror(e));
	}
	if (fstat(fd, st) != 0)
		ret = error_errno("cannot read %s '%s'", what, path);
	else
		ret = layer_unfit(ld, layer, path, what, st);
	/* Bounded again: the file may grow after the check. */
	if (ret == 0 && (ret = read_capped(fd, CONFIG_FILE_MAX, text)) != 0)
		ret = ret < 0 ? error_errno("cannot read %s '%s'", what, path)
		      : error("cannot read %s '%s': larger than "
		              CONFIG_FILE_MAX_TEXT ", the most a "
		              "configuration file may hold", what, path);
	close(fd);
	return ret;
}
