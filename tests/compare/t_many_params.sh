# Parameter lists are hashed, not scanned: a result of one case with 10^5
# parameters (and one with 2*10^5) rolls up and compares in linear time.
# On a quiet machine the rollup takes well under 1 s; the bound here is
# loose so that it holds with both cores busy (the quadratic lists took
# 35 s for 10^5).
. "$(dirname "$0")/lib.sh"
for n in 100000 200000; do
  d="$T/p$n"
  # gen_results reads lines of 4096 bytes: write the file with python
  python3 - "$n" "$d" <<'PY' || fail gen
import json, os, subprocess, sys
n, d = int(sys.argv[1]), sys.argv[2]
gen = os.environ["GEN"]
subprocess.run([gen, d, "1"], input="run 2026-11-18 px\ncase m=1 OK 1000 0.02 20\n", text=True, check=True)
p = [os.path.join(d, x) for x in os.listdir(d) if x.endswith(".json")][0]
f = json.load(open(p))
f["cases"][0]["params"] = {"p%d" % ((i * 7919) % n): str(i) for i in range(n)}
json.dump(f, open(p, "w"), indent=2)
f["env"]["date"] = "2026-11-19"
json.dump(f, open(os.path.join(d, "2026-11-19_px_smoke.json"), "w"), indent=2)
PY
  start=$(date +%s%N)
  timeout 20 "$BENCH" rollup --results-dir "$d" 2>"$T/err"
  RC=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  expect_rc 0 "rollup of $n parameters (timeout 20 s)"
  echo "rollup of $n parameters: $ms ms"
  [ "$ms" -lt 10000 ] && ok || fail "rollup of $n parameters took $ms ms"
  python3 - "$d/rollup.csv" "$n" <<'PY' && ok || fail "rollup columns of $n parameters"
import csv, sys
csv.field_size_limit(1 << 30)
rows = list(csv.reader(open(sys.argv[1], newline="")))
n = int(sys.argv[2])
head = rows[0]
params = [h for h in head if h.startswith("param.")]
assert len(params) == n, len(params)
assert params[0] == "param.p0" and params[1] == "param.p%d" % (7919 % n), params[:2]
assert len(rows) == 3 and all(len(r) == len(head) for r in rows)
assert rows[1][head.index("param.p%d" % (7919 % n))] == "1"
PY
  for cmd in "compare $d/2026-11-18_px_smoke.json $d/2026-11-19_px_smoke.json" "history --results-dir $d"; do
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    timeout 20 "$BENCH" $cmd >"$T/out" 2>"$T/err"
    RC=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    expect_rc 0 "$cmd (timeout 20 s)"
    echo "${cmd%% *} of $n parameters: $ms ms"
    [ "$ms" -lt 10000 ] && ok || fail "${cmd%% *} of $n parameters took $ms ms"
  done
done
finish
