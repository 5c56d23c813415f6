/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-gpu.c - the gpus key, which adds entries to the GPU catalog or
 * overrides them field by field, and the campaign's GPU resolved from
 * that catalog.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "config-int.h"
#include "error.h"
#include "util.h"
#include "xalloc.h"

/* ---- catalog entries --------------------------------------------------- */

/*
 * A new catalog entry must say what the estimator needs.  FP16 defaults
 * to the BF16 rate and TF32 to half of it, as on A100 and H100 (NVIDIA
 * A100 datasheet: 312/312/156 TFLOPS dense; H100 SXM: 989/989/495).
 */
static int
gpu_complete(struct loader *ld, const struct config_key *k,
             const config_setting_t *e, struct gpu *g)
{
	static const char *const required[] = {
		"memory_gib", "bf16_tflops", "nvlink_domain", "nvlink_gbs",
		"network_gbs", NULL,
	};

	for (int i = 0; required[i]; i++)
		if (!config_has_member(e, required[i]))
			return config_key_error(ld, e, k, "new GPU '%s' needs "
			                        "'%s'", g->name, required[i]);
	if (!config_has_member(e, "fp16_tflops"))
		g->peak_tflops[PREC_FP16] = g->peak_tflops[PREC_BF16];
	if (!config_has_member(e, "fp32_tflops"))
		g->peak_tflops[PREC_FP32] = g->peak_tflops[PREC_BF16] / 2;
	return 0;
}

/* One gpus entry: overrides the named catalog entry field by field, or
 * adds a new one. */
static int
apply_gpu_entry(struct loader *ld, const struct config_key *k,
                const config_setting_t *e)
{
	struct settings *c = ld->c;
	const struct gpu *old;
	const char *name;
	struct gpu g;

	if (!config_setting_is_group(e))
		return config_key_error(ld, e, k, "each entry is a group "
		                        "{ name = ...; ... }, not %s",
		                        config_kind_name(e));
	if (!config_setting_lookup_string(e, "name", &name))
		return config_key_error(ld, e, k, "each entry needs a name");
	old = gpu_catalog_find(&c->gpus, name);
	if (old)
		g = *old;
	else
		memset(&g, 0, sizeof g);
	if (config_apply_members(ld, e, "gpus", IN_GPU, &g) != 0)
		return -1;
	if (!config_valid_name(g.name))
		return config_key_error(ld, e, k, "'%s' is not a valid GPU "
		                        "name", g.name);
	if (!old && gpu_complete(ld, k, e, &g) != 0)
		return -1;
	gpu_catalog_put(&c->gpus, &g);
	if (str_list_find(&c->gpus_set, g.name) < 0)
		str_list_push(&c->gpus_set, g.name);
	return 0;
}

/* gpus = ( { ... }, ... ): catalog additions and overrides. */
int
config_apply_gpus(struct loader *ld, const struct config_key *k,
                  const config_setting_t *s)
{
	if (config_setting_is_group(s))
		return apply_gpu_entry(ld, k, s);
	if (!config_is_list(s))
		return config_key_error(ld, s, k, "expects a list of groups: "
		                        "gpus = ( { name = \"...\"; ... } ), "
		                        "not %s", config_kind_name(s));
	return config_apply_entries(ld, k, s, "GPU", apply_gpu_entry);
}

/* ---- the campaign's GPU ------------------------------------------------ */

void
config_suggest_gpu(const struct settings *c, const char *name,
                   struct strbuf *sb)
{
	const char **names = xcalloc(c->gpus.n + 1, sizeof(*names));

	for (size_t i = 0; i < c->gpus.n; i++)
		names[i] = c->gpus.v[i].name;
	config_suggest_names(sb, name, names, (int)c->gpus.n);
	free(names);
}

/* Copy the campaign's GPU from the catalog, with memory.gpu_memory_gb. */
int
config_resolve_gpu(struct settings *c, const struct config_sources *src)
{
	const struct gpu *g;

	if (c->gpu_name == NULL) {
		if (src->campaign_path)
			return error("%s: key 'gpu' is not set (a name from "
			             "'paratune gpus', such as \"h100-sxm\")",
			             src->campaign_path);
		return 0;
	}
	g = gpu_catalog_find(&c->gpus, c->gpu_name);
	if (g == NULL) {
		struct strbuf hint = STRBUF_INIT;
		char q[QUOTE_CUT_SIZE];
		int ret;

		config_suggest_gpu(c, c->gpu_name, &hint);
		ret = config_origin_error(c, "gpu", "unknown GPU %s%s; "
		                          "'paratune gpus' lists the catalog",
		                          quote_cut(c->gpu_name, q), hint.buf);
		strbuf_release(&hint);
		return ret;
	}
	c->gpu = *g;
	if (c->memory.gpu_memory_gb > 0)
		c->gpu.memory_gib = c->memory.gpu_memory_gb;
	if (!(g->peak_tflops[c->precision] > 0)) {
		const char *prec = config_precision_names[c->precision];

		return config_origin_error(c, "precision", "GPU '%s' has no "
		                           "%s peak in the catalog", g->name,
		                           prec);
	}
	return 0;
}
