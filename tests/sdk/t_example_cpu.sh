#!/usr/bin/env bash
# The installed CPU example builds out of tree against the installed SDK
# (CMake, then make) and runs OK under smoke and verify: ex_cpu_rmsnorm and
# ex_cpu_int8_gemm (int8 in, int32 out, compared exactly through
# bench.compare/1). The int8 GEMM built with its planted off-by-one
# (-DEX_OFF_BY_ONE: one element one too big) is WRONG_ANSWER.
. "$(dirname "$0")/lib.sh"
example cpu
build_cmake "$T/cpu"
build_make "$T/cpu" CFLAGS="-O2 -Wall -Wextra -Werror $SAN_FLAGS" LDFLAGS="$SAN_FLAGS"
for so in "$T/cpu/build/ex_cpu_rmsnorm.so" "$T/cpu/ex_cpu_rmsnorm.so" \
  "$T/cpu/build/ex_cpu_int8_gemm.so" "$T/cpu/ex_cpu_int8_gemm.so"; do
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

for preset in smoke verify; do
  run_bench --preset $preset --plugin-dir "$T/cpu/build" --plugin ex_cpu_int8_gemm --results-dir "$T/i8-$preset"
  expect_rc 0 "ex_cpu_int8_gemm $preset"
  every_case "$T/out" ex_cpu_int8_gemm OK
  expect_not_in "$T/out" unchecked "ex_cpu_int8_gemm $preset: checked"
done
# compared exactly, as int32: the JSON says so
python3 - "$T/i8-smoke" <<'PY' && ok || fail "ex_cpu_int8_gemm: not an exact int32 check"
import glob, json, sys
cases = [c for f in glob.glob(sys.argv[1] + "/*.json") for c in json.load(open(f))["cases"]]
bad = [c["check"] for c in cases
       if not c["check"]["pass"] or c["check"]["method"] != "plugin-exact" or c["check"]["max_abs_err"] != 0]
for b in bad or ([] if cases else ["no cases"]):
    print(b)
sys.exit(1 if bad or not cases else 0)
PY

# the planted off-by-one: one element of C one too big
mkdir "$T/bug" && cp "$T/cpu/ex_cpu_int8_gemm.c" "$T/cpu/Makefile" "$T/bug/"
build_make "$T/bug" ex_cpu_int8_gemm.so CFLAGS="-O2 -Wall -Wextra -Werror -DEX_OFF_BY_ONE $SAN_FLAGS" LDFLAGS="$SAN_FLAGS"
for preset in smoke verify; do
  run_bench --preset $preset --plugin-dir "$T/bug" --plugin ex_cpu_int8_gemm
  expect_rc 1 "ex_cpu_int8_gemm with the planted bug, $preset"
  every_case "$T/out" ex_cpu_int8_gemm WRONG_ANSWER
done
expect_in "$T/out" "WRONG_ANSWER .*got ([0-9-]+), expected" "the mismatch named"
finish
