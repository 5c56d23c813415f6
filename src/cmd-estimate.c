/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-estimate.c - 'paratune estimate': memory breakdown, FLOPs and
 * predicted speed of the base configuration, of a candidate planned in
 * a campaign directory, or of a layout given on the command line, and
 * the training time that follows; with where each value came from.
 */
#include "autoconfig.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd-estimate.h"
#include "error.h"
#include "json.h"
#include "layout-switch.h"
#include "owner.h"
#include "plan.h"
#include "sizing.h"
#include "store.h"
#include "table.h"
#include "util.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_estimate_entry;

#define NOT_GIVEN INT_MIN

/* The layout's sizes and recompute settings, in the order shown. */
enum size_field {
	SF_TP, SF_PP, SF_CP, SF_EP, SF_ETP, SF_VP, SF_MBS, SF_GBS,
	SF_RECOMPUTE, SF_RC_LAYERS, SF_COUNT,
};

static const char *const size_names[SF_COUNT] = {
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

/* Where a value of the estimated layout came from. */
enum from { FROM_DEFAULT, FROM_SEARCH, FROM_BASE, FROM_PLAN, FROM_FLAG,
            FROM_COUNT };

static const struct {
	const char *json, *table;
} from_names[FROM_COUNT] = {
	[FROM_FLAG] = { "flag", "flag" },
	[FROM_PLAN] = { "plan", "planned candidate" },
	[FROM_BASE] = { "base", "base configuration" },
	[FROM_SEARCH] = { "search", "campaign search list" },
	[FROM_DEFAULT] = { "default", "default" },
};

/* The source of every value shown. */
struct sources {
	enum from size[SF_COUNT];
	enum from sw[SW_COUNT];
};

/* The command line; NOT_GIVEN (sizes) or NULL for what it leaves out. */
struct layout_args {
	int size[SF_COUNT];          /* SF_RECOMPUTE unused */
	const char *recompute, *attention;
	int no_sp, no_distopt;
	struct str_list switches;    /* --switch NAME=VALUE */
	unsigned given;              /* BIT(enum layout_switch) named */
	int rank;                    /* --rank, or NOT_GIVEN */
	const char *name;            /* --name */
};

/* Whether the command line sets any part of the layout. */
static bool
any_layout_flag(const struct layout_args *a)
{
	for (int f = 0; f < SF_COUNT; f++)
		if (a->size[f] != NOT_GIVEN)
			return true;
	return a->recompute || a->attention || a->no_sp || a->no_distopt ||
	       a->switches.n > 0;
}

/* Refuse sizes no campaign could hold, naming the flag. */
static int
check_size_flags(const struct layout_args *a)
{
	for (size_t i = 0; i < sizeof size_flags / sizeof size_flags[0];
	     i++) {
		int v = a->size[size_flags[i].field];

		if (v != NOT_GIVEN &&
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

/* One --switch NAME=VALUE; VALUE as candidates.csv writes it, or true
 * and false for 0 and 1. */
static int
apply_switch(struct layout_args *a, const char *arg, struct layout *l)
{
	const char *eq = strchr(arg, '=');
	enum layout_switch s = switch_named(arg, eq ? (size_t)(eq - arg) : 0);
	const char *v = eq ? eq + 1 : "";

	if (s == SW_COUNT)
		return error("--switch '%s': not NAME=VALUE with a switch's "
		             "name (a column of candidates.csv, from %s to %s)",
		             arg, layout_switch_name(SW_RECOMPUTE_METHOD),
		             layout_switch_name(SW_COUNT - 1));
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
		if (fields[f] && a->size[f] != NOT_GIVEN) {
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
	for (int i = 0; i < a->switches.n; i++)
		if (apply_switch(a, a->switches.v[i], l) != 0)
			return -1;
	for (int s = 0; s < SW_COUNT; s++)
		if (a->given & BIT(s))
			src->sw[s] = FROM_FLAG;
	return 0;
}

/* The account_for_* flags that neither a flag nor the campaign sets,
 * as the grid picks them for the layout's split (grid_account_auto). */
static void
fit_account(const struct layout_args *a, const struct settings *c,
            struct layout *l, struct sources *src)
{
	bool auto_emb = !(a->given & BIT(SW_ACCOUNT_EMBEDDING)) &&
	                c->search.account_embedding == 0;
	bool auto_loss = !(a->given & BIT(SW_ACCOUNT_LOSS)) &&
	                 c->search.account_loss == 0;
	struct layout was = *l;

	grid_account_auto(&c->model, auto_emb ? -1 : 0, auto_loss ? -1 : 0, l);
	if (l->account_embedding != was.account_embedding)
		src->sw[SW_ACCOUNT_EMBEDDING] = FROM_DEFAULT;
	if (l->account_loss != was.account_loss)
		src->sw[SW_ACCOUNT_LOSS] = FROM_DEFAULT;
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

	if (a->size[SF_VP] == NOT_GIVEN &&
	    (from_search || !vp_fits(c, l, l->vp)))
		fix_vp(sp, c, l, &src->size[SF_VP]);
	if (!(a->given & BIT(SW_SEQUENCE_PARALLEL)) &&
	    (a->size[SF_TP] != NOT_GIVEN ||
	     (l->sequence_parallel && l->tp == 1))) {
		struct layout d = *l;

		plan_search_switches(c, &d);
		l->sequence_parallel = d.sequence_parallel;
		src->sw[SW_SEQUENCE_PARALLEL] =
			switch_searched(c, SW_SEQUENCE_PARALLEL);
	}
	/* Flags the campaign leaves to paratune follow the new split, as
	 * the grid sets them (tp 4 pp 8 of a 126-layer model needs them). */
	fit_account(a, c, l, src);
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
static int
resolve_layout(struct layout_args *a, const struct grid_spec *sp,
               const struct settings *c, enum from start,
               bool switches_known, struct layout *l, struct sources *src)
{
	sources_all(src, start);
	if (start == FROM_SEARCH)
		sizes_from_search(sp, c, l, src);
	if (apply_sizes(a, l, src) != 0)
		return -1;
	if (start == FROM_SEARCH || !switches_known)
		switches_from_search(c, l, src);
	if (apply_switch_flags(a, l, src) != 0)
		return -1;
	fit_unnamed(a, sp, c, l, src);
	follow_switches(a, c, l, src);
	return 0;
}

/* ---- a layout by candidates.csv's column names ------------------------ */

bool
estimate_is_layout_column(const char *name)
{
	for (int f = 0; f < SF_COUNT; f++)
		if (!strcmp(size_names[f], name))
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
estimate_columns_layout(const struct plan *p, int n,
                        const char *const *names,
                        const char *const *values, struct layout *out,
                        int *bad)
{
	struct layout_args a = {
		{ NOT_GIVEN, NOT_GIVEN, NOT_GIVEN, NOT_GIVEN, NOT_GIVEN,
		  NOT_GIVEN, NOT_GIVEN, NOT_GIVEN, NOT_GIVEN, NOT_GIVEN },
		NULL, NULL, 0, 0, STR_LIST_INIT, 0, NOT_GIVEN, NULL,
	};
	struct sources src;
	int ret = 0;

	for (int i = 0; i < n && ret == 0; i++) {
		enum layout_switch s = switch_named(names[i],
		                                    strlen(names[i]));
		int f;

		if (values[i][0] == '\0')
			continue;
		for (f = 0; f < SF_COUNT && strcmp(size_names[f], names[i]);
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
	if (ret == 0 && resolve_layout(&a, &p->spec, &p->settings, FROM_BASE,
	                               true, out, &src) != 0) {
		*bad = -1; /* checked above: cannot happen */
		ret = -1;
	}
	str_list_clear(&a.switches);
	return ret;
}

/* ---- output ---------------------------------------------------------- */

/* The switches for people: the name of each one on, NAME=VALUE for a
 * choice and for offloaded layers; nothing for what does not apply. */
static void
add_switches(struct strbuf *sb, const struct layout *l, enum precision p)
{
	for (int i = 0; i < SW_COUNT; i++) {
		enum layout_switch s = (enum layout_switch)i;
		int v = layout_switch_get(l, p, s);

		if (v < 0 || (v == 0 && layout_switch_kind(s) != SWK_CHOICE))
			continue;
		/* Selective recompute says core_attn, Megatron-LM's default,
		 * by itself. */
		if (s == SW_RECOMPUTE_MODULES && v == BIT(RCM_CORE_ATTN))
			continue;
		strbuf_addf(sb, " %s", layout_switch_name(s));
		if (layout_switch_kind(s) != SWK_BOOL) {
			strbuf_addch(sb, '=');
			layout_switch_format(l, p, s, sb);
		}
	}
}

/* What the output says besides the estimate: where each value came
 * from, and which candidate or base it started from. */
struct shown {
	const struct sources *src;
	const char *base_source;  /* why the base is the base, or NULL */
	int rank;                 /* planned rank, or NOT_GIVEN */
};

/* The names of the values from f, space-separated; "" when none. */
static void
add_sources(struct strbuf *sb, const struct sources *src, enum from f)
{
	for (int i = 0; i < SF_COUNT; i++)
		if (src->size[i] == f)
			strbuf_addf(sb, " %s", size_names[i]);
	for (int i = 0; i < SW_COUNT; i++)
		if (src->sw[i] == f)
			strbuf_addf(sb, " %s",
			            layout_switch_name((enum layout_switch)i));
}

/* One line per kind of source, strongest first. */
static void
print_sources(FILE *f, const struct shown *sh)
{
	static const enum from order[] = {
		FROM_FLAG, FROM_PLAN, FROM_BASE, FROM_SEARCH, FROM_DEFAULT,
	};
	const char *label = "from";

	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		struct strbuf sb = STRBUF_INIT;

		add_sources(&sb, sh->src, order[i]);
		if (sb.len) {
			fprintf(f, "  %-12s %s", label,
			        from_names[order[i]].table);
			if (order[i] == FROM_PLAN)
				fprintf(f, " (rank %d)", sh->rank);
			if (order[i] == FROM_BASE && sh->base_source)
				fprintf(f, " (%s)", sh->base_source);
			fprintf(f, ":%s\n", sb.buf);
			label = "";
		}
		strbuf_release(&sb);
	}
}

/* Each stage's layers and memory: the embedding, the loss and the
 * micro-batches in flight differ between them; the verdict is the
 * heaviest's. */
static void
print_stages(FILE *f, const struct estimate *e)
{
	if (e->nstages < 2)
		return;
	fprintf(f, "  stages      ");
	for (int i = 0; i < e->nstages; i++)
		fprintf(f, "%s %s %g layer%s %.2f GiB", i ? "," : "",
		        e->stages[i].name, e->stages[i].layers,
		        e->stages[i].layers == 1 ? "" : "s",
		        e->stages[i].total / GIB);
	fprintf(f, "\n");
}

static void
print_table(FILE *f, const struct settings *cam, const struct workload *w,
            const struct candidate *c, double nemo_days,
            const struct shown *sh)
{
	const struct estimate *e = &c->est;
	const struct memory_breakdown *m = &e->mem;
	const struct layout *l = &c->layout;
	struct strbuf sw = STRBUF_INIT;

	fprintf(f, "%s\n", c->name);
	fprintf(f, "  layout       tp %d  pp %d  cp %d  ep %d  etp %d  vp %d  "
	        "dp %d  mbs %d  gbs %d  recompute %s%s\n", l->tp, l->pp, l->cp,
	        l->ep, layout_etp(l), l->vp, l->dp, l->mbs, l->gbs,
	        recompute_name(l->recompute), l->sequence_parallel ? "  sp" : "");
	add_switches(&sw, l, cam->precision);
	fprintf(f, "  switches    %s\n", sw.buf);
	strbuf_release(&sw);
	print_sources(f, sh);
	fprintf(f, "  parameters   %.3f B total, %.3f B on the most loaded GPU\n",
	        e->params_total / 1e9, e->params_per_gpu / 1e9);
	fprintf(f, "  FLOPs/step   %.4g (Megatron)  %.4g (NeMo 72BLsh^2)\n",
	        e->flops_per_step, e->flops_per_step_nemo);
	fprintf(f, "  memory/GPU   weights %.2f + gradients %.2f + optimizer "
	        "%.2f + activations %.2f + buffers %.2f = %.2f GiB of %.1f "
	        "(margin %.1f): %s\n", m->weights / GIB, m->gradients / GIB,
	        m->optimizer / GIB, m->activations / GIB, m->buffers / GIB,
	        m->total / GIB, w->gpu_memory_gib, w->margin_gib,
	        memory_status_name(e->memory_status));
	print_stages(f, e);
	fprintf(f, "  step time    %.3f s: compute %.3f, recompute %.3f, tp %.3f, "
	        "cp %.3f, ep %.3f, pp %.3f, bubble %.3f, dp %.3f\n", e->step_s,
	        e->compute_s, e->recompute_s, e->tp_comm_s, e->cp_comm_s,
	        e->ep_comm_s, e->pp_comm_s, e->bubble_s, e->dp_comm_s);
	fprintf(f, "  interval     %.3f to %.3f s (%s)\n", e->step_s_low,
	        e->step_s_high, calibration_fitted(w->cal)
	        ? "the calibration's residuals" : "built-in band");
	fprintf(f, "  calibration  %s\n", calibration_label(w->cal));
	if (cam->precision == PREC_FP8)
		fprintf(f, "  fp8 casts    %.3f s of compute (%s recipe)\n",
		        e->fp8_cast_s, fp8_recipe_name(l->fp8_recipe));
	fprintf(f, "  speed        %.0f tokens/s/GPU, %.1f TFLOP/s/GPU, MFU "
	        "%.1f %%\n", e->tokens_per_s_per_gpu, e->tflops_per_gpu,
	        100 * e->mfu);
	fprintf(f, "  training     %.2f days for %g B tokens at the predicted "
	        "speed; %.2f days at %g TFLOPS/GPU (NeMo's formula)\n",
	        e->train_days, cam->num_tokens_in_b, nemo_days,
	        cam->tflops_per_gpu);
}

/* "sources": { "tp": "flag", ..., "sequence_parallel": "search", ... } */
static void
sources_json(struct json *j, const struct shown *sh)
{
	json_begin_object(j, "sources");
	for (int i = 0; i < SF_COUNT; i++)
		json_string(j, size_names[i],
		            from_names[sh->src->size[i]].json);
	for (int i = 0; i < SW_COUNT; i++)
		json_string(j, layout_switch_name((enum layout_switch)i),
		            from_names[sh->src->sw[i]].json);
	json_end_object(j);
	if (sh->rank != NOT_GIVEN)
		json_int(j, "rank", sh->rank);
	if (sh->base_source)
		json_string(j, "base_source", sh->base_source);
}

static void
print_json(FILE *f, const struct candidate *c, const struct workload *w,
           double nemo_days, const struct shown *sh)
{
	enum precision precision = w->precision;
	struct strbuf sb = STRBUF_INIT;
	const struct estimate *e = &c->est;
	struct json j;

	json_init(&j, &sb, true);
	json_begin_object(&j, NULL);
	json_string(&j, "name", c->name);
	json_number(&j, "params_b", e->params_total / 1e9);
	json_number(&j, "params_per_gpu_b", e->params_per_gpu / 1e9);
	json_number(&j, "flops_per_step", e->flops_per_step);
	json_number(&j, "flops_per_step_nemo", e->flops_per_step_nemo);
	json_begin_object(&j, "memory");
	json_number(&j, "weights_gib", e->mem.weights / GIB);
	json_number(&j, "gradients_gib", e->mem.gradients / GIB);
	json_number(&j, "optimizer_gib", e->mem.optimizer / GIB);
	json_number(&j, "activations_gib", e->mem.activations / GIB);
	json_number(&j, "buffers_gib", e->mem.buffers / GIB);
	json_number(&j, "total_gib", e->mem.total / GIB);
	json_end_object(&j);
	json_begin_array(&j, "stages");
	for (int i = 0; i < e->nstages; i++) {
		json_begin_object(&j, NULL);
		json_string(&j, "stage", e->stages[i].name);
		json_number(&j, "layers", e->stages[i].layers);
		json_number(&j, "memory_gib", e->stages[i].total / GIB);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_string(&j, "memory_status", memory_status_name(e->memory_status));
	json_number(&j, "pred_step_s", e->step_s);
	json_number(&j, "pred_step_s_low", e->step_s_low);
	json_number(&j, "pred_step_s_high", e->step_s_high);
	json_string(&j, "calibration", calibration_label(w->cal));
	json_begin_object(&j, "pred_step_parts");
	json_number(&j, "compute_s", e->compute_s);
	json_number(&j, "fp8_cast_s", e->fp8_cast_s);
	json_number(&j, "recompute_s", e->recompute_s);
	json_number(&j, "tp_comm_s", e->tp_comm_s);
	json_number(&j, "cp_comm_s", e->cp_comm_s);
	json_number(&j, "ep_comm_s", e->ep_comm_s);
	json_number(&j, "pp_comm_s", e->pp_comm_s);
	json_number(&j, "bubble_s", e->bubble_s);
	json_number(&j, "dp_comm_s", e->dp_comm_s);
	json_number(&j, "offload_s", e->offload_s);
	json_end_object(&j);
	json_number(&j, "pred_tokens_per_s_per_gpu", e->tokens_per_s_per_gpu);
	json_number(&j, "pred_tflops_per_gpu", e->tflops_per_gpu);
	json_number(&j, "pred_mfu", e->mfu);
	json_number(&j, "pred_bubble_ratio", e->bubble_ratio);
	json_number(&j, "train_days", e->train_days);
	json_number(&j, "train_days_nemo_formula", nemo_days);
	json_begin_object(&j, "layout");
	json_int(&j, "tp", c->layout.tp);
	json_int(&j, "pp", c->layout.pp);
	json_int(&j, "cp", c->layout.cp);
	json_int(&j, "ep", c->layout.ep);
	json_int(&j, "etp", layout_etp(&c->layout));
	json_int(&j, "vp", c->layout.vp);
	json_int(&j, "dp", c->layout.dp);
	json_int(&j, "mbs", c->layout.mbs);
	json_int(&j, "gbs", c->layout.gbs);
	json_string(&j, "recompute", recompute_name(c->layout.recompute));
	json_int(&j, "recompute_layers", c->layout.recompute_layers);
	for (int s = 0; s < SW_COUNT; s++)
		layout_switch_json(&j, (enum layout_switch)s,
		                   layout_switch_get(&c->layout, precision,
		                                     (enum layout_switch)s));
	json_end_object(&j);
	sources_json(&j, sh);
	json_end_object(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

/* What the layout is estimated against: the campaign and its grid. */
struct est_ctx {
	const struct settings *settings;
	const struct workload *workload;
	const struct grid_spec *spec;
	const char *prefix;
};

/* Check, estimate and print l; name, when not NULL, replaces the name
 * the grid would give (a planned candidate keeps its own). */
static int
show(struct cmd_ctx *ctx, const struct est_ctx *ec, struct layout *l,
     const char *name, const struct shown *sh)
{
	const struct settings *cam = ec->settings;
	enum layout_rule rule = layout_check(ec->workload, l);
	struct candidate c;
	double nemo_days;

	if (rule != LAYOUT_OK) {
		error("invalid layout: %s", layout_rule_name(rule));
		return EXIT_USAGE;
	}
	grid_candidate(ec->spec, ec->workload, ec->prefix, l, &c);
	if (name)
		snprintf(c.name, sizeof c.name, "%s", name);
	nemo_days = sizing_train_days(SIZING_GPT3, c.est.params_total / 1e9,
	                              cam->nodes * cam->gpus_per_node,
	                              cam->tflops_per_gpu,
	                              cam->num_tokens_in_b);
	if (ctx->format == FORMAT_JSON)
		print_json(ctx->out, &c, ec->workload, nemo_days, sh);
	else
		print_table(ctx->out, cam, ec->workload, &c, nemo_days, sh);
	return EXIT_OK;
}

/* ---- a campaign file ------------------------------------------------- */

/* `estimate CAMPAIGN`: the base, or the layout the flags give with the
 * rest from the campaign's search. */
static int
estimate_campaign(struct cmd_ctx *ctx, struct layout_args *a,
                  const char *path, const struct str_list *settings)
{
	bool flags = any_layout_flag(a);
	struct sources src;
	struct shown sh = { &src, NULL, NOT_GIVEN };
	struct est_ctx ec;
	struct layout l;
	struct plan p;
	int status;

	if ((status = plan_build(&p, &PLAN_OPTS(ctx), path, settings)) != EXIT_OK)
		return status;
	ec = (struct est_ctx){ &p.settings, &p.workload, &p.spec, p.prefix };
	l = p.res.v[p.base].layout;
	if (!flags)
		sh.base_source = p.base_source;
	if (resolve_layout(a, &p.spec, &p.settings,
	                   flags ? FROM_SEARCH : FROM_BASE, true, &l,
	                   &src) != 0)
		status = EXIT_USAGE;
	else
		status = show(ctx, &ec, &l, NULL, &sh);
	plan_release(&p);
	return status;
}

/* ---- a candidate of a campaign directory ---------------------------- */

/*
 * Load DIR/campaign.conf as plan froze it: no site or user layer, only
 * the --set settings.  The one place here that reads a campaign
 * directory's configuration.  0, or an exit code after an error.
 */
static int
load_planned_campaign(const char *dir, const struct str_list *settings,
                      struct settings *c)
{
	char *path = xasprintf("%s/campaign.conf", dir);
	struct config_sources src;
	int ret = EXIT_OK;

	settings_init(c);
	if (access(path, R_OK) != 0) {
		error_errno("cannot read '%s'", path);
		ret = EXIT_DATAERR;
	} else {
		memset(&src, 0, sizeof(src));
		src.no_site = true;
		src.no_user = true;
		src.campaign_path = path;
		src.settings = (const char *const *)settings->v;
		src.nsettings = settings->n;
		ret = settings_load(c, &src);
	}
	free(path);
	return ret;
}

/* The row --rank or --name names in DIR/candidates.csv, else the base. */
static int
find_planned(const char *dir, const struct layout_args *a,
             struct candidate_row *out)
{
	struct candidate_table t;
	int found = -1;

	if (store_read_candidates(dir, &t) != 0)
		return EXIT_DATAERR;
	for (int i = 0; i < t.n && found < 0; i++)
		if (a->name ? !strcmp(t.v[i].name, a->name)
		            : a->rank != NOT_GIVEN ? t.v[i].rank == a->rank
		                                   : t.v[i].base)
			found = i;
	if (found >= 0)
		*out = t.v[found];
	else if (a->name)
		error("no candidate named '%s' in '%s'", a->name, dir);
	else if (a->rank != NOT_GIVEN)
		error("no candidate of rank %d in '%s' (%d planned, ranks "
		      "from 1)", a->rank, dir, t.n);
	else
		error("no base candidate in '%s'", dir);
	candidate_table_release(&t);
	return found >= 0 ? EXIT_OK : EXIT_DATAERR;
}

/* `estimate DIR [--rank N | --name NAME]`: a planned candidate, flags
 * changing what they name. */
static int
estimate_planned(struct cmd_ctx *ctx, struct layout_args *a,
                 const char *dir, const struct str_list *settings)
{
	struct settings c;
	struct workload w;
	struct grid_spec spec;
	struct strbuf notes = STRBUF_INIT;
	struct candidate_row row;
	struct sources src;
	struct shown sh = { &src, NULL, NOT_GIVEN };
	char prefix[128];
	struct est_ctx ec = { &c, &w, &spec, prefix };
	int status;

	if ((status = load_planned_campaign(dir, settings, &c)) != EXIT_OK)
		goto cleanup;
	settings_workload(&c, &w);
	candidate_name_prefix(&c, prefix, sizeof prefix);
	/* Plan printed its notes on the search already. */
	if (grid_spec_init(&spec, &c, &notes) != 0) {
		status = EXIT_CONFIG;
		goto cleanup;
	}
	if ((status = find_planned(dir, a, &row)) != EXIT_OK)
		goto cleanup;
	sh.rank = row.rank;
	if (resolve_layout(a, &spec, &c, FROM_PLAN, row.switches_known,
	                   &row.layout, &src) != 0)
		status = EXIT_USAGE;
	else
		status = show(ctx, &ec, &row.layout,
		              any_layout_flag(a) ? NULL : row.name, &sh);
cleanup:
	strbuf_release(&notes);
	settings_release(&c);
	return status;
}

/* Whether path is a directory (a campaign directory, not a file). */
static bool
is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

struct planned_call {
	struct cmd_ctx *ctx;
	struct layout_args *a;
	const char *dir;
	const struct str_list *settings;
};

/* estimate_planned as the directory's owner (owner.h). */
static int
estimate_planned_as_owner(void *arg)
{
	struct planned_call *pc = arg;

	return estimate_planned(pc->ctx, pc->a, pc->dir, pc->settings);
}

static int
cmd_estimate_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct layout_args a = {
		{ NOT_GIVEN, NOT_GIVEN, NOT_GIVEN, NOT_GIVEN, NOT_GIVEN,
		  NOT_GIVEN, NOT_GIVEN, NOT_GIVEN, NOT_GIVEN, NOT_GIVEN },
		NULL, NULL, 0, 0, STR_LIST_INIT, 0, NOT_GIVEN, NULL,
	};
	struct str_list settings = STR_LIST_INIT;
	const struct option opts[] = {
		OPT_INTEGER(0, "rank", &a.rank, "N",
		            "a planned candidate by its rank (needs DIR)"),
		OPT_STR(0, "name", &a.name, "NAME",
		        "a planned candidate by its name (needs DIR)"),
		OPT_INTEGER(0, "tp", &a.size[SF_TP], "N",
		            "tensor parallel size"),
		OPT_INTEGER(0, "pp", &a.size[SF_PP], "N",
		            "pipeline parallel size"),
		OPT_INTEGER(0, "cp", &a.size[SF_CP], "N",
		            "context parallel size"),
		OPT_INTEGER(0, "ep", &a.size[SF_EP], "N",
		            "expert parallel size"),
		OPT_INTEGER(0, "etp", &a.size[SF_ETP], "N",
		            "expert tensor parallel size"),
		OPT_INTEGER(0, "vp", &a.size[SF_VP], "N",
		            "virtual stages per pipeline rank"),
		OPT_INTEGER(0, "mbs", &a.size[SF_MBS], "N", "micro-batch size"),
		OPT_INTEGER(0, "gbs", &a.size[SF_GBS], "N",
		            "global batch size"),
		OPT_STR(0, "recompute", &a.recompute, "KIND",
		        "none, selective or full"),
		OPT_INTEGER(0, "recompute-layers", &a.size[SF_RC_LAYERS], "N",
		            "layers per stage recomputed (full)"),
		OPT_STR(0, "attention", &a.attention, "IMPL", "flash or unfused"),
		OPT_BOOLEAN(0, "no-sequence-parallel", &a.no_sp,
		            "turn sequence parallelism off"),
		OPT_BOOLEAN(0, "no-distributed-optimizer", &a.no_distopt,
		            "replicate the optimizer state"),
		OPT_STRLIST(0, "switch", &a.switches, "NAME=VALUE",
		            "set a switch (repeatable), e.g. fsdp=true"),
		OPT_STRLIST('s', "set", &settings, "KEY=VALUE",
		            "override a configuration key (repeatable)"),
		OPT_FORMAT_(NULL),
		OPT_FINISH,
	};
	bool planned;
	int status = EXIT_OK;

	if (cmd_parse_args(ctx, &cmd_estimate_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		goto cleanup;
	planned = a.rank != NOT_GIVEN || a.name;
	if (a.rank != NOT_GIVEN && a.name) {
		error("--rank and --name both name the candidate: give one");
		status = EXIT_USAGE;
	} else if (check_size_flags(&a) != 0) {
		status = EXIT_USAGE;
	} else if (planned && !is_directory(argv[1])) {
		error("'%s' is not a campaign directory (--%s needs the "
		      "directory plan wrote)", argv[1],
		      a.name ? "name" : "rank");
		status = access(argv[1], F_OK) == 0 ? EXIT_USAGE
		                                    : EXIT_DATAERR;
	} else if (planned || is_directory(argv[1])) {
		struct planned_call pc = { ctx, &a, argv[1], &settings };

		status = owner_run(argv[1], estimate_planned_as_owner, &pc);
	} else {
		status = estimate_campaign(ctx, &a, argv[1], &settings);
	}
cleanup:
	str_list_clear(&settings);
	str_list_clear(&a.switches);
	return status;
}

const struct cmd_entry cmd_estimate_entry = {
	"estimate", NULL, "CAMPAIGN|DIR",
	"memory breakdown and predicted speed of the base, a planned "
	"candidate or a given layout",
	cmd_estimate_exec,
};
