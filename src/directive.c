/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* directive.c - slurm.directives parsed into what libslurm is given. */
#include "autoconfig.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "directive.h"
#include "strbuf.h"
#include "util.h"

const char sbatch_extras_supported[] =
	"--exclusive[=user|mcs], --mem, --mem-per-cpu, --mem-per-gpu, "
	"--cpus-per-task, --cpus-per-gpu, --constraint, --nodelist, "
	"--licenses, --wckey, --mail-user, --mail-type, --signal, --time-min, "
	"--switches, --segment, --network, --hint";

/* Options paratune sets itself, and where from: a directive naming one
 * would be a second, conflicting, source for the same field. */
static const struct {
	const char *option, *owner;
} reserved[] = {
	{ "nodes", "the campaign's 'nodes'" },
	{ "ntasks", "the campaign's 'gpus_per_node' (one task per GPU)" },
	{ "ntasks-per-node", "the campaign's 'gpus_per_node'" },
	{ "gpus", "the campaign's 'gpus_per_node'" },
	{ "gpus-per-node", "the campaign's 'gpus_per_node'" },
	{ "gpus-per-task", "the campaign's 'gpus_per_node'" },
	{ "gres", "the campaign's 'gpus_per_node' and slurm.gpu_type" },
	{ "time", "limits.max_minutes_per_run" },
	{ "partition", "slurm.partition" },
	{ "account", "slurm.account" },
	{ "qos", "slurm.qos" },
	{ "reservation", "slurm.reservation" },
	{ "exclude", "paratune (the nodes a failed run died on)" },
	{ "job-name", "paratune (the job's tag)" },
	{ "comment", "paratune (the candidate's name)" },
	{ "output", "paratune (DIR/runs/NAME/slurm-%j.out)" },
	{ "error", "paratune (DIR/runs/NAME/slurm-%j.out)" },
	{ "chdir", "paratune (the run directory)" },
	{ "export", "the 'env' key" },
	{ "requeue", "paratune (it retries a failed node itself)" },
	{ "no-requeue", "paratune (it never lets Slurm requeue)" },
	{ "hold", "paratune" },
	{ "array", "paratune (one job per candidate)" },
	{ "dependency", "paratune (max_concurrent_jobs)" },
};

/* An unsigned decimal in [0, max]; 0 when it is, -1 when not. */
static int
parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return (errno || *end || *out > max) ? -1 : 0;
}

/* A memory size as sbatch reads it: a number, megabytes unless a K, M,
 * G or T follows (an optional trailing B allowed). */
static int
parse_mem_mb(const char *s, uint64_t *mb)
{
	char num[32];
	size_t n = strspn(s, "0123456789");
	unsigned long long v;
	const char *unit = s + n;

	if (n == 0 || n >= sizeof num)
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_uint(num, UINT64_MAX / (1024ULL * 1024), &v))
		return -1;
	switch (toupper((unsigned char)*unit)) {
	case '\0': case 'M': *mb = v; break;
	case 'K': *mb = (v + 1023) / 1024; break;
	case 'G': *mb = v * 1024; break;
	case 'T': *mb = v * 1024 * 1024; break;
	default: return -1;
	}
	if (*unit)
		unit++;
	if (toupper((unsigned char)*unit) == 'B')
		unit++;
	return *unit ? -1 : 0;
}

/* Minutes, or HH:MM:SS (rounded up to the minute). */
static int
parse_minutes(const char *s, unsigned *min)
{
	unsigned long long part[3];
	char buf[32];
	char *p = buf, *colon;
	int n = 0;

	if (strlen(s) >= sizeof buf)
		return -1;
	memcpy(buf, s, strlen(s) + 1);
	for (;;) {
		if (n == 3)
			return -1;
		colon = strchr(p, ':');
		if (colon)
			*colon = '\0';
		if (parse_uint(p, 60ULL * 24 * 365, &part[n++]))
			return -1;
		if (colon == NULL)
			break;
		p = colon + 1;
	}
	if (n == 1) {
		*min = (unsigned)part[0];
		return 0;
	}
	if (n != 3 || part[1] >= 60 || part[2] >= 60 || part[0] > 24ULL * 365)
		return -1;
	*min = (unsigned)(part[0] * 60 + part[1] + (part[2] > 0));
	return 0;
}

static const struct {
	const char *name;
	unsigned bits;
} mail_events[] = {
	{ "NONE", 0 },
	{ "BEGIN", MAIL_BEGIN },
	{ "END", MAIL_END },
	{ "FAIL", MAIL_FAIL },
	{ "REQUEUE", MAIL_REQUEUE },
	{ "ALL", MAIL_BEGIN | MAIL_END | MAIL_FAIL | MAIL_REQUEUE },
	{ "TIME_LIMIT", MAIL_TIME_LIMIT },
	{ "TIME_LIMIT_90", MAIL_TIME_LIMIT_90 },
	{ "TIME_LIMIT_80", MAIL_TIME_LIMIT_80 },
	{ "TIME_LIMIT_50", MAIL_TIME_LIMIT_50 },
};

/* A comma-separated list of mail events. */
static int
parse_mail_type(const char *s, unsigned *bits)
{
	*bits = 0;
	if (!*s)
		return -1;
	while (*s) {
		size_t n = strcspn(s, ",");
		size_t i;

		for (i = 0; i < sizeof mail_events / sizeof mail_events[0]; i++)
			if (strlen(mail_events[i].name) == n &&
			    strncasecmp(s, mail_events[i].name, n) == 0)
				break;
		if (n == 0 || i == sizeof mail_events / sizeof mail_events[0])
			return -1;
		*bits |= mail_events[i].bits;
		s += n + (s[n] == ',');
	}
	return 0;
}

/* A signal by name (with or without SIG) or number. */
static int
parse_signal_name(const char *s, size_t n, int *sig)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
		{ "TERM", SIGTERM }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
		{ "KILL", SIGKILL }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
		{ "URG", SIGURG }, { "ALRM", SIGALRM },
	};
	char buf[16];
	unsigned long long v;

	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (isdigit((unsigned char)buf[0])) {
		if (parse_uint(buf, 64, &v) || v == 0)
			return -1;
		*sig = (int)v;
		return 0;
	}
	s = strncasecmp(buf, "SIG", 3) == 0 ? buf + 3 : buf;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcasecmp(s, names[i].name) == 0) {
			*sig = names[i].sig;
			return 0;
		}
	return -1;
}

/* Public: see directive.h. */
int
directive_signal(const char *name, int *sig)
{
	return parse_signal_name(name, strlen(name), sig);
}

/* --signal=[B:]SIG[@TIME]: TIME seconds before the limit, 60 if unset. */
static int
parse_signal(struct sbatch_extras *x, const char *s)
{
	const char *at;
	unsigned long long t = 60;

	x->signal_batch_only = strncasecmp(s, "B:", 2) == 0;
	if (x->signal_batch_only)
		s += 2;
	at = strchr(s, '@');
	if (parse_signal_name(s, at ? (size_t)(at - s) : strlen(s),
	                      &x->signal))
		return -1;
	if (at && parse_uint(at + 1, 65535, &t))
		return -1;
	x->signal_time = (unsigned)t;
	return 0;
}

/* --switches=COUNT[@MAX_TIME]: the time in minutes or HH:MM:SS. */
static int
parse_switches(struct sbatch_extras *x, const char *s)
{
	char num[16];
	size_t n = strcspn(s, "@");
	unsigned long long v;
	unsigned min = 0;

	if (n == 0 || n >= sizeof num)
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_uint(num, 65535, &v) || v == 0)
		return -1;
	if (s[n] == '@' && parse_minutes(s + n + 1, &min))
		return -1;
	x->switches = (unsigned)v;
	x->switches_wait_s = min * 60;
	return 0;
}

static const char *const hint_names[] = {
	[HINT_NONE] = NULL,
	[HINT_COMPUTE_BOUND] = "compute_bound",
	[HINT_MEMORY_BOUND] = "memory_bound",
	[HINT_MULTITHREAD] = "multithread",
	[HINT_NOMULTITHREAD] = "nomultithread",
};

const char *
cpu_hint_name(enum cpu_hint h)
{
	return (unsigned)h < sizeof hint_names / sizeof hint_names[0]
	       ? hint_names[h] : NULL;
}

static int
parse_hint(const char *s, enum cpu_hint *h)
{
	for (size_t i = 1; i < sizeof hint_names / sizeof hint_names[0]; i++)
		if (strcmp(s, hint_names[i]) == 0) {
			*h = (enum cpu_hint)i;
			return 0;
		}
	return -1;
}

/* --exclusive, --exclusive=user, --exclusive=mcs. */
static int
parse_exclusive(const char *s, enum exclusive_mode *m)
{
	if (s == NULL)
		*m = EXCL_NODE;
	else if (strcmp(s, "user") == 0)
		*m = EXCL_USER;
	else if (strcmp(s, "mcs") == 0)
		*m = EXCL_MCS;
	else
		return -1;
	return 0;
}

/* Options whose value is kept as given: whether name is one (its field
 * then set to value). */
static bool
set_string(struct sbatch_extras *x, const char *name, const char *value)
{
	static const char *const names[] = {
		"constraint", "nodelist", "licenses", "wckey", "mail-user",
		"network",
	};
	const char **fields[] = {
		&x->constraint, &x->nodelist, &x->licenses, &x->wckey,
		&x->mail_user, &x->network,
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0) {
			*fields[i] = value;
			return true;
		}
	return false;
}

/* A CPU count, or a segment's nodes, in [1, 65535]. */
static int
parse_cpus(const char *s, unsigned *cpus)
{
	unsigned long long v;

	if (parse_uint(s, 65535, &v) || v == 0)
		return -1;
	*cpus = (unsigned)v;
	return 0;
}

/* Apply "--NAME=VALUE" (value NULL for a bare "--NAME"): 0, -1 for a
 * bad value, -2 for an unknown option. */
static int
apply(struct sbatch_extras *x, const char *name, const char *value)
{
	if (strcmp(name, "exclusive") == 0)
		return parse_exclusive(value, &x->exclusive);
	if (set_string(x, name, value))
		return value && *value ? 0 : -1;
	if (value == NULL || !*value)
		value = "";  /* a known option's bad value, or unknown: -2 */
	if (strcmp(name, "mem") == 0)
		return parse_mem_mb(value, &x->mem_mb);
	if (strcmp(name, "mem-per-cpu") == 0)
		return parse_mem_mb(value, &x->mem_per_cpu_mb);
	if (strcmp(name, "mem-per-gpu") == 0)
		return parse_mem_mb(value, &x->mem_per_gpu_mb);
	if (strcmp(name, "cpus-per-task") == 0)
		return parse_cpus(value, &x->cpus_per_task);
	if (strcmp(name, "cpus-per-gpu") == 0)
		return parse_cpus(value, &x->cpus_per_gpu);
	if (strcmp(name, "time-min") == 0)
		return parse_minutes(value, &x->time_min);
	if (strcmp(name, "mail-type") == 0)
		return parse_mail_type(value, &x->mail_type);
	if (strcmp(name, "signal") == 0)
		return parse_signal(x, value);
	if (strcmp(name, "switches") == 0)
		return parse_switches(x, value);
	if (strcmp(name, "hint") == 0)
		return parse_hint(value, &x->hint);
	if (strcmp(name, "segment") == 0)
		return parse_cpus(value, &x->segment);
	return -2;
}

int
sbatch_extras_add(struct sbatch_extras *x, const char *directive,
                  struct strbuf *err)
{
	char name[64], q[QUOTE_CUT_SIZE];
	const char *eq, *value = NULL;
	size_t n;
	int r;

	/* A long directive is cut in the message, which must still say
	 * why. */
	quote_cut(directive, q);
	if (strncmp(directive, "--", 2) != 0)
		goto unknown;
	eq = strchr(directive, '=');
	n = eq ? (size_t)(eq - directive) - 2 : strlen(directive) - 2;
	if (n == 0 || n >= sizeof name)
		goto unknown;
	memcpy(name, directive + 2, n);
	name[n] = '\0';
	if (eq)
		value = eq + 1;
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		if (strcmp(name, reserved[i].option) == 0) {
			strbuf_addf(err, "%s: --%s is set by %s", q, name,
			            reserved[i].owner);
			return -1;
		}
	r = apply(x, name, value);
	if (r == -1)
		strbuf_addf(err, "%s: not a valid value for --%s", q, name);
	if (r != -2)
		return r ? -1 : 0;
unknown:
	strbuf_addf(err, "%s is not an option paratune can give Slurm "
	            "(it submits through libslurm, which reads no #SBATCH "
	            "line); it accepts %s", q, sbatch_extras_supported);
	return -1;
}
