#!/usr/bin/env bash
# Wall time of scripts/run_presets_slurm.sh against scripts/run_presets_local.sh
# on the same preset and plugins (a figure, not a test: not run by ctest).
# Starts the test cluster of tests/slurm/cluster.sh (three node names on
# this host), then runs, REPEATS times in turn: the local script, the Slurm
# script on one node (--nodelist n1: the same work as local) and on the
# default partition's two nodes (twice the work, both on this host's cores).
#
#   studies/slurm_overhead.sh [REPEATS] [PRESET] [PLUGINS]
#   e.g. studies/slurm_overhead.sh 3 smoke cpu_noop,cpu_gemm,vk_smoke
#
# Uses BENCH (default build/bin/bench); prints one line per run (wall
# seconds, load average before and after, cases run) and the mean, min and
# max per kind. Run it with nothing else on the machine for figures that
# mean something, and note the CPU (printed) and the load.
set -u
SRC=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=tests/slurm/cluster.sh
. "$SRC/tests/slurm/cluster.sh"
. "$SRC/scripts/lib/machine.sh"
REPEATS=${1:-3} PRESET=${2:-smoke} PLUGINS=${3:-}
export BENCH=${BENCH:-$SRC/build/bin/bench} BENCH_PLUGIN_PATH=${BENCH_PLUGIN_PATH:-}
[ -x "$BENCH" ] || {
  echo "slurm_overhead.sh: no bench at $BENCH (build first or set BENCH)" >&2
  exit 2
}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-slurm-overhead.XXXXXX")
trap 'slurm_stop; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
slurm_start "$T/slurm" || exit 1

echo "cpu: $(machine_cpu_model) ($(machine_cpus) cores); preset $PRESET, plugins ${PLUGINS:-all}"
out=$T/times
for r in $(seq "$REPEATS"); do
  for kind in local slurm-1-node slurm-2-nodes; do
    rm -rf "$T/r"
    l0=$(machine_load | cut -d' ' -f1)
    s=$(date +%s.%N)
    case $kind in
    local) "$SRC/scripts/run_presets_local.sh" --results-dir "$T/r" "$PRESET" ${PLUGINS:+"$PLUGINS"} ;;
    slurm-1-node) "$SRC/scripts/run_presets_slurm.sh" --poll 1 --nodelist n1 --results-dir "$T/r" "$PRESET" ${PLUGINS:+"$PLUGINS"} ;;
    slurm-2-nodes) "$SRC/scripts/run_presets_slurm.sh" --poll 1 --results-dir "$T/r" "$PRESET" ${PLUGINS:+"$PLUGINS"} ;;
    esac >"$T/out" 2>&1 </dev/null
    rc=$?
    e=$(date +%s.%N)
    cases=$(cat "$T"/r/logs/*.log 2>/dev/null | grep -c '^{"event":"TEST_END"')
    printf '%-14s run %s rc %s wall %6.2f s  load %s -> %s  cases %s\n' "$kind" "$r" "$rc" \
      "$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')" "$l0" "$(machine_load | cut -d' ' -f1)" "$cases" | tee -a "$out"
  done
done
awk '{ k = $1; w = $7; s[k] += w; n[k]++; if (!(k in lo) || w < lo[k]) lo[k] = w; if (w > hi[k]) hi[k] = w }
  END { for (k in s) printf "%-14s n=%d mean %.2f s, min %.2f, max %.2f\n", k, n[k], s[k] / n[k], lo[k], hi[k] }' "$out"
