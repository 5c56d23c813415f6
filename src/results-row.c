/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * results-row.c - one candidate's row: its Slurm state joined with its
 * logs (runs/NAME/slurm-ID.out), classified, measured from the newest
 * log that measures, and the note that says why when nothing does.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "results.h"
#include "util.h"
#include "xalloc.h"

/* ---- finding the logs ---------------------------------------------------- */

/*
 * The job id of a "slurm-ID.out" file name; 0 when it is not one.  ID
 * is as Slurm writes %j: no leading zero.  The log is read again by the
 * name the id spells, so "slurm-0501.out" taken for job 501 was read as
 * slurm-501.out, which is not there (every results failed), and
 * slurm-01.out beside slurm-1.out read that one twice.
 */
static uint32_t
log_job_id(const char *name)
{
	unsigned long long id = 0;
	const char *p;

	if (strncmp(name, "slurm-", 6) != 0 || name[6] == '0')
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
	bool unreadable;          /* not read, or not in full */
	bool writing;             /* the newest, of a job still active */
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
	if (logparse_regular_file(lp, runs, rel, &lr->res) != 0) {
		res->unreadable++;
		lr->unreadable = true;
	}
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

/* Copy what the state records about the newest attempt. */
static void
row_take_state(struct result_row *row, const struct cand_status *s)
{
	row->in_state = true;
	row->status = s;
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

/* The evidence of what only the generic rules name (an exception, a
 * non-zero exit) when the log names no cause: the log's class first,
 * then an exit, then an exception, which a finished run's teardown may
 * have left out of the class.  NULL when there is none. */
static const struct log_evidence *
generic_evidence(const struct log_result *r)
{
	const struct log_evidence *e;

	if (r->failure != FAILURE_NONE && r->failure != FAILURE_UNKNOWN &&
	    r->failure != FAILURE_EXIT_NONZERO)
		return NULL;
	e = log_result_evidence(r, r->failure);
	if (e == NULL)
		e = log_result_evidence(r, FAILURE_EXIT_NONZERO);
	if (e == NULL)
		e = log_result_evidence(r, FAILURE_UNKNOWN);
	return e;
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
	/* As parse counts them: a step timed at zero or less measured
	 * nothing. */
	row->log_steps = nl->st.counted;
	row->mem_peak_gib = nl->res.mem_peak_gib;
	e = log_result_evidence(&nl->res, row->failure);
	/* Slurm's FAILED or CANCELLED over an exception the classifier does
	 * not know: that exception is still the best evidence there is. */
	if (e == NULL && (row->failure == FAILURE_EXIT_NONZERO ||
	                  row->failure == FAILURE_CANCELLED))
		e = generic_evidence(&nl->res);
	if (e && e->text) {
		row->line = e->line;
		row->evidence = results_clean_text(e->text);
	}
}

/* Whether lr measured the run: enough steps after the warm-up timed
 * above zero.  A time of zero or less is the clock's fault: the figures
 * leave it out (log_result_step_stats), as parse and watch do, so a run
 * that watch ended early on the others is not thrown away for it. */
static bool
log_measures(const struct log_read *lr, int min_steps)
{
	return lr->st.measured - lr->st.nonpositive >= min_steps;
}

/*
 * What parse notes of lr (log_result_note), in its words, after the
 * log's name: figures from a log with NUL bytes, cut lines, a cut last
 * line, steps past the cap, step times from time stamps or left
 * untimed, records of two formats, step times of zero or less or of a
 * batch-size ramp-up read as from a clean log.  Results had their own
 * copies of some and left the others out.  NUL bytes in a log without
 * a step are row_note_not_a_log's; the last line of a log still being
 * written has no line break yet.
 */
static void
row_note_log(struct result_row *row, const struct log_read *lr)
{
	for (int n = 0; n < LOG_NOTE_COUNT; n++) {
		struct strbuf sb = STRBUF_INIT;

		if ((n == LOG_NOTE_NUL && lr->res.last_step < 0) ||
		    (n == LOG_NOTE_TRUNCATED && lr->writing))
			continue;
		if (log_result_note(&lr->res, &lr->st, (enum log_note)n, &sb))
			row_note(row, "%s: %s", lr->rel, sb.buf);
		strbuf_release(&sb);
	}
}

/*
 * A log that holds no step because it could not be read, holds nothing
 * (the job's output went elsewhere, or it failed before its first line)
 * or no text (a damaged file system, a file put there by mistake: parse
 * refuses it, and it is named on stderr too).  "0 measured steps, 5
 * needed" alone read as a training that stopped too early.
 */
static void
row_note_not_a_log(const struct results *res, struct result_row *row,
                   const struct log_read *lr)
{
	if (lr->res.last_step >= 0)
		return;
	/* Named on stderr as it was met; nothing read is not empty. */
	if (lr->unreadable) {
		row_note(row, "%s could not be read%s", lr->rel,
		         lr->res.bytes_read ? " in full" : "");
	} else if (lr->res.bytes_read == 0) {
		row_note(row, "%s is empty", lr->rel);
	} else if (lr->res.nul_bytes > 0) {
		row_note(row, "%s is not a training log: NUL byte at offset "
		         "%lld and no step", lr->rel,
		         lr->res.first_nul_offset);
		warning("'%s': its log %s/%s is not a training log: NUL byte "
		        "at offset %lld and no step", row->cand.name,
		        res->run.dir, lr->rel, lr->res.first_nul_offset);
	}
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

/*
 * The global batch size the log reports, against the plan's.  A run at
 * another one (a template's or a NeMo recipe's own) is measured at the
 * batch it ran, so that its figures are true, but it is not the
 * configuration planned: recommending it would recommend what nobody
 * measured.  Said in its note and on stderr, with the line.
 */
static void
row_check_gbs(const struct results *res, struct result_row *row,
              const struct log_read *lr)
{
	if (!results_row_other_gbs(row))
		return;
	row->recommendable = false;
	row_note(row, "ran gbs %ld, planned %d (%s:%ld): measured at gbs "
	         "%ld, not recommended", row->ran_gbs, row->cand.layout.gbs,
	         lr->rel, lr->st.gbs_line, row->ran_gbs);
	warning("'%s' ran global batch size %ld, planned %d (%s/%s:%ld): "
	        "measured at %ld, not recommended; does its template or "
	        "recipe set the batch size?", row->cand.name, row->ran_gbs,
	        row->cand.layout.gbs, res->run.dir, lr->rel,
	        lr->st.gbs_line, row->ran_gbs);
}

/* Measure the row from lr, which logged enough steps. */
static void
row_measure(struct results *res, struct result_row *row,
            const struct log_read *lr)
{
	row->kind = RESULT_MEASURED;
	row_take_patterns(res, row, lr);
	row->measured_log = xstrdup(lr->rel);
	row_note_log(row, lr);
	row->mem_peak_gib = lr->res.mem_peak_gib;
	row->ran_gbs = lr->st.gbs;
	results_measure(&res->run.settings, res->cost_per_gpu_hour, &lr->st,
	                row);
	row->recommendable = results_class_recommendable(row->failure);
	row_check_gbs(res, row, lr);
	/* Not recommended, yet nothing is wrong with the layout: say so,
	 * and what to do. */
	if (results_class_times_suspect(row->failure))
		row_note(row, "slow GPUs (stragglers) slowed its steps: its "
		         "step times are suspect; run it again to measure it");
	/* 106.5 % was shown and the row recommended: its time per sample
	 * is no more to be trusted than its MFU. */
	if (results_mfu_impossible(row)) {
		row->recommendable = false;
		row_note(row, "MFU %.1f %% is above 100 %%: the campaign's gpu "
		         "or precision, the global batch size or the log is "
		         "wrong; not recommended", row->m.mfu * 100.0);
	}
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

/* Whether the newest log cannot tell where the job stopped: none, not
 * read in full, empty, or no training log.  "exited" would say it
 * stopped before its last step, which nothing shows. */
static bool
log_says_nothing(const struct log_read *nl)
{
	if (nl == NULL || nl->unreadable)
		return true;
	return nl->res.last_step < 0 &&
	       (nl->res.bytes_read == 0 || nl->res.nul_bytes > 0);
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
		return log_says_nothing(nl) ? "unknown" : "exited";
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

/*
 * "Slurm rejected its submission: no job (Slurm: WORDS)", the words the
 * state kept after "rejected:" (runner-submit.c, rejected_reason), its
 * underscores spaces again; campaigns before they were kept say only
 * that submit or resume printed why.
 */
static void
rejected_note(struct result_row *row, const char *reason)
{
	char *why = xstrdup(reason[8] == ':' ? reason + 9 : "");

	for (char *p = why; *p; p++)
		if (*p == '_')
			*p = ' ';
	if (*why)
		row_note(row, "Slurm rejected its submission: no job (Slurm: "
		         "%s)", why);
	else
		row_note(row, "Slurm rejected its submission: no job (submit "
		         "or resume printed why)");
	free(why);
}

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
	    !strncmp(s->reason, "rejected", 8)) {
		row->kind = RESULT_FAILED;
		row->failure = FAILURE_UNKNOWN;
		row->stop_reason = row_stop_reason(row, NULL, NULL);
		rejected_note(row, s->reason);
		return true;
	}
	return false;
}

/* Join one candidate's state and logs. */
void
results_row_collect(struct results *res, struct logparse *lp,
                    struct result_row *row, const struct cand_status *s)
{
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
	newest.writing = cand_state_active(s->state);
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
		if (have) {
			row_note_not_a_log(res, row, &newest);
			row_note_log(row, &newest);
		}
		row_unmeasured(row, min_steps, have);
	}
	if (row->kind == RESULT_MEASURED &&
	    (cand_state_active(row->state) || row->state == CS_QUEUED))
		row_note(row, "still %s", cand_state_name(row->state));
	log_read_release(&newest);
	free(ids);
}
