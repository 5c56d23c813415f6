/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-suggest.c - "did you mean" for a misspelt key or value.
 *
 * A typo is judged by edit distance with a budget that grows with the
 * word; a name the user knows from elsewhere (--tp, Megatron-LM's
 * --tensor-model-parallel-size, NeMo's tensor_parallel_sizes) maps to
 * its key through an alias table, since no typo budget reaches it.
 */
#include "autoconfig.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"
#include "xalloc.h"

/* ASCII lower case; the locale must not change what a typo is. */
static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Optimal string alignment distance (Damerau-Levenshtein with adjacent
 * transpositions), ignoring case. */
static int
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *rows = xcalloc(3 * (lb + 1), sizeof(*rows));
	int *prev2 = rows, *prev = rows + lb + 1, *cur = rows + 2 * (lb + 1);
	int d;

	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int *t;

		cur[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = lower(a[i - 1]), cb = lower(b[j - 1]);
			int best = prev[j - 1] + (ca != cb);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == lower(b[j - 2]) &&
			    lower(a[i - 2]) == cb && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(rows);
	return d;
}

/*
 * The most edits that still read as a typo of word: one for very short
 * words, where two edits turn anything into anything, then about one in
 * four characters (git's help.c uses a similar length-scaled cut-off).
 */
static int
typo_budget(const char *word)
{
	size_t n = strlen(word);

	return n <= 3 ? 1 : n <= 8 ? 2 : 3;
}

/* Whether cand starts with word, ignoring case. */
static bool
has_prefix(const char *cand, const char *word)
{
	for (; *word; word++, cand++)
		if (lower(*word) != lower(*cand))
			return false;
	return true;
}

/* Index of the closest candidate, or -1: see config_closest. */
static int
closest_index(const char *word, const char *const *cands, int n)
{
	int best = -1, best_d = INT_MAX;
	size_t best_len = SIZE_MAX;

	for (int i = 0; i < n; i++) {
		int d = edit_distance(word, cands[i]);

		if (d <= typo_budget(word) && d < (int)strlen(cands[i]) &&
		    d < best_d) {
			best = i;
			best_d = d;
		}
	}
	if (best >= 0 || strlen(word) < 3)
		return best;
	/* A truncated name ("llama3" for "llama3_8b"): the shortest one. */
	for (int i = 0; i < n; i++)
		if (has_prefix(cands[i], word) && strlen(cands[i]) < best_len) {
			best = i;
			best_len = strlen(cands[i]);
		}
	return best;
}

/* Public: see config.h. */
const char *
config_closest(const char *word, const char *const *cands, int n)
{
	int i = closest_index(word, cands, n);

	return i < 0 ? NULL : cands[i];
}

/*
 * How far cands[i] is from word for a suggestion: -1 for a name that
 * word begins ("h100" for "h100-sxm" and "h100-pcie", which a typo
 * budget of two would pass over for "h200"), otherwise the edit
 * distance; INT_MAX when too far to suggest.
 */
static int
suggestion_distance(const char *word, const char *cand)
{
	int d;

	if (strlen(word) >= 3 && strlen(cand) > strlen(word) &&
	    has_prefix(cand, word))
		return -1;
	d = edit_distance(word, cand);
	return d > typo_budget(word) || d >= (int)strlen(cand) ? INT_MAX : d;
}

/*
 * Append " (did you mean 'a'?)" or " (did you mean 'a', 'b' or 'c'?)":
 * up to three candidates, the names word begins first (in their
 * order), then those within the typo budget, closest first; nothing
 * when none is close.
 */
void
config_suggest_names(struct strbuf *sb, const char *word,
                     const char *const *cands, int n)
{
	int pick[3], dist[3], npick = 0;

	for (int i = 0; i < n; i++) {
		int d = suggestion_distance(word, cands[i]), j;

		if (d == INT_MAX)
			continue;
		for (j = npick; j > 0 && dist[j - 1] > d; j--)
			if (j < 3) {
				pick[j] = pick[j - 1];
				dist[j] = dist[j - 1];
			}
		if (j < 3) {
			pick[j] = i;
			dist[j] = d;
			if (npick < 3)
				npick++;
		}
	}
	if (npick == 0)
		return;
	strbuf_addf(sb, " (did you mean '%s'", cands[pick[0]]);
	for (int j = 1; j < npick; j++)
		strbuf_addf(sb, "%s'%s'", j == npick - 1 ? " or " : ", ",
		            cands[pick[j]]);
	strbuf_addstr(sb, "?)");
}

/*
 * Names of a key's last part that users bring from elsewhere, with the
 * key they mean: paratune's own flags and CSV columns (--tp, mbs),
 * Megatron-LM's arguments (--tensor-model-parallel-size, --seq-length)
 * and NeMo Auto Configurator's (tensor_parallel_sizes, num_nodes).
 * Too far from their key for a typo, they would otherwise get no
 * suggestion or a wrong one ("search.vpp": 'search.fsdp').
 */
static const struct key_alias {
	const char *alias, *key;
} key_aliases[] = {
	{ "tp", "tensor_parallel" },
	{ "tensor_model_parallel_size", "tensor_parallel" },
	{ "tensor_parallel_size", "tensor_parallel" },
	{ "tensor_parallel_sizes", "tensor_parallel" },
	{ "pp", "pipeline_parallel" },
	{ "pipeline_model_parallel_size", "pipeline_parallel" },
	{ "pipeline_parallel_size", "pipeline_parallel" },
	{ "pipeline_parallel_sizes", "pipeline_parallel" },
	{ "cp", "context_parallel" },
	{ "context_parallel_size", "context_parallel" },
	{ "context_parallel_sizes", "context_parallel" },
	{ "ep", "expert_parallel" },
	{ "expert_model_parallel_size", "expert_parallel" },
	{ "expert_parallel_size", "expert_parallel" },
	{ "expert_parallel_sizes", "expert_parallel" },
	{ "etp", "expert_tensor_parallel" },
	{ "expert_tensor_parallel_size", "expert_tensor_parallel" },
	{ "expert_tensor_parallel_sizes", "expert_tensor_parallel" },
	{ "vp", "virtual_pipeline" },
	{ "vpp", "virtual_pipeline" },
	{ "virtual_pipeline_model_parallel_size", "virtual_pipeline" },
	{ "virtual_pipeline_parallel_size", "virtual_pipeline" },
	{ "virtual_pipeline_parallel_sizes", "virtual_pipeline" },
	{ "mbs", "micro_batch_size" },
	{ "micro_batch_sizes", "micro_batch_size" },
	{ "gbs", "global_batch_size" },
	{ "global_batch_sizes", "global_batch_size" },
	{ "seq_len", "seq_length" },
	{ "sequence_length", "seq_length" },
	{ "encoder_seq_length", "seq_length" },
	{ "recompute_layers", "recompute_num_layers" },
	{ "recompute_granularity", "recompute" },
	{ "num_nodes", "nodes" },
	{ "num_gpus_per_node", "gpus_per_node" },
	{ "devices", "gpus_per_node" },
};

/* Whether a and b are the same name, ignoring case, with '-' read as
 * '_' (libconfig allows both in a name). */
static bool
same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int ca = *a == '-' ? '_' : lower(*a);
		int cb = *b == '-' ? '_' : lower(*b);

		if (ca != cb)
			return false;
	}
	return *a == *b;
}

/* The key that word (a last part) is another name of, or NULL. */
static const char *
alias_target(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_aliases); i++)
		if (same_name(word, key_aliases[i].alias))
			return key_aliases[i].key;
	return NULL;
}

/* The key of in whose last part is name: one in the group of path
 * (plen long) first, then for a campaign any key outside a member
 * group, in registry order (search's before base's); or NULL. */
static const char *
key_named(const char *name, const char *path, size_t plen, enum key_in in)
{
	const struct config_key *any = NULL;

	for (size_t k = 0; k < config_nkeys; k++) {
		const struct config_key *c = &config_registry[k];

		if (c->in != in || strcmp(config_last_part(c->path), name))
			continue;
		if (config_key_in_group(c, path, plen))
			return c->path;
		if (!any && in == IN_CAMPAIGN && !(c->flags & F_MEMBER))
			any = c;
	}
	return any ? any->path : NULL;
}

/* Whether key is a group above path ("search" above "search.ep"), which
 * is no suggestion for it. */
static bool
is_ancestor(const char *key, const char *path)
{
	size_t n = strlen(key);

	return !strncmp(key, path, n) && path[n] == '.';
}

/* Keys weighed for a suggestion, as indexes into the registry, with
 * the names they are judged by: room for every key. */
struct key_choice {
	size_t *key;
	const char **name;
	int n;
};

/* Weigh registry key k, judged by name. */
static void
choice_add(struct key_choice *kc, size_t k, const char *name)
{
	kc->key[kc->n] = k;
	kc->name[kc->n++] = name;
}

/* The path of the choice whose name is closest to word, or NULL. */
static const char *
closest_choice(const struct key_choice *kc, const char *word)
{
	int i = closest_index(word, kc->name, kc->n);

	return i >= 0 ? config_registry[kc->key[i]].path : NULL;
}

/* See config_suggest_key: the steps after the aliases. */
static const char *
suggest_by_name(struct key_choice *kc, const char *path, enum key_in in)
{
	size_t plen = config_parent_len(path);
	const char *found;

	kc->n = 0;
	for (size_t k = 0; k < config_nkeys; k++)
		if (config_registry[k].in == in &&
		    config_key_in_group(&config_registry[k], path, plen))
			choice_add(kc, k,
			           config_last_part(config_registry[k].path));
	if ((found = closest_choice(kc, config_last_part(path))) != NULL ||
	    in != IN_CAMPAIGN)
		return found;
	kc->n = 0;
	for (size_t k = 0; k < config_nkeys; k++)
		if (!(config_registry[k].flags & F_MEMBER) &&
		    !config_key_in_group(&config_registry[k], path, plen) &&
		    !is_ancestor(config_registry[k].path, path))
			choice_add(kc, k, config_registry[k].path);
	if ((found = closest_choice(kc, path)) != NULL)
		return found;
	for (int i = 0; i < kc->n; i++) {
		const struct config_key *c = &config_registry[kc->key[i]];

		kc->name[i] = config_last_part(c->path);
	}
	return closest_choice(kc, config_last_part(path));
}

/*
 * The registry path closest to an unknown one: the key it is another
 * name of (key_aliases), a sibling in the same group ("search.tensor_
 * paralel"), then any path in another group ("serch.tp"; a sibling was
 * judged by its last part already), then any key by its last part
 * ("tensor_parallel" at the top level).  Inside a model, gpus or
 * patterns group only siblings count.
 */
const char *
config_suggest_key(const char *path, enum key_in in)
{
	const char *alias = alias_target(config_last_part(path));
	struct key_choice kc;
	const char *found;

	if (alias &&
	    (alias = key_named(alias, path, config_parent_len(path), in)))
		return alias;
	kc.key = xcalloc(config_nkeys, sizeof(*kc.key));
	kc.name = xcalloc(config_nkeys, sizeof(*kc.name));
	found = suggest_by_name(&kc, path, in);
	free(kc.key);
	free(kc.name);
	return found;
}
