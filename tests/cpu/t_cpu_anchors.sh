#!/usr/bin/env bash
# studies/anchors.sh --quick runs to completion and prints every row of its
# table with a bench figure (and an anchor figure wherever that anchor is
# installed); so does --cputime, with its one-thread rows. With two rounds
# the paired rows give the range of their per-round ratios. The ratios
# themselves are not checked: a busy machine's numbers are no test.
. "$(dirname "$0")/cpu_lib.sh"

RC=0
"$SRC/studies/anchors.sh" --quick --rounds 2 --bench "$BENCH" --keep "$T/a" >"$T/table" 2>"$T/log" || RC=$?
expect_rc 0
cat "$T/table"
[ -d "$T/a/round-1/bench-gemm" ] && [ -d "$T/a/round-2/bench-rows-1" ] && ok || fail "no per-round folders"
RC=0
"$SRC/studies/anchors.sh" --quick --rounds 0 --bench "$BENCH" >/dev/null 2>"$T/bad" || RC=$?
expect_rc 2 "--rounds 0"
expect_in "$T/bad" "anchors: --rounds wants a positive integer"

rows=(
  '^CPU: .*family [0-9]+ model [0-9]+'
  '^peak avx2: 32 FLOP/cycle \(nominal\) x [0-9.]+ GHz \(measured\)'
  'cpu_gemm best \(.*\) / strongest \(.*\), 128\^3, 1 thread'
  'cpu_gemm best \(.*\) / strongest \(.*\), 128\^3, all threads'
  'cpu_gemm best \(.*\) / strongest \(.*\), 256\^3, 1 thread'
  'cpu_gemm best \(.*\) / strongest \(.*\), 256\^3, all threads'
  'bench openblas / direct cblas_sgemm \(.*\), 256\^3, 1 thread'
  'bench openblas / direct cblas_sgemm \(.*\), 256\^3, all threads'
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
for r in "${rows[@]:0:2}"; do expect_in "$T/table" "$r"; done
for r in "${rows[@]:2}"; do
  expect_in "$T/table" "$r"
  bench=$(columns "$r" | cut -d'|' -f2)
  [ -n "$bench" ] && [ "$bench" != n/a ] && ok || fail "row /$r/: no bench figure ('$bench')"
done

# The paired rows: the range of two rounds' ratios (lo-hi, lo <= hi).
range_ok() { # ROW
  local r
  r=$(columns "$1" | cut -d'|' -f5)
  python3 -c 'import sys; lo, hi = map(float, sys.argv[1].split("-")); sys.exit(not 0 < lo <= hi)' "$r" 2>/dev/null &&
    ok || fail "row /$1/: rounds column '$r' is no range"
}
range_ok 'cpu_gemm best \(.*\) / strongest \(.*\), 256\^3, 1 thread'
range_ok '^cpu_softmax.*, all threads'

# Anchors installed here give figures, not n/a.
anchor_ok() { # ROW: the anchor column holds a number
  local a
  a=$(columns "$1" | cut -d'|' -f3)
  [ -n "$a" ] && [ "$a" != n/a ] && ok || fail "row /$1/: anchor n/a"
}
if command -v mbw >/dev/null; then anchor_ok 'membw_cpu copy / mbw, 1 thread'; fi
if echo '#include <benchmark/benchmark.h>' | g++ -x c++ -fsyntax-only - 2>/dev/null; then
  anchor_ok 'cpu_spin .* / BM_spin'
  # that row pairs bench's and Google Benchmark's runs in rounds (two in --quick)
  [ -d "$T/a/bench-spin-2" ] && [ -f "$T/a/gbench-2.json" ] && ok || fail "no second calibration round"
  range_ok 'cpu_spin .* / BM_spin cpu time'
  anchor_ok 'cpu_noop floor / BM_noop_call'
fi
if have_openblas; then
  anchor_ok 'strongest \(.*\), 256\^3, 1 thread'
  expect_in "$T/table" '^  anchor OpenBLAS [A-Za-z0-9]+ \(.*\), 256\^3, 1 thread'
fi
# BLIS: its rows where it is installed, none where it is not.
if have_blis; then
  expect_in "$T/table" '^  anchor BLIS [a-z0-9]+ \(.*\), 256\^3, 1 thread'
else
  expect_not_in "$T/table" '^  anchor BLIS'
fi
# With AVX-512 and a library that picked narrower kernels, the forced run is there too.
if machine_has_flag avx512f; then
  core=$(sed -n 's/^openblas_core=//p' "$T/a/meta")
  case "$core" in ""|SkylakeX|Cooperlake|SapphireRapids) ;;
    *) expect_in "$T/table" '^  anchor OpenBLAS SkylakeX \(avx512\), 256\^3, 1 thread' ;; esac
fi
# --cputime: the one-thread figures by thread CPU time, each with a number.
RC=0
"$SRC/studies/anchors.sh" --quick --cputime --bench "$BENCH" >"$T/ct" 2>"$T/ctlog" || RC=$?
expect_rc 0 "--cputime"
cat "$T/ct"
for r in 'cpu_gemm packed [a-z0-9]+ / strongest .*, 256\^3 +[0-9.]+ ' 'cpu_rmsnorm GB/s / membw_cpu copy GB/s +[0-9.]+ +[0-9.]+ ' \
         'cpu_softmax GB/s / membw_cpu copy GB/s +[0-9.]+ +[0-9.]+ ' 'cpu_attention GFLOP/s / cpu_gemm packed 256\^3 +[0-9.]+ +[0-9.]+ '; do
  expect_in "$T/ct" "$r"
done
finish
