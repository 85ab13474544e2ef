#!/usr/bin/env bash
# One task of the job array that scripts/run_presets_slurm.sh submits
# (sbatch copies this file; it runs on the node as `slurm-task.sh W`): run
# bench for task $SLURM_ARRAY_TASK_ID as planned in W/tasks/I/ (see
# scripts/lib/slurm.sh for the folder's files), and leave the exit file
# W/tasks/I/rc last, so that the submitting script knows the outcome without
# sacct. On SIGTERM (sent to this shell 30 s before the time limit, or by
# the script's Ctrl-C) bench is stopped the way Ctrl-C stops it: the cases
# measured so far are written, the running one as INTERRUPTED, and the exit
# file says "signal TERM". Exits with bench's status.
set -u
W=${1:?run folder}
I=${SLURM_ARRAY_TASK_ID:?not a job array task}
D=$W/tasks/$I
NODE=${SLURMD_NODENAME:-$(uname -n)}

# put FILE: stdin to FILE through a temporary name beside it.
put() { cat >"$1.tmp.$$" && mv -f -- "$1.tmp.$$" "$1"; }

# node_diag RC: what the node can tell about a failed run.
node_diag() {
  echo "== node $NODE (job ${SLURM_JOB_ID:-?}, array task $I) at $(date '+%F %T %z'), bench exit status $1"
  echo
  echo "== dmesg: out-of-memory and killed-process lines (last 40)"
  local out
  if out=$(dmesg 2>/dev/null); then
    out=$(grep -iE 'out of memory|oom[-_ ]kill|killed process|invoked oom' <<<"$out" | tail -n 40)
    echo "${out:-(none)}"
  else
    echo "(dmesg not readable by $(id -un))"
  fi
  echo
  echo "== free -h"
  free -h 2>&1 || echo "(free not available)"
  echo
  if command -v rocm-smi >/dev/null 2>&1; then
    echo "== rocm-smi"
    timeout 20 rocm-smi 2>&1 || echo "(rocm-smi failed)"
    echo
  fi
  if command -v nvidia-smi >/dev/null 2>&1; then
    echo "== nvidia-smi"
    timeout 20 nvidia-smi 2>&1 || echo "(nvidia-smi failed)"
    echo
  fi
}

# done_with RC [SIGNAL]: the exit file, then exit.
done_with() {
  if [ "$1" -ne 0 ]; then node_diag "$1" | put "$D/node-diag.txt"; fi
  { echo "rc $1"; [ -z "${2:-}" ] || echo "signal $2"; } | put "$D/rc"
  exit "$1"
}

# SIGTERM comes from sbatch --signal=B:TERM@30 shortly before the time
# limit, or from scancel --batch (the script's Ctrl-C): to this shell only,
# which passes it on to bench, so that bench stops as on Ctrl-C.
SIG='' PID='' TRAPPED=0
trap 'SIG=TERM TRAPPED=1; [ -z "$PID" ] || kill -TERM "$PID" 2>/dev/null' TERM
trap 'SIG=INT TRAPPED=1; [ -z "$PID" ] || kill -INT "$PID" 2>/dev/null' INT

[ -d "$D" ] || {
  echo "slurm-task: error: no task folder $D" >&2
  exit 2
}
echo "${SLURM_JOB_ID:-?} $NODE $(date +%s)" | put "$D/started"
mkdir -p -- "$D/results"

BENCH=$(head -n 1 -- "$W/bench")
if [ "$BENCH" = per-node ]; then
  # Build on this node, in a folder of its own kept between runs; tasks on
  # the same node take turns.
  src=$(head -n 1 -- "$W/src")
  key=$(printf '%s' "$src" | cksum | cut -d' ' -f1)
  bdir=${BENCH_SLURM_BUILD_ROOT:-${TMPDIR:-/tmp}}/bench-slurm-$(id -u)/$key
  mkdir -p -- "$bdir"
  opts=() targets=()
  [ ! -s "$W/build-options" ] || mapfile -d '' -t opts <"$W/build-options"
  [ ! -s "$W/build-targets" ] || mapfile -d '' -t targets <"$W/build-targets"
  jobs=$(head -n 1 -- "$W/build-jobs" 2>/dev/null || echo 0)
  echo "slurm-task: building on $NODE in $bdir/build" >>"$D/log"
  # The build step of the submitting script (scripts/lib/build.sh of the
  # same tree, which the nodes share).
  (
    flock 9
    # shellcheck source=scripts/lib/build.sh
    . "$src/scripts/lib/build.sh" && build_bench "$src" "$bdir/build" "$jobs" "${opts[@]}" -- "${targets[@]}"
  ) 9>"$bdir/lock" >>"$D/log" 2>&1 </dev/null || {
    echo "slurm-task: the build on $NODE failed" >>"$D/log"
    done_with 4
  }
  BENCH=$bdir/build/bin/bench
fi
[ -x "$BENCH" ] || {
  echo "slurm-task: error: no bench at $BENCH on $NODE" >>"$D/log"
  done_with 2
}

args=()
mapfile -d '' -t args <"$D/args"
[ -z "$SIG" ] || done_with 130 "$SIG" # stopped before bench started
events=(--events -)
[ "${args[0]:-}" != ab ] || events=() # bench ab (run_presets_slurm.sh --ab-base) writes no events
"$BENCH" "${args[@]}" --results-dir "$D/results" "${events[@]}" >>"$D/log" 2>&1 </dev/null &
PID=$!
# A trapped signal ends `wait` early: wait again until bench has ended.
while :; do
  TRAPPED=0 rc=0
  wait "$PID" || rc=$?
  [ "$TRAPPED" -eq 1 ] || break
done
done_with "$rc" "$SIG"
