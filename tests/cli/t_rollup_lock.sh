#!/usr/bin/env bash
# The rollup's lock wait: while another process holds a lock on the results
# folder (here `flock -s`, as a reader would), a run measures and saves its
# results, then waits for the lock at most BENCH_LOCK_WAIT_S seconds, saying
# every few seconds what it waits for and who holds it; Ctrl-C (SIGINT) or
# SIGTERM ends the wait at once with the results kept; a released lock lets
# the rollup be written.
. "$(dirname "$0")/lib.sh"
FAST="$SRC/tests/cli/presets/fast.ini"
NAME="${TODAY}_fx_ok_fast"
command -v flock >/dev/null || skip "flock(1) is not installed"

HOLDER=
hold() { # hold DIR: a shared flock on DIR until $T/release exists
  rm -f "$T/held" "$T/release"
  flock -s "$1" bash -c 'touch "$1/held"; while [ ! -e "$1/release" ]; do sleep 0.05; done' _ "$T" &
  HOLDER=$!
  wait_for 30 test -e "$T/held" && ok || fail "the lock holder did not start"
}
release() {
  touch "$T/release"
  wait "$HOLDER" 2>/dev/null
}
valid_json() { python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$1"; }
waiting() { grep -q 'waiting for the lock on results folder' "$T/err"; }
gone() { ! kill -0 "$1" 2>/dev/null; }
start_bench() { # start_bench DIR WAIT_S: bench in the background
  : >"$T/err" # the previous run's "waiting" line must not count for this one
  BENCH_LOCK_WAIT_S=$2 "$BENCH" --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok \
    --results-dir "$1" >"$T/out" 2>"$T/err" &
  BPID=$!
}

# 1. A short bound: the run ends with one clear line, its results kept.
mkdir -p "$T/a"
hold "$T/a"
BENCH_LOCK_WAIT_S=1 timeout -k 5 30 "$BENCH" --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok \
  --results-dir "$T/a" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 1 "run whose rollup lock wait times out"
expect_in "$T/err" "gave up waiting for the lock on results folder $T/a after 1 s \\(held by pid $HOLDER \\(flock\\).*the result files are saved.*bench rollup --results-dir $T/a"
valid_json "$T/a/$NAME.json" && ok || fail "timeout: no valid result file"
[ ! -e "$T/a/rollup.csv" ] && ok || fail "timeout: a rollup was written without the lock"
expect_in "$T/out" "1 of 1 case run"
release

# 2. SIGINT during the wait: a prompt end, exit 130, results kept.
mkdir -p "$T/b"
hold "$T/b"
start_bench "$T/b" 300
wait_for 30 waiting && ok || fail "no line saying what the run waits for"
expect_in "$T/err" "waiting for the lock on results folder $T/b \\(held by pid $HOLDER \\(flock\\)\\)"
kill -INT "$BPID" 2>/dev/null
wait_for 10 gone "$BPID" && ok || { fail "SIGINT did not end the wait"; kill -KILL "$BPID"; }
wait "$BPID"
RC=$?
expect_rc 130 "run interrupted during the lock wait"
expect_in "$T/err" "interrupted by .* while waiting for the lock on results folder $T/b.*the result files are saved.*bench rollup --results-dir $T/b"
valid_json "$T/b/$NAME.json" && ok || fail "SIGINT: no valid result file"

# SIGTERM to `bench rollup` waiting for the lock: it ends at once.
: >"$T/err"
BENCH_LOCK_WAIT_S=300 "$BENCH" rollup --results-dir "$T/b" >"$T/out" 2>"$T/err" &
BPID=$!
wait_for 30 waiting && ok || fail "bench rollup: no line saying what it waits for"
kill -TERM "$BPID" 2>/dev/null
wait_for 10 gone "$BPID" && ok || { fail "SIGTERM did not end bench rollup's wait"; kill -KILL "$BPID"; }
wait "$BPID"
RC=$?
[ "$RC" -ne 0 ] && ok || fail "bench rollup interrupted in its wait exited 0"
[ ! -e "$T/b/rollup.csv" ] && ok || fail "SIGTERM: a rollup was written without the lock"
release

# 3. The holder lets go during the wait: the rollup is written, exit 0.
mkdir -p "$T/c"
hold "$T/c"
start_bench "$T/c" 300
wait_for 30 waiting && ok || fail "no line saying what the run waits for"
release
wait_for 60 gone "$BPID" && ok || { fail "the run did not end after the lock was released"; kill -KILL "$BPID"; }
wait "$BPID"
RC=$?
expect_rc 0 "run whose lock holder let go"
expect_eq "$(grep -c ',fx_ok,' "$T/c/rollup.csv" 2>/dev/null)" 1 "rollup rows after the wait"

# BENCH_LOCK_WAIT_S=0: `bench rollup` gives up at once, exit 1.
hold "$T/c"
BENCH_LOCK_WAIT_S=0 timeout -k 5 30 "$BENCH" rollup --results-dir "$T/c" >"$T/out" 2>"$T/err"
RC=$?
release
expect_rc 1 "bench rollup with BENCH_LOCK_WAIT_S=0 and the lock held"
expect_in "$T/err" "gave up waiting for the lock on results folder $T/c after 0 s"
expect_not_in "$T/out" "wrote" "bench rollup that gave up: stdout"
finish
