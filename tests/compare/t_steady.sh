#!/bin/bash
# bench compare's default between-run term follows how steady the machine
# was over each run, as the run recorded it in its header ("steadiness":
# other runnable threads, the calibration loop's contention and drift,
# steal): a run on a steady machine takes 3% + 5%/sqrt(samples), a busy one
# or one that recorded nothing (older files, no steal figure) today's 10% +
# 20%/sqrt(samples). So a real 20% slowdown compared from one run a side is
# SLOWER when both runs were steady and NOISY when one was not, and the
# output says which figure was used and why.
. "$(dirname "$0")/lib.sh"

# gen DIR SEED MACHINE MEDIAN [BATCH]: one run of px (no history), 40
# samples +-2% of BATCH iterations (4000: 0.16 s timed at 1000 ns)
gen() {
  "$GEN" "$1" "$2" <<SPEC || fail "gen $1"
run 2026-11-20 px sha256=aa $3
case c=s OK $4 0.02 40 batch=${5:-4000}
SPEC
}
# row CSV: "verdict old_term/new_term old_machine/new_machine old_between"
row() {
  python3 - "$1" <<'PY'
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["params"] == "c=s"][0]
print(f'{r["verdict"]} {r["old_term"]}/{r["new_term"]} {r["old_machine"]}/{r["new_machine"]} {float(r["old_between"]):.3f}')
PY
}

# flags_are FLAG OLD NEW: the JSON in $T/out has between_run.FLAG OLD
# (true/false) on the old side and NEW on the new, both sides steady
flags_are() {
  python3 - "$T/out" "$@" <<'PY' && ok || fail "json: between_run.$1 $2/$3"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
flag, want = sys.argv[2], {"old": sys.argv[3] == "true", "new": sys.argv[4] == "true"}
for side in ("old", "new"):
    assert c[side]["between_run"][flag] is want[side], c
    assert c[side]["between_run"]["machine"] == "steady", c
PY
}

# 1. both runs steady: the 20% slowdown is SLOWER (exit 1), with the steady figure
gen "$T/s_old" 1 machine=steady 1000
gen "$T/s_new" 2 machine=steady 1200
run_bench compare "$T/s_old" "$T/s_new" --format csv
expect_rc 1 "steady pair: a regression"
expect_eq "$(row "$T/out")" "SLOWER default/default steady/steady 0.038" "steady pair, 20% slower"
run_bench compare "$T/s_old" "$T/s_new"
expect_in "$T/out" "^between-run term .*\(default: 3% \+ 5%/sqrt\(samples\) of a run's median: both runs steady;" \
  "the output names the steady figure"
run_bench compare "$T/s_old" "$T/s_new" --format json
python3 - "$T/out" <<'PY' && ok || fail "json: between_run.machine"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
assert c["old"]["between_run"]["machine"] == c["new"]["between_run"]["machine"] == "steady", c
PY
# the same 1000 on both steady sides: no change called
gen "$T/s_same" 3 machine=steady 1000
run_bench compare "$T/s_old" "$T/s_same" --format csv
expect_rc 0 "steady pair, nothing changed"
[[ "$(row "$T/out")" =~ ^(SAME|NOISY)\  ]] && ok || fail "steady pair, same level: $(row "$T/out")"

# 2. one run busy: the same 20% is NOISY, the busy side takes 10% + 20%/sqrt(n)
gen "$T/b_old" 1 machine=busy 1000
run_bench compare "$T/b_old" "$T/s_new" --format csv
expect_rc 0 "busy old run: no regression called"
expect_eq "$(row "$T/out")" "NOISY default/default busy/steady 0.132" "busy old, steady new"
run_bench compare "$T/b_old" "$T/s_new"
expect_in "$T/out" "\(default: 3% \+ 5%/sqrt\(samples\) of a run's median where its run was steady, 10% \+ 20%/sqrt\(samples\) where busy, not recorded or the case timed under 0.1s: old run busy; new run steady;" \
  "the output names both figures and which run was busy"
gen "$T/b_new" 2 machine=busy 1200
run_bench compare "$T/b_old" "$T/b_new"
expect_in "$T/out" "\(default: 10% \+ 20%/sqrt\(samples\) of a run's median: both runs busy;" "both busy"
expect_in "$T/out" 'c=s .* NOISY' "both busy: NOISY"

# 2b. steady, but the case timed for under 0.1 s (smoke's few single
#    iterations move 15-28% from run to run on a steady machine): the busy
#    figure, NOISY, and the output says why
gen "$T/q_old" 1 machine=steady 1000 2000 # 80 ms
gen "$T/q_new" 2 machine=steady 1200 4000
run_bench compare "$T/q_old" "$T/q_new" --format csv
expect_rc 0 "a briefly timed steady run: no regression called"
expect_eq "$(row "$T/out")" "NOISY default/default steady/steady 0.132" "brief old, steady new"
run_bench compare "$T/q_old" "$T/q_new"
expect_in "$T/out" "\(default: 3% \+ 5%/sqrt\(samples\) of a run's median where its run was steady, 10% \+ 20%/sqrt\(samples\) where busy, not recorded or the case timed under 0.1s: old run steady, cases timed under 0.1s; new run steady;" \
  "the output says the old case was timed too briefly"
run_bench compare "$T/q_old" "$T/q_new" --format json
flags_are brief true false

# 2c. steady, but the case's memory grew past the last-level cache (page
#    placement moves such a case 4-9% from one process to the next): the
#    busy figure, NOISY, and the output says why; inside the cache, SLOWER
genm() {
  "$GEN" "$1" "$2" <<SPEC || fail "gen $1"
run 2026-11-20 px sha256=aa machine=steady llc=33554432
case c=s OK $3 0.02 40 batch=4000 grew=$4
SPEC
}
genm "$T/m_old" 1 1000 67108864 # 64 MiB over a 32 MiB cache
genm "$T/m_new" 2 1200 67108864
run_bench compare "$T/m_old" "$T/m_new" --format csv
expect_rc 0 "a steady run of a case over the cache: no regression called"
expect_eq "$(row "$T/out")" "NOISY default/default steady/steady 0.132" "over the cache, both sides"
run_bench compare "$T/m_old" "$T/m_new"
expect_in "$T/out" "\(default: 10% \+ 20%/sqrt\(samples\) of a run's median: both runs steady, cases that outgrew the last-level cache;" \
  "the output says the cases outgrew the cache"
run_bench compare "$T/m_old" "$T/m_new" --format json
flags_are large true true
genm "$T/k_old" 1 1000 1048576 # 1 MiB: inside it
genm "$T/k_new" 2 1200 1048576
run_bench compare "$T/k_old" "$T/k_new" --format csv
expect_eq "$(row "$T/out")" "SLOWER default/default steady/steady 0.038" "inside the cache: the steady figure"
run_bench compare "$T/m_old" "$T/k_new"
expect_in "$T/out" "where busy, not recorded, the case timed under 0.1s or outgrew the last-level cache: old run steady, cases that outgrew the last-level cache; new run steady;" \
  "one side over the cache, one inside"

# 3. not recorded (a file from before, or no steal figure): the conservative figure
gen "$T/u_old" 1 "" 1000
gen "$T/n_old" 1 machine=nosteal 1000
for o in u_old n_old; do
  run_bench compare "$T/$o" "$T/s_new" --format csv
  expect_eq "$(row "$T/out")" "NOISY default/default unknown/steady 0.132" "$o against a steady run"
done

# 4. a real run records its steadiness in the header, and compare reads it
run_bench --preset smoke --plugin cpu_spin --results-dir "$T/real"
expect_rc 0 "a real run"
python3 - "$T"/real/*.json <<'PY' && ok || fail "the real run's header lacks its steadiness"
import json, math, sys
s = json.load(open(sys.argv[1]))["env"]["steadiness"]
for k in ("wall_s", "load_per_cpu_start", "load_per_cpu_end", "others_per_cpu_start", "others_per_cpu_end",
          "contention", "calibration_drift"):
    assert isinstance(s[k], float) and math.isfinite(s[k]), (k, s)
assert s["wall_s"] > 0 and 0 <= s["contention"] <= 1 and s["others_per_cpu_start"] >= 0, s
assert s["steal"] is None or 0 <= s["steal"] <= 1, s
PY
cp -r "$T/real" "$T/real_copy" # other files: a side of its own, with the default term
run_bench compare "$T/real" "$T/real_copy" --format json
# steady or busy from the header's figures; unknown exactly where the run
# was too short for /proc/stat's ticks to move (steal null), as in 3.
python3 - "$T/out" "$T"/real/*.json <<'PY' && ok || fail "compare of a real run: its machine read from the header"
import json, sys
cases = [c for c in json.load(open(sys.argv[1]))["cases"] if c["old"].get("between_run")]
steal = json.load(open(sys.argv[2]))["env"]["steadiness"]["steal"]
assert cases
for c in cases:
    want = ("unknown",) if steal is None else ("steady", "busy")
    assert c["old"]["between_run"]["machine"] in want, (steal, c)
PY
finish
