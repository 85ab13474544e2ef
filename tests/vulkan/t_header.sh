#!/usr/bin/env bash
# The result header of a Vulkan run names the physical device, its driver
# and driver version, the Vulkan API version, the device type, the subgroup
# size, the memory heaps, the buffer path and the timestamps, in the .txt
# header and in every case's JSON info, each the value the device reports
# (read back with vulkaninfo where it is installed). A queue without
# timestamps (BENCH_VK_NO_TIMESTAMPS=1, a test hook) is timed on the host
# and says so.
. "$(dirname "$0")/lib.sh"

run_bench --preset smoke --plugin vk_smoke,vk_copy --results-dir "$T/r"
expect_rc 0
txts=("$T"/r/*.txt)
expect_nonempty ".txt files" "${txts[@]}"
for f in "${txts[@]}"; do
  for re in '^device +[^ -]' '^driver +[^ -]' \
      '^driver version +[0-9]+\.[0-9]+\.[0-9]+(\.[0-9]+)? \(0x[0-9a-f]{8}\)$' \
      '^vulkan api +1\.[0-9]+\.[0-9]+$' \
      '^device type +(discrete GPU|integrated GPU|virtual GPU|CPU|other), vendor 0x[0-9a-f]+, device 0x[0-9a-f]+$' \
      '^subgroup size +[0-9]+$' '^memory heaps +[0-9]+ MiB' '^buffers +(direct|staging): ' \
      '^timestamps +[0-9]+ valid bits, [0-9.e+-]+ ns per tick$'; do
    expect_in "$f" "$re" "$(basename "$f")"
  done
done
python3 - "$T/r" <<'PY' && ok || fail "JSON info lacks a device fact"
import glob, json, re, sys
n = 0
for path in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(path))["cases"]:
        n += 1
        i = c["info"]
        for key in ("device", "driver", "vk_driver_version", "vk_api", "vk_device_type",
                    "vk_subgroup_size", "vk_memory_heaps", "vk_memory", "vk_timestamps"):
            assert i.get(key), (c["plugin"], key, i)
        assert re.fullmatch(r"[0-9]+", i["vk_subgroup_size"]), i
        assert c["timer"] == "device", (c["plugin"], c["timer"])
assert n > 0, "no cases"
PY

# Against the device's own report, where vulkaninfo is there.
if command -v vulkaninfo >/dev/null; then
  vulkaninfo 2>/dev/null >"$T/vi"
  f=${txts[0]}
  name=$(sed -n 's/^device \{1,\}//p' "$f" | head -1)
  grep -Fq "deviceName        = $name" "$T/vi" && ok || fail "device '$name' is not vulkaninfo's"
  sg=$(sed -n 's/^subgroup size \{1,\}//p' "$f")
  grep -Eq "^[[:space:]]*subgroupSize[[:space:]]+= $sg\$" "$T/vi" && ok || fail "subgroup size $sg is not vulkaninfo's"
  dv=$(sed -n 's/^driver version \{1,\}\([0-9.]*\) (0x[0-9a-f]*)$/\1/p' "$f")
  grep -Eq "driverVersion[[:space:]]+= $dv " "$T/vi" && ok || fail "driver version '$dv' is not vulkaninfo's"
fi

BENCH_VK_NO_TIMESTAMPS=1 run_bench --preset smoke --plugin vk_copy --results-dir "$T/h"
expect_rc 0 "no timestamps"
check_results "$T/h" OK "" vk_copy && ok || fail "no timestamps: not OK"
expect_in "$(ls "$T"/h/*.txt | head -1)" '^timestamps +none on the compute queue \(timestampValidBits 0\): host time$' \
  "no timestamps .txt"
python3 - "$T/h" <<'PY' && ok || fail "no timestamps: not timed on the host"
import glob, json, sys
cs = [c for p in glob.glob(sys.argv[1] + "/*.json") for c in json.load(open(p))["cases"]]
assert cs and all(c["timer"] == "host" for c in cs), [c["timer"] for c in cs]
PY
finish
