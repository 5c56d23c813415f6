#!/bin/sh
# run.sh - build the libFuzzer targets with clang and run each for
# FUZZ_SECONDS (default 60), FUZZ_JOBS at a time (default: one a core),
# printing how many inputs each survived.
#
#   tests/fuzz/run.sh [TARGET...]     targets: logparse template config state
#                                     measured candidates
#
# Needs a configured tree (autoconfig.h) and Debian's clang with
# libclang-rt-14-dev.  Seeds: tests/fuzz/corpus/TARGET plus, read only,
# the project's templates, example campaigns and the real log excerpts
# beside the project when present.  New inputs go to a scratch corpus.
# The targets' own error messages are silenced (-close_fd_mask=2);
# libFuzzer's report still reaches the log.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
secs=${FUZZ_SECONDS:-60}
out=${FUZZ_BUILD:-$top/build-fuzz}
cc=${FUZZ_CC:-clang}
targets=${*:-logparse template config state measured candidates}

command -v "$cc" >/dev/null || {
	echo "fuzz: $cc not found (apt-get install clang libclang-rt-14-dev)" >&2
	exit 69
}
[ -f autoconfig.h ] || { echo "fuzz: run ./configure first" >&2; exit 69; }
mkdir -p "$out/obj"
flags="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I$top -I$top/src $(pkg-config --cflags libconfig libpcre2-8) -DPARATUNE_SYSCONFDIR=\"/nonexistent\" -DPARATUNE_DATADIR=\"$top\" -DPARATUNE_BINDIR=\"$top\""
libs="$(pkg-config --libs libconfig libpcre2-8) -lslurm -lm"

# The library, once, as an archive: like the real build, its symbols are
# kept out of the dynamic table (libconfig has its own strbuf_*).  An
# object is rebuilt when its source or any header is newer; $jobs at a
# time.
jobs=${FUZZ_JOBS:-$(nproc)}
newest_h=$(ls -t src/*.h src/simtrain/*.h | head -1)
objs="" pids="" n=0
for s in src/*.c; do
	case "$s" in src/paratune.c) continue ;; esac
	o="$out/obj/$(basename "$s" .c).o"
	objs="$objs $o"
	[ "$o" -nt "$s" ] && [ "$o" -nt "$newest_h" ] && continue
	$cc $flags -c "$s" -o "$o" &
	pids="$pids $!" n=$((n + 1))
	if [ "$n" -ge "$jobs" ]; then
		for p in $pids; do wait "$p"; done
		pids="" n=0
	fi
done
for p in $pids; do wait "$p"; done
rm -f "$out/libparatune-fuzz.a"
# shellcheck disable=SC2086
ar rcs "$out/libparatune-fuzz.a" $objs

# fuzz TARGET: build it and run it for $secs; its last line in
# $out/fuzz-TARGET.result, 0 or 1 in $out/fuzz-TARGET.status.
fuzz() {
	t=$1
	scratch="$out/corpus-$t"
	seeds="tests/fuzz/corpus/$t"
	rc=0
	$cc $flags -fsanitize=fuzzer "tests/fuzz/fuzz-$t.c" \
		-Wl,--exclude-libs,ALL "$out/libparatune-fuzz.a" $libs \
		-o "$out/fuzz-$t" || rc=1
	mkdir -p "$scratch"
	case "$t" in
	template) seeds="$seeds templates" ;;
	config) seeds="$seeds etc/campaigns" ;;
	logparse) [ -d ../shared/data/real-logs ] &&
		seeds="$seeds ../shared/data/real-logs" ;;
	esac
	# shellcheck disable=SC2086
	[ "$rc" = 0 ] && { "$out/fuzz-$t" -max_total_time="$secs" \
		-print_final_stats=1 -close_fd_mask=2 -artifact_prefix="$out/" \
		-max_len=65536 -rss_limit_mb=2048 "$scratch" $seeds \
		>"$out/fuzz-$t.log" 2>&1 || rc=1; }
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$out/fuzz-$t.log" 2>/dev/null || true)
	if [ "$rc" = 0 ]; then
		echo "fuzz-$t: ${runs:-?} executions in ${secs} s, no crash"
	else
		echo "fuzz-$t: FAILED after ${runs:-?} executions; see $out/fuzz-$t.log"
	fi >"$out/fuzz-$t.result"
	echo "$rc" >"$out/fuzz-$t.status"
}

# The targets, $jobs at a time: each fuzzes on a core of its own for
# $secs, so two cores run five targets in three rounds, not five.
n=0
for t in $targets; do
	rm -f "$out/fuzz-$t.status"
	fuzz "$t" &
	n=$((n + 1))
	if [ "$n" -ge "$jobs" ]; then wait; n=0; fi
done
wait
status=0
for t in $targets; do
	cat "$out/fuzz-$t.result" 2>/dev/null ||
		echo "fuzz-$t: FAILED: no result"
	if [ "$(cat "$out/fuzz-$t.status" 2>/dev/null)" != 0 ]; then
		status=1
		tail -30 "$out/fuzz-$t.log" 2>/dev/null || true
	fi
done
exit "$status"
