/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * runner-output.c - what a job's own output file says of it, for the
 * runner when Slurm no longer knows the job: the verdicts slurmstepd
 * writes there, and which job an interrupted submission made.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runner.h"
#include "util.h"

/* What one line of a job's output says of it, given st so far. */
static enum cand_state
output_verdict(enum cand_state st, const char *line)
{
	if (strstr(line, "DUE TO TIME LIMIT"))
		return CS_TIMEOUT;
	if (strstr(line, "oom-kill") || strstr(line, "oom_kill"))
		return CS_OOM;
	if (strstr(line, "DUE TO NODE FAILURE"))
		return CS_NODE_FAIL;
	if (strstr(line, "DUE TO PREEMPTION"))
		return CS_PREEMPTED;
	if (strstr(line, "CANCELLED AT") && st == CS_FAILED)
		return CS_CANCELLED;
	if (strstr(line, "[after training is done]") && st == CS_FAILED)
		return CS_COMPLETED;
	return st;
}

/* A line longer than the buffer is judged in pieces that overlap by
 * this much, so that no verdict is cut in two. */
#define OUTPUT_OVERLAP 64
/* How much of a job's output's end is searched for Slurm's verdicts. */
#define OUTPUT_TAIL_BYTES ((off_t)64 << 20)

/*
 * Without accounting, a job the controller forgot is judged by its own
 * output: Slurm writes its verdicts there, the trainer its last words.
 * Byte by byte: a trainer that died mid-write can leave NUL bytes or
 * binary before slurmstepd's line, which must not hide it (unlocked:
 * the file is the training log, possibly large, read by one thread).
 */
enum cand_state
runner_output_state(const char *path)
{
	FILE *f = fopen_regular(path);
	enum cand_state st = CS_FAILED;
	struct stat fst;
	char line[4096];
	size_t n = 0;
	int ch;

	if (f == NULL)
		return CS_FAILED;
	/* The verdicts are written last: a huge log (or a sparse one a
	 * user planted) is read at its end only. */
	if (fstat(fileno(f), &fst) == 0 && fst.st_size > OUTPUT_TAIL_BYTES)
		(void)fseeko(f, fst.st_size - OUTPUT_TAIL_BYTES, SEEK_SET);
	while ((ch = getc_unlocked(f)) != EOF) {
		if (ch != '\n') {
			line[n++] = (char)(ch == '\0' ? ' ' : ch);
			if (n < sizeof line - 1)
				continue;
		}
		line[n] = '\0';
		st = output_verdict(st, line);
		n = ch == '\n' ? 0 : OUTPUT_OVERLAP;
		if (n > 0)
			memmove(line, line + sizeof line - 1 - n, n);
	}
	line[n] = '\0';
	st = output_verdict(st, line);
	fclose(f);
	return st;
}

/* N of a name "slurm-N.out" (the output sbatch was given), else 0. */
static unsigned long
output_job_id(const char *name)
{
	char *end;
	unsigned long id;

	if (strncmp(name, "slurm-", 6) || !isdigit((unsigned char)name[6]))
		return 0;
	errno = 0;
	id = strtoul(name + 6, &end, 10);
	return errno || strcmp(end, ".out") ? 0 : id;
}

/* The newest job output in dir since the intent (runner.h). */
uint32_t
runner_output_newest(const char *dir, long since)
{
	DIR *d = opendir(dir);
	const struct dirent *e;
	uint32_t newest = 0;

	while (d && (e = readdir(d)) != NULL) {
		unsigned long id = output_job_id(e->d_name);
		struct stat st;

		if (id == 0 || id > UINT32_MAX ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_mtime < since)
			continue;
		if (id > newest)
			newest = (uint32_t)id;
	}
	if (d)
		closedir(d);
	return newest;
}
