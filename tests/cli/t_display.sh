#!/usr/bin/env bash
# The run's lines on the terminal (issue 39): they fit the real width
# (TIOCGWINSZ, then COLUMNS, then 120), labels are shortened by leaving out
# what a plugin's cases share (never the parameter that tells them apart),
# the status column is one for the whole run, a long message wraps at its
# words, PROGRESS starts with the counter and the ETA and names the case
# as its line does; a noisy case is a status (the warning colour, named in
# the summary), a busy machine one warning line at the end and in the .txt.
. "$(dirname "$0")/lib.sh"
P="$SRC/tests/cli/presets/fast.ini"

# widest FILE: the longest line of FILE (the run's first line names the
# results folder, a path of the test's: left out).
widest() { tail -n +2 "$1" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }'; }
# status_cols FILE: the distinct columns where a case's status starts (after
# its label, or alone under it).
status_cols() {
  grep -Eo '^(\[ *[0-9]+/[0-9]+\] .*|  +)  (OK|SKIPPED|ERROR|WRONG_ANSWER|CRASHED|TIMEOUT)( |$)' "$1" |
    awk '{ match($0, /  (OK|SKIPPED|ERROR|WRONG_ANSWER|CRASHED|TIMEOUT)( |$)/); print RSTART + 2 }' | sort -u
}

# 1. Width from COLUMNS when the output is no terminal: every line fits,
#    at 80 and at 200; one status column for the run's three plugins, whose
#    labels differ in length.
for cols in 80 200; do
  COLUMNS=$cols run_bench --preset smoke --plugin cpu_attention,cpu_softmax --plugin-dir "$FX_GOOD" \
    --plugin fx_ok --results-dir "$T/w$cols"
  expect_rc 0 "smoke at $cols columns"
  cp "$T/out" "$T/w$cols.out"
  w=$(widest "$T/out")
  [ "$w" -le "$cols" ] && ok || { fail "a line of $w columns at COLUMNS=$cols"; awk -v c="$cols" 'length($0) > c' "$T/out" | head -3; }
  n=$(status_cols "$T/out" | wc -l)
  expect_eq "$n" 1 "one status column at $cols columns ($(status_cols "$T/out" | tr '\n' ' '))"
  expect_in "$T/out" '(^| )fx_ok n=8( |$)'
  # Each case's label tells it apart: smoke's cpu_attention cases differ in
  # late parameters (rope), which stay on the line.
  grep -E '^\[ *[0-9]+/[0-9]+\] cpu_attention' "$T/out" | sed -E 's/^\[[^]]*\] //; s/  .*//' >"$T/labels"
  expect_nonempty "cpu_attention labels at $cols" $(cat "$T/labels" | head -1)
  expect_eq "$(sort "$T/labels" | uniq -d | wc -l)" 0 "no two cpu_attention labels alike at $cols columns"
  expect_not_in "$T/labels" '\.\.$'
done
# 200 columns leave the labels whole; 80 leave out what the cases share,
# and say it once.
expect_in "$T/w200.out" '^\[ *1/[0-9]+\] cpu_attention .*threads=[0-9]+ isa='
expect_in "$T/w80.out" '^cpu_attention, every case: .*isa=auto'

# 2. A terminal (a pty from script(1)): its own width wins over COLUMNS.
if command -v script >/dev/null; then
  COLUMNS=200 script -qec "stty cols 70; '$BENCH' --preset '$P' --plugin-dir '$FX_GOOD' --plugin fx_ok,fx_skip --results-dir '$T/pty'" \
    "$T/pty.raw" >/dev/null 2>&1
  tr -d '\r' <"$T/pty.raw" | sed -E $'s/\033\\[[0-9;]*[mK]//g; s/.*\033\\[K//' | grep -v '^Script ' >"$T/pty.txt"
  expect_in "$T/pty.txt" '\[ 1/2\] fx_ok n=8'
  w=$(grep -E '^(\[|  )' "$T/pty.txt" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
  [ "$w" -le 70 ] && ok || fail "a case line of $w columns on a 70-column terminal"
  # --list on a terminal: every row within the width, at 80 and at 200.
  for cols in 80 200; do
    script -qec "stty cols $cols; '$BENCH' --list --plugin-dir '$FX_PROC' --plugin-dir '$FX_GOOD' --plugin 'fx_initbug,fx_skipnl,fx_ok,fx_skip,cpu_*'" \
      "$T/list.raw" >/dev/null 2>&1
    tr -d '\r' <"$T/list.raw" | grep -Ev '^(Script |bench: )' >"$T/list.txt" # rows, not the loader's warnings
    expect_in "$T/list.txt" '^fx_initbug +cpu +not runnable'
    w=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$T/list.txt")
    [ "$w" -le "$cols" ] && ok || { fail "a --list row of $w columns at $cols"; awk -v c="$cols" 'length($0) > c' "$T/list.txt" | head -3; }
  done
fi

# 3. A long message wraps at its words: the words on the lines are the
#    message's, in order, none cut.
COLUMNS=60 run_bench --preset "$P" --plugin-dir "$FX_PROC" --plugin fx_initbug --results-dir "$T/msg"
w=$(widest "$T/out")
[ "$w" -le 60 ] && ok || fail "a line of $w columns at COLUMNS=60"
python3 - "$T/out" "$T/msg/${TODAY}_fx_initbug_fast.json" <<'PY' && ok || fail "the message is not its words, whole"
import json, re, sys
out = open(sys.argv[1]).read().splitlines()
msg = json.load(open(sys.argv[2]))["cases"][0]["message"]
i = next(i for i, l in enumerate(out) if re.match(r"\[ *1/1\] ", l))
text = []
for l in out[i:]:
    if l.startswith("      |") or (text and not l.startswith(" ")):
        break
    text.append(l)
words = " ".join(text).split()
mw = msg.split()
assert " ".join(words).endswith(" ".join(mw)) or " ".join(mw) in " ".join(words), (words, mw)
PY

# 4. A noisy case: its status and figure in the warning colour, named in
#    the summary with its figure and target.
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_noisy --results-dir "$T/noisy" --color always \
  --param n=8 --target-noise 1%
expect_rc 0 "noisy run"
expect_in "$T/out" $'fx_noisy n=8 +\033\\[1;33mOK\033\\[0m +[0-9.]+ [nmu]?s \033\\[1;33m\\+-[0-9.]+%\033\\[0m'
expect_in "$T/out" $'^  \033\\[1;33mNOISY +\033\\[0m \\[[12]/2\\] fx_noisy n=8  \033\\[1;33m\\+-[0-9.]+%\033\\[0m \\(target 1%\\)$'
expect_not_in "$T/out" 'did not reach the noise target$'
NO_COLOR=1 run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_noisy --results-dir "$T/noisy2" --target-noise 1%
expect_in "$T/out" '^  NOISY +\[1/1\] fx_noisy n=8  \+-[0-9.]+% \(target 1%\)$'

# 5. A busy machine (three busy loops per CPU for the run): one warning
#    line at the end, with its figure, and in the .txt header.
pids=()
for _ in $(seq $((3 * $(nproc)))); do
  bash -c 'while :; do :; done' &
  pids+=($!)
done
running() { awk '/^procs_running/ { exit !($2 > '"$(nproc)"') }' /proc/stat; }
wait_for 10 running && ok || fail "the busy loops never ran"
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/busy"
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
wait "${pids[@]}" 2>/dev/null
expect_rc 0 "busy run"
expect_eq "$(grep -c 'machine was busy' "$T/out")" 1 "one busy line"
# whichever figure says it most (runnable threads, the calibration loop's
# time off its CPU or its drift, steal), with its figure and its limit
expect_in "$T/out" '^bench: warning: the machine was busy: (a calibration loop.* )?[-+]?[0-9.]+(%| other runnable threads per CPU).* \(steady: at most [0-9.]+%?\)'
expect_in "$T/busy/${TODAY}_fx_ok_fast.txt" '^warning +the machine was busy during this run: [^ ]'

# 6. PROGRESS (stderr, no terminal): the counter and the ETA first, then
#    the case as its line names it.
run_bench --preset "$P" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/prog"
expect_in "$T/err" '^PROGRESS: \(0/1\) ETA [0-9hms>-]+ \[[#.]{20}\] +[0-9]+% fx_ok n=8'
finish
