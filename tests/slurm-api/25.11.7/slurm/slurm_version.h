/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * <slurm/slurm_version.h> of Slurm 25.11.7: paratune's own description of
 * the interface, not Slurm's header.  Read from SchedMD/slurm tag
 * slurm-25-11-7-1, slurm/slurm_version.h.in (25.11.7 is the series' latest
 * release).  Slurm's configure writes it from that file, with this number.
 * It declares only what paratune's Slurm adapter names, as this release
 * declares it, for scripts/slurm-compat; see tests/slurm-api/README.md.
 */
#ifndef PARATUNE_DESC_SLURM_VERSION_H
#define PARATUNE_DESC_SLURM_VERSION_H

/* 25.11.7: 25 << 16 | 11 << 8 | 7 */
#define SLURM_VERSION_NUMBER 0x190b07
#define SLURM_VERSION_NUM(a, b, c) (((a) << 16) + ((b) << 8) + (c))

#endif
