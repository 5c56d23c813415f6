/* cmd-estimate.c - 'paratune estimate' (being written). */
#include "autoconfig.h"

#include "cmd.h"
#include "error.h"

extern const struct cmd_entry cmd_estimate_entry;

static int
cmd_estimate_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = { OPT_FINISH };
	int status;

	if (cmd_parse_args(ctx, &cmd_estimate_entry, opts, argc, argv, 0, -1,
	                   &status) < 0)
		return status;
	return error("'estimate' is not written yet"), EXIT_SOFTWARE;
}

const struct cmd_entry cmd_estimate_entry = {
	"estimate", NULL, NULL, "(not yet)", cmd_estimate_exec,
};
