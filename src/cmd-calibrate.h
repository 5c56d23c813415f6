/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-calibrate.h - the measured runs `paratune calibrate` reads: rows
 * of a measured-runs CSV file (each layout applied to its campaign
 * file's base) or the measured candidates of a campaign directory.
 */
#ifndef PARATUNE_CMD_CALIBRATE_H
#define PARATUNE_CMD_CALIBRATE_H

#include <sys/types.h>

#include "calibrate.h"
#include "plan.h"
#include "results.h"

/* A campaign file CSV rows name, planned once whatever name they give
 * it (its device and inode). */
struct calib_campaign_file {
	struct plan *plan;
	char *path;      /* as the first row named it */
	dev_t dev;
	ino_t ino;
};

/* Rows read so far and what they point into (all owned). */
struct calib_input {
	struct calib_row *rows;
	int n;
	size_t alloc;
	const char **gpu;         /* per row: its GPU's catalog name */
	size_t gpu_alloc;
	struct calib_campaign_file *files;
	int nfiles;
	struct results **dirs;    /* one per campaign directory */
	int ndirs;
	char **strings;           /* places and groups the rows name */
	int nstrings;
	const char **gpus_seen;   /* every GPU with a run, filtered or not */
	int ngpus_seen;
};

/*
 * Append the rows of the measured-runs CSV at path (the format of
 * tests/data/measured/README) whose GPU is gpu (NULL: all); campaign
 * files are loaded with po.  Returns 0, or an exit code after an error
 * naming FILE:LINE:COLUMN (65 for a malformed file, 66 for a missing
 * one, a campaign file's own code for its errors).
 */
int calib_read_csv(struct calib_input *in, const char *path,
                   const struct plan_opts *po, const char *gpu);
/* Append the measured candidates of the campaign directory dir; as
 * calib_read_csv. */
int calib_read_dir(struct calib_input *in, const char *dir, const char *gpu);
void calib_input_release(struct calib_input *in);

#endif
