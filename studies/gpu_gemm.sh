#!/usr/bin/env bash
# Matrix-core GEMM on a lent NVIDIA GPU (issue 44): the one prepared script
# to run there, from a build made here and carried over (never changes the
# device's clocks, power limits or persistence). Writes raw results only;
# studies/gpu_gemm_tables.py turns them into the closing note's table back
# on this machine.
#
#   1. verify: the verify preset's full reference check of cuda_gemm (every
#      variant, tile and edge shape of the preset) and cuda_attention;
#   2. tune: bench tune of cuda_gemm's variant=mma (tile, warps, stages) and
#      wgmma (tile, stages) at 4096^3 and 8192^3, f16 and bf16, into a
#      tuning file of this run;
#   3. perf: tiled, mma and wgmma (the tuned layouts) and cublas, f16 and bf16, at
#      4096^3 and 8192^3 under the perf tier, cuda_attention (tiled and
#      mma, f16 and bf16) at seq 4096, head_dim 128, and cuda_peak_matrix
#      (the tensor-core roof).
#
# usage: studies/gpu_gemm.sh OUT_DIR [BUILD_DIR] [TUNE_BUDGET]
#   BUILD_DIR    the carried build (default: build); needs bin/bench and the
#                cuda_* plugins
#   TUNE_BUDGET  bench tune's budget per size (default 80s)
# Takes about 7 minutes on an H100 (steps 1-3: 50 s, 2 x 80 s, 200 s).
set -uo pipefail
out=${1:?usage: studies/gpu_gemm.sh OUT_DIR [BUILD_DIR] [TUNE_BUDGET]}
build=${2:-build}
budget=${3:-80s}
secs=${budget%s}
[[ $secs =~ ^[0-9]+$ ]] || { echo "gpu_gemm.sh: TUNE_BUDGET in seconds (80s), not $budget" >&2; exit 2; }
half=$((secs / 2))s
bench="$build/bin/bench"
[ -x "$bench" ] || { echo "gpu_gemm.sh: no bench at $bench" >&2; exit 2; }
mkdir -p "$out"
log="$out/gpu_gemm.log"
tuning="$out/tuning.tsv"
step() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$log"; }
run() { echo "\$ $*" >>"$log"; "$@" >>"$log" 2>&1; echo "rc $?" >>"$log"; }

step "machine"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,persistence_mode,clocks_throttle_reasons.active --format=csv 2>&1
  grep -m1 "model name" /proc/cpuinfo; nproc; uname -srm
} >"$out/machine.txt" 2>&1

step "1. verify: cuda_gemm, cuda_attention"
run "$bench" --preset verify --plugin cuda_gemm --plugin cuda_attention --results-dir "$out/verify"

sizes="4096 8192"
step "2. tune cuda_gemm variant=mma and wgmma at $sizes (budget $budget each)"
# warps is mma's alone: wgmma is tuned over tile and stages (half the budget each)
for s in $sizes; do
  run "$bench" tune --plugin cuda_gemm --preset perf --tuning-file "$tuning" --budget "$half" \
    --param variant=mma --param dtype=f16,bf16 --param m=$s --param n=$s --param k=$s \
    --param tile=auto --param warps=auto --param stages=auto
  run "$bench" tune --plugin cuda_gemm --preset perf --tuning-file "$tuning" --budget "$half" \
    --param variant=wgmma --param dtype=f16,bf16 --param m=$s --param n=$s --param k=$s \
    --param tile=auto --param stages=auto
done

step "3. perf: tiled, mma and wgmma (tuned), cublas at $sizes; attention; tensor-core peak"
for s in $sizes; do
  run "$bench" --preset perf --plugin cuda_gemm --tuning-file "$tuning" --results-dir "$out/perf/$s" \
    --param variant=tiled,tiled,mma,mma,wgmma,wgmma,cublas,cublas \
    --param dtype=f16,bf16,f16,bf16,f16,bf16,f16,bf16 \
    --param m=$s --param n=$s --param k=$s --param tile=auto --param warps=auto --param stages=auto
done
run "$bench" --preset perf --plugin cuda_attention --results-dir "$out/perf/attention" \
  --param seq=4096 --param head_dim=128 --param variant=tiled,tiled,mma,mma --param dtype=f16,bf16,f16,bf16
run "$bench" --preset perf --plugin cuda_peak_matrix --results-dir "$out/perf/peak"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv \
  >>"$out/machine.txt" 2>&1

step "done"
