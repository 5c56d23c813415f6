#!/usr/bin/env bash
# Integration tests of the adaptive search (search.strategy = "adaptive")
# on the local testbed, carried by resume as cron would: a refit that
# reorders the queue when the truth bends the predictions by layout, a
# campaign that stops early with candidates skipped for no_gain, a
# GPU-hour budget (limits.gpu_hours) that stops it, and a completed run
# that proves a candidate planned oom-risk fits.  Needs root and a
# running or startable testbed.
# Last line: "N passed, N failed"; exit 1 on any failure.

set -uo pipefail

SUITE=search
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

finish() {
	rm -rf "$WORK"
	echo "$PASS passed, $FAIL failed"
	exit $((FAIL == 0 && PASS > 0 ? 0 : 1))
}
trap finish EXIT

"$TESTBED" up >/dev/null || { fail "testbed up"; exit 1; }
eval "$("$TESTBED" env)"

# plan NAME [--set K=V]...: an adaptive campaign from small.conf, whose
# own strategy is "all" for the suites that run every candidate.
plan() {
	local name=$1; shift
	"$PT" -q plan "$DATA/small.conf" -o "$WORK/$name" --force \
		--set 'search.strategy="adaptive"' "$@"
}

journal_no_gap() {
	awk '{ if ($1 != NR) exit 1 }' "$1/journal.log"
}

# truth DIR FACTORS: DIR/truth.csv, each candidate's predicted step time
# times FACTORS[tp] ("1:1.3 2:1.0 ..."), memory as predicted.
truth() {
	python3 - "$1" "$2" <<'PY'
import csv, sys
d, spec = sys.argv[1], dict(w.split(":") for w in sys.argv[2].split())
rows = list(csv.DictReader(open(d + "/candidates.csv")))
with open(d + "/truth.csv", "w") as f:
    f.write("name,step_s,peak_memory_gib\n")
    for r in rows:
        f.write("%s,%.4f,%s\n" % (r["name"],
                float(r["pred_step_s"]) * float(spec[r["tp"]]),
                r["est_memory_gib"]))
PY
}

# json DIR COMMAND EXPR: a Python expression over `paratune COMMAND DIR
# --format json` (d), printed.
json() {
	"$PT" "$2" "$1" --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(eval(sys.argv[1]))' "$3"
}

# The ranks of the candidates in the order they were submitted.
intent_ranks() {
	awk -F, 'NR == FNR { if (FNR > 1) r[$2] = $1; next }
		$0 ~ / intent / { split($0, w, " "); print r[w[4]] }' \
		"$1/candidates.csv" "$1/journal.log" | tr '\n' ' '
}

# left_plan_order DIR RANKS: the candidates submitted after the base
# are not the plan's first ones in its order.
left_plan_order() {
	local base want got
	base=$(awk -F, '$19 == 1 { print $1 }' "$1/candidates.csv")
	got=$(echo "$2" | tr ' ' '\n' | grep . | grep -vx "$base" | tr '\n' ' ')
	want=$(awk -F, -v b="$base" 'FNR > 1 && $1 != b { print $1 }' \
		"$1/candidates.csv" | sort -n |
		head -n "$(echo "$got" | wc -w)" | tr '\n' ' ')
	[[ -n $got && $got != "$want" ]]
}

# tp8_jumped DIR RANKS: a tp 8 layout was submitted while a candidate the
# plan ranked ahead of it had not been.
tp8_jumped() {
	python3 - "$1/candidates.csv" "$2" <<'PY'
import csv, sys
rows = {r["rank"]: r for r in csv.DictReader(open(sys.argv[1]))}
seen = []
for r in sys.argv[2].split():
    if rows[r]["tp"] == "8":
        ahead = [k for k in rows if int(k) < int(r) and k not in seen]
        sys.exit(0 if ahead else 1)
    seen.append(r)
sys.exit(1)
PY
}

# The truth makes larger tp faster than predicted and smaller slower,
# the opposite of the plan's order: once the base (tp 4) and one more
# are measured, the refit puts tp 8 layouts ahead of tp 1 and 2 ones
# the plan ranked first.
test_refit_reorders() {
	local d=$WORK/reorder ranks
	plan reorder --set 'search.tensor_parallel=[1,2,4,8]' \
		--set 'search.pipeline_parallel=[1,2]' \
		--set 'search.micro_batch_size=[1,2]' \
		--set 'search.min_gain=0' \
		--set 'run.simulated_truth="truth.csv"' ||
		{ fail "plan reorder"; return; }
	truth "$d" "1:1.5 2:1.15 4:0.8 8:0.5"
	"$PT" -q submit "$d" --sequential || { fail "submit reorder"; return; }
	check "the campaign runs to the end" resume_until "$d" 240
	check "a refit is journaled" grep -q ' refit - runs=' "$d/journal.log"
	ranks=$(intent_ranks "$d")
	check "submission left the plan's order ($ranks)" \
		left_plan_order "$d" "$ranks"
	check "a tp 8 layout ran ahead of some the plan ranked first" \
		tp8_jumped "$d" "$ranks"
	check "list shows a corrected prediction beside the plan's" \
		test "$(json "$d" list 'sum(1 for c in d
			if abs(c["pred_now_step_s"] - c["pred_step_s"]) > 0.01)')" -gt 0
	check "candidates.csv too, in a last column" \
		sh -c "head -n1 '$d/candidates.csv' | grep -q ',pred_now_step_s\$'"
	check "the same figures as list" python3 - "$d" "$(
		"$PT" list "$d" --format json)" <<'PY'
import csv, json, sys
rows = {r["name"]: float(r["pred_now_step_s"])
        for r in csv.DictReader(open(sys.argv[1] + "/candidates.csv"))}
sys.exit(any(abs(rows[c["name"]] - c["pred_now_step_s"]) > 6e-5
             for c in json.loads(sys.argv[2])))
PY
	check "the best measured is a tp 8 layout" \
		test "$(json "$d" results 'd["best"]["tp"]')" = 8
	check "journal has no gap" journal_no_gap "$d"
}

# small.conf's tp 8 candidate is predicted 50 % slower than tp 2 and
# 30 % slower than the base (tp 4): once either is measured, not even
# its optimistic end can win.  tp 2 runs beside the base and ends
# first; judged only once the base ended, tp 8 took the slot tp 2 freed
# whenever a resume came between the two ends.
test_stop_no_gain() {
	local d=$WORK/nogain tp8
	plan nogain || { fail "plan nogain"; return; }
	tp8=$(awk -F, '$3 == 8 { print $2 }' "$d/candidates.csv")
	"$PT" -q submit "$d" || { fail "submit nogain"; return; }
	check "the campaign ends through resume" resume_until "$d" 150
	check "the search stopped for no_gain" \
		grep -q ' stopped - reason=no_gain' "$d/journal.log"
	check "tp 8 is skipped for no_gain" \
		grep -q " skipped $tp8 reason=no_gain" "$d/journal.log"
	check "and was never submitted" \
		sh -c "! grep -q ' intent $tp8 ' '$d/journal.log'"
	check "the base was measured" \
		test "$(json "$d" results 'd["base"]["status"]')" = measured
	check "results say why the search stopped" \
		test "$(json "$d" results 'd["search"]["stop_reason"]')" = no_gain
	check "and count the skipped" \
		test "$(json "$d" results 'd["search"]["skipped"]["no_gain"]')" = 1
	check "the summary says it" grep -q '^search stopped: no_gain' \
		"$d/results/summary.txt"
	check "status shows the progress" \
		sh -c "'$PT' status '$d' | grep -q '^search: 2 measured, 0 pruned, 1 skipped.*stopped: no_gain'"
	check "status --format json too" \
		test "$(json "$d" status 'd["search"]["stop_reason"]')" = no_gain
	check "report.html says it" grep -q 'no_gain' "$d/results/report.html"
	check "report.html charts the best so far against GPU-hours" \
		grep -q '<polyline fill="none" stroke="#0072b2" stroke-width="2" points="[0-9]' \
		"$d/results/report.html"
	check "journal has no gap" journal_no_gap "$d"
}

# A job may be charged its whole time limit: 1 minute on 16 GPUs is
# 0.267 GPU-hours.  A budget of 0.277 lets the base start; what it used
# (10 steps of about 0.3 s: 0.013 or more) leaves too little for another.
test_stop_budget() {
	local d=$WORK/budget
	plan budget --set limits.max_minutes_per_run=1 \
		--set limits.gpu_hours=0.277 \
		--set 'env=["PARATUNE_SIM_SPEEDUP=10"]' ||
		{ fail "plan budget"; return; }
	"$PT" -q submit "$d" || { fail "submit budget"; return; }
	# While the base runs, one more job may not start: resume said
	# nothing of what it held back.
	"$PT" resume "$d" >"$WORK/budget.out" 2>&1
	check "resume says what the budget holds back" \
		grep -q '^search: one more job at its time limit would pass limits.gpu_hours = 0.277 GPU-hours: it waits for 1 active job$' \
		"$WORK/budget.out"
	check "the campaign ends through resume" resume_until "$d" 150
	check "one job was submitted: the base" \
		test "$(grep -c ' intent ' "$d/journal.log")" = 1
	check "the search stopped for the budget" \
		grep -q ' stopped - reason=budget' "$d/journal.log"
	check "the others are skipped for it" \
		test "$(grep -c ' skipped .* reason=budget' "$d/journal.log")" = 2
	check "results say so" \
		test "$(json "$d" results 'd["search"]["stop_reason"]')" = budget
	check "status too" \
		sh -c "'$PT' status '$d' | grep -q 'skipped (0 no_gain, 2 budget).*stopped: budget'"
	check "journal has no gap" journal_no_gap "$d"
}

# A completed run proves the converse of an out-of-memory one: with the
# memory margin raised, the base (tp 2, mbs 2) and tp 2 mbs 1 are planned
# oom-risk, and submit leaves the latter out; the truth gives every
# candidate its predicted memory, far below the GPU's, so the base
# completes and proves that tp 2 mbs 1, which needs less, fits too: a
# fits event names the base, and the search submits it like the others.
test_proved_fit() {
	local d=$WORK/fits base small rank
	plan fits --set 'search.micro_batch_size=[1,2]' \
		--set memory.margin_gb=45 \
		--set base.tensor_parallel=2 --set base.micro_batch_size=2 \
		--set 'run.simulated_truth="truth.csv"' ||
		{ fail "plan fits"; return; }
	"$ROOT/scripts/truth" "$d" -n >/dev/null
	base=$(awk -F, '$19 == 1 { print $2 }' "$d/candidates.csv")
	rank=$(awk -F, '$19 == 1 { print $1 }' "$d/candidates.csv")
	small=$(awk -F, '$3 == 2 && $9 == 1 { print $2 }' "$d/candidates.csv")
	check "the base and tp 2 mbs 1 are planned oom-risk" \
		test "$(awk -F, '$15 == "oom-risk"' "$d/candidates.csv" |
			wc -l)" = 2
	"$PT" -q submit "$d" || { fail "submit fits"; return; }
	check "submit leaves tp 2 mbs 1 out" \
		sh -c "! grep -q ' queued $small ' '$d/journal.log'"
	check "the campaign runs to the end" resume_until "$d" 240
	check "the completed base proved that tp 2 mbs 1 fits" \
		grep -q " fits $small by=$base\$" "$d/journal.log"
	check "once" test "$(grep -c ' fits ' "$d/journal.log")" = 1
	check "it was queued and submitted" \
		grep -q " intent $small " "$d/journal.log"
	check "and completed" \
		test "$(json "$d" status '[c["state"] for c in d["candidates"]
			if c["name"] == "'"$small"'"][0]')" = completed
	check "list shows what proved it" \
		sh -c "'$PT' list '$d' | grep -q 'fits (proved by rank $rank)'"
	check "list --format json too" \
		test "$(json "$d" list '[c["fits_by"] for c in d
			if c["name"] == "'"$small"'"][0]')" = "$base"
	check "status shows it" \
		sh -c "'$PT' status '$d' | grep -q 'fits (proved by rank $rank) *$small'"
	check "results count it" \
		test "$(json "$d" results 'd["search"]["proved_fits"]')" = 1
	check "... and say so" \
		sh -c "'$PT' results '$d' | grep -q '1 oom-risk proved to fit by what ran'"
	check "journal has no gap" journal_no_gap "$d"
}

# A held job keeps the search waiting: tp 8, queued, cannot win by what
# the base measured, and tp 2's job, held by the sysadmin before it
# started (a job on every node keeps both waiting until then), could
# still change that.  resume said nothing of it, and status said that
# resume submits tp 8.
test_waits_for_held() {
	local d=$WORK/waits filler tp2 i
	plan waits || { fail "plan waits"; return; }
	wait_for 120 queue_empty ||
		echo "# jobs of earlier tests still hold nodes: $(squeue -h -o '%i %j %T' | tr '\n' ' ')"
	filler=$(sbatch --parsable --nodes=4 --gpus-per-node=8 --exclusive \
		-o /dev/null --job-name=filler \
		--wrap 'sleep 300') || { fail "sbatch filler"; return; }
	"$PT" -q submit "$d" || { fail "submit waits"; return; }
	tp2=$(awk -F, '$3 == 2 { print $2 }' "$d/candidates.csv")
	scontrol hold "$(awk -v n="$tp2" '$3 == "submitted" && $4 == n {
		sub("job=", "", $5); print $5 }' "$d/journal.log")"
	scancel "$filler"
	for ((i = 0; i < 60; i++)); do
		"$PT" resume "$d" >"$WORK/waits.out" 2>&1
		# While the base runs, its steps so far already rule tp 8
		# out: the search waits for 2 jobs, then for the held one.
		grep -q '^search: none.* 1 active job$' "$WORK/waits.out" &&
			break
		sleep 1
	done
	check "resume says what the search waits for" \
		grep -q '^search: none of the 1 queued can beat the best measured by search.min_gain (2 %): it waits for 1 active job$' \
		"$WORK/waits.out"
	check "status says it too" \
		sh -c "'$PT' status '$d' | grep -q '^1 queued, none of which can beat the best measured by search.min_gain (2 %): the search waits for 1 active job'"
	"$PT" -q cancel "$d"
}

# Run the tests named on the command line, or all of them.
if (($#)); then
	for t in "$@"; do "test_$t"; done
else
	test_stop_no_gain
	test_stop_budget
	test_refit_reorders
	test_proved_fit
	test_waits_for_held
fi
