/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * owner-limit.c - a look that root takes at a path with its own rights,
 * in a child killed after a limit (owner-int.h).
 *
 * Whether another user could change a path is known only by looking at
 * every name on it, and a look into a FUSE file system whose daemon
 * stopped, or a hard NFS mount whose server is gone, never returns:
 * root's interactive `paratune parse ~alice/run.log` or calibrate, like
 * a cron line, would wait there for good.  The child waits instead, and
 * is killed once the limit passes.  SIGKILL ends a request the file
 * system has not taken up yet; one that a FUSE daemon read and never
 * answers holds the child in the kernel even so, and the child is then
 * left behind rather than waited for (owner_reap).
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "owner-int.h"
#include "owner.h"

/* Milliseconds from t0 to now. */
static long long
elapsed_ms(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long long)(now.tv_sec - t0->tv_sec) * 1000 +
	       (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Continue the child pid when it is stopped: the user a child acts as
 * can stop it, and it does root's errand, so it is not left to run out
 * its limit (a cron line's campaigns after it would wait as long).
 * waitid() without WEXITED reports the stop alone: an exit is left to
 * owner_reap.
 */
static void
continue_stopped(pid_t pid)
{
	siginfo_t si;

	si.si_pid = 0;
	if (waitid(P_PID, (id_t)pid, &si, WSTOPPED | WNOHANG) == 0 &&
	    si.si_pid == pid)
		kill(pid, SIGCONT);
}

/* How often a child that has not answered is looked at for a stop. */
#define STOP_CHECK_MS 250

/*
 * Wait up to limit_s seconds for the len bytes the child pid writes to
 * fd at once: 1 with them in buf, 0 when the limit passed, -1 when the
 * child ended without them (it was killed, or crashed).  A pipe rather
 * than polling waitpid(): the answer is taken the moment it is
 * written, where a poll's tick added its length to every check.
 */
static int
wait_answer(int fd, pid_t pid, unsigned limit_s, unsigned char *buf,
            size_t len)
{
	const long long limit_ms = (long long)limit_s * 1000;
	struct pollfd p = { fd, POLLIN, 0 };
	struct timespec t0;
	long long left;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((left = limit_ms - elapsed_ms(&t0)) > 0) {
		n = poll(&p, 1, left > STOP_CHECK_MS ? STOP_CHECK_MS
		                                     : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n > 0)
			return read(fd, buf, len) == (ssize_t)len ? 1 : -1;
		continue_stopped(pid);
	}
	return 0;
}

/*
 * Reap the child pid, first killed when kill_first, waiting up to
 * OWNER_REAP_MS for it to end: 0 with its wait status in *status, or
 * -1 when it had not ended by then.  A process in an uninterruptible
 * wait does not die of SIGKILL: a FUSE request whose daemon read it
 * and never answers is waited out in the kernel until the daemon
 * answers or goes (Linux fs/fuse/dev.c, request_wait_answer), and
 * root's waitpid() waited with it, for good.  Such a child is left
 * behind, unreaped: it ends once the file system lets go, and its
 * parent's exit hands it to init, which reaps it.
 */
int
owner_reap(pid_t pid, int *status, bool kill_first)
{
	const struct timespec tick = { 0, 10000000L };	/* 10 ms */
	struct timespec t0;
	pid_t r;

	if (kill_first)
		kill(pid, SIGKILL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (elapsed_ms(&t0) >= OWNER_REAP_MS)
			return -1;
		nanosleep(&tick, NULL);
	}
}

/*
 * The error for a look at path whose child ended without an answer
 * (status, waitpid's): which path, and how it ended.  The callers
 * refuse the path on -1 and add nothing, so this alone tells which of
 * several inputs could not be looked at.  -1.
 */
static int
look_failed(const char *path, int status)
{
	if (WIFSIGNALED(status))
		return error("looking at '%s': the process that looked was "
		             "killed by signal %d", path, WTERMSIG(status));
	return error("looking at '%s': the process that looked failed",
	             path);
}

int
owner_limited(int (*fn)(const void *arg), const void *arg, void *out,
              size_t out_len, unsigned limit_s, const char *path)
{
	/* fn's exit code, then out: one write, so one read takes both
	 * (a pipe writes up to PIPE_BUF bytes at once). */
	unsigned char answer[1 + OWNER_ANSWER_MAX];
	int fd[2], status = 0, got;	/* 0: a waitpid that found none */
	pid_t pid;

	if (out_len > OWNER_ANSWER_MAX || (out == NULL && out_len))
		bug("owner_limited: an answer of %zu bytes", out_len);
	/* What is buffered now would be written by both processes. */
	fflush(stdout);
	fflush(stderr);
	if (pipe2(fd, O_CLOEXEC) != 0)
		return error_errno("cannot look at '%s': no pipe", path);
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return error_errno("cannot look at '%s': no process", path);
	}
	if (pid == 0) {
		close(fd[0]);
		answer[0] = (unsigned char)fn(arg);
		if (out_len)
			memcpy(answer + 1, out, out_len);
		fflush(stderr);
		_exit(write(fd[1], answer, 1 + out_len) ==
		      (ssize_t)(1 + out_len) ? 0 : 1);
	}
	close(fd[1]);
	got = wait_answer(fd[0], pid, limit_s, answer, 1 + out_len);
	close(fd[0]);
	/* No answer, in time or at all (a failed poll included): the
	 * child may still be held by the file system, and waitpid would
	 * wait as long.  Unreaped, its pid is still this child's.  One
	 * that answered is on its way out, unless that way is held too:
	 * it is killed as well after the wait. */
	if (got != 1 || owner_reap(pid, &status, false) != 0)
		if (owner_reap(pid, &status, true) != 0)
			status = 0;
	if (got < 0)
		return look_failed(path, status);
	if (got == 0)
		return -2;
	if (out_len)
		memcpy(out, answer + 1, out_len);
	return answer[0];
}

int
owner_look(const char *path, int (*fn)(const void *arg), const void *arg)
{
	unsigned limit = owner_look_limit_s();
	int ret;

	if (geteuid() != 0)
		return fn(arg);
	if ((ret = owner_limited(fn, arg, NULL, 0, limit, path)) == -2)
		error("looking at '%s' did not finish in %u s (a file system "
		      "that does not answer?): not acting on it", path, limit);
	return ret < 0 ? -1 : ret;
}

/* 1 when arg, a path, is a directory, else 0. */
static int
dir_look(const void *arg)
{
	struct stat st;

	return stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
}

int
owner_is_dir(const char *path)
{
	return owner_look(path, dir_look, path);
}
