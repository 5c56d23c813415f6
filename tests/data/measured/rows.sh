# tests/data/measured/rows.sh - shell functions that read the rows of
# the CSVs beside it (and of tests/data/held-out), sourced by
# tests/cli/measured.sh, tests/cli/held-out.sh, bench/held-out and
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
# Pure shell: a command per field, called some fifty times a row, made
# measured.sh spend most of its time starting cut.
field() {
	_rest=${row#*"$_tab"}
	for _h in $header; do
		case $_rest in
		*"$_tab"*) _v=${_rest%%"$_tab"*} _rest=${_rest#*"$_tab"} ;;
		*) _v=$_rest _rest= ;;
		esac
		if [ "$_h" = "$1" ]; then
			printf '%s\n' "$_v"
			return
		fi
	done
}
_tab=$(printf '\t')

# The columns estimate_args passes: the layout's sizes (--tp ...), the
# switches (--switch NAME=VALUE), of which the named choices pass as
# written and the others' 0 and 1 as false and true; and the columns
# that are the row's data, not the estimate's input (recompute_layers
# passes as --recompute-layers).  measured.sh checks that every column
# of every CSV is one of them, so that a new column is not dropped.
ROW_SIZES="tp pp cp ep etp vp mbs gbs recompute"
ROW_SWITCHES="recompute_method sequence_parallel distributed_optimizer
	attention account_for_embedding_in_pipeline_split
	account_for_loss_in_pipeline_split fp8_recipe fp8_param_gather
	cuda_graphs tp_comm_overlap overlap_grad_reduce overlap_param_gather
	fsdp cp_comm_type moe_grouped_gemm offload_layers
	decoder_first_pipeline_num_layers decoder_last_pipeline_num_layers
	recompute_modules grad_reduce_in_bf16 moe_token_dispatcher
	moe_a2a_overlap cuda_graph_full_iteration pipeline_layout
	fp8_dot_product_attention"
ROW_NAMED="recompute_method attention fp8_recipe cp_comm_type
	moe_token_dispatcher"
# shellcheck disable=SC2034 # read by measured.sh
ROW_DATA="campaign_file recompute_layers step_s peak_memory_gib group
	source note"

# estimate_args CSV: the arguments of `paratune estimate` for the current
# row of CSV, one a line: its campaign file, then its layout and
# switches (an empty cell is left out: the campaign's default), written
# as candidates.csv names them; a switch whose value is 0 or 1 is false
# or true, the layer counts and the named choices as they are.
estimate_args() {
	# Through the environment: awk -v would expand backslashes.
	printf '%s\n' "$row" | header=$header dir=$(dirname "$1") \
	    sizes=$ROW_SIZES switches=$ROW_SWITCHES named=$ROW_NAMED \
	    awk -F '\t' '
	BEGIN {
		nh = split(ENVIRON["header"], h, " ")
		dir = ENVIRON["dir"]
		ns = split(ENVIRON["sizes"], size, " ")
		nw = split(ENVIRON["switches"], sw, " ")
		split(ENVIRON["named"], named, " ")
		for (i in named)
			keep[named[i]] = 1
	}
	{
		for (i = 1; i <= nh; i++)	# the first of a name, as field
			if (!(h[i] in v))
				v[h[i]] = $(i + 1)
		print dir "/" v["campaign_file"]
		for (i = 1; i <= ns; i++)
			if (v[size[i]] != "")
				print "--" size[i] "\n" v[size[i]]
		if (v["recompute_layers"] != "")
			print "--recompute-layers\n" v["recompute_layers"]
		for (i = 1; i <= nw; i++) {
			c = sw[i]
			x = v[c]
			if (x == "")
				continue
			if (!(c in keep) && c !~ /layers$/)
				x = x == "0" ? "false" : x == "1" ? "true" : x
			print "--switch\n" c "=" x
		}
	}'
}

# estimate_row CSV JSON: `$PT estimate` of the current row of CSV
# (estimate_args) in JSON into the file JSON, its errors into JSON.err;
# returns its exit status.  PT: the paratune to run.
estimate_row() {
	_args=$(estimate_args "$1") _json=$2
	set --
	while IFS= read -r _a; do
		set -- "$@" "$_a"
	done <<EOF
$_args
EOF
	"$PT" estimate "$@" --format json >"$_json" 2>"$_json.err"
}

# estimate_value KEY JSON: the first value of "KEY": in the estimate's
# JSON file, a string's quotes removed.
estimate_value() {
	sed -n "s/^ *\"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" \
	    "$2" | head -1
}

# estimate_heaviest_gib JSON: the memory of the heaviest stage in the
# estimate's JSON file, as oom-risk is judged.
estimate_heaviest_gib() {
	sed -n 's/^ *"memory_gib": \([0-9.e+]*\).*/\1/p' "$1" | sort -g |
	    tail -1
}

# row_gpu CSV: the GPU the current row's campaign runs on (its
# gpu = "NAME").
row_gpu() {
	sed -n 's/^\(.*[; ]\)\{0,1\}gpu = "\([^"]*\)".*/\2/p' \
	    "$(dirname "$1")/$(field campaign_file)" | head -1
}
