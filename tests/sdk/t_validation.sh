#!/usr/bin/env bash
# A Vulkan plugin built out of tree on the installed helpers alone
# (vk_planted.c, plain cc) fails its case under --mode debug when it breaks
# a Vulkan rule, in setup or in the timed iterations, with the validation
# layer's message; done right it is OK.
. "$(dirname "$0")/lib.sh"
[ -f "$PREFIX/lib/libbench-vulkan.a" ] || { echo "SKIP: no Vulkan helpers in this build"; exit 77; }
mkdir "$T/p"
cc -std=c11 -Wall -Wextra -Werror $SAN_FLAGS $(pkg-config --cflags bench-vulkan) -shared -fPIC \
  "$SRC/tests/sdk/vk_planted.c" -o "$T/p/ext_vk_planted.so" $(pkg-config --libs bench-vulkan) \
  && ok || fail "vk_planted.c does not build on the installed SDK"
exports_only_entry "$T/p/ext_vk_planted.so"
preset() {
  printf '[run]\ntier = smoke\nwarmup_iters = 1\nmin_samples = 2\nmax_samples = 3\nmin_time = 0\nmax_time = 0.1s\n[ext_vk_planted]\nerror = %s\n' "$1" >"$T/$1.ini"
}
for e in setup run none; do preset $e; done

run_bench --mode debug --preset "$T/setup.ini" --plugin-dir "$T/p" --plugin ext_vk_planted
expect_rc 1 "planted error in setup"
expect_in "$T/out" "ext_vk_planted error=setup  *ERROR +1 Vulkan validation message; the first: validation error: .*VUID-VkBufferCreateInfo-usage" "setup"

run_bench --mode debug --preset "$T/run.ini" --plugin-dir "$T/p" --plugin ext_vk_planted
expect_rc 1 "planted error in run"
expect_in "$T/out" "ext_vk_planted error=run  *ERROR .*Vulkan validation message.*VUID-vkCmdFillBuffer-size" "run"

run_bench --mode debug --preset "$T/none.ini" --plugin-dir "$T/p" --plugin ext_vk_planted
expect_rc 0 "no planted error"
expect_in "$T/out" "ext_vk_planted error=none  *OK" "none"
finish
