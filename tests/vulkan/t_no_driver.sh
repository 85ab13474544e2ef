#!/usr/bin/env bash
# No Vulkan driver (VK_DRIVER_FILES pointing nowhere): every vk plugin lists
# as not runnable with the reason, every case is SKIPPED with it, exit 0.
# Then a driver that finds no device (one of Mesa's GPU drivers on a machine
# without that GPU, where there is one): the same, with that reason.
. "$(dirname "$0")/lib.sh"
export VK_DRIVER_FILES=/nonexistent VK_ICD_FILENAMES=/nonexistent

run_bench --list --plugin 'vk_*'
expect_rc 0 "--list"
mapfile -t vk < <(vk_plugins)
expect_nonempty "vk plugins in $PLUGINS" "${vk[@]}"
for p in "${vk[@]}"; do
  expect_in "$T/out" "^$p +vulkan +not runnable: no Vulkan driver: vkCreateInstance returned VK_ERROR_INCOMPATIBLE_DRIVER" "--list"
done

run_bench --preset smoke --plugin 'vk_*' --results-dir "$T/r"
expect_rc 0 "smoke without a driver"
check_results "$T/r" SKIPPED "^no Vulkan driver: vkCreateInstance returned VK_ERROR_INCOMPATIBLE_DRIVER" \
  && ok || fail "not every case SKIPPED with the reason"
expect_in "$T/out" " 0 failed" "summary"

unset VK_ICD_FILENAMES
nodev=
for icd in /usr/share/vulkan/icd.d/*.json; do
  VK_DRIVER_FILES=$icd "$BENCH" --list --plugin vk_smoke 2>/dev/null | grep -q "not runnable: no Vulkan device" \
    && { nodev=$icd; break; }
done
if [ -n "$nodev" ]; then
  export VK_DRIVER_FILES=$nodev
  run_bench --preset smoke --plugin 'vk_*' --results-dir "$T/r2"
  expect_rc 0 "smoke with a driver but no device ($nodev)"
  check_results "$T/r2" SKIPPED "^no Vulkan device: vkEnumeratePhysicalDevices found none" \
    && ok || fail "not every case SKIPPED with 'no Vulkan device'"
else
  echo "note: no installed driver lacks its device here; the no-device case is not exercised"
fi
finish
