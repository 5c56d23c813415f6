/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-calibrate.c - 'paratune calibrate': fit the estimator's constants
 * to measured runs per GPU type, report the error before and after with
 * k-fold cross-validation, and write the calibration group a site file
 * includes.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd-calibrate.h"
#include "config.h"
#include "calibrate-file.h"
#include "calibrate-report.h"
#include "error.h"
#include "owner.h"
#include "safe-text.h"
#include "store.h"
#include "strlist.h"
#include "util.h"
#include "xalloc.h"

extern const struct cmd_entry cmd_calibrate_entry;

#define FOLDS_MAX 1000
#define RANK_WEIGHT_MAX 1000.0

/* How the command fits. */
struct fit_how {
	struct calib_opts opts;
	const struct calibration *start;
	int pool;                 /* one fit to every GPU's rows */
	int moe_per_gpu;          /* no MoE constants shared (share_moe) */
	const struct str_list *groups; /* only rows of these (none: all) */
	bool progress;            /* say each fit as it starts (stderr) */
	/* -o writes only the fits that improve on their start
	 * (calibrate-file.c, written_fit) */
	int only_better;
	bool tty;                 /* stderr is a terminal: redraw one line */
};

/* The label of a pooled fit's rows (no catalog GPU is named so). */
#define POOL_LABEL "all GPUs"

/* ---- fitting per GPU ----------------------------------------------------- */

/*
 * Each fit as it starts, on stderr: a fit is thousands of estimates a
 * fold, and 10,000 runs took 27 s without a word.  On a terminal the
 * line is redrawn and cleared once the fits are done (what NULL);
 * elsewhere (--progress into a log) one line a fit.
 */
static void
fit_progress(const struct fit_how *how, const char *what, int k, int ng,
             int runs)
{
	if (!how->progress || (what == NULL && !how->tty))
		return;
	if (what == NULL)
		fputs("\r\033[K", stderr);
	else
		fprintf(stderr, "%scalibrate: fitting %s (%d of %d), %d "
		        "measured run%s%s", how->tty ? "\r" : "", what, k + 1,
		        ng, runs, runs == 1 ? "" : "s",
		        how->tty ? "...\033[K" : "\n");
	fflush(stderr);
}

/* How many of the ng fits have MoE rows. */
static int
gpus_with_moe(const struct gpu_fit *g, int ng)
{
	int count = 0;

	for (int k = 0; k < ng; k++)
		for (int i = 0; i < g[k].n; i++)
			if (calibrate_row_moe(&g[k].rows[i])) {
				count++;
				break;
			}
	return count;
}

/* How many of the rows of the ng fits are MoE runs. */
static int
moe_runs(const struct gpu_fit *g, int ng)
{
	int count = 0;

	for (int k = 0; k < ng; k++)
		for (int i = 0; i < g[k].n; i++)
			count += calibrate_row_moe(&g[k].rows[i]);
	return count;
}

/*
 * The constants only MoE runs move (the MoE layer's host time, the
 * experts' GEMM efficiency, the dispatch efficiency) fitted once to
 * every GPU's MoE runs, each run with its own GPU's other constants
 * (calibrate_share).  They describe Megatron-LM's MoE layer more than
 * the GPU, and one GPU's runs cover three or four MoE models, too few to
 * tell them apart: on the published runs (bench/calibration,
 * 2026-11-28) the MoE error per GPU, cross-validated, is 17.1 % shared
 * and 25.8 % fitted per GPU.  Each fit's MoE rows, its cross-validated
 * predictions and its interval take the shared fit's.
 */
static void
share_moe(struct gpu_fit *g, int ng, const struct fit_how *how)
{
	int n = 0, at = 0;
	struct calib_row *rows;
	const struct calibration **base;
	struct calib_shared sh;

	for (int k = 0; k < ng; k++)
		n += g[k].n;
	rows = xcalloc((size_t)n, sizeof(*rows));
	base = xcalloc((size_t)n, sizeof(const struct calibration *));
	for (int k = 0; k < ng; k++)
		for (int i = 0; i < g[k].n; i++) {
			rows[at] = g[k].rows[i];
			base[at++] = &g[k].fit.cal;
		}
	if (calibrate_share(rows, n, base, how->start, &how->opts, &sh) > 0) {
		at = 0;
		for (int k = 0; k < ng; k++) {
			struct calib_fit *f = &g[k].fit;
			bool moe = false;

			for (int i = 0; i < g[k].n; i++, at++)
				if (calibrate_row_moe(&rows[at])) {
					f->pred_in[i] = sh.pred_in[at];
					f->pred_cv[i] = sh.pred_cv[at];
					moe = true;
				}
			/* A GPU without MoE runs keeps its start's. */
			for (int p = 0; p < CAL_NPARAMS && moe; p++)
				if ((f->shared[p] = sh.shared[p]))
					f->cal.v[p] = sh.cal.v[p];
			if (f->folds >= 2)
				f->cal.rows = calibrate_residual_band(
					g[k].rows, f->pred_cv, g[k].n,
					&f->cal) ? g[k].n : 0;
			f->evaluations += sh.evaluations;
		}
	}
	free(sh.pred_in);
	free(sh.pred_cv);
	free(rows);
	free(base);
}

/* The distinct GPUs of the input's rows, in order of appearance, each
 * with its rows and fit, the MoE-only constants shared (share_moe)
 * unless how says not.  Returns how many. */
static int
fit_gpus(const struct calib_input *in, const char *name,
         const struct fit_how *how, struct gpu_fit **out)
{
	struct gpu_fit *g = xcalloc((size_t)in->n + 1, sizeof(*g));
	int ng = 0, share;

	for (int i = 0; i < in->n; i++) {
		const char *gpu = how->pool ? POOL_LABEL : in->gpu[i];
		int k;

		if (how->groups->n > 0 &&
		    str_list_find(how->groups, in->rows[i].group) < 0)
			continue;
		for (k = 0; k < ng && strcmp(g[k].gpu, gpu); k++)
			;
		if (k == ng) {
			g[ng].gpu = gpu;
			g[ng].start = how->start;
			g[ng++].rows = xcalloc((size_t)in->n,
			                       sizeof(struct calib_row));
		}
		g[k].rows[g[k].n++] = in->rows[i];
	}
	share = !how->pool && !how->moe_per_gpu && gpus_with_moe(g, ng) > 1;
	for (int k = 0; k < ng; k++) {
		fit_progress(how, g[k].gpu, k, ng + share, g[k].n);
		calibrate_fit_opts(g[k].rows, g[k].n, g[k].start, &how->opts,
		                   &g[k].fit);
		snprintf(g[k].fit.cal.name, sizeof g[k].fit.cal.name, "%s",
		         name);
	}
	if (share) {
		fit_progress(how, "the MoE-only constants over every GPU", ng,
		             ng + share, moe_runs(g, ng));
		share_moe(g, ng, how);
	}
	fit_progress(how, NULL, 0, 0, 0);
	*out = g;
	return ng;
}

static void
free_gpus(struct gpu_fit *g, int ng)
{
	for (int k = 0; k < ng; k++) {
		calibrate_fit_release(&g[k].fit);
		free(g[k].rows);
	}
	free(g);
}

/*
 * Warn of the GPUs of g that the catalog without the campaigns (built
 * in, the site file's and the user's gpus) lacks: a GPU a campaign file
 * defines (tests/data/measured's h100-96gb) got a member that a site
 * file including out refuses, "unknown GPU", for every command; a
 * campaign that defines the GPU may include it.
 */
static void
warn_uncataloged(const struct cmd_ctx *ctx, const struct gpu_fit *g, int ng,
                 const char *out)
{
	struct settings site;
	int status = settings_load_for(&site, ctx->site_path, NULL, NULL);

	for (int k = 0; k < ng && status == 0; k++)
		if (!gpu_catalog_find(&site.gpus, g[k].gpu))
			warning("-o %s: GPU '%s' is defined by its campaign "
			        "files alone: a site file that includes it "
			        "must define the GPU too (gpus), or every "
			        "command refuses it", out, g[k].gpu);
	settings_release(&site);
}

/* ---- the command --------------------------------------------------------- */

/* Whether path is a directory. */
static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The index of the first of inputs[0..n) that is the same file or
 * directory as path (device and inode), or -1. */
static int
input_index(const char *path, char **inputs, int n)
{
	struct stat st, in;

	if (stat(path, &st) != 0)
		return -1; /* reading or writing it says what is wrong */
	for (int i = 0; i < n; i++)
		if (stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev &&
		    in.st_ino == st.st_ino)
			return i;
	return -1;
}

/* Whether input i repeats an earlier one, said in a warning:
 * `calibrate F.csv F.csv` counted every row twice, weighing the fit
 * toward it. */
static bool
repeated_input(char **inputs, int i)
{
	int j = input_index(inputs[i], inputs, i);

	if (j >= 0)
		warning("%s: the same input as '%s': read once", inputs[i],
		        inputs[j]);
	return j >= 0;
}

/* Whether the output file out is one of the inputs, said in an error:
 * `calibrate runs.csv -o runs.csv` replaced the measured runs with the
 * calibration, silently. */
static bool
output_is_input(const char *out, int n, char **inputs)
{
	int i = input_index(out, inputs, n);

	if (i >= 0)
		error("-o %s is the input '%s': writing the calibration would "
		      "replace it; name another file", out, inputs[i]);
	return i >= 0;
}

/* Whether out is a campaign file a CSV row names, said in an error: the
 * fit reads it before -o would replace it with the calibration. */
static bool
output_is_campaign(const char *out, const struct calib_input *in)
{
	struct stat st;

	if (stat(out, &st) != 0)
		return false;
	for (int i = 0; i < in->nfiles; i++)
		if (in->files[i].dev == st.st_dev &&
		    in->files[i].ino == st.st_ino) {
			error("-o %s is the campaign file '%s' of measured "
			      "runs: writing the calibration would replace "
			      "it; name another file", out,
			      in->files[i].path);
			return true;
		}
	return false;
}

/* Every input into in; 0 or the first error's exit code.  An input
 * that adds no row is named: a campaign not run yet, or a CSV of other
 * GPUs, would otherwise leave the fit silently smaller. */
static int
read_inputs(struct cmd_ctx *ctx, int n, char **inputs, const char *gpu,
            struct calib_input *in)
{
	struct plan_opts po = PLAN_OPTS(ctx);
	int status = 0;

	po.quiet = true;
	for (int i = 0; i < n && status == 0; i++) {
		int before = in->n;
		bool dir = is_dir(inputs[i]);

		if (repeated_input(inputs, i))
			continue;
		/* /tmp given by mistake is "not a campaign" (66), as list
		 * and results say, not a directory to chmod (77). */
		if (dir && !store_has_campaign_file(inputs[i])) {
			error("'%s' is not a campaign directory (no "
			      "campaign.conf) nor a CSV of measured runs",
			      inputs[i]);
			status = EXIT_NOINPUT;
			break;
		}
		status = owner_read_here(inputs[i]);
		if (status != 0)
			break;
		status = dir ? calib_read_dir(in, inputs[i], gpu)
		             : calib_read_csv(in, inputs[i], &po, gpu);
		/* Of one CSV the error that follows says it all. */
		if (status == 0 && in->n == before && (n > 1 || dir))
			warning("%s: no measured run%s%s%s%s", inputs[i],
			        gpu ? " of GPU '" : "", gpu ? gpu : "",
			        gpu ? "'" : "",
			        dir ? " (none of its candidates has run to "
			              "a step time yet)" : "");
	}
	return status;
}

/*
 * What --gpu missed, for the message when it matched no run: the GPUs
 * the input has runs of, the closest first as a guess, so that a typo
 * ("h100sxm") is answered with the catalog name ("h100-sxm").
 */
static void
input_gpus(const struct calib_input *in, const char *gpu, struct strbuf *sb)
{
	const char *near;

	if (in->ngpus_seen > 0 &&
	    (near = config_closest(gpu, in->gpus_seen, in->ngpus_seen)))
		strbuf_addf(sb, " (did you mean '%s'?)", near);
	for (int k = 0; k < in->ngpus_seen; k++)
		strbuf_addf(sb, "%s%s", k ? ", " : "; it has runs of ",
		            in->gpus_seen[k]);
}

/* The constants --fix names (KEY or KEY,KEY...) into o->fixed; 0 or
 * EXIT_USAGE after an error. */
static int
parse_fixed(const struct str_list *fix, struct calib_opts *o)
{
	for (int i = 0; i < fix->n; i++) {
		char *list = xstrdup(fix->v[i]), *save = NULL;

		/* "--fix ," fixed nothing and said nothing. */
		if (strspn(list, ",") == strlen(list)) {
			error("--fix '%s': no constant named", list);
			free(list);
			return EXIT_USAGE;
		}
		for (char *k = strtok_r(list, ",", &save); k;
		     k = strtok_r(NULL, ",", &save)) {
			int p = calibration_param_find(k);

			if (p < 0) {
				error("--fix '%s': not a constant of calibrate "
				      "(its table names them)", k);
				free(list);
				return EXIT_USAGE;
			}
			o->fixed[p] = true;
		}
		free(list);
	}
	return 0;
}

/* Check the options; 0 or EXIT_USAGE after an error. */
static int
check_options(const struct calib_opts *o, const char *name)
{
	if (o->folds < 2 || o->folds > FOLDS_MAX) {
		error("--folds %d is out of range (2 to %d)", o->folds,
		      FOLDS_MAX);
		return EXIT_USAGE;
	}
	if (!(o->rank_weight >= 0 && o->rank_weight <= RANK_WEIGHT_MAX)) {
		error("--rank-weight %g is out of range (0 to %g)",
		      o->rank_weight, RANK_WEIGHT_MAX);
		return EXIT_USAGE;
	}
	if (strlen(name) >= sizeof(((struct calibration *)0)->name) ||
	    !*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
	                    "OPQRSTUVWXYZ0123456789._-") != strlen(name) ||
	    name[0] == '.' || name[0] == '-') {
		error("--name '%s': letters, digits, '.', '_' and '-', not "
		      "starting with '.' or '-', at most 63", name);
		return EXIT_USAGE;
	}
	return 0;
}

/* The groups of the input's runs, in sb: "dense-fp8, moe". */
static void
input_groups(const struct calib_input *in, struct strbuf *sb)
{
	struct str_list seen = STR_LIST_INIT;

	strbuf_reset(sb);
	for (int i = 0; i < in->n; i++) {
		if (str_list_find(&seen, in->rows[i].group) >= 0)
			continue;
		str_list_push(&seen, in->rows[i].group);
		strbuf_addf(sb, "%s%s", sb->len ? ", " : "",
		            in->rows[i].group);
	}
	str_list_clear(&seen);
}

/*
 * Who could change each input's path, judged (run as root) before any
 * input is looked at: whether it is a directory, or the same file as
 * another input or -o.  A stat() of another user's path told whether
 * their files exist, and hung on their FUSE file system whose daemon
 * stopped.  Who can write a directory is judged as it is read
 * (read_inputs), once it is known to be a campaign.  0, EXIT_NOPERM, or
 * EXIT_TEMPFAIL when a look did not finish (owner_root_path).
 */
static int
check_input_paths(int n, char **inputs)
{
	int status = 0;

	for (int i = 0; i < n && status == 0; i++)
		status = owner_root_path(inputs[i]);
	return status;
}

/* What -o names, checked before the fit rather than after it: not with
 * --pool, not one of the inputs, and a path that may be written.  0 or
 * an exit code. */
static int
check_output(const char *out, bool pool, int n, char **inputs)
{
	int status;

	if (pool) {
		error("--pool with -o: a fit to every GPU's runs is no GPU's "
		      "calibration");
		return EXIT_USAGE;
	}
	if (out[0] == '\0') {
		error("-o: an empty file name");
		return EXIT_USAGE;
	}
	/* Who could change the path first: output_is_input stat()s it. */
	if ((status = owner_root_new_path(out)) != 0)
		return status;
	if (output_is_input(out, n, inputs))
		return EXIT_USAGE;
	return output_file_check(out) != 0 ? EXIT_CANTCREAT : 0;
}

/* No run of the --group GROUPs asked for: say which groups there are. */
static int
error_no_group(const struct calib_input *in, const struct str_list *group)
{
	struct strbuf asked = STRBUF_INIT, have = STRBUF_INIT;

	for (int i = 0; i < group->n; i++)
		strbuf_addf(&asked, "%s'%s'", i ? " or " : "", group->v[i]);
	input_groups(in, &have);
	error("no measured run of group %s in the input (its groups: %s)",
	      asked.buf, have.buf);
	strbuf_release(&asked);
	strbuf_release(&have);
	return EXIT_DATAERR;
}

/* The ng fits g in the format asked for, and what to do with the file
 * out (NULL: none written). */
static void
report_fits(struct cmd_ctx *ctx, const struct gpu_fit *g, int ng,
            const char *out)
{
	if (ctx->format == FORMAT_JSON)
		calibrate_report_json(ctx->out, g, ng);
	else
		for (int k = 0; k < ng; k++)
			calibrate_report_table(ctx->out, &g[k],
			                       ctx->verbosity > 0);
	/* The next step, which the table alone did not name: an @include
	 * of the file by its absolute path, which serves wherever the
	 * including file is. */
	if (out && ctx->format != FORMAT_JSON && ctx->verbosity >= 0) {
		char *cwd = out[0] == '/' ? NULL : getcwd(NULL, 0);
		char *abs = cwd ? xasprintf("%s/%s", cwd, out) : xstrdup(out);

		safe_text_line(ctx->out, "wrote %s: estimate, plan and "
		               "results use it once the site, user or "
		               "campaign file has @include \"%s\" (or its "
		               "path relative to that file)", out, abs);
		free(abs);
		free(cwd);
	}
}

/*
 * The command once its options are checked: read the n inputs (only
 * gpu's rows, when named), fit them as how says under name, write the
 * calibration group to out (NULL: none) and report.  0 or an exit code.
 */
static int
calibrate_inputs(struct cmd_ctx *ctx, const struct fit_how *how,
                 const char *out, const char *gpu, const char *name, int n,
                 char **inputs)
{
	struct calib_input in;
	struct gpu_fit *g = NULL;
	struct strbuf sb = STRBUF_INIT;
	int status, ng = 0;

	memset(&in, 0, sizeof in);
	if ((status = read_inputs(ctx, n, inputs, gpu, &in)) != 0)
		goto cleanup;
	if (out && output_is_campaign(out, &in)) {
		status = EXIT_USAGE;
		goto cleanup;
	}
	if (in.n == 0) {
		if (gpu)
			input_gpus(&in, gpu, &sb);
		error("no measured run%s%s%s in the input%s",
		      gpu ? " of GPU '" : "", gpu ? gpu : "", gpu ? "'" : "",
		      sb.buf);
		status = EXIT_DATAERR;
		goto cleanup;
	}
	ng = fit_gpus(&in, name, how, &g);
	if (ng == 0) {
		status = error_no_group(&in, how->groups);
		goto cleanup;
	}
	calibrate_file_warn_few_runs(g, ng);
	calibrate_file_warn_bounds(g, ng);
	if (out) {
		calibrate_file_text(&sb, g, ng, how->only_better, n, inputs);
		if ((status = calibrate_file_write(out, &sb)) != 0)
			goto cleanup;
		warn_uncataloged(ctx, g, ng, out);
	}
	report_fits(ctx, g, ng, out);
cleanup:
	free_gpus(g, ng);
	strbuf_release(&sb);
	calib_input_release(&in);
	return status;
}

static int
cmd_calibrate_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *out = NULL, *gpu = NULL, *name = "calibrated";
	struct str_list fix = STR_LIST_INIT, group = STR_LIST_INIT;
	struct fit_how how = { CALIB_OPTS_INIT, NULL, 0, 0, &group, false,
	                       false, 0 };
	struct calib_opts *co = &how.opts;
	int status = EXIT_OK, n, hand_set = 0;
	const struct option opts[] = {
		OPT_STR('o', "output", &out, "FILE",
		        "write the calibration group to FILE"),
		OPT_STR(0, "gpu", &gpu, "NAME",
		        "only the rows of this GPU type"),
		OPT_STR(0, "name", &name, "NAME",
		        "the calibration's name (default calibrated)"),
		OPT_INTEGER(0, "folds", &co->folds, "K",
		            "cross-validation folds (default 5)"),
		OPT_NUMBER(0, "rank-weight", &co->rank_weight, "W",
		           "weight of the ordering of each campaign's "
		           "configurations in the fit (default 0: the "
		           "error alone)"),
		OPT_STRLIST(0, "fix", &fix, "KEY[,KEY...]",
		            "keep these constants at their start values "
		            "(repeatable)"),
		OPT_STRLIST(0, "group", &group, "GROUP",
		            "only the runs of this group (repeatable)"),
		OPT_BOOLEAN(0, "pool", &how.pool,
		            "one fit to the rows of every GPU (not written)"),
		OPT_BOOLEAN(0, "moe-per-gpu", &how.moe_per_gpu,
		            "fit the MoE-only constants to each GPU's MoE "
		            "runs, not once to every GPU's"),
		OPT_BOOLEAN(0, "only-better", &how.only_better,
		            "with -o, write only the GPUs whose fit predicts "
		            "their runs, held out, better than its start"),
		OPT_BOOLEAN(0, "hand-set", &hand_set,
		            "start from the hand-set constants, not the "
		            "shipped defaults (bench/fit-defaults)"),
		OPT_BOOLEAN(0, "progress", &ctx->progress,
		            "say each fit as it starts on stderr even when it "
		            "is not a terminal"),
		OPT_FORMAT_(NULL),
		OPT_FINISH,
	};

	if ((n = cmd_parse_args(ctx, &cmd_calibrate_entry, opts, argc, argv, 1,
	                        -1, &status)) < 0)
		goto cleanup;
	if ((status = check_options(co, name)) != 0 ||
	    (status = parse_fixed(&fix, co)) != 0)
		goto cleanup;
	if ((status = check_input_paths(n, argv + 1)) != 0)
		goto cleanup;
	if (out && (status = check_output(out, how.pool, n, argv + 1)) != 0)
		goto cleanup;
	if (how.only_better && !out) {
		error("--only-better without -o: it chooses what -o writes");
		status = EXIT_USAGE;
		goto cleanup;
	}
	how.start = hand_set ? calibration_hand_set() : calibration_default();
	how.tty = isatty(STDERR_FILENO);
	how.progress = ctx->verbosity >= 0 && (ctx->progress || how.tty);
	status = calibrate_inputs(ctx, &how, out, gpu, name, n, argv + 1);
cleanup:
	str_list_clear(&fix);
	str_list_clear(&group);
	return status;
}

const struct cmd_entry cmd_calibrate_entry = {
	"calibrate", NULL, "INPUT...",
	"fit the estimator's constants to measured runs",
	cmd_calibrate_exec,
	NULL,
};
