#!/usr/bin/env bash
# The terminal (issue 27): case lines within 120 columns and aligned, colour
# by --color and NO_COLOR, one noise figure, settle notes only when the
# preset asks, the summary (failed cases by name, grammar for 1, relative
# lines), --param on a zip group as one case, compare --help's percent.
. "$(dirname "$0")/lib.sh"
unset COLUMNS # the width when the output is no terminal: 120
P="$SRC/tests/cli/presets/fast.ini"

# --param on cpu_gemm's zipped m, n, k (zipped with variant too): one case.
run_bench --preset smoke --plugin cpu_gemm --param m=512 --param n=512 --param k=512 --param dtype=f32 \
  --results-dir "$T/one"
expect_rc 0 "one gemm case"
expect_in "$T/out" '^bench .*: preset smoke \(smoke\), 1 case in 1 plugin, results in'
expect_eq "$(grep -c '^\[' "$T/out")" 1 "exactly one case line"
expect_in "$T/out" '^\[ 1/1\] cpu_gemm variant=naive m=n=k=512 f32 threads=[0-9]+( isa=auto)?  +OK  '
expect_in "$T/out" '^bench: 1 of 1 case run in'
# Two sizes zipped: two cases, each its own m=n=k, variant kept once.
run_bench --preset smoke --plugin cpu_gemm --param m=32,48 --param n=32,48 --param k=32,48 --param dtype=f32 \
  --param variant=packed --results-dir "$T/two"
expect_rc 0 "two gemm cases"
expect_eq "$(grep -c '^\[' "$T/out")" 2 "two case lines"
expect_in "$T/out" 'variant=packed m=n=k=48 f32'

# Smoke on cpu_gemm: every line within 120 columns, the columns aligned,
# one noise figure (no cv on the line), no colour when not a terminal.
run_bench --preset smoke --plugin cpu_gemm --results-dir "$T/s"
expect_rc 0 "smoke"
awk '/^\[/ && length($0) > 120 { bad = 1; print } END { exit bad }' "$T/out" && ok || fail "a case line over 120 columns"
expect_eq "$(grep '^\[' "$T/out" | awk '{ print index($0, " OK ") }' | sort -u | wc -l)" 1 "status column aligned"
expect_eq "$(grep '^\[' "$T/out" | grep -o '^.* OK  *[0-9.]* [nmu]*s' | awk '{ print length($0) }' | sort -u | wc -l)" 1 \
  "median column aligned"
expect_not_in "$T/out" ' cv [0-9]'
expect_not_in "$T/out" $'\033'
expect_in "$T/out" 'OK  +[0-9.]+ [nmu]?s \+-[0-9.]+%  +[0-9.]+ GFLOP/s  err [0-9]'
# Resolved values: threads=0 is shown as the threads used; the file keeps 0
# (a note line "cpu_gemm, every case: threads=0" gives the request).
grep '^\[' "$T/out" >"$T/lines"
expect_not_in "$T/lines" 'threads=0'
expect_in "$T/s/${TODAY}_cpu_gemm_smoke.json" '"threads": *"0"'
# The relative line for the implementation parameter.
tr '\n' '~' <"$T/out" | sed 's/~    / /g' | tr '~' '\n' >"$T/joined" # lines fitted to 120 columns, joined
expect_in "$T/joined" '^  cpu_gemm: variant=[a-z]+ is [0-9.]+x faster than [a-z]+.* \(m=n=k=64, f32\)$'

# Colour: --color always colours the status, NO_COLOR and never do not.
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_wrong,fx_skip --results-dir "$T/c" --color always
expect_rc 1 "a wrong answer fails"
expect_in "$T/out" $'fx_ok n=8 +\033\\[(32|1;33)mOK\033\\[0m' # green, or noisy on a busy machine
expect_in "$T/out" $'\033\\[1;31mWRONG_ANSWER\033\\[0m'
expect_in "$T/out" $'\033\\[2mSKIPPED\033\\[0m'
NO_COLOR=1 run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_wrong --results-dir "$T/c2"
expect_not_in "$T/out" $'\033'
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/c3" --color never
expect_not_in "$T/out" $'\033'
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_ok --color sometimes
expect_rc 2 "bad --color"
expect_in "$T/err" "--color must be auto, always or never, not 'sometimes'"

# The summary names the failed cases; grammar for 1.
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_wrong --results-dir "$T/f"
expect_rc 1 "failed run"
expect_in "$T/out" '^1 failed case:$'
expect_in "$T/out" '^  WRONG_ANSWER +\[2/2\] fx_wrong n=8$'
expect_in "$T/out" 'cases in 2 plugins'

# Settle notes: counted once in the summary, on the lines only when asked.
printf '[run]\ntier = smoke\nmin_samples = 5\nmax_samples = 8\nmax_time = 1s\ntarget_noise = 0.1%%\nverify = full\ntimeout = 10s\n' >"$T/tight.ini"
run_bench --preset "$T/tight.ini" --plugin-dir "$FX_GOOD" --plugin fx_noisy --results-dir "$T/n1"
expect_rc 0 "unsettled"
expect_not_in "$T/out" 'did not settle'
expect_in "$T/out" '^1 case did not reach the noise target'
printf 'report_settle = true\n' >>"$T/tight.ini"
run_bench --preset "$T/tight.ini" --plugin-dir "$FX_GOOD" --plugin fx_noisy --results-dir "$T/n2"
expect_in "$T/out" '^      did not settle: noise'
expect_not_in "$T/out" 'did not reach the noise target'

# --list -v: integer ranges as integers; --list: the reason wrapped in its
# column, the descriptions lined up after it.
"$BENCH" --list -v --plugin cpu_gemm >"$T/lv" 2>&1
expect_in "$T/lv" '^    m +int +\[[0-9]+, [0-9]+\]'
expect_not_in "$T/lv" '\[[0-9.]+e\+[0-9]+'
"$BENCH" --list --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_skip,cpu_gemm >"$T/l" 2>&1
expect_eq "$(grep -E '^(fx_ok|fx_skip|cpu_gemm) ' "$T/l" | awk '{ print index($0, "test fixture") + index($0, "fp32 GEMM") }' | sort -u | wc -l)" 1 \
  "descriptions in one column"
# On a terminal (a pty from script(1)) a long reason wraps within its column
# and the lines keep to 120 columns.
if command -v script >/dev/null; then
  script -qec "stty cols 120; '$BENCH' --list --plugin-dir '$FX_PROC' --plugin fx_initbug,fx_skipnl" "$T/tty" >/dev/null 2>&1
  tr -d '\r' <"$T/tty" | grep -v '^Script ' >"$T/tty.txt"
  awk '/^(fx_| )/ && length($0) > 120 { bad = 1; print } END { exit bad }' "$T/tty.txt" && ok || fail "a --list line over 120 columns"
  expect_in "$T/tty.txt" '^fx_initbug +cpu +not runnable: init: plugin bug: '
  expect_in "$T/tty.txt" '^ {20,}[^ ].*outside a case'
fi

# A runnable GPU plugin is listed with the device it found.
if "$BENCH" --list --format tsv 2>/dev/null | grep -q '^vk_gemm'; then
  "$BENCH" --list --rescan --plugin vk_gemm >"$T/lvk" 2>&1
  if grep -q '^vk_gemm .*not runnable' "$T/lvk"; then ok
  else expect_in "$T/lvk" '^vk_gemm +vulkan +runnable on [^ ]'; fi
fi

# compare --help prints a percent sign, not a printf escape.
"$BENCH" compare --help >"$T/help" 2>&1
expect_in "$T/help" '\(default 5%\)'
expect_not_in "$T/help" '%%'
finish
