# bench --baseline PATH: each case line and the .txt carry the ratio and
# verdict against the same case in the baseline, the ones bench compare
# gives on the same files; a case the baseline lacks
# is NEW; an unreadable baseline stops the run before anything runs.
. "$(dirname "$0")/lib.sh"
# same.ini's sizes, with room to reach its 20 samples on a loaded machine
# (under ASan beside other tests, 300 ms gave fewer: an unsettled run, whose
# verdict against a baseline is held at NOISY)
PRESET="$T/baseline.ini"
sed 's/^max_time = .*/max_time = 10s/' "$SRC/tests/compare/same.ini" >"$PRESET"
grep -q '^max_time = 10s$' "$PRESET" || fail "no max_time in same.ini"
# planted baselines: fx_devtime n=8 reports 1 us of device time per
# iteration whatever the machine's load (a host-timed plugin such as
# cpu_spin is so noisy beside stress-ng that its verdict turns NOISY), so a
# baseline of 1 ns makes it SLOWER and one of 1 s makes it FASTER
"$GEN" "$T/fast" 1 <<'SPEC' || fail gen
run 2026-11-20 fx_devtime
case n=8 OK 1 0.01 30 device=1
SPEC
"$GEN" "$T/slow" 1 <<'SPEC' || fail gen
run 2026-11-20 fx_devtime
case n=8 OK 1e9 0.01 30 device=1
SPEC
"$GEN" "$T/other" 1 <<'SPEC' || fail gen
run 2026-11-20 fx_devtime
case n=7 OK 1e9 0.01 30 device=1
SPEC
FX=(--plugin-dir "$FX_GOOD" --plugin fx_devtime)
run_bench --preset "$PRESET" "${FX[@]}" --results-dir "$T/r1" --baseline "$T/fast"
expect_rc 0 "run with a baseline"
expect_in "$T/out" 'fx_devtime n=8  *OK .* baseline: ratio [0-9.]+ \[[0-9.]+, [0-9.]+\] SLOWER vs 2026-11-20' "case line"
expect_in "$T/r1/"*fx_devtime*.txt '^    baseline: ratio .* SLOWER vs 2026-11-20$' ".txt note"
python3 - "$T/r1" <<'PY' && ok || fail "json info"
import glob, json, sys
f = json.load(open(glob.glob(sys.argv[1] + "/*fx_devtime*.json")[0]))
assert "SLOWER" in f["cases"][0]["info"]["baseline"], f["cases"][0]["info"]
PY
# the verdict and interval the run recorded are bench compare's on the same files
run_bench compare "$T/fast" "$T/r1" --format csv --fail-on none
python3 - "$T/r1" "$T/out" <<'PY' && ok || fail "--baseline and compare agree"
import csv, glob, json, re, sys
f = json.load(open(glob.glob(sys.argv[1] + "/*fx_devtime*.json")[0]))
text = f["cases"][0]["info"]["baseline"]
m = re.match(r"ratio ([0-9.]+) \[([0-9.]+), ([0-9.]+)\] ([A-Z_]+) vs ", text)
assert m, text
row = [r for r in csv.DictReader(open(sys.argv[2], newline="")) if r["params"] == "n=8"][0]
want = ("%.3f" % float(row["ratio"]), "%.3f" % float(row["ci_lo"]), "%.3f" % float(row["ci_hi"]), row["verdict"])
assert m.groups() == want, (text, want)
PY
run_bench --preset "$PRESET" "${FX[@]}" --results-dir "$T/r2" --baseline "$T/slow/"
expect_in "$T/out" 'baseline: ratio .* FASTER vs 2026-11-20' "FASTER against a slow baseline"
run_bench --preset "$PRESET" "${FX[@]}" --results-dir "$T/r3" --baseline "$T/other"
expect_in "$T/out" 'baseline: NEW \(not in the baseline\)' "a case the baseline lacks"
run_bench --preset "$PRESET" "${FX[@]}" --results-dir "$T/r4" --baseline "$T/none"
expect_rc 2 "a missing baseline is a usage error"
expect_in "$T/err" "none" "names the baseline"
[ ! -e "$T/r4" ] && ok || fail "nothing written when the baseline is missing"
finish
