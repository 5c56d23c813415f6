/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * plan.h - a planned campaign in memory: the loaded configuration, the
 * ranked grid and the base configuration.  `plan` writes it out;
 * `estimate` reads its base.
 */
#ifndef PARATUNE_PLAN_H
#define PARATUNE_PLAN_H

#include <stdbool.h>

#include "config.h"
#include "grid.h"
#include "json.h"
#include "strbuf.h"
#include "strlist.h"

struct plan {
	struct settings settings;
	struct workload workload;
	struct grid_spec spec;
	struct grid_result res;
	char prefix[128];        /* candidate name prefix */
	int base;                /* index of the base in res.v */
	const char *base_source; /* why that layout is the base */
	double seconds;          /* time spent in the grid */
	struct strbuf summary;   /* what plan prints after the candidates */
};

/* What plan_build takes from the command line. */
struct plan_opts {
	const char *site_path;   /* --site, or NULL */
	bool quiet;              /* -q: no progress line */
	bool progress;           /* --progress: one even off a terminal */
	bool searched_only;      /* plan, which writes what it keeps:
	                            refuse a grid that kept nothing, even
	                            with a valid base, and a
	                            search.max_candidates above
	                            PLAN_KEPT_MAX */
};

/*
 * The most candidates plan keeps and writes, each with a run directory
 * and a job script: 10,000 take 126 MB and seconds (bench-plan.sh), and
 * 339,968 took 4.2 GB and 96 s.  Only plan applies it: the key's range
 * stays 1e9 so that a campaign frozen with more still loads.
 */
#define PLAN_KEPT_MAX 100000
/* The options of a command's struct cmd_ctx, as a compound literal
 * (needs cmd.h where it is used: the library does not know the command
 * layer). */
#define PLAN_OPTS(ctx) ((struct plan_opts){ (ctx)->site_path, \
	(ctx)->verbosity < 0, (ctx)->progress != 0, false })

/*
 * Load the campaign at path (with o's site and the --set settings), run
 * the grid and pick the base.  Returns EXIT_OK or the exit code after
 * the error was printed; on success release with plan_release.
 */
int plan_build(struct plan *p, const struct plan_opts *o, const char *path,
               const struct str_list *settings);
void plan_release(struct plan *p);

/*
 * Sequence parallelism, the distributed optimizer and the attention of l
 * as campaign c searches them, for l's tp: each its default when the
 * search holds it, else the value searched (search.sequence_parallel
 * "auto" or unset: on when tp > 1; never on with tp 1).  The base and
 * `estimate` take them from here so that neither shows what the
 * campaign does not search.
 */
void plan_search_switches(const struct settings *c, struct layout *l);

/* JSON of the grid statistics ("examined", "invalid", ...). */
void plan_stats_json(struct json *j, const struct plan *p);
/* JSON object of one candidate (memory breakdown included). */
void plan_candidate_json(struct json *j, const struct candidate *c,
                         enum precision precision);

#endif
