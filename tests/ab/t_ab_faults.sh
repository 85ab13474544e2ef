#!/bin/bash
# bench ab checks both sides: a NEW that computes a wrong answer is
# WRONG_ANSWER with no ratio; a NEW whose worker crashes mid-run is CRASH
# (the old side's samples are kept); an OLD that failed and a NEW that
# works is FIXED.
. "$(dirname "$0")/lib.sh"

ab "$AB/base" "$AB/wrong" --plugin ab_spin
expect_rc 1 "wrong NEW fails the run"
expect_in "$T/out" 'ab_spin n=20000: .*new/old -  WRONG_ANSWER' "WRONG_ANSWER without a ratio"
expect_in "$T/out" 'spin result [0-9]+, expected' "the check's reason"
new=$(ls "$T"/results/*_ab_spin_ab_new.json 2>/dev/null)
expect_nonempty "new result file" $new
if [ -n "$new" ]; then
  [ "$(json_case "$new" 'c["status"]')" = WRONG_ANSWER ] && ok || fail "status in the file"
  [ "$(json_case "$new" '"ab_ratio" in c["info"]')" = False ] && ok || fail "a failed side got a ratio"
fi
ab "$AB/base" "$AB/wrong" --plugin ab_spin --fail-on slower
expect_rc 0 "--fail-on slower ignores WRONG_ANSWER"

ab "$AB/wrong" "$AB/base" --plugin ab_spin
expect_rc 0 "FIXED is no failure"
expect_in "$T/out" 'FIXED' "old failed, new works"

rm -rf "$T/results"
# the crash build's 2nd process to set the case up crashes: the new worker
# of ab's second pair, after the first pair measured rounds
AB_CRASH_STATE=$T/crash.state ab "$AB/base" "$AB/crash" --plugin ab_spin
expect_rc 1 "crashing NEW fails the run"
expect_in "$T/out" 'ab_spin n=20000: .* CRASH' "CRASH"
expect_in "$T/out" 'killed by signal 11|worker ended \(status 1\)' "the crash (a sanitizer build exits 1 on SIGSEGV)"
old=$(ls "$T"/results/*_ab_spin_ab_old.json 2>/dev/null)
new=$(ls "$T"/results/*_ab_spin_ab_new.json 2>/dev/null)
expect_nonempty "result files" $old $new
if [ -n "$old" ] && [ -n "$new" ]; then
  [ "$(json_case "$new" 'c["status"]')" = CRASH ] && ok || fail "new status"
  n=$(json_case "$old" 'c["nsamples"]')
  [ "$n" -gt 0 ] && ok || fail "old samples before the crash were lost"
  # mid-run: the crash came after rounds had been measured
  r=$(json_case "$new" 'c["nsamples"]')
  [ "$r" -gt 0 ] && ok || fail "the crash was not mid-run (no new samples before it)"
fi

# Ctrl-C while the workers run: exit 130, the case INTERRUPTED and saved,
# no worker left behind
cat >"$T/long.ini" <<'INI'
[run]
tier = smoke
warmup_time = 20ms
max_time = 60s
batch_min_time = 1ms
timeout = 30s
INI
rm -rf "$T/results"
"$BENCH" ab --preset "$T/long.ini" --results-dir "$T/results" "$AB/base" "$AB/same" --plugin ab_spin \
  >"$T/out" 2>"$T/err" &
pid=$!
# a worker of the case: a child after the header (children before it are
# the plugins' probes, and a Ctrl-C then comes before the first case), and
# a bench, not the git that reads a plugin's commit as a side's file opens
has_worker() { grep -q ' ab: ' "$T/out" && pgrep -x -P "$pid" bench >/dev/null; }
wait_for 30 has_worker && ok || fail "no worker appeared"
workers=$(pgrep -x -P "$pid" bench)
kill -INT "$pid"
wait "$pid"
RC=$?
expect_rc 130 "interrupted"
expect_in "$T/out" 'ab_spin n=20000: .*INTERRUPTED' "the case is INTERRUPTED"
new=$(ls "$T"/results/*_ab_spin_long_new.json 2>/dev/null)
expect_nonempty "result file after Ctrl-C" $new
if [ -n "$new" ]; then
  [ "$(json_case "$new" 'c["status"]')" = INTERRUPTED ] && ok || fail "saved status"
fi
expect_nonempty "workers seen" $workers
gone() { for w in $workers; do [ -e "/proc/$w" ] && ! grep -q '^State:.*Z' "/proc/$w/status" && return 1; done; return 0; }
wait_for 10 gone && ok || fail "workers left after bench ab ended: $workers"
finish
