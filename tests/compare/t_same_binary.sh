# Two runs of the same binary on the same machine compare SAME or NOISY,
# never FASTER or SLOWER (the false positive users report of other compare
# tools). cpu_spin, a dependent chain of multiply-adds, under a short
# preset with enough samples for a distribution.
. "$(dirname "$0")/lib.sh"
PRESET="$SRC/tests/compare/same.ini"
for run in a b; do
  run_bench --preset "$PRESET" --plugin cpu_spin --results-dir "$T/$run"
  expect_rc 0 "run $run"
done
run_bench compare "$T/a" "$T/b" --format csv
expect_rc 0 "no regression between two runs of the same binary"
python3 - "$T/out" <<'PY' && ok || fail "a verdict other than SAME/NOISY"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no rows"
for r in rows:
    print(r["plugin"], r["params"], r["ratio"], r["ci_lo"], r["ci_hi"], r["verdict"])
    assert r["verdict"] in ("SAME", "NOISY"), r
PY
# the same files against themselves: ratio exactly 1, no evidence of a
# difference (p = 1); SAME, or NOISY when the samples themselves are noisy
run_bench compare "$T/a" "$T/a" --format csv
python3 - "$T/out" <<'PY' && ok || fail "a run against itself"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no rows"
for r in rows:
    assert r["verdict"] in ("SAME", "NOISY") and float(r["ratio"]) == 1.0 and float(r["p"]) == 1.0, r
PY
finish
