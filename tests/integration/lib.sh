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
