/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout-names.c - the names of a layout's choices (recompute kinds and
 * methods, attention, FP8 recipes, CP communication, MoE dispatchers,
 * the relaxable placement rules...) as configuration files, job scripts
 * and reports spell them, and their parsing back.
 */
#include "autoconfig.h"

#include <string.h>

#include "layout.h"

const char *const layout_relax_names[] = {
	"tp_nvlink", "ep_nvlink", "cp_seq", "nvl72_align", NULL
};
const char *const recompute_method_names[] = { "block", "uniform", NULL };
const char *const recompute_module_names[] = {
	"core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe",
	"shared_experts", NULL
};
const char *const attention_names[] = { "flash", "unfused", NULL };
const char *const fp8_recipe_names[] = {
	"delayed", "tensorwise", "mxfp8", "blockwise", NULL
};
const char *const ce_fusion_names[] = {
	"none", "native", "te", "torch", "compiled", NULL
};
const char *const framework_names[] = { "megatron", "torchtitan", NULL };
const char *const cp_comm_names[] = {
	"p2p", "all_gather", "a2a", "a2a+p2p", NULL
};
const char *const moe_dispatcher_names[] = {
	"alltoall", "allgather", "flex", "hybridep", NULL
};

static const char *const recompute_names[] = {
	[RECOMPUTE_NONE] = "none",
	[RECOMPUTE_SELECTIVE] = "selective",
	[RECOMPUTE_FULL] = "full",
};
static const char *const recompute_shorts[] = {
	[RECOMPUTE_NONE] = "none",
	[RECOMPUTE_SELECTIVE] = "sel",
	[RECOMPUTE_FULL] = "full",
};
_Static_assert(sizeof recompute_names / sizeof recompute_names[0] ==
               RECOMPUTE_FULL + 1, "a name for every recompute kind");
_Static_assert(sizeof recompute_shorts / sizeof recompute_shorts[0] ==
               RECOMPUTE_FULL + 1, "a short name for every recompute kind");

const char *
recompute_name(enum recompute r)
{
	return recompute_names[r];
}

const char *
recompute_short(enum recompute r)
{
	return recompute_shorts[r];
}

int
recompute_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, recompute_names[i]))
			return i;
	return -1;
}

const char *
attention_name(enum attention_impl a)
{
	return a == ATTN_FLASH ? "flash" : "unfused";
}

int
attention_parse(const char *s)
{
	if (!strcmp(s, "flash"))
		return ATTN_FLASH;
	if (!strcmp(s, "unfused"))
		return ATTN_UNFUSED;
	return -1;
}

/* "block" or "uniform". */
const char *
recompute_method_name(enum recompute_method m)
{
	return recompute_method_names[m == RECOMPUTE_UNIFORM];
}

/* "delayed", "tensorwise", "mxfp8" or "blockwise". */
const char *
fp8_recipe_name(enum fp8_recipe r)
{
	return (unsigned)r <= FP8_BLOCKWISE ? fp8_recipe_names[r] : "?";
}

/* "p2p", "all_gather", "a2a" or "a2a+p2p". */
const char *
cp_comm_name(enum cp_comm c)
{
	return (unsigned)c <= CP_COMM_A2A_P2P ? cp_comm_names[c] : "?";
}

/* "alltoall", "allgather", "flex" or "hybridep". */
const char *
moe_dispatcher_name(enum moe_dispatcher d)
{
	return (unsigned)d <= MOE_DISPATCH_HYBRIDEP ? moe_dispatcher_names[d]
	                                            : "?";
}

/* The index of s among names, or -1. */
int
layout_choice_parse(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}
