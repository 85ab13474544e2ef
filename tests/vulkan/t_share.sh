#!/usr/bin/env bash
# One Vulkan instance and device per worker (bench.process/1): in the
# default isolation the first vk plugin of the worker creates the device and
# the others reuse it (info vk_device_shared), each still recording the
# device's facts; a validation error planted in a later plugin is still
# that plugin's, and the plugin before it stays clean; isolation=case and a
# harness without the extension (BENCH_NO_PROCESS_SLOTS=1) give each
# process its own device, and every case still passes.
. "$(dirname "$0")/lib.sh"
cat >"$T/p.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 1
min_samples = 2
max_samples = 3
min_time = 0
max_time = 0.1s
INI
PL=vk_smoke,vk_fill,vk_copy

# shared DIR: "<created> <reused> <other>" over every case, then whether every
# case has device, vk_device_index and vk_fp16, and the creating plugin
shared() {
  python3 - "$1" <<'PY'
import glob, json, sys
created = reused = other = 0
facts, first = True, set()
for p in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(p))["cases"]:
        s = c["info"].get("vk_device_shared", "")
        if s.startswith("created"): created += 1; first.add(c["plugin"] + ":" + s.split(": ")[1].split(" ")[0])
        elif s.startswith("reused"): reused += 1
        else: other += 1
        facts &= all(k in c["info"] for k in ("device", "vk_device_index", "vk_fp16", "vk_api"))
print(created, reused, other, "facts" if facts else "nofacts", ",".join(sorted(first)))
PY
}

run_bench --preset "$T/p.ini" --plugin "$PL" --results-dir "$T/a"
expect_rc 0 "three plugins, one worker"
check_results "$T/a" OK "" "$PL" && ok || fail "not every case OK"
got=$(shared "$T/a")
case "$got" in "1 2 0 facts "*:kept) ok ;; *) fail "one worker: expected 1 created (kept), 2 reused, facts: $got" ;; esac

run_bench --preset "$T/p.ini" --plugin "$PL" --isolation case --results-dir "$T/b"
expect_rc 0 "isolation=case"
check_results "$T/b" OK "" "$PL" && ok || fail "isolation=case: not every case OK"
got=$(shared "$T/b")
case "$got" in "3 0 0 facts "*) ok ;; *) fail "isolation=case: expected 3 created, 0 reused: $got" ;; esac

BENCH_NO_PROCESS_SLOTS=1 run_bench --preset "$T/p.ini" --plugin "$PL" --results-dir "$T/c"
expect_rc 0 "no bench.process/1"
check_results "$T/c" OK "" "$PL" && ok || fail "without the extension: not every case OK"
got=$(shared "$T/c")
case "$got" in "3 0 0 facts "*:this,*:this,*:this) ok ;; *) fail "without the extension: expected 3 own devices: $got" ;; esac

# A validation error in the second plugin of a worker is its own; the
# plugin that created the device before it stays OK.
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
mkdir -p "$T/pl"
ln -s "$PLUGINS/vk_smoke.so" "$T/pl/vk_smoke.so"
ln -s "$VK_FX/vkfx_invalid.so" "$T/pl/vkfx_invalid.so"
cat "$T/p.ini" - >"$T/v.ini" <<'INI'
[vkfx_invalid]
error = core
INI
run_bench --preset "$T/v.ini" --plugin-dir "$T/pl" --plugin vk_smoke,vkfx_invalid --results-dir "$T/d"
expect_rc 1 "a planted validation error after a good plugin"
expect_in "$T/out" "\] vk_smoke +OK " "the first plugin"
expect_in "$T/out" "vkfx_invalid error=core +ERROR +1 Vulkan validation message; the first: validation error: .*VUID-VkBufferCreateInfo-usage" "the second plugin"
got=$(shared "$T/d")
case "$got" in "1 1 0 "*) ok ;; *) fail "validation run: expected the device shared: $got" ;; esac
finish
