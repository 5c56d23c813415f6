/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * safe-text.h - text from logs, names and configuration, made safe for
 * whoever reads it.
 *
 * A log line or a candidate name is data, yet printed raw it can drive
 * the reader's terminal (ESC ] 0 ; retitles it, ESC [ 2 J clears it) or,
 * opened in a spreadsheet, run a formula.  Every output point passes
 * such text through here: control characters are spelled out, invalid
 * UTF-8 (stray bytes, overlong forms, surrogates, code points above
 * U+10FFFF, cut sequences) becomes U+FFFD, and CSV text cells that a
 * spreadsheet would evaluate are neutralised.
 */
#ifndef PARATUNE_SAFE_TEXT_H
#define PARATUNE_SAFE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "strbuf.h"

/*
 * Length of the valid UTF-8 sequence at s (1 to 4 bytes, n available),
 * or 0 when the bytes there are not one; *cp gets the code point.
 */
size_t utf8_decode(const char *s, size_t n, unsigned *cp);
/* Whether s[0..n) is valid UTF-8. */
bool utf8_valid(const char *s, size_t n);
/* Whether code point cp is shown as itself: not a C0, DEL or C1
 * control, nor a bidi control that reorders the text around it. */
bool safe_text_shown(unsigned cp);
/* Append s[0..n) with each invalid byte replaced by U+FFFD. */
void utf8_repair_append(struct strbuf *out, const char *s, size_t n);

/*
 * Append s for a terminal: valid UTF-8, with every control character
 * (C0 and DEL) written as \xHH or \n, \t, \r, C1 controls and the bidi
 * controls that reorder what is shown as \u{HHHH}, so that nothing in
 * s reaches the terminal as anything but characters to show.
 */
void safe_text_append(struct strbuf *out, const char *s);
/* The same, keeping newlines and tabs (messages of several lines). */
void safe_text_append_lines(struct strbuf *out, const char *s);

/*
 * Print fmt's text and a newline on out in one write, all of it escaped
 * as safe_text_append does, as error() writes its messages: a line that
 * names a candidate or a directory, which users chose.  fmt holds no
 * newline of its own.
 */
void safe_text_line(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Whether s is plain text, as a configuration value must be: valid
 * UTF-8 holding none of what safe_text_append spells out (C0 controls,
 * tab and line breaks included, DEL, C1 controls, bidi controls).  If
 * not and why is not NULL, why gets the first offender and where it is:
 * "the control character \x1b at byte 5".
 */
bool safe_text_plain(const char *s, struct strbuf *why);

/*
 * Append s as one CSV field of text that came from a log or a user:
 * as safe_text_append, but newlines kept (the field is quoted); a cell
 * starting with '=', '+', '-', '@', a tab or a carriage return is
 * prefixed with a single quote, as OWASP advises against CSV injection,
 * and the field is quoted as RFC 4180 requires.  Numbers paratune
 * writes itself (-1.5) do not come here.
 */
void csv_cell_append(struct strbuf *out, const char *s);

#endif
