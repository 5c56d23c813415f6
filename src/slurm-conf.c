/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm-conf.c - opening and closing the connection to Slurm: whether
 * libslurm will find a configuration it can parse (checked first, since
 * libslurm exits the process when it cannot), and the default
 * environment of the jobs submitted through the connection.  Kept apart
 * from the RPCs: none of this talks to the controller.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <arpa/nameser.h>
#include <netinet/in.h>
#include <resolv.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slurm-int.h"
#include "slurm.h"
#include "strbuf.h"
#include "strlist.h"
#include "xalloc.h"

/* Where slurmd keeps the configuration it fetched in configless mode;
 * libslurm reads it there before asking DNS. */
#define SLURM_CONF_CACHE "/run/slurm/conf/slurm.conf"

/* ---- the connection ------------------------------------------------------ */

/* Add NAME=value from our own environment, when it is set. */
static void
slurm_env_pass(struct str_list *env, const char *name, const char *dflt)
{
	const char *v = getenv(name);
	char *kv;

	if (v == NULL && dflt == NULL)
		return;
	kv = xasprintf("%s=%s", name, v ? v : dflt);
	str_list_push(env, kv);
	free(kv);
}

/*
 * The environment a job gets when the caller names none.  sbatch sends
 * its whole environment; paratune sends a small fixed one instead, so
 * that a job started from cron and one started from a login shell run
 * alike, and no token of the submitting shell lands in the controller's
 * state (or in slurmdbd, with AccountingStoreFlags=job_env).  The job
 * script exports what the job needs.  LANG=C keeps tool messages in the
 * English that the log parser reads.  The controller refuses a batch job
 * with no environment at all (ESLURM_ENVIRONMENT_MISSING).
 */
static void
slurm_default_env(struct str_list *env)
{
	/* Debian's login.defs ENV_PATH, without /usr/games. */
	slurm_env_pass(env, "PATH", "/usr/local/bin:/usr/bin:/bin");
	slurm_env_pass(env, "HOME", NULL);
	slurm_env_pass(env, "USER", NULL);
	slurm_env_pass(env, "SLURM_CONF", NULL);
	str_list_push(env, "LANG=C");
}

/* Whether DNS names a controller for configless Slurm (the SRV record
 * libslurm asks for when it has no file). */
static bool
slurm_conf_srv(void)
{
#ifdef HAVE_RES_SEARCH
	unsigned char answer[1024];

	return res_search("_slurmctld._tcp", C_IN, T_SRV, answer,
	                  (int)sizeof answer) > 0;
#else
	return false;
#endif
}

/*
 * Whether libslurm will find a configuration, looking where it looks:
 * SLURM_CONF, the default file, slurmd's configless cache, then DNS.
 * libslurm itself calls fatal() when all fail, which exits the process
 * with its own words; this says which file and what to set instead.
 */
static int
slurm_conf_check(struct strbuf *err)
{
	const char *conf = getenv("SLURM_CONF");

	if (conf && *conf) {
		struct stat st;

		/* libslurm would read a directory as an empty file. */
		if (stat(conf, &st) == 0 && S_ISDIR(st.st_mode))
			errno = EISDIR;
		else if (access(conf, R_OK) == 0)
			return 0;
		strbuf_addf(err, "cannot read SLURM_CONF '%s': %s (set "
		            "SLURM_CONF to the cluster's slurm.conf)", conf,
		            strerror(errno));
		return -1;
	}
	if (access(PARATUNE_SLURM_CONF_DEFAULT, R_OK) == 0 ||
	    access(SLURM_CONF_CACHE, R_OK) == 0 || slurm_conf_srv())
		return 0;
	strbuf_addf(err, "no Slurm configuration: SLURM_CONF is %s, "
	            "'%s' cannot be read and DNS has no _slurmctld._tcp SRV "
	            "record for configless Slurm (set SLURM_CONF to the "
	            "cluster's slurm.conf, publish the SRV record, or build "
	            "paratune --with-slurm=PREFIX or --with-slurm-conf=FILE "
	            "of the Slurm installed here)",
	            conf ? "empty" : "not set", PARATUNE_SLURM_CONF_DEFAULT);
	return -1;
}

#ifdef HAVE_SLURM_INIT
/* What a child said on the pipe fd, up to its end: its first line, without
 * libslurm's "paratune: error: " prefix.  The line names a path, so it
 * may be as long as one; longer, it is cut and says so. */
static void
read_first_line(int fd, struct strbuf *line)
{
	char buf[4200], rest[512];
	size_t len = 0;
	bool cut = false;

	/* Read to the end, so that the child never blocks on a full pipe. */
	for (;;) {
		size_t room = sizeof buf - 1 - len;
		ssize_t n = room ? read(fd, buf + len, room)
		                 : read(fd, rest, sizeof rest);

		if (n == 0 || (n < 0 && errno != EINTR))
			break;
		if (n > 0 && room)
			len += (size_t)n;
		else if (n > 0)
			cut = true;
	}
	buf[len] = '\0';
	if (buf[strcspn(buf, "\n")] == '\0' && cut)
		memcpy(buf + len - 3, "...", 3);
	slurm_log_line(line, buf);
}

/*
 * Whether libslurm can parse the configuration it found.  slurm_init()
 * calls fatal() on one it cannot (a directory, a typo), which exits the
 * process with status 1 and libslurm's words only, in the middle of a
 * submit.  A child reads it first; its first complaint goes into err.
 */
static int
slurm_conf_parse(struct strbuf *err)
{
	const char *conf = getenv("SLURM_CONF");
	int fds[2], status = 0;
	pid_t pid;

	if (pipe(fds) != 0)
		return 0;	/* unchecked: libslurm still says why */
	/* What is buffered now would be written by both processes. */
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDERR_FILENO) < 0)
			_exit(0);
		slurm_init(NULL);
		_exit(0);
	}
	close(fds[1]);
	/* Callers say "cannot reach Slurm: " first. */
	strbuf_addstr(err, "configuration");
	if (conf && *conf)
		strbuf_addf(err, " '%s'", conf);
	strbuf_addstr(err, " unusable: ");
	read_first_line(fds[0], err);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		strbuf_reset(err);
		return 0;
	}
	return -1;
}
#endif

/* Initialise libslurm and record who we are. */
struct slurm_conn *
slurm_open(struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct slurm_conn *c;

	if (slurm_conf_check(&why) != 0
#ifdef HAVE_SLURM_INIT
	    || slurm_conf_parse(&why) != 0
#endif
	    ) {
		if (err)
			strbuf_addstr(err, why.buf);
		strbuf_release(&why);
		return NULL;
	}
	strbuf_release(&why);
#ifdef HAVE_SLURM_INIT
	slurm_init(NULL);
#endif
	c = xcalloc(1, sizeof(*c));
	c->uid = getuid();
	c->gid = getgid();
	slurm_default_env(&c->env);
	return c;
}

/* Drop every cached answer and connection, then libslurm itself. */
void
slurm_close(struct slurm_conn *c)
{
	if (c == NULL)
		return;
	if (c->db)
		slurmdb_connection_close(&c->db);
	str_list_clear(&c->env);
	free(c->jobs);
	free(c->acct);
	free(c->cluster);
	free(c->storage);
	free(c);
#ifdef HAVE_SLURM_INIT
	slurm_fini();
#endif
}
