/* The GPU telemetry reader (gpu_telemetry.h): opens NVML, else ROCm SMI,
 * with dlopen and hands each call to that vendor's file (gpu_nvml.c,
 * gpu_rsmi.c); bus ids and throttle names. The accumulator is gpu_accum.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_telemetry.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_vendor.h"

struct gpu_telemetry {
  void *lib;
  struct gpu_nvml *nv; /* one of the two */
  struct gpu_rsmi *rs;
  int count;
  char gaps[160];
};

struct gpu_value gpu_value_in(double v, double lo, double hi) {
  struct gpu_value g = {0, 0};
  if (isfinite(v) && v >= lo && v <= hi) {
    g.have = 1;
    g.v = v;
  }
  return g;
}

void gpu_dlsym_first(void *lib, void *fn_ptr, const char *const *names) {
  void *p = NULL;
  for (; *names && !p; names++) p = dlsym(lib, *names);
  memcpy(fn_ptr, &p, sizeof p);
}

void gpu_gap_add(char *gaps, size_t len, const char *what) {
  size_t n = strlen(gaps);
  snprintf(gaps + n, len - n, "%s%s", n ? ", " : "", what);
}

struct gpu_telemetry *gpu_telemetry_open(char *note, size_t note_len) {
  static const char *const rsmi_names[] = {"librocm_smi64.so", "librocm_smi64.so.1", "librocm_smi64.so.5"};
  char why_nv[256] = "", why_rs[256] = "";
  struct gpu_telemetry *t = calloc(1, sizeof *t);
  if (!t) {
    snprintf(note, note_len, "gpu telemetry: out of memory");
    return NULL;
  }
  t->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!t->lib) {
    snprintf(why_nv, sizeof why_nv, "%s", dlerror());
  } else {
    t->nv = gpu_nvml_open(t->lib, &t->count, t->gaps, sizeof t->gaps, why_nv, sizeof why_nv);
    if (t->nv) return t;
    dlclose(t->lib);
    t->gaps[0] = 0;
  }
  for (size_t i = 0; i < sizeof rsmi_names / sizeof *rsmi_names; i++) {
    t->lib = dlopen(rsmi_names[i], RTLD_NOW | RTLD_LOCAL);
    if (!t->lib) {
      if (i == 0) snprintf(why_rs, sizeof why_rs, "%s", dlerror());
      continue;
    }
    t->rs = gpu_rsmi_open(t->lib, rsmi_names[i], &t->count, t->gaps, sizeof t->gaps, why_rs, sizeof why_rs);
    if (t->rs) return t;
    dlclose(t->lib);
    break;
  }
  snprintf(note, note_len, "no NVIDIA or AMD management library: %s; %s", why_nv, why_rs);
  free(t);
  return NULL;
}

void gpu_telemetry_close(struct gpu_telemetry *t) {
  if (!t) return;
  gpu_nvml_close(t->nv);
  gpu_rsmi_close(t->rs);
  dlclose(t->lib);
  free(t);
}

const char *gpu_telemetry_library(const struct gpu_telemetry *t) { return t->nv ? "nvml" : "rocm_smi"; }
const char *gpu_telemetry_gaps(const struct gpu_telemetry *t) { return t->gaps; }
int gpu_telemetry_count(const struct gpu_telemetry *t) { return t->count; }

int gpu_bus_id_normalise(const char *in, char out[GPU_BUS_ID_LEN]) {
  unsigned dom = 0, bus, dev, fn;
  int used = -1;
  if (!in || strspn(in, "0123456789abcdefABCDEF:.") != strlen(in)) return -1;
  size_t colons = 0;
  for (const char *p = in; *p; p++) colons += *p == ':';
  if (colons == 2) sscanf(in, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &used);
  else if (colons == 1) sscanf(in, "%x:%x.%x%n", &bus, &dev, &fn, &used);
  if (used < 0 || in[used] != 0 || bus > 0xff || dev > 0x1f || fn > 7) return -1;
  snprintf(out, GPU_BUS_ID_LEN, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
  return 0;
}

int gpu_telemetry_find(const struct gpu_telemetry *t, const char *bus_id) {
  char want[GPU_BUS_ID_LEN];
  if (!bus_id || !*bus_id) return -1;
  if (strspn(bus_id, "0123456789") == strlen(bus_id)) {
    long i = strtol(bus_id, NULL, 10);
    return i < t->count ? (int)i : -1;
  }
  if (gpu_bus_id_normalise(bus_id, want) != 0) return -1;
  for (int i = 0; i < t->count; i++) {
    struct gpu_facts f;
    if (gpu_telemetry_facts(t, i, &f) == 0 && strcmp(f.bus_id, want) == 0) return i;
  }
  return -1;
}

int gpu_telemetry_facts(const struct gpu_telemetry *t, int index, struct gpu_facts *f) {
  memset(f, 0, sizeof *f);
  if (index < 0 || index >= t->count) return -1;
  if (t->nv) gpu_nvml_facts(t->nv, index, f);
  else gpu_rsmi_facts(t->rs, index, f);
  return 0;
}

int gpu_telemetry_read(const struct gpu_telemetry *t, int index, struct gpu_reading *r) {
  memset(r, 0, sizeof *r);
  if (index < 0 || index >= t->count) return -1;
  if (t->nv) gpu_nvml_read(t->nv, index, r);
  else gpu_rsmi_read(t->rs, index, r);
  return 0;
}

int gpu_throttle_names(unsigned bits, char *buf, size_t len) {
  static const char *const names[] = {"gpu_idle",   "app_clocks", "sw_power_cap",   "hw_slowdown",    "sync_boost",
                                      "sw_thermal", "hw_thermal", "hw_power_brake", "display_clocks", "other"};
  int n = 0;
  if (len) buf[0] = 0;
  for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
    if (!(bits & (1u << i))) continue;
    size_t at = (size_t)n < len ? (size_t)n : len;
    n += snprintf(buf + at, len - at, "%s%s", n ? "," : "", names[i]);
  }
  return n;
}
