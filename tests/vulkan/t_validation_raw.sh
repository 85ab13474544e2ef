#!/usr/bin/env bash
# --mode debug catches a Vulkan validation error in a plugin that never
# calls vkh (the vkfx_raw fixture: raw Vulkan, no debug messenger of its
# own): the case is ERROR naming the VUID on its terminal line and in the
# .txt, with one process per plugin and with one per case. In perf mode the
# layer is off and the same bug goes unseen (OK); done right it is OK under
# debug too. A vkh plugin's own report is not repeated.
. "$(dirname "$0")/lib.sh"
preset() { # preset NAME PLUGIN ERROR [ISOLATION]
  cat >"$T/$1.ini" <<INI
[run]
tier = smoke
warmup_iters = 1
min_samples = 2
max_samples = 3
min_time = 0
max_time = 0.1s
isolation = ${4:-plugin}
[$2]
error = $3
INI
}
preset push vkfx_raw push; preset push_case vkfx_raw push case; preset none vkfx_raw none
preset core vkfx_invalid core
VUID='VUID-vkCmdPushConstants-offset-01795'

for p in push push_case; do
  run_bench --preset "$T/$p.ini" --plugin-dir "$VK_FX" --plugin vkfx_raw --results-dir "$T/$p" --mode debug
  expect_rc 1 "$p: planted error under --mode debug"
  expect_in "$T/out" "vkfx_raw error=push  *ERROR +Vulkan validation error: $VUID: vkCmdPushConstants\(\)" "$p: terminal line"
  expect_in "$(ls "$T/$p"/*.txt)" "error: Vulkan validation error: $VUID" "$p: .txt"
  check_results "$T/$p" ERROR "^Vulkan validation error: $VUID" vkfx_raw && ok || fail "$p: JSON"
done

run_bench --preset "$T/push.ini" --plugin-dir "$VK_FX" --plugin vkfx_raw --results-dir "$T/perf"
expect_rc 0 "perf mode: no layer, the bug unseen"
expect_in "$T/out" "vkfx_raw error=push  *OK" "perf: terminal line"

run_bench --preset "$T/none.ini" --plugin-dir "$VK_FX" --plugin vkfx_raw --results-dir "$T/none" --mode debug
expect_rc 0 "done right under --mode debug"
expect_in "$T/out" "vkfx_raw error=none  *OK" "none: terminal line"

# vkh reports through its own messenger; the harness adds no second copy.
run_bench --preset "$T/core.ini" --plugin-dir "$VK_FX" --plugin vkfx_invalid --results-dir "$T/vkh" --mode debug
expect_rc 1 "vkh plugin under --mode debug"
expect_in "$T/out" "vkfx_invalid error=core  *ERROR +1 Vulkan validation message; the first: validation error: .*VUID-VkBufferCreateInfo-usage" "vkh: its own message"
if grep -q "note: .*Vulkan validation error" "$T/out"; then fail "vkh: reported twice"; cat "$T/out"; else ok; fi
finish
