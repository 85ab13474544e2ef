#!/usr/bin/env bash
# The row-wise plugins (rmsnorm, layernorm, softmax) on both row-kernel
# paths (AVX-512 where the CPU has it, and the portable loops forced with
# BENCH_CPU_ROWOPS=portable) and both kinds of stores, on rows of awkward
# lengths: every element checked, the isa recorded.
. "$(dirname "$0")/cpu_lib.sh"

printf '[run]\ntier = verify\nwarmup_iters = 1\nwarmup_time = 0\nmin_samples = 2\nmax_samples = 2\nmin_time = 0\nmax_time = 1s\nbatch_min_time = 0\nverify = full\ndeterminism = true\n' >"$T/r.ini"
for p in rmsnorm layernorm softmax; do
  printf '[cpu_%s]\nrows = 3,40\ncols = 1,4099\nthreads = 1,2\nstores = normal,nontemporal\n' $p >>"$T/r.ini"
done
for path in auto portable; do
  if [ $path = portable ]; then export BENCH_CPU_ROWOPS=portable; else unset BENCH_CPU_ROWOPS; fi
  run_bench --preset "$T/r.ini" --plugin 'cpu_rmsnorm,cpu_layernorm,cpu_softmax' --results-dir "$T/$path"
  expect_rc 0 "$path"
  python3 - "$T/$path" "$path" "$(machine_has_flag avx512f && echo avx512 || echo portable)" <<'PY' && ok || fail "$path row kernels"
import glob, json, sys
d, path, widest = sys.argv[1:4]
want = "portable" if path == "portable" else widest
n = 0
for f in glob.glob(d + "/*.json"):
    for c in json.load(open(f))["cases"]:
        n += 1
        assert c["status"] == "OK", (c["plugin"], c["params"], c["message"])
        assert c["check"]["method"] == "full" and c["check"]["pass"], (c["plugin"], c["params"], c["check"])
        assert c["determinism"] == "bitwise_equal", (c["plugin"], c["params"])
        assert c["info"]["isa"] == want, (c["info"], want)
        assert c["info"]["stores"] == c["params"]["stores"], c["info"]
assert n == 3 * 8, n
PY
done
finish
