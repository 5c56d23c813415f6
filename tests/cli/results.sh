#!/bin/sh
# tests/cli/results.sh - 'paratune results' on campaign directories built
# the way a cluster leaves them: the demo campaign planned, each job's
# output written by paratune-simtrain (ranks 0 and 31 of 32, as srun
# gathers them, with faults injected), DIR/state edited as the runner
# records jobs, and one hand-made Megatron-LM log whose statistics are
# worked out by hand below.  No Slurm needed.
# Prints one line per check and "N passed, N failed" last.

PT=${PARATUNE_BIN:-./paratune}
SRC=${PARATUNE_SRCDIR:-.}
SIM=${PARATUNE_SIMTRAIN:-${PARATUNE_BUILDDIR:-.}/paratune-simtrain}
: "${PARATUNE_TEMPLATES:=$SRC/templates}"
export PARATUNE_TEMPLATES
export PARATUNE_SITE_CONF=/dev/null
unset WORLD_SIZE RANK LOCAL_RANK LOCAL_WORLD_SIZE SLURM_NTASKS SLURM_PROCID \
	SLURM_LOCALID SLURM_NTASKS_PER_NODE PARATUNE_SIM_FAULT
T=$(mktemp -d "${TMPDIR:-/tmp}/results-test.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else ko "$d"; fi; }
# expect DESC STATUS CMD...: CMD exits with STATUS.
expect() {
	d=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" = "$want" ]; then ok "$d"; else
		ko "$d (exit $got, wanted $want)"; cat "$T/err"; fi
}
has() { if grep -q -- "$2" "$3"; then ok "$1"; else ko "$1"; fi; }
hasnt() { if grep -q -- "$2" "$3"; then ko "$1"; else ok "$1"; fi; }
# same DESC GOT WANT
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else ko "$1 (got '$2', wanted '$3')"; fi
}
# cells DIR: every cell of DIR/results/*.csv, read by Python's csv module,
# as "file<TAB>name<TAB>column<TAB>value" lines in $T/cells (one Python
# start for all the look-ups that follow; cells hold no tabs or newlines)
cells() {
	python3 -c 'import csv,os,sys
for f in ("results.csv", "oom.csv", "failed.csv"):
    for r in csv.DictReader(open(os.path.join(sys.argv[1], f), newline="")):
        for k, v in r.items():
            print("%s\t%s\t%s\t%s" % (f, r["name"], k, v))' "$1/results" \
		>"$T/cells"
}
# field FILE NAME COLUMN: one cell, from the last cells
field() {
	awk -F'\t' -v f="${1##*/}" -v n="$2" -v k="$3" \
		'$1 == f && $2 == n && $3 == k { print $4 }' "$T/cells"
}
# jq_ EXPR: evaluate a Python expression on the JSON in $T/out as d
jq_() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"$T/out" "$1"
}

# name TP PP MBS: the demo's candidate with these tensor and pipeline
# parallel and micro-batch sizes, as candidates.csv names it.
name() {
	awk -F, -v tp="$1" -v pp="$2" -v mbs="$3" \
		'$3 == tp && $4 == pp && $9 == mbs { print $2 }' "$D/candidates.csv"
}
# simflags DIR NAME: the simulator's flags from the rendered job script
# (the srun command, which ends "--log-interval 1 &")
simflags() {
	sed -n '/^srun /,/--log-interval 1 &$/p' "$1/runs/$2/job.sbatch" |
		sed -n '3,$p' | sed 's/ &$//; s/\\$//' | tr '\n\t' '  '
}
# simlog DIR NAME JOB [FAULT]: slurm-JOB.out with ranks 0 and 31 of 32,
# run side by side.  A hang is ended by SIGINT after two seconds, as
# Slurm's time limit would end it; SIGKILL follows ten seconds later,
# as Slurm's KillWait would, because under AddressSanitizer the exit
# that SIGINT starts once spun forever in LeakSanitizer's exit-time
# stop-the-world (its tracer waiting on the process, the process on
# the tracer): the log is complete by then, the exit status unused.
simlog() {
	flags=$(simflags "$1" "$2")
	for r in 0 31; do
		# shellcheck disable=SC2086
		(cd "$1/runs/$2" && WORLD_SIZE=32 RANK=$r \
			PARATUNE_SIM_SPEEDUP=1000000 PARATUNE_SIM_FAULT=${4:-} \
			exec timeout -k 10 -s INT 2 "$SIM" $flags) >"$T/rank$r" 2>&1 &
	done
	wait
	cat "$T/rank0" "$T/rank31" >"$1/runs/$2/slurm-$3.out"
}
# slurm_says DIR NAME JOB WHY: slurmstepd's last line ("TIME LIMIT", ...)
slurm_says() {
	echo "slurmstepd: error: *** JOB $3 ON node-1 CANCELLED AT 2026-01-01T00:00:00 DUE TO $4 ***" \
		>>"$1/runs/$2/slurm-$3.out"
}
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
# iter N MS [GBS [TOTAL]]: a Megatron-LM iteration line of a TOTAL-step
# run (6) at global batch size GBS (256)
iter() {
	printf ' [2024-05-01 10:00:00] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %s | learning rate: 1.000000E-05 | global batch size: %5d | lm loss: 1.000000E+01 | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
		"$1" "${4:-6}" $(($1 * ${3:-256})) "$2" "${3:-256}"
}

D=$T/demo
expect "plan the demo" 0 "$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$D"
CLEAN1=$(name 1 1 1) CLEAN2=$(name 2 1 2) BASE=$(name 4 1 1)
OOM=$(name 1 1 2) NAN=$(name 2 2 1) SLOW=$(name 1 2 1) HANG=$(name 2 2 2)
NOLOG=$(name 4 1 2) HAND=$(name 8 1 2) RETRY=$(name 2 1 1)
RUNNING=$(name 8 2 1)
missing=""
for v in "$CLEAN1" "$CLEAN2" "$BASE" "$OOM" "$NAN" "$SLOW" "$HANG" "$NOLOG" \
	"$HAND" "$RETRY" "$RUNNING"; do
	[ -n "$v" ] || missing=1
done
same "the demo has the candidates this test uses" "$missing" ""

simlog "$D" "$CLEAN1" 1001
setstate "$D" "$CLEAN1" state=completed job=1001 attempt=1
simlog "$D" "$CLEAN2" 1002
setstate "$D" "$CLEAN2" state=completed job=1002 attempt=1
simlog "$D" "$BASE" 1009
setstate "$D" "$BASE" state=completed job=1009 attempt=1
# 93 GiB planned on an 80 GB GPU: the simulator runs out of memory.
simlog "$D" "$OOM" 1016
setstate "$D" "$OOM" state=failed job=1016 attempt=1 exit=1
# NaN from step 2: steps 1 to 4 logged, 3 measured of the 5 needed.
simlog "$D" "$NAN" 1006 nan:2
setstate "$D" "$NAN" state=failed job=1006 attempt=1 exit=1
# Hung at step 20 of 30, killed at the time limit: 19 steps, 18 measured.
simlog "$D" "$SLOW" 1004 hang:20
slurm_says "$D" "$SLOW" 1004 "TIME LIMIT"
setstate "$D" "$SLOW" state=timeout job=1004 attempt=1 signal=9
# Hung at step 3: 2 steps, 1 measured.
simlog "$D" "$HANG" 1007 hang:3
slurm_says "$D" "$HANG" 1007 "TIME LIMIT"
setstate "$D" "$HANG" state=timeout job=1007 attempt=1 signal=9
# Failed without leaving any output.
setstate "$D" "$NOLOG" state=failed job=1008 attempt=1 exit=1
# Measured in its first attempt; the retry died with its node.
simlog "$D" "$RETRY" 1003
simlog "$D" "$RETRY" 1103 hang:2
slurm_says "$D" "$RETRY" 1103 "NODE FAILURE"
setstate "$D" "$RETRY" state=node_fail job=1103 attempt=2
setstate "$D" "$RUNNING" state=running job=1015 attempt=1
# The hand-made log: step times 12, 4, 5, 5, 5, 6 s.
{
	iter 1 12000.0
	echo "[Rank 0] (after 1 iterations) memory (MB) | allocated: 1000.0 | max allocated: 20000.0 | reserved: 20480.0 | max reserved: 20480.0"
	iter 2 4000.0; iter 3 5000.0; iter 4 5000.0; iter 5 5000.0
	iter 6 6000.0
} >"$D/runs/$HAND/slurm-1012.out"
setstate "$D" "$HAND" state=completed job=1012 attempt=1

# paratune watch ended one run once its step time was known; another
# run's verdict file is a planted symbolic link, which is not followed.
echo "steady step_s=0.35 +-0.52% n=12 step=14" \
	>"$D/runs/$CLEAN2/watch-1002.txt"
echo "steady step_s=0.35 +-0.52% n=12 step=14" >"$T/planted"
ln -s "$T/planted" "$D/runs/$BASE/watch-1009.txt"

expect "results" 0 "$PT" results "$D"
cp "$T/out" "$T/summary"
cells "$D"
R=$D/results
for f in results.csv oom.csv failed.csv summary.txt chart.svg report.html; do
	check "wrote results/$f" test -s "$R/$f"
done
check "summary.txt is what was printed" sh -c \
	"head -n \$(wc -l <'$R/summary.txt') '$T/summary' | cmp -s - '$R/summary.txt'"
# A row whose last cell (the note) is empty ended in the two spaces
# that separate the columns.
hasnt "no line of the report ends in a space" ' $' "$T/summary"

# ---- headers, exactly -------------------------------------------------------
same "results.csv header" "$(head -1 "$R/results.csv")" \
	"rank,name,tp,pp,cp,ep,etp,vp,mbs,gbs,dp,recompute,recompute_layers,nodes,gpus_per_node,measured_steps,step_time_mean_s,step_time_median_s,step_time_stdev_s,samples_per_s,tokens_per_s_per_gpu,tflops_per_gpu,mfu,train_days,gpu_hours,cost,pred_step_s,pred_error,tflops_per_gpu_nemo_formula,mem_peak_gib,est_memory_gib,base,failure_class,log,stop_reason,note,recompute_method,sequence_parallel,distributed_optimizer,attention,account_for_embedding_in_pipeline_split,account_for_loss_in_pipeline_split,fp8_recipe,fp8_param_gather,cuda_graphs,tp_comm_overlap,overlap_grad_reduce,overlap_param_gather,fsdp,cp_comm_type,moe_grouped_gemm,offload_layers,decoder_first_pipeline_num_layers,decoder_last_pipeline_num_layers,recompute_modules,grad_reduce_in_bf16,moe_token_dispatcher,moe_a2a_overlap,cuda_graph_full_iteration,pipeline_layout,fp8_dot_product_attention"
same "oom.csv header" "$(head -1 "$R/oom.csv")" \
	"name,tp,pp,cp,ep,etp,vp,mbs,gbs,dp,recompute,recompute_layers,nodes,gpus_per_node,est_memory_gib,memory_status,failure_class,evidence,line,log,state,exit_code,exit_signal,reason,stop_reason,measured_steps,mem_peak_gib,base,note,recompute_method,sequence_parallel,distributed_optimizer,attention,account_for_embedding_in_pipeline_split,account_for_loss_in_pipeline_split,fp8_recipe,fp8_param_gather,cuda_graphs,tp_comm_overlap,overlap_grad_reduce,overlap_param_gather,fsdp,cp_comm_type,moe_grouped_gemm,offload_layers,decoder_first_pipeline_num_layers,decoder_last_pipeline_num_layers,recompute_modules,grad_reduce_in_bf16,moe_token_dispatcher,moe_a2a_overlap,cuda_graph_full_iteration,pipeline_layout,fp8_dot_product_attention"
same "failed.csv header" "$(head -1 "$R/failed.csv")" \
	"name,tp,pp,cp,ep,etp,vp,mbs,gbs,dp,recompute,recompute_layers,nodes,gpus_per_node,failure_class,evidence,line,log,state,exit_code,exit_signal,reason,stop_reason,measured_steps,est_memory_gib,memory_status,base,note,recompute_method,sequence_parallel,distributed_optimizer,attention,account_for_embedding_in_pipeline_split,account_for_loss_in_pipeline_split,fp8_recipe,fp8_param_gather,cuda_graphs,tp_comm_overlap,overlap_grad_reduce,overlap_param_gather,fsdp,cp_comm_type,moe_grouped_gemm,offload_layers,decoder_first_pipeline_num_layers,decoder_last_pipeline_num_layers,recompute_modules,grad_reduce_in_bf16,moe_token_dispatcher,moe_a2a_overlap,cuda_graph_full_iteration,pipeline_layout,fp8_dot_product_attention"

# ---- why each run stopped ----------------------------------------------------
same "stop_reason: a run that reached its last step" \
	"$(field results.csv "$CLEAN1" stop_reason)" max_steps
same "... one that watch ended early" \
	"$(field results.csv "$CLEAN2" stop_reason)" steady
same "... a planted verdict link is not followed" \
	"$(field results.csv "$BASE" stop_reason)" max_steps
same "... Slurm's time limit" "$(field results.csv "$SLOW" stop_reason)" \
	time_limit
same "... out of memory" "$(field oom.csv "$OOM" stop_reason)" oom
same "... a failure" "$(field failed.csv "$NAN" stop_reason)" failed
same "... the node failed (newest attempt)" \
	"$(field results.csv "$RETRY" stop_reason)" node_fail

# ---- who went where --------------------------------------------------------
# Measured: the three clean runs, the slow one, the retried one, the
# hand-made one; 16 - 6 measured - 1 oom - 3 failed - 1 running = 5 not run.
same "six measured" "$(($(wc -l <"$R/results.csv") - 1))" 6
same "one out of memory" "$(($(wc -l <"$R/oom.csv") - 1))" 1
has "counts in the summary" \
	"16 candidates: 6 measured, 1 out of memory, 3 failed, 1 in progress, 5 not run" \
	"$T/summary"
same "timeout after enough steps is measured" \
	"$(field "$R/results.csv" "$SLOW" failure_class)" timeout
same "... with 18 steps" "$(field "$R/results.csv" "$SLOW" measured_steps)" 18
same "retried candidate measured from its first attempt" \
	"$(field "$R/results.csv" "$RETRY" log)" "runs/$RETRY/slurm-1003.out"
same "... keeping its final class" \
	"$(field "$R/results.csv" "$RETRY" failure_class)" node_fail
same "CUDA OOM in oom.csv" "$(field "$R/oom.csv" "$OOM" failure_class)" cuda_oom
same "... with the estimate made for it" \
	"$(field "$R/oom.csv" "$OOM" est_memory_gib),$(field "$R/oom.csv" "$OOM" memory_status)" \
	"$(awk -F, -v n="$OOM" '$2 == n { print $14 "," $15 }' "$D/candidates.csv")"
same "NaN in failed.csv" "$(field "$R/failed.csv" "$NAN" failure_class)" nan_loss
same "hang before the steps: timeout" \
	"$(field "$R/failed.csv" "$HANG" failure_class)" timeout
same "... 1 measured step" "$(field "$R/failed.csv" "$HANG" measured_steps)" 1
same "no log: exit_nonzero" "$(field "$R/failed.csv" "$NOLOG" failure_class)" \
	exit_nonzero
same "... no log file named" "$(field "$R/failed.csv" "$NOLOG" log)" ""
same "... Slurm's exit code" "$(field "$R/failed.csv" "$NOLOG" exit_code)" 1
has "running candidate is in progress" "$RUNNING: running" "$T/summary"
if grep -q "$(name 8 2 2)" "$R/results.csv" "$R/oom.csv" "$R/failed.csv"; then
	ko "a candidate never run appears in no table"
else ok "a candidate never run appears in no table"; fi

# Evidence: the line number points at the evidence line of that log.
for n in "$OOM" "$NAN" "$HANG"; do
	f=$R/oom.csv
	[ "$n" = "$OOM" ] || f=$R/failed.csv
	line=$(field "$f" "$n" line)
	ev=$(field "$f" "$n" evidence)
	log=$D/$(field "$f" "$n" log)
	got=$(sed -n "${line}p" "$log" | tr -d '\r')
	case $got in
	*"$(printf '%s' "$ev" | cut -c1-60)"*) ok "evidence of $n is line $line" ;;
	*) ko "evidence of $n is line $line ('$ev' vs '$got')" ;;
	esac
done
has "OOM evidence is PyTorch's message" "CUDA out of memory" "$R/oom.csv"
has "NaN evidence is Megatron-LM's assert" "found NaN" "$R/failed.csv"
has "timeout evidence is slurmstepd's line" "DUE TO TIME LIMIT" "$R/failed.csv"

# ---- the hand-made candidate, by hand -------------------------------------------
# Step times 12, 4, 5, 5, 5, 6 s: the warm-up drops 10 % and at least 1
# step (the 12), leaving 4, 5, 5, 5, 6: mean 25/5 = 5, median 5, sample
# variance (1 + 0 + 0 + 0 + 1)/4 = 0.5, stdev 0.7071.  256 samples per 5 s
# = 51.2 samples/s; 256 x 4096 tokens / 5 s / 32 GPUs = 6553.6 per GPU.
# Megatron-LM's FLOPs per token of Llama 3 8B at s = 4096 (notes,
# estimation.md): 6h.3f.L = 33,822,867,456; 6L(h(q + 2g.dk) + qh) =
# 8,053,063,680; 6hV = 3,152,019,456; 6qLs = 3,221,225,472; sum
# 48,249,176,064; x 1,048,576 tokens / 5 s / 32 / 1e12 = 316.21 TFLOP/s per
# GPU; / 989.4 (H100 SXM dense BF16) = 0.3196.  At s = h NeMo's 72BLsh^2
# formula gives the same figure for this model (78Lh^2 + 6Lsh = 72Lh^2 +
# 12Lsh).  100e9 tokens / 1,048,576 per step x 5 s = 476,837.16 s = 5.519
# days = 132.45 h x 32 GPUs = 4238.6 GPU-hours, x $3 = 12715.66.
# Memory: max reserved 20480 MB = 20.00 GiB.
for kv in measured_steps=5 step_time_mean_s=5.0000 step_time_median_s=5.0000 \
	step_time_stdev_s=0.7071 samples_per_s=51.200 \
	tokens_per_s_per_gpu=6553.6 tflops_per_gpu=316.21 mfu=0.3196 \
	tflops_per_gpu_nemo_formula=316.21 train_days=5.519 \
	gpu_hours=4238.6 cost=12715.66 mem_peak_gib=20.00; do
	same "hand-made log: ${kv%%=*}" \
		"$(field "$R/results.csv" "$HAND" "${kv%%=*}")" "${kv#*=}"
done
pred=$(awk -F, -v n="$HAND" '$2 == n { print $16 }' "$D/candidates.csv")
same "hand-made log: pred_error = (pred - 5) / 5" \
	"$(field "$R/results.csv" "$HAND" pred_error)" \
	"$(awk -v p="$pred" 'BEGIN { printf "%.4f", (p - 5) / 5 }')"

# ---- order, speed-up and savings ------------------------------------------------
check "results.csv fastest first (time per sample)" awk -F, '
	NR > 1 { t = $17 / $10; if (NR > 2 && t < prev) bad = 1; prev = t }
	END { exit bad }' "$R/results.csv"
same "the hand-made candidate (5 s) is last" \
	"$(tail -1 "$R/results.csv" | cut -d, -f2)" "$HAND"
expect "results --format json" 0 "$PT" results "$D" --format json
check "JSON parses (json.tool)" python3 -m json.tool "$T/out" /dev/null
same "best is results[0]" "$(jq_ 'd["best"]["name"] == d["results"][0]["name"]')" True
same "base is the base" "$(jq_ 'd["base"]["name"]')" "$BASE"
# Speed-up: base's time per sample over best's; savings: the differences
# in days and GPU-hours, and GPU-hours x 3 for the cost.
same "speed-up = base time per sample / best's" "$(jq_ '
abs(d["speedup"] - (d["base"]["step_time_mean_s"] / d["base"]["gbs"]) /
    (d["best"]["step_time_mean_s"] / d["best"]["gbs"])) < 1e-9')" True
# (JSON carries ten significant digits: the difference of two rounded
# numbers may be off by one in the last digit of each.)
same "days saved = base days - best days" "$(jq_ '
abs(d["saved"]["days"] - (d["base"]["train_days"] - d["best"]["train_days"])) < 1e-8')" True
same "GPU-hours = days x 24 x 32" "$(jq_ '
abs(d["best"]["gpu_hours"] - d["best"]["train_days"] * 24 * 32) < 1e-6')" True
same "cost saved = GPU-hours saved x 3" "$(jq_ '
abs(d["saved"]["cost"] - 3 * d["saved"]["gpu_hours"]) < 1e-6')" True
# The time saved is in days from a day on, in hours (or minutes) below.
has "summary states the speed-up" \
	"best against base: $(jq_ '"%.2f" % d["speedup"]')x faster; switching saves $(jq_ '(lambda t: "%.2f days" % t if t >= 1 else "%.1f hours" % (t * 24) if t * 24 >= 1 else "%.1f minutes" % (t * 1440))(d["saved"]["days"])')" \
	"$T/summary"
same "JSON numbers are numbers" "$(jq_ 'type(d["results"][0]["tflops_per_gpu"]).__name__')" float
same "JSON unknowns are null" "$(jq_ '[x for x in d["failed"] if x["name"] == "'"$NOLOG"'"][0]["line"]')" None
same "JSON not_run" "$(jq_ 'd["not_run"]')" 5
same "JSON keys of results match the CSV columns" \
	"$(jq_ '",".join(d["results"][0].keys())')" "$(head -1 "$R/results.csv")"
same "cheapest is the fastest on a fixed GPU count" \
	"$(jq_ 'd["recommendations"]["cheapest_is_fastest"]')" True
has "summary says so" "cheapest: the same as the fastest" "$T/summary"
has "summary has the headroom pick" "fastest with at least 10 % memory headroom" \
	"$T/summary"
has "summary names the OOM's evidence" "slurm-1016.out:[0-9]*: .*CUDA out of memory" \
	"$T/summary"

expect "results --format csv" 0 "$PT" results "$D" --format csv
check "csv output is results.csv" cmp -s "$T/out" "$R/results.csv"
expect "results --top 2" 0 "$PT" results "$D" --top 2
has "top 2 of 6" "top 2 of 6 measured" "$T/out"
expect "--cost-per-gpu-hour 0 hides costs" 0 "$PT" results "$D" --cost-per-gpu-hour 0
cells "$D"
same "... cost column empty" "$(field "$R/results.csv" "$HAND" cost)" ""
has "... the saving: time and GPU-hours, joined by 'and'" \
	"switching saves [0-9.]* [a-z]* and [0-9,.]* GPU-hours over the whole" \
	"$T/out"
expect "--cost-per-gpu-hour 2" 0 "$PT" results "$D" --cost-per-gpu-hour 2 \
	--currency EUR
cells "$D"
same "... cost = 4238.5525 GPU-hours x 2" "$(field "$R/results.csv" "$HAND" cost)" 8477.11
has "... in the currency named" "[0-9] EUR" "$T/out"
check "SVG is well-formed XML" python3 -c \
	'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$R/chart.svg"
has "chart marks the OOM by class" "cuda_oom: no measurement" "$R/chart.svg"
has "chart highlights the base" "(base)" "$R/chart.svg"

# ---- ranks and keys: one vocabulary in every command ---------------------------
# A rank is the plan's wherever it is shown: candidates.csv's, which list
# and status show too, not the place among the measured.
expect "results again for the ranks" 0 "$PT" results "$D"
cp "$T/out" "$T/summary"
cells "$D"
plan_rank() { awk -F, -v n="$1" '$2 == n { print $1 }' "$D/candidates.csv"; }
for n in "$BASE" "$HAND" "$CLEAN1" "$SLOW"; do
	same "results.csv rank of $n is the plan's" \
		"$(field "$R/results.csv" "$n" rank)" "$(plan_rank "$n")"
done
has "summary names the base by the plan's rank" \
	"^base: rank $(plan_rank "$BASE")  $BASE" "$T/summary"
"$PT" list "$D" --format json >"$T/out"
same "list gives the base the same rank" \
	"$(jq_ '[r["rank"] for r in d if r["name"] == "'"$BASE"'"][0]')" \
	"$(plan_rank "$BASE")"
expect "results --format json for the ranks" 0 "$PT" results "$D" --format json
same "results JSON gives the base the same rank" "$(jq_ 'd["base"]["rank"]')" \
	"$(plan_rank "$BASE")"
# Keys: every JSON key and CSV column of list, status, estimate, plan,
# parse and results, gathered; memory is GiB everywhere, so no name
# says GB; a candidate's key means the same in each.
keys() {
	python3 -c 'import json,sys
ks = set()
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            ks.add(k); walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(json.load(open(sys.argv[1])))
print("\n".join(sorted(ks)))' "$1"
}
: >"$T/keys"
for c in "list $D" "status $D" "results $D" \
	"estimate $SRC/etc/campaigns/demo.conf" \
	"plan $SRC/etc/campaigns/demo.conf -o $T/keys-plan" \
	"parse $D/runs/$HAND/slurm-1012.out"; do
	# shellcheck disable=SC2086
	"$PT" $c --format json >"$T/out" 2>"$T/err" ||
		ko "keys: $c --format json"
	keys "$T/out" | sed "s|^|${c%% *} |" >>"$T/keys"
done
head -qn1 "$D/candidates.csv" "$R/results.csv" "$R/oom.csv" \
	"$R/failed.csv" | tr , '\n' | sed 's/^/csv /' >>"$T/keys"
same "no key or column says GB (memory is GiB)" \
	"$(awk '$2 ~ /_gb$/' "$T/keys" | tr '\n' ' ')" ""
# ... but for the prediction as the last refit corrects it, which
# candidates.csv gains only with a refit (none here), and the run that
# proved a candidate fits, which is the state's, not the plan's.
same "list's keys are candidates.csv's columns" "$(awk '
	$1 == "csv" { csv[$2] = 1 } $1 == "list" { l[$2] = 1 }
	END { for (k in l) if (!(k in csv) && k != "pred_now_step_s" &&
		k != "fits_by") printf "%s ", k }' "$T/keys")" ""
has "list shows the corrected prediction beside the plan's" \
	"^list pred_now_step_s$" "$T/keys"
same "plan's candidate keys are candidates.csv's columns" "$(awk '
	$1 == "csv" { csv[$2] = 1 }
	$1 == "plan" && $2 ~ /offload|recompute|parallel|fp8|overlap/ { p[$2] = 1 }
	END { for (k in p) if (!(k in csv)) printf "%s ", k }' "$T/keys")" ""
same "parse, results and estimate share their names" "$(awk '
	{ seen[$1 " " $2] = 1 }
	END { for (k in seen) if (k ~ /peak_memory|slurm_state|slurm_reason/)
		printf "%s ", k }' "$T/keys")" ""
has "parse names the peak as results does" "^parse mem_peak_gib$" "$T/keys"
has "results names the state as status does" "^results state$" "$T/keys"
has "... and status" "^status state$" "$T/keys"
has "results names the reason as status does" "^results reason$" "$T/keys"
has "... and status" "^status reason$" "$T/keys"
# candidates.csv as paratune 0.1.0 wrote it, est_memory_gb, is still read.
cp "$D/candidates.csv" "$T/candidates-new.csv"
sed '1s/,est_memory_gib,/,est_memory_gb,/' "$T/candidates-new.csv" \
	>"$D/candidates.csv"
expect "candidates.csv with the old est_memory_gb column" 0 "$PT" results "$D"
cells "$D"
same "... its estimate read" "$(field "$R/oom.csv" "$OOM" est_memory_gib)" \
	"$(awk -F, -v n="$OOM" '$2 == n { print $14 }' "$D/candidates.csv")"
expect "... list reads it too" 0 "$PT" list "$D"
cp "$T/candidates-new.csv" "$D/candidates.csv"

# ---- the man page documents every option, column and key ----------------------
"$PT" results --help >"$T/help" 2>&1
missing=""
for o in $(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u); do
	[ "$o" = --help ] && continue
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$SRC/man/paratune.1" ||
		missing="$missing $o"
done
same "results --help agrees with paratune(1)" "$missing" ""
sed -n '/^\.SH "RESULT FILES"/,/^\.SH "EXIT STATUS"/p' "$SRC/man/paratune.1" \
	>"$T/man"
expect "results --format json again" 0 "$PT" results "$D" --format json
missing=""
for c in $(head -qn1 "$R/results.csv" "$R/oom.csv" "$R/failed.csv" | tr , '\n' |
	sort -u) $(jq_ '" ".join(k for k in d if k not in ("results",))') \
	$(jq_ '" ".join(list(d["saved"]) + list(d["recommendations"]) + ["status"])'); do
	grep -qw -- "$c" "$T/man" || missing="$missing $c"
done
same "every CSV column and JSON key in RESULT FILES" "$missing" ""

# ---- errors ----------------------------------------------------------------
expect "negative --top" 64 "$PT" results "$D" --top -1
# The option overrides cost_per_gpu_hour, a number from 0 to 1e6, but
# took any: 1e308 made every cost infinite, and costs vanished.
expect "--cost-per-gpu-hour above the key's range" 64 "$PT" results "$D" \
	--cost-per-gpu-hour 1e7
has "... names the bound and the key" \
	"error: --cost-per-gpu-hour must be at most 1e+06, as the key cost_per_gpu_hour, not 10000000" \
	"$T/err"
expect "--cost-per-gpu-hour 1e308" 64 "$PT" results "$D" \
	--cost-per-gpu-hour 1e308
expect "--cost-per-gpu-hour at the key's bound" 0 "$PT" -q results "$D" \
	--cost-per-gpu-hour 1e6
expect "unknown format" 64 "$PT" results "$D" --format xml
expect "missing directory" 66 "$PT" results "$T/none"
rm -rf "$R" && mkdir "$T/elsewhere" && ln -s "$T/elsewhere" "$R"
expect "a symbolic link at DIR/results is refused" 73 "$PT" results "$D"
has "... saying why" "symbolic link" "$T/err"
check "... and nothing written through it" test ! -e "$T/elsewhere/results.csv"
rm -f "$R"

# ---- nothing succeeded ---------------------------------------------------------
E=$T/none-ok
expect "plan a second campaign" 0 "$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$E"
simlog "$E" "$OOM" 2016
setstate "$E" "$OOM" state=failed job=2016 attempt=1 exit=1
simlog "$E" "$NAN" 2006 nan:2
setstate "$E" "$NAN" state=failed job=2006 attempt=1 exit=1
setstate "$E" "$BASE" state=failed job=2009 attempt=1 exit=1
expect "nothing succeeded: exit 0" 0 "$PT" results "$E"
has "... says so" "no candidate was measured: 1 ran out of memory and 2 failed" "$T/out"
has "... the base failed" "failed (exit_nonzero): no measurement to compare" "$T/out"
has "... why each failed" "$NAN: nan_loss" "$T/out"
same "... results.csv is its header" "$(wc -l <"$E/results/results.csv")" 1
expect "nothing succeeded: JSON" 0 "$PT" results "$E" --format json
same "... best and speed-up null" "$(jq_ '(d["best"], d["speedup"], d["saved"]["days"])')" \
	"(None, None, None)"

# ---- the campaign's currency ---------------------------------------------------
# Costs without a currency key were dollars in results and bare numbers
# in submit: the key names it for both, --currency overrides it.
C=$T/euro
expect "plan a campaign priced in EUR" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$C" -s currency=EUR
simlog "$C" "$CLEAN1" 3001
setstate "$C" "$CLEAN1" state=completed job=3001 attempt=1
expect "results of it" 0 "$PT" results "$C"
has "... costs in EUR, after the amount" "[0-9] EUR" "$T/out"
hasnt "... and no dollar sign" '\$' "$T/out"
expect "results --format json" 0 "$PT" results "$C" --format json
same "... currency EUR" "$(jq_ 'd["currency"]')" EUR
expect "results --currency overrides it" 0 "$PT" results "$C" --currency '£'
has "... before the amount" "£[0-9]" "$T/out"
hasnt "... and not EUR" "EUR" "$T/out"
expect "submit --dry-run says the cost in it" 0 "$PT" submit "$C" --dry-run
has "... cost at most N EUR" "(cost at most [0-9,.]* EUR, about [0-9,.]* EUR)" "$T/out"
# Under 100, to the cent: a short selection cost "$0".
expect "plan it at a cent a GPU-hour" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$T/cent" -s cost_per_gpu_hour=0.01
expect "submit --dry-run of it" 0 "$PT" submit "$T/cent" --dry-run
has "... says the cents" '(cost at most \$0\.[0-9][0-9], about \$0\.[0-9][0-9])' "$T/out"
expect "a currency with an escape sequence is refused" 78 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$T/esc" -s "currency=$(printf '\033[2J')"
has "... naming the key" "key 'currency'.*holds the control character" \
	"$T/err"
hasnt "... and the sequence is not printed raw" "$(printf '\033')" "$T/err"
# The option is printed in the same places: held to the same rule.
expect "results --currency with an escape sequence is refused" 64 \
	"$PT" results "$C" --currency "$(printf '\033[31m')"
has "... saying why" "is not a currency symbol" "$T/err"
hasnt "... without printing it raw" "$(printf '\033')" "$T/err"
check "... nor writing it into the summary" sh -c \
	"! grep -q \"\$(printf '\\033')\" '$C/results/summary.txt'"
expect "results --currency ''" 64 "$PT" results "$C" --currency ''
expect "results --currency of 9 bytes" 64 "$PT" results "$C" \
	--currency ABCDEFGHI

# ---- tables that disagree, logs that mention a failure ---------------------------
F=$T/edited
cp -a "$D" "$F" && rm -rf "$F/results"
# A measured run whose row was cut from candidates.csv: said, not dropped
# without a word.
grep -v ",$CLEAN2," "$D/candidates.csv" >"$F/candidates.csv"
expect "a state entry without its candidates.csv row" 0 "$PT" results "$F"
has "... is named" "'$CLEAN2' is in the state (completed) but not in candidates.csv" \
	"$T/err"
# All rows but one cut: ten named, the rest in one line, not one line each (an
# edited state of millions of them filled root's cron mail).
head -n 2 "$D/candidates.csv" >"$F/candidates.csv"
more=$(($(wc -l <"$D/candidates.csv") - 2 - 10))
expect "a state of which candidates.csv lists one" 0 "$PT" results "$F"
check "... ten named (got $(grep -c "but not in candidates.csv: its" "$T/err"))" \
	test "$(grep -c "but not in candidates.csv: its" "$T/err")" = 10
has "... the rest counted in one line" \
	"warning: $more more in the state but not in candidates.csv, not named" \
	"$T/err"
# A row written twice would count its runs twice.
{ cat "$D/candidates.csv"; grep ",$CLEAN1," "$D/candidates.csv"; } \
	>"$F/candidates.csv"
expect "a candidate listed twice in candidates.csv" 65 "$PT" results "$F"
has "... names file, line and candidate" \
	"candidates.csv:$(($(wc -l <"$D/candidates.csv") + 1)): candidate '$CLEAN1' is listed twice (first on line " \
	"$T/err"
cp "$D/candidates.csv" "$F/candidates.csv"
# A job that exited 0 after the log said training was done did not fail,
# whatever an echoed line mentions.
log=$F/runs/$CLEAN1/slurm-1001.out
{ echo "+ export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True # avoid CUDA out of memory"
  cat "$D/runs/$CLEAN1/slurm-1001.out"; } >"$log"
expect "a completed run whose log mentions CUDA out of memory" 0 \
	"$PT" results "$F"
cells "$F"
check "... is measured, not an OOM" test -n "$(field results.csv "$CLEAN1" step_time_mean_s)"
check "... and not in oom.csv" test -z "$(field oom.csv "$CLEAN1" name)"

# ---- stragglers --------------------------------------------------------------
# NeMo's straggler detection stopped a run after its measured steps: the
# slow GPUs were the cluster's doing, but they slowed the steps, so the
# run is measured and shown, never recommended, and its note says to run
# it again.
S=$T/straggler
expect "plan a campaign for a straggler" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$S"
STRAG=$(name 1 2 2) GOOD=$(name 4 2 2)
# nemo N S: a NeMo 2.0 step line of a 20-step run taking S seconds
nemo() {
	printf 'Training epoch 0, iteration %d/19 | lr: 1.649e-06 | global_batch_size: 256 | global_step: %d | reduced_train_loss: 11.03 | train_step_timing in s: %s | consumed_samples: %d\n' \
		"$1" "$1" "$2" $((($1 + 1) * 256))
}
{ for j in 0 1 2 3 4 5 6 7 8 9; do nemo $j 4.0; done
  echo "[NeMo E 2025-03-07 22:43:58 straggler_det_callback:239] Detected stragglers. Terminating training..."
  echo "E0307 22:44:04.918000 192252 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: 1) local_rank: 0 (pid: 192322) of binary: /usr/bin/python"
} >"$S/runs/$STRAG/slurm-4001.out"
setstate "$S" "$STRAG" state=failed job=4001 attempt=1 exit=1
for j in 0 1 2 3 4 5 6 7 8 9; do nemo $j 5.0; done >"$S/runs/$GOOD/slurm-4002.out"
setstate "$S" "$GOOD" state=completed job=4002 attempt=1
expect "results with a straggler" 0 "$PT" results "$S"
has "... the faster straggler is not recommended, and why" \
	"not recommended although faster: rank [0-9]* $STRAG ended in failure class straggler after its measured steps (slow GPUs slowed them: run it again)" \
	"$T/out"
expect "... JSON" 0 "$PT" results "$S" --format json
same "... both measured, the straggler first" \
	"$(jq_ '[(r["name"], r["failure_class"]) for r in d["results"]]')" \
	"[('$STRAG', 'straggler'), ('$GOOD', 'none')]"
same "... the clean run is recommended" \
	"$(jq_ 'd["recommendations"]["fastest"]')" "$GOOD"
cells "$S"
case $(field "$S/results/results.csv" "$STRAG" note) in
*"slow GPUs (stragglers) slowed its steps"*"run it again"*)
	ok "... results.csv's note says to run it again" ;;
*) ko "... results.csv's note: '$(field "$S/results/results.csv" "$STRAG" note)'" ;;
esac
setstate "$S" "$GOOD" state=planned job=0 attempt=0
rm -f "$S/runs/$GOOD/slurm-4002.out"
expect "results with the straggler alone measured" 0 "$PT" results "$S"
has "... no recommendation, and no layout condemned" \
	"no recommendation: slow GPUs (stragglers) slowed the steps of each of the 1 measured candidates: run them again" \
	"$T/out"

# ---- a global batch size other than planned ---------------------------------
# A template or a NeMo recipe that sets its own batch size runs another
# configuration than the one planned, and the log says which ("global
# batch size:   512").  The run is measured at the batch it ran, so that
# its figures are true (twice the samples/s of the same step time at
# 256), but it is never recommended, and its note and a warning name the
# candidate and the log's line.  A batch-size ramp-up's steps, logged
# before the batch reached its last size, are not measured.
G=$T/gbs
expect "plan a campaign for another batch size" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$G"
BIG=$(name 1 2 2) RAMP=$(name 4 2 1) GOOD=$(name 4 2 2) GBASE=$(name 4 1 1)
# The hand-made log's 12, 4, 5, 5, 5 and 6 s at 512 sequences: mean 5 s,
# 512 / 5 = 102.4 samples/s, 512 x 4096 / 5 s / 32 GPUs = 13107.2 tokens/s
# per GPU, 100e9 / 2,097,152 tokens per step x 5 s = 2.759 days = 2119.3
# GPU-hours: the hand-made log's figures at 256, halved or doubled.
{ iter 1 12000.0 512; iter 2 4000.0 512; iter 3 5000.0 512
  iter 4 5000.0 512; iter 5 5000.0 512; iter 6 6000.0 512; } \
	>"$G/runs/$BIG/slurm-6001.out"
setstate "$G" "$BIG" state=completed job=6001 attempt=1
# A ramp-up: 64, 128 and 192 sequences at 1 s a step, then the hand-made
# log's steps at 256: mean 5 s again (counted from step 1, 4.875 s).
{ iter 1 1000.0 64 9; iter 2 1000.0 128 9; iter 3 1000.0 192 9
  iter 4 12000.0 256 9; iter 5 4000.0 256 9; iter 6 5000.0 256 9
  iter 7 5000.0 256 9; iter 8 5000.0 256 9; iter 9 6000.0 256 9; } \
	>"$G/runs/$RAMP/slurm-6002.out"
setstate "$G" "$RAMP" state=completed job=6002 attempt=1
for j in 1 2 3 4 5 6; do iter $j 6000.0; done >"$G/runs/$GOOD/slurm-6003.out"
setstate "$G" "$GOOD" state=completed job=6003 attempt=1
# The base ran 512 too: what ran is not the base configuration, so no
# saving is counted against it.
for j in 1 2 3 4 5 6; do iter $j 12000.0 512; done \
	>"$G/runs/$GBASE/slurm-6004.out"
setstate "$G" "$GBASE" state=completed job=6004 attempt=1
expect "results with a run of another batch size" 0 "$PT" results "$G"
cp "$T/out" "$T/gbs.out"
has "... a warning names the candidate and the log's line" \
	"warning: '$BIG' ran global batch size 512, planned 256 ($G/runs/$BIG/slurm-6001.out:1)" \
	"$T/err"
has "... the faster run is not recommended, and why" \
	"not recommended although faster: rank [0-9]* $BIG ran global batch size 512, not the 256 planned" \
	"$T/gbs.out"
has "... the table says what it ran" "ran gbs 512, not recommended\$" \
	"$T/gbs.out"
has "... the ramped-up run is the fastest" "fastest: rank [0-9]* $RAMP\$" \
	"$T/gbs.out"
has "... no comparison with a base of another batch size" \
	"best against base: no comparison: the base ran global batch size 512, not the 256 planned" \
	"$T/gbs.out"
expect "... JSON" 0 "$PT" results "$G" --format json
same "... JSON says why" "$(jq_ 'd["no_comparison"]')" base_other_gbs
cells "$G"
GR=$G/results/results.csv
for kv in measured_steps=5 step_time_mean_s=5.0000 samples_per_s=102.400 \
	tokens_per_s_per_gpu=13107.2 train_days=2.759 gpu_hours=2119.3 \
	pred_error=; do
	same "... measured at the batch it ran: ${kv%%=*}" \
		"$(field "$GR" "$BIG" "${kv%%=*}")" "${kv#*=}"
done
case $(field "$GR" "$BIG" note) in
"ran gbs 512, planned 256 (runs/$BIG/slurm-6001.out:1): "*)
	ok "... results.csv's note says so" ;;
*) ko "... results.csv's note: '$(field "$GR" "$BIG" note)'" ;;
esac
same "... a ramp-up's steps are not measured" \
	"$(field "$GR" "$RAMP" measured_steps) $(field "$GR" "$RAMP" \
		step_time_mean_s)" "5 5.0000"
case $(field "$GR" "$RAMP" note) in
"runs/$RAMP/slurm-6002.out: 3 timed steps before the global batch size reached 256 (a ramp-up): not measured, left out"*)
	ok "... and its note says so" ;;
*) ko "... its note: '$(field "$GR" "$RAMP" note)'" ;;
esac
# The campaign's nodes edited after its jobs ran: results warn, and
# measure what ran, on the GPUs of the plan (candidates.csv), not on the
# 64 that campaign.conf now gives.  The hand-made log's figures, as above.
sed 's/^nodes = 4;$/nodes = 8;/' "$G/campaign.conf" >"$T/edited.conf"
cat "$T/edited.conf" >"$G/campaign.conf"
check "campaign.conf edited to 8 nodes" grep -q '^nodes = 8;$' \
	"$G/campaign.conf"
expect "results after the nodes were edited" 0 "$PT" results "$G"
has "... warn that they changed" "its nodes or model changed since plan" \
	"$T/err"
has "... the head gives the GPUs they ran on" \
	"on 4 nodes x 8 h100-sxm (32 GPUs)" "$T/out"
has "... and says campaign.conf's differ" \
	"campaign.conf says 8 nodes since plan" "$T/out"
has "... the cheapest line too" "every candidate runs on the same 32 GPUs" \
	"$T/out"
cells "$G"
for kv in nodes=4 tokens_per_s_per_gpu=6553.6 tflops_per_gpu=316.21 \
	mfu=0.3196 gpu_hours=4238.6 cost=12715.66; do
	same "... measured on the planned GPUs: ${kv%%=*}" \
		"$(field "$GR" "$RAMP" "${kv%%=*}")" "${kv#*=}"
done
expect "... JSON" 0 "$PT" results "$G" --format json
same "... JSON's nodes are the plan's" "$(jq_ 'd["nodes"]')" 4
# Nothing else measured: no recommendation, and why.
for n in "$RAMP" "$GOOD"; do
	setstate "$G" "$n" state=planned job=0 attempt=0
done
expect "results with only a run of another batch size" 0 "$PT" results "$G"
has "... no recommendation, and why" \
	"no recommendation: each of the 2 measured candidates ran another global batch size than planned" \
	"$T/out"

# ---- step times that are no measurement -----------------------------------------
# A log whose step times are zero or negative (a clock that went back, a
# logger that prints 0.0) measured nothing: such a run is neither ranked
# nor recommended, and failed.csv says why.
B=$T/bad-times
expect "plan a campaign for bad step times" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$B"
NEG=$(name 1 2 2) ZERO=$(name 4 2 1) GOOD=$(name 4 2 2)
for j in 1 2 3 4 5 6; do iter $j -1000.0; done >"$B/runs/$NEG/slurm-3001.out"
setstate "$B" "$NEG" state=completed job=3001 attempt=1
for j in 1 2 3 4 5 6; do iter $j 0.0; done >"$B/runs/$ZERO/slurm-3002.out"
setstate "$B" "$ZERO" state=completed job=3002 attempt=1
{ iter 1 12000.0; iter 2 4000.0; iter 3 5000.0; iter 4 5000.0
  iter 5 5000.0; iter 6 6000.0; } >"$B/runs/$GOOD/slurm-3003.out"
setstate "$B" "$GOOD" state=completed job=3003 attempt=1
expect "results with bad step times" 0 "$PT" results "$B" --format json
same "... only the real measurement is ranked" \
	"$(jq_ '[r["name"] for r in d["results"]]')" "['$GOOD']"
same "... and recommended" "$(jq_ 'd["recommendations"]["fastest"]')" "$GOOD"
same "... negative times are a failure" \
	"$(jq_ '[r["failure_class"] for r in d["failed"] if r["name"] == "'"$NEG"'"]')" \
	"['unknown']"
same "... zero times too" \
	"$(jq_ '[r["failure_class"] for r in d["failed"] if r["name"] == "'"$ZERO"'"]')" \
	"['unknown']"
cells "$B"
case $(field "$B/results/failed.csv" "$NEG" note) in
*"runs/$NEG/slurm-3001.out: 5 of 5 step times after the warm-up are zero or negative: not a measurement"*)
	ok "... failed.csv says why (negative)" ;;
*) ko "... failed.csv says why (negative): '$(field "$B/results/failed.csv" "$NEG" note)'" ;;
esac
# failed.csv counted the five zero times as measured steps, where parse
# counts none of them.
same "... failed.csv's measured steps are parse's: none" \
	"$(field "$B/results/failed.csv" "$NEG" measured_steps)/$(field "$B/results/failed.csv" "$ZERO" measured_steps)" \
	"0/0"
case $(field "$B/results/failed.csv" "$ZERO" note) in
*"runs/$ZERO/slurm-3002.out: 5 of 5 step times after the warm-up are zero or negative: not a measurement"*)
	ok "... failed.csv says why (zero)" ;;
*) ko "... failed.csv says why (zero): '$(field "$B/results/failed.csv" "$ZERO" note)'" ;;
esac
expect "results table with bad step times" 0 "$PT" results "$B"
has "... the summary names the reason" \
	"$NEG: unknown.*zero or negative" "$T/out"
# One zero time among enough real ones: left out of the figures, as parse
# and watch leave it out; the run was thrown away for it, and watch may
# have ended it early on the others.
ONE0=$(name 1 2 1)
{ for j in 1 2 3 4 5 6 7; do iter $j 5000.0 256 9; done; iter 8 0.0 256 9
  iter 9 5000.0 256 9; } >"$B/runs/$ONE0/slurm-3004.out"
setstate "$B" "$ONE0" state=completed job=3004 attempt=1
expect "results with one zero time among real ones" 0 "$PT" results "$B" \
	--format json
same "... that run is measured on the others" \
	"$(jq_ '[(r["measured_steps"], float(r["step_time_mean_s"])) for r in d["results"] if r["name"] == "'"$ONE0"'"]')" \
	"[(7, 5.0)]"
cells "$B"
case $(field "$B/results/results.csv" "$ONE0" note) in
*"runs/$ONE0/slurm-3004.out: 1 of 8 step times after the warm-up are zero or negative: not a measurement, left out"*)
	ok "... results.csv says what was left out" ;;
*) ko "... results.csv says what was left out: '$(field "$B/results/results.csv" "$ONE0" note)'" ;;
esac
expect "parse of the negative log" 0 "$PT" parse "$B/runs/$NEG/slurm-3001.out"
has "... notes its step times" \
	"note: 5 of 5 step times after the warm-up are zero or negative" "$T/out"
has "... and measures nothing: no mean, no median" \
	"slurm-3001.out  megatron  *6  *0  *-  *-  " "$T/out"
expect "parse of the negative log: JSON" 0 "$PT" parse --format json \
	"$B/runs/$NEG/slurm-3001.out"
same "... no measured step, no statistics" \
	"$(jq_ '[d[0][k] for k in ("measured_steps", "step_time_mean_s", "step_time_median_s", "step_time_stdev_s")]')" \
	"[0, None, None, None]"
# steps counts the records a log keeps: one in ten at --log-interval 10.
# Beside total_steps it read as the steps done; last_step is the step
# reached.
SPARSE=$T/sparse.log
{ iter 10 1000.0; iter 20 1000.0; iter 30 1000.0; } >"$SPARSE"
expect "parse of a log kept every tenth step" 0 "$PT" parse --format json \
	"$SPARSE"
same "... three records, step 30 reached, of 6" \
	"$(jq_ '[d[0][k] for k in ("steps", "last_step", "total_steps")]')" \
	"[3, 30, 6]"
# An exception and srun's exit code after the last step are the
# teardown's: the run that did every step is no failure to parse.
DONE=$T/teardown.log
{ for j in 1 2 3 4 5 6; do iter $j 1000.0; done
  echo "[after training is done] datetime: 2024-05-01 10:01:00"
  echo "torch.distributed.DistStoreError: Socket Timeout"
  echo "srun: error: node-1: task 3: Exited with exit code 1"; } >"$DONE"
expect "parse of a finished run with a teardown exception" 0 "$PT" parse \
	--format json "$DONE"
same "... finished, and no failure" \
	"$(jq_ '(d[0]["finished"], d[0]["failure"]["class"], d[0]["measured_steps"])')" \
	"(True, 'none', 5)"
# Zero and negative times among real ones were averaged in: 9, 1, 0, 0,
# 0, 1 s gave a mean of 0.4 s and a median of 0; with -3 s instead of a
# 0, a mean of -0.2 s.  They are left out of every figure.
MIX=$T/mixed.log
{ iter 1 9000.0; iter 2 1000.0; iter 3 0.0; iter 4 -3000.0; iter 5 0.0
  iter 6 2000.0; } >"$MIX"
expect "parse of zero and negative times among real ones" 0 "$PT" parse \
	--format json "$MIX"
same "... the statistics of the two real ones" \
	"$(jq_ '[d[0][k] for k in ("measured_steps", "step_time_mean_s", "step_time_median_s", "step_time_stdev_s")]')" \
	"[2, 1.5, 1.5, 0.7071067812]"
same "... and the note counts the others" "$(jq_ 'd[0]["notes"]')" \
	"3 of 5 step times after the warm-up are zero or negative: not a measurement, left out"
expect "... the table" 0 "$PT" parse "$MIX"
has "... 2 measured, mean and median 1.5 s" \
	"mixed.log  megatron  *6  *2  *1.500  *1.500  " "$T/out"
expect "... --min-steps 3 counts the real ones alone" 0 "$PT" parse \
	--min-steps 3 --format json "$MIX"
same "... too few: no statistics" \
	"$(jq_ '[d[0][k] for k in ("step_time_mean_s", "step_time_median_s")]')" \
	"[None, None]"
# Too few measured steps blanked the step times but kept the tokens/s
# median taken over the same steps: every figure of them is left out.
TT=$T/titan-few.log
for i in 1 2 3 4; do
	echo "[rank0]:[titan] 2025-01-01 10:00:0$i,000 - root - INFO - step: $i  loss:  9.1234  memory: 33.24GiB(34.99%)  tps: 7,123  tflops: 412.5  mfu: 41.7%"
done >"$TT"
expect "parse --min-steps 10 of 2 measured torchtitan steps" 0 "$PT" parse \
	--min-steps 10 --format json "$TT"
same "... no step time and no tokens/s either" \
	"$(jq_ '[d[0][k] for k in ("measured_steps", "step_time_mean_s", "step_time_median_s", "step_time_stdev_s", "tokens_per_s_per_gpu_median")]')" \
	"[2, None, None, None, None]"
expect "... the tokens/s kept with enough" 0 "$PT" parse --min-steps 2 \
	--format json "$TT"
same "... 7123" "$(jq_ 'd[0]["tokens_per_s_per_gpu_median"]')" 7123
# A FIFO blocked parse's open until something wrote to it, /dev/zero
# was read for ever: a FIFO with no writer reads as empty, a device is
# refused, and a pipe is read as before.
mkfifo "$T/fifo.log"
expect "parse of a FIFO with no writer is not waited on" 0 timeout 20 \
	"$PT" parse --format json "$T/fifo.log"
same "... and reads as empty" "$(jq_ 'd[0]["steps"]')" 0
expect "parse of /dev/zero is refused, not read for ever" 66 timeout 20 \
	"$PT" parse /dev/zero
has "... saying why" "cannot read '/dev/zero': a device or socket" "$T/err"
expect "... a pipe is read" 0 sh -c \
	'cat "$2" | "$1" parse --format json /dev/stdin' sh "$PT" "$MIX"
same "... to its end" "$(jq_ 'd[0]["steps"]')" 6
ln -s "$MIX" "$T/mixed-link.log"
expect "... a link to a log is followed" 0 "$PT" parse "$T/mixed-link.log"
# '-' was a file name ("cannot open '-'"): a compressed log had to be
# unpacked to a file first.
expect "parse - reads the standard input" 0 sh -c \
	'"$1" parse - --format json <"$2"' sh "$PT" "$B/runs/$NEG/slurm-3001.out"
same "... named (standard input), with its steps" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))[0]
print(d["file"], d["steps"])' "$T/out")" "(standard input) 6"

# Step times no run takes (1e300 ms, a 23-digit number: a damaged line or
# a unit slip) printed 300-digit means and an infinite deviation (null in
# JSON).  They are left out, counted and noted; the other steps measure.
HUGE=$(name 8 2 2)
{ iter 1 12000.0; iter 2 1e300; iter 3 99999999999999999999999
  iter 4 4000.0; iter 5 5000.0; iter 6 5000.0; iter 7 5000.0
  iter 8 6000.0; } >"$B/runs/$HUGE/slurm-3004.out"
setstate "$B" "$HUGE" state=completed job=3004 attempt=1
expect "parse of a log with absurd step times" 0 "$PT" parse --format json \
	"$B/runs/$HUGE/slurm-3004.out"
same "... mean, median and deviation of the others, all finite" \
	"$(jq_ '[d[0][k] for k in ("measured_steps", "step_time_mean_s", "step_time_median_s", "step_time_stdev_s")]')" \
	"[5, 5, 5, 0.7071067812]"
same "... and a note names them" "$(jq_ 'd[0]["notes"]')" \
	"2 step times under 1 us or over 1000000 s (11 days) left out, the first on line 2 (a damaged log?)"
expect "parse table of it" 0 "$PT" parse "$B/runs/$HUGE/slurm-3004.out"
same "... no cell wider than a number" \
	"$(awk 'NR == 2 { for (i = 1; i <= NF; i++) if (length($i) > 80 && i > 1) print $i }' "$T/out")" ""
expect "results with absurd step times" 0 "$PT" -q results "$B"
cells "$B"
same "... measured from the other steps" \
	"$(field "$B/results/results.csv" "$HUGE" step_time_mean_s),$(field "$B/results/results.csv" "$HUGE" step_time_stdev_s)" \
	"5.0000,0.7071"
case $(field "$B/results/results.csv" "$HUGE" note) in
*"runs/$HUGE/slurm-3004.out: 2 step times under 1 us or over 1000000 s (11 days) left out, the first on line 2"*)
	ok "... results.csv says which were left out" ;;
*) ko "... results.csv says which were left out: '$(field "$B/results/results.csv" "$HUGE" note)'" ;;
esac
# A memory reading no GPU has (1e30 MiB) printed 30 digits in parse's
# table and results.csv: it is left out, and the note says so.
MEMX=$(name 4 1 2)
{ iter 1 12000.0
  echo "[Rank 0] (after 1 iterations) memory (MB) | allocated: 1000.0 | max allocated: 1e30 | reserved: 20480.0 | max reserved: 20480.0"
  iter 2 4000.0; iter 3 5000.0; iter 4 5000.0; iter 5 5000.0
  iter 6 6000.0; } >"$B/runs/$MEMX/slurm-3005.out"
setstate "$B" "$MEMX" state=completed job=3005 attempt=1
expect "parse of a log with absurd memory" 0 "$PT" parse \
	"$B/runs/$MEMX/slurm-3005.out"
has "... the believable peak" " 20.0  none" "$T/out"
has "... and a note" "note: 1 memory reading over 100000 GiB or below zero left out, the first on line 2" "$T/out"
expect "results with absurd memory" 0 "$PT" -q results "$B"
cells "$B"
same "... results.csv has the believable peak" \
	"$(field "$B/results/results.csv" "$MEMX" mem_peak_gib)" "20.00"
case $(field "$B/results/results.csv" "$MEMX" note) in
*"runs/$MEMX/slurm-3005.out: 1 memory reading over 100000 GiB or below zero left out, the first on line 2"*)
	ok "... and says what was left out" ;;
*) ko "... and says what was left out: '$(field "$B/results/results.csv" "$MEMX" note)'" ;;
esac
# The largest values a campaign accepts (1e9 B tokens, 1e6 per GPU-hour)
# with the longest step believed printed costs of 20 digits and more,
# most of them invented by printf; a step of 1e-300 ms printed a
# 300-digit samples/s, "inf TFLOP/s" and a results.csv cell cut at 63
# characters.  Past 1e15 a number is written as 8.477e+21, no number as -.
X=$T/extreme
sed -e 's/num_tokens_in_b = 100;/num_tokens_in_b = 1e9;/' \
	-e 's/cost_per_gpu_hour = 3.0;/cost_per_gpu_hour = 1e6;/' \
	"$SRC/etc/campaigns/demo.conf" >"$T/extreme.conf"
expect "plan a campaign at the largest tokens and cost" 0 "$PT" -q plan \
	"$T/extreme.conf" -o "$X"
XSLOW=$(awk -F, '$1 == 1 { print $2 }' "$X/candidates.csv")
XFAST=$(awk -F, '$1 == 2 { print $2 }' "$X/candidates.csv")
for j in 1 2 3 4 5 6; do iter $j 999999000.0; done >"$X/runs/$XSLOW/slurm-6001.out"
setstate "$X" "$XSLOW" state=completed job=6001 attempt=1
for j in 1 2 3 4 5 6; do iter $j 1e-300; done >"$X/runs/$XFAST/slurm-6002.out"
setstate "$X" "$XFAST" state=completed job=6002 attempt=1
expect "results at the extremes" 0 "$PT" results "$X"
same "... no inf, nan or number of 16 digits or more in the summary" \
	"$(grep -c -i -E 'inf|nan|[0-9,]{20}' "$T/out")" 0
has "... the cost written with 4 digits" '\$8.477e+21' "$T/out"
same "... every results.csv number a number, none cut" "$(python3 -c '
import csv, sys
bad = [(r["name"], k, v) for r in csv.DictReader(open(sys.argv[1], newline=""))
       for k, v in r.items()
       if k in ("samples_per_s", "tokens_per_s_per_gpu", "train_days",
                "gpu_hours", "cost", "pred_error") and v
       and (len(v) > 20 or float(v) != float(v))]
print(bad)' "$X/results/results.csv")" "[]"
expect "... JSON of them" 0 "$PT" results "$X" --format json
check "... parses" python3 -m json.tool "$T/out" /dev/null

# ---- results.patterns become columns ---------------------------------------------
# Each pattern without a step group is a column of results.csv named
# after it: what its last match in the measured log captured (the value
# group, else the first group, else the matched text), empty without one.
P=$T/patterns
{ cat "$SRC/etc/campaigns/demo.conf"
  cat <<'EOF'
results = { patterns = (
  { name = "widgets"; regex = "throughput (?<value>[0-9.]+) widgets"; },
  { name = "skipped"; regex = "skipped iterations: +([0-9]+)"; },
  { name = "scaler"; regex = "loss scale"; },
  { name = "never"; regex = "no such line"; },
  { name = "rank"; regex = "iteration +([0-9]+)/"; },
  { name = "status"; regex = "(lm loss)"; },
  { name = "memo"; regex = "NOTE: (.*)"; },
  { name = "delta"; regex = "delta (-?[0-9.]+)"; }
); };
EOF
} >"$T/patterns.conf"
expect "plan a campaign with results.patterns" 0 "$PT" -q plan \
	"$T/patterns.conf" -o "$P"
{ iter 1 12000.0; iter 2 4000.0; iter 3 5000.0
  echo "custom: throughput 12.5 widgets"
  iter 4 5000.0; iter 5 5000.0
  echo "custom: throughput 123.5 widgets"
  echo 'NOTE: =HYPERLINK("http://x")'; echo "delta -1.5"
  iter 6 6000.0; } >"$P/runs/$HAND/slurm-4001.out"
setstate "$P" "$HAND" state=completed job=4001 attempt=1
{ iter 1 12000.0; iter 2 4000.0; iter 3 5000.0; iter 4 5000.0
  iter 5 5000.0; iter 6 6000.0; } >"$P/runs/$CLEAN1/slurm-4002.out"
setstate "$P" "$CLEAN1" state=completed job=4002 attempt=1
expect "results with patterns" 0 "$PT" results "$P"
case $(head -1 "$P/results/results.csv") in
*,widgets,skipped,scaler,never,pattern_rank,pattern_status,memo,delta)
	ok "... a column per pattern, last" ;;
*) ko "... a column per pattern, last: $(head -1 "$P/results/results.csv")" ;;
esac
cells "$P"
same "... the value group at its last match" \
	"$(field "$P/results/results.csv" "$HAND" widgets)" 123.5
same "... no match: empty" "$(field "$P/results/results.csv" "$CLEAN1" widgets)" ""
same "... the first group without a value group" \
	"$(field "$P/results/results.csv" "$HAND" skipped)" 0
same "... the matched text without a group" \
	"$(field "$P/results/results.csv" "$HAND" scaler)" "loss scale"
same "... a pattern that never matched" \
	"$(field "$P/results/results.csv" "$HAND" never)" ""
same "... a name taken by a column gets a prefix" \
	"$(field "$P/results/results.csv" "$HAND" pattern_rank)" 6
same "... and the rank stays the plan's" \
	"$(field "$P/results/results.csv" "$HAND" rank)" \
	"$(awk -F, -v n="$HAND" '$2 == n { print $1 }' "$P/candidates.csv")"
# What a pattern captured comes from the log: text that a spreadsheet
# would run as a formula is neutralised as the evidence is, a number not.
same "... a captured formula is quoted, not run" \
	"$(field "$P/results/results.csv" "$HAND" memo)" "'=HYPERLINK(\"http://x\")"
same "... a captured negative number stays a number" \
	"$(field "$P/results/results.csv" "$HAND" delta)" -1.5
expect "results --format json with patterns" 0 "$PT" results "$P" --format json
same "... JSON: numbers as numbers, text as text, none as null" \
	"$(jq_ '[[r["widgets"], r["skipped"], r["scaler"], r["never"]] for r in d["results"] if r["name"] == "'"$HAND"'"][0]')" \
	"[123.5, 0, 'loss scale', None]"
same "... JSON keys of results match the CSV columns" \
	"$(jq_ '",".join(d["results"][0].keys())')" \
	"$(head -1 "$P/results/results.csv")"
same "... best's keys too, after its status" \
	"$(jq_ '",".join(list(d["best"].keys())[1:])')" \
	"$(head -1 "$P/results/results.csv")"

# One list naming a pattern twice lost the first without a word; a name
# with the prefix of renamed columns could give two columns one name.
for dup in '"skipped"' '"pattern_rank"'; do
	sed 's/name = "never"/name = '"$dup"'/' "$T/patterns.conf" >"$T/dup.conf"
	expect "results.patterns naming $dup again is refused" 78 \
		"$PT" config "$T/dup.conf"
	has "... naming the line" "dup.conf:[0-9]*: key 'results.patterns': pattern name" \
		"$T/err"
done

# The base still pending: its exit and failure class are not known yet,
# null as status has them (they read 0, 0 and "none").
cp -a "$D" "$T/pend" && rm -rf "$T/pend/results"
rm -f "$T/pend/runs/$BASE"/slurm-*.out
setstate "$T/pend" "$BASE" state=pending job=7777 attempt=1
expect "results with the base pending" 0 "$PT" results "$T/pend" --format json
same "... its exit code, signal and failure class are null" \
	"$(jq_ '[d["base"][k] for k in ("exit_code", "exit_signal", "failure_class")]')" \
	"[None, None, None]"

# ---- the switches ------------------------------------------------------------
# Each file ends with the layout's switches, from candidates.csv; what
# does not apply (no FP8 in bf16, no method with selective recompute, no
# CP communication with cp 1) is empty, null in JSON.
expect "results again" 0 "$PT" -q results "$D"
cells "$D"
same "switches: sequence parallel as candidates.csv has it" \
	"$(field "$R/results.csv" "$BASE" sequence_parallel)" \
	"$(awk -F, -v n="$BASE" '$2 == n { print $21 }' "$D/candidates.csv")"
same "... attention" "$(field "$R/oom.csv" "$OOM" attention)" flash
same "... no FP8 recipe in bf16" "$(field "$R/results.csv" "$BASE" fp8_recipe)" ""
expect "results --format json" 0 "$PT" results "$D" --format json
same "JSON switches: booleans, names, counts and null" \
	"$(jq_ '[type(d["results"][0][k]).__name__ for k in ("distributed_optimizer", "attention", "offload_layers", "fp8_recipe")]')" \
	"['bool', 'str', 'int', 'NoneType']"
# A campaign planned by paratune 0.1.0 has candidates.csv without them:
# still read, the switches unknown, everything else the same.
cp "$R/results.csv" "$T/with-switches.csv"
cp "$D/candidates.csv" "$T/candidates.csv"
cut -d, -f1-19 "$T/candidates.csv" >"$D/candidates.csv"
expect "candidates.csv of 0.1.0 (no switch columns)" 0 "$PT" -q results "$D"
# unknown_switches OLD NEW: NEW has OLD's rows with the switch columns
# (from recompute_method on) empty and every other cell the same
unknown_switches() {
	python3 -c 'import csv,sys
a, b = (list(csv.DictReader(open(f, newline=""))) for f in sys.argv[1:])
first = list(a[0]).index("recompute_method")
bad = [(x["name"], k) for x, y in zip(a, b) for i, k in enumerate(x)
       if y[k] != (x[k] if i < first else "")]
print(len(a), len(b), bad[:3])' "$@"
}
n=$(($(wc -l <"$T/with-switches.csv") - 1))
same "... switch cells empty, every other cell as before" \
	"$(unknown_switches "$T/with-switches.csv" "$R/results.csv")" "$n $n []"
# A switch cell that is not one of its values is an error at its line.
awk -F, -v OFS=, 'NR == 3 { $21 = "maybe" } { print }' "$T/candidates.csv" \
	>"$D/candidates.csv"
expect "a malformed switch cell" 65 "$PT" results "$D"
has "... names the file and line" "candidates.csv:3: malformed candidate row" "$T/err"
# A row's shape said: "malformed candidate row" alone left the reader
# to count the commas of a hand-edited line.
awk 'NR == 3 { $0 = $0 ",extra" } { print }' \
	"$T/candidates.csv" >"$D/candidates.csv"
expect "a row with a column added" 65 "$PT" results "$D"
nf=$(head -1 "$T/candidates.csv" | awk -F, '{ print NF }')
has "... says how many fields, and how many the header has" \
	"candidates.csv:3: malformed candidate row: $((nf + 1)) fields, the header has $nf" \
	"$T/err"
{ cat "$T/candidates.csv"; echo; } >"$D/candidates.csv"
last=$(($(wc -l <"$T/candidates.csv") + 1))
expect "an empty line at the end" 65 "$PT" results "$D"
has "... says it is empty" \
	"candidates.csv:$last: malformed candidate row: an empty line" "$T/err"
# A spreadsheet's "CSV UTF-8" starts the file with a byte order mark.
{ printf '\357\273\277'; cat "$T/candidates.csv"; } >"$D/candidates.csv"
expect "a header after a byte order mark" 65 "$PT" results "$D"
has "... says so" "candidates.csv:1: unexpected header: the file starts with a UTF-8 byte order mark" \
	"$T/err"
# Nor were the layout's values checked: gbs = -256 became the best,
# with negative samples/s, MFU, days and cost, and an estimate of
# -1e308 GiB printed a 310-character cell; tp = 2^31 - 1 was priced as
# a run on 10^18 GPUs.  Column=value, each refused.
for cv in 10=-256 10=0 10=16777217 3=0 4=-1 5=0 6=0 8=-1 9=0 11=0 \
	3=65537 4=2147483647 5=65537 6=65537 7=65537 8=65537 \
	9=16777217 11=16777217 13=16777217 \
	14=-1e308 14=-1 14=nan 14=1e300 16=inf 16=-0.5 17=-1 18=nan; do
	awk -F, -v OFS=, -v c="${cv%%=*}" -v v="${cv#*=}" \
		'NR == 3 { $c = v } { print }' "$T/candidates.csv" \
		>"$D/candidates.csv"
	expect "candidates.csv with column $cv" 65 "$PT" results "$D"
	has "... a malformed row at its line" \
		"candidates.csv:3: malformed candidate row" "$T/err"
done
# "malformed candidate row" alone left the reader to find the cell:
# the column is named by its header, with the value.
awk -F, -v OFS=, 'NR == 3 { $10 = "25x6" } { print }' "$T/candidates.csv" \
	>"$D/candidates.csv"
expect "candidates.csv with gbs 25x6" 65 "$PT" results "$D"
has "... names the file, line, column and value" \
	"candidates.csv:3: malformed candidate row: gbs (column 10) is '25x6'" \
	"$T/err"
awk -F, -v OFS=, 'NR == 3 { $21 = "maybe" } { print }' "$T/candidates.csv" \
	>"$D/candidates.csv"
expect "... a switch cell" 65 "$PT" results "$D"
has "... named by its header too" \
	"candidates.csv:3: malformed candidate row: $(head -1 "$T/candidates.csv" | cut -d, -f21) (column 21) is 'maybe'" \
	"$T/err"
# A spreadsheet re-saving the file may quote every field and end its
# lines in CR LF, as RFC 4180 has it: a quoted name was a candidate
# missing from the state, a quoted number malformed.
cp "$T/candidates.csv" "$D/candidates.csv"
expect "results before the file is quoted" 0 "$PT" results "$D"
cp "$T/out" "$T/out-plain"
python3 -c 'import csv,sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
csv.writer(open(sys.argv[2], "w", newline=""), quoting=csv.QUOTE_ALL).writerows(rows)' \
	"$T/candidates.csv" "$D/candidates.csv"
has "... every field quoted" '^"rank","name",' "$D/candidates.csv"
expect "results with every field quoted" 0 "$PT" results "$D"
check "... the same results" cmp -s "$T/out" "$T/out-plain"
hasnt "... no candidate missing" "not in candidates.csv" "$T/err"
# A quote that RFC 4180 does not allow is named with its column.
awk -F, -v OFS=, 'NR == 3 { $2 = "\"" $2 } { print }' "$T/candidates.csv" \
	>"$D/candidates.csv"
expect "a quoted field not closed" 65 "$PT" results "$D"
has "... names it" \
	"candidates.csv:3: malformed candidate row: name (column 2): a quote not closed" \
	"$T/err"
cp "$T/candidates.csv" "$D/candidates.csv"
# A campaign planned before the uneven pipeline's two columns (the last
# of the file) is still read, with every other cell as before.
cut -d, -f1-35 "$T/candidates.csv" >"$D/candidates.csv"
has "... the file without them ends at offload_layers" \
	",offload_layers$" "$D/candidates.csv"
expect "candidates.csv without the stage layer columns" 0 "$PT" -q results "$D"
same "... read as an even pipeline, the other cells as before" \
	"$(python3 -c 'import csv,sys
a, b = (list(csv.DictReader(open(f, newline=""))) for f in sys.argv[1:])
print(len(a) == len(b), [(x["name"], k) for x, y in zip(a, b) for k in x if x[k] != y[k]][:3])' \
		"$T/with-switches.csv" "$R/results.csv")" "True []"
cp "$T/candidates.csv" "$D/candidates.csv"

# A log of 3 GiB, nearly all holes (what a user can make in a second to
# hold up root's cron): its steps at the head and its out-of-memory at
# the tail are read, the middle is not, and a warning says so.
L=$D/runs/$OOM/slurm-1016.out
grep -v -i 'memory\|error\|Traceback' "$L" >"$T/head"
grep -i 'memory\|error\|Traceback' "$L" >"$T/tail"
[ -s "$T/tail" ] && ok "the out-of-memory log has a tail to move" ||
	ko "the out-of-memory log has a tail to move"
cp "$T/head" "$L" && truncate -s 3G "$L" && cat "$T/tail" >>"$L"
expect "results over a 3 GiB sparse log" 0 "$PT" -q results "$D"
has "... warns that only its two ends were read" \
	"only its first and last 512 MiB are read" "$T/err"
cells "$D"
same "... still finds the out of memory at its end" \
	"$(field oom.csv "$OOM" stop_reason)" oom
# A run directory made a link is not entered, wherever it points.
mv "$D/runs/$OOM" "$T/rundir" && ln -s "$T/rundir" "$D/runs/$OOM"
rm -f "$D/results/results.csv"
expect "results with a run directory made a link fails (65)" 65 \
	"$PT" -q results "$D"
has "... refuses to read through it, saying why" \
	"slurm-1016.out': a symbolic link, not followed" "$T/err"
has "... and says the results are partial" \
	"1 log or run directory of '$D' could not be read" "$T/err"
[ -s "$D/results/results.csv" ] &&
	ok "... after writing what the other logs said" ||
	ko "... after writing what the other logs said"
rm "$D/runs/$OOM" && mv "$T/rundir" "$D/runs/$OOM"

# A job cancelled while it was pending never started: no node, no
# output.  It was counted failed, "job 2001 left no output; Slurm
# recorded the job as cancelled", where status counts it cancelled; it
# is not run, as it was while planned.
"$PT" -q results "$D" --format json >"$T/out" 2>/dev/null
before=$(jq_ '"%d failed, %d not run" % (len(d["failed"]), d["not_run"])')
PENDING=$(name 8 2 2)
setstate "$D" "$PENDING" state=cancelled job=2001 attempt=1
"$PT" -q results "$D" --format json >"$T/out" 2>/dev/null
after=$(jq_ '"%d failed, %d not run" % (len(d["failed"]), d["not_run"])')
same "... still counted not run, not failed" "$after" "$before"
expect "results after" 0 "$PT" results "$D"
cells "$D"
same "... in no CSV file" \
	"$(awk -F'\t' -v n="$PENDING" '$2 == n { print $1 }' "$T/cells" | sort -u)" ""
if grep -q "Slurm recorded" "$T/out" && grep "Slurm recorded" "$T/out" |
	grep -q "$PENDING"; then ko "... nor in the summary's failures"
else ok "... nor in the summary's failures"; fi

# A submission Slurm rejected (an unknown partition): no job, so no
# exit code, and no "exit_nonzero; no job was started; Slurm recorded
# the job as failed".
REJECTED=$(name 4 2 2)
setstate "$D" "$REJECTED" state=failed attempt=1 reason=rejected
expect "results with a rejected submission" 0 "$PT" results "$D"
has "... says Slurm rejected it" "$REJECTED: unknown; Slurm rejected its submission" \
	"$T/out"
cells "$D"
same "... class unknown" "$(field failed.csv "$REJECTED" failure_class)" unknown
same "... no exit code" "$(field failed.csv "$REJECTED" exit_code)" ""
same "... nor signal" "$(field failed.csv "$REJECTED" exit_signal)" ""
# Slurm's words, kept in the state since they were (runner-submit.c).
setstate "$D" "$REJECTED" state=failed attempt=1 \
	reason=rejected:Invalid_partition_name_specified
expect "results with Slurm's reason kept" 0 "$PT" results "$D"
has "... gives it" \
	"Slurm rejected its submission: no job (Slurm: Invalid partition name specified)" \
	"$T/out"
expect "status of it" 0 "$PT" status "$D"
check "... shows no exit code" awk -v n="$REJECTED" '
	$NF == n { found = 1; if ($6 != "-") bad = 1 }
	END { exit !(found && !bad) }' "$T/out"

# Measured while its job still runs: counted measured, not in progress,
# and the summary's table did not say that it ran on (results.csv did).
ONGOING=$(name 4 2 1)
simlog "$D" "$ONGOING" 2101
setstate "$D" "$ONGOING" state=running job=2101 attempt=1
expect "results with a measured job still running" 0 "$PT" results "$D"
has "... its row in the table says so" " still running\$" "$T/out"

# Cancelled while it ran, before enough steps: no result, but no failure
# of its layout either; the headline counted it failed and no more.
STOPPED=$(name 8 1 1)
simlog "$D" "$STOPPED" 2201 hang:3
echo "slurmstepd: error: *** JOB 2201 ON node-1 CANCELLED AT 2026-01-01T00:00:00 ***" \
	>>"$D/runs/$STOPPED/slurm-2201.out"
setstate "$D" "$STOPPED" state=cancelled job=2201 attempt=1 nodes=gpu1
expect "results with a run cancelled before enough steps" 0 "$PT" results "$D"
has "... the headline says how many failed were cancelled" \
	" failed (1 cancelled before enough steps), " "$T/out"

# A job Slurm recorded as failed after its log ran every step (an
# exception at teardown): failed_after_finish, its steps measured and
# recommendable, with the teardown's line as evidence.  It was
# exit_nonzero, never recommended, however sound its measurement.
F=$T/faf
expect "plan a campaign for a teardown failure" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$F"
n=$(awk -F, 'NR == 2 { print $2 }' "$F/candidates.csv")
simlog "$F" "$n" 2001
echo "RuntimeError: checkpoint writer gone at exit" >>"$F/runs/$n/slurm-2001.out"
setstate "$F" "$n" state=failed job=2001 attempt=1 exit=1
expect "results of a job that failed at teardown" 0 "$PT" results "$F"
cp "$T/out" "$T/faf.out"
cells "$F"
same "... failed_after_finish" \
	"$(field "$F/results/results.csv" "$n" failure_class)" \
	failed_after_finish
has "... and recommended" "fastest: rank 1 $n" "$T/faf.out"

# ---- short trainings ------------------------------------------------------------
# 0.01 B tokens at 3 s a step of 1,048,576 tokens take 28.6 s, 0.25
# GPU-hours on 32 GPUs and $0.76; the summary said "0.00 days, 0
# GPU-hours, $0.76" and "saves 0.00 days, 0 GPU-hours and $1.02", and
# results.csv wrote 0.000 days and 0.0 GPU-hours for 0.001 B tokens.
# steps DIR NAME JOB MS: a 6-step log of MS each (the first a warm-up)
steps() {
	for j in 1 2 3 4 5 6; do iter $j "$4"; done >"$1/runs/$2/slurm-$3.out"
	setstate "$1" "$2" state=completed job="$3" attempt=1
}
Q=$T/short
sed 's/num_tokens_in_b = 100;/num_tokens_in_b = 0.01;/' \
	"$SRC/etc/campaigns/demo.conf" >"$T/short.conf"
expect "plan a campaign of 0.01 B tokens" 0 "$PT" -q plan "$T/short.conf" \
	-o "$Q"
steps "$Q" "$CLEAN1" 8001 3000.0
steps "$Q" "$BASE" 8002 7000.0
expect "results of a short training" 0 "$PT" results "$Q"
has "... its time in seconds, its GPU-hours to two digits" \
	"training on 0.01 B tokens: 28.6 seconds, 0.25 GPU-hours, \$0.76" \
	"$T/out"
has "... the base's in minutes" "1.1 minutes, 0.59 GPU-hours, \$1.78" \
	"$T/out"
has "... what switching saves, likewise" \
	"switching saves 38.1 seconds, 0.34 GPU-hours and \$1.02 over" "$T/out"
hasnt "... no zero days or GPU-hours" "0\.00 days\| 0 GPU-hours" "$T/out"
has "... the table's days and GPU-hours too" " 0\.00033 *0\.25 *\$0\.76 " \
	"$T/out"
sed 's/num_tokens_in_b = 100;/num_tokens_in_b = 0.001;/' \
	"$SRC/etc/campaigns/demo.conf" >"$T/short.conf"
rm -rf "$Q"
expect "plan a campaign of 0.001 B tokens" 0 "$PT" -q plan "$T/short.conf" \
	-o "$Q"
steps "$Q" "$CLEAN1" 8001 3000.0
expect "results of it" 0 "$PT" -q results "$Q"
cells "$Q"
# 1e6 / 1,048,576 steps of 3 s: 2.861 s = 3.3114e-5 days, 0.025431
# GPU-hours, $0.076294.
same "... results.csv keeps three significant digits" \
	"$(field "$Q/results/results.csv" "$CLEAN1" train_days),$(field "$Q/results/results.csv" "$CLEAN1" gpu_hours),$(field "$Q/results/results.csv" "$CLEAN1" cost)" \
	"0.0000331,0.0254,0.0763"

# ---- a tie with the base ---------------------------------------------------------
# The base and rank 1 both at 2000 ms: the tie went to rank 1, "1.00x
# faster; switching saves 0.00 days, 0 GPU-hours and $0.00".  A tie is
# the base's; a gain within the noise of the two measurements is none.
# spread DIR NAME JOB MS...: a log of these step times (the first a warm-up)
spread() {
	d=$1 n=$2 j=$3 i=1
	shift 3
	for ms in "$@"; do iter $i "$ms"; i=$((i + 1)); done \
		>"$d/runs/$n/slurm-$j.out"
	setstate "$d" "$n" state=completed job="$j" attempt=1
}
Z=$T/tie
expect "plan a campaign for a tie" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$Z"
steps "$Z" "$CLEAN1" 9001 2000.0
steps "$Z" "$BASE" 9002 2000.0
expect "results of a tie with the base" 0 "$PT" results "$Z"
has "... the base is best" "^best: rank 9  $BASE" "$T/out"
has "... and says it is already the fastest" \
	"base: the same configuration: the base is already the fastest" "$T/out"
hasnt "... no switching" "switching" "$T/out"
# Means 1.994 and 2.000 s, deviations 0.010 and 0.016 s over 5 steps:
# the 6 ms are under two standard errors (2 x 8.4 ms) and 0.5 %.
spread "$Z" "$CLEAN1" 9001 9000 1990 2000 1980 1995 2005
spread "$Z" "$BASE" 9002 9000 2000 2010 1990 2020 1980
expect "results of a gain within noise" 0 "$PT" results "$Z"
has "... says the base is as fast" \
	"best against base: the base is as fast as the best (within noise), 1.003x measured; switching gains nothing measurable" \
	"$T/out"
hasnt "... and no saving" "switching saves" "$T/out"
expect "... JSON flags it" 0 "$PT" results "$Z" --format json
same "... within_noise" "$(jq_ 'd["within_noise"]')" True
# 1.800 s against 2.000 s with the same spreads: a gain.
spread "$Z" "$CLEAN1" 9001 9000 1790 1800 1780 1795 1835
expect "results of a gain beyond the noise" 0 "$PT" results "$Z"
has "... states it" "best against base: 1.1[0-9]x faster; switching saves" \
	"$T/out"

# ---- a best on more GPUs than the base ------------------------------------------
# The base edited to dp 4, 16 GPUs, at 3.3 s a step against rank 1 on
# 32 at 3.0 s: the best saves 7.9 hours and costs 1,144 GPU-hours more
# (2,543 against 1,399).  One verb for both said "switching saves 7.9
# hours, 1,144 GPU-hours and $3,433".
W=$T/more-gpus
expect "plan a campaign for a base on fewer GPUs" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$W"
awk -F, -v OFS=, '$19 == 1 { $11 = 4 } { print }' "$W/candidates.csv" \
	>"$T/cands" && mv "$T/cands" "$W/candidates.csv"
steps "$W" "$CLEAN1" 9201 3000.0
steps "$W" "$BASE" 9202 3300.0
expect "results with a base on half the GPUs" 0 "$PT" results "$W"
has "... the time saved, the GPU-hours and money it costs" \
	"best against base: 1.10x faster; switching saves 7.9 hours but costs 1,144 GPU-hours and \$3,433 over the whole training" \
	"$T/out"
expect "... JSON" 0 "$PT" results "$W" --format json
same "... the savings signed" \
	"$(jq_ '"%.1f %.1f %.2f" % (d["saved"]["days"] * 24, d["saved"]["gpu_hours"], d["saved"]["cost"])')" \
	"7.9 -1144.4 -3433.23"
# The nodes column said the campaign's 4 for the base too, whose
# GPU-hours are those of 16 GPUs.
cells "$W"
same "... each row's nodes its own" \
	"$(field "$W/results/results.csv" "$BASE" nodes) $(field "$W/results/results.csv" "$CLEAN1" nodes)" \
	"2 4"

# ---- an empty log and a binary one ---------------------------------------------
# A completed job whose log is empty and one whose log is binary noise:
# both failed, "0 measured steps, 5 needed" and nothing more, as if the
# training had stopped early.  Each note names the log and what is
# wrong with it; the binary one, which parse refuses, is named on
# stderr too.
E=$T/not-logs
expect "plan a campaign for logs that are none" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$E"
mkdir -p "$E/runs/$CLEAN1" "$E/runs/$CLEAN2"
: >"$E/runs/$CLEAN1/slurm-9301.out"
setstate "$E" "$CLEAN1" state=completed job=9301 attempt=1
printf 'PK\003\004\000\000\001\002garbage\000\n' >"$E/runs/$CLEAN2/slurm-9302.out"
setstate "$E" "$CLEAN2" state=completed job=9302 attempt=1
expect "results with an empty and a binary log" 0 "$PT" results "$E"
cells "$E"
same "... the empty one's note" \
	"$(field "$E/results/failed.csv" "$CLEAN1" note)" \
	"runs/$CLEAN1/slurm-9301.out is empty; 0 measured steps, 5 needed (results.min_steps)"
same "... the binary one's note" \
	"$(field "$E/results/failed.csv" "$CLEAN2" note)" \
	"runs/$CLEAN2/slurm-9302.out is not a training log: NUL byte at offset 4 and no step; 0 measured steps, 5 needed (results.min_steps)"
has "... the binary one named on stderr" \
	"warning: '$CLEAN2': its log .*/runs/$CLEAN2/slurm-9302.out is not a training log: NUL byte at offset 4" \
	"$T/err"
hasnt "... the empty one not" "slurm-9301" "$T/err"
# Completed, with a log that says nothing: whether the job reached its
# last step is not known, where "exited" said it stopped before it.
same "... neither said to have exited before its last step" \
	"$(field "$E/results/failed.csv" "$CLEAN1" stop_reason) $(field "$E/results/failed.csv" "$CLEAN2" stop_reason)" \
	"unknown unknown"
# A log that cannot be read (a symbolic link, never followed) read
# nothing, which is not empty.
mv "$E/runs/$CLEAN1/slurm-9301.out" "$T/elsewhere.out"
ln -s "$T/elsewhere.out" "$E/runs/$CLEAN1/slurm-9301.out"
expect "results with a log that cannot be read" 65 "$PT" results "$E"
cells "$E"
same "... its note says so" \
	"$(field "$E/results/failed.csv" "$CLEAN1" note)" \
	"runs/$CLEAN1/slurm-9301.out could not be read; 0 measured steps, 5 needed (results.min_steps)"
same "... nor is its stop" \
	"$(field "$E/results/failed.csv" "$CLEAN1" stop_reason)" unknown

# ---- a measured row from a damaged or mixed log -------------------------------
# parse notes NUL bytes, cut lines and a second format in a log that
# still has its steps; results measured the row from that log and said
# nothing, so results.csv read as from a clean one.
G=$T/odd-log
expect "plan a campaign for a damaged log" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$G"
mkdir -p "$G/runs/$CLEAN1"
{ for j in 1 2 3 4 5 6; do iter $j 2500.0; done
  printf 'junk\000here\n'
  head -c 1100000 /dev/zero | tr '\0' x; echo
  echo "step: 7  loss:  9.1234  memory: 33.24GiB(34.99%)  tps: 7,123  tflops: 412.5  mfu: 41.7%"
} >"$G/runs/$CLEAN1/slurm-9401.out"
setstate "$G" "$CLEAN1" state=completed job=9401 attempt=1
expect "results with a damaged, mixed log" 0 "$PT" results "$G"
cells "$G"
same "... measured, the note says what parse says of its log" \
	"$(field "$G/results/results.csv" "$CLEAN1" note)" \
	"runs/$CLEAN1/slurm-9401.out: 1 NUL byte from offset 1888 (binary?); runs/$CLEAN1/slurm-9401.out: 1 line over 1048576 bytes cut; runs/$CLEAN1/slurm-9401.out: 1 step in torchtitan records among the megatron ones, read as one run (two runs in one log?)"
# as_parsed REL LOG: parse's notes on LOG, each after "REL: ", as a
# row's note carries them ("; "-separated)
as_parsed() {
	"$PT" parse --format json "$2" | python3 -c 'import json, sys
n = json.load(sys.stdin)[0]["notes"] or ""
print("; ".join(sys.argv[1] + ": " + x for x in n.split("; ") if x))' "$1"
}
same "... in parse's words" "$(field "$G/results/results.csv" "$CLEAN1" note)" \
	"$(as_parsed "runs/$CLEAN1/slurm-9401.out" "$G/runs/$CLEAN1/slurm-9401.out")"

# results carried some of parse's notes and not the others: a last line
# without its line break (a cut log), step times taken from torchtitan's
# time stamps, a gap between step lines and a clock set back (steps left
# untimed) read in results.csv as a measurement from a clean log.
# titan N SECONDS: a torchtitan step line stamped SECONDS past 10:00:00
titan() {
	printf '[rank0]:[titan] 2025-01-01 10:%02d:%02d,000 - root - INFO - step: %d  loss:  9.1234  memory: 33.24GiB(34.99%%)  tps: 7,123  tflops: 412.5  mfu: 41.7%%\n' \
		$(($2 / 60)) $(($2 % 60)) "$1"
}
# Two seconds a step; step 8 a minute late (a checkpoint), step 10
# stamped before step 9, and the last line cut mid-value.
TL=runs/$CLEAN1/slurm-9402.out
{ for j in 1 2 3 4 5 6 7; do titan $j $((2 * j)); done
  titan 8 80; titan 9 82; titan 10 81
  for j in 11 12 13 14 15 16; do titan $j $((62 + 2 * j)); done
  printf '[rank0]:[titan] 2025-01-01 10:01:36,000 - root - INFO - step: 17  loss:  9.12'
} >"$G/$TL"
setstate "$G" "$CLEAN1" state=completed job=9402 attempt=2
expect "parse of a cut, clocked torchtitan log" 0 "$PT" parse "$G/$TL"
has "... notes the clock set back" \
	"note: .*1 step line stamped no later than the step line before, left untimed (a clock set back?)" \
	"$T/out"
expect "results with it" 0 "$PT" results "$G"
cells "$G"
TN=$(field "$G/results/results.csv" "$CLEAN1" note)
for n in "last line has no line break (line 17: truncated?)" \
	"13 step times from the time stamps of the step lines" \
	"1 gap between step lines over ten times the step time before" \
	"1 step line stamped no later than the step line before"; do
	case $TN in
	*"$TL: $n"*) ok "... measured, its note says: $n" ;;
	*) ko "... measured, its note says: $n (got '$TN')" ;;
	esac
done
same "... in parse's words, no more" "$TN" "$(as_parsed "$TL" "$G/$TL")"
# A running job's log is still being written: its last line is not cut.
setstate "$G" "$CLEAN1" state=running
expect "results while its job runs" 0 "$PT" results "$G"
cells "$G"
TN=$(field "$G/results/results.csv" "$CLEAN1" note)
case $TN in
*"no line break"*) ko "... no cut last line while it runs (got '$TN')" ;;
*"$TL: 13 step times from the time stamps"*"; still running")
	ok "... no cut last line while it runs" ;;
*) ko "... no cut last line while it runs (got '$TN')" ;;
esac

# ---- more steps than the reader keeps -------------------------------------------
# LOGPARSE_STEPS_MAX: the first 10^6 distinct steps are kept and the
# rest noted as ignored (memory stays bounded whatever the log); nothing
# checked the note unless tests/cli/huge.sh's stream was long enough.
# cap_log N: N minimal Megatron-LM iteration lines, two seconds a step
cap_log() {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++)
		print " iteration " i "/" n " | elapsed time per iteration (ms): 2000.0 |" }'
}
cap_log 1000000 >"$T/cap.log"
expect "parse of 10^6 steps" 0 "$PT" parse --format json "$T/cap.log"
same "... keeps them all, and notes nothing" \
	"$(jq_ '(d[0]["steps"], d[0].get("notes"))')" "(1000000, None)"
TL=runs/$CLEAN1/slurm-9403.out
cap_log 1000001 >"$G/$TL"
expect "parse of 10^6 + 1 steps" 0 "$PT" parse --format json "$G/$TL"
same "... keeps 10^6 and notes the rest as ignored" \
	"$(jq_ '(d[0]["steps"], d[0]["notes"])')" \
	"(1000000, 'more than 1000000 steps: the rest ignored')"
same "... and its last step is the log's, not the last one kept" \
	"$(jq_ 'd[0]["last_step"]')" "1000001"
setstate "$G" "$CLEAN1" state=completed job=9403 attempt=3
expect "results with it" 0 "$PT" results "$G"
cells "$G"
case $(field "$G/results/results.csv" "$CLEAN1" note) in
"$TL: more than 1000000 steps: the rest ignored"*)
	ok "... measured, its note says so" ;;
*) ko "... measured, its note says so (got '$(field "$G/results/results.csv" "$CLEAN1" note)')" ;;
esac
rm -f "$T/cap.log" "$G/$TL"

# ---- a base whose times do not count ------------------------------------------------
# A base stopped by NeMo's straggler detection after its steps, at 1.5 s
# a step (106.5 % MFU), against rank 1 at 2 s: "best against base: 1.33x
# slower; switching costs ...", speed-up 0.75 in JSON with negative
# savings.  Its times are suspect: no comparison, and the MFU above
# 100 % is flagged.
V=$T/base-suspect
expect "plan a campaign for a suspect base" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$V"
{ for j in 0 1 2 3 4 5 6 7 8 9; do nemo $j 1.5; done
  echo "[NeMo E 2025-03-07 22:43:58 straggler_det_callback:239] Detected stragglers. Terminating training..."
} >"$V/runs/$BASE/slurm-9101.out"
setstate "$V" "$BASE" state=failed job=9101 attempt=1 exit=1
for j in 0 1 2 3 4 5 6 7 8 9; do nemo $j 2.0; done \
	>"$V/runs/$CLEAN1/slurm-9102.out"
setstate "$V" "$CLEAN1" state=completed job=9102 attempt=1
expect "results with a straggler base" 0 "$PT" results "$V"
has "... no comparison, and why" \
	"best against base: no comparison: slow GPUs (stragglers) slowed the base's steps" \
	"$T/out"
hasnt "... no switching" "switching" "$T/out"
has "... the MFU above 100 % is flagged" "(MFU 106.5 %, above 100 %" "$T/out"
has "... with a warning" "warning: 1 measured candidate shows an MFU above 100 %" \
	"$T/out"
has "... on stderr too" "an MFU above 100 %" "$T/err"
expect "... JSON" 0 "$PT" results "$V" --format json
same "... speed-up and savings null, and why" \
	"$(jq_ '(d["speedup"], d["saved"]["days"], d["saved"]["cost"], d["no_comparison"])')" \
	"(None, None, None, 'base_times_suspect')"
case $(jq_ 'd["base"]["note"]') in
*"MFU 106.5 % is above 100 %"*) ok "... the base's note says so" ;;
*) ko "... the base's note: '$(jq_ 'd["base"]["note"]')'" ;;
esac
# A base that measured its steps and then lost its loss to NaN.
{ for j in 1 2 3 4 5 6; do iter $j 2500.0; done
  echo "AssertionError: found NaN in local grad norm in backward pass"
} >"$V/runs/$BASE/slurm-9101.out"
expect "results with a base ended in nan_loss" 0 "$PT" results "$V"
has "... no comparison, and why" \
	"best against base: no comparison: the base ended in failure class nan_loss after its measured steps" \
	"$T/out"
hasnt "... no switching" "switching" "$T/out"
hasnt "... and no MFU warning" "warning" "$T/out"
expect "... JSON" 0 "$PT" results "$V" --format json
same "... speed-up null, and why" "$(jq_ '(d["speedup"], d["no_comparison"])')" \
	"(None, 'base_not_recommendable')"
# A clean base, and a faster candidate whose 1.5 s steps make 106.5 %
# MFU: noted, not recommended, so the base is best.
for j in 1 2 3 4 5 6; do iter $j 2500.0; done >"$V/runs/$BASE/slurm-9101.out"
setstate "$V" "$BASE" state=completed exit=0
for j in 1 2 3 4 5 6; do iter $j 1500.0; done >"$V/runs/$CLEAN1/slurm-9102.out"
expect "results with an MFU above 100 %" 0 "$PT" results "$V" --format json
same "... not recommended: the base is best" \
	"$(jq_ '(d["recommendations"]["fastest"], d["no_comparison"])')" \
	"('$BASE', None)"
has "... a warning on stderr" "1 measured candidate of '.*' shows an MFU above 100 %" \
	"$T/err"
expect "... the summary" 0 "$PT" results "$V"
has "... says why it is not recommended" \
	"not recommended although faster: rank 1 $CLEAN1 shows an MFU of 106.5 %" \
	"$T/out"

# ---- a single measured step ----------------------------------------------------------
# results.min_steps may be 1: one step after the warm-up has no sample
# standard deviation, which read 0.0000 in results.csv and "stdev 0.000
# s, 1 steps" in the summary.
O=$T/one-step
expect "plan a campaign measured from one step" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$O" -s results.min_steps=1
{ iter 1 9000.0; iter 2 2500.0; } >"$O/runs/$CLEAN1/slurm-9201.out"
setstate "$O" "$CLEAN1" state=completed job=9201 attempt=1
expect "results of it" 0 "$PT" results "$O"
has "... stdev unknown, 1 step" \
	"2.500 s per step (median 2.500 s, stdev unknown, 1 step)" "$T/out"
cells "$O"
same "... results.csv: the stdev empty, the mean given" \
	"$(field "$O/results/results.csv" "$CLEAN1" step_time_stdev_s),$(field "$O/results/results.csv" "$CLEAN1" step_time_mean_s)" \
	",2.5000"
expect "... JSON" 0 "$PT" results "$O" --format json
same "... null" "$(jq_ '(d["best"]["step_time_stdev_s"], d["best"]["measured_steps"])')" \
	"(None, 1)"
expect "parse of it" 0 "$PT" parse --min-steps 1 --format json \
	"$O/runs/$CLEAN1/slurm-9201.out"
same "... null there too" "$(jq_ '(d[0]["step_time_stdev_s"], d[0]["step_time_mean_s"])')" \
	"(None, 2.5)"

# ---- many failures ---------------------------------------------------------------
# The summary listed every failed and out-of-memory candidate whatever
# --top said: 5,000 failed made 10,000 lines of cron mail.  It lists
# the first 20 of each kind, or --top's number when larger (0: all).
M=$T/many
expect "plan 72 candidates" 0 "$PT" -q plan "$SRC/etc/campaigns/demo.conf" \
	-o "$M" -s 'global_batch_size=[128, 256, 512]' \
	-s 'search.micro_batch_size=[1, 2, 4]'
awk '/ state=planned / { k++; sub(/ state=planned /, k % 3 ? " state=failed " \
	: " state=oom "); sub(/ attempt=0 job=0 exit=0 /,
	" attempt=1 job=" (7000 + k) " exit=1 ") } { print }' "$M/state" \
	>"$M/state.new" && mv "$M/state.new" "$M/state"
# shown FILE: the failure lines of FILE's out-of-memory and failed lists
shown() {
	awk '/^(out of memory|failed) \(/ { k = $1 } /^  llama/ { n[k]++ }
	END { printf "%d %d", n["out"], n["failed"] }' "$1"
}
expect "results of 24 out of memory and 48 failed" 0 "$PT" results "$M"
same "... 20 of each kind listed" "$(shown "$T/out")" "20 20"
has "... the out-of-memory rest counted" \
	"^  \.\.\. and 4 more: see results/oom.csv$" "$T/out"
has "... the failed rest counted" \
	"^  \.\.\. and 28 more: see results/failed.csv$" "$T/out"
same "... summary.txt the same" "$(shown "$M/results/summary.txt")" "20 20"
same "... failed.csv holds every one" \
	"$(($(wc -l <"$M/results/failed.csv") - 1))" 48
expect "results --top 30" 0 "$PT" results "$M" --top 30
same "... 30 failed listed, every out-of-memory one" "$(shown "$T/out")" \
	"24 30"
hasnt "... no out-of-memory rest" "and .* more: see results/oom.csv" "$T/out"
has "... the failed rest" "and 18 more: see results/failed.csv" "$T/out"
expect "results --top 0" 0 "$PT" results "$M" --top 0
same "... all listed" "$(shown "$T/out")" "24 48"
hasnt "... nothing left" "more: see results/" "$T/out"
# The candidates in progress were listed every one too.
sed 's/ state=\(failed\|oom\) / state=queued /' "$M/state" >"$M/state.new" &&
	mv "$M/state.new" "$M/state"
expect "results of 72 candidates queued" 0 "$PT" results "$M"
same "... 20 listed" "$(grep -c '^  llama.*: queued$' "$T/out")" 20
has "... the rest counted, and where they are" \
	"^  \.\.\. and 52 more: see 'paratune status $M'$" "$T/out"
expect "results --top 0 of them" 0 "$PT" results "$M" --top 0
same "... all listed" "$(grep -c '^  llama.*: queued$' "$T/out")" 72

# ---- a log named with a leading zero ------------------------------------------
# Slurm writes no leading zero in %j.  runs/NAME/slurm-0501.out was
# taken for job 501's log and read as slurm-501.out, which is not there:
# every results exited 65.  It is not a log of the campaign's.
Z=$T/zeros
expect "plan a campaign for a log named with a leading zero" 0 \
	"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$Z"
for j in 1 2 3 4 5 6; do iter $j 2500.0; done \
	>"$Z/runs/$CLEAN1/slurm-0501.out"
setstate "$Z" "$CLEAN1" state=completed job=501 attempt=1
expect "results beside runs/NAME/slurm-0501.out" 0 "$PT" results "$Z"
hasnt "... which is not read as slurm-501.out" "slurm-501.out" "$T/err"
cells "$Z"
same "... nor taken for job 501's log" \
	"$(field "$Z/results/failed.csv" "$CLEAN1" log)/$(field "$Z/results/failed.csv" "$CLEAN1" note)" \
	"/job 501 left no output"

# ---- status of a search that has ended ----------------------------------------
# The search line said "best so far" when nothing was left to run.
F=$T/ended
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$F" >/dev/null 2>&1
for j in 1 2 3 4 5 6; do iter $j 2500.0; done >"$F/runs/$BASE/slurm-601.out"
setstate "$F" "$BASE" state=completed job=601 attempt=1
setstate "$F" "$CLEAN1" state=queued
expect "status while a candidate is queued" 0 "$PT" status "$F"
has "... the best so far" "; best so far $BASE at " "$T/out"
setstate "$F" "$CLEAN1" state=skipped reason=no_gain
expect "status once every selected candidate has ended" 0 "$PT" status "$F"
has "... the best" "; best $BASE at " "$T/out"
hasnt "... not the best so far" "best so far" "$T/out"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
