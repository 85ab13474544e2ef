# bench compare does not cry wolf: samples from one process cannot show how
# far a case's level moves between runs, so each side's interval gets a
# between-run term (the history of the case in the folder, the side's own
# runs pooled, or the backend's default), FASTER/SLOWER need 10 samples a
# side and, under the default term, runs that settled; and the output says
# which term was used. A real 20% slowdown with
# a known run-to-run spread is still SLOWER.
. "$(dirname "$0")/lib.sh"

# terms CSV PARAMS: "old_term/new_term old_runs/new_runs verdict" of a row
terms() {
  python3 - "$@" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    if r["params"] == sys.argv[2]:
        print(f'{r["old_term"]}/{r["new_term"]} {r["old_runs"]}/{r["new_runs"]} {r["verdict"]}'); break
else:
    print("<no row>")
PY
}

# 1. Two smoke runs of the same build, twice: every timed case says it
#    took the default term, the busy figure (smoke's few single iterations
#    of a case move 15-28% from run to run even on a steady machine), and
#    FASTER/SLOWER verdicts (false alarms) stay rare. A 95% interval beyond
#    the 5% threshold calls identical builds apart in at most 1 comparison
#    of 40 by design (one did, beside the ASan tests: 1 of 32): so over
#    both repeats at most 2 (P(3 or more of 32) at that rate is 5%; at the
#    rate measured without the load, 0 of 480 smoke cases, well under
#    0.1%), where the
#    steady figure on smoke runs, before the busy one, called 9.7% (31 of
#    320: 3 or more of 32 in 6 runs of 10). Exit 1 only with a SLOWER one
#    (--fail-on's default: a false FASTER exits 0).
alarms=0
for rep in 1 2; do
  for side in a b; do
    run_bench --preset smoke --plugin cpu_spin,cpu_gemm --results-dir "$T/smoke$rep/$side"
    expect_rc 0 "smoke run $rep$side"
  done
  run_bench compare "$T/smoke$rep/a" "$T/smoke$rep/b" --format csv
  count() { python3 -c 'import csv, sys; print(sum(r["verdict"] in sys.argv[2].split(",") for r in csv.DictReader(open(sys.argv[1], newline=""))))' "$T/out" "$1"; }
  n=$(count FASTER,SLOWER)
  slower=$(count SLOWER)
  alarms=$((alarms + n))
  [ "$n" -gt 0 ] && grep -E ',(FASTER|SLOWER),' "$T/out"
  expect_rc $((slower > 0)) "self-compare $rep: exit 1 only with a false SLOWER ($slower of $n alarms)"
  python3 - "$T/out" <<'PY' && ok || fail "self-compare $rep: no term"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) >= 10, len(rows)
for r in rows:
    if r["ratio"]:
        assert r["old_term"] == r["new_term"] == "default", r
        for side in ("old", "new"):  # smoke times a case far under 0.1 s: the busy figure, steady or not (t_steady)
            assert float(r[side + "_between"]) >= 0.1, r
PY
  run_bench compare "$T/smoke$rep/a" "$T/smoke$rep/b" --format json
  python3 - "$T/out" <<'PY' && ok || fail "self-compare $rep: a smoke case not marked brief on a steady run"
import json, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    for side in ("old", "new"):
        b = c[side].get("between_run")
        if b:
            assert b["brief"] is (b["machine"] == "steady"), c
PY
done
[ "$alarms" -le 2 ] && ok || fail "$alarms false alarms in the two smoke self-compares (at most 2)"
run_bench compare "$T/smoke1/a" "$T/smoke1/b"
expect_in "$T/out" '^between-run term .*old [0-9]+ default; new [0-9]+ default \(default: [0-9]+% \+ [0-9]+%/sqrt' \
  "the table names the term and its figures"

# 2. Planted runs (gen_results): medians in ns, spread, samples.
#    hist: old 1000, new 1200 (a real 20% slowdown), three earlier days of
#    each side in its folder, tight: SLOWER from the history's spread.
#    wide: the same, but the old side's history moved by +-30%: NOISY.
#    single: the same 20% with no history: the default term, NOISY.
#    few: a 2x slowdown from 6 samples a side, tight history: NOISY (the
#    minimum of 10 samples); many: the same from 12 samples: SLOWER.
for d in 15 16 17 20; do
  case $d in 15) w=1300 ;; 16) w=700 ;; 17) w=1000 ;; *) w=1000 ;; esac
  "$GEN" "$T/h_old" "$d" <<SPEC || fail "gen old $d"
run 2026-11-$d px sha256=aa
case c=hist OK 1000 0.02 40
case c=wide OK $w 0.02 40
case c=few OK 1000 0.01 6
case c=many OK 1000 0.01 12
SPEC
done
"$GEN" "$T/h_old" 21 <<'SPEC' || fail "gen old single"
run 2026-11-20 px sha256=aa
case c=single OK 1000 0.02 40
SPEC
for d in 15 16 17 21; do
  "$GEN" "$T/h_new" "$((d + 100))" <<SPEC || fail "gen new $d"
run 2026-11-$d px sha256=bb
case c=hist OK 1200 0.02 40
case c=wide OK 1200 0.02 40
case c=few OK 2000 0.01 6
case c=many OK 2000 0.01 12
SPEC
done
"$GEN" "$T/h_new" 99 <<'SPEC' || fail "gen new single"
run 2026-11-21 px sha256=bb
case c=single OK 1200 0.02 40
SPEC
run_bench compare "$T/h_old" "$T/h_new" --format csv
expect_rc 1 "a SLOWER: exit 1"
expect_eq "$(terms "$T/out" c=hist)" "history/history 1/1 SLOWER" "20% slower with a tight history"
expect_eq "$(terms "$T/out" c=wide)" "history/history 1/1 NOISY" "20% slower, the old side's history spread 30%"
expect_eq "$(terms "$T/out" c=single)" "default/default 1/1 NOISY" "20% slower from single runs"
expect_eq "$(terms "$T/out" c=few)" "history/history 1/1 NOISY" "2x slower from 6 samples a side"
expect_eq "$(terms "$T/out" c=many)" "history/history 1/1 SLOWER" "2x slower from 12 samples a side"
run_bench compare "$T/h_old" "$T/h_new"
expect_in "$T/out" '^note: 1 case NOISY rather than FASTER/SLOWER: fewer than 10 samples on a side$' "the table says why"
run_bench compare "$T/h_old" "$T/h_new" --format json
python3 - "$T/out" <<'PY' && ok || fail "json: the term of each side"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["min_samples"] == 10
c = {x["params"]["c"]: x for x in d["cases"]}
b = c["hist"]["old"]["between_run"]
assert b["term"] == "history" and b["history_runs"] == 3 and b["runs"] == 1 and b["df"] == 2 and b["sigma"] < 0.02, b
assert c["single"]["new"]["between_run"]["term"] == "default" and c["single"]["new"]["between_run"]["df"] is None
assert c["few"]["few_samples"] is True and c["many"]["few_samples"] is False
PY

# 2b. A run that did not settle (its noise target not reached: the machine
#    did not let it measure what was asked) with no history to show its
#    case's spread calls no change: a 2x slowdown from single runs is
#    SLOWER when both settled, NOISY when the new one did not.
"$GEN" "$T/u_old" 1 <<'SPEC' || fail "gen unsettled old"
run 2026-11-20 px
case c=settled OK 1000 0.02 40
case c=unsettled OK 1000 0.02 40
SPEC
"$GEN" "$T/u_new" 2 <<'SPEC' || fail "gen unsettled new"
run 2026-11-21 px
case c=settled OK 2000 0.02 40
case c=unsettled OK 2000 0.02 40 settled=0
SPEC
run_bench compare "$T/u_old" "$T/u_new" --format csv
expect_eq "$(terms "$T/out" c=settled)" "default/default 1/1 SLOWER" "2x slower, both settled"
expect_eq "$(terms "$T/out" c=unsettled)" "default/default 1/1 NOISY" "2x slower, the new run did not settle"
run_bench compare "$T/u_old" "$T/u_new"
expect_in "$T/out" '^note: 1 case NOISY rather than FASTER/SLOWER: a run that did not settle' "the table says why"
run_bench compare "$T/u_old" "$T/u_new" --format json
python3 - "$T/out" <<'PY' && ok || fail "json: unsettled"
import json, sys
c = {x["params"]["c"]: x for x in json.load(open(sys.argv[1]))["cases"]}
assert c["unsettled"]["unsettled"] is True and c["settled"]["unsettled"] is False
PY

# 3. A history run of another build (plugin hash) is no history: the old
#    side's earlier runs under sha256=cc leave it with the default.
for d in 15 16 17; do
  "$GEN" "$T/x_old" "$d" <<SPEC || fail "gen x $d"
run 2026-11-$d px sha256=cc
case c=hist OK 1000 0.02 40
SPEC
done
"$GEN" "$T/x_old" 20 <<'SPEC' || fail "gen x 20"
run 2026-11-20 px sha256=aa
case c=hist OK 1000 0.02 40
SPEC
run_bench compare "$T/x_old" "$T/h_new" --format csv --plugin px
expect_eq "$(terms "$T/out" c=hist)" "default/history 1/1 NOISY" "history of another plugin hash is not used"

# 4. Pooling: three runs of a case on one day (same hash) a side, runs as
#    the unit: the level is the geometric mean of the runs' medians (1000,
#    1020, 1040: 1019.9), the spread theirs; 20% slower is SLOWER. A fourth
#    run that day of another build (hash) is not pooled.
i=0
for m in 1000 1020 1040; do
  i=$((i + 1))
  "$GEN" "$T/p_old" "$i" <<SPEC || fail "gen pooled old"
run 2026-11-20 px sha256=aa
case c=pool OK $m 0.01 30
SPEC
  "$GEN" "$T/p_new" "$((i + 10))" <<SPEC || fail "gen pooled new"
run 2026-11-21 px sha256=bb
case c=pool OK $((m * 6 / 5)) 0.01 30
SPEC
done
"$GEN" "$T/p_old" 9 <<'SPEC' || fail "gen other build"
run 2026-11-20 px sha256=zz
case c=pool OK 5000 0.01 30
SPEC
expect_eq "$(ls "$T/p_old"/*.json | wc -l)" 4 "four run files on the old side"
run_bench compare "$T/p_old" "$T/p_new" --format json
python3 - "$T/out" <<'PY' && ok || fail "pooled runs"
import json, sys
c = json.load(open(sys.argv[1]))["cases"]
assert len(c) == 1, c
c = c[0]
o, n = c["old"]["between_run"], c["new"]["between_run"]
assert o["term"] == n["term"] == "pooled" and o["runs"] == n["runs"] == 3 and o["samples"] == 90, (o, n)
assert abs(c["old"]["median_ns"] / 1019.9 - 1) < 0.005, c["old"]
assert abs(c["ratio"] / 1.2 - 1) < 0.01 and c["verdict"] == "SLOWER", c
PY
# the same runs without the slowdown: not FASTER or SLOWER
run_bench compare "$T/p_old" "$T/p_old" --format csv
expect_eq "$(terms "$T/out" c=pool)" "none/none 3/3 SAME" "a folder against itself: the same runs, no term"
finish
