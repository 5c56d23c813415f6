/* cmd-parse.c - 'paratune parse' (being written). */
#include "autoconfig.h"

#include "cmd.h"
#include "error.h"

extern const struct cmd_entry cmd_parse_entry;

static int
cmd_parse_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = { OPT_FINISH };
	int status;

	if (cmd_parse_args(ctx, &cmd_parse_entry, opts, argc, argv, 0, -1,
	                   &status) < 0)
		return status;
	return error("'parse' is not written yet"), EXIT_SOFTWARE;
}

const struct cmd_entry cmd_parse_entry = {
	"parse", NULL, NULL, "(not yet)", cmd_parse_exec,
};
