#!/bin/sh
# huge.sh - huge inputs in bounded memory, with the figures printed:
#
#   - a campaign of HUGE_COMBINATIONS_LOG2 (default: over 10^8)
#     combinations is planned with --progress: progress lines reach
#     100 % of the product of the search lists, and the peak resident
#     memory is that of a grid 128 times smaller, give or take 16 MB;
#   - HUGE_LOG_GB (default 10, 1 under the sanitizers) of Megatron-LM log,
#     generated on the fly (tests/cli/log-stream, never on disk), is read
#     by `paratune parse` from a pipe to its end: the first 10^6 steps
#     are kept (the rest counted out in a note) and the peak memory stays
#     under 96 MB (256 MB under the sanitizers);
#   - a single 1 GB line and 256 MB of binary junk are read in the same
#     bounded memory;
#   - sparse files of gigabytes as a campaign file, an @include target,
#     a campaign directory's campaign.conf and its job scripts are
#     refused at once, unread: configuration files hold at most 1 MiB
#     with what they include, job scripts 4 MiB (Slurm's default
#     max_script_size), a campaign's state and candidates.csv 128 MiB
#     and 200,000 candidates.
#
# Runs the build tree's binaries; no Slurm needed.  Peak memory is the
# child's ru_maxrss, read with python3.  Last line: "N passed, N failed".

PT=${PARATUNE_BIN:-./paratune}
SRC=${PARATUNE_SRCDIR:-.}
BUILD=${PARATUNE_BUILDDIR:-.}
: "${PARATUNE_TEMPLATES:=$SRC/templates}"
export PARATUNE_TEMPLATES
export PARATUNE_SITE_CONF=/dev/null
STREAM=$BUILD/tests/cli/log-stream
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
# The reader keeps at most 10^6 step records (LOGPARSE_STEPS_MAX, about
# 50 MB) and a line of at most 1 MiB, so its peak is bounded whatever the
# input; AddressSanitizer's shadow memory adds to it.
if [ -n "${ASAN_OPTIONS:-}" ]; then
	GB=${HUGE_LOG_GB:-1} MAX_MB=256
else
	GB=${HUGE_LOG_GB:-10} MAX_MB=96
fi
STEPS_MAX=1000000

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else ko "$d"; fi; }

# measure OUT CMD...: run CMD (a shell command line) with stdout to OUT
# and stderr to OUT.err; print "SECONDS PEAK_KB EXIT".
measure() {
	python3 - "$@" <<'EOF'
import resource, subprocess, sys, time
out = sys.argv[1]
t0 = time.monotonic()
with open(out, "wb") as o, open(out + ".err", "wb") as e:
    rc = subprocess.call(sys.argv[2], shell=True, stdout=o, stderr=e)
dt = time.monotonic() - t0
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("%.2f %d %d" % (dt, peak, rc))
EOF
}

# ---- a grid of over 10^8 combinations --------------------------------------
# campaign FILE WIDE: Llama 3 70B on 1024 GPUs, 18 search lists; WIDE
# adds seven more two-way switches (x128).
. "$SRC/bench/llama3-70b-grid.sh"
campaign() {
	llama3_70b_grid "$1" huge simulated 1024 50
	cat >>"$1" <<EOF
  account_for_embedding_in_pipeline_split = [true, false];
  account_for_loss_in_pipeline_split = [true, false];
EOF
	if [ "$2" = wide ]; then
		cat >>"$1" <<EOF
  cuda_graphs = [true, false];
  overlap_grad_reduce = [true, false];
  activation_offload_layers = [0, 1];
  distributed_optimizer = [true, false];
  fsdp = [true, false];
  tp_comm_overlap = [true, false];
  overlap_param_gather = [true, false];
  fp8_param_gather = [true, false];
EOF
	fi
	echo "};" >>"$1"
}
campaign "$T/small.conf" narrow
campaign "$T/huge.conf" wide
# The product of the list lengths, from the file itself, except that the
# recompute layer counts and methods multiply the "full" recompute only
# (none, selective, and full x 4 x 2: 10 ways, not 3 x 4 x 2).
want=$(awk -F'[][]' '/= \[/ { n = split($2, a, ",")
		if ($1 ~ /recompute/) r[$1] = n; else p *= n }
	BEGIN { p = 1 }
	END { for (k in r) if (k ~ /recompute = /) nr = r[k]
		else rf = rf ? rf * r[k] : r[k]
		printf "%d\n", p * (nr - 1 + rf) }' "$T/huge.conf")
small=$(measure "$T/small.out" "'$PT' plan '$T/small.conf' -o '$T/small' --progress")
huge=$(measure "$T/huge.out" "'$PT' plan '$T/huge.conf' -o '$T/huge' --progress")
set -- $small
s_kb=$2
set -- $huge
h_s=$1 h_kb=$2 h_rc=$3
check "plan of $want combinations exits 0 ($h_rc)" test "$h_rc" = 0
check "the grid is over 10^8 combinations" test "$want" -ge 100000000
last=$(tr '\r' '\n' <"$T/huge.out.err" | grep '^plan: ' | tail -1)
echo "  $last"
check "progress reaches 100 % of the product of the lists" \
	test -n "$(echo "$last" | grep "^plan: $want of $want combinations (100 %)")"
check "progress lines come at most 4 a second" test \
	"$(grep -c '^plan: ' "$T/huge.out.err")" -le \
	"$(awk -v s="$h_s" 'BEGIN { printf "%d", s * 4 + 2 }')"
check "peak memory does not grow with the grid (${h_kb} kB vs ${s_kb} kB)" \
	test "$h_kb" -le $((s_kb + 16384))
check "-q shows no progress" sh -c "'$PT' -q plan '$T/small.conf' \
	-o '$T/quiet' --progress 2>&1 | grep -q . && exit 1 || exit 0"
echo "figure: plan of $want combinations: $h_s s, peak RSS $h_kb kB" \
	"(a grid 128 times smaller: $s_kb kB)"

# ---- a 10 GB log through a pipe --------------------------------------------
mb=$((GB * 1000))
r=$(measure "$T/log.json" "'$STREAM' megatron $mb 2>'$T/lines' | '$PT' parse /dev/stdin --format json")
set -- $r
secs=$1 kb=$2 rc=$3
lines=$(awk '{ print $2 }' "$T/lines")
steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["steps"])' "$T/log.json" 2>/dev/null)
check "parse of $GB GB exits 0 ($rc)" test "$rc" = 0
check "the whole stream was read (the generator finished: $lines lines)" \
	test -n "$lines"
[ -n "$lines" ] && [ "$lines" -lt $STEPS_MAX ] && keep=$lines || keep=$STEPS_MAX
check "every step up to the cap kept ($steps of $lines)" test "$steps" = "$keep"
if [ -n "$lines" ] && [ "$lines" -gt $STEPS_MAX ]; then
	check "  and the rest noted as ignored" \
		grep -q "more than $STEPS_MAX steps: the rest ignored" "$T/log.json"
fi
check "peak memory under $MAX_MB MB ($kb kB)" test "$kb" -lt $((MAX_MB * 1024))
echo "figure: $GB GB of Megatron-LM log ($lines iterations) parsed from a" \
	"pipe in $secs s ($(awk -v g="$GB" -v s="$secs" \
	'BEGIN { printf "%.2f", g / s }') GB/s with the generator), peak RSS $kb kB"

# ---- one 1 GB line, and binary junk ----------------------------------------
r=$(measure "$T/long.json" "'$STREAM' longline 1000 | '$PT' parse /dev/stdin --format json")
set -- $r
check "a 1 GB line without a break: parsed, exit $3" test "$3" = 0
check "  and noted as cut" grep -q "1 line over [0-9]* bytes cut" "$T/long.json"
check "  in bounded memory ($2 kB)" test "$2" -lt $((MAX_MB * 1024))
echo "figure: one 1 GB line in $1 s, peak RSS $2 kB"
r=$(measure "$T/junk.json" "'$STREAM' junk 256 | '$PT' parse /dev/stdin --format json")
set -- $r
check "256 MB of binary junk: read, exit $3 (65: not a training log)" \
	test "$3" = 65
check "  in bounded memory ($2 kB)" test "$2" -lt $((MAX_MB * 1024))
check "  and reported as not a training log" \
	grep -q '"format": "unknown"' "$T/junk.json"
echo "figure: 256 MB of junk in $1 s, peak RSS $2 kB"

# ---- huge configuration files and job scripts ------------------------------
# A sparse campaign.conf of 2 GB was read whole, twice: `list` took 37 s
# and 2.1 GB of memory; a sparse job.sbatch of 3 GB took submit to
# 2.2 GB.  Each is refused now from its size, before it is read.
# in_time_and_memory WHAT SECONDS KB: within 5 s and 32 MB (ASan: 256).
FILE_MB=32
[ -n "${ASAN_OPTIONS:-}" ] && FILE_MB=256
in_time_and_memory() {
	check "  at once ($2 s)" awk -v s="$2" 'BEGIN { exit !(s < 5) }'
	check "  in little memory ($3 kB)" test "$3" -lt $((FILE_MB * 1024))
	echo "figure: $1 refused in $2 s, peak RSS $3 kB"
}
sed '/^nodes = /d' "$SRC/etc/campaigns/demo.conf" >"$T/fit.conf"
{ echo 'nodes = 4;'; yes '# padding' | head -c 1000000; } >>"$T/fit.conf"
expect_rc() { "$@" >"$T/rc.out" 2>"$T/rc.err"; echo $?; }
check "a campaign file just under 1 MiB is read" \
	test "$(expect_rc "$PT" config "$T/fit.conf")" = 0
head -c $((1048576 + 1)) /dev/zero | tr '\0' '\n' >"$T/over.conf"
check "one of 1 MiB and a byte is refused (78)" \
	test "$(expect_rc "$PT" config "$T/over.conf")" = 78
check "  as too large" grep -q "over.conf': larger than 1 MiB" "$T/rc.err"
truncate -s 2G "$T/sparse.conf"
r=$(measure "$T/sparse.out" "'$PT' config '$T/sparse.conf'")
set -- $r
check "a sparse 2 GB campaign file: refused, exit $3 (78)" test "$3" = 78
check "  saying why" grep -q \
	"campaign file '.*sparse.conf': larger than 1 MiB" "$T/sparse.out.err"
in_time_and_memory "a 2 GB campaign file" "$@"
printf 'name = "x";\n@include "sparse.conf"\n' >"$T/inc.conf"
r=$(measure "$T/inc.out" "'$PT' config '$T/inc.conf'")
set -- $r
check "an @include of it: refused, exit $3 (78)" test "$3" = 78
check "  naming the @include" grep -q \
	"inc.conf:2: cannot include 'sparse.conf': larger than" \
	"$T/inc.out.err"
in_time_and_memory "an @include of 2 GB" "$@"
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/camp"
cp -p "$T/camp/campaign.conf" "$T/campaign.conf"
truncate -s 2G "$T/camp/campaign.conf"
r=$(measure "$T/list.out" "'$PT' list '$T/camp'")
set -- $r
check "list of a campaign whose campaign.conf is 2 GB: exit $3 (78)" \
	test "$3" = 78
check "  saying why" grep -q "campaign.conf': larger than 1 MiB" \
	"$T/list.out.err"
in_time_and_memory "a 2 GB campaign.conf" "$@"
cp -p "$T/campaign.conf" "$T/camp/campaign.conf"
for s in "$T"/camp/runs/*/job.sbatch; do truncate -s 3G "$s"; done
# No Slurm here: the script is read before Slurm is asked.
r=$(measure "$T/submit.out" \
	"SLURM_CONF=/nonexistent '$PT' submit '$T/camp' --top 1")
set -- $r
check "submit of 3 GB job scripts: refused, exit $3 (65)" test "$3" = 65
check "  saying why" grep -q \
	"job.sbatch' is larger than 4 MiB, the most Slurm takes" \
	"$T/submit.out.err"
check "  nothing submitted" \
	test -z "$(grep ' submitted ' "$T/camp/journal.log")"
in_time_and_memory "a 3 GB job script" "$@"

# ---- a huge state and candidates.csv ---------------------------------------
# A 420 MB state its owner left took the owner's child 4 GB of memory
# (a candidate's status is 1 KiB however short its line).  The state and
# candidates.csv hold at most 128 MiB (100,000 candidates at their
# longest lines, with room); a larger one is refused from its size.
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/big"
for f in state candidates.csv; do
	cp -p "$T/big/$f" "$T/$f.kept"
	truncate -s 420M "$T/big/$f"
	r=$(measure "$T/big.out" "'$PT' list '$T/big'")
	set -- $r
	check "list of a campaign whose $f is 420 MB: exit $3 (65)" \
		test "$3" = 65
	check "  naming the file and the cap" grep -q \
		"cannot read '.*/big/$f': larger than 128 MiB" "$T/big.out.err"
	in_time_and_memory "a 420 MB $f" "$@"
	cp -p "$T/$f.kept" "$T/big/$f"
done
# At the cap, a state is read (its zeros then are no line); a byte over
# it, it is not.
truncate -s $((128 * 1048576)) "$T/big/state"
check "a state of 128 MiB: read (65 for the zeros after its end)" \
	test "$(expect_rc "$PT" list "$T/big")" = 65
check "  not refused for its size" grep -q "text after the end line" "$T/rc.err"
truncate -s $((128 * 1048576 + 1)) "$T/big/state"
check "a state of 128 MiB and a byte: refused (65)" \
	test "$(expect_rc "$PT" list "$T/big")" = 65
check "  for its size" grep -q "state': larger than 128 MiB" "$T/rc.err"
cp -p "$T/state.kept" "$T/big/state"
check "  and the campaign read again once it is whole" \
	test "$(expect_rc "$PT" list "$T/big")" = 0
# Nor more candidates than twice what plan keeps (200,000), however
# short their lines: bare names fill 128 MiB with 15 million statuses of
# 1 KiB each.
names() { awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) print "a" i }'; }
bare_state() {
	{ head -3 "$T/state.kept"; names "$1"; sed -n '4,$p' "$T/state.kept"; } \
		>"$T/big/state"
}
extra=$(($(grep -c ' state=' "$T/state.kept")))
bare_state $((200000 - extra))
check "a state of 200,000 candidates: read" \
	test "$(expect_rc "$PT" list "$T/big")" = 0
bare_state $((200001 - extra))
check "one of 200,001 candidates: refused (65)" \
	test "$(expect_rc "$PT" list "$T/big")" = 65
check "  naming the line and the cap" grep -q \
	"state:200004: more than 200000 candidates" "$T/rc.err"
cp -p "$T/state.kept" "$T/big/state"
rows=$(($(wc -l <"$T/candidates.csv.kept") - 1))
{ cat "$T/candidates.csv.kept"
  sed -n 2p "$T/candidates.csv.kept" | cut -d, -f3- |
	awk -v n=$((200001 - rows)) -v r="$rows" \
	'{ for (i = 1; i <= n; i++) print r + i ",b" i "," $0 }'
} >"$T/big/candidates.csv"
check "a candidates.csv of 200,001 rows: refused (65)" \
	test "$(expect_rc "$PT" list "$T/big")" = 65
check "  naming the line and the cap" grep -q \
	"candidates.csv:200002: more than 200000 candidates" "$T/rc.err"
cp -p "$T/candidates.csv.kept" "$T/big/candidates.csv"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
