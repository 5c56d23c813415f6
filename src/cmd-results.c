/*
 * cmd-results.c - 'paratune results DIR': which configuration to train
 * with, how much faster and cheaper it is than the base, and why every
 * other candidate lost or failed; writes DIR/results/.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>

#include "cmd.h"
#include "error.h"
#include "results.h"

extern const struct cmd_entry cmd_results_entry;

/* Parse the options and run results_run. */
static int
cmd_results_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct results_opts o = RESULTS_OPTS_INIT;
	double cost = NAN;  /* stays NAN unless the option is given */
	int status;
	const struct option opts[] = {
		OPT_INTEGER(0, "top", &o.top, "N",
		            "rows of the top table (default 10; 0: all)"),
		OPT_NUMBER(0, "cost-per-gpu-hour", &cost, "X",
		           "price of one GPU-hour (default: the campaign's "
		           "cost_per_gpu_hour)"),
		OPT_STR(0, "currency", &o.currency, "SYMBOL",
		        "currency of costs (default $)"),
		{ OPT_FORMAT, 0, "format", NULL, "FMT",
		  "output format: table, csv (results.csv) or json" },
		OPT_FINISH,
	};

	if (cmd_parse_args(ctx, &cmd_results_entry, opts, argc, argv, 1, 1,
	                   &status) < 0)
		return status;
	if (o.top < 0) {
		error("--top cannot be negative");
		return EXIT_USAGE;
	}
	if (cost < 0) {
		error("--cost-per-gpu-hour cannot be negative");
		return EXIT_USAGE;
	}
	if (!isnan(cost))
		o.cost_per_gpu_hour = cost;
	return results_run(argv[1], &o, ctx->out, (int)ctx->format);
}

const struct cmd_entry cmd_results_entry = {
	"results", NULL, "DIR [--top N] [--cost-per-gpu-hour X] "
	"[--currency SYMBOL] [--format table|csv|json]",
	"what the campaign measured: best configuration, speed-up, cost, "
	"failures",
	cmd_results_exec,
};
