/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * report-progress.c - the search's progress chart of report.html: the
 * best step time measured so far against the GPU-hours spent, runs
 * taken in the order they ended, beside what running every candidate
 * would have cost (the predicted exhaustive estimate).
 */
#include "autoconfig.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "budget.h"
#include "report.h"
#include "xalloc.h"

#define PROG_W 720
#define PROG_H 300
#define PROG_X0 70            /* plot area: left, top, right, bottom */
#define PROG_Y0 40
#define PROG_X1 690
#define PROG_Y1 250
#define PROG_LINE "#0072b2"
#define PROG_ALL "#c0392b"

/* One run: when it ended, what it used, and its measured step time
 * (NAN when it measured nothing that may be recommended). */
struct prog_point {
	long end;
	double hours, step_s;
};

static int
compare_points(const void *pa, const void *pb)
{
	const struct prog_point *a = pa, *b = pb;

	return (a->end > b->end) - (a->end < b->end);
}

/* Every run that started, in the order they ended; *n gets how many. */
static struct prog_point *
prog_points(const struct results *res, int *n)
{
	const struct settings *c = &res->run.settings;
	struct prog_point *p = xcalloc((size_t)res->n + 1, sizeof(*p));
	long now = (long)time(NULL);

	*n = 0;
	for (int i = 0; i < res->n; i++) {
		const struct result_row *r = &res->v[i];
		const struct cand_status *s = r->status;
		double secs;

		if (s == NULL || (s->start_time <= 0 && s->spent_s <= 0))
			continue;
		/* As status counts it: a running job up to now, not to the
		 * end of its time limit.  A retry not started yet is placed
		 * at its submission, after the jobs before it ended. */
		secs = budget_job_seconds(s, now);
		p[*n].end = s->start_time > 0 ? s->start_time + (long)secs
		                              : s->submit_time;
		/* On the GPUs planned, as the row's own figures; with
		 * what the candidate's earlier attempts spent. */
		p[*n].hours = budget_cand_seconds(s, now) / 3600.0 *
		              results_row_gpus(c, r);
		p[*n].step_s = r->kind == RESULT_MEASURED && r->recommendable
		               ? r->m.step_mean_s : NAN;
		(*n)++;
	}
	qsort(p, (size_t)*n, sizeof(*p), compare_points);
	return p;
}

static double
px(double h, double xmax)
{
	return PROG_X0 + (PROG_X1 - PROG_X0) * (xmax > 0 ? h / xmax : 0);
}

static double
py(double s, double ymin, double ymax)
{
	double span = ymax > ymin ? ymax - ymin : 1;

	return PROG_Y1 - (PROG_Y1 - PROG_Y0) * (s - ymin) / span;
}

/* The axes, their labels and the exhaustive estimate's line. */
static void
prog_axes(struct strbuf *out, const struct results *res, double xmax,
          double ymin, double ymax)
{
	double all = res->exhaustive_gpu_hours_estimate;

	strbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	            "stroke=\"#333\"/>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
	            "y2=\"%d\" stroke=\"#333\"/>\n", PROG_X0, PROG_Y1, PROG_X1,
	            PROG_Y1, PROG_X0, PROG_Y0, PROG_X0, PROG_Y1);
	for (int k = 0; k <= 4; k++) {
		double h = xmax * k / 4, s = ymin + (ymax - ymin) * k / 4;

		strbuf_addf(out, "<text x=\"%.1f\" y=\"%d\" "
		            "text-anchor=\"middle\">%.3g</text>\n",
		            px(h, xmax), PROG_Y1 + 16, h);
		strbuf_addf(out, "<text x=\"%d\" y=\"%.1f\" "
		            "text-anchor=\"end\">%.3g</text>\n",
		            PROG_X0 - 6, py(s, ymin, ymax) + 4, s);
	}
	strbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
	            "GPU-hours spent</text>\n<text x=\"14\" y=\"%d\" "
	            "transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">"
	            "best step time so far (s)</text>\n",
	            (PROG_X0 + PROG_X1) / 2, PROG_Y1 + 36,
	            (PROG_Y0 + PROG_Y1) / 2, (PROG_Y0 + PROG_Y1) / 2);
	if (all > 0)
		strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
		            "y2=\"%d\" stroke=\"" PROG_ALL "\" "
		            "stroke-dasharray=\"4 3\"/>\n<text x=\"%.1f\" "
		            "y=\"%d\" text-anchor=\"end\" "
		            "fill=\"" PROG_ALL "\">"
		            "every candidate (predicted): %.3g</text>\n",
		            px(all, xmax), PROG_Y0, px(all, xmax), PROG_Y1,
		            px(all, xmax) - 4, PROG_Y0 + 12, all);
}

/* The best-so-far steps: a point at each run that improved it. */
static void
prog_line(struct strbuf *out, const struct prog_point *p, int n,
          double xmax, double ymin, double ymax)
{
	double cum = 0, best = NAN;

	strbuf_addstr(out, "<polyline fill=\"none\" stroke=\"" PROG_LINE
	              "\" stroke-width=\"2\" points=\"");
	for (int i = 0; i < n; i++) {
		cum += p[i].hours;
		if (isfinite(p[i].step_s) && !(p[i].step_s >= best)) {
			if (isfinite(best))
				strbuf_addf(out, "%.1f,%.1f ", px(cum, xmax),
				            py(best, ymin, ymax));
			best = p[i].step_s;
		}
		if (isfinite(best))
			strbuf_addf(out, "%.1f,%.1f ", px(cum, xmax),
			            py(best, ymin, ymax));
	}
	strbuf_addstr(out, "\"/>\n");
}

void
report_progress_svg(const struct results *res, struct strbuf *out)
{
	int n;
	struct prog_point *p = prog_points(res, &n);
	double xmax = res->exhaustive_gpu_hours_estimate, spent = 0;
	double ymin = HUGE_VAL, ymax = 0;
	bool measured = false;

	for (int i = 0; i < n; i++) {
		spent += p[i].hours;
		if (isfinite(p[i].step_s)) {
			measured = true;
			ymin = fmin(ymin, p[i].step_s);
			ymax = fmax(ymax, p[i].step_s);
		}
	}
	xmax = fmax(xmax, spent);
	if (!(xmax > 0))
		xmax = 1;
	if (!measured)
		ymin = 0, ymax = 1;
	ymin *= 0.95;
	ymax *= 1.05;
	strbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
	            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	            "role=\"img\" aria-labelledby=\"progress-title\" "
	            "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
	            "font-size=\"12\">\n<title id=\"progress-title\">best step "
	            "time so far against GPU-hours spent</title>\n<rect "
	            "width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
	            PROG_W, PROG_H, PROG_W, PROG_H);
	prog_axes(out, res, xmax, ymin, ymax);
	prog_line(out, p, n, xmax, ymin, ymax);
	if (!measured)
		strbuf_addf(out, "<text x=\"%d\" y=\"%d\">nothing measured "
		            "yet</text>\n", PROG_X0 + 12, PROG_Y0 + 20);
	strbuf_addstr(out, "</svg>\n");
	free(p);
}
