/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * sizing.c - NeMo Auto Configurator's model size recommendation, its
 * training time formula and its size-to-architecture tables.
 *
 * Source: NVIDIA/NeMo 8cfedd72, nemo/collections/llm/tools/
 * auto_configurator/core/base_config.py (calculate_model_size and its
 * helpers) and core/utils.py (ModelSizeParams, _calculate_model_size);
 * the same code lives in NeMo-Framework-Launcher's auto_configurator/
 * autoconfig/.  The notes summarize it ("NeMo auto configurator",
 * sections 1 and 2).  Expressions keep NeMo's order of operations so
 * that every double comes out as Python computes it: results are
 * compared with strict inequalities and rounded to two decimals, and a
 * different last bit could pick another layer count.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sizing.h"

static const char *const sizing_family_names[] = {
	[SIZING_GPT3] = "gpt3",
	[SIZING_T5] = "t5",
	[SIZING_MT5] = "mt5",
	[SIZING_BERT] = "bert",
};

#define SIZING_FAMILY_COUNT \
	(sizeof(sizing_family_names) / sizeof(sizing_family_names[0]))

/* "gpt3", "t5", "mt5", "bert" to a family; -1 otherwise. */
int
sizing_family_parse(const char *s)
{
	for (size_t i = 0; i < SIZING_FAMILY_COUNT; i++)
		if (!strcmp(sizing_family_names[i], s))
			return (int)i;
	return -1;
}

/* A family's name as NeMo spells its model_type. */
const char *
sizing_family_name(enum sizing_family f)
{
	if ((size_t)f >= SIZING_FAMILY_COUNT)
		return "unknown";
	return sizing_family_names[f];
}

/* ---- size and time ---------------------------------------------------- */

/*
 * Python's round(x, 2): the decimal nearest to the double's exact value,
 * ties to even, read back as a double.  printf does the same exact
 * decimal rounding (glibc), which round(x * 100) / 100 does not: x * 100
 * is itself rounded and can cross a .5 boundary.
 */
static double
sizing_round2(double x)
{
	/* Room for %.2f of any finite double: 309 digits and change. */
	char buf[400];

	snprintf(buf, sizeof buf, "%.2f", x);
	return strtod(buf, NULL);
}

/* Whether every budget figure is a positive finite number. */
static int
sizing_inputs_ok(double a, int num_gpus, double tflops, double tokens_b)
{
	return isfinite(a) && a > 0 && num_gpus > 0 && isfinite(tflops) &&
	       tflops > 0 && isfinite(tokens_b) && tokens_b > 0;
}

/*
 * _estimate_model_size: 8 FLOPs per parameter and token (6 for forward
 * and backward, 2 more for activation recomputation); mT5 takes 0.87 of
 * the size.  0 when an input is not a positive number (NeMo would
 * divide by zero or return nonsense).
 */
double
sizing_exact_params_b(enum sizing_family f, double days, int num_gpus,
                      double tflops_per_gpu, double tokens_b)
{
	double penalty = f == SIZING_MT5 ? 0.87 : 1.0;

	if (!sizing_inputs_ok(days, num_gpus, tflops_per_gpu, tokens_b))
		return 0;
	return penalty * (days * 3600 * 24 * num_gpus * tflops_per_gpu *
	                  1e12) /
	       (8 * tokens_b * 1e9) / 1e9;
}

/* The same, rounded to hundredths as NeMo does. */
double
sizing_recommend_params_b(enum sizing_family f, double days, int num_gpus,
                          double tflops_per_gpu, double tokens_b)
{
	return sizing_round2(sizing_exact_params_b(f, days, num_gpus,
	                                           tflops_per_gpu, tokens_b));
}

/* _estimate_training_time: the inverse; mT5 takes 1.15 times longer.
 * 0 when an input is not a positive number. */
double
sizing_exact_train_days(enum sizing_family f, double params_b, int num_gpus,
                        double tflops_per_gpu, double tokens_b)
{
	double penalty = f == SIZING_MT5 ? 1.15 : 1.0;

	if (!sizing_inputs_ok(params_b, num_gpus, tflops_per_gpu, tokens_b))
		return 0;
	return penalty * (params_b * 1e9 * 8 * tokens_b * 1e9) /
	       (3600.0 * 24 * num_gpus * tflops_per_gpu * 1e12);
}

/* The same, rounded to hundredths as NeMo does. */
double
sizing_train_days(enum sizing_family f, double params_b, int num_gpus,
                  double tflops_per_gpu, double tokens_b)
{
	return sizing_round2(sizing_exact_train_days(f, params_b, num_gpus,
	                                             tflops_per_gpu, tokens_b));
}

/* ---- size -> hidden size, heads, FFN ------------------------------------ */

/* One row of a table: sizes up to limit (below it when strict) get these
 * widths; ffn 0 means 4h; kv 0 means hidden / heads. */
struct sizing_row {
	double limit;
	int strict;   /* size < limit, else size <= limit */
	int hidden, heads, ffn, kv;
};

/* GPT-3 (ModelSizeParams.init_params, GPT_BASED_MODELS): every row is
 * "size < limit"; at 1105 B and above NeMo raises. */
static const struct sizing_row sizing_gpt3_rows[] = {
	{ 0.25, 1, 768, 12, 0, 0 },     { 0.5, 1, 1024, 16, 0, 0 },
	{ 1, 1, 1536, 16, 0, 0 },       { 2, 1, 2048, 16, 0, 0 },
	{ 3, 1, 2560, 32, 0, 0 },       { 4.5, 1, 3072, 32, 0, 0 },
	{ 8, 1, 4096, 32, 0, 0 },       { 15, 1, 5120, 40, 0, 0 },
	{ 25, 1, 6144, 48, 0, 0 },      { 52, 1, 8192, 64, 0, 0 },
	{ 105, 1, 10240, 80, 0, 0 },    { 205, 1, 12288, 96, 0, 0 },
	{ 405, 1, 20480, 128, 0, 0 },   { 805, 1, 20480, 128, 0, 0 },
	{ 1105, 1, 25600, 160, 0, 0 },
};

/*
 * T5 and mT5: kv_channels 64, except the two largest bands, where the
 * NeMo-Framework-Launcher sets 128 (autoconfig/utils.py) so that 96
 * heads span the width; NeMo 2.0 copied the table without it, leaving a
 * 6144-wide attention in a 12288-wide model.  mT5 differs in the first
 * three limits only (0.25, 0.5, 1.2).
 */
static const struct sizing_row sizing_t5_rows[] = {
	{ 0.1, 1, 512, 6, 1024, 64 },      { 0.4, 1, 768, 12, 2048, 64 },
	{ 1, 1, 1024, 16, 2816, 64 },      { 5, 1, 2048, 32, 5120, 64 },
	{ 15, 1, 4096, 64, 10240, 64 },    { 25.9, 1, 5120, 80, 10880, 64 },
	{ 43.0, 1, 6144, 96, 10880, 64 },  { 85.5, 0, 6144, 96, 16384, 64 },
	{ 165.5, 0, 7680, 96, 20480, 128 },
	{ 250, 0, 12288, 96, 32768, 128 },
};

static const struct sizing_row sizing_mt5_rows[] = {
	{ 0.25, 1, 512, 6, 1024, 64 },     { 0.5, 1, 768, 12, 2048, 64 },
	{ 1.2, 1, 1024, 16, 2816, 64 },    { 5, 1, 2048, 32, 5120, 64 },
	{ 15, 1, 4096, 64, 10240, 64 },    { 25.9, 1, 5120, 80, 10880, 64 },
	{ 43.0, 1, 6144, 96, 10880, 64 },  { 85.5, 0, 6144, 96, 16384, 64 },
	{ 165.5, 0, 7680, 96, 20480, 128 },
	{ 250, 0, 12288, 96, 32768, 128 },
};

/* BERT: FFN 4h; strict limits up to 15 B, then inclusive ones. */
static const struct sizing_row sizing_bert_rows[] = {
	{ 0.25, 1, 768, 12, 0, 0 },     { 0.5, 1, 1024, 16, 0, 0 },
	{ 1, 1, 1536, 16, 0, 0 },       { 2, 1, 2048, 16, 0, 0 },
	{ 4.5, 1, 2560, 32, 0, 0 },     { 8, 1, 4096, 32, 0, 0 },
	{ 15, 1, 5120, 40, 0, 0 },      { 25, 0, 6144, 48, 0, 0 },
	{ 46.5, 0, 7680, 48, 0, 0 },    { 165.5, 0, 9216, 96, 0, 0 },
	{ 250.5, 0, 12288, 96, 0, 0 },
};

/* A family's table and the words for where it ends. */
struct sizing_table {
	const struct sizing_row *rows;
	size_t n;
	const char *end;
};

#define SIZING_TABLE(r, end) { r, sizeof(r) / sizeof((r)[0]), end }

static const struct sizing_table sizing_tables[] = {
	[SIZING_GPT3] = SIZING_TABLE(sizing_gpt3_rows,
	                             "NeMo's GPT-3 table stops below 1105 B"),
	[SIZING_T5] = SIZING_TABLE(sizing_t5_rows,
	                           "NeMo's T5 table stops at 250 B"),
	[SIZING_MT5] = SIZING_TABLE(sizing_mt5_rows,
	                            "NeMo's mT5 table stops at 250 B"),
	[SIZING_BERT] = SIZING_TABLE(sizing_bert_rows,
	                             "NeMo's BERT table stops at 250.5 B"),
};

/* The row for size_b, or NULL past the end of the table. */
static const struct sizing_row *
sizing_row_for(enum sizing_family f, double size_b)
{
	const struct sizing_table *t = &sizing_tables[f];

	for (size_t i = 0; i < t->n; i++) {
		const struct sizing_row *r = &t->rows[i];

		if (r->strict ? size_b < r->limit : size_b <= r->limit)
			return r;
	}
	return NULL;
}

/* ---- the layer search ---------------------------------------------------- */

/* The widths a row gives, with NeMo's defaults filled in. */
struct sizing_widths {
	int hidden, heads, ffn, kv;
};

/*
 * _calculate_model_size in billions, NeMo's three formulas:
 *   GPT  12 L h^2 (1 + 13/(12h) + (V+S)/(12Lh))
 *   T5   2L 1.5F + 3L P + h (2 + 4L 1.5F + L (21 + 12P) + S + V), P = a kv
 *   BERT L (F + h (4h + 3a + 2F + 6)) + h (V + S + h + 5)
 * with S the sequence length (learned positions).
 */
static double
sizing_formula_b(enum sizing_family f, const struct sizing_widths *w,
                 int L, int V, int S)
{
	double h = w->hidden, F = w->ffn;
	double P = (double)w->heads * w->kv;
	long long hi = w->hidden, Fi = w->ffn, bert;

	switch (f) {
	case SIZING_GPT3:
		return 12.0 * L * h * h *
		       (1 + (13 / (12.0 * h)) +
		        ((double)V + S) / (12.0 * L * h)) / 1e9;
	case SIZING_T5:
	case SIZING_MT5:
		return (2.0 * L * 1.5 * F + 3.0 * L * P +
		        h * (2 + 4.0 * L * 1.5 * F + L * (21 + 12 * P) + S +
		             V)) / 1e9;
	case SIZING_BERT:
		/* Integers throughout in Python, so exact here too. */
		bert = L * (Fi + hi * (4 * hi + 3LL * w->heads + 2 * Fi + 6)) +
		       hi * ((long long)V + S + hi + 5);
		return (double)bert / 1e9;
	}
	return 0;
}

/* One pass of the search: layer counts first, first + step, ... last
 * (or the powers of two up to last), tried with margins 1 %, 2 %, ...
 * for attempts rounds. */
struct sizing_pass {
	int first, last, step;
	int powers_of_two;
	int attempts;
};

/* NeMo's passes, in its order (ModelSizeParams.init_params). */
static const struct sizing_pass sizing_passes[] = {
	{ 2, 512, 0, 1, 10 },  /* 2**p for p in range(1, 10) */
	{ 16, 200, 16, 0, 6 }, /* range(16, 201, 16) */
	{ 2, 200, 2, 0, 6 },   /* range(2, 201, 2) */
	{ 5, 200, 5, 0, 6 },   /* range(5, 201, 5) */
	{ 1, 199, 1, 0, 10 },  /* range(1, 200) */
};

/* The layer count after L in a pass. */
static int
sizing_pass_next(const struct sizing_pass *p, int L)
{
	return p->powers_of_two ? 2 * L : L + p->step;
}

/* The first layer count whose size is strictly within the margin of
 * size_b, in NeMo's order; 0 when none is. */
static int
sizing_search_layers(enum sizing_family f, const struct sizing_widths *w,
                     double size_b, int V, int S)
{
	for (size_t i = 0; i < sizeof(sizing_passes) / sizeof(sizing_passes[0]);
	     i++) {
		const struct sizing_pass *p = &sizing_passes[i];
		/* Accumulated as NeMo does: 0.01 + 0.01 + ... */
		double margin = 0.01;

		for (int a = 0; a < p->attempts; a++) {
			for (int L = p->first; L <= p->last;
			     L = sizing_pass_next(p, L)) {
				double out = sizing_formula_b(f, w, L, V, S);

				if (size_b * (1.0 - margin) < out &&
				    out < size_b * (1.0 + margin))
					return L;
			}
			margin += 0.01;
		}
	}
	return 0;
}

/* ---- the generated architecture ------------------------------------------ */

/* "gpt3_126m", "gpt3_4p03b": the catalog's spelling of a size. */
static void
sizing_model_name(char *buf, size_t len, enum sizing_family f,
                  double size_b)
{
	char num[32];

	if (size_b < 1) {
		snprintf(buf, len, "%s_%.0fm", sizing_family_name(f),
		         size_b * 1000);
		return;
	}
	snprintf(num, sizeof num, "%g", size_b);
	for (char *p = num; *p; p++)
		if (*p == '.')
			*p = 'p';
	snprintf(buf, len, "%s_%sb", sizing_family_name(f), num);
}

/*
 * The model NeMo would configure: Megatron-LM's GPT/BERT/T5 defaults
 * (learned positions as long as the sequence, LayerNorm, biases, tied
 * embeddings, query groups = heads), GELU, gated (GeGLU) for T5 and mT5
 * as the 1.5 F of NeMo's T5 formula counts and the Launcher's T5 configs
 * set (activation: geglu).  T5 layer counts are per stack.
 */
static void
sizing_fill_model(struct model *m, enum sizing_family f,
                  const struct sizing_widths *w, double size_b, int L,
                  int V, int S)
{
	memset(m, 0, sizeof(*m));
	sizing_model_name(m->name, sizeof m->name, f, size_b);
	snprintf(m->family, sizeof m->family, "%s", sizing_family_name(f));
	m->arch = f == SIZING_GPT3 ? ARCH_DECODER
	        : f == SIZING_BERT ? ARCH_ENCODER : ARCH_ENCDEC;
	m->num_layers = m->arch == ARCH_ENCDEC ? 2 * L : L;
	m->encoder_layers = m->arch == ARCH_DECODER ? 0 : L;
	m->hidden_size = w->hidden;
	m->ffn_hidden_size = w->ffn;
	m->num_attention_heads = w->heads;
	m->num_query_groups = w->heads;
	m->kv_channels = w->kv;
	m->vocab_size = V;
	m->max_position_embeddings = S;
	m->swiglu = m->arch == ARCH_ENCDEC;
	m->normalization = NORM_LAYERNORM;
	m->position_embedding_type = POS_LEARNED;
	m->bias_linear = true;
}

/* Table row, then layer search, then the model NeMo would build. */
int
sizing_architecture(enum sizing_family f, double size_b, int vocab_size,
                    int seq_length, struct model *out, char *why,
                    size_t whylen)
{
	const struct sizing_row *row;
	struct sizing_widths w;
	int L;

	if ((size_t)f >= SIZING_FAMILY_COUNT)
		return snprintf(why, whylen, "unknown family %d", (int)f), -1;
	if (!isfinite(size_b) || size_b <= 0 || vocab_size <= 0 ||
	    seq_length <= 0)
		return snprintf(why, whylen, "the size (%g B), vocabulary (%d) "
		                "and sequence length (%d) must be positive",
		                size_b, vocab_size, seq_length), -1;
	row = sizing_row_for(f, size_b);
	if (!row)
		return snprintf(why, whylen, "no architecture table row for "
		                "%.10g B (%s)", size_b,
		                sizing_tables[f].end), -1;
	w.hidden = row->hidden;
	w.heads = row->heads;
	w.ffn = row->ffn ? row->ffn : 4 * row->hidden;
	w.kv = row->kv ? row->kv : row->hidden / row->heads;
	L = sizing_search_layers(f, &w, size_b, vocab_size, seq_length);
	if (L == 0)
		return snprintf(why, whylen, "no layer count of NeMo's search "
		                "gives a %s model of hidden size %d within its "
		                "margins of %g B", sizing_family_name(f),
		                w.hidden, size_b), -1;
	sizing_fill_model(out, f, &w, size_b, L, vocab_size, seq_length);
	return 0;
}
