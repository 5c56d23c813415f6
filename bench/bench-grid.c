/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * bench-grid.c - how fast the planner walks a grid, and whether its
 * memory grows with the grid.
 *
 * Plans Llama 3 70B on 128 nodes of H100s over grids of growing size
 * (every list longer than any real campaign would use) and prints, for
 * each, the combinations per second on one core and the process's peak
 * resident memory so far.  Target: at least 1,000,000 combinations per
 * second, and a peak that stays flat as the grid grows.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "config.h"
#include "grid.h"
#include "model.h"

static void
list_range(struct int_list *l, int n, const int *v)
{
	l->is_auto = false;
	l->n = n;
	memcpy(l->v, v, sizeof(int) * (size_t)n);
}

static long
peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One grid with ngbs global batch sizes (the knob that scales it). */
static int
bench_one(struct settings *c, int ngbs)
{
	static const int tp[] = { 1, 2, 4, 8 }, cp[] = { 1, 2, 4, 8 };
	static const int mbs[] = { 1, 2, 4, 8 };
	int gbs[CONFIG_LIST_MAX];
	struct strbuf notes = STRBUF_INIT;
	struct grid_spec spec;
	struct grid_result res;
	struct workload w;
	double t0, t1;

	for (int i = 0; i < ngbs; i++)
		gbs[i] = 256 * (i + 1);
	list_range(&c->search.tp, 4, tp);
	list_range(&c->search.cp, 4, cp);
	list_range(&c->search.mbs, 4, mbs);
	list_range(&c->global_batch_size, ngbs, gbs);
	c->search.pp.is_auto = true;
	c->search.vp.is_auto = true;
	c->search.recompute = BIT(RECOMPUTE_NONE) | BIT(RECOMPUTE_SELECTIVE) |
	                      BIT(RECOMPUTE_FULL);
	c->search.distributed_optimizer = BIT(0) | BIT(1);
	if (grid_spec_init(&spec, c, &notes) != 0)
		return -1;
	settings_workload(c, &w);
	t0 = now_s();
	grid_run(&spec, &w, "llama_70.55b_128nodes", 1000, &res, NULL, NULL);
	grid_finish(&res);
	t1 = now_s();
	printf("%12lld %10lld %10lld %10.3f %14.0f %14.0f %12ld\n",
	       res.stats.examined, res.stats.valid, res.stats.safe, t1 - t0,
	       (double)res.stats.examined / (t1 - t0),
	       (double)res.stats.valid / (t1 - t0), peak_rss_kib());
	grid_result_release(&res);
	strbuf_release(&notes);
	return 0;
}

int
main(void)
{
	static const int sizes[] = { 1, 4, 16, 64 };
	const struct model *m = model_preset_find("llama3_70b");
	struct settings c;

	if (m == NULL) {
		fprintf(stderr, "bench-grid: no llama3_70b preset\n");
		return 1;
	}
	settings_init(&c);
	c.model = *m;
	gpu_catalog_init(&c.gpus);
	c.gpu = *gpu_catalog_find(&c.gpus, "h100-sxm");
	c.nodes = 128;
	c.gpus_per_node = 8;
	c.seq_length = 8192;
	c.search.max_model_parallel = 1024;
	/* combos/s counts combinations pruned in groups by the outer
	 * rules; estimates/s counts the valid ones fully estimated. */
	printf("%12s %10s %10s %10s %14s %14s %12s\n", "combinations",
	       "valid", "safe", "seconds", "combos/s", "estimates/s",
	       "peak_rss_kib");
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		if (bench_one(&c, sizes[i]) != 0)
			return 1;
	settings_release(&c);
	return 0;
}
