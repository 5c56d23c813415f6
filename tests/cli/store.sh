#!/bin/sh
# store.sh - the campaign directory's contracts that need no Slurm: plan
# never replaces what it must not, and a damaged or edited directory is
# refused naming the file and line, with nothing recorded.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

# No Slurm, whatever the caller's shell points at: with a testbed's
# SLURM_CONF exported, submit reached it and the checks that count on
# "cannot reach Slurm" failed, after a job had been queued there.
export SLURM_CONF=/nonexistent/slurm.conf

CAMPAIGN=$SRC/etc/campaigns/demo.conf

fresh() {
	rm -rf "$T/c"
	"$PT" -q plan "$CAMPAIGN" -o "$T/c" >/dev/null 2>&1
}
# journal_add EVENT NAME DETAIL: append a line as paratune would.
journal_add() {
	n=$(($(wc -l <"$T/c/journal.log") + 1))
	printf '%d 2026-01-01T00:00:00Z %s %s %s\n' "$n" "$1" "$2" "$3" \
		>>"$T/c/journal.log"
}
first() { awk '$2 ~ /state=/ {print $1; exit}' "$T/c/state"; }
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else ko "$1 (got '$2', wanted '$3')"; fi
}

# --- plan --force never orphans jobs -----------------------------------
fresh
name=$(first)
journal_add queued "$name" -
journal_add intent "$name" "tag=pt-x-1-1 attempt=1 time=1"
journal_add submitted "$name" "job=4711 time=1"
expect "plan --force over a campaign with a job in Slurm is refused" 73 \
	"$PT" plan "$CAMPAIGN" -o "$T/c" --force
has "the refusal names the candidate and its job" "$name (job 4711, pending)" \
	"$T/err"
has "and says how to end it" "paratune cancel" "$T/err"
[ -f "$T/c/journal.log" ] && grep -q "job=4711" "$T/c/journal.log" &&
	ok "the campaign is kept" || ko "the campaign is kept"
journal_add state "$name" "state=completed job=4711 exit=0 source=controller"
expect "once its jobs are final, --force replaces it" 0 \
	"$PT" -q plan "$CAMPAIGN" -o "$T/c" --force
grep -q "job=4711" "$T/c/journal.log" && ko "replaced: a new journal" ||
	ok "replaced: a new journal"

# --- plan --force replaces a campaign or an empty directory, nothing else
rm -rf "$T/mine" "$T/empty" "$T/link"
mkdir "$T/mine" "$T/empty"
echo precious >"$T/mine/notes.txt"
expect "plan --force over a directory of other files is refused" 73 \
	"$PT" plan "$CAMPAIGN" -o "$T/mine" --force
has "the refusal says what --force replaces" "not a campaign directory" \
	"$T/err"
[ "$(cat "$T/mine/notes.txt" 2>/dev/null)" = precious ] &&
	ok "the user's file is kept" || ko "the user's file is kept"
ln -s "$T/mine" "$T/link"
expect "plan --force over a symbolic link is refused" 73 \
	"$PT" plan "$CAMPAIGN" -o "$T/link" --force
[ -L "$T/link" ] && [ -f "$T/mine/notes.txt" ] &&
	ok "the link and what it names are kept" ||
	ko "the link and what it names are kept"
expect "plan --force into an empty directory" 0 \
	"$PT" -q plan "$CAMPAIGN" -o "$T/empty" --force
[ -f "$T/empty/state" ] && ok "the empty directory became the campaign" ||
	ko "the empty directory became the campaign"
[ "$(ls -d "$T"/mine.plan-* "$T"/link.plan-* 2>/dev/null | wc -l)" = 0 ] &&
	ok "refused plans leave no temporary directory" ||
	ko "refused plans leave no temporary directory"

# --- concurrent plans to one directory: one wins, none replaces -----------
rm -rf "$T/race"
i=0
while [ $i -lt 6 ]; do
	( "$PT" -q plan "$CAMPAIGN" -o "$T/race" >/dev/null 2>"$T/race.err.$i";
	  echo $? >"$T/race.rc.$i" ) &
	i=$((i + 1))
done
wait
won=$(cat "$T"/race.rc.* | grep -c '^0$')
[ "$won" = 1 ] && ok "six concurrent plans: exactly one succeeds" ||
	ko "six concurrent plans: exactly one succeeds ($won did)"
[ "$(ls -d "$T"/race.plan-* "$T"/race.old-* 2>/dev/null | wc -l)" = 0 ] &&
	ok "no temporary directory is left" || ko "no temporary directory is left"
"$PT" -q list "$T/race" >/dev/null && ok "the winner's campaign is whole" ||
	ko "the winner's campaign is whole"

# --- candidates.csv -------------------------------------------------------
fresh
head -1 "$T/c/candidates.csv" >"$T/hdr" && cp "$T/hdr" "$T/c/candidates.csv"
expect "a candidates.csv with no candidate is refused" 65 "$PT" list "$T/c"
has "naming the file" "candidates.csv: no candidate" "$T/err"
expect "and results do not take it for an empty campaign" 65 \
	"$PT" results "$T/c"
fresh
head -c -5 "$T/c/candidates.csv" >"$T/cut" && cp "$T/cut" "$T/c/candidates.csv"
expect "a candidates.csv cut mid-line is refused" 65 "$PT" list "$T/c"
has "naming the line" "candidates.csv:[0-9]*: truncated line" "$T/err"
fresh
: >"$T/c/candidates.csv"
expect "an empty candidates.csv is refused" 65 "$PT" list "$T/c"
fresh
{ head -1 "$T/c/candidates.csv"; printf 'x\000'; tail -n +2 "$T/c/candidates.csv"; } \
	>"$T/nul" && cp "$T/nul" "$T/c/candidates.csv"
expect "a NUL byte in candidates.csv is refused" 65 "$PT" list "$T/c"
has "naming the line and what is wrong" \
	"candidates.csv:2: malformed line (a NUL byte" "$T/err"
fresh
echo 'garbage,,,' >>"$T/c/candidates.csv"
expect "status shows the states of a damaged candidates.csv, exit 65" 65 \
	"$PT" status "$T/c"
has "... naming the line" "candidates.csv:[0-9]*: malformed candidate row" \
	"$T/err"
expect "resume says the campaign's data is damaged (65), not the disk" 65 \
	"$PT" resume "$T/c"
# A name edited into a path: results listed and read the logs of
# runs/../../elsewhere, outside the campaign.
for name in ../../elsewhere a/b .hidden; do
	fresh
	awk -F, -v OFS=, -v n="$name" 'NR == 2 { $2 = n } { print }' \
		"$T/c/candidates.csv" >"$T/edited" &&
		cp "$T/edited" "$T/c/candidates.csv"
	expect "a candidate named '$name' in candidates.csv: results refuse it" \
		65 "$PT" results "$T/c"
	has "... naming the line and why" \
		"candidates.csv:2: candidate name '$name' has a '/' or a leading '.'" \
		"$T/err"
done

# --- an edited state or journal --------------------------------------------
fresh
name=$(first)
awk -v n="$name" '{print} $1 == n {print}' "$T/c/state" >"$T/st" &&
	cp "$T/st" "$T/c/state"
expect "a candidate named twice in the state is refused" 65 \
	"$PT" status "$T/c"
has "naming the line" "state:[0-9]*: candidate named twice" "$T/err"
fresh
# Two candidates in Slurm holding one job would each take the other's
# end; pending ones on different jobs are fine.
awk '$2 ~ /state=/ && k < 2 { k++; $2 = "state=pending";
	for (i = 3; i <= NF; i++) if ($i ~ /^job=/) $i = "job=" (4710 + k) }
	{ print }' "$T/c/state" >"$T/st" && cp "$T/st" "$T/c/state"
expect "two pending candidates on their own jobs are read" 0 \
	"$PT" status "$T/c"
sed 's/ job=4712 / job=4711 /' "$T/c/state" >"$T/st" && cp "$T/st" "$T/c/state"
expect "two pending candidates holding one job are refused" 65 \
	"$PT" status "$T/c"
has "naming both and the job" "candidates '.*' and '.*' both hold job 4711" \
	"$T/err"
fresh
name=$(first)
sed "s/^\($name .*\)attempt=0/\1attempt=99999/" "$T/c/state" >"$T/st" &&
	cp "$T/st" "$T/c/state"
expect "an attempt out of range is refused" 65 "$PT" status "$T/c"
fresh
journal_add submitted "$(first)" "job=99999999999 time=1"
expect "a job id out of range in the journal is refused" 65 \
	"$PT" status "$T/c"
has "naming the journal and its line" "journal.log:2: submitted event" \
	"$T/err"
fresh
journal_add frobnicated "$(first)" -
expect "an unknown event is refused" 65 "$PT" status "$T/c"
has "by name" "unknown event 'frobnicated'" "$T/err"
# A directory planted as the lock is damage (65), not a full disk (74).
fresh
rm -f "$T/c/.lock" && mkdir "$T/c/.lock"
expect "a directory planted as .lock is refused as damage" 65 \
	"$PT" resume "$T/c"
has "... naming it" "\.lock': Is a directory (not a lock file: remove it)" \
	"$T/err"
rmdir "$T/c/.lock"
# Words longer than paratune writes were dropped whole before, the
# retry's exclude list with them; now the line is refused.
fresh
journal_add retry "$(first)" "exclude=$(printf 'n%.0s' $(seq 600))"
expect "a journal line with an overlong detail is refused" 65 \
	"$PT" status "$T/c"
has "naming the line and why" \
	"journal.log:2: .*longer than paratune writes" "$T/err"
# A job id without the intent that asked for it (a line added by hand)
# would let cancel and status act on any job.
fresh
journal_add queued "$(first)" -
journal_add submitted "$(first)" "job=4242 time=1"
expect "a submitted event with no intent before it is refused" 65 \
	"$PT" status "$T/c"
has "naming the line, the job and why" \
	"journal.log:3: job 4242 for '$(first)', which was queued, not being submitted" \
	"$T/err"
# A key written twice (paratune writes each once): the last one won.
fresh
journal_add queued "$(first)" -
journal_add intent "$(first)" "tag=pt-x-1-1 attempt=1 time=1"
journal_add submitted "$(first)" "job=4711 job=4712 time=1"
expect "a journal line with a key given twice is refused" 65 \
	"$PT" status "$T/c"
has "naming the line and the key" \
	"journal.log:4: submitted event: 'job' given twice" "$T/err"
# A candidate name is a directory under runs/, never a path.
fresh
sed "s|^$(first) |../../etc |" "$T/c/state" >"$T/st" && cp "$T/st" "$T/c/state"
expect "a candidate name that is a path is refused" 65 "$PT" status "$T/c"
has "saying why" \
	"state:[0-9]*: candidate name '../../etc' has a '/' or a leading '.'" \
	"$T/err"
# A NUL byte before the journal's end is damage, not a torn last write:
# the records after it (here a submission) are not quietly dropped.
fresh
{ printf 'x\000'; cat "$T/c/journal.log"; } >"$T/j" &&
	cp "$T/j" "$T/c/journal.log"
journal_add submitted "$(first)" "job=7 time=1"
expect "a NUL byte in the journal is refused" 65 "$PT" status "$T/c"
has "naming its line" "journal.log:1: malformed journal line" "$T/err"
# A deleted journal is named as missing: it read as an empty one, and
# the message blamed the journal for losing the lines the state has.
fresh
rm "$T/c/journal.log"
for c in status resume; do
	expect "$c of a campaign without its journal" 65 "$PT" "$c" "$T/c"
	has "... names the missing file" \
		"cannot read '.*/journal.log': No such file or directory" "$T/err"
done
[ -e "$T/c/journal.log" ] && ko "... and no new journal is started" ||
	ok "... and no new journal is started"

# --- what a user can plant is never followed or waited on ---------------------
fresh
mv "$T/c/journal.log" "$T/j" && mkfifo "$T/c/journal.log"
if command -v timeout >/dev/null; then
	expect "a FIFO as journal is refused, not waited on" 65 \
		timeout 10 "$PT" status "$T/c"
	has "saying what it is" "not a regular file" "$T/err"
fi
fresh
mv "$T/c/campaign.conf" "$T/cc" && mkfifo "$T/c/campaign.conf"
expect "a FIFO as campaign.conf is not waited on" 66 \
	timeout 10 "$PT" status "$T/c"
has "... and is named for what it is" \
	"its campaign.conf is not a regular file" "$T/err"
fresh
mv "$T/c/state" "$T/s" && ln -s "$T/s" "$T/c/state"
expect "a symbolic link as state is refused" 65 "$PT" status "$T/c"

# --- status says when Slurm was last polled ----------------------------------------
fresh
expect "status of a fresh plan" 0 "$PT" status "$T/c"
has "says Slurm was not polled yet" "Slurm not polled yet" "$T/out"
expect "status --format json" 0 "$PT" status "$T/c" --format json
has "with last_polled null" '"last_polled": null' "$T/out"
# Polled, then every selected candidate ended: when Slurm was last
# polled matters no more, and "Slurm polled 3 h ago" on a campaign
# finished days before read as if it were waiting on something.
printf '\n' >"$T/c/.lock"
n=$(awk '$2 == "state=planned" { print $1; exit }' "$T/c/state")
started=$(($(date +%s) - 3725))
awk -v n="$n" -v t="$started" '$1 == n { sub(/ state=planned /, " state=running ");
	sub(/ attempt=0 job=0 /, " attempt=1 job=4242 ")
	sub(/ start=0 /, " start=" t " ") } { print }' \
	"$T/c/state" >"$T/c/state.new" && mv "$T/c/state.new" "$T/c/state"
expect "status of a campaign polled, with a job running" 0 "$PT" status "$T/c"
has "... says when Slurm was polled" "; Slurm polled [0-9]* s ago" "$T/out"
# It said a job was running, never for how long (squeue's TIME).
has "... and how long the job has run" \
	"^ *[0-9]* *running *1 *4242 *- *1:02:[0-5][0-9] *- " "$T/out"
sed -e "s/^$n state=running /$n state=completed /" \
	-e "/^$n /s/ start=[0-9]* end=0 / start=1000 end=91061 /" "$T/c/state" \
	>"$T/c/state.new" && mv "$T/c/state.new" "$T/c/state"
expect "... and once that job has ended" 0 "$PT" status "$T/c"
hasnt "... no more" "Slurm polled" "$T/out"
has "... the progress line still there" "^1 done, 0 running" "$T/out"
has "... and how long it ran" "^ *[0-9]* *completed *1 *4242 *- *1-01:01:01 " \
	"$T/out"
has "... a candidate never started without a time" \
	"^ *[0-9]* *planned *0 *- *- *- *- *- " "$T/out"

# --- status: how far each running job's training has got -------------------
# Read from the end of the job's log, as a file its owner could have
# planted: no link followed, no FIFO waited on, never an error or a row
# lost.  Search "all": an adaptive search's results read the logs too,
# and their messages are theirs.
rm -rf "$T/c"
"$PT" -q plan "$CAMPAIGN" -o "$T/c" --set search.strategy=all >/dev/null 2>&1
printf '\n' >"$T/c/.lock"
run=$(awk '$2 == "state=planned" { print $1; exit }' "$T/c/state")
wait=$(awk '$2 == "state=planned" { n++ } n == 2 { print $1; exit }' \
	"$T/c/state")
awk -v r="$run" -v w="$wait" -v t="$(($(date +%s) - 60))" '
	$1 == r { sub(/ state=planned /, " state=running ")
		sub(/ attempt=0 job=0 /, " attempt=1 job=4343 ")
		sub(/ start=0 /, " start=" t " ") }
	$1 == w { sub(/ state=planned /, " state=pending ")
		sub(/ attempt=0 job=0 /, " attempt=1 job=4344 ") }
	{ print }' "$T/c/state" >"$T/c/state.new" && mv "$T/c/state.new" "$T/c/state"
log=$T/c/runs/$run/slurm-4343.out
# megatron_line I N MS: one record as Megatron-LM prints it.
megatron_line() {
	printf ' [2026-11-30 10:00:00] iteration %8d/%8d | consumed samples: ' \
		"$1" "$2"
	printf '%12d | elapsed time per iteration (ms): %s | learning rate: ' \
		$(($1 * 256)) "$3"
	printf '1.0E-05 | global batch size:   256 | lm loss: 9.5E+00 |\n'
}
{ megatron_line 119 500 1250.0; megatron_line 120 500 1234.0
  printf ' [2026-11-30 10:00:02] iteration      121/     500 | consumed'
  printf ' samples:        30976 | elapsed time per iteration (ms): 12'
} >"$log"
sum=$(cat "$T/c/state" "$T/c/journal.log" | cksum)
expect "status of a campaign with a job running and one pending" 0 \
	"$PT" status "$T/c"
has "... a progress column" "^rank .* time  *progress  *exit " "$T/out"
has "... the running job at its last step of the planned total, and its last step time (not the line still being written)" \
	"^ *[0-9]* *running *1 *4343 *- *1:0[0-9] *120/500 1\.234s *- " "$T/out"
has "... the pending one without" "^ *[0-9]* *pending *1 *4344 *- *- *- *- " \
	"$T/out"
check "... nothing written" test "$(cat "$T/c/state" "$T/c/journal.log" |
	cksum)" = "$sum"
expect "status --format json" 0 "$PT" status "$T/c" --format json
tr -d ' \n' <"$T/out" >"$T/json"
has "... last_step, total_steps and last_step_time_s of the running job" \
	'"job_id":4343,"nodelist":null,"last_step":120,"total_steps":500,"last_step_time_s":1\.234,' \
	"$T/json"
has "... null for the pending one" \
	'"job_id":4344,"nodelist":null,"last_step":null,"total_steps":null,"last_step_time_s":null,' \
	"$T/json"
expect "status --watch names the running job's step on its line" 124 \
	timeout 3 "$PT" status --watch --interval 1 "$T/c"
has "... its rank, step, total and step time" \
	"; rank [0-9]* at 120/500 1\.234s$" "$T/out"
# Five jobs running, each with a log: the line names three, then says
# how many more (it named the fifth too, past a fourth it left out).
cp "$T/c/state" "$T/state.one"
awk -v t="$(($(date +%s) - 60))" '
	$2 ~ /^state=(planned|pending)$/ && k < 4 { k++
		sub(/ state=[a-z]* /, " state=running ")
		sub(/ attempt=[0-9]* job=[0-9]* /, " attempt=1 job=" 4400 + k " ")
		sub(/ start=0 /, " start=" t " ") }
	{ print }' "$T/state.one" >"$T/c/state"
for k in 1 2 3 4; do
	name=$(awk -v j="job=$((4400 + k))" '$0 ~ " " j " " { print $1 }' \
		"$T/c/state")
	[ -n "$name" ] && megatron_line 7 500 1000.0 >"$T/c/runs/$name/slurm-$((4400 + k)).out"
done
expect "status --watch with five jobs running" 124 \
	timeout 3 "$PT" status --watch --interval 1 "$T/c"
check "... names three of them on its line" \
	test "$(tail -1 "$T/out" | grep -o '; rank [0-9]* at' | wc -l)" = 3
has "... then how many more" "; 2 more$" "$T/out"
cp "$T/state.one" "$T/c/state"

# A real Megatron-LM log, where one is at hand.
REAL_LOGS=${PARATUNE_REAL_LOGS:-$SRC/../shared/data/real-logs}
MIXTRAL=$REAL_LOGS/megatron_iter_megatronlm_issue756_mixtral_2024a.log
if [ -r "$MIXTRAL" ]; then
	cp "$MIXTRAL" "$log"
	expect "status of a job writing a real Megatron-LM log" 0 \
		"$PT" status "$T/c"
	has "... its step, total and last step time" \
		"^ *[0-9]* *running .* 45/100 5\.719s *- " "$T/out"
fi

# The end of a long log is read, not all of it: a record of a later
# step at its head (a restarted run's log, say) is not seen, where
# reading the whole log, or its two ends as results does, would show it.
{ megatron_line 19999 20000 9999.0
  awk 'BEGIN { for (i = 1; i <= 12000; i++) printf " [2026-11-30 10:00:00]" \
	" iteration %8d/   20000 | consumed samples: %12d | elapsed time" \
	" per iteration (ms): %.1f | global batch size:   256 |" \
	" lm loss: 9.5E+00 |\n", i, i * 256, i == 12000 ? 2500 : 2000 }'
} >"$log"
check "... a log longer than the tail status reads" \
	test "$(wc -c <"$log")" -gt 1048576
expect "status of a job with a long log" 0 "$PT" status "$T/c"
has "... its last step" "^ *[0-9]* *running .* 12000/20000 2\.500s *- " \
	"$T/out"

# progress_is_none WHAT: the running job shows "-", its row and the pending
# one's are there, status exits 0 within 10 s and says nothing on stderr.
progress_is_none() {
	expect "status over $1" 0 timeout 10 "$PT" status "$T/c"
	has "... shows no progress" "^ *[0-9]* *running *1 *4343 *- *[0-9:]* *- *- " \
		"$T/out"
	has "... the pending row still there" "^ *[0-9]* *pending *1 *4344 " \
		"$T/out"
	check "... and says nothing on stderr" test ! -s "$T/err"
}
{ megatron_line 7 500 1500.0; } >"$T/elsewhere.log"
rm -f "$log" && ln -s "$T/elsewhere.log" "$log"
progress_is_none "a log that is a symbolic link"
rm -f "$log" && mkdir "$T/c/runs/$run.real" &&
	mv "$T/c/runs/$run" "$T/c/runs/$run.real/x" &&
	ln -s "$T/c/runs/$run.real/x" "$T/c/runs/$run" &&
	cp "$T/elsewhere.log" "$T/c/runs/$run.real/x/slurm-4343.out"
progress_is_none "a run directory that is a symbolic link"
rm -f "$T/c/runs/$run" && mv "$T/c/runs/$run.real/x" "$T/c/runs/$run" &&
	rmdir "$T/c/runs/$run.real" && rm -f "$log"
mkfifo "$log"
progress_is_none "a log that is a FIFO (not waited on)"
rm -f "$log"
progress_is_none "a running job without a log yet"
head -c 65536 /dev/urandom | tr -d '\n' >"$log"
progress_is_none "a binary log"
: >"$log"
progress_is_none "an empty log"
rm -f "$log" && mkdir "$log"
progress_is_none "a directory in the log's place"
rmdir "$log"
{ megatron_line 7 500 1500.0; } >"$log" && chmod 0 "$log"
[ "$(id -u)" = 0 ] || progress_is_none "a log that cannot be read"
chmod 0644 "$log"

# --- the site policy holds at submit, not only at plan -------------------------
# (refused before Slurm is asked anything: no Slurm needed)
mkdir -m 0755 "$T/etc"
printf '%s\n' 'slurm = { partition = "gpu"; };' \
	'policy = { locked = ["slurm.partition"]; max_nodes = 2; };' \
	>"$T/etc/site.conf"
chmod 0644 "$T/etc/site.conf"
fresh
expect "a campaign planned under another site is refused at submit" 78 \
	env PARATUNE_SITE_CONF="$T/etc/site.conf" "$PT" submit "$T/c" --top 1
has "naming the cap it breaks" "policy.max_nodes" "$T/err"
has "and that nothing is submitted" "nothing is submitted" "$T/err"
grep -q ' queued ' "$T/c/journal.log" && ko "nothing was queued" ||
	ok "nothing was queued"
rm -rf "$T/c"
PARATUNE_SITE_CONF="$T/etc/site.conf" "$PT" -q plan "$CAMPAIGN" -o "$T/c" \
	--set nodes=2 >/dev/null 2>&1
sed -i 's/partition = "gpu"/partition = "bigmem"/' "$T/c/campaign.conf"
grep -q bigmem "$T/c/campaign.conf" && ok "the frozen campaign was edited" ||
	ko "the frozen campaign was edited"
expect "an edit of the frozen campaign that breaks a lock is refused" 78 \
	env PARATUNE_SITE_CONF="$T/etc/site.conf" "$PT" submit "$T/c" --dry-run
has "naming the key and the site file" \
	"slurm.partition.*locked by the site.*site.conf" "$T/err"
expect "resume refuses it too" 78 \
	env PARATUNE_SITE_CONF="$T/etc/site.conf" "$PT" resume "$T/c"

# An edit of the frozen campaign that reshapes the plan (its nodes): jobs
# would ask Slurm for 4 nodes with scripts rendered for 2, and results
# would price runs that did not happen.
rm -rf "$T/c"
"$PT" -q plan "$CAMPAIGN" -o "$T/c" --set nodes=2 >/dev/null 2>&1
sed -i 's/^nodes = 2;/nodes = 4;/' "$T/c/campaign.conf"
grep -q '^nodes = 4;' "$T/c/campaign.conf" &&
	ok "the frozen campaign's nodes were edited" ||
	ko "the frozen campaign's nodes were edited"
expect "submit of a campaign whose nodes changed since plan" 78 \
	"$PT" submit "$T/c" --dry-run
has "... says what changed, and to plan again" \
	"its nodes or model changed since plan (it gives llama on 4 nodes; '.*_2nodes_tp_.*' was planned): plan it again" \
	"$T/err"
expect "... resume refuses it too" 78 "$PT" resume "$T/c"
expect "... status still reads it" 0 "$PT" status "$T/c"
has "... with a warning" "warning: .*its nodes or model changed" "$T/err"
check "... said once, though status reads the campaign twice" \
	test "$(grep -c 'its nodes or model changed' "$T/err")" = 1
expect "... estimate of a planned candidate reads it" 0 \
	"$PT" estimate "$T/c" --rank 1
has "... with the warning, saying what it estimates" \
	"its nodes or model changed since plan (it gives llama on 4 nodes; '.*_2nodes_tp_.*' was planned): estimated as it reads now" \
	"$T/err"

# --- caps on what a campaign selects and commits ---------------------------------
caps() {
	printf 'policy = { %s };\n' "$1" >"$T/etc/caps.conf"
	chmod 0644 "$T/etc/caps.conf"
}
fresh
n=$(grep -c ' state=planned ' "$T/c/state")
caps "max_candidates = 2;"
expect "selecting $n candidates over policy.max_candidates = 2 is refused" 78 \
	env PARATUNE_SITE_CONF="$T/etc/caps.conf" "$PT" submit "$T/c" --dry-run
has "naming the cap and the way out" "policy.max_candidates = 2.*--top" \
	"$T/err"
expect "the base and one more fit" 0 \
	env PARATUNE_SITE_CONF="$T/etc/caps.conf" "$PT" submit "$T/c" \
	--dry-run --top 1
has "and submit says what they commit" \
	"selecting 2 candidates (1 best predicted and the base, which always runs): at most [0-9.]* GPU-hours" "$T/out"
caps "max_gpu_hours = 1;"
expect "a selection above policy.max_gpu_hours is refused" 78 \
	env PARATUNE_SITE_CONF="$T/etc/caps.conf" "$PT" submit "$T/c" \
	--dry-run --top 1
has "with what it would commit" "would commit [0-9.]* GPU-hours" "$T/err"
caps "confirm_gpu_hours = 1;"
env PARATUNE_SITE_CONF="$T/etc/caps.conf" script -qec \
	"'$PT' submit '$T/c' --top 1" /dev/null >"$T/tty" 2>&1
has "on a terminal, a large selection needs --yes" \
	"above policy.confirm_gpu_hours = 1: run again with --yes" "$T/tty"
grep -q ' queued ' "$T/c/journal.log" && ko "and nothing is queued without it" ||
	ok "and nothing is queued without it"

# --- a cap lowered after submit holds the queued ones back ---------------
# strategy = all: the adaptive search stops instead.  Without Slurm the
# submit queues and then cannot reach it (75).
rm -rf "$T/c"
"$PT" -q plan "$CAMPAIGN" -o "$T/c" --set search.strategy=all \
	>/dev/null 2>&1
PARATUNE_SITE_CONF=/dev/null "$PT" -q submit "$T/c" --top 1 >/dev/null 2>&1
expect "without a cap, status says resume submits the queued ones" 0 \
	"$PT" status "$T/c"
has "... from cron" "2 queued: only 'paratune resume .*' submits them" \
	"$T/out"
caps "max_gpu_hours = 0.01;"
expect "resume under a cap below one job submits nothing" 0 \
	env PARATUNE_SITE_CONF="$T/etc/caps.conf" "$PT" resume "$T/c"
has "... saying it stays queued" "stays queued: .* above policy.max_gpu_hours" \
	"$T/out"
expect "status reads the site's cap" 0 \
	env PARATUNE_SITE_CONF="$T/etc/caps.conf" "$PT" status "$T/c"
has "... names it and where it is set" \
	"2 queued, held by policy.max_gpu_hours = 0.01 (.*caps.conf:1)" "$T/out"
has "... and that nothing runs until the site raises it" \
	"nothing runs until the site raises the cap ('paratune cancel" "$T/out"
hasnt "... not that resume would submit them" "only 'paratune resume" \
	"$T/out"
expect "status --format json" 0 \
	env PARATUNE_SITE_CONF="$T/etc/caps.conf" "$PT" status "$T/c" \
	--format json
has "... says what holds them" '"held_by": "policy.max_gpu_hours"' "$T/out"
expect "status --watch ends: nothing can change without the site" 0 \
	env PARATUNE_SITE_CONF="$T/etc/caps.conf" timeout 30 "$PT" status \
	"$T/c" --watch --interval 1
has "... saying why" "held by policy.max_gpu_hours" "$T/out"
expect "results under the cap" 0 \
	env PARATUNE_SITE_CONF="$T/etc/caps.conf" "$PT" results "$T/c"
has "... says what holds the queued ones" \
	"^2 queued, held by policy.max_gpu_hours = 0.01" "$T/out"
hasnt "... not to wait for the campaign's end" "when the campaign ends" \
	"$T/out"
expect "results without it" 0 "$PT" results "$T/c"
has "... says to run it again when the campaign ends" \
	"run results again when the campaign ends" "$T/out"
expect "status --site FILE reads that site file" 0 \
	"$PT" --site "$T/etc/caps.conf" status "$T/c"
has "... and its cap" "held by policy.max_gpu_hours = 0.01" "$T/out"
printf 'policy = { max_gpu_hours = ; };\n' >"$T/etc/caps.conf"
expect "status with a site file that cannot be read" 0 \
	env PARATUNE_SITE_CONF="$T/etc/caps.conf" "$PT" status "$T/c"
has "... says why" "caps.conf:1: syntax error" "$T/err"
has "... and that resume submits nothing meanwhile" \
	"2 queued: resume submits nothing while the site file cannot be read" \
	"$T/out"
expect "under the site's file without the cap, status --format json" 0 \
	"$PT" status "$T/c" --format json
has "... nothing holds them" '"held_by": null' "$T/out"

# resume records "finished" (and collects) once every selected candidate
# has ended, also when another command (cancel, submit's poll) made the
# last transition and checkpointed it: it waited for one of its own.
fresh
name=$(first)
journal_add queued "$name" -
journal_add intent "$name" "tag=pt-x-1-1 attempt=1 time=1"
journal_add submitted "$name" "job=4711 time=1"
journal_add state "$name" "state=completed job=4711 exit=0 source=controller"
expect "cancel with nothing left to cancel checkpoints the journal" 0 \
	"$PT" cancel "$T/c"
has "... whose lines the state now includes" "^journal 5$" "$T/c/state"
expect "resume after it" 0 "$PT" resume "$T/c"
has "... records finished" "^6 .* finished - -$" "$T/c/journal.log"
check "... and collects the results" test -f "$T/c/results/results.csv"
expect "resume again" 0 "$PT" resume "$T/c"
check "... records nothing more" test "$(wc -l <"$T/c/journal.log")" = 6
# An event of no candidate after it (submit --sequential's policy) ends
# nothing anew.
journal_add policy - "sequential=1"
expect "... a policy event after it, checkpointed" 0 "$PT" cancel "$T/c"
expect "resume after that" 0 "$PT" resume "$T/c"
check "... records no second finished" \
	test "$(grep -c ' finished ' "$T/c/journal.log")" = 1
fresh
expect "resume on a plan no one submitted" 0 "$PT" resume "$T/c"
check "... records no finished" test "$(wc -l <"$T/c/journal.log")" = 1

# A cancelled candidate shows no pending reason: why it waited is no
# longer why anything is.
fresh
name=$(first)
journal_add queued "$name" -
journal_add intent "$name" "tag=pt-x-1-1 attempt=1 time=1"
journal_add submitted "$name" "job=4711 time=1"
journal_add state "$name" "state=pending job=4711 reason=Resources source=controller"
expect "status of a pending job" 0 "$PT" status "$T/c"
has "... shows why it waits" "Resources" "$T/out"
journal_add cancelled "$name" "job=4711"
expect "status once it is cancelled" 0 "$PT" status "$T/c"
hasnt "... no longer shows the reason" "Resources" "$T/out"
# A dry run on a stopped search says what a submit would: queued, then
# skipped ("would queue" alone contradicted "nothing is submitted").
fresh
journal_add stopped - "reason=no_gain"
expect "submit --dry-run on a stopped search" 0 "$PT" submit "$T/c" \
	--top 2 --dry-run
has "... says nothing is submitted" "nothing is submitted" "$T/out"
has "... and that the search skips what it would queue" \
	"^would queue .*, which the stopped search then skips$" "$T/out"

# Text after the state's end line was read past and dropped at the next
# checkpoint: refused, naming the line.
cp "$T/c/state" "$T/state.kept"
echo "extra" >>"$T/c/state"
expect "text after the state's end line" 65 "$PT" status "$T/c"
has "... names file and line" \
	"state:$(wc -l <"$T/c/state"): text after the end line" "$T/err"
cp "$T/state.kept" "$T/c/state"

# The journal's last line break removed: that line is a torn write,
# which never happened, but the state includes it, so the file was cut
# or edited after; said so, not only "ends at line N".
fresh
printf '%s' "$(cat "$T/c/journal.log")" >"$T/c/journal.cut"
mv "$T/c/journal.cut" "$T/c/journal.log"
expect "a journal whose last line lost its line break" 65 "$PT" status "$T/c"
has "... says the last line has none" \
	"and a line without its line break (cut or edited) but .*state includes" \
	"$T/err"

# --- a copy of a campaign never acts as it -------------------------------
# cp -a campaign campaign.bak beside it, in the directory a cron line
# resumes with a glob: both submitted every queued candidate under the
# same job names, and each took the other's jobs for its own.
fresh
rm -rf "$T/copy" "$T/moved"
cp -a "$T/c" "$T/copy"
expect "cancel in a copy of a campaign is refused" 65 "$PT" cancel "$T/copy"
has "... naming the copy and where the campaign is" \
	"'$T/copy' is a copy of the campaign at '$T/c'" "$T/err"
for c in submit resume; do
	expect "$c in the copy too" 65 "$PT" "$c" "$T/copy"
done
expect "the copy's status is still shown (it acts on nothing)" 0 \
	"$PT" status "$T/copy"
expect "the campaign itself goes on" 0 "$PT" cancel "$T/c"
mv "$T/c" "$T/moved"
expect "moved on its file system, it goes on" 0 "$PT" cancel "$T/moved"
same "... its home follows it" "$(head -n 1 "$T/moved/home")" "$T/moved"
expect "the copy, its original moved, is still refused" 65 \
	"$PT" cancel "$T/copy"
has "... saying what it may be and what to do" \
	"remove '$T/copy/home' to make this its place" "$T/err"
ln -s "$T/moved" "$T/alias"
expect "the campaign by a symbolic link is the campaign" 0 \
	"$PT" cancel "$T/alias"
same "... its home unchanged" "$(head -n 1 "$T/moved/home")" "$T/moved"
rm "$T/copy/home"
expect "a copy whose home was removed is a place of its own" 0 \
	"$PT" cancel "$T/copy"
same "... its home is where it is" "$(head -n 1 "$T/copy/home")" "$T/copy"
rm "$T/copy/home"
ln -s /etc/passwd "$T/copy/home"
expect "a home that is a symbolic link is refused" 65 "$PT" cancel "$T/copy"
has "... naming it" "cannot read '$T/copy/home'" "$T/err"
rm "$T/copy/home"
: >"$T/copy/home"
expect "an empty home is refused" 65 "$PT" cancel "$T/copy"
has "... saying it is empty, not that it is no regular file" \
	"cannot read '$T/copy/home': empty (it names where the campaign" \
	"$T/err"
rm -rf "$T/copy" "$T/moved" "$T/alias"

# runs/ made a plain file by the owner alone is a damaged campaign, not
# one open to others: no chmod mends it.
"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/flat" >/dev/null 2>&1
rm -r "$T/flat/runs" && : >"$T/flat/runs" && chmod 644 "$T/flat/runs"
expect "runs/ a plain file of the owner's: damaged" 65 "$PT" list "$T/flat"
has "... saying so" "'$T/flat/runs' is not a directory (plan the" \
	"$T/err"
chmod 666 "$T/flat/runs"
expect "runs/ a plain file anyone can write: refused" 77 \
	"$PT" list "$T/flat"
rm -rf "$T/flat"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
