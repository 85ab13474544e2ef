#!/usr/bin/env bash
# Each cuda_* plugin (CUDA_PLUGINS, built in PLUGIN_DIR): exports
# bench_plugin_entry and nothing else, holds SASS for every CMAKE_CUDA_ARCHITECTURES
# target (CUDA_ARCHS; read from the .nv_fatbin section), and loads without a driver: no libcuda.so.1 and no
# libcudart.so among its needed libraries (the CUDA runtime is linked in
# statically and finds the driver at run time). Its PTX (the fatbin's PTX
# entries, read by fatbin.py)
# holds hipb's in-band clock kernel (plugins/hip/hipb_clock.h), which reads
# %globaltimer, %clock64 and %smid, for every architecture.
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
  # The .nv_fatbin section's entries (fatbin.py: the toolkit here has no
  # cuobjdump), its PTX entries written to $T/ptx.N.sm_XX.
  rm -f "$T/fb" "$T"/ptx.*
  objcopy --dump-section .nv_fatbin="$T/fb" "$so" "$T/so.copy" 2>/dev/null
  python3 "$SRC/tests/cuda/fatbin.py" "$T/fb" "$T" >"$T/elf"
  for a in $CUDA_ARCHS; do
    a=${a%-real}; a=${a%-virtual}
    # an sm_90a cubin (cuda_peak_matrix's, for its wgmma) runs on sm_90
    expect_in "$T/elf" "^sass sm_${a}a?\$" "$name: SASS for sm_$a"
  done
  expect_not_in "$T/elf" '^ptx-unreadable' "$name: PTX entries"
  # the clock kernel's body in each PTX (every architecture but an -real
  # one, which has SASS alone): from its .entry to the next one
  for a in $CUDA_ARCHS; do
    case $a in *-real) continue ;; esac
    a=${a%-virtual}
    files=("$T"/ptx.*.sm_"$a")
    [ -e "${files[0]}" ] || { fail "$name: no PTX for sm_$a"; continue; }
    awk '/\.entry /{k = /hipb_clock_kernel/} k' "${files[@]}" >"$T/clk"
    expect_in "$T/clk" 'mov\.u64 +%rd[0-9]+, +%globaltimer;' "$name: sm_$a PTX of hipb_clock_kernel: %globaltimer"
    expect_in "$T/clk" 'mov\.u64 +%rd[0-9]+, +%clock64;' "$name: sm_$a PTX of hipb_clock_kernel: %clock64"
    expect_in "$T/clk" 'mov\.u32 +%r[0-9]+, +%smid;' "$name: sm_$a PTX of hipb_clock_kernel: %smid"
  done
done
expect_in "$T/needed" '.' "readelf found the needed libraries"
readelf -d "$PLUGIN_DIR/cuda_gemm.so" | grep NEEDED >"$T/needed"
expect_in "$T/needed" 'libcublas\.so' "cuda_gemm links cuBLAS"
finish
