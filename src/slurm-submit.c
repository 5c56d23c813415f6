/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm-submit.c - submitting a batch job: the job descriptor built
 * from a paratune request and the site's extra options, as sbatch would
 * build it from #SBATCH lines, and the retries of a busy controller.
 * Kept apart because it is the one place that maps directive.h's
 * options onto Slurm's job_desc_msg_t.
 */
#include "autoconfig.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "directive.h"
#include "error.h"
#include "slurm-int.h"
#include "slurm.h"
#include "strbuf.h"
#include "strlist.h"

/* ---- submission ---------------------------------------------------------- */

/* Pauses between tries of a busy controller: three retries, 3.5 s in
 * all, short enough for a cron run (sbatch waits 1, 2, ... 15 s). */
static const unsigned submit_backoff_ms[] = { 500, 1000, 2000 };

#define SUBMIT_RETRIES \
	(sizeof(submit_backoff_ms) / sizeof(submit_backoff_ms[0]))

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

/*
 * A hung controller (stopped, or stuck on a lock) takes the request and
 * answers nothing: "Socket timed out on send/recv operation" said
 * neither who did not answer nor that the job may exist all the same
 * (the controller makes it when it comes back), so the user who read
 * "cannot submit" was left to wonder whether to submit it by hand.
 */
static void
submit_timeout_note(struct strbuf *err, const char *tag)
{
	if (err)
		strbuf_addf(err, " (the Slurm controller did not answer in "
		            "time: the job may exist; resume looks for '%s' "
		            "before it submits again)", tag ? tag : "");
}

/*
 * Send desc once: true with *resp, or false with libslurm's errno in *e,
 * said into err (with what libslurm logged where it gives the reason:
 * slurm-said.c) and its class in *ret.
 */
static bool
submit_try(job_desc_msg_t *desc, submit_response_msg_t **resp,
           const struct slurm_submit_req *req, struct strbuf *err,
           int *e, int *ret)
{
	struct slurm_said said;
	bool ok;

	*resp = NULL;
	*e = 0;
	slurm_said_begin(&said);
	ok = slurm_submit_batch_job(desc, resp) == SLURM_SUCCESS && *resp;
	if (!ok)
		*e = errno;
	slurm_said_end(&said, *e);
	if (!ok) {
		if (*resp)
			slurm_free_submit_response_response_msg(*resp);
		*resp = NULL;
		*ret = slurm_fail(err, *e, "cannot submit job '%s'",
		                  req->name ? req->name : "");
		slurm_said_add(&said, err);
		if (*e == SLURM_E_SOCKET_TIMEOUT)
			submit_timeout_note(err, req->name);
	}
	slurm_said_release(&said);
	return ok;
}

/* Submit a batch job, retrying a busy controller a few times. */
int
slurm_submit(struct slurm_conn *c, const struct slurm_submit_req *req,
             uint32_t *job_id, struct strbuf *err)
{
	job_desc_msg_t desc;
	submit_response_msg_t *resp = NULL;
	struct submit_bufs bufs = { .cwd = "." };
	int e, ret;

	if (req->work_dir == NULL && getcwd(bufs.cwd, sizeof bufs.cwd) == NULL)
		snprintf(bufs.cwd, sizeof bufs.cwd, "/");
	submit_desc(c, req, &desc, &bufs);
	for (unsigned try = 0;; try++) {
		if (submit_try(&desc, &resp, req, err, &e, &ret))
			break;
		if (!slurm_err_busy(e) || try == SUBMIT_RETRIES)
			return ret;
		sleep_ms(submit_backoff_ms[try]);
	}
	*job_id = SUBMIT_RESP_JOB_ID(resp);
	if (resp->job_submit_user_msg && *resp->job_submit_user_msg)
		warning("slurm: job %u: %s", (unsigned)*job_id,
		        resp->job_submit_user_msg);
	slurm_free_submit_response_response_msg(resp);
	return SLURM_E_OK;
}
