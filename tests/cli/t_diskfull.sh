#!/usr/bin/env bash
# A results folder that cannot take the files (here: a file-size limit, as a
# full disk would): one clear line, the run goes on and fails, and no partial
# or temporary file is left behind.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/r"
( ulimit -f 2; "$BENCH" --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_devtime \
    --results-dir "$T/r" >"$T/out" 2>"$T/err" )
RC=$?
expect_rc 1 "results that cannot be written"
expect_in "$T/err" "bench: error: .*$T/r.*(File too large|No space)"
expect_in "$T/out" 'fx_ok n=8  *OK'
expect_in "$T/out" 'fx_devtime n=8  *OK'
expect_in "$T/out" "2 of 2 cases run"
expect_in "$T/err" "some results could not be written"
left=$(find "$T/r" -type f | wc -l)
for f in "$T"/r/* "$T"/r/.*; do
  [ -f "$f" ] || continue
  case "$f" in *.tmp.*) fail "temporary file left: $f" ;; esac
  if [ "${f##*.}" = json ]; then
    python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$f" && ok || fail "partial JSON $f"
  fi
done
echo "files left: $left"
finish
