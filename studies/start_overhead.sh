#!/usr/bin/env bash
# Start-up overhead of bench (a benchmark, not a test; issue 23's targets),
# measured in one run, interleaved, for an install PREFIX and optionally a
# second one to compare (--before):
#   1. `bench --preset smoke --plugin cpu_gemm` with every default plugin
#      installed vs with only cpu_gemm installed (a copy of the prefix whose
#      plugin folder holds cpu_gemm.so alone): median of N interleaved pairs
#      and the median difference in ms                    (target: <= +30 ms)
#   2. `bench --list` warm (after one --list)             (target: <= 0.5 s)
#   3. `bench --preset smoke` on every default plugin: wall vs the sum of the
#      case walls read from the result JSON               (target: <= 2.5 s)
#   4. `bench --preset smoke --plugin 'vk_*'`: wall / sum of case walls
#                                                         (target: <= 1.3x)
#   5. every vk plugin with one sample and no warm-up (--pairs runs): what
#      is left is start-up, init, setup, verify and writing the results
#   3 and 4 also give the CPU time (user + sys) of the run, the part of the
#   case walls that is the measurement itself (warm-up and timed samples),
#   and the wall over an anchor (a fixed single-threaded CPU job run next to
#   it in the same round): on a busy machine, compare ratios, not seconds.
# --before-env 'VAR=1 ...' runs the "before" side as PREFIX itself with these
# variables set (e.g. BENCH_NO_PROCESS_SLOTS=1 BENCH_NO_SPIRV_CACHE=1: one
# Vulkan device per plugin and no SPIR-V cache) instead of another install.
# Each prefix gets its own scan cache (XDG_CACHE_HOME), warmed first.
# Install a prefix with: cmake --install BUILD --prefix /tmp/bench-after
#
# usage: studies/start_overhead.sh [--before PREFIX] [--pairs N] [--runs N] PREFIX
#   --pairs  interleaved pairs for 1. and runs of 2. (default 7)
#   --runs   runs of 3. and 4. (default 3; the median is shown)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/machine.sh"
before=""
before_env=""
pairs=7
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --before) before="$2"; shift ;;
    --before-env) before_env="$2"; shift ;;
    --pairs) pairs="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "start_overhead: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
[ $# -eq 1 ] || { echo "start_overhead: one PREFIX expected (see --help)" >&2; exit 2; }
after=$1
[ -n "$before_env" ] && [ -z "$before" ] && before=$after
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-start.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset BENCH_NO_SCAN_CACHE
export BENCH_PLUGIN_PATH=

labels=()
[ -n "$before" ] && labels+=(before)
labels+=(after)
declare -A prefix solo
prefix[after]=$(cd "$after" && pwd)
[ -n "$before" ] && prefix[before]=$(cd "$before" && pwd)

# A copy of the prefix with cpu_gemm alone in its plugin folder (the binary
# is copied: bench finds its plugins next to its own path).
for l in "${labels[@]}"; do
  p=${prefix[$l]}
  [ -x "$p/bin/bench" ] || { echo "start_overhead: no $p/bin/bench" >&2; exit 2; }
  pdir=$(cd "$p" && find . -type d -path '*/bench/plugins' | head -1)
  [ -n "$pdir" ] && [ -f "$p/$pdir/cpu_gemm.so" ] || { echo "start_overhead: no cpu_gemm.so under $p" >&2; exit 2; }
  s="$work/solo-$l"
  mkdir -p "$s/bin" "$s/$pdir"
  cp "$p/bin/bench" "$s/bin/bench"
  ln -s "$p/$pdir/cpu_gemm.so" "$s/$pdir/cpu_gemm.so"
  for d in "$p"/*; do [ -e "$s/$(basename "$d")" ] || ln -s "$d" "$s/$(basename "$d")"; done
  solo[$l]=$s
  mkdir -p "$work/xdg-$l"
done

# t LABEL NAME BENCH ARGS...: run once, append "LABEL NAME SECONDS" and
# "LABEL NAME_cpu SECONDS" (user + sys of the run) to the log.
t() {
  local l=$1 name=$2 b=$3
  shift 3
  local s e envs=()
  [ "$l" = before ] && [ -n "$before_env" ] && read -ra envs <<<"$before_env"
  s=$EPOCHREALTIME
  local TIMEFORMAT='%U %S'
  { time env "${envs[@]}" XDG_CACHE_HOME="$work/xdg-$l" "$b" "$@" >"$work/out" 2>"$work/err"; } \
    2>"$work/time" || true
  e=$EPOCHREALTIME
  echo "$l $name $(echo "$e - $s" | bc -l)" >>"$work/log"
  echo "$l ${name}_cpu $(awk '{print $1 + $2}' "$work/time")" >>"$work/log"
}

# anchor LABEL: a fixed single-threaded CPU job, timed like t.
anchor() {
  local s e
  s=$EPOCHREALTIME
  python3 -c 'x = 0
for i in range(3000000): x += i * i' >/dev/null
  e=$EPOCHREALTIME
  echo "$1 anchor $(echo "$e - $s" | bc -l)" >>"$work/log"
}

echo "machine: $(machine_cpu_model) (family $(machine_cpu_field 'cpu family') model" \
  "$(machine_cpu_field model)), $(machine_cpus) CPUs, $(uname -r), load $(machine_load)"
for l in "${labels[@]}"; do
  echo "$l: ${prefix[$l]}, $("${prefix[$l]}/bin/bench" --version 2>/dev/null | head -1)," \
    "$(XDG_CACHE_HOME="$work/xdg-$l" "${prefix[$l]}/bin/bench" --list --format tsv 2>/dev/null | wc -l) plugins"
  # warm the scan caches (and --list's verdicts)
  XDG_CACHE_HOME="$work/xdg-$l" "${prefix[$l]}/bin/bench" --list >/dev/null 2>&1 || true
  XDG_CACHE_HOME="$work/xdg-$l" "${solo[$l]}/bin/bench" --list >/dev/null 2>&1 || true
  # and vk_gemm_auto's tuning cache (and the SPIR-V cache, where there is
  # one): a first smoke run tunes, which is not start-up overhead
  t "$l" warm "${prefix[$l]}/bin/bench" --preset smoke --plugin 'vk_*' --results-dir "$work/warm-$l"
done
# the labels of round $1, in turn first
order() { if [ $(($1 % 2)) -eq 1 ]; then echo "${labels[@]}"; else printf '%s\n' "${labels[@]}" | tac | paste -sd' '; fi; }

# 1 and 2: interleaved pairs (which of the pair goes first alternates).
for i in $(seq "$pairs"); do
  for l in "${labels[@]}"; do
    r="$work/r-$l"
    if [ $((i % 2)) -eq 1 ]; then
      t "$l" all "${prefix[$l]}/bin/bench" --preset smoke --plugin cpu_gemm --results-dir "$r"
      t "$l" solo "${solo[$l]}/bin/bench" --preset smoke --plugin cpu_gemm --results-dir "$r"
    else
      t "$l" solo "${solo[$l]}/bin/bench" --preset smoke --plugin cpu_gemm --results-dir "$r"
      t "$l" all "${prefix[$l]}/bin/bench" --preset smoke --plugin cpu_gemm --results-dir "$r"
    fi
    rm -rf "$r"
    t "$l" list "${prefix[$l]}/bin/bench" --list
  done
done

# 3 and 4: wall vs the sum of the case walls of the run's result files.
case_walls() { # DIR: sum of wall_s, and of the warm-up and samples' host time,
  # over every case of every result JSON
  python3 - "$1" <<'PY'
import glob, json, sys
wall = timed = 0
for f in glob.glob(sys.argv[1] + "/**/*.json", recursive=True):
    for c in json.load(open(f)).get("cases", []):
        wall += c.get("wall_s") or 0
        s = c.get("samples") or {}
        med = (c.get("host") or {}).get("median") or 0
        timed += (sum(s.get("host_ns") or []) + med * (c.get("warmup_iters") or 0)) / 1e9
print(wall, timed)
PY
}
for i in $(seq "$runs"); do
  for l in $(order "$i"); do
    for what in smoke_all smoke_vk; do
      r="$work/r-$l-$what"
      rm -rf "$r"
      if [ "$what" = smoke_all ]; then
        t "$l" "$what" "${prefix[$l]}/bin/bench" --preset smoke --results-dir "$r"
      else
        t "$l" "$what" "${prefix[$l]}/bin/bench" --preset smoke --plugin 'vk_*' --results-dir "$r"
      fi
      read -r cw ct <<<"$(case_walls "$r")"
      echo "$l ${what}_cases $cw" >>"$work/log"
      echo "$l ${what}_timed $ct" >>"$work/log"
    done
    anchor "$l"
  done
done

# 5. The vk plugins' overhead alone: every vk plugin under a preset that
# measures as little as it can (one sample, no warm-up), so that the wall is
# start-up, init, setup (buffers, pipelines, compiles), verify and results.
cat >"$work/min.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 0
warmup_time = 0
min_samples = 1
max_samples = 1
min_time = 0
max_time = 0
INI
for i in $(seq "$pairs"); do
  for l in $(order "$i"); do
    r="$work/r-$l-min"
    rm -rf "$r"
    t "$l" vk_min "${prefix[$l]}/bin/bench" --preset "$work/min.ini" --plugin 'vk_*' --results-dir "$r"
  done
done

echo "load at the end: $(machine_load)"
python3 - "$work/log" "$pairs" "$runs" "${labels[@]}" <<'PY'
import statistics as st, sys
log, pairs, runs, labels = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
v = {}
for line in open(log):
    l, name, x = line.split()
    v.setdefault((l, name), []).append(float(x))
med = lambda xs: st.median(xs) if xs else float("nan")
def row(name, target, fmt, f):
    cells = [fmt % f(l) for l in labels]
    print(f"| {name} | " + " | ".join(cells) + f" | {target} |")
print()
print("| measure | " + " | ".join(labels) + " | target |")
print("| --- | " + " | ".join("---" for _ in labels) + " | --- |")
row(f"smoke --plugin cpu_gemm, all installed (median of {pairs})", "", "%.3f s",
    lambda l: med(v[(l, "all")]))
row(f"same, only cpu_gemm installed (median of {pairs})", "", "%.3f s", lambda l: med(v[(l, "solo")]))
row("difference all - solo (median of the pairs)", "<= +30 ms", "%+.0f ms",
    lambda l: 1e3 * med([a - b for a, b in zip(v[(l, "all")], v[(l, "solo")])]))
row(f"--list warm (median of {pairs})", "<= 0.5 s", "%.3f s", lambda l: med(v[(l, "list")]))
row(f"smoke, all plugins: wall (median of {runs})", "<= 2.5 s", "%.2f s", lambda l: med(v[(l, "smoke_all")]))
row("  sum of case walls", "unchanged", "%.2f s", lambda l: med(v[(l, "smoke_all_cases")]))
row("  of which warm-up and samples (the measurement)", "", "%.2f s",
    lambda l: med(v[(l, "smoke_all_timed")]))
row("  wall - warm-up and samples (the overhead)", "", "%.2f s",
    lambda l: med([a - b for a, b in zip(v[(l, "smoke_all")], v[(l, "smoke_all_timed")])]))
row("  CPU time of the run (user + sys)", "", "%.2f s", lambda l: med(v[(l, "smoke_all_cpu")]))
row(f"anchor: fixed CPU job (median of {runs})", "", "%.3f s", lambda l: med(v[(l, "anchor")]))
row("  smoke all wall / anchor (same round)", "", "%.1fx",
    lambda l: med([a / b for a, b in zip(v[(l, "smoke_all")], v[(l, "anchor")])]))
row(f"smoke --plugin 'vk_*': wall (median of {runs})", "", "%.2f s", lambda l: med(v[(l, "smoke_vk")]))
row("  sum of case walls", "", "%.2f s", lambda l: med(v[(l, "smoke_vk_cases")]))
row("  of which warm-up and samples", "", "%.2f s", lambda l: med(v[(l, "smoke_vk_timed")]))
row("  wall / case walls", "<= 1.3x", "%.2fx",
    lambda l: med([a / b for a, b in zip(v[(l, "smoke_vk")], v[(l, "smoke_vk_cases")]) if b > 0]))
row(f"vk_* with one sample, no warm-up: wall (median of {pairs})", "", "%.2f s",
    lambda l: med(v[(l, "vk_min")]))
row("  CPU time (user + sys)", "", "%.2f s", lambda l: med(v[(l, "vk_min_cpu")]))
PY
