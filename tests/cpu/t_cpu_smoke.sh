#!/usr/bin/env bash
# Every CPU plugin under the smoke preset: exit 0, every case OK (openblas
# SKIPPED with the reason where OpenBLAS is absent), outputs fully checked,
# rows in the rollup; and the whole set takes well under a minute.
. "$(dirname "$0")/cpu_lib.sh"

start=$(date +%s.%N)
run_bench --preset smoke --plugin "$CPU_GLOB" --results-dir "$T/r"
wall=$(python3 -c "import time; print(round(time.time() - $start, 1))")
expect_rc 0
echo "smoke of all CPU plugins: ${wall} s"
check_results "$T/r" smoke && ok || fail "smoke results"
expect_in "$T/out" 'cpu_gemm variant=packed m=n=k=64 bf16 threads=[0-9]+ isa=(avx|gen)[a-z0-9.]*  *OK'
expect_in "$T/out" 'memlat_cpu size=L2/2 loads=100000  *OK'
expect_not_in "$T/out" 'WRONG_ANSWER|ERROR|CRASH|TIMEOUT'
# A generous bound (sanitizer builds and a busy machine included); the
# plain build takes a few seconds.
python3 -c "import sys; sys.exit(0 if $wall < 60 else 1)" && ok || fail "smoke took ${wall} s"
finish
