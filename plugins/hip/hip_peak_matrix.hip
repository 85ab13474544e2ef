/* hip_peak_matrix: the matrix cores' peak (roofs fp16_matrix and
 * bf16_matrix: f16 or bf16 inputs, fp32 accumulation), one variant per
 * instruction family; a device without the family is SKIPPED with the
 * reason:
 *   mma    NVIDIA sm_80+: mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}
 *          (a warp; 8 accumulators of 4 values a thread)
 *   wgmma  NVIDIA sm_90a (H100, H200): wgmma.mma_async m64n256k16, A from
 *          registers, B from shared memory (a warpgroup of 128 threads; one
 *          accumulator of 128 values a thread). Only sm_90a code has it:
 *          plugins/cuda builds this plugin for sm_90a in place of sm_90
 *          (CUDA 12 and newer); the kernel peak_mx_families tells at run
 *          time which families the loaded code holds
 *   mfma   AMD CDNA2/3 (gfx90a, gfx940/941/942): v_mfma_f32_32x32x8f16,
 *          v_mfma_f32_32x32x8bf16_1k (a wave of 64; 4 accumulators of 16)
 *   wmma   AMD RDNA3 (gfx11): v_wmma_f32_16x16x16_{f16,bf16} (a wave of 32;
 *          4 accumulators of 8). Compiled for gfx11 targets only, which need
 *          ROCm >= 6: Debian's ROCm 5.2 builds none, so the build here has
 *          no wmma code (tests/hip/t_peak.py compiles it to LLVM IR)
 * Every lane of A holds alpha = 1 and of B beta = 2 (read from device
 * memory), so each instruction adds exactly K x alpha x beta (K its depth:
 * 16, or 8 for mfma) to every accumulator element whatever the fragment
 * layout, and the accumulators start from small integers read from memory
 * (C0 in [-32, 31]); after `chain` instructions on an accumulator each of
 * its values is C0 + chain x 2K, an integer below 2^21: exact in fp32 (also
 * under the tensor cores' truncating alignment), so verify compares every
 * value the kernel writes exactly. The loop runs the accumulators' chains
 * (each instruction reads the accumulator the last one wrote: nothing to
 * hoist) and writes every accumulator at the end (nothing dead: clpeak's
 * chained results were dropped by the compiler). A pass is MX_UNROLL
 * instructions per accumulator; chain is a multiple of it.
 * flops = 2 x M x N x K x instructions.
 *
 * Datasheet: SMs/CUs x dense f16/bf16 matrix FLOP per clock per SM/CU (the
 * table below) x the clock-rate attribute; 0 for an arch not in it. */
#include <stdlib.h>
#include <string.h>

#include "hipb_peak.h"

#define MX_UNROLL 8

/* RDNA3's WMMA (wave32 builtins of ROCm >= 6's clang). */
#if defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1103__) || \
    defined(__gfx1150__) || defined(__gfx1151__)
#define MX_DEVICE_WMMA 1
#endif

static const struct bench_param params[] = {
    {.name = "variant", .type = BENCH_PARAM_STRING,
     .description = "instruction family: mma (NVIDIA mma.sync, sm_80+), wgmma (NVIDIA sm_90a), "
                    "mfma (AMD CDNA2/3), wmma (AMD RDNA3)",
     .choices = "mma,wgmma,mfma,wmma", .min = 0, .max = 0, .zip = 0,
     .defaults = {"mma,wgmma,mfma,wmma", "mma,wgmma,mfma,wmma", "mma,wgmma,mfma,wmma",
                  "mma,wgmma,mfma,wmma"}},
    {.name = "dtype", .type = BENCH_PARAM_STRING, .description = "input type (fp32 accumulation)",
     .choices = "f16,bf16", .min = 0, .max = 0, .zip = 0,
     .defaults = {"f16,bf16", "f16,bf16", "f16,bf16", "f16,bf16"}},
    {.name = "chain", .type = BENCH_PARAM_INT,
     .description = "instructions on each accumulator, a multiple of 8",
     .choices = NULL, .min = 8, .max = 65536, .zip = 0,
     .defaults = {"256", "4096", "16384", "8,24"}},
    {.name = "blocks_per_cu", .type = BENCH_PARAM_INT,
     .description = "blocks of 256 threads per SM/CU", .choices = NULL, .min = 1, .max = 1024,
     .zip = 0, .defaults = {"1", "2", "4", "1"}},
    HIPB_PARAM_FLUSH_L2,
    {.name = NULL},
};

/* Dense f16/bf16 matrix FLOP per clock per SM/CU (fp32 accumulation):
 *   sm_80    A100: 312 TFLOP/s, 108 SMs at 1410 MHz (NVIDIA A100 whitepaper)
 *   sm_90    H100 SXM: 989.4 TFLOP/s dense, 132 SMs; 4096 FLOP/clk/SM, 2x
 *            A100's per SM (NVIDIA H100 whitepaper); NVIDIA's figure is at
 *            1830 MHz, the clock-rate attribute says 1980 MHz (1070 TFLOP/s)
 *   gfx90a   MI250X: 383 TFLOP/s, 220 CUs at 1700 MHz (AMD MI250X data sheet)
 *   gfx94x   MI300X: 1307.4 TFLOP/s, 304 CUs at 2100 MHz (AMD MI300X data
 *            sheet)
 *   gfx11    RX 7900 XTX: 122.8 TFLOP/s fp16, 96 CUs at 2500 MHz (AMD) */
static const struct hipb_peak_rate rate_matrix[] = {
    {"sm_80", 2048}, {"sm_90", 4096}, {"gfx90a", 1024}, {"gfx940", 2048},
    {"gfx941", 2048}, {"gfx942", 2048}, {"gfx110*", 512}, {"gfx115*", 512}, {NULL, 0}};

enum mx_family { MX_MMA, MX_WGMMA, MX_MFMA, MX_WMMA };

/* ---- mma.sync (NVIDIA sm_80+) ----------------------------------------- */

#define MMA_ACC 8  /* accumulators a warp */
#define MMA_VALS 4 /* values a thread in each */

template <bool BF16> __device__ inline void mx_mma(float (&d)[MMA_VALS], uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %4, %4, %4}, {%5, %5}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a), "r"(b));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %4, %4, %4}, {%5, %5}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a), "r"(b));
#else
  (void)d, (void)a, (void)b;
#endif
}

/* c0, out: value r of accumulator j of thread t at (j x VALS + r) x threads + t;
 * ab: the alpha and beta words (two 16-bit values each). */
template <bool BF16>
__global__ __launch_bounds__(HIPB_PEAK_THREADS) void peak_mma(const uint32_t *__restrict__ ab,
                                                              const float *__restrict__ c0,
                                                              float *__restrict__ out, int passes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const size_t threads = (size_t)gridDim.x * HIPB_PEAK_THREADS;
  const size_t t = (size_t)blockIdx.x * HIPB_PEAK_THREADS + threadIdx.x;
  const uint32_t a = ab[0], b = ab[1];
  float d[MMA_ACC][MMA_VALS];
#pragma unroll
  for (int j = 0; j < MMA_ACC; j++)
#pragma unroll
    for (int r = 0; r < MMA_VALS; r++) d[j][r] = c0[(j * MMA_VALS + r) * threads + t];
#pragma unroll 1
  for (int p = 0; p < passes; p++)
#pragma unroll
    for (int u = 0; u < MX_UNROLL; u++)
#pragma unroll
      for (int j = 0; j < MMA_ACC; j++) mx_mma<BF16>(d[j], a, b);
#pragma unroll
  for (int j = 0; j < MMA_ACC; j++)
#pragma unroll
    for (int r = 0; r < MMA_VALS; r++) out[(j * MMA_VALS + r) * threads + t] = d[j][r];
#else
  (void)ab, (void)c0, (void)out, (void)passes;
#endif
}

/* ---- wgmma (NVIDIA sm_90a) --------------------------------------------- */

#define WG_VALS 128            /* m64n256 fp32 accumulator: 128 values a thread */
#define WG_SMEM_WORDS 8192     /* 32 KiB of beta: more than any B tile the descriptor spans */

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), \
                 "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define WG_D128 WG_D8(0), WG_D8(8), WG_D8(16), WG_D8(24), WG_D8(32), WG_D8(40), WG_D8(48), \
                WG_D8(56), WG_D8(64), WG_D8(72), WG_D8(80), WG_D8(88), WG_D8(96), WG_D8(104), \
                WG_D8(112), WG_D8(120)
#define WG_REGS                                                                             \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                 \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "        \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "        \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "        \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "        \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "        \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "  \
  "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "    \
  "%125, %126, %127}"
/* d += A (registers: every value a) x B (the descriptor's shared memory),
 * A and B not scaled, B not transposed. */
#define WG_MMA(TYPE)                                                                        \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                                \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE " " WG_REGS     \
               ", {%128, %129, %130, %131}, %132, p, 1, 1, 0;\n}\n"                         \
               : WG_D128                                                                    \
               : "r"(a), "r"(a), "r"(a), "r"(a), "l"(desc), "r"(1))

/* A shared-memory matrix descriptor without swizzling: start address,
 * leading and stride byte offsets (>> 4 each). Every B value is beta, so
 * which core matrices it names does not matter as long as they lie in the
 * buffer (at most 16 x 256 + 3 x 128 bytes from its start). */
__device__ inline uint64_t wg_desc(const void *smem) {
  const uint64_t addr = (uint64_t)__cvta_generic_to_shared(smem);
  return ((addr & 0x3ffff) >> 4) | ((uint64_t)(128 >> 4) << 16) | ((uint64_t)(256 >> 4) << 32);
}
#endif

template <bool BF16>
__global__ __launch_bounds__(HIPB_PEAK_THREADS) void peak_wgmma(const uint32_t *__restrict__ ab,
                                                                const float *__restrict__ c0,
                                                                float *__restrict__ out,
                                                                int passes) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ alignas(128) uint32_t bsm[WG_SMEM_WORDS];
  const size_t threads = (size_t)gridDim.x * HIPB_PEAK_THREADS;
  const size_t t = (size_t)blockIdx.x * HIPB_PEAK_THREADS + threadIdx.x;
  const uint32_t a = ab[0];
  for (int i = threadIdx.x; i < WG_SMEM_WORDS; i += HIPB_PEAK_THREADS) bsm[i] = ab[1];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* seen by wgmma's proxy */
  __syncthreads();
  const uint64_t desc = wg_desc(bsm);
  float d[WG_VALS];
#pragma unroll
  for (int r = 0; r < WG_VALS; r++) d[r] = c0[r * threads + t];
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll 1
  for (int p = 0; p < passes; p++) {
#pragma unroll
    for (int u = 0; u < MX_UNROLL; u++) {
      if constexpr (BF16)
        WG_MMA("bf16");
      else
        WG_MMA("f16");
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
  for (int r = 0; r < WG_VALS; r++) out[r * threads + t] = d[r];
#else
  (void)ab, (void)c0, (void)out, (void)passes;
#endif
}

/* ---- mfma (AMD CDNA2/3) ------------------------------------------------ */

#define MF_ACC 4   /* accumulators a wave */
#define MF_VALS 16 /* 32x32 fp32 over 64 lanes */

/* Four 16-bit values, the low half of x first. */
struct alignas(8) mx_u2 {
  uint32_t x, y;
};

#if defined(HIPB_DEVICE_MFMA) && !defined(__HIP_CPU_RT__)
typedef float mf_acc __attribute__((ext_vector_type(MF_VALS)));
typedef _Float16 mf_half4 __attribute__((ext_vector_type(4)));
typedef short mf_short4 __attribute__((ext_vector_type(4)));
template <bool BF16> __device__ inline mf_acc mx_mfma(mf_acc c, mx_u2 a, mx_u2 b) {
  if constexpr (BF16)
    return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(__builtin_bit_cast(mf_short4, a),
                                                    __builtin_bit_cast(mf_short4, b), c, 0, 0, 0);
  else
    return __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(mf_half4, a),
                                                __builtin_bit_cast(mf_half4, b), c, 0, 0, 0);
}
#define MF_BUILT 1
#elif defined(__HIP_CPU_RT__) && HIPB_HIPCPU_WAVE != 32
/* HIP-CPU (standing for CDNA): each value gains the sum of the 8 products
 * of its row of A and column of B, which with uniform A and B are every
 * lane's a and b values */
struct mf_acc {
  float v[MF_VALS];
  float &operator[](int i) { return v[i]; }
};
template <bool BF16> inline mf_acc mx_mfma(mf_acc c, mx_u2 a, mx_u2 b) {
  const uint32_t aw[2] = {a.x, a.y}, bw[2] = {b.x, b.y};
  float sum = 0;
  for (int k = 0; k < 8; k++) {
    const uint16_t ak = (uint16_t)(aw[(k % 4) / 2] >> (16 * (k % 2))),
                   bk = (uint16_t)(bw[(k % 4) / 2] >> (16 * (k % 2)));
    sum += BF16 ? hipb_to_f32(hipb_bf16{ak}) * hipb_to_f32(hipb_bf16{bk})
                : hipb_to_f32(hipb_f16{ak}) * hipb_to_f32(hipb_f16{bk});
  }
  for (int r = 0; r < MF_VALS; r++) c[r] += sum;
  return c;
}
#define MF_BUILT 1
#endif

template <bool BF16>
__global__ __launch_bounds__(HIPB_PEAK_THREADS) void peak_mfma(const uint32_t *__restrict__ ab,
                                                               const float *__restrict__ c0,
                                                               float *__restrict__ out, int passes) {
#if defined(MF_BUILT)
  const size_t threads = (size_t)gridDim.x * HIPB_PEAK_THREADS;
  const size_t t = (size_t)blockIdx.x * HIPB_PEAK_THREADS + threadIdx.x;
  const mx_u2 a{ab[0], ab[0]}, b{ab[1], ab[1]};
  mf_acc acc[MF_ACC];
#pragma unroll
  for (int j = 0; j < MF_ACC; j++)
#pragma unroll
    for (int r = 0; r < MF_VALS; r++) acc[j][r] = c0[(j * MF_VALS + r) * threads + t];
#pragma unroll 1
  for (int p = 0; p < passes; p++)
#pragma unroll
    for (int u = 0; u < MX_UNROLL; u++)
#pragma unroll
      for (int j = 0; j < MF_ACC; j++) acc[j] = mx_mfma<BF16>(acc[j], a, b);
#pragma unroll
  for (int j = 0; j < MF_ACC; j++)
#pragma unroll
    for (int r = 0; r < MF_VALS; r++) out[(j * MF_VALS + r) * threads + t] = acc[j][r];
#else
  (void)ab, (void)c0, (void)out, (void)passes;
#endif
}

/* ---- wmma (AMD RDNA3, gfx11) ------------------------------------------- */

#define WM_ACC 4  /* accumulators a wave */
#define WM_VALS 8 /* 16x16 fp32 over 32 lanes */

#if defined(MX_DEVICE_WMMA) && !defined(__HIP_CPU_RT__)
typedef float wm_acc __attribute__((ext_vector_type(WM_VALS)));
typedef _Float16 wm_half16 __attribute__((ext_vector_type(16)));
typedef short wm_short16 __attribute__((ext_vector_type(16)));
struct wm_frag {
  uint32_t w[8]; /* 16 16-bit values */
};
template <bool BF16> __device__ inline wm_acc mx_wmma(wm_acc c, wm_frag a, wm_frag b) {
  if constexpr (BF16)
    return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(__builtin_bit_cast(wm_short16, a),
                                                       __builtin_bit_cast(wm_short16, b), c);
  else
    return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(__builtin_bit_cast(wm_half16, a),
                                                      __builtin_bit_cast(wm_half16, b), c);
}
#define WM_BUILT 1
#elif defined(__HIP_CPU_RT__) && HIPB_HIPCPU_WAVE == 32
/* HIP-CPU's wave32 run (standing for RDNA): the sum of the 16 products */
struct wm_acc {
  float v[WM_VALS];
  float &operator[](int i) { return v[i]; }
};
struct wm_frag {
  uint32_t w[8];
};
template <bool BF16> inline wm_acc mx_wmma(wm_acc c, wm_frag a, wm_frag b) {
  float sum = 0;
  for (int k = 0; k < 16; k++) {
    const uint16_t ak = (uint16_t)(a.w[k / 2] >> (16 * (k % 2))),
                   bk = (uint16_t)(b.w[k / 2] >> (16 * (k % 2)));
    sum += BF16 ? hipb_to_f32(hipb_bf16{ak}) * hipb_to_f32(hipb_bf16{bk})
                : hipb_to_f32(hipb_f16{ak}) * hipb_to_f32(hipb_f16{bk});
  }
  for (int r = 0; r < WM_VALS; r++) c[r] += sum;
  return c;
}
#define WM_BUILT 1
#endif

template <bool BF16>
__global__ __launch_bounds__(HIPB_PEAK_THREADS) void peak_wmma(const uint32_t *__restrict__ ab,
                                                               const float *__restrict__ c0,
                                                               float *__restrict__ out, int passes) {
#if defined(WM_BUILT)
  const size_t threads = (size_t)gridDim.x * HIPB_PEAK_THREADS;
  const size_t t = (size_t)blockIdx.x * HIPB_PEAK_THREADS + threadIdx.x;
  wm_frag a, b;
  for (int i = 0; i < 8; i++) a.w[i] = ab[0], b.w[i] = ab[1];
  wm_acc acc[WM_ACC];
#pragma unroll
  for (int j = 0; j < WM_ACC; j++)
#pragma unroll
    for (int r = 0; r < WM_VALS; r++) acc[j][r] = c0[(j * WM_VALS + r) * threads + t];
#pragma unroll 1
  for (int p = 0; p < passes; p++)
#pragma unroll
    for (int u = 0; u < MX_UNROLL; u++)
#pragma unroll
      for (int j = 0; j < WM_ACC; j++) acc[j] = mx_wmma<BF16>(acc[j], a, b);
#pragma unroll
  for (int j = 0; j < WM_ACC; j++)
#pragma unroll
    for (int r = 0; r < WM_VALS; r++) out[(j * WM_VALS + r) * threads + t] = acc[j][r];
#else
  (void)ab, (void)c0, (void)out, (void)passes;
#endif
}

/* ---- which families the loaded code has -------------------------------- */

/* Bit f set: family f's kernels hold real code in the code object the
 * device runs (the driver's choice among the build's targets). */
__global__ void peak_mx_families(int *bits) {
  int b = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  b |= 1 << MX_MMA;
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  b |= 1 << MX_WGMMA;
#endif
#if defined(MF_BUILT)
  b |= 1 << MX_MFMA;
#endif
#if defined(WM_BUILT)
  b |= 1 << MX_WMMA;
#endif
  if (threadIdx.x == 0) bits[0] = b;
}

/* ---- the case ---------------------------------------------------------- */

struct family {
  const char *name, *insn_f16, *insn_bf16;
  int m, n, k;
  int unit;        /* threads that run one instruction */
  int vals;        /* accumulator values a thread (all its accumulators) */
  int accs;        /* accumulators a unit */
  const char *why; /* what the family needs, for the SKIP */
};
static const struct family families[] = {
    {"mma", "mma.sync m16n8k16 f16", "mma.sync m16n8k16 bf16", 16, 8, 16, 32, MMA_ACC * MMA_VALS,
     MMA_ACC, "an NVIDIA GPU of sm_80 or newer (mma.sync m16n8k16)"},
    {"wgmma", "wgmma m64n256k16 f16", "wgmma m64n256k16 bf16", 64, 256, 16, 128, WG_VALS, 1,
     "an NVIDIA sm_90 GPU (H100, H200) running this build's sm_90a code (wgmma.mma_async)"},
    {"mfma", "v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8bf16_1k", 32, 32, 8, 64, MF_ACC * MF_VALS,
     MF_ACC, "AMD CDNA matrix cores (gfx90a, gfx940, gfx941, gfx942)"},
    {"wmma", "v_wmma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_bf16", 16, 16, 16, 32,
     WM_ACC * WM_VALS, WM_ACC, "AMD RDNA3 WMMA (gfx11), built with ROCm >= 6"},
};

struct peak {
  struct hipb_ctx *ctx;
  int fam, bf16, passes;
  unsigned blocks;
  double gain; /* what one instruction adds to each value: K x alpha x beta */
  struct hipb_buf ab, c0, out;
};

static float start_of(int64_t e) { return (float)((e * 37) % 64 - 32); }

static int ref_fn(const struct bench_host *h, void *user, int64_t start, int64_t n, double *dst) {
  (void)h;
  const struct peak *s = (const struct peak *)user;
  for (int64_t i = 0; i < n; i++)
    dst[i] = start_of(start + i) + (double)s->passes * MX_UNROLL * s->gain;
  return BENCH_OK;
}

/* Does the device's code have family f? BENCH_OK and *has. */
static int probe(const struct bench_host *h, struct peak *s, int *has) {
  int *bits = NULL, got = 0;
  HIPB_CHECK(h, hipMalloc(&bits, sizeof *bits));
  hipLaunchKernelGGL(peak_mx_families, dim3(1), dim3(64), 0, s->ctx->stream, bits);
  hipError_t err = hipGetLastError();
  if (err == hipSuccess) err = hipStreamSynchronize(s->ctx->stream);
  if (err == hipSuccess) err = hipMemcpy(&got, bits, sizeof got, hipMemcpyDeviceToHost);
  (void)hipFree(bits);
  if (err != hipSuccess) return hipb_error(h, err, "peak_mx_families", __FILE__, __LINE__);
  *has = (got >> s->fam) & 1;
  return BENCH_OK;
}

static int setup(const struct bench_host *h, void *ctx, void **state) {
  struct peak *s = (struct peak *)calloc(1, sizeof *s);
  if (!s) return h->fail(h, "out of memory");
  *state = s;
  s->ctx = (struct hipb_ctx *)ctx;
  HIPB_TRY(hipb_peak_require(h));
  HIPB_TRY(hipb_setup(h, s->ctx));
  const char *variant = h->param_str(h, "variant");
  for (int i = 0; i < 4; i++)
    if (strcmp(variant, families[i].name) == 0) s->fam = i;
  const struct family *f = &families[s->fam];
  s->bf16 = strcmp(h->param_str(h, "dtype"), "bf16") == 0;
  int has = 0;
  HIPB_TRY(probe(h, s, &has));
  if (!has)
    return h->skip(h, "variant %s needs %s; device %s (%s) has none in this build (built for %s)",
                   f->name, f->why, s->ctx->prop.name, s->ctx->arch, HIPB_BUILT_ARCHS);
  const int64_t chain = h->param_int(h, "chain");
  if (chain % MX_UNROLL != 0)
    return h->fail(h, "chain %lld: not a multiple of %d (the instructions of one pass)",
                   (long long)chain, MX_UNROLL);
  s->passes = (int)(chain / MX_UNROLL);

  const int cus = s->ctx->prop.multiProcessorCount > 0 ? s->ctx->prop.multiProcessorCount : 1;
  s->blocks = (unsigned)(cus * h->param_int(h, "blocks_per_cu"));
  const size_t threads = (size_t)s->blocks * HIPB_PEAK_THREADS, values = threads * f->vals;
  const enum bench_dtype t = s->bf16 ? BENCH_BF16 : BENCH_F16;
  HIPB_TRY(hipb_output(h, &s->ab, 4, t)); /* alpha alpha beta beta */
  HIPB_TRY(hipb_output(h, &s->c0, values, BENCH_F32));
  HIPB_TRY(hipb_output(h, &s->out, values, BENCH_F32));
  uint16_t *ab = (uint16_t *)s->ab.host;
  const float alpha = 1, beta = 2;
  ab[0] = ab[1] = s->bf16 ? hipb_from_f32<hipb_bf16>(alpha).bits : hipb_from_f32<hipb_f16>(alpha).bits;
  ab[2] = ab[3] = s->bf16 ? hipb_from_f32<hipb_bf16>(beta).bits : hipb_from_f32<hipb_f16>(beta).bits;
  s->gain = f->k * alpha * beta;
  for (size_t e = 0; e < values; e++) ((float *)s->c0.host)[e] = start_of((int64_t)e);
  HIPB_TRY(hipb_peak_upload(h, &s->ab));
  HIPB_TRY(hipb_peak_upload(h, &s->c0));

  const double units = (double)threads / f->unit;
  h->set_work(h, 2.0 * f->m * f->n * f->k * units * f->accs * (double)chain, 0);
  char how[160];
  const double sheet = hipb_peak_datasheet(s->ctx, rate_matrix, how, sizeof how);
  return hipb_peak_roof(h, BENCH_ROOF_COMPUTE, s->bf16 ? "bf16_matrix" : "fp16_matrix",
                        s->bf16 ? f->insn_bf16 : f->insn_f16, 0, sheet, how);
}

template <bool BF16> static int launch(const struct bench_host *h, struct peak *s) {
  const dim3 grid(s->blocks), block(HIPB_PEAK_THREADS);
  const uint32_t *ab = (const uint32_t *)s->ab.dev;
  const float *c0 = (const float *)s->c0.dev;
  float *out = (float *)s->out.dev;
  hipStream_t st = s->ctx->stream;
  switch (s->fam) {
  case MX_MMA: HIPB_LAUNCH(h, peak_mma<BF16>, grid, block, 0, st, ab, c0, out, s->passes); break;
  case MX_WGMMA: HIPB_LAUNCH(h, peak_wgmma<BF16>, grid, block, 0, st, ab, c0, out, s->passes); break;
  case MX_MFMA: HIPB_LAUNCH(h, peak_mfma<BF16>, grid, block, 0, st, ab, c0, out, s->passes); break;
  default: HIPB_LAUNCH(h, peak_wmma<BF16>, grid, block, 0, st, ab, c0, out, s->passes); break;
  }
  return BENCH_OK;
}

/* n iterations between two events, one wait (run: n = 1). */
static int run_batch(const struct bench_host *h, void *state, int64_t n) {
  struct peak *s = (struct peak *)state;
  HIPB_TRY(hipb_begin(h, s->ctx));
  for (int64_t i = 0; i < n; i++) HIPB_TRY(s->bf16 ? launch<true>(h, s) : launch<false>(h, s));
  return hipb_end(h, s->ctx);
}

static int run(const struct bench_host *h, void *state) { return run_batch(h, state, 1); }

static int verify(const struct bench_host *h, void *state) {
  struct peak *s = (struct peak *)state;
  HIPB_TRY(hipb_download(h, s->ctx, &s->out));
  return hipb_peak_compare(h, "accumulators", BENCH_F32, s->out.host, (int64_t)s->out.count,
                           ref_fn, s);
}

static void teardown(const struct bench_host *h, void *state) {
  (void)h;
  struct peak *s = (struct peak *)state;
  hipb_free(&s->ab);
  hipb_free(&s->c0);
  hipb_free(&s->out);
  free(s);
}

HIPB_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = HIPB_NAME("peak_matrix"),
    .backend = HIPB_BACKEND,
    .operation = "peak",
    .description = "matrix-core peak (f16, bf16 in, fp32 accumulate): mma.sync, wgmma, mfma, wmma "
                   "chains, every accumulator checked exactly",
    .params = params,
    .init = hipb_init,
    .deinit = hipb_deinit,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
    .run_batch = run_batch,
};
