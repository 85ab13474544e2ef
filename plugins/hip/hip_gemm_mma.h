/* hip_gemm_mma.h: hip_gemm's variant=mma, the cuda_gemm build's GEMM on
 * NVIDIA's tensor cores (sm_80 and later), f16 or bf16 A and B, fp32 C and
 * accumulation, all row-major:
 *   - WM x WN warps a block (2x2 or 2x4), each owning a (BM/WM) x (BN/WN)
 *     part of the BM x BN tile as m16n8k16 mma.sync accumulators;
 *   - A and B stream through `stages` (2..4) shared-memory stages of 32 k
 *     by cp.async (16 bytes a copy, zero-filled past the edges; 16-bit
 *     loads where a row is not a multiple of 8 elements);
 *   - fragments come by ldmatrix .x4 (B with .trans: it is stored k-major,
 *     as in memory); rows padded by 8 halves, so the 8 rows of each 8x8
 *     matrix fall in different banks.
 * The warp-level steps (cp.async and its waits, ldmatrix, mma.sync) are
 * hipb_mma.h's mm_* primitives, which tests/cuda/mma_emu.h emulates on the
 * CPU (tests/cuda/mma_emu.cc runs this kernel there). */
#ifndef HIP_GEMM_MMA_H
#define HIP_GEMM_MMA_H

#define MM_K 32            /* k a stage */
#define MM_LDA (MM_K + 8)  /* A row in shared memory: 40 halves, 80 bytes */
#define MM_PADB 8          /* B row: BN + 8 halves */
#define MM_MAX_STAGES 4

#include "hipb_mma.h"

/* The shared-memory bytes of a BM x BN tile, `stages` deep. */
constexpr int mm_smem_bytes(int bm, int bn, int stages) {
  return stages * (bm * MM_LDA + MM_K * (bn + MM_PADB)) * 2;
}

/* A stage: A's BM x MM_K tile (As[m][k]) and B's MM_K x BN tile (Bs[k][n])
 * of k slice k0. */
template <int BM, int BN, int NT>
__device__ inline void mm_fetch(const uint16_t *A, const uint16_t *B, uint16_t *as, uint16_t *bs,
                                int M, int N, int K, int m0, int n0, int k0) {
  mm_fetch_tile<BM, MM_K, NT>(as, MM_LDA, A, M, K, m0, k0);
  mm_fetch_tile<MM_K, BN, NT>(bs, BN + MM_PADB, B, K, N, k0, n0);
}

/* WM x WN warps, each owning a (BM/WM) x (BN/WN) part of the BM x BN tile
 * as (BM/WM/16) x (BN/WN/8) m16n8 accumulators. A and B pass through
 * `stages` (2..4) shared-memory stages of MM_K: while the tensor cores
 * multiply stage s, cp.async fills stage s-1 with the slice stages-1
 * ahead. Fragments come by ldmatrix (A as stored, B transposed: both
 * stored row-major as in memory). */
template <bool BF16, int BM, int BN, int WM, int WN>
__global__ __launch_bounds__(WM *WN * 32) void gemm_mma(const uint16_t *__restrict__ A,
                                                       const uint16_t *__restrict__ B,
                                                       float *__restrict__ C, int M, int N, int K,
                                                       int stages) {
  constexpr int NT = WM * WN * 32, TM = BM / WM, TN = BN / WN, MI = TM / 16, NI = TN / 8;
  constexpr int ldb = BN + MM_PADB, a_stage = BM * MM_LDA, b_stage = MM_K * ldb;
  static_assert(TM % 16 == 0 && TN % 16 == 0, "mma: warp tiles of whole 16x16 blocks");
  static_assert(MI * NI * 4 <= 128, "mma: at most 128 accumulators a thread");
  MM_SHARED(mm_shared);
  uint16_t *as = mm_shared, *bs = mm_shared + stages * a_stage;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / WN, wn = warp % WN;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int kt_n = (K + MM_K - 1) / MM_K;

  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0f;

  /* the first stages-1 slices; a group each, empty past K (the wait counts
   * groups) */
  for (int s = 0; s < stages - 1; s++) {
    if (s < kt_n)
      mm_fetch<BM, BN, NT>(A, B, as + s * a_stage, bs + s * b_stage, M, N, K, m0, n0, s * MM_K);
    mm_commit();
  }
  int rs = 0, ws = stages - 1; /* the stage read, the stage written */
  for (int kt = 0; kt < kt_n; kt++) {
    mm_wait(stages - 2); /* slice kt is in */
    __syncthreads();     /* ... for every thread, and stage ws is read out */
    if (kt + stages - 1 < kt_n)
      mm_fetch<BM, BN, NT>(A, B, as + ws * a_stage, bs + ws * b_stage, M, N, K, m0, n0,
                           (kt + stages - 1) * MM_K);
    mm_commit();
    const uint16_t *a_s = as + rs * a_stage + (wm * TM + lane % 16) * MM_LDA + (lane / 16) * 8;
    const uint16_t *b_s = bs + rs * b_stage + (lane % 16) * ldb + wn * TN + (lane / 16) * 8;
#pragma unroll
    for (int kk = 0; kk < MM_K; kk += 16) {
      uint32_t a[MI][4], b[NI / 2][4];
#pragma unroll
      for (int i = 0; i < MI; i++) mm_ldsm4<false>(a[i], mm_smem(a_s + i * 16 * MM_LDA + kk));
#pragma unroll
      for (int j = 0; j < NI / 2; j++) mm_ldsm4<true>(b[j], mm_smem(b_s + kk * ldb + j * 16));
#pragma unroll
      for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
          mm_mma<BF16>(acc[i][j], a[i], b[j / 2][2 * (j % 2)], b[j / 2][2 * (j % 2) + 1]);
    }
    rs = rs + 1 == stages ? 0 : rs + 1;
    ws = ws + 1 == stages ? 0 : ws + 1;
  }
  mm_wait(0);

  const bool c_vec = N % 2 == 0;
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NI; j++) {
      const int col = n0 + wn * TN + j * 8 + 2 * (lane % 4);
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int row = m0 + wm * TM + i * 16 + lane / 4 + 8 * h;
        if (row >= M) continue;
        float *c = C + (size_t)row * N + col;
        if (c_vec && col + 2 <= N) {
          *(float2 *)c = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
        } else {
          if (col < N) c[0] = acc[i][j][2 * h];
          if (col + 1 < N) c[1] = acc[i][j][2 * h + 1];
        }
      }
    }
}

#endif
