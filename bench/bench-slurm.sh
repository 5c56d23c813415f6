#!/usr/bin/env bash
# bench-slurm.sh: paratune's Slurm adapter (src/slurm*.c) against Slurm's own
# commands, in the same run on the same cluster:
#   - submitting N held jobs through slurm_submit, against a loop of N
#     `sbatch --hold`;
#   - one poll over the 2N held jobs through slurm_poll (median of REPS, each
#     from a fresh connection as a cron run makes it; and the polls that
#     follow on one connection, answered from the cache when nothing
#     changed), against `squeue -h -j <the same ids>`;
#   - the controller's RPCs per poll, from sdiag's counters before and after.
# Prints the ratios, then cancels every job it submitted.
#
#   bench/bench-slurm.sh            (root; starts the testbed when it is down
#                                    and stops it again afterwards)
# Environment: PARATUNE_BENCH_JOBS (N, default 500), PARATUNE_BENCH_REPS
# (default 7), PARATUNE_TESTBED_KEEP=1 to leave a testbed it started running.

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TESTBED=$ROOT/scripts/testbed
BENCH=$ROOT/bench/bench-slurm
N=${PARATUNE_BENCH_JOBS:-500}
REPS=${PARATUNE_BENCH_REPS:-7}
STARTED=0
WORK=""
PREFIX="ptbench$$"

say() { echo "$*"; }
die() { echo "bench-slurm: error: $*" >&2; exit 1; }

now() { date +%s.%N; }
# secs T0 T1: T1 - T0 in seconds.
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
# median of the numbers on stdin
median() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR % 2) print v[(NR + 1) / 2];
        else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# ratio A B: A / B with 2 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
# ms S: seconds as milliseconds
ms() { awk -v s="$1" 'BEGIN { printf "%.2f", s * 1000 }'; }
# result KEY FILE: the value of KEY=... on the "result" line of FILE
result() { sed -n "s/^result .*\b$1=\([^ ]*\).*/\1/p" "$2"; }

cleanup() {
    local ids
    if [[ -n $WORK && -d $WORK ]]; then
        ids=$(cat "$WORK"/*.ids 2>/dev/null) || true
        if [[ -n $ids ]]; then
            # shellcheck disable=SC2086  # one argument per job id
            scancel $ids 2>/dev/null || true
        fi
        rm -rf "$WORK"
    fi
    if ((STARTED)) && [[ ${PARATUNE_TESTBED_KEEP:-0} != 1 ]]; then
        "$TESTBED" down >/dev/null 2>&1 || true
    fi
}

# sdiag's per-message-type counters: "NAME COUNT TOTAL_TIME_US" lines.
rpc_snapshot() {
    sdiag | awk '
        /Remote Procedure Call statistics by message type/ { f = 1; next }
        /Remote Procedure Call statistics by user/ { f = 0 }
        f && /count:/ {
            c = t = 0
            for (i = 2; i <= NF; i++) {
                if ($i ~ /^count:/) c = substr($i, 7)
                if ($i ~ /^total_time:/) t = substr($i, 12)
            }
            print $1, c, t
        }' | sort
}

# rpc_delta BEFORE AFTER CALLS: RPCs per call by type (sdiag's own
# REQUEST_STATS_INFO left out), and the controller's time per call.
rpc_delta() {
    join -a 2 -e 0 -o 0,1.2,1.3,2.2,2.3 "$1" "$2" | awk -v calls="$3" '
        $1 != "REQUEST_STATS_INFO" && $4 - $2 > 0 {
            n = $4 - $2; us = $5 - $3; tot += n
            printf "    %-28s %6.2f a call, controller %8.0f us a call\n",
                $1, n / calls, us / calls
        }
        END { printf "    %-28s %6.2f a call\n", "all RPCs", tot / calls }'
}

main() {
    local max_jobs t0 t1 sb_s lib_s ids i sq_med
    trap cleanup EXIT
    [[ $(id -u) -eq 0 ]] || die "run as root (the testbed needs it)"
    if ! "$TESTBED" status >/dev/null 2>&1; then
        STARTED=1
        "$TESTBED" up
    fi
    eval "$("$TESTBED" env)"
    WORK=$(mktemp -d /tmp/paratune-bench-slurm.XXXXXX)
    if ! make -C "$ROOT" -s bench/bench-slurm >"$WORK/make.log" 2>&1; then
        [[ -x $BENCH ]] || { cat "$WORK/make.log" >&2; die "cannot build $BENCH"; }
        echo "bench-slurm: warning: make failed; using the existing $BENCH" >&2
    fi

    max_jobs=$(scontrol show config | awk '$1 == "MaxJobCount" { print $3 }')
    ((max_jobs > 2 * N + 100)) ||
        die "MaxJobCount=$max_jobs is too low for $((2 * N)) held jobs"
    say "# Slurm $(sinfo -V | awk '{print $2}'), MaxJobCount=$max_jobs," \
        "$N + $N held jobs, $(nproc) CPUs"

    # ---- submission
    "$BENCH" submit "$N" "$PREFIX-lib" "$WORK/lib.ids" | tee "$WORK/submit.out"
    lib_s=$(result submit_s "$WORK/submit.out")
    t0=$(now)
    for ((i = 0; i < N; i++)); do
        sbatch --hold --parsable -J "$PREFIX-sb-$i" -t 1 -o /dev/null \
            --wrap=true >>"$WORK/sb.ids"
    done
    t1=$(now)
    sb_s=$(secs "$t0" "$t1")
    say "sbatch --hold loop: $(wc -l <"$WORK/sb.ids") held jobs in" \
        "$(printf '%.3f' "$sb_s") s ($(ms "$(awk -v s="$sb_s" -v n="$N" \
        'BEGIN { print s / n }')") ms a job)"
    cat "$WORK/lib.ids" "$WORK/sb.ids" >"$WORK/all.list"
    ids=$(paste -sd, - <"$WORK/all.list")

    # ---- polling
    # The controller answers "no change" only when its jobs have been still
    # for a whole second since the last answer (last_update - 1 >=
    # last_job_update, src/slurmctld/proc_req.c): let the submissions settle.
    sleep 2
    rpc_snapshot >"$WORK/rpc0"
    "$BENCH" poll "$REPS" "$WORK/all.list" | tee "$WORK/cold.out"
    rpc_snapshot >"$WORK/rpc1"
    "$BENCH" cached "$REPS" "$WORK/all.list" | tee "$WORK/cached.out"
    rpc_snapshot >"$WORK/rpc2"
    for ((i = 0; i < REPS; i++)); do
        t0=$(now)
        squeue -h -j "$ids" >"$WORK/squeue.out"
        t1=$(now)
        secs "$t0" "$t1" >>"$WORK/squeue.times"
        echo >>"$WORK/squeue.times"
    done
    rpc_snapshot >"$WORK/rpc3"
    sq_med=$(grep -v '^$' "$WORK/squeue.times" | median)
    say "squeue -h -j <$((2 * N)) ids>: $(wc -l <"$WORK/squeue.out") lines," \
        "median $(ms "$sq_med") ms of $REPS"

    say "controller RPCs, slurm_poll cold ($REPS polls):"
    rpc_delta "$WORK/rpc0" "$WORK/rpc1" "$REPS"
    say "controller RPCs, slurm_poll cached ($((REPS + 1)) polls, the" \
        "first one full):"
    rpc_delta "$WORK/rpc1" "$WORK/rpc2" "$((REPS + 1))"
    say "controller RPCs, squeue ($REPS runs):"
    rpc_delta "$WORK/rpc2" "$WORK/rpc3" "$REPS"

    # ---- ratios
    say "# ratios (above 1: paratune's adapter is faster)"
    say "submit $N held jobs: sbatch loop / slurm_submit =" \
        "$(ratio "$sb_s" "$lib_s")"
    say "poll $((2 * N)) jobs: squeue / slurm_poll cold =" \
        "$(ratio "$sq_med" "$(result poll_s "$WORK/cold.out")")"
    say "poll $((2 * N)) jobs: squeue / slurm_poll cached =" \
        "$(ratio "$sq_med" "$(result poll_s "$WORK/cached.out")")"

    # ---- cleanup
    "$BENCH" cancel "$WORK/all.list"
    : >"$WORK/lib.ids"
    : >"$WORK/sb.ids"
}

main "$@"
