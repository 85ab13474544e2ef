#!/usr/bin/env bash
# ns per iteration of small Vulkan kernels, one submit and wait per
# iteration (run) against N iterations in one command buffer (run_batch):
# vk_smoke (one invocation) and vk_gemm 16x16x16 (one 16x16 workgroup).
#   scripts/vk_batch_ns.sh [BUILD_DIR] [N]      (default build, 100)
# Prints the CPU, the load and the figures; numbers depend on both.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
N=${2:-100}
P=$BUILD/lib/bench/plugins
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -std=c11 -O2 -Wall -Wextra -I"$ROOT/harness/include" "$ROOT/scripts/vk_batch_ns.c" -o "$T/vk_batch_ns" -ldl
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "load: $(uptime | sed 's/.*load average: //')"
echo "batch: $N iterations per submit"
nice "$T/vk_batch_ns" "$P/vk_smoke.so" "$N"
nice "$T/vk_batch_ns" "$P/vk_gemm.so" "$N" m=16 n=16 k=16 dtype=f32
