#!/usr/bin/env bash
# Every vk plugin under the verify preset (awkward shapes, full reference
# check, determinism) with the validation layer on (core and
# synchronization validation): exit 0, every case OK and bitwise
# deterministic, no validation message anywhere.
. "$(dirname "$0")/lib.sh"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT

run_bench --preset verify --plugin 'vk_*' --results-dir "$T/r"
expect_rc 0
check_results "$T/r" OK "" && ok || fail "verify: not every case OK and silent"
python3 - "$T/r" <<'PY' && ok || fail "checks and determinism"
import glob, json, sys
n16 = 0
for path in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(path))["cases"]:
        if c["operation"] == "none" or c["status"] == "SKIPPED":  # skips: VK_MAY_SKIP
            continue
        # a peak plugin compares with its own reference, exactly (bench.compare/1)
        method = "plugin-exact" if c["operation"] == "peak" else "full"
        assert c["check"]["checked"] and c["check"]["method"] == method, (c["plugin"], c["check"])
        assert c["determinism"] == "bitwise_equal", (c["plugin"], c["params"])
        n16 += c["params"].get("dtype") == "f16"
assert n16 > 0, "no fp16 case was checked"
PY
finish
