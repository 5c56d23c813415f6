/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-order.c - the ordering term of calibrate's objective
 * (calibrate.c's head says what it is and why): for each pair of
 * distinct configurations of one campaign measured CALIB_RANK_TIE or
 * more apart per sample, fast a and slow b, max(0, x_a - x_b)^2 where
 * x = log(predicted time per sample) - log(measured time per sample) / 2,
 * which is log(pred a / pred b) - log(meas a / meas b) / 2.
 *
 * A campaign of m configurations has up to m^2 / 2 such pairs, and a
 * fit evaluates the term thousands of times: listed and summed pair by
 * pair, a log each, 1,000 runs of one campaign (461,538 pairs) took
 * 36 s and 10,000 would have held 50 million pairs in memory.  So the
 * pairs are not listed.  A campaign's configurations are kept sorted by
 * measured time per sample; the first nfast[j] of them are the fast
 * ends of entry j's pairs (a prefix: measured further apart the
 * faster).  An evaluation sweeps the entries in that order, adding each
 * fast end's x to a Fenwick tree over the order of x (count, sum, sum
 * of squares), and reads off the sum over the fast ends with x_a above
 * x_b of (x_a - x_b)^2 = S2 - 2 x_b S1 + C x_b^2: O(m log m).
 *
 * That sum comes out in other last bits than pair by pair, and on a
 * flat objective Nelder-Mead stops elsewhere for it: on the published
 * runs of tests/data/measured (every campaign of 2 to 4
 * configurations), --rank-weight 3 moved layer_overhead_s of one GPU
 * from 0.0005554 to 0.0005551.  Campaigns of up to ORDER_PAIRWISE_MAX
 * configurations, where the pairs cost little, are still summed pair by
 * pair in the order they always were, so that their fits stay as they
 * were; only larger ones are swept.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate-int.h"
#include "xalloc.h"

/* The most configurations of a campaign summed pair by pair (2016
 * pairs, a log each, per evaluation). */
#define ORDER_PAIRWISE_MAX 64

/* A pair summed pair by pair: rows fast and slow (their
 * representatives), measured log ratio d < 0. */
struct order_pair {
	int fast, slow;
	double d;
};

/* One configuration of a campaign. */
struct order_entry {
	int row;          /* the row that stands for it */
	int nfast;        /* entries before it that are its pairs' fast ends */
	double half_meas; /* log(measured time per sample) / 2 */
};

struct order_campaign {
	struct order_entry *e; /* fastest measured first */
	int m;
};

/* A representative row, for sorting by campaign, then measured time
 * per sample. */
struct order_key {
	const char *campaign;
	double meas;
	int row;
};

static int
compare_key(const void *pa, const void *pb)
{
	const struct order_key *a = pa, *b = pb;
	int c = strcmp(a->campaign, b->campaign);

	if (c)
		return c;
	if (a->meas != b->meas)
		return a->meas < b->meas ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

/* Pairs in the order of their rows, as they were always summed. */
static int
compare_pair(const void *pa, const void *pb)
{
	const struct order_pair *a = pa, *b = pb;

	if (a->fast != b->fast)
		return (a->fast > b->fast) - (a->fast < b->fast);
	return (a->slow > b->slow) - (a->slow < b->slow);
}

/* The campaign of the sorted representatives k[0..m). */
static void
order_campaign_init(struct order_campaign *c, const struct order_key *k,
                    int m)
{
	int fast = 0;

	c->m = m;
	c->e = xcalloc((size_t)m, sizeof(*c->e));
	for (int j = 0; j < m; j++) {
		/* Measured CALIB_RANK_TIE or more faster: the fast ends. */
		while (fast < j && k[j].meas - k[fast].meas >=
		                   CALIB_RANK_TIE * k[fast].meas)
			fast++;
		c->e[j].row = k[j].row;
		c->e[j].nfast = fast;
		c->e[j].half_meas = log(k[j].meas) / 2;
	}
}

/* The pairs of the campaign of the representatives k[0..m). */
static void
order_pairs_add(struct calib_order *ord, const struct order_key *k, int m)
{
	for (int a = 0; a < m; a++)
		for (int b = 0; b < m; b++) {
			double ma = k[a].meas, mb = k[b].meas;

			if (a == b || !(mb - ma >= CALIB_RANK_TIE * ma))
				continue;
			ord->pairs = xrealloc(ord->pairs,
			                      (size_t)(ord->npairs + 1) *
			                      sizeof(*ord->pairs));
			ord->pairs[ord->npairs].fast = k[a].row;
			ord->pairs[ord->npairs].slow = k[b].row;
			ord->pairs[ord->npairs++].d = log(ma / mb);
		}
}

void
calibrate_order_init(struct calib_order *ord, const struct calib_row *rows,
                     int n)
{
	int *rep = xcalloc((size_t)n + 1, sizeof(*rep)), nk = 0;
	struct order_key *k = xcalloc((size_t)n + 1, sizeof(*k));

	memset(ord, 0, sizeof(*ord));
	calibrate_configs(rows, n, rep);
	for (int i = 0; i < n; i++)
		if (rep[i] == i && rows[i].campaign) {
			k[nk].campaign = rows[i].campaign;
			k[nk].meas = calibrate_per_sample(&rows[i],
			                                   rows[i].step_s);
			k[nk++].row = i;
		}
	qsort(k, (size_t)nk, sizeof(*k), compare_key);
	/* campaigns of ORDER_PAIRWISE_MAX configurations or fewer: pairs */
	for (int i = 0, j; i < nk; i = j) {
		for (j = i + 1; j < nk && !strcmp(k[i].campaign,
		                                  k[j].campaign); j++)
			;
		if (j - i < 2)
			continue;
		if (j - i <= ORDER_PAIRWISE_MAX) {
			order_pairs_add(ord, k + i, j - i);
			continue;
		}
		ord->c = xrealloc(ord->c, (size_t)(ord->nc + 1) *
		                          sizeof(*ord->c));
		order_campaign_init(&ord->c[ord->nc++], k + i, j - i);
		if (j - i > ord->max_m)
			ord->max_m = j - i;
	}
	/* No small campaign: no pairs, and qsort takes no NULL. */
	if (ord->npairs > 0)
		qsort(ord->pairs, (size_t)ord->npairs, sizeof(*ord->pairs),
		      compare_pair);
	ord->by_x = xcalloc((size_t)ord->max_m + 1, sizeof(*ord->by_x));
	ord->x = xcalloc((size_t)ord->max_m + 1, sizeof(*ord->x));
	ord->rank = xcalloc((size_t)ord->max_m + 1, sizeof(*ord->rank));
	ord->fen = xcalloc((size_t)ord->max_m + 1, sizeof(*ord->fen));
	free(rep);
	free(k);
}

void
calibrate_order_release(struct calib_order *ord)
{
	for (int k = 0; k < ord->nc; k++)
		free(ord->c[k].e);
	free(ord->c);
	free(ord->pairs);
	free(ord->by_x);
	free(ord->x);
	free(ord->rank);
	free(ord->fen);
	memset(ord, 0, sizeof(*ord));
}

/* Add x at 1-based position i of the Fenwick tree fen of nv places. */
static void
fen_add(struct order_sums *fen, int nv, int i, double x)
{
	for (; i <= nv; i += i & -i) {
		fen[i].count += 1;
		fen[i].sum += x;
		fen[i].squares += x * x;
	}
}

/* The sums over positions 1..i of fen. */
static struct order_sums
fen_sum(const struct order_sums *fen, int i)
{
	struct order_sums s = { 0, 0, 0 };

	for (; i > 0; i -= i & -i) {
		s.count += fen[i].count;
		s.sum += fen[i].sum;
		s.squares += fen[i].squares;
	}
	return s;
}

/* How many of the nv sorted values v are at most x. */
static int
count_at_most(const struct calib_by_value *v, int nv, double x)
{
	int lo = 0, hi = nv;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (v[mid].v <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The x of each entry of c whose row is in and predicted (pred > 0),
 * sorted into ord->by_x, its place into ord->rank (0: none); returns
 * how many.  Centred on their median, so that the sums of squares do
 * not lose the differences to the magnitude of the logs. */
static int
order_xs(struct calib_order *ord, const struct order_campaign *c,
         const struct calib_row *rows, const double *pred, const bool *in)
{
	int nv = 0;
	double mid;

	for (int j = 0; j < c->m; j++) {
		int r = c->e[j].row;
		double p = pred[r];

		ord->rank[j] = 0;
		if (!in[r] || !(p > 0) || !isfinite(p))
			continue;
		ord->by_x[nv].v = log(calibrate_per_sample(&rows[r], p)) -
		                  c->e[j].half_meas;
		ord->by_x[nv++].j = j;
	}
	qsort(ord->by_x, (size_t)nv, sizeof(*ord->by_x),
	      calibrate_by_value_cmp);
	mid = nv ? ord->by_x[nv / 2].v : 0;
	for (int v = 0; v < nv; v++) {
		ord->by_x[v].v -= mid;
		ord->rank[ord->by_x[v].j] = v + 1;
		ord->x[ord->by_x[v].j] = ord->by_x[v].v;
	}
	return nv;
}

/* The term's sum over campaign c's pairs; *pairs gets how many have
 * both rows in.  The tree holds the fast ends in descending order of
 * x, so that those above x_b are a prefix of it. */
static double
order_campaign_loss(struct calib_order *ord, const struct order_campaign *c,
                    const struct calib_row *rows, const double *pred,
                    const bool *in, int *pairs)
{
	int nv = order_xs(ord, c, rows, pred, in), fast = 0, fast_in = 0;
	double sum = 0;

	memset(ord->fen, 0, ((size_t)nv + 1) * sizeof(*ord->fen));
	for (int j = 0; j < c->m; j++) {
		struct order_sums above;
		double x, v;

		for (; fast < c->e[j].nfast; fast++) {
			fast_in += in[c->e[fast].row];
			if (ord->rank[fast] > 0)
				fen_add(ord->fen, nv, nv + 1 - ord->rank[fast],
				        ord->x[fast]);
		}
		if (!in[c->e[j].row])
			continue;
		*pairs += fast_in;
		if (ord->rank[j] == 0)
			continue;   /* row_loss has counted it */
		x = ord->x[j];
		above = fen_sum(ord->fen, nv - count_at_most(ord->by_x, nv, x));
		v = above.squares - 2 * x * above.sum + above.count * x * x;
		if (above.count > 0 && v > 0)
			sum += v;
	}
	return sum;
}

/* The term's sum over the pairs listed, pair by pair; *pairs gets how
 * many have both rows in. */
static double
order_pairs_loss(const struct calib_order *ord, const struct calib_row *rows,
                 const double *pred, const bool *in, int *pairs)
{
	double sum = 0;

	for (int i = 0; i < ord->npairs; i++) {
		const struct order_pair *p = &ord->pairs[i];
		const struct calib_row *a = &rows[p->fast], *b = &rows[p->slow];
		double pa = pred[p->fast], pb = pred[p->slow], short_by;

		if (!in[p->fast] || !in[p->slow])
			continue;
		(*pairs)++;
		if (!(pa > 0) || !(pb > 0) || !isfinite(pa) || !isfinite(pb))
			continue;   /* row_loss has counted it */
		short_by = log(calibrate_per_sample(a, pa) /
		               calibrate_per_sample(b, pb)) - p->d / 2;
		if (short_by > 0)
			sum += short_by * short_by;
	}
	return sum;
}

double
calibrate_order_loss(struct calib_order *ord, const struct calib_row *rows,
                     const double *pred, const bool *in, int *pairs)
{
	double sum;

	*pairs = 0;
	sum = order_pairs_loss(ord, rows, pred, in, pairs);
	for (int k = 0; k < ord->nc; k++)
		sum += order_campaign_loss(ord, &ord->c[k], rows, pred, in,
		                           pairs);
	return sum;
}
