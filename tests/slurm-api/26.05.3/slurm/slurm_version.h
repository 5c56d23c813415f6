/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * <slurm/slurm_version.h> of Slurm 26.05.3: paratune's own description of
 * the interface, not Slurm's header.  Read from SchedMD/slurm tag
 * slurm-26-05-3-1, slurm/slurm_version.h.in (26.05.3 is the series' latest
 * release).  Slurm's configure writes it from that file, with this number.
 * It declares only what paratune's Slurm adapter names, as this release
 * declares it, for scripts/slurm-compat; see tests/slurm-api/README.md.
 */
#ifndef PARATUNE_DESC_SLURM_VERSION_H
#define PARATUNE_DESC_SLURM_VERSION_H

/* 26.05.3: 26 << 16 | 5 << 8 | 3 */
#define SLURM_VERSION_NUMBER 0x1a0503
#define SLURM_VERSION_NUM(a, b, c) (((a) << 16) + ((b) << 8) + (c))

#endif
