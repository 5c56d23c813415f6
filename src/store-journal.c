/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store-journal.c - the campaign's journal file: numbered lines,
 * appended in one write each, read back in order.  What the lines mean
 * is store-event.c's business.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "store-int.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

/* ---- reading ----------------------------------------------------------- */

/* Parse "SEQ TIME EVENT NAME DETAIL"; -1 when malformed, with *why set
 * where "malformed" would not say enough. */
static int
journal_parse(char *line, struct journal_entry *e, const char **why)
{
	char stamp[40];
	int off = 0;

	memset(e, 0, sizeof(*e));
	/* An overflowing seq parses as LONG_MAX, which the gap check then
	 * rejects, so sscanf's silence on overflow costs nothing here. */
	/* NOLINTNEXTLINE(cert-err34-c) */
	if (sscanf(line, "%ld %39s %23s %191s %n", &e->seq, stamp, e->event,
	           e->name, &off) < 4 || e->seq <= 0)
		return -1;
	if (off == 0)
		return 0;
	/* paratune writes at most a few hundred bytes of detail; more is
	 * an edit, and cutting it would drop a job id or a state. */
	if (strlen(line + off) >= sizeof e->detail) {
		*why = "its key=value words are longer than paratune writes";
		return -1;
	}
	strcpy(e->detail, line + off);
	return 0;
}

int
journal_replay(const char *dir, long after,
               int (*fn)(const struct journal_entry *e, const char *path,
                         void *arg),
               void *arg)
{
	char *path = xasprintf("%s/journal.log", dir);
	FILE *f = fopen_regular(path);
	char line[1024];
	long expect = 1;
	int lineno = 0, ret = 0;
	const char *why = NULL;

	if (f == NULL) {
		ret = errno == ENOENT ? 0
		      : error("cannot read '%s': %s", path, open_error(errno));
		free(path);
		return ret;
	}
	while (ret == 0 && fgets(line, sizeof line, f)) {
		struct journal_entry e;
		size_t len = strlen(line);

		lineno++;
		/* A last line without newline is a write cut by a crash:
		 * it never happened.  Anywhere else a line without one is a
		 * NUL byte or an overlong line: damage, which must stop the
		 * replay loudly, not end it quietly before the records that
		 * follow (a submission among them). */
		if (len == 0 || line[len - 1] != '\n') {
			if (!feof(f))
				ret = error("%s:%d: malformed journal line "
				            "(a NUL byte, or longer than "
				            "%zu bytes)", path, lineno,
				            sizeof line - 2);
			break;
		}
		line[len - 1] = '\0';
		if (journal_parse(line, &e, &why) != 0 || e.seq != expect) {
			ret = error("%s:%d: malformed or out-of-order journal "
			            "line%s%s", path, lineno, why ? ": " : "",
			            why ? why : "");
			break;
		}
		expect++;
		e.lineno = lineno;
		if (e.seq > after && fn)
			ret = fn(&e, path, arg);
	}
	fclose(f);
	free(path);
	return ret;
}

static int
count_entry(const struct journal_entry *e, const char *path, void *arg)
{
	(void)path;
	*(long *)arg = e->seq;
	return 0;
}

/*
 * A crash can leave a last line without its newline; the next append
 * would glue onto it.  Cut the file back to its last whole line.
 */
static int
journal_trim_torn(const char *path)
{
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	off_t end, pos;
	char c;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	end = lseek(fd, 0, SEEK_END);
	for (pos = end; pos > 0; pos--) {
		if (pread(fd, &c, 1, pos - 1) != 1)
			break;
		if (c == '\n')
			break;
	}
	if (pos != end && ftruncate(fd, pos) != 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int
journal_open(struct store_journal *j, const char *dir)
{
	long seq = 0;

	if (journal_replay(dir, 0, count_entry, &seq) != 0)
		return -1;
	return journal_open_at(j, dir, seq);
}

int
journal_open_at(struct store_journal *j, const char *dir, long seq)
{
	j->seq = seq;
	j->path = xasprintf("%s/journal.log", dir);
	if (journal_trim_torn(j->path) != 0)
		warning("cannot repair a torn last line of '%s'", j->path);
	j->fd = -1;
	/* Non-blocking: a FIFO planted after the check above must not
	 * hang the open (a write to one then fails, and is reported). */
	j->fd = open(j->path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
	             O_NONBLOCK | O_CLOEXEC, 0644);
	if (j->fd < 0) {
		error_errno("cannot open '%s'", j->path);
		journal_close(j);
		return -1;
	}
	return 0;
}

void
journal_close(struct store_journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	free(j->path);
	j->path = NULL;
}

/*
 * Append one line; on failure (a full disk cuts a write short, fsync
 * reports a lost write) cut the file back to where it ended, so that
 * no half line is left for the next append of this process to glue
 * onto and the line counts as never written.  -1 with errno set.
 */
static int
journal_write(int fd, const char *buf, size_t len, bool sync)
{
	struct stat st;
	off_t before = fstat(fd, &st) == 0 ? st.st_size : -1;
	size_t done = 0;
	int saved;

	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC; /* a zero-length write */
			break;
		}
		done += (size_t)n;
	}
	if (done == len && (!sync || fsync(fd) == 0))
		return 0;
	saved = errno;
	/* The caller holds the campaign lock: nobody else appends. */
	if (before >= 0 && ftruncate(fd, before) != 0)
		warning("cannot cut a failed journal write back to %lld "
		        "bytes", (long long)before);
	errno = saved;
	return -1;
}

int
journal_append(struct store_journal *j, bool sync, const char *event,
               const char *name, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;
	int ret = 0;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addf(&line, "%ld %s %s %s ", j->seq + 1, stamp, event,
	            name && *name ? name : "-");
	va_start(ap, fmt);
	strbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	strbuf_rtrim(&line);
	strbuf_addch(&line, '\n');
	/* One write with O_APPEND: a line is either whole or, cut by a
	 * crash, unterminated and ignored by replay. */
	if (journal_write(j->fd, line.buf, line.len, sync) != 0)
		ret = error_errno("cannot append to '%s'", j->path);
	else
		j->seq++;
	strbuf_release(&line);
	return ret;
}

const char *
journal_value(const char *detail, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	for (const char *p = detail; p && *p;) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, " ");

			if (n >= len)
				n = len - 1;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			return buf;
		}
		p = strchr(p, ' ');
	}
	return NULL;
}
