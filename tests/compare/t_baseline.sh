# bench --baseline PATH: each case line and the .txt carry the ratio and
# verdict against the same case in the baseline; a case the baseline lacks
# is NEW; an unreadable baseline stops the run before anything runs.
. "$(dirname "$0")/lib.sh"
PRESET="$SRC/tests/compare/same.ini"
# planted baselines: cpu_spin iters=10000 takes microseconds, so a
# baseline of 1 ns makes it SLOWER and one of 1 s makes it FASTER
"$GEN" "$T/fast" 1 <<'SPEC' || fail gen
run 2026-11-20 cpu_spin
case iters=10000 OK 1 0.01 30
SPEC
"$GEN" "$T/slow" 1 <<'SPEC' || fail gen
run 2026-11-20 cpu_spin
case iters=10000 OK 1e9 0.01 30
SPEC
"$GEN" "$T/other" 1 <<'SPEC' || fail gen
run 2026-11-20 cpu_spin
case iters=7 OK 1e9 0.01 30
SPEC
run_bench --preset "$PRESET" --plugin cpu_spin --results-dir "$T/r1" --baseline "$T/fast"
expect_rc 0 "run with a baseline"
expect_in "$T/out" 'cpu_spin iters=10000: OK .* baseline: ratio [0-9.]+ \[[0-9.]+, [0-9.]+\] SLOWER vs 2026-11-20' "case line"
expect_in "$T/r1/"*cpu_spin*.txt '^    baseline: ratio .* SLOWER vs 2026-11-20$' ".txt note"
python3 - "$T/r1" <<'PY' && ok || fail "json info"
import glob, json, sys
f = json.load(open(glob.glob(sys.argv[1] + "/*cpu_spin*.json")[0]))
assert "SLOWER" in f["cases"][0]["info"]["baseline"], f["cases"][0]["info"]
PY
run_bench --preset "$PRESET" --plugin cpu_spin --results-dir "$T/r2" --baseline "$T/slow/"
expect_in "$T/out" 'baseline: ratio .* FASTER vs 2026-11-20' "FASTER against a slow baseline"
run_bench --preset "$PRESET" --plugin cpu_spin --results-dir "$T/r3" --baseline "$T/other"
expect_in "$T/out" 'baseline: NEW \(not in the baseline\)' "a case the baseline lacks"
run_bench --preset "$PRESET" --plugin cpu_spin --results-dir "$T/r4" --baseline "$T/none"
expect_rc 2 "a missing baseline is a usage error"
expect_in "$T/err" "none" "names the baseline"
[ ! -e "$T/r4" ] && ok || fail "nothing written when the baseline is missing"
finish
