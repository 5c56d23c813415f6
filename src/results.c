/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * results.c - join each candidate's Slurm state with its logs, measure,
 * rank, and say which configuration to train with.
 *
 * One struct logparse (the built-in patterns and the campaign's
 * results.patterns, compiled once) reads every log of the campaign.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "estimate.h"
#include "budget.h"
#include "results.h"
#include "util.h"
#include "xalloc.h"

/* ---- text from logs ------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0 when it
 * is not one: no overlong forms, no surrogates, nothing past U+10FFFF
 * (RFC 3629, section 4). */
static size_t
utf8_sequence(const unsigned char *p, size_t n)
{
	size_t len;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1fu;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0fu;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* Copy s as valid UTF-8 without control characters. */
char *
results_clean_text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n > 0) {
		size_t len = utf8_sequence(p, n);

		if (len == 0) {
			strbuf_addstr(&sb, "\xef\xbf\xbd"); /* U+FFFD */
			len = 1;
		} else if (len == 1 && (*p < 0x20 || *p == 0x7f)) {
			strbuf_addch(&sb, ' ');
		} else {
			strbuf_add(&sb, p, len);
		}
		p += len;
		n -= len;
	}
	return strbuf_detach(&sb, NULL);
}

/* ---- finding the logs ---------------------------------------------------- */

/* The job id of a "slurm-ID.out" file name; 0 when it is not one. */
static uint32_t
log_job_id(const char *name)
{
	unsigned long long id = 0;
	const char *p;

	if (strncmp(name, "slurm-", 6) != 0)
		return 0;
	for (p = name + 6; *p >= '0' && *p <= '9'; p++) {
		id = id * 10 + (unsigned)(*p - '0');
		if (id > UINT32_MAX)
			return 0;
	}
	return p > name + 6 && !strcmp(p, ".out") ? (uint32_t)id : 0;
}

/* Ascending job ids for qsort. */
static int
compare_ids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The job ids of rundir's slurm-ID.out files, ascending; none when the
 * directory is missing.  Returns -1 when it is there but unreadable. */
static int
list_logs(const char *rundir, uint32_t **ids, int *n)
{
	DIR *d = opendir(rundir);
	struct dirent *e;
	size_t alloc = 0;

	*ids = NULL;
	*n = 0;
	if (d == NULL) {
		/* Missing: the job left no output.  Unreadable: say so,
		 * or "left no output" would hide it. */
		if (errno == ENOENT)
			return 0;
		return error_errno("cannot read run directory '%s'", rundir);
	}
	while ((e = readdir(d)) != NULL) {
		uint32_t id = log_job_id(e->d_name);

		if (id == 0)
			continue;
		ALLOC_GROW(*ids, (size_t)*n + 1, alloc);
		(*ids)[(*n)++] = id;
	}
	closedir(d);
	if (*n > 1)
		qsort(*ids, (size_t)*n, sizeof(**ids), compare_ids);
	return 0;
}

/* ---- one candidate ------------------------------------------------------- */

/* What one log said, kept after its steps are freed. */
struct log_read {
	struct log_result res;
	struct log_step_stats st;
	char *rel;                /* "runs/NAME/slurm-ID.out" */
};

/* Read runs/NAME/slurm-ID.out into lr; its steps are freed at once.
 * A log that cannot be read (or only in part) is counted in
 * res->unreadable, so the command ends in an error once it has written
 * what the others said. */
static void
log_read_file(struct results *res, struct logparse *lp, const char *name,
              uint32_t id, struct log_read *lr)
{
	char *runs = xasprintf("%s/runs", res->run.dir);
	char *rel = xasprintf("%s/slurm-%" PRIu32 ".out", name, id);

	lr->rel = xasprintf("runs/%s", rel);
	/* runs/ may be a link to a bigger file system (owner_run checked
	 * whose it is); nothing beneath it is followed.  A read error is
	 * reported there; what was read still counts. */
	if (logparse_regular_file(lp, runs, rel, &lr->res) != 0)
		res->unreadable++;
	free(rel);
	free(runs);
	log_result_step_stats(&lr->res, res->run.settings.results.skip_steps,
	                      &lr->st);
	free(lr->res.steps);
	lr->res.steps = NULL;
	lr->res.nsteps = lr->res.alloc_steps = 0;
}

/* Free what log_read_file kept. */
static void
log_read_release(struct log_read *lr)
{
	log_result_release(&lr->res);
	free(lr->rel);
	memset(lr, 0, sizeof(*lr));
}

/* Every metric unknown (NAN). */
static void
metrics_clear(struct result_metrics *m)
{
	m->steps = 0;
	m->step_mean_s = m->step_median_s = m->step_stdev_s = NAN;
	m->samples_per_s = m->tokens_per_s_per_gpu = NAN;
	m->tflops_per_gpu = m->tflops_per_gpu_nemo = m->mfu = NAN;
	m->train_days = m->gpu_hours = m->cost = m->pred_error = NAN;
}

/* Copy what the state records about the newest attempt. */
static void
row_take_state(struct result_row *row, const struct cand_status *s)
{
	row->in_state = true;
	row->state = s->state;
	row->job_id = s->job_id;
	row->exit_code = s->exit_code;
	row->exit_signal = s->exit_signal;
	snprintf(row->reason, sizeof row->reason, "%s", s->reason);
}

/* Add "; "-separated text to the row's note. */
static void
row_note(struct result_row *row, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
row_note(struct result_row *row, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (row->note)
		strbuf_addf(&sb, "%s; ", row->note);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(row->note);
	row->note = strbuf_detach(&sb, NULL);
}

/* The class and its evidence from the newest attempt (nl NULL: none). */
static void
row_classify(struct result_row *row, const struct log_read *nl)
{
	const struct log_evidence *e;

	row->failure = failure_join(cand_state_name(row->state),
	                            nl ? &nl->res : NULL);
	if (nl == NULL)
		return;
	row->log = xstrdup(nl->rel);
	row->log_steps = nl->st.measured;
	row->mem_peak_gib = nl->res.mem_peak_gib;
	e = log_result_evidence(&nl->res, row->failure);
	/* Slurm's FAILED or CANCELLED over an exception the classifier does
	 * not know: that exception is still the best evidence there is. */
	if (e == NULL && (row->failure == FAILURE_EXIT_NONZERO ||
	                  row->failure == FAILURE_CANCELLED) &&
	    (nl->res.failure == FAILURE_UNKNOWN ||
	     nl->res.failure == FAILURE_EXIT_NONZERO))
		e = log_result_evidence(&nl->res, nl->res.failure);
	if (e && e->text) {
		row->line = e->line;
		row->evidence = results_clean_text(e->text);
	}
}

/* Whether lr measured the run: enough steps after the warm-up, every one
 * timed above zero (a time of zero or less would rank first). */
static bool
log_measures(const struct log_read *lr, int min_steps)
{
	return lr->st.measured >= min_steps && lr->st.nonpositive == 0;
}

/* Say that lr's step times are no measurement, when they are not, and
 * which step times and memory readings no run gives were left out. */
static void
row_note_bad_readings(struct result_row *row, const struct log_read *lr)
{
	if (lr->st.nonpositive > 0)
		row_note(row, "%d of %d measured step times are zero or "
		         "negative in %s: not a measurement",
		         lr->st.nonpositive, lr->st.measured, lr->rel);
	if (lr->res.bad_step_times > 0)
		row_note(row, "%ld step time%s under 1 us or over %.0f s "
		         "(11 days) left out of %s, the first on line %ld (a "
		         "damaged log?)",
		         lr->res.bad_step_times,
		         lr->res.bad_step_times == 1 ? "" : "s",
		         LOGPARSE_STEP_S_MAX, lr->rel,
		         lr->res.bad_step_time_line);
	if (lr->res.bad_mem_readings > 0)
		row_note(row, "%ld memory reading%s over %.0f GiB or below "
		         "zero left out of %s, the first on line %ld (a "
		         "damaged log?)", lr->res.bad_mem_readings,
		         lr->res.bad_mem_readings == 1 ? "" : "s",
		         LOGPARSE_MEM_GIB_MAX, lr->rel, lr->res.bad_mem_line);
}

/* What lr's results.patterns captured, one per column. */
static void
row_take_patterns(struct results *res, struct result_row *row,
                  const struct log_read *lr)
{
	if (res->npattern_cols == 0)
		return;
	row->pattern_values = xcalloc((size_t)res->npattern_cols,
	                              sizeof(*row->pattern_values));
	for (int i = 0; i < res->npattern_cols && i < lr->res.npatterns; i++)
		if (lr->res.patterns[i].last_text)
			row->pattern_values[i] = results_clean_text(
				lr->res.patterns[i].last_text);
}

/* Measure the row from lr, which logged enough steps. */
static void
row_measure(struct results *res, struct result_row *row,
            const struct log_read *lr)
{
	row->kind = RESULT_MEASURED;
	row_take_patterns(res, row, lr);
	row->measured_log = xstrdup(lr->rel);
	row_note_bad_readings(row, lr);
	row->mem_peak_gib = lr->res.mem_peak_gib;
	results_measure(&res->run.settings, res->cost_per_gpu_hour, &lr->st,
	                row);
	row->recommendable = results_class_recommendable(row->failure);
}

/* The newest attempt had too few steps: look for an older one that
 * logged enough (a retry after a node failure or a preemption).
 * Returns whether one was found. */
static bool
row_measure_older(struct results *res, struct logparse *lp,
                  struct result_row *row, const uint32_t *ids, int nids,
                  uint32_t newest)
{
	int min_steps = res->run.settings.results.min_steps;

	for (int i = nids - 1; i >= 0; i--) {
		struct log_read lr;
		bool enough;

		if (ids[i] == newest)
			continue;
		memset(&lr, 0, sizeof(lr));
		log_read_file(res, lp, row->cand.name, ids[i], &lr);
		enough = log_measures(&lr, min_steps);
		if (enough) {
			row_measure(res, row, &lr);
			row_note(row, "measured in an earlier attempt, %s",
			         lr.rel);
		}
		log_read_release(&lr);
		if (enough)
			return true;
	}
	return false;
}

/* What Slurm said, for a class that has no line in the log. */
static void
row_note_state(struct result_row *row)
{
	if (row->exit_signal)
		row_note(row, "Slurm recorded the job as %s (signal %d)",
		         cand_state_name(row->state), row->exit_signal);
	else if (row->exit_code)
		row_note(row, "Slurm recorded the job as %s (exit code %d)",
		         cand_state_name(row->state), row->exit_code);
	else
		row_note(row, "Slurm recorded the job as %s",
		         cand_state_name(row->state));
}

/* Why a candidate that ran has no measurement, and its kind. */
static void
row_unmeasured(struct result_row *row, int min_steps, bool had_log)
{
	if (cand_state_active(row->state) || row->state == CS_QUEUED) {
		row->kind = RESULT_IN_PROGRESS;
		return;
	}
	if (!had_log && row->job_id)
		row_note(row, "job %" PRIu32 " left no output", row->job_id);
	else if (!had_log)
		row_note(row, "no job was started");
	else if (row->log_steps < min_steps &&
	         (row->log_steps > 0 || row->failure == FAILURE_NONE ||
	          row->failure == FAILURE_TIMEOUT))
		row_note(row, "%d measured step%s, %d needed "
		         "(results.min_steps)", row->log_steps,
		         row->log_steps == 1 ? "" : "s", min_steps);
	if (row->failure == FAILURE_CUDA_OOM ||
	    row->failure == FAILURE_HOST_OOM) {
		row->kind = RESULT_OOM;
		return;
	}
	row->kind = RESULT_FAILED;
	/* A clean end without enough steps is still no result. */
	if (row->failure == FAILURE_NONE)
		row->failure = FAILURE_UNKNOWN;
	if (row->evidence == NULL && row->state != CS_COMPLETED)
		row_note_state(row);
}

/* The first word of the verdict watch left for job id in rundir, when
 * it is one watch writes; NULL otherwise.  A static string. */
static const char *
watch_verdict(const char *rundir, uint32_t id)
{
	static const char *const words[] = {
		"steady", "max_steps", "exited", "timeout",
	};
	char *path = xasprintf("%s/watch-%" PRIu32 ".txt", rundir, id);
	FILE *f = fopen_regular(path);
	char line[128];
	const char *found = NULL;

	free(path);
	if (f == NULL)
		return NULL;
	if (fgets(line, sizeof line, f)) {
		line[strcspn(line, " \n")] = '\0';
		for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
			if (!strcmp(line, words[i]))
				found = words[i];
	}
	fclose(f);
	return found;
}

/* Why the newest attempt stopped (results.h); nl its log or NULL,
 * verdict watch's or NULL. */
static const char *
row_stop_reason(const struct result_row *row, const struct log_read *nl,
                const char *verdict)
{
	switch (row->state) {
	case CS_COMPLETED:
		if (row->failure == FAILURE_CUDA_OOM ||
		    row->failure == FAILURE_HOST_OOM)
			return "oom";
		if (verdict && !strcmp(verdict, "steady"))
			return "steady";
		if ((nl && nl->res.finished) ||
		    (verdict && !strcmp(verdict, "max_steps")))
			return "max_steps";
		return "exited";
	case CS_OOM: return "oom";
	case CS_TIMEOUT: return "time_limit";
	case CS_FAILED:
		return row->failure == FAILURE_CUDA_OOM ||
		       row->failure == FAILURE_HOST_OOM ? "oom" : "failed";
	case CS_CANCELLED: return "cancelled";
	case CS_PREEMPTED: return "preempted";
	case CS_NODE_FAIL: return "node_fail";
	case CS_PRUNED: return "pruned";
	default: return NULL;
	}
}

/* A candidate that never had a job to read: never selected, pruned,
 * skipped, cancelled before its submission or refused by Slurm.  Says
 * why and returns true; false for one to read the logs of. */
static bool
row_without_job(struct result_row *row, const struct cand_status *s)
{
	if (s->state == CS_PLANNED)
		return true;
	if (s->state == CS_PRUNED) {
		row->stop_reason = row_stop_reason(row, NULL, NULL);
		row_note(row, "pruned: needs at least the memory of %s, which "
		         "ran out", s->by);
		return true;
	}
	if (s->state == CS_SKIPPED) {
		row_note(row, "skipped: %s", !strcmp(s->reason, "budget")
		         ? "the GPU-hour budget was spent"
		         : "it could not beat the best measured by "
		           "search.min_gain");
		return true;
	}
	/* Cancelled while still queued: no job ran, so nothing failed. */
	if (s->state == CS_CANCELLED && s->attempt == 0) {
		row->stop_reason = row_stop_reason(row, NULL, NULL);
		row_note(row, "cancelled before it was submitted");
		return true;
	}
	/* Slurm refused the submission: no job ran, none exited.  It said
	 * "exit_nonzero; no job was started; Slurm recorded the job as
	 * failed". */
	if (s->state == CS_FAILED && s->job_id == 0 &&
	    !strcmp(s->reason, "rejected")) {
		row->kind = RESULT_FAILED;
		row->failure = FAILURE_UNKNOWN;
		row->stop_reason = row_stop_reason(row, NULL, NULL);
		row_note(row, "Slurm rejected its submission: no job (submit "
		         "or resume printed why)");
		return true;
	}
	return false;
}

/* Join one candidate's state and logs. */
static void
row_collect(struct results *res, struct logparse *lp, struct result_row *row)
{
	const struct cand_status *s = state_find(&res->run.st,
	                                         row->cand.name);
	int min_steps = res->run.settings.results.min_steps;
	struct log_read newest;
	uint32_t *ids, want;
	char *rundir;
	bool have = false, listed;
	int nids;

	if (s == NULL) {
		warning("'%s' is in candidates.csv but not in the state: "
		        "counted as not run", row->cand.name);
		return;
	}
	row_take_state(row, s);
	if (row_without_job(row, s))
		return;
	rundir = xasprintf("%s/runs/%s", res->run.dir, row->cand.name);
	listed = list_logs(rundir, &ids, &nids) == 0;
	if (!listed)
		res->unreadable++;
	row->attempts = nids;
	/* Cancelled while its job was pending: it never started (no node,
	 * no output), so the layout did not fail either. */
	if (s->state == CS_CANCELLED && listed && nids == 0 && !s->nodes[0]) {
		row->stop_reason = row_stop_reason(row, NULL, NULL);
		row_note(row, "cancelled before job %" PRIu32 " started",
		         s->job_id);
		free(rundir);
		free(ids);
		return;
	}
	/* The state names the newest job; with none, the newest file. */
	want = s->job_id ? s->job_id : nids ? ids[nids - 1] : 0;
	for (int i = 0; i < nids && !have; i++)
		have = ids[i] == want;
	memset(&newest, 0, sizeof(newest));
	if (have)
		log_read_file(res, lp, row->cand.name, want, &newest);
	row_classify(row, have ? &newest : NULL);
	row->stop_reason = row_stop_reason(row, have ? &newest : NULL,
	                                   want ? watch_verdict(rundir, want)
	                                        : NULL);
	free(rundir);
	if (have && log_measures(&newest, min_steps))
		row_measure(res, row, &newest);
	else if (!row_measure_older(res, lp, row, ids, nids, want)) {
		if (have)
			row_note_bad_readings(row, &newest);
		row_unmeasured(row, min_steps, have);
	}
	if (row->kind == RESULT_MEASURED &&
	    (cand_state_active(row->state) || row->state == CS_QUEUED))
		row_note(row, "still %s", cand_state_name(row->state));
	log_read_release(&newest);
	free(ids);
}

/* ---- measuring ----------------------------------------------------------- */

/* What a measured row's step times mean for the whole training. */
void
results_measure(const struct settings *c, double cost_per_gpu_hour,
                const struct log_step_stats *st, struct result_row *row)
{
	struct result_metrics *m = &row->m;
	double gpus = (double)c->nodes * c->gpus_per_node;
	double gbs = row->cand.layout.gbs, seq = c->seq_length;
	double mean = st->mean_s, peak = c->gpu.peak_tflops[c->precision];
	double pred = row->cand.pred_step_s;

	metrics_clear(m);
	m->steps = st->measured;
	m->step_mean_s = mean;
	m->step_median_s = st->median_s;
	m->step_stdev_s = st->stdev_s;
	if (!(mean > 0))
		return;
	m->samples_per_s = gbs / mean;
	m->tokens_per_s_per_gpu = gbs * seq / mean / gpus;
	m->tflops_per_gpu = estimate_flops_per_step(&c->model, c->seq_length,
	                                            row->cand.layout.gbs) /
	                    mean / gpus / 1e12;
	m->tflops_per_gpu_nemo =
		estimate_flops_per_step_nemo(&c->model, c->seq_length,
		                             row->cand.layout.gbs) /
		mean / gpus / 1e12;
	if (peak > 0)
		m->mfu = m->tflops_per_gpu / peak;
	/* Steps for the whole training: its tokens over the tokens of one
	 * step (gbs sequences of seq tokens). */
	m->train_days = c->num_tokens_in_b * 1e9 / (gbs * seq) * mean /
	                86400.0;
	m->gpu_hours = m->train_days * 24.0 * gpus;
	if (cost_per_gpu_hour > 0)
		m->cost = m->gpu_hours * cost_per_gpu_hour;
	if (pred > 0)
		m->pred_error = (pred - mean) / mean;
}

/* Classes that end a run without condemning its layout. */
bool
results_class_recommendable(enum failure_class c)
{
	switch (c) {
	case FAILURE_NONE:
	case FAILURE_TIMEOUT:           /* the time limit, after its steps */
	case FAILURE_HUNG_AFTER_FINISH: /* at exit, after every step */
	case FAILURE_NODE_FAIL:         /* the cluster's doing */
	case FAILURE_PREEMPTED:
	case FAILURE_CANCELLED:
		return true;
	default:
		return false;
	}
}

/* The ranking key: mean step time over the global batch. */
double
results_time_per_sample(const struct result_row *r)
{
	return r->m.step_mean_s / r->cand.layout.gbs;
}

/* Measured peak memory, else the planner's estimate. */
double
results_memory_gib(const struct result_row *r)
{
	return isfinite(r->mem_peak_gib) && r->mem_peak_gib > 0
	       ? r->mem_peak_gib : r->cand.est_memory_gib;
}

/* ---- ranking ------------------------------------------------------------- */

/* Fastest first; ties by the planner's rank, then by name (qsort on
 * pointers to rows). */
static int
compare_rows(const void *pa, const void *pb)
{
	const struct result_row *a = *(const struct result_row *const *)pa;
	const struct result_row *b = *(const struct result_row *const *)pb;
	double x = results_time_per_sample(a), y = results_time_per_sample(b);

	if (x != y)
		return x < y ? -1 : 1;
	if (a->cand.rank != b->cand.rank)
		return a->cand.rank < b->cand.rank ? -1 : 1;
	return strcmp(a->cand.name, b->cand.name);
}

/* Sort the measured indices through an array of row pointers. */
static void
sort_ranked(struct results *res)
{
	/* An array of pointers: sizeof(*rows) is a pointer's size. */
	const struct result_row **rows = xcalloc((size_t)res->nranked + 1,
		sizeof(*rows)); /* NOLINT(bugprone-sizeof-expression) */

	for (int i = 0; i < res->nranked; i++)
		rows[i] = &res->v[res->ranked[i]];
	/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
	qsort(rows, (size_t)res->nranked, sizeof(*rows), compare_rows);
	for (int i = 0; i < res->nranked; i++)
		res->ranked[i] = (int)(rows[i] - res->v);
	free(rows);
}

/* Cost for the cheapest pick; GPU-hours when no rate is known. */
static double
row_cost(const struct result_row *r)
{
	return isfinite(r->m.cost) ? r->m.cost : r->m.gpu_hours;
}

/* Best, cheapest and roomy among the recommendable, in ranked order. */
static void
pick_recommendations(struct results *res)
{
	double limit = (1.0 - RESULTS_HEADROOM) * res->capacity_gib;

	for (int i = 0; i < res->nranked; i++) {
		int k = res->ranked[i];
		const struct result_row *r = &res->v[k];

		if (!r->recommendable)
			continue;
		if (res->best < 0)
			res->best = k;
		if (res->cheapest < 0 ||
		    row_cost(r) < row_cost(&res->v[res->cheapest]))
			res->cheapest = k;
		if (res->roomy < 0 && results_memory_gib(r) <= limit)
			res->roomy = k;
	}
}

/* Best against base, when both were measured. */
static void
compare_with_base(struct results *res)
{
	const struct result_row *b, *x;

	res->speedup = res->saved_days = NAN;
	res->saved_gpu_hours = res->saved_cost = NAN;
	if (res->best < 0 || res->base < 0 ||
	    res->v[res->base].kind != RESULT_MEASURED)
		return;
	b = &res->v[res->base];
	x = &res->v[res->best];
	res->speedup = results_time_per_sample(b) /
	               results_time_per_sample(x);
	res->saved_days = b->m.train_days - x->m.train_days;
	res->saved_gpu_hours = b->m.gpu_hours - x->m.gpu_hours;
	res->saved_cost = b->m.cost - x->m.cost;
}

/* Rank the measured rows and pick the recommendations. */
void
results_rank(struct results *res)
{
	int place = 0;

	free(res->ranked);
	res->ranked = xcalloc((size_t)res->n + 1, sizeof(*res->ranked));
	res->nranked = 0;
	memset(res->count, 0, sizeof(res->count));
	res->best = res->base = res->cheapest = res->roomy = -1;
	for (int i = 0; i < res->n; i++) {
		res->count[res->v[i].kind]++;
		if (res->v[i].cand.base && res->base < 0)
			res->base = i;
		if (res->v[i].kind == RESULT_MEASURED)
			res->ranked[res->nranked++] = i;
	}
	sort_ranked(res);
	for (int i = 0; i < res->n; i++)
		res->v[i].place = 0;
	for (int i = 0; i < res->nranked; i++)
		res->v[res->ranked[i]].place = ++place;
	pick_recommendations(res);
	compare_with_base(res);
}

/* ---- loading ------------------------------------------------------------- */

/* Compile the campaign's results.patterns into lp; EXIT_CONFIG when one
 * does not compile (the loader checked them: a hand-edited file). */
static int
add_patterns(const struct results *res, struct logparse *lp)
{
	const struct settings *c = &res->run.settings;

	for (int i = 0; i < c->results.npatterns; i++) {
		const struct log_pattern *p = &c->results.patterns[i];
		char err[256];

		if (logparse_add_pattern(lp, p->name, p->regex, err,
		                         sizeof err) != 0) {
			error("%s/campaign.conf: results.patterns '%s': %s",
			      res->run.dir, p->name, err);
			return EXIT_CONFIG;
		}
	}
	return 0;
}

/* Whether name is a column of results.csv already, or the key "status"
 * that the JSON's best and base objects add. */
static bool
fixed_column(const char *name)
{
	int n;
	const enum results_col *cols = results_columns(RESULTS_CSV, &n);

	if (!strcmp(name, "status"))
		return true;
	for (int i = 0; i < n; i++)
		if (!strcmp(results_col_name(cols[i]), name))
			return true;
	return false;
}

/* The columns the counting patterns of lp add to results.csv: named
 * after the pattern, "pattern_NAME" where a column has the name. */
static void
pattern_columns(struct results *res, const struct logparse *lp)
{
	res->npattern_cols = logparse_pattern_count(lp);
	res->pattern_cols = xcalloc((size_t)res->npattern_cols + 1,
	                            sizeof(*res->pattern_cols));
	for (int i = 0; i < res->npattern_cols; i++) {
		const char *name = logparse_pattern_name(lp, i);

		res->pattern_cols[i] = fixed_column(name)
		                       ? xasprintf("pattern_%s", name)
		                       : xstrdup(name);
	}
}

/* Settings that come from the options or the campaign. */
static void
results_settings(struct results *res, const struct results_opts *o)
{
	const struct settings *c = &res->run.settings;

	res->cost_per_gpu_hour = o->cost_per_gpu_hour >= 0
	                         ? o->cost_per_gpu_hour
	                         : c->cost_per_gpu_hour;
	res->currency = xstrdup(o->currency ? o->currency : "$");
	/* c->gpu carries memory.gpu_memory_gb already (config-gpu.c). */
	res->capacity_gib = c->gpu.memory_gib;
	res->peak_tflops = c->gpu.peak_tflops[c->precision];
}

/* Whether any candidate was selected to run. */
static bool
any_selected(const struct state *st)
{
	for (int i = 0; i < st->n; i++)
		if (st->v[i].state != CS_PLANNED)
			return true;
	return false;
}

/* Whether `cancel` ended any candidate: the campaign did not run out. */
static bool
any_cancelled(const struct state *st)
{
	for (int i = 0; i < st->n; i++)
		if (st->v[i].state == CS_CANCELLED)
			return true;
	return false;
}

/* What the campaign spent, against running every candidate. */
static void
search_cost(struct results *res, const struct candidate_table *t)
{
	const struct settings *c = &res->run.settings;
	struct budget b;

	budget_compute(&res->run, (long)time(NULL), &b);
	res->campaign_gpu_hours = b.used;
	res->exhaustive_gpu_hours_estimate = 0;
	for (int i = 0; i < t->n; i++)
		res->exhaustive_gpu_hours_estimate +=
			budget_job_expected(c, t->v[i].pred_step_s);
	for (int i = 0; i < res->run.st.n; i++) {
		const struct cand_status *s = &res->run.st.v[i];

		res->pruned += s->state == CS_PRUNED;
		res->proved_fits += s->fits_by[0] != 0;
		if (s->state == CS_SKIPPED)
			*(strcmp(s->reason, STORE_STOP_BUDGET)
			  ? &res->skipped_no_gain : &res->skipped_budget) += 1;
	}
	if (res->run.st.stop_reason[0])
		memcpy(res->stop_reason, res->run.st.stop_reason,
		       sizeof res->stop_reason);
	else if (store_all_final(&res->run.st) && any_selected(&res->run.st))
		strcpy(res->stop_reason, any_cancelled(&res->run.st)
		                         ? "cancelled" : "all_run");
}

/* Load a campaign directory and join, measure and rank. */
int
results_load(struct results *res, const char *dir,
             const struct results_opts *o)
{
	struct candidate_table t;
	struct logparse lp;
	int status;

	memset(res, 0, sizeof(*res));
	res->best = res->base = res->cheapest = res->roomy = -1;
	res->speedup = res->saved_days = NAN;
	res->saved_gpu_hours = res->saved_cost = NAN;
	status = store_open(&res->run, dir, STORE_READ_ONLY);
	if (status != 0)
		return status;
	results_settings(res, o);
	if (store_read_candidates(res->run.dir, &t) != 0)
		return EXIT_DATAERR;
	logparse_init(&lp);
	status = add_patterns(res, &lp);
	if (status == 0)
		pattern_columns(res, &lp);
	res->v = xcalloc((size_t)t.n + 1, sizeof(*res->v));
	for (int i = 0; status == 0 && i < t.n; i++) {
		struct result_row *row = &res->v[res->n++];

		row->cand = t.v[i];
		row->mem_peak_gib = NAN;
		metrics_clear(&row->m);
		row_collect(res, &lp, row);
	}
	logparse_release(&lp);
	search_cost(res, &t);
	candidate_table_release(&t);
	if (status == 0)
		results_rank(res);
	return status;
}

/* Free everything results_load made. */
void
results_release(struct results *res)
{
	for (int i = 0; i < res->n; i++) {
		free(res->v[i].evidence);
		free(res->v[i].log);
		free(res->v[i].measured_log);
		free(res->v[i].note);
		for (int k = 0; res->v[i].pattern_values &&
		                k < res->npattern_cols; k++)
			free(res->v[i].pattern_values[k]);
		free(res->v[i].pattern_values);
	}
	for (int k = 0; k < res->npattern_cols; k++)
		free(res->pattern_cols[k]);
	free(res->pattern_cols);
	free(res->v);
	free(res->ranked);
	free(res->currency);
	if (res->run.dir)
		store_close(&res->run, false);
	memset(res, 0, sizeof(*res));
}
