/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * strbuf.h - a growable string.
 *
 * Invariants (after git's strbuf.h): buf is never NULL and always
 * NUL-terminated, len never counts the terminator, and a strbuf that was
 * never grown points at a shared empty string so that STRBUF_INIT needs no
 * allocation.  strbuf_detach hands ownership of the bytes to the caller.
 */
#ifndef PARATUNE_STRBUF_H
#define PARATUNE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
/* Free the bytes and return to the STRBUF_INIT state. */
void strbuf_release(struct strbuf *sb);
/* Take the bytes (always a fresh allocation); sb is re-initialised. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen((sb), 0)

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addchars(struct strbuf *sb, int c, size_t n);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Remove trailing whitespace. */
void strbuf_rtrim(struct strbuf *sb);

#endif
