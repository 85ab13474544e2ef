#!/usr/bin/env bash
# The harness's output-framing mark (the line a worker writes down its
# output pipe before each result) never shows as a case's output (issue 40,
# notes): not in a failed case's output under isolation = case, and not
# when a plugin stops bench (SIGSTOP) while its worker sends a result and
# bench then gets Ctrl-C: the result that was already sent is kept.
. "$(dirname "$0")/lib.sh"
STATE=$BUILD/tests/fixtures/state
MARK="end of this case's output"
# no_mark WHAT FILE...: none of the files holds the mark (raw or escaped).
no_mark() {
  local what=$1
  shift
  if grep -l "$MARK" "$@" >/dev/null 2>&1; then
    fail "$what: the framing mark shows: $(grep -h "$MARK" "$@" | head -3 | cat -A)"
  else ok; fi
}

# A failed case in a process of its own: its output tail (the line under
# the case, the .txt, the JSON) has no mark.
run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_wrong \
  --isolation case --results-dir "$T/r1"
expect_rc 1 "fx_wrong under isolation = case"
expect_in "$T/out" 'fx_wrong n=8 +WRONG_ANSWER'
no_mark "isolation = case" "$T/out" "$T/err" "$T"/r1/*.json "$T"/r1/*.txt

# bench stopped by the plugin's helper while the worker sends the case's
# result; then Ctrl-C and SIGCONT: the result is kept (OK), no mark.
cat >"$T/stop.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 1
min_samples = 2
max_samples = 3
min_time = 0
max_time = 0.05s
timeout = 120s
INI
FXS_STOP_S=600 "$BENCH" --preset "$T/stop.ini" --plugin-dir "$STATE" --plugin fx_st_stop \
  --isolation backend --results-dir "$T/r2" >"$T/out" 2>"$T/err" &
pid=$!
state_of() { awk '{print $3}' "/proc/$1/stat" 2>/dev/null; }
bench_stopped() { [ "$(state_of "$pid")" = T ]; }
# the worker (bench's child that is not stopped) waits in recv for the
# acknowledgement: its result is in the channel
worker_waits() {
  local w nr
  for w in $(pgrep -P "$pid"); do
    read -r nr _ <"/proc/$w/syscall" 2>/dev/null || continue
    case $(uname -m):$nr in x86_64:45 | x86_64:47 | aarch64:207 | aarch64:212) return 0 ;; esac
  done
  return 1
}
wait_for 60 bench_stopped && ok || fail "bench was not stopped"
wait_for 60 worker_waits && ok || fail "the worker never waited for the acknowledgement"
kill -INT "$pid"
kill -CONT "$pid"
wait "$pid"
RC=$?
expect_rc 130 "interrupted while stopped"
expect_in "$T/out" 'fx_st_stop n=1 +OK' "the result sent before the signal is kept"
no_mark "bench stopped" "$T/out" "$T/err" "$T"/r2/*.json "$T"/r2/*.txt
finish
