/* Shared plumbing of the CPU peak plugins (peak_cpu_fma, peak_cpu_bw,
 * peak_cpu_lat; operation "peak", bench.roof/1): which roof a case
 * measures (its thread scope and, for memory, the level its working set
 * lives in), and what the machine says for a datasheet figure (CPUID's
 * vendor, family and model, a table of FMA units per core, the clock,
 * the physical cores). Nothing here prints or exits. */
#ifndef BENCH_CPU_PEAK_H
#define BENCH_CPU_PEAK_H

#include <stdint.h>

#include "bench/params.h"
#include "bench/plugin.h"

/* A peak plugin built with -DCPU_PEAK_BROKEN (only by tests/cpu, never
 * shipped) has a bug planted, one thread's or one load's work left out, so
 * that its cases must end WRONG_ANSWER; such a build is named
 * "<name>_broken", so it never stands in for the real one. */
#ifdef CPU_PEAK_BROKEN
#define CPU_PEAK_NAME(name) name "_broken"
#else
#define CPU_PEAK_NAME(name) name
#endif

/* The entry of a peak plugin: its file's params, setup, run, verify and
 * teardown; ABI 1.1 (bench.compare/1) and later. */
#define CPU_PEAK_PLUGIN(plugin_name, plugin_description)                         \
  BENCH_PLUGIN_DEFINE = {                                                         \
      .abi_version = BENCH_ABI_VERSION,                                           \
      .name = CPU_PEAK_NAME(plugin_name),                                         \
      .backend = "cpu",                                                           \
      .operation = "peak",                                                        \
      .description = plugin_description,                                          \
      .params = params,                                                           \
      .setup = setup,                                                             \
      .run = run,                                                                 \
      .verify = verify,                                                           \
      .teardown = teardown,                                                       \
      .abi_needed = BENCH_ABI_1_1,                                                \
      BENCH_PLUGIN_SIZES,                                                         \
  }

/* From verify(): the output against the plugin's reference through
 * bench.compare/1 (what gates a roof); SKIPPED on a harness without it. */
int cpu_peak_compare(const struct bench_host *host, const struct bench_compare *c);

/* ---- the roof ------------------------------------------------------------- */

/* The roof id's suffix for a case on `threads` threads whose `threads`
 * parameter is `param`: ".1t" for threads=1, "" when it runs on every CPU
 * this process may use (threads=0, or that count), NULL for any other
 * count (such a case measures no roof). */
const char *cpu_peak_scope(int64_t param, int threads);

/* From setup(): the case measures `roof` whose id is roof->id followed by
 * `scope` (cpu_peak_scope), when the harness has bench.roof/1; with scope
 * NULL, info "no_roof" says why instead. Without the extension (an older
 * harness, BENCH_NO_ROOF_EXT=1) nothing. BENCH_OK, or BENCH_ERROR from the
 * harness (a malformed roof). */
int cpu_peak_roof(const struct bench_host *host, const struct bench_roof *roof, const char *scope,
                  int threads);

/* ---- memory levels ---------------------------------------------------------- */

/* Threads of a case on `threads` threads that share one instance of cache
 * `level` (1..4): its shared_by (cpu_caches.h), at most `threads`; where
 * the machine does not say, 1 for L1 and L2 and every thread for the LLC. */
int cpu_peak_sharers(int level, int threads);

/* A resolver of cache-relative sizes (bench_param_size) where each level
 * is one thread's share of it on *threads threads: its bytes / sharers.
 * So "L2/2" per thread is half of each core's L2, and "LLC/2" per thread
 * on 8 threads sharing a 32 MiB L3 is 2 MiB each, 16 MiB in that L3. */
void cpu_peak_share_caches(struct bench_caches *out, int *threads);

/* The memory level a working set of `bytes` per thread lives in, on
 * `threads` threads: the first cache level one instance of which holds the
 * working sets of the threads sharing it (bytes * sharers <= its size),
 * else memory. */
struct cpu_peak_level {
  int level;      /* cache level 1..4; 0: memory */
  char id[8];     /* the roof id: "l1" .. "l4", "dram" */
  int64_t bytes;  /* one instance of that cache (per core for a private one); 0 for memory */
  int sharers;    /* threads of the case in one instance (cpu_peak_sharers); 1 for memory */
};
void cpu_peak_level_of(int64_t bytes, int threads, struct cpu_peak_level *out);

/* ---- what the machine says, for a datasheet figure ---------------------------- */

/* x86 CPUID: the vendor string and the display family and model (base +
 * extended, as the vendors' manuals add them). 0, or -1 off x86 (vendor ""). */
struct cpu_peak_id {
  char vendor[13]; /* "AuthenticAMD", "GenuineIntel", "HygonGenuine" */
  int family, model;
};
int cpu_peak_identify(struct cpu_peak_id *id);

/* The FMA units of one core of that CPU, from a small table: `pipes` FMA
 * pipes each `bits` wide (AMD Zen 2 to 4: two of 256, AVX-512 on Zen 4
 * split in two halves; Zen 5 desktop and server: two of 512; Intel Xeon
 * with AVX-512: two of 512; Haswell to Comet Lake: two of 256), and the
 * core's name with what matters ("AMD Zen 4: AVX-512 as 2x256"). 0, or -1
 * with pipes 0 when the table does not know the CPU (hybrid cores among
 * them). */
struct cpu_fma_units {
  int pipes, bits;
  const char *core;
};
int cpu_peak_fma_units(const struct cpu_peak_id *id, struct cpu_fma_units *out);

/* The core clock in GHz: cpufreq's cpuinfo_max_freq of cpu0 under
 * `sysfs_root` (NULL: BENCH_SYSFS_ROOT, else "/sys"), else the first "cpu
 * MHz" of `cpuinfo` (NULL: /proc/cpuinfo; in a VM the host's nominal
 * clock, not its boost); *source says which ("cpuinfo_max_freq", "cpu MHz
 * in /proc/cpuinfo, ..."). 0 (source NULL) when neither says. */
double cpu_peak_clock_ghz(const char *sysfs_root, const char *cpuinfo, const char **source);

/* Physical cores (distinct package and core ids of sysfs's topology) among
 * the CPUs this process may run on; 0 when sysfs does not say (root as for
 * cpu_peak_clock_ghz). */
int cpu_peak_cores(const char *sysfs_root);

#endif
