#!/usr/bin/env bash
# The PROGRESS line names a case with the values its setup resolved (issue
# 39): fx_resolve asked for threads=0 says threads=2 in its setup, and once
# it has, PROGRESS (printed whole: stderr is no terminal) names the case as
# its line does, in every isolation mode (a worker per backend, per plugin,
# a process per case). A case whose setup resolves nothing keeps its
# requested values. A cpu plugin at threads=0 too: PROGRESS ends with the
# thread count its line shows.
. "$(dirname "$0")/lib.sh"
P="$SRC/tests/cli/presets/fast.ini"
FX_RES=$BUILD/tests/fixtures/resolve

# line_label FILE: the label of the case line "[1/1] LABEL  STATUS ..."
line_label() { grep -E '^\[ *1/1\] ' "$1" | head -1 | sed -E 's/^\[[^]]*\] //; s/  .*//'; }
# progress_labels FILE: the case each PROGRESS line names, one a line
progress_labels() {
  grep '^PROGRESS: ' "$1" | sed -E 's/^PROGRESS: \([0-9]+\/[0-9]+\) ETA [^ ]+ \[[#.]+\] +[0-9]+% //; s/ \[[^]]*\]$//'
}

for iso in backend plugin case; do
  run_bench --preset "$P" --plugin-dir "$FX_RES" --plugin fx_resolve --isolation "$iso" --results-dir "$T/$iso"
  expect_rc 0 "fx_resolve, isolation $iso"
  expect_eq "$(line_label "$T/out")" "fx_resolve n=8 threads=2" "the case line ($iso)"
  expect_eq "$(progress_labels "$T/err" | head -1)" "fx_resolve n=8 threads=0" "PROGRESS as requested at the start ($iso)"
  expect_eq "$(progress_labels "$T/err" | tail -1)" "fx_resolve n=8 threads=2" "PROGRESS once setup resolved ($iso)"
done

# nothing resolved: the requested values throughout
run_bench --preset "$P" --plugin-dir "$FX_RES" --plugin fx_resolve --param threads=3 --results-dir "$T/kept"
expect_rc 0 "fx_resolve threads=3"
expect_eq "$(line_label "$T/out")" "fx_resolve n=8 threads=3" "the case line (threads=3)"
expect_eq "$(progress_labels "$T/err" | sort -u)" "fx_resolve n=8 threads=3" "PROGRESS keeps threads=3"

# a cpu plugin: threads=0 runs on some number of threads, which PROGRESS ends with
run_bench --preset "$P" --plugin cpu_rmsnorm --param threads=0 --param rows=64 --param cols=256 --results-dir "$T/cpu"
expect_rc 0 "cpu_rmsnorm threads=0"
want=$(line_label "$T/out")
[[ "$want" =~ threads=[1-9] ]] && ok || fail "cpu_rmsnorm's line shows no resolved thread count: '$want'"
expect_eq "$(progress_labels "$T/err" | tail -1)" "$want" "cpu_rmsnorm: PROGRESS names the case as its line"
finish
