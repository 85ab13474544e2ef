#!/usr/bin/env bash
# Plugin ABI 1.1 as a user meets it: version growth both ways, impossible
# figures refused (issue 12.4), the plugin's own reference (exact, tolerance,
# callback, self-check) with planted bugs, per-item units, run_batch with
# warm and cold batches, --param and --filter.
. "$(dirname "$0")/lib.sh"

# A copy of bench in a folder of its own loads only the fixtures (no trial
# load of every in-tree plugin per run).
mkdir -p "$T/bin"
cp "$BENCH" "$T/bin/bench"
BENCH="$T/bin/bench"
SDK="$FX_GOOD/../sdk"
SDKB="$FX_GOOD/../sdk_broken"
P="$SRC/tests/cli/presets/fast.ini"
R="$T/r/rollup.csv"

# ---- versions: a 1.0 plugin and one built with a newer minor that needs
# only 1.0 load and run; one that needs 1.3 is refused with one line.
run_bench --preset "$P" --plugin-dir "$SDK" --plugin-dir "$SDKB" --results-dir "$T/r" \
  --plugin fx_v10,fx_newer
expect_rc 0 "1.0 and newer-minor plugins"
expect_in "$T/out" 'fx_v10 rows=64 cols=100  *OK'
expect_in "$T/out" 'fx_newer rows=64 cols=100  *OK'
expect_in "$T/err" '^bench: warning: plugin .*/fx_needs15\.so: needs plugin ABI 1\.5, this bench speaks 1\.4 \(use a newer bench\); skipped$'
expect_eq "$(grep -c fx_needs15 "$T/err")" 1 "one line for fx_needs15"
run_bench --list --plugin-dir "$SDK" --plugin-dir "$SDKB"
expect_in "$T/out" 'fx_v10'
expect_not_in "$T/out" 'fx_needs15'

# ---- 12.4: NaN, inf, negative or absurd device times and work are a plugin bug.
rm -rf "$T/r"
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_badfig
expect_rc 1 "impossible figures"
for what in nan inf neg huge work_inf work_nan work_neg items_zero items_unit; do
  expect_eq "$(csv_field "$R" fx_badfig "what=$what" status)" ERROR "fx_badfig what=$what"
done
expect_in "$T/out" 'what=nan  *ERROR +run: plugin bug: set_device_time\(nan\): a device time must be finite'
expect_in "$T/out" 'what=huge  *ERROR +run: plugin bug: set_device_time\(1e\+300\)'
expect_in "$T/out" 'what=work_inf  *ERROR +setup: plugin bug: set_work\(inf\): flops must be finite'
expect_not_in "$T/out" 'nan s|inf GFLOP'
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r2" --plugin fx_badfig --param what=none
expect_rc 0 "sane figures"

# ---- the plugin's own reference: OK, and WRONG_ANSWER on a planted bug, in
# every mode (exact, dtype-aware tolerance, explicit rtol/atol, reference
# callback, self-check); no throughput for a wrong answer.
rm -rf "$T/r"
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum --param bug=0,1
expect_rc 1 "fx_sum with planted bugs"
for mode in exact tol explicit fn self; do
  expect_eq "$(csv_field "$R" fx_sum "mode=$mode bug=0" status)" OK "fx_sum $mode bug=0"
  expect_eq "$(csv_field "$R" fx_sum "mode=$mode bug=1" status)" WRONG_ANSWER "fx_sum $mode bug=1"
  expect_eq "$(csv_field "$R" fx_sum "mode=$mode bug=1" gflops)" "" "fx_sum $mode bug=1 gflops"
  expect_eq "$(csv_field "$R" fx_sum "mode=$mode bug=1" items_per_s)" "" "fx_sum $mode bug=1 items/s"
done
expect_eq "$(csv_field "$R" fx_sum "mode=exact bug=1" max_abs_err)" 1 "exact: off by one"
expect_eq "$(csv_field "$R" fx_sum "mode=exact bug=0" rtol)" 0 "exact rtol"
expect_in "$T/out" 'mode=exact bug=1  *WRONG_ANSWER +row_sum: 1 of 64 elements out of tolerance; first at \[32\]: got 288, expected 287 \(exact\)'
expect_in "$T/out" 'mode=self bug=1  *WRONG_ANSWER +row 32 sums to'
json=$(ls "$T/r"/*fx_sum*.json)
python3 - "$json" <<'PY' && ok || fail "fx_sum json"
import json, sys
d = json.load(open(sys.argv[1]))
cases = {c["params"]["mode"] + c["params"]["bug"]: c for c in d["cases"]}
ok = cases["tol0"]; bad = cases["tol1"]
assert ok["check"]["checked"] and ok["check"]["method"] == "plugin-tolerance", ok["check"]
assert ok["check"]["max_abs_err"] < 1e-4 and ok["check"]["rtol"] > 1.3e-6
assert bad["status"] == "WRONG_ANSWER" and bad["check"]["max_abs_err"] > 0.05
assert cases["self1"]["check"]["checked"] and cases["self1"]["check"]["method"] == "plugin-self"
assert cases["self0"]["check"]["checked"] and cases["self0"]["check"]["pass"]
# per-item units beside GFLOP/s and GB/s
assert ok["items"] == 6400 and ok["item_unit"] == "elements", ok
assert abs(ok["ns_per_item"] * ok["items_per_s"] - 1e9) < 1e-3 * 1e9
assert "items" not in bad or bad["items_per_s"] is None
PY
expect_in "$T/out" 'mode=tol bug=0  *OK .* [0-9.]+ [kMG]? ?elements/s'
txt=$(ls "$T/r"/*fx_sum*.txt)
expect_in "$txt" 'per item: [0-9.e+]+ elements/s, [0-9.e+-]+ ns per elements'
ips=$(csv_field "$R" fx_sum "mode=tol bug=0" items_per_s)
[ -n "$ips" ] && ok || fail "rollup items_per_s empty"
expect_eq "$(csv_field "$R" fx_sum "mode=tol bug=0" item_unit)" elements "rollup item_unit"
# A malformed comparison names the field.
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r3" --plugin fx_sum --param mode=malformed
expect_rc 1 "malformed compare"
expect_in "$T/out" 'ERROR +verify: plugin bug: malformed compare: row_sum: field out is NULL'

# ---- run_batch: warm batches go through it (1000 ns per iteration), cold
# samples through run() (5000 ns), one iteration each.
printf '[run]\ntier = smoke\nwarmup_iters = 1\nmin_samples = 3\nmax_samples = 5\nmax_time = 0.2s\ntarget_noise = 50%%\nbatch_min_time = 1ms\ntimeout = 3s\n' >"$T/warm.ini"
cp "$T/warm.ini" "$T/cold.ini"; echo 'batch = cold' >>"$T/cold.ini"
run_bench --preset "$T/warm.ini" --plugin-dir "$SDK" --results-dir "$T/w" --plugin fx_batch
expect_rc 0 "fx_batch warm"
expect_eq "$(csv_field "$T/w/rollup.csv" fx_batch rows= median_ms)" 0.001 "warm: run_batch's device time per iteration"
expect_in "$T/out" '1\.000 M launches/s'
run_bench --preset "$T/cold.ini" --plugin-dir "$SDK" --results-dir "$T/c" --plugin fx_batch
expect_rc 0 "fx_batch cold"
expect_eq "$(csv_field "$T/c/rollup.csv" fx_batch rows= median_ms)" 0.005 "cold: run()'s device time"
python3 -c "import json,glob,sys; c=json.load(open(glob.glob('$T/c/*.json')[0]))['cases'][0]; sys.exit(0 if c['batch']==1 else 1)" \
  && ok || fail "cold batch is not 1"
cp "$T/warm.ini" "$T/tepid.ini"; echo 'batch = tepid' >>"$T/tepid.ini"
run_bench --preset "$T/tepid.ini" --plugin-dir "$SDK" --results-dir "$T/c2" --plugin fx_batch
expect_rc 2 "bad batch value"
expect_in "$T/err" "tepid\.ini:10: bad value 'tepid' for batch: expected warm or cold"

# ---- --param and --filter
rm -rf "$T/r"
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum \
  --param mode=exact,tol --param bug=0,1 --param rows=16 --filter 'bug!=0' --filter 'mode=tol|self'
expect_rc 1 "--param sweep with --filter"
expect_in "$T/out" 'bench .*1 cases? in 1 plugin'
expect_in "$T/out" '\[ ?1/1\] fx_sum rows=16 cols=100 mode=tol bug=1  *WRONG_ANSWER'
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum \
  --param 'cols=50, 100' --filter 'cols>=60, mode=exact'
expect_rc 0 "--filter numeric"
expect_in "$T/out" '\[ ?1/1\] fx_sum rows=64 cols=100 mode=exact bug=0  *OK'
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum --param rows
expect_rc 2 "--param without ="
expect_in "$T/err" "^bench: error: --param rows: expected NAME=VALUE"
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum --param m=4
expect_rc 2 "--param unknown name"
expect_in "$T/err" "^bench: error: --param m=4: no selected plugin has a parameter 'm' \(known: rows, cols, mode, bug\)"
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum --param rows=0
expect_rc 2 "--param out of range"
expect_in "$T/err" "^bench: error: --param rows=0: plugin 'fx_sum', parameter 'rows': '0' is out of range"
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum --filter 'mode~exact'
expect_rc 2 "--filter bad operator"
expect_in "$T/err" "^bench: error: --filter 'mode~exact': condition 'mode~exact' needs an operator"
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum --filter 'mode<exact'
expect_rc 2 "--filter < on text"
expect_in "$T/err" "needs one number"
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum --filter 'm>=512'
expect_rc 2 "--filter unknown name"
expect_in "$T/err" "^bench: error: --filter 'm>=512': no selected plugin has a parameter 'm'"
run_bench --preset "$P" --plugin-dir "$SDK" --results-dir "$T/r" --plugin fx_sum --filter 'rows>4096'
expect_rc 2 "--filter matching nothing"
expect_in "$T/err" "^bench: error: --filter matched none of the 5 cases"

# ---- the SDK headers are C11 and C++ clean, and dtype.h converts as the harness does.
cat >"$T/hdr.c" <<'C'
#include <bench/dtype.h>
#include <bench/plugin.h>
#include <stdio.h>
int main(void) {
  /* 0.1 rounds to 0x2e66 in f16 and 0x3dcd in bf16; 65520 overflows f16 */
  int bad = bench_f32_to_f16(0.1f) != 0x2e66 || bench_f32_to_bf16(0.1f) != 0x3dcd ||
            bench_f32_to_f16(65520.0f) != 0x7c00 || bench_f16_to_f32(0x3c00) != 1.0f ||
            bench_bf16_to_f32(0xbf80) != -1.0f || bench_dtype_size(BENCH_I32) != 4 ||
            bench_host_extension(NULL, BENCH_EXT_COMPARE) != NULL;
  printf("%s\n", bad ? "bad" : "good");
  return bad;
}
C
cp "$T/hdr.c" "$T/hdr.cpp"
cc -std=c11 -Wall -Wextra -pedantic -Werror -I"$SRC/harness/include" "$T/hdr.c" -o "$T/hdr_c" 2>"$T/cc.err" \
  && "$T/hdr_c" >/dev/null && ok || { fail "C11 header check"; cat "$T/cc.err"; }
if command -v c++ >/dev/null; then
  c++ -std=c++11 -Wall -Wextra -pedantic -Werror -I"$SRC/harness/include" "$T/hdr.cpp" -o "$T/hdr_cpp" 2>"$T/cc.err" \
    && "$T/hdr_cpp" >/dev/null && ok || { fail "C++ header check"; cat "$T/cc.err"; }
fi

finish
