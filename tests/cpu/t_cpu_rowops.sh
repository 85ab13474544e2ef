#!/usr/bin/env bash
# The row-wise plugins (rmsnorm, layernorm, softmax) on every row-kernel
# path this CPU has (the widest: AVX-512 or AVX2; AVX2 forced with
# BENCH_CPU_ROWOPS=avx2; the portable loops with =portable) and both kinds
# of stores, on rows of awkward
# lengths: every element checked, the isa recorded.
. "$(dirname "$0")/cpu_lib.sh"

printf '[run]\ntier = verify\nwarmup_iters = 1\nwarmup_time = 0\nmin_samples = 2\nmax_samples = 2\nmin_time = 0\nmax_time = 1s\nbatch_min_time = 0\nverify = full\ndeterminism = true\n' >"$T/r.ini"
for p in rmsnorm layernorm softmax; do
  printf '[cpu_%s]\nrows = 3,40\ncols = 1,4099\nthreads = 1,2\nstores = normal,nontemporal\n' $p >>"$T/r.ini"
done
avx2=portable
machine_has_flag avx2 && machine_has_flag fma && avx2=avx2
widest=$avx2
machine_has_flag avx512f && widest=avx512
for path in auto avx2 portable; do
  if [ $path = auto ]; then unset BENCH_CPU_ROWOPS; else export BENCH_CPU_ROWOPS=$path; fi
  want=$widest
  [ $path = avx2 ] && want=$avx2
  [ $path = portable ] && want=portable
  run_bench --preset "$T/r.ini" --plugin 'cpu_rmsnorm,cpu_layernorm,cpu_softmax' --results-dir "$T/$path"
  expect_rc 0 "$path"
  python3 - "$T/$path" "$want" <<'PY' && ok || fail "$path row kernels"
import glob, json, sys
d, want = sys.argv[1:3]
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
# The `isa` tunable picks the path per case, over the widest one and with
# no BENCH_CPU_ROWOPS: every path this CPU has runs as asked and is
# recorded; one it lacks is SKIPPED with the reason, never replaced.
unset BENCH_CPU_ROWOPS
printf '[run]\ntier = verify\nwarmup_iters = 1\nwarmup_time = 0\nmin_samples = 2\nmax_samples = 2\nmin_time = 0\nmax_time = 1s\nbatch_min_time = 0\nverify = full\n' >"$T/isa.ini"
for p in rmsnorm layernorm softmax; do
  printf '[cpu_%s]\nrows = 5\ncols = 4099\nthreads = 1,2\nstores = normal,nontemporal\nisa = avx512,avx2,portable,widest\n' $p >>"$T/isa.ini"
done
have512=$(machine_has_flag avx512f && echo 1 || echo 0)
run_bench --preset "$T/isa.ini" --plugin 'cpu_rmsnorm,cpu_layernorm,cpu_softmax' --results-dir "$T/isa"
expect_rc 0 "isa param"
python3 - "$T/isa" "$have512" "$avx2" "$widest" <<'PY' && ok || fail "isa param"
import glob, json, sys
d, have512, avx2, widest = sys.argv[1:5]
have = {"avx512": have512 == "1", "avx2": avx2 == "avx2", "portable": True}
n = ran = skipped = 0
for f in glob.glob(d + "/*.json"):
    for c in json.load(open(f))["cases"]:
        n += 1
        isa = c["params"]["isa"]
        want = widest if isa == "widest" else isa
        if isa != "widest" and not have[isa]:
            assert c["status"] == "SKIPPED" and ("no " + isa) in (c["message"] or ""), (c["params"], c["status"], c["message"])
            skipped += 1
            continue
        assert c["status"] == "OK", (c["plugin"], c["params"], c["message"])
        assert c["check"]["method"] == "full" and c["check"]["pass"], (c["plugin"], c["params"], c["check"])
        assert c["info"]["isa"] == want, (c["params"], c["info"], want)
        ran += 1
assert n == 3 * 2 * 2 * 4 and ran + skipped == n and ran >= n // 2, (n, ran, skipped)
print("isa param:", ran, "ran,", skipped, "skipped")
PY
finish
