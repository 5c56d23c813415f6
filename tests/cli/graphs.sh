#!/bin/sh
# graphs.sh - CUDA graphs with recomputation: no planned candidate
# renders a combination its template's Megatron core refuses, and those
# left out are counted under their rule.  NeMo 2.0's per-layer graphs
# (enable_cuda_graph on the 0.13 core of its 25.07 container) take no
# recomputation at all; Megatron-LM's Transformer Engine graphs take
# selective but not full, and no selective recompute of a module with
# dropout (GPT-3's 0.1).  An MoE model's per-layer graphs hold what
# NVIDIA's MoE recipes capture, and its runs force the router's balance
# that the estimate assumes.  Runs the build tree's binary; no Slurm
# needed.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

DEMO=$SRC/etc/campaigns/demo.conf

# graphs_plan DIR TEMPLATE [--set K=V]...: demo.conf with every
# recompute kind, with and without graphs, through TEMPLATE.
graphs_plan() {
	dir=$1 tmpl=$2
	shift 2
	"$PT" -q plan "$DEMO" -o "$T/$dir" --set "run.template=$tmpl" \
		--set 'search.cuda_graphs=[false,true]' \
		--set 'search.recompute=["none","selective","full"]' "$@"
}

# scripts DIR PATTERN...: how many of DIR's job scripts match every
# PATTERN (grep -E), and none of those written !PATTERN.
scripts() {
	dir=$1
	shift
	n=0
	for f in "$T/$dir"/runs/*/job.sbatch; do
		m=1
		for p in "$@"; do
			case $p in
			!*) ! grep -Eq -- "${p#!}" "$f" || m=0 ;;
			*) grep -Eq -- "$p" "$f" || m=0 ;;
			esac
		done
		n=$((n + m))
	done
	echo "$n"
}

expect "NeMo 2.0 with graphs and every recompute kind plans" 0 \
	graphs_plan nemo nemo2
has "... counting the graphs with recompute under their rule" \
	'invalid: *nemo2: per-layer cuda_graphs take no recompute' \
	"$T/nemo/plan.txt"
check "... rendering no graph with recompute" \
	test "$(scripts nemo 'enable_cuda_graph=True' \
		'recompute_granularity=(full|selective)')" = 0
check "... but graphs without it" \
	test "$(scripts nemo 'enable_cuda_graph=True' \
		'recompute_granularity=None')" -gt 0
check "... and recompute without graphs" \
	test "$(scripts nemo 'enable_cuda_graph=False' \
		'recompute_granularity=selective')" -gt 0

# A copy of the NeMo 2.0 template under another name is not known to
# plan as NeMo's, so its rule does not apply: the template itself
# refuses what would reach it, rather than rendering runs that fail.
cp "$SRC/templates/nemo2.sbatch" "$T/site-nemo.sbatch"
expect "a renamed copy of nemo2 with graphs and recompute" 78 \
	graphs_plan nemo-copy "$T/site-nemo.sbatch"
has "... refused, saying why and what to set" \
	'site-nemo.sbatch:[0-9]*: this template cannot run the campaign: .*CUDA graphs not supported with activation recomputation.*search.cuda_graphs = \[false\]' \
	"$T/err"
check "... and writing no campaign" test ! -e "$T/nemo-copy"
expect "... while graphs without recompute plan through it" 0 \
	graphs_plan nemo-copy "$T/site-nemo.sbatch" \
	--set 'search.recompute=["none"]'
check "... rendering graphs" \
	test "$(scripts nemo-copy 'enable_cuda_graph=True')" -gt 0

expect "Megatron-LM with graphs and every recompute kind plans" 0 \
	graphs_plan mlm megatron-lm
hasnt "... leaving NeMo 2.0's rule out" 'nemo2: per-layer' \
	"$T/mlm/plan.txt"
has "... counting per-layer graphs with full recompute" \
	'invalid: *cuda_graphs with full recompute need' "$T/mlm/plan.txt"
check "... rendering no per-layer graph with full recompute" \
	test "$(scripts mlm 'cuda-graph-impl transformer_engine' \
		'recompute-granularity full')" = 0
check "... but per-layer graphs with selective recompute" \
	test "$(scripts mlm 'cuda-graph-impl transformer_engine' \
		'recompute-granularity selective')" -gt 0

check "... a dense model's graphs holding whole layers" \
	test "$(scripts mlm 'cuda-graph-modules')" = 0

# An MoE model's per-layer graphs captured the whole layer, the dropless
# experts' host syncs with it; NVIDIA's MoE recipes capture attention,
# the router and the dispatch's preprocessing.
expect "an MoE campaign with per-layer graphs" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/qwen3-30b-a3b-b200.conf" -o "$T/moe" \
	--set run.template=megatron-lm
check "... renders per-layer graphs" \
	test "$(scripts moe 'cuda-graph-impl transformer_engine')" -gt 0
check "... each of attention, the router and the preprocessing" \
	test "$(scripts moe 'cuda-graph-impl transformer_engine' \
		'!cuda-graph-modules attn moe_router moe_preprocess \\$')" = 0
check "... and no modules without them" \
	test "$(scripts moe 'cuda-graph-modules' \
		'!cuda-graph-impl transformer_engine')" = 0
# moe_token_imbalance 1 (the default) is the estimate's forced balance:
# the runs route as the published benchmarks do, and as it predicts.
check "... every script forcing the router's balance" \
	test "$(scripts moe '!moe-router-force-load-balancing')" = 0
expect "... not with moe_token_imbalance 2" 0 "$PT" -q plan \
	"$SRC/etc/campaigns/qwen3-30b-a3b-b200.conf" -o "$T/moe2" \
	--set run.template=megatron-lm --set moe_token_imbalance=2
check "... whose routers learn their own balance" \
	test "$(scripts moe2 'moe-router-force-load-balancing')" = 0
check "... nor a dense model's" \
	test "$(scripts mlm 'moe-router-force-load-balancing')" = 0

# random_graphed DIR: how many of DIR's scripts recompute, in a graph,
# a module that drops out: core_attn (the default, no
# --recompute-modules), mlp or moe.
random_graphed() {
	n=0
	for f in "$T/$1"/runs/*/job.sbatch; do
		grep -q -- '--cuda-graph-impl' "$f" &&
		grep -q -- '--recompute-granularity selective' "$f" &&
		grep -q -- '--attention-dropout 0.1 --hidden-dropout 0.1' \
			"$f" || continue
		m=$(sed -n 's/.*--recompute-modules \([a-z_ ]*\).*/\1/p' "$f")
		case " ${m:-core_attn} " in
		*" core_attn "*|*" mlp "*|*" moe "*) n=$((n + 1)) ;;
		esac
	done
	echo "$n"
}

expect "GPT-3 (dropout 0.1) with graphs and recompute modules plans" 0 \
	graphs_plan gpt megatron-lm --set model=gpt3_1p3b \
	--set seq_length=2048 --set 'search.recompute=["selective"]' \
	--set 'search.recompute_modules=["core_attn","layernorm","mlp",
		"core_attn+layernorm"]'
has "... counting graphed recompute of dropout under its rule" \
	'invalid: *cuda_graphs with dropout: no core_attn, mlp or moe' \
	"$T/gpt/plan.txt"
check "... rendering no graph that recomputes a module with dropout" \
	test "$(random_graphed gpt)" = 0
check "... but graphs that recompute the norms" \
	test "$(scripts gpt 'cuda-graph-impl transformer_engine' \
		'recompute-modules layernorm \\$')" -gt 0
check "... and core_attn recompute without graphs" \
	test "$(scripts gpt 'recompute-granularity selective' \
		'!recompute-modules' '!cuda-graph-impl')" -gt 0
check "Llama 3 (no dropout) keeps graphs with core_attn recompute" \
	test "$(scripts mlm 'cuda-graph-impl transformer_engine' \
		'recompute-granularity selective' '!recompute-modules' \
		'dropout 0\.0 ')" -gt 0

# A base the nemo2 template cannot run is refused, naming the rule.
expect "a NeMo 2.0 base with graphs and recompute is refused" 78 \
	"$PT" -q plan "$DEMO" -o "$T/base" --set run.template=nemo2 \
	--set 'base={ tensor_parallel = 2; pipeline_parallel = 1;
		micro_batch_size = 1; recompute = "selective";
		cuda_graphs = true; }'
has "... saying why" \
	'base configuration is invalid: nemo2: per-layer cuda_graphs' \
	"$T/err"

for f in "$T"/*/runs/*/job.sbatch; do
	bash -n "$f" || ko "bash -n $f"
done
ok "every rendered script parses"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
