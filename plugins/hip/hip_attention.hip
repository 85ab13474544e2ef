/* hip_attention: scaled dot-product attention with RoPE on Q and K,
 *   O = softmax(rope(Q) rope(K)^T / sqrt(d) + causal mask) V
 * (mask=causal; mask=none drops the mask: every query sees every key)
 * over q, k, v, o laid out [batch][heads][seq][head_dim], f32/f16/bf16 in
 * and out, fp32 arithmetic.
 *
 * One fused kernel, flash-attention style: a 256-thread block owns BQ query
 * rows of one (batch, head) and walks the key/value tiles (BK keys) up to
 * its diagonal (causal) or to the end, never writing the scores to memory.
 * Per tile:
 *   1. K tile into LDS (rotated, transposed: Ks[d][key])
 *   2. S = Q K^T from LDS, each thread a (BQ/16) x (BK/16) block; causal
 *      mask on the diagonal tile
 *   3. online softmax: the tile's row max by a shuffle across the 16
 *      threads of a row (16 lanes: the same on 32- and 64-lane waves), rescale of the running sum and of O by
 *      exp2(m_old - m_new), P = exp2(S - m_new) into LDS
 *   4. V tile into LDS (over K) and O += P V, each thread a
 *      (BQ/16) x (head_dim/16) block of O in registers
 * Q is loaded once, rotated and pre-scaled by log2(e)/sqrt(d) (scores in
 * base 2). The RoPE angles come from a cos/sin table built in setup, like a
 * model's rotary cache. head_dim runs on the kernel for 64, 128 or 256
 * (zero-padded up to it), tiles sized to stay within the 64 KiB of LDS:
 *   D=64: BQ=64, BK=64   D=128: BQ=64, BK=32   D=256: BQ=32, BK=16
 * That is variant=tiled. The cuda_attention build adds variant=mma
 * (hip_attention_mma.h): f16/bf16 on NVIDIA's tensor cores (mma.sync
 * m16n8k16, sm_80 and later), head_dim up to 128.
 * FLOPs: 4 * batch * heads * seq^2 * head_dim, halved when causal. Verified
 * against the harness's attention reference (BENCH_ATTN_ROPE). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipb.h"
#if defined(HIPB_CUDA)
#include "hip_attention_mma.h"
#endif

static const struct bench_param params[] = {
    BENCH_PARAM_ATTN_BATCH("1,2,1,1", "1", "1,1", "1,2,1,1,2,1"),
    BENCH_PARAM_ATTN_HEADS("2,1,2,1", "32", "32,32", "1,3,2,1,2,1"),
    BENCH_PARAM_ATTN_SEQ("64,19,128,77", "2048", "4096,8192", "1,7,65,130,33,200"),
    BENCH_PARAM_ATTN_HEAD_DIM(256, "32,6,64,128", "128", "128,128", "2,6,64,80,128,256"),
#if defined(HIPB_CUDA)
    /* variant and dtype advance together: mma takes f16 and bf16 alone */
    {.name = "variant", .type = BENCH_PARAM_STRING,
     .description = "tiled: the SIMT flash attention, fp32 math; mma: tensor cores (mma.sync "
                    "m16n8k16, f16/bf16, P rounded to the input type, head_dim <= 128, sm_80 "
                    "and later)",
     .choices = "tiled,mma", .min = 0, .max = 0, .zip = 2,
     .defaults = {"tiled,tiled,tiled,mma,mma", "tiled,tiled,mma", "tiled,mma,mma",
                  "tiled,tiled,tiled,mma,mma"}},
    BENCH_PARAM_DTYPE_ZIP(2, "element type of q, k, v and o (fp32 arithmetic)", "f32,f16,bf16",
                          "f32,f16,bf16,f16,bf16", "f16,f32,f16", "f16,f16,bf16",
                          "f32,f16,bf16,f16,bf16"),
#else
    BENCH_PARAM_DTYPE("element type of q, k, v and o (fp32 arithmetic)", "f32,f16,bf16",
                      "f32,f16,bf16", "f16,f32", "f16", "f32,f16,bf16"),
#endif
    BENCH_PARAM_ATTN_ROPE("none,halves", "interleaved", "interleaved", "none,interleaved,halves"),
    BENCH_PARAM_ATTN_MASK("causal,none", "causal", "causal", "causal,none"),
    BENCH_PARAM_ATTN_THETA("10000", "10000", "10000", "10000"),
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

#define AT_THREADS 256
#define AT_PAD 4 /* LDS rows padded by 4 floats: 16-byte aligned, banks spread */

/* RoPE table: cs[pos * half + i] = (cos, sin) of pos * theta^(-2i/d). */
__global__ __launch_bounds__(256) void at_rope_table(float2 *__restrict__ cs, int seq, int half,
                                                     int d, float log2_theta) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (int64_t)seq * half) return;
  const int pos = (int)(t / half), i = (int)(t % half);
  const float inv_freq = exp2f(-(float)(2 * i) / (float)d * log2_theta);
  float sn, c;
  sincosf((float)pos * inv_freq, &sn, &c);
  cs[t] = make_float2(c, sn);
}

/* Rows [row0, row0 + ROWS) of a [seq][d] matrix into LDS as dst[e * ld + r]
 * (transposed) or dst[r * ld + e], rotated by RoPE when rope != 0 (1
 * interleaved, 2 halves), times scale. Rows past seq and elements d..D-1
 * are written as 0. */
template <typename T, int D, int ROWS, bool TRANSPOSED>
__device__ inline void at_load_tile(float *dst, int ld, const T *__restrict__ src, int row0,
                                    int seq, int d, int rope, const float2 *__restrict__ cs,
                                    float scale) {
  const int tid = threadIdx.x;
  if (rope) {
    const int half = d / 2;
    for (int p = tid; p < ROWS * half; p += AT_THREADS) {
      const int r = p / half, i = p - r * half, row = row0 + r;
      const int a = rope == 2 ? i : 2 * i, b = rope == 2 ? i + half : 2 * i + 1;
      float ya = 0.0f, yb = 0.0f;
      if (row < seq) {
        const float xa = hipb_to_f32(src[(int64_t)row * d + a]);
        const float xb = hipb_to_f32(src[(int64_t)row * d + b]);
        const float2 t = cs[(int64_t)row * half + i];
        ya = (xa * t.x - xb * t.y) * scale;
        yb = (xa * t.y + xb * t.x) * scale;
      }
      dst[TRANSPOSED ? a * ld + r : r * ld + a] = ya;
      dst[TRANSPOSED ? b * ld + r : r * ld + b] = yb;
    }
  } else {
    for (int p = tid; p < ROWS * d; p += AT_THREADS) {
      const int r = p / d, e = p - r * d, row = row0 + r;
      const float y = row < seq ? hipb_to_f32(src[(int64_t)row * d + e]) * scale : 0.0f;
      dst[TRANSPOSED ? e * ld + r : r * ld + e] = y;
    }
  }
  for (int p = tid; p < ROWS * (D - d); p += AT_THREADS) {
    const int r = p / (D - d), e = d + (p - r * (D - d));
    dst[TRANSPOSED ? e * ld + r : r * ld + e] = 0.0f;
  }
}

template <typename T, int D, int BQ, int BK>
__global__ __launch_bounds__(AT_THREADS) void attention_fwd(
    const T *__restrict__ q, const T *__restrict__ k, const T *__restrict__ v, T *__restrict__ o,
    int heads, int seq, int d, int rope, const float2 *__restrict__ cs, float qscale, int causal) {
  constexpr int RQ = BQ / 16; /* query rows per thread */
  constexpr int CS = BK / 16; /* keys per thread in S */
  constexpr int OD = D / 16;  /* output columns per thread */
  constexpr int KV_FLOATS = D * (BK + AT_PAD) > BK * (D + AT_PAD) ? D * (BK + AT_PAD) : BK * (D + AT_PAD);
#if defined(HIPB_CUDA)
  /* CUDA caps static shared memory at 48 KiB: the same arrays, carved from
   * dynamic shared memory (AT_LDS_BYTES, opted in by launch_d) */
  extern __shared__ __align__(16) float at_smem[];
  float *const Qs = at_smem, *const KV = Qs + D * (BQ + AT_PAD), *const Ps = KV + KV_FLOATS;
#else
  __shared__ float Qs[D * (BQ + AT_PAD)] __attribute__((aligned(16))); /* Qs[d][row] */
  __shared__ float KV[KV_FLOATS] __attribute__((aligned(16)));        /* Ks[d][key], then Vs[key][d] */
  __shared__ float Ps[BK * (BQ + AT_PAD)] __attribute__((aligned(16))); /* Ps[key][row] */
#endif
  constexpr int LQ = BQ + AT_PAD, LK = BK + AT_PAD, LV = D + AT_PAD;

  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int nqt = (seq + BQ - 1) / BQ;
  const int qt = nqt - 1 - (int)blockIdx.x; /* longest rows first */
  const int q0 = qt * BQ;
  const int64_t base = ((int64_t)blockIdx.z * heads + blockIdx.y) * seq * d;
  const T *qg = q + base, *kg = k + base, *vg = v + base;

  at_load_tile<T, D, BQ, true>(Qs, LQ, qg, q0, seq, d, rope, cs, qscale);

  float m[RQ], l[RQ], acc[RQ][OD];
#pragma unroll
  for (int r = 0; r < RQ; r++) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
#pragma unroll
    for (int c = 0; c < OD; c++) acc[r][c] = 0.0f;
  }

  const int last_key = causal && q0 + BQ < seq ? q0 + BQ - 1 : seq - 1;
  for (int k0 = 0; k0 <= last_key; k0 += BK) {
    at_load_tile<T, D, BK, true>(KV, LK, kg, k0, seq, d, rope, cs, 1.0f);
    __syncthreads();

    /* 2. S = Q K^T (base-2 logits) */
    float s[RQ][CS];
#pragma unroll
    for (int r = 0; r < RQ; r++)
#pragma unroll
      for (int c = 0; c < CS; c++) s[r][c] = 0.0f;
#pragma unroll 4
    for (int e = 0; e < d; e++) {
      float qv[RQ], kv[CS];
#pragma unroll
      for (int r = 0; r < RQ; r++) qv[r] = Qs[e * LQ + ty * RQ + r];
#pragma unroll
      for (int c = 0; c < CS; c++) kv[c] = KV[e * LK + tx * CS + c];
#pragma unroll
      for (int r = 0; r < RQ; r++)
#pragma unroll
        for (int c = 0; c < CS; c++) s[r][c] = fmaf(qv[r], kv[c], s[r][c]);
    }

    /* 3. online softmax over this tile */
#pragma unroll
    for (int r = 0; r < RQ; r++) {
      const int row = q0 + ty * RQ + r;
      float mt = -INFINITY;
#pragma unroll
      for (int c = 0; c < CS; c++) {
        const int key = k0 + tx * CS + c;
        if ((causal && key > row) || key >= seq) s[r][c] = -INFINITY;
        mt = fmaxf(mt, s[r][c]);
      }
#pragma unroll
      for (int off = 1; off < 16; off <<= 1) mt = fmaxf(mt, hipb_shfl_xor(mt, off, 16));
      const float mn = fmaxf(m[r], mt);
      /* mn is -inf only for a row with no key yet (none here: key 0 is
       * always visible); keep it finite so nothing turns into a NaN */
      const float ms = mn == -INFINITY ? 0.0f : mn;
      const float alpha = exp2f(m[r] - ms);
      float sum = 0.0f;
#pragma unroll
      for (int c = 0; c < CS; c++) {
        s[r][c] = exp2f(s[r][c] - ms);
        sum += s[r][c];
      }
      l[r] = l[r] * alpha + sum;
#pragma unroll
      for (int c = 0; c < OD; c++) acc[r][c] *= alpha;
      m[r] = mn;
    }
    __syncthreads(); /* done with Ks: V goes over it */

    /* 4. O += P V */
#pragma unroll
    for (int r = 0; r < RQ; r++)
#pragma unroll
      for (int c = 0; c < CS; c++) Ps[(tx * CS + c) * LQ + ty * RQ + r] = s[r][c];
    at_load_tile<T, D, BK, false>(KV, LV, vg, k0, seq, d, 0, cs, 1.0f);
    __syncthreads();
    const int nk = last_key + 1 - k0 < BK ? last_key + 1 - k0 : BK;
    for (int j = 0; j < nk; j++) {
      float pv[RQ], vv[OD];
#pragma unroll
      for (int r = 0; r < RQ; r++) pv[r] = Ps[j * LQ + ty * RQ + r];
#pragma unroll
      for (int c = 0; c < OD; c++) vv[c] = KV[j * LV + tx * OD + c];
#pragma unroll
      for (int r = 0; r < RQ; r++)
#pragma unroll
        for (int c = 0; c < OD; c++) acc[r][c] = fmaf(pv[r], vv[c], acc[r][c]);
    }
    __syncthreads(); /* done with Ps and Vs */
  }

  /* the row sums are spread over the 16 threads of a row */
#pragma unroll
  for (int r = 0; r < RQ; r++) {
    float sum = l[r];
#pragma unroll
    for (int off = 1; off < 16; off <<= 1) sum += hipb_shfl_xor(sum, off, 16);
    const int row = q0 + ty * RQ + r;
    if (row >= seq) continue;
    const float inv = 1.0f / sum;
    T *orow = o + base + (int64_t)row * d;
#pragma unroll
    for (int c = 0; c < OD; c++) {
      const int col = tx * OD + c;
      if (col < d) orow[col] = hipb_from_f32<T>(acc[r][c] * inv);
    }
  }
}

/* ---- the plugin ---------------------------------------------------------- */

struct attention {
  struct hipb_ctx *ctx;
  int64_t batch, heads, seq, d;
  int rope; /* 0 none, 1 interleaved, 2 halves */
  int causal; /* mask=causal; else no mask */
  double theta;
  enum bench_dtype dtype;
  struct hipb_buf q, k, v, o;
  float2 *cs; /* RoPE table, device */
  int lds_opt_in; /* CUDA: the kernel may use more than 48 KiB of shared memory */
  int mma;        /* variant=mma (the cuda build) */
  uint16_t *prep; /* variant=mma: q, k, v rotated, scaled and padded to D */
};

template <typename T, int D, int BQ, int BK>
static int launch_d(const struct bench_host *h, struct attention *s) {
  const dim3 grid((unsigned)((s->seq + BQ - 1) / BQ), (unsigned)s->heads, (unsigned)s->batch);
  const float qscale = HIPB_LOG2E / sqrtf((float)s->d);
#if defined(HIPB_CUDA)
  /* Qs, KV and Ps of attention_fwd, in dynamic shared memory */
  constexpr int KV_FLOATS = D * (BK + AT_PAD) > BK * (D + AT_PAD) ? D * (BK + AT_PAD) : BK * (D + AT_PAD);
  constexpr size_t lds = sizeof(float) * (D * (BQ + AT_PAD) + KV_FLOATS + BK * (BQ + AT_PAD));
  if (!s->lds_opt_in) { /* once, before the first launch */
    HIPB_CHECK(h, cudaFuncSetAttribute(attention_fwd<T, D, BQ, BK>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)lds));
    s->lds_opt_in = 1;
  }
#else
  constexpr size_t lds = 0;
#endif
  HIPB_LAUNCH(h, (attention_fwd<T, D, BQ, BK>), grid, dim3(AT_THREADS), lds, s->ctx->stream,
              (const T *)s->q.dev, (const T *)s->k.dev, (const T *)s->v.dev, (T *)s->o.dev,
              (int)s->heads, (int)s->seq, (int)s->d, s->rope, (const float2 *)s->cs, qscale,
              s->causal);
  return BENCH_OK;
}

#if defined(HIPB_CUDA)
/* variant=mma: the pre-pass, then the attention, on D = 64 or 128. */
template <bool BF16, int D> static int launch_mma_d(const struct bench_host *h, struct attention *s) {
  const int64_t rows = s->batch * s->heads * s->seq, np = rows * D;
  uint16_t *qr = s->prep, *kr = qr + np, *vr = kr + np;
  HIPB_LAUNCH(h, (attn_mma_prep<BF16, D>), dim3((unsigned)((rows * (D / 2) + AM_THREADS - 1) / AM_THREADS)),
              dim3(AM_THREADS), 0, s->ctx->stream, (const uint16_t *)s->q.dev,
              (const uint16_t *)s->k.dev, (const uint16_t *)s->v.dev, qr, kr, vr, rows, (int)s->seq,
              (int)s->d, s->rope, (const float2 *)s->cs, HIPB_LOG2E / sqrtf((float)s->d));
  const int bytes = am_smem_bytes(D);
  if (!s->lds_opt_in) {
    HIPB_CHECK(h, cudaFuncSetAttribute(attn_mma<BF16, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       bytes));
    s->lds_opt_in = 1;
  }
  const dim3 grid((unsigned)((s->seq + AM_BQ - 1) / AM_BQ), (unsigned)s->heads, (unsigned)s->batch);
  HIPB_LAUNCH(h, (attn_mma<BF16, D>), grid, dim3(AM_THREADS), (size_t)bytes, s->ctx->stream,
              (const uint16_t *)qr, (const uint16_t *)kr, (const uint16_t *)vr, (uint16_t *)s->o.dev,
              (int)s->heads, (int)s->seq, (int)s->d, s->causal);
  return BENCH_OK;
}
template <bool BF16> static int launch_mma(const struct bench_host *h, struct attention *s) {
  return s->d <= 64 ? launch_mma_d<BF16, 64>(h, s) : launch_mma_d<BF16, 128>(h, s);
}

/* variant=mma's reasons not to run here, its kernel line and its buffer. */
static int setup_mma(const struct bench_host *h, struct attention *s) {
  const hipDeviceProp_t *p = &s->ctx->prop;
  if (s->dtype == BENCH_F32)
    return h->skip(h, "variant mma takes f16 or bf16 (dtype f32 runs as variant tiled)");
  if (p->major < 8)
    return h->skip(h, "variant mma needs mma.sync m16n8k16 and cp.async (sm_80 and later); "
                      "device %s is %s", p->name, s->ctx->arch);
  if (s->d > AM_D_MAX)
    return h->skip(h, "variant mma: head_dim %lld > %d (a warp's 16 rows of O stay in "
                      "registers; variant tiled runs it)", (long long)s->d, AM_D_MAX);
  const int D = s->d <= 64 ? 64 : 128;
  if ((size_t)am_smem_bytes(D) > (size_t)p->sharedMemPerBlockOptin)
    return h->skip(h, "variant mma: head_dim %lld takes %d bytes of shared memory; device %s "
                      "allows %zu a block", (long long)s->d, am_smem_bytes(D), p->name,
                   (size_t)p->sharedMemPerBlockOptin);
  char buf[200];
  snprintf(buf, sizeof buf, "mma.sync m16n8k16 %s %s flash attention, D=%d, 64 queries x 64 keys "
           "a tile, 4 warps, K and V double-buffered by cp.async; RoPE and scale in a pre-pass",
           s->dtype == BENCH_BF16 ? "bf16" : "f16", s->causal ? "causal" : "unmasked", D);
  h->set_info(h, "kernel", buf);
  const size_t np = (size_t)(s->batch * s->heads * s->seq) * (size_t)D;
  HIPB_CHECK(h, hipMalloc((void **)&s->prep, 3 * np * sizeof(uint16_t)));
  return BENCH_OK;
}
#endif

template <typename T> static int launch(const struct bench_host *h, struct attention *s) {
  if (s->d <= 64) return launch_d<T, 64, 64, 64>(h, s);
  if (s->d <= 128) return launch_d<T, 128, 64, 32>(h, s);
  return launch_d<T, 256, 32, 16>(h, s);
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct attention *s = (struct attention *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  s->batch = h->param_int(h, "batch");
  s->heads = h->param_int(h, "heads");
  s->seq = h->param_int(h, "seq");
  s->d = h->param_int(h, "head_dim");
  HIPB_TRY(bench_param_dtype(h, "dtype", &s->dtype));
  s->theta = h->param_float(h, "theta");
  s->causal = strcmp(h->param_str(h, "mask"), "none") != 0;
  const char *rope = h->param_str(h, "rope");
  s->rope = strcmp(rope, "interleaved") == 0 ? 1 : strcmp(rope, "halves") == 0 ? 2 : 0;
  if (s->rope && s->d % 2)
    return h->skip(h, "head_dim (%lld) must be even for RoPE", (long long)s->d);
#if defined(HIPB_CUDA)
  s->mma = strcmp(h->param_str(h, "variant"), "mma") == 0;
  if (s->mma) HIPB_TRY(setup_mma(h, s));
#endif
  if (!s->mma) {
    char buf[96];
    snprintf(buf, sizeof buf, "fused %s flash attention, %s", s->causal ? "causal" : "unmasked",
             s->d <= 64 ? "D=64 BQ=64 BK=64" : s->d <= 128 ? "D=128 BQ=64 BK=32" : "D=256 BQ=32 BK=16");
    h->set_info(h, "kernel", buf);
  }
  HIPB_TRY(hipb_setup(h, s->ctx));
  const size_t n = (size_t)(s->batch * s->heads * s->seq * s->d);
  HIPB_TRY(hipb_input(h, &s->q, n, s->dtype, 1));
  HIPB_TRY(hipb_input(h, &s->k, n, s->dtype, 2));
  HIPB_TRY(hipb_input(h, &s->v, n, s->dtype, 3));
  HIPB_TRY(hipb_output(h, &s->o, n, s->dtype));
  const int half = (int)(s->d / 2);
  const int64_t ncs = s->seq * (half > 0 ? half : 1);
  HIPB_CHECK(h, hipMalloc((void **)&s->cs, (size_t)ncs * sizeof(float2)));
  if (s->rope) {
    HIPB_LAUNCH(h, at_rope_table, dim3((unsigned)((ncs + 255) / 256)), dim3(256), 0,
                s->ctx->stream, s->cs, (int)s->seq, half, (int)s->d, (float)log2(s->theta));
    HIPB_CHECK(h, hipStreamSynchronize(s->ctx->stream));
  }
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct attention *s = (struct attention *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) {
#if defined(HIPB_CUDA)
    if (s->mma) {
      HIPB_TRY(s->dtype == BENCH_BF16 ? launch_mma<true>(h, s) : launch_mma<false>(h, s));
      continue;
    }
#endif
    HIPB_TRY(s->dtype == BENCH_F16    ? launch<hipb_f16>(h, s)
             : s->dtype == BENCH_BF16 ? launch<hipb_bf16>(h, s)
                                      : launch<float>(h, s));
  }
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct attention *s = (struct attention *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->o));
  struct bench_check c = {};
  c.op = "attention";
  c.dtype = c.out_dtype = s->dtype;
  c.batch = s->batch;
  c.heads = s->heads;
  c.seq = s->seq;
  c.head_dim = s->d;
  c.theta = s->theta;
  c.flags = s->rope == 1 ? BENCH_ATTN_ROPE | BENCH_ROPE_INTERLEAVED
            : s->rope == 2 ? BENCH_ATTN_ROPE | BENCH_ROPE_HALVES
                           : 0;
  if (!s->causal) c.flags |= BENCH_ATTN_FULL;
  c.in[0] = s->q.host;
  c.in[1] = s->k.host;
  c.in[2] = s->v.host;
  c.out = s->o.host;
  return h->check(h, &c);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct attention *s = (struct attention *)state;
  hipb_free(&s->q);
  hipb_free(&s->k);
  hipb_free(&s->v);
  hipb_free(&s->o);
  if (s->cs) (void)hipFree(s->cs);
  if (s->prep) (void)hipFree(s->prep);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("attention"),
    .backend = HIPB_BACKEND,
    .operation = "attention",
#if defined(HIPB_CUDA)
    .description = "fused flash attention, causal or not, with RoPE on q and k, online softmax: SIMT "
                   "(f32/f16/bf16) and mma.sync tensor cores (f16/bf16)",
#else
    .description = "fused flash attention, causal or not, with RoPE on q and k (f32/f16/bf16), online "
                   "softmax",
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
