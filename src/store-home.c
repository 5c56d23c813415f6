/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store-home.c - where a campaign lives, so that a copy of it never
 * acts as it.
 *
 * Every job of a campaign is named by its campaign id (pt-ID-RANK-TRY),
 * and a name found in Slurm is how a crashed submission is resolved
 * without submitting twice.  A copy of the directory (cp -a campaign
 * campaign.bak, beside it in the directory a cron line resumes with a
 * glob) has the same id: both submitted every queued candidate, each
 * took the other's jobs for its own, and neither had the other's logs.
 * DIR/home holds the absolute path plan gave the campaign and the
 * directory's inode.  A directory found elsewhere is
 *   - the same directory by another path (a bind mount, a symbolic
 *     link) when its home is the same inode: left alone;
 *   - the campaign moved on its file system when it is the home's inode
 *     and nothing at the home holds the campaign: its home is moved;
 *   - a copy when the home still holds the campaign: refused, naming
 *     both;
 *   - otherwise a copy whose original moved, or the campaign moved to
 *     another file system, which nothing on disk tells apart: refused,
 *     saying how to make it the campaign (remove DIR/home) or a new one.
 * paratune does not submit, resume or cancel from a refused directory.
 */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "owner.h"
#include "store-int.h"
#include "util.h"
#include "xalloc.h"

int
store_home_write(const char *where, const char *home_path)
{
	char *path = xasprintf("%s/home", where);
	struct stat st;
	char *text;
	int ret;

	/* The inode of where, which a rename to home_path keeps. */
	text = xasprintf("%s\n%llu\n", home_path, stat(where, &st) == 0
	                 ? (unsigned long long)st.st_ino : 0ULL);
	ret = write_file_atomic(path, text, strlen(text), 0644);
	free(text);
	free(path);
	return ret;
}

/* dir/home's path into buf and inode into *ino (0 when not given); 0,
 * -1 when the file cannot be read as a regular file (errno set), or -2
 * when it is empty. */
static int
read_home(const char *dir, char *buf, size_t len, unsigned long long *ino)
{
	char *path = xasprintf("%s/home", dir);
	FILE *f = fopen_regular(path);
	char line[32];
	int ret = -1;

	free(path);
	*ino = 0;
	if (f == NULL)
		return -1;
	if (fgets(buf, (int)len, f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		if (fgets(line, sizeof line, f) != NULL)
			*ino = strtoull(line, NULL, 10);
		ret = 0;
	} else if (ferror(f)) {
		errno = EIO;
	} else {
		ret = -2;
	}
	fclose(f);
	return ret;
}

/* Whether the directory at home holds campaign id (its state, root's or
 * the caller's, says so). */
static bool
holds_campaign(const char *home, const char *id)
{
	char line[PATH_MAX];
	char *path = xasprintf("%s/state", home);
	FILE *f = fopen_regular(path);
	struct stat st;
	bool found = false;

	free(path);
	if (f == NULL)
		return false;
	/* Only a state of root's or the caller's is the original's. */
	if (fstat(fileno(f), &st) != 0 ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		fclose(f);
		return false;
	}
	while (!found && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "campaign ", 9))
			found = !strcmp(line + 9, id);
		else if (!strcmp(line, "end"))
			break;
	}
	fclose(f);
	return found;
}

int
store_home_check(struct store *s)
{
	char home[PATH_MAX];
	unsigned long long ino;
	struct stat here, there;
	int r;

	if ((r = read_home(s->dir, home, sizeof home, &ino)) == -2)
		return error("cannot read '%s/home': empty (it names where the "
		             "campaign was planned; remove it to make this its "
		             "place)", s->dir), EXIT_DATAERR;
	if (r != 0) {
		if (errno != ENOENT)
			return error("cannot read '%s/home': %s", s->dir,
			             open_error(errno)), EXIT_DATAERR;
		/* Planned before homes were kept, or told to take this
		 * place: this is its home. */
		return store_home_write(s->dir, s->dir) ? EXIT_IOERR : 0;
	}
	if (!strcmp(home, s->dir))
		return 0;
	if (stat(s->dir, &here) != 0)
		return error_errno("cannot stat '%s'", s->dir), EXIT_DATAERR;
	if (stat(home, &there) == 0 && here.st_dev == there.st_dev &&
	    here.st_ino == there.st_ino)
		return 0;
	/* Where the campaign was planned may be another user's now (it
	 * was planned in a sticky directory, and moved): what is there
	 * then is not the original, and is not read. */
	if (home[0] == '/' && owner_path_own(home) &&
	    holds_campaign(home, s->st.campaign_id)) {
		error("'%s' is a copy of the campaign at '%s' (campaign %s): "
		      "the two would submit the same jobs under the same "
		      "names, so paratune works on that one only; plan the "
		      "campaign file again for a campaign of its own "
		      "(paratune plan %s/campaign.conf -o NEWDIR), or remove "
		      "one of them", s->dir, home, s->st.campaign_id,
		      s->dir);
		return EXIT_DATAERR;
	}
	if ((unsigned long long)here.st_ino == ino)
		return store_home_write(s->dir, s->dir) ? EXIT_IOERR : 0;
	error("'%s' is not where campaign %s was planned ('%s', which no "
	      "longer holds it), nor the directory planned there: a copy "
	      "whose original moved, or the campaign moved to another file "
	      "system.  If it is the campaign and its original is gone, "
	      "remove '%s/home' to make this its place; for a campaign of "
	      "its own, plan the campaign file again (paratune plan "
	      "%s/campaign.conf -o NEWDIR)", s->dir, s->st.campaign_id, home,
	      s->dir, s->dir);
	return EXIT_DATAERR;
}
