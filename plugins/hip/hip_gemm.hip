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
 *                  block's 4 waves owns a 64x64 quarter of a 128x128 tile as
 *                  2x2 v_mfma_f32_32x32x8 (f16, bf16_1k) accumulators; A and
 *                  B (transposed) pass through LDS 32 k at a time as 16-bit
 *                  values. Built only for gfx90a and gfx940/941/942
 *                  (HIPB_DEVICE_MFMA: CDNA, 64-lane waves); on any other
 *                  device (gfx908, RDNA) the case is SKIPPED with that reason.
 * Edges (m, n, k not multiples of the tiles) are zero-padded on the way in
 * and masked on the way out. Verified against the harness's gemm reference
 * (inputs as given, fp32 output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipb.h"

#if defined(HIPB_CUDA)
#include <cublas_v2.h>
#endif

static const struct bench_param params[] = {
#if defined(HIPB_CUDA)
    {.name = "variant", .type = BENCH_PARAM_STRING,
     .description = "tiled: shared-memory-tiled SIMT fp32 math; cublas: cuBLAS cublasGemmEx, "
                    "fp32 compute (the vendor anchor)",
     .choices = "tiled,cublas", .min = 0, .max = 0, .zip = 2,
     .defaults = {"tiled,tiled,cublas,cublas", "tiled,cublas,cublas", "tiled,cublas,cublas",
                  "tiled,tiled,cublas,cublas"}},
#else
    {.name = "variant", .type = BENCH_PARAM_STRING,
     .description = "tiled: LDS-tiled SIMT fp32 math; mfma: matrix cores (f16/bf16 inputs)",
     .choices = "tiled,mfma", .min = 0, .max = 0, .zip = 2,
     .defaults = {"tiled,tiled,mfma,mfma", "tiled,mfma,mfma", "tiled,mfma,mfma",
                  "tiled,tiled,mfma,mfma"}},
#endif
    BENCH_PARAM_DTYPE_ZIP(2, "element type of A and B (C is fp32, accumulation fp32)",
                          "f32,f16,bf16", "f32,f16,f16,bf16", "f32,f16,bf16", "f32,f16,bf16",
                          "f32,bf16,f16,bf16"),
    BENCH_PARAM_GEMM_M("128,77", "4096", "8192", "1,7,127,33,64,129,256"),
    BENCH_PARAM_GEMM_N("128,65", "4096", "8192", "1,13,61,257,65,130,256"),
    BENCH_PARAM_GEMM_K("128,33", "4096", "8192", "1,5,257,1,63,40,256"),
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

/* ---- variant=tiled ---------------------------------------------------- */

#define TL_M 128
#define TL_N 128
#define TL_K 16
#define TL_PAD 4 /* LDS rows of 132 floats: 16-byte aligned, banks spread */

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

/* This thread's slice of the next A and B tiles, into registers:
 * A: row tid/2 of the tile, k (tid%2)*8..+7; B: k row tid/16, n (tid%16)*8..+7. */
template <typename T>
__device__ inline void tl_fetch(const T *A, const T *B, int M, int N, int K, int m0, int n0,
                                int k0, bool a_vec, bool b_vec, tl_regs<T> &ra, tl_regs<T> &rb) {
  const int tid = threadIdx.x;
  const int arow = m0 + (tid >> 1), acol = k0 + (tid & 1) * 8;
  const int avalid = arow < M ? (K - acol < 8 ? K - acol : 8) : 0;
  tl_load8(avalid > 0 ? A + (size_t)arow * K + acol : A, avalid, a_vec, ra);
  const int brow = k0 + (tid >> 4), bcol = n0 + (tid & 15) * 8;
  const int bvalid = brow < K ? (N - bcol < 8 ? N - bcol : 8) : 0;
  tl_load8(bvalid > 0 ? B + (size_t)brow * N + bcol : B, bvalid, b_vec, rb);
}

template <typename T>
__global__ __launch_bounds__(256) void gemm_tiled(const T *__restrict__ A, const T *__restrict__ B,
                                                  float *__restrict__ C, int M, int N, int K) {
  __shared__ float As[TL_K][TL_M + TL_PAD] __attribute__((aligned(16))); /* A transposed: As[k][m] */
  __shared__ float Bs[TL_K][TL_N + TL_PAD] __attribute__((aligned(16)));
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * TL_M, n0 = blockIdx.x * TL_N;
  constexpr int per16 = 16 / (int)sizeof(T); /* elements in 16 bytes */
  const bool a_vec = K % per16 == 0, b_vec = N % per16 == 0;

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; i++)
#pragma unroll
    for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;

  tl_regs<T> ra, rb;
  tl_fetch(A, B, M, N, K, m0, n0, 0, a_vec, b_vec, ra, rb);
  for (int k0 = 0; k0 < K; k0 += TL_K) {
    {
      const int ar = tid >> 1, ak = (tid & 1) * 8, bk = tid >> 4, bn = (tid & 15) * 8;
#pragma unroll
      for (int e = 0; e < 8; e++) As[ak + e][ar] = tl_elem(ra, e);
      *(float4 *)&Bs[bk][bn] = make_float4(tl_elem(rb, 0), tl_elem(rb, 1), tl_elem(rb, 2), tl_elem(rb, 3));
      *(float4 *)&Bs[bk][bn + 4] = make_float4(tl_elem(rb, 4), tl_elem(rb, 5), tl_elem(rb, 6), tl_elem(rb, 7));
    }
    __syncthreads();
    if (k0 + TL_K < K) tl_fetch(A, B, M, N, K, m0, n0, k0 + TL_K, a_vec, b_vec, ra, rb);
    /* unrolled by 8, not 16: 150-170 VGPRs instead of 190-200, so three
     * waves per SIMD instead of two (to be confirmed on hardware) */
#pragma unroll 8
    for (int kk = 0; kk < TL_K; kk++) {
      const float4 a0 = *(const float4 *)&As[kk][ty * 4], a1 = *(const float4 *)&As[kk][64 + ty * 4];
      const float4 b0 = *(const float4 *)&Bs[kk][tx * 4], b1 = *(const float4 *)&Bs[kk][64 + tx * 4];
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

  const bool c_vec = N % 4 == 0;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    const int row = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    if (row >= M) continue;
#pragma unroll
    for (int jh = 0; jh < 2; jh++) {
      const int col = n0 + jh * 64 + tx * 4;
      float *c = C + (size_t)row * N + col;
      if (c_vec && col + 4 <= N) {
        *(float4 *)c = make_float4(acc[i][jh * 4], acc[i][jh * 4 + 1], acc[i][jh * 4 + 2],
                                   acc[i][jh * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
          if (col + j < N) c[j] = acc[i][jh * 4 + j];
      }
    }
  }
}

/* ---- variant=mfma ----------------------------------------------------- */
#if !defined(HIPB_CUDA) /* AMD's matrix cores: not in the cuda_gemm build */

#define MF_M 128
#define MF_N 128
#define MF_K 32
#define MF_LDK (MF_K + 4) /* LDS row of 36 16-bit values: 72 bytes, banks spread */
#define MF_WAVE 64        /* MFMA runs on CDNA's 64-lane waves only */

/* Four 16-bit values, in memory order (the low half of x first). */
struct alignas(8) mf_u2 {
  uint32_t x, y;
};

/* One 32x32x8 MFMA: acc (32x32 fp32) += a (32x8) * b (8x32). Lane l holds
 * a[l%32][4*(l/32) .. +3] and b[4*(l/32) .. +3][l%32] (4 16-bit values in an
 * mf_u2), and acc[r] = C[8*(r/4) + 4*(l/32) + r%4][l%32]. */
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

__device__ inline mf_u2 mf_pack(const uint16_t v[4]) {
  return mf_u2{(uint32_t)v[0] | (uint32_t)v[1] << 16, (uint32_t)v[2] | (uint32_t)v[3] << 16};
}

/* This thread's 4 groups of 4 consecutive-k 16-bit values of the next A and
 * B tiles. Group q = tid + 256 g: A row q/8, k 4*(q%8); B column q%128,
 * k 4*(q/128). Out of range is 0 (+0 in f16 and bf16). */
__device__ inline void mf_fetch(const uint16_t *A, const uint16_t *B, int M, int N, int K, int m0,
                                int n0, int k0, mf_u2 ra[4], mf_u2 rb[4]) {
#pragma unroll
  for (int g = 0; g < 4; g++) {
    const int q = threadIdx.x + 256 * g;
    const int arow = m0 + q / 8, acol = k0 + 4 * (q % 8);
    if (arow < M && acol + 4 <= K && K % 4 == 0) {
      ra[g] = *(const mf_u2 *)(A + (size_t)arow * K + acol);
    } else {
      uint16_t v[4];
#pragma unroll
      for (int e = 0; e < 4; e++)
        v[e] = arow < M && acol + e < K ? A[(size_t)arow * K + acol + e] : (uint16_t)0;
      ra[g] = mf_pack(v);
    }
    const int bcol = n0 + q % 128, brow = k0 + 4 * (q / 128);
    uint16_t v[4];
#pragma unroll
    for (int e = 0; e < 4; e++)
      v[e] = bcol < N && brow + e < K ? B[(size_t)(brow + e) * N + bcol] : (uint16_t)0;
    rb[g] = mf_pack(v);
  }
}

template <bool BF16>
__global__ __launch_bounds__(256) void gemm_mfma(const uint16_t *__restrict__ A,
                                                 const uint16_t *__restrict__ B,
                                                 float *__restrict__ C, int M, int N, int K) {
#if defined(HIPB_DEVICE_MFMA) || defined(__HIP_CPU_RT__)
  __shared__ uint16_t As[MF_M][MF_LDK] __attribute__((aligned(16))); /* As[m][k] */
  __shared__ uint16_t Bs[MF_N][MF_LDK] __attribute__((aligned(16))); /* B transposed: Bs[n][k] */
  const int tid = threadIdx.x, lane = tid % MF_WAVE, wave = tid / MF_WAVE;
  const int wm = wave / 2, wn = wave % 2; /* the wave's 64x64 quarter */
  const int m0 = blockIdx.y * MF_M, n0 = blockIdx.x * MF_N;

  mf_acc acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
      for (int r = 0; r < 16; r++) acc[i][j][r] = 0.0f;

  mf_u2 ra[4], rb[4];
  mf_fetch(A, B, M, N, K, m0, n0, 0, ra, rb);
  for (int k0 = 0; k0 < K; k0 += MF_K) {
#pragma unroll
    for (int g = 0; g < 4; g++) {
      const int q = tid + 256 * g;
      *(mf_u2 *)&As[q / 8][4 * (q % 8)] = ra[g];
      *(mf_u2 *)&Bs[q % 128][4 * (q / 128)] = rb[g];
    }
    __syncthreads();
    if (k0 + MF_K < K) mf_fetch(A, B, M, N, K, m0, n0, k0 + MF_K, ra, rb);
#pragma unroll
    for (int kk = 0; kk < MF_K; kk += 8) {
      const int kl = kk + 4 * (lane / 32);
      mf_u2 a[2], b[2];
#pragma unroll
      for (int i = 0; i < 2; i++) a[i] = *(const mf_u2 *)&As[wm * 64 + i * 32 + lane % 32][kl];
#pragma unroll
      for (int j = 0; j < 2; j++) b[j] = *(const mf_u2 *)&Bs[wn * 64 + j * 32 + lane % 32][kl];
#pragma unroll
      for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) mf_mma<BF16>(acc[i][j], a[i], b[j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int j = 0; j < 2; j++) {
      const int col = n0 + wn * 64 + j * 32 + lane % 32;
#pragma unroll
      for (int r = 0; r < 16; r++) {
        const int row = m0 + wm * 64 + i * 32 + 8 * (r / 4) + 4 * (lane / 32) + r % 4;
        if (row < M && col < N) C[(size_t)row * N + col] = acc[i][j][r];
      }
    }
#else
  (void)A, (void)B, (void)C, (void)M, (void)N, (void)K; /* no matrix cores: never launched */
#endif
}

/* ---- the plugin ---------------------------------------------------------- */

#endif /* !HIPB_CUDA */

struct gemm {
  struct hipb_ctx *ctx;
  int64_t m, n, k;
  enum bench_dtype dtype;
  int mfma; /* launch gemm_mfma */
#if defined(HIPB_CUDA)
  cublasHandle_t cublas; /* variant=cublas */
#endif
  struct hipb_buf a, b, c;
};

#if defined(HIPB_CUDA)
/* ---- variant=cublas ----------------------------------------------------- */

#define GEMM_CUBLAS(h, call)                                                           \
  do {                                                                                 \
    cublasStatus_t st_ = (call);                                                       \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                  \
      return (h)->fail((h), "%s: %s (%s) at cuda_gemm (hip_gemm.hip:%d)", #call,                  \
                       cublasGetStatusName(st_), cublasGetStatusString(st_), __LINE__); \
  } while (0)

/* Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B as the
 * left operand (n x k, leading dimension n) and A as the right (k x m). */
static int launch_cublas(const struct bench_host *h, struct gemm *s) {
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
#endif

template <typename T> static int launch_tiled(const struct bench_host *h, struct gemm *s) {
  const dim3 grid((unsigned)((s->n + TL_N - 1) / TL_N), (unsigned)((s->m + TL_M - 1) / TL_M));
  HIPB_LAUNCH(h, (gemm_tiled<T>), grid, dim3(256), 0, s->ctx->stream, (const T *)s->a.dev,
              (const T *)s->b.dev, (float *)s->c.dev, (int)s->m, (int)s->n, (int)s->k);
  return BENCH_OK;
}

#if !defined(HIPB_CUDA)
template <bool BF16> static int launch_mfma(const struct bench_host *h, struct gemm *s) {
  const dim3 grid((unsigned)((s->n + MF_N - 1) / MF_N), (unsigned)((s->m + MF_M - 1) / MF_M));
  HIPB_LAUNCH(h, (gemm_mfma<BF16>), grid, dim3(256), 0, s->ctx->stream, (const uint16_t *)s->a.dev,
              (const uint16_t *)s->b.dev, (float *)s->c.dev, (int)s->m, (int)s->n, (int)s->k);
  return BENCH_OK;
}
#endif

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct gemm *s = (struct gemm *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  s->m = h->param_int(h, "m");
  s->n = h->param_int(h, "n");
  s->k = h->param_int(h, "k");
  HIPB_TRY(bench_param_dtype(h, "dtype", &s->dtype));
#if defined(HIPB_CUDA)
  const int want_mfma = 0;
  if (strcmp(h->param_str(h, "variant"), "cublas") == 0) {
    int v = 0;
    GEMM_CUBLAS(h, cublasCreate(&s->cublas));
    (void)cublasGetVersion(s->cublas, &v);
    char buf[96];
    snprintf(buf, sizeof buf, "cuBLAS %d.%d.%d cublasGemmEx, fp32 compute", v / 10000,
             v / 100 % 100, v % 100);
    h->set_info(h, "kernel", buf);
  }
#else
  const int want_mfma = strcmp(h->param_str(h, "variant"), "mfma") == 0;
#endif
  if (want_mfma && s->dtype == BENCH_F32)
    return h->skip(h, "variant mfma takes f16 or bf16 inputs (dtype f32 runs as variant tiled)");
  if (want_mfma && !s->ctx->mfma)
    return h->skip(h, "variant mfma needs CDNA matrix cores (gfx90a, gfx940, gfx941, gfx942); "
                      "device %s is %s", s->ctx->prop.name, s->ctx->arch);
  s->mfma = want_mfma;
  if (s->mfma)
    h->set_info(h, "kernel", s->dtype == BENCH_BF16 ? "mfma 32x32x8 bf16_1k, 128x128x32 tiles"
                                                   : "mfma 32x32x8 f16, 128x128x32 tiles");
  else
#if defined(HIPB_CUDA)
  if (!s->cublas)
#endif
    h->set_info(h, "kernel", "tiled fp32 SIMT, 128x128x16 tiles, 8x8 per thread");
  HIPB_TRY(hipb_setup(h, s->ctx));
#if defined(HIPB_CUDA)
  if (s->cublas) GEMM_CUBLAS(h, cublasSetStream(s->cublas, s->ctx->stream));
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
  for (int64_t i = 0; i < n; i++) {
#if defined(HIPB_CUDA)
    if (s->cublas)
      HIPB_TRY(launch_cublas(h, s));
    else
#else
    if (s->mfma)
      HIPB_TRY(s->dtype == BENCH_BF16 ? launch_mfma<true>(h, s) : launch_mfma<false>(h, s));
    else
#endif
      HIPB_TRY(s->dtype == BENCH_F16    ? launch_tiled<hipb_f16>(h, s)
               : s->dtype == BENCH_BF16 ? launch_tiled<hipb_bf16>(h, s)
                                        : launch_tiled<float>(h, s));
  }
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
#if defined(HIPB_CUDA)
  if (s->cublas) (void)cublasDestroy(s->cublas);
#endif
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("gemm"),
    .backend = HIPB_BACKEND,
    .operation = "gemm",
#if defined(HIPB_CUDA)
    .description = "GEMM, fp32 accumulate: shared-memory-tiled SIMT (f32/f16/bf16) and cuBLAS",
#else
    .description = "GEMM, fp32 accumulate: LDS-tiled SIMT (f32/f16/bf16) and MFMA matrix cores (f16/bf16)",
#endif
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
