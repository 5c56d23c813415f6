/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * cmd-size.c - 'paratune size': NeMo Auto Configurator's model size
 * recommendation (from a time budget) and training time (from a size),
 * with the architecture NeMo would generate for the recommended size.
 *
 * Defaults are NeMo 2.0's (AutoConfigurator.__init__ in nemo/
 * collections/llm/tools/auto_configurator/runner.py; the notes, section
 * 1): 140 TFLOPS per GPU, 1400 B tokens, vocabulary 32000; sequence 2048,
 * the first of NeMo's GPT sequence lengths (a recipe sets its own).
 */
#include "autoconfig.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "error.h"
#include "json.h"
#include "sizing.h"

extern const struct cmd_entry cmd_size_entry;

/* NeMo 2.0's defaults (runner.py: tflops_per_gpu, num_tokens_in_b,
 * vocab_size; seq_length as above). */
#define SIZE_DEFAULT_TFLOPS 140.0
#define SIZE_DEFAULT_TOKENS_B 1400.0
#define SIZE_DEFAULT_VOCAB 32000
#define SIZE_DEFAULT_SEQ 2048
/* The range of a size (B) or a time (days), given or worked out:
 * 100,000 parameters or 8.64 seconds to 10^9 of either. */
#define SIZE_RESULT_MIN 1e-4
#define SIZE_RESULT_MAX 1e9
/* The range of --tflops and --tokens (billions). */
#define SIZE_INPUT_MIN 1e-3
#define SIZE_INPUT_MAX 1e6
/* Below this NeMo's hundredths round a result to 0. */
#define SIZE_HUNDREDTHS_MIN 0.005

/* What the command line asked; days or params is NAN when not given
 * (option parsing accepts finite numbers only). */
struct size_args {
	int gpus;
	double tflops, tokens_b, days, params_b;
	const char *family;
	int vocab, seq;
};

/* What was worked out. */
struct size_result {
	enum sizing_family family;
	double params_b, days;
	int have_arch;
	struct model arch;
	char why[256];   /* why there is no architecture */
};

/* Whether v lies in lo..hi; 0, or -1 after an error naming the option. */
static int
size_check_range(const char *option, double v, double lo, double hi)
{
	if (isnan(v) || (v >= lo && v <= hi))
		return 0;
	return error("%s must be between %.10g and %.10g, not %g", option,
	             lo, hi, v);
}

/* The ranges of the numbers given; 0, or -1 after an error message. */
static int
size_check_ranges(const struct size_args *a)
{
	if (size_check_range("--tflops", a->tflops, SIZE_INPUT_MIN,
	                     SIZE_INPUT_MAX) != 0 ||
	    size_check_range("--tokens", a->tokens_b, SIZE_INPUT_MIN,
	                     SIZE_INPUT_MAX) != 0 ||
	    size_check_range("--days", a->days, SIZE_RESULT_MIN,
	                     SIZE_RESULT_MAX) != 0)
		return -1;
	return size_check_range("--params", a->params_b, SIZE_RESULT_MIN,
	                        SIZE_RESULT_MAX);
}

/* Check the arguments; 0, or -1 after an error message. */
static int
size_check_args(const struct size_args *a, enum sizing_family *family)
{
	int f = sizing_family_parse(a->family);

	if (a->gpus == INT_MIN)
		return error("'size' needs --gpus N");
	if (isnan(a->days) && isnan(a->params_b))
		return error("'size' needs --days D (to recommend a size) or "
		             "--params B (for the training time)");
	if (!isnan(a->days) && !isnan(a->params_b))
		return error("'size' takes --days or --params, not both");
	if (f < 0)
		return error("unknown family '%s' (gpt3, t5, mt5 or bert)",
		             a->family);
	if (a->gpus <= 0)
		return error("--gpus must be positive, not %d", a->gpus);
	if (!(a->tflops > 0))
		return error("--tflops must be positive, not %g", a->tflops);
	if (!(a->tokens_b > 0))
		return error("--tokens must be positive, not %g", a->tokens_b);
	if (!isnan(a->days) && !(a->days > 0))
		return error("--days must be positive, not %g", a->days);
	if (!isnan(a->params_b) && !(a->params_b > 0))
		return error("--params must be positive, not %g", a->params_b);
	if (a->vocab <= 0)
		return error("--vocab must be positive, not %d", a->vocab);
	if (a->seq <= 0)
		return error("--seq must be positive, not %d", a->seq);
	if (size_check_ranges(a) != 0)
		return -1;
	*family = (enum sizing_family)f;
	return 0;
}

/*
 * NeMo's result, rounded to hundredths, or where that rounds a positive
 * result to 0, the exact one to three significant digits.
 */
static double
size_shown(double rounded, double exact)
{
	char buf[32];

	if (rounded > 0 || !(exact > 0))
		return rounded;
	snprintf(buf, sizeof buf, "%.3g", exact);
	return strtod(buf, NULL);
}

/* Recommend a size and its architecture, or the time for a size. */
static void
size_compute(const struct size_args *a, struct size_result *r)
{
	r->have_arch = 0;
	r->why[0] = '\0';
	if (isnan(a->days)) {
		r->params_b = a->params_b;
		r->days = size_shown(
			sizing_train_days(r->family, a->params_b, a->gpus,
			                  a->tflops, a->tokens_b),
			sizing_exact_train_days(r->family, a->params_b,
			                        a->gpus, a->tflops,
			                        a->tokens_b));
		return;
	}
	r->days = a->days;
	r->params_b = size_shown(
		sizing_recommend_params_b(r->family, a->days, a->gpus,
		                          a->tflops, a->tokens_b),
		sizing_exact_params_b(r->family, a->days, a->gpus, a->tflops,
		                      a->tokens_b));
	/* NeMo rounds to hundredths of a billion: it would generate an
	 * architecture of 0 B. */
	if (r->params_b < SIZE_HUNDREDTHS_MIN) {
		snprintf(r->why, sizeof r->why, "the budget recommends under "
		         "0.005 B parameters, too few for any architecture");
		return;
	}
	r->have_arch = sizing_architecture(r->family, r->params_b, a->vocab,
	                                   a->seq, &r->arch, r->why,
	                                   sizeof r->why) == 0;
}

/*
 * Whether the result is a number to print: each input is in its range,
 * but --days 1e9 --gpus 100000 gives a size far beyond any model, and
 * --params 0.001 --gpus 100000 a time of a second.  Outside
 * SIZE_RESULT_MIN..SIZE_RESULT_MAX (10^5 parameters or 8.64 seconds to
 * 10^9 B parameters or 10^9 days) it is out of every physical range.
 * 0, or -1 after an error naming the options that gave it.
 */
static int
size_check_result(const struct size_args *a, const struct size_result *r)
{
	bool time = isnan(a->days);
	double v = time ? r->days : r->params_b;
	bool above = !(v <= SIZE_RESULT_MAX);

	if (v >= SIZE_RESULT_MIN && !above)
		return 0;
	return error("%s %.10g, --gpus %d, --tflops %.10g and --tokens %.10g "
	             "give %s %s %.10g: give values in a physical range",
	             time ? "--params" : "--days", time ? a->params_b : a->days,
	             a->gpus, a->tflops, a->tokens_b,
	             time ? "a training time in days" : "a size in billions",
	             above ? "above" : "below",
	             above ? SIZE_RESULT_MAX : SIZE_RESULT_MIN);
}

/* NeMo's sentence (base_config.py, calculate_model_size); every number
 * in its range (hundredths up to 10^9, inputs of up to three decimals
 * up to 10^6), which %.15g prints without an exponent and in full. */
static void
size_print_sentence(FILE *f, const struct size_args *a,
                    const struct size_result *r)
{
	fprintf(f, "You can train a %.15gB parameter model in %.15g days "
	        "using %d GPUs. This result assumes you are training to "
	        "%.15gB tokens, and each GPU achieves %.15g TFLOPS.\n",
	        r->params_b, r->days, a->gpus, a->tokens_b, a->tflops);
}

/* The sentence and, with one, the architecture, for people. */
static void
size_print_table(FILE *f, const struct size_args *a,
                 const struct size_result *r)
{
	const struct model *m = &r->arch;

	size_print_sentence(f, a, r);
	if (!r->have_arch)
		return;
	fprintf(f, "\nThe %s architecture NeMo generates for %.10g B "
	        "(sequence %d, vocabulary %d):\n",
	        sizing_family_name(r->family), r->params_b, a->seq, a->vocab);
	if (m->arch == ARCH_ENCDEC)
		fprintf(f, "  %-22s %d encoder + %d decoder\n", "num_layers",
		        m->encoder_layers, m->num_layers - m->encoder_layers);
	else
		fprintf(f, "  %-22s %d\n", "num_layers", m->num_layers);
	fprintf(f, "  %-22s %d\n", "hidden_size", m->hidden_size);
	fprintf(f, "  %-22s %d\n", "ffn_hidden_size", m->ffn_hidden_size);
	fprintf(f, "  %-22s %d\n", "num_attention_heads",
	        m->num_attention_heads);
	fprintf(f, "  %-22s %d\n", "num_query_groups", m->num_query_groups);
	fprintf(f, "  %-22s %d\n", "kv_channels", m->kv_channels);
	fprintf(f, "  %-22s %d\n", "vocab_size", m->vocab_size);
	fprintf(f, "  %-22s %d\n", "seq_length", m->max_position_embeddings);
	fprintf(f, "  %-22s %.2f B\n", "parameters (counted)",
	        model_params(m) / 1e9);
}

/* The same for scripts; the architecture's keys only with one. */
static void
size_print_json(FILE *f, const struct size_args *a,
                const struct size_result *r)
{
	struct strbuf sb = STRBUF_INIT;
	const struct model *m = &r->arch;
	struct json j;

	json_init(&j, &sb, true);
	json_begin_object(&j, NULL);
	json_string(&j, "family", sizing_family_name(r->family));
	json_number_full(&j, "params_b", r->params_b);
	json_number_full(&j, "train_days", r->days);
	json_int(&j, "num_gpus", a->gpus);
	json_number_full(&j, "tflops_per_gpu", a->tflops);
	json_number_full(&j, "tokens_b", a->tokens_b);
	if (r->have_arch) {
		json_string(&j, "name", m->name);
		json_int(&j, "num_layers", m->num_layers);
		json_int(&j, "encoder_num_layers", m->encoder_layers);
		json_int(&j, "hidden_size", m->hidden_size);
		json_int(&j, "ffn_hidden_size", m->ffn_hidden_size);
		json_int(&j, "num_attention_heads", m->num_attention_heads);
		json_int(&j, "num_query_groups", m->num_query_groups);
		json_int(&j, "kv_channels", m->kv_channels);
		json_int(&j, "vocab_size", m->vocab_size);
		json_int(&j, "seq_length", m->max_position_embeddings);
		json_number(&j, "counted_params_b", model_params(m) / 1e9);
	} else if (r->why[0]) {
		json_string(&j, "architecture_error", r->why);
	}
	json_end_object(&j);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
}

/* paratune size --gpus N (--days D | --params B) [...]. */
static int
cmd_size_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct size_args a = { INT_MIN, SIZE_DEFAULT_TFLOPS,
	                       SIZE_DEFAULT_TOKENS_B, NAN, NAN, "gpt3",
	                       SIZE_DEFAULT_VOCAB, SIZE_DEFAULT_SEQ };
	const struct option opts[] = {
		OPT_INTEGER(0, "gpus", &a.gpus, "N", "number of GPUs "
		            "(nodes x GPUs per node)"),
		OPT_NUMBER(0, "tflops", &a.tflops, "F", "TFLOPS each GPU "
		           "achieves (default 140, NeMo's)"),
		OPT_NUMBER(0, "tokens", &a.tokens_b, "T", "training tokens, "
		           "billions (default 1400, NeMo's)"),
		OPT_NUMBER(0, "days", &a.days, "D", "time budget: recommend "
		           "a size and its architecture"),
		OPT_NUMBER(0, "params", &a.params_b, "B", "model size, "
		           "billions: the training time"),
		OPT_STR(0, "family", &a.family, "F", "gpt3 (default), t5, mt5 "
		        "or bert"),
		OPT_INTEGER(0, "vocab", &a.vocab, "V", "vocabulary size "
		            "(default 32000, NeMo's)"),
		OPT_INTEGER(0, "seq", &a.seq, "S", "sequence length "
		            "(default 2048, NeMo's)"),
		OPT_FORMAT_(NULL),
		OPT_FINISH,
	};
	struct size_result r;
	int status;

	if (cmd_parse_args(ctx, &cmd_size_entry, opts, argc, argv, 0, 0,
	                   &status) < 0)
		return status;
	if ((status = cmd_check_site(ctx)) != EXIT_OK)
		return status;
	if (size_check_args(&a, &r.family) != 0)
		return EXIT_USAGE;
	size_compute(&a, &r);
	if (size_check_result(&a, &r) != 0)
		return EXIT_USAGE;
	/* The size stands even where no table row gives it a shape. */
	if (!r.have_arch && r.why[0])
		warning("%s", r.why);
	if (ctx->format == FORMAT_JSON)
		size_print_json(ctx->out, &a, &r);
	else
		size_print_table(ctx->out, &a, &r);
	return EXIT_OK;
}

const struct cmd_entry cmd_size_entry = {
	"size", NULL, NULL,
	"NeMo's model size for a time budget, or training days for a size",
	cmd_size_exec,
	"--gpus N [--tflops F] [--tokens T] (--days D | --params B) "
	"[--family F] [--vocab V] [--seq S] [--format FMT]",
};
