#!/usr/bin/env bash
# Integration test of paratune's Slurm adapter (src/slurm*.c): builds
# tests/integration/slurm-api and runs it against the local testbed
# (scripts/testbed), starting it when it is not up (needs root) and stopping
# it again at the end in that case, unless PARATUNE_TESTBED_KEEP=1.
#
# Then, on a testbed this script started (or with PARATUNE_TESTBED_DISRUPT=1
# on a running one), it stops slurmdbd for a few seconds and checks that
# accounting look-ups say so; `scripts/testbed up` starts it again.  Other
# users of a shared testbed would see that outage, hence the opt-in.
#
# About 20-60 s.  Last line: "N passed, N failed"; exit status 1 on failure.

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TESTBED=$ROOT/scripts/testbed
PROG=$ROOT/tests/integration/slurm-api
STARTED=0
PASS=0
FAIL=0
OUT=""

finish() {
    [[ -n $OUT ]] && rm -f "$OUT"
    if ((STARTED)) && [[ ${PARATUNE_TESTBED_KEEP:-0} != 1 ]]; then
        "$TESTBED" down >/dev/null 2>&1 || true
    fi
    echo "$PASS passed, $FAIL failed"
    exit $((FAIL == 0 && PASS > 0 ? 0 : 1))
}

# run ARGS...: run the test program, adding its counts to ours.
run() {
    local last
    # The program's own count is shown as a part, so that the log's only
    # "N passed, N failed" line is the total.
    "$PROG" "$@" | tee "$OUT" |
        sed -E 's/^([0-9]+ passed, [0-9]+ failed)$/(this part: \1)/' || true
    last=$(tail -n 1 "$OUT")
    if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        PASS=$((PASS + BASH_REMATCH[1]))
        FAIL=$((FAIL + BASH_REMATCH[2]))
    else
        echo "FAIL - $PROG $* ended without its summary"
        FAIL=$((FAIL + 1))
    fi
}

# Stop the testbed's slurmdbd (its own pid file), run the checks, restart.
slurmdbd_down() {
    local pidfile=$PARATUNE_TESTBED_DIR/pids/slurmdbd.pid pid i
    pid=$(cat "$pidfile" 2>/dev/null) || pid=""
    if [[ -z $pid ]] || ! kill "$pid" 2>/dev/null; then
        echo "FAIL - cannot stop slurmdbd (pid file $pidfile)"
        FAIL=$((FAIL + 1))
        return
    fi
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    run --slurmdbd-down
    "$TESTBED" up >/dev/null 2>&1 || {
        echo "FAIL - scripts/testbed up did not restart slurmdbd"
        FAIL=$((FAIL + 1))
    }
}

main() {
    local log
    trap finish EXIT
    OUT=$(mktemp /tmp/paratune-slurm-api.XXXXXX)
    log=$OUT
    if ! make -C "$ROOT" -s tests/integration/slurm-api >"$log" 2>&1; then
        cat "$log" >&2
        echo "FAIL - cannot build $PROG"
        FAIL=$((FAIL + 1))
        exit 1
    fi
    if ! "$TESTBED" status >/dev/null 2>&1; then
        STARTED=1
        "$TESTBED" up
    fi
    eval "$("$TESTBED" env)"
    run
    if ((STARTED)) || [[ ${PARATUNE_TESTBED_DISRUPT:-0} == 1 ]]; then
        slurmdbd_down
    else
        echo "# skipped: slurmdbd outage (shared testbed; set" \
            "PARATUNE_TESTBED_DISRUPT=1 to run it)"
    fi
}

main "$@"
