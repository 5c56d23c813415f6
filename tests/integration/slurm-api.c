/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm-api.c - the Slurm adapter (src/slurm*.c) against a real cluster.
 *
 * Needs the local testbed (scripts/testbed up; SLURM_CONF from
 * `scripts/testbed env`) or any cluster with four idle nodes of eight
 * GPUs in its default partition, accounting through slurmdbd and a short
 * MinJobAge.  tests/integration/slurm-api.sh brings the testbed up and
 * runs this, then again with --slurmdbd-down after stopping slurmdbd.
 * Takes 20-60 s; the last line is "N passed, N failed" and the exit
 * status is 1 on any failure.
 */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "directive.h"
#include "slurm.h"
#include "strbuf.h"
#include "xalloc.h"

/* MinJobAge=2 plus slurmctld's purge cycle, MAX(10, MinJobAge) s
 * (src/slurmctld/controller.c, 22.05): gone within ~12 s. */
#define GONE_TIMEOUT_S 30
/* The controller sends the end of a job to slurmdbd asynchronously. */
#define ACCT_TIMEOUT_S 30
/* A two-node `srun hostname` ends in a second or two on the testbed. */
#define RUN_TIMEOUT_S 60
/* MessageTimeout in the copy of slurm.conf whose controller is closed:
 * libslurm retries a refused connection once a second for MessageTimeout
 * seconds (slurm_open_controller_conn, slurm_protocol_api.c, 22.05). */
#define DEAD_MSG_TIMEOUT_S 2

struct it {
	int passed, failed;
	struct slurm_conn *conn;
	char *dir;               /* scratch directory for job output */
	char tag[64];            /* unique prefix of this run's job names */
};

/* Count one check and print it. */
__attribute__((format(printf, 3, 4))) static bool
check(struct it *t, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (ok)
		t->passed++;
	else
		t->failed++;
	return ok;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A copy of job id's record from a poll, or false when it is absent. */
static bool
poll_job(struct it *t, uint32_t id, struct slurm_job *out, int *ret)
{
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *jobs;
	int n;

	*ret = slurm_poll(t->conn, &jobs, &n, &err);
	if (*ret != SLURM_E_OK)
		printf("     poll: %s\n", err.buf);
	strbuf_release(&err);
	for (int i = 0; *ret == SLURM_E_OK && i < n; i++) {
		if (jobs[i].job_id == id) {
			*out = jobs[i];
			return true;
		}
	}
	return false;
}

static bool accounted_final(struct it *t, const uint32_t *ids,
                            const char *prefix, uint32_t want,
                            struct slurm_job *out, int *ret);

/* Poll until job id is final, printing each state it passes.  A job
 * the controller no longer holds ended more than MinJobAge (2 s here)
 * ago, while the tests before its check ran (slower under the
 * sanitizers): its end is asked of accounting. */
static bool
wait_final(struct it *t, uint32_t id, struct slurm_job *job)
{
	enum job_state last = JOB_ST_UNKNOWN;
	double end = now_s() + RUN_TIMEOUT_S;
	int ret, acct;

	while (now_s() < end) {
		bool held = poll_job(t, id, job, &ret);

		if (held && job->state != last) {
			last = job->state;
			printf("     job %u: %s%s%s\n", (unsigned)id,
			       job_state_name(last),
			       job->nodes[0] ? " on " : "", job->nodes);
		}
		if (last != JOB_ST_UNKNOWN && job_state_final(last))
			return true;
		if (!held && ret == SLURM_E_OK &&
		    accounted_final(t, &id, NULL, id, job, &acct)) {
			printf("     job %u: %s (accounting)\n", (unsigned)id,
			       job_state_name(job->state));
			return true;
		}
		usleep(200 * 1000);
	}
	return false;
}

/* Poll until the controller forgets job id. */
static bool
wait_gone(struct it *t, uint32_t id)
{
	double end = now_s() + GONE_TIMEOUT_S;
	struct slurm_job job;
	int ret;

	while (now_s() < end) {
		if (!poll_job(t, id, &job, &ret) && ret == SLURM_E_OK)
			return true;
		usleep(500 * 1000);
	}
	return false;
}

/* Whether one query of accounting (by ids, else by prefix) holds job
 * want of this run (its names start with prefix, else t->tag) in a
 * final state. */
static bool
accounted_final(struct it *t, const uint32_t *ids, const char *prefix,
                uint32_t want, struct slurm_job *out, int *ret)
{
	const char *mine = prefix ? prefix : t->tag;
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *jobs;
	bool found = false;
	int n;

	*ret = slurm_accounting(t->conn, ids, ids ? 1 : 0, prefix,
	                        time(NULL) - 3600, &jobs, &n, &err);
	if (*ret != SLURM_E_OK)
		printf("     accounting: %s\n", err.buf);
	for (int i = 0; *ret == SLURM_E_OK && i < n && !found; i++)
		if (jobs[i].job_id == want &&
		    !strncmp(jobs[i].name, mine, strlen(mine)) &&
		    job_state_final(jobs[i].state)) {
			*out = jobs[i];
			found = true;
		}
	strbuf_release(&err);
	return found;
}

/* Ask accounting until it holds job id in a final state (by id, every
 * job that had the id: the one of this run's names, prefix or t->tag). */
static bool
wait_accounting(struct it *t, const uint32_t *id, const char *prefix,
                uint32_t want, struct slurm_job *out)
{
	double end = now_s() + ACCT_TIMEOUT_S;
	int ret;

	while (now_s() < end) {
		if (accounted_final(t, id, prefix, want, out, &ret))
			return true;
		if (ret != SLURM_E_OK)
			break;
		usleep(500 * 1000);
	}
	return false;
}

/* A request with this run's defaults: one node, no GPU, 5 minutes. */
static void
base_req(struct it *t, struct slurm_submit_req *req, const char *name,
         const char *script, char *namebuf, size_t size, char *out,
         size_t out_size)
{
	memset(req, 0, sizeof(*req));
	snprintf(namebuf, size, "%s-%s", t->tag, name);
	snprintf(out, out_size, "%s/%s-%%j.out", t->dir, name);
	req->name = namebuf;
	req->comment = "paratune integration test";
	req->script = script;
	req->work_dir = t->dir;
	req->std_out = out;
	req->time_limit_min = 5;
	req->nodes = 1;
	req->ntasks_per_node = 1;
}

/* Submit, reporting the outcome as one check. */
static uint32_t
submit(struct it *t, const struct slurm_submit_req *req)
{
	struct strbuf err = STRBUF_INIT;
	uint32_t id = 0;
	int ret = slurm_submit(t->conn, req, &id, &err);

	check(t, ret == SLURM_E_OK && id > 0, "submit %s -> job %u %s",
	      req->name, (unsigned)id, err.buf);
	strbuf_release(&err);
	return ret == SLURM_E_OK ? id : 0;
}

/* The job's output file, or an empty string. */
static char *
job_output(struct it *t, const char *name, uint32_t id)
{
	char path[4096], buf[8192];
	struct strbuf sb = STRBUF_INIT;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "%s/%s-%u.out", t->dir, name,
	         (unsigned)id);
	if ((f = fopen(path, "r")) != NULL) {
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			strbuf_add(&sb, buf, n);
		fclose(f);
	}
	return strbuf_detach(&sb, NULL);
}

/* How many lines of text start with prefix. */
static int
count_lines(const char *text, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *p = text;
	int n = 0;

	while (*p) {
		n += !strncmp(p, prefix, len);
		p = strchr(p, '\n');
		if (p == NULL)
			break;
		p++;
	}
	return n;
}

/*
 * Two nodes with eight GPUs each, `srun hostname` on both: COMPLETED
 * with exit 0; then gone from the controller and found in accounting by
 * id and by name.  The job gets paratune's own small environment.
 */
static void
test_two_node_job(struct it *t)
{
	static const char script[] =
		"#!/bin/sh\n"
		"echo \"gpus=$SLURM_GPUS_ON_NODE nodes=$SLURM_JOB_NUM_NODES\"\n"
		"srun hostname\n"
		"srun sh -c 'echo \"task on $SLURMD_NODENAME\"'\n"
		"env | sed 's/^/env: /'\n";
	struct slurm_submit_req req;
	struct slurm_job job, acct;
	char name[128], out[4096], *text;
	uint32_t id;

	printf("# a 2-node job with 8 GPUs per node\n");
	base_req(t, &req, "two-node", script, name, sizeof name, out,
	         sizeof out);
	req.nodes = 2;
	req.gpus_per_node = 8;
	/* Must not reach the job: paratune does not pass our environment. */
	setenv("PARATUNE_IT_SECRET", "leak", 1);
	id = submit(t, &req);
	unsetenv("PARATUNE_IT_SECRET");
	if (id == 0)
		return;
	if (!check(t, wait_final(t, id, &job), "job %u ends", (unsigned)id))
		return;
	check(t, job.state == JOB_ST_COMPLETED && job.exit_code == 0 &&
	      job.exit_signal == 0, "job %u is COMPLETED 0:0 (got %s %d:%d)",
	      (unsigned)id, job_state_name(job.state), job.exit_code,
	      job.exit_signal);
	check(t, !strcmp(job.name, name), "name is the tag (%s)", job.name);
	check(t, !strcmp(job.work_dir, t->dir), "the working directory is "
	      "the one submitted (%s)", job.work_dir);
	/* Testbed nodes are gpu1..gpu4: two of them make a range or a
	 * comma-separated list, never a single name. */
	check(t, job.nodes[0] && (strchr(job.nodes, '[') ||
	      strchr(job.nodes, ',')), "node list names two nodes (%s)",
	      job.nodes);
	check(t, job.start_time >= job.submit_time && job.end_time >=
	      job.start_time && job.submit_time > 0, "times are ordered "
	      "(%ld <= %ld <= %ld)", (long)job.submit_time,
	      (long)job.start_time, (long)job.end_time);

	text = job_output(t, "two-node", id);
	check(t, strstr(text, "gpus=8 nodes=2") != NULL,
	      "the job saw 8 GPUs on each of 2 nodes");
	check(t, count_lines(text, "task on gpu") == 2 &&
	      count_lines(text, "task on ") == 2, "srun ran one task on each "
	      "node");
	check(t, strstr(text, "env: LANG=C\n") && strstr(text, "env: PATH=") &&
	      !strstr(text, "PARATUNE_IT_SECRET"),
	      "the job has paratune's environment, not the caller's");
	free(text);

	check(t, wait_gone(t, id), "job %u leaves the controller (MinJobAge)",
	      (unsigned)id);
	if (check(t, wait_accounting(t, &id, NULL, id, &acct),
	          "accounting finds job %u by id", (unsigned)id))
		check(t, acct.state == JOB_ST_COMPLETED &&
		      acct.exit_code == 0 && acct.from_accounting &&
		      !strcmp(acct.nodes, job.nodes) &&
		      !strcmp(acct.name, name) && acct.start_time ==
		      job.start_time && acct.end_time == job.end_time,
		      "accounting agrees: %s %d, %s, %s", job_state_name(
		      acct.state), acct.exit_code, acct.nodes, acct.name);
	check(t, wait_accounting(t, NULL, t->tag, id, &acct) &&
	      acct.state == JOB_ST_COMPLETED, "accounting finds job %u by "
	      "name prefix '%s'", (unsigned)id, t->tag);
}

/* `exit 3` ends FAILED with exit code 3; an explicit environment is
 * passed as given. */
static void
test_exit_code(struct it *t)
{
	static const char script[] =
		"#!/bin/sh\necho \"probe=$PT_PROBE\"\nexit 3\n";
	static const char *const env[] = {
		"PATH=/usr/bin:/bin", "PT_PROBE=42", NULL,
	};
	struct slurm_submit_req req;
	struct slurm_job job;
	char name[128], out[4096], *text;
	uint32_t id;

	printf("# a job that exits 3\n");
	base_req(t, &req, "exit3", script, name, sizeof name, out,
	         sizeof out);
	req.env = env;
	if ((id = submit(t, &req)) == 0)
		return;
	if (!check(t, wait_final(t, id, &job), "job %u ends", (unsigned)id))
		return;
	/* FAIL_EXIT_CODE is "NonZeroExitCode" (squeue(1), JOB REASON CODES) */
	check(t, job.state == JOB_ST_FAILED && job.exit_code == 3 &&
	      job.exit_signal == 0 && !strcmp(job.reason, "NonZeroExitCode"),
	      "job %u is FAILED 3:0 NonZeroExitCode (got %s %d:%d %s)",
	      (unsigned)id, job_state_name(job.state), job.exit_code,
	      job.exit_signal, job.reason);
	text = job_output(t, "exit3", id);
	check(t, strstr(text, "probe=42\n") != NULL,
	      "the job got the environment it was given");
	free(text);
}

/* A held job stays PENDING; cancelled it is CANCELLED; another one
 * released runs to the end. */
static void
test_hold(struct it *t)
{
	struct slurm_submit_req req;
	struct strbuf err = STRBUF_INIT;
	struct slurm_job job;
	char name[128], out[4096];
	uint32_t id, id2;
	bool found;
	int ret;

	printf("# held jobs\n");
	base_req(t, &req, "held", "#!/bin/sh\ntrue\n", name, sizeof name,
	         out, sizeof out);
	req.hold = true;
	if ((id = submit(t, &req)) == 0)
		return;
	sleep(2); /* a scheduling pass would start it were it not held */
	/* Arguments are evaluated in no set order: poll first. */
	found = poll_job(t, id, &job, &ret);
	check(t, found && job.state == JOB_ST_PENDING &&
	      !strcmp(job.reason, "JobHeldUser"), "job %u is PENDING "
	      "(JobHeldUser) (got %s %s)", (unsigned)id,
	      job_state_name(job.state), job.reason);
	ret = slurm_cancel(t->conn, id, &err);
	check(t, ret == SLURM_E_OK, "slurm_cancel %u %s", (unsigned)id,
	      err.buf);
	found = poll_job(t, id, &job, &ret);
	check(t, found && job.state == JOB_ST_CANCELLED, "job %u is "
	      "CANCELLED (got %s)", (unsigned)id, job_state_name(job.state));
	ret = slurm_cancel(t->conn, id, &err);
	check(t, ret == SLURM_E_OK, "cancelling it again is not an error");

	base_req(t, &req, "released", "#!/bin/sh\ntrue\n", name, sizeof name,
	         out, sizeof out);
	req.hold = true;
	if ((id2 = submit(t, &req)) == 0)
		goto cleanup;
	ret = slurm_release(t->conn, id2, &err);
	check(t, ret == SLURM_E_OK, "slurm_release %u %s", (unsigned)id2,
	      err.buf);
	found = wait_final(t, id2, &job);
	check(t, found && job.state == JOB_ST_COMPLETED, "released job %u "
	      "runs to COMPLETED (got %s)", (unsigned)id2,
	      job_state_name(job.state));
	/* 4000000000 is above MaxJobId's limit, 0x03ff0000 (slurm.conf(5)) */
	ret = slurm_cancel(t->conn, 4000000000u, &err);
	check(t, ret == SLURM_E_NOT_FOUND, "cancelling an unknown job is "
	      "SLURM_E_NOT_FOUND (%d: %s)", ret, err.buf);
	ret = slurm_release(t->conn, 4000000000u, &err);
	check(t, ret == SLURM_E_NOT_FOUND, "releasing an unknown job is "
	      "SLURM_E_NOT_FOUND (%d: %s)", ret, err.buf);
cleanup:
	strbuf_release(&err);
}

/* What `scontrol show job ID` says of it, on one line. */
static char *
scontrol_show(uint32_t id)
{
	char cmd[64], buf[4096];
	struct strbuf sb = STRBUF_INIT;
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof cmd, "scontrol -o show job %u", (unsigned)id);
	if ((p = popen(cmd, "r")) != NULL) {
		while ((n = fread(buf, 1, sizeof buf, p)) > 0)
			strbuf_add(&sb, buf, n);
		pclose(p);
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * slurm.directives reach the controller: the controller reads no
 * #SBATCH line, so each is set on the job description, and what
 * scontrol shows of the held job is the proof.
 */
static void
test_extras(struct it *t)
{
	static const char *const d[] = {
		"--mem=1000", "--exclusive", "--time-min=00:02:00",
		"--mail-user=ops@example.org", "--mail-type=END,FAIL",
		"--cpus-per-task=2", "--signal=B:USR1@45", NULL,
	};
	static const char *const want[] = {
		"MinMemoryNode=1000M", "OverSubscribe=NO", "TimeMin=00:02:00",
		"MailUser=ops@example.org", "MailType=END,FAIL",
		"MinCPUsNode=2", NULL,
	};
	struct sbatch_extras x = { 0 };
	struct slurm_submit_req req;
	struct strbuf err = STRBUF_INIT;
	char name[128], out[4096], *show;
	uint32_t id;

	printf("# slurm.directives on the job description\n");
	for (int i = 0; d[i]; i++)
		if (sbatch_extras_add(&x, d[i], &err))
			check(t, false, "directive %s: %s", d[i], err.buf);
	base_req(t, &req, "extras", "#!/bin/sh\ntrue\n", name, sizeof name,
	         out, sizeof out);
	req.hold = true;
	req.extras = &x;
	if ((id = submit(t, &req)) == 0)
		goto cleanup;
	show = scontrol_show(id);
	for (int i = 0; want[i]; i++)
		check(t, strstr(show, want[i]) != NULL, "job %u has %s",
		      (unsigned)id, want[i]);
	free(show);
	slurm_cancel(t->conn, id, &err);
cleanup:
	strbuf_release(&err);
}

/*
 * --signal, which scontrol does not show, is proved by the job itself:
 * a one-minute job asks for USR1 in its batch shell 55 s before the
 * limit, i.e. once it has run 5 s.  slurmctld sends warning signals from
 * its time-limit pass, every PERIODIC_TIMEOUT (30 s, src/slurmctld/
 * slurmctld.h), so the job is started first and looked at last, and the
 * rest of the suite runs meanwhile.
 */
static const char signal_script[] =
	"#!/bin/sh\n"
	"trap 'echo caught USR1; exit 0' USR1\n"
	"echo waiting\n"
	"i=0\n"
	"while [ $i -lt 100 ]; do sleep 1; i=$((i + 1)); done\n"
	"echo no signal\n";

static uint32_t
test_signal_start(struct it *t)
{
	struct sbatch_extras x = { 0 };
	struct slurm_submit_req req;
	struct strbuf err = STRBUF_INIT;
	char name[128], out[4096];
	uint32_t id = 0;

	printf("# --signal=B:USR1@55 reaches the batch shell (started)\n");
	if (check(t, sbatch_extras_add(&x, "--signal=B:USR1@55", &err) == 0,
	          "directive --signal=B:USR1@55 %s", err.buf)) {
		base_req(t, &req, "signal", signal_script, name, sizeof name,
		         out, sizeof out);
		req.time_limit_min = 1;
		req.extras = &x;
		id = submit(t, &req);
	}
	strbuf_release(&err);
	return id;
}

static void
test_signal_finish(struct it *t, uint32_t id)
{
	struct slurm_job job;
	char *text;

	printf("# --signal=B:USR1@55 reaches the batch shell\n");
	if (id == 0 ||
	    !check(t, wait_final(t, id, &job), "job %u ends", (unsigned)id))
		return;
	text = job_output(t, "signal", id);
	check(t, job.state == JOB_ST_COMPLETED &&
	      strstr(text, "caught USR1\n") != NULL,
	      "job %u caught USR1 before its limit and ended COMPLETED "
	      "(got %s, output \"%s\")", (unsigned)id,
	      job_state_name(job.state), text);
	free(text);
}

/* An unknown partition is refused, with the controller's reason. */
static void
test_rejected(struct it *t)
{
	struct slurm_submit_req req;
	struct strbuf err = STRBUF_INIT;
	char name[128], out[4096];
	uint32_t id = 0;
	double t0;
	int ret;

	printf("# a request the controller refuses\n");
	base_req(t, &req, "badpart", "#!/bin/sh\ntrue\n", name, sizeof name,
	         out, sizeof out);
	req.partition = "no-such-partition";
	t0 = now_s();
	ret = slurm_submit(t->conn, &req, &id, &err);
	/* ESLURM_INVALID_PARTITION_NAME's text (slurm_errno.c) */
	check(t, ret == SLURM_E_REJECTED &&
	      strstr(err.buf, "Invalid partition name specified"),
	      "unknown partition -> SLURM_E_REJECTED (%d: %s)", ret, err.buf);
	check(t, now_s() - t0 < 1.0, "a refusal is not retried (%.2f s)",
	      now_s() - t0);
	strbuf_release(&err);
}

/* A port nobody listens on: bind to port 0, note it, close. */
static int
unused_port(void)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Copy slurm.conf into dir with the controller on a closed port. */
static char *
dead_conf(struct it *t, const char *conf, int port)
{
	char *path = xasprintf("%s/dead-slurm.conf", t->dir);
	FILE *in = fopen(conf, "r"), *out = fopen(path, "w");
	char line[4096];

	if (in == NULL || out == NULL) {
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		free(path);
		return NULL;
	}
	while (fgets(line, sizeof line, in))
		if (strncmp(line, "SlurmctldPort=", 14) &&
		    strncmp(line, "MessageTimeout=", 15))
			fputs(line, out);
	fprintf(out, "SlurmctldPort=%d\nMessageTimeout=%d\n", port,
	        DEAD_MSG_TIMEOUT_S);
	fclose(in);
	fclose(out);
	return path;
}

/* With the controller unreachable, submit and poll say so, quickly. */
static void
test_unreachable(struct it *t)
{
	const char *conf = getenv("SLURM_CONF");
	char *saved = xstrdup(conf), *dead;
	struct slurm_submit_req req;
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *jobs;
	char name[128], out[4096];
	uint32_t id = 0;
	int port = unused_port(), ret, n;
	double t0, dt;

	printf("# a controller that cannot be reached (port %d)\n", port);
	dead = dead_conf(t, conf, port);
	if (!check(t, dead != NULL && port > 0, "wrote %s",
	           dead ? dead : "no copy of slurm.conf"))
		goto cleanup;
	slurm_close(t->conn);
	setenv("SLURM_CONF", dead, 1);
	t->conn = slurm_open(&err);
	if (!check(t, t->conn != NULL, "slurm_open with it %s", err.buf))
		goto restore;

	base_req(t, &req, "dead", "#!/bin/sh\ntrue\n", name, sizeof name,
	         out, sizeof out);
	t0 = now_s();
	ret = slurm_submit(t->conn, &req, &id, &err);
	dt = now_s() - t0;
	/* libslurm's own retries last MessageTimeout seconds; ours must
	 * add nothing to a connection failure. */
	check(t, ret == SLURM_E_UNREACHABLE, "submit -> SLURM_E_UNREACHABLE "
	      "(%d: %s)", ret, err.buf);
	check(t, dt < DEAD_MSG_TIMEOUT_S + 2, "in %.1f s (MessageTimeout=%d)",
	      dt, DEAD_MSG_TIMEOUT_S);
	t0 = now_s();
	ret = slurm_poll(t->conn, &jobs, &n, &err);
	dt = now_s() - t0;
	check(t, ret == SLURM_E_UNREACHABLE && n == 0, "poll -> "
	      "SLURM_E_UNREACHABLE (%d: %s)", ret, err.buf);
	check(t, dt < DEAD_MSG_TIMEOUT_S + 2, "in %.1f s", dt);
	slurm_close(t->conn);
restore:
	setenv("SLURM_CONF", saved, 1);
	t->conn = slurm_open(&err);
	check(t, t->conn != NULL, "slurm_open again with the real config");
cleanup:
	free(dead);
	free(saved);
	strbuf_release(&err);
}

/* A SLURM_CONF that does not exist is reported, not fatal. */
static void
test_no_conf(struct it *t)
{
	char *saved = xstrdup(getenv("SLURM_CONF"));
	struct strbuf err = STRBUF_INIT;
	struct slurm_conn *c;

	setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
	c = slurm_open(&err);
	check(t, c == NULL && strstr(err.buf, "/nonexistent/slurm.conf"),
	      "a missing SLURM_CONF is an error (%s)", err.buf);
	if (c)
		slurm_close(c);
	setenv("SLURM_CONF", saved, 1);
	free(saved);
	strbuf_release(&err);
}

/* With slurmdbd stopped (by slurm-api.sh), accounting says so, quickly;
 * the controller still answers. */
static void
test_slurmdbd_down(struct it *t)
{
	struct strbuf err = STRBUF_INIT;
	const struct slurm_job *jobs;
	uint32_t id = 1;
	double t0 = now_s();
	int ret, n;

	printf("# slurmdbd stopped\n");
	ret = slurm_accounting(t->conn, &id, 1, NULL, 0, &jobs, &n, &err);
	check(t, ret == SLURM_E_UNREACHABLE && n == 0 &&
	      strstr(err.buf, "slurmdbd"), "accounting -> SLURM_E_UNREACHABLE "
	      "(%d: %s)", ret, err.buf);
	check(t, now_s() - t0 < 5.0, "in %.1f s", now_s() - t0);
	ret = slurm_accounting(t->conn, NULL, 0, t->tag, 0, &jobs, &n, &err);
	check(t, ret == SLURM_E_UNREACHABLE, "and again by name (%d: %s)",
	      ret, err.buf);
	strbuf_reset(&err);
	ret = slurm_poll(t->conn, &jobs, &n, &err);
	check(t, ret == SLURM_E_OK, "the controller still answers polls "
	      "(%d: %s)", ret, err.buf);
	strbuf_release(&err);
}

/* Remove the scratch directory (flat: only job outputs). */
static void
remove_dir(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	if (system(cmd) != 0)
		fprintf(stderr, "warning: cannot remove %s\n", dir);
	free(cmd);
}

int
main(int argc, char **argv)
{
	bool dbd_down = argc > 1 && !strcmp(argv[1], "--slurmdbd-down");
	struct it t;
	struct strbuf err = STRBUF_INIT;
	char dir[] = "/tmp/paratune-slurm-api.XXXXXX";

	memset(&t, 0, sizeof t);
	if (getenv("SLURM_CONF") == NULL) {
		fprintf(stderr, "error: SLURM_CONF is not set: run "
		        "tests/integration/slurm-api.sh, or eval \"$("
		        "scripts/testbed env)\" first\n");
		return 1;
	}
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	chmod(dir, 0755); /* the jobs write here as the submitting user */
	t.dir = dir;
	snprintf(t.tag, sizeof t.tag, "ptit%ld-%ld", (long)getpid(),
	         (long)time(NULL) % 100000);
	t.conn = slurm_open(&err);
	check(&t, t.conn != NULL, "slurm_open %s", err.buf);
	if (t.conn && dbd_down) {
		test_slurmdbd_down(&t);
	} else if (t.conn) {
		uint32_t signal_job = test_signal_start(&t);

		test_two_node_job(&t);
		test_exit_code(&t);
		test_hold(&t);
		test_extras(&t);
		test_rejected(&t);
		test_no_conf(&t);
		test_unreachable(&t);
		test_signal_finish(&t, signal_job);
	}
	if (t.conn)
		slurm_close(t.conn);
	strbuf_release(&err);
	if (t.failed == 0)
		remove_dir(dir);
	else
		printf("# job outputs kept in %s\n", dir);
	printf("%d passed, %d failed\n", t.passed, t.failed);
	return t.failed == 0 && t.passed > 0 ? 0 : 1;
}
