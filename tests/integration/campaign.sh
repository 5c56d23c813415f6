#!/usr/bin/env bash
# Integration tests of paratune's Slurm side on the local testbed
# (scripts/testbed): a campaign carried to the end by resume alone (a
# dense and an MoE model), the failure kinds Slurm and the trainer
# produce, a run ended early once its step time is known, retries after
# a node failure, jobs found in accounting after they left the
# controller, exactly-once submission across a SIGKILL, the lock, a
# campaign moved while its job waits, and a controller that is down.
# Needs root and a running or startable testbed.
# Last line: "N passed, N failed"; exit 1 on any failure.

set -uo pipefail

SUITE=itest
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

finish() {
	scontrol update nodename=gpu[1-4] state=resume >/dev/null 2>&1 || true
	rm -rf "$WORK"
	echo "$PASS passed, $FAIL failed"
	exit $((FAIL == 0 && PASS > 0 ? 0 : 1))
}
trap finish EXIT

"$TESTBED" up >/dev/null || { fail "testbed up"; exit 1; }
eval "$("$TESTBED" env)"

# plan NAME [--set K=V]...: a fresh campaign directory from small.conf.
plan() {
	local name=$1; shift
	"$PT" -q plan "$DATA/small.conf" -o "$WORK/$name" --force "$@"
}

# state_of DIR NAME_PART: the recorded state of the candidate.
state_of() {
	"$PT" status "$1" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(c["state"] for c in d["candidates"] if sys.argv[1] in c["name"]))' "$2"
}

journal_no_gap() {
	awk '{ if ($1 != NR) exit 1 }' "$1/journal.log"
}

# No tag was ever submitted twice: accounting knows each tag once.
no_duplicate_tags() {
	local id
	id=$(awk '/^campaign /{print $2}' "$1/state")
	[[ -n $id ]] || return 1
	! sacct -n -X -P -S now-1hour -o JobName --name="" 2>/dev/null |
		grep "^pt-$id-" | sort | uniq -d | grep -q .
}

test_whole_campaign() {
	plan whole || { fail "plan"; return; }
	"$PT" -q submit "$WORK/whole" || { fail "submit"; return; }
	check "campaign runs to the end through resume alone" \
		resume_until "$WORK/whole" 150
	check "every selected candidate completed" \
		test "$(state_of "$WORK/whole" tp_)" = "completed completed completed"
	check "journal has no gap" journal_no_gap "$WORK/whole"
	check "no tag submitted twice" no_duplicate_tags "$WORK/whole"
	check "logs written in the run directories" \
		grep -q 'iteration *20/ *20' "$WORK"/whole/runs/*tp_8*/slurm-*.out
}

# A job that finished and left the controller while no resume ran is
# found in accounting, as on a busy cluster with cron every few minutes.
test_accounting() {
	local id i
	plan acct --set 'search.tensor_parallel=[8]' \
		--set 'limits.max_concurrent_jobs=1' || { fail "plan acct"; return; }
	"$PT" -q submit "$WORK/acct"
	id=$(awk '$3 == "submitted" {sub("job=", "", $5); print $5; exit}' \
		"$WORK/acct/journal.log")
	for ((i = 0; i < 90; i++)); do
		scontrol show job "$id" >/dev/null 2>&1 || break
		sleep 1
	done
	check "the job left the controller" test "$i" -lt 90
	"$PT" -q resume "$WORK/acct"
	check "its end was read from accounting" \
		grep -q "job=$id .*source=accounting" "$WORK/acct/journal.log"
	resume_until "$WORK/acct" 120
}

# A campaign under a path with "%": Slurm reads the output file's path
# as a pattern, and "%j" of the directory's name made every job fail
# with no output.
test_percent_path() {
	plan 'fifty%jx' --set 'search.tensor_parallel=[8]' ||
		{ fail "plan fifty%jx"; return; }
	"$PT" -q submit "$WORK/fifty%jx"
	resume_until "$WORK/fifty%jx" 90
	check "a campaign under a path with % completes" \
		test "$(state_of "$WORK/fifty%jx" tp_8)" = completed
	check "... its log where the path says" \
		grep -q 'iteration *20/ *20' "$WORK"/fifty%jx/runs/*/slurm-*.out
}

# status of a job that runs: the steps its log shows so far, of the
# planned 200, and the latest step time, as status --format json says.
test_running_progress() {
	local i id got=
	plan progress --set 'search.tensor_parallel=[8]' \
		--set 'limits.max_steps_per_run=200' \
		--set 'env=["PARATUNE_SIM_SPEEDUP=0.5"]' ||
		{ fail "plan progress"; return; }
	"$PT" -q submit "$WORK/progress" || { fail "submit progress"; return; }
	for ((i = 0; i < 60; i++)); do
		"$PT" -q resume "$WORK/progress"
		got=$("$PT" status "$WORK/progress" --format json | python3 -c '
import json, sys
for c in json.load(sys.stdin)["candidates"]:
    if c["state"] == "running" and c["last_step"] is not None:
        print(c["last_step"], c["total_steps"], c["last_step_time_s"])')
		[[ -n $got ]] && break
		sleep 1
	done
	check "status of a running job: its step, of 200, and step time ($got)" \
		python3 -c 'import sys; s, t, dt = sys.argv[1:4]
sys.exit(0 if 1 <= int(s) < 200 and t == "200" and float(dt) > 0 else 1)' \
		$got
	check "... the table's progress column" sh -c \
		"'$PT' status '$WORK/progress' | grep -Eq ' [0-9]+/200 [0-9.]+s '"
	# Suspended, a job holds its nodes and counts as running in Slurm,
	# but its steps stop: status showed it running like any other.
	id=$(awk '$3 == "submitted" {sub("job=", "", $5); print $5}' \
		"$WORK/progress/journal.log" | tail -n 1)
	scontrol suspend "$id"
	"$PT" -q resume "$WORK/progress"
	check "a suspended job is running, for Suspended" \
		test "$(job_state_reason "$WORK/progress" "$id")" = \
		"running Suspended"
	scontrol resume "$id"
	"$PT" -q resume "$WORK/progress"
	check "... and resumed, without it" \
		test "$(job_state_reason "$WORK/progress" "$id")" = "running "
	"$PT" -q cancel "$WORK/progress"
}

# job_state_reason DIR ID: the state and reason of the candidate of job ID.
job_state_reason() {
	"$PT" status "$1" --format json | python3 -c '
import json, sys
for c in json.load(sys.stdin)["candidates"]:
    if str(c["job_id"]) == sys.argv[1]:
        print(c["state"], c["reason"] or "")' "$2"
}

test_cuda_oom() {
	plan cudaoom --set 'search.tensor_parallel=[1]' \
		--set 'search.micro_batch_size=[8]' || { fail "plan oom"; return; }
	"$PT" -q submit "$WORK/cudaoom" --include-unsafe
	resume_until "$WORK/cudaoom" 90
	check "a CUDA OOM ends the job failed" \
		test "$(state_of "$WORK/cudaoom" tp_1)" = failed
	check "with PyTorch's message in its output" \
		grep -q 'torch.OutOfMemoryError: CUDA out of memory' \
		"$WORK"/cudaoom/runs/*/slurm-*.out
}

test_host_oom() {
	plan hostoom --set "run.template=\"$DATA/hostmem.sbatch\"" \
		--set 'search.tensor_parallel=[8]' || { fail "plan hostoom"; return; }
	"$PT" -q submit "$WORK/hostoom"
	resume_until "$WORK/hostoom" 90
	check "a cgroup memory kill is Slurm's OUT_OF_MEMORY" \
		test "$(state_of "$WORK/hostoom" tp_8)" = oom
}

test_timeout() {
	plan timeout --set 'limits.max_minutes_per_run=1' \
		--set 'env=["PARATUNE_SIM_FAULT=hang:5"]' \
		--set 'search.tensor_parallel=[8]' || { fail "plan timeout"; return; }
	"$PT" -q submit "$WORK/timeout"
	resume_until "$WORK/timeout" 200
	check "a job past its time limit is a timeout" \
		test "$(state_of "$WORK/timeout" tp_8)" = timeout
}

test_node_fail() {
	local node i
	plan nodefail --set 'search.tensor_parallel=[8]' \
		--set 'base.tensor_parallel=8' \
		--set 'env=["PARATUNE_SIM_FAULT=hang"]' \
		--set 'limits.max_minutes_per_run=3' || { fail "plan nodefail"; return; }
	# Its first submission dies before reaching Slurm: after the
	# intent's grace, resume queues it again, and that lost attempt
	# must not spend the one retry that limits.retries allows.
	PARATUNE_TEST_KILL_BEFORE_SUBMIT=1 "$PT" -q submit "$WORK/nodefail"
	check "a submission killed before the call leaves an intent only" \
		test "$(awk '$3 == "intent"' "$WORK/nodefail/journal.log" |
			wc -l)" = 1
	for ((i = 0; i < 45; i++)); do
		"$PT" -q resume "$WORK/nodefail"
		[[ $(state_of "$WORK/nodefail" tp_8) == running ]] && break
		sleep 1
	done
	node=$(awk '/ state=running /{for(i=1;i<=NF;i++) if ($i ~ /^nodes=/) {sub("nodes=","",$i); print $i}}' \
		"$WORK/nodefail/journal.log" | tail -1)
	node=$(scontrol show hostnames "$node" | head -1)
	# Run a while first: a job down within its first second spent 0 s,
	# which the check of its time spent below cannot tell from none.
	sleep 2
	scontrol update nodename="$node" state=down reason=paratune-test
	sleep 3
	"$PT" -q resume "$WORK/nodefail"
	check "the intent that never reached Slurm was queued again" \
		grep -q " queued .*lost=" "$WORK/nodefail/journal.log"
	check "a node failure is retried, the lost attempt not counted" \
		grep -q " retry .*exclude=" "$WORK/nodefail/journal.log"
	check "the retry is a third attempt avoiding the node" \
		grep -q " intent .*attempt=3" "$WORK/nodefail/journal.log"
	check "the failed job's time stays spent beside the retry's ($(grep -o \
		'state=[a-z_]* .* start=[0-9]* end=[0-9]*\|spent=[0-9]*' \
		"$WORK/nodefail/state" | tr '\n' ' '))" \
		grep -q "tp_8.* spent=\([2-9]\|[1-9][0-9]\)" "$WORK/nodefail/state"
	"$PT" -q cancel "$WORK/nodefail"
	scontrol update nodename="$node" state=resume
	check "cancel records every job cancelled" \
		test "$(state_of "$WORK/nodefail" tp_8)" = cancelled
}

test_kill_after_submit() {
	local n
	plan killed --set 'search.tensor_parallel=[8]' || { fail "plan killed"; return; }
	PARATUNE_TEST_KILL_AFTER_SUBMIT=1 "$PT" -q submit "$WORK/killed"
	check "SIGKILL right after the submission call leaves an intent" \
		test "$(awk '$3 == "intent"' "$WORK/killed/journal.log" | wc -l)" = 1
	resume_until "$WORK/killed" 90
	n=$(awk '$3 == "intent" {print $4}' "$WORK/killed/journal.log" |
		sort | uniq -d | wc -l)
	check "resume found the job by its tag: one intent per candidate" \
		test "$n" = 0
	check "and the candidate completed" \
		test "$(state_of "$WORK/killed" tp_8)" = completed
	check "no tag submitted twice after the kill" no_duplicate_tags "$WORK/killed"
}

test_lock() {
	local before out
	plan locked --set 'search.tensor_parallel=[8]' || { fail "plan locked"; return; }
	"$PT" -q submit "$WORK/locked"
	before=$(md5sum < "$WORK/locked/state")
	flock "$WORK/locked/.lock" sleep 4 &
	sleep 0.5
	out=$("$PT" resume "$WORK/locked")
	check "resume while another holds the lock exits 0" test $? = 0
	check "and says so" grep -q "another paratune" <<<"$out"
	check "and changes nothing" test "$(md5sum < "$WORK/locked/state")" = "$before"
	wait
	resume_until "$WORK/locked" 90
}

test_controller_down() {
	local before rc i
	plan down --set 'search.tensor_parallel=[8]' \
		--set 'env=["PARATUNE_SIM_FAULT=hang"]' || { fail "plan down"; return; }
	"$PT" -q submit "$WORK/down"
	# Running steps survive a controller restart; a step launched while
	# it is down does not (srun cannot confirm its allocation).
	for ((i = 0; i < 30; i++)); do
		"$PT" -q resume "$WORK/down"
		[[ $(state_of "$WORK/down" tp_) == "running running" ]] && break
		sleep 1
	done
	sleep 3
	before=$(md5sum < "$WORK/down/state")
	stop_controller
	"$PT" -q resume "$WORK/down" 2>/dev/null
	rc=$?
	check "controller down: resume exits 75" test "$rc" = 75
	check "and leaves the state as it was" \
		test "$(md5sum < "$WORK/down/state")" = "$before"
	before=$(md5sum < "$WORK/down/journal.log")
	"$PT" -q cancel "$WORK/down" 2>/dev/null
	rc=$?
	check "controller down: cancel exits 75" test "$rc" = 75
	check "and records no job as cancelled" \
		test "$(md5sum < "$WORK/down/journal.log")" = "$before"
	"$TESTBED" start slurmctld >/dev/null
	"$PT" -q resume "$WORK/down"
	check "controller back: the jobs kept running" \
		test "$(state_of "$WORK/down" tp_)" = "running running"
	"$PT" -q cancel "$WORK/down"
	check "and cancel reaches them" \
		test "$(state_of "$WORK/down" tp_)" = "cancelled cancelled"
}

# submit is idempotent: the same --top twice selects nothing new, and
# status says when Slurm last answered.
test_submit_twice() {
	local n
	plan twice --set 'limits.max_concurrent_jobs=1' ||
		{ fail "plan twice"; return; }
	"$PT" -q submit "$WORK/twice" --top 1
	"$PT" -q submit "$WORK/twice" --top 1
	n=$(grep -c ' queued ' "$WORK/twice/journal.log")
	check "submit --top 1 twice queues the base and one candidate ($n)" \
		test "$n" = 2
	# The base ranks second: it is one of the best two, so --top 2 adds
	# nothing, and --top 3 the third.
	check "the base ranks second" test "$(awk -F, \
		'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["base"] == 1 { print $c["rank"] }' "$WORK/twice/candidates.csv")" = 2
	"$PT" -q submit "$WORK/twice" --top 2
	n=$(grep -c ' queued ' "$WORK/twice/journal.log")
	check "then --top 2 queues nothing new ($n)" test "$n" = 2
	"$PT" -q submit "$WORK/twice" --top 3
	n=$(grep -c ' queued ' "$WORK/twice/journal.log")
	check "then --top 3 queues one more ($n)" test "$n" = 3
	"$PT" -q resume "$WORK/twice"
	check "status says when Slurm was polled" \
		sh -c "'$PT' status '$WORK/twice' | grep -q 'Slurm polled [0-9]* s ago'"
	"$PT" -q cancel "$WORK/twice"
	# Slurm refuses a partition it does not have: every submission is
	# rejected, and submit says so with 69 rather than 0.
	plan rejected --set 'slurm.partition="nosuchpartition"' ||
		{ fail "plan rejected"; return; }
	"$PT" -q submit "$WORK/rejected" --top 1 2>"$WORK/rejected.err"
	n=$?
	check "every submission rejected: submit exits 69 ($n)" test "$n" = 69
	check "and says so" grep -q "rejected every submission" \
		"$WORK/rejected.err"
	# Slurm's words were only in submit's message (syslog's, under
	# cron), and the search said every selected candidate ran.
	"$PT" results "$WORK/rejected" >"$WORK/rejected.out" 2>&1
	check "results gives Slurm's reason" grep -q \
		"Slurm rejected its submission: no job (Slurm: Invalid partition" \
		"$WORK/rejected.out"
	check "and says the search stopped as no candidate ran" grep -q \
		"search stopped: rejected" "$WORK/rejected.out"
}

# search.strategy = "adaptive": a real CUDA out of memory (the simulated
# trainer's, from a truth file that gives the base 200 GiB) prunes the
# queued candidates that need at least as much memory; they are never
# submitted, and the campaign still finishes.
test_prune_after_oom() {
	local base submitted
	plan prune --set 'search.strategy="adaptive"' \
		--set 'search.micro_batch_size=[1,2]' \
		--set 'run.simulated_truth="truth.csv"' ||
		{ fail "plan prune"; return; }
	"$ROOT/scripts/truth" "$WORK/prune" -n >/dev/null
	base=$(awk -F, '$19 == 1 { print $2 }' "$WORK/prune/candidates.csv")
	sed -i "s/^$base,\([^,]*\),.*/$base,\1,200/" "$WORK/prune/truth.csv"
	"$PT" -q submit "$WORK/prune" --sequential
	check "the campaign runs to the end" resume_until "$WORK/prune" 150
	check "the base ran out of memory" \
		grep -q "CUDA out of memory" "$WORK"/prune/runs/"$base"/slurm-*.out
	check "what needs at least its memory was pruned, by it" \
		grep -q " pruned .* by=$base" "$WORK/prune/journal.log"
	submitted=$(awk 'NR == FNR { if ($3 == "pruned") p[$4] = 1; next }
		$3 == "intent" && ($4 in p) { print $4 }' \
		"$WORK/prune/journal.log" "$WORK/prune/journal.log")
	check "and never submitted${submitted:+ ($submitted)}" \
		test -z "$submitted"
	check "status shows them pruned" \
		sh -c "'$PT' status '$WORK/prune' | grep -q pruned"
}

# run.early_stop: paratune watch, started by the simulated Megatron-LM
# job script, ends a 400-step run once its step time is known; the
# trainer finishes its step, prints Megatron-LM's exit line and exits 0.
test_early_stop() {
	local log steps id
	plan early --set 'search.tensor_parallel=[8]' \
		--set 'limits.max_steps_per_run=400' \
		--set 'run.early_stop=true' || { fail "plan early"; return; }
	"$PT" -q submit "$WORK/early" || { fail "submit early"; return; }
	check "early stop: the campaign runs to the end" \
		resume_until "$WORK/early" 150
	check "the stopped run is completed" \
		test "$(state_of "$WORK/early" tp_8)" = completed
	id=$(awk '$3 == "submitted" && $4 ~ /tp_8/ {sub("job=", "", $5)
		print $5; exit}' "$WORK/early/journal.log")
	check "Slurm accounting says COMPLETED (job $id)" sh -c \
		"sacct -j '$id' -X -n -P -o State | grep -qx COMPLETED"
	log=$(ls "$WORK"/early/runs/*tp_8*/slurm-"$id".out)
	steps=$(grep -c ' iteration ' "$log")
	check "it ran fewer steps than its 400 ($steps)" \
		test "$steps" -gt 10 -a "$steps" -lt 400
	check "then printed Megatron-LM's exit line" \
		grep -q '^\[exiting program after receiving SIGTERM\.\]' "$log"
	check "watch's verdict: steady" \
		grep -q '^steady step_s=' "$WORK"/early/runs/*tp_8*/watch-"$id".txt
	"$PT" results "$WORK/early" --format json >"$WORK/early.json"
	check "results: measured, stop_reason steady" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["results"] if "tp_8" in r["name"]]
sys.exit(0 if len(rows) == 1 and rows[0]["stop_reason"] == "steady" and
         rows[0]["measured_steps"] >= 10 else 1)' "$WORK/early.json"
}

# An MoE model end to end: the expert layout reaches the trainer's
# arguments, its log is parsed, and results keeps each run's ep.
test_moe_campaign() {
	plan moe --set 'model="qwen3_30b_a3b"' \
		--set 'search.tensor_parallel=[1]' \
		--set 'search.pipeline_parallel=[2]' \
		--set 'search.expert_parallel=[4, 8]' || { fail "plan moe"; return; }
	"$PT" -q submit "$WORK/moe" || { fail "submit moe"; return; }
	check "MoE: the campaign runs to the end" resume_until "$WORK/moe" 150
	check "both expert layouts completed" \
		test "$(state_of "$WORK/moe" ep_)" = "completed completed"
	check "the trainer was given ep 4 and ep 8" sh -c "
		grep -q -- '--expert-model-parallel-size 4' '$WORK'/moe/runs/*ep_4*/job.sbatch &&
		grep -q -- '--expert-model-parallel-size 8' '$WORK'/moe/runs/*ep_8*/job.sbatch"
	check "no tag submitted twice" no_duplicate_tags "$WORK/moe"
	"$PT" results "$WORK/moe" --format json >"$WORK/moe.json"
	check "results: two measured runs, each with its ep" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
eps = sorted(r["ep"] for r in d["results"] if r["measured_steps"] >= 10)
sys.exit(0 if eps == [4, 8] else 1)' "$WORK/moe.json"
}

# A node failure that resume first sees once the job is ending: the
# controller then lists only the node that did not fail, and the retry
# avoided that healthy node, not the failed one.
test_node_fail_unseen() {
	local id nodes down i st=
	plan unseen --set 'search.tensor_parallel=[8]' \
		--set 'env=["PARATUNE_SIM_FAULT=hang"]' \
		--set 'limits.max_concurrent_jobs=1' \
		--set 'limits.max_minutes_per_run=3' || { fail "plan unseen"; return; }
	"$PT" -q submit "$WORK/unseen"
	id=$(awk '$3 == "submitted" {sub("job=", "", $5); print $5; exit}' \
		"$WORK/unseen/journal.log")
	for ((i = 0; i < 30; i++)); do
		st=$(squeue -h -j "$id" -o %T)
		[[ $st == RUNNING ]] && break
		sleep 0.5
	done
	nodes=$(squeue -h -j "$id" -o %N)
	# Accounting hears of the start a moment later.
	for ((i = 0; i < 30; i++)); do
		[[ $(sacct -n -X -j "$id" -o NodeList%60 | tr -d ' ') == "$nodes" ]] &&
			break
		sleep 0.5
	done
	down=$(scontrol show hostnames "$nodes" | head -1)
	scontrol update nodename="$down" state=down reason=paratune-test
	sleep 2
	"$PT" -q resume "$WORK/unseen"
	check "first seen ending, the node failure keeps all its nodes" \
		awk -v j="job=$id" -v n="nodes=$nodes" '
			$3 == "state" && $5 == "state=node_fail" && $6 == j {
				for (i = 7; i <= NF; i++) found += $i == n }
			END { exit !found }' "$WORK/unseen/journal.log"
	check "and the retry avoids them all" \
		awk -v x="exclude=$nodes" '$3 == "retry" && $5 == x { found = 1 }
			END { exit !found }' "$WORK/unseen/journal.log"
	"$PT" -q cancel "$WORK/unseen"
	# Back already when its slurmd registered (ReturnToService=2).
	scontrol update nodename="$down" state=resume 2>/dev/null || true
}

# fail_everywhere NAME [EDIT]: a campaign WORK/NAME whose one job runs
# on all four nodes (the simulated trainer hangs), then every node down,
# as an outage of munge makes (slurmd cannot answer, and every node is
# marked down at once), after EDIT (a command) if given; then one
# resume, its stderr in WORK/NAME.err.
fail_everywhere() {
	local d=$WORK/$1 id i
	plan "$1" --set 'nodes=4' --set 'search.tensor_parallel=[8]' \
		--set 'base.tensor_parallel=8' \
		--set 'env=["PARATUNE_SIM_FAULT=hang"]' ||
		{ fail "plan $1"; return 1; }
	"$PT" -q submit "$d"
	id=$(awk '$3 == "submitted" {sub("job=", "", $5); print $5; exit}' \
		"$d/journal.log")
	for ((i = 0; i < 30; i++)); do
		[[ $(squeue -h -j "$id" -o %T) == RUNNING ]] && break
		sleep 0.5
	done
	sleep 1
	[[ -z ${2:-} ]] || eval "$2"
	scontrol update nodename=gpu[1-4] state=down reason=paratune-test
	sleep 2
	"$PT" -q resume "$d" 2>"$d.err"
	sed 's/^/  /' "$d.err"
	check "the node failure is retried, avoiding the four nodes" \
		grep -q " retry .* exclude=gpu\[1-4\]" "$d/journal.log"
}

# submitted_rejected DIR: how many jobs the journal says were submitted
# and how many rejected.
submitted_rejected() {
	echo "$(awk '$3 == "submitted"' "$1/journal.log" | wc -l)" \
		"$(awk '$3 == "rejected"' "$1/journal.log" | wc -l)"
}

# Its retry, avoiding every node, was refused for good ("Requested node
# configuration is not available") and the candidate lost with it.
# Now the retry goes to any nodes, and says so.
test_node_fail_everywhere() {
	local d=$WORK/everywhere

	fail_everywhere everywhere || return
	check "which Slurm refuses: said, and sent to any nodes" grep -q \
		"Slurm refused it avoiding gpu\[1-4\].*: submitting it without avoiding them" \
		"$d.err"
	check "the retry is submitted, not rejected" \
		test "$(submitted_rejected "$d")" = "2 0"
	check "as the second attempt" grep -q " intent .*attempt=2" "$d/journal.log"
	"$PT" -q cancel "$d"
	# Back already when their slurmd registered (ReturnToService=2).
	scontrol update nodename=gpu[1-4] state=resume 2>/dev/null || true
}

# A retry that Slurm rejects for another reason than the nodes it
# avoids (its campaign now names a partition that does not exist) is
# rejected once: it was sent a second time without the exclusion, with
# a warning that Slurm had refused it for the nodes avoided.
test_node_fail_rejected_retry() {
	local d=$WORK/rejretry

	fail_everywhere rejretry "sed -i 's/^slurm = {\$/&\\n  partition = \"paratune-nosuch\";/' '$d/campaign.conf'" ||
		return
	check "the retry is rejected for its partition" \
		grep -q "Slurm rejected .*[Pp]artition.*(paratune asked it to avoid gpu\[1-4\]" \
		"$d.err"
	check "and not sent again without the exclusion" \
		sh -c "! grep -q 'submitting it without avoiding them' '$d.err'"
	check "one job, one rejection" \
		test "$(submitted_rejected "$d")" = "1 1"
	"$PT" -q cancel "$d"
	scontrol update nodename=gpu[1-4] state=resume 2>/dev/null || true
}

# A job that vanished while pending (the controller and accounting
# lost it: here the testbed made afresh) never ran: it is queued again,
# as a lost submission is, not recorded as a failure.
test_pending_vanished() {
	plan gone --set 'search.tensor_parallel=[8]' || { fail "plan gone"; return; }
	scontrol update nodename=gpu[1-4] state=drain reason=paratune-test
	"$PT" -q submit "$WORK/gone"
	check "its job waits in Slurm's queue" \
		test "$(state_of "$WORK/gone" tp_8)" = pending
	"$TESTBED" down >/dev/null 2>&1
	"$TESTBED" up >/dev/null || { fail "testbed up again"; return; }
	PARATUNE_TEST_ACCOUNTING_LAG=0 "$PT" -q resume "$WORK/gone"
	check "a pending job that vanished is queued again" \
		grep -q ' queued .*lost' "$WORK/gone/journal.log"
	check "... not recorded as a failure" \
		sh -c "! grep -q 'state=failed' '$WORK/gone/journal.log'"
	resume_until "$WORK/gone" 90
	check "... and then runs" \
		test "$(state_of "$WORK/gone" tp_8)" = completed
}

# reason_of DIR NAME_PART: the recorded reason of the candidate.
reason_of() {
	"$PT" status "$1" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(c["reason"] or "" for c in d["candidates"] if sys.argv[1] in c["name"]))' "$2"
}

# A job that waits shows why, as Slurm says it now: the reason seen
# first was kept while the job stayed pending.
test_pending_reason() {
	local id blocker
	blocker=$(sbatch --parsable -N4 --exclusive -o /dev/null \
		--wrap 'sleep 300') || { fail "a job filling every node"; return; }
	plan waits --set 'search.tensor_parallel=[8]' ||
		{ fail "plan waits"; return; }
	"$PT" -q submit "$WORK/waits"
	id=$(awk '$3 == "submitted" && $4 ~ /tp_8/ {sub("job=", "", $5)
		print $5; exit}' "$WORK/waits/journal.log")
	"$PT" -q resume "$WORK/waits"
	check "behind a job filling every node, it is pending with a reason" \
		test "$(state_of "$WORK/waits" tp_8) $(reason_of "$WORK/waits" tp_8 |
		tr -d -c 'A-Za-z')" != "pending "
	scontrol hold "$id"
	"$PT" -q resume "$WORK/waits"
	check "held, it is pending for the hold" \
		test "$(state_of "$WORK/waits" tp_8) $(reason_of "$WORK/waits" tp_8)" \
		= "pending JobHeldAdmin"
	"$PT" -q resume "$WORK/waits"
	check "a reason unchanged is journaled once" \
		test "$(grep -c 'reason=JobHeldAdmin' "$WORK/waits/journal.log")" = 1
	# Moved while its job waits: the job still runs in the old place,
	# where its output will go, and resume says so and records nothing
	# new; moved back, it is quiet again.
	mv "$WORK/waits" "$WORK/moved"
	"$PT" -q resume "$WORK/moved" 2>"$WORK/moved.err"
	check "moved, resume names the job and where it runs" \
		grep -q "job $id runs in $WORK/waits/runs/.*not in this campaign ($WORK/moved)" \
		"$WORK/moved.err"
	check "  and the job stays pending" \
		test "$(state_of "$WORK/moved" tp_8)" = pending
	mv "$WORK/moved" "$WORK/waits"
	"$PT" -q resume "$WORK/waits" 2>"$WORK/back.err"
	check "moved back, resume says nothing of it" \
		bash -c '! grep -q "runs in" "$1"' _ "$WORK/back.err"
	# Cancelled behind its back while it waited: Slurm keeps the
	# reason it waited for, and status showed "cancelled ...
	# JobHeldAdmin", where paratune's own cancel clears it.
	scancel "$id"
	wait_for 10 bash -c '[[ $("$1" -q resume "$2"; "$1" status "$2" \
		--format json | grep -c "\"state\": \"cancelled\"") == 1 ]]' \
		_ "$PT" "$WORK/waits"
	check "cancelled by scancel, it keeps no reason to wait" \
		test "$(state_of "$WORK/waits" tp_8) $(reason_of "$WORK/waits" tp_8)" \
		= "cancelled "
	"$PT" -q cancel "$WORK/waits"
	scancel "$blocker"
}

# timed FUNCTION: run it, then say how long it took (for the log).
timed() {
	local t0=$SECONDS
	"$@"
	echo "# $1: $((SECONDS - t0)) s"
}

# Run the tests named on the command line, or all of them but those
# named in ITEST_SKIP (scripts/check runs the time-limit test, which
# waits on Slurm for a minute and a half, beside a step that needs only
# CPUs).
ALL="whole_campaign moe_campaign accounting kill_after_submit lock
	pending_reason submit_twice prune_after_oom early_stop cuda_oom
	running_progress
	percent_path pending_vanished
	host_oom node_fail node_fail_unseen node_fail_everywhere
	node_fail_rejected_retry
	controller_down timeout"
if (($#)); then
	for t in "$@"; do timed "test_$t"; done
else
	for t in $ALL; do
		[[ " ${ITEST_SKIP:-} " == *" $t "* ]] || timed "test_$t"
	done
fi
