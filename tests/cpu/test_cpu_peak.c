/* The peak plugins' plumbing (plugins/cpu/cpu_peak.c, cpu_stream.c): the
 * FMA units table for the cores it names (and none for those it does not),
 * the clock from a fake sysfs's cpufreq, else a fake /proc/cpuinfo's "cpu
 * MHz", else none; physical cores from a fake topology; a roof's thread
 * scope; the memory level of a working set against this machine's caches
 * and each thread's share of them; and the streaming kernels exact on
 * every path this CPU has (normal, 16- and 64-byte non-temporal stores),
 * tails included. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/test.h"
#include "cpu_caches.h"
#include "cpu_common.h"
#include "cpu_peak.h"
#include "cpu_pool.h"
#include "cpu_stream.h"

static char root[256];

static void write_file(const char *rel, const char *text) {
  char path[512], dir[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
    snprintf(dir, sizeof dir, "%.*s", (int)(p - path), path);
    mkdir(dir, 0755);
  }
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static struct cpu_fma_units units_of(const char *vendor, int family, int model, int *rc) {
  struct cpu_peak_id id = {.family = family, .model = model};
  snprintf(id.vendor, sizeof id.vendor, "%s", vendor);
  struct cpu_fma_units u;
  *rc = cpu_peak_fma_units(&id, &u);
  return u;
}

static void test_fma_table(void) {
  static const struct {
    const char *vendor;
    int family, model, pipes, bits;
    const char *core;
  } known[] = {
      {"AuthenticAMD", 0x17, 0x01, 2, 128, "Zen/Zen+"}, {"HygonGenuine", 0x18, 0x00, 2, 128, "Zen/Zen+"},
      {"AuthenticAMD", 0x17, 0x31, 2, 256, "Zen 2"},    {"AuthenticAMD", 0x19, 0x01, 2, 256, "Zen 3"},
      {"AuthenticAMD", 0x19, 0x21, 2, 256, "Zen 3"},    {"AuthenticAMD", 0x19, 0x11, 2, 256, "Zen 4"},
      {"AuthenticAMD", 0x19, 0x61, 2, 256, "Zen 4"},    {"AuthenticAMD", 0x19, 0xa0, 2, 256, "Zen 4"},
      {"AuthenticAMD", 0x1a, 0x02, 2, 512, "Zen 5"},    {"AuthenticAMD", 0x1a, 0x11, 2, 512, "Zen 5"},
      {"AuthenticAMD", 0x1a, 0x44, 2, 512, "Zen 5"},    {"AuthenticAMD", 0x1a, 0x24, 2, 256, "mobile"},
      {"GenuineIntel", 6, 0x55, 2, 512, "Xeon"},        {"GenuineIntel", 6, 0x8f, 2, 512, "Xeon"},
      {"GenuineIntel", 6, 0x6a, 2, 512, "Xeon"},        {"GenuineIntel", 6, 0x3c, 2, 256, "Haswell"},
      {"GenuineIntel", 6, 0x9e, 2, 256, "Haswell"},     {"GenuineIntel", 6, 0x8c, 2, 256, "2x256"},
  };
  for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
    int rc;
    const struct cpu_fma_units u = units_of(known[i].vendor, known[i].family, known[i].model, &rc);
    CHECK(rc == 0);
    CHECK(u.pipes == known[i].pipes);
    CHECK(u.bits == known[i].bits);
    CHECK(u.core && strstr(u.core, known[i].core));
    if (rc || u.bits != known[i].bits)
      fprintf(stderr, "  %s family 0x%x model 0x%x\n", known[i].vendor, known[i].family, known[i].model);
  }
  /* Hybrid Intel cores, an AMD family of tomorrow, another vendor: unknown. */
  static const struct {
    const char *vendor;
    int family, model;
  } unknown[] = {{"GenuineIntel", 6, 0x97}, {"GenuineIntel", 6, 0xb7}, {"GenuineIntel", 0xf, 0x01},
                 {"AuthenticAMD", 0x1b, 0x00}, {"AuthenticAMD", 0x15, 0x02}, {"CentaurHauls", 6, 0x0f},
                 {"", 0, 0}};
  for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
    int rc;
    const struct cpu_fma_units u = units_of(unknown[i].vendor, unknown[i].family, unknown[i].model, &rc);
    CHECK(rc == -1);
    CHECK(u.pipes == 0);
  }
#if defined(__x86_64__)
  struct cpu_peak_id id;
  CHECK(cpu_peak_identify(&id) == 0);
  CHECK(strlen(id.vendor) == 12);
  CHECK(id.family > 0);
#endif
}

static void test_clock(void) {
  const char *src = "x";
  char cpuinfo[512];
  snprintf(cpuinfo, sizeof cpuinfo, "%s/cpuinfo", root);
  /* neither */
  CHECK(cpu_peak_clock_ghz(root, cpuinfo, &src) == 0);
  CHECK(src == NULL);
  /* /proc/cpuinfo's first cpu MHz */
  write_file("cpuinfo", "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2596.130\n"
                        "processor\t: 1\ncpu MHz\t\t: 1800.000\n");
  CHECK_NEAR(cpu_peak_clock_ghz(root, cpuinfo, &src), 2.59613, 1e-9);
  CHECK(src && strstr(src, "cpu MHz"));
  /* cpufreq's cpuinfo_max_freq (kHz) first */
  write_file("devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3700000\n");
  CHECK_NEAR(cpu_peak_clock_ghz(root, cpuinfo, &src), 3.7, 1e-9);
  CHECK(src && strcmp(src, "cpuinfo_max_freq") == 0);
}

static void test_cores(void) {
  const int n = cpu_count();
  CHECK(cpu_peak_cores(root) == 0); /* no topology */
  cpu_set_t set;
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  char rel[128];
  /* every CPU its own core, then every two CPUs siblings of one */
  for (int pass = 0; pass < 2; pass++) {
    int k = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
      if (!CPU_ISSET(cpu, &set)) continue;
      char id[16];
      snprintf(id, sizeof id, "%d\n", pass == 0 ? k : k / 2);
      snprintf(rel, sizeof rel, "devices/system/cpu/cpu%d/topology/core_id", cpu);
      write_file(rel, id);
      snprintf(rel, sizeof rel, "devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
      write_file(rel, "0\n");
      k++;
    }
    CHECK(cpu_peak_cores(root) == (pass == 0 ? n : (n + 1) / 2));
  }
  CHECK(cpu_peak_cores("/sys") <= n); /* this machine's: at most its CPUs */
}

static void test_scope(void) {
  const int n = cpu_count();
  CHECK(strcmp(cpu_peak_scope(1, 1), ".1t") == 0);
  CHECK(strcmp(cpu_peak_scope(0, n), "") == 0);
  CHECK(strcmp(cpu_peak_scope(n, n), n == 1 ? ".1t" : "") == 0);
  CHECK(cpu_peak_scope(n + 1, n + 1) == NULL);
}

static void test_levels(void) {
  const struct cpu_caches *c = cpu_caches();
  const int64_t l1 = cpu_caches_bytes(c, 1), llc = cpu_caches_bytes(c, c->llc);
  struct cpu_peak_level lv;
  cpu_peak_level_of(l1 / 2, 1, &lv);
  CHECK(lv.level == 1 && strcmp(lv.id, "l1") == 0 && lv.bytes == l1 && lv.sharers == 1);
  cpu_peak_level_of(l1 + 64, 1, &lv);
  CHECK(lv.level >= 2 && lv.id[0] == 'l' && lv.bytes >= l1);
  cpu_peak_level_of(2 * llc, 1, &lv);
  CHECK(lv.level == 0 && strcmp(lv.id, "dram") == 0 && lv.bytes == 0);
  /* on every CPU: each thread's share of the LLC */
  int threads = cpu_count();
  const int sharers = cpu_peak_sharers(c->llc, threads);
  CHECK(sharers >= 1 && sharers <= threads);
  struct bench_caches shares;
  cpu_peak_share_caches(&shares, &threads);
  CHECK(shares.bytes(shares.user, BENCH_CACHE_LLC) == llc / sharers);
  CHECK(shares.bytes(shares.user, 1) == l1 / cpu_peak_sharers(1, threads));
  cpu_peak_level_of(llc / sharers / 2, threads, &lv);
  CHECK(lv.level >= 1 && lv.level <= c->llc);
  cpu_peak_level_of(llc / sharers + 64, threads, &lv);
  CHECK(lv.level == 0);
}

/* Each kernel on each store path against the values it must give, at
 * lengths with tails and offsets of whole lines. */
static void test_stream(void) {
  const int64_t n = 1000 + 8 * 37 + 5;
  double *x = cpu_alloc((size_t)n * sizeof *x), *y = cpu_alloc((size_t)n * sizeof *y),
         *d = cpu_alloc((size_t)n * sizeof *d);
  REQUIRE(x && y && d);
  double want = 0;
  for (int64_t i = 0; i < n; i++) {
    x[i] = (double)(1 + i % 7);
    y[i] = (double)(1 + i % 5);
    want += x[i];
  }
  CHECK(cpu_stream_sum(x, n) == want);
  CHECK(cpu_stream_sum(x, 0) == 0);
  CHECK(cpu_stream_sum(x + 3, 1) == x[3]);
  /* fill dst = q, copy dst = x, scale dst = q y, triad dst = x + q y */
  static const struct {
    int x, y;
    double q;
  } kinds[] = {{0, 0, 2.0}, {1, 0, 1.0}, {0, 1, 3.0}, {1, 1, 3.0}};
  const int paths[] = {0, cpu_stream_store_bytes(1)};
  for (size_t p = 0; p < 2; p++)
    for (int k = 0; k < 4; k++) {
      const int64_t i0 = 8 * (k + 1), i1 = n - k;
      const double *a = kinds[k].x ? x : NULL, *b = kinds[k].y ? y : NULL, q = kinds[k].q;
      for (int64_t i = 0; i < n; i++) d[i] = -1;
      cpu_stream_kernel(d, a, b, q, i0, i1, paths[p]);
      int bad = 0;
      for (int64_t i = 0; i < n; i++) {
        const double e = i < i0 || i >= i1 ? -1 : (a ? x[i] : 0) + (b ? q * y[i] : a ? 0 : q);
        bad += d[i] != e;
      }
      CHECK(bad == 0);
      if (bad) fprintf(stderr, "  kind %d, stores of %d bytes: %d wrong\n", k, paths[p], bad);
    }
  cpu_free(x);
  cpu_free(y);
  cpu_free(d);
}

/* The fake sysfs and cpuinfo of test_clock and test_cores. */
static void test_root(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/test_cpu_peak.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  REQUIRE(mkdtemp(root) != NULL);
}

static void test_cleanup(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  CHECK(system(cmd) == 0);
}

TEST_MAIN(TEST_ENTRY(test_root), TEST_ENTRY(test_fma_table), TEST_ENTRY(test_clock),
          TEST_ENTRY(test_cores), TEST_ENTRY(test_scope), TEST_ENTRY(test_levels),
          TEST_ENTRY(test_stream), TEST_ENTRY(test_cleanup))
