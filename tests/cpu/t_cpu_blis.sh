#!/usr/bin/env bash
# cpu_gemm variant=blis (the second anchor): OK against the reference with
# the BLIS configuration recorded where BLIS can be loaded, SKIPPED with the
# reason where it cannot (pretended with BENCH_CPU_NO_BLIS=1), a forced
# configuration BLIS lacks SKIPPED by name; the other variants run either way.
. "$(dirname "$0")/cpu_lib.sh"

printf '[run]\ntier = smoke\nmin_samples = 2\nmin_time = 0\nmax_time = 0.1s\nwarmup_time = 0\nbatch_min_time = 0\n[cpu_gemm]\nvariant = blis,packed\nm = 96\nn = 80\nk = 70\ndtype = f32,bf16\nthreads = 1,2\n' >"$T/blis.ini"

run_bench --preset "$T/blis.ini" --plugin cpu_gemm --results-dir "$T/r1"
expect_rc 0 "blis run"
if have_blis; then
  expect_eq "$(grep -c '  *OK ' "$T/out")" 8 "all 8 cases OK with BLIS"
  python3 - "$T/r1" <<'PY' && ok || fail "blis_arch info"
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*cpu_gemm_blis.json")[0]))
assert all(c["info"].get("blis_arch") for c in d["cases"] if c["params"]["variant"] == "blis")
PY
  BENCH_CPU_BLIS_ARCH=nosuchcpu run_bench --preset "$T/blis.ini" --plugin cpu_gemm --results-dir "$T/r3"
  expect_rc 0 "an unknown configuration is SKIPPED"
  expect_in "$T/out" "variant=blis.*SKIPPED.*BLIS has no configuration 'nosuchcpu'"
  # generic is in every BLIS: forcing it runs it, and says so.
  BENCH_CPU_BLIS_ARCH=generic run_bench --preset "$T/blis.ini" --plugin cpu_gemm --results-dir "$T/r4"
  expect_rc 0 "BLIS forced to generic"
  python3 - "$T/r4" <<'PY' && ok || fail "forced blis_arch"
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*cpu_gemm_blis.json")[0]))
cs = [c for c in d["cases"] if c["params"]["variant"] == "blis"]
assert cs and all(c["status"] == "OK" and c["info"]["blis_arch"] == "generic" for c in cs), cs
PY
else
  expect_eq "$(grep -c '  *SKIPPED' "$T/out")" 4 "blis cases SKIPPED without BLIS"
  expect_in "$T/out" 'variant=blis.*SKIPPED.*BLIS not available'
fi

BENCH_CPU_NO_BLIS=1 run_bench --preset "$T/blis.ini" --plugin cpu_gemm --results-dir "$T/r2"
expect_rc 0 "SKIPPED is not a failure"
expect_eq "$(grep -c 'variant=blis.*  *SKIPPED' "$T/out")" 4 "blis cases SKIPPED"
expect_eq "$(grep -c 'variant=packed.*  *OK ' "$T/out")" 4 "packed cases still OK"
expect_in "$T/out" 'BLIS disabled by BENCH_CPU_NO_BLIS=1'
expect_in "$T/r2/rollup.csv" ',cpu_gemm,cpu,gemm,blis,variant=blis m=96 n=80 k=70 dtype=f32 threads=1 isa=auto mc=0 kc=0 nc=0,SKIPPED'
finish
