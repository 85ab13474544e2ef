#!/usr/bin/env bash
# Usage and configuration errors: exit 2, one clear message, nothing run,
# nothing written.
. "$(dirname "$0")/lib.sh"

nothing_written() {
  if [ -e "$T/r" ] || [ -e "$T/ev" ]; then fail "$1: something was written"; ls -R "$T"; else ok; fi
}

run_bench --frobnicate --results-dir "$T/r"
expect_rc 2 "unknown option"; expect_in "$T/err" "unknown option '--frobnicate'"; nothing_written "unknown option"

run_bench --preset smoke --plugin no_such_plugin --results-dir "$T/r" --events "$T/ev"
expect_rc 2 "unknown plugin"; expect_in "$T/err" "no plugin named 'no_such_plugin' \(found: .*cpu_gemm"
nothing_written "unknown plugin"

run_bench --preset gigantic --results-dir "$T/r"
expect_rc 2 "unknown preset"; expect_in "$T/err" "gigantic"; expect_in "$T/err" "smoke"
nothing_written "unknown preset"

run_bench --preset "$SRC/tests/cli/presets/broken.ini" --results-dir "$T/r" --events "$T/ev"
expect_rc 2 "broken preset"; expect_in "$T/err" "broken\.ini:3: .*max_samples"
nothing_written "broken preset"

printf '[run]\ntier = smoke\n[cpu_gemm]\nm = 64,,128\n' >"$T/sweep.ini"
run_bench --preset "$T/sweep.ini" --plugin cpu_gemm --results-dir "$T/r"
expect_rc 2 "bad sweep"; expect_in "$T/err" "sweep\.ini:4: "
printf '[run]\ntier = smoke\n[cpu_gemm]\nbogus = 1\n' >"$T/key.ini"
run_bench --preset "$T/key.ini" --plugin cpu_gemm --results-dir "$T/r"
expect_rc 2 "unknown key"; expect_in "$T/err" "key\.ini:4: unknown parameter 'bogus' for plugin 'cpu_gemm'"
nothing_written "bad plugin section"

run_bench --mode fast --results-dir "$T/r"
expect_rc 2 "bad mode"; expect_in "$T/err" "--mode must be perf or debug"
run_bench --plugin-dir "$T/nowhere" --results-dir "$T/r"
expect_rc 2 "missing plugin dir"; expect_in "$T/err" "plugin folder '.*nowhere' does not exist"
nothing_written "bad options"

: >"$T/file"
run_bench --preset smoke --plugin cpu_gemm --results-dir "$T/file/sub"
expect_rc 2 "results dir under a file"; expect_in "$T/err" "cannot create folder"

run_bench --help
expect_rc 0 "--help"; expect_in "$T/out" '^usage: bench'
expect_in "$T/out" '^       bench --list \[--verbose \| --format tsv\]' "--help names --list --format"
expect_in "$T/out" '^       bench results --name --plugin P --preset PRESET' "--help names results --name"
expect_in "$T/out" '^       bench results --summary ' "--help names results --summary"
expect_in "$T/out" '^       bench events FILE \[--follow \| --summary\]' "--help names events --summary"
expect_in "$T/out" '^  --require-check  +a case that nothing checked' "--help names --require-check"
run_bench results --help
expect_rc 0 "results --help"; expect_in "$T/out" '^usage: bench results --name'
run_bench --version
expect_rc 0 "--version"; expect_in "$T/out" '^bench [0-9]+\.[0-9]+\.[0-9]+ .*plugin ABI 1\.4'
run_bench rollup --results-dir "$T/nowhere"
expect_rc 2 "rollup of a missing folder"
finish
