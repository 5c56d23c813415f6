/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout-args.h - a layout to estimate, from what `paratune estimate`'s
 * flags name or from candidates.csv's column names (calibrate's
 * measured-runs files), with the campaign's values for the rest and
 * where each value came from.
 */
#ifndef PARATUNE_LAYOUT_ARGS_H
#define PARATUNE_LAYOUT_ARGS_H

#include <limits.h>
#include <stdbool.h>

#include "layout-switch.h"
#include "plan.h"
#include "util.h"

/* A size the flags leave out. */
#define LAYOUT_ARG_UNSET INT_MIN

/* The layout's sizes and recompute settings, in the order shown. */
enum size_field {
	SF_TP, SF_PP, SF_CP, SF_EP, SF_ETP, SF_VP, SF_MBS, SF_GBS,
	SF_RECOMPUTE, SF_RC_LAYERS, SF_COUNT,
};

/* The size fields' names, as candidates.csv's columns. */
extern const char *const layout_args_size_names[SF_COUNT];

/* Where a value of the estimated layout came from. */
enum from { FROM_DEFAULT, FROM_SEARCH, FROM_BASE, FROM_PLAN, FROM_FLAG,
            FROM_COUNT };

/* The source of every value shown. */
struct sources {
	enum from size[SF_COUNT];
	enum from sw[SW_COUNT];
};

/* The command line; LAYOUT_ARG_UNSET (sizes) or NULL for what it leaves out. */
struct layout_args {
	int size[SF_COUNT];          /* SF_RECOMPUTE unused */
	const char *recompute, *attention;
	int no_sp, no_distopt;
	struct str_list switches;    /* --switch NAME=VALUE */
	unsigned given;              /* BIT(enum layout_switch) named */
	int rank;                    /* --rank, or LAYOUT_ARG_UNSET */
	const char *name;            /* --name */
};

#define LAYOUT_ARGS_INIT { \
	{ LAYOUT_ARG_UNSET, LAYOUT_ARG_UNSET, LAYOUT_ARG_UNSET, \
	  LAYOUT_ARG_UNSET, LAYOUT_ARG_UNSET, LAYOUT_ARG_UNSET, \
	  LAYOUT_ARG_UNSET, LAYOUT_ARG_UNSET, LAYOUT_ARG_UNSET, \
	  LAYOUT_ARG_UNSET }, \
	NULL, NULL, 0, 0, STR_LIST_INIT, 0, LAYOUT_ARG_UNSET, NULL, \
}

/* Whether the flags set any part of the layout. */
bool layout_args_any(const struct layout_args *a);

/* Refuse sizes no campaign could hold, naming the flag: 0 or -1. */
int layout_args_check(const struct layout_args *a);

/*
 * The layout to estimate.  *l holds the starting layout (the base or a
 * planned candidate, from start) or, with start FROM_SEARCH, nothing:
 * then every value the flags leave out is the campaign's first searched
 * one.  *src says where each value came from.  Returns 0, or -1 after
 * printing a usage error.
 */
int layout_args_resolve(struct layout_args *a, const struct grid_spec *sp,
                        const struct settings *c, enum from start,
                        bool switches_known, struct layout *l,
                        struct sources *src);

/* Whether name is a layout or switch column of candidates.csv that
 * layout_args_from_columns takes (tp ... recompute_layers, the
 * switches). */
bool layout_args_is_column(const char *name);

/*
 * The layout of columns names[i] = values[i] over plan p's campaign,
 * applied as estimate's flags apply them (an empty value takes the
 * campaign's base section, or without one its first searched value; a
 * switch's value as candidates.csv writes it, or true/false), the
 * values left out kept valid with those given.  Returns 0; -1 when a
 * value is not one its column takes, *bad then its index (nothing is
 * printed, the caller names the place).
 */
int layout_args_from_columns(const struct plan *p, int n,
                             const char *const *names,
                             const char *const *values, struct layout *out,
                             int *bad);

#endif
