# A result file larger than the whole-load limit is streamed case by case,
# not skipped: rollup, compare, history and report read it and give what
# they give for the same file loaded whole. BENCH_RESULT_LOAD_CAP lowers
# the limit so the files here are a few MB, not 300 MB. Broken large files
# are refused with one line naming them.
. "$(dirname "$0")/lib.sh"
{
  echo "run 2026-11-18 px"
  for i in $(seq 1 800); do echo "case m=$i,v=a OK 1000 0.02 40 device=1"; done
} >"$T/spec"
"$GEN" "$T/r" 1 <"$T/spec" || fail gen
{ sed 's/2026-11-18/2026-11-19/' "$T/spec"; } | "$GEN" "$T/r" 2 || fail gen
# strings the scanner must step over: brackets, braces, commas, quotes and
# escapes in keys and values, and "cases" as a value and a nested key
python3 - "$T/r" <<'PY' || fail "plant strings"
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*.json"):
    f = json.load(open(p))
    f["env"]["tag"] = None
    for i, c in enumerate(f["cases"]):
        if i % 7 == 0:
            c["params"]["v"] = '"]},{"cases": [\\'
            c["info"]["cases"] = "]]]}}}"
            c["message"] = "x\\\"]\u00e9"
    json.dump(f, open(p, "w"), indent=1, ensure_ascii=False)
PY
SIZE=$(stat -c %s "$(ls "$T/r/"*.json | head -1)")
[ "$SIZE" -gt 2000000 ] && ok || fail "test file is $SIZE bytes, expected > 2 MB"
export BENCH_RESULT_LOAD_CAP=500000

# rollup: every case of both files, the same CSV as a whole load
run_bench rollup --results-dir "$T/r"
expect_rc 0 "rollup of files above the limit"
expect_not_in "$T/err" 'skipping|larger than' "no file skipped"
expect_eq "$(($(wc -l <"$T/r/rollup.csv") - 1))" 1600 "rollup rows"
cp "$T/r/rollup.csv" "$T/streamed.csv"
BENCH_RESULT_LOAD_CAP= "$BENCH" rollup --results-dir "$T/r" 2>"$T/err" || fail "rollup, whole load"
cmp -s "$T/streamed.csv" "$T/r/rollup.csv" && ok || fail "streamed rollup differs from the whole load"

# compare, history, report: as for the whole load
for cmd in "compare $T/r/2026-11-18_px_smoke.json $T/r/2026-11-19_px_smoke.json --format csv" \
           "history --results-dir $T/r --format csv" "report --results-dir $T/r -o $T/rep.html"; do
  # shellcheck disable=SC2086
  run_bench $cmd
  expect_rc 0 "$cmd"
  expect_not_in "$T/err" 'skipping|larger than|cannot' "$cmd: nothing skipped"
  cp "$T/out" "$T/streamed.out"
  [ -f "$T/rep.html" ] && mv "$T/rep.html" "$T/streamed.html"
  # shellcheck disable=SC2086
  BENCH_RESULT_LOAD_CAP= "$BENCH" $cmd >"$T/out" 2>"$T/err" || fail "$cmd, whole load"
  cmp -s "$T/streamed.out" "$T/out" && ok || fail "$cmd: streamed output differs from the whole load"
  if [ -f "$T/rep.html" ]; then
    sed 's/"generated":"[^"]*"//' "$T/rep.html" >"$T/a.html"; sed 's/"generated":"[^"]*"//' "$T/streamed.html" >"$T/b.html"
    cmp -s "$T/a.html" "$T/b.html" && ok || fail "report: streamed differs from the whole load"
  fi
done
run_bench compare "$T/r/2026-11-18_px_smoke.json" "$T/r/2026-11-19_px_smoke.json" --format csv
expect_eq "$(($(wc -l <"$T/out") - 1))" 800 "compare rows"

# broken large files: one line naming the file, the others still read
B="$T/bad"
mkdir -p "$B"
cp "$T/r/2026-11-18_px_smoke.json" "$B/a_good.json"
head -c 1800000 "$T/r/2026-11-18_px_smoke.json" >"$B/b_cut.json"
python3 - "$T/r/2026-11-18_px_smoke.json" "$B" <<'PY' || fail "plant broken files"
import sys
src, d = sys.argv[1:3]
t = open(src, "rb").read()
open(d + "/c_nul.json", "wb").write(t[:1500000] + b"\0" + t[1500001:])
i = t.index(b'"cases"')
open(d + "/d_schema.json", "wb").write(t.replace(b"bench-result/1", b"bench-result/9", 1))
j = t.index(b"\n  },", i + 300000) + 4   # an element's end: an empty element after it
open(d + "/e_empty.json", "wb").write(t[:j] + b" ," + t[j:])
k = t.rindex(b"]")               # a trailing comma before the array's end
m = t.rindex(b"}", 0, k)
open(d + "/f_trailing.json", "wb").write(t[:m + 1] + b"," + t[m + 1:])
big = t[:i] + b'"cases": [{"x": "' + b"y" * 600000 + b'"}]}\n'
open(d + "/g_element.json", "wb").write(big)
PY
run_bench rollup --results-dir "$B"
expect_rc 0 "rollup of a folder with broken large files"
expect_eq "$(($(wc -l <"$B/rollup.csv") - 1))" 800 "the good file's rows"
expect_in "$T/err" 'skipping .*b_cut.json: invalid json: the file ends inside its cases array' "cut file"
expect_in "$T/err" 'skipping .*c_nul.json: holds a nul byte at offset 1500000' "nul byte"
expect_in "$T/err" 'skipping .*d_schema.json: unsupported schema' "schema checked first"
expect_in "$T/err" 'skipping .*e_empty.json: invalid json: an empty element' "empty element"
expect_in "$T/err" 'skipping .*f_trailing.json: invalid json: an empty element' "trailing comma"
expect_in "$T/err" 'skipping .*g_element.json: cases\[0\]: larger than 500000 bytes' "element above the limit"
expect_eq "$(grep -c skipping "$T/err")" 6 "one line per broken file"

# and a file above the default limit (256 MiB), as a long sweep writes:
# streamed, every case in the rollup (bench used to skip it: "larger than
# 268435456 bytes", and left rollup.csv with its header only)
unset BENCH_RESULT_LOAD_CAP
printf 'run 2026-11-20 px\ncase m=0 OK 1000 0.02 40 device=1\n' | "$GEN" "$T/huge" 1 || fail gen
N=$(python3 "$SRC/tests/compare/big_result.py" "$T/huge" 270000000) || fail "big file"
SIZE=$(stat -c %s "$T/huge/2026-11-20_px_smoke.json")
[ "$SIZE" -gt 268435456 ] && ok || fail "the big file is $SIZE bytes"
run_bench rollup --results-dir "$T/huge"
expect_rc 0 "rollup of a $SIZE-byte file"
expect_not_in "$T/err" 'skipping|larger than' "the big file is not skipped"
expect_eq "$(($(wc -l <"$T/huge/rollup.csv") - 1))" "$N" "every case of the big file in the rollup"
rm -f "$T/huge/"*.json
finish
