/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * directive.h - the extra sbatch options of slurm.directives, as paratune
 * applies them to the jobs it submits.
 *
 * paratune submits through libslurm, and the controller reads no
 * "#SBATCH" line: sbatch parses those on the client.  A directive that
 * was only rendered into the script would be silently ignored, so each
 * one is parsed here into the job description's terms, and one that
 * paratune cannot apply, or that would fight what it sets itself (nodes,
 * GPUs, time, partition...), is refused when the campaign is planned.
 * Slurm-free: slurm-submit.c maps the result onto job_desc_msg_t.
 */
#ifndef PARATUNE_DIRECTIVE_H
#define PARATUNE_DIRECTIVE_H

#include <stdbool.h>
#include <stdint.h>

struct strbuf;

/* --mail-type events, as bits. */
enum mail_event {
	MAIL_BEGIN = 1 << 0,
	MAIL_END = 1 << 1,
	MAIL_FAIL = 1 << 2,
	MAIL_REQUEUE = 1 << 3,
	MAIL_TIME_LIMIT = 1 << 4,
	MAIL_TIME_LIMIT_90 = 1 << 5,
	MAIL_TIME_LIMIT_80 = 1 << 6,
	MAIL_TIME_LIMIT_50 = 1 << 7,
};

/* --exclusive: whole nodes, or nodes shared only with the user's own
 * jobs (=user) or with jobs of the same MCS label (=mcs). */
enum exclusive_mode {
	EXCL_NONE = 0,
	EXCL_NODE,
	EXCL_USER,
	EXCL_MCS,
};

/* --hint, as sbatch reads it. */
enum cpu_hint {
	HINT_NONE = 0,
	HINT_COMPUTE_BOUND,
	HINT_MEMORY_BOUND,
	HINT_MULTITHREAD,
	HINT_NOMULTITHREAD,
};

/*
 * What the directives ask for; zero/NULL where unset.  The strings point
 * into the directive strings themselves (after the '='), so they live
 * as long as those do and are never freed here.
 */
struct sbatch_extras {
	enum exclusive_mode exclusive; /* --exclusive[=user|mcs] */
	uint64_t mem_mb;         /* --mem, per node */
	uint64_t mem_per_cpu_mb; /* --mem-per-cpu */
	uint64_t mem_per_gpu_mb; /* --mem-per-gpu */
	unsigned cpus_per_task;  /* --cpus-per-task */
	unsigned cpus_per_gpu;   /* --cpus-per-gpu */
	unsigned time_min;       /* --time-min, minutes */
	const char *constraint;  /* --constraint */
	const char *nodelist;    /* --nodelist */
	const char *licenses;    /* --licenses */
	const char *wckey;       /* --wckey */
	const char *mail_user;   /* --mail-user */
	unsigned mail_type;      /* --mail-type, enum mail_event bits */
	int signal;              /* --signal: the signal number, 0 unset */
	unsigned signal_time;    /* --signal: seconds before the limit */
	bool signal_batch_only;  /* --signal=B:...: the batch shell only */
	unsigned switches;       /* --switches=COUNT: leaf switches at most */
	unsigned switches_wait_s; /* --switches=COUNT@TIME: wait this long */
	unsigned segment;        /* --segment: nodes per segment, 0 unset */
	const char *network;     /* --network */
	enum cpu_hint hint;      /* --hint */
};

/* The --hint value as sbatch spells it ("nomultithread"), NULL for none:
 * srun inside the job reads it from SLURM_HINT. */
const char *cpu_hint_name(enum cpu_hint h);

/* A signal by name, with or without "SIG" (TERM, USR2, ...), or by
 * number, as sbatch's --signal takes it: 0, or -1 when unknown. */
int directive_signal(const char *name, int *sig);

/*
 * Parse one directive ("--mem=64G", "--exclusive") into x.  Returns 0,
 * or -1 with the reason in err (which names the directive).
 */
int sbatch_extras_add(struct sbatch_extras *x, const char *directive,
                      struct strbuf *err);

/* The options sbatch_extras_add() accepts, for messages and --help. */
extern const char sbatch_extras_supported[];

#endif
