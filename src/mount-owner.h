/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * mount-owner.h - the user who mounted a FUSE file system.
 *
 * A FUSE file system answers stat() with whatever its daemon says.  A
 * user who may mount one for others too (allow_other, which
 * user_allow_other in /etc/fuse.conf permits) can show root a campaign
 * directory "owned" by root or by a third user, and root would act with
 * that identity: submit the user's job scripts as root.  The kernel
 * records who mounted it (user_id= and group_id= in the super options
 * of /proc/self/mountinfo), and that user's daemon decides everything
 * in it, so that user is the owner of every name there.
 */
#ifndef PARATUNE_MOUNT_OWNER_H
#define PARATUNE_MOUNT_OWNER_H

#include <stdbool.h>
#include <sys/types.h>

struct mount_user {
	unsigned major, minor;  /* the file system's device */
	uid_t uid;              /* who mounted it */
	gid_t gid;              /* (gid_t)-1: the line gives none */
};

/*
 * One line of /proc/self/mountinfo (proc(5)): true when it is a FUSE
 * file system (fuse, fuse.NAME, fuseblk) that a user other than root
 * mounted, with its device and that user in *m.
 */
bool mount_user_parse(const char *line, struct mount_user *m);

/*
 * The user who mounted the FUSE file system dev is on, into *uid and
 * *gid: 1.  0 when dev is on no file system a user other than root
 * mounted.  -1 with errno set when /proc/self/mountinfo cannot be read:
 * then nobody can say.
 */
int mount_user_of(dev_t dev, uid_t *uid, gid_t *gid);

#endif
