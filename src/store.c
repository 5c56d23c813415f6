/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store.c - opening and closing a campaign directory: the lock, the
 * frozen configuration, the state and the replay of the journal lines
 * the state lacks.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "safe-text.h"
#include "store-int.h"
#include "util.h"
#include "xalloc.h"

/* ---- replaying the journal ---------------------------------------------- */

/*
 * Write the state as of the journal's last line.  The journal goes to
 * the disk first: a checkpoint must never include lines a power cut
 * could take from the journal (only intents are synced as written).
 */
static int
store_checkpoint(struct store *s)
{
	if (fsync(s->journal.fd) != 0)
		return error_errno("cannot sync '%s'", s->journal.path);
	s->st.journal_seq = s->journal.seq;
	return state_save(s->dir, &s->st);
}

struct replay_ctx {
	struct state *st;
	int applied;          /* lines the checkpoint lacked */
	int since_finished;   /* of those, the ones after a "finished" */
};

static int
replay_one(const struct journal_entry *e, const char *path, void *arg)
{
	struct replay_ctx *rc = arg;
	struct store_event ev;

	if (store_event_parse(e, path, &ev) != 0)
		return -1;
	rc->applied++;
	rc->since_finished = ev.type == EV_FINISHED ? 0
	                     : rc->since_finished + 1;
	return store_event_apply(rc->st, &ev, path);
}

/* What check_line learns of the whole journal. */
struct journal_check {
	long lines;
	bool ended;   /* a "finished" event, and no candidate's after it */
};

/* Every line parses as an event; count them. */
static int
check_line(const struct journal_entry *e, const char *path, void *arg)
{
	struct journal_check *jc = arg;
	struct store_event ev;
	int ret = store_event_parse(e, path, &ev);

	jc->lines = e->seq;
	/* Events of no candidate (a policy, a refit) change no ending. */
	if (ret == 0 && ev.type == EV_FINISHED)
		jc->ended = true;
	else if (ret == 0 && ev.name[0])
		jc->ended = false;
	return ret;
}

/*
 * A missing journal replays as an empty one, which is right only while
 * the state includes no line of it (plan writes both).  Otherwise the
 * file is gone, which "the journal lost lines" would hide.
 */
static int
journal_missing(const struct store *s)
{
	char *path = xasprintf("%s/journal.log", s->dir);
	struct stat st;
	int ret = 0;

	if (s->st.journal_seq > 0 && lstat(path, &st) != 0 && errno == ENOENT)
		ret = error("cannot read '%s': %s", path, strerror(ENOENT));
	free(path);
	return ret;
}

/* Whether the regular file at path ends with a byte that is not a line
 * break (not followed if a link; false when it cannot be read). */
static bool
file_ends_unterminated(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char c = '\n';

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    pread(fd, &c, 1, st.st_size - 1) != 1)
		c = '\n';
	close(fd);
	return c != '\n';
}

/*
 * Check the whole journal and that it holds every line the checkpoint
 * includes; *lines_out gets how many whole lines it holds.  Its lines
 * reach the disk before the checkpoint that names them (store_close),
 * so a shorter journal was cut by something else; appending to it
 * would reuse sequence numbers that replay then skips.
 */
static int
check_journal(struct store *s, long *lines_out)
{
	struct journal_check jc = { 0, false };
	long lines;
	char *path;
	bool torn;

	if (journal_missing(s) != 0 ||
	    journal_replay(s->dir, 0, check_line, &jc) != 0)
		return -1;
	lines = *lines_out = jc.lines;
	s->journal_ended = jc.ended;
	if (lines >= s->st.journal_seq)
		return 0;
	/* A last line without its break is a write a crash cut, which
	 * never happened, unless the checkpoint includes it: then the
	 * file was cut or edited after. */
	path = xasprintf("%s/journal.log", s->dir);
	torn = file_ends_unterminated(path);
	free(path);
	return error("%s/journal.log: ends at line %ld%s but %s/state "
	             "includes %ld line%s: the journal lost lines", s->dir,
	             lines, torn ? " and a line without its line break "
	             "(cut or edited)" : "", s->dir, s->st.journal_seq,
	             s->st.journal_seq == 1 ? "" : "s");
}

/*
 * Replay the journal lines the checkpoint lacks (a crash between them
 * and the checkpoint).  They count as this run's transitions, so the
 * run checkpoints them and resume still journals "finished" when the
 * crash came just before it; a replay that ends with "finished" itself
 * is checkpointed here, as no transition of this run will do it.
 */
static int
replay_journal(struct store *s, bool writable)
{
	struct replay_ctx rc = { &s->st, 0, 0 };
	long lines;

	if (check_journal(s, &lines) != 0 ||
	    journal_replay(s->dir, s->st.journal_seq, replay_one, &rc) != 0)
		return EXIT_DATAERR;
	if (!writable)
		return 0;
	/* The lines check_journal counted: a third read of the file only
	 * counted them again. */
	if (journal_open_at(&s->journal, s->dir, lines) != 0)
		return EXIT_IOERR;
	s->transitions = rc.since_finished;
	if (rc.applied > 0 && rc.since_finished == 0)
		return store_checkpoint(s) ? EXIT_IOERR : 0;
	return 0;
}

/* ---- the lock ----------------------------------------------------------- */

/*
 * A run killed while it wrote DIR/state or rewrote DIR/candidates.csv
 * leaves its temporary file (write_file_atomic's "state.tmp.PID")
 * behind.  Only the lock holder writes them, so under the lock any such
 * file is stale.
 */
static void
remove_stale_temps(const struct store *s)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char *path;

		if (strncmp(e->d_name, "state.tmp.", 10) != 0 &&
		    strncmp(e->d_name, "candidates.csv.tmp.", 19) != 0)
			continue;
		path = xasprintf("%s/%s", s->dir, e->d_name);
		if (unlink(path) != 0 && errno != ENOENT)
			warning("cannot remove '%s': %s", path,
			        strerror(errno));
		free(path);
	}
	closedir(d);
}

/*
 * Fault injection for the concurrency test (as git's GIT_TEST_*
 * variables): hold the lock PARATUNE_TEST_HOLD_LOCK_MS milliseconds
 * before working, as a run against a slow controller does, so that
 * processes started together all meet the lock held, however unevenly
 * the machine starts them.
 */
static void
hold_lock_for_test(void)
{
	const char *v = getenv("PARATUNE_TEST_HOLD_LOCK_MS");
	struct timespec ts;
	int ms;

	if (v == NULL || parse_int(v, &ms) != 0 || ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * Wait for the lock another process holds (a submit or a resume, for
 * seconds most often), saying so first: a wait without a word looked
 * like a hang.  0, or -1 after an error.
 */
static int
wait_lock(int fd, const char *path)
{
	safe_text_line(stderr, "waiting for '%s': another paratune is "
	               "working on the campaign", path);
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR)
			return error_errno("cannot lock '%s'", path);
	return 0;
}

/*
 * Take DIR/.lock; 0, 1 when another process holds it, -1 when it cannot
 * be made (the disk), -2 when something else than a lock file is there
 * (a directory, a link, a FIFO: damage, not a full disk).
 */
static int
take_lock_once(struct store *s, bool wait)
{
	char *path = xasprintf("%s/.lock", s->dir);
	struct stat st;
	int e = 0, ret;

	/* The owner's alone: flock() needs only a descriptor, a read-only
	 * one will do, and another user who could open the file could
	 * take the lock and keep it (every resume skipping the campaign,
	 * every cancel waiting).  One made readable before is made so. */
	s->lock_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
	                  O_CLOEXEC, 0600);
	if (s->lock_fd < 0 || fstat(s->lock_fd, &st) != 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else if ((st.st_mode & 077) && fchmod(s->lock_fd, 0600) != 0)
		warning("cannot make '%s' its owner's alone: %s", path,
		        strerror(errno));
	if (e) {
		bool planted = e == EISDIR || e == ELOOP || e == EINVAL;

		error("cannot open '%s': %s%s", path, open_error(e),
		      planted ? " (not a lock file: remove it)" : "");
		free(path);
		return planted ? -2 : -1;
	}
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0)
		ret = 0;
	else if (errno != EWOULDBLOCK)
		ret = error_errno("cannot lock '%s'", path);
	else
		ret = wait ? wait_lock(s->lock_fd, path) : 1;
	free(path);
	return ret;
}

/* Whether DIR/.lock is still the file the lock was taken on. */
static bool
lock_still_there(const struct store *s)
{
	char *path = xasprintf("%s/.lock", s->dir);
	struct stat now, held;
	bool same = lstat(path, &now) == 0 && fstat(s->lock_fd, &held) == 0 &&
	            now.st_dev == held.st_dev && now.st_ino == held.st_ino;

	free(path);
	return same;
}

/*
 * take_lock_once, again while the lock taken is no longer DIR's: plan
 * --force replaced the campaign while this process waited, and the
 * lock it got is the old directory's, which a newcomer to the new one
 * would not see (two submits at once, one journal).
 */
static int
take_lock(struct store *s, bool wait)
{
	int ret;

	for (int tries = 0;; tries++) {
		if ((ret = take_lock_once(s, wait)) != 0)
			return ret;
		if (lock_still_there(s))
			break;
		close(s->lock_fd);
		s->lock_fd = -1;
		if (tries == 8)
			return error("'%s/.lock' keeps being replaced (the "
			             "campaign planned again and again?)",
			             s->dir);
	}
	hold_lock_for_test();
	return 0;
}

/*
 * When Slurm last answered a poll: the lock file's modification time,
 * which store_mark_polled sets.  It costs no write of the state when
 * nothing changed, and a reader needs no lock to see it.
 */
static long
last_polled(const struct store *s)
{
	char *path = xasprintf("%s/.lock", s->dir);
	struct stat st;
	long t = 0;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		t = (long)st.st_mtime;
	free(path);
	return t;
}

void
store_mark_polled(struct store *s)
{
	static const char mark = '\n';

	if (s->lock_fd < 0)
		return;
	/* One byte marks a lock file that was polled through, so a lock
	 * created and never polled does not count as a poll. */
	if (pwrite(s->lock_fd, &mark, 1, 0) == 1)
		(void)futimens(s->lock_fd, NULL);
	s->polled = (long)time(NULL);
}

/* ---- opening and closing ------------------------------------------------ */

/*
 * The frozen campaign, with no user layer.  Under STORE_POLICY the
 * current site file is read beneath it, so that its locks and caps hold
 * for what is submitted now, whatever site the campaign was planned
 * under and however its campaign.conf was edited since.
 */
static int
load_frozen(struct store *s, int flags, const char *site_path)
{
	char *path = xasprintf("%s/campaign.conf", s->dir);
	struct config_sources src;
	int ret;

	memset(&src, 0, sizeof(src));
	src.no_site = !(flags & STORE_POLICY);
	src.site_path = site_path;
	src.no_user = true;
	src.campaign_path = path;
	src.frozen = true;
	settings_init(&s->settings);
	ret = settings_load(&s->settings, &src);
	if (ret != 0 && (flags & STORE_POLICY))
		/* The error above is the site file's own (a syntax error)
		 * or a lock or cap the frozen campaign breaks now. */
		error("%s: the campaign cannot be loaded under the site file "
		      "as it is now (above): nothing is submitted", s->dir);
	free(path);
	return ret;
}

/*
 * Whether campaign.conf was edited since plan in what shapes the plan:
 * the node count or the model family, which candidate names carry
 * ("{family}_{size}b_{nodes}nodes_tp_...", candidate_name_fits).  Jobs
 * would ask Slurm for other nodes than their scripts were rendered for,
 * and results would price runs that did not happen.  Submitting
 * (STORE_POLICY) is refused; readers and cancel warn, so that what runs
 * can still be seen and stopped.  -1 when refused.
 */
static int
frozen_reshaped(const struct store *s, int flags)
{
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	for (int i = 0; i < s->st.n; i++) {
		if (candidate_name_fits(&s->settings, s->st.v[i].name))
			continue;
		candidate_name_unfit(&why, s->dir, &s->settings,
		                     s->st.v[i].name);
		if (flags & STORE_POLICY)
			ret = error("%s: plan it again, nothing is submitted",
			            why.buf);
		else if (!(flags & STORE_SAID))
			warning("%s", why.buf);
		break;
	}
	strbuf_release(&why);
	return ret;
}

/* dir holds a frozen configuration (a regular file, not a link); NULL,
 * or what is there instead in words. */
static const char *
not_campaign(const char *dir)
{
	char *path = xasprintf("%s/campaign.conf", dir);
	struct stat st;
	const char *why = NULL;

	if (lstat(path, &st) != 0)
		why = "no campaign.conf";
	else if (S_ISLNK(st.st_mode))
		why = "its campaign.conf is a symbolic link";
	else if (!S_ISREG(st.st_mode))
		why = "its campaign.conf is not a regular file";
	free(path);
	return why;
}

int
store_open(struct store *s, const char *dir, int flags)
{
	return store_open_site(s, dir, flags, NULL);
}

int
store_open_site(struct store *s, const char *dir, int flags,
                const char *site_path)
{
	char real[PATH_MAX];
	const char *why;
	int lock, status;

	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	s->journal.fd = -1;
	if (realpath(dir, real) == NULL) {
		error_errno("cannot open campaign directory '%s'", dir);
		return errno == ENOENT ? EXIT_NOINPUT : EXIT_DATAERR;
	}
	s->dir = xstrdup(real);
	/* Nothing is created (a lock file) in what is not a campaign. */
	if ((why = not_campaign(s->dir)) != NULL) {
		error("'%s' is not a campaign directory (%s)", dir, why);
		store_close(s, false);
		return EXIT_NOINPUT;
	}
	if (!(flags & STORE_READ_ONLY)) {
		lock = take_lock(s, flags & STORE_LOCK_WAIT);
		if (lock != 0) {
			store_close(s, false);
			return lock == 1 ? 1 : lock == -2 ? EXIT_DATAERR
			       : EXIT_IOERR;
		}
		remove_stale_temps(s);
	}
	if ((status = load_frozen(s, flags, site_path)) != 0) {
		store_close(s, false);
		/* Root refusing a file, or a look at one that did not
		 * finish, says so (77, 75); anything else is the file's. */
		return status == EXIT_NOPERM || status == EXIT_TEMPFAIL ? status
		       : EXIT_CONFIG;
	}
	if (state_load(s->dir, &s->st) != 0) {
		store_close(s, false);
		return EXIT_DATAERR;
	}
	if (frozen_reshaped(s, flags) != 0) {
		store_close(s, false);
		return EXIT_CONFIG;
	}
	status = replay_journal(s, !(flags & STORE_READ_ONLY));
	if (status == 0 && state_check_jobs(s->dir, &s->st) != 0)
		status = EXIT_DATAERR;
	if (status == 0 && !(flags & (STORE_READ_ONLY | STORE_REPLACING)))
		status = store_home_check(s);
	if (status != 0) {
		store_close(s, false);
		return status;
	}
	s->polled = last_polled(s);
	return 0;
}

int
store_close(struct store *s, bool save)
{
	int ret = 0;

	/* One checkpoint per command run, and none when nothing changed:
	 * a run that could not reach Slurm leaves the state as it was. */
	if (save && s->journal.fd >= 0 && s->transitions > 0 &&
	    store_checkpoint(s) != 0)
		ret = EXIT_IOERR;
	journal_close(&s->journal);
	if (s->lock_fd >= 0)
		close(s->lock_fd); /* releases the flock */
	state_release(&s->st);
	settings_release(&s->settings);
	free(s->dir);
	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	s->journal.fd = -1;
	return ret;
}

/* ---- what a reader asks ------------------------------------------------- */

void
store_counts(const struct state *st, int counts[CS_COUNT])
{
	memset(counts, 0, sizeof(int) * CS_COUNT);
	for (int i = 0; i < st->n; i++)
		counts[st->v[i].state]++;
}

bool
store_all_final(const struct state *st)
{
	for (int i = 0; i < st->n; i++)
		if (st->v[i].state == CS_QUEUED ||
		    cand_state_active(st->v[i].state))
			return false;
	return true;
}

bool
store_ended(const struct store *s)
{
	return s->journal_ended && store_all_final(&s->st);
}

bool
store_any_selected(const struct state *st)
{
	for (int i = 0; i < st->n; i++)
		if (st->v[i].state != CS_PLANNED)
			return true;
	return false;
}

int
store_active_count(const struct state *st)
{
	int n = 0;

	for (int i = 0; i < st->n; i++)
		n += cand_state_active(st->v[i].state);
	return n;
}

bool
cand_at_risk(const struct cand_status *c)
{
	return c->unsafe && c->fits_by[0] == '\0';
}

void
store_progress(const struct state *st, struct strbuf *out)
{
	int n[CS_COUNT], selected, fits = 0;

	store_counts(st, n);
	selected = st->n - n[CS_PLANNED];
	strbuf_addf(out, "%d done, %d running, %d pending, %d queued, "
	            "%d failed of %d selected (%d not selected)",
	            n[CS_COMPLETED], n[CS_RUNNING],
	            n[CS_PENDING] + n[CS_SUBMITTING], n[CS_QUEUED],
	            n[CS_OOM] + n[CS_FAILED], selected, n[CS_PLANNED]);
	/* Slurm ended these, not the layout: results may have measured
	 * them (enough steps before the end), so "failed" was false. */
	if (n[CS_TIMEOUT])
		strbuf_addf(out, "; %d timed out", n[CS_TIMEOUT]);
	if (n[CS_NODE_FAIL])
		strbuf_addf(out, "; %d ended by node failure",
		            n[CS_NODE_FAIL]);
	if (n[CS_PREEMPTED])
		strbuf_addf(out, "; %d preempted", n[CS_PREEMPTED]);
	/* A user's cancel is no failure of the layout. */
	if (n[CS_CANCELLED])
		strbuf_addf(out, "; %d cancelled", n[CS_CANCELLED]);
	if (n[CS_PRUNED])
		strbuf_addf(out, "; %d pruned", n[CS_PRUNED]);
	for (int i = 0; i < st->n; i++)
		fits += st->v[i].fits_by[0] != '\0';
	if (fits)
		strbuf_addf(out, "; %d oom-risk proved to fit", fits);
	if (n[CS_SKIPPED])
		strbuf_addf(out, "; %d skipped", n[CS_SKIPPED]);
	if (st->stop_reason[0])
		strbuf_addf(out, "; search stopped: %s", st->stop_reason);
}

bool
store_has_campaign_file(const char *dir)
{
	char *path = xasprintf("%s/campaign.conf", dir);
	struct stat st;
	bool there = lstat(path, &st) == 0 || errno != ENOENT;

	free(path);
	return there;
}
