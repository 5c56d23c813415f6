/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-watch.c - 'paratune watch LOG': follow a training log as it grows
 * and end the run once its step time is known (steady.h: +-1 % at 95 %
 * confidence after the warm-up), or at --max-steps, by sending the
 * trainer the signal it handles as a clean exit.
 *
 * Megatron-LM started with --exit-signal-handler catches its
 * --exit-signal (SIGTERM by default), finishes the current iteration,
 * saves when it has somewhere to save, prints "[exiting program after
 * receiving SIGTERM.]" and returns normally, so the job ends COMPLETED
 * (megatron/training/training.py, checkpoint_and_decide_exit, and
 * dist_signal_handler.py, NVIDIA/Megatron-LM d98e8a6).  Under srun the
 * signal goes to srun, which forwards every signal to the tasks except
 * SIGINT, SIGQUIT, SIGTERM and SIGHUP: on SIGTERM it kills them
 * (SchedMD/slurm src/srun/srun.c, _forward_signal); the job templates
 * therefore ask Megatron-LM for SIGUSR2 and pass --signal USR2.
 *
 * The log is opened as a file a user could have planted: no symbolic
 * link is followed and a FIFO or device is refused without blocking
 * (fopen_regular); reading it never blocks, and every wait is one
 * --interval, bounded in all by --timeout.  A log truncated, rewritten
 * or replaced (rotated) under watch is read again from its start, and
 * opened again with the same care when the path names another file:
 * steps from two runs are not one run's.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#ifdef HAVE_SYS_PIDFD_H
#include <sys/pidfd.h>
#else
#include <sys/syscall.h>
#endif
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "directive.h"
#include "error.h"
#include "logparse.h"
#include "owner.h"
#include "steady.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_watch_entry;

/* Without a trainer to watch, give up after an hour. */
#define WATCH_TIMEOUT_ALONE 3600.0
/* The last bytes read that are read again before each read, to see the
 * log rewritten in place: a truncation followed at once by more than
 * was read leaves the size no smaller, but not these bytes the same. */
#define WATCH_TAIL 4096

/* Why watch ended: the first word of its verdict. */
enum watch_reason {
	WATCH_STEADY,     /* the step time is known: trainer signalled */
	WATCH_MAX_STEPS,  /* --max-steps, or the trainer's own last step */
	WATCH_EXITED,     /* the trainer ended before either */
	WATCH_TIMEOUT,    /* --timeout ran out first */
};

static const char *const watch_reason_names[] = {
	"steady", "max_steps", "exited", "timeout",
};

/* How the log is no longer what was read. */
enum watch_change {
	WATCH_SAME,       /* it only grew, or did not */
	WATCH_REPLACED,   /* the path names another file: rotated, or
	                     written anew under the same name */
	WATCH_TRUNCATED,  /* shorter than what was read */
	WATCH_REWRITTEN,  /* the last bytes read are not there any more */
};

static const char *const watch_change_names[] = {
	NULL, "replaced", "truncated", "rewritten",
};

struct watch_opts {
	const char *log;
	int pid, pgid;        /* 0: none (watch_check) */
	int sig;
	double interval_s, timeout_s;
	int max_steps;        /* 0: the log's own total */
	int skip_steps, min_steps;
	double precision;     /* relative half-width, 0.01 for 1 % */
	const char *output;   /* NULL: stdout */
	bool quiet;           /* -q: no warnings */
};

/* The log being followed. */
struct watch_log {
	FILE *f;
	struct logparse lp;
	struct log_result res;
	struct log_reader *rd;
	bool eof_seen;        /* the last read found no new bytes */
	/* The file open: another at the path is a new log. */
	dev_t dev;
	ino_t ino;
	off_t offset;         /* the bytes read from it */
	char tail[WATCH_TAIL];  /* the last of them, tail_len in all */
	size_t tail_len;
	/* Truncated in place: NUL bytes at the start are a hole, skipped
	 * (watch_skip_hole), hole_len of them so far. */
	bool in_hole;
	off_t hole_len;
	bool dropped_said;    /* the steps timed at zero or less warned of */
	/* Since the last judgment a read found something, or started
	 * over (and before the first): the steps are to be judged. */
	bool fresh;
};

/*
 * The trainer watched.  A process is known by a pidfd, opened once at
 * the start: a number checked once per --interval could be that of
 * another process by the next check (the trainer ended, was reaped, and
 * its pid given anew), which watch would then signal.  A pidfd is
 * readable once its process has ended, zombie or not (kill(pid, 0)
 * succeeds on a zombie that no one reaps, and watch waited for it), and
 * signals only that process.
 *
 * A group is known the same way where Linux can signal a group
 * through a pidfd (PIDFD_SIGNAL_PROCESS_GROUP, 6.9): by a pidfd of its
 * leader, which names the group itself, and a group whose last process
 * was reaped stays gone even after a new process takes its id and makes
 * itself a group leader (between two looks, watch took that group for
 * the trainer's and signalled it).  The leader may have ended: its
 * group lives on in the others, and the pidfd still names it.  Where
 * the kernel cannot (before 6.9), or the leader was already reaped when
 * watch started, the group is known by its id as before: while
 * kill(-pgid, 0) finds it the id is that group's, as the kernel gives
 * no new process the id of a group that still exists, but such a reuse
 * within one --interval goes unseen.
 */
struct watch_trainer {
	pid_t pid, pgid;      /* --pid, --pgid; both 0: none */
	int pidfd;            /* the process, or the group's leader; -1 when
	                         it ended before, or the group's has none */
	bool by_number;       /* no pidfd to be had: known by its pid */
};

/* <linux/pidfd.h> of Linux 6.9, which no C library declares yet. */
#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP (1U << 2)
#endif

#ifndef HAVE_SYS_PIDFD_H
/* glibc before 2.36 has the system calls but not their wrappers. */
static int
pidfd_open(pid_t pid, unsigned int flags)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static int
pidfd_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags)
{
#ifdef SYS_pidfd_send_signal
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, info, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}
#endif

/* Seconds on a clock that does not jump. */
static double
watch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep s seconds (a signal may cut it short: the caller polls). */
static void
watch_sleep(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* One --interval, cut to what is left of --timeout (end; 0: none), so
 * that watch ends at --timeout, not up to an interval after it. */
static double
watch_wait(const struct watch_opts *o, double end)
{
	double left = end > 0 ? end - watch_now() : o->interval_s;

	return left >= o->interval_s ? o->interval_s : left > 0 ? left : 0;
}

/* pidfd_open, or ENOSYS as a kernel before Linux 5.3 (or a container's
 * system call filter) answers when the tests ask for it. */
static int
trainer_pidfd(pid_t pid)
{
	if (getenv("PARATUNE_TEST_NO_PIDFD")) {
		errno = ENOSYS;
		return -1;
	}
	return pidfd_open(pid, 0);
}

/* Send sig (0: none, only look) to the group held by t->pidfd. */
static int
group_signal(const struct watch_trainer *t, int sig)
{
	return pidfd_send_signal(t->pidfd, sig, NULL,
	                         PIDFD_SIGNAL_PROCESS_GROUP);
}

/*
 * Hold the group t->pgid by a pidfd of its leader where the kernel can
 * signal a group through one (see struct watch_trainer); else leave it
 * to be known by its id.  A kernel before 6.9 refuses the flag
 * (EINVAL).  ESRCH from the probe is a group already gone, or a pid
 * that leads no group: the pidfd then keeps it gone.
 */
static void
group_open(struct watch_trainer *t)
{
	int fd = trainer_pidfd(t->pgid);

	if (fd < 0)
		return;
	t->pidfd = fd;
	if (group_signal(t, 0) == 0 || (errno != EINVAL && errno != ENOSYS))
		return;
	close(fd);
	t->pidfd = -1;
}

/*
 * Know the trainer that o names: 0, or an exit code after a message.
 * A process that has already ended is no error: watch reads what it
 * logged and says it exited.  Where no pidfd can be had (Linux before
 * 5.3, as some clusters still run, or a filter that refuses the call)
 * the trainer is known by its number as before, with a warning: early
 * stopping still works, with the narrow risk the pidfd removes.
 */
static int
trainer_open(struct watch_trainer *t, const struct watch_opts *o)
{
	t->pid = (pid_t)o->pid;
	t->pgid = (pid_t)o->pgid;
	t->pidfd = -1;
	t->by_number = false;
	if (t->pgid) {
		group_open(t);
		return 0;
	}
	if (t->pid == 0 || (t->pidfd = trainer_pidfd(t->pid)) >= 0 ||
	    errno == ESRCH)
		return 0;
	if (errno == ENOSYS || errno == EPERM) {
		warning("cannot hold process %d by a pidfd (%s): following "
		        "it by its number, which another process may take "
		        "once it has ended", (int)t->pid, strerror(errno));
		t->by_number = true;
		return 0;
	}
	error_errno("cannot follow process %d", (int)t->pid);
	return EXIT_SOFTWARE;
}

static void
trainer_close(struct watch_trainer *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
}

/* Whether the trainer (process or group) still exists; true when none
 * was named. */
static bool
trainer_alive(const struct watch_trainer *t)
{
	struct pollfd p;
	int n;

	if (t->pgid && t->pidfd >= 0)
		return group_signal(t, 0) == 0 || errno != ESRCH;
	if (t->pgid)
		return kill(-t->pgid, 0) == 0 || errno != ESRCH;
	if (t->pid == 0)
		return true;
	if (t->by_number)
		return kill(t->pid, 0) == 0 || errno != ESRCH;
	if (t->pidfd < 0)
		return false;
	p.fd = t->pidfd;
	p.events = POLLIN;
	while ((n = poll(&p, 1, 0)) < 0 && errno == EINTR)
		;
	/* A poll that fails says nothing: the trainer is still waited
	 * for, as long as --timeout allows. */
	return n <= 0;
}

/* Nothing of the open file read yet. */
static void
watch_from_start(struct watch_log *w)
{
	w->offset = 0;
	w->tail_len = 0;
}

/* Follow f, just opened at o->log, from its start, instead of the file
 * followed so far: 0, or an exit code after a message (f closed). */
static int
watch_attach(struct watch_log *w, FILE *f, const struct watch_opts *o)
{
	struct stat st;

	/* Without its identity another file at the path cannot be told
	 * from it. */
	if (fstat(fileno(f), &st) != 0) {
		error_errno("cannot read '%s'", o->log);
		fclose(f);
		return EXIT_IOERR;
	}
	if (w->f)
		fclose(w->f);
	w->f = f;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	watch_from_start(w);
	/* Another file: NUL bytes at its start are its own. */
	w->in_hole = false;
	return 0;
}

/* Say why the log at o->log cannot be opened (errno, other than
 * ENOENT); returns the exit code. */
static int
watch_open_error(const struct watch_opts *o)
{
	if (errno == ELOOP)
		error("cannot read '%s': it is a symbolic link, which watch "
		      "does not follow", o->log);
	else
		error("cannot read '%s': %s", o->log, open_error(errno));
	return EXIT_NOINPUT;
}

/* Open the log once it exists: 0, or an exit code after a message. */
static int
watch_open(struct watch_log *w, const struct watch_opts *o,
           const struct watch_trainer *t, double end)
{
	for (;;) {
		FILE *f = fopen_regular(o->log);

		if (f)
			return watch_attach(w, f, o);
		if (errno != ENOENT)
			return watch_open_error(o);
		if (!trainer_alive(t) || (end > 0 && watch_now() >= end)) {
			error("cannot read '%s': it does not exist%s", o->log,
			      trainer_alive(t) ? " (--timeout reached)"
			                       : " and the trainer has ended");
			return EXIT_NOINPUT;
		}
		watch_sleep(watch_wait(o, end));
	}
}

/* Count n more bytes read, buf, keeping the last WATCH_TAIL. */
static void
watch_keep_tail(struct watch_log *w, const char *buf, size_t n)
{
	size_t keep = w->tail_len;

	/* Every byte read counts, also those the tail does not keep. */
	w->offset += (off_t)n;
	if (n >= WATCH_TAIL) {
		buf += n - WATCH_TAIL;
		n = WATCH_TAIL;
	}
	if (keep > WATCH_TAIL - n)
		keep = WATCH_TAIL - n;
	memmove(w->tail, w->tail + w->tail_len - keep, keep);
	memcpy(w->tail + keep, buf, n);
	w->tail_len = keep + n;
}

/* How the log at path changed since the last read.  A path that names
 * nothing keeps the file open: a trainer may still write to it, and a
 * new one is seen when it comes. */
static enum watch_change
watch_changed(const struct watch_log *w, const char *path)
{
	char old[WATCH_TAIL];
	struct stat st;
	ssize_t n;

	if (lstat(path, &st) == 0 &&
	    (st.st_dev != w->dev || st.st_ino != w->ino))
		return WATCH_REPLACED;
	if (fstat(fileno(w->f), &st) == 0 && st.st_size < w->offset)
		return WATCH_TRUNCATED;
	if (w->tail_len == 0)
		return WATCH_SAME;
	n = pread(fileno(w->f), old, w->tail_len,
	          w->offset - (off_t)w->tail_len);
	/* A read that fails says nothing; the next read() tells. */
	if (n >= 0 && ((size_t)n != w->tail_len ||
	               memcmp(old, w->tail, w->tail_len)))
		return WATCH_REWRITTEN;
	return WATCH_SAME;
}

/*
 * Read the log from its start again after the change how (the file at
 * the path opened anew when it was replaced), forgetting every step:
 * 0, or an exit code after a message.
 */
static int
watch_restart(struct watch_log *w, const struct watch_opts *o,
              enum watch_change how)
{
	int ret;

	if (how == WATCH_REPLACED) {
		FILE *f = fopen_regular(o->log);

		/* Gone again since: keep the one open until another. */
		if (f == NULL && errno == ENOENT)
			return 0;
		if (f == NULL)
			return watch_open_error(o);
		if ((ret = watch_attach(w, f, o)) != 0)
			return ret;
	} else {
		if (lseek(fileno(w->f), 0, SEEK_SET) < 0) {
			error_errno("cannot read '%s' again", o->log);
			return EXIT_IOERR;
		}
		watch_from_start(w);
		w->in_hole = true;
		w->hole_len = 0;
	}
	if (!o->quiet)
		warning("'%s' was %s: reading it again from the start, "
		        "without the steps read so far", o->log,
		        watch_change_names[how]);
	logparse_finish(w->rd);
	log_result_release(&w->res);
	w->rd = logparse_begin(&w->lp, o->log, &w->res);
	return 0;
}

/*
 * The bytes of buf (n of them) past the hole at the start of a log
 * truncated in place, their count in *len.  A writer that keeps its
 * offset (no O_APPEND: Slurm's default truncate mode, logrotate's
 * copytruncate) writes its next line where it was, and the file reads
 * as NUL bytes up to there: those are no sign of a binary file, and
 * the reader's NUL rule would refuse the log before its next step.
 */
static const char *
watch_skip_hole(struct watch_log *w, const struct watch_opts *o,
                const char *buf, size_t n, size_t *len)
{
	const char *p = buf;

	if (w->in_hole) {
		while (p < buf + n && *p == '\0')
			p++;
		w->hole_len += p - buf;
		if (p < buf + n) {
			w->in_hole = false;
			if (w->hole_len && !o->quiet)
				warning("'%s': skipped %lld NUL bytes at its "
				        "start, the hole its writer left "
				        "when it was truncated", o->log,
				        (long long)w->hole_len);
		}
	}
	*len = n - (size_t)(p - buf);
	return p;
}

/* Read what the log gained since the last call, from its start again
 * when it is no longer what was read. */
static int
watch_read(struct watch_log *w, const struct watch_opts *o)
{
	enum watch_change how = watch_changed(w, o->log);
	char buf[65536];
	const char *p;
	size_t len;
	ssize_t n;
	int ret;

	if (how != WATCH_SAME && (ret = watch_restart(w, o, how)) != 0)
		return ret;
	w->fresh |= how != WATCH_SAME;
	w->eof_seen = false;
	while ((n = read(fileno(w->f), buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error_errno("cannot read '%s'", o->log);
			return EXIT_IOERR;
		}
		p = watch_skip_hole(w, o, buf, (size_t)n, &len);
		logparse_feed(w->rd, p, len);
		w->fresh = true;
		watch_keep_tail(w, buf, (size_t)n);
	}
	w->eof_seen = true;
	return 0;
}

/* Send the trainer the signal; 0, or an exit code after a message.
 * One that has ended needs none. */
static int
watch_signal(const struct watch_trainer *t, int sig)
{
	int ret;

	if (t->pgid && t->pidfd >= 0)
		ret = group_signal(t, sig);
	else if (t->pgid)
		ret = kill(-t->pgid, sig);
	else if (t->pidfd >= 0)
		ret = pidfd_send_signal(t->pidfd, sig, NULL, 0);
	else if (t->by_number)
		ret = kill(t->pid, sig);
	else
		return 0;
	if (ret == 0 || errno == ESRCH)
		return 0;
	if (errno == EPERM) {
		error("cannot signal %s %d: not permitted",
		      t->pgid ? "process group" : "process",
		      t->pgid ? (int)t->pgid : (int)t->pid);
		return EXIT_NOPERM;
	}
	error_errno("cannot signal %s %d", t->pgid ? "process group"
	            : "process", t->pgid ? (int)t->pgid : (int)t->pid);
	return EXIT_SOFTWARE;
}

/* The verdict line: "steady step_s=0.0803 +-0.87% n=14 step=16". */
static void
watch_verdict(struct strbuf *sb, enum watch_reason why,
              const struct steady *s)
{
	strbuf_addstr(sb, watch_reason_names[why]);
	if (isfinite(s->mean_s))
		strbuf_addf(sb, " step_s=%.6g", s->mean_s);
	else
		strbuf_addstr(sb, " step_s=-");
	if (isfinite(s->half_rel))
		strbuf_addf(sb, " +-%.2f%%", 100 * s->half_rel);
	else
		strbuf_addstr(sb, " +-inf%");
	strbuf_addf(sb, " n=%d", s->measured);
	/* None logged yet: no step number, as step_s has no time. */
	if (s->last_step >= 0)
		strbuf_addf(sb, " step=%ld\n", s->last_step);
	else
		strbuf_addstr(sb, " step=-\n");
}

/*
 * Write the verdict where --output says and, when stop, signal the
 * trainer; 0 or an exit code.  The verdict comes first: a trainer
 * stopped early with no verdict (stdout on a full disk) is read by
 * results as one that exited, not as steady, so a verdict that cannot
 * be written leaves the trainer running to its own end.  A file is
 * written beside --output and synced before the signal, and put in
 * place after it (removed when the signal fails).  Only that rename,
 * and the sync of its directory, can still fail once the trainer is
 * signalled (a file system remounted read-only meanwhile): the verdict
 * is then said on stderr as well, for whoever reads the job's output.
 */
static int
watch_write(struct cmd_ctx *ctx, const struct watch_opts *o,
            const struct watch_trainer *t, bool stop,
            const struct strbuf *line)
{
	char *tmp;
	int ret;

	if (o->output == NULL) {
		fputs(line->buf, ctx->out);
		if (fflush(ctx->out) == 0 && !ferror(ctx->out))
			return stop ? watch_signal(t, o->sig) : 0;
	} else if ((tmp = write_file_prepare(o->output, line->buf,
	                                     line->len, 0644)) != NULL) {
		if (stop && (ret = watch_signal(t, o->sig)) != 0) {
			write_file_abandon(tmp);
			return ret;
		}
		if (write_file_commit(o->output, tmp) == 0)
			return 0;
		if (stop)
			error("the trainer was signalled, and its verdict may "
			      "not be safe in '%s': %.*s", o->output,
			      (int)line->len - 1, line->buf);
		return EXIT_CANTCREAT;
	}
	if (stop)
		error("the verdict cannot be written: the trainer is left "
		      "running, not signalled");
	return EXIT_CANTCREAT;
}

/*
 * One look at the log: *done when watching is over, with *why, and
 * *stop when the trainer is to be signalled.  A log with NUL bytes and
 * no step at all is not a training log.
 */
static int
watch_judge(struct watch_log *w, const struct watch_opts *o,
            const struct watch_trainer *t, double end, struct steady *s,
            enum watch_reason *why, bool *done, bool *stop)
{
	const struct log_result *r = &w->res;
	bool alive = trainer_alive(t), at_total;
	int ret;

	/* Look at the trainer first: what it logged before it ended is
	 * then certainly read below. */
	if ((ret = watch_read(w, o)) != 0)
		return ret;
	if (r->nul_bytes > 0 && r->nsteps == 0) {
		error("'%s' is not a training log: NUL byte at offset %lld "
		      "and no step", o->log, r->first_nul_offset);
		return EXIT_DATAERR;
	}
	/* Judging is over all the steps (55 ms at 10^6): not again for a
	 * read that added nothing.  s holds the last judgment. */
	if (w->fresh)
		steady_check(r, o->skip_steps, o->min_steps, o->precision, s);
	w->fresh = false;
	if (s->dropped > 0 && !w->dropped_said && !o->quiet)
		warning("'%s': a step timed at zero or less (a clock gone "
		        "wrong): left out of the step time", o->log);
	w->dropped_said |= s->dropped > 0;
	/* The reader's own word first: NeMo 2.0 counts global_step
	 * from 0, so its last (19 of "iteration 19/19") is one short of
	 * the total of 20. */
	at_total = r->finished ||
	           (r->total_steps > 0 && s->last_step >= r->total_steps);
	*done = true;
	*stop = false;
	/* A trainer that ended by itself was not stopped by the figure. */
	if (!alive)
		*why = at_total ? WATCH_MAX_STEPS : WATCH_EXITED;
	else if (s->known)
		*why = WATCH_STEADY, *stop = true;
	else if (at_total)
		*why = WATCH_MAX_STEPS;
	else if (o->max_steps > 0 && s->last_step >= o->max_steps)
		*why = WATCH_MAX_STEPS, *stop = true;
	else if (end > 0 && watch_now() >= end)
		*why = WATCH_TIMEOUT;
	else
		*done = false;
	return 0;
}

/* Follow the log until a verdict; 0 or an exit code. */
static int
watch_run(struct cmd_ctx *ctx, const struct watch_opts *o)
{
	struct watch_log w;
	struct watch_trainer t;
	struct strbuf line = STRBUF_INIT, notes = STRBUF_INIT;
	double timeout = o->timeout_s >= 0 ? o->timeout_s
	                 : o->pid || o->pgid ? 0 : WATCH_TIMEOUT_ALONE;
	double end = timeout > 0 ? watch_now() + timeout : 0;
	enum watch_reason why = WATCH_TIMEOUT;
	struct steady s;
	bool done = false, stop = false;
	int ret;

	memset(&w, 0, sizeof(w));
	memset(&s, 0, sizeof(s));
	w.fresh = true;
	/* Run as root (which jobs do not), only along root's own paths:
	 * another user's could lead to root's files. */
	if ((ret = owner_root_path(o->log)) != 0 ||
	    (o->output && (ret = owner_root_new_path(o->output)) != 0))
		return ret;
	/* A verdict that cannot be written, said now: not once the
	 * trainer is stopped. */
	if (o->output && output_file_check(o->output) != 0)
		return EXIT_CANTCREAT;
	if ((ret = trainer_open(&t, o)) != 0)
		return ret;
	if ((ret = watch_open(&w, o, &t, end)) != 0) {
		trainer_close(&t);
		return ret;
	}
	logparse_init(&w.lp);
	w.rd = logparse_begin(&w.lp, o->log, &w.res);
	while ((ret = watch_judge(&w, o, &t, end, &s, &why, &done,
	                          &stop)) == 0 && !done)
		watch_sleep(watch_wait(o, end));
	logparse_finish(w.rd);
	fclose(w.f);
	if (ret == 0) {
		watch_verdict(&line, why, &s);
		ret = watch_write(ctx, o, &t, stop, &line);
		log_result_notes(&w.res, NULL, &notes);
		if (notes.len && ctx->verbosity >= 0)
			warning("%s: %s", o->log, notes.buf);
		if (why == WATCH_TIMEOUT && ctx->verbosity >= 0)
			warning("%s: no steady step time after %g s "
			        "(--timeout)", o->log, timeout);
	}
	trainer_close(&t);
	strbuf_release(&notes);
	strbuf_release(&line);
	log_result_release(&w.res);
	logparse_release(&w.lp);
	return ret;
}

/*
 * Refuse a trainer whose signal would reach what watch must not touch:
 * 0, or -1 after a message.  Process 1 is init, and group 1 is kill(-1)
 * (killpg(1) too): every process the caller may signal, as root the
 * whole node.  Watch itself and its parent would end before the verdict
 * is written.  So would watch's own group: a shell without job control
 * (a batch script) runs its background jobs in its own group, and
 * `--pgid` of that group ended watch and the batch shell with the
 * trainer.
 */
static int
watch_check_target(const struct watch_opts *o)
{
	const char *opt = o->pid ? "--pid" : "--pgid";
	pid_t id = o->pid ? (pid_t)o->pid : (pid_t)o->pgid;

	if (id == 1)
		return error("%s 1 is refused: %s", opt, o->pid
		             ? "it is init"
		             : "kill(-1) signals every process watch may "
		               "signal, as root the whole node");
	if (id == getpid())
		return error("%s %d is refused: it is watch itself", opt,
		             (int)id);
	if (id == getppid())
		return error("%s %d is refused: it is watch's parent, which "
		             "would end before the verdict", opt, (int)id);
	if (o->pgid && id == getpgrp())
		return error("--pgid %d is refused: it is watch's own process "
		             "group, which the signal would end with the "
		             "trainer before the verdict", (int)id);
	return 0;
}

/*
 * Check the options' values; 0 or -1 after a message.  pid, pgid and
 * timeout_s come unset (OPT_INT_UNSET, NAN) and leave with their
 * defaults, so that the sentinels those stand for (0: no trainer, -1:
 * the default timeout) cannot be given.
 */
static int
watch_check(struct watch_opts *o, const char *sig, double percent)
{
	bool pid = o->pid != OPT_INT_UNSET, pgid = o->pgid != OPT_INT_UNSET;

	if (pid && pgid)
		return error("give one of --pid and --pgid, not both");
	if ((pid && o->pid <= 0) || (pgid && o->pgid <= 0))
		return error("--%s must be a positive id, not %d",
		             pid ? "pid" : "pgid", pid ? o->pid : o->pgid);
	if (!pid)
		o->pid = 0;
	if (!pgid)
		o->pgid = 0;
	if ((pid || pgid) && watch_check_target(o) != 0)
		return -1;
	if (directive_signal(sig, &o->sig) != 0 || o->sig <= 0 ||
	    o->sig >= 65)
		return error("--signal: unknown signal '%s'", sig);
	if (!(o->interval_s >= 0.01 && o->interval_s <= 3600))
		return error("--interval must be between 0.01 and 3600 "
		             "seconds, not %g", o->interval_s);
	if (o->timeout_s < 0)
		return error("--timeout must be 0 (none) or more, not %g",
		             o->timeout_s);
	if (isnan(o->timeout_s))
		o->timeout_s = -1;
	if (o->max_steps < 0)
		return error("--max-steps must be 0 (the log's own total) or "
		             "more, not %d", o->max_steps);
	/* --skip-steps -1 is results.skip_steps' own default, which the
	 * job scripts pass on: a value, not a sentinel. */
	if (o->skip_steps < -1 && o->skip_steps != OPT_INT_UNSET)
		return error("--skip-steps must be -1 (the default) or more, "
		             "not %d", o->skip_steps);
	if (o->skip_steps == OPT_INT_UNSET)
		o->skip_steps = -1;
	if (o->min_steps < 1)
		return error("--min-steps must be at least 1, not %d",
		             o->min_steps);
	if (!(percent > 0 && percent <= 100))
		return error("--precision must be a percentage above 0 and "
		             "at most 100, not %g", percent);
	o->precision = percent / 100;
	return 0;
}

/* paratune watch LOG */
static int
cmd_watch_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct watch_opts o = {
		.pid = OPT_INT_UNSET, .pgid = OPT_INT_UNSET,
		.sig = SIGTERM, .interval_s = 1.0, .timeout_s = NAN,
		.skip_steps = OPT_INT_UNSET, .min_steps = STEADY_MIN_STEPS,
	};
	const char *sig = "TERM";
	double percent = 1.0;
	int status;
	const struct option opts[] = {
		OPT_INTEGER(0, "pid", &o.pid, "PID",
		            "the trainer: signal it, stop when it ends"),
		OPT_INTEGER(0, "pgid", &o.pgid, "PGID",
		            "the trainer's process group, instead of --pid"),
		OPT_STR(0, "signal", &sig, "SIG",
		        "the signal of a clean exit (default TERM)"),
		OPT_NUMBER(0, "interval", &o.interval_s, "SECONDS",
		           "time between two reads of the log (default 1)"),
		OPT_NUMBER(0, "timeout", &o.timeout_s, "SECONDS",
		           "give up after this long (default: none with "
		           "a trainer, else 3600; 0: none)"),
		OPT_INTEGER(0, "max-steps", &o.max_steps, "N",
		            "stop the trainer at step N (default: the "
		            "log's own total)"),
		OPT_INTEGER(0, "skip-steps", &o.skip_steps, "N",
		            "warm-up steps dropped (default -1: 10 %, at "
		            "least 1)"),
		OPT_INTEGER(0, "min-steps", &o.min_steps, "N",
		            "measured steps needed (default 10; fewer "
		            "count as 10)"),
		OPT_NUMBER(0, "precision", &percent, "PCT",
		           "half-width of the 95 % interval, percent of "
		           "the mean (default 1)"),
		OPT_STR('o', "output", &o.output, "FILE",
		        "write the verdict to FILE instead of stdout"),
		OPT_FINISH,
	};

	if (cmd_parse_args(ctx, &cmd_watch_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	o.log = argv[1];
	o.quiet = ctx->verbosity < 0;
	if (watch_check(&o, sig, percent) != 0)
		return EXIT_USAGE;
	return watch_run(ctx, &o);
}

const struct cmd_entry cmd_watch_entry = {
	"watch", NULL, "LOG",
	"follow a training log; end the run once its step time is known",
	cmd_watch_exec,
	NULL,
};
