/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * report-chart.c - chart.svg and report.html: self-contained files that
 * any browser opens from disk, with every piece of text escaped.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report-number.h"
#include "safe-text.h"
#include "xalloc.h"

/* Geometry of the chart, in SVG user units (pixels at 100 %). */
#define CHART_WIDTH 1060
#define CHART_LABEL_X 12      /* left edge of the layout labels */
#define CHART_BAR_X 380       /* where bars start: after the labels */
#define CHART_BAR_W 440       /* the scale's full width */
#define CHART_ROW_H 24
#define CHART_BAR_H 16
#define CHART_TOP 78          /* title, subtitle and legend */
#define CHART_BOTTOM 44       /* axis and its label */
#define CHART_FAIL_W 90       /* a failure's bar: it has no value */
#define CHART_TICKS 5         /* about this many grid lines */

/* Colours: blue for measured, orange for the base, green for the best,
 * red hatching for failures (the three stay apart for the common forms
 * of colour blindness as the Okabe-Ito palette pairs them). */
#define COLOUR_MEASURED "#0072b2"
#define COLOUR_BEST "#009e73"
#define COLOUR_BASE "#e69f00"
#define COLOUR_FAIL "#c0392b"

/* Escape s for XML and HTML text and attributes.  A log's invalid UTF-8
 * becomes U+FFFD: one stray byte would make the whole SVG ill-formed. */
void
report_escape(struct strbuf *out, const char *s)
{
	size_t n = strlen(s);
	unsigned cp;

	for (size_t i = 0, l; i < n; i += l) {
		unsigned char ch = (unsigned char)s[i];

		l = utf8_decode(s + i, n - i, &cp);
		if (l == 0) {
			strbuf_addstr(out, "\xef\xbf\xbd");
			l = 1;
			continue;
		}
		/* XML 1.0's Char has neither U+FFFE nor U+FFFF: one made
		 * the whole of chart.svg unreadable.  (U+FDD0-U+FDEF and
		 * the other planes' noncharacters it has.) */
		if (cp == 0xfffe || cp == 0xffff) {
			strbuf_addstr(out, "\xef\xbf\xbd");
			continue;
		}
		if (l > 1) {
			strbuf_add(out, s + i, l);
			continue;
		}
		switch (ch) {
		case '&': strbuf_addstr(out, "&amp;"); break;
		case '<': strbuf_addstr(out, "&lt;"); break;
		case '>': strbuf_addstr(out, "&gt;"); break;
		case '"': strbuf_addstr(out, "&quot;"); break;
		case '\'': strbuf_addstr(out, "&#39;"); break;
		case '\n': strbuf_addch(out, '\n'); break;
		default:
			/* XML 1.0 allows no other control character, not
			 * even as a reference. */
			strbuf_addch(out, ch < 0x20 || ch == 0x7f ? ' '
			                                          : (char)ch);
		}
	}
}

/* ---- chart.svg ----------------------------------------------------------- */

/* A grid step of 1, 2 or 5 times a power of ten near max/ticks. */
static double
chart_step(double max)
{
	double raw = max / CHART_TICKS, p = pow(10.0, floor(log10(raw)));

	if (raw <= p)
		return p;
	if (raw <= 2 * p)
		return 2 * p;
	if (raw <= 5 * p)
		return 5 * p;
	return 10 * p;
}

/* The rows drawn: measured (fastest first), then the failures. */
static int *
chart_rows(const struct results *res, int *n)
{
	int *rows = xcalloc((size_t)res->n + 1, sizeof(*rows));

	*n = 0;
	for (int i = 0; i < res->nranked; i++)
		rows[(*n)++] = res->ranked[i];
	for (int i = 0; i < res->n; i++)
		if (res->v[i].kind == RESULT_OOM ||
		    res->v[i].kind == RESULT_FAILED)
			rows[(*n)++] = i;
	return rows;
}

/* "rank 9 TP1 PP1 CP1 EP1 VP1 MBS1 GBS256 sel (base)": the plan's rank,
 * as everywhere; the bars are in measured order already. */
static void
chart_label(struct strbuf *out, const struct result_row *r)
{
	const struct layout *l = &r->cand.layout;

	if (r->cand.rank > 0)
		strbuf_addf(out, "rank %d ", r->cand.rank);
	strbuf_addf(out, "TP%d PP%d CP%d EP%d VP%d MBS%d GBS%d %s", l->tp,
	            l->pp, l->cp, l->ep, l->vp, l->mbs, l->gbs,
	            recompute_short(l->recompute));
	if (r->cand.base)
		strbuf_addstr(out, " (base)");
}

/* The tooltip: the full name and what happened. */
static void
chart_tooltip(struct strbuf *out, const struct result_row *r)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, r->cand.name);
	if (r->kind == RESULT_MEASURED)
		strbuf_addf(&sb, ": %.3f s per step, %.1f TFLOP/s per GPU",
		            r->m.step_mean_s, r->m.tflops_per_gpu);
	if (r->failure != FAILURE_NONE)
		strbuf_addf(&sb, "; %s", failure_class_name(r->failure));
	if (r->evidence)
		strbuf_addf(&sb, " at %s:%ld: %s", r->log, r->line,
		            r->evidence);
	strbuf_addstr(out, "<title>");
	report_escape(out, sb.buf);
	strbuf_addstr(out, "</title>");
	strbuf_release(&sb);
}

/* A measured bar's colour: base, best or measured. */
static const char *
chart_colour(const struct results *res, int idx)
{
	if (res->v[idx].cand.base)
		return COLOUR_BASE;
	return idx == res->best ? COLOUR_BEST : COLOUR_MEASURED;
}

/* The bar of one row and its value or class. */
static void
chart_bar(struct strbuf *out, const struct results *res, int idx,
          double y, double max)
{
	const struct result_row *r = &res->v[idx];
	double w = CHART_FAIL_W;
	struct strbuf text = STRBUF_INIT;

	if (r->kind == RESULT_MEASURED) {
		w = fmax(1.0, r->m.tflops_per_gpu / max * CHART_BAR_W);
		strbuf_addf(out, "<rect class=\"bar\" x=\"%d\" y=\"%.1f\" "
		            "width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
		            CHART_BAR_X, y, w, CHART_BAR_H,
		            chart_colour(res, idx));
		strbuf_addf(&text, "%.1f (MFU %.1f %%)", r->m.tflops_per_gpu,
		            r->m.mfu * 100.0);
		if (r->failure != FAILURE_NONE)
			strbuf_addf(&text, ", then %s",
			            failure_class_name(r->failure));
	} else {
		strbuf_addf(out, "<rect class=\"failed\" x=\"%d\" y=\"%.1f\" "
		            "width=\"%.1f\" height=\"%d\" fill=\"url(#hatch)\" "
		            "stroke=\"%s\"/>", CHART_BAR_X, y, w, CHART_BAR_H,
		            r->cand.base ? COLOUR_BASE : COLOUR_FAIL);
		strbuf_addf(&text, "%s: no measurement",
		            failure_class_name(r->failure));
	}
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">",
	            CHART_BAR_X + w + 6, y + CHART_BAR_H - 4,
	            r->kind == RESULT_MEASURED ? "#222" : COLOUR_FAIL);
	report_escape(out, text.buf);
	strbuf_addstr(out, "</text>");
	strbuf_release(&text);
}

/* One row of the chart: tooltip, label and bar. */
static void
chart_row(struct strbuf *out, const struct results *res, int idx,
          double y, double max)
{
	const struct result_row *r = &res->v[idx];
	struct strbuf label = STRBUF_INIT;

	strbuf_addstr(out, "<g>");
	chart_tooltip(out, r);
	chart_label(&label, r);
	strbuf_addf(out, "<text x=\"%d\" y=\"%.1f\"%s>", CHART_LABEL_X,
	            y + CHART_BAR_H - 4,
	            r->cand.base ? " font-weight=\"bold\"" : "");
	report_escape(out, label.buf);
	strbuf_addstr(out, "</text>");
	chart_bar(out, res, idx, y, max);
	strbuf_addstr(out, "</g>\n");
	strbuf_release(&label);
}

/* Grid lines and their values under the rows. */
static void
chart_axis(struct strbuf *out, const struct results *res, double max,
           double step, double y0, double y1)
{
	/* An integer counter: adding step to a double drifts. */
	for (int i = 0; (double)i * step <= max + step / 2; i++) {
		double v = (double)i * step;
		double x = CHART_BAR_X + v / max * CHART_BAR_W;

		strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		            "y2=\"%.1f\" stroke=\"#ddd\"/>", x, y0, x, y1);
		strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" "
		            "text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
		            x, y1 + 16, v);
	}
	strbuf_addf(out, "<text x=\"%d\" y=\"%.1f\" fill=\"#333\">model "
	            "TFLOP/s per GPU (Megatron-LM FLOPs; dense %s peak "
	            "%.1f)</text>\n", CHART_BAR_X, y1 + 34,
	            precision_name(res->run.settings.precision),
	            res->peak_tflops);
}

/* One legend entry: a swatch and its words. */
static void
chart_key(struct strbuf *out, int x, const char *fill, const char *stroke,
          const char *words)
{
	strbuf_addf(out, "<rect x=\"%d\" y=\"54\" width=\"14\" height=\"12\" "
	            "fill=\"%s\"%s%s%s/><text x=\"%d\" y=\"65\">%s</text>\n",
	            x, fill, stroke ? " stroke=\"" : "", stroke ? stroke : "",
	            stroke ? "\"" : "", x + 20, words);
}

/* The SVG element, title, hatch pattern, headings and legend. */
static void
chart_head(struct strbuf *out, const struct results *res, int height)
{
	const struct settings *c = &res->run.settings;
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
	            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	            "role=\"img\" aria-labelledby=\"chart-title\" "
	            "font-family=\"DejaVu Sans, Helvetica, Arial, "
	            "sans-serif\" font-size=\"12\">\n", CHART_WIDTH, height,
	            CHART_WIDTH, height);
	strbuf_addf(&sb, "%s: model TFLOP/s per GPU of each candidate, "
	            "fastest first", c->name);
	strbuf_addstr(out, "<title id=\"chart-title\">");
	report_escape(out, sb.buf);
	strbuf_addstr(out, "</title>\n<defs><pattern id=\"hatch\" "
	              "patternUnits=\"userSpaceOnUse\" width=\"6\" "
	              "height=\"6\" patternTransform=\"rotate(45)\">"
	              "<rect width=\"3\" height=\"6\" fill=\"" COLOUR_FAIL
	              "\" fill-opacity=\"0.45\"/></pattern></defs>\n"
	              "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
	              "<text x=\"12\" y=\"24\" font-size=\"16\" "
	              "font-weight=\"bold\">");
	report_escape(out, sb.buf);
	strbuf_setlen(&sb, 0);
	strbuf_addf(&sb, "%s, %d x %d %s, %s, sequence %d", c->model_name,
	            res->nodes, c->gpus_per_node, c->gpu.name,
	            precision_name(c->precision), c->seq_length);
	strbuf_addstr(out, "</text>\n<text x=\"12\" y=\"42\" fill=\"#555\">");
	report_escape(out, sb.buf);
	strbuf_addstr(out, "</text>\n");
	chart_key(out, 12, COLOUR_MEASURED, NULL, "measured");
	chart_key(out, 112, COLOUR_BEST, NULL, "best");
	chart_key(out, 182, COLOUR_BASE, NULL, "base");
	chart_key(out, 252, "url(#hatch)", COLOUR_FAIL,
	          "failed: its class, no measurement");
	strbuf_release(&sb);
}

/* The whole chart. */
void
report_svg(const struct results *res, struct strbuf *out)
{
	int n, *rows = chart_rows(res, &n);
	int height = CHART_TOP + (n > 0 ? n : 1) * CHART_ROW_H +
	             CHART_BOTTOM;
	double max = 0, step;

	for (int i = 0; i < res->nranked; i++)
		max = fmax(max, res->v[res->ranked[i]].m.tflops_per_gpu);
	if (!(max > 0))
		max = res->peak_tflops > 0 ? res->peak_tflops : 1000;
	step = chart_step(max);
	max = ceil(max / step) * step;
	chart_head(out, res, height);
	chart_axis(out, res, max, step, CHART_TOP - 4,
	           CHART_TOP + (n > 0 ? n : 1) * CHART_ROW_H);
	for (int i = 0; i < n; i++)
		chart_row(out, res, rows[i], CHART_TOP + i * CHART_ROW_H + 4,
		          max);
	if (n == 0)
		strbuf_addf(out, "<text x=\"%d\" y=\"%d\">no candidate has "
		            "run yet</text>\n", CHART_BAR_X, CHART_TOP + 16);
	strbuf_addstr(out, "</svg>\n");
	free(rows);
}

/* ---- report.html --------------------------------------------------------- */

static const char html_style[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:2em;color:#222;max-width:110em}"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}"
	"pre{background:#f6f6f6;padding:1em;overflow-x:auto;"
	"font-size:12px}"
	".scroll{overflow-x:auto}"
	"table{border-collapse:collapse;font-size:12px}"
	"th,td{border:1px solid #ccc;padding:2px 6px;white-space:nowrap}"
	"th{background:#eee;position:sticky;top:0}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}"
	"td.evidence{font-family:monospace;white-space:normal;"
	"min-width:30em}"
	"tr.best{background:#e3f4ec}tr.base{background:#fdf0d5}"
	"svg{max-width:100%;height:auto}";

/* The class of a table cell: evidence wraps, numbers align right. */
static const char *
html_td_class(enum results_col c)
{
	if (c == RC_EVIDENCE)
		return " class=\"evidence\"";
	return results_col_is_number(c) ? " class=\"num\"" : "";
}

/* One table row: row idx with the given columns. */
static void
html_row(struct strbuf *out, const struct results *res, int idx,
         const enum results_col *cols, int ncols)
{
	const struct result_row *r = &res->v[idx];
	struct strbuf cell = STRBUF_INIT;

	strbuf_addf(out, "<tr%s>", idx == res->best ? " class=\"best\""
	            : r->cand.base ? " class=\"base\"" : "");
	for (int c = 0; c < ncols; c++) {
		strbuf_setlen(&cell, 0);
		results_cell(res, r, cols[c], &cell);
		strbuf_addf(out, "<td%s>", html_td_class(cols[c]));
		report_escape(out, cell.buf);
		strbuf_addstr(out, "</td>");
	}
	strbuf_addstr(out, "</tr>\n");
	strbuf_release(&cell);
}

/* One of the three tables, with the CSV file's columns and rows. */
static void
html_table(struct strbuf *out, const struct results *res,
           enum results_file which, const char *id)
{
	enum result_kind want = which == RESULTS_CSV ? RESULT_MEASURED
	                        : which == RESULTS_OOM_CSV ? RESULT_OOM
	                        : RESULT_FAILED;
	int ncols, rows = 0;
	const enum results_col *cols = results_columns(which, &ncols);

	strbuf_addf(out, "<div class=\"scroll\"><table id=\"%s\">\n<thead>"
	            "<tr>", id);
	for (int c = 0; c < ncols; c++)
		strbuf_addf(out, "<th>%s</th>", results_col_name(cols[c]));
	strbuf_addstr(out, "</tr></thead>\n<tbody>\n");
	if (want == RESULT_MEASURED)
		for (; rows < res->nranked; rows++)
			html_row(out, res, res->ranked[rows], cols, ncols);
	for (int i = 0; want != RESULT_MEASURED && i < res->n; i++)
		if (res->v[i].kind == want) {
			html_row(out, res, i, cols, ncols);
			rows++;
		}
	if (rows == 0)
		strbuf_addf(out, "<tr><td colspan=\"%d\">none</td></tr>\n",
		            ncols);
	strbuf_addstr(out, "</tbody>\n</table></div>\n");
}

/* The one-sentence answer above everything else. */
static void
html_headline(struct strbuf *out, const struct results *res)
{
	struct strbuf sb = STRBUF_INIT;

	if (res->best < 0)
		strbuf_addstr(&sb, "No configuration can be recommended: see "
		              "why each candidate failed below.");
	else {
		strbuf_addf(&sb, "Train with %s: %.1f TFLOP/s per GPU, ",
		            res->v[res->best].cand.name,
		            res->v[res->best].m.tflops_per_gpu);
		report_add_duration(&sb, res->v[res->best].m.train_days);
		strbuf_addstr(&sb, " for the whole training.");
	}
	if (res->within_noise)
		strbuf_addstr(&sb, " The base configuration is as fast, "
		              "within noise.");
	else if (isfinite(res->speedup))
		strbuf_addf(&sb, " %.2fx the speed of the base configuration.",
		            res->speedup);
	strbuf_addstr(out, "<p id=\"headline\"><strong>");
	report_escape(out, sb.buf);
	strbuf_addstr(out, "</strong></p>\n");
	strbuf_release(&sb);
}

/* The whole page. */
void
report_html(const struct results *res, const char *summary,
            struct strbuf *out)
{
	const struct settings *c = &res->run.settings;

	strbuf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	              "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
	              "content=\"width=device-width, initial-scale=1\">\n"
	              "<title>paratune results: ");
	report_escape(out, c->name);
	strbuf_addf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n"
	            "<h1>paratune results: campaign ", html_style);
	report_escape(out, c->name);
	strbuf_addstr(out, "</h1>\n");
	html_headline(out, res);
	strbuf_addstr(out, "<h2>Summary</h2>\n<pre id=\"summary\">");
	report_escape(out, summary);
	strbuf_addstr(out, "</pre>\n<h2>Model TFLOP/s per GPU</h2>\n"
	              "<figure id=\"chart\">\n");
	report_svg(res, out);
	strbuf_addstr(out, "</figure>\n<h2>Search progress</h2>\n"
	              "<figure id=\"progress\">\n");
	report_progress_svg(res, out);
	strbuf_addstr(out, "</figure>\n<h2>Measured (results.csv)</h2>\n");
	html_table(out, res, RESULTS_CSV, "results");
	strbuf_addstr(out, "<h2>Out of memory (oom.csv)</h2>\n");
	html_table(out, res, RESULTS_OOM_CSV, "oom");
	strbuf_addstr(out, "<h2>Failed (failed.csv)</h2>\n");
	html_table(out, res, RESULTS_FAILED_CSV, "failed");
	strbuf_addstr(out, "</body>\n</html>\n");
}
