/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * fuzz-logparse.c - libFuzzer target: the log reader and failure
 * classifier on arbitrary bytes.  Whatever the input, it must not crash,
 * leak or read out of bounds, every step it reports must lie within
 * the input's lines, and the steps measured must add up.
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdlib.h>

#include "logparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The ramp-up's, the warm-up's and the measured steps are the timed
 * ones; the line of the last global batch size is a step's. */
static void
step_stats_sane(const struct log_result *r)
{
	struct log_step_stats st;
	long timed = 0;

	for (size_t i = 0; i < r->nsteps; i++)
		timed += r->steps[i].step_time_s == r->steps[i].step_time_s;
	log_result_step_stats(r, -1, &st);
	if (st.ramp_up + st.timed != timed || st.ramp_up < 0 ||
	    st.skipped + st.measured != st.timed || st.gbs < 0 ||
	    (st.gbs > 0) != (st.gbs_line > 0))
		abort();
}

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
		if (r.steps[i].line < 1 || r.steps[i].line > lines ||
		    r.steps[i].gbs < 0)
			abort();
	step_stats_sane(&r);
	log_result_release(&r);
	return 0;
}
