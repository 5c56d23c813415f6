/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * fuzz-measured.c - libFuzzer target: the measured-runs CSV reader of
 * `paratune calibrate` on arbitrary bytes, beside one small campaign
 * file (c.conf) that rows may name.  Either the rows load, each with a
 * positive step time and its FILE:LINE, or the reader returns an exit
 * code after its error; nothing else may happen.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-calibrate.h"
#include "error.h"
#include "fuzz-put.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The campaign rows name as "c.conf": a one-node grid of a few
 * layouts, so that a row's plan is quick to build. */
static const char campaign[] =
	"name = \"fuzz\";\n"
	"model = \"llama3_8b\";\n"
	"nodes = 1;\n"
	"gpus_per_node = 8;\n"
	"gpu = \"h100-sxm\";\n"
	"seq_length = 4096;\n"
	"global_batch_size = 64;\n"
	"precision = \"bf16\";\n"
	"search = { tensor_parallel = [1, 2]; micro_batch_size = [1]; };\n"
	"run = { template = \"simulated\"; };\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/paratune-fuzz-XXXXXX";
	struct plan_opts po = { NULL, true, false, false };
	struct calib_input in;
	char *csv, *conf;
	int ret;

	if (mkdtemp(dir) == NULL)
		return 0;
	csv = fuzz_put(dir, "runs.csv", data, size);
	conf = fuzz_put(dir, "c.conf", campaign, sizeof campaign - 1);
	memset(&in, 0, sizeof in);
	ret = calib_read_csv(&in, csv, &po, NULL);
	if (ret != 0 && (ret < 64 || ret > 78))
		abort();
	for (int i = 0; i < in.n; i++)
		if (!(in.rows[i].step_s > 0) || !isfinite(in.rows[i].step_s) ||
		    in.rows[i].where == NULL || in.gpu[i] == NULL)
			abort();
	calib_input_release(&in);
	unlink(csv);
	unlink(conf);
	rmdir(dir);
	free(csv);
	free(conf);
	return 0;
}
