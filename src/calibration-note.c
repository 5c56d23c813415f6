/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * calibration-note.c - the note that a planned campaign predicts with
 * another calibration than a new plan would (calibration-note.h).
 */
#include "autoconfig.h"

#include <stdio.h>

#include "calibration-note.h"
#include "config.h"
#include "safe-text.h"
#include "strbuf.h"

/*
 * Whether a and b predict alike: the same constants, residual band and
 * kind of band (fitted or built-in).  The name is left out: renaming a
 * calibration changes no prediction.  Exact, because campaign.conf
 * writes every double so that it reads back the same.
 */
static bool
calibration_same(const struct calibration *a, const struct calibration *b)
{
	for (int p = 0; p < CAL_NPARAMS; p++)
		if (a->v[p] != b->v[p])
			return false;
	return a->residual_low == b->residual_low &&
	       a->residual_high == b->residual_high &&
	       calibration_fitted(a) == calibration_fitted(b);
}

/* The note itself, as one write: escaped, since dir and the file are
 * names users chose, and root's cron mail shows them.  unrecorded: the
 * campaign was planned before campaign.conf recorded which layer set
 * its calibration, which may then be its campaign file's own. */
static void
print_note(const char *dir, const char *gpu, const struct calibration *was,
           const struct calibration_entry *now, bool unrecorded)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "note: ");
	safe_text_append(&sb, dir);
	strbuf_addf(&sb, " was planned with calibration %s; the site and "
	            "user files now give %s calibration %s",
	            calibration_label(was), gpu,
	            calibration_label(now ? &now->cal : NULL));
	if (now && now->file) {
		strbuf_addstr(&sb, " (");
		safe_text_append(&sb, now->file);
		strbuf_addf(&sb, ":%d)", now->line);
	}
	/* plan --force deletes the old directory, runs and logs included
	 * (store-create.c): say so, and how to keep them. */
	strbuf_addstr(&sb, unrecorded ? ": a new plan keeps a calibration "
	              "its campaign file sets; else, to predict with it, "
	              "plan again" : ": to predict with it, plan again");
	strbuf_addstr(&sb, " ('paratune plan --force -o ");
	safe_text_append(&sb, dir);
	strbuf_addstr(&sb, " CAMPAIGN' replaces the campaign and what it "
	              "measured; another -o keeps them)\n");
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

void
calibration_note_stale(const char *dir, const struct settings *frozen,
                       const struct settings *layers)
{
	enum frozen_calibration from = settings_frozen_calibration(frozen);
	const struct calibration_entry *now;

	/* One that the campaign file or the command line set stays in a
	 * new plan of the same campaign, whatever the site and user files
	 * give: the note would come on every command, and planning again
	 * would not end it. */
	if (frozen->gpu_name == NULL || from == FROZEN_CAL_CAMPAIGN)
		return;
	now = calibration_set_find(&layers->calibrations, frozen->gpu_name);
	if (!calibration_same(now ? &now->cal : calibration_default(),
	                      &frozen->calibration))
		print_note(dir, frozen->gpu_name, &frozen->calibration, now,
		           from == FROZEN_CAL_UNRECORDED);
}

void
calibration_note_dir(const char *dir, const struct settings *frozen,
                     const char *site_path)
{
	struct settings layers;

	/* settings_load_for said why it failed and released layers. */
	if (settings_load_for(&layers, site_path, NULL, NULL) != 0)
		return;
	calibration_note_stale(dir, frozen, &layers);
	settings_release(&layers);
}
