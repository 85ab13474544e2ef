#!/usr/bin/env bash
# The trial load and the init probe take only an explicit answer from their
# child: a constructor that exits 0, a skip reason that looks like another
# answer, an init that misuses the host.
. "$(dirname "$0")/lib.sh"
FX_PROC=${FX_PROC:-$FX_GOOD/../proc}

# A plugin whose constructor calls exit(0) is refused; the others are listed.
run_bench --list --plugin-dir "$FX_PROC"
expect_rc 0 "--list next to a constructor that exits"
expect_in "$T/err" 'plugin .*/fx_ctorexit\.so: loading it ended the process \(exit status 0\)'
expect_in "$T/out" '^fx_midcrash +cpu +runnable'
# A skip reason with a newline in it is still a skip.
expect_in "$T/out" '^fx_skipnl +cpu +not runnable: no frobnicator'
expect_not_in "$T/out" '^fx_skipnl +cpu +runnable'
# init that reads a parameter (a plugin bug) is not runnable.
expect_in "$T/out" "^fx_initbug +cpu +not runnable: .*parameter 'n' read outside a case"

# A run next to it runs its cases, and fails on them.
run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_PROC" --plugin fx_midcrash \
  --results-dir "$T/r"
expect_rc 0 "run next to a constructor that exits"
expect_in "$T/out" 'fx_midcrash n=8  *OK'
expect_in "$T/err" 'fx_ctorexit\.so: loading it ended the process'

for iso in plugin case; do
  run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_PROC" --plugin fx_skipnl,fx_initbug \
    --results-dir "$T/r_$iso" --isolation "$iso"
  expect_rc 1 "skip with a newline, init bug ($iso)"
  expect_in "$T/out" 'fx_skipnl n=8  *SKIPPED +no frobnicator'
  expect_in "$T/out" "fx_initbug n=8  *ERROR +init: plugin bug: parameter 'n' read outside a case"
  # init returned OK before the bug was seen: deinit still ran.
  expect_in "$T/out" '\| fx_initbug: deinit called'
done
finish
