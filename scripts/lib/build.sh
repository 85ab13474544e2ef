# shellcheck shell=bash
# The build step of the run_presets scripts (sourced, never run): one
# definition used by run_presets_local.sh and run_presets_slurm.sh (through
# scripts/lib/presets.sh), by scripts/lib/slurm-task.sh (--build-per-node)
# and by the remote agent's `build` verb (scripts/lib/remote-agent.sh, which
# sources it from the synced tree on the remote).

# build_bench SRC BUILD_DIR JOBS [CMAKE_OPTION...] [-- TARGET...]: configure
# SRC into BUILD_DIR (cmake -S SRC -B BUILD_DIR CMAKE_OPTION...) and build it
# with JOBS jobs (0: the core count), only the TARGETs when given. Output on
# stdout and stderr; returns cmake's status.
build_bench() {
  local src=$1 dir=$2 jobs=$3
  shift 3
  local -a opts=() tflags=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    opts+=("$1")
    shift
  done
  [ $# -eq 0 ] || shift
  local t
  for t in "$@"; do tflags+=(--target "$t"); done
  [[ $jobs =~ ^[0-9]+$ ]] && [ "$jobs" -gt 0 ] || jobs=$(nproc 2>/dev/null || echo 1)
  cmake -S "$src" -B "$dir" "${opts[@]}" </dev/null && cmake --build "$dir" -j "$jobs" "${tflags[@]}" </dev/null
}

# build_logged LOG SRC BUILD_DIR JOBS [CMAKE_OPTION...] [-- TARGET...]:
# build_bench with its output shown and appended to LOG; returns its status.
build_logged() {
  local log=$1 rc errexit=$-
  shift
  set +e
  build_bench "$@" 2>&1 | tee -ai -- "$log"
  rc=${PIPESTATUS[0]}
  [[ $errexit != *e* ]] || set -e
  return "$rc"
}
