/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibrate-read.c - the measured runs of `paratune calibrate`:
 * measured-runs CSV files (one row per run: campaign_file, layout and
 * switch columns as candidates.csv names them, step_s, optionally
 * peak_memory_gib, group, source, note) and campaign directories.
 * A line's fields and the header's columns are calibrate-csv.c's.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate-csv.h"
#include "cmd-calibrate.h"
#include "config.h"
#include "layout-args.h"
#include "owner.h"
#include "error.h"
#include "strbuf.h"
#include "strlist.h"
#include "util.h"
#include "xalloc.h"

/* A line of the file is at most this long (a row names a few dozen
 * short fields and a note). */
#define CSV_LINE_MAX 8192
/* A measured-runs file is read whole first (csv_open): 64 MiB is some
 * 60,000 rows of the longest published notes. */
#define CSV_FILE_MAX (64u << 20)
/* The largest step_s and peak_memory_gib believed: a step of 11 days, a
 * GPU of 100 TiB.  Beyond is a typo or a unit slip (1e308 weighed as
 * much as any other row in the fit), refused naming file and line.  The
 * smallest: a tenth of a millisecond (a kernel launch or so; no training
 * step is shorter) and a MiB.  1e-300 was taken, gave 300-digit errors
 * and a fit of nonsense. */
#define CSV_STEP_S_MIN 1e-4
#define CSV_STEP_S_MAX 1e6
#define CSV_PEAK_GIB_MIN 1e-3
#define CSV_PEAK_GIB_MAX 1e5
/* How far over its GPU's memory_gib a peak is taken (peak_on_device). */
#define CSV_PEAK_OVER_DEVICE 1.01

/* ---- bookkeeping --------------------------------------------------------- */

/* Keep s (owned from now) for as long as the rows. */
static const char *
keep(struct calib_input *in, char *s)
{
	in->strings = xrealloc(in->strings,
	                       (size_t)(in->nstrings + 1) * sizeof(char *));
	in->strings[in->nstrings++] = s;
	return s;
}

/* A new row at the end of in. */
static struct calib_row *
new_row(struct calib_input *in, const char *gpu)
{
	ALLOC_GROW(in->rows, (size_t)in->n + 1, in->alloc);
	ALLOC_GROW(in->gpu, (size_t)in->n + 1, in->gpu_alloc);
	memset(&in->rows[in->n], 0, sizeof(in->rows[0]));
	in->gpu[in->n] = gpu;
	return &in->rows[in->n++];
}

/*
 * Note a GPU that has a measured run, kept or filtered out, so that a
 * --gpu matching none can be answered with the names there are
 * without reading the input again.
 */
static void
saw_gpu(struct calib_input *in, const char *gpu)
{
	for (int k = 0; k < in->ngpus_seen; k++)
		if (!strcmp(in->gpus_seen[k], gpu))
			return;
	in->gpus_seen = xrealloc(in->gpus_seen, (size_t)(in->ngpus_seen + 1) *
	                                        sizeof(char *));
	in->gpus_seen[in->ngpus_seen++] = gpu;
}

void
calib_input_release(struct calib_input *in)
{
	for (int i = 0; i < in->nfiles; i++) {
		plan_release(in->files[i].plan);
		free(in->files[i].plan);
		free(in->files[i].path);
	}
	for (int i = 0; i < in->ndirs; i++) {
		results_release(in->dirs[i]);
		free(in->dirs[i]);
	}
	for (int i = 0; i < in->nstrings; i++)
		free(in->strings[i]);
	free(in->files);
	free(in->dirs);
	free(in->strings);
	free(in->rows);
	free(in->gpu);
	free(in->gpus_seen);
	memset(in, 0, sizeof(*in));
}

/* The campaign file at path if an earlier row loaded it, by any name:
 * device and inode (st, path's). */
static const struct calib_campaign_file *
campaign_planned(const struct calib_input *in, const struct stat *st)
{
	for (int i = 0; i < in->nfiles; i++)
		if (in->files[i].dev == st->st_dev &&
		    in->files[i].ino == st->st_ino)
			return &in->files[i];
	return NULL;
}

/* Plan the campaign file at path (st, its); NULL after an error
 * (*status its exit code). */
static const struct calib_campaign_file *
campaign_plan(struct calib_input *in, const char *path, const struct stat *st,
              const struct plan_opts *po, int *status)
{
	struct str_list none = STR_LIST_INIT;
	struct calib_campaign_file *f;
	struct plan *p = xcalloc(1, sizeof(*p));

	*status = plan_build(p, po, path, &none);
	if (*status != EXIT_OK) {
		free(p);
		return NULL;
	}
	in->files = xrealloc(in->files, (size_t)(in->nfiles + 1) *
	                                sizeof(*in->files));
	f = &in->files[in->nfiles++];
	f->plan = p;
	f->path = xstrdup(path);
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	return f;
}

/* ---- rows ---------------------------------------------------------------- */

/* Per campaign file (an index of in->files): the campaign its rows of
 * one CSV are, "CSV:FILE" as the first of them names the file, or
 * NULL. */
struct csv_campaigns {
	const char **v;
	int n;
};

/* What one data line needs besides its fields. */
struct csv_ctx {
	struct calib_input *in;
	struct csv_campaigns *campaigns;
	const char *path, *dir, *gpu;
	const struct plan_opts *po;
	const struct csv_line *head;
	const int *kinds;
	int lineno, campaign, step;
};

/* A number of field i from min to max, or an error naming its place. */
static int
field_number(const struct csv_ctx *cx, const struct csv_line *l, int i,
             double min, double max, double *v)
{
	if (parse_double(l->field[i], v) == 0 && *v >= min && *v <= max)
		return 0;
	error("%s:%d:%d: %s '%s' is not a number from %g to %g",
	      cx->path, cx->lineno, l->col[i], cx->head->field[i],
	      l->field[i], min, max);
	return EXIT_DATAERR;
}

/* The error for a campaign file at path that cannot be read.  A name
 * written relative to the working directory was said missing with no
 * word of where it was looked for: the CSV's directory. */
static void
missing_campaign(const struct csv_ctx *cx, const struct csv_line *l, int i,
                 const char *path)
{
	const char *f = l->field[i];
	int err = errno;

	if (f[0] == '\0')
		error("%s:%d:%d: campaign_file is empty", cx->path,
		      cx->lineno, l->col[i]);
	else if (f[0] == '/')
		error("%s:%d:%d: campaign_file '%s': %s", cx->path,
		      cx->lineno, l->col[i], f, open_error(err));
	else
		error("%s:%d:%d: campaign_file '%s': %s (looked for '%s': "
		      "a campaign_file is relative to the CSV file's "
		      "directory)", cx->path, cx->lineno, l->col[i], f,
		      open_error(err), path);
}

/* The campaign file an earlier row loaded under the name path (as
 * campaign_plan keeps it), or NULL: checked once, as below, for all the
 * rows that give it so. */
static const struct calib_campaign_file *
campaign_named(const struct calib_input *in, const char *path)
{
	for (int i = 0; i < in->nfiles; i++)
		if (!strcmp(in->files[i].path, path))
			return &in->files[i];
	return NULL;
}

/*
 * What lies at path, the campaign file of field i, into *st: 0, or an
 * exit code after an error naming the row.  Only what owner_read_here
 * allowed is looked at, and only a regular file is ever opened: a
 * FIFO's open (O_NONBLOCK or not) wakes its writer, a device's may do
 * anything.
 */
static int
row_file_kind(const struct csv_ctx *cx, const struct csv_line *l, int i,
              const char *path, struct stat *st)
{
	const char *f = l->field[i];

	if (access(path, R_OK) != 0 || stat(path, st) != 0) {
		missing_campaign(cx, l, i, path);
		return EXIT_NOINPUT;
	}
	if (S_ISDIR(st->st_mode)) {
		/* A planned campaign's directory: "cannot be planned". */
		error("%s:%d:%d: campaign_file '%s' is a directory: name a "
		      "campaign file (a campaign directory's campaign.conf), "
		      "or give the campaign directory to calibrate itself",
		      cx->path, cx->lineno, l->col[i], f);
		return EXIT_NOINPUT;
	}
	if (!S_ISREG(st->st_mode)) {
		error("%s:%d:%d: campaign_file '%s': it is not a regular file",
		      cx->path, cx->lineno, l->col[i], f);
		return EXIT_CONFIG;
	}
	return 0;
}

/*
 * The campaign file of field i, relative to the CSV's directory.  Who
 * could change the path is judged before anything of it is looked at:
 * run as root, a stat() or access() of a path another user controls
 * told root's caller whether that user's files exist, and one on a FUSE
 * file system whose daemon stopped held root there for good.
 */
static const struct calib_campaign_file *
row_campaign(const struct csv_ctx *cx, const struct csv_line *l, int i,
             int *status)
{
	const char *f = l->field[i];
	char *path = f[0] == '/' ? xstrdup(f)
	                          : xasprintf("%s/%s", cx->dir, f);
	const struct calib_campaign_file *file = NULL;
	struct stat st;

	*status = 0;
	if (f[0] == '\0') {
		missing_campaign(cx, l, i, path);
		*status = EXIT_NOINPUT;
		goto cleanup;
	}
	/* Checked and planned once per name: the owner check reads the
	 * mount table (130 us) and, run as root, looks in a child. */
	if ((file = campaign_named(cx->in, path)) != NULL)
		goto cleanup;
	if ((*status = owner_read_here(path)) != 0) {
		error("%s:%d:%d: campaign_file '%s' is refused (above)",
		      cx->path, cx->lineno, l->col[i], f);
		goto cleanup;
	}
	if ((*status = row_file_kind(cx, l, i, path, &st)) != 0 ||
	    (file = campaign_planned(cx->in, &st)) != NULL)
		goto cleanup;
	file = campaign_plan(cx->in, path, &st, cx->po, status);
	if (file == NULL)
		error("%s:%d:%d: campaign_file '%s' cannot be planned (above)",
		      cx->path, cx->lineno, l->col[i], f);
cleanup:
	free(path);
	return file;
}

/*
 * The campaign of a row of file, named name in it: one per campaign file
 * and CSV, whatever name the rows give the file.  Named two ways
 * ("a.conf", "./a.conf"), it was two campaigns of one layout each:
 * nothing to rank, and each fitted to predict its twin when
 * cross-validated.  Another CSV's rows of it are another campaign
 * (another source: MLPerf's, NVIDIA's tables).
 */
static const char *
csv_campaign(const struct csv_ctx *cx, const struct calib_campaign_file *file,
             const char *name)
{
	struct csv_campaigns *c = cx->campaigns;
	int i = (int)(file - cx->in->files);

	if (i >= c->n) {
		c->v = xrealloc(c->v, (size_t)(i + 1) * sizeof(*c->v));
		while (c->n <= i)
			c->v[c->n++] = NULL;
	}
	if (c->v[i] == NULL)
		c->v[i] = keep(cx->in, xasprintf("%s:%s", cx->path, name));
	return c->v[i];
}

/* The layout of a data line: its columns over the campaign's base. */
static int
row_layout(const struct csv_ctx *cx, const struct csv_line *l,
           const struct plan *p, struct layout *out)
{
	const char *names[CSV_FIELDS_MAX], *values[CSV_FIELDS_MAX];
	int cols[CSV_FIELDS_MAX], n = 0, bad = -1;
	enum layout_rule rule;

	for (int i = 0; i < l->n; i++)
		if (cx->kinds[i] == COL_LAYOUT) {
			names[n] = cx->head->field[i];
			values[n] = l->field[i];
			cols[n++] = l->col[i];
		}
	if (layout_args_from_columns(p, n, names, values, out, &bad) != 0) {
		if (bad >= 0)
			error("%s:%d:%d: '%s' is not a value of %s", cx->path,
			      cx->lineno, cols[bad], values[bad], names[bad]);
		else
			error("%s:%d: the layout cannot be resolved",
			      cx->path, cx->lineno);
		return EXIT_DATAERR;
	}
	rule = layout_check(&p->workload, out);
	if (rule != LAYOUT_OK) {
		error("%s:%d: invalid layout for its campaign file: %s",
		      cx->path, cx->lineno, layout_rule_name(rule));
		return EXIT_DATAERR;
	}
	return 0;
}

/*
 * Refuse a peak (field i) above the memory of the campaign's GPU g: no
 * run allocates more than its device has, so it is a slip (GB for
 * GiB, a node's total, another GPU's run), and the fit weighed it as
 * an out-of-memory the estimate had missed.  The catalog's totals are
 * rounded to a tenth of a GiB and a site may set its own reading:
 * CSV_PEAK_OVER_DEVICE of slack keeps a full device's peak.
 */
static int
peak_on_device(const struct csv_ctx *cx, const struct csv_line *l, int i,
               double peak, const struct gpu *g)
{
	if (i < 0 || g->memory_gib <= 0 ||
	    peak <= g->memory_gib * CSV_PEAK_OVER_DEVICE)
		return 0;
	error("%s:%d:%d: peak_memory_gib '%s' is above the %g GiB of GPU "
	      "'%s' (memory_gib): a measured peak cannot exceed its device",
	      cx->path, cx->lineno, l->col[i], l->field[i], g->memory_gib,
	      g->name);
	return EXIT_DATAERR;
}

/*
 * The peak a measured candidate's log reported, in GiB; 0 for none.  A
 * log's peak above its GPU's memory (as peak_on_device) is no
 * measurement, but the log is its owner's, not the input's: the step
 * time is kept, the peak left out and said so, where a CSV row's is an
 * error.
 */
static double
log_peak(const char *dir, const struct result_row *rr, const struct gpu *g)
{
	double peak = rr->mem_peak_gib;

	if (!isfinite(peak) || peak <= 0)
		return 0;
	if (g->memory_gib > 0 && peak > g->memory_gib * CSV_PEAK_OVER_DEVICE) {
		warning("%s: %s: its log's peak of %.1f GiB is above the %g "
		        "GiB of GPU '%s' (memory_gib): the peak is not fitted",
		        dir, rr->cand.name, peak, g->memory_gib, g->name);
		return 0;
	}
	return peak;
}

/*
 * A group field that contradicts the campaign's model: "moe" for a
 * dense one, "dense-bf16" or "dense-fp8" for one with experts, or one
 * of the three in other letters ("MoE" made a custom group of dense
 * runs).  The model, not the label, makes a row an MoE run, and such a
 * label fitted MoE runs into the dense constants (gemm_eff_max at its
 * bound) or fitted nothing of dense runs labelled moe.  0, or an
 * error naming the field.
 */
static int
group_fits_model(const struct csv_ctx *cx, int col, const char *group,
                 const struct workload *w)
{
	static const char *const known[] = { "dense-bf16", "dense-fp8",
	                                     "moe" };
	const char *derived = calibrate_group(w);

	for (size_t k = 0; k < sizeof known / sizeof *known; k++) {
		if (strcasecmp(group, known[k]))
			continue;
		if (!strcmp(group, derived))
			return 0;
		error("%s:%d:%d: group '%s', but the campaign's model %s "
		      "makes it '%s' (leave the field empty for that)",
		      cx->path, cx->lineno, col, group, w->model->name,
		      derived);
		return EXIT_DATAERR;
	}
	return 0;
}

/* One data line into a row (or none, when its GPU is filtered out). */
static int
read_row(const struct csv_ctx *cx, const struct csv_line *l)
{
	const struct calib_campaign_file *file;
	const struct plan *p;
	struct calib_row *r;
	struct layout lay;
	double step, peak = 0;
	int status = 0, peak_col = -1;

	if (l->n != cx->head->n) {
		error("%s:%d: %d fields, the header has %d", cx->path,
		      cx->lineno, l->n, cx->head->n);
		return EXIT_DATAERR;
	}
	if ((status = field_number(cx, l, cx->step, CSV_STEP_S_MIN,
	                           CSV_STEP_S_MAX, &step)) != 0)
		return status;
	for (int i = 0; i < l->n; i++)
		if (cx->kinds[i] == COL_PEAK && l->field[i][0] &&
		    (status = field_number(cx, l, peak_col = i,
		                           CSV_PEAK_GIB_MIN, CSV_PEAK_GIB_MAX,
		                           &peak)) != 0)
			return status;
	if ((file = row_campaign(cx, l, cx->campaign, &status)) == NULL)
		return status;
	p = file->plan;
	if ((status = row_layout(cx, l, p, &lay)) != 0 ||
	    (status = peak_on_device(cx, l, peak_col, peak,
	                             &p->settings.gpu)) != 0)
		return status;
	/* Before the --gpu filter: whether a file is read whole does not
	 * depend on which GPU's rows are asked for. */
	for (int i = 0; i < l->n; i++)
		if (cx->kinds[i] == COL_GROUP && l->field[i][0] &&
		    (status = group_fits_model(cx, l->col[i], l->field[i],
		                               &p->workload)) != 0)
			return status;
	saw_gpu(cx->in, p->settings.gpu.name);
	if (cx->gpu && strcmp(cx->gpu, p->settings.gpu.name))
		return 0;
	r = new_row(cx->in, p->settings.gpu.name);
	r->w = p->workload;
	r->l = lay;
	r->step_s = step;
	r->peak_gib = peak;
	r->group = calibrate_group(&p->workload);
	for (int i = 0; i < l->n; i++)
		if (cx->kinds[i] == COL_GROUP && l->field[i][0])
			r->group = keep(cx->in, xstrdup(l->field[i]));
	r->where = keep(cx->in, xasprintf("%s:%d", cx->path, cx->lineno));
	r->campaign = csv_campaign(cx, file, l->field[cx->campaign]);
	return 0;
}

/*
 * The next line of f into line (CSV_LINE_MAX bytes), without its line
 * break: 1 when read, 0 at the end, -1 after saying what is wrong with
 * line lineno (too long, a NUL byte: not a text file, a read error).
 * Byte by byte, so that a NUL is seen where fgets would hide it.
 */
static int
csv_getline(FILE *f, char *line, const char *path, int lineno)
{
	size_t len = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			return error("%s:%d:%zu: NUL byte (a measured-runs "
			             "file is text)", path, lineno, len + 1);
		if (len + 1 >= CSV_LINE_MAX)
			return error("%s:%d: line longer than %d bytes", path,
			             lineno, CSV_LINE_MAX - 1);
		line[len++] = (char)c;
	}
	if (c == EOF && ferror(f))
		return error_errno("cannot read '%s'", path);
	if (c == EOF && len == 0)
		return 0;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	line[len] = '\0';
	return 1;
}

/*
 * Warn when line repeats an earlier data line of the file word for
 * word, and remember it in seen.  A block pasted twice counted each run
 * twice, halving the pull toward the defaults and moving the fit
 * (gemm_tokens_half from 266 to 90) without a word; a run measured
 * again differs in its step time, and one reported by two sources in
 * its source.
 */
static void
warn_repeated_line(const struct csv_ctx *cx, const char *line,
                   struct str_list *seen, int **at)
{
	int i = str_list_find(seen, line);

	if (i >= 0 && *at) {
		warning("%s:%d: the same as line %d, word for word: the run "
		        "counts twice in the fit", cx->path, cx->lineno,
		        (*at)[i]);
		return;
	}
	str_list_push(seen, line);
	*at = xrealloc(*at, (size_t)seen->n * sizeof(**at));
	(*at)[seen->n - 1] = cx->lineno;
}

/* The lines of f after the header. */
static int
read_lines(struct csv_ctx *cx, FILE *f, char *line)
{
	struct str_list seen = STR_LIST_INIT;
	struct strbuf text = STRBUF_INIT;
	int *seen_at = NULL, status = 0, col, got, rows;
	struct csv_line l;
	const char *why;

	while (status == 0 &&
	       (got = csv_getline(f, line, cx->path, cx->lineno + 1)) != 0) {
		cx->lineno++;
		if (got < 0) {
			status = EXIT_DATAERR;
			break;
		}
		/* A blank line, spaces or tabs too (a spreadsheet's last). */
		if (line[strspn(line, " \t")] == '\0')
			continue;
		strbuf_reset(&text);
		strbuf_addstr(&text, line);  /* calib_csv_split cuts line up */
		if ((col = calib_csv_split(line, &l, &why)) != 0) {
			error("%s:%d:%d: %s", cx->path, cx->lineno, col, why);
			status = EXIT_DATAERR;
			break;
		}
		rows = cx->in->n;
		status = read_row(cx, &l);
		/* Only a row in the fit: --gpu leaves others out. */
		if (status == 0 && cx->in->n > rows)
			warn_repeated_line(cx, text.buf, &seen, &seen_at);
	}
	str_list_clear(&seen);
	strbuf_release(&text);
	free(seen_at);
	return status;
}

/*
 * The file at path, read whole and closed, as a stream over its bytes
 * in text (the caller's, released after the stream is closed); NULL
 * after an error, *status its exit code.  Each row's campaign file is
 * looked at by root in a child process (owner_limited), and a child
 * shares this process's file offsets: one whose exit flushed stdio
 * (valgrind's does, freeing libc's buffers) moved a file read here back
 * to its buffered position, and the rows after it were read again.
 */
static FILE *
csv_open(const char *path, struct strbuf *text, int *status)
{
	FILE *f = fopen_regular(path);
	int got;

	*status = EXIT_DATAERR;
	if (f == NULL) {
		error("cannot read '%s': %s", path, open_error(errno));
		if (errno == ENOENT)
			*status = EXIT_NOINPUT;
		return NULL;
	}
	got = read_capped(fileno(f), CSV_FILE_MAX, text);
	if (got < 0)
		error_errno("cannot read '%s'", path);
	fclose(f);
	if (got > 0)
		error("%s: larger than 64 MiB, the most a measured-runs file "
		      "may hold", path);
	if (got != 0)
		return NULL;
	/* fmemopen of no bytes is refused: an empty file reads as one. */
	f = text->len > 0 ? fmemopen(text->buf, text->len, "r")
	                  : fopen("/dev/null", "r");
	if (f == NULL)
		error_errno("cannot read '%s'", path);
	else
		*status = 0;
	return f;
}

int
calib_read_csv(struct calib_input *in, const char *path,
               const struct plan_opts *po, const char *gpu)
{
	char *line = xmalloc(CSV_LINE_MAX), *dir = path_dir(path);
	char *header = NULL;        /* the header's fields point into it */
	struct csv_line head;
	int kinds[CSV_FIELDS_MAX];
	struct csv_campaigns campaigns = { NULL, 0 };
	struct csv_ctx cx = { in, &campaigns, path, dir, gpu, po, &head, kinds,
	                      1, -1, -1 };
	struct strbuf text = STRBUF_INIT;
	int status, col, got;
	FILE *f = csv_open(path, &text, &status);
	const char *why;

	if (f != NULL && (got = csv_getline(f, line, path, 1)) <= 0) {
		if (got == 0)
			error("%s:1: empty file (a header line is required)",
			      path);
		status = EXIT_DATAERR;
	} else if (f != NULL) {
		/* A UTF-8 byte order mark, as spreadsheets save CSV, is no
		 * part of the first column's name. */
		header = xstrdup(line + (strncmp(line, "\xEF\xBB\xBF", 3)
		                         ? 0 : 3));
		if ((col = calib_csv_split(header, &head, &why)) != 0) {
			error("%s:1:%d: %s", path, col, why);
			status = EXIT_DATAERR;
		} else {
			status = calib_csv_read_header(path, &head, kinds,
			                               &cx.campaign, &cx.step);
		}
		if (status == 0)
			status = read_lines(&cx, f, line);
	}
	if (f)
		fclose(f);
	strbuf_release(&text);
	free(campaigns.v);
	free(line);
	free(header);
	free(dir);
	return status;
}

/* ---- campaign directories ------------------------------------------------ */

int
calib_read_dir(struct calib_input *in, const char *dir, const char *gpu)
{
	struct results_opts o = RESULTS_OPTS_INIT;
	struct results *res = xcalloc(1, sizeof(*res));
	const struct settings *c;
	const char *camp;
	struct workload w;
	int status = results_load(res, dir, &o);

	if (status == 0 && res->unreadable > 0) {
		/* A fit from the runs that could be read would be silently
		 * smaller than the campaign: each log was named above. */
		error("%d log%s or run director%s of '%s' could not be read "
		      "(named above): nothing is fitted from a part of a "
		      "campaign", res->unreadable,
		      res->unreadable == 1 ? "" : "s",
		      res->unreadable == 1 ? "y" : "ies", dir);
		status = EXIT_DATAERR;
	}
	if (status != 0) {
		results_release(res);
		free(res);
		return status;
	}
	in->dirs = xrealloc(in->dirs, (size_t)(in->ndirs + 1) *
	                              sizeof(struct results *));
	in->dirs[in->ndirs++] = res;
	c = &res->run.settings;
	settings_workload(c, &w);
	camp = keep(in, xstrdup(dir));
	for (int i = 0; i < res->n; i++) {
		const struct result_row *rr = &res->v[i];
		struct calib_row *r;

		if (rr->kind != RESULT_MEASURED || !rr->recommendable ||
		    !(rr->m.step_mean_s > 0))
			continue;
		saw_gpu(in, c->gpu.name);
		if (gpu && strcmp(gpu, c->gpu.name))
			break;
		r = new_row(in, c->gpu.name);
		r->w = w;
		r->l = rr->cand.layout;
		r->step_s = rr->m.step_mean_s;
		r->peak_gib = log_peak(dir, rr, &c->gpu);
		r->group = calibrate_group(&w);
		r->where = keep(in, xasprintf("%s:%s", dir, rr->cand.name));
		r->campaign = camp;
	}
	return 0;
}
