#!/usr/bin/env bash
# Does the stopping rule give the answer of a long run? (a benchmark, not a
# test). Runs one preset with its own stopping policy (short runs, S) and the
# same preset with min_time raised to max_time (long runs, L), interleaved
# S L S L ... so that the machine's drift hits both alike, then prints per
# case every run's median and how far each short run is from the mean of the
# long runs, and how far the long runs are from each other (the machine's own
# run-to-run spread: no stopping rule can do better). Then it replays both
# rules on the long runs' recorded samples (studies/settle_replay.py): where
# each would have stopped within the same run, against that run's whole
# median.
#
# usage: studies/settle_check.sh [--bench PATH] [--preset FILE] [--plugin LIST]
#                                [--rounds N] [--keep DIR]
#   --bench    bench binary (default build/bin/bench)
#   --preset   the short-run preset (default: studies/anchors.sh's rest.ini, its
#              perf policy: tier perf, min_time 1 s, max_time 8 s, target 1%,
#              on the CPU row kernels, attention, cpu_spin and membw_cpu at
#              the anchors' sizes)
#   --plugin   plugins to run (default: those of the default preset)
#   --rounds   short runs (default 3; long runs: one fewer)
#   --keep     keep the results in DIR (default: a temporary folder, removed)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/machine.sh"
bench="$root/build/bin/bench"
preset=""
plugins='membw_cpu,cpu_spin,cpu_rmsnorm,cpu_layernorm,cpu_softmax,cpu_rope,cpu_attention'
rounds=3
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bench) bench="$2"; shift ;;
    --preset) preset="$2"; shift ;;
    --plugin) plugins="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "settle_check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$bench" ] || { echo "settle_check: no bench at $bench (build first)" >&2; exit 2; }
case "$rounds" in ''|*[!0-9]*|0|1) echo "settle_check: --rounds wants a number >= 2" >&2; exit 2 ;; esac
if [ -n "$keep" ]; then work="$keep"; mkdir -p "$work"; else
  work=$(mktemp -d "${TMPDIR:-/tmp}/settle-check.XXXXXX"); trap 'rm -rf "$work"' EXIT
fi

if [ -z "$preset" ]; then # the anchors' own (studies/anchors.sh), one source of truth
  "$root/studies/anchors.sh" --presets "$work/anchors" || { echo "settle_check: cannot write the anchors' presets" >&2; exit 2; }
  preset="$work/anchors/rest.ini"
fi
[ -r "$preset" ] || { echo "settle_check: cannot read preset $preset" >&2; exit 2; }
# The long version: min_time = max_time (every case runs to the cap).
max=$(sed -n 's/^[[:space:]]*max_time[[:space:]]*=[[:space:]]*//p' "$preset" | head -1)
[ -n "$max" ] || { echo "settle_check: $preset sets no max_time" >&2; exit 2; }
long="$work/long.ini"
awk -v max="$max" '/^[[:space:]]*min_time[[:space:]]*=/ { print "min_time = " max; next } { print }' "$preset" >"$long"
grep -q '^min_time' "$long" || sed -i "s/^\[run\]/[run]\nmin_time = $max/" "$long"

echo "settle_check: $(machine_cpu_model), $(machine_cpus) CPUs; preset $preset, max_time $max"
for i in $(seq 1 "$rounds"); do
  for kind in S L; do
    [ "$kind" = L ] && [ "$i" -eq "$rounds" ] && continue
    run="$kind$i"
    ini=$preset; [ "$kind" = L ] && ini=$long
    start=$(date +%s%N)
    "$bench" --preset "$ini" --plugin "$plugins" --results-dir "$work/$run" >"$work/$run.out" 2>&1 ||
      { echo "settle_check: run $run failed (exit $?), see $work/$run.out" >&2; tail -3 "$work/$run.out" >&2; exit 1; }
    ms=$((($(date +%s%N) - start) / 1000000))
    printf '%s: %d.%d s, load %s\n' "$run" $((ms / 1000)) $((ms % 1000 / 100)) "$(machine_load)"
  done
done
python3 "$root/studies/settle_compare.py" "$work"
echo
echo "replay of the rules on the long runs' samples (the same run, so without the machine's run-to-run drift):"
python3 "$root/studies/settle_replay.py" --summary --preset "$preset" "$work"/L*/*.json
