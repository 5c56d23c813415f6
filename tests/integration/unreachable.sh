#!/usr/bin/env bash
# slurmdbd or the controller out of reach for paratune alone, on the
# local testbed: paratune is pointed at a copy of its slurm.conf whose
# AccountingStoragePort (or SlurmctldPort) names a port where nothing
# listens, so no daemon is stopped and other suites can share the
# testbed meanwhile.
#   1. slurmdbd unreachable when resume must ask it about a job that
#      left the controller: libslurm printed its own lines
#      ("paratune: error: slurm_persist_conn_open_without_init: failed
#      to open persistent connection to host:localhost:PORT: Connection
#      refused", "paratune: error: Sending PersistInit msg: ...") before
#      paratune's.  Now stderr holds paratune's message alone, one line
#      that names slurmdbd and carries libslurm's reason and what its
#      log line added (the host and port).
#   2. slurmdbd's host unknown: one line again, with libslurm's words.
#   3. the controller unreachable: one line, naming the controller.
#   4. munged out of reach (AuthInfo names a socket where none is, as
#      when munged is stopped): libslurm printed three lines of its own
#      before paratune's "Protocol authentication error", and munge's
#      reason was only in them.  Now resume, submit and cancel each say
#      one line that carries it.
# In each, resume exits 75 and judges nothing.
#
# Needs root and the testbed (scripts/testbed up is run when it is not
# up).  Under a minute.  Last line: "N passed, N failed"; exit 1 on
# failure.

set -uo pipefail

SUITE=unreachable
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
trap suite_end EXIT

"$TESTBED" status >/dev/null 2>&1 || "$TESTBED" up >/dev/null ||
	{ fail "testbed up"; exit 1; }
eval "$("$TESTBED" env)"
REAL_CONF=$SLURM_CONF

# free_port: a local TCP port where nothing listens now.
free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# conf_with KEY VALUE NAME: a copy of the testbed's slurm.conf, KEY set
# to VALUE, as WORK/NAME.conf.
conf_with() {
	sed "s/^$1=.*/$1=$2/" "$REAL_CONF" >"$WORK/$3.conf"
	grep -q "^$1=$2\$" "$WORK/$3.conf"
}

gone() { ! scontrol show job "$1" >/dev/null 2>&1; }
in_accounting() {
	[[ $(sacct -n -X -j "$1" -o State 2>/dev/null) == *COMPLETED* ]]
}

# conf_plus LINE NAME: a copy of the testbed's slurm.conf with LINE
# added, as WORK/NAME.conf.
conf_plus() {
	{ cat "$REAL_CONF"; echo "$1"; } >"$WORK/$2.conf"
}

# resume_alone NAME CONF: resume D with slurm.conf CONF; its stderr in
# WORK/err.NAME, its status in rc, the journal's new lines in new.
resume_alone() {
	local lines
	lines=$(wc -l <"$D/journal.log")
	SLURM_CONF=$2 "$PT" -q resume "$D" 2>"$WORK/err.$1"
	rc=$?
	sed 's/^/  /' "$WORK/err.$1"
	new=$(tail -n +$((lines + 1)) "$D/journal.log")
}

JUDGED='state=(completed|failed|oom|timeout|node_fail|cancelled)'
JUDGED+='|lost=|source=|vanished|intent|submitted'

echo "--- jobs that left the controller (at $((SECONDS - T0)) s)"
D=$WORK/c
plan_one_node c 50 '[8]' || { fail "plan"; exit 1; }
"$PT" -q submit "$D" || fail "submit"
mapfile -t IDS < <(job_ids "$D")
check "2 jobs submitted (${IDS[*]})" test "${#IDS[@]}" = 2
for id in "${IDS[@]}"; do
	check "job $id ended and left the controller" wait_for 120 gone "$id"
	check "and accounting has it" wait_for 30 in_accounting "$id"
done

echo "--- 1. slurmdbd's port closed (at $((SECONDS - T0)) s)"
PORT=$(free_port)
conf_with AccountingStoragePort "$PORT" dbd-port || fail "conf dbd-port"
resume_alone dbd "$WORK/dbd-port.conf"
check "resume exits 75 ($rc)" test "$rc" = 75
check "stderr is one line" test "$(wc -l <"$WORK/err.dbd")" = 1
check "none of libslurm's own lines" \
	eval '! grep -q "^paratune: " "$WORK/err.dbd"'
check "it names the campaign and slurmdbd, with libslurm's reason" grep -q \
	"^error: $D: cannot reach slurmdbd (accounting_storage/slurmdbd): Connection refused" \
	"$WORK/err.dbd"
check "and where slurmdbd was looked for, from libslurm's line" \
	grep -q "(libslurm: .*localhost:$PORT)\$" "$WORK/err.dbd"
check "it judged nothing" test -z "$(grep -E "$JUDGED" <<<"$new")"

echo "--- 2. slurmdbd's host unknown (at $((SECONDS - T0)) s)"
conf_with AccountingStorageHost nowhere.invalid dbd-host ||
	fail "conf dbd-host"
resume_alone host "$WORK/dbd-host.conf"
check "resume exits 75 ($rc)" test "$rc" = 75
check "stderr is one line" test "$(wc -l <"$WORK/err.host")" = 1
check "naming slurmdbd, with what libslurm said" \
	grep -q "^error: $D: .*slurmdbd.*(libslurm: .*)\$" "$WORK/err.host"
check "it judged nothing" test -z "$(grep -E "$JUDGED" <<<"$new")"

echo "--- 3. the controller's port closed (at $((SECONDS - T0)) s)"
conf_with SlurmctldPort "$(free_port)" ctld-port || fail "conf ctld-port"
resume_alone ctld "$WORK/ctld-port.conf"
check "resume exits 75 ($rc)" test "$rc" = 75
check "stderr is one line" test "$(wc -l <"$WORK/err.ctld")" = 1
check "naming the controller" grep -q \
	"^error: $D: cannot reach the Slurm controller: jobs not polled" \
	"$WORK/err.ctld"
check "it judged nothing" test -z "$(grep -E "$JUDGED" <<<"$new")"

echo "--- 4. munged's socket missing (at $((SECONDS - T0)) s)"
conf_plus "AuthInfo=socket=$WORK/no-munge.socket" munge
MUNGED="Munge encode failed: Failed to access \"$WORK/no-munge.socket\""
resume_alone munge "$WORK/munge.conf"
check "resume exits 75 ($rc)" test "$rc" = 75
check "stderr is one line" test "$(wc -l <"$WORK/err.munge")" = 1
# It said "cannot reach the Slurm controller", which was up: munge could
# not sign the request.
check "naming authentication, Slurm's error and munge's reason" grep -qF \
	"error: $D: cannot authenticate to the Slurm controller: jobs not polled \
(Protocol authentication error; libslurm: $MUNGED" "$WORK/err.munge"
check "it judged nothing" test -z "$(grep -E "$JUDGED" <<<"$new")"
before=$(md5sum <"$D/state")
SLURM_CONF=$WORK/munge.conf "$PT" -q cancel "$D" 2>"$WORK/err.mcancel"
rc=$?
sed 's/^/  /' "$WORK/err.mcancel"
check "cancel exits 75 ($rc)" test "$rc" = 75
check "none of libslurm's own lines" \
	eval '! grep -q "^paratune: " "$WORK/err.mcancel"'
check "its error carries munge's reason" grep -qF "$MUNGED" "$WORK/err.mcancel"
check "and the state is as it was" test "$(md5sum <"$D/state")" = "$before"
plan_one_node m 50 '[8]' '[1]' || fail "plan m"
SLURM_CONF=$WORK/munge.conf "$PT" -q submit "$WORK/m" --top 1 \
	2>"$WORK/err.msubmit"
rc=$?
sed 's/^/  /' "$WORK/err.msubmit"
check "submit exits 75 ($rc)" test "$rc" = 75
check "none of libslurm's own lines" \
	eval '! grep -q "^paratune: " "$WORK/err.msubmit"'
check "its error names the job" \
	grep -qF "cannot submit job 'pt-$(awk '/^campaign /{print $2}' \
	"$WORK/m/state")-" "$WORK/err.msubmit"
check "... Slurm's error and munge's reason" grep -qF \
	"': Protocol authentication error (libslurm: $MUNGED" "$WORK/err.msubmit"
check "nothing was submitted" test -z "$(job_ids "$WORK/m")"

echo "--- slurmdbd back (at $((SECONDS - T0)) s)"
resume_alone real "$REAL_CONF"
check "with the testbed's own slurm.conf resume succeeds ($rc)" \
	test "$rc" = 0
check "and reads both ends from accounting" \
	test "$(grep -c ' state=completed .*source=accounting' \
		"$D/journal.log")" = 2
DONE=1
