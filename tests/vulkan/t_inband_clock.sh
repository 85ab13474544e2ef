#!/usr/bin/env bash
# The device's name and in-band clock (bench.device/1, plugins/vulkan/vkh/vkh_clock.c)
# on lavapipe, which has VK_KHR_shader_clock and timestamps but no PCI bus:
#   - vk_inproc offering bench.device/1: set_device once with no bus id and
#     no default clock; no set_clock (a CPU device's clock is a time
#     counter), and the facts say why;
#   - BENCH_VK_CLOCK_ON_CPU=1 (test hook) under the validation layer: the
#     whole path runs, silent; at most one set_clock per timed call, each a
#     figure the harness takes, lavapipe's nanosecond counter reading about
#     1000 MHz (the host's TSC would read its own rate);
#   - the same for every vk plugin, and on a device shared through
#     bench.process/1;
#   - a 1.0 host (no extension): no call, and the fact says nothing is
#     measured;
#   - through bench: the facts in every case's JSON, and an existing plugin
#     still device-timed and verified, hook or not.
. "$(dirname "$0")/lib.sh"
inproc_keep # for LeakSanitizer in the ASan build

inproc() { # what, then vk_inproc's arguments
  local what=$1
  shift
  if "$VK_INPROC" "$@" >"$T/out" 2>"$T/err"; then ok; else
    fail "$what: vk_inproc $* exited $?"; tail -n 40 "$T/out" "$T/err"
  fi
  inproc_passed && ok || fail "$what: $(cat "$T/out")"
}
count() { grep -c -- "$1" "$T/err"; }
expect_eq() { [ "$1" = "$2" ] && ok || fail "${3:-value}: expected '$2', got '$1'"; }

VK_INPROC_DEVICE=1 inproc "with bench.device/1" "$PLUGINS/vk_copy.so" smoke
expect_eq "$(grep '^set_device:' "$T/err")" "set_device: (null) 0" "set_device on lavapipe"
expect_eq "$(count '^set_clock:')" 0 "set_clock on a CPU device"
expect_in "$T/err" '^vk_inband_clock: no: a CPU device' "vk_inband_clock"
expect_in "$T/err" '^vk_pci_bus_id: none: the device has no VK_EXT_pci_bus_info$' "vk_pci_bus_id"
expect_in "$T/err" '^device: 1 set_device, 0 set_clock, [1-9][0-9]* timed calls$' "the calls"

VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation VK_INPROC_DEVICE=1 BENCH_VK_CLOCK_ON_CPU=1 \
  inproc "clock on the CPU" "$PLUGINS/vk_copy.so" smoke
expect_in "$T/err" '^vk_inband_clock: yes \(BENCH_VK_CLOCK_ON_CPU' "vk_inband_clock with the hook"
python3 - "$T/err" <<'PY' && ok || fail "set_clock with the hook: $(cat "$T/err")"
import re, sys
text = open(sys.argv[1]).read()
clocks = [float(v) for v in re.findall(r"^set_clock: (\S+)$", text, re.M)]
timed = int(re.search(r"^device: 1 set_device, (\d+) set_clock, (\d+) timed calls$", text, re.M).group(2))
assert 1 <= len(clocks) <= timed, (len(clocks), timed)
assert all(0 < c <= 10000 for c in clocks), clocks
# lavapipe's subgroup clock counts ns: about 1000 "MHz" (not the TSC's rate)
assert any(500 <= c <= 2000 for c in clocks), clocks
PY

# Every vk plugin with the clock on, under the validation layer (and in the
# ASan build, LeakSanitizer); and twice on the device shared through
# bench.process/1, whose second life measures on the first one's device.
mapfile -t vk < <(vk_plugins)
expect_nonempty "vk plugins in $PLUGINS" "${vk[@]}"
for p in "${vk[@]}"; do
  VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation VK_INPROC_DEVICE=1 BENCH_VK_CLOCK_ON_CPU=1 \
    inproc "$p with the clock" "$PLUGINS/$p.so" smoke
  grep -q ': OK $' "$T/out" || continue # SKIPPED for a reason VK_MAY_SKIP allows: nothing timed
  expect_in "$T/err" '^set_clock: ' "$p with the clock: set_clock"
done
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation VK_INPROC_SLOTS=1 VK_INPROC_DEVICE=1 \
  BENCH_VK_CLOCK_ON_CPU=1 inproc "shared device" "$PLUGINS/vk_smoke.so" smoke
expect_in "$T/err" 'vk_device_shared: reused' "shared device: reused"
expect_eq "$(count '^vk_inband_clock: yes')" 2 "shared device: the clock in both lives"
expect_in "$T/err" '^device: 2 set_device, [1-9][0-9]* set_clock' "shared device: the calls"

BENCH_VK_CLOCK_ON_CPU=1 inproc "a 1.0 host" "$PLUGINS/vk_copy.so" smoke
expect_eq "$(count '^set_')" 0 "calls on a 1.0 host"
expect_in "$T/err" '^vk_inband_clock: not measured: the harness takes no clock' "vk_inband_clock on a 1.0 host"

# Through the harness: facts, device time and the check, with and without the hook.
PL=vk_copy,vk_rmsnorm
for hook in "" 1; do
  BENCH_VK_CLOCK_ON_CPU=$hook run_bench --preset smoke --plugin "$PL" --param dtype=f32 \
    --results-dir "$T/r$hook"
  expect_rc 0 "bench (hook '$hook')"
  check_results "$T/r$hook" OK "" "$PL" && ok || fail "hook '$hook': results"
  python3 - "$T/r$hook" "$hook" <<'PY' && ok || fail "hook '$hook': facts, timer or check"
import glob, json, sys
d, hook = sys.argv[1], sys.argv[2]
cases = [c for p in glob.glob(d + "/*.json") for c in json.load(open(p))["cases"]]
assert cases, "no cases"
for c in cases:
    i, name = c["info"], c["plugin"]
    assert i.get("vk_pci_bus_id") == "none: the device has no VK_EXT_pci_bus_info", (name, i)
    clock = i.get("vk_inband_clock", "")
    if hook:  # measured where the harness takes it, else not
        assert clock.startswith("yes (BENCH_VK_CLOCK_ON_CPU") or clock.startswith("not measured"), (name, clock)
    else:
        assert clock.startswith("no: a CPU device"), (name, clock)
    assert c["timer"] == "device", (name, c["timer"])
    dev = c["samples"]["device_ns"]
    assert dev and len(dev) == len(c["samples"]["host_ns"]) and all(v > 0 for v in dev), (name, dev)
    if c["plugin"] == "vk_rmsnorm":
        assert c["check"]["checked"] and c["check"]["pass"], (name, c["check"])
PY
done
finish
