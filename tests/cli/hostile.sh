#!/bin/sh
# hostile.sh - values from a campaign, a site configuration and a training
# log that hold shell ($(), backticks, quotes, ';', '&&', '|') can only be
# read: each is refused with its file and key, or rendered so that
# running the job script with bash executes nothing of it and passes it
# verbatim.  Also: a site configuration that another user could change is
# refused, with the reason; a candidate name that holds a terminal
# escape is refused, and a directory name that does is spelled out,
# printing nothing raw.  No Slurm needed: the job scripts run under bash
# with a stub srun that records its arguments and environment.
# Last line: "N passed, N failed".

PT=${PARATUNE_BIN:-./paratune}
SRC=${PARATUNE_SRCDIR:-.}
: "${PARATUNE_TEMPLATES:=$SRC/templates}"
export PARATUNE_TEMPLATES
T=$(mktemp -d)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
MARK=$T/MARK

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else ko "$d"; fi; }

# The hostile values; each would create $MARK if a shell ran it.
set -- \
	"\$(touch $MARK)" \
	"\`touch $MARK\`" \
	"x'; touch $MARK; '" \
	"x\"; touch $MARK; \"" \
	"x && touch $MARK | cat" \
	"x; touch $MARK" \
	"x
touch $MARK
x"
NVALUES=$#

# libconfig string literal of $1.
lit() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

# The stub srun: its arguments one per line, and its environment.
mkdir -p "$T/bin"
cat >"$T/bin/srun" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$STUB_OUT.args"
env >"$STUB_OUT.env"
printf '%s' "$HOSTILE" >"$STUB_OUT.hostile"
printf '%s' "$PARATUNE_CAMPAIGN" >"$STUB_OUT.campaign"
EOF
printf '#!/bin/sh\necho gpu1\n' >"$T/bin/scontrol" # show hostnames
chmod +x "$T/bin/srun" "$T/bin/scontrol"

# run_scripts DIR: bash -n, then bash, on every job script of DIR; 0 when
# all parse and run.
run_scripts() {
	for s in "$1"/runs/*/job.sbatch; do
		bash -n "$s" || return 1
		STUB_OUT=$T/stub PATH=$T/bin:$PATH SLURM_JOB_ID=1 \
			SLURM_NNODES=4 SLURM_JOB_NODELIST=gpu1 \
			bash "$s" >/dev/null 2>&1 || return 1
	done
}

# same VALUE FILE: FILE holds exactly VALUE (newlines included).
same() { printf '%s' "$1" | cmp -s - "$2"; }

# try KEY LAYER VALUE: a campaign (LAYER campaign) or a site config (LAYER
# site) setting KEY to VALUE; plan, and either a refusal naming the file
# and the key, or scripts that run and execute nothing.
n=0
try() {
	key=$1 layer=$2 value=$3
	n=$((n + 1))
	d=$T/c$n
	camp=$T/c$n.conf site=/dev/null
	group=${key%%.*} leaf=${key#*.}
	sed "/^name = /d; /^$group = /d" "$SRC/etc/campaigns/demo.conf" >"$camp"
	if [ "$key" = name ]; then
		echo "name = $(lit "$value");" >>"$camp"
		where=$camp
	else
		echo "name = \"hostile$n\";" >>"$camp"
		site=$T/s$n.conf
		where=$camp
		[ "$layer" = site ] && where=$site
		if [ "$key" = env ]; then
			line="env = [ $(lit "HOSTILE=$value") ];"
		elif [ "$key" = model ]; then
			line="model = $(lit "$value");"
		else
			line="$group = { $leaf = $(lit "$value"); };"
		fi
		: >"$site"
		echo "$line" >>"$where"
	fi
	rm -f "$MARK" "$T"/stub.*
	PARATUNE_SITE_CONF=$site "$PT" -q plan "$camp" -o "$d" \
		>"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc != 0 ]; then
		# Refused: a clear error naming the file and the key.
		if [ $rc -lt 128 ] && grep -q "$where" "$T/err" &&
			grep -q "$key" "$T/err" && [ ! -e "$MARK" ]; then
			ok "$layer $key '$value': refused ($(head -c 90 "$T/err"))"
		else
			ko "$layer $key '$value': exit $rc"; cat "$T/err"
		fi
		return
	fi
	if ! run_scripts "$d"; then
		ko "$layer $key '$value': a job script fails"; return
	fi
	if [ -e "$MARK" ]; then
		ko "$layer $key '$value': the value was EXECUTED"; return
	fi
	ok "$layer $key '$value': planned, scripts ran, nothing executed"
	case $key in
	env) check "  and HOSTILE reaches srun verbatim" \
		same "$value" "$T/stub.hostile" ;;
	name) check "  and PARATUNE_CAMPAIGN is the name verbatim" \
		same "$value" "$T/stub.campaign" ;;
	esac
}

for v in "$@"; do
	try name campaign "$v"
	try env campaign "$v"
	try env site "$v"
	for k in slurm.partition slurm.account slurm.qos slurm.reservation \
		container.image container.mounts container.workdir \
		run.template model; do
		try "$k" campaign "$v"
	done
	try slurm.account site "$v"
	try slurm.directives site "--comment=$v"
done

# The Megatron-LM and NeMo templates with a container: the image, mounts
# and working directory are arguments of srun, each passed whole.
for tmpl in megatron-lm nemo2; do
	d=$T/tmpl-$tmpl
	v="img\$(touch $MARK)\`x\`';\""
	sed '/^name = /d; /^run = /d' "$SRC/etc/campaigns/demo.conf" \
		>"$T/$tmpl.conf"
	cat >>"$T/$tmpl.conf" <<EOF
name = "hostile-$tmpl";
run = { template = "$tmpl"; };
container = { image = $(lit "$v"); mounts = $(lit "/a:/b;$v");
	workdir = $(lit "/w $v"); };
EOF
	rm -f "$MARK" "$T/stub.args"
	PARATUNE_SITE_CONF=/dev/null "$PT" -q plan "$T/$tmpl.conf" -o "$d" \
		>/dev/null 2>"$T/err" || { ko "$tmpl: plan"; cat "$T/err"; continue; }
	check "$tmpl: scripts parse and run" run_scripts "$d"
	check "$tmpl: nothing executed" test ! -e "$MARK"
	check "$tmpl: the image reaches srun as one argument" \
		grep -qF -- "$v" "$T/stub.args"
done

# ---- a training log full of shell --------------------------------------
log=$T/hostile.log
{
	echo " [2026-01-01 00:00:00] iteration        1/      30 | consumed samples:          256 | elapsed time per iteration (ms): 1000.0 | learning rate: 1.0E-04 | global batch size:   256 | lm loss: 1.0E+01 | \$(touch $MARK) \`touch $MARK\`"
	echo "torch.OutOfMemoryError: CUDA out of memory; touch $MARK; \$(touch $MARK)"
	printf 'binary \000\001\002 junk \377\376 "quoted, with comma" =cmd|calc\n'
} >"$log"
rm -f "$MARK"
"$PT" parse "$log" --format json >"$T/parse.json" 2>"$T/err"
check "a hostile log parses (exit $?)" test -s "$T/parse.json"
check "parse output is valid JSON" python3 -c \
	'import json,sys; json.load(open(sys.argv[1]))' "$T/parse.json"
check "nothing in the log was executed" test ! -e "$MARK"

# ---- site configuration permissions -------------------------------------
S=$T/site
mkdir -p "$S"
chmod 755 "$S"
echo 'slurm = { partition = "batch"; };' >"$S/paratune.conf"
chmod 644 "$S/paratune.conf"
site_plan() {
	rm -rf "$T/site-plan"
	PARATUNE_SITE_CONF=$S/paratune.conf "$PT" -q plan \
		"$SRC/etc/campaigns/demo.conf" -o "$T/site-plan" \
		>/dev/null 2>"$T/err"
}
check "a site config writable by its owner only is used" site_plan
chmod 664 "$S/paratune.conf"
if [ "$(id -u)" = 0 ]; then chgrp nogroup "$S/paratune.conf" 2>/dev/null ||
	chgrp 65534 "$S/paratune.conf"; fi
site_plan
check "group-writable: refused (exit $?)" test $? != 0
check "  saying who can change it, and how to fix it" \
	grep -q "site configuration '$S/paratune.conf': can be changed by its group (owner uid [0-9]*, mode 0664): refusing to use it; .*chmod go-w" "$T/err"
chmod 646 "$S/paratune.conf"
site_plan
rc=$?
check "world-writable: refused as a configuration error (exit $rc)" \
	test "$rc" = 78
check "  naming every user" grep -q "can be changed by every user" "$T/err"
# Run by another user, the same refusal: 78 (it was 75, the status of a
# look that did not finish, since the error's -1 was taken for one).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	PARATUNE_SITE_CONF=$S/paratune.conf setpriv --reuid=nobody \
		--regid="$(id -g nobody)" --clear-groups "$PT" -q config \
		>/dev/null 2>"$T/err"
	rc=$?
	check "  and run by another user: 78 (got $rc)" test "$rc" = 78
else
	echo "skip - the same run by another user (needs root and setpriv)"
fi
chmod 644 "$S/paratune.conf"
chmod 777 "$S"
site_plan
rc=$?
# Run as root, the path is judged first, as for every file root reads
# (77); run by anyone else, the site file's own check says it (78).
if [ "$(id -u)" = 0 ]; then
	check "its directory world-writable: refused (exit 77, got $rc)" \
		test "$rc" = 77
	check "  saying who can change it" grep -q \
		"through '$S', which can be changed by its group or every" \
		"$T/err"
else
	check "its directory world-writable: refused (exit 78, got $rc)" \
		test "$rc" = 78
	check "  saying who can change it" \
		grep -q "its directory can be changed by every user" "$T/err"
fi
chmod 1777 "$S"
check "its directory sticky, as /tmp: used" site_plan
chmod 755 "$S"
if [ "$(id -u)" = 0 ]; then
	chown nobody "$S/paratune.conf"
	site_plan
	rc=$?
	# Root refuses another user's site file as it refuses any other
	# file of theirs it would read (77; it was 78).
	check "owned by another user: refused (exit 77, got $rc)" \
		test "$rc" = 77
	check "  naming its owner" grep -q \
		"paratune.conf' belongs to nobody.*: root does not use" "$T/err"
	chown root "$S/paratune.conf"
else
	echo "skip - owned by another user (needs root)"
fi
mkfifo "$T/fifo"
PARATUNE_SITE_CONF=$T/fifo "$PT" -q plan "$SRC/etc/campaigns/demo.conf" \
	-o "$T/fifo-plan" >/dev/null 2>"$T/err"
check "a FIFO as site config: refused, not read" \
	grep -q "is not a regular file" "$T/err"
check "/dev/null is an empty site config" \
	env PARATUNE_SITE_CONF=/dev/null "$PT" -q plan \
	"$SRC/etc/campaigns/demo.conf" -o "$T/null-plan"

# ---- names and directories that drive a terminal ------------------------
# Root's cron prints what users named: a candidate name edited in the
# state, candidates.csv and runs/, and a campaign directory's own name.
# An escape sequence in either (retitle, clear the screen) never reaches
# the output raw: a name no plan writes is refused, naming the file and
# line, and a directory is spelled out.
ESC=$(printf '\033')
EVIL=$(printf '\033]0;PWNED\007\033[2J')
export PARATUNE_SITE_CONF=/dev/null SLURM_CONF=/nonexistent
# run CMD...: CMD's exit status in $rc, its stdout and stderr in $T/all.
run() { "$@" >"$T/all" 2>&1 </dev/null; rc=$?; }
# noesc DESC: no raw ESC byte in $T/all.
noesc() { check "$1" test "$(grep -c "$ESC" "$T/all")" = 0; }
# refused DESC PATTERN: exit 65, an error matching PATTERN, no raw ESC.
refused() {
	check "$1: exit 65 (got $rc)" test "$rc" = 65
	check "  naming the file, the line and the name, escaped" \
		grep -q -- "$2" "$T/all"
	noesc "  and no raw escape reaches the output"
}
N=$T/names
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$N" >/dev/null 2>&1
base=$(awk -F, 'NR > 1 && $19 == 1 { print $2 }' "$N/candidates.csv")
cp -r "$N" "$T/csv-only"
cp "$N/candidates.csv" "$T/keep.csv"
sed -i "s/$base/$base$EVIL/" "$N/candidates.csv" "$N/state" &&
	mv "$N/runs/$base" "$N/runs/$base$EVIL"
bad="state:[0-9]*: candidate name '$base\\\\x1b]0;PWNED\\\\x07"
bad="$bad\\\\x1b\[2J' holds the control character \\\\x1b at byte"
run "$PT" submit --dry-run "$N" --top 1
refused "submit --dry-run of a name with an escape" "$bad"
run "$PT" submit "$N" --top 1
refused "submit of it" "$bad"
run "$PT" cancel "$N"
refused "cancel of it" "$bad"
run "$PT" resume "$N"
refused "resume of it" "$bad"
run "$PT" results "$N"
refused "results of it" "$bad"
# candidates.csv alone: its row is refused, not passed over.
C=$T/csv-only
rm "$C/home"
sed -i "s/,$base,/,$base$EVIL,/" "$C/candidates.csv"
run "$PT" results "$C"
refused "results of an escape in candidates.csv alone" \
	"candidates.csv:[0-9]*: candidate name '$base\\\\x1b]0;PWNED"
check "  and writes no results" test ! -e "$C/results"
run "$PT" submit --dry-run "$C"
refused "submit --dry-run of it" "candidates.csv:[0-9]*: candidate name"
# Other text no plan writes in a name: a C1 CSI, a right-to-left
# override, invalid UTF-8, a tab.
bad_name() {
	V=$2 awk -F, -v OFS=, 'NR == 2 { $2 = $2 ENVIRON["V"] } { print }' \
		"$T/keep.csv" >"$C/candidates.csv"
	run "$PT" list "$C"
	refused "list of a name holding $1" \
		"candidates.csv:2: candidate name .* holds $3"
}
bad_name "a C1 CSI" "$(printf '\302\2332J')" "the control character"
bad_name "a right-to-left override" "$(printf '\342\200\256')" \
	"the bidi control"
bad_name "invalid UTF-8" "$(printf '\377')" "invalid UTF-8"
bad_name "a tab" "$(printf 'a\tb')" "the control character \\\\t"

# A campaign directory whose name holds the escape: each line that names
# it spells the escape out.
mkdir -p "$T/d"
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/d/t" >/dev/null 2>&1
D="$T/d/c$EVIL"
mv "$T/d/t" "$D"
run "$PT" submit "$D" --top 1
check "submit of a directory named with an escape queues (exit $rc)" \
	test "$rc" = 75
noesc "  and prints no raw escape"
if command -v flock >/dev/null; then
	flock "$D/.lock" sleep 2 &
	sleep 0.5
	run "$PT" resume "$T"/d/c*
	check "resume while its owner holds the lock: exit 0" test "$rc" = 0
	check "  naming it spelled out" grep -q \
		'/c\\x1b]0;PWNED\\x07\\x1b\[2J: another paratune is working' \
		"$T/all"
	noesc "  and no raw escape"
	run "$PT" cancel "$D"
	check "cancel waiting for the lock: exit 0" test "$rc" = 0
	check "  names the lock spelled out" grep -q \
		"waiting for '.*/c\\\\x1b]0;PWNED.*/.lock'" "$T/all"
	noesc "  and no raw escape"
	wait
else
	echo "skip - the lock held by another (no flock)"
	run "$PT" cancel "$D"
fi
printf '\n' >"$D/.lock" # polled just now
echo 'policy = { min_poll_interval = 3600; };' >"$T/poll.conf"
chmod 644 "$T/poll.conf"
run env PARATUNE_SITE_CONF="$T/poll.conf" "$PT" resume "$D"
check "resume too soon after a poll: exit 0" test "$rc" = 0
check "  naming it spelled out" grep -q \
	'/c\\x1b]0;PWNED\\x07\\x1b\[2J: Slurm was polled' "$T/all"
noesc "  and no raw escape"
run "$PT" resume "$D"
check "resume of the cancelled campaign: finished, collected (exit $rc)" \
	test "$rc" = 0
check "  naming it spelled out" grep -q \
	'/c\\x1b]0;PWNED\\x07\\x1b\[2J: finished' "$T/all"
check "  and where it wrote" grep -q \
	'^wrote .*/c\\x1b]0;PWNED\\x07\\x1b\[2J/results/' "$T/all"
noesc "  and no raw escape"
run "$PT" results "$D"
check "results of it: exit 0 (got $rc)" test "$rc" = 0
noesc "  and no raw escape"

# ---- where a user's runs/ leads, looked at by root ----------------------
# runs/ may be a link.  Root looked where it leads with its own rights
# before acting as the owner: whether a name in a directory only root
# can search exists, what it is and its mode decided (and the error
# said) whether the campaign was worked on.  The owner, who cannot
# search there, must learn nothing: every such link is one answer.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -m 700 "$T/private" "$T/private/dir"
	: >"$T/private/file"
	chmod 640 "$T/private/file"
	P=$T/peek
	"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$P" >/dev/null 2>&1
	rm -f "$P/home"
	mv "$P/runs" "$P/runs.real"
	chown -R nobody "$P"
	peek() {
		ln -sfn "$T/private/$1" "$P/runs"
		chown -h nobody "$P/runs"
		"$PT" status "$P" >/dev/null 2>"$T/peek-$1"
		echo "$?" >>"$T/peek-$1"
		sed -i "s|private/$1|private/NAME|g" "$T/peek-$1"
	}
	peek file; peek dir; peek none
	check "root's look at a runs/ link into a root-only directory:" \
		test "$(tail -n 1 "$T/peek-none")" = 77
	why="owner nobody (uid [0-9]*) cannot check who can change"
	check "  refused: its owner cannot check where it leads" \
		grep -q "$why '$P/runs' (Permission denied)" "$T/peek-none"
	check "  a file there and a missing name answer alike" \
		cmp -s "$T/peek-file" "$T/peek-none"
	check "  a directory there and a missing name answer alike" \
		cmp -s "$T/peek-dir" "$T/peek-none"
	check "  and no mode of what is there is said" \
		test -z "$(grep -l "mode 0" "$T"/peek-*)"
	# calibrate, which reads as root, refuses the user's campaign
	# before it looks at anything in it.
	ln -sfn "$T/private/file" "$P/runs"
	run "$PT" calibrate "$P"
	check "root's calibrate of it: refused (got $rc)" test "$rc" = 77
	check "  as another user's, without looking where runs/ leads" \
		test "$(grep -c "belongs to nobody" "$T/all")/$(grep -c \
			"mode 0" "$T/all")" = 1/0
else
	echo "skip - where a user's runs/ leads (needs root and nobody)"
fi

# ---- a file root reads, reached through a user's directory --------------
# Root refuses a configuration file or an @include target that another
# user's directory leads to, and it must refuse it before opening it:
# the open follows that user's link with root's rights, to a device or
# a FIFO of root's (whose writer it wakes), and what it found there was
# said.  A writer waits on a FIFO only root can reach; it must still be
# waiting after root has refused both.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -p -m 700 "$T/private"
	mkfifo "$T/private/fifo"
	mkdir "$T/theirs"
	ln -s "$T/private/fifo" "$T/theirs/inc.conf"
	ln -s "$T/private/fifo" "$T/theirs/top.conf"
	chown -R -h nobody "$T/theirs"
	{ echo '@include "theirs/inc.conf"'
	  cat "$SRC/etc/campaigns/demo.conf"; } >"$T/root-inc.conf"
	rm -f "$T/opened"
	( exec 3>"$T/private/fifo"; : >"$T/opened" ) &
	writer=$!
	run "$PT" config "$T/root-inc.conf"
	rc_inc=$rc; cp "$T/all" "$T/all-inc"
	run "$PT" config "$T/theirs/top.conf"
	sleep 0.5
	check "root's @include through a user's link: refused (got $rc_inc)" \
		test "$rc_inc" = 77
	check "  naming the user's directory" \
		grep -q "reached through '$T/theirs', which belongs to nobody" \
		"$T/all-inc"
	check "root's campaign file through a user's link: refused (got $rc)" \
		test "$rc" = 77
	check "  and neither was opened (the FIFO's writer still waits)" \
		test ! -e "$T/opened"
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
else
	echo "skip - files root reads through a user's directory (needs root)"
fi

# ---- a moved campaign's old place, taken by another user -----------------
# DIR/home names where the campaign was planned; a directory there whose
# state names the campaign makes this one a copy, refused.  Planned in a
# sticky directory and moved, its old place is free for anyone: another
# user's directory there, with a state naming the campaign, made root
# read that user's file and refuse its own campaign for good.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -m 1777 "$T/shared"
	"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/shared/mine" \
		>/dev/null 2>&1
	mv "$T/shared/mine" "$T/moved"
	mkdir "$T/shared/mine"
	cp "$T/moved/state" "$T/shared/mine/state"
	chown -R nobody "$T/shared/mine"
	run "$PT" resume "$T/moved"
	check "root's moved campaign, its old place another user's: resumed" \
		test "$rc" = 0
	check "  and its home is where it is now" \
		test "$(head -n 1 "$T/moved/home")" = "$T/moved"
else
	echo "skip - a moved campaign's old place (needs root)"
fi

# ---- another user holding a campaign's lock ------------------------------
# flock() needs only a descriptor, and a read-only one will do: a lock
# file every user could read let any of them take a campaign's lock
# and keep it, and every resume of the campaign said another paratune
# was working on it, every cancel waited.  The lock is its owner's alone
# (0600), and one made readable before is made so again.
OTHER=4000124
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	command -v flock >/dev/null; then
	K=$T/locked
	"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$K" >/dev/null 2>&1
	run "$PT" resume "$K"
	# as_other CMD...: CMD as a uid that is neither root nor the owner.
	as_other() {
		setpriv --reuid="$OTHER" --regid="$OTHER" --clear-groups "$@"
	}
	check "a campaign's lock file: its owner's alone" \
		test "$(stat -c %a "$K/.lock")" = 600
	check "  another user cannot take it" \
		test "$(as_other sh -c "flock -n '$K/.lock' echo took" \
			2>/dev/null)" = ""
	chmod 644 "$K/.lock"
	run "$PT" resume "$K"
	check "one readable by others is made its owner's again" \
		test "$(stat -c %a "$K/.lock")" = 600
else
	echo "skip - another user holding a lock (needs root, setpriv, flock)"
fi

# ---- what root's child prints ---------------------------------------------
# What the child acting as a user printed is the child's to check: the
# parent printed nothing, and found nothing wrong.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	F=$T/full
	"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$F" >/dev/null 2>&1
	rm -f "$F/home"
	chown -R nobody "$F"
	"$PT" list "$F" >/dev/full 2>"$T/err"
	check "root's list of a user's campaign >/dev/full: 74 (got $?)" \
		grep -q "cannot write the standard output" "$T/err"
	# A daemon that runs cron lines may leave SIGCHLD ignored, and
	# that outlives exec: the kernel reaped root's children itself,
	# and waiting for them failed (70) on every campaign.
	run python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$PT" list "$F"
	check "root's list with SIGCHLD ignored: exit 0 (got $rc)" \
		test "$rc" = 0
	check "  listing the campaign" grep -q "tp_" "$T/all"
else
	echo "skip - what root's child prints (needs root)"
fi

# ---- root's own campaign that hangs --------------------------------------
# Root's own campaigns were worked on in root's process itself, with no
# limit: a stat() of a path its home file names, now in a sticky
# directory where a user mounted a FUSE file system and stopped its
# daemon, held root's cron line for good.  They run in a child under
# the limit every other campaign has (the fault injection hangs it).
if [ "$(id -u)" = 0 ]; then
	H=$T/roothang
	"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$H" >/dev/null 2>&1
	run env PARATUNE_TEST_HANG_RESUME=1 PARATUNE_TEST_OWNER_LIMIT=2 \
		timeout 60 "$PT" resume "$H"
	check "root's own campaign that hangs: killed at the limit (got $rc)" \
		test "$rc" = 75
	check "  saying so" grep -q "did not finish in 2 s" "$T/all"
else
	echo "skip - root's own campaign that hangs (needs root)"
fi

# ---- a file system that never answers -----------------------------------
# Root's look at who could change a path it reads with its own rights
# (parse, config, calibrate's inputs and the campaign files their rows
# name) stat()s every name on the way: in a FUSE file system whose
# daemon stopped it waited for good, and root's command with it.  The
# look runs in a child killed at the limit: not used, and the command
# exits 75 (the next run may fare better), as for a campaign directory.
# The daemon here (fusedaemon dead) never answers at all, not even the
# kernel's first request.
# fusedaemon MODE MNT UID: a FUSE file system of UID's at MNT whose
# daemon, with MODE dead, never reads a request, not even the kernel's
# first (FUSE_INIT); with MODE mute, answers FUSE_INIT (as protocol
# 7.22, its 24-byte reply), then reads every request and answers none.
# Prints "mounted" once the file system is there.
fusedaemon() {
	exec python3 - "$1" "$2" "$3" <<'EOF2'
import ctypes, os, signal, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
mode, mnt, uid = sys.argv[1], sys.argv[2], int(sys.argv[3])
fd = os.open("/dev/fuse", os.O_RDWR)
opts = "fd=%d,rootmode=40000,user_id=%d,group_id=0,allow_other" % (fd, uid)
if libc.mount(mode.encode(), mnt.encode(), b"fuse", 0, opts.encode()) != 0:
    sys.exit(1)
def done(*_):
    libc.umount2(mnt.encode(), 2)  # MNT_DETACH
    os._exit(0)
signal.signal(signal.SIGTERM, done)
if mode == "mute":
    req = os.read(fd, 1 << 20)
    unique = struct.unpack_from("<IIQ", req)[2]
    body = struct.pack("<IIIIHHI", 7, 22, 0, 0, 0, 0, 4096)
    os.write(fd, struct.pack("<IiQ", 16 + len(body), 0, unique) + body)
print("mounted", flush=True)
if mode == "mute":
    while True:
        os.read(fd, 1 << 20)
time.sleep(600)
done()
EOF2
}
# fuse_up MODE DIR: mount fusedaemon's file system at DIR (as nobody's)
# in the background, its pid in $fuse; true once it is there.
fuse_up() {
	fuse=
	mkdir "$2"
	[ "$(id -u)" = 0 ] && [ -n "$NOBODY" ] && [ -e /dev/fuse ] ||
		return 1
	fusedaemon "$1" "$2" "$NOBODY" >"$2.out" 2>/dev/null &
	fuse=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		grep -q mounted "$2.out" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
# fuse_down: stop fuse_up's daemon, if any.
fuse_down() {
	[ -n "${fuse:-}" ] || return 0
	kill "$fuse" 2>/dev/null
	wait "$fuse" 2>/dev/null
}
# limited CMD...: CMD as root under a 2 s look limit, itself killed
# after 30 s (it waited for good before).
limited() {
	run env PARATUNE_TEST_OWNER_LIMIT=2 timeout -s KILL 30 "$@"
}
NOBODY=$(id -u nobody 2>/dev/null)
if fuse_up dead "$T/dead"; then
	# A look that did not finish exits 75, as one at a campaign
	# directory does (it was 77 here): the next run may fare better.
	limited "$PT" parse "$T/dead/run.log"
	check "root's parse of a log on a dead FUSE: 75 (got $rc)" \
		test "$rc" = 75
	check "  saying why" grep -q \
		"dead/run.log': looking at who can change it did not finish in 2 s" \
		"$T/all"
	limited "$PT" config "$T/dead/c.conf"
	check "root's config of a campaign file there: 75 (got $rc)" \
		test "$rc" = 75
	printf '@include "dead/inc.conf"\n' >"$T/dead-inc.conf"
	limited "$PT" config "$T/dead-inc.conf"
	check "root's config of a file that includes one there: 75 (got $rc)" \
		test "$rc" = 75
	check "  naming the @include" grep -q \
		"dead-inc.conf:1: not including 'dead/inc.conf'" "$T/all"
	limited "$PT" plan "$SRC/etc/campaigns/demo.conf" \
		-s "run.template=$T/dead/job.sbatch" -o "$T/dead-tmpl"
	check "root's plan with a template there: 75 (got $rc)" \
		test "$rc" = 75
	check "  and no campaign" test ! -e "$T/dead-tmpl"
	limited "$PT" plan "$SRC/etc/campaigns/demo.conf" -o "$T/dead/camp"
	check "root's plan into a directory there: 75 (got $rc)" \
		test "$rc" = 75
	limited "$PT" calibrate "$T/dead/runs.csv"
	check "root's calibrate of a CSV there: 75 (got $rc)" test "$rc" = 75
	{ sed -n 1p "$SRC/tests/data/calibrate/generated.csv"
	  sed -n 2p "$SRC/tests/data/calibrate/generated.csv" |
		sed "s|^[^,]*,|dead/c.conf,|"
	} >"$T/dead-row.csv"
	limited "$PT" calibrate "$T/dead-row.csv"
	check "root's calibrate of a row naming a file there: 75 (got $rc)" \
		test "$rc" = 75
	check "  naming the row" grep -q \
		"dead-row.csv:2:1: campaign_file 'dead/c.conf' is refused" "$T/all"
	limited "$PT" calibrate "$SRC/tests/data/calibrate/generated.csv" \
		-o "$T/dead/cal.conf"
	check "root's calibrate -o a file there: 75 (got $rc)" \
		test "$rc" = 75
	# Whether estimate's argument is a campaign directory or a file,
	# and whether a site file is root's alone, were stat()s of root's
	# own, with no limit.
	limited "$PT" estimate "$T/dead/c.conf"
	check "root's estimate of a file there: 75 (got $rc)" test "$rc" = 75
	check "  saying why" grep -q \
		"looking at '$T/dead/c.conf' did not finish in 2 s" "$T/all"
	limited "$PT" --site "$T/dead/site.conf" models
	check "root's --site file there: 75 (got $rc)" test "$rc" = 75
	check "  saying why" grep -q \
		"site.conf': looking at who can change it did not finish in 2" \
		"$T/all"
	fuse_down
else
	fuse_down
	echo "skip - a file system that never answers (needs root, nobody," \
		"and a FUSE mount)"
fi

# A daemon that takes each request and answers none (fusedaemon mute):
# once it has read one, SIGKILL no longer ends the process that asked,
# which waits in the kernel for the answer.  Root killed the child that
# looked, then waited for it for good.  It now leaves it behind and
# goes on.
if fuse_up mute "$T/mute"; then
	t0=$(date +%s)
	limited "$PT" parse "$T/mute/run.log"
	check "root's parse of a log on a FUSE that reads and never answers: 75 (got $rc)" \
		test "$rc" = 75
	check "  within the limit and the wait for the killed look ($(($(date +%s) - t0)) s)" \
		test $(($(date +%s) - t0)) -lt 15
	check "  saying why" grep -q \
		"mute/run.log': looking at who can change it did not finish in 2 s" \
		"$T/all"
	# A campaign directory there: root's look at it, before acting as
	# its owner, is left behind the same way.
	t0=$(date +%s)
	limited "$PT" list "$T/mute/camp"
	check "root's list of a campaign there: 75 (got $rc)" test "$rc" = 75
	check "  within the limit and the wait ($(($(date +%s) - t0)) s)" \
		test $(($(date +%s) - t0)) -lt 15
	check "  saying why" grep -q \
		"campaign directory '$T/mute/camp' did not finish in 2 s" "$T/all"
	fuse_down
else
	fuse_down
	echo "skip - a file system that reads and never answers (needs" \
		"root, nobody, and a FUSE mount)"
fi

# ---- a campaign of a uid that has no passwd entry ------------------------
# Root took the directory's group for such a uid's only group: a
# directory of group root (made in a set-group-ID directory of root's
# group, say) had root's child act with group root, and read what only
# that group may.  With no passwd entry its groups cannot be known.
NOPW=4000123
if [ "$(id -u)" = 0 ] && ! getent passwd "$NOPW" >/dev/null; then
	G=$T/nopw
	"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$G" >/dev/null 2>&1
	rm -f "$G/home"
	echo '# what only group root may read' >"$T/group-only.conf"
	chmod 640 "$T/group-only.conf"
	echo "@include \"../group-only.conf\"" >>"$G/campaign.conf"
	chown -R "$NOPW:0" "$G"
	run "$PT" status "$G"
	check "a campaign of a uid with no passwd entry: refused (got $rc)" \
		test "$rc" = 77
	check "  saying why" grep -q \
		"uid $NOPW has no passwd entry: its groups cannot be known" \
		"$T/all"
else
	echo "skip - a uid with no passwd entry (needs root, uid $NOPW free)"
fi
unset PARATUNE_SITE_CONF SLURM_CONF

echo "($NVALUES hostile values)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
