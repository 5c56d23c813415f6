/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* strlist.c - owned string lists. */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "strlist.h"
#include "xalloc.h"

void
str_list_push(struct str_list *l, const char *s)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 8;
		l->v = xreallocarray(l->v, (size_t)l->alloc, sizeof(*l->v));
	}
	l->v[l->n++] = xstrdup(s);
}

void
str_list_clear(struct str_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

int
str_list_find(const struct str_list *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return i;
	return -1;
}
