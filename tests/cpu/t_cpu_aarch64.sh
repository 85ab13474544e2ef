#!/usr/bin/env bash
# Non-x86 machines still build (issue 20): with Debian's aarch64 cross
# compiler, every CPU plugin of plugins/cpu/CMakeLists.txt is compiled with
# the project's warnings as errors and linked as the harness loads it (one
# exported symbol, no undefined one), and every harness source compiles; the
# cache probe there has no CPUID and falls back to sysfs and sysconf.
# Skipped (exit 77) where the cross compiler is not installed.
. "$(dirname "$0")/cpu_lib.sh"

CC=aarch64-linux-gnu-gcc
command -v $CC >/dev/null || skip "$CC not installed (Debian: gcc-aarch64-linux-gnu)"
W="-std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
O="$T/obj"
mkdir -p "$O"

# The shared objects every CPU plugin links: bench_cpu_common + bench_machine.
common=()
for f in plugins/cpu/cpu_common.c plugins/cpu/cpu_pool.c plugins/cpu/cpu_rowops.c plugins/cpu/cpu_stream.c \
  plugins/cpu/cpu_peak.c harness/src/machine/cpu_caches.c; do
  if $CC $W -fopenmp-simd -fno-trapping-math -fPIC -fvisibility=hidden -I"$SRC/harness/include" \
    -I"$SRC/harness/src/machine" -I"$SRC/plugins/cpu" -c "$SRC/$f" -o "$O/$(basename "$f").o" 2>"$T/cc.err"; then
    ok; common+=("$O/$(basename "$f").o")
  else
    fail "$f for aarch64"; cat "$T/cc.err"
  fi
done

# bench_cpu_plugin(NAME SOURCES...) lines of the CMakeLists: the plugins.
plugins=$(sed -n 's/^bench_cpu_plugin(\([^)]*\)).*/\1/p' "$SRC/plugins/cpu/CMakeLists.txt")
expect_nonempty "bench_cpu_plugin() lines in plugins/cpu/CMakeLists.txt" $plugins
n=0
while read -r name srcs; do
  [ -n "$name" ] || continue
  objs=()
  for s in $srcs; do
    $CC $W -fopenmp-simd -fno-trapping-math -fPIC -fvisibility=hidden -I"$SRC/harness/include" \
      -I"$SRC/harness/src/machine" -I"$SRC/plugins/cpu" -c "$SRC/plugins/cpu/$s" -o "$O/$name.$s.o" 2>"$T/cc.err" ||
      { fail "$name: $s for aarch64"; cat "$T/cc.err"; }
    objs+=("$O/$name.$s.o")
  done
  if $CC -shared -o "$O/$name.so" "${objs[@]}" "${common[@]}" -Wl,--version-script="$SRC/harness/plugin.map" \
    -Wl,--no-undefined -lm -lpthread -ldl 2>"$T/ld.err"; then ok; else fail "$name: link for aarch64"; cat "$T/ld.err"; fi
  aarch64-linux-gnu-readelf -h "$O/$name.so" 2>/dev/null | grep -q 'Machine:.*AArch64' && ok || fail "$name.so is not AArch64"
  aarch64-linux-gnu-readelf --dyn-syms -W "$O/$name.so" | awk '$5 == "GLOBAL" && $7 != "UND" {print $8}' >"$T/syms"
  expect_eq "$(tr '\n' ' ' <"$T/syms")" "bench_plugin_entry " "$name.so's exported symbols"
  n=$((n + 1))
done <<<"$plugins"
[ "$n" -ge 10 ] && ok || fail "only $n CPU plugins built for aarch64"
echo "$n CPU plugins built for aarch64"

# The harness: every source compiles (its libraries' headers are the host's).
hs=("$SRC"/harness/src/*.c "$SRC"/harness/src/*/*.c)
m=0
for f in "${hs[@]}"; do
  [ -f "$f" ] || continue
  $CC $W -D_GNU_SOURCE -fsyntax-only -I"$SRC/harness/include" -I"$SRC/harness/src" -I"$SRC/harness/src/machine" \
    -I"$BUILD/harness" -idirafter /usr/include -idirafter /usr/include/x86_64-linux-gnu "$f" 2>"$T/cc.err" ||
    { fail "$f for aarch64"; head -n 5 "$T/cc.err"; }
  m=$((m + 1))
done
[ "$m" -ge 20 ] && ok || fail "only $m harness sources compiled"
echo "$m harness sources compile for aarch64"
finish
