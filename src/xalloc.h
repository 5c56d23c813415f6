/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * xalloc.h - allocators that never return NULL.
 *
 * paratune cannot do anything useful after malloc fails, so these print a
 * message and abort instead of making every caller check (tmux xmalloc.c).
 */
#ifndef PARATUNE_XALLOC_H
#define PARATUNE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Grow an array of nmemb elements of size bytes, checking overflow. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growth policy shared by every growable array: at least need, doubling. */
#define ALLOC_GROW(ptr, need, alloc)                                          \
	do {                                                                  \
		if ((need) > (alloc)) {                                       \
			size_t alloc_grow_n_ = (alloc) ? (alloc) * 2 : 8;     \
			if (alloc_grow_n_ < (need))                           \
				alloc_grow_n_ = (need);                       \
			(ptr) = xreallocarray((ptr), alloc_grow_n_,           \
			                      sizeof(*(ptr)));                \
			(alloc) = alloc_grow_n_;                              \
		}                                                             \
	} while (0)

#endif
