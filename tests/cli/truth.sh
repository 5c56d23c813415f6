#!/bin/sh
# truth.sh - an honest simulated cluster: scripts/truth bends the
# planner's figures by its documented deviations, deterministically, and
# paratune-simtrain runs a candidate with the truth file's step time and
# peak memory (out of memory above the GPU's), or says it has none.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

SIM=${PARATUNE_SIMTRAIN:-$(dirname "$PT")/paratune-simtrain}
TRUTH=$SRC/scripts/truth
export PARATUNE_TEMPLATES PARATUNE_SIMTRAIN="$SIM"

case $SIM in /*) ;; *) SIM=$(cd "$(dirname "$SIM")" && pwd)/$(basename "$SIM");
	export PARATUNE_SIMTRAIN="$SIM" ;; esac
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/c" \
	--set run.simulated_truth=truth.csv || { ko "plan"; exit 1; }
D=$T/c

# --- scripts/truth -------------------------------------------------------
check "truth writes DIR/truth.csv" sh -c "'$TRUTH' '$D' -s 7 >/dev/null"
check "with a header and a row per candidate" test \
	"$(wc -l <"$D/truth.csv")" = "$(wc -l <"$D/candidates.csv")"
cp "$D/truth.csv" "$T/a.csv"
"$TRUTH" "$D" -s 7 -o "$T/b.csv" >/dev/null
"$TRUTH" "$D" -s 8 -o "$T/c.csv" >/dev/null
check "the same seed gives the same truth" cmp -s "$T/a.csv" "$T/b.csv"
check "another seed another" sh -c "! cmp -s '$T/a.csv' '$T/c.csv'"
# Without the random part, each row is the prediction times the
# documented factors: tp +4 %/doubling, pp +3 %, mbs -3 %, selective +1 %.
"$TRUTH" "$D" -n -o "$T/n.csv" >/dev/null
bad=$(awk -F, 'NR == FNR { if (FNR == 1) for (i = 1; i <= NF; i++) c[$i] = i
	else { p[$c["name"]] = $c["pred_step_s"]; tp[$c["name"]] = $c["tp"]
	  pp[$c["name"]] = $c["pp"]; mb[$c["name"]] = $c["mbs"]
	  rc[$c["name"]] = $c["recompute"] }; next }
	FNR > 1 { n = $1
	  f = (1 + 0.04 * log(tp[n]) / log(2)) * (1 + 0.03 * log(pp[n]) / log(2)) \
	      * (1 - 0.03 * log(mb[n]) / log(2)) \
	      * (rc[n] == "full" ? 1.06 : rc[n] == "selective" ? 1.01 : 1)
	  if ((r = $2 / (p[n] * f) - 1) > 1e-4 || r < -1e-4) print n }' \
	"$D/candidates.csv" "$T/n.csv" | wc -l)
check "-n: every step time is the prediction times the documented factors" \
	test "$bad" = 0
bad=$(awk -F, 'NR == FNR { if (FNR > 1) s[$1] = $2; next }
	FNR > 1 && ($2 / s[$1] > 1.0601 || $2 / s[$1] < 0.9399) { print }' \
	"$T/n.csv" "$D/truth.csv" | wc -l)
check "the random part stays within +-6 %" test "$bad" = 0
check "a missing directory is refused" sh -c "! '$TRUTH' '$T/none' 2>/dev/null"

# --- paratune-simtrain with the truth ------------------------------------------
# An srun that runs the command as the job's last rank, as Megatron-LM
# prints its iteration lines from there.
mkdir "$T/bin"
cat >"$T/bin/srun" <<'SRUN'
#!/bin/sh
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do shift; done
export SLURM_PROCID=$((SLURM_NTASKS - 1)) SLURM_LOCALID=7
exec "$@"
SRUN
chmod +x "$T/bin/srun"
name=$(awk -F, 'NR == 2 { print $1 }' "$D/truth.csv")
# run_job TRUTH_ROW: run the first candidate's job script with its row
# of truth.csv set to TRUTH_ROW ("" drops the row).
run_job() {
	{ echo "name,step_s,peak_memory_gib"; [ -n "$1" ] && echo "$1"; } \
		>"$D/truth.csv"
	( cd "$D/runs/$name" && PATH="$T/bin:$PATH" SLURM_NTASKS=32 \
	  SLURM_NNODES=4 SLURM_NTASKS_PER_NODE=8 PARATUNE_SIM_SPEEDUP=100000 \
	  bash ./job.sbatch >"$T/log" 2>&1 )
}
run_job "$name,7.5,40"
ms=$(sed -n 's/.*elapsed time per iteration (ms): \([0-9.]*\).*/\1/p' "$T/log" |
	tail -n +2 | awk '{ s += $1; n++ } END { if (n) printf "%d", s / n }')
check "simtrain takes the truth's step time (7500 ms, got ${ms:-none})" \
	test "${ms:-0}" -ge 7275 -a "${ms:-0}" -le 7725
run_job "$name,400,95"
check "a peak above the GPU's memory is CUDA's out of memory" \
	grep -q "CUDA out of memory" "$T/log"
run_job ""
check "a candidate the truth lacks is said so" \
	grep -q "is not in truth file" "$T/log"
check "and runs on the estimator's figures" \
	grep -q "elapsed time per iteration" "$T/log"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
