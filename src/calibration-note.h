/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibration-note.h - whether a planned campaign still predicts with
 * the calibration a new plan would use.
 *
 * A campaign directory keeps the calibration it was planned with
 * (campaign.conf is frozen, so that the predictions of candidates.csv
 * stay coherent), even after the site or user file includes a new one
 * for its GPU.  The commands that read a planned campaign say so, once,
 * so that a user who calibrated learns that the campaign must be
 * planned again to use it.
 */
#ifndef PARATUNE_CALIBRATION_NOTE_H
#define PARATUNE_CALIBRATION_NOTE_H

#include <stdbool.h>

#include "calibration.h"

struct settings;

/*
 * When the calibration that now the layers a new plan reads (layers:
 * the site and user files, loaded without a campaign) give the GPU of
 * the planned campaign frozen (loaded from DIR/campaign.conf) differs
 * from frozen's, print one "note:" on stderr naming both, where the new
 * one is set, and how to plan again.  Prints nothing else, ever.
 */
void calibration_note_stale(const char *dir, const struct settings *frozen,
                            const struct settings *layers);

/*
 * The same, loading the layers itself from site_path (NULL: the usual
 * site file) and the user file; a file that cannot be read says why
 * and no note follows.
 */
void calibration_note_dir(const char *dir, const struct settings *frozen,
                          const char *site_path);

#endif
