#!/usr/bin/env bash
# bench --list and a smoke run with the cuda_* plugins, as a user runs them.
# Here (no NVIDIA driver, no GPU) every cuda plugin lists as not runnable
# with one reason, every cuda case is SKIPPED with it, the run exits 0 and
# the other plugins (cpu_*) still run and pass. With a GPU: every cuda smoke
# case is OK. Either way the cuda plugins name the same operations as the
# hip ones (bench compare --by operation lines them up) and cuda_gemm offers
# variant=mma (tensor cores, its warps and stages tunables), wgmma and
# cublas in place of mfma.
. "$SRC/tests/cli/lib.sh"

n=$(echo $CUDA_PLUGINS | wc -w)
run_bench --list
expect_rc 0 "bench --list"
grep -E '^cuda_' "$T/out" >"$T/cuda_list"
expect_eq "$(wc -l <"$T/cuda_list")" "$n" "cuda plugins listed"
for p in $CUDA_PLUGINS; do
  expect_in "$T/cuda_list" "^$p +cuda +(runnable|not runnable: )" "--list line of $p"
  # hip_X and cuda_X: one operation (the plugin's name after its backend)
  expect_in "$T/out" "^$p +cuda .*" "$p listed"
done
if grep -q ' not runnable: ' "$T/cuda_list"; then device=0; else device=1; fi
echo "CUDA device present: $device"
if [ "$device" = 0 ]; then
  expect_eq "$(grep -Ec ' cuda +not runnable: no CUDA device \(cudaGetDeviceCount: ' "$T/cuda_list")" "$n" \
    "no-device reason on every cuda plugin"
  grep -Eo 'not runnable: [^)]*\)' "$T/cuda_list" | sort -u >"$T/reasons"
  expect_eq "$(wc -l <"$T/reasons")" 1 "one reason for all cuda plugins"
  cat "$T/reasons"
fi

run_bench --list --verbose --plugin cuda_gemm
expect_rc 0 "--list --verbose"
expect_in "$T/out" 'variant +string \{tiled,mma,wgmma,cublas\}'
expect_in "$T/out" 'flush_l2 +int'
expect_in "$T/out" '^ +warps +string \{2x2,2x4\}' "cuda_gemm warps (variant=mma)"
expect_in "$T/out" '^ +stages +int +\[2, 4\]' "cuda_gemm stages (variant=mma)"
expect_not_in "$T/out" 'mfma' "cuda_gemm parameters"
expect_in "$T/out" '^ +tunable \(auto\): candidates 128x128,64x64,[0-9x,]+$' "cuda_gemm tile tunable"
XDG_CACHE_HOME="$T/cache" run_bench tune --plugin cuda_gemm --preset smoke
if [ "$device" = 0 ]; then
  expect_rc 0 "bench tune cuda_gemm without a device"
  expect_in "$T/out" '^bench tune: cuda_gemm SKIPPED: no CUDA device \(cudaGetDeviceCount.*\(nothing tuned\)$'
fi


run_bench --preset smoke --plugin 'cuda_*' --plugin cpu_noop --results-dir "$T/r"
expect_rc 0 "smoke run of cuda_* with cpu_noop"
python3 - "$T/r" "$device" "$n" <<'PY' && ok || fail "smoke results"
import glob, json, sys
rdir, device, n = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
files = sorted(glob.glob(rdir + "/*_cuda_*_smoke.json"))
assert len(files) == n, files
cases = 0
for f in files:
    d = json.load(open(f))
    assert d["cases"], f
    for c in d["cases"]:
        cases += 1
        if device:
            assert c["status"] == "OK", (f, c["params"], c["status"], c.get("message"))
        else:
            assert c["status"] == "SKIPPED", (f, c["status"])
            assert c["message"].startswith("no CUDA device (cudaGetDeviceCount: "), c["message"]
cpu = sorted(glob.glob(rdir + "/*_cpu_noop_smoke.json"))
assert cpu and all(c["status"] == "OK" for c in json.load(open(cpu[0]))["cases"]), cpu
print("%d cuda smoke cases, all %s; cpu_noop OK" % (cases, "OK" if device else "SKIPPED"))
PY
expect_in "$T/r/rollup.csv" ',cuda_gemm,cuda,gemm,smoke,' "cuda_gemm in the rollup, operation gemm"
expect_in "$T/r/rollup.csv" ',cuda_attention,cuda,attention,smoke,' "cuda_attention, operation attention"
if [ "$device" = 0 ]; then
  # one line for the backend (issue 37); every case is in the files (above)
  expect_eq "$(grep -Ec "^cuda_\\* $n plugins, [0-9]+ cases: SKIPPED, no CUDA device \\(cudaGetDeviceCount: " "$T/out")" 1 \
    "one SKIPPED line for the cuda backend"
  expect_not_in "$T/out" '^\[ *[0-9]+/[0-9]+\] cuda_' "no per-case cuda line"
  # the reason once per plugin at most on stderr, never once per case
  lines=$(grep -c 'cudaGetDeviceCount' "$T/err")
  if [ "$lines" -le "$n" ]; then ok; else fail "$lines stderr lines about the missing driver (more than one per plugin)"; fi
  # --verbose: one line per case, as before
  run_bench --preset smoke --plugin cuda_gemm --results-dir "$T/rv" --verbose
  expect_rc 0 "smoke run of cuda_gemm --verbose"
  expect_in "$T/out" 'cuda_gemm variant=cublas .*  *SKIPPED +no CUDA device'
  expect_in "$T/out" 'cuda_gemm variant=mma .*  *SKIPPED +no CUDA device'
  expect_in "$T/out" 'cuda_gemm variant=wgmma .*  *SKIPPED +no CUDA device'
fi
finish
