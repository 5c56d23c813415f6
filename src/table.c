/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* table.c - aligned text tables. */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "safe-text.h"
#include "strbuf.h"
#include "table.h"
#include "xalloc.h"

void
table_init(struct table *t, const char *const *columns)
{
	int n = 0;

	while (columns[n])
		n++;
	t->ncols = n;
	t->head = xcalloc((size_t)n, sizeof(*t->head));
	t->right = xcalloc((size_t)n, sizeof(*t->right));
	for (int i = 0; i < n; i++) {
		t->right[i] = columns[i][0] == '>';
		t->head[i] = xstrdup(columns[i] + (t->right[i] ? 1 : 0));
	}
	t->cells = NULL;
	t->nrows = t->alloc_rows = 0;
	t->cur = 0;
}

void
table_release(struct table *t)
{
	int filled = t->nrows * t->ncols + t->cur;

	for (int i = 0; i < t->ncols; i++)
		free(t->head[i]);
	for (int i = 0; i < filled; i++)
		free(t->cells[i]);
	free(t->head);
	free(t->right);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

void
table_add(struct table *t, const char *fmt, ...)
{
	struct strbuf raw = STRBUF_INIT, sb = STRBUF_INIT;
	va_list ap;
	size_t need;

	/* Cells hold names and log text: escaped here, once for every
	 * table, so that none of them can drive the terminal. */
	va_start(ap, fmt);
	strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	safe_text_append(&sb, raw.buf);
	strbuf_release(&raw);
	need = ((size_t)t->nrows + 1) * (size_t)t->ncols;
	if (need > (size_t)t->alloc_rows * (size_t)t->ncols) {
		size_t rows = t->alloc_rows ? (size_t)t->alloc_rows * 2 : 16;

		t->cells = xreallocarray(t->cells, rows * (size_t)t->ncols,
		                         sizeof(*t->cells));
		t->alloc_rows = (int)rows;
	}
	t->cells[t->nrows * t->ncols + t->cur] = strbuf_detach(&sb, NULL);
	if (++t->cur == t->ncols) {
		t->cur = 0;
		t->nrows++;
	}
}

/* Columns a cell takes: its characters, not its bytes (UTF-8). */
static size_t
cell_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* s padded with spaces to w columns, on the left when right. */
static void
print_cell(FILE *f, const char *s, size_t w, bool right, bool pad)
{
	size_t have = cell_width(s);
	size_t fill = pad && w > have ? w - have : 0;

	if (right)
		fprintf(f, "%*s", (int)fill, "");
	fputs(s, f);
	if (!right)
		fprintf(f, "%*s", (int)fill, "");
}

static void
print_row(const struct table *t, FILE *f, char *const *row,
          const size_t *width)
{
	int end = t->ncols;

	/* Empty left-aligned cells at the end are left out with their
	 * separators: an empty note ended the row in spaces. */
	while (end > 1 && !t->right[end - 1] && row[end - 1][0] == '\0')
		end--;
	for (int c = 0; c < end; c++) {
		bool last = c + 1 == end;

		print_cell(f, row[c], width[c], t->right[c],
		           t->right[c] || !last);
		if (!last)
			fputs("  ", f);
	}
	fputc('\n', f);
}

void
table_print(const struct table *t, FILE *f)
{
	size_t *width = xcalloc((size_t)t->ncols, sizeof(*width));

	for (int c = 0; c < t->ncols; c++)
		width[c] = cell_width(t->head[c]);
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			size_t l = cell_width(t->cells[r * t->ncols + c]);

			if (l > width[c])
				width[c] = l;
		}
	print_row(t, f, t->head, width);
	for (int r = 0; r < t->nrows; r++)
		print_row(t, f, t->cells + (size_t)r * (size_t)t->ncols, width);
	free(width);
}
