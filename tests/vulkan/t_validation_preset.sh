#!/usr/bin/env bash
# Issue 39: the verify preset turns the Vulkan validation layer on
# (validation = true), as --mode debug does: a raw-Vulkan plugin with a
# push-constant range error (vkfx_raw error=push) is OK under smoke and
# standard, whose summary then says once how to turn validation on, and
# ERROR naming the VUID under verify; a copy of smoke with validation = true
# catches it too. Where the layer is not installed (VK_LAYER_PATH naming an
# empty folder: the loader finds no explicit layer), verify's summary says
# so once instead of passing in silence. A vkh plugin under the user's own
# VK_INSTANCE_LAYERS validated itself: no hint.
. "$(dirname "$0")/lib.sh"
VUID='VUID-vkCmdPushConstants-offset-01795'
HINT='1 Vulkan case ran without validation: --preset verify \(validation = true\) or --mode debug runs them under it'
once() { # once FILE PATTERN WHAT: PATTERN on exactly one line of FILE
  local n
  n=$(grep -Ec -- "$2" "$1")
  [ "$n" -eq 1 ] && ok || { fail "$3: $n lines, not one"; cat "$1"; }
}

for p in smoke standard; do
  run_bench --preset $p --plugin-dir "$VK_FX" --plugin vkfx_raw --param error=push --results-dir "$T/$p"
  expect_rc 0 "$p: no layer, the bug unseen"
  expect_in "$T/out" "vkfx_raw error=push  *OK" "$p: terminal line"
  once "$T/out" "$HINT" "$p: the summary's hint"
done

run_bench --preset verify --plugin-dir "$VK_FX" --plugin vkfx_raw --param error=push --results-dir "$T/verify"
expect_rc 1 "verify: the planted error caught"
expect_in "$T/out" "vkfx_raw error=push  *ERROR +Vulkan validation error: $VUID: vkCmdPushConstants\(\)" "verify: terminal line"
expect_in "$(ls "$T/verify"/*.txt)" "error: Vulkan validation error: $VUID" "verify: .txt"
check_results "$T/verify" ERROR "^Vulkan validation error: $VUID" vkfx_raw && ok || fail "verify: JSON"
if grep -q "ran without validation" "$T/out"; then fail "verify: a hint although it validated"; else ok; fi
expect_in "$(ls "$T/verify"/*.txt)" "^mode +perf" "verify: still perf mode (not --mode debug)"

run_bench --preset verify --plugin-dir "$VK_FX" --plugin vkfx_raw --param error=none --results-dir "$T/verify_none"
expect_rc 0 "verify: done right is OK"
expect_in "$T/out" "vkfx_raw error=none  *OK" "verify none: terminal line"

sed 's/^tier = smoke$/tier = smoke\nvalidation = true/' "$SRC/presets/smoke.ini" >"$T/smoke_val.ini"
grep -q '^validation = true$' "$T/smoke_val.ini" && ok || fail "smoke copy has no validation key"
run_bench --preset "$T/smoke_val.ini" --plugin-dir "$VK_FX" --plugin vkfx_raw --param error=push --results-dir "$T/smoke_val"
expect_rc 1 "smoke with validation = true"
expect_in "$T/out" "vkfx_raw error=push  *ERROR +Vulkan validation error: $VUID" "smoke + validation: terminal line"

# A vkh plugin run under the user's own VK_INSTANCE_LAYERS fails a case on
# any message through its messenger (info vk_validation = on): no hint.
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation run_bench --preset smoke --plugin-dir "$VK_FX" \
  --plugin vkfx_invalid --param error=none --results-dir "$T/user_layers"
expect_rc 0 "vkh plugin under the user's layer"
if grep -q "ran without validation" "$T/out"; then fail "the user's layer: a hint although vkh validated"; else ok; fi

mkdir "$T/no-layers"
VK_LAYER_PATH="$T/no-layers" run_bench --preset verify --plugin-dir "$VK_FX" --plugin vkfx_raw --param error=push --results-dir "$T/missing"
expect_rc 0 "no layer installed: nothing to catch it"
expect_in "$T/out" "vkfx_raw error=push  *OK" "no layer: terminal line"
once "$T/out" '1 Vulkan case ran without validation: VK_LAYER_KHRONOS_validation \(Debian: vulkan-validationlayers\) is not installed here' \
  "no layer: said once"
finish
