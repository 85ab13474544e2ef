#!/usr/bin/env bash
# ns per iteration of small Vulkan kernels with and without run_batch:
# vk_smoke (one invocation) and vk_gemm 16x16x16 f32 (one 16x16 workgroup).
#   studies/vk_batch_ns.sh [BUILD_DIR] [N]      (default build, 100)
# 1. helper level (studies/vk_batch_ns.c, no harness): run() 2000 times
#    (one submit and wait each) against run_batch(N) (N dispatches per
#    submit), medians of 15 repetitions, host and device ns per iteration.
# 2. through bench: the plugins as built (run_batch) and copies built on the
#    installed SDK without run_batch, under batch = warm (batched samples:
#    run_batch, or N x run() for the copies) and batch = cold (one run()
#    per sample); median host and device ns per iteration from the JSON.
# Prints the CPU and the load; the figures depend on both.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/lib/machine.sh"
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
N=${2:-100}
P=$BUILD/lib/bench/plugins
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "cpu: $(machine_cpu_model), $(machine_cpus) cpus"
echo "load: $(uptime | sed 's/.*load average: //')"

echo "== helper level: batches of $N"
cmake --build "$BUILD" --target vk_batch_ns >/dev/null
nice "$BUILD/bin/vk_batch_ns" "$P/vk_smoke.so" "$N" 2>/dev/null
nice "$BUILD/bin/vk_batch_ns" "$P/vk_gemm.so" "$N" m=16 n=16 k=16 dtype=f32 2>/dev/null

echo "== through bench (batch_min_time 2ms decides the batch)"
cmake --install "$BUILD" --prefix "$T/prefix" >/dev/null
export PKG_CONFIG_PATH=$T/prefix/lib/pkgconfig
mkdir "$T/nb"
for p in vk_smoke vk_gemm; do
  sed -e '/\.run_batch = /d' -e "s/\"$p\"/\"${p}_nobatch\"/" "$ROOT/plugins/vulkan/$p.c" >"$T/nb/$p.c"
done
flags="-std=c11 -O2 $(pkg-config --cflags bench-vulkan) -I$T/prefix/include/bench -I$ROOT/plugins/vulkan -I$BUILD/plugins/vulkan/spv -shared -fPIC"
cc $flags "$T/nb/vk_smoke.c" -o "$T/nb/vk_smoke_nobatch.so" $(pkg-config --libs bench-vulkan)
cc $flags "$T/nb/vk_gemm.c" "$ROOT/plugins/vulkan/vk_gemm_problem.c" -o "$T/nb/vk_gemm_nobatch.so" $(pkg-config --libs bench-vulkan)
for mode in warm cold; do
  printf '[run]\ntier = smoke\nwarmup_iters = 50\nmin_samples = 30\nmax_samples = 200\nmin_time = 1s\nmax_time = 3s\ntarget_noise = 1%%\nbatch_min_time = 2ms\nbatch = %s\nverify = none\n' \
    $mode >"$T/$mode.ini"
  (cd "$T" && nice "$T/prefix/bin/bench" --preset "$T/$mode.ini" --plugin-dir "$T/nb" --results-dir "$T/r-$mode" \
     --plugin vk_smoke,vk_smoke_nobatch,vk_gemm,vk_gemm_nobatch \
     --param m=16 --param n=16 --param k=16 --param dtype=f32 >/dev/null 2>&1) || true
done
python3 - "$T" <<'PY'
import glob, json, sys
t = sys.argv[1]
print(f"{'plugin':18} {'batch mode':10} {'iters/sample':>12} {'host ns/iter':>13} {'device ns/iter':>15}")
for mode in ("warm", "cold"):
    for f in sorted(glob.glob(f"{t}/r-{mode}/*.json")):
        for c in json.load(open(f))["cases"]:
            h, d = c.get("host") or {}, c.get("device") or {}
            print(f"{c['plugin']:18} {mode:10} {c['batch']:>12} {h.get('median', 0):>13.0f} {d.get('median', 0):>15.0f}  {c['status']}")
PY
echo "load after: $(uptime | sed 's/.*load average: //')"
