/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * table.h - aligned text tables for people.
 *
 * Cells are collected first, then printed with each column as wide as
 * its widest cell; numeric columns are right-aligned.
 */
#ifndef PARATUNE_TABLE_H
#define PARATUNE_TABLE_H

#include <stdbool.h>
#include <stdio.h>

struct table {
	int ncols;
	char **head;
	bool *right;      /* right-align this column */
	char **cells;     /* rows * ncols */
	int nrows, alloc_rows;
	int cur;          /* cells filled in the row being built */
};

/* Columns named by a NULL-terminated list; a name starting with '>' is
 * right-aligned (the '>' is not printed). */
void table_init(struct table *t, const char *const *columns);
void table_release(struct table *t);
/* Add the next cell of the current row; rows end after ncols cells. */
void table_add(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void table_print(const struct table *t, FILE *f);

#endif
