#!/bin/bash
# One verdict engine: on the same two recorded result files, the run's
# --baseline (its code path on a finished file: baseline_of), bench compare,
# bench history over a folder of both and the report's comparison give each
# case the same verdict and interval: the between-run term, the steadiness
# of each run's header and the settled rule are the same everywhere. A
# steady pair (the 20% slowdown is SLOWER) and a busy, unsettled one (the
# same slowdown, measured while the machine was busy and the run did not
# settle: NOISY everywhere, where --baseline once said SLOWER from the
# samples alone).
. "$(dirname "$0")/lib.sh"

# gen DIR DATE MACHINE A_NS B_NS [KEYS]: one run of px, case a and case b
# (40 samples +-2% of 4000 iterations: 0.16 s timed at 1000 ns)
gen() {
  "$GEN" "$1" 1 <<SPEC || fail "gen $1"
run $2 px sha256=aa machine=$3
case c=a OK $4 0.02 40 batch=4000 ${6:-}
case c=b OK $5 0.02 40 batch=4000 ${6:-}
SPEC
}
gen "$T/old" 2026-11-20 steady 1000 1000
gen "$T/steady" 2026-11-21 steady 1200 1030
gen "$T/busy" 2026-11-21 busy 1200 1030 settled=0

# verdicts OLD NEW: "PARAMS VERDICT RATIO LO HI" per case, by each of the four
verdicts() {
  local old=$1 new=$2 h="$T/h_$(basename "$2")"
  mkdir -p "$h" && cp "$old"/*.json "$new"/*.json "$h"/ || fail "folder of both"
  "$BENCH" compare "$old" "$new" --format csv >"$T/compare.csv" 2>"$T/err"
  "$BASELINE_OF" "$old" "$new"/*.json >"$T/baseline.txt" 2>>"$T/err" || fail "baseline_of: $(cat "$T/err")"
  "$BENCH" history --results-dir "$h" --format csv >"$T/history.csv" 2>>"$T/err" || fail "history: $(cat "$T/err")"
  "$BENCH" report --results-dir "$h" -o "$T/report.html" >/dev/null 2>>"$T/err" || fail "report: $(cat "$T/err")"
  python3 - "$T" <<'PY'
import csv, json, re, sys
t = sys.argv[1]
def f(x): return "%.3f" % float(x)
out = {}
for r in csv.DictReader(open(t + "/compare.csv", newline="")):
    out.setdefault(r["params"], {})["compare"] = (r["verdict"], f(r["ratio"]), f(r["ci_lo"]), f(r["ci_hi"]))
for line in open(t + "/baseline.txt"):
    name, text = line.rstrip("\n").split("\t")
    m = re.match(r"ratio ([0-9.]+) \[([0-9.]+), ([0-9.]+)\] ([A-Z_]+) vs ", text)
    assert m, text
    out.setdefault(name.split(" ", 1)[1], {})["baseline"] = (m.group(4), m.group(1), m.group(2), m.group(3))
html = open(t + "/report.html").read()
start = html.index("const BENCH = ") + len("const BENCH = ")
data = json.loads(html[start:html.index(";\n</script>", start)])
for r in data["compare"]["rows"]:
    out.setdefault(r["params"], {})["report"] = (r["verdict"], f(r["ratio"]), f(r["lo"]), f(r["hi"]))
# history names a level shift (FASTER or SLOWER, with its ratio) and nothing else
for r in csv.DictReader(open(t + "/history.csv", newline="")):
    out.setdefault(r["params"], {})["history"] = r["shifts"]
for params in sorted(out):
    s = out[params]
    c = s.get("compare")
    shift = "2026-11-21 %s x%s" % (c[0], c[1]) if c and c[0] in ("FASTER", "SLOWER") else ""
    same = c is not None and s.get("baseline") == c and s.get("report") == c and s.get("history") == shift
    print(params, " ".join(c) if c else "-", "agree" if same else "DISAGREE %s" % s)
PY
}
verdicts "$T/old" "$T/steady" >"$T/steady.txt"
expect_in "$T/steady.txt" '^c=a SLOWER 1\.[0-9]+ 1\.[0-9]+ 1\.[0-9]+ agree$' "steady pair, 20% slower: SLOWER everywhere"
expect_in "$T/steady.txt" '^c=b (SAME|NOISY) .* agree$' "steady pair, 3% slower: the same verdict everywhere"
# a case whose line was judged while the machine was busy is settled by its
# file's header at the end: the steady run's SLOWER, the line's NOISY kept
# as what it said
"$BASELINE_OF" --line-busy "$T/old" "$T/steady"/*.json >"$T/settled.txt" 2>"$T/err" || fail "baseline_of --line-busy"
expect_in "$T/settled.txt" $'^px c=a\tratio [0-9.]+ \\[[0-9.]+, [0-9.]+\\] SLOWER vs 2026-11-20\twas ratio [0-9.]+ \\[[0-9.]+, [0-9.]+\\] NOISY vs 2026-11-20$' \
  "the file's end settles a line judged busy"
grep -F "$(grep '^px c=a' "$T/baseline.txt" | cut -f2)" "$T/settled.txt" >/dev/null && ok || fail "settled as on the steady file"
verdicts "$T/old" "$T/busy" >"$T/busy.txt"
expect_in "$T/busy.txt" '^c=a NOISY 1\.[0-9]+ [0-9.]+ [0-9.]+ agree$' "busy, unsettled pair, 20% slower: NOISY everywhere"
expect_in "$T/busy.txt" '^c=b (SAME|NOISY) .* agree$' "busy pair, 3% slower: the same verdict everywhere"
expect_not_in "$T/busy.txt" 'SLOWER' "no SLOWER from a busy run that did not settle"
finish
