/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * fuzz-logparse.c - libFuzzer target: the log reader and failure
 * classifier on arbitrary bytes.  Whatever the input, it must not crash,
 * leak or read out of bounds, and every step it reports must lie within
 * the input's lines.
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdlib.h>

#include "logparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Compiling the patterns per input would hide the reader's cost;
	 * the fuzzer process owns this one parser for its lifetime. */
	static struct logparse lp;
	static int ready;
	struct log_result r;
	long lines = 1;

	if (!ready) {
		logparse_init(&lp);
		ready = 1;
	}
	logparse_buffer(&lp, data, size, "fuzz", &r);
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	for (size_t i = 0; i < r.nsteps; i++)
		if (r.steps[i].line < 1 || r.steps[i].line > lines)
			abort();
	log_result_release(&r);
	return 0;
}
