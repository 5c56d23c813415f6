/*
 * layout.h - one parallel configuration of a training run and the rules
 * that make it valid.
 *
 * The rules are Megatron-LM's (notes on estimation, "Parallel layout
 * rules"), checked with integer arithmetic: NeMo's float quotient accepts
 * a non-integer data-parallel size, paratune does not.
 */
#ifndef PARATUNE_LAYOUT_H
#define PARATUNE_LAYOUT_H

#include <stdbool.h>

#include "gpu.h"
#include "model.h"

enum recompute { RECOMPUTE_NONE, RECOMPUTE_SELECTIVE, RECOMPUTE_FULL };
enum attention_impl { ATTN_FLASH, ATTN_UNFUSED };

struct layout {
	int tp;   /* tensor parallel */
	int pp;   /* pipeline parallel */
	int cp;   /* context parallel */
	int ep;   /* expert parallel (carved out of dp*cp*tp) */
	int etp;  /* expert tensor parallel; 0 means "same as tp" */
	int vp;   /* virtual stages per pipeline rank; 1 = no interleaving */
	int dp;   /* data parallel, derived: world / (tp*pp*cp) */
	int mbs;  /* micro-batch size */
	int gbs;  /* global batch size */
	enum recompute recompute;
	int recompute_layers; /* full: layers per stage recomputed, 0 = all */
	bool sequence_parallel;
	bool distributed_optimizer;
	enum attention_impl attention;
};

/* Everything about a run that is not the layout. */
struct workload {
	const struct model *model;
	const struct gpu *gpu;
	enum precision precision;
	int seq_length;
	int nodes;
	int gpus_per_node;
	bool peft_lora;          /* frozen base weights: no grads/optimizer */
	double gpu_memory_gib;   /* capacity used for safe/oom-risk */
	double margin_gib;       /* kept free below capacity */
	double num_tokens_b;     /* for training days */
};

/* Why a layout is invalid; LAYOUT_OK when it is valid. */
enum layout_rule {
	LAYOUT_OK = 0,
	RULE_WORLD,        /* tp*pp*cp does not divide the world size */
	RULE_HEADS,        /* heads % tp */
	RULE_GROUPS,       /* query groups neither multiple nor divisor of tp */
	RULE_LAYERS_PP,    /* layers % pp */
	RULE_VP,           /* vp needs pp > 1 and layers % (pp*vp) */
	RULE_VP_MICRO,     /* interleaving needs micro-batches % pp == 0 */
	RULE_SEQ_CP,       /* seq % (2*cp) */
	RULE_EXPERTS,      /* experts % ep, or ep > 1 on a dense model */
	RULE_EXPERT_FOLD,  /* etp*ep does not divide tp*cp*dp */
	RULE_BATCH,        /* gbs % (mbs*dp) */
	RULE_SP,           /* sequence parallel needs tp > 1 */
	RULE_RECOMPUTE,    /* recompute layers beyond the stage's layers */
	RULE_MP_RANGE,     /* model parallel size outside [min, max] */
	RULE_COUNT,
};

/* Short name of a rule for tables ("heads % tp"). */
const char *layout_rule_name(enum layout_rule r);

/* World size of a workload. */
static inline int
workload_world(const struct workload *w)
{
	return w->nodes * w->gpus_per_node;
}

/* Effective expert tensor parallel size. */
static inline int
layout_etp(const struct layout *l)
{
	return l->etp > 0 ? l->etp : l->tp;
}

/* Model-parallel size as NeMo counts it for min/max: tp*pp*cp. */
static inline int
layout_model_parallel(const struct layout *l)
{
	return l->tp * l->pp * l->cp;
}

/*
 * Fill l->dp from the world size and check every rule; returns the first
 * rule broken, or LAYOUT_OK.
 */
enum layout_rule layout_check(const struct workload *w, struct layout *l);

/* Same configuration (dp is derived and not compared). */
bool layout_equal(const struct layout *a, const struct layout *b);

const char *recompute_name(enum recompute r);  /* "none", "selective", "full" */
const char *recompute_short(enum recompute r); /* "none", "sel", "full" */
int recompute_parse(const char *s);            /* -1 when unknown */
const char *attention_name(enum attention_impl a);
int attention_parse(const char *s);

#endif
