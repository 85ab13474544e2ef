#!/usr/bin/env bash
# The stopping rule sees a level that moves during the run: tight samples
# whose level shifts for a stretch do not settle, and the case says why;
# the same plugin without the shift settles.
. "$(dirname "$0")/lib.sh"
printf '[run]\ntier = smoke\nwarmup_iters = 1\nwarmup_time = 0\nmin_samples = 200\nmax_samples = 200\nmin_time = 0\nmax_time = 20s\ntarget_noise = 2%%\nbatch_min_time = 0\nverify = full\ntimeout = 60s\nreport_settle = true\n' >"$T/drift.ini"

FX_DRIFT=0 run_bench --preset "$T/drift.ini" --plugin-dir "$FX_PROC" --plugin fx_drift --results-dir "$T/flat"
expect_rc 0 "no drift"
expect_eq "$(csv_field "$T/flat/rollup.csv" fx_drift n=8 settled)" yes "a steady level settles"

FX_DRIFT=30 run_bench --preset "$T/drift.ini" --plugin-dir "$FX_PROC" --plugin fx_drift --results-dir "$T/shift"
expect_rc 0 "drift is not a failure"
expect_eq "$(csv_field "$T/shift/rollup.csv" fx_drift n=8 settled)" no "a shifted level does not settle"
expect_in "$T/out" 'did not settle: noise \(median.s 95% CI\) .* the level drifted during the run \(block medians \+-[0-9.]+%\)'
python3 - "$T/shift/${TODAY}_fx_drift_drift.json" <<'PY' && ok || fail "drift in the JSON and the interval"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
h = c["host"]
assert c["settled"] is False and h["drift"] > 0.02, h
# The interval shown is the wider one: at least median +- drift.
assert (h["ci_hi"] - h["ci_lo"]) / 2 >= h["drift"] * h["median"] * (1 - 1e-9), h
PY
finish
