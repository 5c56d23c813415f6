/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * bench-logparse.c - how fast 'paratune parse' reads logs, against grep.
 *
 * Writes about MB megabytes of Megatron-LM logs into DIR, as a campaign
 * of ten runs would leave them (one file per run: iteration lines with
 * --log-interval 1, the timers block every 100 iterations, a memory
 * report, NCCL start-up lines and a validation line every 1000
 * iterations), then times in the same run, on the same files, with the
 * page cache warm:
 *
 *   grep -cE 'iteration +[0-9]+/ *[0-9]+ \|.*elapsed time per iteration
 *             \(ms\): [0-9.]+'
 *   paratune parse --format json FILES
 *
 * and prints the best of three wall times of each, their ratio and each
 * one's peak resident memory (wait4's ru_maxrss).  Target: paratune
 * within 2x of grep, and a peak that does not grow with the files.
 *
 * usage: bench-logparse PARATUNE DIR [MB]
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NFILES 10
#define RUNS 3

/* A cheap deterministic generator (Knuth's MMIX LCG). */
static unsigned long long
next_rand(unsigned long long *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

/* The lines a Megatron-LM job prints before training. */
static void
write_preamble(FILE *f)
{
	for (int r = 0; r < 8; r++)
		fprintf(f, "node001:1234:1250 [%d] NCCL INFO Channel 00/32 : "
		        "0 1 2 3 4 5 6 7 via P2P/IPC\n", r);
	fprintf(f, "[after dataloaders are built] datetime: 2024-04-06 "
	        "02:50:00\ndone with setup ...\ntraining ...\n"
	        "[before the start of training step] datetime: 2024-04-06 "
	        "02:50:01\n");
}

/* One iteration line as training.py @d98e8a6 prints it. */
static void
write_iteration(FILE *f, long it, long total, unsigned long long *x)
{
	double ms = 5400 + (double)(next_rand(x) % 4000) / 10;
	double loss = 2.0 + (double)(next_rand(x) % 100000) / 100000;

	fprintf(f, " [2024-04-06 %02ld:%02ld:%02ld.%06llu] iteration %8ld/"
	        "%8ld | consumed samples: %12ld | elapsed time per iteration "
	        "(ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | "
	        "learning rate: %.6E | global batch size:  1024 | lm loss: "
	        "%.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped "
	        "iterations:   0 | number of nan iterations:   0 |\n",
	        (it / 3600) % 24, (it / 60) % 60, it % 60,
	        next_rand(x) % 1000000, it, total, it * 1024, ms,
	        240.0 * 5400 / ms, 3e-4 * (double)it / (double)total, loss,
	        1.0 + (double)(next_rand(x) % 1000) / 1000);
	if (it == 10)
		fprintf(f, "[Rank 0] (after 10 iterations) memory (MB) | "
		        "allocated: 48465.27 | max allocated: 75078.43 | "
		        "reserved: 75682.0 | max reserved: 75682.0\n");
	if (it % 100 == 0)
		fprintf(f, "(min, max) time across ranks (ms):\n"
		        "    forward-backward ...............................: "
		        "(5120.41, 5125.88)\n"
		        "    optimizer ......................................: "
		        "(120.03, 121.77)\n"
		        "    batch-generator ................................: "
		        "(0.61, 0.93)\n");
	if (it % 1000 == 0)
		fprintf(f, " validation loss at iteration %ld | lm loss value: "
		        "%.6E | lm loss PPL: %.6E | \n", it, loss, 7.39 * loss);
}

/* Write the files: mb megabytes in all.  Returns 0 or -1. */
static int
write_logs(const char *dir, long mb, char **paths)
{
	unsigned long long x = 42;

	for (int i = 0; i < NFILES; i++) {
		FILE *f;
		long it = 0, bytes = mb * 1000000 / NFILES;

		if (asprintf(&paths[i], "%s/run%02d.log", dir, i) < 0)
			return -1;
		f = fopen(paths[i], "w");
		if (f == NULL) {
			perror(paths[i]);
			return -1;
		}
		write_preamble(f);
		while (ftell(f) < bytes)
			write_iteration(f, ++it, 300000, &x);
		fprintf(f, "[after training is done] datetime: 2024-04-07 "
		        "10:00:00\n");
		if (fclose(f) != 0)
			return -1;
	}
	return 0;
}

/* Monotonic time in seconds. */
static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Run argv with stdout to the file out; its wall time and peak RSS
 * (KiB).  Not /dev/null: GNU grep sees it and stops at the first match.
 */
static int
run(char **argv, const char *out, double *wall, long *rss_kib)
{
	struct rusage ru;
	double t0 = now_s();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (freopen(out, "w", stdout) == NULL)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	*wall = now_s() - t0;
	*rss_kib = ru.ru_maxrss;
	/* grep -c exits 1 when a file has no match: still a result. */
	return WIFEXITED(status) && WEXITSTATUS(status) <= 1 ? 0 : -1;
}

/* Best wall time of RUNS runs, and the largest peak RSS. */
static int
best_of(char **argv, const char *out, double *wall, long *rss_kib)
{
	*wall = 1e30;
	*rss_kib = 0;
	for (int i = 0; i < RUNS; i++) {
		double w;
		long r;

		if (run(argv, out, &w, &r) != 0) {
			fprintf(stderr, "bench-logparse: '%s' failed\n",
			        argv[0]);
			return -1;
		}
		if (w < *wall)
			*wall = w;
		if (r > *rss_kib)
			*rss_kib = r;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const char pattern[] = "iteration +[0-9]+/ *[0-9]+ \\|.*"
		"elapsed time per iteration \\(ms\\): [0-9.]+";
	char *paths[NFILES], *grep_argv[NFILES + 4], *pt_argv[NFILES + 5];
	char *out;
	long mb = argc > 3 ? atol(argv[3]) : 1000, grep_rss, pt_rss;
	double grep_s, pt_s;

	if (argc < 3 || mb <= 0) {
		fprintf(stderr, "usage: bench-logparse PARATUNE DIR [MB]\n");
		return 64;
	}
	if (write_logs(argv[2], mb, paths) != 0)
		return 74;
	grep_argv[0] = (char *)"grep";
	grep_argv[1] = (char *)"-cE";
	grep_argv[2] = (char *)pattern;
	pt_argv[0] = argv[1];
	pt_argv[1] = (char *)"parse";
	pt_argv[2] = (char *)"--format";
	pt_argv[3] = (char *)"json";
	for (int i = 0; i < NFILES; i++)
		grep_argv[3 + i] = pt_argv[4 + i] = paths[i];
	grep_argv[3 + NFILES] = pt_argv[4 + NFILES] = NULL;
	/* Warm the page cache so that both read from memory. */
	if (asprintf(&out, "%s/out.txt", argv[2]) < 0)
		return 70;
	if (best_of(grep_argv, out, &grep_s, &grep_rss) != 0 ||
	    best_of(pt_argv, out, &pt_s, &pt_rss) != 0 ||
	    best_of(grep_argv, out, &grep_s, &grep_rss) != 0)
		return 70;
	printf("logs:      %ld MB in %d files\n", mb, NFILES);
	printf("grep -cE:  %.3f s  %.0f MB/s  peak RSS %ld KiB\n", grep_s,
	       (double)mb / grep_s, grep_rss);
	printf("paratune:  %.3f s  %.0f MB/s  peak RSS %ld KiB\n", pt_s,
	       (double)mb / pt_s, pt_rss);
	printf("ratio:     %.2f (paratune / grep; target <= 2)\n",
	       pt_s / grep_s);
	for (int i = 0; i < NFILES; i++)
		free(paths[i]);
	unlink(out);
	free(out);
	return 0;
}
