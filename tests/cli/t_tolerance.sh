#!/usr/bin/env bash
# Issue 22: tolerances that fit the data. A correct serial fp32 prefix sum
# (fx_scan, ABI 1.3) is WRONG_ANSWER under the default tolerance, which
# follows |ref| of a running sum that cancels; under BENCH_TOL_SCALED with the
# running sum of |x| it is OK, and one element 20x its scaled tolerance off is
# still WRONG_ANSWER. Int kernels: an int32 scan compared exactly catches an
# off-by-one; one handed as f32 against an int reference gets a note.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/bin"
cp "$BENCH" "$T/bin/bench"
BENCH="$T/bin/bench"
SCAN="$FX_GOOD/../scan"
P="$SRC/tests/cli/presets/fast.ini"
R="$T/r/rollup.csv"

run_bench --preset "$P" --plugin-dir "$SCAN" --results-dir "$T/r" --plugin fx_scan --param bug=0,1
expect_rc 1 "fx_scan: default tolerance and planted bugs fail"
expect_eq "$(csv_field "$R" fx_scan "check=default bug=0" status)" WRONG_ANSWER "default: a correct cancelling scan fails"
expect_in "$T/out" 'check=default bug=0  *WRONG_ANSWER +scan: [0-9]+ of 100000 elements out of tolerance'
expect_eq "$(csv_field "$R" fx_scan "check=scaled bug=0" status)" OK "scaled: the correct scan passes"
expect_eq "$(csv_field "$R" fx_scan "check=scaled bug=1" status)" WRONG_ANSWER "scaled: 20x planted is caught"
expect_in "$T/out" 'check=scaled bug=1  *WRONG_ANSWER +scan: 1 of 100000 elements out of tolerance; first at \[80000\]'
expect_eq "$(csv_field "$R" fx_scan "check=int bug=0" status)" OK "int: exact scan passes"
expect_eq "$(csv_field "$R" fx_scan "check=int bug=0" rtol)" 0 "int: compared exactly"
expect_eq "$(csv_field "$R" fx_scan "check=int bug=1" status)" WRONG_ANSWER "int: off by one is caught"
expect_in "$T/out" 'check=int bug=1  *WRONG_ANSWER +scan: 1 of 100000 elements out of tolerance; first at \[80000\]: .*\(exact\)'
expect_eq "$(csv_field "$R" fx_scan "check=intf32 bug=0" status)" OK "intf32 passes"
json=$(ls "$T/r"/*fx_scan*.json)
python3 - "$json" <<'PY' && ok || fail "fx_scan json: method and notes"
import json, sys
d = json.load(open(sys.argv[1]))
cases = {c["params"]["check"] + c["params"]["bug"]: c for c in d["cases"]}
assert cases["scaled0"]["check"]["method"] == "plugin-scaled", cases["scaled0"]["check"]
assert cases["int0"]["check"]["method"] == "plugin-exact", cases["int0"]["check"]
blob = json.dumps(cases["intf32" + "0"])
assert "an integer reference compared with a f32 output under a tolerance" in blob, blob[:2000]
assert "integer reference" not in json.dumps(cases["int0"])
PY
expect_in "$T/out" 'note: scan: an integer reference compared with a f32 output under a tolerance'
txt=$(ls "$T/r"/*fx_scan*.txt)
expect_in "$txt" 'an integer reference compared with a f32 output under a tolerance'
finish
