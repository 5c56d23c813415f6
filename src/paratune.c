/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * paratune.c - main: global options, then one command from the table.
 *
 * Kept thin on purpose: everything else is in libparatune.a so that the
 * unit tests exercise the same code the binary runs.
 */
#include "autoconfig.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "error.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: paratune [--site FILE] [-q|-v] COMMAND [ARGS]\n\n"
	           "Find the fastest parallel configuration for training a "
	           "model on a Slurm cluster.\n\ncommands:\n");
	for (int i = 0; cmd_table[i]; i++)
		fprintf(f, "  %-10s %s\n", cmd_table[i]->name,
		        cmd_table[i]->summary);
	fprintf(f, "\nglobal options:\n"
	           "  --site FILE   site configuration (default "
	           PARATUNE_SYSCONFDIR "/paratune.conf)\n"
	           "  -q, --quiet   print only errors, warnings and reports\n"
	           "  -v, --verbose print more detail\n"
	           "  --version     print the version and exit\n"
	           "  -h, --help    show this help and exit\n\n"
	           "'paratune COMMAND --help' describes one command.\n");
}

/* -1 for -q or --quiet, 1 for -v or --verbose, else 0. */
static int
verbosity_option(const char *a)
{
	if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
		return -1;
	return !strcmp(a, "-v") || !strcmp(a, "--verbose");
}

/* Consume global options; returns the index of the command word, or a
 * negative exit code to return now. */
static int
parse_globals(struct cmd_ctx *ctx, int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			/* The end of the global options: what follows is
			 * the command, as getopt ends options there. */
			i++;
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -EXIT_OK - 1000;
		} else if (!strcmp(a, "--version")) {
			if (i + 1 < argc) {
				error("--version takes nothing after it, not "
				      "'%s'", argv[i + 1]);
				return -EXIT_USAGE - 1000;
			}
			printf("paratune %s\n", PACKAGE_VERSION);
			return -EXIT_OK - 1000;
		} else if (verbosity_option(a) != 0) {
			int v = verbosity_option(a);

			/* The last one won without a word: a cron line
			 * with both printed what it had asked not to. */
			if (ctx->verbosity == -v) {
				error("-q and -v together: give one");
				return -EXIT_USAGE - 1000;
			}
			ctx->verbosity = v;
		} else if (!strcmp(a, "--site") && i + 1 < argc) {
			ctx->site_path = argv[++i];
		} else if (!strncmp(a, "--site=", 7) && a[7] != '\0') {
			ctx->site_path = a + 7;
		} else if (!strcmp(a, "--site") || !strcmp(a, "--site=")) {
			error("option '--site' needs a value");
			usage(stderr);
			return -EXIT_USAGE - 1000;
		} else {
			error("unknown global option '%s'", a);
			usage(stderr);
			return -EXIT_USAGE - 1000;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return -EXIT_USAGE - 1000;
	}
	return i;
}

/*
 * What a command printed must have reached its file: a full disk or a
 * closed pipe behind stdout would otherwise leave a cut table or CSV
 * and a success status for the script that redirected it.  A command
 * that failed already keeps its own status.
 */
static int
close_stdout(int status)
{
	int e = fflush(stdout) != 0 ? errno : 0;
	bool failed = e != 0 || ferror(stdout);

	if (fclose(stdout) != 0) {
		e = e ? e : errno;
		failed = true;
	}
	if (!failed)
		return status;
	return error_stdout(status, e);
}

int
main(int argc, char **argv)
{
	struct cmd_ctx ctx = { NULL, 0, FORMAT_TABLE, stdout, argv[0], 0 };
	const struct cmd_entry *entry;
	bool ambiguous;
	int i;

	/* An ignored SIGCHLD outlives exec (a daemon that runs cron lines
	 * may leave it so), and the kernel then reaps children itself:
	 * waitpid() on root's child acting as a campaign's owner failed
	 * with ECHILD, and every campaign with it. */
	signal(SIGCHLD, SIG_DFL);
	i = parse_globals(&ctx, argc, argv);
	if (i < 0)
		return close_stdout(-(i + 1000));
	entry = cmd_find(argv[i], &ambiguous);
	if (entry == NULL) {
		if (ambiguous)
			cmd_ambiguous(argv[i]);
		else
			error("unknown command '%s' (see 'paratune --help')",
			      argv[i]);
		return EXIT_USAGE;
	}
	return close_stdout(entry->exec(&ctx, argc - i, argv + i));
}
