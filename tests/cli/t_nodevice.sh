#!/usr/bin/env bash
# A backend whose plugins all SKIP with one reason (no device here) is one
# line of the run's output, "fx_nodev_* 2 plugins, 6 cases: SKIPPED,
# REASON"; every case is still in the result files, the rollup and the
# events. --verbose shows them one by one; a backend where a case ran
# (cpu: fx_ok beside fx_skip) keeps one line per case.
. "$(dirname "$0")/lib.sh"

NODEV=$BUILD/tests/fixtures/nodev
run_bench --preset smoke --plugin-dir "$NODEV" --plugin-dir "$FX_GOOD" --plugin 'fx_nodev_*,fx_ok,fx_skip' \
  --param n=1,2,3 --results-dir "$T/r" --events "$T/ev"
expect_rc 0 "run with a backend that cannot run here"
expect_eq "$(grep -c '^fx_nodev_\* 2 plugins, 6 cases: SKIPPED, no frobnicator on this machine$' "$T/out")" 1 \
  "one summary line for the fxdev backend"
expect_not_in "$T/out" 'fx_nodev_[ab] n=' "no per-case line of the fxdev backend"
expect_eq "$(grep -Ec '\] fx_ok n=[123] +OK' "$T/out")" 3 "fx_ok: one line per case"
expect_eq "$(grep -Ec '\] fx_skip n=[123] +SKIPPED +no frobnicator' "$T/out")" 3 \
  "fx_skip (backend cpu, where fx_ok ran): one line per case"
expect_in "$T/out" '^bench: 12 of 12 cases run in .*: 3 ok, 9 skipped, 0 failed' "the counts"
python3 - "$T/r" "$T/ev" <<'PY' && ok || fail "cases in the files, rollup and events"
import csv, glob, json, sys
rdir, ev = sys.argv[1], sys.argv[2]
n = 0
for f in glob.glob(rdir + "/*_fx_nodev_*_smoke.json"):
    for c in json.load(open(f))["cases"]:
        assert c["status"] == "SKIPPED" and c["message"] == "no frobnicator on this machine", c
        n += 1
assert n == 6, n
rows = [r for r in csv.DictReader(open(rdir + "/rollup.csv")) if r["plugin"].startswith("fx_nodev_")]
assert len(rows) == 6 and all(r["status"] == "SKIPPED" for r in rows), rows
ends = [e for e in map(json.loads, open(ev)) if e.get("event") == "TEST_END" and e.get("plugin", "").startswith("fx_nodev_")]
assert len(ends) == 6, ends
PY

run_bench --preset smoke --plugin-dir "$NODEV" --param n=1,2,3 --results-dir "$T/r2" --verbose
expect_rc 0 "--verbose"
expect_eq "$(grep -Ec '\] fx_nodev_[ab] n=[123] +SKIPPED +no frobnicator' "$T/out")" 6 "--verbose: one line per case"
expect_not_in "$T/out" 'plugins, 6 cases: SKIPPED' "--verbose: no summary line"
finish
