#!/usr/bin/env bash
# studies/peak_bench.sh --quick runs to completion and prints every row of
# its table with a roof figure and an anchor figure (mbw where installed),
# and the interval of each roof; a bad --rounds is refused. The ratios are
# not checked: a busy machine's numbers are no test.
. "$(dirname "$0")/cpu_lib.sh"

RC=0
"$SRC/studies/peak_bench.sh" --quick --bench "$BENCH" --keep "$T/p" >"$T/table" 2>"$T/log" || RC=$?
expect_rc 0
cat "$T/table"
ls "$T"/p/peak1/roofs/*.tsv >/dev/null 2>&1 && ok || fail "no roofs file kept"
RC=0
"$SRC/studies/peak_bench.sh" --quick --rounds 0 --bench "$BENCH" >/dev/null 2>"$T/bad" || RC=$?
expect_rc 2 "--rounds 0"
expect_in "$T/bad" "peak_bench: --rounds wants a positive integer"
num='[0-9.e+]+'
rows=(
  "^bench peak on .*\(family [0-9]+\), [0-9]+ CPUs"
  "^fp32 / OpenBLAS sgemm 256\^3 t=[0-9]+ +$num +$num +$num"
  "^fp32\.1t / OpenBLAS sgemm 256\^3 t=1 +$num +$num +$num"
  "^fp32\.1t / nominal peak +$num +$num +$num"
  "^dram copy,triad / best STREAM t=[0-9]+ +$num +$num +$num"
  "^dram\.1t copy,triad / best STREAM t=1 +$num +$num +$num"
  "^  fp32\.1t +$num% \(max $num%\)"
  "^  dram +$num% \(max $num%\)"
)
expect_nonempty "table rows" "${rows[@]}"
for r in "${rows[@]}"; do expect_in "$T/table" "$r"; done
if command -v mbw >/dev/null; then expect_in "$T/table" "^dram\.1t \(best kernel\) / mbw memcpy t=1 +$num +$num"; fi
finish
