#!/usr/bin/env bash
# Catch rate and cost of the fast GEMM check (verify = fast), a benchmark,
# not a test: builds studies/gemm_check_rate.c (Release) and runs it. For
# each size N (N x N x N) and dtype f32, f16, bf16 it plants one element off
# by 2x, 5x, 10x, 20x, 50x and 100x its own full-check tolerance at corners, tile edges
# and random positions (T trials each, the four A/B layouts in turn), and
# prints how many were caught, the false positives on the correct output, and
# one check's time as a share of one f32 CPU GEMM of that size. --rows M
# checks only M rows (m = M, n = k = N: the check treats rows alone, so
# 4096 and 8192 need no N^3 CPU GEMM), e.g. --rows 64 4096 8192.
#
# usage: studies/gemm_check_rate.sh [--build DIR] [--trials T] [--positive]
#                                   [--out-f32] [--rows M] [N...]
#                                   (default 256 512 1024 2048)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-perf
args=()
sizes=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --trials|--rows) args+=("$1" "$2"); shift 2 ;;
    --positive|--out-f32) args+=("$1"); shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(256 512 1024 2048)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBENCH_HIP=OFF >/dev/null
cmake --build "$build" -j2 --target gemm_check_rate >/dev/null
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
exec "$build/bin/gemm_check_rate" "${args[@]}" "${sizes[@]}"
