/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-estimate.h - the layout `paratune estimate CAMPAIGN` builds from
 * its flags, for other commands that take a layout by candidates.csv's
 * column names (calibrate's measured-runs files).
 */
#ifndef PARATUNE_CMD_ESTIMATE_H
#define PARATUNE_CMD_ESTIMATE_H

#include <stdbool.h>

#include "plan.h"

/* Whether name is a layout or switch column of candidates.csv that
 * estimate_columns_layout takes (tp ... recompute_layers, the switches). */
bool estimate_is_layout_column(const char *name);

/*
 * The base layout of plan p with columns names[i] = values[i] applied
 * as estimate's flags apply them (an empty value keeps the base's; a
 * switch's value as candidates.csv writes it, or true/false), the
 * values left out kept valid with those given.  Returns 0; -1 when a
 * value is not one its column takes, *bad then its index (nothing is
 * printed, the caller names the place).
 */
int estimate_columns_layout(const struct plan *p, int n,
                            const char *const *names,
                            const char *const *values, struct layout *out,
                            int *bad);

#endif
