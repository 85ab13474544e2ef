#!/usr/bin/env bash
# cuda_gemm's variant=mma runs on the tensor cores, read in the PTX of every
# PTX architecture of the build (fatbin.py). For each `tile` BMxBN and
# `warps` WRxWC the plugin declares (bench --list --verbose), a warp owns
# (BM/WR) x (BN/WC) of C in MI = BM/WR/16 row and NI = BN/WC/8 column
# blocks; the layout has a kernel when both sides are multiples of 16 and
# its MI x NI x 4 accumulators fit 128 registers, and then the main loop
# (the label and the branch back to it: 32 k a pass) holds, per dtype
# (f16, bf16):
#   2 x MI x NI  mma.sync.aligned.m16n8k16.row.col.f32.{f16.f16,bf16.bf16}.f32
#   2 x MI       ldmatrix .x4 (A), NI ldmatrix .x4.trans (B)
#   (BM+BN) x 4 / threads  cp.async.cg (16 bytes each: the next stage's
#                A and B tiles), one commit_group, and one wait_group
#                for each `stages` value (the count in flight is an
#                immediate: a switch on the run's stages)
# and the kernel stores its 2 x MI x NI float2s of C at least. No other
# layout has a gemm_mma kernel (nothing declared that cannot run), and no
# variant=tiled kernel holds an mma.sync (tiled is SIMT).
#
# variant=wgmma is sm_90a code (cuda_gemm builds 90a in place of 90 with
# CUDA 12+, $CUDA_GEMM_ARCHS): a tile has a gemm_wgmma kernel when BM is
# 64, 128, 192 or 256 (BM/64 warpgroups) and BN is 64, 128 or 256, and
# then its loop (64 k a pass) holds 4 wgmma.mma_async m64nBNk16 of its
# dtype (B transposed), one wgmma fence, commit and wait, one
# fence.proxy.async (cp.async's writes seen by wgmma), (BM+BN) x 8 /
# threads cp.async.cg, a wait_group per stages value, and the kernel stores
# its BN/4 float2s of C at least. No other PTX holds a wgmma.
. "$SRC/tests/cli/lib.sh"

expect_nonempty "PTX architectures of cuda_gemm" $CUDA_GEMM_ARCHS
. "$SRC/tests/cuda/ptx.sh"

if [ -f "$PLUGIN_DIR/cuda_gemm.so" ]; then ok; else fail "$PLUGIN_DIR/cuda_gemm.so: not built"; fi
run_bench --list --verbose --plugin cuda_gemm
expect_rc 0 "bench --list --verbose --plugin cuda_gemm"
choices() { sed -n -E "s/^ +$1 +string \\{([^}]*)\\}.*/\\1/p" "$T/out" | tr ',' ' '; }
tiles=$(choices tile)
warps=$(choices warps)
expect_nonempty "cuda_gemm's tile choices" $tiles
expect_nonempty "cuda_gemm's warps choices" $warps
read -r smin smax < <(sed -n -E 's/^ +stages +int +\[([0-9]+), ([0-9]+)\].*/\1 \2/p' "$T/out")
expect_nonempty "cuda_gemm's stages range" $smin $smax
ptx cuda_gemm

mma=(mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32)
ldsm=ldmatrix.sync.aligned.m8n8.x4.shared.b16
ldsmt=ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
read_archs=0
wg=(wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16)
saw_90a=0
for a in $(ptx_archs $CUDA_GEMM_ARCHS); do
  arch_loops cuda_gemm "$a" "$T/gemm.$a" || continue
  read_archs=$((read_archs + 1))
  kernels=0
  for t in $tiles; do
    bm=${t%x*} bn=${t#*x}
    for w in $warps; do
      wr=${w%x*} wc=${w#*x}
      tm=$((bm / wr)) tn=$((bn / wc))
      valid=0
      if [ $((tm % 16)) = 0 ] && [ $((tn % 16)) = 0 ] && [ $((tm / 16 * tn / 8 * 4)) -le 128 ]; then valid=1; fi
      mi=$((tm / 16)) ni=$((tn / 8)) threads=$((wr * wc * 32))
      for b in 0 1; do
        what="cuda_gemm sm_$a gemm_mma<$b> tile $t warps $w"
        line=$(grep -E "^_Z8gemm_mmaILb${b}ELi${bm}ELi${bn}ELi${wr}ELi${wc}EE" "$T/gemm.$a")
        if [ "$valid" = 0 ]; then
          if [ -z "$line" ]; then ok; else fail "$what: a kernel for a layout that cannot run"; fi
          continue
        fi
        [ -n "$line" ] || { fail "$what: no kernel"; continue; }
        kernels=$((kernels + 1))
        expect_eq "$(count "$line" "${mma[$b]}")" $((2 * mi * ni)) "$what: ${mma[$b]} in its loop"
        expect_eq "$(count "$line" "${mma[1 - b]}")" 0 "$what: ${mma[1 - b]} (the other dtype's)"
        expect_eq "$(count "$line" $ldsm)" $((2 * mi)) "$what: $ldsm (A) in its loop"
        expect_eq "$(count "$line" $ldsmt)" "$ni" "$what: $ldsmt (B) in its loop"
        expect_eq "$(count "$line" cp.async.cg.shared.global)" $(((bm + bn) * 4 / threads)) "$what: cp.async.cg in its loop"
        expect_eq "$(count "$line" cp.async.commit_group)" 1 "$what: one commit a pass"
        expect_eq "$(count "$line" cp.async.wait_group)" $((smax - smin + 1)) "$what: a wait per stages value"
        if [ "$(count "$line" stores)" -ge $((2 * mi * ni)) ]; then ok; else fail "$what: C not all stored: $line"; fi
      done
    done
  done
  if [ "$kernels" -gt 0 ]; then ok; else fail "cuda_gemm sm_$a: no mma kernel checked"; fi
  if [ "$a" = 90a ]; then
    saw_90a=1
    wkernels=0
    for t in $tiles; do
      bm=${t%x*} bn=${t#*x}
      valid=0
      if [ $((bm % 64)) = 0 ] && [ "$bm" -le 256 ] && { [ "$bn" = 64 ] || [ "$bn" = 128 ] || [ "$bn" = 256 ]; }; then valid=1; fi
      threads=$((bm / 64 * 128))
      for b in 0 1; do
        what="cuda_gemm sm_90a gemm_wgmma<$b> tile $t"
        line=$(grep -E "^_Z10gemm_wgmmaILb${b}ELi${bm}ELi${bn}EE" "$T/gemm.$a")
        if [ "$valid" = 0 ]; then
          if [ -z "$line" ]; then ok; else fail "$what: a kernel for a tile that cannot run"; fi
          continue
        fi
        [ -n "$line" ] || { fail "$what: no kernel"; continue; }
        wkernels=$((wkernels + 1))
        insn=${wg[$b]/nN/n$bn}
        expect_eq "$(count "$line" "$insn")" 4 "$what: $insn in its loop"
        expect_eq "$(tr ' ' '\n' <<<"$line" | grep -c '^wgmma\.mma_async')" 1 "$what: one wgmma shape and dtype"
        expect_eq "$(count "$line" wgmma.fence.sync.aligned)" 1 "$what: a wgmma fence a pass"
        expect_eq "$(count "$line" wgmma.commit_group.sync.aligned)" 1 "$what: a wgmma commit a pass"
        expect_eq "$(count "$line" wgmma.wait_group.sync.aligned)" 1 "$what: a wgmma wait a pass"
        expect_eq "$(count "$line" fence.proxy.async.shared)" 1 "$what: fence.proxy.async a pass"
        expect_eq "$(count "$line" cp.async.cg.shared.global)" $(((bm + bn) * 8 / threads)) "$what: cp.async.cg in its loop"
        expect_eq "$(count "$line" cp.async.wait_group)" $((smax - smin + 1)) "$what: a wait per stages value"
        if [ "$(count "$line" stores)" -ge $((bn / 4)) ]; then ok; else fail "$what: C not all stored: $line"; fi
      done
    done
    if [ "$wkernels" -gt 0 ]; then ok; else fail "cuda_gemm sm_90a: no wgmma kernel checked"; fi
    expect_eq "$(grep -c '^_Z10gemm_wgmmaI' "$T/gemm.$a")" "$wkernels" "cuda_gemm sm_90a: gemm_wgmma kernels (the declared tiles')"
    echo "cuda_gemm sm_90a: $wkernels wgmma kernels with their warpgroup loops"
  else
    cat "$T"/cuda_gemm/ptx.*.sm_"$a" >"$T/ptx_all.$a"
    expect_not_in "$T/ptx_all.$a" 'wgmma\.mma_async' "cuda_gemm sm_$a PTX (wgmma is sm_90a's)"
  fi
  expect_eq "$(grep -c '^_Z8gemm_mma' "$T/gemm.$a")" "$kernels" "cuda_gemm sm_$a: gemm_mma kernels (the declared layouts')"
  tiled=$(grep -c '^_Z10gemm_tiled' "$T/gemm.$a")
  if [ "$tiled" -gt 0 ]; then ok; else fail "cuda_gemm sm_$a: no variant=tiled kernel"; fi
  expect_eq "$(grep '^_Z10gemm_tiled' "$T/gemm.$a" | grep -c 'mma\.sync')" 0 "cuda_gemm sm_$a: mma.sync in tiled kernels"
  echo "cuda_gemm sm_$a: $kernels mma kernels with their tensor-core loops, $tiled tiled kernels without"
done
if [ "$read_archs" -gt 0 ]; then ok; else fail "cuda_gemm: no PTX architecture read"; fi
if grep -qw 90a <<<"$CUDA_GEMM_ARCHS"; then
  expect_eq "$saw_90a" 1 "cuda_gemm: sm_90a PTX read"
  expect_in "$T/cuda_gemm/entries" '^sass sm_90a$' "cuda_gemm: SASS for sm_90a"
fi
finish
