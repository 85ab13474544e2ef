#!/usr/bin/env bash
# The installed HIP example builds out of tree against the installed
# helpers (CMake, then make) with hipcc, and runs under smoke and verify:
# OK with a GPU, SKIPPED with the reason without one.
. "$(dirname "$0")/lib.sh"
[ -f "$PREFIX/lib/libbench-hip.a" ] || { echo "SKIP: no HIP helpers in this build"; exit 77; }
command -v hipcc >/dev/null || { echo "SKIP: no hipcc on PATH"; exit 77; }
example hip
build_cmake "$T/hip"
build_make "$T/hip"
for so in "$T/hip/build/ex_hip_rmsnorm.so" "$T/hip/ex_hip_rmsnorm.so"; do
  [ -f "$so" ] && exports_only_entry "$so" || fail "no $so"
done
for preset in smoke verify; do
  # --verbose: without a device a backend whose cases all SKIP is one line
  # unless asked for case by case (checked by cli.t_nodevice)
  run_bench --preset $preset --verbose --plugin-dir "$T/hip/build" --plugin ex_hip_rmsnorm
  expect_rc 0 "ex_hip_rmsnorm $preset"
  if grep -q 'SKIPPED' "$T/out"; then
    every_case "$T/out" ex_hip_rmsnorm 'SKIPPED +no HIP device'
  else
    every_case "$T/out" ex_hip_rmsnorm OK
  fi
done
finish
