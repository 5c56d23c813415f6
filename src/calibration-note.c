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

/* How the note ends: what plan records tells whether a new plan keeps
 * the calibration (unrecorded: planned before campaign.conf recorded
 * which layer set it, which may then be the campaign file's own), and
 * some of it (partial: the campaign file or --set set some members). */
enum note_kind { NOTE_LAYERS, NOTE_PARTIAL, NOTE_UNRECORDED };

/* The note itself, as one write: escaped, since dir and the file are
 * names users chose, and root's cron mail shows them. */
static void
print_note(const char *dir, const char *gpu, const struct calibration *was,
           const struct calibration_entry *now, enum note_kind kind)
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
	if (kind == NOTE_PARTIAL)
		strbuf_addstr(&sb, " for the constants its campaign file "
		              "and --set leave to them");
	/* plan --force deletes the old directory, runs and logs included
	 * (store-create.c): say so, and how to keep them. */
	strbuf_addstr(&sb, kind == NOTE_UNRECORDED ? ": a new plan keeps a "
	              "calibration its campaign file sets; else, to predict "
	              "with it, plan again" : ": to predict with it, plan "
	              "again");
	strbuf_addstr(&sb, " ('paratune plan --force -o ");
	safe_text_append(&sb, dir);
	strbuf_addstr(&sb, " CAMPAIGN' replaces the campaign and what it "
	              "measured; another -o keeps them)\n");
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

/* The members of the frozen calibration that a new plan of the same
 * campaign keeps whatever the site and user files give: those the
 * campaign file or the command line set (plan's frozen_own). */
static unsigned
members_kept(const struct settings *frozen, enum frozen_calibration from)
{
	const struct calibration_entry *e;

	if (from != FROZEN_CAL_CAMPAIGN)
		return 0;
	e = calibration_set_find(&frozen->calibrations, frozen->gpu_name);
	return e ? e->own : CAL_MEMBERS_ALL;
}

void
calibration_note_stale(const char *dir, const struct settings *frozen,
                       const struct settings *layers)
{
	enum frozen_calibration from;
	const struct calibration_entry *now;
	struct calibration replan;
	unsigned kept;

	if (frozen->gpu_name == NULL)
		return;
	/* What the campaign file or the command line set stays in a new
	 * plan, whatever the site and user files give: the note would come
	 * on every command, and planning again would not end it. */
	from = settings_frozen_calibration(frozen);
	kept = members_kept(frozen, from);
	if (kept == CAL_MEMBERS_ALL)
		return;
	now = calibration_set_find(&layers->calibrations, frozen->gpu_name);
	replan = now ? now->cal : *calibration_default();
	calibration_overlay(&replan, &frozen->calibration, kept);
	if (!calibration_same(&replan, &frozen->calibration))
		print_note(dir, frozen->gpu_name, &frozen->calibration, now,
		           from == FROZEN_CAL_UNRECORDED ? NOTE_UNRECORDED
		           : kept ? NOTE_PARTIAL : NOTE_LAYERS);
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
