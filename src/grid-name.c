/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * grid-name.c - candidate names: NeMo's scheme
 * ({prefix}_tp_N_pp_N_cp_N_ep_N_mbs_N_vp_N_seq_N_gbs_N), extended with a
 * token for each axis the campaign searches, so that two candidates of
 * one campaign never share a name (and so a run directory).
 */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "grid.h"
#include "grid-name.h"

/* A name being built, longer than a candidate's so that overflow shows. */
struct name_buf {
	char s[512];
	size_t n;
};

/* Append a formatted token to a name. */
static void name_add(struct name_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
name_add(struct name_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->n >= sizeof b->s)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
	va_end(ap);
	b->n = n < 0 ? sizeof b->s : b->n + (size_t)n;
}

/* Whether an axis has more than one value, so names must show it. */
static bool
searched(const struct grid_axis *a)
{
	return a->n > 1;
}

/* Short names of FP8 recipes and CP communication types for candidate
 * names, which hold only [A-Za-z0-9._-]. */
static const char *const fp8_short[] = { "dl", "tw", "mx", "bw" };
static const char *const cp_comm_short[] = { "p2p", "ag", "a2a", "a2ap2p" };
static const char *const dispatcher_short[] = { "a2a", "ag", "flex",
                                                "hep" };
/* Recompute modules in enum recompute_module order. */
static const char *const rc_module_short[] = {
	"ca", "ma", "ln", "mla", "mlp", "moe", "se",
};

/* "_rcm_ma.ln": the modules of selective recompute, when searched. */
static void
name_modules(const struct grid_spec *spec, const struct layout *l,
             struct name_buf *b)
{
	unsigned rc = layout_recompute_modules(l);
	char sep = '_';

	if (!searched(&spec->rc_modules) || l->recompute != RECOMPUTE_SELECTIVE)
		return;
	name_add(b, "_rcm");
	for (int i = 0; i < RCM_COUNT; i++)
		if (rc & RCM_BIT(i)) {
			name_add(b, "%c%s", sep, rc_module_short[i]);
			sep = '.';
		}
}

/*
 * The recompute part of a name: "_rc_sel", "_rc_full4" (block, layers
 * recomputed per model chunk), "_rc_unif2" (uniform, layers per run),
 * told from the run (layout_recompute_effective), so that the counts
 * and methods the grid keeps apart have names apart.
 */
static void
name_recompute(const struct grid_spec *spec, const struct workload *w,
               const struct layout *l, struct name_buf *b)
{
	enum recompute_method method;
	int layers;

	if (!searched(&spec->recompute) && !searched(&spec->recompute_layers) &&
	    !searched(&spec->recompute_method))
		return;
	if (l->recompute != RECOMPUTE_FULL) {
		name_add(b, "_rc_%s", recompute_short(l->recompute));
		return;
	}
	layout_recompute_effective(w->model, l, &method, &layers);
	if (method == RECOMPUTE_UNIFORM)
		name_add(b, "_rc_unif%d", layers);
	else
		name_add(b, "_rc_full%d", layers);
}

/* The switches this campaign searches, one token each. */
static void
name_switches(const struct grid_spec *spec, const struct layout *l,
              struct name_buf *b)
{
	if (searched(&spec->etp)) name_add(b, "_etp_%d", layout_etp(l));
	if (searched(&spec->sp)) name_add(b, "_sp_%d", l->sequence_parallel);
	if (searched(&spec->distopt))
		name_add(b, "_do_%d", l->distributed_optimizer);
	if (searched(&spec->attention))
		name_add(b, "_attn_%s", attention_name(l->attention));
	if (searched(&spec->account_embedding))
		name_add(b, "_ae_%d", l->account_embedding);
	if (searched(&spec->account_loss))
		name_add(b, "_al_%d", l->account_loss);
	if (searched(&spec->fp8_recipe))
		name_add(b, "_fp8_%s", fp8_short[l->fp8_recipe]);
	if (searched(&spec->fp8_param_gather))
		name_add(b, "_fpg_%d", l->fp8_param_gather);
	if (searched(&spec->fp8_dpa))
		name_add(b, "_fdpa_%d", l->fp8_dot_product_attention);
	if (searched(&spec->cuda_graphs)) name_add(b, "_cg_%d", l->cuda_graphs);
	if (searched(&spec->graph_full_iter))
		name_add(b, "_cgfi_%d", l->cuda_graph_full_iteration);
	if (searched(&spec->tp_overlap))
		name_add(b, "_tpo_%d", l->tp_comm_overlap);
	if (searched(&spec->ogr))
		name_add(b, "_ogr_%d", l->overlap_grad_reduce);
	if (searched(&spec->opg))
		name_add(b, "_opg_%d", l->overlap_param_gather);
	if (searched(&spec->fsdp)) name_add(b, "_fsdp_%d", l->fsdp);
	if (searched(&spec->grad_bf16))
		name_add(b, "_grb_%d", l->grad_reduce_bf16);
	if (searched(&spec->cp_comm))
		name_add(b, "_cpc_%s", cp_comm_short[l->cp_comm]);
	if (searched(&spec->grouped_gemm))
		name_add(b, "_gg_%d", l->moe_grouped_gemm);
	if (searched(&spec->dispatcher))
		name_add(b, "_disp_%s", dispatcher_short[l->moe_dispatcher]);
	if (searched(&spec->a2a_overlap))
		name_add(b, "_a2ao_%d", l->moe_a2a_overlap);
	if (searched(&spec->offload))
		name_add(b, "_off_%d", l->offload_layers);
	if (searched(&spec->first_layers))
		name_add(b, "_pf_%d", l->first_stage_layers);
	if (searched(&spec->last_layers))
		name_add(b, "_pl_%d", l->last_stage_layers);
	name_modules(spec, l, b);
}

/* FNV-1a, 32 bits (Fowler, Noll, Vo; IETF draft-eastlake-fnv). */
static unsigned
name_hash(const char *s, size_t n)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/* The NeMo naming scheme, extended for the axes this campaign searches. */
static void
name_layout(const struct grid_spec *spec, const struct workload *w,
            const char *prefix, const struct layout *l, struct name_buf *b)
{
	name_add(b, "%s_tp_%d_pp_%d_cp_%d_ep_%d_mbs_%d_vp_", prefix, l->tp,
	         l->pp, l->cp, l->ep, l->mbs);
	if (l->vp > 1)
		name_add(b, "%d", l->vp);
	else
		name_add(b, "None");
	name_add(b, "_seq_%d_gbs_%d", w->seq_length, l->gbs);
	name_recompute(spec, w, l, b);
	name_switches(spec, l, b);
}

/* Give c the name in b.  A name too long for a candidate keeps its
 * head and ends in a hash of the whole, so that names stay unique. */
static void
name_store(struct name_buf *b, struct candidate *c)
{
	size_t keep = sizeof c->name - 11; /* "_h", 8 digits, NUL */

	if (b->n < sizeof c->name) {
		memcpy(c->name, b->s, b->n + 1);
		return;
	}
	if (b->n > sizeof b->s - 1)
		b->n = sizeof b->s - 1;
	memcpy(c->name, b->s, keep);
	snprintf(c->name + keep, sizeof c->name - keep, "_h%08x",
	         name_hash(b->s, b->n));
}

void
candidate_name(const struct grid_spec *spec, const struct workload *w,
               const char *prefix, struct candidate *c)
{
	struct name_buf b = { .n = 0 };

	name_layout(spec, w, prefix, &c->layout, &b);
	name_store(&b, c);
}

/*
 * The base can differ from a candidate of the same sizes only where the
 * names do not look: a switch the campaign sets for the base and does
 * not search (base.cuda_graphs with no search.cuda_graphs).  Its name
 * then ends in "_base", so that the two keep run directories of their
 * own.
 */
void
candidate_name_base(const struct grid_spec *spec, const struct workload *w,
                    const char *prefix, struct candidate *c)
{
	struct name_buf b = { .n = 0 };

	name_layout(spec, w, prefix, &c->layout, &b);
	name_add(&b, "_base");
	name_store(&b, c);
}
