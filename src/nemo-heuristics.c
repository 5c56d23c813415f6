/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * nemo-heuristics.c - NeMo Auto Configurator's search tables and the
 * Launcher's base-configuration rule, as data.
 *
 * Sources (figures only; notes: NeMo auto configurator, section 3):
 * - NVIDIA/NeMo nemo/collections/llm/tools/auto_configurator/core/
 *   training_config.py: GPT3GridSearch, T5GridSearch, BertGridSearch
 *   and _calculate_tp_pp_mbs_grid (read at 25a148a9).
 * - NVIDIA/NeMo-Framework-Launcher auto_configurator/autoconfig/
 *   base_config.py: _gbs_tp_pp_gpt3_80gb and _gbs_tp_pp_gpt3_40gb (read
 *   at 082c0dbf).
 * Where the note leaves a row's micro-batch list out (T5 80 GB up to
 * 85.5 B, T5 40 GB up to 43 B, BERT 80 GB up to 87.5 B) the source sets
 * one, and the tables below follow the source.
 */
#include "autoconfig.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nemo-heuristics.h"
#include "strbuf.h"

#define ROW_LIST 10 /* longest list in a row: 8 values (T5 mbs), 0-ended */

/*
 * One table row: what NeMo sets for sizes above the previous row's
 * bound and up to max_b.  An empty list or a zero means the row keeps
 * the class default, as NeMo's rows only assign what they change.
 */
struct nemo_row {
	double max_b;
	int tp[ROW_LIST];
	int pp[ROW_LIST];  /* a literal PP list (BERT, GPT 40 GB) */
	int pp_lo, pp_hi;  /* V[lo,hi]: valid PP values within; 0: unset */
	int mbs[ROW_LIST];
	int gbs;
	int min_mp, max_mp;
};

/* A model class: its name and the defaults NeMo keeps without a row. */
struct nemo_class {
	const char *name;
	struct nemo_row defaults;
};

/* One size table, for a class, a GPU memory size and (GPT) a seq. */
struct nemo_table {
	const struct nemo_class *cls;
	int gpu_gb;       /* 40 or 80: the only sizes NeMo knows */
	int seq;          /* 0: the table is the same for every seq */
	const struct nemo_row *rows;
	size_t nrows;
};

/* Launcher base-config row: gbs, tp and pp for sizes up to max_b. */
struct nemo_base_row {
	double max_b;
	int gbs, tp, pp;
};

#define UPTO(b) .max_b = (b)
#define TP(...) .tp = { __VA_ARGS__ }
#define PP(...) .pp = { __VA_ARGS__ }
#define V(lo, hi) .pp_lo = (lo), .pp_hi = (hi)
#define MBS(...) .mbs = { __VA_ARGS__ }
#define GBS(n) .gbs = (n)
#define MP(lo, hi) .min_mp = (lo), .max_mp = (hi)
#define MPMIN(lo) .min_mp = (lo)

/* Class defaults: GPT3GridSearch, T5GridSearch, BertGridSearch fields. */
static const struct nemo_class gpt_class = {
	"GPT", { TP(1, 2, 4, 8), PP(1), MBS(1, 2, 4, 8), GBS(1024), MP(1, 8) },
};
static const struct nemo_class t5_class = {
	"T5", { TP(1, 2, 4, 8), PP(1), MBS(1, 2, 4, 6, 8, 12, 16), GBS(1920),
	        MP(1, 8) },
};
static const struct nemo_class bert_class = {
	"BERT", { TP(1, 2, 4, 8), PP(1), MBS(1, 2, 4, 6, 8, 12, 16),
	          GBS(1920), MP(1, 8) },
};

/* GPT3GridSearch, gpu_memory_gb == 80, seq_length == 2048. */
static const struct nemo_row gpt80_s2048[] = {
	{ UPTO(1), TP(1, 2), GBS(256) },
	{ UPTO(4), TP(1, 2, 4), GBS(1024) },
	{ UPTO(8), TP(1, 2, 4), GBS(2048) },
	{ UPTO(13), TP(1, 2, 4, 8), GBS(2048) },
	{ UPTO(23), TP(1, 2, 4), V(1, 4), MBS(1, 2, 4), MP(4, 8), GBS(2048) },
	{ UPTO(45), TP(2, 4, 8), V(1, 4), MBS(1, 2, 4), MP(8, 32), GBS(2048) },
	{ UPTO(95), TP(2, 4, 8), V(1, 8), MBS(1, 2, 4, 8), MP(8, 64),
	  GBS(2048) },
	{ UPTO(130), TP(2, 4, 8), V(1, 16), MBS(1, 2, 4, 8), MP(16, 128),
	  GBS(2048) },
	{ UPTO(195), TP(8), V(4, 16), MBS(1, 2, 4), MP(32, 256), GBS(2048) },
	{ UPTO(395), TP(8), V(8, 32), MBS(1, 2, 4), MP(64, 512), GBS(2048) },
	{ UPTO(790), TP(8), V(8, 100), MBS(1, 2, 4), MP(128, 1024),
	  GBS(2048) },
	{ UPTO(1100), TP(8), V(16, 130), MBS(1, 2, 4), MP(256, 2048),
	  GBS(2048) },
};

/* GPT3GridSearch, gpu_memory_gb == 80, seq_length == 4096. */
static const struct nemo_row gpt80_s4096[] = {
	{ UPTO(1), TP(1, 2, 4), MBS(1, 2, 4, 8), GBS(128) },
	{ UPTO(4), TP(1, 2, 4), MBS(1, 2, 4, 8), GBS(512) },
	{ UPTO(8), TP(1, 2, 4), V(1, 2), MBS(1, 2, 4), GBS(1024) },
	{ UPTO(13), TP(2, 4), V(1, 2), MBS(1, 2, 4), GBS(1024) },
	{ UPTO(23), TP(4, 8), V(1, 2), MBS(1, 2), MP(4, 16), GBS(1024) },
	{ UPTO(45), TP(4, 8), V(2, 4), MBS(1, 2), MP(8, 32), GBS(1024) },
	{ UPTO(95), TP(4, 8), V(1, 8), MBS(1, 2), MP(8, 64), GBS(1024) },
};

/* GPT3GridSearch, gpu_memory_gb == 80, seq_length == 8192. */
static const struct nemo_row gpt80_s8192[] = {
	{ UPTO(1), TP(1, 2), V(1, 2), MBS(1, 2, 4), GBS(64) },
	{ UPTO(4), TP(1, 2, 4), V(1, 2), MBS(1, 2, 4), GBS(128) },
	{ UPTO(8), TP(2, 4), V(1, 2), MBS(1, 2), GBS(256) },
	{ UPTO(13), TP(2, 4), V(1, 2), MBS(1, 2), GBS(256) },
	{ UPTO(23), TP(4, 8), V(1, 4), MBS(1), MP(8, 32), GBS(256) },
	{ UPTO(45), TP(8), V(4, 8), MBS(1), MP(32, 64), GBS(256) },
};

/* GPT3GridSearch, gpu_memory_gb == 80, seq_length == 16384. */
static const struct nemo_row gpt80_s16384[] = {
	{ UPTO(1), TP(2, 4), MBS(1, 2), GBS(32) },
	{ UPTO(4), TP(2, 4), V(1, 2), MBS(1), GBS(64) },
	{ UPTO(8), TP(2, 4), V(1, 2), MBS(1), GBS(128) },
	{ UPTO(13), TP(2, 4), V(1, 2), MBS(1), GBS(128) },
	{ UPTO(23), TP(4, 8), V(2, 4), MBS(1), MP(8, 32), GBS(128) },
};

/* GPT3GridSearch, gpu_memory_gb == 80, seq_length == 32768. */
static const struct nemo_row gpt80_s32768[] = {
	{ UPTO(1), TP(2, 4), V(1, 2), MBS(1), GBS(16) },
	{ UPTO(4), TP(2, 4), V(1, 2), MBS(1), GBS(32) },
	{ UPTO(8), TP(4, 8), V(1, 2), MBS(1), MP(4, 16), GBS(64) },
	{ UPTO(13), TP(4, 8), V(1, 2), MBS(1), MP(4, 16), GBS(64) },
	{ UPTO(23), TP(8), V(2, 4), MBS(1), MP(16, 32), GBS(64) },
};

/* GPT3GridSearch, gpu_memory_gb == 40 (seq_length not consulted). */
static const struct nemo_row gpt40[] = {
	{ UPTO(1), TP(1, 2, 4), MBS(1, 2, 4, 8), GBS(256) },
	{ UPTO(4), TP(1, 2, 4, 8), MBS(1, 2, 4, 8), GBS(1024) },
	{ UPTO(8), TP(2, 4, 8), PP(1, 2), MBS(1, 2, 4), MPMIN(2), GBS(2048) },
	{ UPTO(13), TP(4, 8), PP(1, 2, 4), MBS(1, 2, 4), MP(4, 32),
	  GBS(2048) },
	{ UPTO(23), TP(2, 4, 8), V(1, 8), MP(8, 64), GBS(2048) },
	{ UPTO(45), TP(4, 8), V(1, 12), MBS(1, 2, 4), MP(16, 128), GBS(2048) },
	{ UPTO(95), TP(4, 8), V(1, 16), MBS(1, 2, 4), MP(16, 256), GBS(2048) },
	{ UPTO(130), TP(4, 8), V(2, 26), MBS(1, 2), MP(32, 512), GBS(2048) },
	{ UPTO(195), TP(4, 8), V(2, 32), MBS(1, 2), MP(64, 1024), GBS(2048) },
	{ UPTO(395), TP(4, 8), V(4, 64), MBS(1, 2), MP(128, 2048),
	  GBS(2048) },
	{ UPTO(790), TP(4, 8), V(8, 128), MBS(1, 2), MP(256, 4096),
	  GBS(2048) },
	{ UPTO(1100), TP(4, 8), V(8, 192), MBS(1, 2), MP(512, 8192),
	  GBS(2048) },
};

/* T5GridSearch, gpu_memory_gb == 80. */
static const struct nemo_row t5_80[] = {
	{ UPTO(1), TP(1, 2), MBS(16, 32, 64, 128), GBS(2048) },
	{ UPTO(4), TP(1, 2, 4), MBS(4, 6, 8, 12, 16, 24, 32, 48), GBS(1920) },
	{ UPTO(8), TP(2, 4, 8), MBS(4, 6, 8, 12, 16, 24, 32), GBS(1920) },
	{ UPTO(14.5), TP(4, 8), MBS(2, 4, 6, 8, 12, 16, 24), GBS(1920) },
	{ UPTO(25.9), TP(4, 8), V(1, 2), MBS(1, 2, 4, 6, 8), MP(4, 16),
	  GBS(1920) },
	{ UPTO(43), TP(4, 8), V(1, 4), MBS(1, 2, 4, 6, 8), MP(8, 32),
	  GBS(1920) },
	{ UPTO(85.5), TP(4, 8), V(2, 8), MBS(1, 2, 4, 6, 8), MP(16, 64),
	  GBS(1920) },
	{ UPTO(165.5), TP(8), V(4, 16), MBS(1, 2, 4, 6), MP(32, 128),
	  GBS(1920) },
	{ UPTO(250), TP(8), V(4, 32), MBS(1, 2, 4, 6, 8), MP(64, 256),
	  GBS(1920) },
};

/* T5GridSearch, gpu_memory_gb == 40. */
static const struct nemo_row t5_40[] = {
	{ UPTO(1), TP(1, 2), MBS(16, 32, 64, 128), GBS(2048) },
	{ UPTO(4), TP(1, 2, 4), MBS(4, 8, 12, 16, 24, 32, 48), GBS(1920) },
	{ UPTO(8), TP(2, 4, 8), MBS(4, 6, 8, 12, 16, 24), GBS(1920) },
	{ UPTO(14.5), TP(4, 8), V(1, 2), MBS(2, 4, 6, 8, 12, 16), MP(4, 16),
	  GBS(1920) },
	{ UPTO(25.9), TP(4, 8), V(1, 8), MBS(1, 2, 4, 6, 8), MP(8, 32),
	  GBS(1920) },
	{ UPTO(43), TP(4, 8), V(1, 8), MBS(1, 2, 4, 6, 8), MP(16, 32),
	  GBS(1920) },
	{ UPTO(85.5), TP(8), V(2, 8), MBS(1, 2, 4, 6, 8), MP(32, 64),
	  GBS(1920) },
	{ UPTO(165.5), TP(8), V(4, 32), MBS(1, 2, 4), MP(64, 128), GBS(1920) },
	{ UPTO(250), TP(8), V(8, 64), MBS(1, 2, 4), MP(128, 256), GBS(1920) },
};

/* BertGridSearch, gpu_memory_gb == 80: PP rows are literal lists. */
static const struct nemo_row bert_80[] = {
	{ UPTO(1), TP(1, 2), GBS(256) },
	{ UPTO(4), TP(1, 2, 4), GBS(1024) },
	{ UPTO(8), TP(2, 4, 8), MPMIN(2), GBS(2048) },
	{ UPTO(13), TP(2, 4, 8), MBS(1, 2, 3, 4, 6), MPMIN(2), GBS(2048) },
	{ UPTO(25), TP(4, 8), MBS(1, 2, 3, 4), MPMIN(4), GBS(2048) },
	{ UPTO(46.5), TP(4, 8), PP(1, 2, 4), MBS(1, 2, 3, 4), MP(4, 16),
	  GBS(2048) },
	{ UPTO(87.5), TP(4, 8), PP(2, 4, 6, 8), MBS(1, 2, 3, 4), MP(8, 32),
	  GBS(2048) },
	{ UPTO(165.5), TP(4, 8), PP(4, 6, 8, 16), MBS(2, 4, 6, 8), MP(16, 128),
	  GBS(2048) },
	{ UPTO(250.5), TP(8), PP(4, 8, 16, 32), MBS(1, 2, 3, 4), MP(32, 256),
	  GBS(2048) },
};

/* BertGridSearch, gpu_memory_gb == 40. */
static const struct nemo_row bert_40[] = {
	{ UPTO(1), TP(1, 2, 4), GBS(256) },
	{ UPTO(4), TP(1, 2, 4, 8), GBS(1024) },
	{ UPTO(8), TP(2, 4, 8), MBS(1, 2, 4), GBS(2048) },
	{ UPTO(13), TP(2, 4, 8), MBS(1, 2, 4), GBS(2048) },
	{ UPTO(25), TP(2, 4, 8), PP(1, 2), MBS(1, 2, 4), MP(2, 16), GBS(2048) },
	{ UPTO(46.5), TP(4, 8), PP(1, 2, 4, 8), MBS(1, 2, 3), MP(8, 32),
	  GBS(2048) },
	{ UPTO(87.5), TP(4, 8), PP(2, 4, 6, 8), MBS(1, 2, 3), MP(16, 64),
	  GBS(2048) },
	{ UPTO(165.5), TP(8), PP(4, 6, 8, 16), MBS(1, 2), MP(32, 256),
	  GBS(2048) },
	{ UPTO(250.5), TP(8), PP(8, 16, 32), MBS(1, 2), MP(64, 512),
	  GBS(2048) },
};

#undef UPTO
#undef TP
#undef PP
#undef V
#undef MBS
#undef GBS
#undef MP
#undef MPMIN

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

static const struct nemo_table nemo_tables[] = {
	{ &gpt_class, 80, 2048, gpt80_s2048, NROWS(gpt80_s2048) },
	{ &gpt_class, 80, 4096, gpt80_s4096, NROWS(gpt80_s4096) },
	{ &gpt_class, 80, 8192, gpt80_s8192, NROWS(gpt80_s8192) },
	{ &gpt_class, 80, 16384, gpt80_s16384, NROWS(gpt80_s16384) },
	{ &gpt_class, 80, 32768, gpt80_s32768, NROWS(gpt80_s32768) },
	{ &gpt_class, 40, 0, gpt40, NROWS(gpt40) },
	{ &t5_class, 80, 0, t5_80, NROWS(t5_80) },
	{ &t5_class, 40, 0, t5_40, NROWS(t5_40) },
	{ &bert_class, 80, 0, bert_80, NROWS(bert_80) },
	{ &bert_class, 40, 0, bert_40, NROWS(bert_40) },
};

/* _gbs_tp_pp_gpt3_80gb, one table per sequence length. */
static const struct nemo_base_row base80_s2048[] = {
	{ 1, 256, 1, 1 }, { 4, 1024, 1, 1 }, { 8, 2048, 2, 1 },
	{ 13, 2048, 4, 1 }, { 20.6, 2048, 8, 1 }, { 45.6, 2048, 8, 2 },
	{ 123.6, 2048, 8, 4 }, { 196.6, 2048, 8, 8 }, { 392.2, 2048, 8, 16 },
	{ 735, 2048, 8, 32 }, { 1100, 2048, 8, 64 },
};
static const struct nemo_base_row base80_s4096[] = {
	{ 1, 128, 1, 1 }, { 4, 512, 1, 1 }, { 8, 1024, 2, 1 },
	{ 13, 1024, 4, 1 }, { 20.6, 1024, 4, 2 }, { 45.6, 1024, 8, 2 },
};
static const struct nemo_base_row base80_s8192[] = {
	{ 1, 64, 1, 1 }, { 4, 256, 1, 1 }, { 8, 512, 2, 1 },
	{ 13, 512, 4, 1 }, { 20.6, 512, 4, 4 }, { 45.6, 512, 8, 2 },
};
static const struct nemo_base_row base80_s16384[] = {
	{ 1, 32, 2, 1 }, { 4, 128, 2, 1 }, { 8, 256, 2, 2 },
	{ 13, 256, 4, 1 }, { 20.6, 256, 8, 2 },
};
static const struct nemo_base_row base80_s32768[] = {
	{ 1, 16, 2, 1 }, { 4, 64, 2, 1 }, { 8, 128, 4, 2 },
	{ 13, 128, 4, 2 }, { 20.6, 128, 8, 2 },
};
/*
 * _gbs_tp_pp_gpt3_40gb, seq 2048 only.  The note's "40GB doubles PP"
 * holds from 8 B up; below, the source raises TP instead.
 */
static const struct nemo_base_row base40_s2048[] = {
	{ 1, 256, 1, 1 }, { 4, 1024, 4, 1 }, { 8, 2048, 8, 1 },
	{ 13, 2048, 8, 2 }, { 20.6, 2048, 8, 4 }, { 45.6, 2048, 8, 4 },
	{ 123.6, 2048, 8, 8 }, { 196.6, 2048, 8, 16 }, { 392.2, 2048, 8, 32 },
	{ 735, 2048, 8, 64 }, { 1100, 2048, 8, 128 },
};

struct nemo_base_table {
	int gpu_gb, seq;
	const struct nemo_base_row *rows;
	size_t nrows;
};

static const struct nemo_base_table nemo_base_tables[] = {
	{ 80, 2048, base80_s2048, NROWS(base80_s2048) },
	{ 80, 4096, base80_s4096, NROWS(base80_s4096) },
	{ 80, 8192, base80_s8192, NROWS(base80_s8192) },
	{ 80, 16384, base80_s16384, NROWS(base80_s16384) },
	{ 80, 32768, base80_s32768, NROWS(base80_s32768) },
	{ 40, 2048, base40_s2048, NROWS(base40_s2048) },
};

/* The sequence lengths NeMo's GPT tables list (notes, section 1). */
static const int nemo_gpt_seqs[] = { 2048, 4096, 8192, 16384, 32768 };

/*
 * NeMo knows only 40 and 80 GB GPUs; anything up to the midpoint (60)
 * is nearer 40 (an L40S's 48 GB), anything above uses the 80 GB rows.
 */
static int
nemo_gpu_gb(double gpu_memory_gb)
{
	return gpu_memory_gb <= 60.0 ? 40 : 80;
}

/*
 * The listed GPT sequence length whose rows apply: the smallest one not
 * below seq_length, or the longest for anything beyond it.  NeMo itself
 * has no rows for other lengths and would fall back to its defaults.
 */
static int
nemo_gpt_seq(int seq_length)
{
	size_t n = NROWS(nemo_gpt_seqs);

	for (size_t i = 0; i < n; i++)
		if (seq_length <= nemo_gpt_seqs[i])
			return nemo_gpt_seqs[i];
	return nemo_gpt_seqs[n - 1];
}

/* The class of a model: every decoder is GPT-like for NeMo. */
static const struct nemo_class *
nemo_class_of(const struct model *m)
{
	switch (m->arch) {
	case ARCH_DECODER:
		return &gpt_class;
	case ARCH_ENCODER:
		return &bert_class;
	case ARCH_ENCDEC:
		return &t5_class;
	}
	return NULL;
}

/* The table for a class, GPU size and (for GPT 80 GB) sequence length. */
static const struct nemo_table *
nemo_table_find(const struct nemo_class *cls, int gpu_gb, int seq)
{
	for (size_t i = 0; i < NROWS(nemo_tables); i++) {
		const struct nemo_table *t = &nemo_tables[i];

		if (t->cls == cls && t->gpu_gb == gpu_gb &&
		    (t->seq == 0 || t->seq == seq))
			return t;
	}
	return NULL;
}

/* Copy a 0-terminated row list into a search list. */
static void
nemo_list_set(int *dst, int *n, const int *src)
{
	*n = 0;
	for (int i = 0; i < ROW_LIST && src[i] && *n < NEMO_LIST_MAX; i++)
		dst[(*n)++] = src[i];
}

/* The layer count NeMo divides: the encoder's for T5 (halves default). */
static int
nemo_pp_layers(const struct model *m)
{
	if (m->arch != ARCH_ENCDEC)
		return m->num_layers;
	return m->encoder_layers > 0 ? m->encoder_layers : m->num_layers / 2;
}

/*
 * NeMo's valid PP values (_calculate_tp_pp_mbs_grid): the divisors of
 * the layer count, in ascending order.  T5 applies the note literally,
 * "[1] + 2*divisors(L)", where L is the encoder's layer count
 * (base_cfg.model.encoder.num_layers): a T5 pipeline splits encoder and
 * decoder alike, so every stage count is twice an encoder divisor.
 */
static int
nemo_valid_pp(const struct model *m, int *out)
{
	int n = 0, layers = nemo_pp_layers(m), mult = 1;

	if (m->arch == ARCH_ENCDEC) {
		mult = 2;
		out[n++] = 1;
	}
	for (int d = 1; d <= layers && n < NEMO_LIST_MAX; d++)
		if (layers % d == 0)
			out[n++] = mult * d;
	return n;
}

/* V[lo,hi]: the valid PP values within [lo,hi]. */
static void
nemo_pp_range(struct nemo_search *out, const struct model *m, int lo,
              int hi)
{
	int valid[NEMO_LIST_MAX];
	int nvalid = nemo_valid_pp(m, valid);

	out->npp = 0;
	for (int i = 0; i < nvalid; i++)
		if (valid[i] >= lo && valid[i] <= hi)
			out->pp[out->npp++] = valid[i];
}

/* Apply a row (or a class's defaults) over what out already holds. */
static void
nemo_apply_row(struct nemo_search *out, const struct model *m,
               const struct nemo_row *r)
{
	if (r->tp[0])
		nemo_list_set(out->tp, &out->ntp, r->tp);
	if (r->pp[0])
		nemo_list_set(out->pp, &out->npp, r->pp);
	else if (r->pp_lo)
		nemo_pp_range(out, m, r->pp_lo, r->pp_hi);
	if (r->mbs[0])
		nemo_list_set(out->mbs, &out->nmbs, r->mbs);
	if (r->gbs)
		out->gbs = r->gbs;
	if (r->min_mp)
		out->min_mp = r->min_mp;
	if (r->max_mp)
		out->max_mp = r->max_mp;
}

/* Append a list as "1,2,4". */
static void
nemo_add_list(struct strbuf *sb, const int *v, int n)
{
	for (int i = 0; i < n; i++)
		strbuf_addf(sb, "%s%d", i ? "," : "", v[i]);
}

/* Keep a note, cut to the room the struct has (it never needs more). */
static void
nemo_set_note(struct nemo_search *out, const struct strbuf *sb)
{
	size_t n = sb->len < sizeof(out->note) ? sb->len
	                                       : sizeof(out->note) - 1;

	memcpy(out->note, sb->buf, n);
	out->note[n] = '\0';
}

/*
 * Say that no row covers size_b and the class defaults are in use:
 * "NeMo's GPT 80 GB table at seq 8192 has no row for 70.6 B ...".
 */
static void
nemo_note_defaults(struct nemo_search *out, const struct nemo_table *t,
                   double size_b, int seq_length)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "NeMo's %s %d GB table", t->cls->name, t->gpu_gb);
	if (t->seq)
		strbuf_addf(&sb, " at seq %d", t->seq);
	if (t->seq && t->seq != seq_length)
		strbuf_addf(&sb, " (the listed length for %d)", seq_length);
	strbuf_addf(&sb, " has no row for %.1f B parameters; using its "
	            "class defaults (tp ", size_b);
	nemo_add_list(&sb, out->tp, out->ntp);
	strbuf_addstr(&sb, "; pp ");
	nemo_add_list(&sb, out->pp, out->npp);
	strbuf_addstr(&sb, "; mbs ");
	nemo_add_list(&sb, out->mbs, out->nmbs);
	strbuf_addch(&sb, ')');
	nemo_set_note(out, &sb);
	strbuf_release(&sb);
}

/* Check the inputs NeMo's tables need; on failure say why in note. */
static int
nemo_check_input(const struct model *m, double size_b,
                 struct nemo_search *out)
{
	if (!nemo_class_of(m)) {
		snprintf(out->note, sizeof(out->note),
		         "model '%s' is of no class NeMo's tables cover",
		         m->name);
		return -1;
	}
	if (nemo_pp_layers(m) <= 0) {
		snprintf(out->note, sizeof(out->note),
		         "model '%s' has no layers to split", m->name);
		return -1;
	}
	if (!isfinite(size_b) || size_b < 0) {
		snprintf(out->note, sizeof(out->note),
		         "model size %g B is not a size", size_b);
		return -1;
	}
	return 0;
}

int
nemo_search_space(const struct model *m, double size_b, int seq_length,
                  double gpu_memory_gb, struct nemo_search *out)
{
	const struct nemo_class *cls;
	const struct nemo_table *t;
	int seq;

	memset(out, 0, sizeof(*out));
	if (nemo_check_input(m, size_b, out) < 0)
		return -1;
	cls = nemo_class_of(m);
	seq = cls == &gpt_class ? nemo_gpt_seq(seq_length) : 0;
	t = nemo_table_find(cls, nemo_gpu_gb(gpu_memory_gb), seq);
	if (!t)
		return -1; /* unreachable: every class has both tables */
	nemo_apply_row(out, m, &cls->defaults);
	for (size_t i = 0; i < t->nrows; i++) {
		if (size_b <= t->rows[i].max_b) {
			nemo_apply_row(out, m, &t->rows[i]);
			out->from_table = true;
			break;
		}
	}
	if (!out->from_table)
		nemo_note_defaults(out, t, size_b, seq_length);
	else if (t->seq && t->seq != seq_length)
		snprintf(out->note, sizeof(out->note),
		         "NeMo's GPT tables list seq 2048 to 32768 only; "
		         "using the seq %d rows for seq %d", t->seq,
		         seq_length);
	return 0;
}

int
nemo_base_config(const struct model *m, double size_b, int seq_length,
                 double gpu_memory_gb, int *tp, int *pp, int *gbs)
{
	int gpu_gb = nemo_gpu_gb(gpu_memory_gb);
	int seq = nemo_gpt_seq(seq_length);

	/* The Launcher's rule is for GPT-3; NeMo treats decoders alike. */
	if (m->arch != ARCH_DECODER || !isfinite(size_b))
		return -1;
	for (size_t i = 0; i < NROWS(nemo_base_tables); i++) {
		const struct nemo_base_table *bt = &nemo_base_tables[i];

		if (bt->gpu_gb != gpu_gb || bt->seq != seq)
			continue;
		for (size_t j = 0; j < bt->nrows; j++) {
			if (size_b <= bt->rows[j].max_b) {
				*tp = bt->rows[j].tp;
				*pp = bt->rows[j].pp;
				*gbs = bt->rows[j].gbs;
				return 0;
			}
		}
		return -1; /* the source raises: no model this large */
	}
	return -1; /* 40 GB beyond seq 2048: the source raises too */
}

/* ---- fine-tuning ---------------------------------------------------- */

/* a*b for positive a and b, saturated at LLONG_MAX. */
static long long
nemo_mul(long long a, long long b)
{
	return a > LLONG_MAX / b ? LLONG_MAX : a * b;
}

void
nemo_finetune_mp(const struct nemo_list *lists, int nlists, int gpus,
                 int *min_mp, int *max_mp)
{
	long long lo = 1, hi = 1;

	for (int i = 0; i < nlists; i++) {
		int mn = 1, mx = 1;

		for (int j = 0; j < lists[i].n; j++) {
			int v = lists[i].v[j] > 0 ? lists[i].v[j] : 1;

			if (j == 0 || v < mn)
				mn = v;
			if (j == 0 || v > mx)
				mx = v;
		}
		lo = nemo_mul(lo, mn);
		hi = nemo_mul(hi, mx);
	}
	*min_mp = lo > INT_MAX ? INT_MAX : (int)lo;
	*max_mp = hi < gpus ? (int)hi : gpus;
}
