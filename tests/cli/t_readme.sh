#!/usr/bin/env bash
# The README's example outputs match the program (scripts/readme_examples.sh
# --check on a cheap example), and the check fails when they do not.
. "$(dirname "$0")/lib.sh"

"$SRC/scripts/readme_examples.sh" --check --only one_case --bench "$BENCH" >"$T/out" 2>&1
RC=$?
expect_rc 0 "README's one-case example matches a real run"
[ "$RC" -eq 0 ] || cat "$T/out"
expect_in "$T/out" 'one_case matches'

# A README whose example has drifted (an old line format) fails the check.
sed 's/  OK  /: OK  median /' "$SRC/README.md" >"$T/README.md"
"$SRC/scripts/readme_examples.sh" --check --only one_case --bench "$BENCH" --readme "$T/README.md" >"$T/out" 2>&1
RC=$?
expect_rc 1 "a drifted example is caught"
expect_in "$T/out" '^\+\[ N/N\] cpu_gemm variant=naive m=n=k=N fN threads=N isa=auto OK N T'
# Without --check it rewrites the block, and then the check passes.
"$SRC/scripts/readme_examples.sh" --only one_case --bench "$BENCH" --readme "$T/README.md" >"$T/out" 2>&1
"$SRC/scripts/readme_examples.sh" --check --only one_case --bench "$BENCH" --readme "$T/README.md" >"$T/out" 2>&1
RC=$?
expect_rc 0 "rewritten example matches"
[ "$RC" -eq 0 ] || cat "$T/out"
finish
