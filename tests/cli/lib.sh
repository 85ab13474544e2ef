# Shared helpers for the CLI tests: each test is a bash script run by ctest
# with BENCH (the built binary), FX_GOOD and FX_BROKEN (fixture folders),
# SRC and BUILD set. Every test works in its own temporary folder.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
# A scan cache of its own (never the user's ~/.cache, never another test's).
export XDG_CACHE_HOME="$T/xdg-cache"
unset BENCH_NO_SCAN_CACHE
# shellcheck source=tests/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh"
TODAY=$(date +%F)

# BENCH_TEST_ISOLATION=backend|plugin|case: every run of bench (a command
# line starting with an option) gets that --isolation first, so the fault
# tests run in each mode (tests/cli/CMakeLists.txt registers them so); an
# --isolation of the test's own comes later and wins.
if [ -n "${BENCH_TEST_ISOLATION:-}" ]; then
  printf '#!/bin/sh\ncase "$1" in -*) exec "%s" --isolation "%s" "$@" ;; esac\nexec "%s" "$@"\n' \
    "$BENCH" "$BENCH_TEST_ISOLATION" "$BENCH" >"$T/bench-iso"
  chmod +x "$T/bench-iso"
  BENCH=$T/bench-iso
fi

# run_bench ARGS...: runs bench, keeps stdout, stderr and the exit status.
run_bench() {
  "$BENCH" "$@" >"$T/out" 2>"$T/err"
  RC=$?
}

expect_rc() {
  if [ "$RC" -eq "$1" ]; then ok; else
    fail "${2:-exit status}: expected $1, got $RC"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"
  fi
}

# expect_in FILE PATTERN [what]: grep -E PATTERN in FILE.
expect_in() {
  if grep -Eq -- "$2" "$1"; then ok; else fail "${3:-$1} lacks /$2/"; echo "--- $1:"; head -c 3000 "$1"; echo; fi
}
expect_not_in() {
  if grep -Eq -- "$2" "$1"; then fail "${3:-$1} has /$2/"; grep -E -- "$2" "$1" | head -5; else ok; fi
}

# csv_field FILE PLUGIN PARAMS_SUBSTR COLUMN: the column of the first rollup
# row of PLUGIN whose params contain PARAMS_SUBSTR (python's csv module
# reads the RFC 4180 quoting).
csv_field() {
  python3 - "$@" <<'PY'
import csv, sys
path, plugin, params, col = sys.argv[1:5]
for row in csv.DictReader(open(path, newline="")):
    if row["plugin"] == plugin and params in row["params"]:
        print(row[col]); break
else:
    print("<no row>")
PY
}

expect_eq() {
  if [ "$1" = "$2" ]; then ok; else fail "${3:-value}: expected '$2', got '$1'"; fi
}
