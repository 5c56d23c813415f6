#!/bin/sh
# held-out.sh - bench/held-out predicts the held-out runs of
# tests/data/held-out as `paratune estimate` does, with the built-in
# constants, with the GPU's fit to the measured runs (a calibration that
# reaches the estimate: its prediction differs) and with the published
# calibration, and no fit reads those runs.  Runs the build tree's
# binary; no Slurm needed.  Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

HO=$SRC/bench/held-out
DATA=$SRC/tests/data/held-out
CSV=$DATA/megatron-lm-docs.csv

expect "an argument is a usage error" 64 env PARATUNE_BIN="$PT" "$HO" x
has "... with the usage" "^Usage: bench/held-out" "$T/err"

expect "it runs" 0 env PARATUNE_BIN="$PT" "$HO"
cp "$T/out" "$T/bench"
line=$(grep '^megatron-lm-docs.csv:2 ' "$T/bench")
check "it prints the row" test -n "$line"

# The same row estimated here, as tests/cli/measured.sh estimates it.
. "$SRC/tests/data/measured/rows.sh"
# shellcheck disable=SC2034 # read by rows.sh's field and estimate_args
header=$(head -1 "$CSV" | tr ',' ' ')
# shellcheck disable=SC2034 # the same
row=$(csv_rows "$CSV" | sed -n 2p)
estimate_row "$CSV" "$T/est.json"
pred=$(estimate_value pred_step_s "$T/est.json")
meas=$(field step_s)
want=$(awk -v p="$pred" -v m="$meas" \
       'BEGIN { printf "%.3f (%+.1f%%)", p, 100 * (p - m) / m }')
# shellcheck disable=SC2086 # the row's cells, one a word
set -- $line
check "the measured step time is the row's ($meas)" \
	test "$(printf '%.3f' "$meas")" = "$3"
check "the built-in prediction and its error are estimate's ($want)" \
	test "$4 $5" = "$want"
check "the GPU's fit is a prediction" test "$6" != "-"
check "... another than the built-in one (the fit reached the estimate)" \
	test "$6" != "$4"
gpu=$(row_gpu "$CSV")
if grep -q "^  $gpu = {" "$SRC/etc/calibration-published.conf"; then
	check "the published calibration holds $gpu: its prediction differs" \
		test "$8" != "$4"
else
	check "the published calibration leaves $gpu out: built-in" \
		test "$8 $9" = "$4 $5"
fi
has "it gives the mean error" \
	"^mean absolute error over 1 rows: built-in .*, its GPU's fit .*, published" \
	"$T/bench"

# Held out: no fit's input names the directory.
for f in bench/fit-defaults bench/fit-published bench/calibration; do
	hasnt "$f fits tests/data/measured only" \
		'held-out/\*\|held-out/[a-z]' "$SRC/$f"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
