#!/usr/bin/env bash
# bench tune's benchmark (issue 25; a benchmark, not a test):
# 1. On the fx_tune fixture (64 configurations, optimum tx=5 ty=3, tx=8 ty=1
#    fast but wrong, tx=8 ty=8 over the device limit; 15% relative noise,
#    one iteration per sample), at the same confidence (the median's 95%
#    interval within 0.5% for the winner): the wall time of
#    --strategy halving against the exhaustive --strategy grid, the pick of
#    each, and the picks of N reruns of halving (each from an empty cache).
#    Passes when halving <= 30% of grid's time, never picks tx=8 ty=1, and
#    every rerun picks the same configuration.
# 2. cpu_gemm's packed blocking (mc, kc, nc) tuned at 2048^3 f32 on this
#    machine against its defaults (0 = sized from the caches): the speedup
#    of the winner over the default, with its interval (1.000x, no gain, is
#    an honest answer).
#
# usage: studies/tune_bench.sh [--build DIR] [--reruns N] [--gemm-size N] [--budget DURATION]
#   --build     build folder (default build; bench in DIR/bin, fixtures in DIR/tests/fixtures)
#   --reruns    halving reruns for the same-pick check (default 10)
#   --gemm-size m = n = k of the cpu_gemm problem (default 2048)
#   --budget    bench tune --budget for cpu_gemm (default 10m)
#   --only      fixture | gemm: one part only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
reruns=10
size=2048
budget=10m
only=
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$2" && pwd); shift ;;
    --reruns) reruns=$2; shift ;;
    --gemm-size) size=$2; shift ;;
    --budget) budget=$2; shift ;;
    --only) only=$2; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "tune_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
bench=$build/bin/bench
fx=$build/tests/fixtures/tune
[ -x "$bench" ] || { echo "tune_bench.sh: no $bench (build first)" >&2; exit 2; }
[ -f "$fx/fx_tune.so" ] || { echo "tune_bench.sh: no $fx/fx_tune.so" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/tune_bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/xdg
cat >"$T/tight.ini" <<'INI'
[run]
tier = standard
batch = cold
target_noise = 0.5%
min_samples = 5
max_samples = 3000
max_time = 30s
INI
fxargs=(--plugin fx_tune --plugin-dir "$fx" --preset "$T/tight.ini" --param noise=0.15)

# one STRATEGY FILE: tune from an empty cache; prints "wall winner"
one() {
  rm -f "$2" "$2.lock"
  local t0 t1
  t0=$(date +%s.%N)
  "$bench" tune "${fxargs[@]}" --strategy "$1" --tuning-file "$2" >"$2.out" 2>&1 || {
    echo "tune_bench.sh: bench tune --strategy $1 failed:" >&2; cat "$2.out" >&2; exit 1; }
  t1=$(date +%s.%N)
  printf '%.2f %s\n' "$(echo "$t1 - $t0" | bc)" \
    "$(sed -n 's/.*: winner \(tx=[0-9] ty=[0-9]\) .*/\1/p' "$2.out" | tr ' ' _)"
}

verdict=PASS
if [ "$only" != gemm ]; then
echo "== fx_tune: halving vs grid (machine: $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
read -r gwall gpick < <(one grid "$T/grid.tsv")
printf '%-9s %8s s  pick %s\n' grid "$gwall" "$gpick"
picks=()
walls=()
for i in $(seq 1 "$reruns"); do
  read -r w p < <(one halving "$T/h$i.tsv")
  walls+=("$w")
  picks+=("$p")
  printf '%-9s %8s s  pick %s\n' "halving$i" "$w" "$p"
done
hmed=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
ratio=$(echo "scale=4; $hmed / $gwall" | bc)
distinct=$(printf '%s\n' "${picks[@]}" | sort -u | wc -l)
wrong=$(printf '%s\n' "${picks[@]}" "$gpick" | grep -c '^tx=8_ty=1$' || true)
echo
printf '| strategy | wall (s) | pick | note |\n|---|---|---|---|\n'
printf '| grid | %s | %s | every candidate to 0.5%% |\n' "$gwall" "${gpick//_/ }"
printf '| halving (median of %d) | %s | %s | %d distinct pick(s) in %d reruns |\n' "$reruns" "$hmed" \
  "${picks[0]//_/ }" "$distinct" "$reruns"
printf 'halving / grid wall time: %.1f%% (target <= 30%%); wrong picks: %d\n' \
  "$(echo "$ratio * 100" | bc)" "$wrong"
[ "$(echo "$ratio <= 0.30" | bc)" = 1 ] || verdict=FAIL
[ "$distinct" = 1 ] && [ "$wrong" = 0 ] || verdict=FAIL
echo "fx_tune: $verdict"
fi
[ "$only" = fixture ] && { [ "$verdict" = PASS ]; exit; }

echo
echo "== cpu_gemm blocking at ${size}^3 f32 (packed), budget $budget"
"$bench" tune --plugin cpu_gemm --preset standard --param variant=packed --param m=$size \
  --param n=$size --param k=$size --param dtype=f32 --param threads=0 --param isa=auto \
  --strategy halving --budget "$budget" --tuning-file "$T/gemm.tsv" | tee "$T/gemm.out" | grep -v '^tune: '
[ "$verdict" = PASS ]
