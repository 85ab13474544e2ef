#!/usr/bin/env bash
# The staging path (device-local buffers, copies through host-visible
# staging buffers), forced with BENCH_VK_MEMORY=staging on a device that
# would use host-visible memory directly: every vk plugin under the smoke
# preset with the validation layer (synchronization checks on), every case
# OK and its info and .txt header saying staging; then the same device
# without the hook says direct.
. "$(dirname "$0")/lib.sh"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT

plugins=$(vk_plugins | paste -sd,)
expect_nonempty "vk plugins" $(vk_plugins)
memory_is() { # DIR PREFIX: every case's info.vk_memory starts with PREFIX
  python3 - "$1" "$2" <<'PY'
import glob, json, sys
n = 0
for path in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(path))["cases"]:
        n += 1
        assert c["info"]["vk_memory"].startswith(sys.argv[2]), (c["plugin"], c["info"])
assert n > 0, "no cases"
PY
}
BENCH_VK_MEMORY=staging run_bench --preset smoke --plugin "$plugins" --results-dir "$T/r"
expect_rc 0
check_results "$T/r" OK "" "$plugins" && ok || fail "staging: not every case OK and silent"
memory_is "$T/r" staging && ok || fail "vk_memory is not staging"
n=0
for f in "$T"/r/*.txt; do
  n=$((n + 1))
  grep -Eq '^buffers +staging: device-local buffers' "$f" || fail "$f: no staging line in the header"
done
[ "$n" -gt 0 ] && ok || fail "no .txt files"

# lavapipe: one heap, device-local and host-visible: direct without the hook.
run_bench --preset smoke --plugin vk_copy,vk_softmax_tiled --results-dir "$T/d"
expect_rc 0 "direct"
memory_is "$T/d" direct && ok || fail "vk_memory is not direct on a one-heap device"
finish
