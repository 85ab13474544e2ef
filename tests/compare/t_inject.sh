# Text from result files, events files and the command line cannot drive a
# terminal, break a markdown table or a report page (issue 28, "Injection"):
# a results folder whose plugin names, parameters, tags and device names
# hold ESC, OSC (ESC]0;pwned BEL), CSI (ESC[2J), BEL, CR, C1 controls
# (U+0080..U+009F), markdown link syntax and "<!--" ... "<script" is run
# through every command and output format that prints its data; no output
# may hold a control byte other than LF and TAB, a C1 control, or a byte
# that is not UTF-8. Absurd numbers (1e308) print as an exponent.
. "$(dirname "$0")/lib.sh"

"$GEN" "$T/clean" 1 <<'SPEC' || fail gen
run 2026-11-20 px
case a=1 OK 1000 0.01 30 op=gemm flops=1e5 bytes=100
case a=2 OK 1000 0.01 30 op=gemm flops=1e5 bytes=100 batch=4
run 2026-11-20 py
case a=1 OK 2000 0.01 30 op=gemm flops=1e5 bytes=100
run 2026-11-21 px
case a=1 OK 1300 0.01 30 op=gemm flops=1e5 bytes=100
case a=2 OK 1000 0.01 30 op=gemm flops=1e5 bytes=100 batch=8
SPEC

# plant the payloads into the files gen_results wrote (JSON escapes them, as
# any writer would): plugin name, parameter names and values, tag, device
BAD=$'\e]0;pwned\a|\e[2J|\e[31m|\x07|\r|\xc2\x85|\xc2\x9b1m|[x](javascript:alert(1))|<!--|*b*_i_`c`'
export BAD
mkdir -p "$T/r"
python3 - "$T/clean" "$T/r" <<'PY' || fail "plant payloads"
import glob, json, os, sys
src, dst = sys.argv[1:3]
bad = os.environ["BAD"]
for f in sorted(glob.glob(src + "/*.json")):
    d = json.load(open(f))
    d["env"]["cpu"] = "cpu<script>alert(1)</script>" + bad
    d["env"]["tag"] = "t" + bad
    d["plugin"]["name"] += bad
    for c in d["cases"]:
        c["plugin"] += bad
        c["operation"] += bad
        c["params"]["label" + bad] = "v" + bad
        c["info"] = {"device": "dev<script>" + bad}
    json.dump(d, open(os.path.join(dst, os.path.basename(f)), "w"))
PY

# clean CHECK-NAME: the output of the last run_bench ($T/out and $T/err) holds
# no control byte but LF and TAB, no C1 control, no byte that is not UTF-8;
# bench's own verdict colours (--color always) are the one exception
clean() {
  if python3 - "$T/out" "$T/err" <<'PY'; then ok; else fail "$1: raw control text in the output"; fi
import re, sys
bad = 0
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    text = data.decode("utf-8", "surrogateescape")
    text = re.sub("\x1b\\[(0|31|32|33|35|36|1;31)m", "", text)
    for i, ch in enumerate(text):
        o = ord(ch)
        if (o < 0x20 and ch not in "\n\t") or 0x7f <= o <= 0x9f or 0xdc80 <= o <= 0xdcff:
            print("%s: U+%04X at %d: %r" % (path, o, i, text[max(0, i - 30):i + 30]))
            bad += 1
            break
sys.exit(1 if bad else 0)
PY
}
has_data() { # the output shows the planted rows (escaped), so it was not empty
  expect_in "$T/out" 'pwned' "$1: the planted text, escaped"
}

# every output of compare, history and report that prints result data
for fmt in table md csv json; do
  for colour in never always; do
    run_bench compare "$T/r/2026-11-20_px_smoke.json" "$T/r/2026-11-21_px_smoke.json" --format "$fmt" \
      --color "$colour" --fail-on none
    expect_rc 0 "compare --format $fmt --color $colour"
    clean "compare --format $fmt --color $colour"
    has_data "compare --format $fmt"
  done
  run_bench compare --by operation "$T/r" --format "$fmt"
  expect_rc 0 "compare --by operation --format $fmt"
  clean "compare --by operation --format $fmt"
  has_data "compare --by operation --format $fmt"
done
run_bench compare "$T/r" --old-date 2026-11-20 --new-date 2026-11-21 --fail-on none
clean "compare DIR --old-date --new-date"
for fmt in table md csv; do
  run_bench history --results-dir "$T/r" --format "$fmt"
  expect_rc 0 "history --format $fmt"
  clean "history --format $fmt"
  has_data "history --format $fmt"
done
# the other commands that print result or events data (escaped before this
# issue: kept in the sweep so that a new output path is checked too)
run_bench results --summary "$T/r/2026-11-20_px_smoke.json"
expect_rc 0 "results --summary"
clean "results --summary"
has_data "results --summary"
cp -r "$T/r" "$T/r2"
run_bench rollup --results-dir "$T/r2"
clean "rollup"
python3 - "$T/ev_bad.jsonl" <<'PY' || fail "plant events"
import json, os, sys
bad = os.environ["BAD"]
with open(sys.argv[1], "w") as f:
    for e in ({"event": "SUITE_START", "ts": 1, "preset": "p" + bad, "tag": "t" + bad, "total_cases": 2},
              {"event": "TEST_START", "ts": 2, "index": 0, "plugin": "px" + bad, "case": "c" + bad, "total": 2},
              {"event": "TEST_END", "ts": 3, "index": 0, "plugin": "px" + bad, "case": "c" + bad,
               "status": "OK" + bad, "wall_s": 1, "median_ms": 1}):
        f.write(json.dumps(e) + "\n")
PY
run_bench events "$T/ev_bad.jsonl"
expect_rc 0 "events"
clean "events"
has_data "events"
run_bench events "$T/ev_bad.jsonl" --summary
expect_rc 0 "events --summary"
clean "events --summary"

# the command line: a bad option value, a report written to a poisoned name
# (raw C1 bytes, not UTF-8, and an OSC)
run_bench compare "$T/r" "$T/r" --format "$BAD"
expect_rc 2 "compare: bad --format"
clean "compare: bad --format"
run_bench history --results-dir "$T/r" --metric "$BAD"
clean "history: bad --metric"
OUTNAME=$'rep\x9b\x1b]0;pwned\x07\x85.html'
run_bench report --results-dir "$T/r" -o "$T/$OUTNAME"
expect_rc 0 "report"
clean "report"
has_data "report"

# markdown: a cell ends neither its row (bare CR, LF, |) nor opens a link
run_bench compare "$T/r/2026-11-20_px_smoke.json" "$T/r/2026-11-21_px_smoke.json" --format md --fail-on none
expect_not_in "$T/out" '\]\(javascript' "markdown: no link syntax"
expect_not_in "$T/out" '[^\\][*_`]b' "markdown: no emphasis"
expect_not_in "$T/out" '[^\\]<!--' "markdown: no HTML comment"
python3 - "$T/out" <<'PY' && ok || fail "markdown: every row has the header's column count"
import re, sys
rows = [l for l in open(sys.argv[1], newline="").read().split("\n") if l.startswith("|")]
assert "\r" not in "".join(rows)
cols = [len(re.findall(r"(?<!\\)\|", r)) for r in rows]
assert len(rows) == 4 and len(set(cols)) == 1, (cols, rows)
PY
# csv: one record per case, the payload escaped the same way as on a terminal
run_bench compare "$T/r/2026-11-20_px_smoke.json" "$T/r/2026-11-21_px_smoke.json" --format csv --fail-on none
python3 - "$T/out" <<'PY' && ok || fail "csv: rows and escaped cells"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 2, rows
assert all("\\x1b]0;pwned\\x07" in r["plugin"] and "\\u0085" in r["plugin"] for r in rows), rows
PY

# the report page: the data holds no '<' (no "<!--", "<script", "</script"
# can reach the HTML parser) and decodes to the planted strings
python3 - "$T/$OUTNAME" <<'PY' && ok || fail "report: the inlined data"
import json, os, sys
html = open(sys.argv[1], encoding="utf-8").read()
start = html.index("const BENCH = ") + len("const BENCH = ")
end = html.index(";\n</script>", start)
raw = html[start:end]
assert "<" not in raw and ">" not in raw and "&" not in raw, "raw < > & in the data"
data = json.loads(raw)
assert len(data["cases"]) == 3, data["cases"]
assert any(os.environ["BAD"] in c["params"] for c in data["cases"]), data["cases"][0]
# the page's own scripts follow the data: the data's script closes where it should
assert html.count("<script") == html.count("</script>"), "script elements unbalanced"
PY
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
  # the page renders: its own script ran and filled the results table
  cp "$T/$OUTNAME" "$T/page.html"
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --virtual-time-budget=5000 --dump-dom \
    "file://$T/page.html" >"$T/dom.html" 2>"$T/chromium.err"
  python3 - "$T/dom.html" <<'PY' && ok || { fail "report: rows rendered in Chromium"; tail -5 "$T/chromium.err"; }
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
rows = [r for r in re.findall(r"<tr[^>]*>(.*?)</tr>", dom, re.S) if "pwned" in r]
assert len(rows) >= 2, len(rows)
PY
fi

# absurd numbers: 1e308 samples and wall times print as an exponent, never
# as hundreds of digits
python3 - "$T/clean" "$T/huge" <<'PY' || fail "plant 1e308"
import glob, json, os, sys
src, dst = sys.argv[1:3]
os.makedirs(dst)
for f in sorted(glob.glob(src + "/*.json")):
    d = json.load(open(f))
    if "11-21" in f:
        for c in d["cases"]:
            c["samples"]["host_ns"] = [1e308] * len(c["samples"]["host_ns"])
            c["wall_s"] = 1e308
    json.dump(d, open(os.path.join(dst, os.path.basename(f)), "w"))
PY
long_number() { # CHECK-NAME: no run of 20 digits in the output
  expect_not_in "$T/out" '[0-9]{20}' "$1: a number of 20 digits or more"
}
for fmt in table md csv; do
  run_bench compare "$T/huge/2026-11-20_px_smoke.json" "$T/huge/2026-11-21_px_smoke.json" --format "$fmt" --fail-on none
  [ "$fmt" = csv ] || long_number "compare 1e308 --format $fmt"
  run_bench history --results-dir "$T/huge" --format "$fmt"
  long_number "history 1e308 --format $fmt"
done
run_bench compare --by operation "$T/huge"
long_number "compare --by operation 1e308"

cat >"$T/events.jsonl" <<'EV'
{"event":"SUITE_START","ts":1,"preset":"huge","total_cases":1000000}
{"event":"TEST_START","ts":2,"index":0,"plugin":"px","case":"a=1","total":1000000}
{"event":"TEST_END","ts":1e300,"index":0,"plugin":"px","case":"a=1","status":"OK","wall_s":1e308,"median_ms":1e308,"gflops":1e308}
{"event":"SUITE_END","ts":1e308,"wall_s":1e308,"total":1000000}
EV
run_bench events "$T/events.jsonl"
expect_rc 0 "events"
long_number "events: the done line"
expect_in "$T/out" '^done: 1 of 1000000 cases in 1\.000e\+308 s' "events: the done line"
head -3 "$T/events.jsonl" >"$T/events2.jsonl"
echo '{"event":"HEARTBEAT","ts":1e308,"suite_percent":1e308,"suite_eta_s":1e308}' >>"$T/events2.jsonl"
run_bench events "$T/events2.jsonl"
long_number "events: the progress line"
run_bench events "$T/events2.jsonl" --summary
expect_rc 0 "events --summary"
long_number "events --summary"
expect_in "$T/out" '^done=1$' "events --summary counts"
finish
