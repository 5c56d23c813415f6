/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* strlist.h - an owned, growable list of strings. */
#ifndef PARATUNE_STRLIST_H
#define PARATUNE_STRLIST_H

struct str_list {
	char **v;
	int n, alloc;
};

#define STR_LIST_INIT { NULL, 0, 0 }

/* Append a copy of s. */
void str_list_push(struct str_list *l, const char *s);
/* Free every string and the array; l is empty afterwards. */
void str_list_clear(struct str_list *l);
/* Index of s in l, or -1. */
int str_list_find(const struct str_list *l, const char *s);

#endif
