#!/usr/bin/env bash
# Ctrl-C (SIGINT) stops the running case, keeps everything measured, leaves
# no partial file, and exits 130.
. "$(dirname "$0")/lib.sh"

"$BENCH" --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_hang \
  --results-dir "$T/r" --events "$T/ev.jsonl" >"$T/out" 2>"$T/err" &
pid=$!
# Plugins run in name order: fx_hang first. Wait until it has started.
for _ in $(seq 100); do
  grep -q '"TEST_START".*"fx_hang"' "$T/ev.jsonl" 2>/dev/null && break
  sleep 0.05
done
sleep 0.3
kill -INT "$pid"
wait "$pid"
RC=$?
expect_rc 130 "interrupted run"
expect_in "$T/out" 'fx_hang n=8: INTERRUPTED +interrupted'
expect_in "$T/out" 'interrupted; results so far are kept'
expect_in "$T/ev.jsonl" '"SUITE_END".*"interrupted": ?true'
[ -f "$T/r/${TODAY}_fx_hang_fast.json" ] && ok || fail "interrupted case's result file missing"
expect_in "$T/r/rollup.csv" 'fx_hang,.*INTERRUPTED'
ls -a "$T/r" | grep -q tmp && fail "temporary files left" || ok

# SIGTERM after a plugin has finished: its results stay (fx_devtime runs before fx_hang).
"$BENCH" --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_devtime,fx_hang \
  --results-dir "$T/r2" --events "$T/ev2.jsonl" >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 100); do
  grep -q '"TEST_START".*"fx_hang"' "$T/ev2.jsonl" 2>/dev/null && break
  sleep 0.05
done
kill -TERM "$pid"
wait "$pid"
RC=$?
expect_rc 130 "terminated run"
expect_in "$T/r2/rollup.csv" 'fx_devtime,.*,OK,'

# bench killed outright (SIGKILL): the case's process dies with it.
"$BENCH" --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_hang \
  --results-dir "$T/r3" --events "$T/ev3.jsonl" >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 100); do
  grep -q '"TEST_START".*"fx_hang"' "$T/ev3.jsonl" 2>/dev/null && break
  sleep 0.05
done
kids=$(pgrep -P "$pid")
[ -n "$kids" ] && ok || fail "no case process under bench"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleep 0.5
for k in $kids; do
  st=$(awk '{print $3}' "/proc/$k/stat" 2>/dev/null)
  if [ -n "$st" ] && [ "$st" != Z ]; then fail "case process $k outlived bench"; kill -9 "$k"; else ok; fi
done
finish
