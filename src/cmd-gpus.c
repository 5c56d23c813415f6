/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-gpus.c - 'paratune gpus': the GPU catalog, built-in entries with
 * the site file's additions and overrides, as a table or as JSON.
 */
#include "autoconfig.h"

#include <stdio.h>

#include "cmd.h"
#include "config.h"
#include "error.h"
#include "gpu.h"
#include "json.h"
#include "table.h"

extern const struct cmd_entry cmd_gpus_entry;

/* A throughput cell: "-" where the precision is not supported. */
static void
gpus_add_tflops(struct table *t, double tflops)
{
	if (tflops > 0)
		table_add(t, "%.1f", tflops);
	else
		table_add(t, "-");
}

/* One table row per GPU, then the units. */
static void
gpus_table(FILE *f, const struct gpu_catalog *cat)
{
	static const char *const cols[] = { "name", ">mem_gib", ">bf16",
		">fp8", ">fp4", ">fp16", ">tf32", ">nvl_domain", ">nvl_gbs",
		">net_gbs", ">hbm_tbs", ">cc", "description", NULL };
	struct table t;

	table_init(&t, cols);
	for (size_t i = 0; i < cat->n; i++) {
		const struct gpu *g = &cat->v[i];

		table_add(&t, "%s", g->name);
		table_add(&t, "%.1f", g->memory_gib);
		gpus_add_tflops(&t, g->peak_tflops[PREC_BF16]);
		gpus_add_tflops(&t, g->peak_tflops[PREC_FP8]);
		gpus_add_tflops(&t, g->peak_tflops[PREC_FP4]);
		gpus_add_tflops(&t, g->peak_tflops[PREC_FP16]);
		gpus_add_tflops(&t, g->peak_tflops[PREC_FP32]);
		table_add(&t, "%d", g->nvlink_domain);
		table_add(&t, "%g", g->nvlink_gbs);
		table_add(&t, "%g", g->network_gbs);
		if (g->hbm_tbs > 0)
			table_add(&t, "%g", g->hbm_tbs);
		else
			table_add(&t, "-");
		if (g->compute_capability > 0)
			table_add(&t, "%.1f", g->compute_capability);
		else
			table_add(&t, "-");
		table_add(&t, "%s", g->description);
	}
	table_print(&t, f);
	table_release(&t);
	fprintf(f, "\nTFLOPS are dense tensor-core peaks (tf32 for fp32); "
	        "GB/s per GPU, one direction; cc: CUDA compute "
	        "capability.\n");
}

/* Keys as the site file spells them (gpus = ( { ... } )). */
static void
gpus_json(FILE *f, const struct gpu_catalog *cat)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb, true);
	json_begin_array(&j, NULL);
	for (size_t i = 0; i < cat->n; i++) {
		const struct gpu *g = &cat->v[i];

		json_begin_object(&j, NULL);
		json_string(&j, "name", g->name);
		json_string(&j, "description", g->description);
		json_number(&j, "memory_gib", g->memory_gib);
		json_number(&j, "bf16_tflops", g->peak_tflops[PREC_BF16]);
		json_number(&j, "fp8_tflops", g->peak_tflops[PREC_FP8]);
		json_number(&j, "fp4_tflops", g->peak_tflops[PREC_FP4]);
		json_number(&j, "fp16_tflops", g->peak_tflops[PREC_FP16]);
		json_number(&j, "fp32_tflops", g->peak_tflops[PREC_FP32]);
		json_int(&j, "nvlink_domain", g->nvlink_domain);
		json_number(&j, "nvlink_gbs", g->nvlink_gbs);
		json_number(&j, "network_gbs", g->network_gbs);
		json_number(&j, "hbm_tbs", g->hbm_tbs);
		json_number(&j, "host_gbs", g->host_gbs);
		json_number(&j, "compute_capability", g->compute_capability);
		json_end_object(&j);
	}
	json_end_array(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

/* paratune gpus [--format FMT]. */
static int
cmd_gpus_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		OPT_FORMAT_(NULL),
		OPT_FINISH,
	};
	struct settings c;
	int status;

	if (cmd_parse_args(ctx, &cmd_gpus_entry, opts, argc, argv, 0, 0,
	                   &status) < 0)
		return status;
	/* The site and user files may add GPUs or change built-in ones. */
	status = settings_load_for(&c, ctx->site_path, NULL, NULL);
	if (status == EXIT_OK && ctx->format == FORMAT_JSON)
		gpus_json(ctx->out, &c.gpus);
	else if (status == EXIT_OK)
		gpus_table(ctx->out, &c.gpus);
	settings_release(&c);
	return status;
}

const struct cmd_entry cmd_gpus_entry = {
	"gpus", NULL, NULL,
	"list the GPU catalog: memory, peak TFLOPS, NVLink and network",
	cmd_gpus_exec,
	NULL,
};
