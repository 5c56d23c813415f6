/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * simtrain-print.c - every line paratune-simtrain prints besides the
 * iteration line, in the words of Megatron-LM (3efa8c2, 2024) and
 * PyTorch.
 *
 * Sources: megatron/training/training.py (print_datetime, the setup
 * lines), megatron/training/utils.py (report_memory),
 * megatron/training/theoretical_memory_usage.py, PyTorch's
 * c10/cuda/CUDACachingAllocator.cpp (the out-of-memory message and
 * format_size) and ProcessGroupNCCL.cpp (the watchdog), as quoted in the
 * real log excerpts of ../shared/data/real-logs/.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simtrain.h"

/* Where pretrain_gpt.py lives in NVIDIA's PyTorch containers' recipes. */
#define MEGATRON_DIR "/workspace/megatron-lm/"
#define MIB (1024.0 * 1024.0)

/* ---- Python's and PyTorch's number formats ---------------------------- */

void
simtrain_py_float(char *buf, size_t len, double v)
{
	/* repr() writes the shortest digits that read back as v; between
	 * 1e-4 and 1e16 that is positional with at least one decimal, and
	 * the fewest decimals that round-trip are those digits. */
	if (v == 0) {
		snprintf(buf, len, "0.0");
		return;
	}
	if (fabs(v) >= 1e-4 && fabs(v) < 1e16) {
		for (int prec = 1; prec <= 24; prec++) {
			snprintf(buf, len, "%.*f", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
		/* "%.1f" of 75682.0 is the shortest already: keep ".0" */
		return;
	}
	snprintf(buf, len, "%.17g", v);
}

void
simtrain_format_size(char *buf, size_t len, double bytes)
{
	/* format_size(): bytes up to 1 KiB, then KiB, MiB and GiB with
	 * two decimals, each unit up to and including 1024 of it. */
	if (bytes <= 1024)
		snprintf(buf, len, "%.0f bytes", bytes);
	else if (bytes <= MIB)
		snprintf(buf, len, "%.2f KiB", bytes / 1024.0);
	else if (bytes <= GIB)
		snprintf(buf, len, "%.2f MiB", bytes / MIB);
	else
		snprintf(buf, len, "%.2f GiB", bytes / GIB);
}

void
simtrain_timestamp(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

void
simtrain_print_datetime(FILE *f, const char *what)
{
	char stamp[32];

	/* '[' + string + '] datetime: {} '.format(time_str): note the
	 * trailing space. */
	simtrain_timestamp(stamp, sizeof(stamp));
	fprintf(f, "[%s] datetime: %s \n", what, stamp);
}

/* ---- tracebacks ---------------------------------------------------------- */

static const struct simtrain_frame outer_args[] = {
	{ "pretrain_gpt.py", 265, "<module>", "pretrain(" },
	{ "megatron/training/training.py", 244, "pretrain",
	  "initialize_megatron(" },
	{ "megatron/training/initialize.py", 66, "initialize_megatron",
	  "validate_args(args, args_defaults)" },
};
static const struct simtrain_frame outer_model[] = {
	{ "pretrain_gpt.py", 265, "<module>", "pretrain(" },
	{ "megatron/training/training.py", 300, "pretrain",
	  "model, optimizer, opt_param_scheduler = "
	  "setup_model_and_optimizer(" },
};
static const struct simtrain_frame outer_step[] = {
	{ "pretrain_gpt.py", 265, "<module>", "pretrain(" },
	{ "megatron/training/training.py", 360, "pretrain",
	  "iteration, num_floating_point_operations_so_far = train(" },
	{ "megatron/training/training.py", 1242, "train",
	  "train_step(forward_step_func," },
	{ "megatron/training/training.py", 726, "train_step",
	  "losses_reduced = forward_backward_func(" },
};

#define SCHEDULES_PY "megatron/core/pipeline_parallel/schedules.py"

/* The schedule's forward (or backward) call for this layout. */
static const struct simtrain_frame *
schedule_frame(const struct layout *l, bool backward)
{
	static const struct simtrain_frame frames[3][2] = {
		{ { SCHEDULES_PY, 450, "forward_backward_no_pipelining",
		    "output_tensor, num_tokens = forward_step(" },
		  { SCHEDULES_PY, 464, "forward_backward_no_pipelining",
		    "backward_step(input_tensor, output_tensor, "
		    "output_tensor_grad, model_type, config)" } },
		{ { SCHEDULES_PY, 1402,
		    "forward_backward_pipelining_without_interleaving",
		    "output_tensor, num_tokens = forward_step(" },
		  { SCHEDULES_PY, 1487,
		    "forward_backward_pipelining_without_interleaving",
		    "input_tensor_grad = backward_step(" } },
		{ { SCHEDULES_PY, 758, "forward_step_helper",
		    "output_tensor, num_tokens = forward_step(" },
		  { SCHEDULES_PY, 803, "backward_step_helper",
		    "input_tensor_grad = backward_step(" } },
	};
	int which = l->pp == 1 ? 0 : l->vp > 1 ? 2 : 1;

	return &frames[which][backward];
}

static void
print_frames(FILE *f, const struct simtrain_frame *fr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  File \"%s%s\", line %d, in %s\n    %s\n",
		        MEGATRON_DIR, fr[i].file, fr[i].line, fr[i].function,
		        fr[i].code);
}

/* "Traceback ..." and the outer frames of a stage. */
static void
print_traceback(FILE *f, enum simtrain_stage stage)
{
	fprintf(f, "Traceback (most recent call last):\n");
	if (stage == STAGE_ARGS)
		print_frames(f, outer_args, sizeof(outer_args) /
		                            sizeof(outer_args[0]));
	else if (stage == STAGE_MODEL)
		print_frames(f, outer_model, sizeof(outer_model) /
		                             sizeof(outer_model[0]));
	else
		print_frames(f, outer_step, sizeof(outer_step) /
		                            sizeof(outer_step[0]));
}

void
simtrain_print_exception(FILE *f, const struct simtrain_failure *fail)
{
	print_traceback(f, fail->stage);
	print_frames(f, fail->frame, 1);
	/* A bare assert prints the type alone. */
	if (fail->message[0])
		fprintf(f, "%s: %s\n", fail->exception, fail->message);
	else
		fprintf(f, "%s\n", fail->exception);
}

/* ---- setup ------------------------------------------------------------ */

/* validate_args, the tokenizer and initialize_megatron (rank 0). */
static void
startup_init(FILE *f, const struct simtrain_job *j)
{
	const struct layout *l = &j->layout;
	int vocab = j->model.vocab_size;
	/* Container start, imports and NCCL set-up: 5-15 s. */
	double init_s = 10.0 + 5.0 * simtrain_noise(j->seed,
	                                            STREAM_INIT_TIME, 0);

	fprintf(f, "using world size: %d, data-parallel size: %d, "
	        "context-parallel size: %d, tensor-model-parallel size: %d, "
	        "encoder-tensor-model-parallel size: 0, pipeline-model-"
	        "parallel size: %d, encoder-pipeline-model-parallel size: 0\n",
	        j->world, l->dp, l->cp, l->tp, l->pp);
	if (j->gbs_defaulted)
		fprintf(f, "setting global batch size to %d\n", l->gbs);
	fprintf(f, "> building %s tokenizer ...\n", j->args.tokenizer_type);
	fprintf(f, " > padded vocab (size: %d) with %d dummy tokens "
	        "(new size: %d)\n", vocab, j->padded_vocab - vocab,
	        j->padded_vocab);
	fprintf(f, "> initializing torch distributed ...\n");
	fprintf(f, "time to initialize megatron (seconds): %.3f\n", init_s);
	simtrain_print_datetime(f, "after megatron is initialized");
}

void
simtrain_print_startup(FILE *f, const struct simtrain_job *j,
                       enum simtrain_phase phase)
{
	switch (phase) {
	case PHASE_INIT:
		if (j->rank == 0)
			startup_init(f, j);
		break;
	case PHASE_MODEL:
		/* get_model(): every rank of the first data-parallel
		 * replica, before the model moves to the GPU. */
		if (j->dp_rank == 0)
			fprintf(f, " > number of parameters on (tensor, "
			        "pipeline) model parallel rank (%d, %d): "
			        "%.0f\n", j->tp_rank, j->pp_rank,
			        j->est.params_per_gpu);
		break;
	case PHASE_READY:
		if (j->rank != 0)
			break;
		simtrain_print_datetime(f, "after model, optimizer, and "
		                        "learning rate scheduler are built");
		simtrain_print_datetime(f, "after dataloaders are built");
		fprintf(f, "done with setup ...\ntraining ...\n");
		simtrain_print_datetime(f, "before the start of training step");
		break;
	}
	fflush(f);
}

/* ---- memory reports ----------------------------------------------------- */

void
simtrain_print_theoretical_memory(FILE *f, const struct simtrain_job *j)
{
	const struct memory_breakdown *m = &j->est.mem;
	double emb = model_embedding_params(&j->model);
	double layers = j->est.params_total - emb;
	double states = (m->weights + m->gradients + m->optimizer) / MIB;

	/* f"{x: .2f}": a space where the sign would go. */
	fprintf(f, "Number of parameters in transformer layers in billions: "
	        "% .2f\n", layers / 1e9);
	fprintf(f, "Number of parameters in embedding layers in billions: "
	        "%.2f\n", emb / 1e9);
	fprintf(f, "Total number of parameters in billions: %.2f\n",
	        j->est.params_total / 1e9);
	fprintf(f, "Number of parameters in most loaded shard in billions: "
	        "%.4f\n", j->est.params_per_gpu / 1e9);
	if (j->layout.pp > 1)
		fprintf(f, "Number of parameters in other shards in billions: "
		        "%.4f\n", layers / (j->layout.pp * j->layout.tp) / 1e9);
	/* Megatron's formula for activations assumes sequence parallel and
	 * selective recompute, and prints them only then. */
	if (!j->layout.sequence_parallel ||
	    j->layout.recompute != RECOMPUTE_SELECTIVE) {
		fprintf(f, "Theoretical memory footprints: weight and "
		        "optimizer=%.2f MB\n", states);
		return;
	}
	fprintf(f, "Theoretical memory footprints: weight and optimizer="
	        "%.2f MB, activation=%.2f MB, total=%.2f MB\n\n", states,
	        m->activations / MIB, states + m->activations / MIB);
}

/* Round up to a multiple of unit bytes. */
static double
round_up(double bytes, double unit)
{
	return ceil(bytes / unit) * unit;
}

void
simtrain_print_memory(FILE *f, const struct simtrain_job *j, int iteration)
{
	const struct memory_breakdown *m = &j->est.mem;
	/* The caching allocator hands out 512-byte blocks and reserves
	 * large ones in 2 MiB steps (CUDACachingAllocator.cpp kMinBlockSize,
	 * kRoundLarge); reserved runs 0.8 % above the peak in the
	 * 2024 ja_doc excerpt (75682.0 against 75078.43 MB). */
	double alloc = round_up(m->weights + m->gradients + m->optimizer, 512);
	double peak = round_up(alloc + m->activations, 512);
	double reserved = round_up(peak * 1.008, 2 * MIB);
	char a[40], p[40], r[40];

	simtrain_py_float(a, sizeof(a), alloc / MIB);
	simtrain_py_float(p, sizeof(p), peak / MIB);
	simtrain_py_float(r, sizeof(r), reserved / MIB);
	fprintf(f, "[Rank %d] (after %d iterations) memory (MB) | allocated: "
	        "%s | max allocated: %s | reserved: %s | max reserved: %s\n",
	        j->rank, iteration, a, p, r, r);
	fflush(f);
}

/* ---- failures ------------------------------------------------------------ */

/* The figures of one out-of-memory message, bytes. */
struct oom_figures {
	double capacity, free, in_use, allocated, unallocated, request;
};

/*
 * Spread what the estimate says over the message's fields.  The real
 * excerpts show 1-4 % of the card free at the failure (577 MiB of
 * 31.74 GiB, 3.02 of 79.25 GiB, 2.93 of 79.11 GiB) and 1-2 GiB in use
 * outside PyTorch's allocator (CUDA context, NCCL; 76.22 - 75.13 GiB in
 * the bionemo excerpt, 76.17 - 68.61 - 5.63 in the ja doc).
 */
static void
oom_figures(const struct simtrain_job *j, double need,
            struct oom_figures *o)
{
	double u1 = simtrain_noise(j->seed, STREAM_OOM, 1) * 0.5 + 0.5;
	double u2 = simtrain_noise(j->seed, STREAM_OOM, 2) * 0.5 + 0.5;
	double u3 = simtrain_noise(j->seed, STREAM_OOM, 3) * 0.5 + 0.5;
	double outside = (1.0 + u1) * GIB;

	o->capacity = j->gpu.memory_gib * GIB;
	o->free = round_up(o->capacity * (0.01 + 0.03 * u2), 2 * MIB);
	o->in_use = o->capacity - o->free;
	o->unallocated = round_up((o->in_use - outside) * 0.01 * (1 + u3),
	                          2 * MIB);
	o->allocated = o->in_use - outside - o->unallocated;
	/* The failing request is what is still missing, and at least more
	 * than what is free, or it would not have failed. */
	o->request = round_up(need - o->allocated, 2 * MIB);
	if (o->request <= o->free + o->unallocated)
		o->request = round_up((o->free + o->unallocated) * (1.2 + u1),
		                      2 * MIB);
}

void
simtrain_print_oom(FILE *f, const struct simtrain_job *j, bool at_setup)
{
	static const struct simtrain_frame to_gpu[] = {
		{ "megatron/training/training.py", 631,
		  "setup_model_and_optimizer",
		  "model = get_model(model_provider_func, model_type)" },
		{ "megatron/training/training.py", 513, "get_model",
		  "model_module.cuda(torch.cuda.current_device())" },
	};
	const struct memory_breakdown *m = &j->est.mem;
	struct oom_figures o;
	char req[32], cap[32], fr[32], use[32], al[32], un[32];

	oom_figures(j, at_setup ? m->weights + m->gradients : m->total, &o);
	simtrain_format_size(req, sizeof(req), o.request);
	simtrain_format_size(cap, sizeof(cap), o.capacity);
	simtrain_format_size(fr, sizeof(fr), o.free);
	simtrain_format_size(use, sizeof(use), o.in_use);
	simtrain_format_size(al, sizeof(al), o.allocated);
	simtrain_format_size(un, sizeof(un), o.unallocated);
	if (at_setup) {
		print_traceback(f, STAGE_MODEL);
		print_frames(f, to_gpu, 2);
	} else {
		print_traceback(f, STAGE_STEP);
		print_frames(f, schedule_frame(&j->layout, false), 1);
	}
	fprintf(f, "torch.OutOfMemoryError: CUDA out of memory. Tried to "
	        "allocate %s. GPU %d has a total capacity of %s of which %s "
	        "is free. Including non-PyTorch memory, this process has %s "
	        "memory in use. Of the allocated memory %s is allocated by "
	        "PyTorch, and %s is reserved by PyTorch but unallocated. If "
	        "reserved but unallocated memory is large try setting "
	        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
	        "fragmentation.  See documentation for Memory Management  "
	        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-"
	        "variables)\n", req, j->local_rank, cap, fr, use, al, un);
	fflush(f);
}

/* glog's prefix as torch.distributed prints it: "[rank3]:[E321
 * 02:07:08.408271257 ProcessGroupNCCL.cpp:607] ". */
static void
glog_prefix(FILE *f, int rank, int line)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	fprintf(f, "[rank%d]:[E%02d%02d %02d:%02d:%02d.%09ld "
	        "ProcessGroupNCCL.cpp:%d] ", rank, tm.tm_mon + 1, tm.tm_mday,
	        tm.tm_hour, tm.tm_min, tm.tm_sec, (long)ts.tv_nsec, line);
}

void
simtrain_print_nccl_timeout(FILE *f, const struct simtrain_job *j,
                            int iteration)
{
	const struct layout *l = &j->layout;
	/* The gradient reduction of the data-parallel group (PG 1): a
	 * reduce-scatter with the distributed optimizer or FSDP, else
	 * all-reduce; a few collectives per iteration after a few at
	 * setup. */
	bool sharded = l->distributed_optimizer || l->fsdp;
	double numel = round(j->est.params_per_gpu);
	double out = sharded ? ceil(numel / l->dp) : numel;
	const char *op = sharded ? "_REDUCE_SCATTER_BASE" : "ALLREDUCE";
	int seq = 4 * iteration + 3;
	/* Megatron's --distributed-timeout-minutes defaults to 10. */
	long ran = 600000 + 31 + lround(30 * simtrain_noise(j->seed,
	                                                    STREAM_NCCL, 0));
	char work[200];

	snprintf(work, sizeof(work), "WorkNCCL(SeqNum=%d, OpType=%s, "
	         "NumelIn=%.0f, NumelOut=%.0f, Timeout(ms)=600000)", seq, op,
	         numel, out);
	glog_prefix(f, j->rank, 607);
	fprintf(f, "[Rank %d] Watchdog caught collective operation timeout: "
	        "%s ran for %ld milliseconds before timing out.\n", j->dp_rank,
	        work, ran);
	glog_prefix(f, j->rank, 1664);
	fprintf(f, "[PG 1 Rank %d] Exception (either an error or timeout) "
	        "detected by watchdog at work: %d, last enqueued NCCL work: "
	        "%d, last completed NCCL work: %d.\n", j->dp_rank, seq,
	        seq + 2, seq - 1);
	fprintf(f, "terminate called after throwing an instance of "
	        "'c10::DistBackendError'\n  what():  [PG 1 Rank %d] Process "
	        "group watchdog thread terminated with exception: [Rank %d] "
	        "Watchdog caught collective operation timeout: %s ran for %ld "
	        "milliseconds before timing out.\nException raised from "
	        "checkTimeout at /opt/pytorch/pytorch/torch/csrc/distributed/"
	        "c10d/ProcessGroupNCCL.cpp:567 (most recent call first):\n",
	        j->dp_rank, j->dp_rank, work, ran);
	fflush(f);
}

void
simtrain_print_nan_assert(FILE *f, const struct simtrain_job *j)
{
	static const struct simtrain_frame loss[] = {
		{ SCHEDULES_PY, 282, "forward_step",
		  "outputs = loss_func(output_tensor)" },
		{ "pretrain_gpt.py", 157, "loss_func",
		  "assert not loss[0].isnan(), (" },
	};

	print_traceback(f, STAGE_STEP);
	print_frames(f, schedule_frame(&j->layout, false), 1);
	print_frames(f, loss, 2);
	fprintf(f, "AssertionError: Rank %d: found NaN in local forward loss "
	        "calculation. Device: %d, node: %s\n", j->rank, j->local_rank,
	        j->node);
	fflush(f);
}

void
simtrain_print_crash(FILE *f, const struct simtrain_job *j)
{
	static const struct simtrain_frame backward = {
		SCHEDULES_PY, 366, "backward_step",
		"torch.autograd.backward(output_tensor[0], "
		"grad_tensors=output_tensor_grad[0])"
	};

	print_traceback(f, STAGE_STEP);
	print_frames(f, schedule_frame(&j->layout, true), 1);
	print_frames(f, &backward, 1);
	fprintf(f, "RuntimeError: CUDA error: an illegal memory access was "
	        "encountered\nCUDA kernel errors might be asynchronously "
	        "reported at some other API call, so the stacktrace below "
	        "might be incorrect.\nFor debugging consider passing "
	        "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to "
	        "enable device-side assertions.\n\n");
	fflush(f);
}
