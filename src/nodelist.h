/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * nodelist.h - a job's node list kept in a fixed field.
 *
 * A list longer than its field (Slurm compresses it, "gpu[001-064]",
 * but a scattered allocation stays long: "gpu[001,004,...,094]") was
 * cut without a word, and the cut list went to Slurm as the nodes a
 * retry avoids: an unclosed bracket, or "n1" where "n12" failed.  A
 * list cut to fit ends in NODELIST_CUT instead, which no node list
 * does, so that it is shown for what it is and never sent.
 */
#ifndef PARATUNE_NODELIST_H
#define PARATUNE_NODELIST_H

#include <stdbool.h>
#include <stddef.h>

#define NODELIST_CUT "..."

/* src (NULL: "") into dst[0..size), cut to end in NODELIST_CUT when
 * it does not fit; size is at least sizeof NODELIST_CUT + 1. */
void nodelist_copy(char *dst, size_t size, const char *src);
/* Whether list is one nodelist_copy cut. */
bool nodelist_cut(const char *list);

#endif
