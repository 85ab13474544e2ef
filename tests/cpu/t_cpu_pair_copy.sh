#!/usr/bin/env bash
# studies/pair_copy.sh --quick runs its pairs to completion: a line per pair
# with both copies, the kernel and (with --base) the second build's figure,
# and a summary or the reason there is none; bad arguments exit 2. The
# figures themselves are not checked: a busy machine's numbers are no test.
. "$(dirname "$0")/cpu_lib.sh"

RC=0
"$SRC/studies/pair_copy.sh" --quick --pairs 2 --bench "$BENCH" --base "$BENCH" --keep "$T/k" cpu_softmax --param rows=64 --param cols=1024 \
  >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
cat "$T/out"
expect_in "$T/out" '^pair_copy: cpu_softmax against copy, 2 pairs, threads=0, on .*\(family [0-9]+\)'
for i in 1 2; do
  expect_in "$T/out" "^ +$i +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+"
done
expect_in "$T/out" '(kernel/copy median [0-9.]+ \([0-9.]+-[0-9.]+\), base/copy median|^no pair whose two copies agree)'
[ -d "$T/k/1-kernel" ] && [ -d "$T/k/2-base" ] && ok || fail "no kept results"

# the smoke tier's softmax sweeps two shapes: not one case per run
for bad in "--pairs 0 cpu_softmax" "--quick" "--bench /nonexistent cpu_softmax" "cpu_softmax cpu_rmsnorm" \
  "--quick --pairs 1 --bench $BENCH cpu_softmax"; do
  RC=0
  # shellcheck disable=SC2086
  "$SRC/studies/pair_copy.sh" $bad >"$T/out" 2>"$T/err" || RC=$?
  expect_rc 2 "pair_copy $bad"
  expect_in "$T/err" '^pair_copy: '
done
finish
