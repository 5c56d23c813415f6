#!/usr/bin/env bash
# What a sysadmin does to the cluster under a campaign, on the local
# testbed; paratune must neither lose a run nor touch a job not its own:
#   1. the partition drained for maintenance while candidates are
#      queued: Slurm refuses every submission, and every candidate was
#      failed for good, the whole campaign lost to it.  Now submit exits
#      75 saying why, the candidates stay queued, and resume submits
#      them once the partition is up.  A partition's MaxTime lowered
#      below the jobs' limit: resume says once that they cannot start.
#   2. slurmctld started again from an empty state directory (a lost
#      StateSaveLocation): it numbers jobs from 1 again, and the id a
#      candidate recorded becomes another job of the same user.  resume
#      took that job for the candidate's (its hold, its end) and cancel
#      cancelled it.  Now neither does: the candidate's own record is
#      read from accounting, where every job of the id is kept, and
#      where accounting never heard of the job, cancel looks at the
#      job's name before it kills.
#   3. a cluster without accounting: a submission interrupted after
#      Slurm took the job, and the job gone from the controller before
#      the next run (MinJobAge).  resume said the job never reached
#      Slurm and submitted the candidate again; now its output shows
#      the job, which is recorded and judged from it.
# Section 2 empties the controller's state and section 3 runs it without
# accounting for a while (put back at the end): run this suite last.
#
# Needs root and the testbed (scripts/testbed up is run; it is left up).
# About a minute.  Last line: "N passed, N failed"; exit 1 on failure.

set -uo pipefail

SUITE=admin
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
CONF_SAVED=

finish() {
	scontrol update partitionname=debug state=up maxtime=INFINITE \
		>/dev/null 2>&1
	if [[ -n $CONF_SAVED ]]; then
		cp "$CONF_SAVED" "$SLURM_CONF"
		"$TESTBED" stop slurmctld >/dev/null 2>&1
		"$TESTBED" start slurmctld >/dev/null 2>&1
	fi
	scancel -u root -n userjob >/dev/null 2>&1
	suite_end
}
trap finish EXIT

"$TESTBED" up >/dev/null || { fail "testbed up"; exit 1; }
eval "$("$TESTBED" env)"
TESTBED_DIR=$(dirname "$SLURM_CONF")

in_accounting() { sacct -n -X -j "$1" -o JobID 2>/dev/null | grep -q .; }
gone() { ! scontrol show job "$1" >/dev/null 2>&1; }

# ---- 1. the partition drained while candidates wait ----------------------
echo "--- partition drained (at $((SECONDS - T0)) s)"
D=$WORK/drain
plan_one_node drain 50 '[1, 2]' || { fail "plan drain"; exit 1; }
scontrol update partitionname=debug state=drain
"$PT" submit "$D" --yes >"$WORK/out.drain" 2>"$WORK/err.drain"
rc=$?
sed 's/^/  /' "$WORK/err.drain"
check "submit to a drained partition exits 75 ($rc)" test "$rc" = 75
check "... saying Slurm refuses it for now, and why" \
	grep -q "refuses .* for now: .*partition not available" "$WORK/err.drain"
check "... leaving both candidates queued, no job" \
	test "$(states "$D")" = "queued queued"
"$PT" -q resume "$D" 2>/dev/null
rc=$?
check "resume while drained: 75 again ($rc), still queued" \
	eval 'test "$rc" = 75 && test "$(states "$D")" = "queued queued"'
scontrol update partitionname=debug state=up
"$PT" -q resume "$D"
check "partition up: resume submits both" \
	test "$(job_ids "$D" | wc -l)" = 2
check "... and no try was spent: each is its first attempt that ran" \
	test -z "$(awk '$3 == "rejected"' "$D/journal.log")"
"$PT" -q cancel "$D" >/dev/null 2>&1

# A partition's MaxTime lowered below the jobs' limit: they wait for
# ever, and resume said nothing of it.
D=$WORK/maxtime
plan_one_node maxtime 50 '[1]' || { fail "plan maxtime"; exit 1; }
scontrol update partitionname=debug maxtime=1
"$PT" -q submit "$D" --yes 2>/dev/null
"$PT" -q resume "$D" 2>"$WORK/err.maxtime"
sed 's/^/  /' "$WORK/err.maxtime"
check "a job that cannot start under the partition's MaxTime is said, under -q" \
	grep -qE "cannot start while Slurm says Partition(Config|TimeLimit)" \
	"$WORK/err.maxtime"
# Slurm names the wait PartitionConfig, then PartitionTimeLimit once its
# scheduler has passed (within seconds): one wait, said once.
wait_for 20 eval '[[ $(squeue -h -n "$(awk "/^campaign /{print \"pt-\" \$2 \"-1-1\"}" "$D/state")" -o %r) == PartitionTimeLimit ]]'
"$PT" -q resume "$D" 2>"$WORK/err.maxtime2"
sed 's/^/  /' "$WORK/err.maxtime2"
check "... once, not at every run" test ! -s "$WORK/err.maxtime2"
scontrol update partitionname=debug maxtime=INFINITE
"$PT" -q cancel "$D" >/dev/null 2>&1

# ---- 2. the controller's state lost: job ids given again ------------------
echo "--- controller state lost (at $((SECONDS - T0)) s)"
# lost_state: slurmctld started again from an empty state directory,
# which numbers jobs from FirstJobId (1) again.
lost_state() {
	stop_controller
	rm -rf "$TESTBED_DIR"/state/job_state* "$TESTBED_DIR"/state/hash.*
	"$TESTBED" start slurmctld >/dev/null
}
D=$WORK/reuse
plan_one_node reuse 50 '[1]' || { fail "plan reuse"; exit 1; }
lost_state
# Held before it can start: it waits on the partition's MaxTime first.
scontrol update partitionname=debug maxtime=1
"$PT" -q submit "$D" --yes 2>/dev/null
ID=$(job_ids "$D" | head -n 1)
scontrol hold "$ID"
scontrol update partitionname=debug maxtime=INFINITE
check "job $ID held and in accounting" wait_for 30 in_accounting "$ID"
"$PT" -q resume "$D"
lost_state
# The user's own job, given the id the candidate recorded.
UID_JOB=$(sbatch --parsable -H -J userjob -N 1 --wrap 'sleep 600')
check "a held job of the user takes id $ID ($UID_JOB)" test "$UID_JOB" = "$ID"
lines=$(wc -l <"$D/journal.log")
"$PT" -q resume "$D" 2>"$WORK/err.reuse"
check "resume does not take the user's job for the candidate's" \
	test -z "$(tail -n +$((lines + 1)) "$D/journal.log" | grep JobHeldUser)"
check "... but reads its own from accounting: cancelled with the state" \
	test "$(states "$D")" = cancelled
check "... a job that never started, with no start time (not 2106's)" \
	grep -q " state=cancelled .* start=0 " "$D/journal.log"
check "the user's job $ID still waits" \
	eval 'scontrol show job "$ID" | grep -q "JobState=PENDING"'
scancel -n userjob >/dev/null 2>&1
# submit_unrecorded: submit $D's candidate, held as job $ID, with
# slurmdbd down, then lose the controller's state and the records it
# queued for accounting: the next job submitted is given $ID again.
submit_unrecorded() {
	lost_state
	"$TESTBED" stop slurmdbd >/dev/null
	scontrol update partitionname=debug maxtime=1
	"$PT" -q submit "$D" --yes 2>/dev/null
	ID=$(job_ids "$D" | head -n 1)
	scontrol hold "$ID"
	scontrol update partitionname=debug maxtime=INFINITE
	rm -f "$TESTBED_DIR"/state/dbd.messages*
	lost_state
	rm -f "$TESTBED_DIR"/state/dbd.messages*
	"$TESTBED" start slurmdbd >/dev/null
}
# Where accounting never heard of the candidate's job (slurmdbd down,
# and the records slurmctld queued for it lost with its state), the
# candidate waits for accounting with the id on the user's job: cancel
# must look at the job's name before it kills.
D=$WORK/reuse2
plan_one_node reuse2 50 '[1]' || { fail "plan reuse2"; exit 1; }
submit_unrecorded
UID_JOB=$(sbatch --parsable -H -J userjob -N 1 --wrap 'sleep 600')
check "unknown to accounting, its id $ID goes to a held job of the user ($UID_JOB)" \
	test "$UID_JOB" = "$ID"
"$PT" -q resume "$D" 2>/dev/null
check "resume does not take it for the candidate's" \
	test -z "$(grep JobHeldUser "$D/journal.log")"
"$PT" cancel "$D" >"$WORK/out.cancel" 2>"$WORK/err.cancel"
sed 's/^/  /' "$WORK/err.cancel"
check "cancel leaves the user's job $ID alone" \
	eval 'scontrol show job "$ID" | grep -q "JobName=userjob" &&
		scontrol show job "$ID" | grep -q "JobState=PENDING"'
check "... saying the id is no longer the candidate's" \
	grep -q "no longer pt-.* but 'userjob'" "$WORK/err.cancel"
check "... and records the candidate cancelled" \
	test "$(states "$D")" = cancelled
scancel -n userjob >/dev/null 2>&1
# The same, the id going to another user's job: root's cancel of its own
# campaign killed it by number (root may cancel any job), for it was
# not among root's jobs under another name.  A job id that is not among
# the owner's jobs is left alone.
OTHER=ptmallory
id "$OTHER" >/dev/null 2>&1 || useradd -m -s /bin/bash "$OTHER" ||
	{ fail "useradd $OTHER"; exit 1; }
D=$WORK/reuse3
plan_one_node reuse3 50 '[1]' || { fail "plan reuse3"; exit 1; }
submit_unrecorded
OTHER_JOB=$(cd / && runuser -u "$OTHER" -- sbatch --parsable -H \
	-J otherjob -N 1 -o /dev/null --wrap 'sleep 600')
check "its id $ID goes to a held job of another user ($OTHER_JOB)" \
	test "$OTHER_JOB" = "$ID"
"$PT" cancel "$D" >"$WORK/out.cancel3" 2>"$WORK/err.cancel3"
sed 's/^/  /' "$WORK/err.cancel3"
check "root's cancel leaves the other user's job $ID alone" \
	eval 'scontrol show job "$ID" | grep -q "JobName=otherjob" &&
		scontrol show job "$ID" | grep -q "JobState=PENDING"'
check "... saying it is not among root's jobs, naming the state file" \
	grep -q "$D/state: .*job $ID is not among this user's jobs" \
	"$WORK/err.cancel3"
check "... and records the candidate cancelled" \
	test "$(states "$D")" = cancelled
scancel -n otherjob >/dev/null 2>&1

# ---- 3. no accounting: an interrupted submission's job gone --------------
echo "--- no accounting (at $((SECONDS - T0)) s)"
CONF_SAVED=$WORK/slurm.conf.saved
cp "$SLURM_CONF" "$CONF_SAVED"
sed -i '/^AccountingStorage/d' "$SLURM_CONF"
stop_controller
"$TESTBED" start slurmctld >/dev/null
D=$WORK/noacct
plan_one_node noacct 50 '[1]' || { fail "plan noacct"; exit 1; }
PARATUNE_TEST_KILL_AFTER_SUBMIT=1 "$PT" -q submit "$D" --yes 2>/dev/null
out_file() { ls "$D"/runs/*/slurm-*.out 2>/dev/null | head -n 1; }
wait_for 60 eval 'test -n "$(out_file)"'
ID=$(basename "$(out_file)" .out)
ID=${ID#slurm-}
check "the submission was cut after Slurm took job '$ID'" \
	eval 'test -n "$ID" && ! grep -q " submitted " "$D/journal.log"'
check "... which ends and leaves the controller" wait_for 120 gone "$ID"
sleep 10 # past the grace an intent is given
"$PT" resume "$D" >"$WORK/out.noacct" 2>&1
sed 's/^/  /' "$WORK/out.noacct"
check "resume finds job $ID by its output" \
	grep -q "reached Slurm as job $ID" "$WORK/out.noacct"
check "... submits nothing again" \
	test "$(awk '$3 == "intent"' "$D/journal.log" | wc -l)" = 1
check "... and judges the job from its output" \
	test "$(states "$D")" = completed
cp "$CONF_SAVED" "$SLURM_CONF"
stop_controller
"$TESTBED" start slurmctld >/dev/null
CONF_SAVED=
DONE=1
