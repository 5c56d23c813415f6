/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-report.h - the report of `paratune calibrate`: one GPU
 * type's rows and fit, printed as a table or as JSON.
 */
#ifndef PARATUNE_CALIBRATE_REPORT_H
#define PARATUNE_CALIBRATE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "calibrate.h"

/* One GPU's rows and fit. */
struct gpu_fit {
	const char *gpu;
	struct calib_row *rows;   /* copies of the input's */
	int n;
	const struct calibration *start; /* the fit's start, "default" */
	struct calib_fit fit;
};

/* The percentage of share v, "12.3 %", into buf of CALIB_PCT_SIZE
 * bytes (three figures from a million on); returns buf. */
#define CALIB_PCT_SIZE 32
const char *calibrate_pct_text(char *buf, double v);

/* What a fit's held-out check says of it against its start. */
enum calib_verdict {
	CALIB_IMPROVES,  /* cross-validated error below the start's */
	CALIB_WORSENS,   /* at or above it */
	CALIB_UNCHECKED, /* nothing held out (too few configurations) */
};

/* The verdict on g's fit over all its runs; before and cv get the two
 * errors (cv NAN when unchecked). */
enum calib_verdict calibrate_fit_verdict(const struct gpu_fit *g,
                                         double *before, double *cv);

/* The error per group, the peak memory, the interval, the ranking and
 * the constants of g, as tables on f; verbose adds each campaign's
 * ranking and each row. */
void calibrate_report_table(FILE *f, const struct gpu_fit *g, bool verbose);
/* The same of the ng fits in g as one JSON object on f. */
void calibrate_report_json(FILE *f, const struct gpu_fit *g, int ng);

#endif
