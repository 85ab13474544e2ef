#!/usr/bin/env bash
# The example outputs of README.md and docs/*.md match the program
# (scripts/readme_examples.sh --check on a cheap example), the code blocks
# taken from files match those files, and the check fails when they do not.
. "$(dirname "$0")/lib.sh"

"$SRC/scripts/readme_examples.sh" --check --only one_case --bench "$BENCH" >"$T/out" 2>&1
RC=$?
expect_rc 0 "the one-case example matches a real run"
[ "$RC" -eq 0 ] || cat "$T/out"
expect_in "$T/out" 'one_case matches'

# A page whose example has drifted (an old line format) fails the check.
# (The one-case example lives in docs/running.md since the README was cut
# down to 15 KB; the drifted copy is of that page.)
sed 's/  OK  /: OK  median /' "$SRC/docs/running.md" >"$T/running.md"
"$SRC/scripts/readme_examples.sh" --check --only one_case --bench "$BENCH" --readme "$T/running.md" >"$T/out" 2>&1
RC=$?
expect_rc 1 "a drifted example is caught"
expect_in "$T/out" '^\+\[ N/N\] cpu_gemm variant=naive m=n=k=N fN threads=N( isa=auto)? OK N T'
# Without --check it rewrites the block, and then the check passes.
"$SRC/scripts/readme_examples.sh" --only one_case --bench "$BENCH" --readme "$T/running.md" >"$T/out" 2>&1
"$SRC/scripts/readme_examples.sh" --check --only one_case --bench "$BENCH" --readme "$T/running.md" >"$T/out" 2>&1
RC=$?
expect_rc 0 "rewritten example matches"
[ "$RC" -eq 0 ] || cat "$T/out"

# Code blocks taken from files: every one on every page matches its file
# (no example is run for them).
"$SRC/scripts/readme_examples.sh" --check --only 'file:*' --bench "$BENCH" >"$T/out" 2>&1
RC=$?
expect_rc 0 "code blocks match their files"
[ "$RC" -eq 0 ] || cat "$T/out"
expect_in "$T/out" '^readme_examples.sh: file:tests/cli/external_plugin.c matches$'
# The README's plugin with one line changed: a whole-file block is refused ...
sed 's/expf(s->x\[i\] - mx)/expf(s->x[i])/' "$SRC/README.md" >"$T/README.md"
"$SRC/scripts/readme_examples.sh" --check --only file:tests/cli/external_plugin.c --bench "$BENCH" \
  --readme "$T/README.md" >"$T/out" 2>&1
RC=$?
expect_rc 1 "a changed plugin in the README is caught"
expect_in "$T/out" 'file:tests/cli/external_plugin.c differs from the file'
# ... and rewritten from the file without --check.
"$SRC/scripts/readme_examples.sh" --only file:tests/cli/external_plugin.c --bench "$BENCH" \
  --readme "$T/README.md" >"$T/out" 2>&1
cmp -s "$T/README.md" "$SRC/README.md" && ok || fail "the plugin block was not rewritten from its file"
# An excerpt ("..." for lines left out) with a line that is not in the file.
sed 's/\.tol = BENCH_TOL_EXACT}/.tol = BENCH_TOL_DEFAULT}/' "$SRC/docs/sdk.md" >"$T/sdk.md"
"$SRC/scripts/readme_examples.sh" --check --only file:examples/cpu/ex_cpu_int8_gemm.c --bench "$BENCH" \
  --readme "$T/sdk.md" >"$T/out" 2>&1
RC=$?
expect_rc 1 "a changed excerpt is caught"
expect_in "$T/out" "from '.tol = BENCH_TOL_DEFAULT};' on, the page is not the file"
finish
