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

/* The error per group, the peak memory, the interval, the ranking and
 * the constants of g, as tables on f; verbose adds each campaign's
 * ranking and each row. */
void calibrate_report_table(FILE *f, const struct gpu_fit *g, bool verbose);
/* The same of the ng fits in g as one JSON object on f. */
void calibrate_report_json(FILE *f, const struct gpu_fit *g, int ng);

#endif
