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

campaign b all || ko "plan all"
"$PT" -q resume "$T/b" 2>/dev/null
check "strategy all prunes nothing" \
	sh -c "! grep -q ' pruned ' '$T/b/journal.log'"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
