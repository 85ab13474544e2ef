#!/usr/bin/env bash
# Run bench presets on another machine over ssh and bring the results home.
#
#   scripts/run_presets_remote.sh [options] HOST [PRESETS] [PLUGINS] [-- BENCH_ARGS...]
#
# PRESETS and PLUGINS are comma lists (default: smoke; every plugin); a
# preset is a shipped name or a local .ini file (uploaded for the run).
# BENCH_ARGS go to the remote bench as they are (e.g. --mode debug,
# --plugin-dir DIR on the remote). HOST is an ssh destination; user, key and
# port come from ~/.ssh/config. HOST may be "-" (or left out with no other
# arguments) to use REMOTE_HOST from the configuration.
#
# What it does:
#   1. rsync the source tree to REMOTE_PATH (changed files only; never .git,
#      build*/, results/ or anything fetched from a remote);
#   2. configure and build there: cmake -S . -B build $BUILD_OPTIONS, reusing
#      the remote build folder;
#   3. run each preset there, detached from the connection, streaming it
#      live: the case lines and a PROGRESS line (redrawn in place on a
#      terminal) here, everything with bench's JSON events in
#      RESULTS/logs/<time>_<preset>_<tag>.log;
#   4. fetch the result files (named and tagged with the host's tag by the
#      remote bench's --tag) into a temporary folder inside RESULTS, move the
#      complete files into place, and rebuild RESULTS/rollup.csv with a local
#      bench ($BENCH, build/bin/bench, or one built into build/);
#   5. print a summary; exit 0 only if every case was OK or SKIPPED.
# A failed case or a dropped connection leaves RESULTS/diag_<time>_<preset>_<tag>.txt
# (the remote's dmesg, free -h, df -h, rocm-smi and log tail, or the ssh error).
# A run outlives a dropped connection; the next invocation against the same
# REMOTE_PATH collects it first, and --resume then runs only what is missing.
#
# The remote needs bash, rsync, cmake and bench's build dependencies, GNU
# coreutils (tail --pid) and setsid (util-linux), and a POSIX-like login
# shell (sh, bash, zsh): every word of a remote command is single-quoted.
# Missing tools are named before anything is synced. REMOTE_SETUP (e.g.
# `module load rocm/6.2`) runs before every remote step. One run at a time
# per REMOTE_PATH; a second session against the same REMOTE_PATH collects a
# run it finds going, and a result already home is never fetched again.
#
# Options (they override the configuration file):
#   --config FILE       configuration (default: $BENCH_REMOTE_CONFIG, else
#                       ~/.config/bench/remote.conf when it exists); see
#                       scripts/remote.conf.example
#   --tag TAG           tag of result names and rows (default: REMOTE_TAG when
#                       HOST is the configured REMOTE_HOST, else HOST)
#   --remote-setup CMD  REMOTE_SETUP: shell commands run on the remote before
#                       each step (PATH, `module load ...`)
#   --remote-path PATH  REMOTE_PATH: the tree on the remote, relative to its
#                       home or absolute (default: bench-remote)
#   --ssh-option OPT    add one word to SSH_OPTIONS (repeatable)
#   --rsync-option OPT  add one word to RSYNC_OPTIONS (repeatable)
#   --build-option OPT  add one word to BUILD_OPTIONS (repeatable)
#   --build-target T    build only T (repeatable; BUILD_TARGETS; default: all)
#   --jobs N            BUILD_JOBS: remote build jobs (default: its core count)
#   --results-dir DIR   where results come home (default: results/ of this tree)
#   --resume            skip the preset/plugin pairs whose results for the
#                       remote's today are already in the results folder
#                       with every case OK or SKIPPED
#   --no-sync           do not sync the tree (run what is there)
#   --no-build          do not build (use the remote's existing build)
#   --ab-base REV       run `bench ab` on the remote instead of bench: REV (a
#                       commit of this repository, e.g. main or HEAD~3) is
#                       sent as a `git archive` and built beside the tree in
#                       REMOTE_PATH/.bench-remote/base/<commit>/ (with the
#                       same BUILD_OPTIONS and targets, bench left out; kept,
#                       so later runs reuse it), then for each preset
#                       `bench ab REV_PLUGINS TREE_PLUGINS --preset P
#                       [--plugin ...] BENCH_ARGS` (e.g. -- --fail-on slower
#                       --threshold 2%); the result files, tagged old and
#                       new, come home as above and ab's exit status is the
#                       script's (1: a case in --fail-on). A REV that is not
#                       a commit is refused before anything is synced; one
#                       that does not build exits 4.
#   -h, --help
# Exit status: see scripts/lib/presets.sh (0 ok, 1 a case failed, 2 usage or
# configuration, 3 connection, 4 build, 130 interrupted).
set -euo pipefail

SRC=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
LIBDIR=$SRC/scripts/lib
PROG=run_presets_remote.sh
# shellcheck source-path=SCRIPTDIR source=lib/presets.sh
. "$LIBDIR/presets.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

# --- configuration ---------------------------------------------------------
REMOTE_HOST='' REMOTE_PATH=bench-remote REMOTE_TAG='' REMOTE_SETUP='' BUILD_JOBS=0 TAG_OPT=''
SSH_OPTS=() RSYNC_OPTS=() BUILD_OPTS=() BUILD_TARGETS=()

# remote_config_key KEY VALUE WHERE: one pair of the configuration file
# (read_config); 1 for an unknown key.
remote_config_key() {
  case $1 in
  REMOTE_HOST) REMOTE_HOST=$2 ;;
  REMOTE_PATH) REMOTE_PATH=$2 ;;
  REMOTE_TAG) REMOTE_TAG=$2 TAG_WHERE=$3 ;;
  REMOTE_SETUP) REMOTE_SETUP=$2 ;;
  BUILD_JOBS) BUILD_JOBS=$2 ;;
  SSH_OPTIONS) split_words SSH_OPTS "$2" ;;
  RSYNC_OPTIONS) split_words RSYNC_OPTS "$2" ;;
  BUILD_OPTIONS) split_words BUILD_OPTS "$2" ;;
  BUILD_TARGETS) split_words BUILD_TARGETS "$2" ;;
  *) return 1 ;;
  esac
}

# load_config FILE: the configuration (see scripts/remote.conf.example).
load_config() {
  TAG_WHERE=$1
  read_config "$1" remote_config_key scripts/remote.conf.example
  if [ -n "$REMOTE_TAG" ] && [ -z "$REMOTE_HOST" ]; then
    die 2 "$TAG_WHERE: REMOTE_TAG is the tag of REMOTE_HOST, and no REMOTE_HOST is set (other hosts are tagged with their own name, or --tag)"
  fi
}

# The configuration file first, so that options override it wherever they
# stand on the command line.
BENCH_REMOTE_CONFIG=${BENCH_REMOTE_CONFIG:-}
config_option config BENCH_REMOTE_CONFIG "$@"
if [ -n "$config" ]; then
  load_config "$config"
elif [ -f "${XDG_CONFIG_HOME:-$HOME/.config}/bench/remote.conf" ]; then
  load_config "${XDG_CONFIG_HOME:-$HOME/.config}/bench/remote.conf"
fi

RESUME=0 SYNC=1 BUILD=1 RESULTS_DIR=$SRC/results AB_BASE='' AB_SHA=''
pos=()
while [ $# -gt 0 ]; do
  case $1 in
  -h | --help) usage; exit 0 ;;
  --config | --config=*) take_value v n "$@"; shift "$n" ;;
  --tag | --tag=*) take_value TAG_OPT n "$@"; [ -n "$TAG_OPT" ] || die 2 "empty --tag"; shift "$n" ;;
  --remote-setup | --remote-setup=*) take_value REMOTE_SETUP n "$@"; shift "$n" ;;
  --remote-path | --remote-path=*) take_value REMOTE_PATH n "$@"; shift "$n" ;;
  --ssh-option | --ssh-option=*) take_value v n "$@"; SSH_OPTS+=("$v"); shift "$n" ;;
  --rsync-option | --rsync-option=*) take_value v n "$@"; RSYNC_OPTS+=("$v"); shift "$n" ;;
  --build-option | --build-option=*) take_value v n "$@"; BUILD_OPTS+=("$v"); shift "$n" ;;
  --build-target | --build-target=*) take_value v n "$@"; BUILD_TARGETS+=("$v"); shift "$n" ;;
  --jobs | --jobs=*) take_value BUILD_JOBS n "$@"; shift "$n" ;;
  --results-dir | --results-dir=*) take_value RESULTS_DIR n "$@"; shift "$n" ;;
  --resume) RESUME=1; shift ;;
  --no-sync) SYNC=0; shift ;;
  --no-build) BUILD=0; shift ;;
  --ab-base | --ab-base=*) take_value AB_BASE n "$@"; [ -n "$AB_BASE" ] || die 2 "empty --ab-base"; shift "$n" ;;
  --) pos+=("$@"); break ;;
  -?*) die 2 "unknown option '$1' (see --help)" ;;
  *) pos+=("$1"); shift ;;
  esac
done

HOST=${pos[0]:-}
[ ${#pos[@]} -eq 0 ] || pos=("${pos[@]:1}")
if [ -z "$HOST" ] || [ "$HOST" = - ]; then HOST=$REMOTE_HOST; fi
[ -n "$HOST" ] || die 2 "no HOST given and no REMOTE_HOST configured (see --help)"
[[ $HOST != -* ]] || die 2 "bad HOST '$HOST'"
parse_positionals "${pos[@]}"

# REMOTE_PATH: never empty or the root; "~/x" is x under the remote home.
# shellcheck disable=SC2088 # a literal ~, for the remote
case $REMOTE_PATH in
'~') REMOTE_PATH='' ;;
'~/'*) REMOTE_PATH=${REMOTE_PATH#'~/'} ;;
esac
[ -n "${REMOTE_PATH//\//}" ] || die 2 "refusing REMOTE_PATH '$REMOTE_PATH': empty, the root folder or the home folder"
[[ $BUILD_JOBS =~ ^[0-9]+$ ]] || die 2 "bad --jobs '$BUILD_JOBS'"
# The configured tag names the configured host only: another host given on
# the command line is tagged with its own name unless --tag says otherwise.
if [ -n "$TAG_OPT" ]; then
  TAG=$TAG_OPT
elif [ -n "$REMOTE_TAG" ] && [ "$HOST" = "$REMOTE_HOST" ]; then
  TAG=$REMOTE_TAG
else
  TAG=${HOST##*@}
  [ -z "$REMOTE_TAG" ] || say "tag $TAG: REMOTE_TAG '$REMOTE_TAG' is the tag of $REMOTE_HOST, not of $HOST"
fi
[ -n "$TAG" ] || die 2 "empty tag"
for p in "${PRESETS[@]}"; do
  if is_preset_file "$p" && [ ! -f "$p" ]; then die 2 "no preset file '$p'"; fi
done
if [ -n "$AB_BASE" ]; then
  [ "$RESUME" -eq 0 ] || die 2 "--resume does not apply to --ab-base runs (bench ab measures both sides each time)"
  command -v git >/dev/null 2>&1 || die 2 "--ab-base needs git on this machine"
  # A commit of this repository: its full id names the remote build.
  AB_SHA=$(git -C "$SRC" rev-parse --verify --quiet --end-of-options "$AB_BASE^{commit}" 2>/dev/null) ||
    die 2 "--ab-base '$AB_BASE': no such commit in $SRC (nothing was synced)"
fi
mkdir -p -- "$RESULTS_DIR" || die 2 "cannot create results folder '$RESULTS_DIR'"
RESULTS_DIR=$(cd -- "$RESULTS_DIR" && pwd -P)
# Fetch folders left by an invocation that was killed (its pid is gone).
for d in "$RESULTS_DIR"/.fetch.*.*; do
  [ -d "$d" ] || continue
  owner=${d##*/.fetch.}
  owner=${owner%%.*}
  kill -0 "$owner" 2>/dev/null || rm -rf -- "$d"
done

# --- ssh -------------------------------------------------------------------
WORK=$(mktemp -d /tmp/bench-remote.XXXXXX)
FETCH_TMP=''
# shellcheck disable=SC2317 # called by the traps and through plan_preset
cleanup() {
  [ -z "$FETCH_TMP" ] || rm -rf -- "$FETCH_TMP"
  [ ! -S "$WORK/cm" ] || "$WORK/ssh" -O exit "$HOST" >/dev/null 2>&1 || true
  rm -rf -- "$WORK"
}
trap cleanup EXIT
INTERRUPTED=0
trap 'INTERRUPTED=1' INT

# shq WORD: WORD quoted for a POSIX shell ('...', with ' as '\'').
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# One ssh for everything: the user's options first (for ssh the first value
# of an option wins), then one shared connection and keep-alives, so that a
# dead link is noticed within a minute.
# Its error messages are also kept in $WORK/ssh.err for the diag files: the
# wrapper ends only once its tee has written them all (the background
# ControlMaster that ssh may leave has its stderr on /dev/null).
: >"$WORK/ssh.err"
{
  printf '#!/usr/bin/env bash\nexec 2> >(tee -a %s >&2)\ntee_pid=$!\nssh' "$(shq "$WORK/ssh.err")"
  for o in "${SSH_OPTS[@]}"; do printf ' %s' "$(shq "$o")"; done
  printf ' %s' -o ControlMaster=auto -o "ControlPath=$WORK/cm" -o ControlPersist=120 \
    -o ServerAliveInterval=15 -o ServerAliveCountMax=4 -o ConnectTimeout=20
  printf ' "$@"\nrc=$?\nexec 2>&-\nwait "$tee_pid"\nexit "$rc"\n'
} >"$WORK/ssh"
chmod +x "$WORK/ssh"
AGENT=$(cat "$LIBDIR/remote-agent.sh")

# remote VERB ARG...: run the agent's VERB on the remote with ROOT=REMOTE_PATH;
# every word quoted, so nothing in a name or path is run by either shell.
# REMOTE_SETUP travels in the agent's environment; the agent runs it first.
remote() {
  local cmd a
  cmd="BENCH_REMOTE_SETUP=$(shq "$REMOTE_SETUP") bash -c $(shq "$AGENT") bench-remote $(shq "$1") $(shq "$REMOTE_PATH")"
  shift
  for a in "$@"; do cmd+=" $(shq "$a")"; done
  "$WORK/ssh" -- "$HOST" "$cmd" </dev/null
}
# remote_stdin VERB ARG...: the same with this script's stdin (upload).
remote_stdin() {
  local cmd a
  cmd="BENCH_REMOTE_SETUP=$(shq "$REMOTE_SETUP") bash -c $(shq "$AGENT") bench-remote $(shq "$1") $(shq "$REMOTE_PATH")"
  shift
  for a in "$@"; do cmd+=" $(shq "$a")"; done
  "$WORK/ssh" -- "$HOST" "$cmd"
}

RSYNC=(rsync -s -e "$WORK/ssh")
# The rsync address of a path under REMOTE_PATH (-s: the path is not seen by
# the remote shell).
raddr() { printf '%s:%s' "$HOST" "$REMOTE_PATH${1:+/$1}"; }

# --- diagnostics ------------------------------------------------------------
# write_diag PRESET ID WHAT [LOG]: a diag file beside the results: what
# happened, the remote's view (dmesg OOM/killed lines, free -h, rocm-smi,
# the run log's tail) when it can be reached, else the local log's tail.
write_diag() {
  local preset=$1 id=$2 what=$3 log=${4:-} path
  path=$(diag_path "$preset")
  {
    echo "== $what"
    echo "host $HOST, tag $TAG, REMOTE_PATH $REMOTE_PATH, preset $preset, run ${id:-none}, at $(date '+%F %T %z')"
    echo
    if [ -n "$id" ] && remote diag "$id" 2>&1; then
      :
    else
      echo "(the remote could not be asked: no dmesg, free -h, df or rocm-smi from it this time)"
      echo
      echo "== what ssh and the remote said on stderr (last 20 lines)"
      tail -n 20 -- "$WORK/ssh.err" 2>/dev/null | grep . || echo "(nothing)"
      if [ -n "$log" ] && [ -f "$log" ]; then
        echo
        echo "== the run's log as streamed here ($log), last 80 lines"
        tail -n 80 -- "$log"
      fi
    fi
  } | write_atomic "$path"
  say "diagnostics: $path"
}

connection_lost() {
  local preset=$1 id=$2 log=${3:-} what
  what="the connection to $HOST was lost"
  if [ -n "$id" ]; then
    what+=" while preset $preset ran (remote run $id). The run goes on by itself on $HOST; run the same command again (with --resume to skip what is home) to collect it."
  fi
  warn "$what"
  write_diag "$preset" "$id" "$what" "$log"
}

# --- steps ------------------------------------------------------------------
sync_tree() {
  local -a ex=(--exclude=/.git --exclude='/build*/' --exclude=/results/ --exclude=/.bench-remote/
    --exclude='*.tmp.*')
  case $RESULTS_DIR/ in
  "$SRC"/?*) ex+=("--exclude=/${RESULTS_DIR#"$SRC"/}/") ;;
  esac
  say "sync $SRC -> $HOST:$REMOTE_PATH"
  "${RSYNC[@]}" -rlp --checksum --delete "${ex[@]}" "${RSYNC_OPTS[@]}" -- "$SRC/" "$(raddr)/"
}

# fetch_run ID: the run's result files into a temporary folder inside
# RESULTS_DIR, then placed (place_results: never overwritten, never twice).
fetch_run() {
  local id=$1
  FETCH_TMP=$(mktemp -d "$RESULTS_DIR/.fetch.$$.XXXXXX")
  "${RSYNC[@]}" -rt --include='*.json' --include='*.txt' --exclude='*' -- \
    "$(raddr ".bench-remote/runs/$id/results")/" "$FETCH_TMP/" || {
    local rc=$?
    rm -rf -- "$FETCH_TMP"
    FETCH_TMP=''
    return "$rc"
  }
  local placed home
  place_results "$FETCH_TMP" placed home
  rm -rf -- "$FETCH_TMP"
  FETCH_TMP=''
  if [ "$home" -eq 0 ]; then
    say "fetched $placed result file(s) into $RESULTS_DIR"
  else
    say "fetched $placed result file(s) into $RESULTS_DIR ($home already home, not fetched again)"
  fi
}

# follow_run ID LOG: stream the run into LOG and the terminal until it ends;
# Ctrl-C stops the remote run (its results so far are kept) and keeps
# following until it has ended. Sets RUN_RC: bench's status, or 255 when the
# connection dropped.
follow_run() {
  local id=$1 log=$2 rc
  set +e
  remote stream "$id" "$(stat -c %s -- "$log")" | tee -ai -- "$log" | (trap '' INT; show_stream)
  rc=${PIPESTATUS[0]}
  if [ "$INTERRUPTED" -eq 1 ]; then
    say "interrupted: stopping the remote run (Ctrl-C again leaves it running)"
    trap - INT
    remote stop "$id"
    remote stream "$id" "$(stat -c %s -- "$log")" | tee -ai -- "$log" | (trap '' INT; show_stream)
    rc=${PIPESTATUS[0]}
    trap 'INTERRUPTED=1' INT
  fi
  set -e
  RUN_RC=$rc
}

# finish_run PRESET ID LOG [NAME]: after a run ended (RUN_RC): fetch,
# diagnose, clean up, record (as NAME, default PRESET). Returns 1 when the
# loop must stop.
finish_run() {
  local preset=$1 id=$2 log=$3 name=${4:-$1} rc=$RUN_RC note=''
  if [ "$rc" -eq 255 ]; then
    connection_lost "$preset" "$id" "$log"
    record_run "$name" "$log" 3 "connection lost; the run goes on at $HOST"
    return 1
  fi
  if ! remote has "$id" 2>/dev/null; then
    # Another session collecting the same run fetched and cleaned it first.
    say "run $id was collected by another session: its results are home there"
    record_run "$name" "$log" 0 "collected by another session"
    return 0
  fi
  if ! fetch_run "$id"; then
    connection_lost "$preset" "$id" "$log"
    record_run "$name" "$log" 3 "its results could not be fetched"
    return 1
  fi
  case $rc in
  0) ;;
  1) if [ -n "$AB_SHA" ]; then note="a case is in --fail-on"; else note="a case failed"; fi ;;
  2) note="bench refused the run (usage or configuration; see the log)" ;;
  130) note="interrupted" ;;
  99) note="the run ended without an exit status (killed?)" ;;
  *) note="bench exited with status $rc" ;;
  esac
  # (a regression bench ab found is no fault of the machine: no diag file)
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ] && [ "$rc" -ne 130 ] && { [ -z "$AB_SHA" ] || [ "$rc" -ne 1 ]; }; then
    write_diag "$preset" "$id" "preset $preset on $HOST: $note (bench exit status $rc)" "$log"
  fi
  remote clean "$id" || true
  if [ -n "$AB_SHA" ]; then
    # bench ab writes no events: its verdicts are the lines streamed above
    [ "$rc" -ne 0 ] || note="no case in --fail-on"
    record_run "$name (bench ab)" "" "$rc" "$note (verdicts above; log $log)"
  else
    record_run "$name" "$log" "$rc" "$note"
  fi
  [ "$rc" -ne 130 ]
}

# shellcheck disable=SC2317 # called by plan_preset
list_remote() { remote list "$@" "${BENCH_ARGS[@]}" 2>/dev/null || true; }

# --- main ------------------------------------------------------------------
say "remote $HOST:$REMOTE_PATH, tag $TAG, presets ${PRESETS[*]}, plugins ${PLUGINS[*]:-all}"
# The tools the remote needs, checked before anything is synced.
tools=(bash setsid tail flock)
[ "$SYNC" -eq 0 ] || tools+=(rsync)
[ -z "$AB_SHA" ] || tools+=(tar cmake cc c++)
if [ "$BUILD" -eq 1 ]; then
  tools+=(cmake cc c++)
  if [[ " ${BUILD_OPTS[*]} " == *Ninja* ]]; then tools+=(ninja); else tools+=(make); fi
fi
set +e
prep=$(remote prepare "${tools[@]}")
rc=$?
set -e
if [ "$rc" -eq 255 ]; then
  write_diag "${PRESETS[0]}" "" "cannot reach $HOST over ssh (ssh exit status 255)"
  die 3 "cannot reach $HOST over ssh"
fi
[ "$rc" -eq 0 ] || die 2 "could not prepare REMOTE_PATH '$REMOTE_PATH' on $HOST (see above)"
REMOTE_DATE=$(sed -n 's/^date //p' <<<"$prep")
: "${REMOTE_DATE:=$(date +%F)}"

# Runs left by an earlier session (a dropped connection): collect them first.
leftovers=$(sed -n 's/^run //p' <<<"$prep")
while read -r id state _ label; do
  [ -n "$id" ] || continue
  say "collecting run $id (${label:-?}) left by an earlier session: $state"
  new_log LOG "${label:-earlier}"
  follow_run "$id" "$LOG"
  finish_run "${label:-earlier}" "$id" "$LOG" "${label:-?} (an earlier run)" || break
done <<<"$leftovers"
if [[ " ${RUN_RCS[*]} " == *" 3 "* ]]; then
  find_local_bench LOCAL_BENCH "$SRC" || true
  rollup
  finish "$HOST"
fi

if [ "$INTERRUPTED" -eq 0 ] && [ "$SYNC" -eq 1 ]; then
  set +e
  sync_tree
  rc=$?
  set -e
  if [ "$rc" -ne 0 ] && [ "$INTERRUPTED" -eq 1 ]; then
    record_run sync "" 130 "interrupted during the sync"
    finish "$HOST"
  elif [ "$rc" -ne 0 ]; then
    if [ "$rc" -eq 255 ] || [ "$rc" -eq 12 ] || [ "$rc" -eq 10 ]; then connection_lost "${PRESETS[0]}" ""; fi
    record_run sync "" 3 "rsync to $HOST failed (status $rc)"
    finish "$HOST"
  fi
fi

if [ "$INTERRUPTED" -eq 0 ] && [ "$BUILD" -eq 1 ]; then
  new_log LOG build
  say "build on $HOST: cmake -S . -B build ${BUILD_OPTS[*]}${BUILD_TARGETS[*]:+; targets ${BUILD_TARGETS[*]}} (log $LOG)"
  set +e
  remote build "$BUILD_JOBS" "${BUILD_TARGETS[*]}" "${BUILD_OPTS[@]}" 2>&1 | tee -ai -- "$LOG"
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" -ne 0 ]; then
    if [ "$INTERRUPTED" -eq 1 ]; then
      record_run build "" 130 "interrupted during the build"
    elif [ "$rc" -eq 255 ]; then
      connection_lost build "" "$LOG"
      record_run build "" 3 "connection lost during the build"
    else
      record_run build "" 4 "the build on $HOST failed: see $LOG"
    fi
    find_local_bench LOCAL_BENCH "$SRC" || true
    rollup
    finish "$HOST"
  fi
fi

# --ab-base: the commit built beside the tree, once per commit and options.
if [ "$INTERRUPTED" -eq 0 ] && [ -n "$AB_SHA" ]; then
  base_targets=()
  for t in "${BUILD_TARGETS[@]}"; do [ "$t" = bench ] || base_targets+=("$t"); done
  base_key="options ${BUILD_OPTS[*]}; targets ${base_targets[*]:-all}"
  set +e
  remote base-has "$AB_SHA" "$base_key"
  rc=$?
  set -e
  if [ "$rc" -eq 0 ]; then
    say "--ab-base $AB_BASE ($AB_SHA) is built on $HOST already: reused"
  elif [ "$rc" -eq 255 ]; then
    connection_lost build-base ""
    record_run build-base "" 3 "connection lost before the --ab-base build"
    finish "$HOST"
  else
    new_log LOG build-base
    say "build --ab-base $AB_BASE ($AB_SHA) on $HOST in $REMOTE_PATH/.bench-remote/base/$AB_SHA: cmake ${BUILD_OPTS[*]}${base_targets[*]:+; targets ${base_targets[*]}} (log $LOG)"
    set +e
    git -C "$SRC" archive --format=tar "$AB_SHA" |
      remote_stdin base-build "$AB_SHA" "$base_key" "$BUILD_JOBS" "${base_targets[*]}" "${BUILD_OPTS[@]}" 2>&1 |
      tee -ai -- "$LOG"
    rcs=("${PIPESTATUS[@]}")
    set -e
    rc=${rcs[1]}
    [ "${rcs[0]}" -eq 0 ] || [ "$rc" -ne 0 ] || rc=4
    if [ "$rc" -ne 0 ]; then
      if [ "$INTERRUPTED" -eq 1 ]; then
        record_run build-base "" 130 "interrupted during the --ab-base build"
      elif [ "$rc" -eq 255 ]; then
        connection_lost build-base "" "$LOG"
        record_run build-base "" 3 "connection lost during the --ab-base build"
      else
        warn "--ab-base $AB_BASE ($AB_SHA) did not build on $HOST: nothing was run (see $LOG)"
        record_run build-base "" 4 "--ab-base $AB_BASE did not build on $HOST: see $LOG"
      fi
      find_local_bench LOCAL_BENCH "$SRC" || true
      rollup
      finish "$HOST"
    fi
  fi
fi

# --resume asks a local bench which results are home (bench results).
if [ "$RESUME" -eq 1 ] && [ "$INTERRUPTED" -eq 0 ]; then
  find_local_bench LOCAL_BENCH "$SRC" || warn "--resume: no local bench to read the results folder: every plugin runs"
fi
n=0
for preset in "${PRESETS[@]}"; do
  [ "$INTERRUPTED" -eq 0 ] || break
  n=$((n + 1))
  plan=0
  plan_preset PLAN_ARGS PLAN_SKIPPED "$preset" "$REMOTE_DATE" list_remote "${LOCAL_BENCH:-}" || plan=1
  [ ${#PLAN_SKIPPED[@]} -eq 0 ] || say "$preset: skipping ${PLAN_SKIPPED[*]}: results for $REMOTE_DATE already home"
  if [ "$plan" -eq 1 ]; then
    record_run "$preset" "" 0 "nothing to run: results for $REMOTE_DATE already home"
    continue
  fi
  id="$(date +%Y%m%dT%H%M%S)-$$-$n"
  parg=$preset
  if is_preset_file "$preset"; then
    parg=".bench-remote/runs/$id/presets/${preset##*/}"
    set +e
    remote_stdin upload "$parg" <"$preset"
    rc=$?
    set -e
    if [ "$rc" -ne 0 ]; then
      [ "$rc" -ne 255 ] || connection_lost "$preset" ""
      record_run "$preset" "" 3 "could not upload the preset file"
      break
    fi
  fi
  set +e
  if [ -n "$AB_SHA" ]; then
    bargs=(--preset "$parg" "${PLAN_ARGS[@]}" "${BENCH_ARGS[@]}")
    say "$preset on $HOST: bench ab ${AB_BASE}_PLUGINS TREE_PLUGINS ${bargs[*]}"
    remote start-ab "$id" "$preset" "$AB_SHA" "${bargs[@]}" >/dev/null
  else
    bargs=(--preset "$parg" "${PLAN_ARGS[@]}" --tag "$TAG" "${BENCH_ARGS[@]}")
    say "$preset on $HOST: bench ${bargs[*]}"
    remote start "$id" "$preset" "${bargs[@]}" >/dev/null
  fi
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    if [ "$rc" -eq 255 ]; then
      connection_lost "$preset" ""
      record_run "$preset" "" 3 "connection lost"
    else
      record_run "$preset" "" 2 "the remote refused to start the run (see above)"
    fi
    break
  fi
  new_log LOG "$preset"
  follow_run "$id" "$LOG"
  finish_run "$preset" "$id" "$LOG" || break
done

[ -n "${LOCAL_BENCH:-}" ] || find_local_bench LOCAL_BENCH "$SRC" || true
rollup
[ "$INTERRUPTED" -eq 0 ] || [[ " ${RUN_RCS[*]} " == *" 130 "* ]] || record_run interrupted "" 130 "stopped by Ctrl-C"
finish "$HOST"
