/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-file.c - the calibration file `paratune calibrate -o`
 * writes: comments naming its inputs, rows and warnings, then one
 * calibration group with a member per GPU fitted (with --only-better,
 * per GPU whose fit improves on its start), written where a link
 * points and with the mode the file had.
 */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate-file.h"
#include "error.h"
#include "safe-text.h"
#include "util.h"
#include "xalloc.h"

/* Whether some fit of the ng in g took constant p from the shared fit. */
static bool
any_shared(const struct gpu_fit *g, int ng, int p)
{
	for (int k = 0; k < ng; k++)
		if (g[k].fit.shared[p])
			return true;
	return false;
}

/* The constants of fit f at a bound into sb, "comm_eff_nvlink (high),
 * attn_eff_flash (low)"; how many. */
static int
bound_list(struct strbuf *sb, const struct calib_fit *f)
{
	int k = 0;

	for (int p = 0; p < CAL_NPARAMS; p++) {
		const char *at = calibrate_bound_name(calibrate_at_bound(f, p));

		if (at)
			strbuf_addf(sb, "%s%s (%s)", k++ ? ", " : "",
			            calibration_param(p)->key, at);
	}
	return k;
}

/*
 * Of a fit that cross-validated nothing (one run, or runs of one
 * configuration: calibrate_fold_units), what it rests on into sb; false
 * for one that did.  Such a fit still moves the constants (one run took
 * gemm_eff_max from 0.75 to 0.61) with nothing held out to say whether
 * it predicts other layouts better or worse, which the report alone
 * said in passing: a site may want it, but knowingly.
 */
static bool
few_runs_line(struct strbuf *sb, const struct gpu_fit *g)
{
	int *rep, configs;

	if (g->fit.folds >= 2)
		return false;
	rep = xcalloc((size_t)g->n + 1, sizeof(*rep));
	configs = calibrate_configs(g->rows, g->n, rep);
	free(rep);
	strbuf_addf(sb, "%s: fitted from %d measured run%s of %d "
	            "configuration%s, too few to cross-validate: the "
	            "constants have no held-out check; measure more runs, "
	            "of other configurations, before relying on them",
	            g->gpu, g->n, g->n == 1 ? "" : "s", configs,
	            configs == 1 ? "" : "s");
	return true;
}

/* What the run's warnings said, as comments: a site reading the file
 * sees them too. */
static void
warning_comments(struct strbuf *sb, const struct gpu_fit *g, int ng)
{
	struct strbuf line = STRBUF_INIT;

	for (int k = 0; k < ng; k++) {
		strbuf_reset(&line);
		if (few_runs_line(&line, &g[k]))
			strbuf_addf(sb, "# %s\n", line.buf);
	}
	for (int k = 0; k < ng; k++) {
		if (calibrate_bounds_hit(&g[k].fit) == 0)
			continue;
		strbuf_addf(sb, "# %s: fitted at a bound, the runs asking for "
		            "beyond it: ", g[k].gpu);
		bound_list(sb, &g[k].fit);
		strbuf_addch(sb, '\n');
	}
	strbuf_release(&line);
}

/*
 * Whether -o writes g's fit: always, or with --only-better where its
 * runs, held out, are predicted better than with its start (the
 * cross-validated error over all of them, as the table's "all" row).
 * A fit to a GPU's dense runs can move constants its MoE runs depend on
 * so far that the GPU's runs as a whole come out worse than with the
 * start: GB200's published runs, 11.3 % against 8.0 % (bench/README.md,
 * 2026-12-04); including such a fit makes a site's estimates worse.  A
 * fit not cross-validated is not written either: nothing says it is
 * better.  Otherwise the reason it is not, into why.
 */
static bool
written_fit(bool only_better, const struct gpu_fit *g, struct strbuf *why)
{
	double before, cv;
	char a[CALIB_PCT_SIZE], b[CALIB_PCT_SIZE];
	enum calib_verdict v = calibrate_fit_verdict(g, &before, &cv);

	if (!only_better || v == CALIB_IMPROVES)
		return true;
	if (v == CALIB_UNCHECKED) {
		strbuf_addf(why, "%s: not written (--only-better): too few "
		            "configurations to cross-validate its fit", g->gpu);
		return false;
	}
	strbuf_addf(why, "%s: not written (--only-better): its fit predicts "
	            "its runs, held out, no better than the %s do (%s "
	            "against %s)", g->gpu, calibration_label(g->start),
	            calibrate_pct_text(a, cv), calibrate_pct_text(b, before));
	return false;
}

/* The libconfig file: a comment naming the inputs and rows, then one
 * calibration group with a member per GPU.  The names are escaped
 * (safe_text_append): a newline in a file's name ended the comment and
 * made the rest of the name a line of libconfig. */
void
calibrate_file_text(struct strbuf *sb, const struct gpu_fit *g, int ng,
                    bool only_better, int ninputs, char **inputs)
{
	struct strbuf why = STRBUF_INIT;
	bool *written = xcalloc((size_t)ng + 1, sizeof(*written));
	int nwritten = 0;

	strbuf_addstr(sb, "# paratune calibration (paratune.conf(5)), "
	              "written by paratune calibrate from:\n");
	for (int i = 0; i < ninputs; i++) {
		strbuf_addstr(sb, "#   ");
		safe_text_append(sb, inputs[i]);
		strbuf_addch(sb, '\n');
	}
	for (int k = 0; k < ng; k++) {
		strbuf_addf(sb, "# %s: %d row%s%s:", g[k].gpu, g[k].n,
		            g[k].n == 1 ? "" : "s",
		            g[k].fit.cal.rows ? "" : g[k].fit.folds >= 2
		            ? ", too few to measure an interval: the built-in "
		            "one, widened to their residuals (rows = 0)"
		            : ", not cross-validated: the built-in interval "
		            "(rows = 0)");
		for (int i = 0; i < g[k].n; i++) {
			strbuf_addstr(sb, i % 4 ? " " : "\n#   ");
			safe_text_append(sb, g[k].rows[i].where);
		}
		strbuf_addch(sb, '\n');
	}
	warning_comments(sb, g, ng);
	for (int p = 0; p < CAL_NPARAMS; p++)
		if (any_shared(g, ng, p))
			strbuf_addf(sb, "# %s: fitted once to the MoE runs of "
			            "every GPU above that has them\n",
			            calibration_param(p)->key);
	for (int k = 0; k < ng; k++) {
		strbuf_reset(&why);
		if ((written[k] = written_fit(only_better, &g[k], &why))) {
			nwritten++;
			continue;
		}
		strbuf_addf(sb, "# %s\n", why.buf);
		warning("%s", why.buf);
	}
	/* None written: no group, which a site file may include all the
	 * same (the built-in constants serve every GPU). */
	if (nwritten > 0) {
		strbuf_addstr(sb, "calibration = {\n");
		for (int k = 0; k < ng; k++)
			if (written[k])
				calibrate_write_entry(sb, g[k].gpu,
				                      &g[k].fit.cal);
		strbuf_addstr(sb, "};\n");
	}
	free(written);
	strbuf_release(&why);
}

/*
 * Warn, one line a fit, of constants fitted at a bound: the runs asked
 * for more than is physical, so the estimate misses something they
 * measure or the bound is wrong, and the fit is not one to include
 * unread.  The table and JSON mark each such constant.
 */
void
calibrate_file_warn_bounds(const struct gpu_fit *g, int ng)
{
	struct strbuf sb = STRBUF_INIT;

	for (int k = 0; k < ng; k++) {
		int hit;

		strbuf_reset(&sb);
		hit = bound_list(&sb, &g[k].fit);
		if (hit > 0)
			warning("%s: %s fitted at %s bound%s: the runs ask "
			        "for beyond what is physical; the estimate "
			        "misses something they measure, or the "
			        "bound is wrong", g[k].gpu, sb.buf,
			        hit == 1 ? "its" : "their",
			        hit == 1 ? "" : "s");
	}
	strbuf_release(&sb);
}

/* Warn, one line a fit, of the fits that cross-validated nothing
 * (few_runs_line). */
void
calibrate_file_warn_few_runs(const struct gpu_fit *g, int ng)
{
	struct strbuf sb = STRBUF_INIT;

	for (int k = 0; k < ng; k++) {
		strbuf_reset(&sb);
		if (few_runs_line(&sb, &g[k]))
			warning("%s", sb.buf);
	}
	strbuf_release(&sb);
}

/*
 * Where the link at out leads, allocated: its target, relative to the
 * link's directory where written so; a target that does not exist yet
 * too (a site's shared calibration written the first time through its
 * link).  NULL after an error naming the link.
 */
static char *
link_target(const char *out)
{
	char buf[PATH_MAX], *dir, *path;
	ssize_t n = readlink(out, buf, sizeof buf - 1);

	if (n < 0) {
		error_errno("cannot follow the link '%s'", out);
		return NULL;
	}
	buf[n] = '\0';
	if (buf[0] == '/')
		return xstrdup(buf);
	dir = path_dir(out);
	path = xasprintf("%s/%s", dir, buf);
	free(dir);
	return path;
}

/*
 * sb into out, a new file renamed into place.  A calibration file kept
 * where a link points (the site's, shared) is written there, the link
 * left as it is, and a file's mode is kept: the rename had replaced
 * the link with a file of 0644, a private calibration made readable by
 * everyone.  The mode is set after the write, since the umask trims
 * the new file's.  0 or EXIT_CANTCREAT.
 */
int
calibrate_file_write(const char *out, const struct strbuf *sb)
{
	const char *path = out;
	char *target = NULL;
	struct stat st;
	int mode = -1, status = 0;

	if (lstat(out, &st) == 0 && S_ISLNK(st.st_mode)) {
		if ((target = link_target(out)) == NULL)
			return EXIT_CANTCREAT;
		path = target;
	}
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		mode = (int)(st.st_mode & 0777);
	if (write_file_atomic(path, sb->buf, sb->len,
	                      mode < 0 ? 0644 : mode) != 0)
		status = EXIT_CANTCREAT;
	else if (mode >= 0 && chmod(path, (mode_t)mode) != 0)
		warning("cannot keep the mode %04o of '%s': %s", mode, path,
		        strerror(errno));
	free(target);
	return status;
}
