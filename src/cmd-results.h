/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-results.h - what `paratune results DIR` does, for the commands that
 * collect a campaign's results too (resume, when it finishes one).
 */
#ifndef PARATUNE_CMD_RESULTS_H
#define PARATUNE_CMD_RESULTS_H

#include <stdio.h>

#include "cmd.h"
#include "results.h"

/*
 * Write results.csv, oom.csv, failed.csv, summary.txt (summary),
 * chart.svg and report.html into DIR/results/ (created; a symbolic link
 * there is refused), each atomically.  0 or -1 after an error message.
 */
int cmd_results_write_files(const struct results *res, const char *summary);

/*
 * Load the campaign at dir, write DIR/results/, and print to out (NULL:
 * print nothing) in format: the summary, results.csv or the JSON.
 * Returns an enum exit_code: 0 also when nothing succeeded;
 * EXIT_CANTCREAT when the files could not be written (what was printed
 * is complete).
 */
int cmd_results_run(const char *dir, const struct results_opts *o,
                    FILE *out, enum output_format format);

#endif
