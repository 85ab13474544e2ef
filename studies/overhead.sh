#!/usr/bin/env bash
# Harness overhead of bench (a benchmark, not a test): the smoke preset on
# every default plugin, timed end to end, and per case the time outside timed
# work = (next TEST_START, or SUITE_END, - this TEST_START from the events:
# process start, init, warm-up, verification, saving, everything) - (the
# samples' timed iterations from the result JSON). Prints one table per bench binary, so a
# before/after comparison is: studies/overhead.sh --bench OLD --bench NEW.
#
# usage: studies/overhead.sh [--bench PATH]... [--repeat N] [--preset P] [--keep DIR]
#   --bench    bench binaries to compare (default: build/bin/bench)
#   --repeat   runs per binary (default 3; the table shows the median run)
#   --preset   preset (default smoke)
#   --keep     keep results and events in DIR
# Extra arguments after -- go to every bench run (e.g. -- --isolation case).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/machine.sh"
benches=()
repeat=3
preset=smoke
keep=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bench) benches+=("$2"); shift ;;
    --repeat) repeat="$2"; shift ;;
    --preset) preset="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "overhead: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#benches[@]} -gt 0 ] || benches=("$root/build/bin/bench")
if [ -n "$keep" ]; then mkdir -p "$keep"; work=$(cd "$keep" && pwd); else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-overhead.XXXXXX"); trap 'rm -rf "$work"' EXIT; fi

echo "machine: $(machine_cpu_model), $(machine_cpus) CPUs"
for b in "${benches[@]}"; do
  for r in $(seq "$repeat"); do
    d="$work/$(echo "$b" | tr '/' '_')/$r"
    mkdir -p "$d"
    load=$(machine_load | cut -d' ' -f1)
    t0=$(date +%s.%N)
    "$b" --preset "$preset" --results-dir "$d/r" --events "$d/ev.jsonl" "${extra[@]}" >"$d/out" 2>"$d/err" || true
    t1=$(date +%s.%N)
    echo "$t0 $t1 $load" >"$d/wall"
  done
  python3 - "$b" "$work/$(echo "$b" | tr '/' '_')" "$repeat" <<'PY'
import glob, json, os, statistics as st, sys
bench, base, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = []
for r in range(1, repeat + 1):
    d = f"{base}/{r}"
    t0, t1, load = open(f"{d}/wall").read().split()
    wall = float(t1) - float(t0)
    starts, ends, order = {}, {}, []
    for line in open(f"{d}/ev.jsonl"):
        e = json.loads(line)
        key = e.get("index")
        if e.get("event") == "TEST_START":
            starts[key] = e["ts"]
            order.append(key)
        if e.get("event") == "SUITE_END": suite_end = e["ts"]
    for i, k in enumerate(order):
        ends[k] = starts[order[i + 1]] if i + 1 < len(order) else suite_end
    timed = {}
    for f in glob.glob(f"{d}/r/*.json"):
        for c in json.load(open(f))["cases"]:
            hs = (c.get("samples") or {}).get("host_ns") or []
            timed[c["index"]] = (c["plugin"], c["backend"], c["status"],
                                 sum(hs) * max(c.get("batch") or 1, 1) / 1e9)
    per = []
    for k, (plugin, backend, status, t) in timed.items():
        if k in starts and k in ends:
            per.append((plugin, backend, status, ends[k] - starts[k] - t, t))
    runs.append((wall, float(load), per))
runs.sort(key=lambda x: x[0])
wall, load, per = runs[len(runs) // 2]
def med(xs): return st.median(xs) * 1e3 if xs else float("nan")
ok = [p for p in per if p[2] == "OK"]
cpu = [p[3] for p in ok if p[1] == "cpu"]
vk = [p[3] for p in ok if p[1] == "vulkan"]
vk3 = [p[3] for p in ok if p[0] in ("vk_rmsnorm", "vk_softmax", "vk_gemm")]
print(f"bench {bench}")
print(f"  smoke wall (median of {repeat}): {wall:.2f} s  (all runs: {', '.join('%.2f' % r[0] for r in sorted(runs))}; load at start {load})")
print(f"  cases {len(per)}, OK {len(ok)}; timed work {sum(p[4] for p in per):.3f} s; outside timed work {sum(p[3] for p in per):.2f} s")
print(f"  overhead per OK case, median: cpu {med(cpu):.1f} ms (n={len(cpu)}), vulkan {med(vk):.1f} ms (n={len(vk)}), "
      f"vk_rmsnorm/vk_softmax/vk_gemm {med(vk3):.1f} ms (n={len(vk3)})")
if vk: print(f"  vulkan mean overhead per OK case {st.mean(vk) * 1e3:.1f} ms")
PY
done
