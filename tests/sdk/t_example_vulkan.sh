#!/usr/bin/env bash
# The installed Vulkan example builds out of tree against the installed
# helpers (CMake, then make) and runs OK under smoke, and under verify with
# the validation layer (--mode debug): a correct plugin stays silent, its
# run_batch included.
. "$(dirname "$0")/lib.sh"
[ -f "$PREFIX/lib/libbench-vulkan.a" ] || { echo "SKIP: no Vulkan helpers in this build"; exit 77; }
command -v glslc >/dev/null || { echo "SKIP: no glslc"; exit 77; }
example vulkan
build_cmake "$T/vulkan"
build_make "$T/vulkan" CFLAGS="-O2 -Wall -Wextra -Werror $SAN_FLAGS" LDFLAGS="$SAN_FLAGS"
for so in "$T/vulkan/build/ex_vk_rmsnorm.so" "$T/vulkan/ex_vk_rmsnorm.so"; do
  [ -f "$so" ] && exports_only_entry "$so" || fail "no $so"
done
run_bench --preset smoke --plugin-dir "$T/vulkan/build" --plugin ex_vk_rmsnorm
expect_rc 0 "ex_vk_rmsnorm smoke"
every_case "$T/out" ex_vk_rmsnorm OK
run_bench --preset verify --mode debug --plugin-dir "$T/vulkan/build" --plugin ex_vk_rmsnorm
expect_rc 0 "ex_vk_rmsnorm verify --mode debug"
every_case "$T/out" ex_vk_rmsnorm OK
# warm batched samples (the example's run_batch) under the validation layer
printf '[run]\ntier = smoke\nwarmup_iters = 5\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nbatch_min_time = 20ms\nbatch = warm\nverify = full\n' >"$T/batched.ini"
run_bench --preset "$T/batched.ini" --mode debug --plugin-dir "$T/vulkan/build" --plugin ex_vk_rmsnorm --param rows=7 --param cols=100 --results-dir "$T/rb"
expect_rc 0 "ex_vk_rmsnorm batched, --mode debug"
every_case "$T/out" ex_vk_rmsnorm OK
python3 -c 'import glob, json, sys; sys.exit(0 if all(c["batch"] > 1 for f in glob.glob(sys.argv[1] + "/*.json") for c in json.load(open(f))["cases"]) else 1)' "$T/rb" \
  && ok || fail "ex_vk_rmsnorm: samples not batched"
# run_batch too, under the validation layer, in one process (vk_inproc:
# runs, batches of 3 and 2, verify)
inproc="$BUILD/tests/vulkan/vk_inproc"
if [ -x "$inproc" ]; then
  VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$inproc" "$T/vulkan/build/ex_vk_rmsnorm.so" smoke \
    >"$T/inproc.out" 2>"$T/inproc.err" && ok || { fail "vk_inproc ex_vk_rmsnorm"; cat "$T/inproc.out" "$T/inproc.err"; }
  expect_in "$T/inproc.out" "^ex_vk_rmsnorm: OK" "vk_inproc"
  expect_not_in "$T/inproc.err" "vulkan (validation|performance)" "vk_inproc stderr"
fi
mkdir "$T/mk" && cp "$T/vulkan/ex_vk_rmsnorm.so" "$T/mk/"
run_bench --preset smoke --plugin-dir "$T/mk" --plugin ex_vk_rmsnorm
expect_rc 0 "ex_vk_rmsnorm (make) smoke"
every_case "$T/out" ex_vk_rmsnorm OK
finish
