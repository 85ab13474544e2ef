# shellcheck shell=bash
# Shared helpers for the bench serve tests: each test is a bash script run by
# ctest with BENCH (the built binary), FX_GOOD (the fixture plugins), SRC and
# BUILD set. The browser and HTTP parts are python scripts beside this file
# (servelib.py) whose "ok:"/"FAIL:" lines are counted here (run_py). Every
# process they start is listed in $SERVE_PIDS and ended by id on exit.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-serve.XXXXXX")
export SERVE_PIDS=$T/pids
: >"$SERVE_PIDS"
cleanup() {
  local pid
  # only the processes this test started, by their id (bench serve, bench
  # run, chromedriver; chromedriver's browser goes with its driver), and
  # only those not reaped already ("-PID": the pid may be another's now)
  for pid in $(running_pids); do kill -TERM "$pid" 2>/dev/null; done
  for pid in $(running_pids); do wait_gone "$pid"; done
  rm -rf "$T"
}
running_pids() {
  grep -E '^[0-9]+$' "$SERVE_PIDS" | grep -vxF -f <(sed -n 's/^-//p' "$SERVE_PIDS"; echo x)
}
wait_gone() {
  local i
  for ((i = 0; i < 100; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.05
  done
  kill -KILL "$1" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' TERM INT
export XDG_CACHE_HOME="$T/xdg-cache"
# no __pycache__ beside the helpers in the source tree
export PYTHONDONTWRITEBYTECODE=1
unset BENCH_NO_SCAN_CACHE
# shellcheck source=tests/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh"
# shellcheck disable=SC2034 # the tests that source this use it
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SCREENS=${BUILD:-$T}/tests/serve/screens

# need_python_selenium: PY, a python3 that imports selenium (Debian's
# python3-selenium is in /usr/bin/python3's path; a pyenv or venv python3
# first in PATH may not see it). Skips only where it cannot be installed.
need_python_selenium() {
  local p
  PY=
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import selenium' 2>/dev/null; then PY=$(command -v "$p"); break; fi
  done
  if [ -z "$PY" ]; then
    if command -v apt-cache >/dev/null && apt-cache policy python3-selenium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
      echo "FAIL: no python3 with selenium: install python3-selenium (scripts/setup-debian.sh test)"; exit 1
    fi
    skip "no python3 selenium on this system and none to install"
  fi
}

# need_chromium: Debian's chromium and chromedriver, as tests/compare/t_report.sh.
need_chromium() {
  local pkg
  CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
  CHROMEDRIVER=$(command -v chromedriver || { [ -x /usr/bin/chromedriver ] && echo /usr/bin/chromedriver; } || true)
  for pkg in chromium chromium-driver; do
    if { [ $pkg = chromium ] && [ -z "$CHROMIUM" ]; } || { [ $pkg = chromium-driver ] && [ -z "$CHROMEDRIVER" ]; }; then
      if command -v apt-cache >/dev/null && apt-cache policy $pkg 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        echo "FAIL: $pkg not found: install Debian's $pkg (scripts/setup-debian.sh test)"; exit 1
      fi
      skip "no $pkg on this system and none to install (apt-cache has no candidate for $pkg)"
    fi
  done
  export CHROMEDRIVER
}

# need_python: PY, any python3 (for the parts without a browser).
need_python() {
  PY=$(command -v python3 || command -v /usr/bin/python3 || true)
  [ -n "$PY" ] || skip "no python3"
}

# run_py SCRIPT ARGS...: runs a python helper, counts its "ok:" and
# "FAIL:" lines as checks, and fails on a script that died (exit status
# other than 0 or 1) or printed no check at all.
run_py() {
  local out=$T/py.$$.$RANDOM rc n_ok n_fail
  "$PY" "$@" >"$out" 2>&1
  rc=$?
  cat "$out"
  n_ok=$(grep -c '^ok: ' "$out")
  n_fail=$(grep -c '^FAIL: ' "$out")
  CHECKS=$((CHECKS + n_ok))
  FAILS=$((FAILS + n_fail))
  if [ $((n_ok + n_fail)) -eq 0 ]; then fail "$1 printed no check (exit status $rc)"; fi
  if [ "$rc" -ne 0 ] && [ "$n_fail" -eq 0 ]; then fail "$1 exited $rc without a failed check"; fi
}

expect_eq() {
  if [ "$1" = "$2" ]; then ok; else fail "${3:-value}: expected '$2', got '$1'"; fi
}
