# lib.sh - what the integration suites share, sourced after their own
# "set -uo pipefail": where the tree, the build and the testbed are, the
# environment paratune runs in, the pass and fail counts and the helpers
# that keep them, and helpers to read a campaign and wait on Slurm.  WORK is the suite's own scratch directory, named after
# SUITE (set it before sourcing).
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${PARATUNE_BUILDDIR:-$ROOT}
PT=$BUILD/paratune
DATA=$ROOT/tests/integration/data
TESTBED=$ROOT/scripts/testbed
export PARATUNE_TEMPLATES=$ROOT/templates
export PARATUNE_SIMTRAIN=$BUILD/paratune-simtrain
export PARATUNE_SITE_CONF=/dev/null
PASS=0
FAIL=0
DONE=0       # set to 1 by a suite that ran to its end
T0=$SECONDS
WORK=$(mktemp -d "/tmp/paratune-${SUITE:-itest}.XXXXXX")
# No user layer either: the caller's ~/.config/paratune/config would
# change what the suites plan.
export XDG_CONFIG_HOME=$WORK/no-user-config

ok()   { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }

# states DIR: the candidates' states, sorted, on one line.
states() {
	"$PT" status "$1" --format json | python3 -c '
import json, sys
print(" ".join(sorted(c["state"] for c in json.load(sys.stdin)["candidates"])))'
}

# job_ids DIR: the job ids the journal recorded.
job_ids() {
	awk '$3 == "submitted" { sub("job=", "", $5); print $5 }' "$1/journal.log"
}

# lingering_steps: the ids of jobs that no longer run (ended, or still
# completing) whose steps are still on the nodes (a slurmstepd still
# sending its completion).
lingering_steps() {
	local id
	for id in $(pgrep -a slurmstepd |
		sed -n 's/.*slurmstepd: \[\([0-9]*\)\..*/\1/p' | sort -u); do
		[[ -n $(squeue -h -j "$id" -t running,suspended -o %i \
			2>/dev/null) ]] || echo "$id"
	done
}

# steps_settled: no ended job's step is left on the nodes.
steps_settled() {
	[[ -z $(lingering_steps) ]]
}

# stop_controller: stop slurmctld once no ended job's step is still
# completing.  Such a step retries its completion message until the
# controller is back, which then no longer knows it: it orders the
# orphan killed, the busy slurmstepd does not answer in time, and every
# node it ran on is drained "Kill task failed", which stalled the next
# suite's jobs (a node-failure test's job, then test_controller_down).
stop_controller() {
	wait_for 60 steps_settled ||
		echo "# steps of ended jobs still on the nodes: $(lingering_steps | tr '\n' ' ')"
	"$TESTBED" stop slurmctld >/dev/null
}

# wait_for SECONDS CMD...: poll CMD every second.
wait_for() {
	local limit=$1 i
	shift
	for ((i = 0; i < limit; i++)); do
		"$@" && return 0
		sleep 1
	done
	return 1
}

# resume_until DIR SECONDS [WRAPPER...]: run resume (as cron would,
# through WRAPPER if given) every second or so until the journal says
# the campaign finished.  When it does not, say why on lines starting
# with "# ", which the check script shows with a failed suite's FAILs:
# resume's exit code, or the campaign's status and Slurm's queue and
# nodes when the time ran out, after which its jobs are cancelled.
resume_until() {
	local dir=$1 limit=$2 t0=$SECONDS rc
	shift 2
	while ((SECONDS - t0 < limit)); do
		"$@" "$PT" -q resume "$dir"
		rc=$?
		# 75, Slurm did not answer in time: cron's next line tries
		# again, and so does this.
		if ((rc == 75)); then
			echo "# $dir: resume exited 75 after $((SECONDS - t0)) s; again"
		elif ((rc != 0)); then
			echo "# $dir: resume exited $rc after $((SECONDS - t0)) s"
			return 1
		fi
		awk '$3 == "finished" { f = 1 } END { exit !f }' \
			"$dir/journal.log" && return 0
		sleep 1
	done
	echo "# $dir: not finished after $limit s"
	campaign_why "$dir"
	# Its jobs would hold nodes that the suite's next tests count on.
	"$PT" -q cancel "$dir" 2>&1 | sed 's/^/#   cancel: /'
	return 1
}

# queue_empty: Slurm has no job left, pending or running (the tests that
# need every node wait for it).
queue_empty() {
	[[ -z $(squeue -h -o %i 2>/dev/null) ]]
}

# campaign_why DIR: what a campaign that did not end waits on, as "# "
# lines: its status, the journal's last lines, Slurm's queue and nodes.
campaign_why() {
	{
		"$PT" status "$1" 2>&1
		echo "journal:"
		tail -n 8 "$1/journal.log"
		echo "squeue:"
		squeue -h -o '%i %j %T %M %R' 2>&1
		echo "sinfo:"
		sinfo -h -N -o '%N %T %E' 2>&1
	} | sed 's/^/#   /'
}

# suite_end: the end of a suite's EXIT trap, after its own cleanup: WORK
# kept when a check failed, the suite stopped early or
# PARATUNE_TEST_KEEP_WORK is set, removed otherwise; the time, the
# counts, and the exit status (0 with no failure and a pass, or a
# SKIPPED suite).
suite_end() {
	if ((FAIL > 0 || !DONE)) || [[ -n ${PARATUNE_TEST_KEEP_WORK:-} ]]; then
		echo "--- kept for inspection: $WORK"
	else
		rm -rf "$WORK"
	fi
	echo "took $((SECONDS - T0)) s"
	echo "$PASS passed, $FAIL failed"
	exit $((FAIL == 0 && (PASS > 0 || ${SKIPPED:-0}) ? 0 : 1))
}

# plan_one_node NAME SPEEDUP TP-LIST [MBS-LIST]: one-node candidates of
# the torture campaign (pp 1, no recompute, micro-batches of 1 unless
# given), the simulated trainer SPEEDUP times faster, in WORK/NAME.
plan_one_node() {
	"$PT" -q plan "$DATA/torture.conf" -o "$WORK/$1" \
		--set "env=[\"PARATUNE_SIM_SPEEDUP=$2\"]" \
		--set "search.tensor_parallel=$3" \
		--set 'search.pipeline_parallel=[1]' \
		--set "search.micro_batch_size=${4:-[1]}" \
		--set 'search.recompute=["none"]' >/dev/null
}
