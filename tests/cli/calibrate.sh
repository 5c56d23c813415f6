#!/bin/sh
# calibrate.sh - `paratune calibrate`: fits the estimator's constants to
# a measured-runs file (tests/data/calibrate: rows the estimator made with
# gemm_eff_max 0.65, attn_eff_flash 0.40, layer_overhead_s 200 us and
# memory_fragmentation 0.2), reports the error before and after with
# cross-validation, writes a calibration group that a site file or a
# campaign includes, and estimate and plan then name it.  Malformed
# input is refused with file, line and column.  Runs the build tree's
# binary; no Slurm needed.  Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

same() {
	if [ "$2" = "$3" ]; then ok "$1"; else ko "$1 (got '$2', wanted '$3')"; fi
}
# jget PATH: a value of the JSON in $T/out, keys and indices by dots.
jget() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[int(k)] if k.isdigit() else d[k]
print(d)' "$T/out" "$1" 2>/dev/null
}
# near A B REL: |A - B| <= REL * |B|
near() {
	python3 -c 'import sys; a, b, r = map(float, sys.argv[1:4])
sys.exit(0 if abs(a - b) <= r * abs(b) else 1)' "$1" "$2" "$3"
}

D=$SRC/tests/data/calibrate
CSV=$D/generated.csv
CAMP=$D/llama3_8b_h100.conf

# ---- help -------------------------------------------------------------------
expect "calibrate --help" 0 "$PT" calibrate --help
has "... names --folds" "--folds" "$T/out"
has "... names --gpu" "--gpu" "$T/out"
expect "calibrate without input" 64 "$PT" calibrate

# ---- a fit ------------------------------------------------------------------
expect "calibrate a measured-runs file" 0 "$PT" calibrate "$CSV"
has "... the GPU and its rows" "^h100-sxm: 10 measured runs" "$T/out"
has "... the error per group" "^dense-bf16 " "$T/out"
has "... cross-validated" "5-fold cross-validated" "$T/out"
has "... the constants with bounds" "^gemm_eff_max  *0.75 " "$T/out"
hasnt "... no rows without --verbose" "generated.csv:2 " "$T/out"
hasnt "... no note: the fit predicts them better than its start" \
	"^  note:" "$T/out"
has "... the ranking of distinct configurations" \
	"^  ranking: campaigns with two or more distinct configurations" "$T/out"
expect "calibrate --verbose" 0 "$PT" calibrate "$CSV" --verbose
has "... each row predicted and measured" "generated.csv:2 .*3.149" "$T/out"
expect "calibrate --format json" 0 "$PT" calibrate "$CSV" --format json
same "... one GPU" "$(jget calibrations.0.gpu)" h100-sxm
same "... ten runs" "$(jget calibrations.0.runs)" 10
same "... five folds" "$(jget calibrations.0.folds)" 5
check "... gemm_eff_max found again" \
	near "$(jget calibrations.0.constants.gemm_eff_max.fitted)" 0.65 0.02
# These two the ten rows determine less well: the pull toward the
# start (calibrate.c, CAL_PRIOR) leaves them a little short.
check "... attn_eff_flash found again, nearly" \
	near "$(jget calibrations.0.constants.attn_eff_flash.fitted)" 0.40 0.1
check "... layer_overhead_s found again, nearly" \
	near "$(jget calibrations.0.constants.layer_overhead_s.fitted)" 2e-4 0.1
same "... FP8 untouched by BF16 rows" \
	"$(jget calibrations.0.constants.fp8_gemm_eff.active)" False
check "... before: the built-in defaults' error" \
	near "$(jget calibrations.0.groups.0.mape_before)" 0.11 0.2
check "... cross-validated error near 0" \
	python3 -c "import sys; sys.exit(0 if $(jget calibrations.0.groups.0.mape_cv) < 0.01 else 1)"
same "... per-row predictions" "$(jget calibrations.0.rows.0.row)" \
	"$CSV:2"
same "... and memory verdicts (tp 1: 79 GiB of 80)" \
	"$(jget calibrations.0.rows.0.memory_status_before)" oom-risk
same "... tp 2 safe" "$(jget calibrations.0.rows.2.memory_status_fitted)" safe
# Those rows are inside every bound: nothing said to be at one.
same "... gemm_eff_max not at a bound" \
	"$(jget calibrations.0.constants.gemm_eff_max.at_bound)" None
same "... nor any constant" "$(jget calibrations.0.constants_at_bound)" 0
hasnt "... no warning of a bound" "bound" "$T/err"
hasnt "... no warning of too few runs" "cross-validate" "$T/err"

# ---- a constant fitted at a bound -------------------------------------------
# The same runs measured at 0.3 times their time: faster than the GEMM
# efficiency's ceiling (0.95 of the peak) allows, so the fit ends on it
# (and the attention, links and overhead on theirs), and the table,
# JSON, warning and written file each say so, the warning once.
mkdir -p "$T/fast"
cp "$CAMP" "$T/fast/"
awk -F, -v OFS=, 'NR > 1 { $6 = sprintf("%.4f", $6 * 0.3) } { print }' \
	"$CSV" >"$T/fast/runs.csv"
expect "runs faster than the bounds allow" 0 "$PT" calibrate \
	"$T/fast/runs.csv"
has "... the table marks gemm_eff_max at its upper bound" \
	"^gemm_eff_max  *0.75  *0.95 .*(at upper bound)" "$T/out"
hasnt "... and no constant kept at its start" \
	"kept; at .* bound" "$T/out"
has "... one warning naming it" \
	"^warning: h100-sxm: .*gemm_eff_max (high).* fitted at .*bound" "$T/err"
same "... one line for the fit" "$(grep -c bound "$T/err")" 1
expect "... in JSON" 0 "$PT" calibrate "$T/fast/runs.csv" --format json
same "... at_bound high" \
	"$(jget calibrations.0.constants.gemm_eff_max.at_bound)" high
same "... a constant inside its bounds: null" \
	"$(jget calibrations.0.constants.memory_fragmentation.at_bound)" None
same "... a kept one: null" \
	"$(jget calibrations.0.constants.fp8_gemm_eff.at_bound)" None
expect "... written with -o" 0 "$PT" calibrate "$T/fast/runs.csv" \
	-o "$T/fast/cal.conf"
has "... the file's comment names it" \
	"^# h100-sxm: fitted at a bound, .*gemm_eff_max (high)" \
	"$T/fast/cal.conf"
expect "... unless --fix keeps it" 0 "$PT" calibrate "$T/fast/runs.csv" \
	--fix gemm_eff_max --format json
same "... then not said" \
	"$(jget calibrations.0.constants.gemm_eff_max.at_bound)" None

expect "--gpu keeps only that GPU's rows" 65 "$PT" calibrate "$CSV" \
	--gpu b200
has "... says none are left" "no measured run of GPU 'b200'" "$T/err"
has "... and which GPUs it has runs of" "; it has runs of h100-sxm$" "$T/err"
# Of one CSV a warning naming it said the error again.
hasnt "... once, not as a warning on the CSV too" "^warning: .*no measured run" \
	"$T/err"
# A misspelt GPU matched nothing and said no more than that.
expect "--gpu h100sxm, a typo" 65 "$PT" calibrate "$CSV" --gpu h100sxm
has "... suggests the name" \
	"GPU 'h100sxm' in the input (did you mean 'h100-sxm'?); it has runs of h100-sxm" \
	"$T/err"
expect "--folds 1" 64 "$PT" calibrate "$CSV" --folds 1

# ---- ranking, fixed constants, the ordering term -----------------------------
expect "calibrate --format json, the ranking" 0 "$PT" calibrate "$CSV" \
	--format json
same "... one campaign" "$(jget calibrations.0.groups.0.ranking.campaigns)" 1
same "... ten configurations" \
	"$(jget calibrations.0.groups.0.ranking.configs)" 10
same "... its fastest predicted fastest, cross-validated" \
	"$(jget calibrations.0.groups.0.ranking.best_cv)" 1
same "... the campaign listed" "$(jget calibrations.0.campaigns.0.campaign)" \
	"$CSV:llama3_8b_h100.conf"
expect "--fix keeps constants at their defaults" 0 "$PT" calibrate "$CSV" \
	--fix gemm_eff_max,layer_overhead_s --format json
same "... gemm_eff_max kept" \
	"$(jget calibrations.0.constants.gemm_eff_max.fitted)" 0.75
same "... and said so" "$(jget calibrations.0.constants.gemm_eff_max.fixed)" \
	True
check "... the others fitted" python3 -c "import sys; sys.exit(0 if \
	$(jget calibrations.0.constants.attn_eff_flash.fitted) != 0.45 else 1)"
expect "--fix an unknown constant" 64 "$PT" calibrate "$CSV" --fix gemm_eff
has "... names it" "--fix 'gemm_eff': not a constant" "$T/err"
for f in , ""; do
	expect "--fix '$f' names no constant" 64 "$PT" calibrate "$CSV" \
		--fix "$f"
	has "... and says so" "--fix '$f': no constant named" "$T/err"
done
expect "--rank-weight below 0" 64 "$PT" calibrate "$CSV" --rank-weight -1
expect "--rank-weight 3" 0 "$PT" calibrate "$CSV" --rank-weight 3

# The ordering term over the pairs of 400 configurations of one campaign
# fits them; what it costs against the fit without it is a figure that
# bench/bench-rank-weight prints (it took 8 times as long, summed pair
# by pair with a log each).
awk 'BEGIN { print "campaign_file,tp,pp,mbs,gbs,step_s"
	for (i = 0; i < 400; i++) {
		tp = 2 ^ (i % 4); k = int(i / 4) + 1
		printf "llama3_8b_h100.conf,%d,1,1,%d,%.4f\n", tp, 64 * k,
			k * (3 + 0.4 * (i % 4) + 0.05 * (i % 7))
	} }' >"$T/many.csv"
cp "$CAMP" "$T/"
expect "... 400 configurations of one campaign, --rank-weight 3" 0 \
	"$PT" calibrate "$T/many.csv" --rank-weight 3
has "... ranked as one campaign of 400" "^dense-bf16  *1  *400 " "$T/out"

# One campaign's runs were put in folds row by row: the runs of one
# layout (repeats, other releases) were each predicted by a fit to the
# others, "4-fold cross-validated" on one configuration measured 4 times.
printf 'campaign_file,tp,step_s\n' >"$T/one.csv"
for s in 3.40 3.45 3.50 3.42; do
	printf 'llama3_8b_h100.conf,2,%s\n' "$s" >>"$T/one.csv"
done
expect "one configuration measured 4 times" 0 "$PT" calibrate "$T/one.csv"
has "... is not cross-validated" \
	"^h100-sxm: 4 measured runs, all of one configuration: not cross-validated" \
	"$T/out"
hasnt "... no fold figure" "fold" "$T/out"
# Only the report said so, in passing: the constants moved with no
# held-out check, and nothing warned.
has "... warns that nothing checks the constants" \
	"^warning: h100-sxm: fitted from 4 measured runs of 1 configuration, too few to cross-validate: the constants have no held-out check; measure more runs" \
	"$T/err"
# Its interval was "measured between 0.819 and 1.221 times the
# prediction (10th-90th percentile of the built-in residuals)": the
# built-in band, e^-0.2 to e^0.2, measured from nothing.
has "... the interval said to be the built-in band" \
	"^  interval: the built-in band, 0.819 to 1.221 times the prediction (no cross-validated" \
	"$T/out"
hasnt "... not measured" "measured between" "$T/out"
expect "... in JSON" 0 "$PT" calibrate "$T/one.csv" --format json
same "... no folds" "$(jget calibrations.0.folds)" 0
same "... no cross-validated error" "$(jget calibrations.0.groups.0.mape_cv)" \
	None
# Written, its built-in band was read back as measured: estimate said
# "the calibration's residuals" and the adaptive search relied on it.
expect "... written" 0 "$PT" calibrate "$T/one.csv" -o "$T/one.conf"
has "... with rows = 0: no measured interval" "^    rows = 0;" "$T/one.conf"
has "... and a comment saying why" \
	"^# h100-sxm: 4 rows, not cross-validated: the built-in interval" \
	"$T/one.conf"
has "... and the warning" \
	"^# h100-sxm: fitted from 4 measured runs of 1 configuration, too few to cross-validate" \
	"$T/one.conf"
# One run moved gemm_eff_max from 0.75 to 0.61, and nothing warned.
head -2 "$CSV" >"$T/single.csv"
expect "one measured run" 0 "$PT" calibrate "$T/single.csv" -o "$T/single.conf"
has "... warns, naming the GPU and the run" \
	"^warning: h100-sxm: fitted from 1 measured run of 1 configuration, too few to cross-validate: the constants have no held-out check" \
	"$T/err"
same "... once" "$(grep -c 'too few to cross-validate' "$T/err")" 1
has "... and says so in the file" \
	"^# h100-sxm: fitted from 1 measured run of 1 configuration" \
	"$T/single.conf"
has "... whose row count is singular" "^# h100-sxm: 1 row, not cross" \
	"$T/single.conf"
expect "... which estimate reads" 0 "$PT" --site "$T/one.conf" estimate \
	"$T/llama3_8b_h100.conf"
has "... calling its interval the built-in band" \
	"^  interval .*(built-in band)$" "$T/out"
has "... under its name" "^  calibration  calibrated (.*:[0-9]*)$" \
	"$T/out"
printf 'llama3_8b_h100.conf,4,%s\n' 3.1 3.2 >>"$T/one.csv"
expect "two configurations, six runs" 0 "$PT" calibrate "$T/one.csv" \
	--format json
same "... two folds, by configuration" "$(jget calibrations.0.folds)" 2

# One campaign file named two ways was two campaigns of one layout each:
# nothing to rank, and each could be fitted to predict its twin.
printf 'campaign_file,tp,step_s\nllama3_8b_h100.conf,2,3.4\n' >"$T/twice.csv"
printf './llama3_8b_h100.conf,4,3.1\n' >>"$T/twice.csv"
expect "one campaign file under two names" 0 "$PT" calibrate "$T/twice.csv" \
	--format json
same "... is one campaign of two configurations" \
	"$(jget calibrations.0.groups.0.ranking.campaigns) $(jget calibrations.0.groups.0.ranking.configs)" \
	"1 2"
same "... named as its first row names it" "$(jget calibrations.0.campaigns.0.campaign)" \
	"$T/twice.csv:llama3_8b_h100.conf"

# ---- pooled, by group, from the hand-set constants (bench/fit-defaults) -----
expect "--pool fits every GPU's rows together" 0 "$PT" calibrate "$CSV" --pool
has "... as all GPUs" "^all GPUs: 10 measured runs" "$T/out"
expect "--pool with -o" 64 "$PT" calibrate "$CSV" --pool -o "$T/pool.conf"
has "... is no GPU's calibration" "no GPU's calibration" "$T/err"
check "... and writes nothing" test ! -e "$T/pool.conf"
# -o naming an input replaced the measured runs with the calibration.
cp "$CSV" "$T/self.csv"
ln "$T/self.csv" "$T/self-hard.csv"
expect "-o naming an input (by another name) is refused" 64 \
	"$PT" calibrate "$T/self.csv" -o "$T/self-hard.csv"
has "... saying what it would replace" "would replace it" "$T/err"
check "... which is kept" cmp -s "$CSV" "$T/self.csv"
# Nor the campaign file its rows name, which the fit reads first.
cp "$T/llama3_8b_h100.conf" "$T/camp-before.conf"
expect "-o naming a row's campaign file is refused" 64 \
	"$PT" calibrate "$T/one.csv" -o "$T/./llama3_8b_h100.conf"
has "... naming it" "is the campaign file '.*llama3_8b_h100.conf' of measured runs" "$T/err"
check "... which is kept" cmp -s "$T/camp-before.conf" \
	"$T/llama3_8b_h100.conf"
expect "--group of no row" 65 "$PT" calibrate "$CSV" --group moe
# It named neither the group asked for nor those there are.
has "... naming it and the input's groups" \
	"no measured run of group 'moe' in the input (its groups: dense-" "$T/err"
expect "--group dense-bf16" 0 "$PT" calibrate "$CSV" --group moe \
	--group dense-bf16 --format json
same "... keeps its ten rows" "$(jget calibrations.0.runs)" 10
expect "--hand-set" 0 "$PT" calibrate "$CSV" --hand-set --format json
same "... starts from the hand-set fp8_gemm_eff" \
	"$(jget calibrations.0.constants.fp8_gemm_eff.default)" 1
expect "--hand-set --format table" 0 "$PT" calibrate "$CSV" --hand-set
has "... says so" "before with the hand-set constants" "$T/out"

# ---- the MoE-only constants, once over every GPU's MoE runs -----------------
# The published MoE runs of tests/data/measured cover four GPUs.
MOE=$SRC/tests/data/measured/megatron-bridge-blackwell.csv
# moe_values KEY: the fitted value of KEY in each calibration, one a line.
moe_values() {
	python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["calibrations"]:
    print(c["gpu"], c["constants"][sys.argv[2]]["fitted"],
          c["constants"][sys.argv[2]]["shared"])' "$T/out" "$1"
}
expect "MoE runs of four GPUs" 0 "$PT" calibrate "$MOE" --group moe \
	--format json
same "... four calibrations" "$(moe_values moe_gemm_eff | wc -l)" 4
same "... moe_gemm_eff shared by all" \
	"$(moe_values moe_gemm_eff | awk '{print $2, $3}' | sort -u | wc -l)" 1
same "... and marked so" "$(moe_values moe_gemm_eff | awk '{print $3}' |
	sort -u)" True
same "... gemm_eff_max is not" \
	"$(jget calibrations.0.constants.gemm_eff_max.shared)" False
expect "... as a table" 0 "$PT" calibrate "$MOE" --group moe
has "... which says so" "^  moe rows: predicted with the constants marked" \
	"$T/out"
# Fits of thousands of runs said nothing for half a minute.  Off a
# terminal, nothing unless asked; with --progress a line a fit, the
# shared MoE fit last; with -q none.
hasnt "... with no progress off a terminal" "calibrate: fitting" "$T/err"
expect "--progress" 0 "$PT" calibrate "$MOE" --group moe --progress
has "... says each GPU's fit" "^calibrate: fitting gb200 (2 of 5), [0-9]* measured runs$" \
	"$T/err"
has "... and the shared one last" \
	"^calibrate: fitting the MoE-only constants over every GPU (5 of 5), 105 measured runs$" \
	"$T/err"
check "... no terminal control in a log" sh -c "! grep -q \"\$(printf '\\033')\" '$T/err'"
expect "--progress with -q" 0 "$PT" -q calibrate "$MOE" --group moe --progress
hasnt "... says nothing" "calibrate: fitting" "$T/err"
has "... and keeps what dense layers share, which MoE runs alone move" \
	"^gemm_eff_max .*(MoE runs only: kept)" "$T/out"
expect "the same runs with their dense ones" 0 "$PT" calibrate "$MOE"
same "... keep gemm_eff_max only for B300, measured on MoE runs alone" \
	"$(grep -c '^gemm_eff_max .*(MoE runs only: kept)' "$T/out")" 1
has "... and say where the fit predicts worse than its start (GB200's MoE)" \
	"^  note: moe: .* cross-validated against .* with the built-in defaults" \
	"$T/out"
has "... naming the constants it moved farthest (GB200's token curve)" \
	"^  note: moe: .*worse than its start; it moved gemm_tokens_half 192 -> [0-9]* and attn_eff_flash 0.45 -> 0.2[0-9]* farthest (--fix" \
	"$T/out"
has "... and none where nothing moved a quarter of its bounds (B300)" \
	"^  note: moe: .*worse than its start (--fix keeps constants" "$T/out"
# Written, such a fit made a site's estimates of the GPU worse than
# the built-in constants'; --only-better leaves it out.
expect "the same runs, the table" 0 "$PT" calibrate "$MOE"
same "... notes the GPUs --only-better leaves out (GB200, B300)" \
	"$(grep -c '^  note: all: .* over all its runs the fit predicts no better than its start (-o --only-better leaves it out)$' "$T/out")" 2
expect "--only-better without -o" 64 "$PT" calibrate "$MOE" --only-better
has "... says it chooses what -o writes" \
	"^error: --only-better without -o: it chooses what -o writes" "$T/err"
expect "--only-better -o" 0 "$PT" calibrate "$MOE" --only-better \
	-o "$T/better.conf"
has "... writes GB300's fit, better than the built-in constants" \
	"^  gb300 = {" "$T/better.conf"
hasnt "... not GB200's, worse" "^  gb200 = {" "$T/better.conf"
has "... saying why in the file" \
	"^# gb200: not written (--only-better): its fit predicts its runs, held out, no better than the built-in defaults do ([0-9.]* % against [0-9.]* %)$" \
	"$T/better.conf"
has "... and in a warning" "^warning: gb200: not written (--only-better)" \
	"$T/err"
expect "... JSON says which improve" 0 "$PT" calibrate "$MOE" --format json
same "... GB300's does" "$(jget calibrations.0.gpu):$(jget calibrations.0.improves)" \
	"gb300:True"
same "... GB200's does not" "$(jget calibrations.1.gpu):$(jget calibrations.1.improves)" \
	"gb200:False"
printf 'campaign_file,tp,step_s\n' >"$T/once.csv"
for s in 3.40 3.45; do
	printf 'llama3_8b_h100.conf,2,%s\n' "$s" >>"$T/once.csv"
done
expect "--only-better of one configuration" 0 "$PT" calibrate "$T/once.csv" \
	--only-better -o "$T/none.conf"
has "... not written: nothing held out" \
	"^# h100-sxm: not written (--only-better): too few configurations to cross-validate its fit$" \
	"$T/none.conf"
hasnt "... no calibration group at all" "^calibration" "$T/none.conf"
expect "... which a site file includes all the same" 0 "$PT" \
	--site "$T/none.conf" estimate "$T/llama3_8b_h100.conf"
has "... the built-in constants serving" "calibration  *built-in" "$T/out"
expect "... written" 0 "$PT" calibrate "$MOE" --group moe -o "$T/moe.conf"
has "... with a comment naming the shared constants" \
	"^# moe_gemm_eff: fitted once to the MoE runs of every GPU" "$T/moe.conf"
expect "--moe-per-gpu" 0 "$PT" calibrate "$MOE" --group moe --moe-per-gpu \
	--format json
same "... fits them per GPU" \
	"$(moe_values moe_gemm_eff | awk '{print $3}' | sort -u)" False
check "... to values of their own" test "$(moe_values moe_gemm_eff |
	awk '{print $2}' | sort -u | wc -l)" -gt 1
expect "--moe-per-gpu as a table" 0 "$PT" calibrate "$MOE" --group moe \
	--moe-per-gpu
hasnt "... says nothing of sharing" "^  moe rows:" "$T/out"
expect "--gpu gb300 alone" 0 "$PT" calibrate "$MOE" --group moe --gpu gb300 \
	--format json
same "... has nothing to share" \
	"$(jget calibrations.0.constants.moe_gemm_eff.shared)" False

# ---- empty columns: the base section, else the first searched values ------
# The same row predicted as estimate predicts it with layout options:
# with the campaign's base section an empty tp is its tp 2; without one
# it is the first searched tp, 1, never the planned base.
mkdir "$T/cols"
cp "$CAMP" "$T/cols/with-base.conf"
sed '/^base = {/,/^};/d' "$CAMP" >"$T/cols/no-base.conf"
cat >"$T/cols/runs.csv" <<'CSV'
campaign_file,tp,pp,mbs,step_s,group
with-base.conf,,1,1,3.0,dense-bf16
no-base.conf,,1,1,3.0,dense-bf16
CSV
pred_row() {
	"$PT" calibrate --format json "$T/cols/runs.csv" >"$T/out" 2>"$T/err"
	jget "calibrations.0.rows.$1.pred_before_s"
}
pred_est() {
	"$PT" estimate "$T/cols/$1" --tp "$2" --pp 1 --mbs 1 --format json \
		>"$T/out" 2>"$T/err"
	jget pred_step_s
}
b=$(pred_row 0); e=$(pred_est with-base.conf 2)
check "an empty column takes the base section ($b s, tp 2: $e s)" \
	near "$b" "$e" 1e-6
b=$(pred_row 1); e=$(pred_est no-base.conf 1)
check "... else the first searched value ($b s, tp 1: $e s)" \
	near "$b" "$e" 1e-6
check "... which is not tp 2's" \
	test "$(pred_est no-base.conf 2)" != "$b"

# ---- the written group, read back ---------------------------------------------
expect "calibrate -o" 0 "$PT" calibrate "$CSV" -o "$T/cal.conf" \
	--name site-test
has "... says where" "wrote $T/cal.conf" "$T/out"
# "wrote FILE" and no more: the next step was in the manual alone.
has "... and how to use it" \
	"wrote $T/cal.conf: estimate, plan and results use it once the site, user or campaign file has @include \"$T/cal.conf\" (or its path relative to that file)" \
	"$T/out"
has "... a header naming its rows" "^#   $CSV:2" "$T/cal.conf"
has "... the group" "^  h100-sxm = {" "$T/cal.conf"
has "... its name" 'name = "site-test";' "$T/cal.conf"
has "... the residual band" "residual_low = " "$T/cal.conf"
has "... the rows" "rows = 10;" "$T/cal.conf"
# Written again: a file's mode is kept (it became 0644), a link's target
# written and the link kept (it was replaced by a file).
chmod 664 "$T/cal.conf"
expect "calibrate -o onto a file of mode 0664, under umask 022" 0 sh -c \
	'umask 022 && exec "$@"' sh "$PT" calibrate "$CSV" -o "$T/cal.conf" \
	--name site-test
same "... keeps its mode" "$(stat -c %a "$T/cal.conf")" 664
mkdir -p "$T/shared"
: >"$T/shared/site-cal.conf"
ln -sf "$T/shared/site-cal.conf" "$T/cal-link.conf"
expect "calibrate -o onto a symbolic link" 0 "$PT" calibrate "$CSV" \
	-o "$T/cal-link.conf"
check "... the link kept" test -L "$T/cal-link.conf"
has "... its target written" "^  h100-sxm = {" "$T/shared/site-cal.conf"
ln -s shared/first.conf "$T/first-link.conf"
expect "calibrate -o onto a link whose target is not there yet" 0 "$PT" \
	calibrate "$CSV" -o "$T/first-link.conf"
check "... the link kept" test -L "$T/first-link.conf"
has "... its target made" "^  h100-sxm = {" "$T/shared/first.conf"
expect "calibrate -o ''" 64 "$PT" calibrate "$CSV" -o ''
has "... an empty name, a usage error" "-o: an empty file name" "$T/err"
expect "estimate with the site including it" 0 "$PT" --site "$T/cal.conf" \
	estimate "$CAMP"
has "... names the calibration" "^  calibration  site-test (.*:[0-9]*)$" \
	"$T/out"
has "... the interval from its residuals" \
	"interval .*(the calibration's residuals)" "$T/out"
expect "estimate without it" 0 "$PT" estimate "$CAMP"
has "... built-in defaults" "^  calibration  built-in defaults$" "$T/out"
{ cat "$CAMP"; echo '@include "cal.conf"'; } >"$T/camp.conf"
expect "estimate a campaign that includes it" 0 "$PT" estimate \
	"$T/camp.conf" --format json
same "... JSON names it" "$(jget calibration)" site-test
low=$(jget pred_step_s_low) high=$(jget pred_step_s_high) mid=$(jget pred_step_s)
check "... low <= pred <= high" python3 -c \
	"import sys; sys.exit(0 if $low <= $mid <= $high else 1)"
check "... the fitted speed: 3.436 s at the base (the row's measurement)" \
	near "$mid" 3.4359 0.002
expect "plan it" 0 "$PT" plan "$T/camp.conf" -o "$T/dir"
has "... plan names the calibration" "^calibration: site-test$" "$T/out"
has "... the frozen campaign keeps it" 'name = "site-test";' \
	"$T/dir/campaign.conf"
has "... candidates.csv has the interval" \
	",pred_step_s_low,pred_step_s_high$" "$T/dir/candidates.csv"
expect "estimate the planned base" 0 "$PT" estimate "$T/dir"
has "... with the frozen calibration" \
	"^  calibration  site-test (.*:[0-9]*)$" "$T/out"
expect "results name it" 0 "$PT" results "$T/dir" --format json
same "... in JSON" "$(jget calibration)" site-test
expect "results, the summary" 0 "$PT" results "$T/dir"
has "... in the summary" "^predictions: calibration site-test$" "$T/out"

# A site file that includes the published calibration and then its
# own was refused, "duplicate setting name 'calibration'", no more.
cp "$SRC/etc/calibration-published.conf" "$T/"
printf '@include "calibration-published.conf"\n@include "cal.conf"\n' \
	>"$T/both.conf"
expect "a site file including two calibrations" 78 "$PT" --site \
	"$T/both.conf" estimate "$CAMP"
has "... names the file and line" \
	"cal.conf:[0-9]*: duplicate setting name 'calibration' (a file" "$T/err"
has "... and says what to do" \
	"or include one file from the user or campaign file" "$T/err"
printf '@include "calibration-published.conf"\n' >"$T/published.conf"
expect "... which the campaign file does" 0 "$PT" --site "$T/published.conf" \
	estimate "$T/camp.conf"
has "... its member taking the site's place, named by its file" \
	"^  calibration  site-test (.*/cal.conf:[0-9]*)$" \
	"$T/out"

# A GPU that only the campaign files define got a member that a site
# file including the calibration refused for every command ("unknown
# GPU"), with no word when it was written.
TT=$SRC/tests/data/measured/torchtitan.csv
expect "calibrate -o, a GPU its campaign files define" 0 "$PT" calibrate \
	"$TT" --gpu h100-96gb -o "$T/tt.conf"
has "... warns that a site file including it must define it" \
	"GPU 'h100-96gb' is defined by its campaign files alone" "$T/err"
{ grep '^gpus = ' "$SRC/tests/data/measured/campaigns/llama31_8b_h100-96gb_8g_s8192_bf16.conf"
  echo '@include "tt.conf"'; } >"$T/site-96.conf"
expect "... which such a site file includes" 0 "$PT" --site "$T/site-96.conf" \
	estimate "$CAMP"
expect "... and no warning where the site defines the GPU" 0 "$PT" \
	--site "$T/site-96.conf" calibrate "$TT" --gpu h100-96gb -o "$T/tt.conf"
hasnt "... none" "defined by its campaign files" "$T/err"
# -o onto a FIFO (or as root a device: /dev/null) put a regular file in
# its place, since the file written is renamed onto the name.
mkfifo "$T/fifo"
ln -s "$T/fifo" "$T/fifo-link"
for o in fifo fifo-link; do
	expect "calibrate -o $o" 73 "$PT" calibrate "$CSV" -o "$T/$o"
	has "... refused: not a regular file" "cannot replace '$T/$o': not a regular" \
		"$T/err"
	check "... the FIFO kept" test -p "$T/$o"
done
# An input's name is written in the file's head: with a newline in it
# the rest of the name became a line of libconfig, which estimate then
# refused (a syntax error) or read as a setting.
nl="$T/runs
calibration = 3;
.csv"
cp "$CSV" "$nl"
cp "$CAMP" "$T/"
expect "calibrate an input named with a newline, -o" 0 "$PT" calibrate \
	"$nl" -o "$T/nl.conf"
hasnt "... no line of the name left outside the comment" \
	"^calibration = 3;" "$T/nl.conf"
expect "... which estimate reads" 0 "$PT" --site "$T/nl.conf" estimate "$CAMP"
has "... and uses" "^  calibration  calibrated (.*:[0-9]*)$" \
	"$T/out"

# ---- a campaign directory's measured candidates -----------------------------
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
# iter N MS [GBS]: a Megatron-LM iteration line of an 8-step run at
# global batch size GBS (64)
iter() {
	printf ' [2024-05-01 10:00:00] iteration %8d/       8 | consumed samples: %12d | elapsed time per iteration (ms): %s | learning rate: 1.000000E-05 | global batch size: %5d | lm loss: 1.000000E+01 | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
		"$1" $(($1 * ${3:-64})) "$2" "${3:-64}"
}
expect "calibrate a campaign directory with nothing measured" 65 \
	"$PT" calibrate "$T/dir"
has "... says so" "no measured run in the input" "$T/err"
has "... naming the directory" "$T/dir: no measured run (none of its candidates" \
	"$T/err"
i=0
for n in $(awk -F, 'NR > 1 && $15 == "safe" { print $2 }' \
	"$T/dir/candidates.csv" | head -3); do
	i=$((i + 1))
	for s in 1 2 3 4 5 6 7 8; do iter $s "3${i}00.0"; done \
		>"$T/dir/runs/$n/slurm-$((2000 + i)).out"
	setstate "$T/dir" "$n" state=completed job=$((2000 + i)) attempt=1
done
# A fourth ran 128 sequences a step where 64 were planned (its template
# set its own batch size): its step times are not the planned layout's.
n=$(awk -F, 'NR > 1 && $15 == "safe" { print $2 }' "$T/dir/candidates.csv" |
	sed -n 4p)
for s in 1 2 3 4 5 6 7 8; do iter $s 3400.0 128; done \
	>"$T/dir/runs/$n/slurm-2004.out"
setstate "$T/dir" "$n" state=completed job=2004 attempt=1
expect "calibrate a campaign directory" 0 "$PT" calibrate "$T/dir" \
	--format json
same "... its three measured candidates" "$(jget calibrations.0.runs)" 3
has "... not the run of another batch size" \
	"'$n' ran global batch size 128, planned 64" "$T/err"
same "... measured step time, the log's mean" \
	"$(jget calibrations.0.rows.0.measured_step_s)" 3.1
same "... three folds at most" "$(jget calibrations.0.folds)" 3
# A log's peak above its GPU's memory is no measurement: its step time
# is fitted, its peak is not, and calibrate says so (a CSV's such peak
# is an error: the CSV is the input, the log its owner's).
mem() {
	printf '[Rank 0] (after 8 iterations) memory (MB) | allocated: 1000.0 | max allocated: %s | reserved: 1000.0 | max reserved: %s\n' "$1" "$1"
}
for k in 2 3; do
	n=$(awk -F, 'NR > 1 && $15 == "safe" { print $2 }' \
		"$T/dir/candidates.csv" | sed -n ${k}p)
	cp "$T/dir/runs/$n/slurm-200$k.out" "$T/log$k.bak"
	mem "$([ $k = 2 ] && echo 300000.0 || echo 40960.0)" \
		>>"$T/dir/runs/$n/slurm-200$k.out"
done
expect "a log's peak above its GPU's memory" 0 "$PT" calibrate "$T/dir" \
	--format json
same "... every run fitted" "$(jget calibrations.0.runs)" 3
has "... says which peak, and the GPU's memory" \
	"its log's peak of 293\.0 GiB is above the 79\.6 GiB of GPU 'h100-sxm'" \
	"$T/err"
check "... its peak left out, the other's fitted" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["calibrations"][0]["rows"]
peaks = sorted(r["measured_peak_gib"] for r in rows
               if r["measured_peak_gib"] is not None)
sys.exit(0 if peaks == [40.0] else 1)' "$T/out"
for k in 2 3; do
	n=$(awk -F, 'NR > 1 && $15 == "safe" { print $2 }' \
		"$T/dir/candidates.csv" | sed -n ${k}p)
	cp "$T/log$k.bak" "$T/dir/runs/$n/slurm-200$k.out"
done
expect "a directory and a file together" 0 "$PT" calibrate "$T/dir" "$CSV"
has "... thirteen runs" "^h100-sxm: 13 measured runs" "$T/out"
# A log that cannot be read (a planted link is not followed): nothing is
# fitted from the rest of the campaign, as results fails then too.
n=$(awk -F, 'NR > 1 && $15 == "safe" { print $2 }' "$T/dir/candidates.csv" |
	head -1)
mv "$T/dir/runs/$n/slurm-2001.out" "$T/moved.out"
ln -s "$T/moved.out" "$T/dir/runs/$n/slurm-2001.out"
expect "a campaign directory with a log that cannot be read" 65 \
	"$PT" calibrate "$T/dir" -o "$T/partial.conf"
has "... names the log" "slurm-2001.out'" "$T/err"
has "... and why nothing is fitted" "1 log or run directory of '$T/dir' could not be read" \
	"$T/err"
check "... and writes no calibration" test ! -e "$T/partial.conf"
rm "$T/dir/runs/$n/slurm-2001.out"
mv "$T/moved.out" "$T/dir/runs/$n/slurm-2001.out"

# ---- errors -----------------------------------------------------------------
sed 's/^campaign_file,tp/campaign_file,tpp/' "$CSV" >"$T/bad.csv"
cp "$CAMP" "$T/"
expect "an unknown column" 65 "$PT" calibrate "$T/bad.csv"
has "... names file, line and column" "bad.csv:1:15: unknown column 'tpp'" \
	"$T/err"
# A spreadsheet's "TP", or "step_time", was listed among every column
# known, the one meant not named.
has "... and the column meant" "unknown column 'tpp' (did you mean 'tp'?)" \
	"$T/err"
sed 's/^campaign_file,tp/campaign_file,TP/' "$CSV" >"$T/bad.csv"
expect "a column in capitals" 65 "$PT" calibrate "$T/bad.csv"
has "... suggests the column" \
	"bad.csv:1:15: unknown column 'TP' (did you mean 'tp'?)" "$T/err"
sed '1s/,step_s,/,step_time,/' "$CSV" >"$T/bad.csv"
expect "a column step_time" 65 "$PT" calibrate "$T/bad.csv"
has "... suggests step_s" "unknown column 'step_time' (did you mean 'step_s'?)" \
	"$T/err"
sed '1s/,step_s,/,step_s,step_time,/; 2,$s/,3\.1487,/,3.1487,3,/' "$CSV" |
	head -2 >"$T/bad.csv"
expect "a column step_time beside step_s" 65 "$PT" calibrate "$T/bad.csv"
hasnt "... suggests no column already there" "did you mean" "$T/err"
has "... lists the columns" "unknown column 'step_time' (campaign_file, step_s" \
	"$T/err"
# The model, not the group field, makes a run an MoE run: dense runs
# labelled moe fitted nothing (exit 0, the defaults written as fitted),
# MoE runs labelled dense-fp8 bent the dense constants to their bounds.
cp "$CAMP" "$T/llama3_8b_h100.conf"
sed '2s/,dense-bf16,/,moe,/' "$CSV" >"$T/grp.csv"
expect "a dense run labelled moe" 65 "$PT" calibrate "$T/grp.csv"
has "... names the field and what the model makes it" \
	"grp.csv:2:[0-9]*: group 'moe', but the campaign's model llama3_8b makes it 'dense-bf16'" \
	"$T/err"
sed '2s/,dense-bf16,/,MoE,/' "$CSV" >"$T/grp.csv"
expect "... or MoE in capitals" 65 "$PT" calibrate "$T/grp.csv"
sed '2,$s/,dense-bf16,/,dense-fp4,/' "$CSV" >"$T/grp.csv"
expect "a group of the user's own" 0 "$PT" calibrate "$T/grp.csv"
has "... reported under its name" "^dense-fp4 " "$T/out"
# A block pasted twice counted each run twice without a word.
{ cat "$CSV"; sed -n 2,3p "$CSV"; } >"$T/twice.csv"
expect "lines repeated word for word" 0 "$PT" calibrate "$T/twice.csv"
has "... are named" "twice.csv:12: the same as line 2, word for word: the run counts twice in the fit" \
	"$T/err"
has "... each" "twice.csv:13: the same as line 3" "$T/err"
{ cat "$CSV"; printf '  \t\n'; } >"$T/blank.csv"
expect "a last line of spaces and a tab, skipped as blank" 0 "$PT" calibrate \
	"$T/blank.csv"
has "... all its rows read" "^h100-sxm: 10 measured runs" "$T/out"
expect "a missing input" 66 "$PT" calibrate "$T/none.csv"
# A campaign's own results.csv, or a CSV of semicolons (a spreadsheet's
# in some locales), was an unknown column and no more.
expect "a campaign's results.csv" 65 "$PT" calibrate "$T/dir/results/results.csv"
has "... says to give the directory" \
	"results.csv:1:1: unknown column 'rank' (.*; a campaign's candidates.csv or results.csv: give calibrate the campaign directory)" \
	"$T/err"
printf 'campaign_file;tp;step_s\nllama3_8b_h100.conf;1;3.4\n' >"$T/semi.csv"
expect "a CSV of semicolons" 65 "$PT" calibrate "$T/semi.csv"
has "... says what separates fields" \
	"semi.csv:1:1: unknown column 'campaign_file;tp;step_s' (.*; fields are separated by commas)" \
	"$T/err"
# A campaign_file written relative to the working directory was said
# missing, not where it was looked for; a campaign directory named
# there "cannot be planned (above)" after "it is a directory".
mkdir "$T/rel"
printf 'campaign_file,tp,step_s\nrel/c.conf,1,3.4\n' >"$T/rel/runs.csv"
cp "$CAMP" "$T/rel/c.conf"
expect "a campaign_file relative to the working directory" 66 \
	"$PT" calibrate "$T/rel/runs.csv"
has "... says where it looked and why" \
	"rel/runs.csv:2:1: campaign_file 'rel/c.conf': No such file or directory (looked for '$T/rel/rel/c.conf': a campaign_file is relative to the CSV file's directory)" \
	"$T/err"
printf 'campaign_file,tp,step_s\ndir,1,3.4\n' >"$T/dirrow.csv"
expect "a campaign_file that is the campaign directory" 66 "$PT" \
	calibrate "$T/dirrow.csv"
has "... says what to name instead" \
	"dirrow.csv:2:1: campaign_file 'dir' is a directory: name a campaign file (a campaign directory's campaign.conf), or give the campaign directory to calibrate itself" \
	"$T/err"
hasnt "... not that it cannot be planned" "cannot be planned" "$T/err"
# The campaign files are found next to the CSV.
D2=$T/d2
mkdir "$D2"
cp "$CAMP" "$D2/"
# A byte order mark (spreadsheets write one) was read into the first
# column's name: "unknown column '\ufeffcampaign_file'".
printf '\357\273\277' >"$D2/bom.csv"
cat "$CSV" >>"$D2/bom.csv"
expect "a CSV with a UTF-8 byte order mark" 0 "$PT" calibrate "$D2/bom.csv" \
	--format json
same "... reads every row" "$(jget calibrations.0.runs)" 10
# The same file twice counted every row twice.
cp "$CSV" "$D2/runs.csv"
ln "$D2/runs.csv" "$D2/again.csv"
expect "the same CSV twice, under two names" 0 "$PT" calibrate \
	"$D2/runs.csv" "$D2/again.csv" --format json
same "... is read once" "$(jget calibrations.0.runs)" 10
has "... with a warning" "again.csv: the same input as" "$T/err"
# The GPUs a --gpu missed were found by reading every input again,
# which warned of the repeated one a second time.
expect "the same CSV twice with a --gpu of none of its runs" 65 "$PT" \
	calibrate "$D2/runs.csv" "$D2/again.csv" --gpu h100sxm
same "... warns of the repeat once" \
	"$(grep -c 'again.csv: the same input as' "$T/err")" 1
has "... and still names the GPUs it has runs of" \
	"(did you mean 'h100-sxm'?); it has runs of h100-sxm$" "$T/err"
# Absurd measurements weighed in the fit like any other: 1e-300 s gave
# 300-digit errors and a calibration of nonsense.
for v in 1e308 0 -1 1e7 1e-300 9e-5 nan inf; do
	sed "2s/,3\.1487,/,$v,/" "$CSV" >"$D2/step.csv"
	expect "step_s $v" 65 "$PT" calibrate "$D2/step.csv"
	has "... refused, naming file and line" \
		"step.csv:2:[0-9]*: step_s '$v' is not a number from 0.0001 to 1e+06" \
		"$T/err"
done
for v in 1e6 1e-300 0; do
	sed "2s/,3\.1487,,/,3.1487,$v,/" "$CSV" >"$D2/peak.csv"
	expect "peak_memory_gib $v" 65 "$PT" calibrate "$D2/peak.csv"
	has "... refused, naming file and line" \
		"peak.csv:2:[0-9]*: peak_memory_gib '$v' is not a number from 0.001" \
		"$T/err"
done
# A peak above the GPU's memory (h100-sxm, 79.6 GiB) was fitted as an
# out-of-memory the estimate missed; the catalog's rounding is let pass.
sed "4s/,47\.15,/,100,/" "$CSV" >"$D2/peak.csv"
expect "peak_memory_gib 100 on an 80 GiB GPU" 65 "$PT" calibrate "$D2/peak.csv"
has "... refused, naming file, line and the GPU's memory" \
	"peak.csv:4:[0-9]*: peak_memory_gib '100' is above the 79.6 GiB of GPU 'h100-sxm' (memory_gib)" \
	"$T/err"
sed "4s/,47\.15,/,80,/" "$CSV" >"$D2/peak.csv"
expect "peak_memory_gib 80 on a GPU of 79.6 GiB" 0 "$PT" calibrate \
	"$D2/peak.csv"
# The shortest step taken, 10^4 times shorter than predicted: its error
# is printed in three figures, not as many digits as it has.
sed "2s/,3\.1487,,/,1e-4,0.001,/" "$CSV" >"$D2/short.csv"
expect "step_s 1e-4 and peak_memory_gib 0.001" 0 "$PT" calibrate \
	"$D2/short.csv"
has "... print their error as a figure" "[0-9]e+0[0-9] %" "$T/out"
hasnt "... of no more than 7 digits" "[0-9]\{8\}" "$T/out"
# A campaign_file that is a FIFO: refused, not waited on.
mkfifo "$T/fifo.conf"
{ head -1 "$CSV"; echo 'fifo.conf,1,1,1,,3.1,,,,'; } >"$T/fifo.csv"
expect "a campaign_file that is a FIFO" 78 timeout 10 \
	"$PT" calibrate "$T/fifo.csv"
has "... is not a regular file" "fifo.conf': it is not a regular file" \
	"$T/err"
has "... naming the row" "fifo.csv:2:1: campaign_file 'fifo.conf'" "$T/err"
# ... and never opened: an open, O_NONBLOCK or not, woke a writer that
# waits on it (what it wrote then went nowhere).
(echo woken >"$T/fifo.conf") &
writer=$!
expect "a campaign_file that is a FIFO with a writer" 78 timeout 10 \
	"$PT" calibrate "$T/fifo.csv"
sleep 0.2
check "... is not opened: its writer still waits" kill -0 "$writer"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
# Wrong bytes: a NUL (a binary or corrupt file), an overlong line, no
# header, each named by file and line; a last line without its line
# break is still a row.
{ head -2 "$CSV"; printf 'x\000y\n'; } >"$T/nul.csv"
expect "a NUL byte" 65 "$PT" calibrate "$T/nul.csv"
has "... names file, line and column" "nul.csv:3:2: NUL byte" "$T/err"
# The file is read whole before its rows (their campaign files are
# looked at in child processes): one past 64 MiB is refused unread.
cp "$CSV" "$T/big.csv"
truncate -s 65M "$T/big.csv"
expect "a measured-runs file over 64 MiB" 65 "$PT" calibrate "$T/big.csv"
has "... names the file and the cap" "big.csv: larger than 64 MiB" "$T/err"
rm -f "$T/big.csv"
{ head -1 "$CSV"; head -c 9000 /dev/zero | tr '\000' a; echo; } \
	>"$T/long.csv"
expect "an overlong line" 65 "$PT" calibrate "$T/long.csv"
has "... names file and line" "long.csv:2: line longer than 8191 bytes" \
	"$T/err"
: >"$T/empty.csv"
expect "an empty file" 65 "$PT" calibrate "$T/empty.csv"
has "... says a header is required" "empty.csv:1: empty file" "$T/err"
head -3 "$CSV" | tr -d '\r' | awk 'NR < 3 { print; next } { printf "%s", $0 }' \
	>"$T/cut.csv"
expect "a last line without its line break" 0 "$PT" calibrate "$T/cut.csv" \
	--format json
same "... is read" "$(jget calibrations.0.runs)" 2
printf 'calibration = { h100-sxm = {\n  gemm_eff_max = 1.5; }; };\n' \
	>"$T/over.conf"
expect "a constant beyond its bound" 78 "$PT" --site "$T/over.conf" \
	estimate "$CAMP"
has "... names file, line and key" \
	"over.conf:2: key 'calibration.gemm_eff_max': 1.5 is out of range" \
	"$T/err"
printf 'calibration = { h100-sxm = { gemm_eff_maxx = 0.5; }; };\n' \
	>"$T/typo.conf"
expect "an unknown constant" 78 "$PT" --site "$T/typo.conf" \
	estimate "$CAMP"
has "... with a suggestion" "gemm_eff_max" "$T/err"
# A misspelt GPU calibrated nothing: estimate ran on the built-in
# defaults without a word.  A site may still calibrate GPUs a campaign
# does not use, built-in ones or those a gpus entry adds.
printf 'calibration = {\n  h100-sxn = { gemm_eff_max = 0.5; };\n};\n' \
	>"$T/gpu-typo.conf"
expect "a calibration of a GPU in no catalog" 78 "$PT" \
	--site "$T/gpu-typo.conf" estimate "$CAMP"
has "... names file, line and GPU, with a suggestion" \
	"gpu-typo.conf:2: key 'calibration': unknown GPU 'h100-sxn' (did you mean 'h100-sxm'?)" \
	"$T/err"
LAB='name = "lab-gpu"; memory_gib = 24.0; bf16_tflops = 100.0;
  nvlink_domain = 2; nvlink_gbs = 50.0; network_gbs = 12.5;'
printf 'gpus = ( { %s } );\ncalibration = {\n  b200 = { gemm_eff_max = 0.5; };\n  lab-gpu = { gemm_eff_max = 0.5; };\n};\n' \
	"$LAB" >"$T/other-gpus.conf"
expect "calibrations of GPUs the campaign does not use" 0 "$PT" \
	--site "$T/other-gpus.conf" estimate "$CAMP"
{ cat "$CAMP"; printf 'gpus = ( { %s } );\n' "$LAB"; } >"$T/lab-camp.conf"
printf 'calibration = { lab-gpo = { gemm_eff_max = 0.5; }; };\n' \
	>"$T/lab-typo.conf"
expect "a calibration of a GPU near a campaign's own" 78 "$PT" \
	--site "$T/lab-typo.conf" estimate "$T/lab-camp.conf"
has "... suggests the campaign's GPU" \
	"lab-typo.conf:1: key 'calibration': unknown GPU 'lab-gpo' (did you mean 'lab-gpu'?)" \
	"$T/err"

# A directory that is no campaign (/tmp given by mistake) is said to be
# none, as list and results say, before who can write it is judged.
mkdir "$T/plain" && chmod 1777 "$T/plain"
expect "calibrate of a directory without campaign.conf" 66 \
	"$PT" calibrate "$T/plain"
has "... saying it is not a campaign" "is not a campaign directory" "$T/err"
hasnt "... not advising chmod" "chmod" "$T/err"

# Root reads no other user's input with its rights (a planted link or
# @include would show it root's files): refused before it is opened.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chown nobody "$CSV"
	expect "root's calibrate of another user's CSV" 77 \
		"$PT" calibrate "$CSV"
	has "... names the file and its owner" \
		"generated.csv' belongs to nobody" "$T/err"
	chown root "$CSV"
	expect "... and reads it once it is root's" 0 "$PT" calibrate "$CSV"
	# The campaign files a CSV of root's names are read with root's
	# rights too: none reached through another user's directory or
	# link, none of another user's.
	mkdir "$T/nob"
	ln -s "$CAMP" "$T/nob/linked.conf"
	cp "$CAMP" "$T/nob/own.conf"
	chown -hR nobody "$T/nob"
	for f in linked own; do
		{ head -1 "$CSV"
		  sed -n 2p "$CSV" | sed "s|^llama3_8b_h100.conf,|nob/$f.conf,|"
		} >"$T/$f.csv"
	done
	expect "a campaign_file through another user's directory" 77 \
		"$PT" calibrate "$T/linked.csv"
	has "... names the row and the directory's owner" \
		"reached through '.*/nob', which belongs to nobody" "$T/err"
	has "... and the row" "linked.csv:2:1: campaign_file" "$T/err"
	chown root "$T/nob"
	expect "a campaign_file of another user's" 77 \
		"$PT" calibrate "$T/own.csv"
	has "... names the file and its owner" \
		"own.conf' belongs to nobody" "$T/err"
	hasnt "... which is not read" "llama3_8b" "$T/err"
	# Nor looked at: a row naming a path in another user's directory
	# is refused, whether or not a file is there, before root stats
	# it (which said whether it was: 66 for a missing one, and hung
	# on that user's FUSE file system whose daemon stopped).
	chown nobody "$T/nob" && chmod 700 "$T/nob"
	{ head -1 "$CSV"
	  sed -n 2p "$CSV" | sed "s|^llama3_8b_h100.conf,|nob/none.conf,|"
	} >"$T/none.csv"
	expect "a missing campaign_file in another user's directory" 77 \
		"$PT" calibrate "$T/none.csv"
	has "... refused for the directory's owner" \
		"reached through '.*/nob', which belongs to nobody" "$T/err"
	hasnt "... not said missing" "No such file" "$T/err"
	# The same for an input: whether it is -o too was answered (64)
	# before it was refused.
	cp "$CSV" "$T/nob/in.csv" && chown nobody "$T/nob/in.csv"
	expect "root's calibrate of another user's input, -o the same" 77 \
		"$PT" calibrate "$T/nob/in.csv" -o "$T/nob/in.csv"
	hasnt "... not compared with -o" "is the input" "$T/err"
	chown root "$T/nob"
	# Its output through a user's link to a directory of root's.
	mkdir -m 700 "$T/rootonly"
	ln -s "$T/rootonly" "$T/nob/out" && chown -h nobody "$T/nob/out"
	expect "root's calibrate -o through a user's link" 77 \
		"$PT" calibrate "$CSV" -o "$T/nob/out/cal.conf"
	check "... writes nothing there" test -z "$(ls -A "$T/rootonly")"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
