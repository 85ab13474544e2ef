#!/usr/bin/env bash
# Run bench presets on every node of a Slurm partition and bring the
# results home.
#
#   scripts/run_presets_slurm.sh [options] [PRESETS] [PLUGINS] [-- BENCH_ARGS...]
#
# PRESETS and PLUGINS are comma lists (default: smoke; every plugin); a
# preset is a shipped name or an .ini file. BENCH_ARGS go to bench as they
# are (e.g. --mode debug, --plugin-dir DIR).
#
# What it does:
#   1. build once here (cmake -S . -B build $SLURM_BUILD_OPTIONS; the build
#      folder must be on a filesystem the nodes share), or let each task
#      build on its node (--build-per-node), or use $BENCH and build nothing;
#   2. submit a task per node and preset: one job array per node (sbatch
#      --array --nodelist NODE, --exclusive by default: benchmarks must not
#      share a node), all submitted together; each task runs bench --tag
#      <node> (or <partition>) with its events in a log of its own, and
#      writes an exit file when bench has ended;
#   3. follow the array live: a table of the tasks (Slurm state, node,
#      cases done, ETA) from squeue and the tasks' logs, printed when it
#      changes (no sacct needed);
#   4. as tasks end, move their result files into the results folder (never
#      overwriting: a name taken gets .2, .3 ...), their logs into
#      RESULTS/logs/, and write RESULTS/diag_<time>_<preset>_<tag>.txt for a
#      task that did not complete cleanly (Slurm state and reason, exit
#      status, free -h / rocm-smi / dmesg from the node, the log's tail);
#   5. rebuild RESULTS/rollup.csv, print a summary, and exit 0 only if every
#      case of every task was OK or SKIPPED.
# Each task gets SIGTERM 30 s before its time limit (sbatch
# --signal=B:TERM@30; Slurm may send it up to a minute early): bench stops
# as on Ctrl-C, the running case is written as INTERRUPTED and the task
# reads as TIMEOUT. Ctrl-C cancels the arrays (scancel: the waiting tasks,
# and SIGTERM to the running ones, the same way), gathers what the tasks
# left and exits 130.
# --resume submits only the node/preset/plugin triples whose results for
# today are not home yet. The run's shared folder is RESULTS/.slurm/<id>/
# (so RESULTS must be on a shared filesystem too); a run left there by an
# invocation that was killed is gathered by the next one once its arrays have
# left the queue.
#
# Options (they override the configuration file):
#   --config FILE       configuration (default: $BENCH_SLURM_CONFIG, else
#                       ~/.config/bench/slurm.conf when it exists); see
#                       scripts/slurm.conf.example
#   --partition P       SLURM_PARTITION (default: the default partition)
#   --nodes N           SLURM_NODES: the first N usable nodes of the partition
#   --nodelist LIST     SLURM_NODELIST: these nodes (a Slurm hostlist, n[1-4])
#                       (default: every usable node of the partition)
#   --time T            SLURM_TIME: time limit of each task (sbatch --time)
#   --account A         SLURM_ACCOUNT (sbatch --account)
#   --gpus-per-node G   SLURM_GPUS_PER_NODE (sbatch --gpus-per-node)
#   --tag-by node|partition  SLURM_TAG_BY: the tag of results (default node;
#                       with partition, --resume counts a preset/plugin as
#                       home once any node brought it)
#   --no-exclusive      SLURM_EXCLUSIVE=no: let tasks share a node
#   --sbatch-option OPT add one word to sbatch's options (repeatable)
#   --results-dir DIR   where results go (default: results/ of this tree)
#   --resume            skip what is home for today (see above)
#   --build-per-node    SLURM_BUILD_PER_NODE=yes: build on each node, in
#                       ${TMPDIR:-/tmp}/bench-slurm-<uid>/<key>/build
#   --build-dir DIR     SLURM_BUILD_DIR: the shared build (default: build/)
#   --build-option OPT  add one word to the cmake configure command (repeatable)
#   --build-target T    build only T (repeatable)
#   --jobs N            SLURM_BUILD_JOBS: build jobs (default: the core count)
#   --no-build          use the existing build
#   --poll SECONDS      SLURM_POLL: how often to ask squeue (default 5)
#   --ab-base REV       each task runs `bench ab REV_PLUGINS TREE_PLUGINS
#                       --preset P [--plugin ...] BENCH_ARGS` instead of bench:
#                       REV (a commit of this repository) is unpacked from a
#                       `git archive` and built here beside the shared build,
#                       in BUILD_DIR.ab-base/<commit>/ (same build options and
#                       targets, bench left out; kept, so later runs reuse
#                       it); result files tagged old and new; ab's exit status
#                       counts as bench's (1: a case in --fail-on). A REV that
#                       is not a commit is refused before anything is
#                       submitted (2); one that does not build exits 4. Not
#                       with --build-per-node or --resume.
#   -h, --help
# Environment: BENCH=path/to/bench (on the shared filesystem) runs that bench
# and builds nothing.
# Exit status: 0 every case OK or SKIPPED; 1 a case failed, a task failed,
# timed out or was cancelled; 2 usage or configuration error; 3 slurmctld
# could not be reached (the array goes on: run again with --resume once it
# has ended); 4 the build failed; 130 interrupted (Ctrl-C).
set -euo pipefail

SRC=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
LIBDIR=$SRC/scripts/lib
PROG=run_presets_slurm.sh
# shellcheck source-path=SCRIPTDIR source=lib/presets.sh
. "$LIBDIR/presets.sh"
# shellcheck source-path=SCRIPTDIR source=lib/slurm.sh
. "$LIBDIR/slurm.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

# --- configuration ---------------------------------------------------------
CFG_PARTITION='' CFG_NODES='' CFG_NODELIST='' CFG_TIME='' CFG_ACCOUNT='' CFG_GPUS_PER_NODE=''
CFG_TAG_BY=node CFG_EXCLUSIVE=1 CFG_BUILD_PER_NODE=0 CFG_BUILD_DIR='' CFG_BUILD_JOBS=0
CFG_RESULTS_DIR='' CFG_POLL=5
CFG_SBATCH_OPTS=() CFG_BUILD_OPTS=() CFG_BUILD_TARGETS=()

BENCH_SLURM_CONFIG=${BENCH_SLURM_CONFIG:-}
config_option config BENCH_SLURM_CONFIG "$@"
if [ -n "$config" ]; then
  load_slurm_config "$config"
elif [ -f "${XDG_CONFIG_HOME:-$HOME/.config}/bench/slurm.conf" ]; then
  load_slurm_config "${XDG_CONFIG_HOME:-$HOME/.config}/bench/slurm.conf"
fi

RESUME=0 BUILD=1 AB_BASE='' AB_SHA=''
pos=()
while [ $# -gt 0 ]; do
  case $1 in
  -h | --help) usage; exit 0 ;;
  --config | --config=*) take_value v n "$@"; shift "$n" ;;
  --partition | --partition=*) take_value CFG_PARTITION n "$@"; shift "$n" ;;
  --nodes | --nodes=*) take_value CFG_NODES n "$@"; shift "$n" ;;
  --nodelist | --nodelist=*) take_value CFG_NODELIST n "$@"; shift "$n" ;;
  --time | --time=*) take_value CFG_TIME n "$@"; shift "$n" ;;
  --account | --account=*) take_value CFG_ACCOUNT n "$@"; shift "$n" ;;
  --gpus-per-node | --gpus-per-node=*) take_value CFG_GPUS_PER_NODE n "$@"; shift "$n" ;;
  --tag-by | --tag-by=*) take_value CFG_TAG_BY n "$@"; shift "$n" ;;
  --no-exclusive) CFG_EXCLUSIVE=0; shift ;;
  --sbatch-option | --sbatch-option=*) take_value v n "$@"; CFG_SBATCH_OPTS+=("$v"); shift "$n" ;;
  --results-dir | --results-dir=*) take_value CFG_RESULTS_DIR n "$@"; shift "$n" ;;
  --resume) RESUME=1; shift ;;
  --build-per-node) CFG_BUILD_PER_NODE=1; shift ;;
  --build-dir | --build-dir=*) take_value CFG_BUILD_DIR n "$@"; shift "$n" ;;
  --build-option | --build-option=*) take_value v n "$@"; CFG_BUILD_OPTS+=("$v"); shift "$n" ;;
  --build-target | --build-target=*) take_value v n "$@"; CFG_BUILD_TARGETS+=("$v"); shift "$n" ;;
  --jobs | --jobs=*) take_value CFG_BUILD_JOBS n "$@"; shift "$n" ;;
  --no-build) BUILD=0; shift ;;
  --poll | --poll=*) take_value CFG_POLL n "$@"; shift "$n" ;;
  --ab-base | --ab-base=*) take_value AB_BASE n "$@"; [ -n "$AB_BASE" ] || die 2 "empty --ab-base"; shift "$n" ;;
  --) pos+=("$@"); break ;;
  -?*) die 2 "unknown option '$1' (see --help)" ;;
  *) pos+=("$1"); shift ;;
  esac
done
parse_positionals "${pos[@]}"

case $CFG_TAG_BY in
node | partition) ;;
*) die 2 "bad --tag-by '$CFG_TAG_BY': node or partition" ;;
esac
CFG_BUILD_JOBS=$(jobs_count "$CFG_BUILD_JOBS")
if ! [[ $CFG_POLL =~ ^[0-9]+(\.[0-9]+)?$ ]] || [[ $CFG_POLL =~ ^0*(\.0*)?$ ]]; then die 2 "bad --poll '$CFG_POLL': seconds > 0"; fi
[ -z "$CFG_NODES" ] || [[ $CFG_NODES =~ ^[1-9][0-9]*$ ]] || die 2 "bad --nodes '$CFG_NODES': a count >= 1"
[ -z "$CFG_NODES" ] || [ -z "$CFG_NODELIST" ] || die 2 "give --nodes or --nodelist, not both"
for p in "${PRESETS[@]}"; do
  if is_preset_file "$p" && [ ! -f "$p" ]; then die 2 "no preset file '$p'"; fi
done
if [ -n "$AB_BASE" ]; then
  [ "$RESUME" -eq 0 ] || die 2 "--resume does not apply to --ab-base runs (bench ab measures both sides each time)"
  [ "$CFG_BUILD_PER_NODE" -eq 0 ] || die 2 "--ab-base builds REV here, beside the shared build: not with --build-per-node"
  command -v git >/dev/null 2>&1 || die 2 "--ab-base needs git on this machine"
  AB_SHA=$(git -C "$SRC" rev-parse --verify --quiet --end-of-options "$AB_BASE^{commit}" 2>/dev/null) ||
    die 2 "--ab-base '$AB_BASE': no such commit in $SRC (nothing was submitted)"
fi
command -v sbatch >/dev/null 2>&1 || die 2 "no sbatch/squeue here: run this on a Slurm login node (Debian: apt-get install slurm-client)"

BUILD_DIR=${CFG_BUILD_DIR:-$SRC/build}
TAG=''
INTERRUPTED=0
trap 'INTERRUPTED=1' INT TERM HUP

# --- the partition and its nodes ----------------------------------------------
sinfo -h -o '%P' >/dev/null 2>&1 || die 3 "cannot reach slurmctld (sinfo failed: $(sinfo -h -o '%P' 2>&1 | head -n 1))"
PARTITION=${CFG_PARTITION:-$(default_partition)}
[ -n "$PARTITION" ] || die 2 "no --partition given and the cluster has no default partition"
sinfo -h -p "$PARTITION" -o '%P' 2>/dev/null | grep -q . || die 2 "no partition '$PARTITION' (sinfo -p $PARTITION shows nothing)"
NODES=()
if [ -n "$CFG_NODELIST" ]; then
  mapfile -t NODES < <(scontrol show hostnames "$CFG_NODELIST" 2>/dev/null)
  [ ${#NODES[@]} -gt 0 ] || die 2 "bad --nodelist '$CFG_NODELIST'"
else
  mapfile -t NODES < <(usable_nodes "$PARTITION")
  [ ${#NODES[@]} -gt 0 ] || die 2 "partition '$PARTITION' has no usable node (sinfo -N -p $PARTITION)"
  if [ -n "$CFG_NODES" ]; then
    [ "${#NODES[@]}" -ge "$CFG_NODES" ] || die 2 "--nodes $CFG_NODES: partition '$PARTITION' has ${#NODES[@]} usable node(s): ${NODES[*]}"
    NODES=("${NODES[@]:0:CFG_NODES}")
  fi
fi

RESULTS_DIR=${CFG_RESULTS_DIR:-$SRC/results}
mkdir -p -- "$RESULTS_DIR" || die 2 "cannot create results folder '$RESULTS_DIR'"
RESULTS_DIR=$(cd -- "$RESULTS_DIR" && pwd -P)

# --- gathering ------------------------------------------------------------------
# task_state I: the task's state now, from squeue, or (when squeue has
# forgotten it) from its exit file.
task_state() {
  local i=$1 d=$W/tasks/$1 rc sq=${SQ_STATE[$1]:-}
  rc=$(task_rc "$d")
  # A task stopped by its SIGTERM (the warning before its time limit, or
  # our Ctrl-C) ends with bench's status, FAILED for Slurm: say why.
  if [ -n "$rc" ] && task_signalled "$d" && ! active_state "$sq"; then
    if [ "$CANCELLED" -eq 1 ]; then echo CANCELLED; else echo TIMEOUT; fi
    return
  fi
  if [ -n "$sq" ]; then
    echo "$sq"
    return
  fi
  if [ -z "$rc" ]; then
    if [ ! -s "$W/job" ]; then
      echo UNKNOWN
    elif [ -f "$d/started" ]; then
      echo FAILED
    elif [ "$CANCELLED" -eq 1 ]; then
      echo CANCELLED
    else
      echo GONE
    fi
  elif [ "$rc" -eq 0 ]; then
    echo COMPLETED
  else
    echo FAILED
  fi
}

# gather_task I STATE [LABEL]: bring task I home: results, log, diag, summary line.
gather_task() {
  local i=$1 state=$2 d=$W/tasks/$1 node preset rc note='' code job info
  node=$(task_field "$d" node)
  preset=$(task_field "$d" preset)
  TAG=$(task_field "$d" tag)
  rc=$(task_rc "$d")
  job=$(task_field "$d" job)
  # shellcheck disable=SC2034 # home: counted by place_results, not shown here
  local moved home
  place_results "$d/results" moved home
  LOG=''
  if [ -s "$d/log" ]; then
    new_log LOG "$preset"
    cp -- "$d/log" "$LOG"
  fi
  # a task of --ab-base runs bench ab (its args begin with "ab")
  local first='' ab=0
  IFS= read -r -d '' first <"$d/args" 2>/dev/null || true
  [ "$first" != ab ] || ab=1
  case $state in
  COMPLETED)
    code=${rc:-0}
    case $code in
    0) [ "$ab" -eq 0 ] || note="bench ab: no case in --fail-on" ;;
    1) if [ "$ab" -eq 1 ]; then note="bench ab: a case is in --fail-on"; else note="a case failed"; fi ;;
    2) note="bench refused the run (usage or configuration; see the log)" ;;
    *) note="bench exited with status $code" ;;
    esac
    ;;
  TIMEOUT)
    code=1 note="the task reached its time limit"
    [ -z "$CFG_TIME" ] || note+=" (--time $CFG_TIME)"
    if [ "${SQ_STATE[$i]:-}" != TIMEOUT ] && task_signalled "$d"; then
      note+=": stopped by its SIGTERM before the limit, the running case kept as INTERRUPTED"
    else
      note+=" and was killed by Slurm"
    fi
    ;;
  CANCELLED)
    if [ "$CANCELLED" -eq 1 ]; then
      code=130
      if [ -f "$d/started" ]; then note="cancelled (Ctrl-C)"; else note="cancelled (Ctrl-C) before it started"; fi
    else
      code=1 note="cancelled by someone else (${SQ_REASON[$i]:-scancel})"
    fi
    ;;
  FAILED)
    code=${rc:-1}
    [ "$code" -ne 0 ] || code=1
    case $code in
    1) note="a case failed" ;;
    2) note="bench refused the run (usage or configuration; see the log)" ;;
    4) note="the build on $node failed" ;;
    *) note="the task failed (status $code)" ;;
    esac
    if [ ! -f "$d/started" ]; then
      note="the task left no trace in $W: is the results folder on a filesystem the nodes share? (see its slurm.out on $node)"
    elif [ -z "$rc" ]; then
      note="the task ended without its exit file (killed?)"
    fi
    ;;
  *) code=1 note="the task ended as $state${SQ_REASON[$i]:+ (${SQ_REASON[$i]})}" ;;
  esac
  # (a regression bench ab found is no fault of the node: no diag file)
  if [ "$code" -ne 0 ] && [ "$code" -ne 2 ] && [ "$code" -ne 130 ] && { [ "$ab" -eq 0 ] || [ "$state" != COMPLETED ] || [ "$code" -ne 1 ]; }; then
    local path
    path=$(diag_path "$preset")
    info=$(scontrol show job "${job}_$i" 2>/dev/null || true)
    {
      echo "== task $i (job array $job): preset $preset on node $node, tag $TAG"
      echo "state $state (Slurm: ${SQ_STATE[$i]:-no longer in squeue}${SQ_REASON[$i]:+, reason ${SQ_REASON[$i]}}); exit status ${rc:-none (no exit file)}$(task_signalled "$d" && echo ", after SIGTERM"); $note"
      echo "at $(date '+%F %T %z'), partition $PARTITION${CFG_TIME:+, --time $CFG_TIME}"
      echo
      if [ -n "$info" ]; then
        echo "== scontrol show job ${job}_$i"
        echo "$info"
        echo
      fi
      if [ -f "$d/node-diag.txt" ]; then
        cat -- "$d/node-diag.txt"
      else
        echo "(no report from the node: the task did not get to write one)"
        echo
      fi
      echo "== the task's log, last 80 lines"
      tail -n 80 -- "$d/log" 2>/dev/null || echo "(no log)"
      if [ -s "$d/slurm.out" ]; then
        echo
        echo "== the batch script's output (sbatch --output), last 20 lines"
        tail -n 20 -- "$d/slurm.out"
      fi
    } | write_atomic "$path"
    say "task $i ($(preset_part "$preset") on $node): $note; diagnostics: $path"
  fi
  if [ "$ab" -eq 1 ]; then
    # bench ab writes no events: its verdicts are in the log
    record_run "$(preset_part "$preset") @ $node" "" "$code" "$note${moved:+${note:+; }$moved result file(s) home}${LOG:+ [log $LOG]}"
  else
    record_run "$(preset_part "$preset") @ $node" "$LOG" "$code" "$note${moved:+${note:+; }$moved result file(s) home}"
  fi
  echo "$state $code" | write_atomic "$d/gathered"
}

# --- the table ------------------------------------------------------------------
LAST_TABLE=''
# show_table: the tasks' states, printed when it changed.
show_table() {
  local i d t cases eta
  t=$(
    printf '%-5s %-14s %-14s %-10s %-7s %s\n' TASK NODE PRESET STATE CASES ETA
    for i in "${TASKS[@]}"; do
      d=$W/tasks/$i
      task_progress cases eta "${LOCAL_BENCH:-}" "$d"
      [ "${STATE[$i]}" = RUNNING ] || eta=-
      printf '%-5s %-14s %-14s %-10s %-7s %s\n' "$i" "$(task_field "$d" node)" \
        "$(preset_part "$(task_field "$d" preset)")" "${STATE[$i]}" "$cases" "$eta"
    done
  )
  [ "$t" != "$LAST_TABLE" ] || return 0
  LAST_TABLE=$t
  echo "-- $(date +%T) job array(s) $(task_field "$W" job), partition $PARTITION"
  printf '   %s\n' "${t//$'\n'/$'\n'   }"
}

# --- earlier runs -------------------------------------------------------------------
# A run folder whose script was killed: gather what its tasks left once its
# array has left the queue.
CANCELLED=0
for W in "$RESULTS_DIR"/.slurm/*/; do
  [ -d "$W" ] || continue
  W=${W%/}
  owner=$(task_field "$W" owner)
  if [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null; then continue; fi
  job=$(task_field "$W" job)
  if [ -n "$job" ]; then
    squeue_array "${job// /,}" || die 3 "cannot reach slurmctld (squeue failed)"
    still=0
    for s in "${SQ_STATE[@]}"; do
      if active_state "$s"; then still=1; fi
    done
    if [ "$still" -eq 1 ]; then
      warn "job array(s) $job of an earlier run (${W##*/}) still in the queue: its results come home once it has ended and this script runs again (or scancel them)"
      continue
    fi
  fi
  say "gathering what an earlier run left (${W##*/}${job:+, job array(s) $job})"
  for d in "$W"/tasks/*/; do
    d=${d%/}
    if [ ! -d "$d" ] || [ -f "$d/gathered" ] || [ ! -f "$d/started" ]; then continue; fi
    i=${d##*/}
    gather_task "$i" "$(task_state "$i")"
    RUN_PRESETS[${#RUN_PRESETS[@]} - 1]+=" (an earlier run)"
  done
  rm -rf -- "$W"
done

# --- build -----------------------------------------------------------------------
W=''
if [ -n "${BENCH:-}" ]; then
  find_local_bench LOCAL_BENCH "$SRC"
  TASK_BENCH=$(cd -- "$(dirname -- "$LOCAL_BENCH")" && pwd -P)/$(basename -- "$LOCAL_BENCH")
  say "using BENCH=$TASK_BENCH (no build)"
elif [ "$CFG_BUILD_PER_NODE" -eq 1 ]; then
  TASK_BENCH=per-node
  # A local bench for --list (--resume), the summary and the rollup.
  find_local_bench LOCAL_BENCH "$SRC" || true
elif [ "$BUILD" -eq 1 ]; then
  new_log LOG build
  say "build: cmake -S $SRC -B $BUILD_DIR ${CFG_BUILD_OPTS[*]} (log $LOG)"
  if ! build_logged "$LOG" "$SRC" "$BUILD_DIR" "$CFG_BUILD_JOBS" "${CFG_BUILD_OPTS[@]}" -- "${CFG_BUILD_TARGETS[@]}"; then
    record_run build "" 4 "the build failed: see $LOG"
    finish "partition $PARTITION"
  fi
  LOCAL_BENCH=$BUILD_DIR/bin/bench
  TASK_BENCH=$(cd -- "$BUILD_DIR" && pwd -P)/bin/bench
else
  LOCAL_BENCH=$BUILD_DIR/bin/bench
  [ -x "$LOCAL_BENCH" ] || die 2 "no bench at $LOCAL_BENCH (build first, or set BENCH)"
  TASK_BENCH=$(cd -- "$BUILD_DIR" && pwd -P)/bin/bench
fi
# plugins_of BUILD: the plugin folder of a build (lib/bench/plugins, or
# lib64/... or lib/<multiarch>/... as GNUInstallDirs names it).
plugins_of() {
  local d
  for d in "$1"/lib/bench/plugins "$1"/lib*/bench/plugins "$1"/lib/*/bench/plugins; do
    [ -d "$d" ] && { (cd -- "$d" && pwd -P); return 0; }
  done
  return 1
}

# --ab-base: REV built beside the shared build, once per commit and options.
if [ "$INTERRUPTED" -eq 0 ] && [ -n "$AB_SHA" ]; then
  AB_NEW=$(plugins_of "$(dirname -- "$TASK_BENCH")/..") || die 2 "no plugin folder beside $TASK_BENCH"
  base=$BUILD_DIR.ab-base/$AB_SHA
  base_targets=()
  for t in "${CFG_BUILD_TARGETS[@]}"; do [ "$t" = bench ] || base_targets+=("$t"); done
  base_key="options ${CFG_BUILD_OPTS[*]}; targets ${base_targets[*]:-all}"
  if [ -f "$base/built" ] && [ "$(cat -- "$base/built")" = "$base_key" ] && plugins_of "$base/build" >/dev/null; then
    say "--ab-base $AB_BASE ($AB_SHA) is built already: reused ($base)"
  else
    new_log LOG build-base
    say "build --ab-base $AB_BASE ($AB_SHA) in $base: cmake ${CFG_BUILD_OPTS[*]}${base_targets[*]:+; targets ${base_targets[*]}} (log $LOG)"
    mkdir -p -- "$base"
    rm -rf -- "$base/built" "$base/src.new"
    mkdir -- "$base/src.new"
    ok_build=0
    if git -C "$SRC" archive --format=tar "$AB_SHA" | tar -x -f - -C "$base/src.new"; then
      rm -rf -- "$base/src"
      mv -- "$base/src.new" "$base/src"
      if build_logged "$LOG" "$base/src" "$base/build" "$CFG_BUILD_JOBS" "${CFG_BUILD_OPTS[@]}" -- "${base_targets[@]}" &&
        plugins_of "$base/build" >/dev/null; then
        ok_build=1
        printf '%s\n' "$base_key" >"$base/built"
      fi
    fi
    if [ "$ok_build" -eq 0 ]; then
      if [ "$INTERRUPTED" -eq 1 ]; then
        record_run build-base "" 130 "interrupted during the --ab-base build"
      else
        warn "--ab-base $AB_BASE ($AB_SHA) did not build: nothing was submitted (see $LOG)"
        record_run build-base "" 4 "--ab-base $AB_BASE did not build: see $LOG"
      fi
      finish "partition $PARTITION"
    fi
  fi
  AB_OLD=$(plugins_of "$base/build")
fi
[ "$INTERRUPTED" -eq 0 ] || {
  record_run interrupted "" 130 "stopped by Ctrl-C before anything was submitted"
  finish "partition $PARTITION"
}

# --- plan ----------------------------------------------------------------------------
RUN_ID=$(date +%Y%m%dT%H%M%S)-$$
W=$RESULTS_DIR/.slurm/$RUN_ID
mkdir -p -- "$W/tasks" "$W/presets"
echo $$ >"$W/owner"
echo "$TASK_BENCH" >"$W/bench"
echo "$SRC" >"$W/src"
echo "$CFG_BUILD_JOBS" >"$W/build-jobs"
printf '%s\0' "${CFG_BUILD_OPTS[@]}" >"$W/build-options"
printf '%s\0' "${CFG_BUILD_TARGETS[@]}" >"$W/build-targets"

# shellcheck disable=SC2317 # called by plan_preset
list_local() {
  [ -n "${LOCAL_BENCH:-}" ] || return 0
  list_plugins "$LOCAL_BENCH" "$@" "${BENCH_ARGS[@]}"
}

TASKS=() TASK_NODE=()
declare -A STATE=()
n=0
today=$(date +%F)
for node in "${NODES[@]}"; do
  if [ "$CFG_TAG_BY" = node ]; then TAG=$node; else TAG=$PARTITION; fi
  for preset in "${PRESETS[@]}"; do
    plan=0
    plan_preset PLAN_ARGS PLAN_SKIPPED "$preset" "$today" list_local "${LOCAL_BENCH:-}" || plan=1
    [ ${#PLAN_SKIPPED[@]} -eq 0 ] || say "$preset on $node: skipping ${PLAN_SKIPPED[*]}: results for today already home"
    if [ "$plan" -eq 1 ]; then
      record_run "$(preset_part "$preset") @ $node" "" 0 "nothing to run: results for today already home"
      continue
    fi
    parg=$preset
    if is_preset_file "$preset"; then
      parg=$W/presets/${preset##*/}
      [ -f "$parg" ] || cp -- "$preset" "$parg"
    fi
    d=$W/tasks/$n
    mkdir -p -- "$d"
    echo "$node" >"$d/node"
    echo "$preset" >"$d/preset"
    echo "$TAG" >"$d/tag"
    if [ -n "$AB_SHA" ]; then
      # bench ab tags its result files old and new itself
      printf '%s\0' ab "$AB_OLD" "$AB_NEW" --preset "$parg" "${PLAN_ARGS[@]}" "${BENCH_ARGS[@]}" >"$d/args"
    else
      printf '%s\0' --preset "$parg" "${PLAN_ARGS[@]}" --tag "$TAG" "${BENCH_ARGS[@]}" >"$d/args"
    fi
    TASKS+=("$n")
    TASK_NODE+=("$node")
    STATE[$n]=SUBMITTING
    n=$((n + 1))
  done
done
if [ ${#TASKS[@]} -eq 0 ]; then
  rm -rf -- "$W"
  rollup
  finish "partition $PARTITION"
fi

# --- submit ---------------------------------------------------------------------------
# One job array per node, pinned with --nodelist, its task ids the global
# task numbers of that node (--array=0,1 for n1, --array=2,3 for n2 ...), so
# that every task id names one folder of W/tasks. (One array for every node,
# each task pinned with scontrol update ReqNodeList, stalls here: Slurm's
# scheduler stops at the first pinned task whose node is busy.)
sb=(sbatch --parsable --job-name="bench-$RUN_ID" --partition="$PARTITION"
  --nodes=1 --ntasks=1 --output="$W/tasks/%a/slurm.out" --chdir="$W" --export=ALL
  --signal=B:TERM@30)
[ "$CFG_EXCLUSIVE" -eq 0 ] || sb+=(--exclusive)
[ -z "$CFG_TIME" ] || sb+=(--time="$CFG_TIME")
[ -z "$CFG_ACCOUNT" ] || sb+=(--account="$CFG_ACCOUNT")
[ -z "$CFG_GPUS_PER_NODE" ] || sb+=(--gpus-per-node="$CFG_GPUS_PER_NODE")
say "submitting ${#TASKS[@]} task(s) on ${NODES[*]} (partition $PARTITION): ${sb[*]} ${CFG_SBATCH_OPTS[*]} --nodelist=NODE --array=TASKS $LIBDIR/slurm-task.sh $W"
JOBS=()
for node in "${NODES[@]}"; do
  ids=''
  for i in "${TASKS[@]}"; do
    [ "${TASK_NODE[i]}" != "$node" ] || ids+=${ids:+,}$i
  done
  [ -n "$ids" ] || continue
  set +e
  job=$("${sb[@]}" --nodelist="$node" --array="$ids" "${CFG_SBATCH_OPTS[@]}" "$LIBDIR/slurm-task.sh" "$W" </dev/null)
  rc=$?
  set -e
  job=${job%%;*}
  if [ "$rc" -ne 0 ] || ! [[ $job =~ ^[0-9]+$ ]]; then
    [ ${#JOBS[@]} -eq 0 ] || scancel "${JOBS[@]}" 2>/dev/null || true
    rm -rf -- "$W"
    record_run submit "" 2 "sbatch refused the array for $node (status $rc; see above)"
    finish "partition $PARTITION"
  fi
  JOBS+=("$job")
  for i in ${ids//,/ }; do echo "$job" >"$W/tasks/$i/job"; done
  echo "${JOBS[*]}" | write_atomic "$W/job"
  say "job array $job: task(s) $ids on $node"
done
JOBLIST=$(IFS=,; echo "${JOBS[*]}")
say "run folder $W"

# --- follow ----------------------------------------------------------------------------
# From here on nothing stops the script half way: Ctrl-C also reaches the
# commands it runs (a squeue, a $(...) subshell), and their failure must
# not end it before the arrays are cancelled and their results gathered.
set +e
declare -A GOT=() ENDED_AT=()
lost_since=''
while :; do
  if [ "$INTERRUPTED" -eq 1 ] && [ "$CANCELLED" -eq 0 ]; then
    # The waiting tasks are cancelled; the running ones get SIGTERM in
    # their batch shell only, which stops bench cleanly (Slurm's own
    # cancel signals every process, bench's case child too, and the case
    # would read as a crash); what has not ended 30 s later is cancelled.
    say "interrupted: cancelling job array(s) ${JOBS[*]} (scancel); what finished is kept"
    scancel --state=PENDING "${JOBS[@]}" 2>/dev/null
    scancel --batch --signal=TERM "${JOBS[@]}" 2>/dev/null || warn "scancel --batch ${JOBS[*]} failed"
    CANCELLED=1 CANCEL_AT=$SECONDS
    trap - INT # a second Ctrl-C stops this script; the arrays are cancelled already
  fi
  if ! squeue_array "$JOBLIST"; then
    # No answer this time (slurmctld busy or down, or squeue cut by Ctrl-C):
    # nothing is decided until it answers again.
    : "${lost_since:=$SECONDS}"
    if [ $((SECONDS - lost_since)) -gt 120 ]; then
      warn "slurmctld has not answered for 2 minutes: leaving job array(s) ${JOBS[*]} to themselves; run again with --resume to gather them"
      rm -f -- "$W/owner"
      record_run "jobs ${JOBS[*]}" "" 3 "lost contact with slurmctld; results stay in $W until the next run"
      rollup
      finish "partition $PARTITION"
    fi
    sleep "$CFG_POLL" &
    wait $! 2>/dev/null || true
    continue
  fi
  lost_since=''
  if [ "$CANCELLED" -eq 1 ] && [ -n "${CANCEL_AT:-}" ] && [ $((SECONDS - CANCEL_AT)) -gt 30 ]; then
    warn "tasks still running 30 s after Ctrl-C: scancel ${JOBS[*]}"
    scancel "${JOBS[@]}" 2>/dev/null
    CANCEL_AT=''
  fi
  left=0
  for i in "${TASKS[@]}"; do
    [ -z "${GOT[$i]:-}" ] || continue
    s=$(task_state "$i")
    STATE[$i]=$s
    if [ "$s" = UNKNOWN ] || active_state "$s"; then
      left=$((left + 1))
      continue
    fi
    # Ended for Slurm: give the exit file (a shared filesystem may lag) a
    # few seconds when the task got to start.
    if [ -z "$(task_rc "$W/tasks/$i")" ] && [ -f "$W/tasks/$i/started" ]; then
      : "${ENDED_AT[$i]:=$SECONDS}"
      if [ $((SECONDS - ENDED_AT[$i])) -lt 10 ]; then
        left=$((left + 1))
        continue
      fi
    fi
    show_table
    gather_task "$i" "$s"
    GOT[$i]=1
  done
  show_table
  [ "$left" -gt 0 ] || break
  sleep "$CFG_POLL" &
  wait $! 2>/dev/null || true
done

rm -rf -- "$W"
rmdir -- "$RESULTS_DIR/.slurm" 2>/dev/null || true
rollup
[ "$INTERRUPTED" -eq 0 ] || [[ " ${RUN_RCS[*]} " == *" 130 "* ]] || record_run interrupted "" 130 "stopped by Ctrl-C"
finish "partition $PARTITION"
