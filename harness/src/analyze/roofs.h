/* Roofline ceilings per device for bench report: a compute peak (GFLOP/s)
 * and a memory bandwidth (GB/s), measured in the results folder where it
 * can be, else from a small table of published peaks. */
#ifndef BENCH_ROOFS_H
#define BENCH_ROOFS_H

#include <stddef.h>

#include "analyze/result_set.h"

struct roof {
  char *device;        /* "AMD EPYC 9R14", "llvmpipe (LLVM 15.0.6, 256 bits)", ... */
  double peak_gflops;  /* 0 when unknown */
  double bw_gbps;      /* 0 when unknown */
  char *peak_source;   /* "measured: cpu_gemm m=2048 ... (2026-11-20)", "published: ..." */
  char *bw_source;
  char *peak_missing;  /* NULL when peak_gflops is known, else why not: "no compute roof: ..." */
  char *bw_missing;    /* likewise for bw_gbps: "no memory roof: membw_cpu kernel=copy ERROR on ..." */
};

struct roof_set {
  size_t n;
  struct roof *roofs;
};

/* The device a case ran on: its "device" info (GPU plugins), else the
 * run's CPU model, else its backend. */
const char *case_device(const struct rs_entry *e);

/* Roofs for every device that has data among the entries e[idx[0..n)] (an
 * OK case with samples; a plugin that was only SKIPPED or failed adds no
 * device): per device the best
 * GFLOP/s of its GEMM plugins (cpu_gemm, vk_gemm*, hip_gemm) and the best
 * GB/s of its copy plugins (membw_cpu kernel=copy, vk_copy, hip_copy), OK
 * cases only; a ceiling not measured comes from the published table when
 * the device's name matches an entry (one FP32 vector peak per device;
 * matrix-core f16/bf16 peaks are not in the table). A ceiling still
 * unknown has its reason in peak_missing / bw_missing: the failed case that
 * would have measured it, or that none ran on the device. */
void roofs_build(const struct result_set *s, const size_t *idx, size_t n, struct roof_set *out);
const struct roof *roof_of(const struct roof_set *rs, const char *device); /* NULL if none */
void roofs_release(struct roof_set *rs);

/* The published table, for documentation and tests; ends with a NULL name. */
struct published_peak {
  const char *match;  /* case-insensitive substring of the device name */
  const char *name;
  double fp32_gflops; /* vector FP32 peak */
  double bw_gbps;     /* memory bandwidth */
  const char *source;
};
extern const struct published_peak published_peaks[];

/* Attainable GFLOP/s at arithmetic intensity ai (FLOP/byte) under roof r:
 * min(peak, ai * bw) with the ceilings known; 0 when neither is. */
double roof_attainable(const struct roof *r, double ai);
/* A case's share of its roof (0..1+), or a negative value when it cannot
 * be placed: OK with flops and bytes: gflops / attainable; flops only:
 * gflops / peak; bytes only: gbps / bw. */
double roof_fraction(const struct roof *r, double flops, double bytes, double median_ns);

#endif
