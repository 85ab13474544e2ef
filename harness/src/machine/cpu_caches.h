/* This machine's data caches, from every source it offers, in one place
 * for the harness (the result header) and every CPU plugin (sizes such as
 * "LLC/2", GEMM blocking).
 *
 * Each level's size is one instance's, what one core sees: an L3 shared by
 * the 16 CPUs of a CCD is that CCD's 32 MiB, not the sum over the package.
 * The sources, in order, the first that knows a level wins:
 *   sysfs    /sys/devices/system/cpu/cpu0/cache/index*: size, shared_cpu_list
 *   cpuid    x86 only: leaf 0x8000001D (AMD, Hygon), leaf 4 (Intel and the
 *            rest); size = ways * partitions * line * sets, shared by
 *            EAX[25:14] + 1 logical CPUs (a VM's vCPUs may share it with
 *            other tenants' CPUs);
 *            AMD's legacy leaves 0x80000005/6 where 0x8000001D is absent
 *   sysconf  glibc's _SC_LEVEL*_CACHE_SIZE (on x86 glibc sums the L3 over
 *            the package; it is consulted after cpuid for that reason)
 *   default  when no source knows L1 or L2, or knows nothing at all:
 *            L1d 32 KiB, L2 1 MiB, L3 32 MiB, a typical x86 server core.
 *
 * Two environment variables steer the probe, for tests and for machines
 * whose sources lie:
 *   BENCH_SYSFS_ROOT     where sysfs is mounted (default /sys)
 *   BENCH_CACHE_SOURCES  the sources to consult, in order, comma-separated
 *                        (default "sysfs,cpuid,sysconf"; "" = the defaults)
 */
#ifndef BENCH_CPU_CACHES_H
#define BENCH_CPU_CACHES_H

#include <stddef.h>
#include <stdint.h>

enum cache_source { CACHE_NONE = 0, CACHE_SYSFS, CACHE_CPUID, CACHE_SYSCONF, CACHE_DEFAULT };

#define CACHE_LEVELS 4 /* L1 (data) .. L4 */

struct cache_level {
  int64_t bytes;     /* one instance; 0 = this machine has none we know of */
  int shared_by;     /* logical CPUs sharing one instance; 0 = not known */
  enum cache_source source;
};

struct cpu_caches {
  struct cache_level level[CACHE_LEVELS + 1]; /* [1] = L1d .. [4]; [0] unused */
  int llc;                                    /* the last level: 1..4 */
};

/* "sysfs", "cpuid", "sysconf", "default" ("none" for CACHE_NONE). */
const char *cache_source_name(enum cache_source s);

/* This machine's caches, probed once per process from the environment
 * variables above. Never NULL; every level 1, 2 and llc has bytes > 0. */
const struct cpu_caches *cpu_caches(void);

/* Bytes of cache `level` (1..4) of `c`; 0 when the machine has none. */
int64_t cpu_caches_bytes(const struct cpu_caches *c, int level);

/* Whether any figure of `c` is a stated default (no source knew it). */
int cpu_caches_any_default(const struct cpu_caches *c);

/* "L1d 32 KiB (sysfs), L2 512 KiB (sysfs), L3 32 MiB shared by 16 (cpuid)". */
void cpu_caches_describe(const struct cpu_caches *c, char *buf, size_t len);

/* ---- the probe, in parts a test can drive --------------------------------- */

/* One query of the cpuid instruction: regs = {eax, ebx, ecx, edx}. */
typedef void (*cpuid_fn)(uint32_t leaf, uint32_t subleaf, uint32_t regs[4], void *arg);

/* Probes `out` from `sources` (a comma-separated list as in
 * BENCH_CACHE_SOURCES; NULL = the default order) with sysfs under
 * `sysfs_root` (NULL = "/sys") and CPUID answered by `cpuid` (NULL = the
 * instruction on x86; no CPUID elsewhere). 0, or -1 with a message in err when `sources` names an unknown
 * source. Fills the defaults, so every level 1, 2 and llc has bytes. */
int cpu_caches_probe(struct cpu_caches *out, const char *sources, const char *sysfs_root,
                     cpuid_fn cpuid, void *cpuid_arg, char *err, size_t errlen);

/* The single sources, for tests: each fills the levels it knows of `out`
 * that are still unknown (bytes 0) and returns how many it filled. */
int cpu_caches_from_sysfs(struct cpu_caches *out, const char *sysfs_root);
int cpu_caches_from_cpuid(struct cpu_caches *out, cpuid_fn cpuid, void *arg);
int cpu_caches_from_sysconf(struct cpu_caches *out);

#endif
