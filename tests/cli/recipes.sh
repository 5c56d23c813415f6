#!/bin/sh
# recipes.sh - the default rules hide no layout NVIDIA ships in its own
# recipes (NeMo's llama3_70b, llama31_405b, Qwen3, Mixtral, Nemotron-4
# and Mistral pretraining recipes on H100, an MoE model with experts
# spread across H100 nodes, 256 GB200 GPUs):
# each is planned as a candidate, not removed.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

# recipe NAME LAYOUT SETTINGS...: plan a campaign and find the layout
# (tp,pp,cp,ep,etp,vp of candidates.csv, etp as its effective size)
# among its candidates.
recipe() {
	name=$1 want=$2
	shift 2
	rm -rf "$T/$name"
	if ! "$PT" -q plan "$T/base.conf" -o "$T/$name" "$@" 2>"$T/err"; then
		ko "$name: plan ($(head -1 "$T/err"))"
		return
	fi
	awk -F, 'NR > 1 { print $3 "," $4 "," $5 "," $6 "," $7 "," $8 }' \
		"$T/$name/candidates.csv" | grep -qx -- "$want" &&
		ok "$name: $want kept" || ko "$name: $want removed"
}
printf 'name = "recipes";\nmodel = "llama3_70b";\ngpu = "h100-sxm";\nnodes = 8;\ngpus_per_node = 8;\nprecision = "bf16";\nrun = { template = "simulated"; };\n' \
	>"$T/base.conf"

# Llama 3 70B, sequence 8192 = its hidden size: cp 2 (cp_seq removed it).
recipe llama3-70b "4,4,2,1,4,5" --set seq_length=8192 \
	--set 'global_batch_size=[128]' \
	--set 'search.tensor_parallel=[4]' --set 'search.pipeline_parallel=[4]' \
	--set 'search.context_parallel=[2]' --set 'search.virtual_pipeline=[5]' \
	--set 'search.micro_batch_size=[1]'
# Llama 3.1 405B: tp 8 x pp 8 x cp 2 = 128 (max_model_parallel 64 removed
# it); 126 layers split with the embedding and the loss as layers.
recipe llama31-405b "8,8,2,1,8,8" --set model=llama31_405b --set nodes=64 \
	--set seq_length=8192 --set 'global_batch_size=[256]' \
	--set 'search.tensor_parallel=[8]' --set 'search.pipeline_parallel=[8]' \
	--set 'search.context_parallel=[2]' --set 'search.virtual_pipeline=[8]' \
	--set 'search.micro_batch_size=[1]' \
	--set 'search.account_for_embedding_in_pipeline_split=[true]' \
	--set 'search.account_for_loss_in_pipeline_split=[true]' \
	--set 'memory.gpu_memory_gb=1000'
# An MoE model of 64 experts, EP 16-64 across H100 nodes (ep_nvlink).
for ep in 16 32 64; do
	recipe "moe-ep$ep" "1,1,1,$ep,1,1" --set 'model={ num_layers = 8;
		hidden_size = 2048; num_attention_heads = 16;
		num_query_groups = 4; ffn_hidden_size = 1024; vocab_size = 32000;
		max_position_embeddings = 4096; num_experts = 64;
		moe_router_topk = 8; moe_ffn_hidden_size = 768; }' \
		--set seq_length=4096 --set 'global_batch_size=[256]' \
		--set 'search.tensor_parallel=[1]' --set 'search.pipeline_parallel=[1]' \
		--set "search.expert_parallel=[$ep]" --set 'search.micro_batch_size=[1]' \
		--set 'memory.gpu_memory_gb=1000'
done
# NVIDIA's own pretraining recipes as they ship, planned with the
# default search, nothing listed: each layout, etp included
# (tp,pp,cp,ep,etp,vp), is a candidate.  NeMo 2.0 (NVIDIA/NeMo@8cfedd7,
# nemo/collections/llm/recipes/MODEL.py: pretrain_recipe's and
# trainer's defaults, the MockDataModule's batch): Qwen3 sets
# expert_tensor_parallel_size 1 beside tp 4 (qwen3.py), the others leave
# it at tp's size.  Megatron-Bridge's library recipes for H100
# (NVIDIA-NeMo/Megatron-Bridge@067f987, src/megatron/bridge/recipes/
# {deepseek,gpt_oss,qwen}/h100/*.py): etp 1 beside tp 2 or 4 throughout.
# Megatron-LM's examples (NVIDIA/Megatron-LM@d98e8a6, examples/gpt3/
# train_gpt3_175b_distributed.sh, examples/mixtral/
# train_mixtral_8x7b_distributed.sh).
# shipped NAME LAYOUT MODEL NODES SEQ GBS: recipe, the rest by default.
shipped() {
	recipe "$1" "$2" --set model="$3" --set nodes="$4" \
		--set seq_length="$5" --set "global_batch_size=[$6]"
}
shipped "NeMo qwen3_30b_a3b" "4,2,1,4,1,1" qwen3_30b_a3b 1 4096 32
shipped "NeMo qwen3_235b_a22b" "4,16,2,8,1,1" qwen3_235b_a22b 16 4096 32
shipped "NeMo mixtral_8x22b" "2,4,2,8,2,14" mixtral_8x22b 16 4096 512
shipped "NeMo nemotron4_340b" "8,12,2,1,8,8" nemotron4_340b 768 4096 2304
shipped "NeMo mistral_7b" "1,1,2,1,1,1" mistral_7b 1 4096 512
shipped "NeMo llama31_405b" "8,8,4,1,8,2" llama31_405b 64 8192 512
shipped "Bridge deepseek_v3 1024 GPUs" "2,16,1,64,1,1" deepseek_v3 128 4096 4096
shipped "Bridge deepseek_v3 256 GPUs" "2,8,1,32,1,1" deepseek_v3 32 4096 4096
shipped "Bridge qwen3_235b_a22b 256 GPUs" "4,16,2,8,1,1" qwen3_235b_a22b 32 4096 128
# Its performance recipes interleave DeepSeek-V3's 61 layers with a
# pipeline layout (perf_recipes/deepseek/{h100,b200,gb200}/
# deepseek_v3.py at 067f987): "Et|(tt|)*30mL" on 1024 H100 at tp 2 pp 8
# vp 4 ep 64, 16 virtual stages on 256 B200 (pp 8 vp 2 ep 32) and 256
# GB200 (pp 4 vp 4 ep 64).
shipped "Bridge perf deepseek_v3 1024 H100" "2,8,1,64,1,4" deepseek_v3 128 \
	4096 16384
check "... with the pipeline layout" awk -F, 'NR == 1 {
		for (i = 1; i <= NF; i++) c[$i] = i; next }
	$3 == 2 && $4 == 8 && $6 == 64 && $8 == 4 &&
	$c["pipeline_layout"] == 1 { f = 1 } END { exit !f }' \
	"$T/Bridge perf deepseek_v3 1024 H100/candidates.csv"
check "... rendered as Megatron-LM takes it" sh -c "grep -l -- \
	\"--pipeline-model-parallel-layout 'Et|(t\\*2|)\\*30mL'\" \
	'$T/Bridge perf deepseek_v3 1024 H100'/runs/*/job.sbatch | grep -q ."
recipe "Bridge perf deepseek_v3 256 B200" "1,8,1,32,1,2" --set gpu=b200 \
	--set model=deepseek_v3 --set nodes=32 --set seq_length=4096 \
	--set 'global_batch_size=[4096]'
recipe "Bridge perf deepseek_v3 256 GB200" "1,4,1,64,1,4" --set gpu=gb200 \
	--set model=deepseek_v3 --set nodes=64 --set gpus_per_node=4 \
	--set seq_length=4096 --set 'global_batch_size=[4096]'
# 256 GB300 (perf_recipes/deepseek/gb300/deepseek_v3.py): pp 2 vp 8 ep
# 32 and pp 4 vp 4 ep 64, the same 16 virtual stages.  pp 2 alone
# splits 61 layers with the embedding as a layer (2 x 31), which vp 8
# cannot take: the layout replaces the flag.
recipe "Bridge perf deepseek_v3 256 GB300" "1,2,1,32,1,8" --set gpu=gb300 \
	--set model=deepseek_v3 --set nodes=64 --set gpus_per_node=4 \
	--set seq_length=4096 --set 'global_batch_size=[4096]'
check "... with the layout and without the flags" awk -F, 'NR == 1 {
		for (i = 1; i <= NF; i++) c[$i] = i; next }
	$4 == 2 && $6 == 32 && $8 == 8 && $c["pipeline_layout"] == 1 &&
	$c["account_for_embedding_in_pipeline_split"] == 0 &&
	$c["account_for_loss_in_pipeline_split"] == 0 { f = 1 }
	END { exit !f }' "$T/Bridge perf deepseek_v3 256 GB300/candidates.csv"
check "... rendered as 16 virtual stages of 4" sh -c "grep -l -- \
	\"--pipeline-model-parallel-layout 'Et\\*4|(t\\*4|)\\*14tmL'\" \
	'$T/Bridge perf deepseek_v3 256 GB300'/runs/*/job.sbatch | grep -q ."
shipped "Bridge gpt_oss_20b" "2,4,1,4,1,1" gpt_oss_20b 2 4096 512
shipped "Bridge gpt_oss_120b" "2,4,1,16,1,1" gpt_oss_120b 8 4096 512
shipped "Megatron-LM gpt3_175b" "8,16,1,1,8,1" gpt3_175b 16 2048 1536
shipped "Megatron-LM mixtral_8x7b" "1,4,1,8,1,1" mixtral_8x7b 4 4096 256
# A dense model searches no expert sizes: its candidates are those of
# etp 0 alone.
check "a dense model's candidates hold one etp each" \
	sh -c "! grep -q '_etp_' '$T/NeMo mistral_7b/candidates.csv'"
check "an MoE model's candidates name the etp they search" \
	grep -q '_etp_1,' "$T/NeMo qwen3_30b_a3b/candidates.csv"
# 256 GB200 GPUs (64 nodes of 4) in 72-GPU NVLink domains: tp 4 x pp 4
# x dp 16, a power-of-two layout (nvl72_align).
recipe gb200-256 "4,4,1,1,4,1" --set gpu=gb200 --set nodes=64 \
	--set gpus_per_node=4 --set seq_length=8192 \
	--set 'global_batch_size=[128]' \
	--set 'search.tensor_parallel=[4]' --set 'search.pipeline_parallel=[4]' \
	--set 'search.micro_batch_size=[1]'
# The default search has CP where the sequence is long enough, and EP
# over an MoE model's experts ([1] hid both).
anyrow() {
	awk -F, -v c="$2" -v v="$3" 'NR > 1 && $c == v { f = 1 } END { exit !f }' \
		"$T/$1/candidates.csv"
}
rm -rf "$T/cp-auto" "$T/ep-auto"
"$PT" -q plan "$T/base.conf" -o "$T/cp-auto" --set seq_length=8192 \
	--set 'global_batch_size=[128]' 2>"$T/err"
check "Llama 3 70B at sequence 8192: the default search has cp 2" \
	anyrow cp-auto 5 2
"$PT" -q plan "$T/base.conf" -o "$T/ep-auto" --set model=mixtral_8x7b \
	--set nodes=4 --set seq_length=4096 --set 'global_batch_size=[256]' \
	2>"$T/err"
check "Mixtral 8x7B: the default search has ep 8" anyrow ep-auto 6 8
# At sequence 4096 cp 2, as NeMo's Mixtral 8x22B and Qwen3 235B-A22B
# recipes run it (2048 tokens a rank), but not cp 4 (1024).
check "... cp 2 at sequence 4096" anyrow ep-auto 5 2
check "... but not cp 4" sh -c "! awk -F, 'NR > 1 && \$5 > 2 { f = 1 } END { exit !f }' '$T/ep-auto/candidates.csv'"

# pipeline_parallel = "auto" on 126 layers: pp 8 with the embedding and
# the loss counted as layers (only pp 1, 2, 3, 6, 7, 9... divide 126).
rm -rf "$T/pp-auto"
"$PT" -q plan "$T/base.conf" -o "$T/pp-auto" --set model=llama31_405b \
	--set nodes=64 --set seq_length=8192 --set 'global_batch_size=[256]' \
	--set 'search.tensor_parallel=[8]' --set 'search.context_parallel=[1]' \
	--set 'search.virtual_pipeline=[1]' --set 'search.micro_batch_size=[1]' \
	--set 'memory.gpu_memory_gb=1000' 2>"$T/err"
check "Llama 3.1 405B, pp auto: pp 8 with the embedding and loss as layers" \
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$4 == 8 && $c["account_for_embedding_in_pipeline_split"] == 1 &&
		$c["account_for_loss_in_pipeline_split"] == 1 { f = 1 }
		END { exit !f }' "$T/pp-auto/candidates.csv"

# An uneven pipeline: a DeepSeek-V3-like 61-layer MoE model (its layer
# count, width and experts, as a custom model without MLA) on 1024 H100,
# with the layout NVIDIA's Megatron-MoE model zoo runs (runtime.conf:
# TP 1, PP 16, EP 64, PP_FIRST 4, PP_LAST 1).  61 layers split over no
# even pp above 1; pp auto finds 16 once the first and last counts are
# listed, and the job passes them to Megatron-LM.
DSV3='model={ num_layers = 61; hidden_size = 7168; num_attention_heads = 128;
	kv_channels = 128; ffn_hidden_size = 18432; vocab_size = 129280;
	max_position_embeddings = 4096; num_experts = 256; moe_router_topk = 8;
	moe_ffn_hidden_size = 2048; swiglu = true; normalization = "RMSNorm";
	position_embedding_type = "rope"; }'
recipe dsv3-uneven "1,16,1,64,1,1" --set "$DSV3" --set nodes=128 \
	--set seq_length=4096 --set 'global_batch_size=[8192]' \
	--set 'search.tensor_parallel=[1]' --set 'search.pipeline_parallel=[16]' \
	--set 'search.expert_parallel=[64]' --set 'search.micro_batch_size=[1]' \
	--set 'search.decoder_first_pipeline_num_layers=[4]' \
	--set 'search.decoder_last_pipeline_num_layers=[1]' \
	--set 'memory.gpu_memory_gb=1000'
# With no counts listed, each pp gets the split NVIDIA's DeepSeek-V3
# recipes use: every stage but the last ceil(61 / pp) layers, the last
# the rest (pp 16: 4 + 14 x 4 + 1; pp 8: 8 + 6 x 8 + 5); listed as an
# even split ([0]), 61 layers do not split over 16 stages.  (Interleaved
# candidates take a pipeline layout instead, without counts.)
stages() {
	awk -F, -v pp="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["pp"] == pp && $c["pipeline_layout"] != 1 {
			print $c["decoder_first_pipeline_num_layers"] "+" \
			$c["decoder_last_pipeline_num_layers"]; exit }' \
		"$T/$1/candidates.csv"
}
# dsv3_plan DIR SET...: DeepSeek-V3's shape on 128 nodes at tp 1, ep 64,
# mbs 1 and 1000 GB GPUs, planned into $T/DIR with the settings given.
dsv3_plan() {
	d=$1
	shift
	rm -rf "${T:?}/$d"
	"$PT" -q plan "$T/base.conf" -o "$T/$d" --set "$DSV3" --set nodes=128 \
		--set seq_length=4096 --set 'global_batch_size=[8192]' \
		--set 'search.tensor_parallel=[1]' \
		--set 'search.expert_parallel=[64]' \
		--set 'search.micro_batch_size=[1]' \
		--set 'memory.gpu_memory_gb=1000' "$@" >"$T/out" 2>&1
}
dsv3_plan dsv3-split --set 'search.pipeline_parallel=[8, 16]'
check "no counts listed: 61 layers over 16 stages as 4 + 14 x 4 + 1" \
	test "$(stages dsv3-split 16)" = "4+1"
check "... and over 8 as 8 + 6 x 8 + 5" test "$(stages dsv3-split 8)" = "8+5"
dsv3_plan dsv3-auto-pp --set 'search.max_candidates=1000'
check "... with pp automatic too, pp 16 is searched so" \
	test "$(stages dsv3-auto-pp 16)" = "4+1"
expect "... and estimate --pp 8 splits it the same way" 0 "$PT" estimate \
	"$T/base.conf" --set "$DSV3" --set nodes=128 --set seq_length=4096 \
	--set 'global_batch_size=[8192]' --set 'memory.gpu_memory_gb=1000' \
	--tp 1 --pp 8 --ep 64 --mbs 1 --format json
has "... first stage 8" '"decoder_first_pipeline_num_layers": 8' "$T/out"
has "... last stage 5" '"decoder_last_pipeline_num_layers": 5' "$T/out"
rm -rf "$T/dsv3-even"
"$PT" -q plan "$T/base.conf" -o "$T/dsv3-even" --set "$DSV3" --set nodes=128 \
	--set seq_length=4096 --set 'global_batch_size=[8192]' \
	--set 'search.tensor_parallel=[1]' --set 'search.pipeline_parallel=[16]' \
	--set 'search.expert_parallel=[64]' --set 'search.micro_batch_size=[1]' \
	--set 'search.decoder_first_pipeline_num_layers=[0]' \
	--set 'search.decoder_last_pipeline_num_layers=[0]' >"$T/out" 2>&1
has "an even split listed: 61 layers do not split over 16 stages" \
	"layers % pp" "$T/out"
rm -rf "$T/dsv3-auto"
"$PT" -q plan "$T/base.conf" -o "$T/dsv3-auto" --set "$DSV3" --set nodes=128 \
	--set seq_length=4096 --set 'global_batch_size=[8192]' \
	--set 'search.context_parallel=[1]' \
	--set 'search.tensor_parallel=[1]' --set 'search.expert_parallel=[64]' \
	--set 'search.micro_batch_size=[1]' --set 'search.max_candidates=1000' \
	--set 'search.decoder_first_pipeline_num_layers=[0, 4]' \
	--set 'search.decoder_last_pipeline_num_layers=[0, 1]' \
	--set 'memory.gpu_memory_gb=1000' --set 'run.template="megatron-lm"' \
	2>"$T/err"
dsv3_row() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$4 == 16 && $c["decoder_first_pipeline_num_layers"] == 4 &&
		$c["decoder_last_pipeline_num_layers"] == 1 { print $2; exit }' \
		"$T/dsv3-auto/candidates.csv"
}
check "pp auto with the counts listed: pp 16 as 4 + 14 x 4 + 1" \
	test -n "$(dsv3_row)"
check "... and pp 1, where the counts change nothing, once" \
	test "$(awk -F, 'NR > 1 && $4 == 1' "$T/dsv3-auto/candidates.csv" |
		wc -l)" -eq 1
job="$T/dsv3-auto/runs/$(dsv3_row)/job.sbatch"
has "the job passes the first stage's layers to Megatron-LM" \
	"--decoder-first-pipeline-num-layers 4 " "$job"
has "... and the last stage's" "--decoder-last-pipeline-num-layers 1 " "$job"
check "... and no account_for_* flag with them" \
	sh -c "! grep -q -- '--account-for' '$job'"

# The deepseek_v3 preset (MLA, 3 dense first layers, a shared expert,
# one MTP layer) at the same layout: planned safe on 80 GB with full
# recompute, and estimated with sane numbers: 682.6 B counted (DeepSeek's
# 671 B main model + its 11.6 B MTP layer), 2.6e11 FLOPs a token (6 x
# 37.5 B active, MLA scores, the MTP layer), a few GB of weights a GPU.
rm -rf "$T/ds-preset"
"$PT" -q plan "$T/base.conf" -o "$T/ds-preset" --set model=deepseek_v3 \
	--set nodes=128 --set seq_length=4096 --set 'global_batch_size=[8192]' \
	--set 'search.context_parallel=[1]' \
	--set 'search.tensor_parallel=[1]' --set 'search.pipeline_parallel=[16]' \
	--set 'search.expert_parallel=[64]' --set 'search.micro_batch_size=[1]' \
	--set 'search.decoder_first_pipeline_num_layers=[4]' \
	--set 'search.decoder_last_pipeline_num_layers=[1]' \
	--set 'search.recompute=["full"]' --set 'run.template="megatron-lm"' \
	2>"$T/err"
check "deepseek_v3: plan keeps tp 1 pp 16 ep 64 as safe" \
	test "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$3 == 1 && $4 == 16 && $6 == 64 { print $c["memory_status"] }' \
		"$T/ds-preset/candidates.csv")" = safe
job=$(ls "$T"/ds-preset/runs/*/job.sbatch | head -1)
has "... its job asks Megatron-LM for multi-latent attention" \
	"--multi-latent-attention" "$job"
has "... the 3 dense first layers" "--moe-layer-freq '(\[0\]\*3+\[1\]\*58)'" \
	"$job"
has "... and one MTP layer" "--mtp-num-layers 1 " "$job"
# Selective recompute's modules, searched: DeepSeek-V3 with tp 2, etp 1
# and sequences of 6144 at selective recompute runs out of memory with
# core_attn alone (about 107 GiB) and fits with the recipes'
# mla_up_proj+moe_act+layernorm (about 68 GiB); each set is a
# candidate of its own, named and rendered as Megatron-LM's
# --recompute-modules, and a typo is an error naming the file and line.
rm -rf "$T/ds-mod"
"$PT" -q plan "$T/base.conf" -o "$T/ds-mod" --set model=deepseek_v3 \
	--set nodes=128 --set seq_length=6144 --set 'global_batch_size=[8192]' \
	--set 'search.context_parallel=[1]' \
	--set 'search.tensor_parallel=[2]' --set 'search.pipeline_parallel=[16]' \
	--set 'search.expert_parallel=[64]' --set 'search.micro_batch_size=[1]' \
	--set 'search.expert_tensor_parallel=[1]' \
	--set 'search.decoder_first_pipeline_num_layers=[4]' \
	--set 'search.decoder_last_pipeline_num_layers=[1]' \
	--set 'search.recompute=["selective"]' \
	--set 'search.recompute_modules=["core_attn", "mla_up_proj+moe_act+layernorm"]' \
	--set 'run.template="megatron-lm"' 2>"$T/err"
mod_status() {
	awk -F, -v m="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["recompute_modules"] == m { print $c["memory_status"] }' \
		"$T/ds-mod/candidates.csv"
}
check "recompute_modules: core_attn alone is oom-risk" \
	test "$(mod_status core_attn)" = oom-risk
check "... moe_act+layernorm+mla_up_proj is safe" \
	test "$(mod_status moe_act+layernorm+mla_up_proj)" = safe
job=$(ls -d "$T"/ds-mod/runs/*_rcm_ma.ln.mla)/job.sbatch
has "... named _rcm_ma.ln.mla and rendered as Megatron-LM's flag" \
	"--recompute-modules moe_act layernorm mla_up_proj " "$job"
check "... and the core_attn job passes no --recompute-modules" \
	sh -c "! grep -q -- '--recompute-modules' $(ls -d "$T"/ds-mod/runs/*_rcm_ca)/job.sbatch"
{ cat "$T/base.conf"; printf 'search = {\n  recompute_modules = ["core_attn+moe_actt"];\n};\n'; } \
	>"$T/typo.conf"
expect "a module's typo is a configuration error" 78 "$PT" -q plan \
	"$T/typo.conf" -o "$T/typo" --set model=deepseek_v3
has "... naming the file, its line and the module" \
	"typo.conf:9: .*moe_actt" "$T/err"
"$PT" estimate "$T/ds-preset" --format json >"$T/ds.json" 2>"$T/err"
dsnum() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[k]
print(d)' "$T/ds.json" "$1"
}
check "... estimate: 682.6 B parameters" \
	awk -v v="$(dsnum params_b)" 'BEGIN { exit !(v > 682 && v < 683.3) }'
check "... 2.5e11 to 2.7e11 FLOPs a token" \
	awk -v v="$(dsnum flops_per_step)" \
	'BEGIN { t = v / (8192 * 4096); exit !(t > 2.5e11 && t < 2.7e11) }'
check "... under 80 GB a GPU, over 10" \
	awk -v v="$(dsnum memory.total_gib)" 'BEGIN { exit !(v > 10 && v < 80) }'

# The strict rules still apply when a campaign asks for them.
rm -rf "$T/strict"
"$PT" -q plan "$T/base.conf" -o "$T/strict" --set seq_length=8192 \
	--set 'global_batch_size=[128]' --set 'search.relax=[]' \
	--set 'search.tensor_parallel=[4]' --set 'search.pipeline_parallel=[4]' \
	--set 'search.context_parallel=[2]' --set 'search.virtual_pipeline=[5]' \
	--set 'search.micro_batch_size=[1]' >"$T/out" 2>&1
has "relax = [] applies cp_seq again" "cp_seq: cp only when" "$T/out"
has "an empty plan names the rules that emptied it" \
	"no valid candidate: all 1 combinations were removed" "$T/out"
has "and what to change" "hint: .*search.relax" "$T/out"
has "... and the nearest removed layout, with its rule" \
	"^  tp 4 pp 4 cp 2 ep 1 vp 5 mbs 1 gbs 128 selective  *cp_seq: cp only" \
	"$T/out"
rm -rf "$T/warn"
"$PT" plan "$T/base.conf" -o "$T/warn" --set seq_length=8192 \
	--set 'global_batch_size=[128]' --set 'search.relax=[]' \
	--set 'search.tensor_parallel=[4]' --set 'search.pipeline_parallel=[4]' \
	--set 'search.context_parallel=[1,2]' --set 'search.virtual_pipeline=[5]' \
	--set 'search.micro_batch_size=[1]' >"$T/out" 2>&1
has "a listed value a control removed is named on the terminal" \
	"warning: search.context_parallel lists 2, but no candidate kept it; search controls removed layouts: cp_seq" \
	"$T/out"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
