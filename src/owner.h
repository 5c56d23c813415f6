/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * owner.h - acting as a campaign directory's owner.
 *
 * Sites run paratune from root's cron over users' directories.  Whatever
 * a user can plant there (symbolic links, FIFOs, an edited job script)
 * must never be read, written or submitted with root's rights, so every
 * command that works on a campaign directory does that work as the
 * directory's owner: directly when the caller is the owner, in a child
 * that has dropped to the owner's uid, gid and groups when the caller is
 * root, and not at all for anyone else.
 */
#ifndef PARATUNE_OWNER_H
#define PARATUNE_OWNER_H

#include <stdbool.h>

/*
 * Run fn(arg) as the owner of dir and return its exit code.
 *   - A directory (or its runs/) that its group or everyone can write is
 *     refused first, EXIT_NOPERM: what was planted there would run with
 *     the owner's rights.
 *   - The caller the owner: fn runs here; root, on a campaign of its
 *     own: in a child, under the limit below.
 *   - The caller root and the owner another user: refused with
 *     EXIT_NOPERM when a third user's directory or link lies on dir's
 *     path, as written or as resolved (that user could turn the path
 *     to a directory of theirs once the owner was known); else fn runs
 *     in a child that has taken the owner's identity for good (HOME, USER and
 *     LOGNAME follow; of root's environment only PATH, the locale, TZ,
 *     TERM, SLURM_CONF and PARATUNE_* are kept), and this returns the
 *     child's exit code.  That user can stop or hang the child: a
 *     stopped one is continued, and one that has not finished in
 *     OWNER_CHILD_LIMIT_S is killed: EXIT_TEMPFAIL, and root's cron line
 *     goes on.
 *   - Anyone else: refused with EXIT_NOPERM, naming both.
 * On a FUSE file system a user mounted, that user owns every name,
 * whatever its daemon shows (mount-owner.h).  Root looks at dir in a
 * child killed after OWNER_LOOK_LIMIT_S: EXIT_TEMPFAIL; that child finds
 * dir's owner with root's rights and looks at the rest (the path, where
 * runs/ leads) as that owner.
 * dir missing: EXIT_NOINPUT.
 */
int owner_run(const char *dir, int (*fn)(void *arg), void *arg);
/*
 * Polling, a few submissions, parsing a campaign's logs take seconds;
 * ten minutes is far beyond any of them.  PARATUNE_TEST_OWNER_LIMIT
 * shortens it for the tests, as git's GIT_TEST_* variables do.
 */
#define OWNER_CHILD_LIMIT_S 600
/*
 * Root looks at a campaign directory (its owner, its path) in a child
 * killed after this many seconds: a file system that never answers held
 * root's stat(), and every campaign after it on the cron line, for ever.
 */
#define OWNER_LOOK_LIMIT_S 60
/*
 * The same with a limit of limit_s seconds, 0 for none: for what runs
 * until its caller interrupts it (status --watch).
 */
int owner_run_within(const char *dir, int (*fn)(void *arg), void *arg,
                     unsigned limit_s);

/*
 * fn(arg), a look at path that root takes with its own rights: run as
 * root, in a child killed after OWNER_LOOK_LIMIT_S, as owner_run looks
 * at a campaign directory (a stat() on a FUSE file system whose daemon
 * stopped never returns); directly for anyone else.  What fn returned
 * (0 to 255: the child's exit status carries it), or -1 after an error
 * naming path when the look did not finish.
 */
int owner_look(const char *path, int (*fn)(const void *arg),
               const void *arg);
/* Whether path is a directory (stat(), links followed), looked at as
 * owner_look says: 1, 0, or -1 after an error. */
int owner_is_dir(const char *path);

/*
 * For work that cannot move into a child, because the caller keeps what
 * it reads (calibrate's measured runs): 0 when path may be read here,
 * with the caller's own rights.  Root reads only root's files and
 * directories: another user's could have been made (a link, an
 * @include in a frozen campaign file) to have root read what that user
 * cannot; refused with EXIT_NOPERM, naming the owner.  A directory its
 * group or every user can write is refused as owner_run refuses it.
 * A path that does not exist gives 0 where no other user could create
 * it (reading it then says what is wrong), else EXIT_NOPERM as
 * owner_root_path() says (EXIT_TEMPFAIL when its look did not finish).
 */
int owner_read_here(const char *path);
/*
 * Run as root, 0 when path and every directory and link on the way to
 * it, as written and as resolved, are root's, and no other user can
 * write a directory on the way where no sticky bit keeps them to their
 * own entries; else EXIT_NOPERM after an error naming the one that is
 * not and its owner, whose user can rename or replace what is there.
 * path need not exist, but a missing name on the way is refused where
 * another user could create it (in /tmp, say): it could be their link
 * by the time root opens it.  Root looks in a child killed after
 * OWNER_LOOK_LIMIT_S, and does not use a path it could not finish
 * looking at (a name on the way on a file system that does not answer):
 * EXIT_TEMPFAIL, since the next run may fare better.  0 for any other
 * caller.
 */
int owner_root_path(const char *path);
/*
 * Whether every name on path that exists, as written and as resolved,
 * is root's or the caller's, said without a message: a path a campaign
 * recorded, which another user may have taken since (a directory or a
 * link of theirs put where the campaign was).
 */
bool owner_path_own(const char *path);
/*
 * The same for a file that root makes under a temporary name and
 * renames to path (write_file_atomic, plan's directory): its last name
 * may be missing in a directory others can write, since the rename
 * replaces whatever they put there.
 */
int owner_root_new_path(const char *path);

#endif
