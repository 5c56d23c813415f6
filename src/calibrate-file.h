/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-file.h - the calibration file `paratune calibrate -o`
 * writes, and the warnings about the fits it holds.
 */
#ifndef PARATUNE_CALIBRATE_FILE_H
#define PARATUNE_CALIBRATE_FILE_H

#include <stdbool.h>

#include "calibrate-report.h"
#include "strbuf.h"

/* The libconfig text of the ng fits g into sb: comments naming the
 * ninputs inputs, each GPU's rows and the warnings, then the
 * calibration group; with only_better, only the GPUs whose fit predicts
 * their runs, held out, better than its start, the others named in a
 * comment and a warning. */
void calibrate_file_text(struct strbuf *sb, const struct gpu_fit *g, int ng,
                         bool only_better, int ninputs, char **inputs);
/* Warn, one line a fit, of constants fitted at a bound. */
void calibrate_file_warn_bounds(const struct gpu_fit *g, int ng);
/* Warn, one line a fit, of the fits that cross-validated nothing. */
void calibrate_file_warn_few_runs(const struct gpu_fit *g, int ng);
/* sb into out, a new file renamed into place (where a link at out
 * points, with the mode out had); 0 or EXIT_CANTCREAT. */
int calibrate_file_write(const char *out, const struct strbuf *sb);

#endif
