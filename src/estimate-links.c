/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * estimate-links.c - how fast a GPU's links move bytes, for the step
 * time (estimate-time.c, estimate-moe-time.c): HBM, the host link,
 * NVLink inside a domain and the NICs across, as the collectives and
 * all-to-alls of a group of ranks see them.
 */
#include "autoconfig.h"

#include <math.h>

#include "estimate-int.h"

/* Share of link bandwidth NCCL collectives achieve (nccl-tests busbw):
 * comm_eff_nvlink and comm_eff_network of the calibration, hand-set at
 * 0.85 both and shipped so (bench/fit-defaults keeps them).  The expert
 * all-to-alls run at moe_dispatch_eff of that (estimate-moe-time.c;
 * hand-set at 1 and shipped so: fitted to the MoE runs it stays at that
 * bound, bench/fit-defaults). */
/*
 * Host link for activation offloading, from the catalog's host_gbs: PCIe
 * Gen5 x16 moves 64 GB/s each way (PCI-SIG), about 50 GB/s in practice,
 * the share assumed of every link; NVLink-C2C on Grace systems.
 */
#define HOST_LINK_EFF 0.78
#define HOST_LINK_DEFAULT_GBS 64.0

double
estimate_host_bytes_per_s(const struct gpu *g)
{
	return (g->host_gbs > 0 ? g->host_gbs : HOST_LINK_DEFAULT_GBS) * 1e9 *
	       HOST_LINK_EFF;
}

/* HBM bandwidth in bytes/s; catalogs without it get peak/300, the
 * FLOP:byte ratio of the H100 SXM (989 TFLOPS : 3.35 TB/s). */
double
estimate_hbm_bytes_per_s(const struct gpu *g)
{
	if (g->hbm_tbs > 0)
		return g->hbm_tbs * 1e12;
	return g->peak_tflops[PREC_BF16] * 1e12 / 300.0;
}

/*
 * Whether a group of span consecutive ranks lies inside one NVLink
 * domain: ranks fill nodes in order and groups start at multiples of
 * their span, so a group whose span divides the GPUs a domain holds
 * never straddles two.  One that does not divide them straddles some
 * even when it is no wider than a node (4 ranks on nodes of 6: ranks
 * 4-7 sit on two), and the slowest group sets the pace.
 */
static bool
inside_domain(const struct est *x, double span)
{
	/* A rack-scale domain holds the job in segments
	 * (layout-topology.c). */
	double held = workload_nvlink_segment(x->w);

	if (span > held)
		return false;
	return fmod(held, span) == 0;
}

/*
 * GPUs that NCCL sees as one node: a node, or the job's share of a
 * rack-scale NVLink domain (workload_nvlink_segment), which multi-node
 * NVLink makes one NVLink domain to NCCL, its GPUs reaching each other
 * over NVLink and the others over their own NICs.
 */
double
estimate_nccl_node_gpus(const struct est *x)
{
	return fmax(x->w->gpus_per_node, workload_nvlink_segment(x->w));
}

/*
 * Bandwidth per GPU, in bytes/s, of a collective over a group that spans
 * span consecutive ranks with its members stride ranks apart (Megatron
 * orders ranks tp, cp, dp, pp from the innermost; the experts' etp, ep,
 * edp, pp).  Inside an NVLink domain it is NVLink.  Across domains NCCL
 * runs one channel per NIC, so a group with k members in each domain
 * moves data at k NICs' rate, up to NVLink's: on an NVL72 the members in
 * the job's 64-GPU segment, not the 4 of a tray.
 */
double
estimate_group_bw(const struct est *x, double span, double stride)
{
	const struct gpu *g = x->w->gpu;
	double gpn = estimate_nccl_node_gpus(x), k;

	if (inside_domain(x, span))
		return g->nvlink_gbs * 1e9 * x->k[CAL_COMM_EFF_NVLINK];
	k = fmax(1, gpn / stride);
	return fmin(g->nvlink_gbs * x->k[CAL_COMM_EFF_NVLINK],
	            k * g->network_gbs * x->k[CAL_COMM_EFF_NETWORK]) * 1e9;
}

/* Members of a group of n, stride ranks apart, that share one node. */
static double
node_members(const struct est *x, double n, double stride)
{
	return fmin(n, fmax(1, estimate_nccl_node_gpus(x) / stride));
}

/*
 * Time of an all-to-all in which a GPU sends bytes, spread evenly, to
 * the other n - 1 members of a group whose members sit stride ranks
 * apart.  Inside an NVLink domain it is NVLink's.  Across, unlike a
 * ring, no NIC of the node is spare to share the load: every GPU sends
 * at once, so the copies for members on other nodes leave through the
 * GPU's own NIC, those for its own node over NVLink at the same time.
 */
double
estimate_a2a_s(const struct est *x, double bytes, double n, double stride)
{
	const struct gpu *g = x->w->gpu;
	double here, nvl = g->nvlink_gbs * 1e9 * x->k[CAL_COMM_EFF_NVLINK];
	double nic = g->network_gbs * 1e9 * x->k[CAL_COMM_EFF_NETWORK];

	if (n <= 1)
		return 0;
	if (inside_domain(x, n * stride))
		return bytes / nvl;
	here = node_members(x, n, stride);
	return fmax((here - 1) / (n - 1) * bytes / nvl,
	            (n - here) / (n - 1) * bytes / nic);
}

/* Nodes a group of n consecutive ranks spans: 1 inside an NVLink
 * domain. */
double
estimate_group_nodes(const struct est *x, double n)
{
	if (n <= 1 || inside_domain(x, n))
		return 1;
	return n / node_members(x, n, 1);
}

/*
 * A forwarding all-to-all of a group of n consecutive ranks (DeepEP's
 * internode kernels): each GPU sends nic_bytes through its own NIC and
 * forwards nvl_bytes over NVLink at the same time.  Inside an NVLink
 * domain there is no NIC leg.
 */
double
estimate_a2a_nodes_s(const struct est *x, double nic_bytes,
                     double nvl_bytes, double n)
{
	const struct gpu *g = x->w->gpu;
	double nvl = g->nvlink_gbs * 1e9 * x->k[CAL_COMM_EFF_NVLINK];
	double nic = g->network_gbs * 1e9 * x->k[CAL_COMM_EFF_NETWORK];

	if (n <= 1)
		return 0;
	if (inside_domain(x, n))
		return nvl_bytes / nvl;
	return fmax(nvl_bytes / nvl, nic_bytes / nic);
}

/* Ring all-reduce time of bytes over n ranks. */
double
estimate_allreduce_s(double bytes, double n, double bw)
{
	return n > 1 ? 2.0 * (n - 1) / n * bytes / bw : 0;
}
