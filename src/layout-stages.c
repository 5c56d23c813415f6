/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * layout-stages.c - the pipeline's stage arithmetic: how a model's
 * layers split over the stages (evenly, or with first and last stages
 * of their own), how many layers each stage and each model chunk holds,
 * and what full recompute's method and count come to per chunk.
 *
 * Kept apart from the rules (layout.c), which take RULE_LAYERS_PP,
 * RULE_UNEVEN and RULE_VP from it, because the grid, the estimate and
 * the job scripts ask it too.
 */
#include "autoconfig.h"

#include "layout.h"
#include "strbuf.h"

bool
layout_vstage_split(const struct model *m, const struct layout *l,
                    int *first, int *each, int *last)
{
	long long n = layout_mul(l->pp, l->vp > 1 ? l->vp : 1);
	long long layers = m->num_layers, left;

	if (n < 2 || n > layers + 2) {
		*first = *each = *last = 0;
		return false;
	}
	*each = (int)((layers + n - 1) / n);
	left = layers - (n - 2) * *each;
	if (left < 0) {
		*first = *last = 0;
		return false;
	}
	*first = left < *each ? (int)left : *each;
	*last = (int)left - *first;
	return true;
}

/* n transformer layers in a layout string: "", "t" or "t*n". */
static void
layers_text(struct strbuf *out, int n)
{
	if (n == 1)
		strbuf_addch(out, 't');
	else if (n > 1)
		strbuf_addf(out, "t*%d", n);
}

void
layout_vstage_string(const struct model *m, const struct layout *l,
                     struct strbuf *out)
{
	long long n = layout_mul(l->pp, l->vp > 1 ? l->vp : 1);
	int f, k, z;

	if (!layout_vstage_split(m, l, &f, &k, &z))
		return;
	strbuf_addch(out, 'E');
	layers_text(out, f);
	strbuf_addch(out, '|');
	if (n > 2) {
		strbuf_addch(out, '(');
		layers_text(out, k);
		strbuf_addf(out, "|)*%lld", n - 2);
	}
	layers_text(out, z);
	for (int i = 0; i < m->mtp_num_layers; i++)
		strbuf_addch(out, 'm');
	strbuf_addch(out, 'L');
}

/*
 * A pipeline layout: Megatron-LM takes it instead of the stage counts
 * and the account_for_* flags (arguments.py, transformer_config.py),
 * and its layers must fill every middle stage.
 */
static enum layout_rule
vstage_rule(const struct model *m, const struct layout *l)
{
	int f, k, z;

	if (l->first_stage_layers != 0 || l->last_stage_layers != 0 ||
	    l->account_embedding || l->account_loss ||
	    !layout_vstage_split(m, l, &f, &k, &z))
		return RULE_UNEVEN;
	return LAYOUT_OK;
}

/*
 * An uneven pipeline as transformer_config.py checks it: each count
 * given is positive and a multiple of vp, the layers left divide over
 * the stages left into a multiple of vp, and layers are left exactly
 * when stages are; and with vp some stage left in the middle, which
 * the layer offsets divide by.  Megatron-LM refuses it with the
 * account_for_* flags.  With pp 1 the counts change nothing
 * (check_no_effect).
 */
static enum layout_rule
uneven_rule(const struct model *m, const struct layout *l)
{
	int vp = l->vp > 1 ? l->vp : 1, left, stages;

	if (l->pp == 1)
		return LAYOUT_OK;
	if (l->pipeline_layout)
		return vstage_rule(m, l);
	if (l->account_embedding || l->account_loss ||
	    l->first_stage_layers < 0 || l->last_stage_layers < 0)
		return RULE_UNEVEN;
	if (l->first_stage_layers % vp != 0 || l->last_stage_layers % vp != 0)
		return RULE_VP;
	layout_uneven_middle(m, l, &left, &stages);
	if (left < 0 || (left > 0) != (stages > 0) ||
	    (stages > 0 && left % stages != 0))
		return RULE_UNEVEN;
	/* Both counts on pp 2 leave no middle stage, and with vp
	 * get_transformer_layer_offset divides the middle's layers of a
	 * virtual round by the middle stages, 0: the last rank's model
	 * chunks are never built (ZeroDivisionError), though
	 * transformer_config.py accepts the counts. */
	if (vp > 1 && stages == 0)
		return RULE_UNEVEN;
	if (stages > 0 && (left / stages) % vp != 0)
		return RULE_VP;
	return LAYOUT_OK;
}

enum layout_rule
layout_split_rule(const struct model *m, const struct layout *l)
{
	int split = layout_split_layers(m, l);

	if (layout_uneven(l))
		return uneven_rule(m, l);
	if (split % l->pp != 0)
		return RULE_LAYERS_PP;
	if (l->vp > 1 &&
	    (l->pp == 1 || split % layout_mul(l->pp, l->vp) != 0))
		return RULE_VP;
	return LAYOUT_OK;
}

void
layout_uneven_middle(const struct model *m, const struct layout *l,
                     int *layers, int *stages)
{
	*layers = m->num_layers;
	*stages = l->pp;
	if (l->first_stage_layers > 0) {
		*layers -= l->first_stage_layers;
		(*stages)--;
	}
	if (l->last_stage_layers > 0) {
		*layers -= l->last_stage_layers;
		(*stages)--;
	}
}

void
layout_auto_stages(const struct model *m, struct layout *l)
{
	int layers = m->num_layers, pp = l->pp, each;

	l->first_stage_layers = l->last_stage_layers = 0;
	if (pp <= 1 || layout_divides_split(layers, pp))
		return;
	each = (layers + pp - 1) / pp;
	if (layers - each * (pp - 1) < 1)
		return;
	l->first_stage_layers = each;
	l->last_stage_layers = layers - each * (pp - 1);
}

bool
layout_auto_vstages(const struct model *m, struct layout *l,
                    bool account_auto)
{
	struct layout at = *l;
	/* The layers alone do not split over pp: the stage counts or the
	 * account_for_* flags paratune chose did it. */
	bool helped = layout_uneven(l) ||
	              (account_auto && l->pp > 1 &&
	               m->num_layers % l->pp != 0);
	int f, k, z;

	if (l->pipeline_layout || l->vp <= 1 || !helped ||
	    layout_split_rule(m, l) == LAYOUT_OK)
		return false;
	at.first_stage_layers = at.last_stage_layers = 0;
	at.pipeline_layout = true;
	if (account_auto)
		at.account_embedding = at.account_loss = false;
	if (!layout_vstage_split(m, &at, &f, &k, &z))
		return false;
	*l = at;
	return true;
}

bool
layout_core_auto_vstages(enum template_core core)
{
	return core != CORE_NEMO2;
}

int
layout_middle_layers(const struct model *m, const struct layout *l)
{
	int left, stages, f, k, z;

	if (l->pipeline_layout) {
		layout_vstage_split(m, l, &f, &k, &z);
		return (l->vp > 1 ? l->vp : 1) * k;
	}
	if (!layout_uneven(l))
		return layout_split_layers(m, l) / l->pp;
	layout_uneven_middle(m, l, &left, &stages);
	return stages > 0 ? left / stages : 0;
}

/* A pipeline layout's first or last rank: its end stage and vp - 1
 * middle ones. */
static int
vstage_end_rank(const struct model *m, const struct layout *l, bool last)
{
	int f, k, z;

	layout_vstage_split(m, l, &f, &k, &z);
	return (last ? z : f) + ((l->vp > 1 ? l->vp : 1) - 1) * k;
}

int
layout_first_layers(const struct model *m, const struct layout *l)
{
	if (l->pipeline_layout)
		return vstage_end_rank(m, l, false);
	if (l->first_stage_layers > 0)
		return l->first_stage_layers;
	return layout_middle_layers(m, l) - l->account_embedding;
}

int
layout_last_layers(const struct model *m, const struct layout *l)
{
	if (l->pipeline_layout)
		return vstage_end_rank(m, l, true);
	if (l->last_stage_layers > 0)
		return l->last_stage_layers;
	return layout_middle_layers(m, l) - l->account_loss;
}

/* The most layers full recompute may name: an even split's share of a
 * rank (the flags counted), or an uneven one's smallest stage. */
static int
fewest_stage_layers(const struct model *m, const struct layout *l)
{
	int n = layout_middle_layers(m, l), f, z;

	if (!layout_uneven(l))
		return layout_split_layers(m, l) / l->pp;
	f = layout_first_layers(m, l);
	z = layout_last_layers(m, l);
	if (l->pp == 2 || n == 0)
		return f < z ? f : z;
	return n < f ? (n < z ? n : z) : (f < z ? f : z);
}

int
layout_recompute_limit(const struct model *m, const struct layout *l)
{
	return fewest_stage_layers(m, l);
}

int
layout_largest_chunk(const struct model *m, const struct layout *l)
{
	int vp = l->vp > 1 ? l->vp : 1;
	int n = layout_middle_layers(m, l);
	int f = layout_first_layers(m, l), z = layout_last_layers(m, l);

	if (f > n)
		n = f;
	if (z > n)
		n = z;
	/* Rounded up: a layout whose vp does not divide is refused later
	 * (RULE_VP), and must not come out as 0 layers before. */
	n = (n + vp - 1) / vp;
	return n > 1 ? n : 1;
}

/*
 * Uniform runs as long as a middle stage's chunk.  A pipeline of two
 * uneven stages has no middle one: its smaller stage's chunk then, the
 * longest run RULE_RECOMPUTE lets full recompute name.  Never 0:
 * Megatron-LM's uniform loop steps by the count (recompute.py,
 * "layer_idx += self.config.recompute_num_layers") and would not end.
 */
int
layout_uniform_whole(const struct model *m, const struct layout *l)
{
	int vp = l->vp > 1 ? l->vp : 1;
	int n = layout_middle_layers(m, l);

	if (n <= 0)
		n = fewest_stage_layers(m, l);
	n /= vp;
	return n > 1 ? n : 1;
}

/*
 * Megatron-LM applies --recompute-num-layers to each model chunk
 * (recompute.py at d98e8a64; transformer_block.py _checkpointed_forward
 * before): block checkpoints layers [0, N) one at a time, so any N from
 * the chunk's layers up is every layer, as uniform in runs of one is;
 * uniform checkpoints [0, N), [N, 2N), ... (the last run cut at the
 * chunk's end at d98e8a64, past it before), so only the count uniform 0
 * renders as (layout_uniform_whole) is that run again.
 */
void
layout_recompute_effective(const struct model *m, const struct layout *l,
                           enum recompute_method *method, int *layers)
{
	int chunk = layout_largest_chunk(m, l);
	int n = l->recompute_layers;

	*method = l->recompute_method;
	if (*method == RECOMPUTE_UNIFORM && n <= 0)
		n = layout_uniform_whole(m, l);
	if (*method == RECOMPUTE_UNIFORM && n == 1) {
		*method = RECOMPUTE_BLOCK;
		n = 0;
	}
	if (*method == RECOMPUTE_BLOCK && (n <= 0 || n > chunk))
		n = chunk;
	*layers = n;
}

/*
 * An uneven pipeline's chunk [MLM transformer_layer.py
 * get_transformer_layer_offset, transformer_block.py
 * get_num_layers_to_build]: each virtual round of the pipeline takes
 * first / vp layers on the first stage, the middle's share of the round
 * on each middle stage, last / vp on the last, in pipeline order; a
 * stage without a count of its own is a middle one.
 */
static void
uneven_chunk_span(const struct model *m, const struct layout *l,
                  int rank, int chunk, int *from, int *n)
{
	int vp = l->vp > 1 ? l->vp : 1, left, stages;
	int f = l->first_stage_layers > 0 ? l->first_stage_layers / vp : 0;
	int z = l->last_stage_layers > 0 ? l->last_stage_layers / vp : 0;
	int mid, round;

	layout_uneven_middle(m, l, &left, &stages);
	mid = stages > 0 ? left / vp / stages : 0;
	round = f + (stages > 0 ? left / vp : 0) + z;
	*from = chunk * round;
	if (rank > 0)
		*from += f + (rank - (l->first_stage_layers > 0)) * mid;
	*n = mid;
	if (rank == 0 && l->first_stage_layers > 0)
		*n = f;
	if (rank == l->pp - 1 && l->last_stage_layers > 0)
		*n = z;
}

/*
 * An even split's chunk: (layers + flags) / (pp x vp) layers, round j
 * of the pipeline from j x (layers + flags) / vp on; the embedding
 * counted as a layer takes the place of the first chunk's first layer
 * (every later chunk's offset one less), the loss the last chunk's
 * last.
 */
static void
even_chunk_span(const struct model *m, const struct layout *l,
                int rank, int chunk, int *from, int *n)
{
	int vp = l->vp > 1 ? l->vp : 1, split = layout_split_layers(m, l);
	int each = split / l->pp / vp;
	bool head = rank == 0 && chunk == 0;
	bool tail = rank == l->pp - 1 && chunk == vp - 1;

	*from = chunk * (split / vp) + rank * each -
	        (l->account_embedding && !head ? 1 : 0);
	*n = each - (l->account_embedding && head ? 1 : 0) -
	     (l->account_loss && tail ? 1 : 0);
}

/* A pipeline layout's chunk: virtual stage chunk x pp + rank. */
static void
vstage_chunk_span(const struct model *m, const struct layout *l,
                  int rank, int chunk, int *from, int *n)
{
	int v = chunk * l->pp + rank, f, k, z;
	int last = l->pp * (l->vp > 1 ? l->vp : 1) - 1;

	layout_vstage_split(m, l, &f, &k, &z);
	*from = v == 0 ? 0 : f + (v - 1) * k;
	*n = v == 0 ? f : v == last ? z : k;
}

void
layout_chunk_span(const struct model *m, const struct layout *l,
                  int rank, int chunk, int *from, int *n)
{
	if (l->pp <= 1) {
		*from = 0;
		*n = m->num_layers;
		return;
	}
	if (l->pipeline_layout)
		vstage_chunk_span(m, l, rank, chunk, from, n);
	else if (layout_uneven(l))
		uneven_chunk_span(m, l, rank, chunk, from, n);
	else
		even_chunk_span(m, l, rank, chunk, from, n);
}

/* Layers of pipeline rank `rank`, from the stage counts. */
static int
rank_count(const struct model *m, const struct layout *l, int rank)
{
	if (l->pp <= 1)
		return m->num_layers;
	if (rank == 0)
		return layout_first_layers(m, l);
	if (rank == l->pp - 1)
		return layout_last_layers(m, l);
	return layout_middle_layers(m, l);
}

int
layout_rank_layers(const struct model *m, const struct layout *l, int rank,
                   int *dense)
{
	int vp = l->pp > 1 && l->vp > 1 ? l->vp : 1, from, n, total = 0;

	/* Layers of one kind: no need to know which. */
	if (m->num_experts <= 0 || m->moe_first_dense_layers <= 0) {
		total = rank_count(m, l, rank);
		*dense = m->num_experts <= 0 ? total : 0;
		return total;
	}
	*dense = 0;
	for (int j = 0; j < vp; j++) {
		layout_chunk_span(m, l, rank, j, &from, &n);
		total += n;
		*dense += model_dense_layers_in(m, from, n);
	}
	return total;
}
