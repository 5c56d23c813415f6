/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * bench-slurm.c - the libslurm side of bench/bench-slurm.sh.
 *
 *   bench-slurm submit N PREFIX IDFILE   submit N held jobs, ids to IDFILE
 *   bench-slurm poll REPS IDFILE         time slurm_poll, fresh connections
 *   bench-slurm cached REPS IDFILE       time slurm_poll, one connection
 *   bench-slurm cancel IDFILE            cancel every job in IDFILE
 *
 * The script runs the sbatch/squeue counterparts in the same run and
 * prints the ratios.  Each line starting "result " carries key=value
 * figures for the script; the rest is for people.
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[0..n-1]; sorts v. */
static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Read the job ids of IDFILE, one a line. */
static uint32_t *
read_ids(const char *path, int *n)
{
	FILE *f = fopen(path, "r");
	uint32_t *ids = NULL;
	size_t alloc = 0;
	unsigned long v;

	*n = 0;
	if (f == NULL) {
		perror(path);
		return NULL;
	}
	while (fscanf(f, "%lu", &v) == 1) {
		ALLOC_GROW(ids, (size_t)*n + 1, alloc);
		ids[(*n)++] = (uint32_t)v;
	}
	fclose(f);
	return ids;
}

/* Submit n held jobs named PREFIX-i through slurm_submit, timed. */
static int
bench_submit(int n, const char *prefix, const char *idfile)
{
	struct strbuf err = STRBUF_INIT;
	struct slurm_conn *c = slurm_open(&err);
	struct slurm_submit_req req;
	FILE *out = fopen(idfile, "w");
	char name[128];
	double t0, dt;
	int ok = 0;

	if (c == NULL || out == NULL) {
		fprintf(stderr, "error: %s\n", c ? idfile : err.buf);
		return 1;
	}
	memset(&req, 0, sizeof req);
	req.script = "#!/bin/sh\ntrue\n";
	req.work_dir = "/tmp";
	req.std_out = "/dev/null";
	req.time_limit_min = 1;
	req.nodes = 1;
	req.ntasks_per_node = 1;
	req.hold = true;
	t0 = now_s();
	for (int i = 0; i < n; i++) {
		uint32_t id;

		snprintf(name, sizeof name, "%s-%d", prefix, i);
		req.name = name;
		if (slurm_submit(c, &req, &id, &err) != SLURM_E_OK) {
			fprintf(stderr, "error: %s\n", err.buf);
			break;
		}
		fprintf(out, "%" PRIu32 "\n", id);
		ok++;
	}
	dt = now_s() - t0;
	fclose(out);
	printf("slurm_submit: %d held jobs in %.3f s (%.2f ms a job)\n", ok,
	       dt, 1e3 * dt / (ok ? ok : 1));
	printf("result submitted=%d submit_s=%.6f\n", ok, dt);
	slurm_close(c);
	strbuf_release(&err);
	return ok == n ? 0 : 1;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* How many of ids (sorted) are among the polled jobs. */
static int
count_found(const struct slurm_job *jobs, int n, const uint32_t *ids,
            int nids)
{
	int found = 0;

	for (int i = 0; i < n; i++)
		found += bsearch(&jobs[i].job_id, ids, (size_t)nids,
		                 sizeof(*ids), cmp_u32) != NULL;
	return found;
}

/* Time one slurm_poll; count the jobs of ids it returns into *found. */
static double
timed_poll(struct slurm_conn *c, const uint32_t *ids, int nids, int *found,
           int *n, struct strbuf *err)
{
	const struct slurm_job *jobs;
	double t0 = now_s();
	int ret = slurm_poll(c, &jobs, n, err);
	double dt = now_s() - t0;

	*found = ret == SLURM_E_OK ? count_found(jobs, *n, ids, nids) : -1;
	return dt;
}

/*
 * Cold: reps fresh connections, one poll each, as each cron run of
 * paratune resume makes it.  Cached: one connection polling reps times
 * more after its first poll, as status --watch does; a controller whose
 * jobs did not change answers those with SLURM_NO_CHANGE_IN_DATA.
 */
static int
bench_poll(int reps, const char *idfile, bool cached)
{
	double *t = xcalloc((size_t)reps, sizeof(double));
	struct strbuf err = STRBUF_INIT;
	struct slurm_conn *c = NULL;
	int nids, n = 0, found = 0, bad = 0;
	uint32_t *ids = read_ids(idfile, &nids);

	if (ids)
		qsort(ids, (size_t)nids, sizeof(*ids), cmp_u32);
	for (int r = 0; ids && !bad && r < reps; r++) {
		if (c == NULL && (c = slurm_open(&err)) == NULL) {
			bad = 1;
			break;
		}
		if (cached && r == 0)
			timed_poll(c, ids, nids, &found, &n, &err);
		t[r] = timed_poll(c, ids, nids, &found, &n, &err);
		bad = found != nids;
		if (!cached) {
			slurm_close(c);
			c = NULL;
		}
	}
	if (c)
		slurm_close(c);
	if (bad || ids == NULL) {
		fprintf(stderr, "error: poll saw %d of %d jobs %s\n", found,
		        nids, err.buf);
		bad = 1;
	} else {
		printf("slurm_poll %s: %d jobs of ours, all %d benchmark jobs "
		       "among them; median %.3f ms of %d\n",
		       cached ? "cached" : "cold", n, nids,
		       1e3 * median(t, reps), reps);
		printf("result poll_s=%.6f polls=%d\n", median(t, reps),
		       reps + (cached ? 1 : 0));
	}
	free(ids);
	free(t);
	strbuf_release(&err);
	return bad;
}

/* Cancel every job of IDFILE through slurm_cancel, timed. */
static int
bench_cancel(const char *idfile)
{
	struct strbuf err = STRBUF_INIT;
	struct slurm_conn *c = slurm_open(&err);
	int nids, failed = 0;
	uint32_t *ids = read_ids(idfile, &nids);
	double t0 = now_s();

	for (int i = 0; c && ids && i < nids; i++)
		if (slurm_cancel(c, ids[i], &err) != SLURM_E_OK) {
			fprintf(stderr, "error: %s\n", err.buf);
			failed++;
		}
	printf("slurm_cancel: %d jobs in %.3f s, %d failed\n", nids,
	       now_s() - t0, failed);
	if (c)
		slurm_close(c);
	free(ids);
	strbuf_release(&err);
	return c == NULL || ids == NULL || failed;
}

int
main(int argc, char **argv)
{
	int n;

	if (argc == 5 && !strcmp(argv[1], "submit") &&
	    parse_int(argv[2], &n) == 0 && n > 0)
		return bench_submit(n, argv[3], argv[4]);
	if (argc == 4 && (!strcmp(argv[1], "poll") ||
	                  !strcmp(argv[1], "cached")) &&
	    parse_int(argv[2], &n) == 0 && n > 0)
		return bench_poll(n, argv[3], !strcmp(argv[1], "cached"));
	if (argc == 3 && !strcmp(argv[1], "cancel"))
		return bench_cancel(argv[2]);
	fprintf(stderr, "usage: bench-slurm submit N PREFIX IDFILE\n"
	        "       bench-slurm poll|cached REPS IDFILE\n"
	        "       bench-slurm cancel IDFILE\n");
	return 64; /* EX_USAGE */
}
