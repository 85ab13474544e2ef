#!/usr/bin/env bash
# A signal before the first case (issue 40, notes): while bench still
# prepares the run (here: scanning a plugin file whose loading never ends),
# SIGINT or SIGTERM ends it as an interrupted run ends (status 130) with one
# line saying so, no run header, no result file; the same for bench ab.
. "$(dirname "$0")/lib.sh"
HANG=$BUILD/tests/fixtures/state_hang

# early SIG CMD...: start CMD, wait until it scans (its child loads the
# file), send SIG; RC, $T/out and $T/err.
early() {
  local sig=$1
  shift
  "$@" >"$T/out" 2>"$T/err" &
  local pid=$!
  scanning() { pgrep -P "$pid" >/dev/null; }
  wait_for 60 scanning && ok || fail "$sig: bench never started the scan"
  kill "-$sig" "$pid"
  wait "$pid"
  RC=$?
}

for sig in INT TERM; do
  rm -rf "$T/r"
  early "$sig" "$BENCH" --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$HANG" --results-dir "$T/r"
  expect_rc 130 "$sig before the first case"
  expect_in "$T/err" "^bench: interrupted by .* before the first case: nothing was run, no result written$" "$sig: the line"
  [ "$(wc -l <"$T/err")" -eq 1 ] && ok || fail "$sig: not one line: $(cat "$T/err")"
  [ ! -s "$T/out" ] && ok || fail "$sig: a run header for a run that never ran: $(cat "$T/out")"
  files=$(ls "$T/r" 2>/dev/null | grep -E '\.(json|txt)$')
  [ -z "$files" ] && ok || fail "$sig: result files: $files"
done

early INT "$BENCH" ab "$HANG" "$HANG" --preset "$SRC/tests/cli/presets/fast.ini" --results-dir "$T/r"
expect_rc 130 "bench ab: SIGINT before the first case"
expect_in "$T/err" "^bench: interrupted by .* before the first case" "bench ab: the line"
[ "$(wc -l <"$T/err")" -eq 1 ] && ok || fail "bench ab: not one line: $(cat "$T/err")"
finish
