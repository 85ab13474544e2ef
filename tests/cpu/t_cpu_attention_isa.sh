#!/usr/bin/env bash
# cpu_attention on every micro-kernel this CPU runs (their rows variants
# read Q and P in place): short last tiles, head_dim not a multiple of the
# kernel's width, 1 and 3 threads. Every element checked against the
# reference, O bit for bit the same on 1 and 3 threads; causal and not.
. "$(dirname "$0")/cpu_lib.sh"

printf '[run]\ntier = verify\nwarmup_iters = 1\nwarmup_time = 0\nmin_samples = 2\nmax_samples = 2\nmin_time = 0\nmax_time = 1s\nbatch_min_time = 0\nverify = full\ndeterminism = true\n[cpu_attention]\nbatch = 1,2\nheads = 3,1\nseq = 70,37\nhead_dim = 64,18\nrope = none,halves\nmask = causal,none\nthreads = 1,3\nisa = auto,avx512,avx2,generic\n' >"$T/t.ini"
run_bench --preset "$T/t.ini" --plugin cpu_attention --results-dir "$T/r"
expect_rc 0
python3 - "$T/r" <<'PY' && ok || fail "cpu_attention on every micro-kernel"
import glob, json, sys
cases = json.load(open(glob.glob(sys.argv[1] + "/*cpu_attention*.json")[0]))["cases"]
hashes, ran = {}, set()
for c in cases:
    p = c["params"]
    if c["status"] == "SKIPPED" and p["isa"] not in ("auto", "generic"):
        continue  # this CPU lacks the ISA
    assert c["status"] == "OK", (p, c["status"], c["message"])
    assert c["check"]["method"] == "full" and c["check"]["pass"], (p, c["check"])
    assert c["determinism"] == "bitwise_equal", (p, c["determinism"])
    ran.add(p["isa"])
    hashes.setdefault((p["seq"], p["rope"], p["mask"], p["isa"]), set()).add(c["output_hash"])
assert {"auto", "generic"} <= ran, ran
assert {k[2] for k in hashes} == {"causal", "none"}, hashes
assert all(len(h) == 1 for h in hashes.values()), hashes
PY
finish
