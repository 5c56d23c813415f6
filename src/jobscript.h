/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * jobscript.h - the variables a job-script template sees, and rendering
 * one candidate's script.
 *
 * Booleans are "true" or "false"; "unset" means the name is known but has
 * no value ({{#name}} is false, {{name}} is an error).  Values marked
 * "user text" may hold anything the campaign holds: templates must write
 * them as {{q:name}}.  "raw" variables are shell lines paratune generated
 * and escaped: {{raw:name}}; lines are separated by newlines, with none
 * after the last, so that a raw tag on a line of its own gives its lines.
 *
 * Candidate
 *   name                  candidate name (a safe word by construction)
 *   tp pp cp ep           tensor, pipeline, context, expert parallel
 *   etp                   expert tensor parallel (tp when not searched)
 *   vp                    virtual stages per pipeline rank; 1 = none
 *   vp_layers             layers per virtual stage, (num_layers + one
 *                         per account flag)/(pp*vp), when vp > 1 and the
 *                         pipeline is even; unset otherwise
 *   vp_stages             vp, when vp > 1 and the pipeline is uneven
 *                         (--num-virtual-stages-per-pipeline-rank); unset
 *                         otherwise
 *   vp_interleaved        boolean: vp > 1
 *   first_pipeline_num_layers last_pipeline_num_layers   an uneven
 *                         pipeline's first / last stage layers; unset
 *                         for an even share
 *   mbs gbs dp            micro batch, global batch, data parallel
 *   recompute             "none", "selective" or "full"
 *   recompute_full recompute_selective   booleans
 *   recompute_layers      full: the layout's count (layout.h), 0 = all
 *   recompute_method      full: Megatron-LM's --recompute-method:
 *                         "block" for the first N layers, "uniform" for
 *                         runs of N (every layer: uniform 1); unset
 *                         otherwise
 *   recompute_num_layers  full: Megatron-LM's --recompute-num-layers (the
 *                         layers of a model chunk for uniform with 0)
 *   recompute_modules     selective, not core_attn alone: the modules as
 *                         words for --recompute-modules; unset otherwise
 *   recompute_modules_list   always: the modules as a Python list for
 *                         NeMo (["core_attn"] by default, or when not
 *                         selective); write it with q:
 *   sequence_parallel distributed_optimizer   booleans
 *   attention             "flash" or "unfused"
 *   attention_backend     --attention-backend: the attention, or "auto"
 *                         for flash where TE's flash kernels cannot run
 *                         the model (a softmax offset, fp32)
 *   account_embedding account_loss   booleans: the pipeline split counts
 *                         the embedding / the loss as a layer
 *   fp8_recipe            "delayed", "tensorwise", "mxfp8", "blockwise"
 *                         (fp8_param_gather under fp4: --fp4-param-gather)
 *   fp8_blockwise         boolean: fp8 with the blockwise recipe
 *   mxfp8_param_gather    boolean: fp8 with mxfp8 and fp8_param_gather
 *                         (--reuse-grad-buf-for-mxfp8-param-ag)
 *   fp8_dot_product_attention   boolean: fp8 with attention's GEMMs in
 *                         FP8 (no Megatron-LM flag: NeMo's
 *                         MegatronMixedPrecision field)
 *   fp8_param_gather cuda_graphs tp_comm_overlap overlap_grad_reduce
 *   overlap_param_gather fsdp moe_grouped_gemm grad_reduce_in_bf16
 *                         booleans
 *   activation_offload_layers   layers whose activations go to the host,
 *                         0 = none
 *   moe_token_dispatcher  "alltoall", "allgather" or "flex" (Megatron-LM's
 *                         type: hybridep is flex on the hybridep backend)
 *   moe_flex moe_hybridep moe_alltoall   booleans: the dispatcher is
 *                         flex (either backend), hybridep, alltoall
 *   moe_flex_backend      flex's backend: "deepep" or "hybridep"
 *   moe_a2a_overlap       boolean: EP all-to-alls under another
 *                         micro-batch's compute, wgrad delayed
 *   cuda_graph_layers cuda_graph_full_iteration   booleans: CUDA graphs
 *                         per layer, or of the whole iteration
 *   moe_full_iteration_graph   boolean: an MoE model in a full-iteration
 *                         graph (fixed expert-rank budgets, paged stash)
 *   cp_comm_type          with cp > 1: "p2p", "all_gather", "a2a" or
 *                         "a2a+p2p"; unset otherwise
 *   cp_a2a_size cp_p2p_size   with a2a+p2p: the two levels of
 *                         --hierarchical-context-parallel-sizes; unset
 *                         otherwise
 *   tp_comm_overlap_needs_megatron_lm a2a_p2p_needs_megatron_lm
 *   moe_a2a_overlap_needs_megatron_lm
 *   cuda_graph_full_iteration_needs_megatron_lm   never
 *                         set: a template names one inside a section to
 *                         refuse a switch it cannot pass on
 * Model
 *   model_name            as the campaign names it (user text)
 *   nemo_recipe           NeMo 2.0 recipe factory; unset when none
 *   nemo_recipe_has_task  boolean: the recipe registers a factory for
 *                         the mode's command (pretrain or finetune)
 *   num_layers hidden_size ffn_hidden_size num_attention_heads
 *   num_query_groups kv_channels vocab_size max_position_embeddings
 *   max_positions         the larger of max_position_embeddings and
 *                         seq_length, for --max-position-embeddings
 *   seq_length            the campaign's sequence length
 *   gqa                   boolean: query groups < attention heads
 *   swiglu rmsnorm rope untie_embeddings disable_bias_linear   booleans
 *                         (swiglu: a gated MLP that --swiglu builds,
 *                         false for quick_geglu)
 *   activation            the MLP's activation (model_activation_name)
 *   geglu squared_relu quick_geglu   booleans: which it is (GeGLU has
 *                         no Megatron-LM option; swiglu is true with it)
 *   normalization         "LayerNorm" or "RMSNorm"
 *   position_embedding_type   "learned_absolute", "rope" or "relative"
 *   moe                   boolean: num_experts > 0
 *   num_experts moe_router_topk moe_ffn_hidden_size   (0 when dense)
 *   moe_shared_expert_intermediate_size   shared experts' width (0: none)
 *   moe_layer_freq        "([0]*K+[1]*(L-K))" for K dense first layers of
 *                         an MoE model, unset otherwise (write {{q:...}})
 *   moe_router_score_function   "softmax" or "sigmoid"; unset when dense
 *   moe_router_sigmoid    boolean: it is sigmoid (softmax is the default)
 *   moe_router_num_groups moe_router_group_topk   group-limited routing
 *                         (0: none)
 *   moe_router_topk_scaling_factor   unset when not scaled
 *   moe_router_enable_expert_bias   boolean
 *   decoder_only          boolean: neither an encoder nor an
 *                         encoder-decoder (pretrain_gpt.py builds only
 *                         decoders)
 *   mla                   boolean: multi-latent attention
 *   q_lora_rank kv_lora_rank qk_head_dim qk_pos_emb_head_dim v_head_dim
 *                         its shape (0 without MLA; q_lora_rank 0: none)
 *   rotary_scaling_factor mscale_all_dim   YaRN's under MLA; unset for
 *                         Megatron-LM's defaults
 *   mtp_num_layers        multi-token-prediction layers (0: none)
 *   qk_layernorm add_qkv_bias   booleans
 *   window_size window_attn_skip_freq   sliding window (0: none)
 *   softmax_type          "vanilla", "off-by-one" or "learnable"
 *   softmax_offset        boolean: softmax_type is not vanilla
 * Precision
 *   precision             "fp32", "fp16", "bf16", "fp8" or "fp4"
 *   bf16 fp16 fp8 fp4     booleans; bf16 is also true with fp8 and fp4,
 *                         which train in bf16 with FP8 (NVFP4) matrix
 *                         products
 *   cross_entropy_fusion  "native" or "te"; unset for "none"
 *   cross_entropy_te      boolean: cross_entropy_fusion is "te"
 *   framework_torchtitan  boolean: framework is "torchtitan"
 * Campaign
 *   campaign_name campaign_dir run_dir   user text
 *   gpu                   GPU catalog name ("h100-sxm")
 *   blackwell             boolean: the GPU's compute capability is 10.0
 *                         or above (gpu_blackwell)
 * Limits
 *   max_steps             limits.max_steps_per_run
 *   time_limit            limits.max_minutes_per_run as HH:MM:SS
 *   time_limit_min        the same in minutes
 *   exit_duration_min     a little under the limit, for
 *                         --exit-duration-in-mins: minutes - max(2,
 *                         minutes/10), at least 1
 *   exit_duration_dhms    the same as DD:HH:MM:SS, for NeMo's
 *                         trainer.max_time
 * Slurm
 *   nodes gpus_per_node world_size
 *   ntasks_per_node       = gpus_per_node: one task per GPU
 *   partition account qos reservation   user text; unset when empty
 *   gpu_type              slurm.gpu_type; unset when empty
 *   segment_nodes         nodes per NVLink segment (sbatch --segment)
 *                         when the GPU's NVLink domain spans nodes and
 *                         the job has two or more; unset otherwise, and
 *                         when slurm.directives has its own --segment
 *   sbatch_directives     raw: one "#SBATCH OPTION" line per entry of
 *                         slurm.directives; "" when none
 *   tag                   unset here; the submitter sets it
 * Container and environment
 *   container             boolean: container.image is set
 *   container_image container_mounts container_workdir   user text;
 *                         unset when empty
 *   env_exports           raw: one "export NAME='VALUE'" line per env
 *                         entry; "" when none
 *   simtrain              path of paratune-simtrain: $PARATUNE_SIMTRAIN,
 *                         else the installed one (user text)
 *   simulated_truth       run.simulated_truth as an absolute path (user
 *                         text); unset when none
 * Early stop
 *   early_stop            boolean: run.early_stop
 *   paratune              path of paratune for `paratune watch`:
 *                         $PARATUNE_SELF, else the build tree's when
 *                         paratune runs from one, else the installed one
 *                         (user text)
 *   skip_steps min_steps  results.skip_steps (-1: the default warm-up)
 *                         and results.min_steps, for watch
 */
#ifndef PARATUNE_JOBSCRIPT_H
#define PARATUNE_JOBSCRIPT_H

#include "config.h"
#include "layout.h"
#include "strbuf.h"
#include "template.h"

/*
 * Set every variable above in v for the candidate called name with
 * layout l (dp filled in).  Returns 0, or -1 after an error naming a
 * slurm.directives or env entry that cannot be written safely.
 */
int jobscript_vars(struct template_vars *v, const struct settings *c,
                   const struct layout *l, const char *name,
                   const char *campaign_dir, const char *run_dir);

/*
 * The template file a campaign uses: run.template with ".sbatch" in
 * run.templates_dir when a configuration layer set it, else in
 * $PARATUNE_TEMPLATES when set, else in the installed templates; a
 * run.template containing '/' is a path used as it is.  The path is
 * appended to path.
 */
void jobscript_template_path(const struct settings *c, struct strbuf *path);
/*
 * The directory jobscript_template_path looks in (the caller frees it),
 * and in *from where it came from when that is not run.templates_dir
 * itself: "environment (PARATUNE_TEMPLATES)" or "build tree"; NULL
 * otherwise.
 */
char *jobscript_templates_dir(const struct settings *c, const char **from);

/* A template read once, for rendering many job scripts. */
struct jobscript_template {
	struct strbuf path; /* the file, for messages */
	struct strbuf text;
};

/*
 * Read the template at template_path (NULL: the campaign's, see
 * jobscript_template_path) into t; 0, or -1 after an error naming it;
 * run as root, EXIT_NOPERM or EXIT_TEMPFAIL for a template it does not
 * read (owner_root_path).  t is to be released either way.
 */
int jobscript_template_load(const struct settings *c,
                            const char *template_path,
                            struct jobscript_template *t);
void jobscript_template_release(struct jobscript_template *t);
/*
 * Render one candidate's job script from the loaded template t and
 * append it to out; as jobscript_render, without reading the file.
 */
int jobscript_render_with(const struct settings *c,
                          const struct jobscript_template *t,
                          const struct layout *l, const char *name,
                          const char *campaign_dir, const char *run_dir,
                          struct strbuf *out);

/*
 * Render one candidate's job script from template_path (NULL: the
 * campaign's, see jobscript_template_path) and append it to out.  Returns
 * 0, or -1 after an error naming the template file (and line); run as
 * root, EXIT_NOPERM or EXIT_TEMPFAIL for a template it does not read
 * (jobscript_template_load).
 */
int jobscript_render(const struct settings *c, const struct layout *l,
                     const char *name, const char *campaign_dir,
                     const char *run_dir, const char *template_path,
                     struct strbuf *out);

#endif
