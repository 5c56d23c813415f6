/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * fuzz-candidates.c - libFuzzer target: the candidates.csv reader on
 * arbitrary bytes.  Either the table loads, every row within the bounds
 * status, results and submit rely on, or it says which line is wrong.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fuzz-put.h"
#include "store-int.h"
#include "strbuf.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
within(int v, int min, int max)
{
	return v >= min && v <= max;
}

/* What a row that loaded must hold, or results would price nonsense
 * and a run directory could be named outside the campaign. */
static void
check_row(const struct candidate_row *r)
{
	const struct layout *l = &r->layout;
	struct strbuf why = STRBUF_INIT;

	if (!candidate_name_ok(r->name, &why) ||
	    !within(l->tp, 1, CONFIG_MAX_PARALLEL) ||
	    !within(l->pp, 1, CONFIG_MAX_PARALLEL) ||
	    !within(l->mbs, 1, CONFIG_MAX_BATCH) ||
	    !within(l->gbs, 1, CONFIG_MAX_BATCH) ||
	    !within(l->dp, 1, CONFIG_MAX_BATCH) ||
	    !isfinite(r->pred_step_s) || r->pred_step_s < 0 ||
	    !isfinite(r->est_memory_gib) || r->est_memory_gib < 0)
		abort();
	strbuf_release(&why);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/paratune-fuzz-XXXXXX";
	struct candidate_table t = { 0 };
	char *path;

	if (mkdtemp(dir) == NULL)
		return 0;
	path = fuzz_put(dir, "candidates.csv", data, size);
	if (store_read_candidates(dir, &t) == 0) {
		if (t.n < 1)
			abort();
		for (int i = 0; i < t.n; i++)
			check_row(&t.v[i]);
	}
	candidate_table_release(&t);
	unlink(path);
	free(path);
	rmdir(dir);
	return 0;
}
