#!/usr/bin/env bash
# scripts/anchors.sh --quick runs to completion and prints every row of its
# table with a bench figure (and an anchor figure wherever that anchor is
# installed). The ratios themselves are not checked: a busy machine's
# numbers are no test.
. "$(dirname "$0")/cpu_lib.sh"

RC=0
"$SRC/scripts/anchors.sh" --quick --bench "$BENCH" --keep "$T/a" >"$T/table" 2>"$T/log" || RC=$?
expect_rc 0
cat "$T/table"

rows=(
  'cpu_gemm best \(.*\) / OpenBLAS, 128\^3, 1 thread'
  'cpu_gemm best \(.*\) / OpenBLAS, 128\^3, all threads'
  'cpu_gemm best \(.*\) / OpenBLAS, 256\^3, 1 thread'
  'cpu_gemm best \(.*\) / OpenBLAS, 256\^3, all threads'
  'bench openblas / direct cblas_sgemm, 256\^3, 1 thread'
  'bench openblas / direct cblas_sgemm, 256\^3, all threads'
  'membw_cpu copy / mbw, 1 thread'
  'membw_cpu copy / mbw, all threads'
  'membw_cpu triad / mbw, 1 thread'
  'membw_cpu triad / mbw, all threads'
  'membw_cpu scale / mbw, 1 thread'
  'membw_cpu add / mbw, 1 thread'
  'cpu_spin iters=10000 / BM_spin cpu time'
  'cpu_spin iters=10000 / BM_spin real time'
  'cpu_noop floor / BM_noop_call'
  'cpu_noop floor, BM_empty'
)
for t in '1 thread' 'all threads'; do
  for p in cpu_rmsnorm cpu_layernorm cpu_softmax 'cpu_rope .*layout=halves' 'cpu_rope .*layout=interleaved' cpu_attention; do
    rows+=("^$p.*, $t")
  done
done
# Columns by the widths of the dashed line under the header.
columns() {
  python3 - "$T/table" "$1" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
dash = next(i for i, l in enumerate(lines) if re.fullmatch(r"[- ]+", l) and "--" in l)
spans, pos = [], 0
for m in re.finditer(r"-+", lines[dash]):
    spans.append((m.start(), m.end()))
for l in lines[dash + 1:]:
    if re.search(sys.argv[2], l):
        print("|".join(l[a:b].strip() if i else l[:b].strip() for i, (a, b) in enumerate(spans)))
        break
PY
}
for r in "${rows[@]}"; do
  expect_in "$T/table" "$r"
  bench=$(columns "$r" | cut -d'|' -f2)
  [ -n "$bench" ] && [ "$bench" != n/a ] && ok || fail "row /$r/: no bench figure ('$bench')"
done

# Anchors installed here give figures, not n/a.
anchor_ok() { # ROW: the anchor column holds a number
  local a
  a=$(columns "$1" | cut -d'|' -f3)
  [ -n "$a" ] && [ "$a" != n/a ] && ok || fail "row /$1/: anchor n/a"
}
if command -v mbw >/dev/null; then anchor_ok 'membw_cpu copy / mbw, 1 thread'; fi
if echo '#include <benchmark/benchmark.h>' | g++ -x c++ -fsyntax-only - 2>/dev/null; then
  anchor_ok 'cpu_spin .* / BM_spin'
  anchor_ok 'cpu_noop floor / BM_noop_call'
fi
if have_openblas; then anchor_ok 'OpenBLAS, 256\^3, 1 thread'; fi
finish
