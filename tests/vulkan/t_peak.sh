#!/usr/bin/env bash
# The Vulkan peak plugins (issue 41: vk_peak_fma, vk_peak_bw, vk_peak_launch,
# vk_peak_coopmat), under the smoke and verify presets with the validation
# layer on (core and synchronization): every case OK, or SKIPPED with its
# reason (vk_peak_coopmat on lavapipe, which has no cooperative matrices:
# that exact line); each OK case checked by the plugin's own exact
# comparison (bench.compare/1, method plugin-exact, not plugin-self) over
# its whole output, and its result info naming the roof it measures with its
# work (GFLOP/s, GB/s, ns per dispatch); verify: bitwise deterministic.
# Without bench.roof/1 (BENCH_NO_ROOF_EXT=1) the cases still run and
# check, with no roof. The planted faults (tests/vulkan fixtures: the same
# sources with shaders built -DFAULT) end WRONG_ANSWER, every case.
. "$(dirname "$0")/lib.sh"
PEAK=vk_peak_fma,vk_peak_bw,vk_peak_launch,vk_peak_coopmat
for p in ${PEAK//,/ }; do [ -f "$PLUGINS/$p.so" ] || skip "$p is not built"; done
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT

# peak_check DIR TIER [noroof]: the cases of DIR, plugin by plugin.
peak_check() {
  python3 - "$1" "$2" "${3:-}" <<'PY'
import glob, json, re, sys
d, tier, noroof = sys.argv[1], sys.argv[2], sys.argv[3] == "noroof"
roofs = {"vk_peak_fma": ("compute", {"fp32", "fp16"}), "vk_peak_bw": ("bandwidth", {"dram"}),
         "vk_peak_launch": ("latency", {"launch"}),
         "vk_peak_coopmat": ("compute", {"fp16_matrix", "int8_matrix"})}
cases = [c for p in glob.glob(d + "/*.json") for c in json.load(open(p))["cases"]]
bad, ok, seen_roofs = [], {}, set()
lavapipe = any("llvmpipe" in c["info"].get("device", "") for c in cases)
for c in cases:
    p, name = c["plugin"], c["plugin"] + " " + json.dumps(c["params"])
    if p not in roofs:
        bad.append(f"{name}: not a peak plugin"); continue
    if c["operation"] != "peak":
        bad.append(f"{name}: operation {c['operation']}")
    if c["status"] == "SKIPPED":
        if not c.get("message"):
            bad.append(f"{name}: SKIPPED without a reason")
        if p == "vk_peak_coopmat" and lavapipe and not re.match(
                r"device llvmpipe .* lacks VK_KHR_cooperative_matrix(; this build has no "
                r"cooperative-matrix shader either: its glslc \(.*\) does not accept "
                r"GL_KHR_cooperative_matrix .*)?$", c["message"]):
            bad.append(f"{name}: SKIPPED for another reason: {c['message']}")
        if p != "vk_peak_coopmat" and lavapipe:
            bad.append(f"{name}: SKIPPED on lavapipe: {c['message']}")
        continue
    if c["status"] != "OK":
        bad.append(f"{name}: {c['status']} {c.get('message')}"); continue
    ok[p] = ok.get(p, 0) + 1
    ch, info = c["check"], c["info"]
    if not (ch["checked"] and ch["pass"] and ch["method"] == "plugin-exact" and ch["compared"] > 0
            and ch["max_abs_err"] == 0):
        bad.append(f"{name}: check {ch}")
    kind, ids = roofs[p]
    if noroof:
        if "roof" in info or "roof_kind" in info:
            bad.append(f"{name}: a roof without bench.roof/1: {info.get('roof')}")
    elif info.get("roof_kind") != kind or info.get("roof") not in ids or not info.get("roof_method"):
        bad.append(f"{name}: roof {info.get('roof')} {info.get('roof_kind')} {info.get('roof_method')}")
    else:
        seen_roofs.add(info["roof"])
    if kind == "compute" and not c.get("flops", 0) > 0:
        bad.append(f"{name}: no flops")
    if kind == "bandwidth" and not c.get("bytes", 0) > 0:
        bad.append(f"{name}: no bytes")
    if kind == "latency" and (c.get("item_unit") != "dispatches" or
                              c.get("items") != float(c["params"]["dispatches"]) or not c.get("ns_per_item", 0) > 0):
        bad.append(f"{name}: items {c.get('items')} {c.get('item_unit')} {c.get('ns_per_item')}")
    if c["timer"] != "device" and not info["vk_timestamps"].startswith("none"):
        bad.append(f"{name}: timer {c['timer']}")
    if tier == "verify" and c["determinism"] != "bitwise_equal":
        bad.append(f"{name}: determinism {c['determinism']}")
for p in ("vk_peak_fma", "vk_peak_bw", "vk_peak_launch"):
    if not ok.get(p):
        bad.append(f"{p}: no OK case")
if lavapipe:  # shaderFloat16 there: both fma roofs measured, every bw kernel
    want = set() if noroof else {"fp32", "fp16", "dram", "launch"}
    if not want <= seen_roofs:
        bad.append(f"roofs {sorted(seen_roofs)}, expected {sorted(want)}")
    n_cm = sum(1 for c in cases if c["plugin"] == "vk_peak_coopmat")
    want_cm = 3 * (2 if tier == "verify" else 1)  # types x (reps, workgroups)
    if not noroof and n_cm != want_cm:
        bad.append(f"vk_peak_coopmat: {n_cm} cases, expected {want_cm}")
print(f"{len(cases)} cases, OK per plugin {ok}, roofs {sorted(seen_roofs)}")
for b in bad:
    print("  " + b)
sys.exit(1 if bad or not cases else 0)
PY
}

for tier in smoke verify; do
  run_bench --preset "$tier" --plugin "$PEAK" --results-dir "$T/$tier"
  expect_rc 0 "$tier"
  check_results "$T/$tier" OK "" "$PEAK" && ok || fail "$tier: not every case OK (or SKIPPED as allowed) and silent"
  peak_check "$T/$tier" "$tier" && ok || fail "$tier: the peak cases"
done

# No bench.roof/1: the same cases, still checked, no roof.
BENCH_NO_ROOF_EXT=1 run_bench --preset smoke --plugin vk_peak_fma,vk_peak_launch --param dtype=f32 \
  --results-dir "$T/noroof"
expect_rc 0 "without bench.roof/1"
peak_check "$T/noroof" smoke noroof 2>/dev/null | head -1 | grep -q "cases" && ok || fail "no roof: no cases"
python3 - "$T/noroof" <<'PY' && ok || fail "without bench.roof/1: a roof, or a case unchecked"
import glob, json, sys
cs = [c for p in glob.glob(sys.argv[1] + "/*.json") for c in json.load(open(p))["cases"]]
assert len(cs) >= 3, len(cs)
for c in cs:
    assert c["status"] == "OK" and c["check"]["method"] == "plugin-exact" and c["check"]["pass"], c
    assert "roof" not in c["info"] and "roof_kind" not in c["info"], c["info"]
PY

# The planted faults: every case WRONG_ANSWER, its message naming the
# first wrong element (exact comparison), no roof taken.
FX=vkfx_peak_fma_skip,vkfx_peak_fma_short,vkfx_peak_bw_skip,vkfx_peak_launch_skip
run_bench --preset smoke --plugin-dir "$VK_FX" --plugin "$FX" --results-dir "$T/fault"
expect_rc 1 "planted faults"
check_results "$T/fault" WRONG_ANSWER "elements out of tolerance; first at .* \(exact\)" "$FX" \
  && ok || fail "planted faults: not every case WRONG_ANSWER"
python3 - "$T/fault" <<'PY' && ok || fail "planted faults: the cases"
import glob, json, sys
cs = [c for p in glob.glob(sys.argv[1] + "/*.json") for c in json.load(open(p))["cases"]]
n = {}
for c in cs:
    n[c["plugin"]] = n.get(c["plugin"], 0) + 1
    assert c["check"]["checked"] and not c["check"]["pass"] and c["check"]["method"] == "plugin-exact", c
# fma: f32, f16 x scalar, vec4; bw: copy, read, write; launch: one
assert n == {"vkfx_peak_fma_skip": 4, "vkfx_peak_fma_short": 4, "vkfx_peak_bw_skip": 3,
             "vkfx_peak_launch_skip": 1}, n
PY
finish
