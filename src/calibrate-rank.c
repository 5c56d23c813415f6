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

#include "calibrate-int.h"
#include "xalloc.h"

double
calibrate_per_sample(const struct calib_row *r, double s)
{
	return s / (r->l.gbs > 0 ? r->l.gbs : 1);
}

/*
 * Rows by campaign (rows without one last), then by a few layout fields
 * (a subset of what layout_equal compares, so that equal layouts sort
 * together), then in order.  calibrate_configs compared every row with
 * every earlier one, and the ranking every configuration of a campaign
 * with every other: at 10,000 rows of one campaign, a quarter of
 * calibrate's time.  Sorted, rows of one configuration are neighbours.
 */
struct rank_key {
	const struct calib_row *r;
	int i;
};

static int
compare_rank_key(const void *pa, const void *pb)
{
	const struct rank_key *a = pa, *b = pb;
	const struct layout *la = &a->r->l, *lb = &b->r->l;
	int c;

	if (!a->r->campaign || !b->r->campaign)
		c = (a->r->campaign == NULL) - (b->r->campaign == NULL);
	else
		c = strcmp(a->r->campaign, b->r->campaign);
	if (c == 0)
		c = la->tp != lb->tp ? la->tp - lb->tp
		  : la->pp != lb->pp ? la->pp - lb->pp
		  : la->cp != lb->cp ? la->cp - lb->cp
		  : la->ep != lb->ep ? la->ep - lb->ep
		  : la->vp != lb->vp ? la->vp - lb->vp
		  : la->mbs != lb->mbs ? la->mbs - lb->mbs
		  : la->gbs != lb->gbs ? la->gbs - lb->gbs : 0;
	return c ? (c > 0) - (c < 0) : (a->i > b->i) - (a->i < b->i);
}

/* The rows' keys, sorted; the caller frees them. */
static struct rank_key *
sorted_keys(const struct calib_row *rows, int n)
{
	struct rank_key *k = xcalloc((size_t)n + 1, sizeof(*k));

	for (int i = 0; i < n; i++) {
		k[i].r = &rows[i];
		k[i].i = i;
	}
	qsort(k, (size_t)n, sizeof(*k), compare_rank_key);
	return k;
}

/* Whether keys a and b are of one campaign and sort together. */
static bool
same_bucket(const struct rank_key *a, const struct rank_key *b)
{
	struct rank_key x = *a;

	x.i = b->i;
	return a->r->campaign && b->r->campaign &&
	       compare_rank_key(&x, b) == 0;
}

int
calibrate_configs(const struct calib_row *rows, int n, int *rep)
{
	struct rank_key *k = sorted_keys(rows, n);
	int configs = 0;

	for (int i = 0; i < n; i++)
		rep[i] = -1;
	/* Within a bucket (in row order), each row not yet placed starts
	 * a configuration; its later equals join it.  The fastest
	 * measured run, the first of them, stands for it. */
	for (int b = 0, e; b < n; b = e) {
		for (e = b + 1; e < n && same_bucket(&k[b], &k[e]); e++)
			;
		for (int x = b; x < e; x++) {
			int best = k[x].i;

			if (rep[k[x].i] >= 0)
				continue;
			configs++;
			for (int y = x; y < e; y++)
				if (rep[k[y].i] < 0 &&
				    (y == x || (k[x].r->campaign &&
				     layout_equal(&k[x].r->l, &k[y].r->l)))) {
					rep[k[y].i] = k[x].i;
					if (k[y].r->step_s < rows[best].step_s)
						best = k[y].i;
				}
			for (int y = x; y < e; y++)
				if (rep[k[y].i] == k[x].i)
					rep[k[y].i] = best;
		}
	}
	free(k);
	return configs;
}

/* Whether row i counts toward group (NULL: all). */
static bool
in_group(const struct calib_row *r, const char *group)
{
	return group == NULL || !strcmp(r->group, group);
}

int
calibrate_by_value_cmp(const void *pa, const void *pb)
{
	const struct calib_by_value *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

/* The fast ends counted at 1-based places 1..i of the Fenwick tree. */
static int
fen_count(const int *fen, int i)
{
	int s = 0;

	for (; i > 0; i -= i & -i)
		s += fen[i];
	return s;
}

/* Each configuration's place in the predicted order into place[j],
 * equal predictions sharing one (0: no prediction to order, NaN);
 * returns how many places. */
static int
predicted_places(const struct calib_row *rows, const double *pred,
                 const int *c, int m, int *place)
{
	struct calib_by_value *p = xcalloc((size_t)m + 1, sizeof(*p));
	int np = 0, places = 0;

	for (int j = 0; j < m; j++) {
		place[j] = 0;
		if (!isnan(pred[c[j]])) {
			p[np].v = calibrate_per_sample(&rows[c[j]], pred[c[j]]);
			p[np++].j = j;
		}
	}
	qsort(p, (size_t)np, sizeof(*p), calibrate_by_value_cmp);
	for (int v = 0; v < np; v++) {
		places += v == 0 || p[v].v != p[v - 1].v;
		place[p[v].j] = places;
	}
	free(p);
	return places;
}

/*
 * The pairs of the configurations c[0..m) (representative rows)
 * measured CALIB_RANK_TIE or more apart per sample, and those predicted
 * in that order (a predicted tie: half).  Swept in measured order, the
 * fast ends of each configuration's pairs are a prefix (the measured
 * gap grows with the distance), counted by predicted place in a
 * Fenwick tree: O(m log m), the counts exactly those of comparing every
 * pair.
 */
static void
rank_pairs(const struct calib_row *rows, const double *pred, const int *c,
           int m, struct calib_campaign_rank *cr)
{
	struct calib_by_value *meas = xcalloc((size_t)m + 1, sizeof(*meas));
	int *place = xcalloc((size_t)m + 1, sizeof(*place));
	int *fen = xcalloc((size_t)m + 1, sizeof(*fen));
	int places = predicted_places(rows, pred, c, m, place), fast = 0;

	for (int j = 0; j < m; j++) {
		meas[j].v = calibrate_per_sample(&rows[c[j]],
		                                 rows[c[j]].step_s);
		meas[j].j = j;
	}
	qsort(meas, (size_t)m, sizeof(*meas), calibrate_by_value_cmp);
	for (int b = 0; b < m; b++) {
		int pb = place[meas[b].j], less, ties;

		while (fast < b && !(meas[b].v - meas[fast].v <
		                     CALIB_RANK_TIE * meas[fast].v)) {
			for (int i = place[meas[fast].j]; i > 0 && i <= places;
			     i += i & -i)
				fen[i]++;
			fast++;
		}
		cr->pairs += fast;
		if (pb == 0)
			continue;   /* no prediction: in no order */
		less = fen_count(fen, pb - 1);
		ties = fen_count(fen, pb) - less;
		cr->concordant += less + 0.5 * ties;
	}
	free(meas);
	free(place);
	free(fen);
}

/* Where the fastest measured configuration, cr->best, stands among the
 * predictions: a search that runs the predicted order measures it after
 * best_place - 1 others, and best_behind says by how much the estimate
 * missed it. */
static void
best_place(const struct calib_row *rows, const double *pred, const int *c,
           int m, struct calib_campaign_rank *cr)
{
	double mine = calibrate_per_sample(&rows[cr->best], pred[cr->best]);
	double top = mine;

	cr->best_place = 1;
	for (int a = 0; a < m; a++) {
		double p = calibrate_per_sample(&rows[c[a]], pred[c[a]]);

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

		if (calibrate_per_sample(r, r->step_s) <
		    calibrate_per_sample(&rows[best], rows[best].step_s))
			best = c[a];
		if (calibrate_per_sample(r, pred[c[a]]) <
		    calibrate_per_sample(&rows[top], pred[top]))
			top = c[a];
	}
	for (int a = 0; a < m; a++)
		ties += calibrate_per_sample(&rows[c[a]], pred[c[a]]) ==
		        calibrate_per_sample(&rows[top], pred[top]);
	cr->configs = m;
	cr->best = best;
	cr->predicted = ties > 1 ? -1 : top;
	best_place(rows, pred, c, m, cr);
	cr->near = cr->predicted >= 0 &&
	           calibrate_per_sample(&rows[top], rows[top].step_s) <=
	           (1 + CALIB_RANK_TIE) *
	           calibrate_per_sample(&rows[best], rows[best].step_s);
	rank_pairs(rows, pred, c, m, cr);
}

/* Rows by campaign, then in order. */
static int
compare_campaign(const void *pa, const void *pb)
{
	const struct rank_key *a = pa, *b = pb;
	int c = strcmp(a->r->campaign, b->r->campaign);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* A campaign's rows: keys [start, start + len), the first row. */
struct campaign_run {
	int first, start, len;
};

static int
compare_run(const void *pa, const void *pb)
{
	const struct campaign_run *a = pa, *b = pb;

	return (a->first > b->first) - (a->first < b->first);
}

/* The runs of one campaign of keys k[0..n) (sorted by campaign, then
 * row), in the order of their first rows, into run[]; returns how
 * many. */
static int
campaign_runs(const struct rank_key *k, int n, struct campaign_run *run)
{
	int runs = 0;

	for (int i = 0; i < n; i++) {
		if (i == 0 || strcmp(k[i].r->campaign, k[i - 1].r->campaign)) {
			run[runs].first = k[i].i;
			run[runs++].start = i;
		}
		run[runs - 1].len++;
	}
	qsort(run, (size_t)runs, sizeof(*run), compare_run);
	return runs;
}

int
calibrate_rank_campaigns(const struct calib_row *rows, const double *pred,
                         int n, const char *group,
                         struct calib_campaign_rank **out)
{
	int *rep = xcalloc((size_t)n + 1, sizeof(*rep));
	int *c = xcalloc((size_t)n + 1, sizeof(*c));
	struct rank_key *k = xcalloc((size_t)n + 1, sizeof(*k));
	struct campaign_run *run = xcalloc((size_t)n + 1, sizeof(*run));
	int count = 0, nk = 0, runs;

	*out = NULL;
	calibrate_configs(rows, n, rep);
	for (int i = 0; i < n; i++)
		if (rows[i].campaign && in_group(&rows[i], group)) {
			k[nk].r = &rows[i];
			k[nk++].i = i;
		}
	qsort(k, (size_t)nk, sizeof(*k), compare_campaign);
	runs = campaign_runs(k, nk, run);
	for (int u = 0; u < runs; u++) {
		struct calib_campaign_rank cr;
		int m = 0;

		memset(&cr, 0, sizeof cr);
		cr.campaign = rows[run[u].first].campaign;
		cr.group = rows[run[u].first].group;
		cr.rows = run[u].len;
		for (int x = run[u].start; x < run[u].start + run[u].len; x++)
			if (rep[k[x].i] == k[x].i)
				c[m++] = k[x].i;
		if (m < 2)
			continue;
		rank_one(rows, pred, c, m, &cr);
		*out = xrealloc(*out, (size_t)(count + 1) * sizeof(**out));
		(*out)[count++] = cr;
	}
	free(rep);
	free(c);
	free(k);
	free(run);
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
