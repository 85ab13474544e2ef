#!/bin/bash
# Power of bench ab against the sequential method (bench run OLD, bench run
# NEW, bench compare) on the same wall budget per case: a spin plugin
# (tests/ab/ab_spin.c) built with a planted slowdown of 0% (a second build
# of the same source: A=A), 1%, 2% and 5%, TRIALS trials each, with both
# cores idle and with one core kept busy by a shell loop. Prints, per method
# and load, the detection rate (SLOWER at 1/2/5%) and the false-alarm rate
# (anything but SAME or NOISY at 0%).
#
#   studies/ab_power.sh BUILD [TRIALS] [BUDGET_S]      (defaults 20, 10)
#
# BUILD is a configured and built tree (its bin/bench is used). THRESHOLD
# (default 0.5%), N (spin iterations, default 200000: about 0.2 ms per run)
# and LOADS ("idle busy") come from the environment. Takes about
# TRIALS * 4 * 2 * 2 * BUDGET_S seconds (20 trials: about 55 minutes).
set -u
build=${1:?usage: $0 BUILD [TRIALS] [BUDGET_S]}
trials=${2:-20}
budget=${3:-10}
threshold=${THRESHOLD:-0.5%}
n=${N:-200000}
loads=${LOADS:-idle busy}
src=$(cd "$(dirname "$0")/.." && pwd)
bench=$build/bin/bench
[ -x "$bench" ] || { echo "$0: no $bench" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ab-power.XXXXXX")
busy_pid=
cleanup() {
  [ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
export XDG_CACHE_HOME=$W/cache BENCH_PLUGIN_PATH=

# the builds: base, and one per slowdown (0 is a separate build of base)
for pct in base 0 1 2 5; do
  scale=1.0
  [ "$pct" != base ] && scale=$(awk -v p="$pct" 'BEGIN { printf "%.4f", 1 + p / 100 }')
  mkdir -p "$W/b_$pct"
  cc -O1 -shared -fPIC -fvisibility=hidden -I"$src/harness/include" -DAB_SCALE="$scale" \
    -Wl,--version-script="$src/harness/plugin.map" "$src/tests/ab/ab_spin.c" -o "$W/b_$pct/ab_spin.so" || exit 2
done
# the same wall budget per case: bench ab spends it on one interleaved case
# (worker starts included); the sequential method on two runs of half each
cat >"$W/ab.ini" <<INI
[run]
tier = standard
warmup_iters = 5
warmup_time = 50ms
min_samples = 10
max_samples = 1000000
min_time = 0
max_time = ${budget}s
batch_min_time = 1ms
timeout = 60s
INI
half=$(awk -v b="$budget" 'BEGIN { printf "%.3f", b / 2 - 0.3 }')
cat >"$W/seq.ini" <<INI
[run]
tier = standard
warmup_iters = 5
warmup_time = 300ms
min_samples = 10
max_samples = 1000000
min_time = ${half}s
max_time = ${half}s
batch_min_time = 1ms
timeout = 60s
INI

verdict_ab() { # OLD NEW -> verdict word
  "$bench" ab "$1" "$2" --preset "$W/ab.ini" --threshold "$threshold" --param "n=$n" \
    --results-dir "$W/res_ab" --fail-on none 2>/dev/null |
    sed -nE 's/^\[1\/1\] ab_spin .*  ([A-Z_]+)  \(.*/\1/p' | head -1
}
verdict_seq() {
  rm -rf "$W/res_seq"
  "$bench" --preset "$W/seq.ini" --plugin-dir "$1" --plugin ab_spin --param "n=$n" --tag old \
    --results-dir "$W/res_seq" >/dev/null 2>&1
  "$bench" --preset "$W/seq.ini" --plugin-dir "$2" --plugin ab_spin --param "n=$n" --tag new \
    --results-dir "$W/res_seq" >/dev/null 2>&1
  "$bench" compare "$W"/res_seq/*_old.json "$W"/res_seq/*_new.json --threshold "$threshold" \
    --fail-on none 2>/dev/null | grep -oE '\b(SAME|FASTER|SLOWER|NOISY|NO_DATA)\b' | head -1
}

declare -A hits
echo "trials $trials, budget ${budget} s per case, threshold $threshold, spin n=$n"
for load in $loads; do
  if [ "$load" = busy ]; then
    bash -c 'while :; do :; done' &
    busy_pid=$!
  fi
  for t in $(seq 1 "$trials"); do
    for pct in 0 1 2 5; do
      for m in ab seq; do
        v=$(verdict_$m "$W/b_base" "$W/b_$pct")
        key=$m/$load/$pct
        hits[$key/${v:-NONE}]=$((${hits[$key/${v:-NONE}]:-0} + 1))
        echo "trial $t load $load slowdown $pct% $m: ${v:-NONE}" >&2
      done
    done
  done
  if [ -n "$busy_pid" ]; then
    kill "$busy_pid"
    wait "$busy_pid" 2>/dev/null
    busy_pid=
  fi
done

printf '\n%-10s %-5s %13s %13s %13s %15s\n' method load "detect 1%" "detect 2%" "detect 5%" "false alarm 0%"
for m in ab seq; do
  for load in $loads; do
    row=""
    for pct in 1 2 5; do
      row+=$(printf ' %6d/%-6d' "${hits[$m/$load/$pct/SLOWER]:-0}" "$trials")
    done
    fa=0
    for v in FASTER SLOWER NO_DATA NONE; do fa=$((fa + ${hits[$m/$load/0/$v]:-0})); done
    name=$m
    [ "$m" = ab ] && name="bench ab"
    [ "$m" = seq ] && name=sequential
    printf '%-10s %-5s%s %8d/%-6d\n' "$name" "$load" "$row" "$fa" "$trials"
  done
done
