#!/bin/sh
# tests/cli/manpages.sh - the section 5 man pages are complete and clean,
# and paratune(1)'s synopses name each command's short options.
#
# Every key `paratune config --format json` prints must be documented in
# paratune.conf(5), every template variable listed in src/jobscript.h in
# paratune-templates(5), each as a bold name (\fBkey\fR in the roff
# source, so a mention in passing does not count), and groff and mandoc
# must find nothing to warn about in either page.  Prints one line per
# check and "N passed, N failed" last; exits non-zero when one failed.

BIN=${PARATUNE_BIN:-./paratune}
SRCDIR=${PARATUNE_SRCDIR:-.}
CONF_PAGE=$SRCDIR/man/paratune.conf.5
TMPL_PAGE=$SRCDIR/man/paratune-templates.5
TMP=$(mktemp -d "${TMPDIR:-/tmp}/manpages-test.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0
failed=0

pass() {
	passed=$((passed + 1))
	echo "ok $((passed + failed)) - $1"
}

fail() {
	failed=$((failed + 1))
	echo "not ok $((passed + failed)) - $1"
}

# Whether page holds name as a bold word: \fBname\fR.
documented() {
	grep -F -e "\\fB$2\\fR" "$1" >/dev/null
}

# check_documented PAGE WHAT LISTFILE: one check per name in LISTFILE.
check_documented() {
	n=0
	while read -r name; do
		n=$((n + 1))
		if documented "$1" "$name"; then
			pass "$2 '$name' in $(basename "$1")"
		else
			fail "$2 '$name' missing from $(basename "$1")"
		fi
	done <"$3"
	# An empty list would pass everything: the extraction broke.
	if [ "$n" -gt 20 ]; then
		pass "found $n names of $2"
	else
		fail "found only $n names of $2"
	fi
}

# Keys of the merged configuration: the members of "values", one JSON
# object each, written by the JSON writer one "KEY": { per line.
PARATUNE_SITE_CONF=/dev/null HOME=$TMP "$BIN" config \
	"$SRCDIR/etc/campaigns/llama3-8b-h100.conf" --format json \
	>"$TMP/config.json" 2>"$TMP/config.err" ||
	fail "paratune config --format json failed: $(cat "$TMP/config.err")"
sed -n 's/^ *"\([A-Za-z0-9_.]*\)": {$/\1/p' "$TMP/config.json" |
	grep -v '^values$' >"$TMP/keys"
check_documented "$CONF_PAGE" "key" "$TMP/keys"

# ... and the other way: every key that heads an entry of paratune.conf(5)
# (a bold dotted name before its parenthesis) and every base.* key it
# lists is one paratune knows, so that a key renamed or removed in the
# registry does not stay documented.  --set of a known key fails for its
# value, its layer or its group, never as an unknown key.  The two
# calibration members that plan writes are no keys of the registry.
sed -n 's/\\-/-/g; s/^\\fB\([a-z][a-z0-9_.]*\)\\fR.*(.*/\1/p
	s/^\\fB\(base\.[a-z0-9_]*\)\\fR.*/\1/p' "$CONF_PAGE" |
	grep -v -x -e calibration.frozen_from -e calibration.frozen_own |
	sort -u >"$TMP/page-keys"
n=0
while read -r key; do
	n=$((n + 1))
	PARATUNE_SITE_CONF=/dev/null HOME=$TMP "$BIN" config \
		"$SRCDIR/etc/campaigns/llama3-8b-h100.conf" --set "$key=0" \
		>/dev/null 2>"$TMP/set.err"
	if grep -q "unknown key '$key'" "$TMP/set.err"; then
		fail "paratune.conf(5) documents '$key', which paratune does not know"
	fi
done <"$TMP/page-keys"
[ "$n" -gt 150 ] && pass "paratune knows the $n keys paratune.conf(5) documents" ||
	fail "found only $n keys documented in paratune.conf(5)"

# Template variables: jobscript.h's list runs from " * Candidate" to the
# end of the comment; names start three spaces in and end at the first
# run of two blanks (the description), continuation lines further in.
awk '/^ \* Candidate$/ { on = 1; next }
     on && /^ \*\// { exit }
     on && /^ \*   [a-z]/ {
	sub(/^ \*   /, ""); sub(/  .*/, "")
	n = split($0, w, " ")
	for (i = 1; i <= n; i++) print w[i]
     }' "$SRCDIR/src/jobscript.h" | sort -u >"$TMP/vars"
check_documented "$TMPL_PAGE" "template variable" "$TMP/vars"

# paratune(1)'s synopsis of each command names every short option its
# usage line has ("-f|--force"): plan's -f, submit's -n and -y and
# status's -w were missing.
CMDS=$("$BIN" --help | awk '/^commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
n=0
for c in $CMDS; do
	syn=$(grep "^\.SS \"$c[ \"]" "$SRCDIR/man/paratune.1" | sed 's/\\-/-/g')
	for s in $("$BIN" "$c" --help | head -1 |
		grep -o -e '-[a-zA-Z]|--[a-z-]*'); do
		n=$((n + 1))
		case $syn in
		*"$s"*) pass "paratune(1) synopsis of $c names $s" ;;
		*) fail "paratune(1) synopsis of $c lacks $s" ;;
		esac
	done
done
[ "$n" -gt 5 ] && pass "found $n short options" ||
	fail "found only $n short options"

# ... and the same long options as the command's --help, both ways: an
# option the code takes that the page leaves out, or one the page
# names that the command refuses (64), is a drift.
n=0
for c in $CMDS; do
	grep "^\.SS \"$c[ \"]" "$SRCDIR/man/paratune.1" | sed 's/\\-/-/g' |
		grep -o -e '--[a-z][a-z-]*' | sort -u >"$TMP/man-opts"
	"$BIN" "$c" --help | sed '/^global options/,$d' |
		grep -o -e '--[a-z][a-z-]*' | grep -v -x -e '--help' |
		sort -u >"$TMP/help-opts"
	n=$((n + $(wc -l <"$TMP/help-opts")))
	for o in $(comm -23 "$TMP/help-opts" "$TMP/man-opts"); do
		fail "paratune(1) synopsis of $c lacks $o"
	done
	for o in $(comm -13 "$TMP/help-opts" "$TMP/man-opts"); do
		fail "paratune(1) synopsis of $c names $o, which --help does not"
	done
	cmp -s "$TMP/help-opts" "$TMP/man-opts" &&
		pass "paratune(1) synopsis of $c has the options of --help"
done
[ "$n" -gt 40 ] && pass "found $n long options" ||
	fail "found only $n long options"

# lint TOOL PAGE COMMAND...: the command must print nothing.
lint() {
	tool=$1
	page=$2
	shift 2
	if ! command -v "$tool" >/dev/null 2>&1; then
		pass "$tool not installed: $(basename "$page") not linted"
		return
	fi
	"$@" "$page" >"$TMP/lint" 2>&1
	if [ -s "$TMP/lint" ]; then
		fail "$tool warns about $(basename "$page"): $(cat "$TMP/lint")"
	else
		pass "$tool is silent on $(basename "$page")"
	fi
}

for page in "$CONF_PAGE" "$TMPL_PAGE"; do
	lint groff "$page" groff -man -ww -z
	lint mandoc "$page" mandoc -T lint
done

# paratune.conf(5)'s example campaign plans, and the FSDP it searches can
# be valid: it searched fsdp with the distributed optimizer always on,
# which FSDP replaces, so none of its FSDP layouts could run.
awk '/^A campaign:$/ { on = 1; next } on && /^\.nf$/ { print_ = 1; next }
	print_ && /^\.fi$/ { exit } print_ { print }' "$CONF_PAGE" |
	sed 's/\\-/-/g' >"$TMP/example.conf"
if PARATUNE_SITE_CONF= PARATUNE_TEMPLATES=$SRCDIR/templates "$BIN" plan \
    "$TMP/example.conf" -o "$TMP/example" >"$TMP/out" 2>&1 &&
    ! grep -q "no FSDP candidate" "$TMP/out" &&
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "fsdp") c = i }
	NR > 1 && $c == 1 { n++ } END { exit !(n > 0) }' \
	"$TMP/example/candidates.csv"
then pass "paratune.conf(5)'s example campaign plans FSDP candidates"
else fail "paratune.conf(5)'s example campaign plans FSDP candidates"; fi

echo "$passed passed, $failed failed"
test "$failed" -eq 0
