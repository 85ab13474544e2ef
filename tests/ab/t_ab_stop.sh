#!/bin/bash
# Early stopping both ways: a planted 30% slowdown stops early as SLOWER
# (exit 1 under the default --fail-on), an identical rebuild stops early as
# SAME at a 10% threshold (exit 0); both before max_time.
. "$(dirname "$0")/lib.sh"
cat >"$T/stop.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 5
warmup_time = 20ms
min_samples = 5
max_samples = 100000
max_time = 40s
batch_min_time = 1ms
timeout = 30s
INI
PRESET=$T/stop.ini
ab "$AB/base" "$AB/slow" --plugin ab_spin
expect_rc 1 "30% slower: exit 1"
expect_in "$T/out" 'ab_spin n=20000: .* SLOWER .*stopped early' "30% slower stops early as SLOWER"
expect_in "$T/out" '^ab_spin: NEW is [0-9.]+% slower than OLD, 99[0-9.]*% CI' "closing line"
why=$(ab_agrees "$T/out") && ok || fail "the line disagrees with itself: $why"
ab "$AB/base" "$AB/slow" --plugin ab_spin --fail-on none
expect_rc 0 "--fail-on none"
ab "$AB/base" "$AB/same" --plugin ab_spin --threshold 10%
expect_rc 0 "A=A: exit 0"
expect_in "$T/out" 'ab_spin n=20000: .* SAME .*stopped early' "A=A stops early as SAME"
expect_in "$T/out" '^ab_spin: NEW is the same as OLD within 10%, 99[0-9.]*% CI from ' "SAME in words, not 'NEW is X% faster'"
why=$(ab_agrees "$T/out") && ok || fail "the line disagrees with itself: $why"
finish
