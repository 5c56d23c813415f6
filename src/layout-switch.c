/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout-switch.c - the tuning guide's switches of a layout by name.
 *
 * One table gives each switch its column name and kind; the two
 * switch statements below are the only places that know which field of
 * struct layout holds it.
 */
#include "autoconfig.h"

#include <string.h>

#include "layout-switch.h"
#include "util.h"

static const struct {
	const char *name;
	enum switch_kind kind;
	const char *const *choices;   /* SWK_CHOICE: names in enum order */
} switches[SW_COUNT] = {
	[SW_RECOMPUTE_METHOD] = { "recompute_method", SWK_CHOICE,
	                          recompute_method_names },
	[SW_SEQUENCE_PARALLEL] = { "sequence_parallel", SWK_BOOL, NULL },
	[SW_DISTRIBUTED_OPTIMIZER] = { "distributed_optimizer", SWK_BOOL,
	                               NULL },
	[SW_ATTENTION] = { "attention", SWK_CHOICE, attention_names },
	[SW_ACCOUNT_EMBEDDING] = { "account_for_embedding_in_pipeline_split",
	                           SWK_BOOL, NULL },
	[SW_ACCOUNT_LOSS] = { "account_for_loss_in_pipeline_split", SWK_BOOL,
	                      NULL },
	[SW_FP8_RECIPE] = { "fp8_recipe", SWK_CHOICE, fp8_recipe_names },
	[SW_FP8_PARAM_GATHER] = { "fp8_param_gather", SWK_BOOL, NULL },
	[SW_CUDA_GRAPHS] = { "cuda_graphs", SWK_BOOL, NULL },
	[SW_TP_COMM_OVERLAP] = { "tp_comm_overlap", SWK_BOOL, NULL },
	[SW_OVERLAP_GRAD_REDUCE] = { "overlap_grad_reduce", SWK_BOOL, NULL },
	[SW_OVERLAP_PARAM_GATHER] = { "overlap_param_gather", SWK_BOOL,
	                              NULL },
	[SW_FSDP] = { "fsdp", SWK_BOOL, NULL },
	[SW_CP_COMM_TYPE] = { "cp_comm_type", SWK_CHOICE, cp_comm_names },
	[SW_MOE_GROUPED_GEMM] = { "moe_grouped_gemm", SWK_BOOL, NULL },
	[SW_OFFLOAD_LAYERS] = { "offload_layers", SWK_INT, NULL },
	[SW_FIRST_STAGE_LAYERS] = { "decoder_first_pipeline_num_layers",
	                            SWK_INT, NULL },
	[SW_LAST_STAGE_LAYERS] = { "decoder_last_pipeline_num_layers",
	                           SWK_INT, NULL },
	[SW_RECOMPUTE_MODULES] = { "recompute_modules", SWK_SET,
	                           recompute_module_names },
	[SW_GRAD_REDUCE_BF16] = { "grad_reduce_in_bf16", SWK_BOOL, NULL },
	[SW_MOE_DISPATCHER] = { "moe_token_dispatcher", SWK_CHOICE,
	                        moe_dispatcher_names },
	[SW_MOE_A2A_OVERLAP] = { "moe_a2a_overlap", SWK_BOOL, NULL },
	[SW_CUDA_GRAPH_FULL_ITERATION] = { "cuda_graph_full_iteration",
	                                   SWK_BOOL, NULL },
	[SW_PIPELINE_LAYOUT] = { "pipeline_layout", SWK_BOOL, NULL },
	[SW_FP8_DOT_PRODUCT_ATTENTION] = { "fp8_dot_product_attention",
	                                   SWK_BOOL, NULL },
};

const char *
layout_switch_name(enum layout_switch s)
{
	return (unsigned)s < SW_COUNT ? switches[s].name : "?";
}

enum switch_kind
layout_switch_kind(enum layout_switch s)
{
	return (unsigned)s < SW_COUNT ? switches[s].kind : SWK_INT;
}

const char *
layout_switch_choice(enum layout_switch s, int v)
{
	const char *const *names = switches[s].choices;

	for (int i = 0; names && names[i]; i++)
		if (i == v)
			return names[i];
	return "?";
}

/* The value of s in l, whether or not it applies. */
static int
field_get(const struct layout *l, enum layout_switch s)
{
	switch (s) {
	case SW_RECOMPUTE_METHOD: return (int)l->recompute_method;
	case SW_SEQUENCE_PARALLEL: return l->sequence_parallel;
	case SW_DISTRIBUTED_OPTIMIZER: return l->distributed_optimizer;
	case SW_ATTENTION: return (int)l->attention;
	case SW_ACCOUNT_EMBEDDING: return l->account_embedding;
	case SW_ACCOUNT_LOSS: return l->account_loss;
	case SW_FP8_RECIPE: return (int)l->fp8_recipe;
	case SW_FP8_PARAM_GATHER: return l->fp8_param_gather;
	case SW_CUDA_GRAPHS: return l->cuda_graphs;
	case SW_TP_COMM_OVERLAP: return l->tp_comm_overlap;
	case SW_OVERLAP_GRAD_REDUCE: return l->overlap_grad_reduce;
	case SW_OVERLAP_PARAM_GATHER: return l->overlap_param_gather;
	case SW_FSDP: return l->fsdp;
	case SW_CP_COMM_TYPE: return (int)l->cp_comm;
	case SW_MOE_GROUPED_GEMM: return l->moe_grouped_gemm;
	case SW_OFFLOAD_LAYERS: return l->offload_layers;
	case SW_FIRST_STAGE_LAYERS: return l->first_stage_layers;
	case SW_LAST_STAGE_LAYERS: return l->last_stage_layers;
	case SW_RECOMPUTE_MODULES: return (int)layout_recompute_modules(l);
	case SW_GRAD_REDUCE_BF16: return l->grad_reduce_bf16;
	case SW_MOE_DISPATCHER: return (int)l->moe_dispatcher;
	case SW_MOE_A2A_OVERLAP: return l->moe_a2a_overlap;
	case SW_CUDA_GRAPH_FULL_ITERATION: return l->cuda_graph_full_iteration;
	case SW_PIPELINE_LAYOUT: return l->pipeline_layout;
	case SW_FP8_DOT_PRODUCT_ATTENTION:
		return l->fp8_dot_product_attention;
	case SW_COUNT: break;
	}
	return -1;
}

/* Store v, already checked against the switch's kind, in l. */
static void
field_set(struct layout *l, enum layout_switch s, int v)
{
	switch (s) {
	case SW_RECOMPUTE_METHOD:
		l->recompute_method = (enum recompute_method)v;
		break;
	case SW_SEQUENCE_PARALLEL: l->sequence_parallel = v; break;
	case SW_DISTRIBUTED_OPTIMIZER: l->distributed_optimizer = v; break;
	case SW_ATTENTION: l->attention = (enum attention_impl)v; break;
	case SW_ACCOUNT_EMBEDDING: l->account_embedding = v; break;
	case SW_ACCOUNT_LOSS: l->account_loss = v; break;
	case SW_FP8_RECIPE: l->fp8_recipe = (enum fp8_recipe)v; break;
	case SW_FP8_PARAM_GATHER: l->fp8_param_gather = v; break;
	case SW_CUDA_GRAPHS: l->cuda_graphs = v; break;
	case SW_TP_COMM_OVERLAP: l->tp_comm_overlap = v; break;
	case SW_OVERLAP_GRAD_REDUCE: l->overlap_grad_reduce = v; break;
	case SW_OVERLAP_PARAM_GATHER: l->overlap_param_gather = v; break;
	case SW_FSDP: l->fsdp = v; break;
	case SW_CP_COMM_TYPE: l->cp_comm = (enum cp_comm)v; break;
	case SW_MOE_GROUPED_GEMM: l->moe_grouped_gemm = v; break;
	case SW_OFFLOAD_LAYERS: l->offload_layers = v; break;
	case SW_FIRST_STAGE_LAYERS: l->first_stage_layers = v; break;
	case SW_LAST_STAGE_LAYERS: l->last_stage_layers = v; break;
	case SW_RECOMPUTE_MODULES:
		l->recompute_modules = layout_modules_canonical((unsigned)v);
		break;
	case SW_GRAD_REDUCE_BF16: l->grad_reduce_bf16 = v; break;
	case SW_MOE_DISPATCHER:
		l->moe_dispatcher = (enum moe_dispatcher)v;
		break;
	case SW_MOE_A2A_OVERLAP: l->moe_a2a_overlap = v; break;
	case SW_CUDA_GRAPH_FULL_ITERATION:
		l->cuda_graph_full_iteration = v;
		break;
	case SW_PIPELINE_LAYOUT: l->pipeline_layout = v; break;
	case SW_FP8_DOT_PRODUCT_ATTENTION:
		l->fp8_dot_product_attention = v;
		break;
	case SW_COUNT: break;
	}
}

int
layout_switch_get(const struct layout *l, enum precision p,
                  enum layout_switch s)
{
	if (s == SW_RECOMPUTE_METHOD && l->recompute != RECOMPUTE_FULL)
		return -1;
	if (s == SW_RECOMPUTE_MODULES && l->recompute != RECOMPUTE_SELECTIVE)
		return -1;
	if ((s == SW_FP8_RECIPE || s == SW_FP8_DOT_PRODUCT_ATTENTION) &&
	    p != PREC_FP8)
		return -1;
	if (s == SW_FP8_PARAM_GATHER && !layout_param_gather_applies(p))
		return -1;
	if (s == SW_CP_COMM_TYPE && l->cp == 1)
		return -1;
	if ((s == SW_FIRST_STAGE_LAYERS && l->first_stage_layers == 0) ||
	    (s == SW_LAST_STAGE_LAYERS && l->last_stage_layers == 0))
		return -1;
	return field_get(l, s);
}

void
layout_switch_format(const struct layout *l, enum precision p,
                     enum layout_switch s, struct strbuf *out)
{
	int v = layout_switch_get(l, p, s);

	if (v < 0)
		return;
	if (layout_switch_kind(s) == SWK_SET)
		layout_switch_set_names(s, v, '+', out);
	else if (layout_switch_kind(s) == SWK_CHOICE)
		strbuf_addstr(out, layout_switch_choice(s, v));
	else
		strbuf_addf(out, "%d", v);
}

void
layout_switch_set_names(enum layout_switch s, int v, char sep,
                        struct strbuf *out)
{
	const char *const *names = switches[s].choices;
	bool first = true;

	for (int i = 0; names && names[i]; i++) {
		if (!((unsigned)v & (1u << i)))
			continue;
		if (!first)
			strbuf_addch(out, sep);
		strbuf_addstr(out, names[i]);
		first = false;
	}
}

int
layout_set_parse(const char *const *names, const char *text,
                 unsigned *mask, const char **bad, size_t *badlen)
{
	size_t n;
	int i;

	*mask = 0;
	for (; *text; text += n + (text[n] != 0)) {
		if ((n = strcspn(text, "+ ")) == 0)
			continue;
		for (i = 0; names[i]; i++)
			if (strlen(names[i]) == n &&
			    !strncmp(names[i], text, n))
				break;
		if (!names[i]) {
			*bad = text;
			*badlen = n;
			return -1;
		}
		*mask |= 1u << i;
	}
	*bad = NULL;
	*badlen = 0;
	return *mask ? 0 : -1;
}

/* A set as a mask; -1 when a name is unknown or the set is empty. */
static int
parse_set(const char *const *names, const char *text)
{
	const char *bad;
	size_t len;
	unsigned mask;

	if (layout_set_parse(names, text, &mask, &bad, &len) != 0)
		return -1;
	return (int)mask;
}

void
layout_switch_json(struct json *j, enum layout_switch s, int v)
{
	const char *name = layout_switch_name(s);
	struct strbuf sb = STRBUF_INIT;

	if (v >= 0 && layout_switch_kind(s) == SWK_SET) {
		layout_switch_set_names(s, v, '+', &sb);
		json_string(j, name, sb.buf);
		strbuf_release(&sb);
		return;
	}
	if (v < 0)
		json_null(j, name);
	else if (layout_switch_kind(s) == SWK_BOOL)
		json_bool(j, name, v != 0);
	else if (layout_switch_kind(s) == SWK_INT)
		json_int(j, name, v);
	else
		json_string(j, name, layout_switch_choice(s, v));
}

void
layout_switches_json(struct json *j, const struct layout *l,
                     enum precision p)
{
	for (int s = 0; s < SW_COUNT; s++)
		layout_switch_json(j, (enum layout_switch)s,
		                   layout_switch_get(l, p,
		                                     (enum layout_switch)s));
}

void
layout_json(struct json *j, const struct layout *l, enum precision p)
{
	json_int(j, "tp", l->tp);
	json_int(j, "pp", l->pp);
	json_int(j, "cp", l->cp);
	json_int(j, "ep", l->ep);
	json_int(j, "etp", layout_etp(l));
	json_int(j, "vp", l->vp);
	json_int(j, "mbs", l->mbs);
	json_int(j, "gbs", l->gbs);
	json_int(j, "dp", l->dp);
	json_string(j, "recompute", recompute_name(l->recompute));
	json_int(j, "recompute_layers", l->recompute_layers);
	/* One switch that does not apply to the layout (fp8_recipe in
	 * BF16) is null. */
	layout_switches_json(j, l, p);
}

int
layout_switch_parse(struct layout *l, enum layout_switch s,
                    const char *text)
{
	int v = -1;

	if ((unsigned)s >= SW_COUNT)
		return -1;
	if (!*text)
		return 0;
	switch (switches[s].kind) {
	case SWK_CHOICE:
		v = layout_choice_parse(switches[s].choices, text);
		break;
	case SWK_BOOL:
		v = !strcmp(text, "0") ? 0 : !strcmp(text, "1") ? 1 : -1;
		break;
	case SWK_INT:
		if (parse_int(text, &v) || v < 0)
			v = -1;
		break;
	case SWK_SET:
		v = parse_set(switches[s].choices, text);
		break;
	}
	if (v < 0)
		return -1;
	field_set(l, s, v);
	return 0;
}
