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
#include "template-int.h"
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
	if (end > begin) {
		r->lex.line = t->line + count_lines(t->s, begin);
		emit(r, t->s + begin, end - begin);
	}
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

/* The "NAME" of a "$NAME" that ends the output, for messages. */
static int
trailing_name(const struct render *r, const char **name)
{
	size_t end = r->out.len, begin = end;

	while (begin > 0 && shell_name_char(r->out.buf[begin - 1]))
		begin--;
	*name = r->out.buf + begin;
	return (int)(end - begin);
}

/*
 * Refuse any substitution where no value can stand as written: after the
 * lexer lost the shell, inside `...` or $'...', in a here-document's
 * delimiter, and between the two ')' of "))".
 */
static int
check_any(const struct render *r, const struct tok *t)
{
	const struct shell_lex *lx = &r->lex;
	const struct shell_frame *f = &lx->f[lx->top];
	const char *form = tag_prefix(t->kind);
	int n = (int)t->len;

	if (lx->lost)
		return error("%s:%d: {{%s%.*s}} cannot be placed: on line %d "
		             "the renderer stopped following the shell at %s; "
		             "%s", r->file, t->line, form, n, t->s,
		             lx->lost_line, lx->lost->why, lx->lost->instead);
	/* In `...` the shell takes a backslash off "\\", "\`" and "\$"
	 * before it reads the command, so a quoted value loses backslashes
	 * and its backquote ends the substitution; the command is a script
	 * of its own, whose quoting this lexer does not follow. */
	if (f->kind == SH_BACKQUOTE)
		return error("%s:%d: {{%s%.*s}} is inside backquotes `...`; "
		             "write the command as $(...)", r->file, t->line,
		             form, n, t->s);
	/* In $'...' a single quote does not quote and "\x", "\0", "\u" or
	 * "\c" before a tag reads the value's first characters as part of
	 * an escape. */
	if (f->kind == SH_DOLLAR_SQUOTE)
		return error("%s:%d: {{%s%.*s}} is inside $'...', where "
		             "backslash escapes are live; put it outside the "
		             "quotes", r->file, t->line, form, n, t->s);
	if (lx->reading)
		return error("%s:%d: {{%s%.*s}} is in the word after '<<' that "
		             "ends a here-document; write the word itself",
		             r->file, t->line, form, n, t->s);
	if (f->kind == SH_ARITH && f->closing)
		return error("%s:%d: {{%s%.*s}} is between the two ')' that "
		             "end $((...))", r->file, t->line, form, n, t->s);
	return 0;
}

/*
 * A safe word holds no quote, backslash, '$', backquote, brace or
 * newline, so it stands anywhere the lexer follows but where it would
 * name a parameter or end a here-document.
 */
static int
check_plain(const struct render *r, const struct tok *t)
{
	const struct shell_lex *lx = &r->lex;
	const struct shell_frame *f = &lx->f[lx->top];
	const struct heredoc *h;
	const char *name;
	int n = (int)t->len, len;

	if (lx->dollar)
		return error("%s:%d: {{%.*s}} follows '$', which would "
		             "expand its value as a parameter; write \\$ for a "
		             "literal '$'", r->file, t->line, n, t->s);
	if (lx->varname) {
		len = trailing_name(r, &name);
		return error("%s:%d: {{%.*s}} follows '$%.*s' and its value "
		             "would lengthen that parameter's name; write "
		             "${%.*s}{{%.*s}}", r->file, t->line, n, t->s, len,
		             name, len, name, n, t->s);
	}
	if (f->kind == SH_PARAM && f->name)
		return error("%s:%d: {{%.*s}} is in the name of a ${...}, so "
		             "its value would name the parameter", r->file,
		             t->line, n, t->s);
	if (!lx->body)
		return 0;
	h = &lx->pend[lx->next_pend - 1];
	if (lx->line_match && (lx->line_len < h->len || lx->line_bs))
		return error("%s:%d: {{%.*s}} could complete the line '%.*s' "
		             "that ends its here-document; put other text "
		             "before it on the line", r->file, t->line, n,
		             t->s, (int)h->len, h->word);
	return 0;
}

/* Where q: and raw: would not stand as a single word. */
static int
check_quoted(const struct render *r, const struct tok *t, const char *value)
{
	const struct shell_lex *lx = &r->lex;
	const struct shell_frame *f = &lx->f[lx->top];
	const char *form = tag_prefix(t->kind);
	int n = (int)t->len;

	if (lx->escaped || (r->out.len && r->out.buf[r->out.len - 1] == '$'))
		return error("%s:%d: {{%s%.*s}} follows '%c', which changes "
		             "its quoting", r->file, t->line, form, n, t->s,
		             lx->escaped ? '\\' : '$');
	/* In a here-document quotes are text, "$(" and "`" are live
	 * unless its delimiter was quoted, and a line of the value's that
	 * is the delimiter ends it. */
	if (lx->body)
		return error("%s:%d: {{%s%.*s}} is in a here-document, where "
		             "quotes do not quote; set a shell variable to it "
		             "before (v={{%s%.*s}}) and write \"$v\" in an "
		             "unquoted one", r->file, t->line, form, n, t->s,
		             form, n, t->s);
	if (f->kind == SH_SQUOTE || f->kind == SH_DQUOTE)
		return error("%s:%d: {{%s%.*s}} is inside shell quotes; put "
		             "it outside them", r->file, t->line, form, n,
		             t->s);
	/* Inside "${...}" bash and dash read single quotes differently. */
	if (f->kind == SH_PARAM)
		return error("%s:%d: {{%s%.*s}} is inside ${...}; set a "
		             "shell variable to it before (v={{%s%.*s}}) and "
		             "write $v there", r->file, t->line, form, n, t->s,
		             form, n, t->s);
	/* bash expands the word of ">&" twice when it is no number. */
	for (int i = lx->top; i >= 0; i--)
		if (lx->f[i].dup)
			return error("%s:%d: {{%s%.*s}} is in the word after "
			             "'>&', which bash expands twice; write "
			             ">{{%s%.*s}} 2>&1", r->file, t->line, form,
			             n, t->s, form, n, t->s);
	if (f->kind == SH_ARITH)
		return error("%s:%d: {{%s%.*s}} is inside arithmetic; only "
		             "{{%.*s}} goes there", r->file, t->line, form, n,
		             t->s, n, t->s);
	if (f->comment && strchr(value, '\n'))
		return error("%s:%d: value of '%.*s' holds a newline and "
		             "{{%s%.*s}} is in a shell comment", r->file,
		             t->line, n, t->s, form, n, t->s);
	return 0;
}

/*
 * Refuse a substitution where the shell would not take it as written:
 * see check_any, check_plain and check_quoted.
 */
static int
check_context(const struct render *r, const struct tok *t, const char *value)
{
	if (check_any(r, t))
		return -1;
	return t->kind == TOK_VAR ? check_plain(r, t)
	       : check_quoted(r, t, value);
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
	r->lex.line = t->line;
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
