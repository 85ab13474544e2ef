/* Roofline ceilings: measured in the results folder, else published. */
#include "analyze/roofs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/compare_stats.h"
#include "core/util.h"

/* Vendor figures (peak, not achieved). FP32 vector peaks, memory bandwidth
 * of the whole package:
 * - AMD Instinct MI300X: 163.4 TFLOP/s FP32, 5.3 TB/s HBM3 (AMD MI300X data
 *   sheet, amd.com/en/products/accelerators/instinct/mi300/mi300x.html)
 * - AMD Instinct MI250X: 47.9 TFLOP/s FP32 vector, 3.2768 TB/s HBM2e (AMD
 *   MI250X data sheet)
 * - NVIDIA H100 SXM5: 66.9 TFLOP/s FP32, 3.35 TB/s HBM3 (NVIDIA H100 data
 *   sheet; the PCIe card: 51.2 TFLOP/s, 2.0 TB/s)
 * A CPU has no entry: its roofs are measured (membw_cpu, cpu_gemm). */
const struct published_peak published_peaks[] = {
    {"mi300x", "AMD Instinct MI300X", 163400, 5300, "published: AMD MI300X data sheet"},
    {"mi250x", "AMD Instinct MI250X", 47900, 3276.8, "published: AMD MI250X data sheet"},
    {"h100 pcie", "NVIDIA H100 PCIe", 51200, 2000, "published: NVIDIA H100 data sheet"},
    {"h100", "NVIDIA H100 SXM5", 66900, 3350, "published: NVIDIA H100 data sheet"},
    {NULL, NULL, 0, 0, NULL},
};

const char *case_device(const struct rs_entry *e) {
  const char *d = kv_list_get(e->r->ninfo, e->r->info, "device");
  if (d && *d) return d;
  if (e->r->backend && strcmp(e->r->backend, "cpu") == 0 && e->file->env.cpu && *e->file->env.cpu)
    return e->file->env.cpu;
  return e->r->backend ? e->r->backend : "?";
}

static int is_gemm_plugin(const char *p) {
  return strcmp(p, "cpu_gemm") == 0 || strncmp(p, "vk_gemm", 7) == 0 || strcmp(p, "hip_gemm") == 0;
}

static int is_copy_case(const struct rs_entry *e) {
  if (strcmp(e->plugin, "vk_copy") == 0 || strcmp(e->plugin, "hip_copy") == 0) return 1;
  const char *k = kv_list_get(e->r->nparams, e->r->params, "kernel");
  return strcmp(e->plugin, "membw_cpu") == 0 && k && strcmp(k, "copy") == 0;
}

static struct roof *roof_for(struct roof_set *rs, const char *device) {
  for (size_t i = 0; i < rs->n; i++)
    if (strcmp(rs->roofs[i].device, device) == 0) return &rs->roofs[i];
  rs->roofs = xrealloc(rs->roofs, (rs->n + 1) * sizeof *rs->roofs);
  struct roof *r = &rs->roofs[rs->n++];
  memset(r, 0, sizeof *r);
  r->device = xstrdup(device);
  return r;
}

static double median_of(const struct rs_entry *e) {
  size_t n;
  const double *x = rs_samples(e->r, rs_has_device(e->r), &n);
  return n ? cs_median(x, n) : NAN;
}

static void set_source(char **dst, const struct rs_entry *e, const char *what) {
  free(*dst);
  *dst = xasprintf("measured: %s %s%s(%s, %s)", e->plugin, e->params, *e->params ? " " : "", what, e->date);
}

/* Why a ceiling of r is missing: the newest failed case that would have
 * measured it, else that no such case ran on the device. */
static void set_missing(char **dst, const struct rs_entry *e) {
  free(*dst);
  *dst = xasprintf("%s %s%s%s on %s", e->plugin, e->params, *e->params ? " " : "", case_status_name(e->r->status),
                   e->date);
}

void roofs_build(const struct result_set *s, const size_t *idx, size_t n, struct roof_set *out) {
  memset(out, 0, sizeof *out);
  /* a device gets a roof only when one of its cases has data (an OK case
   * with samples): a plugin that was only SKIPPED names no device */
  for (size_t i = 0; i < n; i++) {
    const struct rs_entry *e = &s->entries[idx[i]];
    if (e->r->status != CASE_OK) continue;
    double med = median_of(e);
    if (!(med > 0)) continue;
    struct roof *r = roof_for(out, case_device(e));
    if (is_gemm_plugin(e->plugin) && e->r->flops > 0 && e->r->flops / med > r->peak_gflops) {
      r->peak_gflops = e->r->flops / med;
      set_source(&r->peak_source, e, "best GEMM");
    }
    if (is_copy_case(e) && e->r->bytes > 0 && e->r->bytes / med > r->bw_gbps) {
      r->bw_gbps = e->r->bytes / med;
      set_source(&r->bw_source, e, "best copy");
    }
  }
  for (size_t i = 0; i < out->n; i++) {
    struct roof *r = &out->roofs[i];
    for (const struct published_peak *p = published_peaks; p->match; p++) {
      if (!strcasestr(r->device, p->match)) continue;
      if (!(r->peak_gflops > 0)) r->peak_gflops = p->fp32_gflops, r->peak_source = xstrdup(p->source);
      if (!(r->bw_gbps > 0)) r->bw_gbps = p->bw_gbps, r->bw_source = xstrdup(p->source);
      break;
    }
  }
  /* the reasons for the ceilings still missing */
  for (size_t i = 0; i < n; i++) {
    const struct rs_entry *e = &s->entries[idx[i]];
    if (e->r->status == CASE_OK) continue;
    struct roof *r = (struct roof *)roof_of(out, case_device(e));
    if (!r) continue;
    if (is_gemm_plugin(e->plugin) && !(r->peak_gflops > 0)) set_missing(&r->peak_missing, e);
    if (is_copy_case(e) && !(r->bw_gbps > 0)) set_missing(&r->bw_missing, e);
  }
  for (size_t i = 0; i < out->n; i++) {
    struct roof *r = &out->roofs[i];
    char *why;
    if (!(r->peak_gflops > 0)) {
      why = r->peak_missing ? xasprintf("no compute roof: %s", r->peak_missing)
                            : xstrdup("no compute roof: no OK GEMM case (cpu_gemm, vk_gemm*, hip_gemm) on this "
                                      "device and no published peak for it");
      free(r->peak_missing);
      r->peak_missing = why;
    }
    if (!(r->bw_gbps > 0)) {
      why = r->bw_missing ? xasprintf("no memory roof: %s", r->bw_missing)
                          : xstrdup("no memory roof: no OK copy case (membw_cpu kernel=copy, vk_copy, hip_copy) on "
                                    "this device and no published bandwidth for it");
      free(r->bw_missing);
      r->bw_missing = why;
    }
  }
}

const struct roof *roof_of(const struct roof_set *rs, const char *device) {
  for (size_t i = 0; i < rs->n; i++)
    if (strcmp(rs->roofs[i].device, device) == 0) return &rs->roofs[i];
  return NULL;
}

void roofs_release(struct roof_set *rs) {
  for (size_t i = 0; i < rs->n; i++) {
    free(rs->roofs[i].device);
    free(rs->roofs[i].peak_source);
    free(rs->roofs[i].bw_source);
    free(rs->roofs[i].peak_missing);
    free(rs->roofs[i].bw_missing);
  }
  free(rs->roofs);
  memset(rs, 0, sizeof *rs);
}

double roof_attainable(const struct roof *r, double ai) {
  double a = r->peak_gflops > 0 ? r->peak_gflops : INFINITY;
  double b = r->bw_gbps > 0 && ai > 0 ? ai * r->bw_gbps : INFINITY;
  double m = a < b ? a : b;
  return isfinite(m) ? m : 0.0;
}

double roof_fraction(const struct roof *r, double flops, double bytes, double median_ns) {
  if (!r || !(median_ns > 0)) return -1;
  if (flops > 0 && bytes > 0) {
    double att = roof_attainable(r, flops / bytes);
    return att > 0 ? flops / median_ns / att : -1;
  }
  if (flops > 0) return r->peak_gflops > 0 ? flops / median_ns / r->peak_gflops : -1;
  if (bytes > 0) return r->bw_gbps > 0 ? bytes / median_ns / r->bw_gbps : -1;
  return -1;
}
