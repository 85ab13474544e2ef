# bench compare on planted results whose answer is known: every verdict,
# unmatched cases, failures on either side, the summary, the formats, the
# exit codes and the folder + date/tag selectors.
. "$(dirname "$0")/lib.sh"

# old: 2026-11-20, new: 2026-11-21; medians in ns, relative spread, samples.
# Each folder also holds three earlier days' runs of the same cases (the
# history: bench compare estimates each case's run-to-run spread from them,
# here tight, instead of taking the default between-run term).
cat >"$T/old.spec" <<'SPEC' || fail "old spec"
run 2026-11-20 px
case c=same    OK 1000 0.02 40
case c=faster  OK 1000 0.02 40
case c=slower  OK 1000 0.02 40
case c=noisy   OK 1000 0.60 6
case c=wrong   OK 1000 0.02 40
case c=crash   OK 1000 0.02 40
case c=timeout OK 1000 0.02 40
case c=fixed   CRASH 0 0 0
case c=oldbad  WRONG_ANSWER 1000 0.02 40
case c=gone    OK 1000 0.02 40
case c=dev     OK 1000 0.02 40 device=1
run 2026-11-20 py
case c=a OK 500 0.01 30
case c=b OK 500 0.01 30 batch=1
SPEC
cat >"$T/new.spec" <<'SPEC' || fail "new spec"
run 2026-11-21 px
case c=same    OK 1000 0.02 40
case c=faster  OK 700 0.02 40
case c=slower  OK 1300 0.02 40
case c=noisy   OK 1050 0.60 6
case c=wrong   WRONG_ANSWER 1000 0.02 40
case c=crash   CRASH 0 0 0
case c=timeout TIMEOUT 0 0 0
case c=fixed   OK 1000 0.02 40
case c=oldbad  OK 500 0.02 40
case c=added   OK 1000 0.02 40
case c=dev     OK 1000 0.02 40 device=1
run 2026-11-21 py
case c=a OK 350 0.01 30
case c=b OK 500 0.01 30 batch=1000
SPEC
"$GEN" "$T/old" 1 <"$T/old.spec" || fail "gen old"
"$GEN" "$T/new" 2 <"$T/new.spec" || fail "gen new"
# history: earlier days, OK cases only (a failed run is no history)
for d in 15 16 17; do
  grep -v -E 'CRASH|TIMEOUT|WRONG_ANSWER|c=gone|c=added' "$T/old.spec" | sed "s/2026-11-20/2026-11-$d/" | "$GEN" "$T/old" "$d" ||
    fail "gen old history"
  grep -v -E 'CRASH|TIMEOUT|WRONG_ANSWER|c=gone|c=added' "$T/new.spec" | sed "s/2026-11-21/2026-11-$d/" | "$GEN" "$T/new" "$d" ||
    fail "gen new history"
done

run_bench compare "$T/old" "$T/new" --format csv
expect_rc 1 "a SLOWER and failures: exit 1"
cp "$T/out" "$T/v.csv"
for pair in same:SAME faster:FASTER slower:SLOWER noisy:NOISY wrong:WRONG_ANSWER crash:CRASH \
            timeout:TIMEOUT fixed:FIXED oldbad:FIXED gone:MISSING added:NEW dev:SAME; do
  expect_eq "$(verdict "$T/v.csv" px "c=${pair%%:*}")" "${pair#*:}" "verdict of c=${pair%%:*}"
done
expect_eq "$(verdict "$T/v.csv" py c=a)" FASTER "py c=a"
expect_eq "$(verdict "$T/v.csv" py c=b)" SAME "py c=b"

# the table: aligned, unmatched cases listed, summary with geometric means
run_bench compare "$T/old" "$T/new"
expect_rc 1 "table exit"
expect_in "$T/out" '^px +c=gone .*MISSING$' "table row of an unmatched old case"
expect_in "$T/out" '^px +c=added .*NEW$' "table row of an unmatched new case"
expect_in "$T/out" '2 unmatched: 1 only in old \(MISSING\), 1 only in new \(NEW\)' "unmatched summary"
expect_in "$T/out" '^14 cases: 3 SAME, 2 FASTER, 1 SLOWER, 1 NOISY, 1 WRONG_ANSWER, 1 CRASH, 1 TIMEOUT, 2 FIXED, 1 MISSING, 1 NEW' "verdict counts"
expect_in "$T/out" '^  py 0\.8[34][0-9] \(2\)$' "geomean of py (sqrt 0.7)"
expect_not_in "$T/out" $'\033' "no colour when not on a terminal"
expect_in "$T/out" '^note: 1 case timed with a different batch .*: py c=b \(1 -> 1000\)$' "a batch change is noted"
run_bench compare "$T/old" "$T/new" --color always
expect_in "$T/out" $'\033\\[31mSLOWER' "colour on request"

# json: every case, ratio inside its interval, summary
run_bench compare "$T/old" "$T/new" --format json
expect_rc 1 "json exit"
python3 - "$T/out" <<'PY' && ok || fail "json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "bench-compare/1"
cases = {(c["plugin"], c["params"].get("c")): c for c in d["cases"]}
assert len(cases) == 14, len(cases)
s = cases[("px", "slower")]
assert s["ci_lo"] <= s["ratio"] <= s["ci_hi"] and 1.25 < s["ratio"] < 1.35, s
assert cases[("px", "dev")]["timer"] == "device"
assert cases[("px", "gone")]["new"] is None and cases[("px", "added")]["old"] is None
assert d["summary"]["counts"]["SLOWER"] == 1 and d["summary"]["exit_status"] == 1
assert 0.8 < d["summary"]["geomean"]["py"] < 0.87
PY
run_bench compare "$T/old" "$T/new" --format md
expect_in "$T/out" '^\| plugin \| params \| old \| new \| ratio \| 95% CI \| p \| verdict \|$' "markdown header"
expect_in "$T/out" '^\| px \| c=slower \|.*\| SLOWER \|$' "markdown row"

# exit codes
run_bench compare "$T/old" "$T/new" --plugin py
expect_rc 0 "only FASTER/SAME: exit 0"
run_bench compare "$T/old" "$T/new" --plugin px --fail-on none
expect_rc 0 "--fail-on none"
run_bench compare "$T/old" "$T/new" --plugin px --fail-on missing
expect_rc 1 "--fail-on missing with a missing case"
run_bench compare "$T/old" "$T/new" --plugin py --fail-on missing,slower,wrong
expect_rc 0 "nothing missing in py"
run_bench compare "$T/old" "$T/new" --plugin px --threshold 50% --fail-on slower
expect_rc 0 "a 30% slowdown within a 50% threshold"
run_bench compare "$T/old" "$T/new" --threshold 50% --format csv
expect_eq "$(verdict "$T/out" px c=slower)" SAME "c=slower within 50%"
run_bench compare "$T/old" "$T/new" --threshold 1.5
expect_rc 2 "bad threshold"
run_bench compare "$T/old"
expect_rc 2 "one path without selectors"
expect_in "$T/err" 'compare needs OLD and NEW' "usage message"
run_bench compare "$T/old" "$T/nonexistent"
expect_rc 2 "missing folder"
expect_in "$T/err" "cannot read '.*nonexistent'" "names the path"
run_bench compare "$T/old" "$T/new" --format xml
expect_rc 2 "bad format"
run_bench compare "$T/old" "$T/new" --fail-on faster
expect_rc 2 "bad --fail-on"
echo '{"schema": "bench-result/1", "cases": [' >"$T/broken.json"
run_bench compare "$T/broken.json" "$T/new"
expect_rc 2 "an unreadable file named on the command line"
expect_in "$T/err" "broken.json" "names the file"

# one folder, runs chosen by date and by tag
mkdir -p "$T/all" && cp "$T"/old/*.json "$T"/new/*.json "$T/all/"
run_bench compare "$T/all" --old-date 2026-11-20 --new-date 2026-11-21 --format csv
expect_rc 1 "folder + dates"
# the runs of those dates only, no history: one run a side with the default
# between-run term, too wide to call a 30% change; the ratio shows the
# right runs were picked
python3 - "$T/out" <<'PY' && ok || fail "dates: c=slower is the 20th against the 21st"
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["params"] == "c=slower"][0]
assert 1.25 < float(r["ratio"]) < 1.35 and r["old_term"] == r["new_term"] == "default", r
PY
expect_eq "$(verdict "$T/out" px c=gone)" MISSING "dates: c=gone"
run_bench compare "$T/all" "$T/all" --format csv
expect_eq "$(verdict "$T/out" px c=slower)" SAME "a folder against itself: the newest run on both sides"
"$GEN" "$T/tags" 3 <<'SPEC' || fail "gen tags"
run 2026-11-22 px mi300x
case c=same OK 1000 0.02 40
run 2026-11-22 px mi250x
case c=same OK 2000 0.02 40
SPEC
run_bench compare "$T/tags" --old-tag mi250x --new-tag mi300x --format csv
expect_eq "$(verdict "$T/out" px c=same)" FASTER "tags: mi300x twice as fast as mi250x"
run_bench compare "$T/tags" --old-tag mi250x --new-date 2026-11-21
expect_rc 2 "a selector that keeps nothing"
expect_in "$T/err" 'no results to compare' "says so"
finish
