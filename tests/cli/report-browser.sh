#!/bin/sh
# tests/cli/report-browser.sh - results/report.html and chart.svg in a real
# browser: headless Chromium (Debian's chromium package) loads the page from
# disk, and its DOM must hold the three tables, the inlined chart and the
# log text as text (a "<script>" in a log line stays text); screenshots of
# the page and the chart must be written.  Without Chromium the test is
# skipped (exit 77), so that its absence shows in the test summary.
# PARATUNE_SCREENSHOTS=DIR keeps the screenshots there for a person to see.
# Prints one line per check and "N passed, N failed" last.

PT=${PARATUNE_BIN:-./paratune}
SRC=${PARATUNE_SRCDIR:-.}
SIM=${PARATUNE_SIMTRAIN:-${PARATUNE_BUILDDIR:-.}/paratune-simtrain}
: "${PARATUNE_TEMPLATES:=$SRC/templates}"
export PARATUNE_TEMPLATES
export PARATUNE_SITE_CONF=/dev/null
unset WORLD_SIZE RANK LOCAL_RANK LOCAL_WORLD_SIZE SLURM_NTASKS SLURM_PROCID \
	SLURM_LOCALID SLURM_NTASKS_PER_NODE PARATUNE_SIM_FAULT

CHROMIUM=
for c in chromium chromium-browser; do
	command -v "$c" >/dev/null 2>&1 && { CHROMIUM=$c; break; }
done
if [ -z "$CHROMIUM" ]; then
	echo "SKIP: chromium is not installed (apt-get install chromium):" \
		"report.html and chart.svg were not checked in a browser"
	exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/report-browser.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }
has() { if grep -q -- "$2" "$3"; then ok "$1"; else ko "$1"; fi; }
hasnt() { if grep -q -- "$2" "$3"; then ko "$1"; else ok "$1"; fi; }

# chrome OUT ARGS...: headless Chromium with a throw-away profile, no
# network, no first-run work, its crash reports and caches kept in $T (not
# in $HOME); killed after two minutes.
chrome() {
	out=$1
	shift
	HOME=$T XDG_CONFIG_HOME=$T/.config XDG_CACHE_HOME=$T/.cache \
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/profile.XXXXXX")" "$@" \
		>"$out" 2>"$T/chrome.err"
}
# name TP PP MBS: the demo's candidate with these tensor and pipeline
# parallel and micro-batch sizes, as candidates.csv names it.
name() {
	awk -F, -v tp="$1" -v pp="$2" -v mbs="$3" \
		'$3 == tp && $4 == pp && $9 == mbs { print $2 }' "$D/candidates.csv"
}
simlog() {
	flags=$(sed -n '/^srun /,/--log-interval 1 &$/p' \
		"$1/runs/$2/job.sbatch" | sed -n '3,$p' |
		sed 's/ &$//; s/\\$//' | tr '\n\t' '  ')
	for r in 0 31; do
		# shellcheck disable=SC2086
		(cd "$1/runs/$2" && WORLD_SIZE=32 RANK=$r \
			PARATUNE_SIM_SPEEDUP=1000000 "$SIM" $flags) 2>&1
	done >"$1/runs/$2/slurm-$3.out"
}
setstate() {
	awk -v n="$2" -v s="$3" -v j="$4" '$1 == n { $2 = "state=" s
		for (i = 3; i <= NF; i++) if ($i ~ /^job=/) $i = "job=" j }
		{ print }' "$1/state" >"$1/state.new" && mv "$1/state.new" "$1/state"
}

D=$T/demo
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$D" || { ko "plan"; exit 1; }
for c in "1 1 1 1001" "2 1 2 1002" "4 1 1 1009" "1 1 2 1016"; do
	set -- $c
	simlog "$D" "$(name "$1" "$2" "$3")" "$4"
	st=completed
	[ "$4" = 1016 ] && st=failed  # 93 GiB planned: CUDA out of memory
	setstate "$D" "$(name "$1" "$2" "$3")" "$st" "$4"
done
BAD=$(name 2 2 1)
printf 'setup\nTraceback (most recent call last):\nValueError: bad <script>alert(1)</script> & "quotes"\n' \
	>"$D/runs/$BAD/slurm-1006.out"
setstate "$D" "$BAD" failed 1006
"$PT" results "$D" >/dev/null || ko "paratune results"
R=$D/results

chrome "$T/dom.html" --dump-dom "file://$R/report.html"
has "DOM: the page loaded" "<h1>paratune results: campaign demo</h1>" "$T/dom.html"
for id in results oom failed; do
	has "DOM: table $id" "<table id=\"$id\">" "$T/dom.html"
done
has "DOM: the chart is inline SVG" "<svg xmlns=\"http://www.w3.org/2000/svg\"" \
	"$T/dom.html"
has "DOM: the summary" "<pre id=\"summary\">campaign demo" "$T/dom.html"
rows=$(sed -n '/<table id="results">/,/<\/table>/p' "$T/dom.html" |
	grep -c '<tr')
[ "$rows" = 4 ] && ok "DOM: results table has 3 rows and a head" ||
	ko "DOM: results table rows: $rows"
has "DOM: OOM row with its class" "<td>cuda_oom</td>" "$T/dom.html"
hasnt "DOM: a <script> in a log stays text" "<script" "$T/dom.html"
has "DOM: ... shown escaped" "bad &lt;script&gt;alert(1)&lt;/script&gt; &amp;" \
	"$T/dom.html"

# The WHATWG parsing algorithm (html5lib, Debian's python3-html5lib) must
# meet no parse error; without html5lib this one check is skipped.
PY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import html5lib' 2>/dev/null && { PY=$p; break; }
done
if [ -n "$PY" ]; then
	errors=$("$PY" -c 'import html5lib, sys
p = html5lib.HTMLParser(strict=False)
p.parse(open(sys.argv[1], "rb"))
print(len(p.errors), p.errors[:3])' "$R/report.html")
	[ "${errors%% *}" = 0 ] && ok "HTML5 parser: no parse error" ||
		ko "HTML5 parser: $errors"
else
	echo "skip - HTML5 parse errors not checked (no python3-html5lib)"
fi

chrome "$T/shot.out" --screenshot="$T/report.png" --window-size=1400,2200 \
	"file://$R/report.html"
chrome "$T/shot2.out" --screenshot="$T/chart.png" --window-size=1060,360 \
	"file://$R/chart.svg"
for p in report chart; do
	magic=$(od -An -tx1 -N8 "$T/$p.png" 2>/dev/null | tr -d ' \n')
	size=$(wc -c <"$T/$p.png" 2>/dev/null || echo 0)
	# PNG signature (RFC 2083, 12.12); a blank page compresses to ~5 KB.
	if [ "$magic" = 89504e470d0a1a0a ] && [ "$size" -gt 10000 ]; then
		ok "screenshot of $p ($size bytes)"
	else
		ko "screenshot of $p (signature '$magic', $size bytes)"
		cat "$T/chrome.err"
	fi
done
if [ -n "$PARATUNE_SCREENSHOTS" ]; then
	mkdir -p "$PARATUNE_SCREENSHOTS" &&
		cp "$T/report.png" "$T/chart.png" "$R/report.html" "$R/chart.svg" \
			"$PARATUNE_SCREENSHOTS/"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
