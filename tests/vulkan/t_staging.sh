#!/usr/bin/env bash
# The staging path (device-local buffers, copies through host-visible
# staging buffers), forced with BENCH_VK_MEMORY=staging on a device that
# would use host-visible memory directly: under the smoke preset, with the
# validation layer on, one plugin of each kind of buffer use (the helpers
# are the same for all): uploads of random inputs, padded uploads, several
# outputs read back, self-checked readbacks, run-time compiled pipelines.
. "$(dirname "$0")/lib.sh"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
export BENCH_VK_MEMORY=staging

plugins=vk_smoke,vk_copy,vk_gemm_f16acc32,vk_softmax_tiled,vk_layernorm_rmsnorm_fused
[ -f "$PLUGINS/vk_gemm_auto.so" ] && plugins+=,vk_gemm_auto
run_bench --preset smoke --plugin "$plugins" --results-dir "$T/r"
expect_rc 0
check_results "$T/r" OK "" "$plugins" && ok || fail "staging: not every case OK and silent"
python3 - "$T/r" <<'PY' && ok || fail "vk_memory is not staging"
import glob, json, sys
n = 0
for path in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(path))["cases"]:
        n += 1
        assert c["info"]["vk_memory"].startswith("staging"), c["info"]
assert n > 0, "no cases"
PY
finish
