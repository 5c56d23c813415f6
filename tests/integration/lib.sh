# lib.sh - what the integration suites share, sourced after their own
# "set -uo pipefail": where the tree, the build and the testbed are, the
# environment paratune runs in, the pass and fail counts and the helpers
# that keep them.  WORK is the suite's own scratch directory, named after
# SUITE (set it before sourcing).
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${PARATUNE_BUILDDIR:-$ROOT}
PT=$BUILD/paratune
DATA=$ROOT/tests/integration/data
TESTBED=$ROOT/scripts/testbed
export PARATUNE_TEMPLATES=$ROOT/templates
export PARATUNE_SIMTRAIN=$BUILD/paratune-simtrain
export PARATUNE_SITE_CONF=/dev/null
PASS=0
FAIL=0
WORK=$(mktemp -d "/tmp/paratune-${SUITE:-itest}.XXXXXX")

ok()   { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }
