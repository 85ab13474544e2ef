/* The GPU telemetry reader (gpu_telemetry.h): opens NVML, else AMD SMI,
 * else ROCm SMI (each with dlopen), else the amdgpu driver's sysfs files,
 * and hands each call to that source's file (gpu_nvml.c, gpu_amdsmi.c,
 * gpu_rsmi.c, gpu_sysfs.c); bus ids, throttle names, AMD's throttle bits.
 * The accumulator is gpu_accum.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_telemetry.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_vendor.h"

enum gpu_source { SRC_NVML, SRC_AMDSMI, SRC_RSMI, SRC_SYSFS };

struct gpu_telemetry {
  void *lib; /* NULL for sysfs */
  enum gpu_source src;
  struct gpu_nvml *nv; /* the one src names */
  struct gpu_amdsmi *am;
  struct gpu_rsmi *rs;
  struct gpu_sysfs *fs;
  int count;
  char gaps[320];
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

int gpu_stderr_quiet(void) {
  fflush(stderr);
  int saved = dup(2);
  if (saved < 0) return -1;
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0 || dup2(null, 2) < 0) {
    if (null >= 0) close(null);
    close(saved);
    return -1;
  }
  close(null);
  return saved;
}

void gpu_stderr_restore(int saved) {
  if (saved < 0) return;
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
}

unsigned gpu_amd_throttle_bits(uint64_t indep) {
  unsigned bits = 0;
  if (indep & 0xffffull) bits |= GPU_THR_SW_POWER_CAP;
  if (indep & 0xffff0000ull) bits |= GPU_THR_HW_SLOWDOWN;
  if (indep & 0x00000fff00000000ull) bits |= GPU_THR_SW_THERMAL;
  if (indep & 0x0000f00000000000ull) bits |= GPU_THR_HW_THERMAL;
  if (indep & 0xffff000000000000ull) bits |= GPU_THR_OTHER;
  return bits;
}

/* dlopen of the first of names that opens, its name in *file; NULL with the
 * first name's dlerror in why when none does. */
static void *open_first(const char *const *names, size_t n, const char **file, char *why, size_t why_len) {
  for (size_t i = 0; i < n; i++) {
    void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      *file = names[i];
      return lib;
    }
    if (i == 0) snprintf(why, why_len, "%s", dlerror());
  }
  return NULL;
}

static int try_nvml(struct gpu_telemetry *t, char *why, size_t why_len) {
  static const char *const names[] = {"libnvidia-ml.so.1"};
  const char *file;
  t->lib = open_first(names, 1, &file, why, why_len);
  if (!t->lib) return -1;
  t->nv = gpu_nvml_open(t->lib, &t->count, t->gaps, sizeof t->gaps, why, why_len);
  t->src = SRC_NVML;
  return t->nv ? 0 : -1;
}

static int try_amdsmi(struct gpu_telemetry *t, char *why, size_t why_len) {
  static const char *const names[] = {"libamd_smi.so", "libamd_smi.so.26", "libamd_smi.so.25", "libamd_smi.so.24",
                                      "libamd_smi.so.23"};
  const char *file;
  t->lib = open_first(names, sizeof names / sizeof *names, &file, why, why_len);
  if (!t->lib) return -1;
  t->am = gpu_amdsmi_open(t->lib, file, &t->count, t->gaps, sizeof t->gaps, why, why_len);
  t->src = SRC_AMDSMI;
  return t->am ? 0 : -1;
}

static int try_rsmi(struct gpu_telemetry *t, char *why, size_t why_len) {
  static const char *const names[] = {"librocm_smi64.so", "librocm_smi64.so.1", "librocm_smi64.so.5"};
  const char *file;
  t->lib = open_first(names, sizeof names / sizeof *names, &file, why, why_len);
  if (!t->lib) return -1;
  t->rs = gpu_rsmi_open(t->lib, file, &t->count, t->gaps, sizeof t->gaps, why, why_len);
  t->src = SRC_RSMI;
  return t->rs ? 0 : -1;
}

static int try_sysfs(struct gpu_telemetry *t, char *why, size_t why_len) {
  t->fs = gpu_sysfs_open(getenv("BENCH_SYSFS_ROOT"), &t->count, t->gaps, sizeof t->gaps, why, why_len);
  t->src = SRC_SYSFS;
  return t->fs ? 0 : -1;
}

struct gpu_telemetry *gpu_telemetry_open(char *note, size_t note_len) {
  static int (*const tries[])(struct gpu_telemetry *, char *, size_t) = {try_nvml, try_amdsmi, try_rsmi, try_sysfs};
  enum { N = sizeof tries / sizeof *tries };
  char why[N][256];
  struct gpu_telemetry *t = calloc(1, sizeof *t);
  if (!t) {
    snprintf(note, note_len, "gpu telemetry: out of memory");
    return NULL;
  }
  for (int i = 0; i < N; i++) {
    why[i][0] = 0;
    if (tries[i](t, why[i], sizeof why[i]) == 0) return t;
    if (t->lib) dlclose(t->lib);
    memset(t, 0, sizeof *t);
  }
  snprintf(note, note_len, "no NVIDIA or AMD management library: %s; %s; %s; %s", why[0], why[1], why[2], why[3]);
  free(t);
  return NULL;
}

void gpu_telemetry_close(struct gpu_telemetry *t) {
  if (!t) return;
  gpu_nvml_close(t->nv);
  gpu_amdsmi_close(t->am);
  gpu_rsmi_close(t->rs);
  gpu_sysfs_close(t->fs);
  if (t->lib) dlclose(t->lib);
  free(t);
}

const char *gpu_telemetry_library(const struct gpu_telemetry *t) {
  static const char *const names[] = {"nvml", "amd_smi", "rocm_smi", "sysfs"};
  return names[t->src];
}
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
  switch (t->src) {
    case SRC_NVML: gpu_nvml_facts(t->nv, index, f); break;
    case SRC_AMDSMI: gpu_amdsmi_facts(t->am, index, f); break;
    case SRC_RSMI: gpu_rsmi_facts(t->rs, index, f); break;
    case SRC_SYSFS: gpu_sysfs_facts(t->fs, index, f); break;
  }
  return 0;
}

int gpu_telemetry_read(const struct gpu_telemetry *t, int index, struct gpu_reading *r) {
  memset(r, 0, sizeof *r);
  if (index < 0 || index >= t->count) return -1;
  switch (t->src) {
    case SRC_NVML: gpu_nvml_read(t->nv, index, r); break;
    case SRC_AMDSMI: gpu_amdsmi_read(t->am, index, r); break;
    case SRC_RSMI: gpu_rsmi_read(t->rs, index, r); break;
    case SRC_SYSFS: gpu_sysfs_read(t->fs, index, r); break;
  }
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
