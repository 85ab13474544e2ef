#!/usr/bin/env bash
# One worker per backend (issue 23): by default the selected plugins of one
# backend run in one worker process, one after the other; isolation = plugin
# gives each its own. A crash or hang in one plugin's case costs that case:
# a fresh worker goes on, and the next plugin of the backend runs all its
# cases, in every mode.
. "$(dirname "$0")/lib.sh"
FX_PROC=${FX_PROC:-$FX_GOOD/../proc}
P="$T/p.ini"
cat "$SRC/tests/cli/presets/workers.ini" >"$P"
printf '\n[fx_pida]\nn = 1,2,3\n\n[fx_pidb]\nn = 1,2\n' >>"$P"

# pids RESULTS: the "pid" info of every case, per plugin, as "plugin:pid ..."
pids() {
  python3 - "$1" <<'PY'
import glob, json, sys
out = []
for p in sorted(glob.glob(sys.argv[1] + "/*.json")):
    for c in json.load(open(p))["cases"]:
        out.append("%s:%s" % (c["plugin"], c["info"].get("pid", "-")))
print(" ".join(out))
PY
}
distinct() { tr ' ' '\n' | sed '/^$/d; s/.*://' | sort -u | wc -l; }

run_bench --preset "$P" --plugin-dir "$FX_PROC" --plugin fx_pida,fx_pidb --results-dir "$T/d"
expect_rc 0 "two plugins of one backend"
got=$(pids "$T/d")
expect_eq "$(echo "$got" | wc -w)" 5 "cases run ($got)"
expect_eq "$(echo "$got" | distinct)" 1 "one worker for the backend by default ($got)"
run_bench --preset "$P" --plugin-dir "$FX_PROC" --plugin fx_pida,fx_pidb --results-dir "$T/p" --isolation plugin
expect_rc 0 "isolation plugin"
got=$(pids "$T/p")
expect_eq "$(echo "$got" | distinct)" 2 "one worker per plugin ($got)"
run_bench --preset "$P" --plugin-dir "$FX_PROC" --plugin fx_pida,fx_pidb --results-dir "$T/c" --isolation case
expect_rc 0 "isolation case"
got=$(pids "$T/c")
expect_eq "$(echo "$got" | distinct)" 5 "one process per case ($got)"
printf '[run]\nisolation = backend\n' >"$T/b.ini"
run_bench --preset "$T/b.ini" --plugin-dir "$FX_PROC" --plugin fx_pida --results-dir "$T/k"
expect_rc 0 "isolation = backend is a key of [run]"

# Crash and hang mid-backend: fx_midcrash's and fx_midhang's second cases,
# then fx_pida (same backend, next in the worker) runs all its cases.
statuses() { # DIR PLUGIN N...: the statuses in case order
  local d=$1 p=$2 n
  shift 2
  for n in "$@"; do printf '%s ' "$(csv_field "$d/rollup.csv" "$p" "n=$n" status)"; done
}
for iso in backend plugin case; do
  run_bench --preset "$P" --plugin-dir "$FX_PROC" --plugin fx_midcrash,fx_midhang,fx_pida \
    --results-dir "$T/m_$iso" --isolation "$iso" --events "$T/ev_$iso.jsonl"
  expect_rc 1 "crash and hang mid-backend ($iso)"
  expect_eq "$(statuses "$T/m_$iso" fx_midcrash 1 2 3 4)" "OK CRASH OK OK " "fx_midcrash ($iso)"
  expect_eq "$(statuses "$T/m_$iso" fx_midhang 1 2 3 4)" "OK TIMEOUT OK OK " "fx_midhang ($iso)"
  expect_eq "$(statuses "$T/m_$iso" fx_pida 1 2 3)" "OK OK OK " "fx_pida after them ($iso)"
  expect_in "$T/out" '11 of 11 cases run'
  expect_eq "$(grep -c '"TEST_START"' "$T/ev_$iso.jsonl")" 11 "one TEST_START per case ($iso)"
  expect_eq "$(grep -c '"TEST_END"' "$T/ev_$iso.jsonl")" 11 "one TEST_END per case ($iso)"
done
# In the backend's worker the cases after the hang share one process again.
got=$(pids "$T/m_backend" | tr ' ' '\n' | grep '^fx_pida:' | tr '\n' ' ')
expect_eq "$(echo "$got" | distinct)" 1 "fx_pida in one worker after the hang ($got)"
finish
