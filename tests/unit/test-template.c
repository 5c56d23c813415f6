/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* test-template.c - the template renderer, job-script variables and the
 * simulated template, with hostile values run through a real shell. */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "harness.h"
#include "jobscript.h"
#include "strbuf.h"
#include "template.h"
#include "util.h"
#include "xalloc.h"

/* ---- helpers ------------------------------------------------------------- */

/* Render text as "t.sbatch"; the output (caller frees), NULL on error. */
static char *
render(const char *text, const struct template_vars *v)
{
	struct strbuf out = STRBUF_INIT;

	if (template_render("t.sbatch", text, v, &out)) {
		strbuf_release(&out);
		return NULL;
	}
	return strbuf_detach(&out, NULL);
}

/* Assert that text renders to expected. */
static void
check_render(const char *text, const struct template_vars *v,
             const char *expected)
{
	char *got = render(text, v);

	CU_ASSERT_PTR_NOT_NULL(got);
	if (got) {
		CU_ASSERT_STRING_EQUAL(got, expected);
		if (strcmp(got, expected))
			fprintf(stderr, "\n--- got ---\n%s\n--- expected "
			        "---\n%s\n", got, expected);
	}
	free(got);
}

struct failing_render {
	const char *text;
	const struct template_vars *vars;
	struct strbuf *out;
};

static int
call_render(void *arg)
{
	struct failing_render *f = arg;

	return template_render("t.sbatch", f->text, f->vars, f->out);
}

/*
 * Assert that text fails with a message containing want, and that the
 * output buffer keeps what it held before.
 */
static void
check_error(const char *text, const struct template_vars *v,
            const char *want)
{
	struct strbuf out = STRBUF_INIT;
	struct failing_render f = { text, v, &out };
	char *msg;
	int ret;

	strbuf_addstr(&out, "before");
	msg = harness_capture_stderr(call_render, &f, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_STRING_EQUAL(out.buf, "before");
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
	if (!strstr(msg, want))
		fprintf(stderr, "\nwanted '%s' in '%s'\n", want, msg);
	free(msg);
	strbuf_release(&out);
}

/* Variables most tests use. */
static void
basic_vars(struct template_vars *v)
{
	template_vars_init(v);
	template_vars_set_int(v, "tp", 2);
	template_vars_set_str(v, "name", "llama3_8b_tp2");
	template_vars_set_bool(v, "yes", true);
	template_vars_set_bool(v, "no", false);
	template_vars_set_str(v, "zero", "0");
	template_vars_set_str(v, "empty", "");
	template_vars_set_str(v, "unset", NULL);
	template_vars_set_str(v, "hidden_size", "4096");
	template_vars_set_str(v, "image", "nvcr.io/nvidia/nemo:24.07 x");
	template_vars_set_str(v, "text", "it's");
	template_vars_set_raw(v, "exports", "export A='1'\nexport B='2'");
}

/* Run cmd with /bin/sh -c (popen) and return its standard output. */
static char *
run_shell(const char *cmd)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *p = popen(cmd, "r");
	char buf[4096];
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		strbuf_add(&sb, buf, n);
	CU_ASSERT_EQUAL(pclose(p), 0);
	return strbuf_detach(&sb, NULL);
}

/* ---- the language -------------------------------------------------------- */

static void
test_substitution(void)
{
	struct template_vars v;

	basic_vars(&v);
	check_render("tp={{tp}} n={{ name }}!", &v, "tp=2 n=llama3_8b_tp2!");
	check_render("no tags\n", &v, "no tags\n");
	check_render("", &v, "");
	/* Replacing a value keeps one entry. */
	template_vars_set_int(&v, "tp", 8);
	check_render("{{tp}}", &v, "8");
	CU_ASSERT_STRING_EQUAL(template_vars_lookup(&v, "tp")->value, "8");
	CU_ASSERT_PTR_NULL(template_vars_lookup(&v, "pp"));
	/* A single brace is text. */
	check_render("${x} {a} {{tp}}}", &v, "${x} {a} 8}");
	template_vars_release(&v);
}

static void
test_sections(void)
{
	struct template_vars v;

	basic_vars(&v);
	/* set and not 0/false/"": true */
	check_render("{{#yes}}A{{/yes}}{{^yes}}B{{/yes}}", &v, "A");
	check_render("{{#tp}}A{{/tp}}{{^tp}}B{{/tp}}", &v, "A");
	check_render("{{#name}}A{{/name}}", &v, "A");
	check_render("{{#no}}A{{/no}}{{^no}}B{{/no}}", &v, "B");
	check_render("{{#zero}}A{{/zero}}{{^zero}}B{{/zero}}", &v, "B");
	check_render("{{#empty}}A{{/empty}}{{^empty}}B{{/empty}}", &v, "B");
	check_render("{{#unset}}A{{/unset}}{{^unset}}B{{/unset}}", &v, "B");
	/* A dropped section may hold anything, even unsafe values. */
	check_render("{{#no}}{{image}}{{unset}}{{raw:tp}}{{/no}}.", &v, ".");
	check_render("{{! a comment }}x{{!another}}", &v, "x");
	template_vars_release(&v);
}

static void
test_nested_sections(void)
{
	const char *t = "{{#a}}1{{#b}}2{{/b}}{{^b}}3{{/b}}{{/a}}"
	                "{{^a}}4{{#b}}5{{/b}}{{/a}}";
	struct template_vars v;

	template_vars_init(&v);
	template_vars_set_bool(&v, "a", true);
	template_vars_set_bool(&v, "b", true);
	check_render(t, &v, "12");
	template_vars_set_bool(&v, "b", false);
	check_render(t, &v, "13");
	template_vars_set_bool(&v, "a", false);
	check_render(t, &v, "4");
	template_vars_set_bool(&v, "b", true);
	check_render(t, &v, "45");
	/* The same name nested in itself. */
	check_render("{{#b}}x{{#b}}y{{/b}}z{{/b}}", &v, "xyz");
	template_vars_release(&v);
}

static void
test_standalone_lines(void)
{
	const char *t = "a \\\n"
	                "{{#yes}}\n"
	                "\tb \\\n"
	                "{{/yes}}\n"
	                "  {{^yes}}\n"
	                "\tc \\\n"
	                "  {{/yes}}\n"
	                "{{! note }}\n"
	                "\td\n";
	struct template_vars v;

	basic_vars(&v);
	check_render(t, &v, "a \\\n\tb \\\n\td\n");
	template_vars_set_bool(&v, "yes", false);
	check_render(t, &v, "a \\\n\tc \\\n\td\n");
	/* At the very start and end, without a final newline. */
	check_render("{{#no}}\nx\n{{/no}}", &v, "");
	/* Not alone on its line: the newlines stay. */
	check_render("{{#no}}x{{/no}}\ny {{#no}}\n{{/no}}z\n", &v, "\ny z\n");
	/* A raw variable on a line of its own gives its lines. */
	check_render("{{#exports}}\n{{raw:exports}}\n{{/exports}}\nrun\n", &v,
	             "export A='1'\nexport B='2'\nrun\n");
	template_vars_release(&v);
}

static void
test_deep_nesting(void)
{
	struct strbuf t = STRBUF_INIT;
	struct template_vars v;

	basic_vars(&v);
	for (int i = 0; i < TEMPLATE_MAX_DEPTH; i++)
		strbuf_addstr(&t, "{{#yes}}");
	strbuf_addstr(&t, "deep");
	for (int i = 0; i < TEMPLATE_MAX_DEPTH; i++)
		strbuf_addstr(&t, "{{/yes}}");
	check_render(t.buf, &v, "deep");
	strbuf_reset(&t);
	for (int i = 0; i <= TEMPLATE_MAX_DEPTH; i++)
		strbuf_addstr(&t, "{{#yes}}");
	check_error(t.buf, &v, "t.sbatch:1: sections nested deeper than 32");
	strbuf_release(&t);
	template_vars_release(&v);
}

/* ---- errors -------------------------------------------------------------- */

static void
test_syntax_errors(void)
{
	struct template_vars v;

	basic_vars(&v);
	check_error("a\nb\n{{hiden_size}}\n", &v,
	            "t.sbatch:3: unknown variable 'hiden_size' "
	            "(did you mean 'hidden_size'?)");
	check_error("x\n{{#no}}\n{{q:nonesuch}}\n{{/no}}\n", &v,
	            "t.sbatch:3: unknown variable 'nonesuch'");
	check_error("{{#nonesuch}}{{/nonesuch}}", &v,
	            "t.sbatch:1: unknown variable 'nonesuch'");
	check_error("{{#yes}}\nx\n", &v,
	            "t.sbatch:1: section '{{#yes}}' is not closed");
	check_error("x\n{{^yes}}\n", &v,
	            "t.sbatch:2: section '{{^yes}}' is not closed");
	check_error("{{#yes}}\n{{#no}}\n{{/yes}}\n{{/no}}\n", &v,
	            "t.sbatch:3: '{{/yes}}' does not match '{{#no}}' "
	            "opened on line 2");
	check_error("x\n{{/yes}}", &v,
	            "t.sbatch:2: '{{/yes}}' closes no open section");
	check_error("ok\nfoo }} bar\n", &v,
	            "t.sbatch:2: '}}' without a matching '{{'");
	check_error("{{tp}}\n\n x }}", &v,
	            "t.sbatch:3: '}}' without a matching '{{'");
	check_error("x\n{{tp\n}}\n", &v,
	            "t.sbatch:2: '{{' without a closing '}}'");
	check_error("x\n{{! never closed\n", &v,
	            "t.sbatch:2: '{{' without a closing '}}'");
	check_error("{{tp-size}}", &v, "t.sbatch:1: invalid tag '{{tp-size}}'");
	check_error("{{}}", &v, "t.sbatch:1: invalid tag '{{}}'");
	check_error("{{x:tp}}", &v, "t.sbatch:1: invalid tag '{{x:tp}}'");
	check_error("{{9tp}}", &v, "t.sbatch:1: invalid tag '{{9tp}}': a "
	            "variable name is letters, digits and '_' (at most 63, "
	            "not starting with a digit)");
	/* Line numbers count newlines inside comments. */
	check_error("{{! one\ntwo }}\n{{nonesuch}}", &v,
	            "t.sbatch:3: unknown variable 'nonesuch'");
	template_vars_release(&v);
}

/* A template says which campaigns it cannot run, in its own words. */
static void
test_refuse(void)
{
	struct template_vars v;

	basic_vars(&v);
	check_error("a\n{{#yes}}\n{{refuse: no LoRA here; use nemo2}}\n"
	            "{{/yes}}\n", &v,
	            "t.sbatch:3: this template cannot run the campaign: no "
	            "LoRA here; use nemo2");
	/* In a dropped section it is no more than a comment, and its line
	 * vanishes like a comment's. */
	check_render("a\n{{#no}}\n{{refuse: never}}\n{{/no}}\nb\n", &v,
	             "a\nb\n");
	check_render("a\n{{^yes}}\n  {{ refuse: never }}\n{{/yes}}\nb\n", &v,
	             "a\nb\n");
	check_error("{{refuse:}}", &v, "t.sbatch:1: '{{refuse:}}' without a "
	            "reason");
	check_error("{{refuse:   }}", &v, "without a reason");
	template_vars_release(&v);
}

static void
test_value_errors(void)
{
	struct template_vars v;

	basic_vars(&v);
	check_error("x\n--image {{image}}\n", &v,
	            "t.sbatch:2: value of 'image' is not a shell-safe word; "
	            "use {{q:image}}");
	check_error("{{text}}", &v, "value of 'text' is not a shell-safe "
	            "word");
	check_error("{{empty}}", &v, "value of 'empty' is not a shell-safe "
	            "word");
	check_error("{{exports}}", &v, "value of 'exports' is not a "
	            "shell-safe word");
	check_error("{{raw:name}}", &v,
	            "t.sbatch:1: 'name' is not a raw variable; use {{name}} "
	            "or {{q:name}}");
	check_error("{{q:unset}}", &v,
	            "t.sbatch:1: variable 'unset' is not set here");
	/* Quoting that would come apart in its context. */
	check_error("echo \"{{q:text}}\"", &v,
	            "t.sbatch:1: {{q:text}} is inside shell quotes");
	check_error("echo 'a{{q:text}}'", &v, "is inside shell quotes");
	check_error("echo \"\n{{raw:exports}}\"", &v,
	            "t.sbatch:2: {{raw:exports}} is inside shell quotes");
	check_error("echo ${{q:text}}", &v, "{{q:text}} follows '$'");
	check_error("echo \\{{q:text}}", &v, "{{q:text}} follows '\\'");
	check_error("# {{q:exports}}", &v,
	            "value of 'exports' holds a newline and {{q:exports}} is "
	            "in a shell comment");
	/* bash expands the word of ">&" once more when it is no number,
	 * so a $(...) in the value would run. */
	check_error("echo hi >& {{q:text}}", &v,
	            "t.sbatch:1: {{q:text}} is in the word after '>&', which "
	            "bash expands twice; write >{{q:text}} 2>&1");
	check_error("echo hi 1>&a\"$(echo {{raw:exports}})\"", &v,
	            "{{raw:exports}} is in the word after '>&'");
	check_error("echo hi >& \\\n {{q:text}}", &v,
	            "t.sbatch:2: {{q:text}} is in the word after '>&'");
	check_error("echo hi >&<(cat)x{{q:text}}", &v,
	            "{{q:text}} is in the word after '>&'");
	check_render("echo hi 2>&1 {{q:text}} >&2 {{q:text}} >&{{tp}} "
	             "&>{{q:text}}", &v, "echo hi 2>&1 'it'\\''s' >&2 "
	             "'it'\\''s' >&2 &>'it'\\''s'");
	/* Balanced quotes, escaped quotes and '#' inside words are fine. */
	check_render("echo \"a\\\"\" 'b' x#y {{q:text}} # {{q:text}}\n", &v,
	             "echo \"a\\\"\" 'b' x#y 'it'\\''s' # 'it'\\''s'\n");
	/* Spaces after 'q:' are read as after '#'. */
	check_render("x {{ q: text }}\n", &v, "x 'it'\\''s'\n");
	template_vars_release(&v);
}

/*
 * Backquotes and $'...' change what a backslash and a quote mean: a
 * single-quoted word in `...` loses a backslash of each pair and ends at
 * a backquote of its own, and in $'...' it is no quoting at all.  No
 * substitution goes there, not even a safe word, which $'\x..' would
 * read as part of an escape.
 */
static void
test_backquotes_and_dollar_quotes(void)
{
	struct template_vars v;

	basic_vars(&v);
	check_error("x=`echo {{q:text}}`", &v,
	            "t.sbatch:1: {{q:text}} is inside backquotes `...`; "
	            "write the command as $(...)");
	check_error("x=\"`echo {{q:text}}`\"", &v,
	            "t.sbatch:1: {{q:text}} is inside backquotes");
	check_error("x=\"`echo \"{{q:text}}\"`\"", &v,
	            "t.sbatch:1: {{q:text}} is inside backquotes");
	check_error("x=`\n\n{{raw:exports}}`", &v,
	            "t.sbatch:3: {{raw:exports}} is inside backquotes");
	check_error("x=`echo {{tp}}`", &v,
	            "t.sbatch:1: {{tp}} is inside backquotes");
	check_error("x=`echo \\{{q:text}}`", &v, "is inside backquotes");
	check_error("x=`echo \\`date\\` {{tp}}`", &v, "is inside backquotes");
	check_error("x=`echo \\\\\\`{{tp}}`", &v, "is inside backquotes");
	check_error("echo $'{{q:text}}'", &v,
	            "t.sbatch:1: {{q:text}} is inside $'...', where "
	            "backslash escapes are live; put it outside the quotes");
	check_error("echo $'\\x{{tp}}'", &v, "{{tp}} is inside $'...'");
	/* bash reads \' as a quote inside $'...', dash (which has no
	 * $'...') as the end of '...': the renderer follows neither. */
	check_error("echo $'it\\'s {{q:text}} '", &v,
	            "t.sbatch:1: {{q:text}} cannot be placed: on line 1 the "
	            "renderer stopped following the shell at \\' inside "
	            "$'...'");
	check_error("echo $'it\\'s\n{{tp}}'", &v,
	            "t.sbatch:2: {{tp}} cannot be placed: on line 1");
	check_error("echo $'it\\'s' {{q:text}}", &v, "at \\' inside $'...'");
	check_error("echo x$'{{tp}}'", &v, "{{tp}} is inside $'...'");
	check_error("echo $$$'{{tp}}'", &v, "{{tp}} is inside $'...'");
	check_error("echo $'\\\\{{raw:exports}}'", &v,
	            "{{raw:exports}} is inside $'...'");
	/* A '$' that starts no expansion, then a plain single quote. */
	check_render("echo $$'{{tp}}' \\$'{{tp}}' \"$\"'{{tp}}' ${x}'{{tp}}'",
	             &v, "echo $$'2' \\$'2' \"$\"'2' ${x}'2'");
	check_error("echo $$'{{q:text}}'", &v,
	            "{{q:text}} is inside shell quotes");
	/* Backquotes and $' that are not one: escaped, quoted, commented. */
	check_render("echo \\`{{q:text}}\\` \"\\`\" '`' \"$'\" {{q:text}}",
	             &v, "echo \\`'it'\\''s'\\` \"\\`\" '`' \"$'\" "
	             "'it'\\''s'");
	check_render("# `it's $'\n{{q:text}}", &v, "# `it's $'\n'it'\\''s'");
	check_render("echo \"$'{{tp}}\"", &v, "echo \"$'2\"");
	/* After the closing backquote or quote, as before. */
	check_render("x=`date` \"`date`\" `echo \\\\` $'\\\\' {{q:text}}",
	             &v, "x=`date` \"`date`\" `echo \\\\` $'\\\\' "
	             "'it'\\''s'");
	check_error("x=\"`date`{{q:text}}\"", &v,
	            "{{q:text}} is inside shell quotes");
	/* A quote does not hide the closing backquote, and '#' after it is
	 * in the same word. */
	check_render("x=`echo \"'\"` {{q:text}}", &v,
	             "x=`echo \"'\"` 'it'\\''s'");
	check_render("x=`date`#{{raw:exports}}", &v,
	             "x=`date`#export A='1'\nexport B='2'");
	template_vars_release(&v);
}

/*
 * bash takes a value after a closed `...` and $'...' literally: the
 * renderer's idea of where they end is the shell's.
 */
static void
test_values_after_backquotes_survive_bash(void)
{
	const char *values[] = {
		"it's", "`echo injected`", "\\`", "'\\''", "a\\\\b", "$'\\n'",
	};

	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		struct template_vars v;
		struct strbuf cmd = STRBUF_INIT;
		char *script, *got, *want;

		template_vars_init(&v);
		template_vars_set_str(&v, "x", values[i]);
		script = render("printf '%s|' `printf a` \"`printf b`\" "
		                "`printf '\\\\'` \\` $'\\\\' $$'c' "
		                "{{q:x}}", &v);
		CU_ASSERT_PTR_NOT_NULL_FATAL(script);
		strbuf_addstr(&cmd, "bash -c ");
		template_shell_quote(&cmd, script);
		strbuf_addstr(&cmd, " | sed 's/[0-9]*c|/c|/'");
		got = run_shell(cmd.buf);
		want = xasprintf("a|b|\\|`|\\|c|%s|", values[i]);
		CU_ASSERT_STRING_EQUAL(got, want);
		free(want);
		free(got);
		free(script);
		strbuf_release(&cmd);
		template_vars_release(&v);
	}
}

/*
 * "$(" starts a new command context even inside double quotes, and
 * quotes nest in ${...}: the inner '"' of x="$(echo "{{q:x}}")" opens
 * quotes rather than closing the outer ones, so a single-quoted value
 * there would be double-quoted, its $(...) and backquotes live.  A value
 * stands where the innermost context lets it; after anything the lexer
 * cannot follow exactly, none does.
 */
static void
test_nested_substitutions(void)
{
	struct template_vars v;
	struct strbuf t = STRBUF_INIT;

	basic_vars(&v);
	check_error("x=\"$(echo \"{{q:text}}\")\"", &v,
	            "t.sbatch:1: {{q:text}} is inside shell quotes");
	check_error("x=\"$(echo $(echo \"a\" \"{{q:text}}\"))\"", &v,
	            "{{q:text}} is inside shell quotes");
	check_error("x=\"$(\necho \"\n{{raw:exports}}\")\"", &v,
	            "t.sbatch:3: {{raw:exports}} is inside shell quotes");
	check_error("y=\"${z:-\"{{q:text}}\"}\"", &v,
	            "t.sbatch:1: {{q:text}} is inside shell quotes");
	check_error("y=\"${z:-{{q:text}}}\"", &v,
	            "t.sbatch:1: {{q:text}} is inside ${...}; set a shell "
	            "variable to it before (v={{q:text}}) and write $v there");
	check_error("y=${z:-{{q:text}}}", &v, "{{q:text}} is inside ${...}");
	check_error("y=${z:-$(echo {{q:text}})}${z:-{{raw:exports}}}", &v,
	            "{{raw:exports}} is inside ${...}");
	check_error("echo $(( 1 +\n{{q:text}} ))", &v,
	            "t.sbatch:2: {{q:text}} is inside arithmetic; only "
	            "{{text}} goes there");
	check_error("x=\"$(echo `echo {{tp}}`)\"", &v, "is inside backquotes");
	/* Where the innermost context is a command, as outside quotes. */
	check_render("x=\"$(echo {{q:text}})\" y=\"${z:-$(echo {{q:text}})}\"",
	             &v, "x=\"$(echo 'it'\\''s')\" "
	             "y=\"${z:-$(echo 'it'\\''s')}\"");
	check_render("x=\"$(echo \"$(echo {{q:text}})\")\"", &v,
	             "x=\"$(echo \"$(echo 'it'\\''s')\")\"");
	/* After the end of each, as before it. */
	check_render("x=\"$(echo \")\" ')' \\) # )\n)\" {{q:text}}", &v,
	             "x=\"$(echo \")\" ')' \\) # )\n)\" 'it'\\''s'");
	check_render("x=\"$( (echo a) )\" \"${z:-\"}\"}\" {{q:text}}", &v,
	             "x=\"$( (echo a) )\" \"${z:-\"}\"}\" 'it'\\''s'");
	check_render("echo $((1 + (2) )) $(( {{tp}} * 2 )) {{q:text}}", &v,
	             "echo $((1 + (2) )) $(( 2 * 2 )) 'it'\\''s'");
	check_render("echo \"${z:-{{name}}}\" ${z#\"{{tp}}\"} {{q:text}}", &v,
	             "echo \"${z:-llama3_8b_tp2}\" ${z#\"2\"} 'it'\\''s'");
	check_render("case $1 in a) echo;; esac; echo {{q:text}}", &v,
	             "case $1 in a) echo;; esac; echo 'it'\\''s'");
	check_render("echo \"${z#'a'}\" {{q:text}}", &v,
	             "echo \"${z#'a'}\" 'it'\\''s'");
	/* A '#' after $(...) is in the same word. */
	check_render("x=$(date)#{{raw:exports}}", &v,
	             "x=$(date)#export A='1'\nexport B='2'");
	/* What the lexer does not follow: a case command's patterns end in
	 * an unmatched ')'; bash ends "${z:-'}'}" after the quotes, dash
	 * inside them; "$((" may not be arithmetic. */
	check_error("x=$(case $1 in a) echo;; esac)\necho {{q:text}}", &v,
	            "t.sbatch:2: {{q:text}} cannot be placed: on line 1 the "
	            "renderer stopped following the shell at a case command "
	            "inside $(...), whose patterns end in an unmatched ')'; "
	            "move the case command into a function defined before "
	            "it");
	check_error("x=\"$(case a in a) echo \"{{tp}}\";; esac)\"", &v,
	            "{{tp}} cannot be placed: on line 1 the renderer stopped "
	            "following the shell at a case command");
	check_error("echo \"${z:-'}'}\"\n{{q:text}}", &v,
	            "t.sbatch:2: {{q:text}} cannot be placed: on line 1 the "
	            "renderer stopped following the shell at a '}' inside "
	            "'...' within a quoted ${...}");
	/* bash reports a metacharacter in NAME=(...) as an error and
	 * goes on at the next line, which may be one of a value's. */
	check_error("x=(( {{q:text}}", &v,
	            "at a ';', '&', '|', '<', '>' or '(' inside NAME=(...), "
	            "where bash reports the error and goes on at the next "
	            "line; quote the character");
	check_error("a=(b) x=( ; {{q:text}} )", &v, "inside NAME=(...)");
	check_error("f() x=( # c\n{ {{q:text}} )", &v,
	            "t.sbatch:2: {{q:text}} cannot be placed: on line 2 the "
	            "renderer stopped following the shell at a '{' as the "
	            "first word of NAME=(...)");
	check_render("x=({a,b} \"{\" { {{q:text}} )", &v,
	             "x=({a,b} \"{\" { 'it'\\''s' )");
	/* bash 5.2 reads x=(a 'b'\''c;d') inside $(...) as x=(a 'b\'...,
	 * so the ';' ends the command and the rest of a value runs. */
	check_error("echo \"$(y=(a b); echo ${y[1]})\"\n{{q:text}}", &v,
	            "t.sbatch:2: {{q:text}} cannot be placed: on line 1 the "
	            "renderer stopped following the shell at a NAME=(...) "
	            "inside $(...), where bash 5.2 misreads backslashes");
	check_render("x=( a \"b\" $(echo \")\") # )\n {{q:text}} ) {{q:text}}",
	             &v, "x=( a \"b\" $(echo \")\") # )\n 'it'\\''s' ) "
	             "'it'\\''s'");
	check_error("diff <(x=(a)) - {{q:text}}", &v,
	            "at a NAME=(...) inside $(...)");
	check_render("diff <(echo \")\") >(cat) {{q:text}}", &v,
	             "diff <(echo \")\") >(cat) 'it'\\''s'");
	/* A backslash-newline is no character: '#' after it may start a
	 * comment. */
	check_error("echo a\n\\\n# {{q:exports}}", &v,
	            "t.sbatch:3: value of 'exports' holds a newline and "
	            "{{q:exports}} is in a shell comment");
	check_render("echo a\\\n#{{q:text}}", &v, "echo a\\\n#'it'\\''s'");
	check_error("echo $((a) ) {{tp}}", &v,
	            "at a '$((' or '((' that does not end in '))'");
	check_error("echo $((a){{tp}})", &v,
	            "{{tp}} is between the two ')' that end $((...))");
	for (int i = 0; i < 32; i++)
		strbuf_addstr(&t, "\"$(");
	strbuf_addstr(&t, "{{tp}}");
	check_error(t.buf, &v, "at quotes and substitutions nested more "
	            "than 32 deep");
	strbuf_release(&t);
	template_vars_release(&v);
}

/*
 * A plain {{name}} right after a '$' that starts an expansion becomes
 * $value, a parameter; after "$NAME" it lengthens the name, and in the
 * name of a ${...} it names the parameter.
 */
static void
test_tags_after_dollar(void)
{
	struct template_vars v;

	basic_vars(&v);
	check_error("echo ${{name}}", &v,
	            "t.sbatch:1: {{name}} follows '$', which would expand its "
	            "value as a parameter; write \\$ for a literal '$'");
	check_error("echo \"${{tp}}\"", &v, "{{tp}} follows '$'");
	check_error("echo $(( ${{tp}} ))", &v, "{{tp}} follows '$'");
	check_error("echo ${z:-${{tp}}}", &v, "{{tp}} follows '$'");
	check_error("x=\"$(echo ${{tp}})\"", &v, "{{tp}} follows '$'");
	check_error("echo $$${{tp}}", &v, "{{tp}} follows '$'");
	check_error("cat <<EOF\nx ${{tp}}\nEOF\n", &v,
	            "t.sbatch:2: {{tp}} follows '$'");
	check_error("echo $HOME{{name}}", &v,
	            "t.sbatch:1: {{name}} follows '$HOME' and its value would "
	            "lengthen that parameter's name; write ${HOME}{{name}}");
	check_error("echo \"$_x1{{tp}}\"", &v, "{{tp}} follows '$_x1'");
	check_error("echo ${!{{name}}}", &v,
	            "t.sbatch:1: {{name}} is in the name of a ${...}, so its "
	            "value would name the parameter");
	check_error("echo ${#{{name}}}", &v, "is in the name of a ${...}");
	check_error("echo \"${x{{tp}}}\"", &v, "is in the name of a ${...}");
	/* A '$' that starts no expansion, or one whose name has ended. */
	check_render("echo $${{tp}} \\${{tp}} '${{tp}}' \"\\${{tp}}\" "
	             "${HOME}{{tp}} $1{{tp}} $HOME-{{tp}} ${z:-{{tp}}} "
	             "# ${{tp}}\n", &v,
	             "echo $$2 \\$2 '$2' \"\\$2\" ${HOME}2 $12 $HOME-2 "
	             "${z:-2} # $2\n");
	check_render("cat <<'EOF'\n${{tp}}\nEOF\n", &v,
	             "cat <<'EOF'\n$2\nEOF\n");
	template_vars_release(&v);
}

/*
 * In a here-document's body quotes are text, $(...) and backquotes are
 * live unless the delimiter was quoted, and the body ends at the first
 * line that is the delimiter, even one of a value.  q: and raw: are
 * refused there; a plain word only where it could complete that line.
 */
static void
test_heredocs(void)
{
	struct template_vars v;

	basic_vars(&v);
	check_error("cat <<EOF\nname: {{q:text}}\nEOF\n", &v,
	            "t.sbatch:2: {{q:text}} is in a here-document, where "
	            "quotes do not quote; set a shell variable to it before "
	            "(v={{q:text}}) and write \"$v\" in an unquoted one");
	check_error("cat <<'EOF'\n{{q:text}}\nEOF\n", &v,
	            "t.sbatch:2: {{q:text}} is in a here-document");
	check_error("cat <<-\"EOF\" >f\n\t{{raw:exports}}\n\tEOF\n", &v,
	            "{{raw:exports}} is in a here-document");
	check_error("cat <<E\\OF\n\"$(echo \"\n{{q:text}}\nEOF\n", &v,
	            "t.sbatch:3: {{q:text}} is in a here-document");
	check_error("x=\"$(cat <<EOF\n{{q:text}}\nEOF\n)\"", &v,
	            "t.sbatch:2: {{q:text}} is in a here-document");
	check_error("cat <<A - <<B # <<C\na\nA\n{{q:text}}\nB\n", &v,
	            "t.sbatch:4: {{q:text}} is in a here-document");
	check_error("cat <<EOF\n EOF\nEOF \n{{q:text}}\nEOF\n", &v,
	            "t.sbatch:4: {{q:text}} is in a here-document");
	check_error("cat <<EOF\na\\\nEOF\n{{q:text}}\nEOF\n", &v,
	            "t.sbatch:4: {{q:text}} is in a here-document");
	check_error("cat <<EOF\n{{name}}\nEOF\n", &v,
	            "t.sbatch:2: {{name}} could complete the line 'EOF' that "
	            "ends its here-document; put other text before it on the "
	            "line");
	check_error("cat <<-EOF\n\t\tE{{name}}\nEOF\n", &v,
	            "{{name}} could complete the line 'EOF'");
	/* A plain word elsewhere in the body, and values after its end:
	 * the delimiter alone on a line (after tabs with <<-), whatever
	 * quotes or substitutions the body left open. */
	check_render("cat <<EOF >c.yaml\ntp: {{tp}}\n\tname: {{name}}\n"
	             "EOF{{tp}}\nEOF\necho {{q:text}}\n", &v,
	             "cat <<EOF >c.yaml\ntp: 2\n\tname: llama3_8b_tp2\n"
	             "EOF2\nEOF\necho 'it'\\''s'\n");
	check_render("cat <<EOF\n\"'$(\nEOF\necho {{q:text}}\n", &v,
	             "cat <<EOF\n\"'$(\nEOF\necho 'it'\\''s'\n");
	check_render("cat <<-'EOF'\na\\\n\tEOF\necho {{q:text}}\n", &v,
	             "cat <<-'EOF'\na\\\n\tEOF\necho 'it'\\''s'\n");
	check_render("cat <<EOF\n\\\nEOF\necho {{q:text}}\n", &v,
	             "cat <<EOF\n\\\nEOF\necho 'it'\\''s'\n");
	check_render("x=$(cat <<'EOF'\n)\"'\nEOF\n) {{q:text}}", &v,
	             "x=$(cat <<'EOF'\n)\"'\nEOF\n) 'it'\\''s'");
	/* Not here-documents: <<<, << in arithmetic, quoted or escaped. */
	check_render("cat <<< {{q:text}}; echo $((1 << 2)) \"<<\" \\<<x\n"
	             "(( x <<= 1 )); echo {{q:text}}\n", &v,
	             "cat <<< 'it'\\''s'; echo $((1 << 2)) \"<<\" \\<<x\n"
	             "(( x <<= 1 )); echo 'it'\\''s'\n");
	/* What the lexer does not follow. */
	check_error("cat <<$x\na\n$x\necho {{q:text}}\n", &v,
	            "t.sbatch:4: {{q:text}} cannot be placed: on line 1 the "
	            "renderer stopped following the shell at a here-document "
	            "delimiter that is empty, longer than 63 characters, or "
	            "holds '$', '`' or a newline");
	check_error("cat <<EOF \"a\nb\"\nEOF\n{{tp}}\n", &v,
	            "{{tp}} cannot be placed: on line 1 the renderer stopped "
	            "following the shell at a here-document whose body");
	check_error("cat <<-EOF\n\ta\\\n\tEOF\n{{tp}}\n", &v,
	            "on line 2 the renderer stopped following the shell at a "
	            "backslash-newline in the body of an unquoted <<- "
	            "here-document");
	check_error("cat <<EOF\n$(cat <<X\nEOF\n{{tp}}", &v,
	            "at a here-document inside the body of a here-document");
	check_error("cat <<{{name}}\n", &v,
	            "t.sbatch:1: {{name}} is in the word after '<<' that ends "
	            "a here-document; write the word itself");
	template_vars_release(&v);
}

/* Render template with x set to value, run it with shell and assert that
 * it prints the value followed by ".|". */
static void
check_shell_prints_value(const char *shell, const char *template,
                         const char *value)
{
	struct template_vars v;
	struct strbuf cmd = STRBUF_INIT;
	char *script, *got, *want;

	template_vars_init(&v);
	template_vars_set_str(&v, "x", value);
	script = render(template, &v);
	CU_ASSERT_PTR_NOT_NULL_FATAL(script);
	strbuf_addf(&cmd, "%s -c ", shell);
	template_shell_quote(&cmd, script);
	got = run_shell(cmd.buf);
	want = xasprintf("%s.|", value);
	CU_ASSERT_STRING_EQUAL(got, want);
	if (strcmp(got, want))
		fprintf(stderr, "\n%s ran\n%s\n", shell, script);
	free(want);
	free(got);
	free(script);
	strbuf_release(&cmd);
	template_vars_release(&v);
}

/*
 * Values that the renderer lets into nested substitutions, and after
 * constructs it follows to their end, reach bash and dash unchanged and
 * run nothing.
 */
static void
test_nested_values_survive_the_shells(void)
{
	static const char *const templates[] = {
		"printf '%s|' \"$(printf '%s.' {{q:x}})\"",
		"printf '%s|' \"${unset_var:-$(printf '%s.' {{q:x}})}\"",
		"printf '%s|' \"${unset_var:-\"$(printf '%s.' {{q:x}})\"}\"",
		"printf '%s|' \"$(echo \")\" >/dev/null; printf '%s.' "
		"{{q:x}})\"",
		"printf '%s|' \"$(printf '%s' \"$(printf '%s.' {{q:x}})\")\"",
		"x=\"${unset_var:-\"}\"}\" y=\"$(echo \"(\")\"; "
		"printf '%s|' {{q:x}}.",
		"cat <<'EOF' >/dev/null\n\"'$(\nEOF\nprintf '%s|' {{q:x}}.",
		"cat <<EOF >/dev/null\n\"'$(echo \")\")\nEOF\n"
		"printf '%s|' {{q:x}}.",
		"x=$(cat <<'EOF'\n)\"'\nEOF\n); printf '%s|' {{q:x}}.",
		"cat <<EOF >/dev/null\n\\\nEOF\nprintf '%s|' {{q:x}}.",
		"echo $((1 << 2)) >/dev/null; printf '%s|' {{q:x}}.",
		"printf '%s|' {{q:x}}. 2>&1 >&1",
	};
	char *dir = harness_tmpdir();
	char *pwned = xasprintf("%s/pwned", dir);
	char *touch = xasprintf("it's$(touch %s)`touch %s`", pwned, pwned);
	char *breakout = xasprintf(")}\"'\nEOF\ntouch %s\n", pwned);
	const char *values[] = {
		touch, breakout, "\"", "'", "\\", "a\nb\n", "$HOME ${HOME}",
	};

	for (size_t i = 0; i < sizeof templates / sizeof templates[0]; i++) {
		for (size_t j = 0; j < sizeof values / sizeof values[0]; j++) {
			check_shell_prints_value("/bin/bash", templates[i],
			                         values[j]);
			check_shell_prints_value("/bin/dash", templates[i],
			                         values[j]);
		}
	}
	CU_ASSERT_FALSE(path_exists(pwned));
	harness_rmtree(dir);
	free(breakout);
	free(touch);
	free(pwned);
	free(dir);
}

/* ---- shell quoting ------------------------------------------------------- */

static void
test_safe_words(void)
{
	CU_ASSERT_TRUE(template_safe_word("nvcr.io/nvidia/nemo:24.07"));
	CU_ASSERT_TRUE(template_safe_word("a=b,c@d%e+f-g_h"));
	CU_ASSERT_FALSE(template_safe_word(""));
	CU_ASSERT_FALSE(template_safe_word("a b"));
	CU_ASSERT_FALSE(template_safe_word("a$b"));
	CU_ASSERT_FALSE(template_safe_word("a;b"));
	CU_ASSERT_FALSE(template_safe_word("a'b"));
	CU_ASSERT_FALSE(template_safe_word("~root"));
	CU_ASSERT_FALSE(template_safe_word("*"));
	CU_ASSERT_FALSE(template_safe_word("a\nb"));
	CU_ASSERT_FALSE(template_value_true(NULL));
	CU_ASSERT_FALSE(template_value_true("false"));
	CU_ASSERT_TRUE(template_value_true("00"));
	CU_ASSERT_TRUE(template_value_true("no"));
}

static void
test_quote_form(void)
{
	struct strbuf sb = STRBUF_INIT;

	template_shell_quote(&sb, "it's");
	CU_ASSERT_STRING_EQUAL(sb.buf, "'it'\\''s'");
	strbuf_reset(&sb);
	template_shell_quote(&sb, "");
	CU_ASSERT_STRING_EQUAL(sb.buf, "''");
	strbuf_release(&sb);
}

/*
 * Each value goes through {{q:x}} into a command that a real shell runs;
 * the shell must print the value back unchanged, and a command hidden in
 * a value must not run.
 */
static void
test_quoted_values_survive_the_shell(void)
{
	char *dir = harness_tmpdir();
	char *pwned = xasprintf("%s/pwned", dir);
	char *touch = xasprintf("$(touch %s)`touch %s`", pwned, pwned);
	const char *values[] = {
		"$(rm -rf /nonexistent-paratune)", "`echo injected`",
		"it's", "'", "''", "\"double\" quotes", "a\nb\n", "\n",
		"; echo injected", "a && b || c | d & e",
		"\\", "\\'", "$HOME ${HOME} $((1+1))", "*", " lead and trail ",
		"!event ~ # not a comment", "tab\there", "", "{{tp}}",
		touch,
	};

	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		struct template_vars v;
		char *cmd, *got;

		template_vars_init(&v);
		template_vars_set_str(&v, "x", values[i]);
		cmd = render("printf '%s' {{q:x}}", &v);
		CU_ASSERT_PTR_NOT_NULL_FATAL(cmd);
		got = run_shell(cmd);
		CU_ASSERT_STRING_EQUAL(got, values[i]);
		free(got);
		free(cmd);
		template_vars_release(&v);
	}
	CU_ASSERT_FALSE(path_exists(pwned));
	harness_rmtree(dir);
	free(touch);
	free(pwned);
	free(dir);
}

/* ---- job-script variables ------------------------------------------------ */

/*
 * Llama 3 8B as Meta publishes it (config.json of meta-llama/
 * Meta-Llama-3-8B): 32 layers, hidden 4096, intermediate 14336, 32 heads,
 * 8 key-value heads, vocabulary 128256, 8192 positions, SwiGLU, RMSNorm,
 * RoPE, untied output layer, no biases.
 */
static void
llama3_8b_campaign(struct settings *c)
{
	struct model *m = &c->model;

	settings_init(c);
	c->name = xstrdup("demo");
	c->model_name = xstrdup("llama3_8b");
	c->gpu_name = xstrdup("h100-sxm");
	snprintf(m->name, sizeof m->name, "llama3_8b");
	snprintf(m->nemo_recipe, sizeof m->nemo_recipe, "llama3_8b");
	m->num_layers = 32;
	m->hidden_size = 4096;
	m->ffn_hidden_size = 14336;
	m->num_attention_heads = 32;
	m->num_query_groups = 8;
	m->kv_channels = 128;
	m->vocab_size = 128256;
	m->max_position_embeddings = 8192;
	m->swiglu = true;
	m->normalization = NORM_RMSNORM;
	m->position_embedding_type = POS_ROPE;
	m->untie_embeddings = true;
	c->nodes = 2;
	c->gpus_per_node = 8;
	c->seq_length = 8192;
	c->precision = PREC_BF16;
}

/* tp 2, pp 4, vp 2 on 16 GPUs: dp = 16 / (2*4) = 2. */
static void
interleaved_layout(struct layout *l)
{
	memset(l, 0, sizeof(*l));
	l->tp = 2;
	l->pp = 4;
	l->cp = 1;
	l->ep = 1;
	l->vp = 2;
	l->dp = 2;
	l->mbs = 1;
	l->gbs = 128;
	l->recompute = RECOMPUTE_FULL;
	l->sequence_parallel = true;
	l->distributed_optimizer = true;
	l->attention = ATTN_FLASH;
}

/* The value of name, "(unset)" or "(unknown)". */
static const char *
var(const struct template_vars *v, const char *name)
{
	const struct template_var *x = template_vars_lookup(v, name);

	return !x ? "(unknown)" : x->value ? x->value : "(unset)";
}

static void
test_jobscript_vars(void)
{
	static const struct { const char *name, *value; } want[] = {
		{ "name", "cand1" }, { "tp", "2" }, { "pp", "4" },
		{ "cp", "1" }, { "ep", "1" }, { "etp", "2" }, { "vp", "2" },
		/* 32 layers / (pp 4 * vp 2) */
		{ "vp_layers", "4" }, { "mbs", "1" }, { "gbs", "128" },
		{ "dp", "2" }, { "recompute", "full" },
		{ "recompute_full", "true" },
		{ "recompute_selective", "false" },
		{ "recompute_layers", "0" }, { "recompute_method", "uniform" },
		{ "recompute_num_layers", "1" },
		{ "sequence_parallel", "true" },
		{ "distributed_optimizer", "true" }, { "attention", "flash" },
		{ "model_name", "llama3_8b" }, { "nemo_recipe", "llama3_8b" },
		{ "num_layers", "32" }, { "hidden_size", "4096" },
		{ "ffn_hidden_size", "14336" }, { "num_attention_heads", "32" },
		{ "num_query_groups", "8" }, { "gqa", "true" },
		{ "kv_channels", "128" }, { "vocab_size", "128256" },
		{ "max_position_embeddings", "8192" }, { "seq_length", "8192" },
		{ "max_positions", "8192" },
		{ "swiglu", "true" }, { "rmsnorm", "true" },
		{ "normalization", "RMSNorm" }, { "rope", "true" },
		{ "position_embedding_type", "rope" },
		{ "untie_embeddings", "true" },
		{ "disable_bias_linear", "true" },
		{ "moe", "false" }, { "num_experts", "0" },
		{ "precision", "bf16" }, { "bf16", "true" },
		{ "fp16", "false" },
		{ "fp8", "false" }, { "campaign_name", "demo" },
		{ "campaign_dir", "/c" }, { "run_dir", "/c/runs/cand1" },
		{ "gpu", "h100-sxm" },
		/* settings_init: 50 steps and 20 minutes (NeMo Launcher) */
		{ "max_steps", "50" }, { "time_limit", "00:20:00" },
		{ "time_limit_min", "20" },
		/* 20 - max(2, 20/10) */
		{ "exit_duration_min", "18" },
		{ "exit_duration_dhms", "00:00:18:00" },
		{ "nodes", "2" }, { "gpus_per_node", "8" },
		{ "ntasks_per_node", "8" }, { "world_size", "16" },
		{ "partition", "(unset)" }, { "account", "(unset)" },
		{ "qos", "(unset)" }, { "reservation", "(unset)" },
		{ "tag", "(unset)" }, { "container", "false" },
		{ "container_image", "(unset)" }, { "sbatch_directives", "" },
		{ "env_exports", "" },
	};
	struct settings c;
	struct layout l;
	struct template_vars v = TEMPLATE_VARS_INIT;

	llama3_8b_campaign(&c);
	interleaved_layout(&l);
	CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "cand1", "/c",
	                               "/c/runs/cand1"), 0);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		CU_ASSERT_STRING_EQUAL(var(&v, want[i].name), want[i].value);
		if (strcmp(var(&v, want[i].name), want[i].value))
			fprintf(stderr, "\n%s = '%s', want '%s'\n",
			        want[i].name, var(&v, want[i].name),
			        want[i].value);
	}
	CU_ASSERT_TRUE(template_vars_lookup(&v, "sbatch_directives")->raw);
	CU_ASSERT_TRUE(template_vars_lookup(&v, "env_exports")->raw);
	CU_ASSERT_FALSE(template_vars_lookup(&v, "campaign_name")->raw);
	template_vars_release(&v);
	settings_release(&c);
}

static void
test_jobscript_layout_variants(void)
{
	struct settings c;
	struct layout l;
	struct template_vars v = TEMPLATE_VARS_INIT;

	llama3_8b_campaign(&c);
	interleaved_layout(&l);
	l.vp = 1;
	l.etp = 1;
	l.recompute_layers = 3;
	c.precision = PREC_FP8;
	c.model.num_query_groups = 32;
	c.model.num_experts = 8;
	c.model.moe_router_topk = 2;
	c.slurm.partition = xstrdup("");
	c.slurm.qos = xstrdup("high");
	c.container.image = xstrdup("nvcr.io#nvidia/nemo:25.02");
	CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
	CU_ASSERT_STRING_EQUAL(var(&v, "vp"), "1");
	CU_ASSERT_STRING_EQUAL(var(&v, "vp_layers"), "(unset)");
	CU_ASSERT_STRING_EQUAL(var(&v, "etp"), "1");
	/* Three layers of each stage: Megatron-LM's block method. */
	CU_ASSERT_STRING_EQUAL(var(&v, "recompute_method"), "block");
	CU_ASSERT_STRING_EQUAL(var(&v, "recompute_num_layers"), "3");
	CU_ASSERT_STRING_EQUAL(var(&v, "bf16"), "true");
	CU_ASSERT_STRING_EQUAL(var(&v, "fp8"), "true");
	CU_ASSERT_STRING_EQUAL(var(&v, "precision"), "fp8");
	CU_ASSERT_STRING_EQUAL(var(&v, "gqa"), "false");
	CU_ASSERT_STRING_EQUAL(var(&v, "moe"), "true");
	/* Megatron-LM's default expert width is ffn_hidden_size. */
	CU_ASSERT_STRING_EQUAL(var(&v, "moe_ffn_hidden_size"), "14336");
	CU_ASSERT_STRING_EQUAL(var(&v, "partition"), "(unset)");
	CU_ASSERT_STRING_EQUAL(var(&v, "qos"), "high");
	CU_ASSERT_STRING_EQUAL(var(&v, "container"), "true");
	CU_ASSERT_STRING_EQUAL(var(&v, "container_image"),
	                       "nvcr.io#nvidia/nemo:25.02");
	template_vars_release(&v);

	l.recompute = RECOMPUTE_SELECTIVE;
	l.recompute_layers = 0;
	CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
	CU_ASSERT_STRING_EQUAL(var(&v, "recompute_method"), "(unset)");
	CU_ASSERT_STRING_EQUAL(var(&v, "recompute_num_layers"), "(unset)");
	CU_ASSERT_STRING_EQUAL(var(&v, "recompute_selective"), "true");
	template_vars_release(&v);
	settings_release(&c);
}

/* The tuning guide's switches: their defaults in a zeroed layout, then
 * each one on. */
static void
test_jobscript_switch_vars(void)
{
	static const struct { const char *name, *value; } off[] = {
		{ "account_embedding", "false" }, { "account_loss", "false" },
		{ "fp8_recipe", "delayed" }, { "fp8_param_gather", "false" },
		{ "cuda_graphs", "false" }, { "tp_comm_overlap", "false" },
		{ "overlap_grad_reduce", "false" },
		{ "overlap_param_gather", "false" }, { "fsdp", "false" },
		{ "moe_grouped_gemm", "false" },
		{ "activation_offload_layers", "0" },
		{ "cp_comm_type", "(unset)" }, { "cp_a2a_size", "(unset)" },
		{ "cp_p2p_size", "(unset)" },
		{ "tp_comm_overlap_needs_megatron_lm", "(unset)" },
		{ "a2a_p2p_needs_megatron_lm", "(unset)" },
	};
	struct settings c;
	struct layout l;
	struct template_vars v = TEMPLATE_VARS_INIT;

	llama3_8b_campaign(&c);
	c.gpu = *gpu_catalog_find(&c.gpus, "h100-sxm");
	interleaved_layout(&l);
	CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
	for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
		CU_ASSERT_STRING_EQUAL(var(&v, off[i].name), off[i].value);
	template_vars_release(&v);

	/* 30 layers and both flags: (30 + 2) / (pp 4 * vp 2) = 4 a
	 * virtual stage (30 / 8 alone would not divide). */
	c.model.num_layers = 30;
	l.account_embedding = l.account_loss = true;
	l.fp8_recipe = FP8_BLOCKWISE;
	l.fp8_param_gather = l.cuda_graphs = l.tp_comm_overlap = true;
	l.overlap_grad_reduce = l.overlap_param_gather = true;
	l.fsdp = true;
	l.offload_layers = 3;
	CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
	CU_ASSERT_STRING_EQUAL(var(&v, "vp_layers"), "4");
	CU_ASSERT_STRING_EQUAL(var(&v, "account_embedding"), "true");
	CU_ASSERT_STRING_EQUAL(var(&v, "fp8_recipe"), "blockwise");
	CU_ASSERT_STRING_EQUAL(var(&v, "fsdp"), "true");
	CU_ASSERT_STRING_EQUAL(var(&v, "tp_comm_overlap"), "true");
	CU_ASSERT_STRING_EQUAL(var(&v, "activation_offload_layers"), "3");
	template_vars_release(&v);

	/* cp 4 with tp 4, a2a+p2p: tp 4 x 2 fills the 8-GPU domain, so the
	 * all-to-all level is 2 and the ring 2. */
	c.model.num_layers = 32;
	interleaved_layout(&l);
	l.tp = 4;
	l.cp = 4;
	l.pp = 1;
	l.vp = 1;
	l.cp_comm = CP_COMM_A2A_P2P;
	CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
	CU_ASSERT_STRING_EQUAL(var(&v, "cp_comm_type"), "a2a+p2p");
	CU_ASSERT_STRING_EQUAL(var(&v, "cp_a2a_size"), "2");
	CU_ASSERT_STRING_EQUAL(var(&v, "cp_p2p_size"), "2");
	template_vars_release(&v);
	l.cp_comm = CP_COMM_ALL_GATHER;
	CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
	CU_ASSERT_STRING_EQUAL(var(&v, "cp_comm_type"), "all_gather");
	CU_ASSERT_STRING_EQUAL(var(&v, "cp_a2a_size"), "(unset)");
	template_vars_release(&v);
	/* Sequences longer than the position table raise it. */
	c.seq_length = 16384;
	CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
	CU_ASSERT_STRING_EQUAL(var(&v, "max_positions"), "16384");
	CU_ASSERT_STRING_EQUAL(var(&v, "max_position_embeddings"), "8192");
	template_vars_release(&v);
	settings_release(&c);
}

/* Full recompute as Megatron-LM's method and layer count: block over
 * every layer is uniform runs of 1, uniform over 0 is one run per model
 * chunk (32 / (pp 4 * vp 2) = 4 layers). */
static void
test_jobscript_recompute_methods(void)
{
	static const struct {
		enum recompute_method method;
		int layers;
		const char *name, *num;
	} want[] = {
		{ RECOMPUTE_BLOCK, 0, "uniform", "1" },
		{ RECOMPUTE_BLOCK, 2, "block", "2" },
		{ RECOMPUTE_UNIFORM, 2, "uniform", "2" },
		{ RECOMPUTE_UNIFORM, 0, "uniform", "4" },
	};
	struct settings c;
	struct layout l;

	llama3_8b_campaign(&c);
	interleaved_layout(&l);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct template_vars v = TEMPLATE_VARS_INIT;

		l.recompute_method = want[i].method;
		l.recompute_layers = want[i].layers;
		CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
		CU_ASSERT_STRING_EQUAL(var(&v, "recompute_method"),
		                       want[i].name);
		CU_ASSERT_STRING_EQUAL(var(&v, "recompute_num_layers"),
		                       want[i].num);
		template_vars_release(&v);
	}
	settings_release(&c);
}

static void
test_jobscript_time_limits(void)
{
	/* minutes, HH:MM:SS, minutes - max(2, minutes/10) but at least 1,
	 * and that as DD:HH:MM:SS */
	static const struct {
		int min;
		const char *hms, *exit, *dhms;
	} want[] = {
		{ 20, "00:20:00", "18", "00:00:18:00" },
		{ 90, "01:30:00", "81", "00:01:21:00" },
		{ 5, "00:05:00", "3", "00:00:03:00" },
		{ 2, "00:02:00", "1", "00:00:01:00" },
		{ 1, "00:01:00", "1", "00:00:01:00" },
		{ 600, "10:00:00", "540", "00:09:00:00" },
		{ 4320, "72:00:00", "3888", "02:16:48:00" },
	};

	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct settings c;
		struct layout l;
		struct template_vars v = TEMPLATE_VARS_INIT;

		llama3_8b_campaign(&c);
		interleaved_layout(&l);
		c.limits.max_minutes_per_run = want[i].min;
		CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
		CU_ASSERT_STRING_EQUAL(var(&v, "time_limit"), want[i].hms);
		CU_ASSERT_STRING_EQUAL(var(&v, "exit_duration_min"),
		                       want[i].exit);
		CU_ASSERT_STRING_EQUAL(var(&v, "exit_duration_dhms"),
		                       want[i].dhms);
		template_vars_release(&v);
		settings_release(&c);
	}
}

static void
test_jobscript_directives_and_env(void)
{
	struct settings c;
	struct layout l;
	struct template_vars v = TEMPLATE_VARS_INIT;

	llama3_8b_campaign(&c);
	interleaved_layout(&l);
	str_list_push(&c.slurm.directives, "--exclusive");
	str_list_push(&c.slurm.directives, "--mem=0");
	str_list_push(&c.env, "NCCL_DEBUG=INFO");
	str_list_push(&c.env, "WEIRD=it's $(x)\n;");
	CU_ASSERT_EQUAL(jobscript_vars(&v, &c, &l, "x", "/c", "/r"), 0);
	CU_ASSERT_STRING_EQUAL(var(&v, "sbatch_directives"),
	                       "#SBATCH --exclusive\n#SBATCH --mem=0");
	CU_ASSERT_STRING_EQUAL(var(&v, "env_exports"),
	                       "export NCCL_DEBUG='INFO'\n"
	                       "export WEIRD='it'\\''s $(x)\n;'");
	template_vars_release(&v);
	settings_release(&c);
}

struct vars_call {
	const char *directive, *env;
};

static int
call_vars(void *arg)
{
	struct vars_call *a = arg;
	struct settings c;
	struct layout l;
	struct template_vars v = TEMPLATE_VARS_INIT;
	int ret;

	llama3_8b_campaign(&c);
	interleaved_layout(&l);
	if (a->directive)
		str_list_push(&c.slurm.directives, a->directive);
	if (a->env)
		str_list_push(&c.env, a->env);
	ret = jobscript_vars(&v, &c, &l, "x", "/c", "/r");
	template_vars_release(&v);
	settings_release(&c);
	return ret;
}

/* Assert that one directive or env entry is refused with want. */
static void
check_vars_error(const char *directive, const char *env, const char *want)
{
	struct vars_call a = { directive, env };
	char *msg;
	int ret;

	msg = harness_capture_stderr(call_vars, &a, &ret);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
	free(msg);
}

static void
test_jobscript_refuses_unsafe_entries(void)
{
	check_vars_error("--comment=$(reboot)", NULL,
	                 "slurm.directives: '--comment=$(reboot)' cannot be "
	                 "an #SBATCH line");
	check_vars_error("--mem=0\n--x", NULL, "cannot be an #SBATCH line");
	check_vars_error("-N2", NULL, "cannot be an #SBATCH line");
	check_vars_error("--", NULL, "cannot be an #SBATCH line");
	check_vars_error("--job-name=a b", NULL, "cannot be an #SBATCH line");
	/* Safe to write, but not applied by libslurm or paratune's own. */
	check_vars_error("--gres=gpu:4", NULL, "slurm.directives: "
	                 "'--gres=gpu:4': --gres is set by the campaign's");
	check_vars_error("--frobnicate", NULL, "slurm.directives: "
	                 "'--frobnicate' is not an option paratune can give");
	check_vars_error(NULL, "1BAD=x", "env: '1BAD=x' is not NAME=VALUE");
	check_vars_error(NULL, "A;B=x", "env: 'A;B=x' is not NAME=VALUE");
	check_vars_error(NULL, "NOVALUE", "env: 'NOVALUE' is not NAME=VALUE");
}

static void
test_template_path(void)
{
	struct settings c;
	struct strbuf p = STRBUF_INIT;

	settings_init(&c);
	setenv("PARATUNE_TEMPLATES", "/site/templates", 1);
	jobscript_template_path(&c, &p);
	CU_ASSERT_STRING_EQUAL(p.buf, "/site/templates/megatron-lm.sbatch");
	strbuf_reset(&p);
	free(c.run.template_name);
	c.run.template_name = xstrdup("simulated.sbatch");
	jobscript_template_path(&c, &p);
	CU_ASSERT_STRING_EQUAL(p.buf, "/site/templates/simulated.sbatch");
	strbuf_reset(&p);
	free(c.run.template_name);
	c.run.template_name = xstrdup("./mine.sh");
	jobscript_template_path(&c, &p);
	CU_ASSERT_STRING_EQUAL(p.buf, "./mine.sh");
	strbuf_reset(&p);
	unsetenv("PARATUNE_TEMPLATES");
	free(c.run.template_name);
	c.run.template_name = xstrdup("nemo2");
	jobscript_template_path(&c, &p);
	CU_ASSERT_STRING_EQUAL(p.buf,
	                       PARATUNE_DATADIR "/templates/nemo2.sbatch");
	strbuf_release(&p);
	settings_release(&c);
}

/* ---- the simulated template ---------------------------------------------- */

/* Render templates/simulated.sbatch for c and l into a fresh string. */
static char *
render_simulated(const struct settings *c, const struct layout *l,
                 const char *run_dir)
{
	char *path = harness_srcpath("templates/simulated.sbatch");
	struct strbuf out = STRBUF_INIT;
	int ret = jobscript_render(c, l, "llama3_8b_2nodes_tp2_pp4_vp2", "/c",
	                           run_dir, path, &out);

	CU_ASSERT_EQUAL(ret, 0);
	free(path);
	if (ret) {
		strbuf_release(&out);
		return NULL;
	}
	return strbuf_detach(&out, NULL);
}

/* Write text to dir/name; the path (caller frees). */
static char *
write_temp(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	CU_ASSERT_EQUAL(write_file_atomic(path, text, strlen(text), 0600), 0);
	return path;
}

/* Whether bash -n accepts the script at path. */
static bool
bash_syntax_ok(const char *path)
{
	char *cmd = xasprintf("bash -n '%s'", path);
	int status = system(cmd);

	free(cmd);
	return status == 0;
}

/* Every line of the srun command but the last ends in a backslash; the
 * last starts it in the background, for paratune watch and wait. */
static void
check_srun_command(const char *script)
{
	const char *p = strstr(script, "\nsrun ");
	const char *nl;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (p++; (nl = strchr(p, '\n')) && nl > p && nl[-1] == '\\';
	     p = nl + 1)
		CU_ASSERT_NOT_EQUAL(nl[1], '\n');
	CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
	CU_ASSERT_EQUAL(strncmp(p, "\t--log-interval 1 &\ntrainer=$!\n", 31),
	                0);
	CU_ASSERT_PTR_NOT_NULL(strstr(nl, "\nwait \"$trainer\" || "
	                              "status=$?\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(nl, "\nexit \"$status\"\n"));
}

static void
test_simulated_template(void)
{
	static const char *const present[] = {
		"#!/bin/bash\n", "\nset -euo pipefail\n",
		"#SBATCH --job-name=llama3_8b_2nodes_tp2_pp4_vp2\n",
		"#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=8\n",
		"#SBATCH --gpus-per-node=8\n", "#SBATCH --time=00:20:00\n",
		"#SBATCH --qos=high\n#SBATCH --exclusive\n",
		"\ncd '/c/runs/x'\n",
		"\nexport NCCL_DEBUG='INFO'\n",
		"\nsrun --ntasks-per-node=8 \\\n"
		"\t'/opt/pt/paratune-simtrain' \\\n",
		"\t--tensor-model-parallel-size 2 \\\n",
		"\t--pipeline-model-parallel-size 4 \\\n",
		"\t--context-parallel-size 1 \\\n",
		"\t--num-layers-per-virtual-pipeline-stage 4 \\\n",
		"\t--sequence-parallel \\\n", "\t--micro-batch-size 1 \\\n",
		"\t--global-batch-size 128 \\\n", "\t--num-layers 32 \\\n",
		"\t--hidden-size 4096 \\\n", "\t--ffn-hidden-size 14336 \\\n",
		"\t--num-attention-heads 32 \\\n", "\t--kv-channels 128 \\\n",
		"\t--group-query-attention --num-query-groups 8 \\\n",
		"\t--seq-length 8192 \\\n",
		"\t--max-position-embeddings 8192 \\\n", "\t--swiglu \\\n",
		"\t--normalization RMSNorm \\\n",
		"\t--position-embedding-type rope \\\n",
		"\t--untie-embeddings-and-output-weights \\\n",
		"\t--disable-bias-linear \\\n", "\t--bf16 \\\n",
		"\t--recompute-granularity full \\\n"
		"\t--recompute-method uniform \\\n"
		"\t--recompute-num-layers 1 \\\n",
		"\t--use-distributed-optimizer \\\n",
		"\t--attention-backend flash \\\n",
		"--vocab-size 128256 \\\n", "\t--train-iters 50 \\\n",
		"\t--exit-duration-in-mins 18 \\\n",
		"\t--paratune-gpu h100-sxm \\\n",
		/* run.early_stop, on by default */
		"\t--exit-signal-handler --exit-signal SIGUSR2 \\\n",
		"\nlog=slurm-${SLURM_JOB_ID:-}.out\n",
		"\t'/opt/pt/paratune' watch --pid \"$trainer\" --signal USR2 "
		"\\\n\t\t--skip-steps -1 --min-steps 5 \\\n"
		"\t\t--output \"watch-$SLURM_JOB_ID.txt\" \"$log\" &\n",
	};
	static const char *const absent[] = {
		"{{", "}}", "--fp16", "--fp8-format", "selective",
		"--num-experts", "--partition", "--account", "\n\n\n",
	};
	struct settings c;
	struct layout l;
	char *script, *dir, *path;

	llama3_8b_campaign(&c);
	interleaved_layout(&l);
	c.slurm.qos = xstrdup("high");
	str_list_push(&c.slurm.directives, "--exclusive");
	str_list_push(&c.env, "NCCL_DEBUG=INFO");
	setenv("PARATUNE_SIMTRAIN", "/opt/pt/paratune-simtrain", 1);
	setenv("PARATUNE_SELF", "/opt/pt/paratune", 1);
	script = render_simulated(&c, &l, "/c/runs/x");
	CU_ASSERT_PTR_NOT_NULL_FATAL(script);
	for (size_t i = 0; i < sizeof present / sizeof present[0]; i++) {
		CU_ASSERT_PTR_NOT_NULL(strstr(script, present[i]));
		if (!strstr(script, present[i]))
			fprintf(stderr, "\nmissing: %s", present[i]);
	}
	for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
		CU_ASSERT_PTR_NULL(strstr(script, absent[i]));
	check_srun_command(script);
	dir = harness_tmpdir();
	path = write_temp(dir, "job.sbatch", script);
	CU_ASSERT_TRUE(bash_syntax_ok(path));
	free(path);
	free(script);
	/* run.early_stop = false: neither the flags nor the watcher. */
	c.run.early_stop = false;
	script = render_simulated(&c, &l, "/c/runs/x");
	CU_ASSERT_PTR_NOT_NULL_FATAL(script);
	CU_ASSERT_PTR_NULL(strstr(script, "--exit-signal"));
	CU_ASSERT_PTR_NULL(strstr(script, " watch "));
	check_srun_command(script);
	path = write_temp(dir, "job2.sbatch", script);
	CU_ASSERT_TRUE(bash_syntax_ok(path));
	unsetenv("PARATUNE_SIMTRAIN");
	unsetenv("PARATUNE_SELF");
	harness_rmtree(dir);
	free(dir);
	free(path);
	free(script);
	settings_release(&c);
}

/*
 * A campaign name and run directory full of shell syntax: the script
 * still parses, nothing in them runs when its header (everything before
 * srun) is executed by bash, and bash sees the exact values.
 */
static void
test_simulated_template_hostile_values(void)
{
	char *dir = harness_tmpdir();
	char *name = xasprintf("demo $(touch %s/pwned1) `touch %s/pwned2`; "
	                       "touch %s/pwned3 'q\" \n$HOME", dir, dir, dir);
	char *run_dir = xasprintf("%s/run $(touch pwned4);x", dir);
	char *env = xasprintf("EVIL=$(touch %s/pwned5)'\n", dir);
	const char *pwned[] = { "pwned1", "pwned2", "pwned3", "pwned4",
	                        "pwned5", "run $(touch pwned4);x/pwned4" };
	struct strbuf header = STRBUF_INIT, quoted = STRBUF_INIT;
	struct settings c;
	struct layout l;
	char *script, *path, *cmd, *got;

	llama3_8b_campaign(&c);
	interleaved_layout(&l);
	free(c.name);
	c.name = xstrdup(name);
	str_list_push(&c.env, env);
	script = render_simulated(&c, &l, run_dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(script);
	/* The name appears once, as one single-quoted word. */
	template_shell_quote(&quoted, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(script, quoted.buf));
	CU_ASSERT_PTR_EQUAL(strstr(script, "demo $("),
	                    strstr(script, quoted.buf) + 1);
	CU_ASSERT_PTR_NULL(strstr(strstr(script, "demo $(") + 1, "demo $("));
	path = write_temp(dir, "job.sbatch", script);
	CU_ASSERT_TRUE(bash_syntax_ok(path));
	free(path);
	CU_ASSERT_EQUAL(mkdir(run_dir, 0700), 0);
	strbuf_add(&header, script, (size_t)(strstr(script, "\nsrun ") -
	                                     script + 1));
	strbuf_addstr(&header, "printf '%s|%s|%s' \"$PARATUNE_CAMPAIGN\" "
	              "\"$PWD\" \"$EVIL\"\n");
	path = write_temp(dir, "header.sh", header.buf);
	cmd = xasprintf("cd '%s' && bash header.sh", dir);
	got = run_shell(cmd);
	free(cmd);
	free(path);
	cmd = xasprintf("%s|%s|%s", name, run_dir, strchr(env, '=') + 1);
	CU_ASSERT_STRING_EQUAL(got, cmd);
	for (size_t i = 0; i < sizeof pwned / sizeof pwned[0]; i++) {
		char *p = xasprintf("%s/%s", dir, pwned[i]);

		CU_ASSERT_FALSE(path_exists(p));
		free(p);
	}
	harness_rmtree(dir);
	free(cmd);
	free(got);
	free(script);
	strbuf_release(&header);
	strbuf_release(&quoted);
	settings_release(&c);
	free(env);
	free(run_dir);
	free(name);
	free(dir);
}

static int
call_render_missing(void *arg)
{
	struct settings c;
	struct layout l;
	struct strbuf out = STRBUF_INIT;
	int ret;

	llama3_8b_campaign(&c);
	interleaved_layout(&l);
	ret = jobscript_render(&c, &l, "x", "/c", "/r", arg, &out);
	strbuf_release(&out);
	settings_release(&c);
	return ret;
}

static void
test_render_errors_name_the_file(void)
{
	char *dir = harness_tmpdir();
	char *missing = xasprintf("%s/none.sbatch", dir);
	char *path = write_temp(dir, "bad.sbatch", "#!/bin/bash\n{{tpp}}\n");
	char *msg, *want;
	int ret;

	msg = harness_capture_stderr(call_render_missing, missing, &ret);
	want = xasprintf("cannot open template '%s'", missing);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
	free(want);
	free(msg);
	msg = harness_capture_stderr(call_render_missing, path, &ret);
	want = xasprintf("%s:2: unknown variable 'tpp'", path);
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
	free(want);
	free(msg);
	harness_rmtree(dir);
	free(path);
	free(missing);
	free(dir);
}

static const struct harness_test language_tests[] = {
	{ "substitution", test_substitution },
	{ "sections true and false", test_sections },
	{ "nested sections", test_nested_sections },
	{ "standalone tag lines vanish", test_standalone_lines },
	{ "nesting limit", test_deep_nesting },
	{ "syntax errors name file and line", test_syntax_errors },
	{ "value errors", test_value_errors },
	{ "refuse tags", test_refuse },
	{ "no values in backquotes or $'...'",
	  test_backquotes_and_dollar_quotes },
	{ "nested substitutions", test_nested_substitutions },
	{ "no tag after '$'", test_tags_after_dollar },
	{ "here-documents", test_heredocs },
	{ NULL, NULL },
};

static const struct harness_test quoting_tests[] = {
	{ "shell-safe words", test_safe_words },
	{ "single-quote form", test_quote_form },
	{ "quoted values survive /bin/sh",
	  test_quoted_values_survive_the_shell },
	{ "values after `...` and $'...' survive bash",
	  test_values_after_backquotes_survive_bash },
	{ "values in nested substitutions survive bash and dash",
	  test_nested_values_survive_the_shells },
	{ NULL, NULL },
};

static const struct harness_test jobscript_tests[] = {
	{ "variables of a candidate", test_jobscript_vars },
	{ "layout variants", test_jobscript_layout_variants },
	{ "tuning-guide switches", test_jobscript_switch_vars },
	{ "recompute methods", test_jobscript_recompute_methods },
	{ "time limits", test_jobscript_time_limits },
	{ "directives and env exports", test_jobscript_directives_and_env },
	{ "unsafe directives and env refused",
	  test_jobscript_refuses_unsafe_entries },
	{ "template path", test_template_path },
	{ "simulated template renders and parses", test_simulated_template },
	{ "hostile values do not run",
	  test_simulated_template_hostile_values },
	{ "render errors name the file", test_render_errors_name_the_file },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "template language", language_tests },
	{ "shell quoting", quoting_tests },
	{ "job scripts", jobscript_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
