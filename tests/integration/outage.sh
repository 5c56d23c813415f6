#!/usr/bin/env bash
# Slurm outages in the middle of a campaign (issue 6, section 3), on the
# local testbed.  Clusters restart their daemons under running
# campaigns; paratune must lose nothing and must not guess:
#   1. slurmdbd down while jobs end and leave the controller (the
#      testbed's MinJobAge is 2 s; real clusters' default is 300 s): the
#      jobs are then known to nobody that paratune can reach, and resume
#      must not judge them (no "vanished", no failure from guesswork, no
#      resubmission); it exits 75 (EX_TEMPFAIL, "try again later").
#      Once slurmdbd is back, slurmctld sends it the records it queued,
#      resume finds the jobs there (source=accounting) and the campaign
#      finishes with every candidate completed.
#   2. slurmctld stopped and started again (keeping its state) while
#      jobs run and wait: resume exits 75 and records nothing while it
#      is down; afterwards the campaign runs to the end, every candidate
#      in a final state that agrees with accounting's for its job, and
#      no tag submitted twice.
#   3. MariaDB stopped, slurmdbd left running, when resume must ask
#      accounting about jobs that left the controller: exit 75,
#      nothing judged, and the message says that slurmdbd answers but
#      cannot reach its database ("cannot reach slurmdbd" sent the
#      sysadmin to a daemon that runs).
#   4. slurmctld hung (SIGSTOP) while a submission is sent: submit
#      exits 75 after MessageTimeout, saying that the controller did
#      not answer and that the job may exist; once the controller goes
#      on, it makes the job, and resume finds it by its tag rather
#      than submitting it again.
#
# Needs root and the testbed (scripts/testbed up is run; it is left up,
# with its daemons running again even when a check fails).
# About 2 minutes.  Last line: "N passed, N failed"; exit 1 on failure.

set -uo pipefail

SUITE=outage
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

finish() {
	[[ -n ${HUNG:-} ]] && kill -CONT "$HUNG" 2>/dev/null
	"$TESTBED" start mysqld >/dev/null 2>&1
	"$TESTBED" start slurmdbd >/dev/null 2>&1
	"$TESTBED" start slurmctld >/dev/null 2>&1
	suite_end
}
trap finish EXIT

"$TESTBED" up >/dev/null || { fail "testbed up"; exit 1; }
eval "$("$TESTBED" env)"
START=$(date -d "@$(($(date +%s) - 5))" +%Y-%m-%dT%H:%M:%S)

# gone IDS...: none of the jobs is known to the controller any more.
gone() {
	local id
	for id in "$@"; do
		scontrol show job "$id" >/dev/null 2>&1 && return 1
	done
	return 0
}

# in_accounting N DIR: accounting lists N jobs of the campaign.
in_accounting() {
	local id
	id=$(awk '/^campaign /{print $2}' "$2/state")
	[[ $(sacct -a -X -n -P -S "$START" -o JobName 2>/dev/null |
		grep -c "^pt-$id-") -ge $1 ]]
}

no_duplicate_tags() {
	local id
	id=$(awk '/^campaign /{print $2}' "$1/state")
	[[ -z $(sacct -a -X -n -P -S "$START" -o JobName 2>/dev/null |
		grep "^pt-$id-" | sort | uniq -d) ]]
}

# agrees_with_accounting DIR: each candidate's final state is what
# accounting says of its job.
agrees_with_accounting() {
	local bad=0 name job st acct
	while read -r name job st; do
		acct=$(sacct -n -X -P -j "$job" -o State 2>/dev/null | head -n 1)
		acct=${acct%% *}
		case $acct in
		COMPLETED) acct=completed ;; FAILED) acct=failed ;;
		CANCELLED) acct=cancelled ;; TIMEOUT) acct=timeout ;;
		NODE_FAIL) acct=node_fail ;; OUT_OF_MEMORY) acct=oom ;;
		PREEMPTED) acct=preempted ;;
		esac
		[[ $acct == "$st" ]] ||
			{ echo "  $name: job $job: $st, accounting: $acct"
			  bad=1; }
	done < <("$PT" status "$1" --format json | python3 -c '
import json, sys
for c in json.load(sys.stdin)["candidates"]:
    print(c["name"], c["job_id"], c["state"])')
	return $bad
}

# ---- 1. slurmdbd down while the jobs leave the controller -------------------
echo "--- slurmdbd down (at $((SECONDS - T0)) s)"
D=$WORK/dbd
plan_one_node dbd 5 '[1, 2, 4, 8]' '[1]' || { fail "plan dbd"; exit 1; }
"$PT" -q submit "$D" || fail "submit"
mapfile -t IDS < <(job_ids "$D")
check "4 jobs submitted (${IDS[*]})" test "${#IDS[@]}" = 4
# slurmctld keeps a job until slurmdbd has given it a database index:
# let the jobs reach accounting before it goes down.
check "the jobs reached accounting" wait_for 30 in_accounting 4 "$D"
"$TESTBED" stop slurmdbd >/dev/null
check "with slurmdbd down, the jobs end and leave the controller" \
	wait_for 120 gone "${IDS[@]}"
lines=$(wc -l <"$D/journal.log")
"$PT" -q resume "$D" 2>"$WORK/err.dbd"
rc=$?
sed 's/^/  /' "$WORK/err.dbd"
check "resume exits 75 ($rc)" test "$rc" = 75
check "and says slurmdbd is out of reach" grep -q slurmdbd "$WORK/err.dbd"
JUDGED='state=(completed|failed|oom|timeout|node_fail|cancelled)'
JUDGED+='|lost=|source=log|vanished|intent'
check "it judged nothing: no final state, no lost job, no log verdict" \
	test -z "$(tail -n +$((lines + 1)) "$D/journal.log" | grep -E "$JUDGED")"
check "resume again: 75 again, nothing judged" \
	eval '"$PT" -q resume "$D" 2>/dev/null; test $? = 75 &&
		test -z "$(tail -n +$((lines + 1)) "$D/journal.log" |
		grep -E "$JUDGED")"'
"$TESTBED" start slurmdbd >/dev/null
check "slurmdbd back: the campaign finishes" resume_until "$D" 120
check "every candidate completed" \
	test "$(states "$D")" = "completed completed completed completed"
check "their ends were read from accounting" \
	test "$(grep -c ' state=completed .*source=accounting' "$D/journal.log")" = 4
check "no tag submitted twice" no_duplicate_tags "$D"
check "one intent per candidate" \
	test "$(awk '$3 == "intent"' "$D/journal.log" | wc -l)" = 4

# ---- 2. slurmctld restarted in the middle of the campaign -------------------
echo "--- slurmctld restart (at $((SECONDS - T0)) s)"
D=$WORK/ctld
plan_one_node ctld 2 '[1, 2, 4, 8]' '[1, 2, 4]' || { fail "plan ctld"; exit 1; }
"$PT" -q submit "$D" || fail "submit"
for ((i = 0; i < 5; i++)); do "$PT" -q resume "$D"; sleep 1; done
before=$(md5sum <"$D/state")
stop_controller
"$PT" -q resume "$D" 2>"$WORK/err.ctld"
rc=$?
check "controller down: resume exits 75 ($rc)" test "$rc" = 75
check "and leaves the state as it was" test "$(md5sum <"$D/state")" = "$before"
# Cron's resume goes over many campaigns: its error names this one.
check "its error names the campaign" \
	grep -q "^error: $D: cannot reach the Slurm controller: " "$WORK/err.ctld"
# It said "cannot reach the Slurm controller: cannot load jobs: Unable
# to contact slurm controller (connect failure)": the controller twice.
check "and names the controller once, and what it did not do" \
	grep -q "^error: $D: cannot reach the Slurm controller: jobs not polled (.*)$" \
	"$WORK/err.ctld"
check "... once" test "$(grep -oi 'controller' "$WORK/err.ctld" | wc -l)" = 1
# A first submission with the controller down: the campaign, then the
# candidate, then what failed, once ("cannot submit NAME: cannot submit
# job 'TAG': ..." said it twice).
plan_one_node fresh 1 '[1]' '[1]' || fail "plan fresh"
"$PT" -q submit "$WORK/fresh" 2>"$WORK/err.fresh"
rc=$?
sed 's/^/  /' "$WORK/err.fresh"
check "controller down: submit exits 75 ($rc)" test "$rc" = 75
check "its error names the campaign and the candidate" \
	grep -q "^error: $WORK/fresh: [^:]*: cannot submit job 'pt-" \
	"$WORK/err.fresh"
check "and says 'cannot submit' once" \
	test "$(grep -o 'cannot submit' "$WORK/err.fresh" | wc -l)" = 1
# Cron over many campaigns waited out libslurm's timeout on each in turn:
# once one finds the controller down, the others are not tried.
fresh_before=$(md5sum <"$WORK/fresh/state")
"$PT" -q resume "$D" "$WORK/fresh" 2>"$WORK/err.two"
rc=$?
sed 's/^/  /' "$WORK/err.two"
check "controller down, two campaigns: resume exits 75 ($rc)" test "$rc" = 75
check "the first says why" \
	grep -q "^error: $D: cannot reach the Slurm controller: " "$WORK/err.two"
check "the second is not tried, naming the first" grep -q \
	"^error: $WORK/fresh: not tried: the Slurm controller did not answer, or did not take paratune's credential, for '$D'" \
	"$WORK/err.two"
check "and both states are as they were" test \
	"$(md5sum <"$D/state") $(md5sum <"$WORK/fresh/state")" = \
	"$before $fresh_before"
sleep 5 # running jobs go on (and some end) while it is down
"$TESTBED" start slurmctld >/dev/null
check "controller back: the campaign finishes" resume_until "$D" 240
n=$(states "$D" | wc -w)
final=$(states "$D" | tr ' ' '\n' |
	grep -cE '^(completed|failed|oom|timeout|node_fail|cancelled|preempted)$')
check "every one of the $n candidates is final ($final)" test "$final" = "$n"
check "each as accounting has its job" agrees_with_accounting "$D"
check "no tag submitted twice" no_duplicate_tags "$D"
check "the journal is numbered 1..N without a gap" \
	awk '$1 != NR { exit 1 }' "$D/journal.log"
echo "figures: $n candidates: $(states "$D" | tr ' ' '\n' | uniq -c |
	awk '{ printf "%s%d %s", sep, $1, $2; sep = ", " }')"

# ---- 3. the database down, slurmdbd up -------------------------------------
echo "--- database down (at $((SECONDS - T0)) s)"
D=$WORK/db
plan_one_node db 50 '[8]' || { fail "plan db"; exit 1; }
"$PT" -q submit "$D" || fail "submit"
mapfile -t IDS < <(job_ids "$D")
check "2 jobs submitted (${IDS[*]})" test "${#IDS[@]}" = 2
check "they end and leave the controller" wait_for 120 gone "${IDS[@]}"
check "and reach accounting" wait_for 30 in_accounting 2 "$D"
"$TESTBED" stop mysqld >/dev/null
lines=$(wc -l <"$D/journal.log")
"$PT" -q resume "$D" 2>"$WORK/err.db"
rc=$?
sed 's/^/  /' "$WORK/err.db"
"$TESTBED" start mysqld >/dev/null
check "resume exits 75 ($rc)" test "$rc" = 75
check "saying slurmdbd answers but cannot reach its database" grep -q \
	"^error: $D: slurmdbd (accounting_storage/slurmdbd) answers but cannot reach its database: " \
	"$WORK/err.db"
check "it judged nothing" \
	test -z "$(tail -n +$((lines + 1)) "$D/journal.log" | grep -E "$JUDGED")"
check "the database back: the campaign finishes" resume_until "$D" 60
# ---- 4. slurmctld hung while a job is submitted -----------------------------
echo "--- controller hung (at $((SECONDS - T0)) s)"
D=$WORK/hung
plan_one_node hung 50 '[8]' '[1]' || { fail "plan hung"; exit 1; }
HUNG=$(cat "$PARATUNE_TESTBED_DIR/pids/slurmctld.pid")
kill -STOP "$HUNG"
t=$SECONDS
"$PT" -q submit "$D" --top 1 2>"$WORK/err.hung"
rc=$?
t=$((SECONDS - t))
kill -CONT "$HUNG"
HUNG=
sed 's/^/  /' "$WORK/err.hung"
check "submit exits 75 ($rc) after the controller's timeout ($t s)" \
	test "$rc" = 75 -a "$t" -lt 60
check "saying the controller did not answer and the job may exist" grep -q \
	"cannot submit job 'pt-[^']*': .*the Slurm controller did not answer in time: the job may exist" \
	"$WORK/err.hung"
check "the controller back: resume finds the job, once" \
	wait_for 20 eval '"$PT" -q resume "$D" 2>/dev/null
		grep -q " state .* job=[1-9][0-9]* " "$D/journal.log"'
check "one intent" test "$(awk '$3 == "intent"' "$D/journal.log" | wc -l)" = 1
check "no tag submitted twice" no_duplicate_tags "$D"
"$PT" -q cancel "$D"
DONE=1
