/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * models.h - architectures written out by hand for the estimator and
 * grid tests, so that those tests do not depend on the preset catalog.
 * Shapes from the models' published configurations.
 */
#ifndef PARATUNE_TEST_MODELS_H
#define PARATUNE_TEST_MODELS_H

#include <string.h>

#include "gpu.h"
#include "layout.h"
#include "model.h"

/* Llama 3 8B (meta-llama/Meta-Llama-3-8B config.json). */
static inline struct model
test_llama3_8b(void)
{
	struct model m;

	memset(&m, 0, sizeof(m));
	strcpy(m.name, "llama3_8b");
	strcpy(m.family, "llama");
	m.arch = ARCH_DECODER;
	m.num_layers = 32;
	m.hidden_size = 4096;
	m.ffn_hidden_size = 14336;
	m.num_attention_heads = 32;
	m.num_query_groups = 8;
	m.kv_channels = 128;
	m.vocab_size = 128256;
	m.max_position_embeddings = 8192;
	m.swiglu = true;
	m.normalization = NORM_RMSNORM;
	m.position_embedding_type = POS_ROPE;
	m.untie_embeddings = true;
	return m;
}

/* The GPT models of Megatron-LM's weak-scaling table: FFN 4h, GELU,
 * untied embeddings, vocabulary 131072, 4096 positions. */
static inline struct model
test_megatron_gpt(int heads, int hidden, int layers)
{
	struct model m;

	memset(&m, 0, sizeof(m));
	strcpy(m.name, "gpt");
	strcpy(m.family, "gpt");
	m.arch = ARCH_DECODER;
	m.num_layers = layers;
	m.hidden_size = hidden;
	m.ffn_hidden_size = 4 * hidden;
	m.num_attention_heads = heads;
	m.num_query_groups = heads;
	m.kv_channels = hidden / heads;
	m.vocab_size = 131072;
	m.max_position_embeddings = 4096;
	m.normalization = NORM_LAYERNORM;
	m.position_embedding_type = POS_ROPE;
	m.untie_embeddings = true;
	return m;
}

/* Mixtral 8x7B (mistralai/Mixtral-8x7B-v0.1 config.json). */
static inline struct model
test_mixtral_8x7b(void)
{
	struct model m = test_llama3_8b();

	strcpy(m.name, "mixtral_8x7b");
	strcpy(m.family, "mixtral");
	m.vocab_size = 32000;
	m.max_position_embeddings = 32768;
	m.num_experts = 8;
	m.moe_router_topk = 2;
	m.moe_ffn_hidden_size = 14336;
	return m;
}

/* H100 SXM 80 GB: NVIDIA H100 datasheet (dense BF16 989.4 TFLOPS,
 * NVLink 900 GB/s bidirectional, HBM3 3.35 TB/s), one 400 Gb/s NIC per
 * GPU as in a DGX H100. */
static inline struct gpu
test_h100(void)
{
	struct gpu g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "h100-sxm");
	g.memory_gib = 79.6;
	g.peak_tflops[PREC_FP32] = 494.7;
	g.peak_tflops[PREC_FP16] = 989.4;
	g.peak_tflops[PREC_BF16] = 989.4;
	g.peak_tflops[PREC_FP8] = 1978.9;
	g.nvlink_domain = 8;
	g.nvlink_gbs = 450;
	g.network_gbs = 50;
	g.hbm_tbs = 3.35;
	return g;
}

/* B200 (HGX B200 datasheet, dense per GPU): BF16 2250, FP8 4500 and
 * NVFP4 9000 TFLOPS (144 PF with sparsity over 8 GPUs), NVLink 5
 * 1.8 TB/s bidirectional, HBM3e 8 TB/s, one 400 Gb/s NIC per GPU. */
static inline struct gpu
test_b200(void)
{
	struct gpu g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "b200");
	g.memory_gib = 179.1;
	g.peak_tflops[PREC_FP32] = 1125;
	g.peak_tflops[PREC_FP16] = 2250;
	g.peak_tflops[PREC_BF16] = 2250;
	g.peak_tflops[PREC_FP8] = 4500;
	g.peak_tflops[PREC_FP4] = 9000;
	g.nvlink_domain = 8;
	g.nvlink_gbs = 900;
	g.network_gbs = 50;
	g.hbm_tbs = 8.0;
	return g;
}

/* A bf16 workload of m on g: seq tokens, nodes of 8 GPUs, the GPU's
 * memory less a 4 GiB margin, 1000 B tokens (the estimator's and the
 * stages' tests). */
static inline struct workload
test_workload_of(const struct model *m, const struct gpu *g, int seq,
                 int nodes)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	w.model = m;
	w.gpu = g;
	w.precision = PREC_BF16;
	w.seq_length = seq;
	w.nodes = nodes;
	w.gpus_per_node = 8;
	w.gpu_memory_gib = g->memory_gib;
	w.margin_gib = 4;
	w.num_tokens_b = 1000;
	return w;
}

#endif
