#!/bin/sh
# install.sh - what a sysadmin meets: make install never overwrites an
# edited site file (the new one lands beside it as paratune.conf.dist),
# uninstall keeps an edited one, and the crontab line of etc/paratune.cron
# works exactly as written under cron's bare environment,
# its scrontab form as the batch script scrontab makes of it.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

BUILD=$(cd "$(dirname "$PT")" && pwd)

# --- make install and the site file ------------------------------------------
if [ -f "$BUILD/Makefile" ]; then
	D=$T/dest
	make -s -C "$BUILD" install-data-local DESTDIR="$D" >"$T/i1" 2>&1
	site=$(find "$D" -name paratune.conf | head -1)
	check "install puts the site file in place" test -f "$site"
	check "and the published-runs calibration beside it" cmp -s \
		"$(dirname "$site")/calibration-published.conf" \
		"$SRC/etc/calibration-published.conf"
	make -s -C "$BUILD" install-data-local DESTDIR="$D" >"$T/i1" 2>&1
	check "an install over an unedited one leaves no .dist" \
		test ! -e "$site.dist"
	echo "# the site's own edit" >>"$site"
	make -s -C "$BUILD" install-data-local DESTDIR="$D" >"$T/i2" 2>&1
	check "a second install keeps the edited site file" \
		grep -q "the site's own edit" "$site"
	check "and puts the new one beside it" cmp -s "$site.dist" \
		"$SRC/etc/paratune.conf"
	check "saying so" grep -q "kept .*paratune.conf; the new one is" "$T/i2"
	make -s -C "$BUILD" uninstall-local DESTDIR="$D" >"$T/u" 2>&1
	check "uninstall keeps the edited site file" test -f "$site"
	check "and removes the .dist" test ! -e "$site.dist"
	cp "$SRC/etc/paratune.conf" "$site"
	make -s -C "$BUILD" uninstall-local DESTDIR="$D" >"$T/u" 2>&1
	check "an unedited one goes" test ! -e "$site"
	check "and so does the unedited calibration" \
		test ! -e "$(dirname "$site")/calibration-published.conf"
else
	echo "# no Makefile beside the binary: install not checked"
fi

# --- the crontab line, as written, under cron's environment --------------------
# cron's environment: PATH=/usr/bin:/bin, HOME, LOGNAME, SHELL=/bin/sh;
# the file's PATH line then applies.  Its /usr/local/bin is a directory
# holding this build's paratune, and a logger that keeps what it gets.
mkdir -p "$T/bin" "$T/home/campaigns"
ln -s "$BUILD/paratune" "$T/bin/paratune"
printf '#!/bin/sh\ncat >>"%s/syslog"\n' "$T" >"$T/bin/logger"
chmod +x "$T/bin/logger"
pathline=$(grep '^PATH=' "$SRC/etc/paratune.cron" | head -1)
job=$(grep '^\*/5 ' "$SRC/etc/paratune.cron" | head -1 | cut -d' ' -f6-)
check "the cron file has a PATH line and a job line" \
	test -n "$pathline" -a -n "$job"
# The README and paratune(1) show the same two lines: what is run here
# is what they say.
cronlines="$pathline
$(grep '^\*/5 ' "$SRC/etc/paratune.cron" | head -1)"
readme_cron=$(grep -A1 '^    PATH=' "$SRC/README.md" | sed 's/^    //')
check "the README's crontab lines are the cron file's" \
	test "$readme_cron" = "$cronlines"
man_cron=$(grep -A1 '^PATH=' "$SRC/man/paratune.1" | sed 's/\\-/-/g')
check "paratune(1)'s crontab lines are the cron file's" \
	test "$man_cron" = "$cronlines"
pathval=$(echo "${pathline#PATH=}" | sed "s#/usr/local/bin#$T/bin#")
PARATUNE_TEMPLATES=$SRC/templates PARATUNE_SITE_CONF=/dev/null \
	"$PT" -q plan "$SRC/etc/campaigns/demo.conf" -o "$T/home/campaigns/c1"
# Selected, so that resume must reach Slurm, which is not configured here.
SLURM_CONF=$T/none PARATUNE_SITE_CONF=/dev/null \
	"$PT" -q submit "$T/home/campaigns/c1" >/dev/null 2>&1
env -i PATH=/usr/bin:/bin HOME="$T/home" LOGNAME=nobody SHELL=/bin/sh \
	sh -c "PATH=$pathval; export PATH; SLURM_CONF=$T/none \
	PARATUNE_SITE_CONF=/dev/null; export SLURM_CONF PARATUNE_SITE_CONF; $job"
check "the line ran paratune and its error reached the log" \
	grep -q "no Slurm configuration\|SLURM_CONF" "$T/syslog"
check "naming the campaign's Slurm problem, not a missing command" \
	sh -c "! grep -q 'not found' '$T/syslog'"

# --- the scrontab form ---------------------------------------------------------
# scrontab makes the line the last of a /bin/sh batch script, run in the
# home directory with the login environment, its output in the file that
# #SCRON --output names; $HOME is the job shell's to expand.
sjob=$(grep '^#   \*/5 ' "$SRC/etc/paratune.cron" | head -1 |
	sed 's/^#   //' | cut -d' ' -f6- | sed "s#/usr/local/bin#$T/bin#")
slog=$(sed -n 's/^#   #SCRON .*--output=\([^ ]*\).*/\1/p' \
	"$SRC/etc/paratune.cron")
check "the scrontab form has a job line and an --output file" \
	test -n "$sjob" -a -n "$slog"
check "appended to, not truncated each run" \
	grep -q '^#   #SCRON .*--open-mode=append' "$SRC/etc/paratune.cron"
(cd "$T/home" && env -i PATH=/usr/bin:/bin HOME="$T/home" SHELL=/bin/sh \
	SLURM_CONF="$T/none" PARATUNE_SITE_CONF=/dev/null \
	sh -c "$sjob") >>"$T/home/$slog" 2>&1
check "the scrontab line ran paratune and its error reached its log" \
	grep -q "no Slurm configuration\|SLURM_CONF" "$T/home/$slog"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
