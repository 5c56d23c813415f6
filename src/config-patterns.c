/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-patterns.c - results.patterns, the log patterns a campaign adds
 * to the parser's: each named, its regex compiled as the parser compiles
 * it, merged by name with what lower layers gave.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "config-int.h"
#include "error.h"
#include "logparse.h"
#include "util.h"
#include "xalloc.h"

/* A regex compiles as the log parser compiles it (the parser's own
 * check: PCRE2 stays behind logparse.h). */
static int
check_regex(struct loader *ld, const struct config_key *k,
            const config_setting_t *e, const char *regex)
{
	char err[QUOTE_CUT_SIZE + 512]; /* the regex cut, offset, message */

	if (logparse_check_regex(regex, err, sizeof err) != 0)
		return config_key_error(ld, e, k, "%s", err);
	return 0;
}

/* Whether s is a pattern name: letters, digits and '_' (a CSV column). */
static bool
valid_pattern_name(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* Add pattern p, replacing one of the same name; takes p's strings. */
static void
pattern_merge(struct settings *c, struct log_pattern *p)
{
	for (int i = 0; i < c->results.npatterns; i++) {
		struct log_pattern *q = &c->results.patterns[i];

		if (!strcmp(q->name, p->name)) {
			free(q->name);
			free(q->regex);
			*q = *p;
			return;
		}
	}
	c->results.patterns = xreallocarray(c->results.patterns,
	                                    (size_t)c->results.npatterns + 1,
	                                    sizeof(*c->results.patterns));
	c->results.patterns[c->results.npatterns++] = *p;
}

/* One results.patterns entry. */
static int
apply_pattern(struct loader *ld, const struct config_key *k,
              const config_setting_t *e)
{
	struct log_pattern p = { NULL, NULL };
	char q[QUOTE_CUT_SIZE];
	int ret = -1;

	if (!config_setting_is_group(e))
		return config_key_error(ld, e, k, "each entry is a group "
		                        "{ name = ...; regex = ...; }, not %s",
		                        config_kind_name(e));
	if (config_apply_members(ld, e, "results.patterns", IN_PATTERN,
	                         &p) != 0)
		goto cleanup;
	if (!p.name || !p.regex)
		config_key_error(ld, e, k, "each entry needs a name and a "
		                 "regex");
	else if (!valid_pattern_name(p.name))
		config_key_error(ld, e, k, "pattern name %s is not letters, "
		                 "digits and '_'", quote_cut(p.name, q));
	else if (!strncmp(p.name, "pattern_", 8))
		config_key_error(ld, e, k, "pattern name %s: names starting "
		                 "with 'pattern_' are kept for the columns of "
		                 "patterns named like a column of results.csv",
		                 quote_cut(p.name, q));
	else if (check_regex(ld, k, e, p.regex) == 0)
		ret = 0;
	if (ret == 0) {
		pattern_merge(ld->c, &p);
		return 0;
	}
cleanup:
	free(p.name);
	free(p.regex);
	return ret;
}

/* results.patterns = ( { name = ...; regex = ...; }, ... ). */
int
config_apply_patterns(struct loader *ld, const struct config_key *k,
                      const config_setting_t *s)
{
	if (config_setting_is_group(s))
		return apply_pattern(ld, k, s);
	if (!config_is_list(s))
		return config_key_error(ld, s, k, "expects a list of groups, "
		                        "not %s", config_kind_name(s));
	return config_apply_entries(ld, k, s, "pattern", apply_pattern);
}
