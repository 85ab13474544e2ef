# shellcheck shell=bash disable=SC2034 # the CFG_* and SQ_* variables are the caller's
# Sourced by scripts/run_presets_slurm.sh (after scripts/lib/presets.sh),
# never run: its configuration file, the partition's nodes, the run folder
# the array tasks share with this script, squeue's view of the array, the
# live table and the gathering of a task's results.
#
# The run folder W (RESULTS/.slurm/<run id>/, on a filesystem the nodes
# share) holds:
#   job                  the array's job id (written once it is submitted)
#   bench                the bench the tasks run, or "per-node" (--build-per-node)
#   src                  the source tree (for --build-per-node)
#   build-options, build-targets   NUL-separated words (--build-per-node)
#   presets/             copies of preset files given by path
#   tasks/I/             array task I (SLURM_ARRAY_TASK_ID):
#     node, preset, tag    what the script planned (one line each)
#     args                 bench's arguments, NUL-separated
#     started              "JOBID NODE EPOCH", written by the task when it starts
#     log                  bench's events (stdout) and per-case/PROGRESS lines
#     results/             bench --results-dir
#     node-diag.txt        free -h, rocm-smi, dmesg from the node (failed runs)
#     rc                   "rc N" and maybe "signal TERM": the task's exit file,
#                          written last
#     slurm.out            the batch script's own output (sbatch --output)
#     gathered             written here once the results are home

# --- configuration ----------------------------------------------------------

# yes_no VAR KEY VALUE WHERE: 1 or 0 into VAR for yes/no/true/false/on/off/1/0
# (a variable, not output: die must end the script, not a subshell).
yes_no() {
  local -n _yes=$1
  case ${3,,} in
  1 | yes | true | on) _yes=1 ;;
  0 | no | false | off) _yes=0 ;;
  *) die 2 "$4: $2 must be yes or no, got '$3'" ;;
  esac
}

# slurm_config_key KEY VALUE WHERE: one pair of the configuration file
# (read_config in presets.sh); 1 for an unknown key.
slurm_config_key() {
  case $1 in
  SLURM_PARTITION) CFG_PARTITION=$2 ;;
  SLURM_NODES) CFG_NODES=$2 ;;
  SLURM_NODELIST) CFG_NODELIST=$2 ;;
  SLURM_TIME) CFG_TIME=$2 ;;
  SLURM_ACCOUNT) CFG_ACCOUNT=$2 ;;
  SLURM_GPUS_PER_NODE) CFG_GPUS_PER_NODE=$2 ;;
  SLURM_TAG_BY) CFG_TAG_BY=$2 ;;
  SLURM_EXCLUSIVE) yes_no CFG_EXCLUSIVE "$1" "$2" "$3" ;;
  SLURM_SBATCH_OPTIONS) split_words CFG_SBATCH_OPTS "$2" ;;
  SLURM_BUILD_PER_NODE) yes_no CFG_BUILD_PER_NODE "$1" "$2" "$3" ;;
  SLURM_BUILD_DIR) CFG_BUILD_DIR=$2 ;;
  SLURM_BUILD_OPTIONS) split_words CFG_BUILD_OPTS "$2" ;;
  SLURM_BUILD_TARGETS) split_words CFG_BUILD_TARGETS "$2" ;;
  SLURM_BUILD_JOBS) CFG_BUILD_JOBS=$2 ;;
  SLURM_RESULTS_DIR) CFG_RESULTS_DIR=$2 ;;
  SLURM_POLL) CFG_POLL=$2 ;;
  *) return 1 ;;
  esac
}

# load_slurm_config FILE: the configuration (see scripts/slurm.conf.example);
# sets the CFG_* variables.
load_slurm_config() { read_config "$1" slurm_config_key scripts/slurm.conf.example; }

# --- nodes ------------------------------------------------------------------

# default_partition: the partition sinfo marks as the default ("name*").
default_partition() {
  { sinfo -h -o '%P' 2>/dev/null || true; } | sed -n 's/\*$//p' | head -n 1
}

# usable_nodes PARTITION: the partition's nodes that can take a job (not
# down, drained, failing or not responding), one per line, in sinfo's order.
usable_nodes() {
  { sinfo -h -N -p "$1" -o '%N %t' 2>/dev/null || true; } | awk '
    $2 ~ /\*$/ { next }                         # not responding
    $2 ~ /^(down|drain|drng|drained|fail|failg|maint|unk|boot|futr|npc|pow|inval|plnd|resv)/ { next }
    !seen[$1]++ { print $1 }'
}

# --- squeue -----------------------------------------------------------------

# squeue_array JOB: the array's tasks as squeue sees them, including the
# ended ones it still remembers (MinJobAge), into the associative arrays
# SQ_STATE, SQ_NODE and SQ_REASON keyed by task index. Returns 1 when
# squeue could not be asked (slurmctld down or unreachable).
squeue_array() {
  local out err idx state node reason
  SQ_STATE=() SQ_NODE=() SQ_REASON=()
  err=$(mktemp)
  if ! out=$(squeue -h -r -j "$1" -t all -o '%K|%T|%N|%r' 2>"$err"); then
    # Job ids slurmctld has forgotten (MinJobAge) are an error for squeue
    # -j: that is "nothing left". Anything else (slurmctld unreachable,
    # squeue killed by Ctrl-C) is "cannot ask".
    if grep -qi 'invalid job id' "$err"; then
      rm -f -- "$err"
      return 0
    fi
    rm -f -- "$err"
    return 1
  fi
  rm -f -- "$err"
  while IFS='|' read -r idx state node reason; do
    [[ $idx =~ ^[0-9]+$ ]] || continue
    SQ_STATE[idx]=$state
    SQ_NODE[idx]=$node
    SQ_REASON[idx]=$reason
  done <<<"$out"
  return 0
}

# active_state STATE: a Slurm job state of a task not ended yet.
active_state() {
  case $1 in
  PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED | REQUEUED | REQUEUE_HOLD | REQUEUE_FED | RESIZING | SIGNALING | STAGE_OUT | STOPPED) return 0 ;;
  *) return 1 ;;
  esac
}

# --- a task's files -----------------------------------------------------------

# task_field DIR NAME: one line file of a task folder (empty when missing).
task_field() { head -n 1 -- "$1/$2" 2>/dev/null || true; }

# task_rc DIR: the exit status the task wrote ("" while it has not).
task_rc() { { sed -n 's/^rc //p' -- "$1/rc" 2>/dev/null || true; } | head -n 1; }

# task_signalled DIR: did the task get SIGTERM (time limit or scancel)?
task_signalled() { grep -q '^signal ' -- "$1/rc" 2>/dev/null; }

# task_progress CASES ETA BENCH DIR: the cases of task folder DIR as
# "done/total" and its ETA, from its events log as BENCH reads it (`bench
# events LOG --summary`), into the variables CASES and ETA name; "-" for
# what cannot be told (no log yet, or no local BENCH).
task_progress() {
  local -n _cases=$1 _eta=$2
  local bench=$3 log=$4/log k v ndone='' total='' eta=''
  _cases=- _eta=-
  [ -n "$bench" ] && [ -f "$log" ] || return 0
  while IFS='=' read -r k v; do
    case $k in
    done) ndone=$v ;;
    cases) total=$v ;;
    eta) eta=$v ;;
    esac
  done < <("$bench" events "$log" --summary 2>/dev/null || true)
  [ -n "$ndone" ] || return 0
  [ -n "$total" ] && [ "$total" != 0 ] || total='?'
  _cases=$ndone/$total
  _eta=${eta:--}
}

