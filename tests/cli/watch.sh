#!/bin/sh
# watch.sh - `paratune watch LOG` on synthetic Megatron-LM logs: a steady
# run is stopped at the step where its step time is first known to +-1 %
# (and the trainer's clean exit ends it), a noisy run is not stopped, and
# a FIFO, a symbolic link, a binary file, a cut last line or a missing
# log give a clear message without hanging.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

# line STEP TOTAL MS: one iteration line as Megatron-LM prints it.
line() {
	printf ' [2026-11-25 10:00:00] iteration %8d/%8d | consumed samples:' \
		"$1" "$2"
	printf ' %12d | elapsed time per iteration (ms): %s | learning rate:' \
		"$(($1 * 16))" "$3"
	printf ' 1.0E-05 | global batch size:    16 | lm loss: 9.5E+00 |\n'
}

# steady_ms STEP: 3 s for the first (warm-up), then 1000 and 1010 ms in
# turn: the mean is known to far better than 1 % from the start, so the
# rule waits for its minimum, 10 steps after one warm-up step: step 11.
steady_ms() { if [ "$1" = 1 ]; then echo 3000.0;
	elif [ $(($1 % 2)) = 0 ]; then echo 1000.0; else echo 1010.0; fi; }
# noisy_ms STEP: 1000 and 1500 ms in turn: +-20 %, never known to 1 %.
noisy_ms() { if [ $(($1 % 2)) = 0 ]; then echo 1000.0; else echo 1500.0; fi; }
# zero_ms STEP: steady_ms, but step 5 timed at zero (a clock gone wrong).
zero_ms() { if [ "$1" = 5 ]; then echo 0.0; else steady_ms "$1"; fi; }
# fast_ms, slow_ms: 1 s and 5 s every step, a first run and a second.
fast_ms() { echo 1000.0; }
slow_ms() { echo 5000.0; }

# log FILE KIND N: N steps of a 40-step run.
log() {
	i=1
	: >"$1"
	while [ "$i" -le "$3" ]; do
		line "$i" 40 "$("${2}_ms" "$i")" >>"$1"
		i=$((i + 1))
	done
}

# trainer FILE KIND: a fake trainer writing one step every 0.3 s; on
# SIGTERM it finishes the step, prints Megatron-LM's exit line and ends
# 0, as Megatron-LM does with --exit-signal-handler.
trainer() {
	(
		stop=0
		trap 'stop=1' TERM
		i=1
		while [ "$i" -le 40 ]; do
			sleep 0.3
			line "$i" 40 "$("${2}_ms" "$i")" >>"$1"
			if [ "$stop" = 1 ]; then
				echo "[exiting program after receiving SIGTERM.]" \
					"datetime: 2026-11-25 10:00:00 " >>"$1"
				exit 0
			fi
			i=$((i + 1))
		done
		echo "[after training is done] datetime: 2026-11-25" >>"$1"
	) &
	tpid=$!
}

# ---- the rule on whole logs ------------------------------------------------
log "$T/ten.log" steady 10
expect "10 steps (9 after warm-up): not yet known" 0 \
	"$PT" watch --timeout 0.2 --interval 0.05 "$T/ten.log"
has "... the verdict says timeout" '^timeout step_s=1\.00[0-9]* .* n=9 step=10$' \
	"$T/out"
has "... and why on stderr" 'no steady step time after 0.2 s' "$T/err"
printf 'loading the data\n' >"$T/nostep.log"
expect "a log with no step yet: timeout" 0 \
	"$PT" watch --timeout 0.2 --interval 0.05 "$T/nostep.log"
has "... the verdict has no step number, as no time" \
	'^timeout step_s=- .* n=0 step=-$' "$T/out"
log "$T/eleven.log" steady 11
expect "11 steps: known, steady" 0 \
	"$PT" watch --timeout 0.2 "$T/eleven.log"
has "... steady, 10 measured, at step 11" \
	'^steady step_s=1\.005 +-0\.[0-9][0-9]% n=10 step=11$' "$T/out"
log "$T/noisy.log" noisy 40
expect "a noisy run to its end: not steady" 0 \
	"$PT" watch --timeout 5 "$T/noisy.log"
has "... max_steps: the log's own total" '^max_steps step_s=1\.2[0-9]* ' \
	"$T/out"
expect "--precision 20 takes the noisy run" 0 \
	"$PT" watch --precision 20 --timeout 1 "$T/noisy.log"
has "... as steady" '^steady ' "$T/out"
# One step timed at zero ended all judging for the rest of the run.
log "$T/zero.log" zero 20
expect "a step timed at zero" 0 \
	"$PT" watch --timeout 0.5 --interval 0.05 "$T/zero.log"
has "... is left out: steady on the others" \
	'^steady step_s=1\.00[0-9]* .* n=17 step=20$' "$T/out"
check "... with one warning" \
	[ "$(grep -c 'timed at zero or less' "$T/err")" = 1 ]
log "$T/short.log" noisy 30
expect "--max-steps 25 on a noisy log: max_steps" 0 \
	"$PT" watch --max-steps 25 --timeout 1 "$T/short.log"
has "... at step 30, the last logged" '^max_steps .* step=30$' "$T/out"

# A verdict file that cannot be made was said once the watch was over
# (the trainer stopped, the verdict lost): now before it starts.
: >"$T/empty.log"
sleep 60 &
spid=$!
expect "-o into a missing directory" 73 timeout 20 \
	"$PT" watch --pid "$spid" -o "$T/none/v.txt" "$T/empty.log"
has "... named" "cannot create '$T/none/v.txt'" "$T/err"
check "... before watching: the trainer is left running" kill -0 "$spid"
kill "$spid"

# A NeMo 2.0 run at its last iteration: "iteration 19/19" with
# global_step 19, the last of 20.  Its steps counted from 0 never met
# the total, and watch waited out its timeout.
# (Copied to the scratch directory: root watches only along root's
# paths, and the shared data need not be root's.)
REAL_LOGS=${PARATUNE_REAL_LOGS:-$SRC/../shared/data/real-logs}
N2=$REAL_LOGS/nemo2_resume_reordered_fields_nemo_resiliency_demo.log
if [ -r "$N2" ]; then
	cp "$N2" "$T/nemo2.log"
	expect "a NeMo 2.0 log that ran all its steps" 0 timeout 30 \
		"$PT" watch --timeout 20 "$T/nemo2.log"
	has "... ends at max_steps, not the timeout" \
		'^max_steps .* step=19$' "$T/out"
fi

# Every poll judged all the steps again, also when the read added
# nothing: 55 ms a poll at 10^6 steps.  200 000 steps that never
# settle (a drift), polled every 0.01 s for 3 s, now cost little more
# CPU than one look at them.
awk 'BEGIN { for (i = 1; i <= 200000; i++) printf " [2026-11-25 10:00:00]" \
	" iteration %8d/10000000 | consumed samples: %12d | elapsed time" \
	" per iteration (ms): %.2f | learning rate: 1.0E-05 | global batch" \
	" size:    16 | lm loss: 9.5E+00 |\n", i, i * 16, 1000 + i / 100 }' \
	>"$T/big.log"
# cpu SECONDS: the milliseconds of CPU of watching big.log that long.
cpu() {
	python3 -c 'import resource, subprocess, sys
subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(int((r.ru_utime + r.ru_stime) * 1000))' "$PT" watch --timeout "$1" \
		--interval 0.01 "$T/big.log"
}
one=$(cpu 0.01)
long=$(cpu 3)
desc="polls that read nothing are not judged again ($long ms of CPU in"
check "$desc 3 s, $one ms for one look)" [ "$long" -le $((2 * one + 200)) ]
rm -f "$T/big.log"

# ---- a live trainer ----------------------------------------------------------
: >"$T/live.log"
trainer "$T/live.log" steady
expect "a steady trainer is stopped" 0 timeout 60 \
	"$PT" watch --pid "$tpid" --interval 0.05 -o "$T/live.verdict" \
	"$T/live.log"
wait "$tpid"
check "... and ends 0 after its signal handler" [ $? = 0 ]
has "... the verdict file: steady at step 11" \
	'^steady step_s=1\.005 +-0\.[0-9][0-9]% n=10 step=11$' "$T/live.verdict"
check "... nothing on stdout with -o" [ ! -s "$T/out" ]
check "... it finished the step it was in (11 or 12 steps in all)" \
	[ "$(grep -c ' iteration ' "$T/live.log")" -le 12 ]
has "... then printed Megatron-LM's exit line" \
	'^\[exiting program after receiving SIGTERM\.\]' "$T/live.log"
hasnt "... and did not run to its end" 'after training is done' \
	"$T/live.log"

: >"$T/live-noisy.log"
trainer "$T/live-noisy.log" noisy
expect "a noisy trainer is not stopped" 0 timeout 60 \
	"$PT" watch --pid "$tpid" --interval 0.1 "$T/live-noisy.log"
wait "$tpid"
has "... it ran its 40 steps: max_steps" '^max_steps .* step=40$' "$T/out"
has "... and ended by itself" 'after training is done' "$T/live-noisy.log"

: >"$T/live-stop.log"
trainer "$T/live-stop.log" noisy
expect "--max-steps 5 stops a noisy trainer" 0 timeout 60 \
	"$PT" watch --pid "$tpid" --max-steps 5 --interval 0.05 \
	"$T/live-stop.log"
wait "$tpid"
check "... at step 5 or 6" \
	[ "$(grep -c ' iteration ' "$T/live-stop.log")" -le 6 ]
has "... max_steps" '^max_steps ' "$T/out"

# The verdict is written before the trainer is signalled: with stdout on
# a full disk, or -o on a file system with no room, the run was stopped
# and no verdict told results it was steady (it read "exited").  Now a
# verdict that cannot be written leaves the trainer running.
# (ulimit -f 0 makes every write to a file fail as a full disk would.)
for where in stdout file; do
	: >"$T/full.log"
	trainer "$T/full.log" steady
	if [ $where = stdout ]; then
		"$PT" watch --pid "$tpid" --interval 0.05 "$T/full.log" \
			>/dev/full 2>"$T/err"
		echo "exit $?" >>"$T/err"
	else
		# stderr through a pipe, which the limit does not touch
		{ (trap '' XFSZ; ulimit -f 0; exec "$PT" watch --pid "$tpid" \
			--interval 0.05 -o "$T/full.verdict" "$T/full.log") \
			2>&1; echo "exit $?"; } | cat >"$T/err"
	fi
	has "a verdict that cannot be written ($where): exit 73" '^exit 73$' \
		"$T/err"
	has "... says the trainer is left running" \
		"the verdict cannot be written: the trainer is left running" \
		"$T/err"
	sleep 1
	check "... and the trainer was not signalled" kill -0 "$tpid"
	hasnt "... so it did not exit early" '^\[exiting program' \
		"$T/full.log"
	kill "$tpid"
	wait "$tpid"
done
check "... no verdict file, nor a temporary one left" \
	[ "$(ls "$T" | grep -c '^full\.verdict')" = 0 ]
# A signal refused after the verdict was written: the verdict is not put
# in place (it would claim a stop that did not happen), nor left beside.
# Takes root, to watch as another user a trainer it may not signal.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 711 "$T"
	mkdir -m 777 "$T/other"
	log "$T/other/eleven.log" steady 11
	sleep 30 &
	spid=$!
	expect "a trainer watch may not signal" 77 timeout 20 setpriv \
		--reuid=65534 --regid=65534 --clear-groups "$PT" watch \
		--pid "$spid" -o "$T/other/v.txt" "$T/other/eleven.log"
	has "... says so" "cannot signal process $spid: not permitted" \
		"$T/err"
	check "... no verdict, nor a temporary file" \
		[ "$(ls "$T/other" | grep -c '^v\.txt')" = 0 ]
	kill "$spid"
fi

# A trainer that dies: watch ends with it.
(sleep 0.3; log "$T/dead.log" steady 4; exit 3) &
expect "a trainer that ends early: exited" 0 timeout 30 \
	"$PT" watch --pid $! --interval 0.05 "$T/dead.log"
has "... exited with the 3 measured steps" '^exited .* n=3 step=4$' "$T/out"
(sleep 0.2) &
expect "a trainer that ends before its log exists" 66 timeout 30 \
	"$PT" watch --pid $! --interval 0.05 "$T/never.log"
has "... says so" "cannot read '.*never.log': it does not exist and the trainer has ended" "$T/err"

# A trainer that ended and that no one reaps (its parent busy with
# something else) stays a zombie: kill(pid, 0) still found it, and
# watch waited for it for ever.
: >"$T/zombie.log"
sh -c 'sleep 0.2 & echo $! >"$1.tmp"; mv "$1.tmp" "$1"; exec sleep 30' \
	sh "$T/zombie.pid" &
zparent=$!
while [ ! -s "$T/zombie.pid" ]; do sleep 0.05; done
expect "a trainer left a zombie: exited" 0 timeout 10 \
	"$PT" watch --pid "$(cat "$T/zombie.pid")" --interval 0.05 \
	"$T/zombie.log"
has "... says so" '^exited ' "$T/out"
kill "$zparent"
wait "$zparent" 2>/dev/null

# Where no pidfd can be had (Linux before 5.3, a system call filter),
# watch refused to follow the trainer at all, and no run on such a
# cluster was ever stopped early.  It follows it by its number, saying
# so, and still stops it.
log "$T/nopidfd.log" steady 40
sleep 30 &
npid=$!
expect "no pidfd to be had: the trainer is still stopped" 0 timeout 20 \
	env PARATUNE_TEST_NO_PIDFD=1 "$PT" watch --pid "$npid" \
	--interval 0.05 "$T/nopidfd.log"
has "... steady" '^steady ' "$T/out"
has "... with a warning that says how it is followed" \
	"cannot hold process $npid by a pidfd (Function not implemented): following it by its number" \
	"$T/err"
sleep 0.2
check "... and the trainer got the signal" sh -c "! kill -0 $npid 2>/dev/null"
wait "$npid" 2>/dev/null

# A trainer's pid given to another process within one --interval (the
# trainer ended and was reaped): watch, knowing the trainer by its
# number alone, signalled that other process.  Reusing a pid at will
# takes root (ns_last_pid); elsewhere this is not tried.
if [ -w /proc/sys/kernel/ns_last_pid ]; then
	log "$T/reuse.log" steady 6
	sleep 30 &
	old=$!
	"$PT" watch --pid "$old" --interval 1 -o "$T/reuse.verdict" \
		"$T/reuse.log" 2>"$T/reuse.err" &
	wpid=$!
	sleep 0.3
	kill "$old"
	wait "$old"
	echo $((old - 1)) >/proc/sys/kernel/ns_last_pid
	sleep 30 &
	new=$!
	i=7
	while [ "$i" -le 20 ]; do
		line "$i" 40 "$(steady_ms "$i")" >>"$T/reuse.log"
		i=$((i + 1))
	done
	wait "$wpid"
	if [ "$new" = "$old" ]; then
		check "a trainer's pid reused: the new one is not signalled" \
			kill -0 "$new"
		has "... the trainer exited" '^exited ' "$T/reuse.verdict"
	else
		echo "skip - the pid was not reused ($old, then $new)"
	fi
	kill "$new" 2>/dev/null
fi

# --pgid: the trainer's whole group gets the signal, and still does once
# its leader has ended and been reaped (the group lives on in the
# others; watch holds it by its leader's pidfd where Linux allows).
# group_leader FILE: setsid started in the background, its pid in gl,
# once it leads a group of its own.
group_leader() {
	gl=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(ps -o pgid= -p "$gl" | tr -d ' ')" = "$gl" ] && return 0
		sleep 0.05
	done
	return 1
}
# running_in GROUP: a process of GROUP is still running (an ended one
# may stay a zombie here: it is reparented to an init that may not reap).
running_in() {
	ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { n++ }
		END { exit !n }'
}
log "$T/group.log" steady 40
setsid sh -c 'sleep 30 & exec sleep 30' &
if group_leader; then
	expect "--pgid: the trainer's group is stopped" 0 timeout 20 \
		"$PT" watch --pgid "$gl" --interval 0.05 "$T/group.log"
	has "... steady" '^steady ' "$T/out"
	sleep 0.2
	check "... and every process of the group got the signal" \
		eval '! running_in "$gl"'
else
	ko "--pgid: setsid made no group"
fi
wait "$gl" 2>/dev/null
log "$T/lead.log" steady 6
setsid sh -c 'sleep 30 & sleep 0.5' &
if group_leader; then
	"$PT" watch --pgid "$gl" --interval 0.2 -o "$T/lead.verdict" \
		"$T/lead.log" 2>"$T/lead.err" &
	wpid=$!
	wait "$gl"
	i=7
	while [ "$i" -le 20 ]; do
		line "$i" 40 "$(steady_ms "$i")" >>"$T/lead.log"
		i=$((i + 1))
	done
	wait "$wpid"
	has "--pgid, its leader ended and reaped: steady" '^steady ' \
		"$T/lead.verdict"
	sleep 0.2
	check "... and the rest of the group got the signal" \
		eval '! running_in "$gl"'
else
	ko "--pgid: setsid made no group"
fi

# The same for a process group (--pgid), which watch knew by its number
# alone: the group ended and its leader was reaped, the id became that
# of a new process that made itself a group leader, and watch took the
# new group for the trainer's and signalled it.  Where Linux signals a
# group through a pidfd (6.9 and later) watch holds the group so; on
# older kernels the number is all there is and this is not tried.
if [ -w /proc/sys/kernel/ns_last_pid ] &&
	[ "$(uname -r | awk -F. '{ print ($1 > 6 || ($1 == 6 && $2 >= 9)) }')" = 1 ]
then
	log "$T/greuse.log" steady 6
	setsid sleep 30 &
	old=$!
	"$PT" watch --pgid "$old" --interval 1 -o "$T/greuse.verdict" \
		"$T/greuse.log" 2>"$T/greuse.err" &
	wpid=$!
	sleep 0.3
	kill "$old"
	wait "$old"
	echo $((old - 1)) >/proc/sys/kernel/ns_last_pid
	setsid sleep 30 &
	new=$!
	# A group of its own once setsid has run in it (before the steps
	# are written, so before watch could signal it).
	leader=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(ps -o pgid= -p "$new" | tr -d ' ')" = "$new" ] &&
			{ leader=1; break; }
		sleep 0.02
	done
	i=7
	while [ "$i" -le 20 ]; do
		line "$i" 40 "$(steady_ms "$i")" >>"$T/greuse.log"
		i=$((i + 1))
	done
	wait "$wpid"
	if [ "$new" = "$old" ] && [ "$leader" = 1 ]; then
		check "a trainer's group id reused: the new group is not signalled" \
			kill -0 "$new"
		has "... the trainer's group exited" '^exited ' \
			"$T/greuse.verdict"
	else
		echo "skip - the group id was not reused ($old, then $new)"
	fi
	kill "$new" 2>/dev/null
fi

# ---- a log truncated, rewritten or replaced under watch --------------------
# watch read on from where it was: a log emptied and written anew by a
# second run gave the steps of both as one ("max_steps step_s=4.88889
# +-4.61% n=36"), and one shorter than what was read was read from the
# middle of a line, or not at all.  It starts over from the new start.
# A healthy log of more than the 4 KiB tail kept: the offset counted only
# what the tail kept, and every poll took the log for rewritten.
log "$T/long.log" fast 60
expect "a log longer than the tail kept, left alone" 0 timeout 30 \
	"$PT" watch --timeout 1.5 --interval 0.2 "$T/long.log"
hasnt "... is never taken for rewritten" "reading it again" "$T/err"
log "$T/again.log" fast 5
log "$T/again.new" slow 40
(sleep 1; : >"$T/again.log"; cat "$T/again.new" >>"$T/again.log") &
expect "a log emptied and written anew" 0 timeout 30 \
	"$PT" watch --timeout 6 --interval 0.2 "$T/again.log"
wait $!
has "... the second run alone" '^steady step_s=5 +-0\.00% n=36 step=40$' \
	"$T/out"
has "... and a warning naming the log" \
	"warning: '.*again.log' was [a-z]*: reading it again from the start" \
	"$T/err"
log "$T/shrunk.log" fast 8
log "$T/shrunk.new" slow 6
(sleep 0.5; cat "$T/shrunk.new" >"$T/shrunk.log") &
expect "a log written anew, shorter than what was read" 0 timeout 30 \
	"$PT" watch --timeout 1.5 --interval 0.1 "$T/shrunk.log"
wait $!
has "... its 6 steps, not the first run's 8" \
	'^timeout step_s=5 +-0\.00% n=5 step=6$' "$T/out"
has "... said to be truncated" "'.*shrunk.log' was truncated" "$T/err"
log "$T/rot.log" fast 8
log "$T/rot.new" slow 12
(sleep 0.5; mv "$T/rot.log" "$T/rot.log.1"; mv "$T/rot.new" "$T/rot.log") &
expect "a log rotated: another file at the path" 0 timeout 30 \
	"$PT" watch --timeout 6 --interval 0.1 "$T/rot.log"
wait $!
has "... the new file alone" '^steady step_s=5 +-0\.00% n=11 step=12$' \
	"$T/out"
has "... said to be replaced" "'.*rot.log' was replaced" "$T/err"
# A log truncated in place while its writer keeps its offset (no
# O_APPEND: Slurm's default truncate mode, logrotate's copytruncate):
# the next write leaves a hole of NUL bytes before it.  watch took the
# log for binary ("not a training log: NUL byte at offset 0 and no
# step", exit 65) and left the trainer without an early stop.
(
	exec 3>"$T/hole.log"
	i=1
	while [ "$i" -le 8 ]; do line "$i" 40 1000.0 >&3; i=$((i + 1)); done
	sleep 0.6
	: >"$T/hole.log"
	sleep 0.3
	echo "saving checkpoint at iteration 8" >&3
	sleep 0.5
	while [ "$i" -le 40 ]; do line "$i" 40 5000.0 >&3; i=$((i + 1)); done
) &
expect "a log truncated under a writer that keeps its offset" 0 \
	timeout 30 "$PT" watch --timeout 6 --interval 0.1 "$T/hole.log"
wait $!
# Judged on the steps after the hole (5 s; those before were 1 s), at
# whichever step watch's poll found them steady: a slow run (the
# sanitizers) stopped at step 23 of the 40 written at once.
has "... the steps after the hole" '^steady step_s=5 .* step=[1-4][0-9]$' \
	"$T/out"
has "... the hole skipped, with a warning" \
	"'.*hole.log': skipped [0-9]* NUL bytes" "$T/err"
# The file opened anew is opened with the same care as the first.
log "$T/swap.log" fast 8
(sleep 0.5; ln -s "$T/again.new" "$T/swap.tmp"
 mv "$T/swap.tmp" "$T/swap.log") &
expect "a log replaced by a symbolic link" 66 timeout 30 \
	"$PT" watch --timeout 6 --interval 0.1 "$T/swap.log"
wait $!
has "... is not followed" "'.*swap.log': it is a symbolic link" "$T/err"
log "$T/pipe.log" fast 8
(sleep 0.5; rm "$T/pipe.log"; mkfifo "$T/pipe.log") &
expect "a log replaced by a FIFO" 66 timeout 30 \
	"$PT" watch --timeout 6 --interval 0.1 "$T/pipe.log"
wait $!
has "... is refused" "cannot read '.*pipe.log': not a regular file" "$T/err"

# ---- hostile and broken logs: clear errors, no hang ------------------------
mkfifo "$T/fifo"
expect "a FIFO is refused at once" 66 timeout 10 \
	"$PT" watch --timeout 5 "$T/fifo"
has "... not a regular file" "cannot read '.*fifo': not a regular file" \
	"$T/err"
ln -s "$T/eleven.log" "$T/link.log"
expect "a symbolic link is not followed" 66 timeout 10 \
	"$PT" watch --timeout 5 "$T/link.log"
has "... and says so" "'.*link.log': it is a symbolic link" "$T/err"
mkdir "$T/dir.log"
expect "a directory is refused" 66 timeout 10 \
	"$PT" watch --timeout 5 "$T/dir.log"
head -c 20000 /dev/urandom >"$T/binary.log"
printf '\000\000' >>"$T/binary.log"
expect "a binary file is refused" 65 timeout 10 \
	"$PT" watch --timeout 5 "$T/binary.log"
has "... as no training log" "is not a training log: NUL byte" "$T/err"
log "$T/cut.log" steady 6
printf ' [2026-11-25 10:00:00] iteration        7/      40 | consumed sa' \
	>>"$T/cut.log"
expect "a log cut mid-line: timeout, not a hang" 0 timeout 10 \
	"$PT" watch --timeout 0.3 --interval 0.05 "$T/cut.log"
has "... the 6 whole steps counted" '^timeout .* step=6$' "$T/out"
has "... and the cut line noted" 'last line has no line break' "$T/err"
expect "a missing log, --timeout 0.2" 66 timeout 10 \
	"$PT" watch --timeout 0.2 --interval 0.05 "$T/missing.log"
has "... says so" "does not exist (--timeout reached)" "$T/err"
# --timeout is kept whatever --interval says: the last wait is cut to
# what is left of it (--timeout 1 --interval 30 took 30 s).
: >"$T/quiet.log"
for f in quiet missing; do
	s0=$(date +%s)
	expect "a $f log, --timeout 1 --interval 30" "$([ $f = quiet ] &&
		echo 0 || echo 66)" timeout 20 "$PT" watch --timeout 1 \
		--interval 30 "$T/$f.log"
	s1=$(date +%s)
	check "... ends after about 1 s, not 30 ($((s1 - s0)) s)" \
		test $((s1 - s0)) -le 5
done

# ---- usage -------------------------------------------------------------------
expect "--pid and --pgid together" 64 "$PT" watch --pid 1 --pgid 1 x
expect "an unknown signal" 64 "$PT" watch --signal BOGUS x
expect "a zero interval" 64 "$PT" watch --interval 0 x
expect "no log" 64 "$PT" watch
# The defaults' own sentinels (0: no trainer, -1: no timeout) were
# accepted when typed; -2 was refused, -1 was not.
expect "--pid 0" 64 timeout 10 "$PT" watch --pid 0 x
expect "--pgid 0" 64 timeout 10 "$PT" watch --pgid 0 x
has "... says positive, naming the value" "--pgid must be a positive id, not 0" \
	"$T/err"
# A trainer whose signal reaches what it must not: --pgid 1 sent
# kill(-1, TERM), to every process the caller may signal (as root, the
# node), and --pid 1 signalled init.  Watch's own group (a batch shell's
# background jobs share it), watch itself or its parent ended watch with
# the trainer, before the verdict.  Each is refused before watching.
# (Not under timeout(1): it puts watch in a group of its own.)
for a in "--pid 1:init" "--pgid 1:kill(-1)" \
	"--pgid $(ps -o pgid= -p $$ | tr -d ' '):own process group" \
	"--pid $$:parent"; do
	# shellcheck disable=SC2086 # the option and its value
	expect "watch ${a%%:*}" 64 "$PT" watch --timeout 1 ${a%%:*} \
		"$T/none.log"
	has "... refused, saying why" "error: ${a%%:*} is refused: .*${a#*:}" \
		"$T/err"
done
expect "watch --pid of watch itself" 64 sh -c \
	'exec "$0" watch --timeout 1 --pid $$ "$1"' "$PT" "$T/none.log"
has "... refused" "error: --pid [0-9]* is refused: it is watch itself" \
	"$T/err"
expect "--timeout -1" 64 timeout 10 "$PT" watch --timeout -1 x
has "... says 0 or more, naming the value" \
	"--timeout must be 0 (none) or more, not -1" "$T/err"
# --skip-steps -1 is results.skip_steps' default, which the job scripts
# render into their watch line: a value; -2 is not.
expect "watch --skip-steps -2" 64 timeout 10 "$PT" watch --timeout 1 \
	--skip-steps -2 x
has "... says -1 or more" "--skip-steps must be -1 (the default) or more" \
	"$T/err"
expect "parse --skip-steps -2" 64 "$PT" parse --skip-steps -2 x
has "... says -1 or more" "--skip-steps must be -1 (the default) or more" \
	"$T/err"
# A value out of range is named with its option, alone: "--max-steps -5"
# was told "--max-steps cannot be negative, --skip-steps must be -1 (the
# default) or more, --min-steps at least 1", and nothing said which.
for a in "watch --max-steps -5 x:--max-steps must be 0 (the log's own total) or more, not -5" \
	"watch --min-steps 0 x:--min-steps must be at least 1, not 0" \
	"watch --interval 0.001 x:--interval must be between 0.01 and 3600 seconds, not 0.001" \
	"watch --precision 0 x:--precision must be a percentage above 0 and at most 100, not 0" \
	"watch --pid -7 x:--pid must be a positive id, not -7" \
	"parse --min-steps -1 x:--min-steps must be 0 or more, not -1" \
	"parse --skip-steps -3 x:--skip-steps must be -1 (the default) or more, not -3"; do
	# shellcheck disable=SC2086 # the command's words
	expect "${a%%:*}" 64 timeout 10 "$PT" ${a%%:*}
	has "... names the option and the value" "error: ${a#*:}$" "$T/err"
done
expect "parse --skip-steps -1, the default, as a job script gives it" 0 \
	"$PT" parse --skip-steps -1 "$T/cut.log"
expect "the parser's unset value is not an integer" 64 "$PT" watch \
	--pid -2147483648 x
expect "parse --skip-steps 0 is still read" 0 "$PT" parse --skip-steps 0 \
	"$T/cut.log"
expect "--help" 0 "$PT" watch --help
has "... names --pid" '--pid PID' "$T/out"
# 10 measured steps are needed whatever --min-steps says (steady_check,
# STEADY_MIN_STEPS): the help said "default 5; never under 10".
hasnt "... without a default under the floor" 'default 5' "$T/out"
has "... naming the floor" 'min-steps N.*default 10' "$T/out"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
