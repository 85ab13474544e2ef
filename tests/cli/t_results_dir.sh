#!/usr/bin/env bash
# The results folder: one that cannot take the run's files is found before
# the first case (exit 2, one line, nothing run); an empty name is refused;
# a SIGKILLed run leaves its .json and a journal that the rollup reads,
# every finished case counted once; FIFOs and /dev/zero links named *.json
# neither hang nor abort the rollup.
. "$(dirname "$0")/lib.sh"
FAST="$SRC/tests/cli/presets/fast.ini"

nothing_run() { # $1: what
  expect_not_in "$T/out" ': (OK|SKIPPED|ERROR)' "$1: stdout"
  [ "$(grep -c '^bench: error' "$T/err")" = 1 ] && ok || fail "$1: not one error line"
}

# --results-dir "": refused (it read out of bounds before).
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir ""
expect_rc 2 "empty results folder name"
expect_in "$T/err" "^bench: error: the results folder name is empty$"
nothing_run "empty results folder name"

# A tag that makes a name too long: found by the probe, before the first case.
long=$(printf 't%.0s' $(seq 250))
mkdir -p "$T/r"
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/r" --tag "$long"
expect_rc 2 "too long a tag"
expect_in "$T/err" "results folder '$T/r' cannot take this run's files: File name too long .*fx_ok.*shorter --tag.*nothing was run"
nothing_run "too long a tag"
[ -z "$(ls -A "$T/r")" ] && ok || fail "files left by the probe: $(ls -A "$T/r")"

# A folder that cannot take files: read-only for a user; /sys for root.
if [ "$(id -u)" = 0 ]; then ro=/sys; else ro="$T/ro"; mkdir -p "$ro"; chmod 555 "$ro"; fi
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$ro"
expect_rc 2 "read-only results folder"
expect_in "$T/err" "results folder '$ro' cannot take this run's files: (Permission denied|Read-only file system).*nothing was run"
nothing_run "read-only results folder"
[ "$ro" = /sys ] || chmod 755 "$ro"

# SIGKILL mid-run: the .json and the journal hold every saved case, and
# bench rollup counts each once.
{ sed -n '/^\[run\]/,$p' "$FAST"; printf '[fx_ok]\nn = 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21\n'; } >"$T/many.ini"
"$BENCH" --preset "$T/many.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/k" \
  --events "$T/ev.jsonl" >"$T/out" 2>"$T/err" &
pid=$!
five_ended() { [ "$(grep -c '"TEST_END"' "$T/ev.jsonl" 2>/dev/null)" -ge 5 ]; }
wait_for 120 five_ended && ok || fail "five cases did not end"
kids=$(pgrep -P "$pid")
kill -KILL "$pid"
wait "$pid" 2>/dev/null
ended=$(grep -c '"TEST_END"' "$T/ev.jsonl")
# its case processes die with it (PR_SET_PDEATHSIG): wait until they are gone
gone() { [ ! -e "/proc/$1" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
for k in $kids; do wait_for 30 gone "$k" || fail "case process $k outlived bench"; done
base="$T/k/${TODAY}_fx_ok_many"
[ -f "$base.json" ] && ok || fail "no .json after SIGKILL"
[ -f "$base.journal" ] && ok || fail "no journal after SIGKILL"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$base.json" && ok || fail "partial JSON"
run_bench rollup --results-dir "$T/k"
expect_rc 0 "rollup after SIGKILL"
rows=$(grep -c ',fx_ok,' "$T/k/rollup.csv")
# the case that ended just before the kill may not have been saved yet
[ "$rows" -ge $((ended - 1)) ] && [ "$rows" -ge 4 ] && [ "$rows" -le "$ended" ] && ok ||
  fail "rollup rows after SIGKILL: $rows for $ended ended cases"
[ "$(cut -d, -f8 "$T/k/rollup.csv" | sort | uniq -d | wc -l)" = 0 ] && ok || fail "a case counted twice"

# Special files named *.json in the folder: skipped with a line each.
mkfifo "$T/k/fifo.json"
ln -s /dev/zero "$T/k/zero.json"
timeout 20 "$BENCH" rollup --results-dir "$T/k" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "rollup beside a FIFO and /dev/zero"
expect_in "$T/err" "skipping .*fifo.json: not a regular file"
expect_in "$T/err" "skipping .*zero.json: not a regular file"
expect_eq "$(grep -c ',fx_ok,' "$T/k/rollup.csv")" "$rows" "rows beside special files"
# and at the end of a run in that folder
timeout 60 "$BENCH" --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/k" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "run beside a FIFO and /dev/zero"
finish
