/* hip_attention_mma.h: hip_attention's variant=mma, the cuda_attention
 * build's flash attention on NVIDIA's tensor cores (sm_80 and later),
 * f16 or bf16 q, k, v and o, fp32 softmax and accumulation:
 *   O = softmax(rope(Q) rope(K)^T / sqrt(d) + causal mask) V, or without
 *   the mask (causal = 0).
 *
 * Two kernels an iteration:
 *   attn_mma_prep  q, k, v [bh][seq][d] -> [bh][seq][D] in the input
 *                  dtype, D = 64 or 128 (columns d..D-1 zero): RoPE on q
 *                  and k (the rotary table of hip_attention.hip), q times
 *                  log2(e)/sqrt(d) (scores in base 2); O(seq d), against
 *                  the O(seq^2 d) of the attention;
 *   attn_mma       a block of 4 warps owns 64 query rows of one (batch,
 *                  head), each warp 16 of them, and walks the key tiles
 *                  of 64 up to its diagonal (causal; longest rows first)
 *                  or to the end.
 *                  K and V tiles are double-buffered in shared memory by
 *                  cp.async (tile j+1 lands while j is multiplied; rows
 *                  past seq zero-filled), Q's fragments stay in registers.
 *                  Per tile: S = Q K^T by mma.sync m16n8k16 (K as stored,
 *                  ldmatrix non-transposed, is the col-major B), the mask,
 *                  the online softmax on the accumulators (a row's max and
 *                  sum over the 4 lanes that hold it), and O += P V with P
 *                  rounded to the input dtype straight from the S
 *                  accumulators into A fragments (no trip through shared
 *                  memory) and V by ldmatrix .trans.
 * The warp-level steps are hipb_mma.h's, which tests/cuda/mma_emu.h
 * emulates on the CPU (tests/cuda/attn_emu.cc runs these kernels there and
 * checks them with the harness's attention reference). */
#ifndef HIP_ATTENTION_MMA_H
#define HIP_ATTENTION_MMA_H

#include "hipb_mma.h"

#define AM_BQ 64      /* query rows a block */
#define AM_BK 64      /* keys a tile */
#define AM_PAD 8      /* shared rows padded by 8 halves: ldmatrix rows in distinct banks */
#define AM_THREADS 128 /* 4 warps of 16 query rows */
#define AM_D_MAX 128  /* a warp's 16 x D of O stays in registers */

/* Shared memory of attn_mma: Q, and K and V in two stages. */
constexpr int am_smem_bytes(int D) { return (AM_BQ + 4 * AM_BK) * (D + AM_PAD) * 2; }

/* Thread p of rows * D/2: elements 2i, 2i+1 of row p/(D/2) of q, k and
 * v into qr, kr, vr (D wide); with RoPE (1 interleaved: pairs (2i,
 * 2i+1); 2 halves: (i, i+d/2)) the pair i of q and k is rotated by
 * cs[pos][i] instead. Columns d..D-1 are zero; q is scaled by qscale. */
template <bool BF16, int D>
__global__ __launch_bounds__(AM_THREADS) void attn_mma_prep(
    const uint16_t *__restrict__ q, const uint16_t *__restrict__ k,
    const uint16_t *__restrict__ v, uint16_t *__restrict__ qr, uint16_t *__restrict__ kr,
    uint16_t *__restrict__ vr, int64_t rows, int seq, int d, int rope,
    const float2 *__restrict__ cs, float qscale) {
  const int64_t p = (int64_t)blockIdx.x * AM_THREADS + threadIdx.x;
  if (p >= rows * (D / 2)) return;
  const int64_t row = p / (D / 2);
  const int i = (int)(p % (D / 2)), half = d / 2;
  const uint16_t *src[3] = {q + row * d, k + row * d, v + row * d};
  uint16_t *dst[3] = {qr + row * D, kr + row * D, vr + row * D};
  for (int a = 0; a < 3; a++) {
    const float scale = a == 0 ? qscale : 1.0f;
    if (rope && a < 2) {
      /* the pair's two elements (both < d when i < d/2); else the thread
       * only zeroes its columns past d */
      if (i < half) {
        const int ea = rope == 2 ? i : 2 * i, eb = rope == 2 ? i + half : 2 * i + 1;
        const float xa = mm_to_f32<BF16>(src[a][ea]), xb = mm_to_f32<BF16>(src[a][eb]);
        const float2 t = cs[(row % seq) * half + i];
        const uint32_t y = mm_pack2<BF16>((xa * t.x - xb * t.y) * scale, (xa * t.y + xb * t.x) * scale);
        dst[a][ea] = (uint16_t)y;
        dst[a][eb] = (uint16_t)(y >> 16);
      }
      if (2 * i >= d) dst[a][2 * i] = 0;
      if (2 * i + 1 >= d) dst[a][2 * i + 1] = 0;
    } else {
      const float x0 = 2 * i < d ? mm_to_f32<BF16>(src[a][2 * i]) * scale : 0.0f;
      const float x1 = 2 * i + 1 < d ? mm_to_f32<BF16>(src[a][2 * i + 1]) * scale : 0.0f;
      const uint32_t y = mm_pack2<BF16>(x0, x1);
      dst[a][2 * i] = (uint16_t)y;
      dst[a][2 * i + 1] = (uint16_t)(y >> 16);
    }
  }
}

/* Rows row0.. of a [seq][D] matrix into dst (rows D + AM_PAD apart), 16
 * bytes a cp.async; rows past seq zero. */
template <int D, int ROWS>
__device__ inline void am_fetch(uint16_t *dst, const uint16_t *src, int row0, int seq) {
  mm_fetch_tile<ROWS, D, AM_THREADS>(dst, D + AM_PAD, src, seq, D, row0, 0);
}

template <bool BF16, int D>
__global__ __launch_bounds__(AM_THREADS) void attn_mma(const uint16_t *__restrict__ Q,
                                                     const uint16_t *__restrict__ K,
                                                     const uint16_t *__restrict__ V,
                                                     uint16_t *__restrict__ O, int heads,
                                                     int seq, int d, int causal) {
  constexpr int LD = D + AM_PAD, NB = AM_BK / 8, DB = D / 8, DK = D / 16;
  static_assert(D % 16 == 0 && D <= AM_D_MAX, "attn_mma: D a multiple of 16, at most 128");
  MM_SHARED(am_shared);
  uint16_t *const qs = am_shared, *const kv = am_shared + AM_BQ * LD; /* stage s: K, then V */
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
  const int nqt = (seq + AM_BQ - 1) / AM_BQ, nkt_all = (seq + AM_BK - 1) / AM_BK;
  const int qt = nqt - 1 - (int)blockIdx.x; /* longest rows first */
  const int q0 = qt * AM_BQ;
  const int diag = (q0 + AM_BQ - 1) / AM_BK + 1; /* the tiles up to the block's last row */
  const int nkt = causal && diag < nkt_all ? diag : nkt_all;
  const size_t bh = (size_t)blockIdx.z * heads + blockIdx.y;
  const uint16_t *qg = Q + bh * seq * D, *kg = K + bh * seq * D, *vg = V + bh * seq * D;

  am_fetch<D, AM_BQ>(qs, qg, q0, seq);
  am_fetch<D, AM_BK>(kv, kg, 0, seq);
  am_fetch<D, AM_BK>(kv + AM_BK * LD, vg, 0, seq);
  mm_commit();

  uint32_t qf[DK][4];
  float o[DB][4], m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
#pragma unroll
  for (int b = 0; b < DB; b++)
#pragma unroll
    for (int r = 0; r < 4; r++) o[b][r] = 0.0f;

  for (int j = 0; j < nkt; j++) {
    mm_wait(0);      /* tile j (and Q) is in */
    __syncthreads(); /* ... for every thread; the other stage is read out */
    if (j + 1 < nkt) {
      uint16_t *next = kv + ((j + 1) & 1) * 2 * AM_BK * LD;
      am_fetch<D, AM_BK>(next, kg, (j + 1) * AM_BK, seq);
      am_fetch<D, AM_BK>(next + AM_BK * LD, vg, (j + 1) * AM_BK, seq);
      mm_commit();
    }
    if (j == 0) {
#pragma unroll
      for (int kk = 0; kk < DK; kk++)
        mm_ldsm4<false>(qf[kk], mm_smem(qs + (warp * 16 + lane % 16) * LD + kk * 16 + (lane / 16) * 8));
    }
    const uint16_t *ks = kv + (j & 1) * 2 * AM_BK * LD, *vs = ks + AM_BK * LD;

    /* S = Q K^T: 16 rows x 64 keys a warp, NB blocks of 8 keys */
    float s[NB][4];
#pragma unroll
    for (int b = 0; b < NB; b++)
#pragma unroll
      for (int r = 0; r < 4; r++) s[b][r] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < DK; kk++)
#pragma unroll
      for (int p = 0; p < NB / 2; p++) {
        uint32_t b[4]; /* keys 16p..+7: b[0..1] (d kk*16 + 0..7, 8..15); 16p+8..: b[2..3] */
        mm_ldsm4<false>(b, mm_smem(ks + (p * 16 + (lane / 16) * 8 + lane % 8) * LD + kk * 16 +
                                   ((lane / 8) % 2) * 8));
        mm_mma<BF16>(s[2 * p], qf[kk], b[0], b[1]);
        mm_mma<BF16>(s[2 * p + 1], qf[kk], b[2], b[3]);
      }

    /* mask, online softmax: lane holds rows g (h 0) and g + 8 (h 1), keys
     * 8b + 2t, +1 of each block b */
    const int k0 = j * AM_BK;
    const bool edge = k0 + AM_BK > seq || (causal && k0 + AM_BK - 1 > q0);
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int row = q0 + warp * 16 + g + 8 * h;
      float mx = -INFINITY;
#pragma unroll
      for (int b = 0; b < NB; b++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
          const int key = k0 + 8 * b + 2 * t + e;
          if (edge && (key >= seq || (causal && key > row))) s[b][2 * h + e] = -INFINITY;
          mx = fmaxf(mx, s[b][2 * h + e]);
        }
      mx = fmaxf(mx, mm_shfl_xor(mx, 1));
      mx = fmaxf(mx, mm_shfl_xor(mx, 2));
      const float mn = fmaxf(m[h], mx);
      const float ms = mn == -INFINITY ? 0.0f : mn; /* a row with no key yet: no NaN */
      const float alpha = exp2f(m[h] - ms);
      float sum = 0.0f;
#pragma unroll
      for (int b = 0; b < NB; b++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
          s[b][2 * h + e] = exp2f(s[b][2 * h + e] - ms);
          sum += s[b][2 * h + e];
        }
      l[h] = l[h] * alpha + sum; /* this lane's part of the row sum */
#pragma unroll
      for (int b = 0; b < DB; b++) o[b][2 * h] *= alpha, o[b][2 * h + 1] *= alpha;
      m[h] = mn;
    }

    /* O += P V: P's 16 keys kt as A (the accumulators of blocks 2kt,
     * 2kt+1 are its fragments), V's rows by ldmatrix .trans */
#pragma unroll
    for (int kt = 0; kt < AM_BK / 16; kt++) {
      const uint32_t a[4] = {mm_pack2<BF16>(s[2 * kt][0], s[2 * kt][1]),
                             mm_pack2<BF16>(s[2 * kt][2], s[2 * kt][3]),
                             mm_pack2<BF16>(s[2 * kt + 1][0], s[2 * kt + 1][1]),
                             mm_pack2<BF16>(s[2 * kt + 1][2], s[2 * kt + 1][3])};
#pragma unroll
      for (int dp = 0; dp < D / 16; dp++) {
        uint32_t b[4];
        mm_ldsm4<true>(b, mm_smem(vs + (kt * 16 + lane % 16) * LD + dp * 16 + (lane / 16) * 8));
        mm_mma<BF16>(o[2 * dp], a, b[0], b[1]);
        mm_mma<BF16>(o[2 * dp + 1], a, b[2], b[3]);
      }
    }
  }

  /* the row sums over the row's 4 lanes; O / sum in the output dtype */
  uint16_t *og = O + bh * seq * d;
#pragma unroll
  for (int h = 0; h < 2; h++) {
    float sum = l[h];
    sum += mm_shfl_xor(sum, 1);
    sum += mm_shfl_xor(sum, 2);
    const int row = q0 + warp * 16 + g + 8 * h;
    if (row >= seq) continue;
    const float inv = 1.0f / sum;
#pragma unroll
    for (int b = 0; b < DB; b++) {
      const int col = 8 * b + 2 * t;
      if (col >= d) continue;
      const uint32_t y = mm_pack2<BF16>(o[b][2 * h] * inv, o[b][2 * h + 1] * inv);
      og[(size_t)row * d + col] = (uint16_t)y;
      if (col + 1 < d) og[(size_t)row * d + col + 1] = (uint16_t)(y >> 16);
    }
  }
}

#endif
