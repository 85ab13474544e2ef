# Sample values are checked when a result file is read: a case whose
# samples (or timing statistics) are negative, zero, NaN, infinite or absurd
# (1e308 ns) loses its timings, with one warning per file naming the file
# and what was wrong; compare, history and --baseline never print a ratio
# from such data (NO_DATA instead), and the rollup leaves its times empty.
. "$(dirname "$0")/lib.sh"
CLASSES="neg zero notanumber unbounded huge"
spec() { # spec DATE PLUGIN: one case per class and a good one
  echo "run $1 $2"
  for c in $CLASSES good; do echo "case c=$c OK 1000 0.02 30"; done
}
# plant VALUE_OF_CLASS into the samples of every case c=<class> of FILE
# (the stats too when STATS=1)
plant() {
  STATS=${STATS:-0} python3 - "$1" <<'PY'
import json, os, sys
path = sys.argv[1]
vals = {"neg": -150.0, "zero": 0.0, "notanumber": "NaN", "unbounded": "Infinity", "huge": 1e308}
f = json.load(open(path))
for c in f["cases"]:
    cls = c["params"]["c"]
    if cls not in vals:
        continue
    v = vals[cls]
    c["samples"]["host_ns"] = [v] * len(c["samples"]["host_ns"])
    if os.environ["STATS"] == "1":
        for k in ("min", "median", "mean", "max", "q1", "q3"):
            c["host"][k] = v
json.dump(f, open(path, "w"), indent=2)
PY
}
"$GEN" "$T/old" 1 < <(spec 2026-11-18 px) || fail gen
"$GEN" "$T/new" 2 < <(spec 2026-11-19 px) || fail gen
NEW=$(ls "$T/new/"*.json)
plant "$NEW" || fail plant

# compare: every bad class is NO_DATA, the good case still compared
run_bench compare "$T/old" "$T/new" --format csv
expect_rc 0 "compare with bad samples"
for c in $CLASSES; do expect_eq "$(verdict "$T/out" px "c=$c")" NO_DATA "compare c=$c"; done
# (one run a side, no history: the default between-run term, so NOISY)
expect_eq "$(verdict "$T/out" px c=good)" NOISY "compare c=good"
expect_eq "$(grep -c 'warning' "$T/err")" 1 "one warning for the file"
expect_in "$T/err" "warning: .*$(basename "$NEW").*5 cases.*negative.*zero.*not finite.*above 1e15 ns" "the warning names the file and the classes"
run_bench compare "$T/old" "$T/new"
expect_not_in "$T/out" '-150|[Nn]a[Nn]|[Ii]nf|FASTER|SLOWER' "no ratio from bad data in the table"
expect_eq "$(grep -c 'NOISY' "$T/out")" 2 "the good case's row and the verdict counts only"
# the same with the bad file on the old side
run_bench compare "$T/new" "$T/old"
expect_not_in "$T/out" '-150|[Nn]a[Nn]|[Ii]nf|FASTER|SLOWER' "bad samples on the old side"
expect_eq "$(grep -c 'NOISY' "$T/out")" 2 "old side: the good case's row and the verdict counts only"
run_bench compare "$T/new" "$T/old" --format csv
for c in $CLASSES; do expect_eq "$(verdict "$T/out" px "c=$c")" NO_DATA "old side c=$c"; done

# bad statistics alone (samples fine) are refused the same way
"$GEN" "$T/st" 2 < <(spec 2026-11-19 px) || fail gen
STATS=1 plant "$(ls "$T/st/"*.json)" || fail plant
python3 - "$(ls "$T/st/"*.json)" <<'PY' || fail "restore samples"
import json, sys
p = sys.argv[1]
f = json.load(open(p))
for c in f["cases"]:
    c["samples"]["host_ns"] = [1000.0] * len(c["samples"]["host_ns"])
json.dump(f, open(p, "w"), indent=2)
PY
run_bench compare "$T/old" "$T/st" --format csv
for c in $CLASSES; do expect_eq "$(verdict "$T/out" px "c=$c")" NO_DATA "stats only c=$c"; done
run_bench rollup --results-dir "$T/st"
expect_rc 0 "rollup"
python3 - "$T/st/rollup.csv" <<'PY' && ok || fail "rollup leaves the times of bad cases empty"
import csv, sys
rows = {r["params"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
assert len(rows) == 6, rows.keys()
for c in ("neg", "zero", "notanumber", "unbounded", "huge"):
    r = rows["c=" + c]
    assert r["median_ms"] == "" and r["samples"] == "0", r
assert float(rows["c=good"]["median_ms"]) > 0
PY

# history: no shift and no ratio across a bad run
mkdir -p "$T/h"
cp "$T/old/"*.json "$T/new/"*.json "$T/h/"
run_bench history --results-dir "$T/h"
expect_rc 0 "history"
expect_not_in "$T/out" '-150|[Nn]a[Nn]|[Ii]nf|(FASTER|SLOWER) x' "history prints no ratio from bad data"
expect_in "$T/out" '0 level shifts' "no level shift"
expect_eq "$(grep -c 'warning' "$T/err")" 1 "history: one warning"
run_bench history --results-dir "$T/h" --format csv
expect_not_in "$T/out" '-150|[Nn]a[Nn]|[Ii]nf' "history csv"

# --baseline: a baseline whose samples are bad gives NO_DATA, never a ratio
PRESET="$SRC/tests/compare/same.ini"
for c in $CLASSES; do
  "$GEN" "$T/b$c" 1 <<SPEC || fail gen
run 2026-11-20 fx_devtime
case n=8 OK 1000 0.01 30 device=1
SPEC
  python3 - "$(ls "$T/b$c/"*.json)" "$c" <<'PY' || fail "plant $c"
import json, sys
vals = {"neg": -150.0, "zero": 0.0, "notanumber": "NaN", "unbounded": "Infinity", "huge": 1e308}
p, c = sys.argv[1:3]
f = json.load(open(p))
case = f["cases"][0]
for k in ("host_ns", "device_ns"):
    case["samples"][k] = [vals[c]] * len(case["samples"][k])
json.dump(f, open(p, "w"), indent=2)
PY
  run_bench --preset "$PRESET" --plugin-dir "$FX_GOOD" --plugin fx_devtime --results-dir "$T/r$c" --baseline "$T/b$c"
  expect_rc 0 "run with a bad baseline ($c)"
  expect_in "$T/out" 'fx_devtime n=8  *OK .* baseline: NO_DATA vs 2026-11-20' "baseline $c: NO_DATA"
  # the word, not its letters: a busy machine's warning names its "calibration" loop
  expect_not_in "$T/out" '(^|[^[:alpha:]])ratio' "baseline $c: no ratio"
  expect_in "$T/err" "warning: .*$(basename "$(ls "$T/b$c/"*.json)")" "baseline $c: the warning names the file"
done
finish
