#!/usr/bin/env bash
# Each cuda_* plugin (CUDA_PLUGINS, built in PLUGIN_DIR): exports
# bench_plugin_entry and nothing else, holds SASS for every CMAKE_CUDA_ARCHITECTURES
# target (CUDA_ARCHS; read from the .nv_fatbin section), and loads without a driver: no libcuda.so.1 and no
# libcudart.so among its needed libraries (the CUDA runtime is linked in
# statically and finds the driver at run time).
. "$SRC/tests/cli/lib.sh"

expect_nonempty "cuda plugins in the build" $CUDA_PLUGINS
expect_nonempty "CUDA architectures of the build" $CUDA_ARCHS
for name in $CUDA_PLUGINS; do
  so="$PLUGIN_DIR/$name.so"
  if [ ! -f "$so" ]; then fail "$so: not built"; continue; fi
  exported=$(nm -D --defined-only "$so" | awk '{print $NF}' | sort | tr '\n' ' ')
  expect_eq "$exported" "bench_plugin_entry " "$name exports"
  readelf -d "$so" | grep NEEDED >"$T/needed"
  expect_not_in "$T/needed" 'libcuda\.so|libcudart\.so' "$name needed libraries"
  # The .nv_fatbin section (the toolkit here has no cuobjdump): fatbin
  # headers (magic 0xBA55ED50), each entry kind 1 PTX or 2 ELF (SASS), its
  # sm number at byte 28 of the entry header.
  rm -f "$T/fb"
  objcopy --dump-section .nv_fatbin="$T/fb" "$so" "$T/so.copy" 2>/dev/null
  python3 - "$T/fb" >"$T/elf" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off = 0
while off + 16 <= len(b):
    magic, _, hsz, fsz = struct.unpack_from("<IHHQ", b, off)
    if magic != 0xBA55ED50:
        break
    p, end = off + hsz, off + hsz + fsz
    while p < end:
        kind, _, ehs, size = struct.unpack_from("<HHIQ", b, p)
        arch = struct.unpack_from("<I", b, p + 28)[0]
        print({1: "ptx", 2: "sass"}.get(kind, "kind%d" % kind), "sm_%d" % arch)
        p += ehs + size
    off = end
PY
  for a in $CUDA_ARCHS; do
    a=${a%-real}; a=${a%-virtual}
    expect_in "$T/elf" "^sass sm_$a\$" "$name: SASS for sm_$a"
  done
done
expect_in "$T/needed" '.' "readelf found the needed libraries"
readelf -d "$PLUGIN_DIR/cuda_gemm.so" | grep NEEDED >"$T/needed"
expect_in "$T/needed" 'libcublas\.so' "cuda_gemm links cuBLAS"
finish
