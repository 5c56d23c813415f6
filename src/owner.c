/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * owner.c - acting as a campaign directory's owner (owner.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdbool.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "mount-owner.h"
#include "owner-int.h"
#include "owner.h"
#include "store.h"
#include "strbuf.h"
#include "xalloc.h"

/* "alice (uid 1000)", or "uid 1000" for an id without a name. */
void
describe_uid(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buf, len, "%s (uid %u)", pw->pw_name, (unsigned)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
}

/*
 * stat(), or lstat() unless follow, of path, with the owner who really
 * decides what it holds: on a FUSE file system that a user mounted,
 * that user (mount-owner.h), whatever its daemon answers.  -1 with
 * errno when path cannot be looked up, or its file system's mounter
 * cannot be known.  The owner the file system gave into *shown unless
 * shown is NULL.
 */
int
held_stat(const char *path, struct stat *st, bool follow, uid_t *shown)
{
	uid_t uid;
	gid_t gid;
	int held;

	if ((follow ? stat(path, st) : lstat(path, st)) != 0)
		return -1;
	if (shown)
		*shown = st->st_uid;
	if ((held = mount_user_of(st->st_dev, &uid, &gid)) <= 0)
		return held;
	st->st_uid = uid;
	if (gid != (gid_t)-1)
		st->st_gid = gid;
	return 0;
}

/*
 * What of the caller's environment a child acting as another user
 * keeps: the search path, locale, time zone and terminal, and Slurm's
 * and paratune's own settings.  The rest (a site cron's tokens and
 * keys) is root's: it would reach the user's DIR/submit.env and, where
 * run.export passes it on, the user's jobs.
 */
static bool
env_kept(const char *kv)
{
	static const char *const keep[] = {
		"PATH=", "LANG=", "LANGUAGE=", "LC_", "TZ=", "TERM=",
		"SLURM_CONF=", "PARATUNE_", NULL
	};

	for (int i = 0; keep[i]; i++)
		if (!strncmp(kv, keep[i], strlen(keep[i])))
			return true;
	return false;
}

/* Reduce the environment to what env_kept() allows; -1 on failure. */
static int
env_reduce(void)
{
	size_t n = 0, k = 0;
	char **kept;
	int ret = 0;

	while (environ[n])
		n++;
	kept = xcalloc(n + 1, sizeof(*kept));
	for (size_t i = 0; i < n; i++)
		if (env_kept(environ[i]))
			kept[k++] = xstrdup(environ[i]);
	if (clearenv() != 0)
		ret = -1;
	for (size_t i = 0; i < k; i++) {
		char *eq = strchr(kept[i], '=');

		if (ret == 0 && eq) {
			*eq = '\0';
			if (setenv(kept[i], eq + 1, 1) != 0)
				ret = -1;
		}
		free(kept[i]);
	}
	free(kept);
	return ret;
}

/*
 * Take uid's identity for good: its groups, its primary group, then the
 * uid, and make sure root cannot be taken back.  A uid with no passwd
 * entry is refused: its groups cannot be known, and the group of its
 * directory, which the child took instead, may be one the user is not
 * in (root's, inherited from a set-group-ID directory).  -1 after an
 * error message.
 */
static int
become(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);
	gid_t gid;

	if (pw == NULL)
		return error("uid %u has no passwd entry: its groups cannot "
		             "be known, so root does not act as it (give the "
		             "uid an account, or its campaign to a user who "
		             "has one)", (unsigned)uid);
	gid = pw->pw_gid;
	if (initgroups(pw->pw_name, gid) != 0)
		return error_errno("cannot take the groups of uid %u",
		                   (unsigned)uid);
	if (setgid(gid) != 0 || setuid(uid) != 0)
		return error_errno("cannot become uid %u", (unsigned)uid);
	if (setuid(0) == 0 || geteuid() != uid || getegid() != gid)
		return error("dropping to uid %u did not hold", (unsigned)uid);
	/* libslurm and the job's environment read these. */
	if (env_reduce() != 0)
		return error_errno("cannot reduce the environment for uid %u",
		                   (unsigned)uid);
	if (setenv("HOME", pw->pw_dir, 1) != 0 ||
	    setenv("USER", pw->pw_name, 1) != 0 ||
	    setenv("LOGNAME", pw->pw_name, 1) != 0)
		return error_errno("cannot set the environment of uid %u",
		                   (unsigned)uid);
	return 0;
}

/*
 * Wait for the child pid; with a limit, kill it once limit_s seconds
 * have passed.  The child runs as the user, who may stop it (SIGSTOP)
 * or hang it: root's cron must still go on to the next campaign.  A
 * stopped child is continued at once rather than left to run out the
 * limit: it does root's errand, and ten minutes of each campaign on a
 * cron line would delay every user listed after it.  (After a job
 * control stop of the whole group, a terminal's ^Z, the group is
 * continued already and the signal changes nothing.)
 * The child's wait status, -2 when it was killed at the limit, or -1
 * after an error message.
 */
static int
wait_child(pid_t pid, unsigned limit_s)
{
	const struct timespec tick = { 0, 20000000L }; /* 20 ms */
	struct timespec t0, now;
	int status;
	pid_t r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		r = waitpid(pid, &status,
		            WUNTRACED | (limit_s ? WNOHANG : 0));
		if (r == pid && WIFSTOPPED(status)) {
			kill(pid, SIGCONT);
			continue;
		}
		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return error_errno("cannot wait for process %ld",
			                   (long)pid);
		if (r != 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= (time_t)limit_s) {
			owner_reap(pid, &status, true);
			return -2;
		}
		nanosleep(&tick, NULL);
	}
}

/*
 * status, or EXIT_IOERR after a message when what the child printed did
 * not reach its file (a full disk, a closed pipe): the parent, which
 * printed nothing, would find nothing wrong (paratune.c, close_stdout),
 * and a cron line would take a cut table for a whole one.
 */
static int
child_stdout(int status)
{
	int e = fflush(stdout) != 0 ? errno : 0;

	if (e == 0 && !ferror(stdout))
		return status;
	return error_stdout(status, e);
}

/* Run fn in a child as uid (root's own campaigns too, for the limit);
 * the child's exit code. */
static int
run_as(uid_t uid, int (*fn)(void *arg), void *arg, unsigned limit_s)
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
		status = uid == 0 ? 0 : become(uid);
#if defined(__SANITIZE_ADDRESS__)
		/* The kernel makes a process that changed its uid
		 * undumpable, and LeakSanitizer cannot stop an undumpable
		 * process's threads to look for leaks; only sanitizer
		 * builds need it back, and only here: the child that
		 * looks (look_as_root) stays undumpable, so that the user
		 * it acts as cannot trace it and forge what it answers. */
		(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
#endif
		/* Fault injection for the privilege test: a child that the
		 * user it acts as has stopped, or hung. */
		if (status == 0 && getenv("PARATUNE_TEST_STOP_OWNER"))
			raise(SIGSTOP);
		while (status == 0 && getenv("PARATUNE_TEST_HANG_OWNER"))
			pause();
		status = status != 0 ? EXIT_NOPERM : child_stdout(fn(arg));
		fflush(stderr);
		_exit(status);
	}
	status = wait_child(pid, limit_s);
	if (status == -2) {
		error("the process acting as uid %u did not finish in %u s "
		      "(hung): killed; what it journaled is kept",
		      (unsigned)uid, limit_s);
		return EXIT_TEMPFAIL;
	}
	if (status < 0)
		return EXIT_SOFTWARE;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	error("the process acting as uid %u was killed by signal %d",
	      (unsigned)uid, WTERMSIG(status));
	return EXIT_SOFTWARE;
}

/*
 * The first look at dir, which root takes with its own rights: 0 with
 * dir's stat (its owner as held_stat knows it) in *st and the owner the
 * file system shows in *shown when it is a campaign directory, else an
 * exit code after a message.
 */
static int
look_dir(const char *dir, struct stat *st, uid_t *shown)
{
	if (held_stat(dir, st, true, shown) != 0) {
		error_errno("cannot open campaign directory '%s'", dir);
		return errno == ENOENT ? EXIT_NOINPUT : EXIT_DATAERR;
	}
	/* Most often the campaign file, given for the directory plan made
	 * of it: nothing there is damaged, as 65 said. */
	if (!S_ISDIR(st->st_mode)) {
		error("'%s' is not a campaign directory (not a directory; "
		      "'paratune plan FILE -o DIR' makes one)", dir);
		return EXIT_NOINPUT;
	}
	if (!store_has_campaign_file(dir)) {
		error("'%s' is not a campaign directory (no campaign.conf)",
		      dir);
		return EXIT_NOINPUT;
	}
	return 0;
}

/*
 * The rest of the look at dir (st and shown from look_dir) for the
 * caller me: 0 when me may work on it, as its owner or as root, else
 * an exit code after a message.  Root takes it as the owner already
 * (look_in_child): what runs/ is and where it leads are the owner's to
 * plant, and root's own stat() of them told the owner what lies in
 * directories only root can search.
 */
static int
look_rest(const char *dir, uid_t me, const struct stat *st, uid_t shown)
{
	char owner[96], caller[96];
	struct stat again;
	int ret;

	if ((ret = check_writers(dir, st)) != 0)
		return ret;
	if (shown != st->st_uid) {
		describe_uid(st->st_uid, owner, sizeof owner);
		describe_uid(shown, caller, sizeof caller);
		warning("'%s' is on a FUSE file system that %s mounted, "
		        "whose daemon answers for it: taken as that user's, "
		        "not as %s's, the owner it shows", dir, owner, caller);
	}
	if (st->st_uid == me && me != 0)
		return 0;
	if (me != 0) {
		describe_uid(st->st_uid, owner, sizeof owner);
		describe_uid(me, caller, sizeof caller);
		error("'%s' belongs to %s, and this is %s: only its owner or "
		      "root may work on it", dir, owner, caller);
		return EXIT_NOPERM;
	}
	/* Root, on a campaign of its own or another's: the path checked,
	 * the directory it leads to must still be the one whose owner's
	 * rights the work takes. */
	if (owner_path_held(dir, st->st_uid) != 0 ||
	    runs_link_held(dir, st->st_uid) != 0)
		return EXIT_NOPERM;
	if (held_stat(dir, &again, true, NULL) != 0 ||
	    again.st_uid != st->st_uid || again.st_dev != st->st_dev ||
	    again.st_ino != st->st_ino) {
		error("campaign directory '%s' changed while it was checked; "
		      "not acting on it", dir);
		return EXIT_TEMPFAIL;
	}
	return 0;
}

/* OWNER_CHILD_LIMIT_S, or the tests' shorter PARATUNE_TEST_OWNER_LIMIT. */
static unsigned
owner_limit_s(void)
{
	const char *t = getenv("PARATUNE_TEST_OWNER_LIMIT");
	long v = t ? strtol(t, NULL, 10) : 0;

	return v > 0 && v < OWNER_CHILD_LIMIT_S ? (unsigned)v
	       : OWNER_CHILD_LIMIT_S;
}

unsigned
owner_look_limit_s(void)
{
	unsigned limit = owner_limit_s();

	return limit < OWNER_LOOK_LIMIT_S ? limit : OWNER_LOOK_LIMIT_S;
}

/* What the child that looked found. */
struct look_result {
	int ret;
	uid_t uid;
};

/* The look's arguments, and where its answer goes (in the child's copy
 * of this process's memory, then back here: owner_limited). */
struct look_args {
	const char *dir;
	struct look_result *r;
};

/*
 * Root's look at dir, in the child that look_in_child made: dir's
 * owner found with root's rights, the rest looked at with that owner's
 * (look_rest), which this child takes for good.
 */
static int
look_as_root(const void *arg)
{
	const struct look_args *a = arg;
	struct look_result *r = a->r;
	struct stat st;
	uid_t shown;

	memset(&st, 0, sizeof st);
	r->ret = look_dir(a->dir, &st, &shown);
	if (r->ret == 0 && st.st_uid != 0 && become(st.st_uid))
		r->ret = EXIT_NOPERM;
	if (r->ret == 0)
		r->ret = look_rest(a->dir, 0, &st, shown);
	r->uid = st.st_uid;
	return 0;
}

/*
 * Root's look at dir (look_as_root), in a child that is killed after
 * limit_s seconds: a file system that never answers (a user's FUSE
 * daemon that stopped, a hung NFS server) held root's stat() for ever,
 * and with it every campaign after it on the cron line.  The child only
 * looks, as the owner once it knows who that is; root acts afterwards
 * as the owner it found, in run_as's child.
 */
static int
look_in_child(const char *dir, unsigned limit_s, struct look_result *out)
{
	const struct look_args a = { dir, out };
	int ret;

	out->ret = EXIT_SOFTWARE;
	ret = owner_limited(look_as_root, &a, out, sizeof *out, limit_s,
	                    dir);
	if (ret == -2) {
		error("looking at campaign directory '%s' did not finish in "
		      "%u s (a file system that does not answer?): not "
		      "acting on it", dir, limit_s);
		return EXIT_TEMPFAIL;
	}
	/* No process, or one killed before it answered (by the user it
	 * had become, say), said naming dir: the next run may fare
	 * better. */
	if (ret != 0)
		return EXIT_TEMPFAIL;
	return out->ret;
}

int
owner_run_within(const char *dir, int (*fn)(void *arg), void *arg,
                 unsigned limit_s)
{
	uid_t me = geteuid(), shown;
	struct look_result r;
	struct stat st;
	int ret;

	if (me != 0) {
		ret = look_dir(dir, &st, &shown);
		if (ret == 0)
			ret = look_rest(dir, me, &st, shown);
		return ret != 0 ? ret : fn(arg);
	}
	ret = look_in_child(dir, owner_look_limit_s(), &r);
	if (ret != 0)
		return ret;
	return run_as(r.uid, fn, arg, limit_s);
}

int
owner_run(const char *dir, int (*fn)(void *arg), void *arg)
{
	return owner_run_within(dir, fn, arg, owner_limit_s());
}

int
owner_read_here(const char *path)
{
	struct stat st;
	int ret;

	/* The path first: check_writers follows a runs/ link, which is
	 * not root's to follow in another user's directory. */
	if ((ret = owner_root_path(path)) != 0)
		return ret;
	if (held_stat(path, &st, true, NULL) == 0 && S_ISDIR(st.st_mode))
		return check_writers(path, &st);
	return 0;
}
