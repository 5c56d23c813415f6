/* table.c - aligned text tables. */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	size_t need;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
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

static void
print_row(const struct table *t, FILE *f, char *const *row,
          const size_t *width)
{
	for (int c = 0; c < t->ncols; c++) {
		int w = (int)width[c];
		const char *sep = c + 1 < t->ncols ? "  " : "";

		if (t->right[c])
			fprintf(f, "%*s%s", w, row[c], sep);
		else if (c + 1 < t->ncols)
			fprintf(f, "%-*s%s", w, row[c], sep);
		else
			fprintf(f, "%s", row[c]);
	}
	fputc('\n', f);
}

void
table_print(const struct table *t, FILE *f)
{
	size_t *width = xcalloc((size_t)t->ncols, sizeof(*width));

	for (int c = 0; c < t->ncols; c++)
		width[c] = strlen(t->head[c]);
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			size_t l = strlen(t->cells[r * t->ncols + c]);

			if (l > width[c])
				width[c] = l;
		}
	print_row(t, f, t->head, width);
	for (int r = 0; r < t->nrows; r++)
		print_row(t, f, t->cells + (size_t)r * (size_t)t->ncols, width);
	free(width);
}
