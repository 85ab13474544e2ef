/* This machine's data caches: sysfs, CPUID, sysconf, a stated default (see
 * cpu_caches.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cpu_caches.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID 1
#else
#define HAVE_CPUID 0
#endif

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)
#define DEFAULT_SOURCES "sysfs,cpuid,sysconf"

/* A figure outside [1 KiB, 16 GiB] is a broken source (a hypervisor's
 * zeroed or made-up CPUID, a sysfs file in another format), not a cache. */
static int plausible(int64_t bytes) { return bytes >= KIB && bytes <= ((int64_t)16 << 30); }

const char *cache_source_name(enum cache_source s) {
  switch (s) {
  case CACHE_SYSFS: return "sysfs";
  case CACHE_CPUID: return "cpuid";
  case CACHE_SYSCONF: return "sysconf";
  case CACHE_DEFAULT: return "default";
  case CACHE_NONE: break;
  }
  return "none";
}

/* Fills level `lv` when still unknown; 1 when it did. */
static int fill(struct cpu_caches *c, int lv, int64_t bytes, int shared_by, enum cache_source src) {
  if (lv < 1 || lv > CACHE_LEVELS || c->level[lv].bytes > 0 || !plausible(bytes)) return 0;
  c->level[lv] = (struct cache_level){bytes, shared_by > 0 ? shared_by : 0, src};
  return 1;
}

/* ---- sysfs ----------------------------------------------------------------- */

/* The first line of a small file, newline cut; 0 on success. */
static int read_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *ok = fgets(buf, (int)len, f);
  fclose(f);
  if (!ok) return -1;
  buf[strcspn(buf, "\n")] = 0;
  return 0;
}

/* "32K", "1024K", "32M", "65536" -> bytes; -1 when not a size. */
static int64_t sysfs_size(const char *text) {
  char *end;
  long long v = strtoll(text, &end, 10);
  if (end == text || v <= 0) return -1;
  int64_t b = (int64_t)v;
  switch (toupper((unsigned char)*end)) {
  case 'K': b <<= 10; end++; break;
  case 'M': b <<= 20; end++; break;
  case 'G': b <<= 30; end++; break;
  default: break;
  }
  if (*end == 'B' || *end == 'i') end++; /* tolerate "KB" / "Ki" spellings */
  return *end ? -1 : b;
}

/* CPUs in a list such as "0-1,4,6-7"; 0 when malformed. */
static int cpu_list_count(const char *text) {
  int n = 0;
  const char *s = text;
  while (*s) {
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || a < 0) return 0;
    long b = a;
    if (*end == '-') {
      s = end + 1;
      b = strtol(s, &end, 10);
      if (end == s || b < a) return 0;
    }
    n += (int)(b - a + 1);
    s = end;
    if (*s == ',') s++;
    else if (*s) return 0;
  }
  return n;
}

int cpu_caches_from_sysfs(struct cpu_caches *out, const char *sysfs_root) {
  const char *root = sysfs_root && *sysfs_root ? sysfs_root : "/sys";
  struct cache_level found[CACHE_LEVELS + 1] = {{0}};
  for (int i = 0; i < 64; i++) {
    char path[512], text[256];
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu0/cache/index%d/level", root, i);
    if (read_line(path, text, sizeof text) != 0) continue;
    const int lv = atoi(text);
    if (lv < 1 || lv > CACHE_LEVELS) continue;
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu0/cache/index%d/type", root, i);
    if (read_line(path, text, sizeof text) != 0 || strcmp(text, "Instruction") == 0) continue;
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu0/cache/index%d/size", root, i);
    if (read_line(path, text, sizeof text) != 0) continue;
    const int64_t bytes = sysfs_size(text);
    if (bytes <= found[lv].bytes) continue; /* two data caches of a level: the larger */
    int shared = 0;
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", root, i);
    if (read_line(path, text, sizeof text) == 0) shared = cpu_list_count(text);
    found[lv] = (struct cache_level){bytes, shared, CACHE_SYSFS};
  }
  int n = 0;
  for (int lv = 1; lv <= CACHE_LEVELS; lv++)
    n += fill(out, lv, found[lv].bytes, found[lv].shared_by, CACHE_SYSFS);
  return n;
}

/* ---- cpuid ------------------------------------------------------------------ */

#if HAVE_CPUID
static void cpuid_insn(uint32_t leaf, uint32_t sub, uint32_t r[4], void *arg) {
  (void)arg;
  __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
#endif

/* Leaf 4 (Intel) and 0x8000001D (AMD) share one layout: EAX[4:0] type
 * (0 = no more, 1 data, 2 instruction, 3 unified), EAX[7:5] level,
 * EAX[25:14] + 1 logical CPUs sharing; EBX[11:0] + 1 line, EBX[21:12] + 1
 * partitions, EBX[31:22] + 1 ways; ECX + 1 sets. */
static int from_deterministic_leaf(struct cpu_caches *out, cpuid_fn cpuid, void *arg,
                                   uint32_t leaf) {
  int n = 0;
  for (uint32_t sub = 0; sub < 16; sub++) {
    uint32_t r[4] = {0};
    cpuid(leaf, sub, r, arg);
    const uint32_t type = r[0] & 0x1f;
    if (type == 0) break;
    if (type == 2) continue;
    const int lv = (int)((r[0] >> 5) & 7);
    const int shared = (int)((r[0] >> 14) & 0xfff) + 1;
    const int64_t line = (int64_t)(r[1] & 0xfff) + 1, parts = (int64_t)((r[1] >> 12) & 0x3ff) + 1,
                  ways = (int64_t)(r[1] >> 22) + 1, sets = (int64_t)r[2] + 1;
    n += fill(out, lv, ways * parts * line * sets, shared, CACHE_CPUID);
  }
  return n;
}

int cpu_caches_from_cpuid(struct cpu_caches *out, cpuid_fn cpuid, void *arg) {
  if (!cpuid) {
#if HAVE_CPUID
    cpuid = cpuid_insn;
#else
    return 0; /* no CPUID on this architecture */
#endif
  }
  uint32_t r[4] = {0};
  cpuid(0, 0, r, arg);
  const uint32_t max_leaf = r[0];
  char vendor[13];
  memcpy(vendor, &r[1], 4);
  memcpy(vendor + 4, &r[3], 4);
  memcpy(vendor + 8, &r[2], 4);
  vendor[12] = 0;
  const int amd = !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");
  cpuid(0x80000000u, 0, r, arg);
  const uint32_t max_ext = r[0];

  if (amd) {
    int topoext = 0;
    if (max_ext >= 0x80000001u) {
      cpuid(0x80000001u, 0, r, arg);
      topoext = (r[2] >> 22) & 1;
    }
    int n = 0;
    if (topoext && max_ext >= 0x8000001Du) n = from_deterministic_leaf(out, cpuid, arg, 0x8000001Du);
    if (n > 0) return n;
    /* Older AMD: 0x80000005 ECX[31:24] L1d KiB; 0x80000006 ECX[31:16] L2
     * KiB, EDX[31:18] L3 in 512 KiB units (the whole L3, no sharing count). */
    if (max_ext >= 0x80000005u) {
      cpuid(0x80000005u, 0, r, arg);
      n += fill(out, 1, (int64_t)(r[2] >> 24) * KIB, 0, CACHE_CPUID);
    }
    if (max_ext >= 0x80000006u) {
      cpuid(0x80000006u, 0, r, arg);
      n += fill(out, 2, (int64_t)(r[2] >> 16) * KIB, 0, CACHE_CPUID);
      n += fill(out, 3, (int64_t)(r[3] >> 18) * 512 * KIB, 0, CACHE_CPUID);
    }
    return n;
  }
  return max_leaf >= 4 ? from_deterministic_leaf(out, cpuid, arg, 4) : 0;
}

/* ---- sysconf ----------------------------------------------------------------- */

int cpu_caches_from_sysconf(struct cpu_caches *out) {
  int n = 0;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  n += fill(out, 1, sysconf(_SC_LEVEL1_DCACHE_SIZE), 0, CACHE_SYSCONF);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  n += fill(out, 2, sysconf(_SC_LEVEL2_CACHE_SIZE), 0, CACHE_SYSCONF);
#endif
#ifdef _SC_LEVEL3_CACHE_SIZE
  n += fill(out, 3, sysconf(_SC_LEVEL3_CACHE_SIZE), 0, CACHE_SYSCONF);
#endif
#ifdef _SC_LEVEL4_CACHE_SIZE
  n += fill(out, 4, sysconf(_SC_LEVEL4_CACHE_SIZE), 0, CACHE_SYSCONF);
#endif
  (void)out;
  return n;
}

/* ---- the probe --------------------------------------------------------------- */

int cpu_caches_probe(struct cpu_caches *out, const char *sources, const char *sysfs_root,
                     cpuid_fn cpuid, void *cpuid_arg, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (err && errlen) err[0] = 0;
  int rc = 0;
  const char *s = sources ? sources : DEFAULT_SOURCES;
  while (*s) {
    size_t len = strcspn(s, ",");
    char name[16] = "";
    if (len < sizeof name) {
      memcpy(name, s, len);
      name[len] = 0;
    }
    if (!strcmp(name, "sysfs")) cpu_caches_from_sysfs(out, sysfs_root);
    else if (!strcmp(name, "cpuid")) cpu_caches_from_cpuid(out, cpuid, cpuid_arg);
    else if (!strcmp(name, "sysconf")) cpu_caches_from_sysconf(out);
    else if (len > 0 && rc == 0) {
      if (err && errlen)
        snprintf(err, errlen, "unknown cache source '%.*s' (sysfs, cpuid, sysconf)", (int)len, s);
      rc = -1;
    }
    s += len;
    if (*s == ',') s++;
  }
  /* Stated defaults: L1 and L2 when unknown; an L3 only when no source
   * knew anything beyond L2 and the machine told us too little to say it
   * has none (a source that knows L1 and L2 and no L3 describes a machine
   * without one, as many Arm cores are). */
  const int knew_l1 = out->level[1].bytes > 0, knew_l2 = out->level[2].bytes > 0;
  const int knew_upper = out->level[3].bytes > 0 || out->level[4].bytes > 0;
  fill(out, 1, 32 * KIB, 0, CACHE_DEFAULT);
  fill(out, 2, 1 * MIB, 0, CACHE_DEFAULT);
  if (!knew_upper && !(knew_l1 && knew_l2)) fill(out, 3, 32 * MIB, 0, CACHE_DEFAULT);
  for (int lv = CACHE_LEVELS; lv >= 1; lv--)
    if (out->level[lv].bytes > 0) {
      out->llc = lv;
      break;
    }
  return rc;
}

static struct cpu_caches probed;

static void probe_once(void) {
  char err[128];
  if (cpu_caches_probe(&probed, getenv("BENCH_CACHE_SOURCES"), getenv("BENCH_SYSFS_ROOT"), NULL,
                       NULL, err, sizeof err) != 0)
    fprintf(stderr, "bench: BENCH_CACHE_SOURCES: %s; ignored\n", err);
}

const struct cpu_caches *cpu_caches(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, probe_once);
  return &probed;
}

int64_t cpu_caches_bytes(const struct cpu_caches *c, int level) {
  return level >= 1 && level <= CACHE_LEVELS ? c->level[level].bytes : 0;
}

int cpu_caches_any_default(const struct cpu_caches *c) {
  for (int lv = 1; lv <= CACHE_LEVELS; lv++)
    if (c->level[lv].source == CACHE_DEFAULT) return 1;
  return 0;
}

static void size_text(int64_t b, char *buf, size_t len) {
  if (b % MIB == 0) snprintf(buf, len, "%lld MiB", (long long)(b / MIB));
  else if (b % KIB == 0) snprintf(buf, len, "%lld KiB", (long long)(b / KIB));
  else snprintf(buf, len, "%lld B", (long long)b);
}

void cpu_caches_describe(const struct cpu_caches *c, char *buf, size_t len) {
  size_t used = 0;
  if (len) buf[0] = 0;
  for (int lv = 1; lv <= CACHE_LEVELS; lv++) {
    const struct cache_level *l = &c->level[lv];
    if (l->bytes <= 0) continue;
    char size[32], shared[32] = "";
    size_text(l->bytes, size, sizeof size);
    if (l->shared_by > 1) snprintf(shared, sizeof shared, " shared by %d", l->shared_by);
    int w = snprintf(buf + used, len > used ? len - used : 0, "%sL%d%s %s%s (%s)", used ? ", " : "",
                     lv, lv == 1 ? "d" : "", size, shared, cache_source_name(l->source));
    if (w < 0 || (size_t)w >= len - used) break;
    used += (size_t)w;
  }
}
