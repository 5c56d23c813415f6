/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-rank.c - how well predictions order the distinct
 * configurations of each campaign (calibrate.h says what counts as
 * one): is the fastest measured predicted fastest, and what share of
 * the pairs whose measured times differ is predicted in that order.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "xalloc.h"

/* Seconds per sample of a step of s seconds of row r. */
static double
per_sample(const struct calib_row *r, double s)
{
	return s / (r->l.gbs > 0 ? r->l.gbs : 1);
}

static bool
same_campaign(const struct calib_row *a, const struct calib_row *b)
{
	return a->campaign && b->campaign && !strcmp(a->campaign, b->campaign);
}

int
calibrate_configs(const struct calib_row *rows, int n, int *rep)
{
	int configs = 0;

	for (int i = 0; i < n; i++) {
		rep[i] = i;
		for (int k = 0; k < i; k++)
			if (rep[k] == k && same_campaign(&rows[i], &rows[k]) &&
			    layout_equal(&rows[i].l, &rows[k].l)) {
				rep[i] = k;
				break;
			}
		configs += rep[i] == i;
	}
	/* The fastest measured run stands for its configuration. */
	for (int i = 0; i < n; i++) {
		int k = rep[i];

		if (k != i && rows[i].step_s < rows[k].step_s) {
			for (int j = 0; j < n; j++)
				if (rep[j] == k)
					rep[j] = i;
		}
	}
	return configs;
}

/* Whether row i counts toward group (NULL: all). */
static bool
in_group(const struct calib_row *r, const char *group)
{
	return group == NULL || !strcmp(r->group, group);
}

/* The pairs of the configurations c[0..m) (representative rows). */
static void
rank_pairs(const struct calib_row *rows, const double *pred, const int *c,
           int m, struct calib_campaign_rank *cr)
{
	for (int a = 0; a < m; a++)
		for (int b = a + 1; b < m; b++) {
			const struct calib_row *ra = &rows[c[a]],
			                       *rb = &rows[c[b]];
			double ma = per_sample(ra, ra->step_s);
			double mb = per_sample(rb, rb->step_s);
			double pa = per_sample(ra, pred[c[a]]);
			double pb = per_sample(rb, pred[c[b]]);

			if (fabs(ma - mb) < CALIB_RANK_TIE * fmin(ma, mb))
				continue;
			cr->pairs++;
			if (pa == pb)
				cr->concordant += 0.5;
			else if ((pa < pb) == (ma < mb))
				cr->concordant += 1;
		}
}

/* Where the fastest measured configuration, cr->best, stands among the
 * predictions: a search that runs the predicted order measures it after
 * best_place - 1 others, and best_behind says by how much the estimate
 * missed it. */
static void
best_place(const struct calib_row *rows, const double *pred, const int *c,
           int m, struct calib_campaign_rank *cr)
{
	double mine = per_sample(&rows[cr->best], pred[cr->best]);
	double top = mine;

	cr->best_place = 1;
	for (int a = 0; a < m; a++) {
		double p = per_sample(&rows[c[a]], pred[c[a]]);

		cr->best_place += p < mine;
		top = fmin(top, p);
	}
	cr->best_behind = mine / top - 1;
}

/* Rank the configurations c[0..m) of one campaign into cr. */
static void
rank_one(const struct calib_row *rows, const double *pred, const int *c,
         int m, struct calib_campaign_rank *cr)
{
	int best = c[0], top = c[0], ties = 0;

	for (int a = 1; a < m; a++) {
		const struct calib_row *r = &rows[c[a]];

		if (per_sample(r, r->step_s) <
		    per_sample(&rows[best], rows[best].step_s))
			best = c[a];
		if (per_sample(r, pred[c[a]]) <
		    per_sample(&rows[top], pred[top]))
			top = c[a];
	}
	for (int a = 0; a < m; a++)
		ties += per_sample(&rows[c[a]], pred[c[a]]) ==
		        per_sample(&rows[top], pred[top]);
	cr->configs = m;
	cr->best = best;
	cr->predicted = ties > 1 ? -1 : top;
	best_place(rows, pred, c, m, cr);
	cr->near = cr->predicted >= 0 &&
	           per_sample(&rows[top], rows[top].step_s) <=
	           (1 + CALIB_RANK_TIE) *
	           per_sample(&rows[best], rows[best].step_s);
	rank_pairs(rows, pred, c, m, cr);
}

int
calibrate_rank_campaigns(const struct calib_row *rows, const double *pred,
                         int n, const char *group,
                         struct calib_campaign_rank **out)
{
	int *rep = xcalloc((size_t)n + 1, sizeof(*rep));
	int *c = xcalloc((size_t)n + 1, sizeof(*c));
	bool *done = xcalloc((size_t)n + 1, sizeof(*done));
	int count = 0;

	*out = NULL;
	calibrate_configs(rows, n, rep);
	for (int i = 0; i < n; i++) {
		struct calib_campaign_rank cr;
		int m = 0;

		if (done[i] || !rows[i].campaign || !in_group(&rows[i], group))
			continue;
		memset(&cr, 0, sizeof cr);
		cr.campaign = rows[i].campaign;
		cr.group = rows[i].group;
		for (int k = i; k < n; k++) {
			if (done[k] || !same_campaign(&rows[i], &rows[k]) ||
			    !in_group(&rows[k], group))
				continue;
			done[k] = true;
			cr.rows++;
			if (rep[k] == k)
				c[m++] = k;
		}
		if (m < 2)
			continue;
		rank_one(rows, pred, c, m, &cr);
		*out = xrealloc(*out, (size_t)(count + 1) * sizeof(**out));
		(*out)[count++] = cr;
	}
	free(rep);
	free(c);
	free(done);
	return count;
}

void
calibrate_rank(const struct calib_row *rows, const double *pred, int n,
               const char *group, struct calib_rank *out)
{
	struct calib_campaign_rank *cr;
	int m = calibrate_rank_campaigns(rows, pred, n, group, &cr);

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < m; i++) {
		out->campaigns++;
		out->rows += cr[i].rows;
		out->configs += cr[i].configs;
		out->best += cr[i].predicted == cr[i].best;
		out->near += cr[i].near;
		out->pairs += cr[i].pairs;
		out->concordant += cr[i].concordant;
	}
	free(cr);
}
