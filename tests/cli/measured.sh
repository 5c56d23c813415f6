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
# judges it).  The held-out runs of tests/data/held-out, which no fit
# reads, are checked the same way.
. "$(dirname "$0")/lib.sh"

DATA=$SRC/tests/data/measured
HELD_OUT=$SRC/tests/data/held-out

. "$DATA/rows.sh"

# shellcheck disable=SC2086 # the lists, one name a word
known=$(printf ' %s' $ROW_SIZES $ROW_SWITCHES $ROW_DATA)
peaks=0
near=0
: >"$T/errors"
for csv in "$DATA"/*.csv "$HELD_OUT"/*.csv; do
	name=$(basename "$(dirname "$csv")")/$(basename "$csv")
	header=$(head -1 "$csv" | tr ',' ' ')
	# Every column reaches the estimate or is the row's data
	# (rows.sh): a column estimate_args does not know would be
	# dropped from every row without a word.
	unknown=
	for c in $header; do
		case "$known " in
		*" $c "*) ;;
		*) unknown="$unknown $c" ;;
		esac
	done
	if [ -n "$unknown" ]; then
		ko "$name: columns rows.sh does not pass to estimate:$unknown"
	else
		ok "$name: every column passed to estimate or kept as data"
	fi
	csv_rows "$csv" | tail -n +2 >"$T/rows"
	while IFS= read -r row; do
		line=${row%%	*}
		what="$name:$line $(basename "$(field campaign_file)" .conf)"
		what="$what tp $(field tp) pp $(field pp) cp $(field cp)"
		what="$what ep $(field ep) vp $(field vp) mbs $(field mbs)"
		group=$(field group)
		case $csv in
		"$HELD_OUT"/*) group="$group(held-out)" ;;
		esac
		meas=$(field step_s)
		peak=$(field peak_memory_gib)
		if ! estimate_row "$csv" "$T/est.json"; then
			ko "$what: layout rejected: $(head -1 "$T/est.json.err")"
			continue
		fi
		ok "$what: layout valid"
		status=$(estimate_value memory_status "$T/est.json")
		mem=$(estimate_heaviest_gib "$T/est.json")
		pred=$(estimate_value pred_step_s "$T/est.json")
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
	{
		e = $2 < 0 ? -$2 : $2; s[$1] += e; n[$1]++
		if ($1 !~ /held-out/) { t += e; k++ }
	}
	END {
		f = "  %-15s MAPE %5.1f %% over %d rows%s\n"
		for (g in s)
			printf f, g, s[g] / n[g], n[g], ""
		if (k)
			printf f, "all", t / k, k, " (held-out apart)"
	}'

echo "published peak memory within 10 %: $near of $peaks rows"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
