/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout-args.c - the layout `paratune estimate` builds from its flags,
 * and calibrate from a measured-runs file's columns: what they name,
 * the campaign's first searched values (or the base, or a planned
 * candidate) for what they leave out, kept valid together.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "layout-args.h"
#include "sizing.h"
#include "xalloc.h"

const char *const layout_args_size_names[SF_COUNT] = {
	"tp", "pp", "cp", "ep", "etp", "vp", "mbs", "gbs", "recompute",
	"recompute_layers",
};

/* ---- the command line -------------------------------------------------- */

/* The flag of each integer field and the values it takes: those the
 * campaign keys take (paratune.conf(5)), so that no product of them
 * can overflow. */
static const struct {
	enum size_field field;
	const char *flag;
	int lo, hi;
} size_flags[] = {
	{ SF_TP, "--tp", 1, 65536 },
	{ SF_PP, "--pp", 1, 65536 },
	{ SF_CP, "--cp", 1, 65536 },
	{ SF_EP, "--ep", 1, 65536 },
	{ SF_ETP, "--etp", 0, 65536 },
	{ SF_VP, "--vp", 1, 65536 },
	{ SF_MBS, "--mbs", 1, 1 << 24 },
	{ SF_GBS, "--gbs", 1, 1 << 24 },
	{ SF_RC_LAYERS, "--recompute-layers", 0, 1 << 24 },
};

/* Whether the command line sets any part of the layout. */
bool
layout_args_any(const struct layout_args *a)
{
	for (int f = 0; f < SF_COUNT; f++)
		if (a->size[f] != LAYOUT_ARG_UNSET)
			return true;
	return a->recompute || a->attention || a->no_sp || a->no_distopt ||
	       a->switches.n > 0;
}

/* Refuse sizes no campaign could hold, naming the flag. */
int
layout_args_check(const struct layout_args *a)
{
	for (size_t i = 0; i < sizeof size_flags / sizeof size_flags[0];
	     i++) {
		int v = a->size[size_flags[i].field];

		if (v != LAYOUT_ARG_UNSET &&
		    (v < size_flags[i].lo || v > size_flags[i].hi))
			return error("%s %d is out of range (%d to %d)",
			             size_flags[i].flag, v, size_flags[i].lo,
			             size_flags[i].hi);
	}
	return 0;
}

/* The switch called name (its column in candidates.csv), or SW_COUNT. */
static enum layout_switch
switch_named(const char *name, size_t len)
{
	for (int s = 0; s < SW_COUNT; s++) {
		const char *n = layout_switch_name((enum layout_switch)s);

		if (strlen(n) == len && !strncmp(n, name, len))
			return (enum layout_switch)s;
	}
	return SW_COUNT;
}

/* "not NAME=VALUE with a switch's name", with the closest name to a
 * misspelt one ("fdsp=true": did you mean 'fsdp'?). */
static int
unknown_switch(const char *arg, const char *eq)
{
	const char *names[SW_COUNT];
	char *word = xstrndup(arg, eq ? (size_t)(eq - arg) : strlen(arg));
	const char *near;

	for (int s = 0; s < SW_COUNT; s++)
		names[s] = layout_switch_name((enum layout_switch)s);
	near = *word ? config_closest(word, names, SW_COUNT) : NULL;
	free(word);
	if (near && !eq && !strcmp(near, arg))
		return error("--switch '%s' needs a value: %s=VALUE", arg,
		             arg);
	if (near)
		return error("--switch '%s': not NAME=VALUE with a switch's "
		             "name (did you mean '%s'?)", arg, near);
	return error("--switch '%s': not NAME=VALUE with a switch's name (a "
	             "column of candidates.csv, from %s to %s)", arg,
	             layout_switch_name(SW_RECOMPUTE_METHOD),
	             layout_switch_name(SW_COUNT - 1));
}

/* The option of its own that sets switch s, or NULL. */
static const char *
switch_option(enum layout_switch s)
{
	return s == SW_SEQUENCE_PARALLEL ? "--no-sequence-parallel"
	       : s == SW_DISTRIBUTED_OPTIMIZER ? "--no-distributed-optimizer"
	       : s == SW_ATTENTION ? "--attention" : NULL;
}

/* One --switch NAME=VALUE; VALUE as candidates.csv writes it, or true
 * and false for 0 and 1.  flagged: the switches their own options set,
 * which a --switch of the same name would override, whatever the order
 * on the command line. */
static int
apply_switch(struct layout_args *a, const char *arg, struct layout *l,
             unsigned flagged)
{
	const char *eq = strchr(arg, '=');
	enum layout_switch s = switch_named(arg, eq ? (size_t)(eq - arg) : 0);
	const char *v = eq ? eq + 1 : "";

	if (s == SW_COUNT)
		return unknown_switch(arg, eq);
	if (flagged & BIT(s))
		return error("--switch '%s' and %s both set %s: give one",
		             arg, switch_option(s), layout_switch_name(s));
	if (layout_switch_kind(s) == SWK_BOOL)
		v = !strcmp(v, "true") ? "1" : !strcmp(v, "false") ? "0" : v;
	if (!*v || layout_switch_parse(l, s, v) != 0)
		return error("--switch '%s': '%s' is not a value of %s", arg,
		             eq + 1, layout_switch_name(s));
	a->given |= BIT(s);
	return 0;
}

/*
 * Switches that follow others unless named: FSDP replaces the
 * distributed optimizer, and parameter gather overlap is on where
 * Megatron-LM allows it when the campaign leaves it to paratune
 * (grid.c), so that --no-distributed-optimizer alone gives a layout
 * that runs.
 */
static void
follow_switches(const struct layout_args *a, const struct settings *c,
                struct layout *l, struct sources *src)
{
	if ((a->given & BIT(SW_FSDP)) && l->fsdp && !a->no_distopt &&
	    !(a->given & BIT(SW_DISTRIBUTED_OPTIMIZER))) {
		l->distributed_optimizer = false;
		src->sw[SW_DISTRIBUTED_OPTIMIZER] = FROM_FLAG;
	}
	if (!(a->given & BIT(SW_OVERLAP_PARAM_GATHER)) &&
	    c->search.overlap_param_gather == 0 &&
	    !settings_origin(c, "base.overlap_param_gather"))
		l->overlap_param_gather = l->overlap_grad_reduce &&
		                          (l->distributed_optimizer || l->fsdp);
}

/* ---- values the command line leaves out ----------------------------- */

/* The campaign key that searches each size. */
static const char *const size_keys[SF_COUNT] = {
	"search.tensor_parallel", "search.pipeline_parallel",
	"search.context_parallel", "search.expert_parallel",
	"search.expert_tensor_parallel", "search.virtual_pipeline",
	"search.micro_batch_size", "global_batch_size", "search.recompute",
	"search.recompute_num_layers",
};

/* A value from the campaign's search: "search" where some layer set the
 * key, "default" where it kept its built-in value. */
static enum from
searched(const struct settings *c, const char *key)
{
	return settings_origin(c, key) ? FROM_SEARCH : FROM_DEFAULT;
}

/* searched() for switch sw, whose key is search.NAME but for one. */
static enum from
switch_searched(const struct settings *c, enum layout_switch sw)
{
	char key[96];

	if (sw == SW_OFFLOAD_LAYERS)
		return searched(c, "search.activation_offload_layers");
	snprintf(key, sizeof key, "search.%s", layout_switch_name(sw));
	return searched(c, key);
}

/* The first value of a searched list, or dflt (a default) when empty;
 * *src says which, for the size f. */
static int
first_of(const struct settings *c, enum size_field f,
         const struct grid_axis *ax, int dflt, enum from *src)
{
	src[f] = ax->n > 0 ? searched(c, size_keys[f]) : FROM_DEFAULT;
	return ax->n > 0 ? ax->v[0] : dflt;
}

/*
 * Every size from the campaign's first searched value: the lists as the
 * grid expands them (an "auto" list too), etp 0 (as tp) when the
 * campaign leaves it automatic.  vp follows pp (fix_vp).
 */
static void
sizes_from_search(const struct grid_spec *sp, const struct settings *c,
                  struct layout *l, struct sources *src)
{
	enum from *f = src->size;

	l->tp = first_of(c, SF_TP, &sp->tp, 1, f);
	l->pp = first_of(c, SF_PP, &sp->pp, 1, f);
	l->cp = first_of(c, SF_CP, &sp->cp, 1, f);
	l->ep = first_of(c, SF_EP, &sp->ep, 1, f);
	l->etp = first_of(c, SF_ETP, &sp->etp, 0, f);
	if (c->search.etp.is_auto)
		f[SF_ETP] = FROM_DEFAULT;
	l->vp = 1;
	f[SF_VP] = searched(c, size_keys[SF_VP]);
	l->mbs = first_of(c, SF_MBS, &sp->mbs, 1, f);
	l->gbs = first_of(c, SF_GBS, &sp->gbs, 1, f);
	l->recompute = (enum recompute)first_of(c, SF_RECOMPUTE,
	                                        &sp->recompute, 0, f);
	l->recompute_layers = first_of(c, SF_RC_LAYERS, &sp->recompute_layers,
	                               0, f);
}

/* The switches as the campaign searches them (plan_search_switches,
 * settings_default_switches), for the sizes already in l. */
static void
switches_from_search(const struct settings *c, struct layout *l,
                     struct sources *src)
{
	plan_search_switches(c, l);
	settings_default_switches(c, l);
	for (int s = 0; s < SW_COUNT; s++)
		src->sw[s] = switch_searched(c, (enum layout_switch)s);
}

/* Whether vp v interleaves l's pipeline validly (layout_check's rule). */
static bool
vp_fits(const struct settings *c, const struct layout *l, int v)
{
	long long split = layout_split_layers(&c->model, l);
	struct layout at = *l;
	int f, k, z;

	at.vp = v;
	if (l->pipeline_layout)
		return v == 1 || (l->pp > 1 &&
		                  layout_vstage_split(&c->model, &at, &f, &k,
		                                      &z));
	return v == 1 || (l->pp > 1 && split % layout_mul(l->pp, v) == 0);
}

/*
 * vp for l's pipeline from the campaign: NeMo's one layer per virtual
 * stage where its heuristics choose vp, else the first value of the
 * list that fits pp; 1 (no interleaving) when none does.
 */
static void
fix_vp(const struct grid_spec *sp, const struct settings *c,
       struct layout *l, enum from *src)
{
	if (sp->vp_rule == VP_NEMO) {
		l->vp = l->pp > 2 ? c->model.num_layers / l->pp : 1;
		*src = searched(c, "search.heuristics");
		return;
	}
	for (int i = 0; i < sp->vp.n; i++)
		if (vp_fits(c, l, sp->vp.v[i])) {
			l->vp = sp->vp.v[i];
			*src = searched(c, size_keys[SF_VP]);
			return;
		}
	l->vp = 1;
	*src = FROM_DEFAULT;
}

/* The sizes and recompute settings the command line names. */
static int
apply_sizes(const struct layout_args *a, struct layout *l,
            struct sources *src)
{
	int *fields[SF_COUNT] = {
		[SF_TP] = &l->tp, [SF_PP] = &l->pp, [SF_CP] = &l->cp,
		[SF_EP] = &l->ep, [SF_ETP] = &l->etp, [SF_VP] = &l->vp,
		[SF_MBS] = &l->mbs, [SF_GBS] = &l->gbs,
		[SF_RC_LAYERS] = &l->recompute_layers,
	};

	for (int f = 0; f < SF_COUNT; f++)
		if (fields[f] && a->size[f] != LAYOUT_ARG_UNSET) {
			*fields[f] = a->size[f];
			src->size[f] = FROM_FLAG;
		}
	if (a->recompute) {
		int r = recompute_parse(a->recompute);

		if (r < 0)
			return error("unknown recompute '%s' (none, selective "
			             "or full)", a->recompute);
		l->recompute = (enum recompute)r;
		src->size[SF_RECOMPUTE] = FROM_FLAG;
	}
	return 0;
}

/* The switches the command line names. */
static int
apply_switch_flags(struct layout_args *a, struct layout *l,
                   struct sources *src)
{
	unsigned flagged;

	if (a->no_sp) {
		l->sequence_parallel = false;
		a->given |= BIT(SW_SEQUENCE_PARALLEL);
	}
	if (a->no_distopt) {
		l->distributed_optimizer = false;
		a->given |= BIT(SW_DISTRIBUTED_OPTIMIZER);
	}
	if (a->attention) {
		int at = attention_parse(a->attention);

		if (at < 0)
			return error("unknown attention '%s' (flash or "
			             "unfused)", a->attention);
		l->attention = (enum attention_impl)at;
		a->given |= BIT(SW_ATTENTION);
	}
	flagged = (a->no_sp ? BIT(SW_SEQUENCE_PARALLEL) : 0) |
	          (a->no_distopt ? BIT(SW_DISTRIBUTED_OPTIMIZER) : 0) |
	          (a->attention ? BIT(SW_ATTENTION) : 0);
	for (int i = 0; i < a->switches.n; i++)
		if (apply_switch(a, a->switches.v[i], l, flagged) != 0)
			return -1;
	for (int s = 0; s < SW_COUNT; s++)
		if (a->given & BIT(s))
			src->sw[s] = FROM_FLAG;
	return 0;
}

/* Whether neither a flag nor the campaign sets the account_for_* flag
 * of switch sw (SW_ACCOUNT_EMBEDDING or SW_ACCOUNT_LOSS). */
static bool
account_unset(const struct layout_args *a, const struct settings *c,
              enum layout_switch sw)
{
	unsigned listed = sw == SW_ACCOUNT_EMBEDDING
	                  ? c->search.account_embedding
	                  : c->search.account_loss;

	return !(a->given & BIT(sw)) && listed == 0;
}

/* The sources of the account_for_* flags that changed since was. */
static void
account_sources(const struct layout *was, const struct layout *l,
                struct sources *src)
{
	if (l->account_embedding != was->account_embedding)
		src->sw[SW_ACCOUNT_EMBEDDING] = FROM_DEFAULT;
	if (l->account_loss != was->account_loss)
		src->sw[SW_ACCOUNT_LOSS] = FROM_DEFAULT;
}

/* The account_for_* flags that neither a flag nor the campaign sets,
 * as the grid picks them for the layout's split (grid_account_auto). */
static void
fit_account(const struct layout_args *a, const struct settings *c,
            struct layout *l, struct sources *src)
{
	bool auto_emb = account_unset(a, c, SW_ACCOUNT_EMBEDDING);
	bool auto_loss = account_unset(a, c, SW_ACCOUNT_LOSS);
	struct layout was = *l;

	grid_account_auto(&c->model, auto_emb ? -1 : 0, auto_loss ? -1 : 0, l);
	account_sources(&was, l, src);
}

/*
 * Stage layer counts the campaign leaves to paratune follow pp as the
 * grid gives them (layout_auto_stages: DeepSeek-V3's 61 layers over 8
 * stages as 8 + 6 x 8 + 5), unless the flags name them or they came
 * with a planned candidate or the base whose pp the flags keep.
 * Whether they followed pp.
 */
static bool
fit_stages(const struct layout_args *a, const struct grid_spec *sp,
           const struct settings *c, struct layout *l, struct sources *src)
{
	unsigned named = BIT(SW_FIRST_STAGE_LAYERS) | BIT(SW_LAST_STAGE_LAYERS);
	enum from was = src->sw[SW_FIRST_STAGE_LAYERS];

	if (sp->first_layers.n == 0 ||
	    sp->first_layers.v[0] != GRID_STAGES_AUTO || (a->given & named))
		return false;
	if ((was == FROM_PLAN || was == FROM_BASE) &&
	    a->size[SF_PP] == LAYOUT_ARG_UNSET)
		return false;
	if (l->pipeline_layout) {
		l->first_stage_layers = l->last_stage_layers = 0;
		return false;
	}
	layout_auto_stages(&c->model, l);
	src->sw[SW_FIRST_STAGE_LAYERS] = FROM_DEFAULT;
	src->sw[SW_LAST_STAGE_LAYERS] = FROM_DEFAULT;
	return true;
}

/*
 * After fit_stages and fit_account: the pipeline layout where vp cannot
 * take the split they gave, as the grid takes it (auto_pipeline_layout):
 * not where a flag sets the layout, nor on a core that takes none
 * (layout_core_auto_vstages).
 */
static void
fit_vstages(const struct layout_args *a, const struct settings *c,
            struct layout *l, struct sources *src)
{
	bool auto_flags = account_unset(a, c, SW_ACCOUNT_EMBEDDING) &&
	                  account_unset(a, c, SW_ACCOUNT_LOSS);
	struct layout was = *l;

	if ((a->given & BIT(SW_PIPELINE_LAYOUT)) ||
	    !layout_core_auto_vstages(settings_template_core(c)) ||
	    !layout_auto_vstages(&c->model, l, auto_flags))
		return;
	src->sw[SW_PIPELINE_LAYOUT] = FROM_DEFAULT;
	account_sources(&was, l, src);
}

/*
 * Keep what the flags leave out valid with what they set: vp refitted
 * to a new pp, sequence parallelism re-derived for a new tp, and the
 * switches without effect at the new pp or cp back at their defaults
 * (layout_check's no-effect rules), each then said to come from the
 * campaign or its default.
 */
static void
fit_unnamed(const struct layout_args *a, const struct grid_spec *sp,
            const struct settings *c, struct layout *l,
            struct sources *src)
{
	bool from_search = src->size[SF_VP] == FROM_SEARCH ||
	                   src->size[SF_VP] == FROM_DEFAULT;

	if (a->size[SF_VP] == LAYOUT_ARG_UNSET &&
	    (from_search || !vp_fits(c, l, l->vp)))
		fix_vp(sp, c, l, &src->size[SF_VP]);
	if (!(a->given & BIT(SW_SEQUENCE_PARALLEL)) &&
	    (a->size[SF_TP] != LAYOUT_ARG_UNSET ||
	     (l->sequence_parallel && l->tp == 1))) {
		struct layout d = *l;

		plan_search_switches(c, &d);
		l->sequence_parallel = d.sequence_parallel;
		src->sw[SW_SEQUENCE_PARALLEL] =
			switch_searched(c, SW_SEQUENCE_PARALLEL);
	}
	bool stages = fit_stages(a, sp, c, l, src);

	/* Flags the campaign leaves to paratune follow the new split, as
	 * the grid sets them (tp 4 pp 8 of a 126-layer model needs them). */
	fit_account(a, c, l, src);
	if (stages)
		fit_vstages(a, c, l, src);
	if (l->pp == 1 && !(a->given & BIT(SW_ACCOUNT_EMBEDDING)) &&
	    l->account_embedding) {
		l->account_embedding = false;
		src->sw[SW_ACCOUNT_EMBEDDING] = FROM_DEFAULT;
	}
	if (l->pp == 1 && !(a->given & BIT(SW_ACCOUNT_LOSS)) &&
	    l->account_loss) {
		l->account_loss = false;
		src->sw[SW_ACCOUNT_LOSS] = FROM_DEFAULT;
	}
	if (l->pp == 1 && !(a->given & BIT(SW_PIPELINE_LAYOUT)) &&
	    l->pipeline_layout) {
		l->pipeline_layout = false;
		src->sw[SW_PIPELINE_LAYOUT] = FROM_DEFAULT;
	}
	if (l->cp == 1 && !(a->given & BIT(SW_CP_COMM_TYPE)) &&
	    l->cp_comm != CP_COMM_P2P) {
		l->cp_comm = CP_COMM_P2P;
		src->sw[SW_CP_COMM_TYPE] = FROM_DEFAULT;
	}
}

/* Every source set to one kind (the layout came whole from there). */
static void
sources_all(struct sources *src, enum from f)
{
	for (int i = 0; i < SF_COUNT; i++)
		src->size[i] = f;
	for (int i = 0; i < SW_COUNT; i++)
		src->sw[i] = f;
}

/*
 * The layout to estimate.  *l holds the starting layout (the base or a
 * planned candidate, from start) or, with start FROM_SEARCH, nothing:
 * then every value the flags leave out is the campaign's first searched
 * one.  Returns 0, or -1 after a usage error.
 */
int
layout_args_resolve(struct layout_args *a, const struct grid_spec *sp,
                    const struct settings *c, enum from start,
                    bool switches_known, struct layout *l,
                    struct sources *src)
{
	sources_all(src, start);
	if (start == FROM_SEARCH)
		sizes_from_search(sp, c, l, src);
	if (apply_sizes(a, l, src) != 0)
		return -1;
	/* Megatron-LM reads the count for full recompute only: it would be
	 * dropped without a word. */
	if (a->size[SF_RC_LAYERS] > 0 && l->recompute != RECOMPUTE_FULL)
		return error("--recompute-layers %d needs full recompute "
		             "(--recompute full), not %s",
		             a->size[SF_RC_LAYERS],
		             recompute_name(l->recompute));
	/* A dense model has no expert layers: the size would be dropped
	 * without a word (ep > 1 fails the layout's experts rule). */
	if (a->size[SF_ETP] > 1 && c->model.num_experts == 0)
		return error("--etp %d needs an MoE model; %s has no experts",
		             a->size[SF_ETP], c->model.name);
	if (a->size[SF_EP] > 1 && c->model.num_experts == 0)
		return error("--ep %d needs an MoE model; %s has no experts",
		             a->size[SF_EP], c->model.name);
	if (start == FROM_SEARCH || !switches_known)
		switches_from_search(c, l, src);
	if (apply_switch_flags(a, l, src) != 0)
		return -1;
	/* The method too: only full recompute renders it, so it would
	 * be dropped without a word as well. */
	if ((a->given & BIT(SW_RECOMPUTE_METHOD)) &&
	    l->recompute != RECOMPUTE_FULL)
		return error("--switch recompute_method=%s needs full "
		             "recompute (--recompute full), not %s",
		             recompute_method_name(l->recompute_method),
		             recompute_name(l->recompute));
	fit_unnamed(a, sp, c, l, src);
	follow_switches(a, c, l, src);
	return 0;
}

/* ---- a layout by candidates.csv's column names ------------------------ */

bool
layout_args_is_column(const char *name)
{
	for (int f = 0; f < SF_COUNT; f++)
		if (!strcmp(layout_args_size_names[f], name))
			return true;
	return switch_named(name, strlen(name)) != SW_COUNT;
}

/* One size column into a; -1 when its value is not one it takes. */
static int
column_size(struct layout_args *a, enum size_field f, const char *v)
{
	int x;

	if (f == SF_RECOMPUTE) {
		if (recompute_parse(v) < 0)
			return -1;
		a->recompute = v;
		return 0;
	}
	if (parse_int(v, &x) != 0)
		return -1;
	for (size_t i = 0; i < sizeof size_flags / sizeof size_flags[0]; i++)
		if (size_flags[i].field == f &&
		    (x < size_flags[i].lo || x > size_flags[i].hi))
			return -1;
	a->size[f] = x;
	return 0;
}

/* One switch column into a (as --switch NAME=VALUE); -1 when its value
 * is not one the switch takes. */
static int
column_switch(struct layout_args *a, enum layout_switch s, const char *v)
{
	struct layout scratch;
	char *arg;

	memset(&scratch, 0, sizeof scratch);
	if (layout_switch_kind(s) == SWK_BOOL)
		v = !strcmp(v, "true") ? "1" : !strcmp(v, "false") ? "0" : v;
	if (layout_switch_parse(&scratch, s, v) != 0)
		return -1;
	arg = xasprintf("%s=%s", layout_switch_name(s), v);
	str_list_push(&a->switches, arg);
	free(arg);
	return 0;
}

int
layout_args_from_columns(const struct plan *p, int n,
                         const char *const *names,
                         const char *const *values, struct layout *out,
                         int *bad)
{
	struct layout_args a = LAYOUT_ARGS_INIT;
	struct sources src;
	int ret = 0;

	for (int i = 0; i < n && ret == 0; i++) {
		enum layout_switch s = switch_named(names[i],
		                                    strlen(names[i]));
		int f;

		if (values[i][0] == '\0')
			continue;
		for (f = 0; f < SF_COUNT &&
		            strcmp(layout_args_size_names[f], names[i]);
		     f++)
			;
		if (f < SF_COUNT)
			ret = column_size(&a, (enum size_field)f, values[i]);
		else if (s != SW_COUNT)
			ret = column_switch(&a, s, values[i]);
		else
			ret = -1;
		if (ret != 0)
			*bad = i;
	}
	*out = p->res.v[p->base].layout;
	/* Columns left empty: the campaign's base section when it has one;
	 * else its first searched values, as estimate's layout flags take
	 * them, not the planned base, which the constants choose (the safe
	 * candidate of smallest model parallelism) and a fit would move. */
	if (ret == 0 && layout_args_resolve(&a, &p->spec, &p->settings,
	                                    p->settings.base.set ? FROM_BASE
	                                    : FROM_SEARCH,
	                                    true, out, &src) != 0) {
		*bad = -1; /* checked above: cannot happen */
		ret = -1;
	}
	str_list_clear(&a.switches);
	return ret;
}
