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
#include "owner.h"
#include "store.h"
#include "strbuf.h"
#include "xalloc.h"

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
 * stat(), or lstat() unless follow, of path, with the owner who really
 * decides what it holds: on a FUSE file system that a user mounted,
 * that user (mount-owner.h), whatever its daemon answers.  -1 with
 * errno when path cannot be looked up, or its file system's mounter
 * cannot be known.  The owner the file system gave into *shown unless
 * shown is NULL.
 */
static int
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

/* What on a path another user could change (foreign_component). */
enum foreign_kind {
	FOREIGN_NONE,
	FOREIGN_OWNED,      /* a name another user owns */
	FOREIGN_RENAMABLE,  /* a directory others can rename entries of */
	FOREIGN_CREATABLE,  /* a missing name others could create */
	FOREIGN_UNCHECKED,  /* a name that cannot be looked up */
};

struct foreign {
	enum foreign_kind why;
	char *at;     /* the path up to that name (allocated) */
	uid_t uid;    /* the owner of it, or of the directory it is in */
	bool last;    /* it is the path's last name */
	int err;      /* FOREIGN_UNCHECKED: why, an errno; 0: no reason */
};

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
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
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

/* Who besides the owner can write a file of this mode, or NULL. */
static const char *
other_writers(mode_t mode)
{
	return (mode & S_IWOTH) ? "every user"
	       : (mode & S_IWGRP) ? "its group" : NULL;
}

/*
 * Whoever can write a campaign directory, or its runs/, can replace its
 * state and job scripts whatever their own modes, and what they plant
 * is then submitted with the owner's rights.  Like sshd (StrictModes)
 * and cron with their files, refuse a directory that its group or
 * everyone can write, and a runs/ (a link to a bigger file system is
 * fine) that is another's or so writable.  0, or -1 after an error that
 * names the path and the fix.
 */
static int
check_writers(const char *dir, const struct stat *st)
{
	char *runs = xasprintf("%s/runs", dir);
	struct stat rs;
	const char *path = dir, *why = NULL;
	mode_t mode = st->st_mode;
	int ret = 0;

	if ((why = other_writers(mode)) == NULL &&
	    held_stat(runs, &rs, true, NULL) == 0) {
		path = runs;
		mode = rs.st_mode;
		if (!S_ISDIR(rs.st_mode))
			why = "whoever put something else than a directory "
			      "there";
		else if (rs.st_uid != st->st_uid)
			why = "its owner, who does not own the campaign";
		else
			why = other_writers(rs.st_mode);
	}
	if (why)
		ret = error("'%s' can be changed by %s (mode %04o): what is "
		            "planted there would be submitted as the "
		            "campaign's owner; refusing it (chmod go-w, or "
		            "plan the campaign again)", path, why,
		            (unsigned)(mode & 07777));
	free(runs);
	return ret;
}

/*
 * Whether gid is uid's own group: its primary group, named after it (a
 * user private group), listing no other member, and no other user's
 * primary group.  Under user private groups (a group per user, umask
 * 002) a user's directories are group-writable, yet no other user can
 * write them; a primary group many users share ("users") is not one,
 * though getgrgid() lists none of them as members.
 */
static bool
private_group(uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid), *other;
	struct group *gr;
	char name[256];
	bool alone = true;

	if (pw == NULL || pw->pw_gid != gid ||
	    strlen(pw->pw_name) >= sizeof name)
		return false;
	strcpy(name, pw->pw_name);
	if ((gr = getgrgid(gid)) == NULL || strcmp(gr->gr_name, name) != 0)
		return false;
	for (char **m = gr->gr_mem; *m; m++)
		if (strcmp(*m, name) != 0)
			return false;
	/* The users the name service lists (a directory service may list
	 * none: the group's name is then what vouches for it). */
	setpwent();
	while (alone && (other = getpwent()) != NULL)
		alone = other->pw_gid != gid || other->pw_uid == uid;
	endpwent();
	return alone;
}

/* Whether users besides the owner of the directory st can write it. */
static bool
others_can_write(const struct stat *st)
{
	return S_ISDIR(st->st_mode) &&
	       ((st->st_mode & S_IWOTH) ||
	        ((st->st_mode & S_IWGRP) &&
	         !private_group(st->st_uid, st->st_gid)));
}

/*
 * Whether users besides the owner of the directory st can rename what
 * is in it: they can write it, and no sticky bit keeps each of them to
 * their own entries.
 */
static bool
others_can_rename(const struct stat *st)
{
	return !(st->st_mode & S_ISVTX) && others_can_write(st);
}

/*
 * The component missing at abs (its parent ends at cut), when whoever
 * could create it there is someone other than root and trusted: 0 when
 * nobody else can, else the kind of foreign component it is, with its
 * owner in f->uid.  A name that is missing while root checks it and
 * there when root uses it is the oldest race of all (a user renames a
 * directory away and back), so a missing name is safe only where no
 * other user can make it.
 */
static enum foreign_kind
missing_component(char *abs, char *cut, uid_t trusted, struct foreign *f)
{
	struct stat parent;
	int ret;
	char save = *cut;

	*cut = '\0';
	ret = held_stat(cut == abs ? "/" : abs, &parent, true,
	                NULL);
	*cut = save;
	if (ret != 0) {
		f->err = errno;
		return FOREIGN_UNCHECKED;
	}
	f->uid = parent.st_uid;
	if (parent.st_uid != 0 && parent.st_uid != trusted)
		return FOREIGN_OWNED;
	return others_can_write(&parent) ? FOREIGN_CREATABLE : FOREIGN_NONE;
}

/* path from the root, allocated: relative to the working directory. */
static char *
absolute(const char *path)
{
	char cwd[PATH_MAX];

	return path[0] == '/' || getcwd(cwd, sizeof cwd) == NULL
	       ? xstrdup(path) : xasprintf("%s/%s", cwd, path);
}

/*
 * The first component of path, from the root down, that a user other
 * than root and trusted can change: one neither of theirs (a directory
 * whose owner can rename what is in it, a link its owner can point
 * elsewhere, the file itself), a directory others_can_rename(), or a
 * name that is missing where others could create it (missing_component;
 * the last name is allowed to be missing anywhere with new_ok, for a
 * file made under a temporary name and renamed to it).  The kind into
 * f, with f->at the path up to it (allocated), f->uid its owner and
 * f->last whether it is the last name; FOREIGN_NONE when there is none.
 */
static enum foreign_kind
foreign_component(const char *path, uid_t trusted, bool new_ok,
                  struct foreign *f)
{
	char *abs = absolute(path), *p = abs;
	struct stat st;

	f->why = FOREIGN_NONE;
	for (;;) {
		char *slash = strchr(p + 1, '/');

		if (slash)
			*slash = '\0';
		f->last = slash == NULL;
		if (held_stat(abs, &st, false, NULL) != 0) {
			if (errno != ENOENT && errno != ENOTDIR) {
				f->why = FOREIGN_UNCHECKED;
				f->err = errno;
			}
			else if (!(new_ok && f->last))
				f->why = missing_component(abs, p, trusted, f);
			/* Nothing below a missing name exists. */
			break;
		}
		if ((st.st_uid != 0 && st.st_uid != trusted) ||
		    others_can_rename(&st)) {
			f->uid = st.st_uid;
			f->why = st.st_uid == 0 || st.st_uid == trusted
			         ? FOREIGN_RENAMABLE : FOREIGN_OWNED;
			break;
		}
		if (slash == NULL)
			break;
		*slash = '/';
		p = slash;
	}
	if (f->why == FOREIGN_NONE) {
		free(abs);
		return FOREIGN_NONE;
	}
	f->at = abs;
	return f->why;
}

/*
 * path resolved: realpath() of its longest prefix that exists (and is
 * a directory, but for the whole path), and the names after it as
 * written.  Allocated; NULL when no prefix resolves
 * or a name after it is "." or "..", which only the missing directory
 * could give a meaning.
 */
static char *
resolve_existing(const char *path)
{
	char real[PATH_MAX], *abs = absolute(path), *head = xstrdup(abs);
	char *cut, *out = NULL;
	const char *tail = "";

	for (;;) {
		if (realpath(head[0] ? head : "/", real) != NULL) {
			out = xasprintf("%s%s%s", real,
			                tail[0] && strcmp(real, "/") ? "/" : "",
			                tail);
			break;
		}
		if ((errno != ENOENT && errno != ENOTDIR) ||
		    (cut = strrchr(head, '/')) == NULL ||
		    !strcmp(cut + 1, ".") || !strcmp(cut + 1, ".."))
			break;
		*cut = '\0';
		tail = abs + (cut - head) + 1;
	}
	free(head);
	free(abs);
	return out;
}

/*
 * The component foreign_component() finds on path as written, else on
 * path as resolved (a link of a trusted user's may lead through another
 * user's directory); FOREIGN_NONE when there is none.  A path that
 * cannot be resolved is FOREIGN_UNCHECKED: what cannot be checked is
 * not used.
 */
static enum foreign_kind
foreign_on_path(const char *path, uid_t trusted, bool new_ok,
                struct foreign *f)
{
	char *real;

	memset(f, 0, sizeof(*f));
	if (foreign_component(path, trusted, new_ok, f) != FOREIGN_NONE)
		return f->why;
	if ((real = resolve_existing(path)) == NULL) {
		f->err = errno;
		f->at = xstrdup(path);
		f->last = true;
		return f->why = FOREIGN_UNCHECKED;
	}
	foreign_component(real, trusted, new_ok, f);
	free(real);
	return f->why;
}

/* "'path'", or "'path' is reached through 'at', which" for f. */
static void
name_path(struct strbuf *sb, const char *path, const struct foreign *f)
{
	strbuf_addf(sb, "'%s'", path);
	if (!f->last)
		strbuf_addf(sb, " is reached through '%s', which", f->at);
}

/* The error for f on path, which root was asked to use with its own
 * rights; EXIT_NOPERM. */
static int
root_path_error(const char *path, const struct foreign *f)
{
	struct strbuf sb = STRBUF_INIT;
	char owner[96];

	describe_uid(f->uid, owner, sizeof owner);
	switch (f->why) {
	case FOREIGN_CREATABLE:
		error("'%s' is reached through '%s', which does not exist and "
		      "which other users could create (its directory is "
		      "writable by them): root does not use such a path "
		      "with its rights here", path, f->at);
		break;
	case FOREIGN_UNCHECKED:
		error("'%s': cannot check who can change '%s' (%s): root "
		      "does not use such a path with its rights here", path,
		      f->at, f->err ? strerror(f->err) : "it does not resolve");
		break;
	case FOREIGN_RENAMABLE:
		name_path(&sb, path, f);
		error("%s can be changed by its group or every user (no "
		      "sticky bit): root does not use such a path with its "
		      "rights here", sb.buf);
		break;
	default:
		if (f->last)
			error("'%s' belongs to %s: root does not use another "
			      "user's files with its rights here; run the "
			      "command as that user (setpriv or runuser)",
			      path, owner);
		else
			error("'%s' is reached through '%s', which belongs "
			      "to %s: root does not go along another user's "
			      "paths with its rights here; use a path through "
			      "root's own directories, or run the command as "
			      "that user (setpriv or runuser)", path, f->at,
			      owner);
	}
	strbuf_release(&sb);
	return EXIT_NOPERM;
}

static int
root_path_check(const char *path, bool new_ok)
{
	struct foreign f;
	int ret = 0;

	if (geteuid() != 0)
		return 0;
	if (foreign_on_path(path, 0, new_ok, &f) != FOREIGN_NONE)
		ret = root_path_error(path, &f);
	free(f.at);
	return ret;
}

/* Whether every name of path that exists is root's or me's, from the
 * root down (nothing is below a missing one). */
static bool
names_own(const char *path, uid_t me)
{
	char *abs = absolute(path), *p = abs;
	struct stat st;
	bool own = true;

	for (;;) {
		char *slash = strchr(p + 1, '/');

		if (slash)
			*slash = '\0';
		if (held_stat(abs, &st, false, NULL) != 0)
			break;
		if (st.st_uid != 0 && st.st_uid != me) {
			own = false;
			break;
		}
		if (slash == NULL)
			break;
		*slash = '/';
		p = slash;
	}
	free(abs);
	return own;
}

bool
owner_path_own(const char *path)
{
	uid_t me = geteuid();
	char *real;
	bool own;

	if (!names_own(path, me))
		return false;
	real = resolve_existing(path);
	own = real && names_own(real, me);
	free(real);
	return own;
}

int
owner_root_path(const char *path)
{
	return root_path_check(path, false);
}

int
owner_root_new_path(const char *path)
{
	return root_path_check(path, true);
}

/*
 * Root is about to act as the owner of the campaign directory dir: 0
 * when only root and that owner can change where dir leads, else an
 * error naming what another user can change.  A link or directory of a
 * third user's on the way would let that user show root one campaign
 * (whose owner root then becomes) and hand the child another: their
 * own, into which it would write what it read with the first owner's
 * rights.  A name missing on the way (the link of that user's renamed
 * away while root looks) is refused as well.
 */
static int
owner_path_held(const char *dir, uid_t owner_uid)
{
	struct strbuf sb = STRBUF_INIT;
	char owner[96], other[96];
	struct foreign f;

	if (foreign_on_path(dir, owner_uid, false, &f) == FOREIGN_NONE)
		return 0;
	describe_uid(owner_uid, owner, sizeof owner);
	describe_uid(f.uid, other, sizeof other);
	if (f.why == FOREIGN_UNCHECKED && f.err)
		error("'%s': the campaign's owner %s cannot check who can "
		      "change '%s' (%s): not acting as that user", dir, owner,
		      f.at, strerror(f.err));
	else if (f.why == FOREIGN_CREATABLE || f.why == FOREIGN_UNCHECKED)
		error("'%s' is reached through '%s', which does not exist "
		      "(or went missing while it was checked): not acting as "
		      "the campaign's owner %s", dir, f.at, owner);
	else if (f.why == FOREIGN_RENAMABLE)
		error("'%s' is reached through '%s', which its group or every "
		      "user can change (no sticky bit): root does not act as "
		      "the campaign's owner %s through such a path", dir, f.at,
		      owner);
	else {
		name_path(&sb, dir, &f);
		error("%s belongs to %s, not to the campaign's owner %s: that "
		      "user could turn the path to another campaign while root "
		      "acts as its owner; refusing it (name the campaign by a "
		      "path through root's and its owner's own directories)",
		      sb.buf, other, owner);
	}
	strbuf_release(&sb);
	free(f.at);
	return EXIT_NOPERM;
}

/*
 * The same for where runs/ leads when it is a link (to a bigger file
 * system): a third user's directory on the way there could hand the
 * child that user's job scripts to submit as the owner.
 */
static int
runs_link_held(const char *dir, uid_t owner_uid)
{
	char *runs = xasprintf("%s/runs", dir);
	struct stat st;
	int ret = 0;

	if (lstat(runs, &st) == 0 && S_ISLNK(st.st_mode))
		ret = owner_path_held(runs, owner_uid);
	free(runs);
	return ret;
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

	if (check_writers(dir, st) != 0)
		return EXIT_NOPERM;
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

/* OWNER_LOOK_LIMIT_S, or the tests' shorter PARATUNE_TEST_OWNER_LIMIT. */
static unsigned
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

/*
 * Root's look at dir, in the child that look_in_child made: dir's
 * owner found with root's rights, the rest looked at with that owner's
 * (look_rest), which this child takes for good.
 */
static void
look_as_root(const char *dir, struct look_result *r)
{
	struct stat st;
	uid_t shown;

	memset(&st, 0, sizeof st);
	r->ret = look_dir(dir, &st, &shown);
	if (r->ret == 0 && st.st_uid != 0 && become(st.st_uid))
		r->ret = EXIT_NOPERM;
	if (r->ret == 0)
		r->ret = look_rest(dir, 0, &st, shown);
	r->uid = st.st_uid;
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
	struct look_result r = { EXIT_SOFTWARE, 0 };
	int fd[2], status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (pipe(fd) != 0 || (pid = fork()) < 0) {
		error_errno("cannot look at campaign directory '%s'", dir);
		return EXIT_TEMPFAIL;
	}
	if (pid == 0) {
		close(fd[0]);
		look_as_root(dir, &r);
		fflush(stderr);
		_exit(write(fd[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
	}
	close(fd[1]);
	status = wait_child(pid, limit_s);
	if (status == 0 &&
	    read(fd[0], out, sizeof *out) == (ssize_t)sizeof *out)
		status = out->ret;
	else if (status == -2) {
		error("looking at campaign directory '%s' did not finish in "
		      "%u s (a file system that does not answer?): not "
		      "acting on it", dir, limit_s);
		status = EXIT_TEMPFAIL;
	} else {
		error("cannot look at campaign directory '%s'", dir);
		status = EXIT_SOFTWARE;
	}
	close(fd[0]);
	return status;
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
	if (held_stat(path, &st, true, NULL) == 0 && S_ISDIR(st.st_mode) &&
	    check_writers(path, &st) != 0)
		return EXIT_NOPERM;
	return 0;
}
