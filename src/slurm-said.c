/* SPDX-License-Identifier: GPL-2.0-or-later
 * Copyright (C) 2026 the paratune authors */
/*
 * slurm-said.c - what libslurm logged while a request to the controller
 * failed, kept off the terminal (stderr-capture.h) and said in
 * paratune's message where it tells what Slurm's error number does not.
 *
 * With munged stopped, or its socket gone, every request failed with
 * "Protocol authentication error" alone; the reason, munge's, was only
 * in the three lines libslurm printed before paratune's message
 * ("paratune: error: If munged is up, restart with --num-threads=10",
 * "paratune: error: Munge encode failed: Failed to access
 * "/run/munge/munge.socket.2": No such file or directory (Did you start
 * munged?)", "paratune: error: slurm_send_node_msg: auth_g_create:
 * REQUEST_JOB_INFO has authentication error"), on every campaign of a
 * cron run.
 */
#include "autoconfig.h"

#include <stdbool.h>
#include <string.h>

#include "slurm-int.h"
#include "stderr-capture.h"
#include "strbuf.h"

bool
slurm_auth_error(int e)
{
	return e == SLURM_PROTOCOL_AUTHENTICATION_ERROR ||
	       (e >= ESLURM_AUTH_CRED_INVALID && e <= ESLURM_AUTH_UNPACK);
}

/*
 * Whether a logged line (its prefix gone) says no reason: a hint ("If
 * munged is up, ...") or a trace that starts with a function's name
 * ("slurm_send_node_msg: auth_g_create: ... has authentication error",
 * which only repeats the error number's text).
 */
static bool
said_is_noise(const char *line)
{
	size_t id = strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return !strncmp(line, "If ", 3) ||
	       (id > 0 && !strncmp(line + id, ": ", 2));
}

void
slurm_said_begin(struct slurm_said *s)
{
	strbuf_init(&s->reason, 0);
	stderr_capture_begin(&s->cap);
}

/*
 * End the capture; for a failure e that was an authentication error,
 * put the first line of what libslurm said that gives a reason into
 * s->reason (munge's "Munge encode failed: ..."); empty otherwise.
 */
void
slurm_said_end(struct slurm_said *s, int e)
{
	struct strbuf text = STRBUF_INIT, line = STRBUF_INIT;
	const char *p;

	stderr_capture_end(&s->cap, e ? &text : NULL);
	for (p = text.buf; e && slurm_auth_error(e) && *p;) {
		strbuf_reset(&line);
		slurm_log_line(&line, p);
		if (line.len > 0 && !said_is_noise(line.buf)) {
			strbuf_addstr(&s->reason, line.buf);
			break;
		}
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	strbuf_release(&line);
	strbuf_release(&text);
}

/* After slurm_fail's message in err, " (libslurm: REASON)" when s has
 * one, as slurmdbd's failures say theirs (slurm-acct.c). */
void
slurm_said_add(const struct slurm_said *s, struct strbuf *err)
{
	if (err && s->reason.len > 0)
		strbuf_addf(err, " (libslurm: %s)", s->reason.buf);
}

void
slurm_said_release(struct slurm_said *s)
{
	strbuf_release(&s->reason);
}
