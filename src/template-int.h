/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * template-int.h - what the template renderer (template.c) and its shell
 * lexer (template-shell.c) share: the lexer's state, which the renderer
 * reads at each tag, and the calls that advance it.  Only template*.c
 * include it.
 */
#ifndef PARATUNE_TEMPLATE_INT_H
#define PARATUNE_TEMPLATE_INT_H

#include <stdbool.h>

/*
 * Where the shell stands after the output so far: enough of its lexer
 * (POSIX "Token Recognition", and bash's where it reads more) to know
 * whether a value would land inside quotes, after a backslash or a '$',
 * in a comment, a substitution, arithmetic or a here-document.
 *
 * The contexts nest as they do in the shell, one frame each.  "$(" opens
 * a new command context even inside double quotes, so in
 * x="$(echo "{{q:y}}")" the tag stands inside the inner quotes, not after
 * the outer ones.  Where the shell's reading cannot be followed exactly
 * (a case command in $(...), whose patterns end in an unmatched ')'), or
 * bash and dash read the same text differently, the lexer gives up: it
 * is lost from there on, and every later substitution is refused.
 */
enum shell_kind {
	SH_CMD,            /* commands: the script, $(...), <(...), >(...) */
	SH_ARRAY,          /* NAME=(...), read as commands */
	SH_SQUOTE,         /* '...' */
	SH_DQUOTE,         /* "..." */
	SH_BACKQUOTE,      /* `...`, not followed inside */
	SH_DOLLAR_SQUOTE,  /* bash's $'...': backslash escapes are live */
	SH_PARAM,          /* ${...} */
	SH_ARITH,          /* $((...)) and ((...)) */
	SH_HEREDOC,        /* the body of a here-document */
};

/* Frames open at once, at most; deeper nesting is not followed. */
#define SHELL_DEPTH 32
/* The longest here-document delimiter followed, and most on one line. */
#define HEREDOC_WORD_MAX 63
#define HEREDOC_PENDING 4

struct shell_frame {
	unsigned char kind;  /* enum shell_kind */
	bool comment;    /* SH_CMD, SH_ARRAY: in a comment */
	bool fresh;      /* opened by the previous character */
	bool in_dquote;  /* SH_PARAM: in "..." or a here-document, where
	                    bash and dash differ on '...'; SH_SQUOTE: in
	                    such a ${...} */
	bool name;       /* SH_PARAM: still in the parameter's name;
	                    SH_ARRAY: no word read yet */
	bool closing;    /* SH_ARITH: read the first ')' of "))" */
	bool quoted;     /* SH_HEREDOC: the delimiter was quoted */
	unsigned char dup;  /* SH_CMD, SH_ARRAY: 1 after ">&", 2 in the word
	                       after it */
	unsigned parens; /* SH_CMD, SH_ARITH: '(' not closed yet */
};

/* A here-document: its delimiter after quote removal. */
struct heredoc {
	char word[HEREDOC_WORD_MAX];
	unsigned len;
	bool quoted;  /* part of the word was quoted: the body is literal */
	bool strip;   /* <<-: leading tabs are stripped */
};

/* Why the lexer gave up, and what to write instead. */
struct shell_lost {
	const char *why, *instead;
};

enum { RD_NONE, RD_OP, RD_BLANK, RD_WORD };

struct shell_lex {
	struct shell_frame f[SHELL_DEPTH];
	int top;        /* the innermost frame; f[0] is the script */
	bool escaped;   /* the previous character was a live backslash */
	bool dollar;    /* it was a '$' that starts an expansion ("$$" is
	                   one) */
	bool varname;   /* it ended a "$NAME" */
	/* in SH_CMD */
	bool in_word;   /* inside a word: '#' starts no comment */
	bool paren_ws;  /* the previous character was a '(' starting a word */
	bool eq;        /* it was a '=' in a word: a '(' opens NAME=(...) */
	bool gt;        /* it was an unquoted '>' */
	bool lt;        /* it was an unquoted '<' */
	char word[4];   /* the word so far, to see "case" */
	int wlen;       /* its length; above 4 when it cannot be "case" */
	/* here-documents: the delimiter being read, those whose bodies
	 * start at the next newline, the body being read and its line */
	int reading;    /* RD_* */
	int rd_quote;   /* '\'' or '"' open in the delimiter, or 0 */
	bool rd_bs;     /* a backslash in the delimiter */
	struct heredoc pend[HEREDOC_PENDING];
	int npend, next_pend;  /* registered; bodies started */
	int pend_frame;     /* the SH_CMD frame that registered them */
	int body;           /* the SH_HEREDOC frame being read, or 0 */
	unsigned line_len;  /* characters of the line that match the word */
	bool line_match;    /* the line so far is a prefix of the word */
	bool line_start;    /* nothing but stripped tabs on the line yet */
	bool line_bs;       /* a backslash ends the line so far */
	/* where it gave up */
	const struct shell_lost *lost;
	int lost_line;
	int line;       /* the template line of the next character */
};

/* A character that may follow the first of a parameter name
 * (template-shell.c). */
bool shell_name_char(int c);
/* Advance the lexer over one character (template-shell.c). */
void shell_lex_char(struct shell_lex *lx, int c);

#endif
