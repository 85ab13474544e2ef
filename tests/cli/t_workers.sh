#!/usr/bin/env bash
# One worker process per plugin: a crash or hang in one case costs that case
# only, and a fresh worker runs the next; isolation = case gives the same
# statuses. The watchdog kills whatever a case started, wherever it hid.
. "$(dirname "$0")/lib.sh"
P="$SRC/tests/cli/presets/workers.ini"
FX_PROC=${FX_PROC:-$FX_GOOD/../proc}

statuses() { # PLUGIN: the four statuses in case order
  for n in 1 2 3 4; do printf '%s ' "$(csv_field "$T/$1/rollup.csv" "$2" "n=$n" status)"; done
}

for iso in backend plugin case; do
  run_bench --preset "$P" --plugin-dir "$FX_PROC" --plugin fx_midcrash,fx_midhang \
    --results-dir "$T/r_$iso" --isolation "$iso" --events "$T/ev_$iso.jsonl"
  expect_rc 1 "crash and hang mid-plugin ($iso)"
  expect_eq "$(statuses "r_$iso" fx_midcrash)" "OK CRASH OK OK " "fx_midcrash statuses ($iso)"
  expect_eq "$(statuses "r_$iso" fx_midhang)" "OK TIMEOUT OK OK " "fx_midhang statuses ($iso)"
  expect_in "$T/out" 'fx_midcrash n=2  *CRASH +(killed by signal 11|.*without a result)' # (ASan: exit 1)
  expect_in "$T/out" 'fx_midhang n=2  *TIMEOUT +timed out after 3 s'
  expect_in "$T/out" '8 of 8 cases run'
  expect_eq "$(grep -c '"TEST_START"' "$T/ev_$iso.jsonl")" 8 "one TEST_START per case ($iso)"
  expect_eq "$(grep -c '"TEST_END"' "$T/ev_$iso.jsonl")" 8 "one TEST_END per case ($iso)"
done
# The same plugin in a preset: isolation = case is a key of [run].
sed 's/^heartbeat = .*/&\nisolation = case/' "$P" >"$T/iso.ini"
run_bench --preset "$T/iso.ini" --plugin-dir "$FX_PROC" --plugin fx_midcrash --results-dir "$T/r_key"
expect_rc 1 "isolation = case in the preset"
expect_eq "$(statuses r_key fx_midcrash)" "OK CRASH OK OK " "fx_midcrash statuses (preset key)"
printf '[run]\nisolation = cases\n' >"$T/bad.ini"
run_bench --preset "$T/bad.ini" --plugin-dir "$FX_PROC" --plugin fx_midcrash --results-dir "$T/r_bad"
expect_rc 2 "bad isolation value"
expect_in "$T/err" "bad.ini:2: bad value 'cases' for isolation: expected backend, plugin or case"

alive() { # PID: running (not gone, not a zombie)
  local st
  st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ]
}

# A grandchild in its own session dies with its case, in every mode.
for iso in backend plugin case; do
  rm -f "$T/gc.pid"
  FX_PIDFILE="$T/gc.pid" run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_PROC" \
    --plugin fx_setsid --results-dir "$T/s_$iso" --isolation "$iso"
  expect_rc 0 "setsid grandchild ($iso)"
  gc=$(cat "$T/gc.pid" 2>/dev/null)
  [ -n "$gc" ] && ok || fail "no grandchild pid ($iso)"
  if [ -n "$gc" ] && alive "$gc"; then fail "setsid grandchild $gc outlived its case ($iso)"; kill -9 "$gc"; else ok; fi
done

# A case that moves into bench's own process group and hangs is killed at
# the timeout, and bench ends by itself...
run_bench_bg() { "$BENCH" "$@" >"$T/out" 2>"$T/err" & BPID=$!; }
timeout 30 "$BENCH" --preset "$P" --plugin-dir "$FX_PROC" --plugin fx_pgrp --results-dir "$T/g1" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 1 "setpgid into bench's group, then hang"
expect_in "$T/out" 'fx_pgrp n=8  *TIMEOUT +timed out after 3 s'
# ... and still answers SIGTERM while that case runs.
printf '[run]\ntier = smoke\ntimeout = 60s\n' >"$T/long.ini"
rm -f "$T/pg.pid"
FX_PIDFILE="$T/pg.pid" run_bench_bg --preset "$T/long.ini" --plugin-dir "$FX_PROC" --plugin fx_pgrp --results-dir "$T/g2" --events "$T/evg.jsonl"
# the case has moved into bench's group when it writes its pid
wait_for 60 test -s "$T/pg.pid" && ok || fail "fx_pgrp did not say it moved into bench's group"
kids=$(pgrep -P "$BPID")
expect_nonempty "case processes under bench" $kids
kill -TERM "$BPID"
gone() { ! kill -0 "$1" 2>/dev/null; }
wait_for 60 gone "$BPID" || { fail "bench ignores SIGTERM"; kill -9 "$BPID" $kids; }
wait "$BPID"
RC=$?
expect_rc 130 "SIGTERM during a case in bench's group"
dead() { ! alive "$1"; }
for k in $kids; do if wait_for 30 dead "$k"; then ok; else fail "case process $k left running"; kill -9 "$k"; fi; done
finish
