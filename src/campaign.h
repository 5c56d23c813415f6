/*
 * campaign.h - the campaign directory that `plan` writes and every later
 * command reads.
 *
 *   DIR/campaign.conf   the resolved campaign, frozen at plan time
 *   DIR/candidates.csv  every kept candidate with its estimates
 *   DIR/plan.txt        the plan's summary, as printed
 *   DIR/state           where each candidate stands (state.h)
 *   DIR/journal.log     one line per event, appended (state.h)
 *   DIR/runs/NAME/      one directory per candidate
 */
#ifndef PARATUNE_CAMPAIGN_H
#define PARATUNE_CAMPAIGN_H

#include <stdbool.h>

#include "config.h"
#include "grid.h"

/*
 * Create DIR with everything plan produces.  It is built in a temporary
 * directory beside DIR and renamed into place when complete, so DIR is
 * either absent or whole.  An existing DIR is an error unless force.
 * Returns 0 or -1 after an error message.
 */
int campaign_dir_create(const char *dir, const struct campaign *c,
                        const struct grid_result *res, const char *summary,
                        bool force);

/* One row of candidates.csv as read back. */
struct candidate_row {
	int rank;
	char name[192];
	struct layout layout;
	double est_memory_gib;
	enum memory_status memory_status;
	double pred_step_s, pred_tflops_per_gpu, pred_mfu;
	bool base;
	/* The layout's switches came from the file: false for a campaign
	 * planned by paratune 0.1.0, whose file has no such columns. */
	bool switches_known;
};

struct candidate_table {
	struct candidate_row *v;
	int n;
	size_t alloc;
};

/* Read DIR/candidates.csv; -1 after an error naming file and line, the
 * table then empty. */
int campaign_read_candidates(const char *dir, struct candidate_table *t);
void candidate_table_release(struct candidate_table *t);

/* The "{family}_{size}b_{nodes}nodes" part of candidate names. */
void campaign_name_prefix(const struct campaign *c, char *buf, size_t len);

#endif
