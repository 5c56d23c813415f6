#!/usr/bin/env bash
# Permissions and planted symbolic links (issue 6, section 4) on the
# local Slurm testbed.  A campaign directory holds the only record of
# its measurements and is often on a shared file system:
#   - what paratune creates follows the user's umask (a group that
#     shares campaigns sets 002, a private user 077), but the state, the
#     journal and the lock are never writable by others, nor is the
#     campaign directory itself writable by its group or others (whoever
#     can write the directory can replace the state and the job scripts
#     whatever their own modes), even with a umask of 000;
#   - a symbolic link planted at DIR/state, DIR/journal.log, DIR/.lock
#     or DIR/results pointing outside the directory is never followed:
#     the command refuses, says why, and the file it points to is left
#     untouched.
# For umask 022, 000 and 077 it plans a two-candidate campaign, runs it
# to the end and writes its results, checking the mode of every file
# and directory paratune made (not the jobs' output: Slurm makes it).
#
# Needs root and the testbed (scripts/testbed up is run; it is left up).
# About a minute.  Last line: "N passed, N failed"; exit 1 on failure.

set -uo pipefail

SUITE=permissions
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
chmod 0755 "$WORK"

finish() {
	suite_end
}
trap finish EXIT

"$TESTBED" up >/dev/null || { fail "testbed up"; exit 1; }
eval "$("$TESTBED" env)"

# plan DIR: two candidates (TP 8 and the base), short jobs.
plan() {
	"$PT" -q plan "$DATA/torture.conf" -o "$1" \
		--set 'search.tensor_parallel=[8]' \
		--set 'search.pipeline_parallel=[1]' \
		--set 'search.micro_batch_size=[1]' \
		--set 'search.recompute=["none"]'
}

# modes_are WANT PATH...: every path has octal mode WANT; prints those
# that differ.
modes_are() {
	local want=$1 p m bad=0
	shift
	for p in "$@"; do
		m=$(stat -c %a "$p") || { bad=1; continue; }
		[[ $m == "$want" ]] || { echo "  $p: $m, wanted $want"; bad=1; }
	done
	return $bad
}

# not_world_writable PATH...
not_world_writable() {
	local p bad=0
	for p in "$@"; do
		(($(stat -c '0%a' "$p") & 8#002)) &&
			{ echo "  $p: writable by others"; bad=1; }
	done
	return $bad
}

# ---- modes under three umasks ----------------------------------------------
for um in 022 000 077; do
	D=$WORK/umask-$um
	(umask "$um" && plan "$D" >/dev/null) ||
		{ fail "plan with umask $um"; continue; }
	file=$(printf '%o' $((8#644 & ~8#$um)))
	exe=$(printf '%o' $((8#755 & ~8#$um)))
	# The directory: the umask, and never writable by group or others.
	dir=$(printf '%o' $((8#777 & ~(8#$um | 8#022))))
	check "umask $um: the campaign directory is $dir" modes_are "$dir" "$D"
	check "umask $um: plan's files are $file" modes_are "$file" \
		"$D/campaign.conf" "$D/candidates.csv" "$D/plan.txt" \
		"$D/state" "$D/journal.log"
	check "umask $um: run directories and job scripts are $exe" \
		modes_are "$exe" "$D/runs" "$D"/runs/* "$D"/runs/*/job.sbatch
	(umask "$um" && "$PT" -q submit "$D" && resume_until "$D" 120) ||
		{ fail "umask $um: the campaign runs to the end"; continue; }
	check "umask $um: after the runs, state and journal are $file" \
		modes_are "$file" "$D/state" "$D/journal.log"
	# Another user who could open the lock could take it and keep it.
	check "umask $um: the lock is its owner's alone (600)" \
		modes_are 600 "$D/.lock"
	check "umask $um: none of them writable by others" \
		not_world_writable "$D" "$D/state" "$D/journal.log" "$D/.lock"
	(umask "$um" && "$PT" -q results "$D" >/dev/null) ||
		{ fail "umask $um: results"; continue; }
	check "umask $um: the results directory is $exe" \
		modes_are "$exe" "$D/results"
	check "umask $um: its files are $file" modes_are "$file" "$D"/results/*
done

# ---- planted symbolic links -------------------------------------------------
D=$WORK/links
plan "$D" >/dev/null || { fail "plan links"; exit 1; }
"$PT" -q submit "$D" || fail "submit links"
OUT=$WORK/outside
mkdir -p "$OUT"

# planted NAME CMD...: replace DIR/NAME by a link to a copy outside,
# run CMD, check it failed naming the file, that the link is still a
# link and that the copy did not change; then put the real file back.
planted() {
	local name=$1 rc sum
	shift
	cp -a "$D/$name" "$WORK/real.$name"
	cp -a "$D/$name" "$OUT/$name"
	sum=$(md5sum <"$OUT/$name")
	ln -sfn "$OUT/$name" "$D/$name"
	"$@" 2>"$WORK/err.$name" >/dev/null
	rc=$?
	sed 's/^/  /' "$WORK/err.$name"
	check "link at DIR/$name: '$*' refuses (exit $rc)" test "$rc" -ne 0
	check "link at DIR/$name: and says which file" \
		grep -q "$name" "$WORK/err.$name"
	check "link at DIR/$name: the file it points to is untouched" \
		test "$(md5sum <"$OUT/$name")" = "$sum"
	check "link at DIR/$name: the link was not written through" \
		test -L "$D/$name"
	rm -f "$D/$name"
	mv "$WORK/real.$name" "$D/$name"
}
planted state "$PT" -q resume "$D"
planted state "$PT" status "$D"
planted journal.log "$PT" -q resume "$D"
planted journal.log "$PT" -q cancel "$D"
planted .lock "$PT" -q resume "$D"

# DIR/results pointing at a directory outside.
check "the campaign runs to the end with its files back" \
	resume_until "$D" 120
mkdir -p "$OUT/results"
rm -rf "$D/results" # resume may have written it at the end
ln -s "$OUT/results" "$D/results"
"$PT" -q results "$D" >/dev/null 2>"$WORK/err.results"
rc=$?
sed 's/^/  /' "$WORK/err.results"
check "link at DIR/results: results refuses (exit $rc)" test "$rc" -ne 0
check "link at DIR/results: nothing written outside" \
	test -z "$(ls -A "$OUT/results")"
DONE=1
