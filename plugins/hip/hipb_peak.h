/* hipb_peak.h: what the peak plugins (hip_peak_fma, hip_peak_matrix,
 * hip_peak_bw, hip_peak_launch, and their cuda_* builds) share. A peak
 * case measures one ceiling of the device and names it to the harness
 * through bench.roof/1; the harness records the roof only when the case
 * ended OK and verify() compared its output with the plugin's own
 * reference through bench.compare/1 (plugin.h), so every peak kernel
 * writes an output whose value the host knows, and verify compares it
 * exactly.
 *
 *   hipb_peak_require   setup's first check: the harness compares
 *                       (bench.compare/1), else SKIP
 *   hipb_peak_roof      set_roof, or nothing on a harness without
 *                       bench.roof/1 (the case runs, without a roof)
 *   hipb_peak_compare   verify: an output against ref_fn, exactly
 *   hipb_peak_datasheet units x FLOP per clock per unit (a table by
 *                       architecture) x the clock-rate attribute
 *   hipb_peak_clock_khz the SM/GFX clock or the memory clock, kHz
 *   hipb_peak_caches    "L2" in a size parameter: the device's L2 size
 *   hipb_peak_upload    a host buffer the plugin filled, to the device
 * Not installed (the plugins of this tree only), like hipb_rows.h. */
#ifndef HIPB_PEAK_H
#define HIPB_PEAK_H

#include <stdio.h>
#include <string.h>

#include "hipb.h"

/* Threads of every peak kernel's block: whole waves of 32 and 64. */
#define HIPB_PEAK_THREADS 256

/* The plugin's own reference, elements [start, start + n) as doubles
 * (bench_compare.ref_fn). */
typedef int (*hipb_peak_ref_fn)(const struct bench_host *h, void *user, int64_t start, int64_t n,
                                double *dst);

static inline int hipb_peak_require(const struct bench_host *h) {
  if (!bench_host_extension(h, BENCH_EXT_COMPARE))
    return h->skip(h, "needs a bench harness with bench.compare/1 (ABI 1.1 or newer): a peak "
                      "case is checked against the plugin's own reference");
  return BENCH_OK;
}

/* From setup: the roof this case measures. */
static inline int hipb_peak_roof(const struct bench_host *h, enum bench_roof_kind kind,
                                 const char *id, const char *method, double capacity_bytes,
                                 double datasheet, const char *datasheet_how) {
  const struct bench_ext_roof *ext =
      (const struct bench_ext_roof *)bench_host_extension(h, BENCH_EXT_ROOF);
  if (!ext) return BENCH_OK;
  struct bench_roof roof = {};
  roof.kind = kind;
  roof.id = id;
  roof.method = method;
  roof.capacity_bytes = capacity_bytes;
  roof.datasheet = datasheet;
  roof.datasheet_how = datasheet_how;
  return ext->set_roof(h, &roof);
}

/* From verify: count elements of dtype at out (host memory) against
 * ref_fn, exactly (every peak output is exact by construction). */
static inline int hipb_peak_compare(const struct bench_host *h, const char *name,
                                    enum bench_dtype dtype, const void *out, int64_t count,
                                    hipb_peak_ref_fn ref_fn, void *user) {
  const struct bench_ext_compare *cmp =
      (const struct bench_ext_compare *)bench_host_extension(h, BENCH_EXT_COMPARE);
  if (!cmp) return h->fail(h, "bench.compare/1 is gone since setup");
  struct bench_compare c = {};
  c.name = name;
  c.dtype = dtype;
  c.ref_dtype = BENCH_F64;
  c.count = count;
  c.out = out;
  c.ref_fn = ref_fn;
  c.user = user;
  c.tol = BENCH_TOL_EXACT;
  return cmp->compare(h, &c);
}

/* The clock-rate attribute in kHz: the SM/GFX clock (memory 0: CUDA's
 * cudaDevAttrClockRate, HIP's hipDeviceAttributeClockRate, the maximum
 * boost clock) or the memory clock (1: cudaDevAttrMemoryClockRate,
 * hipDeviceAttributeMemoryClockRate); 0 when the device does not say.
 * HIP's hipDeviceProp_t holds both (HIP-CPU's too); CUDA 13 dropped them
 * from cudaDeviceProp. */
static inline double hipb_peak_clock_khz(const struct hipb_ctx *c, int memory) {
  int khz = 0;
#if defined(HIPB_CUDA)
  if (cudaDeviceGetAttribute(&khz, memory ? cudaDevAttrMemoryClockRate : cudaDevAttrClockRate,
                             c->device) != cudaSuccess)
    khz = 0;
#else
  khz = memory ? c->prop.memoryClockRate : c->prop.clockRate;
#endif
  return khz > 0 ? khz : 0;
}

#if defined(HIPB_CUDA)
#define HIPB_PEAK_UNITS "SMs"
#else
#define HIPB_PEAK_UNITS "CUs"
#endif

/* One architecture's rate per SM/CU and clock (FLOP, for one kind of
 * operation). arch: "sm_90", "gfx942"; one ending in '*' matches every
 * arch it begins ("gfx110*"). A table ends with arch NULL. */
struct hipb_peak_rate {
  const char *arch;
  double per_clk;
};

static inline double hipb_peak_rate_of(const struct hipb_peak_rate *t, const char *arch) {
  for (; t->arch; t++) {
    const size_t n = strlen(t->arch);
    if (n && t->arch[n - 1] == '*' ? strncmp(arch, t->arch, n - 1) == 0
                                   : strcmp(arch, t->arch) == 0)
      return t->per_clk;
  }
  return 0;
}

/* The datasheet figure in GFLOP/s: SMs/CUs x the table's FLOP per clock
 * for this arch x the clock-rate attribute, and how, "132 SMs x 256 FLOP/clk
 * x 1980 MHz"; 0 (and how "") when the arch is not in the table or the
 * device gives no clock. */
static inline double hipb_peak_datasheet(const struct hipb_ctx *c, const struct hipb_peak_rate *t,
                                         char *how, size_t len) {
  const double per_clk = hipb_peak_rate_of(t, c->arch), khz = hipb_peak_clock_khz(c, 0);
  const int units = c->prop.multiProcessorCount;
  how[0] = '\0';
  if (!(per_clk > 0) || !(khz > 0) || units <= 0) return 0;
  snprintf(how, len, "%d %s x %.0f FLOP/clk x %.0f MHz (%s, clock-rate attribute)", units,
           HIPB_PEAK_UNITS, per_clk, khz / 1000, c->arch);
  return units * per_clk * khz / 1e6; /* FLOP/clk x kHz = 1e3 FLOP/s; GFLOP/s */
}

/* Sizes relative to the device's L2 ("L2/2", "8*L2") in a size
 * parameter: the L2 size the device reports (hipDeviceAttributeL2CacheSize,
 * cudaDevAttrL2CacheSize: hipDeviceProp_t.l2CacheSize). A GPU's last
 * level may be larger (MI300X's 256 MiB Infinity Cache), which HIP does
 * not report: LLC is not offered. */
static inline int64_t hipb_peak_cache_bytes(void *user, int level) {
  const struct hipb_ctx *c = (const struct hipb_ctx *)user;
  return level == 2 && c->prop.l2CacheSize > 0 ? (int64_t)c->prop.l2CacheSize : 0;
}

static inline void hipb_peak_cache_describe(void *user, char *buf, size_t size) {
  const struct hipb_ctx *c = (const struct hipb_ctx *)user;
  if (c->prop.l2CacheSize > 0)
    snprintf(buf, size, "L2 %d KiB (the device's attribute)", c->prop.l2CacheSize >> 10);
  else
    snprintf(buf, size, "no L2 size from the device");
}

static inline struct bench_caches hipb_peak_caches(struct hipb_ctx *c) {
  struct bench_caches k = {};
  k.bytes = hipb_peak_cache_bytes;
  k.describe = hipb_peak_cache_describe;
  k.user = c;
  return k;
}

/* The host copy of b, which the plugin filled, to the device (then the
 * device is idle: the null stream's copy is not ordered with the plugin's
 * stream). */
static inline int hipb_peak_upload(const struct bench_host *h, struct hipb_buf *b) {
  HIPB_CHECK(h, hipMemcpy(b->dev, b->host, b->bytes, hipMemcpyHostToDevice));
  HIPB_CHECK(h, hipDeviceSynchronize());
  return BENCH_OK;
}

#endif
