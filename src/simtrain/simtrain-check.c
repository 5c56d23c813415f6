/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * simtrain-check.c - the checks Megatron-LM makes on pretrain_gpt.py's
 * flags, each raised as Megatron-LM raises it at 3efa8c2 (2024) or at
 * d98e8a64 where said: the exception type, its message and the line
 * that raises it, so that a template passing a broken layout fails here
 * as it would on a cluster.  The divisibility rules themselves are
 * layout_check()'s; this file only words them as Megatron does.
 * simtrain-setup.c builds paratune's structures between the checks.
 */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "simtrain.h"

/* ---- where Megatron-LM raises (file, line, function, code) ----------- */

#define ARGS_PY "megatron/training/arguments.py"
#define TCONFIG_PY "megatron/core/transformer/transformer_config.py"

static const struct simtrain_frame at_required = {
	ARGS_PY, 655, "_check_arg_is_not_none",
	"assert getattr(args, arg) is not None, "
	"'{} argument is None'.format(arg)"
};
static const struct simtrain_frame at_world = {
	ARGS_PY, 181, "validate_args",
	"assert args.world_size % total_model_size == 0, ("
};
static const struct simtrain_frame at_mbs_none = {
	ARGS_PY, 262, "validate_args",
	"assert args.micro_batch_size is not None"
};
static const struct simtrain_frame at_mbs_positive = {
	ARGS_PY, 263, "validate_args", "assert args.micro_batch_size > 0"
};
static const struct simtrain_frame at_gbs_positive = {
	ARGS_PY, 269, "validate_args", "assert args.global_batch_size > 0"
};
static const struct simtrain_frame at_vp_layers = {
	ARGS_PY, 280, "validate_args",
	"assert args.num_layers % "
	"args.transformer_pipeline_model_parallel_size == 0, \\"
};
static const struct simtrain_frame at_vp_stage = {
	ARGS_PY, 283, "validate_args",
	"assert num_layers_per_pipeline_stage % "
	"args.num_layers_per_virtual_pipeline_stage == 0, \\"
};
/* Later Megatron-LM (both flags exist from 2025 on); line of 3efa8c2's
 * virtual pipeline block. */
static const struct simtrain_frame at_vp_both = {
	ARGS_PY, 271, "validate_args",
	"assert args.num_virtual_stages_per_pipeline_rank is None, \\"
};
static const struct simtrain_frame at_opg_distopt = {
	ARGS_PY, 299, "validate_args",
	"assert args.use_distributed_optimizer, \\"
};
static const struct simtrain_frame at_opg_grad = {
	ARGS_PY, 301, "validate_args", "assert args.overlap_grad_reduce, \\"
};
static const struct simtrain_frame at_fp16_bf16 = {
	ARGS_PY, 323, "validate_args", "assert not args.bf16"
};
static const struct simtrain_frame at_kv = {
	ARGS_PY, 424, "validate_args",
	"assert args.hidden_size % args.num_attention_heads == 0"
};
static const struct simtrain_frame at_seq_cp = {
	ARGS_PY, 428, "validate_args",
	"assert args.seq_length % (args.context_parallel_size * 2) == 0, \\"
};
static const struct simtrain_frame at_max_pos = {
	ARGS_PY, 440, "validate_args",
	"assert args.max_position_embeddings >= args.seq_length"
};
static const struct simtrain_frame at_selective_method = {
	ARGS_PY, 495, "validate_args",
	"assert args.recompute_method is None, \\"
};
static const struct simtrain_frame at_ep_none = {
	ARGS_PY, 568, "validate_args",
	"assert args.num_experts is not None, \"num_experts must be non None "
	"to use expert model parallelism\""
};
static const struct simtrain_frame at_ep_divide = {
	ARGS_PY, 569, "validate_args",
	"assert args.num_experts % args.expert_model_parallel_size == 0, \\"
};
static const struct simtrain_frame at_ep_fp16 = {
	ARGS_PY, 571, "validate_args", "assert not args.fp16, \\"
};
#define LAYER_SPECS_PY "megatron/core/models/gpt/gpt_layer_specs.py"
static const struct simtrain_frame at_moe_freq_len = {
	LAYER_SPECS_PY, 653, "get_gpt_decoder_layer_specs",
	"assert len(moe_layer_pattern) == config.num_layers, ("
};
static const struct simtrain_frame at_moe_freq = {
	LAYER_SPECS_PY, 658, "get_gpt_decoder_layer_specs",
	"raise ValueError("
};
static const struct simtrain_frame at_vp_pp = {
	ARGS_PY, 272, "validate_args",
	"assert args.pipeline_model_parallel_size > 1, \\"
};
static const struct simtrain_frame at_vp_divide = {
	TCONFIG_PY, 457, "__post_init__", "raise ValueError("
};
/* 3efa8c2 silently builds num_layers // pp layers per stage; later
 * Megatron-LM (transformer_block.py at d98e8a6) asserts instead. */
static const struct simtrain_frame at_layers_pp = {
	"megatron/core/transformer/transformer_block.py", 156,
	"get_num_layers_to_build", "assert ("
};
/* The uneven pipeline's checks came after 3efa8c2; the line is where
 * the block starts in the transformer_config.py read (core 0.13), to
 * within a few. */
static const struct simtrain_frame at_uneven = {
	TCONFIG_PY, 1105, "__post_init__", "raise ValueError("
};
static const struct simtrain_frame at_heads = {
	TCONFIG_PY, 338, "__post_init__", "raise ValueError("
};
static const struct simtrain_frame at_groups = {
	TCONFIG_PY, 353, "__post_init__", "raise ValueError("
};
static const struct simtrain_frame at_full_method = {
	TCONFIG_PY, 429, "__post_init__", "raise ValueError("
};
static const struct simtrain_frame at_full_layers = {
	TCONFIG_PY, 435, "__post_init__", "raise ValueError("
};
static const struct simtrain_frame at_selective_layers = {
	TCONFIG_PY, 444, "__post_init__", "raise ValueError("
};
static const struct simtrain_frame at_expert_fold = {
	"megatron/core/parallel_state.py", 537, "initialize_model_parallel",
	"raise RuntimeError("
};
static const struct simtrain_frame at_batch = {
	"megatron/core/num_microbatches_calculator.py", 330, "__init__",
	"assert global_batch_size % micro_batch_times_data_parallel_size "
	"== 0, ("
};
static const struct simtrain_frame at_vp_micro = {
	"megatron/core/pipeline_parallel/schedules.py", 635,
	"forward_backward_pipelining_with_interleaving",
	"raise RuntimeError(msg)"
};
/* The tuning guide's switches: Megatron-LM at d98e8a64 (2026), whose
 * arguments.py has them; lines of that commit. */
#define ARGS_PY_D98 "megatron/training/arguments.py"
static const struct simtrain_frame at_hcp_product = {
	ARGS_PY_D98, 582, "validate_args",
	"assert args.context_parallel_size == "
	"prod(args.hierarchical_context_parallel_sizes)"
};
static const struct simtrain_frame at_hcp_needed = {
	ARGS_PY_D98, 584, "validate_args",
	"assert args.hierarchical_context_parallel_sizes is not None, \\"
};
static const struct simtrain_frame at_fp8_param = {
	ARGS_PY_D98, 1096, "validate_args",
	"assert args.use_distributed_optimizer or args.use_torch_fsdp2 or "
	"args.use_megatron_fsdp or not torch.is_grad_enabled(), \\"
};
static const struct simtrain_frame at_fp4_fp8 = {
	ARGS_PY_D98, 1101, "validate_args", "raise ValueError(\"--fp4-format "
	"and --fp8-format cannot be used simultaneously. Please choose one.\")"
};
static const struct simtrain_frame at_fp4_param = {
	ARGS_PY_D98, 1105, "validate_args", "raise ValueError(\"--fp4-param-"
	"gather must be used together with --fp4-format.\")"
};
static const struct simtrain_frame at_fsdp_ckpt = {
	ARGS_PY_D98, 1169, "validate_args",
	"assert args.ckpt_format == \"fsdp_dtensor\", \\"
};
static const struct simtrain_frame at_tp_overlap = {
	ARGS_PY_D98, 1442, "validate_args",
	"assert args.sequence_parallel == True, 'Tensor parallel "
	"communication/GEMM overlap can happen only when sequence "
	"parallelism is enabled'"
};
static const struct simtrain_frame at_offload_layers = {
	TCONFIG_PY, 1887, "__post_init__", "raise ValueError("
};
static const struct simtrain_frame at_offload_pp = {
	TCONFIG_PY, 1892, "__post_init__", "raise ValueError("
};
static const struct simtrain_frame at_offload_recompute = {
	TCONFIG_PY, 1897, "__post_init__", "raise ValueError("
};
static const struct simtrain_frame at_offload_graphs = {
	TCONFIG_PY, 2801, "__post_init__",
	"raise ValueError(\"CUDA graphs not supported with CPU offloading.\")"
};
static const struct simtrain_frame at_graph_nan = {
	ARGS_PY_D98, 1236, "validate_args",
	"assert not args.check_for_nan_in_loss_and_grad, \\"
};
static const struct simtrain_frame at_graph_recompute = {
	TCONFIG_PY, 2856, "__post_init__", "assert ("
};
static const struct simtrain_frame at_model = {
	"megatron/training/training.py", 631, "setup_model_and_optimizer",
	"model = get_model(model_provider_func, model_type)"
};

/* Fill *f and return -1, so that a check reads "return raise(...)". */
static int raise(struct simtrain_failure *f, const char *exception,
                 enum simtrain_stage stage, const struct simtrain_frame *at,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int
raise(struct simtrain_failure *f, const char *exception,
      enum simtrain_stage stage, const struct simtrain_frame *at,
      const char *fmt, ...)
{
	va_list ap;

	f->exception = exception;
	f->stage = stage;
	f->frame = at;
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
	va_end(ap);
	return -1;
}

#define ASSERT_FAIL(f, at, ...) \
	raise((f), "AssertionError", STAGE_ARGS, (at), __VA_ARGS__)

/* ---- validate_args() ------------------------------------------------- */

/* The four arguments Megatron requires, and the two the simulation
 * cannot run without (it has no dataset to take a length from). */
static int
check_required(const struct simtrain_args *a, struct simtrain_failure *f)
{
	static const char *const names[] = {
		"num_layers", "hidden_size", "num_attention_heads",
		"max_position_embeddings", "seq_length", "train_iters",
	};
	const int values[] = {
		a->num_layers, a->hidden_size, a->num_attention_heads,
		a->max_position_embeddings, a->seq_length, a->train_iters,
	};

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		if (values[i] == SIMTRAIN_UNSET)
			return ASSERT_FAIL(f, &at_required,
			                   "%s argument is None", names[i]);
	return 0;
}

/* The layout's checks (pipeline_parallel_layer_layout.py at d98e8a64). */
#define LAYOUT_PY "megatron/core/transformer/pipeline_parallel_layer_layout.py"
static const struct simtrain_frame at_layout_one_of = {
	ARGS_PY_D98, 929, "validate_args", "assert ("
};
static const struct simtrain_frame at_layout_pp = {
	ARGS_PY_D98, 945, "validate_args",
	"assert num_stages % args.pipeline_model_parallel_size == 0, ("
};
static const struct simtrain_frame at_layout_char = {
	LAYOUT_PY, 315, "parse_str_to_list",
	"assert layer_char in char2layer_type, ("
};
static const struct simtrain_frame at_layout_layers = {
	LAYOUT_PY, 95, "validate_layer_layout", "assert ("
};
static const struct simtrain_frame at_layout_conflict = {
	TCONFIG_PY, 2253, "__post_init__", "raise ValueError("
};

/* A letter of s that Megatron-LM's parser does not know, or 0. */
static char
layout_stray_letter(const char *s)
{
	for (; *s; s++)
		if (!strchr("ELtm|", *s))
			return *s;
	return 0;
}

/* Stages of an unrolled layout: its '|'s plus one. */
static int
layout_stage_count(const char *s)
{
	int n = 1;

	for (; *s; s++)
		n += *s == '|';
	return n;
}

/*
 * --pipeline-model-parallel-layout: alone of the three ways to ask for
 * virtual stages, and its stage count a multiple of pp, which gives vp
 * (arguments.py); its letters are checked when the model is built.
 */
static int
layout_stages(struct simtrain_job *j, struct simtrain_failure *f)
{
	const struct simtrain_args *a = &j->args;
	struct strbuf s = STRBUF_INIT;
	char stray;
	int n;

	if (a->vstages_per_rank != SIMTRAIN_UNSET ||
	    a->layers_per_vstage != SIMTRAIN_UNSET)
		return ASSERT_FAIL(f, &at_layout_one_of, "%s",
			"No more than one of the following arguments can be "
			"set at the same time: "
			"--num-layers-per-virtual-pipeline-stage, "
			"--num-virtual-stages-per-pipeline-rank,"
			"--pipeline-model-parallel-layout. ");
	if (simtrain_layout_expand(a->pipeline_layout, &s) != 0) {
		strbuf_release(&s);
		return ASSERT_FAIL(f, &at_layout_pp, "%s", "the layout "
		                   "unrolls to more than a mebibyte");
	}
	/* get_num_stages_from_str parses the letters first. */
	stray = layout_stray_letter(s.buf ? s.buf : "");
	n = layout_stage_count(s.buf ? s.buf : "");
	strbuf_release(&s);
	if (stray)
		return ASSERT_FAIL(f, &at_layout_char, "Invalid layer "
		                   "character: %c, known layer characters: "
		                   "['E', 'L', 't', 'm']", stray);
	if (n % a->pp != 0)
		return ASSERT_FAIL(f, &at_layout_pp, "The length of "
		                   "pipeline_model_parallel_layout must be "
		                   "divisible by pipeline_model_parallel_size "
		                   "(len(layout)=%d, "
		                   "pipeline_model_parallel_size=%d)", n,
		                   a->pp);
	j->layout.vp = n / a->pp;
	if (j->layout.vp > 1 && a->pp == 1)
		return ASSERT_FAIL(f, &at_vp_pp, "%s",
			"when interleaved schedule is used, "
			"pipeline-model-parallel size should be greater "
			"than 1");
	return 0;
}

/* World size, batch and virtual pipeline, in validate_args' order. */
static int
check_sizes(struct simtrain_job *j, struct simtrain_failure *f)
{
	const struct simtrain_args *a = &j->args;
	int mp = a->tp * a->pp * a->cp, per_stage;

	if (a->tp < 1 || a->pp < 1 || a->cp < 1 || j->world % mp != 0)
		return ASSERT_FAIL(f, &at_world, "world size (%d) is not "
		                   "divisible by total_model_size "
		                   "(encoder_model_size=0 + "
		                   "decoder_model_size=%d)", j->world, mp);
	if (a->mbs == SIMTRAIN_UNSET)
		return ASSERT_FAIL(f, &at_mbs_none, "%s", "");
	if (a->mbs < 1)
		return ASSERT_FAIL(f, &at_mbs_positive, "%s", "");
	j->layout.gbs = a->gbs;
	j->gbs_defaulted = a->gbs == SIMTRAIN_UNSET;
	if (j->gbs_defaulted)
		j->layout.gbs = a->mbs * (j->world / mp);
	if (j->layout.gbs < 1)
		return ASSERT_FAIL(f, &at_gbs_positive, "%s", "");
	j->layout.vp = 1;
	if (a->pipeline_layout)
		return layout_stages(j, f);
	if (a->vstages_per_rank != SIMTRAIN_UNSET) {
		if (a->layers_per_vstage != SIMTRAIN_UNSET)
			return ASSERT_FAIL(f, &at_vp_both, "%s",
				"num_layers_per_virtual_pipeline_stage and "
				"num_virtual_stages_per_pipeline_rank cannot "
				"be set at the same time");
		j->layout.vp = a->vstages_per_rank;
	} else if (a->layers_per_vstage != SIMTRAIN_UNSET) {
		/* Later Megatron-LM counts the accounted embedding and
		 * loss as layers here. */
		int split = a->num_layers + a->account_for_embedding +
		            a->account_for_loss;

		if (split % a->pp != 0)
			return ASSERT_FAIL(f, &at_vp_layers, "%s",
				"number of layers should be divisible by the "
				"pipeline parallel size");
		per_stage = split / a->pp;
		if (a->layers_per_vstage < 1 ||
		    per_stage % a->layers_per_vstage != 0)
			return ASSERT_FAIL(f, &at_vp_stage, "%s",
				"number of layers per pipeline stage must be "
				"divisible number of layers per virtual "
				"pipeline stage");
		j->layout.vp = per_stage / a->layers_per_vstage;
	}
	return 0;
}

/* The MoE layer pattern, as get_gpt_decoder_layer_specs checks it. */
static int
check_moe_freq(const struct simtrain_args *a, struct simtrain_failure *f)
{
	int dense, total;

	if (simtrain_moe_freq_first_dense(a->moe_layer_freq, &dense,
	                                  &total) != 0)
		return raise(f, "ValueError", STAGE_MODEL, &at_moe_freq,
		             "Invalid moe_layer_freq: %s (paratune-simtrain "
		             "simulates 1 and \"([0]*K+[1]*M)\")",
		             a->moe_layer_freq);
	if (total >= 0 && total != a->num_layers)
		return raise(f, "AssertionError", STAGE_MODEL,
		             &at_moe_freq_len, "Invalid length of "
		             "moe_layer_pattern: %d, expected %d, current moe "
		             "layer pattern: %s", total, a->num_layers,
		             a->moe_layer_freq);
	return 0;
}

/* Optimizer overlap, precision, shape defaults, recompute, experts. */
static int
check_options(const struct simtrain_args *a, struct simtrain_failure *f)
{
	if (a->first_pipeline_layers != SIMTRAIN_UNSET &&
	    a->first_pipeline_layers <= 0)
		return raise(f, "ValueError", STAGE_MODEL, &at_uneven, "%s",
		             "num_layers_in_first_pipeline_stage must be "
		             "larger than 0");
	if (a->last_pipeline_layers != SIMTRAIN_UNSET &&
	    a->last_pipeline_layers <= 0)
		return raise(f, "ValueError", STAGE_MODEL, &at_uneven, "%s",
		             "num_layers_in_last_pipeline_stage must be "
		             "larger than 0");
	if (a->overlap_param_gather && !a->use_distributed_optimizer &&
	    !a->use_megatron_fsdp)
		return ASSERT_FAIL(f, &at_opg_distopt, "%s",
		                   "--overlap-param-gather only supported with "
		                   "distributed optimizer");
	if (a->overlap_param_gather && !a->overlap_grad_reduce)
		return ASSERT_FAIL(f, &at_opg_grad, "%s",
		                   "Must use --overlap-param-gather with "
		                   "--overlap-grad-reduce");
	if (a->fp16 && a->bf16)
		return ASSERT_FAIL(f, &at_fp16_bf16, "%s", "");
	if (a->kv_channels == SIMTRAIN_UNSET &&
	    (a->num_attention_heads < 1 ||
	     a->hidden_size % a->num_attention_heads != 0))
		return ASSERT_FAIL(f, &at_kv, "%s", "");
	if (a->cp > 1 && a->seq_length % (2 * a->cp) != 0)
		return ASSERT_FAIL(f, &at_seq_cp, "%s",
		                   "seq-length should be a multiple of 2 * "
		                   "context-parallel-size if context-parallel-"
		                   "size > 1.");
	if (a->max_position_embeddings < a->seq_length)
		return ASSERT_FAIL(f, &at_max_pos, "%s", "");
	if (a->recompute_granularity &&
	    !strcmp(a->recompute_granularity, "selective") &&
	    a->recompute_method)
		return ASSERT_FAIL(f, &at_selective_method, "%s",
		                   "recompute method is not yet supported for "
		                   "selective recomputing granularity");
	if (a->ep > 1 && a->num_experts == SIMTRAIN_UNSET)
		return ASSERT_FAIL(f, &at_ep_none, "%s",
		                   "num_experts must be non None to use expert "
		                   "model parallelism");
	if (a->ep > 1 && a->num_experts % a->ep != 0)
		return ASSERT_FAIL(f, &at_ep_divide, "%s",
		                   "Number of experts should be a multiple of "
		                   "expert model parallel_size.");
	if (a->ep > 1 && a->fp16)
		return ASSERT_FAIL(f, &at_ep_fp16, "%s",
		                   "Expert parallelism is not supported with "
		                   "fp16 training.");
	if (a->num_experts != SIMTRAIN_UNSET)
		return check_moe_freq(a, f);
	return 0;
}

/* The tuning guide's switches as validate_args checks them. */
static int
check_switches(const struct simtrain_args *a, struct simtrain_failure *f)
{
	const struct simtrain_ints *h = &a->hierarchical_cp;
	long product = 1;

	if (h->n > 0) {
		for (int i = 0; i < h->n && i < 4; i++)
			product *= h->v[i];
		if (h->n > 4 || product != a->cp)
			return ASSERT_FAIL(f, &at_hcp_product, "%s", "");
	}
	if (!strcmp(a->cp_comm_type, "a2a+p2p") && h->n == 0)
		return ASSERT_FAIL(f, &at_hcp_needed, "%s",
		                   "--hierarchical-context-parallel-sizes must "
		                   "be set when a2a+p2p is used in cp comm");
	if (a->fp8_param_gather && !a->use_distributed_optimizer &&
	    !a->use_megatron_fsdp)
		return ASSERT_FAIL(f, &at_fp8_param, "%s",
		                   "--fp8-param-gather only supported with "
		                   "distributed optimizer, torch fsdp2, "
		                   "megatron fsdp, or inference mode");
	if (a->use_megatron_fsdp && strcmp(a->ckpt_format, "fsdp_dtensor"))
		return ASSERT_FAIL(f, &at_fsdp_ckpt, "%s",
		                   "Megatron-FSDP requires the `fsdp_dtensor` "
		                   "checkpointing format.");
	if (!strcmp(a->cuda_graph_impl, "full_iteration") &&
	    !a->no_check_for_nan_in_loss_and_grad)
		return ASSERT_FAIL(f, &at_graph_nan, "%s",
		                   "--no-check-for-nan-in-loss-and-grad should "
		                   "be set with "
		                   "--cuda-graph-impl=full_iteration "
		                   "for training.");
	/* Megatron turns sequence parallelism off when tp is 1 first. */
	if (a->tp_comm_overlap && !(a->sequence_parallel && a->tp > 1))
		return ASSERT_FAIL(f, &at_tp_overlap, "%s",
		                   "Tensor parallel communication/GEMM overlap "
		                   "can happen only when sequence parallelism "
		                   "is enabled");
	return 0;
}

/* FP4 (NVFP4) against FP8, as validate_args raises (ValueError). */
static int
check_fp4(const struct simtrain_args *a, struct simtrain_failure *f)
{
	if (a->fp4_format && a->fp8_format)
		return raise(f, "ValueError", STAGE_ARGS, &at_fp4_fp8, "%s",
		             "--fp4-format and --fp8-format cannot be used "
		             "simultaneously. Please choose one.");
	if (a->fp4_param_gather && !a->fp4_format)
		return raise(f, "ValueError", STAGE_ARGS, &at_fp4_param, "%s",
		             "--fp4-param-gather must be used together with "
		             "--fp4-format.");
	return 0;
}

/* Whether CUDA graphs are captured per layer (local or Transformer
 * Engine's), not for the whole iteration, which transformer_config.py
 * lets through where per-layer graphs are refused. */
static bool
per_layer_graphs(const struct simtrain_args *a)
{
	return strcmp(a->cuda_graph_impl, "none") &&
	       strcmp(a->cuda_graph_impl, "full_iteration");
}

/* TransformerConfig.__post_init__'s CPU offloading checks (ValueError). */
static int
check_offload(const struct simtrain_args *a, struct simtrain_failure *f)
{
	int n = a->cpu_offloading_num_layers;

	if (n <= 0)
		return 0;
	if (n >= a->num_layers)
		return raise(f, "ValueError", STAGE_MODEL, &at_offload_layers,
		             "CPU offloading can be done only for layers less "
		             "than %d", a->num_layers);
	if (a->pp > 1)
		return raise(f, "ValueError", STAGE_MODEL, &at_offload_pp, "%s",
		             "Currently there is no support for Pipeline "
		             "parallelism with CPU offloading");
	if (a->recompute_granularity)
		return raise(f, "ValueError", STAGE_MODEL,
		             &at_offload_recompute, "%s",
		             "CPU offloading does not work when activation "
		             "recomputation is enabled");
	if (per_layer_graphs(a))
		return raise(f, "ValueError", STAGE_MODEL, &at_offload_graphs,
		             "%s", "CUDA graphs not supported with CPU "
		             "offloading.");
	return 0;
}

/* TransformerConfig.__post_init__'s recompute checks (ValueError). */
static int
check_recompute(const struct simtrain_args *a, struct simtrain_failure *f)
{
	const char *g = a->recompute_granularity;

	if (!g)
		return 0;
	if (!strcmp(g, "full") && per_layer_graphs(a))
		return raise(f, "AssertionError", STAGE_MODEL,
		             &at_graph_recompute, "%s", "full recompute is "
		             "only supported with full iteration CUDA graph.");
	if (!strcmp(g, "full") && !a->recompute_method)
		return raise(f, "ValueError", STAGE_MODEL, &at_full_method,
		             "Using recompute_granularity: full so "
		             "recompute_method must be \"block\" or "
		             "\"uniform\"");
	if (!strcmp(g, "full") && a->recompute_num_layers == SIMTRAIN_UNSET)
		return raise(f, "ValueError", STAGE_MODEL, &at_full_layers,
		             "When using recompute_granularity: full "
		             "recompute_num_layers must be between 1 and "
		             "num_layers_per_pipeline_rank: %d",
		             a->num_layers / a->pp);
	if (!strcmp(g, "selective") &&
	    a->recompute_num_layers != SIMTRAIN_UNSET)
		return raise(f, "ValueError", STAGE_MODEL, &at_selective_layers,
		             "When using recompute_granularity: selective "
		             "recompute_num_layers must be None.");
	return 0;
}

/* transformer_config.py's complaints about an uneven pipeline. */
static int
raise_uneven(const struct simtrain_job *j, struct simtrain_failure *f)
{
	const struct layout *l = &j->layout;
	int left, stages;

	if (l->account_embedding || l->account_loss)
		return raise(f, "ValueError", STAGE_MODEL, &at_uneven, "%s",
		             "num_layers_in_first_pipeline_stage and "
		             "num_layers_in_last_pipeline_stage cannot be set "
		             "at the same time with "
		             "account_for_embedding_in_pipeline_split and "
		             "account_for_loss_in_pipeline_split");
	layout_uneven_middle(&j->model, l, &left, &stages);
	return raise(f, "ValueError", STAGE_MODEL, &at_uneven,
	             "number of layers at middle stage: %d must be divisible "
	             "by the middle pipeline model parallel size %d", left,
	             stages);
}

/* A layout_check() rule in Megatron's words. */
int
simtrain_raise_rule(const struct simtrain_job *j, enum layout_rule r,
                    struct simtrain_failure *f)
{
	const struct layout *l = &j->layout;
	const struct model *m = &j->model;

	switch (r) {
	case RULE_HEADS:
		return raise(f, "ValueError", STAGE_MODEL, &at_heads,
		             "num_attention_heads (%d) must be a multiple of "
		             "tensor_model_parallel_size (%d).",
		             m->num_attention_heads, l->tp);
	case RULE_GROUPS:
		return raise(f, "ValueError", STAGE_MODEL, &at_groups,
		             "num_query_groups (%d) must be a multiple of "
		             "tensor_model_parallel_size (%d).",
		             m->num_query_groups, l->tp);
	case RULE_BATCH:
		return ASSERT_FAIL(f, &at_batch, "global batch size (%d) is "
		                   "not divisible by micro batch size (%d) "
		                   "times data parallel size (%d)", l->gbs,
		                   l->mbs, l->dp);
	case RULE_VP_MICRO:
		return raise(f, "RuntimeError", STAGE_STEP, &at_vp_micro,
		             "number of microbatches (%d) is not divisible by "
		             "pipeline-model-parallel-size (%d) when using "
		             "interleaved schedule", l->gbs / (l->mbs * l->dp),
		             l->pp);
	case RULE_EXPERT_FOLD:
		return raise(f, "RuntimeError", STAGE_MODEL, &at_expert_fold,
		             "data_parallel_size (%d) is not divisible by "
		             "expert_model_parallel_size ", l->dp);
	case RULE_UNEVEN:
		return raise_uneven(j, f);
	case RULE_VP:
		if (layout_uneven(l))
			return raise(f, "ValueError", STAGE_MODEL, &at_uneven,
			             "number of layers at each pipeline stage "
			             "must be divisible by virtual pipeline "
			             "parallel degree %d", l->vp);
		if (l->pp == 1)
			return ASSERT_FAIL(f, &at_vp_pp, "%s",
				"when interleaved schedule is used, "
				"pipeline-model-parallel size should be "
				"greater than 1");
		return raise(f, "ValueError", STAGE_MODEL, &at_vp_divide,
		             "num_layers: %d must be divisible by "
		             "virtual_model_parallel_size %d", m->num_layers,
		             l->vp);
	case RULE_LAYERS_PP:
		return raise(f, "AssertionError", STAGE_MODEL, &at_layers_pp,
		             "num_layers=%d should be divisible by "
		             "config.pipeline_model_parallel_size=%d",
		             layout_split_layers(m, l), l->pp);
	default:
		/* Rules the checks above make unreachable (world size,
		 * sequence parallel, recompute layers): a generic wording. */
		return raise(f, "AssertionError", STAGE_MODEL, &at_model,
		             "%s", layout_rule_name(r));
	}
}

int
simtrain_check_args(struct simtrain_job *j, struct simtrain_failure *f)
{
	const struct simtrain_args *a = &j->args;

	memset(f, 0, sizeof(*f));
	return check_required(a, f) || check_sizes(j, f) ||
	       check_options(a, f) || check_switches(a, f) || check_fp4(a, f)
	       ? -1 : 0;
}

int
simtrain_check_config(const struct simtrain_args *a,
                      struct simtrain_failure *f)
{
	return check_recompute(a, f) || check_offload(a, f) ? -1 : 0;
}

/* How many times c is in s. */
static int
count_of(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* validate_layer_layout's counts, in its order, on the unrolled s. */
static int
layout_letters(const struct simtrain_job *j, const char *s,
               struct simtrain_failure *f)
{
	const char *first = s + strspn(s, "|");
	size_t len = strlen(s);
	int t = count_of(s, 't'), m = count_of(s, 'm');

	while (len > 0 && s[len - 1] == '|')
		len--;
	if (*first != 'E' || count_of(s, 'E') != 1)
		return raise(f, "AssertionError", STAGE_MODEL,
		             &at_layout_layers, "%s", "The first layer must be "
		             "embedding, and embedding must be specified "
		             "exactly once");
	if (len == 0 || s[len - 1] != 'L' || count_of(s, 'L') != 1)
		return raise(f, "AssertionError", STAGE_MODEL,
		             &at_layout_layers, "%s", "The last layer must be "
		             "loss, and loss must be specified exactly once");
	if (t != j->model.num_layers)
		return raise(f, "AssertionError", STAGE_MODEL,
		             &at_layout_layers, "Number of decoder layers "
		             "%dmust match num_layers %d", t,
		             j->model.num_layers);
	if (m != j->model.mtp_num_layers)
		return raise(f, "AssertionError", STAGE_MODEL,
		             &at_layout_layers, "%s", "Number of mtp layers "
		             "in layout must match mtp_num_layers");
	return 0;
}

/*
 * The layout as Megatron-LM checks its letters, then as the simulation
 * can run it: the split paratune renders (layout_vstage_split), for
 * the estimate knows no other.
 */
int
simtrain_check_layout(const struct simtrain_job *j,
                      struct simtrain_failure *f)
{
	struct strbuf got = STRBUF_INIT, want = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;
	bool whole;
	int ret;

	if (!j->args.pipeline_layout)
		return 0;
	if (j->layout.first_stage_layers || j->layout.last_stage_layers ||
	    j->layout.account_embedding || j->layout.account_loss)
		return raise(f, "ValueError", STAGE_MODEL, &at_layout_conflict,
		             "pipeline_model_parallel_layout cannot be set "
		             "with other pipeline layout arguments.");
	simtrain_layout_expand(j->args.pipeline_layout, &got);
	layout_vstage_string(&j->model, &j->layout, &text);
	simtrain_layout_expand(text.buf ? text.buf : "", &want);
	ret = layout_letters(j, got.buf ? got.buf : "", f);
	/* One stage is the whole model, which needs no split. */
	whole = j->layout.pp == 1 && j->layout.vp == 1;
	if (ret == 0 && !whole &&
	    (!want.buf || !got.buf || strcmp(got.buf, want.buf)))
		ret = raise(f, "NotImplementedError", STAGE_MODEL, &at_model,
		            "paratune-simtrain runs the layout paratune "
		            "renders for pp %d and vp %d, %s, not %s",
		            j->layout.pp, j->layout.vp,
		            text.buf ? text.buf : "(none: too many stages)",
		            j->args.pipeline_layout);
	strbuf_release(&got);
	strbuf_release(&want);
	strbuf_release(&text);
	return ret;
}

int
simtrain_raise_model(struct simtrain_failure *f, const char *why)
{
	return raise(f, "AssertionError", STAGE_MODEL, &at_model, "%s", why);
}
