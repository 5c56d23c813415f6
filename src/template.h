/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * template.h - a logic-less template language for job scripts.
 *
 *   {{name}}              the value, which must be a shell-safe word:
 *                         non-empty, only [A-Za-z0-9._,:/=@%+-]
 *   {{q:name}}            the value as one single-quoted shell word
 *   {{raw:name}}          the value as is; only for variables that
 *                         paratune generated and escaped (set_raw)
 *   {{#name}}...{{/name}} kept when name is set and its value is not
 *                         "", "0" or "false"
 *   {{^name}}...{{/name}} kept otherwise
 *   {{! comment }}        dropped
 *
 * Spaces inside the braces are allowed: {{ q:name }}.  A line holding
 * nothing but one section, close or comment tag (and blanks) disappears
 * whole, so sections can sit on lines of their own.
 *
 * Why the form decides the escaping: a rendered script is run by a shell,
 * and campaign values (names, directories, images) are user text.  A
 * value reaches the script either as a word checked to hold no shell
 * syntax, or quoted so the shell takes it literally.  The renderer also
 * follows the shell's reading of the text around a tag, nested contexts
 * included ("$(" opens a new command context inside double quotes, quotes
 * nest in ${...}, a here-document's body runs to its delimiter's line),
 * and refuses q: and raw: inside quotes at any depth (where a
 * single-quoted word would come apart), inside ${...}, arithmetic and
 * here-documents, in the word after ">&" (bash expands it twice), and a
 * value with a newline inside a comment (the rest would run as a
 * command).  It refuses every substitution, plain ones too, inside `...`
 * (the shell strips backslashes before it reads the command, and a
 * backquote in the value would end it: write $(...)), inside bash's
 * $'...' (backslash escapes are live there, and a "\x" before a tag
 * would take the value's first characters), right after a '$' or a
 * "$NAME" (the value would name a parameter), and where a plain value
 * could complete the line that ends a here-document.  Where it cannot
 * follow the shell exactly (a case command inside $(...), text bash and
 * dash read differently) it refuses every later substitution.
 *
 * Rendering is one pass over a token list with an explicit section stack
 * (depth at most TEMPLATE_MAX_DEPTH), so time is linear in the template
 * and the output and there is no recursion.
 */
#ifndef PARATUNE_TEMPLATE_H
#define PARATUNE_TEMPLATE_H

#include <stdbool.h>

#include "strbuf.h"

/* Deepest section nesting a template may use. */
#define TEMPLATE_MAX_DEPTH 32

/* One variable; value NULL means declared but not set. */
struct template_var {
	char *name;
	size_t name_len;	/* strlen(name): lookups compare it first */
	char *value;
	bool raw;   /* generated and escaped by paratune: {{raw:name}} ok */
};

/* An owned list of variables; names are unique. */
struct template_vars {
	struct template_var *v;
	size_t n, alloc;
};

#define TEMPLATE_VARS_INIT { NULL, 0, 0 }

void template_vars_init(struct template_vars *vars);
/* Free every name and value; vars is empty afterwards. */
void template_vars_release(struct template_vars *vars);

/*
 * Setters add the name or replace its value (and raw flag).  A NULL
 * value declares the name unset: sections on it are false, and
 * substituting it is an error.  Booleans are "true" or "false".
 */
void template_vars_set_str(struct template_vars *vars, const char *name,
                           const char *value);
void template_vars_set_int(struct template_vars *vars, const char *name,
                           long long value);
void template_vars_set_bool(struct template_vars *vars, const char *name,
                            bool value);
/* Set a raw variable: text that is already safe shell. */
void template_vars_set_raw(struct template_vars *vars, const char *name,
                           const char *value);
/* The variable called name, or NULL when it was never declared. */
const struct template_var *template_vars_lookup(
	const struct template_vars *vars, const char *name);

/* Whether a section on this value is rendered. */
bool template_value_true(const char *value);
/* Whether s is non-empty and only [A-Za-z0-9._,:/=@%+-]. */
bool template_safe_word(const char *s);
/* Append s as one POSIX single-quoted word: it's -> 'it'\''s'. */
void template_shell_quote(struct strbuf *out, const char *s);

/*
 * Render text (read from file_name, used in messages) with vars and
 * append the result to out.  On any error print "error: FILE:LINE: ..."
 * and return -1 with out unchanged; 0 on success.
 */
int template_render(const char *file_name, const char *text,
                    const struct template_vars *vars, struct strbuf *out);

#endif
