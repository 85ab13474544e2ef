# shellcheck shell=bash
# Shared by scripts/run_presets_local.sh and scripts/run_presets_remote.sh
# (sourced, never run): the command line's lists, which preset/plugin pairs
# still have to run (--resume), the local bench, per-run logs, the summary
# and the exit status. Both scripts run one preset after the other and
# record each run with record_run; finish prints the summary and exits.
#
# Exit status of both scripts:
#   0  every case OK or SKIPPED
#   1  a case failed (or a run ended without its status)
#   2  usage or configuration error (nothing ran for that preset)
#   3  the remote could not be reached or the connection dropped (the remote
#      run goes on; run again with --resume to collect it)
#   4  the build failed
#   130 interrupted (Ctrl-C); what was measured is kept

PROG=${PROG:-$(basename -- "$0")}

die() {
  local code=$1
  shift
  echo "$PROG: error: $*" >&2
  exit "$code"
}
warn() { echo "$PROG: warning: $*" >&2; }
say() { echo "==> $*"; }

# split_list NAME STRING: the comma list STRING into the array NAME, empty
# items dropped; no word splitting or globbing.
split_list() {
  local -n _list=$1
  local -a _items=()
  _list=()
  [ -n "$2" ] || return 0
  IFS=, read -r -d '' -a _items < <(printf '%s' "$2") || true
  local _i
  for _i in "${_items[@]}"; do
    [ -n "$_i" ] && _list+=("$_i")
  done
  return 0
}

# sanitize STRING: a result-name part as bench writes it (every byte outside
# A-Z a-z 0-9 . _ + - becomes '-').
sanitize() {
  local LC_ALL=C
  printf '%s' "${1//[^A-Za-z0-9._+-]/-}"
}

# preset_part PRESET: the preset's part of a result name (a file's name
# without .ini, or the shipped preset's name).
preset_part() {
  local p=${1##*/}
  [[ $p == *?.ini ]] && p=${p%.ini}
  sanitize "$p"
}

# result_home DIR DATE PLUGIN PRESET TAG: is there a result file of PLUGIN
# under PRESET for DATE in DIR whose every case finished OK or SKIPPED? A
# file with a failed, timed-out, crashed or interrupted case does not count:
# --resume runs that plugin again (the rollup keeps the latest result of
# each case).
result_home() {
  local base f
  base="$1/$2_$(sanitize "$3")_$(preset_part "$4")"
  [ -z "$5" ] || base+="_$(sanitize "$5")"
  for f in "$base.json" "$base".[0-9]*.json; do
    [ -f "$f" ] || continue
    result_all_passed "$f" && return 0
  done
  return 1
}

# result_all_passed FILE: every case status in the result file FILE is OK or
# SKIPPED (a case's "status" is the only key of that name in bench-result/1).
result_all_passed() {
  local s
  s=$(grep -ao '"status": *"[A-Z_]*"' -- "$1" | grep -aEv '"(OK|SKIPPED)"$' | head -n 1) || true
  [ -z "$s" ]
}

# split_words NAME VALUE: blank-separated words into the array NAME (no
# quoting or globbing; anything with spaces belongs in ~/.ssh/config or a
# wrapper script).
split_words() {
  local -n _w=$1
  read -r -a _w <<<"$2" || true
}

# read_config FILE HANDLER EXAMPLE: a configuration file of KEY=VALUE lines
# (a value may be quoted with '...' or "..." as a whole; an "export " before
# the key is allowed; '#' starts a comment line), read as data: nothing is
# expanded or run. Each pair goes to `HANDLER KEY VALUE FILE:LINE`, which
# returns 1 for a key it does not know (refused with file:line, pointing at
# EXAMPLE).
read_config() {
  local file=$1 handler=$2 example=$3 line key value n=0
  if [ ! -f "$file" ] || [ ! -r "$file" ]; then die 2 "cannot read configuration '$file'"; fi
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    [ -z "$line" ] || [[ $line == '#'* ]] && continue
    line=${line#export }
    [[ $line =~ ^([A-Z_]+)=(.*)$ ]] || die 2 "$file:$n: expected KEY=VALUE, got '$line'"
    key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
    if [[ $value =~ ^\'(.*)\'$ || $value =~ ^\"(.*)\"$ ]]; then value=${BASH_REMATCH[1]}; fi
    "$handler" "$key" "$value" "$file:$n" || die 2 "$file:$n: unknown key '$key' (see $example)"
  done <"$file"
}

# config_option ENVVAR ARG...: the --config FILE (or --config=FILE) among the
# command line ARGs (up to a "--"), else $ENVVAR's value, in CONFIG_FILE. The
# configuration is read before the options so that they override it
# wherever they stand.
config_option() {
  local -n _env=$1
  shift
  CONFIG_FILE=${_env:-}
  while [ $# -gt 0 ]; do
    case $1 in
    --) break ;;
    --config) CONFIG_FILE=${2:-} ;;
    --config=*) CONFIG_FILE=${1#--config=} ;;
    esac
    shift
  done
}

# claim_file SRC DST: move SRC to DST unless DST exists (then 1).
claim_file() {
  if ln -- "$1" "$2" 2>/dev/null; then
    rm -f -- "$1"
    return 0
  fi
  [ ! -e "$2" ] || return 1
  mv -n -- "$1" "$2" && [ ! -e "$1" ]
}

# place_results FROM: FROM's result files (each .json with its .txt) into
# RESULTS_DIR under a name not taken yet (.2, .3 ... as bench does); never
# overwrites. A file already home (the same bytes under its name or a
# numbered one, e.g. fetched by another session collecting the same run) is
# not placed again. The placing holds a lock (flock) on the results folder
# itself, so two sessions placing at once cannot both miss each other's
# copy. Sets PLACED and ALREADY_HOME to the counts.
place_results() {
  local from=$1 j base cand k old lockfd
  PLACED=0 ALREADY_HOME=0
  exec {lockfd}<"$RESULTS_DIR"
  flock -w 60 "$lockfd" || warn "could not lock $RESULTS_DIR; placing the results without the lock"
  for j in "$from"/*.json; do
    [ -f "$j" ] || continue
    base=${j##*/}
    base=${base%.json}
    for old in "$RESULTS_DIR/$base.json" "$RESULTS_DIR/$base".[0-9]*.json; do
      if [ -f "$old" ] && cmp -s -- "$j" "$old"; then
        ALREADY_HOME=$((ALREADY_HOME + 1))
        continue 2
      fi
    done
    for ((k = 1; k < 10000; k++)); do
      cand=$base
      [ "$k" -eq 1 ] || cand=$base.$k
      [ ! -e "$RESULTS_DIR/$cand.txt" ] || continue
      claim_file "$j" "$RESULTS_DIR/$cand.json" || continue
      [ ! -f "$from/$base.txt" ] || claim_file "$from/$base.txt" "$RESULTS_DIR/$cand.txt" || true
      PLACED=$((PLACED + 1))
      break
    done
  done
  exec {lockfd}>&-
}

# is_preset_file PRESET: a path to a local .ini rather than a shipped name.
is_preset_file() { [[ $1 == */* || $1 == *.ini ]]; }

# plan_preset PRESET DATE LISTER: the --plugin arguments for one preset in
# PLAN_ARGS (empty: every plugin), and the plugins skipped in PLAN_SKIPPED.
# Without --resume everything runs. With it, the plugins (PLUGINS, or every
# plugin; globs expanded by the function LISTER, which prints one plugin
# name per line for the --plugin arguments it is given) whose results for
# DATE are home are left out. Returns 1 when nothing is left to run.
plan_preset() {
  local preset=$1 date=$2 lister=$3 p
  PLAN_ARGS=()
  PLAN_SKIPPED=()
  if [ "$RESUME" -eq 0 ]; then
    for p in "${PLUGINS[@]}"; do PLAN_ARGS+=(--plugin "$p"); done
    return 0
  fi
  local -a sel=() names=()
  for p in "${PLUGINS[@]}"; do sel+=(--plugin "$p"); done
  mapfile -t names < <("$lister" "${sel[@]}")
  if [ ${#names[@]} -eq 0 ]; then
    # Nothing listed (no plugin matches, or the listing failed): let bench
    # say why.
    PLAN_ARGS=("${sel[@]}")
    return 0
  fi
  for p in "${names[@]}"; do
    if result_home "$RESULTS_DIR" "$date" "$p" "$preset" "$TAG"; then
      PLAN_SKIPPED+=("$p")
    else
      PLAN_ARGS+=(--plugin "$p")
    fi
  done
  [ ${#PLAN_ARGS[@]} -gt 0 ]
}

# parse_positionals ARG...: [PRESETS] [PLUGINS] [-- BENCH_ARGS...] into
# PRESETS, PLUGINS and BENCH_ARGS (arrays).
parse_positionals() {
  local -a pos=()
  BENCH_ARGS=()
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then
      shift
      BENCH_ARGS=("$@")
      break
    fi
    pos+=("$1")
    shift
  done
  [ ${#pos[@]} -le 2 ] || die 2 "too many arguments: ${pos[*]:2} (see --help)"
  split_list PRESETS "${pos[0]:-smoke}"
  split_list PLUGINS "${pos[1]:-}"
  [ ${#PRESETS[@]} -gt 0 ] || die 2 "no preset given"
  local a
  for a in "${BENCH_ARGS[@]}"; do
    case $a in
    --preset | --preset=* | --results-dir | --results-dir=* | --events | --events=* | --tag | --tag=*)
      die 2 "'$a' is set by $PROG; give it as an option of $PROG instead (see --help)"
      ;;
    esac
  done
}

# new_log PRESET: a fresh log path for one preset's run in LOG.
new_log() {
  local stamp
  stamp=$(date +%Y-%m-%dT%H%M%S)
  mkdir -p -- "$RESULTS_DIR/logs"
  LOG="$RESULTS_DIR/logs/${stamp}_$(preset_part "$1")"
  [ -z "$TAG" ] || LOG+="_$(sanitize "$TAG")"
  local n=1 base=$LOG
  while [ -e "$LOG.log" ]; do
    n=$((n + 1))
    LOG="$base.$n"
  done
  LOG+=.log
  : >"$LOG"
}

# show_stream: a run's stream (bench's JSON events on stdout, its case and
# PROGRESS lines on stderr) as a person reads it. The events stay in the log
# (the caller tees the whole stream there first); the case lines pass
# through; on a terminal the PROGRESS line is redrawn in place below them
# instead of scrolling, elsewhere (a pipe, a CI log) it is printed as a line
# each time bench prints one (bench rate-limits them). Interrupts are the
# caller's: run it as `... | (trap '' INT; show_stream)`.
show_stream() {
  local line shown=0 tty=0 width=${COLUMNS:-0}
  [ -t 1 ] && tty=1
  if [ "$tty" -eq 1 ] && [ "$width" -le 0 ]; then width=$(tput cols 2>/dev/null || echo 100); fi
  [ "$width" -gt 20 ] 2>/dev/null || width=100
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
    '{"event":'*) ;;
    'PROGRESS: '*)
      if [ "$tty" -eq 1 ]; then
        printf '\r\033[K%s' "${line:0:$((width - 1))}"
        shown=1
      else
        printf '%s\n' "$line"
      fi
      ;;
    *)
      [ "$shown" -eq 0 ] || printf '\r\033[K'
      shown=0
      printf '%s\n' "$line"
      ;;
    esac
  done
  [ "$shown" -eq 0 ] || printf '\r\033[K'
  return 0
}

# write_atomic PATH: stdin to PATH through a temporary name beside it.
write_atomic() {
  local tmp
  tmp="$(dirname -- "$1")/.$(basename -- "$1").tmp.$$"
  cat >"$tmp" && mv -f -- "$tmp" "$1"
}

# diag_path PRESET: a new diag file's path beside the results.
diag_path() {
  local base
  base="$RESULTS_DIR/diag_$(date +%Y-%m-%dT%H%M%S)_$(preset_part "$1")"
  [ -z "$TAG" ] || base+="_$(sanitize "$TAG")"
  local p=$base.txt n=1
  while [ -e "$p" ]; do
    n=$((n + 1))
    p=$base.$n.txt
  done
  printf '%s\n' "$p"
}

# find_local_bench SRC: a bench on this machine in LOCAL_BENCH: $BENCH,
# SRC/build/bin/bench, or one built into SRC/build. Returns 1 (with a
# warning) when there is none and none can be built.
find_local_bench() {
  LOCAL_BENCH=
  if [ -n "${BENCH:-}" ]; then
    [ -x "$BENCH" ] || die 2 "BENCH='$BENCH' is not an executable"
    LOCAL_BENCH=$BENCH
    return 0
  fi
  if [ ! -x "$1/build/bin/bench" ]; then
    say "building a local bench for the rollup in $1/build"
    if ! { cmake -S "$1" -B "$1/build" >/dev/null && cmake --build "$1/build" --target bench -j "$(nproc)" >/dev/null; }; then
      warn "could not build a local bench: no rollup.csv and a shorter summary (set BENCH=path/to/bench)"
      return 1
    fi
  fi
  LOCAL_BENCH=$1/build/bin/bench
}

# log_counts LOG: the cases of a run's log (its TEST_END events) in N_OK,
# N_SKIPPED, N_FAILED, and whether its suite ended in N_ENDED.
log_counts() {
  local s
  N_OK=0 N_SKIPPED=0 N_FAILED=0 N_ENDED=0
  while IFS= read -r s; do
    case $s in
    OK) N_OK=$((N_OK + 1)) ;;
    SKIPPED) N_SKIPPED=$((N_SKIPPED + 1)) ;;
    *) N_FAILED=$((N_FAILED + 1)) ;;
    esac
  done < <(grep -a '^{"event":"TEST_END"' "$1" 2>/dev/null | grep -ao '"status":"[A-Z_]*"' | cut -d'"' -f4)
  grep -aq '^{"event":"SUITE_END"' "$1" 2>/dev/null && N_ENDED=1
  return 0
}

RUN_PRESETS=()
RUN_LOGS=()
RUN_RCS=()
RUN_NOTES=()
# record_run PRESET LOG RC NOTE: one preset's run for the summary (LOG may be
# empty when nothing ran).
record_run() {
  RUN_PRESETS+=("$1")
  RUN_LOGS+=("$2")
  RUN_RCS+=("$3")
  RUN_NOTES+=("$4")
}

# rollup: rebuild RESULTS_DIR/rollup.csv with the local bench.
rollup() {
  [ -d "$RESULTS_DIR" ] || return 0
  if [ -z "${LOCAL_BENCH:-}" ]; then
    warn "no local bench: $RESULTS_DIR/rollup.csv not rebuilt"
    return 0
  fi
  "$LOCAL_BENCH" rollup --results-dir "$RESULTS_DIR" >/dev/null || warn "bench rollup failed"
}

# finish WHERE: the summary (a table per run with `bench events`, then one
# line per preset) and the exit status; WHERE names the machine.
finish() {
  local i rc worst=0 have_events=0 line
  if [ -n "${LOCAL_BENCH:-}" ] && "$LOCAL_BENCH" events --help >/dev/null 2>&1; then have_events=1; fi
  echo
  say "summary: $1, results in $RESULTS_DIR"
  for i in "${!RUN_PRESETS[@]}"; do
    if [ -n "${RUN_LOGS[i]}" ] && [ -s "${RUN_LOGS[i]}" ] && [ "$have_events" -eq 1 ]; then
      "$LOCAL_BENCH" events "${RUN_LOGS[i]}" | sed 's/^/    /' || true
      echo
    fi
  done
  for i in "${!RUN_PRESETS[@]}"; do
    rc=${RUN_RCS[i]}
    line="  ${RUN_PRESETS[i]}:"
    if [ -n "${RUN_LOGS[i]}" ]; then
      log_counts "${RUN_LOGS[i]}"
      line+=" $N_OK ok, $N_SKIPPED skipped, $N_FAILED failed"
      [ "$N_ENDED" -eq 1 ] || line+=" (the suite did not finish)"
    fi
    [ -z "${RUN_NOTES[i]}" ] || line+=" - ${RUN_NOTES[i]}"
    [ -z "${RUN_LOGS[i]}" ] || line+=" [log ${RUN_LOGS[i]}]"
    echo "$line"
    worst=$(worse "$worst" "$rc")
  done
  if [ "$worst" -eq 0 ]; then say "all cases OK or SKIPPED"; else say "exit status $worst"; fi
  exit "$worst"
}

# worse A B: the exit status that says more (130 > 3 > 4 > 2 > 1 > 0).
worse() {
  local a b r
  for r in 130 3 4 2 1; do
    a=$1 b=$2
    if [ "$a" -eq "$r" ] || [ "$b" -eq "$r" ]; then
      echo "$r"
      return
    fi
  done
  if [ "$1" -ne 0 ] || [ "$2" -ne 0 ]; then echo 1; else echo 0; fi
}
