#!/usr/bin/env bash
# Smoke test of the local Slurm testbed (scripts/testbed): proves that the
# cluster paratune's integration tests rely on really behaves like a GPU
# cluster: 4 idle nodes with 8 GPUs each, a 2-node x 8-rank srun launch,
# finished jobs leaving slurmctld (MinJobAge) while sacct keeps their final
# state, and cgroup memory limits ending a job OUT_OF_MEMORY.
#
# Starts the testbed when it is not up (needs root) and stops it again at the
# end in that case, unless PARATUNE_TESTBED_KEEP=1.  About 15-25 s.
# Last line: "N passed, N failed"; exit status 1 on any failure.

set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TESTBED=$ROOT/scripts/testbed
PASS=0
FAIL=0
STARTED=0
WORK=""

ok()   { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }

# check DESC CMD...: one test case, passed when CMD succeeds.
check() {
    local desc=$1; shift
    if "$@"; then ok "$desc"; else fail "$desc"; fi
}

finish() {
    [[ -n $WORK ]] && rm -rf "$WORK"
    if ((STARTED)) && [[ ${PARATUNE_TESTBED_KEEP:-0} != 1 ]]; then
        "$TESTBED" down >/dev/null 2>&1 || true
    fi
    echo "$PASS passed, $FAIL failed"
    exit $((FAIL == 0 && PASS > 0 ? 0 : 1))
}

# Bring the testbed up when it is not; remember to stop it afterwards.
ensure_up() {
    if "$TESTBED" status >/dev/null 2>&1; then return; fi
    STARTED=1
    "$TESTBED" up
}

# Final state from slurmdbd, e.g. "COMPLETED 0:0"; waits for the record,
# since the controller reports the end to slurmdbd asynchronously.
acct_state() {
    local id=$1 i out
    for ((i = 0; i < 50; i++)); do
        out=$(sacct -j "$id" -X -n -P -o State,ExitCode 2>/dev/null | head -1)
        case ${out%%|*} in ""|PENDING|RUNNING|REQUEUED|COMPLETING) ;;
            *) echo "${out/|/ }"; return ;;
        esac
        sleep 0.2
    done
    echo "${out/|/ }"
}

# True once slurmctld no longer knows the job (MinJobAge=2 plus the purge
# cycle: a few seconds after it ends).
job_forgotten() {
    local id=$1 i out
    for ((i = 0; i < 100; i++)); do
        # not a pipe: under pipefail scontrol's own failure would win
        out=$(scontrol show job "$id" 2>&1) || true
        [[ $out == *"Invalid job id specified"* ]] && return 0
        sleep 0.3
    done
    return 1
}

# Within 30 s: a job another suite ran beside this one (the time-limit
# test) can leave a node completing for a few seconds after it ends,
# and a look at one instant read that as a node out of service.
four_gpu_nodes() {
    local i
    for ((i = 0; i < 30; i++)); do
        [[ $(sinfo -h -N -o "%N %T %G" | sort -u |
             grep -Ec " (idle|mixed|allocated) gpu:8$") -eq 4 ]] && return 0
        sleep 1
    done
    sinfo -h -N -o "%N %T %G" >&2
    return 1
}

# 16 srun ranks, 8 on each of 2 nodes, each bound to one GPU.
ranks_ok() {
    local out=$1
    [[ $(grep -c '^rank ' "$out") -eq 16 ]] &&
        [[ $(grep '^rank ' "$out" | awk '{print $3}' | sort | uniq -c |
             awk '$1 == 8' | wc -l) -eq 2 ]] &&
        [[ $(grep '^rank ' "$out" | awk '{print $4}' | sort -u | wc -l) -eq 8 ]]
}

# The 600 MB allocation goes through python3 when present, else perl
# (perl-base is always there on Debian).
hog_cmd() {
    if command -v python3 >/dev/null; then
        echo "python3 -c 'b = bytearray(600*1024*1024); import time; time.sleep(3)'"
    else
        echo "perl -e '\$x = \"a\" x (600*1024*1024); sleep 3'"
    fi
}

main() {
    local gpu oom
    trap finish EXIT
    if ! ensure_up; then fail "scripts/testbed up"; exit 1; fi
    eval "$("$TESTBED" env)"
    WORK=$(mktemp -d /tmp/paratune-smoke.XXXXXX)
    cd "$WORK"

    check "sinfo: 4 nodes in service with gpu:8" four_gpu_nodes

    # shellcheck disable=SC2016  # expanded by the job's shell, not here
    gpu=$(sbatch --parsable --nodes=2 --gpus-per-node=8 --ntasks-per-node=8 \
        -o gpu.out --wrap 'hostname; srun --gpus-per-task=1 bash -c \
        "echo rank \$SLURM_PROCID \$SLURMD_NODENAME \$CUDA_VISIBLE_DEVICES"; sleep 1') || true
    oom=$(sbatch --parsable --mem=100M -o oom.out --wrap "$(hog_cmd)") || true
    check "sbatch accepted both jobs ($gpu, $oom)" test -n "$gpu" -a -n "$oom"

    check "gpu job $gpu left slurmctld (MinJobAge)" job_forgotten "$gpu"
    check "gpu job $gpu is COMPLETED 0:0 in sacct" \
        test "$(acct_state "$gpu")" = "COMPLETED 0:0"
    check "gpu job ran 2 nodes x 8 ranks, one GPU each" ranks_ok gpu.out

    check "oom job $oom left slurmctld" job_forgotten "$oom"
    check "oom job $oom is OUT_OF_MEMORY in sacct" \
        test "$(acct_state "$oom" | cut -d' ' -f1)" = OUT_OF_MEMORY
    check "oom job output names the oom-kill" grep -q 'oom-kill' oom.out
}

main "$@"
