#!/usr/bin/env bash
# --mode debug catches a Vulkan validation error in a plugin that never
# calls vkh (the vkfx_raw fixture: raw Vulkan, no debug messenger of its
# own): the case is ERROR naming the VUID on its terminal line and in the
# .txt, with one process per plugin and with one per case. In perf mode the
# layer is off and the same bug goes unseen (OK); done right it is OK under
# debug too. A vkh plugin's own report is not repeated.
# Errors outside the cases are read too: in deinit (vkfx_raw_deinit leaves
# an object at vkDestroyDevice) the last case of the plugin is ERROR (with
# one process per plugin the last case waits for deinit; with one per case
# the init/deinit probe fails every case); in init (vkfx_raw_init) the
# first case (one per case: every case, as init's error). The user's own
# VK_LAYER_SETTINGS_PATH is merged: their message_id_filter still works.
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

# ---- errors outside the cases -----------------------------------------
DEINIT='VUID-vkDestroyDevice-device-00378'
INIT='VUID-VkBufferCreateInfo-usage-requiredbitmask'
for iso in backend plugin case; do
  preset "deinit_$iso" vkfx_raw_deinit none "$iso"
  printf '[vkfx_raw]\nerror = none\n' >>"$T/deinit_$iso.ini"
  run_bench --preset "$T/deinit_$iso.ini" --plugin-dir "$VK_FX" --plugin vkfx_raw_deinit \
    --plugin vkfx_raw --results-dir "$T/deinit_$iso" --mode debug
  expect_rc 1 "deinit, isolation $iso: planted error under --mode debug"
  expect_in "$T/out" "vkfx_raw_deinit error=none  *ERROR +Vulkan validation error in deinit\(\): $DEINIT" \
    "deinit, isolation $iso: terminal line"
  expect_in "$(ls "$T/deinit_$iso"/*_vkfx_raw_deinit_deinit_*.txt)" "error: Vulkan validation error in deinit\(\): $DEINIT" \
    "deinit, isolation $iso: .txt"
  python3 - "$T/deinit_$iso" "$DEINIT" <<'PY' && ok || fail "deinit, isolation $iso: JSON"
import glob, json, sys
got = {c["plugin"]: (c["status"], c.get("message") or "")
       for f in glob.glob(sys.argv[1] + "/*.json") for c in json.load(open(f))["cases"]}
good = (got.get("vkfx_raw_deinit", ("", ""))[0] == "ERROR" and
        got["vkfx_raw_deinit"][1].startswith("Vulkan validation error in deinit(): " + sys.argv[2]) and
        got.get("vkfx_raw", ("",))[0] == "OK")
if not good:
    print(got)
sys.exit(0 if good else 1)
PY
  # the plugin run beside it is not blamed for it
  expect_in "$T/out" "vkfx_raw error=none  *OK" "deinit, isolation $iso: the other plugin OK"

  preset "init_$iso" vkfx_raw_init none "$iso"
  run_bench --preset "$T/init_$iso.ini" --plugin-dir "$VK_FX" --plugin vkfx_raw_init --results-dir "$T/init_$iso" --mode debug
  expect_rc 1 "init, isolation $iso: planted error under --mode debug"
  expect_in "$T/out" "vkfx_raw_init error=none  *ERROR +Vulkan validation error.*: $INIT" "init, isolation $iso: terminal line"
  expect_in "$(ls "$T/init_$iso"/*.txt)" "error: Vulkan validation error.*: $INIT" "init, isolation $iso: .txt"
done
# one process per case: the probe's finding is init's error
expect_in "$T/out" "vkfx_raw_init error=none  *ERROR +Vulkan validation error in init\(\): $INIT" "init, isolation case: init's error"
run_bench --preset "$T/deinit_plugin.ini" --plugin-dir "$VK_FX" --plugin vkfx_raw_deinit --results-dir "$T/deinit_perf"
expect_rc 0 "deinit: perf mode, no layer"

# ---- the user's own layer settings ---------------------------------------
mkdir "$T/user"
printf 'khronos_validation.message_id_filter = %s\n' "$VUID" >"$T/user/vk_layer_settings.txt"
VK_LAYER_SETTINGS_PATH="$T/user" run_bench --preset "$T/push.ini" --plugin-dir "$VK_FX" --plugin vkfx_raw --results-dir "$T/user_filter" --mode debug
expect_rc 0 "the user's message_id_filter still applies"
expect_in "$T/out" "vkfx_raw error=push  *OK" "user filter: the planted error filtered out"
expect_in "$T/out" "note: Vulkan validation filtered by the user's $T/user/vk_layer_settings.txt \(message_id_filter = $VUID\)" \
  "user filter: said on the line"
expect_in "$(ls "$T/user_filter"/*.txt)" "Vulkan validation filtered by the user's" "user filter: in the .txt"
VK_LAYER_SETTINGS_PATH="$T/nothing-here" run_bench --preset "$T/push.ini" --plugin-dir "$VK_FX" --plugin vkfx_raw --results-dir "$T/user_missing" --mode debug
expect_rc 1 "unreadable user settings: bench's own"
expect_in "$T/err" "cannot read the Vulkan layer settings $T/nothing-here \(VK_LAYER_SETTINGS_PATH\)" "unreadable user settings: one warning"
n=$(grep -c "cannot read the Vulkan layer settings" "$T/err")
[ "$n" -eq 1 ] && ok || fail "unreadable user settings: $n warnings, not one"
expect_in "$T/out" "vkfx_raw error=push  *ERROR +Vulkan validation error: $VUID" "unreadable user settings: still checked"
finish
