#!/usr/bin/env bash
# Root's cron line over several users' campaigns, one user hostile, on
# the local testbed with real Unix users: every job runs as its
# campaign's owner (Slurm's accounting says who), nothing root-only
# leaks into a user's files, nothing in a user's directory is created by
# root, no run hangs on what a user planted, and another user is refused.
# Needs root and a running or startable testbed.
# Last line: "N passed, N failed"; exit 1 on any failure.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${PARATUNE_BUILDDIR:-$ROOT}
TESTBED=$ROOT/scripts/testbed
PASS=0
FAIL=0
# The users run paratune, its templates and paratune-simtrain: copies
# they can read, wherever the build tree is.
TOOLS=$(mktemp -d /tmp/paratune-tools.XXXXXX)
cp "$BUILD/paratune" "$BUILD/paratune-simtrain" "$TOOLS/"
cp -r "$ROOT/templates" "$ROOT/tests/integration/data" "$TOOLS/"
chmod -R a+rX "$TOOLS"
PT=$TOOLS/paratune
DATA=$TOOLS/data
export PARATUNE_TEMPLATES=$TOOLS/templates
export PARATUNE_SIMTRAIN=$TOOLS/paratune-simtrain
export PARATUNE_SITE_CONF=/dev/null
BASE=$(mktemp -d /tmp/paratune-priv.XXXXXX)
SECRET=$(mktemp /tmp/paratune-secret.XXXXXX)
START=$(date +%Y-%m-%dT%H:%M:%S)
USERS="ptalice ptbob ptmallory"

ok()   { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }

finish() {
	for d in "$BASE"/*/; do "$PT" -q cancel "$d" >/dev/null 2>&1; done
	rm -rf "$BASE" "$SECRET" "$TOOLS"
	echo "$PASS passed, $FAIL failed"
	exit $((FAIL == 0 && PASS > 0 ? 0 : 1))
}
trap finish EXIT

[[ $(id -u) == 0 ]] || { fail "needs root"; exit 1; }
"$TESTBED" up >/dev/null || { fail "testbed up"; exit 1; }
eval "$("$TESTBED" env)"

for u in $USERS; do
	id "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash "$u" ||
		{ fail "useradd $u"; exit 1; }
done
# A shared scratch directory, sticky as /tmp is; the build tree must be
# readable by the users (their jobs run its paratune-simtrain).
chmod 1777 "$BASE"
chmod o+rx "$BASE"
printf 'SECRET-%s\ntorch.OutOfMemoryError: CUDA out of memory.\n' \
	"$RANDOM$RANDOM" >"$SECRET"
chmod 600 "$SECRET"

# as USER CMD...: run CMD as USER with the test's environment.
as() {
	local u=$1; shift
	runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
		PARATUNE_TEMPLATES="$PARATUNE_TEMPLATES" \
		PARATUNE_SIMTRAIN="$PARATUNE_SIMTRAIN" \
		PARATUNE_SITE_CONF=/dev/null "$@"
}
plan_as() {
	as "$1" "$PT" -q plan "$DATA/small.conf" -o "$BASE/$2" \
		--set 'search.tensor_parallel=[4,8]' "${@:3}"
}

for u in ptalice ptbob ptmallory; do
	plan_as "$u" "${u#pt}" || fail "plan as $u"
	as "$u" "$PT" -q submit "$BASE/${u#pt}" --dry-run >/dev/null ||
		fail "dry run as $u"
done
# mallory's second campaign has a FIFO where its state should be, and
# a third belongs to alice though bob planned it.
plan_as ptmallory fifo
mv "$BASE/fifo/state" "$BASE/fifo/state.real"
runuser -u ptmallory -- mkfifo "$BASE/fifo/state"
plan_as ptbob moved && chown -R ptalice "$BASE/moved"

# mallory's planted job script: it records who it runs as.
for s in "$BASE"/mallory/runs/*/job.sbatch; do
	sed -i "2i id -u >>'$BASE/mallory/whoami'" "$s"
done

refused() {
	local rc
	as ptbob "$PT" status "$BASE/alice" >/dev/null 2>"$SECRET.err"
	rc=$?
	[[ $rc == 77 ]] && grep -q 'belongs to ptalice' "$SECRET.err" &&
		grep -q 'this is ptbob' "$SECRET.err"
}
check "another user is refused (77), naming owner and caller" refused
rm -f "$SECRET.err"

# Root's cron line, over everybody, until the honest campaigns finish.
submitted=0
for ((i = 0; i < 60; i++)); do
	if ((submitted == 0)); then
		for d in alice bob mallory; do
			# submit as root: it acts as the owner too.
			ROOT_CRON_SECRET=root-only-$$ timeout 60 \
				"$PT" -q submit "$BASE/$d" >/dev/null 2>&1
		done
		submitted=1
	fi
	timeout 60 "$PT" -q resume "$BASE"/* >/dev/null 2>"$BASE/../priv-err.$$"
	rc=$?
	[[ $rc == 124 ]] && { fail "root's resume hung"; break; }
	grep -q ' finished ' "$BASE/alice/journal.log" &&
		grep -q ' finished ' "$BASE/bob/journal.log" &&
		grep -q ' finished ' "$BASE/mallory/journal.log" && break
	# mallory turns her logs into links to a root-only file while
	# her jobs run, hoping root's results copy it into oom.csv.
	for f in "$BASE"/mallory/runs/*/slurm-*.out; do
		[[ -f $f && ! -L $f ]] &&
			runuser -u ptmallory -- ln -sf "$SECRET" "$f"
	done
	sleep 2
done
check "no run of root's cron line hung" test "$rc" != 124
check "the honest campaigns finished under root's cron" \
	grep -q ' finished ' "$BASE/alice/journal.log" "$BASE/bob/journal.log"
check "the FIFO campaign is refused, not waited on" \
	grep -q "fifo/state': not a regular file" "$BASE/../priv-err.$$"
rm -f "$BASE/../priv-err.$$"

# who_ran DIR: "jobname user" of the campaign's jobs in accounting.
who_ran() {
	local id
	id=$(awk '/ planned /{sub("campaign=","",$5); print $5; exit}' \
		"$1/journal.log")
	sacct -a -X -n -P -S "$START" -o JobName,User 2>/dev/null |
		awk -F'|' -v p="pt-$id-" 'index($1, p) == 1 {print $2}' | sort -u
}
for u in ptalice ptbob ptmallory; do
	d=$BASE/${u#pt}
	check "accounting: ${u#pt}'s jobs ran as $u" \
		test "$(who_ran "$d")" = "$u"
done
check "mallory's planted script ran as mallory, never as root" \
	test "$(sort -u "$BASE/mallory/whoami" 2>/dev/null)" = "$(id -u ptmallory)"
check "nothing under the users' directories belongs to root" \
	test -z "$(find "$BASE" -mindepth 1 -user root -print -quit)"
check "root's secret is in no file of theirs" \
	bash -c "! grep -rqsF '$(head -1 "$SECRET")' '$BASE'"
check "the moved campaign was worked on as its new owner or refused" \
	test -z "$(find "$BASE/moved" -user root -print -quit)"
check "root's status of alice's campaign works (as alice)" \
	"$PT" status "$BASE/alice" >/dev/null
# A run directory its owner cannot read is named, not taken for a job
# that left no output.
r=$(ls -d "$BASE"/bob/runs/*/ | head -1)
runuser -u ptbob -- chmod 000 "$r"
unreadable_named() {
	local rc=0
	as ptbob "$PT" -q results "$BASE/bob" >/dev/null \
		2>"$BASE/../priv-r.$$" || rc=$?
	[ "$rc" = 65 ] && grep -q "cannot read run directory '.*': Permission denied" \
		"$BASE/../priv-r.$$"
}
check "an unreadable run directory is named, and results exits 65" \
	unreadable_named
runuser -u ptbob -- chmod 755 "$r"
rm -f "$BASE/../priv-r.$$"
# calibrate keeps what it reads, so it cannot read in a child as the
# owner: root refuses another user's campaign, which its owner reads.
root_calibrate_refused() {
	local rc=0
	"$PT" calibrate "$BASE/bob" >/dev/null 2>"$BASE/../priv-c.$$" || rc=$?
	[ "$rc" = 77 ] && grep -q "belongs to ptbob" "$BASE/../priv-c.$$"
}
check "root's calibrate of bob's campaign is refused (77), naming bob" \
	root_calibrate_refused
owner_calibrates() {
	local rc=0
	as ptbob "$PT" calibrate "$BASE/bob" >/dev/null 2>&1 || rc=$?
	[ "$rc" != 77 ]
}
check "bob's own calibrate of it is not refused" owner_calibrates
rm -f "$BASE/../priv-c.$$"
check "root's environment stays with root (no submit.env has it)" \
	bash -c "! grep -rqsF 'root-only-$$' '$BASE'"

# A resume its user stops (here: stops itself, holding the lock) is
# continued at once and finishes; one that hangs is killed after the
# limit, and root's cron line goes on to the next.
stopped() {
	local rc=0
	PARATUNE_TEST_STOP_RESUME=1 PARATUNE_TEST_OWNER_LIMIT=20 \
		timeout 60 "$PT" resume "$BASE/alice" "$BASE/bob" \
		>/dev/null 2>"$BASE/../priv-stop.$$" || rc=$?
	[[ $rc != 75 ]] && ! grep -q 'did not finish' "$BASE/../priv-stop.$$"
}
check "a stopped resume is continued and finishes" stopped
hung() {
	local rc
	PARATUNE_TEST_HANG_RESUME=1 PARATUNE_TEST_OWNER_LIMIT=2 \
		timeout 60 "$PT" resume "$BASE/alice" "$BASE/bob" \
		>/dev/null 2>"$BASE/../priv-stop.$$"
	rc=$?
	[[ $rc == 75 ]] &&
		[[ $(grep -c 'did not finish in 2 s' "$BASE/../priv-stop.$$") == 2 ]] &&
		! pgrep -u ptalice -x paratune >/dev/null
}
check "a hung resume is killed after its limit, the next one runs" hung
rm -f "$BASE/../priv-stop.$$"
# Every other command root runs as a user has the same limit; only
# status --watch, which runs until interrupted, has none.  A stopped
# one is continued.
owner_cmd() {
	local rc=0 fault=$1
	shift
	env "$fault=1" PARATUNE_TEST_OWNER_LIMIT=2 \
		timeout 60 "$PT" "$@" "$BASE/bob" >/dev/null \
		2>"$BASE/../priv-stop.$$" || rc=$?
	if [[ $fault == PARATUNE_TEST_STOP_OWNER ]]; then
		[[ $rc != 75 ]] && ! grep -q 'did not finish' "$BASE/../priv-stop.$$"
		return
	fi
	[[ $rc == 75 ]] && grep -q 'did not finish in 2 s' "$BASE/../priv-stop.$$" &&
		! pgrep -u ptbob -x paratune >/dev/null
}
for c in status list results; do
	check "root's $c of a campaign its user stopped is continued" \
		owner_cmd PARATUNE_TEST_STOP_OWNER "$c"
	check "root's $c of a campaign whose child hangs is killed (75)" \
		owner_cmd PARATUNE_TEST_HANG_OWNER "$c"
done
rm -f "$BASE/../priv-stop.$$"

# Directories someone else can write are refused before anything runs:
# a root-owned campaign in a world-writable place (what a user copies
# there would be submitted as root), a group-writable one, a runs/ that
# is a link.
"$PT" -q plan "$DATA/small.conf" -o "$BASE/rootcamp" || fail "plan as root"
chmod 1777 "$BASE/rootcamp"
refused_dir() {
	local d=$1 why=$2 rc
	"$PT" resume "$d" >/dev/null 2>"$BASE/../priv-dir.$$"
	rc=$?
	[[ $rc == 77 ]] && grep -q "can be changed by $why" "$BASE/../priv-dir.$$"
}
check "a root campaign everyone can write is refused (77)" \
	refused_dir "$BASE/rootcamp" "every user"
rm -rf "$BASE/rootcamp"
plan_as ptbob grpw && chmod g+w "$BASE/grpw"
check "a campaign its group can write is refused (77)" \
	refused_dir "$BASE/grpw" "its group"
chmod g-w "$BASE/grpw"
# runs/ may be a link to a bigger file system, to a directory of the
# owner's; one to another user's is refused.
mv "$BASE/grpw/runs" "$BASE/grpw/runs.real" &&
	runuser -u ptbob -- ln -s "$BASE/alice/runs" "$BASE/grpw/runs"
check "a runs/ linked to another user's directory is refused (77)" \
	refused_dir "$BASE/grpw" "its owner, who does not own the campaign"
rm -f "$BASE/grpw/runs" && mv "$BASE/grpw/runs.real" "$BASE/grpw/runs"
# A job script another user could change is never submitted.
s=$(ls "$BASE"/grpw/runs/*/job.sbatch | head -1)
runuser -u ptbob -- chmod g+w "$s"
script_refused() {
	"$PT" submit "$BASE/grpw" --top 50 >/dev/null 2>"$BASE/../priv-dir.$$"
	grep -q "is not a file of yours that only you can change" \
		"$BASE/../priv-dir.$$"
}
check "a group-writable job script is refused at submission" script_refused
"$PT" -q cancel "$BASE/grpw" >/dev/null 2>&1
rm -f "$BASE/../priv-dir.$$"

# A FUSE file system answers stat() with whatever owner its daemon
# likes.  mallory mounts her own directory with bindfs showing root as
# the owner of everything in it, for others too (user_allow_other, as a
# site may allow): root took such a campaign for its own and submitted
# her job scripts as root.  Root acts as the user who mounted it, who
# here cannot even write what her daemon shows as root's.
FUSE_MODE= FUSE_CONF_ADDED=
fuse_cleanup() {
	pkill -CONT -u ptmallory -x bindfs 2>/dev/null
	mountpoint -q "$BASE/fusemnt" 2>/dev/null &&
		{ fusermount3 -u "$BASE/fusemnt" 2>/dev/null ||
		  umount -l "$BASE/fusemnt"; }
	[[ -n $FUSE_MODE ]] && chmod "$FUSE_MODE" /dev/fuse
	[[ -n $FUSE_CONF_ADDED ]] && sed -i '/^user_allow_other$/d' /etc/fuse.conf
	FUSE_MODE= FUSE_CONF_ADDED=
}
trap 'fuse_cleanup; finish' EXIT
if command -v bindfs >/dev/null && command -v fusermount3 >/dev/null &&
	[[ -c /dev/fuse ]]; then
	FUSE_MODE=$(stat -c %a /dev/fuse)
	chmod 666 /dev/fuse
	grep -qx user_allow_other /etc/fuse.conf 2>/dev/null ||
		{ echo user_allow_other >>/etc/fuse.conf; FUSE_CONF_ADDED=1; }
	mkdir "$BASE/fusemnt" "$BASE/fusesrc"
	chown ptmallory "$BASE/fusemnt" "$BASE/fusesrc"
	chmod 755 "$BASE/fusemnt" "$BASE/fusesrc"
	# Planned where it will show, then moved beneath the mount.
	as ptmallory "$PT" -q plan "$DATA/small.conf" \
		-o "$BASE/fusemnt/camp" || fail "plan as mallory for FUSE"
	runuser -u ptmallory -- mv "$BASE/fusemnt/camp" "$BASE/fusesrc/camp"
	for s in "$BASE"/fusesrc/camp/runs/*/job.sbatch; do
		sed -i "2i id -u >>'$BASE/fuse-whoami'" "$s"
	done
	if runuser -u ptmallory -- bindfs -o allow_other -u root -g root \
		"$BASE/fusesrc" "$BASE/fusemnt" 2>"$BASE/../priv-fuse.$$" &&
		[[ $(stat -c %U "$BASE/fusemnt/camp") == root ]]; then
		fuse_root_refused() {
			timeout 60 "$PT" submit "$BASE/fusemnt/camp" --top 2 \
				>/dev/null 2>>"$BASE/../priv-fuse.$$"
			timeout 60 "$PT" resume "$BASE/fusemnt/camp" \
				>/dev/null 2>>"$BASE/../priv-fuse.$$"
			sleep 5
			grep -q "FUSE file system that ptmallory (uid [0-9]*) mounted" \
				"$BASE/../priv-fuse.$$" &&
				! grep -q ' submitted ' "$BASE/fusesrc/camp/journal.log" &&
				[[ -z $(who_ran "$BASE/fusesrc/camp") ]] &&
				! grep -qx 0 "$BASE/fuse-whoami" 2>/dev/null
		}
		check "a campaign on a user's FUSE mount showing root as owner: nothing submitted as root" \
			fuse_root_refused
		# Her daemon stopped: it never answers, and root's look at
		# the path held the cron line for ever.
		fuse_stalled() {
			local rc=0
			pkill -STOP -u ptmallory -x bindfs
			sleep 2
			PARATUNE_TEST_OWNER_LIMIT=3 timeout 60 "$PT" resume \
				"$BASE/fusemnt/camp" "$BASE/alice" >/dev/null \
				2>"$BASE/../priv-fuse.$$" || rc=$?
			pkill -CONT -u ptmallory -x bindfs
			[[ $rc == 75 ]] &&
				grep -q "looking at campaign directory '$BASE/fusemnt/camp' did not finish in 3 s" \
					"$BASE/../priv-fuse.$$"
		}
		check "a FUSE daemon that never answers holds root's cron line 3 s, not for ever" \
			fuse_stalled
	else
		echo "skip - a user cannot mount FUSE here:" \
			"$(head -1 "$BASE/../priv-fuse.$$")"
	fi
	rm -f "$BASE/../priv-fuse.$$"
	fuse_cleanup
else
	echo "skip - no bindfs, fusermount3 or /dev/fuse: the FUSE check did not run"
fi
