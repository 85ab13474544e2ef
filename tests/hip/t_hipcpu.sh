#!/usr/bin/env bash
# The hip plugins built for the CPU with the HIP-CPU runtime (HIPCPU_PLUGINS,
# see CMakeLists.txt), once with the wave64 kernels (wave64/) and once with
# the wave32 ones (wave32/): bench runs them under the verify preset (awkward
# shapes, every dtype, full reference check) and the smoke preset. Every
# case must be OK, except that the wave32 build SKIPs variant mfma (CDNA
# only) with that reason; the result header names the wave size that ran. A
# copy of bench in a folder of its own loads only them.
. "$SRC/tests/cli/lib.sh"

mkdir -p "$T/bin"
cp "$BENCH" "$T/bin/bench"
for wave in 64 32; do
  for preset in verify smoke; do
    rm -rf "$T/r"
    "$T/bin/bench" --preset "$SRC/presets/$preset.ini" --plugin-dir "$HIPCPU_PLUGINS/wave$wave" \
      --plugin 'hip_*' --results-dir "$T/r" >"$T/out" 2>"$T/err"
    RC=$?
    expect_rc 0 "HIP-CPU wave$wave $preset"
    expect_not_in "$T/out" ': (WRONG_ANSWER|ERROR|CRASH|TIMEOUT)' "HIP-CPU wave$wave $preset results"
    grep -E '^bench: [0-9]+ of' "$T/out"
    if [ "$wave" = 64 ]; then
      expect_not_in "$T/out" '  *SKIPPED' "HIP-CPU wave64 $preset results"
      expect_in "$T/out" '^bench: ([1-9][0-9]*) of \1 cases run .*: [0-9]+ ok, 0 skipped, 0 failed'
    else
      # the only skips: variant=mfma, with the reason
      grep -E '  *SKIPPED' "$T/out" >"$T/skipped"
      grep -Ev 'variant=mfma' "$T/skipped" >"$T/other_skips"
      if [ -s "$T/other_skips" ]; then fail "HIP-CPU wave32 $preset: skips other than variant=mfma:"; cat "$T/other_skips"; else ok; fi
      expect_in "$T/out" 'variant=mfma.*SKIPPED.*needs CDNA matrix cores' "HIP-CPU wave32 $preset mfma"
      expect_in "$T/out" '^bench: ([1-9][0-9]*) of \1 cases run .*: [1-9][0-9]* ok, [1-9][0-9]* skipped, 0 failed'
    fi
    # the kernels that ran were those of this wave size
    if grep -rqs "\"wavefront\": *\"$wave\"" "$T/r"; then ok; else fail "HIP-CPU wave$wave $preset: no \"wavefront\": \"$wave\" in the results"; grep -rhos '"wavefront"[^,]*' "$T/r" | sort -u | head -3; fi
  done
done
finish
