/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * report.h - the results for people: the summary that `paratune results`
 * prints (and DIR/results/summary.txt holds), the bar chart
 * (chart.svg) and the self-contained page (report.html).
 */
#ifndef PARATUNE_REPORT_H
#define PARATUNE_REPORT_H

#include "results.h"
#include "strbuf.h"

/* The failed (and the out-of-memory) candidates the summary lists at
 * least; the others are counted, and their CSV file holds them all. */
#define REPORT_FAILURES_SHOWN 20

/*
 * The summary: the campaign, best and base with their speed, time and
 * cost, the speed-up and what switching saves, the top rows (top 0: all
 * measured), the recommendations, and why the first candidates of each
 * kind without a measurement (REPORT_FAILURES_SHOWN, or top when more;
 * top 0: all) have none, with their evidence lines.
 */
void report_summary(const struct results *res, int top, struct strbuf *out);

/* The chart: model TFLOP/s per GPU as horizontal bars, fastest first,
 * the base highlighted, failures as hatched bars named by class.  An SVG
 * document without XML declaration, so that HTML can inline it. */
void report_svg(const struct results *res, struct strbuf *out);

/* The search's progress: the best step time measured so far against the
 * GPU-hours spent (runs in the order they ended), with what running every
 * candidate would take (report-progress.c).  An SVG document as
 * report_svg's. */
void report_progress_svg(const struct results *res, struct strbuf *out);

/* The HTML5 page: summary, chart and the three tables, nothing
 * external. */
void report_html(const struct results *res, const char *summary,
                 struct strbuf *out);

/* How many measured rows show an MFU above 100 % (results_mfu_
 * impossible), for the summary's warning and the command's. */
int report_mfu_impossible_count(const struct results *res);

/* What a results stop_reason ("no_gain", "budget", "all_run",
 * "cancelled") means, in words. */
const char *report_stop_text(const char *reason);

/* Append s with &, <, >, " and ' escaped for XML and HTML text and
 * attribute values; control characters become spaces, and invalid
 * UTF-8 and U+FFFE and U+FFFF (not XML characters) U+FFFD. */
void report_escape(struct strbuf *out, const char *s);

#endif
