/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * owner-int.h - what owner.c (acting as the owner) and owner-path.c
 * (who else could change a path) share; not for other files.
 */
#ifndef PARATUNE_OWNER_INT_H
#define PARATUNE_OWNER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* owner.c: "alice (uid 1000)", or "uid 1000" for an id without a name. */
void describe_uid(uid_t uid, char *buf, size_t len);
/* owner.c: stat(), or lstat() unless follow, with the owner who really
 * decides what path holds (a FUSE mounter); -1 with errno. */
int held_stat(const char *path, struct stat *st, bool follow,
              uid_t *shown);

/* owner-path.c: 0 when only dir's owner (and root) can write it and
 * its runs/, else EXIT_NOPERM after a message naming the path and the
 * fix (EXIT_DATAERR when the owner alone made runs/ no directory). */
int check_writers(const char *dir, const struct stat *st);
/* owner-path.c: 0 when only root and owner_uid can change where dir,
 * and its runs/ link, lead; else an exit code after a message. */
int owner_path_held(const char *dir, uid_t owner_uid);
int runs_link_held(const char *dir, uid_t owner_uid);

/* owner.c: OWNER_LOOK_LIMIT_S, or the tests' shorter
 * PARATUNE_TEST_OWNER_LIMIT. */
unsigned owner_look_limit_s(void);

/*
 * owner-limit.c: fn(arg), a look at path, in a child of this process,
 * which is killed once limit_s seconds have passed: what fn returned
 * (0 to 255), -2 when it had not returned by then, or -1 after an
 * error naming path.  What fn left in out[0..out_len) (at most
 * OWNER_ANSWER_MAX bytes; out NULL for none), in the child's copy of
 * this process's memory, comes back into out.  The child starts with
 * this process's rights (fn may drop them); what it prints goes where
 * this process's stderr does.  Stopped (by the user it acts as), it is
 * continued at once, as run_as's is.
 */
#define OWNER_ANSWER_MAX 64
int owner_limited(int (*fn)(const void *arg), const void *arg, void *out,
                  size_t out_len, unsigned limit_s, const char *path);

/* owner-limit.c: reap the child pid, killed first when kill_first,
 * waiting at most OWNER_REAP_MS: 0 with *status, or -1 when it is held
 * in the kernel (a FUSE request never answered) and left behind. */
#define OWNER_REAP_MS 2000
int owner_reap(pid_t pid, int *status, bool kill_first);

#endif
