#!/bin/sh
# site.sh - what a real site needs of paratune, without Slurm: a missing
# Slurm configuration is reported (exit 75, what to set) before libslurm
# could end the process; the job's environment (run.export, DIR/submit.env)
# and the site directives a cluster needs are checked where they are
# rendered.  Last line: "N passed, N failed".

PT=${PARATUNE_BIN:-./paratune}
SRC=${PARATUNE_SRCDIR:-.}
: "${PARATUNE_TEMPLATES:=$SRC/templates}"
export PARATUNE_TEMPLATES
export PARATUNE_SITE_CONF=/dev/null
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
CAMPAIGN=$SRC/etc/campaigns/demo.conf

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }
# expect DESC STATUS CMD...: CMD exits with STATUS.
expect() {
	d=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" = "$want" ]; then ok "$d"; else
		ko "$d (exit $got, wanted $want)"; cat "$T/err"; fi
}
# has DESC PATTERN FILE: FILE matches PATTERN.
has() {
	if grep -q -- "$2" "$3"; then ok "$1"; else ko "$1"; cat "$3"; fi
}
hasnt() {
	if grep -q -- "$2" "$3"; then ko "$1"; cat "$3"; else ok "$1"; fi
}

# --- no Slurm configuration: exit 75 and what to set ---------------------
"$PT" -q plan "$CAMPAIGN" -o "$T/c" >/dev/null 2>&1
expect "submit with SLURM_CONF naming no file exits 75" 75 \
	env SLURM_CONF=/nonexistent "$PT" submit "$T/c"
has "and names the file" "SLURM_CONF '/nonexistent'" "$T/err"
has "and says what to set" "set SLURM_CONF" "$T/err"
hasnt "libslurm's fatal() never reaches the user" "fatal" "$T/err"
expect "resume (cron) too" 75 env SLURM_CONF=/nonexistent "$PT" resume "$T/c"
if [ ! -e /etc/slurm/slurm.conf ] && [ ! -e /run/slurm/conf/slurm.conf ]
then
	expect "with no SLURM_CONF and no file, submit exits 75" 75 \
		env -u SLURM_CONF "$PT" submit "$T/c"
	has "naming the default file and the configless record" \
		"_slurmctld._tcp SRV" "$T/err"
	hasnt "and libslurm did not end the process" "fatal" "$T/err"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
