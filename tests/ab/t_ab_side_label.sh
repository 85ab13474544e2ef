#!/bin/bash
# bench ab --old-label A --new-label B (issue 39): each side's result files
# record its label (env.label), so bench compare --old-label A --new-label B
# and bench history --label A --label B pick the two builds in the ab folder,
# though both builds lie in one git work tree (the same default label).
# Without them, each side keeps a run's default: the plugin's short commit,
# else the start time. An empty label or one with control characters is a
# usage error, named by its option.
. "$(dirname "$0")/lib.sh"
expect_eq() {
  if [ "$1" = "$2" ]; then ok; else fail "${3:-value}: expected '$2', got '$1'"; fi
}
# labels DIR: "TAG:LABEL" of each result file in DIR, sorted
labels() {
  python3 - "$1"/*.json <<'PY'
import json, sys
print(" ".join(sorted("%s:%s" % (d["env"]["tag"], d["env"].get("label"))
                      for d in (json.load(open(p)) for p in sys.argv[1:]))))
PY
}

ab "$AB/base" "$AB/slow" --plugin ab_spin --fail-on none --old-label before --new-label after
expect_rc 0 "bench ab --old-label --new-label"
expect_eq "$(labels "$T/results")" "new:after old:before" "each side's env.label"
txt_new=$(grep -lE '^tag +new$' "$T"/results/*.txt | head -1)
expect_nonempty "the new side's .txt" "$txt_new"
expect_in "$txt_new" '^label +after$' "the new side's .txt names its label"

# compare and history select each side by its label; history gives each
# label of the one ab run a column of its own (the new side's figure never
# under the old side's label)
"$BENCH" compare "$T/results" --old-label before --new-label after --fail-on none --format csv >"$T/c" 2>"$T/cerr"
RC=$?
expect_rc 0 "compare --old-label before --new-label after"
got=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(len(r), r[0]["plugin"] if r else "")' "$T/c")
expect_eq "$got" "1 ab_spin" "one pair of cases compared by label"
"$BENCH" history --results-dir "$T/results" --label before --label after --format csv >"$T/h" 2>&1
expect_in "$T/h" '^plugin,params,tag,before,after,after vs before,shifts$' "history by the two labels"
got=$(python3 -c 'import csv,sys; print(" ".join(sorted("%s:%s:%s" % (r["tag"], bool(r["before"]), bool(r["after"])) for r in csv.DictReader(open(sys.argv[1])))))' "$T/h")
expect_eq "$got" "new:False:True old:True:False" "each side's figure under its own label"
"$BENCH" history --results-dir "$T/results" --label after --format csv >"$T/h" 2>&1
expect_in "$T/h" '^plugin,params,tag,after,shifts$' "history --label after: the new side alone"
expect_eq "$(grep -c '^ab_spin,' "$T/h")" 1 "history --label after: one row"

# the defaults: a run's (both builds in one work tree: one label for both)
head=$(git -C "$AB/base" rev-parse --verify -q HEAD 2>/dev/null)
"$BENCH" ab --preset "$PRESET" --results-dir "$T/r2" "$AB/base" "$AB/slow" --plugin ab_spin --fail-on none \
  >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "bench ab without labels"
got=$(labels "$T/r2")
if [ -n "$head" ]; then
  [[ "$got" =~ ^new:${head:0:10}(-dirty)?\ old:${head:0:10}(-dirty)?$ ]] && ok || fail "default labels '$got' (HEAD $head)"
else
  [[ "$got" =~ ^new:[0-9]{4}-.*Z\ old:[0-9]{4}-.*Z$ ]] && ok || fail "default labels '$got' (no git)"
fi

# bad labels: usage errors that name the option
ab "$AB/base" "$AB/slow" --plugin ab_spin --old-label ""
expect_rc 2 "an empty --old-label"
expect_in "$T/err" '--old-label needs a non-empty value'
ab "$AB/base" "$AB/slow" --plugin ab_spin --new-label $'a\tb'
expect_rc 2 "a --new-label with a tab"
expect_in "$T/err" '--new-label cannot hold control characters'
finish
