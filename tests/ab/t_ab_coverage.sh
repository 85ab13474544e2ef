#!/bin/bash
# A reduced studies/ab_coverage.sh (issue 43): bench ab's intervals hold on
# a compute-bound chain and a memory-bound stream (2x the last-level cache)
# with planted ratios new/old of 1.00, 1.05 and 0.98, TRIALS trials each
# (default 8: 48 intervals) on 2 s a case. Fails on any wrong-sign verdict
# (SLOWER for the faster build, FASTER for the slower one, either for the
# identical one) and when fewer than 80% of the reported 95% intervals
# (early stops': their own) hold the planted ratio. Every case must give an
# interval: a trial without one is a failure, not a skip.
. "$(dirname "$0")/lib.sh"
trials=${TRIALS:-8}
for d in kinds_base kinds_1.00 kinds_1.05 kinds_0.98; do
  [ -f "$AB/$d/ab_kinds.so" ] || { fail "no $AB/$d/ab_kinds.so"; finish; }
done
llc=$(python3 - <<'PY'
import glob
best = (0, 0)
for d in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
    try:
        lv, kind, s = int(open(d + "/level").read()), open(d + "/type").read().strip(), open(d + "/size").read().strip()
    except (OSError, ValueError):
        continue
    if kind != "Instruction":
        best = max(best, (lv, int(s.rstrip("KMG")) << {"K": 10, "M": 20, "G": 30}.get(s[-1:], 0)))
print(best[1] or 32 << 20)
PY
)
stream_n=$(( (llc * 2 > 32 << 20 ? llc * 2 : 32 << 20) / 4 ))
cat >"$T/cov.ini" <<'INI'
[run]
tier = standard
warmup_iters = 3
warmup_time = 20ms
min_samples = 5
max_samples = 1000000
min_time = 0
max_time = 2s
batch_min_time = 1ms
timeout = 60s
INI
: >"$T/trials"
for t in $(seq 1 "$trials"); do
  for kind in chain stream; do
    n=2000000
    [ $kind = stream ] && n=$stream_n
    for r in 1.00 1.05 0.98; do
      rm -rf "$T/res"
      "$BENCH" ab "$AB/kinds_base" "$AB/kinds_$r" --preset "$T/cov.ini" --threshold 0.5% --plugin ab_kinds \
        --param kind=$kind --param n=$n --results-dir "$T/res" --fail-on none >"$T/out" 2>"$T/err"
      python3 - "$T/res" $kind $r >>"$T/trials" <<'PY'
import glob, json, sys
res, kind, r = sys.argv[1], sys.argv[2], sys.argv[3]
files = [f for f in glob.glob(res + "/*.json") if "_new" in f]
info = json.load(open(files[0]))["cases"][0].get("info", {}) if files else {}
ci = info.get("ab_ci", "nan nan").split()
print(kind, r, info.get("ab_verdict", "NONE"), ci[0], ci[1])
PY
    done
  done
done
python3 - "$T/trials" "$trials" <<'PY' && ok || { fail "coverage or sign"; cat "$T/trials"; tail -n 5 "$T/out" "$T/err"; }
import math, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
want = int(sys.argv[2]) * 6
bad = []
if len(rows) != want:
    bad.append("%d trials recorded, %d run" % (len(rows), want))
covered = 0
for kind, r, v, lo, hi in rows:
    p, lo, hi = float(r), float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        bad.append("%s %s: no interval (%s)" % (kind, r, v))
        continue
    covered += lo <= p <= hi
    if (p > 1 and v == "FASTER") or (p < 1 and v == "SLOWER") or (p == 1 and v in ("FASTER", "SLOWER")):
        bad.append("%s %s: wrong-sign verdict %s [%g, %g]" % (kind, r, v, lo, hi))
print("coverage %d/%d" % (covered, len(rows)))
if rows and covered < 0.8 * len(rows):
    bad.append("coverage %d/%d is below 80%%" % (covered, len(rows)))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad or not rows else 0)
PY
finish
