#!/usr/bin/env bash
# Every vk plugin under the smoke preset with the validation layer on (core
# and synchronization validation): exit 0, every case OK, no validation
# message anywhere.
. "$(dirname "$0")/lib.sh"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT

run_bench --preset smoke --plugin 'vk_*' --results-dir "$T/r"
expect_rc 0
check_results "$T/r" OK "" && ok || fail "smoke: not every case OK and silent"
python3 - "$T/r" <<'PY' && ok || fail "result info"
import glob, json, sys
n = 0
for path in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(path))["cases"]:
        if c["status"] == "SKIPPED":  # allowed by check_results (VK_MAY_SKIP)
            continue
        n += 1
        i = c["info"]
        assert i["vk_validation"] == "on", (c["plugin"], i)
        for key in ("device", "driver", "vk_api", "vk_driver_version", "vk_memory"):
            assert i.get(key), (c["plugin"], key)
        # device timestamps on every sample where the queue has them
        if not i["vk_timestamps"].startswith("none"):
            assert c["timer"] == "device", c["plugin"]
            assert all(d > 0 for d in c["samples"]["device_ns"]), c["plugin"]
assert n > 0, "no cases"
PY
finish
