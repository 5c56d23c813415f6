#!/usr/bin/env bash
# The environment of a job on the local testbed (scripts/testbed): every
# job of a campaign gets it from what the first `submit` saw
# (DIR/submit.env), whether submit or cron's resume submitted it, and
# run.export gives it sbatch's --export meaning.  The jobs run a template
# that writes their environment next to their output.  Needs a running
# testbed (this test does not start one: exit 77 without it).
# Last line: "N passed, N failed"; exit 1 on any failure.

set -uo pipefail

SUITE=environment
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

finish() {
	rm -rf "$WORK"
	echo "$PASS passed, $FAIL failed"
	exit $((FAIL == 0 && PASS > 0 ? 0 : 1))
}
trap finish EXIT

eval "$("$TESTBED" env)"
if ! scontrol ping >/dev/null 2>&1; then
	echo "testbed not running: skipped"
	trap - EXIT
	rm -rf "$WORK"
	exit 77
fi

mkdir "$WORK/tpl"
cat >"$WORK/tpl/envdump.sbatch" <<'TPL'
#!/bin/bash
#SBATCH --job-name={{name}}
#SBATCH --nodes={{nodes}}
# Writes the job's environment, for tests/integration/environment.sh.
env | LC_ALL=C sort >{{q:run_dir}}/job.env
TPL

# plan NAME [--set K=V]...: small.conf running the envdump template,
# one job at a time.
plan() {
	local name=$1; shift
	"$PT" -q plan "$DATA/small.conf" -o "$WORK/$name" --force \
		--set run.template=envdump --set run.templates_dir="$WORK/tpl" \
		--set limits.max_concurrent_jobs=1 "$@"
}

# As cron runs a command: almost no environment.
cron() {
	env -i PATH=/usr/bin:/bin HOME="$HOME" SLURM_CONF="$SLURM_CONF" \
		PARATUNE_SITE_CONF=/dev/null "$@"
}

# every_job DIR DESC CMD...: CMD FILE succeeds for each job's job.env
# (and there are n of them, n given as $N).
every_job() {
	local dir=$1 desc=$2 n=0 f
	shift 2
	for f in "$dir"/runs/*/job.env; do
		[[ -f $f ]] || continue
		n=$((n + 1))
		if ! "$@" "$f"; then
			fail "$desc ($f)"; sed 's/^/  /' "$f" | head -20
			return
		fi
	done
	((n == N)) && ok "$desc" || fail "$desc ($n jobs wrote job.env, not $N)"
}
has() { grep -qx -- "$1" "$2"; }
has_re() { grep -q -- "$1" "$2"; }
lacks() { ! grep -q -- "$1" "$2"; }

# --- the default: submit's PATH for every job, resume's too ------------
plan dflt || fail "plan"
PATH="/submit/bin:$PATH" PT_MARK=submit "$PT" -q submit "$WORK/dflt" \
	--top 1 >/dev/null || fail "submit"
resume_until "$WORK/dflt" 120 cron || fail "resume until finished"
N=2
every_job "$WORK/dflt" "every job has submit's PATH, resume's jobs too" \
	has_re '^PATH=/submit/bin:'
every_job "$WORK/dflt" "and LANG=C" has 'LANG=C'
every_job "$WORK/dflt" "and nothing else of submit's environment" \
	lacks '^PT_MARK='

# --- run.export = ["ALL", "EXTRA=1"] -------------------------------------
plan all --set 'run.export=["ALL", "EXTRA=1"]' || fail "plan ALL"
PATH="/submit/bin:$PATH" PT_MARK=submit "$PT" -q submit "$WORK/all" \
	--top 1 >/dev/null || fail "submit ALL"
resume_until "$WORK/all" 120 cron || fail "resume until finished (ALL)"
every_job "$WORK/all" "ALL: submit's whole environment" has 'PT_MARK=submit'
every_job "$WORK/all" "ALL: with the values added" has 'EXTRA=1'
every_job "$WORK/all" "SLURM_EXPORT_ENV says so, as sbatch sets it" \
	has 'SLURM_EXPORT_ENV=ALL,EXTRA=1'

# --- run.export = ["PT_MARK", "OMP_NUM_THREADS=3"] -----------------------
plan list --set 'run.export=["PT_MARK", "OMP_NUM_THREADS=3"]' ||
	fail "plan list"
PT_MARK=submit PT_OTHER=x "$PT" -q submit "$WORK/list" --top 1 \
	>/dev/null || fail "submit list"
resume_until "$WORK/list" 120 cron || fail "resume until finished (list)"
every_job "$WORK/list" "a list: the names submit saw" has 'PT_MARK=submit'
every_job "$WORK/list" "a list: the values given" has 'OMP_NUM_THREADS=3'
every_job "$WORK/list" "a list: nothing else" lacks '^PT_OTHER='
