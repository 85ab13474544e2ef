#!/usr/bin/env bash
# The correctness gate of the CPU peak plugins catches a broken kernel:
# each plugin built from its own source with -DCPU_PEAK_BROKEN (tests/cpu/
# CMakeLists.txt: peak_cpu_fma's last thread runs no chain, peak_cpu_bw's
# last part is left out, peak_cpu_lat's chase goes one load short; named
# <name>_broken) must end every case that runs WRONG_ANSWER, by the
# plugin's exact comparison, on one thread and on every CPU, under smoke
# and the verify tier; a case this CPU cannot run stays SKIPPED. The run
# fails (exit 1).
. "$(dirname "$0")/cpu_lib.sh"

DIR=$BUILD/tests/cpu/peak_broken
for p in peak_cpu_fma peak_cpu_bw peak_cpu_lat; do
  [ -f "$DIR/${p}_broken.so" ] && ok || fail "no $DIR/${p}_broken.so (built by tests/cpu/CMakeLists.txt)"
done

# smoke: a cache level and memory (pieces, non-temporal stores); the
# verify tier: its awkward sizes and thread counts.
for preset in smoke "$SRC/tests/cpu/verify-quick.ini"; do
  tag=$(basename "$preset" .ini) sizes=L1/2,2*LLC
  [ "$tag" = smoke ] || sizes=8,1000
  run_bench --preset "$preset" --plugin-dir "$DIR" --plugin peak_cpu_fma_broken,peak_cpu_bw_broken,peak_cpu_lat_broken \
    --param size=$sizes --param chain=7,1000 --results-dir "$T/$tag"
  expect_rc 1 "the broken builds, $tag"
  python3 - "$T/$tag" <<'PY' && ok || fail "the broken builds, $tag: not every case WRONG_ANSWER"
import glob, json, os, sys
bad, wrong = [], {}
for p in ("peak_cpu_fma_broken", "peak_cpu_bw_broken", "peak_cpu_lat_broken"):
    files = glob.glob(os.path.join(sys.argv[1], f"*_{p}_*.json"))
    if not files: bad.append(f"{p}: no result file")
    for f in files:
        for c in json.load(open(f))["cases"]:
            name = p + " " + " ".join(f"{k}={v}" for k, v in c["params"].items())
            if c["status"] == "SKIPPED" and p == "peak_cpu_fma_broken" and c["message"]:
                continue
            ck = c["check"]
            if c["status"] != "WRONG_ANSWER" or ck["pass"] or ck["method"] != "plugin-exact" or not ck["mismatches"]:
                bad.append(f"{name}: {c['status']} '{c['message']}' check {ck}")
            else:
                wrong.setdefault(p, set()).add(c["params"].get("threads", "1"))
for p in ("peak_cpu_fma_broken", "peak_cpu_bw_broken"):
    if not {"1", "0"} <= wrong.get(p, set()):
        bad.append(f"{p}: WRONG_ANSWER on threads {sorted(wrong.get(p, []))}, expected 1 and 0 among them")
if not wrong.get("peak_cpu_lat_broken"):
    bad.append("peak_cpu_lat_broken: no WRONG_ANSWER case")
for b in bad: print(b)
print(f"WRONG_ANSWER: {', '.join(f'{p} threads {sorted(t)}' for p, t in sorted(wrong.items()))}")
sys.exit(1 if bad else 0)
PY
done
expect_in "$T/out" 'WRONG_ANSWER .*(got|expected)' "the mismatch named on the case line"
finish
