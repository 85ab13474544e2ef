#!/usr/bin/env bash
# The whole test suite, as CI runs it: set up (the test tools too:
# scripts/debian-packages-test.txt), build with warnings as
# errors, run every test; then again under AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh test
jobs=$(nproc)

cmake -S . -B build -DBENCH_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

# HIP code is compiled by hipcc (clang), whose sanitizer runtime is not gcc's:
# the sanitizer build covers the C code (harness, CPU and Vulkan plugins).
cmake -S . -B build-asan -DBENCH_WERROR=ON -DBENCH_SANITIZE=ON -DBENCH_HIP=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan -j"$jobs" --output-on-failure
