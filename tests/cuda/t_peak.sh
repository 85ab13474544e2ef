#!/usr/bin/env bash
# The cuda peak plugins' kernels do the work they count, read in the PTX
# of every PTX architecture of the build (fatbin.py): in each kernel the
# one loop (a label and the branch back to it) holds, per pass,
#   cuda_peak_fma     peak_fma<K>: 8 chains x 32 FMAs, every one
#                     present: 512 fma.rn.f32 (fp32 lane pairs), 256
#                     fma.rn.f64, 256 fma.rn.f16x2, 256 fma.rn.bf16x2
#   cuda_peak_matrix  peak_mma<bf16>: 8 accumulators x 8 =
#                     64 mma.sync.aligned.m16n8k16.row.col.f32.{f16.f16,
#                     bf16.bf16}.f32; peak_wgmma<bf16>: 8
#                     wgmma.mma_async.sync.aligned.m64n256k16.f32.{f16.f16,
#                     bf16.bf16} and a commit in the sm_90a PTX (with SASS
#                     for sm_90a), none in any other PTX
# (not dead-coded, not hoisted out of the loop: the chain is in it), and
# every kernel ends by storing its results (st.global).
. "$SRC/tests/cli/lib.sh"

expect_nonempty "PTX architectures of the build" $CUDA_ARCHS
expect_nonempty "architectures of cuda_peak_matrix" $CUDA_PEAK_MATRIX_ARCHS

. "$SRC/tests/cuda/ptx.sh"

for p in cuda_peak_fma cuda_peak_matrix; do
  if [ -f "$PLUGIN_DIR/$p.so" ]; then ok; else fail "$PLUGIN_DIR/$p.so: not built"; fi
done
ptx cuda_peak_fma
ptx cuda_peak_matrix

want_fma=("fma.rn.f32 512" "fma.rn.f64 256" "fma.rn.f16x2 256" "fma.rn.bf16x2 256")
for a in $(ptx_archs $CUDA_ARCHS); do
  arch_loops cuda_peak_fma "$a" "$T/fma.$a" || continue
  for k in 0 1 2 3; do
    line=$(grep -E "^_Z8peak_fmaILi${k}E" "$T/fma.$a")
    [ -n "$line" ] || { fail "cuda_peak_fma sm_$a: no kernel peak_fma<$k>"; continue; }
    set -- ${want_fma[$k]}
    n=$(count "$line" "$1")
    expect_eq "$n" "$2" "cuda_peak_fma sm_$a peak_fma<$k>: $1 in its loop"
    if [ "$(count "$line" stores)" -ge 8 ]; then ok; else fail "cuda_peak_fma sm_$a peak_fma<$k>: the chains' ends are not all stored: $line"; fi
    echo "cuda_peak_fma sm_$a peak_fma<$k>: $n $1 in the loop"
  done
done

mma=(mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32)
wgmma=(wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16)
saw_90a=0
for a in $(ptx_archs $CUDA_PEAK_MATRIX_ARCHS); do
  arch_loops cuda_peak_matrix "$a" "$T/mx.$a" || continue
  files=("$T"/cuda_peak_matrix/ptx.*.sm_"$a")
  for b in 0 1; do
    line=$(grep -E "^_Z8peak_mmaILb${b}E" "$T/mx.$a")
    n=$(count "$line" "${mma[$b]}")
    expect_eq "$n" 64 "cuda_peak_matrix sm_$a peak_mma<$b>: ${mma[$b]} in its loop"
    if [ "$(count "$line" stores)" -ge 32 ]; then ok; else fail "cuda_peak_matrix sm_$a peak_mma<$b>: accumulators not all stored: $line"; fi
    echo "cuda_peak_matrix sm_$a peak_mma<$b>: $n ${mma[$b]} in the loop"
    line=$(grep -E "^_Z10peak_wgmmaILb${b}E" "$T/mx.$a")
    n=$(count "$line" "${wgmma[$b]}")
    if [ "$a" = 90a ]; then
      saw_90a=1
      expect_eq "$n" 8 "cuda_peak_matrix sm_90a peak_wgmma<$b>: ${wgmma[$b]} in its loop"
      expect_eq "$(count "$line" wgmma.commit_group.sync.aligned)" 1 "sm_90a peak_wgmma<$b>: a commit a pass"
      if [ "$(count "$line" stores)" -ge 128 ]; then ok; else fail "sm_90a peak_wgmma<$b>: accumulators not all stored: $line"; fi
      echo "cuda_peak_matrix sm_90a peak_wgmma<$b>: $n ${wgmma[$b]} in the loop"
    else
      expect_not_in "${files[0]}" 'wgmma\.mma_async' "cuda_peak_matrix sm_$a PTX (wgmma is sm_90a's)"
    fi
  done
done
# CUDA 12+ builds 90a in place of 90 (plugins/cuda/CMakeLists.txt): the
# wgmma variant's code is there, SASS and PTX, and no sm_90 cubin of the
# plugin's own that the driver could pick instead
if grep -qw 90a <<<"$CUDA_PEAK_MATRIX_ARCHS"; then
  expect_eq "$saw_90a" 1 "cuda_peak_matrix: sm_90a PTX read"
  expect_in "$T/cuda_peak_matrix/entries" '^sass sm_90a$' "cuda_peak_matrix: SASS for sm_90a"
  # hipb.o's own fatbin holds sm_90 (one per object): one sm_90 cubin at most
  expect_eq "$(grep -c '^sass sm_90$' "$T/cuda_peak_matrix/entries")" 1 "cuda_peak_matrix: sm_90 SASS (hipb.o's only)"
fi
expect_not_in "$T/cuda_peak_fma/entries" 'sm_90a' "cuda_peak_fma: no sm_90a (that is cuda_peak_matrix's alone)"
finish
