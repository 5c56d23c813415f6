#!/bin/sh
# run.sh - build the libFuzzer targets with clang and run each for
# FUZZ_SECONDS (default 60), printing how many inputs each survived.
#
#   tests/fuzz/run.sh [TARGET...]     targets: logparse template config state
#                                     measured
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
targets=${*:-logparse template config state measured}

command -v "$cc" >/dev/null || {
	echo "fuzz: $cc not found (apt-get install clang libclang-rt-14-dev)" >&2
	exit 69
}
[ -f autoconfig.h ] || { echo "fuzz: run ./configure first" >&2; exit 69; }
mkdir -p "$out/obj"
flags="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I$top -I$top/src $(pkg-config --cflags libconfig libpcre2-8) -DPARATUNE_SYSCONFDIR=\"/nonexistent\" -DPARATUNE_DATADIR=\"$top\" -DPARATUNE_BINDIR=\"$top\""
libs="$(pkg-config --libs libconfig libpcre2-8) -lslurm -lm"

# The library, once, as an archive: like the real build, its symbols are
# kept out of the dynamic table (libconfig has its own strbuf_*).
objs=""
for s in src/*.c; do
	case "$s" in src/paratune.c) continue ;; esac
	o="$out/obj/$(basename "$s" .c).o"
	[ "$o" -nt "$s" ] || $cc $flags -c "$s" -o "$o"
	objs="$objs $o"
done
rm -f "$out/libparatune-fuzz.a"
ar rcs "$out/libparatune-fuzz.a" $objs

status=0
for t in $targets; do
	$cc $flags -fsanitize=fuzzer "tests/fuzz/fuzz-$t.c" \
		-Wl,--exclude-libs,ALL "$out/libparatune-fuzz.a" $libs \
		-o "$out/fuzz-$t"
	scratch="$out/corpus-$t"
	mkdir -p "$scratch"
	seeds="tests/fuzz/corpus/$t"
	case "$t" in
	template) seeds="$seeds templates" ;;
	config) seeds="$seeds etc/campaigns" ;;
	logparse) [ -d ../shared/data/real-logs ] &&
		seeds="$seeds ../shared/data/real-logs" ;;
	esac
	# shellcheck disable=SC2086
	"$out/fuzz-$t" -max_total_time="$secs" -print_final_stats=1 \
		-close_fd_mask=2 -artifact_prefix="$out/" \
		-max_len=65536 -rss_limit_mb=2048 "$scratch" $seeds \
		>"$out/fuzz-$t.log" 2>&1 || status=1
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz-$t.log")
	if [ "$status" = 0 ]; then
		echo "fuzz-$t: ${runs:-?} executions in ${secs} s, no crash"
	else
		echo "fuzz-$t: FAILED after ${runs:-?} executions; see $out/fuzz-$t.log"
		tail -30 "$out/fuzz-$t.log"
		break
	fi
done
exit "$status"
