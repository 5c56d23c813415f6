#!/bin/sh
# terminal.sh - text from logs, names and configuration cannot drive the
# terminal or a spreadsheet: what parse, list, plan's errors and results
# print holds no raw control character and is valid UTF-8, and CSV text
# cells that a spreadsheet would evaluate are neutralised.  The hostile
# text carries the sequence that retitles a terminal (ESC ] 0 ; ... BEL)
# and invalid UTF-8 (a stray byte, an overlong form, a surrogate).
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

# The hostile text, as bytes.
EVIL=$(printf 'x\033]0;owned\007\377\300\257\355\240\200')

# clean DESC FILE: FILE holds no C0 control but newline and is valid
# UTF-8 (python3 decodes it strictly).
clean() {
	if python3 - "$2" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
b.decode('utf-8')                    # raises on invalid UTF-8
bad = [c for c in b if (c < 0x20 and c not in (0x0a,)) or c == 0x7f]
sys.exit(1 if bad else 0)
PY
	then ok "$1"; else ko "$1"; cat -v "$2" | head -5; fi
}

# --- parse: the evidence line and the file name come from the user -----
log="$T/run${EVIL}.log"
{
	echo "iteration 1/ 10 | elapsed time per iteration (ms): 1000.0"
	echo "torch.OutOfMemoryError: CUDA out of memory. $EVIL"
} >"$log"
"$PT" parse "$log" >"$T/out" 2>&1
clean "parse prints no control character and valid UTF-8" "$T/out"
has "parse still shows the file and the evidence" 'run.*log:2: .*out of memory' \
	"$T/out"
"$PT" parse --format json "$log" >"$T/out" 2>&1
clean "parse --format json is valid UTF-8 with no control character" "$T/out"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out"
then ok "parse --format json is valid JSON"
else ko "parse --format json is valid JSON"; fi

# --- list: a name in candidates.csv ------------------------------------
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/c" >/dev/null 2>&1
python3 - "$T/c/candidates.csv" "$EVIL" <<'PY'
import sys, os
p, evil = sys.argv[1], os.fsencode(sys.argv[2])
lines = open(p, 'rb').read().split(b'\n')
f = lines[1].split(b',')
f[1] += evil
lines[1] = b','.join(f)
open(p, 'wb').write(b'\n'.join(lines))
PY
# No plan writes such a name: list refuses it, naming the line.
"$PT" list "$T/c" >"$T/out" 2>&1
check "list refuses the name (exit $?)" test $? = 65
clean "list prints no control character and valid UTF-8" "$T/out"
has "list shows the name, escaped" \
	'candidates.csv:2: candidate name .*x\\x1b]0;owned' "$T/out"
"$PT" list "$T/c" --format json >"$T/out" 2>&1
clean "list --format json is valid UTF-8 with no control character" "$T/out"

# --- an error quoting a configuration value -----------------------------
sed "s/^name = \"demo\";/name = \"demo$EVIL\";/" \
	"$SRC/etc/campaigns/demo.conf" >"$T/bad.conf"
"$PT" plan "$T/bad.conf" -o "$T/bad" >"$T/out" 2>&1
clean "an error quoting a name prints no control character" "$T/out"
has "and still quotes it" "demox\\\\x1b]0;owned" "$T/out"

# --- control text in a campaign's free-form strings ------------------------
# A model name that retitles and clears the terminal, an 8-bit CSI for a
# currency, an image that hides what follows, a C1 NEL in an env value
# and a right-to-left override in the name of a log pattern: the plan
# is refused at load time, each value named by file, line and key and
# shown escaped.  libconfig reads "\x1b" in a string as the byte.
cat >"$T/ctl.conf" <<'EOF'
name = "demo"; nodes = 4; gpu = "h100-sxm"; seq_length = 4096;
global_batch_size = 256;
model = { name = "evil\x1b]0;pwned\x07\x1b[2J"; num_layers = 32;
  hidden_size = 4096; num_attention_heads = 32; vocab_size = 128256; };
cost_per_gpu_hour = 3.0; currency = "\x9b2J";
container = { image = "nvcr.io#nvidia/nemo:25.04\x1b[8m"; };
env = ["NCCL_DEBUG=INFO\xc2\x85"];
results = { patterns = ( { name = "x\xe2\x80\xaey"; regex = "x"; } ); };
EOF
expect "control text in a campaign's strings is refused" 78 \
	"$PT" plan "$T/ctl.conf" -o "$T/ctl"
cat "$T/out" "$T/err" >"$T/all"
clean "... printing no control character and valid UTF-8" "$T/all"
has "... the model name, escaped" \
	"ctl.conf:3: key 'model.name': 'evil\\\\x1b]0;pwned\\\\x07" "$T/err"
has "... the 8-bit CSI" "ctl.conf:5: key 'currency': .*byte 0x9b" "$T/err"
has "... the image" "ctl.conf:6: key 'container.image'" "$T/err"
has "... the C1 control in env" \
	"ctl.conf:7: key 'env': .*control character \\\\u{0085}" "$T/err"
has "... the bidi control" \
	"ctl.conf:8: key 'results.patterns.name': .*bidi control" "$T/err"
check "... and plans nothing" test ! -e "$T/ctl"

# --- results: a log line that a spreadsheet would run ----------------------
D=$T/r
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$D" >/dev/null 2>&1
n=$(awk -F, 'NR == 2 { print $2 }' "$D/candidates.csv")
# U+FFFF and U+FFFE are valid UTF-8 but not XML characters: chart.svg
# holding them was no XML at all.  U+FDD0 is one.
printf '=HYPERLINK("http://x.invalid") torch.OutOfMemoryError: CUDA out of memory %s \357\277\277 \357\267\220\n' \
	"$EVIL" >"$D/runs/$n/slurm-1001.out"
awk -v n="$n" '$1 == n { for (i = 2; i <= NF; i++) {
	if ($i ~ /^state=/) $i = "state=failed"
	if ($i ~ /^job=/) $i = "job=1001"
	if ($i ~ /^attempt=/) $i = "attempt=1" } } { print }' "$D/state" \
	>"$D/state.new" && mv "$D/state.new" "$D/state"
# So may a candidate's name be (edited by hand: no plan writes one).
nx=$(printf '%s\357\277\276' "$n")
for f in candidates.csv state; do
	sed "s/$n\([, ]\)/$nx\1/" "$D/$f" >"$D/$f.new" && mv "$D/$f.new" "$D/$f"
done
mv "$D/runs/$n" "$D/runs/$nx"
"$PT" results "$D" >"$T/out" 2>&1
clean "results prints no control character and valid UTF-8" "$T/out"
cat "$D"/results/*.csv >"$T/csv"
clean "the CSV files hold no control character and are valid UTF-8" "$T/csv"
if python3 - "$D/results" <<'PY'
import csv, os, sys
cells = [c for f in ("results.csv", "oom.csv", "failed.csv")
         for row in csv.reader(open(os.path.join(sys.argv[1], f), newline=""))
         for c in row]
ev = [c for c in cells if "HYPERLINK" in c]
# The log's formula is text now; no cell starts a formula.
sys.exit(0 if ev and all(c.startswith("'=") for c in ev) and
         not any(c and c[0] in "=+@" for c in cells) else 1)
PY
then ok "a log line starting with '=' is neutralised in the CSV"
else ko "a log line starting with '=' is neutralised in the CSV"
	grep -h HYPERLINK "$D"/results/*.csv | cat -v
fi
if python3 - "$D/results" "$n" <<'PY'
import os, sys, xml.dom.minidom
d = sys.argv[1]
open(os.path.join(d, "report.html"), "rb").read().decode("utf-8")
xml.dom.minidom.parse(os.path.join(d, "chart.svg"))  # well-formed XML
svg = open(os.path.join(d, "chart.svg"), encoding="utf-8").read()
# U+FFFE and U+FFFF became U+FFFD; U+FDD0, an XML character, is kept.
sys.exit(0 if "\ufdd0" in svg and sys.argv[2] + "\ufffd" in svg and
         "\ufffe" not in svg and "\uffff" not in svg else 1)
PY
then ok "chart.svg is well-formed XML and report.html valid UTF-8"
else ko "chart.svg is well-formed XML and report.html valid UTF-8"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
