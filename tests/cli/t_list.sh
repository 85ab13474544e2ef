#!/usr/bin/env bash
# bench --list: every plugin with backend, runnable or why not; each broken
# .so gets exactly one line naming the file and the problem.
. "$(dirname "$0")/lib.sh"

run_bench --list
expect_rc 0
expect_in "$T/out" '^cpu_gemm +cpu +runnable +fp32 GEMM'

run_bench --list --plugin-dir "$FX_GOOD" --plugin-dir "$FX_BROKEN"
expect_rc 0 "--list with broken plugins"
expect_in "$T/err" 'plugin .*/fx_abi\.so: built for plugin ABI 99\.0, this bench speaks 1\.4'
expect_in "$T/err" "plugin .*/fx_nosym\.so: missing entry symbol 'bench_plugin_entry'"
expect_in "$T/err" "plugin .*/fx_nofields\.so: required field 'run' is missing"
expect_in "$T/err" "plugin .*/fx_badparam\.so: .*'abc'"
expect_in "$T/err" 'plugin .*/fx_ctorcrash\.so: loading it crashed'
expect_in "$T/err" 'plugin .*/fx_needlib\.so: .*libfx_dep\.so'
expect_in "$T/err" 'plugin .*/fx_notso\.so: .*'
expect_in "$T/err" "plugin .*/fx_dup\.so: duplicate name 'fx_ok' \(already loaded from .*/good/fx_ok\.so\)"
expect_eq "$(grep -c '^bench: warning: plugin ' "$T/err")" 8 "one line per broken plugin"
expect_eq "$(wc -l <"$T/err")" 8 "nothing else on stderr"
expect_in "$T/out" '^fx_ok +cpu +runnable on fixture device +test fixture fx_ok'
expect_in "$T/out" '^fx_skip +cpu +not runnable: no frobnicator on this machine'
expect_in "$T/out" '^cpu_gemm +cpu +runnable'

# The others still run next to the broken ones.
run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin fx_ok --plugin-dir "$FX_GOOD" \
  --plugin-dir "$FX_BROKEN" --results-dir "$T/r"
expect_rc 0 "run next to broken plugins"
expect_in "$T/out" 'fx_ok n=8  *OK'

# --verbose shows parameters and their tier defaults.
run_bench --list --verbose --plugin cpu_gemm
expect_rc 0
expect_in "$T/out" 'variant +string \{naive,blocked,packed,openblas,blis\}'
expect_in "$T/out" 'defaults: smoke=.* standard=.* perf=.* verify='

# BENCH_PLUGIN_PATH is searched too.
BENCH_PLUGIN_PATH="$FX_GOOD" run_bench --list --plugin 'fx_*'
expect_rc 0 "BENCH_PLUGIN_PATH"
expect_in "$T/out" '^fx_devtime '
finish
