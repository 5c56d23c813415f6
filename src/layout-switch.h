/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout-switch.h - the tuning guide's switches of a layout as named
 * columns: candidates.csv and the result files list them under the
 * names of their campaign keys (search.NAME), so that a spreadsheet
 * shows what a candidate name only abbreviates.
 */
#ifndef PARATUNE_LAYOUT_SWITCH_H
#define PARATUNE_LAYOUT_SWITCH_H

#include "json.h"
#include "layout.h"
#include "strbuf.h"

enum layout_switch {
	SW_RECOMPUTE_METHOD, SW_SEQUENCE_PARALLEL, SW_DISTRIBUTED_OPTIMIZER,
	SW_ATTENTION, SW_ACCOUNT_EMBEDDING, SW_ACCOUNT_LOSS, SW_FP8_RECIPE,
	SW_FP8_PARAM_GATHER, SW_CUDA_GRAPHS, SW_TP_COMM_OVERLAP,
	SW_OVERLAP_GRAD_REDUCE, SW_OVERLAP_PARAM_GATHER, SW_FSDP,
	SW_CP_COMM_TYPE, SW_MOE_GROUPED_GEMM, SW_OFFLOAD_LAYERS,
	SW_FIRST_STAGE_LAYERS, SW_LAST_STAGE_LAYERS, SW_RECOMPUTE_MODULES,
	SW_GRAD_REDUCE_BF16, SW_MOE_DISPATCHER, SW_MOE_A2A_OVERLAP,
	SW_CUDA_GRAPH_FULL_ITERATION, SW_PIPELINE_LAYOUT,
	SW_FP8_DOT_PRODUCT_ATTENTION,
	SW_COUNT,
};

/* What a switch's value is: a name, 0 or 1, a count, or a set of names
 * (a bit mask, written "core_attn+moe_act"). */
enum switch_kind { SWK_CHOICE, SWK_BOOL, SWK_INT, SWK_SET };

/* "sequence_parallel": the column, as the campaign key names it. */
const char *layout_switch_name(enum layout_switch s);
enum switch_kind layout_switch_kind(enum layout_switch s);

/*
 * The switch's value in l, or -1 where it does not apply: the recompute
 * method without full recompute, the FP8 recipe, FP8 attention and
 * parameter gather without fp8 precision, the context parallel
 * communication with cp 1,
 * a first or last stage without a layer count of its own.
 */
int layout_switch_get(const struct layout *l, enum precision p,
                      enum layout_switch s);

/* Append the value as a CSV field holds it ("1", "block", "4"); nothing
 * where it does not apply. */
void layout_switch_format(const struct layout *l, enum precision p,
                          enum layout_switch s, struct strbuf *out);

/* Write value v of s (layout_switch_get's) as JSON under its name:
 * true/false, a count or a name; null when v is -1. */
void layout_switch_json(struct json *j, enum layout_switch s, int v);
/* Every switch of l in p as JSON (layout_switch_json), in table order:
 * what plan, estimate and results give for a layout. */
void layout_switches_json(struct json *j, const struct layout *l,
                          enum precision p);
/* The sizes, batch and recompute of l, then its switches in p
 * (layout_switches_json), as members of the object open in j. */
void layout_json(struct json *j, const struct layout *l, enum precision p);

/*
 * A set of names written "a+b" (spaces separate too) as a mask of their
 * indexes in names.  0; -1 when a word is not one of them (*bad and
 * *badlen then point at it) or the set is empty (*bad NULL).
 */
int layout_set_parse(const char *const *names, const char *text,
                     unsigned *mask, const char **bad, size_t *badlen);

/* Append the names of a SWK_SET switch's value, joined by sep. */
void layout_switch_set_names(enum layout_switch s, int v, char sep,
                             struct strbuf *out);

/* The name of value v of a SWK_CHOICE switch. */
const char *layout_switch_choice(enum layout_switch s, int v);

/* Set switch s of l from text as layout_switch_format writes it; "" (it
 * did not apply) leaves l as it is.  0, or -1 when text is malformed. */
int layout_switch_parse(struct layout *l, enum layout_switch s,
                        const char *text);

#endif
