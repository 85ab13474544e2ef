/* hipb: the HIP plugins' shared host code (see hipb.h). */
#include "hipb.h"
#include "hipb_clock.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---------------------------------------------------------- */

int hipb_error(const struct bench_host *h, hipError_t err, const char *call, const char *file,
               int line) {
  const char *base = strrchr(file, '/');
  return h->fail(h, "%s: %s (%s) at %s:%d", call, hipGetErrorName(err), hipGetErrorString(err),
                 base ? base + 1 : file, line);
}

/* ---- device ---------------------------------------------------------- */

/* "gfx90a:sramecc+:xnack-" -> "gfx90a" */
static void base_arch(const char *gcn, char *out, size_t len) {
  size_t n = strcspn(gcn, ":");
  if (n >= len) n = len - 1;
  memcpy(out, gcn, n);
  out[n] = '\0';
}

/* Is arch one of the names in list ("gfx90a,gfx940"; a target may carry
 * feature flags, "gfx90a:xnack+", which do not count here)? */
static int arch_listed(const char *list, const char *arch) {
  const size_t n = strlen(arch);
  for (const char *p = list; *p;) {
    const size_t len = strcspn(p, ",;");
    if (strcspn(p, ",;:") == n && strncmp(p, arch, n) == 0) return 1;
    p += len;
    if (*p) p++;
  }
  return 0;
}

static int has_mfma(const char *arch) {
  static const char *const mfma[] = {"gfx90a", "gfx940", "gfx941", "gfx942"};
  for (size_t i = 0; i < sizeof mfma / sizeof mfma[0]; i++)
    if (strcmp(arch, mfma[i]) == 0) return 1;
  return 0;
}

static void info_int(const struct bench_host *h, const char *key, long long v, const char *unit) {
  char buf[64];
  snprintf(buf, sizeof buf, "%lld%s", v, unit);
  h->set_info(h, key, buf);
}

/* HIP encodes versions as major * 10^7 + minor * 10^5 + patch, CUDA as
 * major * 1000 + minor * 10. */
static void info_version(const struct bench_host *h, const char *key, int v) {
  char buf[64];
#if defined(HIPB_CUDA)
  snprintf(buf, sizeof buf, "%d.%d", v / 1000, v % 1000 / 10);
  h->set_info(h, key, buf);
  return;
#endif
  if (v >= 10000000)
    snprintf(buf, sizeof buf, "%d.%d.%d", v / 10000000, v / 100000 % 100, v % 100000);
  else
    snprintf(buf, sizeof buf, "%d", v);
  h->set_info(h, key, buf);
}

/* The kernel driver's version as its module states it, "580.159.04" from
 * /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel
 * Module  580.159.04  ...") or "6.8.5" from /sys/module/amdgpu/version:
 * the first word after "Module" (or the file's first) made of digits and
 * dots. 0 and the version in out, or -1 when the file is not there. */
#if defined(HIPB_CUDA) || !defined(__HIP_CPU_RT__)
static int module_version(const char *path, char *out, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[512];
  const int got = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  if (!got) return -1;
  const char *p = strstr(line, "Module");
  p = p ? p + 6 : line;
  while (*p) {
    p += strspn(p, " \t\n");
    const size_t n = strcspn(p, " \t\n");
    if (n && n < len && strspn(p, "0123456789.") == n && strchr(p, '.') && strchr(p, '.') < p + n) {
      memcpy(out, p, n);
      out[n] = '\0';
      return 0;
    }
    p += n;
  }
  return -1;
}
#endif

#if defined(HIPB_CUDA)
/* The result header of a cuda_* plugin: the same facts under CUDA's names
 * (clocks through cudaDeviceGetAttribute: CUDA 13 dropped them from
 * cudaDeviceProp). */
static void device_info(const struct bench_host *h, const struct hipb_ctx *c) {
  const hipDeviceProp_t *p = &c->prop;
  h->set_info(h, "device", p->name);
  h->set_info(h, "cuda_arch", c->arch);
  info_int(h, "cuda_device_index", c->device, "");
  info_int(h, "sm_count", p->multiProcessorCount, "");
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, c->device) == cudaSuccess)
    info_int(h, "clock", khz / 1000, " MHz");
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, c->device) == cudaSuccess)
    info_int(h, "memory_clock", khz / 1000, " MHz");
  info_int(h, "memory_bus", p->memoryBusWidth, " bit");
  info_int(h, "memory", (long long)(p->totalGlobalMem >> 20), " MiB");
  info_int(h, "l2_cache", p->l2CacheSize >> 10, " KiB");
  info_int(h, "shared_per_block", (long long)(p->sharedMemPerBlock >> 10), " KiB");
  info_int(h, "warp", c->wave, "");
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) info_version(h, "cuda_runtime", v);
  if (cudaDriverGetVersion(&v) == cudaSuccess) info_version(h, "cuda_driver", v);
  /* "driver", as the Vulkan plugins give it: the kernel driver's own
   * version (what nvidia-smi shows; cuda_driver is the CUDA API level it
   * supports). The tuning cache keys its entries by it. */
  char ver[64], buf[96];
  if (module_version("/proc/driver/nvidia/version", ver, sizeof ver) == 0) {
    snprintf(buf, sizeof buf, "NVIDIA %s", ver);
    h->set_info(h, "driver", buf);
  }
  h->set_info(h, "cuda_built_archs", HIPB_BUILT_ARCHS);
}
#else
static void device_info(const struct bench_host *h, const struct hipb_ctx *c) {
  const hipDeviceProp_t *p = &c->prop;
  h->set_info(h, "device", p->name);
#if !defined(__HIP_CPU_RT__)
  h->set_info(h, "gcn_arch", p->gcnArchName);
#else
  h->set_info(h, "gcn_arch", "cpu (HIP-CPU runtime)");
#endif
  info_int(h, "hip_device_index", c->device, "");
  info_int(h, "compute_units", p->multiProcessorCount, "");
  info_int(h, "clock", p->clockRate / 1000, " MHz");
  info_int(h, "memory_clock", p->memoryClockRate / 1000, " MHz");
  info_int(h, "memory", (long long)(p->totalGlobalMem >> 20), " MiB");
  info_int(h, "l2_cache", p->l2CacheSize >> 10, " KiB");
  info_int(h, "lds_per_block", (long long)(p->sharedMemPerBlock >> 10), " KiB");
  info_int(h, "wavefront", c->wave, "");
  int v = 0;
  if (hipRuntimeGetVersion(&v) == hipSuccess) info_version(h, "hip_runtime", v);
  if (hipDriverGetVersion(&v) == hipSuccess) info_version(h, "hip_driver", v);
#if !defined(__HIP_CPU_RT__)
  /* "driver": the amdgpu kernel module's version where it states one (a
   * DKMS build does; the tuning cache keys its entries by it) */
  char ver[64], buf[96];
  if (module_version("/sys/module/amdgpu/version", ver, sizeof ver) == 0) {
    snprintf(buf, sizeof buf, "amdgpu %s", ver);
    h->set_info(h, "driver", buf);
  }
#endif
  h->set_info(h, "hip_built_archs", HIPB_BUILT_ARCHS);
  h->set_info(h, "mfma", c->mfma ? "yes" : "no");
}
#endif

#if defined(HIPB_CUDA)
/* The lowest compute capability in HIPB_BUILT_ARCHS ("sm_80,sm_90" -> 80);
 * the build embeds PTX too, so newer devices JIT it. */
static int lowest_built_sm(void) {
  int low = 0;
  for (const char *p = HIPB_BUILT_ARCHS; (p = strstr(p, "sm_")) != NULL; p += 3) {
    const int v = atoi(p + 3);
    if (v > 0 && (low == 0 || v < low)) low = v;
  }
  return low;
}
#endif

static void device_ext(const struct bench_host *h, struct hipb_ctx *c);

static int init_device(const struct bench_host *h, struct hipb_ctx *c) {
#if defined(HIPB_CUDA)
#define API "CUDA"
#define COUNT_FN "cudaGetDeviceCount"
#define DEVICE_ENV "BENCH_CUDA_DEVICE"
#else
#define API "HIP"
#define COUNT_FN "hipGetDeviceCount"
#define DEVICE_ENV "BENCH_HIP_DEVICE"
#endif
  int count = 0;
  hipError_t err = hipGetDeviceCount(&count);
#if defined(HIPB_CUDA)
  if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice || err == cudaErrorInitializationError)
    return h->skip(h, "no CUDA device (cudaGetDeviceCount: %s: %s)", hipGetErrorName(err),
                   err == cudaErrorInsufficientDriver
                       ? "no NVIDIA driver (libcuda.so.1) or one older than this CUDA runtime"
                       : hipGetErrorString(err));
#endif
  if (err != hipSuccess)
    return h->skip(h, "no " API " device (" COUNT_FN ": %s)", hipGetErrorName(err));
  if (count <= 0) return h->skip(h, "no " API " device (" COUNT_FN " found none)");

  int dev = 0;
  const char *env = getenv(DEVICE_ENV);
  if (env && *env) {
    char *end;
    long v = strtol(env, &end, 10);
    if (*end || v < 0 || v >= count)
      return h->skip(h, "%s=%s: not a device index (%s sees %d device%s)", DEVICE_ENV, env, API,
                     count, count == 1 ? "" : "s");
    dev = (int)v;
  }

  c->device = dev;
  HIPB_CHECK(h, hipSetDevice(dev));
  HIPB_CHECK(h, hipGetDeviceProperties(&c->prop, dev));
  /* The kernels' W: the host launches the instantiation for the device's
   * wave size. HIP-CPU emulates 64-lane waves; built with
   * -DHIPB_HIPCPU_WAVE=32 it runs the wave32 kernels (their shuffles stay
   * within 32 lanes), as RDNA and NVIDIA GPUs do. */
#if defined(__HIP_CPU_RT__) && defined(HIPB_HIPCPU_WAVE)
  c->wave = HIPB_HIPCPU_WAVE;
#else
  c->wave = c->prop.warpSize;
#endif
  if (c->wave != 32 && c->wave != 64)
    return h->skip(h, "device %d (%s) runs %d-lane waves; the kernels are written for 32 and 64",
                   dev, c->prop.name, c->wave);
#if defined(HIPB_CUDA)
  (void)base_arch;
  (void)arch_listed;
  (void)has_mfma;
  snprintf(c->arch, sizeof c->arch, "sm_%d%d", c->prop.major, c->prop.minor);
  c->mfma = 0; /* MFMA is AMD's; cuda_gemm has variant=cublas instead */
  const int low = lowest_built_sm(), cc = c->prop.major * 10 + c->prop.minor;
  if (low && cc < low)
    return h->skip(h,
                   "built for %s, but device %d (%s) is %s: rebuild with "
                   "-DCMAKE_CUDA_ARCHITECTURES=%d%d",
                   HIPB_BUILT_ARCHS, dev, c->prop.name, c->arch, c->prop.major, c->prop.minor);
#elif !defined(__HIP_CPU_RT__)
  base_arch(c->prop.gcnArchName, c->arch, sizeof c->arch);
  c->mfma = has_mfma(c->arch);
  /* Without a code object for this architecture every launch would fail
   * with hipErrorNoBinaryForGpu: say how to rebuild instead. */
  if (!arch_listed(HIPB_BUILT_ARCHS, c->arch))
    return h->skip(h,
                   "built for %s, but device %d (%s) is %s: rebuild with "
                   "-DBENCH_HIP_ARCHS=%s%s",
                   HIPB_BUILT_ARCHS, dev, c->prop.name, c->arch, c->arch,
                   strcmp(c->arch, "gfx942") == 0 || strcmp(c->arch, "gfx941") == 0 ||
                           strncmp(c->arch, "gfx95", 5) == 0
                       ? " (needs ROCm >= 6)"
                       : "");
#else
  (void)base_arch;
  (void)arch_listed;
  snprintf(c->arch, sizeof c->arch, "cpu");
  c->mfma = c->wave == 64; /* the kernels emulate MFMA on the CPU (as CDNA); a wave32
                             build stands for RDNA, where MFMA is SKIPPED */
  (void)has_mfma;
#endif
  device_info(h, c);
  device_ext(h, c);
  return BENCH_OK;
}

/* ---- the device for the harness: bench.device/1 --------------------- */

/* The stop reading's minimum span since the start reading, in ns: the
 * timer's granularity (up to 1 us on NVIDIA) is then at most 1%. */
#define CLOCK_MIN_SPAN_NS 100000.0
/* A first reading outside this is no shader clock: the test is that the
 * mechanism works (clock64 counts cycles by definition; an idle GPU may
 * run far below its default clock when init measures). */
#define CLOCK_PLAUSIBLE_MIN_MHZ 1.0
#define CLOCK_PLAUSIBLE_MAX_MHZ 5000.0
/* Samples' figures are the median over this many SMs at most. */
#define CLOCK_MAX_SM 32

#if !defined(__HIP_CPU_RT__)
/* The constant-rate timer's rate in kHz, or 0 and why not in *why. */
static double timer_khz(const struct hipb_ctx *c, const char **why) {
#if defined(HIPB_CUDA)
  (void)c;
  *why = NULL;
  return 1e6; /* %globaltimer: ns */
#else
  if (strncmp(c->arch, "gfx11", 5) == 0 || strncmp(c->arch, "gfx12", 5) == 0) {
    *why = "no: clock64() on gfx11 and later reads SHADER_CYCLES, a 20-bit counter on gfx11 "
           "that wraps within a sample";
    return 0;
  }
#if HIP_VERSION_MAJOR > 5 || (HIP_VERSION_MAJOR == 5 && HIP_VERSION_MINOR >= 3)
  int khz = 0;
  const hipError_t err = hipDeviceGetAttribute(&khz, hipDeviceAttributeWallClockRate, c->device);
  if (err != hipSuccess || khz <= 0) {
    *why = "no: hipDeviceAttributeWallClockRate gives no rate for wall_clock64() on this device";
    return 0;
  }
  *why = NULL;
  return khz;
#else
  *why = "no: this HIP (before ROCm 5.3) has no hipDeviceAttributeWallClockRate, the rate of "
         "wall_clock64()";
  return 0;
#endif
#endif
}

/* The clock from the start and stop readings of blocks: per SM, its
 * cycles over its time (the two readings of one SM), median over up to
 * CLOCK_MAX_SM SMs; 0 when no SM has both. */
static double clock_mhz(const struct hipb_clock_rec *a, const struct hipb_clock_rec *b,
                        unsigned n, double khz) {
  double v[CLOCK_MAX_SM];
  int m = 0;
  for (unsigned i = 0; i < n && m < CLOCK_MAX_SM; i++)
    for (unsigned j = 0; j < n; j++) {
      if (a[j].sm != b[i].sm) continue;
      if (b[i].timer > a[j].timer && b[i].cycles > a[j].cycles)
        v[m++] = (double)(b[i].cycles - a[j].cycles) * khz /
                 ((double)(b[i].timer - a[j].timer) * 1000.0);
      break;
    }
  if (m == 0) return 0;
  for (int i = 1; i < m; i++) /* insertion sort: m <= 32 */
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      const double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* The start reading on stream s. */
static int clock_start(const struct bench_host *h, struct hipb_ctx *c, hipStream_t s) {
  HIPB_LAUNCH(h, hipb_clock_kernel, dim3(c->clock_blocks), dim3(1), 0, s,
              (struct hipb_clock_rec *)c->clock_dev, (const struct hipb_clock_rec *)NULL, 0ull);
  return BENCH_OK;
}

/* The stop reading on stream s, both readings back to the host, the wait;
 * *mhz the clock in between (0: no figure). */
static int clock_stop(const struct bench_host *h, struct hipb_ctx *c, hipStream_t s, double *mhz) {
  struct hipb_clock_rec *dev = (struct hipb_clock_rec *)c->clock_dev;
  const unsigned n = c->clock_blocks;
  const unsigned long long min_ticks =
      (unsigned long long)(CLOCK_MIN_SPAN_NS * c->timer_khz / 1e6 + 0.5);
  HIPB_LAUNCH(h, hipb_clock_kernel, dim3(n), dim3(1), 0, s, dev + n,
              (const struct hipb_clock_rec *)dev, min_ticks);
  HIPB_CHECK(h, hipMemcpyAsync(c->clock_host, dev, 2 * n * sizeof *dev, hipMemcpyDeviceToHost, s));
  HIPB_CHECK(h, hipStreamSynchronize(s));
  const struct hipb_clock_rec *r = (const struct hipb_clock_rec *)c->clock_host;
  *mhz = clock_mhz(r, r + n, n, c->timer_khz);
  return BENCH_OK;
}

/* Buffers, then one reading around nothing (the null stream): on (1) when
 * it is a plausible shader clock; the fact says what was found. */
static void clock_setup(const struct bench_host *h, struct hipb_ctx *c) {
  const char *why = NULL;
  char buf[192];
  c->timer_khz = timer_khz(c, &why);
  if (why) {
    h->set_info(h, "inband_clock", why);
    return;
  }
  c->clock_blocks = (unsigned)(c->prop.multiProcessorCount > 0 ? c->prop.multiProcessorCount : 1);
  const size_t bytes = 2 * (size_t)c->clock_blocks * sizeof(struct hipb_clock_rec);
  double mhz = 0;
  if (hipMalloc(&c->clock_dev, bytes) != hipSuccess ||
      hipHostMalloc(&c->clock_host, bytes, hipHostMallocDefault) != hipSuccess ||
      clock_start(h, c, 0) != BENCH_OK || clock_stop(h, c, 0, &mhz) != BENCH_OK) {
    (void)hipGetLastError();
    h->log(h, "hipb: in-band clock off: its setup failed");
    snprintf(buf, sizeof buf, "no: setting it up failed (see the log)");
  } else if (!(mhz >= CLOCK_PLAUSIBLE_MIN_MHZ && mhz <= CLOCK_PLAUSIBLE_MAX_MHZ)) {
    snprintf(buf, sizeof buf, "no: the first reading gave %.4g MHz, not a plausible clock", mhz);
  } else {
    snprintf(buf, sizeof buf,
             "yes: clock64() against %s, one block per %s, around each sample; %.0f MHz at init",
#if defined(HIPB_CUDA)
             "%globaltimer", "SM",
#else
             "wall_clock64()", "CU",
#endif
             mhz);
    c->clock_on = 1;
  }
  h->set_info(h, "inband_clock", buf);
}
#endif

/* The device's PCI bus id (a fact) and, where the harness takes them
 * (bench.device/1), the bus id and default clock, and the in-band clock.
 * Without the extension nothing more is done. */
static void device_ext(const struct bench_host *h, struct hipb_ctx *c) {
#if defined(__HIP_CPU_RT__)
  h->set_info(h, "pci_bus_id", "none: the HIP-CPU runtime");
  c->dev_ext = (const struct bench_ext_device *)bench_host_extension(h, BENCH_EXT_DEVICE);
  if (!c->dev_ext) return;
  c->dev_ext->set_device(h, NULL, 0);
  h->set_info(h, "inband_clock", "no: the HIP-CPU runtime has no device clock");
#else
  char bus[64] = "";
  const int has_bus =
      hipDeviceGetPCIBusId(bus, (int)sizeof bus, c->device) == hipSuccess && bus[0] != '\0';
  if (!has_bus) (void)hipGetLastError();
#if defined(HIPB_CUDA)
  h->set_info(h, "pci_bus_id", has_bus ? bus : "unknown: cudaDeviceGetPCIBusId failed");
#else
  h->set_info(h, "pci_bus_id", has_bus ? bus : "unknown: hipDeviceGetPCIBusId failed");
#endif
  c->dev_ext = (const struct bench_ext_device *)bench_host_extension(h, BENCH_EXT_DEVICE);
  if (!c->dev_ext) {
    h->set_info(h, "inband_clock", "not measured: the harness takes no clock (no bench.device/1)");
    return;
  }
  int khz = 0;
#if defined(HIPB_CUDA)
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, c->device) != cudaSuccess) khz = 0;
#else
  if (hipDeviceGetAttribute(&khz, hipDeviceAttributeClockRate, c->device) != hipSuccess) khz = 0;
#endif
  const double mhz = khz / 1000.0;
  c->dev_ext->set_device(h, has_bus ? bus : NULL, mhz > 0 && mhz <= 10000 ? mhz : 0);
  clock_setup(h, c);
#endif
}

int hipb_init(const struct bench_host *h, void **ctx) {
  struct hipb_ctx *c = (struct hipb_ctx *)calloc(1, sizeof *c);
  if (!c) return h->fail(h, "out of memory");
  const int rc = init_device(h, c);
  if (rc != BENCH_OK) {
    hipb_deinit(h, c);
    c = NULL;
  }
  *ctx = c;
  return rc;
}

void hipb_deinit(const struct bench_host *h, void *ctx) {
  (void)h;
  struct hipb_ctx *c = (struct hipb_ctx *)ctx;
  if (!c) return;
  if (c->flush_buf) (void)hipFree(c->flush_buf);
#if !defined(__HIP_CPU_RT__)
  if (c->clock_dev) (void)hipFree(c->clock_dev);
  if (c->clock_host) (void)hipHostFree(c->clock_host);
#endif
  if (c->start) (void)hipEventDestroy(c->start);
  if (c->stop) (void)hipEventDestroy(c->stop);
  if (c->stream) (void)hipStreamDestroy(c->stream);
  free(c);
}

unsigned hipb_grid_fill(const struct hipb_ctx *c, size_t needed, unsigned blocks_per_cu) {
  size_t full = (size_t)(c->prop.multiProcessorCount > 0 ? c->prop.multiProcessorCount : 1) *
                blocks_per_cu;
  if (needed < 1) needed = 1;
  return (unsigned)(needed < full ? needed : full);
}

/* ---- cache flush ------------------------------------------------------ */

/* Overwrite the flush buffer: every cache line of it passes through L2 (and
 * on MI300 the Infinity Cache), evicting what the previous iteration left. */
__global__ void hipb_flush_kernel(uint4 *__restrict__ p, size_t n, uint32_t v) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = make_uint4(v, v + 1, v + 2, v + 3);
}

/* Larger than every cache level the kernels could hit: 4x the L2 and at
 * least 1 GiB (MI300X: 4 MiB L2 per XCD, 256 MiB Infinity Cache), but no
 * more than an eighth of the device memory. */
static size_t flush_size(const hipDeviceProp_t *p) {
  size_t want = (size_t)(p->l2CacheSize > 0 ? p->l2CacheSize : 0) * 4;
  if (want < ((size_t)1 << 30)) want = (size_t)1 << 30;
  const size_t cap = p->totalGlobalMem / 8;
  if (cap && want > cap) want = cap;
  return want & ~(size_t)15;
}

int hipb_setup(const struct bench_host *h, struct hipb_ctx *c) {
  if (!c->stream) HIPB_CHECK(h, hipStreamCreateWithFlags(&c->stream, hipStreamNonBlocking));
  if (!c->start) HIPB_CHECK(h, hipEventCreate(&c->start));
  if (!c->stop) HIPB_CHECK(h, hipEventCreate(&c->stop));
  c->flush_l2 = (int)h->param_int(h, "flush_l2");
  if (c->flush_l2 && !c->flush_buf) {
    c->flush_bytes = flush_size(&c->prop);
    HIPB_CHECK(h, hipMalloc(&c->flush_buf, c->flush_bytes));
  }
  if (c->flush_l2) {
    char buf[64];
    snprintf(buf, sizeof buf, "%zu MiB written before each iteration", c->flush_bytes >> 20);
    h->set_info(h, "flush_l2", buf);
  }
  return BENCH_OK;
}

int hipb_begin(const struct bench_host *h, struct hipb_ctx *c) {
  if (c->flush_l2) {
    const size_t n = c->flush_bytes / sizeof(uint4);
    HIPB_LAUNCH(h, hipb_flush_kernel, dim3(hipb_grid_fill(c, (n + 255) / 256, 8)), dim3(256), 0,
                c->stream, (uint4 *)c->flush_buf, n, c->flush_seq++);
  }
#if !defined(__HIP_CPU_RT__)
  c->clock_started = 0;
  if (c->clock_on) {
    HIPB_TRY(clock_start(h, c, c->stream));
    c->clock_started = 1;
  }
#endif
  HIPB_CHECK(h, hipEventRecord(c->start, c->stream));
  return BENCH_OK;
}

int hipb_end(const struct bench_host *h, struct hipb_ctx *c) {
  HIPB_CHECK(h, hipEventRecord(c->stop, c->stream));
  double mhz = -1; /* no reading */
#if !defined(__HIP_CPU_RT__)
  if (c->clock_started) {
    c->clock_started = 0;
    HIPB_TRY(clock_stop(h, c, c->stream, &mhz)); /* waits for the stream */
  }
#endif
  HIPB_CHECK(h, hipEventSynchronize(c->stop));
  float ms = 0;
  HIPB_CHECK(h, hipEventElapsedTime(&ms, c->start, c->stop));
  h->set_device_time(h, (double)ms * 1e6);
  if (mhz >= 1 && mhz <= 10000) { /* what the harness takes */
    c->dev_ext->set_clock(h, mhz);
  } else if (mhz != -1 && c->clock_dropped++ == 0) {
    h->log(h, "hipb: in-band clock reading %g MHz dropped (no figure for this sample)", mhz);
  }
  return BENCH_OK;
}

/* ---- element types and staging ---------------------------------------- */

static int buf_alloc(const struct bench_host *h, struct hipb_buf *b, size_t count,
                     enum bench_dtype t) {
  b->count = count;
  b->dtype = t;
  b->bytes = count * bench_dtype_size(t);
  b->host = malloc(b->bytes ? b->bytes : 1);
  if (!b->host) return h->fail(h, "out of memory for %zu MiB of host memory", b->bytes >> 20);
  HIPB_CHECK(h, hipMalloc(&b->dev, b->bytes ? b->bytes : 1));
  return BENCH_OK;
}

int hipb_input(const struct bench_host *h, struct hipb_buf *b, size_t count, enum bench_dtype t,
               uint64_t seed) {
  HIPB_TRY(buf_alloc(h, b, count, t));
  h->fill_random(h, b->host, count, t, seed);
  HIPB_CHECK(h, hipMemcpy(b->dev, b->host, b->bytes, hipMemcpyHostToDevice));
  /* the null stream's work is not ordered with the plugin's non-blocking
   * stream: finish it before any kernel reads the buffer */
  HIPB_CHECK(h, hipDeviceSynchronize());
  return BENCH_OK;
}

int hipb_output(const struct bench_host *h, struct hipb_buf *b, size_t count, enum bench_dtype t) {
  HIPB_TRY(buf_alloc(h, b, count, t));
  /* 0xff bytes are a NaN in f32, f16 and bf16 */
  HIPB_CHECK(h, hipMemset(b->dev, 0xff, b->bytes));
  HIPB_CHECK(h, hipDeviceSynchronize()); /* before a kernel of the plugin's stream writes it */
  memset(b->host, 0xff, b->bytes);
  return BENCH_OK;
}

int hipb_download(const struct bench_host *h, struct hipb_ctx *c, struct hipb_buf *b) {
  HIPB_CHECK(h, hipStreamSynchronize(c->stream));
  HIPB_CHECK(h, hipMemcpy(b->host, b->dev, b->bytes, hipMemcpyDeviceToHost));
  return BENCH_OK;
}

void hipb_free(struct hipb_buf *b) {
  if (b->dev) (void)hipFree(b->dev);
  free(b->host);
  b->dev = b->host = NULL;
}
