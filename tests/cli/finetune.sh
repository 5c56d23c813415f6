#!/bin/sh
# finetune.sh - the shipped templates run what paratune estimated: a LoRA
# campaign runs NeMo's fine-tuning recipe with LoRA, a full fine-tuning
# one the same recipe without adapters, and the Megatron-LM template,
# which can only pretrain every weight, refuses LoRA when it is planned.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

LLAMA=$SRC/etc/campaigns/llama3-8b-h100.conf

# plan_ft DIR [--set K=V]...: a fine-tuning campaign of the checkpoint's
# layouts (NeMo's rule: fine-tuning names its tp and pp lists).
plan_ft() {
	ftdir=$1
	shift
	"$PT" -q plan "$LLAMA" -o "$T/$ftdir" --set mode=finetune \
		--set 'search.tensor_parallel=[1,2]' \
		--set 'search.pipeline_parallel=[1]' "$@"
}
jobscript() { ls "$T/$1"/runs/*/job.sbatch | head -1; }

expect "a LoRA campaign with the Megatron-LM template is refused" 78 \
	plan_ft lora-mlm --set peft=lora
has "saying why and what to use" \
	"megatron-lm.sbatch:[0-9]*: this template cannot run the campaign: .*no LoRA.*nemo2" \
	"$T/err"
[ -e "$T/lora-mlm" ] && ko "and no campaign is left" ||
	ok "and no campaign is left"

# pretrain_gpt.py builds decoders: T5 (and BERT) would run as a GPT of
# as many layers, without cross-attention, not the model estimated.
T5SET="--set model=\"t5_220m\" --set seq_length=512"
T5SET="$T5SET --set search.tensor_parallel=[1] --set search.sequence_parallel=[false]"
# shellcheck disable=SC2086
expect "T5 with the Megatron-LM template is refused" 78 "$PT" -q plan \
	"$LLAMA" -o "$T/t5-mlm" $T5SET
has "... saying pretrain_gpt.py builds decoders only" \
	"megatron-lm.sbatch:[0-9]*: .*builds decoders only.*nemo2" "$T/err"
# shellcheck disable=SC2086
expect "... and plans with the NeMo 2.0 template" 0 "$PT" -q plan "$LLAMA" \
	-o "$T/t5-nemo" $T5SET --set run.template=nemo2
has "... which runs NeMo's T5 recipe" \
	'nemo llm pretrain --factory t5_220m --yes' "$(jobscript t5-nemo)"

# Selective recompute's modules reach NeMo as a quoted Python list.
expect "NeMo 2.0 with recompute modules other than the default" 0 "$PT" -q \
	plan "$LLAMA" -o "$T/rcm-nemo" --set run.template=nemo2 \
	--set 'search.recompute_modules=["core_attn+mlp"]'
has "... renders them as a quoted list" \
	"model.config.recompute_modules='\\[\"core_attn\",\"mlp\"\\]'" \
	"$(jobscript rcm-nemo)"

expect "a LoRA campaign plans with the NeMo 2.0 template" 0 \
	plan_ft lora --set peft=lora --set run.template=nemo2
has "it runs NeMo's fine-tuning recipe" \
	'nemo llm finetune --factory llama3_8b --yes' "$(jobscript lora)"
hasnt "with the recipe's LoRA adapters" '^	peft=None' "$(jobscript lora)"

expect "a full fine-tuning campaign plans with the NeMo 2.0 template" 0 \
	plan_ft full --set run.template=nemo2
has "it runs the fine-tuning recipe" 'nemo llm finetune --factory' \
	"$(jobscript full)"
has "training every weight" '^	peft=None$' "$(jobscript full)"

expect "pretraining with the NeMo 2.0 template" 0 \
	"$PT" -q plan "$LLAMA" -o "$T/pre" --set run.template=nemo2
has "runs the pretraining recipe" 'nemo llm pretrain --factory' \
	"$(jobscript pre)"
hasnt "without a fine-tuning override" 'peft=' "$(jobscript pre)"

expect "full fine-tuning with the Megatron-LM template is planned" 0 \
	plan_ft full-mlm
for f in "$T"/*/runs/*/job.sbatch; do
	bash -n "$f" || ko "bash -n $f"
done
ok "every rendered script parses"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
