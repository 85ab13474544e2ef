/* hip_gemm_wgmma.h: hip_gemm's variant=wgmma, the cuda_gemm build's GEMM on
 * Hopper's warpgroup tensor cores (wgmma.mma_async, sm_90a code: the
 * instruction is not in sm_90), f16 or bf16 A and B, fp32 C and
 * accumulation, all row-major:
 *   - BM/64 warpgroups of 128 threads a block, each owning 64 rows of the
 *     BM x BN tile as one m64nBNk16 accumulator (BN/2 values a thread);
 *   - A and B stream through `stages` (2..4) shared-memory stages of 64 k
 *     by cp.async (16 bytes a copy, zero-filled past the edges; 16-bit
 *     loads where a row is not a multiple of 8 elements), stored in the
 *     128-byte-swizzled layouts wgmma reads (16-byte chunk c of a 128-byte
 *     row r at chunk c ^ (r % 8), 1024-byte aligned): A K-major (a row of
 *     64 k per 128 bytes), B MN-major (atoms of 64 n x 64 k rows, read with
 *     wgmma's transpose of B);
 *   - per stage each warpgroup issues 4 wgmma (k 16 each) on shared-memory
 *     descriptors, commits and waits for them before the stage is
 *     refilled, while cp.async fills the stages ahead.
 * The descriptors are CUTLASS's canonical SW128 forms: K-major A,
 * ((8,m),(8,2)):((64,SBO),(1,8)) elements, SBO 1024 bytes; MN-major B,
 * ((8,8,m),(8,k)):((1,8,LBO),(64,SBO)), LBO = 64 k rows x 128 bytes, SBO
 * 1024. tests/cuda/mma_emu.h emulates every step on the CPU (mma_emu.cc
 * runs this kernel there); not yet run on a GPU. */
#ifndef HIP_GEMM_WGMMA_H
#define HIP_GEMM_WGMMA_H

#include "hipb_mma.h"

#define WG_K 64 /* k a stage: 128 bytes of f16 a row, one swizzle atom wide */
#define WG_MAX_STAGES 4
#define WG_ATOM 1024 /* bytes: 8 rows of 128, the swizzle's period */

/* The shared-memory bytes of a BM x BN tile, `stages` deep, and the slack
 * to align the first stage to WG_ATOM. */
constexpr int wg_smem_bytes(int bm, int bn, int stages) {
  return stages * (bm + bn) * WG_K * 2 + WG_ATOM;
}

/* The 128-byte swizzle: byte offset o (from a WG_ATOM-aligned base) of a
 * 16-byte chunk as stored. */
__device__ inline uint32_t wg_swz(uint32_t o) { return o ^ (((o >> 7) & 7) << 4); }

/* One stage: A's BM x WG_K tile of k slice k0 at byte a of sm (K-major:
 * row r at 128 r), B's WG_K x BN tile at byte b (MN-major: n atom j of 64
 * at 8192 j, k row r at 128 r within it), both swizzled; a and b are
 * WG_ATOM-aligned in the shared window. */
template <int BM, int BN, int NT>
__device__ inline void wg_fetch(const uint16_t *A, const uint16_t *B, uint16_t *sm, uint32_t a,
                                uint32_t b, int M, int N, int K, int m0, int n0, int k0) {
  mm_fetch_chunks<BM, WG_K, NT>(
      sm, [a](int r, int c) { return (a + wg_swz((uint32_t)(r * 128 + c * 2))) / 2; }, A, M, K,
      m0, k0);
  mm_fetch_chunks<WG_K, BN, NT>(
      sm,
      [b](int r, int c) {
        return (b + (uint32_t)(c / 64) * (WG_K * 128) + wg_swz((uint32_t)(r * 128 + (c % 64) * 2))) / 2;
      },
      B, K, N, k0, n0);
}

template <bool BF16, int BM, int BN>
__global__ __launch_bounds__(BM / 64 * 128) void gemm_wgmma(const uint16_t *__restrict__ A,
                                                          const uint16_t *__restrict__ B,
                                                          float *__restrict__ C, int M, int N,
                                                          int K, int stages) {
  constexpr int NT = BM / 64 * 128, stage_bytes = (BM + BN) * WG_K * 2, a_bytes = BM * WG_K * 2;
  static_assert(BM % 64 == 0 && BM <= 256, "wgmma: 1 to 4 warpgroups of 64 rows");
  static_assert(BN == 64 || BN == 128 || BN == 256, "wgmma: n 64, 128 or 256");
  MM_SHARED(wg_shared);
  /* stages at byte offsets pad + s * stage_bytes of wg_shared, WG_ATOM
   * boundaries of the shared window (raw + offset: the descriptors') */
  const uint32_t raw = mm_smem(wg_shared), pad = (WG_ATOM - raw % WG_ATOM) % WG_ATOM;
  const int tid = threadIdx.x, wg = tid / 128, lane = tid % 32, warp = (tid % 128) / 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int kt_n = (K + WG_K - 1) / WG_K;

  float acc[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;

  for (int s = 0; s < stages - 1; s++) {
    if (s < kt_n) {
      const uint32_t st = pad + (uint32_t)(s * stage_bytes);
      wg_fetch<BM, BN, NT>(A, B, wg_shared, st, st + a_bytes, M, N, K, m0, n0, s * WG_K);
    }
    mm_commit();
  }
  int rs = 0, ws = stages - 1;
  for (int kt = 0; kt < kt_n; kt++) {
    mm_wait(stages - 2); /* slice kt is in */
    wg_fence_proxy();    /* ... where wgmma (the async proxy) sees it */
    __syncthreads();     /* ... for every thread; stage ws is read out */
    if (kt + stages - 1 < kt_n) {
      const uint32_t st = pad + (uint32_t)(ws * stage_bytes);
      wg_fetch<BM, BN, NT>(A, B, wg_shared, st, st + a_bytes, M, N, K, m0, n0,
                           (kt + stages - 1) * WG_K);
    }
    mm_commit();
    const uint32_t sa = raw + pad + (uint32_t)(rs * stage_bytes + wg * 64 * 128);
    const uint32_t sb = raw + pad + (uint32_t)(rs * stage_bytes + a_bytes);
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < WG_K / 16; kk++)
      wg_mma<BF16, BN>(acc, wg_desc(sa + 32 * kk, 16, WG_ATOM),
                       wg_desc(sb + kk * 16 * 128, WG_K * 128, WG_ATOM));
    wg_commit();
    wg_wait0(acc); /* the stage is free once its products are done */
    rs = rs + 1 == stages ? 0 : rs + 1;
    ws = ws + 1 == stages ? 0 : ws + 1;
  }
  mm_wait(0);

  /* acc[4j + v]: row 16 warp + lane/4 (+8 for v >= 2), column 8j + 2(lane%4) + v%2 */
  const bool c_vec = N % 2 == 0;
#pragma unroll
  for (int j = 0; j < BN / 8; j++) {
    const int col = n0 + 8 * j + 2 * (lane % 4);
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int row = m0 + wg * 64 + warp * 16 + lane / 4 + 8 * h;
      if (row >= M) continue;
      float *c = C + (size_t)row * N + col;
      if (c_vec && col + 2 <= N) {
        *(float2 *)c = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
      } else {
        if (col < N) c[0] = acc[4 * j + 2 * h];
        if (col + 1 < N) c[1] = acc[4 * j + 2 * h + 1];
      }
    }
  }
}

#endif
