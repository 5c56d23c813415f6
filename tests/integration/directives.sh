#!/usr/bin/env bash
# Site directives on the local testbed (scripts/testbed): what
# slurm.directives and slurm.gpu_type ask for reaches the job Slurm
# holds, as sbatch would have set it from the same #SBATCH lines.
# Needs a running testbed (this test does not start one: exit 77
# without it).  Last line: "N passed, N failed"; exit 1 on any failure.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${PARATUNE_BUILDDIR:-$ROOT}
PT=$BUILD/paratune
DATA=$ROOT/tests/integration/data
export PARATUNE_SITE_CONF=/dev/null
PASS=0
FAIL=0

eval "$("$ROOT/scripts/testbed" env)"
if ! scontrol ping >/dev/null 2>&1; then
	echo "testbed not running: skipped"
	exit 77
fi
WORK=$(mktemp -d /tmp/paratune-itest.XXXXXX)

ok()   { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
finish() {
	[[ -d $WORK/dirs ]] && "$PT" -q cancel "$WORK/dirs" >/dev/null 2>&1
	rm -rf "$WORK"
	echo "$PASS passed, $FAIL failed"
	exit $((FAIL == 0 && PASS > 0 ? 0 : 1))
}
trap finish EXIT

# A job that writes its environment and stays long enough to be seen.
mkdir "$WORK/tpl"
cat >"$WORK/tpl/hold.sbatch" <<'TPL'
#!/bin/bash
#SBATCH --job-name={{name}}
{{#sbatch_directives}}
{{raw:sbatch_directives}}
{{/sbatch_directives}}
env | LC_ALL=C sort >{{q:run_dir}}/job.env
sleep 30
TPL

plan() {
	local name=$1; shift
	"$PT" -q plan "$DATA/small.conf" -o "$WORK/$name" --force \
		--set run.template=hold --set run.templates_dir="$WORK/tpl" \
		--set limits.max_concurrent_jobs=1 "$@"
}
first_job() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^job=/)
	{ print substr($i, 5); exit } }' "$1/journal.log"; }
# has DESC PATTERN TEXT
has() { if grep -q -- "$2" <<<"$3"; then ok "$1"; else fail "$1"; fi; }

# --- switches, network, hint, exclusive=user ---------------------------
plan dirs --set 'slurm.directives=["--exclusive=user", "--switches=1@5",
	"--network=sn_all", "--hint=nomultithread"]' || fail "plan"
"$PT" -q submit "$WORK/dirs" --top 1 >/dev/null || fail "submit"
id=$(first_job "$WORK/dirs")
job=$(scontrol show job "$id" 2>&1)
has "--exclusive=user: the job shares nodes with its user's only" \
	"OverSubscribe=USER" "$job"
has "--switches=1@5: one leaf switch, waiting 5 minutes for it" \
	"Switches=1@00:05:00" "$job"
has "--network reaches the job" "Network=sn_all" "$job"
has "--hint=nomultithread: one thread per core" "ReqB:S:C:T=0:0:\*:1" "$job"
for _ in $(seq 30); do
	compgen -G "$WORK/dirs/runs/*/job.env" >/dev/null && break
	sleep 1
done
has "and srun inside the job reads SLURM_HINT" "^SLURM_HINT=nomultithread$" \
	"$(cat "$WORK"/dirs/runs/*/job.env 2>/dev/null)"
"$PT" -q cancel "$WORK/dirs" >/dev/null 2>&1

# --- slurm.gpu_type ---------------------------------------------------------
# The testbed's GPUs have no type: a job asking for h100 ones cannot
# run, which the controller says at once (untyped, the same job runs).
plan typed --set slurm.gpu_type=h100 || fail "plan typed"
"$PT" submit "$WORK/typed" --top 1 >"$WORK/out" 2>&1
has "slurm.gpu_type reaches the controller: typed GPUs it has not" \
	"Requested node configuration is not available" "$(cat "$WORK/out")"

# --- NVLink segments ----------------------------------------------------------
# Two nodes of four GB200s: the estimates place them in one NVLink
# segment of 2 nodes, which submit asks Slurm for (--segment) when it
# is built against Slurm 24.05 or later, and says once that it cannot
# otherwise.  The testbed's Slurm is the one paratune is built against.
plan seg --set gpu=gb200 --set gpus_per_node=4 \
	--set run.template=simulated --set run.templates_dir="$ROOT/templates" ||
	fail "plan seg"
has "the job script reads --segment=2" "^#SBATCH --segment=2$" \
	"$(cat "$WORK"/seg/runs/*/job.sbatch 2>/dev/null)"
"$PT" submit "$WORK/seg" --top 1 >"$WORK/out" 2>&1 || fail "submit seg"
ver=$(scontrol --version | awk '{ split($2, v, "."); print v[1] * 100 + v[2] }')
if [[ $ver -ge 2405 ]]; then
	hasnt() { if grep -q -- "$2" <<<"$3"; then fail "$1"; else ok "$1"; fi; }
	hasnt "Slurm $ver asks for segments without a warning" "segment" \
		"$(cat "$WORK/out")"
	job=$(scontrol show job "$(first_job "$WORK/seg")" 2>&1)
	if grep -q SegmentSize <<<"$job"; then
		has "and the controller holds it" "SegmentSize=2" "$job"
	fi
else
	has "Slurm $ver cannot ask for segments: submit says so" \
		"NVLink segments of 2 nodes.*older than 24.05" \
		"$(tr '\n' ' ' <"$WORK/out")"
	has "and still submits the job" "submitted as job" "$(cat "$WORK/out")"
fi
"$PT" -q cancel "$WORK/seg" >/dev/null 2>&1
# A site's --segment replaces paratune's: one line in the script, and
# the job asks for that one.
plan segd --set gpu=gb200 --set gpus_per_node=4 \
	--set run.template=simulated --set run.templates_dir="$ROOT/templates" \
	--set 'slurm.directives=["--segment=1"]' || fail "plan segd"
lines=$(grep -h -- --segment "$WORK"/segd/runs/*/job.sbatch | sort -u)
if [[ $lines == "#SBATCH --segment=1" ]]; then
	ok "the site's --segment is the script's only one"
else
	fail "the site's --segment is the script's only one: $lines"
fi
"$PT" submit "$WORK/segd" --top 1 >"$WORK/out" 2>&1 || fail "submit segd"
if [[ $ver -ge 2405 ]]; then
	job=$(scontrol show job "$(first_job "$WORK/segd")" 2>&1)
	if grep -q SegmentSize <<<"$job"; then
		has "and the controller holds it" "SegmentSize=1" "$job"
	else
		ok "Slurm $ver does not show segments"
	fi
else
	has "and submit says it cannot ask for it" \
		"NVLink segments of 1 node (--segment).*older than 24.05" \
		"$(tr '\n' ' ' <"$WORK/out")"
fi
"$PT" -q cancel "$WORK/segd" >/dev/null 2>&1
