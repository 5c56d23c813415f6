#!/bin/sh
# config-files.sh - configuration files as the loader reads them: keys
# cleared over a lower layer, and @include targets that are not files.
# Runs the build tree's binary; no Slurm needed.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

# hasnt DESC PATTERN FILE...: no FILE matches PATTERN.

DEMO=$SRC/etc/campaigns/demo.conf

# ---- "" clears slurm.partition, account, qos and reservation -------------
cat >"$T/site.conf" <<'EOF'
slurm = { partition = "gpu"; account = "acct"; qos = "high";
          reservation = "maint"; };
EOF
cp "$DEMO" "$T/plain.conf"
{ cat "$DEMO"
  echo 'slurm = { partition = ""; account = ""; qos = ""; reservation = ""; };'
} >"$T/clear.conf"

expect "the site's slurm values reach a plan" 0 \
	"$PT" --site "$T/site.conf" plan "$T/plain.conf" -o "$T/plain"
has "... as --partition" '^#SBATCH --partition=gpu' \
	"$T"/plain/runs/*/job.sbatch
has "... and --reservation" '^#SBATCH --reservation=maint' \
	"$T"/plain/runs/*/job.sbatch

expect "\"\" clears them in a campaign file" 0 \
	"$PT" --site "$T/site.conf" config "$T/clear.conf" --format json
for k in partition account qos reservation; do
	v=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["values"]["slurm." + sys.argv[2]]["value"])' \
		"$T/out" "$k" 2>/dev/null)
	[ "$v" = None ] && ok "config shows slurm.$k unset" ||
		ko "config shows slurm.$k unset (got '$v')"
done
expect "a plan with them cleared" 0 \
	"$PT" --site "$T/site.conf" plan "$T/clear.conf" -o "$T/clear"
hasnt "its scripts carry no --partition, --account, --qos, --reservation" \
	'^#SBATCH --\(partition\|account\|qos\|reservation\)' \
	"$T"/clear/runs/*/job.sbatch
expect "--set slurm.partition= clears it too" 0 \
	"$PT" --site "$T/site.conf" config "$T/plain.conf" \
	--set slurm.partition= --format json
v=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["values"]["slurm.partition"]["value"])' "$T/out" 2>/dev/null)
[ "$v" = None ] && ok "... shown unset" || ko "... shown unset (got '$v')"
printf 'slurm = { partition = "-x"; };\n' >>"$T/plain.conf"
expect "a partition that is no name is still refused" 78 \
	"$PT" config "$T/plain.conf"

# ---- a campaign name plan can make a directory of --------------------------
# Without -o the name is the directory's, built first as NAME.plan-XXXXXX:
# a 300-byte name loaded, then failed there ("File name too long", exit
# 77).  128 bytes is the limit, said at the name's line.
n128=$(printf '%0128d' 0 | tr 0 n)
sed "s/^name = \"demo\";/name = \"$n128\";/" "$DEMO" >"$T/n128.conf"
sed "s/^name = \"demo\";/name = \"${n128}n\";/" "$DEMO" >"$T/n129.conf"
sed "s/^name = \"demo\";/name = \"$n128$n128${n128}n\";/" "$DEMO" \
	>"$T/n385.conf"
mkdir "$T/names"
pt=$(cd "$(dirname "$PT")" && pwd)/$(basename "$PT")
# plan_here CONF: plan CONF without -o, in $T/names.
plan_here() { sh -c 'cd "$1" && exec "$2" -q plan "$3"' sh "$T/names" "$pt" "$1"; }
expect "a name of 128 bytes is planned without -o" 0 plan_here "$T/n128.conf"
check "... into a directory of that name" test -d "$T/names/$n128"
expect "a name of 129 bytes is a config error" 78 plan_here "$T/n129.conf"
has "... naming the file, line and key" \
	"n129.conf:[0-9]*: key 'name': 'nnnn*\.\.\.' (129 bytes) is longer than 128 bytes" \
	"$T/err"
expect "... as is one of 385 bytes, before any directory is made" 78 \
	plan_here "$T/n385.conf"
check "... and none was" test "$(ls "$T/names" | wc -l)" -eq 1

# ---- @include of something that is not a file ----------------------------
mkdir "$T/inc" "$T/inc/somedir"
{ cat "$DEMO"; echo '@include "somedir"'; } >"$T/inc/dir.conf"
line=$(wc -l <"$T/inc/dir.conf" | tr -d ' ')
expect "plan: @include of a directory is a config error" 78 \
	"$PT" plan "$T/inc/dir.conf" -o "$T/inc/out"
has "... naming the file and line of the @include" \
	"dir.conf:$line: cannot include 'somedir': it is a directory" "$T/err"
hasnt "... not the scanner's exit" "flex scanner" "$T/err"
expect "config: the same error" 78 "$PT" config "$T/inc/dir.conf"
has "... the same message" "dir.conf:$line: cannot include 'somedir'" \
	"$T/err"

# An include that includes a directory: named at the inner file.
printf 'nodes = 4;\n' >"$T/inc/nodes.conf"
# An absolute target is read where it says: libconfig 1.5 put the
# including file's directory before it ('DIR//abs/path'), so that a
# calibrate -o elsewhere could not be named but by '../..'.
mkdir "$T/elsewhere"
{ grep -v '^nodes' "$DEMO"; echo "@include \"$T/inc/nodes.conf\""; } \
	>"$T/elsewhere/abs.conf"
expect "an absolute @include target" 0 "$PT" config "$T/elsewhere/abs.conf"
has "... read where it says" "^nodes  *4  *$T/inc/nodes.conf:1" "$T/out"
printf '@include "somedir"\n' >"$T/inc/inner.conf"
grep -v '^nodes' "$DEMO" >"$T/inc/nested.conf"
echo '@include "inner.conf"' >>"$T/inc/nested.conf"
expect "a nested @include of a directory" 78 "$PT" config "$T/inc/nested.conf"
has "... named at the inner file" "inner.conf:1: cannot include 'somedir'" \
	"$T/err"
{ grep -v '^nodes' "$DEMO"; echo '@include "absent.conf"'; } \
	>"$T/inc/missing.conf"
expect "a missing @include target is a config error" 78 \
	"$PT" config "$T/inc/missing.conf"
has "... naming the target" "cannot include 'absent.conf'" "$T/err"

# Good includes still work, and a commented-out one is not checked.
{ grep -v '^nodes' "$DEMO"
  echo '# @include "somedir"'
  echo '/*'
  echo '@include "somedir"'
  echo '*/'
  echo '@include "nodes.conf"'
} >"$T/inc/good.conf"
expect "an @include of a file" 0 "$PT" config "$T/inc/good.conf"
has "... reads it" "^nodes .*nodes.conf:1" "$T/out"

# An @include's name without its closing quote: libconfig read the lines
# below as part of the name, dropped unread when no quote followed.
{ cat "$DEMO"; printf '@include "site-extra.conf\nnodes = 16;\n'; } \
	>"$T/inc/unquoted.conf"
line=$(($(wc -l <"$DEMO") + 1))
expect "an @include without its closing quote" 78 \
	"$PT" config "$T/inc/unquoted.conf"
has "... naming file and line" \
	"unquoted.conf:$line: the @include's file name has no closing quote" \
	"$T/err"

# A value of the wrong type is quoted, so a typo is seen at once.
expect "--set seq_length=4k" 78 "$PT" config --set seq_length=4k
has "... quotes the string given" \
	"key 'seq_length': expects an integer, not the string '4k'" "$T/err"
expect "--set seq_length=2.5" 78 "$PT" config --set seq_length=2.5
has "... and the fraction" "expects an integer, not the number 2.5" \
	"$T/err"
# A --set value cannot smuggle one in: libconfig would open it from
# memory, with nothing to check it against.
expect "an @include in a --set value is refused" 78 "$PT" config \
	--set "$(printf 'nodes=4\n@include "%s"' "$T/inc/somedir")"
has "... saying so" "command line:1: key 'nodes': @include is not allowed" \
	"$T/err"
expect "... its closing quote left out too" 78 "$PT" config "$DEMO" \
	--set "$(printf 'nodes=4\n@include "%s' "$T/inc/somedir")"
has "... saying so" "command line:1: key 'nodes': @include is not allowed" \
	"$T/err"
hasnt "... not the scanner's exit" "flex scanner" "$T/err"
expect "a value on two lines is still read" 0 "$PT" config "$DEMO" \
	--set "$(printf 'nodes=\n4')"

# A --set value is one setting: what follows a ';' used to be read and
# dropped, the campaign's gpu kept and the command successful.
expect "a --set value of two settings is refused" 78 "$PT" config "$DEMO" \
	-s 'nodes=4; gpu="a100"'
has "... naming the --set argument" \
	"command line:1: --set 'nodes=4; gpu=\"a100\"': the value is more than one setting" \
	"$T/err"
expect "... as is a key given twice in one" 78 "$PT" config "$DEMO" \
	--set 'nodes=4;nodes=8'
expect "one setting per --set still works" 0 "$PT" config "$DEMO" \
	-s nodes=4 -s gpu=a100-80gb
has "... and sets both" "^gpu *\"a100-80gb\" *command line:2" "$T/out"
# Blanks around '=' as a file has them: the key's were part of its name
# ("unknown key 'nodes ' (did you mean 'nodes'?)").
expect "a --set 'KEY = VALUE' with blanks" 0 "$PT" config "$DEMO" \
	-s ' nodes = 4'
has "... sets the key" "^nodes *4 *command line:1" "$T/out"
# A margin the GPU cannot leave made every candidate oom-risk without a
# word, and submit left them all out.
expect "memory.margin_gb beyond the GPU's memory" 78 "$PT" config "$DEMO" \
	-s memory.margin_gb=100
has "... says why, naming the GPU" \
	"key 'memory.margin_gb': 100 GiB leaves nothing of the .*GiB" "$T/err"
# A conflict with a built-in default was blamed on the default
# ("built-in default: key 'memory.margin_gb'"), which the user never set:
# the key the user set is named, with its line, and the other key with
# where its value came from.
conflict() {
	printf 'name = "d"; model = "llama3_8b"; nodes = 4; gpu = "h100-sxm";\n%s\n' \
		"$1" >"$T/conflict.conf"
	expect "$1 against a default" 78 "$PT" config "$T/conflict.conf"
	has "... names the key set, at its line" "conflict.conf:2: key '$2'" \
		"$T/err"
	has "... and the default it meets" "$3" "$T/err"
	hasnt "... not a default" "built-in default: key" "$T/err"
}
conflict 'memory = { gpu_memory_gb = 3.0; };' memory.gpu_memory_gb \
	"the h100-sxm's 3 GiB leave nothing after a margin of 4 GiB (memory.margin_gb, built-in default)"
conflict 'gpus = ( { name = "h100-sxm"; memory_gib = 1.5; } );' gpus \
	"the h100-sxm's 1.5 GiB leave nothing after a margin of 4 GiB (memory.margin_gb, built-in default)"
conflict 'limits = { max_steps_per_run = 3; };' limits.max_steps_per_run \
	"5 measured steps (results.min_steps, built-in default) after 1 skipped (a tenth of the steps, at least one: results.skip_steps, built-in default) do not fit in 3 steps per run$"
conflict 'results = { skip_steps = 1000000000; };' results.skip_steps \
	"after 1000000000 skipped do not fit in 50 steps per run (limits.max_steps_per_run, built-in default)"
# The default skips a tenth of a run's steps (the log reader's rule):
# 46 of 50 was planned, and every run measured 45 and ended without a
# step time.
conflict 'results = { min_steps = 46; };' results.min_steps \
	"46 measured steps after 5 skipped (a tenth of the steps, at least one: results.skip_steps, built-in default) do not fit in 50 steps per run (limits.max_steps_per_run, built-in default)"
# skip_steps = 0 skips none: 50 of 50 fit.
printf 'name = "z";\nmodel = "llama3_8b";\ngpu = "h100-sxm";\nnodes = 1;\nresults = { min_steps = 50; skip_steps = 0; };\n' \
	>"$T/noskip.conf"
expect "min_steps = max_steps_per_run with skip_steps = 0" 0 "$PT" config \
	"$T/noskip.conf"

# A campaign file its reader may not read: missing input (66) with the
# reason, as a file that is not there (libconfig says only "cannot read").
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 &&
	command -v setpriv >/dev/null; then
	mkdir "$T/pub" && chmod 711 "$T" && chmod 755 "$T/pub"
	cp "$DEMO" "$T/pub/private.conf" && chmod 600 "$T/pub/private.conf"
	expect "a campaign file its reader cannot read" 66 setpriv \
		--reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		env HOME=/nonexistent "$PT" config "$T/pub/private.conf"
	has "... says why" "private.conf': Permission denied" "$T/err"
fi

# libconfig's parse errors leave out what to look for: the key set twice,
# and that the file is no text at all.
printf 'name = "d";\nnodes = 2;\nmodel = "llama3_8b";\nnodes = 4;\n' \
	>"$T/twice.conf"
expect "a key set twice" 78 "$PT" config "$T/twice.conf"
has "... names the key" "twice.conf:4: duplicate setting name 'nodes'" \
	"$T/err"
# With more than one key on the line, no key was named at all.
printf 'name = "d"; nodes = 2;\nmodel = "llama3_8b"; gpu = "h100-sxm"; nodes = 4;\n' \
	>"$T/twice-line.conf"
expect "a key set twice on a line of several" 78 "$PT" config \
	"$T/twice-line.conf"
has "... names the line's keys" \
	"twice-line.conf:2: duplicate setting name (one of 'model', 'gpu', 'nodes')" \
	"$T/err"
printf 'name = "d"; nodes = 2; nodes = 4;\n' >"$T/twice-same.conf"
expect "a key set twice on one line" 78 "$PT" config "$T/twice-same.conf"
has "... names it" "twice-same.conf:1: duplicate setting name 'nodes'" \
	"$T/err"
# A comment never closed: libconfig 1.5 takes the end of the file for
# its end, and the settings below it were dropped without a word.
{ cat "$DEMO"; printf '/* temporarily off\nnodes = 16;\n'; } \
	>"$T/open-comment.conf"
line=$(($(wc -l <"$DEMO") + 1))
expect "a comment never closed" 78 "$PT" config "$T/open-comment.conf"
has "... named at the line where it opened" \
	"open-comment.conf:$line: a comment opened here is never closed" \
	"$T/err"
# A string or group left open: libconfig says "syntax error" at the
# file's end, and of an included file at the including one's end.
printf 'name = "d";\nmodel = "llama3_8b";\ngpu = "h100-sxm;\nnodes = 1;\n' \
	>"$T/open-string.conf"
expect "a string not closed" 78 "$PT" config "$T/open-string.conf"
has "... named where it opened" \
	"open-string.conf:5: syntax error (the string opened on line 3 is not closed on its line)" \
	"$T/err"
printf 'name = "d";\nmodel = "llama3_8b";\nslurm = { partition = "p";\ngpu = "h100-sxm";\n' \
	>"$T/open-group.conf"
expect "a group not closed" 78 "$PT" config "$T/open-group.conf"
has "... named where it opened" \
	"syntax error (the '{' opened on line 3 is never closed)" "$T/err"
printf 'slurm = { partition = "p;\n' >"$T/open-inner.conf"
printf 'name = "d";\nmodel = "llama3_8b";\n@include "open-inner.conf"\ngpu = "h100-sxm";\n' \
	>"$T/open-outer.conf"
expect "a string not closed in an included file" 78 "$PT" config \
	"$T/open-outer.conf"
has "... named in that file" \
	"(the string opened at $T/open-inner.conf:1 is not closed on its line)" \
	"$T/err"
# A planned campaign's directory given to config said "it is a
# directory" and no more.
mkdir -p "$T/planned"
cp "$DEMO" "$T/planned/campaign.conf"
expect "config of a campaign directory" 66 "$PT" config "$T/planned"
has "... names its campaign.conf" \
	"it is a directory (a planned campaign: its file is '$T/planned/campaign.conf')" \
	"$T/err"
# A relative run.template was opened from the working directory: the
# campaign planned from its own directory only.  It is beside its file.
mkdir -p "$T/proj"
cp "$SRC/templates/simulated.sbatch" "$T/proj/my.sbatch"
sed 's|template = "simulated"|template = "./my.sbatch"|' "$DEMO" \
	>"$T/proj/rel.conf"
expect "a relative run.template, from another directory" 0 \
	sh -c 'cd / && "$1" config "$2"' sh "$PT" "$T/proj/rel.conf"
has "... is beside its file" "^run.template  *\"$T/proj/my.sbatch\"" "$T/out"
expect "... and given with --set, the working directory's" 0 \
	sh -c 'cd "$1" && "$2" config "$3" -s run.template=proj/my.sbatch' \
	sh "$T" "$PT" "$DEMO"
has "... made absolute" "^run.template  *\"$T/proj/my.sbatch\"" "$T/out"
# libconfig drops \x00 from a string: "gpu\x00evil" became "gpuevil".
expect "a --set string with \\x00" 78 "$PT" config "$DEMO" \
	-s 'slurm.partition="gpu\x00evil"'
has "... is refused" "key 'slurm.partition': a string holds \\\\x00, a NUL byte" \
	"$T/err"
{ cat "$DEMO"; printf 'slurm = { partition = "gpu\\x00evil"; };\n'; } \
	>"$T/nul.conf"
expect "... and in a file" 78 "$PT" config "$T/nul.conf"
has "... naming the line" "nul.conf:$(($(wc -l <"$DEMO") + 1)): a string holds" \
	"$T/err"
expect "... while \\\\x00 (a backslash, then x00) is no NUL" 0 "$PT" config \
	"$DEMO" -s 'env=["X=a\\x00"]'
# Expert parallel on a dense model removed every layout as "experts %
# ep", a reason that did not say the model has none.
expect "search.expert_parallel without 1 on a dense model" 78 "$PT" config \
	"$DEMO" -s 'search.expert_parallel=[2, 4]'
has "... says it needs experts" \
	"key 'search.expert_parallel': 2 needs an MoE model; llama3_8b has no experts (list 1)" \
	"$T/err"
expect "... [1, 2] still plans (a site's default for its MoE campaigns)" 0 \
	"$PT" config "$DEMO" -s 'search.expert_parallel=[1, 2]'
# The job script exports env after its own and before srun: a job's
# own SLURM_JOB_ID sent srun to another job.
expect "env setting SLURM_JOB_ID" 78 "$PT" config "$DEMO" \
	-s 'env=["NCCL_DEBUG=INFO", "SLURM_JOB_ID=1"]'
has "... is refused, naming the element" \
	"key 'env': element 2: variable 'SLURM_JOB_ID' is set for each job by Slurm or its job script" \
	"$T/err"
expect "... as is PARATUNE_CANDIDATE" 78 "$PT" config "$DEMO" \
	-s 'env=["PARATUNE_CANDIDATE=x"]'
expect "... but not Slurm's input variables" 0 "$PT" config "$DEMO" \
	-s 'env=["SLURM_MPI_TYPE=pmix", "PARATUNE_SIM_SPEEDUP=0.5"]'
{ cat "$DEMO"; echo 'env = ["NCCL_DEBUG=INFO", 2];'; } >"$T/mixed.conf"
expect "an array of a string and an integer" 78 "$PT" config "$T/mixed.conf"
has "... names the array's key and the types" \
	"mixed.conf:$(wc -l <"$T/mixed.conf"): mismatched element type in array 'env' (a string, then an integer)" \
	"$T/err"
{ printf '\357\273\277'; cat "$DEMO"; } >"$T/bom.conf"
expect "a file that starts with a UTF-8 byte order mark" 78 \
	"$PT" config "$T/bom.conf"
has "... says so" "bom.conf:1: syntax error (the file starts with a UTF-8 byte order mark" \
	"$T/err"
printf '\177ELF\002\001\001\000\000\000\002\000>\000\n' >"$T/binary.conf"
expect "a binary file as a campaign file" 78 "$PT" config "$T/binary.conf"
has "... says it is not text" "binary.conf:1: .*(a binary file" "$T/err"

# ---- a campaign file is a regular file --------------------------------------
# A pipe was read twice, by the @include check and then by libconfig,
# which found it empty ("key 'model' is not set"); /dev/zero grew memory
# without end; a FIFO with no writer blocked.  A symbolic link to a
# regular file is still followed.
cat "$DEMO" | "$PT" estimate /dev/stdin >"$T/out" 2>"$T/err"
[ $? = 78 ] && ok "a pipe as the campaign file is refused" ||
	ko "a pipe as the campaign file is refused"
has "... naming it" "campaign file '/dev/stdin': it is not a regular file" \
	"$T/err"
hasnt "... not as a file without a model" "is not set" "$T/err"
expect "/dev/zero as the campaign file" 78 timeout 10 "$PT" config /dev/zero
has "... is not a regular file" "'/dev/zero': it is not a regular file" \
	"$T/err"
mkfifo "$T/fifo.conf"
expect "a FIFO as the campaign file, without blocking" 78 timeout 10 \
	"$PT" plan "$T/fifo.conf" -o "$T/fifo-plan"
has "... is not a regular file" "fifo.conf': it is not a regular file" \
	"$T/err"
ln -s "$DEMO" "$T/link.conf"
expect "a symbolic link to a campaign file is followed" 0 \
	"$PT" config "$T/link.conf"
printf '@include "fifo.conf"\n' >"$T/inc-fifo.conf"
expect "an @include of a FIFO, without blocking" 78 timeout 10 \
	"$PT" config "$T/inc-fifo.conf"
has "... is not a regular file" "cannot include 'fifo.conf': not a regular" \
	"$T/err"

# ---- a FIFO swapped in once the file was opened -----------------------------
# A user who loops renameat2(RENAME_EXCHANGE) between campaign.conf and a
# FIFO held root's child for that campaign in open() until its time
# limit (4 runs of 80): the file was checked by name, then opened again
# by the @include check and again by libconfig.  tests/cli/open-swap.c
# wins that race every time: once the file has been opened by its name,
# the FIFO is in its place.  Each file is opened once now.
if ${CC:-cc} -shared -fPIC -o "$T/open-swap.so" \
	"$SRC/tests/cli/open-swap.c" -ldl 2>"$T/cc.err"; then
	# swapped FILE CMD...: CMD with FILE's FIFO waiting in the wings
	# (an ASan build lets the library come before its runtime).
	asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
	swapped() {
		f=$1
		shift
		mkfifo "$f.fifo"
		OPEN_SWAP_PATH=$f LD_PRELOAD=$T/open-swap.so ASAN_OPTIONS=$asan \
			timeout 10 "$@"
	}
	mkdir "$T/swap"
	cp "$DEMO" "$T/swap/c.conf"
	expect "a campaign file turned FIFO after its open: read, no wait" 0 \
		swapped "$T/swap/c.conf" "$PT" config "$T/swap/c.conf"
	test -p "$T/swap/c.conf" && ok "... and it was a FIFO after" ||
		ko "... and it was a FIFO after"
	sed '/^nodes = /d' "$DEMO" >"$T/swap/inc.conf"
	echo '@include "part.conf"' >>"$T/swap/inc.conf"
	echo 'nodes = 2;' >"$T/swap/part.conf"
	expect "an @include target turned FIFO after its open: no wait" 0 \
		swapped "$T/swap/part.conf" "$PT" config "$T/swap/inc.conf"
	has "... its value read, named by its file" \
		"^nodes  *2  .*swap/part.conf:1" "$T/out"
	"$PT" -q plan "$DEMO" -o "$T/swap/dir" 2>/dev/null
	expect "list of a campaign whose campaign.conf turned FIFO: no wait" \
		0 swapped "$T/swap/dir/campaign.conf" "$PT" list "$T/swap/dir"
	# As root's cron meets it: the child acting as the campaign's owner
	# waited in open() until its limit, and was killed (75).
	if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 &&
		command -v setpriv >/dev/null && chmod 711 "$T" &&
		install -d -o nobody "$T/swap-nob" &&
		setpriv --reuid=nobody --regid="$(id -g nobody)" \
			--clear-groups env HOME=/nonexistent "$PT" -q plan \
			"$DEMO" -o "$T/swap-nob/c" 2>/dev/null; then
		expect "root's list of a user's campaign turned FIFO: no wait" \
			0 swapped "$T/swap-nob/c/campaign.conf" \
			env PARATUNE_TEST_OWNER_LIMIT=5 "$PT" list \
			"$T/swap-nob/c"
	fi
else
	echo "skip - a FIFO swapped in after the open (no C compiler for" \
		"tests/cli/open-swap.c: $(head -1 "$T/cc.err"))"
fi

# ---- integers wider than libconfig 1.5 reads ---------------------------------
# It cut them to 32 bits without a word: 4294967300 read as 4.
cp "$DEMO" "$T/wide.conf"
printf 'seq_length = 4294971392;\n' >>"$T/wide.conf"
expect "a campaign integer wider than 32 bits is refused" 78 \
	"$PT" config "$T/wide.conf"
has "... naming file, line, key and literal" \
	"wide.conf:$(wc -l <"$T/wide.conf"): key 'seq_length': integer 4294971392 is out of range" \
	"$T/err"
expect "--set nodes=4294967300 is refused, not read as 4" 78 \
	"$PT" config "$DEMO" -s nodes=4294967300
has "... naming the key and literal, and the key's range" \
	"key 'nodes': integer 4294967300 is out of range (1 to 100000)" \
	"$T/err"
expect "a wide negative in a list too" 78 \
	"$PT" config "$DEMO" -s 'search.tensor_parallel=[1, -9999999999]'
has "... with its sign" "integer -9999999999 is out of range" "$T/err"
# In a file, an element was named by no key, a group's member by its
# own name alone.
cp "$DEMO" "$T/wide-list.conf"
printf 'search = { tensor_parallel = [1, 4294967298]; };\n' \
	>>"$T/wide-list.conf"
expect "a wide element of a campaign's list" 78 \
	"$PT" config "$T/wide-list.conf"
has "... naming the list's key, and its range" \
	"key 'search.tensor_parallel': integer 4294967298 is out of range (1 to 65536)" \
	"$T/err"
# A hexadecimal from 0x80000000 to 0xFFFFFFFF was read as a negative
# without a word: skip_steps = 0xFFFFFFFF as -1 ("auto").
cp "$DEMO" "$T/hex.conf"
printf 'results = { skip_steps = 0xFFFFFFFF; };\n' >>"$T/hex.conf"
expect "a hexadecimal above 0x7FFFFFFF is refused, not read as -1" 78 \
	"$PT" config "$T/hex.conf"
has "... naming file, line and the literal as written" \
	"hex.conf:$(wc -l <"$T/hex.conf"): key 'results.skip_steps': integer 0xFFFFFFFF is out of range (-1 to 1000000000)" \
	"$T/err"
expect "--set nodes=0x80000000 too, not read as -2147483648" 78 \
	"$PT" config "$DEMO" -s nodes=0x80000000
has "... naming the key and literal" \
	"key 'nodes': integer 0x80000000 is out of range" "$T/err"
expect "--set nodes=0x7FFFFFFF is read as itself" 78 \
	"$PT" config "$DEMO" -s nodes=0x7FFFFFFF
has "... out of the key's range only" "2147483647 is out of range (1 to" \
	"$T/err"
# Reals beyond a double: libconfig read 1e400 as inf and 1e-400 as 0,
# and the messages named values no one wrote ("inf is out of range") or
# none at all (cost_per_gpu_hour = 0).
expect "--set num_tokens_in_b=1e400 is refused" 78 \
	"$PT" config "$DEMO" -s num_tokens_in_b=1e400
has "... naming the literal, not inf" \
	"key 'num_tokens_in_b': number 1e400 is out of range" "$T/err"
expect "--set cost_per_gpu_hour=1e-400 is refused, not read as 0" 78 \
	"$PT" config "$DEMO" -s cost_per_gpu_hour=1e-400
has "... naming the literal" "number 1e-400 is out of range" "$T/err"
expect "a list element of -1e400 too" 78 \
	"$PT" config "$DEMO" -s 'search.tensor_parallel=[1, -1e400]'
has "... with its sign" "number -1e400 is out of range" "$T/err"
# ".5e308" is 5e307, not 5e308: the literal starts at its point.
expect "--set cost_per_gpu_hour=-.5e400 names the literal whole" 78 \
	"$PT" config "$DEMO" -s cost_per_gpu_hour=-.5e400
has "... with its point" "number -.5e400 is out of range" "$T/err"
expect "--set cost_per_gpu_hour=.5e308 is a number in range for a double" \
	78 "$PT" config "$DEMO" -s cost_per_gpu_hour=.5e308
has "... out of the key's range only" "5e+307 is out of range (0 to" \
	"$T/err"
cp "$DEMO" "$T/huge-real.conf"
printf 'cost_per_gpu_hour = 1.5e999;\n' >>"$T/huge-real.conf"
expect "a campaign real beyond a double is refused" 78 \
	"$PT" config "$T/huge-real.conf"
has "... naming file, line, key and literal" \
	"huge-real.conf:$(wc -l <"$T/huge-real.conf"): key 'cost_per_gpu_hour': number 1.5e999 is out" \
	"$T/err"
# A GPU with a link of 0 GB/s was taken: every estimate crossing it was
# an infinite step time, plan wrote "inf" into candidates.csv and every
# later command refused the directory as malformed.
cat >"$T/nolink.conf" <<'EOF'
gpus = ( { name = "nolink"; memory_gib = 80.0; bf16_tflops = 900.0;
           nvlink_domain = 1; nvlink_gbs = 32.0; network_gbs = 0; } );
EOF
expect "a GPU with network_gbs = 0 is refused" 78 \
	"$PT" --site "$T/nolink.conf" config "$DEMO"
has "... naming the key" "key 'gpus.network_gbs': 0 is out of range" \
	"$T/err"
sed 's/nvlink_gbs = 32.0; network_gbs = 0;/nvlink_gbs = 0; network_gbs = 25.0;/' \
	"$T/nolink.conf" >"$T/nonvl.conf"
expect "a GPU with nvlink_gbs = 0 too" 78 \
	"$PT" --site "$T/nonvl.conf" config "$DEMO"
has "... naming the key" "key 'gpus.nvlink_gbs': 0 is out of range" "$T/err"
# A peak or bandwidth of 0 means none (or derived) and stays so, but a
# tiny one (3e-308) was taken: every predicted time was inf or NaN, plan
# wrote "-nan" into candidates.csv and list refused the directory.
for k in fp32_tflops fp16_tflops fp8_tflops fp4_tflops hbm_tbs host_gbs; do
	printf 'gpus = ( { name = "h100-sxm"; %s = 3e-308; } );\n' "$k" \
		>"$T/tiny-$k.conf"
	expect "a GPU with $k = 3e-308 is refused" 78 \
		"$PT" --site "$T/tiny-$k.conf" config "$DEMO"
	has "... saying 0 or at least 0.001" \
		"key 'gpus.$k': 3e-308 is out of range (0, or 0.001 to" "$T/err"
	printf 'gpus = ( { name = "h100-sxm"; %s = 0; } );\n' "$k" \
		>"$T/zero-$k.conf"
	expect "... and $k = 0 is taken" 0 \
		"$PT" --site "$T/zero-$k.conf" config "$DEMO"
done
cat >"$T/narrow.conf" <<'EOF'
# 99999999999 in a comment
name = "n99999999999";
model = "llama3_8b";  nodes = 2;  gpus_per_node = 8;  gpu = "h100-sxm";
seq_length = 0x1000;  /* 4294967296 */
search = { min_gain = 1e-10; };
cost_per_gpu_hour = 1.7e-300;  # 1e400 in a comment
EOF
expect "digits in comments, strings and reals are not integers" 0 \
	"$PT" config "$T/narrow.conf"

# ---- run.templates_dir as plan uses it ---------------------------------------
# config showed the built-in directory with origin "default" while plan
# used $PARATUNE_TEMPLATES.
PARATUNE_TEMPLATES=$T/tmpl "$PT" config "$DEMO" >"$T/out" 2>"$T/err"
has "config shows PARATUNE_TEMPLATES" \
	"^run.templates_dir *\"$T/tmpl\" *environment (PARATUNE_TEMPLATES)$" \
	"$T/out"
PARATUNE_TEMPLATES=$T/tmpl "$PT" config "$DEMO" --format json >"$T/out"
v=$(python3 -c 'import json,sys
e=json.load(open(sys.argv[1]))["values"]["run.templates_dir"]
print(e["value"], e["file"], e["line"])' "$T/out" 2>/dev/null)
[ "$v" = "$T/tmpl environment (PARATUNE_TEMPLATES) None" ] &&
	ok "... and in JSON" || ko "... and in JSON (got '$v')"
PARATUNE_TEMPLATES=$T/tmpl "$PT" config "$DEMO" -s run.templates_dir=/y \
	>"$T/out" 2>"$T/err"
has "... which a layer's own value overrides" \
	'^run.templates_dir *"/y" *command line:1$' "$T/out"
# A templates directory that is not there: plan blamed the run.template
# line ("cannot open template 'DIR/simulated.sbatch' (run.template
# 'simulated')"), where the directory had come from elsewhere.
expect "plan with run.templates_dir missing" 78 "$PT" plan "$DEMO" \
	-o "$T/tdir" -s "run.templates_dir=$T/no-such-dir"
has "... names the directory and where it was set" \
	"command line:1: cannot use templates directory '$T/no-such-dir' (run.templates_dir): No such file" \
	"$T/err"
: >"$T/a-file"
expect "plan with PARATUNE_TEMPLATES a file" 78 env \
	PARATUNE_TEMPLATES="$T/a-file" "$PT" plan "$DEMO" -o "$T/tdir"
has "... names the directory and the environment" \
	"templates directory '$T/a-file' (run.templates_dir, from the environment (PARATUNE_TEMPLATES)): Not a directory" \
	"$T/err"
check "... and plans nothing" test ! -e "$T/tdir"

# A site file is checked the same way, before the campaign.
printf '@include "somedir"\n' >"$T/inc/site.conf"
expect "a site file's @include of a directory" 78 \
	"$PT" --site "$T/inc/site.conf" config "$DEMO"
has "... names the site file" "site.conf:1: cannot include 'somedir'" \
	"$T/err"

# A frozen campaign.conf that includes a directory: resume reports it and
# goes on to the next campaign (libconfig's scanner used to exit the
# whole process at the first one).
expect "plan a first campaign" 0 "$PT" -q plan "$DEMO" -o "$T/r1"
expect "plan a second campaign" 0 "$PT" -q plan "$DEMO" -o "$T/r2"
mkdir "$T/r1/somedir"
echo '@include "somedir"' >>"$T/r1/campaign.conf"
echo '@include "absent.conf"' >>"$T/r2/campaign.conf"
"$PT" resume "$T/r1" "$T/r2" >"$T/out" 2>"$T/err"
[ $? -ne 0 ] && ok "resume of a broken campaign fails" ||
	ko "resume of a broken campaign fails"
has "... naming the first campaign's @include" \
	"r1/campaign.conf:[0-9]*: cannot include 'somedir': it is a directory" \
	"$T/err"
has "... and goes on to the second" \
	"r2/campaign.conf:[0-9]*: cannot include 'absent.conf'" "$T/err"

# ---- model.nemo_recipe names a recipe factory -----------------------------
# nemo2.sbatch runs "nemo llm pretrain --factory RECIPE": a name that is
# no Python identifier or dotted path of them was taken, to fail in the
# job ("llama3-8b") or when plan rendered the script ("x;id"), far from
# the line that set it.  A typo of a preset's recipe is warned of there.
# recipe FILE VALUE: demo.conf with a model of its own naming VALUE.
recipe() {
	{ grep -v '^model = ' "$DEMO"
	  echo 'model = { name = "mine"; num_layers = 32; hidden_size = 4096;'
	  echo '  num_attention_heads = 32; vocab_size = 128256;'
	  echo '  max_position_embeddings = 8192;'
	  echo "  nemo_recipe = \"$2\"; };"
	} >"$T/$1.conf"
	line=$(grep -n nemo_recipe "$T/$1.conf" | cut -d: -f1)
}
recipe rc-dash llama3-8b
expect "model.nemo_recipe that is no Python name is refused" 78 \
	"$PT" config "$T/rc-dash.conf"
k="key 'model.nemo_recipe'"
has "... at its line, naming the value" \
	"rc-dash.conf:$line: $k: 'llama3-8b' is not a recipe factory name" \
	"$T/err"
has "... and the preset recipe it is near" "did you mean 'llama3_8b'" \
	"$T/err"
recipe rc-shell 'x;id'
expect "... nor one with shell syntax" 78 "$PT" config "$T/rc-shell.conf"
recipe rc-dot my_recipes.llama_custom
expect "a dotted path to a recipe of one's own is taken" 0 \
	"$PT" config "$T/rc-dot.conf"
hasnt "... without a warning" "nemo_recipe" "$T/err"
recipe rc-typo llama3_8bb
expect "a preset recipe's typo is taken" 0 "$PT" -q plan \
	"$T/rc-typo.conf" -o "$T/rc-typo" -s 'run.template="nemo2"'
has "... with a warning at its line" \
	"^warning: .*rc-typo.conf:$line: $k: 'llama3_8bb' is not a preset's" \
	"$T/err"
has "... and the recipe it is near" \
	"preset's recipe (did you mean 'llama3_8b'" "$T/err"
expect "... given once: status of the campaign" 0 "$PT" status "$T/rc-typo"
hasnt "... says nothing of it" "nemo_recipe" "$T/err"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
