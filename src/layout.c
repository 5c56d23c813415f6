/*
 * layout.c - the divisibility rules of a parallel layout.
 *
 * Megatron-LM's own checks (megatron/training/arguments.py and
 * megatron/core/parallel_state.py; summarised in the notes on estimation
 * and launch interfaces), in integer arithmetic.  The order of the checks
 * is the order a user would fix them in: world size first, then the model
 * shape, then the batch.
 */
#include "autoconfig.h"

#include <string.h>

#include "layout.h"

static const char *const rule_names[RULE_COUNT] = {
	[LAYOUT_OK] = "ok",
	[RULE_WORLD] = "tp*pp*cp must divide the GPU count",
	[RULE_HEADS] = "attention heads % tp",
	[RULE_GROUPS] = "query groups vs tp",
	[RULE_LAYERS_PP] = "layers % pp",
	[RULE_VP] = "vp needs pp > 1 and layers % (pp*vp)",
	[RULE_VP_MICRO] = "interleaving needs micro-batches % pp",
	[RULE_SEQ_CP] = "seq_length % (2*cp)",
	[RULE_EXPERTS] = "experts % ep",
	[RULE_EXPERT_FOLD] = "ep*etp must divide tp*cp*dp",
	[RULE_BATCH] = "gbs % (mbs*dp)",
	[RULE_SP] = "sequence parallel needs tp > 1",
	[RULE_RECOMPUTE] = "recompute layers > layers per stage",
	[RULE_MP_RANGE] = "model parallel size outside min..max",
};

const char *
layout_rule_name(enum layout_rule r)
{
	return (unsigned)r < RULE_COUNT ? rule_names[r] : "?";
}

/* Rules that depend only on the model shape and tp/pp/vp/cp/ep. */
static enum layout_rule
check_shape(const struct workload *w, const struct layout *l)
{
	const struct model *m = w->model;
	int g = m->num_query_groups > 0 ? m->num_query_groups
	                                : m->num_attention_heads;

	if (m->num_attention_heads % l->tp != 0)
		return RULE_HEADS;
	/* KV heads split over tp, or are replicated when tp exceeds them. */
	if (g % l->tp != 0 && !(l->tp > g && l->tp % g == 0))
		return RULE_GROUPS;
	if (m->num_layers % l->pp != 0)
		return RULE_LAYERS_PP;
	if (l->vp > 1 && (l->pp == 1 || m->num_layers % (l->pp * l->vp) != 0))
		return RULE_VP;
	if (l->cp > 1 && w->seq_length % (2 * l->cp) != 0)
		return RULE_SEQ_CP;
	if (l->ep > 1 && (m->num_experts == 0 || m->num_experts % l->ep != 0))
		return RULE_EXPERTS;
	if (l->sequence_parallel && l->tp == 1)
		return RULE_SP;
	return LAYOUT_OK;
}

enum layout_rule
layout_check(const struct workload *w, struct layout *l)
{
	int world = workload_world(w);
	int mp = l->tp * l->pp * l->cp;
	enum layout_rule r;
	int micro;

	if (l->tp < 1 || l->pp < 1 || l->cp < 1 || l->ep < 1 || l->vp < 1 ||
	    l->mbs < 1 || l->gbs < 1 || mp > world || world % mp != 0)
		return RULE_WORLD;
	l->dp = world / mp;
	if ((r = check_shape(w, l)) != LAYOUT_OK)
		return r;
	/* Expert layers re-fold the same GPUs: etp*ep*edp = tp*cp*dp. */
	if ((l->tp * l->cp * l->dp) % (layout_etp(l) * l->ep) != 0)
		return RULE_EXPERT_FOLD;
	if (l->gbs % (l->mbs * l->dp) != 0)
		return RULE_BATCH;
	micro = l->gbs / (l->mbs * l->dp);
	if (l->vp > 1 && micro % l->pp != 0)
		return RULE_VP_MICRO;
	if (l->recompute == RECOMPUTE_FULL &&
	    l->recompute_layers > w->model->num_layers / l->pp)
		return RULE_RECOMPUTE;
	return LAYOUT_OK;
}

static const char *const recompute_names[] = { "none", "selective", "full" };
static const char *const recompute_shorts[] = { "none", "sel", "full" };

const char *
recompute_name(enum recompute r)
{
	return recompute_names[r];
}

const char *
recompute_short(enum recompute r)
{
	return recompute_shorts[r];
}

int
recompute_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, recompute_names[i]))
			return i;
	return -1;
}

const char *
attention_name(enum attention_impl a)
{
	return a == ATTN_FLASH ? "flash" : "unfused";
}

int
attention_parse(const char *s)
{
	if (!strcmp(s, "flash"))
		return ATTN_FLASH;
	if (!strcmp(s, "unfused"))
		return ATTN_UNFUSED;
	return -1;
}

bool
layout_equal(const struct layout *a, const struct layout *b)
{
	return a->tp == b->tp && a->pp == b->pp && a->cp == b->cp &&
	       a->ep == b->ep && layout_etp(a) == layout_etp(b) &&
	       a->vp == b->vp && a->mbs == b->mbs && a->gbs == b->gbs &&
	       a->recompute == b->recompute &&
	       a->recompute_layers == b->recompute_layers &&
	       a->sequence_parallel == b->sequence_parallel &&
	       a->distributed_optimizer == b->distributed_optimizer &&
	       a->attention == b->attention;
}
