#!/usr/bin/env bash
# A case that needs more than the device allows is SKIPPED naming the limit
# (never a crash or a driver error); a malformed tile is an ERROR.
. "$(dirname "$0")/lib.sh"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
cat >"$T/p.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 1
min_samples = 2
max_samples = 3
min_time = 0
max_time = 0.1s
[vk_fill]
size = 5GiB
[vk_gemm_tiled]
m = 64
n = 64
k = 64
dtype = f32
tile = 64x64x64_1x1,256x256x64_16x16,64x64x8_4x4
INI

status() {
  python3 - "$T/r" "$1" "$2" <<'PY'
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(path))["cases"]:
        if c["plugin"] == sys.argv[2] and sys.argv[3] in " ".join(f"{k}={v}" for k, v in c["params"].items()):
            print(c["status"], c["message"])
PY
}

run_bench --preset "$T/p.ini" --plugin vk_fill,vk_gemm_tiled --results-dir "$T/r"
expect_rc 0
case "$(status vk_fill size=5GiB)" in "SKIPPED dst: needs a 5120.0 MiB storage buffer, over maxStorageBufferRange = "*) ok ;;
  *) fail "vk_fill 5GiB: $(status vk_fill size=5GiB)" ;; esac
case "$(status vk_gemm_tiled tile=64x64x64_1x1)" in "SKIPPED workgroup "*4096*" is over maxComputeWorkGroup"*) ok ;;
  *) fail "4096 invocations: $(status vk_gemm_tiled tile=64x64x64_1x1)" ;; esac
case "$(status vk_gemm_tiled tile=256x256x64_16x16)" in "SKIPPED needs 131072 bytes of shared memory, over maxComputeSharedMemorySize"*) ok ;;
  *) fail "shared memory: $(status vk_gemm_tiled tile=256x256x64_16x16)" ;; esac
case "$(status vk_gemm_tiled tile=64x64x8_4x4)" in "OK "*) ok ;; *) fail "fitting tile: $(status vk_gemm_tiled tile=64x64x8_4x4)" ;; esac

sed -i 's/^tile = .*/tile = 64x64/' "$T/p.ini"
run_bench --preset "$T/p.ini" --plugin vk_gemm_tiled --results-dir "$T/r2"
expect_rc 1 "malformed tile"
expect_in "$T/out" "ERROR +tile = '64x64': expected BMxBNxBK_TMxTN" "malformed tile message"
finish
