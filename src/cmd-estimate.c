/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-estimate.c - 'paratune estimate': memory breakdown, FLOPs and
 * predicted speed of the base configuration, of a candidate planned in
 * a campaign directory, or of a layout given on the command line, and
 * the training time that follows; with where each value came from.
 */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibration-note.h"
#include "cmd.h"
#include "error.h"
#include "json.h"
#include "layout-args.h"
#include "layout-switch.h"
#include "owner.h"
#include "plan.h"
#include "report-number.h"
#include "safe-text.h"
#include "sizing.h"
#include "store.h"
#include "table.h"
#include "util.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_estimate_entry;

static const struct {
	const char *json, *table;
} from_names[FROM_COUNT] = {
	[FROM_FLAG] = { "flag", "flag" },
	[FROM_PLAN] = { "plan", "planned candidate" },
	[FROM_BASE] = { "base", "base configuration" },
	[FROM_SEARCH] = { "search", "campaign search list" },
	[FROM_DEFAULT] = { "default", "default" },
};

/* ---- output ---------------------------------------------------------- */

/* Whether switch s acts on MoE layers only (a dense model shows none). */
static bool
moe_only(enum layout_switch s)
{
	return s == SW_MOE_DISPATCHER || s == SW_MOE_GROUPED_GEMM ||
	       s == SW_MOE_A2A_OVERLAP;
}

/* The switches for people: the name of each one on, NAME=VALUE for a
 * choice and for offloaded layers; nothing for what does not apply. */
static void
add_switches(struct strbuf *sb, const struct layout *l, enum precision p,
             bool moe)
{
	for (int i = 0; i < SW_COUNT; i++) {
		enum layout_switch s = (enum layout_switch)i;
		int v = layout_switch_get(l, p, s);

		if (v < 0 || (v == 0 && layout_switch_kind(s) != SWK_CHOICE))
			continue;
		if (moe_only(s) && !moe)
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
	int rank;                 /* planned rank, or LAYOUT_ARG_UNSET */
};

/* The names of the values from f, space-separated; "" when none.  A
 * dense model's are without the experts' (etp, the MoE switches). */
static void
add_sources(struct strbuf *sb, const struct sources *src, enum from f,
            bool moe)
{
	for (int i = 0; i < SF_COUNT; i++)
		if (src->size[i] == f && (moe || i != SF_ETP))
			strbuf_addf(sb, " %s", layout_args_size_names[i]);
	for (int i = 0; i < SW_COUNT; i++)
		if (src->sw[i] == f &&
		    (moe || !moe_only((enum layout_switch)i)))
			strbuf_addf(sb, " %s",
			            layout_switch_name((enum layout_switch)i));
}

/* One line per kind of source, strongest first. */
static void
print_sources(FILE *f, const struct shown *sh, bool moe)
{
	static const enum from order[] = {
		FROM_FLAG, FROM_PLAN, FROM_BASE, FROM_SEARCH, FROM_DEFAULT,
	};
	const char *label = "from";

	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		struct strbuf sb = STRBUF_INIT;

		add_sources(&sb, sh->src, order[i], moe);
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

/* The calibration and the file that set it: `config` showed where,
 * estimate did not, and a user who included a new one could not tell
 * which of two files won. */
static void
print_calibration(FILE *f, const struct calibration *cal,
                  const struct origin *o)
{
	if (o->file)
		safe_text_line(f, "  calibration  %s (%s:%d)",
		               calibration_label(cal), o->file, o->line);
	else
		fprintf(f, "  calibration  %s\n", calibration_label(cal));
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
	bool moe = cam->model.num_experts > 0;
	struct strbuf ours = STRBUF_INIT, nemo = STRBUF_INIT;

	safe_text_line(f, "%s", c->name);
	fprintf(f, "  layout       tp %d  pp %d  cp %d  ep %d", l->tp, l->pp,
	        l->cp, l->ep);
	/* The experts' tp means nothing without experts. */
	if (moe)
		fprintf(f, "  etp %d", layout_etp(l));
	fprintf(f, "  vp %d  dp %d  mbs %d  gbs %d  recompute %s%s\n", l->vp,
	        l->dp, l->mbs, l->gbs, recompute_name(l->recompute),
	        l->sequence_parallel ? "  sp" : "");
	add_switches(&sw, l, cam->precision, moe);
	fprintf(f, "  switches    %s\n", sw.buf);
	strbuf_release(&sw);
	print_sources(f, sh, moe);
	/* The stage with the most parameters (the first of an MoE model
	 * with dense first layers and the embedding) need not be the one
	 * whose memory the line below breaks down. */
	fprintf(f, "  parameters   %.3f B total, %.3f B on the GPU that "
	        "holds the most\n", e->params_total / 1e9,
	        e->params_per_gpu / 1e9);
	fprintf(f, "  FLOPs/step   %.4g (Megatron)  %.4g (NeMo 72BLsh^2)\n",
	        e->flops_per_step, e->flops_per_step_nemo);
	fprintf(f, "  memory/GPU   weights %.2f + gradients %.2f + optimizer "
	        "%.2f + activations %.2f + buffers %.2f = %.2f GiB of %.1f "
	        "(margin %.1f): %s\n", m->weights / GIB, m->gradients / GIB,
	        m->optimizer / GIB, m->activations / GIB, m->buffers / GIB,
	        m->total / GIB, w->gpu_memory_gib, w->margin_gib,
	        memory_status_name(e->memory_status));
	print_stages(f, e);
	fprintf(f, "  step time    %.3f s: compute %.3f, recompute %.3f, "
	        "tp %.3f, cp %.3f, ep %.3f, pp %.3f, bubble %.3f, dp %.3f\n",
	        e->step_s, e->compute_s, e->recompute_s, e->tp_comm_s,
	        e->cp_comm_s, e->ep_comm_s, e->pp_comm_s, e->bubble_s,
	        e->dp_comm_s);
	fprintf(f, "  interval     %.3f to %.3f s (%s)\n", e->step_s_low,
	        e->step_s_high, calibration_fitted(w->cal)
	        ? "the calibration's residuals" : "built-in band");
	print_calibration(f, w->cal, &cam->calibration_origin);
	if (cam->precision == PREC_FP8)
		fprintf(f, "  fp8 casts    %.3f s of compute (%s recipe)\n",
		        e->fp8_cast_s, fp8_recipe_name(l->fp8_recipe));
	if (cam->precision == PREC_FP4)
		fprintf(f, "  fp4 casts    %.3f s of compute (nvfp4 recipe)\n",
		        e->fp8_cast_s);
	fprintf(f, "  speed        %.0f tokens/s/GPU, %.1f TFLOP/s/GPU, MFU "
	        "%.1f %%\n", e->tokens_per_s_per_gpu, e->tflops_per_gpu,
	        100 * e->mfu);
	report_add_duration(&ours, e->train_days);
	report_add_duration(&nemo, nemo_days);
	fprintf(f, "  training     %s for %g B tokens at the predicted "
	        "speed; %s at %g TFLOPS/GPU (NeMo's formula%s)\n", ours.buf,
	        cam->num_tokens_in_b, nemo.buf, cam->tflops_per_gpu,
	        w->model->num_experts > 0 ? ", active parameters" : "");
	strbuf_release(&ours);
	strbuf_release(&nemo);
}

/* "sources": { "tp": "flag", ..., "sequence_parallel": "search", ... } */
static void
sources_json(struct json *j, const struct shown *sh)
{
	json_begin_object(j, "sources");
	for (int i = 0; i < SF_COUNT; i++)
		json_string(j, layout_args_size_names[i],
		            from_names[sh->src->size[i]].json);
	for (int i = 0; i < SW_COUNT; i++)
		json_string(j, layout_switch_name((enum layout_switch)i),
		            from_names[sh->src->sw[i]].json);
	json_end_object(j);
	if (sh->rank != LAYOUT_ARG_UNSET)
		json_int(j, "rank", sh->rank);
	if (sh->base_source)
		json_string(j, "base_source", sh->base_source);
}

/* "calibration_file" and "calibration_line": null for the built-in
 * defaults. */
static void
calibration_json(struct json *j, const struct origin *o)
{
	if (o->file) {
		json_string(j, "calibration_file", o->file);
		json_int(j, "calibration_line", o->line);
	} else {
		json_null(j, "calibration_file");
		json_null(j, "calibration_line");
	}
}

/* "memory": the breakdown of the heaviest stage; "stages": each one's. */
static void
json_memory(struct json *j, const struct estimate *e)
{
	json_begin_object(j, "memory");
	json_number(j, "weights_gib", e->mem.weights / GIB);
	json_number(j, "gradients_gib", e->mem.gradients / GIB);
	json_number(j, "optimizer_gib", e->mem.optimizer / GIB);
	json_number(j, "activations_gib", e->mem.activations / GIB);
	json_number(j, "buffers_gib", e->mem.buffers / GIB);
	json_number(j, "total_gib", e->mem.total / GIB);
	json_end_object(j);
	json_begin_array(j, "stages");
	for (int i = 0; i < e->nstages; i++) {
		json_begin_object(j, NULL);
		json_string(j, "stage", e->stages[i].name);
		json_int(j, "rank", e->stages[i].rank);
		json_number(j, "layers", e->stages[i].layers);
		json_number(j, "dense_layers", e->stages[i].dense_layers);
		json_number(j, "memory_gib", e->stages[i].total / GIB);
		json_end_object(j);
	}
	json_end_array(j);
}

/* "pred_step_parts": where the predicted step time goes. */
static void
json_step_parts(struct json *j, const struct estimate *e)
{
	json_begin_object(j, "pred_step_parts");
	json_number(j, "compute_s", e->compute_s);
	json_number(j, "fp8_cast_s", e->fp8_cast_s);
	json_number(j, "recompute_s", e->recompute_s);
	json_number(j, "tp_comm_s", e->tp_comm_s);
	json_number(j, "cp_comm_s", e->cp_comm_s);
	json_number(j, "ep_comm_s", e->ep_comm_s);
	json_number(j, "pp_comm_s", e->pp_comm_s);
	json_number(j, "bubble_s", e->bubble_s);
	json_number(j, "dp_comm_s", e->dp_comm_s);
	json_number(j, "offload_s", e->offload_s);
	json_end_object(j);
}

static void
print_json(FILE *f, const struct settings *cam, const struct candidate *c,
           const struct workload *w, double nemo_days,
           const struct shown *sh)
{
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
	json_memory(&j, e);
	json_string(&j, "memory_status", memory_status_name(e->memory_status));
	json_number(&j, "pred_step_s", e->step_s);
	json_number(&j, "pred_step_s_low", e->step_s_low);
	json_number(&j, "pred_step_s_high", e->step_s_high);
	json_string(&j, "calibration", calibration_label(w->cal));
	calibration_json(&j, &cam->calibration_origin);
	json_step_parts(&j, e);
	json_number(&j, "pred_tokens_per_s_per_gpu", e->tokens_per_s_per_gpu);
	json_number(&j, "pred_tflops_per_gpu", e->tflops_per_gpu);
	json_number(&j, "pred_mfu", e->mfu);
	json_number(&j, "pred_bubble_ratio", e->bubble_ratio);
	json_number(&j, "train_days", e->train_days);
	json_number(&j, "train_days_nemo_formula", nemo_days);
	json_begin_object(&j, "layout");
	layout_json(&j, &c->layout, w->precision);
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

/*
 * "invalid layout: RULE (the numbers)": the rule alone does not say
 * which values broke it, nor what a default (etp, dp) became.
 */
static void
invalid_layout(const struct workload *w, const struct layout *l,
               enum layout_rule rule)
{
	struct strbuf sb = STRBUF_INIT;

	layout_describe(&sb, w, l, rule);
	error("invalid layout: %s (%s)", layout_rule_name(rule), sb.buf);
	strbuf_release(&sb);
}

/* NeMo's sizing family of m: its own (mT5 trains 1.15 times longer),
 * GPT-3's for the decoders NeMo's formula treats alike. */
static enum sizing_family
nemo_family(const struct model *m)
{
	int f = sizing_family_parse(m->family);

	return f < 0 ? SIZING_GPT3 : (enum sizing_family)f;
}

/* The billions of parameters NeMo's formula (8 P T / (GPUs x TFLOPS))
 * takes: the model's, or an MoE model's active ones, which its compute
 * goes with: the total made qwen3_30b_a3b's training nine times longer
 * than the predicted speed's. */
static double
nemo_params_b(const struct model *m, const struct estimate *e)
{
	return (m->num_experts > 0 ? model_active_params(m)
	                           : e->params_total) / 1e9;
}

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
		invalid_layout(ec->workload, l, rule);
		return EXIT_USAGE;
	}
	grid_candidate(ec->spec, ec->workload, ec->prefix, l, &c);
	if (!estimate_finite(&c.est)) {
		error("the predicted step time or memory is not a finite "
		      "number: check the GPU's peak and bandwidths");
		return EXIT_CONFIG;
	}
	if (name)
		snprintf(c.name, sizeof c.name, "%s", name);
	/* Unrounded: NeMo's two decimals of a day hide a small model's
	 * hours (`size` keeps them, to give what NeMo gives). */
	nemo_days = sizing_exact_train_days(nemo_family(ec->workload->model),
	                                    nemo_params_b(ec->workload->model,
	                                                  &c.est),
	                                    cam->nodes * cam->gpus_per_node,
	                                    cam->tflops_per_gpu,
	                                    cam->num_tokens_in_b);
	if (ctx->format == FORMAT_JSON)
		print_json(ctx->out, cam, &c, ec->workload, nemo_days, sh);
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
	bool flags = layout_args_any(a);
	struct sources src;
	struct shown sh = { &src, NULL, LAYOUT_ARG_UNSET };
	struct est_ctx ec;
	struct layout l;
	struct plan p;
	int status;

	if ((status = plan_build(&p, &PLAN_OPTS(ctx), path,
	                         settings)) != EXIT_OK)
		return status;
	ec = (struct est_ctx){ &p.settings, &p.workload, &p.spec, p.prefix };
	l = p.res.v[p.base].layout;
	if (!flags)
		sh.base_source = p.base_source;
	if (layout_args_resolve(a, &p.spec, &p.settings,
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
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		/* As list, status and the others say it (exit 66). */
		error("'%s' is not a campaign directory (no campaign.conf)",
		      dir);
		ret = EXIT_NOINPUT;
	} else if (access(path, R_OK) != 0) {
		error_errno("cannot read '%s'", path);
		ret = EXIT_DATAERR;
	} else {
		memset(&src, 0, sizeof(src));
		src.no_site = true;
		src.no_user = true;
		src.campaign_path = path;
		/* Frozen, as the store reads it: plan's warnings are not
		 * repeated, and its record of where the calibration came
		 * from is read (the note below needs it). */
		src.frozen = true;
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
		    : a->rank != LAYOUT_ARG_UNSET ? t.v[i].rank == a->rank
		                                  : t.v[i].base)
			found = i;
	if (found >= 0)
		*out = t.v[found];
	else if (a->name)
		error("no candidate named '%s' in '%s'", a->name, dir);
	else if (a->rank != LAYOUT_ARG_UNSET)
		error("no candidate of rank %d in '%s' (%d planned, ranks "
		      "from 1)", a->rank, dir, t.n);
	else
		error("no base candidate in '%s'", dir);
	candidate_table_release(&t);
	return found >= 0 ? EXIT_OK : EXIT_DATAERR;
}

/*
 * The note on DIR's calibration (calibration-note.h): of the campaign as
 * planned.  --set changes what this estimate uses, not the plan: a
 * calibration it sets is neither what the campaign was planned with nor
 * what a new plan of the campaign file keeps, so the campaign is read
 * again without it.
 */
static void
note_planned(struct cmd_ctx *ctx, const char *dir, const struct settings *c,
             const struct str_list *settings)
{
	struct str_list none = STR_LIST_INIT;
	struct settings planned;

	if (settings->n == 0) {
		calibration_note_dir(dir, c, ctx->site_path);
		return;
	}
	if (load_planned_campaign(dir, &none, &planned) == EXIT_OK)
		calibration_note_dir(dir, &planned, ctx->site_path);
	settings_release(&planned);
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
	struct shown sh = { &src, NULL, LAYOUT_ARG_UNSET };
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
	/* As the other commands warn of it (store.c): the estimate is of
	 * the campaign as it reads now, not as it was planned. */
	if (settings->n == 0 && !candidate_name_fits(&c, row.name)) {
		struct strbuf why = STRBUF_INIT;

		candidate_name_unfit(&why, dir, &c, row.name);
		warning("%s: estimated as it reads now", why.buf);
		strbuf_release(&why);
	}
	sh.rank = row.rank;
	if (layout_args_resolve(a, &spec, &c, FROM_PLAN, row.switches_known,
	                        &row.layout, &src) != 0)
		status = EXIT_USAGE;
	else /* flags or --set change what the planned name says */
		status = show(ctx, &ec, &row.layout,
		              layout_args_any(a) || settings->n > 0
		              ? NULL : row.name, &sh);
	/* After the estimate, which it does not change: the campaign
	 * stays frozen, the note says how to move it on. */
	if (status == EXIT_OK && ctx->verbosity >= 0)
		note_planned(ctx, dir, &c, settings);
cleanup:
	strbuf_release(&notes);
	settings_release(&c);
	return status;
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

/* What estimate ARG... estimates: a planned candidate (--rank, --name)
 * or the base of a campaign directory, as its owner; else the base or
 * the given layout of a campaign file. */
static int
estimate_target(struct cmd_ctx *ctx, struct layout_args *a,
                const char *path, struct str_list *settings)
{
	bool planned = a->rank != LAYOUT_ARG_UNSET || a->name;
	int dir;

	if (a->rank != LAYOUT_ARG_UNSET && a->name) {
		error("--rank and --name both name the candidate: give one");
		return EXIT_USAGE;
	}
	if (layout_args_check(a) != 0)
		return EXIT_USAGE;
	/* Run as root, under the limit of every look at a campaign
	 * directory: a stat() in a FUSE file system whose daemon stopped
	 * never returned. */
	if ((dir = owner_is_dir(path)) < 0)
		return EXIT_TEMPFAIL;
	if (planned && !dir) {
		/* Whether something is there is root's to say only of a
		 * path of root's: one in another user's directory that
		 * only root can search got 64 when a file was there and
		 * 66 when none was. */
		int held = owner_root_path(path);

		if (held != 0)
			return held;
		error("'%s' is not a campaign directory (--%s needs the "
		      "directory plan wrote)", path,
		      a->name ? "name" : "rank");
		return access(path, F_OK) == 0 ? EXIT_USAGE : EXIT_NOINPUT;
	}
	if (planned || dir) {
		struct planned_call pc = { ctx, a, path, settings };

		return owner_run(path, estimate_planned_as_owner, &pc);
	}
	return estimate_campaign(ctx, a, path, settings);
}

static int
cmd_estimate_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct layout_args a = LAYOUT_ARGS_INIT;
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
		OPT_STR(0, "attention", &a.attention, "IMPL",
		        "flash or unfused"),
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
	int status = EXIT_OK;

	if (cmd_parse_args(ctx, &cmd_estimate_entry, opts, argc, argv, 1, 1,
	                   &status) >= 0)
		status = estimate_target(ctx, &a, argv[1], &settings);
	str_list_clear(&settings);
	str_list_clear(&a.switches);
	return status;
}

const struct cmd_entry cmd_estimate_entry = {
	"estimate", NULL, "CAMPAIGN|DIR",
	"memory breakdown and predicted speed of the base, a planned "
	"candidate or a given layout",
	cmd_estimate_exec,
	NULL,
};
