#!/usr/bin/env bash
# bench --list and a smoke run with the hip plugins present, as a user runs
# them. Without a GPU (here): every hip plugin lists as not runnable with the
# no-device reason, and every hip case is SKIPPED with it, exit 0. With a
# GPU: every hip smoke case is OK.
. "$SRC/tests/cli/lib.sh"

plugins="hip_noop_launch hip_fill hip_copy hip_vec_add hip_gemm hip_rmsnorm hip_layernorm
         hip_softmax hip_rope hip_attention hip_peak_fma hip_peak_matrix hip_peak_bw hip_peak_launch"
n=$(echo $plugins | wc -w)
run_bench --list
expect_rc 0 "bench --list"
expect_eq "$(wc -c <"$T/err")" 0 "nothing on stderr from --list"
grep -E '^hip_' "$T/out" >"$T/hip_list"
expect_eq "$(wc -l <"$T/hip_list")" "$n" "hip plugins listed"
for p in $plugins; do
  expect_in "$T/hip_list" "^$p +hip +(runnable|not runnable: )" "--list line of $p"
done
if grep -q ' not runnable: ' "$T/hip_list"; then device=0; else device=1; fi
echo "HIP device present: $device"

if [ "$device" = 0 ]; then
  # Every one with the same reason, e.g. (hipGetDeviceCount: hipErrorNoDevice).
  expect_eq "$(grep -Ec ' hip +not runnable: no HIP device \(hipGetDeviceCount[:a-zA-Z ]*\)' "$T/hip_list")" "$n" \
    "no-device reason on every hip plugin"
  expect_in "$T/hip_list" 'hipErrorNoDevice|found none' "the HIP error is named"
fi

run_bench --list --verbose --plugin hip_gemm
expect_rc 0 "--list --verbose"
expect_in "$T/out" 'variant +string \{tiled,mfma,rocblas\}' "rocblas, the vendor anchor, listed"
expect_in "$T/out" 'flush_l2 +int'
# the tile shapes, a tunable (ABI 1.4) with its candidates, the default first
expect_in "$T/out" '^ +tile +string \{128x128,[0-9x,]+\} '
expect_in "$T/out" '^ +tunable \(auto\): candidates 128x128,64x64,[0-9x,]+$' "tile tunable candidates"
# variant: a sweep axis that auto tunes among the plugin's own kernels, not the anchor
expect_in "$T/out" '^ +tunable \(auto\): candidates tiled,mfma$' "variant tunable candidates (rocblas is the anchor, not one)"

# the row kernel's tunable (issue 25: one row kernel per backend): the
# block-per-row kernel's threads, the default first
run_bench --list --verbose --plugin hip_rmsnorm
expect_rc 0 "--list --verbose hip_rmsnorm"
expect_in "$T/out" '^ +block +int +\[128, 1024\] ' "hip_rmsnorm block parameter"
expect_in "$T/out" '^ +tunable \(auto\): candidates 256,128,512,1024$' "hip_rmsnorm block tunable candidates"

# the peak plugins (issue 41): one variant per matrix instruction family,
# the FMA chains' types, the bandwidth kernels with sizes relative to the L2
run_bench --list --verbose --plugin 'hip_peak_*'
expect_rc 0 "--list --verbose hip_peak_*"
expect_in "$T/out" '^ +variant +string \{mma,wgmma,mfma,wmma\} ' "hip_peak_matrix variants"
expect_in "$T/out" '^ +dtype +string \{f32,f64,f16,bf16\} ' "hip_peak_fma types"
expect_in "$T/out" '^ +kernel +string \{read,write,copy\} ' "hip_peak_bw kernels"
expect_in "$T/out" 'defaults: smoke=1GiB,L2/2 ' "hip_peak_bw sizes: device memory and L2"
expect_in "$T/out" '^ +launches +int ' "hip_peak_launch launches"

# bench tune: without a device, SKIPPED with the reason, nothing tuned, exit 0
XDG_CACHE_HOME="$T/cache" run_bench tune --plugin hip_gemm --preset smoke
if [ "$device" = 0 ]; then
  expect_rc 0 "bench tune hip_gemm without a device"
  expect_in "$T/out" '^bench tune: hip_gemm SKIPPED: no HIP device \(hipGetDeviceCount.*\) \(nothing tuned\)$'
  expect_eq "$(wc -c <"$T/err")" 0 "nothing on stderr from bench tune"
  expect_eq "$(find "$T/cache" -path '*tuning*' -type f 2>/dev/null | wc -l)" 0 "no tuning file written"
else
  expect_in "$T/out" '^hip_gemm .*: winner ' "bench tune hip_gemm picks a tile"
fi

run_bench --preset smoke --plugin 'hip_*' --results-dir "$T/r"
expect_rc 0 "smoke run of hip_*"
python3 - "$T/r" "$device" "$n" <<'PY' && ok || fail "smoke results"
import glob, json, sys
rdir, device, n = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
files = sorted(glob.glob(rdir + "/*_hip_*_smoke.json"))
assert len(files) == n, files
n = 0
for f in files:
    d = json.load(open(f))
    assert d["cases"], f
    for c in d["cases"]:
        n += 1
        if device:
            assert c["status"] == "OK", (f, c["params"], c["status"], c.get("message"))
        else:
            assert c["status"] == "SKIPPED", (f, c["status"])
            assert c["message"].startswith("no HIP device (hipGetDeviceCount"), c["message"]
print("%d hip smoke cases, all %s" % (n, "OK" if device else "SKIPPED"))
PY
if [ "$device" = 0 ]; then
  # one line for the backend (issue 37); every case is in the files (above)
  expect_eq "$(grep -Ec "^hip_\\* $n plugins, [0-9]+ cases: SKIPPED, no HIP device \\(hipGetDeviceCount" "$T/out")" 1 \
    "one SKIPPED line for the hip backend"
  expect_not_in "$T/out" '^\[ *[0-9]+/[0-9]+\] hip_' "no per-case hip line"
  expect_in "$T/out" 'bench: [0-9]+ of [0-9]+ cases run .*: 0 ok, [0-9]+ skipped, 0 failed'
  expect_in "$T/r/rollup.csv" ',hip_attention,hip,attention,smoke,.*,SKIPPED,'
  expect_in "$T/r/rollup.csv" ',hip_peak_matrix,hip,peak,smoke,.*,SKIPPED,' "hip_peak_matrix: operation peak"
  # --verbose: one line per case, as before
  run_bench --preset smoke --plugin hip_gemm --results-dir "$T/rv" --verbose
  expect_rc 0 "smoke run of hip_gemm --verbose"
  expect_in "$T/out" 'hip_gemm variant=tiled f32 m=n=k=128 flush_l2=0  *SKIPPED +no HIP device'
fi
finish
