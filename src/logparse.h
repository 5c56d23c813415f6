/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse.h - read training logs: steps, step times, memory, failures.
 *
 * Formats, detected per file: the one with the most step records, or the
 * one whose step-time key appears when there is no record at all:
 *   megatron    " [ts] iteration 10/ 500 | key: value | ... |" (Megatron-LM
 *               2020 to today, Megatron-DeepSpeed, Megatron-Bridge);
 *               "elapsed time per iteration (ms)" is the step time
 *   nemo2       "Training epoch 0, iteration 9/49 | key: value | ..."
 *               (NeMo 2.0); "train_step_timing in s" is the step time
 *   nemo1       tqdm bars "Epoch 0: :  33%|███ | 10/30 [00:28<00:57,
 *               key=value, ...]" (NeMo 1.x); "train_step_timing in s"
 *   torchtitan  "step: 10  loss:  9.1234  memory: 33.24GiB(34.99%)
 *               tps: 7,123  tflops: 412.5  mfu: 41.7%"
 *
 * What a step is.  The step number is what the log prints: Megatron's
 * iteration (1-based, one record per --log-interval), NeMo 2.0's
 * global_step (0-based; iteration when absent, since iteration restarts
 * at every epoch), the tqdm counter of a NeMo 1.x bar, counted on from
 * epoch to epoch as it restarts at each (its global_step postfix is
 * rounded to three digits, "3.2e+4"), torchtitan's step.
 * Records are deduplicated by step number: redrawn progress bars and
 * several ranks print the same step, and a run restarted from a checkpoint
 * prints steps again.  The FIRST complete record of a step is kept (a
 * later one replaces it only when the first had no step time): every copy
 * carries the same values, and the first one has the line where the step
 * was first seen, so failures after it are after it.
 *
 * Step time.  torchtitan prints no step time, and deriving one from tps
 * needs the tokens per step, which the log does not print: its steps
 * carry tokens_per_s, and their time is that between the time stamps of
 * two step lines over the steps between them (clocked_steps), the lines
 * of one rank, the first seen, where every rank prints its own (named
 * by torchrun's "[rank3]:" or srun -l's "3: ").  A NeMo 1.x bar without
 * train_step_timing (tqdm's smoothed "s/it" covers validation and data
 * loading too) has no step time either.
 *
 * Lines.  A line ends at "\n", "\r" or the two characters "^M" (a carriage
 * return pasted as text); line numbers count "\n" only, as grep -n and
 * sed do, so every record of a carriage-return progress bar has the line
 * number of its physical line.  ANSI colour sequences are removed.  Lines
 * longer than LOGPARSE_LINE_MAX are matched on their first
 * LOGPARSE_LINE_MAX bytes and counted in long_lines; reading goes on
 * after them.  Several records glued on one line are all found.  The last
 * line of a file that does not end in a line break may have been cut
 * mid-value ("elapsed time per iteration (ms): 12" from "1234.5"): it is
 * searched for failures but gives no step, and truncated is set.  NUL
 * bytes (a binary or corrupt file) are counted, never fatal: the steps
 * before and after them are kept.
 *
 * Global batch size: the one a record reports (Megatron-LM's "global
 * batch size", NeMo 2.0's global_batch_size; NeMo 1.x and torchtitan
 * print none) is kept with its step.  The steps measured are those
 * logged once it took its last value: the steps before, of a batch-size
 * ramp-up (Megatron-LM's --rampup-batch-size) or of an earlier run in
 * the same file, took the time of another batch.
 *
 * Finished: the last step equals the run's total (Megatron "I/N" with
 * I = N, NeMo 2.0 iteration or global_step N of N, a NeMo 1.x bar whose
 * step, counted over its epochs, is its total) or the log says so
 * ("[after training is done]", "`Trainer.fit` stopped: `max_steps=N`
 * reached", torchtitan's "Training completed").  A time limit after that
 * is hung_after_finish, not timeout.
 *
 * Memory is bounded whatever the file size: one line of at most
 * LOGPARSE_LINE_MAX bytes, a 64 KiB read buffer, and one record per
 * distinct step, at most LOGPARSE_STEPS_MAX (steps_capped is set past it).
 *
 * Failures: see failure.h for the classes and their priority.  The first
 * evidence line of each class is kept; evidence of "unknown" (an exception
 * we do not recognise), "exit_nonzero", "preempted" and "node_fail" is
 * dropped when steps were logged after it: training went on (an in-job
 * restart, an exception that was caught, a job Slurm requeued writing
 * on in the same log), so it did not end the run.  Another copy of the
 * highest step logged (other ranks print it too) is no step after it.
 * First logged on or after the line where the run finished, the two are
 * its teardown's, and so are NCCL's timeouts and errors (a rank that
 * left first): kept in seen[], left out of the root cause.
 *
 * Extra patterns (logparse_add_pattern) are PCRE2 regexes, matched on
 * every line, with optional named groups:
 *   step             the step number: each match is a step record
 *   step_time        seconds, or step_time_ms in milliseconds
 *   loss, tokens_per_s (per GPU), tflops (per GPU), mem_gib
 *   value            a number kept as the pattern's last_value (the
 *                    first group when there is no value group)
 * Without a step group a pattern only counts its matches (the first one,
 * the last value and the last captured text are kept; logparse_pattern_
 * name lists these patterns); a pattern named after a failure class
 * ("nccl_timeout") also adds evidence of that class.
 *
 * Not thread-safe: a struct logparse holds reused match data.  Use one
 * per thread.
 */
#ifndef PARATUNE_LOGPARSE_H
#define PARATUNE_LOGPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "failure.h"
#include "strbuf.h"

/* Longest line matched in full: 1 MiB holds any real log line. */
#define LOGPARSE_LINE_MAX ((size_t)1024 * 1024)
/* Most distinct steps kept per file: ~56 MB of records. */
#define LOGPARSE_STEPS_MAX 1000000
/* Evidence lines are cut to this many bytes (at a UTF-8 boundary). */
#define LOGPARSE_EVIDENCE_MAX 300
/* The longest step time believed, seconds: 11 days, as calibrate's
 * step_s.  A time beyond it, either sign, or infinite, is a damaged
 * line or a unit slip (1e300 ms): the step is kept without a time and
 * counted in bad_step_times. */
#define LOGPARSE_STEP_S_MAX 1e6
/* The shortest positive step time believed, seconds: 1 us, below one
 * kernel launch, where 1e-300 ms would rank a run the fastest by a
 * margin of hundreds of orders.  Zero and negative times are noted
 * apart (nonpositive), as the clock's and not the line's fault. */
#define LOGPARSE_STEP_S_MIN 1e-6
/* The most memory believed, GiB: 100 TiB, as calibrate's peak_memory_gib.
 * A reading beyond it, or below zero, is left out and counted in
 * bad_mem_readings. */
#define LOGPARSE_MEM_GIB_MAX 1e5

enum log_format {
	LOG_FORMAT_UNKNOWN,
	LOG_FORMAT_MEGATRON,
	LOG_FORMAT_NEMO2,
	LOG_FORMAT_NEMO1,
	LOG_FORMAT_TORCHTITAN,
	LOG_FORMAT_COUNT,
};

/* "unknown", "megatron", "nemo2", "nemo1", "torchtitan". */
const char *log_format_name(enum log_format f);

/* One training step as the log reports it; NAN where it says nothing. */
struct log_step {
	long step;
	long line;             /* line of the record kept */
	double step_time_s;
	double loss;           /* NAN when absent or "nan" (see nan_seen) */
	double tokens_per_s;   /* per GPU, as every format reports it */
	double tflops;         /* per GPU, the framework's own count */
	double mem_gib;        /* peak reserved (or reported peak) memory */
	long gbs;              /* global batch size; 0 when not reported */
};

/* A line of evidence; line 0 and text NULL when there is none. */
struct log_evidence {
	long line;
	char *text;            /* trimmed, at most LOGPARSE_EVIDENCE_MAX */
};

/* What an extra pattern without a step group found. */
struct log_pattern_hits {
	char *name;
	long count;
	struct log_evidence first;
	double last_value;     /* NAN when the pattern captures none */
	char *last_text;       /* what the last match captured: the value
	                          group, else the first group, else the
	                          whole match, as evidence text; NULL when
	                          it never matched */
};

struct log_result {
	char *name;                    /* the file name given */
	enum log_format format;
	struct log_step *steps;        /* distinct steps, in log order */
	size_t nsteps, alloc_steps;
	long total_steps;              /* steps the run was set to do; -1 */
	bool finished;                 /* the log says all steps were done */

	/* Memory the log reports, GiB; NAN when it reports none.  Megatron's
	 * "max allocated" (MiB) and Megatron-Bridge's "-gigabytes" (1e9
	 * bytes), NeMo's byte counts, torchtitan's "memory:" (max reserved). */
	double mem_max_allocated_gib;
	double mem_max_reserved_gib;
	double mem_peak_gib;           /* the largest peak of any kind */

	/* The root cause and its first evidence line (a copy). */
	enum failure_class failure;
	struct log_evidence evidence;
	/* The first evidence of every class seen; seen[FAILURE_NONE] unused. */
	struct log_evidence seen[FAILURE_COUNT];
	bool nan_seen;                 /* a loss or grad norm printed nan/inf */

	struct log_pattern_hits *patterns; /* one per extra pattern without a
	                                     step group, in the order added */
	int npatterns;

	/* What reading it was like. */
	unsigned long long bytes_read;
	long lines;
	long long nul_bytes;           /* > 0: binary or corrupt */
	long long first_nul_offset;    /* -1 when none */
	long long_lines;               /* lines cut to LOGPARSE_LINE_MAX */
	bool truncated;                /* no line break at the end */
	bool steps_capped;             /* more than LOGPARSE_STEPS_MAX steps */
	/* The highest step number read, also of a record dropped past
	 * LOGPARSE_STEPS_MAX (watch's --max-steps counts on it); -1 when
	 * none. */
	long last_step;
	/* Steps first recorded with a step time beyond LOGPARSE_STEP_S_MAX,
	 * and the line of the first; kept without a time. */
	long bad_step_times;
	long bad_step_time_line;
	/* Memory readings beyond LOGPARSE_MEM_GIB_MAX or below zero, and the
	 * line of the first; left out of the memory above. */
	long bad_mem_readings;
	long bad_mem_line;
	/* Steps in the records of a format other than format (two runs in
	 * one file?), the largest such format's; kept among the steps. */
	long other_format_steps;
	enum log_format other_format;
	/* Steps whose time is the time stamps' (torchtitan logs none), and
	 * those left untimed as a gap: ten times the last such time. */
	long clocked_steps;
	long clock_gaps;
	/* Step lines stamped no later than the step line before (a clock
	 * set back, lines out of order), left untimed. */
	long clock_back;
};

struct logparse_builtin;
struct logparse_user;

/* The compiled patterns; see the top of this file.  What they are is
 * PCRE2's business, in logparse-int.h and failure.c alone. */
struct logparse {
	struct logparse_builtin *builtin; /* the record heads */
	struct failure_scan *fail;
	struct logparse_user *user;
	int nuser;
	size_t alloc_user;
};

/* The extra patterns without a step group, in the order added: the
 * entries of every log_result.patterns.  Names point into lp. */
int logparse_pattern_count(const struct logparse *lp);
const char *logparse_pattern_name(const struct logparse *lp, int i);

/* Compile the built-in patterns once (JIT where PCRE2 has it). */
void logparse_init(struct logparse *lp);
void logparse_release(struct logparse *lp);

/* Whether regex compiles as logparse_add_pattern compiles it: 0, or -1
 * with the reason (PCRE2's message and the offset) in err[0..errlen). */
int logparse_check_regex(const char *regex, char *err, size_t errlen);

/*
 * Add an extra pattern.  Returns 0, or -1 when regex does not compile or
 * a named group is unusable, with the reason (PCRE2's message and the
 * offset) written to err[0..errlen).
 */
int logparse_add_pattern(struct logparse *lp, const char *name,
                         const char *regex, char *err, size_t errlen);

/*
 * Read the file at path into *out (initialised here; release it with
 * log_result_release whatever this returns).  Returns 0, or -1 after an
 * error message when the file cannot be opened or read; what was read
 * before a read error is in *out.
 */
int logparse_file(struct logparse *lp, const char *path,
                  struct log_result *out);
/* An empty result for a log named name that was not read. */
void logparse_result_empty(const struct logparse *lp, const char *name,
                           struct log_result *out);
/*
 * The same for the file rel beneath dir (a campaign's runs/), which
 * its owner could have replaced: no symbolic link is followed in any
 * part of rel, a FIFO or device is refused without blocking, only a regular
 * file is read, and one over 1 GiB only at its two ends (512 MiB each,
 * with a warning).  out's name is dir/rel.
 */
int logparse_regular_file(struct logparse *lp, const char *dir,
                          const char *rel, struct log_result *out);
/*
 * The same, quietly, for a glance at a log still being written: only
 * its last tail bytes are read (from the first line that starts in
 * them), so a record's total and step time are there but not what came
 * before.  Returns 0, or -1 with errno set and no message when the file
 * cannot be opened or read (out is then empty, or what was read).
 */
int logparse_regular_tail(struct logparse *lp, const char *dir,
                          const char *rel, long long tail,
                          struct log_result *out);
/* The same from an open stream; name is what results and messages use. */
int logparse_stream(struct logparse *lp, FILE *f, const char *name,
                    struct log_result *out);
/* The same from memory (tests and the fuzz target); never fails. */
void logparse_buffer(struct logparse *lp, const void *buf, size_t len,
                     const char *name, struct log_result *out);

/*
 * Incremental reading: begin, feed any number of chunks of any size
 * (results do not depend on where chunks are cut), finish.  The reader
 * points at lp and out until logparse_finish; finish fills *out.
 */
struct log_reader;
struct log_reader *logparse_begin(struct logparse *lp, const char *name,
                                  struct log_result *out);
void logparse_feed(struct log_reader *rd, const void *buf, size_t len);
void logparse_finish(struct log_reader *rd);

void log_result_release(struct log_result *r);

/* Step-time statistics over the measured steps. */
struct log_step_stats {
	int ramp_up;     /* steps with a step time logged before the global
	                    batch size took its last value: left out of all
	                    below (see the top) */
	long gbs;        /* that last value; 0 when the log reports none */
	long gbs_line;   /* the line of the first record of it; 0 */
	int timed;       /* steps with a step time, after the ramp-up */
	int skipped;     /* warm-up steps dropped */
	int measured;    /* timed - skipped */
	int nonpositive; /* measured steps timed at zero or less: a clock or
	                    a logger gone wrong, no measurement */
	int counted;     /* measured steps timed at LOGPARSE_STEP_S_MIN or
	                    more: those the figures below are taken over */
	double mean_s, median_s, stdev_s;   /* NAN when counted == 0; the
	                                       (sample) stdev_s also when
	                                       counted == 1 */
	double tokens_per_s_median;  /* after the warm-up; NAN if none */
};

/*
 * Where r's measured steps start: the index of the first step past the
 * last one whose global batch size is not the last reported (0 when
 * there is none).  *gbs gets that last one (0: none reported).
 */
size_t log_result_gbs_start(const struct log_result *r, long *gbs);

/* The warm-up steps of n timed ones that results leave out: skip_steps
 * (results.skip_steps), or with -1 a tenth, at least 1; never over n. */
int logparse_warmup_steps(int skip_steps, int n);

/*
 * Statistics of r's step times from log_result_gbs_start on, after
 * dropping the first skip_steps timed steps (in log order) as warm-up;
 * skip_steps < 0 means the default, the first 10 % and at least 1
 * (NeMo's get_results drops the first step).
 * Zero and negative times count as timed and measured, in nonpositive,
 * but not in counted, the mean, the median or the deviation.  stdev is
 * the sample standard deviation (NAN for one step, as above).
 */
void log_result_step_stats(const struct log_result *r, int skip_steps,
                           struct log_step_stats *st);

/*
 * What reading a file noticed about the file itself, for people: each
 * note says something that the figures from it do not show.  The
 * wording is logparse-notes.c's alone, for parse, watch and results.
 */
enum log_note {
	LOG_NOTE_NUL,             /* NUL bytes (binary?) */
	LOG_NOTE_LONG_LINES,      /* lines cut to LOGPARSE_LINE_MAX */
	LOG_NOTE_TRUNCATED,       /* no line break at the end */
	LOG_NOTE_STEPS_CAPPED,    /* more than LOGPARSE_STEPS_MAX steps */
	LOG_NOTE_BAD_STEP_TIMES,  /* step times not believed, left out */
	LOG_NOTE_BAD_MEM,         /* memory readings not believed */
	LOG_NOTE_CLOCKED,         /* step times from the time stamps */
	LOG_NOTE_CLOCK_GAPS,      /* gaps left untimed */
	LOG_NOTE_CLOCK_BACK,      /* a clock set back: steps left untimed */
	LOG_NOTE_OTHER_FORMAT,    /* records of a second format */
	LOG_NOTE_NONPOSITIVE,     /* step times of zero or less (stats) */
	LOG_NOTE_RAMP_UP,         /* steps of a batch-size ramp-up (stats) */
	LOG_NOTE_COUNT,
};

/*
 * Append note n about r, and about the statistics st taken of it (NULL:
 * none), to sb when it applies; whether it did.
 */
bool log_result_note(const struct log_result *r,
                     const struct log_step_stats *st, enum log_note n,
                     struct strbuf *sb);
/* Every note that applies, in the order above, "; "-separated after
 * what sb holds; nothing when all was well. */
void log_result_notes(const struct log_result *r,
                      const struct log_step_stats *st, struct strbuf *sb);

/* The evidence for class c (a hung_after_finish's is its time limit). */
const struct log_evidence *log_result_evidence(const struct log_result *r,
                                               enum failure_class c);

#endif
