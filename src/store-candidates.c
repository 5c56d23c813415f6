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

#include "error.h"
#include "layout-switch.h"
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
/* The step time's interval, after the switches (older files lack it). */
static const char header_interval[] = ",pred_step_s_low,pred_step_s_high";
enum { LAYOUT_FIELDS = 19, SWITCH_END = LAYOUT_FIELDS + SW_COUNT,
       ALL_FIELDS = SWITCH_END + 2 };

/* The header line, without its newline: the layout, then the first
 * nswitches switches under their campaign key names. */
static void
candidates_header(struct strbuf *sb, int nswitches)
{
	strbuf_addstr(sb, header_layout);
	for (int s = 0; s < nswitches; s++)
		strbuf_addf(sb, ",%s", layout_switch_name((enum layout_switch)s));
}

void
candidate_name_prefix(const struct settings *c, char *buf, size_t len)
{
	double size_b = round(model_params(&c->model) / 1e9 * 100) / 100;
	const char *family = c->model.family[0] ? c->model.family : "model";

	snprintf(buf, len, "%s_%gb_%dnodes", family, size_b, c->nodes);
}

/* One CSV row; names are [A-Za-z0-9._-] so nothing needs quoting. */
static void
candidate_csv_row(struct strbuf *sb, const struct candidate *c,
                  enum precision precision)
{
	const struct layout *l = &c->layout;
	int layers = l->recompute == RECOMPUTE_FULL ? l->recompute_layers : 0;

	strbuf_addf(sb, "%d,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%.2f,%s,"
	            "%.4f,%.1f,%.4f,%d",
	            c->rank, c->name, l->tp, l->pp, l->cp, l->ep,
	            layout_etp(l), l->vp, l->mbs, l->gbs, l->dp,
	            recompute_name(l->recompute), layers,
	            c->est.mem.total / GIB,
	            memory_status_name(c->est.memory_status), c->est.step_s,
	            c->est.tflops_per_gpu, c->est.mfu, c->base ? 1 : 0);
	for (int s = 0; s < SW_COUNT; s++) {
		strbuf_addch(sb, ',');
		layout_switch_format(l, precision, (enum layout_switch)s, sb);
	}
	strbuf_addf(sb, ",%.4f,%.4f\n", c->est.step_s_low, c->est.step_s_high);
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

/* Split a CSV line in place on commas (our files never quote). */
static int
split_fields(char *line, char **fields, int max)
{
	int n = 0;

	fields[n++] = line;
	for (char *p = line; *p; p++)
		if (*p == ',') {
			*p = '\0';
			if (n == max)
				return -1;
			fields[n++] = p + 1;
		}
	return n;
}

/* Parse one data row; -1 when a field is malformed. */
static int
parse_row(char **f, struct candidate_row *r)
{
	int rc, status, base, *ints[] = { &r->layout.tp, &r->layout.pp,
		&r->layout.cp, &r->layout.ep, &r->layout.etp, &r->layout.vp,
		&r->layout.mbs, &r->layout.gbs, &r->layout.dp };

	memset(r, 0, sizeof(*r));
	if (parse_int(f[0], &r->rank) || strlen(f[1]) >= sizeof r->name)
		return -1;
	strcpy(r->name, f[1]);
	for (int i = 0; i < 9; i++)
		if (parse_int(f[2 + i], ints[i]))
			return -1;
	rc = recompute_parse(f[11]);
	status = !strcmp(f[14], "safe") ? MEM_SAFE
	         : !strcmp(f[14], "oom-risk") ? MEM_OOM_RISK : -1;
	if (rc < 0 || status < 0 ||
	    parse_int(f[12], &r->layout.recompute_layers) ||
	    parse_double(f[13], &r->est_memory_gib) ||
	    parse_double(f[15], &r->pred_step_s) ||
	    parse_double(f[16], &r->pred_tflops_per_gpu) ||
	    parse_double(f[17], &r->pred_mfu) || parse_int(f[18], &base))
		return -1;
	r->layout.recompute = (enum recompute)rc;
	r->memory_status = (enum memory_status)status;
	r->base = base != 0;
	return 0;
}

/* The first n switches of a row, the others left at their defaults;
 * -1 when one is malformed. */
static int
parse_switches(char **f, int n, struct candidate_row *r)
{
	for (int s = 0; s < n; s++)
		if (layout_switch_parse(&r->layout, (enum layout_switch)s,
		                        f[LAYOUT_FIELDS + s]) != 0)
			return -1;
	r->switches_known = true;
	return 0;
}

/* The interval's two fields; -1 when one is malformed. */
static int
parse_interval(char **f, struct candidate_row *r)
{
	return parse_double(f[SWITCH_END], &r->pred_step_s_low) ||
	       parse_double(f[SWITCH_END + 1], &r->pred_step_s_high) ? -1 : 0;
}

/*
 * How many fields the header line announces, or -1: the layout, the
 * switches and the interval, or only the first switches for a campaign
 * planned before the others were added (switches are only ever added
 * at the end), or none before the switch columns.
 */
static int
header_fields(const char *line)
{
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
	const char *old = strstr(line, old_memory_col);
	int n = -1;

	if (old) { /* read as the new name */
		strbuf_add(&got, line, (size_t)(old - line));
		strbuf_addstr(&got, ",est_memory_gib,");
		strbuf_addstr(&got, old + strlen(old_memory_col));
		line = got.buf;
	}
	candidates_header(&want, SW_COUNT);
	strbuf_addstr(&want, header_interval);
	if (!strcmp(line, want.buf))
		n = ALL_FIELDS;
	for (int k = SW_COUNT; k >= 0 && n < 0; k--) {
		strbuf_reset(&want);
		candidates_header(&want, k);
		if (!strcmp(line, want.buf))
			n = LAYOUT_FIELDS + k;
	}
	strbuf_release(&want);
	strbuf_release(&got);
	return n;
}

int
store_read_candidates(const char *dir, struct candidate_table *t)
{
	char *path = xasprintf("%s/candidates.csv", dir);
	FILE *f = fopen_regular(path);
	char line[2048], *fields[ALL_FIELDS + 1];
	int lineno = 0, ret = 0, nfields = 0;

	memset(t, 0, sizeof(*t));
	if (f == NULL) {
		ret = error("cannot read '%s': %s", path, open_error(errno));
		goto cleanup;
	}
	while (fgets(line, sizeof line, f)) {
		size_t len = strlen(line);

		lineno++;
		/* plan writes whole lines: one without its end was cut. */
		if (len == 0 || line[len - 1] != '\n') {
			ret = error("%s:%d: truncated line", path, lineno);
			break;
		}
		line[--len] = '\0';
		if (lineno == 1) {
			nfields = header_fields(line);
			if (nfields < 0) {
				ret = error("%s:1: unexpected header", path);
				break;
			}
			continue;
		}
		ALLOC_GROW(t->v, (size_t)t->n + 1, t->alloc);
		if (split_fields(line, fields, ALL_FIELDS + 1) != nfields ||
		    parse_row(fields, &t->v[t->n]) != 0 ||
		    (nfields > LAYOUT_FIELDS &&
		     parse_switches(fields, (nfields > SWITCH_END ? SWITCH_END
		                             : nfields) - LAYOUT_FIELDS,
		                    &t->v[t->n]) != 0) ||
		    (nfields == ALL_FIELDS &&
		     parse_interval(fields, &t->v[t->n]) != 0)) {
			ret = error("%s:%d: malformed candidate row", path,
			            lineno);
			break;
		}
		t->n++;
	}
	/* plan always writes the base configuration: a file without a
	 * candidate is damaged, not a campaign of none. */
	if (ret == 0 && lineno == 0)
		ret = error("%s: empty file", path);
	else if (ret == 0 && t->n == 0)
		ret = error("%s: no candidate (plan writes at least the base "
		            "configuration)", path);
	if (f)
		fclose(f);
cleanup:
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
