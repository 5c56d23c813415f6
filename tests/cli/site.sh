#!/bin/sh
# site.sh - what a real site needs of paratune, without Slurm: a missing
# Slurm configuration is reported (exit 75, what to set) before libslurm
# could end the process; the job's environment (run.export, DIR/submit.env)
# and the site directives a cluster needs are checked where they are
# rendered.  Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

CAMPAIGN=$SRC/etc/campaigns/demo.conf

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
	expect "with SLURM_CONF set but empty, submit exits 75" 75 \
		env SLURM_CONF= "$PT" submit "$T/c"
	has "saying it is empty, not unset" "SLURM_CONF is empty" "$T/err"
fi

# --- the environment submit saw: DIR/submit.env ---------------------------
rm -rf "$T/c"
"$PT" -q plan "$CAMPAIGN" -o "$T/c" >/dev/null 2>&1
env PATH="/submit/bin:$PATH" PT_MARK=first SLURM_CONF=/nonexistent \
	"$PT" -q submit "$T/c" >/dev/null 2>&1
if [ -f "$T/c/submit.env" ] && [ ! -L "$T/c/submit.env" ]; then
	ok "the first submit records its environment in DIR/submit.env"
else
	ko "the first submit records its environment in DIR/submit.env"
fi
mode=$(stat -c %a "$T/c/submit.env" 2>/dev/null)
[ "$mode" = 600 ] && ok "submit.env is the user's alone (0600)" ||
	ko "submit.env is the user's alone (0600, not $mode)"
tr '\0' '\n' <"$T/c/submit.env" >"$T/env1" 2>/dev/null
has "it holds submit's PATH" "^PATH=/submit/bin:" "$T/env1"
env PATH="/cron/bin:$PATH" PT_MARK=second SLURM_CONF=/nonexistent \
	"$PT" -q resume "$T/c" >/dev/null 2>&1
env PATH="/again/bin:$PATH" PT_MARK=third SLURM_CONF=/nonexistent \
	"$PT" -q submit "$T/c" >/dev/null 2>&1
tr '\0' '\n' <"$T/c/submit.env" >"$T/env2" 2>/dev/null
if cmp -s "$T/env1" "$T/env2"; then
	ok "later submissions (resume, submit) keep the first one's"
else
	ko "later submissions (resume, submit) keep the first one's"
fi

# --- run.export ---------------------------------------------------------
export_conf() {
	sed "s/^run = {/run = { export = $1;/" "$CAMPAIGN" >"$T/x.conf"
}
export_conf '["ALL", "NONE"]'
expect "run.export with ALL and NONE is refused" 78 \
	"$PT" plan "$T/x.conf" -o "$T/x"
has "naming the key" "key 'run.export': ALL and NONE together" "$T/err"
export_conf '["PATH", "NOT-A-NAME"]'
expect "run.export with what is not a variable name is refused" 78 \
	"$PT" plan "$T/x.conf" -o "$T/x"
export_conf '["PATH", "OMP_NUM_THREADS=8"]'
expect "run.export with names and values is planned" 0 \
	"$PT" -q plan "$T/x.conf" -o "$T/x"
has "and frozen in campaign.conf" 'export = \["PATH", "OMP_NUM_THREADS=8"\]' \
	"$T/x/campaign.conf"
chmod 755 "$T"
printf 'run = { export = ["NONE"]; };\npolicy = { locked = ["run.export"]; };\n' \
	>"$T/site.conf"
chmod 644 "$T/site.conf"
export_conf '["ALL"]'
expect "a site that locks run.export keeps it" 78 \
	env PARATUNE_SITE_CONF="$T/site.conf" "$PT" -q plan "$T/x.conf" \
	-o "$T/x2"
has "saying so" "key 'run.export' is locked by the site" "$T/err"
# A lock no campaign can meet was taken, and every campaign refused:
# name is set by campaigns alone, and a model the site names not.
printf 'policy = { locked = ["name"]; };\n' >"$T/site.conf"
expect "a site that locks name" 78 env PARATUNE_SITE_CONF="$T/site.conf" \
	"$PT" config
has "... is refused at its line" \
	"site.conf:1: key 'policy.locked': 'name' is set by campaigns alone" "$T/err"
printf 'policy = { locked = ["model"]; };\n' >"$T/site.conf"
expect "a site that locks model and names none" 78 \
	env PARATUNE_SITE_CONF="$T/site.conf" "$PT" config
has "... is refused" "'model' is locked, but the site file names no model" \
	"$T/err"
printf 'model = "llama3_8b";\npolicy = { locked = ["model"]; };\n' \
	>"$T/site.conf"
expect "... but may lock the model it names" 0 \
	env PARATUNE_SITE_CONF="$T/site.conf" "$PT" config

# --- site directives ------------------------------------------------------
slurm_conf() {
	sed "s/^run = {/slurm = { $1 };\nrun = {/" "$CAMPAIGN" >"$T/s.conf"
}
slurm_conf 'gpu_type = "h100"; directives = ["--switches=1@10", "--network=sn_all", "--hint=nomultithread", "--exclusive=user"];'
expect "typed GPUs and the site directives are planned" 0 \
	"$PT" -q plan "$T/s.conf" -o "$T/s" --force
script=$(ls "$T"/s/runs/*/job.sbatch | head -1)
has "the script asks for typed GPUs" "^#SBATCH --gres=gpu:h100:8$" "$script"
hasnt "and not for untyped ones" "^#SBATCH --gpus-per-node" "$script"
has "--exclusive=user is rendered" "^#SBATCH --exclusive=user$" "$script"
slurm_conf 'directives = ["--hint=fast"];'
expect "a refused directive is a configuration error (78)" 78 \
	"$PT" -q plan "$T/s.conf" -o "$T/s2"
has "naming it" "'--hint=fast': not a valid value for --hint" "$T/err"
slurm_conf 'gpu_type = "h100:8";'
expect "a gpu_type that is not a name is refused (78)" 78 \
	"$PT" -q plan "$T/s.conf" -o "$T/s2"
slurm_conf 'gpu_type = ""; partition = "";'
expect "an empty gpu_type or partition clears what a site set" 0 \
	"$PT" -q plan "$T/s.conf" -o "$T/s2"

# --- the shipped site file, its examples uncommented -----------------------
# Its comments gave defaults that were not (search.relax "none relaxed",
# the pipeline-split switches false) and its relax example narrowed the
# search it said it widened.  Every commented group, uncommented, must
# load, and the stated relax default must be the built-in one.
awk '/^#[a-z_]+ = \{$/ { sub(/^#/, ""); blk = 1; print; next }
	blk && /^#};$/ { print "};"; blk = 0; next }
	blk && /^#  #/ { next }
	blk { sub(/^#/, ""); print; next }
	{ print }' "$SRC/etc/paratune.conf" >"$T/site-all.conf"
expect "etc/paratune.conf with every example group uncommented loads" 0 \
	"$PT" --site "$T/site-all.conf" config
for key in search.relax search.account_for_embedding_in_pipeline_split \
    search.strategy search.min_gain limits.gpu_hours run.early_stop; do
	# The value: every field between the key and its origin.
	got=$(awk -v k="$key" '$1 == k { $1 = ""; $NF = ""; print }' "$T/out")
	want=$(PARATUNE_SITE_CONF= "$PT" config | awk -v k="$key" \
		'$1 == k { $1 = ""; $NF = ""; print }')
	same_default="$key: the example states the default ($want)"
	if [ -n "$want" ] && [ "$got" = "$want" ]; then ok "$same_default"
	else ko "$same_default, got '$got'"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
