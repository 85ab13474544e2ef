#!/usr/bin/env bash
# bench events FILE [--follow]: the table of a finished run, of a log that
# interleaves events with other lines, of a file cut mid-line, of standard
# input; --follow while a run writes, until SUITE_END or Ctrl-C; exit 2 for
# a missing file or bad usage.
# shellcheck disable=SC2015 # `test && ok || fail` (ok never fails)
# shellcheck source=tests/cli/lib.sh
. "$SRC/tests/cli/lib.sh"
FAST=$SRC/tests/cli/presets/fast.ini

run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_skip,fx_wrong,fx_noisy \
  --results-dir "$T/r" --tag lab --events "$T/ev.jsonl"
expect_rc 1 "the run behind the events"

run_bench events "$T/ev.jsonl"
expect_rc 0 "events of a finished run"
expect_in "$T/out" '^preset fast, tag lab$'
expect_in "$T/out" '^#  plugin +case +status +wall s +median +throughput$' "header"
expect_in "$T/out" '^1  fx_noisy +n=8 +OK +[0-9]+\.[0-9]{2} +[0-9.]+ (ns|us|ms) +[0-9.e+-]+ GFLOP/s$' "fx_noisy row"
expect_in "$T/out" '^2  fx_ok +n=8 +OK ' "fx_ok row"
expect_in "$T/out" '^3  fx_skip +n=8 +SKIPPED +[0-9.]+ +- +-$' "fx_skip row"
expect_in "$T/out" '^4  fx_wrong +n=8 +WRONG_ANSWER +[0-9.]+ +[0-9.]+ [nu]s +-$' "fx_wrong row: no throughput"
expect_in "$T/out" '^done: 4 of 4 cases in [0-9.]+ s: 2 ok, 1 skipped, 1 failed$' "footer"
cp "$T/out" "$T/table"

# Standard input, and a log with other lines between the events.
"$BENCH" events - <"$T/ev.jsonl" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "events from standard input"
cmp -s "$T/out" "$T/table" && ok || fail "standard input gives another table"
{
  echo "-- Configuring done"
  while IFS= read -r line; do
    echo "$line"
    echo "PROGRESS: [##..] 10% (0/4) fx_ok n=8 ETA 1s"
    echo "{not json"
  done <"$T/ev.jsonl"
} >"$T/mixed.log"
run_bench events "$T/mixed.log"
expect_rc 0 "a mixed log"
cmp -s "$T/out" "$T/table" && ok || fail "a mixed log gives another table"

# Cut in the middle of a line (the run is still writing): the cases so far
# and the progress, no error.
size=$(grep -b '"event":"TEST_START".*"fx_skip"' "$T/ev.jsonl" | cut -d: -f1)
head -c $((size + 40)) "$T/ev.jsonl" >"$T/cut.jsonl"
run_bench events "$T/cut.jsonl"
expect_rc 0 "a file cut mid-line"
expect_in "$T/out" '^2  fx_ok +n=8 +OK '
expect_not_in "$T/out" 'fx_skip' "the cut line"
expect_in "$T/out" '^progress: \[[#.]{20}\] +[0-9]+% \(2/4\)  0 failed  elapsed [0-9]+s  ETA [0-9]+s$' "progress and ETA"
[ -s "$T/err" ] && fail "a cut line printed an error" || ok

# Usage errors.
run_bench events "$T/nope.jsonl"
expect_rc 2 "a missing file"
expect_in "$T/err" "cannot open events file '.*nope.jsonl'"
run_bench events
expect_rc 2 "no file"
run_bench events "$T/ev.jsonl" "$T/ev.jsonl"
expect_rc 2 "two files"
run_bench events --bogus "$T/ev.jsonl"
expect_rc 2 "an unknown option"
run_bench events "$T"
expect_rc 2 "a folder"
run_bench events --help
expect_rc 0 "--help"

# --follow while a file grows: a table per change, the end at SUITE_END.
: >"$T/grow.jsonl"
"$BENCH" events --follow "$T/grow.jsonl" >"$T/fout" 2>"$T/ferr" &
fpid=$!
sed -n '1,2p' "$T/ev.jsonl" >>"$T/grow.jsonl" # SUITE_START, TEST_START
wait_for 60 grep -q RUNNING "$T/fout"
expect_in "$T/fout" '^1  fx_noisy +n=8 +RUNNING ' "--follow shows the running case"
kill -0 "$fpid" 2>/dev/null && ok || fail "--follow ended before SUITE_END"
# the rest, the last line in two writes
total=$(wc -c <"$T/ev.jsonl")
head -c $((total - 10)) "$T/ev.jsonl" | tail -c +$(($(sed -n '1,2p' "$T/ev.jsonl" | wc -c) + 1)) >>"$T/grow.jsonl"
# once its table shows the last case's end, it has read all but the cut line
wait_for 60 grep -Eq '^4  fx_wrong +n=8 +WRONG_ANSWER' "$T/fout" && ok || fail "--follow did not show the last case"
kill -0 "$fpid" 2>/dev/null && ok || fail "--follow ended on a cut SUITE_END"
expect_not_in "$T/fout" '^done: ' "--follow's end on a cut SUITE_END"
tail -c 10 "$T/ev.jsonl" >>"$T/grow.jsonl"
gone() { ! kill -0 "$1" 2>/dev/null; }
if ! wait_for 60 gone "$fpid"; then
  fail "--follow did not end at SUITE_END"
  kill "$fpid"
fi
wait "$fpid"
RC=$?
expect_rc 0 "--follow at SUITE_END"
expect_in "$T/fout" '^done: 4 of 4 cases in [0-9.]+ s: 2 ok, 1 skipped, 1 failed$' "--follow's last table"
[ "$(grep -c '^preset fast' "$T/fout")" -ge 2 ] && ok || fail "--follow drew the table once"

# --follow on a live run, and Ctrl-C on a run that never ends.
"$BENCH" --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_hang --results-dir "$T/r2" \
  --events "$T/live.jsonl" >/dev/null 2>&1 &
bpid=$!
wait_for 60 test -e "$T/live.jsonl" && ok || fail "no events file from the live run"
timeout 120 "$BENCH" events --follow "$T/live.jsonl" >"$T/fout" 2>&1
RC=$?
wait "$bpid"
expect_rc 0 "--follow on a live run"
expect_in "$T/fout" '^1  fx_hang +n=8 +RUNNING ' "the live table while fx_hang runs"
expect_in "$T/fout" '^1  fx_hang +n=8 +TIMEOUT ' "the live table at the end"
expect_in "$T/fout" '^done: 2 of 2 cases' "the live run's end"

head -n 2 "$T/ev.jsonl" >"$T/stuck.jsonl"
# An empty fout first: the live run's "progress:" lines in it must not send
# the Ctrl-C before bench has started (it would reach the shell's child).
rm -f "$T/fout"
"$BENCH" events --follow "$T/stuck.jsonl" >"$T/fout" 2>&1 &
fpid=$!
wait_for 60 grep -q '^progress: ' "$T/fout" && ok || fail "--follow drew no table of the stuck run"
kill -INT "$fpid"
wait "$fpid"
RC=$?
expect_rc 0 "--follow stopped by Ctrl-C"
expect_in "$T/fout" '^progress: ' "the table before Ctrl-C"
finish
