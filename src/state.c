/*
 * state.c - the campaign's state checkpoint and its journal.
 *
 * The state file is line-oriented text, "key=value" words after the
 * candidate name, so that a person can read it and a truncated or
 * corrupted file is reported with its line number rather than half
 * loaded.
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
#include "state.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

#define STATE_MAGIC "# paratune state 1"

static const char *const state_names[CS_COUNT] = {
	"planned", "queued", "submitting", "pending", "running",
	"completed", "oom", "failed", "timeout", "node_fail", "preempted",
	"cancelled",
};

const char *
cand_state_name(enum cand_state s)
{
	return (unsigned)s < CS_COUNT ? state_names[s] : "?";
}

int
cand_state_parse(const char *s)
{
	for (int i = 0; i < CS_COUNT; i++)
		if (!strcmp(s, state_names[i]))
			return i;
	return -1;
}

bool
cand_state_final(enum cand_state s)
{
	return s >= CS_COMPLETED;
}

bool
cand_state_active(enum cand_state s)
{
	return s == CS_SUBMITTING || s == CS_PENDING || s == CS_RUNNING;
}

/* ---- writing -------------------------------------------------------------- */

/* Values never hold spaces: replace anything odd so a line stays one
 * record whatever Slurm put in a reason or node list. */
static void
add_word(struct strbuf *sb, const char *key, const char *v)
{
	strbuf_addf(sb, " %s=", key);
	if (*v == '\0')
		strbuf_addch(sb, '-');
	for (; *v; v++)
		strbuf_addch(sb, (*v > ' ' && *v < 0x7f && *v != '=') ? *v
		                                                      : '_');
}

static void
state_line(struct strbuf *sb, const struct cand_status *c)
{
	strbuf_addf(sb, "%s state=%s rank=%d base=%d unsafe=%d attempt=%d "
	            "job=%" PRIu32 " exit=%d signal=%d submit=%ld start=%ld "
	            "end=%ld", c->name, cand_state_name(c->state), c->rank,
	            c->base, c->unsafe, c->attempt, c->job_id, c->exit_code,
	            c->exit_signal, c->submit_time, c->start_time,
	            c->end_time);
	add_word(sb, "tag", c->tag);
	add_word(sb, "nodes", c->nodes);
	add_word(sb, "reason", c->reason);
	add_word(sb, "exclude", c->exclude);
	add_word(sb, "source", c->source);
	strbuf_addch(sb, '\n');
}

int
state_save(const char *dir, const struct state *st)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/state", dir);
	int ret;

	strbuf_addf(&sb, "%s\ncampaign %s\njournal %ld\n", STATE_MAGIC,
	            st->campaign_id, st->journal_seq);
	for (int i = 0; i < st->n; i++)
		state_line(&sb, &st->v[i]);
	strbuf_addstr(&sb, "end\n"); /* a missing end = a truncated file */
	ret = write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	free(path);
	return ret;
}

/* ---- reading ---------------------------------------------------------------- */

static int
copy_word(char *dst, size_t len, const char *v)
{
	if (!strcmp(v, "-"))
		v = "";
	if (strlen(v) >= len)
		return -1;
	strcpy(dst, v);
	return 0;
}

static int
parse_long_word(const char *v, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	return (errno || *end || end == v) ? -1 : 0;
}

/* Apply one key=value word to a candidate; -1 when it is not valid. */
static int
apply_word(struct cand_status *c, const char *key, const char *v)
{
	long n = 0;
	int s;

	if (!strcmp(key, "state"))
		return (s = cand_state_parse(v)) < 0 ? -1
		       : (c->state = (enum cand_state)s, 0);
	if (!strcmp(key, "tag")) return copy_word(c->tag, sizeof c->tag, v);
	if (!strcmp(key, "nodes")) return copy_word(c->nodes, sizeof c->nodes, v);
	if (!strcmp(key, "reason")) return copy_word(c->reason, sizeof c->reason, v);
	if (!strcmp(key, "exclude")) return copy_word(c->exclude, sizeof c->exclude, v);
	if (!strcmp(key, "source")) return copy_word(c->source, sizeof c->source, v);
	if (parse_long_word(v, &n) != 0)
		return -1;
	if (!strcmp(key, "rank")) c->rank = (int)n;
	else if (!strcmp(key, "base")) c->base = n != 0;
	else if (!strcmp(key, "unsafe")) c->unsafe = n != 0;
	else if (!strcmp(key, "attempt")) c->attempt = (int)n;
	else if (!strcmp(key, "job")) c->job_id = (uint32_t)n;
	else if (!strcmp(key, "exit")) c->exit_code = (int)n;
	else if (!strcmp(key, "signal")) c->exit_signal = (int)n;
	else if (!strcmp(key, "submit")) c->submit_time = n;
	else if (!strcmp(key, "start")) c->start_time = n;
	else if (!strcmp(key, "end")) c->end_time = n;
	else return -1;
	return 0;
}

static int
parse_candidate(char *line, struct cand_status *c)
{
	char *save = NULL, *w = strtok_r(line, " ", &save);

	memset(c, 0, sizeof(*c));
	if (w == NULL || copy_word(c->name, sizeof c->name, w) != 0)
		return -1;
	while ((w = strtok_r(NULL, " ", &save)) != NULL) {
		char *eq = strchr(w, '=');

		if (eq == NULL)
			return -1;
		*eq = '\0';
		if (apply_word(c, w, eq + 1) != 0)
			return -1;
	}
	return 0;
}

/* Parse one line into st; returns 1 at "end", 0 to go on, -1 on error. */
static int
state_parse_line(struct state *st, char *line, int lineno)
{
	long seq;

	if (lineno == 1)
		return strcmp(line, STATE_MAGIC) ? -1 : 0;
	if (!strcmp(line, "end"))
		return 1;
	if (!strncmp(line, "campaign ", 9))
		return copy_word(st->campaign_id, sizeof st->campaign_id,
		                 line + 9);
	if (!strncmp(line, "journal ", 8))
		return parse_long_word(line + 8, &seq) ? -1
		       : (st->journal_seq = seq, 0);
	if (st->n == st->alloc) {
		st->alloc = st->alloc ? st->alloc * 2 : 64;
		st->v = xreallocarray(st->v, (size_t)st->alloc, sizeof(*st->v));
	}
	if (parse_candidate(line, &st->v[st->n]) != 0)
		return -1;
	st->n++;
	return 0;
}

/*
 * Open a campaign file for reading without following a symbolic link:
 * a link planted at DIR/state or DIR/journal.log must not feed the
 * runner another file's contents.  NULL with errno set on failure.
 */
static FILE *
open_nofollow(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (f == NULL)
		close(fd);
	return f;
}

int
state_load(const char *dir, struct state *st)
{
	char *path = xasprintf("%s/state", dir);
	FILE *f = open_nofollow(path);
	char line[2048];
	int lineno = 0, r = 0, ret = -1;

	memset(st, 0, sizeof(*st));
	if (f == NULL) {
		error_errno("cannot read '%s'", path);
		goto cleanup;
	}
	while (r == 0 && fgets(line, sizeof line, f)) {
		size_t len = strlen(line);

		lineno++;
		if (len == 0 || line[len - 1] != '\n') {
			r = -1;
			break;
		}
		line[len - 1] = '\0';
		r = state_parse_line(st, line, lineno);
	}
	if (r < 0)
		error("%s:%d: malformed state line", path, lineno);
	else if (r == 0)
		error("%s: truncated (no end line)", path);
	else
		ret = 0;
	fclose(f);
cleanup:
	if (ret != 0)
		state_release(st);
	free(path);
	return ret;
}

void
state_release(struct state *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}

struct cand_status *
state_find(struct state *st, const char *name)
{
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->v[i].name, name))
			return &st->v[i];
	return NULL;
}

struct cand_status *
state_find_tag(struct state *st, const char *tag)
{
	for (int i = 0; i < st->n; i++)
		if (st->v[i].tag[0] && !strcmp(st->v[i].tag, tag))
			return &st->v[i];
	return NULL;
}

/* ---- journal ------------------------------------------------------------------ */

/* Parse "SEQ TIME EVENT NAME DETAIL"; -1 when malformed. */
static int
journal_parse(char *line, struct journal_entry *e)
{
	char stamp[40];
	int off = 0;

	memset(e, 0, sizeof(*e));
	/* An overflowing seq parses as LONG_MAX, which the gap check then
	 * rejects, so sscanf's silence on overflow costs nothing here. */
	if (sscanf(line, "%ld %39s %23s %191s %n", &e->seq, stamp, e->event, /* NOLINT(cert-err34-c) */
	           e->name, &off) < 4 || e->seq <= 0)
		return -1;
	if (off > 0 && strlen(line + off) < sizeof e->detail)
		strcpy(e->detail, line + off);
	return 0;
}

int
journal_replay(const char *dir, long after,
               int (*fn)(const struct journal_entry *e, void *arg),
               void *arg)
{
	char *path = xasprintf("%s/journal.log", dir);
	FILE *f = open_nofollow(path);
	char line[1024];
	long expect = 1;
	int lineno = 0, ret = 0;

	if (f == NULL) {
		ret = errno == ENOENT ? 0 : error_errno("cannot read '%s'", path);
		free(path);
		return ret;
	}
	while (ret == 0 && fgets(line, sizeof line, f)) {
		struct journal_entry e;
		size_t len = strlen(line);

		lineno++;
		/* A last line without newline is a write cut by a crash:
		 * it never happened. */
		if (len == 0 || line[len - 1] != '\n')
			break;
		line[len - 1] = '\0';
		if (journal_parse(line, &e) != 0 || e.seq != expect) {
			ret = error("%s:%d: malformed or out-of-order journal "
			            "line", path, lineno);
			break;
		}
		expect++;
		if (e.seq > after && fn)
			ret = fn(&e, arg);
	}
	fclose(f);
	free(path);
	return ret;
}

static int
count_entry(const struct journal_entry *e, void *arg)
{
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
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
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
journal_open(struct journal *j, const char *dir)
{
	j->seq = 0;
	j->path = xasprintf("%s/journal.log", dir);
	if (journal_trim_torn(j->path) != 0)
		warning("cannot repair a torn last line of '%s'", j->path);
	if (journal_replay(dir, 0, count_entry, &j->seq) != 0) {
		free(j->path);
		return -1;
	}
	j->fd = open(j->path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
	             O_CLOEXEC, 0644);
	if (j->fd < 0) {
		error_errno("cannot open '%s'", j->path);
		free(j->path);
		return -1;
	}
	return 0;
}

void
journal_close(struct journal *j)
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
journal_append(struct journal *j, bool sync, const char *event,
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
