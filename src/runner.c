/*
 * runner.c - the campaign engine behind submit, resume, status and
 * cancel.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "directive.h"
#include "error.h"
#include "runner.h"
#include "util.h"
#include "xalloc.h"

/* An intent younger than this is not declared lost: accounting may not
 * have heard of a job that ran and left the controller within seconds. */
#define INTENT_GRACE_S 10
/* How long a job known to neither the controller nor accounting is
 * waited for before its own output decides what happened to it. */
#define ACCOUNTING_LAG_S 300

/* ---- applying events ------------------------------------------------------- */

static void
set_word(char *dst, size_t len, const char *detail, const char *key)
{
	char buf[256];

	size_t n;

	if (!journal_value(detail, key, buf, sizeof buf))
		return;
	if (!strcmp(buf, "-"))
		buf[0] = '\0';
	n = strnlen(buf, len - 1);
	memcpy(dst, buf, n);
	dst[n] = '\0';
}

static long
get_long(const char *detail, const char *key, long dflt)
{
	char buf[32];
	long v;
	char *end;

	if (!journal_value(detail, key, buf, sizeof buf))
		return dflt;
	v = strtol(buf, &end, 10);
	return *end ? dflt : v;
}

/* "state" events carry what Slurm said about the job. */
static int
apply_job_state(struct cand_status *c, const char *detail)
{
	char buf[32];
	int s;

	if (!journal_value(detail, "state", buf, sizeof buf) ||
	    (s = cand_state_parse(buf)) < 0)
		return -1;
	c->state = (enum cand_state)s;
	c->job_id = (uint32_t)get_long(detail, "job", (long)c->job_id);
	c->exit_code = (int)get_long(detail, "exit", c->exit_code);
	c->exit_signal = (int)get_long(detail, "signal", c->exit_signal);
	c->start_time = get_long(detail, "start", c->start_time);
	c->end_time = get_long(detail, "end", c->end_time);
	set_word(c->nodes, sizeof c->nodes, detail, "nodes");
	set_word(c->reason, sizeof c->reason, detail, "reason");
	set_word(c->source, sizeof c->source, detail, "source");
	return 0;
}

int
runner_apply(struct state *st, const struct journal_entry *e,
             bool *sequential)
{
	struct cand_status *c = state_find(st, e->name);
	const char *ev = e->event;

	st->journal_seq = e->seq;
	if (!strcmp(ev, "planned") || !strcmp(ev, "finished"))
		return 0;
	if (!strcmp(ev, "policy")) {
		*sequential = get_long(e->detail, "sequential", 0) != 0;
		return 0;
	}
	if (c == NULL)
		return error("journal line %ld: unknown candidate '%s'",
		             e->seq, e->name);
	if (!strcmp(ev, "queued")) {
		c->state = CS_QUEUED;
	} else if (!strcmp(ev, "intent")) {
		c->state = CS_SUBMITTING;
		c->attempt = (int)get_long(e->detail, "attempt", c->attempt);
		c->job_id = 0;
		c->submit_time = get_long(e->detail, "time", 0);
		set_word(c->tag, sizeof c->tag, e->detail, "tag");
	} else if (!strcmp(ev, "submitted")) {
		c->state = CS_PENDING;
		c->job_id = (uint32_t)get_long(e->detail, "job", 0);
		c->submit_time = get_long(e->detail, "time", c->submit_time);
	} else if (!strcmp(ev, "state")) {
		return apply_job_state(c, e->detail);
	} else if (!strcmp(ev, "retry")) {
		c->state = CS_QUEUED;
		set_word(c->exclude, sizeof c->exclude, e->detail, "exclude");
	} else if (!strcmp(ev, "rejected")) {
		c->state = CS_FAILED;
		set_word(c->reason, sizeof c->reason, e->detail, "reason");
	} else if (!strcmp(ev, "cancelled")) {
		c->state = CS_CANCELLED;
	} else {
		return error("journal line %ld: unknown event '%s'", e->seq,
		             ev);
	}
	return 0;
}

int
runner_event(struct runner *r, bool sync, const char *event,
             const char *name, const char *fmt, ...)
{
	struct journal_entry e;
	va_list ap;
	struct strbuf detail = STRBUF_INIT;
	int ret;

	va_start(ap, fmt);
	strbuf_vaddf(&detail, fmt, ap);
	va_end(ap);
	ret = journal_append(&r->journal, sync, event, name, "%s",
	                     detail.buf);
	if (ret == 0) {
		memset(&e, 0, sizeof(e));
		e.seq = r->journal.seq;
		snprintf(e.event, sizeof e.event, "%s", event);
		snprintf(e.name, sizeof e.name, "%s", name ? name : "-");
		snprintf(e.detail, sizeof e.detail, "%s", detail.buf);
		ret = runner_apply(&r->st, &e, &r->sequential);
		r->transitions++;
	}
	strbuf_release(&detail);
	return ret;
}

/* ---- opening and closing ------------------------------------------------------ */

/*
 * Write the state as of the journal's last line.  The journal goes to
 * the disk first: a checkpoint must never include lines a power cut
 * could take from the journal (only intents are synced as written).
 */
static int
runner_checkpoint(struct runner *r)
{
	if (fsync(r->journal.fd) != 0)
		return error_errno("cannot sync '%s'", r->journal.path);
	r->st.journal_seq = r->journal.seq;
	return state_save(r->dir, &r->st);
}

struct replay_ctx {
	struct state *st;
	bool *sequential;
	int applied;          /* lines the checkpoint lacked */
	int since_finished;   /* of those, the ones after a "finished" */
};

static int
replay_one(const struct journal_entry *e, void *arg)
{
	struct replay_ctx *rc = arg;

	rc->applied++;
	rc->since_finished = strcmp(e->event, "finished")
	                     ? rc->since_finished + 1 : 0;
	return runner_apply(rc->st, e, rc->sequential);
}

static int
count_line(const struct journal_entry *e, void *arg)
{
	*(long *)arg = e->seq;
	return 0;
}

/*
 * Check the whole journal and that it holds every line the checkpoint
 * includes.  Its lines reach the disk before the checkpoint that names
 * them (runner_close), so a shorter journal was cut by something else;
 * appending to it would reuse sequence numbers that replay then skips.
 */
static int
check_journal(const struct runner *r)
{
	long lines = 0;

	if (journal_replay(r->dir, 0, count_line, &lines) != 0)
		return -1;
	if (lines < r->st.journal_seq)
		return error("%s/journal.log: ends at line %ld but %s/state "
		             "includes %ld lines: the journal lost lines",
		             r->dir, lines, r->dir, r->st.journal_seq);
	return 0;
}

/*
 * A run killed while it wrote DIR/state leaves its temporary file
 * (write_file_atomic's "state.tmp.PID") behind.  Only the lock holder
 * writes the state, so under the lock any such file is stale.
 */
static void
remove_stale_temps(const struct runner *r)
{
	DIR *d = opendir(r->dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char *path;

		if (strncmp(e->d_name, "state.tmp.", 10) != 0)
			continue;
		path = xasprintf("%s/%s", r->dir, e->d_name);
		if (unlink(path) != 0 && errno != ENOENT)
			warning("cannot remove '%s': %s", path,
			        strerror(errno));
		free(path);
	}
	closedir(d);
}

/*
 * Replay the journal lines the checkpoint lacks (a crash between them
 * and the checkpoint).  They count as this run's transitions, so the
 * run checkpoints them and resume still journals "finished" when the
 * crash came just before it; a replay that ends with "finished" itself
 * is checkpointed here, as no transition of this run will do it.
 */
static int
replay_journal(struct runner *r, bool writable)
{
	struct replay_ctx rc = { &r->st, &r->sequential, 0, 0 };

	if (check_journal(r) != 0 ||
	    journal_replay(r->dir, r->st.journal_seq, replay_one, &rc) != 0)
		return EXIT_DATAERR;
	if (!writable)
		return 0;
	if (journal_open(&r->journal, r->dir) != 0)
		return EXIT_DATAERR;
	r->transitions = rc.since_finished;
	if (rc.applied > 0 && rc.since_finished == 0)
		return runner_checkpoint(r) ? EXIT_IOERR : 0;
	return 0;
}

/*
 * Fault injection for the concurrency test (as git's GIT_TEST_*
 * variables): hold the lock PARATUNE_TEST_HOLD_LOCK_MS milliseconds
 * before working, as a run against a slow controller does, so that
 * processes started together all meet the lock held, however unevenly
 * the machine starts them.
 */
static void
hold_lock_for_test(void)
{
	const char *v = getenv("PARATUNE_TEST_HOLD_LOCK_MS");
	struct timespec ts;
	int ms;

	if (v == NULL || parse_int(v, &ms) != 0 || ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Take DIR/.lock; 0, 1 when another process holds it, -1 on error. */
static int
take_lock(struct runner *r, bool wait)
{
	char *path = xasprintf("%s/.lock", r->dir);

	r->lock_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	                  0644);
	if (r->lock_fd < 0) {
		error_errno("cannot open '%s'", path);
		free(path);
		return -1;
	}
	free(path);
	if (flock(r->lock_fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) == 0) {
		hold_lock_for_test();
		return 0;
	}
	return errno == EWOULDBLOCK ? 1 : error_errno("cannot lock");
}

/* The frozen campaign: no site, no user layer, nothing else. */
static int
load_frozen(struct runner *r)
{
	char *path = xasprintf("%s/campaign.conf", r->dir);
	struct config_sources src;
	int ret;

	memset(&src, 0, sizeof(src));
	src.no_site = true;
	src.no_user = true;
	src.campaign_path = path;
	campaign_init(&r->campaign);
	ret = campaign_load(&r->campaign, &src);
	free(path);
	return ret;
}

int
runner_open(struct runner *r, const char *dir, int flags, FILE *out,
            int verbosity)
{
	char real[PATH_MAX];
	int lock, status;

	memset(r, 0, sizeof(*r));
	r->lock_fd = -1;
	r->journal.fd = -1;
	r->out = out;
	r->verbosity = verbosity;
	if (realpath(dir, real) == NULL) {
		error_errno("cannot open campaign directory '%s'", dir);
		return EXIT_DATAERR;
	}
	r->dir = xstrdup(real);
	if (!(flags & RUNNER_READ_ONLY)) {
		lock = take_lock(r, flags & RUNNER_LOCK_WAIT);
		if (lock != 0) {
			runner_close(r, false);
			return lock == 1 ? 1 : EXIT_DATAERR;
		}
		remove_stale_temps(r);
	}
	if (load_frozen(r) != 0 || state_load(r->dir, &r->st) != 0) {
		runner_close(r, false);
		return EXIT_DATAERR;
	}
	status = replay_journal(r, !(flags & RUNNER_READ_ONLY));
	if (status != 0) {
		runner_close(r, false);
		return status;
	}
	return 0;
}

int
runner_close(struct runner *r, bool save)
{
	int ret = 0;

	/* One checkpoint per command run, and none when nothing changed:
	 * a run that could not reach Slurm leaves the state as it was. */
	if (save && r->journal.fd >= 0 && r->transitions > 0)
		ret = runner_checkpoint(r);
	if (r->slurm)
		slurm_close(r->slurm);
	journal_close(&r->journal);
	if (r->lock_fd >= 0)
		close(r->lock_fd); /* releases the flock */
	state_release(&r->st);
	campaign_release(&r->campaign);
	free(r->dir);
	memset(r, 0, sizeof(*r));
	r->lock_fd = -1;
	r->journal.fd = -1;
	return ret;
}

/* Connect to Slurm on first use; EXIT_TEMPFAIL when impossible. */
static int
runner_slurm(struct runner *r)
{
	struct strbuf err = STRBUF_INIT;

	if (r->slurm)
		return 0;
	r->slurm = slurm_open(&err);
	if (r->slurm == NULL) {
		error("cannot reach Slurm: %s", err.buf);
		strbuf_release(&err);
		return EXIT_TEMPFAIL;
	}
	strbuf_release(&err);
	return 0;
}

/* ---- progress ----------------------------------------------------------------------- */

void
runner_counts(const struct state *st, int counts[CS_COUNT])
{
	memset(counts, 0, sizeof(int) * CS_COUNT);
	for (int i = 0; i < st->n; i++)
		counts[st->v[i].state]++;
}

bool
runner_all_final(const struct state *st)
{
	for (int i = 0; i < st->n; i++)
		if (st->v[i].state == CS_QUEUED ||
		    cand_state_active(st->v[i].state))
			return false;
	return true;
}

void
runner_progress(const struct state *st, struct strbuf *out)
{
	int n[CS_COUNT], selected;

	runner_counts(st, n);
	selected = st->n - n[CS_PLANNED];
	strbuf_addf(out, "%d done, %d running, %d pending, %d queued, "
	            "%d failed of %d selected (%d not selected)",
	            n[CS_COMPLETED], n[CS_RUNNING],
	            n[CS_PENDING] + n[CS_SUBMITTING], n[CS_QUEUED],
	            n[CS_OOM] + n[CS_FAILED] + n[CS_TIMEOUT] +
	            n[CS_NODE_FAIL] + n[CS_PREEMPTED] + n[CS_CANCELLED],
	            selected, n[CS_PLANNED]);
}

/* ---- polling -------------------------------------------------------------------------- */

static enum cand_state
from_job_state(enum job_state s)
{
	switch (s) {
	case JOB_ST_PENDING: return CS_PENDING;
	case JOB_ST_RUNNING:
	case JOB_ST_SUSPENDED: return CS_RUNNING;
	case JOB_ST_COMPLETED: return CS_COMPLETED;
	case JOB_ST_CANCELLED: return CS_CANCELLED;
	case JOB_ST_TIMEOUT:
	case JOB_ST_DEADLINE: return CS_TIMEOUT;
	case JOB_ST_NODE_FAIL:
	case JOB_ST_BOOT_FAIL: return CS_NODE_FAIL;
	case JOB_ST_PREEMPTED: return CS_PREEMPTED;
	case JOB_ST_OUT_OF_MEMORY: return CS_OOM;
	default: return CS_FAILED;
	}
}

/* Record what Slurm says of c's job, printing the transition. */
static int
record_job(struct runner *r, struct cand_status *c,
           const struct slurm_job *job)
{
	enum cand_state next = from_job_state(job->state);
	enum cand_state prev = c->state;
	const char *src = job->from_accounting ? "accounting" : "controller";
	int ret;

	if (next == prev && (next != CS_RUNNING || c->nodes[0]))
		return 0;
	ret = runner_event(r, false, "state", c->name,
	                   "state=%s job=%" PRIu32 " exit=%d signal=%d "
	                   "start=%ld end=%ld nodes=%s reason=%s source=%s",
	                   cand_state_name(next), job->job_id,
	                   job->exit_code, job->exit_signal,
	                   (long)job->start_time, (long)job->end_time,
	                   job->nodes[0] ? job->nodes : "-",
	                   job->reason[0] ? job->reason : "-", src);
	if (ret == 0 && r->verbosity >= 0 && next != prev)
		fprintf(r->out, "%s: %s -> %s (job %" PRIu32 "%s%s)\n",
		        c->name, cand_state_name(prev), cand_state_name(next),
		        job->job_id, job->nodes[0] ? " on " : "", job->nodes);
	return ret;
}

/* Node failures and preemption go back to the queue while attempts
 * remain; the next attempt avoids the node that failed. */
static int
maybe_retry(struct runner *r, struct cand_status *c)
{
	if (c->state != CS_NODE_FAIL && c->state != CS_PREEMPTED)
		return 0;
	if (c->attempt > r->campaign.limits.retries)
		return 0;
	if (r->verbosity >= 0)
		fprintf(r->out, "%s: retrying (attempt %d of %d)%s%s\n",
		        c->name, c->attempt + 1,
		        r->campaign.limits.retries + 1,
		        c->state == CS_NODE_FAIL ? " avoiding " : "",
		        c->state == CS_NODE_FAIL ? c->nodes : "");
	return runner_event(r, false, "retry", c->name, "exclude=%s",
	                    c->state == CS_NODE_FAIL && c->nodes[0]
	                        ? c->nodes : "-");
}

static const struct slurm_job *
find_job(const struct slurm_job *jobs, int n, const struct cand_status *c)
{
	for (int i = 0; i < n; i++) {
		if (c->job_id && jobs[i].job_id == c->job_id)
			return &jobs[i];
		if (!c->job_id && c->tag[0] && !strcmp(jobs[i].name, c->tag))
			return &jobs[i];
	}
	return NULL;
}

/* A job the controller forgot: accounting, by id or by tag. */
static int
lookup_accounting(struct runner *r, struct cand_status *c,
                  const struct slurm_job **job)
{
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *jobs;
	int n, ret;

	ret = c->job_id
	      ? slurm_accounting(r->slurm, &c->job_id, 1, NULL, 0, &jobs, &n,
	                         &err)
	      : slurm_accounting(r->slurm, NULL, 0, c->tag,
	                         c->submit_time - 60, &jobs, &n, &err);
	*job = NULL;
	if (ret == SLURM_E_OK)
		*job = find_job(jobs, n, c);
	if (ret == SLURM_E_UNREACHABLE)
		error("slurmdbd: %s", err.buf);
	strbuf_release(&err);
	return ret;
}

/*
 * Without accounting, a job the controller forgot is judged by its own
 * output: Slurm writes its verdicts there, the trainer its last words.
 */
static enum cand_state
state_from_output(const struct runner *r, const struct cand_status *c)
{
	char *path = xasprintf("%s/runs/%s/slurm-%" PRIu32 ".out", r->dir,
	                       c->name, c->job_id);
	FILE *f = fopen(path, "r");
	enum cand_state st = CS_FAILED;
	char line[4096];

	free(path);
	if (f == NULL)
		return CS_FAILED;
	while (fgets(line, sizeof line, f)) {
		if (strstr(line, "DUE TO TIME LIMIT"))
			st = CS_TIMEOUT;
		else if (strstr(line, "oom-kill") || strstr(line, "oom_kill"))
			st = CS_OOM;
		else if (strstr(line, "DUE TO NODE FAILURE"))
			st = CS_NODE_FAIL;
		else if (strstr(line, "DUE TO PREEMPTION"))
			st = CS_PREEMPTED;
		else if (strstr(line, "CANCELLED AT") && st == CS_FAILED)
			st = CS_CANCELLED;
		else if (strstr(line, "[after training is done]") &&
		         st == CS_FAILED)
			st = CS_COMPLETED;
	}
	fclose(f);
	return st;
}

/* Neither the controller nor accounting knows the job. */
static int
job_unknown(struct runner *r, struct cand_status *c)
{
	enum cand_state st;

	if (c->state == CS_SUBMITTING) {
		if (time(NULL) - c->submit_time < INTENT_GRACE_S)
			return 0; /* accounting may not know it yet */
		if (r->verbosity >= 0)
			fprintf(r->out, "%s: job %s never reached Slurm; "
			        "queued again\n", c->name, c->tag);
		return runner_event(r, false, "queued", c->name, "lost=%s",
		                    c->tag);
	}
	st = state_from_output(r, c);
	if (r->verbosity >= 0)
		fprintf(r->out, "%s: %s -> %s (job %" PRIu32 " gone; judged "
		        "from its output)\n", c->name,
		        cand_state_name(c->state), cand_state_name(st),
		        c->job_id);
	return runner_event(r, false, "state", c->name,
	                    "state=%s job=%" PRIu32 " reason=%s source=log",
	                    cand_state_name(st), c->job_id,
	                    st == CS_FAILED ? "vanished" : "-");
}

/* One candidate's job: controller, then accounting, then its output. */
static int
poll_one(struct runner *r, struct cand_status *c,
         const struct slurm_job *jobs, int n, bool *unreachable)
{
	const struct slurm_job *job = find_job(jobs, n, c);
	int ret;

	/* One refused connection says it for all: do not wait on a
	 * down slurmdbd once per candidate. */
	if (job == NULL && *unreachable)
		return 0;
	if (job == NULL) {
		ret = lookup_accounting(r, c, &job);
		if (ret == SLURM_E_UNREACHABLE) {
			*unreachable = true;
			return 0; /* decide nothing without accounting */
		}
		/* slurmdbd hears of a job's end a moment after the
		 * controller forgets it: give it time before guessing. */
		if (job == NULL && ret == SLURM_E_OK &&
		    c->state != CS_SUBMITTING &&
		    time(NULL) - c->submit_time < ACCOUNTING_LAG_S)
			return 0;
	}
	if (job == NULL)
		ret = job_unknown(r, c);
	else
		ret = record_job(r, c, job);
	return ret == 0 ? maybe_retry(r, c) : ret;
}

int
runner_poll(struct runner *r)
{
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *jobs;
	bool unreachable = false, any = false;
	int n, ret;

	/* A retry is decided right after the failure is recorded; a crash
	 * between the two must not cost the candidate its retry. */
	for (int i = 0; i < r->st.n; i++)
		if (maybe_retry(r, &r->st.v[i]) != 0)
			return EXIT_DATAERR;
	for (int i = 0; i < r->st.n; i++)
		any |= cand_state_active(r->st.v[i].state);
	if (!any)
		return 0;
	if ((ret = runner_slurm(r)) != 0)
		return ret;
	if (slurm_poll(r->slurm, &jobs, &n, &err) != SLURM_E_OK) {
		error("cannot reach the Slurm controller: %s", err.buf);
		strbuf_release(&err);
		return EXIT_TEMPFAIL;
	}
	strbuf_release(&err);
	for (int i = 0; i < r->st.n; i++) {
		struct cand_status *c = &r->st.v[i];

		if (cand_state_active(c->state) &&
		    poll_one(r, c, jobs, n, &unreachable) != 0)
			return EXIT_DATAERR;
	}
	return unreachable ? EXIT_TEMPFAIL : 0;
}

/* ---- submitting --------------------------------------------------------------------- */

static char *
read_script(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		error_errno("cannot read job script '%s'", path);
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, NULL);
}

/* The best ranked queued candidate (the base first), or NULL. */
static struct cand_status *
next_queued(struct runner *r)
{
	struct cand_status *best = NULL;

	for (int i = 0; i < r->st.n; i++) {
		struct cand_status *c = &r->st.v[i];

		if (c->state != CS_QUEUED)
			continue;
		if (best == NULL || (c->base && !best->base) ||
		    (c->base == best->base && c->rank < best->rank))
			best = c;
	}
	return best;
}

static int
active_count(const struct state *st)
{
	int n = 0;

	for (int i = 0; i < st->n; i++)
		n += cand_state_active(st->v[i].state);
	return n;
}

static void
fill_request(const struct runner *r, const struct cand_status *c,
             struct slurm_submit_req *req, const char *run,
             const char *out)
{
	const struct campaign *k = &r->campaign;

	memset(req, 0, sizeof(*req));
	req->name = c->tag;
	req->comment = c->name;
	req->work_dir = run;
	req->std_out = out;
	req->time_limit_min = k->limits.max_minutes_per_run;
	req->nodes = k->nodes;
	req->ntasks_per_node = k->gpus_per_node;
	req->gpus_per_node = k->gpus_per_node;
	req->partition = k->slurm.partition;
	req->account = k->slurm.account;
	req->qos = k->slurm.qos;
	req->reservation = k->slurm.reservation;
	req->exclude = c->exclude[0] ? c->exclude : NULL;
}

/* The campaign's slurm.directives, checked when it was planned. */
static int
runner_extras(const struct runner *r, struct sbatch_extras *x)
{
	const struct str_list *d = &r->campaign.slurm.directives;
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	memset(x, 0, sizeof(*x));
	for (int i = 0; i < d->n && !ret; i++)
		if (sbatch_extras_add(x, d->v[i], &why))
			ret = error("%s: slurm.directives: %s", r->dir, why.buf);
	strbuf_release(&why);
	return ret;
}

/*
 * Submit one candidate exactly once: the intent (with the job's tag) is
 * journaled and fsync'd before the call, so a crash after the call is
 * resolved by finding the tag in Slurm rather than by submitting again.
 */
static int
submit_one(struct runner *r, struct cand_status *c)
{
	struct slurm_submit_req req;
	struct sbatch_extras extras;
	struct strbuf err = STRBUF_INIT;
	char *run = xasprintf("%s/runs/%s", r->dir, c->name);
	char *out = xasprintf("%s/slurm-%%j.out", run);
	char *spath = xasprintf("%s/job.sbatch", run);
	char tag[64], *script = read_script(spath);
	uint32_t id = 0;
	int ret = EXIT_DATAERR, s;

	if (script == NULL || runner_extras(r, &extras))
		goto cleanup;
	snprintf(tag, sizeof tag, "pt-%s-%d-%d", r->st.campaign_id, c->rank,
	         c->attempt + 1);
	if (runner_event(r, true, "intent", c->name, "tag=%s attempt=%d "
	                 "time=%ld", tag, c->attempt + 1, (long)time(NULL)))
		goto cleanup;
	fill_request(r, c, &req, run, out);
	req.script = script;
	req.extras = &extras;
	s = slurm_submit(r->slurm, &req, &id, &err);
	if (s == SLURM_E_UNREACHABLE) {
		/* The intent stays: the next run looks the tag up first. */
		error("cannot submit %s: %s", c->name, err.buf);
		ret = EXIT_TEMPFAIL;
	} else if (s != SLURM_E_OK) {
		error("Slurm rejected %s: %s", c->name, err.buf);
		ret = runner_event(r, false, "rejected", c->name, "reason=%s",
		                   "rejected") ? EXIT_DATAERR : 0;
	} else {
		/* Fault injection for the exactly-once test (as git's
		 * GIT_TEST_* variables): die between the call and the record. */
		if (getenv("PARATUNE_TEST_KILL_AFTER_SUBMIT"))
			raise(SIGKILL);
		ret = runner_event(r, false, "submitted", c->name,
		                   "job=%" PRIu32 " time=%ld", id,
		                   (long)time(NULL)) ? EXIT_DATAERR : 0;
		if (ret == 0 && r->verbosity >= 0)
			fprintf(r->out, "%s: submitted as job %" PRIu32 " (%s)\n",
			        c->name, id, tag);
	}
cleanup:
	free(script);
	free(spath);
	free(out);
	free(run);
	strbuf_release(&err);
	return ret;
}

int
runner_submit_due(struct runner *r, bool dry_run)
{
	int limit = r->sequential ? 1 : r->campaign.limits.max_concurrent_jobs;
	int active = active_count(&r->st), ret;
	struct cand_status *c;

	if (dry_run) {
		for (int i = 0; i < r->st.n; i++)
			if (r->st.v[i].state == CS_QUEUED)
				fprintf(r->out, "would submit %s%s\n",
				        r->st.v[i].name,
				        r->st.v[i].base ? " (base)" : "");
		return 0;
	}
	while (active < limit && (c = next_queued(r)) != NULL) {
		if ((ret = runner_slurm(r)) != 0)
			return ret;
		if ((ret = submit_one(r, c)) != 0)
			return ret;
		active++;
	}
	return 0;
}
