/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate-inflight.c - the activations a pipeline rank holds at its
 * peak, model chunk by model chunk.
 *
 * Under 1F1B rank r holds min(m, p - r) micro-batches of its one chunk
 * [PIPE].  Interleaved, Megatron-LM [MLM schedules.py,
 * get_pp_rank_microbatches, get_schedule_table, get_model_chunk_id]
 * runs forwards in groups of p micro-batches (microbatch_group_size_
 * per_vp_stage, p by default): chunk 0 for micro-batches 0 to p-1,
 * chunk 1 for the same, ... chunk v-1, then chunk 0 for p to 2p-1;
 * backwards in the same order with the chunks reversed (v-1 first).
 * Rank r warms up 2(p-r-1) + (v-1)p chunk forwards (one more with
 * overlap_moe_expert_parallel_comm), at most all m*v, then each step
 * runs one forward and one backward.  The chunks do not hold alike:
 * rank 0 of pp 2, vp 2 holds 3 of chunk 0 and 2 of chunk 1 after its
 * warm-up, 4 and 1 after the next forward.  When the chunks differ (the
 * embedding counted as a layer, dense first layers, the embedding's
 * token ids on chunk 0, the MTP layers on the last) the peak is
 * whichever step holds the most bytes.  With whole groups (interleaving
 * needs m % p == 0, RULE_VP_MICRO) the steps repeat every v*p, so
 * one period of them is enough.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdbool.h>

#include "estimate-int.h"

/* Chunk of the k-th forward (from 0) of the interleaved schedule. */
static int
forward_chunk(long k, int p, int v)
{
	return (int)((k / p) % v);
}

/* Chunk forwards rank r runs before its first backward. */
static long
warmup_chunks(const struct est *x, int r, long total)
{
	int p = x->l->pp, v = x->l->vp;
	long warm = 2L * (p - r - 1) + (long)(v - 1) * p +
	            (x->l->moe_a2a_overlap ? 1 : 0);

	return warm < total ? warm : total;
}

/*
 * Chunks whose activations interleaved_peak() keeps at hand; beyond
 * them it asks estimate_chunk_activations() each time (a pipeline rank
 * of more than 64 model chunks is one no recipe runs).
 */
#define CACHED_CHUNKS 64

struct chunk_bytes {
	const struct est *x;
	const struct stage *st;
	int v;                       /* the stage's model chunks */
	int cached;                  /* of them in bytes[] */
	double bytes[CACHED_CHUNKS];
};

/*
 * Whether chunks 1 to v-2 of stage st hold alike: as many layers each
 * (only the first stage's first chunk and the last's last differ), and
 * as many dense ones, which holds when chunk 1 has none (the later
 * chunks start further on) or every layer is dense.
 */
static bool
inner_chunks_alike(const struct est *x, const struct stage *st)
{
	int from, n;

	if (x->s.Lmoe <= 0)
		return true;
	layout_chunk_span(x->w->model, x->l, st->rank, 1, &from, &n);
	return model_dense_layers_in(x->w->model, from, n) == 0;
}

static void
chunk_bytes_init(struct chunk_bytes *c, const struct est *x,
                 const struct stage *st)
{
	int v = x->l->vp;
	bool alike = v > 3 && inner_chunks_alike(x, st);

	c->x = x;
	c->st = st;
	c->v = v;
	c->cached = v < CACHED_CHUNKS ? v : CACHED_CHUNKS;
	c->bytes[0] = estimate_chunk_activations(x, st, 0);
	for (int j = 1; j < c->cached; j++)
		c->bytes[j] = alike && j > 1 && j < v - 1
		              ? c->bytes[1]
		              : estimate_chunk_activations(x, st, j);
}

static double
chunk_bytes_at(const struct chunk_bytes *c, int j)
{
	return j < c->cached ? c->bytes[j]
	                     : estimate_chunk_activations(c->x, c->st, j);
}

/* Whether every chunk holds alike (a middle stage of a model of one
 * kind): then only how many are in flight counts. */
static bool
chunks_equal(const struct chunk_bytes *c)
{
	if (c->v > c->cached)
		return false;
	for (int j = 1; j < c->cached; j++)
		if (c->bytes[j] != c->bytes[0])
			return false;
	return true;
}

/* Bytes after the first `fwd` forwards: whole rounds of v*p forwards
 * hold p of each chunk; the round begun, p of each chunk before the
 * one it has reached, and what it has run of that one. */
static double
held_after(const struct chunk_bytes *c, long fwd)
{
	int p = c->x->l->pp, v = c->v;
	long rounds = fwd / ((long)p * v), rest = fwd % ((long)p * v);
	double held = 0;

	for (int j = 0; j < v; j++) {
		long n = rounds * p + (j < rest / p ? p
		                       : j == rest / p ? rest % p : 0);

		held += (double)n * chunk_bytes_at(c, j);
	}
	return held;
}

/* Where the schedule's k-th forward stands: its chunk, and how many of
 * its group of p come before it. */
struct cursor {
	int chunk;
	long in_group;
};

static struct cursor
cursor_at(long k, int p, int v)
{
	struct cursor c = { forward_chunk(k, p, v), k % p };

	return c;
}

/* Move on by len forwards, at most to the end of the group. */
static void
cursor_advance(struct cursor *c, long len, int p, int v)
{
	c->in_group += len;
	if (c->in_group == p) {
		c->in_group = 0;
		c->chunk = (c->chunk + 1) % v;
	}
}

/*
 * Step i runs forward warm + i, then backward i.  Between the steps at
 * which either of them enters a new group of p the held bytes change
 * by the same amount each step, so the peak is at a group's edge: the
 * walk goes from edge to edge, 2v of them a period.
 */
static double
interleaved_peak(const struct est *x, const struct stage *st)
{
	int p = x->l->pp, v = x->l->vp;
	long m = x->m >= 1 ? (long)x->m : 1, total = m * v;
	long warm = warmup_chunks(x, st->rank, total), steps, i, len;
	struct cursor f = cursor_at(warm + 1, p, v), b = cursor_at(0, p, v);
	struct chunk_bytes c;
	double held, peak;

	chunk_bytes_init(&c, x, st);
	if (chunks_equal(&c))
		return (double)(warm >= total ? total : warm + 1) * c.bytes[0];
	if (warm >= total)
		return held_after(&c, total);
	held = peak = held_after(&c, warm + 1);
	steps = total - warm < (long)v * p ? total - warm : (long)v * p;
	for (i = 0; i + 1 < steps; i += len) {
		len = p - f.in_group < p - b.in_group ? p - f.in_group
		                                      : p - b.in_group;
		if (len > steps - 1 - i)
			len = steps - 1 - i;
		held += (double)len * (chunk_bytes_at(&c, f.chunk) -
		                       chunk_bytes_at(&c, v - 1 - b.chunk));
		peak = fmax(peak, held);
		cursor_advance(&f, len, p, v);
		cursor_advance(&b, len, p, v);
	}
	return peak;
}

/* Public: see estimate-int.h. */
double
estimate_inflight_peak(const struct est *x, const struct stage *st)
{
	if (x->l->pp > 1 && x->l->vp > 1)
		return interleaved_peak(x, st);
	return fmin(x->m, x->p - st->rank) *
	       estimate_chunk_activations(x, st, 0);
}
