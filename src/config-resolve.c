/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-resolve.c - what the layered configuration means once every
 * layer is read: the base configuration's switches (the campaign's own
 * where it names them, else what the search holds), the site's caps,
 * and the checks across keys.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "config-int.h"
#include "error.h"
#include "logparse.h"
#include "util.h"

/* ---- resolving and cross-checking ------------------------------------- */

/* A boolean switch's default when the search holds it, else the one
 * value it searches. */
static bool
pick_bool(unsigned mask, bool dflt)
{
	return mask == 0 || (mask & BIT(dflt)) ? dflt : !dflt;
}

/* A kind's default when the search holds it, else the first searched. */
static int
pick_kind(unsigned mask, int dflt)
{
	if (mask == 0 || (mask & BIT(dflt)))
		return dflt;
	for (int i = 0; i < 32; i++)
		if (mask & BIT(i))
			return i;
	return dflt;
}

/* The first value of a layer-count list, 0 when it holds 0 (an even
 * share is the default), is empty or "auto". */
static int
first_listed(const struct int_list *list)
{
	if (list->is_auto || list->n == 0)
		return 0;
	for (int i = 0; i < list->n; i++)
		if (list->v[i] == 0)
			return 0;
	return list->v[0];
}

/* Switches without effect in this layout keep their defaults, so that
 * the layout is the one the grid keeps (layout_check). */
static void
default_unused_switches(const struct settings *c, struct layout *l)
{
	if (c->precision != PREC_FP8) {
		l->fp8_recipe = FP8_DELAYED;
		l->fp8_dot_product_attention = false;
	}
	if (!layout_param_gather_applies(c->precision))
		l->fp8_param_gather = false;
	if (l->cp <= 1)
		l->cp_comm = CP_COMM_P2P;
	if (!l->cuda_graphs)
		l->cuda_graph_full_iteration = false;
	if (c->model.num_experts <= 0) {
		l->moe_dispatcher = MOE_DISPATCH_ALLTOALL;
		l->moe_a2a_overlap = false;
	}
	if (l->pp <= 1)
		l->account_embedding = l->account_loss = false;
	if (l->pp <= 1)
		l->first_stage_layers = l->last_stage_layers = 0;
	if (layout_uneven(l))
		l->account_embedding = l->account_loss = false;
}

/* Public: see config.h. */
void
settings_default_switches(const struct settings *c, struct layout *l)
{
	const struct search_space *s = &c->search;
	const struct int_list *off = &s->offload_layers;

	l->recompute_method = (enum recompute_method)
		pick_kind(s->recompute_method, RECOMPUTE_BLOCK);
	l->account_embedding = pick_bool(s->account_embedding, false);
	l->account_loss = pick_bool(s->account_loss, false);
	l->fp8_recipe = (enum fp8_recipe)pick_kind(s->fp8_recipe, FP8_DELAYED);
	l->fp8_param_gather = pick_bool(s->fp8_param_gather, false);
	l->fp8_dot_product_attention =
		pick_bool(s->fp8_dot_product_attention, false);
	l->grad_reduce_bf16 = pick_bool(s->grad_reduce_bf16, false);
	l->cuda_graphs = pick_bool(s->cuda_graphs, false);
	l->cuda_graph_full_iteration =
		pick_bool(s->cuda_graph_full_iteration, false);
	l->tp_comm_overlap = pick_bool(s->tp_comm_overlap, false);
	l->overlap_grad_reduce = pick_bool(s->overlap_grad_reduce, true);
	/* FSDP shards the optimizer itself (layout.h). */
	l->fsdp = pick_bool(s->fsdp, false);
	if (l->fsdp)
		l->distributed_optimizer = false;
	l->overlap_param_gather = s->overlap_param_gather
		? pick_bool(s->overlap_param_gather, true)
		: l->overlap_grad_reduce &&
		  (l->distributed_optimizer || l->fsdp);
	l->cp_comm = (enum cp_comm)pick_kind(s->cp_comm_type, CP_COMM_P2P);
	l->moe_grouped_gemm = pick_bool(s->moe_grouped_gemm, true);
	l->moe_dispatcher = (enum moe_dispatcher)pick_kind(
		s->moe_dispatcher, MOE_DISPATCH_ALLTOALL);
	l->moe_a2a_overlap = pick_bool(s->moe_a2a_overlap, false);
	l->offload_layers = off->is_auto || off->n == 0 ? 0 : off->v[0];
	for (int i = 0; i < off->n; i++)
		if (off->v[i] == 0)
			l->offload_layers = 0;
	l->first_stage_layers = first_listed(&s->first_stage_layers);
	l->last_stage_layers = first_listed(&s->last_stage_layers);
	l->recompute_modules = s->recompute_modules.n > 0
		? layout_modules_canonical((unsigned)s->recompute_modules.v[0])
		: 0;
	default_unused_switches(c, l);
}

/* Whether base.NAME was set by some layer. */
static bool
base_set(const struct settings *c, const char *name)
{
	char key[64];

	snprintf(key, sizeof key, "base.%s", name);
	return config_key_set(c, key);
}

/* The base's switches that no layer set, as settings_default_switches
 * picks them for the base's own sizes. */
static void
resolve_base_switches(struct settings *c)
{
	struct layout *l = &c->base.layout, d = *l;

	settings_default_switches(c, &d);
	if (!base_set(c, "fsdp"))
		l->fsdp = d.fsdp;
	/* FSDP shards the optimizer itself (layout.h); a base that names
	 * both gets layout_check's complaint. */
	if (l->fsdp && !base_set(c, "distributed_optimizer"))
		l->distributed_optimizer = false;
	if (!base_set(c, "recompute_method"))
		l->recompute_method = d.recompute_method;
	if (base_set(c, "recompute_modules"))
		l->recompute_modules =
			layout_modules_canonical(l->recompute_modules);
	else if (l->recompute == RECOMPUTE_SELECTIVE)
		l->recompute_modules = d.recompute_modules;
	else
		l->recompute_modules = 0;
	if (!base_set(c, "account_for_embedding_in_pipeline_split"))
		l->account_embedding = d.account_embedding;
	if (!base_set(c, "account_for_loss_in_pipeline_split"))
		l->account_loss = d.account_loss;
	if (!base_set(c, "fp8_recipe"))
		l->fp8_recipe = d.fp8_recipe;
	if (!base_set(c, "fp8_param_gather"))
		l->fp8_param_gather = d.fp8_param_gather;
	if (!base_set(c, "fp8_dot_product_attention"))
		l->fp8_dot_product_attention = d.fp8_dot_product_attention;
	if (!base_set(c, "grad_reduce_in_bf16"))
		l->grad_reduce_bf16 = d.grad_reduce_bf16;
	if (!base_set(c, "cuda_graphs"))
		l->cuda_graphs = d.cuda_graphs;
	if (!base_set(c, "cuda_graph_full_iteration"))
		l->cuda_graph_full_iteration = d.cuda_graph_full_iteration;
	if (!base_set(c, "tp_comm_overlap"))
		l->tp_comm_overlap = d.tp_comm_overlap;
	if (!base_set(c, "overlap_grad_reduce"))
		l->overlap_grad_reduce = d.overlap_grad_reduce;
	if (!base_set(c, "overlap_param_gather"))
		l->overlap_param_gather = c->search.overlap_param_gather
			? d.overlap_param_gather
			: l->overlap_grad_reduce &&
			  (l->distributed_optimizer || l->fsdp);
	if (!base_set(c, "cp_comm_type"))
		l->cp_comm = d.cp_comm;
	if (!base_set(c, "moe_grouped_gemm"))
		l->moe_grouped_gemm = d.moe_grouped_gemm;
	if (!base_set(c, "moe_token_dispatcher"))
		l->moe_dispatcher = d.moe_dispatcher;
	if (!base_set(c, "moe_a2a_overlap"))
		l->moe_a2a_overlap = d.moe_a2a_overlap;
	if (!base_set(c, "activation_offload_layers"))
		l->offload_layers = d.offload_layers;
	if (!base_set(c, "decoder_first_pipeline_num_layers"))
		l->first_stage_layers = d.first_stage_layers;
	if (!base_set(c, "decoder_last_pipeline_num_layers"))
		l->last_stage_layers = d.last_stage_layers;
}

/*
 * Fill the base configuration's unset fields: tp/pp/cp/ep/vp 1, etp as
 * tp, micro-batch 1, the first global batch size (0 when it is "auto":
 * the planner's choice), the first recompute kind searched, sequence
 * parallel when tp > 1, distributed optimizer on unless the base uses
 * FSDP, flash attention, and the switches as settings_default_switches
 * picks them.
 */
static void
resolve_base(struct settings *c)
{
	struct layout *l = &c->base.layout;
	bool any = false;

	for (size_t i = 0; i < config_nkeys; i++)
		if (!strncmp(config_registry[i].path, "base.", 5) &&
		    config_key_set(c, config_registry[i].path))
			any = true;
	c->base.set = any;
	if (!any)
		return;
	if (!config_key_set(c, "base.tensor_parallel")) l->tp = 1;
	if (!config_key_set(c, "base.pipeline_parallel")) l->pp = 1;
	if (!config_key_set(c, "base.context_parallel")) l->cp = 1;
	if (!config_key_set(c, "base.expert_parallel")) l->ep = 1;
	if (!config_key_set(c, "base.virtual_pipeline")) l->vp = 1;
	if (!config_key_set(c, "base.micro_batch_size")) l->mbs = 1;
	if (!config_key_set(c, "base.global_batch_size"))
		l->gbs = c->global_batch_size.is_auto
			? 0 : c->global_batch_size.v[0];
	if (!config_key_set(c, "base.recompute")) {
		l->recompute = RECOMPUTE_NONE;
		for (int r = RECOMPUTE_FULL; r >= RECOMPUTE_NONE; r--)
			if (c->search.recompute & BIT(r))
				l->recompute = (enum recompute)r;
	}
	if (!config_key_set(c, "base.sequence_parallel"))
		l->sequence_parallel = l->tp > 1;
	if (!config_key_set(c, "base.distributed_optimizer"))
		l->distributed_optimizer = true;
	if (!config_key_set(c, "base.attention"))
		l->attention = ATTN_FLASH;
	resolve_base_switches(c);
	l->dp = 0;
}

/* The site's caps: policy.max_nodes and policy.max_concurrent_jobs. */
static int
check_policy(struct settings *c)
{
	char cap[512];
	int ret = 0;

	if (c->policy.max_nodes && c->nodes > c->policy.max_nodes) {
		config_origin_text(c, "policy.max_nodes", cap, sizeof cap);
		ret = config_origin_error(c, "nodes", "%d nodes is more than "
		                          "the site allows: policy.max_nodes = "
		                          "%d (%s)", c->nodes,
		                          c->policy.max_nodes, cap);
	}
	if (c->policy.max_concurrent_jobs &&
	    c->limits.max_concurrent_jobs > c->policy.max_concurrent_jobs) {
		/* The built-in default follows the cap; a value someone
		 * chose does not. */
		if (!config_key_set(c, "limits.max_concurrent_jobs")) {
			c->limits.max_concurrent_jobs =
				c->policy.max_concurrent_jobs;
			return ret;
		}
		config_origin_text(c, "policy.max_concurrent_jobs", cap,
		                   sizeof cap);
		ret = config_origin_error(c, "limits.max_concurrent_jobs",
		                          "%d is more than the site allows: "
		                          "policy.max_concurrent_jobs = %d "
		                          "(%s)", c->limits.max_concurrent_jobs,
		                          c->policy.max_concurrent_jobs, cap);
	}
	return ret;
}

/* The loss kernels are each one framework's: Megatron core's three, or
 * PyTorch's cross_entropy that torchtitan calls (eager unless the
 * campaign says compiled). */
static int
check_loss_kernel(struct settings *c)
{
	bool torch_loss = c->cross_entropy_fusion == CE_FUSION_TORCH ||
	                  c->cross_entropy_fusion == CE_FUSION_COMPILED;
	bool torchtitan = c->framework == FRAMEWORK_TORCHTITAN;

	/* torchtitan's own default: eager PyTorch. */
	if (torchtitan && !config_key_set(c, "cross_entropy_fusion")) {
		c->cross_entropy_fusion = CE_FUSION_TORCH;
		return 0;
	}
	if (torch_loss == torchtitan)
		return 0;
	return config_origin_error(c, "cross_entropy_fusion", "\"%s\" is "
	                           "not a loss kernel of framework \"%s\" "
	                           "(megatron: none, native or te; "
	                           "torchtitan: torch or compiled)",
	                           ce_fusion_names[c->cross_entropy_fusion],
	                           framework_names[c->framework]);
}

/* Slurm places a job in whole segments: a --segment of slurm.directives
 * must divide the nodes (topology/block's eval_nodes_block). */
static int
check_segment(struct settings *c)
{
	int seg = settings_segment_directive(c);

	if (seg == 0 || c->nodes % seg == 0)
		return 0;
	return config_origin_error(c, "slurm.directives", "'--segment=%d': a "
	                           "segment of %d nodes does not divide the "
	                           "campaign's %d", seg, seg, c->nodes);
}

/* Of keys that conflict, in order of preference, the first a layer
 * set; the first when none was (a default that conflicts with
 * another). */
static const char *
set_key(const struct settings *c, const char *const *keys, int n)
{
	for (int i = 0; i < n; i++)
		if (config_key_set(c, keys[i]))
			return keys[i];
	return keys[0];
}

/* " (KEY, FILE:LINE)" or " (KEY, built-in default)" for a key that the
 * error does not name, so that the user sees where each value came
 * from; "" for the key it names. */
static void
other_key_note(const struct settings *c, const char *key,
               const char *named, char *buf, size_t len)
{
	char where[512];

	if (!strcmp(key, named)) {
		buf[0] = '\0';
		return;
	}
	config_origin_text(c, key, where, sizeof where);
	snprintf(buf, len, " (%s, %s)", key, where);
}

/* The key that gave the campaign GPU its memory: memory.gpu_memory_gb
 * when set, else the gpus entry a layer added or changed, else gpu
 * (the built-in catalog's entry). */
static const char *
gpu_memory_key(const struct settings *c)
{
	if (c->memory.gpu_memory_gb > 0)
		return "memory.gpu_memory_gb";
	if (str_list_find(&c->gpus_set, c->gpu.name) >= 0)
		return "gpus";
	return "gpu";
}

/*
 * A margin the GPU cannot leave makes every candidate oom-risk, and
 * submit would then leave every one out.  The error names the margin
 * when a layer set it, else the key that gave the GPU its memory: a
 * built-in default is not what the user has to change.
 */
static int
check_margin(const struct settings *c)
{
	const char *keys[] = { "memory.margin_gb", gpu_memory_key(c) };
	const char *named = set_key(c, keys, 2);
	char note[600];

	if (!(c->gpu.memory_gib > 0) ||
	    c->memory.margin_gb < c->gpu.memory_gib)
		return 0;
	if (named == keys[0]) {
		/* The built-in catalog's memory needs no note. */
		if (strcmp(keys[1], "gpu"))
			other_key_note(c, keys[1], named, note, sizeof note);
		else
			note[0] = '\0';
		return config_origin_error(c, named, "%g GiB leaves nothing "
		                           "of the %s's %g GiB%s: every "
		                           "candidate would be oom-risk",
		                           c->memory.margin_gb, c->gpu.name,
		                           c->gpu.memory_gib, note);
	}
	other_key_note(c, keys[0], named, note, sizeof note);
	return config_origin_error(c, named, "the %s's %g GiB leave nothing "
	                           "after a margin of %g GiB%s: every "
	                           "candidate would be oom-risk",
	                           c->gpu.name, c->gpu.memory_gib,
	                           c->memory.margin_gb, note);
}

/* The measured steps after the skipped ones must fit in one run; the
 * error names the key a layer set, and where the others came from.
 * The skipped steps are those the log reader skips (logparse.c,
 * warmup_steps): skip_steps as set, 0 too, and by default a tenth of a
 * run's steps, at least one. */
static int
check_steps(const struct settings *c)
{
	static const char *const keys[] = {
		"results.min_steps", "results.skip_steps",
		"limits.max_steps_per_run",
	};
	int steps = c->limits.max_steps_per_run;
	/* A skip_steps set is said as set, not cut to the run's steps. */
	int skip = c->results.skip_steps >= 0 ? c->results.skip_steps
	           : logparse_warmup_steps(-1, steps);
	const char *named = set_key(c, keys, 3);
	char note[3][600];

	if (c->results.min_steps <= steps - skip)
		return 0;
	for (int i = 0; i < 3; i++)
		other_key_note(c, keys[i], named, note[i], sizeof note[i]);
	/* Where the default comes from says what it is. */
	if (c->results.skip_steps < 0 && note[1][0]) {
		char where[512];

		config_origin_text(c, keys[1], where, sizeof where);
		snprintf(note[1], sizeof note[1], " (a tenth of the steps, at "
		         "least one: %s, %s)", keys[1], where);
	}
	return config_origin_error(c, named, "%d measured steps%s after %d "
	                           "skipped%s do not fit in %d steps per "
	                           "run%s", c->results.min_steps, note[0],
	                           skip, note[1], steps, note[2]);
}

/*
 * Expert parallel lists with no 1 on a model without experts: every
 * layout was removed as "experts % ep", and the plan left nothing for a
 * reason that did not say the model has none.  A list with 1 in it (a
 * site's default for its MoE campaigns, say) still plans, its other
 * sizes removed; a planned campaign.conf is not judged again.
 */
static int
check_dense_experts(const struct settings *c)
{
	static const char *const keys[] = { "search.expert_parallel",
	                                    "search.expert_tensor_parallel" };
	const struct int_list *lists[] = { &c->search.ep, &c->search.etp };
	int ret = 0;

	if (c->model.num_experts > 0 || c->model.name[0] == '\0')
		return 0;
	for (int i = 0; i < 2; i++) {
		int least = 0;

		if (lists[i]->is_auto || lists[i]->n == 0 ||
		    !config_key_set(c, keys[i]))
			continue;
		least = lists[i]->v[0];
		for (int k = 1; k < lists[i]->n; k++)
			if (lists[i]->v[k] < least)
				least = lists[i]->v[k];
		if (least <= 1)
			continue;
		ret = config_origin_error(c, keys[i], "%d needs an MoE model; "
		                          "%s has no experts (list 1)", least,
		                          c->model.name);
	}
	return ret;
}

/*
 * An fp8_recipe list the campaign's GPU runs none of: plan removed
 * every layout by the rule, and the error named neither the key nor
 * its file.  A list with one recipe the GPU runs still plans, the
 * others removed and counted by the rule; a planned campaign.conf is
 * not judged again.
 */
static int
check_fp8_recipes(const struct settings *c)
{
	unsigned list = c->search.fp8_recipe;
	struct strbuf names = STRBUF_INIT;
	struct workload w;
	char cc[64] = "";
	int ret;

	if (c->precision != PREC_FP8 || list == 0 || c->gpu_name == NULL ||
	    !config_key_set(c, "search.fp8_recipe"))
		return 0;
	settings_workload(c, &w);
	for (int r = FP8_DELAYED; r <= FP8_BLOCKWISE; r++) {
		if (!(list & BIT(r)))
			continue;
		if (layout_fp8_recipe_runs(&w, (enum fp8_recipe)r)) {
			strbuf_release(&names);
			return 0;
		}
		strbuf_addf(&names, "%s%s", names.len ? ", " : "",
		            fp8_recipe_name((enum fp8_recipe)r));
	}
	if (c->gpu.compute_capability > 0)
		snprintf(cc, sizeof cc, " (compute capability %.1f)",
		         c->gpu.compute_capability);
	ret = config_origin_error(c, "search.fp8_recipe", "the %s%s runs "
	                          "none of %s: mxfp8 needs compute "
	                          "capability 10 to 11, blockwise 9 or "
	                          "above (9.x with the nemo2 template); "
	                          "delayed and tensorwise run on every FP8 "
	                          "GPU", c->gpu.name, cc, names.buf);
	strbuf_release(&names);
	return ret;
}

/*
 * An achieved tflops_per_gpu above the GPU's dense peak at the
 * campaign's precision is a slip (a peak with sparsity, another GPU's
 * figure): the size and the NeMo-formula time were given at an MFU over
 * 100 % without a word.  Warned, not refused: it is the user's own
 * assumption, and sizing still runs.
 */
static void
warn_tflops_above_peak(const struct settings *c)
{
	double peak = c->gpu.peak_tflops[c->precision];
	char where[512];

	if (!(peak > 0) || c->tflops_per_gpu <= peak)
		return;
	config_origin_text(c, "tflops_per_gpu", where, sizeof where);
	warning("%s: key 'tflops_per_gpu': %g is above the %s's dense peak "
	        "of %g TFLOPS at this precision (an MFU of %.0f %%): the "
	        "size and time estimates that use it are too short", where,
	        c->tflops_per_gpu, c->gpu.name, peak,
	        100 * c->tflops_per_gpu / peak);
}

/* Checks across keys, once every layer is read. */
static int
check_campaign(struct settings *c, const struct config_sources *src)
{
	const struct search_space *s = &c->search;
	int ret = check_policy(c);

	if (check_loss_kernel(c) != 0 || check_segment(c) != 0)
		ret = -1;
	if (src->campaign_path && c->name == NULL)
		ret = error("%s: key 'name' is not set (letters, digits, '.', "
		            "'_' and '-')", src->campaign_path);
	if (c->mode == MODE_FINETUNE && (s->tp.is_auto || s->pp.is_auto))
		ret = config_origin_error(c, "mode", "finetune needs explicit "
		                          "search.tensor_parallel and "
		                          "search.pipeline_parallel lists "
		                          "(those of the checkpoint), not "
		                          "\"auto\"");
	if (!strcmp(c->peft, "lora") && c->mode != MODE_FINETUNE)
		ret = config_origin_error(c, "peft", "\"lora\" needs mode = "
		                          "\"finetune\"");
	if (s->min_model_parallel > s->max_model_parallel)
		ret = config_origin_error(c, "search.min_model_parallel",
		                          "%d is more than "
		                          "search.max_model_parallel %d",
		                          s->min_model_parallel,
		                          s->max_model_parallel);
	if (check_margin(c) != 0)
		ret = -1;
	/* What plan checked is not judged again: a campaign planned before
	 * a check grew stricter must still answer status and cancel. */
	if (!src->frozen && check_steps(c) != 0)
		ret = -1;
	if (!src->frozen && check_dense_experts(c) != 0)
		ret = -1;
	if (!src->frozen && check_fp8_recipes(c) != 0)
		ret = -1;
	if (!src->frozen && config_key_set(c, "tflops_per_gpu"))
		warn_tflops_above_peak(c);
	/* Megatron-LM's check: torchtitan sizes its rotary tables from
	 * the run's own max_seq_len and has no such limit. */
	if (!src->frozen && c->framework == FRAMEWORK_MEGATRON &&
	    c->model.max_position_embeddings > 0 &&
	    c->seq_length > c->model.max_position_embeddings) {
		char where[512];

		config_origin_text(c, "seq_length", where, sizeof where);
		warning("%s: key 'seq_length': %d is longer than the model's "
		        "max_position_embeddings %d; Megatron-LM refuses that "
		        "(arguments.py asserts max_position_embeddings >= "
		        "seq_length), so runs must raise it", where,
		        c->seq_length, c->model.max_position_embeddings);
	}
	return ret;
}

/* Public: see config-int.h. */
int
config_finish(struct settings *c, const struct config_sources *src)
{
	if (config_resolve_model(c, src) != 0 ||
	    config_resolve_gpu(c, src) != 0 ||
	    config_resolve_calibration(c, src) != 0)
		return -1;
	resolve_base(c);
	return check_campaign(c, src);
}
