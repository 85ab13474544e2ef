# Shared by the SDK tests (bash, run by ctest with PREFIX, SRC, BUILD and
# SAN_FLAGS set): the installed tree is in $PREFIX (made by t_install.sh);
# each test builds in its own temporary folder and runs the installed bench.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-sdk.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset VK_INSTANCE_LAYERS VK_LOADER_LAYERS_ENABLE VK_LAYER_ENABLES BENCH_VK_DEVICE BENCH_VK_MEMORY
export XDG_CACHE_HOME="$T/cache"
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
B="$PREFIX/bin/bench"
# shellcheck source=tests/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh"

# run_bench ARGS...: the installed bench, in $T, output kept.
run_bench() {
  (cd "$T" && "$B" "$@" >"$T/out" 2>"$T/err")
  RC=$?
}

expect_rc() {
  if [ "$RC" -eq "$1" ]; then ok; else
    fail "${2:-exit status}: expected $1, got $RC"; echo "--- stdout"; tail -30 "$T/out"; echo "--- stderr"; tail -30 "$T/err"
  fi
}

expect_in() {
  if grep -Eq -- "$2" "$1"; then ok; else fail "${3:-$1} lacks /$2/"; head -c 3000 "$1"; echo; fi
}
expect_not_in() {
  if grep -Eq -- "$2" "$1"; then fail "${3:-$1} has /$2/"; grep -E -- "$2" "$1" | head -5; else ok; fi
}

# exports_only_entry SO: the plugin's dynamic symbol table defines nothing
# but bench_plugin_entry (and, in the ASan build, AddressSanitizer's
# __odr_asan.* markers).
exports_only_entry() {
  local syms
  syms=$(nm -D --defined-only "$1" | awk '{print $3}' | grep -v -e '^$' -e '^__odr_asan\.' | sort -u | paste -sd' ')
  if [ "$syms" = "bench_plugin_entry" ]; then ok; else fail "$(basename "$1") exports: $syms"; fi
}

# example BACKEND: a fresh copy of the installed example in $T/BACKEND.
example() {
  rm -rf "$T/$1"
  cp -r "$PREFIX/share/bench/examples/$1" "$T/$1"
}

# build_cmake DIR: configure and build DIR out of tree against $PREFIX only.
build_cmake() {
  (cd "$1" && CFLAGS="-Werror $SAN_FLAGS" LDFLAGS="$SAN_FLAGS" \
     cmake -S . -B build -DCMAKE_PREFIX_PATH="$PREFIX" >"$T/cmake.log" 2>&1 &&
     cmake --build build >>"$T/cmake.log" 2>&1) && ok || { fail "cmake build of $1"; tail -30 "$T/cmake.log"; }
}

# build_make DIR [VAR=VALUE...]: the Makefile of the installed examples (docs/sdk.md).
build_make() {
  local d=$1
  shift
  (cd "$d" && make "$@" >"$T/make.log" 2>&1) && ok || { fail "make in $d"; tail -30 "$T/make.log"; }
}

# every_case FILE PLUGIN STATUS: at least one case of PLUGIN in the run's
# output, and every one with STATUS.
every_case() {
  local n bad
  n=$(grep -Ec "^\[ *[0-9]+/[0-9]+\] $2 " "$1")
  bad=$(grep -E "^\[ *[0-9]+/[0-9]+\] $2 " "$1" | grep -Ev "  $3( |$)")
  if [ "$n" -gt 0 ] && [ -z "$bad" ]; then ok; else
    fail "$2: expected every case $3 ($n cases)"; [ -n "$bad" ] && echo "$bad"; tail -20 "$T/err"
  fi
}
