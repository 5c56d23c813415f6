#!/bin/sh
# tests/cli/simtrain.sh - paratune-simtrain behaves as Megatron-LM does.
#
# Runs the build-tree binary ($PARATUNE_BUILDDIR/paratune-simtrain) with
# a large PARATUNE_SIM_SPEEDUP so that each run takes a fraction of a
# second, and compares its lines with the real Megatron-LM excerpts in
# $PARATUNE_REAL_LOGS where one is at hand.  Prints one line per check
# and "N passed, N failed" last; exits non-zero when a check failed.

BUILDDIR=${PARATUNE_BUILDDIR:-.}
SRCDIR=${PARATUNE_SRCDIR:-.}
REAL_LOGS=${PARATUNE_REAL_LOGS:-$SRCDIR/../shared/data/real-logs}
SIM=$BUILDDIR/paratune-simtrain
TMP=$(mktemp -d "${TMPDIR:-/tmp}/simtrain-test.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0
failed=0

# The launcher's variables would change which rank this is.
unset WORLD_SIZE RANK LOCAL_RANK LOCAL_WORLD_SIZE SLURM_NTASKS SLURM_PROCID \
	SLURM_LOCALID SLURM_NTASKS_PER_NODE PARATUNE_SIM_FAULT
PARATUNE_SIM_SPEEDUP=1000000
export PARATUNE_SIM_SPEEDUP

pass() {
	passed=$((passed + 1))
	echo "ok $((passed + failed)) - $1"
}

fail() {
	failed=$((failed + 1))
	echo "not ok $((passed + failed)) - $1"
}

# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
	desc=$1
	shift
	if "$@"; then pass "$desc"; else fail "$desc"; fi
}

# A Llama-shaped model of 0.9 B parameters that fits one H100.
SMALL="--num-layers 16 --hidden-size 2048 --num-attention-heads 16
	--group-query-attention --num-query-groups 8 --ffn-hidden-size 5632
	--seq-length 2048 --max-position-embeddings 2048 --swiglu
	--normalization RMSNorm --position-embedding-type rope
	--untie-embeddings-and-output-weights --disable-bias-linear
	--micro-batch-size 2 --global-batch-size 16 --bf16
	--use-distributed-optimizer --train-iters 10 --log-interval 1
	--log-throughput --eval-iters 0 --mock-data
	--tokenizer-type NullTokenizer --vocab-size 32000"
# Llama 2 70B's shape: 70 B parameters cannot fit one 80 GB GPU.
BIG="--num-layers 80 --hidden-size 8192 --num-attention-heads 64
	--group-query-attention --num-query-groups 8 --ffn-hidden-size 28672
	--seq-length 4096 --max-position-embeddings 4096 --swiglu
	--normalization RMSNorm --position-embedding-type rope
	--micro-batch-size 1 --global-batch-size 8 --bf16 --train-iters 10
	--log-interval 1 --log-throughput"

ITER='^ \[[0-9-]* [0-9:]*\] iteration '

# start NAME [ENV=VALUE | -ENV...] -- FLAGS...: runs the simulator in the
# background with those variables set (or, with -ENV, unset), output in
# $TMP/NAME.{out,err}; its pid is left in $pid.
start() {
	name=$1
	shift
	(
		while [ "$1" != "--" ]; do
			case $1 in
			-*) unset "${1#-}" ;;
			*) export "${1?}" ;;
			esac
			shift
		done
		shift
		exec "$SIM" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	) &
	pid=$!
}

# finish NAME PID: waits for it and keeps its exit status in NAME.rc.
finish() {
	wait "$2" 2>/dev/null
	echo $? >"$TMP/$1.rc"
}

# run NAME [ENV=VALUE | -ENV...] -- FLAGS...: start and finish.
run() {
	start "$@"
	finish "$1" "$pid"
}

rc_is() { [ "$(cat "$TMP/$1.rc")" = "$2" ]; }
iterations() { grep -c "$ITER" "$TMP/$1.out"; }
has() { grep -q -e "$2" "$TMP/$1"; }
hasnt() { ! grep -q -e "$2" "$TMP/$1"; }

if [ ! -x "$SIM" ]; then
	echo "not ok 1 - $SIM is not built"
	echo "0 passed, 1 failed"
	exit 1
fi

# ---- a healthy run --------------------------------------------------------
# shellcheck disable=SC2086
run small -- $SMALL
check "small run exits 0" rc_is small 0
check "small run prints 10 iteration lines" \
	[ "$(iterations small)" -eq 10 ]
numbers=$(sed -n "s/$ITER *\([0-9]*\)\/ *10 |.*/\1/p" "$TMP/small.out" |
	tr '\n' ' ')
check "iteration numbers run 1 to 10" \
	[ "$numbers" = "1 2 3 4 5 6 7 8 9 10 " ]
# training_log()'s widths: '{:8d}/{:8d}', '{:12d}', '{:5d}', '{:3d}'.
re='iteration        3/      10 | consumed samples:           48 |'
re="$re.* global batch size:    16 |.* number of skipped iterations:   0 |"
re="$re number of nan iterations:   0 |\$"
check "iteration line has Megatron's field widths" has small.out "$re"
N='[0-9]+\.[0-9]'
re="$ITER"' +[0-9]+/ +10 \| consumed samples: +[0-9]+ \| elapsed time'
re="$re per iteration \\(ms\\): $N \\| throughput per GPU \\(TFLOP/s/GPU\\):"
re="$re $N \\| learning rate: [0-9]\\.[0-9]{6}E-[0-9]{2} \\| global batch"
re="$re size: +16 \\| lm loss: [0-9]\\.[0-9]{6}E\\+[0-9]{2} \\| loss scale:"
re="$re 1\\.0 \\| grad norm: [0-9]+\\.[0-9]{3} \\| number of skipped"
re="$re iterations: +0 \\| number of nan iterations: +0 \\|\$"
check "iteration line has every field of a 2024 line, in order" \
	grep -qE "$re" "$TMP/small.out"

# Numbers to N, runs of spaces to one: the shape of a line.
skeleton() {
	sed -E 's/[0-9]+(\.[0-9]+)?(E[-+][0-9]+)?/N/g; s/ +/ /g'
}
real=$REAL_LOGS/megatron_iter_first_iter_no_loss_memory_line_2024_ja_doc.log
if [ -r "$real" ]; then
	want=$(grep "iteration  *20/" "$real" | skeleton)
	got=$(grep "iteration  *5/" "$TMP/small.out" | skeleton)
	check "iteration line has the shape of a real Megatron-LM 2024 line" \
		[ "$want" = "$got" ]
	want=$(grep '^\[Rank 0\]' "$real" | skeleton)
	got=$(grep '^\[Rank 0\]' "$TMP/small.out" | skeleton)
	check "memory line has the shape of a real Megatron-LM 2024 line" \
		[ "$want" = "$got" ]
else
	echo "# $real not found: real-line shape checks skipped"
fi
re='^\[Rank 0\] \(after 1 iterations\) memory \(MB\) \| allocated: '
re="${re}[0-9.]+ \\| max allocated: [0-9.]+ \\| reserved: [0-9]+\\.0 \\|"
re="$re max reserved: [0-9]+\\.0\$"
check "memory line follows iteration 1" grep -qE "$re" "$TMP/small.out"
check "theoretical memory footprints are printed" has small.out \
	'^Theoretical memory footprints: weight and optimizer=[0-9]*\.[0-9]* MB$'
check "setup ends with the datetime line before training" has small.out \
	'^\[before the start of training step\] datetime: [0-9-]* [0-9:]* $'
check "run ends with [after training is done]" \
	[ "$(tail -n 1 "$TMP/small.out" | sed 's/datetime: .*/datetime:/')" = \
	"[after training is done] datetime:" ]
check "a healthy run writes nothing on stderr" [ ! -s "$TMP/small.err" ]
# An untrained model's loss is about ln V: ln 32001 = 10.4.
first_loss=$(sed -n 's/.*iteration *1\/.*lm loss: \([0-9.E+]*\) .*/\1/p' \
	"$TMP/small.out")
check "loss starts near 11" \
	awk -v l="$first_loss" 'BEGIN { exit !(l > 10 && l < 12) }'
last_loss=$(sed -n 's/.*iteration *10\/.*lm loss: \([0-9.E+]*\) .*/\1/p' \
	"$TMP/small.out")
check "loss falls" \
	awk -v a="$first_loss" -v b="$last_loss" 'BEGIN { exit !(b < a) }'

# Throughput times step time is the FLOPs of a step.  Megatron-LM's 2024
# formula (num_floating_point_operations) by hand for SMALL: 12 B s L h^2
# ((1 + g/a + s/h) q/h + f/h * 3/2 + V/(2 L h)) with B 16, s 2048, L 16,
# h 2048, a 16, g 8, q = a*kv = 2048, f 5632, V 32128 (32001 padded to
# 128): 2.6388e13 * (2.5 + 4.125 + 0.4902) = 187.76 TFLOP.  Later
# Megatron-LM and paratune count causal attention at half (s/2h): 174.57.
tflops=$(sed -n 's/.*iteration *5\/.*(TFLOP\/s\/GPU): \([0-9.]*\) .*/\1/p' \
	"$TMP/small.out")
ms=$(sed -n 's/.*iteration *5\/.*(ms): \([0-9.]*\) .*/\1/p' "$TMP/small.out")
check "throughput is Megatron-LM's FLOPs per step over the step time" \
	awk -v t="$tflops" -v ms="$ms" \
	'BEGIN { f = t * ms / 1000; exit !(f > 0.9 * 174.57 && f < 187.76) }'

# ---- determinism -----------------------------------------------------------
no_time() {
	sed -E 's/^ \[[0-9-]+ [0-9:]+\]/ [T]/; s/datetime: .*/datetime: T/' "$1"
}
# shellcheck disable=SC2086
run again -- $SMALL
no_time "$TMP/small.out" >"$TMP/small.norm"
no_time "$TMP/again.out" >"$TMP/again.norm"
check "two runs print the same lines but for the timestamps" \
	cmp -s "$TMP/small.norm" "$TMP/again.norm"
# shellcheck disable=SC2086
run reordered -- --train-iters=10 --bf16 $SMALL
no_time "$TMP/reordered.out" >"$TMP/reordered.norm"
check "flag order and --flag=value spelling do not change the numbers" \
	cmp -s "$TMP/small.norm" "$TMP/reordered.norm"
# shellcheck disable=SC2086
run bigger_batch -- $SMALL --global-batch-size 32
t16=$(sed -n 's/.*iteration *5\/.*(ms): \([0-9.]*\) .*/\1/p' "$TMP/small.out")
t32=$(sed -n 's/.*iteration *5\/.*(ms): \([0-9.]*\) .*/\1/p' \
	"$TMP/bigger_batch.out")
check "twice the batch takes longer per iteration" \
	awk -v a="$t16" -v b="$t32" 'BEGIN { exit !(b > 1.5 * a) }'
t1=$(sed -n 's/.*iteration *1\/.*(ms): \([0-9.]*\) .*/\1/p' "$TMP/small.out")
check "the first iteration is the slow warm-up" \
	awk -v a="$t1" -v b="$t16" 'BEGIN { exit !(a > 2.5 * b) }'
# Per-step noise: ten steps do not all take the same time.
check "step times vary from step to step" [ "$(sed -n \
	's/.*(ms): \([0-9.]*\) .*/\1/p' "$TMP/small.out" | sort -u |
	wc -l)" -gt 5 ]

# ---- logging options ------------------------------------------------------
# shellcheck disable=SC2086
run interval -- $SMALL --log-interval 5
check "--log-interval 5 prints iterations 5 and 10" \
	[ "$(sed -n "s/$ITER *\([0-9]*\)\/.*/\1/p" "$TMP/interval.out" |
	tr '\n' ' ')" = "5 10 " ]
# shellcheck disable=SC2086
run short -- $SMALL --train-iters 3
check "--train-iters 3 stops after 3 iterations" \
	[ "$(iterations short)" -eq 3 ]
# shellcheck disable=SC2046,SC2086
run nothroughput -- $(echo $SMALL | sed 's/--log-throughput//')
check "without --log-throughput there is no throughput field" \
	hasnt nothroughput.out 'TFLOP'
# shellcheck disable=SC2046,SC2086
run fp16 -- $(echo $SMALL | sed 's/--bf16/--fp16/')
re='iteration        1/.* learning rate: 0.000000E+00 |.* loss scale:'
re="$re 4294967296.0 | number of skipped iterations:   1 |"
check "fp16: the loss scaler skips the first iterations, no loss shown" \
	has fp16.out "$re"
check "fp16: memory is reported after the first real update" \
	hasnt fp16.out '^\[Rank 0\] (after 1 iterations)'

# ---- out of memory -------------------------------------------------------
# shellcheck disable=SC2086
run big -- $BIG
check "a 70B model on one GPU exits 1" rc_is big 1
re='^torch.OutOfMemoryError: CUDA out of memory. Tried to allocate [0-9.]*'
re="$re [GM]iB. GPU 0 has a total capacity of [0-9.]* GiB of which [0-9.]*"
re="$re [GMK]iB is free. Including non-PyTorch memory, this process has"
check "a 70B model on one GPU fails with torch.OutOfMemoryError" \
	has big.err "$re"
check "out of memory: no iteration line" [ "$(iterations big)" -eq 0 ]
# shellcheck disable=SC2086
run oomfault PARATUNE_SIM_FAULT=oom -- $SMALL
check "PARATUNE_SIM_FAULT=oom: exit 1" rc_is oomfault 1
check "PARATUNE_SIM_FAULT=oom: the CUDA out-of-memory error" \
	has oomfault.err '^torch.OutOfMemoryError: CUDA out of memory'
check "PARATUNE_SIM_FAULT=oom: no iteration line" \
	[ "$(iterations oomfault)" -eq 0 ]
check "PARATUNE_SIM_FAULT=oom: setup was printed first" \
	has oomfault.out '^\[before the start of training step\]'

# ---- command line errors ----------------------------------------------------
# shellcheck disable=SC2086
run unknown -- $SMALL --foo 3
check "an unknown flag exits 2" rc_is unknown 2
check "an unknown flag is argparse's error" has unknown.err \
	'^paratune-simtrain: error: unrecognized arguments: --foo 3$'
# shellcheck disable=SC2086
run choice -- $SMALL --normalization Foo
check "an invalid choice exits 2" rc_is choice 2
check "an invalid choice names the choices" has choice.err \
	"invalid choice: 'Foo' (choose from 'LayerNorm', 'RMSNorm')\$"
# shellcheck disable=SC2086
run heads WORLD_SIZE=3 -- $SMALL --tensor-model-parallel-size 3 \
	--global-batch-size 2
check "heads % tp: exit 1" rc_is heads 1
check "heads % tp: Megatron's ValueError" has heads.err \
	'^ValueError: num_attention_heads (16) must be a multiple of tensor_model_parallel_size (3)\.$'
check "heads % tp: a Python traceback" \
	has heads.err '^Traceback (most recent call last):$'
check "heads % tp: no iteration line" [ "$(iterations heads)" -eq 0 ]
# shellcheck disable=SC2086
run world WORLD_SIZE=2 -- $SMALL --tensor-model-parallel-size 4
check "world size % (tp*pp*cp): exit 1" rc_is world 1
check "world size % (tp*pp*cp): Megatron's AssertionError" has world.err \
	'^AssertionError: world size (2) is not divisible by total_model_size (encoder_model_size=0 + decoder_model_size=4)$'
# shellcheck disable=SC2086
run batch WORLD_SIZE=4 -- $SMALL --global-batch-size 6 --micro-batch-size 1
check "global batch % (micro batch * dp): Megatron's message" has batch.err \
	'^AssertionError: global batch size (6) is not divisible by micro batch size (1) times data parallel size (4)$'
# A small DeepSeek-V3-like model: MLA, 8 experts with a shared one, the
# first 2 of 16 layers dense, one MTP layer, QK norms (Megatron-LM's
# flags); and GPT-OSS's windows and sinks.
MLA="--multi-latent-attention --q-lora-rank 512 --kv-lora-rank 256
	--qk-head-dim 64 --qk-pos-emb-head-dim 32 --v-head-dim 64 --qk-layernorm
	--num-experts 8 --moe-router-topk 2 --moe-ffn-hidden-size 1024
	--moe-shared-expert-intermediate-size 1024 --mtp-num-layers 1"
# shellcheck disable=SC2086
run mla WORLD_SIZE=2 RANK=1 -- $SMALL $MLA \
	--moe-layer-freq '([0]*2+[1]*14)' --expert-model-parallel-size 2
check "MLA, shared experts, dense first layers, MTP: exit 0" rc_is mla 0
check "... 10 iteration lines" [ "$(iterations mla)" -eq 10 ]
# The flex dispatcher on each of Megatron-LM's backends (hybridep is
# costed apart from DeepEP, ncclep as DeepEP: simtrain-setup.c).  The
# step times cannot tell them apart here: the simulated bias is drawn
# from every flag's value.
for b in deepep hybridep ncclep; do
	# shellcheck disable=SC2086
	run "flex_$b" WORLD_SIZE=2 RANK=1 -- $SMALL $MLA \
		--moe-layer-freq '([0]*2+[1]*14)' --expert-model-parallel-size 2 \
		--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend "$b"
	check "flex on $b: exit 0, 10 iterations" \
		[ "$(cat "$TMP/flex_$b.rc")" = 0 ] && [ "$(iterations "flex_$b")" -eq 10 ]
done
# shellcheck disable=SC2086
run hep_type -- $SMALL --num-experts 8 --moe-token-dispatcher-type hybridep
check "--moe-token-dispatcher-type hybridep: exit 2, as Megatron-LM's parser" \
	rc_is hep_type 2
# shellcheck disable=SC2086
run swa -- $SMALL --window-size 128,0 --window-attn-skip-freq 2 \
	--softmax-type learnable --add-qkv-bias
check "sliding windows, sinks, QKV biases: exit 0" rc_is swa 0
# shellcheck disable=SC2086
run freqlen -- $SMALL $MLA --moe-layer-freq '([0]*2+[1]*10)'
check "--moe-layer-freq of 12 layers for 16: exit 1" rc_is freqlen 1
check "... Megatron's AssertionError" has freqlen.err \
	'^AssertionError: Invalid length of moe_layer_pattern: 12, expected 16, current moe layer pattern: (\[0\]\*2+\[1\]\*10)$'
# shellcheck disable=SC2086
run freq -- $SMALL $MLA --moe-layer-freq '[1,0]*8'
check "--moe-layer-freq the simulator cannot model: exit 1" rc_is freq 1
check "... says so" has freq.err '^ValueError: Invalid moe_layer_freq: \[1,0\]\*8'
# An uneven pipeline of 16 layers over 4 stages: 3 + 6 + 6 + 1 runs;
# 5 + 4 leaves 7 layers for 2 middle stages.
# shellcheck disable=SC2086
run uneven WORLD_SIZE=4 RANK=3 -- $SMALL --pipeline-model-parallel-size 4 \
	--decoder-first-pipeline-num-layers 3 \
	--decoder-last-pipeline-num-layers 1 --global-batch-size 8
check "uneven pipeline 3+6+6+1: exit 0" rc_is uneven 0
check "uneven pipeline 3+6+6+1: iterations run" \
	[ "$(iterations uneven)" -gt 0 ]
# shellcheck disable=SC2086
run unevenbad WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--decoder-first-pipeline-num-layers 5 \
	--decoder-last-pipeline-num-layers 4 --global-batch-size 8
check "uneven pipeline, middle layers % middle stages: exit 1" \
	rc_is unevenbad 1
check "uneven pipeline: Megatron's ValueError" has unevenbad.err \
	'^ValueError: number of layers at middle stage: 7 must be divisible by the middle pipeline model parallel size 2$'
# shellcheck disable=SC2086
run unevenzero WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--decoder-first-pipeline-num-layers 0 --global-batch-size 8
check "uneven pipeline, a first stage of 0 layers: Megatron's ValueError" \
	has unevenzero.err \
	'^ValueError: num_layers_in_first_pipeline_stage must be larger than 0$'
# shellcheck disable=SC2086
run unevenacc WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--decoder-first-pipeline-num-layers 4 \
	--account-for-loss-in-pipeline-split --global-batch-size 8
check "uneven pipeline with account_for_*: refused" has unevenacc.err \
	'^ValueError: num_layers_in_first_pipeline_stage and num_layers_in_last_pipeline_stage cannot be set at the same time'
# A pipeline layout (Megatron-LM's --pipeline-model-parallel-layout):
# 16 layers over 4 ranks x 2 virtual stages, the split paratune renders
# (2 + 6 x 2 + 2), runs; its stage count must divide by pp, it goes with
# no other virtual-stage flag, its letters are Megatron-LM's, and
# another split of the right letters is not simulated.
# shellcheck disable=SC2086
run layout WORLD_SIZE=4 RANK=3 -- $SMALL --pipeline-model-parallel-size 4 \
	--pipeline-model-parallel-layout 'Et*2|(t*2|)*6t*2L' \
	--global-batch-size 8
check "pipeline layout 2+6x2+2: exit 0" rc_is layout 0
check "pipeline layout: iterations run" [ "$(iterations layout)" -gt 0 ]
# shellcheck disable=SC2086
run layoutpp WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--pipeline-model-parallel-layout 'Et*2|(t*2|)*5t*4L' \
	--global-batch-size 8
check "pipeline layout of 7 stages over pp 4: Megatron's assertion" \
	has layoutpp.err '^AssertionError: The length of pipeline_model_parallel_layout must be divisible by pipeline_model_parallel_size (len(layout)=7, pipeline_model_parallel_size=4)$'
# shellcheck disable=SC2086
run layoutvp WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--pipeline-model-parallel-layout 'Et*2|(t*2|)*6t*2L' \
	--num-virtual-stages-per-pipeline-rank 2 --global-batch-size 8
check "pipeline layout with virtual stages too: refused" has layoutvp.err \
	'^AssertionError: No more than one of the following arguments'
# shellcheck disable=SC2086
run layoutt WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--pipeline-model-parallel-layout 'Et*2|(t*2|)*6t*3L' \
	--global-batch-size 8
check "pipeline layout of 17 layers: Megatron's count" has layoutt.err \
	'^AssertionError: Number of decoder layers 17must match num_layers 16$'
# shellcheck disable=SC2086
run layoutx WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--pipeline-model-parallel-layout 'Et*2|(t*2|)*5t*4xL' \
	--global-batch-size 8
check "pipeline layout with a stray letter: refused before its stages" \
	has layoutx.err \
	'^AssertionError: Invalid layer character: x'
# shellcheck disable=SC2086
run layoutother WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--pipeline-model-parallel-layout 'Et|(t*2|)*6t*3L' \
	--global-batch-size 8
# shellcheck disable=SC2086
run layoutpp1 WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 1 \
	--pipeline-model-parallel-layout 'Et*8|t*8L' --global-batch-size 8
check "a layout of two stages on pp 1: Megatron's assertion" \
	has layoutpp1.err '^AssertionError: when interleaved schedule is used, pipeline-model-parallel size should be greater than 1$'
# shellcheck disable=SC2086
run layoutone WORLD_SIZE=4 RANK=3 -- $SMALL \
	--pipeline-model-parallel-size 1 \
	--pipeline-model-parallel-layout 'Et*16L' --global-batch-size 8
check "a layout of one stage on pp 1 runs" rc_is layoutone 0
# shellcheck disable=SC2086
run layoutcounts WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--pipeline-model-parallel-layout 'Et*2|(t*2|)*6t*2L' \
	--decoder-first-pipeline-num-layers 4 --global-batch-size 8
check "a layout with a stage count: Megatron's ValueError" \
	has layoutcounts.err '^ValueError: pipeline_model_parallel_layout cannot be set with other pipeline layout arguments\.$'
# shellcheck disable=SC2086
run layoutbig WORLD_SIZE=4 -- $SMALL --pipeline-model-parallel-size 4 \
	--pipeline-model-parallel-layout 't*99999999999999999999' \
	--global-batch-size 8
check "a layout past a mebibyte: refused" has layoutbig.err \
	'unrolls to more than a mebibyte'
check "another split of 16 layers: not simulated, said so" \
	has layoutother.err '^NotImplementedError: paratune-simtrain runs the layout paratune renders for pp 4 and vp 2, Et\*2|(t\*2|)\*6t\*2L, not Et|(t\*2|)\*6t\*3L$'
# NVFP4 (Megatron-LM at d98e8a64, arguments.py validate_args): fp4 and
# fp8 exclude each other, the FP4 parameter gather needs fp4, and a
# Blackwell GPU runs it.
# shellcheck disable=SC2086
run fp4fp8 -- $SMALL --fp4-format e2m1 --fp8-format hybrid
check "fp4 with fp8: exit 1" rc_is fp4fp8 1
check "fp4 with fp8: Megatron's ValueError" has fp4fp8.err \
	'^ValueError: --fp4-format and --fp8-format cannot be used simultaneously\. Please choose one\.$'
# shellcheck disable=SC2086
run fp4gather -- $SMALL --fp4-param-gather
check "fp4 parameter gather without fp4: Megatron's ValueError" \
	has fp4gather.err \
	'^ValueError: --fp4-param-gather must be used together with --fp4-format\.$'
# shellcheck disable=SC2086
run fp4b200 -- $SMALL --fp4-format e2m1 --fp4-recipe nvfp4 \
	--fp4-param-gather --paratune-gpu b200
check "fp4 on a B200 trains" [ "$(iterations fp4b200)" -eq 10 ]
# CUDA graphs (Megatron-LM at d98e8a64): a full-iteration graph needs
# the NaN check off and takes full recompute, which per-layer graphs
# refuse.
# shellcheck disable=SC2086
run cgnan -- $SMALL --cuda-graph-impl full_iteration
check "full-iteration graph with the NaN check: Megatron's AssertionError" \
	has cgnan.err \
	'^AssertionError: --no-check-for-nan-in-loss-and-grad should be set with --cuda-graph-impl=full_iteration for training\.$'
# shellcheck disable=SC2086
run cgfull -- $SMALL --cuda-graph-impl transformer_engine \
	--recompute-granularity full --recompute-method uniform \
	--recompute-num-layers 1
check "per-layer graphs with full recompute: Megatron's AssertionError" \
	has cgfull.err \
	'^AssertionError: full recompute is only supported with full iteration CUDA graph\.$'
# shellcheck disable=SC2086
run cgiter -- $SMALL --cuda-graph-impl full_iteration \
	--no-check-for-nan-in-loss-and-grad --recompute-granularity full \
	--recompute-method uniform --recompute-num-layers 1
check "a full-iteration graph with full recompute trains" \
	[ "$(iterations cgiter)" -eq 10 ]
run missing -- --num-layers 2 --micro-batch-size 1
check "a missing required argument: exit 1" rc_is missing 1
check "a missing required argument: '... argument is None'" \
	has missing.err '^AssertionError: hidden_size argument is None$'
# shellcheck disable=SC2086
run badgpu -- $SMALL --paratune-gpu no-such-gpu
check "an unknown --paratune-gpu exits 2" rc_is badgpu 2
# shellcheck disable=SC2086
run badfault PARATUNE_SIM_FAULT=bogus -- $SMALL
check "an unknown PARATUNE_SIM_FAULT exits 2" rc_is badfault 2

# ---- ranks ------------------------------------------------------------------
RANKED="$SMALL --tensor-model-parallel-size 8 --sequence-parallel"
# shellcheck disable=SC2086
run rank0 WORLD_SIZE=8 RANK=0 -- $RANKED
check "WORLD_SIZE=8 RANK=0 exits 0" rc_is rank0 0
check "WORLD_SIZE=8 RANK=0 prints no iteration line" \
	[ "$(iterations rank0)" -eq 0 ]
check "rank 0 prints the setup (print_rank_0)" \
	has rank0.out '^using world size: 8, data-parallel size: 1,'
check "rank 0 prints the end (print_rank_0)" \
	has rank0.out '^\[after training is done\] datetime: '
# shellcheck disable=SC2086
run rank7 SLURM_NTASKS=8 SLURM_PROCID=7 -- $RANKED
check "the last rank (SLURM_PROCID=7 of SLURM_NTASKS=8) prints 10 lines" \
	[ "$(iterations rank7)" -eq 10 ]
check "the last rank reports its memory as [Rank 7]" \
	has rank7.out '^\[Rank 7\] (after 1 iterations) memory (MB)'
check "the last rank leaves the datetime lines to rank 0" \
	hasnt rank7.out 'datetime:'
# shellcheck disable=SC2086
run rank9 WORLD_SIZE=8 RANK=9 -- $RANKED
check "RANK outside WORLD_SIZE exits 2" rc_is rank9 2

# ---- faults -------------------------------------------------------------------
# shellcheck disable=SC2086
run nccl PARATUNE_SIM_FAULT=nccl_timeout:3 -- $SMALL
check "nccl_timeout:3 ends in SIGABRT as torch does (134)" rc_is nccl 134
re='^\[rank0\]:\[E[0-9]* [0-9:.]* ProcessGroupNCCL.cpp:[0-9]*\] \[Rank 0\]'
re="$re Watchdog caught collective operation timeout: WorkNCCL(SeqNum=[0-9]*,"
re="$re OpType=_REDUCE_SCATTER_BASE, NumelIn=[0-9]*, NumelOut=[0-9]*,"
re="$re Timeout(ms)=600000) ran for [0-9]* milliseconds before timing out\\.\$"
check "nccl_timeout:3 prints ProcessGroupNCCL's watchdog line" \
	has nccl.err "$re"
check "nccl_timeout:3 prints iterations 1 and 2 only" \
	[ "$(iterations nccl)" -eq 2 ]
# shellcheck disable=SC2086
run nan PARATUNE_SIM_FAULT=nan:4 -- $SMALL
check "nan:4 exits 1" rc_is nan 1
check "nan:4 counts NaN iterations from iteration 4" has nan.out \
	'iteration        4/.* number of skipped iterations:   1 | number of nan iterations:   1 |$'
check "nan:4 shows no loss once it is NaN" \
	[ "$(grep -c 'iteration        [456]/.*lm loss' "$TMP/nan.out")" -eq 0 ]
check "nan:4 ends with Megatron's NaN assertion" has nan.err \
	'^AssertionError: Rank 0: found NaN in local forward loss calculation\. Device: 0, node: '
check "nan:4 stops after three NaN iterations" [ "$(iterations nan)" -eq 6 ]
# shellcheck disable=SC2086
run crash PARATUNE_SIM_FAULT=crash:5 -- $SMALL
check "crash:5 exits 1" rc_is crash 1
check "crash:5 raises a CUDA RuntimeError" has crash.err \
	'^RuntimeError: CUDA error: an illegal memory access was encountered$'
check "crash:5 prints iterations 1 to 4" [ "$(iterations crash)" -eq 4 ]

# SIGTERM at 1 s is ignored by a hung rank; SIGKILL at 3 s ends it.
# shellcheck disable=SC2086
start hang PARATUNE_SIM_FAULT=hang:3 -- $SMALL
hang_pid=$pid
# shellcheck disable=SC2086
start hangend PARATUNE_SIM_FAULT=hang_after_finish -- $SMALL
hangend_pid=$pid
sleep 1
kill -TERM "$hang_pid" "$hangend_pid" 2>/dev/null
sleep 2
kill -KILL "$hang_pid" "$hangend_pid" 2>/dev/null
finish hang "$hang_pid"
finish hangend "$hangend_pid"
check "hang:3 runs until SIGKILL, even after SIGTERM (137)" rc_is hang 137
check "hang:3 prints iterations 1 and 2 only" [ "$(iterations hang)" -eq 2 ]
check "hang_after_finish runs until SIGKILL (137)" rc_is hangend 137
check "hang_after_finish prints every iteration" \
	[ "$(iterations hangend)" -eq 10 ]
check "hang_after_finish prints [after training is done]" \
	has hangend.out '^\[after training is done\]'

# ---- signals: finish the step, Megatron's exit line, exit 0 ----------------
for sig in TERM INT; do
	# The default speed-up keeps a step under 0.1 s: 10000 steps would
	# take minutes.
	# shellcheck disable=SC2046,SC2086
	start "sig$sig" -PARATUNE_SIM_SPEEDUP -- \
		$(echo $SMALL | sed 's/--train-iters 10/--train-iters 10000/')
	sleep 1
	kill "-$sig" "$pid" 2>/dev/null
	finish "sig$sig" "$pid"
	check "SIG$sig mid-run exits 0" rc_is "sig$sig" 0
	check "SIG$sig: the step finishes with its line" \
		sh -c "tail -n 2 '$TMP/sig$sig.out' | head -n 1 | grep -q '$ITER'"
	check "SIG$sig: then Megatron's exit line" \
		sh -c "tail -n 1 '$TMP/sig$sig.out' | grep -q \
		'^\[exiting program after receiving SIGTERM\.\] datetime: '"
	check "SIG$sig: the run stopped early" \
		[ "$(iterations "sig$sig")" -lt 10000 ]
done

# --exit-signal SIGUSR2: what the job templates ask for, since srun
# forwards SIGUSR2 to the tasks but kills them on SIGTERM.
# shellcheck disable=SC2046,SC2086
start sigUSR2 -PARATUNE_SIM_SPEEDUP -- \
	$(echo $SMALL | sed 's/--train-iters 10/--train-iters 10000/') \
	--exit-signal-handler --exit-signal SIGUSR2
sleep 1
kill -USR2 "$pid" 2>/dev/null
finish sigUSR2 "$pid"
check "--exit-signal SIGUSR2: SIGUSR2 mid-run exits 0" rc_is sigUSR2 0
check "SIGUSR2: Megatron's exit line, which names SIGTERM" \
	sh -c "tail -n 1 '$TMP/sigUSR2.out' | grep -q \
	'^\[exiting program after receiving SIGTERM\.\] datetime: '"
check "SIGUSR2: the run stopped early" \
	[ "$(iterations sigUSR2)" -lt 10000 ]
# shellcheck disable=SC2086
run sigsame -- $SMALL --exit-signal-handler --exit-signal SIGUSR2
# shellcheck disable=SC2086
run signone -- $SMALL
check "the exit flags leave the simulated step times as they are" \
	sh -c "grep -o 'iteration (ms): [0-9.]*' '$TMP/sigsame.out' >'$TMP/a'
	grep -o 'iteration (ms): [0-9.]*' '$TMP/signone.out' >'$TMP/b'
	[ -s '$TMP/a' ] && cmp -s '$TMP/a' '$TMP/b'"

# ---- --help, --version and the man page ------------------------------------
"$SIM" --help >"$TMP/help.out" 2>&1
check "--help exits 0" [ $? -eq 0 ]
check "--help shows the usage" has help.out '^usage: paratune-simtrain'
check "--help shows the flags" \
	has help.out '--tensor-model-parallel-size N'
"$SIM" --version >"$TMP/version.out" 2>&1
check "--version names the program" \
	has version.out '^paratune-simtrain (paratune) '
man=$SRCDIR/man/paratune-simtrain.1
if [ -r "$man" ]; then
	grep -o -- '--[a-z][a-z0-9-]*' "$TMP/help.out" |
		sort -u >"$TMP/help.flags"
	sed -n '/^\.SH OPTIONS/,/^\.SH ENVIRONMENT/s/\\-/-/gp' "$man" |
		grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$TMP/man.flags"
	check "--help and the man page's OPTIONS name the same flags" \
		cmp -s "$TMP/help.flags" "$TMP/man.flags"
else
	fail "man page $man not found"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
