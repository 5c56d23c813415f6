/* cmd-plan.c - 'paratune plan' (being written). */
#include "autoconfig.h"

#include "cmd.h"
#include "error.h"

extern const struct cmd_entry cmd_plan_entry;

static int
cmd_plan_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = { OPT_FINISH };
	int status;

	if (cmd_parse_args(ctx, &cmd_plan_entry, opts, argc, argv, 0, -1,
	                   &status) < 0)
		return status;
	return error("'plan' is not written yet"), EXIT_SOFTWARE;
}

const struct cmd_entry cmd_plan_entry = {
	"plan", NULL, NULL, "(not yet)", cmd_plan_exec,
};
