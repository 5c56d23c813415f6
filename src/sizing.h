/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * sizing.h - NeMo Auto Configurator's model size recommendation, training
 * time formula and size-to-architecture tables (notes: NeMo auto
 * configurator, sections 1 and 2).
 */
#ifndef PARATUNE_SIZING_H
#define PARATUNE_SIZING_H

#include <stddef.h>

#include "model.h"

enum sizing_family { SIZING_GPT3, SIZING_T5, SIZING_MT5, SIZING_BERT };

/* "gpt3", "t5", "mt5", "bert" -> family; -1 when unknown. */
int sizing_family_parse(const char *s);
const char *sizing_family_name(enum sizing_family f);

/*
 * P[B] = round(k_s * D*86400*N*F*1e12 / (8*T*1e9) / 1e9, 2), k_s = 0.87
 * for mT5 else 1.
 */
double sizing_recommend_params_b(enum sizing_family f, double days,
                                 int num_gpus, double tflops_per_gpu,
                                 double tokens_b);
/* The same two before rounding (0 when an input is not a positive
 * number): what the hundredths lose below 0.005. */
double sizing_exact_params_b(enum sizing_family f, double days,
                             int num_gpus, double tflops_per_gpu,
                             double tokens_b);
double sizing_exact_train_days(enum sizing_family f, double params_b,
                               int num_gpus, double tflops_per_gpu,
                               double tokens_b);
/* D = round(k_t * P*1e9*8*T*1e9 / (86400*N*F*1e12), 2), k_t = 1.15 mT5. */
double sizing_train_days(enum sizing_family f, double params_b,
                         int num_gpus, double tflops_per_gpu,
                         double tokens_b);

/*
 * Generate an architecture of about size_b billion parameters the way NeMo
 * does (hidden/heads/ffn table, then the layer search).  Returns 0, or -1
 * with a reason in why when no table row or layer count fits.
 */
int sizing_architecture(enum sizing_family f, double size_b, int vocab_size,
                        int seq_length, struct model *out, char *why,
                        size_t whylen);

#endif
