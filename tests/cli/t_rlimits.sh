#!/usr/bin/env bash
# bench under resource limits (issue 28: the classes that held stay tested):
# few file descriptors (RLIMIT_NOFILE), few processes (RLIMIT_NPROC, as an
# unprivileged user: root ignores it), a full tmpfs as the results folder,
# an unusable TMPDIR. Each run either does its work or stops with a clear
# line and a non-zero status; never a crash or a hang, never a partial or
# temporary file, and every result file left is valid JSON.
# shellcheck disable=SC2015,SC2016,SC2054 # `test && ok || fail` (ok never fails); $1 in single-quoted bash -c; comma lists
. "$(dirname "$0")/lib.sh"

chmod 755 "$T"
cp "$SRC/tests/cli/presets/fast.ini" "$T/fast.ini"
chmod 644 "$T/fast.ini"
ARGS=(--preset "$T/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_devtime)
SANITIZED=0
ldd "$BENCH" 2>/dev/null | grep -q 'libasan' && SANITIZED=1

# limited WHAT PREFIX... -- BENCH_ARGS...: runs bench under `timeout`, with the
# command PREFIX (a shell that sets the limit, setpriv, unshare) in front.
limited() {
  local what=$1
  shift
  timeout 120 "$@" >"$T/out" 2>"$T/err"
  RC=$?
  if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then fail "$what: bench hung (killed after 120 s)"; fi
  if [ "$RC" -gt 128 ]; then fail "$what: bench died of signal $((RC - 128))"; else ok; fi
  if grep -Eq 'AddressSanitizer|runtime error:|Segmentation|core dumped' "$T/err"; then
    fail "$what: crash report on stderr"; head -20 "$T/err"
  else ok; fi
}

# folder_sane WHAT DIR: no temporary file left, every .json valid and whole.
folder_sane() {
  local what=$1 dir=$2 f
  for f in "$dir"/* "$dir"/.*; do
    [ -f "$f" ] || continue
    case "$f" in *.tmp.* | *.tmp) fail "$what: temporary file left: $f" ;; esac
    case "$f" in *.json)
      python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$f" && ok || fail "$what: partial JSON $f" ;;
    esac
  done
  if [ -f "$dir/rollup.csv" ]; then
    python3 -c "import csv,sys; rows=list(csv.reader(open(sys.argv[1], newline=''))); assert rows and rows[0][0]" "$dir/rollup.csv" &&
      ok || fail "$what: unreadable rollup.csv"
  fi
}

# all_done WHAT DIR: the run did all its work.
all_done() {
  expect_rc 0 "$1"
  expect_in "$T/out" 'fx_ok n=8  *OK' "$1"
  expect_in "$T/out" 'fx_devtime n=8  *OK' "$1"
  expect_in "$T/out" '2 of 2 cases run' "$1"
  for p in fx_ok fx_devtime; do
    [ -f "$2/${TODAY}_${p}_fast.json" ] && [ -f "$2/${TODAY}_${p}_fast.txt" ] && ok || fail "$1: no result files of $p"
  done
  expect_eq "$(csv_field "$2/rollup.csv" fx_ok n=8 status)" OK "$1: rollup row"
  folder_sane "$1" "$2"
}

# --- RLIMIT_NOFILE ---------------------------------------------------------
# 10 descriptors are enough for a whole run (measured: 9 are; 8 are not) in
# every isolation mode; an ASan build needs more, so there 10 may fail, but
# only cleanly.
for n in 10 16 32; do
  for iso in backend plugin case; do
    w="nofile $n, $iso"
    mkdir -p "$T/n$n$iso"
    limited "$w" bash -c 'ulimit -n "$1"; shift; exec "$@"' - "$n" \
      "$BENCH" --isolation "$iso" "${ARGS[@]}" --results-dir "$T/n$n$iso"
    if [ "$SANITIZED" = 1 ] && [ "$n" -lt 16 ] && [ "$RC" -ne 0 ]; then
      expect_rc 1 "$w (ASan)"
      expect_in "$T/err" 'bench: error: .*Too many open files' "$w (ASan)"
      folder_sane "$w" "$T/n$n$iso"
    else
      all_done "$w" "$T/n$n$iso"
    fi
  done
done
# Too few to start a case's process: each case is an ERROR, one error line
# says why, the run fails; what was written is whole.
for iso in backend case; do
  w="nofile 6, $iso"
  mkdir -p "$T/n6$iso"
  limited "$w" bash -c 'ulimit -n 6; shift; exec "$@"' - 6 \
    "$BENCH" --isolation "$iso" "${ARGS[@]}" --results-dir "$T/n6$iso"
  if [ "$SANITIZED" = 1 ] && [ "$RC" -eq 2 ]; then
    # ASan's own descriptors: here not even the plugins load.
    expect_in "$T/err" "^bench: error: no plugin named 'fx_ok'" "$w (ASan)"
  else
    expect_rc 1 "$w"
    expect_in "$T/out" 'fx_devtime n=8  *ERROR' "$w"
  fi
  expect_in "$T/err" '^bench: error: cannot create a (pipe|socket pair): Too many open files' "$w"
  expect_not_in "$T/out" '  *OK ' "$w"
  folder_sane "$w" "$T/n6$iso"
done

# --- RLIMIT_NPROC (as an unprivileged user) -------------------------------
# A uid of its own, with no passwd entry (the limit counts a real uid's
# processes; another test running as nobody at the same time would count).
RUID=$((60000 + $$ % 5000))
as_user() { setpriv --reuid="$RUID" --regid="$RUID" --clear-groups "$@"; }
if [ "$(id -u)" != 0 ]; then
  echo "SKIP part: RLIMIT_NPROC needs root (to run as another user; root ignores the limit)"
elif ! command -v setpriv >/dev/null || ! as_user test -x "$BENCH" -a -r "$FX_GOOD/fx_ok.so"; then
  echo "SKIP part: RLIMIT_NPROC: setpriv missing or uid $RUID cannot run $BENCH"
elif [ -n "$(ps -u "$RUID" -o pid= 2>/dev/null)" ]; then
  echo "SKIP part: RLIMIT_NPROC: uid $RUID already runs processes (they count against the limit)"
else
  mkdir -p "$T/home"
  chown "$RUID" "$T/home"
  for n in 1 2; do
    for iso in backend case; do
      w="nproc $n, $iso"
      mkdir -p "$T/p$n$iso"
      chown "$RUID" "$T/p$n$iso"
      # (LeakSanitizer forks a tracer at exit: off where no fork is left)
      limited "$w" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" XDG_CACHE_HOME="$T/home" HOME="$T/home" setpriv --reuid="$RUID" --regid="$RUID" --clear-groups \
        bash -c 'ulimit -u "$1"; shift; exec "$@"' - "$n" \
        "$BENCH" --isolation "$iso" "${ARGS[@]}" --results-dir "$T/p$n$iso"
      if [ "$n" = 1 ]; then
        # No process at all beside bench: no plugin loads, nothing is run.
        expect_rc 2 "$w"
        expect_in "$T/err" '^bench: error: cannot fork: Resource temporarily unavailable' "$w"
        expect_in "$T/err" "^bench: warning: plugin .*fx_ok.so: cannot start a process to load it; skipped" "$w"
        [ -z "$(ls -A "$T/p$n$iso")" ] && ok || fail "$w: files written by a run that ran nothing: $(ls -A "$T/p$n$iso")"
      else
        all_done "$w" "$T/p$n$iso"
      fi
    done
  done
fi

# --- a full tmpfs as the results folder -----------------------------------
# A 64 KiB tmpfs with 60 KiB taken, mounted in a mount namespace of its own;
# bench's folder is copied out (the mount dies with the namespace).
M=$T/full
mkdir -p "$M" "$T/fullcopy"
if [ "$(id -u)" != 0 ] || ! unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1"' - "$M" 2>/dev/null; then
  echo "SKIP part: full tmpfs: cannot mount a tmpfs in a mount namespace (needs root and unshare)"
else
  limited "full tmpfs" unshare -m bash -c '
    mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
    head -c 60k /dev/zero >"$1/fill"
    d=$1 c=$2; shift 2
    "$@"; rc=$?
    cp -a "$d/." "$c/"
    exit "$rc"' - "$M" "$T/fullcopy" "$BENCH" "${ARGS[@]}" --results-dir "$M"
  expect_rc 1 "full tmpfs"
  expect_in "$T/out" 'fx_ok n=8  *OK' "full tmpfs: measured anyway"
  expect_in "$T/out" '2 of 2 cases run' "full tmpfs"
  expect_in "$T/err" "^bench: error: cannot write $M/[^ ]+: No space left on device" "full tmpfs: the file named"
  expect_in "$T/err" "^bench: error: some results could not be written to '$M'" "full tmpfs"
  [ -f "$T/fullcopy/fill" ] && ok || fail "full tmpfs: the folder was not copied out"
  folder_sane "full tmpfs" "$T/fullcopy"
fi

# --- an unusable TMPDIR ----------------------------------------------------
# bench needs no temporary folder: a missing one, a file, and (as another user) a
# read-only folder change nothing.
: >"$T/afile"
for td in /nonexistent "$T/afile"; do
  mkdir -p "$T/t${#td}"
  limited "TMPDIR=$td" env TMPDIR="$td" "$BENCH" "${ARGS[@]}" --results-dir "$T/t${#td}"
  all_done "TMPDIR=$td" "$T/t${#td}"
done
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && as_user test -x "$BENCH"; then
  mkdir -p "$T/ro" "$T/tro" "$T/home"
  chmod 555 "$T/ro"
  chown "$RUID" "$T/tro" "$T/home"
  limited "TMPDIR read-only" env TMPDIR="$T/ro" XDG_CACHE_HOME="$T/home" HOME="$T/home" \
    setpriv --reuid="$RUID" --regid="$RUID" --clear-groups "$BENCH" "${ARGS[@]}" --results-dir "$T/tro"
  all_done "TMPDIR read-only" "$T/tro"
else
  echo "SKIP part: read-only TMPDIR: needs root to run as another user (root writes anywhere)"
fi
finish
