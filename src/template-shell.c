/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * template-shell.c - where the shell stands in a rendered job script:
 * the lexer the template renderer feeds its output to (template-int.h),
 * and the quoting of values (template.h).
 *
 * The lexer follows the shell's reading one character at a time, so that
 * at each tag the renderer knows whether a value would land inside
 * quotes, after a backslash or a '$', in a comment, a substitution,
 * arithmetic or a here-document, and refuses the tags that would not be
 * safe there.
 */
#include "autoconfig.h"

#include <stdbool.h>
#include <string.h>

#include "strbuf.h"
#include "template-int.h"
#include "template.h"

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

static const struct shell_lost lost_case = {
	"a case command inside $(...), whose patterns end in an unmatched "
	"')'", "move the case command into a function defined before it",
}, lost_squote_brace = {
	"a '}' inside '...' within a quoted ${...}, where bash and dash end "
	"the ${...} at different braces", "drop the single quotes",
}, lost_ansi_quote = {
	"\\' inside $'...', which dash reads as the end of the quotes",
	"write the quote outside them, as \"'\"",
}, lost_array = {
	"a ';', '&', '|', '<', '>' or '(' inside NAME=(...), where bash "
	"reports the error and goes on at the next line",
	"quote the character",
}, lost_array_brace = {
	"a '{' as the first word of NAME=(...), which bash may read as the "
	"start of a function's body, report as an error and go on at the "
	"next line", "quote the '{'",
}, lost_array_sub = {
	"a NAME=(...) inside $(...), where bash 5.2 misreads backslashes",
	"assign the array outside the $(...)",
}, lost_arith = {
	"a '$((' or '((' that does not end in '))'",
	"write a subshell in a subshell as ( (...) ), with a space",
}, lost_depth = {
	"quotes and substitutions nested more than 32 deep",
	"nest them less deeply",
}, lost_hd_word = {
	"a here-document delimiter that is empty, longer than 63 "
	"characters, or holds '$', '`' or a newline",
	"end the here-document with a plain word such as EOF",
}, lost_hd_nested = {
	"a here-document inside the body of a here-document",
	"write the inner one to a file first",
}, lost_hd_line = {
	"a here-document whose body the renderer cannot place (more than "
	"4 on one line, in two substitutions, or a newline or the end of "
	"its substitution before the body)",
	"give each here-document a command line of its own",
}, lost_hd_continued = {
	"a backslash-newline in the body of an unquoted <<- here-document, "
	"which bash and dash end at different lines",
	"quote its delimiter (<<-'EOF') or join the lines",
};

/* Give up following the shell. */
static void
shell_lose(struct shell_lex *lx, const struct shell_lost *why)
{
	if (!lx->lost) {
		lx->lost = why;
		lx->lost_line = lx->line;
	}
}

/* A character that may start a parameter name, and one after it. */
static bool
shell_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool
shell_name_char(int c)
{
	return shell_name_start(c) || (c >= '0' && c <= '9');
}

/* Open a frame; NULL (and lost) when nested too deeply. */
static struct shell_frame *
shell_push(struct shell_lex *lx, enum shell_kind kind)
{
	struct shell_frame *f;

	if (lx->top + 1 == SHELL_DEPTH) {
		shell_lose(lx, &lost_depth);
		return NULL;
	}
	f = &lx->f[++lx->top];
	memset(f, 0, sizeof(*f));
	f->kind = (unsigned char)kind;
	f->fresh = true;
	lx->in_word = lx->paren_ws = lx->eq = lx->lt = lx->gt = false;
	lx->wlen = 0;
	return f;
}

/* Here-documents registered and not started, with no body being read. */
static bool
shell_heredoc_waiting(const struct shell_lex *lx)
{
	return lx->npend > lx->next_pend && !lx->body;
}

/* Close the innermost frame: what follows is in the same word. */
static void
shell_pop(struct shell_lex *lx)
{
	if (shell_heredoc_waiting(lx) && lx->pend_frame == lx->top)
		shell_lose(lx, &lost_hd_line);
	lx->top--;
	lx->in_word = true;
	lx->wlen = 5;
	lx->paren_ws = lx->eq = lx->lt = lx->gt = false;
}

/* Open `...`, or $(...), ${...} or $'...' after a '$', for c. */
static bool
shell_open(struct shell_lex *lx, int c, bool dollar, bool in_dquote)
{
	struct shell_frame *f;

	if (c == '`') {
		shell_push(lx, SH_BACKQUOTE);
	} else if (dollar && c == '(') {
		shell_push(lx, SH_CMD);
	} else if (dollar && c == '{') {
		f = shell_push(lx, SH_PARAM);
		if (f) {
			f->in_dquote = in_dquote;
			f->name = true;
		}
	} else if (dollar && c == '\'' && !in_dquote) {
		shell_push(lx, SH_DOLLAR_SQUOTE);
	} else {
		return false;
	}
	return true;
}

/* A newline in quotes or a substitution while a here-document's body is
 * due: where the body starts then is not followed. */
static void
shell_nested_newline(struct shell_lex *lx)
{
	if (shell_heredoc_waiting(lx))
		shell_lose(lx, &lost_hd_line);
}

/* Start reading the body of the next here-document. */
static void
shell_heredoc_body(struct shell_lex *lx)
{
	const struct heredoc *h = &lx->pend[lx->next_pend++];
	struct shell_frame *f = shell_push(lx, SH_HEREDOC);

	if (!f)
		return;
	f->quoted = h->quoted;
	lx->body = lx->top;
	lx->line_len = 0;
	lx->line_match = lx->line_start = true;
	lx->line_bs = false;
}

/* A newline in a command context: a here-document's body may start. */
static void
shell_cmd_newline(struct shell_lex *lx)
{
	if (!shell_heredoc_waiting(lx))
		return;
	if (lx->pend_frame == lx->top)
		shell_heredoc_body(lx);
	else
		shell_lose(lx, &lost_hd_line);
}

/* The body's delimiter line ended it: back to the command line, or on
 * to the next body. */
static void
shell_heredoc_end(struct shell_lex *lx)
{
	lx->top = lx->body - 1;
	lx->body = 0;
	lx->escaped = lx->in_word = lx->paren_ws = false;
	lx->eq = lx->lt = lx->gt = false;
	lx->wlen = 0;
	if (lx->next_pend < lx->npend)
		shell_heredoc_body(lx);
	else
		lx->npend = lx->next_pend = 0;
}

/* "<<" read in a command context: a delimiter follows. */
static void
shell_heredoc_start(struct shell_lex *lx)
{
	if (lx->body) {
		shell_lose(lx, &lost_hd_nested);
		return;
	}
	if (lx->npend == HEREDOC_PENDING ||
	    (lx->npend && lx->pend_frame != lx->top)) {
		shell_lose(lx, &lost_hd_line);
		return;
	}
	memset(&lx->pend[lx->npend], 0, sizeof(lx->pend[0]));
	lx->reading = RD_OP;
	lx->rd_quote = 0;
	lx->rd_bs = false;
}

/* Add a character to the delimiter being read. */
static void
shell_heredoc_add(struct shell_lex *lx, struct heredoc *h, int c)
{
	if (h->len == HEREDOC_WORD_MAX || c == '\n')
		shell_lose(lx, &lost_hd_word);
	else
		h->word[h->len++] = (char)c;
}

/* What may come between "<<" and the delimiter: a third '<' (a
 * here-string, which has none), a '-' and blanks; true when c is one. */
static bool
shell_heredoc_lead(struct shell_lex *lx, struct heredoc *h, int c)
{
	if (lx->reading == RD_OP) {
		lx->reading = RD_BLANK;
		if (c == '<') {			/* <<<, a here-string */
			lx->reading = RD_NONE;
			return true;
		}
		if (c == '-') {
			h->strip = true;
			return true;
		}
	}
	if (lx->reading == RD_BLANK) {
		if (c == ' ' || c == '\t')
			return true;
		lx->reading = RD_WORD;
	}
	return false;
}

/*
 * Read c as part of a here-document's delimiter, with quote removal
 * ('...', "..." and \ make the body literal); false when c ends the word
 * and is the shell's again.
 */
static bool
shell_heredoc_word(struct shell_lex *lx, int c)
{
	struct heredoc *h = &lx->pend[lx->npend];

	if (shell_heredoc_lead(lx, h, c))
		return true;
	if (lx->rd_bs) {
		lx->rd_bs = false;
		/* In "..." a backslash stays before other characters. */
		if (lx->rd_quote == '"' && !strchr("$`\"\\\n", c))
			shell_heredoc_add(lx, h, '\\');
		shell_heredoc_add(lx, h, c);
	} else if (lx->rd_quote == '\'') {
		if (c == '\'')
			lx->rd_quote = 0;
		else
			shell_heredoc_add(lx, h, c);
	} else if (c == '\\') {
		lx->rd_bs = h->quoted = true;
	} else if (c == '$' || c == '`') {
		shell_lose(lx, &lost_hd_word);
	} else if (lx->rd_quote == '"') {
		if (c == '"')
			lx->rd_quote = 0;
		else
			shell_heredoc_add(lx, h, c);
	} else if (c == '\'' || c == '"') {
		lx->rd_quote = c;
		h->quoted = true;
	} else if (strchr(" \t\n;&|()<>", c)) {
		lx->reading = RD_NONE;
		if (!h->len && !h->quoted) {
			shell_lose(lx, &lost_hd_word);
		} else {
			lx->npend++;
			lx->pend_frame = lx->top;
		}
		return false;
	} else {
		shell_heredoc_add(lx, h, c);
	}
	return true;
}

/* One more character on the current line of a here-document's body. */
static void
shell_heredoc_line_add(struct shell_lex *lx, const struct heredoc *h, int c)
{
	if (h->strip && lx->line_start && c == '\t')
		return;
	lx->line_start = false;
	if (lx->line_match && lx->line_len < h->len &&
	    h->word[lx->line_len] == c)
		lx->line_len++;
	else
		lx->line_match = false;
}

/*
 * Follow the lines of a here-document's body, which ends at the first
 * line that is its delimiter whatever else is open; true when c ended
 * it.  In an unquoted body a backslash-newline joins two lines first.
 */
static bool
shell_heredoc_line(struct shell_lex *lx, int c)
{
	const struct heredoc *h = &lx->pend[lx->next_pend - 1];

	if (c == '\n') {
		if (lx->line_bs) {
			lx->line_bs = false;
			if (h->strip)
				shell_lose(lx, &lost_hd_continued);
			return false;
		}
		if (lx->line_match && lx->line_len == h->len) {
			shell_heredoc_end(lx);
			return true;
		}
		lx->line_len = 0;
		lx->line_match = lx->line_start = true;
		return false;
	}
	if (lx->line_bs) {
		lx->line_bs = false;
		shell_heredoc_line_add(lx, h, '\\');
	} else if (c == '\\' && !h->quoted) {
		lx->line_bs = true;
		return false;
	}
	shell_heredoc_line_add(lx, h, c);
	return false;
}

/* A word of a command context ends: "case" in $(...) and "{" first in
 * NAME=(...) lose the lexer. */
static void
shell_word_end(struct shell_lex *lx)
{
	struct shell_frame *f = &lx->f[lx->top];

	if (lx->top > 0 && f->kind == SH_CMD && lx->wlen == 4 &&
	    !memcmp(lx->word, "case", 4))
		shell_lose(lx, &lost_case);
	if (f->kind == SH_ARRAY && lx->in_word) {
		if (f->name && lx->wlen == 1 && lx->word[0] == '{')
			shell_lose(lx, &lost_array_brace);
		f->name = false;
	}
	lx->wlen = 0;
	lx->in_word = false;
}

/* A character of a word; 0 for one that makes it no keyword. */
static void
shell_word_char(struct shell_lex *lx, int c)
{
	lx->in_word = true;
	if (c && lx->wlen < 4)
		lx->word[lx->wlen++] = (char)c;
	else
		lx->wlen = 5;
}

/* Metacharacters and blanks: each ends a word. */
static bool
shell_word_end_char(int c)
{
	return strchr(" \t\n;&|()<>", c) != NULL;
}

/*
 * Follow the word after ">&", which bash expands twice: blanks before it,
 * then anything up to a metacharacter, <(...) and >(...) included (a '<'
 * or '>' is taken for part of it).  A backslash waits for the next
 * character, and a backslash-newline is none.
 */
static void
shell_dup_word(const struct shell_lex *lx, struct shell_frame *f, int c,
               bool procsub)
{
	if (!f->dup || (lx->escaped && c == '\n') ||
	    (!lx->escaped && c == '\\'))
		return;
	if (lx->escaped || !shell_word_end_char(c) || procsub ||
	    c == '<' || c == '>')
		f->dup = 2;
	else if (f->dup == 2 || (c != ' ' && c != '\t'))
		f->dup = 0;
}

/*
 * The metacharacter c that ended a word (ws: no word was open) in a
 * command context: lt, gt and paren_ws say whether the character
 * before it was '<', '>' or a '(' that began a word.
 */
static void
shell_lex_meta(struct shell_lex *lx, struct shell_frame *f, int c, bool ws,
               bool lt, bool gt, bool paren_ws)
{
	if (f->kind == SH_ARRAY && c == ')' && !f->parens) {
		shell_pop(lx);
	} else if (f->kind == SH_ARRAY && !strchr(" \t\n", c)) {
		shell_lose(lx, &lost_array);
	} else if (c == '\n') {
		shell_cmd_newline(lx);
	} else if (c == '<') {
		if (lt)
			shell_heredoc_start(lx);
		else
			lx->lt = true;
	} else if (c == '>') {
		lx->gt = true;
	} else if (c == '&' && gt) {
		f->dup = 1;
	} else if (c == '(' && paren_ws) {	/* "((" starting a word */
		f->parens--;
		shell_push(lx, SH_ARITH);
	} else if (c == '(') {
		f->parens++;
		lx->paren_ws = ws;
	} else if (c == ')') {
		if (f->parens)
			f->parens--;
		else if (lx->top > 0)  /* the end of $(...), <(...) */
			shell_pop(lx);
	}
}

/*
 * Open the frame that c opens in a command context, if any: a
 * substitution after a '$' (dollar), <(...) or >(...) after a '<' or '>'
 * (redir), NAME=(...) after a '=' (eq), or quotes.  False when c opens
 * none.
 */
static bool
shell_cmd_open(struct shell_lex *lx, struct shell_frame *f, int c,
               bool dollar, bool redir, bool eq)
{
	if (shell_open(lx, c, dollar, false))
		return true;
	if (c == '(' && redir && f->kind == SH_CMD) {
		shell_push(lx, SH_CMD);		/* <(...), >(...) */
		return true;
	}
	if (c == '(' && eq && f->kind == SH_CMD) {
		if (lx->top > 0) {
			shell_lose(lx, &lost_array_sub);
		} else {
			f = shell_push(lx, SH_ARRAY);
			if (f)
				f->name = true;
		}
		return true;
	}
	if (c == '\'' || c == '"') {
		shell_push(lx, c == '"' ? SH_DQUOTE : SH_SQUOTE);
		return true;
	}
	return false;
}

/*
 * One character in a command context, or in the words of NAME=(...),
 * where bash reports a metacharacter as an error and goes on at the next
 * line, which may be one of a value's: the lexer gives up there.
 */
static void
shell_lex_cmd(struct shell_lex *lx, struct shell_frame *f, int c,
              bool dollar)
{
	bool fresh = f->fresh, paren_ws = lx->paren_ws, lt = lx->lt;
	bool eq = lx->eq, gt = lx->gt, ws;

	f->fresh = lx->paren_ws = lx->lt = lx->eq = lx->gt = false;
	if (f->comment) {
		if (c == '\n') {
			f->comment = false;
			shell_cmd_newline(lx);
		}
		return;
	}
	shell_dup_word(lx, f, c, c == '(' && (lt || gt));
	if (lx->escaped) {
		lx->escaped = false;
		if (c != '\n')  /* backslash-newline is no character */
			shell_word_char(lx, 0);
		return;
	}
	if (c == '(' && fresh && f->kind == SH_CMD) {  /* "$((" */
		f->kind = SH_ARITH;
		return;
	}
	if (c == '\\') {
		lx->escaped = true;
		return;
	}
	if (c == '$') {
		shell_word_char(lx, 0);
		lx->dollar = !dollar;
		return;
	}
	if (shell_cmd_open(lx, f, c, dollar, lt || gt, eq))
		return;
	if (c == '#' && !lx->in_word) {
		f->comment = true;
		return;
	}
	if (!shell_word_end_char(c)) {
		shell_word_char(lx, c);
		lx->eq = c == '=';
		return;
	}
	ws = !lx->in_word;
	shell_word_end(lx);
	shell_lex_meta(lx, f, c, ws, lt, gt, paren_ws);
}

/* One character in ${...} that is not '$', '`' or '\'. */
static void
shell_lex_param(struct shell_lex *lx, const struct shell_frame *f, int c)
{
	struct shell_frame *g;

	/* The first '}' ends it, braces or not; quotes nest. */
	if (c == '}') {
		shell_pop(lx);
	} else if (c == '"') {
		shell_push(lx, SH_DQUOTE);
	} else if (c == '\'') {
		g = shell_push(lx, SH_SQUOTE);
		if (g)
			g->in_dquote = f->in_dquote;
	}
}

/* One character in $((...)) that is not '$', '`' or '\': the ')' that
 * closes no '(' must be followed by another (f->closing). */
static void
shell_lex_arith(struct shell_lex *lx, struct shell_frame *f, int c)
{
	if (c == '(')
		f->parens++;
	else if (c == ')' && f->parens)
		f->parens--;
	else if (c == ')')
		f->closing = true;
	else if (c == '"' || c == '\'')
		shell_push(lx, c == '"' ? SH_DQUOTE : SH_SQUOTE);
}

/* One character in "...", ${...}, $((...)) or an unquoted
 * here-document's body: '$', '`' and '\' are live. */
static void
shell_lex_expanding(struct shell_lex *lx, struct shell_frame *f, int c,
                    bool dollar)
{
	bool fresh = f->fresh;
	bool in_dquote = f->kind != SH_PARAM || f->in_dquote;

	f->fresh = false;
	if (f->kind == SH_ARITH && f->closing) {
		if (c == ')')
			shell_pop(lx);
		else
			shell_lose(lx, &lost_arith);
		return;
	}
	/* ${name}, ${#name}, ${!name} */
	if (f->kind == SH_PARAM && !shell_name_char(c) &&
	    !(fresh && (c == '#' || c == '!')))
		f->name = false;
	if (lx->escaped) {
		lx->escaped = false;
		return;
	}
	if (c == '\n') {
		shell_nested_newline(lx);
		return;
	}
	if (c == '\\' || c == '$') {
		if (c == '\\')
			lx->escaped = true;
		else
			lx->dollar = !dollar;
		return;
	}
	if (shell_open(lx, c, dollar, in_dquote))
		return;
	switch (f->kind) {
	case SH_DQUOTE:
		if (c == '"')
			shell_pop(lx);
		break;
	case SH_PARAM:
		shell_lex_param(lx, f, c);
		break;
	case SH_ARITH:
		shell_lex_arith(lx, f, c);
		break;
	default:
		/* In a here-document quotes are plain characters. */
		break;
	}
}

/* One character in '...', `...` or $'...'. */
static void
shell_lex_quoted(struct shell_lex *lx, const struct shell_frame *f, int c)
{
	if (f->kind == SH_SQUOTE) {
		if (c == '\'')
			shell_pop(lx);
		else if (c == '}' && f->in_dquote)
			shell_lose(lx, &lost_squote_brace);
		else if (c == '\n')
			shell_nested_newline(lx);
		return;
	}
	/* `...` and $'...' end at the first closing character that no
	 * backslash escapes; quotes inside `...` do not count.  dash,
	 * which has no $'...', ends that at the first '. */
	if (lx->escaped) {
		lx->escaped = false;
		if (c == '\'' && f->kind == SH_DOLLAR_SQUOTE)
			shell_lose(lx, &lost_ansi_quote);
	} else if (c == '\\') {
		lx->escaped = true;
	} else if (c == (f->kind == SH_BACKQUOTE ? '`' : '\'')) {
		shell_pop(lx);
	} else if (c == '\n') {
		shell_nested_newline(lx);
	}
}

/* Advance the lexer over one character. */
void
shell_lex_char(struct shell_lex *lx, int c)
{
	bool dollar = lx->dollar, varname = lx->varname;
	struct shell_frame *f;

	if (lx->lost)
		return;
	lx->dollar = lx->varname = false;
	if ((lx->reading && shell_heredoc_word(lx, c)) ||
	    (lx->body && shell_heredoc_line(lx, c)) || lx->lost)
		goto done;
	f = &lx->f[lx->top];
	switch (f->kind) {
	case SH_CMD:
	case SH_ARRAY:
		shell_lex_cmd(lx, f, c, dollar);
		break;
	case SH_SQUOTE:
	case SH_BACKQUOTE:
	case SH_DOLLAR_SQUOTE:
		shell_lex_quoted(lx, f, c);
		break;
	case SH_HEREDOC:
		if (f->quoted)
			break;
		/* fall through */
	default:
		shell_lex_expanding(lx, f, c, dollar);
		break;
	}
	/* "$NAME" goes on while name characters follow. */
	lx->varname = (dollar && shell_name_start(c)) ||
	              (varname && shell_name_char(c));
done:
	if (c == '\n')
		lx->line++;
}
