#!/usr/bin/env bash
# cpu_gemm variant=openblas: OK against the reference where OpenBLAS can be
# loaded, and SKIPPED with the reason where it cannot (pretended here with
# BENCH_CPU_NO_OPENBLAS=1, which the plugin honours); the other variants
# run either way, and the plugin loads either way.
. "$(dirname "$0")/cpu_lib.sh"

printf '[run]\ntier = smoke\nmin_samples = 2\nmin_time = 0\nmax_time = 0.1s\nwarmup_time = 0\nbatch_min_time = 0\n[cpu_gemm]\nvariant = openblas,packed\nm = 96\nn = 80\nk = 70\ndtype = f32,bf16\nthreads = 1,2\n' >"$T/ob.ini"

run_bench --preset "$T/ob.ini" --plugin cpu_gemm --results-dir "$T/r1"
expect_rc 0 "openblas run"
if have_openblas; then
  expect_eq "$(grep -c '  *OK ' "$T/out")" 8 "all 8 cases OK with OpenBLAS"
  python3 - "$T/r1" <<'PY' && ok || fail "openblas_core info"
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*cpu_gemm_ob.json")[0]))
assert all(c["info"].get("openblas_core") for c in d["cases"] if c["params"]["variant"] == "openblas")
PY
else
  expect_eq "$(grep -c '  *SKIPPED' "$T/out")" 4 "openblas cases SKIPPED without OpenBLAS"
  expect_in "$T/out" 'variant=openblas.*SKIPPED.*OpenBLAS not available'
fi

BENCH_CPU_NO_OPENBLAS=1 run_bench --preset "$T/ob.ini" --plugin cpu_gemm --results-dir "$T/r2"
expect_rc 0 "SKIPPED is not a failure"
expect_eq "$(grep -c 'variant=openblas.*  *SKIPPED' "$T/out")" 4 "openblas cases SKIPPED"
expect_eq "$(grep -c 'variant=packed.*  *OK ' "$T/out")" 4 "packed cases still OK"
expect_in "$T/out" 'OpenBLAS disabled by BENCH_CPU_NO_OPENBLAS=1'
expect_in "$T/r2/rollup.csv" ',cpu_gemm,cpu,gemm,ob,variant=openblas m=96 n=80 k=70 dtype=f32 threads=1 isa=auto mc=0 kc=0 nc=0,SKIPPED'

BENCH_CPU_NO_OPENBLAS=1 run_bench --list --plugin cpu_gemm
expect_rc 0 "--list without OpenBLAS"
expect_in "$T/out" '^cpu_gemm +cpu +runnable'
finish
