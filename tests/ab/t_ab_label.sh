#!/bin/bash
# Runs by build, not by date: each run records its label (--label, else
# the plugin's short git commit, else its start time) and the plugin's git
# commit where bench can tell. Two builds run the same day, old/new/old/new
# in one folder, are four columns of bench history headed by their labels,
# and `--label old --label new` adds bench compare's verdict of the two
# labels' pooled runs; bench compare --old-label/--new-label picks each
# side in one folder. A plugin outside any git work tree records no commit
# and its run still works. bench report names history points by label and,
# with --label old --label new, compares the two labels. An ab folder's
# report shows bench ab's verdict and paired interval per case, one row
# per pair, no cv of its rounds.
. "$(dirname "$0")/lib.sh"
expect_eq() {
  if [ "$1" = "$2" ]; then ok; else fail "${3:-value}: expected '$2', got '$1'"; fi
}

R=$T/r
run() { # run BUILD LABEL: bench run of ab_spin from that build into $R
  "$BENCH" run --preset "$PRESET" --plugin-dir "$AB/$1" --plugin ab_spin --results-dir "$R" \
    ${2:+--label "$2"} >"$T/out" 2>"$T/err"
  RC=$?
}
for side in base:old slow:new base:old slow:new; do
  run "${side%%:*}" "${side##*:}"
  expect_rc 0 "bench run --label ${side##*:}"
done

# the header: label, run id and the plugin's commit (the builds lie in this work tree)
head=$(git -C "$AB/base" rev-parse --verify -q HEAD 2>/dev/null)
files=("$R"/*.json)
expect_nonempty "result files" "${files[@]}"
labels=$(python3 - "${files[@]}" <<'PY'
import json, sys
for p in sorted(sys.argv[1:], key=lambda p: json.load(open(p))["env"]["started"]):
    d = json.load(open(p))
    print(d["env"].get("label"), d["env"].get("run_id"), d["plugin"].get("git_commit"), d["plugin"].get("git_dirty"))
PY
)
expect_eq "$(echo "$labels" | cut -d' ' -f1 | tr '\n' ' ')" "old new old new " "env.label of the four runs"
expect_eq "$(echo "$labels" | cut -d' ' -f2 | sort -u | wc -l)" 4 "four distinct run ids"
if [ -n "$head" ]; then
  expect_eq "$(echo "$labels" | cut -d' ' -f3 | sort -u)" "$head" "plugin.git_commit is the work tree's HEAD"
  txt=$(ls "$R"/*.txt | head -1)
  expect_in "$txt" "^plugin commit +$head" "the .txt names the commit"
else
  fail "the test's builds are not in a git work tree (cannot check the commit)"
fi
expect_in "$(ls "$R"/*.txt | head -1)" '^label +(old|new)$' "the .txt names the label"

# the rollup: one row per build of the day (label is part of its key), label and commit last
got=$(python3 - "$R/rollup.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(" ".join(sorted(r["label"] + ":" + str(len(r["commit"]) >= 40) for r in rows)))
PY
)
expect_eq "$got" "new:True old:True" "rollup: a row per label, with the commit"

# history: one column per run, headed by its label; the labels' verdict
"$BENCH" history --results-dir "$R" >"$T/h" 2>&1
expect_in "$T/h" '^plugin +params +old #1 +new #1 +old #2 +new #2 +shifts$' "four runs of one day: four columns, by time"
expect_in "$T/h" 'over 4 runs' "the note counts runs"
"$BENCH" history --results-dir "$R" --label old --label new --format csv >"$T/h" 2>&1
expect_in "$T/h" '^plugin,params,old #1,old #2,new #1,new #2,new vs old,shifts$' "--label old --label new: by label, then time"
cell=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(r[0]["new vs old"] if r else "")' "$T/h")
# 30% more work: a ratio above 1.1 (load can stretch it), SLOWER or NOISY
[[ "$cell" =~ ^x([0-9.]+)\ (SLOWER|NOISY)$ ]] && python3 -c "import sys; sys.exit(not float('${BASH_REMATCH[1]}') > 1.1)" &&
  ok || fail "new vs old: 30% more work, got '$cell'"
"$BENCH" history --results-dir "$R" --label new >"$T/h" 2>&1
expect_in "$T/h" '^plugin +params +new #1 +new #2 +shifts$' "--label new alone"

# report: history points named by label; --label old --label new compares the two labels
echo '/* a stand-in for Chart.js */' >"$T/chart.js"
page_data() { # page_data HTML EXPR: python over d, the page's data
  python3 - "$1" "$2" <<'PY'
import json, re, sys
d = json.loads(re.search(r"const BENCH = (\{.*?\});\n", open(sys.argv[1]).read(), re.S).group(1))
print(eval(sys.argv[2]))
PY
}
"$BENCH" report --results-dir "$R" -o "$T/l.html" --chartjs "$T/chart.js" --label old --label new >"$T/out" 2>&1
RC=$?
expect_rc 0 "report --label old --label new"
expect_in "$T/out" '1 case, 4 runs' "the report counts runs"
expect_eq "$(page_data "$T/l.html" 'd["history"]["columns"]')" "['old #1', 'old #2', 'new #1', 'new #2']" "history columns by label"
expect_eq "$(page_data "$T/l.html" '[(r["old_label"], r["new_label"], r["ratio"] > 1.1) for r in d["compare"]["rows"]]')" \
  "[('old', 'new', True)]" "the compare chart: label new against label old"

# compare: one folder, each side by label
"$BENCH" compare "$R" --old-label old --new-label new --fail-on none --format csv >"$T/c" 2>"$T/cerr"
RC=$?
expect_rc 0 "compare --old-label --new-label"
v=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(r[0]["verdict"] if r else "")' "$T/c")
[[ "$v" =~ ^(SLOWER|NOISY)$ ]] && ok || { fail "compare by label: verdict '$v'"; cat "$T/c" "$T/cerr"; }
"$BENCH" compare "$R" --old-label old --new-label nosuch >"$T/c" 2>&1
RC=$?
expect_rc 2 "a label no run has"

# default label: the short commit (git tree) ...
run base ""
expect_rc 0 "bench run without --label"
newest=$(ls -t "$R"/*.json | head -1)
lab=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["env"]["label"])' "$newest")
[ -n "$head" ] && [[ "$lab" == "${head:0:10}" || "$lab" == "${head:0:10}-dirty" ]] && ok || fail "default label '$lab' (HEAD $head)"
# ... and outside any git work tree (none above $T for git): no commit, the start
# time, the run works
mkdir -p "$T/nogit"
cp "$AB/base/ab_spin.so" "$T/nogit/"
GIT_CEILING_DIRECTORIES=$T "$BENCH" run --preset "$PRESET" --plugin-dir "$T/nogit" --plugin ab_spin --results-dir "$T/r2" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "a plugin outside any git tree"
f=$(ls "$T"/r2/*.json | head -1)
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("git_commit" in d["plugin"], d["env"]["label"])' "$f")
[[ "$got" =~ ^False\ [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}(\.[0-9]+)?Z$ ]] && ok || fail "outside git: '$got'"
expect_not_in "$(ls "$T"/r2/*.txt | head -1)" '^plugin commit' "no commit in the .txt"
# a second run of that unnamed build: its start-time label tells runs apart,
# not builds, so the rollup keeps one row per case (the newer)
GIT_CEILING_DIRECTORIES=$T "$BENCH" run --preset "$PRESET" --plugin-dir "$T/nogit" --plugin ab_spin --results-dir "$T/r2" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "a second run outside any git tree"
nj=$(ls "$T"/r2/*.json | wc -l)
rows=$(python3 -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1], newline="")))))' "$T/r2/rollup.csv")
ncase=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$f")
[ "$nj" -ge 2 ] && [ "$ncase" -ge 1 ] && [ "$rows" = "$ncase" ] && ok ||
  fail "two unnamed runs: $nj result files, $rows rollup rows for $ncase cases"

# a git that hangs is given up on (bounded wait): no commit, the run goes on
mkdir -p "$T/fakegit"
printf '#!/bin/sh\nexec sleep 60\n' >"$T/fakegit/git"
chmod +x "$T/fakegit/git"
t0=$(date +%s)
PATH="$T/fakegit:$PATH" "$BENCH" run --preset "$PRESET" --plugin-dir "$AB/base" --plugin ab_spin --results-dir "$T/r3" \
  >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "a hanging git"
[ $(($(date +%s) - t0)) -lt 40 ] && ok || fail "a hanging git held the run for $(($(date +%s) - t0)) s"
f=$(ls "$T"/r3/*.json | head -1)
got=$(python3 -c 'import json,sys; print("git_commit" in json.load(open(sys.argv[1]))["plugin"])' "$f")
expect_eq "$got" False "no commit from a hanging git"

# an ab folder's report: bench ab's verdict and paired interval per case
ab "$AB/base" "$AB/slow" --plugin ab_spin --fail-on none
expect_rc 0 "bench ab"
"$BENCH" report --results-dir "$T/results" -o "$T/ab.html" --chartjs "$T/chart.js" >"$T/out" 2>&1
RC=$?
expect_rc 0 "report of an ab folder"
got=$(python3 - "$T/ab.html" <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
data = json.loads(re.search(r"const BENCH = (\{.*?\});\n", page, re.S).group(1))
rows = [c for c in data["cases"] if c["plugin"] == "ab_spin"]
ab = [c["ab"] for c in rows if c["ab"]]
cmp = [r for r in data["compare"]["rows"] if r.get("group") == "ab_spin · bench ab"]
ok = (len(rows) == 1 and len(ab) == 1 and rows[0]["cv"] is None and ab[0]["lo"] <= ab[0]["ratio"] <= ab[0]["hi"]
      and len(cmp) == 1 and cmp[0]["verdict"] == ab[0]["verdict"])
print("ok" if ok else json.dumps({"rows": rows, "cmp": data["compare"]["rows"]})[:1500])
PY
)
expect_eq "$got" ok "one row with bench ab's verdict and interval, and its compare row"
finish
