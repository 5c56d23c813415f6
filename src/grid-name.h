/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * grid-name.h - the names grid.c gives its candidates (grid-name.c).
 */
#ifndef PARATUNE_GRID_NAME_H
#define PARATUNE_GRID_NAME_H

#include "grid.h"

/* Name c, from its layout, the axes spec searches and prefix. */
void candidate_name(const struct grid_spec *spec, const struct workload *w,
                    const char *prefix, struct candidate *c);
/* The same name ending in "_base": the campaign's base where a
 * candidate of the grid has its name (grid_add_base). */
void candidate_name_base(const struct grid_spec *spec,
                         const struct workload *w, const char *prefix,
                         struct candidate *c);

#endif
