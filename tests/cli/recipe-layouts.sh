#!/bin/sh
# recipe-layouts.sh - no default search rule hides a layout NVIDIA ships:
# every Megatron-LM and NeMo run of tests/data/measured (NVIDIA's
# performance summaries, the Megatron-LM README, MLPerf; torchtitan's
# are another framework's) is a candidate of its campaign's plan with
# the default search, its global batch fixed to the run's: the same tp,
# pp, cp, ep, vp and micro-batch (Llama 3.1 405B at tp 4 pp 8 vp 4 as
# 128 split layers, Qwen3 235B-A22B at pp 4 vp 12, DeepSeek-V3 at pp 16
# as 4 + 14 x 4 + 1).  Runs the build tree's binary; no Slurm needed.
# Last line: "N passed, N failed".

. "$(dirname "$0")/lib.sh"

PARATUNE_SITE_CONF=/dev/null
PARATUNE_TEMPLATES=$SRC/templates
export PARATUNE_SITE_CONF PARATUNE_TEMPLATES

python3 - "$PT" "$T" "$SRC"/tests/data/measured/*.csv >"$T/report" <<'PY'
import csv, os, subprocess, sys

pt, tmp, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
plans = {}


def layouts(camp, gbs):
    """The (tp, pp, cp, ep, vp, mbs) of the default plan's candidates."""
    key = (camp, gbs)
    if key not in plans:
        out = os.path.join(tmp, "plan%d" % len(plans))
        p = subprocess.run([pt, "-q", "plan", camp, "-o", out,
                            "-s", "global_batch_size=[%s]" % gbs,
                            "-s", "search.max_candidates=100000",
                            "-s", 'run.template="simulated"'],
                           capture_output=True, text=True)
        got = set()
        if p.returncode == 0:
            with open(os.path.join(out, "candidates.csv"), newline="") as f:
                for r in csv.DictReader(f):
                    got.add(tuple(r[k] for k in
                                  ("tp", "pp", "cp", "ep", "vp", "mbs")))
        else:
            print("# plan %s failed: %s" % (camp, p.stderr.strip()[:300]))
        plans[key] = got
    return plans[key]


for path in paths:
    base = os.path.dirname(path)
    with open(path, newline="") as f:
        for line, r in enumerate(csv.DictReader(f), 2):
            camp = os.path.join(base, r["campaign_file"])
            with open(camp) as c:
                if 'framework = "torchtitan"' in c.read():
                    continue
            want = tuple(r.get(k) or "1" for k in
                         ("tp", "pp", "cp", "ep", "vp", "mbs"))
            ok = want in layouts(camp, r["gbs"])
            print("%s %s:%d tp %s pp %s cp %s ep %s vp %s mbs %s"
                  % (("ok" if ok else "missing",
                      os.path.basename(path), line) + want))
PY
check "every published run was read" test -s "$T/report"
grep '^#' "$T/report"
n=$(grep -c '^ok ' "$T/report")
missing=$(grep -c '^missing ' "$T/report")
grep '^missing ' "$T/report" | head -20
check "the default plans hold all $n published Megatron-LM and NeMo layouts" \
	test "$missing" -eq 0 -a "$n" -gt 100

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
