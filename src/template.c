/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * template.c - the job-script template renderer (see template.h).
 *
 * Two passes: the text is cut into tokens (text and tags) and checked for
 * syntax, then the tokens are walked once with a stack of open sections.
 * Every name is checked in both kept and dropped sections, so a typo in a
 * rarely used section fails on the first plan rather than on the cluster.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "error.h"
#include "template.h"
#include "xalloc.h"

/* Longest variable name a tag may hold. */
#define TEMPLATE_NAME_MAX 63
/* Most characters of a bad tag quoted in a message (one line's worth). */
#define TEMPLATE_TAG_SHOWN 60

/* ---- variables ----------------------------------------------------------- */

/* Set vars to the empty list. */
void
template_vars_init(struct template_vars *vars)
{
	vars->v = NULL;
	vars->n = vars->alloc = 0;
}

/* Free every name and value. */
void
template_vars_release(struct template_vars *vars)
{
	for (size_t i = 0; i < vars->n; i++) {
		free(vars->v[i].name);
		free(vars->v[i].value);
	}
	free(vars->v);
	template_vars_init(vars);
}

/* The variable whose name is the len bytes at s, or NULL. */
static struct template_var *
vars_find(const struct template_vars *vars, const char *s, size_t len)
{
	for (size_t i = 0; i < vars->n; i++)
		if (vars->v[i].name_len == len &&
		    !memcmp(vars->v[i].name, s, len))
			return &vars->v[i];
	return NULL;
}

/* Add name or replace its value and raw flag. */
static void
vars_put(struct template_vars *vars, const char *name, const char *value,
         bool raw)
{
	size_t len = strlen(name);
	struct template_var *var = vars_find(vars, name, len);

	if (!var) {
		ALLOC_GROW(vars->v, vars->n + 1, vars->alloc);
		var = &vars->v[vars->n++];
		var->name = xstrdup(name);
		var->name_len = len;
	} else {
		free(var->value);
	}
	var->value = value ? xstrdup(value) : NULL;
	var->raw = raw;
}

/* Set a plain variable (NULL: declared, not set). */
void
template_vars_set_str(struct template_vars *vars, const char *name,
                      const char *value)
{
	vars_put(vars, name, value, false);
}

/* Set a plain variable to a decimal integer. */
void
template_vars_set_int(struct template_vars *vars, const char *name,
                      long long value)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", value);
	vars_put(vars, name, buf, false);
}

/* Set a plain variable to "true" or "false". */
void
template_vars_set_bool(struct template_vars *vars, const char *name,
                       bool value)
{
	vars_put(vars, name, value ? "true" : "false", false);
}

/* Set a variable holding shell text paratune escaped itself. */
void
template_vars_set_raw(struct template_vars *vars, const char *name,
                      const char *value)
{
	vars_put(vars, name, value, true);
}

/* Look a variable up by name. */
const struct template_var *
template_vars_lookup(const struct template_vars *vars, const char *name)
{
	return vars_find(vars, name, strlen(name));
}

/* ---- values and the shell ------------------------------------------------ */

/* Sections are false on unset, "", "0" and "false". */
bool
template_value_true(const char *value)
{
	return value && *value && strcmp(value, "0") != 0 &&
	       strcmp(value, "false") != 0;
}

/* Characters that mean nothing to a POSIX shell anywhere in a word. */
static bool
safe_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("._,:/=@%+-", c));
}

/* Non-empty and made only of safe characters. */
bool
template_safe_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!safe_char((unsigned char)*s))
			return false;
	return true;
}

/* Single quotes take everything literally but themselves: ' -> '\''. */
void
template_shell_quote(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(out, "'\\''");
		else
			strbuf_addch(out, *s);
	}
	strbuf_addch(out, '\'');
}

/*
 * Where the shell stands after the output so far: enough of its lexer
 * (POSIX "Token Recognition") to know whether a value would land inside
 * quotes, after a backslash, in a comment, in a `...` command
 * substitution or in bash's $'...'.
 */
enum shell_state {
	SH_PLAIN, SH_SQUOTE, SH_DQUOTE, SH_COMMENT,
	SH_BACKQUOTE,  /* `...`, opened in SH_PLAIN or SH_DQUOTE */
	SH_DOLLAR_SQUOTE,  /* $'...': backslash escapes are live */
};

struct shell_lex {
	enum shell_state state;
	enum shell_state outer;  /* the state a `...` returns to */
	bool escaped;  /* the previous character was an unquoted backslash */
	bool dollar;   /* it was a '$' that starts an expansion ("$$" is one) */
	int prev;      /* previous character in SH_PLAIN; 0 at the start */
};

/* A '#' starts a comment only at the start of a word. */
static bool
shell_word_start(int prev)
{
	return prev == 0 || strchr(" \t\n;&|()<>", prev) != NULL;
}

/* Open a `...`; the text up to the next unescaped backquote is its. */
static void
shell_open_backquote(struct shell_lex *lx)
{
	lx->outer = lx->state;
	lx->state = SH_BACKQUOTE;
}

/* Advance the lexer over one character in SH_PLAIN. */
static void
shell_lex_plain(struct shell_lex *lx, int c)
{
	bool dollar = false;

	if (lx->escaped)
		lx->escaped = false;
	else if (c == '\\')
		lx->escaped = true;
	else if (c == '\'')
		lx->state = lx->dollar ? SH_DOLLAR_SQUOTE : SH_SQUOTE;
	else if (c == '"')
		lx->state = SH_DQUOTE;
	else if (c == '`')
		shell_open_backquote(lx);
	else if (c == '#' && shell_word_start(lx->prev))
		lx->state = SH_COMMENT;
	else if (c == '$')
		dollar = !lx->dollar;
	lx->dollar = dollar;
	lx->prev = c;
}

/* Advance the lexer over one character. */
static void
shell_lex_char(struct shell_lex *lx, int c)
{
	switch (lx->state) {
	case SH_PLAIN:
		shell_lex_plain(lx, c);
		break;
	case SH_SQUOTE:
		if (c == '\'')
			lx->state = SH_PLAIN;
		lx->prev = c;
		break;
	case SH_DQUOTE:
		if (lx->escaped)
			lx->escaped = false;
		else if (c == '\\')
			lx->escaped = true;
		else if (c == '"')
			lx->state = SH_PLAIN;
		else if (c == '`')
			shell_open_backquote(lx);
		lx->prev = c;
		break;
	case SH_BACKQUOTE:
	case SH_DOLLAR_SQUOTE:
		/* Either ends at the first closing character that no
		 * backslash escapes; quotes inside `...` do not count. */
		if (lx->escaped)
			lx->escaped = false;
		else if (c == '\\')
			lx->escaped = true;
		else if (lx->state == SH_BACKQUOTE && c == '`')
			lx->state = lx->outer;
		else if (lx->state == SH_DOLLAR_SQUOTE && c == '\'')
			lx->state = SH_PLAIN;
		lx->prev = c;
		break;
	case SH_COMMENT:
		if (c == '\n') {
			lx->state = SH_PLAIN;
			lx->prev = c;
		}
		break;
	}
}

/* ---- tokens -------------------------------------------------------------- */

enum tok_kind {
	TOK_TEXT,
	TOK_VAR,       /* {{name}} */
	TOK_QUOTED,    /* {{q:name}} */
	TOK_RAW,       /* {{raw:name}} */
	TOK_SECTION,   /* {{#name}} */
	TOK_INVERTED,  /* {{^name}} */
	TOK_CLOSE,     /* {{/name}} */
	TOK_COMMENT,   /* {{! ...}} */
	TOK_REFUSE,    /* {{refuse: why}} */
};

struct tok {
	enum tok_kind kind;
	const char *s;      /* text, or the name; not NUL-terminated */
	size_t len;
	int line;           /* where the token starts */
	bool skip_head;     /* text: drop up to the first newline */
	bool cut_tail;      /* text: drop after the last newline */
};

struct tok_list {
	struct tok *v;
	size_t n, alloc;
};

/* Append a token. */
static struct tok *
tok_push(struct tok_list *tl, enum tok_kind kind, const char *s, size_t len,
         int line)
{
	struct tok *t;

	ALLOC_GROW(tl->v, tl->n + 1, tl->alloc);
	t = &tl->v[tl->n++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->s = s;
	t->len = len;
	t->line = line;
	return t;
}

/* Newlines among the len bytes at s. */
static int
count_lines(const char *s, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

/* Variable names are C identifiers. */
static bool
name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* A character that may follow the first in a variable name. */
static bool
name_char(int c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* Whether the len bytes at s are a variable name. */
static bool
valid_name(const char *s, size_t len)
{
	if (len == 0 || len > TEMPLATE_NAME_MAX || !name_start(s[0]))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!name_char((unsigned char)s[i]))
			return false;
	return true;
}

/* Whether the len bytes at s start with the NUL-terminated prefix. */
static bool
has_prefix_n(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* Turn the inside of one tag (between the braces) into a token. */
static int
parse_tag(const char *file, int line, const char *s, size_t len,
          struct tok_list *tl)
{
	const char *orig = s;
	size_t orig_len = len;
	enum tok_kind kind = TOK_VAR;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len && *s == '!') {
		tok_push(tl, TOK_COMMENT, s, len, line);
		return 0;
	}
	/* The template cannot run this campaign: the rest of the tag says
	 * why, in words for the user. */
	if (has_prefix_n(s, len, "refuse:")) {
		s += 7, len -= 7;
		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
		if (len == 0)
			return error("%s:%d: '{{refuse:}}' without a reason",
			             file, line);
		tok_push(tl, TOK_REFUSE, s, len, line);
		return 0;
	}
	if (len && strchr("#^/", *s)) {
		kind = *s == '#' ? TOK_SECTION
		     : *s == '^' ? TOK_INVERTED : TOK_CLOSE;
		s++, len--;
		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
	} else if (has_prefix_n(s, len, "q:") ||
	           has_prefix_n(s, len, "raw:")) {
		kind = *s == 'q' ? TOK_QUOTED : TOK_RAW;
		s += kind == TOK_QUOTED ? 2 : 4;
		len -= kind == TOK_QUOTED ? 2 : 4;
		/* '{{ q: name }}' as '{{# name }}' is read */
		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
	}
	if (!valid_name(s, len))
		return error("%s:%d: invalid tag '{{%.*s}}': a variable name "
		             "is letters, digits and '_' (at most %d, not "
		             "starting with a digit)", file, line,
		             orig_len > TEMPLATE_TAG_SHOWN ? TEMPLATE_TAG_SHOWN
		             : (int)orig_len, orig, TEMPLATE_NAME_MAX);
	tok_push(tl, kind, s, len, line);
	return 0;
}

/* Append a text token after checking it for a stray "}}". */
static int
push_text(const char *file, int line, const char *s, size_t len,
          struct tok_list *tl)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (s[i] == '}' && s[i + 1] == '}')
			return error("%s:%d: '}}' without a matching '{{'",
			             file, line + count_lines(s, i));
	if (len)
		tok_push(tl, TOK_TEXT, s, len, line);
	return 0;
}

/* Where the tag opened at open ends ("}}"), or NULL when it does not. */
static const char *
tag_end(const char *open)
{
	const char *p = open + 2;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '!')
		return strstr(p, "}}");
	/* Other tags must close on their line. */
	for (; *p && *p != '\n'; p++)
		if (p[0] == '}' && p[1] == '}')
			return p;
	return NULL;
}

/* Cut text into tokens; -1 after an error. */
static int
tokenize(const char *file, const char *text, struct tok_list *tl)
{
	const char *p = text;
	int line = 1;

	for (;;) {
		const char *open = strstr(p, "{{"), *close;

		if (!open)
			return push_text(file, line, p, strlen(p), tl);
		if (push_text(file, line, p, (size_t)(open - p), tl))
			return -1;
		line += count_lines(p, (size_t)(open - p));
		if (!(close = tag_end(open)))
			return error("%s:%d: '{{' without a closing '}}'",
			             file, line);
		if (parse_tag(file, line, open + 2, (size_t)(close - open - 2),
		              tl))
			return -1;
		line += count_lines(open, (size_t)(close - open));
		p = close + 2;
	}
}

/* The last newline among the len bytes at s, or NULL (memrchr is GNU). */
static const char *
last_newline(const char *s, size_t len)
{
	while (len--)
		if (s[len] == '\n')
			return s + len;
	return NULL;
}

/* Whether the len bytes at s are spaces and tabs only. */
static bool
blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* Whether token i is alone on its line as far as the text before it goes. */
static bool
alone_after(const struct tok_list *tl, size_t i)
{
	const struct tok *t;
	const char *nl;

	if (i == 0)
		return true;
	t = &tl->v[i - 1];
	if (t->kind != TOK_TEXT)
		return false;
	nl = last_newline(t->s, t->len);
	if (!nl)
		return i - 1 == 0 && blank(t->s, t->len);
	return blank(nl + 1, t->len - (size_t)(nl + 1 - t->s));
}

/* Whether token i is alone on its line as far as the text after it goes. */
static bool
alone_before(const struct tok_list *tl, size_t i)
{
	const struct tok *t;
	const char *nl;

	if (i + 1 == tl->n)
		return true;
	t = &tl->v[i + 1];
	if (t->kind != TOK_TEXT)
		return false;
	nl = memchr(t->s, '\n', t->len);
	if (!nl)
		return i + 2 == tl->n && blank(t->s, t->len);
	return blank(t->s, (size_t)(nl - t->s));
}

/*
 * Mark the text around standalone section, close and comment tags so that
 * their whole line disappears (decided on the untrimmed text first, then
 * applied, so two standalone lines in a row both go).
 */
static void
mark_standalone(struct tok_list *tl)
{
	for (size_t i = 0; i < tl->n; i++) {
		enum tok_kind k = tl->v[i].kind;

		if (k == TOK_TEXT || k == TOK_VAR || k == TOK_QUOTED ||
		    k == TOK_RAW)
			continue;
		if (!alone_after(tl, i) || !alone_before(tl, i))
			continue;
		if (i > 0)
			tl->v[i - 1].cut_tail = true;
		if (i + 1 < tl->n)
			tl->v[i + 1].skip_head = true;
	}
}

/* ---- rendering ----------------------------------------------------------- */

struct render {
	const char *file;
	const struct template_vars *vars;
	struct strbuf out;
	struct shell_lex lex;
	const struct tok *open[TEMPLATE_MAX_DEPTH];
	int depth;
	int dropped_at;     /* depth of the outermost false section, or 0 */
};

/* Append output and follow the shell's quoting over it. */
static void
emit(struct render *r, const char *s, size_t len)
{
	strbuf_add(&r->out, s, len);
	for (size_t i = 0; i < len; i++)
		shell_lex_char(&r->lex, (unsigned char)s[i]);
}

/* Append the kept part of a text token. */
static void
emit_text(struct render *r, const struct tok *t)
{
	size_t begin = 0, end = t->len;
	const char *nl;

	if (t->skip_head) {
		nl = memchr(t->s, '\n', t->len);
		begin = nl ? (size_t)(nl - t->s) + 1 : t->len;
	}
	if (t->cut_tail) {
		nl = last_newline(t->s, t->len);
		end = nl ? (size_t)(nl - t->s) + 1 : 0;
	}
	if (end > begin)
		emit(r, t->s + begin, end - begin);
}

/* "unknown variable 'x'", with a suggestion when one is close. */
static int
unknown_name(const struct render *r, const struct tok *t)
{
	const char **names = xcalloc(r->vars->n + 1, sizeof(*names));
	char *word = xstrndup(t->s, t->len);
	const char *near;

	for (size_t i = 0; i < r->vars->n; i++)
		names[i] = r->vars->v[i].name;
	near = config_closest(word, names, (int)r->vars->n);
	if (near)
		error("%s:%d: unknown variable '%s' (did you mean '%s'?)",
		      r->file, t->line, word, near);
	else
		error("%s:%d: unknown variable '%s'", r->file, t->line, word);
	free(word);
	free(names);
	return -1;
}

/* The prefix of a substitution tag, for messages. */
static const char *
tag_prefix(enum tok_kind kind)
{
	return kind == TOK_QUOTED ? "q:" : kind == TOK_RAW ? "raw:" : "";
}

/*
 * Refuse a substitution where the shell would not take it as written:
 * any inside `...` or $'...', q: and raw: inside quotes or after '\' or
 * '$', and a value with a newline in a comment.
 */
static int
check_context(const struct render *r, const struct tok *t, const char *value)
{
	const char *form = tag_prefix(t->kind);
	int n = (int)t->len;

	/* In `...` the shell takes a backslash off "\\", "\`" and "\$"
	 * before it reads the command, so a quoted value loses backslashes
	 * and its backquote ends the substitution; the command is a script
	 * of its own, whose quoting this lexer does not follow. */
	if (r->lex.state == SH_BACKQUOTE)
		return error("%s:%d: {{%s%.*s}} is inside backquotes `...`; "
		             "write the command as $(...)", r->file, t->line,
		             form, n, t->s);
	/* In $'...' a single quote does not quote and "\x", "\0", "\u" or
	 * "\c" before a tag reads the value's first characters as part of
	 * an escape. */
	if (r->lex.state == SH_DOLLAR_SQUOTE)
		return error("%s:%d: {{%s%.*s}} is inside $'...', where "
		             "backslash escapes are live; put it outside the "
		             "quotes", r->file, t->line, form, n, t->s);
	/* Elsewhere a safe word needs no check: it holds no quote,
	 * backslash or backquote. */
	if (t->kind == TOK_VAR)
		return 0;
	if (r->lex.state == SH_SQUOTE || r->lex.state == SH_DQUOTE)
		return error("%s:%d: {{%s%.*s}} is inside shell quotes; put "
		             "it outside them", r->file, t->line, form, n,
		             t->s);
	if (r->lex.escaped || (r->out.len && r->out.buf[r->out.len - 1] == '$'))
		return error("%s:%d: {{%s%.*s}} follows '%c', which changes "
		             "its quoting", r->file, t->line, form, n, t->s,
		             r->lex.escaped ? '\\' : '$');
	if (r->lex.state == SH_COMMENT && strchr(value, '\n'))
		return error("%s:%d: value of '%.*s' holds a newline and "
		             "{{%s%.*s}} is in a shell comment", r->file,
		             t->line, n, t->s, form, n, t->s);
	return 0;
}

/* Insert a variable in the form its tag asks for. */
static int
substitute(struct render *r, const struct tok *t,
           const struct template_var *var)
{
	if (t->kind == TOK_RAW && !var->raw)
		return error("%s:%d: '%s' is not a raw variable; use {{%s}} "
		             "or {{q:%s}}", r->file, t->line, var->name,
		             var->name, var->name);
	if (!var->value)
		return error("%s:%d: variable '%s' is not set here; guard it "
		             "with {{#%s}}...{{/%s}}", r->file, t->line,
		             var->name, var->name, var->name);
	if (check_context(r, t, var->value))
		return -1;
	if (t->kind == TOK_VAR) {
		if (!template_safe_word(var->value))
			return error("%s:%d: value of '%s' is not a "
			             "shell-safe word; use {{q:%s}}", r->file,
			             t->line, var->name, var->name);
		emit(r, var->value, strlen(var->value));
		return 0;
	}
	if (t->kind == TOK_RAW) {
		emit(r, var->value, strlen(var->value));
	} else {
		struct strbuf q = STRBUF_INIT;

		template_shell_quote(&q, var->value);
		emit(r, q.buf, q.len);
		strbuf_release(&q);
	}
	return 0;
}

/* Open a section; its content is dropped unless its condition holds. */
static int
open_section(struct render *r, const struct tok *t,
             const struct template_var *var)
{
	bool keep = template_value_true(var->value);

	if (r->depth == TEMPLATE_MAX_DEPTH)
		return error("%s:%d: sections nested deeper than %d", r->file,
		             t->line, TEMPLATE_MAX_DEPTH);
	r->open[r->depth++] = t;
	if (t->kind == TOK_INVERTED)
		keep = !keep;
	if (!keep && !r->dropped_at)
		r->dropped_at = r->depth;
	return 0;
}

/* Close the innermost section, which must carry the same name. */
static int
close_section(struct render *r, const struct tok *t)
{
	const struct tok *o;

	if (r->depth == 0)
		return error("%s:%d: '{{/%.*s}}' closes no open section",
		             r->file, t->line, (int)t->len, t->s);
	o = r->open[r->depth - 1];
	if (o->len != t->len || memcmp(o->s, t->s, t->len))
		return error("%s:%d: '{{/%.*s}}' does not match '{{%c%.*s}}' "
		             "opened on line %d", r->file, t->line, (int)t->len,
		             t->s, o->kind == TOK_SECTION ? '#' : '^',
		             (int)o->len, o->s, o->line);
	if (r->dropped_at == r->depth)
		r->dropped_at = 0;
	r->depth--;
	return 0;
}

/* Handle one token. */
static int
render_tok(struct render *r, const struct tok *t)
{
	const struct template_var *var;

	if (t->kind == TOK_TEXT) {
		if (!r->dropped_at)
			emit_text(r, t);
		return 0;
	}
	if (t->kind == TOK_COMMENT)
		return 0;
	if (t->kind == TOK_REFUSE)
		return r->dropped_at ? 0
		       : error("%s:%d: this template cannot run the campaign: "
		               "%.*s", r->file, t->line, (int)t->len, t->s);
	if (t->kind == TOK_CLOSE)
		return close_section(r, t);
	if (!(var = vars_find(r->vars, t->s, t->len)))
		return unknown_name(r, t);
	if (t->kind == TOK_SECTION || t->kind == TOK_INVERTED)
		return open_section(r, t, var);
	return r->dropped_at ? 0 : substitute(r, t, var);
}

/* Public: see template.h. */
int
template_render(const char *file_name, const char *text,
                const struct template_vars *vars, struct strbuf *out)
{
	struct tok_list tl = { NULL, 0, 0 };
	struct render r;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	r.file = file_name;
	r.vars = vars;
	strbuf_init(&r.out, strlen(text) + 1024);
	if (tokenize(file_name, text, &tl))
		goto cleanup;
	mark_standalone(&tl);
	for (size_t i = 0; i < tl.n; i++)
		if (render_tok(&r, &tl.v[i]))
			goto cleanup;
	if (r.depth > 0) {
		const struct tok *o = r.open[r.depth - 1];

		error("%s:%d: section '{{%c%.*s}}' is not closed", file_name,
		      o->line, o->kind == TOK_SECTION ? '#' : '^', (int)o->len,
		      o->s);
		goto cleanup;
	}
	strbuf_add(out, r.out.buf, r.out.len);
	ret = 0;
cleanup:
	strbuf_release(&r.out);
	free(tl.v);
	return ret;
}
