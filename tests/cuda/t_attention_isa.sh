#!/usr/bin/env bash
# cuda_attention's variant=mma runs on the tensor cores, read in the PTX of
# every PTX architecture of the build (fatbin.py). attn_mma<bf16, D> (D 64
# and 128: head_dim up to 64, up to 128) has one loop over the key tiles of
# 64; per tile a warp (16 query rows) does
#   S = Q K^T   D/16 k steps x 8 key blocks: D/2 mma.sync, D/4 ldmatrix .x4
#               of K (and D/16 more, once, for Q's fragments, in the loop's
#               first pass);
#   softmax     32 ex2 for P and 2 for the rescale, 4 shuffles for the row
#               maxima, 16 cvt.rn.{f16,bf16}x2 packing P into A fragments;
#   O += P V    4 key steps x D/8 blocks: D/2 mma.sync, D/4 ldmatrix
#               .x4.trans of V;
#   the next    D/8 cp.async.cg of 16 bytes a thread (K and V, 64 x D each
#   tile        over 128 threads), one commit, one wait;
# in all D mma.sync.aligned.m16n8k16.row.col.f32.{f16.f16,bf16.bf16}.f32 of
# its dtype alone, and it stores its 2 rows x D/8 pairs of O (D/2 stores).
# The variant=tiled kernels hold no mma.sync (they are SIMT).
. "$SRC/tests/cli/lib.sh"

expect_nonempty "PTX architectures of the build" $CUDA_ARCHS
. "$SRC/tests/cuda/ptx.sh"

if [ -f "$PLUGIN_DIR/cuda_attention.so" ]; then ok; else fail "$PLUGIN_DIR/cuda_attention.so: not built"; fi
run_bench --list --verbose --plugin cuda_attention
expect_rc 0 "bench --list --verbose --plugin cuda_attention"
expect_in "$T/out" '^ +variant +string \{tiled,mma\}' "cuda_attention's variants"
ptx cuda_attention

mma=(mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32)
cvt=(cvt.rn.f16x2.f32 cvt.rn.bf16x2.f32)
read_archs=0
for a in $(ptx_archs $CUDA_ARCHS); do
  arch_loops cuda_attention "$a" "$T/attn.$a" || continue
  read_archs=$((read_archs + 1))
  for D in 64 128; do
    for b in 0 1; do
      what="cuda_attention sm_$a attn_mma<$b, $D>"
      line=$(grep -E "^_Z8attn_mmaILb${b}ELi${D}EE" "$T/attn.$a")
      [ -n "$line" ] || { fail "$what: no kernel"; continue; }
      expect_eq "$(count "$line" "${mma[$b]}")" "$D" "$what: ${mma[$b]} in its loop"
      expect_eq "$(count "$line" "${mma[1 - b]}")" 0 "$what: ${mma[1 - b]} (the other dtype's)"
      expect_eq "$(count "$line" ldmatrix.sync.aligned.m8n8.x4.shared.b16)" $((D / 4 + D / 16)) "$what: ldmatrix .x4 (K, Q) in its loop"
      expect_eq "$(count "$line" ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16)" $((D / 4)) "$what: ldmatrix .x4.trans (V) in its loop"
      expect_eq "$(count "$line" ex2.approx.f32)" 34 "$what: ex2 (P, rescale) in its loop"
      expect_eq "$(count "$line" shfl.sync.bfly.b32)" 4 "$what: row-max shuffles in its loop"
      expect_eq "$(count "$line" "${cvt[$b]}")" 16 "$what: ${cvt[$b]} (P to A fragments) in its loop"
      expect_eq "$(count "$line" cp.async.cg.shared.global)" $((D / 8)) "$what: cp.async.cg (next K, V) in its loop"
      expect_eq "$(count "$line" cp.async.commit_group)" 1 "$what: one commit a tile"
      expect_eq "$(count "$line" cp.async.wait_group)" 1 "$what: one wait a tile"
      if [ "$(count "$line" stores)" -ge $((D / 2)) ]; then ok; else fail "$what: O not all stored: $line"; fi
      expect_eq "$(grep -c "^_Z13attn_mma_prepILb${b}ELi${D}EE" "$T/attn.$a")" 1 "$what: its pre-pass kernel"
    done
  done
  tiled=$(grep -c '^_Z13attention_fwd' "$T/attn.$a")
  if [ "$tiled" -gt 0 ]; then ok; else fail "cuda_attention sm_$a: no variant=tiled kernel"; fi
  expect_eq "$(grep '^_Z13attention_fwd' "$T/attn.$a" | grep -c 'mma\.sync')" 0 "cuda_attention sm_$a: mma.sync in tiled kernels"
  echo "cuda_attention sm_$a: 4 mma kernels with their tensor-core loops, $tiled tiled kernels without"
done
if [ "$read_archs" -gt 0 ]; then ok; else fail "cuda_attention: no PTX architecture read"; fi
finish
