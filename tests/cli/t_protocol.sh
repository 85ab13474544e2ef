#!/usr/bin/env bash
# The worker protocol under hostile plugins (issue 28): a finished case is on
# disk before the worker starts the next; the parent reads results only from
# its own channel; a setsid() grandchild dies with a SIGKILLed bench. Every
# check runs in each isolation mode.
. "$(dirname "$0")/lib.sh"
FX_PROC=${FX_PROC:-$FX_GOOD/../proc}
P="$T/p.ini"
sed -e '/^\[fx_mid/,$d' "$SRC/tests/cli/presets/workers.ini" >"$P"
printf '[fx_killparent]\nn = 1,2,3\n\n[fx_forge]\nn = 1,2,3\n' >>"$P"
sed 's/^timeout = .*/timeout = 120s/' "$P" >"$T/long.ini" # the hang outlives the test

# field FILE N COLUMN: a column of fx_*'s row for n=N in a rollup.
field() { csv_field "$1" "$2" "n=$3" "$4"; }
alive() {
  local st
  st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ]
}
dead() { ! alive "$1"; }
MODES="backend plugin case"

for iso in $MODES; do
  # 1. The plugin SIGKILLs bench in its second case: the first case, done
  # before, is in the result file.
  run_bench --preset "$P" --plugin-dir "$FX_PROC" --plugin fx_killparent --results-dir "$T/k_$iso" \
    --isolation "$iso"
  expect_rc 137 "bench killed by its plugin ($iso)"
  files=$(ls "$T/k_$iso"/*.json 2>/dev/null)
  expect_nonempty "result files after bench was killed ($iso)" $files
  "$BENCH" rollup --results-dir "$T/k_$iso" >"$T/out" 2>"$T/err"
  expect_eq "$(field "$T/k_$iso/rollup.csv" fx_killparent 1 status)" OK "first case kept ($iso)"

  # 2. Forged result lines and partial lines on fds 3-19 in case n=2: every
  # case is read, the forgery is at most in that case's output tail, and the
  # events file (an fd of bench's) is untouched.
  run_bench --preset "$P" --plugin-dir "$FX_PROC" --plugin fx_forge --results-dir "$T/f_$iso" \
    --isolation "$iso" --events "$T/ev_$iso.jsonl"
  expect_rc 0 "forged lines ($iso)"
  for n in 1 2 3; do
    expect_eq "$(field "$T/f_$iso/rollup.csv" fx_forge $n status)" OK "fx_forge n=$n ($iso)"
  done
  python3 - "$T/f_$iso"/*_fx_forge_p.json <<'PY' && ok || fail "forged text outside case n=2's tail ($iso)"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert [c["status"] for c in cases] == ["OK"] * 3, cases
for c in cases:
    tail = c.get("stderr_tail") or ""
    if c["params"]["n"] != "2":
        assert "forged" not in tail and "worker done" not in tail, c
    assert "forged" not in (c.get("message") or ""), c
PY
  python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/ev_$iso.jsonl" && ok ||
    fail "events file holds foreign lines ($iso)"

  # 3. bench SIGKILLed while a case's setsid() grandchild lives: the
  # grandchild goes too.
  rm -f "$T/gc.pid"
  FX_PIDFILE="$T/gc.pid" "$BENCH" --preset "$T/long.ini" --plugin-dir "$FX_PROC" --plugin fx_setsidhang \
    --results-dir "$T/g_$iso" --isolation "$iso" >"$T/out" 2>"$T/err" &
  bpid=$!
  wait_for 60 test -s "$T/gc.pid" && ok || fail "fx_setsidhang wrote no pid ($iso)"
  gc=$(cat "$T/gc.pid" 2>/dev/null)
  kill -KILL "$bpid"
  wait "$bpid" 2>/dev/null
  if [ -n "$gc" ]; then
    if wait_for 30 dead "$gc"; then ok; else fail "grandchild $gc outlived bench ($iso)"; kill -9 "$gc"; fi
  fi
done
finish
