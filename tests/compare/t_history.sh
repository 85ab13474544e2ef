# bench history: one row per case, one column per date (the newest run of
# the day), level shifts flagged where a run compares FASTER or SLOWER than
# the run before it, and nowhere else. Each run is judged as bench compare
# judges two single runs: its case's earlier runs give the between-run
# spread (two dates of them here), without them a 1.5x step would be
# within the default run-to-run noise.
. "$(dirname "$0")/lib.sh"
"$GEN" "$T/r" 1 <<'SPEC' || fail gen
run 2026-11-16 px
case c=flat  OK 1000 0.02 40 flops=2000
case c=step  OK 1000 0.02 40
run 2026-11-17 px
case c=flat  OK 1000 0.02 40 flops=2000
case c=step  OK 1000 0.02 40
run 2026-11-18 px
case c=flat  OK 1000 0.02 40 flops=2000
case c=step  OK 1000 0.02 40
case c=bad   OK 1000 0.02 40
run 2026-11-19 px
case c=flat  OK 1000 0.02 40 flops=2000
case c=step  OK 1000 0.02 40
case c=bad   CRASH 0 0 0
run 2026-11-20 px
case c=flat  OK 1000 0.02 40 flops=2000
case c=step  OK 1500 0.02 40
case c=bad   OK 1000 0.02 40
case c=late  OK 1000 0.02 40
run 2026-11-20 px
case c=flat  OK 1000 0.02 40 flops=2000
case c=step  OK 1500 0.02 40
case c=bad   OK 1000 0.02 40
case c=late  OK 1000 0.02 40
SPEC
run_bench history --results-dir "$T/r"
expect_rc 0 "history"
expect_in "$T/out" '^plugin +params +2026-11-16 +2026-11-17 +2026-11-18 +2026-11-19 +2026-11-20 +shifts$' "one column per date"
expect_in "$T/out" '^px +c=flat( +[0-9.]+ [nu]s){5}$' "a flat case has no shift"
expect_in "$T/out" '^px +c=step +.* 1\.[45][0-9]* us \* +2026-11-20 SLOWER x1\.[45][0-9]*$' "the step is flagged on its date"
expect_in "$T/out" '^px +c=bad +[0-9.]+ [nu]s +CRASH +[0-9.]+ [nu]s$' "a failed run shows its status, no shift across it"
expect_in "$T/out" '^px +c=late +[0-9.]+ [nu]s$' "a case that started later"
expect_in "$T/out" '4 cases over 5 dates; median time per iteration; 1 level shift \(' "summary"
run_bench history --results-dir "$T/r" --metric gflops --format csv
expect_in "$T/out" '^px,c=flat(,[12]\.[0-9]*){5},$' "GFLOP/s = flops / ns"
run_bench history --results-dir "$T/r" --date 2026-11-2
expect_in "$T/out" '^plugin +params +2026-11-20 +shifts$' "--date prefix selects runs"
run_bench history --results-dir "$T/r" --plugin nosuch
expect_rc 2 "nothing selected"
run_bench history --results-dir "$T/nonexistent"
expect_rc 2 "missing folder"
run_bench history --results-dir "$T/r" --metric speed
expect_rc 2 "bad metric"
finish
