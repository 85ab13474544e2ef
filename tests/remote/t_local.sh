#!/usr/bin/env bash
# run_presets_local.sh: each preset run with its log, result files, the
# rollup and the summary; a failed case leaves a diag file; --resume runs
# only what is missing or failed; the terminal shows case lines and PROGRESS
# (redrawn on a tty), never the JSON events; usage errors; Ctrl-C keeps what
# was measured.
# shellcheck disable=SC2015,SC2012 # `test && ok || fail` (ok never fails); ls of our own names
# shellcheck source=tests/cli/lib.sh
. "$SRC/tests/cli/lib.sh"
SCRIPT=$SRC/scripts/run_presets_local.sh
FAST=$SRC/tests/cli/presets/fast.ini
R=$T/r
export BENCH # no build: the built bench

run_local() {
  "$SCRIPT" --results-dir "$R" "$@" >"$T/out" 2>&1 </dev/null
  RC=$?
}

run_local --tag lo "$FAST,smoke" fx_ok,fx_skip -- --plugin-dir "$FX_GOOD"
expect_rc 0 "two presets"
for pr in fast smoke; do
  for p in fx_ok fx_skip; do
    [ -f "$R/${TODAY}_${p}_${pr}_lo.json" ] && [ -f "$R/${TODAY}_${p}_${pr}_lo.txt" ] && ok || fail "missing $p $pr"
  done
  log=$(ls "$R"/logs/*_"${pr}"_lo.log 2>/dev/null | head -n 1)
  [ -n "$log" ] && ok || fail "no log for $pr"
  [ -z "$log" ] || expect_in "$log" '^\{"event":"SUITE_END"' "$pr log"
done
expect_eq "$(csv_field "$R/rollup.csv" fx_ok n=8 tag)" lo "rollup tag"
expect_in "$T/out" '^PROGRESS: ' "PROGRESS lines shown"
expect_not_in "$T/out" '"event"' "JSON events on the terminal"
expect_in "$T/out" '^\[ *[0-9]+/[0-9]+\] fx_ok' "case lines shown"
expect_in "$T/out" '^ +2  fx_skip +n=8 +SKIPPED' "summary table"
expect_in "$T/out" '^  smoke: 1 ok, 1 skipped, 0 failed' "summary line"
ls "$R"/diag_* >/dev/null 2>&1 && fail "a diag file for a clean run" || ok

# A failed case: exit 1 and a diag file.
run_local "$FAST" fx_wrong -- --plugin-dir "$FX_GOOD"
expect_rc 1 "a wrong answer"
diag=$(ls "$R"/diag_*_fast.txt 2>/dev/null | head -n 1)
[ -n "$diag" ] && ok || fail "no diag file"
[ -z "$diag" ] || expect_in "$diag" '^== free -h'
[ -z "$diag" ] || expect_in "$diag" 'WRONG_ANSWER'
[ -z "$diag" ] || expect_in "$diag" '^== df -h' "diag names the free disk"

# --resume does not take a failed result for done: fx_wrong runs again.
run_local --resume "$FAST" fx_wrong -- --plugin-dir "$FX_GOOD"
expect_rc 1 "resume of a failed plugin"
expect_not_in "$T/out" 'nothing to run' "a failed result counted as home"
[ -f "$R/${TODAY}_fx_wrong_fast.2.json" ] && ok || fail "fx_wrong did not run again"

# --resume: the pairs home are skipped, the others run.
n=$(ls "$R"/*.json | wc -l)
run_local --tag lo --resume "$FAST,smoke" fx_ok,fx_skip,fx_noisy -- --plugin-dir "$FX_GOOD"
expect_rc 0 "resume"
expect_eq "$(ls "$R"/*.json | wc -l)" $((n + 2)) "result files after the resume"
[ -f "$R/${TODAY}_fx_noisy_smoke_lo.json" ] && ok || fail "fx_noisy did not run"
[ ! -e "$R/${TODAY}_fx_ok_smoke_lo.2.json" ] && ok || fail "fx_ok ran again"
expect_in "$T/out" 'skipping fx_ok fx_skip' "what resume skipped"
run_local --tag lo --resume "$FAST" 'fx_o*,fx_skip' -- --plugin-dir "$FX_GOOD"
expect_rc 0 "resume with nothing left"
expect_in "$T/out" 'nothing to run' "resume with nothing left"

# --resume does not take a file a killed run left half written (a journal
# beside it) for done: bench says it is not complete, and fx_ok runs again.
: >"$R/${TODAY}_fx_ok_fast_lo.journal"
run_local --tag lo --resume "$FAST" fx_ok -- --plugin-dir "$FX_GOOD"
expect_rc 0 "resume over a half-written result"
expect_not_in "$T/out" 'nothing to run' "a half-written result counted as home"
[ -f "$R/${TODAY}_fx_ok_fast_lo.2.json" ] && ok || fail "fx_ok did not run again over a half-written result"
rm -f -- "$R/${TODAY}_fx_ok_fast_lo.journal"

# Usage errors.
run_local "$T/none.ini"
expect_rc 2 "a missing preset file"
run_local smoke fx_nope -- --plugin-dir "$FX_GOOD"
expect_rc 2 "an unknown plugin"
expect_in "$T/out" "no plugin named 'fx_nope'"
run_local --bogus
expect_rc 2 "an unknown option"
run_local smoke fx_ok -- --events x
expect_rc 2 "a bench option the script sets"

# Ctrl-C (to the whole process group, as a terminal sends it).
# (a timeout that a loaded machine cannot reach before the Ctrl-C)
sed 's/^timeout = .*/timeout = 120s/' "$FAST" >"$T/slow.ini"
set -m # a job of its own: its own process group, SIGINT not ignored
"$SCRIPT" --results-dir "$T/r3" "$T/slow.ini" fx_ok,fx_hang -- --plugin-dir "$FX_GOOD" >"$T/out" 2>&1 </dev/null &
spid=$!
set +m
# fx_hang runs once its first heartbeat is in the log
hang_runs() { grep -qs '"event":"HEARTBEAT".*"fx_hang"' "$T"/r3/logs/*.log; }
wait_for 60 hang_runs && ok || fail "Ctrl-C: fx_hang did not start"
kill -INT -- -"$spid"
wait "$spid"
RC=$?
expect_rc 130 "Ctrl-C"
expect_eq "$(csv_field "$T/r3/rollup.csv" fx_hang n=8 status)" INTERRUPTED "the interrupted case is kept"
expect_in "$T/out" 'interrupted' "the summary says so"

# On a terminal (a pty from script(1)): the PROGRESS line is redrawn in place,
# the case lines scroll above it, and no JSON event is shown.
if command -v script >/dev/null; then
  script -qfec "$(printf '%q ' "$SCRIPT" --results-dir "$T/r4" "$FAST" fx_ok,fx_skip -- --plugin-dir "$FX_GOOD")" \
    /dev/null >"$T/tty.out" 2>&1 </dev/null
  RC=$?
  expect_rc 0 "a run on a terminal"
  grep -q $'\r\033\[KPROGRESS: ' "$T/tty.out" && ok || fail "PROGRESS not redrawn on a terminal"
  expect_not_in "$T/tty.out" '"event"' "JSON events on a terminal"
  expect_in "$T/tty.out" 'fx_skip.*SKIPPED' "case lines on a terminal"
  log=$(ls "$T"/r4/logs/*_fast.log 2>/dev/null | head -n 1)
  [ -n "$log" ] && expect_in "$log" '^\{"event":"TEST_END"' "events in the log" || fail "no log of the terminal run"
else
  fail "script(1) missing (bsdutils)"
fi
finish
