/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * results-write.c - the text of the CSV files of DIR/results/ and of the
 * JSON document, into strbufs; cmd-results.c writes them.
 *
 * The three CSV files and the JSON objects come from one table of
 * columns, so that a CSV column and its JSON key can never disagree.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "json.h"
#include "layout-switch.h"
#include "results.h"
#include "safe-text.h"
#include "util.h"
#include "xalloc.h"

/* ---- the columns --------------------------------------------------------- */

enum cell_type { CT_INT, CT_NUM, CT_STR, CT_BOOL };

struct column {
	const char *name;
	enum cell_type type;
	int decimals;           /* CT_NUM in CSV: enough for the unit */
	int sig;                /* CT_NUM: at least these significant
	                           digits, more decimals if need be; 0:
	                           decimals alone */
};

/* The training's days, GPU-hours and cost keep three significant
 * digits: a training of 0.001 B tokens took 0.0004 days and 0.3
 * GPU-hours, written 0.000 and 0.0, while its cost kept its cents.
 * From 0.1 days, 10 GPU-hours and 1 of money up nothing changes. */
#define TRAINING_SIG 3

static const struct column columns[RC_COUNT] = {
	[RC_RANK] = { "rank", CT_INT, 0 },
	[RC_NAME] = { "name", CT_STR, 0 },
	[RC_TP] = { "tp", CT_INT, 0 },
	[RC_PP] = { "pp", CT_INT, 0 },
	[RC_CP] = { "cp", CT_INT, 0 },
	[RC_EP] = { "ep", CT_INT, 0 },
	[RC_ETP] = { "etp", CT_INT, 0 },
	[RC_VP] = { "vp", CT_INT, 0 },
	[RC_MBS] = { "mbs", CT_INT, 0 },
	[RC_GBS] = { "gbs", CT_INT, 0 },
	[RC_DP] = { "dp", CT_INT, 0 },
	[RC_RECOMPUTE] = { "recompute", CT_STR, 0 },
	[RC_RECOMPUTE_LAYERS] = { "recompute_layers", CT_INT, 0 },
	[RC_NODES] = { "nodes", CT_INT, 0 },
	[RC_GPUS_PER_NODE] = { "gpus_per_node", CT_INT, 0 },
	[RC_STEPS] = { "measured_steps", CT_INT, 0 },
	/* Megatron-LM prints step times in ms with one decimal: 4
	 * decimals of a second keep all of it. */
	[RC_STEP_MEAN] = { "step_time_mean_s", CT_NUM, 4 },
	[RC_STEP_MEDIAN] = { "step_time_median_s", CT_NUM, 4 },
	[RC_STEP_STDEV] = { "step_time_stdev_s", CT_NUM, 4 },
	[RC_SAMPLES] = { "samples_per_s", CT_NUM, 3 },
	[RC_TOKENS] = { "tokens_per_s_per_gpu", CT_NUM, 1 },
	[RC_TFLOPS] = { "tflops_per_gpu", CT_NUM, 2 },
	[RC_MFU] = { "mfu", CT_NUM, 4 },
	[RC_DAYS] = { "train_days", CT_NUM, 3, TRAINING_SIG },
	[RC_GPU_HOURS] = { "gpu_hours", CT_NUM, 1, TRAINING_SIG },
	[RC_COST] = { "cost", CT_NUM, 2, TRAINING_SIG },
	[RC_PRED_STEP] = { "pred_step_s", CT_NUM, 4 },
	[RC_PRED_ERROR] = { "pred_error", CT_NUM, 4 },
	[RC_TFLOPS_NEMO] = { "tflops_per_gpu_nemo_formula", CT_NUM, 2 },
	[RC_MEM_PEAK] = { "mem_peak_gib", CT_NUM, 2 },
	[RC_EST_MEMORY] = { "est_memory_gib", CT_NUM, 2 },
	[RC_MEMORY_STATUS] = { "memory_status", CT_STR, 0 },
	[RC_BASE] = { "base", CT_BOOL, 0 },
	[RC_CLASS] = { "failure_class", CT_STR, 0 },
	[RC_EVIDENCE] = { "evidence", CT_STR, 0 },
	[RC_LINE] = { "line", CT_INT, 0 },
	[RC_LOG] = { "log", CT_STR, 0 },
	[RC_STATE] = { "state", CT_STR, 0 },
	[RC_EXIT_CODE] = { "exit_code", CT_INT, 0 },
	[RC_EXIT_SIGNAL] = { "exit_signal", CT_INT, 0 },
	[RC_REASON] = { "reason", CT_STR, 0 },
	[RC_NOTE] = { "note", CT_STR, 0 },
	[RC_STOP_REASON] = { "stop_reason", CT_STR, 0 },
};

/* The switch columns are enum layout_switch shifted; they take their
 * names and kinds from layout-switch.c. */
_Static_assert(RC_FP8_DOT_PRODUCT_ATTENTION - RC_RECOMPUTE_METHOD ==
               SW_FP8_DOT_PRODUCT_ATTENTION - SW_RECOMPUTE_METHOD &&
               RC_FP8_DOT_PRODUCT_ATTENTION + 1 == RC_COUNT &&
               SW_FP8_DOT_PRODUCT_ATTENTION + 1 == SW_COUNT,
               "switch columns out of step with layout-switch.h");

/* Every file ends with the switches: a column added there leaves the
 * positions of the others as they were. */
#define SWITCH_COLS RC_RECOMPUTE_METHOD, RC_SEQUENCE_PARALLEL, \
	RC_DISTRIBUTED_OPTIMIZER, RC_ATTENTION, RC_ACCOUNT_EMBEDDING, \
	RC_ACCOUNT_LOSS, RC_FP8_RECIPE, RC_FP8_PARAM_GATHER, RC_CUDA_GRAPHS, \
	RC_TP_COMM_OVERLAP, RC_OVERLAP_GRAD_REDUCE, RC_OVERLAP_PARAM_GATHER, \
	RC_FSDP, RC_CP_COMM_TYPE, RC_MOE_GROUPED_GEMM, RC_OFFLOAD_LAYERS, \
	RC_FIRST_STAGE_LAYERS, RC_LAST_STAGE_LAYERS, RC_RECOMPUTE_MODULES, \
	RC_GRAD_REDUCE_BF16, RC_MOE_DISPATCHER, RC_MOE_A2A_OVERLAP, \
	RC_CUDA_GRAPH_FULL_ITERATION, RC_PIPELINE_LAYOUT, \
	RC_FP8_DOT_PRODUCT_ATTENTION

/* The switch a column shows, or SW_COUNT for any other column. */
static enum layout_switch
col_switch(enum results_col c)
{
	return c >= RC_RECOMPUTE_METHOD && c < RC_COUNT
	       ? (enum layout_switch)(c - RC_RECOMPUTE_METHOD) : SW_COUNT;
}

/* results.csv: the fixed columns, then the extras. */
static const enum results_col results_cols[] = {
	RC_RANK, RC_NAME, RC_TP, RC_PP, RC_CP, RC_EP, RC_ETP, RC_VP, RC_MBS,
	RC_GBS, RC_DP, RC_RECOMPUTE, RC_RECOMPUTE_LAYERS, RC_NODES,
	RC_GPUS_PER_NODE, RC_STEPS, RC_STEP_MEAN, RC_STEP_MEDIAN,
	RC_STEP_STDEV, RC_SAMPLES, RC_TOKENS, RC_TFLOPS, RC_MFU, RC_DAYS,
	RC_GPU_HOURS, RC_COST, RC_PRED_STEP, RC_PRED_ERROR,
	RC_TFLOPS_NEMO, RC_MEM_PEAK, RC_EST_MEMORY, RC_BASE, RC_CLASS,
	RC_LOG, RC_STOP_REASON, RC_NOTE, SWITCH_COLS,
};

/* oom.csv: the layout, the estimate made for it, the evidence. */
static const enum results_col oom_cols[] = {
	RC_NAME, RC_TP, RC_PP, RC_CP, RC_EP, RC_ETP, RC_VP, RC_MBS, RC_GBS,
	RC_DP, RC_RECOMPUTE, RC_RECOMPUTE_LAYERS, RC_NODES, RC_GPUS_PER_NODE,
	RC_EST_MEMORY, RC_MEMORY_STATUS, RC_CLASS, RC_EVIDENCE, RC_LINE,
	RC_LOG, RC_STATE, RC_EXIT_CODE, RC_EXIT_SIGNAL, RC_REASON,
	RC_STOP_REASON, RC_STEPS, RC_MEM_PEAK, RC_BASE, RC_NOTE, SWITCH_COLS,
};

/* failed.csv: the layout, the class and its evidence. */
static const enum results_col failed_cols[] = {
	RC_NAME, RC_TP, RC_PP, RC_CP, RC_EP, RC_ETP, RC_VP, RC_MBS, RC_GBS,
	RC_DP, RC_RECOMPUTE, RC_RECOMPUTE_LAYERS, RC_NODES, RC_GPUS_PER_NODE,
	RC_CLASS, RC_EVIDENCE, RC_LINE, RC_LOG, RC_STATE, RC_EXIT_CODE,
	RC_EXIT_SIGNAL, RC_REASON, RC_STOP_REASON, RC_STEPS, RC_EST_MEMORY,
	RC_MEMORY_STATUS, RC_BASE, RC_NOTE, SWITCH_COLS,
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The column list of one file. */
const enum results_col *
results_columns(enum results_file which, int *n)
{
	switch (which) {
	case RESULTS_OOM_CSV:
		*n = COUNT(oom_cols);
		return oom_cols;
	case RESULTS_FAILED_CSV:
		*n = COUNT(failed_cols);
		return failed_cols;
	case RESULTS_CSV:
		break;
	}
	*n = COUNT(results_cols);
	return results_cols;
}

/* A column's snake_case name. */
const char *
results_col_name(enum results_col c)
{
	if (col_switch(c) != SW_COUNT)
		return layout_switch_name(col_switch(c));
	return (unsigned)c < RC_COUNT ? columns[c].name : "?";
}

/* Whether a column holds numbers. */
bool
results_col_is_number(enum results_col c)
{
	if (col_switch(c) != SW_COUNT)
		return layout_switch_kind(col_switch(c)) == SWK_BOOL ||
		       layout_switch_kind(col_switch(c)) == SWK_INT;
	return (unsigned)c < RC_COUNT &&
	       (columns[c].type == CT_INT || columns[c].type == CT_NUM);
}

/* ---- cell values --------------------------------------------------------- */

/* One cell: an integer (has_int false: unknown), a number (NAN:
 * unknown), a string (NULL: unknown) or a boolean. */
struct cell {
	long long i;
	bool has_int;
	double d;
	const char *s;
	bool b;
};

/* The layout part of a row. */
static bool
cell_layout(const struct result_row *r, enum results_col c, struct cell *v)
{
	const struct layout *l = &r->cand.layout;

	v->has_int = true;
	switch (c) {
	case RC_TP: v->i = l->tp; break;
	case RC_PP: v->i = l->pp; break;
	case RC_CP: v->i = l->cp; break;
	case RC_EP: v->i = l->ep; break;
	case RC_ETP: v->i = layout_etp(l); break;
	case RC_VP: v->i = l->vp; break;
	case RC_MBS: v->i = l->mbs; break;
	case RC_GBS: v->i = l->gbs; break;
	case RC_DP: v->i = l->dp; break;
	case RC_RECOMPUTE_LAYERS: v->i = l->recompute_layers; break;
	case RC_RECOMPUTE:
		v->has_int = false;
		v->s = recompute_name(l->recompute);
		break;
	default:
		v->has_int = false;
		return false;
	}
	return true;
}

/* The measured part of a row. */
static bool
cell_metric(const struct result_row *r, enum results_col c, struct cell *v)
{
	const struct result_metrics *m = &r->m;

	switch (c) {
	case RC_STEP_MEAN: v->d = m->step_mean_s; break;
	case RC_STEP_MEDIAN: v->d = m->step_median_s; break;
	case RC_STEP_STDEV: v->d = m->step_stdev_s; break;
	case RC_SAMPLES: v->d = m->samples_per_s; break;
	case RC_TOKENS: v->d = m->tokens_per_s_per_gpu; break;
	case RC_TFLOPS: v->d = m->tflops_per_gpu; break;
	case RC_MFU: v->d = m->mfu; break;
	case RC_DAYS: v->d = m->train_days; break;
	case RC_GPU_HOURS: v->d = m->gpu_hours; break;
	case RC_COST: v->d = m->cost; break;
	case RC_PRED_ERROR: v->d = m->pred_error; break;
	case RC_TFLOPS_NEMO: v->d = m->tflops_per_gpu_nemo; break;
	default: return false;
	}
	return true;
}

/* Whether r's candidate has not ended (planned, queued, pending,
 * running): its exit and failure class are not known yet. */
static bool
row_undecided(const struct result_row *r)
{
	return r->in_state && !cand_state_final(r->state);
}

/*
 * The nodes row was planned on: its GPUs over gpus_per_node.  The
 * campaign's count (res->nodes) holds for every row only while the
 * rows agree; a hand-edited row on 16 of 32 GPUs said 4 nodes, its
 * GPU-hours those of 2.
 */
static long long
row_nodes(const struct results *res, const struct result_row *r)
{
	int gpn = res->run.settings.gpus_per_node;
	double gpus = results_row_gpus(&res->run.settings, r);

	if (res->gpus > 0 || gpn <= 0 || !(gpus > 0) ||
	    fmod(gpus, gpn) != 0 || gpus / gpn > INT_MAX)
		return res->nodes;
	return (long long)(gpus / gpn);
}

/* The state and log part of a row. */
static void
cell_other(const struct results *res, const struct result_row *r,
           enum results_col c, struct cell *v)
{
	const struct settings *k = &res->run.settings;

	switch (c) {
	case RC_RANK:
		v->i = r->cand.rank; /* the plan's, as list and status show */
		v->has_int = r->cand.rank > 0;
		break;
	case RC_NAME: v->s = r->cand.name; break;
	/* The plan's, as every figure: campaign.conf may say more now. */
	case RC_NODES: v->i = row_nodes(res, r); v->has_int = true; break;
	case RC_GPUS_PER_NODE:
		v->i = k->gpus_per_node;
		v->has_int = true;
		break;
	case RC_STEPS:
		v->i = r->kind == RESULT_MEASURED ? r->m.steps : r->log_steps;
		v->has_int = true;
		break;
	case RC_PRED_STEP:
		v->d = r->cand.pred_step_s > 0 ? r->cand.pred_step_s : NAN;
		break;
	case RC_MEM_PEAK: v->d = r->mem_peak_gib; break;
	case RC_EST_MEMORY: v->d = r->cand.est_memory_gib; break;
	case RC_MEMORY_STATUS:
		v->s = memory_status_name(r->cand.memory_status);
		break;
	case RC_BASE: v->b = r->cand.base; break;
	/* Undecided while the job is pending or running (the base's
	 * object in JSON): null, as status has it. */
	case RC_CLASS:
		v->s = row_undecided(r) ? NULL : failure_class_name(r->failure);
		break;
	case RC_EVIDENCE: v->s = r->evidence; break;
	case RC_LINE: v->i = r->line; v->has_int = r->line > 0; break;
	case RC_LOG:
		v->s = r->kind == RESULT_MEASURED ? r->measured_log : r->log;
		break;
	case RC_STATE:
		v->s = r->in_state ? cand_state_name(r->state) : NULL;
		break;
	/* Only a job that ended exits: empty for a submission Slurm
	 * rejected, and for one pending or running. */
	case RC_EXIT_CODE:
		v->i = r->exit_code;
		v->has_int = r->job_id != 0 && !row_undecided(r);
		break;
	case RC_EXIT_SIGNAL:
		v->i = r->exit_signal;
		v->has_int = r->job_id != 0 && !row_undecided(r);
		break;
	case RC_REASON: v->s = r->reason[0] ? r->reason : NULL; break;
	case RC_NOTE: v->s = r->note; break;
	case RC_STOP_REASON: v->s = r->stop_reason; break;
	default: break;
	}
}

/* The value of one cell of row r. */
static void
cell_get(const struct results *res, const struct result_row *r,
         enum results_col c, struct cell *v)
{
	memset(v, 0, sizeof(*v));
	v->d = NAN;
	if (!cell_layout(r, c, v) && !cell_metric(r, c, v))
		cell_other(res, r, c, v);
}

/* A fixed-point number that never reads "-0.00"; one with more integer
 * digits than a double holds (1e15 and up) in ten significant digits,
 * "3.2e+304", which every CSV reader takes, rather than digits invented
 * or cut at the buffer's end.  With sig > 0, at least sig significant
 * digits, in "%g" form where fixed point would take too many. */
static void
add_fixed(struct strbuf *out, double v, int decimals, int sig)
{
	char buf[64];

	if (sig > 0)
		decimals = figure_decimals(v, decimals, sig);
	if (fabs(v) >= 1e15 || decimals < 0) {
		strbuf_addf(out, "%.*g", decimals < 0 ? sig : 10, v);
		return;
	}
	snprintf(buf, sizeof buf, "%.*f", decimals, v);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		strbuf_addstr(out, buf + 1);
	else
		strbuf_addstr(out, buf);
}

/* A switch of row r, -1 where it does not apply or is not known (a
 * campaign planned before candidates.csv listed the switches). */
static int
switch_value(const struct results *res, const struct result_row *r,
             enum layout_switch s)
{
	if (!r->cand.switches_known)
		return -1;
	return layout_switch_get(&r->cand.layout, res->run.settings.precision,
	                         s);
}

/* One cell as the CSV holds it, unquoted. */
void
results_cell(const struct results *res, const struct result_row *r,
             enum results_col c, struct strbuf *out)
{
	enum layout_switch s = col_switch(c);
	struct cell v;

	if (s != SW_COUNT) {
		if (switch_value(res, r, s) >= 0)
			layout_switch_format(&r->cand.layout,
			                     res->run.settings.precision, s,
			                     out);
		return;
	}
	cell_get(res, r, c, &v);
	switch (columns[c].type) {
	case CT_INT:
		if (v.has_int)
			strbuf_addf(out, "%lld", v.i);
		break;
	case CT_NUM:
		if (isfinite(v.d))
			add_fixed(out, v.d, columns[c].decimals,
			          columns[c].sig);
		break;
	case CT_STR:
		if (v.s)
			strbuf_addstr(out, v.s);
		break;
	case CT_BOOL:
		strbuf_addch(out, v.b ? '1' : '0');
		break;
	}
}

/* ---- CSV ----------------------------------------------------------------- */

/* Append one CSV field, quoted when RFC 4180 needs it. */
void
results_csv_field(struct strbuf *out, const char *s)
{
	size_t n = strlen(s);
	/* The semicolon too: csv_quote (safe-text.c) says why. */
	bool quote = strpbrk(s, ",;\"\r\n") != NULL ||
	             (n > 0 && (s[0] == ' ' || s[n - 1] == ' '));

	if (!quote) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(out, '"'); /* RFC 4180, 2.7: doubled */
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

/* Whether row r belongs in file which. */
static bool
row_in_file(const struct result_row *r, enum results_file which)
{
	switch (which) {
	case RESULTS_CSV: return r->kind == RESULT_MEASURED;
	case RESULTS_OOM_CSV: return r->kind == RESULT_OOM;
	case RESULTS_FAILED_CSV: return r->kind == RESULT_FAILED;
	}
	return false;
}

/* What pattern column k holds for row r, or NULL. */
static const char *
pattern_value(const struct results *res, const struct result_row *r,
              int k)
{
	return r->pattern_values && k < res->npattern_cols
	       ? r->pattern_values[k] : NULL;
}

/* Whether s is a number whole, as a spreadsheet would read it. */
static bool
is_number(const char *s)
{
	char *end;
	double v;

	if (*s == '\0' || isspace((unsigned char)*s))
		return false;
	v = strtod(s, &end);
	return *end == '\0' && isfinite(v) && !strpbrk(s, "xXpP");
}

/* One CSV line of row r with the given columns; a measured row ends with
 * the results.patterns columns. */
static void
csv_row(const struct results *res, const struct result_row *r,
        const enum results_col *cols, int ncols, struct strbuf *out)
{
	struct strbuf cell = STRBUF_INIT;

	for (int i = 0; i < ncols; i++) {
		strbuf_setlen(&cell, 0);
		results_cell(res, r, cols[i], &cell);
		if (i)
			strbuf_addch(out, ',');
		/* Text (names, log lines) neutralised; numbers as they are. */
		if (col_switch(cols[i]) == SW_COUNT &&
		    columns[cols[i]].type == CT_STR)
			csv_cell_append(out, cell.buf);
		else
			results_csv_field(out, cell.buf);
	}
	for (int k = 0; r->kind == RESULT_MEASURED &&
	                k < res->npattern_cols; k++) {
		const char *v = pattern_value(res, r, k);

		strbuf_addch(out, ',');
		/* What a pattern captured came from the log: a number
		 * (a loss of -1.5) as it is, any other text neutralised. */
		if (v && !is_number(v))
			csv_cell_append(out, v);
		else
			results_csv_field(out, v ? v : "");
	}
	strbuf_addch(out, '\n');
	strbuf_release(&cell);
}

/* The whole of one CSV file, header first. */
void
results_csv(const struct results *res, enum results_file which,
            struct strbuf *out)
{
	int ncols;
	const enum results_col *cols = results_columns(which, &ncols);

	for (int i = 0; i < ncols; i++)
		strbuf_addf(out, "%s%s", i ? "," : "",
		            results_col_name(cols[i]));
	if (which == RESULTS_CSV) {
		for (int k = 0; k < res->npattern_cols; k++)
			strbuf_addf(out, ",%s", res->pattern_cols[k]);
		strbuf_addch(out, '\n');
		for (int i = 0; i < res->nranked; i++)
			csv_row(res, &res->v[res->ranked[i]], cols, ncols, out);
		return;
	}
	strbuf_addch(out, '\n');
	for (int i = 0; i < res->n; i++)
		if (row_in_file(&res->v[i], which))
			csv_row(res, &res->v[i], cols, ncols, out);
}

/* ---- JSON ---------------------------------------------------------------- */

static const char *const kind_names[RESULT_KIND_COUNT] = {
	"not_run", "in_progress", "measured", "oom", "failed",
};

/* The results.patterns keys of a measured row: a number when what was
 * captured reads as one, else the text; null without a match. */
static void
json_patterns(struct json *j, const struct results *res,
              const struct result_row *r)
{
	for (int k = 0; k < res->npattern_cols; k++) {
		const char *v = pattern_value(res, r, k);
		double d;

		if (v == NULL)
			json_null(j, res->pattern_cols[k]);
		else if (parse_double(v, &d) == 0)
			json_number(j, res->pattern_cols[k], d);
		else
			json_string(j, res->pattern_cols[k], v);
	}
}

/* One row as an object with the keys of its file's columns. */
static void
json_row(struct json *j, const char *key, const struct results *res,
         const struct result_row *r)
{
	enum results_file which = r->kind == RESULT_OOM ? RESULTS_OOM_CSV
	                          : r->kind == RESULT_MEASURED ? RESULTS_CSV
	                          : RESULTS_FAILED_CSV;
	int ncols;
	const enum results_col *cols = results_columns(which, &ncols);

	json_begin_object(j, key);
	if (key)
		json_string(j, "status", kind_names[r->kind]);
	for (int i = 0; i < ncols; i++) {
		const char *name = results_col_name(cols[i]);
		struct cell v;

		if (col_switch(cols[i]) != SW_COUNT) {
			layout_switch_json(j, col_switch(cols[i]),
			                   switch_value(res, r,
			                                col_switch(cols[i])));
			continue;
		}
		cell_get(res, r, cols[i], &v);
		switch (columns[cols[i]].type) {
		case CT_INT:
			if (v.has_int)
				json_int(j, name, v.i);
			else
				json_null(j, name);
			break;
		case CT_NUM: json_number(j, name, v.d); break;
		case CT_STR: json_string(j, name, v.s); break;
		case CT_BOOL: json_bool(j, name, v.b); break;
		}
	}
	if (which == RESULTS_CSV)
		json_patterns(j, res, r);
	json_end_object(j);
}

/* The campaign's facts every figure depends on. */
static void
json_campaign(struct json *j, const struct results *res)
{
	const struct settings *c = &res->run.settings;

	json_string(j, "campaign", c->name);
	json_string(j, "model", c->model_name);
	json_string(j, "gpu", c->gpu.name);
	json_string(j, "calibration", calibration_label(&c->calibration));
	json_int(j, "nodes", res->nodes);
	json_int(j, "gpus_per_node", c->gpus_per_node);
	json_string(j, "precision", precision_name(c->precision));
	json_int(j, "seq_length", c->seq_length);
	json_number(j, "num_tokens_in_b", c->num_tokens_in_b);
	json_number(j, "cost_per_gpu_hour", res->cost_per_gpu_hour > 0
	            ? res->cost_per_gpu_hour : NAN);
	json_string(j, "currency", res->currency);
	json_number(j, "gpu_memory_gib", res->capacity_gib);
	json_number(j, "peak_tflops_per_gpu", res->peak_tflops);
}

/* A recommendation by name, or null. */
static void
json_pick(struct json *j, const char *key, const struct results *res,
          int idx)
{
	if (idx < 0)
		json_null(j, key);
	else
		json_string(j, key, res->v[idx].cand.name);
}

/* Speed-up, savings and the three picks. */
static void
json_recommendations(struct json *j, const struct results *res)
{
	json_number(j, "speedup", res->speedup);
	json_bool(j, "within_noise", res->within_noise);
	json_string(j, "no_comparison", res->no_comparison);
	json_begin_object(j, "saved");
	json_number(j, "days", res->saved_days);
	json_number(j, "gpu_hours", res->saved_gpu_hours);
	json_number(j, "cost", res->saved_cost);
	json_end_object(j);
	json_begin_object(j, "recommendations");
	json_pick(j, "fastest", res, res->best);
	json_pick(j, "cheapest", res, res->cheapest);
	json_bool(j, "cheapest_is_fastest",
	          res->best >= 0 && res->cheapest == res->best);
	json_pick(j, "fastest_with_headroom", res, res->roomy);
	json_number(j, "headroom", RESULTS_HEADROOM);
	json_end_object(j);
}

/* The JSON document of --format json. */
void
results_json(const struct results *res, struct strbuf *out)
{
	struct json j;

	json_init(&j, out, true);
	json_begin_object(&j, NULL);
	json_campaign(&j, res);
	if (res->best >= 0)
		json_row(&j, "best", res, &res->v[res->best]);
	else
		json_null(&j, "best");
	if (res->base >= 0)
		json_row(&j, "base", res, &res->v[res->base]);
	else
		json_null(&j, "base");
	json_recommendations(&j, res);
	json_begin_array(&j, "results");
	for (int i = 0; i < res->nranked; i++)
		json_row(&j, NULL, res, &res->v[res->ranked[i]]);
	json_end_array(&j);
	json_begin_array(&j, "oom");
	for (int i = 0; i < res->n; i++)
		if (res->v[i].kind == RESULT_OOM)
			json_row(&j, NULL, res, &res->v[i]);
	json_end_array(&j);
	json_begin_array(&j, "failed");
	for (int i = 0; i < res->n; i++)
		if (res->v[i].kind == RESULT_FAILED)
			json_row(&j, NULL, res, &res->v[i]);
	json_end_array(&j);
	json_int(&j, "in_progress", res->count[RESULT_IN_PROGRESS]);
	json_int(&j, "not_run", res->count[RESULT_NOT_RUN]);
	json_begin_object(&j, "search");
	json_number(&j, "campaign_gpu_hours", res->campaign_gpu_hours);
	json_number(&j, "exhaustive_gpu_hours_estimate",
	            res->exhaustive_gpu_hours_estimate);
	json_int(&j, "measured", res->nranked);
	json_int(&j, "pruned", res->pruned);
	json_int(&j, "proved_fits", res->proved_fits);
	json_begin_object(&j, "skipped");
	json_int(&j, "no_gain", res->skipped_no_gain);
	json_int(&j, "budget", res->skipped_budget);
	json_end_object(&j);
	if (res->stop_reason[0])
		json_string(&j, "stop_reason", res->stop_reason);
	else
		json_null(&j, "stop_reason");
	json_int(&j, "refit_runs", res->run.st.model.runs);
	json_number(&j, "refit_factor", fit_factor(&res->run.st.model));
	json_end_object(&j);
	json_end_object(&j);
}
