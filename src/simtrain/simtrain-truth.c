/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * simtrain-truth.c - a ground truth that is not the estimator's.
 *
 * paratune-simtrain predicts step time and memory with paratune's own
 * estimator, so on its own every prediction is right by construction and
 * no flaw of a search that learns from measurements can show.  A truth
 * file (PARATUNE_SIM_TRUTH, a CSV "name,step_s,peak_memory_gib" keyed by
 * candidate name; scripts/truth writes one) gives the candidate
 * PARATUNE_CANDIDATE (the job script exports it) a step time and a
 * peak memory of its own: the run takes that step time, with the
 * usual per-step jitter but without the estimator-based bias, and a
 * peak above the GPU's memory ends in CUDA's out-of-memory error as
 * a real run does.  A candidate the file does not name keeps the
 * estimator's figures, and the log says so.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtrain.h"
#include "util.h"

/* Split "name,step_s,peak" in place; 0, or -1 when malformed. */
static int
truth_row(char *line, char **name, double *step_s, double *peak_gib)
{
	char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;

	if (c2 == NULL || strchr(c2 + 1, ','))
		return -1;
	*c1 = *c2 = '\0';
	*name = line;
	return parse_double(c1 + 1, step_s) || parse_double(c2 + 1, peak_gib) ||
	       !(*step_s > 0) || !(*peak_gib > 0) ? -1 : 0;
}

/*
 * Look name up in path; 1 when found (figures set), 0 when not, -1
 * after a message when the file cannot be read or is malformed.
 */
static int
truth_lookup(const char *path, const char *name, double *step_s,
             double *peak_gib)
{
	FILE *f = fopen_regular(path);
	char line[1024];
	int lineno = 0, ret = 0;

	if (f == NULL) {
		fprintf(stderr, "%s: warning: cannot read truth file "
		        "'%s': %s\n", SIMTRAIN_PROG, path, open_error(errno));
		return -1;
	}
	while (ret == 0 && fgets(line, sizeof line, f)) {
		char *row_name;
		size_t len = strlen(line);

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (lineno == 1 && !strcmp(line, "name,step_s,peak_memory_gib"))
			continue;
		if (truth_row(line, &row_name, step_s, peak_gib) != 0) {
			fprintf(stderr, "%s: warning: %s:%d: not "
			        "\"name,step_s,peak_memory_gib\"\n",
			        SIMTRAIN_PROG, path, lineno);
			ret = -1;
		} else if (!strcmp(row_name, name)) {
			ret = 1;
		}
	}
	fclose(f);
	return ret;
}

/* Scale every part of the memory breakdown so that it adds up to total. */
static void
scale_memory(struct memory_breakdown *m, double total)
{
	double k = m->total > 0 ? total / m->total : 1.0;

	m->weights *= k;
	m->gradients *= k;
	m->optimizer *= k;
	m->activations *= k;
	m->buffers *= k;
	m->total = total;
}

int
simtrain_apply_truth(struct simtrain_job *j)
{
	const char *path = getenv("PARATUNE_SIM_TRUTH");
	const char *name = getenv("PARATUNE_CANDIDATE");
	double step_s, peak_gib;
	int found;

	if (path == NULL || *path == '\0')
		return 0;
	if (name == NULL || *name == '\0') {
		fprintf(stderr, "%s: warning: PARATUNE_SIM_TRUTH without "
		        "PARATUNE_CANDIDATE: the estimator's figures\n",
		        SIMTRAIN_PROG);
		return 0;
	}
	found = truth_lookup(path, name, &step_s, &peak_gib);
	if (found <= 0) {
		if (found == 0)
			fprintf(stderr, "%s: warning: candidate %s is not in "
			        "truth file '%s': the estimator's figures\n",
			        SIMTRAIN_PROG, name, path);
		return 0;
	}
	j->est.step_s = step_s;
	scale_memory(&j->est.mem, peak_gib * GIB);
	j->truth = true;
	return 1;
}
