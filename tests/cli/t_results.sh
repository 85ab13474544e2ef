#!/usr/bin/env bash
# What scripts ask bench instead of decoding its files: `bench --list
# --format tsv` (plugin names, backend, operation, parameter names),
# `bench results --name` (the name a run's result file gets), `bench results
# --summary` (a result file's counts and completeness) and `bench events
# --summary` (a run log's counts, whether it ended, its ETA).
# shellcheck disable=SC2015 # `test && ok || fail` (ok never fails)
. "$(dirname "$0")/lib.sh"
FAST=$SRC/tests/cli/presets/fast.ini
TAB=$'\t'

# --- bench --list --format tsv ---------------------------------------------
run_bench --list --format tsv --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_skip
expect_rc 0 "--list --format tsv"
expect_eq "$(cat "$T/out")" "fx_ok${TAB}cpu${TAB}gemm${TAB}n"$'\n'"fx_skip${TAB}cpu${TAB}gemm${TAB}n" "tsv lines"
expect_eq "$(wc -c <"$T/err")" 0 "nothing on stderr"
run_bench list --format=tsv --plugin cpu_gemm
expect_rc 0 "bench list --format=tsv"
IFS=$TAB read -r name backend op params <"$T/out"
expect_eq "$name $backend $op" "cpu_gemm cpu gemm" "cpu_gemm's line"
[[ ,$params, == *,m,* && ,$params, == *,n,* && ,$params, == *,k,* ]] && ok || fail "cpu_gemm's parameters: '$params'"
# The same plugins as the text listing, in the same order.
"$BENCH" --list --plugin-dir "$FX_GOOD" | awk 'NF { print $1 }' >"$T/text_names"
"$BENCH" --list --format tsv --plugin-dir "$FX_GOOD" | cut -f1 >"$T/tsv_names"
mapfile -t names <"$T/tsv_names"
expect_nonempty "plugin names in the tsv listing" "${names[@]}"
cmp -s "$T/text_names" "$T/tsv_names" && ok || fail "tsv names differ from --list: $(diff "$T/text_names" "$T/tsv_names" | head -5)"
# Text a plugin wrote is escaped: one line per plugin, always 4 fields.
run_bench --list --format tsv --plugin-dir "$FX_GOOD" --plugin fx_esc
expect_rc 0 "tsv of fx_esc"
expect_eq "$(awk -F'\t' 'NF != 4' "$T/out" | wc -l)" 0 "4 fields a line"
run_bench --list --format xml
expect_rc 2 "--format xml"; expect_in "$T/err" "--format must be text or tsv"
run_bench --list --format tsv --verbose
expect_rc 2 "--format tsv --verbose"
run_bench --format tsv --preset smoke --plugin cpu_gemm --results-dir "$T/nothing"
expect_rc 2 "--format without --list"; expect_in "$T/err" "--format is an option of --list"
[ ! -e "$T/nothing" ] && ok || fail "--format without --list ran something"

# --- bench results --name ----------------------------------------------------
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_skip,fx_wrong --tag 'node 1/a' \
  --results-dir "$T/r" --events "$T/ev"
expect_rc 1 "a run with a wrong answer"
for p in fx_ok fx_skip fx_wrong; do
  run_bench results --name --plugin "$p" --preset "$FAST" --tag 'node 1/a'
  expect_rc 0 "--name of $p"
  [ -f "$T/r/$(cat "$T/out").json" ] && ok || fail "--name of $p: no $(cat "$T/out").json in $(ls "$T/r")"
done
run_bench results --name --plugin fx_ok --preset smoke
expect_eq "$(cat "$T/out")" "${TODAY}_fx_ok_smoke" "shipped preset, no tag"
run_bench results --name --plugin 'a/b c' --preset dir/x.ini --tag '' --date 2026-01-02
expect_eq "$(cat "$T/out")" "2026-01-02_a-b-c_x" "unsafe characters, empty tag"
run_bench results --name --plugin p --preset q --date .d
expect_eq "$(cat "$T/out")" "-d_p_q" "never a hidden file"
run_bench results --name --plugin fx_ok
expect_rc 2 "--name without --preset"; expect_in "$T/err" "--name needs --plugin and --preset"
run_bench results --name --summary "$T/r"
expect_rc 2 "--name and --summary"
run_bench results
expect_rc 2 "neither"

# --- bench results --summary -------------------------------------------------
base=$T/r/$("$BENCH" results --name --plugin fx_wrong --preset "$FAST" --tag 'node 1/a')
run_bench results --summary "$base.json"
expect_rc 0 "--summary of a file"
expect_eq "$(cat "$T/out")" "file=$base.json
plugin=fx_wrong
preset=fast
tag=node 1/a
date=$TODAY
cases=1
ok=0
skipped=0
failed=1
complete=yes" "summary of fx_wrong"
run_bench results --summary "$T/r"
expect_rc 0 "--summary of a folder"
expect_eq "$(grep -c '^file=' "$T/out")" 3 "three records"
expect_eq "$(sed -n 's/^plugin=//p' "$T/out" | sort | paste -sd' ')" "fx_ok fx_skip fx_wrong" "the plugins"
expect_eq "$(sed -n 's/^skipped=//p' "$T/out" | paste -sd' ')" "$(for p in fx_ok fx_skip fx_wrong; do
  [ $p = fx_skip ] && echo 1 || echo 0; done | paste -sd' ')" "skipped counts in name order"
# The same records through the other renderers (one table behind them all).
run_bench results --summary --format json "$T/r"
expect_rc 0 "--summary --format json"
python3 - "$T/out" <<'PY' && ok || fail "--summary --format json: $(head -c 400 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "bench-results-summary/1", d
files = d["files"]
assert sorted(f["plugin"] for f in files) == ["fx_ok", "fx_skip", "fx_wrong"], files
w = [f for f in files if f["plugin"] == "fx_wrong"][0]
assert w["cases"] == 1 and w["failed"] == 1 and w["ok"] == 0 and w["complete"] is True, w
assert w["tag"] == "node 1/a" and w["preset"] == "fast", w
PY
run_bench results --summary --format csv "$T/r"
expect_rc 0 "--summary --format csv"
expect_eq "$(head -1 "$T/out")" "file,plugin,preset,tag,date,cases,ok,skipped,failed,complete" "csv header"
expect_eq "$(grep -c ',fx_' "$T/out")" 3 "csv: three records"
run_bench results --summary --format table "$base.json"
expect_rc 0 "--summary --format table"
expect_in "$T/out" '^file +plugin +preset +tag +date +cases +ok +skipped +failed +complete'
expect_in "$T/out" ' fx_wrong +fast +node 1/a +'"$TODAY"' +1 +0 +0 +1 +yes'
run_bench results --summary --format yaml "$T/r"
expect_rc 2 "--summary --format yaml"
run_bench results --name --plugin fx_ok --preset "$FAST" --format json
expect_rc 2 "--format without --summary"
# A run that has not finished writing (a journal beside the file), and one
# with an interrupted case, are not complete.
okb=$T/r/$("$BENCH" results --name --plugin fx_ok --preset "$FAST" --tag 'node 1/a')
mkdir "$T/c"
cp "$okb.json" "$T/c/j.json"
: >"$T/c/j.journal"
python3 - "$okb.json" "$T/c/i.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cases"][0]["status"] = "INTERRUPTED"
json.dump(d, open(sys.argv[2], "w"))
PY
run_bench results --summary "$T/c/j.json" "$T/c/i.json" "$okb.json"
expect_rc 0 "--summary of three files"
expect_eq "$(sed -n 's/^complete=//p' "$T/out" | paste -sd' ')" "no no yes" "complete"
expect_eq "$(sed -n 's/^failed=//p' "$T/out" | paste -sd' ')" "0 1 0" "failed"
echo '{"schema":' >"$T/c/bad.json"
run_bench results --summary "$T/c/bad.json"
expect_rc 2 "an unreadable result file"; expect_in "$T/err" "bad\.json"
run_bench results --summary
expect_rc 2 "--summary without a path"

# --- bench events --summary ----------------------------------------------------
run_bench events --summary "$T/ev"
expect_rc 0 "events --summary"
expect_eq "$(cat "$T/out")" "suites=1
cases=3
done=3
ok=1
skipped=1
failed=1
ended=yes
interrupted=no
eta=-" "summary of an ended run"
# A log (case lines and PROGRESS between the events) cut after the first
# case: not ended, one done, an ETA.
{
  echo "build output"
  sed -n '/"SUITE_START"/p' "$T/ev"
  grep -m 1 '"TEST_END"' "$T/ev"
  echo "PROGRESS: [####................]  33% (1/3) fx_skip n=8 ETA 1s"
} >"$T/cut.log"
run_bench events "$T/cut.log" --summary
expect_rc 0 "events --summary of a cut log"
expect_in "$T/out" '^done=1$' "one case done"
expect_in "$T/out" '^cases=3$' "three cases planned"
expect_in "$T/out" '^ended=no$' "not ended"
expect_in "$T/out" '^eta=[0-9]+(s|m)' "an ETA"
: >"$T/empty.log"
run_bench events --summary "$T/empty.log"
expect_in "$T/out" '^suites=0$' "no suite"
expect_in "$T/out" '^ended=no$' "an empty log has not ended"
run_bench events --summary --follow "$T/ev"
expect_rc 2 "--summary --follow"
finish
