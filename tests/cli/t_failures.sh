#!/usr/bin/env bash
# Every way a case can fail is recorded with its status and the suite goes on.
. "$(dirname "$0")/lib.sh"

P="$SRC/tests/cli/presets/fast.ini"
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --results-dir "$T/r" \
  --plugin fx_wrong,fx_crash,fx_hang --plugin fx_skip,fx_error,fx_stderr,fx_nocheck,fx_ok
expect_rc 1
R="$T/r/rollup.csv"
st() { csv_field "$R" "$1" n=8 status; }
expect_eq "$(st fx_ok)" OK "fx_ok"
expect_eq "$(st fx_wrong)" WRONG_ANSWER "fx_wrong"
expect_eq "$(st fx_crash)" CRASH "fx_crash"
expect_eq "$(st fx_hang)" TIMEOUT "fx_hang"
expect_eq "$(st fx_skip)" SKIPPED "fx_skip"
expect_eq "$(st fx_error)" ERROR "fx_error"
expect_eq "$(st fx_stderr)" CRASH "fx_stderr"
expect_eq "$(st fx_nocheck)" ERROR "fx_nocheck"
# No throughput for a wrong answer; its errors are there.
expect_eq "$(csv_field "$R" fx_wrong n=8 gflops)" "" "fx_wrong gflops"
err=$(csv_field "$R" fx_wrong n=8 max_abs_err)
python3 -c "import sys; sys.exit(0 if abs(float('$err') - 0.5) < 1e-6 else 1)" && ok || fail "fx_wrong max_abs_err '$err'"
expect_in "$T/out" 'fx_wrong n=8  *WRONG_ANSWER +.*1 of 64'
expect_in "$T/out" 'fx_crash n=8  *CRASH +.*(signal 11|Segmentation|without a result)'
expect_in "$T/out" 'fx_hang n=8  *TIMEOUT +timed out after 3 s'
expect_in "$T/out" 'fx_skip n=8  *SKIPPED +no frobnicator on this machine'
expect_in "$T/out" 'fx_error n=8  *ERROR +cannot allocate the frobnicator'
expect_in "$T/out" 'fx_nocheck n=8  *ERROR +verify\(\) returned without handing an output'
expect_in "$T/out" '\| fx_stderr: last words'
txt="$T/r/${TODAY}_fx_stderr_fast.txt"
expect_in "$txt" 'fx_stderr: about to fail, "quoted", with a comma'
expect_in "$T/out" '8 of 8 cases run'

# Only skips: success.
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --results-dir "$T/r2" --plugin fx_skip,fx_ok
expect_rc 0 "skips only"
finish
