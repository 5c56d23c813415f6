/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * fuzz-state.c - libFuzzer target: the state file and journal readers on
 * arbitrary bytes.  Either they load or they say which line is wrong.
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-put.h"
#include "store-int.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each line as the store reads it: parsed as an event. */
static int
count(const struct journal_entry *e, const char *path, void *arg)
{
	struct store_event ev;

	++*(long *)arg;
	return store_event_parse(e, path, &ev);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/paratune-fuzz-XXXXXX";
	struct state st;
	char *state_path, *journal_path;
	long n = 0;

	if (mkdtemp(dir) == NULL)
		return 0;
	state_path = fuzz_put(dir, "state", data, size);
	journal_path = fuzz_put(dir, "journal.log", data, size);
	if (state_load(dir, &st) == 0) {
		for (int i = 0; i < st.n; i++)
			if (cand_state_name(st.v[i].state)[0] == '?')
				abort();
		state_release(&st);
	}
	journal_replay(dir, 0, count, &n);
	unlink(state_path);
	unlink(journal_path);
	free(state_path);
	free(journal_path);
	rmdir(dir);
	return 0;
}
