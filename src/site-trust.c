/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * site-trust.c - may the site configuration be believed?
 *
 * The site file is the sysadmin's word to every user: partitions,
 * accounts, locked keys, and env and directives that reach every job.
 * A file that someone else could have written says nothing of the kind,
 * so it is refused, with who could write it and how to mend that.
 */
#include "autoconfig.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "owner.h"
#include "site-trust.h"
#include "util.h"

/* Who may write what st describes, in words, or NULL when nobody but
 * root and the user running paratune can. */
static const char *
writable_by_others(const struct stat *st, bool is_dir, uid_t me)
{
	if (st->st_uid != 0 && st->st_uid != me)
		return "its owner, who is neither root nor you";
	if (is_dir && (st->st_mode & S_ISVTX))
		return NULL; /* sticky, as /tmp: nobody can replace our file */
	if (st->st_mode & S_IWOTH)
		return "every user";
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0)
		return "its group";
	return NULL;
}

/*
 * The site configuration is the sysadmin's: it sets partitions, accounts
 * and locked keys for every user, and its env and directives reach every
 * job.  Like sudo and sshd with their files, refuse one that a user other
 * than root (or the one running paratune, for a private test setup) could
 * change, or whose directory would let them replace it.  /dev/null is an
 * empty configuration.  arg is the path; 0, or 1 after an error (an
 * exit status, which owner_look carries out of its child; its -1 means
 * the look did not finish).
 */
static int
site_conf_look(const void *arg)
{
	const char *path = arg;
	struct stat st, dst;
	char *dir;
	const char *who, *what = "";
	uid_t me = geteuid();

	if (stat(path, &st) != 0)
		return 0; /* load_file() reports it */
	if (S_ISCHR(st.st_mode) && !strcmp(path, "/dev/null"))
		return 0;
	if (!S_ISREG(st.st_mode)) {
		error("site configuration '%s' is not a regular file: "
		      "refusing to use it", path);
		return 1;
	}
	who = writable_by_others(&st, false, me);
	if (who == NULL) {
		dir = path_dir(path);
		if (stat(dir, &dst) == 0 &&
		    (who = writable_by_others(&dst, true, me)) != NULL) {
			what = "its directory ";
			st = dst;
		}
		free(dir);
	}
	if (who == NULL)
		return 0;
	error("site configuration '%s': %scan be changed by %s (owner uid "
	      "%ld, mode %04o): refusing to use it; it must be owned by root "
	      "and writable by root only (chown root; chmod go-w)", path,
	      what, who, (long)st.st_uid, (unsigned)(st.st_mode & 07777));
	return 1;
}


int
site_conf_trusted(const char *path)
{
	/* Run as root, in a child under a limit: a site file given on a
	 * FUSE file system whose daemon stopped held root's stat(). */
	int ret = owner_look(path, site_conf_look, path);

	return ret < 0 ? EXIT_TEMPFAIL : ret != 0 ? -1 : 0;
}
