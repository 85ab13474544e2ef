#!/usr/bin/env bash
# A run's worker holds only its own descriptors (issue 40, finding 6):
# stdin, stdout and stderr, its channel and its watchdog's pipe (0-4),
# whatever the harness holds (its events file, result files) and whatever
# the isolation; a plugin that writes a forged result on every descriptor
# 3..1023 it holds changes nothing of its own results or the next
# plugin's.
. "$(dirname "$0")/lib.sh"
STATE=$BUILD/tests/fixtures/state
cat >"$T/p.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 1
min_samples = 2
max_samples = 3
min_time = 0
max_time = 0.05s
timeout = 60s
INI
# info DIR PLUGIN KEY: the first case's info KEY
info() {
  python3 - "$@" <<'PY'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*_" + sys.argv[2] + "_*.json"):
    print(json.load(open(p))["cases"][0]["info"].get(sys.argv[3], "(none)"))
PY
}
status() {
  python3 - "$@" <<'PY'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*_" + sys.argv[2] + "_*.json"):
    print(" ".join(c["status"] for c in json.load(open(p))["cases"]))
PY
}
for iso in backend plugin case; do
  run_bench --preset "$T/p.ini" --plugin-dir "$STATE" --plugin fx_st_fds,fx_st_z --isolation "$iso" \
    --results-dir "$T/$iso" --events "$T/$iso.events"
  expect_rc 0 "$iso: exit status"
  got=$(info "$T/$iso" fx_st_fds st_fds)
  [ "$got" = "0 1 2 3 4" ] && ok || fail "$iso: the worker holds descriptors '$got', not '0 1 2 3 4'"
  [ "$(status "$T/$iso" fx_st_fds)" = OK ] && ok || fail "$iso: fx_st_fds is $(status "$T/$iso" fx_st_fds)"
  [ "$(status "$T/$iso" fx_st_z)" = OK ] && ok || fail "$iso: the next plugin is $(status "$T/$iso" fx_st_z)"
  expect_not_in "$T/out" 'forged|CRASH' "$iso: the run's lines"
done
finish
