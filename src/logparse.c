/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse.c - the entry points: compiled patterns, extra patterns,
 * reading a file, a stream or a buffer, the result and its step-time
 * statistics.  The line reader is in logparse-reader.c, the record
 * heads in logparse-formats.c, the record parsers in logparse-megatron.c,
 * logparse-nemo2.c, logparse-nemo1.c and logparse-torchtitan.c (what
 * they share in logparse-record.c), the failure patterns in failure.c,
 * the notes on what was read in logparse-notes.c.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "logparse-int.h"
#include "util.h"
#include "xalloc.h"

/* Read size: large enough that a read costs little, small enough for
 * the cache. */
#define LOGPARSE_CHUNK ((size_t)64 * 1024)

static const char *const format_names[LOG_FORMAT_COUNT] = {
	"unknown", "megatron", "nemo2", "nemo1", "torchtitan",
};

const char *
log_format_name(enum log_format f)
{
	if ((int)f < 0 || f >= LOG_FORMAT_COUNT)
		return "?";
	return format_names[f];
}

void
logparse_init(struct logparse *lp)
{
	memset(lp, 0, sizeof(*lp));
	logparse_formats_init(lp);
	lp->fail = failure_scan_new();
}

void
logparse_release(struct logparse *lp)
{
	for (int i = 0; i < lp->nuser; i++) {
		free(lp->user[i].name);
		pcre2_match_data_free(lp->user[i].md);
		pcre2_code_free(lp->user[i].re);
	}
	free(lp->user);
	failure_scan_free(lp->fail);
	logparse_formats_release(lp);
	memset(lp, 0, sizeof(*lp));
}

/* The number of named group name in re, or 0. */
static int
group_number(const pcre2_code *re, const char *name)
{
	int n = pcre2_substring_number_from_name(re, (PCRE2_SPTR)name);

	return n > 0 ? n : 0;
}

/* Compile an extra pattern's regex, or say why it does not compile. */
static pcre2_code *
compile_user(const char *regex, char *err, size_t errlen)
{
	PCRE2_SIZE off;
	int code;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED,
	                               0, &code, &off, NULL);

	if (re == NULL) {
		PCRE2_UCHAR msg[256];
		char q[QUOTE_CUT_SIZE];

		pcre2_get_error_message(code, msg, sizeof msg);
		snprintf(err, errlen, "regex %s does not compile at offset "
		         "%zu: %s", quote_cut(regex, q), (size_t)off,
		         (char *)msg);
	}
	return re;
}

int
logparse_check_regex(const char *regex, char *err, size_t errlen)
{
	pcre2_code *re = compile_user(regex, err, errlen);

	pcre2_code_free(re);
	return re ? 0 : -1;
}

int
logparse_add_pattern(struct logparse *lp, const char *name,
                     const char *regex, char *err, size_t errlen)
{
	struct logparse_user *u;
	int npat = 0;
	pcre2_code *re;

	if (name == NULL || *name == '\0') {
		snprintf(err, errlen, "pattern has no name");
		return -1;
	}
	re = compile_user(regex, err, errlen);
	if (re == NULL)
		return -1;
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	for (int i = 0; i < lp->nuser; i++)
		npat += lp->user[i].hits >= 0;
	ALLOC_GROW(lp->user, (size_t)lp->nuser + 1, lp->alloc_user);
	u = &lp->user[lp->nuser++];
	memset(u, 0, sizeof(*u));
	u->name = xstrdup(name);
	u->re = re;
	u->md = pcre2_match_data_create_from_pattern(re, NULL);
	u->g_step = group_number(re, "step");
	u->g_time = group_number(re, "step_time");
	u->g_time_ms = group_number(re, "step_time_ms");
	u->g_loss = group_number(re, "loss");
	u->g_tokens = group_number(re, "tokens_per_s");
	u->g_tflops = group_number(re, "tflops");
	u->g_mem = group_number(re, "mem_gib");
	u->g_value = group_number(re, "value");
	u->hits = u->g_step ? -1 : npat;
	if (failure_class_parse(name, &u->cls) != 0)
		u->cls = FAILURE_NONE;
	return 0;
}

/* How many patterns count matches (no step group). */
int
logparse_pattern_count(const struct logparse *lp)
{
	int n = 0;

	for (int i = 0; i < lp->nuser; i++)
		n += lp->user[i].hits >= 0;
	return n;
}

/* The name of counting pattern i, or NULL. */
const char *
logparse_pattern_name(const struct logparse *lp, int i)
{
	for (int k = 0; k < lp->nuser; k++)
		if (lp->user[k].hits == i)
			return lp->user[k].name;
	return NULL;
}

/* ---- results ------------------------------------------------------------ */

void
log_evidence_clear(struct log_evidence *e)
{
	free(e->text);
	e->text = NULL;
	e->line = 0;
}

void
log_result_release(struct log_result *r)
{
	free(r->name);
	free(r->steps);
	log_evidence_clear(&r->evidence);
	for (int i = 0; i < FAILURE_COUNT; i++)
		log_evidence_clear(&r->seen[i]);
	for (int i = 0; i < r->npatterns; i++) {
		free(r->patterns[i].name);
		free(r->patterns[i].last_text);
		log_evidence_clear(&r->patterns[i].first);
	}
	free(r->patterns);
	memset(r, 0, sizeof(*r));
}

/* An empty result for name, with a hits entry per counting pattern. */
static void
result_init(struct log_result *r, const struct logparse *lp,
            const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(name ? name : "-");
	r->total_steps = -1;
	r->mem_max_allocated_gib = r->mem_max_reserved_gib = NAN;
	r->mem_peak_gib = NAN;
	r->first_nul_offset = -1;
	r->last_step = -1;
	for (int i = 0; i < lp->nuser; i++) {
		struct log_pattern_hits *h;

		if (lp->user[i].hits < 0)
			continue;
		r->patterns = xreallocarray(r->patterns,
		                            (size_t)r->npatterns + 1,
		                            sizeof(*r->patterns));
		h = &r->patterns[r->npatterns++];
		memset(h, 0, sizeof(*h));
		h->name = xstrdup(lp->user[i].name);
		h->last_value = NAN;
	}
}

const struct log_evidence *
log_result_evidence(const struct log_result *r, enum failure_class c)
{
	if (c == FAILURE_HUNG_AFTER_FINISH)
		c = FAILURE_TIMEOUT;
	/* Its teardown's line, as exit_nonzero's or unknown's. */
	if (c == FAILURE_FAILED_AFTER_FINISH)
		c = r->seen[FAILURE_EXIT_NONZERO].text ? FAILURE_EXIT_NONZERO
		                                       : FAILURE_UNKNOWN;
	if ((int)c <= 0 || c >= FAILURE_COUNT)
		return NULL;
	return r->seen[c].text ? &r->seen[c] : NULL;
}

/* ---- reading a whole log ------------------------------------------------ */

struct log_reader *
logparse_begin(struct logparse *lp, const char *name, struct log_result *out)
{
	struct log_reader *rd = xcalloc(1, sizeof(*rd));

	result_init(out, lp, name);
	rd->lp = lp;
	rd->res = out;
	strbuf_init(&rd->carry, 0);
	rd->lineno = 1;
	return rd;
}

/* Of the formats other than the one chosen, the one with the most
 * records: a log of two frameworks' runs mixes step times that mean
 * different things, which the notes say. */
static void
reader_other_format(const struct log_reader *rd, struct log_result *res)
{
	for (int f = 1; f < LOG_FORMAT_COUNT; f++)
		if (f != (int)res->format &&
		    rd->records[f] > res->other_format_steps) {
			res->other_format_steps = rd->records[f];
			res->other_format = (enum log_format)f;
		}
}

/* The format with the most records; the weak guess when none. */
static enum log_format
reader_format(const struct log_reader *rd)
{
	enum log_format best = LOG_FORMAT_UNKNOWN;

	for (int f = 1; f < LOG_FORMAT_COUNT; f++)
		if (rd->records[f] > rd->records[best])
			best = (enum log_format)f;
	return best != LOG_FORMAT_UNKNOWN ? best : rd->weak_format;
}

/*
 * The classes the root cause is picked from.  An exception or a non-zero
 * exit that only the generic rules name, first logged once the run had
 * done all its steps, is its teardown's (a data loader's __del__, a rank
 * that left the store first), not what ended training: left out, its
 * evidence kept for the join with Slurm's state.  So is an NCCL watchdog
 * timeout or error then: the collectives of the steps all completed, and
 * a rank that left first (or hung in its exit) leaves the others waiting
 * on the process group's teardown; with a time limit after it, the run
 * hung after its finish.
 */
static unsigned
classes_before_finish(const struct log_reader *rd)
{
	static const enum failure_class teardown[] = {
		FAILURE_UNKNOWN, FAILURE_EXIT_NONZERO, FAILURE_NCCL_TIMEOUT,
		FAILURE_NCCL_ERROR,
	};
	unsigned seen = rd->seen;

	if (!rd->finished)
		return seen;
	for (size_t i = 0; i < sizeof teardown / sizeof teardown[0]; i++) {
		const struct log_evidence *e = &rd->res->seen[teardown[i]];

		if (e->text && e->line >= rd->finished_line)
			seen &= ~FAILURE_BIT(teardown[i]);
	}
	return seen;
}

void
logparse_finish(struct log_reader *rd)
{
	struct log_result *res = rd->res;
	const struct log_evidence *e;

	if (rd->carry.len) {
		/* The last line has no break: maybe cut mid-value. */
		res->truncated = true;
		rd->last_unterminated = true;
		reader_flush(rd);
	}
	res->lines = rd->lineno - 1 + (rd->line_open ? 1 : 0);
	res->format = reader_format(rd);
	reader_other_format(rd, res);
	res->finished = rd->finished;
	res->failure = failure_pick(classes_before_finish(rd), res->finished);
	e = log_result_evidence(res, res->failure);
	if (e) {
		res->evidence.line = e->line;
		res->evidence.text = xstrdup(e->text);
	}
	strbuf_release(&rd->carry);
	free(rd->nemo1_base);
	free(rd->scratch);
	free(rd->padded);
	free(rd->slots);
	free(rd);
}

void
logparse_buffer(struct logparse *lp, const void *buf, size_t len,
                const char *name, struct log_result *out)
{
	struct log_reader *rd = logparse_begin(lp, name, out);

	logparse_feed(rd, buf, len);
	logparse_finish(rd);
}

int
logparse_stream(struct logparse *lp, FILE *f, const char *name,
                struct log_result *out)
{
	struct log_reader *rd = logparse_begin(lp, name, out);
	char *chunk = xmalloc(LOGPARSE_CHUNK);
	size_t n;
	int ret = 0;

	while ((n = fread(chunk, 1, LOGPARSE_CHUNK, f)) > 0)
		logparse_feed(rd, chunk, n);
	if (ferror(f))
		ret = error_errno("cannot read '%s'", name);
	logparse_finish(rd);
	free(chunk);
	return ret;
}

/*
 * A campaign log larger than twice this is read at its two ends only:
 * the head has the run's settings, first steps and memory, the tail its
 * last steps, verdict and failure.  A runaway trainer's log, or a
 * sparse file of a terabyte of holes that a user planted, would
 * otherwise hold up root's cron line for hours.
 */
#define LOGPARSE_END_BYTES ((long long)512 << 20)

/* Feed up to len bytes of f (all of it when len < 0); with skip_line,
 * what comes before the first line break is dropped (a line cut by a
 * seek).  0, or -1 on a read error. */
static int
feed_stream(struct log_reader *rd, FILE *f, char *chunk, long long len,
            bool skip_line)
{
	size_t n, want = LOGPARSE_CHUNK;

	while (len != 0) {
		if (len > 0 && (long long)want > len)
			want = (size_t)len;
		if ((n = fread(chunk, 1, want, f)) == 0)
			break;
		if (len > 0)
			len -= (long long)n;
		if (skip_line) {
			char *nl = memchr(chunk, '\n', n);

			if (nl == NULL)
				continue;
			skip_line = false;
			logparse_feed(rd, nl + 1, n - (size_t)(nl + 1 - chunk));
			continue;
		}
		logparse_feed(rd, chunk, n);
	}
	return ferror(f) ? -1 : 0;
}

/* Read f's two ends into rd: see LOGPARSE_END_BYTES. */
static int
feed_ends(struct log_reader *rd, FILE *f, char *chunk, long long size,
          const char *name)
{
	warning("'%s' has %lld bytes: only its first and last %lld MiB are "
	        "read (its line numbers after the gap count the lines read)",
	        name, size, LOGPARSE_END_BYTES >> 20);
	if (feed_stream(rd, f, chunk, LOGPARSE_END_BYTES, false) != 0)
		return -1;
	/* End the line the head cut, then start at the tail's first. */
	logparse_feed(rd, "\n", 1);
	if (fseeko(f, (off_t)(size - LOGPARSE_END_BYTES), SEEK_SET) != 0)
		return -1;
	return feed_stream(rd, f, chunk, -1, true);
}

/* Feed the open log f (named path) into *out: all of it, or its two
 * ends (feed_ends) when it is large; with tail > 0 its last tail bytes
 * alone, from the first line that starts in them.  0, or -1 on a read
 * error with errno set. */
static int
feed_file(struct logparse *lp, FILE *f, const char *path, long long tail,
          struct log_result *out)
{
	struct log_reader *rd = logparse_begin(lp, path, out);
	char *chunk = xmalloc(LOGPARSE_CHUNK);
	struct stat st;
	long long size = -1;
	int ret, e;

	if (fstat(fileno(f), &st) == 0)
		size = (long long)st.st_size;
	if (tail > 0 && size > tail)
		ret = fseeko(f, (off_t)(size - tail), SEEK_SET) != 0 ? -1
		      : feed_stream(rd, f, chunk, tail, true);
	else if (tail > 0)
		/* It may grow while read: no more than tail all the same. */
		ret = feed_stream(rd, f, chunk, tail, false);
	else if (size > 2 * LOGPARSE_END_BYTES)
		ret = feed_ends(rd, f, chunk, size, path);
	else
		ret = feed_stream(rd, f, chunk, -1, false);
	e = errno;
	logparse_finish(rd);
	free(chunk);
	errno = e;
	return ret;
}

int
logparse_regular_file(struct logparse *lp, const char *dir, const char *rel,
                      struct log_result *out)
{
	char *path = xasprintf("%s/%s", dir, rel);
	FILE *f = fopen_regular_beneath(dir, rel);
	int ret;

	if (f == NULL) {
		result_init(out, lp, path);
		ret = error("cannot read '%s': %s", path, open_error(errno));
		free(path);
		return ret;
	}
	if ((ret = feed_file(lp, f, path, 0, out)) != 0)
		ret = error_errno("cannot read '%s'", path);
	fclose(f);
	free(path);
	return ret;
}

int
logparse_regular_tail(struct logparse *lp, const char *dir, const char *rel,
                      long long tail, struct log_result *out)
{
	char *path = xasprintf("%s/%s", dir, rel);
	FILE *f = fopen_regular_beneath(dir, rel);
	int ret = -1, e;

	if (f == NULL) {
		e = errno;
		result_init(out, lp, path);
	} else {
		ret = feed_file(lp, f, path, tail > 0 ? tail : 1, out);
		e = errno;
		fclose(f);
	}
	free(path);
	errno = e;
	return ret;
}

void
logparse_result_empty(const struct logparse *lp, const char *name,
                      struct log_result *out)
{
	result_init(out, lp, name);
}

int
logparse_file(struct logparse *lp, const char *path, struct log_result *out)
{
	/* A FIFO would block the open, /dev/zero never end. */
	FILE *f = fopen_named(path);
	struct stat st;
	int ret;

	if (f == NULL) {
		int e = errno;

		result_init(out, lp, path);
		if (e == EINVAL && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return error("cannot read '%s': it is a directory",
			             path);
		if (e == EINVAL)
			return error("cannot read '%s': a device or socket, "
			             "not a log", path);
		return error("cannot open '%s': %s", path, strerror(e));
	}
	ret = logparse_stream(lp, f, path, out);
	fclose(f);
	return ret;
}

/* ---- statistics --------------------------------------------------------- */

/* Put the k-th smallest of v[0..n) at v[k], smaller ones before it
 * (Hoare's selection: linear on average, where sorting is n log n). */
static void
select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];

				v[i++] = v[j];
				v[j] = t;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/* Median of v[0..n), n > 0; reorders v. */
static double
median(double *v, int n)
{
	size_t k = (size_t)n / 2;
	double hi, lo;

	select_kth(v, (size_t)n, k);
	hi = v[k];
	if (n % 2)
		return hi;
	/* The largest of the lower half is the other middle value. */
	lo = v[0];
	for (size_t i = 1; i < k; i++)
		if (v[i] > lo)
			lo = v[i];
	/* Halved first: lo + hi may overflow, their halves cannot. */
	return lo / 2 + hi / 2;
}

/* Public: see logparse.h. */
int
logparse_warmup_steps(int skip_steps, int n)
{
	int skip = skip_steps >= 0 ? skip_steps : n / 10;

	if (skip_steps < 0 && skip < 1)
		skip = 1;
	return skip < n ? skip : n;
}

/*
 * The median tokens/s of the steps from start on that report it, after
 * their warm-up (counted as for step times: a log may give tokens/s
 * without step times); NAN when none is left.  v holds r->nsteps values.
 */
static double
tokens_median(const struct log_result *r, size_t start, int skip_steps,
              double *v)
{
	int n = 0, k = 0, skip;

	for (size_t i = start; i < r->nsteps; i++)
		n += isfinite(r->steps[i].tokens_per_s);
	skip = logparse_warmup_steps(skip_steps, n);
	for (size_t i = start, seen = 0; i < r->nsteps; i++)
		if (isfinite(r->steps[i].tokens_per_s) && (int)seen++ >= skip)
			v[k++] = r->steps[i].tokens_per_s;
	return k ? median(v, k) : NAN;
}

/*
 * The mean and sample standard deviation of v[0..k), k > 0, without
 * overflow: both are taken on v scaled by the power of two of its
 * largest magnitude, which is exact, so the results are those of the
 * plain sums wherever these do not overflow.  One value has no sample
 * deviation (k - 1 = 0 degrees of freedom): NAN, not the 0 that claimed
 * a step time known exactly.
 */
static void
mean_stdev(const double *v, int k, double *mean, double *stdev)
{
	double big = 0, sum = 0, sq = 0, m;
	int e;

	for (int i = 0; i < k; i++)
		if (fabs(v[i]) > big)
			big = fabs(v[i]);
	e = big > 0 ? ilogb(big) : 0;
	for (int i = 0; i < k; i++)
		sum += ldexp(v[i], -e);
	m = sum / k;
	for (int i = 0; i < k; i++)
		sq += (ldexp(v[i], -e) - m) * (ldexp(v[i], -e) - m);
	*mean = ldexp(m, e);
	*stdev = k > 1 ? ldexp(sqrt(sq / (k - 1)), e) : NAN;
}

/*
 * A step logged at another global batch size than the last did another
 * amount of work: a ramp-up's smaller batches ran faster, and with them
 * the figures, taken at the last one, would be too good.
 */
size_t
log_result_gbs_start(const struct log_result *r, long *gbs)
{
	size_t i = r->nsteps;

	*gbs = 0;
	while (i > 0 && *gbs == 0)
		*gbs = r->steps[--i].gbs;
	while (i > 0 && (r->steps[i - 1].gbs == 0 ||
	                 r->steps[i - 1].gbs == *gbs))
		i--;
	return i;
}

/* The line of the first record at gbs from start on; 0 when none. */
static long
gbs_line(const struct log_result *r, size_t start, long gbs)
{
	for (size_t i = start; gbs > 0 && i < r->nsteps; i++)
		if (r->steps[i].gbs == gbs)
			return r->steps[i].line;
	return 0;
}

void
log_result_step_stats(const struct log_result *r, int skip_steps,
                      struct log_step_stats *st)
{
	double *v = xcalloc(r->nsteps + 1, sizeof(*v));
	size_t start;
	int k = 0;

	memset(st, 0, sizeof(*st));
	start = log_result_gbs_start(r, &st->gbs);
	st->gbs_line = gbs_line(r, start, st->gbs);
	for (size_t i = 0; i < r->nsteps; i++)
		*(i < start ? &st->ramp_up : &st->timed) +=
			isfinite(r->steps[i].step_time_s);
	/* The warm-up is counted after the ramp-up: the first record at
	 * the last batch size may still time the batch before (a
	 * Megatron-LM record's time is the mean over its log interval). */
	st->skipped = logparse_warmup_steps(skip_steps, st->timed);
	st->measured = st->timed - st->skipped;
	for (size_t i = start, seen = 0; i < r->nsteps; i++) {
		double t = r->steps[i].step_time_s;

		if (!isfinite(t) || (int)seen++ < st->skipped)
			continue;
		/* A time of zero or less is the clock's fault, not a fast
		 * step: in the figures it would pull the mean and median
		 * towards zero or below, so it is only counted, for the
		 * note. */
		st->nonpositive += !(t > 0);
		if (t >= LOGPARSE_STEP_S_MIN)
			v[k++] = t;
	}
	st->counted = k;
	st->mean_s = st->stdev_s = NAN;
	if (k)
		mean_stdev(v, k, &st->mean_s, &st->stdev_s);
	st->median_s = k ? median(v, k) : NAN;
	st->tokens_per_s_median = tokens_median(r, start, skip_steps, v);
	free(v);
}
