/*
 * campaign.c - writing and reading the campaign directory.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "campaign.h"
#include "error.h"
#include "jobscript.h"
#include "layout-switch.h"
#include "state.h"
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

/* The header line, without its newline: the layout, then the switches
 * under their campaign key names. */
static void
candidates_header(struct strbuf *sb)
{
	strbuf_addstr(sb, header_layout);
	for (int s = 0; s < SW_COUNT; s++)
		strbuf_addf(sb, ",%s", layout_switch_name((enum layout_switch)s));
}

void
campaign_name_prefix(const struct campaign *c, char *buf, size_t len)
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
	strbuf_addch(sb, '\n');
}

static int
write_text(const char *dir, const char *name, const struct strbuf *sb)
{
	char *path = xasprintf("%s/%s", dir, name);
	int ret = write_file_atomic(path, sb->buf, sb->len, 0644);

	free(path);
	return ret;
}

/* A campaign id for job tags: random, so that two plans of the same
 * campaign never share tags in Slurm's accounting. */
static void
new_campaign_id(char *buf, size_t len)
{
	unsigned char r[4] = { 0 };

	if (getentropy(r, sizeof r) != 0) {
		unsigned long x = (unsigned long)time(NULL) ^
		                  ((unsigned long)getpid() << 16);

		memcpy(r, &x, sizeof r);
	}
	snprintf(buf, len, "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
}

/* Every candidate planned, and the journal's first line. */
static int
write_initial_state(const char *dir, const struct grid_result *res)
{
	struct state st;
	struct journal j;
	int ret;

	memset(&st, 0, sizeof(st));
	new_campaign_id(st.campaign_id, sizeof st.campaign_id);
	st.v = xcalloc((size_t)res->n + 1, sizeof(*st.v));
	st.n = st.alloc = res->n;
	for (int i = 0; i < res->n; i++) {
		struct cand_status *c = &st.v[i];

		snprintf(c->name, sizeof c->name, "%s", res->v[i].name);
		c->state = CS_PLANNED;
		c->rank = res->v[i].rank;
		c->base = res->v[i].base;
		c->unsafe = res->v[i].est.memory_status != MEM_SAFE;
	}
	ret = journal_open(&j, dir);
	if (ret == 0) {
		/* Synced: the state written next includes this line. */
		ret = journal_append(&j, true, "planned", NULL,
		                     "campaign=%s candidates=%d",
		                     st.campaign_id, res->n);
		st.journal_seq = j.seq;
		journal_close(&j);
	}
	if (ret == 0)
		ret = state_save(dir, &st);
	state_release(&st);
	return ret;
}

/*
 * Render a candidate's job script into tmp/runs/NAME/job.sbatch, with
 * the paths it will have once tmp is renamed to final_dir, so a user can
 * read every script before anything is submitted.
 */
static int
write_job_script(const char *tmp, const char *final_dir,
                 const struct campaign *c, const struct candidate *cand)
{
	struct strbuf sb = STRBUF_INIT;
	char *run = xasprintf("%s/runs/%s", tmp, cand->name);
	char *final_run = xasprintf("%s/runs/%s", final_dir, cand->name);
	char *path = xasprintf("%s/job.sbatch", run);
	int ret = -1;

	if (mkdir_p(run, 0755) == 0 &&
	    jobscript_render(c, &cand->layout, cand->name, final_dir,
	                     final_run, NULL, &sb) == 0)
		ret = write_file_atomic(path, sb.buf, sb.len, 0755);
	strbuf_release(&sb);
	free(path);
	free(final_run);
	free(run);
	return ret;
}

/* Fill a fresh directory with every file of the plan. */
static int
fill_dir(const char *tmp, const char *final_dir, const struct campaign *c,
         const struct grid_result *res, const char *summary)
{
	struct strbuf sb = STRBUF_INIT;
	char *runs = xasprintf("%s/runs", tmp);
	int ret = -1;

	campaign_write(c, &sb, false);
	if (write_text(tmp, "campaign.conf", &sb) != 0)
		goto cleanup;
	strbuf_reset(&sb);
	candidates_header(&sb);
	strbuf_addch(&sb, '\n');
	for (int i = 0; i < res->n; i++)
		candidate_csv_row(&sb, &res->v[i], c->precision);
	if (write_text(tmp, "candidates.csv", &sb) != 0)
		goto cleanup;
	strbuf_reset(&sb);
	strbuf_addstr(&sb, summary);
	if (write_text(tmp, "plan.txt", &sb) != 0 || mkdir_p(runs, 0755))
		goto cleanup;
	for (int i = 0; i < res->n; i++)
		if (write_job_script(tmp, final_dir, c, &res->v[i]) != 0)
			goto cleanup;
	ret = write_initial_state(tmp, res);
cleanup:
	free(runs);
	strbuf_release(&sb);
	return ret;
}

/* dir made absolute through its parent (dir itself need not exist). */
static char *
absolute_path(const char *dir)
{
	char *copy = xstrdup(dir), *slash, real[PATH_MAX], *res;
	const char *base;

	while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
		copy[strlen(copy) - 1] = '\0';
	slash = strrchr(copy, '/');
	if (slash == NULL) {
		base = copy;
		res = realpath(".", real) ? xasprintf("%s/%s", real, base)
		                          : xstrdup(copy);
	} else {
		*slash = '\0';
		base = slash + 1;
		res = realpath(copy[0] ? copy : "/", real)
		      ? xasprintf("%s/%s", strcmp(real, "/") ? real : "", base)
		      : xstrdup(dir);
	}
	free(copy);
	return res;
}

int
campaign_dir_create(const char *dir, const struct campaign *c,
                    const struct grid_result *res, const char *summary,
                    bool force)
{
	char *tmp = xasprintf("%s.plan-XXXXXX", dir);
	char *old = NULL, *final_dir = NULL;
	int ret = -1;

	if (path_exists(dir) && !force) {
		error("'%s' already exists (use --force to replace it)", dir);
		goto cleanup;
	}
	if (mkdtemp(tmp) == NULL) {
		error_errno("cannot create a directory beside '%s'", dir);
		goto cleanup;
	}
	/* mkdtemp makes 0700; the campaign follows the user's umask, but
	 * is never writable by others, who could replace its state and
	 * journal whatever their own modes (a umask of 000). */
	{
		mode_t mask = umask(0);

		umask(mask);
		chmod(tmp, 0777 & ~(mask | S_IWOTH));
	}
	final_dir = absolute_path(dir);
	if (fill_dir(tmp, final_dir, c, res, summary) != 0)
		goto fail;
	if (path_exists(dir)) {
		/* Move the old one aside first so a failure keeps it. */
		old = xasprintf("%s.old-%ld", dir, (long)getpid());
		if (rename(dir, old) != 0) { /* NOLINT(readability-suspicious-call-argument): dir moves to old */
			error_errno("cannot move '%s' aside", dir);
			goto fail;
		}
	}
	if (rename(tmp, dir) != 0) {
		error_errno("cannot rename '%s' to '%s'", tmp, dir);
		if (old)
			rename(old, dir);
		goto fail;
	}
	if (old)
		remove_tree(old);
	ret = 0;
	goto cleanup;
fail:
	remove_tree(tmp);
cleanup:
	free(final_dir);
	free(old);
	free(tmp);
	return ret;
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

/* The switches of a row that has them; -1 when one is malformed. */
static int
parse_switches(char **f, struct candidate_row *r)
{
	for (int s = 0; s < SW_COUNT; s++)
		if (layout_switch_parse(&r->layout, (enum layout_switch)s,
		                        f[LAYOUT_FIELDS + s]) != 0)
			return -1;
	r->switches_known = true;
	return 0;
}

/* How many fields the header line announces: ALL_FIELDS, LAYOUT_FIELDS
 * for a campaign planned before the switch columns, or -1. */
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
	candidates_header(&want);
	if (!strcmp(line, want.buf))
		n = ALL_FIELDS;
	else if (!strcmp(line, header_layout))
		n = LAYOUT_FIELDS;
	strbuf_release(&want);
	strbuf_release(&got);
	return n;
}

int
campaign_read_candidates(const char *dir, struct candidate_table *t)
{
	char *path = xasprintf("%s/candidates.csv", dir);
	FILE *f = fopen(path, "r");
	char line[2048], *fields[ALL_FIELDS + 1];
	int lineno = 0, ret = 0, nfields = 0;

	memset(t, 0, sizeof(*t));
	if (f == NULL) {
		ret = error_errno("cannot read '%s'", path);
		goto cleanup;
	}
	while (fgets(line, sizeof line, f)) {
		size_t len = strlen(line);

		lineno++;
		if (len && line[len - 1] == '\n')
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
		    (nfields == ALL_FIELDS &&
		     parse_switches(fields, &t->v[t->n]) != 0)) {
			ret = error("%s:%d: malformed candidate row", path,
			            lineno);
			break;
		}
		t->n++;
	}
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
