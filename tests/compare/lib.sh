# Shared helpers of the compare tests (run by ctest with BENCH, GEN, SRC and
# BUILD set); each test works in its own temporary folder.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-compare.XXXXXX")
trap 'rm -rf "$T"' EXIT
# shellcheck source=tests/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh"

# run_bench ARGS...: stdout in $T/out, stderr in $T/err, status in RC.
run_bench() {
  "$BENCH" "$@" >"$T/out" 2>"$T/err"
  RC=$?
}
expect_rc() {
  if [ "$RC" -eq "$1" ]; then ok; else
    fail "${2:-exit status}: expected $1, got $RC"; echo "--- stdout"; head -c 4000 "$T/out"; echo "--- stderr"; cat "$T/err"
  fi
}
expect_in() {
  if grep -Eq -- "$2" "$1"; then ok; else fail "${3:-$1} lacks /$2/"; echo "--- $1:"; head -c 4000 "$1"; echo; fi
}
expect_not_in() {
  if grep -Eq -- "$2" "$1"; then fail "${3:-$1} has /$2/"; grep -E -- "$2" "$1" | head -5; else ok; fi
}
expect_eq() {
  if [ "$1" = "$2" ]; then ok; else fail "${3:-value}: expected '$2', got '$1'"; fi
}
# verdict CSV PLUGIN PARAMS: the verdict column of that row of a --format csv output
verdict() {
  python3 - "$@" <<'PY'
import csv, sys
path, plugin, params = sys.argv[1:4]
for row in csv.DictReader(open(path, newline="")):
    if row["plugin"] == plugin and row["params"] == params:
        print(row["verdict"]); break
else:
    print("<no row>")
PY
}
