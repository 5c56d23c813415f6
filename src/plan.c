/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * plan.c - load, expand, estimate, rank, and choose the base.
 */
#include "autoconfig.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "error.h"
#include "layout-switch.h"
#include "nemo-heuristics.h"
#include "plan.h"

/* What plan writes, the store must read back. */
_Static_assert(PLAN_KEPT_MAX <= STORE_CANDIDATES_MAX,
               "the store reads as many candidates as plan keeps");

/* Progress on stderr: on a terminal, one line redrawn; otherwise (plan
 * --progress into a log) one line per update. */
struct plan_progress {
	bool tty;
	const struct grid_stats *stats;
	double t0, last;
};

static double
seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Called by the grid every 2^20 combinations, so it reads the clock only
 * that often; it prints at most four times a second, and always at the
 * end.  A terminal sees nothing for grids done in a moment.
 */
static void
plan_progress(void *arg, long long examined, long long total)
{
	struct plan_progress *pr = arg;
	double now = seconds_now(), rate, left;
	bool done = examined >= total;

	if (pr->tty && total < 4 * (1LL << 20))
		return;
	if (!done && now - pr->last < 0.25)
		return;
	pr->last = now;
	rate = (double)examined / (now - pr->t0 > 1e-9 ? now - pr->t0 : 1e-9);
	left = rate > 0 && !done ? (double)(total - examined) / rate : 0;
	/* A total of 0 (a grid of no combination) is done: no inf %. */
	fprintf(stderr, "%splan: %lld of %lld combinations (%.0f %%), %lld "
	        "valid, %.1f M/s, %s %.1f s%s", pr->tty ? "\r" : "",
	        examined, total, done ? 100.0
	        : 100.0 * (double)examined / (double)total,
	        pr->stats->valid, rate / 1e6, done ? "took" : "ETA",
	        done ? now - pr->t0 : left, pr->tty && !done ? "\033[K" : "\n");
}

/* A base layout with everything but tp, pp and gbs at its default. */
static void
base_defaults(const struct plan *p, struct layout *l, int tp, int pp,
              int gbs)
{
	memset(l, 0, sizeof(*l));
	l->tp = tp;
	l->pp = pp;
	l->cp = l->ep = l->vp = l->mbs = 1;
	l->gbs = gbs;
	l->recompute = (enum recompute)p->spec.recompute.v[0];
	plan_search_switches(&p->settings, l);
	settings_default_switches(&p->settings, l);
}

void
plan_search_switches(const struct settings *c, struct layout *l)
{
	const struct search_space *s = &c->search;
	bool sp = l->tp > 1;

	/* A search that holds only the other value overrides the default. */
	if (s->sequence_parallel && !(s->sequence_parallel & BIT(sp)))
		sp = !sp;
	l->sequence_parallel = sp && l->tp > 1;
	l->distributed_optimizer = s->distributed_optimizer == 0 ||
	                           (s->distributed_optimizer & BIT(1));
	l->attention = s->attention == 0 || (s->attention & BIT(ATTN_FLASH))
	               ? ATTN_FLASH : ATTN_UNFUSED;
}

/* A removed layout in a line: its sizes, as far as the walk built it. */
static void
near_describe(const struct grid_near *n, struct strbuf *sb)
{
	const struct layout *l = &n->layout;

	strbuf_addf(sb, "tp %d pp %d cp %d", l->tp, l->pp, l->cp);
	if (l->first_stage_layers || l->last_stage_layers)
		strbuf_addf(sb, " (stages %d/../%d)", l->first_stage_layers,
		            l->last_stage_layers);
	if (l->pipeline_layout)
		strbuf_addstr(sb, " (pipeline layout)");
	if (n->leaf)
		strbuf_addf(sb, " ep %d vp %d mbs %d gbs %d %s", l->ep, l->vp,
		            l->mbs, l->gbs, recompute_name(l->recompute));
}

/* The removed layouts that came nearest to a candidate, and why. */
static void
near_layouts(const struct grid_result *res)
{
	struct strbuf sb = STRBUF_INIT;

	if (res->nnear == 0)
		return;
	fprintf(stderr, "nearest removed layouts:\n");
	for (int i = 0; i < res->nnear; i++) {
		strbuf_reset(&sb);
		near_describe(&res->near[i], &sb);
		/* Numbers and our own rule names only. */
		fprintf(stderr, "  %-56s %s\n", sb.buf,
		        layout_rule_name(res->near[i].rule));
	}
	strbuf_release(&sb);
}

/*
 * What to change for a nearest removed layout's rule, where the general
 * hint names nothing that helps.  gbs % (mbs*dp): the global batch is
 * a top-level key, not a search list or control, and no list fixes a
 * batch smaller than every layout's data-parallel size (a small model
 * on many nodes); the sizes say why.  Once per rule.
 */
static void
near_hints(const struct plan *p)
{
	const struct grid_result *res = &p->res;

	for (int i = 0; i < res->nnear; i++) {
		const struct layout *l = &res->near[i].layout;

		if (res->near[i].rule != RULE_BATCH || !res->near[i].leaf)
			continue;
		fprintf(stderr, "hint: global_batch_size %d is not a multiple "
		        "of micro-batch %d x dp %d (tp %d pp %d cp %d on %d "
		        "GPUs): list one that is in global_batch_size, or plan "
		        "fewer GPUs (nodes, gpus_per_node)\n", l->gbs, l->mbs,
		        l->dp, l->tp, l->pp, l->cp,
		        workload_world(&p->workload));
		return;
	}
}

/*
 * Every combination was removed: say by which rules, so that the user
 * sees what to change (a list, a control such as search.relax or the
 * model-parallel range) instead of a bare refusal.
 */
static int
no_candidate(const struct plan *p)
{
	const struct grid_stats *st = &p->res.stats;

	error("no valid candidate: all %lld combinations were removed, by "
	      "these rules:", st->examined);
	/* Our own rule names and counts: nothing here to escape. */
	for (int r = 1; r < RULE_COUNT; r++) {
		enum rule_kind k = layout_rule_kind((enum layout_rule)r);

		if (st->by_rule[r])
			fprintf(stderr, "  %-52s %lld %s\n",
			        layout_rule_name((enum layout_rule)r),
			        st->by_rule[r],
			        k == RULE_KIND_CONTROL ? "(a search control)"
			        : k == RULE_KIND_INVALID
			        ? "(Megatron-LM would refuse them)"
			        : "(no effect)");
	}
	near_layouts(&p->res);
	fprintf(stderr, "hint: widen the search lists, or relax a control "
	        "(search.relax, search.min/max_model_parallel, the bubble "
	        "and unbalance ratios; see paratune.conf(5))\n");
	near_hints(p);
	return EXIT_CONFIG;
}

/* The campaign's base section breaks rule r: where it was set, the
 * rule, and the values it judged.  -1. */
static int
base_invalid(const struct plan *p, const struct layout *l,
             enum layout_rule r)
{
	static const char *const keys[] = {
		"base.micro_batch_size", "base.global_batch_size",
		"base.tensor_parallel", "base.pipeline_parallel",
		"base.context_parallel", "base.virtual_pipeline",
		"base.expert_parallel", NULL
	};
	struct strbuf where = STRBUF_INIT, what = STRBUF_INIT;
	const char *first;

	for (int i = 0; keys[i] && where.len == 0; i++)
		settings_where(&p->settings, keys[i], &where);
	/* A switch of the base (sequence_parallel, fp8_recipe, ...) broke
	 * the rule: the section's first key says where it is. */
	if (where.len == 0 && (first = settings_first_in(&p->settings,
	                                                  "base.")))
		settings_where(&p->settings, first, &where);
	layout_describe(&what, &p->workload, l, r);
	error("%sbase configuration is invalid: %s (%s)", where.buf,
	      layout_rule_name(r), what.buf);
	strbuf_release(&where);
	strbuf_release(&what);
	return -1;
}

/*
 * The base: the campaign's own, else NeMo's base-config rule where it
 * has a valid row, else the safe candidate with the smallest
 * model-parallel size (the one predicted fastest among those).  NeMo's
 * rule sizes tp and pp for a dense model of the total parameter count
 * with ep 1; on an MoE model that puts every expert on every GPU
 * (Qwen3 30B-A3B on 16 H100: tp 8, pp 2, predicted at 0.3 % MFU), a
 * layout no one runs and a poor yardstick for the savings results
 * report, so MoE models take the smallest model-parallel candidate,
 * which spreads the experts with ep instead.  With searched_only (plan),
 * a search that kept no combination is refused even where a base would
 * be valid: a campaign of nothing but a base outside the lists the user
 * searched is not what was asked for.  Returns -1 after an error.
 */
static int
choose_base(struct plan *p, bool searched_only)
{
	const struct settings *c = &p->settings;
	struct layout l;
	int tp, pp, gbs;

	if (p->res.n == 0 && searched_only)
		return no_candidate(p);
	if (c->base.set) {
		enum layout_rule r;

		l = c->base.layout;
		if ((r = layout_check(&p->workload, &l)) != LAYOUT_OK)
			return base_invalid(p, &l, r);
		p->base_source = "the campaign's base section";
	} else if (c->model.num_experts == 0 &&
	           nemo_base_config(&c->model,
	                            model_params(&c->model) / 1e9,
	                            c->seq_length, c->gpu.memory_gib, &tp,
	                            &pp, &gbs) == 0 &&
	           (base_defaults(p, &l, tp, pp, p->spec.gbs.v[0]),
	            layout_check(&p->workload, &l) == LAYOUT_OK)) {
		p->base_source = "NeMo's base-config rule for the model size";
	} else {
		int i = grid_default_base(&p->res);

		if (i < 0 && p->res.n == 0)
			return no_candidate(p);
		l = p->res.v[i < 0 ? 0 : i].layout;
		p->base_source = i < 0 ? "the best candidate (none is safe)"
		                       : "the safe candidate with the "
		                         "smallest model-parallel size";
	}
	p->base = grid_add_base(&p->res, &p->spec, &p->workload, p->prefix,
	                        &l);
	/* The grid leaves such layouts out; the base is added apart. */
	if (!estimate_finite(&p->res.v[p->base].est))
		return error("the base layout's predicted step time or memory "
		             "is not a finite number: check the GPU's peak "
		             "and bandwidths");
	return 0;
}

/* The widths of the rule names and of the counts that
 * summarise_rules shows: a name wider than a fixed column pushed its
 * count out of line with the others. */
static void
rule_widths(const struct grid_stats *st, int *name_w, int *count_w)
{
	*name_w = 44;
	*count_w = 1;
	for (int r = 1; r < RULE_COUNT; r++) {
		int n;

		if (!st->by_rule[r])
			continue;
		n = (int)strlen(layout_rule_name((enum layout_rule)r));
		if (n > *name_w)
			*name_w = n;
		n = snprintf(NULL, 0, "%lld", st->by_rule[r]);
		if (n > *count_w)
			*count_w = n;
	}
}

/* One line per rule of a kind that left combinations out. */
static void
summarise_rules(struct strbuf *sb, const struct grid_stats *st,
                enum rule_kind kind, const char *label)
{
	int name_w, count_w;

	rule_widths(st, &name_w, &count_w);
	for (int r = 1; r < RULE_COUNT; r++)
		if (st->by_rule[r] && layout_rule_kind((enum layout_rule)r) ==
		                      kind)
			strbuf_addf(sb, "  %-11s%-*s %*lld\n", label, name_w,
			            layout_rule_name((enum layout_rule)r),
			            count_w, st->by_rule[r]);
}

/* Where a layout keeps each searched parallel axis, in the order of
 * warn_lost_values' keys: one map for reading and setting. */
static const size_t axis_offset[] = {
	offsetof(struct layout, tp), offsetof(struct layout, pp),
	offsetof(struct layout, cp), offsetof(struct layout, ep),
	offsetof(struct layout, vp), offsetof(struct layout, mbs),
};

/* A layout's value on one of the searched parallel axes. */
static int
axis_value(const struct layout *l, int axis)
{
	return *(const int *)((const char *)l + axis_offset[axis]);
}

/* Set a layout's value on one of the searched parallel axes. */
static void
axis_set(struct layout *l, int axis, int v)
{
	*(int *)((char *)l + axis_offset[axis]) = v;
}

/*
 * Why Megatron-LM's rules refuse value v on an axis: the best kept
 * candidate with v in its place, checked.  A value such as tp 8 for a
 * model of 12 heads is removed from every layout by one rule, which the
 * warning then names rather than leave the user to guess it.  An
 * example, not every reason: NULL when that layout passes.
 */
static const char *
lost_value_rule(const struct plan *p, int axis, int v)
{
	struct layout l;
	enum layout_rule r;

	if (p->res.n == 0)
		return NULL;
	l = p->res.v[0].layout;
	axis_set(&l, axis, v);
	r = layout_check(&p->workload, &l);
	return r == LAYOUT_OK ? NULL : layout_rule_name(r);
}

/*
 * A value the user listed explicitly that no kept candidate has was
 * removed by a rule: say so on the terminal, with the search controls
 * that removed anything, rather than let a control drop it silently,
 * and with the Megatron-LM rule that refuses it in the best candidate.
 */
static void
warn_lost_values(const struct plan *p)
{
	static const char *const keys[] = {
		"search.tensor_parallel", "search.pipeline_parallel",
		"search.context_parallel", "search.expert_parallel",
		"search.virtual_pipeline", "search.micro_batch_size",
	};
	const struct search_space *s = &p->settings.search;
	const struct int_list *lists[] = {
		&s->tp, &s->pp, &s->cp, &s->ep, &s->vp, &s->mbs,
	};
	const struct grid_stats *st = &p->res.stats;
	struct strbuf controls = STRBUF_INIT;

	/* Candidates beyond search.max_candidates were valid, not removed:
	 * a value may be among them. */
	if (st->valid > p->res.n)
		return;
	for (int r = 1; r < RULE_COUNT; r++)
		if (st->by_rule[r] && layout_rule_kind((enum layout_rule)r) ==
		                      RULE_KIND_CONTROL)
			strbuf_addf(&controls, "%s%s", controls.len ? ", " : "",
			            layout_rule_name((enum layout_rule)r));
	for (int a = 0; a < (int)(sizeof axis_offset / sizeof axis_offset[0]);
	     a++) {
		const struct int_list *l = lists[a];

		if (l->is_auto || !settings_origin(&p->settings, keys[a]))
			continue;
		for (int i = 0; i < l->n; i++) {
			bool kept = false;

			for (int c = 0; c < p->res.n && !kept; c++)
				kept = axis_value(&p->res.v[c].layout, a) ==
				       l->v[i];
			if (!kept) {
				const char *why =
					lost_value_rule(p, a, l->v[i]);

				warning("%s lists %d, but no candidate "
				        "kept it%s%s%s%s", keys[a], l->v[i],
				        controls.len
				        ? "; search controls removed "
				          "layouts: " : "",
				        controls.buf,
				        why ? "; in the best candidate's "
				              "place, Megatron-LM refuses it: "
				            : "", why ? why : "");
			}
		}
	}
	strbuf_release(&controls);
}

/*
 * The counts by kind: invalid (Megatron-LM would refuse the run), no
 * effect (a switch that changes nothing in that layout, so the run is
 * one already kept) and removed (a search control left it out).
 */
static void
summarise_counts(struct plan *p)
{
	const struct grid_stats *st = &p->res.stats;
	struct strbuf *sb = &p->summary;

	strbuf_addf(sb, "examined %lld combinations in %.2f s: %lld valid "
	            "(%lld safe, %lld at risk of OOM), %lld invalid",
	            st->examined, p->seconds, st->valid, st->safe,
	            st->oom_risk, st->invalid);
	if (st->no_effect)
		strbuf_addf(sb, ", %lld without effect", st->no_effect);
	if (st->removed)
		strbuf_addf(sb, ", %lld removed by search controls",
		            st->removed);
	strbuf_addch(sb, '\n');
	summarise_rules(sb, st, RULE_KIND_INVALID, "invalid:");
	summarise_rules(sb, st, RULE_KIND_NO_EFFECT, "no effect:");
	summarise_rules(sb, st, RULE_KIND_CONTROL, "removed:");
	if (st->invalid)
		strbuf_addstr(sb, "  (invalid: Megatron-LM would refuse the "
		              "run)\n");
	if (st->no_effect)
		strbuf_addstr(sb, "  (no effect: the switch changes nothing "
		              "there; the run is kept once, with\n"
		              "   its default or the first value listed)\n");
	if (st->removed)
		strbuf_addstr(sb, "  (removed by a search control: "
		              "search.relax turns off a placement rule\n"
		              "   by the name before its colon; "
		              "search.min/max_model_parallel and\n"
		              "   search.max_pipeline_*_ratio are limits)\n");
}

static void
summarise(struct plan *p)
{
	const struct grid_stats *st = &p->res.stats;
	struct strbuf *sb = &p->summary;

	summarise_counts(p);
	strbuf_addf(sb, "kept %d candidates", p->res.n);
	if (st->dropped)
		strbuf_addf(sb, " (%lld more valid beyond "
		            "search.max_candidates)", st->dropped);
	strbuf_addf(sb, "\nbase: %s (%s)\n", p->res.v[p->base].name,
	            p->base_source);
	if (p->settings.size_reason)
		strbuf_addf(sb, "model size: %s\n", p->settings.size_reason);
	strbuf_addf(sb, "calibration: %s\n",
	            calibration_label(&p->settings.calibration));
}

/*
 * Refuse a grid that would take hours to walk, before walking it; and
 * one whose lists multiply past 2^63 even when the outer rules count it
 * all out, since its counts (grid.c saturates them) would be wrong.
 */
static int
check_leaves(const struct plan *p)
{
	double leaves = grid_leaves(&p->spec, &p->workload);
	long long size = grid_spec_size(&p->spec);

	if (leaves > GRID_LEAVES_MAX)
		return error("the search would check %.3g layouts one by one "
		             "(of %s%lld combinations), more than %.0e: "
		             "shorten the lists searched for each tp, pp and "
		             "cp (batch sizes, virtual_pipeline, "
		             "expert_parallel, recompute and offload layers, "
		             "the switches)", leaves,
		             size == LLONG_MAX ? "more than " : "", size,
		             GRID_LEAVES_MAX);
	if (size == LLONG_MAX)
		return error("the search lists multiply to more than %lld "
		             "combinations, too many to count: shorten them",
		             size);
	return 0;
}

int
plan_build(struct plan *p, const struct plan_opts *o, const char *path,
           const struct str_list *settings)
{
	struct strbuf notes = STRBUF_INIT;
	struct timespec t0, t1;
	struct plan_progress progress;
	bool show;
	int status;

	memset(p, 0, sizeof(*p));
	strbuf_init(&p->summary, 0);
	status = settings_load_for(&p->settings, o->site_path, path, settings);
	if (status != EXIT_OK)
		return status;
	if (o->searched_only &&
	    p->settings.search.max_candidates > PLAN_KEPT_MAX) {
		error("search.max_candidates = %d: plan keeps at most %d "
		      "candidates, each written with its run directory and "
		      "job script (some 13 KB); lower it",
		      p->settings.search.max_candidates, PLAN_KEPT_MAX);
		plan_release(p);
		return EXIT_CONFIG;
	}
	settings_workload(&p->settings, &p->workload);
	candidate_name_prefix(&p->settings, p->prefix, sizeof p->prefix);
	if (grid_spec_init(&p->spec, &p->settings, &notes) != 0) {
		strbuf_release(&notes);
		plan_release(p);
		return EXIT_CONFIG;
	}
	if (notes.len)
		fputs(notes.buf, stderr);
	strbuf_release(&notes);
	if (check_leaves(p) != 0) {
		plan_release(p);
		return EXIT_CONFIG;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	progress.tty = isatty(STDERR_FILENO);
	progress.stats = &p->res.stats;
	progress.t0 = progress.last = seconds_now();
	show = !o->quiet && (o->progress || progress.tty);
	grid_run(&p->spec, &p->workload, p->prefix,
	         p->settings.search.max_candidates, &p->res,
	         show ? plan_progress : NULL, &progress);
	grid_finish(&p->res);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	p->seconds = (double)(t1.tv_sec - t0.tv_sec) +
	             (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!o->quiet)
		warn_lost_values(p);
	if (choose_base(p, o->searched_only) != 0) {
		plan_release(p);
		return EXIT_CONFIG;
	}
	summarise(p);
	return EXIT_OK;
}

void
plan_release(struct plan *p)
{
	grid_result_release(&p->res);
	settings_release(&p->settings);
	strbuf_release(&p->summary);
}

/* "NAME": { rule: count, ... } for the rules of one kind. */
static void
stats_json_rules(struct json *j, const struct grid_stats *st,
                 enum rule_kind kind, const char *name)
{
	json_begin_object(j, name);
	for (int r = 1; r < RULE_COUNT; r++)
		if (st->by_rule[r] &&
		    layout_rule_kind((enum layout_rule)r) == kind)
			json_int(j, layout_rule_name((enum layout_rule)r),
			         st->by_rule[r]);
	json_end_object(j);
}

void
plan_stats_json(struct json *j, const struct plan *p)
{
	const struct grid_stats *st = &p->res.stats;

	json_int(j, "examined", st->examined);
	json_int(j, "valid", st->valid);
	json_int(j, "invalid", st->invalid);
	json_int(j, "no_effect", st->no_effect);
	json_int(j, "removed", st->removed);
	json_int(j, "safe", st->safe);
	json_int(j, "oom_risk", st->oom_risk);
	json_int(j, "dropped", st->dropped);
	stats_json_rules(j, st, RULE_KIND_INVALID, "invalid_by_rule");
	stats_json_rules(j, st, RULE_KIND_NO_EFFECT, "no_effect_by_rule");
	stats_json_rules(j, st, RULE_KIND_CONTROL, "removed_by_control");
	json_string(j, "base", p->res.v[p->base].name);
	json_string(j, "calibration",
	            calibration_label(&p->settings.calibration));
}

void
plan_candidate_json(struct json *j, const struct candidate *c,
                    enum precision precision)
{
	const struct memory_breakdown *m = &c->est.mem;

	json_begin_object(j, NULL);
	json_int(j, "rank", c->rank);
	json_string(j, "name", c->name);
	layout_json(j, &c->layout, precision);
	json_begin_object(j, "memory");
	json_number(j, "weights_gib", m->weights / GIB);
	json_number(j, "gradients_gib", m->gradients / GIB);
	json_number(j, "optimizer_gib", m->optimizer / GIB);
	json_number(j, "activations_gib", m->activations / GIB);
	json_number(j, "buffers_gib", m->buffers / GIB);
	json_number(j, "total_gib", m->total / GIB);
	json_end_object(j);
	json_string(j, "memory_status",
	            memory_status_name(c->est.memory_status));
	json_number(j, "pred_step_s", c->est.step_s);
	json_number(j, "pred_step_s_low", c->est.step_s_low);
	json_number(j, "pred_step_s_high", c->est.step_s_high);
	json_number(j, "pred_bubble_ratio", c->est.bubble_ratio);
	json_number(j, "pred_unbalance_ratio", c->est.unbalance_ratio);
	json_number(j, "pred_tokens_per_s_per_gpu",
	            c->est.tokens_per_s_per_gpu);
	json_number(j, "pred_tflops_per_gpu", c->est.tflops_per_gpu);
	json_number(j, "pred_mfu", c->est.mfu);
	json_bool(j, "base", c->base);
	json_end_object(j);
}
