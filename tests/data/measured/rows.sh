# tests/data/measured/rows.sh - shell functions that read the rows of
# the CSVs beside it, sourced by tests/cli/measured.sh and
# bench/fit-hybridep.  field reads the current row from $header (the
# column names, blank-separated) and $row (a line of csv_rows).
# shellcheck shell=sh disable=SC2154 # header, row: set by the caller

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

# estimate_args CSV: the arguments of `paratune estimate` for the current
# row of CSV, one a line: its campaign file, then its layout and
# switches (an empty cell is left out: the campaign's default).
estimate_args() {
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
	printf '%s\n' "$@"
}

