/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * report-number.h - numbers for people.  Each appends one figure to a
 * strbuf; a value that is no number is written "-", and one with more
 * integer digits than a double holds "1.736e+19", never invented digits.
 */
#ifndef PARATUNE_REPORT_NUMBER_H
#define PARATUNE_REPORT_NUMBER_H

#include "strbuf.h"

/* From here on a number has more integer digits than a double holds
 * (2^53 is 9.0e15): it is written as "1.736e+19", not with invented
 * digits, and never wider than a dozen characters. */
#define REPORT_FIXED_MAX 1e15

/* v rounded to decimals: "9.41". */
void report_add_number(struct strbuf *out, double v, int decimals);

/* v to decimals, or to two significant digits where those would show
 * fewer of a nonzero v: a short training's "0.00 days" said nothing. */
void report_add_figure(struct strbuf *out, double v, int decimals);

/* v rounded to decimals, with thousands separated: "21,681.5". */
void report_add_grouped(struct strbuf *out, double v, int decimals);

/* report_add_grouped with report_add_figure's digits: "7,227"
 * GPU-hours, but "0.44" of a short training, not "0". */
void report_add_grouped_figure(struct strbuf *out, double v, int decimals);

/* A training time given in days, in the unit that shows it: "9.41
 * days", or under a day "3.2 hours", "25.3 minutes", "4.1 seconds"
 * ("0.00 days" said nothing about a short training's minutes). */
void report_add_duration(struct strbuf *out, double days);

/* Money, grouped, to the unit from 100 on and to the cent below it:
 * "$21,681", "$0.45", or "21,681 EUR" for a currency written in
 * letters. */
void report_add_money(struct strbuf *out, const char *currency, double v);

/* "N GPU-hours", N with two decimals under 1 (a short campaign's 0.03
 * printed as 0.0 beside its "1 %"), one above. */
void report_add_gpu_hours(struct strbuf *out, double h);

#endif
