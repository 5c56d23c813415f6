/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * owner-path.c - who besides a campaign's owner could change a path:
 * its writers, the names on the way to it, and where root may follow
 * it (owner.h, owner-int.h).
 */

#include "autoconfig.h"

#include <errno.h>
#include <stdbool.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "error.h"
#include "owner-int.h"
#include "owner.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

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
 * fine) that is another's or so writable.  0, or EXIT_NOPERM after an
 * error that names the path and the fix; EXIT_DATAERR for a runs/ that
 * the owner alone made something else than a directory: damaged, not
 * open to others.
 */
int
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
		if (!S_ISDIR(rs.st_mode) && rs.st_uid == st->st_uid &&
		    other_writers(rs.st_mode) == NULL) {
			error("'%s' is not a directory (plan the campaign "
			      "again)", runs);
			free(runs);
			return EXIT_DATAERR;
		}
		if (!S_ISDIR(rs.st_mode))
			why = "whoever put something else than a directory "
			      "there";
		else if (rs.st_uid != st->st_uid)
			why = "its owner, who does not own the campaign";
		else
			why = other_writers(rs.st_mode);
	}
	if (why) {
		error("'%s' can be changed by %s (mode %04o): what is "
		      "planted there would be submitted as the campaign's "
		      "owner; refusing it (chmod go-w, or plan the campaign "
		      "again)", path, why, (unsigned)(mode & 07777));
		ret = EXIT_NOPERM;
	}
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

/*
 * Something done at each name of a path, from the root down: st is the
 * name's lstat, or NULL with err the errno that looking it up gave.
 * abs is the path from the root ending at the name, which starts after
 * cut (its parent ends at cut); last whether it is the path's last
 * name.  True stops the walk there.
 */
typedef bool name_fn(char *abs, char *cut, const struct stat *st, int err,
                     bool last, void *arg);

/*
 * Call at() on each name of path from the root down, up to the first
 * that cannot be looked up (nothing is below a missing name).  The
 * path from the root up to the name at() stopped on, allocated; NULL
 * when it stopped on none.
 */
static char *
walk_names(const char *path, name_fn *at, void *arg)
{
	char *abs = path_absolute(path), *p = abs;
	struct stat st;

	for (;;) {
		char *slash = strchr(p + 1, '/');
		bool found;

		if (slash)
			*slash = '\0';
		found = held_stat(abs, &st, false, NULL) == 0;
		if (at(abs, p, found ? &st : NULL, found ? 0 : errno,
		       slash == NULL, arg))
			return abs;
		if (!found || slash == NULL)
			break;
		*slash = '/';
		p = slash;
	}
	free(abs);
	return NULL;
}

struct foreign_walk {
	uid_t trusted;
	bool new_ok;
	struct foreign *f;
};

/* foreign_component's look at one name (name_fn). */
static bool
foreign_name(char *abs, char *cut, const struct stat *st, int err,
             bool last, void *arg)
{
	struct foreign_walk *w = arg;
	struct foreign *f = w->f;

	f->last = last;
	if (st == NULL) {
		if (err != ENOENT && err != ENOTDIR) {
			f->why = FOREIGN_UNCHECKED;
			f->err = err;
		} else if (!(w->new_ok && last)) {
			f->why = missing_component(abs, cut, w->trusted, f);
		}
	} else if ((st->st_uid != 0 && st->st_uid != w->trusted) ||
	           others_can_rename(st)) {
		f->uid = st->st_uid;
		f->why = st->st_uid == 0 || st->st_uid == w->trusted
		         ? FOREIGN_RENAMABLE : FOREIGN_OWNED;
	}
	return f->why != FOREIGN_NONE;
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
	struct foreign_walk w = { trusted, new_ok, f };

	f->why = FOREIGN_NONE;
	f->at = walk_names(path, foreign_name, &w);
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
	char real[PATH_MAX], *abs = path_absolute(path), *head = xstrdup(abs);
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

/* A path root_path_look looks at. */
struct root_look {
	const char *path;
	bool new_ok;
};

/* 0 when no other user can change the path of arg, a struct root_look,
 * else EXIT_NOPERM after saying what can. */
static int
root_path_look(const void *arg)
{
	const struct root_look *l = arg;
	struct foreign f;
	int ret = 0;

	if (foreign_on_path(l->path, 0, l->new_ok, &f) != FOREIGN_NONE)
		ret = root_path_error(l->path, &f);
	free(f.at);
	return ret;
}

/*
 * Root's look at path (root_path_look), in a child killed after
 * OWNER_LOOK_LIMIT_S (EXIT_TEMPFAIL then, as a timed-out look at a
 * campaign directory is: the next run may fare better): a name on the
 * way on a file
 * system that never answers (another user's FUSE daemon that stopped,
 * a dead NFS server) held root's stat() for good, as it held
 * look_in_child's.  The path found unchanged by others is root's own,
 * and is read afterwards here.
 */
static int
root_path_check(const char *path, bool new_ok)
{
	const struct root_look l = { path, new_ok };
	unsigned limit = owner_look_limit_s();
	int ret;

	if (geteuid() != 0)
		return 0;
	ret = owner_limited(root_path_look, &l, NULL, 0, limit, path);
	/* Refused as a path that cannot be checked is (FOREIGN_UNCHECKED):
	 * what root cannot look at, it does not use. */
	if (ret == -2) {
		error("'%s': looking at who can change it did not finish in "
		      "%u s (a file system that does not answer?): root does "
		      "not use it", path, limit);
		return EXIT_TEMPFAIL;
	}
	return ret < 0 ? EXIT_NOPERM : ret;
}

/* names_own's look at one name (name_fn): another's stops the walk.
 * abs and cut are name_fn's, which foreign_name writes through. */
static bool
/* NOLINTNEXTLINE(readability-non-const-parameter) */
foreign_owner(char *abs, char *cut, const struct stat *st, int err,
              bool last, void *arg)
{
	const uid_t *me = arg;

	(void)abs, (void)cut, (void)err, (void)last;
	return st && st->st_uid != 0 && st->st_uid != *me;
}

/* Whether every name of path that exists is root's or me's, from the
 * root down (nothing is below a missing one). */
static bool
names_own(const char *path, uid_t me)
{
	char *at = walk_names(path, foreign_owner, &me);
	bool own = at == NULL;

	free(at);
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
int
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
int
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
