#!/usr/bin/env bash
# cmake --install gives bin/bench, the plugins, presets, header and a
# pkg-config file; a plugin written outside the tree builds with
#   cc -shared -fPIC $(pkg-config --cflags bench-plugin) my.c -o my.so
# and the installed bench runs it.
. "$(dirname "$0")/lib.sh"

cmake --install "$BUILD" --prefix "$T/prefix" >"$T/install.log" 2>&1 && ok || { fail "cmake --install"; cat "$T/install.log"; }
B="$T/prefix/bin/bench"
[ -x "$B" ] && ok || fail "no bin/bench"
[ -f "$T/prefix/include/bench/plugin.h" ] && ok || fail "no include/bench/plugin.h"
[ -f "$T/prefix/include/bench/dtype.h" ] && ok || fail "no include/bench/dtype.h"
ls "$T"/prefix/share/bench/presets/{smoke,standard,perf,verify}.ini >/dev/null && ok || fail "presets not installed"
pc=$(find "$T/prefix" -name bench-plugin.pc | head -1)
[ -n "$pc" ] && ok || fail "no bench-plugin.pc"
plugdir=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=plugindir bench-plugin)
[ -f "$plugdir/cpu_gemm.so" ] && ok || fail "cpu_gemm.so not in $plugdir"
# man bench and bash completion, generated from the option tables
grep -q '^\.TH BENCH 1' "$T/prefix/share/man/man1/bench.1" && ok || fail "no share/man/man1/bench.1"
grep -q '^complete -F _bench bench' "$T/prefix/share/bash-completion/completions/bench" && ok || fail "no bash completion"

# The plugin author's afternoon: build with the installed header only.
cflags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags bench-plugin)
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC $cflags "$SRC/tests/cli/external_plugin.c" -o "$plugdir/ext_softmax.so" \
  && ok || fail "external plugin does not build"
nm -D --defined-only "$plugdir/ext_softmax.so" | grep -q ' bench_plugin_entry$' && ok || fail "entry not exported"

cd "$T"
"$B" --list >"$T/out" 2>"$T/err"; RC=$?
expect_rc 0 "installed --list"
expect_in "$T/out" '^ext_softmax +cpu +runnable'
expect_in "$T/out" '^cpu_gemm +cpu +runnable'
"$B" --preset smoke --plugin ext_softmax >"$T/out" 2>"$T/err"; RC=$?
expect_rc 0 "installed bench runs the external plugin"
expect_in "$T/out" 'ext_softmax cols=1000  *OK'
ls "$T/results/${TODAY}_ext_softmax_smoke.json" >/dev/null && ok || fail "result file of the external plugin"
# The header is also clean C++.
if command -v c++ >/dev/null; then
  echo '#include <bench/plugin.h>
int main() { return BENCH_ABI_MAJOR == 1 ? 0 : 1; }' >"$T/hdr.cpp"
  c++ -std=c++11 -Wall -Wextra -pedantic -Werror $cflags "$T/hdr.cpp" -o "$T/hdr" && "$T/hdr" && ok || fail "header as C++"
fi
finish
