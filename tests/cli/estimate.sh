#!/bin/sh
# estimate.sh - `paratune estimate`: where each value of the layout comes
# from (flag, planned candidate, base, campaign search list, default),
# values left out kept valid with those given, planned candidates by rank
# and name, and sizes whose products overflowed an int.  Runs the build
# tree's binary; no Slurm needed.  Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

same() {
	if [ "$2" = "$3" ]; then ok "$1"; else ko "$1 (got '$2', wanted '$3')"; fi
}
jget() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[int(k)] if k.isdigit() else d[k]
print(d)' "$T/out" "$1" 2>/dev/null
}
# csv RANK COLUMN: a field of candidates.csv's row of that rank.
csv() {
	python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["rank"] == sys.argv[2]: print(r[sys.argv[3]])' \
		"$T/dir/candidates.csv" "$1" "$2"
}

DEMO=$SRC/etc/campaigns/demo.conf
# The campaign searches sequence parallelism, the distributed optimizer
# and attention with one value each, none of them the default.
OFF="-s search.sequence_parallel=[false] -s search.distributed_optimizer=[false]"
OFF="$OFF -s search.attention=[\"unfused\"]"

# ---- the campaign's own switches ----------------------------------------
# shellcheck disable=SC2086
expect "estimate the base of a campaign searching sp, distopt, attention" \
	0 "$PT" estimate "$DEMO" $OFF --format json
same "... base without sequence parallelism" \
	"$(jget layout.sequence_parallel)" False
same "... base without the distributed optimizer" \
	"$(jget layout.distributed_optimizer)" False
same "... base with unfused attention" "$(jget layout.attention)" unfused
same "... every value from the base" "$(jget sources.tp)" base
has "... and why it is the base" '"base_source"' "$T/out"
# shellcheck disable=SC2086
expect "estimate --tp 2 of the same campaign" 0 "$PT" estimate "$DEMO" \
	$OFF --tp 2 --format json
same "... sequence parallelism as searched" \
	"$(jget layout.sequence_parallel)" False
same "... the distributed optimizer as searched" \
	"$(jget layout.distributed_optimizer)" False
same "... attention as searched" "$(jget layout.attention)" unfused
same "... said to come from the search" \
	"$(jget sources.distributed_optimizer)" search

# ---- values left out: the campaign's first searched value ---------------
# A base with pp 4 and vp 2, a search with pp [4, 2, 1] and vp [2, 4].
VP="-s search.virtual_pipeline=[2,4] -s search.pipeline_parallel=[4,2,1]"
VP="$VP -s base.pipeline_parallel=4 -s base.virtual_pipeline=2"
VP="$VP -s base.tensor_parallel=2"
# shellcheck disable=SC2086
expect "--pp 1 on a base that interleaves" 0 "$PT" estimate "$DEMO" $VP \
	--pp 1 --format json
same "... vp 1: none of the list fits pp 1" "$(jget layout.vp)" 1
same "... vp said to be the default" "$(jget sources.vp)" default
same "... pp from the flag" "$(jget sources.pp)" flag
same "... tp from the search list, not the base" "$(jget layout.tp)" 1
same "... tp said to come from the search" "$(jget sources.tp)" search
same "... etp as tp, the default" "$(jget sources.etp)" default
same "... recompute from the search list" "$(jget sources.recompute)" search
# shellcheck disable=SC2086
expect "--pp 2: the first vp of the list that fits" 0 "$PT" estimate \
	"$DEMO" $VP --pp 2 --format json
same "... vp 2" "$(jget layout.vp)" 2
same "... from the search" "$(jget sources.vp)" search
# shellcheck disable=SC2086
expect "--pp 2 --vp 1: a named vp is kept" 0 "$PT" estimate "$DEMO" $VP \
	--pp 2 --vp 1 --format json
same "... vp 1 from the flag" "$(jget layout.vp)/$(jget sources.vp)" 1/flag
expect "the table says where values came from" 0 "$PT" estimate "$DEMO" \
	--pp 2
has "... a from line for the flag" "^  from         flag: pp$" "$T/out"
has "... a line for the search" "^ *campaign search list: tp cp ep vp" "$T/out"
has "... a line for the defaults" "^ *default: recompute_layers" "$T/out"
hasnt "... without the experts' tp (a dense model)" "default: etp" "$T/out"
expect "the base's table names its source" 0 "$PT" estimate "$DEMO"
has "... base configuration and why" \
	"^  from         base configuration (NeMo's" "$T/out"

# ---- planned candidates ----------------------------------------------------
expect "plan a campaign directory" 0 "$PT" plan "$DEMO" -o "$T/dir"
expect "estimate --rank 3" 0 "$PT" estimate "$T/dir" --rank 3 --format json
same "... the rank" "$(jget rank)" 3
same "... the planned name" "$(jget name)" "$(csv 3 name)"
same "... the planned layout" \
	"$(jget layout.tp) $(jget layout.pp) $(jget layout.mbs)" \
	"$(csv 3 tp) $(csv 3 pp) $(csv 3 mbs)"
same "... the planned step time" \
	"$(python3 -c "print('%.4f' % $(jget pred_step_s))")" \
	"$(csv 3 pred_step_s)"
same "... every value from the plan" "$(jget sources.vp)" plan
NAME5=$(csv 5 name)
expect "estimate --name" 0 "$PT" estimate "$T/dir" --name "$NAME5" \
	--format json
same "... finds rank 5" "$(jget rank)" 5
expect "estimate DIR: the planned base" 0 "$PT" estimate "$T/dir" \
	--format json
same "... is the base row" "$(csv "$(jget rank)" base)" 1
expect "estimate --rank 2 --mbs 4: a flag changes what it names" 0 \
	"$PT" estimate "$T/dir" --rank 2 --mbs 4 --format json
same "... mbs from the flag" "$(jget layout.mbs)/$(jget sources.mbs)" 4/flag
same "... tp from the plan" "$(jget layout.tp)/$(jget sources.tp)" \
	"$(csv 2 tp)/plan"
# A --set setting changes what the planned name says: the name shown is
# built again from the settings used, not the plan's.
expect "estimate --rank 3 -s seq_length=2048" 0 "$PT" estimate "$T/dir" \
	--rank 3 -s seq_length=2048 --format json
case $(jget name) in
*_seq_2048_*) ok "... names the sequence length set" ;;
*) ko "... names the sequence length set ($(jget name))" ;;
esac
expect "estimate --rank 3, table" 0 "$PT" estimate "$T/dir" --rank 3
has "... planned candidate with its rank" \
	"^  from         planned candidate (rank 3): tp" "$T/out"
expect "an unknown rank is a data error" 65 "$PT" estimate "$T/dir" \
	--rank 999
has "... naming the directory" "rank 999 in '$T/dir'" "$T/err"
expect "an unknown name is a data error" 65 "$PT" estimate "$T/dir" \
	--name no_such_candidate
has "... naming the directory" "'no_such_candidate' in '$T/dir'" "$T/err"
expect "--rank with --name is a usage error" 64 "$PT" estimate "$T/dir" \
	--rank 1 --name "$NAME5"
expect "--rank with a campaign file is a usage error" 64 "$PT" estimate \
	"$DEMO" --rank 1
# Missing input (66), as list, status and the others say it.
expect "--rank with no such directory is missing input" 66 "$PT" estimate \
	"$T/none" --rank 1
mkdir "$T/empty"
expect "a directory without campaign.conf is missing input" 66 "$PT" \
	estimate "$T/empty" --rank 1
has "... naming the directory" \
	"'$T/empty' is not a campaign directory (no campaign.conf)" "$T/err"

# ---- sizes whose products overflowed an int ------------------------------
HUGE="-s search.tensor_parallel=[65536] -s search.pipeline_parallel=[65536]"
# shellcheck disable=SC2086
# Every searched combination is invalid: plan refuses it (a campaign of
# nothing but a base outside the lists searched is not what was asked
# for) and names the rule, though the base it would add is valid.
expect "a campaign with tp = pp = 65536 is refused (no SIGFPE)" 78 "$PT" \
	plan "$DEMO" $HUGE -o "$T/huge"
has "... every combination invalid by the world rule" \
	"tp\*pp\*cp must divide the GPU count" "$T/err"
has "... said as no valid candidate" "^error: no valid candidate" "$T/err"
check "... and no campaign directory is left" test ! -e "$T/huge"
# A listed value that Megatron-LM's rules remove in every layout: the
# warning names the rule (demo's Llama 3 8B has 32 heads: tp 3 does
# not divide them, though it divides 3 nodes of 8 GPUs), not only the
# value.
expect "a listed tp that no layout keeps is planned without it" 0 "$PT" \
	plan "$DEMO" -s nodes=3 -s 'global_batch_size=[192]' \
	-s 'search.tensor_parallel=[1,3]' -o "$T/tp3"
has "... and the warning names the rule that removed it" \
	"lists 3, but no candidate kept it.*: attention heads % tp" "$T/err"
# A global batch smaller than the data-parallel size of every layout:
# no search list or control fixes that, so the refusal names the key
# and the sizes (gbs 8 over 32 GPUs: dp 32 at tp = pp = cp = 1).
expect "a global batch below the data-parallel size is refused" 78 "$PT" \
	plan "$DEMO" -s 'global_batch_size=[8]' -s 'search.tensor_parallel=[1]' \
	-s 'search.pipeline_parallel=[1]' -s 'search.micro_batch_size=[1]' \
	-o "$T/smallgbs"
has "... naming global_batch_size and mbs x dp" \
	"^hint: global_batch_size 8 is not a multiple of micro-batch 1 x dp 32 (tp 1 pp 1 cp 1 on 32 GPUs)" \
	"$T/err"
# shellcheck disable=SC2086
expect "... and estimates its base" 0 "$PT" estimate "$DEMO" $HUGE
expect "--tp 65536 --pp 65536 is an invalid layout" 64 "$PT" estimate \
	"$DEMO" --tp 65536 --pp 65536
has "... by the world rule" "tp\*pp\*cp must divide" "$T/err"
expect "--pp 2 --vp 65536 is an invalid layout" 64 "$PT" estimate \
	"$DEMO" --pp 2 --vp 65536
expect "--tp 100000 is refused" 64 "$PT" estimate "$DEMO" --tp 100000
has "... naming the option" "^error: --tp 100000 is out of range" "$T/err"
# Selective recompute ignores the count: it was dropped without a word.
expect "--recompute-layers 4 with selective recompute is refused" 64 \
	"$PT" estimate "$DEMO" --recompute selective --recompute-layers 4
has "... saying it needs full" \
	"^error: --recompute-layers 4 needs full recompute" "$T/err"
expect "... and so is the method" 64 "$PT" estimate "$DEMO" \
	--switch recompute_method=uniform
has "... saying it needs full" \
	"^error: --switch recompute_method=uniform needs full recompute" "$T/err"
expect "... which full recompute takes" 0 "$PT" estimate "$DEMO" \
	--recompute full --switch recompute_method=uniform
# A --switch overrode the option of its own for the same switch,
# whatever their order: two answers to one question are refused.
expect "--no-sequence-parallel with --switch sequence_parallel=true" 64 \
	"$PT" estimate "$DEMO" --tp 2 --no-sequence-parallel \
	--switch sequence_parallel=true
has "... naming both" "^error: --switch 'sequence_parallel=true' and --no-sequence-parallel both set sequence_parallel" "$T/err"
expect "... --attention with --switch attention, either order" 64 \
	"$PT" estimate "$DEMO" --switch attention=flash --attention unfused
expect "... a --switch alone is taken" 0 "$PT" estimate "$DEMO" --tp 2 \
	--switch sequence_parallel=false
expect "--etp 2 on a dense model is refused" 64 "$PT" estimate "$DEMO" \
	--etp 2
has "... saying it needs experts" "^error: --etp 2 needs an MoE model" \
	"$T/err"
# --ep the same (it said "invalid layout: experts % ep", a rule whose
# cause was the model).
expect "--ep 2 on a dense model is refused" 64 "$PT" estimate "$DEMO" \
	--ep 2
has "... saying it needs experts" "^error: --ep 2 needs an MoE model" \
	"$T/err"
# MXFP8 scales blocks in Blackwell's tensor cores; Hopper has none.
expect "mxfp8 on an H100 is an invalid layout" 64 "$PT" estimate \
	"$SRC/etc/campaigns/llama3-8b-h100.conf" -s 'precision="fp8"' \
	--switch fp8_recipe=mxfp8
has "... saying it needs Blackwell" \
	"mxfp8 needs compute capability 10-11.*mxfp8 fp8 on h100-sxm" "$T/err"
expect "... and on a B200 it is estimated" 0 "$PT" estimate \
	"$SRC/etc/campaigns/llama3-8b-h100.conf" -s 'precision="fp8"' \
	-s 'gpu="b200"' --switch fp8_recipe=mxfp8
# Blockwise scaling needs Hopper's FP8 GEMMs or later: not Ada's (8.9).
expect "blockwise fp8 on an L40S is an invalid layout" 64 "$PT" estimate \
	"$SRC/etc/campaigns/llama3-8b-h100.conf" -s 'precision="fp8"' \
	-s 'gpu="l40s"' --switch fp8_recipe=blockwise
has "... saying what it needs" "blockwise 9+" "$T/err"
has "... and what the GPU has" \
	"blockwise fp8 on l40s, compute capability 8\.9)$" "$T/err"
expect "... and on an H100 it is estimated" 0 "$PT" estimate \
	"$SRC/etc/campaigns/llama3-8b-h100.conf" -s 'precision="fp8"' \
	--switch fp8_recipe=blockwise
# A site's compute capability overrules the FP4 peak that stands for it.
printf '%s\n' 'gpus = ( { name = "b200"; compute_capability = 12.0; } );' \
	>"$T/cc12.conf"
expect "mxfp8 on a GPU of compute capability 12.0 is refused" 64 \
	"$PT" --site "$T/cc12.conf" estimate \
	"$SRC/etc/campaigns/llama3-8b-h100.conf" -s 'precision="fp8"' \
	-s 'gpu="b200"' --switch fp8_recipe=mxfp8
has "... saying which" "mxfp8 fp8 on b200, compute capability 12\.0)$" \
	"$T/err"
# A search list of recipes the GPU runs none of is the campaign's error,
# named by its line, before plan removes every layout; one it runs plans.
sed -e 's/^precision = "bf16";/precision = "fp8";/' \
	-e 's/^search = {$/&\n  fp8_recipe = ["mxfp8", "blockwise"];/' \
	"$SRC/etc/campaigns/llama3-8b-h100.conf" >"$T/fp8l.conf"
expect "an fp8_recipe list an L40S runs none of" 78 "$PT" estimate \
	"$T/fp8l.conf" -s 'gpu="l40s"'
line=$(grep -n fp8_recipe "$T/fp8l.conf" | cut -d: -f1)
has "... named by file and line, with the GPU and the list" \
	"fp8l.conf:$line: key 'search.fp8_recipe': the l40s (compute capability 8\.9) runs none of mxfp8, blockwise: mxfp8 needs" \
	"$T/err"
expect "... and plan says so too" 78 "$PT" plan "$T/fp8l.conf" \
	-s 'gpu="l40s"' -o "$T/fp8l"
has "... before it plans" "runs none of mxfp8, blockwise" "$T/err"
expect "... while an H100 runs blockwise of that list" 0 "$PT" estimate \
	"$T/fp8l.conf" --format json
same "... as the base's recipe" "$(jget layout.fp8_recipe)" blockwise
expect "... and the nemo2 template's TE 2.5 none of it on a B200" 78 \
	"$PT" estimate "$T/fp8l.conf" -s 'gpu="b200"' \
	-s 'search.fp8_recipe=["blockwise"]' -s 'run.template="nemo2"'
has "... saying why" "b200 (compute capability 10\.0) runs none of blockwise: .*9\.x with the nemo2 template" "$T/err"
# DeepSeek-V3's 61 layers interleaved as NVIDIA's H100 recipe runs them
# (pp 8 vp 4): no stage counts take vp 4, so the layers split by a
# pipeline layout, whose ranks hold 1 + 3 x 2, 4 x 2 and 3 x 2 layers
# (the last with the MTP layer); not under the nemo2 template.
cat >"$T/dsv3.conf" <<'EOF'
name = "dsv3"; model = "deepseek_v3"; gpu = "h100-sxm";
nodes = 128; gpus_per_node = 8; seq_length = 4096;
global_batch_size = 16384;
EOF
expect "DeepSeek-V3 at pp 8 vp 4" 0 "$PT" estimate "$T/dsv3.conf" --tp 2 \
	--pp 8 --vp 4 --ep 64 --etp 1 --mbs 1 --format json
same "... takes a pipeline layout" "$(jget layout.pipeline_layout)" True
same "... said to be paratune's" "$(jget sources.pipeline_layout)" default
same "... its first rank's layers" "$(jget stages.0.layers)" 7
same "... a middle rank's" "$(jget stages.1.layers)" 8
same "... the last's, with the MTP layer" "$(jget stages.2.layers)" 7
expect "... not under the nemo2 template" 64 "$PT" estimate \
	"$T/dsv3.conf" --tp 2 --pp 8 --vp 4 --ep 64 --etp 1 --mbs 1 \
	-s 'run.template="nemo2"'
has "... whose stage counts vp cannot take" "vp needs pp > 1" "$T/err"
expect "the layout asked for at pp 16 vp 1" 0 "$PT" estimate \
	"$T/dsv3.conf" --tp 2 --pp 16 --ep 64 --etp 1 --mbs 1 \
	--switch pipeline_layout=1 --format json
same "... splits as the counts 4 and 1 do" \
	"$(jget stages.0.layers) $(jget stages.2.layers)" "4 2"
same "... without them" "$(jget layout.decoder_first_pipeline_num_layers)" \
	None
{ cat "$T/dsv3.conf"; echo 'base = { tensor_parallel = 2;'
  echo '  pipeline_parallel = 8; virtual_pipeline = 4; expert_parallel = 64;'
  echo '  expert_tensor_parallel = 1; pipeline_layout = true; };'; } \
	>"$T/dsv3base.conf"
expect "a base with the layout" 0 "$PT" estimate "$T/dsv3base.conf" \
	--format json
same "... keeps its vp" "$(jget layout.vp) $(jget layout.pipeline_layout)" \
	"4 True"
expect "... estimated at pp 1" 0 "$PT" estimate "$T/dsv3base.conf" --pp 1 \
	--format json
same "... drops the layout, which one stage cannot take" \
	"$(jget layout.vp) $(jget layout.pipeline_layout)" "1 False"
expect "the layout with stage counts" 64 "$PT" estimate "$T/dsv3.conf" \
	--tp 2 --pp 16 --ep 64 --etp 1 --mbs 1 --switch pipeline_layout=1 \
	--switch decoder_first_pipeline_num_layers=4
has "... is refused as Megatron-LM refuses it" \
	"first/last stage layers" "$T/err"
# A base section that breaks a rule is named by its line, with values.
{ cat "$DEMO"; echo 'base = { micro_batch_size = 3; };'; } >"$T/badbase.conf"
expect "an invalid base section" 78 "$PT" estimate "$T/badbase.conf"
has "... named by file and line, with the values it breaks" \
	"badbase.conf:$(($(wc -l <"$DEMO") + 1)): base configuration is invalid: gbs % (mbs\*dp) (tp 1 pp 1 cp 1 vp 1 mbs 3 gbs [0-9]* dp [0-9]*;" \
	"$T/err"
# A base switch that breaks a rule was reported with no place at all:
# the section's first key names it.
{ cat "$DEMO"; echo 'base = {'; echo '  sequence_parallel = true; };'; } \
	>"$T/basesp.conf"
expect "a base switch that breaks a rule" 78 "$PT" estimate "$T/basesp.conf"
has "... named by the section's file and line" \
	"basesp.conf:$(($(wc -l <"$DEMO") + 2)): base configuration is invalid: sequence parallel" \
	"$T/err"
{ cat "$DEMO"; echo 'base = { expert_parallel = 2; };'; } >"$T/baseep.conf"
expect "a base with ep 2 on a dense model" 78 "$PT" estimate \
	"$T/baseep.conf"
has "... saying the model has no experts" \
	"experts % ep (tp 1 pp 1 cp 1 ep 2 .*, no experts)" "$T/err"
# GPT-OSS's experts have biases, which Megatron-LM splits over etp 1
# only: the plan kept etp 2 (and tp's 2 for etp 0), and the runs died.
printf 'name = "go"; model = "gpt_oss_120b"; nodes = 8; gpus_per_node = 8;\ngpu = "b200"; seq_length = 4096; global_batch_size = 512;\nsearch = { tensor_parallel = [2]; expert_parallel = [16]; };\n' \
	>"$T/gptoss.conf"
expect "GPT-OSS at etp 2" 64 "$PT" estimate "$T/gptoss.conf" --tp 2 --ep 16 \
	--etp 2
has "... is refused: experts with biases" \
	"invalid layout: experts with biases need etp 1" "$T/err"
expect "... its plan" 0 "$PT" -q plan "$T/gptoss.conf" -o "$T/gptoss"
d=$(awk -F, 'NR > 1 && $7 != 1' "$T/gptoss/candidates.csv" | wc -l)
same "... keeps etp 1 alone" "$d" 0
expect "--recompute-layers 4 with full recompute is taken" 0 \
	"$PT" estimate "$DEMO" --recompute full --recompute-layers 4 --pp 1
expect "--mbs 2147483647 is refused" 64 "$PT" estimate "$DEMO" \
	--mbs 2147483647
has "... naming the option" "^error: --mbs 2147483647 is out of range" \
	"$T/err"
expect "--tp -2 is refused" 64 "$PT" estimate "$DEMO" --tp -2

# ---- memory per pipeline stage --------------------------------------------
# 32 layers over pp 4 as 14 + 8 + 8 + 2: the first stage is the heaviest,
# and the verdict is its memory.
expect "estimate an uneven pipeline" 0 "$PT" estimate "$DEMO" --tp 1 --pp 4 \
	--vp 1 --switch decoder_first_pipeline_num_layers=14 \
	--switch decoder_last_pipeline_num_layers=2 --format json
same "... the stages in pipeline order" \
	"$(jget stages.0.stage) $(jget stages.1.stage) $(jget stages.2.stage)" \
	"first middle last"
same "... their layers" \
	"$(jget stages.0.layers) $(jget stages.1.layers) $(jget stages.2.layers)" \
	"14 8 2"
same "... the ranks they are" \
	"$(jget stages.0.rank) $(jget stages.1.rank) $(jget stages.2.rank)" \
	"0 1 3"
same "... every layer dense" "$(jget stages.0.dense_layers) \
$(jget stages.1.dense_layers) $(jget stages.2.dense_layers)" "14 8 2"
same "... the verdict is the heaviest stage's" "$(jget stages.0.memory_gib)" \
	"$(jget memory.total_gib)"
expect "... and in the table" 0 "$PT" estimate "$DEMO" --tp 1 --pp 4 --vp 1 \
	--switch decoder_first_pipeline_num_layers=14 \
	--switch decoder_last_pipeline_num_layers=2
has "... a stages line" \
	"^  stages       first 14 layers [0-9.]* GiB, middle 8 layers [0-9.]* GiB, last 2 layers [0-9.]* GiB$" \
	"$T/out"

# ---- the pipeline split follows --pp ---------------------------------------
# Llama 3.1 405B's 126 layers split over pp 8 only with the embedding and
# the loss counted as layers (128 / 8), which the campaign leaves to
# paratune: estimate turns them on as plan does.  An uneven first and last
# stage needs neither, and a campaign that sets them keeps its choice.
printf 'name = "b405";\nmodel = "llama31_405b";\ngpu = "gb200";\nnodes = 64;\ngpus_per_node = 4;\nseq_length = 8192;\nglobal_batch_size = 256;\nprecision = "bf16";\n' \
	>"$T/405.conf"
expect "estimate --pp 8 of 126 layers" 0 "$PT" estimate "$T/405.conf" \
	--tp 4 --pp 8 --format json
same "... counts the embedding and the loss in the split" \
	"$(jget layout.account_for_embedding_in_pipeline_split) $(jget layout.account_for_loss_in_pipeline_split)" \
	"True True"
expect "... not with an uneven first and last stage" 0 "$PT" estimate \
	"$T/405.conf" --tp 4 --pp 8 --vp 1 \
	--switch decoder_first_pipeline_num_layers=14 \
	--switch decoder_last_pipeline_num_layers=16 --format json
same "... whose flags stay off" \
	"$(jget layout.account_for_embedding_in_pipeline_split) $(jget layout.account_for_loss_in_pipeline_split)" \
	"False False"

# ---- a site's --segment is the job's NVLink domain --------------------------
# On 64 nodes of GB200 the estimates place the job in 16-node segments
# (64 GPUs a domain); a site that asks Slurm for segments of one tray
# (slurm.directives) gets collectives across trays at network speed.
expect "estimate on NVL72 racks" 0 "$PT" estimate "$T/405.conf" --tp 4 --pp 8 \
	--format json
racks=$(jget pred_step_s)
expect "... and in segments of one tray" 0 "$PT" estimate "$T/405.conf" \
	--tp 4 --pp 8 --set 'slurm.directives=["--segment=1"]' --format json
trays=$(jget pred_step_s)
check "... slower there ($racks s -> $trays s)" \
	awk -v a="$racks" -v b="$trays" 'BEGIN { exit !(b > a * 1.01) }'

# ---- what a dense model shows of the MoE switches: nothing ------------------
expect "estimate a dense model, as a table" 0 "$PT" estimate "$DEMO"
hasnt "... no experts' tp" " etp " "$T/out"
hasnt "... no MoE switches" "moe_grouped_gemm" "$T/out"
expect "estimate an MoE model, as a table" 0 "$PT" estimate "$DEMO" \
	-s 'model="qwen3_30b_a3b"' --ep 8 --tp 1 --pp 1
has "... the experts' tp" " etp 1 " "$T/out"
has "... its MoE switches" "moe_token_dispatcher=alltoall" "$T/out"

# ---- a misspelt switch --------------------------------------------------------
# The message named the range of columns "from recompute_method to
# cuda_graph_full_iteration" and left the user to find the name.
expect "--switch fdsp=true, a typo" 64 "$PT" estimate "$DEMO" \
	--switch fdsp=true
has "... suggests the switch" \
	"error: --switch 'fdsp=true': not NAME=VALUE with a switch's name (did you mean 'fsdp'?)" \
	"$T/err"
expect "--switch fsdp, without its value" 64 "$PT" estimate "$DEMO" \
	--switch fsdp
has "... says so" "error: --switch 'fsdp' needs a value: fsdp=VALUE" "$T/err"
expect "--switch xyz=1, nothing close" 64 "$PT" estimate "$DEMO" \
	--switch xyz=1
has "... names the columns" "a column of candidates.csv" "$T/err"

# ---- the base of an MoE model: not NeMo's dense rule ------------------------
# NeMo's rule would give Qwen3 30B-A3B on 4 nodes tp 8 and ep 1 (every
# expert on every GPU); the base spreads the experts instead.
expect "the base of an MoE campaign" 0 "$PT" estimate "$DEMO" \
	-s 'model="qwen3_30b_a3b"' -s 'search.expert_parallel=[1,2,4,8]' \
	--format json
same "... from the smallest model-parallel candidate" \
	"$(jget base_source)" \
	"the safe candidate with the smallest model-parallel size"
check "... with the experts spread (ep $(jget layout.ep), tp $(jget layout.tp))" \
	test "$(jget layout.ep)" -gt 1 -a "$(jget layout.tp)" -lt 8

# ---- a sequence longer than the model's positions ---------------------------
# Megatron-LM asserts max_position_embeddings >= seq_length; torchtitan
# sizes its rotary tables from the run and has no such limit.
expect "seq_length 262144 on llama3_8b (8192 positions)" 0 "$PT" estimate \
	"$DEMO" -s seq_length=262144 -s search.context_parallel=[8] --tp 4 \
	--cp 8 --pp 1
has "... warns that Megatron-LM refuses it" \
	"262144 is longer than the model's max_position_embeddings" "$T/err"
expect "... the same for torchtitan" 0 "$PT" estimate "$DEMO" \
	-s seq_length=262144 -s search.context_parallel=[8] --tp 4 --cp 8 \
	--pp 1 -s 'framework="torchtitan"'
hasnt "... without the warning" "max_position_embeddings" "$T/err"
expect "... planned, the warning is given" 0 "$PT" -q plan "$DEMO" \
	-s seq_length=16384 -o "$T/longseq"
has "... once" "16384 is longer than the model's" "$T/err"
expect "... and not again by each list of the campaign" 0 "$PT" list \
	"$T/longseq"
hasnt "... (a cron log would repeat it)" "max_position_embeddings" "$T/err"

# ---- training time in the unit that shows it ----------------------------
# 0.01 B tokens on 32 GPUs take seconds to minutes: "0.00 days" said
# nothing, nor did NeMo's formula rounded to two decimals of a day.
expect "a short training time" 0 "$PT" estimate "$DEMO" \
	-s num_tokens_in_b=0.01
has "... is given in seconds" \
	"training *[0-9.]* seconds for 0.01 B tokens" "$T/out"
has "... NeMo's formula too, in minutes" \
	"; [0-9.]* minutes at 140 TFLOPS/GPU" "$T/out"
expect "a long one" 0 "$PT" estimate "$DEMO" -s num_tokens_in_b=10000
has "... in days" "training *[0-9]*[.][0-9][0-9] days for 10000 B" "$T/out"
expect "... and in JSON, in days as before" 0 "$PT" estimate "$DEMO" \
	-s num_tokens_in_b=0.01 --format json
check "... train_days below a day" python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(not 0 < d["train_days"] < 0.01)' "$T/out"
# NeMo's formula takes the model's family: mT5 trains 1.15 times
# longer than GPT-3 of its size, as `size --family mt5` says.
cat >"$T/mt5.conf" <<'EOF2'
name = "mt5"; model = { family = "mt5"; size_b = 10.0; };
nodes = 16; gpus_per_node = 8; gpu = "h100-sxm";
seq_length = 512; global_batch_size = 1024; num_tokens_in_b = 1000;
EOF2
expect "an mT5 campaign" 0 "$PT" estimate "$T/mt5.conf" --format json
check "... NeMo's formula with mT5's factor, as size gives it" \
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
p = d["params_b"]
days = 8 * p * 1e9 * 1000e9 * 1.15 / (128 * 140e12) / 86400
sys.exit(abs(d["train_days_nemo_formula"] / days - 1) > 1e-7)' "$T/out"

# An MoE model's compute goes with its active parameters: with the
# total, NeMo's formula gave qwen3_30b_a3b 2524 days beside 58 at the
# predicted speed.
expect "NeMo's formula of an MoE campaign" 0 "$PT" estimate \
	"$SRC/etc/campaigns/qwen3-30b-a3b-b200.conf" --format json
check "... takes its active parameters" python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
days = 8 * 3.3515e9 * 1000e9 / (8 * 140e12) / 86400
sys.exit(abs(d["train_days_nemo_formula"] / days - 1) > 2e-3)' "$T/out"
expect "... and says so" 0 "$PT" estimate \
	"$SRC/etc/campaigns/qwen3-30b-a3b-b200.conf"
has "... in its table" "(NeMo's formula, active parameters)$" "$T/out"
# Fewer tokens than one step takes trained in a fraction of a step.
expect "1000 tokens of a million-token batch" 0 "$PT" estimate "$DEMO" \
	-s num_tokens_in_b=0.000001 --format json
check "... take one step" python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(abs(d["train_days"] * 86400 / d["pred_step_s"] - 1) > 1e-9)' "$T/out"
# An achieved speed above the GPU's peak gave an MFU over 100 % unsaid.
expect "tflops_per_gpu above the GPU's peak" 0 "$PT" estimate "$DEMO" \
	-s tflops_per_gpu=5000
has "... is warned of" \
	"key 'tflops_per_gpu': 5000 is above the .*'s dense peak of [0-9.]* TFLOPS" \
	"$T/err"

# moe_router_topk = 2^24 (in range): the GPUs a token reaches were a
# product of 2^24 factors, and a plan of a thousand layouts ran for
# minutes.  It takes a moment now.
cat >"$T/topk.conf" <<'EOF'
name = "topk"; nodes = 8; gpus_per_node = 8; gpu = "h100-sxm";
model = { num_layers = 8; hidden_size = 1024; num_attention_heads = 8;
  vocab_size = 32000; max_position_embeddings = 4096;
  num_experts = 16777216; moe_router_topk = 16777216;
  moe_ffn_hidden_size = 8; };
global_batch_size = [64, 128, 256, 512]; seq_length = 4096;
search = { tensor_parallel = [1, 2]; pipeline_parallel = [1, 2];
  context_parallel = [1]; micro_batch_size = [1, 2, 4, 8];
  virtual_pipeline = [1]; expert_parallel = [2, 4, 8, 16, 32, 64];
  moe_token_dispatcher = ["alltoall", "allgather", "flex", "hybridep"];
  relax = ["ep_nvlink", "cp_seq", "nvl72_align"]; };
EOF
expect "plan with moe_router_topk = 2^24 takes seconds" 0 \
	timeout 20 "$PT" plan "$T/topk.conf" -o "$T/topk"

# A step of 0.00015 s was written 0.0002 (four decimals), its interval
# 0.0001 to 0.0002: low and high collapsed onto the prediction.  Three
# figures show now; a normal campaign's times are written as before.
cat >"$T/tiny.conf" <<'EOF'
name = "tiny"; nodes = 1; gpus_per_node = 1; gpu = "h100-sxm";
model = { num_layers = 1; hidden_size = 1; num_attention_heads = 1;
  vocab_size = 1; max_position_embeddings = 1; };
global_batch_size = 1; seq_length = 1;
EOF
expect "plan of a model whose step takes 0.15 ms" 0 \
	"$PT" plan "$T/tiny.conf" -o "$T/tiny"
d=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	NR == 2 { print $c["pred_step_s"], $c["pred_step_s_low"],
	          $c["pred_step_s_high"] }' "$T/tiny/candidates.csv")
case $d in
"0.000"[1-9][0-9][0-9]" 0.000"[1-9][0-9][0-9]" 0.000"[1-9][0-9][0-9])
	ok "... writes its time and interval in three figures" ;;
*)	ko "... writes its time and interval in three figures: $d" ;;
esac
set -- $d
[ "$1" != "$2" ] && [ "$1" != "$3" ] &&
	ok "... low and high apart from the prediction" ||
	ko "... low and high apart from the prediction: $d"
expect "... and lists" 0 "$PT" list "$T/tiny"

# ---- a planned campaign and the calibration a new plan would use ----------
# The loop "calibrate, include the calibration, see better predictions":
# a campaign directory keeps the calibration it was planned with, and
# the commands that read it say when the site and user files now give
# its GPU another one.
mkdir -p "$T/calsite"
cat >"$T/calsite/mine.conf" <<'EOF'
calibration = {
  h100-sxm = { name = "mine"; gemm_eff_max = 0.6; };
};
EOF
echo '@include "mine.conf"' >"$T/calsite/site.conf"
# The built-in constants under another name: it predicts the same.
cat >"$T/calsite/renamed.conf" <<'EOF'
calibration = { h100-sxm = { name = "renamed"; }; };
EOF
expect "plan on the built-in calibration" 0 "$PT" -q plan "$DEMO" \
	-o "$T/calold"
expect "estimate DIR after the site includes a calibration" 0 \
	"$PT" --site "$T/calsite/site.conf" estimate "$T/calold"
has "... the estimate is still the plan's" \
	"^  calibration  built-in defaults$" "$T/out"
has "... a note names both calibrations and where the new one is" \
	"^note: .*calold was planned with calibration built-in defaults; .* now give h100-sxm calibration mine (.*calsite/mine.conf:2)" \
	"$T/err"
has "... and how to plan again" "plan --force -o .*calold CAMPAIGN" \
	"$T/err"
check "... one note, nothing else" test "$(wc -l <"$T/err")" -eq 1
expect "... -q says nothing" 0 \
	"$PT" -q --site "$T/calsite/site.conf" estimate "$T/calold"
check "... ... on stderr either" test ! -s "$T/err"
expect "... results DIR notes it too" 0 \
	"$PT" --site "$T/calsite/site.conf" results "$T/calold"
has "... ... the note" "^note: .*calibration mine" "$T/err"
expect "... status DIR too" 0 \
	"$PT" --site "$T/calsite/site.conf" status "$T/calold"
has "... ... the note" "^note: .*calibration mine" "$T/err"
# Submit reads the site file beneath the frozen campaign for its caps:
# the site's calibration must not become the campaign's (it is noted).
expect "... submit --dry-run too" 0 \
	"$PT" --site "$T/calsite/site.conf" submit --dry-run "$T/calold"
has "... ... the note" "^note: .*planned with calibration built-in" \
	"$T/err"
expect "estimate DIR with the constants it was planned with" 0 \
	"$PT" --site "$T/calsite/renamed.conf" estimate "$T/calold"
check "... renamed, no note" test ! -s "$T/err"
expect "plan with the site's calibration" 0 \
	"$PT" -q --site "$T/calsite/site.conf" plan "$DEMO" -o "$T/calnew"
expect "... estimate DIR under the same site" 0 \
	"$PT" --site "$T/calsite/site.conf" estimate "$T/calnew"
check "... no note" test ! -s "$T/err"
has "... the campaign's frozen copy named as the source" \
	"^  calibration  mine (.*calnew/campaign.conf:[0-9]*)$" "$T/out"
expect "... estimate DIR once the site no longer includes it" 0 \
	"$PT" estimate "$T/calnew"
has "... notes the built-in defaults" \
	"^note: .*planned with calibration mine; .* now give h100-sxm calibration built-in defaults: " \
	"$T/err"
has "... campaign.conf records that the site file set it" \
	'^    frozen_from = "site";$' "$T/calnew/campaign.conf"
# The site now includes another calibration: the note names it, and
# needs no hedge (campaign.conf says the site file set the old one).
sed 's/"mine"/"mine2"/; s/0\.6;/0.7;/' "$T/calsite/mine.conf" \
	>"$T/calsite/mine2.conf"
expect "... estimate DIR once the site includes another" 0 \
	"$PT" --site "$T/calsite/mine2.conf" estimate "$T/calnew"
has "... notes the new one, to plan again" \
	"^note: .*calnew was planned with calibration mine; .* now give h100-sxm calibration mine2 (.*mine2.conf:2): to predict with it, plan again ('paratune plan --force -o " \
	"$T/err"
# A campaign file that sets its GPU's calibration itself: the site and
# user files give another, but a new plan of that file keeps its own,
# so no note (it came on every command, and planning again kept it).
{ cat "$DEMO"; cat "$T/calsite/mine.conf"; } >"$T/calsite/own.conf"
sed -i 's/"mine"/"own"/' "$T/calsite/own.conf"
expect "plan a campaign file that sets its own calibration" 0 \
	"$PT" -q plan "$T/calsite/own.conf" -o "$T/calown"
has "... campaign.conf records that the campaign file set it" \
	'^    frozen_from = "campaign";$' "$T/calown/campaign.conf"
expect "... estimate DIR under no site file" 0 "$PT" estimate "$T/calown"
check "... no note" test ! -s "$T/err"
expect "... estimate DIR under a site with another" 0 \
	"$PT" --site "$T/calsite/mine2.conf" estimate "$T/calown"
check "... ... no note" test ! -s "$T/err"
expect "... results DIR" 0 \
	"$PT" --site "$T/calsite/mine2.conf" results "$T/calown"
check "... ... no note" test ! -s "$T/err"
expect "... status DIR" 0 \
	"$PT" --site "$T/calsite/mine2.conf" status "$T/calown"
check "... ... no note" test ! -s "$T/err"
expect "... submit --dry-run" 0 \
	"$PT" --site "$T/calsite/mine2.conf" submit --dry-run "$T/calown"
check "... ... no note" test ! -s "$T/err"
# On the command line: a new plan with the same --set keeps it too.
expect "plan with the calibration set on the command line" 0 \
	"$PT" -q plan "$DEMO" -o "$T/calset" \
	-s 'calibration={h100-sxm={name="cli";gemm_eff_max=0.6;};}'
has "... campaign.conf records the command line" \
	'^    frozen_from = "command line";$' "$T/calset/campaign.conf"
expect "... estimate DIR under a site with another" 0 \
	"$PT" --site "$T/calsite/mine2.conf" estimate "$T/calset"
check "... no note" test ! -s "$T/err"
# A campaign file that sets some constants over the site's calibration:
# a new plan keeps those and takes the others from the site file, so a
# change of the others is noted, of those it sets not.
{ cat "$DEMO"; echo 'calibration = { h100-sxm = { name = "part"; attn_eff_flash = 0.5; }; };'; } \
	>"$T/calsite/part.conf"
expect "plan a campaign file that sets one constant over the site's" 0 \
	"$PT" -q --site "$T/calsite/site.conf" plan "$T/calsite/part.conf" \
	-o "$T/calpart"
has "... campaign.conf records what the campaign file set" \
	'^    frozen_own = \["attn_eff_flash", "name"\];$' \
	"$T/calpart/campaign.conf"
has "... and the site's constant in the frozen copy" \
	'^    gemm_eff_max = 0\.6;$' "$T/calpart/campaign.conf"
expect "... estimate DIR under the same site" 0 \
	"$PT" --site "$T/calsite/site.conf" estimate "$T/calpart"
check "... no note" test ! -s "$T/err"
expect "... estimate DIR once the site includes another" 0 \
	"$PT" --site "$T/calsite/mine2.conf" estimate "$T/calpart"
has "... notes it, for what the campaign file leaves to the site" \
	"^note: .*calpart was planned with calibration part; .* now give h100-sxm calibration mine2 (.*mine2.conf:2) for the constants its campaign file and --set leave to them: to predict with it, plan again" \
	"$T/err"
sed 's/0\.6;/0.6; attn_eff_flash = 0.3;/' "$T/calsite/mine.conf" \
	>"$T/calsite/attn.conf"
expect "... a site changing only what the campaign file sets" 0 \
	"$PT" --site "$T/calsite/attn.conf" estimate "$T/calpart"
check "... ... no note" test ! -s "$T/err"
# --set on estimate DIR changes that estimate, not the plan: the note is
# of the calibration the campaign was planned with.
expect "... estimate DIR --set of a constant the site gives" 0 \
	"$PT" --site "$T/calsite/site.conf" estimate "$T/calpart" \
	-s 'calibration={h100-sxm={gemm_eff_max=0.5;};}'
check "... ... no note under the same site" test ! -s "$T/err"
expect "... ... once the site includes another" 0 \
	"$PT" --site "$T/calsite/mine2.conf" estimate "$T/calpart" \
	-s 'calibration={h100-sxm={gemm_eff_max=0.5;};}'
has "... ... noted as without it" \
	"^note: .*calpart was planned with calibration part; .* now give h100-sxm calibration mine2 (.*mine2.conf:2) for the constants" \
	"$T/err"
expect "... estimate DIR --set over a site's calibration" 0 \
	"$PT" --site "$T/calsite/site.conf" estimate "$T/calnew" \
	-s 'calibration={h100-sxm={gemm_eff_max=0.5;};}'
check "... ... no note under the same site" test ! -s "$T/err"
expect "... under no site file" 0 "$PT" estimate "$T/calpart"
has "... ... noted: the built-in defaults beneath" \
	"^note: .*calpart was planned with calibration part; .* now give h100-sxm calibration built-in defaults for the constants" \
	"$T/err"
sed -i 's/frozen_own = .*/frozen_own = ["attn_eff_flash", "gemm_eff_max"];/' \
	"$T/calpart/campaign.conf"
expect "... campaign.conf edited to keep the site's constant too" 0 \
	"$PT" estimate "$T/calpart"
check "... ... no note" test ! -s "$T/err"
sed -i 's/frozen_own = .*/frozen_own = ["gemm_eff"];/' \
	"$T/calpart/campaign.conf"
expect "... a member of no calibration refused" 78 \
	"$PT" estimate "$T/calpart"
has "... ... naming the file, line and value" \
	"calpart/campaign.conf:[0-9]*: key 'calibration': frozen_own names members of the calibration, not 'gemm_eff'" \
	"$T/err"
sed -i 's/frozen_own = .*/frozen_own = ("name", 0.5);/' \
	"$T/calpart/campaign.conf"
expect "... a number in the list refused" 78 "$PT" estimate "$T/calpart"
has "... ... saying what it is" \
	"frozen_own names members of the calibration, not a number with a fraction" "$T/err"
sed -i 's/frozen_own = .*/frozen_own = "gemm_eff_max";/' \
	"$T/calpart/campaign.conf"
expect "... not a list refused" 78 "$PT" estimate "$T/calpart"
has "... ... saying what it is" \
	"frozen_own is a list of member names \[\"gemm_eff_max\", ...\], not a string" \
	"$T/err"
# A campaign.conf written before plan recorded frozen_own: every member
# the campaign file's, as then, even one the frozen group lacks.
cp -R "$T/calpart" "$T/calpartpre"
sed -i '/frozen_own/d; /^    gemm_eff_max = /d' "$T/calpartpre/campaign.conf"
expect "a campaign.conf with frozen_from but no frozen_own" 0 \
	"$PT" --site "$T/calsite/mine2.conf" estimate "$T/calpartpre"
check "... no note" test ! -s "$T/err"
# A campaign file that names no calibration, under no site file that
# names one: campaign.conf says so with an empty name, read back.
{ cat "$DEMO"; echo 'calibration = { h100-sxm = { attn_eff_flash = 0.5; }; };'; } \
	>"$T/calsite/noname.conf"
expect "plan a campaign file whose calibration has no name" 0 \
	"$PT" -q plan "$T/calsite/noname.conf" -o "$T/calnoname"
has "... campaign.conf writes the name empty" '^    name = "";$' \
	"$T/calnoname/campaign.conf"
expect "... estimate DIR reads it back" 0 "$PT" estimate "$T/calnoname"
check "... no note" test ! -s "$T/err"
# A calibration without a name is "built-in defaults" only when it
# predicts as they do.
{ cat "$DEMO"; echo 'calibration = { h100-sxm = { attn_eff_flash = 0.5; }; };'; } \
	>"$T/calsite/noname.conf"
expect "estimate a campaign file setting a constant and no name" 0 \
	"$PT" estimate "$T/calsite/noname.conf"
has "... shown as unnamed, not as the built-in defaults" \
	"^  calibration  unnamed (.*noname.conf:[0-9]*)$" "$T/out"
{ cat "$DEMO"; echo 'calibration = { h100-sxm = { }; };'; } \
	>"$T/calsite/empty.conf"
expect "... an empty group" 0 "$PT" estimate "$T/calsite/empty.conf"
has "... ... the built-in defaults" \
	"^  calibration  built-in defaults (.*empty.conf:[0-9]*)$" "$T/out"
# A campaign planned before plan recorded the layer: noted as then.
cp -R "$T/calown" "$T/calpre"
sed -i '/frozen_from/d' "$T/calpre/campaign.conf"
expect "a campaign.conf without the record" 0 "$PT" estimate "$T/calpre"
has "... the note as before, saying a campaign file's own stays" \
	"^note: .*calpre was planned with calibration own; .*: a new plan keeps a calibration its campaign file sets; else, to predict with it, plan again" \
	"$T/err"
check "... one line" test "$(wc -l <"$T/err")" -eq 1
# frozen_from in a file of the user's own: checked, but only a campaign
# directory's campaign.conf is plan's record; elsewhere the layers read
# say where the calibration comes from.
sed 's/frozen_from = "campaign"/frozen_from = "site"/' \
	"$T/calown/campaign.conf" >"$T/calsite/replan.conf"
expect "plan a campaign file saying frozen_from = \"site\"" 0 \
	"$PT" -q plan "$T/calsite/replan.conf" -o "$T/calre"
has "... ignored: the new plan records the campaign file" \
	'^    frozen_from = "campaign";$' "$T/calre/campaign.conf"
expect "... estimate DIR under a site with another" 0 \
	"$PT" --site "$T/calsite/mine2.conf" estimate "$T/calre"
check "... no note" test ! -s "$T/err"
echo 'calibration = { h100-sxm = { name = "mine"; gemm_eff_max = 0.6; frozen_from = "campaign"; }; };' \
	>"$T/calsite/from.conf"
expect "a site file's frozen_from is ignored" 0 \
	"$PT" --site "$T/calsite/from.conf" estimate "$T/calold"
has "... its calibration noted as the site's" \
	"^note: .*calold was planned with calibration built-in defaults; .* now give h100-sxm calibration mine (.*from.conf:1): to predict with it" \
	"$T/err"
expect "... config does not list it" 0 \
	"$PT" --site "$T/calsite/from.conf" config "$DEMO"
hasnt "... ... not in the calibration" frozen_from "$T/out"
sed -i 's/"campaign"/"elsewhere"/' "$T/calsite/from.conf"
expect "... another value is refused" 78 \
	"$PT" --site "$T/calsite/from.conf" config "$DEMO"
has "... ... naming the file, line and values" \
	"from.conf:1: key 'calibration': frozen_from is \"site\", \"user\", \"campaign\" or \"command line\", not 'elsewhere'" \
	"$T/err"
expect "estimate CAMPAIGN names the file of its calibration" 0 \
	"$PT" --site "$T/calsite/site.conf" estimate "$DEMO"
has "... in the table" "^  calibration  mine (.*calsite/mine.conf:2)$" \
	"$T/out"
expect "... and in JSON" 0 "$PT" --site "$T/calsite/site.conf" estimate \
	"$DEMO" --format json
same "... the file" "$(jget calibration_file)" "$T/calsite/mine.conf"
same "... the line" "$(jget calibration_line)" 2
expect "... the built-in defaults have none" 0 "$PT" estimate "$DEMO" \
	--format json
same "... file null" "$(jget calibration_file)" None
same "... line null" "$(jget calibration_line)" None

# Root's --rank of a path in another user's directory, which only root
# can search: refused for that directory's owner (77) whether or not a
# file is there; the answer was 64 with one and 66 without.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir "$T/nob" && touch "$T/nob/there" &&
		chown nobody "$T/nob" && chmod 700 "$T/nob"
	expect "root's --rank of a file in another user's directory" 77 \
		"$PT" estimate "$T/nob/there" --rank 1
	has "... refused for the directory's owner" \
		"nob', which belongs to nobody" "$T/err"
	expect "... and of a name there that is not" 77 \
		"$PT" estimate "$T/nob/none" --rank 1
	hasnt "... not said missing" "No such file" "$T/err"
	chown root "$T/nob"
else
	echo "skip - root's --rank in another user's directory (needs root)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
