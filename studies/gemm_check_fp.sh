#!/usr/bin/env bash
# False WRONG_ANSWERs of the fast GEMM check (verify = fast) on correct
# GEMMs, a benchmark, not a test: builds studies/gemm_check_fp.c (Release)
# and runs it. N correct cases (default 10000): mixed shapes (tiny, odd,
# non-square, k >> n), f32/f16/bf16 inputs with outputs of the same type or
# f32, inputs uniform, positive or with rows and columns scaled by powers of
# 2, accumulated in f32 in orders other than the reference (sequential,
# reversed k, blocked, pairwise, fmaf, four lanes), each checked in the four
# A/B layouts. Prints the false WRONG_ANSWER count (must be 0; exit 1 if not).
#
# usage: studies/gemm_check_fp.sh [--build DIR] [--cases N] [--seed S]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-perf
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --cases|--seed) args+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "gemm_check_fp.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBENCH_HIP=OFF >/dev/null
cmake --build "$build" -j2 --target gemm_check_fp >/dev/null
exec "$build/bin/gemm_check_fp" "${args[@]}"
