#!/usr/bin/env bash
# Run bench presets on this machine, the way run_presets_remote.sh runs them
# on another one.
#
#   scripts/run_presets_local.sh [options] [PRESETS] [PLUGINS] [-- BENCH_ARGS...]
#
# PRESETS and PLUGINS are comma lists (default: smoke; every plugin); a
# preset is a shipped name or an .ini file. BENCH_ARGS go to bench as they
# are (e.g. --mode debug, --plugin-dir DIR).
#
# What it does: configure and build (cmake -S . -B build $BUILD_OPTIONS;
# skipped when $BENCH names a bench to use), run each preset with its case
# lines and a PROGRESS line (redrawn in place on a terminal) shown live and
# everything, with bench's JSON events, kept in
# RESULTS/logs/<time>_<preset>[_<tag>].log, rebuild RESULTS/rollup.csv,
# print a summary, and exit 0 only if every case was OK or SKIPPED. A failed
# case leaves RESULTS/diag_<time>_<preset>[_<tag>].txt (dmesg OOM/killed
# lines, free -h, rocm-smi, the log's last 80 lines). Ctrl-C stops the
# running preset; what was measured is kept.
#
# Options:
#   --tag TAG           passed to bench: added to result names and rows
#   --results-dir DIR   where results go (default: results/ of this tree)
#   --resume            skip the preset/plugin pairs whose results for today
#                       are already in the results folder with every case OK
#                       or SKIPPED
#   --build-dir DIR     the build folder (default: build/ of this tree)
#   --build-option OPT  add one word to the cmake configure command (repeatable)
#   --build-target T    build only T (repeatable; default: all)
#   --jobs N            build jobs (default: the core count)
#   --no-build          use the existing build
#   -h, --help
# Environment: BENCH=path/to/bench runs that bench and builds nothing.
# Exit status: see scripts/lib/presets.sh (0 ok, 1 a case failed, 2 usage or
# configuration, 4 build, 130 interrupted).
set -euo pipefail

SRC=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
LIBDIR=$SRC/scripts/lib
PROG=run_presets_local.sh
# shellcheck source-path=SCRIPTDIR source=lib/presets.sh
. "$LIBDIR/presets.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

TAG='' RESUME=0 BUILD=1 RESULTS_DIR=$SRC/results BUILD_DIR=$SRC/build JOBS=0
BUILD_OPTS=() BUILD_TARGETS=()
pos=()
while [ $# -gt 0 ]; do
  case $1 in
  -h | --help) usage; exit 0 ;;
  --tag | --tag=*) take_value TAG n "$@"; shift "$n" ;;
  --results-dir | --results-dir=*) take_value RESULTS_DIR n "$@"; shift "$n" ;;
  --build-dir | --build-dir=*) take_value BUILD_DIR n "$@"; shift "$n" ;;
  --build-option | --build-option=*) take_value v n "$@"; BUILD_OPTS+=("$v"); shift "$n" ;;
  --build-target | --build-target=*) take_value v n "$@"; BUILD_TARGETS+=("$v"); shift "$n" ;;
  --jobs | --jobs=*) take_value JOBS n "$@"; shift "$n" ;;
  --resume) RESUME=1; shift ;;
  --no-build) BUILD=0; shift ;;
  --) pos+=("$@"); break ;;
  -?*) die 2 "unknown option '$1' (see --help)" ;;
  *) pos+=("$1"); shift ;;
  esac
done
parse_positionals "${pos[@]}"
JOBS=$(jobs_count "$JOBS")
for p in "${PRESETS[@]}"; do
  if is_preset_file "$p" && [ ! -f "$p" ]; then die 2 "no preset file '$p'"; fi
done
mkdir -p -- "$RESULTS_DIR" || die 2 "cannot create results folder '$RESULTS_DIR'"
RESULTS_DIR=$(cd -- "$RESULTS_DIR" && pwd -P)
INTERRUPTED=0
trap 'INTERRUPTED=1' INT

if [ -n "${BENCH:-}" ]; then
  find_local_bench LOCAL_BENCH "$SRC"
  say "using BENCH=$LOCAL_BENCH (no build)"
else
  if [ "$BUILD" -eq 1 ]; then
    new_log LOG build
    say "build: cmake -S $SRC -B $BUILD_DIR ${BUILD_OPTS[*]} (log $LOG)"
    if ! build_logged "$LOG" "$SRC" "$BUILD_DIR" "$JOBS" "${BUILD_OPTS[@]}" -- "${BUILD_TARGETS[@]}"; then
      record_run build "" 4 "the build failed: see $LOG"
      finish "$(uname -n)"
    fi
  fi
  LOCAL_BENCH=$BUILD_DIR/bin/bench
  [ -x "$LOCAL_BENCH" ] || die 2 "no bench at $LOCAL_BENCH (build first, or set BENCH)"
fi

# shellcheck disable=SC2317 # called by plan_preset
list_local() { list_plugins "$LOCAL_BENCH" "$@" "${BENCH_ARGS[@]}"; }

for preset in "${PRESETS[@]}"; do
  [ "$INTERRUPTED" -eq 0 ] || break
  plan=0
  plan_preset PLAN_ARGS PLAN_SKIPPED "$preset" "$(date +%F)" list_local "$LOCAL_BENCH" || plan=1
  [ ${#PLAN_SKIPPED[@]} -eq 0 ] || say "$preset: skipping ${PLAN_SKIPPED[*]}: results for today already home"
  if [ "$plan" -eq 1 ]; then
    record_run "$preset" "" 0 "nothing to run: results for today already home"
    continue
  fi
  bargs=(--preset "$preset" "${PLAN_ARGS[@]}")
  [ -z "$TAG" ] || bargs+=(--tag "$TAG")
  bargs+=("${BENCH_ARGS[@]}")
  new_log LOG "$preset"
  say "$preset: bench ${bargs[*]} (log $LOG)"
  set +e
  "$LOCAL_BENCH" "${bargs[@]}" --results-dir "$RESULTS_DIR" --events - 2>&1 </dev/null | tee -ai -- "$LOG" |
    (trap '' INT; show_stream)
  rc=${PIPESTATUS[0]}
  set -e
  note=''
  case $rc in
  0) ;;
  1) note="a case failed" ;;
  2) note="bench refused the run (usage or configuration; see the log)" ;;
  130) note="interrupted" ;;
  *) note="bench exited with status $rc" ;;
  esac
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ] && [ "$rc" -ne 130 ]; then
    path=$(diag_path "$preset")
    bash "$LIBDIR/remote-agent.sh" diag-log . "$LOG" "$rc" | write_atomic "$path"
    say "diagnostics: $path"
  fi
  record_run "$preset" "$LOG" "$rc" "$note"
  [ "$rc" -ne 130 ] || break
done

rollup
[ "$INTERRUPTED" -eq 0 ] || [[ " ${RUN_RCS[*]} " == *" 130 "* ]] || record_run interrupted "" 130 "stopped by Ctrl-C"
finish "$(uname -n)"
