#!/usr/bin/env bash
# A memory-bound CPU kernel against membw_cpu's copy, in short alternating
# runs (a benchmark, not a test): copy, the kernel (and the same kernel from
# a second bench build, for an A/B), copy, N times. Each pair's two copies
# bracket its kernel runs within seconds, so a pair whose copies agree saw
# one memory speed throughout: on the 2-vCPU KVM machines the 2-thread
# bandwidth flips between about 60 and 110 GB/s every few seconds to
# minutes, which one long run of each side cannot pair.
#
# Prints each pair (copy GB/s before and after, the kernel's GB/s and its
# ratio to the mean of the two copies), then over the pairs whose copies
# agree within 10%, the median ratio and its range, separately for the
# pairs above and below the middle of the copy rates seen.
#
# usage: studies/pair_copy.sh [--pairs N] [--threads T] [--quick] [--bench PATH]
#                             [--base PATH] [--keep DIR] PLUGIN [--param NAME=VALUE]...
#   --pairs N    pairs to run (default 20)
#   --threads T  the kernel's and the copy's threads (default 0: every CPU)
#   --quick      tiny arrays, the smoke tier's shapes, short runs (for the test)
#   --bench      the bench binary (default: $BENCH, else build/bin/bench)
#   --base       a second bench binary (e.g. a build of main): its run of the
#                kernel follows each of ours, reported as "base"
#   --keep DIR   keep the result files in DIR
#   --param      the kernel's parameters, passed to bench; they must leave one
#                case (the perf tier's defaults often sweep several)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/machine.sh"

pairs=20 threads=0 quick=0 bench="${BENCH:-$root/build/bin/bench}" base="" keep="" plugin=""
params=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs="$2"; shift ;;
    --threads) threads="$2"; shift ;;
    --quick) quick=1 ;;
    --bench) bench="$2"; shift ;;
    --base) base="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    --param) params+=(--param "$2"); shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "pair_copy: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) [ -z "$plugin" ] || { echo "pair_copy: one plugin only ('$plugin', '$1')" >&2; exit 2; }
       plugin="$1" ;;
  esac
  shift
done
[ -n "$plugin" ] || { echo "pair_copy: which plugin? (see --help)" >&2; exit 2; }
case "$pairs" in ''|*[!0-9]*|0) echo "pair_copy: --pairs wants a positive integer, not '$pairs'" >&2; exit 2 ;; esac
for b in "$bench" ${base:+"$base"}; do
  [ -x "$b" ] || { echo "pair_copy: no bench binary at '$b'" >&2; exit 2; }
done

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
  rm -rf "$work"/[0-9]*-copy-[01] "$work"/[0-9]*-kernel "$work"/[0-9]*-base "$work"/[0-9]*-*.out # a last run's
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-pair-copy.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

if [ $quick = 1 ]; then
  timing='tier = smoke
warmup_iters = 1
warmup_time = 0
min_samples = 3
max_samples = 1000
min_time = 0
max_time = 0.05s
batch_min_time = 0.2ms'
  size=4MiB
else
  timing='tier = perf
warmup_iters = 2
warmup_time = 0.1s
min_samples = 10
max_samples = 100000
min_time = 0.3s
max_time = 0.5s
batch_min_time = 1ms'
  size='4*LLC'
fi
cat >"$work/pair.ini" <<EOF
[run]
$timing
target_noise = 1%
verify = fast
timeout = 300s
[membw_cpu]
kernel = copy
size = $size
threads = $threads
stores = auto
EOF

run() { # NAME BENCH PLUGIN [ARGS...]
  local rc=0
  "$2" --preset "$work/pair.ini" --plugin "$3" "${@:4}" --results-dir "$work/$1" >"$work/$1.out" 2>&1 || rc=$?
  [ $rc -eq 0 ] || echo "pair_copy: $1 exited $rc (see $work/$1.out)" >&2
}
kernel_args=(--param "threads=$threads" "${params[@]}")
echo "pair_copy: $plugin against copy, $pairs pairs, threads=$threads, on $(machine_cpu_model) (family $(machine_cpu_field 'cpu family')), load $(machine_load)"
cases() { # DIR: how many cases its result files hold
  python3 -c 'import glob, json, sys
print(sum(len(json.load(open(f))["cases"]) for f in glob.glob(sys.argv[1] + "/*.json")))' "$1"
}
for i in $(seq -w 1 "$pairs"); do
  run "$i-copy-0" "$bench" membw_cpu
  run "$i-kernel" "$bench" "$plugin" "${kernel_args[@]}"
  n=$(cases "$work/$i-kernel")
  if [ "$n" != 1 ]; then
    echo "pair_copy: $plugin ran $n cases; give --param values that leave one (see $work/$i-kernel.out)" >&2
    exit 2
  fi
  [ -z "$base" ] || run "$i-base" "$base" "$plugin" "${kernel_args[@]}"
  run "$i-copy-1" "$bench" membw_cpu
done

python3 - "$work" <<'PY'
import glob, json, os, statistics, sys

work = sys.argv[1]
def gbps(name):
    for f in glob.glob(os.path.join(work, name, "*.json")):
        for c in json.load(open(f))["cases"]:
            if c["status"] == "OK" and c.get("gbps"):
                return c["gbps"]
    return None

rows = []
for d in sorted(glob.glob(os.path.join(work, "*-copy-0"))):
    i = os.path.basename(d).split("-")[0]
    c0, c1 = gbps(f"{i}-copy-0"), gbps(f"{i}-copy-1")
    k, b = gbps(f"{i}-kernel"), gbps(f"{i}-base")
    rows.append((i, c0, c1, k, b))
has_base = any(r[4] for r in rows)
fmt = lambda x: "n/a" if x is None else f"{x:.1f}"
print(f"{'pair':>4}  {'copy0':>6}  {'copy1':>6}  {'kernel':>6}  {'ratio':>6}" + ("  {:>6}  {:>6}".format("base", "ratio") if has_base else ""))
matched = []
for i, c0, c1, k, b in rows:
    copy = (c0 + c1) / 2 if c0 and c1 else None
    agree = copy is not None and abs(c0 - c1) <= 0.1 * copy
    rk = k / copy if k and copy else None
    rb = b / copy if b and copy else None
    line = f"{i:>4}  {fmt(c0):>6}  {fmt(c1):>6}  {fmt(k):>6}  {'n/a' if rk is None else f'{rk:.3f}':>6}"
    if has_base:
        line += f"  {fmt(b):>6}  {'n/a' if rb is None else f'{rb:.3f}':>6}"
    print(line + ("" if agree else "  (copies disagree: left out)"))
    if agree and rk is not None:
        matched.append((copy, rk, rb))
if not matched:
    print("no pair whose two copies agree within 10%")
    sys.exit(0)
copies = [m[0] for m in matched]
middle = (min(copies) + max(copies)) / 2
groups = [("all", matched)]
if max(copies) > 1.25 * min(copies):  # two memory speeds: read each on its own
    groups = [(f"copy above {middle:.0f} GB/s", [m for m in matched if m[0] >= middle]),
              (f"copy below {middle:.0f} GB/s", [m for m in matched if m[0] < middle])]
for name, ms in groups:
    if not ms:
        continue
    def summary(vals):
        vals = [v for v in vals if v is not None]
        return f"median {statistics.median(vals):.3f} ({min(vals):.3f}-{max(vals):.3f})" if vals else "n/a"
    line = (f"{name}: {len(ms)} pairs, copy median {statistics.median(m[0] for m in ms):.1f} GB/s, "
            f"kernel/copy {summary(m[1] for m in ms)}")
    if has_base:
        line += f", base/copy {summary(m[2] for m in ms)}"
    print(line)
PY
