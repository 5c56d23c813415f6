#!/bin/sh
# fit-defaults.sh - the built-in constants (src/calibration-defaults.h)
# are what bench/fit-defaults fits to tests/data/measured today, so that
# they cannot drift from the data or the estimator silently; a header
# that differs is caught; the binary's defaults are the header's.  Runs
# the build tree's binary; no Slurm needed.  Last line: "N passed, N
# failed".

. "$(dirname "$0")/lib.sh"

FD=$SRC/bench/fit-defaults
H=$SRC/src/calibration-defaults.h

expect "the committed defaults are a fresh fit's (make fit-defaults)" 0 \
	env PARATUNE_BIN="$PT" "$FD" --check
cp "$H" "$T/h"
sed 's/^	\([0-9.e+-]*\), \/\* fp8_gemm_eff:/	0.99, \/* fp8_gemm_eff:/' \
	"$T/h" >"$T/tampered.h"
check "... (the tampered copy differs)" test -n "$(cmp "$T/h" "$T/tampered.h")"
expect "a header the fit does not give is refused" 1 \
	env PARATUNE_BIN="$PT" "$FD" --check "$T/tampered.h"
has "... saying how to refit" "run make fit-defaults" "$T/err"
expect "-o writes a header" 0 env PARATUNE_BIN="$PT" "$FD" -o "$T/new.h"
has "... naming the command" "paratune calibrate --pool --hand-set" "$T/new.h"
has "... and the cross-validated error" "cross-validated" "$T/new.h"
nconst=$(grep -c 'CAL_KEY("' "$SRC/src/config-registry.c")
check "... one line per constant ($nconst)" \
	test "$(grep -c '^	.*, /\* [a-z_0-9]*: ' "$T/new.h")" = "$nconst"
fp8=$(sed -n 's|^	\([0-9.e+-]*\), /\* fp8_gemm_eff:.*|\1|p' "$H")
expect "calibrate shows the defaults" 0 "$PT" calibrate --format json \
	"$SRC/tests/data/calibrate/generated.csv"
check "... the binary's fp8_gemm_eff is the header's ($fp8)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["calibrations"][0]["constants"]
sys.exit(0 if abs(d["fp8_gemm_eff"]["default"] - float(sys.argv[2])) < 1e-9
         else 1)' "$T/out" "$fp8"
fp8r=$(printf '%.2f' "$fp8")
has "... and paratune.conf(5) says so ($fp8r)" \
	"fp8_gemm_eff.*default fitted, $fp8r" "$SRC/man/paratune.conf.5"
blk=$(sed -n 's|^	\([0-9.e+-]*\), /\* fp8_block_gemm_eff:.*|\1|p' "$H")
blkr=$(printf '%.2f' "$blk")
has "... and the block-scaled one's too ($blkr)" \
	"fp8_block_gemm_eff.*default fitted, $blkr" "$SRC/man/paratune.conf.5"
fp4=$(sed -n 's|^	\([0-9.e+-]*\), /\* fp4_gemm_eff:.*|\1|p' "$H")
fp4r=$(printf '%.2f' "$fp4")
has "... and NVFP4's ($fp4r)" \
	"fp4_gemm_eff.*default fitted, $fp4r" "$SRC/man/paratune.conf.5"
moe=$(sed -n 's|^	\([0-9.e+-]*\), /\* moe_layer_overhead_s:.*|\1|p' "$H")
moer=$(printf '%.4f' "$moe")
has "... and the MoE layer's overhead ($moer)" \
	"moe_layer_overhead_s.*default fitted, $moer" "$SRC/man/paratune.conf.5"
has "... which the second stage fits to the MoE rows" \
	"moe_layer_overhead_s: fitted, hand-set 0.0" "$H"
moeg=$(sed -n 's|^	\([0-9.e+-]*\), /\* moe_gemm_eff:.*|\1|p' "$H")
moegr=$(printf '%.2f' "$moeg")
has "... and the experts' GEMM efficiency ($moegr)" \
	"moe_gemm_eff.*default fitted, $moegr" "$SRC/man/paratune.conf.5"
has "... which it fits with it" "moe_gemm_eff: fitted, hand-set 1.0" "$H"
hep=$(sed -n 's|^	\([0-9.e+-]*\), /\* hybridep_token_s:.*|\1|p' "$H")
expect "bench/fit-hybridep fits the pairs of one build" 0 \
	env PARATUNE_BIN="$PT" "$SRC/bench/fit-hybridep"
check "... the value the header keeps ($hep)" \
	grep -q "^hybridep_token_s = $hep " "$T/out"
manhep=$(printf '%s' "$hep" | sed 's/e-0*/e\\\\-/')
has "... and paratune.conf(5) says so ($manhep)" \
	"hybridep_token_s.*default $manhep" "$SRC/man/paratune.conf.5"
expect "an unknown option" 64 "$FD" --bogus

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
