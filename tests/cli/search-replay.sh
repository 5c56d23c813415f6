#!/bin/sh
# search-replay.sh - bench/search-replay decides as the adaptive search
# does, on hand-made campaigns: it runs the configuration predicted
# fastest first, stops when no other can beat the best measured by 2 %
# even at its optimistic end, runs on while one still can, and finds a
# fastest that the prediction placed second within its interval.  No
# paratune binary needed.  Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

SR=$SRC/bench/search-replay

# fit.json as calibrate writes it, for one GPU; rows FILE:LINE.
# row CSV_LINE MEASURED PRED: one row of it.
row() {
	printf '{"row": "%s:%d", "group": "dense-fp8", "measured_step_s": %s, "pred_before_s": %s, "pred_fitted_s": %s, "pred_cv_s": %s},' \
		"$T/m.csv" "$1" "$2" "$3" "$3" "$3"
}
# fit ROWS: the JSON around them (a residual_low of -0.1).
fit() {
	rows=$1
	printf '{"calibrations": [{"gpu": "b200", "residual_low": -0.1, "residual_high": 0.1, "rows": [%s]}]}\n' \
		"${rows%,}" >"$T/fit.json"
}
cat >"$T/m.csv" <<'EOF'
campaign_file,tp,pp,mbs,gbs,recompute,step_s,group,source,note
a.conf,1,1,1,64,none,10.0,dense-fp8,x,
a.conf,2,1,1,64,none,20.0,dense-fp8,x,
b.conf,1,1,1,64,none,10.0,dense-fp8,x,
b.conf,2,1,1,64,none,9.0,dense-fp8,x,
EOF

# a: tp 1 predicted (and measured) far ahead of tp 2: one run is enough.
# b: tp 1 predicted 5 % ahead, tp 2 measured 10 % faster: the search
#    must run both and find tp 2.
fit "$(row 2 10.0 10.0)$(row 3 20.0 20.0)$(row 4 10.0 10.0)$(row 5 9.0 10.5)"
expect "replay two campaigns" 0 python3 "$SR" "$T/fit.json" "$T/m.csv"
has "... a: one run, the fastest" "^a.conf  *2  1, yes  *1, yes" "$T/out"
has "... b: both run, the fastest found" "^b.conf  *2  2, yes  *2, yes" "$T/out"
has "... the totals" \
	"found in 2 of 2 campaigns, running 3 of 4 configurations (75 %)" \
	"$T/out"

# c: tp 2 measured faster but predicted 40 % behind: beyond the
#    interval, so the search stops after tp 1 and misses it.
cat >"$T/m.csv" <<'EOF'
campaign_file,tp,pp,mbs,gbs,recompute,step_s,group,source,note
c.conf,1,1,1,64,none,10.0,dense-fp8,x,
c.conf,2,1,1,64,none,9.0,dense-fp8,x,
EOF
fit "$(row 2 10.0 10.0)$(row 3 9.0 14.0)"
expect "replay a campaign the prediction misleads" 0 python3 "$SR" \
	"$T/fit.json" "$T/m.csv"
has "... it stops after one run and says what it missed" \
	"^c.conf  *2  1, no (+11.1 %)" "$T/out"
has "... in the totals" "found in 0 of 1 campaigns.*at worst 11.1 % slower" \
	"$T/out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
