#!/usr/bin/env bash
# The smoke preset on cpu_gemm: results files, JSON with raw samples, rollup,
# and a second run the same day that keeps the first.
. "$(dirname "$0")/lib.sh"

run_bench --preset smoke --plugin cpu_gemm --results-dir "$T/r" --tag ci-box
expect_rc 0
base="$T/r/${TODAY}_cpu_gemm_smoke_ci-box"
[ -f "$base.txt" ] && [ -f "$base.json" ] && ok || fail "missing $base.{txt,json}"
expect_in "$base.txt" '^plugin sha256 +[0-9a-f]{64}$'
expect_in "$base.txt" '^preset sha256 +[0-9a-f]{64}$'
expect_in "$base.txt" '^command +.*bench --preset smoke --plugin cpu_gemm --results-dir'
expect_in "$T/out" 'cpu_gemm variant=blocked m=n=k=64 f32 threads=[0-9]+ isa=a[a-z.]*  *OK'
python3 - "$base.json" "$T/ncases" <<'PY' && ok || fail "result JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "bench-result/1"
cases = d["cases"]
assert len(cases) >= 4, len(cases)
for c in cases:
    if c["status"] == "SKIPPED":  # the OpenBLAS anchor where OpenBLAS is absent
        assert c["params"]["variant"] == "openblas" and "OpenBLAS" in c["message"], c
        continue
    assert c["status"] == "OK", (c["status"], c["params"])
    s = c["samples"]["host_ns"]
    assert len(s) >= 3 and all(x > 0 for x in s)
    assert c["check"]["method"] == "full" and c["check"]["max_abs_err"] < 1e-3, c["check"]
open(sys.argv[2], "w").write(str(len(cases)))
PY
expect_in "$T/r/rollup.csv" '^date,host,tag,plugin,backend,operation,preset,params,status'
expect_eq "$(csv_field "$T/r/rollup.csv" cpu_gemm 'variant=naive m=64' status)" OK "rollup status"
expect_eq "$(csv_field "$T/r/rollup.csv" cpu_gemm 'variant=naive m=64' tag)" ci-box "rollup tag"
gf=$(csv_field "$T/r/rollup.csv" cpu_gemm 'variant=blocked m=64' gflops)
python3 -c "import sys; sys.exit(0 if float('$gf') > 0 else 1)" && ok || fail "gflops '$gf'"

# Again, same day: the first files stay, the new ones get .2
run_bench --preset smoke --plugin cpu_gemm --results-dir "$T/r" --tag ci-box
expect_rc 0 "second run"
[ -f "$base.2.json" ] && [ -f "$base.2.txt" ] && [ -f "$base.json" ] && ok || fail "second run files"
# The same cases (host, date, tag, preset, params): each counted once, from
# the later run.
expect_eq "$(grep -c ',cpu_gemm,' "$T/r/rollup.csv")" "$(cat "$T/ncases")" "rollup rows, each case once"
expect_eq "$(grep -c ',cpu_gemm,.*\.2\.json,' "$T/r/rollup.csv")" "$(cat "$T/ncases")" "rows from the later run"
ls -a "$T/r" | grep -q '\.journal$' && fail "journal left after a finished run" || ok
ls -a "$T/r" | grep -q tmp && fail "temporary files left" || ok

# bench rollup rebuilds the same file.
cp "$T/r/rollup.csv" "$T/before.csv"
rm "$T/r/rollup.csv"
run_bench rollup --results-dir "$T/r"
expect_rc 0 "bench rollup"
cmp -s "$T/before.csv" "$T/r/rollup.csv" && ok || fail "rollup differs after rebuild"
finish
