#!/usr/bin/env bash
# The installed CPU example builds out of tree against the installed SDK
# (CMake, then make) and runs OK under smoke and verify.
. "$(dirname "$0")/lib.sh"
example cpu
build_cmake "$T/cpu"
build_make "$T/cpu" CFLAGS="-O2 -Wall -Wextra -Werror $SAN_FLAGS" LDFLAGS="$SAN_FLAGS"
for so in "$T/cpu/build/ex_cpu_rmsnorm.so" "$T/cpu/ex_cpu_rmsnorm.so"; do
  [ -f "$so" ] && exports_only_entry "$so" || fail "no $so"
done
for preset in smoke verify; do
  run_bench --preset $preset --plugin-dir "$T/cpu/build" --plugin ex_cpu_rmsnorm
  expect_rc 0 "ex_cpu_rmsnorm $preset"
  every_case "$T/out" ex_cpu_rmsnorm OK
done
# the make build is the same plugin
mkdir "$T/mk" && cp "$T/cpu/ex_cpu_rmsnorm.so" "$T/mk/"
run_bench --preset smoke --plugin-dir "$T/mk" --plugin ex_cpu_rmsnorm
expect_rc 0 "ex_cpu_rmsnorm (make) smoke"
every_case "$T/out" ex_cpu_rmsnorm OK
finish
