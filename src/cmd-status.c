/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-status.c - 'paratune status': where each candidate stands, as
 * recorded, and how far each running job's training has got, as its
 * log says; with --watch, a progress line that refreshes.  Read-only:
 * it takes no lock and never writes.
 */
#include "autoconfig.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "budget.h"
#include "calibration-note.h"
#include "cmd.h"
#include "error.h"
#include "json.h"
#include "owner.h"
#include "report.h"
#include "report-number.h"
#include "results.h"
#include "run-progress.h"
#include "safe-text.h"
#include "search.h"
#include "store.h"
#include "table.h"

extern const struct cmd_entry cmd_status_entry;

/* The plan's rank of the candidate called name, by st's index by_name
 * (state_by_name); 0 when none is. */
static int
rank_of(const struct state *st, struct cand_status *const *by_name,
        const char *name)
{
	const struct cand_status *c = state_by_name_find(by_name, st->n,
	                                                 name);

	return c ? c->rank : 0;
}

/*
 * How long the job has run (running: until now) or ran, as squeue's
 * TIME column writes it (M:SS, H:MM:SS, D-HH:MM:SS); "-" before it
 * started.  The table said a job was running, never for how long.
 */
static void
add_run_time(struct table *t, const struct cand_status *c, long now)
{
	long end = c->state == CS_RUNNING ? now : c->end_time;
	long secs = end - c->start_time;

	if (c->start_time <= 0 || end <= 0 || secs < 0)
		table_add(t, "-");
	else if (secs < 3600)
		table_add(t, "%ld:%02ld", secs / 60, secs % 60);
	else if (secs < 86400)
		table_add(t, "%ld:%02ld:%02ld", secs / 3600, secs / 60 % 60,
		          secs % 60);
	else
		table_add(t, "%ld-%02ld:%02ld:%02ld", secs / 86400,
		          secs / 3600 % 24, secs / 60 % 60, secs % 60);
}

/* Only a job that ended has an exit code: not one still pending or
 * running, nor a candidate cancelled, pruned or skipped before its
 * first submission, nor one whose submission Slurm rejected (no job).
 * The table shows "-" and JSON null for the rest. */
static bool
has_exit_code(const struct cand_status *c)
{
	return cand_state_final(c->state) && c->attempt > 0 && c->job_id;
}

/* The progress cell: "120/500 1.234s", or "-" (run_progress_text). */
static void
add_progress(struct table *t, const struct run_progress *p)
{
	struct strbuf sb = STRBUF_INIT;

	run_progress_text(p, &sb);
	table_add(t, "%s", sb.buf);
	strbuf_release(&sb);
}

static void
status_table(FILE *f, const struct state *st,
             const struct run_progress *prog)
{
	static const char *const cols[] = { ">rank", "state", ">attempt",
		">job", "nodelist", ">time", "progress", ">exit", "reason",
		"name", NULL };
	long now = (long)time(NULL);
	/* A look-up a row: linear ones made the table quadratic. */
	struct cand_status **by_name = state_by_name(st);
	struct table t;

	table_init(&t, cols);
	for (int i = 0; i < st->n; i++) {
		const struct cand_status *c = &st->v[i];

		table_add(&t, "%d", c->rank);
		table_add(&t, "%s", cand_state_name(c->state));
		table_add(&t, "%d", c->attempt);
		if (c->job_id)
			table_add(&t, "%" PRIu32, c->job_id);
		else
			table_add(&t, "-");
		table_add(&t, "%s", c->nodes[0] ? c->nodes : "-");
		add_run_time(&t, c, now);
		add_progress(&t, &prog[i]);
		/* sacct's exit:signal: a job that a signal ended (scancel,
		 * a time limit, the OOM killer) showed exit 0. */
		if (has_exit_code(c) && c->exit_signal)
			table_add(&t, "%d:%d", c->exit_code, c->exit_signal);
		else if (has_exit_code(c))
			table_add(&t, "%d", c->exit_code);
		else
			table_add(&t, "-");
		if (c->reason[0] || !c->fits_by[0])
			table_add(&t, "%s", c->reason[0] ? c->reason : "-");
		else
			table_add(&t, "fits (proved by rank %d)",
			          rank_of(st, by_name, c->fits_by));
		table_add(&t, "%s%s", c->name, c->base ? " (base)" : "");
	}
	table_print(&t, f);
	table_release(&t);
	free(by_name);
}

/* "; Slurm polled 3 min ago" or "; Slurm not polled yet"; nothing once
 * every selected candidate has ended, when no poll can change a state. */
static void
add_polled(struct strbuf *sb, const struct store *r)
{
	long polled = r->polled, ago = (long)time(NULL) - polled;

	if (store_any_selected(&r->st) && store_all_final(&r->st))
		return;
	if (polled <= 0)
		strbuf_addstr(sb, "; Slurm not polled yet");
	else if (ago < 120)
		strbuf_addf(sb, "; Slurm polled %ld s ago", ago < 0 ? 0 : ago);
	else if (ago < 7200)
		strbuf_addf(sb, "; Slurm polled %ld min ago", ago / 60);
	else
		strbuf_addf(sb, "; Slurm polled %ld h ago", ago / 3600);
}

/* "search: 3 measured, 2 pruned, 4 skipped (no_gain), 1 queued; best
 * so far NAME at 1.234 s a step; 12.5 GPU-hours spent; stopped: ..."
 * ("best NAME" once every selected candidate has ended). */
static void
status_search(struct strbuf *sb, const struct results *res)
{
	const struct state *st = &res->run.st;
	int n[CS_COUNT];

	store_counts(st, n);
	strbuf_addf(sb, "search: %d measured, %d pruned, %d skipped "
	            "(%d no_gain, %d budget), %d queued",
	            res->nranked, res->pruned, n[CS_SKIPPED],
	            res->skipped_no_gain, res->skipped_budget, n[CS_QUEUED]);
	if (st->model.runs > 0)
		strbuf_addf(sb, "; refit on %d runs: predictions x%.3f",
		            st->model.runs, fit_factor(&st->model));
	if (res->best >= 0) {
		/* "so far" only while something may still beat it. */
		strbuf_addstr(sb, store_all_final(st) ? "; best "
		                                      : "; best so far ");
		safe_text_append(sb, res->v[res->best].cand.name);
		strbuf_addf(sb, " at %.3f s a step",
		            res->v[res->best].m.step_mean_s);
	}
	strbuf_addstr(sb, "; ");
	report_add_gpu_hours(sb, res->campaign_gpu_hours);
	strbuf_addstr(sb, " spent");
	if (res->stop_reason[0])
		strbuf_addf(sb, "; stopped: %s (%s)", res->stop_reason,
		            report_stop_text(res->stop_reason));
}

/* The search object of status --format json. */
static void
status_json_search(struct json *j, const struct results *res)
{
	json_begin_object(j, "search");
	json_int(j, "measured", res->nranked);
	json_int(j, "pruned", res->pruned);
	json_int(j, "skipped_no_gain", res->skipped_no_gain);
	json_int(j, "skipped_budget", res->skipped_budget);
	if (res->best >= 0) {
		json_string(j, "best", res->v[res->best].cand.name);
		json_number(j, "best_step_s", res->v[res->best].m.step_mean_s);
	} else {
		json_null(j, "best");
		json_null(j, "best_step_s");
	}
	json_number(j, "campaign_gpu_hours", res->campaign_gpu_hours);
	json_int(j, "refit_runs", res->run.st.model.runs);
	json_number(j, "refit_factor", fit_factor(&res->run.st.model));
	if (res->stop_reason[0])
		json_string(j, "stop_reason", res->stop_reason);
	else
		json_null(j, "stop_reason");
	json_end_object(j);
}

/* A running job's progress: null where its log says nothing. */
static void
status_json_progress(struct json *j, const struct run_progress *p)
{
	if (p->step >= 0)
		json_int(j, "last_step", p->step);
	else
		json_null(j, "last_step");
	if (p->total_steps > 0)
		json_int(j, "total_steps", p->total_steps);
	else
		json_null(j, "total_steps");
	json_number(j, "last_step_time_s", p->step_s); /* NAN: null */
}

/* One candidate of status --format json. */
static void
status_json_cand(struct json *j, const struct cand_status *c,
                 const struct run_progress *p)
{
	json_begin_object(j, NULL);
	json_string(j, "name", c->name);
	json_int(j, "rank", c->rank);
	json_bool(j, "base", c->base);
	json_string(j, "state", cand_state_name(c->state));
	json_int(j, "attempt", c->attempt);
	json_int(j, "job_id", c->job_id);
	/* The allocation, as Slurm's NodeList: "nodes" is a count in
	 * results, and a key means one thing. */
	if (c->nodes[0])
		json_string(j, "nodelist", c->nodes);
	else
		json_null(j, "nodelist");
	status_json_progress(j, p);
	if (has_exit_code(c)) {
		json_int(j, "exit_code", c->exit_code);
		json_int(j, "exit_signal", c->exit_signal);
	} else {
		json_null(j, "exit_code");
		json_null(j, "exit_signal");
	}
	if (c->reason[0])
		json_string(j, "reason", c->reason);
	else
		json_null(j, "reason");
	if (c->fits_by[0])
		json_string(j, "fits_by", c->fits_by);
	else
		json_null(j, "fits_by");
	json_end_object(j);
}

/*
 * Whether the campaign's own limits.gpu_hours holds its queued
 * candidates back under the adaptive search (promising > 0, see
 * search_promising): one more job at its time limit would pass it.
 * Status said that resume submits them.
 */
static bool
campaign_cap_holds(const struct store *s, int promising)
{
	const struct settings *k = &s->settings;
	struct budget b;

	if (promising <= 0 || k->limits.gpu_hours <= 0)
		return false;
	budget_compute(s, (long)time(NULL), &b);
	return b.queued > 0 &&
	       b.committed - b.queued + budget_job_limit(k) >
	       k->limits.gpu_hours;
}

static void
status_json(FILE *f, const struct store *s, const struct settings *site,
            const struct results *res, const struct run_progress *prog,
            int promising)
{
	const struct state *st = &s->st;
	struct strbuf sb = STRBUF_INIT;
	struct json j;
	int n[CS_COUNT];

	store_counts(st, n);
	json_init(&j, &sb, true);
	json_begin_object(&j, NULL);
	json_string(&j, "campaign_id", st->campaign_id);
	if (s->polled > 0)
		json_int(&j, "last_polled", s->polled);
	else
		json_null(&j, "last_polled");
	json_begin_object(&j, "counts");
	for (int k = 0; k < CS_COUNT; k++)
		json_int(&j, cand_state_name((enum cand_state)k), n[k]);
	json_end_object(&j);
	json_begin_array(&j, "candidates");
	for (int i = 0; i < st->n; i++)
		status_json_cand(&j, &st->v[i], &prog[i]);
	json_end_array(&j);
	if (budget_holds_queued(s, site, (long)time(NULL), NULL))
		json_string(&j, "held_by", "policy.max_gpu_hours");
	else if (campaign_cap_holds(s, promising))
		json_string(&j, "held_by", "limits.gpu_hours");
	else
		json_null(&j, "held_by");
	if (res)
		status_json_search(&j, res);
	json_end_object(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

/* What becomes of queued candidates the adaptive search holds back:
 * it waits for the active jobs (then, after), or with none the next
 * resume skips them. */
static void
held_next_text(struct strbuf *sb, const struct store *s, const char *after)
{
	int active = store_active_count(&s->st);

	if (active > 0) {
		strbuf_addf(sb, "the search waits for %d active job%s%s",
		            active, active == 1 ? "" : "s", after);
		return;
	}
	strbuf_addstr(sb, "the next 'paratune resume ");
	safe_text_append(sb, s->dir);
	strbuf_addstr(sb, "' skips them and stops the search");
}

/*
 * Queued candidates that the adaptive search holds back, none able to
 * beat the best measured (promising 0): status said that resume submits
 * them, and resume submitted nothing, waiting for an active job (a held
 * one, for ever) or about to skip them.
 */
static void
no_gain_text(struct strbuf *sb, const struct store *s, int queued)
{
	strbuf_addf(sb, "%d queued, none of which can beat the best "
	            "measured by search.min_gain (%g %%): ", queued,
	            100.0 * s->settings.search.min_gain);
	held_next_text(sb, s, ", then skips them unless what it measures "
	               "changes that");
}

/* What the campaign's own limits.gpu_hours holds back under the adaptive
 * search (promising > 0), as policy.max_gpu_hours is said. */
static void
campaign_cap_text(struct strbuf *sb, const struct store *s, int queued,
                  int promising)
{
	const struct settings *k = &s->settings;

	if (!campaign_cap_holds(s, promising))
		return;
	strbuf_addf(sb, "%d queued, held by limits.gpu_hours = %g: one more "
	            "job at its time limit would pass it; ", queued,
	            k->limits.gpu_hours);
	held_next_text(sb, s, " to end");
}

/* Only resume submits what is queued: without cron running it, a
 * campaign waits for ever, and status (or --watch) said nothing.  Nor
 * does resume submit what the site's GPU-hour cap holds back, what the
 * adaptive search holds back (promising 0; -1: no such search), nor
 * anything before submit selects it. */
static void
queued_hint(FILE *f, const struct store *s, const struct settings *site,
            bool site_read, int promising)
{
	struct strbuf sb = STRBUF_INIT;
	int n[CS_COUNT];

	store_counts(&s->st, n);
	budget_held_text(s, site, (long)time(NULL), &sb);
	if (sb.len == 0 && n[CS_QUEUED] > 0 && !site_read)
		strbuf_addf(&sb, "%d queued: resume submits nothing while the "
		            "site file cannot be read (above)", n[CS_QUEUED]);
	else if (sb.len == 0 && n[CS_QUEUED] > 0 && promising == 0)
		no_gain_text(&sb, s, n[CS_QUEUED]);
	else if (sb.len == 0 && n[CS_QUEUED] > 0)
		campaign_cap_text(&sb, s, n[CS_QUEUED], promising);
	if (sb.len == 0 && n[CS_QUEUED] > 0) {
		/* Named as written, control characters spelled out. */
		strbuf_addf(&sb, "%d queued: only 'paratune resume ",
		            n[CS_QUEUED]);
		safe_text_append(&sb, s->dir);
		strbuf_addstr(&sb, "' submits them (run it from cron)");
	} else if (sb.len == 0 && !store_any_selected(&s->st)) {
		/* Planned only: "0 selected" alone left the next step to
		 * the reader, and a crontab line waited on nothing. */
		strbuf_addstr(&sb, "nothing selected yet: 'paratune submit ");
		safe_text_append(&sb, s->dir);
		strbuf_addstr(&sb, "' selects candidates and submits them");
	}
	if (sb.len > 0)
		fprintf(f, "%s\n", sb.buf);
	strbuf_release(&sb);
}

/* Whether the campaign will change without someone acting: a job is in
 * Slurm, or a queued candidate that resume may submit. */
static bool
still_moving(const struct store *s, const struct settings *site)
{
	return store_active_count(&s->st) > 0 ||
	       (!store_all_final(&s->st) &&
	        !budget_holds_queued(s, site, (long)time(NULL), NULL));
}

/*
 * The columns of the terminal at fd, 0 when unknown.  The progress line
 * is redrawn with "\r\033[K", which clears the row the cursor is on:
 * one wider than the terminal wrapped, and each redraw left the rows
 * above it behind.
 */
static int
terminal_columns(int fd)
{
	struct winsize ws;

	return ioctl(fd, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

/* Cut sb to fit cols - 1 columns (ASCII but for whole UTF-8 runes). */
static void
fit_line(struct strbuf *sb, int cols)
{
	size_t cut = 0, n = 0;

	if (cols < 2)
		return;
	for (size_t i = 0; i < sb->len; i++) {
		if (((unsigned char)sb->buf[i] & 0xc0) == 0x80)
			continue;  /* a rune's continuation byte */
		if (n == (size_t)cols - 1) {
			cut = i;
			break;
		}
		n++;
	}
	if (cut > 0)
		strbuf_setlen(sb, cut);
}

/* The running jobs --watch names on its line; the table has them all. */
#define WATCH_RUNNING_MAX 3

/* "; rank 3 at 45/100 5.719s" for each running job whose log says how
 * far it got: the line said how many ran, not whether they moved.
 * Past WATCH_RUNNING_MAX of them, how many more; a terminal's line is
 * cut to its width all the same. */
static void
add_running(struct strbuf *sb, const struct store *r)
{
	struct run_progress *prog = run_progress_read(r);
	int shown = 0;

	for (int i = 0; i < r->st.n; i++) {
		if (prog[i].step < 0)
			continue;
		if (shown++ >= WATCH_RUNNING_MAX)
			continue;
		strbuf_addf(sb, "; rank %d at ", r->st.v[i].rank);
		run_progress_text(&prog[i], sb);
	}
	if (shown > WATCH_RUNNING_MAX)
		strbuf_addf(sb, "; %d more", shown - WATCH_RUNNING_MAX);
	free(prog);
}

/* Re-read the recorded state every interval until nothing moves. */
static int
watch(struct cmd_ctx *ctx, const char *dir, int interval,
      const struct settings *site)
{
	bool tty = isatty(fileno(ctx->out));
	struct strbuf held = STRBUF_INIT;

	for (bool drawn = false;; drawn = true) {
		struct store r;
		struct strbuf sb = STRBUF_INIT;
		bool done;
		int s;

		/* What reading it says (an error: the state was edited)
		 * goes to stderr, the same terminal: on the drawn line it
		 * was glued to the progress ("...yeterror: ..."). */
		if (tty && drawn) {
			fputs("\r\033[K", ctx->out);
			fflush(ctx->out);
		}
		s = store_open(&r, dir, STORE_READ_ONLY | STORE_SAID);
		if (s != 0) {
			strbuf_release(&held);
			return s;
		}
		store_progress(&r.st, &sb);
		add_polled(&sb, &r);
		add_running(&sb, &r);
		done = !still_moving(&r, site);
		if (done)
			budget_held_text(&r, site, (long)time(NULL), &held);
		if (tty)
			fit_line(&sb, terminal_columns(fileno(ctx->out)));
		fprintf(ctx->out, tty ? "\r\033[K%s" : "%s\n", sb.buf);
		fflush(ctx->out);
		strbuf_release(&sb);
		store_close(&r, false);
		if (done)
			break;
		sleep((unsigned)interval);
	}
	if (tty)
		fputc('\n', ctx->out);
	if (held.len > 0)
		fprintf(ctx->out, "%s\n", held.buf);
	strbuf_release(&held);
	return EXIT_OK;
}

struct status_call {
	struct cmd_ctx *ctx;
	const char *dir;
	int watch, interval;
};

/* Show where the campaign stands, as the directory's owner. */
static int
status_dir(void *arg)
{
	struct status_call *sc = arg;
	struct cmd_ctx *ctx = sc->ctx;
	struct results_opts o = RESULTS_OPTS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct run_progress *prog;
	struct results res;
	bool have = false, site_read;
	struct settings site;
	struct store r;
	int status, loaded = 0, promising;

	if ((status = store_open(&r, sc->dir, STORE_READ_ONLY)) != 0)
		return status;
	o.said = true;
	/* The site's caps as they stand now (a reader opens the
	 * campaign without them). */
	site_read = settings_load_site(&site, ctx->site_path) == 0;
	/* Only with the site read: else its error would come twice. */
	if (site_read && ctx->verbosity >= 0)
		calibration_note_dir(sc->dir, &r.settings, ctx->site_path);
	/* The search's progress needs the logs (what was measured); a
	 * campaign whose results cannot be read still has its states,
	 * shown before the exit code says what could not be read. */
	if (r.settings.search.strategy == STRATEGY_ADAPTIVE)
		have = (loaded = results_load(&res, sc->dir, &o)) == 0;
	prog = run_progress_read(&r);
	promising = have ? search_promising(&r, &res) : -1;
	if (ctx->format == FORMAT_JSON) {
		status_json(ctx->out, &r, &site, have ? &res : NULL, prog,
		            promising);
	} else {
		status_table(ctx->out, &r.st, prog);
		store_progress(&r.st, &sb);
		add_polled(&sb, &r);
		fprintf(ctx->out, "%s\n", sb.buf);
		if (have) {
			strbuf_reset(&sb);
			status_search(&sb, &res);
			fprintf(ctx->out, "%s\n", sb.buf);
		}
		queued_hint(ctx->out, &r, &site, site_read, promising);
	}
	if (r.settings.search.strategy == STRATEGY_ADAPTIVE)
		results_release(&res);
	free(prog);
	strbuf_release(&sb);
	store_close(&r, false);
	if (loaded != 0 && !sc->watch)
		status = loaded;
	else if (sc->watch)
		status = watch(ctx, sc->dir, sc->interval, &site);
	settings_release(&site);
	return status;
}

static int
cmd_status_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	int do_watch = 0, interval = OPT_INT_UNSET, status;
	const struct option opts[] = {
		OPT_BOOLEAN('w', "watch", &do_watch,
		            "refresh the progress line until the "
		            "campaign ends"),
		OPT_INTEGER(0, "interval", &interval, "SECONDS",
		            "seconds between --watch refreshes (default 5)"),
		OPT_FORMAT_(NULL),
		OPT_FINISH,
	};
	struct status_call sc = { ctx, NULL, 0, 0 };

	if (cmd_parse_args(ctx, &cmd_status_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	/* Only --watch refreshes: an --interval alone would be dropped. */
	if (interval != OPT_INT_UNSET && !do_watch)
		return error("--interval needs --watch (it sets how often "
		             "--watch refreshes)"), EXIT_USAGE;
	if (interval == OPT_INT_UNSET)
		interval = 5;
	if (interval < 1)
		return error("--interval must be at least 1, not %d",
		             interval), EXIT_USAGE;
	/* --watch appends plain progress lines: after a JSON document
	 * they would leave standard output no longer JSON. */
	if (do_watch && ctx->format == FORMAT_JSON)
		return error("--watch prints progress lines, not JSON: "
		             "use --watch or --format json"), EXIT_USAGE;
	sc.dir = argv[1];
	sc.watch = do_watch;
	sc.interval = interval;
	/* --watch runs until it is interrupted: no limit. */
	return do_watch ? owner_run_within(sc.dir, status_dir, &sc, 0)
	                : owner_run(sc.dir, status_dir, &sc);
}

const struct cmd_entry cmd_status_entry = {
	"status", NULL, "DIR",
	"where each candidate of a campaign stands",
	cmd_status_exec,
	NULL,
};
