#!/bin/sh
# bench-results.sh - time 'paratune status' and 'paratune results' on an
# adaptive campaign of N kept candidates (default 10000 40000 100000).
# Each campaign is planned once (Llama 3 70B on 1,024 GPUs over four
# global batch sizes: 126,640 valid layouts, so search.max_candidates up
# to that keeps as many); then half its candidates are recorded as
# failed jobs that left no log, as a cluster's bad night leaves them,
# so that results opens every run directory and lists every failure.
# Both commands join each candidate of candidates.csv with its line of
# DIR/state, by name: they took time quadratic in N until 2026-11-30.
# Prints figures; asserts nothing.
#
# usage: bench/bench-results.sh [N...]   (from the top of the build
#        tree, or give its path; PARATUNE_BUILDDIR names another build,
#        PARATUNE_BIN another binary)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pt=${PARATUNE_BIN:-${PARATUNE_BUILDDIR:-$top}/paratune}
export PARATUNE_SITE_CONF=/dev/null
export PARATUNE_TEMPLATES="$top/templates"
export XDG_CONFIG_HOME=/nonexistent
dir=$(mktemp -d "${TMPDIR:-/tmp}/paratune-bench-XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
[ $# -gt 0 ] || set -- 10000 40000 100000
. "$top/bench/llama3-70b-grid.sh"

now() { date +%s.%N; }
# timed LABEL CMD...: print CMD's wall time (its exit status too: 65
# is what failed jobs without logs give, and says nothing of speed)
timed() {
	label=$1
	shift
	t0=$(now)
	rc=0
	"$@" >"$dir/out" 2>"$dir/err" || rc=$?
	t1=$(now)
	awk -v a="$t0" -v b="$t1" -v l="$label" -v rc="$rc" \
		'BEGIN { printf "  %-8s %8.2f s (exit %d)\n", l, b - a, rc }'
}

for n in "$@"; do
	llama3_70b_grid "$dir/c.conf" bench-results megatron-lm \
		"[512, 1024, 2048, 4096]" "$n"
	echo "};" >>"$dir/c.conf"
	c=$dir/c$n
	"$pt" -q plan "$dir/c.conf" -o "$c" >/dev/null
	awk '/ state=planned / && ++k % 2 == 0 {
		sub(/ state=planned /, " state=failed ")
		sub(/ attempt=0 job=0 exit=0 /,
		    " attempt=1 job=" (1000 + k) " exit=1 ")
	} { print }' "$c/state" >"$c/state.new"
	mv "$c/state.new" "$c/state"
	echo "$(($(wc -l <"$c/candidates.csv") - 1)) candidates:"
	timed status "$pt" status "$c"
	timed results "$pt" -q results "$c"
	rm -rf "$c"
done
