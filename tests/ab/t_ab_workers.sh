#!/bin/bash
# bench ab's workers hold only their own descriptors (issue 40, finding 6):
# a NEW build that writes a protocol command ("V") and a forged result on
# every descriptor 3..1023 it holds cannot end OLD's worker or forge OLD's
# output: OLD stays OK, the verdict is no FIXED or CRASH. And `bench ab X X`
# says in one line that both sides are one folder (the verdict of a folder
# against itself measures nothing but noise).
. "$(dirname "$0")/lib.sh"

# Several seeds: the side started first differs from pair to pair and seed
# to seed, and a NEW started after OLD is the one that inherited OLD's
# channel (six pairs each at least).
for seed in 1 2 3; do
  rm -rf "$T/results"
  ab "$AB/base" "$AB/fds" --plugin ab_spin --seed "$seed" --fail-on none
  expect_rc 0 "seed $seed: exit status"
  expect_not_in "$T/out" 'FIXED|CRASH|forged' "seed $seed: the table"
  old=$(ls "$T"/results/*_ab_spin_ab_old.json 2>/dev/null)
  new=$(ls "$T"/results/*_ab_spin_ab_new.json 2>/dev/null)
  expect_nonempty "seed $seed: result files" $old $new
  if [ -n "$old" ] && [ -n "$new" ]; then
    [ "$(json_case "$old" 'c["status"]')" = OK ] && ok || fail "seed $seed: OLD is $(json_case "$old" 'c["status"], c.get("message"), c.get("stderr_tail")')"
    [ "$(json_case "$new" 'c["status"]')" = OK ] && ok || fail "seed $seed: NEW is $(json_case "$new" 'c["status"], c.get("message")')"
    [ "$(json_case "$old" 'c.get("stderr_tail") or ""')" = "" ] && ok || fail "seed $seed: OLD's output has NEW's lines"
  fi
done

# One folder on both sides: one line says so; the run still runs.
rm -rf "$T/results"
ab "$AB/base" "$AB/base/" --plugin ab_spin --fail-on none
expect_rc 0 "X X"
expect_in "$T/err" "warning: OLD and NEW are one folder" "the hint"
[ "$(grep -c 'one folder' "$T/err")" -eq 1 ] && ok || fail "the hint is not one line: $(cat "$T/err")"
ln -s "$AB/base" "$T/alias"
ab "$AB/base" "$T/alias" --plugin ab_spin --fail-on none
expect_in "$T/err" "warning: OLD and NEW are one folder" "the hint through a symbolic link"
ab "$AB/base" "$AB/same" --plugin ab_spin --fail-on none
expect_not_in "$T/err" "one folder" "two folders"
finish
