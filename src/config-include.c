/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * config-include.c - every @include target checked before libconfig
 * reads the file.
 *
 * libconfig 1.5 (Debian 12) opens an @include'd path with fopen(), which
 * succeeds on a directory; its flex scanner then fails to read it and
 * calls exit(2) ("input in flex scanner failed"), taking down the whole
 * process: with `resume DIR...` every later campaign too.  Version 1.7
 * added config_set_include_func() to hook the opening, but 1.5 has no
 * hook, so the files are read here first, the way libconfig's scanner
 * finds the directives, and each target must be a readable regular file.
 * Each is opened once and read whole; libconfig is given what was read
 * (struct config_file, config-int.h), never a name to open again.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-int.h"
#include "error.h"
#include "owner.h"
#include "strbuf.h"
#include "util.h"
#include "xalloc.h"

/* libconfig's own limit (MAX_INCLUDE_DEPTH): it reads files included
 * this deep below the layer's file, and no deeper.  A cycle is refused
 * before it gets there. */
#define INCLUDE_DEPTH_MAX 10

/* ---- literals libconfig 1.5 reads wrong ---------------------------------- */

/*
 * Whether the real literal from p to end is beyond a double: libconfig
 * reads 1e400 as inf and 1e-400 as 0 without a word, and the key's
 * range check would then name a value no one wrote.
 */
static bool
real_out_of_range(const char *p, const char *end)
{
	char *text = xstrndup(p, (size_t)(end - p));
	double v;
	bool out;

	errno = 0;
	v = strtod(text, NULL);
	out = errno == ERANGE || !isfinite(v);
	free(text);
	return out;
}

/*
 * libconfig 1.5 reads an integer literal without an L suffix into an int
 * and cuts a wider one to 32 bits without a word ("nodes = 4294967300"
 * reads 4; 1.7 promotes it to 64 bits): the width is checked here, in
 * the text, and so is a real's (real_out_of_range).  If the literal at p
 * (a word that starts with a digit, or a point and a digit) is a decimal
 * or hexadecimal integer that does not fit in an int, or a real a double
 * cannot hold, its length; else 0.  *end is the end of the word either
 * way.
 */
static size_t
wide_literal(const char *line, const char *p, const char **end)
{
	bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	/* A hexadecimal has no sign: libconfig reads one from 0x80000000
	 * to 0xFFFFFFFF into the int's sign bit, a negative no one wrote
	 * (0xFFFFFFFF is -1, "auto" or "no limit" for some keys). */
	unsigned long long cap = hex ? 0x7FFFFFFFULL
	                         : p > line && p[-1] == '-' ? 2147483648ULL
	                         : 2147483647ULL;
	unsigned long long v = 0;
	const char *q = p + (hex ? 2 : 0);
	bool wide = false;

	for (; hex ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q);
	     q++) {
		unsigned digit =
			isdigit((unsigned char)*q)
			? (unsigned)(*q - '0')
			: (unsigned)(tolower((unsigned char)*q) - 'a') + 10;

		v = v * (hex ? 16 : 10) + digit;
		if (v > cap) {
			wide = true;
			v = cap; /* no overflow of v itself */
		}
	}
	*end = q + strspn(q, "0123456789abcdefABCDEFxXlL.+-");
	/* An L-suffixed 64-bit integer is libconfig's to read whole. */
	if (*q == 'L')
		return 0;
	if (!hex && (*q == '.' || *q == 'e' || *q == 'E'))
		return real_out_of_range(p, *end) ? (size_t)(*end - p) : 0;
	return wide ? (size_t)(q - p) : 0;
}

/* The range a numeric key takes ("1 to 100000") into buf, or NULL: the
 * one to say of a literal too wide to hold, rather than the storage's,
 * which no key takes. */
static const char *
key_range(const char *path, char *buf, size_t len)
{
	const struct config_key *k = config_registry_find(path);

	if (k == NULL || !(k->type == KT_INT || k->type == KT_DOUBLE ||
	                   k->type == KT_INTS) || !(k->max > k->min))
		return NULL;
	snprintf(buf, len, "%s%.15g to %.15g",
	         (k->flags & F_ZERO) ? "0, or " : "", k->min, k->max);
	return buf;
}

void
config_literal_range(const char *lit, const char *key,
                     struct literal_range *r)
{
	bool hex = strstr(lit, "0x") || strstr(lit, "0X");

	if (!hex && strpbrk(lit, ".eE")) {
		r->kind = "number";
		r->range = "0, or a magnitude from 2.2e-308 to 1.8e+308";
	} else {
		r->kind = "integer";
		r->range = hex ? "at most 0x7FFFFFFF" : "at most 2147483647";
	}
	if (key && key_range(key, r->buf, sizeof r->buf))
		r->range = r->buf;
}

/* ---- the code of a line -------------------------------------------------- */

/* Groups, lists and arrays open deeper than this are not named. */
#define SCAN_DEPTH_MAX 32

/*
 * What the scan of a file's code carries from one line to the next, as
 * libconfig's scanner would see it: whether a comment is open; the key
 * of the innermost open group, list or array ("search.tensor_parallel")
 * and the setting name last read, to name a value by; and the first
 * literal libconfig 1.5 would read wrong, with that key.
 */
struct code_scan {
	bool in_comment;
	struct strbuf key;      /* the open groups', lists' and arrays'
	                           names, joined with '.' */
	size_t depth;           /* how many are open */
	size_t key_len[SCAN_DEPTH_MAX]; /* key's length outside each */
	char open[SCAN_DEPTH_MAX]; /* '{', '(' or '[' */
	char kind[SCAN_DEPTH_MAX]; /* an array's first element's type */
	struct strbuf name;     /* the last setting name read */
	bool assigned;          /* its '=' read, its value not yet */
	const char *wide;       /* that literal, in the line scanned */
	size_t wide_len;
	struct strbuf wide_key; /* its key, or "" */
	char mixed[2];          /* the first array with elements of two
	                           types: those types (scan_kind_name) */
	struct strbuf mixed_key; /* and its key */
	long lineno;            /* the line scanned, where the caller counts */
	long open_line[SCAN_DEPTH_MAX]; /* where each open one opened */
	long string_line;       /* the first line a string is not closed on */
	long nul_line;          /* the first line a string holds \x00 on */
};

#define CODE_SCAN_INIT \
	{ false, STRBUF_INIT, 0, { 0 }, { 0 }, { 0 }, STRBUF_INIT, false, \
	  NULL, 0, STRBUF_INIT, { 0 }, STRBUF_INIT, 0, { 0 }, 0, 0 }

/* Free what a scan holds. */
static void
code_scan_release(struct code_scan *s)
{
	strbuf_release(&s->key);
	strbuf_release(&s->name);
	strbuf_release(&s->wide_key);
	strbuf_release(&s->mixed_key);
}

/* The innermost open group, list or array ('{', '(', '['), or 0. */
static char
scan_top(const struct code_scan *s)
{
	if (s->depth == 0 || s->depth > SCAN_DEPTH_MAX)
		return 0;
	return s->open[s->depth - 1];
}

/* Whether a value read now is an element of a list or an array. */
static bool
scan_in_list(const struct code_scan *s)
{
	return !s->assigned && (scan_top(s) == '(' || scan_top(s) == '[');
}

/* The key a value read now is set to, into sb: "" when it is neither
 * a setting's value nor an element (text libconfig will refuse). */
static void
scan_value_key(const struct code_scan *s, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (!s->assigned && !scan_in_list(s))
		return;
	strbuf_add(sb, s->key.buf, s->key.len);
	if (s->assigned) {
		if (sb->len)
			strbuf_addch(sb, '.');
		strbuf_add(sb, s->name.buf, s->name.len);
	}
}

/* An escape in a string, p after its backslash: libconfig 1.5 drops a
 * NUL byte written \x00 from the string without a word ("gpu\x00evil"
 * read as "gpuevil"), where every other control character is refused
 * by the key's check; the first line with one is noted. */
static void
scan_escape(struct code_scan *s, const char *p)
{
	if ((p[0] == 'x' || p[0] == 'X') && p[1] == '0' && p[2] == '0' &&
	    s->nul_line == 0)
		s->nul_line = s->lineno > 0 ? s->lineno : 1;
}

/* A group, list or array opened: a setting's value names it. */
static void
scan_open(struct code_scan *s, char bracket)
{
	if (s->depth < SCAN_DEPTH_MAX) {
		s->key_len[s->depth] = s->key.len;
		s->open[s->depth] = bracket;
		s->open_line[s->depth] = s->lineno;
		s->kind[s->depth] = 0;
		if (s->assigned) {
			if (s->key.len)
				strbuf_addch(&s->key, '.');
			strbuf_add(&s->key, s->name.buf, s->name.len);
		}
	}
	s->depth++;
	s->assigned = false;
}

/* A group, list or array closed (one never opened is libconfig's to
 * report). */
static void
scan_close(struct code_scan *s)
{
	if (s->depth == 0)
		return;
	if (--s->depth < SCAN_DEPTH_MAX)
		strbuf_setlen(&s->key, s->key_len[s->depth]);
	s->assigned = false;
}

/* How a message names a value's type ("an integer" for 'i'). */
static const char *
scan_kind_name(char kind)
{
	switch (kind) {
	case 'b': return "a boolean";
	case 'i': return "an integer";
	case 'l': return "a 64-bit integer";
	case 'f': return "a number";
	default: return "a string";
	}
}

/*
 * A value of type kind read (scan_kind_name's letters): libconfig holds
 * an array's elements to its first one's type, int and 64-bit int
 * apart, and its "mismatched element type in array" names no key: the
 * first array to mix them is kept for syntax_hint's message.
 */
static void
scan_read(struct code_scan *s, char kind)
{
	if (scan_in_list(s) && scan_top(s) == '[') {
		char *first = &s->kind[s->depth - 1];

		if (*first == 0)
			*first = kind;
		else if (*first != kind && s->mixed[0] == 0) {
			s->mixed[0] = *first;
			s->mixed[1] = kind;
			strbuf_add(&s->mixed_key, s->key.buf, s->key.len);
		}
	}
	s->assigned = false;
}

/* A name: a setting's, or a value (true, false) where one is due. */
static void
scan_name(struct code_scan *s, const char *p, size_t len)
{
	if (s->assigned || scan_in_list(s)) {
		scan_read(s, 'b');
		return;
	}
	strbuf_reset(&s->name);
	strbuf_add(&s->name, p, len);
}

/* The type of the number literal from p to end, as scan_read takes
 * it: an L suffix makes a 64-bit integer, a point or an exponent a
 * real (in a decimal: 'e' is a digit in a hexadecimal). */
static char
scan_number_kind(const char *p, const char *end)
{
	bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');

	for (const char *q = p; q < end; q++)
		if (*q == 'L')
			return 'l';
	for (const char *q = p; !hex && q < end; q++)
		if (*q == '.' || *q == 'e' || *q == 'E')
			return 'f';
	return 'i';
}

/* The number literal at p (lit, with its point): its end; the first one
 * out of libconfig 1.5's range is kept, with its key and sign. */
static const char *
scan_number(struct code_scan *s, const char *line, const char *lit)
{
	const char *end;
	size_t n = wide_literal(line, lit, &end);

	if (n && s->wide == NULL) {
		bool neg = lit > line && lit[-1] == '-';

		s->wide = lit - neg;
		s->wide_len = n + neg;
		scan_value_key(s, &s->wide_key);
	}
	scan_read(s, scan_number_kind(lit, end));
	return end;
}

/*
 * Scan one line's code from p on; a '#' or '//' comment ends it.  The
 * first literal of the line out of libconfig 1.5's range is put in
 * s->wide, when none was before.
 */
static void
scan_line(struct code_scan *s, const char *p)
{
	const char *line = p;

	while (*p) {
		if (s->in_comment) {
			const char *end = strstr(p, "*/");

			if (end == NULL)
				return;
			p = end + 2;
			s->in_comment = false;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1]) {
					p++;
					scan_escape(s, p);
				}
			if (*p)
				p++;
			else if (s->string_line == 0)
				s->string_line = s->lineno;
			scan_read(s, 's');
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			break;
		} else if (p[0] == '/' && p[1] == '*') {
			p += 2;
			s->in_comment = true;
		} else if (isalpha((unsigned char)*p) || *p == '_' ||
		           *p == '*') {
			size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz"
			                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			                       "0123456789_-*");

			scan_name(s, p, len);
			p += len;
		} else if (isdigit((unsigned char)*p)) {
			/* ".5e308" is a real from its point: 5e307. */
			p = scan_number(s, line, p > line && p[-1] == '.'
			                ? p - 1 : p);
		} else {
			if (*p == '=' || *p == ':')
				s->assigned = true;
			else if (*p == '{' || *p == '(' || *p == '[')
				scan_open(s, *p);
			else if (*p == '}' || *p == ')' || *p == ']')
				scan_close(s);
			else if (*p == ';' || *p == ',')
				s->assigned = false;
			p++;
		}
	}
}

/* ---- @include targets ---------------------------------------------------- */

/*
 * Whether line is an "@include" directive as libconfig's scanner reads
 * one (^[ \t]*@include[ \t]+"): 0 when it is not; 1 with its target in
 * *target (allocated) and in *rest the code after the closing quote;
 * -1 when the quote is not closed on the line.  The scanner takes the
 * name on to the next quote, across line breaks, so a missing quote
 * made the lines below part of the name (or, with no quote after them,
 * dropped them unread).  "\\" and "\"" are a backslash and a quote; the
 * scanner leaves any other backslash out of the name, and so does this.
 */
static int
include_target(const char *line, char **target, const char **rest)
{
	const char *p = line + strspn(line, " \t");
	struct strbuf name = STRBUF_INIT;

	if (strncmp(p, "@include", 8) != 0 || !strchr(" \t", p[8]) ||
	    p[8] == '\0')
		return 0;
	p += 8;
	p += strspn(p, " \t");
	if (*p != '"')
		return 0;
	for (p++; *p && *p != '"'; p++)
		if (*p != '\\')
			strbuf_addch(&name, *p);
		else if (p[1] == '\\' || p[1] == '"')
			strbuf_addch(&name, *++p);
	if (*p != '"') {
		strbuf_release(&name);
		return -1;
	}
	*target = strbuf_detach(&name, NULL);
	*rest = p + 1;
	return 1;
}

/* The line at *p, before end, into sb without its line break; *p moves
 * past the break.  false at the end. */
static bool
next_line(const char **p, const char *end, struct strbuf *sb)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	strbuf_reset(sb);
	strbuf_add(sb, *p, (size_t)((nl ? nl : end) - *p));
	*p = nl ? nl + 1 : end;
	return true;
}

/* Where targets are looked for, how messages name the files, and the
 * copies made for libconfig. */
struct include_walk {
	const char *dir;        /* the include directory: the layer file's */
	bool qualify;           /* name an included file DIR/TARGET, as the
	                           loader does when the top path has a '/' */
	bool refused;           /* set when root refuses a target */
	struct config_files *files;
	/* The files being read, the top one first, by their identity:
	 * libconfig reads INCLUDE_DEPTH_MAX below the top. */
	dev_t dev[INCLUDE_DEPTH_MAX + 1];
	ino_t ino[INCLUDE_DEPTH_MAX + 1];
};

static int check_text(struct include_walk *w, const struct strbuf *src,
                      const char *name, int depth, const char *key,
                      struct strbuf *out);

/* The depth of the file being read that st is (a file that includes
 * the one at depth, or that one itself), or -1. */
static int
include_cycle(const struct include_walk *w, const struct stat *st,
              int depth)
{
	for (int i = 0; i <= depth; i++)
		if (w->dev[i] == st->st_dev && w->ino[i] == st->st_ino)
			return i;
	return -1;
}

static const char include_too_large[] =
	"larger than the " CONFIG_FILE_MAX_TEXT " a configuration file may "
	"hold with the files it includes";

/* A new entry of files, for the file an @include names target (NULL:
 * the layer's own). */
static struct config_file *
files_add(struct config_files *files, const char *target)
{
	struct config_file *cf = xcalloc(1, sizeof(*cf));

	cf->target = target ? xstrdup(target) : NULL;
	cf->fd = -1;
	strbuf_init(&cf->text, 0);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression) */
	ALLOC_GROW(files->v, files->n + 1, files->alloc);
	files->v[files->n++] = cf;
	return cf;
}

/* cf's text into an anonymous file, which libconfig opens as
 * CONFIG_INCLUDE_DIR/ID. */
static int
files_copy(struct config_file *cf)
{
	cf->fd = memfd_create("paratune-include", MFD_CLOEXEC);
	if (cf->fd < 0 || write_all(cf->fd, cf->text.buf, cf->text.len) != 0)
		return -1;
	snprintf(cf->id, sizeof cf->id, "%d", cf->fd);
	return 0;
}

/*
 * The target open at fd, which the @include at name:line calls target,
 * read whole (within what the layer may still read), checked in turn
 * (its own messages naming it file) and copied for libconfig: *id names
 * the copy.
 */
static int
read_target(struct include_walk *w, int fd, const char *name, long line,
            const char *target, const char *file, int depth,
            const char *key, const char **id)
{
	struct strbuf src = STRBUF_INIT;
	struct config_file *cf;
	int r = read_capped(fd, CONFIG_FILE_MAX - w->files->bytes, &src);
	int ret;

	if (r < 0)
		ret = error_errno("%s:%ld: cannot include '%s'", name, line,
		                  target);
	else if (r > 0)
		ret = error("%s:%ld: cannot include '%s': %s", name, line,
		            target, include_too_large);
	else {
		w->files->bytes += src.len;
		cf = files_add(w->files, target);
		ret = check_text(w, &src, file, depth, key, &cf->text);
		if (ret == 0 && files_copy(cf) != 0)
			ret = error_errno("%s:%ld: cannot include '%s': cannot "
			                  "copy it", name, line, target);
		*id = cf->id;
	}
	strbuf_release(&src);
	return ret;
}

/* Whether the target, whose fstat is st, may be read: 0, or -1 after
 * an error naming the @include at name:line. */
static int
target_unfit(struct include_walk *w, const char *name, long line,
             const char *target, const struct stat *st, int depth)
{
	int cycle;

	if (S_ISDIR(st->st_mode))
		return error("%s:%ld: cannot include '%s': it is a directory",
		             name, line, target);
	if (!S_ISREG(st->st_mode))
		return error("%s:%ld: cannot include '%s': not a regular file",
		             name, line, target);
	/* libconfig would read it again and again, to its depth limit:
	 * its message was the first key set twice ("duplicate setting
	 * name"), at line 1 of a file no one had changed. */
	if ((cycle = include_cycle(w, st, depth)) == depth)
		return error("%s:%ld: cannot include '%s': the file includes "
		             "itself", name, line, target);
	if (cycle >= 0)
		return error("%s:%ld: cannot include '%s': it includes this "
		             "file (an @include cycle)", name, line, target);
	if ((unsigned long long)st->st_size > CONFIG_FILE_MAX - w->files->bytes)
		return error("%s:%ld: cannot include '%s': %s", name, line,
		             target, include_too_large);
	if (depth >= INCLUDE_DEPTH_MAX)
		return error("%s:%ld: cannot include '%s': @include nested "
		             "more than %d deep", name, line, target,
		             INCLUDE_DEPTH_MAX);
	return 0;
}

/*
 * One target named at name:line, inside the group key: opened once,
 * without waiting on a FIFO, a regular file, read and checked in turn.
 * libconfig 1.5 opens include_dir/TARGET, an absolute TARGET too (so it
 * could not be named at all); it is given the copy instead, named *id,
 * and an absolute TARGET is opened where it says.
 */
static int
check_target(struct include_walk *w, const char *name, long line,
             const char *target, int depth, const char *key,
             const char **id)
{
	char *full = target[0] == '/' ? xstrdup(target)
	                              : xasprintf("%s/%s", w->dir, target);
	struct stat st;
	int fd = -1, ret;

	/* Run as root, checked before the open, which would follow another
	 * user's link with root's rights (to a device, or a FIFO whose
	 * writer it wakes). */
	if (owner_root_path(full) != 0) {
		w->refused = true;
		ret = error("%s:%ld: not including '%s' with root's rights",
		            name, line, target);
	} else if ((fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
	           fstat(fd, &st) != 0)
		ret = error_errno("%s:%ld: cannot include '%s'", name, line,
		                  target);
	else if ((ret = target_unfit(w, name, line, target, &st,
	                             depth)) == 0) {
		w->dev[depth + 1] = st.st_dev;
		w->ino[depth + 1] = st.st_ino;
		ret = read_target(w, fd, name, line, target,
		                  w->qualify ? full : target, depth + 1, key,
		                  id);
	}
	if (fd >= 0)
		close(fd);
	free(full);
	return ret;
}

/* "FILE:LINE: key 'search.tensor_parallel': integer 4294967300 is out of
 * range (1 to 65536)", the key's range where it is known, else what the
 * literal can hold; the key left out where the literal has none. */
static int
wide_error(const char *name, long lineno, const struct code_scan *s)
{
	char *lit = xstrndup(s->wide, s->wide_len);
	struct literal_range r;
	char q[QUOTE_CUT_SIZE];
	int ret;

	config_literal_range(lit, s->wide_key.len ? s->wide_key.buf : NULL,
	                     &r);
	text_cut(lit, q);
	if (s->wide_key.len)
		ret = error("%s:%ld: key '%s': %s %s is out of range (%s)",
		            name, lineno, s->wide_key.buf, r.kind, q, r.range);
	else
		ret = error("%s:%ld: %s %s is out of range (%s)", name,
		            lineno, r.kind, q, r.range);
	free(lit);
	return ret;
}

/* The @include line with its target named id instead: what is before
 * the opening quote and after the closing one (rest) kept as it was. */
static void
rewrite_include(struct strbuf *out, const struct strbuf *line,
                const char *rest, const char *id)
{
	const char *quote = strchr(line->buf, '"');

	strbuf_add(out, line->buf, (size_t)(quote + 1 - line->buf));
	strbuf_addstr(out, id);
	strbuf_addch(out, '"');
	strbuf_add(out, rest, line->len - (size_t)(rest - line->buf));
}

/*
 * Check every @include of a file's text src (named name in messages),
 * whose settings are members of the group key ("" at the top), into out
 * with each @include naming the copy of its target.
 */
static int
check_text(struct include_walk *w, const struct strbuf *src,
           const char *name, int depth, const char *key, struct strbuf *out)
{
	const char *p = src->buf, *end = src->buf + src->len;
	struct strbuf line = STRBUF_INIT;
	struct code_scan s = CODE_SCAN_INIT;
	long lineno = 0, comment_line = 0;
	int ret = 0;

	strbuf_addstr(&s.key, key);
	while (ret == 0 && next_line(&p, end, &line)) {
		const char *code = line.buf, *id = "";
		bool was_in_comment = s.in_comment;
		char *target = NULL;
		int inc = s.in_comment ? 0 : include_target(line.buf, &target,
		                                            &code);

		lineno++;
		s.lineno = lineno;
		if (inc < 0) {
			ret = error("%s:%ld: the @include's file name has no "
			            "closing quote", name, lineno);
			break;
		}
		if (inc > 0) {
			ret = check_target(w, name, lineno, target, depth,
			                   s.key.buf, &id);
			free(target);
			if (ret != 0)
				break;
			rewrite_include(out, &line, code, id);
		} else
			strbuf_add(out, line.buf, line.len);
		if (p[-1] == '\n')
			strbuf_addch(out, '\n');
		scan_line(&s, code);
		/* Open at the end of the line: opened on it, unless it was
		 * open already and the line has no end mark to close it. */
		if (s.in_comment &&
		    (!was_in_comment || strstr(line.buf, "*/")))
			comment_line = lineno;
		if (s.wide)
			ret = wide_error(name, lineno, &s);
		else if (s.nul_line)
			ret = error("%s:%ld: a string holds \\x00, a NUL byte, "
			            "which libconfig drops from it", name,
			            lineno);
	}
	/* libconfig 1.5 takes the end of the file as the comment's end:
	 * every setting after a stray opening would be dropped unseen. */
	if (ret == 0 && s.in_comment)
		ret = error("%s:%ld: a comment opened here is never closed",
		            name, comment_line);
	code_scan_release(&s);
	strbuf_release(&line);
	return ret;
}

/* ---- --set values and the public interface ------------------------------- */

/*
 * Read a --set value line by line as check_file reads a file: whether a
 * line holds an @include directive (libconfig reads "v = VALUE;" from
 * memory and would open the target; the first line follows "v = ", so
 * it cannot be one), and into *wide (allocated, or NULL) the first
 * integer literal too wide for libconfig 1.5.
 */
static bool
scan_value(const char *value, char **wide, bool *nul)
{
	struct strbuf line = STRBUF_INIT;
	struct code_scan s = CODE_SCAN_INIT;
	const char *p = value;
	bool includes = false;

	*wide = NULL;
	for (;;) {
		size_t len = strcspn(p, "\n");
		const char *code;
		char *target = NULL;

		strbuf_setlen(&line, 0);
		strbuf_add(&line, p, len);
		/* Closed or not, an @include is refused. */
		if (p != value && !s.in_comment &&
		    include_target(line.buf, &target, &code) != 0)
			includes = true;
		else
			scan_line(&s, line.buf);
		if (s.wide && *wide == NULL) /* s.wide points into line */
			*wide = xstrndup(s.wide, s.wide_len);
		free(target);
		if (p[len] != '\n')
			break;
		p += len + 1;
	}
	*nul = s.nul_line != 0;
	code_scan_release(&s);
	strbuf_release(&line);
	return includes;
}

bool
config_value_includes(const char *value)
{
	char *wide;
	bool nul, includes = scan_value(value, &wide, &nul);

	free(wide);
	return includes;
}

bool
config_value_nul_escape(const char *value)
{
	char *wide;
	bool nul;

	scan_value(value, &wide, &nul);
	free(wide);
	return nul;
}

char *
config_value_wide_literal(const char *value)
{
	char *wide;
	bool nul;

	scan_value(value, &wide, &nul);
	return wide;
}

int
config_read_files(const struct strbuf *text, const struct stat *st,
                  const char *path, const char *include_dir, bool *refused,
                  struct config_files *files)
{
	struct include_walk w = { .dir = include_dir,
	                          .qualify = strchr(path, '/') != NULL,
	                          .files = files };
	struct config_file *top = files_add(files, NULL);
	int ret;

	w.dev[0] = st->st_dev;
	w.ino[0] = st->st_ino;
	files->bytes = text->len;
	ret = check_text(&w, text, path, 0, "", &top->text);
	*refused = w.refused;
	return ret;
}

const struct config_file *
config_files_find(const struct config_files *fs, const char *id)
{
	if (fs->n == 0)
		return NULL;
	if (id == NULL)
		return fs->v[0];
	for (size_t i = 1; i < fs->n; i++)
		if (!strcmp(fs->v[i]->id, id))
			return fs->v[i];
	return NULL;
}

void
config_files_release(struct config_files *files)
{
	for (size_t i = 0; i < files->n; i++) {
		struct config_file *cf = files->v[i];

		if (cf->fd >= 0)
			close(cf->fd);
		strbuf_release(&cf->text);
		free(cf->target);
		free(cf);
	}
	free(files->v);
	memset(files, 0, sizeof(*files));
}

void
config_array_mismatch(const struct strbuf *text, long line,
                      struct strbuf *sb)
{
	const char *p = text->buf, *end = text->buf + text->len;
	struct strbuf l = STRBUF_INIT;
	struct code_scan s = CODE_SCAN_INIT;

	for (long n = 1; n <= line && s.mixed[0] == 0 &&
	     next_line(&p, end, &l); n++) {
		const char *code = l.buf;
		char *target = NULL;

		if (s.in_comment ||
		    include_target(l.buf, &target, &code) >= 0)
			scan_line(&s, code);
		free(target);
	}
	if (s.mixed[0] && s.mixed_key.len)
		strbuf_addf(sb, " '%s'", s.mixed_key.buf);
	if (s.mixed[0])
		strbuf_addf(sb, " (%s, then %s)", scan_kind_name(s.mixed[0]),
		            scan_kind_name(s.mixed[1]));
	code_scan_release(&s);
	strbuf_release(&l);
}

void
config_unclosed_hint(const struct strbuf *text, const char *name,
                     struct strbuf *sb)
{
	const char *p = text->buf, *end = text->buf + text->len;
	struct strbuf l = STRBUF_INIT;
	struct code_scan s = CODE_SCAN_INIT;
	long at = 0;

	while (s.string_line == 0 && next_line(&p, end, &l)) {
		const char *code = l.buf;
		char *target = NULL;

		s.lineno++;
		if (s.in_comment ||
		    include_target(l.buf, &target, &code) >= 0)
			scan_line(&s, code);
		free(target);
	}
	if (s.string_line)
		strbuf_addstr(sb, " (the string opened ");
	else if (s.depth > 0 && s.depth <= SCAN_DEPTH_MAX)
		strbuf_addf(sb, " (the '%c' opened ", s.open[s.depth - 1]);
	at = s.string_line ? s.string_line
	     : s.depth > 0 && s.depth <= SCAN_DEPTH_MAX
	     ? s.open_line[s.depth - 1] : 0;
	if (at && name)
		strbuf_addf(sb, "at %s:%ld", name, at);
	else if (at)
		strbuf_addf(sb, "on line %ld", at);
	if (at)
		strbuf_addstr(sb, s.string_line ? " is not closed on its line)"
		              : " is never closed)");
	code_scan_release(&s);
	strbuf_release(&l);
}
