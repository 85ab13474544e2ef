#!/usr/bin/env bash
# One size grammar on every backend (<bench/params.h>): the same size text
# gives the same bytes, so the same element count, on the CPU's membw_cpu
# (copy) and Vulkan's vk_copy; binary K/KiB, decimal KB, fractions. A bad
# size fails alike on both with the one message; a cache-relative size is
# the CPU plugins' only, and vk_copy says so.
. "$(dirname "$0")/lib.sh"
[ -e "$PLUGINS/vk_copy.so" ] && [ -e "$PLUGINS/membw_cpu.so" ] || { echo "vk_copy or membw_cpu not built: skipped"; exit 77; }

# Multiples of 16 bytes (vk_copy rounds up to 16, membw_cpu down to 8).
SIZES="4K,4KiB,4KB,1.5KiB,64KB,1M,1MB,2MiB,0.25MiB"
cat >"$T/p.ini" <<INI
[run]
tier = smoke
warmup_iters = 1
min_samples = 2
max_samples = 2
min_time = 0
max_time = 0.05s
batch_min_time = 0
[membw_cpu]
kernel = copy
threads = 1
size = $SIZES,1kb,L2/2
[vk_copy]
size = $SIZES,1kb,L2/2
INI
run_bench --preset "$T/p.ini" --plugin membw_cpu,vk_copy --results-dir "$T/r"
expect_rc 1 "the bad sizes fail their cases"
python3 - "$T/r" "$SIZES" <<'PY' && ok || fail "bytes per size text differ between cpu and vulkan"
import glob, json, sys
want = {"4K": 4096, "4KiB": 4096, "4KB": 4000, "1.5KiB": 1536, "64KB": 64000, "1M": 1 << 20,
        "1MB": 10**6, "2MiB": 2 << 20, "0.25MiB": 1 << 18}
assert sorted(want) == sorted(sys.argv[2].split(",")), "the list above and SIZES differ"
got = {}
for path in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(path))["cases"]:
        got[(c["plugin"], c["params"]["size"])] = c
for text, b in want.items():
    cpu, vk = got[("membw_cpu", text)], got[("vk_copy", text)]
    assert cpu["status"] == "OK" and vk["status"] == "OK", (text, cpu["status"], vk["status"])
    # copy reads and writes each byte once: 2 x the array on both
    assert cpu["bytes"] == vk["bytes"] == 2 * b, (text, cpu["bytes"], vk["bytes"], 2 * b)
    assert int(cpu["info"]["array_bytes"]) == b, (text, cpu["info"])
    # elements: 8-byte doubles on the cpu, 4-byte floats on vulkan
    print(f"{text:8} {b:8} bytes: membw_cpu {b // 8} f64, vk_copy {b // 4} f32")
for p in ("membw_cpu", "vk_copy"):
    c = got[(p, "1kb")]
    assert c["status"] == "ERROR" and c["message"].startswith("size '1kb': not a size (4096, 64KiB"), c
c = got[("membw_cpu", "L2/2")]
assert c["status"] == "OK", c
c = got[("vk_copy", "L2/2")]
assert c["status"] == "ERROR" and "sizes relative to the caches" in c["message"], c
PY
finish
