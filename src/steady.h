/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * steady.h - when a run's step time is known: the rule that lets
 * `paratune watch` end a training run early.
 *
 * The steps measured are those results measure: the timed steps of the
 * log at its last global batch size (a ramp-up's are not), after the
 * same warm-up (log_result_step_stats, results.skip_steps: by default
 * the first 10 % and at least one).  The step time is known
 * when the 95 % confidence interval of their mean is within +-rel of it
 * (1 % for watch), with at least STEADY_MIN_STEPS and min_steps of them.
 *
 * The interval is Student's t on the mean with the sample size reduced
 * for serial correlation: step times drift (clocks, thermal throttling,
 * a neighbour's traffic), so neighbouring steps are alike and n of them
 * carry less than n independent samples' worth.  With r1 the lag-1
 * autocorrelation, the effective size is n (1 - r1) / (1 + r1), the
 * AR(1) approximation of Zwiers and von Storch, "Taking serial
 * correlation into account in tests of the mean", J. Climate 8 (1995)
 * 336-351; a negative r1 is taken as 0 (no credit for anticorrelation).
 * r1 is first corrected for its small-sample bias, and steps that are
 * positively correlated must be worth STEADY_MIN_EFF independent ones,
 * with the means of their two halves within the interval of each other
 * (steady.c, steady_settled): without, a drifting run was stopped on
 * its first few steps that lay close together, with a mean more than
 * the interval off in 4 stops out of 10 (tests/unit/test-logparse.c).
 */
#ifndef PARATUNE_STEADY_H
#define PARATUNE_STEADY_H

#include <stdbool.h>

#include "logparse.h"

/* Fewest measured steps for a verdict: r1 needs a few to mean anything. */
#define STEADY_MIN_STEPS 10
/* Fewest independent samples' worth that positively correlated steps
 * must be (steady.c, steady_settled). */
#define STEADY_MIN_EFF 20

struct steady {
	bool known;        /* the half-width is within rel of the mean */
	int measured;      /* steps after the warm-up, timed above zero */
	int dropped;       /* steps after the warm-up timed at zero or less
	                      (under LOGPARSE_STEP_S_MIN): left out */
	int skipped;       /* warm-up steps dropped */
	double mean_s;     /* NAN when measured == 0 */
	double half_rel;   /* half-width / mean; NAN when there is none */
	double r1;         /* lag-1 autocorrelation; NAN under 3 steps */
	double n_eff;      /* effective sample size */
	double halves_rel; /* |mean of the second half of the measured steps
	                      - mean of the first| / mean; NAN under 2 */
	long last_step;    /* the last step logged; -1 when none */
};

/* Student's t quantile for a two-sided 95 % interval, df >= 1. */
double steady_t95(double df);

/*
 * Judge r's step times: skip_steps as results.skip_steps (-1: the
 * default warm-up), at least min_steps measured, half-width within rel
 * (0.01 for +-1 %).  Pure arithmetic on r's steps.
 */
void steady_check(const struct log_result *r, int skip_steps, int min_steps,
                  double rel, struct steady *out);

#endif
