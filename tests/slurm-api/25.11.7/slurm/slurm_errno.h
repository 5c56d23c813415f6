/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * <slurm/slurm_errno.h> of Slurm 25.11.7: paratune's own description of the
 * interface, not Slurm's header.  Read from SchedMD/slurm tag
 * slurm-25-11-7-1, slurm/slurm_errno.h (25.11.7 is the series' latest
 * release).  It declares only what paratune's Slurm adapter names, as this
 * release declares it, for scripts/slurm-compat; see
 * tests/slurm-api/README.md.
 */
#ifndef PARATUNE_DESC_SLURM_ERRNO_H
#define PARATUNE_DESC_SLURM_ERRNO_H

#include <errno.h>

#define SLURM_SUCCESS 0

/* The codes the adapter names, with their numbers (errno values). */
typedef enum {
	/* talking to any daemon */
	SLURM_COMMUNICATIONS_CONNECTION_ERROR = 1001,
	SLURM_COMMUNICATIONS_SHUTDOWN_ERROR = 1004,
	SLURM_PROTOCOL_AUTHENTICATION_ERROR = 1007,
	SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR = 1013,
	/* talking to slurmctld */
	SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR = 1800,
	SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR = 1803,
	SLURM_NO_CHANGE_IN_DATA = 1900,
	/* slurmctld's answers */
	/* 2007: renamed ESLURM_MAX_JOB_COUNT in 26.05.2 */
	ESLURM_ERROR_ON_DESC_TO_RECORD_COPY = 2007,
	ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE = 2014,
	ESLURM_NODES_BUSY = 2016,
	ESLURM_INVALID_JOB_ID = 2017,
	ESLURM_ALREADY_DONE = 2021,
	ESLURM_IN_STANDBY_MODE = 2027,
	ESLURM_PORTS_BUSY = 2059,
	ESLURM_PARTITION_NOT_AVAIL = 2070,
	ESLURM_QOS_THRES = 2074,
	ESLURM_PARTITION_DOWN = 2101,
	ESLURM_RESERVATION_MAINT = 2118,
	ESLURM_IN_STANDBY_USE_BACKUP = 2131,
	/* sockets */
	/* 5000 to 5002 have had no names since 23.02 */
	SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT = 5005,
	/* authentication */
	ESLURM_AUTH_CRED_INVALID = 6000,
	ESLURM_AUTH_UNPACK = 6007,
	/* slurmdbd */
	ESLURM_DB_CONNECTION = 7000,
	ESLURM_DB_CONNECTION_INVALID = 7008,
} slurm_err_t;

/* The message for a code (or a system errno). */
extern char *slurm_strerror(int errnum);

#endif
