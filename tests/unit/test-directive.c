/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* test-directive.c - slurm.directives as paratune applies them. */
#include "autoconfig.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "directive.h"
#include "harness.h"
#include "strbuf.h"

/* Add each directive to x; all must be accepted. */
static void
add_ok(struct sbatch_extras *x, const char *const *d)
{
	struct strbuf err = STRBUF_INIT;

	for (; *d; d++) {
		CU_ASSERT_EQUAL(sbatch_extras_add(x, *d, &err), 0);
		if (err.len)
			fprintf(stderr, "unexpected: %s\n", err.buf);
		strbuf_reset(&err);
	}
	strbuf_release(&err);
}

/* d must be refused with a message holding want. */
static void
add_refused(const char *d, const char *want)
{
	struct sbatch_extras x = { 0 };
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_EQUAL(sbatch_extras_add(&x, d, &err), -1);
	if (!strstr(err.buf, want))
		fprintf(stderr, "'%s': got \"%s\", wanted \"%s\"\n", d,
		        err.buf, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, want));
	strbuf_release(&err);
}

static void
test_fields(void)
{
	static const char *const d[] = {
		"--exclusive", "--mem=64G", "--mem-per-gpu=80000",
		"--cpus-per-task=12", "--cpus-per-gpu=8",
		"--constraint=h100&ib", "--nodelist=gpu[1-2]",
		"--licenses=scratch:1", "--wckey=llm", "--mail-user=a@b.org",
		"--mail-type=END,fail", "--signal=B:USR1@120",
		"--time-min=01:30:10", NULL,
	};
	struct sbatch_extras x = { 0 };

	add_ok(&x, d);
	CU_ASSERT_EQUAL(x.exclusive, EXCL_NODE);
	CU_ASSERT_EQUAL(x.mem_mb, 65536);
	CU_ASSERT_EQUAL(x.mem_per_gpu_mb, 80000);
	CU_ASSERT_EQUAL(x.cpus_per_task, 12);
	CU_ASSERT_EQUAL(x.cpus_per_gpu, 8);
	CU_ASSERT_STRING_EQUAL(x.constraint, "h100&ib");
	CU_ASSERT_STRING_EQUAL(x.nodelist, "gpu[1-2]");
	CU_ASSERT_STRING_EQUAL(x.licenses, "scratch:1");
	CU_ASSERT_STRING_EQUAL(x.wckey, "llm");
	CU_ASSERT_STRING_EQUAL(x.mail_user, "a@b.org");
	CU_ASSERT_EQUAL(x.mail_type, MAIL_END | MAIL_FAIL);
	CU_ASSERT_EQUAL(x.signal, SIGUSR1);
	CU_ASSERT_EQUAL(x.signal_time, 120);
	CU_ASSERT_TRUE(x.signal_batch_only);
	CU_ASSERT_EQUAL(x.time_min, 91); /* 1:30:10 rounds up */
}

static void
test_units_and_defaults(void)
{
	static const char *const d[] = {
		"--mem=0", "--mem-per-cpu=512K", "--signal=SIGTERM",
		"--time-min=45", "--mail-type=ALL", NULL,
	};
	struct sbatch_extras x = { 0 };
	struct sbatch_extras y = { 0 };
	static const char *const e[] = { "--mem=2TB", "--signal=10", NULL };

	add_ok(&x, d);
	CU_ASSERT_EQUAL(x.mem_mb, 0); /* 0: all of a node's memory */
	CU_ASSERT_EQUAL(x.mem_per_cpu_mb, 1);
	CU_ASSERT_EQUAL(x.signal, SIGTERM);
	CU_ASSERT_EQUAL(x.signal_time, 60); /* sbatch's default */
	CU_ASSERT_FALSE(x.signal_batch_only);
	CU_ASSERT_EQUAL(x.time_min, 45);
	CU_ASSERT_EQUAL(x.mail_type,
	                MAIL_BEGIN | MAIL_END | MAIL_FAIL | MAIL_REQUEUE);
	add_ok(&y, e);
	CU_ASSERT_EQUAL(y.mem_mb, 2ULL * 1024 * 1024);
	CU_ASSERT_EQUAL(y.signal, 10);
}

/* What real clusters ask for: topology (leaf switches, NVLink
 * segments), network, CPU hints, nodes shared with one's own jobs
 * only. */
static void
test_site_directives(void)
{
	static const char *const d[] = {
		"--switches=1@10", "--network=sn_all", "--hint=nomultithread",
		"--exclusive=user", NULL,
	};
	static const char *const e[] = {
		"--switches=4", "--hint=memory_bound", "--exclusive=mcs",
		"--switches=2@0:30:00", "--segment=16", NULL,
	};
	struct sbatch_extras x = { 0 };
	struct sbatch_extras y = { 0 };

	add_ok(&x, d);
	CU_ASSERT_EQUAL(x.switches, 1);
	CU_ASSERT_EQUAL(x.switches_wait_s, 600);
	CU_ASSERT_STRING_EQUAL(x.network, "sn_all");
	CU_ASSERT_EQUAL(x.hint, HINT_NOMULTITHREAD);
	CU_ASSERT_STRING_EQUAL(cpu_hint_name(x.hint), "nomultithread");
	CU_ASSERT_EQUAL(x.exclusive, EXCL_USER);
	CU_ASSERT_EQUAL(x.segment, 0);
	add_ok(&y, e);
	CU_ASSERT_EQUAL(y.segment, 16);
	CU_ASSERT_EQUAL(y.switches, 2);
	CU_ASSERT_EQUAL(y.switches_wait_s, 1800);
	CU_ASSERT_EQUAL(y.hint, HINT_MEMORY_BOUND);
	CU_ASSERT_EQUAL(y.exclusive, EXCL_MCS);
	CU_ASSERT_PTR_NULL(cpu_hint_name(HINT_NONE));
}

static void
test_bad_values(void)
{
	add_refused("--mem=lots", "'--mem=lots': not a valid value for --mem");
	add_refused("--mem=", "not a valid value for --mem");
	add_refused("--mem", "not a valid value for --mem");
	add_refused("--mem=12X", "not a valid value");
	add_refused("--mem=99999999999999999999", "not a valid value");
	add_refused("--cpus-per-task=0", "not a valid value");
	add_refused("--cpus-per-task=-1", "not a valid value");
	add_refused("--cpus-per-gpu=70000", "not a valid value");
	add_refused("--exclusive=nobody", "not a valid value for --exclusive");
	add_refused("--switches=0", "not a valid value for --switches");
	add_refused("--switches=2@", "not a valid value for --switches");
	add_refused("--switches=2@soon", "not a valid value for --switches");
	add_refused("--switches", "not a valid value for --switches");
	add_refused("--segment=0", "not a valid value for --segment");
	add_refused("--segment=1.5", "not a valid value for --segment");
	add_refused("--segment", "not a valid value for --segment");
	add_refused("--hint=fast", "not a valid value for --hint");
	add_refused("--hint", "not a valid value for --hint");
	add_refused("--network=", "not a valid value for --network");
	add_refused("--mail-type=SOMETIMES", "not a valid value");
	add_refused("--mail-type=", "not a valid value");
	add_refused("--signal=WINCH", "not a valid value for --signal");
	add_refused("--signal=USR1@soon", "not a valid value");
	add_refused("--signal=0", "not a valid value");
	add_refused("--time-min=1:99:00", "not a valid value");
	add_refused("--constraint=", "not a valid value for --constraint");
}

static void
test_reserved_and_unknown(void)
{
	add_refused("--time=10", "--time is set by limits.max_minutes_per_run");
	add_refused("--partition=x", "--partition is set by slurm.partition");
	add_refused("--gres=gpu:8", "set by the campaign's 'gpus_per_node'");
	add_refused("--nodes=2", "set by the campaign's 'nodes'");
	add_refused("--requeue", "it retries a failed node itself");
	add_refused("--output=/tmp/x", "--output is set by paratune");
	add_refused("--export=ALL", "set by the 'env' key");
	add_refused("--frobnicate=1", "'--frobnicate=1' is not an option "
	            "paratune can give Slurm");
	add_refused("--frobnicate=1", "reads no #SBATCH line");
	add_refused("-N2", "is not an option paratune can give Slurm");
	add_refused("--", "is not an option");
}

static const struct harness_test directive_tests[] = {
	{ "every supported option reaches its field", test_fields },
	{ "units, defaults and numeric signals", test_units_and_defaults },
	{ "bad values are refused by name", test_bad_values },
	{ "site directives: switches, network, hint, exclusive=user",
	  test_site_directives },
	{ "options paratune sets, and unknown ones, are refused",
	  test_reserved_and_unknown },
	{ NULL, NULL },
};

static const struct harness_suite suites[] = {
	{ "directive", directive_tests },
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
