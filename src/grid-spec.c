/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * grid-spec.c - a campaign's search section expanded into the value
 * lists the grid walks (grid_spec_init): "auto" resolved from the
 * model, NeMo's heuristics or the fine-tuning rules, the switches'
 * lists, and the notes that say what was chosen.
 */
#include "autoconfig.h"

#include <string.h>

#include "error.h"
#include "grid.h"
#include "nemo-heuristics.h"

static void
axis_push(struct grid_axis *a, int v)
{
	for (int i = 0; i < a->n; i++)
		if (a->v[i] == v)
			return;
	if (a->n < GRID_LIST_MAX)
		a->v[a->n++] = v;
	else
		a->dropped++;
}

/* Empty a, and its count of values left out. */
static void
axis_clear(struct grid_axis *a)
{
	a->n = 0;
	a->dropped = 0;
}

static void
axis_from_list(struct grid_axis *a, const struct int_list *l)
{
	axis_clear(a);
	for (int i = 0; i < l->n; i++)
		axis_push(a, l->v[i]);
}

/* The list, or 0 alone when it is empty or "auto". */
static void
axis_from_list_or_0(struct grid_axis *a, const struct int_list *l)
{
	if (l->is_auto || l->n == 0)
		axis_push(a, 0);
	else
		axis_from_list(a, l);
}

/* Every divisor of n not above limit, ascending. */
static void
axis_divisors(struct grid_axis *a, int n, int limit)
{
	axis_clear(a);
	for (int d = 1; d <= n && d <= limit; d++)
		if (n % d == 0)
			axis_push(a, d);
}

/*
 * Virtual stages that can split layers L over some pipeline: the
 * divisors of L, and of L + 1 and L + 2 (the embedding and the loss
 * counted as layers), up to L.  Llama 3.1 405B's 126 layers run in
 * NVIDIA's recipes as 128 over pp 8 with vp 4 or 8, and Qwen3
 * 235B-A22B's 94 as 96 over pp 4 with vp 12; 126's and 94's own
 * divisors have neither.
 */
static void
axis_split_divisors(struct grid_axis *a, int layers, bool layouts)
{
	axis_clear(a);
	for (int d = 1; d <= layers; d++)
		if (layout_divides_split(layers, d) ||
		    (layouts && (d == 2 || d == 4 || d == 8)))
			axis_push(a, d);
}

static void
axis_from_bits(struct grid_axis *a, unsigned bits, int nvalues)
{
	axis_clear(a);
	for (int i = 0; i < nvalues; i++)
		if (bits & BIT(i))
			axis_push(a, i);
}

/* Whether no configuration layer lists either stage layer count (the
 * built-in [0] stands): each pp then gets its own (layout_auto_stages). */
static bool
stages_auto(const struct settings *c)
{
	return !settings_origin(c,
	                        "search.decoder_first_pipeline_num_layers") &&
	       !settings_origin(c, "search.decoder_last_pipeline_num_layers");
}

/*
 * Whether some pipeline of the model takes uneven stage counts and may
 * take a pipeline layout instead (grid.c, auto_pipeline_layout): its
 * counts automatic, a core that takes one (layout_core_auto_vstages).
 * Then vp "auto" searches 2, 4 and 8 too, the virtual stages NVIDIA's
 * DeepSeek-V3 recipes give its 61 layers (pp 8 vp 2 on B200 and B300,
 * pp 8 vp 4 on H100, pp 4 vp 4 on GB200, pp 2 vp 8 on GB300), which no
 * split of 61, 62 or 63 layers has.
 */
static bool
vstage_layouts(const struct settings *c)
{
	struct layout l;

	if (!stages_auto(c) ||
	    !layout_core_auto_vstages(settings_template_core(c)))
		return false;
	memset(&l, 0, sizeof(l));
	l.vp = 1;
	for (l.pp = 2; l.pp <= c->model.num_layers; l.pp++) {
		layout_auto_stages(&c->model, &l);
		if (layout_uneven(&l))
			return true;
	}
	return false;
}

/* Whether pp stages split the layers with a first and last stage
 * count the campaign lists (DeepSeek-V3's 61 layers over 16), or, where
 * it lists none, with the counts layout_auto_stages gives. */
static bool
uneven_splits(const struct settings *c, int pp, int world)
{
	const struct int_list *f = &c->search.first_stage_layers;
	const struct int_list *z = &c->search.last_stage_layers;
	struct layout l;

	if (world % pp != 0)
		return false; /* tp * pp * cp must divide the GPUs */
	memset(&l, 0, sizeof(l));
	l.pp = pp;
	l.vp = 1;
	if (stages_auto(c)) {
		layout_auto_stages(&c->model, &l);
		return layout_uneven(&l) &&
		       layout_split_rule(&c->model, &l) == LAYOUT_OK;
	}
	for (int i = 0; i < (f->is_auto ? 0 : f->n); i++)
		for (int j = 0; j < (z->is_auto ? 0 : z->n); j++) {
			l.first_stage_layers = f->v[i];
			l.last_stage_layers = z->v[j];
			if (pp > 1 && layout_uneven(&l) &&
			    layout_split_rule(&c->model, &l) == LAYOUT_OK)
				return true;
		}
	return false;
}

/* "auto" for the parallel sizes under paratune's own heuristics: every
 * value that can be valid, for each axis no list or table filled. */
static void
spec_auto_model(struct grid_spec *spec, const struct settings *c)
{
	const struct model *m = &c->model;
	int world = c->nodes * c->gpus_per_node;
	int domain = c->gpu.nvlink_domain > 0 ? c->gpu.nvlink_domain : 1;
	int tp_max = domain < c->gpus_per_node ? domain : c->gpus_per_node;

	/* TP stays inside one NVLink domain (tuning guide). */
	if (spec->tp.n == 0)
		for (int t = 1; t <= tp_max && t <= world; t++)
			axis_push(&spec->tp, t);
	/* PP: the divisors of the layers, and of the layers plus the
	 * embedding and the loss counted as layers (account_for_*), so
	 * that 126 layers (Llama 3.1 405B) split over 4, 8 or 16 stages. */
	if (spec->pp.n == 0)
		for (int d = 1; d <= world && d <= m->num_layers + 2; d++)
			if (layout_divides_split(m->num_layers, d) ||
			    uneven_splits(c, d, world))
				axis_push(&spec->pp, d);
	/* CP: powers of two dividing seq/2 (the ring splits 2*cp chunks)
	 * that leave each rank at least 2048 tokens, the fewest NVIDIA's
	 * NeMo recipes give one: cp 2 at sequence 4096 (Nemotron-4 340B,
	 * Mixtral 8x22B, Qwen3 235B-A22B, Mistral 7B), cp 4 at 8192
	 * (Llama 3.1 405B) [NeMo nemo/collections/llm/recipes@8cfedd7]. */
	if (spec->cp.n == 0)
		for (int k = 1; k <= 32 && k <= world; k *= 2)
			if (k == 1 || (c->seq_length % (2 * k) == 0 &&
			               c->seq_length / k >= 2048))
				axis_push(&spec->cp, k);
	if (spec->ep.n == 0)
		axis_divisors(&spec->ep,
		              m->num_experts > 0 ? m->num_experts : 1, world);
	/* ETP: 0, tp's own size (Megatron-LM's default), and on an MoE
	 * model 1 too, the experts unsplit beside tp > 1, as NVIDIA's NeMo
	 * recipes run Qwen3 (tp 4, ep 4 and 8; NeMo
	 * nemo/collections/llm/recipes/qwen3.py, expert_tensor_parallel_size
	 * 1); at tp 1 it is the default's layout again (RULE_ETP_TP). */
	if (spec->etp.n == 0) {
		axis_push(&spec->etp, 0);
		if (m->num_experts > 0)
			axis_push(&spec->etp, 1);
	}
	/* NeMo's default micro-batch list, a good spread for any size. */
	if (spec->mbs.n == 0)
		for (int b = 1; b <= 8; b *= 2)
			axis_push(&spec->mbs, b);
}

/* "auto" under NeMo's tables; explicit lists still win. */
static int
spec_auto_nemo(struct grid_spec *spec, const struct settings *c,
               struct strbuf *notes)
{
	struct nemo_search ns;
	double size_b = model_params(&c->model) / 1e9;

	if (nemo_search_space(&c->model, size_b, c->seq_length,
	                      c->gpu.memory_gib, &ns) != 0)
		return error("search.heuristics 'nemo': %s", ns.note);
	if (ns.note[0])
		strbuf_addf(notes, "warning: %s\n", ns.note);
	if (c->search.pp.is_auto && ns.npp == 0)
		strbuf_addf(notes, "warning: NeMo's pipeline range for this "
		            "size holds no divisor of %d layers: no candidate "
		            "can be valid\n", c->model.num_layers);
	if (c->search.tp.is_auto)
		for (int i = 0; i < ns.ntp; i++)
			axis_push(&spec->tp, ns.tp[i]);
	if (c->search.pp.is_auto)
		for (int i = 0; i < ns.npp; i++)
			axis_push(&spec->pp, ns.pp[i]);
	if (c->search.mbs.is_auto)
		for (int i = 0; i < ns.nmbs; i++)
			axis_push(&spec->mbs, ns.mbs[i]);
	if (c->global_batch_size.is_auto)
		axis_push(&spec->gbs, ns.gbs);
	/* NeMo's tables have no CP, EP or ETP: its default lists, [1],
	 * and ETP at tp's own size. */
	if (spec->cp.n == 0)
		axis_push(&spec->cp, 1);
	if (spec->ep.n == 0)
		axis_push(&spec->ep, 1);
	if (spec->etp.n == 0)
		axis_push(&spec->etp, 0);
	/* The campaign's bounds narrow the table's; they never widen it.
	 * Fine-tuning has no table bounds (spec_finetune_mp). */
	if (c->mode == MODE_FINETUNE)
		return 0;
	if (ns.min_mp > spec->min_mp)
		spec->min_mp = ns.min_mp;
	if (ns.max_mp < spec->max_mp)
		spec->max_mp = ns.max_mp;
	return 0;
}

/*
 * NeMo's bounds for fine-tuning: from the searched tp, pp and cp lists
 * and the GPU count, not the pretraining table's; bounds the campaign
 * sets itself narrow them, its built-in defaults do not.
 */
static void
spec_finetune_mp(struct grid_spec *spec, const struct settings *c)
{
	const struct nemo_list lists[] = {
		{ spec->tp.v, spec->tp.n },
		{ spec->pp.v, spec->pp.n },
		{ spec->cp.v, spec->cp.n },
	};
	int lo, hi;

	nemo_finetune_mp(lists, 3, c->nodes * c->gpus_per_node, &lo, &hi);
	spec->min_mp = lo;
	spec->max_mp = hi;
	if (settings_origin(c, "search.min_model_parallel") &&
	    c->search.min_model_parallel > lo)
		spec->min_mp = c->search.min_model_parallel;
	if (settings_origin(c, "search.max_model_parallel") &&
	    c->search.max_model_parallel < hi)
		spec->max_mp = c->search.max_model_parallel;
}

/* A global batch size for "auto": NeMo's table value for the size. */
static int
auto_gbs(const struct settings *c)
{
	struct nemo_search ns;

	if (nemo_search_space(&c->model, model_params(&c->model) / 1e9,
	                      c->seq_length, c->gpu.memory_gib, &ns) == 0 &&
	    ns.gbs > 0)
		return ns.gbs;
	return 1024; /* NeMo 2.0's GPT class default */
}

/* A boolean axis from a bit set: BIT(0) off, BIT(1) on; dflt when 0. */
static void
axis_bools(struct grid_axis *a, unsigned bits, unsigned dflt)
{
	axis_from_bits(a, bits ? bits : dflt, 2);
}

/* The MoE switches of search: on a dense model, each axis holds its
 * default alone. */
static void
spec_moe_switches(struct grid_spec *spec, const struct settings *c)
{
	const struct search_space *s = &c->search;

	axis_bools(&spec->grouped_gemm, s->moe_grouped_gemm, BIT(1));
	axis_from_bits(&spec->dispatcher, s->moe_dispatcher ? s->moe_dispatcher
	               : BIT(MOE_DISPATCH_ALLTOALL), MOE_DISPATCH_HYBRIDEP + 1);
	axis_bools(&spec->a2a_overlap, s->moe_a2a_overlap, BIT(0));
	/* A dense model has no experts for these to change: each axis holds
	 * its default alone, the base's too (grid_add_base). */
	if (c->model.num_experts == 0) {
		spec->grouped_gemm.n = spec->dispatcher.n = 1;
		spec->grouped_gemm.v[0] = 1;
		spec->dispatcher.v[0] = MOE_DISPATCH_ALLTOALL;
		spec->a2a_overlap.n = 1;
		spec->a2a_overlap.v[0] = 0;
	}
}

/* The tuning guide's switches; the MoE ones, which only matter with
 * experts, through spec_moe_switches. */
static void
spec_switches(struct grid_spec *spec, const struct settings *c)
{
	const struct search_space *s = &c->search;

	/* Unset: what the pipeline split needs (account_flags). */
	if (s->account_embedding == 0)
		axis_push(&spec->account_embedding, -1);
	else
		axis_from_bits(&spec->account_embedding,
		               s->account_embedding, 2);
	if (s->account_loss == 0)
		axis_push(&spec->account_loss, -1);
	else
		axis_from_bits(&spec->account_loss, s->account_loss, 2);
	axis_from_bits(&spec->recompute_method, s->recompute_method
	               ? s->recompute_method : BIT(RECOMPUTE_BLOCK), 2);
	spec->rc_modules.n = 0;
	for (int i = 0; i < s->recompute_modules.n; i++)
		axis_push(&spec->rc_modules, (int)layout_modules_canonical(
			(unsigned)s->recompute_modules.v[i]));
	if (spec->rc_modules.n == 0)
		axis_push(&spec->rc_modules, 0);
	axis_bools(&spec->fsdp, s->fsdp, BIT(0));
	axis_bools(&spec->ogr, s->overlap_grad_reduce, BIT(1));
	axis_bools(&spec->grad_bf16, s->grad_reduce_bf16, BIT(0));
	if (s->overlap_param_gather == 0)
		axis_push(&spec->opg, -1);
	else
		axis_from_bits(&spec->opg, s->overlap_param_gather, 2);
	if (s->offload_layers.is_auto || s->offload_layers.n == 0)
		axis_push(&spec->offload, 0);
	else
		axis_from_list(&spec->offload, &s->offload_layers);
	if (stages_auto(c)) {
		axis_push(&spec->first_layers, GRID_STAGES_AUTO);
		axis_push(&spec->last_layers, GRID_STAGES_AUTO);
	} else {
		axis_from_list_or_0(&spec->first_layers,
		                    &s->first_stage_layers);
		axis_from_list_or_0(&spec->last_layers, &s->last_stage_layers);
	}
	axis_bools(&spec->tp_overlap, s->tp_comm_overlap, BIT(0));
	axis_bools(&spec->cuda_graphs, s->cuda_graphs, BIT(0));
	axis_bools(&spec->graph_full_iter, s->cuda_graph_full_iteration,
	           BIT(0));
	axis_from_bits(&spec->fp8_recipe, s->fp8_recipe ? s->fp8_recipe
	               : BIT(FP8_DELAYED), 4);
	axis_bools(&spec->fp8_param_gather, s->fp8_param_gather, BIT(0));
	axis_bools(&spec->fp8_dpa, s->fp8_dot_product_attention, BIT(0));
	axis_from_bits(&spec->cp_comm, s->cp_comm_type ? s->cp_comm_type
	               : BIT(CP_COMM_P2P), 4);
	spec_moe_switches(spec, c);
	spec->relax = s->relax;
	spec->max_bubble = s->max_bubble_ratio;
	spec->max_unbalance = s->max_unbalance_ratio;
}

static void
spec_lists(struct grid_spec *spec, const struct settings *c)
{
	const struct search_space *s = &c->search;

	if (!s->tp.is_auto) axis_from_list(&spec->tp, &s->tp);
	if (!s->pp.is_auto) axis_from_list(&spec->pp, &s->pp);
	if (!s->cp.is_auto) axis_from_list(&spec->cp, &s->cp);
	if (!s->ep.is_auto) axis_from_list(&spec->ep, &s->ep);
	if (!s->mbs.is_auto) axis_from_list(&spec->mbs, &s->mbs);
	if (!c->global_batch_size.is_auto)
		axis_from_list(&spec->gbs, &c->global_batch_size);
	if (!s->etp.is_auto)
		axis_from_list(&spec->etp, &s->etp);
	/* ETP splits experts: a dense model keeps tp's own (0), as its
	 * base does, whatever a shared campaign file lists. */
	if (c->model.num_experts == 0) {
		spec->etp.n = 1;
		spec->etp.v[0] = 0;
	}
	if (s->recompute_layers.is_auto)
		axis_push(&spec->recompute_layers, 0);
	else
		axis_from_list(&spec->recompute_layers, &s->recompute_layers);
	axis_from_bits(&spec->recompute, s->recompute ? s->recompute
	               : BIT(RECOMPUTE_SELECTIVE), 3);
	if (s->sequence_parallel == 0)
		axis_push(&spec->sp, -1);
	else
		axis_from_bits(&spec->sp, s->sequence_parallel, 2);
	axis_from_bits(&spec->distopt, s->distributed_optimizer
	               ? s->distributed_optimizer : BIT(1), 2);
	axis_from_bits(&spec->attention, s->attention ? s->attention
	               : BIT(ATTN_FLASH), 2);
	spec_switches(spec, c);
}

/*
 * An "auto" list longer than the grid holds (the divisors of 720720
 * layers or experts) kept its first GRID_LIST_MAX values and left the
 * rest out without a word.  Campaign lists are shorter
 * (CONFIG_LIST_MAX), so only the parallel sizes "auto" expands can.
 */
static void
spec_dropped_notes(const struct grid_spec *spec, struct strbuf *notes)
{
	const struct {
		const struct grid_axis *a;
		const char *key;
	} axes[] = {
		{ &spec->tp, "search.tensor_parallel" },
		{ &spec->pp, "search.pipeline_parallel" },
		{ &spec->cp, "search.context_parallel" },
		{ &spec->ep, "search.expert_parallel" },
		{ &spec->etp, "search.expert_tensor_parallel" },
		{ &spec->vp, "search.virtual_pipeline" },
		{ &spec->mbs, "search.micro_batch_size" },
		{ &spec->gbs, "global_batch_size" },
	};

	for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
		if (axes[i].a->dropped > 0)
			strbuf_addf(notes, "warning: %s \"auto\" gives "
			            "%d values; the search takes the first %d "
			            "and leaves out %d (list the values to "
			            "search)\n",
			            axes[i].key, GRID_LIST_MAX +
			            axes[i].a->dropped, GRID_LIST_MAX,
			            axes[i].a->dropped);
}

/* Warnings about switch lists that leave some value no valid layout. */
static void
spec_notes(const struct grid_spec *spec, struct strbuf *notes)
{
	bool fsdp_on = false, distopt_off = false;

	for (int i = 0; i < spec->fsdp.n; i++)
		fsdp_on |= spec->fsdp.v[i] != 0;
	for (int i = 0; i < spec->distopt.n; i++)
		distopt_off |= spec->distopt.v[i] == 0;
	if (fsdp_on && !distopt_off)
		strbuf_addstr(notes, "warning: FSDP replaces the distributed "
		              "optimizer: with search.distributed_optimizer "
		              "only true, no FSDP candidate can be valid (add "
		              "false to it)\n");
	spec_dropped_notes(spec, notes);
}

int
grid_spec_init(struct grid_spec *spec, const struct settings *c,
               struct strbuf *notes)
{
	const struct search_space *s = &c->search;

	memset(spec, 0, sizeof(*spec));
	if (c->mode == MODE_FINETUNE && (s->tp.is_auto || s->pp.is_auto))
		return error("finetune mode needs explicit "
		             "search.tensor_parallel and "
		             "search.pipeline_parallel lists");
	spec->min_mp = s->min_model_parallel;
	spec->max_mp = s->max_model_parallel;
	spec_lists(spec, c);
	if (s->heuristics == HEUR_NEMO &&
	    spec_auto_nemo(spec, c, notes) != 0)
		return -1;
	spec_auto_model(spec, c); /* fills what is still empty */
	if (s->heuristics == HEUR_NEMO && c->mode == MODE_FINETUNE)
		spec_finetune_mp(spec, c);
	if (spec->gbs.n == 0)
		axis_push(&spec->gbs, auto_gbs(c));
	if (!s->vp.is_auto) {
		spec->vp_rule = VP_LIST;
		axis_from_list(&spec->vp, &s->vp);
	} else if (s->heuristics == HEUR_NEMO) {
		spec->vp_rule = VP_NEMO;
		axis_push(&spec->vp, 1);
	} else {
		spec->vp_rule = VP_DIVISORS;
		axis_split_divisors(&spec->vp, c->model.num_layers,
		                    vstage_layouts(c));
	}
	spec_notes(spec, notes);
	return 0;
}

