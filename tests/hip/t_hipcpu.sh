#!/usr/bin/env bash
# The hip plugins built for the CPU with the HIP-CPU runtime (HIPCPU_PLUGINS,
# see CMakeLists.txt), once with the wave64 kernels (wave64/) and once with
# the wave32 ones (wave32/): bench runs them under the verify preset (awkward
# shapes, every dtype, full reference check) and the smoke preset. Every
# case must be OK, except that the wave32 build SKIPs variant mfma (CDNA
# only) with that reason, and both SKIP hip_gemm variant=rocblas (no rocBLAS
# in a HIP-CPU build) with theirs; the result header names the wave size that
# ran. The peak plugins (issue 41) run there too, their outputs checked
# exactly: hip_peak_fma's four types (bf16 emulated, as HIP-CPU emulates
# MFMA), hip_peak_bw's kernels, hip_peak_launch's count, and
# hip_peak_matrix's mfma (wave64) or wmma (wave32) variant emulated; its
# NVIDIA variants (mma, wgmma) and the other AMD one are SKIPPED with the
# reason. Then hip_gemm under the verify preset once per value of its tile
# tunable (--param tile=...): every tile's kernels give the right answer
# with both wave sizes. A copy of bench in a folder of its own loads only
# them.
. "$SRC/tests/cli/lib.sh"

# cases DIR: one line per case of the result files in DIR, in full (a case
# line cuts long labels and reasons): "plugin k=v k=v ... STATUS roof=ID
# message", ID the roof the case named (bench.roof/1) or -
cases() {
  python3 - "$1" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d = json.load(open(f))
    for c in d.get("cases", []):
        params = " ".join("%s=%s" % kv for kv in c.get("params", {}).items())
        roof = (c.get("info") or {}).get("roof", "-")
        print(c.get("plugin", d.get("plugin", "?")), params, c["status"], "roof=" + roof,
              c.get("message") or "")
PY
}

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
    cases "$T/r" >"$T/cases"
    # (a HIP-CPU build does not look for rocBLAS: "... were not looked for")
    expect_in "$T/cases" 'variant=rocblas.*SKIPPED.*hip_gemm was built without rocBLAS \(' \
      "HIP-CPU wave$wave $preset rocblas"
    # the peak plugins ran, were checked, and named their roofs
    for want in 'hip_peak_fma dtype=f32 .* OK roof=fp32' 'hip_peak_fma dtype=f64 .* OK roof=fp64' \
                'hip_peak_fma dtype=f16 .* OK roof=fp16' 'hip_peak_fma dtype=bf16 .* OK roof=bf16' \
                'hip_peak_bw kernel=read size=L2/2 .* OK roof=l2' 'hip_peak_bw kernel=copy .* OK roof=' \
                'hip_peak_bw kernel=write .* OK roof=' 'hip_peak_launch .* OK roof=launch'; do
      expect_in "$T/cases" "^$want" "HIP-CPU wave$wave $preset: $want"
    done
    expect_in "$T/cases" '^hip_peak_matrix variant=mma .*SKIPPED roof=- variant mma needs an NVIDIA GPU' \
      "HIP-CPU wave$wave $preset: peak mma"
    if [ "$wave" = 64 ]; then
      expect_in "$T/cases" '^hip_peak_matrix variant=mfma dtype=bf16 .* OK roof=bf16_matrix' "HIP-CPU wave64 $preset: peak mfma"
      # the only skips: variant=rocblas, and hip_peak_matrix's families of
      # other devices, with the reasons
      grep -E '  *SKIPPED' "$T/out" | grep -Ev 'variant=rocblas|hip_peak_matrix variant=(mma|wgmma|wmma) ' \
        >"$T/other_skips"
      if [ -s "$T/other_skips" ]; then fail "HIP-CPU wave64 $preset: skips other than variant=rocblas:"; cat "$T/other_skips"; else ok; fi
      expect_in "$T/out" '^bench: ([1-9][0-9]*) of \1 cases run .*: [0-9]+ ok, [1-9][0-9]* skipped, 0 failed'
    else
      # the only skips: variant=mfma and variant=rocblas, with the reasons
      grep -E '  *SKIPPED' "$T/out" >"$T/skipped"
      expect_in "$T/cases" '^hip_peak_matrix variant=wmma dtype=f16 .* OK roof=fp16_matrix' "HIP-CPU wave32 $preset: peak wmma"
      grep -Ev 'variant=(mfma|rocblas)|hip_peak_matrix variant=(mma|wgmma) ' "$T/skipped" >"$T/other_skips"
      if [ -s "$T/other_skips" ]; then fail "HIP-CPU wave32 $preset: skips other than variant=mfma:"; cat "$T/other_skips"; else ok; fi
      expect_in "$T/cases" '^hip_gemm variant=mfma .*SKIPPED roof=- variant mfma needs CDNA matrix cores' "HIP-CPU wave32 $preset mfma"
      expect_in "$T/out" '^bench: ([1-9][0-9]*) of \1 cases run .*: [1-9][0-9]* ok, [1-9][0-9]* skipped, 0 failed'
    fi
    # the kernels that ran were those of this wave size
    if grep -rqs "\"wavefront\": *\"$wave\"" "$T/r"; then ok; else fail "HIP-CPU wave$wave $preset: no \"wavefront\": \"$wave\" in the results"; grep -rhos '"wavefront"[^,]*' "$T/r" | sort -u | head -3; fi
  done
done

# Every value of hip_gemm's tile tunable, as bench tune would try it.
tiles=$("$T/bin/bench" --list --verbose --plugin hip_gemm --plugin-dir "$HIPCPU_PLUGINS/wave64" |
  sed -nE '/^ +tile /,/candidates/s/^ +tunable \(auto\): candidates ([0-9x,]+)$/\1/p' | tr , ' ')
expect_nonempty "hip_gemm tile candidates" $tiles
for wave in 64 32; do
  for tile in $tiles; do
    rm -rf "$T/rt"
    "$T/bin/bench" --preset "$SRC/presets/verify.ini" --plugin-dir "$HIPCPU_PLUGINS/wave$wave" \
      --plugin hip_gemm --param "tile=$tile" --results-dir "$T/rt" \
      >"$T/out" 2>"$T/err"
    RC=$?
    expect_rc 0 "HIP-CPU wave$wave hip_gemm tile=$tile"
    expect_not_in "$T/out" ': (WRONG_ANSWER|ERROR|CRASH|TIMEOUT)' "HIP-CPU wave$wave tile=$tile"
    grep -E '^bench: [0-9]+ of' "$T/out"
    cases "$T/rt" >"$T/cases"
    expect_in "$T/cases" "variant=tiled .*tile=$tile.* OK" "HIP-CPU wave$wave tile=$tile tiled ran"
    if [ "$wave" = 64 ] && [ "$tile" != 32x32 ]; then
      expect_in "$T/cases" "variant=mfma .*tile=$tile.* OK" "HIP-CPU wave64 tile=$tile mfma ran"
    fi
  done
done
finish
