/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * owner.c - acting as a campaign directory's owner (owner.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "owner.h"

/* "alice (uid 1000)", or "uid 1000" for an id without a name. */
static void
describe_uid(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buf, len, "%s (uid %u)", pw->pw_name, (unsigned)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
}

/*
 * Take uid's identity for good: its groups, its primary group (the
 * directory's group when it has no passwd entry), then the uid, and make
 * sure root cannot be taken back.  -1 after an error message.
 */
static int
become(uid_t uid, gid_t dir_gid)
{
	struct passwd *pw = getpwuid(uid);
	gid_t gid = pw ? pw->pw_gid : dir_gid;

	if ((pw ? initgroups(pw->pw_name, gid) : setgroups(1, &gid)) != 0)
		return error_errno("cannot take the groups of uid %u",
		                   (unsigned)uid);
	if (setgid(gid) != 0 || setuid(uid) != 0)
		return error_errno("cannot become uid %u", (unsigned)uid);
	if (setuid(0) == 0 || geteuid() != uid || getegid() != gid)
		return error("dropping to uid %u did not hold", (unsigned)uid);
#if defined(__SANITIZE_ADDRESS__)
	/* The kernel makes a process that changed its uid undumpable,
	 * and LeakSanitizer cannot stop an undumpable process's threads
	 * to look for leaks; only sanitizer builds need it back. */
	(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
#endif
	/* libslurm and the job's environment read these. */
	if (pw && (setenv("HOME", pw->pw_dir, 1) != 0 ||
	           setenv("USER", pw->pw_name, 1) != 0 ||
	           setenv("LOGNAME", pw->pw_name, 1) != 0))
		return error_errno("cannot set the environment of uid %u",
		                   (unsigned)uid);
	return 0;
}

/* Run fn in a child as uid; the child's exit code. */
static int
run_as(uid_t uid, gid_t gid, int (*fn)(void *arg), void *arg)
{
	pid_t pid;
	int status;

	/* What is buffered now would be written by both processes. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		error_errno("cannot fork");
		return EXIT_TEMPFAIL;
	}
	if (pid == 0) {
		status = become(uid, gid) != 0 ? EXIT_NOPERM : fn(arg);
		fflush(stdout);
		fflush(stderr);
		_exit(status);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			error_errno("cannot wait for process %ld", (long)pid);
			return EXIT_SOFTWARE;
		}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	error("the process acting as uid %u was killed by signal %d",
	      (unsigned)uid, WTERMSIG(status));
	return EXIT_SOFTWARE;
}

int
owner_run(const char *dir, int (*fn)(void *arg), void *arg)
{
	uid_t me = geteuid();
	char owner[96], caller[96];
	struct stat st;

	if (stat(dir, &st) != 0) {
		error_errno("cannot open campaign directory '%s'", dir);
		return errno == ENOENT ? EXIT_NOINPUT : EXIT_DATAERR;
	}
	if (!S_ISDIR(st.st_mode)) {
		error("'%s' is not a campaign directory", dir);
		return EXIT_DATAERR;
	}
	if (st.st_uid == me)
		return fn(arg);
	describe_uid(st.st_uid, owner, sizeof owner);
	if (me != 0) {
		describe_uid(me, caller, sizeof caller);
		error("'%s' belongs to %s, and this is %s: only its owner or "
		      "root may work on it", dir, owner, caller);
		return EXIT_NOPERM;
	}
	return run_as(st.st_uid, st.st_gid, fn, arg);
}
