#!/usr/bin/env bash
# Ctrl-C in the middle of bench tune keeps what was measured (the records
# are in the cache as each candidate ends) and exits 130 without a winner;
# the rerun measures only the candidates that were not measured, and picks
# the optimum.
. "$(dirname "$0")/../cli/lib.sh"

P=(--plugin fx_tune --plugin-dir "$FX_TUNE")
C="$T/cache.tsv"
records() { [ -f "$C" ] && grep -c '^M	' "$C" || echo 0; }
has_records() { [ "$(records)" -ge "$1" ]; }

"$BENCH" tune "${P[@]}" --tuning-file "$C" --strategy grid --param base_us=2000 >"$T/out" 2>"$T/err" &
pid=$!
wait_for 120 has_records 3 && ok || fail "no measurement records appeared"
kill -INT "$pid"
wait "$pid"
RC=$?
expect_rc 130 "interrupted tune"
expect_in "$T/out" 'interrupted; the measurements so far are in the cache \(rerun to resume\)'
kept=$(records)
[ "$kept" -ge 3 ] && [ "$kept" -lt 64 ] && ok || fail "kept $kept records (3..63 expected)"
expect_eq "$(grep -c '^W	' "$C")" 0 "no winner from an interrupted search"

run_bench tune "${P[@]}" --tuning-file "$C" --strategy grid --param base_us=2000
expect_rc 0 "resumed tune"
expect_in "$T/out" "^tune: $kept of 64 candidates already measured in .*cache\.tsv \(resuming\)$"
expect_in "$T/out" "^  64 of 64 candidates tried \($((64 - kept)) measured now\)"
expect_in "$T/out" 'winner tx=5 ty=3 '
expect_eq "$(records)" 64 "every candidate recorded once"
finish
