#!/usr/bin/env bash
# The hip plugins built for the CPU with the HIP-CPU runtime (HIPCPU_PLUGINS,
# see CMakeLists.txt): bench runs them under the verify preset (awkward
# shapes, every dtype, full reference check) and the smoke preset, and every
# case must be OK. A copy of bench in a folder of its own loads only them.
. "$SRC/tests/cli/lib.sh"

mkdir -p "$T/bin"
cp "$BENCH" "$T/bin/bench"
for preset in verify smoke; do
  "$T/bin/bench" --preset "$SRC/presets/$preset.ini" --plugin-dir "$HIPCPU_PLUGINS" \
    --plugin 'hip_*' --results-dir "$T/r" >"$T/out" 2>"$T/err"
  RC=$?
  expect_rc 0 "HIP-CPU $preset"
  expect_not_in "$T/out" ': (WRONG_ANSWER|ERROR|CRASH|TIMEOUT|SKIPPED)' "HIP-CPU $preset results"
  grep -E '^bench: [0-9]+ of' "$T/out"
  expect_in "$T/out" '^bench: ([1-9][0-9]*) of \1 cases run .*: [0-9]+ ok, 0 skipped, 0 failed'
done
finish
