/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-scan.h - the scan of a configuration file's code, line by line
 * (config-scan.c), for the @include walk (config-include.c).
 */
#ifndef PARATUNE_CONFIG_SCAN_H
#define PARATUNE_CONFIG_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

/* Groups, lists and arrays open deeper than this are not named. */
#define SCAN_DEPTH_MAX 32

/*
 * What the scan of a file's code carries from one line to the next, as
 * libconfig's scanner would see it: whether a comment is open; the key
 * of the innermost open group, list or array ("search.tensor_parallel")
 * and the setting name last read, to name a value by; and the first
 * literal libconfig 1.5 would read wrong, with that key.
 */
struct code_scan {
	bool in_comment;
	struct strbuf key;      /* the open groups', lists' and arrays'
	                           names, joined with '.' */
	size_t depth;           /* how many are open */
	size_t key_len[SCAN_DEPTH_MAX]; /* key's length outside each */
	char open[SCAN_DEPTH_MAX]; /* '{', '(' or '[' */
	char kind[SCAN_DEPTH_MAX]; /* an array's first element's type */
	struct strbuf name;     /* the last setting name read */
	bool assigned;          /* its '=' read, its value not yet */
	const char *wide;       /* that literal, in the line scanned */
	size_t wide_len;
	struct strbuf wide_key; /* its key, or "" */
	char mixed[2];          /* the first array with elements of two
	                           types: those types (scan_kind_name) */
	struct strbuf mixed_key; /* and its key */
	long lineno;            /* the line scanned, where the caller counts */
	long open_line[SCAN_DEPTH_MAX]; /* where each open one opened */
	long string_line;       /* the first line a string is not closed on */
	long nul_line;          /* the first line a string holds \x00 on */
};

#define CODE_SCAN_INIT \
	{ false, STRBUF_INIT, 0, { 0 }, { 0 }, { 0 }, STRBUF_INIT, false, \
	  NULL, 0, STRBUF_INIT, { 0 }, STRBUF_INIT, 0, { 0 }, 0, 0 }

/* Free what a scan holds. */
void code_scan_release(struct code_scan *s);
/* Scan the code of one line (no @include directive) into s. */
void scan_line(struct code_scan *s, const char *p);

#endif
