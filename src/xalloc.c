/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* xalloc.c - allocators that abort on exhaustion. */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Report and abort: nothing sensible can follow an allocation failure. */
static void
xalloc_fail(size_t size)
{
	fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", size);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		xalloc_fail(size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		xalloc_fail(nmemb * size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		xalloc_fail(size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		xalloc_fail(SIZE_MAX);
	return xrealloc(ptr, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/*
 * Most strings fit in a line; those are formatted once, into a buffer
 * on the stack.  (Measuring with vsnprintf(NULL, 0, ...) also drew a
 * false "null format string" from GCC 12 at -O1 with
 * -fsanitize=undefined, which -Werror turned into a failed build.)
 */
char *
xasprintf(const char *fmt, ...)
{
	va_list ap, ap2;
	char line[256];
	int n;
	char *p;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		xalloc_fail(0);
	p = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof line)
		memcpy(p, line, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}
