/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * open-swap.c - an LD_PRELOAD library for config-files.sh: the race of a
 * user who loops renameat2(RENAME_EXCHANGE) between a configuration
 * file and a FIFO, won every time.  Once the file at $OPEN_SWAP_PATH
 * has been opened by that name, $OPEN_SWAP_PATH.fifo is renamed over
 * it, so that every later open by the name meets the FIFO: a reader
 * that checks a file and then opens it again blocks there for good,
 * one that opens it once never sees the FIFO.
 *
 *   cc -shared -fPIC -o open-swap.so open-swap.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char watched[4096];
static int opened;

/* The path watched, read at load: root's child for a campaign's owner
 * clears its environment before it reads the campaign. */
__attribute__((constructor)) static void
watch(void)
{
	const char *path = getenv("OPEN_SWAP_PATH");

	if (path)
		snprintf(watched, sizeof watched, "%s", path);
}

/* After the first open of the watched path, put the FIFO in its place. */
static void
swap_after(const char *path)
{
	char fifo[4096 + 8];

	if (path == NULL || watched[0] == '\0' || strcmp(path, watched) != 0 ||
	    opened++ > 0)
		return;
	snprintf(fifo, sizeof fifo, "%s.fifo", watched);
	rename(fifo, watched);
}

/* The mode argument, when flags say there is one. */
#define OPEN_MODE(flags, mode) \
	do { \
		va_list ap; \
		va_start(ap, flags); \
		mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0; \
		va_end(ap); \
	} while (0)

#define NEXT(name, type) ((type)dlsym(RTLD_NEXT, name))

int
open(const char *path, int flags, ...)
{
	int mode, fd;

	OPEN_MODE(flags, mode);
	fd = NEXT("open", int (*)(const char *, int, ...))(path, flags, mode);
	swap_after(path);
	return fd;
}

int
open64(const char *path, int flags, ...)
{
	int mode, fd;

	OPEN_MODE(flags, mode);
	fd = NEXT("open64", int (*)(const char *, int, ...))(path, flags,
	                                                    mode);
	swap_after(path);
	return fd;
}

/* What _FORTIFY_SOURCE makes of open() with flags not known at build
 * time. */
int
__open_2(const char *path, int flags)
{
	int fd = NEXT("__open_2", int (*)(const char *, int))(path, flags);

	swap_after(path);
	return fd;
}

int
__open64_2(const char *path, int flags)
{
	int fd = NEXT("__open64_2", int (*)(const char *, int))(path, flags);

	swap_after(path);
	return fd;
}

int
openat(int dir, const char *path, int flags, ...)
{
	int mode, fd;

	OPEN_MODE(flags, mode);
	fd = NEXT("openat", int (*)(int, const char *, int, ...))(dir, path,
	                                                         flags, mode);
	swap_after(path);
	return fd;
}

int
openat64(int dir, const char *path, int flags, ...)
{
	int mode, fd;

	OPEN_MODE(flags, mode);
	fd = NEXT("openat64", int (*)(int, const char *, int, ...))(dir, path,
	                                                           flags,
	                                                           mode);
	swap_after(path);
	return fd;
}

FILE *
fopen(const char *path, const char *how)
{
	FILE *f = NEXT("fopen", FILE *(*)(const char *, const char *))(path,
	                                                               how);

	swap_after(path);
	return f;
}

FILE *
fopen64(const char *path, const char *how)
{
	FILE *f = NEXT("fopen64", FILE *(*)(const char *, const char *))(path,
	                                                                 how);

	swap_after(path);
	return f;
}
