#!/bin/sh
# tour.sh - the README's five-minute tour, its commands exactly as written
# (the campaign directory moved to a temporary one), from the build tree
# with no PARATUNE_TEMPLATES or PARATUNE_SIMTRAIN: paratune finds the
# tree's own templates and paratune-simtrain before it is installed.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

build=$(cd "$(dirname "$PT")" && pwd)
if [ ! -f "$build/templates/megatron-lm.sbatch" ]; then
	# A VPATH build (distcheck) keeps the templates in the source tree:
	# the tour is run in the tree that has both.
	echo "# the build tree has no templates/: a VPATH build, tour not run"
	echo "0 passed, 0 failed"
	exit 77
fi
unset PARATUNE_TEMPLATES PARATUNE_SIMTRAIN
# The tour's ./paratune lines, up to the testbed.
awk '/^## A five-minute tour/ { on = 1 } on && /scripts\/testbed/ { exit }
	on && /^    \.\/paratune / { sub(/^    /, ""); sub(/ *#.*/, ""); print }' \
	"$SRC/README.md" >"$T/tour"
[ "$(wc -l <"$T/tour")" -ge 5 ] && ok "the README's tour has its commands" ||
	ko "the README's tour has its commands"
while read -r line; do
	cmd=$(echo "$line" | sed "s#/tmp/#$T/#g; s#^\./paratune#$build/paratune#")
	( cd "$SRC" && eval "$cmd" ) >"$T/out" 2>"$T/err" &&
		ok "$line" || { ko "$line"; cat "$T/err"; }
done <"$T/tour"
f=$(ls "$T"/demo/runs/*/job.sbatch 2>/dev/null | head -1)
[ -n "$f" ] && grep -q "'$build/paratune-simtrain'" "$f" &&
	ok "job scripts run the tree's paratune-simtrain" ||
	ko "job scripts run the tree's paratune-simtrain"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
