/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-int.h - what the log reader's own files share: the entry
 * points (logparse.c), the line reader (logparse-reader.c), the record
 * heads of the built-in formats (logparse-formats.c), what their
 * parsers share (logparse-record.c), the parsers themselves
 * (logparse-megatron.c, logparse-nemo2.c, logparse-nemo1.c,
 * logparse-torchtitan.c) and the number parser (logparse-number.c).
 * PCRE2's types stay here and in failure.c, behind logparse.h and
 * failure.h.  Not for other modules (the unit tests aside).
 */
#ifndef PARATUNE_LOGPARSE_INT_H
#define PARATUNE_LOGPARSE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "logparse.h"

/* The record heads of the built-in formats (logparse-formats.c). */
struct logparse_builtin {
	pcre2_code *megatron_head, *nemo2_head, *nemo1_bar, *titan_step;
	pcre2_match_data *megatron_md, *nemo2_md, *nemo1_md, *titan_md;
};

/* Clean record spans one line can hold before the rest is scanned. */
#define READER_SPANS_MAX 16

/*
 * Initialised bytes kept after every line handed to PCRE2: its JIT reads
 * whole SIMD words past the end of the subject (and masks what it read),
 * and valgrind reports a branch on bytes that were never written.  64
 * covers AVX-512 words.
 */
#define READER_PAD 64

/* An extra pattern (logparse_add_pattern) and the numbers of its named
 * groups (0: none). */
struct logparse_user {
	char *name;
	pcre2_code *re;
	pcre2_match_data *md;
	int g_step, g_time, g_time_ms, g_loss, g_tokens, g_tflops, g_mem;
	int g_value;
	int hits;                  /* index in log_result.patterns, or -1 */
	enum failure_class cls;    /* FAILURE_NONE unless named after one */
};

/* Blank inside a line (line breaks never reach a parser). */
static inline bool
logparse_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* An ASCII digit, whatever the locale. */
static inline bool
logparse_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A byte range of the current line. */
struct reader_span {
	size_t start, end;
};

struct log_reader {
	struct logparse *lp;
	struct log_result *res;

	/* The line being assembled across chunks. */
	struct strbuf carry;
	bool carry_capped;         /* the line outgrew LOGPARSE_LINE_MAX */
	long lineno;               /* physical line (1-based) being read */
	bool last_unterminated;    /* reading the unterminated last line */
	bool cut_by_nul;           /* reading a line a NUL run ended */
	bool line_open;            /* bytes read since the last "\n" */
	char *scratch;             /* the line without ANSI sequences */
	size_t scratch_alloc;
	char *padded;              /* a line copied to have READER_PAD after */
	size_t padded_alloc;
	const char *feed_end;      /* end of the chunk being fed, or NULL */

	/* Steps: an open-addressing index from step number to position. */
	uint32_t *slots;           /* position + 1; 0 is empty */
	size_t nslots;             /* a power of two, or 0 */
	long max_step;             /* the highest step so far */

	/* Format detection. */
	long records[LOG_FORMAT_COUNT];
	enum log_format weak_format; /* from keys alone, when no record */

	/* torchtitan's last step line with a time stamp (titan_clock). */
	bool titan_clocked;        /* titan_step and its time are set */
	long titan_step;
	long long titan_sec;       /* its time stamp: seconds since the
	                              epoch (UTC or not) and fraction */
	double titan_frac;
	double titan_last_s;       /* the last step time it gave; 0 */
	long titan_rank;           /* the rank whose lines it reads: the
	                              first seen, -1 when none is named */

	/* NeMo 1.x bars count the steps of their epoch: the global step
	 * that epoch e starts after (nemo1_global). */
	long *nemo1_base;
	size_t nemo1_epochs;       /* epochs 0..nemo1_epochs-1 have one */
	long nemo1_top;            /* the highest count of the last */

	/* Failure evidence. */
	unsigned seen;             /* FAILURE_BIT per class with evidence */
	bool finished;
	long finished_line;        /* where it was first seen finished */
	bool finish_said;          /* by a marker, not by a step count */

	/* Parts of the current line that are clean step records: the
	 * failure patterns are run on the rest only. */
	struct reader_span spans[READER_SPANS_MAX];
	int nspans;
};

/* End the line being assembled (the last one, when it has no break). */
void reader_flush(struct log_reader *rd);
/* Free an evidence line; it is empty afterwards. */
void log_evidence_clear(struct log_evidence *e);

/* Add a step record (deduplicated; see logparse.h). */
void reader_add_step(struct log_reader *rd, const struct log_step *st,
                     enum log_format fmt);
/* The run has done all its steps, as the current line shows. */
void reader_finished(struct log_reader *rd);
/* A step past the total the finish was counted from: training went on
 * (a later epoch), that total was not the run's (unknown again), and
 * the finish is withdrawn, unless the log said it itself. */
void reader_past_total(struct log_reader *rd);
/* Keep line s[0..n) as evidence of class c when it is the first. */
void reader_evidence(struct log_reader *rd, enum failure_class c,
                     const char *s, size_t n);
/* Bytes [start, end) of the current line are a clean record. */
void reader_clean_span(struct log_reader *rd, size_t start, size_t end);
/* Record a memory figure (GiB) of one kind; NAN is ignored. */
void reader_memory(struct log_reader *rd, double alloc_gib,
                   double reserved_gib, double peak_gib);

/*
 * A number in s[0..n), surrounded by spaces at most: decimal with an
 * optional sign, fraction, exponent and (with commas) thousands
 * separators, or nan/inf in any case.  Returns true and stores it;
 * *special is set for nan and inf.
 */
bool logparse_number(const char *s, size_t n, bool commas, double *v,
                     bool *special);
/* The longest number at the start of s[0..n) (after spaces); the number
 * of bytes it took, 0 when there is none. */
size_t logparse_number_prefix(const char *s, size_t n, bool commas,
                              double *v);

/*
 * What the record parsers share (logparse-record.c).
 *
 * The first needle[0..len) in s[0..n), or NULL.
 */
const char *logparse_find(const char *s, size_t n, const char *needle,
                          size_t len);
/* A whole non-negative integer of at most 18 digits. */
bool logparse_span_long(const char *s, size_t n, long *out);
/* Group g of the last match in md as an integer; -1 when unset. */
long logparse_group_long(pcre2_match_data *md, const char *s, int g);
/* A step on the current line that says nothing yet. */
void logparse_step_init(struct log_step *st, struct log_reader *rd);

/* A field "key: value" of a '|'-separated record (Megatron, NeMo 2.0). */
struct logparse_field {
	const char *key, *val;
	size_t klen, vlen;
};

/* Whether field f has key k.  (Inline: a parser tries its keys on every
 * field one after the other, and strlen of a literal folds away.) */
static inline bool
logparse_key_is(const struct logparse_field *f, const char *k)
{
	size_t n = strlen(k);

	return f->klen == n && !memcmp(f->key, k, n);
}

/* The value of f as a number (NAN when it is none); *special is set for
 * nan and inf. */
double logparse_field_num(const struct logparse_field *f, bool *special);
/* The value of f as a finite number, or NAN. */
double logparse_field_value(const struct logparse_field *f);
/* The value of f as a step time: a finite number, +inf for "nan" or
 * "inf" (a time no run takes, counted as damaged by reader_add_step,
 * not taken for one the record lacks), or NAN. */
double logparse_field_time(const struct logparse_field *f);
/* The value of f as a whole number above zero (a count, a batch size),
 * or 0. */
long logparse_field_count(const struct logparse_field *f);
/*
 * The next '|'-separated field of [*p, end).  Returns false at the end.
 * *clean is cleared when the field is not "key: number" or empty.
 */
bool logparse_next_field(const char **p, const char *end,
                         struct logparse_field *f, bool *clean);

/*
 * The next record head at or after from: the next place where word
 * (wlen bytes, from the head pattern) is followed by what quick() accepts,
 * confirmed by a match of re (compiled anchored; left in md).  Returns
 * its offset, or n.
 */
size_t logparse_next_head(const pcre2_code *re, pcre2_match_data *md,
                          const char *s, size_t from, size_t n,
                          const char *word, size_t wlen,
                          bool (*quick)(const char *s, size_t i, size_t n));
/* A nan or inf loss (or grad norm): the run is diverging. */
void logparse_nan_evidence(struct log_reader *rd, const char *s, size_t n);

/* Record parsers, called for every line (they filter cheaply first):
 * logparse-megatron.c, logparse-nemo2.c, logparse-nemo1.c and
 * logparse-torchtitan.c. */
void logparse_megatron(struct log_reader *rd, const char *s, size_t n);
void logparse_megatron_memory(struct log_reader *rd, const char *s,
                              size_t n);
void logparse_nemo2(struct log_reader *rd, const char *s, size_t n);
void logparse_nemo1(struct log_reader *rd, const char *s, size_t n);
void logparse_torchtitan(struct log_reader *rd, const char *s, size_t n);
/* Compile the record heads into lp (logparse-formats.c). */
void logparse_formats_init(struct logparse *lp);
void logparse_formats_release(struct logparse *lp);

/* Bytes per GiB; Megatron's MB are MiB (report_memory divides by
 * 1024 * 1024, megatron/training/utils/common_utils.py @d98e8a6). */
#define GIB 1073741824.0
#define MIB 1048576.0

#endif
