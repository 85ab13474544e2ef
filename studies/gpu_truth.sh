#!/usr/bin/env bash
# GPU truth on a lent NVIDIA GPU (issue 38): the one prepared script to run
# there, in one go, from a build made here and carried over (never changes
# the device's clocks, power limits or persistence). Writes raw results only;
# studies/gpu_truth_tables.py turns them into the tables of the closing note
# and results/baselines/<machine>/README.md, back on this machine.
#
#   1. the standard preset of cuda_* and vk_* with telemetry (the baseline);
#   2. five standard runs of cuda_* in a row, and `bench compare` of each
#      run against the next (self-compare: every FASTER/SLOWER is a false
#      alarm; the per-case spread of the medians comes from the files);
#   3. the planted 5% slowdown: cuda_planted built as is and with 5% more
#      work (build/studies/planted/{base,slow5}), one standard run each,
#      twice, compared one run a side (default threshold and 2%), and base
#      against base;
#   4. one sustained case: cuBLAS f16 GEMM at 8192^3 sampled for 60 s under
#      the perf tier, and what telemetry saw over it.
#
# usage: studies/gpu_truth.sh OUT_DIR [BUILD_DIR]
#   BUILD_DIR   the carried build (default: build); needs bin/bench, the
#               cuda_* and vk_* plugins, studies/planted/{base,slow5}
# Takes about 6 minutes on an H100 (steps 1-4: 60 s, 150 s, 60 s, 75 s).
set -uo pipefail
out=${1:?usage: studies/gpu_truth.sh OUT_DIR [BUILD_DIR]}
build=${2:-build}
bench="$build/bin/bench"
[ -x "$bench" ] || { echo "gpu_truth.sh: no bench at $bench" >&2; exit 2; }
mkdir -p "$out"
log="$out/gpu_truth.log"
step() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$log"; }
run() { echo "\$ $*" >>"$log"; "$@" >>"$log" 2>&1; echo "rc $?" >>"$log"; }

step "machine"
{
  nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.max.sm,clocks.sm,power.limit,persistence_mode,compute_mode,clocks_throttle_reasons.active --format=csv 2>&1
  nvidia-smi -q -d CLOCK,POWER,TEMPERATURE,PERFORMANCE 2>&1 | head -120
  grep -m1 "model name" /proc/cpuinfo; nproc; uname -srm
} >"$out/machine.txt" 2>&1

step "1. standard preset, cuda_* and vk_*"
run "$bench" --preset standard --plugin 'cuda_*' --plugin 'vk_*' --results-dir "$out/standard" --tag gpu_truth

step "2. five standard runs of cuda_*"
for i in 1 2 3 4 5; do
  run "$bench" --preset standard --plugin 'cuda_*' --results-dir "$out/repeat/$i"
done
for i in 1 2 3 4; do
  j=$((i + 1))
  run "$bench" compare "$out/repeat/$i" "$out/repeat/$j" --format json --fail-on none \
    >"$out/repeat/compare_${i}_${j}.json" 2>>"$log"
  "$bench" compare "$out/repeat/$i" "$out/repeat/$j" --fail-on none >"$out/repeat/compare_${i}_${j}.txt" 2>&1
done

step "3. planted 5% slowdown (cuda_planted)"
for round in 1 2; do
  for v in base slow5; do
    run "$bench" --preset standard --plugin-dir "$build/studies/planted/$v" --plugin cuda_planted \
      --results-dir "$out/planted/$v$round"
  done
done
for round in 1 2; do
  for th in 5% 2%; do
    "$bench" compare "$out/planted/base$round" "$out/planted/slow5$round" --threshold "$th" --fail-on none \
      >"$out/planted/compare_slow5_${round}_${th%\%}.txt" 2>&1
    "$bench" compare "$out/planted/base$round" "$out/planted/slow5$round" --threshold "$th" --fail-on none \
      --format json >"$out/planted/compare_slow5_${round}_${th%\%}.json" 2>>"$log"
  done
done
"$bench" compare "$out/planted/base1" "$out/planted/base2" --threshold 2% --fail-on none \
  >"$out/planted/compare_base_base_2.txt" 2>&1
"$bench" compare "$out/planted/base1" "$out/planted/base2" --threshold 2% --fail-on none --format json \
  >"$out/planted/compare_base_base_2.json" 2>>"$log"

step "4. sustained: cuBLAS f16 GEMM 8192^3, 60 s"
cat >"$out/sustained.ini" <<'EOF'
; 60 s of samples of one case (studies/gpu_truth.sh)
[run]
tier = perf
warmup_time = 2s
min_samples = 10
max_samples = 100000000
min_time = 60s
max_time = 60s
target_noise = 0.00001
timeout = 5min
EOF
run "$bench" --preset "$out/sustained.ini" --plugin cuda_gemm --param variant=cublas --param dtype=f16 \
  --param m=8192 --param n=8192 --param k=8192 --results-dir "$out/sustained"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv \
  >>"$out/machine.txt" 2>&1

step "done"
