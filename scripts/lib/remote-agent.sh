#!/usr/bin/env bash
# The remote side of scripts/run_presets_remote.sh. Its text travels on every
# ssh command line (`bash -c "$(this file)" bench-remote VERB ROOT ARGS...`,
# each word quoted), so the remote never needs a copy and always runs the
# version the local script expects. ROOT is the remote tree (REMOTE_PATH);
# everything it keeps lives under ROOT/.bench-remote/:
#   tree                  marks a folder this script made (safe to rsync --delete into)
#   runs/ID/              one preset's run, detached from the connection:
#     pid, bench.pid        the wrapper's and bench's process ids
#     log                   bench's events (stdout) and per-case/PROGRESS lines (stderr)
#     results/              bench --results-dir
#     rc                    bench's exit status, written when it has ended
#     presets/              preset files uploaded from the local machine
#   base/SHA/             the --ab-base build of commit SHA, kept for later runs:
#     src/                  the commit's tree (a git archive sent from home)
#     build/                its build folder
#     built                 written last, when the build succeeded: its options
#
# BENCH_REMOTE_SETUP in the environment (the user's REMOTE_SETUP, e.g.
# `module load rocm/6.2; export PATH=...`) is run by this shell before any verb.
#
# Verbs (exit 2 for a refused request, 3 for a missing run):
#   prepare ROOT TOOL...     check that every TOOL is on PATH (else name the missing
#                            ones, exit 2, touch nothing); make/check ROOT; print
#                            "date YYYY-MM-DD", "nproc N" and a line per run left:
#                            "run ID running - LABEL" or "run ID done RC LABEL"
#   upload ROOT REL          write stdin to ROOT/REL (through a temporary name)
#   build ROOT JOBS TARGETS OPT...  cmake -S . -B build OPT...; cmake --build build
#                            -j JOBS [--target TARGETS] (blank-separated; "": all)
#   base-has ROOT SHA KEY    exit 0 when commit SHA was built with options KEY
#                            (base/SHA/built holds KEY), else 1
#   base-build ROOT SHA KEY JOBS TARGETS OPT...  a tar archive of commit SHA
#                            on stdin unpacked into base/SHA/src (replacing
#                            what a failed try left), built into base/SHA/build
#                            as `build`; base/SHA/built (KEY) written on success
#   list ROOT ARG...         names of the plugins bench finds (bench --list --format tsv ARG...)
#   start ROOT ID LABEL ARG...  start `build/bin/bench ARG...` as run ID, detached;
#                            LABEL (the preset as the user named it) is kept with it
#   start-ab ROOT ID LABEL SHA ARG...  start `build/bin/bench ab OLD NEW ARG...`
#                            as run ID, detached: OLD the plugins of base/SHA,
#                            NEW those of build (results tagged old and new)
#   stream ROOT ID OFFSET    the run's log from byte OFFSET, live, until it ends;
#                            exits with bench's status (99: ended without one)
#   stop ROOT ID             Ctrl-C for the run (bench keeps what it measured)
#   diag ROOT ID             dmesg OOM/killed lines, free -h, rocm-smi, log tail
#   diag-log ROOT LOG RC     the same for any log (run_presets_local.sh)
#   has ROOT ID              exit 0 when the run's folder is there, else 3
#   clean ROOT ID            remove the run's folder
set -euo pipefail
verb=${1:?verb}
root=${2:?root}
shift 2

refuse() {
  echo "bench-remote: error: $*" >&2
  exit 2
}

[ -n "${root//\//}" ] || refuse "refusing REMOTE_PATH '$root': empty or the root folder"

if [ -n "${BENCH_REMOTE_SETUP:-}" ]; then
  set +eu
  eval "$BENCH_REMOTE_SETUP"
  setup_rc=$?
  set -eu
  [ "$setup_rc" -eq 0 ] || refuse "REMOTE_SETUP failed with status $setup_rc: $BENCH_REMOTE_SETUP"
fi

run_dir() {
  [[ $1 =~ ^[A-Za-z0-9._-]+$ ]] || refuse "bad run id '$1'"
  printf '%s\n' ".bench-remote/runs/$1"
}

# diag_report LOG STATUS WHAT: what a failed or lost run leaves to look at.
diag_report() {
  echo "== host $(uname -n) at $(date '+%F %T %z'), $3, bench exit status $2"
  echo
  echo "== dmesg: out-of-memory and killed-process lines (last 40)"
  local out
  if out=$(dmesg 2>/dev/null); then
    grep -iE 'out of memory|oom[-_ ]kill|killed process|invoked oom' <<<"$out" | tail -n 40 || echo "(none)"
  else
    echo "(dmesg not readable by $(id -un))"
  fi
  echo
  echo "== free -h"
  free -h 2>&1 || echo "(free not available)"
  echo
  echo "== df -h (the run's folder, the remote tree, /tmp)"
  df -h "$(dirname -- "$1")" . /tmp 2>&1 | awk '!seen[$0]++' || echo "(df not available)"
  echo
  if command -v rocm-smi >/dev/null 2>&1; then
    echo "== rocm-smi"
    timeout 30 rocm-smi 2>&1 || echo "(rocm-smi failed)"
    echo
  fi
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "== nvidia-smi"
    timeout 30 nvidia-smi 2>&1 || echo "(nvidia-smi failed)"
    echo
  fi
  echo "== the run's log, last 80 lines"
  tail -n 80 -- "$1" 2>/dev/null || echo "(no log)"
}

# list_runs: one line per run left in the tree (see `prepare`).
list_runs() {
  local d id label
  for d in .bench-remote/runs/*/; do
    # a folder without a pid never started (a preset upload was cut short)
    [ -f "$d/pid" ] || continue
    id=$(basename -- "$d")
    label=$(head -n 1 "$d/label" 2>/dev/null || true)
    if [ -f "$d/rc" ]; then
      echo "run $id done $(cat "$d/rc") $label"
    elif kill -0 "$(cat "$d/pid")" 2>/dev/null; then
      echo "run $id running - $label"
    else
      echo "run $id done 99 $label"
    fi
  done
}

# base_dir SHA: the folder of the --ab-base build of commit SHA.
base_dir() {
  [[ $1 =~ ^[0-9a-f]{7,64}$ ]] || refuse "bad commit id '$1'"
  printf '%s\n' ".bench-remote/base/$1"
}

# plugin_dir BUILD: the plugin folder of a build (lib/bench/plugins, or
# lib64/... or lib/<multiarch>/... as GNUInstallDirs names it).
plugin_dir() {
  local d
  for d in "$1"/lib/bench/plugins "$1"/lib*/bench/plugins "$1"/lib/*/bench/plugins; do
    [ -d "$d" ] && { printf '%s\n' "$d"; return 0; }
  done
  return 1
}

# start_run ID LABEL EVENTS ARG...: start `build/bin/bench ARG...
# --results-dir RUN/results` as run ID, detached (with `--events -` when
# EVENTS is 1).
start_run() {
  local d label ev other end
  d=$(run_dir "$1")
  label=$2 ev=$3
  shift 3
  for other in .bench-remote/runs/*/; do
    if [ -f "$other/pid" ] && [ ! -f "$other/rc" ] && kill -0 "$(cat "$other/pid")" 2>/dev/null; then
      refuse "another run is still going in this tree: $other (one run at a time per REMOTE_PATH)"
    fi
  done
  [ -x build/bin/bench ] || refuse "no build/bin/bench in '$root' (the build failed or was skipped)"
  mkdir -p -- "$d/results"
  printf '%s\n' "$label" >"$d/label"
  : >"$d/log"
  # The wrapper outlives the connection: its own session, no terminal, all
  # output to files. Ctrl-C reaches bench through `stop` only.
  # shellcheck disable=SC2016 # expanded by the wrapper shell
  setsid -f bash -c '
    d=$1 ev=$2; shift 2
    trap "" INT HUP
    echo $$ >"$d/pid.tmp" && mv -f "$d/pid.tmp" "$d/pid"
    set -- "$@" --results-dir "$d/results"
    [ "$ev" != 1 ] || set -- "$@" --events -
    build/bin/bench "$@" >>"$d/log" 2>&1 </dev/null &
    echo $! >"$d/bench.pid"
    wait $!
    echo $? >"$d/rc.tmp" && mv -f "$d/rc.tmp" "$d/rc"
  ' bench-run "$d" "$ev" "$@" </dev/null >/dev/null 2>&1
  # (the wrapper writes it at once; a loaded machine may take a while)
  end=$((SECONDS + 60))
  while [ ! -s "$d/pid" ] && [ "$SECONDS" -lt "$end" ]; do
    sleep 0.05
  done
  [ -s "$d/pid" ] || refuse "the run did not start"
  echo "started $(cat "$d/pid")"
}

if [ "$verb" = prepare ]; then
  missing=()
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    refuse "missing on $(uname -n): ${missing[*]} (install them, or put them on PATH with REMOTE_SETUP); nothing was synced"
  fi
  mkdir -p -- "$root"
fi
cd -- "$root" 2>/dev/null || {
  echo "bench-remote: error: no remote tree at '$root' (run without --no-sync first)" >&2
  exit 2
}

case $verb in
prepare)
  here=$(pwd -P)
  home=$(cd ~ 2>/dev/null && pwd -P || echo /nonexistent)
  [ "$here" != / ] || refuse "refusing REMOTE_PATH '$root': it is the root folder"
  [ "$here" != "$home" ] || refuse "refusing REMOTE_PATH '$root': it is the home folder; name a folder of its own"
  if [ ! -e .bench-remote/tree ]; then
    if [ -n "$(ls -A)" ]; then
      refuse "refusing REMOTE_PATH '$root': the folder is not empty and was not made by run_presets_remote.sh (no .bench-remote/tree); name a new or empty folder"
    fi
    mkdir -p .bench-remote/runs
    echo "made by bench's scripts/run_presets_remote.sh; the tree here is synced with --delete" >.bench-remote/tree
  fi
  mkdir -p .bench-remote/runs
  echo "date $(date +%F)"
  echo "nproc $(nproc 2>/dev/null || echo 1)"
  list_runs
  ;;

upload)
  rel=${1:?path}
  case /$rel/ in */../*) refuse "bad upload path '$rel'" ;; esac
  mkdir -p -- "$(dirname -- "$rel")"
  cat >"$rel.tmp.$$"
  mv -f -- "$rel.tmp.$$" "$rel"
  ;;

build)
  jobs=${1:?jobs}
  read -r -a targets <<<"${2?targets}" || true
  shift 2
  [[ $jobs =~ ^[0-9]+$ ]] || refuse "bad job count '$jobs'"
  # The build step is the one the local and Slurm scripts use, from the
  # synced tree itself (this agent travels as text; the tree is there).
  [ -f scripts/lib/build.sh ] ||
    refuse "no scripts/lib/build.sh in the remote tree '$root' (sync it: run without --no-sync)"
  # shellcheck source=scripts/lib/build.sh
  . scripts/lib/build.sh
  build_bench . build "$jobs" "$@" -- "${targets[@]}"
  ;;

list)
  build/bin/bench --list --format tsv "$@" </dev/null | cut -f1
  ;;

start)
  id=${1:?id}
  label=${2?label}
  shift 2
  start_run "$id" "$label" 1 "$@"
  ;;

start-ab)
  id=${1:?id}
  label=${2?label}
  b=$(base_dir "${3:?sha}")
  shift 3
  [ -f "$b/built" ] || refuse "no --ab-base build of ${b##*/} in '$root' (build it first)"
  old=$(plugin_dir "$b/build") || refuse "no plugin folder in the --ab-base build '$b/build'"
  new=$(plugin_dir build) || refuse "no plugin folder in '$root/build' (the build failed or was skipped)"
  # bench ab tags its result files old and new itself (no --tag, no events)
  start_run "$id" "$label" 0 ab "$old" "$new" "$@"
  ;;

base-has)
  b=$(base_dir "${1:?sha}")
  [ -f "$b/built" ] && [ "$(cat "$b/built")" = "${2?key}" ] && plugin_dir "$b/build" >/dev/null || exit 1
  ;;

base-build)
  b=$(base_dir "${1:?sha}")
  key=${2?key}
  jobs=${3:?jobs}
  read -r -a targets <<<"${4?targets}" || true
  shift 4
  [[ $jobs =~ ^[0-9]+$ ]] || refuse "bad job count '$jobs'"
  [ -f scripts/lib/build.sh ] ||
    refuse "no scripts/lib/build.sh in the remote tree '$root' (sync it: run without --no-sync)"
  mkdir -p -- "$b"
  rm -f -- "$b/built"
  # The commit's tree arrives whole into a new folder, then replaces src.
  rm -rf -- "$b/src.new"
  mkdir -- "$b/src.new"
  tar -x -f - -C "$b/src.new" || refuse "could not unpack the archive of commit ${b##*/}"
  rm -rf -- "$b/src"
  mv -- "$b/src.new" "$b/src"
  # shellcheck source=scripts/lib/build.sh
  . scripts/lib/build.sh
  build_bench "$b/src" "$b/build" "$jobs" "$@" -- "${targets[@]}"
  plugin_dir "$b/build" >/dev/null || refuse "the build of commit ${b##*/} made no plugin folder"
  printf '%s\n' "$key" >"$b/built.tmp" && mv -f -- "$b/built.tmp" "$b/built"
  ;;

stream)
  d=$(run_dir "${1:?id}")
  offset=${2:-0}
  [[ $offset =~ ^[0-9]+$ ]] || refuse "bad offset '$offset'"
  [ -d "$d" ] || {
    echo "bench-remote: error: no run $1" >&2
    exit 3
  }
  pid=$(cat "$d/pid" 2>/dev/null || echo 0)
  if [ ! -f "$d/rc" ] && kill -0 "$pid" 2>/dev/null; then
    tail -s 0.2 -c +$((offset + 1)) --pid="$pid" -f "$d/log"
  else
    tail -c +$((offset + 1)) "$d/log"
  fi
  rc=$(cat "$d/rc" 2>/dev/null || echo 99)
  exit "$rc"
  ;;

stop)
  d=$(run_dir "${1:?id}")
  kill -INT "$(cat "$d/bench.pid" 2>/dev/null || echo 0)" 2>/dev/null || true
  ;;

diag)
  d=$(run_dir "${1:?id}")
  diag_report "$d/log" "$(cat "$d/rc" 2>/dev/null || echo 'none (still running, or killed)')" "run $1"
  ;;

diag-log)
  diag_report "${1:?log}" "${2:-?}" "log $1"
  ;;

has)
  d=$(run_dir "${1:?id}")
  [ -d "$d" ] || exit 3
  ;;

clean)
  d=$(run_dir "${1:?id}")
  rm -rf -- "$d"
  ;;

*)
  refuse "unknown verb '$verb'"
  ;;
esac
