/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd.h - the command table and option parsing.
 *
 * One file per command (cmd-NAME.c) exports one struct cmd_entry, as tmux
 * does.  Options are data (git's parse-options): usage and --help are
 * generated from the same array that parses, so they cannot drift.
 */
#ifndef PARATUNE_CMD_H
#define PARATUNE_CMD_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

enum output_format { FORMAT_TABLE, FORMAT_JSON, FORMAT_CSV };

/* State shared by the whole run of one command; nothing else is global. */
struct cmd_ctx {
	const char *site_path;   /* --site FILE */
	int verbosity;           /* -1 quiet, 0 normal, 1 verbose */
	enum output_format format;
	FILE *out;               /* where data goes (stdout) */
	const char *argv0;
	int progress;            /* plan --progress: even off a terminal */
};

enum opt_type {
	OPT_END,
	OPT_BOOL,     /* sets an int to 1 */
	OPT_INT,
	OPT_DOUBLE,
	OPT_STRING,   /* const char * */
	OPT_STRINGS,  /* repeated: appends to a struct str_list */
	OPT_FORMAT,   /* table|json into ctx->format */
	OPT_FORMAT_CSV, /* table|json|csv: the commands that write csv */
};

struct option {
	enum opt_type type;
	char short_name;      /* 0 when none */
	const char *long_name;
	void *value;
	const char *argh;     /* argument placeholder for help, e.g. "N" */
	const char *help;
};

/*
 * An OPT_INTEGER's value before the option is given, told apart from
 * every value a user can give (the parser refuses this one), so that a
 * command's own "default" sentinel such as -1 or 0 cannot be typed in.
 * An OPT_NUMBER's is NAN, which no number parses to.
 */
#define OPT_INT_UNSET INT_MIN

#define OPT_BOOLEAN(s, l, v, h) { OPT_BOOL, (s), (l), (v), NULL, (h) }
#define OPT_INTEGER(s, l, v, a, h) { OPT_INT, (s), (l), (v), (a), (h) }
#define OPT_NUMBER(s, l, v, a, h) { OPT_DOUBLE, (s), (l), (v), (a), (h) }
#define OPT_STR(s, l, v, a, h) { OPT_STRING, (s), (l), (v), (a), (h) }
#define OPT_STRLIST(s, l, v, a, h) { OPT_STRINGS, (s), (l), (v), (a), (h) }
#define OPT_FORMAT_(v) { OPT_FORMAT, 0, "format", (v), "FMT", \
	"output format: table or json" }
#define OPT_FORMAT_WITH_CSV(h) { OPT_FORMAT_CSV, 0, "format", NULL, "FMT", \
	(h) }
#define OPT_FINISH { OPT_END, 0, NULL, NULL, NULL, NULL }

struct cmd_entry {
	const char *name;
	const char *alias;     /* NULL when none */
	const char *args;      /* positional part of the usage line */
	const char *summary;   /* one line for `paratune --help` */
	int (*exec)(struct cmd_ctx *ctx, int argc, char **argv);
	/* The usage line after the name, where the one made from args and
	 * the options would show a required option as optional. */
	const char *synopsis;
};

/* The table, NULL-terminated, in help order. */
extern const struct cmd_entry *const cmd_table[];

/* Exact name or alias first, then a unique prefix; NULL otherwise, with
 * *ambiguous set when several commands share the prefix. */
const struct cmd_entry *cmd_find(const char *name, bool *ambiguous);
/* The usage error for a prefix several commands share, naming them. */
void cmd_ambiguous(const char *name);

/*
 * Parse options in argv[1..argc) against opts; positional arguments are
 * moved to the front of argv[1..] in order.  Returns the number of
 * positional arguments, CMD_HELP after printing help for -h/--help, or
 * -1 after printing a usage error.
 */
#define CMD_HELP (-2)
int cmd_parse_options(struct cmd_ctx *ctx, const struct cmd_entry *entry,
                      const struct option *opts, int argc, char **argv);
/* Print "usage: ..." and the option list to f. */
void cmd_usage(FILE *f, const struct cmd_entry *entry,
               const struct option *opts);
/* "usage: paratune NAME ARGS [--opt ARG]...", generated from the option
 * table, so that it names every option the command takes. */
struct strbuf;
void cmd_synopsis(struct strbuf *sb, const struct cmd_entry *entry,
                  const struct option *opts);

/*
 * The common ending of a command's option parsing: returns -1 when the
 * command should return *status now (help, usage error or wrong number of
 * positional arguments), else the positional count.
 */
int cmd_parse_args(struct cmd_ctx *ctx, const struct cmd_entry *entry,
                   const struct option *opts, int argc, char **argv,
                   int min_args, int max_args, int *status);

/*
 * For a command that reads no site file (models, size): a --site FILE
 * named is still read, so that a missing or broken one is said (66 or
 * 78, as every other command says it) rather than passed over.  EXIT_OK
 * when none is named or it reads.
 */
int cmd_check_site(const struct cmd_ctx *ctx);

#endif
