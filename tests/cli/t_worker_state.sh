#!/usr/bin/env bash
# isolation = backend is as clean as isolation = plugin for what a plugin
# can change of its process (issue 40, finding 7). fx_st_a changes, in init
# and setup, the working directory, umask, environment, signal mask and
# handlers, a resource limit, the locale, the rounding mode and
# flush-to-zero/denormals-are-zero; fx_st_z, next in the same worker,
# reports what it sees and fails when a denormal result is flushed: it must
# see what it sees alone, in the same worker (the state was restored), with
# one note naming fx_st_a and what it changed. A plugin that leaves a
# thread running (fx_st_t) ends its worker: the next plugin gets a fresh
# one, with a note; threads kept by an object in a bench.process/1 slot
# (fx_st_s: a shared device's) do not. A release callback that crashes at
# the worker's end (fx_st_r) is said in one line naming the slot and its
# plugin (isolation = case: the case's own crash, its tail naming it).
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
umask 022
export HOME=${HOME:-/root}
unset OMP_NUM_THREADS
# facts DIR PLUGIN: the st_* facts of PLUGIN's first case, sorted, one line
facts() {
  python3 - "$@" <<'PY'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*_" + sys.argv[2] + "_*.json"):
    info = json.load(open(p))["cases"][0]["info"]
    print(" ".join(k + "=" + v for k, v in sorted(info.items()) if k.startswith("st_")))
PY
}
# field DIR PLUGIN EXPR: a python expression over c, the first case
field() {
  python3 - "$@" <<'PY'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*_" + sys.argv[2] + "_*.json"):
    c = json.load(open(p))["cases"][0]
    print(eval(sys.argv[3]))
PY
}
pl() { run_bench --preset "$T/p.ini" --plugin-dir "$STATE" --results-dir "$T/$1" --plugin "$2" "${@:3}"; }

pl alone fx_st_z --isolation plugin
expect_rc 0 "the probe alone"
clean=$(facts "$T/alone" fx_st_z)
expect_nonempty "the probe's facts" $clean
case $clean in *st_umask=0022*st_usr1_blocked=0*) ok ;; *) fail "the probe alone does not see a clean state: $clean" ;; esac

# every change restored, in the same worker
pl a fx_st_a,fx_st_z --isolation backend
got=$(facts "$T/a" fx_st_z)
[ "$got" = "$clean" ] && ok || fail "after fx_st_a the probe sees: $got
alone it sees:                 $clean"
[ "$(field "$T/a" fx_st_z 'c["status"]')" = OK ] && ok || fail "the probe after fx_st_a: $(field "$T/a" fx_st_z 'c["status"], c.get("message")')"
[ "$(field "$T/a" fx_st_a 'c["info"]["pid"]')" = "$(field "$T/a" fx_st_z 'c["info"]["pid"]')" ] && ok ||
  fail "fx_st_a and the probe did not share a worker (restored, not restarted)"
expect_in "$T/err" "^bench: note: plugin fx_st_a changed its worker's process state: .*restored for the next plugin$" "the note"
for what in "working directory /" "umask 0000 \(was 0022\)" "HOME unset" "OMP_NUM_THREADS set" "signal mask" \
  "SIGUSR2" "SIGTERM" "RLIMIT_NOFILE" "rounding mode upward" "flush-to-zero"; do
  expect_in "$T/err" "fx_st_a changed.*$what" "the note names '$what'"
done
[ "$(grep -c 'bench: note:' "$T/err")" -eq 1 ] && ok || fail "more than one note: $(cat "$T/err")"

# a thread left running: a fresh worker for the next plugin
pl t fx_st_t,fx_st_z --isolation backend
expect_rc 0 "fx_st_t"
[ "$(facts "$T/t" fx_st_z)" = "$clean" ] && ok || fail "after fx_st_t the probe sees: $(facts "$T/t" fx_st_z)"
[ "$(field "$T/t" fx_st_t 'c["info"]["pid"]')" != "$(field "$T/t" fx_st_z 'c["info"]["pid"]')" ] && ok ||
  fail "the plugin after a thread left running shared its worker"
expect_in "$T/err" "^bench: note: plugin fx_st_t left threads in its worker .1 thread left running.: the next plugin runs in a fresh worker" "the thread note"

# threads of a slot's object stay, and so does the worker
pl s fx_st_s,fx_st_z --isolation backend
expect_rc 0 "fx_st_s"
[ "$(field "$T/s" fx_st_s 'c["info"]["pid"]')" = "$(field "$T/s" fx_st_z 'c["info"]["pid"]')" ] && ok ||
  fail "a slot's thread cost the worker"
expect_not_in "$T/err" "note:" "a slot's thread"

# a release callback that crashes at the worker's end: one line
for order in fx_st_r,fx_st_z fx_st_z,fx_st_r; do
  pl "r$order" "$order" --isolation backend
  expect_rc 0 "$order: the cases stand"
  expect_in "$T/err" "^bench: warning: the release callback of bench.process/1 slot 'fx_state.crashing' \(in fx_st_r.so\) (crashed|ended the worker).* at the worker's end" "$order: the line"
  [ "$(grep -c 'release callback' "$T/err")" -eq 1 ] && ok || fail "$order: not one line: $(cat "$T/err")"
done
# (a sanitizer build would bury the line under its own report of the SIGSEGV)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0 pl rcase fx_st_r --isolation case
expect_rc 1 "isolation = case: the crash costs the case"
expect_in "$T/out" "fx_st_r n=1 +CRASH" "isolation = case: CRASH"
expect_in "$T/out" "the release callback of bench.process/1 slot 'fx_state.crashing' \(in fx_st_r.so\) runs" "isolation = case: the tail names it"
finish
