/* hip_gemm: C[m,n] = A[m,k] * B[k,n], row-major, fp32 output and fp32
 * accumulation, A and B in the case's dtype.
 *
 *   variant=tiled  LDS-tiled SIMT kernel with register blocking: a 256-thread
 *                  block computes a 128x128 tile of C, each thread an 8x8
 *                  block of it (two 4x4 quadrants 64 apart, so its LDS reads
 *                  are 16-byte and conflict-free); A (transposed) and B pass
 *                  through LDS 16 k at a time, the next slice prefetched into
 *                  registers while the current one is multiplied. f16 and
 *                  bf16 inputs are widened to fp32 on the way into LDS.
 *   variant=mfma   f16 or bf16 inputs on the matrix cores: each of the
 *                  block's 4 waves owns a quarter of the tile (64x64 of
 *                  128x128) as v_mfma_f32_32x32x8 (f16, bf16_1k)
 *                  accumulators; A and B (transposed) pass through two LDS
 *                  buffers (one where two do not fit) 32 k at a time as
 *                  16-bit values, rows padded by 16 bytes, the next slice
 *                  loaded while this one is multiplied; each lane reads its
 *                  operands 16 bytes (two MFMAs' worth) at a time.
 *                  Built only for gfx90a and gfx940/941/942
 *                  (HIPB_DEVICE_MFMA: CDNA, 64-lane waves); on any other
 *                  device (gfx908, RDNA) the case is SKIPPED with that reason.
 *   variant=mma    (the cuda_gemm build) f16 or bf16 inputs on NVIDIA's tensor
 *                  cores, sm_80 and later: WM x WN warps (the `warps`
 *                  tunable, 2x2 or 2x4) each own a part of the tile as
 *                  m16n8k16 mma.sync accumulators; A and B stream through a
 *                  cp.async pipeline of `stages` (2..4, a tunable) shared-
 *                  memory stages of 32 k, the fragments loaded by ldmatrix
 *                  (B transposed on the way). An older device SKIPs it.
 *   variant=wgmma  (the cuda_gemm build) f16 or bf16 on Hopper's warpgroup
 *                  tensor cores (hip_gemm_wgmma.h; sm_90a code, which
 *                  plugins/cuda builds for this plugin in place of sm_90):
 *                  BM/64 warpgroups each own 64 rows of the tile as one
 *                  wgmma m64nBNk16 accumulator, A and B from 128-byte-
 *                  swizzled shared memory filled by a cp.async pipeline of
 *                  `stages` stages of 64 k. Any device but an sm_90 one
 *                  running this build's sm_90a code SKIPs it.
 * Edges (m, n, k not multiples of the tiles) are zero-padded on the way in
 * and masked on the way out. Verified against the harness's gemm reference
 * (inputs as given, fp32 output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipb.h"

#if defined(HIPB_CUDA)
#include <cublas_v2.h>
#elif defined(HIPB_ROCBLAS) /* found by plugins/hip/CMakeLists.txt */
#include <rocblas/rocblas.h>
#endif

/* ---- variant=tiled ---------------------------------------------------- */

/* A block of TY x TX threads (TY = BM/TM, TX = BN/TN) computes a BM x BN
 * tile of C, each thread TM x TN of it as (TM/4) x (TN/4) quadrants of 4x4
 * that lie TY*4 rows and TX*4 columns apart (so its LDS reads are 16-byte
 * and conflict-free). A (transposed) and B pass through LDS TL_K k at a
 * time. The tile shapes are the `tile` tunable (tl_cfgs below). */
#define TL_K 16
#define TL_PAD 4 /* LDS rows of BM+4 floats: 16-byte aligned, banks spread */

/* LDS bytes of a tiled kernel: A^T and B, TL_K rows each. */
constexpr int tl_lds_bytes(int bm, int bn) { return TL_K * (bm + TL_PAD + bn + TL_PAD) * 4; }

/* 8 consecutive elements of A or B in flight from memory to LDS, kept in
 * their own type (8 or 4 registers) until they are widened into LDS. */
template <typename T> struct tl_regs {
  uint32_t w[8 * sizeof(T) / 4];
};

__device__ inline float tl_elem(const tl_regs<float> &r, int e) { return hipb_bits_f32(r.w[e]); }
template <typename T> __device__ inline float tl_elem(const tl_regs<T> &r, int e) {
  return hipb_to_f32(T{(uint16_t)(r.w[e / 2] >> (16 * (e % 2)))});
}

__device__ inline uint32_t tl_bits(float x) { return hipb_f32_bits(x); }
__device__ inline uint32_t tl_bits(hipb_f16 x) { return x.bits; }
__device__ inline uint32_t tl_bits(hipb_bf16 x) { return x.bits; }

/* Up to 8 consecutive elements from p, zeros past `valid`; 16-byte loads
 * when `vec` (aligned) and all 8 are in range. */
template <typename T> __device__ inline void tl_load8(const T *p, int valid, bool vec, tl_regs<T> &r) {
  constexpr int words = 8 * (int)sizeof(T) / 4;
  if (vec && valid >= 8) {
#pragma unroll
    for (int q = 0; q < words / 4; q++) {
      const uint4 u = ((const uint4 *)p)[q];
      r.w[4 * q] = u.x, r.w[4 * q + 1] = u.y, r.w[4 * q + 2] = u.z, r.w[4 * q + 3] = u.w;
    }
    return;
  }
#pragma unroll
  for (int q = 0; q < words; q++) r.w[q] = 0;
#pragma unroll
  for (int e = 0; e < 8; e++)
    if (e < valid) r.w[e * words / 8] |= tl_bits(p[e]) << (sizeof(T) == 2 ? 16 * (e % 2) : 0);
}

/* Loads of 8 elements a block makes per TL_K slice: A BM*TL_K/8, B
 * TL_K*BN/8; NT threads take them in turn, load q = tid + NT*g. */
template <int BM, int BN, int NT> struct tl_loads {
  static constexpr int na = BM * TL_K / 8, nb = TL_K * BN / 8;
  static constexpr int la = (na + NT - 1) / NT, lb = (nb + NT - 1) / NT;
};

/* This thread's loads of the next A and B tiles, into registers: A load q
 * is row q/(TL_K/8) of the tile, k (q%(TL_K/8))*8..+7; B load q is k row
 * q/(BN/8), n (q%(BN/8))*8..+7. */
template <typename T, int BM, int BN, int NT>
__device__ inline void tl_fetch(const T *A, const T *B, int M, int N, int K, int m0, int n0,
                                int k0, bool a_vec, bool b_vec,
                                tl_regs<T> (&ra)[tl_loads<BM, BN, NT>::la],
                                tl_regs<T> (&rb)[tl_loads<BM, BN, NT>::lb]) {
  using L = tl_loads<BM, BN, NT>;
  const int tid = threadIdx.x;
#pragma unroll
  for (int g = 0; g < L::la; g++) {
    const int q = tid + NT * g;
    if (L::na % NT != 0 && q >= L::na) break;
    const int arow = m0 + q / (TL_K / 8), acol = k0 + (q % (TL_K / 8)) * 8;
    const int avalid = arow < M ? (K - acol < 8 ? K - acol : 8) : 0;
    tl_load8(avalid > 0 ? A + (size_t)arow * K + acol : A, avalid, a_vec, ra[g]);
  }
#pragma unroll
  for (int g = 0; g < L::lb; g++) {
    const int q = tid + NT * g;
    if (L::nb % NT != 0 && q >= L::nb) break;
    const int brow = k0 + q / (BN / 8), bcol = n0 + (q % (BN / 8)) * 8;
    const int bvalid = brow < K ? (N - bcol < 8 ? N - bcol : 8) : 0;
    tl_load8(bvalid > 0 ? B + (size_t)brow * N + bcol : B, bvalid, b_vec, rb[g]);
  }
}

template <typename T, int BM, int BN, int TM, int TN>
__global__ __launch_bounds__((BM / TM) * (BN / TN)) void gemm_tiled(const T *__restrict__ A,
                                                                    const T *__restrict__ B,
                                                                    float *__restrict__ C, int M,
                                                                    int N, int K) {
  constexpr int TX = BN / TN, TY = BM / TM, NT = TX * TY;
  using L = tl_loads<BM, BN, NT>;
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BM % TM == 0 && BN % TN == 0 && BN % 8 == 0,
                "tiled: 4x4 quadrants, tiles divisible by the thread tiles");
  static_assert(NT % 64 == 0, "tiled: whole waves of 64 (and so of 32)");
  __shared__ float As[TL_K][BM + TL_PAD] __attribute__((aligned(16))); /* A transposed: As[k][m] */
  __shared__ float Bs[TL_K][BN + TL_PAD] __attribute__((aligned(16)));
  const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  constexpr int per16 = 16 / (int)sizeof(T); /* elements in 16 bytes */
  const bool a_vec = K % per16 == 0, b_vec = N % per16 == 0;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

  tl_regs<T> ra[L::la], rb[L::lb];
  tl_fetch<T, BM, BN, NT>(A, B, M, N, K, m0, n0, 0, a_vec, b_vec, ra, rb);
  for (int k0 = 0; k0 < K; k0 += TL_K) {
#pragma unroll
    for (int g = 0; g < L::la; g++) {
      const int q = tid + NT * g;
      if (L::na % NT != 0 && q >= L::na) break;
      const int ar = q / (TL_K / 8), ak = (q % (TL_K / 8)) * 8;
#pragma unroll
      for (int e = 0; e < 8; e++) As[ak + e][ar] = tl_elem(ra[g], e);
    }
#pragma unroll
    for (int g = 0; g < L::lb; g++) {
      const int q = tid + NT * g;
      if (L::nb % NT != 0 && q >= L::nb) break;
      const int bk = q / (BN / 8), bn = (q % (BN / 8)) * 8;
      const tl_regs<T> &r = rb[g];
      *(float4 *)&Bs[bk][bn] = make_float4(tl_elem(r, 0), tl_elem(r, 1), tl_elem(r, 2), tl_elem(r, 3));
      *(float4 *)&Bs[bk][bn + 4] = make_float4(tl_elem(r, 4), tl_elem(r, 5), tl_elem(r, 6), tl_elem(r, 7));
    }
    __syncthreads();
    if (k0 + TL_K < K) tl_fetch<T, BM, BN, NT>(A, B, M, N, K, m0, n0, k0 + TL_K, a_vec, b_vec, ra, rb);
    /* unrolled by 8, not 16: 150-170 VGPRs instead of 190-200 for the
     * 128x128 tile, so three waves per SIMD instead of two (to be
     * confirmed on hardware) */
#pragma unroll 8
    for (int kk = 0; kk < TL_K; kk++) {
      float a[TM], b[TN];
#pragma unroll
      for (int qi = 0; qi < TM / 4; qi++) {
        const float4 v = *(const float4 *)&As[kk][qi * TY * 4 + ty * 4];
        a[4 * qi] = v.x, a[4 * qi + 1] = v.y, a[4 * qi + 2] = v.z, a[4 * qi + 3] = v.w;
      }
#pragma unroll
      for (int qj = 0; qj < TN / 4; qj++) {
        const float4 v = *(const float4 *)&Bs[kk][qj * TX * 4 + tx * 4];
        b[4 * qj] = v.x, b[4 * qj + 1] = v.y, b[4 * qj + 2] = v.z, b[4 * qj + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

  const bool c_vec = N % 4 == 0;
#pragma unroll
  for (int i = 0; i < TM; i++) {
    const int row = m0 + (i / 4) * TY * 4 + ty * 4 + i % 4;
    if (row >= M) continue;
#pragma unroll
    for (int qj = 0; qj < TN / 4; qj++) {
      const int col = n0 + qj * TX * 4 + tx * 4;
      float *c = C + (size_t)row * N + col;
      if (c_vec && col + 4 <= N) {
        *(float4 *)c = make_float4(acc[i][qj * 4], acc[i][qj * 4 + 1], acc[i][qj * 4 + 2],
                                   acc[i][qj * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
          if (col + j < N) c[j] = acc[i][qj * 4 + j];
      }
    }
  }
}

/* ---- variant=mfma ----------------------------------------------------- */
#if !defined(HIPB_CUDA) /* AMD's matrix cores: not in the cuda_gemm build */

#define MF_K 32
#define MF_LDK (MF_K + 8) /* LDS row of 40 16-bit values: 80 bytes, so the 16-byte
                           * reads of a wave's 32 rows fall in different banks */
#define MF_WAVE 64        /* MFMA runs on CDNA's 64-lane waves only */

/* Four 16-bit values, in memory order (the low half of x first). */
struct alignas(8) mf_u2 {
  uint32_t x, y;
};
/* Eight: one 16-byte load, the k-groups of two MFMAs (lo, hi). */
struct alignas(16) mf_u4 {
  mf_u2 lo, hi;
};

/* One 32x32x8 MFMA: acc (32x32 fp32) += a (32x8) * b (8x32). Lane l holds
 * a[l%32][4*(l/32) .. +3] and b[4*(l/32) .. +3][l%32] (4 16-bit values in an
 * mf_u2), and acc[r] = C[8*(r/4) + 4*(l/32) + r%4][l%32]. Which k a lane's
 * 4 values are does not matter to the sum, as long as a and b agree. */
#if defined(__HIP_CPU_RT__)
struct mf_acc {
  float v[16];
  float &operator[](int i) { return v[i]; }
};
/* HIP-CPU: the same contract by shuffles, to test the kernel's indexing. */
template <bool BF16> inline void mf_mma(mf_acc &acc, mf_u2 a, mf_u2 b) {
  const int lane = threadIdx.x % MF_WAVE;
  float av[4], bv[4];
  const uint32_t aw[2] = {a.x, a.y}, bw[2] = {b.x, b.y};
  for (int e = 0; e < 4; e++) {
    const uint16_t ab = (uint16_t)(aw[e / 2] >> (16 * (e % 2)));
    const uint16_t bb = (uint16_t)(bw[e / 2] >> (16 * (e % 2)));
    av[e] = BF16 ? hipb_to_f32(hipb_bf16{ab}) : hipb_to_f32(hipb_f16{ab});
    bv[e] = BF16 ? hipb_to_f32(hipb_bf16{bb}) : hipb_to_f32(hipb_f16{bb});
  }
  for (int k = 0; k < 8; k++) {
    const float bkj = __shfl(bv[k % 4], lane % 32 + 32 * (k / 4), MF_WAVE);
    for (int r = 0; r < 16; r++) {
      const int i = 8 * (r / 4) + 4 * (lane / 32) + r % 4;
      acc[r] += __shfl(av[k % 4], i + 32 * (k / 4), MF_WAVE) * bkj;
    }
  }
}
#elif defined(HIPB_DEVICE_MFMA)
typedef float mf_acc __attribute__((ext_vector_type(16)));
typedef _Float16 mf_half4 __attribute__((ext_vector_type(4)));
typedef short mf_short4 __attribute__((ext_vector_type(4)));
template <bool BF16> __device__ inline void mf_mma(mf_acc &acc, mf_u2 a, mf_u2 b) {
  if constexpr (BF16)
    acc = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(__builtin_bit_cast(mf_short4, a),
                                                   __builtin_bit_cast(mf_short4, b), acc, 0, 0, 0);
  else
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(mf_half4, a),
                                               __builtin_bit_cast(mf_half4, b), acc, 0, 0, 0);
}
#endif

/* This thread's groups of 8 consecutive-k 16-bit values of the A and B
 * tiles at k0 (BM/64 of A, BN/64 of B). Group q = tid + 256 g: A row q/4,
 * k 8*(q%4), one 16-byte load where the 8 are in range and aligned (K a
 * multiple of 8); B column q%BN, k 8*(q/BN), 8 loads that are 2-byte but
 * coalesced (neighbouring threads, neighbouring columns). Out of range is 0
 * (+0 in f16 and bf16). */
template <int BM, int BN>
__device__ inline void mf_fetch(const uint16_t *A, const uint16_t *B, int M, int N, int K, int m0,
                                int n0, int k0, mf_u4 (&ra)[BM / 64], mf_u4 (&rb)[BN / 64]) {
#pragma unroll
  for (int g = 0; g < BM / 64; g++) {
    const int q = threadIdx.x + 256 * g;
    const int arow = m0 + q / 4, acol = k0 + 8 * (q % 4);
    if (arow < M && acol + 8 <= K && K % 8 == 0) {
      ra[g] = *(const mf_u4 *)(A + (size_t)arow * K + acol);
    } else {
      uint16_t v[8];
#pragma unroll
      for (int e = 0; e < 8; e++)
        v[e] = arow < M && acol + e < K ? A[(size_t)arow * K + acol + e] : (uint16_t)0;
      memcpy(&ra[g], v, sizeof v);
    }
  }
#pragma unroll
  for (int g = 0; g < BN / 64; g++) {
    const int q = threadIdx.x + 256 * g;
    const int bcol = n0 + q % BN, brow = k0 + 8 * (q / BN);
    uint16_t v[8];
#pragma unroll
    for (int e = 0; e < 8; e++)
      v[e] = bcol < N && brow + e < K ? B[(size_t)(brow + e) * N + bcol] : (uint16_t)0;
    memcpy(&rb[g], v, sizeof v);
  }
}

/* The fetched groups into LDS buffer As[m][k], Bs[n][k] (B transposed):
 * one 16-byte store each. */
template <int BM, int BN>
__device__ inline void mf_store(uint16_t (*As)[MF_LDK], uint16_t (*Bs)[MF_LDK],
                                const mf_u4 (&ra)[BM / 64], const mf_u4 (&rb)[BN / 64]) {
#pragma unroll
  for (int g = 0; g < BM / 64; g++) {
    const int q = threadIdx.x + 256 * g;
    *(mf_u4 *)&As[q / 4][8 * (q % 4)] = ra[g];
  }
#pragma unroll
  for (int g = 0; g < BN / 64; g++) {
    const int q = threadIdx.x + 256 * g;
    *(mf_u4 *)&Bs[q % BN][8 * (q / BN)] = rb[g];
  }
}

/* 4 waves (256 threads) in 2x2, each owning a (BM/2) x (BN/2) part of the
 * BM x BN tile as (BM/64) x (BN/64) 32x32 MFMA accumulators. The next
 * k-slice is loaded into registers before the products. With NB = 2 LDS
 * buffers it goes into the other one while the waves multiply, one barrier
 * a slice; with NB = 1 (where two do not fit the device's LDS) a second
 * barrier waits for the products first. A lane reads its operands 16 bytes
 * at a time: 8 k of its row for two MFMAs (k 8h..8h+3 and 8h+4..8h+7 of
 * each 16, h the lane's half-wave). */
template <bool BF16, int BM, int BN, int NB>
__global__ __launch_bounds__(256) void gemm_mfma(const uint16_t *__restrict__ A,
                                                 const uint16_t *__restrict__ B,
                                                 float *__restrict__ C, int M, int N, int K) {
  static_assert(BM % 64 == 0 && BN % 64 == 0, "mfma: 2x2 waves of 32x32 blocks");
  static_assert(NB == 1 || NB == 2, "mfma: one or two LDS buffers");
#if defined(HIPB_DEVICE_MFMA) || defined(__HIP_CPU_RT__)
  constexpr int FM = BM / 64, FN = BN / 64; /* MFMA blocks per wave */
  __shared__ uint16_t As[NB][BM][MF_LDK] __attribute__((aligned(16))); /* As[.][m][k] */
  __shared__ uint16_t Bs[NB][BN][MF_LDK] __attribute__((aligned(16))); /* B transposed: Bs[.][n][k] */
  const int tid = threadIdx.x, lane = tid % MF_WAVE, wave = tid / MF_WAVE;
  const int wm = wave / 2, wn = wave % 2; /* the wave's quarter */
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

  mf_acc acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; i++)
#pragma unroll
    for (int j = 0; j < FN; j++)
#pragma unroll
      for (int r = 0; r < 16; r++) acc[i][j][r] = 0.0f;

  mf_u4 ra[FM], rb[FN];
  mf_fetch<BM, BN>(A, B, M, N, K, m0, n0, 0, ra, rb);
  mf_store<BM, BN>(As[0], Bs[0], ra, rb);
  __syncthreads();
  int cur = 0;
  for (int k0 = 0; k0 < K; k0 += MF_K) {
    const bool more = k0 + MF_K < K;
    if (more) mf_fetch<BM, BN>(A, B, M, N, K, m0, n0, k0 + MF_K, ra, rb); /* in flight */
#pragma unroll
    for (int kk = 0; kk < MF_K; kk += 16) {
      const int kl = kk + 8 * (lane / 32);
      mf_u4 a[FM], b[FN];
#pragma unroll
      for (int i = 0; i < FM; i++) a[i] = *(const mf_u4 *)&As[cur][wm * (BM / 2) + i * 32 + lane % 32][kl];
#pragma unroll
      for (int j = 0; j < FN; j++) b[j] = *(const mf_u4 *)&Bs[cur][wn * (BN / 2) + j * 32 + lane % 32][kl];
#pragma unroll
      for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++) {
          mf_mma<BF16>(acc[i][j], a[i].lo, b[j].lo);
          mf_mma<BF16>(acc[i][j], a[i].hi, b[j].hi);
        }
    }
    if (NB == 1) __syncthreads(); /* every wave done with the one buffer */
    /* with two, the other buffer was last read before the previous barrier */
    if (more) mf_store<BM, BN>(As[(cur + 1) % NB], Bs[(cur + 1) % NB], ra, rb);
    __syncthreads();
    cur = (cur + 1) % NB;
  }

#pragma unroll
  for (int i = 0; i < FM; i++)
#pragma unroll
    for (int j = 0; j < FN; j++) {
      const int col = n0 + wn * (BN / 2) + j * 32 + lane % 32;
#pragma unroll
      for (int r = 0; r < 16; r++) {
        const int row = m0 + wm * (BM / 2) + i * 32 + 8 * (r / 4) + 4 * (lane / 32) + r % 4;
        if (row < M && col < N) C[(size_t)row * N + col] = acc[i][j][r];
      }
    }
#else
  (void)A, (void)B, (void)C, (void)M, (void)N, (void)K; /* no matrix cores: never launched */
#endif
}

#endif /* !HIPB_CUDA */

/* ---- variant=mma: hip_gemm_mma.h (the cuda_gemm build) --------------- */
#if defined(HIPB_CUDA)
#include "hip_gemm_mma.h"
#include "hip_gemm_wgmma.h"

/* 1 when the code the device runs is sm_90a (has wgmma.mma_async). */
__global__ void gemm_wgmma_built(int *out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (threadIdx.x == 0) out[0] = 1;
#else
  if (threadIdx.x == 0) out[0] = 0;
#endif
}
#endif

/* ---- variant=rocblas / variant=cublas: the vendor anchors ------------------ */

#if defined(HIPB_CUDA)
#define GEMM_VENDOR "cublas"
#elif defined(HIPB_ROCBLAS)
#define GEMM_VENDOR "rocblas"
#else
#define GEMM_VENDOR "rocblas" /* listed, and SKIPPED with the reason */
#ifndef HIPB_ROCBLAS_MISSING
#define HIPB_ROCBLAS_MISSING "rocblas/rocblas.h and librocblas.so were not looked for"
#endif
#endif

struct gemm;
typedef int (*gemm_launch)(const struct bench_host *h, struct gemm *s);

struct gemm {
  struct hipb_ctx *ctx;
  int64_t m, n, k;
  enum bench_dtype dtype;
  gemm_launch launch; /* one iteration: the variant's kernel for this tile and dtype */
  int bm, bn;         /* its tile of C (grid) */
  int stages, smem_set; /* variant=mma, wgmma: pipeline depth; the kernel's shared memory asked for */
#if defined(HIPB_CUDA)
  cublasHandle_t cublas; /* variant=cublas */
#elif defined(HIPB_ROCBLAS)
  rocblas_handle rocblas; /* variant=rocblas */
#endif
  struct hipb_buf a, b, c;
};

#if defined(HIPB_CUDA)
#define GEMM_CUBLAS(h, call)                                                           \
  do {                                                                                 \
    cublasStatus_t st_ = (call);                                                       \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                  \
      return (h)->fail((h), "%s: %s (%s) at cuda_gemm (hip_gemm.hip:%d)", #call,                  \
                       cublasGetStatusName(st_), cublasGetStatusString(st_), __LINE__); \
  } while (0)

/* Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B as the
 * left operand (n x k, leading dimension n) and A as the right (k x m). */
static int launch_vendor(const struct bench_host *h, struct gemm *s) {
  const cudaDataType_t t = s->dtype == BENCH_F16    ? CUDA_R_16F
                           : s->dtype == BENCH_BF16 ? CUDA_R_16BF
                                                    : CUDA_R_32F;
  const float alpha = 1.0f, beta = 0.0f;
  GEMM_CUBLAS(h, cublasGemmEx(s->cublas, CUBLAS_OP_N, CUBLAS_OP_N, (int)s->n, (int)s->m,
                              (int)s->k, &alpha, s->b.dev, t, (int)s->n, s->a.dev, t, (int)s->k,
                              &beta, s->c.dev, CUDA_R_32F, (int)s->n, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
  return BENCH_OK;
}

static int vendor_create(const struct bench_host *h, struct gemm *s) {
  int v = 0;
  GEMM_CUBLAS(h, cublasCreate(&s->cublas));
  (void)cublasGetVersion(s->cublas, &v);
  char buf[96];
  snprintf(buf, sizeof buf, "cuBLAS %d.%d.%d cublasGemmEx, fp32 compute", v / 10000, v / 100 % 100,
           v % 100);
  h->set_info(h, "kernel", buf);
  return BENCH_OK;
}
static int vendor_stream(const struct bench_host *h, struct gemm *s) {
  GEMM_CUBLAS(h, cublasSetStream(s->cublas, s->ctx->stream));
  return BENCH_OK;
}
static void vendor_destroy(struct gemm *s) {
  if (s->cublas) (void)cublasDestroy(s->cublas);
}
#elif defined(HIPB_ROCBLAS)
#define GEMM_ROCBLAS(h, call)                                                             \
  do {                                                                                    \
    rocblas_status st_ = (call);                                                          \
    if (st_ != rocblas_status_success)                                                    \
      return (h)->fail((h), "%s: %s (%d) at hip_gemm (hip_gemm.hip:%d)", #call,           \
                       rocblas_status_to_string(st_), (int)st_, __LINE__);                \
  } while (0)

/* As for cuBLAS: row-major C = A B is column-major C^T = B^T A^T, so
 * rocBLAS gets B as the left operand (n x k, ld n) and A as the right
 * (k x m, ld k); C (fp32) is both C and D (beta 0: never read). f16 and
 * bf16 inputs with fp32 output and fp32 compute are rocblas_gemm_ex's
 * "HPA" combinations. */
static int launch_vendor(const struct bench_host *h, struct gemm *s) {
  const rocblas_datatype t = s->dtype == BENCH_F16    ? rocblas_datatype_f16_r
                             : s->dtype == BENCH_BF16 ? rocblas_datatype_bf16_r
                                                      : rocblas_datatype_f32_r;
  const float alpha = 1.0f, beta = 0.0f;
  GEMM_ROCBLAS(h, rocblas_gemm_ex(s->rocblas, rocblas_operation_none, rocblas_operation_none,
                                  (rocblas_int)s->n, (rocblas_int)s->m, (rocblas_int)s->k, &alpha,
                                  s->b.dev, t, (rocblas_int)s->n, s->a.dev, t, (rocblas_int)s->k,
                                  &beta, s->c.dev, rocblas_datatype_f32_r, (rocblas_int)s->n,
                                  s->c.dev, rocblas_datatype_f32_r, (rocblas_int)s->n,
                                  rocblas_datatype_f32_r, rocblas_gemm_algo_standard, 0, 0));
  return BENCH_OK;
}

static int vendor_create(const struct bench_host *h, struct gemm *s) {
  GEMM_ROCBLAS(h, rocblas_create_handle(&s->rocblas));
  char ver[64] = "?", buf[128];
  size_t len = 0;
  if (rocblas_get_version_string_size(&len) == rocblas_status_success && len <= sizeof ver)
    (void)rocblas_get_version_string(ver, sizeof ver);
  snprintf(buf, sizeof buf, "rocBLAS %s rocblas_gemm_ex, fp32 compute", ver);
  h->set_info(h, "kernel", buf);
  return BENCH_OK;
}
static int vendor_stream(const struct bench_host *h, struct gemm *s) {
  GEMM_ROCBLAS(h, rocblas_set_stream(s->rocblas, s->ctx->stream));
  return BENCH_OK;
}
static void vendor_destroy(struct gemm *s) {
  if (s->rocblas) (void)rocblas_destroy_handle(s->rocblas);
}
#endif

/* ---- tiles: the `tile` tunable ------------------------------------------- */

template <typename T, int BM, int BN, int TM, int TN>
static int launch_tiled(const struct bench_host *h, struct gemm *s) {
  const dim3 grid((unsigned)((s->n + BN - 1) / BN), (unsigned)((s->m + BM - 1) / BM));
  HIPB_LAUNCH(h, (gemm_tiled<T, BM, BN, TM, TN>), grid, dim3((BM / TM) * (BN / TN)), 0,
              s->ctx->stream, (const T *)s->a.dev, (const T *)s->b.dev, (float *)s->c.dev,
              (int)s->m, (int)s->n, (int)s->k);
  return BENCH_OK;
}

#if !defined(HIPB_CUDA)
template <bool BF16, int BM, int BN, int NB>
static int launch_mfma(const struct bench_host *h, struct gemm *s) {
  const dim3 grid((unsigned)((s->n + BN - 1) / BN), (unsigned)((s->m + BM - 1) / BM));
  HIPB_LAUNCH(h, (gemm_mfma<BF16, BM, BN, NB>), grid, dim3(256), 0, s->ctx->stream,
              (const uint16_t *)s->a.dev, (const uint16_t *)s->b.dev, (float *)s->c.dev, (int)s->m,
              (int)s->n, (int)s->k);
  return BENCH_OK;
}
#define GEMM_MFMA(BM, BN)                                                                     \
  {{launch_mfma<false, BM, BN, 1>, launch_mfma<true, BM, BN, 1>},                              \
   {launch_mfma<false, BM, BN, 2>, launch_mfma<true, BM, BN, 2>}}
#else
#define GEMM_MFMA(BM, BN) {{NULL, NULL}, {NULL, NULL}}
#endif

#if defined(HIPB_CUDA)
/* Dynamic shared memory past 48 KiB is the kernel's to ask for, once. */
template <bool BF16, int BM, int BN, int WM, int WN>
static int launch_mma(const struct bench_host *h, struct gemm *s) {
  const dim3 grid((unsigned)((s->n + BN - 1) / BN), (unsigned)((s->m + BM - 1) / BM));
  const int bytes = mm_smem_bytes(BM, BN, s->stages);
  if (!s->smem_set) {
    HIPB_CHECK(h, cudaFuncSetAttribute(gemm_mma<BF16, BM, BN, WM, WN>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    s->smem_set = 1;
  }
  HIPB_LAUNCH(h, (gemm_mma<BF16, BM, BN, WM, WN>), grid, dim3(WM * WN * 32), (size_t)bytes,
              s->ctx->stream, (const uint16_t *)s->a.dev, (const uint16_t *)s->b.dev,
              (float *)s->c.dev, (int)s->m, (int)s->n, (int)s->k, s->stages);
  return BENCH_OK;
}
/* A tile and warp layout gemm_mma takes: warp tiles of whole 16x16
 * blocks, at most 128 accumulators a thread (else NULL: none built). */
template <bool BF16, int BM, int BN, int WM, int WN> constexpr gemm_launch mma_or_null() {
  constexpr int tm = BM / WM, tn = BN / WN;
  if constexpr (tm % 16 == 0 && tn % 16 == 0 && (tm / 16) * (tn / 8) * 4 <= 128)
    return launch_mma<BF16, BM, BN, WM, WN>;
  else
    return nullptr;
}
#define GEMM_MMA(BM, BN)                                                                   \
  {{mma_or_null<false, BM, BN, 2, 2>(), mma_or_null<true, BM, BN, 2, 2>()},                 \
   {mma_or_null<false, BM, BN, 2, 4>(), mma_or_null<true, BM, BN, 2, 4>()}}

template <bool BF16, int BM, int BN>
static int launch_wgmma(const struct bench_host *h, struct gemm *s) {
  const dim3 grid((unsigned)((s->n + BN - 1) / BN), (unsigned)((s->m + BM - 1) / BM));
  const int bytes = wg_smem_bytes(BM, BN, s->stages);
  if (!s->smem_set) {
    HIPB_CHECK(h, cudaFuncSetAttribute(gemm_wgmma<BF16, BM, BN>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    s->smem_set = 1;
  }
  HIPB_LAUNCH(h, (gemm_wgmma<BF16, BM, BN>), grid, dim3(BM / 64 * 128), (size_t)bytes,
              s->ctx->stream, (const uint16_t *)s->a.dev, (const uint16_t *)s->b.dev,
              (float *)s->c.dev, (int)s->m, (int)s->n, (int)s->k, s->stages);
  return BENCH_OK;
}
/* A tile gemm_wgmma takes: 1 to 4 warpgroups of 64 rows, n 64, 128 or 256
 * (else NULL: none built). */
template <bool BF16, int BM, int BN> constexpr gemm_launch wgmma_or_null() {
  if constexpr (BM % 64 == 0 && BM <= 256 && (BN == 64 || BN == 128 || BN == 256))
    return launch_wgmma<BF16, BM, BN>;
  else
    return nullptr;
}
#define GEMM_WGMMA(BM, BN) {wgmma_or_null<false, BM, BN>(), wgmma_or_null<true, BM, BN>()}
/* variant=mma's warp layouts (the `warps` tunable), in the order of
 * gemm_tile.mma */
static const struct {
  const char *name;
  int wm, wn;
} mma_warps[] = {{"2x2", 2, 2}, {"2x4", 2, 4}};
#else
#define GEMM_MMA(BM, BN) {{NULL, NULL}, {NULL, NULL}}
#define GEMM_WGMMA(BM, BN) {NULL, NULL}
#endif

/* One value of `tile`: the block's tile of C, BMxBN. variant=tiled runs it
 * with (BM/TM) x (BN/TN) threads of TM x TN each, TL_K deep; variant=mfma
 * (BM, BN >= 64) with 4 waves of (BM/2) x (BN/2), MF_K deep. */
struct gemm_tile {
  const char *name;
  int bm, bn, tm, tn;
  gemm_launch tiled[3]; /* f32, f16, bf16 */
  gemm_launch mfma[2][2]; /* 1, 2 LDS buffers; f16, bf16; NULL: no mfma kernel for this tile */
  gemm_launch mma[2][2]; /* warps 2x2, 2x4; f16, bf16; NULL: none for this tile */
  gemm_launch wgmma[2];  /* f16, bf16; NULL: none for this tile */
};
#define GEMM_TILE(BM, BN, TM, TN)                                                             \
  {#BM "x" #BN, BM, BN, TM, TN,                                                              \
   {launch_tiled<float, BM, BN, TM, TN>, launch_tiled<hipb_f16, BM, BN, TM, TN>,               \
    launch_tiled<hipb_bf16, BM, BN, TM, TN>},                                                  \
   GEMM_MFMA(BM, BN), GEMM_MMA(BM, BN), GEMM_WGMMA(BM, BN)}

/* In the order of preference (the default, today's 128x128, first): the
 * block counts of 64 and 512 threads are whole waves of 32 and of 64. */
static const struct gemm_tile tiles[] = {
    GEMM_TILE(128, 128, 8, 8), /* 256 threads */
    GEMM_TILE(64, 64, 4, 4),   /* 256 */
    GEMM_TILE(128, 64, 8, 4),  /* 256 */
    GEMM_TILE(64, 128, 4, 8),  /* 256 */
    GEMM_TILE(256, 128, 8, 8), /* 512 */
    GEMM_TILE(128, 256, 8, 8), /* 512 */
    {"32x32", 32, 32, 4, 4,    /* 64: small problems; no mfma kernel */
     {launch_tiled<float, 32, 32, 4, 4>, launch_tiled<hipb_f16, 32, 32, 4, 4>,
      launch_tiled<hipb_bf16, 32, 32, 4, 4>},
     {{NULL, NULL}, {NULL, NULL}}, GEMM_MMA(32, 32), GEMM_WGMMA(32, 32)},
};
#define GEMM_TILES "128x128,64x64,128x64,64x128,256x128,128x256,32x32"

static const struct bench_param params[] = {
#if defined(HIPB_CUDA)
    /* as hip_gemm's below: cublas is the anchor, not a candidate */
    {.name = "variant", .type = BENCH_PARAM_STRING,
     .description = "tiled: shared-memory-tiled SIMT fp32 math; mma: tensor cores (mma.sync "
                    "m16n8k16, f16/bf16 inputs, sm_80 and later); wgmma: warpgroup tensor cores "
                    "(wgmma.mma_async, f16/bf16, sm_90a code on H100/H200); cublas: cuBLAS "
                    "cublasGemmEx, fp32 compute (the vendor anchor); auto: tuned among tiled, mma "
                    "and wgmma",
     .choices = "tiled,mma,wgmma,cublas", .min = 0, .max = 0, .zip = 2,
     .defaults = {"tiled,tiled,mma,mma,wgmma,wgmma,cublas,cublas",
                  "tiled,mma,mma,wgmma,wgmma,cublas,cublas,cublas",
                  "tiled,mma,mma,wgmma,wgmma,cublas,cublas,cublas",
                  "tiled,tiled,mma,mma,wgmma,wgmma,cublas,cublas"},
     .tunable = 1, .candidates = "tiled,mma,wgmma"},
    BENCH_PARAM_DTYPE_ZIP(2, "element type of A and B (C is fp32, accumulation fp32)",
                          "f32,f16,bf16", "f32,f16,f16,bf16,f16,bf16,f16,bf16",
                          "f32,f16,bf16,f16,bf16,f32,f16,bf16", "f32,f16,bf16,f16,bf16,f32,f16,bf16",
                          "f32,bf16,f16,bf16,f16,bf16,f16,bf16"),
#else
    /* A tunable that is also a sweep axis (zipped with dtype), as
     * cpu_gemm's: the tiers' lists and a preset or --param that names
     * variants run them as cases; `variant=auto` takes the tuned pick among
     * the plugin's own kernels (tiled, the default, first; mfma is refused
     * where it cannot run). rocblas is not a candidate: it is the anchor
     * the kernels are measured against. */
    {.name = "variant", .type = BENCH_PARAM_STRING,
     .description = "tiled: LDS-tiled SIMT fp32 math; mfma: matrix cores (f16/bf16 inputs); "
                    "rocblas: rocBLAS rocblas_gemm_ex, fp32 compute (the vendor anchor; SKIPPED "
                    "when built without rocBLAS); auto: tuned among tiled and mfma",
     .choices = "tiled,mfma,rocblas", .min = 0, .max = 0, .zip = 2,
     .defaults = {"tiled,tiled,mfma,mfma,rocblas", "tiled,mfma,mfma,rocblas,rocblas",
                  "tiled,mfma,mfma,rocblas,rocblas", "tiled,tiled,mfma,mfma,rocblas,rocblas"},
     .tunable = 1, .candidates = "tiled,mfma"},
    BENCH_PARAM_DTYPE_ZIP(2, "element type of A and B (C is fp32, accumulation fp32)",
                          "f32,f16,bf16", "f32,f16,f16,bf16,f16", "f32,f16,bf16,f32,f16",
                          "f32,f16,bf16,f32,f16", "f32,bf16,f16,bf16,f32,bf16"),
#endif
    BENCH_PARAM_GEMM_M("128,77", "4096", "8192", "1,7,127,33,64,129,256"),
    BENCH_PARAM_GEMM_N("128,65", "4096", "8192", "1,13,61,257,65,130,256"),
    BENCH_PARAM_GEMM_K("128,33", "4096", "8192", "1,5,257,1,63,40,256"),
    HIPB_PARAM_FLUSH_L2,
    /* ABI 1.4: a tunable (bench tune); auto takes the cached winner */
    {.name = "tile", .type = BENCH_PARAM_STRING,
#if defined(HIPB_CUDA)
     .description = "block tile of C, BMxBN (a tunable: auto takes bench tune's winner); tiled: "
                    "BK 16, 8x8/8x4/4x4 per thread; mma: BK 32, warps x 16x8 blocks; cublas "
                    "picks its own",
#else
     .description = "block tile of C, BMxBN (a tunable: auto takes bench tune's winner); tiled: "
                    "BK 16, 8x8/8x4/4x4 per thread; mfma: BK 32, 4 waves of 32x32 blocks; "
                    "rocblas picks its own",
#endif
     .choices = GEMM_TILES, .min = 0, .max = 0, .zip = 0,
     .defaults = {"128x128", "128x128", "128x128", "128x128"}, .tunable = 1},
#if defined(HIPB_CUDA)
    {.name = "warps", .type = BENCH_PARAM_STRING,
     .description = "mma: the block's warps, rows x columns of warp tiles (a tunable)",
     .choices = "2x2,2x4", .min = 0, .max = 0, .zip = 0,
     .defaults = {"2x2", "2x2", "2x2", "2x2"}, .tunable = 1},
    {.name = "stages", .type = BENCH_PARAM_INT,
     .description = "mma and wgmma: shared-memory stages of the cp.async pipeline, 32 k (mma) or "
                    "64 k (wgmma) each (a tunable)",
     .choices = NULL, .min = 2, .max = MM_MAX_STAGES, .zip = 0,
     .defaults = {"3", "3", "3", "3"}, .tunable = 1, .candidates = "3,2,4"},
#endif
    {.name = NULL},
};

#if defined(HIPB_CUDA)
/* variant=mma's kernel for tile t, the `warps` and `stages` parameters and
 * the dtype, or a skip saying why this device or tile cannot run it. */
static int pick_mma(const struct bench_host *h, struct gemm *s, const struct gemm_tile *t) {
  const hipDeviceProp_t *p = &s->ctx->prop;
  if (s->dtype == BENCH_F32)
    return h->skip(h, "variant mma takes f16 or bf16 inputs (dtype f32 runs as variant tiled)");
  if (p->major < 8)
    return h->skip(h, "variant mma needs mma.sync m16n8k16 and cp.async (sm_80 and later); "
                      "device %s is %s", p->name, s->ctx->arch);
  const char *wname = h->param_str(h, "warps");
  size_t w = 0;
  while (w < sizeof mma_warps / sizeof mma_warps[0] && strcmp(mma_warps[w].name, wname) != 0) w++;
  if (w == sizeof mma_warps / sizeof mma_warps[0])
    return h->fail(h, "warps %s is not one of 2x2,2x4", wname);
  const int wm = mma_warps[w].wm, wn = mma_warps[w].wn;
  if (!t->mma[w][0])
    return h->skip(h, "tile %s on %s warps: warp tiles of %dx%d, not whole 16x16 blocks of at "
                      "most 128 accumulators a thread", t->name, wname, t->bm / wm, t->bn / wn);
  s->stages = (int)h->param_int(h, "stages");
  const int bytes = mm_smem_bytes(t->bm, t->bn, s->stages);
  if ((size_t)bytes > (size_t)p->sharedMemPerBlockOptin)
    return h->skip(h, "tile %s, %d stages take %d bytes of shared memory; device %s allows %zu "
                      "a block", t->name, s->stages, bytes, p->name,
                   (size_t)p->sharedMemPerBlockOptin);
  s->launch = t->mma[w][s->dtype == BENCH_BF16 ? 1 : 0];
  char buf[160];
  snprintf(buf, sizeof buf, "mma.sync m16n8k16 %s, %dx%dx%d tiles, %s warps of %dx%d, %d stages",
           s->dtype == BENCH_BF16 ? "bf16" : "f16", t->bm, t->bn, MM_K, wname, t->bm / wm,
           t->bn / wn, s->stages);
  h->set_info(h, "kernel", buf);
  return BENCH_OK;
}

/* variant=wgmma's kernel for tile t, the `stages` parameter and the dtype,
 * or a skip saying why this device, build or tile cannot run it. */
static int pick_wgmma(const struct bench_host *h, struct gemm *s, const struct gemm_tile *t) {
  const hipDeviceProp_t *p = &s->ctx->prop;
  if (s->dtype == BENCH_F32)
    return h->skip(h, "variant wgmma takes f16 or bf16 inputs (dtype f32 runs as variant tiled)");
  if (p->major != 9)
    return h->skip(h, "variant wgmma needs wgmma.mma_async, sm_90a code on an sm_90 GPU (H100, "
                      "H200); device %s is %s", p->name, s->ctx->arch);
  int *flag = NULL, built = 0;
  HIPB_CHECK(h, hipMalloc((void **)&flag, sizeof *flag));
  hipLaunchKernelGGL(gemm_wgmma_built, dim3(1), dim3(32), 0, s->ctx->stream, flag);
  hipError_t err = hipGetLastError();
  if (err == hipSuccess) err = hipMemcpy(&built, flag, sizeof built, hipMemcpyDeviceToHost);
  (void)hipFree(flag);
  if (err != hipSuccess) return hipb_error(h, err, "the sm_90a probe", __FILE__, __LINE__);
  if (!built)
    return h->skip(h, "variant wgmma: this build has no sm_90a code for device %s (%s); "
                      "plugins/cuda builds it with CUDA 12 and newer for architecture 90",
                   p->name, s->ctx->arch);
  if (!t->wgmma[0])
    return h->skip(h, "tile %s: wgmma takes 64 to 256 rows (warpgroups of 64) and 64, 128 or 256 "
                      "columns", t->name);
  s->stages = (int)h->param_int(h, "stages");
  const int bytes = wg_smem_bytes(t->bm, t->bn, s->stages);
  if ((size_t)bytes > (size_t)p->sharedMemPerBlockOptin)
    return h->skip(h, "tile %s, %d stages take %d bytes of shared memory; device %s allows %zu "
                      "a block", t->name, s->stages, bytes, p->name,
                   (size_t)p->sharedMemPerBlockOptin);
  s->launch = t->wgmma[s->dtype == BENCH_BF16 ? 1 : 0];
  char buf[160];
  snprintf(buf, sizeof buf, "wgmma m64n%dk16 %s, %dx%dx%d tiles, %d warpgroups, %d stages "
           "(cp.async, 128-byte swizzle)", t->bn, s->dtype == BENCH_BF16 ? "bf16" : "f16",
           t->bm, t->bn, WG_K, t->bm / 64, s->stages);
  h->set_info(h, "kernel", buf);
  return BENCH_OK;
}
#endif

/* The variant's kernel for this tile and dtype, or a skip saying why this
 * device cannot run it. */
static int pick_kernel(const struct bench_host *h, struct gemm *s, const char *variant,
                       const char *tile_name) {
  const struct gemm_tile *t = NULL;
  for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++)
    if (strcmp(tiles[i].name, tile_name) == 0) t = &tiles[i];
  if (!t) return h->fail(h, "tile %s is not one of %s", tile_name, GEMM_TILES);
  s->bm = t->bm;
  s->bn = t->bn;
#if defined(HIPB_CUDA)
  /* a tunable of other variants' runs once here, at its default */
  const int pipelined = strcmp(variant, "mma") == 0 || strcmp(variant, "wgmma") == 0;
  if (strcmp(variant, "mma") != 0 && strcmp(h->param_str(h, "warps"), "2x2") != 0)
    return h->skip(h, "warps is variant mma's, not %s's (warps 2x2 runs it)", variant);
  if (!pipelined && h->param_int(h, "stages") != 3)
    return h->skip(h, "stages is variants mma's and wgmma's, not %s's (stages 3 runs it)", variant);
#endif
  const hipDeviceProp_t *p = &s->ctx->prop;
  char buf[160];
  if (strcmp(variant, "tiled") == 0) {
    const int threads = (t->bm / t->tm) * (t->bn / t->tn);
    const int lds = tl_lds_bytes(t->bm, t->bn);
    if (threads > p->maxThreadsPerBlock)
      return h->skip(h, "tile %s takes %d threads a block; device %s allows %d", t->name, threads,
                     p->name, p->maxThreadsPerBlock);
    if (threads % s->ctx->wave != 0)
      return h->skip(h, "tile %s takes %d threads, not whole %d-lane waves of device %s", t->name,
                     threads, s->ctx->wave, p->name);
    if ((size_t)lds > (size_t)p->sharedMemPerBlock)
      return h->skip(h, "tile %s takes %d bytes of LDS; device %s has %zu a block", t->name, lds,
                     p->name, (size_t)p->sharedMemPerBlock);
    s->launch = t->tiled[s->dtype == BENCH_F16 ? 1 : s->dtype == BENCH_BF16 ? 2 : 0];
    snprintf(buf, sizeof buf, "tiled fp32 SIMT, %dx%dx%d tiles, %dx%d per thread, %d threads",
             t->bm, t->bn, TL_K, t->tm, t->tn, threads);
    h->set_info(h, "kernel", buf);
    return BENCH_OK;
  }
  if (strcmp(variant, "mfma") == 0) {
    if (s->dtype == BENCH_F32)
      return h->skip(h, "variant mfma takes f16 or bf16 inputs (dtype f32 runs as variant tiled)");
    if (!s->ctx->mfma)
      return h->skip(h, "variant mfma needs CDNA matrix cores (gfx90a, gfx940, gfx941, gfx942); "
                        "device %s is %s", p->name, s->ctx->arch);
    if (!t->mfma[0][0])
      return h->skip(h, "tile %s is smaller than variant mfma's 2x2 waves of 32x32 blocks "
                        "(64x64 and up)", t->name);
#if !defined(HIPB_CUDA)
    /* two buffers where they fit the device's LDS, else one */
    const size_t lds1 = (size_t)(t->bm + t->bn) * MF_LDK * 2, lds_max = p->sharedMemPerBlock;
    const int nb = 2 * lds1 <= lds_max ? 2 : 1;
    if (lds1 > lds_max)
      return h->skip(h, "tile %s takes %zu bytes of LDS; device %s has %zu a block", t->name, lds1,
                     p->name, lds_max);
    snprintf(buf, sizeof buf, "mfma 32x32x8 %s, %dx%dx%d tiles, 4 waves, %d LDS buffer%s",
             s->dtype == BENCH_BF16 ? "bf16_1k" : "f16", t->bm, t->bn, MF_K, nb, nb > 1 ? "s" : "");
    h->set_info(h, "kernel", buf);
    s->launch = t->mfma[nb - 1][s->dtype == BENCH_BF16 ? 1 : 0];
#endif
    return BENCH_OK;
  }
#if defined(HIPB_CUDA)
  if (strcmp(variant, "mma") == 0) return pick_mma(h, s, t);
  if (strcmp(variant, "wgmma") == 0) return pick_wgmma(h, s, t);
#endif
  /* the vendor library: its own kernels, so one tile value stands for it */
  if (t != &tiles[0])
    return h->skip(h, "variant %s picks its own kernels: tile %s applies to the plugin's own "
                      "variants (tile %s runs it)", variant, t->name, tiles[0].name);
#if defined(HIPB_CUDA) || defined(HIPB_ROCBLAS)
  s->launch = launch_vendor;
  return vendor_create(h, s);
#else
  return h->skip(h, "hip_gemm was built without rocBLAS (%s)", HIPB_ROCBLAS_MISSING);
#endif
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct gemm *s = (struct gemm *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  s->m = h->param_int(h, "m");
  s->n = h->param_int(h, "n");
  s->k = h->param_int(h, "k");
  HIPB_TRY(bench_param_dtype(h, "dtype", &s->dtype));
  HIPB_TRY(pick_kernel(h, s, h->param_str(h, "variant"), h->param_str(h, "tile")));
  HIPB_TRY(hipb_setup(h, s->ctx));
#if defined(HIPB_CUDA) || defined(HIPB_ROCBLAS)
  if (s->launch == launch_vendor) HIPB_TRY(vendor_stream(h, s));
#endif
  const size_t na = (size_t)(s->m * s->k), nb = (size_t)(s->k * s->n), nc = (size_t)(s->m * s->n);
  HIPB_TRY(hipb_input(h, &s->a, na, s->dtype, 1));
  HIPB_TRY(hipb_input(h, &s->b, nb, s->dtype, 2));
  HIPB_TRY(hipb_output(h, &s->c, nc, BENCH_F32));
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct gemm *s = (struct gemm *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) HIPB_TRY(s->launch(h, s));
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct gemm *s = (struct gemm *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->c));
  struct bench_check c = {};
  c.op = "gemm";
  c.dtype = s->dtype;
  c.out_dtype = BENCH_F32;
  c.m = s->m;
  c.n = s->n;
  c.k = s->k;
  c.in[0] = s->a.host;
  c.in[1] = s->b.host;
  c.out = s->c.host;
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct gemm *s = (struct gemm *)state;
  hipb_free(&s->a);
  hipb_free(&s->b);
  hipb_free(&s->c);
#if defined(HIPB_CUDA) || defined(HIPB_ROCBLAS)
  vendor_destroy(s);
#endif
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("gemm"),
    .backend = HIPB_BACKEND,
    .operation = "gemm",
#if defined(HIPB_CUDA)
    .description = "GEMM, fp32 accumulate: shared-memory-tiled SIMT (f32/f16/bf16), mma.sync "
                   "and wgmma tensor cores (f16/bf16), tiles tunables; cuBLAS",
#else
    .description = "GEMM, fp32 accumulate: LDS-tiled SIMT (f32/f16/bf16) and MFMA matrix cores "
                   "(f16/bf16), tile a tunable; rocBLAS",
#endif
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .abi_needed = BENCH_ABI_1_4,
    .run_batch = run_batch,
    BENCH_PLUGIN_SIZES,
};
