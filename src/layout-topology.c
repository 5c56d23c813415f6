/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout-topology.c - the tuning guide's placement rules: where each
 * parallel group of a layout sits among the NVLink domains, and the job
 * segments that keep a domain's GPUs together when a domain spans nodes.
 *
 * Apart from the divisibility rules (layout.c) because these are
 * NVIDIA's advice, not Megatron-LM's refusals: a campaign may relax
 * them.
 */
#include "autoconfig.h"

#include "layout.h"
#include "layout-int.h"

/*
 * Nodes of a job of `nodes` nodes of gpn GPUs that paratune places in
 * one NVLink domain of `domain` GPUs, or 0 when a domain is no wider
 * than a node (nothing to place) or a segment would be one node.  When
 * a domain spans nodes (GB200 and GB300 NVL72: 72 GPUs, 18 trays of
 * 4), the job is placed as NVIDIA's Blackwell performance runs ask
 * Slurm to place it: in segments of the largest number of nodes that
 * divides the job's and fits a domain (sbatch --segment; Megatron-Bridge
 * scripts/performance/utils/executors.py, slurm_executor: 16 trays, 64
 * GPUs, for 64 or 256 GPUs), each segment in one domain.  paratune asks
 * for the same segments when it submits (runner-submit.c), where its
 * libslurm can (24.05 and later); a site places them with topology/block.
 */
int
nvlink_segment_nodes(int nodes, int gpn, int domain)
{
	int trays;

	if (gpn < 1 || domain <= gpn || nodes < 2)
		return 0;
	trays = domain / gpn;
	if (nodes <= trays)
		return nodes;
	for (int seg = trays; seg > 1; seg--)
		if (nodes % seg == 0)
			return seg;
	return 0;
}

/*
 * GPUs of the job that share one NVLink domain: the domain's when it
 * is no wider than a node, else the job's segment of it (the site's
 * --segment, else nvlink_segment_nodes; never more than a domain), or a
 * node's when the job has none.
 */
int
workload_nvlink_segment(const struct workload *w)
{
	int gpn = w->gpus_per_node > 0 ? w->gpus_per_node : 1;
	int domain = w->gpu->nvlink_domain, seg;

	if (domain <= gpn)
		return domain > 0 ? domain : 1;
	if (w->segment_nodes > 0)
		return w->segment_nodes * gpn < domain
		       ? w->segment_nodes * gpn : domain;
	seg = nvlink_segment_nodes(w->nodes, gpn, domain);
	return (seg > 0 ? seg : 1) * gpn;
}

/*
 * Whether every group of size consecutive ranks stays inside one domain
 * of the given size.  Groups start at multiples of their size, so they
 * stay inside when they divide the domain; a job no larger than one
 * domain is inside it whole (its nodes are allocated together).
 */
static bool
inside_domain(long long size, int domain, int world)
{
	if (world <= domain)
		return true;
	return size <= domain && domain % size == 0;
}

/*
 * NVIDIA's performance tuning guide: "the tensor-parallel size should
 * ideally be confined to the high-bandwidth intra-node network (NVLink
 * domain)"; "EP is kept within the high-bandwidth intra-node network";
 * CP helps "when the sequence length ... is significantly larger than
 * the hidden size", and "when the sequence length is smaller than the
 * hidden size, CP produces narrow (or skinny) tensor shards"; on NVL72
 * "choose TP and DP sizes such that the product of TP x DP divides evenly
 * into the NVL72 configuration".  Megatron orders ranks tp, cp, dp, pp
 * from the innermost, and the experts' etp, ep inside tp*cp*dp, so each
 * group is a run of consecutive ranks.
 */
enum layout_rule
layout_topology(const struct workload *w, const struct layout *l,
                unsigned relax)
{
	const struct gpu *g = w->gpu;
	int domain = g->nvlink_domain > 0 ? g->nvlink_domain : 1;
	int world = workload_world(w), block = l->tp * l->cp * l->dp;
	long long experts = layout_mul(layout_etp(l), l->ep);

	if (!(relax & (1u << RELAX_TP_NVLINK)) &&
	    !inside_domain(l->tp, domain, world))
		return RULE_TP_NVLINK;
	if (!(relax & (1u << RELAX_EP_NVLINK)) && l->ep > 1 &&
	    !inside_domain(experts, domain, world))
		return RULE_EP_NVLINK;
	if (!(relax & (1u << RELAX_CP_SEQ)) && l->cp > 1 &&
	    w->seq_length <= w->model->hidden_size)
		return RULE_CP_SEQ;
	/* Only rack-scale domains (GB200 NVL72: 72 GPUs, 4 a node) can put
	 * a node's ranks of one stage in two domains. */
	if (!(relax & (1u << RELAX_NVL72)) && domain > w->gpus_per_node &&
	    world > domain && domain % block != 0 && block % domain != 0)
		return RULE_NVL72;
	return LAYOUT_OK;
}

/* The all-to-all level of a2a+p2p context parallelism (layout.h). */
int
layout_cp_a2a_size(const struct workload *w, const struct layout *l)
{
	int domain = w->gpu->nvlink_domain > 0 ? w->gpu->nvlink_domain : 1;

	for (int size = l->cp; size > 1; size--)
		if (l->cp % size == 0 && l->tp * size <= domain &&
		    layout_a2a_splits_heads(w->model, l->tp, size))
			return size;
	return 1;
}
