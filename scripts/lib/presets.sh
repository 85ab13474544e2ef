# shellcheck shell=bash
# Shared by scripts/run_presets_local.sh, run_presets_remote.sh and
# run_presets_slurm.sh (sourced, never run): option values, the command
# line's lists, which preset/plugin pairs still have to run (--resume), the
# local bench and its build (scripts/lib/build.sh), per-run logs, the
# summary and the exit status. The scripts run one preset after the other
# and record each run with record_run; finish prints the summary and exits.
# What the scripts need to know of bench's files (plugin names, result file
# names, a result file's or a log's counts) they ask bench for (docs/running.md:
# "Asking bench from a script"); functions hand back values on stdout or in
# variables the caller names.
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
# shellcheck source=scripts/lib/build.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/build.sh"

die() {
  local code=$1
  shift
  echo "$PROG: error: $*" >&2
  exit "$code"
}
warn() { echo "$PROG: warning: $*" >&2; }
say() { echo "==> $*"; }

# take_value VAR N ARG...: the value of the option ARG ("--name VALUE" or
# "--name=VALUE") into VAR, and the number of words it took (2 or 1) into N
# (for `shift "$N"`); a missing value is a usage error.
take_value() {
  local -n _value=$1 _words=$2
  case $3 in
  --*=*)
    _value=${3#*=}
    _words=1
    ;;
  *)
    [ $# -ge 4 ] || die 2 "option '$3' needs a value (see --help)"
    _value=$4
    _words=2
    ;;
  esac
}

# jobs_count VALUE: the build jobs --jobs VALUE asks for (0: the core count).
jobs_count() {
  [[ $1 =~ ^[0-9]+$ ]] || die 2 "bad --jobs '$1'"
  if [ "$1" -gt 0 ]; then echo "$1"; else nproc; fi
}

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

# sanitize STRING: a part of the name of a file of these scripts (logs, diag
# files): every byte outside A-Z a-z 0-9 . _ + - becomes '-'. (Result
# files are bench's: their names come from `bench results --name`.)
sanitize() {
  local LC_ALL=C
  printf '%s' "${1//[^A-Za-z0-9._+-]/-}"
}

# preset_part PRESET: the preset as the scripts name it in logs, diag files
# and tables (a file's name without .ini, or the shipped preset's name).
preset_part() {
  local p=${1##*/}
  [[ $p == *?.ini ]] && p=${p%.ini}
  sanitize "$p"
}

# result_home BENCH DIR DATE PLUGIN PRESET TAG: is there a result file of
# PLUGIN under PRESET for DATE (and TAG, may be empty) in DIR, complete and
# with every case OK or SKIPPED? The file's name (and its .2, .3 ... copies)
# and its counts come from BENCH (`bench results --name` and `--summary`).
# A file with a failed, timed-out, crashed or interrupted case, or one a
# killed run left half written, does not count: --resume runs that plugin
# again (the rollup keeps the latest result of each case).
result_home() {
  local bench=$1 dir=$2 name f
  name=$("$bench" results --name --date "$3" --plugin "$4" --preset "$5" --tag "$6") || return 1
  for f in "$dir/$name.json" "$dir/$name".[0-9]*.json; do
    [ -f "$f" ] || continue
    result_passed "$bench" "$f" && return 0
  done
  return 1
}

# result_passed BENCH FILE: the result file FILE is complete and every case
# in it OK or SKIPPED (`bench results --summary`).
result_passed() {
  local out
  out=$("$1" results --summary "$2" 2>/dev/null) || return 1
  [[ $'\n'$out$'\n' == *$'\nfailed=0\n'* && $'\n'$out$'\n' == *$'\ncomplete=yes\n'* ]]
}

# list_plugins BENCH ARG...: the names of the plugins BENCH finds for the
# --list arguments ARG (`bench --list --format tsv`), one a line; nothing
# when it cannot list them.
list_plugins() {
  local bench=$1
  shift
  { "$bench" --list --format tsv "$@" 2>/dev/null || true; } | cut -f1
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

# config_option VAR ENVVAR ARG...: the --config FILE (or --config=FILE)
# among the command line ARGs (up to a "--"), else $ENVVAR's value, into
# VAR. The configuration is read before the options so that they override
# it wherever they stand.
config_option() {
  local -n _file=$1 _env=$2
  shift 2
  _file=${_env:-}
  while [ $# -gt 0 ]; do
    case $1 in
    --) break ;;
    --config) _file=${2:-} ;;
    --config=*) _file=${1#--config=} ;;
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

# place_results FROM PLACED HOME: FROM's result files (each .json with its
# .txt) into RESULTS_DIR under a name not taken yet (.2, .3 ... as bench
# does); never overwrites. A file already home (the same bytes under its
# name or a numbered one, e.g. fetched by another session collecting the
# same run) is not placed again. The placing holds a lock (flock) on the
# results folder itself, so two sessions placing at once cannot both miss
# each other's copy. The counts go to the variables PLACED and HOME name.
place_results() {
  local from=$1 j base cand k old lockfd
  local -n _placed=$2 _home=$3
  _placed=0 _home=0
  exec {lockfd}<"$RESULTS_DIR"
  flock -w 60 "$lockfd" || warn "could not lock $RESULTS_DIR; placing the results without the lock"
  for j in "$from"/*.json; do
    [ -f "$j" ] || continue
    base=${j##*/}
    base=${base%.json}
    for old in "$RESULTS_DIR/$base.json" "$RESULTS_DIR/$base".[0-9]*.json; do
      if [ -f "$old" ] && cmp -s -- "$j" "$old"; then
        _home=$((_home + 1))
        continue 2
      fi
    done
    for ((k = 1; k < 10000; k++)); do
      cand=$base
      [ "$k" -eq 1 ] || cand=$base.$k
      [ ! -e "$RESULTS_DIR/$cand.txt" ] || continue
      claim_file "$j" "$RESULTS_DIR/$cand.json" || continue
      [ ! -f "$from/$base.txt" ] || claim_file "$from/$base.txt" "$RESULTS_DIR/$cand.txt" || true
      _placed=$((_placed + 1))
      break
    done
  done
  exec {lockfd}>&-
}

# is_preset_file PRESET: a path to a local .ini rather than a shipped name.
is_preset_file() { [[ $1 == */* || $1 == *.ini ]]; }

# plan_preset ARGS SKIPPED PRESET DATE LISTER BENCH: the --plugin
# arguments for one preset into the array ARGS names (empty: every plugin),
# and the plugins skipped into the array SKIPPED names. Without --resume
# (RESUME) everything runs. With it, the plugins (PLUGINS, or every plugin;
# globs expanded by the function LISTER, which prints one plugin name per
# line for the --plugin arguments it is given) whose results for DATE and
# TAG are home in RESULTS_DIR (result_home, asking the local BENCH; none is
# home without one) are left out. Returns 1 when nothing is left to run.
plan_preset() {
  local -n _args=$1 _skipped=$2
  local preset=$3 date=$4 lister=$5 bench=$6 p
  _args=()
  _skipped=()
  if [ "$RESUME" -eq 0 ]; then
    for p in "${PLUGINS[@]}"; do _args+=(--plugin "$p"); done
    return 0
  fi
  local -a sel=() names=()
  for p in "${PLUGINS[@]}"; do sel+=(--plugin "$p"); done
  mapfile -t names < <("$lister" "${sel[@]}")
  if [ ${#names[@]} -eq 0 ]; then
    # Nothing listed (no plugin matches, or the listing failed): let bench
    # say why.
    _args=("${sel[@]}")
    return 0
  fi
  for p in "${names[@]}"; do
    if [ -n "$bench" ] && result_home "$bench" "$RESULTS_DIR" "$date" "$p" "$preset" "$TAG"; then
      _skipped+=("$p")
    else
      _args+=(--plugin "$p")
    fi
  done
  [ ${#_args[@]} -gt 0 ]
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

# new_log VAR PRESET: a fresh (created, empty) log for one preset's run
# under RESULTS_DIR/logs; its path into VAR.
new_log() {
  local -n _log=$1
  local stamp path
  stamp=$(date +%Y-%m-%dT%H%M%S)
  mkdir -p -- "$RESULTS_DIR/logs"
  path="$RESULTS_DIR/logs/${stamp}_$(preset_part "$2")"
  [ -z "$TAG" ] || path+="_$(sanitize "$TAG")"
  local n=1 base=$path
  while [ -e "$path.log" ]; do
    n=$((n + 1))
    path="$base.$n"
  done
  path+=.log
  : >"$path"
  _log=$path
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

# write_atomic PATH: stdin to PATH through a new temporary file beside it
# (mktemp: created O_EXCL under a random name, so nothing planted there is
# opened), given the umask's mode as a plain new file would have.
write_atomic() {
  local tmp
  tmp=$(mktemp -- "$(dirname -- "$1")/.$(basename -- "$1").tmp.$$.XXXXXXXX") || return 1
  if cat >"$tmp" && chmod -- "$(printf '%o' $((0666 & ~0$(umask))))" "$tmp" && mv -f -- "$tmp" "$1"; then
    return 0
  fi
  rm -f -- "$tmp"
  return 1
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

# find_local_bench VAR SRC: a bench on this machine into VAR: $BENCH,
# SRC/build/bin/bench, or one built into SRC/build (build_bench). Returns 1
# (with a warning, VAR empty) when there is none and none can be built.
find_local_bench() {
  local -n _bench=$1
  local src=$2
  _bench=
  if [ -n "${BENCH:-}" ]; then
    [ -x "$BENCH" ] || die 2 "BENCH='$BENCH' is not an executable"
    _bench=$BENCH
    return 0
  fi
  if [ ! -x "$src/build/bin/bench" ]; then
    say "building a local bench for the rollup in $src/build"
    if ! build_bench "$src" "$src/build" 0 -- bench >/dev/null; then
      warn "could not build a local bench: no rollup.csv and a shorter summary (set BENCH=path/to/bench)"
      return 1
    fi
  fi
  _bench=$src/build/bin/bench
}

# log_counts BENCH LOG: what a run's log holds, as the summary says it:
# "N ok, N skipped, N failed", and " (the suite did not finish)" unless it
# ended (`bench events LOG --summary`); "cases not counted" when BENCH
# cannot tell.
log_counts() {
  local k v ok='' skipped='' failed='' ended=no
  if [ -n "$1" ]; then
    while IFS='=' read -r k v; do
      case $k in
      ok) ok=$v ;;
      skipped) skipped=$v ;;
      failed) failed=$v ;;
      ended) ended=$v ;;
      esac
    done < <("$1" events "$2" --summary 2>/dev/null || true)
  fi
  if [ -z "$ok" ] || [ -z "$skipped" ] || [ -z "$failed" ]; then
    printf 'cases not counted (no local bench)'
    return 0
  fi
  printf '%s ok, %s skipped, %s failed' "$ok" "$skipped" "$failed"
  [ "$ended" = yes ] || printf ' (the suite did not finish)'
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
    [ -z "${RUN_LOGS[i]}" ] || line+=" $(log_counts "${LOCAL_BENCH:-}" "${RUN_LOGS[i]}")"
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
