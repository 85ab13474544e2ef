#!/usr/bin/env bash
# Honest status words (issue 22): a failed self-check of an operation "none"
# plugin (host->fail from verify, or bench.compare/1's mismatch) is
# WRONG_ANSWER with check.pass false and the plugin's reason; a case that
# nothing checked says "unchecked" on its line, in the .txt, the JSON and
# the rollup; --require-check or require_check = true fails it (exit 1).
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/bin"
cp "$BENCH" "$T/bin/bench"
BENCH="$T/bin/bench"
SELF="$FX_GOOD/../self"
P="$SRC/tests/cli/presets/fast.ini"
R="$T/r/rollup.csv"

# json_check FILE HOW KEY: check.KEY of the case with how=HOW.
json_check() {
  python3 - "$@" <<'PY'
import json, sys
path, how, key = sys.argv[1:4]
for c in json.load(open(path))["cases"]:
    if c["params"].get("how") == how:
        v = c["check"][key]
        print(json.dumps(v) if isinstance(v, bool) else v); break
else:
    print("<no case>")
PY
}

run_bench --preset "$P" --plugin-dir "$SELF" --results-dir "$T/r" --plugin fx_self
expect_rc 1 "a failed self-check fails the run"
J="$T/r/${TODAY}_fx_self_fast.json"
X="$T/r/${TODAY}_fx_self_fast.txt"
expect_in "$T/out" 'how=nothing  *OK .* unchecked$'
expect_in "$T/out" 'how=fail  *WRONG_ANSWER  self-check: element 7 is 3, expected 4$'
expect_in "$T/out" 'how=mismatch  *WRONG_ANSWER  self-check: element 7 is 3, expected 4$'
expect_in "$T/out" 'how=matched  *OK .* err 0$'
expect_not_in "$T/out" 'how=matched  *OK .*unchecked'
expect_not_in "$T/out" 'ERROR'
for how in fail mismatch; do
  expect_eq "$(csv_field "$R" fx_self "how=$how" status)" WRONG_ANSWER "rollup status how=$how"
  expect_eq "$(csv_field "$R" fx_self "how=$how" check)" plugin-self "rollup check how=$how"
  expect_eq "$(json_check "$J" "$how" pass)" false "json check.pass how=$how"
  expect_eq "$(json_check "$J" "$how" checked)" true "json check.checked how=$how"
  expect_eq "$(json_check "$J" "$how" message)" "self-check: element 7 is 3, expected 4" "json message how=$how"
done
expect_eq "$(csv_field "$R" fx_self how=nothing status)" OK "rollup status how=nothing"
expect_eq "$(csv_field "$R" fx_self how=nothing check)" unchecked "rollup check how=nothing"
expect_eq "$(csv_field "$R" fx_self how=matched check)" plugin-self "rollup check how=matched"
expect_eq "$(json_check "$J" nothing checked)" false "json check.checked how=nothing"
expect_eq "$(json_check "$J" nothing method)" none "json check.method how=nothing"
expect_eq "$(json_check "$J" matched pass)" true "json check.pass how=matched"
expect_in "$X" 'how=nothing +OK .* unchecked +- '
expect_not_in "$X" 'how=matched +OK .* unchecked'
expect_in "$X" '^  +[0-9]+ +rows=64 cols=100 how=fail +WRONG_ANSWER '
expect_in "$X" 'wrong answer: self-check: element 7 is 3, expected 4'
expect_in "$X" 'check: plugin-self: the plugin.s own check failed'

# --require-check: the unchecked case is ERROR, the checked ones unchanged.
run_bench --preset "$P" --plugin-dir "$SELF" --results-dir "$T/rq" --plugin fx_self \
  --param how=nothing,matched --require-check
expect_rc 1 "--require-check with an unchecked case"
expect_in "$T/out" 'how=nothing  *ERROR  unchecked: the plugin checked nothing \(--require-check\)$'
expect_in "$T/out" 'how=matched  *OK '
expect_eq "$(csv_field "$T/rq/rollup.csv" fx_self how=nothing status)" ERROR "rollup --require-check"
expect_eq "$(csv_field "$T/rq/rollup.csv" fx_self how=nothing check)" unchecked "rollup check --require-check"
run_bench --preset "$P" --plugin-dir "$SELF" --results-dir "$T/rq2" --plugin fx_self \
  --param how=matched --require-check
expect_rc 0 "--require-check with every case checked"

# The preset key does the same.
{ cat "$P"; echo "require_check = true"; } >"$T/req.ini"
run_bench --preset "$T/req.ini" --plugin-dir "$SELF" --results-dir "$T/rp" --plugin fx_self \
  --param how=nothing
expect_rc 1 "require_check = true with an unchecked case"
expect_in "$T/out" 'how=nothing  *ERROR  unchecked: the plugin checked nothing \(--require-check\)$'
{ cat "$P"; echo "require_check = false"; } >"$T/noreq.ini"
run_bench --preset "$T/noreq.ini" --plugin-dir "$SELF" --results-dir "$T/rn" --plugin fx_self \
  --param how=nothing
expect_rc 0 "require_check = false"
expect_in "$T/out" 'how=nothing  *OK .* unchecked$'
{ cat "$P"; echo "require_check = maybe"; } >"$T/bad.ini"
run_bench --preset "$T/bad.ini" --plugin-dir "$SELF" --results-dir "$T/rb" --plugin fx_self
expect_rc 2 "require_check = maybe"
expect_in "$T/err" "bad value 'maybe' for require_check"

finish
