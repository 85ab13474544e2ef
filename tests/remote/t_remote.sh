#!/usr/bin/env bash
# run_presets_remote.sh end to end against a real sshd on 127.0.0.1 (this
# machine plays the remote, in a folder of the test's own): sync, one remote
# build, the smoke preset, fetch, local rollup; --resume with nothing left; a
# connection dropped mid-run (sshd and its connections killed while fx_hang
# runs, the remote bench held meanwhile) and --resume after it (a failed
# result is run again, the rollup counts each case once); two sessions
# against one tree; Ctrl-C in a run and in the build; REMOTE_TAG, REMOTE_SETUP
# and tools missing on the remote; names, tags and paths with spaces and
# shell metacharacters; refused REMOTE_PATHs.
# shellcheck disable=SC2015,SC2012 # `test && ok || fail` (ok never fails); ls of our own names
# shellcheck source=tests/cli/lib.sh
. "$SRC/tests/cli/lib.sh"
# shellcheck source=tests/remote/sshd.sh
. "$(dirname "$0")/sshd.sh"
for tool in "$SSHD_BIN" ssh ssh-keygen rsync; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup-debian.sh test)"; exit 77; }
done
FROZEN='' # a remote bench stopped by freeze_remote, continued at the latest here
trap '[ -z "$FROZEN" ] || kill -CONT $FROZEN 2>/dev/null; sshd_stop; rm -rf "$T"' EXIT
SCRIPT=$SRC/scripts/run_presets_remote.sh
R=$T/results
RP="$T/remote tree it's (x)" # no '&' (make misreads it in dependency files): see part 4
export BENCH # the local bench for the rollup and the summary

sshd_start || { fail "sshd did not start"; finish; exit; }
# One remote build, of what the test runs only: bench and cpu_gemm (the
# fixtures come from this build, --plugin-dir $FX_GOOD: the "remote" is here).
build_options="-DBENCH_TESTS=OFF -DBENCH_HIP=OFF"
[ "${BENCH_SANITIZE:-OFF}" != ON ] || build_options+=" -DBENCH_SANITIZE=ON" # the fixtures are sanitized too
cat >"$T/remote.conf" <<EOF
# written by t_remote.sh
REMOTE_HOST=127.0.0.1
REMOTE_PATH="$RP"
REMOTE_TAG=loopback
SSH_OPTIONS=$SSH_OPTIONS
BUILD_OPTIONS=$build_options
BUILD_JOBS=2
BUILD_TARGETS=bench cpu_gemm
EOF

# run_remote ARG...: the script with the test's configuration; output in $T/out.
run_remote() {
  "$SCRIPT" --config "$T/remote.conf" --results-dir "$R" "$@" >"$T/out" 2>&1 </dev/null
  RC=$?
}
show_out() { echo "--- output:"; tail -n 60 "$T/out"; }
# in_logs DIR PATTERN: a log under DIR/logs has PATTERN (the run as streamed here).
in_logs() { grep -qsE -- "$2" "$1"/logs/*.log; }
# wait_log DIR PATTERN: wait (120 s at most) until a log under DIR/logs has PATTERN.
wait_log() { wait_for 120 in_logs "$@"; }
# remote_run_with PATTERN: the folder of the run on the remote side whose own
# log (not the copy streamed here) has PATTERN; fails when there is none.
remote_run_with() {
  local d
  for d in "$RP"/.bench-remote/runs/*/; do
    grep -qsE -- "$1" "$d/log" && [ -s "$d/bench.pid" ] && { echo "${d%/}"; return 0; }
  done
  return 1
}
HANG_RUNS='"event":"HEARTBEAT".*"plugin":"fx_hang"'
# freeze_remote: wait until fx_hang runs on the remote side (its heartbeat in
# the remote run's log and in the log streamed here), then stop that remote
# bench (SIGSTOP): its watchdog cannot end fx_hang, nor the run end, until
# thaw_remote, so the test acts while fx_hang runs, however loaded the
# machine. DIR: the results folder of the session following the run.
freeze_remote() {
  local run
  wait_for 120 remote_run_with "$HANG_RUNS" >/dev/null || { fail "$2: fx_hang did not start on the remote"; return 1; }
  wait_log "$1" "$HANG_RUNS" || { fail "$2: fx_hang's start was not streamed here"; return 1; }
  run=$(remote_run_with "$HANG_RUNS")
  FROZEN=$(cat "$run/bench.pid")
  kill -STOP "$FROZEN" && ok || fail "$2: could not stop the remote bench"
}
thaw_remote() {
  [ -z "$FROZEN" ] || kill -CONT "$FROZEN" 2>/dev/null
  FROZEN=''
}

# No half-written file in the results folder: no temporary or hidden file
# or folder, every .json whole, every .txt beside its .json.
expect_clean_results() {
  local odd
  odd=$(find "$R" -name '.*' -o -name '*.tmp*' -o -name '*.part*')
  if [ -n "$odd" ]; then fail "$1: temporary files left in results: $odd"; else ok; fi
  python3 - "$R" <<'PY' && ok || fail "$1: a result file is not whole"
import glob, json, os, sys
for p in glob.glob(os.path.join(sys.argv[1], "*.json")):
    json.load(open(p))
for p in glob.glob(os.path.join(sys.argv[1], "*_*.txt")):
    if os.path.basename(p).startswith("diag_"):
        continue
    assert os.path.exists(p[:-4] + ".json"), p
PY
}

# --- 1. smoke end to end ------------------------------------------------------
start=$(date +%s%N)
run_remote 127.0.0.1 smoke cpu_gemm,fx_ok,fx_skip -- --plugin-dir "$FX_GOOD"
echo "remote smoke run (sync, build, run, fetch, rollup): $((($(date +%s%N) - start) / 1000000)) ms"
expect_rc 0 "smoke run"
[ "$RC" -eq 0 ] || show_out
for p in cpu_gemm fx_ok fx_skip; do
  for ext in json txt; do
    [ -f "$R/${TODAY}_${p}_smoke_loopback.$ext" ] && ok || fail "missing $R/${TODAY}_${p}_smoke_loopback.$ext"
  done
done
python3 - "$R" "$TODAY" <<'PY' && ok || fail "rows of the fetched results and the rollup"
import csv, json, sys
r, today = sys.argv[1:3]
rows = list(csv.DictReader(open(f"{r}/rollup.csv", newline="")))
assert rows, "empty rollup"
assert all(row["tag"] == "loopback" for row in rows), [row["tag"] for row in rows]
by = {}
for row in rows:
    by.setdefault(row["plugin"], []).append(row)
assert by["fx_ok"][0]["status"] == "OK" and by["fx_ok"][0]["source"] == f"{today}_fx_ok_smoke_loopback.json"
assert by["fx_skip"][0]["status"] == "SKIPPED"
assert len(by["cpu_gemm"]) >= 2 and all(x["status"] == "OK" for x in by["cpu_gemm"])
assert all(x["preset"] == "smoke" for x in rows)
PY
grep -q '"tag": "loopback"' "$R/${TODAY}_fx_ok_smoke_loopback.json" && ok || fail "no tag in the fetched JSON"
expect_not_in "$T/out" '"event"' "JSON events on the terminal"
expect_in "$T/out" '^\[ *[0-9]+/[0-9]+\] fx_ok' "streamed case lines"
expect_in "$T/out" '^PROGRESS: ' "streamed PROGRESS lines"
expect_in "$T/out" 'fx_ok +n=8 +OK' "summary table"
log=$(ls "$R"/logs/*_smoke_loopback.log 2>/dev/null | head -n 1)
[ -n "$log" ] && expect_in "$log" '^\{"event":"SUITE_END"' "local log" || fail "no local log"
[ -n "$log" ] && expect_in "$log" '^\{"event":"TEST_END".*"plugin":"fx_ok"' "events in the local log"
[ -f "$RP/CMakeLists.txt" ] && [ -x "$RP/build/bin/bench" ] && ok || fail "no synced tree and build at the remote path"
[ ! -e "$RP/.git" ] && [ ! -e "$RP/results" ] && ok || fail ".git or results/ synced"
[ -z "$(ls -A "$RP/.bench-remote/runs")" ] && ok || fail "remote run folder not cleaned"
expect_clean_results "smoke"

# --- 2. again with --resume: only changed files sent, the remote build
# folder reused, and nothing runs since everything is home -------------------
before=$(ls "$R"/*.json | wc -l)
run_remote --resume --rsync-option=--itemize-changes 127.0.0.1 smoke cpu_gemm,fx_ok,fx_skip -- --plugin-dir "$FX_GOOD"
expect_rc 0 "resume with nothing missing"
sent=$(grep -c '^<f' "$T/out")
# (others may be editing the tree meanwhile: a few files may really change)
[ "$sent" -lt 20 ] && ok || fail "the second sync sent $sent files"
build_log=$(ls -t "$R"/logs/*_build_loopback*.log | head -n 1)
expect_not_in "$build_log" 'The C compiler identification' "the second build configured from scratch"
expect_eq "$(ls "$R"/*.json | wc -l)" "$before" "result files after an idle resume"
expect_in "$T/out" 'already home' "resume says why nothing ran"
expect_not_in "$T/out" '"event":"SUITE_START"' "resume ran nothing"

# --- 3. the connection drops mid-run; --resume collects and completes ---------
mkdir -p "$T/p"
for p in dropa:4s dropb:1s; do
  printf '[run]\ntier = smoke\nwarmup_iters = 1\nmin_samples = 3\nmax_samples = 5\nmax_time = 0.2s\ntarget_noise = 50%%\ntimeout = %s\nheartbeat = 0.2s\n' \
    "${p#*:}" >"$T/p/${p%%:*}.ini"
done
"$SCRIPT" --config "$T/remote.conf" --results-dir "$R" --no-build 127.0.0.1 "$T/p/dropa.ini,$T/p/dropb.ini" fx_hang,fx_ok \
  -- --plugin-dir "$FX_GOOD" >"$T/drop.out" 2>&1 </dev/null &
spid=$!
freeze_remote "$R" "drop"
conns=$(sshd_connections)
expect_nonempty "ssh connections to cut" $conns
sshd_stop # the link drops while fx_hang runs: no new connection, the established one cut
wait "$spid"
RC=$?
thaw_remote # the remote run goes on by itself: fx_hang times out, fx_ok runs
expect_rc 3 "dropped connection"
[ "$RC" -eq 3 ] || { echo "--- drop output"; tail -n 40 "$T/drop.out"; }
diag=$(ls "$R"/diag_*dropa*.txt 2>/dev/null | head -n 1)
if [ -n "$diag" ]; then
  ok
  expect_in "$diag" 'connection to 127\.0\.0\.1 was lost' "diag says what happened"
  expect_in "$diag" 'TEST_START.*fx_hang' "diag holds the log's tail"
  expect_in "$diag" '^== what ssh and the remote said' "diag has a section for ssh's words"
  expect_in "$diag" '(Connection refused|closed|Broken pipe|Connection reset)' "diag holds the ssh error"
else
  fail "no diag file for the dropped run"
fi
ls "$R"/"${TODAY}"_*_drop* >/dev/null 2>&1 && fail "results of the dropped run in the results folder" || ok
expect_clean_results "after the drop"

sshd_start || fail "sshd did not restart"
run_remote --resume --no-build 127.0.0.1 "$T/p/dropa.ini,$T/p/dropb.ini" fx_hang,fx_ok -- --plugin-dir "$FX_GOOD"
expect_rc 1 "resume after the drop (fx_hang times out)"
expect_in "$T/out" 'collecting run .*dropa' "the earlier run is collected"
# dropa's fx_ok is home; its fx_hang timed out, so it is not done: it runs again.
expect_in "$T/out" 'dropa\.ini: skipping fx_ok:' "dropa's fx_ok is not run again"
runs=$(grep -c '^==> .* on 127\.0\.0\.1: bench --preset' "$T/out")
expect_eq "$runs" 2 "runs started by the resume"
expect_in "$T/out" '^==> .*dropa\.ini on 127\.0\.0\.1: bench --preset .*--plugin fx_hang --tag' "the timed-out plugin runs again"
expect_in "$T/out" '^==> .*dropb\.ini on 127\.0\.0\.1: bench --preset' "the missing preset runs"
for pr in dropa dropb; do
  for p in fx_hang fx_ok; do
    [ -f "$R/${TODAY}_${p}_${pr}_loopback.json" ] && ok || fail "missing ${p} ${pr} after the resume"
  done
done
[ -f "$R/${TODAY}_fx_hang_dropa_loopback.2.json" ] && ok || fail "fx_hang dropa did not run again"
for f in fx_ok_dropa fx_ok_dropb fx_hang_dropb; do
  [ ! -e "$R/${TODAY}_${f}_loopback.2.json" ] && ok || fail "${f} ran twice"
done
expect_eq "$(csv_field "$R/rollup.csv" fx_hang n=8 status)" TIMEOUT "fx_hang row"
python3 - "$R/rollup.csv" <<'PY' && ok || fail "rollup rows of both drop presets, each case once"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
got = sorted((r["preset"], r["plugin"], r["status"]) for r in rows if r["preset"].startswith("drop"))
assert got == [("dropa", "fx_hang", "TIMEOUT"), ("dropa", "fx_ok", "OK"),
               ("dropb", "fx_hang", "TIMEOUT"), ("dropb", "fx_ok", "OK")], got
PY
ls "$R"/diag_*dropb*.txt >/dev/null 2>&1 && ok || fail "no diag for the failed case"
expect_in "$(ls "$R"/diag_*dropb*.txt | head -n 1)" '^== free -h' "diag from the remote"
expect_clean_results "after the resume"
[ -z "$(ls -A "$RP/.bench-remote/runs")" ] && ok || fail "remote run folders left"

# --- 3b. Ctrl-C (to the whole process group) stops the remote run; what it
# measured comes home. (A timeout that a loaded machine cannot reach before
# the Ctrl-C: fx_hang is interrupted, never timed out.)
sed 's/^timeout = .*/timeout = 120s/' "$T/p/dropa.ini" >"$T/p/hang.ini"
set -m # a job of its own: its own process group, SIGINT not ignored
"$SCRIPT" --config "$T/remote.conf" --results-dir "$T/r4" --no-build --no-sync 127.0.0.1 "$T/p/hang.ini" \
  fx_hang,fx_ok -- --plugin-dir "$FX_GOOD" >"$T/int.out" 2>&1 </dev/null &
spid=$!
set +m
wait_log "$T/r4" "$HANG_RUNS" && ok || fail "Ctrl-C: the slow case did not start"
kill -INT -- -"$spid"
wait "$spid"
RC=$?
expect_rc 130 "Ctrl-C"
[ "$RC" -eq 130 ] || { echo "--- Ctrl-C output"; tail -n 30 "$T/int.out"; }
expect_eq "$(csv_field "$T/r4/rollup.csv" fx_hang n=8 status)" INTERRUPTED "the interrupted case came home"
expect_in "$T/int.out" 'stopping the remote run' "Ctrl-C stops the remote run"
[ -z "$(ls -A "$RP/.bench-remote/runs")" ] && ok || fail "remote run folder left after Ctrl-C"

# --- 3c. two sessions against one tree: the second collects the run the
# first is following; each result comes home once.
"$SCRIPT" --config "$T/remote.conf" --results-dir "$T/r5" --no-build --no-sync 127.0.0.1 "$T/p/dropa.ini" \
  fx_hang,fx_ok -- --plugin-dir "$FX_GOOD" >"$T/a.out" 2>&1 </dev/null &
apid=$!
# A's run held while fx_hang runs, until B has found it going
freeze_remote "$T/r5" "session A"
"$SCRIPT" --config "$T/remote.conf" --results-dir "$T/r5" --no-build --no-sync 127.0.0.1 "$T/p/dropb.ini" \
  fx_ok -- --plugin-dir "$FX_GOOD" >"$T/b.out" 2>&1 </dev/null &
bpid=$!
wait_for 120 grep -q 'collecting run ' "$T/b.out" || fail "session B did not find A's run"
thaw_remote
wait "$bpid"
brc=$?
wait "$apid"
arc=$?
expect_eq "$arc" 1 "session A (fx_hang times out)"
expect_eq "$brc" 1 "session B (it collected A's run, whose fx_hang timed out)"
expect_in "$T/b.out" 'collecting run .*dropa' "session B collects the run going"
for f in fx_hang_dropa fx_ok_dropa fx_ok_dropb; do
  [ -f "$T/r5/${TODAY}_${f}_loopback.json" ] && ok || fail "two sessions: ${f} missing"
done
# (diag files are per session: both may write one for the failed run)
dups=$(ls "$T/r5" | grep -v '^diag_' | grep -E '\.[0-9]+\.(json|txt)$' || true)
[ -z "$dups" ] && ok || { fail "two sessions fetched a run twice: $dups"; tail -n 20 "$T/a.out" "$T/b.out"; }
expect_eq "$(grep -c '^fx_' <(python3 -c 'import csv,sys; [print(r["plugin"]) for r in csv.DictReader(open(sys.argv[1]))]' "$T/r5/rollup.csv"))" 3 "rollup rows after two sessions"
[ -z "$(ls -A "$RP/.bench-remote/runs")" ] && ok || fail "remote run folders left after two sessions"

# --- 3d. Ctrl-C during the build is an interruption (130), not a lost link.
set -m
"$SCRIPT" --config "$T/remote.conf" --results-dir "$T/r6" --remote-path "$T/rp-build" 127.0.0.1 smoke fx_ok \
  -- --plugin-dir "$FX_GOOD" >"$T/build-int.out" 2>&1 </dev/null &
spid=$!
set +m
# the remote cmake has begun: its first lines are in the build log here
wait_log "$T/r6" '^-- ' && ok || fail "Ctrl-C during the build: the build did not start"
kill -INT -- -"$spid"
wait "$spid"
RC=$?
expect_eq "$RC" 130 "Ctrl-C during the build"
expect_not_in "$T/build-int.out" 'connection to .* was lost' "Ctrl-C during the build taken for a lost link"
expect_in "$T/build-int.out" 'interrupted during the build' "the summary says the build was interrupted"
# The remote build sees its connection gone and stops: wait until no process
# works in that tree any more.
procs_in() { find /proc -mindepth 2 -maxdepth 2 -name cwd -lname "$1*" 2>/dev/null; }
build_gone() { [ -z "$(procs_in "$T/rp-build")" ]; }
wait_for 120 build_gone && ok || fail "the remote build went on after Ctrl-C: $(procs_in "$T/rp-build")"

# --- 3e. REMOTE_TAG tags REMOTE_HOST only; REMOTE_SETUP runs first on the
# remote; missing remote tools are named before anything is synced.
sed -e 's/^REMOTE_HOST=.*/REMOTE_HOST=other-node/' -e 's/^REMOTE_TAG=.*/REMOTE_TAG=mi300x/' "$T/remote.conf" >"$T/other.conf"
"$SCRIPT" --config "$T/other.conf" --results-dir "$T/r7" --no-build --no-sync 127.0.0.1 "$T/p/dropb.ini" fx_ok \
  -- --plugin-dir "$FX_GOOD" >"$T/out" 2>&1 </dev/null
RC=$?
expect_rc 0 "a host other than REMOTE_HOST"
[ -f "$T/r7/${TODAY}_fx_ok_dropb_127.0.0.1.json" ] && ok || fail "another host is not tagged with its own name"
ls "$T/r7" | grep -q mi300x && fail "REMOTE_TAG of another host used" || ok
grep -v '^REMOTE_HOST=' "$T/remote.conf" >"$T/notag.conf"
"$SCRIPT" --config "$T/notag.conf" --results-dir "$T/r7" --no-build --no-sync 127.0.0.1 smoke fx_ok >"$T/out" 2>&1 </dev/null
RC=$?
expect_rc 2 "REMOTE_TAG without REMOTE_HOST"
expect_in "$T/out" 'notag\.conf:[0-9]+: REMOTE_TAG is the tag of REMOTE_HOST' "REMOTE_TAG without REMOTE_HOST refused with file:line"
run_remote --no-build --no-sync 127.0.0.1 "$T/p/dropb.ini" fx_ok
expect_rc 2 "fx_ok without its plugin folder on the remote"
run_remote --no-build --no-sync --remote-setup "export BENCH_PLUGIN_PATH=$(printf '%q' "$FX_GOOD")" 127.0.0.1 "$T/p/dropb.ini" fx_ok
expect_rc 0 "REMOTE_SETUP sets the remote environment"
[ "$RC" -eq 0 ] || show_out
mkdir -p "$T/fakebin"
for f in /usr/bin/* /bin/*; do
  case ${f##*/} in cmake | rsync) continue ;; esac
  [ -e "$T/fakebin/${f##*/}" ] || ln -s "$f" "$T/fakebin/${f##*/}"
done
run_remote --remote-path "$T/rp-tools" --remote-setup "PATH=$(printf '%q' "$T/fakebin")" 127.0.0.1 smoke fx_ok
expect_rc 2 "tools missing on the remote"
expect_in "$T/out" 'missing on .*: rsync cmake' "the missing tools are named"
[ ! -e "$T/rp-tools/CMakeLists.txt" ] && ok || fail "the tree was synced before the tools were checked"

# --- 4. names with spaces and metacharacters run nothing -----------------------
cd "$T" || exit 1
nasty_preset="$T/p/q'uote \$(touch pwned-preset) \`touch pwned-bt\` ; touch pwned-semi \"dq\".ini"
cp "$T/p/dropb.ini" "$nasty_preset"
nasty_tag="t \$(touch $T/pwned-tag) \`touch $T/pwned-tag2\`; touch $T/pwned-tag3 'q\" &"
run_remote --no-build --tag "$nasty_tag" 127.0.0.1 "$nasty_preset" fx_ok -- --plugin-dir "$FX_GOOD"
expect_rc 0 "a run with a nasty preset file name and tag"
[ "$RC" -eq 0 ] || show_out
python3 - "$R" "$TODAY" "$nasty_tag" "$nasty_preset" <<'PY' && ok || fail "nasty names in file names and rows"
import csv, os, re, sys
r, today, tag, preset = sys.argv[1:5]
safe = lambda s: re.sub(rb"[^A-Za-z0-9._+-]", b"-", s.encode()).decode()
name = os.path.basename(preset)[:-4]
path = f"{r}/{today}_fx_ok_{safe(name)}_{safe(tag)}.json"
assert os.path.exists(path), (path, os.listdir(r))
rows = [x for x in csv.DictReader(open(f"{r}/rollup.csv", newline="")) if x["tag"] == tag]
assert len(rows) == 1 and rows[0]["preset"] == name and rows[0]["status"] == "OK", rows
PY
run_remote --no-build 127.0.0.1 smoke "fx_ok\$(touch pwned-plugin);touch pwned-plugin2 \`touch pwned-plugin3\` 'q" -- --plugin-dir "$FX_GOOD"
expect_rc 2 "a plugin name that matches nothing"
grep -Fq "no plugin named 'fx_ok\$(touch pwned-plugin);touch pwned-plugin2 \`touch pwned-plugin3\` 'q'" "$T/out" && ok ||
  { fail "the plugin name did not reach bench whole"; show_out; }
bad_path="$T/bad \$(touch $T/pwned-path) \`touch $T/pwned-path2\` ; touch $T/pwned-path3 \"dq\" 'sq'"
run_remote --no-build --remote-path "$bad_path" 127.0.0.1 smoke fx_ok
expect_rc 2 "a remote path without a build"
[ -f "$bad_path/CMakeLists.txt" ] && ok || fail "the tree did not land at the literal remote path"
expect_in "$T/out" 'no build/bin/bench' "the start is refused for want of a build"
pwned=$(find "$T" "$RP" "${HOME:-$T}" "$SRC" "$(pwd)" -maxdepth 4 -type f -name 'pwned*' 2>/dev/null)
if [ -n "$pwned" ]; then fail "a name ran a command: $pwned"; else ok; fi

# --- 5. REMOTE_PATH refusals ---------------------------------------------------
for bad in / '' '~' '//'; do
  run_remote --no-build --remote-path "$bad" 127.0.0.1 smoke fx_ok
  expect_rc 2 "REMOTE_PATH '$bad'"
  expect_in "$T/out" 'refusing REMOTE_PATH' "REMOTE_PATH '$bad' refused"
done
mkdir -p "$T/foreign"
echo keep >"$T/foreign/precious"
run_remote --no-build --remote-path "$T/foreign" 127.0.0.1 smoke fx_ok
expect_rc 2 "a foreign folder as REMOTE_PATH"
expect_in "$T/out" 'not made by run_presets_remote' "a foreign folder is refused"
[ "$(cat "$T/foreign/precious")" = keep ] && [ "$(ls -A "$T/foreign")" = precious ] && ok || fail "a foreign folder was touched"
run_remote --no-build 127.0.0.1 smoke -- --results-dir x
expect_rc 2 "bench options the script sets"
finish
