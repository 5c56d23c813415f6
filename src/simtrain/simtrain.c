/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * simtrain.c - main() of paratune-simtrain: the launcher's environment,
 * the training loop, injected faults and signals.
 *
 * Every rank runs the same loop and sleeps the same simulated step time
 * divided by PARATUNE_SIM_SPEEDUP, so that Slurm sees a job of the right
 * shape; only the ranks Megatron-LM prints from print (rank 0 its setup
 * and exit lines, the last rank the iteration lines, the first
 * data-parallel replica its memory).  Step time is the estimator's, with
 * a per-configuration bias of up to 5 % and per-step noise of up to 3 %
 * drawn from a hash of the flags, so the same command prints the same
 * numbers, and measured times differ from predicted ones as they do on
 * real clusters.
 *
 * Signals: Megatron-LM leaves SIGTERM at its default (death) unless it is
 * started with --exit-signal-handler; the simulation always behaves as
 * with that flag (finish the step, print Megatron's exit line, exit 0),
 * which is what a campaign's templates should ask of the real program.
 * SIGINT, and the signal --exit-signal names (SIGUSR2 in the templates:
 * srun forwards it, where it turns SIGTERM into SIGKILL), are treated the
 * same way.  The exit line is Megatron-LM's own, which names SIGTERM
 * whatever the signal: print_datetime('exiting program after receiving
 * SIGTERM.') in checkpoint_and_decide_exit, megatron/training/training.py
 * (NVIDIA/Megatron-LM d98e8a6).
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>

#include "simtrain.h"
#include "util.h"

/*
 * The signal that arrived, 0 while none has.  The one piece of global
 * mutable state in the program: a signal handler can reach nothing else.
 */
static volatile sig_atomic_t simtrain_signal;

/* Keep the signal for the training loop to act on at a step's end. */
static void
simtrain_on_signal(int sig)
{
	simtrain_signal = sig;
}

/* SIGTERM, SIGINT and --exit-signal (a name of exit_signal_choices). */
static void
simtrain_install_signals(const char *exit_signal)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "SIGHUP", SIGHUP }, { "SIGINT", SIGINT },
		{ "SIGQUIT", SIGQUIT }, { "SIGUSR1", SIGUSR1 },
		{ "SIGUSR2", SIGUSR2 }, { "SIGTERM", SIGTERM },
	};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = simtrain_on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a sleep returns early and resumes explicitly. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(exit_signal, names[i].name))
			sigaction(names[i].sig, &sa, NULL);
}

/* Sleep s seconds whatever signals arrive meanwhile. */
static void
simtrain_sleep(double s)
{
	struct timespec ts, rest;

	if (!(s > 0) || !isfinite(s))
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &rest) == -1 && errno == EINTR)
		ts = rest;
}

/* Seconds on a clock that does not jump, for --exit-duration-in-mins. */
static double
simtrain_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A hang: nothing more is printed, and SIGTERM changes nothing (a rank
 * stuck in a collective never reaches the loop that checks it), so only
 * Slurm's SIGKILL after KillWait ends it.  SIGINT ends it with 130, for a
 * person at a terminal.
 */
static int
simtrain_hang(void)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (simtrain_signal != SIGINT)
		sigsuspend(&old);
	return SIMTRAIN_EXIT_INTERRUPT;
}

/* End as torch does after the NCCL watchdog's exception: SIGABRT. */
static void
simtrain_abort(void)
{
	struct rlimit no_core = { 0, 0 };

	fflush(NULL);
	/* A simulated crash should leave no core file behind. */
	setrlimit(RLIMIT_CORE, &no_core);
	signal(SIGABRT, SIG_DFL);
	abort();
}

/* ---- the environment --------------------------------------------------- */

static int env_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int
env_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", SIMTRAIN_PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return SIMTRAIN_EXIT_USAGE;
}

/*
 * The first of two variables that is set, as an integer (a leading
 * integer for SLURM_NTASKS_PER_NODE's "8(x2)"); fallback when neither.
 */
static int
env_int(const char *name, const char *alt, int fallback, int *out)
{
	const char *which = getenv(name) ? name : alt;
	const char *v = which ? getenv(which) : NULL;
	char digits[16];
	size_t n;

	*out = fallback;
	if (!v)
		return 0;
	n = strspn(v, "0123456789");
	if (n == 0 || n >= sizeof(digits) ||
	    (v[n] != '\0' && strcmp(which, "SLURM_NTASKS_PER_NODE")))
		return env_error("%s is not a number: '%s'", which, v);
	memcpy(digits, v, n);
	digits[n] = '\0';
	return parse_int(digits, out) ? env_error("%s is out of range: '%s'",
	                                          which, v)
	                              : 0;
}

/* PARATUNE_SIM_FAULT: KIND[:STEP]. */
static int
parse_fault(const char *s, int train_iters, struct simtrain_fault *f)
{
	static const struct {
		const char *name;
		enum simtrain_fault_kind kind;
		bool takes_step;
	} kinds[] = {
		{ "nccl_timeout", FAULT_NCCL_TIMEOUT, true },
		{ "nan", FAULT_NAN, true },
		{ "hang", FAULT_HANG, true },
		{ "crash", FAULT_CRASH, true },
		{ "oom", FAULT_OOM, false },
		{ "hang_after_finish", FAULT_HANG_AFTER_FINISH, false },
	};
	const char *colon = s ? strchr(s, ':') : NULL;
	size_t len = colon ? (size_t)(colon - s) : (s ? strlen(s) : 0);

	f->kind = FAULT_NONE;
	/* Without a step, halfway through the run. */
	f->step = train_iters > 1 ? (train_iters + 1) / 2 : 1;
	if (!s || !*s)
		return 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].name) != len ||
		    strncmp(kinds[i].name, s, len))
			continue;
		f->kind = kinds[i].kind;
		if (!colon)
			return 0;
		if (!kinds[i].takes_step)
			return env_error("PARATUNE_SIM_FAULT: '%s' takes no "
			                 "step", kinds[i].name);
		if (parse_int(colon + 1, &f->step) || f->step < 1)
			return env_error("PARATUNE_SIM_FAULT: step must be a "
			                 "positive integer: '%s'", colon + 1);
		return 0;
	}
	return env_error("PARATUNE_SIM_FAULT: unknown fault '%s' (nccl_timeout"
	                 "[:STEP], nan[:STEP], hang[:STEP], crash[:STEP], "
	                 "oom, hang_after_finish)", s);
}

/* Ranks as torchrun or srun give them; Megatron reads RANK and
 * WORLD_SIZE, and LOCAL_RANK falls back to SLURM_LOCALID. */
static int
read_env(struct simtrain_job *j)
{
	struct utsname u;
	int status;

	if ((status = env_int("WORLD_SIZE", "SLURM_NTASKS", 1, &j->world)) ||
	    (status = env_int("RANK", "SLURM_PROCID", 0, &j->rank)) ||
	    (status = env_int("LOCAL_RANK", "SLURM_LOCALID", 0,
	                      &j->local_rank)))
		return status;
	/* Eight GPUs per node (DGX/HGX H100) unless the launcher says. */
	if ((status = env_int("LOCAL_WORLD_SIZE", "SLURM_NTASKS_PER_NODE",
	                      j->world < 8 ? j->world : 8,
	                      &j->gpus_per_node)))
		return status;
	if (j->world < 1)
		return env_error("WORLD_SIZE must be at least 1: %d", j->world);
	if (j->rank < 0 || j->rank >= j->world)
		return env_error("RANK %d is not below WORLD_SIZE %d", j->rank,
		                 j->world);
	if (j->gpus_per_node < 1 || j->world % j->gpus_per_node != 0)
		j->gpus_per_node = j->world;
	if (parse_fault(getenv("PARATUNE_SIM_FAULT"), j->args.train_iters,
	                &j->fault))
		return SIMTRAIN_EXIT_USAGE;
	snprintf(j->node, sizeof(j->node), "%s",
	         uname(&u) == 0 ? u.nodename : "localhost");
	return 0;
}

/* The catalog entry to pretend to be, copied out of the catalog. */
static int
find_gpu(struct simtrain_job *j)
{
	struct gpu_catalog cat;
	const struct gpu *g;

	gpu_catalog_init(&cat);
	g = gpu_catalog_find(&cat, j->args.gpu);
	if (g)
		j->gpu = *g;
	gpu_catalog_release(&cat);
	if (!g)
		return env_error("argument --paratune-gpu: unknown GPU '%s' "
		                 "(see 'paratune gpus')", j->args.gpu);
	return 0;
}

/* PARATUNE_SIM_SPEEDUP, or one that keeps a step under 0.08 s. */
static int
read_speedup(struct simtrain_job *j)
{
	const char *v = getenv("PARATUNE_SIM_SPEEDUP");

	if (v) {
		if (parse_double(v, &j->speedup) || !(j->speedup > 0))
			return env_error("PARATUNE_SIM_SPEEDUP must be a "
			                 "positive number: '%s'", v);
		return 0;
	}
	j->speedup = j->est.step_s > 0.08 ? j->est.step_s / 0.08 : 1.0;
	return 0;
}

/* ---- what one training run looks like ----------------------------------- */

/*
 * The learning-rate schedule of Llama 2's pretraining (Touvron et al.
 * 2023, arXiv 2307.09288, section 2.2): peak 3.0e-4, 2000 warm-up steps,
 * cosine decay to 10 % of the peak.  Megatron steps the scheduler only
 * after successful updates, and warms up from 0.
 */
#define PEAK_LR 3.0e-4
#define WARMUP_ITERS 2000
#define MIN_LR_FRACTION 0.1

static double
learning_rate(int updates, int train_iters)
{
	double decay, coeff;

	if (updates <= WARMUP_ITERS)
		return PEAK_LR * updates / WARMUP_ITERS;
	decay = (double)(updates - WARMUP_ITERS) /
	        (train_iters > WARMUP_ITERS ? train_iters - WARMUP_ITERS : 1);
	coeff = 0.5 * (cos(M_PI * fmin(decay, 1.0)) + 1.0);
	return PEAK_LR * (MIN_LR_FRACTION + (1 - MIN_LR_FRACTION) * coeff);
}

/*
 * The loss: a fresh model guesses uniformly over the vocabulary (ln V
 * nats) and starts a little above it (10.64 at iteration 20 with V =
 * 50k in the 2024 ja_doc excerpt); it falls towards ~2 nats, where
 * pretraining losses settle (1.8 in the Mixtral excerpts), within a few
 * hundred iterations; 1 % noise.
 */
static double
lm_loss(const struct simtrain_job *j, int it)
{
	double start = log((double)j->model.vocab_size) + 0.5, floor = 2.0;
	double loss = floor + (start - floor) * exp(-it / 300.0);

	return loss * (1 + 0.01 * simtrain_noise(j->seed, STREAM_LOSS,
	                                         (uint64_t)it));
}

/* Gradient norms start in the tens and settle near 1 (47.0 then 6.0 in
 * the ja_doc excerpt, 1.3-1.6 in the Mixtral ones); 10 % noise. */
static double
grad_norm(const struct simtrain_job *j, int it)
{
	return (1.0 + 14.0 * exp(-it / 20.0)) *
	       (1 + 0.1 * simtrain_noise(j->seed, STREAM_GRAD_NORM,
	                                 (uint64_t)it));
}

/* Simulated seconds of iteration it: the first one warms up (CUDA
 * kernels autotuned, allocator pools grown) at three times the rest. */
static double
step_seconds(const struct simtrain_job *j, int it)
{
	/* A truth file's step time carries its own deviations. */
	double bias = j->truth ? 1.0
	              : 1 + 0.05 * simtrain_noise(j->seed, STREAM_BIAS, 0);
	double jitter = 1 + 0.03 * simtrain_noise(j->seed, STREAM_STEP,
	                                          (uint64_t)it);

	return j->est.step_s * bias * jitter * (it == 1 ? 3.0 : 1.0);
}

/* What the loop carries from one iteration to the next. */
struct train_state {
	long long consumed;     /* samples */
	int updates;            /* successful optimizer steps */
	int fp16_skips;         /* overflowing iterations at the start */
	double loss_scale;
	int hysteresis_left, growth_count;
	bool memory_reported;
	/* the current log interval */
	double seconds;
	int iterations, advanced, skipped, nans;
	double loss_sum, grad_norm;
	bool has_grad_norm;
};

/*
 * Megatron's DynamicGradScaler with its defaults (initial scale 2^32,
 * hysteresis 2, growth interval 1000, factors 2 and 0.5): fp16 runs
 * overflow for the first iterations, 8 to 12 here around the 10 of the
 * 2024 ja_doc excerpt (scale 2^32 down to 8388608 = 2^23); bf16 and fp32
 * have no scaler and report 1.0.
 */
static void
train_state_init(struct train_state *s, const struct simtrain_job *j)
{
	memset(s, 0, sizeof(*s));
	s->loss_scale = 1.0;
	if (j->work.precision == PREC_FP16) {
		s->loss_scale = 4294967296.0;
		s->hysteresis_left = 2;
		s->fp16_skips = 10 + (int)lround(2 * simtrain_noise(j->seed,
		                                   STREAM_FP16_SKIPS, 0));
	}
}

static void
scaler_update(struct train_state *s, const struct simtrain_job *j,
              bool found_inf)
{
	if (j->work.precision != PREC_FP16)
		return;
	if (found_inf) {
		s->growth_count = 0;
		if (--s->hysteresis_left <= 0)
			s->loss_scale = fmax(s->loss_scale * 0.5, 1.0);
		return;
	}
	if (++s->growth_count == 1000) {
		s->growth_count = 0;
		s->hysteresis_left = 2;
		s->loss_scale *= 2;
	}
}

/* Fold iteration it, which took seconds, into the state. */
static void
account(struct train_state *s, const struct simtrain_job *j, int it,
        double seconds)
{
	bool nan = j->fault.kind == FAULT_NAN && it >= j->fault.step;
	bool skipped = nan || it <= s->fp16_skips;

	s->consumed += j->layout.gbs;
	s->seconds += seconds;
	s->iterations++;
	scaler_update(s, j, skipped);
	/* A skipped step has no loss to add and no gradient norm. */
	s->has_grad_norm = !skipped;
	if (skipped) {
		s->skipped++;
		s->nans += nan;
		return;
	}
	s->updates++;
	s->advanced++;
	s->loss_sum += lm_loss(j, it);
	s->grad_norm = grad_norm(j, it);
}

/* training_log()'s line, from the last rank (print_rank_last). */
static void
print_iteration(FILE *f, const struct simtrain_job *j,
                const struct train_state *s, int it, double lr)
{
	double per_iter = s->seconds / s->iterations;
	char stamp[32];

	simtrain_timestamp(stamp, sizeof(stamp));
	fprintf(f, " [%s] iteration %8d/%8d | consumed samples: %12lld | "
	        "elapsed time per iteration (ms): %.1f |", stamp, it,
	        j->args.train_iters, s->consumed, per_iter * 1000.0);
	if (j->args.log_throughput)
		fprintf(f, " throughput per GPU (TFLOP/s/GPU): %.1f |",
		        j->est.flops_per_step / (per_iter * 1e12 * j->world));
	fprintf(f, " learning rate: %.6E | global batch size: %5d |", lr,
	        j->layout.gbs);
	/* Only a positive average is printed: none after skipped steps. */
	if (s->advanced > 0 && s->loss_sum > 0)
		fprintf(f, " lm loss: %.6E |", s->loss_sum / s->advanced);
	fprintf(f, " loss scale: %.1f |", s->loss_scale);
	if (s->has_grad_norm)
		fprintf(f, " grad norm: %.3f |", s->grad_norm);
	fprintf(f, " number of skipped iterations: %3d | number of nan "
	        "iterations: %3d |\n", s->skipped, s->nans);
	fflush(f);
}

/* The end of a log interval: the line, then the memory report once the
 * learning rate is positive (after the optimizer state exists). */
static void
end_interval(struct train_state *s, const struct simtrain_job *j, int it)
{
	double lr = learning_rate(s->updates, j->args.train_iters);

	if (j->rank == j->world - 1)
		print_iteration(stdout, j, s, it, lr);
	if (!s->memory_reported && lr > 0) {
		if (j->rank == 0)
			simtrain_print_theoretical_memory(stdout, j);
		if (j->dp_rank == 0)
			simtrain_print_memory(stdout, j, it);
		s->memory_reported = true;
	}
	s->seconds = s->loss_sum = 0;
	s->iterations = s->advanced = s->skipped = s->nans = 0;
}

/* A fault that strikes as iteration it starts; -1 when none does. */
static int
strike(const struct simtrain_job *j, int it)
{
	if (j->fault.step != it)
		return -1;
	switch (j->fault.kind) {
	case FAULT_HANG:
		return simtrain_hang();
	case FAULT_NCCL_TIMEOUT:
		/* The collective waits out the watchdog's 10 minutes. */
		simtrain_sleep(600.0 / j->speedup);
		simtrain_print_nccl_timeout(stderr, j, it);
		simtrain_abort();
		return SIMTRAIN_EXIT_EXCEPTION;
	case FAULT_CRASH:
		simtrain_sleep(step_seconds(j, it) / 2 / j->speedup);
		simtrain_print_crash(stderr, j);
		return SIMTRAIN_EXIT_EXCEPTION;
	default:
		return -1;
	}
}

/* After iteration it: a reason to stop, or -1 to go on. */
static int
stop_after(const struct simtrain_job *j, int it, double start)
{
	double minutes = (simtrain_now() - start) / 60.0;
	const struct simtrain_fault *f = &j->fault;
	char text[64], what[96];

	/* The NaN check fires after three NaN iterations, or at the last
	 * one when the run ends first. */
	if (f->kind == FAULT_NAN && it >= f->step &&
	    (it >= f->step + 2 || it == j->args.train_iters)) {
		simtrain_print_nan_assert(stderr, j);
		return SIMTRAIN_EXIT_EXCEPTION;
	}
	if (simtrain_signal) {
		if (j->rank == 0)
			simtrain_print_datetime(stdout, "exiting program after "
			                        "receiving SIGTERM.");
		return SIMTRAIN_EXIT_OK;
	}
	/* Megatron tests "if args.exit_duration_in_mins:", so 0 is off. */
	if (j->args.exit_duration_in_mins != SIMTRAIN_UNSET &&
	    j->args.exit_duration_in_mins != 0 &&
	    minutes > j->args.exit_duration_in_mins) {
		simtrain_py_float(text, sizeof(text), minutes);
		snprintf(what, sizeof(what), "exiting program after %s minutes",
		         text);
		if (j->rank == 0)
			simtrain_print_datetime(stdout, what);
		return SIMTRAIN_EXIT_OK;
	}
	return -1;
}

static int
train(const struct simtrain_job *j, double start)
{
	struct train_state s;
	int status;

	train_state_init(&s, j);
	for (int it = 1; it <= j->args.train_iters; it++) {
		double seconds;

		if ((status = strike(j, it)) >= 0)
			return status;
		seconds = step_seconds(j, it);
		simtrain_sleep(seconds / j->speedup);
		account(&s, j, it, seconds);
		if (j->args.log_interval > 0 && it % j->args.log_interval == 0)
			end_interval(&s, j, it);
		if ((status = stop_after(j, it, start)) >= 0)
			return status;
	}
	if (j->rank == 0)
		simtrain_print_datetime(stdout, "after training is done");
	fflush(stdout);
	if (j->fault.kind == FAULT_HANG_AFTER_FINISH)
		return simtrain_hang();
	return SIMTRAIN_EXIT_OK;
}

/* Setup as Megatron prints it, failing where Megatron would. */
static int
run(struct simtrain_job *j, const struct simtrain_failure *late,
    double start)
{
	const struct memory_breakdown *m = &j->est.mem;
	double capacity = j->gpu.memory_gib * GIB;
	bool oom = j->fault.kind == FAULT_OOM || m->total > capacity;

	simtrain_print_startup(stdout, j, PHASE_INIT);
	simtrain_print_startup(stdout, j, PHASE_MODEL);
	if (oom && m->weights + m->gradients > capacity) {
		simtrain_print_oom(stderr, j, true);
		return SIMTRAIN_EXIT_EXCEPTION;
	}
	simtrain_print_startup(stdout, j, PHASE_READY);
	if (late || oom)
		simtrain_sleep(step_seconds(j, 1) / 3 / j->speedup);
	if (late) {
		simtrain_print_exception(stderr, late);
		return SIMTRAIN_EXIT_EXCEPTION;
	}
	if (oom) {
		simtrain_print_oom(stderr, j, false);
		return SIMTRAIN_EXIT_EXCEPTION;
	}
	return train(j, start);
}

int
main(int argc, char **argv)
{
	struct simtrain_job j;
	struct simtrain_failure fail;
	double start = simtrain_now();
	int status;

	memset(&j, 0, sizeof(j));
	simtrain_args_init(&j.args);
	if ((status = simtrain_args_parse(&j.args, argc, argv)) != 0)
		return status;
	if (j.args.help) {
		simtrain_args_help(stdout);
		return SIMTRAIN_EXIT_OK;
	}
	if (j.args.version) {
		printf("%s (%s) %s\n", SIMTRAIN_PROG, PACKAGE_NAME,
		       PACKAGE_VERSION);
		return SIMTRAIN_EXIT_OK;
	}
	if ((status = read_env(&j)) || (status = find_gpu(&j)))
		return status;
	/* Lines reach a Slurm output file as they are printed. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	simtrain_install_signals(j.args.exit_signal);
	j.seed = simtrain_args_hash(&j.args, j.world);
	if (simtrain_setup(&j, &fail) != 0 && fail.stage != STAGE_STEP) {
		simtrain_print_exception(stderr, &fail);
		return SIMTRAIN_EXIT_EXCEPTION;
	}
	simtrain_apply_truth(&j);
	if ((status = read_speedup(&j)))
		return status;
	return run(&j, fail.exception ? &fail : NULL, start);
}
