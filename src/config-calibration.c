/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-calibration.c - the calibration key: the estimator's constants
 * per GPU type, as `paratune calibrate` writes them, and the campaign
 * GPU's set resolved from them.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "config-int.h"
#include "error.h"
#include "util.h"

/* What frozen_from names each layer (enum config_layer), and the name
 * of the member itself. */
static const char *const layer_names[] = {
	[LAYER_SITE] = "site", [LAYER_USER] = "user",
	[LAYER_CAMPAIGN] = "campaign", [LAYER_CMDLINE] = "command line",
};
#define FROZEN_FROM "frozen_from"
#define FROZEN_OWN "frozen_own"
static const char *const plan_records[] = { FROZEN_FROM, FROZEN_OWN, NULL };

const char *
config_layer_name(int layer)
{
	if (layer <= LAYER_DEFAULT || layer > LAYER_CMDLINE)
		bug("config_layer_name(%d)", layer);
	return layer_names[layer];
}

/*
 * frozen_from = "LAYER": plan's record, in campaign.conf, of the layer
 * that set the calibration it froze, which the layers read then do not
 * tell (they are all the campaign layer).  Checked wherever it is, but
 * taken only from a frozen campaign.conf: a campaign file copied from
 * one is planned anew, and a group copied into the site or user file
 * is theirs, so there the layers read say where it comes from.
 */
static int
read_frozen_from(struct loader *ld, const struct config_key *k,
                 const config_setting_t *e, struct calibration_entry *ent)
{
	const config_setting_t *m = config_setting_get_member(e, FROZEN_FROM);
	const char *v = m ? config_setting_get_string(m) : NULL;
	char q[QUOTE_CUT_SIZE];

	if (m == NULL)
		return 0;
	for (int l = LAYER_SITE; v && l <= LAYER_CMDLINE; l++)
		if (!strcmp(v, layer_names[l])) {
			if (ld->frozen && ld->layer == LAYER_CAMPAIGN)
				ent->frozen_from = l;
			return 0;
		}
	return config_key_error(ld, m, k, FROZEN_FROM " is \"site\", "
	                        "\"user\", \"campaign\" or \"command "
	                        "line\", not %s", v ? quote_cut(v, q)
	                        : config_kind_name(m));
}

/*
 * frozen_own = ["KEY", ...]: plan's record, beside frozen_from, of the
 * members the campaign file or the command line set: a new plan keeps
 * those, and takes the rest from the site and user files.  Checked and
 * taken as frozen_from is.
 */
static int
read_frozen_own(struct loader *ld, const struct config_key *k,
                const config_setting_t *e, struct calibration_entry *ent)
{
	const config_setting_t *m = config_setting_get_member(e, FROZEN_OWN);
	unsigned own = 0;
	int n;

	if (m == NULL) {
		/* Written before plan recorded them: the campaign file's
		 * calibration counted as wholly its own, whichever members
		 * the frozen group holds. */
		if (ld->frozen && ld->layer == LAYER_CAMPAIGN)
			ent->own = CAL_MEMBERS_ALL;
		return 0;
	}
	if (!config_setting_is_aggregate(m) || config_setting_is_group(m))
		return config_key_error(ld, m, k, FROZEN_OWN " is a list of "
		                        "member names [\"gemm_eff_max\", ...], "
		                        "not %s", config_kind_name(m));
	n = config_setting_length(m);
	for (int i = 0; i < n; i++) {
		const config_setting_t *v = config_setting_get_elem(m,
		                                                 (unsigned)i);
		const char *key = config_setting_get_string(v);
		int bit = key ? calibration_member_find(key) : -1;
		char q[QUOTE_CUT_SIZE];

		if (bit < 0)
			return config_key_error(ld, m, k, FROZEN_OWN " names "
			                        "members of the calibration, "
			                        "not %s", key
			                        ? quote_cut(key, q)
			                        : config_kind_name(v));
		own |= 1u << bit;
	}
	if (ld->frozen && ld->layer == LAYER_CAMPAIGN)
		ent->own = own;
	return 0;
}

/* The members e sets, when its layer is one a new plan of the same
 * campaign reads again: the campaign file's or the command line's. */
static void
note_own_members(const struct loader *ld, const config_setting_t *e,
                 struct calibration_entry *ent)
{
	int n = config_setting_length(e);

	if (ld->layer < LAYER_CAMPAIGN)
		return;
	for (int i = 0; i < n; i++) {
		const char *name = config_setting_name(
			config_setting_get_elem(e, (unsigned)i));
		int bit = name ? calibration_member_find(name) : -1;

		if (bit >= 0)
			ent->own |= 1u << bit;
	}
}

/* One GPU = { ... } member: overrides that GPU's constants key by key
 * (a later layer changes what it names, the rest stays). */
static int
apply_calibration_entry(struct loader *ld, const struct config_key *k,
                        const config_setting_t *e)
{
	const char *gpu = config_setting_name(e);
	struct calibration_entry *ent;
	struct origin o;
	char q[QUOTE_CUT_SIZE];

	if (!config_setting_is_group(e))
		return config_key_error(ld, e, k, "each member is a group "
		                        "GPU = { gemm_eff_max = ...; ... }, "
		                        "not %s", config_kind_name(e));
	if (gpu == NULL || !config_valid_name(gpu) ||
	    strlen(gpu) >= sizeof ent->gpu)
		return config_key_error(ld, e, k, "%s is not a GPU name",
		                        quote_cut(gpu ? gpu : "", q));
	ent = calibration_set_get(&ld->c->calibrations, gpu);
	o = config_origin_at(ld, e);
	ent->file = o.file;
	ent->line = o.line;
	ent->layer = (int)ld->layer;
	note_own_members(ld, e, ent);
	if (read_frozen_from(ld, k, e, ent) != 0 ||
	    read_frozen_own(ld, k, e, ent) != 0 ||
	    config_apply_members_but(ld, e, "calibration", IN_CALIBRATION,
	                             &ent->cal, plan_records) != 0)
		return -1;
	if (ent->cal.name[0] && !config_valid_name(ent->cal.name))
		return config_key_error(ld, e, k, "'%s' is not a valid "
		                        "calibration name", ent->cal.name);
	if (ent->cal.residual_low > ent->cal.residual_high)
		return config_key_error(ld, e, k, "residual_low %g is above "
		                        "residual_high %g",
		                        ent->cal.residual_low,
		                        ent->cal.residual_high);
	return 0;
}

int
config_apply_calibration(struct loader *ld, const struct config_key *k,
                         const config_setting_t *s)
{
	int ret = 0, n;

	if (!config_setting_is_group(s))
		return config_key_error(ld, s, k, "expects a group: "
		                        "calibration = { h100-sxm = { ... }; "
		                        "}, not %s", config_kind_name(s));
	n = config_setting_length(s);
	for (int i = 0; i < n; i++)
		ret |= apply_calibration_entry(ld, k,
		                               config_setting_get_elem(s,
		                                             (unsigned)i));
	return ret;
}

/*
 * Every calibrated GPU must be in the catalog, the built-in one or what
 * a layer's gpus added: a misspelt name calibrated nothing and the
 * campaign ran on the built-in defaults without a word.  A site may
 * calibrate GPUs that the campaign does not use.
 */
static int
check_calibrated_gpus(const struct settings *c)
{
	int ret = 0;

	for (size_t i = 0; i < c->calibrations.n; i++) {
		const struct calibration_entry *e = &c->calibrations.v[i];
		struct strbuf hint = STRBUF_INIT;
		char where[512];

		if (gpu_catalog_find(&c->gpus, e->gpu))
			continue;
		if (e->file)
			snprintf(where, sizeof where, "%s:%d", e->file,
			         e->line);
		else
			config_origin_text(c, "calibration", where,
			                   sizeof where);
		config_suggest_gpu(c, e->gpu, &hint);
		ret = error("%s: key 'calibration': unknown GPU '%s'%s; "
		            "'paratune gpus' lists the catalog", where, e->gpu,
		            hint.buf);
		strbuf_release(&hint);
	}
	return ret;
}

int
config_resolve_calibration(struct settings *c,
                           const struct config_sources *src)
{
	const struct calibration_entry *e = c->gpu_name
		? calibration_set_find(&c->calibrations, c->gpu_name) : NULL;

	/*
	 * plan freezes the GPU's calibration into campaign.conf only when
	 * a layer set one.  Submit and resume read the site file beneath
	 * a frozen campaign (for its caps): a calibration the site added
	 * since must not slip into a campaign planned on the built-in
	 * defaults, whose candidates.csv holds their predictions.
	 */
	if (e && src->frozen && e->layer < LAYER_CAMPAIGN)
		e = NULL;
	if (e) {
		c->calibration = e->cal;
		c->calibration_origin.file = e->file;
		c->calibration_origin.line = e->line;
	} else {
		calibration_init(&c->calibration);
		memset(&c->calibration_origin, 0,
		       sizeof c->calibration_origin);
	}
	return check_calibrated_gpus(c);
}

/* Public: see config.h.  A frozen load reads campaign.conf as the
 * campaign layer, so only its frozen_from says which layer plan had. */
enum frozen_calibration
settings_frozen_calibration(const struct settings *frozen)
{
	const struct calibration_entry *e = frozen->gpu_name
		? calibration_set_find(&frozen->calibrations, frozen->gpu_name)
		: NULL;

	if (e == NULL || e->layer < LAYER_CAMPAIGN)
		return FROZEN_CAL_DEFAULT;
	if (e->frozen_from == LAYER_DEFAULT)
		return FROZEN_CAL_UNRECORDED;
	return e->frozen_from >= LAYER_CAMPAIGN ? FROZEN_CAL_CAMPAIGN
	       : FROZEN_CAL_LAYERS;
}
