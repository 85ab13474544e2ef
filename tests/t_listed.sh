#!/usr/bin/env bash
# Every source and test in the tree is named in a CMake list (there is no
# file(GLOB) to pick a new file up by itself): a harness .c file that no list
# names is never built, a test script that no list names never runs.
# Checked: harness/src/*/*.c in harness/CMakeLists.txt; every tests/*/t_*.sh
# and tests/unit/test_*.c registered with ctest in this build (BUILD), or,
# for an optional test, named in full by its folder's CMakeLists.txt; every
# studies/*.c in studies/CMakeLists.txt; every presets/*.ini in
# presets/CMakeLists.txt; no file(GLOB) in any CMake file.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-listed.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/checks.sh"
cd "$SRC" || exit 1

srcs=(harness/src/*/*.c)
expect_nonempty "harness sources" "${srcs[@]}"
for f in "${srcs[@]}"; do
  rel=${f#harness/}
  if grep -Fq "$rel" harness/CMakeLists.txt; then ok; else fail "$f is in no source list of harness/CMakeLists.txt"; fi
done

ctest --test-dir "$BUILD" -N >"$T/ctest.txt" 2>&1 || fail "ctest -N failed"
scripts=(tests/*/t_*.sh tests/hip/t_*.py tests/t_*.sh tests/unit/test_*.c)
expect_nonempty "test scripts" "${scripts[@]}"
for f in "${scripts[@]}"; do
  dir=$(basename "$(dirname "$f")") name=$(basename "$f"); name=${name%.*}
  # sdk and hip name their tests without the t_
  case $dir in sdk | hip) name=${name#t_} ;; esac
  # HIP's tests are registered only where HIP plugins are built.
  if [ "$dir" = hip ] && ! grep -q ' hip\.' "$T/ctest.txt"; then continue; fi
  # Registered; or an optional test (hip.hipcpu: only with BENCH_HIP_CPU_DIR)
  # that its folder's CMakeLists.txt names in full.
  if grep -Eq "Test +#[0-9]+: $dir\.$name\$" "$T/ctest.txt"; then ok
  elif grep -Fq "/$(basename "$f")" "$(dirname "$f")/CMakeLists.txt" 2>/dev/null; then ok
  else fail "$f is not registered with ctest (no test $dir.$name)"; fi
done

studies=(studies/*.c)
expect_nonempty "study programs" "${studies[@]}"
for f in "${studies[@]}"; do
  if grep -Fq " $(basename "$f")" studies/CMakeLists.txt; then ok; else fail "$f is in no add_executable of studies/CMakeLists.txt"; fi
done

presets=(presets/*.ini)
expect_nonempty presets "${presets[@]}"
for f in "${presets[@]}"; do
  if grep -Fq "/$(basename "$f")" presets/CMakeLists.txt; then ok; else fail "$f is not in presets/CMakeLists.txt"; fi
done

globs=$(git ls-files '*CMakeLists.txt' '*.cmake' 2>/dev/null | xargs grep -ln 'file(GLOB' 2>/dev/null)
if [ -z "$globs" ]; then ok; else fail "file(GLOB) in: $globs"; fi
finish
