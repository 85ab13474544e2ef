/* hip_peak_fma: the vector ALU's FMA peak, one case per element type
 * (roofs fp32, fp64, fp16, bf16), measured and checked exactly.
 *
 * Every thread runs FMA_CHAINS independent chains x = x*a + b whose starts
 * and constants it reads from device memory (the compiler can neither fold
 * nor drop them) and writes every chain's final value, which verify
 * compares exactly with the value it must have. One pass of the loop is
 * FMA_BODY = 32 FMAs a chain: 31 of x*a + b, then one x*a + c, with a = 1,
 * b = 1, c = -30: x climbs by 31 and falls back by 30, so after `chain`
 * FMAs (chain/32 passes) x = x0 + chain/32. Every value on the way is an
 * integer of magnitude at most 2^P (P the significand's bits: 24 fp32, 53
 * fp64, 11 fp16, 8 bf16), so every FMA is exact (fused or not, in any
 * rounding mode), and a chain that ran short or long, or not at all, ends
 * elsewhere. The starts are x0 = -2^P + (0..15) in fp16 and bf16, so a
 * chain stays exact for 2^(P+1) - 45 passes: 14944 FMAs in bf16, 129632
 * in fp16 (a longer chain is SKIPPED for that type); 0..15 in fp32 and
 * fp64, whose range is far beyond the longest chain.
 *
 * Lanes: fp32 runs pairs (two chains in one register pair), which CDNA2/3
 * (gfx90a, gfx94x) pack into v_pk_fma_f32, how MI200 and MI300 reach their
 * FP32 peak; two v_fma_f32 (RDNA), two fma.rn.f32 (NVIDIA) elsewhere. fp16
 * runs half2 (v_pk_fma_f16, fma.rn.f16x2), bf16 bf16x2 (fma.rn.bf16x2,
 * NVIDIA sm_80+; the AMD targets built here, gfx90a, gfx94x, gfx10, gfx11,
 * have no bf16 FMA in the vector ALU, only in dot and matrix instructions:
 * SKIPPED there), fp64 one lane. flops = 2 x lanes x FMA_CHAINS x chain x
 * threads. The loop body is FMA_CHAINS x FMA_BODY packed FMAs (256), the
 * count tests/hip/t_peak.py and tests/cuda/t_peak.sh find in the ISA/PTX.
 *
 * Datasheet: SMs/CUs x FLOP per clock per SM/CU (the table below, by
 * architecture) x the clock-rate attribute (the maximum boost clock); 0 for
 * an architecture not in the table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(HIPB_CUDA)
#include <cuda_bf16.h>
#elif !defined(__HIP_CPU_RT__)
#include <hip/hip_fp16.h>
#endif

#include "hipb_peak.h"

#define FMA_CHAINS 8
#define FMA_BODY 32

/* bf16 FMA: NVIDIA (sm_80 and newer, every architecture built) and the
 * HIP-CPU runtime (emulated, so that the check runs without a GPU). */
#if defined(HIPB_CUDA) || defined(__HIP_CPU_RT__)
#define FMA_HAS_BF16 1
#else
#define FMA_HAS_BF16 0
#endif

static const struct bench_param params[] = {
    {.name = "dtype", .type = BENCH_PARAM_STRING,
     .description = "element type of the chains: f32 (lane pairs), f64, f16 (half2), bf16 (bf16x2)",
     .choices = "f32,f64,f16,bf16", .min = 0, .max = 0, .zip = 0,
     .defaults = {"f32,f64,f16,bf16", "f32,f64,f16,bf16", "f32,f64,f16,bf16", "f32,f64,f16,bf16"}},
    {.name = "chain", .type = BENCH_PARAM_INT,
     .description = "FMAs in each chain, a multiple of 32 (bf16 stays exact up to 14944, fp16 up "
                    "to 129632)",
     .choices = NULL, .min = 32, .max = 1 << 24, .zip = 0,
     .defaults = {"1024", "8192", "8192", "32,96"}},
    {.name = "blocks_per_cu", .type = BENCH_PARAM_INT,
     .description = "blocks of 256 threads per SM/CU (more than fit run in rounds)",
     .choices = NULL, .min = 1, .max = 1024, .zip = 0,
     .defaults = {"1", "8", "16", "1,3"}},
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

/* FLOP per clock per SM/CU, by architecture: vendor peak / (units x clock).
 *   sm_80     A100: 19.5 TFLOP/s fp32, 9.7 fp64, 78 fp16 and 39 bf16 without
 *             tensor cores; 108 SMs at 1410 MHz (NVIDIA A100 whitepaper):
 *             64 FP32 lanes per SM
 *   sm_86/89  GA10x, AD10x: 128 FP32 lanes per SM, fp16 at the fp32 rate,
 *             fp64 at 1/64 (RTX 3090: 35.6 TFLOP/s at 1695 MHz, 82 SMs)
 *   sm_90     H100 SXM: 66.9 TFLOP/s fp32, 33.5 fp64, 133.8 fp16 and bf16
 *             without tensor cores; 132 SMs at 1980 MHz (NVIDIA H100
 *             datasheet): 128 FP32 lanes per SM
 *   gfx90a    MI250X: 95.7 TFLOP/s packed fp32 (47.9 unpacked), 47.9 fp64;
 *             220 CUs at 1700 MHz (AMD MI250X data sheet); fp16 packed at
 *             the packed-fp32 rate (v_pk_fma_f16: 64 lanes x 2 halves)
 *   gfx94x    MI300X: 163.4 TFLOP/s fp32 (packed), 81.7 fp64; 304 CUs at
 *             2100 MHz (AMD MI300X data sheet); fp16 as on gfx90a
 *   gfx1030   RX 6900 XT: 23.0 TFLOP/s fp32, 46.1 fp16; 80 CUs at 2250 MHz;
 *             fp64 at 1/16
 *   gfx110x   RX 7900 XTX: 61.4 TFLOP/s fp32 (dual issue), 122.8 fp16;
 *             96 CUs at 2500 MHz; fp64 at 1/32 of dual issue */
static const struct hipb_peak_rate rate_f32[] = {
    {"sm_80", 128}, {"sm_86", 256}, {"sm_89", 256}, {"sm_90", 256},
    {"gfx90a", 256}, {"gfx940", 256}, {"gfx941", 256}, {"gfx942", 256},
    {"gfx1030", 128}, {"gfx110*", 256}, {NULL, 0}};
static const struct hipb_peak_rate rate_f64[] = {
    {"sm_80", 64}, {"sm_86", 4}, {"sm_89", 4}, {"sm_90", 128},
    {"gfx90a", 128}, {"gfx940", 128}, {"gfx941", 128}, {"gfx942", 128},
    {"gfx1030", 8}, {"gfx110*", 8}, {NULL, 0}};
static const struct hipb_peak_rate rate_f16[] = {
    {"sm_80", 512}, {"sm_86", 256}, {"sm_89", 256}, {"sm_90", 512},
    {"gfx90a", 256}, {"gfx940", 256}, {"gfx941", 256}, {"gfx942", 256},
    {"gfx1030", 256}, {"gfx110*", 512}, {NULL, 0}};
static const struct hipb_peak_rate rate_bf16[] = {{"sm_80", 256}, {"sm_90", 512}, {NULL, 0}};

/* ---- the element types: a value of `lanes` chains and its FMA ---------- */

struct fma_f32x2 {
  float x, y;
};
struct fma_16x2 { /* two f16 or bf16 values as bits, x the low half */
  uint16_t x, y;
};

enum fma_kind { FMA_F32, FMA_F64, FMA_F16, FMA_BF16 };

template <int K> struct fma_type;
template <> struct fma_type<FMA_F32> {
  typedef fma_f32x2 V;
  __device__ static V fma(V x, V a, V b) { return V{fmaf(x.x, a.x, b.x), fmaf(x.y, a.y, b.y)}; }
};
template <> struct fma_type<FMA_F64> {
  typedef double V;
  __device__ static V fma(V x, V a, V b) { return ::fma(x, a, b); }
};
/* One packed FMA of two f16 (BF16 false) or two bf16 values, as bits. */
#if defined(__HIP_CPU_RT__)
/* HIP-CPU: in fp32, exact (every value is an integer of at most 2^11) */
template <bool BF16> inline uint16_t fma_emu(uint16_t x, uint16_t a, uint16_t b) {
  if constexpr (BF16)
    return hipb_from_f32<hipb_bf16>(
               fmaf(hipb_to_f32(hipb_bf16{x}), hipb_to_f32(hipb_bf16{a}), hipb_to_f32(hipb_bf16{b})))
        .bits;
  else
    return hipb_from_f32<hipb_f16>(
               fmaf(hipb_to_f32(hipb_f16{x}), hipb_to_f32(hipb_f16{a}), hipb_to_f32(hipb_f16{b})))
        .bits;
}
template <bool BF16> inline fma_16x2 fma_pk16(fma_16x2 x, fma_16x2 a, fma_16x2 b) {
  return fma_16x2{fma_emu<BF16>(x.x, a.x, b.x), fma_emu<BF16>(x.y, a.y, b.y)};
}
#elif defined(HIPB_CUDA)
/* __half2 and __nv_bfloat162 are not trivially copyable: through their raw types */
__device__ inline __half2 cu_half2(fma_16x2 v) {
  __half2_raw r;
  r.x = v.x;
  r.y = v.y;
  return __half2(r);
}
__device__ inline __nv_bfloat162 cu_bfloat162(fma_16x2 v) {
  __nv_bfloat162_raw r;
  r.x = v.x;
  r.y = v.y;
  return __nv_bfloat162(r);
}
template <bool BF16> __device__ inline fma_16x2 fma_pk16(fma_16x2 x, fma_16x2 a, fma_16x2 b) {
  if constexpr (BF16) {
    const __nv_bfloat162_raw r = __hfma2(cu_bfloat162(x), cu_bfloat162(a), cu_bfloat162(b));
    return fma_16x2{r.x, r.y};
  } else {
    const __half2_raw r = __hfma2(cu_half2(x), cu_half2(a), cu_half2(b));
    return fma_16x2{r.x, r.y};
  }
}
#else
template <bool BF16> __device__ inline fma_16x2 fma_pk16(fma_16x2 x, fma_16x2 a, fma_16x2 b) {
  if constexpr (BF16) { /* AMD has none (FMA_HAS_BF16 0): never called */
    (void)a, (void)b;
    return x;
  } else {
    return __builtin_bit_cast(fma_16x2, __hfma2(__builtin_bit_cast(__half2, x), __builtin_bit_cast(__half2, a),
                                                __builtin_bit_cast(__half2, b)));
  }
}
#endif

template <> struct fma_type<FMA_F16> {
  typedef fma_16x2 V;
  __device__ static V fma(V x, V a, V b) { return fma_pk16<false>(x, a, b); }
};
template <> struct fma_type<FMA_BF16> {
  typedef fma_16x2 V;
  __device__ static V fma(V x, V a, V b) { return fma_pk16<true>(x, a, b); }
};

/* ---- the kernel -------------------------------------------------------- */

/* x0, out: FMA_CHAINS values a thread, chain i of thread t at
 * i * threads + t; k: a, b, c. */
template <int K>
__global__ __launch_bounds__(HIPB_PEAK_THREADS) void peak_fma(
    const typename fma_type<K>::V *__restrict__ x0, const typename fma_type<K>::V *__restrict__ k,
    typename fma_type<K>::V *__restrict__ out, int passes) {
  typedef fma_type<K> F;
  if constexpr (K == FMA_BF16 && !FMA_HAS_BF16) {
    (void)x0, (void)k, (void)out, (void)passes; /* never launched */
  } else {
    const size_t threads = (size_t)gridDim.x * HIPB_PEAK_THREADS;
    const size_t t = (size_t)blockIdx.x * HIPB_PEAK_THREADS + threadIdx.x;
    const typename F::V a = k[0], b = k[1], c = k[2];
    typename F::V x[FMA_CHAINS];
#pragma unroll
    for (int i = 0; i < FMA_CHAINS; i++) x[i] = x0[i * threads + t];
#pragma unroll 1
    for (int p = 0; p < passes; p++) {
#pragma unroll
      for (int j = 0; j < FMA_BODY - 1; j++)
#pragma unroll
        for (int i = 0; i < FMA_CHAINS; i++) x[i] = F::fma(x[i], a, b);
#pragma unroll
      for (int i = 0; i < FMA_CHAINS; i++) x[i] = F::fma(x[i], a, c);
    }
#pragma unroll
    for (int i = 0; i < FMA_CHAINS; i++) out[i * threads + t] = x[i];
  }
}

/* ---- the case ---------------------------------------------------------- */

struct kind_info {
  const char *dtype, *roof, *method;
  enum bench_dtype t;
  int lanes, bits; /* chains a value holds; significand bits P */
  const struct hipb_peak_rate *rate;
};
#if defined(HIPB_CUDA)
#define FMA_METHOD(cuda, hip) cuda " chains"
#else
#define FMA_METHOD(cuda, hip) hip " chains"
#endif
static const struct kind_info kinds[] = {
    {"f32", "fp32", FMA_METHOD("fma.rn.f32", "fp32 pair (v_pk_fma_f32 on CDNA2/3)"), BENCH_F32, 2, 24,
     rate_f32},
    {"f64", "fp64", FMA_METHOD("fma.rn.f64", "v_fma_f64"), BENCH_F64, 1, 53, rate_f64},
    {"f16", "fp16", FMA_METHOD("fma.rn.f16x2", "v_pk_fma_f16"), BENCH_F16, 2, 11, rate_f16},
    {"bf16", "bf16", FMA_METHOD("fma.rn.bf16x2", "bf16x2"), BENCH_BF16, 2, 8, rate_bf16},
};

struct peak {
  struct hipb_ctx *ctx;
  const struct kind_info *kind;
  int k, passes;
  unsigned blocks;
  size_t values; /* scalars of x0 and of out */
  struct hipb_buf x0, consts, out;
};

/* The lowest start: -2^P where the range is short (fp16, bf16), else 0. */
static double base_of(const struct kind_info *ki) { return ki->bits < 24 ? -ldexp(1.0, ki->bits) : 0; }

/* The start of scalar e: the base + (0..15), the 4 top bits of a hash of e. */
static double start_of(const struct kind_info *ki, int64_t e) {
  return base_of(ki) + (double)(((uint32_t)e * 2654435761u) >> 28);
}

/* A host double (an integer of at most 2^P) in the element type. */
static void put(enum bench_dtype t, void *p, size_t i, double v) {
  switch (t) {
  case BENCH_F32: ((float *)p)[i] = (float)v; break;
  case BENCH_F64: ((double *)p)[i] = v; break;
  case BENCH_F16: ((uint16_t *)p)[i] = hipb_from_f32<hipb_f16>((float)v).bits; break;
  default: ((uint16_t *)p)[i] = hipb_from_f32<hipb_bf16>((float)v).bits; break;
  }
}

static int ref_fn(const struct bench_host *h, void *user, int64_t start, int64_t n, double *dst) {
  (void)h;
  const struct peak *s = (const struct peak *)user;
  for (int64_t i = 0; i < n; i++) dst[i] = start_of(s->kind, start + i) + s->passes;
  return BENCH_OK;
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct peak *s = (struct peak *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_peak_require(h));
  HIPB_TRY(hipb_setup(h, s->ctx));
  const char *dtype = h->param_str(h, "dtype");
  for (int i = 0; i < 4; i++)
    if (strcmp(dtype, kinds[i].dtype) == 0) s->k = i;
  s->kind = &kinds[s->k];
  const struct kind_info *ki = s->kind;
  const int64_t chain = h->param_int(h, "chain");
  if (chain % FMA_BODY != 0)
    return h->fail(h, "chain %lld: not a multiple of %d (the FMAs of one pass)", (long long)chain,
                   FMA_BODY);
  s->passes = (int)(chain / FMA_BODY);
  /* the largest value: base + 15 + (passes - 1) + 31 <= 2^P */
  const int64_t max_passes = (int64_t)(ldexp(1.0, ki->bits) - base_of(ki)) - 45;
  if (s->passes > max_passes)
    return h->skip(h, "chain %lld: %s stays exact (integers of at most 2^%d) up to %lld FMAs a chain",
                   (long long)chain, ki->dtype, ki->bits, (long long)(max_passes * FMA_BODY));
  if (s->k == FMA_BF16 && !FMA_HAS_BF16)
    return h->skip(h, "%s has no bf16 FMA in its vector ALU (AMD has bf16 only in dot and matrix "
                      "instructions on the targets built: gfx90a, gfx94x, gfx10, gfx11)",
                   s->ctx->arch);

  const int cus = s->ctx->prop.multiProcessorCount > 0 ? s->ctx->prop.multiProcessorCount : 1;
  s->blocks = (unsigned)(cus * h->param_int(h, "blocks_per_cu"));
  const size_t threads = (size_t)s->blocks * HIPB_PEAK_THREADS;
  s->values = threads * FMA_CHAINS * ki->lanes;
  HIPB_TRY(hipb_output(h, &s->x0, s->values, ki->t));
  HIPB_TRY(hipb_output(h, &s->consts, 3 * (size_t)ki->lanes, ki->t));
  HIPB_TRY(hipb_output(h, &s->out, s->values, ki->t));
  for (size_t e = 0; e < s->values; e++) put(ki->t, s->x0.host, e, start_of(ki, (int64_t)e));
  for (int l = 0; l < ki->lanes; l++) {
    put(ki->t, s->consts.host, 0 * ki->lanes + l, 1.0);                /* a */
    put(ki->t, s->consts.host, 1 * ki->lanes + l, 1.0);                /* b */
    put(ki->t, s->consts.host, 2 * ki->lanes + l, -(FMA_BODY - 2.0)); /* c */
  }
  HIPB_TRY(hipb_peak_upload(h, &s->x0));
  HIPB_TRY(hipb_peak_upload(h, &s->consts));

  h->set_work(h, 2.0 * ki->lanes * FMA_CHAINS * (double)chain * (double)threads, 0);
  char how[160];
  const double sheet = hipb_peak_datasheet(s->ctx, ki->rate, how, sizeof how);
  return hipb_peak_roof(h, BENCH_ROOF_COMPUTE, ki->roof, ki->method, 0, sheet, how);
}

template <int K> static int launch(const struct bench_host *h, struct peak *s) {
  typedef typename fma_type<K>::V V;
  HIPB_LAUNCH(h, peak_fma<K>, dim3(s->blocks), dim3(HIPB_PEAK_THREADS), 0, s->ctx->stream,
              (const V *)s->x0.dev, (const V *)s->consts.dev, (V *)s->out.dev, s->passes);
  return BENCH_OK;
}

static int (*const launches[4])(const struct bench_host *, struct peak *) = {
    launch<FMA_F32>, launch<FMA_F64>, launch<FMA_F16>, launch<FMA_BF16>};

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct peak *s = (struct peak *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) HIPB_TRY(launches[s->k](h, s));
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct peak *s = (struct peak *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->out));
  return hipb_peak_compare(h, "chain ends", s->kind->t, s->out.host, (int64_t)s->values, ref_fn, s);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct peak *s = (struct peak *)state;
  hipb_free(&s->x0);
  hipb_free(&s->consts);
  hipb_free(&s->out);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("peak_fma"),
    .backend = HIPB_BACKEND,
    .operation = "peak",
    .description = "vector FMA peak (fp32, fp64, fp16, bf16): independent FMA chains, every "
                   "chain's end checked exactly",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
