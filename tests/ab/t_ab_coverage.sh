#!/bin/bash
# A reduced studies/ab_coverage.sh (issue 43): bench ab's intervals hold on
# a compute-bound chain and a memory-bound stream (2x the last-level cache),
# TRIALS trials (default 8: 48 intervals) on 2 s a case, with planted ratios
# new/old of 1.00, 1.05 and 0.98 for the chain and 1.00, 1.10 and 0.90 for
# the stream (whose 2 s intervals are +-10%: a 2% change there is inside
# them, and a calibrated interval would call it the wrong way in about 1%
# of trials, so a change it must never call the wrong way is planted).
# Fails on any verdict of the wrong sign for a planted change (FASTER for a
# slower build, SLOWER for a faster one), when fewer than 80% of the
# intervals (early stops': their own) hold the planted ratio, and when the
# SLOWER/FASTER verdicts on identical builds (false alarms: a 95% interval
# misses in 1 trial of 20 by design) are more than a 5% rate gives with
# probability 0.001 (binomial tail). A biased interval (as the trimmed-mean
# one was, calling identical memory-bound builds SLOWER) fails all three.
# Every case must give an interval: a trial without one is a failure, not a
# skip.
. "$(dirname "$0")/lib.sh"
trials=${TRIALS:-8}
for d in kinds_base kinds_1.00 kinds_1.05 kinds_0.98 kinds_1.10 kinds_0.90; do
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
    n=2000000 ratios="1.00 1.05 0.98"
    [ $kind = stream ] && n=$stream_n ratios="1.00 1.10 0.90"
    for r in $ratios; do
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

def tail(k, n, p=0.05):
    """P(X >= k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))

n = misses = nulls = alarms = changes = wrong = 0
for kind, r, v, lo, hi in rows:
    p, lo, hi = float(r), float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        bad.append("%s %s: no interval (%s)" % (kind, r, v))
        continue
    n += 1
    misses += not (lo <= p <= hi)
    if p == 1:
        nulls += 1
        alarms += v in ("FASTER", "SLOWER")
    else:
        changes += 1
        if (p > 1 and v == "FASTER") or (p < 1 and v == "SLOWER"):
            wrong += 1
            bad.append("%s %s: wrong-sign verdict %s [%g, %g]" % (kind, r, v, lo, hi))
print("coverage %d/%d (P(misses >= %d) at 5%% = %.4f); false alarms on identical builds %d/%d (P = %.4f);"
      " wrong signs %d/%d" % (n - misses, n, misses, tail(misses, n), alarms, nulls, tail(alarms, nulls), wrong, changes))
if n and n - misses < 0.8 * n:
    bad.append("coverage %d/%d is below 80%%" % (n - misses, n))
if nulls and tail(alarms, nulls) < 0.001:
    bad.append("%d of %d identical pairs called SLOWER or FASTER: more than a 5%% rate gives (p < 0.001)" % (alarms, nulls))
if not nulls or not changes:
    bad.append("no identical or no planted-change trial gave an interval")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad or not rows else 0)
PY
finish
