#!/bin/sh
# bench-plan.sh - time 'paratune plan' on a campaign that keeps N
# candidates (default 10000, search.max_candidates' default): the search
# (plan's own "examined ... in S s") and the rest, which is writing the
# campaign directory (candidates.csv, state, journal and one job script
# a candidate, synced to the disk before the directory is renamed into
# place).  Each of RUNS plans (default 3) is printed; each writes a
# directory of its own in $TMPDIR, whose file system is the one
# measured, all removed at the end: a directory removed just before
# slows the next plan's file creations on ext4, which skips inodes freed
# in the last minutes.
# Prints figures; asserts nothing.
#
# usage: bench/bench-plan.sh [N [RUNS]]   (from the top of the build
#        tree, or give its path; PARATUNE_BUILDDIR names another build)
set -eu

n=${1:-10000}
runs=${2:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
pt=${PARATUNE_BUILDDIR:-$top}/paratune
export PARATUNE_SITE_CONF=/dev/null
export PARATUNE_TEMPLATES="$top/templates"
dir=$(mktemp -d "${TMPDIR:-/tmp}/paratune-bench-XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM

# Llama 3 70B on 1024 GPUs: 122,880 combinations, 35,440 valid, so that
# search.max_candidates up to that keeps as many.
. "$top/bench/llama3-70b-grid.sh"
llama3_70b_grid "$dir/c.conf" bench-plan megatron-lm 1024 "$n"
echo "};" >>"$dir/c.conf"

now() { date +%s.%N; }

i=1
while [ "$i" -le "$runs" ]; do
	t0=$(now)
	"$pt" plan "$dir/c.conf" -o "$dir/c$i" >"$dir/out" 2>&1
	t1=$(now)
	kept=$(ls "$dir/c$i/runs" | wc -l)
	search=$(sed -n 's/^examined .* in \([0-9.]*\) s:.*/\1/p' "$dir/out")
	awk -v a="$t0" -v b="$t1" -v s="$search" -v k="$kept" -v i="$i" \
		'BEGIN { printf "run %d: plan of %d candidates %.2f s: " \
		         "search %.2f s, writing %.2f s (%.2f ms a " \
		         "candidate)\n", i, k, b - a, s, b - a - s,
		         1000 * (b - a - s) / k }'
	i=$((i + 1))
done
echo "campaign size: $(du -sk "$dir/c1" | cut -f1) kB in $(find "$dir/c1" | wc -l) files and directories"
