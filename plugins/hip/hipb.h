/* hipb: what every HIP plugin shares, so that a kernel file reads top to
 * bottom (parameters, kernel, setup, run, verify, teardown).
 *
 *   errors   HIPB_CHECK(host, call) returns host->fail() with the failing
 *            call, its error name and string, file and line;
 *            HIPB_LAUNCH(host, (kernel<T>), grid, block, lds, stream, args...)
 *            launches and checks the launch the same way.
 *   device   hipb_init()/hipb_deinit() are a plugin's init/deinit: no device
 *            (hipGetDeviceCount fails or finds none) is a SKIP with the
 *            reason; a device whose architecture this build has no code
 *            object for is a SKIP that says how to rebuild. The device's
 *            facts go to the result header through host->set_info.
 *   timing   hipb_begin()/hipb_end() bracket one iteration with hipEvents on
 *            the plugin's stream and report the interval with
 *            host->set_device_time; with the flush_l2 parameter set,
 *            hipb_begin first writes a buffer larger than the caches
 *            (outside the timed interval). A plugin's run_batch(n) brackets
 *            n iterations' launches the same way: one wait, the device time
 *            of the whole batch (the harness divides by n):
 *              static int run_batch(h, state, n) {
 *                HIPB_TRY(hipb_begin(h, s->ctx));
 *                for (int64_t i = 0; i < n; i++) HIPB_LAUNCH(h, kernel, ...);
 *                return hipb_end(h, s->ctx);
 *              }
 *              static int run(h, state) { return run_batch(h, state, 1); }
 *   staging  struct hipb_buf: a host copy and a device copy; inputs come
 *            from host->fill_random (the same on every backend), outputs are
 *            poisoned with NaN so an element a kernel forgot to write fails
 *            the check, and are read back for host->check.
 *   entry    HIPB_PLUGIN_DEFINE = {...}: BENCH_PLUGIN_DEFINE in the host
 *            pass; in the device passes an unused static copy (clang would
 *            make the exported const struct a device variable too, and the
 *            device link cannot resolve host functions).
 *   kernels  element types (f32, f16, bf16 as raw bits) with fp32
 *            conversions, wave64 reductions with __shfl_xor.
 *
 * Installed with bench as <bench/hipb.h> and libbench-hip.a (hipcc-built
 * for the targets in `pkg-config --variable=offload_arch_flags bench-hip`):
 * a plugin outside this tree builds with
 *   hipcc $(pkg-config --variable=offload_arch_flags bench-hip) -O3 -fPIC -shared \
 *     $(pkg-config --cflags bench-hip) my.hip -o my.so $(pkg-config --libs bench-hip)
 * (share/bench/examples/hip is a complete one).
 *
 * Written for CDNA GPUs (gfx90a MI200, gfx940/941/942 MI300; gfx908 MI100
 * without the MFMA GEMM): 64-lane waves. RDNA (wave32 only under HIP) is
 * refused at configure time.
 *
 * The same sources also build against the HIP-CPU runtime (a header-only
 * HIP for the CPU, __HIP_CPU_RT__): the hip.hipcpu test runs every kernel on
 * the host that way, to check the kernels' logic without a GPU. */
#ifndef HIPB_H
#define HIPB_H

#include <hip/hip_runtime.h>

#include <stddef.h>
#include <stdint.h>

#include "bench/dtype.h"
#include "bench/params.h"
#include "bench/plugin.h"

#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != 64
#error "the hip plugins are written for 64-lane waves (CDNA GPUs)"
#endif
#define HIPB_WAVE 64

#if defined(__HIP_CPU_RT__)
#include <math.h>
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); } /* missing from HIP-CPU */
#endif

/* Matrix cores (MFMA with the f16 and bf16_1k builtins): CDNA2 and CDNA3. */
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define HIPB_DEVICE_MFMA 1
#endif

/* Architectures this build has code objects for, "gfx90a,gfx940" (set by
 * plugins/hip/CMakeLists.txt from BENCH_HIP_ARCHS). */
#ifndef HIPB_BUILT_ARCHS
#define HIPB_BUILT_ARCHS ""
#endif

#if defined(__HIP_DEVICE_COMPILE__)
#define HIPB_PLUGIN_DEFINE [[maybe_unused]] static const struct bench_plugin hipb_plugin_device_pass_
#else
#define HIPB_PLUGIN_DEFINE BENCH_PLUGIN_DEFINE
#endif

/* ---- errors ---------------------------------------------------------- */

/* host->fail("hipMalloc(&p, n): hipErrorOutOfMemory (out of memory) at
 * hip_gemm.hip:120"); returns BENCH_ERROR. */
int hipb_error(const struct bench_host *h, hipError_t err, const char *call, const char *file,
               int line);

#define HIPB_CHECK(h, call)                                               \
  do {                                                                    \
    hipError_t hipb_err_ = (call);                                        \
    if (hipb_err_ != hipSuccess)                                          \
      return hipb_error((h), hipb_err_, #call, __FILE__, __LINE__);       \
  } while (0)

/* Launch, then check the launch (an asynchronous fault shows at hipb_end). */
#define HIPB_LAUNCH(h, kernel, grid, block, lds, stream, ...)                       \
  do {                                                                              \
    hipLaunchKernelGGL(kernel, grid, block, lds, stream, __VA_ARGS__);              \
    hipError_t hipb_err_ = hipGetLastError();                                       \
    if (hipb_err_ != hipSuccess)                                                    \
      return hipb_error((h), hipb_err_, "launch of " #kernel, __FILE__, __LINE__);  \
  } while (0)

/* Return a non-OK status of a helper. */
#define HIPB_TRY(expr)              \
  do {                              \
    int hipb_rc_ = (expr);          \
    if (hipb_rc_ != BENCH_OK)       \
      return hipb_rc_;              \
  } while (0)

/* ---- device, stream, timing ----------------------------------------- */

struct hipb_ctx {
  int device;
  hipDeviceProp_t prop;
  char arch[64];      /* gcnArchName without its feature flags: "gfx942" */
  int mfma;           /* the device has the MFMA builtins the kernels use */
  hipStream_t stream; /* created by hipb_setup */
  hipEvent_t start, stop;
  int flush_l2;       /* this case's flush_l2 parameter */
  void *flush_buf;
  size_t flush_bytes;
  uint32_t flush_seq;
};

/* A plugin's init and deinit. The device is BENCH_HIP_DEVICE (an index,
 * default 0) among those HIP sees (HIP_VISIBLE_DEVICES narrows them). */
int hipb_init(const struct bench_host *h, void **ctx);
void hipb_deinit(const struct bench_host *h, void *ctx);

/* From setup: the stream and events, and the flush buffer when the case's
 * flush_l2 parameter is 1 (every plugin declares HIPB_PARAM_FLUSH_L2). */
int hipb_setup(const struct bench_host *h, struct hipb_ctx *c);

/* From run: around the kernel launches of one iteration; from run_batch:
 * around those of n iterations (with flush_l2, the caches are flushed once,
 * before the batch: the harness times cold iterations with run()). hipb_end
 * waits for the stop event and reports the interval as the device time. */
int hipb_begin(const struct bench_host *h, struct hipb_ctx *c);
int hipb_end(const struct bench_host *h, struct hipb_ctx *c);

/* A block count for a grid-stride loop: blocks_per_cu blocks on every
 * compute unit, but no more than `needed`. */
unsigned hipb_grid_fill(const struct hipb_ctx *c, size_t needed, unsigned blocks_per_cu);

#define HIPB_PARAM_FLUSH_L2                                                            \
  {.name = "flush_l2", .type = BENCH_PARAM_INT,                                        \
   .description = "1: overwrite a buffer larger than the L2 and Infinity caches before " \
                  "each iteration, outside the timed interval (cold caches)",          \
   .choices = NULL, .min = 0, .max = 1, .zip = 0, .defaults = {"0", "0", "0", "0"}}

/* ---- element types and staging -------------------------------------- */

/* The dtype parameter: bench_param_dtype; names and sizes: bench_dtype_name
 * and bench_dtype_size; a size parameter: bench_param_size
 * (<bench/params.h>, <bench/dtype.h>: one grammar for every backend). */

/* The size of the copy, fill and vec_add plugins. */
#define HIPB_PARAM_SIZE(what)                                                                \
  BENCH_PARAM_SIZE("bytes per " what ", rounded up to whole fp32 elements: " BENCH_SIZE_EXAMPLES, \
                   "1MiB", "1GiB", "2GiB", "1000KiB,4096,16,4,12,1000004")

struct hipb_buf {
  void *host, *dev;
  size_t count, bytes;
  enum bench_dtype dtype;
};

/* count elements of dtype, random from fill_random(seed), on host and device. */
int hipb_input(const struct bench_host *h, struct hipb_buf *b, size_t count, enum bench_dtype t,
               uint64_t seed);
/* count elements of dtype on the device (poisoned with NaN) and host. */
int hipb_output(const struct bench_host *h, struct hipb_buf *b, size_t count, enum bench_dtype t);
/* Device copy back to the host copy (waits for the plugin's stream first). */
int hipb_download(const struct bench_host *h, struct hipb_ctx *c, struct hipb_buf *b);
void hipb_free(struct hipb_buf *b);

/* ---- device-side helpers -------------------------------------------- */

/* 16-bit floats travel as their bits. */
struct hipb_f16 {
  uint16_t bits;
};
struct hipb_bf16 {
  uint16_t bits;
};

__host__ __device__ inline float hipb_bits_f32(uint32_t u) { return __builtin_bit_cast(float, u); }
__host__ __device__ inline uint32_t hipb_f32_bits(float f) { return __builtin_bit_cast(uint32_t, f); }

__host__ __device__ inline float hipb_to_f32(float x) { return x; }
__host__ __device__ inline float hipb_to_f32(hipb_bf16 x) { return hipb_bits_f32((uint32_t)x.bits << 16); }
__host__ __device__ inline float hipb_to_f32(hipb_f16 x) {
#if defined(__HIP_DEVICE_COMPILE__)
  return (float)__builtin_bit_cast(_Float16, x.bits);
#else
  const uint32_t sign = (uint32_t)(x.bits & 0x8000u) << 16;
  uint32_t exp = (x.bits >> 10) & 0x1fu, man = x.bits & 0x3ffu;
  if (exp == 0x1f) return hipb_bits_f32(sign | 0x7f800000u | (man << 13)); /* inf, nan */
  if (exp == 0) {
    if (man == 0) return hipb_bits_f32(sign);
    /* subnormal: man * 2^-24 exactly */
    const float v = (float)man * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return hipb_bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
#endif
}

template <typename T> __host__ __device__ inline T hipb_from_f32(float x);
template <> __host__ __device__ inline float hipb_from_f32<float>(float x) { return x; }
template <> __host__ __device__ inline hipb_bf16 hipb_from_f32<hipb_bf16>(float x) {
  uint32_t u = hipb_f32_bits(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return hipb_bf16{(uint16_t)((u >> 16) | 0x40u)}; /* quiet nan */
  u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
  return hipb_bf16{(uint16_t)(u >> 16)};
}
template <> __host__ __device__ inline hipb_f16 hipb_from_f32<hipb_f16>(float x) {
#if defined(__HIP_DEVICE_COMPILE__)
  return hipb_f16{__builtin_bit_cast(uint16_t, (_Float16)x)};
#else
  const uint32_t u = hipb_f32_bits(x);
  const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  const uint32_t au = u & 0x7fffffffu;
  if (au > 0x7f800000u) return hipb_f16{(uint16_t)(sign | 0x7e00u)};
  if (au >= 0x477ff000u) return hipb_f16{(uint16_t)(sign | 0x7c00u)}; /* rounds to inf */
  if (au < 0x38800000u) { /* below 2^-14: subnormal half, man = round(|x| * 2^24) */
    const float v = hipb_bits_f32(au) * 16777216.0f; /* exact: a power of two */
    uint32_t m = (uint32_t)v;
    const float rem = v - (float)m;
    if (rem > 0.5f || (rem == 0.5f && (m & 1u))) m++;
    return hipb_f16{(uint16_t)(sign | m)};
  }
  uint32_t r = au + 0xfffu + ((au >> 13) & 1u); /* round the low 13 bits to nearest even */
  return hipb_f16{(uint16_t)(sign | (((r >> 13) - (112u << 10)) & 0x7fffu))};
#endif
}

/* Sum and max over the 64 lanes of a wave; every lane gets the result. */
__device__ inline float hipb_wave_sum(float v) {
#pragma unroll
  for (int o = HIPB_WAVE / 2; o > 0; o >>= 1) v += __shfl_xor(v, o, HIPB_WAVE);
  return v;
}
__device__ inline float hipb_wave_max(float v) {
#pragma unroll
  for (int o = HIPB_WAVE / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o, HIPB_WAVE));
  return v;
}

/* Sum and max over a block of BLOCK threads (a multiple of 64; every thread
 * must call it); every thread gets the result. scratch: BLOCK/64 floats of
 * LDS. Ends with a barrier, so scratch can be reused at once. */
template <int BLOCK> __device__ inline float hipb_block_sum(float v, float *scratch) {
  static_assert(BLOCK % HIPB_WAVE == 0 && BLOCK / HIPB_WAVE <= HIPB_WAVE, "block size");
  v = hipb_wave_sum(v);
  if (BLOCK == HIPB_WAVE) return v;
  const int lane = threadIdx.x % HIPB_WAVE, wave = threadIdx.x / HIPB_WAVE;
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  v = lane < BLOCK / HIPB_WAVE ? scratch[lane] : 0.0f;
  v = hipb_wave_sum(v);
  __syncthreads();
  return v;
}
template <int BLOCK> __device__ inline float hipb_block_max(float v, float *scratch) {
  static_assert(BLOCK % HIPB_WAVE == 0 && BLOCK / HIPB_WAVE <= HIPB_WAVE, "block size");
  v = hipb_wave_max(v);
  if (BLOCK == HIPB_WAVE) return v;
  const int lane = threadIdx.x % HIPB_WAVE, wave = threadIdx.x / HIPB_WAVE;
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  v = lane < BLOCK / HIPB_WAVE ? scratch[lane] : -INFINITY;
  v = hipb_wave_max(v);
  __syncthreads();
  return v;
}

#define HIPB_LOG2E 1.4426950408889634f

#endif
