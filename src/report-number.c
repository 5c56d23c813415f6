/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * report-number.c - numbers for people: figures, durations, money and
 * GPU-hours as the summary, estimate, status and submit write them.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report-number.h"
#include "safe-text.h"
#include "util.h"

/* What v cannot be written as a fixed-point number as: "-" when it is
 * no number, "1.736e+19" when it is too big; false when it can be. */
static bool
add_unfixed(struct strbuf *out, double v)
{
	if (!isfinite(v))
		strbuf_addch(out, '-');
	else if (fabs(v) >= REPORT_FIXED_MAX)
		strbuf_addf(out, "%.4g", v);
	else
		return false;
	return true;
}

void
report_add_number(struct strbuf *out, double v, int decimals)
{
	if (!add_unfixed(out, v))
		strbuf_addf(out, "%.*f", decimals, v);
}

void
report_add_figure(struct strbuf *out, double v, int decimals)
{
	int d = figure_decimals(v, decimals, 2);

	if (add_unfixed(out, v))
		return;
	if (d < 0)
		strbuf_addf(out, "%.2g", v);
	else
		strbuf_addf(out, "%.*f", d, v);
}

void
report_add_grouped(struct strbuf *out, double v, int decimals)
{
	char buf[64];
	const char *p = buf, *dot;
	size_t digits;

	if (add_unfixed(out, v))
		return;
	snprintf(buf, sizeof buf, "%.*f", decimals, fabs(v));
	if (v < 0 && strspn(buf, "0.") != strlen(buf))
		strbuf_addch(out, '-');
	dot = strchr(buf, '.');
	digits = dot ? (size_t)(dot - buf) : strlen(buf);
	for (size_t i = 0; i < digits; i++) {
		if (i > 0 && (digits - i) % 3 == 0)
			strbuf_addch(out, ',');
		strbuf_addch(out, p[i]);
	}
	strbuf_addstr(out, buf + digits);
}

void
report_add_grouped_figure(struct strbuf *out, double v, int decimals)
{
	int d = figure_decimals(v, decimals, 2);

	if (d < 0 && !add_unfixed(out, v))
		strbuf_addf(out, "%.2g", v);
	else if (d >= 0)
		report_add_grouped(out, v, d);
}

void
report_add_duration(struct strbuf *out, double days)
{
	if (days >= 1 || !(days > 0)) {
		report_add_number(out, days, 2);
		strbuf_addstr(out, " days");
	} else if (days * 24 >= 1) {
		strbuf_addf(out, "%.1f hours", days * 24);
	} else if (days * 24 * 60 >= 1) {
		strbuf_addf(out, "%.1f minutes", days * 24 * 60);
	} else {
		report_add_figure(out, days * 24 * 3600, 1);
		strbuf_addstr(out, " seconds");
	}
}

void
report_add_money(struct strbuf *out, const char *currency, double v)
{
	bool letters = false;

	for (const char *p = currency; *p; p++)
		letters |= isalpha((unsigned char)*p) != 0;
	if (v < 0) {
		strbuf_addch(out, '-');
		v = -v;
	}
	/* The currency is the campaign's text and this line reaches
	 * terminals and cron mail: escaped, whatever the loader let by. */
	if (!letters)
		safe_text_append(out, currency);
	/* Cents only where they are a figure's sizeable part: a short test
	 * selection's "$0.45" was "$0".  Below half a cent, two
	 * significant digits: a known cost never reads "$0.00". */
	if (v > 0 && v < 0.005)
		report_add_grouped_figure(out, v, 2);
	else
		report_add_grouped(out, v, v < 100 ? 2 : 0);
	if (letters) {
		strbuf_addch(out, ' ');
		safe_text_append(out, currency);
	}
}

void
report_add_gpu_hours(struct strbuf *out, double h)
{
	strbuf_addf(out, h < 0.995 ? "%.2f GPU-hours" : "%.1f GPU-hours", h);
}
