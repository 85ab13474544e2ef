#!/usr/bin/env bash
# A machine without the HIP runtime: copies of the hip plugins whose
# libamdhip64 cannot be found (the name patched in the copies' dynamic
# section) each cost one warning line naming the file and the library, and
# the other plugins still list and run.
. "$SRC/tests/cli/lib.sh"

mkdir -p "$T/p"
cp "$BUILD"/lib/bench/plugins/hip_*.so "$T/p/"
python3 - "$T"/p/*.so <<'PY' && ok || fail "patching the copies"
import sys
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    n = data.count(b"libamdhip64.so")
    assert n >= 1, (path, n)
    open(path, "wb").write(data.replace(b"libamdhip64.so", b"libamdhipXX.so"))
PY
n=$(ls "$T"/p/*.so | wc -l)
expect_eq "$n" 14 "fourteen hip plugins copied"

run_bench --list --plugin-dir "$T/p" --plugin-dir "$FX_GOOD"
expect_rc 0 "--list without libamdhip64"
expect_eq "$(grep -c '^bench: warning: plugin ' "$T/err")" "$n" "one line per hip plugin"
expect_eq "$(wc -l <"$T/err")" "$n" "nothing else on stderr"
for f in "$T"/p/*.so; do
  expect_in "$T/err" "^bench: warning: plugin .*/$(basename "$f"): .*libamdhipXX\.so" "line for $(basename "$f")"
done
expect_in "$T/out" '^fx_ok +cpu +runnable' "the other plugins still listed"

# The other plugins run next to them.
run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin fx_ok --plugin-dir "$FX_GOOD" \
  --plugin-dir "$T/p" --results-dir "$T/r"
expect_rc 0 "run next to the unloadable hip plugins"
expect_in "$T/out" 'fx_ok n=8  *OK'
finish
