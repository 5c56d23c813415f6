/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * logparse-formats.c - the record heads of the built-in formats:
 * Megatron-LM, NeMo 2.0, NeMo 1.x and torchtitan, whose parsers are in
 * logparse-megatron.c, logparse-nemo2.c, logparse-nemo1.c and
 * logparse-torchtitan.c.
 *
 * Each parser looks for its record heads with one PCRE2 pattern (after a
 * memchr prefilter that rejects most lines for the price of one scan),
 * then reads the "key: value" fields with plain C: fields come in any
 * order and with keys of several words, so one regex per field would scan
 * every line once per key.  A record whose fields are all "key: number" is
 * marked clean, and the failure patterns skip it.
 */
#include "autoconfig.h"

#include <stdlib.h>

#include "error.h"
#include "logparse-int.h"
#include "xalloc.h"

/* Megatron: " iteration       10/     500 |"; no colon after the word
 * (the HF m4 trainer's "iteration:  2500/500000" is another format),
 * and not NeMo 2.0's "Training epoch 0, iteration 9/49 |". */
static const char megatron_head_re[] =
	"(?<!, )iteration\\s+([0-9]+)\\s*/\\s*([0-9]+)\\s*\\|";
/* NeMo 2.0: "Training epoch 0, iteration 9/49". */
static const char nemo2_head_re[] =
	"Training epoch ([0-9]+), iteration ([0-9]+)/([0-9]+)";
/* NeMo 1.x tqdm: "Epoch 0: :  33%|███ | 10/30 [00:28<00:57, k=v]" or,
 * with no known total, "Epoch 0: : 51it [00:20, k=v]". */
static const char nemo1_bar_re[] =
	"Epoch ([0-9]+):(?:[^|\\[]*\\|[^|]*\\|\\s*([0-9]+)(?:/([0-9]+))?"
	"|[^|\\[]*?([0-9]+)it)\\s*\\[([^\\]]*)\\]";
/* torchtitan: "step: 10  loss:  9.1234"; not "validate step:". */
static const char titan_step_re[] =
	"(?<!validate )(?<![\\w])step:\\s*([0-9]+)\\s+loss:";

/*
 * Compile one built-in pattern; failing to is a bug.  The record heads
 * found by logparse_next_head() are compiled anchored: PCRE2's JIT ignores
 * PCRE2_ANCHORED given at match time and falls back to the interpreter.
 */
static pcre2_code *
compile_builtin(const char *re, uint32_t options, pcre2_match_data **md)
{
	PCRE2_SIZE off;
	int code;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
	                              options, &code, &off, NULL);

	if (c == NULL) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(code, msg, sizeof msg);
		bug("pattern '%s' does not compile at offset %zu: %s", re,
		    (size_t)off, (char *)msg);
	}
	(void)pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
	*md = pcre2_match_data_create_from_pattern(c, NULL);
	return c;
}

void
logparse_formats_init(struct logparse *lp)
{
	struct logparse_builtin *b = xcalloc(1, sizeof(*b));

	b->megatron_head = compile_builtin(megatron_head_re, PCRE2_ANCHORED,
	                                   &b->megatron_md);
	b->nemo2_head = compile_builtin(nemo2_head_re, PCRE2_ANCHORED,
	                                &b->nemo2_md);
	b->nemo1_bar = compile_builtin(nemo1_bar_re, 0, &b->nemo1_md);
	b->titan_step = compile_builtin(titan_step_re, 0, &b->titan_md);
	lp->builtin = b;
}

void
logparse_formats_release(struct logparse *lp)
{
	struct logparse_builtin *b = lp->builtin;

	if (b == NULL)
		return;
	pcre2_match_data_free(b->megatron_md);
	pcre2_match_data_free(b->nemo2_md);
	pcre2_match_data_free(b->nemo1_md);
	pcre2_match_data_free(b->titan_md);
	pcre2_code_free(b->megatron_head);
	pcre2_code_free(b->nemo2_head);
	pcre2_code_free(b->nemo1_bar);
	pcre2_code_free(b->titan_step);
	free(b);
	lp->builtin = NULL;
}
