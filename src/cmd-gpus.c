/* cmd-gpus.c - 'paratune gpus' (being written). */
#include "autoconfig.h"

#include "cmd.h"
#include "error.h"

extern const struct cmd_entry cmd_gpus_entry;

static int
cmd_gpus_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = { OPT_FINISH };
	int status;

	if (cmd_parse_args(ctx, &cmd_gpus_entry, opts, argc, argv, 0, -1,
	                   &status) < 0)
		return status;
	return error("'gpus' is not written yet"), EXIT_SOFTWARE;
}

const struct cmd_entry cmd_gpus_entry = {
	"gpus", NULL, NULL, "(not yet)", cmd_gpus_exec,
};
