/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm.c - paratune's adapter to Slurm: submission, polling and
 * control through libslurm (accounting is slurm-acct.c; these two and
 * slurm-int.h are the only files that see Slurm's headers).
 *
 * Everything goes through the controller's RPCs and slurmdbd's, never
 * through sbatch/squeue/sacct: one RPC per poll however many jobs a
 * campaign has, and errors as numbers rather than as text to scrape.
 * Written against Slurm 22.05 (Debian 12); the API differences of later
 * releases that touch this file are guarded by SLURM_VERSION_NUMBER, and
 * scripts/slurm-compat compiles it against a description of each
 * (tests/slurm-api: a Slurm name used here must be declared there).
 */
#include "autoconfig.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <arpa/nameser.h>
#include <netinet/in.h>
#include <resolv.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "directive.h"
#include "error.h"
#include "slurm-int.h"
#include "slurm.h"
#include "strbuf.h"
#include "strlist.h"
#include "xalloc.h"

/* Where slurmd keeps the configuration it fetched in configless mode;
 * libslurm reads it there before asking DNS. */
#define SLURM_CONF_CACHE "/run/slurm/conf/slurm.conf"

/* ---- job states ---------------------------------------------------------- */

/* Names as sacct and squeue print them; job_state_string() is internal
 * to libslurm, so paratune keeps its own table. */
static const char *const job_state_names[] = {
	[JOB_ST_PENDING] = "PENDING",
	[JOB_ST_RUNNING] = "RUNNING",
	[JOB_ST_SUSPENDED] = "SUSPENDED",
	[JOB_ST_COMPLETED] = "COMPLETED",
	[JOB_ST_CANCELLED] = "CANCELLED",
	[JOB_ST_FAILED] = "FAILED",
	[JOB_ST_TIMEOUT] = "TIMEOUT",
	[JOB_ST_NODE_FAIL] = "NODE_FAIL",
	[JOB_ST_PREEMPTED] = "PREEMPTED",
	[JOB_ST_BOOT_FAIL] = "BOOT_FAIL",
	[JOB_ST_DEADLINE] = "DEADLINE",
	[JOB_ST_OUT_OF_MEMORY] = "OUT_OF_MEMORY",
	[JOB_ST_UNKNOWN] = "UNKNOWN",
};

/* Slurm's base states (enum job_states, slurm.h) to ours. */
static const enum job_state job_state_by_base[JOB_END] = {
	[JOB_PENDING] = JOB_ST_PENDING,
	[JOB_RUNNING] = JOB_ST_RUNNING,
	[JOB_SUSPENDED] = JOB_ST_SUSPENDED,
	[JOB_COMPLETE] = JOB_ST_COMPLETED,
	[JOB_CANCELLED] = JOB_ST_CANCELLED,
	[JOB_FAILED] = JOB_ST_FAILED,
	[JOB_TIMEOUT] = JOB_ST_TIMEOUT,
	[JOB_NODE_FAIL] = JOB_ST_NODE_FAIL,
	[JOB_PREEMPTED] = JOB_ST_PREEMPTED,
	[JOB_BOOT_FAIL] = JOB_ST_BOOT_FAIL,
	[JOB_DEADLINE] = JOB_ST_DEADLINE,
	[JOB_OOM] = JOB_ST_OUT_OF_MEMORY,
};

/* Name a state. */
const char *
job_state_name(enum job_state s)
{
	return (unsigned)s <= JOB_ST_UNKNOWN ? job_state_names[s] : "UNKNOWN";
}

/* Read a state name back; JOB_ST_UNKNOWN for anything else. */
enum job_state
job_state_parse(const char *s)
{
	for (int i = 0; i < JOB_ST_UNKNOWN; i++)
		if (!strcmp(s, job_state_names[i]))
			return (enum job_state)i;
	return JOB_ST_UNKNOWN;
}

/* Whether a job in state s will not change any more. */
bool
job_state_final(enum job_state s)
{
	return s != JOB_ST_PENDING && s != JOB_ST_RUNNING &&
	       s != JOB_ST_SUSPENDED && s != JOB_ST_UNKNOWN;
}

/*
 * Our state from Slurm's job_state word.  A job being requeued still
 * shows the base state that ended its last run (NODE_FAIL, ...) with a
 * requeue flag above it, but it is going back to the queue under the same
 * id: report it PENDING so that nobody submits it a second time.
 */
enum job_state
slurm_state_from(uint32_t word)
{
	uint32_t base = word & JOB_STATE_BASE;

	if (word & (JOB_REQUEUE | JOB_REQUEUE_HOLD | JOB_REQUEUE_FED |
	            JOB_SPECIAL_EXIT))
		return JOB_ST_PENDING;
	return base < JOB_END ? job_state_by_base[base] : JOB_ST_UNKNOWN;
}

/* Reason names as squeue prints them (job_reason_string() in Slurm
 * 22.05's src/common/slurm_protocol_defs.c, which libslurm does not
 * declare publicly); the rarer limit reasons are shown by number.
 * PartitionConfig is what a job past its partition's MaxTime waits on
 * first in the testbed (Slurm 22.05), PartitionTimeLimit a few seconds
 * later (tests/integration/admin.sh). */
static const char *const job_reason_names[] = {
	[WAIT_PRIORITY] = "Priority",
	[WAIT_DEPENDENCY] = "Dependency",
	[WAIT_RESOURCES] = "Resources",
	[WAIT_PART_NODE_LIMIT] = "PartitionNodeLimit",
	[WAIT_PART_TIME_LIMIT] = "PartitionTimeLimit",
	[WAIT_PART_DOWN] = "PartitionDown",
	[WAIT_PART_INACTIVE] = "PartitionInactive",
	[WAIT_HELD] = "JobHeldAdmin",
	[WAIT_TIME] = "BeginTime",
	[WAIT_LICENSES] = "Licenses",
	[WAIT_ASSOC_JOB_LIMIT] = "AssociationJobLimit",
	[WAIT_ASSOC_RESOURCE_LIMIT] = "AssociationResourceLimit",
	[WAIT_ASSOC_TIME_LIMIT] = "AssociationTimeLimit",
	[WAIT_RESERVATION] = "Reservation",
	[WAIT_NODE_NOT_AVAIL] = "ReqNodeNotAvail",
	[WAIT_HELD_USER] = "JobHeldUser",
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 5, 0)
	/* 25.05 removed front-end nodes (SchedMD/slurm 98a706a) */
	[WAIT_FRONT_END] = "FrontEndDown",
#endif
	[FAIL_DEFER] = "SchedDefer",
	[FAIL_DOWN_PARTITION] = "PartitionDown",
	[FAIL_DOWN_NODE] = "NodeDown",
	[FAIL_BAD_CONSTRAINTS] = "BadConstraints",
	[FAIL_SYSTEM] = "SystemFailure",
	[FAIL_LAUNCH] = "JobLaunchFailure",
	[FAIL_EXIT_CODE] = "NonZeroExitCode",
	[FAIL_TIMEOUT] = "TimeLimit",
	[FAIL_INACTIVE_LIMIT] = "InactiveLimit",
	[FAIL_ACCOUNT] = "InvalidAccount",
	[FAIL_QOS] = "InvalidQOS",
	[WAIT_QOS_THRES] = "QOSUsageThreshold",
	[WAIT_QOS_JOB_LIMIT] = "QOSJobLimit",
	[WAIT_QOS_RESOURCE_LIMIT] = "QOSResourceLimit",
	[WAIT_QOS_TIME_LIMIT] = "QOSTimeLimit",
	[WAIT_CLEANING] = "Cleaning",
	[WAIT_PROLOG] = "Prolog",
	[WAIT_QOS] = "QOSNotAllowed",
	[WAIT_ACCOUNT] = "AccountNotAllowed",
	[WAIT_DEP_INVALID] = "DependencyNeverSatisfied",
	/* The limits a job cannot wait past (reason_blocking). */
	[WAIT_QOS_MAX_WALL_PER_JOB] = "QOSMaxWallDurationPerJobLimit",
	[WAIT_ASSOC_MAX_WALL_PER_JOB] = "AssocMaxWallDurationPerJobLimit",
	[WAIT_PART_CONFIG] = "PartitionConfig",
};

#define JOB_REASON_COUNT \
	(sizeof(job_reason_names) / sizeof(job_reason_names[0]))

/* Fill dst with the reason's name, Slurm's description, or its number. */
void
slurm_reason(char *dst, size_t size, uint32_t reason, const char *desc)
{
	const char *name = reason < JOB_REASON_COUNT
	                   ? job_reason_names[reason] : NULL;

	if (name)
		snprintf(dst, size, "%s", name);
	else if (desc && *desc)
		snprintf(dst, size, "%s", desc);
	else if (reason != WAIT_NO_REASON)
		snprintf(dst, size, "reason-%u", (unsigned)reason);
	else
		dst[0] = '\0';
}

/*
 * The reasons a pending job cannot get past by waiting: a limit of its
 * partition, association or QOS, or a request Slurm cannot meet, which
 * only the sysadmin or a new plan changes.
 */
static const bool reason_blocking[JOB_REASON_COUNT] = {
	[WAIT_PART_TIME_LIMIT] = true, [WAIT_PART_NODE_LIMIT] = true,
	[WAIT_PART_CONFIG] = true, [FAIL_BAD_CONSTRAINTS] = true,
	[FAIL_ACCOUNT] = true, [FAIL_QOS] = true, [WAIT_QOS] = true,
	[WAIT_ACCOUNT] = true, [WAIT_QOS_MAX_WALL_PER_JOB] = true,
	[WAIT_ASSOC_MAX_WALL_PER_JOB] = true,
};

bool
slurm_reason_blocks(const char *reason)
{
	for (size_t i = 0; i < JOB_REASON_COUNT; i++)
		if (reason_blocking[i] && !strcmp(reason, job_reason_names[i]))
			return true;
	return false;
}

/* Split a wait() status as sacct does: "exit:signal". */
void
slurm_exit_status(uint32_t status, int *code, int *sig)
{
	int st = (int)status;

	*code = *sig = 0;
	if (status == NO_VAL)
		return;
	*code = WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		*sig = WTERMSIG(st);
}

/* ---- the connection ------------------------------------------------------ */

/* Copy a possibly NULL string into a fixed field, truncating. */
void
slurm_copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/*
 * Which class of enum slurm_err an errno from libslurm belongs to.  The
 * communication and authentication failures are temporary: the cron
 * run that meets them exits 75 and the next one tries again.  The rest
 * are the controller's answers to this request.
 */
static enum slurm_err
slurm_err_class(int e)
{
	if ((e >= SLURM_COMMUNICATIONS_CONNECTION_ERROR &&
	     e <= SLURM_COMMUNICATIONS_SHUTDOWN_ERROR) ||
	    e == SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR ||
	    (e >= SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR &&
	     e <= SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR) ||
	    (e >= SLURM_E_SOCKET_FIRST &&
	     e <= SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT) ||
	    e == SLURM_PROTOCOL_AUTHENTICATION_ERROR ||
	    (e >= ESLURM_AUTH_CRED_INVALID && e <= ESLURM_AUTH_UNPACK) ||
	    e == ESLURM_DB_CONNECTION || e == ESLURM_DB_CONNECTION_INVALID ||
	    e == ESLURM_IN_STANDBY_MODE || e == ESLURM_IN_STANDBY_USE_BACKUP ||
	    e == SLURM_E_QUEUE_FULL || e == ESLURM_NODES_BUSY ||
	    e == ESLURM_PORTS_BUSY || e == EAGAIN || e == ECONNREFUSED ||
	    e == ETIMEDOUT || e == ECONNRESET || e == EHOSTUNREACH ||
	    e == ENETUNREACH)
		return SLURM_E_UNREACHABLE;
	if (e == ESLURM_INVALID_JOB_ID)
		return SLURM_E_NOT_FOUND;
	if (e == ESLURM_PARTITION_NOT_AVAIL || e == ESLURM_PARTITION_DOWN ||
	    e == ESLURM_RESERVATION_MAINT || e == ESLURM_QOS_THRES)
		return SLURM_E_REFUSED_NOW;
	return SLURM_E_REJECTED;
}

/*
 * Whether a failed submission may be sent again at once: only answers in
 * which the controller said it created nothing and is busy, the set
 * sbatch retries (src/sbatch/sbatch.c, slurm-22-05-8-1 and 26.x).  A
 * send or receive failure is NOT retried here: the job may exist, and
 * the runner finds it by its tag before it would ever submit again.
 */
static bool
slurm_err_busy(int e)
{
	return e == SLURM_E_QUEUE_FULL || e == ESLURM_NODES_BUSY ||
	       e == ESLURM_PORTS_BUSY || e == EAGAIN;
}

/* Put "what: Slurm's text" into err; return the error's class. */
int
slurm_fail(struct strbuf *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		strbuf_reset(err);
		va_start(ap, fmt);
		strbuf_vaddf(err, fmt, ap);
		va_end(ap);
		strbuf_addf(err, ": %s", slurm_strerror(e));
	}
	return slurm_err_class(e);
}

/*
 * libslurm's reason for error e into sb, without the controller where
 * its text names it: "connect failure" of "Unable to contact slurm
 * controller (connect failure)".  For a caller that names the
 * controller itself: runner.c says "cannot reach the Slurm controller:
 * " before a failed poll's text, and with libslurm's the message named
 * the controller twice.
 */
static void
slurm_err_reason(struct strbuf *sb, int e)
{
	static const char head[] = "Unable to contact slurm controller (";
	const char *t = slurm_strerror(e);
	size_t n = strlen(t), h = sizeof head - 1;

	if (n > h + 1 && !strncmp(t, head, h) && t[n - 1] == ')')
		strbuf_add(sb, t + h, n - h - 1);
	else
		strbuf_addstr(sb, t);
}

/* Add NAME=value from our own environment, when it is set. */
static void
slurm_env_pass(struct str_list *env, const char *name, const char *dflt)
{
	const char *v = getenv(name);
	char *kv;

	if (v == NULL && dflt == NULL)
		return;
	kv = xasprintf("%s=%s", name, v ? v : dflt);
	str_list_push(env, kv);
	free(kv);
}

/*
 * The environment a job gets when the caller names none.  sbatch sends
 * its whole environment; paratune sends a small fixed one instead, so
 * that a job started from cron and one started from a login shell run
 * alike, and no token of the submitting shell lands in the controller's
 * state (or in slurmdbd, with AccountingStoreFlags=job_env).  The job
 * script exports what the job needs.  LANG=C keeps tool messages in the
 * English that the log parser reads.  The controller refuses a batch job
 * with no environment at all (ESLURM_ENVIRONMENT_MISSING).
 */
static void
slurm_default_env(struct str_list *env)
{
	/* Debian's login.defs ENV_PATH, without /usr/games. */
	slurm_env_pass(env, "PATH", "/usr/local/bin:/usr/bin:/bin");
	slurm_env_pass(env, "HOME", NULL);
	slurm_env_pass(env, "USER", NULL);
	slurm_env_pass(env, "SLURM_CONF", NULL);
	str_list_push(env, "LANG=C");
}

/* Whether DNS names a controller for configless Slurm (the SRV record
 * libslurm asks for when it has no file). */
static bool
slurm_conf_srv(void)
{
#ifdef HAVE_RES_SEARCH
	unsigned char answer[1024];

	return res_search("_slurmctld._tcp", C_IN, T_SRV, answer,
	                  (int)sizeof answer) > 0;
#else
	return false;
#endif
}

/*
 * Whether libslurm will find a configuration, looking where it looks:
 * SLURM_CONF, the default file, slurmd's configless cache, then DNS.
 * libslurm itself calls fatal() when all fail, which exits the process
 * with its own words; this says which file and what to set instead.
 */
static int
slurm_conf_check(struct strbuf *err)
{
	const char *conf = getenv("SLURM_CONF");

	if (conf && *conf) {
		struct stat st;

		/* libslurm would read a directory as an empty file. */
		if (stat(conf, &st) == 0 && S_ISDIR(st.st_mode))
			errno = EISDIR;
		else if (access(conf, R_OK) == 0)
			return 0;
		strbuf_addf(err, "cannot read SLURM_CONF '%s': %s (set "
		            "SLURM_CONF to the cluster's slurm.conf)", conf,
		            strerror(errno));
		return -1;
	}
	if (access(PARATUNE_SLURM_CONF_DEFAULT, R_OK) == 0 ||
	    access(SLURM_CONF_CACHE, R_OK) == 0 || slurm_conf_srv())
		return 0;
	strbuf_addf(err, "no Slurm configuration: SLURM_CONF is %s, "
	            "'%s' cannot be read and DNS has no _slurmctld._tcp SRV "
	            "record for configless Slurm (set SLURM_CONF to the "
	            "cluster's slurm.conf, publish the SRV record, or build "
	            "paratune --with-slurm=PREFIX or --with-slurm-conf=FILE "
	            "of the Slurm installed here)",
	            conf ? "empty" : "not set", PARATUNE_SLURM_CONF_DEFAULT);
	return -1;
}

#ifdef HAVE_SLURM_INIT
/* What a child said on the pipe fd, up to its end: its first line, without
 * libslurm's "paratune: error: " prefix.  The line names a path, so it
 * may be as long as one; longer, it is cut and says so. */
static void
read_first_line(int fd, struct strbuf *line)
{
	char buf[4200], rest[512];
	size_t len = 0;
	bool cut = false;
	char *p = buf;

	/* Read to the end, so that the child never blocks on a full pipe. */
	for (;;) {
		size_t room = sizeof buf - 1 - len;
		ssize_t n = room ? read(fd, buf + len, room)
		                 : read(fd, rest, sizeof rest);

		if (n == 0 || (n < 0 && errno != EINTR))
			break;
		if (n > 0 && room)
			len += (size_t)n;
		else if (n > 0)
			cut = true;
	}
	buf[len] = '\0';
	if (buf[strcspn(buf, "\n")] == '\0' && cut)
		memcpy(buf + len - 3, "...", 3);
	buf[strcspn(buf, "\n")] = '\0';
	if (!strncmp(p, "paratune: ", 10))
		p += 10;
	if (!strncmp(p, "error: ", 7) || !strncmp(p, "fatal: ", 7))
		p += 7;
	strbuf_addstr(line, p);
}

/*
 * Whether libslurm can parse the configuration it found.  slurm_init()
 * calls fatal() on one it cannot (a directory, a typo), which exits the
 * process with status 1 and libslurm's words only, in the middle of a
 * submit.  A child reads it first; its first complaint goes into err.
 */
static int
slurm_conf_parse(struct strbuf *err)
{
	const char *conf = getenv("SLURM_CONF");
	int fds[2], status = 0;
	pid_t pid;

	if (pipe(fds) != 0)
		return 0;	/* unchecked: libslurm still says why */
	/* What is buffered now would be written by both processes. */
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDERR_FILENO) < 0)
			_exit(0);
		slurm_init(NULL);
		_exit(0);
	}
	close(fds[1]);
	/* Callers say "cannot reach Slurm: " first. */
	strbuf_addstr(err, "configuration");
	if (conf && *conf)
		strbuf_addf(err, " '%s'", conf);
	strbuf_addstr(err, " unusable: ");
	read_first_line(fds[0], err);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		strbuf_reset(err);
		return 0;
	}
	return -1;
}
#endif

/* Initialise libslurm and record who we are. */
struct slurm_conn *
slurm_open(struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct slurm_conn *c;

	if (slurm_conf_check(&why) != 0
#ifdef HAVE_SLURM_INIT
	    || slurm_conf_parse(&why) != 0
#endif
	    ) {
		if (err)
			strbuf_addstr(err, why.buf);
		strbuf_release(&why);
		return NULL;
	}
	strbuf_release(&why);
#ifdef HAVE_SLURM_INIT
	slurm_init(NULL);
#endif
	c = xcalloc(1, sizeof(*c));
	c->uid = getuid();
	c->gid = getgid();
	slurm_default_env(&c->env);
	return c;
}

/* Drop every cached answer and connection, then libslurm itself. */
void
slurm_close(struct slurm_conn *c)
{
	if (c == NULL)
		return;
	if (c->db)
		slurmdb_connection_close(&c->db);
	str_list_clear(&c->env);
	free(c->jobs);
	free(c->acct);
	free(c->cluster);
	free(c->storage);
	free(c);
#ifdef HAVE_SLURM_INIT
	slurm_fini();
#endif
}

/* ---- submission ---------------------------------------------------------- */

/* Pauses between tries of a busy controller: three retries, 3.5 s in
 * all, short enough for a cron run (sbatch waits 1, 2, ... 15 s). */
static const unsigned submit_backoff_ms[] = { 500, 1000, 2000 };

#define SUBMIT_RETRIES \
	(sizeof(submit_backoff_ms) / sizeof(submit_backoff_ms[0]))

/* Sleep ms milliseconds, through signals. */
static void
sleep_ms(unsigned ms)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Count a NULL-terminated environment. */
static uint32_t
env_count(const char *const *env)
{
	uint32_t n = 0;

	while (env[n])
		n++;
	return n;
}

/* Strings a job descriptor borrows while it is submitted. */
struct submit_bufs {
	char gres[128], mem[48], cpus[32];
	char cwd[4096];
};

/* The --mail-type bits of directive.h in Slurm's terms. */
static uint16_t
mail_type_bits(unsigned events)
{
	static const struct { unsigned ours; uint16_t slurm; } map[] = {
		{ MAIL_BEGIN, MAIL_JOB_BEGIN }, { MAIL_END, MAIL_JOB_END },
		{ MAIL_FAIL, MAIL_JOB_FAIL },
		{ MAIL_REQUEUE, MAIL_JOB_REQUEUE },
		{ MAIL_TIME_LIMIT, MAIL_JOB_TIME100 },
		{ MAIL_TIME_LIMIT_90, MAIL_JOB_TIME90 },
		{ MAIL_TIME_LIMIT_80, MAIL_JOB_TIME80 },
		{ MAIL_TIME_LIMIT_50, MAIL_JOB_TIME50 },
	};
	uint16_t bits = 0;

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (events & map[i].ours)
			bits |= map[i].slurm;
	return bits;
}

/*
 * --hint's part in the allocation, as sbatch's verify_hint() sets it:
 * one thread per core but for multithread, one core per socket for
 * memory_bound.  The binding of the tasks is srun's, inside the job,
 * from SLURM_HINT (the runner exports it).
 */
static void
submit_hint(enum cpu_hint h, job_desc_msg_t *d)
{
	switch (h) {
	case HINT_MEMORY_BOUND:
		d->cores_per_socket = 1;
		d->threads_per_core = 1;
		break;
	case HINT_COMPUTE_BOUND:
	case HINT_NOMULTITHREAD:
		d->threads_per_core = 1;
		break;
	case HINT_MULTITHREAD:
	case HINT_NONE:
		break;
	}
}

/*
 * The site's and campaign's extra options (slurm.directives), set on the
 * descriptor field by field as sbatch would from the #SBATCH lines that
 * the controller never reads.  mem and cpus are the caller's buffers.
 */
static void
submit_extras(const struct sbatch_extras *x, job_desc_msg_t *d,
              char *mem, size_t mem_size, char *cpus, size_t cpus_size)
{
	static const uint16_t shared[] = {
		[EXCL_NODE] = JOB_SHARED_NONE, [EXCL_USER] = JOB_SHARED_USER,
		[EXCL_MCS] = JOB_SHARED_MCS,
	};

	if (x->exclusive != EXCL_NONE)
		d->shared = shared[x->exclusive];
	if (x->mem_mb)
		d->pn_min_memory = x->mem_mb;
	if (x->mem_per_cpu_mb)
		d->pn_min_memory = x->mem_per_cpu_mb | MEM_PER_CPU;
	if (x->mem_per_gpu_mb) {
		snprintf(mem, mem_size, "gres/gpu:%" PRIu64, x->mem_per_gpu_mb);
		d->mem_per_tres = mem;
	}
	if (x->cpus_per_task)
		d->cpus_per_task = (uint16_t)x->cpus_per_task;
	if (x->cpus_per_gpu) {
		snprintf(cpus, cpus_size, "gres/gpu:%u", x->cpus_per_gpu);
		d->cpus_per_tres = cpus;
	}
	if (x->time_min)
		d->time_min = x->time_min;
	d->features = (char *)x->constraint;
	d->req_nodes = (char *)x->nodelist;
	d->licenses = (char *)x->licenses;
	d->wckey = (char *)x->wckey;
	d->mail_user = (char *)x->mail_user;
	if (x->mail_type)
		d->mail_type = mail_type_bits(x->mail_type);
	if (x->signal) {
		d->warn_signal = (uint16_t)x->signal;
		d->warn_time = (uint16_t)x->signal_time;
		d->warn_flags = x->signal_batch_only ? KILL_JOB_BATCH : 0;
	}
	if (x->switches) {
		d->req_switch = x->switches;
		if (x->switches_wait_s)
			d->wait4switch = x->switches_wait_s;
	}
	d->network = (char *)x->network;
	submit_hint(x->hint, d);
}

/*
 * Fill a job descriptor from req.  The strings are the caller's: the
 * descriptor only borrows them (libslurm packs them, changes nothing),
 * which is why the const qualifiers are cast away.
 */
static void
submit_desc(const struct slurm_conn *c, const struct slurm_submit_req *req,
            job_desc_msg_t *d, struct submit_bufs *bufs)
{
	slurm_init_job_desc_msg(d);
	d->name = (char *)req->name;
	d->comment = (char *)req->comment;
	d->script = (char *)req->script;
	d->work_dir = req->work_dir ? (char *)req->work_dir : bufs->cwd;
	d->std_out = (char *)req->std_out;
	d->std_err = (char *)req->std_err;
	if (req->time_limit_min > 0)
		d->time_limit = (uint32_t)req->time_limit_min;
	if (req->nodes > 0)
		d->min_nodes = d->max_nodes = (uint32_t)req->nodes;
	if (req->ntasks_per_node > 0) {
		d->ntasks_per_node = (uint16_t)req->ntasks_per_node;
		d->num_tasks = (uint32_t)req->ntasks_per_node *
		               (uint32_t)(req->nodes > 0 ? req->nodes : 1);
	}
	if (req->gpus_per_node > 0 && req->gpu_type) {
		/* A type name is at most 63 characters (slurm.gpu_type). */
		snprintf(bufs->gres, sizeof bufs->gres, GPU_TRES_TYPED_FMT,
		         req->gpu_type, req->gpus_per_node);
		d->tres_per_node = bufs->gres;
	} else if (req->gpus_per_node > 0) {
		snprintf(bufs->gres, sizeof bufs->gres, GPU_TRES_FMT,
		         req->gpus_per_node);
		d->tres_per_node = bufs->gres;
	}
	d->partition = (char *)req->partition;
	d->account = (char *)req->account;
	d->qos = (char *)req->qos;
	d->reservation = (char *)req->reservation;
	d->exc_nodes = (char *)req->exclude;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	if (req->segment_nodes > 0)
		d->segment_size = (uint16_t)req->segment_nodes;
#endif
	if (req->hold)
		d->priority = 0; /* held, as sbatch --hold */
	/* paratune retries a failed node itself, on other nodes and with a
	 * new tag; Slurm's own requeue (JobRequeue=1 by default) would run
	 * the same job id again behind its back. */
	d->requeue = 0;
	d->user_id = c->uid;
	d->group_id = c->gid;
	if (req->extras)
		submit_extras(req->extras, d, bufs->mem, sizeof bufs->mem,
		              bufs->cpus, sizeof bufs->cpus);
	if (req->env) {
		d->environment = (char **)req->env;
		d->env_size = env_count(req->env);
	} else {
		d->environment = c->env.v;
		d->env_size = (uint32_t)c->env.n;
	}
}

bool
slurm_can_segment(void)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	return true;
#else
	return false;
#endif
}

/* Submit a batch job, retrying a busy controller a few times. */
int
slurm_submit(struct slurm_conn *c, const struct slurm_submit_req *req,
             uint32_t *job_id, struct strbuf *err)
{
	job_desc_msg_t desc;
	submit_response_msg_t *resp = NULL;
	struct submit_bufs bufs = { .cwd = "." };
	int e;

	if (req->work_dir == NULL && getcwd(bufs.cwd, sizeof bufs.cwd) == NULL)
		snprintf(bufs.cwd, sizeof bufs.cwd, "/");
	submit_desc(c, req, &desc, &bufs);
	for (unsigned try = 0;; try++) {
		resp = NULL;
		if (slurm_submit_batch_job(&desc, &resp) == SLURM_SUCCESS &&
		    resp)
			break;
		e = errno;
		if (resp)
			slurm_free_submit_response_response_msg(resp);
		if (!slurm_err_busy(e) || try == SUBMIT_RETRIES)
			return slurm_fail(err, e, "cannot submit job '%s'",
			                  req->name ? req->name : "");
		sleep_ms(submit_backoff_ms[try]);
	}
	*job_id = SUBMIT_RESP_JOB_ID(resp);
	if (resp->job_submit_user_msg && *resp->job_submit_user_msg)
		warning("slurm: job %u: %s", (unsigned)*job_id,
		        resp->job_submit_user_msg);
	slurm_free_submit_response_response_msg(resp);
	return SLURM_E_OK;
}

/* ---- the controller's view ----------------------------------------------- */

/* Our record of a job from the controller's record. */
static void
job_from_info(struct slurm_job *j, const slurm_job_info_t *in)
{
	memset(j, 0, sizeof(*j));
	j->job_id = in->job_id;
	slurm_copy(j->name, sizeof j->name, in->name);
	j->state = slurm_state_from(in->job_state);
	slurm_exit_status(in->exit_code, &j->exit_code, &j->exit_signal);
	slurm_reason(j->reason, sizeof j->reason, in->state_reason,
	             in->state_desc);
	slurm_copy(j->nodes, sizeof j->nodes, in->nodes);
	if (in->work_dir && strlen(in->work_dir) < sizeof j->work_dir)
		slurm_copy(j->work_dir, sizeof j->work_dir, in->work_dir);
	j->submit_time = in->submit_time;
	j->start_time = in->start_time;
	j->end_time = in->end_time;
}

/*
 * A failed poll into err; its class.  One that did not reach the
 * controller says what was not done and libslurm's reason alone, "jobs
 * not polled (connect failure)": its caller names the controller
 * (slurm_err_reason).  Any other is said as slurm_fail says it.
 */
static int
poll_fail(struct strbuf *err, int e)
{
	if (slurm_err_class(e) != SLURM_E_UNREACHABLE)
		return slurm_fail(err, e, "cannot load jobs");
	if (err) {
		strbuf_reset(err);
		strbuf_addstr(err, "jobs not polled (");
		slurm_err_reason(err, e);
		strbuf_addch(err, ')');
	}
	return SLURM_E_UNREACHABLE;
}

/* Load this user's jobs from the controller in one RPC. */
int
slurm_poll(struct slurm_conn *c, const struct slurm_job **jobs, int *n,
           struct strbuf *err)
{
	job_info_msg_t *msg = NULL;
	int e;

	*jobs = NULL;
	*n = 0;
	/* Given the time of our last answer, an unchanged controller says
	 * SLURM_NO_CHANGE_IN_DATA instead of sending every job again
	 * (squeue does the same: src/squeue/squeue.c). */
	if (slurm_load_jobs(c->polled ? c->jobs_update : 0, &msg, SHOW_ALL) !=
	    SLURM_SUCCESS) {
		e = errno;
		if (e != SLURM_NO_CHANGE_IN_DATA || !c->polled)
			return poll_fail(err, e);
	} else {
		/* Only the converted records are kept: the caller reads
		 * those, and libslurm's message would double the memory. */
		c->jobs_update = msg->last_update;
		c->polled = true;
		c->njobs = 0;
		for (uint32_t i = 0; i < msg->record_count; i++) {
			const slurm_job_info_t *in = &msg->job_array[i];

			if (in->user_id != (uint32_t)c->uid)
				continue;
			ALLOC_GROW(c->jobs, (size_t)c->njobs + 1,
			           c->jobs_alloc);
			job_from_info(&c->jobs[c->njobs++], in);
		}
		slurm_free_job_info_msg(msg);
	}
	*jobs = c->jobs;
	*n = c->njobs;
	return SLURM_E_OK;
}

/* ---- control ------------------------------------------------------------- */

/*
 * Cancel a job as scancel does by default: SIGKILL to the whole job
 * (src/scancel/scancel.c).  A job that already ended is not an error.
 */
int
slurm_cancel(struct slurm_conn *c, uint32_t job_id, struct strbuf *err)
{
	int e;

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_step_id_t step = SLURM_STEP_ID_INITIALIZER;

	step.job_id = job_id;
	if (slurm_kill_job(step, SIGKILL, 0) == SLURM_SUCCESS)
		return SLURM_E_OK;
#else
	if (slurm_kill_job(job_id, SIGKILL, 0) == SLURM_SUCCESS)
		return SLURM_E_OK;
#endif
	e = errno;
	if (e == ESLURM_ALREADY_DONE)
		return SLURM_E_OK;
	return slurm_fail(err, e, "cannot cancel job %u", (unsigned)job_id);
}

/*
 * Release a held job as `scontrol release` does: an update that sets
 * the priority to INFINITE, which asks the controller to compute it
 * again (src/scontrol/update_job.c, scontrol_hold).  Up to 25.05 by the
 * numeric id through slurm_update_job, as slurm_update_job2 leaks its
 * answer there (src/api/update_config.c, 22.05); job_desc_msg_t lost the
 * numeric job_id in 25.11, so from then on by the id as a string.
 */
int
slurm_release(struct slurm_conn *c, uint32_t job_id, struct strbuf *err)
{
	job_desc_msg_t desc;
	int e = 0;

	slurm_init_job_desc_msg(&desc);
	desc.priority = INFINITE;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	job_array_resp_msg_t *resp = NULL;
	char id[16];

	snprintf(id, sizeof id, "%u", (unsigned)job_id);
	desc.job_id_str = id;
	if (slurm_update_job2(&desc, &resp) != SLURM_SUCCESS)
		e = errno;
	else if (resp && resp->job_array_count > 0)
		e = (int)resp->error_code[0]; /* one job, one answer */
	if (resp)
		slurm_free_job_array_resp(resp);
#else
	desc.job_id = job_id;
	if (slurm_update_job(&desc) != SLURM_SUCCESS)
		e = errno;
#endif
	if (e == 0)
		return SLURM_E_OK;
	return slurm_fail(err, e, "cannot release job %u", (unsigned)job_id);
}
