/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * store-candidates.c - candidates.csv: every kept candidate of a plan
 * with its layout, switches and estimates, written by plan and read by
 * every later command.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "layout-switch.h"
#include "safe-text.h"
#include "store-int.h"
#include "util.h"
#include "xalloc.h"

/* The columns of candidates.csv before the switches, which paratune
 * 0.1.0 wrote alone (and which are still read). */
static const char header_layout[] =
	"rank,name,tp,pp,cp,ep,etp,vp,mbs,gbs,dp,recompute,"
	"recompute_layers,est_memory_gib,memory_status,pred_step_s,"
	"pred_tflops_per_gpu,pred_mfu,base";
/* The estimate's column as paratune 0.1.0 named it: the unit
 * was always GiB, as every other output now spells it. */
static const char old_memory_col[] = ",est_memory_gb,";
enum { LAYOUT_FIELDS = 19, ALL_FIELDS = LAYOUT_FIELDS + SW_COUNT };
/* Columns after the switches, read by name: the plan writes none, the
 * adaptive search's refits add pred_now_step_s, and one this release
 * does not know is passed over (MAX_EXTRA of them at most). */
static const char now_col[] = "pred_now_step_s";
/* The step time's interval, which the plan writes after the switches
 * (files planned before it lack it). */
static const char header_interval[] = ",pred_step_s_low,pred_step_s_high";
static const char low_col[] = "pred_step_s_low";
static const char high_col[] = "pred_step_s_high";
enum { MAX_EXTRA = 16, MAX_FIELDS = ALL_FIELDS + MAX_EXTRA };

/* What a header line announces. */
struct csv_header {
	int nfields;          /* columns in all */
	int nknown;           /* the layout and the switches */
	int now;              /* the index of pred_now_step_s; -1: none */
	int low, high;        /* pred_step_s_low and _high; -1: none */
};

/* The header line, without its newline: the layout, then the first
 * nswitches switches under their campaign key names. */
static void
candidates_header(struct strbuf *sb, int nswitches)
{
	strbuf_addstr(sb, header_layout);
	for (int s = 0; s < nswitches; s++)
		strbuf_addf(sb, ",%s",
		            layout_switch_name((enum layout_switch)s));
}

/* Drop a fixed-point number's trailing zeros, and its point with them. */
static void
trim_zeros(char *num)
{
	char *end = num + strlen(num);

	if (!strchr(num, '.'))
		return;
	while (end[-1] == '0')
		*--end = '\0';
	if (end[-1] == '.')
		end[-1] = '\0';
}

/*
 * A size in billions as a name spells it: hundredths, as NeMo's names
 * have them ("8.03", "70"), in full however large ("5154110", never
 * "5.15411e+06"); below 0.005, which hundredths make 0, three significant
 * digits ("0.00123").  Digits and a point only.
 */
static void
name_size(double size_b, char *num, size_t len)
{
	double r = round(size_b * 100) / 100;
	int decimals = 2;

	if (!(r > 0) && size_b > 0)
		decimals = 2 - (int)floor(log10(size_b));
	snprintf(num, len, "%.*f", decimals, r > 0 ? r : size_b);
	trim_zeros(num);
}

int
candidate_name_nodes(const char *name)
{
	const char *at = strstr(name, "nodes_tp_"), *p = at;

	while (p && p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	/* At most 8 digits: a node count fits an int, and a longer run of
	 * digits is some other name's. */
	if (!p || p == at || p == name || p[-1] != '_' || at - p > 8)
		return 0;
	return (int)strtol(p, NULL, 10);
}

bool
candidate_name_fits(const struct settings *c, const char *name)
{
	const char *family = c->model.family[0] ? c->model.family : "model";
	size_t n = strlen(family);

	return !strncmp(name, family, n) && name[n] == '_' &&
	       candidate_name_nodes(name) == c->nodes;
}

void
candidate_name_unfit(struct strbuf *sb, const char *dir,
                     const struct settings *c, const char *name)
{
	strbuf_addf(sb, "%s/campaign.conf: its nodes or model changed since "
	            "plan (it gives %s on %d nodes; '%s' was planned)", dir,
	            c->model.family[0] ? c->model.family : "model", c->nodes,
	            name);
}

void
candidate_name_prefix(const struct settings *c, char *buf, size_t len)
{
	const char *family = c->model.family[0] ? c->model.family : "model";
	/* Room for %.2f of any finite double: 309 digits and change. */
	char num[400];

	name_size(model_params(&c->model) / 1e9, num, sizeof num);
	snprintf(buf, len, "%s_%sb_%dnodes", family, num, c->nodes);
}

/*
 * A predicted time in seconds, after a comma: four decimals as always,
 * more below 0.01 s so that three figures show (0.00015 s was written
 * 0.0002, and its interval's ends collapsed onto each other), "%g" where
 * even that takes more than FIGURE_DECIMALS_MAX.
 */
static void
add_seconds(struct strbuf *sb, double v)
{
	int decimals = figure_decimals(v, 4, 3);

	if (decimals < 0)
		strbuf_addf(sb, ",%.3g", v);
	else
		strbuf_addf(sb, ",%.*f", decimals, v);
}

/* One CSV row; names are [A-Za-z0-9._-] so nothing needs quoting. */
static void
candidate_csv_row(struct strbuf *sb, const struct candidate *c,
                  enum precision precision)
{
	const struct layout *l = &c->layout;
	int layers = l->recompute == RECOMPUTE_FULL ? l->recompute_layers : 0;

	strbuf_addf(sb, "%d,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%.2f,%s",
	            c->rank, c->name, l->tp, l->pp, l->cp, l->ep,
	            layout_etp(l), l->vp, l->mbs, l->gbs, l->dp,
	            recompute_name(l->recompute), layers,
	            c->est.mem.total / GIB,
	            memory_status_name(c->est.memory_status));
	add_seconds(sb, c->est.step_s);
	strbuf_addf(sb, ",%.1f,%.4f,%d", c->est.tflops_per_gpu, c->est.mfu,
	            c->base ? 1 : 0);
	for (int s = 0; s < SW_COUNT; s++) {
		strbuf_addch(sb, ',');
		layout_switch_format(l, precision, (enum layout_switch)s, sb);
	}
	add_seconds(sb, c->est.step_s_low);
	add_seconds(sb, c->est.step_s_high);
	strbuf_addch(sb, '\n');
}

void
candidates_csv_write(struct strbuf *sb, const struct grid_result *res,
                     enum precision precision)
{
	candidates_header(sb, SW_COUNT);
	strbuf_addstr(sb, header_interval);
	strbuf_addch(sb, '\n');
	for (int i = 0; i < res->n; i++)
		candidate_csv_row(sb, &res->v[i], precision);
}

/*
 * Split a CSV line in place into fields as RFC 4180 has them: plan
 * quotes none, but a spreadsheet re-saving the file may quote every
 * one ("4", "" for a quote within).  The fields lie one after the
 * other, each ended by a NUL.  Returns how many, -1 past max, or -2
 * with *bad the index of a field whose quotes RFC 4180 does not allow
 * and *why what is wrong with them.
 */
static int
split_fields(char *line, char **fields, int max, int *bad,
             const char **why)
{
	char *p = line, *w = line;
	int n = 0;

	for (;;) {
		if (n == max)
			return -1;
		fields[n] = w;
		*bad = n++;
		if (*p == '"') {
			for (p++; *p && (*p != '"' || p[1] == '"'); p++) {
				if (*p == '"') /* "" is one quote */
					p++;
				*w++ = *p;
			}
			*why = *p ? "text after its closing quote"
			           : "a quote not closed";
			if (*p == '\0' || (*++p != ',' && *p != '\0'))
				return -2;
		} else {
			while (*p && *p != ',' && *p != '"')
				*w++ = *p++;
			*why = "a quote within a field not quoted";
			if (*p == '"')
				return -2;
		}
		/* Read before the NUL, which may land on it. */
		if (*p++ == '\0') {
			*w = '\0';
			return n;
		}
		*w++ = '\0';
	}
}

/* The fields of a line split as above and joined again by commas, in
 * place: what plan would have written.  -1 when it cannot be, or when
 * a field holds a comma or a quote, which no plan writes. */
static int
unquote_line(char *line)
{
	char *fields[MAX_FIELDS + 1];
	const char *why;
	int bad, n = split_fields(line, fields, MAX_FIELDS + 1, &bad, &why);

	for (int i = 0; i < n; i++)
		if (strpbrk(fields[i], ",\""))
			return -1;
	for (int i = 1; i < n; i++)
		fields[i - 1][strlen(fields[i - 1])] = ',';
	return n < 0 ? -1 : 0;
}

bool
candidate_name_ok(const char *name, struct strbuf *why)
{
	struct strbuf what = STRBUF_INIT;
	bool ok = false;

	if (name[0] == '\0')
		strbuf_addstr(why, "is empty");
	else if (name[0] == '.' || strchr(name, '/'))
		strbuf_addstr(why, "has a '/' or a leading '.': not a run "
		              "directory");
	else if (!safe_text_plain(name, &what))
		strbuf_addf(why, "holds %s: no plan writes one", what.buf);
	else
		ok = true;
	strbuf_release(&what);
	return ok;
}

/* The largest estimate or prediction a row may hold (GiB, seconds,
 * TFLOP/s, MFU): far beyond any plan's, and a dozen characters at most
 * however it is printed ("-1e308" printed a 310-character cell). */
#define CANDIDATE_VALUE_MAX 1e12

static bool
value_ok(double v)
{
	return isfinite(v) && v >= 0 && v <= CANDIDATE_VALUE_MAX;
}

/* Whether size is one a campaign could have planned: 1 to the
 * configuration's bound (0 too where it means "not set"). */
static bool
size_ok(int size, int min, int max)
{
	return size >= min && size <= max;
}

/*
 * Parse one data row; the index of the first field that is malformed or
 * out of range, -1 when none is.  A hand-edited size must be within the
 * bounds the configuration puts on its search lists (etp and vp 0: not
 * set): gbs = -256 ranked first, with negative samples/s and cost, and
 * tp = 2^31 - 1 priced a run on 10^18 GPUs.
 */
static int
parse_row(char **f, struct candidate_row *r)
{
	const int par = CONFIG_MAX_PARALLEL, batch = CONFIG_MAX_BATCH;
	int *ints[] = { &r->layout.tp, &r->layout.pp, &r->layout.cp,
		&r->layout.ep, &r->layout.etp, &r->layout.vp, &r->layout.mbs,
		&r->layout.gbs, &r->layout.dp };
	double *reals[] = { &r->est_memory_gib, &r->pred_step_s,
		&r->pred_tflops_per_gpu, &r->pred_mfu };
	static const int real_col[] = { 13, 15, 16, 17 };
	int rc, status, base;

	memset(r, 0, sizeof(*r));
	if (parse_int(f[0], &r->rank))
		return 0;
	if (strlen(f[1]) >= sizeof r->name)
		return 1;
	strcpy(r->name, f[1]);
	for (int i = 0; i < 9; i++)
		if (parse_int(f[2 + i], ints[i]) ||
		    !size_ok(*ints[i], i == 4 || i == 5 ? 0 : 1,
		             i < 6 ? par : batch))
			return 2 + i;
	if ((rc = recompute_parse(f[11])) < 0)
		return 11;
	if (parse_int(f[12], &r->layout.recompute_layers) ||
	    !size_ok(r->layout.recompute_layers, 0, CONFIG_MAX_DIM))
		return 12;
	for (int i = 0; i < 4; i++)
		if (parse_double(f[real_col[i]], reals[i]) ||
		    !value_ok(*reals[i]))
			return real_col[i];
	status = !strcmp(f[14], "safe") ? MEM_SAFE
	         : !strcmp(f[14], "oom-risk") ? MEM_OOM_RISK : -1;
	if (status < 0)
		return 14;
	if (parse_int(f[18], &base))
		return 18;
	r->layout.recompute = (enum recompute)rc;
	r->memory_status = (enum memory_status)status;
	r->base = base != 0;
	return -1;
}

/* The first n switches of a row, the others left at their defaults;
 * the index of the first malformed one, -1 when none is. */
static int
parse_switches(char **f, int n, struct candidate_row *r)
{
	for (int s = 0; s < n; s++)
		if (layout_switch_parse(&r->layout, (enum layout_switch)s,
		                        f[LAYOUT_FIELDS + s]) != 0)
			return LAYOUT_FIELDS + s;
	r->switches_known = true;
	return -1;
}

/* The named columns after the known ones ("" or ",NAME,..."); -1 when
 * one is empty, there are too many, or one this release does not know
 * follows fewer than all the switches (a damaged header, not a later
 * release's). */
static bool
column_is(const char *name, size_t len, const char *col)
{
	return len == strlen(col) && !strncmp(name, col, len);
}

static int
header_extra(const char *rest, struct csv_header *h)
{
	while (*rest == ',') {
		const char *name = rest + 1;
		size_t len = strcspn(name, ",");
		int *known = column_is(name, len, now_col) ? &h->now
		           : column_is(name, len, low_col) ? &h->low
		           : column_is(name, len, high_col) ? &h->high : NULL;

		if (len == 0 || h->nfields >= MAX_FIELDS ||
		    (!known && h->nknown < ALL_FIELDS))
			return -1;
		if (known)
			*known = h->nfields;
		h->nfields++;
		rest = name + len;
	}
	return *rest ? -1 : 0;
}

/*
 * Read the header line into h; -1 when it is not one: the layout and
 * the switches, or only the first of them for a campaign planned before
 * the others were added (switches are only ever added at the end), or
 * none before the switch columns; then any named columns.
 */
static int
header_fields(const char *line, struct csv_header *h)
{
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
	const char *old = strstr(line, old_memory_col);
	int ret = -1;

	if (old) { /* read as the new name */
		strbuf_add(&got, line, (size_t)(old - line));
		strbuf_addstr(&got, ",est_memory_gib,");
		strbuf_addstr(&got, old + strlen(old_memory_col));
		line = got.buf;
	}
	for (int k = SW_COUNT; k >= 0 && ret < 0; k--) {
		strbuf_reset(&want);
		candidates_header(&want, k);
		if (strncmp(line, want.buf, want.len) ||
		    (line[want.len] && line[want.len] != ','))
			continue;
		h->nfields = h->nknown = LAYOUT_FIELDS + k;
		h->now = h->low = h->high = -1;
		ret = header_extra(line + want.len, h);
		if (ret != 0)
			break;
	}
	strbuf_release(&want);
	strbuf_release(&got);
	return ret;
}

/* The named columns of a row that this release reads; the index of
 * the first malformed one, -1 when none is. */
static int
parse_extra(char **f, const struct csv_header *h, struct candidate_row *r)
{
	if (h->low >= 0 && (parse_double(f[h->low], &r->pred_step_s_low) ||
	                    !value_ok(r->pred_step_s_low)))
		return h->low;
	if (h->high >= 0 && (parse_double(f[h->high], &r->pred_step_s_high) ||
	                     !value_ok(r->pred_step_s_high)))
		return h->high;
	if (h->now < 0)
		return -1;
	if (parse_double(f[h->now], &r->pred_now_step_s) ||
	    !value_ok(r->pred_now_step_s))
		return h->now;
	r->has_pred_now = true;
	return -1;
}

/* The header's name of column i (from 0) of a file read with h. */
static void
column_name(const struct csv_header *h, int i, struct strbuf *sb)
{
	const char *p = header_layout;

	if (i >= LAYOUT_FIELDS && i < h->nknown) {
		strbuf_addstr(sb, layout_switch_name(
			(enum layout_switch)(i - LAYOUT_FIELDS)));
		return;
	}
	if (i == h->now || i == h->low || i == h->high) {
		strbuf_addstr(sb, i == h->now ? now_col
		                  : i == h->low ? low_col : high_col);
		return;
	}
	for (int k = 0; k < i && p; k++)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (p)
		strbuf_add(sb, p, strcspn(p, ","));
}

/* The error for field i of a row: its column and, when given, its
 * value (escaped: it is a hand edit's). */
static int
field_error(const struct csv_header *h, const char *path, int lineno,
            int i, const char *value, const char *why)
{
	struct strbuf sb = STRBUF_INIT;

	column_name(h, i, &sb);
	strbuf_addf(&sb, " (column %d)", i + 1);
	if (value) {
		strbuf_addstr(&sb, " is '");
		safe_text_append(&sb, value);
		strbuf_addch(&sb, '\'');
	}
	if (why)
		strbuf_addf(&sb, ": %s", why);
	error("%s:%d: malformed candidate row: %s", path, lineno, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* Data line lineno of path into a new row of t; 0, or -1 after an
 * error naming the line. */
static int
read_row(char *line, const struct csv_header *h, struct candidate_table *t,
         const char *path, int lineno)
{
	char *fields[MAX_FIELDS + 1];
	struct strbuf why = STRBUF_INIT;
	struct candidate_row *r;
	const char *quotes;
	int n, bad;

	/* What is wrong with the row's shape, said: a blank line an editor
	 * left at the end, a quoted comma, a column added by hand. */
	if (line[strspn(line, "\r")] == '\0')
		return error("%s:%d: malformed candidate row: an empty line",
		             path, lineno);
	n = split_fields(line, fields, MAX_FIELDS + 1, &bad, &quotes);
	if (n == -2)
		return field_error(h, path, lineno, bad, NULL, quotes);
	if (n < 0)
		return error("%s:%d: malformed candidate row: more than %d "
		             "fields, the header has %d", path, lineno,
		             MAX_FIELDS + 1, h->nfields);
	if (n != h->nfields)
		return error("%s:%d: malformed candidate row: %d field%s, the "
		             "header has %d", path, lineno, n,
		             n == 1 ? "" : "s", h->nfields);
	/* RFC 4180 lets a quoted field hold them; no plan writes one,
	 * and the file is rewritten unquoted (predictions_text). */
	for (int i = 0; i < n; i++)
		if (strpbrk(fields[i], ",\""))
			return field_error(h, path, lineno, i, fields[i],
			                   "a comma or a quote, which no plan "
			                   "writes");
	/* The name is a directory under runs/: never a path.  A refused
	 * row fails the whole read: no row is passed over. */
	if (!candidate_name_ok(fields[1], &why)) {
		error("%s:%d: candidate name '%s' %s", path, lineno, fields[1],
		      why.buf);
		strbuf_release(&why);
		return -1;
	}
	ALLOC_GROW(t->v, (size_t)t->n + 1, t->alloc);
	r = &t->v[t->n];
	bad = parse_row(fields, r);
	if (bad < 0 && h->nknown > LAYOUT_FIELDS)
		bad = parse_switches(fields, h->nknown - LAYOUT_FIELDS, r);
	if (bad < 0)
		bad = parse_extra(fields, h, r);
	if (bad >= 0)
		return field_error(h, path, lineno, bad, fields[bad], NULL);
	t->n++;
	return 0;
}

static int
compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of t's rows sorted, for lookups (free the array only). */
static const char **
sorted_names(const struct candidate_table *t)
{
	const char **v = xcalloc((size_t)t->n + 1, sizeof(*v));

	for (int i = 0; i < t->n; i++)
		v[i] = t->v[i].name;
	qsort(v, (size_t)t->n, sizeof(*v), compare_names);
	return v;
}

/* A name written on two rows: results would count its runs twice. */
static int
check_unique(const struct candidate_table *t, const char *path)
{
	const char **v = sorted_names(t);
	const char *twice = NULL;
	int ret = 0;

	for (int i = 1; i < t->n && twice == NULL; i++)
		if (strcmp(v[i - 1], v[i]) == 0)
			twice = v[i];
	/* Line 1 is the header: row i is line i + 2. */
	for (int i = 0, first = 0; twice && i < t->n && ret == 0; i++)
		if (strcmp(t->v[i].name, twice) != 0)
			continue;
		else if (first == 0)
			first = i + 2;
		else
			ret = error("%s:%d: candidate '%s' is listed twice "
			            "(first on line %d)", path, i + 2, twice,
			            first);
	free(v);
	return ret;
}

/*
 * The state's candidates that candidates.csv lacks, each named up to
 * MISSING_NAMED: a state edited to hold millions of them wrote as many
 * lines into the mail of root's cron line.
 */
#define MISSING_NAMED 10

int
candidates_missing_from(const struct candidate_table *t,
                        const struct state *st)
{
	const char **v = sorted_names(t);
	int missing = 0;

	for (int i = 0; i < st->n; i++) {
		const char *name = st->v[i].name;

		if (bsearch(&name, v, (size_t)t->n, sizeof(*v),
		            compare_names) != NULL)
			continue;
		if (++missing > MISSING_NAMED)
			continue;
		warning("'%s' is in the state (%s) but not in candidates.csv: "
		        "its runs are not counted", name,
		        cand_state_name(st->v[i].state));
	}
	if (missing > MISSING_NAMED)
		warning("%d more in the state but not in candidates.csv, not "
		        "named: their runs are not counted either",
		        missing - MISSING_NAMED);
	free(v);
	return missing;
}

/* A header that is none: a spreadsheet's "CSV UTF-8" starts the file
 * with a byte order mark, which alone made the columns unknown. */
static int
header_error(const char *path, const char *line)
{
	if (!strncmp(line, "\xef\xbb\xbf", 3))
		return error("%s:1: unexpected header: the file starts with a "
		             "UTF-8 byte order mark (saved as \"CSV UTF-8\" by "
		             "a spreadsheet?): save it as plain CSV", path);
	return error("%s:1: unexpected header", path);
}

/*
 * The lines of f, the candidates.csv at path, into t: 0, or -1 after an
 * error naming the line.  *lines says how many were read.  At most
 * STORE_FILE_MAX bytes are, whatever the file grew to since its size
 * was checked.
 */
static int
candidates_read(FILE *f, const char *path, struct candidate_table *t,
                int *lines)
{
	char line[4096];
	struct csv_header h = { 0, 0, -1, -1, -1 };
	int lineno = 0, ret = 0;
	long long bytes = 0;

	while (ret == 0 && fgets(line, sizeof line, f)) {
		size_t len = strlen(line);

		lineno++;
		if ((bytes += (long long)len) > STORE_FILE_MAX) {
			ret = store_file_capped(f, path, bytes);
			break;
		}
		/* plan writes whole lines: one without its end was cut, or,
		 * before the end of the file, holds a NUL byte or is
		 * longer than any plan writes. */
		if (len == 0 || line[len - 1] != '\n') {
			ret = feof(f) ? error("%s:%d: truncated line", path,
			                      lineno)
			      : error("%s:%d: malformed line (a NUL byte, or "
			              "longer than %zu bytes)", path, lineno,
			              sizeof line - 2);
			break;
		}
		/* RFC 4180 ends its lines in CR LF, as a spreadsheet
		 * may save them. */
		line[--len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (lineno > 1 && t->n == STORE_CANDIDATES_MAX)
			ret = error("%s:%d: more than %d candidates, twice the "
			            "most plan keeps", path, lineno,
			            STORE_CANDIDATES_MAX);
		else if (lineno > 1)
			ret = read_row(line, &h, t, path, lineno);
		else if (unquote_line(line) != 0 ||
		         header_fields(line, &h) != 0)
			ret = header_error(path, line);
	}
	*lines = lineno;
	return ret;
}

int
store_read_candidates(const char *dir, struct candidate_table *t)
{
	char *path = xasprintf("%s/candidates.csv", dir);
	FILE *f = fopen_regular(path);
	int lineno = 0, ret;

	memset(t, 0, sizeof(*t));
	if (f == NULL)
		ret = error("cannot read '%s': %s", path, open_error(errno));
	/* Refused from its size, before a line of it is read. */
	else if ((ret = store_file_capped(f, path, 0)) == 0)
		ret = candidates_read(f, path, t, &lineno);
	/* plan always writes the base configuration: a file without a
	 * candidate is damaged, not a campaign of none. */
	if (ret == 0 && lineno == 0)
		ret = error("%s: empty file", path);
	else if (ret == 0 && t->n == 0)
		ret = error("%s: no candidate (plan writes at least the base "
		            "configuration)", path);
	else if (ret == 0)
		ret = check_unique(t, path);
	if (f)
		fclose(f);
	/* The table is the caller's only when it is whole. */
	if (ret != 0)
		candidate_table_release(t);
	free(path);
	return ret;
}

void
candidate_table_release(struct candidate_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* ---- the current predictions (refits) ------------------------------------ */

/* Whether every row's pred_now_step_s is what m predicts now. */
static bool
predictions_current(const struct candidate_table *t,
                    const struct fit_model *m)
{
	for (int i = 0; i < t->n; i++) {
		const struct candidate_row *r = &t->v[i];
		char want[32], got[32];

		if (!r->has_pred_now)
			return false;
		snprintf(want, sizeof want, "%.4f",
		         fit_predict(m, &r->layout, r->pred_step_s));
		snprintf(got, sizeof got, "%.4f", r->pred_now_step_s);
		if (strcmp(want, got))
			return false;
	}
	return true;
}

/* One line with its pred_now_step_s column (at index now; -1: none)
 * left out and value appended as the last. */
static void
line_with_now(struct strbuf *sb, const char *line, int now,
              const char *value)
{
	bool first = true;
	int col = 0;

	for (const char *p = line;; col++) {
		size_t len = strcspn(p, ",\n");

		if (col != now) {
			if (!first)
				strbuf_addch(sb, ',');
			strbuf_add(sb, p, len);
			first = false;
		}
		p += len;
		if (*p != ',')
			break;
		p++;
	}
	strbuf_addf(sb, ",%s\n", value);
}

/* Whether a row's second field is name. */
static bool
row_names(const char *line, const char *name)
{
	const char *f = strchr(line, ',');
	size_t len = strlen(name);

	return f && !strncmp(f + 1, name, len) && f[1 + len] == ',';
}

/* The file with each row's prediction as m corrects it, into sb. */
static int
predictions_text(const char *path, const struct candidate_table *t,
                 const struct fit_model *m, struct strbuf *sb)
{
	FILE *f = fopen_regular(path);
	struct csv_header h = { 0, 0, -1, -1, -1 };
	char line[4096];
	int row = -1, ret = 0;

	if (f == NULL)
		return error("cannot read '%s': %s", path, open_error(errno));
	while (ret == 0 && fgets(line, sizeof line, f)) {
		char value[32];
		bool plain;

		/* Rewritten as plan writes it: unquoted, LF. */
		line[strcspn(line, "\r\n")] = '\0';
		plain = unquote_line(line) == 0;
		if (plain && row < 0 && header_fields(line, &h) != 0)
			ret = error("%s:1: unexpected header", path);
		else if (plain && row < 0)
			line_with_now(sb, line, h.now, now_col);
		else if (!plain || row >= t->n ||
		         !row_names(line, t->v[row].name))
			ret = error("%s: changed while it was read", path);
		else {
			snprintf(value, sizeof value, "%.4f",
			         fit_predict(m, &t->v[row].layout,
			                     t->v[row].pred_step_s));
			line_with_now(sb, line, h.now, value);
		}
		row++;
	}
	if (ret == 0 && row != t->n)
		ret = error("%s: changed while it was read", path);
	fclose(f);
	return ret;
}

int
store_write_predictions(const char *dir, const struct fit_model *m)
{
	char *path = xasprintf("%s/candidates.csv", dir);
	struct strbuf sb = STRBUF_INIT;
	struct candidate_table t;
	struct stat st;
	int ret;

	if (m->runs < 1) {
		free(path);
		return 0;
	}
	memset(&st, 0, sizeof(st));
	/* The table is released whatever happens: empty after an error. */
	ret = store_read_candidates(dir, &t);
	if (ret == 0 && !predictions_current(&t, m)) {
		ret = predictions_text(path, &t, m, &sb);
		/* The plan's mode, whatever the umask of this run. */
		if (ret == 0)
			ret = lstat(path, &st) != 0
			      ? error_errno("cannot stat '%s'", path)
			      : write_file_atomic(path, sb.buf, sb.len,
			                          (int)(st.st_mode & 0777));
		if (ret == 0 && chmod(path, st.st_mode & 0777) != 0)
			warning("cannot keep the mode of '%s': %s", path,
			        strerror(errno));
	}
	candidate_table_release(&t);
	strbuf_release(&sb);
	free(path);
	return ret;
}
