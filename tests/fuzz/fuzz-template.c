/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * fuzz-template.c - libFuzzer target: the sbatch template renderer on
 * arbitrary template text.  It must never crash, and a variable's
 * hostile value must never reach the script as shell.
 *
 * The oracle is differential: the same text is rendered with the
 * variable set to a hostile value and to a plain word.  The template's
 * own text is the same in both, so if the first holds the hostile shell
 * more often than the second, the extra copies came from the value and
 * escaped its quoting.  (Looking for the shell in the text alone is not
 * enough: a comment tag can split it there, "$(touch /{{!}}tmp/...)",
 * and the rendered script then holds it by the template's own doing.)
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"
#include "template.h"
#include "xalloc.h"

/* The variable's hostile value, and the shell in it that its quoted
 * form never shows (the quote is written '\'' there). */
#define HOSTILE_SHELL "$(touch /tmp/pwned)`id`';"
#define HOSTILE HOSTILE_SHELL "\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Occurrences of needle in haystack, overlapping ones included. */
static size_t
count_in(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* Render text with the variable "evil" set to value; -1 on an error. */
static int
render_with(const char *text, const char *value, struct strbuf *out)
{
	struct template_vars vars;
	int ret;

	template_vars_init(&vars);
	template_vars_set_str(&vars, "name", "llama_8b_tp_1");
	template_vars_set_int(&vars, "tp", 2);
	template_vars_set_bool(&vars, "sequence_parallel", 1);
	template_vars_set_str(&vars, "evil", value);
	template_vars_set_raw(&vars, "env_exports", "export A='1'");
	ret = template_render("fuzz.sbatch", text, &vars, out);
	template_vars_release(&vars);
	return ret;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf hostile = STRBUF_INIT, plain = STRBUF_INIT;
	char *text = xstrndup((const char *)data, size);

	/* A plain word renders wherever the hostile value does. */
	if (render_with(text, HOSTILE, &hostile) == 0) {
		if (render_with(text, "plain", &plain) != 0 ||
		    count_in(hostile.buf, HOSTILE_SHELL) >
		    count_in(plain.buf, HOSTILE_SHELL))
			abort();
	}
	strbuf_release(&hostile);
	strbuf_release(&plain);
	free(text);
	return 0;
}
