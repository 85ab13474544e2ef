#!/usr/bin/env bash
# Ctrl-C (SIGINT) stops the running case, keeps everything measured, leaves
# no partial file, and exits 130.
. "$(dirname "$0")/lib.sh"
# fast.ini with a timeout that a loaded machine cannot reach before the
# signal: fx_hang is interrupted, never timed out.
sed 's/^timeout = .*/timeout = 120s/' "$SRC/tests/cli/presets/fast.ini" >"$T/slow.ini"
# hang_runs EVENTS: fx_hang's case is running (its first heartbeat is out).
hang_runs() { grep -q '"HEARTBEAT".*"fx_hang"' "$1" 2>/dev/null; }

"$BENCH" --preset "$T/slow.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_hang \
  --results-dir "$T/r" --events "$T/ev.jsonl" >"$T/out" 2>"$T/err" &
pid=$!
# Plugins run in name order: fx_hang first. Wait until it runs.
wait_for 60 hang_runs "$T/ev.jsonl" && ok || fail "fx_hang did not start"
kill -INT "$pid"
wait "$pid"
RC=$?
expect_rc 130 "interrupted run"
expect_in "$T/out" 'fx_hang n=8  *INTERRUPTED +interrupted'
expect_in "$T/out" 'interrupted; results so far are kept'
expect_in "$T/ev.jsonl" '"SUITE_END".*"interrupted": ?true'
[ -f "$T/r/${TODAY}_fx_hang_slow.json" ] && ok || fail "interrupted case's result file missing"
expect_in "$T/r/rollup.csv" 'fx_hang,.*INTERRUPTED'
ls -a "$T/r" | grep -q tmp && fail "temporary files left" || ok

# SIGTERM after a plugin has finished: its results stay (fx_devtime runs before fx_hang).
"$BENCH" --preset "$T/slow.ini" --plugin-dir "$FX_GOOD" --plugin fx_devtime,fx_hang \
  --results-dir "$T/r2" --events "$T/ev2.jsonl" >"$T/out" 2>"$T/err" &
pid=$!
wait_for 60 hang_runs "$T/ev2.jsonl" && ok || fail "fx_hang did not start after fx_devtime"
kill -TERM "$pid"
wait "$pid"
RC=$?
expect_rc 130 "terminated run"
expect_in "$T/r2/rollup.csv" 'fx_devtime,.*,OK,'

# bench killed outright (SIGKILL): the case's process dies with it.
"$BENCH" --preset "$T/slow.ini" --plugin-dir "$FX_GOOD" --plugin fx_hang \
  --results-dir "$T/r3" --events "$T/ev3.jsonl" >"$T/out" 2>"$T/err" &
pid=$!
wait_for 60 hang_runs "$T/ev3.jsonl" && ok || fail "fx_hang did not start (SIGKILL)"
kids=$(pgrep -P "$pid")
expect_nonempty "case processes under bench" $kids
kill -KILL "$pid"
wait "$pid" 2>/dev/null
# PR_SET_PDEATHSIG kills them; wait until it has (a zombie counts as gone).
gone() {
  local st
  st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
  [ -z "$st" ] || [ "$st" = Z ]
}
for k in $kids; do
  if wait_for 30 gone "$k"; then ok; else fail "case process $k outlived bench"; kill -9 "$k"; fi
done
finish
