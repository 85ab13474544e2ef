# shellcheck shell=bash
# Helpers of the bench ab tests: BENCH (the binary), AB (the folder of the
# spin plugin's builds: base, same, slow, wrong, crash, extra), SRC.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-ab.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/xdg-cache"
# shellcheck source=tests/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh"
PRESET=$(dirname "${BASH_SOURCE[0]}")/ab.ini
cd "$T" || exit 1

# ab ARGS...: bench ab with the test preset; stdout in $T/out, stderr in
# $T/err, the exit status in RC.
ab() {
  "$BENCH" ab --preset "$PRESET" --results-dir "$T/results" "$@" >"$T/out" 2>"$T/err"
  RC=$?
}
expect_rc() {
  if [ "$RC" -eq "$1" ]; then ok; else
    fail "${2:-exit status}: expected $1, got $RC"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"
  fi
}
expect_in() {
  if grep -Eq -- "$2" "$1"; then ok; else fail "${3:-$1} lacks /$2/"; echo "--- $1:"; head -c 3000 "$1"; echo; fi
}
expect_not_in() {
  if grep -Eq -- "$2" "$1"; then fail "${3:-$1} has /$2/"; grep -E -- "$2" "$1" | head -5; else ok; fi
}
# json_case FILE EXPR: python expression over c (the first case of FILE).
json_case() {
  python3 - "$1" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
print(eval(sys.argv[2]))
PY
}
