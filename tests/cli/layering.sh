#!/bin/sh
# layering.sh - who may include what: the command layer (cmd*.c, cmd.h,
# paratune.c) sits on the library, never the other way round, and
# PCRE2's types stay behind the log reader (logparse*.c, logparse-int.h)
# and failure.c.  Reads the sources; builds nothing.
# Last line: "N passed, N failed".

SRC=${PARATUNE_SRCDIR:-.}
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }

cd "$SRC/src" || { echo "no $SRC/src"; exit 99; }

# includers PATTERN: the files of src/ that include a header matching
# PATTERN, one per line
includers() {
	grep -l "^#include [<\"]$1[>\"]" -- *.c *.h 2>/dev/null | sort
}

# The library must not include cmd.h.
bad=""
for f in $(includers 'cmd\.h'); do
	case $f in
	cmd.c|cmd.h|cmd-*.c|cmd-*.h|paratune.c) ;;
	*) bad="$bad $f" ;;
	esac
done
[ -z "$bad" ] && ok "only the command layer includes cmd.h" ||
	ko "library files include cmd.h:$bad"
bad=""
for f in $(includers 'cmd-results\.h'); do
	case $f in
	cmd-*.c|cmd-*.h) ;;
	*) bad="$bad $f" ;;
	esac
done
[ -z "$bad" ] && ok "only commands include cmd-results.h" ||
	ko "library files include cmd-results.h:$bad"
grep -q '^results_run\|^results_write_files' results*.c &&
	ko "the library writes DIR/results/ itself" ||
	ok "writing DIR/results/ is the command's"

# PCRE2: included by the log reader and failure.c alone, and no header
# but the reader's private one names its types.
bad=""
for f in $(includers 'pcre2\.h'); do
	case $f in
	failure.c|logparse.c|logparse-*.c|logparse-int.h) ;;
	*) bad="$bad $f" ;;
	esac
done
[ -z "$bad" ] && ok "only the log reader and failure.c include pcre2.h" ||
	ko "pcre2.h included by:$bad"
bad=$(grep -l 'pcre2_\|PCRE2_' -- *.h | grep -v '^logparse-int\.h$' |
	tr '\n' ' ')
[ -z "$bad" ] && ok "no public header names a PCRE2 type" ||
	ko "PCRE2 types in: $bad"

# Slurm: only its adapter includes its headers; the store and the
# readers (status, list, results, report) include neither the adapter
# nor the runner that drives it.
bad=""
for f in $(includers 'slurm/[a-z_]*\.h'); do
	case $f in
	slurm.c|slurm-*.c|slurm-int.h) ;;
	*) bad="$bad $f" ;;
	esac
done
[ -z "$bad" ] && ok "only the Slurm adapter includes Slurm's headers" ||
	ko "Slurm's headers included by:$bad"
bad=""
for f in $( (includers 'runner\.h'; includers 'slurm\.h') | sort -u); do
	case $f in
	store*.c|store*.h|results*.c|results.h|report*.c|report.h|\
	cmd-status.c|cmd-list.c|cmd-results.c|cmd-estimate.c) bad="$bad $f" ;;
	esac
done
[ -z "$bad" ] && ok "the store and its readers include neither runner.h nor slurm.h" ||
	ko "runner.h or slurm.h included by:$bad"
# Journal events are written by the store alone.
bad=$(grep -l 'journal_append' -- *.c | grep -v '^store-' | tr '\n' ' ')
[ -z "$bad" ] && ok "only the store appends to the journal" ||
	ko "journal_append outside the store: $bad"
# The configuration's type is not the campaign directory's.
bad=$(grep -l 'struct campaign\b' -- *.c *.h | tr '\n' ' ')
[ -z "$bad" ] && ok "'campaign' names the directory only" ||
	ko "struct campaign still in: $bad"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
