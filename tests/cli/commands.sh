#!/bin/sh
# commands.sh - the paratune command line: output of every planner
# command, JSON that parses, exit codes of errors, and --help against
# the man page.  Runs the build tree's binary; no Slurm needed.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

same() {
	if [ "$2" = "$3" ]; then ok "$1"; else ko "$1 (got '$2', wanted '$3')"; fi
}
json() {
	if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" \
		2>/dev/null; then ok "$1"; else ko "$1"; fi
}
jget() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[int(k)] if k.isdigit() else d[k]
print(d)' "$T/out" "$1"
}

CAMPAIGN=$SRC/etc/campaigns/demo.conf
LLAMA=$SRC/etc/campaigns/llama3-8b-h100.conf

expect "models lists presets" 0 "$PT" models
has "models shows llama3_8b" "llama3_8b" "$T/out"
expect "models --format json" 0 "$PT" models --format json
json "models JSON parses"
# The architecture keys of a preset, as a campaign would write them.
ds=$(python3 -c 'import json,sys
m = {x["name"]: x for x in json.load(open(sys.argv[1]))}
d, o = m["deepseek_v3"], m["gpt_oss_120b"]
print(d["kv_lora_rank"], d["q_lora_rank"], d["moe_first_dense_layers"],
      d["mtp_num_layers"], d["moe_shared_expert_intermediate_size"],
      o["window_size"], o["window_attn_skip_freq"], o["softmax_type"],
      m["qwen3_32b"]["qk_layernorm"], m["qwen3_32b"]["kv_channels"])' \
	"$T/out" 2>&1)
[ "$ds" = "512 1536 3 1 2048 128 2 learnable True 128" ] &&
	ok "models JSON: DeepSeek-V3, GPT-OSS and Qwen3 architecture keys" ||
	ko "models JSON: DeepSeek-V3, GPT-OSS and Qwen3 architecture keys ($ds)"
expect "gpus" 0 "$PT" gpus --format json
json "gpus JSON parses"
# NVFP4 peaks: the Blackwell entries have one, Hopper none.
fp4=$(python3 -c 'import json,sys
m = {x["name"]: x for x in json.load(open(sys.argv[1]))}
print(*(m[g]["fp4_tflops"] for g in ("b200", "gb200", "b300", "gb300",
                                      "h100-sxm")))' "$T/out" 2>&1)
[ "$fp4" = "9000 10000 13500 15000 0" ] &&
	ok "gpus JSON: fp4_tflops of B200, GB200, B300, GB300 and H100" ||
	ko "gpus JSON: fp4_tflops ($fp4)"
# CUDA compute capabilities, which decide the FP8 recipes a GPU runs.
cc=$(python3 -c 'import json,sys
m = {x["name"]: x for x in json.load(open(sys.argv[1]))}
print(*(m[g]["compute_capability"] for g in ("a100-80gb", "l40s",
      "h100-sxm", "b200", "gb300", "mi300x")))' "$T/out" 2>&1)
[ "$cc" = "8 8.9 9 10 10.3 0" ] &&
	ok "gpus JSON: compute_capability of A100, L40S, H100, B200, GB300, MI300X" ||
	ko "gpus JSON: compute_capability ($cc)"
expect "gpus table" 0 "$PT" gpus
has "... with a cc column" "^l40s .* 8\.9 *NVIDIA L40S" "$T/out"

# The seed example: 8 B, 1024 GPUs, 840 B tokens, 140 TFLOPS -> 4.34 days.
expect "size --params" 0 "$PT" size --gpus 1024 --tflops 140 --tokens 840 \
	--params 8 --format json
[ "$(jget train_days)" = "4.34" ] && ok "size: 4.34 days" || ko "size: 4.34 days"
expect "size --days" 0 "$PT" size --gpus 160 --days 5 --tokens 300 \
	--format json
[ "$(jget params_b)" = "4.03" ] && ok "size: 4.03 B in 5 days" || \
	ko "size: 4.03 B in 5 days"
expect "size without --gpus is a usage error" 64 "$PT" size --days 5
# Finite inputs whose result is not: "a infB parameter model" was printed;
# and tiny ones whose result NeMo's hundredths made "0 days".  Each is
# refused by its range.
for a in "--days 1e300:--days must be between 0.0001 and 1000000000" \
	"--params 1e300:--params must be between 0.0001 and 1000000000" \
	"--params 1e-300:--params must be between 0.0001 and 1000000000" \
	"--days 1e-5:--days must be between 0.0001 and 1000000000" \
	"--days 1 --tflops 1e300:--tflops must be between 0.001 and 1000000" \
	"--days 1 --tokens 1e-300:--tokens must be between 0.001 and 1000000" \
	"--params 1 --tflops 1e-300:--tflops must be between 0.001 and 1000000" \
	"--params 1 --tokens 1e300:--tokens must be between 0.001 and 1000000"; do
	# shellcheck disable=SC2086 # two or four words each
	expect "size --gpus 8 ${a%%:*} is refused" 64 "$PT" size --gpus 8 \
		${a%%:*}
	has "... naming the range" "^error: ${a#*:}, not " "$T/err"
	hasnt "... printing no inf" "inf" "$T/out"
done
# Inputs in range whose result is not: too large, or so small that it
# printed "in 0 days" and "train_days": 0.
for a in "--days 1e9 --gpus 2147483647 --tflops 1e6 --tokens 0.001:above 1000000000" \
	"--params 1e9 --gpus 1 --tflops 0.001 --tokens 1e6:above 1000000000" \
	"--params 1 --gpus 2147483647:below 0.0001" \
	"--days 0.001 --gpus 8:below 0.0001"; do
	# shellcheck disable=SC2086 # the options
	expect "size ${a%%:*} is refused" 64 "$PT" size ${a%%:*}
	has "... naming the options and the bound" \
		"--tflops .* and --tokens .* give .* ${a#*:}: " "$T/err"
	for f in table json; do
		# shellcheck disable=SC2086 # the options
		"$PT" size ${a%%:*} --format $f >"$T/out" 2>/dev/null
		[ -s "$T/out" ] && ko "... prints no $f" || ok "... prints no $f"
	done
done
# Below NeMo's hundredths a result has three significant digits.
expect "size --params 0.0002 --gpus 64" 0 "$PT" size --gpus 64 \
	--params 0.0002 --format json
same "... train_days is 0.00289, not 0" "$(jget train_days)" 0.00289
expect "size --days 0.03 --gpus 8" 0 "$PT" size --gpus 8 --days 0.03 \
	--format json
same "... params_b is 0.000259, not 0" "$(jget params_b)" 0.000259
has "... and no architecture" '"architecture_error": "the budget recommends under 0.005 B' "$T/out"
expect "size --params 0.0002 --gpus 64 table" 0 "$PT" size --gpus 64 \
	--params 0.0002
has "... says 0.00289 days" "model in 0.00289 days using 64 GPUs" "$T/out"
# Large numbers in full, without an exponent: "a 2.31928e+06B parameter
# model" and "--tokens 1e+06" rounded what was given and worked out.
expect "size --days 1 --gpus 2147483647" 0 "$PT" size --days 1 \
	--gpus 2147483647 --tokens 1000000
has "... prints the size in full" "train a 3247B parameter model in 1 days" \
	"$T/out"
has "... and the tokens" "training to 1000000B tokens" "$T/out"
expect "size --params 1234567.891" 0 "$PT" size --params 1234567.891 \
	--gpus 2147483647 --tokens 0.5
has "... echoes --params whole" "train a 1234567.891B parameter model" \
	"$T/out"
# size needs --gpus and one of --days and --params, as paratune(1) says.
expect "size --help" 0 "$PT" size --help
has "... shows --gpus required, --days or --params" \
	"^usage: paratune size --gpus N .*(--days D | --params B)" "$T/out"
# Hundreds of millions of days keep their hundredths, here and in JSON.
expect "size with a result of 750,345,158.77 days" 0 "$PT" size --gpus 1 \
	--params 1000 --tokens 1000 --tflops 0.1234
has "... keeps its hundredths" "model in 750345158.77 days" "$T/out"
expect "... in JSON" 0 "$PT" size --gpus 1 --params 1000 --tokens 1000 \
	--tflops 0.1234 --format json
same "... train_days" "$(jget train_days)" 750345158.77

# A template whose script sbatch would refuse ("This does not look like a
# batch script"): empty, or without its #! line; plan wrote the jobs and
# exited 0.
: >"$T/empty.sbatch"
tail -n +2 "$SRC/templates/megatron-lm.sbatch" >"$T/noshebang.sbatch"
for t in empty noshebang; do
	expect "plan with the $t template is refused" 78 "$PT" plan \
		"$SRC/etc/campaigns/demo.conf" -o "$T/tmpl-$t" \
		-s "run.template=$T/$t.sbatch"
	has "... naming its file and line" \
		"error: $T/$t.sbatch:1: .*'#!' interpreter line" "$T/err"
	check "... and writes no campaign" test ! -e "$T/tmpl-$t"
done
# A '#!' line the kernel cannot run: no interpreter, or one that is not
# a full path (looked up in the job's working directory).  Both were
# planned and every job would have failed.
printf '#!\necho hi\n' >"$T/bare.sbatch"
printf '{{! made by hand }}\n#! \t\necho hi\n' >"$T/blank.sbatch"
printf '#!bash\necho hi\n' >"$T/relative.sbatch"
for t in "bare:1: the '#!' line names no interpreter" \
	"blank:2: the '#!' line names no interpreter" \
	"relative:1: the '#!' line's interpreter 'bash' is not a full path"; do
	f=$T/${t%%:*}.sbatch
	expect "plan with the ${t%%:*} '#!' line is refused" 78 "$PT" plan \
		"$SRC/etc/campaigns/demo.conf" -o "$T/tmpl-${t%%:*}" \
		-s "run.template=$f"
	has "... naming its file and line" "error: $f:${t#*:}" "$T/err"
	check "... and writes no campaign" test ! -e "$T/tmpl-${t%%:*}"
done

# A template that is not a text file of a job script's size: a FIFO held
# plan for good and /dev/zero ran it out of memory, each leaving a
# half-made DIR.plan-XXXXXX beside the campaign; a NUL byte was reported
# without its line.
mkfifo "$T/fifo.sbatch"
{ echo '#!/bin/bash'; head -c 4200000 /dev/zero | tr '\0' '#'; } \
	>"$T/huge.sbatch"
printf '#!/bin/bash\necho a\n\necho \0b\n' >"$T/nul.sbatch"
mkdir "$T/planned-odd"
for t in "$T/fifo.sbatch:not a regular file" "/dev/zero:not a regular file" \
	"$T/huge.sbatch:larger than 4 MiB"; do
	f=${t%%:*}
	expect "plan with template $f is refused" 78 timeout 20 "$PT" plan \
		"$SRC/etc/campaigns/demo.conf" -o "$T/planned-odd/c" \
		-s "run.template=$f"
	has "... naming it and why" \
		"command line:1: cannot open template '$f'.*: ${t#*:}" "$T/err"
	check "... and leaving nothing behind" \
		test -z "$(ls -A "$T/planned-odd")"
done
expect "plan with a template holding a NUL byte is refused" 78 "$PT" plan \
	"$SRC/etc/campaigns/demo.conf" -o "$T/planned-odd/c" \
	-s "run.template=$T/nul.sbatch"
has "... naming its line" "$T/nul.sbatch:4: template holds a NUL byte" \
	"$T/err"
# A template saved with CRLF line ends gave scripts whose '#!' line names
# "/bin/bash\r": libslurm submits them as they are, and every job failed
# with no output.
sed 's/$/\r/' "$SRC/templates/simulated.sbatch" >"$T/crlf.sbatch"
expect "plan with a CRLF template is refused" 78 "$PT" plan \
	"$SRC/etc/campaigns/demo.conf" -o "$T/planned-odd/c" \
	-s "run.template=$T/crlf.sbatch"
has "... saying why" "crlf.sbatch:1: the job script holds a carriage return" \
	"$T/err"
# A value in `...` or bash's $'...': the quoting of {{q:}} does not hold
# there (a backquote in the value ended the command substitution, and in
# $'...' \' does not end the quotes), so a user's value could run as a
# command.  Refused at plan time, with the template's file and line.
printf '#!/bin/bash\n# `...` and $'"'"'...'"'"' in a comment are fine\n%s\n' \
	'cd `dirname {{q:run_dir}}`' >"$T/backquote.sbatch"
printf '#!/bin/bash\necho "`date`" $$'"'"'{{name}}'"'"'\n%s\n' \
	"echo \$'\\t{{name}}'" >"$T/dollar-quote.sbatch"
# "$(" opens a new command context inside double quotes, so the inner
# '"' in y="$(echo "{{q:run_dir}}")" opens quotes in which {{q:}}'s
# single quotes are text and a $(...) in the value ran; ${{name}} made
# the value a parameter name; in a here-document quotes are text.
printf '#!/bin/bash\nx="$(dirname {{q:run_dir}})"\n%s\n' \
	'y="$(echo "{{q:run_dir}}")"' >"$T/nested.sbatch"
printf '#!/bin/bash\necho $${{name}} \\${{name}}\necho ${{name}}\n' \
	>"$T/dollar.sbatch"
printf '#!/bin/bash\ncat <<EOF >f\nname: {{name}}\n{{q:run_dir}}\nEOF\n' \
	>"$T/heredoc.sbatch"
for t in "backquote:3: {{q:run_dir}} is inside backquotes" \
	"dollar-quote:3: {{name}} is inside \\\$'...'" \
	"nested:3: {{q:run_dir}} is inside shell quotes" \
	"dollar:3: {{name}} follows '\\\$'" \
	"heredoc:4: {{q:run_dir}} is in a here-document"; do
	f=$T/${t%%:*}.sbatch
	expect "plan with a value in the ${t%%:*} template is refused" 78 \
		"$PT" plan "$SRC/etc/campaigns/demo.conf" \
		-o "$T/planned-odd/c" -s "run.template=$f"
	has "... naming its file and line" "error: $f:${t#*:}" "$T/err"
done

expect "estimate the base" 0 "$PT" estimate "$LLAMA" --format json
json "estimate JSON parses"
for k in params_b params_per_gpu_b flops_per_step memory.weights_gib \
	memory.gradients_gib memory.optimizer_gib memory.activations_gib \
	memory.buffers_gib memory.total_gib memory_status pred_step_s \
	pred_tokens_per_s_per_gpu pred_tflops_per_gpu pred_mfu train_days; do
	jget "$k" >/dev/null 2>&1 && ok "estimate has $k" || ko "estimate has $k"
done
expect "estimate a given layout" 0 "$PT" estimate "$LLAMA" --tp 2 --pp 2 \
	--format json
[ "$(jget layout.tp)" = 2 ] && ok "estimate uses --tp" || ko "estimate uses --tp"
expect "estimate an invalid layout" 64 "$PT" estimate "$LLAMA" --tp 3
expect "... with a batch that does not divide" 64 "$PT" estimate "$LLAMA" \
	--tp 8 --pp 8 --mbs 3
has "... names the rule and the numbers that broke it" \
	"invalid layout: gbs % (mbs\*dp) (tp 8 pp 8 cp 1 vp 1 mbs 3 gbs [0-9]* dp 1; [0-9]* GPUs, 32 layers)" \
	"$T/err"
# The switches: what follows them follows, what is named is kept.
expect "estimate --no-distributed-optimizer" 0 "$PT" estimate "$LLAMA" \
	--no-distributed-optimizer --format json
same "... parameter gather overlap follows it off" \
	"$(jget layout.distributed_optimizer) $(jget layout.overlap_param_gather)" \
	"False False"
opt_replicated=$(jget memory.optimizer_gib)
expect "estimate --switch fsdp=true" 0 "$PT" estimate "$LLAMA" \
	--switch fsdp=true --format json
same "... FSDP replaces the distributed optimizer" \
	"$(jget layout.fsdp) $(jget layout.distributed_optimizer) $(jget layout.overlap_param_gather)" \
	"True False True"
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' \
	"$(jget memory.optimizer_gib)" "$opt_replicated" &&
	ok "... and shards the optimizer state" ||
	ko "... and shards the optimizer state"
same "... what does not apply is null (bf16: no FP8 recipe)" \
	"$(jget layout.fp8_recipe)" None
expect "estimate --switch naming both" 64 "$PT" estimate "$LLAMA" \
	--switch fsdp=1 --switch distributed_optimizer=1
has "... says which rule" "fsdp replaces the distributed optimizer" "$T/err"
expect "estimate --switch moe_token_dispatcher on a dense model" 64 \
	"$PT" estimate "$LLAMA" --switch moe_token_dispatcher=flex
has "... says which rule" \
	"moe_token_dispatcher/moe_a2a_overlap need an MoE model" "$T/err"
expect "estimate --switch with a choice and a count" 0 "$PT" estimate \
	"$LLAMA" --switch attention=unfused --switch offload_layers=2 \
	--pp 1 --recompute none
has "... in the switches line" \
	"^  switches .* attention=unfused .*offload_layers=2$" "$T/out"
# Offloading every layer broke a rule named for pp, recompute and graphs
# only, with pp 1, no recompute and no graphs.
expect "estimate --switch offload_layers=32 of 32 layers" 64 "$PT" \
	estimate "$LLAMA" --switch offload_layers=32 --pp 1 --recompute none
has "... says the rule wants fewer layers" \
	"offload needs .*, fewer layers than the model's" "$T/err"
expect "estimate --switch unknown" 64 "$PT" estimate "$LLAMA" --switch sp=1
has "... names it" "--switch 'sp=1': not NAME=VALUE" "$T/err"
expect "estimate --switch bad value" 64 "$PT" estimate "$LLAMA" \
	--switch fsdp=maybe
has "... names the value" "'maybe' is not a value of fsdp" "$T/err"

expect "plan" 0 "$PT" plan "$CAMPAIGN" -o "$T/demo"
has "plan summary" "examined 16 combinations" "$T/out"
# plan's JSON gave switches that do not apply a value (fp8_recipe
# "delayed" in BF16, recompute_method "block" with selective recompute)
# where candidates.csv, estimate and results give none, and lacked
# recompute_modules and grad_reduce_in_bf16: each candidate's keys and
# values are now those of its candidates.csv row.
expect "plan --format json" 0 "$PT" plan "$CAMPAIGN" -o "$T/demoj" \
	--format json
d=$(python3 -c 'import csv,json,sys
cands = json.load(open(sys.argv[1]))["candidates"]
rows = list(csv.DictReader(open(sys.argv[2])))
skip = {"memory", "memory_status", "est_memory_gib", "pred_step_s",
        "pred_step_s_low", "pred_step_s_high",
        "pred_tflops_per_gpu", "pred_mfu", "base", "m"}
def text(v):
    return "" if v is None else str(int(v)) if isinstance(v, bool) else str(v)
bad = [(r["rank"], k) for c, r in zip(cands, rows) for k in r
       if k in c and k not in skip and text(c[k]) != r[k]]
missing = [k for k in rows[0] if k not in cands[0] and
           k not in ("est_memory_gib", "m")]
print(len(cands), len(rows), bad[:3], missing)' "$T/out" \
	"$T/demoj/candidates.csv" 2>&1)
same "... every switch as candidates.csv has it" "$d" "16 16 [] []"
# The kept candidates' array was allocated for search.max_candidates at
# once: 10^9 (in range) aborted with 616 GB out of memory, for 16.
# estimate walks the same grid with it.
expect "estimate with search.max_candidates = 10^9" 0 "$PT" estimate \
	"$CAMPAIGN" -s search.max_candidates=1000000000
# plan writes a run directory and a job script for each candidate kept:
# 339,968 took 4.2 GB and 96 s.  It keeps at most 100,000.
expect "plan with search.max_candidates = 10^9 is refused" 78 "$PT" plan \
	"$CAMPAIGN" -o "$T/maxc" -s search.max_candidates=1000000000
has "... saying the most it keeps" "plan keeps at most 100000 candidates" \
	"$T/err"
[ ! -e "$T/maxc" ] && ok "... and writing nothing" ||
	ko "... and writing nothing"
expect "plan with search.max_candidates = 100000" 0 "$PT" plan "$CAMPAIGN" \
	-o "$T/maxc" -s search.max_candidates=100000
has "... keeps its 16 candidates" "^kept 16 candidates" "$T/out"
# The key's range is still 10^9: a campaign frozen with more loads.
sed -i 's/^\(  *max_candidates = \)100000;/\11000000000;/' \
	"$T/maxc/campaign.conf"
has "... frozen with 10^9 by hand" "max_candidates = 1000000000;" \
	"$T/maxc/campaign.conf"
expect "... still lists" 0 "$PT" list "$T/maxc"
# A grid whose inner lists multiply to 8.6 x 10^9 layouts (minutes to
# days of walking, each checked) is refused before the walk, at once.
L=$(seq -s, 1 64)
{ echo 'name = "vast"; model = "llama3_8b"; nodes = 4; gpu = "h100-sxm";'
  echo "global_batch_size = [$L];"
  echo "search = { tensor_parallel = [1, 2, 4, 8]; pipeline_parallel = [1, 2];"
  echo "  micro_batch_size = [$L]; virtual_pipeline = [$L];"
  echo "  recompute = [\"full\"]; recompute_num_layers = [$L];"
  echo "  activation_offload_layers = [$L]; };"
} >"$T/vast.conf"
expect "plan of a grid of 8.6 x 10^9 layouts is refused" 78 timeout 20 \
	"$PT" plan "$T/vast.conf" -o "$T/vast"
has "... saying how many it would check" \
	"the search would check [0-9.e+]* layouts one by one" "$T/err"
[ ! -e "$T/vast" ] && ok "... and writing nothing" ||
	ko "... and writing nothing"
# Lists whose product passes 2^64: the counts wrapped (to 0 here), so
# the check above passed and plan walked for days ("2994733056 of 0
# combinations (inf %)").  Counts saturate now, and it is refused at once.
{ echo 'name = "wrap"; nodes = 100000; gpus_per_node = 8; gpu = "b200";'
  echo 'model = { num_layers = 720720; hidden_size = 1024;'
  echo '  num_attention_heads = 16; vocab_size = 32000;'
  echo '  max_position_embeddings = 4096; num_experts = 720720; };'
  echo "seq_length = 4096; precision = \"fp8\"; global_batch_size = [$L];"
  echo 'search = { tensor_parallel = [1]; pipeline_parallel = [1];'
  echo '  expert_parallel = "auto"; virtual_pipeline = "auto";'
  echo "  expert_tensor_parallel = [$L]; micro_batch_size = [$L];"
  echo "  recompute = [\"full\"]; recompute_num_layers = [$L];"
  echo '  recompute_method = ["block", "uniform"];'
  echo "  activation_offload_layers = [$L];"
  for k in sequence_parallel distributed_optimizer fsdp \
	overlap_grad_reduce overlap_param_gather grad_reduce_in_bf16 \
	cuda_graphs tp_comm_overlap fp8_param_gather moe_grouped_gemm \
	moe_a2a_overlap cuda_graph_full_iteration; do
	echo "  $k = [false, true];"; done
  echo '  attention = ["flash", "unfused"];'
  echo '  fp8_recipe = ["delayed", "tensorwise", "mxfp8", "blockwise"];'
  echo '  cp_comm_type = ["p2p", "all_gather", "a2a", "a2a+p2p"];'
  echo '  moe_token_dispatcher = ["alltoall", "allgather", "flex",'
  echo '    "hybridep"]; };'
} >"$T/wrap.conf"
expect "plan of a grid of 2^64 combinations is refused at once" 78 \
	timeout 20 "$PT" plan "$T/wrap.conf" -o "$T/wrap"
has "... as one that checks too many layouts" \
	"the search would check [0-9.e+]* layouts one by one (of more than" \
	"$T/err"
[ ! -e "$T/wrap" ] && ok "... and writing nothing" ||
	ko "... and writing nothing"
# The same past 2^63 where tp, pp and cp rule every layout out: the
# counts went negative ("all -9079256848778919936 combinations were
# removed").  It is refused before the walk.
sed -e 's/^name = "wrap"; nodes = 100000;/name = "wrap2"; nodes = 8;/' \
    -e 's/tensor_parallel = \[1\]/tensor_parallel = [3, 5]/' \
    -e 's/num_layers = 720720/num_layers = 64/' \
    -e 's/num_experts = 720720/num_experts = 64/' \
    -e "s/virtual_pipeline = \"auto\"/virtual_pipeline = [$L]/" \
    -e "s/expert_parallel = \"auto\"/expert_parallel = [$L]/" \
	"$T/wrap.conf" >"$T/wrap2.conf"
expect "plan of lists past 2^63 that tp rules out is refused" 78 \
	timeout 20 "$PT" plan "$T/wrap2.conf" -o "$T/wrap2"
has "... as too many to count" "multiply to more than [0-9]* combinations" \
	"$T/err"
hasnt "... with no negative count" " -[0-9]" "$T/err"
# A legal hidden_size gave a default ffn_hidden_size (4h, or SwiGLU's
# 8h/3) past ffn_hidden_size's own range: plan froze 16777220 into
# campaign.conf and no command could read the directory back.
for h in 4194305 4194304; do
	{ echo "name = \"ffn$h\"; nodes = 1; gpus_per_node = 1;"
	  echo 'gpu = "h100-sxm"; global_batch_size = 1;'
	  echo "model = { num_layers = 1; hidden_size = $h;"
	  echo '  num_attention_heads = 1; vocab_size = 8;'
	  echo '  max_position_embeddings = 2048; };'
	} >"$T/ffn$h.conf"
done
expect "plan of a hidden_size whose 4h is past ffn_hidden_size's range" 78 \
	"$PT" plan "$T/ffn4194305.conf" -o "$T/ffn4194305"
has "... is refused, naming hidden_size" \
	"hidden_size 4194305 gives ffn_hidden_size 16777220 (4 times it)" \
	"$T/err"
sed 's/max_position_embeddings = 2048;/& swiglu = true;/' \
	"$T/ffn4194305.conf" >"$T/ffn-swiglu.conf"
sed -i 's/hidden_size = 4194305/hidden_size = 16777216/' "$T/ffn-swiglu.conf"
expect "... and SwiGLU's 8h/3 too" 78 \
	"$PT" plan "$T/ffn-swiglu.conf" -o "$T/ffn-swiglu"
has "... saying so" "gives ffn_hidden_size 44739200 (SwiGLU's" "$T/err"
expect "plan of the largest hidden_size whose 4h is in range" 0 \
	"$PT" plan "$T/ffn4194304.conf" -o "$T/ffn4194304"
expect "... reads back" 0 "$PT" list "$T/ffn4194304"
for f in campaign.conf candidates.csv state journal.log plan.txt; do
	[ -f "$T/demo/$f" ] && ok "plan wrote $f" || ko "plan wrote $f"
done
has "candidates.csv header" \
	"^rank,name,tp,pp,cp,ep,etp,vp,mbs,gbs,dp,recompute,recompute_layers,est_memory_gib,memory_status,pred_step_s,pred_tflops_per_gpu,pred_mfu,base,recompute_method,sequence_parallel,distributed_optimizer,attention,account_for_embedding_in_pipeline_split,account_for_loss_in_pipeline_split,fp8_recipe,fp8_param_gather,cuda_graphs,tp_comm_overlap,overlap_grad_reduce,overlap_param_gather,fsdp,cp_comm_type,moe_grouped_gemm,offload_layers,decoder_first_pipeline_num_layers,decoder_last_pipeline_num_layers,recompute_modules,grad_reduce_in_bf16,moe_token_dispatcher,moe_a2a_overlap,cuda_graph_full_iteration,pipeline_layout,fp8_dot_product_attention,pred_step_s_low,pred_step_s_high$" \
	"$T/demo/candidates.csv"
[ "$(awk -F, 'NR > 1 && $19 == 1' "$T/demo/candidates.csv" | wc -l)" = 1 ] &&
	ok "one base" || ko "one base"
# The switches: sequence parallel where tp > 1 (search.sequence_parallel
# auto), what does not apply left empty (bf16: no FP8 recipe; selective
# recompute: no method; cp 1: no CP communication type; an even pipeline:
# no first or last stage count, nor a pipeline layout; bf16: no FP8
# attention; selective recompute's modules: core_attn, Megatron-LM's
# default); the interval around pred_step_s.
bad=$(awk -F, 'NR > 1 && (NF != 46 || $39 != 0 || $40 != "alltoall" ||
	$41 != 0 || $42 != 0 || $43 != 0 || !($45 < $16 && $16 < $46) ||
	$21 != ($3 > 1) || $22 != 1 ||
	$23 != "flash" || $20 $26 $27 $33 $36 $37 $44 != "" ||
	$38 != "core_attn") { print $2 }' \
	"$T/demo/candidates.csv")
[ -z "$bad" ] && ok "each row's switches" || ko "each row's switches: $bad"
# Searched switches: the columns say what the name's tokens say.
expect "plan searching three switches" 0 "$PT" -q plan "$CAMPAIGN" \
	-o "$T/sw" -s 'search.cuda_graphs=[true,false]' \
	-s 'search.fsdp=[true,false]' -s 'search.distributed_optimizer=[true,false]'
bad=$(awk -F, 'NR > 1 { n++ }
	NR > 1 && $2 !~ ("_do_" $22 "_cg_" $28 "_fsdp_" $32 "$") { print $2 }
	END { if (n < 8) print n " rows" }' "$T/sw/candidates.csv")
[ -z "$bad" ] && ok "searched switches agree with the names" ||
	ko "searched switches agree with the names: $bad"
n=$(ls "$T/demo/runs" | wc -l)
[ "$n" = 16 ] && ok "a run directory per candidate" || ko "runs: $n"
# Every recompute axis searched at once.  Block over a count of 0 and
# over a chunk's own count (8 layers a stage at pp 4) are one run, which
# was planned twice under one name: plan failed (73) making the second's
# run directory.  Each run is kept once, its job script its own.
expect "plan searching every recompute axis" 0 "$PT" -q plan "$CAMPAIGN" \
	-o "$T/rc" -s 'search.pipeline_parallel=[1,2,4]' \
	-s 'search.virtual_pipeline=[1,2]' \
	-s 'search.recompute=["none","selective","full"]' \
	-s 'search.recompute_num_layers=[0,1,2,4,8,16]' \
	-s 'search.recompute_method=["block","uniform"]' \
	-s 'search.recompute_modules=["core_attn","mlp","core_attn+mlp"]' \
	-s 'search.max_candidates=100000'
d=$(cut -d, -f2 "$T/rc/candidates.csv" | sort | uniq -d)
same "... names unique" "$d" ""
n=$(($(wc -l <"$T/rc/candidates.csv") - 1))
same "... a run directory per candidate" "$(ls "$T/rc/runs" | wc -l)" "$n"
d=$(for r in "$T"/rc/runs/*; do
	sed "s/${r##*/}//g" "$r/job.sbatch" | cksum
done | sort | uniq -d)
same "... no two job scripts alike but for the name" "$d" ""
has "... the repeats counted without effect" \
	"recompute count/method: the same run as an earlier one" \
	"$T/rc/plan.txt"
# Uniform over 0 (each chunk one run) on two uneven stages, which leave
# no middle stage to take the run's length from, was rendered as
# --recompute-num-layers 0: Megatron-LM's uniform loop steps by the
# count and never ends.
expect "plan uniform 0 on two uneven stages" 0 "$PT" -q plan "$CAMPAIGN" \
	-o "$T/u0" -s 'search.pipeline_parallel=[2]' \
	-s 'search.decoder_first_pipeline_num_layers=[14]' \
	-s 'search.decoder_last_pipeline_num_layers=[18]' \
	-s 'search.recompute=["full"]' -s 'search.recompute_method=["uniform"]' \
	-s 'search.recompute_num_layers=[0]'
d=$(grep -l -- '--recompute-num-layers 14 ' "$T"/u0/runs/*pp_2*/job.sbatch |
	wc -l)
same "... in runs of the smaller stage's 14 layers" "$d" \
	"$(ls -d "$T"/u0/runs/*pp_2* | wc -l)"
check "... never a count of 0" \
	bash -c "! grep -q -- '--recompute-num-layers 0 ' $T/u0/runs/*/job.sbatch"
# Megatron-LM's dropout defaults to 0.1, which the estimate does not
# assume for a RoPE model and which CUDA graphs refuse under selective
# recompute: the Megatron-LM template says the model's own.
expect "plan an MoE campaign with the Megatron-LM template" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/qwen3-30b-a3b-b200.conf" -o "$T/drop" --force \
	-s 'run.template="megatron-lm"'
d=$(cat "$T"/drop/runs/*/job.sbatch | grep -c -- \
	'--attention-dropout 0.0 --hidden-dropout 0.0')
same "... every script without dropout (RoPE)" "$d" \
	"$(ls "$T/drop/runs" | wc -l)"
expect "plan a GPT-3 campaign with the Megatron-LM template" 0 "$PT" -q plan \
	"$CAMPAIGN" -o "$T/drop3" --force -s 'model="gpt3_1p3b"' \
	-s 'run.template="megatron-lm"'
d=$(cat "$T"/drop3/runs/*/job.sbatch | grep -c -- \
	'--attention-dropout 0.1 --hidden-dropout 0.1')
same "... every script with GPT-3's dropout" "$d" \
	"$(ls "$T/drop3/runs" | wc -l)"
# A base that differs from a candidate of its sizes only where names do
# not look (a switch set for the base and not searched) planned as a
# second candidate of that name: plan failed, exit 73, on its run
# directory.  So did an expert switch listed for a dense model.
for b in 'base.cuda_graphs=true' 'search.expert_tensor_parallel=[1]' \
	'search.moe_grouped_gemm=[true,false]'; do
	expect "plan with $b" 0 "$PT" -q plan "$CAMPAIGN" -o "$T/b" --force \
		-s "$b"
	d=$(awk -F, 'NR > 1 { print $2 }' "$T/b/candidates.csv" | sort |
		uniq -d)
	same "... every name once" "$d" ""
	[ "$b" = base.cuda_graphs=true ] || continue
	# The base (column 19) is the one with CUDA graphs (column 28).
	d=$(awk -F, 'NR > 1 && $19 == 1 { print ($2 ~ /_base$/) $28 }' \
		"$T/b/candidates.csv")
	same "... the base, with graphs, named apart" "$d" 11
done
for s in "$T"/demo/runs/*/job.sbatch; do
	bash -n "$s" || { ko "bash -n $s"; break; }
done && ok "every job script passes bash -n"
expect "plan refuses to overwrite" 73 "$PT" plan "$CAMPAIGN" -o "$T/demo"
has "... naming --force, and when it does not replace either" \
	"already exists (--force replaces it once none of its jobs is queued or running)" \
	"$T/err"
expect "plan --force replaces" 0 "$PT" -q plan "$CAMPAIGN" -o "$T/demo" --force
# A job still running: refused, and nothing written in the campaign it
# refuses (its home was, when none was there).
cp "$T/demo/state" "$T/state.planned"
sed '4s/state=planned/state=running/; 4s/attempt=0 job=0/attempt=1 job=4711/' \
	"$T/state.planned" >"$T/demo/state"
rm -f "$T/demo/home"
expect "plan --force over a running job is refused" 73 \
	"$PT" -q plan "$CAMPAIGN" -o "$T/demo" --force
has "... naming the job" "(job 4711, running); run 'paratune cancel" \
	"$T/err"
check "... writing nothing there" test ! -e "$T/demo/home"
cat "$T/state.planned" >"$T/demo/state"
# -q in one word with the command's own short options, as the help
# offers it "here or before the command": "-fq" was "unknown option '-q'".
expect "plan -fq: --force and --quiet" 0 "$PT" plan "$CAMPAIGN" -o "$T/demo" -fq
check "... prints nothing" test ! -s "$T/out"
# -q keeps a report and drops the rest (paratune(1), -q): list is run
# for its table, plan for its directory.
expect "-q list" 0 "$PT" -q list "$T/demo"
has "... still prints its table" "pred_step_s" "$T/out"
expect "-q estimate" 0 "$PT" -q estimate "$CAMPAIGN"
check "... still prints its estimate" test -s "$T/out"
# -o with a trailing slash names the directory, not a place inside it
# (the temporary directory went into the one not made yet).
expect "plan -o DIR/ (trailing slash)" 0 "$PT" -q plan "$CAMPAIGN" \
	-o "$T/slash/"
check "... makes DIR" test -f "$T/slash/state"
# --force into the directory "." names: replacing the working directory
# would leave the shell in a deleted one; DIR/. from outside is DIR.
mkdir "$T/empty-here"
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
expect "plan -o . -f inside the directory is refused" 73 sh -c \
	'cd "$1" && exec "$2" -q plan "$3" -o . -f' sh "$T/empty-here" \
	"$(abs "$PT")" "$(abs "$CAMPAIGN")"
has "... saying it holds the working directory" \
	"holds the working directory" "$T/err"
check "... leaving it empty" test -z "$(ls -A "$T/empty-here")"
expect "plan -o DIR/. -f replaces the empty DIR" 0 "$PT" -q plan \
	"$CAMPAIGN" -o "$T/empty-here/." -f
check "... which is now the campaign" test -f "$T/empty-here/state"
# Root plans only where no other user can rename or plant what it writes
# beside and removes: in a user's directory, --force's removal of the old
# campaign could be led by a link the user swaps in to root's files.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 &&
	command -v setpriv >/dev/null; then
	chmod 711 "$T"
	install -d -o nobody "$T/nob"
	expect "a user plans in their directory" 0 setpriv --reuid=nobody \
		--regid="$(id -g nobody)" --clear-groups env HOME=/nonexistent \
		"$(abs "$PT")" -q plan "$(abs "$CAMPAIGN")" -o "$T/nob/c"
	expect "root's plan --force over it is refused" 77 "$PT" -q plan \
		"$CAMPAIGN" -o "$T/nob/c" --force
	has "... naming the user's directory" \
		"reached through '$T/nob', which belongs to nobody" "$T/err"
	check "... and the user's campaign is kept" sh -c \
		"test -f '$T/nob/c/state' && test \"\$(stat -c %U '$T/nob/c')\" = nobody"
	expect "root's plan into the user's directory is refused" 77 "$PT" -q \
		plan "$CAMPAIGN" -o "$T/nob/new"
	check "... and makes nothing there" test ! -e "$T/nob/new"
	# A campaign of root's reached through the user's directory: the
	# user could point that path at a directory of theirs once root
	# checked it, so root does not work on it with its own rights.
	"$PT" -q plan "$CAMPAIGN" -o "$T/rootc" && mv "$T/rootc" "$T/nob/rootc"
	expect "root's status of its campaign inside a user's directory" 77 \
		"$PT" status "$T/nob/rootc"
	has "... naming the user's directory" \
		"reached through '$T/nob', which belongs to nobody" "$T/err"
	# A directory of root's that every user can write, without the
	# sticky bit: any of them can rename what is in it.
	mkdir "$T/shared" && chmod 777 "$T/shared"
	expect "root's plan into a directory every user can write" 77 \
		"$PT" -q plan "$CAMPAIGN" -o "$T/shared/c"
	has "... saying why" \
		"reached through '$T/shared', which can be changed by its group or every user" \
		"$T/err"
	chmod 1777 "$T/shared"
	expect "... but with the sticky bit, as /tmp has, it plans" 0 \
		"$PT" -q plan "$CAMPAIGN" -o "$T/shared/c"
	# Root acts as a campaign's owner only along a path that no third
	# user can turn: with daemon's link to nobody's campaign, daemon
	# could show root nobody's campaign, then hand the child (acting as
	# nobody) a directory of daemon's to write what it read into.
	if id daemon >/dev/null 2>&1; then
		ln -s "$T/nob/c" "$T/dlink" && chown -h daemon "$T/dlink"
		expect "root's list through a third user's link is refused" 77 \
			"$PT" list "$T/dlink"
		has "... naming the link's owner and the campaign's" \
			"'$T/dlink' belongs to daemon (uid [0-9]*), not to the campaign's owner nobody" \
			"$T/err"
		chown -h nobody "$T/dlink"
		expect "... the owner's own link is followed" 0 "$PT" list \
			"$T/dlink"
		install -d -o daemon "$T/dd"
		ln -s "$T/nob/c" "$T/dd/c"
		expect "root's list through a third user's directory is refused" \
			77 "$PT" list "$T/dd/c"
		has "... naming that directory" \
			"reached through '$T/dd', which belongs to daemon" "$T/err"
		expect "... as is resume, before any Slurm call" 77 \
			env SLURM_CONF=/nonexistent "$PT" -q resume "$T/dd/c"
		# A group-writable directory of the owner's: refused when
		# its group is shared, taken as the owner's when it is the
		# owner's own (user private groups, umask 002).
		install -d -o nobody -g daemon -m 775 "$T/gw"
		ln -s "$T/nob/c" "$T/gw/c" && chown -h nobody "$T/gw/c"
		expect "root's list through a directory a group can write" 77 \
			"$PT" list "$T/gw/c"
		has "... saying so" \
			"reached through '$T/gw', which its group or every user can change" \
			"$T/err"
		# nobody's primary group (nogroup) lists no member, as a
		# "users" group that every user has as primary lists none;
		# it is no user's private group, so it is refused too.
		chgrp "$(id -g nobody)" "$T/gw"
		if [ "$(id -gn nobody)" != nobody ]; then
			expect "... and so is a primary group not named after its owner" \
				77 "$PT" list "$T/gw/c"
		fi
		# daemon's private group (named after it, its primary
		# group alone): a group-writable directory of daemon's
		# holds daemon's campaign.
		if [ "$(id -gn daemon)" = daemon ] &&
			[ -z "$(getent group daemon | cut -d: -f4)" ] &&
			[ "$(getent passwd | awk -F: -v g="$(id -g daemon)" \
				'$4 == g' | wc -l)" = 1 ]; then
			install -d -o daemon -g daemon -m 775 "$T/dgw"
			"$PT" -q plan "$CAMPAIGN" -o "$T/dgw-c" &&
				mv "$T/dgw-c" "$T/dgw/c" &&
				chown -R daemon:daemon "$T/dgw/c"
			expect "... but its owner's private group is" 0 \
				"$PT" -q list "$T/dgw/c"
		fi
	fi
	# Root reads no campaign file, @include, template or log that
	# another user can change or point at root's files.
	cp "$CAMPAIGN" "$T/nob/own.conf" && chown nobody "$T/nob/own.conf"
	printf 'secret = "root-only";\n' >"$T/secret.conf"
	chmod 600 "$T/secret.conf"
	ln -s "$T/secret.conf" "$T/nob/linked.conf"
	for c in config estimate; do
		expect "root's $c of a user's campaign file is refused" 77 \
			"$PT" "$c" "$T/nob/own.conf"
		has "... naming the user's directory" \
			"reached through '$T/nob', which belongs to nobody" "$T/err"
	done
	expect "root's plan of a user's campaign file is refused" 77 \
		"$PT" -q plan "$T/nob/own.conf" -o "$T/from-user"
	check "... and makes nothing" test ! -e "$T/from-user"
	expect "root's config of a user's link to root's file is refused" 77 \
		"$PT" config "$T/nob/linked.conf"
	hasnt "... showing nothing of it" "root-only" "$T/out"
	{ cat "$CAMPAIGN"; echo '@include "nob/own.conf"'; } >"$T/inc.conf"
	expect "root's campaign including a user's file is refused" 77 \
		"$PT" config "$T/inc.conf"
	has "... naming the @include's line" \
		"inc.conf:$(($(wc -l <"$CAMPAIGN") + 1)): not including 'nob/own.conf'" \
		"$T/err"
	cp -r "$SRC/templates" "$T/nob/tpl" && chown -R nobody "$T/nob/tpl"
	# 77, as for any file root refuses to read (it was 78: a
	# template error).
	expect "root's plan with a user's templates is refused" 77 env \
		PARATUNE_TEMPLATES="$T/nob/tpl" "$PT" -q plan "$CAMPAIGN" \
		-o "$T/user-tpl"
	has "... naming the template's way" \
		"tpl/.*reached through '$T/nob', which belongs to nobody" "$T/err"
	printf 'iteration 1/ 10 | elapsed time per iteration (ms): 5.0\n' \
		>"$T/secret.log"
	chmod 600 "$T/secret.log"
	ln -s "$T/secret.log" "$T/nob/slurm-1.out"
	mkfifo "$T/nob/slurm-2.out"
	chown -h nobody "$T/nob/slurm-1.out" "$T/nob/slurm-2.out"
	expect "root's parse of a user's link to root's log is refused" 77 \
		"$PT" parse "$T/nob/slurm-1.out"
	has "... which is not read" "(unreadable)" "$T/out"
	expect "root's parse of a user's FIFO is refused, not waited on" 77 \
		timeout 20 "$PT" parse "$T/nob/slurm-2.out"
	expect "root's watch of a user's log is refused" 77 timeout 20 \
		"$PT" watch "$T/nob/slurm-1.out" --timeout 1
	# A name missing while root checks a path, where other users
	# could make it (/tmp): it could be theirs by the time root opens
	# it, as a user's directory renamed away and back would be.
	expect "root's parse of a missing name in a shared directory" 77 \
		"$PT" parse "$T/shared/gone/slurm-1.out"
	has "... saying others could create it" \
		"reached through '$T/shared/gone', which does not exist and which other users could create" \
		"$T/err"
	expect "... where only root can make it, only not found" 66 \
		"$PT" parse "$T/gone/slurm-1.out"
	# Root's output through a user's link to root's directory.
	mkdir -m 700 "$T/rootonly"
	ln -s "$T/rootonly" "$T/nob/out" && chown -h nobody "$T/nob/out"
	expect "root's plan -o through a user's link is refused" 77 \
		"$PT" -q plan "$CAMPAIGN" -o "$T/nob/out/x"
	has "... naming the user's directory" \
		"reached through '$T/nob', which belongs to nobody" "$T/err"
	expect "... as is watch -o, before watching" 77 timeout 20 \
		"$PT" watch "$T/secret.log" --timeout 1 -o "$T/nob/out/v"
	check "... and nothing is made in root's directory" \
		test -z "$(ls -A "$T/rootonly")"
	expect "... root's own log is parsed" 0 "$PT" parse "$T/secret.log"
fi
expect "the frozen campaign plans the same" 0 "$PT" -q plan \
	"$T/demo/campaign.conf" -o "$T/again"
if cut -d, -f2 "$T/demo/candidates.csv" | cmp -s - \
	"$(cut -d, -f2 "$T/again/candidates.csv" >"$T/n2"; echo "$T/n2")"; then
	ok "same candidates from the frozen campaign"
else ko "same candidates from the frozen campaign"; fi
expect "list" 0 "$PT" list "$T/demo" --format json
json "list JSON parses"
[ "$(jget 0.rank)" = 1 ] && ok "list ranks from 1" || ko "list ranks from 1"
# plan printed its unrounded step time to three decimals, list the
# four-decimal one of candidates.csv: 2.935 against 2.936.
"$PT" plan "$CAMPAIGN" -o "$T/agree" | awk '$2 == "safe" || $2 == "oom-risk" {
	print $1, $5 }' >"$T/plan.steps"
"$PT" list "$T/agree" --format json | python3 -c 'import json,sys
for c in json.load(sys.stdin):
    print(c["rank"], "%.3f" % c["pred_step_s"])' >"$T/list.steps"
check "plan and list print the same step times" \
	cmp -s "$T/plan.steps" "$T/list.steps"
expect "list of a missing directory" 66 "$PT" list "$T/none"
# At risk, the nearest to fitting first: Llama 3 70B on one node of
# H100 fits nowhere, and by time alone rank 1 was a layout far over.
sed 's/^model = .*/model = "llama3_70b";/; s/^nodes = .*/nodes = 1;/' \
	"$CAMPAIGN" >"$T/nofit.conf"
expect "plan a campaign where nothing fits" 0 "$PT" plan "$T/nofit.conf" \
	-o "$T/nofit"
has "... its base is the best of none safe" "none is safe" "$T/out"
check "... every candidate at risk" test "$(awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["memory_status"] != "oom-risk" { n++ } END { print n + 0 }' \
	"$T/nofit/candidates.csv")" = 0
check "... ranked by predicted memory, the least first" sh -c "awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
	{ print \$c[\"est_memory_gib\"] }' '$T/nofit/candidates.csv' |
	sort -c -g"
check "... over more than one distinct memory" test "$(awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ m[$c["est_memory_gib"]] = 1 } END { print length(m) }' \
	"$T/nofit/candidates.csv")" -gt 10
expect "status of a fresh plan" 0 "$PT" status "$T/demo"
has "status shows planned" "planned" "$T/out"
expect "submit --dry-run" 0 "$PT" submit "$T/demo" --dry-run --top 2
has "dry run names the base" "(base)" "$T/out"
# The example MoE campaign: NVIDIA's own layout for Qwen3 30B-A3B on 8
# B200 (Megatron-Bridge's performance configs: ep 8, mbs 4, MXFP8,
# hybridep, per-layer graphs, no recompute) is a safe candidate.
expect "plan the example MoE campaign" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/qwen3-30b-a3b-b200.conf" -o "$T/moe"
same "... NVIDIA's recipe is a safe candidate" "$(awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["tp"] == 1 && $c["pp"] == 1 && $c["ep"] == 8 && $c["mbs"] == 4 &&
	$c["fp8_recipe"] == "mxfp8" && $c["moe_token_dispatcher"] == "hybridep" &&
	$c["cuda_graphs"] == 1 && $c["recompute"] == "none" { print $c["memory_status"] }
	' "$T/moe/candidates.csv")" safe
# The summary's count of each rule that left combinations out stands in
# one column: a rule name over 44 columns pushed its count out of it
# ("... need ep*etp > 1 16" under "... layers % (pp*vp)         1664").
expect "plan it again, its summary shown" 0 "$PT" plan \
	"$SRC/etc/campaigns/qwen3-30b-a3b-b200.conf" -o "$T/moe2"
check "... with a count of each rule, every one in the same column" awk '
	/^  (invalid|no effect|removed): / { n++; w[length($0)] = 1 }
	END { k = 0; for (x in w) k++; exit !(n >= 3 && k == 1) }' "$T/out"
# Its base ranks first: --top 1 is the base alone (it selected the first
# two, the base taking no place of the N).
expect "submit --top 1 where the base ranks first" 0 "$PT" submit \
	"$T/moe" --dry-run --top 1
has "... selects one candidate" "^selecting 1 candidate:" "$T/out"
has "... the base" "^would queue .* (base)$" "$T/out"
expect "submit --top 3 there" 0 "$PT" submit "$T/moe" --dry-run --top 3
has "... selects three" "^selecting 3 candidates:" "$T/out"
# Where the base ranks below the N, it is the N + 1st, which said
# "selecting 9 candidates" to --top 8 without a word of why.
expect "submit --top 1 where the base ranks lower" 0 "$PT" submit \
	"$T/demo" --dry-run --top 1
has "... selects it and says why two" \
	"^selecting 2 candidates (1 best predicted and the base, which always runs):" \
	"$T/out"
# cancel waits for the lock a submit or resume holds; it waited without
# a word, which looked like a hang.
if command -v flock >/dev/null; then
	cp -r "$T/demo" "$T/lockwait" && rm "$T/lockwait/home"
	flock "$T/lockwait/.lock" sleep 2 &
	sleep 0.5
	expect "cancel while another holds the lock waits, then goes on" 0 \
		env SLURM_CONF=/nonexistent "$PT" cancel "$T/lockwait"
	has "... saying what it waits for" \
		"waiting for '.*lockwait/.lock': another paratune is working" \
		"$T/err"
	wait
	# The campaign replaced while cancel waits (plan --force): the
	# lock it then gets is the old directory's, which a newcomer to
	# the new one does not see.  It takes the new one's, and waits
	# for that one's holder too.
	flock "$T/lockwait/.lock" sleep 2 &
	sleep 0.3
	env SLURM_CONF=/nonexistent "$PT" cancel "$T/lockwait" \
		>"$T/out" 2>"$T/err2" &
	cpid=$!
	sleep 0.5
	mv "$T/lockwait" "$T/lockwait.old" && cp -r "$T/lockwait.old" "$T/lockwait"
	flock "$T/lockwait/.lock" sleep 3 &
	wait "$cpid"
	check "cancel over a campaign replaced while it waited: exit 0" \
		test $? = 0
	same "... it waited for the new campaign's lock too" \
		"$(grep -c "waiting for '.*lockwait/.lock'" "$T/err2")" 2
	wait
fi
# A full file system under the campaign: submitting went on, every job
# wrote an empty log and failed.  Nothing is submitted there now (74,
# before Slurm is asked: 75 would say it was).  Root mounts a small
# tmpfs where it may; elsewhere the check is skipped.
mkdir "$T/tiny"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=8m tmpfs "$T/tiny" 2>/dev/null
then
	"$PT" -q plan "$CAMPAIGN" -o "$T/tiny/c"
	expect "submit on a file system with 8 MiB free" 74 \
		env SLURM_CONF=/nonexistent "$PT" submit "$T/tiny/c" --top 1
	has "... saying why, before Slurm is asked" \
		"the run directory '.*tiny/c/runs/.*' has [0-9.]* MiB free, under 64: not submitting" \
		"$T/err"
	check "... and nothing is queued as submitted" \
		test -z "$(grep ' submitted ' "$T/tiny/c/journal.log")"
	umount "$T/tiny"
fi
# status --watch redraws its progress line with "\r ESC[K", which
# clears one row: a line wider than the terminal wrapped, and each
# redraw left the rows above behind.  On a 40-column terminal it fits in
# 39.  ptywidth CMD...: the redrawn lines' count and widest width.
ptywidth() {
	python3 - "$@" <<'PY'
import os, pty, sys, time, fcntl, termios, struct, select, signal
try:
    pid, fd = pty.fork()
except OSError:
    print('skip')  # no pseudo-terminal here
    sys.exit(0)
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 40, 0, 0))
    os.execvp(sys.argv[1], sys.argv[1:])
out = b''
end = time.time() + 2.5
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            out += os.read(fd, 65536)
        except OSError:
            break
os.kill(pid, signal.SIGTERM)
os.waitpid(pid, 0)
segs = [s for s in out.replace(b'\x1b[K', b'').split(b'\r') if s.strip()]
segs = [x.split(b'\r')[0].split(b'\n')[0] for x in out.split(b'\r\x1b[K')[1:]]
print(len(segs), max((len(x.decode('utf-8', 'replace')) for x in segs), default=-1))
PY
}
set -- $(ptywidth "$PT" status "$T/demo" --watch --interval 1)
[ "$1" = skip ] ||
	check "status --watch on a 40-column terminal: its line fits ($*)" \
		test "${1:-0}" -ge 1 -a "${2:-99}" -le 39
# A state that became unreadable ended --watch with its error glued to
# the progress line ("...Slurm not polled yeterror: ...").  ptyerror DIR
# CMD...: once CMD drew a line, DIR/state is spoiled; prints the exit
# status and what came before the error on its line.
ptyerror() {
	python3 - "$@" <<'PY'
import os, pty, sys, time, select
state = os.path.join(sys.argv[1], "state")
try:
    pid, fd = pty.fork()
except OSError:
    print('skip')  # no pseudo-terminal here
    sys.exit(0)
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
out, spoiled, end = b'', False, time.time() + 10
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    if not spoiled and b'\x1b[K' in out:
        with open(state, 'w') as f:
            f.write('garbage\n')
        spoiled = True
_, st = os.waitpid(pid, 0)
line = out[:out.find(b'error:')].replace(b'\r\x1b[K', b'\n')
print(os.waitstatus_to_exitcode(st), repr(line.split(b'\n')[-1].strip()))
PY
}
# With every selected candidate queued already, the dry run printed
# nothing at all.
cp -r "$T/demo" "$T/queued" && rm "$T/queued/home"
SLURM_CONF=/nonexistent "$PT" -q submit "$T/queued" --top 2 2>/dev/null
expect "submit --dry-run with all selected queued" 0 \
	"$PT" submit "$T/queued" --dry-run --top 2
has "... says so" "would queue 0 candidates (all selected ones already were)" \
	"$T/out"
# (Queued: --watch goes on until the state is spoiled.)
cp -r "$T/queued" "$T/spoiled"
set -- $(ptyerror "$T/spoiled" "$PT" status "$T/spoiled" --watch --interval 1)
[ "$1" = skip ] ||
	check "status --watch whose state is spoiled: 65, its error on a line of its own ($*)" \
		test "$*" = "65 b''"
# A job of 5 s on 32 GPUs spent 0.04 GPU-hours: it printed "0.0
# GPU-hours spent", beside "1 %" of what running every one would take.
cp -r "$T/queued" "$T/short" && rm "$T/short/home"
awk '$2 == "state=queued" && !done { $2 = "state=completed"; done = 1
	sub(/ attempt=0 job=0 /, " attempt=1 job=4400 ")
	sub(/ start=0 end=0 /, " start=1000 end=1005 ") } { print }' \
	"$T/short/state" >"$T/short/state.new" &&
	mv "$T/short/state.new" "$T/short/state"
expect "status after a 5 s job" 0 "$PT" status "$T/short"
has "... spent 0.04 GPU-hours" "; 0.04 GPU-hours spent" "$T/out"
expect "results after it" 0 "$PT" results "$T/short"
has "... the same" "^search: 0.04 GPU-hours spent" "$T/out"
# A job that a signal ended (scancel's SIGTERM) showed exit 0, as if it
# had succeeded: sacct's 0:15.
cp -r "$T/queued" "$T/killed" && rm "$T/killed/home"
awk '$2 == "state=queued" && !done { $2 = "state=cancelled"; done = 1
	sub(/ attempt=0 job=0 exit=0 signal=0 /,
	    " attempt=1 job=4401 exit=0 signal=15 ") } { print }' \
	"$T/killed/state" >"$T/killed/state.new" &&
	mv "$T/killed/state.new" "$T/killed/state"
expect "status after a job a signal ended" 0 "$PT" status "$T/killed"
check "... shows exit:signal as sacct does" awk '
	$2 == "cancelled" && $4 == 4401 { found = ($8 == "0:15") }
	END { exit !found }' "$T/out"
expect "status --format json of it" 0 "$PT" status "$T/killed" --format json
sig=$(python3 -c 'import json,sys
print(*[c["exit_signal"] for c in json.load(open(sys.argv[1]))["candidates"] if c["job_id"] == 4401])' \
	"$T/out" 2>&1)
same "... gives its exit_signal" "$sig" "15"
# Queued candidates wait for resume: status did not say so.
expect "status of queued candidates" 0 "$PT" status "$T/queued"
has "... says what submits them" \
	"^3 queued: only 'paratune resume $T/queued' submits them" "$T/out"
# No job has ended, so JSON has no exit code either: it said 0 for each
# queued candidate where the table shows "-".
expect "status --format json of queued candidates" 0 \
	"$PT" status "$T/queued" --format json
exits=$(python3 -c 'import json,sys
print(*sorted({repr(c["exit_code"]) for c in json.load(open(sys.argv[1]))["candidates"]}))' \
	"$T/out" 2>&1)
same "... gives exit_code null" "$exits" "None"
# "nodes" was the allocation here and a count in results' JSON; an
# empty reason was "" here and null there.
keys=$(python3 -c 'import json,sys
c = json.load(open(sys.argv[1]))["candidates"][0]
print("nodes" in c, repr(c["nodelist"]), repr(c["reason"]))' "$T/out" 2>&1)
same "... nodelist null, no 'nodes', reason null" "$keys" "False None None"
# Cancelled before any submission (the two and the base): no job, so no
# exit code (it said 0).
cp -r "$T/queued" "$T/never" && rm "$T/never/home"
SLURM_CONF=/nonexistent "$PT" -q cancel "$T/never" 2>/dev/null
expect "status after cancelling what was never submitted" 0 \
	"$PT" status "$T/never"
check "... shows no exit code for it" awk '
	$2 == "cancelled" { n++; if ($3 != 0 || $6 != "-") bad = 1 }
	END { exit !(n == 3 && !bad) }' "$T/out"
has "... counts them cancelled, not failed" \
	"0 failed of 3 selected (13 not selected); 3 cancelled" "$T/out"
has "... the search stopped by cancel" \
	"stopped: cancelled (a cancel ended some of its jobs" "$T/out"
expect "status --format json of them" 0 "$PT" status "$T/never" --format json
exits=$(python3 -c 'import json,sys
print(*sorted({repr(c["exit_code"]) for c in json.load(open(sys.argv[1]))["candidates"]}))' \
	"$T/out" 2>&1)
same "... gives exit_code null, as the table its -" "$exits" "None"
expect "results of it" 0 "$PT" results "$T/never"
has "... no failure, nothing run" "0 failed, 0 in progress, 16 not run" \
	"$T/out"
has "... says it was cancelled" "cancelled before any job started" "$T/out"
hasnt "... and not that Slurm recorded a job" "Slurm recorded" "$T/out"
expect "submit again after the cancel" 0 "$PT" submit "$T/never" --top 2 \
	--dry-run
has "... says the cancelled ones are not queued again" \
	"^3 selected candidates were cancelled and are not queued again" \
	"$T/out"
# A second cancel has nothing left to cancel: it printed nothing.
expect "cancel of a cancelled campaign" 0 env SLURM_CONF=/nonexistent \
	"$PT" cancel "$T/never"
has "... says there is nothing to cancel" "^nothing to cancel: " "$T/out"
# Jobs cancelled in Slurm (scancel), not by paratune cancel: the stop
# said "paratune cancel ended what was queued or running".
cp -r "$T/queued" "$T/scancel" && rm "$T/scancel/home"
awk '$2 == "state=queued" { $2 = "state=cancelled"; n++
	sub(/ attempt=0 job=0 /, " attempt=1 job=" 4300 + n " ") } { print }' \
	"$T/scancel/state" >"$T/scancel/state.new" &&
	mv "$T/scancel/state.new" "$T/scancel/state"
expect "status after scancel of every job" 0 "$PT" status "$T/scancel"
has "... says a cancel stopped it" "stopped: cancelled (a cancel ended" \
	"$T/out"
hasnt "... not that paratune cancel did" "paratune cancel ended" "$T/out"

# A submit after the adaptive search stopped: what it selects is
# skipped, never submitted, yet it said "at most 5.3 GPU-hours".
cp -r "$T/demo" "$T/stopped" && rm "$T/stopped/home"
sed '/^journal /a stopped no_gain' "$T/stopped/state" >"$T/stopped/state.new" &&
	mv "$T/stopped/state.new" "$T/stopped/state"
expect "submit --dry-run after the search stopped" 0 \
	"$PT" submit "$T/stopped" --dry-run --top 2
has "... says the search skips them" \
	"selecting 3 candidates, which the search skips: it stopped (no_gain)" \
	"$T/out"
hasnt "... commits no GPU-hours" "GPU-hours" "$T/out"
expect "submit after the search stopped" 0 env SLURM_CONF=/nonexistent \
	"$PT" submit "$T/stopped" --top 2
has "... nothing is submitted" "nothing is submitted" "$T/out"
expect "... status" 0 "$PT" status "$T/stopped"
has "... shows them skipped" "; 3 skipped; search stopped: no_gain" "$T/out"

# A budget below one job's limit: the search skips everything before
# any job starts, and results said "submit the campaign first".
expect "plan with limits.gpu_hours below one job" 0 "$PT" -q plan \
	"$CAMPAIGN" -o "$T/poor" --set limits.gpu_hours=1
expect "... submit" 0 env SLURM_CONF=/nonexistent \
	"$PT" submit "$T/poor" --top 2
has "... the search stops for the budget" \
	"search stopped (budget): 3 candidates skipped" "$T/out"
has "... saying why in numbers" \
	"budget: 0.0 of 1 GPU-hours used (limits.gpu_hours); a job may take 2.7 at its time limit" \
	"$T/out"
has "... and what to do" "not one job fits: plan again with a larger limits.gpu_hours" \
	"$T/out"
expect "... results" 0 "$PT" results "$T/poor"
has "... says the search stopped before any job started" \
	"no candidate was run: the search stopped before any job started (budget: " \
	"$T/out"
hasnt "... not to submit it" "submit the campaign first" "$T/out"

# resume of two campaigns planned from one file: their lines name the
# same candidates, so each directory's lines follow its name.
for d in r1 r2; do
	cp -r "$T/queued" "$T/$d" && rm "$T/$d/home"
	sed '/^journal /a stopped no_gain' "$T/$d/state" >"$T/$d/state.new" &&
		mv "$T/$d/state.new" "$T/$d/state"
done
expect "resume of two directories" 0 env SLURM_CONF=/nonexistent \
	"$PT" resume "$T/r1" "$T/r2"
check "... names each before its lines" awk -v a="$T/r1:" -v b="$T/r2:" '
	$0 == a { n = 1; next } $0 == b { n = 2; next }
	/^search stopped \(/ { seen[n]++ }
	END { exit !(seen[1] == 1 && seen[2] == 1) }' "$T/out"
expect "resume -q of two directories" 0 env SLURM_CONF=/nonexistent \
	"$PT" -q resume "$T/r1" "$T/r2"
check "... prints nothing" test ! -s "$T/out"
# resume with nothing to do printed nothing at all: a campaign never
# submitted waited for ever on its crontab line, and one finished
# earlier looked like a resume that had done nothing.  Cron's -q stays
# silent.
expect "resume of a campaign that finished earlier" 0 \
	env SLURM_CONF=/nonexistent "$PT" resume "$T/r1"
has "... says so and where its results are" \
	"^$T/r1: finished earlier, nothing to do ('paratune results $T/r1'" \
	"$T/out"
"$PT" -q plan "$CAMPAIGN" -o "$T/idle" >/dev/null 2>&1
expect "resume of a campaign never submitted" 0 \
	env SLURM_CONF=/nonexistent "$PT" resume "$T/idle"
has "... says that submit selects what runs" \
	"^$T/idle: nothing to do: no candidate is selected yet ('paratune submit $T/idle'" \
	"$T/out"
expect "... and under -q" 0 env SLURM_CONF=/nonexistent \
	"$PT" -q resume "$T/idle" "$T/r1"
check "... prints nothing" test ! -s "$T/out"
# submit again, the same selection, after the campaign has ended: "all
# selected ones already were" (queued) read as if they waited still.
expect "submit again after the campaign has ended" 0 \
	env SLURM_CONF=/nonexistent "$PT" submit "$T/r1" --top 2
has "... says they have ended" \
	"^queued 0 candidates (all selected ones already were, and have ended: 'paratune results $T/r1'" \
	"$T/out"
expect "status of a campaign never submitted" 0 "$PT" status "$T/idle"
has "... says that submit selects what runs" \
	"^nothing selected yet: 'paratune submit $T/idle' selects candidates" \
	"$T/out"
# A directory name is the user's (root's cron globs users' directories):
# its control characters are spelled out, not sent to the terminal.
esc=$(printf 'r\033[2Jx')
cp -r "$T/r1" "$T/$esc" && rm "$T/$esc/home"
expect "resume of a directory whose name holds an escape" 0 \
	env SLURM_CONF=/nonexistent "$PT" resume "$T/r1" "$T/$esc"
has "... names it spelled out" '/r\\x1b\[2Jx:$' "$T/out"
check "... and no escape reaches the output" \
	sh -c "! grep -q \"$(printf '\033')\" '$T/out'"

# A cancel that cannot reach Slurm (a job of the campaign pending) exits
# 75 and said only "cannot reach Slurm": whether anything was cancelled,
# and what to do, was left open.
cp -r "$T/queued" "$T/pend" && rm "$T/pend/home"
awk '$2 == "state=queued" && !done { $2 = "state=pending"
	sub(/ attempt=0 job=0 /, " attempt=1 job=4242 "); done = 1 } { print }' \
	"$T/pend/state" >"$T/pend/state.new" && mv "$T/pend/state.new" "$T/pend/state"
check "... (a candidate made pending)" grep -q 'state=pending.* job=4242 ' \
	"$T/pend/state"
expect "cancel without Slurm" 75 env SLURM_CONF=/nonexistent \
	"$PT" cancel "$T/pend"
has "... says the campaign is not cancelled" \
	"the campaign is not cancelled, or only in part" "$T/err"
has "... and to cancel again" "run 'paratune cancel $T/pend' again once Slurm answers" \
	"$T/err"

# resume -q over several campaigns (cron's glob) that cannot reach Slurm:
# each said "error: cannot reach Slurm: ..." with nothing to tell which
# campaign it was about, so the log held the same line once per campaign.
cp -r "$T/pend" "$T/pend2" && rm "$T/pend2/home"
expect "resume -q of two campaigns without Slurm" 75 \
	env SLURM_CONF=/nonexistent "$PT" -q resume "$T/pend" "$T/pend2"
has "... names the first in its error" "^error: $T/pend: cannot reach Slurm" \
	"$T/err"
# The second, which has a job to poll too, is not tried: each waited out
# libslurm's timeout in turn while the controller was down.
has "... and the second in its own, not tried" \
	"^error: $T/pend2: not tried: the Slurm controller did not answer, or did not take paratune's credential, for '$T/pend'" \
	"$T/err"

# Configuration errors: exit 78 with file:line and a suggestion.
printf 'name = "x";\nmodel = "llama3_8b";\ngpu = "h100-sxm";\nsearch = { tensor_paralel = [1]; };\n' >"$T/typo.conf"
expect "a typo is a config error" 78 "$PT" plan "$T/typo.conf" -o "$T/x"
has "naming file and line" "typo.conf:4" "$T/err"
has "with the closest key" "did you mean 'search.tensor_parallel'" "$T/err"
printf 'name = "x";\nmodel = "llama3_8";\ngpu = "h100-sxm";\n' >"$T/model.conf"
expect "an unknown model is a config error" 78 "$PT" estimate "$T/model.conf"
has "suggesting the closest preset" "llama3_8b" "$T/err"
printf 'name = "x";\nmodel = "llama3_8b";\ngpu = "h100-sxm";\nseq_length = -1;\n' >"$T/range.conf"
expect "a value out of range is a config error" 78 "$PT" plan "$T/range.conf"

# Usage errors.
expect "unknown command" 64 "$PT" frobnicate
expect "unknown option" 64 "$PT" plan --frobnicate "$CAMPAIGN"
expect "missing argument" 64 "$PT" plan
expect "ambiguous prefix" 64 "$PT" s
expect "unique prefix" 0 "$PT" mod
expect "global options after the command" 0 "$PT" models --format json -q
expect "--site after the command" 66 "$PT" config --site "$T/none.conf"
has "names the site file" "none.conf" "$T/err"
expect "-v after the command" 0 \
	"$PT" models -v

# Every command paratune --help lists: its --help, its usage line naming
# every option the command takes, and every long option in the man page.
cmds=$("$PT" --help | awk '/^commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ "$(echo "$cmds" | wc -w)" -ge 13 ] && ok "paratune --help lists the commands" ||
	ko "paratune --help lists the commands ($cmds)"
for c in $cmds; do
	"$PT" "$c" --help >"$T/help" 2>&1 || { ko "$c --help"; continue; }
	head -1 "$T/help" | grep -o -- '--[a-z][a-z-]*' | sort -u >"$T/syn"
	sed 1d "$T/help" | grep -v -- '--help\|--site\|--quiet\|--verbose' |
		grep -o -- '^ *\(-., \)\{0,1\}--[a-z][a-z-]*' |
		grep -o -- '--[a-z-]*' | sort -u >"$T/opts"
	cmp -s "$T/syn" "$T/opts" && ok "$c: the usage line names every option" ||
		ko "$c: the usage line names every option ($(cat "$T/syn" | tr '\n' ' ') vs $(cat "$T/opts" | tr '\n' ' '))"
	# An option too wide for the column ran into its help text
	# ("--no-distributed-optimizer replicate..."): help starts in
	# column 32, or on the next line.
	wide=$(sed 1d "$T/help" | awk '
		alone { if ($0 !~ /^ {31}[^ ]/) print alone; alone = "" }
		/^ +(-., )?--[a-z]/ && length($0) > 30 &&
		substr($0, 31, 2) !~ /^ [^ ]/ { alone = $0 }
		END { if (alone != "") print alone }')
	[ -z "$wide" ] && ok "$c --help: every option's help in its column" ||
		ko "$c --help: help out of its column: $wide"
	missing=""
	for o in $(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u); do
		[ "$o" = --help ] && continue
		grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$SRC/man/paratune.1" ||
			missing="$missing $o"
	done
	[ -z "$missing" ] && ok "$c --help agrees with paratune(1)" ||
		ko "$c options missing from paratune(1):$missing"
done
for m in "$SRC"/man/*.[1-9]; do
	out=$(groff -man -ww -z "$m" 2>&1)
	[ -z "$out" ] && ok "groff: $(basename "$m") has no warnings" ||
		ko "groff: $(basename "$m"): $out"
done

# Bash completion reads commands and options from --help.
comp() {
	PATH="$(dirname "$PT"):$PATH" bash -c '
		source "$1/etc/bash_completion/paratune"
		shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _paratune
		echo "${COMPREPLY[*]}"' _ "$SRC" "$@"
}
[ "$(comp paratune pl)" = plan ] && ok "completion: commands" ||
	ko "completion: commands"
case " $(comp paratune submit --) " in
*" --include-unsafe "*) ok "completion: options" ;;
*) ko "completion: options" ;;
esac
case " $(comp paratune status "$T/") " in
*"$T/demo "*) ok "completion: campaign directories" ;;
*) ko "completion: campaign directories" ;;
esac
# csv was offered to every command, which refuses it but results.
[ "$(comp paratune list "$T/demo" --format '')" = "table json" ] &&
	ok "completion: --format of list: table and json" ||
	ko "completion: --format of list: table and json"
[ "$(comp paratune results "$T/demo" --format '')" = "table csv json" ] &&
	ok "completion: --format of results: csv too" ||
	ko "completion: --format of results: csv too"
# watch -o writes a file: only directories were offered.
: >"$T/verdict.txt"
case " $(comp paratune watch x.log -o "$T/verd") " in
*" $T/verdict.txt "*) ok "completion: watch -o offers files" ;;
*) ko "completion: watch -o offers files" ;;
esac

# Candidate names of custom models: the size was printed with %g, so a
# model of two million billion parameters was "custom_2.06161e+06b_..."
# ('+', an exponent, and rounded), and one of 290,000 parameters
# "custom_0b_...".  Ordinary sizes keep NeMo's spelling ("8.03b", "70b").
custom() {
	sed "s|^model = \"llama3_8b\";|model = { $1 vocab_size = 32000; \
max_position_embeddings = 4096; };|" "$CAMPAIGN" >"$T/custom.conf"
}
for m in "num_layers = 10000; hidden_size = 131072; num_attention_heads = 256;:custom_2061606.07b_4nodes_tp_" \
	"num_layers = 1; hidden_size = 8; num_attention_heads = 1;:custom_0.00029b_4nodes_tp_" \
	"num_layers = 32; hidden_size = 4096; num_attention_heads = 32;:custom_6.59b_4nodes_tp_"; do
	custom "${m%%:*}"
	rm -rf "$T/custom"
	expect "plan of a custom model ${m#*:}" 0 "$PT" plan "$T/custom.conf" \
		-o "$T/custom"
	n=$(cut -d, -f2 "$T/custom/candidates.csv" | sed 1d |
		grep -c "^${m#*:}[0-9]")
	[ "$n" -gt 0 ] && ok "... names it ${m#*:}" ||
		ko "... names it ${m#*:} ($(sed -n 2p "$T/custom/candidates.csv"))"
	bad=$(cut -d, -f2 "$T/custom/candidates.csv" | grep -c '[^A-Za-z0-9._-]')
	same "... every name is [A-Za-z0-9._-]" "$bad" 0
done
# A custom model's family heads every name, which is a run directory:
# "../../x" planned runs/../../x_6.59b_... outside the campaign.
mkdir -p "$T/fam/in"
for f in "../../escaped" "a b" "a/b" ".hidden" "-dash"; do
	custom "family = \"$f\"; num_layers = 32; hidden_size = 4096; num_attention_heads = 32;"
	expect "custom model family '$f' is refused" 78 "$PT" plan \
		"$T/custom.conf" -o "$T/fam/in/c"
	has "... naming the key and the rule" \
		"key 'model.family': '$f' is not a valid name (letters, digits" \
		"$T/err"
	same "... and writes nothing" "$(find "$T/fam" -mindepth 1 | wc -l)" 1
done
custom "name = \"my/model x\"; family = \"my-fam_1.0\"; num_layers = 32; hidden_size = 4096; num_attention_heads = 32;"
rm -rf "$T/custom"
expect "a custom model name with '/' and a space is only a name" 0 "$PT" \
	plan "$T/custom.conf" -o "$T/custom"
same "... names candidates by family" \
	"$(sed -n 2p "$T/custom/candidates.csv" | cut -d, -f2 | cut -d_ -f1-4)" \
	"my-fam_1.0_6.59b_4nodes"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
