/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-notes.c - what reading a log noticed about the file, in
 * words (logparse.h, log_note).  parse, watch and results say them
 * alike: results' row notes had their own copies of some and left the
 * others out, so that a row measured from a cut or clocked log read as
 * one measured from a clean log.
 */
#include "autoconfig.h"

#include "logparse.h"

/* The reader's own notes, from what it counted while reading. */
static bool
read_note(const struct log_result *r, enum log_note n, struct strbuf *sb)
{
	switch (n) {
	case LOG_NOTE_NUL:
		if (r->nul_bytes)
			strbuf_addf(sb, "%lld NUL byte%s from offset %lld "
			            "(binary?)", r->nul_bytes,
			            r->nul_bytes == 1 ? "" : "s",
			            r->first_nul_offset);
		return r->nul_bytes != 0;
	case LOG_NOTE_LONG_LINES:
		if (r->long_lines)
			strbuf_addf(sb, "%ld line%s over %zu bytes cut",
			            r->long_lines,
			            r->long_lines == 1 ? "" : "s",
			            LOGPARSE_LINE_MAX);
		return r->long_lines != 0;
	case LOG_NOTE_TRUNCATED:
		/* Its number, as grep -n gives it: the cut is there. */
		if (r->truncated)
			strbuf_addf(sb, "last line has no line break (line "
			            "%ld: truncated?)", r->lines);
		return r->truncated;
	case LOG_NOTE_STEPS_CAPPED:
		if (r->steps_capped)
			strbuf_addf(sb, "more than %d steps: the rest ignored",
			            LOGPARSE_STEPS_MAX);
		return r->steps_capped;
	default:
		return false;
	}
}

/* Values read and not believed. */
static bool
value_note(const struct log_result *r, enum log_note n, struct strbuf *sb)
{
	if (n == LOG_NOTE_BAD_STEP_TIMES && r->bad_step_times) {
		strbuf_addf(sb, "%ld step time%s under 1 us or over %.0f s "
		            "(11 days) left out, the first on line %ld (a "
		            "damaged log?)", r->bad_step_times,
		            r->bad_step_times == 1 ? "" : "s",
		            LOGPARSE_STEP_S_MAX, r->bad_step_time_line);
		return true;
	}
	if (n == LOG_NOTE_BAD_MEM && r->bad_mem_readings) {
		strbuf_addf(sb, "%ld memory reading%s over %.0f GiB or below "
		            "zero left out, the first on line %ld (a damaged "
		            "log?)", r->bad_mem_readings,
		            r->bad_mem_readings == 1 ? "" : "s",
		            LOGPARSE_MEM_GIB_MAX, r->bad_mem_line);
		return true;
	}
	return false;
}

/* Step times taken from the time stamps (torchtitan's), and the steps
 * those could not time. */
static bool
clock_note(const struct log_result *r, enum log_note n, struct strbuf *sb)
{
	if (n == LOG_NOTE_CLOCKED && r->clocked_steps) {
		strbuf_addf(sb, "%ld step time%s from the time stamps of the "
		            "step lines (the format logs none)",
		            r->clocked_steps, r->clocked_steps == 1 ? "" : "s");
		return true;
	}
	if (n == LOG_NOTE_CLOCK_GAPS && r->clock_gaps) {
		strbuf_addf(sb, "%ld gap%s between step lines over ten times "
		            "the step time before, left untimed (a checkpoint, "
		            "an evaluation, a restart?)", r->clock_gaps,
		            r->clock_gaps == 1 ? "" : "s");
		return true;
	}
	if (n == LOG_NOTE_CLOCK_BACK && r->clock_back) {
		strbuf_addf(sb, "%ld step line%s stamped no later than the "
		            "step line before, left untimed (a clock set "
		            "back?)", r->clock_back,
		            r->clock_back == 1 ? "" : "s");
		return true;
	}
	return false;
}

/* What the figures over the steps left out (log_step_stats). */
static bool
stats_note(const struct log_step_stats *st, enum log_note n,
           struct strbuf *sb)
{
	if (st == NULL)
		return false;
	if (n == LOG_NOTE_NONPOSITIVE && st->nonpositive > 0) {
		strbuf_addf(sb, "%d of %d step times after the warm-up are "
		            "zero or negative: not a measurement, left out",
		            st->nonpositive, st->measured);
		return true;
	}
	if (n == LOG_NOTE_RAMP_UP && st->ramp_up > 0) {
		strbuf_addf(sb, "%d timed step%s before the global batch size "
		            "reached %ld (a ramp-up): not measured, left out",
		            st->ramp_up, st->ramp_up == 1 ? "" : "s", st->gbs);
		return true;
	}
	return false;
}

bool
log_result_note(const struct log_result *r, const struct log_step_stats *st,
                enum log_note n, struct strbuf *sb)
{
	if (n == LOG_NOTE_OTHER_FORMAT && r->other_format_steps) {
		strbuf_addf(sb, "%ld step%s in %s records among the %s ones, "
		            "read as one run (two runs in one log?)",
		            r->other_format_steps,
		            r->other_format_steps == 1 ? "" : "s",
		            log_format_name(r->other_format),
		            log_format_name(r->format));
		return true;
	}
	return read_note(r, n, sb) || value_note(r, n, sb) ||
	       clock_note(r, n, sb) || stats_note(st, n, sb);
}

void
log_result_notes(const struct log_result *r, const struct log_step_stats *st,
                 struct strbuf *sb)
{
	for (int n = 0; n < LOG_NOTE_COUNT; n++) {
		size_t len = sb->len;

		if (len)
			strbuf_addstr(sb, "; ");
		if (!log_result_note(r, st, (enum log_note)n, sb))
			strbuf_setlen(sb, len);
	}
}
