#!/usr/bin/env bash
# Plugins built against other versions of <bench/plugin.h> (issue 21,
# "growable plugin-to-host structs"): one plugin (tests/fixtures/fx_abi.c)
# built against frozen copies of the 1.0 and 1.1 headers and a made-up 1.5
# whose bench_param, bench_check, bench_compare and bench_plugin carry
# fields this harness does not know. Each must load, list its parameters
# exactly as declared, run, and be checked through host->check and (1.1 on)
# bench.compare/1; a 1.5 plugin that does not state its params stride, or
# states a garbage one, is refused with one line.
. "$(dirname "$0")/lib.sh"

# A copy of bench in a folder of its own loads only these fixtures.
mkdir -p "$T/bin"
cp "$BENCH" "$T/bin/bench"
BENCH="$T/bin/bench"
ABI="$FX_GOOD/../abi"
ABIB="$FX_GOOD/../abi_broken"
P="$SRC/tests/cli/presets/fast.ini"
R="$T/r/rollup.csv"
PLUGINS="fx_abi10 fx_abi11 fx_abi15"

# ---- --list --verbose: every field of every parameter, as declared (a
# wrong stride or a field read past the plugin's struct shows here).
run_bench --list --verbose --plugin-dir "$ABI" --plugin-dir "$ABIB"
expect_rc 0 "--list --verbose"
cat >"$T/params.want" <<'TXT'
    rows         int    [1, 256] zip 1  rows of x
                        defaults: smoke=2,3 standard=4 perf=8 verify=1
    cols         int    [1, 4096] zip 1  row length
                        defaults: smoke=16,33 standard=64 perf=1024 verify=7
    op           string {softmax,rmsnorm}  what is computed
                        defaults: smoke=softmax,rmsnorm standard=softmax perf=(standard) verify=rmsnorm
    eps          float  [0, 0.5]  rmsnorm epsilon
                        defaults: smoke=1e-5 standard=1e-6 perf=1e-5 verify=0.25
    bug          int    [0, 2]  1 plants a wrong output element, 2 a wrong reference
                        defaults: smoke=0 standard=0 perf=0 verify=0
TXT
for p in $PLUGINS; do
  minor=${p#fx_abi1}
  expect_in "$T/out" "^$p +cpu +runnable +ABI fixture built against plugin\.h 1\.$minor\$" "$p listed"
  awk -v p="$p" '$1 == p { on = 1; next } /^[^ ]/ { on = 0 } on && !/^    file: /' "$T/out" >"$T/params.$p"
  if cmp -s "$T/params.want" "$T/params.$p"; then ok; else
    fail "$p: parameters listed differ from the declaration"; diff "$T/params.want" "$T/params.$p"
  fi
done
expect_not_in "$T/out" 'fx_abi15_(nosize|badsize)'
expect_in "$T/err" "^bench: warning: plugin .*/fx_abi15_nosize\.so: plugin 'fx_abi15_nosize': built for plugin ABI 1\.5, newer than this bench's 1\.4, without stating sizeof\(struct bench_param\) \(end its entry with BENCH_PLUGIN_SIZES, or use a newer bench\); skipped$"
expect_in "$T/err" "^bench: warning: plugin .*/fx_abi15_badsize\.so: plugin 'fx_abi15_badsize': param_size 12 is smaller than this bench's struct bench_param \([0-9]+ bytes\), which ABI 1\.5 only extends; skipped$"
expect_eq "$(wc -l <"$T/err")" 2 "one line for each refused plugin"

# ---- every case runs and passes both checks (smoke: 2 zipped shapes x 2 ops)
run_bench --preset "$P" --plugin-dir "$ABI" --results-dir "$T/r"
expect_rc 0 "1.0, 1.1 and 1.5 plugins run"
expect_in "$T/out" ' 12 cases in 3 plugins'
for p in $PLUGINS; do
  for c in "rows=2 cols=16 op=softmax" "rows=2 cols=16 op=rmsnorm" "rows=3 cols=33 op=softmax" \
    "rows=3 cols=33 op=rmsnorm"; do
    expect_eq "$(csv_field "$R" "$p" "$c" status)" OK "$p $c"
  done
done
python3 - "$T/r" <<'PY' && ok || fail "checked results"
import glob, json, sys
seen = 0
for path in glob.glob(sys.argv[1] + "/*fx_abi*.json"):
    for c in json.load(open(path))["cases"]:
        ck = c["check"]
        assert c["status"] == "OK" and ck["checked"] and ck["pass"], (path, c["params"], ck)
        assert ck["max_abs_err"] < 1e-5, (path, c["params"], ck)
        seen += 1
assert seen == 12, seen
PY

# ---- the checks read the right fields: a wrong output fails host->check in
# every version; a wrong reference fails bench.compare/1 (1.1 and 1.5 only).
run_bench --preset "$P" --plugin-dir "$ABI" --results-dir "$T/b" --param rows=2 --param cols=16 \
  --param bug=1,2 --param op=rmsnorm
expect_rc 1 "planted bugs"
for p in $PLUGINS; do
  expect_eq "$(csv_field "$T/b/rollup.csv" "$p" "bug=1" status)" WRONG_ANSWER "$p wrong output"
  expect_in "$T/out" "$p rows=2 cols=16 op=rmsnorm eps=1e-5 bug=1  *WRONG_ANSWER +rmsnorm: 1 of 32 elements out of tolerance; first at \[0,8\]"
done
expect_eq "$(csv_field "$T/b/rollup.csv" fx_abi10 "bug=2" status)" OK "1.0 has no compare"
for p in fx_abi11 fx_abi15; do
  expect_eq "$(csv_field "$T/b/rollup.csv" "$p" "bug=2" status)" WRONG_ANSWER "$p wrong reference"
  expect_in "$T/out" "$p rows=2 cols=16 op=rmsnorm eps=1e-5 bug=2  *WRONG_ANSWER +own_reference: 1 of 32 elements out of tolerance; first at \[0,8\]"
done

finish
