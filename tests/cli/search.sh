#!/bin/sh
# search.sh - search.strategy = "adaptive": a run that ran out of memory
# prunes every queued candidate that needs at least as much memory (a
# journal event naming it), never the base, never one that could fit; the
# "all" strategy prunes nothing.  No Slurm: the out-of-memory run is
# written into the journal as Slurm's answer would be.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

export SLURM_CONF=/nonexistent/slurm.conf

# campaign DIR STRATEGY: demo.conf planned, every candidate selected
# (Slurm unreachable: they stay queued), and the tp 2, pp 2, mbs 1
# candidate ended out of memory.
campaign() {
	"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/$1" \
		--set "search.strategy=$2" || return 1
	"$PT" -q submit "$T/$1" --include-unsafe 2>/dev/null
	x=$(awk -F, '$3 == 2 && $4 == 2 && $9 == 1 { print $2 }' \
		"$T/$1/candidates.csv")
	n=$(wc -l <"$T/$1/journal.log")
	printf '%d 2026-01-01T00:00:00Z intent %s tag=pt-x-1-1 attempt=1 time=1\n%d 2026-01-01T00:00:00Z submitted %s job=7 time=1\n%d 2026-01-01T00:00:00Z state %s state=oom job=7 exit=0 signal=9 source=controller\n' \
		$((n + 1)) "$x" $((n + 2)) "$x" $((n + 3)) "$x" \
		>>"$T/$1/journal.log"
}

campaign a adaptive || ko "plan"
"$PT" resume "$T/a" >"$T/out" 2>"$T/err"
check "resume still needs Slurm for the rest (75)" test $? = 75
grep ' pruned ' "$T/a/journal.log" | awk '{ print $4 }' | sort >"$T/pruned"
check "the out-of-memory run pruned candidates" test -s "$T/pruned"
check "each pruning names the run that proved it" \
	sh -c "! grep ' pruned ' '$T/a/journal.log' | grep -v 'by=$x'"
# Every pruned one needs at least x's memory: tp <= 2, pp <= 2, mbs >= 1
# (demo.conf searches nothing else); exactly those of the queued ones.
awk -F, 'NR > 1 && $3 <= 2 && $4 <= 2 && $19 == 0 { print $2 }' \
	"$T/a/candidates.csv" | grep -v -x "$x" | sort >"$T/want"
check "exactly the queued candidates that need at least its memory" \
	cmp -s "$T/pruned" "$T/want"
check "never the base" \
	sh -c "! grep -q \"\$(awk -F, '\$19 == 1 { print \$2 }' '$T/a/candidates.csv')\" '$T/pruned'"
check "and it says so" grep -q "pruned: needs at least the memory of $x" \
	"$T/out"
"$PT" status "$T/a" >"$T/st"
check "status shows them pruned" grep -q "pruned" "$T/st"
"$PT" status "$T/a" --format json >"$T/json"
check "and counts them" grep -q "\"pruned\": $(wc -l <"$T/want")" "$T/json"
n=$(grep -c ' pruned ' "$T/a/journal.log")
"$PT" -q resume "$T/a" 2>/dev/null
check "a second resume prunes nothing twice" \
	test "$(grep -c ' pruned ' "$T/a/journal.log")" = "$n"

# setstate DIR NAME key=value...: edit the candidate's line of DIR/state
setstate() {
	d=$1 n=$2
	shift 2
	for kv in "$@"; do
		awk -v n="$n" -v k="${kv%%=*}" -v kv="$kv" '$1 == n {
			for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) $i = kv
		} { print }' "$d/state" >"$d/state.new" && mv "$d/state.new" "$d/state"
	done
}
# steps MS: six Megatron-LM iteration lines of MS milliseconds each
steps() {
	for i in 1 2 3 4 5 6; do
		printf ' [2024-05-01 10:00:00] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %s | learning rate: 1.000000E-05 | global batch size:   256 | lm loss: 1.000000E+01 | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
			"$i" 6 $((i * 256)) "$1"
	done
}
# The base measured, and rank 1 faster than anything still queued can
# be: status said "only 'paratune resume' submits them" of candidates
# that resume held back (waiting for an active job, a held one for
# ever) or was about to skip, and resume said nothing.
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/w" || ko "plan w"
"$PT" -q submit "$T/w" 2>/dev/null
w_name() { awk -F, -v r="$1" '$1 == r { print $2 }' "$T/w/candidates.csv"; }
W_BASE=$(awk -F, '$19 == 1 { print $2 }' "$T/w/candidates.csv")
steps 3500.0 >"$T/w/runs/$W_BASE/slurm-101.out"
setstate "$T/w" "$W_BASE" state=completed job=101 attempt=1
steps 2000.0 >"$T/w/runs/$(w_name 1)/slurm-102.out"
setstate "$T/w" "$(w_name 1)" state=completed job=102 attempt=1
setstate "$T/w" "$(w_name 2)" state=pending job=103 attempt=1
"$PT" status "$T/w" >"$T/st"
check "status: what the search holds back waits for the active job" \
	grep -q "^12 queued, none of which can beat the best measured by search.min_gain (2 %): the search waits for 1 active job" \
	"$T/st"
check "... not that resume submits them" \
	sh -c "! grep -q 'only .paratune resume' '$T/st'"
setstate "$T/w" "$(w_name 2)" state=cancelled
"$PT" status "$T/w" >"$T/st"
check "status: with none active, the next resume skips them" \
	grep -q "^12 queued, .*: the next 'paratune resume $T/w' skips them and stops the search" \
	"$T/st"
"$PT" resume "$T/w" >"$T/out" 2>&1
check "which it does" grep -q "search stopped (no_gain): 12 candidates skipped" \
	"$T/out"

# Rank 1 measured while the base still runs: the bar is the best
# measured, not the base's.  Judged only once the base ended, a faster
# run that ended first let the next queued (none of which can beat it)
# take the free slot.
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/v" || ko "plan v"
"$PT" -q submit "$T/v" 2>/dev/null
V_BASE=$(awk -F, '$19 == 1 { print $2 }' "$T/v/candidates.csv")
V_ONE=$(awk -F, '$1 == 1 { print $2 }' "$T/v/candidates.csv")
setstate "$T/v" "$V_BASE" state=running job=111 attempt=1 \
	start="$(date +%s)"
steps 2000.0 >"$T/v/runs/$V_ONE/slurm-112.out"
setstate "$T/v" "$V_ONE" state=completed job=112 attempt=1
"$PT" status "$T/v" >"$T/st"
check "status: with the base running, none queued can beat rank 1's run" \
	grep -q "^13 queued, none of which can beat the best measured by search.min_gain (2 %): the search waits for 1 active job" \
	"$T/st"
check "... not that resume submits them" \
	sh -c "! grep -q 'only .paratune resume' '$T/st'"

# The campaign's own budget: the base's job may take 2.67 GPU-hours (5
# minutes on 32 GPUs), and one more would pass 4.  Status said that
# resume submits the queued candidates it holds back.
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/g" \
	--set limits.gpu_hours=4 || ko "plan g"
"$PT" -q submit "$T/g" --top 2 2>/dev/null
G_BASE=$(awk -F, '$19 == 1 { print $2 }' "$T/g/candidates.csv")
setstate "$T/g" "$G_BASE" state=running job=201 attempt=1 \
	start="$(date +%s)"
"$PT" status "$T/g" >"$T/st"
check "status: limits.gpu_hours holds the queued back, for the active job" \
	grep -q "^2 queued, held by limits.gpu_hours = 4: one more job at its time limit would pass it; the search waits for 1 active job to end" \
	"$T/st"
"$PT" status "$T/g" --format json >"$T/json"
check "... and its JSON names the key that holds them" \
	grep -q '"held_by": "limits.gpu_hours"' "$T/json"

# A finished campaign is final: one of its logs gone afterwards made
# the next resume refit on the runs left, journal a second "finished"
# and rewrite the results (the search had not stopped: every selected
# candidate ran).  'paratune results' is what re-reads the logs.
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/f" || ko "plan f"
"$PT" -q submit "$T/f" --top 2 2>/dev/null
j=300 ms=3500
for n in $(awk '/ state=queued / { print $1 }' "$T/f/state"); do
	j=$((j + 1)) ms=$((ms - 500))
	steps "$ms.0" >"$T/f/runs/$n/slurm-$j.out"
	setstate "$T/f" "$n" state=completed job=$j attempt=1
	F_LOG="$T/f/runs/$n/slurm-$j.out"
done
"$PT" -q resume "$T/f" 2>/dev/null
check "every selected candidate completed: the campaign finishes" \
	test "$(grep -c ' finished ' "$T/f/journal.log")" = 1
cp "$T/f/journal.log" "$T/f-journal"
cp "$T/f/results/results.csv" "$T/f-results"
rm "$F_LOG"
expect "resume after one of its logs is gone" 0 "$PT" resume "$T/f"
has "... says it finished earlier" "^$T/f: finished earlier, nothing to do" \
	"$T/out"
check "... journals nothing: no refit, no second finished" \
	cmp -s "$T/f-journal" "$T/f/journal.log"
check "... leaves its results as they were" \
	cmp -s "$T/f-results" "$T/f/results/results.csv"
expect "submit with nothing new to select" 0 "$PT" submit "$T/f" --top 2
check "... journals nothing either" cmp -s "$T/f-journal" "$T/f/journal.log"
expect "results re-reads the logs" 0 "$PT" -q results "$T/f"
check "... and writes what they say now" \
	sh -c "! cmp -s '$T/f-results' '$T/f/results/results.csv'"
# A resume stopped between journaling "finished" and writing the
# results: every resume after it found the campaign finished and did
# nothing, so the results were never written.
rm -r "$T/f/results"
expect "resume of a finished campaign without its results" 0 \
	"$PT" resume "$T/f"
has "... says it writes them" \
	"^$T/f: finished earlier, its results missing or older than its journal: writing them" \
	"$T/out"
check "... writes them" test -s "$T/f/results/report.html"
check "... and journals nothing" cmp -s "$T/f-journal" "$T/f/journal.log"
expect "the resume after it" 0 "$PT" resume "$T/f"
has "... finds nothing to do" "^$T/f: finished earlier, nothing to do" \
	"$T/out"

campaign b all || ko "plan all"
"$PT" -q resume "$T/b" 2>/dev/null
check "strategy all prunes nothing" \
	sh -c "! grep -q ' pruned ' '$T/b/journal.log'"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
