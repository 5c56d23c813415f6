/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout-int.h - what layout.c (the divisibility rules) and
 * layout-topology.c (the placement rules) share.  Private to those files.
 */
#ifndef PARATUNE_LAYOUT_INT_H
#define PARATUNE_LAYOUT_INT_H

#include <stdbool.h>

#include "model.h"

/* Whether an all-to-all over size ranks can split a tp rank's heads:
 * its heads and its KV heads both divide by size (RULE_CP_A2A, and
 * layout_cp_a2a_size's first level). */
bool layout_a2a_splits_heads(const struct model *m, int tp, int size);

#endif
