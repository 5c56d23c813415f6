/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout-same.c - when two layouts are one configuration, and when they
 * are one run: equal but for how full recompute's count and method or
 * selective recompute's modules are spelled.  The grid keeps one of
 * each run.
 */
#include "autoconfig.h"

#include "layout.h"

bool
layout_recompute_same(const struct model *m, const struct layout *a,
                      const struct layout *b)
{
	enum recompute_method ma, mb;
	int na, nb;

	if (a->recompute != b->recompute)
		return false;
	if (a->recompute == RECOMPUTE_SELECTIVE)
		return layout_recompute_modules(a) ==
		       layout_recompute_modules(b);
	if (a->recompute != RECOMPUTE_FULL)
		return true;
	layout_recompute_effective(m, a, &ma, &na);
	layout_recompute_effective(m, b, &mb, &nb);
	return ma == mb && na == nb;
}

bool
layout_equal(const struct layout *a, const struct layout *b)
{
	return a->tp == b->tp && a->pp == b->pp && a->cp == b->cp &&
	       a->ep == b->ep && layout_etp(a) == layout_etp(b) &&
	       a->vp == b->vp && a->mbs == b->mbs && a->gbs == b->gbs &&
	       a->recompute == b->recompute &&
	       a->recompute_layers == b->recompute_layers &&
	       a->recompute_method == b->recompute_method &&
	       a->recompute_modules == b->recompute_modules &&
	       a->sequence_parallel == b->sequence_parallel &&
	       a->distributed_optimizer == b->distributed_optimizer &&
	       a->attention == b->attention &&
	       a->account_embedding == b->account_embedding &&
	       a->account_loss == b->account_loss &&
	       a->first_stage_layers == b->first_stage_layers &&
	       a->last_stage_layers == b->last_stage_layers &&
	       a->pipeline_layout == b->pipeline_layout &&
	       a->fp8_recipe == b->fp8_recipe &&
	       a->fp8_param_gather == b->fp8_param_gather &&
	       a->fp8_dot_product_attention == b->fp8_dot_product_attention &&
	       a->cuda_graphs == b->cuda_graphs &&
	       a->tp_comm_overlap == b->tp_comm_overlap &&
	       a->overlap_grad_reduce == b->overlap_grad_reduce &&
	       a->overlap_param_gather == b->overlap_param_gather &&
	       a->grad_reduce_bf16 == b->grad_reduce_bf16 &&
	       a->fsdp == b->fsdp && a->cp_comm == b->cp_comm &&
	       a->moe_grouped_gemm == b->moe_grouped_gemm &&
	       a->moe_dispatcher == b->moe_dispatcher &&
	       a->moe_a2a_overlap == b->moe_a2a_overlap &&
	       a->cuda_graph_full_iteration == b->cuda_graph_full_iteration &&
	       a->offload_layers == b->offload_layers;
}

bool
layout_same_run(const struct model *m, const struct layout *a,
                const struct layout *b)
{
	struct layout x = *b;

	if (!layout_recompute_same(m, a, b))
		return false;
	/* Spelled as a spells it, the rest must be equal. */
	x.recompute_layers = a->recompute_layers;
	x.recompute_method = a->recompute_method;
	x.recompute_modules = a->recompute_modules;
	return layout_equal(a, &x);
}
