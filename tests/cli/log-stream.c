/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * log-stream.c - write a huge training log to stdout, for the huge-input
 * tests: nothing of it touches the disk.
 *
 *   log-stream megatron MB   Megatron-LM iteration lines, numbered from 1,
 *                            until MB megabytes; prints "lines N" on stderr
 *   log-stream longline MB   one line of MB megabytes, no line break
 *   log-stream junk MB       MB megabytes of pseudo-random bytes
 *
 * The iteration lines are the format Megatron-LM's training_log() prints
 * with --log-interval 1 (see tests/data and the real logs beside the
 * project), with varying step times.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_SIZE (1 << 20)

static int
megatron(unsigned long long bytes)
{
	static char buf[BUF_SIZE];
	unsigned long long written = 0, it = 0;
	size_t len = 0;
	int n;

	while (written + len < bytes) {
		it++;
		n = snprintf(buf + len, BUF_SIZE - len,
		             " [2026-01-01 00:%02llu:%02llu] iteration %8llu/"
		             "100000000 | consumed samples: %12llu | elapsed "
		             "time per iteration (ms): %.1f | learning rate: "
		             "1.000000E-04 | global batch size:   256 | lm loss:"
		             " 7.123456E+00 | loss scale: 1.0 | grad norm: 1.234 "
		             "| number of skipped iterations:   0 | number of "
		             "nan iterations:   0 |\n", it / 60 % 60, it % 60, it,
		             it * 256, 1000.0 + (double)(it % 97));
		if (n < 0)
			return 1;
		len += (size_t)n;
		if (len > BUF_SIZE - 512) {
			if (fwrite(buf, 1, len, stdout) != len)
				return 1;
			written += len;
			len = 0;
		}
	}
	if (len && fwrite(buf, 1, len, stdout) != len)
		return 1;
	fprintf(stderr, "lines %llu\n", it);
	return 0;
}

static int
fill(unsigned long long bytes, int junk)
{
	static unsigned char buf[BUF_SIZE];
	unsigned long long x = 42, left = bytes;

	for (size_t i = 0; i < BUF_SIZE; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = junk ? (unsigned char)(x >> 56) : (unsigned char)'x';
	}
	while (left > 0) {
		size_t n = left < BUF_SIZE ? (size_t)left : BUF_SIZE;

		if (fwrite(buf, 1, n, stdout) != n)
			return 1;
		left -= n;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned long long bytes;

	if (argc != 3) {
		fprintf(stderr, "usage: log-stream megatron|longline|junk MB\n");
		return 64;
	}
	bytes = strtoull(argv[2], NULL, 10) * 1000000ULL;
	if (!strcmp(argv[1], "megatron"))
		return megatron(bytes);
	if (!strcmp(argv[1], "longline"))
		return fill(bytes, 0);
	if (!strcmp(argv[1], "junk"))
		return fill(bytes, 1);
	fprintf(stderr, "log-stream: unknown kind '%s'\n", argv[1]);
	return 64;
}
