/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-csv.c - a measured-runs CSV's lines and header: splitting a
 * line into its fields, and the header's columns, with what an unknown
 * column most likely means (a typo, a spreadsheet's capitals, a
 * campaign's own candidates.csv, another separator).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calibrate-csv.h"
#include "config.h"
#include "error.h"
#include "layout-args.h"

/* ---- lines --------------------------------------------------------------- */

int
calib_csv_split(char *line, struct csv_line *out, const char **why)
{
	char *r = line, *w;

	out->n = 0;
	for (;;) {
		if (out->n == CSV_FIELDS_MAX) {
			*why = "too many fields";
			return (int)(r - line) + 1;
		}
		out->col[out->n] = (int)(r - line) + 1;
		out->field[out->n++] = w = r;
		if (*r == '"') {
			for (r++;; r++) {
				if (*r == '\0') {
					*why = "unterminated quoted field";
					return out->col[out->n - 1];
				}
				if (*r == '"' && r[1] == '"')
					r++;
				else if (*r == '"')
					break;
				*w++ = *r;
			}
			r++;
			if (*r != ',' && *r != '\0') {
				*why = "text after a closing quote";
				return (int)(r - line) + 1;
			}
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		if (*r == '\0') {
			*w = '\0';
			return 0;
		}
		*w = '\0';
		r++;
	}
}

/* ---- the header ---------------------------------------------------------- */

/* A column's kind (enum csv_col) by its name, or -1. */
static int
column_kind(const char *name)
{
	if (!strcmp(name, "campaign_file"))
		return COL_CAMPAIGN;
	if (!strcmp(name, "step_s"))
		return COL_STEP;
	if (!strcmp(name, "peak_memory_gib"))
		return COL_PEAK;
	if (!strcmp(name, "group"))
		return COL_GROUP;
	if (!strcmp(name, "source") || !strcmp(name, "note"))
		return COL_IGNORED;
	return layout_args_is_column(name) ? COL_LAYOUT : -1;
}

/* The column names a measured-runs file takes besides the layout's. */
static const char *const csv_own_columns[] = {
	"campaign_file", "step_s", "peak_memory_gib", "group", "source",
	"note",
};
#define CSV_OWN_COLUMNS \
	((int)(sizeof csv_own_columns / sizeof csv_own_columns[0]))
#define CSV_KNOWN_MAX (CSV_OWN_COLUMNS + SF_COUNT + SW_COUNT)

/* The part of name before its first '_' if one ends it at its 3rd
 * character or later, as n bytes ("step" of "step_time"); 0 if not. */
static size_t
column_stem(const char *name)
{
	const char *u = strchr(name, '_');

	return u && u - name >= 3 ? (size_t)(u - name) : 0;
}

/*
 * The known column an unknown one most likely means, or NULL: a
 * spreadsheet's "TP" or a typo ("tpp") by edit distance, ignoring case
 * (config_closest); else the one column, if only one, of its stem: a
 * step time written "step_time" is too far from "step_s" for a typo.
 */
static const char *
column_near(const char *name)
{
	const char *known[CSV_KNOWN_MAX], *near = NULL;
	size_t stem = column_stem(name);
	int n = 0;

	for (int i = 0; i < CSV_OWN_COLUMNS; i++)
		known[n++] = csv_own_columns[i];
	for (int f = 0; f < SF_COUNT; f++)
		known[n++] = layout_args_size_names[f];
	for (int s = 0; s < SW_COUNT; s++)
		known[n++] = layout_switch_name((enum layout_switch)s);
	if (*name && (near = config_closest(name, known, n)) != NULL)
		return near;
	for (int i = 0; i < n && stem; i++)
		if (column_stem(known[i]) == stem &&
		    !strncasecmp(known[i], name, stem)) {
			if (near)
				return NULL; /* "cuda_x": two of them */
			near = known[i];
		}
	return near;
}

/* What an unknown column of header h may mean: a campaign's own
 * candidates.csv or results.csv (rank, name, ...), which calibrate
 * takes as the campaign directory, or a CSV of another separator, one
 * column here.  "" when neither. */
static const char *
header_hint(const struct csv_line *h, const char *field)
{
	if (h->n >= 2 && !strcmp(h->field[0], "rank") &&
	    !strcmp(h->field[1], "name"))
		return "; a campaign's candidates.csv or results.csv: give "
		       "calibrate the campaign directory";
	if (strpbrk(field, ";\t"))
		return "; fields are separated by commas";
	return "";
}

/* The error for column i of header h, which names no known column:
 * what the whole header shows (another file, another separator)
 * first, else the closest known name, as the user's likeliest fix. */
static void
unknown_column(const char *path, const struct csv_line *h, int i)
{
	const char *hint = header_hint(h, h->field[i]);
	const char *near = *hint ? NULL : column_near(h->field[i]);

	/* "step_time" beside a step_s: an extra column, not a typo. */
	for (int j = 0; j < h->n && near; j++)
		if (!strcmp(h->field[j], near))
			near = NULL;
	if (near)
		error("%s:1:%d: unknown column '%s' (did you mean '%s'?)",
		      path, h->col[i], h->field[i], near);
	else
		error("%s:1:%d: unknown column '%s' (campaign_file, step_s, "
		      "peak_memory_gib, group, source, note or a layout "
		      "column of candidates.csv%s)", path, h->col[i],
		      h->field[i], hint);
}

int
calib_csv_read_header(const char *path, struct csv_line *h, int *kinds,
                      int *campaign, int *step)
{
	*campaign = *step = -1;
	for (int i = 0; i < h->n; i++) {
		kinds[i] = column_kind(h->field[i]);
		if (kinds[i] < 0) {
			unknown_column(path, h, i);
			return EXIT_DATAERR;
		}
		for (int j = 0; j < i; j++)
			if (!strcmp(h->field[j], h->field[i])) {
				error("%s:1:%d: column '%s' given twice", path,
				      h->col[i], h->field[i]);
				return EXIT_DATAERR;
			}
		if (kinds[i] == COL_CAMPAIGN)
			*campaign = i;
		else if (kinds[i] == COL_STEP)
			*step = i;
	}
	if (*campaign < 0 || *step < 0) {
		error("%s:1: no '%s' column", path,
		      *campaign < 0 ? "campaign_file" : "step_s");
		return EXIT_DATAERR;
	}
	return 0;
}
