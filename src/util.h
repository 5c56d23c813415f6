/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/* util.h - number parsing and file-system helpers. */
#ifndef PARATUNE_UTIL_H
#define PARATUNE_UTIL_H

#include <stdbool.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdio.h>

struct strbuf;

/* Whole-string decimal integer in int range, no leading blank; 0, -2
 * for an integer out of that range, or -1. */
int parse_int(const char *s, int *out);
/* Whole-string finite decimal floating-point number, no leading blank,
 * not hexadecimal; 0, -2 for a number beyond a double (1e400, 1e-400),
 * or -1. */
int parse_double(const char *s, double *out);

/*
 * Write data to path atomically: a temporary file beside it, fsync,
 * rename, fsync of the directory.  The old file survives any failure.
 * Returns 0 or -1 after an error message naming path.
 */
int write_file_atomic(const char *path, const void *data, size_t len,
                      int mode);
/*
 * write_file_atomic in two halves, for a caller that acts once the data
 * is safe on disk and before it is in place (watch signals the trainer
 * only then).  write_file_prepare writes and fsyncs the temporary file
 * beside path and returns its name (allocated), or NULL after an error
 * naming path; write_file_commit renames it to path and fsyncs the
 * directory (0, or -1 after an error; the temporary file is removed
 * either way), and write_file_abandon removes it.  Both free the name.
 */
char *write_file_prepare(const char *path, const void *data, size_t len,
                         int mode);
int write_file_commit(const char *path, char *tmp);
void write_file_abandon(char *tmp);
/*
 * Before long work whose result goes to path: 0 when write_file_atomic
 * could make it now (its directory exists and may be written, and path
 * is not a directory), else -1 after the error it would give.
 */
int output_file_check(const char *path);
/* fsync the directory holding path, so that a rename or a new file in
 * it is durable; 0 or -1 after an error message. */
int fsync_parent(const char *path);
/*
 * Create path (never there before, not through a symbolic link) with
 * data, without syncing it: for a file in a directory that sync_tree
 * makes durable as a whole.  0 or -1 after an error message naming path.
 */
int write_file_new(const char *path, const void *data, size_t len,
                   int mode);
/*
 * Make everything under dir durable, dir included, after it was written
 * whole: for a tree built before it is published (renamed into place).
 * sync_tree_open opens dir before the first file is written (a file
 * descriptor, or -1 after an error message); sync_tree syncs the file
 * system dir is on once (syncfs(2): every file, directory and write
 * error since the open at once; it waits for other programs' writes to
 * that file system too), or, where syncfs is refused, each file and
 * then each directory with fsync.  It closes fd; 0 or -1 after an error
 * message.
 */
int sync_tree_open(const char *dir);
int sync_tree(int fd, const char *dir);
/* mkdir -p; 0 or -1 after an error message. */
int mkdir_p(const char *path, int mode);
/* Write all of p to fd; 0 or -1 with errno set. */
int write_all(int fd, const void *data, size_t len);
/* Remove a directory tree; 0 or -1.  Follows no symbolic link, also
 * one put in place of a directory while it runs. */
int remove_tree(const char *path);
bool path_exists(const char *path);
/*
 * The room on the file system of path for this user: *free_mib MiB
 * (statvfs's f_bavail blocks), and in *inodes whether a file can still
 * be made there (an inode is free, or the file system counts none).
 * 0, or -1 with errno set when statvfs cannot tell.
 */
int fs_room(const char *path, double *free_mib, bool *inodes);
/*
 * Open path for reading as a file a user could have planted: no symbolic
 * link is followed, a FIFO or device never blocks the open, and anything
 * but a regular file is refused.  NULL with errno set (ELOOP for a link,
 * EINVAL for what is not a regular file: open_error() spells it).
 */
FILE *fopen_regular(const char *path);
/*
 * Open path, a file the caller named, for reading: links are followed,
 * a regular file or a pipe is read (a FIFO's open never waits for a
 * writer: one with none reads as empty), anything else is refused
 * (EINVAL).  NULL with errno set.
 */
FILE *fopen_named(const char *path);
/*
 * Append what fd holds from its offset on to sb, reading at most max + 1
 * bytes: 0 when it all fit in max, 1 when there is more (sb then holds
 * max + 1 bytes, and nothing beyond them was read), -1 with errno set
 * when a read fails.  A file that grows while it is read, or one whose
 * size fstat did not tell, is bounded all the same.
 */
int read_capped(int fd, size_t max, struct strbuf *sb);
/* The same for rel beneath dir, with no symbolic link followed in any
 * part of rel (a directory made a link is refused too: ELOOP). */
FILE *fopen_regular_beneath(const char *dir, const char *rel);
/* Whether st is a regular file of this process's user that nobody else
 * can write (what is submitted or exported with the user's rights). */
bool stat_is_private(const struct stat *st);
/*
 * The build tree this program runs from, or NULL (allocated): the
 * directory of /proc/self/exe when it holds templates/megatron-lm.sbatch
 * and an executable paratune-simtrain, so that `./paratune plan` works
 * before `make install` (the README's tour) with the tree's own files.
 */
char *build_tree_dir(void);
/* Length of the shell variable name at the start of s (0: none). */
size_t shell_name_len(const char *s);
/* strerror(e), with fopen_regular's EINVAL spelled "not a regular file"
 * and ELOOP "a symbolic link, not followed". */
const char *open_error(int e);
/* The directory part of path, allocated: "." without a slash, "/" for
 * a file in the root. */
char *path_dir(const char *path);
/* path from the root, allocated: a relative one below the working
 * directory (as it is when that cannot be found). */
char *path_absolute(const char *path);
/* Append a formatted double with %.*g but never "-0" or "nan". */
void format_number(struct strbuf *sb, double v, int digits);
/* The most decimals figure_decimals asks for. */
#define FIGURE_DECIMALS_MAX 12
/*
 * The decimals to write v with in fixed point: decimals, or more where
 * these would show fewer than sig significant digits of a nonzero v (a
 * short training's 0.0004 days read 0.000); -1 where that takes more
 * than FIGURE_DECIMALS_MAX, for "%.*g" with sig digits instead.
 */
int figure_decimals(double v, int decimals, int sig);

/* How much of a value quote_cut shows, and the room its text needs. */
#define QUOTE_CUT_SHOWN 40
#define QUOTE_CUT_SIZE (QUOTE_CUT_SHOWN + 48)
/*
 * s in single quotes for a message, 'llama3_8b', or when longer than
 * QUOTE_CUT_SHOWN bytes its start (not cutting a UTF-8 character) and
 * its length, 'ZZZZ...' (100000 bytes): a long value would push the
 * rest of the message out of sight, or out of its buffer.  Written into
 * buf, QUOTE_CUT_SIZE bytes; returns buf.
 */
const char *quote_cut(const char *s, char *buf);
/* The same without the quotes, for a number: 1e400, or 1000...
 * (100000 bytes). */
const char *text_cut(const char *s, char *buf);

#endif
