#!/usr/bin/env bash
# cpu_gemm packed on several threads, for every micro-kernel this CPU runs:
# C tall enough that the threads split its rows and pack each B panel
# together (between barriers), and C wide (the columns split instead).
# k = 1100 is more than the largest kc (1024): C is accumulated over k blocks.
# Every element checked, and C bit for bit the same on 1, 2 and 3 threads.
. "$(dirname "$0")/cpu_lib.sh"

printf '[run]\ntier = verify\nwarmup_iters = 1\nwarmup_time = 0\nmin_samples = 2\nmax_samples = 2\nmin_time = 0\nmax_time = 1s\nbatch_min_time = 0\nverify = full\ndeterminism = true\n[cpu_gemm]\nvariant = packed\nm = 301,37\nn = 97,290\nk = 1100,1100\ndtype = f32,bf16\nthreads = 1,2,3\nisa = auto,avx2,generic\n' >"$T/t.ini"
run_bench --preset "$T/t.ini" --plugin cpu_gemm --results-dir "$T/r"
expect_rc 0
python3 - "$T/r" <<'PY' && ok || fail "threaded packed GEMM"
import glob, json, sys
cases = json.load(open(glob.glob(sys.argv[1] + "/*cpu_gemm*.json")[0]))["cases"]
hashes = {}
for c in cases:
    p = c["params"]
    if c["status"] == "SKIPPED" and p["isa"] != "generic":
        continue  # this CPU lacks the ISA
    assert c["status"] == "OK", (p, c["status"], c["message"])
    assert c["check"]["method"] == "full" and c["check"]["pass"], (p, c["check"])
    assert c["determinism"] == "bitwise_equal", (p, c["determinism"])
    hashes.setdefault((p["m"], p["dtype"], p["isa"]), set()).add(c["output_hash"])
assert hashes and all(len(h) == 1 for h in hashes.values()), hashes
PY
finish
