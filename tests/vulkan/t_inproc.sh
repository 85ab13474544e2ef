#!/usr/bin/env bash
# Each vk plugin's whole life in one process (vk_inproc), validation layer
# on, so that in the ASan build LeakSanitizer checks what our code leaves
# behind (bench's case processes end in _exit, which skips that check) and
# the layer reports Vulkan objects left alive at vkDestroyDevice. Also the
# early exits of init: no driver, no such device; and the device shared
# through bench.process/1 (VK_INPROC_SLOTS=1).
. "$(dirname "$0")/lib.sh"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
inproc_keep

inproc() { # what, then vk_inproc's arguments
  local what=$1
  shift
  if "$VK_INPROC" "$@" >"$T/out" 2>"$T/err"; then ok; else
    fail "$what: vk_inproc $* exited $?"; tail -n 40 "$T/out" "$T/err"
  fi
}

mapfile -t vk < <(vk_plugins)
expect_nonempty "vk plugins in $PLUGINS" "${vk[@]}"
for so in "${vk[@]}"; do
  so=$PLUGINS/$so.so
  case "$so" in
  */vk_peak_*) # compared with their own reference: a 1.1 host with bench.compare/1
    VK_INPROC_COMPARE=1 inproc "$(basename "$so") smoke" "$so" smoke ;;
  *) inproc "$(basename "$so") smoke" "$so" smoke ;;
  esac
  inproc_passed && ok || fail "$(basename "$so"): $(cat "$T/out")"
done
# A peak plugin on a 1.0 host (no bench.compare/1): SKIPPED, saying why.
inproc "vk_peak_launch on a 1.0 host" "$PLUGINS/vk_peak_launch.so" smoke
grep -q "SKIPPED needs a bench harness of ABI 1.1 or newer (bench.compare/1)" "$T/out" && ok ||
  fail "vk_peak_launch on a 1.0 host: $(cat "$T/out")"
# bench.process/1: the plugin's life twice in one process, the second on
# the device the first kept in a slot, released at the end (what a worker
# does): nothing leaked, no object left alive.
for so in vk_smoke vk_rmsnorm_tiled; do
  VK_INPROC_SLOTS=1 inproc "$so with slots" "$PLUGINS/$so.so" smoke
  grep -Eq ': OK $' "$T/out" && ok || fail "$so with slots: $(cat "$T/out")"
  grep -q "vk_device_shared: created: kept" "$T/err" && grep -q "vk_device_shared: reused" "$T/err" \
    && ok || fail "$so with slots: the second life did not reuse the device: $(cat "$T/err")"
done
BENCH_VK_MEMORY=staging inproc "staging" "$PLUGINS/vk_layernorm_rmsnorm_fused.so" smoke
BENCH_VK_MEMORY=staging inproc "staging" "$PLUGINS/vk_gemm_f16acc32.so" smoke
VK_DRIVER_FILES=/nonexistent VK_ICD_FILENAMES=/nonexistent inproc "no driver" "$PLUGINS/vk_smoke.so"
grep -q "SKIPPED no Vulkan driver" "$T/out" && ok || fail "no driver: $(cat "$T/out")"
BENCH_VK_DEVICE=no-such-gpu inproc "no such device" "$PLUGINS/vk_smoke.so"
grep -q "SKIPPED BENCH_VK_DEVICE=no-such-gpu" "$T/out" && ok || fail "no device: $(cat "$T/out")"
finish
