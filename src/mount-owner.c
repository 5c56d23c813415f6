/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * mount-owner.c - the user who mounted a FUSE file system
 * (mount-owner.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "mount-owner.h"
#include "strbuf.h"

/* Whether a mountinfo file system type is FUSE's. */
static bool
fuse_type(const char *type, size_t n)
{
	return (n == 4 && !strncmp(type, "fuse", 4)) ||
	       (n == 7 && !strncmp(type, "fuseblk", 7)) ||
	       (n > 5 && !strncmp(type, "fuse.", 5));
}

/*
 * The number after "key=" among the comma-separated options opts (up to
 * its end or a space): true when there is one.
 */
static bool
option_number(const char *opts, const char *key, unsigned long *v)
{
	size_t k = strlen(key);

	for (const char *p = opts; *p && *p != ' ' && *p != '\n';) {
		if (!strncmp(p, key, k) && p[k] == '=') {
			char *end;

			errno = 0;
			*v = strtoul(p + k + 1, &end, 10);
			return errno == 0 && end > p + k + 1 &&
			       (*end == ',' || *end == ' ' || *end == '\n' ||
			        *end == '\0');
		}
		p += strcspn(p, ", \n");
		if (*p == ',')
			p++;
	}
	return false;
}

/* The third field, "MAJOR:MINOR", of a mountinfo line. */
static bool
device_field(const char *line, unsigned *major, unsigned *minor)
{
	const char *p = line;
	unsigned long v[2];
	char *end;

	for (int i = 0; i < 2; i++) {
		p += strcspn(p, " \n");
		if (*p++ != ' ')
			return false;
	}
	for (int i = 0; i < 2; i++) {
		errno = 0;
		v[i] = strtoul(p, &end, 10);
		if (errno || end == p || v[i] > UINT_MAX ||
		    *end != (i == 0 ? ':' : ' '))
			return false;
		p = end + 1;
	}
	*major = (unsigned)v[0];
	*minor = (unsigned)v[1];
	return true;
}

/*
 * A line is "ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [TAGS...] - TYPE
 * SOURCE SUPER": the fields up to the separator vary in number, those
 * after it do not.  Names are octal-escaped, so none holds a space.
 */
bool
mount_user_parse(const char *line, struct mount_user *m)
{
	const char *sep = strstr(line, " - "), *type, *super;
	unsigned long uid, gid = 0;
	size_t n;

	if (sep == NULL || !device_field(line, &m->major, &m->minor))
		return false;
	type = sep + 3;
	n = strcspn(type, " \n");
	if (!fuse_type(type, n) || type[n] != ' ')
		return false;
	super = type + n + 1;
	super += strcspn(super, " \n");          /* the source */
	if (*super != ' ')
		return false;
	super++;
	if (!option_number(super, "user_id", &uid) || uid == 0 ||
	    uid != (uid_t)uid)
		return false;
	if (!option_number(super, "group_id", &gid) || gid != (gid_t)gid)
		gid = (gid_t)-1;
	m->uid = (uid_t)uid;
	m->gid = (gid_t)gid;
	return true;
}

/* The whole of /proc/self/mountinfo into sb (a few kilobytes); -1 with
 * errno when it cannot be read. */
static int
read_mountinfo(struct strbuf *sb)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char buf[8192];
	size_t n;
	int failed;

	if (f == NULL)
		return -1;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(sb, buf, n);
	failed = ferror(f);
	fclose(f);
	if (failed) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int
mount_user_of(dev_t dev, uid_t *uid, gid_t *gid)
{
	struct strbuf sb = STRBUF_INIT;
	struct mount_user m;
	int found = 0;

	if (read_mountinfo(&sb) != 0) {
		strbuf_release(&sb);
		return -1;
	}
	for (char *line = sb.buf, *end; !found && *line; line = end) {
		end = line + strcspn(line, "\n");
		if (*end)
			*end++ = '\0';
		if (mount_user_parse(line, &m) &&
		    makedev(m.major, m.minor) == dev) {
			*uid = m.uid;
			*gid = m.gid;
			found = 1;
		}
	}
	strbuf_release(&sb);
	return found;
}
