/*
 * fuzz-template.c - libFuzzer target: the sbatch template renderer on
 * arbitrary template text.  It must never crash, and whatever it renders
 * must not contain a variable's hostile value outside single quotes.
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"
#include "template.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct template_vars vars;
	struct strbuf out = STRBUF_INIT;
	char *text = xstrndup((const char *)data, size);

	template_vars_init(&vars);
	template_vars_set_str(&vars, "name", "llama_8b_tp_1");
	template_vars_set_int(&vars, "tp", 2);
	template_vars_set_bool(&vars, "sequence_parallel", 1);
	template_vars_set_str(&vars, "evil", "$(touch /tmp/pwned)`id`';\n");
	template_vars_set_raw(&vars, "env_exports", "export A='1'");
	/* The raw value may appear only if the template itself wrote it;
	 * coming from the variable it must have been quoted. */
	if (template_render("fuzz.sbatch", text, &vars, &out) == 0 &&
	    strstr(out.buf, "$(touch /tmp/pwned)`id`';") != NULL &&
	    strstr(text, "$(touch /tmp/pwned)`id`';") == NULL)
		abort();
	strbuf_release(&out);
	template_vars_release(&vars);
	free(text);
	return 0;
}
