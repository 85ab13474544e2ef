#!/usr/bin/env bash
# How often does `bench compare` cry wolf? (a benchmark, not a test)
# For each preset, N times: two independent runs of the same build
# (`bench --preset P --plugin PLUGINS`, each into its own folder), then
# `bench compare A B`. A FASTER or SLOWER there is a false alarm: nothing
# changed. Prints per preset the false-alarm rate over all cases (target:
# at most 5%), the verdict counts and the exit statuses, and in how many
# cases both runs were steady (the header's steadiness: compare's default
# between-run term follows it); then a detection line: the same pairs with
# every sample of B scaled by 1.2 (a planted 20% slowdown), the share of
# cases called SLOWER. Then the same two lines with three repeats' runs
# pooled on each side.
# Then the planted build (--planted N, standard preset): N times, single
# runs of tests/ab's ab_spin built as is (twice) and built with 20% more
# work (AB_SCALE=1.2, builds/slow20), compared one run a side: the false
# alarms of A=A and how often the real 20% slowdown is SLOWER, with how
# many runs were steady.
#
# usage: studies/self_compare.sh [--repeats N] [--presets LIST] [--plugin LIST]
#                                [--bench PATH] [--before PATH] [--keep DIR]
#                                [--planted N] [--ab-builds DIR] [--stress]
#   --repeats N     self-compares per preset (default 20)
#   --presets LIST  comma list (default smoke,standard; "none": only --planted)
#   --plugin LIST   plugins to run (default cpu_spin,cpu_gemm)
#   --bench PATH    the bench binary (default: $BENCH, else build/bin/bench)
#   --before PATH   a second bench binary (e.g. a build of main): its
#                   `compare` of the same result files is reported beside
#   --keep DIR      keep the result files in DIR (default: a temporary folder);
#                   runs already there are reused, so that another compare
#                   binary can be judged on the same runs
#   --planted N     pairs of single runs of the planted build (default 0: none)
#   --ab-builds DIR tests/ab's plugin builds (default: beside the bench
#                   binary, BUILD/tests/ab/builds): base/ and slow20/
#   --stress        keep `stress-ng --cpu 2` running beside every run (the
#                   busy state; stopped at the end)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

repeats=20 presets=smoke,standard plugins=cpu_spin,cpu_gemm
bench="${BENCH:-$root/build/bin/bench}" before="" keep="" planted=0 ab_builds="" stress=0
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) repeats="$2"; shift ;;
    --presets) presets="$2"; shift ;;
    --plugin) plugins="$2"; shift ;;
    --bench) bench="$2"; shift ;;
    --before) before="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    --planted) planted="$2"; shift ;;
    --ab-builds) ab_builds="$2"; shift ;;
    --stress) stress=1 ;;
    -h|--help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "self_compare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$bench" ] || { echo "self_compare.sh: no bench binary at $bench (--bench PATH)" >&2; exit 2; }
[ -z "$before" ] || [ -x "$before" ] || { echo "self_compare.sh: no bench binary at $before" >&2; exit 2; }
case "$repeats" in ''|*[!0-9]*) echo "self_compare.sh: --repeats takes a number" >&2; exit 2 ;; esac
case "$planted" in ''|*[!0-9]*) echo "self_compare.sh: --planted takes a number" >&2; exit 2 ;; esac
[ -n "$ab_builds" ] || ab_builds="$(cd "$(dirname "$bench")/.." && pwd)/tests/ab/builds"
if [ "$planted" -gt 0 ]; then
  for d in base slow20; do
    [ -f "$ab_builds/$d/ab_spin.so" ] ||
      { echo "self_compare.sh: no $ab_builds/$d/ab_spin.so (build tests/ab, or --ab-builds DIR)" >&2; exit 2; }
  done
fi
stress_pid=""
cleanup() {
  if [ -n "$stress_pid" ]; then kill "$stress_pid" 2>/dev/null || true; wait "$stress_pid" 2>/dev/null || true; fi
  [ -n "$keep" ] || rm -rf "$work"
}
if [ -n "$keep" ]; then work="$keep"; mkdir -p "$work"; else
  work=$(mktemp -d "${TMPDIR:-/tmp}/self-compare.XXXXXX")
fi
trap cleanup EXIT
if [ "$stress" = 1 ]; then
  command -v stress-ng >/dev/null || { echo "self_compare.sh: --stress needs stress-ng" >&2; exit 2; }
  stress-ng --cpu 2 --quiet >/dev/null 2>&1 &
  stress_pid=$!
  # wait until its workers are running (not a fixed sleep)
  for _ in $(seq 1 100); do
    n=$(pgrep -c -P "$stress_pid" 2>/dev/null) || n=0
    [ "$n" -ge 2 ] && break
    kill -0 "$stress_pid" 2>/dev/null || { echo "self_compare.sh: stress-ng did not start" >&2; exit 2; }
    sleep 0.1
  done
fi

# slow DIR OUT FACTOR: OUT = the result files of DIR with every sample scaled
slow() {
  mkdir -p "$2"
  python3 - "$1" "$2" "$3" <<'PY'
import glob, json, os, sys
src, dst, f = sys.argv[1], sys.argv[2], float(sys.argv[3])
for p in glob.glob(os.path.join(src, "*.json")):
    d = json.load(open(p))
    for c in d["cases"]:
        s = c.get("samples") or {}
        for k in ("host_ns", "device_ns"):
            if s.get(k): s[k] = [v * f for v in s[k]]
        for k in ("host", "device"):
            st = c.get(k)
            if isinstance(st, dict):
                for q in ("min", "max", "mean", "median", "p05", "p95", "p99", "stddev", "mad"):
                    if isinstance(st.get(q), (int, float)): st[q] *= f
    json.dump(d, open(os.path.join(dst, os.path.basename(p)), "w"))
PY
}

# tally BIN A B: one line "cases faster slower same noisy other exit"
tally() {
  local rc=0
  "$1" compare "$2" "$3" --format csv >"$work/cmp.csv" 2>"$work/cmp.err" || rc=$?
  python3 - "$work/cmp.csv" "$rc" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
v = [r["verdict"] for r in rows]
other = sum(x not in ("FASTER", "SLOWER", "SAME", "NOISY") for x in v)
# steady: the host's steadiness, or the GPU's for a device-timed case
steady = sum(r.get("old_machine") in ("steady", "device-steady") and
             r.get("new_machine") in ("steady", "device-steady") for r in rows)
print(len(v), v.count("FASTER"), v.count("SLOWER"), v.count("SAME"), v.count("NOISY"), other, sys.argv[2], steady)
PY
}

stress_note=""
[ "$stress" = 0 ] || stress_note=", stress-ng --cpu 2 running"
echo "self_compare: $repeats self-compares per preset of --plugin $plugins, $planted planted pairs ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)$stress_note)"
plist=()
[ "$presets" = none ] || IFS=, read -r -a plist <<<"$presets"
for preset in ${plist[@]+"${plist[@]}"}; do
  for f in after before slow pool poolslow; do : >"$work/$preset.$f"; done
  for i in $(seq 1 "$repeats"); do
    d="$work/$preset/$i"
    for side in a b; do
      [ -s "$d.$side.log" ] && [ -d "$d/$side" ] && continue
      mkdir -p "$d"
      "$bench" --preset "$preset" --plugin "$plugins" --results-dir "$d/$side" >"$d.$side.log" 2>&1 ||
        { echo "self_compare.sh: run $preset/$i/$side failed, see $d.$side.log" >&2; exit 1; }
    done
    tally "$bench" "$d/a" "$d/b" >>"$work/$preset.after"
    [ -z "$before" ] || tally "$before" "$d/a" "$d/b" >>"$work/$preset.before"
    rm -rf "$d/b20"
    slow "$d/b" "$d/b20" 1.2
    tally "$bench" "$d/a" "$d/b20" >>"$work/$preset.slow"
  done
  for which in before after; do
    [ -s "$work/$preset.$which" ] || continue
    awk -v p="$preset" -v w="$which" '{c+=$1; f+=$2; s+=$3; same+=$4; n+=$5; o+=$6; if ($7 != 0) e++; st+=$8}
      END {printf "%-8s %-6s false alarms %d of %d cases (%.1f%%): %d FASTER, %d SLOWER, %d SAME, %d NOISY, %d other; exit non-zero in %d of %d compares; both runs steady in %d cases\n",
           p, w, f+s, c, c ? 100*(f+s)/c : 0, f, s, same, n, o, e, NR, st}' "$work/$preset.$which"
  done
  awk -v p="$preset" '{c+=$1; s+=$3; f+=$2}
    END {printf "%-8s 20%% slowdown (B x 1.2): SLOWER in %d of %d cases (%.1f%%), FASTER in %d\n", p, s, c, c ? 100*s/c : 0, f}' \
    "$work/$preset.slow"
  # pooled: the runs of three repeats a side in one folder (same day, same
  # plugin hash: compare pools them with runs as the unit)
  for ((i = 1; i + 2 <= repeats; i += 3)); do
    rm -rf "$work/pool"
    mkdir -p "$work/pool/a" "$work/pool/b" "$work/pool/b20"
    for k in "$i" $((i + 1)) $((i + 2)); do
      for side in a b b20; do
        for f in "$work/$preset/$k/$side"/*.json; do cp "$f" "$work/pool/$side/$k-$(basename "$f")"; done
      done
    done
    tally "$bench" "$work/pool/a" "$work/pool/b" >>"$work/$preset.pool"
    tally "$bench" "$work/pool/a" "$work/pool/b20" >>"$work/$preset.poolslow"
  done
  if [ -s "$work/$preset.pool" ]; then
    awk -v p="$preset" '{c+=$1; f+=$2; s+=$3; if ($7 != 0) e++}
      END {printf "%-8s pooled (3 runs a side) false alarms %d of %d cases (%.1f%%); exit non-zero in %d of %d compares\n",
           p, f+s, c, c ? 100*(f+s)/c : 0, e, NR}' "$work/$preset.pool"
    awk -v p="$preset" '{c+=$1; s+=$3; f+=$2}
      END {printf "%-8s pooled (3 runs a side) 20%% slowdown: SLOWER in %d of %d cases (%.1f%%), FASTER in %d\n", p, s, c, c ? 100*s/c : 0, f}' \
      "$work/$preset.poolslow"
  fi
done

# The planted build: single standard runs of ab_spin as is (a, b) and with
# 20% more work (c), a against b (nothing changed) and a against c (20%).
if [ "$planted" -gt 0 ]; then
  : >"$work/planted.same"; : >"$work/planted.slow"
  for i in $(seq 1 "$planted"); do
    d="$work/planted/$i"
    for side in a b c; do
      [ -s "$d.$side.log" ] && [ -d "$d/$side" ] && continue
      mkdir -p "$d"
      build=base; [ "$side" = c ] && build=slow20
      BENCH_PLUGIN_PATH="$ab_builds/$build" "$bench" --preset standard --plugin ab_spin --results-dir "$d/$side" \
        >"$d.$side.log" 2>&1 || { echo "self_compare.sh: planted run $i/$side failed, see $d.$side.log" >&2; exit 1; }
    done
    tally "$bench" "$d/a" "$d/b" >>"$work/planted.same"
    tally "$bench" "$d/a" "$d/c" >>"$work/planted.slow"
  done
  awk '{c+=$1; f+=$2; s+=$3; same+=$4; n+=$5; st+=$8}
    END {printf "planted  ab_spin A=A, one run a side: false alarms %d of %d (%d FASTER, %d SLOWER, %d SAME, %d NOISY); both runs steady in %d\n",
         f+s, c, f, s, same, n, st}' "$work/planted.same"
  awk '{c+=$1; f+=$2; s+=$3; same+=$4; n+=$5; st+=$8}
    END {printf "planted  ab_spin 20%% slower build (AB_SCALE=1.2), one run a side: SLOWER in %d of %d (%d SAME, %d NOISY, %d FASTER); both runs steady in %d\n",
         s, c, same, n, f, st}' "$work/planted.slow"
fi
echo "self_compare: done (load $(cut -d' ' -f1-3 /proc/loadavg)$stress_note)"
