#!/usr/bin/env bash
# A Vulkan rule broken on purpose (the vkfx_invalid fixture) fails the case
# with the validation layer's message: core validation (a buffer with usage
# 0) and synchronization validation (a fill, then a
# dispatch writing the same buffer without a barrier). Done right, the same is silent.
. "$(dirname "$0")/lib.sh"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
preset() {
  cat >"$T/$1.ini" <<INI
[run]
tier = smoke
warmup_iters = 1
min_samples = 2
max_samples = 3
min_time = 0
max_time = 0.1s
[vkfx_invalid]
error = $1
INI
}
preset core; preset sync; preset none

run_bench --preset "$T/core.ini" --plugin-dir "$VK_FX" --plugin vkfx_invalid --results-dir "$T/r1"
expect_rc 1 "buffer usage 0"
expect_in "$T/out" "vkfx_invalid error=core  *ERROR +1 Vulkan validation message; the first: validation error: .*VUID-VkBufferCreateInfo-usage" "core"

export VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
run_bench --preset "$T/sync.ini" --plugin-dir "$VK_FX" --plugin vkfx_invalid --results-dir "$T/r2"
expect_rc 1 "missing barrier under synchronization validation"
expect_in "$T/out" "vkfx_invalid error=sync  *ERROR .*SYNC-HAZARD-WRITE-AFTER-WRITE" "sync"

run_bench --preset "$T/none.ini" --plugin-dir "$VK_FX" --plugin vkfx_invalid --results-dir "$T/r3"
expect_rc 0 "done right"
expect_in "$T/out" "vkfx_invalid error=none  *OK" "none"
finish
