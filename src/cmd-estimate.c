/*
 * cmd-estimate.c - 'paratune estimate': memory breakdown, FLOPs and
 * predicted speed of the base configuration or of a layout given on the
 * command line, and the training time that follows.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "error.h"
#include "json.h"
#include "layout-switch.h"
#include "plan.h"
#include "sizing.h"
#include "table.h"

extern const struct cmd_entry cmd_estimate_entry;

/* Layout fields given on the command line; -1 means "from the base". */
struct layout_args {
	int tp, pp, cp, ep, etp, vp, mbs, gbs, rc_layers;
	const char *recompute, *attention;
	int no_sp, no_distopt;
	struct str_list switches;     /* --switch NAME=VALUE */
	unsigned given;               /* BIT(enum layout_switch) named */
};

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
		             "name (a column of candidates.csv, from "
		             "recompute_method to offload_layers)", arg);
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
follow_switches(const struct layout_args *a, const struct campaign *c,
                struct layout *l)
{
	if ((a->given & BIT(SW_FSDP)) && l->fsdp && !a->no_distopt &&
	    !(a->given & BIT(SW_DISTRIBUTED_OPTIMIZER)))
		l->distributed_optimizer = false;
	if (!(a->given & BIT(SW_OVERLAP_PARAM_GATHER)) &&
	    c->search.overlap_param_gather == 0 &&
	    !campaign_origin(c, "base.overlap_param_gather"))
		l->overlap_param_gather = l->overlap_grad_reduce &&
		                          (l->distributed_optimizer || l->fsdp);
}

static int
apply_args(struct layout_args *a, const struct campaign *c,
           struct layout *l)
{
	if (a->tp > 0) {
		l->tp = a->tp;
		l->sequence_parallel = a->tp > 1;
	}
	if (a->pp > 0) l->pp = a->pp;
	if (a->cp > 0) l->cp = a->cp;
	if (a->ep > 0) l->ep = a->ep;
	if (a->etp >= 0) l->etp = a->etp;
	if (a->vp > 0) l->vp = a->vp;
	if (a->mbs > 0) l->mbs = a->mbs;
	if (a->gbs > 0) l->gbs = a->gbs;
	if (a->rc_layers >= 0) l->recompute_layers = a->rc_layers;
	if (a->no_sp) l->sequence_parallel = false;
	if (a->no_distopt) l->distributed_optimizer = false;
	if (a->recompute) {
		int r = recompute_parse(a->recompute);

		if (r < 0)
			return error("unknown recompute '%s' (none, selective "
			             "or full)", a->recompute);
		l->recompute = (enum recompute)r;
	}
	if (a->attention) {
		int at = attention_parse(a->attention);

		if (at < 0)
			return error("unknown attention '%s' (flash or "
			             "unfused)", a->attention);
		l->attention = (enum attention_impl)at;
	}
	for (int i = 0; i < a->switches.n; i++)
		if (apply_switch(a, a->switches.v[i], l) != 0)
			return -1;
	follow_switches(a, c, l);
	return 0;
}

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
		strbuf_addf(sb, " %s", layout_switch_name(s));
		if (layout_switch_kind(s) != SWK_BOOL) {
			strbuf_addch(sb, '=');
			layout_switch_format(l, p, s, sb);
		}
	}
}

static void
print_table(FILE *f, const struct plan *p, const struct candidate *c,
            double nemo_days)
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
	add_switches(&sw, l, p->campaign.precision);
	fprintf(f, "  switches    %s\n", sw.buf);
	strbuf_release(&sw);
	fprintf(f, "  parameters   %.3f B total, %.3f B on the most loaded GPU\n",
	        e->params_total / 1e9, e->params_per_gpu / 1e9);
	fprintf(f, "  FLOPs/step   %.4g (Megatron)  %.4g (NeMo 72BLsh^2)\n",
	        e->flops_per_step, e->flops_per_step_nemo);
	fprintf(f, "  memory/GPU   weights %.2f + gradients %.2f + optimizer "
	        "%.2f + activations %.2f + buffers %.2f = %.2f GiB of %.1f "
	        "(margin %.1f): %s\n", m->weights / GIB, m->gradients / GIB,
	        m->optimizer / GIB, m->activations / GIB, m->buffers / GIB,
	        m->total / GIB, p->workload.gpu_memory_gib,
	        p->workload.margin_gib, memory_status_name(e->memory_status));
	fprintf(f, "  step time    %.3f s: compute %.3f, recompute %.3f, tp %.3f, "
	        "cp %.3f, ep %.3f, pp %.3f, bubble %.3f, dp %.3f\n", e->step_s,
	        e->compute_s, e->recompute_s, e->tp_comm_s, e->cp_comm_s,
	        e->ep_comm_s, e->pp_comm_s, e->bubble_s, e->dp_comm_s);
	fprintf(f, "  speed        %.0f tokens/s/GPU, %.1f TFLOP/s/GPU, MFU "
	        "%.1f %%\n", e->tokens_per_s_per_gpu, e->tflops_per_gpu,
	        100 * e->mfu);
	fprintf(f, "  training     %.2f days for %g B tokens at the predicted "
	        "speed; %.2f days at %g TFLOPS/GPU (NeMo's formula)\n",
	        e->train_days, p->campaign.num_tokens_in_b, nemo_days,
	        p->campaign.tflops_per_gpu);
}

static void
print_json(FILE *f, const struct candidate *c, enum precision precision,
           double nemo_days)
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
	json_begin_object(&j, "memory");
	json_number(&j, "weights_gib", e->mem.weights / GIB);
	json_number(&j, "gradients_gib", e->mem.gradients / GIB);
	json_number(&j, "optimizer_gib", e->mem.optimizer / GIB);
	json_number(&j, "activations_gib", e->mem.activations / GIB);
	json_number(&j, "buffers_gib", e->mem.buffers / GIB);
	json_number(&j, "total_gib", e->mem.total / GIB);
	json_end_object(&j);
	json_string(&j, "memory_status", memory_status_name(e->memory_status));
	json_number(&j, "pred_step_s", e->step_s);
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
	json_end_object(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

static int
cmd_estimate_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct layout_args a = { -1, -1, -1, -1, -1, -1, -1, -1, -1,
	                         NULL, NULL, 0, 0, STR_LIST_INIT, 0 };
	struct str_list settings = STR_LIST_INIT;
	const struct option opts[] = {
		OPT_INTEGER(0, "tp", &a.tp, "N", "tensor parallel size"),
		OPT_INTEGER(0, "pp", &a.pp, "N", "pipeline parallel size"),
		OPT_INTEGER(0, "cp", &a.cp, "N", "context parallel size"),
		OPT_INTEGER(0, "ep", &a.ep, "N", "expert parallel size"),
		OPT_INTEGER(0, "etp", &a.etp, "N", "expert tensor parallel size"),
		OPT_INTEGER(0, "vp", &a.vp, "N", "virtual stages per pipeline rank"),
		OPT_INTEGER(0, "mbs", &a.mbs, "N", "micro-batch size"),
		OPT_INTEGER(0, "gbs", &a.gbs, "N", "global batch size"),
		OPT_STR(0, "recompute", &a.recompute, "KIND",
		        "none, selective or full"),
		OPT_INTEGER(0, "recompute-layers", &a.rc_layers, "N",
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
	struct plan p;
	struct candidate c;
	struct layout l;
	enum layout_rule rule;
	double nemo_days;
	int status = EXIT_OK;

	if (cmd_parse_args(ctx, &cmd_estimate_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		goto cleanup;
	status = plan_build(&p, &PLAN_OPTS(ctx), argv[1], &settings);
	if (status != EXIT_OK)
		goto cleanup;
	l = p.res.v[p.base].layout;
	if (apply_args(&a, &p.campaign, &l) != 0) {
		status = EXIT_USAGE;
	} else if ((rule = layout_check(&p.workload, &l)) != LAYOUT_OK) {
		status = EXIT_USAGE;
		error("invalid layout: %s", layout_rule_name(rule));
	} else {
		grid_candidate(&p.spec, &p.workload, p.prefix, &l, &c);
		nemo_days = sizing_train_days(SIZING_GPT3,
		                              c.est.params_total / 1e9,
		                              p.campaign.nodes *
		                              p.campaign.gpus_per_node,
		                              p.campaign.tflops_per_gpu,
		                              p.campaign.num_tokens_in_b);
		if (ctx->format == FORMAT_JSON)
			print_json(ctx->out, &c, p.campaign.precision,
			           nemo_days);
		else
			print_table(ctx->out, &p, &c, nemo_days);
	}
	plan_release(&p);
cleanup:
	str_list_clear(&settings);
	str_list_clear(&a.switches);
	return status;
}

const struct cmd_entry cmd_estimate_entry = {
	"estimate", NULL, "CAMPAIGN [--tp N] [--pp N] [--cp N] [--ep N] "
	"[--vp N] [--mbs N] [--gbs N] [--recompute KIND] "
	"[--switch NAME=VALUE]...",
	"memory breakdown and predicted speed of the base or a given layout",
	cmd_estimate_exec,
};
