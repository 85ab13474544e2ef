/* hipb_cuda.h: the subset of the HIP runtime API that hipb and the hip_*
 * plugins use, mapped onto the CUDA runtime, so that nvcc builds the same
 * sources as the cuda_* plugins (plugins/cuda/CMakeLists.txt compiles them
 * with -DHIPB_CUDA, which makes hipb.h include this in place of
 * <hip/hip_runtime.h>).
 *
 * Ours on purpose: HIP's own NVIDIA platform headers are not needed (and
 * Debian's, HIP 5.2, do not build against CUDA 13). Only what the plugins
 * call is here; a HIP call that is missing is a compile error, not a silent
 * difference. Device side: the plugins shuffle through hipb_shfl_xor
 * (__shfl_xor_sync with the full mask) and launch through
 * hipLaunchKernelGGL (<<<>>>); warpSize is CUDA's (32). Properties that
 * CUDA 13 dropped from cudaDeviceProp (clockRate, memoryClockRate) come
 * from cudaDeviceGetAttribute in hipb.hip. */
#ifndef HIPB_CUDA_H
#define HIPB_CUDA_H

#include <cuda_fp16.h>
#include <cuda_runtime.h>

typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaDeviceProp hipDeviceProp_t;

#define hipSuccess cudaSuccess
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipStreamNonBlocking cudaStreamNonBlocking

static inline const char *hipGetErrorName(hipError_t e) { return cudaGetErrorName(e); }
static inline const char *hipGetErrorString(hipError_t e) { return cudaGetErrorString(e); }
static inline hipError_t hipGetLastError(void) { return cudaGetLastError(); }

static inline hipError_t hipGetDeviceCount(int *n) { return cudaGetDeviceCount(n); }
static inline hipError_t hipSetDevice(int d) { return cudaSetDevice(d); }
static inline hipError_t hipGetDeviceProperties(hipDeviceProp_t *p, int d) {
  return cudaGetDeviceProperties(p, d);
}
static inline hipError_t hipDeviceSynchronize(void) { return cudaDeviceSynchronize(); }
static inline hipError_t hipRuntimeGetVersion(int *v) { return cudaRuntimeGetVersion(v); }
static inline hipError_t hipDriverGetVersion(int *v) { return cudaDriverGetVersion(v); }

template <typename T> static inline hipError_t hipMalloc(T **p, size_t bytes) {
  return cudaMalloc((void **)p, bytes);
}
static inline hipError_t hipFree(void *p) { return cudaFree(p); }
static inline hipError_t hipMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind k) {
  return cudaMemcpy(dst, src, bytes, k);
}
static inline hipError_t hipMemset(void *p, int v, size_t bytes) { return cudaMemset(p, v, bytes); }
static inline hipError_t hipMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind k,
                                        hipStream_t s) {
  return cudaMemcpyAsync(dst, src, bytes, k, s);
}
#define hipHostMallocDefault 0u
static inline hipError_t hipHostMalloc(void **p, size_t bytes, unsigned flags) {
  (void)flags;
  return cudaMallocHost(p, bytes);
}
static inline hipError_t hipHostFree(void *p) { return cudaFreeHost(p); }
static inline hipError_t hipDeviceGetPCIBusId(char *bus, int len, int d) {
  return cudaDeviceGetPCIBusId(bus, len, d);
}

static inline hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned flags) {
  return cudaStreamCreateWithFlags(s, flags);
}
static inline hipError_t hipStreamDestroy(hipStream_t s) { return cudaStreamDestroy(s); }
static inline hipError_t hipStreamSynchronize(hipStream_t s) { return cudaStreamSynchronize(s); }

static inline hipError_t hipEventCreate(hipEvent_t *e) { return cudaEventCreate(e); }
static inline hipError_t hipEventDestroy(hipEvent_t e) { return cudaEventDestroy(e); }
static inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) { return cudaEventRecord(e, s); }
static inline hipError_t hipEventSynchronize(hipEvent_t e) { return cudaEventSynchronize(e); }
static inline hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b) {
  return cudaEventElapsedTime(ms, a, b);
}

/* hipLaunchKernelGGL(kernel, grid, block, lds bytes, stream, args...) */
#define hipLaunchKernelGGL(kernel, grid, block, lds, stream, ...) \
  kernel<<<(grid), (block), (lds), (stream)>>>(__VA_ARGS__)

#endif
