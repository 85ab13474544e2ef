# shellcheck shell=bash
# Check counting and waiting, shared by every bash test (sourced by
# tests/*/lib.sh):
#   ok, fail MSG           count a check that passed, or one that failed
#   expect_nonempty WHAT ITEM...
#                          a check that the list is not empty (before a loop
#                          over plugins found, files globbed, cases run, rows
#                          read: an empty list would make the loop check
#                          nothing)
#   skip REASON            end the test as skipped (exit 77; ctest needs
#                          SKIP_RETURN_CODE 77) for a reason outside the code
#                          under test: a tool not installed, no device
#   wait_for SECONDS CMD...
#                          run CMD until it succeeds (0) or SECONDS have passed
#                          (1): wait for an observed state (a line in a log, a
#                          process gone), never for a guessed time
#   finish                 print the counts; fail a test that failed a check,
#                          and one that ran no check at all
FAILS=0
CHECKS=0
# bench fits its lines to $COLUMNS when its output is no terminal
# (core/term.h term_columns): the tests grep whole lines, so they run wide,
# whatever the shell that started ctest had; a test of the width
# (tests/cli/t_display.sh, t_term.sh) sets its own.
export COLUMNS=1000

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
ok() { CHECKS=$((CHECKS + 1)); }

expect_nonempty() {
  local what=$1
  shift
  if [ $# -gt 0 ]; then ok; else fail "no $what: the checks over them would check nothing"; fi
}

skip() {
  echo "SKIP: $*"
  exit 77
}

wait_for() {
  local limit=$1 start
  shift
  start=${EPOCHREALTIME/[.,]/}
  until "$@"; do
    # microseconds, without a fork per poll
    [ $((${EPOCHREALTIME/[.,]/} - start)) -lt $((limit * 1000000)) ] || return 1
    sleep 0.05
  done
}

finish() {
  echo "$CHECKS passed, $FAILS failed"
  if [ "$CHECKS" -eq 0 ] && [ "$FAILS" -eq 0 ]; then
    echo "FAIL: this test ran no check: a test that checks nothing must not pass" >&2
    return 1
  fi
  [ "$FAILS" -eq 0 ]
}
