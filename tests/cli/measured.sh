#!/bin/sh
# measured.sh - the published measured runs of tests/data/measured against
# `paratune estimate`.  For every row of every CSV there: its campaign
# loads, its layout is valid (Megatron-LM's divisibility rules accept
# what NVIDIA and the others ran), the estimate does not call a run that
# ran `oom-risk`, and where the source publishes a peak memory the
# estimate is within 10 % of it (issue 12, section 5; the only
# published peaks are torchtitan's, SOURCES.md, section 3).  The predicted
# step time against the measured one is printed with the mean absolute
# percentage error per group; it is not asserted (calibration's bench
# judges it).
. "$(dirname "$0")/lib.sh"

DATA=$SRC/tests/data/measured

# csv_rows FILE: the CSV's rows as tab-separated fields, quotes removed,
# each line prefixed with its line number (RFC 4180 quoting, no
# newlines inside fields, as the data files are written).
csv_rows() {
	awk 'BEGIN { OFS = "\t" }
	{
		out = ""; f = ""; q = 0
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (q) {
				if (c == "\"" && substr($0, i + 1, 1) == "\"") {
					f = f c; i++
				} else if (c == "\"") q = 0
				else f = f c
			} else if (c == "\"") q = 1
			else if (c == ",") { out = out f "\t"; f = "" }
			else f = f c
		}
		print NR "\t" out f
	}' "$1"
}

# field NAME: the current row's value of column NAME ("" when absent).
field() {
	i=1
	for h in $header; do
		if [ "$h" = "$1" ]; then
			printf '%s\n' "$row" | cut -f "$((i + 1))"
			return
		fi
		i=$((i + 1))
	done
}

# json_num KEY FILE: the first number after "KEY": in FILE.
json_num() {
	sed -n "s/^ *\"$1\": \\([-0-9.e+]*\\).*/\\1/p" "$2" | head -1
}

# estimate_row CSV: builds the row's estimate command and runs it into
# $T/est.json; returns its exit status.
estimate_row() {
	dir=$(dirname "$1")
	set -- "$dir/$(field campaign_file)"
	for c in tp pp cp ep etp vp mbs gbs recompute; do
		v=$(field $c)
		[ -n "$v" ] && set -- "$@" "--$c" "$v"
	done
	v=$(field recompute_layers)
	[ -n "$v" ] && set -- "$@" --recompute-layers "$v"
	for c in recompute_method sequence_parallel distributed_optimizer \
	    attention account_for_embedding_in_pipeline_split \
	    account_for_loss_in_pipeline_split fp8_recipe fp8_param_gather \
	    cuda_graphs tp_comm_overlap overlap_grad_reduce \
	    overlap_param_gather fsdp cp_comm_type moe_grouped_gemm \
	    offload_layers decoder_first_pipeline_num_layers \
	    decoder_last_pipeline_num_layers recompute_modules \
	    grad_reduce_in_bf16 moe_token_dispatcher moe_a2a_overlap \
	    cuda_graph_full_iteration; do
		v=$(field $c)
		[ -z "$v" ] && continue
		s=$c
		case $c in
		*layers | recompute_method | attention | fp8_recipe | \
		cp_comm_type | moe_token_dispatcher) ;;
		*) case $v in 0) v=false ;; 1) v=true ;; esac ;;
		esac
		set -- "$@" --switch "$s=$v"
	done
	"$PT" estimate "$@" --format json >"$T/est.json" 2>"$T/err"
}

peaks=0
near=0
: >"$T/errors"
for csv in "$DATA"/*.csv; do
	name=$(basename "$csv")
	header=$(head -1 "$csv" | tr ',' ' ')
	csv_rows "$csv" | tail -n +2 >"$T/rows"
	while IFS= read -r row; do
		line=${row%%	*}
		what="$name:$line $(basename "$(field campaign_file)" .conf)"
		what="$what tp $(field tp) pp $(field pp) cp $(field cp)"
		what="$what ep $(field ep) vp $(field vp) mbs $(field mbs)"
		group=$(field group)
		meas=$(field step_s)
		peak=$(field peak_memory_gib)
		if ! estimate_row "$csv"; then
			ko "$what: layout rejected: $(head -1 "$T/err")"
			continue
		fi
		ok "$what: layout valid"
		status=$(sed -n 's/^ *"memory_status": "\([^"]*\)".*/\1/p' \
		         "$T/est.json")
		# The heaviest stage's memory, as oom-risk is judged.
		mem=$(sed -n 's/^ *"memory_gib": \([0-9.e+]*\).*/\1/p' \
		      "$T/est.json" | sort -g | tail -1)
		pred=$(json_num pred_step_s "$T/est.json")
		err=$(awk -v p="$pred" -v m="$meas" \
		      'BEGIN { printf "%+.1f", 100 * (p - m) / m }')
		printf '%s\t%s\n' "$group" "$err" >>"$T/errors"
		echo "     memory $mem GiB (measured ${peak:--}), step $pred s" \
		     "(measured $meas s, $err %)"
		if [ "$status" = "oom-risk" ]; then
			ko "$what: predicted oom-risk ($mem GiB) but it ran"
		else
			ok "$what: not oom-risk ($status)"
		fi
		[ -z "$peak" ] && continue
		peaks=$((peaks + 1))
		if awk -v p="$mem" -v m="$peak" \
		    'BEGIN { d = (p - m) / m; exit !(d <= 0.10 && d >= -0.10) }'
		then
			near=$((near + 1))
			ok "$what: memory $mem GiB within 10 % of $peak GiB"
		else
			ko "$what: memory $mem GiB not within 10 % of $peak GiB"
		fi
	done <"$T/rows"
done

echo "step-time error of the estimate (informational, not asserted):"
sort "$T/errors" | awk -F '\t' '
	{ e = $2 < 0 ? -$2 : $2; s[$1] += e; n[$1]++; t += e; k++ }
	END {
		for (g in s)
			printf "  %-11s MAPE %5.1f %% over %d rows\n", g, s[g] / n[g], n[g]
		if (k) printf "  %-11s MAPE %5.1f %% over %d rows\n", "all", t / k, k
	}'

echo "published peak memory within 10 %: $near of $peaks rows"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
