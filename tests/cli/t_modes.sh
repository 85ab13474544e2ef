#!/usr/bin/env bash
# Device time, settling, determinism and --mode debug, end to end.
. "$(dirname "$0")/lib.sh"
P="$SRC/tests/cli/presets/fast.ini"

# A plugin that reports device time: the rollup's timer says so.
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_devtime,fx_noisy --results-dir "$T/r"
expect_rc 0 "devtime + noisy"
expect_eq "$(csv_field "$T/r/rollup.csv" fx_devtime n=8 timer)" device "device timer"
med=$(csv_field "$T/r/rollup.csv" fx_devtime n=8 median_ms)
python3 -c "import sys; sys.exit(0 if abs(float('$med') - 0.0010005) < 1e-6 else 1)" && ok || fail "device median $med"
expect_eq "$(csv_field "$T/r/rollup.csv" fx_noisy n=8 timer)" host "host timer"

# The batch follows the timer the statistics use: fx_devtime reports 1 us of
# device time per iteration whatever its host time (n=8 about 1 us, n=64
# about 100 us), so at batch_min_time 1 ms both sizes take 1024 iterations
# a sample (host-timed sizing gave 8192 and 8); fx_ok, host-timed, keeps
# sizing by the host clock (n=64, about 100 us: at most 128).
printf '[run]\ntier = smoke\nwarmup_iters = 2\nwarmup_time = 20ms\nmin_samples = 3\nmax_samples = 5\nmax_time = 2s\ntarget_noise = 50%%\nbatch_min_time = 1ms\nverify = none\ntimeout = 30s\n' >"$T/batch.ini"
run_bench --preset "$T/batch.ini" --plugin-dir "$FX_GOOD" --plugin fx_devtime,fx_ok --param n=8,64 --results-dir "$T/rb"
expect_rc 0 "batch sizing run"
expect_eq "$(csv_field "$T/rb/rollup.csv" fx_devtime n=8 batch)" 1024 "device-timed batch, n=8"
expect_eq "$(csv_field "$T/rb/rollup.csv" fx_devtime n=64 batch)" 1024 "device-timed batch, n=64"
b=$(csv_field "$T/rb/rollup.csv" fx_ok n=64 batch)
[ -n "$b" ] && [ "$b" -ge 1 ] && [ "$b" -le 128 ] && ok || fail "host-timed batch of fx_ok n=64: $b"

# A case that cannot reach its noise target says so.
printf '[run]\ntier = smoke\nmin_samples = 5\nmax_samples = 8\nmax_time = 1s\ntarget_noise = 0.1%%\nverify = full\ntimeout = 10s\nreport_settle = true\n' >"$T/tight.ini"
run_bench --preset "$T/tight.ini" --plugin-dir "$FX_GOOD" --plugin fx_noisy --results-dir "$T/r2"
expect_rc 0 "unsettled is not a failure"
expect_eq "$(csv_field "$T/r2/rollup.csv" fx_noisy n=8 settled)" no "settled column"
expect_in "$T/out" 'did not settle: noise .*% > target 0\.10% after 8 samples'
expect_in "$T/r2/${TODAY}_fx_noisy_tight.txt" 'did not settle'
# The default rule looks at the median's confidence interval; stop = cv at the CV.
expect_in "$T/out" "did not settle: noise \(median's 95% CI\)"
printf 'stop = cv\n' >>"$T/tight.ini"
run_bench --preset "$T/tight.ini" --plugin-dir "$FX_GOOD" --plugin fx_noisy --results-dir "$T/r2cv"
expect_rc 0 "stop = cv"
expect_in "$T/out" 'did not settle: noise \(cv\) .*% > target 0\.10% after 8 samples'

# verify preset: determinism checked and reported, awkward sizes.
run_bench --preset verify --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_nondet --results-dir "$T/r3"
expect_rc 0 "verify preset"
expect_in "$T/out" 'fx_ok n=7  *OK .*det=same'
expect_in "$T/out" 'fx_nondet n=7  *OK .*det=DIFF'
python3 - "$T/r3/${TODAY}_fx_nondet_verify.json" <<'PY' && ok || fail "determinism in JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert [c["determinism"] for c in d["cases"]] == ["differs", "differs"], d["cases"]
PY

# --mode debug sets the runtimes' debug switches in the child only.
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_env --results-dir "$T/r4" --mode debug
expect_rc 0 "debug mode"
python3 - "$T/r4/${TODAY}_fx_env_fast.json" <<'PY' && ok || fail "debug environment"
import json, sys
d = json.load(open(sys.argv[1]))
info = d["cases"][0]["info"]
assert info["HIP_LAUNCH_BLOCKING"] == "1" and info["AMD_SERIALIZE_KERNEL"] == "3", info
assert info["HSA_ENABLE_SDMA"] == "0" and "VK_LAYER_KHRONOS_validation" in info["VK_INSTANCE_LAYERS"], info
assert d["env"]["mode"] == "debug"
PY
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_env --results-dir "$T/r5"
python3 - "$T/r5/${TODAY}_fx_env_fast.json" <<'PY' && ok || fail "perf environment"
import json, sys
info = json.load(open(sys.argv[1]))["cases"][0]["info"]
assert info["HIP_LAUNCH_BLOCKING"] == "(unset)", info
PY
finish
