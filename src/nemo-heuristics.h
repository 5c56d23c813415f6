/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * nemo-heuristics.h - NeMo Auto Configurator's search tables, so that
 * `search.heuristics = "nemo"` gives users the candidates they know
 * (notes: NeMo auto configurator, section 3), but with paratune's
 * divisibility rules and estimates applied afterwards by the grid.
 */
#ifndef PARATUNE_NEMO_HEURISTICS_H
#define PARATUNE_NEMO_HEURISTICS_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

#define NEMO_LIST_MAX 64

/* The search space NeMo's tables give for one model size. */
struct nemo_search {
	int tp[NEMO_LIST_MAX], ntp;
	int pp[NEMO_LIST_MAX], npp;   /* V[a,b] expanded to layer divisors */
	int mbs[NEMO_LIST_MAX], nmbs;
	int gbs;                      /* the table's global batch size */
	int min_mp, max_mp;
	bool from_table;              /* false: class defaults were used */
	char note[256];               /* why the defaults, for a warning */
};

/*
 * Fill the search space for a model of size_b billion parameters at
 * seq_length on a GPU with gpu_memory_gb (NeMo knows 40 and 80; others
 * use the nearest).  Sizes no table row covers get NeMo's class defaults
 * with from_table false and a note saying so.  Returns 0, or -1 for a
 * model family NeMo's tool does not support (note says why).
 */
int nemo_search_space(const struct model *m, double size_b, int seq_length,
                      double gpu_memory_gb, struct nemo_search *out);

/*
 * NeMo-Framework-Launcher's base configuration rule (tp, pp and gbs by
 * size for GPT-like models, 40 GB doubling pp).  Returns 0, or -1 when
 * the rule has no row for the model.
 */
int nemo_base_config(const struct model *m, double size_b, int seq_length,
                     double gpu_memory_gb, int *tp, int *pp, int *gbs);

/* A searched list of sizes, for nemo_finetune_mp. */
struct nemo_list {
	const int *v;
	int n;
};

/*
 * NeMo's model-parallel bounds for fine-tuning, where the size lists are
 * the user's and no table applies: the product of the lists' smallest
 * values, and the smaller of the product of their largest and the GPU
 * count.  Products are taken without overflow (the minimum saturates at
 * INT_MAX); an empty list counts as {1}.
 */
void nemo_finetune_mp(const struct nemo_list *lists, int nlists, int gpus,
                      int *min_mp, int *max_mp);

#endif
