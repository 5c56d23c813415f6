#!/bin/sh
# bench-logparse.sh - time 'paratune parse' against grep -c on about 1 GB
# of Megatron-LM logs written into $TMPDIR (bench-logparse.c says how).
#
# usage: bench/bench-logparse.sh [MB]     (default 1000; run it from the
#        top of the build tree, or give its path: it runs make there)
set -eu

mb=${1:-1000}
top=$(cd "$(dirname "$0")/.." && pwd)
make -C "$top" paratune bench/bench-logparse >/dev/null
dir=$(mktemp -d "${TMPDIR:-/tmp}/paratune-bench-XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
echo "writing $mb MB of logs into $dir"
"$top/bench/bench-logparse" "$top/paratune" "$dir" "$mb"
