/* Shared plumbing of the CPU peak plugins (see cpu_peak.h). */
#define _GNU_SOURCE
#include "cpu_peak.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_caches.h"
#include "cpu_common.h"
#include "cpu_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* ---- the roof --------------------------------------------------------------- */

const char *cpu_peak_scope(int64_t param, int threads) {
  if (param == 1 && threads == 1) return ".1t";
  return threads == cpu_count() ? "" : NULL;
}

int cpu_peak_roof(const struct bench_host *host, const struct bench_roof *roof, const char *scope,
                  int threads) {
  const struct bench_ext_roof *ext = bench_host_extension(host, BENCH_EXT_ROOF);
  if (!ext) return BENCH_OK;
  if (!scope) {
    char why[128];
    snprintf(why, sizeof why, "%d threads of %d CPUs: a roof is one thread's or every CPU's",
             threads, cpu_count());
    host->set_info(host, "no_roof", why);
    return BENCH_OK;
  }
  char id[40];
  snprintf(id, sizeof id, "%s%s", roof->id, scope);
  struct bench_roof r = *roof;
  r.id = id;
  return ext->set_roof(host, &r);
}

int cpu_peak_compare(const struct bench_host *host, const struct bench_compare *c) {
  const struct bench_ext_compare *cmp = bench_host_extension(host, BENCH_EXT_COMPARE);
  if (!cmp) return host->skip(host, "needs a bench harness with bench.compare/1 (ABI 1.1)");
  return cmp->compare(host, c);
}

/* ---- memory levels -------------------------------------------------------------- */

int cpu_peak_sharers(int level, int threads) {
  const struct cpu_caches *c = cpu_caches();
  int by = level >= 1 && level <= CACHE_LEVELS ? c->level[level].shared_by : 0;
  if (by <= 0) by = level == c->llc ? threads : 1;
  return by < threads ? by : threads;
}

static int64_t share_bytes(void *user, int level) {
  const int threads = *(const int *)user;
  const struct cpu_caches *c = cpu_caches();
  if (level == BENCH_CACHE_LLC) level = c->llc;
  const int64_t b = cpu_caches_bytes(c, level);
  return b > 0 ? b / cpu_peak_sharers(level, threads) : 0;
}

static void share_describe(void *user, char *buf, size_t size) {
  (void)user;
  cpu_caches_describe(cpu_caches(), buf, size);
}

void cpu_peak_share_caches(struct bench_caches *out, int *threads) {
  *out = (struct bench_caches){share_bytes, share_describe, threads};
}

void cpu_peak_level_of(int64_t bytes, int threads, struct cpu_peak_level *out) {
  const struct cpu_caches *c = cpu_caches();
  for (int lv = 1; lv <= c->llc; lv++) {
    const int64_t size = cpu_caches_bytes(c, lv);
    const int sharers = cpu_peak_sharers(lv, threads);
    if (size > 0 && bytes * sharers <= size) {
      *out = (struct cpu_peak_level){.level = lv, .bytes = size, .sharers = sharers};
      out->id[0] = 'l';
      out->id[1] = (char)('0' + lv);
      return;
    }
  }
  *out = (struct cpu_peak_level){.level = 0, .id = "dram", .bytes = 0, .sharers = 1};
}

/* ---- what the machine says -------------------------------------------------------- */

int cpu_peak_identify(struct cpu_peak_id *id) {
  memset(id, 0, sizeof *id);
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return -1;
  memcpy(id->vendor, &b, 4);
  memcpy(id->vendor + 4, &d, 4);
  memcpy(id->vendor + 8, &c, 4);
  if (!__get_cpuid(1, &a, &b, &c, &d)) return -1;
  const int base_family = (int)((a >> 8) & 0xf), base_model = (int)((a >> 4) & 0xf);
  id->family = base_family == 0xf ? base_family + (int)((a >> 20) & 0xff) : base_family;
  id->model = base_family == 0xf || base_family == 6 ? base_model + (int)(((a >> 16) & 0xf) << 4)
                                                     : base_model;
  return 0;
#else
  return -1;
#endif
}

static int in(int model, int lo, int hi) { return model >= lo && model <= hi; }

static int amd_units(int f, int m, struct cpu_fma_units *u) {
  if (f == 0x18 || (f == 0x17 && m < 0x30))
    *u = (struct cpu_fma_units){2, 128, "AMD Zen/Zen+: AVX2 as 2x128"};
  else if (f == 0x17)
    *u = (struct cpu_fma_units){2, 256, "AMD Zen 2"};
  else if (f == 0x19 && (in(m, 0x10, 0x1f) || in(m, 0x60, 0x7f) || in(m, 0xa0, 0xaf)))
    *u = (struct cpu_fma_units){2, 256, "AMD Zen 4: AVX-512 as 2x256"};
  else if (f == 0x19)
    *u = (struct cpu_fma_units){2, 256, "AMD Zen 3"};
  else if (f == 0x1a && (in(m, 0x00, 0x1f) || in(m, 0x40, 0x4f) || in(m, 0x70, 0x7f)))
    *u = (struct cpu_fma_units){2, 512, "AMD Zen 5: full-width AVX-512"};
  else if (f == 0x1a && (in(m, 0x20, 0x2f) || in(m, 0x60, 0x6f)))
    *u = (struct cpu_fma_units){2, 256, "AMD Zen 5 mobile: AVX-512 as 2x256"};
  else
    return -1;
  return 0;
}

static int intel_units(int f, int m, struct cpu_fma_units *u) {
  static const int xeon512[] = {0x55, 0x6a, 0x6c, 0x8f, 0xcf, 0xad, 0xae};
  static const int avx2[] = {0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x47, 0x4f, 0x56,
                             0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6};
  static const int client512[] = {0x7d, 0x7e, 0x8c, 0x8d, 0xa7};
  if (f != 6) return -1;
  for (size_t i = 0; i < sizeof xeon512 / sizeof *xeon512; i++)
    if (m == xeon512[i]) {
      *u = (struct cpu_fma_units){2, 512, "Intel Xeon with AVX-512: two 512-bit FMA units "
                                          "(some Skylake/Cascade Lake SKUs have one)"};
      return 0;
    }
  for (size_t i = 0; i < sizeof avx2 / sizeof *avx2; i++)
    if (m == avx2[i]) {
      *u = (struct cpu_fma_units){2, 256, "Intel Haswell to Comet Lake"};
      return 0;
    }
  for (size_t i = 0; i < sizeof client512 / sizeof *client512; i++)
    if (m == client512[i]) {
      *u = (struct cpu_fma_units){2, 256, "Intel Ice/Tiger/Rocket Lake client: AVX-512 as 2x256"};
      return 0;
    }
  return -1;
}

int cpu_peak_fma_units(const struct cpu_peak_id *id, struct cpu_fma_units *out) {
  *out = (struct cpu_fma_units){0, 0, NULL};
  if (!strcmp(id->vendor, "AuthenticAMD") || !strcmp(id->vendor, "HygonGenuine"))
    return amd_units(id->family, id->model, out);
  if (!strcmp(id->vendor, "GenuineIntel")) return intel_units(id->family, id->model, out);
  return -1;
}

static const char *sysfs(const char *root) {
  if (root) return root;
  const char *env = getenv("BENCH_SYSFS_ROOT");
  return env && *env ? env : "/sys";
}

/* The first number of a file; -1 when it has none. */
static double read_number(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  double v = -1;
  if (fscanf(f, "%lf", &v) != 1) v = -1;
  fclose(f);
  return v;
}

double cpu_peak_clock_ghz(const char *sysfs_root, const char *cpuinfo, const char **source) {
  char path[512];
  snprintf(path, sizeof path, "%s/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
           sysfs(sysfs_root));
  const double khz = read_number(path);
  if (khz > 0) {
    *source = "cpuinfo_max_freq";
    return khz / 1e6;
  }
  *source = NULL;
  FILE *f = fopen(cpuinfo ? cpuinfo : "/proc/cpuinfo", "r");
  if (!f) return 0;
  char line[512];
  double mhz = 0;
  while (fgets(line, sizeof line, f)) {
    const char *colon = strchr(line, ':');
    if (strncmp(line, "cpu MHz", 7) == 0 && colon && sscanf(colon + 1, "%lf", &mhz) == 1) break;
    mhz = 0;
  }
  fclose(f);
  if (!(mhz > 0)) return 0;
  *source = "cpu MHz in /proc/cpuinfo, the nominal or current clock, not the boost";
  return mhz / 1e3;
}

int cpu_peak_cores(const char *sysfs_root) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  long *seen = calloc(CPU_SETSIZE, sizeof *seen);
  if (!seen) return 0;
  int cores = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &set)) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/topology/core_id", sysfs(sysfs_root), cpu);
    const double core = read_number(path);
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/topology/physical_package_id",
             sysfs(sysfs_root), cpu);
    const double package = read_number(path);
    if (core < 0 || package < 0) {
      cores = 0;
      break;
    }
    const long key = (long)package << 20 | (long)core;
    int dup = 0;
    for (int i = 0; i < cores && !dup; i++) dup = seen[i] == key;
    if (!dup) seen[cores++] = key;
  }
  free(seen);
  return cores;
}
