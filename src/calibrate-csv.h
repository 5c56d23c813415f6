/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-csv.h - the lines and the header of a measured-runs CSV
 * (calibrate-csv.c), which calibrate-read.c reads rows with; not part
 * of calibrate.h's interface.
 */
#ifndef PARATUNE_CALIBRATE_CSV_H
#define PARATUNE_CALIBRATE_CSV_H

#define CSV_FIELDS_MAX 64

/* One line split into fields, each with its 1-based character column. */
struct csv_line {
	char *field[CSV_FIELDS_MAX];
	int col[CSV_FIELDS_MAX];
	int n;
};

/*
 * Split line in place (RFC 4180 quoting within one line: "a,b" and ""
 * inside quotes).  Returns 0, or the 1-based column of the problem
 * (*why says what) when a quote is left open, text follows a closing
 * quote, or there are more than CSV_FIELDS_MAX fields.
 */
int calib_csv_split(char *line, struct csv_line *out, const char **why);

/* What a column of a measured-runs file is. */
enum csv_col { COL_CAMPAIGN, COL_STEP, COL_PEAK, COL_GROUP, COL_IGNORED,
               COL_LAYOUT };

/*
 * The header h of the file at path: each column's kind (enum csv_col)
 * into kinds, the campaign_file and step_s columns into *campaign and
 * *step.  0, or EXIT_DATAERR after an error that names the column: an
 * unknown one (with the known name it most likely means), one given
 * twice, or campaign_file or step_s missing.
 */
int calib_csv_read_header(const char *path, struct csv_line *h, int *kinds,
                          int *campaign, int *step);

#endif
