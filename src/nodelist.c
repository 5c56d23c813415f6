/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* nodelist.c - node lists in fixed fields, cut visibly (nodelist.h). */
#include "autoconfig.h"

#include <string.h>

#include "error.h"
#include "nodelist.h"

void
nodelist_copy(char *dst, size_t size, const char *src)
{
	const size_t mark = sizeof NODELIST_CUT - 1;
	size_t n = src ? strlen(src) : 0;

	if (size <= mark + 1)
		bug("nodelist_copy: a field of %zu bytes", size);
	if (n < size) {
		memcpy(dst, src ? src : "", n + 1);
		return;
	}
	memcpy(dst, src, size - 1 - mark);
	memcpy(dst + size - 1 - mark, NODELIST_CUT, mark + 1);
}

bool
nodelist_cut(const char *list)
{
	const size_t mark = sizeof NODELIST_CUT - 1;
	size_t n = strlen(list);

	return n >= mark && !strcmp(list + n - mark, NODELIST_CUT);
}
