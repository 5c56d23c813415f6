/* test-model.c - (being written) */
#include "autoconfig.h"

#include "harness.h"

static const struct harness_suite suites[] = {
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return harness_main(argc, argv, suites);
}
