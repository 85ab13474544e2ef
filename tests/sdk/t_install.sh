#!/usr/bin/env bash
# cmake --install into $PREFIX (the fixture of the other sdk tests): bench,
# the SDK's headers, static helper libraries and relocatable pkg-config
# files, the linker script, and the example sources.
. "$(dirname "$0")/lib.sh"
rm -rf "$PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX" >"$T/install.log" 2>&1 && ok || { fail "cmake --install"; cat "$T/install.log"; }
[ -x "$B" ] && ok || fail "no bin/bench"
[ -f "$PREFIX/share/bench/plugin.map" ] && ok || fail "no share/bench/plugin.map"
for b in cpu vulkan hip; do
  for f in CMakeLists.txt Makefile README.md; do
    [ -f "$PREFIX/share/bench/examples/$b/$f" ] && ok || fail "no examples/$b/$f"
  done
done
pkg-config --exists bench-plugin && ok || fail "pkg-config bench-plugin"
# the references: result files and the SDK (docs/sdk.md)
cmp -s "$PREFIX/share/doc/bench/results.md" "$SRC/docs/results.md" && ok || fail "no share/doc/bench/results.md (docs/results.md)"
cmp -s "$PREFIX/share/doc/bench/sdk.md" "$SRC/docs/sdk.md" && ok || fail "no share/doc/bench/sdk.md"

# <bench/params.h>, the one parameter grammar: installed, C11 and C++ clean
# on its own, and it parses as documented.
[ -f "$PREFIX/include/bench/params.h" ] && ok || fail "no include/bench/params.h"
cat >"$T/params.c" <<'C'
#include <bench/params.h>
#include <stdio.h>
static const struct bench_param params[] = {
    BENCH_PARAM_ROWS("7", "4096", "4096", "1"), BENCH_PARAM_SIZE("bytes", "1K", "1KB", "1G", "1GB"),
    {NULL, BENCH_PARAM_INT, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}, 0, NULL, 0}};
int main(void) {
  int64_t k = 0, kb = 0, m = 0;
  enum bench_dtype t = BENCH_F32;
  int bad = bench_size_parse("1K", NULL, &k) != BENCH_SIZE_OK || k != 1024 ||
            bench_size_parse("1KB", NULL, &kb) != BENCH_SIZE_OK || kb != 1000 ||
            bench_size_parse("1.5MiB", NULL, &m) != BENCH_SIZE_OK || m != 1572864 ||
            bench_size_parse("L2/2", NULL, &m) != BENCH_SIZE_NO_RESOLVER ||
            bench_dtype_parse("bf16", &t) != 0 || t != BENCH_BF16 || params[0].max != BENCH_ROWS_MAX;
  printf("%s\n", bad ? "bad" : "good");
  return bad;
}
C
cp "$T/params.c" "$T/params.cpp"
cflags=$(pkg-config --cflags bench-plugin)
cc -std=c11 -Wall -Wextra -pedantic -Werror $cflags "$T/params.c" -o "$T/params_c" 2>"$T/cc.err" \
  && "$T/params_c" >/dev/null && ok || { fail "<bench/params.h> in C11"; cat "$T/cc.err"; }
if command -v c++ >/dev/null; then
  c++ -std=c++11 -Wall -Wextra -pedantic -Werror $cflags "$T/params.cpp" -o "$T/params_cpp" 2>"$T/cc.err" \
    && "$T/params_cpp" >/dev/null && ok || { fail "<bench/params.h> in C++11"; cat "$T/cc.err"; }
fi

# The .pc files name the prefix relative to themselves: a moved tree works.
mv "$PREFIX" "$T/moved"
inc=$(PKG_CONFIG_PATH="$T/moved/lib/pkgconfig" pkg-config --variable=includedir bench-plugin)
[ -f "$inc/bench/plugin.h" ] && ok || fail "moved prefix: includedir $inc"
mv "$T/moved" "$PREFIX"

# Each backend's helpers, when built: header, library, a .pc that resolves,
# and the library's own symbols all hidden.
if [ -f "$BUILD/plugins/vulkan/vkh/bench-vulkan.pc" ]; then
  [ -f "$PREFIX/include/bench/vkh.h" ] && ok || fail "no include/bench/vkh.h"
  pkg-config --exists bench-vulkan && ok || fail "pkg-config bench-vulkan: $(pkg-config --print-errors bench-vulkan 2>&1)"
  libs=$(pkg-config --libs bench-vulkan)
  case "$libs" in *-lbench-vulkan*-lvulkan*) ok ;; *) fail "bench-vulkan libs: $libs" ;; esac
  lib="$PREFIX/lib/libbench-vulkan.a"
  [ -f "$lib" ] && ok || fail "no lib/libbench-vulkan.a"
  # a global symbol of the archive that is not hidden would be exported by
  # every plugin linking it
  visible=$(readelf -sW "$lib" | awk '$5 == "GLOBAL" && $7 != "UND" && $6 != "HIDDEN" {print $8}')
  [ -z "$visible" ] && ok || fail "libbench-vulkan.a has visible symbols: $visible"
  echo '#include <bench/vkh.h>
int main(void) { struct vkh vk = {0}; return vk.messages; }' >"$T/vkh.c"
  cc -std=c11 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags bench-vulkan) -c "$T/vkh.c" -o "$T/vkh.o" \
    && ok || fail "<bench/vkh.h> does not compile on its own"
fi
if [ -f "$BUILD/plugins/hip/bench-hip.pc" ]; then
  [ -f "$PREFIX/include/bench/hipb.h" ] && ok || fail "no include/bench/hipb.h"
  [ -f "$PREFIX/lib/libbench-hip.a" ] && ok || fail "no lib/libbench-hip.a"
  pkg-config --exists bench-hip && ok || fail "pkg-config bench-hip"
  flags=$(pkg-config --variable=offload_arch_flags bench-hip)
  case "$flags" in --offload-arch=gfx*) ok ;; *) fail "bench-hip offload_arch_flags: '$flags'" ;; esac
  map=$(pkg-config --variable=plugin_map bench-hip)
  [ -f "$map" ] && ok || fail "bench-hip plugin_map: $map"
fi
finish
