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
 *            (outside the timed interval). Where the harness offers
 *            bench.device/1, hipb_init names the device (PCI bus id,
 *            default clock) and hipb_begin/hipb_end measure the SM clock
 *            in-band around the timed interval (hipb_clock.h: a tiny
 *            kernel before the start event and after the stop event, one
 *            readback) and hand it to set_clock: every plugin gets it
 *            without a line of its own. A plugin's run_batch(n) brackets
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
 *            conversions, wave reductions with hipb_shfl_xor.
 *   waves    kernels that depend on the wave size are templates on W (32
 *            or 64): the host launches the instantiation for the device's
 *            wave size (hipb_ctx.wave, from warpSize), and each device pass
 *            keeps only the one for its target (HIPB_WAVE_ONLY(W) at the
 *            top of the kernel empties the others).
 *
 * Installed with bench as <bench/hipb.h> and libbench-hip.a (hipcc-built
 * for the targets in `pkg-config --variable=offload_arch_flags bench-hip`):
 * a plugin outside this tree builds with
 *   hipcc $(pkg-config --variable=offload_arch_flags bench-hip) -O3 -fPIC -shared \
 *     $(pkg-config --cflags bench-hip) my.hip -o my.so $(pkg-config --libs bench-hip)
 * (share/bench/examples/hip is a complete one).
 *
 * Written for CDNA GPUs (gfx90a MI200, gfx940/941/942 MI300; gfx908 MI100
 * without the MFMA GEMM), 64-lane waves, and for RDNA (gfx10, gfx11: HIP
 * runs 32-lane waves there), where the MFMA variant is SKIPPED. The same
 * sources build for NVIDIA GPUs (32-lane warps) with nvcc through
 * hipb_cuda.h, as the cuda_* plugins.
 *
 * The same sources also build against the HIP-CPU runtime (a header-only
 * HIP for the CPU, __HIP_CPU_RT__): the hip.hipcpu test runs every kernel on
 * the host that way, to check the kernels' logic without a GPU. */
#ifndef HIPB_H
#define HIPB_H

#if defined(HIPB_CUDA)
#include "hipb_cuda.h"
#else
#include <hip/hip_runtime.h>
#endif

#include <stddef.h>
#include <stdint.h>

#include "bench/dtype.h"
#include "bench/params.h"
#include "bench/plugin.h"

/* A device pass (one per target) or the host pass. */
#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
#define HIPB_DEVICE_PASS 1
#endif

/* The wave size of the target a device pass compiles for: 64 on CDNA, 32
 * on RDNA and NVIDIA; 0 in the host pass and under HIP-CPU, where every
 * instantiation is real code. */
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN_WAVEFRONT_SIZE)
#define HIPB_DEVICE_WAVE __AMDGCN_WAVEFRONT_SIZE
#elif defined(__CUDA_ARCH__)
#define HIPB_DEVICE_WAVE 32
#else
#define HIPB_DEVICE_WAVE 0
#endif
#if HIPB_DEVICE_WAVE != 0 && HIPB_DEVICE_WAVE != 32 && HIPB_DEVICE_WAVE != 64
#error "the hip plugins are written for 32- and 64-lane waves"
#endif

/* First statement of a kernel templated on the wave size W: in a device
 * pass for a target whose waves are not W the kernel is empty (never
 * launched there: the host picks W from the device's warpSize). */
#define HIPB_WAVE_ONLY(W)                                                    \
  do {                                                                       \
    if constexpr (HIPB_DEVICE_WAVE != 0 && (W) != HIPB_DEVICE_WAVE) return;  \
  } while (0)

#if defined(__HIP_CPU_RT__)
#include <math.h>
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); } /* missing from HIP-CPU */
#endif

/* Matrix cores (MFMA with the f16 and bf16_1k builtins): CDNA2 and CDNA3
 * only (never RDNA, never CUDA). */
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define HIPB_DEVICE_MFMA 1
#endif

/* Architectures this build has code objects for, "gfx90a,gfx940" (set by
 * plugins/hip/CMakeLists.txt from BENCH_HIP_ARCHS). */
#ifndef HIPB_BUILT_ARCHS
#define HIPB_BUILT_ARCHS ""
#endif

/* The plugin's name and backend: hip_gemm (backend hip) from hipcc,
 * cuda_gemm (backend cuda) from nvcc; same operations and parameters. */
#if defined(HIPB_CUDA)
#define HIPB_BACKEND "cuda"
#define HIPB_NAME(op) "cuda_" op
#else
#define HIPB_BACKEND "hip"
#define HIPB_NAME(op) "hip_" op
#endif

#if defined(HIPB_DEVICE_PASS)
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
  int wave;           /* its wave size, 32 or 64: the kernels' W */
  hipStream_t stream; /* created by hipb_setup */
  hipEvent_t start, stop;
  int flush_l2;       /* this case's flush_l2 parameter */
  void *flush_buf;
  size_t flush_bytes;
  uint32_t flush_seq;
  /* bench.device/1 (hipb.hip, hipb_clock.h): the harness's, or NULL, and
   * the in-band clock measured around each timed sample */
  const struct bench_ext_device *dev_ext;
  int clock_on;           /* measured by hipb_begin / hipb_end */
  int clock_started;      /* hipb_begin took the start reading */
  int clock_dropped;      /* samples without a figure (the first is logged) */
  double timer_khz;       /* the constant-rate timer's rate */
  unsigned clock_blocks;  /* one per SM / CU */
  void *clock_dev;        /* 2 x clock_blocks readings: start, stop */
  void *clock_host;       /* their pinned copy */
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
 * waits for the stop event and reports the interval as the device time.
 * With the in-band clock on, hipb_begin launches its start reading before
 * the start event (after the flush) and hipb_end its stop reading after the
 * stop event, then waits for the stream: the events' interval is the same,
 * the sample's host time holds the two readings (a few us; up to 100 us
 * more for a sample shorter than that, the stop reading's minimum span). */
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
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(x.bits));
#elif defined(__HIP_DEVICE_COMPILE__)
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
#if defined(__CUDA_ARCH__)
  return hipb_f16{__half_as_ushort(__float2half_rn(x))};
#elif defined(__HIP_DEVICE_COMPILE__)
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

/* __shfl_xor within groups of `width` lanes (a power of two <= the wave
 * size); every lane of the wave must take part. */
__device__ inline float hipb_shfl_xor(float v, int lane_mask, int width) {
#if defined(HIPB_CUDA)
  return __shfl_xor_sync(0xffffffffu, v, lane_mask, width);
#else
  return __shfl_xor(v, lane_mask, width);
#endif
}

/* Sum and max over the W lanes of a wave; every lane gets the result. */
template <int W> __device__ inline float hipb_wave_sum(float v) {
  static_assert(W == 32 || W == 64, "wave size");
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) v += hipb_shfl_xor(v, o, W);
  return v;
}
template <int W> __device__ inline float hipb_wave_max(float v) {
  static_assert(W == 32 || W == 64, "wave size");
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) v = fmaxf(v, hipb_shfl_xor(v, o, W));
  return v;
}

/* Sum and max over a block of BLOCK threads in waves of W (BLOCK a multiple
 * of W; every thread must call it); every thread gets the result. scratch:
 * BLOCK/W floats of LDS. Ends with a barrier, so scratch can be reused at
 * once. */
template <int BLOCK, int W> __device__ inline float hipb_block_sum(float v, float *scratch) {
  static_assert(BLOCK % W == 0 && BLOCK / W <= W, "block size");
  v = hipb_wave_sum<W>(v);
  if (BLOCK == W) return v;
  const int lane = threadIdx.x % W, wave = threadIdx.x / W;
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  v = lane < BLOCK / W ? scratch[lane] : 0.0f;
  v = hipb_wave_sum<W>(v);
  __syncthreads();
  return v;
}
template <int BLOCK, int W> __device__ inline float hipb_block_max(float v, float *scratch) {
  static_assert(BLOCK % W == 0 && BLOCK / W <= W, "block size");
  v = hipb_wave_max<W>(v);
  if (BLOCK == W) return v;
  const int lane = threadIdx.x % W, wave = threadIdx.x / W;
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  v = lane < BLOCK / W ? scratch[lane] : -INFINITY;
  v = hipb_wave_max<W>(v);
  __syncthreads();
  return v;
}

#define HIPB_LOG2E 1.4426950408889634f

#endif
