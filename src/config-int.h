/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-int.h - what the files of the configuration module share: the
 * key registry's types (config-registry.c), the loader's state and error
 * helpers (config.c), reading one setting (config-values.c), the lists
 * handed on to the job (config-env.c), the model, GPU and pattern
 * groups (config-model.c, config-gpu.c, config-patterns.c), values
 * read back out (config-visit.c), the "did you mean" suggestions
 * (config-suggest.c), provenance (config-write.c) and the @include
 * check (config-include.c).
 * Only config*.c include it.
 */
#ifndef PARATUNE_CONFIG_INT_H
#define PARATUNE_CONFIG_INT_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "config.h"
#include "model.h"
#include "strbuf.h"

/* The number of entries of a static table. */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the registry (config-registry.c) ---------------------------------- */

/* How a value is written in a file and where it is stored. */
enum key_type {
	KT_GROUP,       /* a group of further keys */
	KT_INT,         /* int */
	KT_DOUBLE,      /* double; an integer is accepted */
	KT_BOOL,        /* bool */
	KT_STRING,      /* char *, owned */
	KT_NAME,        /* char[size] */
	KT_ENUM,        /* one of choices, stored in an int-sized enum */
	KT_ENUM_STRING, /* one of choices, stored as char * */
	KT_INTS,        /* int, list of ints, or "auto": struct int_list */
	KT_KINDS,       /* one or a list of choices: bit mask */
	KT_SETS,        /* one or a list of "a+b" sets of choices: struct
	                 * int_list of bit masks */
	KT_BOOLS,       /* bool or list of bools (or "auto"): bit mask */
	KT_STRINGS,     /* string or list of strings, appended */
	KT_ENV,         /* list of "NAME=VALUE", merged by NAME */
	KT_MODEL,       /* preset name or a group */
	KT_GPUS,        /* list of GPU catalog entries */
	KT_PATTERNS,    /* list of { name; regex; } */
	KT_CALIBRATION, /* group of GPU = { constants } groups */
};

/* The struct a key's offset refers to. */
enum key_in {
	IN_CAMPAIGN,    /* struct settings */
	IN_MODEL,       /* struct model_group, inside model = { ... } */
	IN_GPU,         /* struct gpu, inside gpus = ( { ... } ) */
	IN_PATTERN,     /* struct log_pattern, inside results.patterns */
	IN_CALIBRATION, /* struct calibration, in calibration = { GPU = { } } */
};

enum config_layer {
	LAYER_DEFAULT, LAYER_SITE, LAYER_USER, LAYER_CAMPAIGN, LAYER_CMDLINE,
};

#define SITE_ONLY BIT(LAYER_SITE)
#define RUN_ONLY (BIT(LAYER_CAMPAIGN) | BIT(LAYER_CMDLINE))

#define F_AUTO   0x01u  /* accepts "auto" */
#define F_MEMBER 0x02u  /* only inside its parent's value */
#define F_CLEAR  0x04u  /* an empty string unsets it */
#define F_NAME   0x08u  /* [A-Za-z0-9._-]+, not starting with '.' or '-' */
#define F_OPTION 0x10u  /* each string is a command-line option ("-...") */
#define F_EMPTY  0x20u  /* KT_KINDS: an empty list means none of them */
#define F_EXPORT 0x40u  /* KT_STRINGS: run.export, replaced whole */
#define F_SYMBOL 0x80u  /* a currency: config_valid_currency() */
#define F_RECIPE 0x100u /* a NeMo recipe factory: config_check_recipe() */
#define F_ZERO   0x200u /* KT_DOUBLE: 0 (none, or derived) or min..max */

struct config_key {
	const char *path;       /* "search.tensor_parallel" */
	enum key_type type;
	enum key_in in;
	size_t off;             /* offset of the field in the 'in' struct */
	size_t size;            /* KT_NAME: size of the char array;
	                         * KT_STRING: a limit, at most size - 1
	                         * bytes (0: none) */
	double min, max;        /* numbers and list elements */
	unsigned layers;        /* BIT(LAYER_*) that may set it; 0: all */
	unsigned flags;
	const char *const *choices; /* KT_ENUM*, KT_KINDS; NULL-terminated */
};

/* A model = { ... } group while it is being read. */
struct model_group {
	struct model m;
	double size_b;
};

/* Every key, in the order `paratune config` and campaign.conf show. */
extern const struct config_key config_registry[];
/* How many entries config_registry has. */
extern const size_t config_nkeys;
/* The names of enum precision, NULL-terminated. */
extern const char *const config_precision_names[];

/* The registry entry for an exact dotted path, or NULL. */
const struct config_key *config_registry_find(const char *path);
/* Length of the parent group's path ("search" in "search.tp"); 0 at top. */
size_t config_parent_len(const char *path);
/* The last component of a path. */
const char *config_last_part(const char *path);
/* Whether k sits directly in the group whose path is prefix[0..len). */
bool config_key_in_group(const struct config_key *k, const char *prefix,
                         size_t len);

/* ---- suggestions (config-suggest.c) ------------------------------------ */

/* Append " (did you mean 'a'?)" (up to three names), or nothing. */
void config_suggest_names(struct strbuf *sb, const char *word,
                          const char *const *cands, int n);
/* The registry path closest to an unknown one, or NULL. */
const char *config_suggest_key(const char *path, enum key_in in);

/* ---- provenance (config-write.c) --------------------------------------- */

/* The campaign's copy of a file name, kept as long as the campaign. */
const char *config_intern(struct settings *c, const char *file);
/* Remember that key got its value at o (the last layer wins). */
void config_record(struct settings *c, const char *key, struct origin o);
/* Whether any layer set key. */
bool config_key_set(const struct settings *c, const char *key);
/* "FILE:LINE" of a key's value, or "built-in default". */
void config_origin_text(const struct settings *c, const char *key, char *buf,
                        size_t len);
/* "error: FILE:LINE: key 'K': MSG" at the place key got its value. */
int config_origin_error(const struct settings *c, const char *key,
                        const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- values read back out (config-visit.c) ----------------------------- */

/* A key's value as one line of libconfig; false when it is unset. */
bool config_key_text(const struct settings *c, const void *base,
                     const struct config_key *k, struct strbuf *out);
/* A key's value into the JSON writer j, as the member name. */
void config_key_json(const struct settings *c, const void *base,
                     const struct config_key *k, struct json *j,
                     const char *name);
/* Every member of one struct (model, gpu, pattern) as one libconfig
 * group on one line. */
void config_members_text(const struct settings *c, enum key_in in,
                         const void *base, struct strbuf *out);
/* A libconfig string literal (escapes as libconfig's scanner reads them). */
void config_conf_quote(struct strbuf *out, const char *s);

/* ---- the loader (config.c) --------------------------------------------- */

/*
 * The most a layer's file may hold, with every file it @includes: the
 * largest shipped file (etc/calibration-published.conf) is 14 KiB, a
 * frozen campaign.conf a few.  A larger one is no configuration, and is
 * refused before it is read: a sparse file of gigabytes took tens of
 * seconds and as many gigabytes of memory.
 */
#define CONFIG_FILE_MAX ((size_t)1 << 20)
#define CONFIG_FILE_MAX_TEXT "1 MiB"

/*
 * One file of a layer as read, once, for libconfig (config-include.c).
 * libconfig 1.5 opens an @include's target by its name, and has no hook
 * to open it otherwise (config_set_include_func came in 1.7): a FIFO
 * swapped in for the target after it was checked would block it, and a
 * file changed since could hold what the check refuses.  So each target
 * is read here into an anonymous file, and the directive that names it
 * is rewritten to name that copy by its descriptor: libconfig, whose
 * include directory is CONFIG_INCLUDE_DIR, reads exactly what was
 * checked and opens nothing a user can swap.
 */
struct config_file {
	char *target;           /* as its @include names it; NULL for the
	                           layer's file */
	char id[16];            /* how the rewritten @include names the
	                           copy (its descriptor); "" for the layer's
	                           file, which libconfig reads from memory */
	int fd;                 /* the copy, or -1 */
	struct strbuf text;     /* the bytes read, @includes rewritten */
};

#define CONFIG_INCLUDE_DIR "/proc/self/fd"

/* The files of one layer: the layer's own first, then those it
 * includes, in the order they are met. */
struct config_files {
	struct config_file **v;
	size_t n, alloc;
	size_t bytes;           /* read in all, at most CONFIG_FILE_MAX */
};

#define CONFIG_FILES_INIT { NULL, 0, 0, 0 }

/* The state of one settings_load: which layer is being read, from where. */
struct loader {
	struct settings *c;
	enum config_layer layer;
	const char *file;       /* interned: the layer's file, "command line" */
	const char *dir;        /* the layer file's directory, for @include */
	const struct config_files *files; /* the layer's, while it is parsed */
	int line;               /* command line: the setting's number, else 0 */
	bool nofollow;          /* the campaign file is a frozen one, which
	                           is never read through a symbolic link */
	bool missing;           /* a file that must exist does not, or
	                           cannot be read */
	int refusal;            /* why root did not read a file: EXIT_NOPERM
	                           (another user could change it) or
	                           EXIT_TEMPFAIL (the look at it did not
	                           finish; owner_root_path); 0: none */
	bool quiet;             /* a frozen campaign: its warnings were
	                           given when it was planned */
	bool frozen;            /* the campaign file is a frozen one */
};

/*
 * Open the layer's file at path once (not through a symbolic link for a
 * frozen campaign.conf, ld->nofollow) and read it whole into text, st
 * its fstat (config-file.c): a regular file, or /dev/null as the site
 * file, of at most CONFIG_FILE_MAX bytes, and run as root one that no
 * other user can change (else ld->refusal).  Returns 0, 1 when it is
 * optional and missing, -1 after an error naming it as what ("campaign
 * file"), with ld->missing set where it is missing input.
 */
int config_read_layer(struct loader *ld, enum config_layer layer,
                      const char *path, bool must_exist, const char *what,
                      struct strbuf *text, struct stat *st);
/*
 * What libconfig's parse error msg at line `line` of a file's text
 * leaves out, into sb (config-file.c): that the file starts with a byte
 * order mark, " (a binary file?)" when it holds control bytes, for
 * "duplicate setting name" the name, when the line sets one key, and
 * for "mismatched element type in array" the array's key and the two
 * types.
 */
void config_syntax_hint(const struct strbuf *text, int line,
                        const char *msg, struct strbuf *sb);
/*
 * Check the text of the layer's file at path (st its fstat) and every
 * file it @includes, in include_dir, into files (config-include.c): each
 * target is opened once, without waiting on a FIFO, and must be a
 * regular file (libconfig 1.5 exits the process on a directory); a file
 * that includes itself, or one that includes it, is refused; all of
 * them together hold at most CONFIG_FILE_MAX bytes.  Run as root, each
 * target must also be one that no other user can change or lead
 * elsewhere (owner_root_path), else *refusal is set to what that said.
 * 0, or -1 after an error naming the file and line of the @include.
 */
int config_read_files(const struct strbuf *text, const struct stat *st,
                      const char *path, const char *include_dir,
                      int *refusal, struct config_files *files);
/* The file libconfig names id (config_setting_source_file,
 * config_error_file): the layer's own for NULL; NULL if none. */
const struct config_file *config_files_find(const struct config_files *fs,
                                            const char *id);
/* Close the copies and free everything files holds. */
void config_files_release(struct config_files *files);
/* What a --set value holds that libconfig 1.5 would read wrong, from
 * one scan of it (config-scan.c). */
struct value_scan {
	/* An @include directive (refused: there is no file it could be
	 * relative to, and nothing checks its target). */
	bool includes;
	/* The first literal libconfig would read wrong (allocated, the
	 * caller frees it), or NULL: an integer it would cut to 32 bits or
	 * read as a negative (0xFFFFFFFF as -1), a real a double cannot
	 * hold (1e400 read as inf, 1e-400 as 0). */
	char *wide;
	/* A string with \x00, which libconfig drops without a word. */
	bool nul;
};
void config_value_scan(const char *value, struct value_scan *out);
/* Whether line is an @include directive as libconfig's scanner reads
 * one: 0 when not; 1 with its target in *target (allocated) and in
 * *rest the code after the closing quote; -1 when the quote is not
 * closed on the line (config-scan.c). */
int config_include_target(const char *line, char **target,
                          const char **rest);
/* The line at *p, before end, into sb without its line break; *p moves
 * past it.  false at the end. */
bool config_next_line(const char **p, const char *end, struct strbuf *sb);
/* For libconfig's "mismatched element type in array" at line `line` of
 * a file's text, which names neither: " 'KEY' (an integer, then a
 * string)" into sb, of the file's first array to mix two types, when
 * it is open by that line. */
void config_array_mismatch(const struct strbuf *text, long line,
                           struct strbuf *sb);
/* For libconfig's bare "syntax error", which a string or group left
 * open makes at the file's end: " (the string opened on line N is not
 * closed on its line)", or " (the '{' opened on line N is never
 * closed)" of the innermost one, into sb; "at NAME:N" for a name (an
 * included file's, where libconfig blames the including one); nothing
 * when neither. */
void config_unclosed_hint(const struct strbuf *text, const char *name,
                          struct strbuf *sb);
/* How a literal config_value_wide_literal returned is named ("integer"
 * or "number"), and the range it is out of: key's own where key (NULL:
 * not known) is a numeric key of the registry, else what the literal
 * can hold.  kind and range point to static text or into buf. */
struct literal_range {
	const char *kind, *range;
	char buf[96];
};
void config_literal_range(const char *lit, const char *key,
                          struct literal_range *r);

/* Where a setting came from: its file (an @include'd one included). */
struct origin config_origin_at(struct loader *ld, const config_setting_t *s);
/* "error: FILE:LINE: MSG" at a setting. */
int config_at_error(struct loader *ld, const config_setting_t *s,
                    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "error: FILE:LINE: key 'K': MSG" at a setting. */
int config_key_error(struct loader *ld, const config_setting_t *s,
                     const struct config_key *k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "error: FILE:LINE: unknown key 'P' (did you mean 'Q'?)". */
int config_unknown_key(struct loader *ld, const config_setting_t *s,
                       const char *path, enum key_in in);

/* ---- one setting (config-values.c) ------------------------------------- */

/* What a setting holds, for messages ("a string"). */
const char *config_kind_name(const config_setting_t *s);
/* Whether a setting is an array or a list. */
bool config_is_list(const config_setting_t *s);
/* Whether a setting is a string. */
bool config_is_string(const config_setting_t *s);
/* Whether a group names a member. */
bool config_has_member(const config_setting_t *s, const char *name);
/* Letters, digits, '.', '_' and '-', not starting with '.' or '-'. */
bool config_valid_name(const char *s);
/* A string or a list of strings, each checked, into out. */
int config_read_strings(struct loader *ld, const struct config_key *k,
                        const config_setting_t *s, struct str_list *out);
/* model.nemo_recipe's value v at setting s: 0, or -1 after an error
 * when it cannot name a recipe factory (config-model.c). */
int config_check_recipe(struct loader *ld, const struct config_key *k,
                        const config_setting_t *s, const char *v);
/* Members of a model, gpus or patterns group into base; each member must
 * be a key of that group. */
int config_apply_members(struct loader *ld, const config_setting_t *s,
                         const char *prefix, enum key_in in, void *base);
/* The same, leaving out the members named in but (NULL-terminated),
 * which the caller reads. */
int config_apply_members_but(struct loader *ld, const config_setting_t *s,
                             const char *prefix, enum key_in in, void *base,
                             const char *const *but);
/* Entry i of list s (gpus, results.patterns): 0 when no earlier entry
 * of the list has its name, else -1 after "key 'K': WHAT name 'N' is
 * given twice (first on line L)". */
int config_entry_once(struct loader *ld, const struct config_key *k,
                      const config_setting_t *s, int i, const char *what);
/* Apply each entry of list s with apply, an entry whose name an earlier
 * one gave refused instead (config_entry_once); -1 after any error. */
int config_apply_entries(struct loader *ld, const struct config_key *k,
                         const config_setting_t *s, const char *what,
                         int (*apply)(struct loader *,
                                      const struct config_key *,
                                      const config_setting_t *));
/* Store a top-level or group-member key of the campaign and record where
 * it came from. */
int config_apply_leaf(struct loader *ld, const struct config_key *k,
                      const config_setting_t *s);

/* ---- lists handed on to the job (config-env.c) ------------------------- */

/* env: merged by variable name into what lower layers set. */
int config_apply_env(struct loader *ld, const struct config_key *k,
                     const config_setting_t *s);
/* run.export, slurm.directives, policy.locked: checked, then appended
 * to what lower layers gave without repeating one. */
int config_apply_strings(struct loader *ld, const struct config_key *k,
                         const config_setting_t *s);

/* ---- models, GPUs, patterns -------------------------------------------- */

/* model: a preset name or a group (config-model.c). */
int config_apply_model(struct loader *ld, const struct config_key *k,
                       const config_setting_t *s);
/* The model once every layer is read (config-model.c). */
int config_resolve_model(struct settings *c,
                         const struct config_sources *src);
/* gpus = ( { ... }, ... ) (config-gpu.c). */
int config_apply_gpus(struct loader *ld, const struct config_key *k,
                      const config_setting_t *s);
/* The campaign's GPU from the catalog (config-gpu.c). */
int config_resolve_gpu(struct settings *c, const struct config_sources *src);
/* Append " (did you mean 'a'?)" with the catalog's names closest to an
 * unknown GPU name (built-in or added by gpus), or nothing. */
void config_suggest_gpu(const struct settings *c, const char *name,
                        struct strbuf *sb);
/* calibration = { GPU = { ... }; ... } (config-calibration.c). */
int config_apply_calibration(struct loader *ld, const struct config_key *k,
                             const config_setting_t *s);
/* What frozen_from calls a layer (not LAYER_DEFAULT, which sets no
 * calibration). */
const char *config_layer_name(int layer);
/* The campaign GPU's calibration, or the built-in defaults (a frozen
 * campaign's own only); 0, or -1 after an error for each calibrated GPU
 * that is in no catalog. */
int config_resolve_calibration(struct settings *c,
                               const struct config_sources *src);
/* Everything after the last layer: the model, the GPU and its
 * calibration resolved, the base's switches, the site's caps and the
 * checks across keys (config-resolve.c).  0, or -1 after an error. */
int config_finish(struct settings *c, const struct config_sources *src);
/* results.patterns = ( { ... }, ... ) (config-patterns.c). */
int config_apply_patterns(struct loader *ld, const struct config_key *k,
                          const config_setting_t *s);

#endif
