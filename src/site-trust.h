/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* site-trust.h - refuse a site configuration another user could change. */
#ifndef PARATUNE_SITE_TRUST_H
#define PARATUNE_SITE_TRUST_H

/*
 * 0 when path may be trusted as the site configuration: a regular file
 * (or /dev/null) owned by root or the user running paratune, writable by
 * nobody else, in a directory where nobody else can replace it; or when
 * path cannot be read (the loader reports that).  Otherwise -1 after an
 * error that says who could change it, its owner and mode, and the fix,
 * or EXIT_TEMPFAIL after one saying that root's look at it did not
 * finish (owner_look).
 */
int site_conf_trusted(const char *path);

#endif
