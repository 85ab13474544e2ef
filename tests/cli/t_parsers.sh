#!/usr/bin/env bash
# What presets, plugins and events files may hold, as a user meets it:
# special files refused at once, sections of plugins not selected checked,
# control characters escaped before they reach the terminal, `bench events`
# bounded on endless input (issues 12 items 7, 8, 10 and 15 items 1-4).
. "$(dirname "$0")/lib.sh"
FAST="$SRC/tests/cli/presets/fast.ini"
ESC=$'\x1b'

# --- special files: refused at once, never read or waited on ---------------
run_bench_t() { timeout 20 "$BENCH" "$@" >"$T/out" 2>"$T/err"; RC=$?; }
run_bench_t --preset /dev/zero --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/r"
expect_rc 2 "--preset /dev/zero"
expect_in "$T/err" "cannot read preset '/dev/zero': not a regular file"
mkfifo "$T/fifo.ini"
run_bench_t --preset "$T/fifo.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/r"
expect_rc 2 "a FIFO preset"
expect_in "$T/err" "fifo.ini': not a regular file"

# --- a section of a plugin that exists but is not selected is checked -------
printf '[run]\ntier = smoke\ntimeout = 3s\n[fx_ok]\nbanana = split\nn = not a number\n' >"$T/unsel.ini"
run_bench --preset "$T/unsel.ini" --plugin-dir "$FX_GOOD" --plugin fx_skip --results-dir "$T/r"
expect_rc 2 "a bad section of an unselected plugin"
expect_in "$T/err" "unsel.ini:5: unknown parameter 'banana' for plugin 'fx_ok'"
expect_in "$T/err" "unsel.ini:6: plugin 'fx_ok', parameter 'n': 'not a number' is not an integer"
expect_not_in "$T/out" "fx_skip" "nothing ran"

# --- [run] ranges (item 2) ----------------------------------------------------
printf '[run]\nmax_time = 1e300\ntimeout = 1e300\nheartbeat = 10ms\n' >"$T/huge.ini"
run_bench --preset "$T/huge.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/r"
expect_rc 2 "absurd durations"
expect_in "$T/err" "huge.ini:2: bad value '1e300' for max_time"
expect_in "$T/err" "huge.ini:3: bad value '1e300' for timeout"
expect_in "$T/err" "huge.ini:4: bad value '10ms' for heartbeat"

# --- +064 and 64 are one case label (item 4) ----------------------------------
printf '[run]\ntier = smoke\nmin_samples = 1\nmax_samples = 2\nmin_time = 0\nmax_time = 0.1s\ntimeout = 3s\n[fx_ok]\nn = +008\n' >"$T/norm.ini"
run_bench --preset "$T/norm.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/r"
expect_rc 0 "n = +008"
expect_in "$T/out" 'fx_ok n=8  *OK'

# --- control characters from a plugin never reach the terminal raw ----------
run_bench --list --plugin-dir "$FX_GOOD" --plugin fx_esc
expect_rc 0 "--list of a plugin with escapes"
expect_not_in "$T/out" "$ESC" "--list output"
expect_in "$T/out" 'test fixture fx_esc \\x1b\]0;retitled\\x07\\x1b\[31mred'
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_esc --results-dir "$T/r" --events "$T/ev.jsonl"
expect_rc 1 "a case failing with escapes"
expect_not_in "$T/out" "$ESC" "case lines"
expect_not_in "$T/err" "$ESC" "stderr"
expect_in "$T/out" 'screen \\x1b\[2J cleared'
run_bench events "$T/ev.jsonl"
expect_rc 0 "bench events"
expect_not_in "$T/out" "$ESC" "bench events output"
# a preset value with escapes, in the error that quotes it
printf '[run]\ntier = \x1b]0;x\x07\n' >"$T/esc.ini"
run_bench --preset "$T/esc.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/r"
expect_rc 2
expect_not_in "$T/err" "$ESC" "preset error"
expect_in "$T/err" "esc.ini:2: bad value '\\\\x1b\]0;x\\\\x07' for tier"

# --- bench events: numbers out of range, endless input ----------------------
printf '{"event":"SUITE_START","total_cases":3e9}\n{"event":"TEST_START","index":2147483647,"plugin":"p","case":"c"}\n{"event":"TEST_START","index":0,"plugin":"p","case":"c"}\n{"event":"HEARTBEAT","suite_percent":1,"suite_eta_s":1e10}\n' >"$T/big.jsonl"
run_bench events "$T/big.jsonl"
expect_rc 0 "events with huge numbers"
expect_in "$T/out" 'ETA >99999h'
expect_not_in "$T/out" '-2147483648' "no overflowed row numbers"
timeout 20 "$BENCH" events /dev/zero >"$T/out" 2>"$T/err"
RC=$?
expect_rc 2 "bench events /dev/zero"
expect_in "$T/err" "'/dev/zero' is not an events file"
# 200 MB without a newline: memory stays bounded (it grew with the input)
head -c 200000000 /dev/zero | /usr/bin/time -f '%M' -o "$T/rss" "$BENCH" events - >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "events from /dev/zero"
expect_in "$T/out" 'no events yet'
rss=$(tail -1 "$T/rss")
if [ "$rss" -lt 150000 ]; then ok; else fail "bench events on 200 MB of zeros: max RSS ${rss} KB"; fi
finish
