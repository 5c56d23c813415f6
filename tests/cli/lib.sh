# lib.sh - what the command-line suites share, sourced by each:
#   . "$(dirname "$0")/lib.sh"
# The build tree's paratune (PARATUNE_BIN) and source tree
# (PARATUNE_SRCDIR), the tree's templates, no site or user file, a scratch
# directory $T removed at exit, and the checks that print "ok"/"FAIL"
# lines; a suite ends with
#   echo "$pass passed, $fail failed"; [ "$fail" = 0 ] && [ "$pass" -gt 0 ]

PT=${PARATUNE_BIN:-./paratune}
SRC=${PARATUNE_SRCDIR:-.}
: "${PARATUNE_TEMPLATES:=$SRC/templates}"
export PARATUNE_TEMPLATES
export PARATUNE_SITE_CONF=/dev/null
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# Nor the user's own layer: a developer's ~/.config/paratune/config
# changed what the suites planned.  A suite that tests the layer sets
# its own.
export XDG_CONFIG_HOME="$T/no-user-config"
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }
# check DESC CMD...: CMD succeeds.
check() { d=$1; shift; if "$@"; then ok "$d"; else ko "$d"; fi; }
# expect DESC STATUS CMD...: CMD exits with STATUS (its output in
# $T/out and $T/err; the first lines of the latter shown on failure).
expect() {
	d=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err" </dev/null
	got=$?
	if [ "$got" = "$want" ]; then ok "$d"; else
		ko "$d (exit $got, wanted $want)"; head -5 "$T/err"; fi
}
# has DESC PATTERN FILE / hasnt DESC PATTERN FILE: FILE matches PATTERN,
# or does not.  A failure shows what FILE held instead (its head), or the
# lines that matched, so that a run elsewhere (CI, distcheck) says why.
has() {
	if grep -q -- "$2" "$3"; then ok "$1"; else
		ko "$1"; head -5 "$3" | cut -c1-300 | sed 's/^/#   /'; fi
}
hasnt() {
	if grep -q -- "$2" "$3"; then
		ko "$1"; grep -m3 -- "$2" "$3" | cut -c1-300 | sed 's/^/#   /'
	else ok "$1"; fi
}
