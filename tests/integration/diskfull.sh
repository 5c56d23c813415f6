#!/usr/bin/env bash
# Disk-full test of paratune's state and journal on the local Slurm
# testbed (issue 6, section 3).  A campaign directory on a full file
# system must not lose its record: a state file that cannot be written
# must leave the old one intact (it is replaced by rename, never
# rewritten in place), a journal line that cannot be written must leave
# no half line behind, and the command must exit non-zero naming the
# file.  Once space is back the campaign must carry on to its end.
#
# The campaign lives on a small tmpfs (a loop-mounted ext4 image when
# tmpfs cannot be mounted; skipped, with a note, when neither can),
# with its runs/ directory moved to the ordinary disk so that the jobs
# can still write their output.  A file system is full when dd has
# taken every block; a write into the block that the end of the journal
# already occupies still succeeds, so the test places the journal's end
# inside its last block with padding lines ("planned" events, which
# replay ignores) and so chooses which write fails:
#   1. room for the journal lines, none for a new state file: `submit`
#      journals its events, fails to checkpoint, exits non-zero naming
#      DIR/state; the old state is byte-identical and parses; the new
#      lines are in the journal (status shows them), and with space
#      back the campaign runs to the end;
#   2. 30 bytes of room: the first journal line is cut short; `submit`
#      exits non-zero naming DIR/journal.log and the journal is
#      byte-identical (the half line was cut back); with space back the
#      campaign runs to the end;
#   3. a torn last line as a crash in the middle of a write leaves it
#      (planted by hand) is cut off by the next run, whose own lines
#      follow without a gap.
#
# Needs root and the testbed (scripts/testbed up is run; it is left up).
# About a minute.  Last line: "N passed, N failed"; exit 1 on failure.

set -uo pipefail

SUITE=diskfull
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
MNT=$WORK/mnt

finish() {
	local d
	for d in "$MNT"/*/; do
		[[ -f $d/state ]] && "$PT" -q cancel "$d" >/dev/null 2>&1
	done
	mountpoint -q "$MNT" && umount "$MNT"
	suite_end
}
SKIPPED=0
trap finish EXIT

mkdir -p "$MNT"
if mount -t tmpfs -o size=1m,mode=0755 paratune-diskfull "$MNT" \
	2>/dev/null; then
	FS="tmpfs of 1 MiB"
elif truncate -s 8M "$WORK/fs.img" && mkfs.ext4 -q -F "$WORK/fs.img" &&
	mount -o loop "$WORK/fs.img" "$MNT" 2>/dev/null; then
	FS="loop-mounted ext4 of 8 MiB"
else
	echo "skipped: neither a tmpfs nor a loop file system can be mounted" \
		"here (needs root and CAP_SYS_ADMIN); nothing was tested"
	SKIPPED=1
	DONE=1
	exit 0
fi
BLOCK=$(stat -f -c %s "$MNT")
echo "campaigns on a $FS, blocks of $BLOCK bytes"

"$TESTBED" up >/dev/null || { fail "testbed up"; exit 1; }
eval "$("$TESTBED" env)"

# plan NAME: 4 candidates, 2 jobs at a time, runs/ on the ordinary disk.
plan() {
	local dir=$MNT/$1
	"$PT" -q plan "$DATA/torture.conf" -o "$dir" \
		--set 'search.pipeline_parallel=[1]' \
		--set 'search.micro_batch_size=[1]' \
		--set 'search.recompute=["none"]' \
		--set 'limits.max_concurrent_jobs=2' >/dev/null || return 1
	mv "$dir/runs" "$WORK/runs-$1" && ln -s "$WORK/runs-$1" "$dir/runs"
}

# pad_journal DIR ROOM: append "planned" lines (replay ignores them) so
# that the journal's last block has exactly ROOM bytes left.
pad_journal() {
	python3 - "$1/journal.log" "$2" "$BLOCK" <<'EOF'
import os, sys, time
path, room, block = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
with open(path) as f:
    seq = sum(1 for _ in f)
while True:
    size = os.path.getsize(path)
    want = (block - room - size) % block
    if want == 0:
        break
    head = "%d %s planned - pad=" % (seq + 1, stamp)
    # One line of the wanted length when its words fit the 511 bytes of
    # detail the reader takes (paratune writes fewer) and it is long
    # enough to hold its own head; else 300.
    n = want if len(head) + 2 <= want <= 500 else 300
    with open(path, "a") as f:
        f.write(head + "x" * (n - len(head) - 1) + "\n")
    seq += 1
EOF
}

# fill: take every free block of the file system.
fill() {
	dd if=/dev/zero of="$MNT/fill" bs="$BLOCK" 2>/dev/null
	sync
}

# parses DIR: status --format json parses.
parses() {
	"$PT" status "$1" --format json |
		python3 -c 'import json, sys; json.load(sys.stdin)'
}

# completed DIR: every candidate completed.
all_completed() {
	"$PT" status "$1" --format json | python3 -c '
import json, sys
c = json.load(sys.stdin)["candidates"]
sys.exit(0 if c and all(x["state"] == "completed" for x in c) else 1)'
}

# checkpoint_current DIR: the state includes every journal line.
checkpoint_current() {
	[[ $(awk '/^journal /{print $2}' "$1/state") == \
		$(wc -l <"$1/journal.log") ]]
}

echo "--- at $((SECONDS - T0)) s"
# ---- 1. the state cannot be written ---------------------------------------
D=$MNT/state-full
plan state-full || { fail "plan on the small file system"; exit 1; }
pad_journal "$D" 3000
cp "$D/state" "$WORK/state.before"
lines=$(wc -l <"$D/journal.log")
fill
"$PT" -q submit "$D" 2>"$WORK/err1"
rc=$?
cat "$WORK/err1"
check "state full: submit exits non-zero ($rc)" test "$rc" -ne 0
check "with a message naming the state file and the cause" \
	grep -q "'$D/state'.*No space left on device" "$WORK/err1"
check "the old state survives byte for byte" \
	cmp -s "$D/state" "$WORK/state.before"
check "and still parses" parses "$D"
check "no temporary state file left behind" \
	test -z "$(find "$D" -maxdepth 1 -name 'state.tmp.*')"
check "the run's events are in the journal" \
	test "$(wc -l <"$D/journal.log")" -gt "$lines"
check "and status shows them (2 jobs submitted)" \
	test "$("$PT" status "$D" --format json | python3 -c '
import json, sys
c = json.load(sys.stdin)["counts"]
print(c["pending"] + c["running"] + c["completed"])')" = 2
rm -f "$MNT/fill"
check "space back: the campaign runs to the end" resume_until "$D" 180
check "every candidate completed" all_completed "$D"
check "the checkpoint includes the whole journal" checkpoint_current "$D"
check "the journal is numbered 1..N without a gap" \
	awk '$1 != NR { exit 1 }' "$D/journal.log"

echo "--- at $((SECONDS - T0)) s"
# ---- 2. a journal line cannot be written -----------------------------------
D=$MNT/journal-full
plan journal-full || { fail "plan journal-full"; exit 1; }
pad_journal "$D" 30
cp "$D/journal.log" "$WORK/journal.before"
cp "$D/state" "$WORK/state.before"
fill
"$PT" -q submit "$D" 2>"$WORK/err2"
rc=$?
cat "$WORK/err2"
check "journal full: submit exits non-zero ($rc)" test "$rc" -ne 0
check "with a message naming the journal and the cause" \
	grep -q "'$D/journal.log'.*No space left on device" "$WORK/err2"
check "the line cut short was cut back: the journal is byte-identical" \
	cmp -s "$D/journal.log" "$WORK/journal.before"
check "the state is byte-identical" cmp -s "$D/state" "$WORK/state.before"
check "and parses" parses "$D"
check "nothing was submitted" \
	test -z "$(sacct -a -X -n -P -S now-10minutes -o JobName 2>/dev/null |
		grep "^pt-$(awk '/^campaign /{print $2}' "$D/state")-")"
rm -f "$MNT/fill"
"$PT" -q submit "$D"
check "space back: submit again, and the campaign runs to the end" \
	resume_until "$D" 180
check "every candidate completed" all_completed "$D"
check "the journal is numbered 1..N without a gap" \
	awk '$1 != NR { exit 1 }' "$D/journal.log"

echo "--- at $((SECONDS - T0)) s"
# ---- 3. a torn last line ---------------------------------------------------
D=$MNT/torn
plan torn || { fail "plan torn"; exit 1; }
"$PT" -q submit "$D"
n=$(wc -l <"$D/journal.log")
printf '%d 1999-01-01T00:00:00Z state %s state=compl' $((n + 1)) \
	"$(awk '$3 == "submitted" {print $4; exit}' "$D/journal.log")" \
	>>"$D/journal.log"
check "a torn last line does not stop status" parses "$D"
check "the next run cuts it off and the campaign runs to the end" \
	resume_until "$D" 180
check "no trace of the torn line" \
	test -z "$(grep '1999-01-01T00:00:00Z' "$D/journal.log")"
check "the journal is numbered 1..N without a gap" \
	awk '$1 != NR { exit 1 }' "$D/journal.log"
check "every candidate completed" all_completed "$D"
DONE=1
