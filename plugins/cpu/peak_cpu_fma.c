/* peak_cpu_fma: this CPU's floating-point peak, FMA throughput per element
 * type (f32, f64) and ISA (avx512, avx2; sse2 and scalar mul+add as the
 * fallbacks), on one thread (roof fp32.1t, fp64.1t) and on every CPU
 * (fp32, fp64). A case whose ISA this CPU lacks (CPUID at run time) is
 * SKIPPED with the reason.
 *
 * Each thread runs CHAINS independent accumulators of one vector each,
 * acc = acc * a + b for `chain` steps: enough in flight to cover the FMA
 * latency of every pipe (2 pipes x 4-5 cycles). Correctness-gated: a is 1
 * and b small integers, read at run time (the compiler cannot fold them),
 * and the starting values are integers, so every accumulator ends exactly
 * at x0 + chain * b (|x| < 2^24 keeps f32 exact); every lane of every
 * accumulator of every thread is written out and compared exactly with
 * that value, so a chain the compiler dead-coded or cut short, or a thread
 * that did not run, is WRONG_ANSWER. Work: 2 FLOP x lanes x CHAINS x chain
 * x threads. The datasheet figure: cores x FMA pipes x lanes x 2 x clock
 * (cpu_peak.h's table and clock), 0 with info "datasheet_note" when the
 * machine does not tell enough. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_peak.h"
#include "cpu_pool.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

#define CHAINS 12 /* accumulators per thread; with a and b 14 of AVX2's 16 registers */
#define CHAIN_MAX (1 << 22) /* |x0| + 2 chain < 2^24: exact in f32 */

/* One thread's work: out[k] = x0[k] after `chain` steps of x = x a + b, k
 * over CHAINS vectors of one ISA. */
typedef void (*fma_kernel)(const void *x0, const void *b, double a, int64_t chain, void *out);

/* The kernel of one ISA and element type: V a vector of T, LOAD/STORE
 * unaligned, SET1 a broadcast, MADD(x, a, b) = x a + b. */
#define FMA_KERNEL(name, attr, T, V, LOAD, STORE, SET1, MADD)                                  \
  attr static void name(const void *x0_, const void *b_, double a, int64_t chain, void *out_) { \
    const T *x0 = x0_;                                                                        \
    T *out = out_;                                                                            \
    const int lanes = (int)(sizeof(V) / sizeof(T));                                           \
    V acc[CHAINS];                                                                            \
    for (int k = 0; k < CHAINS; k++) acc[k] = LOAD(x0 + k * lanes);                           \
    const V va = SET1((T)a), vb = LOAD((const T *)b_);                                        \
    for (int64_t i = 0; i < chain; i++)                                                       \
      for (int k = 0; k < CHAINS; k++) acc[k] = MADD(acc[k], va, vb);                         \
    for (int k = 0; k < CHAINS; k++) STORE(out + k * lanes, acc[k]);                          \
  }

#ifdef HAVE_X86
#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2,fma")))
FMA_KERNEL(fma_avx512_f32, AVX512, float, __m512, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps,
           _mm512_fmadd_ps)
FMA_KERNEL(fma_avx512_f64, AVX512, double, __m512d, _mm512_loadu_pd, _mm512_storeu_pd,
           _mm512_set1_pd, _mm512_fmadd_pd)
FMA_KERNEL(fma_avx2_f32, AVX2, float, __m256, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps,
           _mm256_fmadd_ps)
FMA_KERNEL(fma_avx2_f64, AVX2, double, __m256d, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_set1_pd,
           _mm256_fmadd_pd)
#define MADD_PS(x, a, b) _mm_add_ps(_mm_mul_ps(x, a), b)
#define MADD_PD(x, a, b) _mm_add_pd(_mm_mul_pd(x, a), b)
FMA_KERNEL(madd_sse2_f32, , float, __m128, _mm_loadu_ps, _mm_storeu_ps, _mm_set1_ps, MADD_PS)
FMA_KERNEL(madd_sse2_f64, , double, __m128d, _mm_loadu_pd, _mm_storeu_pd, _mm_set1_pd, MADD_PD)
#endif

/* Scalar: one element per accumulator, kept from the vectoriser (GCC) so
 * that it stays the one-lane figure. Without FMA contraction (ISO C
 * mode): a multiply and an add. */
#if defined(__GNUC__) && !defined(__clang__)
#define SCALAR __attribute__((optimize("no-tree-loop-vectorize", "no-tree-slp-vectorize")))
#else
#define SCALAR
#endif
#define LOAD1(p) (*(p))
#define STORE1(p, v) (*(p) = (v))
#define SET1(v) (v)
#define MADD1(x, a, b) ((x) * (a) + (b))
FMA_KERNEL(madd_scalar_f32, SCALAR, float, float, LOAD1, STORE1, SET1, MADD1)
FMA_KERNEL(madd_scalar_f64, SCALAR, double, double, LOAD1, STORE1, SET1, MADD1)

/* ---- the ISAs ------------------------------------------------------------------ */

struct isa {
  const char *name, *how; /* how: "fma" or "mul+add" */
  int bits;               /* vector width */
  fma_kernel f32, f64;
};

static const struct isa isas[] = {
#ifdef HAVE_X86
    {"avx512", "fma", 512, fma_avx512_f32, fma_avx512_f64},
    {"avx2", "fma", 256, fma_avx2_f32, fma_avx2_f64},
    {"sse2", "mul+add", 128, madd_sse2_f32, madd_sse2_f64},
#endif
    {"scalar", "mul+add", 0, madd_scalar_f32, madd_scalar_f64},
};

/* NULL when this CPU runs `isa`, else why not. */
static const char *isa_missing(const char *isa) {
#ifdef HAVE_X86
  if (!strcmp(isa, "avx512") && !__builtin_cpu_supports("avx512f"))
    return "this CPU has no AVX-512 (avx512f)";
  if (!strcmp(isa, "avx2") && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
    return "this CPU has no AVX2 with FMA";
  return NULL;
#else
  return strcmp(isa, "scalar") ? "avx512, avx2 and sse2 are x86's; this CPU runs scalar" : NULL;
#endif
}

/* ---- the plugin -------------------------------------------------------------------- */

struct fma {
  const struct isa *isa;
  enum bench_dtype dtype;
  size_t esize;
  int lanes, threads;
  int64_t chain;
  double a;                  /* the multiplier: 1, read at run time */
  void *x0, *out;            /* [threads][CHAINS][lanes] */
  void *b;                   /* [lanes] */
  struct cpu_pool *pool;
};

/* The starting values and addends: integers, distinct per thread, chain
 * and lane (|x0| <= 2^17), b = +-1, +-2. */
static double x0_value(int64_t i) { return (double)i - 65536.0; }
static double b_value(int lane) { return (lane % 2 ? -1.0 : 1.0) * (1 + (lane / 2) % 2); }

static void put(const struct fma *s, void *p, int64_t i, double v) {
  if (s->dtype == BENCH_F32)
    ((float *)p)[i] = (float)v;
  else
    ((double *)p)[i] = v;
}

static void fma_task(void *arg, int slot, int slots) {
  (void)slots;
  const struct fma *s = arg;
#ifdef CPU_PEAK_BROKEN
  if (slot == slots - 1) return; /* the planted bug: the last thread does nothing */
#endif
  const size_t per = (size_t)CHAINS * (size_t)s->lanes * s->esize;
  const fma_kernel k = s->dtype == BENCH_F32 ? s->isa->f32 : s->isa->f64;
  k((const char *)s->x0 + (size_t)slot * per, s->b, s->a, s->chain, (char *)s->out + (size_t)slot * per);
}

static const struct bench_param params[] = {
    {.name = "isa", .type = BENCH_PARAM_STRING,
     .description = "avx512, avx2 (FMA), sse2, scalar (multiply and add); SKIPPED where absent",
     .choices = "avx512,avx2,sse2,scalar",
     .defaults = {"avx512,avx2,sse2,scalar", "avx512,avx2,sse2,scalar", "avx512,avx2,sse2,scalar",
                  "avx512,avx2,sse2,scalar"}},
    BENCH_PARAM_DTYPE("element type", "f32,f64", "f32,f64", "f32,f64", "f32,f64", "f32,f64"),
    {.name = "chain", .type = BENCH_PARAM_INT,
     .description = "steps of each accumulator's x = x a + b per iteration", .min = 1,
     .max = CHAIN_MAX, .defaults = {"1000", "100000", "1000000", "1,7,1000"}},
    CPU_THREADS_PARAM("1,0", "1,0", "1,0", "1,3,0"),
    {.name = NULL},
};

/* cores x pipes x lanes x 2 x clock, or 0 with the reason in `how`. */
static double datasheet(const struct fma *s, char *how, size_t len) {
  if (!s->isa->bits || strcmp(s->isa->how, "fma") != 0) {
    snprintf(how, len, "%s multiplies and adds: the figure depends on the core's add and "
             "multiply ports", s->isa->name);
    return 0;
  }
  struct cpu_peak_id id;
  struct cpu_fma_units u;
  if (cpu_peak_identify(&id) != 0 || cpu_peak_fma_units(&id, &u) != 0) {
    snprintf(how, len, "no table entry for %s family 0x%x model 0x%x (its FMA units)",
             id.vendor[0] ? id.vendor : "this CPU", (unsigned)id.family, (unsigned)id.model);
    return 0;
  }
  const char *src;
  const double ghz = cpu_peak_clock_ghz(NULL, NULL, &src);
  if (!(ghz > 0)) {
    snprintf(how, len, "no clock (no cpufreq cpuinfo_max_freq, no cpu MHz in /proc/cpuinfo)");
    return 0;
  }
  const int phys = cpu_peak_cores(NULL);
  const int cores = phys > 0 && phys < s->threads ? phys : s->threads;
  const int bits = s->isa->bits < u.bits ? s->isa->bits : u.bits;
  const int lanes = bits / (int)(8 * s->esize);
  snprintf(how, len, "%d core%s x %d FMA pipes x %d lanes x 2 FLOP x %.3f GHz (%s; clock: %s)",
           cores, cores == 1 ? "" : "s", u.pipes, lanes, ghz, u.core, src);
  return cores * u.pipes * lanes * 2 * ghz;
}

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct fma *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  const char *name = host->param_str(host, "isa");
  for (size_t i = 0; i < sizeof isas / sizeof *isas; i++)
    if (!strcmp(isas[i].name, name)) s->isa = &isas[i];
  const char *missing = isa_missing(name);
  if (missing || !s->isa) return host->skip(host, "%s", missing ? missing : "no such ISA here");
  if (bench_param_dtype(host, "dtype", &s->dtype)) return BENCH_ERROR;
  s->esize = s->dtype == BENCH_F32 ? sizeof(float) : sizeof(double);
  s->lanes = s->isa->bits ? s->isa->bits / (int)(8 * s->esize) : 1;
  s->chain = host->param_int(host, "chain");
  const int64_t param = host->param_int(host, "threads");
  s->threads = cpu_threads_resolve(param);
  s->a = 1.0;

  const int64_t n = (int64_t)s->threads * CHAINS * s->lanes;
  s->x0 = cpu_alloc((size_t)n * s->esize);
  s->out = cpu_alloc((size_t)n * s->esize);
  s->b = cpu_alloc((size_t)s->lanes * s->esize);
  if (!s->x0 || !s->out || !s->b) return host->fail(host, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    put(s, s->x0, i, x0_value(i));
    put(s, s->out, i, NAN); /* what a thread that never ran leaves */
  }
  for (int j = 0; j < s->lanes; j++) put(s, s->b, j, b_value(j));
  if (!(s->pool = cpu_pool_for_case(host, s->threads, s->threads))) return BENCH_ERROR;

  host->set_work(host, 2.0 * s->lanes * CHAINS * (double)s->chain * s->threads, 0);
  char text[256], method[64];
  snprintf(text, sizeof text, "%d", s->lanes);
  host->set_info(host, "lanes", text);
  snprintf(text, sizeof text, "%d", CHAINS);
  host->set_info(host, "chains", text);
  snprintf(method, sizeof method, "%s %s, %d chains", s->isa->name, s->isa->how, CHAINS);
  const double ds = datasheet(s, text, sizeof text);
  if (!(ds > 0)) host->set_info(host, "datasheet_note", text);
  const struct bench_roof roof = {.kind = BENCH_ROOF_COMPUTE,
                                  .id = s->dtype == BENCH_F32 ? "fp32" : "fp64",
                                  .method = method,
                                  .datasheet = ds > 0 ? ds : 0,
                                  .datasheet_how = ds > 0 ? text : NULL};
  return cpu_peak_roof(host, &roof, cpu_peak_scope(param, s->threads), s->threads);
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct fma *s = state;
  cpu_pool_run_slots(s->pool, s->threads, fma_task, s);
  return BENCH_OK;
}

/* The reference: x0 + chain * b, exact. */
static int reference(const struct bench_host *host, void *user, int64_t start, int64_t n, double *dst) {
  (void)host;
  const struct fma *s = user;
  for (int64_t i = 0; i < n; i++)
    dst[i] = x0_value(start + i) + (double)s->chain * b_value((int)((start + i) % s->lanes));
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  struct fma *s = state;
  const struct bench_compare c = {.name = "accumulators", .dtype = s->dtype, .ref_dtype = BENCH_F64,
                                  .count = (int64_t)s->threads * CHAINS * s->lanes,
                                  .cols = s->lanes, .out = s->out, .ref_fn = reference, .user = s,
                                  .tol = BENCH_TOL_EXACT};
  return cpu_peak_compare(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct fma *s = state;
  cpu_pool_destroy(s->pool);
  cpu_free(s->x0);
  cpu_free(s->out);
  cpu_free(s->b);
  free(s);
}

CPU_PEAK_PLUGIN("peak_cpu_fma",
                "FMA peak per dtype and ISA, one thread and every CPU; every accumulator "
                "compared exactly (roofs fp32, fp64, .1t)");
