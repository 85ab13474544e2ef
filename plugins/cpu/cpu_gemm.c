/* cpu_gemm: C[m,n] = A[m,k] * B[k,n], row-major. A and B are f32, f16 or
 * bf16 (dtype); C is f32, accumulated in fp32.
 *   variant=naive    the plain triple loop (i, k, j order), no blocking
 *   variant=blocked  cache-blocked panels of B and C, vectorised row updates
 *   variant=packed   packed panels and a register-blocked micro-kernel
 *                    (cpu_gemm_packed.c): AVX-512 12x32 or AVX2/FMA 6x16,
 *                    chosen at run time (isa), portable C otherwise
 *   variant=openblas cblas_sgemm from OpenBLAS, loaded with dlopen at run
 *                    time: the in-harness anchor; SKIPPED when absent
 *   variant=blis     cblas_sgemm from BLIS, the same way: a second anchor
 *                    (cpu_gemm_blas.c, also for forcing their kernel sets)
 * All run on up to `threads` threads, as many as get MIN_WORK multiply-adds
 * each (info "threads"; one, waking no thread, below twice that): rows of C
 * split among them; packed gives each thread its share of C's row blocks,
 * and a thread that finishes takes what is left of the others'; or splits
 * C's columns when C is wider than tall. f16/bf16 inputs are converted to
 * f32 inside the timed iteration: while packing (packed), up front otherwise.
 * Verified against the harness's GEMM reference. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_gemm_blas.h"
#include "cpu_gemm_packed.h"
#include "cpu_pool.h"

/* Blocking for the blocked variant: a KC x NC panel of B (256 KiB) stays in
 * L2, a row of C's panel (2 KiB) and of A's block stay in L1. */
#define KC 128
#define NC 512

/* Multiply-adds a thread gets at least: smaller problems use fewer threads,
 * one (no thread woken) below 2 * MIN_WORK, as OpenBLAS's GEMM (interface/
 * gemm.c: SMP_THRESHOLD_MIN 65536 x GEMM_MULTITHREAD_THRESHOLD 4 = 64^3).
 * Measured on 2 vCPUs (AMD EPYC family 25 model 1), packed f32, 2 threads
 * forced, time against 1 thread: quiet 0.82 at 32^3, 0.78 at 64^3, 0.64
 * at 80^3, 0.62 at 96^3, 0.55 at 256^3, so on an idle machine a smaller
 * threshold would pay; under `stress-ng --cpu 2` single processes took
 * 3.7x at 64^3 and 4.3x at 96^3 (before the pool's rules against waiting
 * for a descheduled worker), where a few microseconds saved cannot pay
 * for a lost time slice. */
#define MIN_WORK ((int64_t)1 << 18)

enum variant { NAIVE, BLOCKED, PACKED, OPENBLAS, BLIS };

/* `want` rounded up to a multiple of `unit`, at least one unit. */
static int64_t grain(int64_t want, int64_t unit) {
  return want <= unit ? unit : (want + unit - 1) / unit * unit;
}

struct gemm {
  struct gemm_problem p;
  enum variant variant;
  struct cpu_pool *pool;
  const float *a32, *b32;  /* f32 inputs of naive/blocked/openblas */
  float *a_conv, *b_conv;  /* their storage when the inputs are f16/bf16 */
  struct gemm_kernel kernel;
  float *pack;             /* packed: one buffer per thread */
  size_t pack_floats;
  struct gemm_team *team;  /* packed, rows split: B panels shared, work handed out */
  gemm_sgemm_fn sgemm;
};

/* ---- how many threads ------------------------------------------------------------ */

/* The grain of a split of C's rows (naive, blocked, packed when taller than
 * wide) or columns (packed, when at least as wide as tall): MIN_WORK
 * multiply-adds, in whole `unit`s. */
static int64_t rows_grain(const struct gemm *g, int64_t unit) {
  return grain(MIN_WORK / (g->p.n * g->p.k), unit);
}
static int64_t cols_grain(const struct gemm *g, int64_t unit) {
  return grain(MIN_WORK / (g->p.m * g->p.k), unit);
}

/* packed on `threads` threads: C at least as tall as wide, with enough rows
 * for each thread: the threads share C's rows, and pack each B panel once,
 * together. */
static int team_split(const struct gemm *g, int threads) {
  return threads > 1 && g->p.m >= g->p.n && g->p.m / threads >= 4 * g->kernel.mr &&
         g->p.m * g->p.n * g->p.k >= MIN_WORK * threads;
}

/* The threads the runs of naive, blocked and packed use out of `threads`:
 * as many as get at least MIN_WORK multiply-adds each, one below 2 *
 * MIN_WORK (no thread woken at all). */
static int threads_used(const struct gemm *g, int threads) {
  switch (g->variant) {
  case NAIVE: return cpu_threads_for(threads, g->p.m, rows_grain(g, 1));
  case BLOCKED: return cpu_threads_for(threads, g->p.m, rows_grain(g, 4));
  case PACKED: {
    const int64_t mnk = g->p.m * g->p.n * g->p.k;
    const int most = cpu_threads_for(threads, mnk, MIN_WORK);
    if (team_split(g, most)) return most;
    if (g->p.n >= g->p.m) return cpu_threads_for(most, g->p.n, cols_grain(g, g->kernel.nr));
    return cpu_threads_for(most, g->p.m, rows_grain(g, g->kernel.mr));
  }
  default: return 1;
  }
}

/* ---- naive and blocked, on rows [i0, i1) -------------------------------------- */

static void gemm_naive(const struct gemm *g, int64_t i0, int64_t i1) {
  const int64_t n = g->p.n, k = g->p.k;
  for (int64_t i = i0; i < i1; i++) {
    float *c = g->p.c + i * n;
    for (int64_t j = 0; j < n; j++) c[j] = 0.0f;
    for (int64_t p = 0; p < k; p++) {
      const float a = g->a32[i * k + p];
      const float *b = g->b32 + p * n;
      for (int64_t j = 0; j < n; j++) c[j] += a * b[j];
    }
  }
}

CPU_MULTIVERSION
static void gemm_blocked(const struct gemm *g, int64_t i0, int64_t i1) {
  const int64_t n = g->p.n, k = g->p.k;
  memset(g->p.c + i0 * n, 0, (size_t)((i1 - i0) * n) * sizeof(float));
  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = n - jc < NC ? n - jc : NC;
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = k - pc < KC ? k - pc : KC;
      for (int64_t i = i0; i < i1; i++) {
        float *restrict c = g->p.c + i * n + jc;
        const float *restrict a = g->a32 + i * k + pc;
        int64_t p = 0;
        /* Four rows of B per pass: a quarter of the loads and stores of C. */
        for (; p + 4 <= kc; p += 4) {
          const float a0 = a[p], a1 = a[p + 1], a2 = a[p + 2], a3 = a[p + 3];
          const float *restrict b0 = g->b32 + (pc + p) * n + jc;
          const float *restrict b1 = b0 + n, *restrict b2 = b1 + n, *restrict b3 = b2 + n;
          for (int64_t j = 0; j < nc; j++) c[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
        }
        for (; p < kc; p++) {
          const float ap = a[p];
          const float *restrict b = g->b32 + (pc + p) * n + jc;
          for (int64_t j = 0; j < nc; j++) c[j] += ap * b[j];
        }
      }
    }
  }
}

static void rows_naive(void *arg, int64_t i0, int64_t i1, int tid) {
  (void)tid;
  gemm_naive(arg, i0, i1);
}

static void rows_blocked(void *arg, int64_t i0, int64_t i1, int tid) {
  (void)tid;
  gemm_blocked(arg, i0, i1);
}

/* ---- packed: each thread a block of C with its own packing buffers ---------- */

static void packed_task(void *arg, int tid, int nthreads) {
  struct gemm *g = arg;
  const struct gemm_kernel *kr = &g->kernel;
  float *buf = g->pack + (size_t)tid * g->pack_floats;
  if (g->team) { /* B panels packed together, C's row blocks handed out */
    gemm_packed_team(kr, &g->p, buf, g->team, tid);
    return;
  }
  int64_t b, e;
  if (g->p.n >= g->p.m) {
    cpu_split(g->p.n, cols_grain(g, kr->nr), tid, nthreads, &b, &e);
    if (b < e) gemm_packed_block(kr, &g->p, 0, g->p.m, b, e, buf);
  } else {
    cpu_split(g->p.m, rows_grain(g, kr->mr), tid, nthreads, &b, &e);
    if (b < e) gemm_packed_block(kr, &g->p, b, e, 0, g->p.n, buf);
  }
}

/* ---- f16/bf16 inputs to f32 for the variants that take f32 ---------------------- */

struct convert {
  const void *src;
  float *dst;
  int64_t cols;
  enum bench_dtype dtype;
};

static void convert_rows(void *arg, int64_t r0, int64_t r1, int tid) {
  (void)tid;
  const struct convert *cv = arg;
  cpu_load_f32(cv->dst + r0 * cv->cols, cv->src, (size_t)(r0 * cv->cols),
               (size_t)((r1 - r0) * cv->cols), cv->dtype);
}

static void convert_inputs(struct gemm *g) {
  if (g->p.dtype == BENCH_F32) return;
  struct convert a = {g->p.a, g->a_conv, g->p.k, g->p.dtype};
  struct convert b = {g->p.b, g->b_conv, g->p.n, g->p.dtype};
  cpu_parallel_for(g->pool, g->p.m, cpu_row_grain(g->p.k), convert_rows, &a);
  cpu_parallel_for(g->pool, g->p.k, cpu_row_grain(g->p.n), convert_rows, &b);
}

/* ---- the plugin ----------------------------------------------------------------------- */

static const struct bench_param params[] = {
    /* A tunable that is also a sweep axis (zipped with m, n, k): the
     * tiers' lists and a preset or --param that names variants run them as
     * cases; `variant=auto` takes the tuned pick among the plugin's own
     * kernels (packed, the default, first). The BLAS anchors are not
     * candidates: they are what the kernels are measured against. */
    {.name = "variant", .type = BENCH_PARAM_STRING, .description = "kernel variant (auto: tuned)",
     .choices = "naive,blocked,packed,openblas,blis", .zip = 1, .tunable = 1,
     .candidates = "packed,blocked,naive",
     .defaults = {"naive,blocked,packed,openblas,packed", "naive,blocked,packed,openblas",
                  "blocked,packed,packed,openblas,openblas,blis,blis",
                  "naive,naive,naive,naive,naive,blocked,blocked,blocked,blocked,blocked,"
                  "packed,packed,packed,packed,packed,openblas,openblas,openblas,openblas,openblas,"
                  "blis,blis,blis,blis,blis"}},
    BENCH_PARAM_GEMM_M("64,64,64,64,33", "512,1024,1024,1024", "1024,1024,2048,1024,2048,1024,2048",
                       "1,7,33,130,150,1,7,33,130,150,1,7,33,130,150,1,7,33,130,150,"
                       "1,7,33,130,150"),
    BENCH_PARAM_GEMM_N("64,64,64,64,17", "512,1024,1024,1024", "1024,1024,2048,1024,2048,1024,2048",
                       "1,13,257,61,4099,1,13,257,61,4099,1,13,257,61,4099,1,13,257,61,4099,"
                       "1,13,257,61,4099"),
    BENCH_PARAM_GEMM_K("64,64,64,64,47", "512,1024,1024,1024", "1024,1024,2048,1024,2048,1024,2048",
                       "1,5,1,300,3,1,5,1,300,3,1,5,1,300,3,1,5,1,300,3,"
                       "1,5,1,300,3"),
    BENCH_PARAM_DTYPE("element type of A and B (C is f32, accumulated in f32)", "f32,f16,bf16",
                      "f32,f16,bf16", "f32,f16,bf16", "f32", "f32,f16,bf16"),
    CPU_THREADS_PARAM("0", "0", "1,0", "1,3"),
    {.name = "isa", .type = BENCH_PARAM_STRING,
     .description = "packed: micro-kernel instruction set (auto = the widest this CPU runs)",
     .choices = "auto,avx512,avx2,generic", .defaults = {"auto", "auto", "auto", "auto"}},
    /* Tunables (ABI 1.4, bench tune): the packed kernel's cache blocks; 0 =
     * sized from this machine's caches (the default, tried first). */
    {.name = "mc", .type = BENCH_PARAM_INT,
     .description = "packed: rows of the A block in L2 (0 = sized by the caches)", .min = 0,
     .max = 4096, .defaults = {"0", "0", "0", "0"}, .tunable = 1, .candidates = "0,48,96,192"},
    {.name = "kc", .type = BENCH_PARAM_INT,
     .description = "packed: depth of the blocks (0 = sized by the caches)", .min = 0, .max = 4096,
     .defaults = {"0", "0", "0", "0"}, .tunable = 1, .candidates = "0,256,512"},
    {.name = "nc", .type = BENCH_PARAM_INT,
     .description = "packed: columns of the B panel in L3 (0 = sized by the caches)", .min = 0,
     .max = 16384, .defaults = {"0", "0", "0", "0"}, .tunable = 1, .candidates = "0,2048,4096"},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct gemm *g = calloc(1, sizeof *g);
  if (!g) return host->fail(host, "out of memory");
  *state = g;
  g->p.m = host->param_int(host, "m");
  g->p.n = host->param_int(host, "n");
  g->p.k = host->param_int(host, "k");
  const char *variant = host->param_str(host, "variant");
  g->variant = strcmp(variant, "naive") == 0     ? NAIVE
               : strcmp(variant, "blocked") == 0 ? BLOCKED
               : strcmp(variant, "packed") == 0  ? PACKED
               : strcmp(variant, "blis") == 0    ? BLIS
                                                 : OPENBLAS;
  if (bench_param_dtype(host, "dtype", &g->p.dtype)) return BENCH_ERROR;
  const int threads = cpu_threads_resolve(host->param_int(host, "threads"));
  char text[48];

  if (g->variant != PACKED &&
      (host->param_int(host, "mc") || host->param_int(host, "kc") || host->param_int(host, "nc")))
    return host->skip(host, "mc, kc and nc are blocks of the packed variant, not of %s", variant);
  const int blas = g->variant == OPENBLAS || g->variant == BLIS;
  if (blas) {
    int rc = gemm_blas_load(host, g->variant == BLIS ? GEMM_BLIS : GEMM_OPENBLAS, threads,
                            &g->sgemm);
    if (rc != BENCH_OK) return rc;
    if (g->p.m > INT_MAX || g->p.n > INT_MAX || g->p.k > INT_MAX)
      return host->skip(host, "cblas_sgemm takes int sizes");
  }
  if (g->variant == PACKED) {
    const char *isa = host->param_str(host, "isa");
    if (gemm_kernel_pick(isa, &g->kernel) != 0)
      return host->skip(host, "this CPU cannot run the %s micro-kernel", isa);
    const int64_t mc = host->param_int(host, "mc"), kc = host->param_int(host, "kc"),
                  nc = host->param_int(host, "nc");
    if (mc % g->kernel.mr || nc % g->kernel.nr || kc % 16)
      return host->skip(host, "blocks mc %lld, kc %lld, nc %lld: the %s micro-kernel needs mc a "
                        "multiple of %d, nc of %d, kc of 16", (long long)mc, (long long)kc,
                        (long long)nc, g->kernel.name, g->kernel.mr, g->kernel.nr);
    if (mc) g->kernel.mc = (int)mc;
    if (kc) g->kernel.kc = (int)kc;
    if (nc) g->kernel.nc = (int)nc;
    host->set_info(host, "kernel", g->kernel.name);
    /* The ISA used (isa=auto resolved): its kernel's first word. */
    snprintf(text, sizeof text, "%.*s", (int)strcspn(g->kernel.name, " "), g->kernel.name);
    host->set_info(host, "isa", text);
    snprintf(text, sizeof text, "%dx%dx%d", g->kernel.mc, g->kernel.kc, g->kernel.nc);
    host->set_info(host, "blocks", text);
    cpu_caches_note(host); /* the blocks are sized by L2 and the LLC */
  }
  if (blas) {
    /* The BLAS run their own threads (and choose how many: OpenBLAS one
     * up to 64^3 multiply-adds); ours only convert f16/bf16 inputs. */
    snprintf(text, sizeof text, "%d", threads);
    host->set_info(host, "threads", text);
    g->pool = cpu_pool_create(g->p.dtype == BENCH_F32 ? 1 : threads);
    if (!g->pool) return host->fail(host, "cannot start %d threads", threads);
  } else {
    g->pool = cpu_pool_for_case(host, threads, threads_used(g, threads));
    if (!g->pool) return BENCH_ERROR;
  }
  const int used = cpu_pool_size(g->pool);

  const size_t es = bench_dtype_size(g->p.dtype);
  const size_t na = (size_t)(g->p.m * g->p.k), nb = (size_t)(g->p.k * g->p.n),
               nc = (size_t)(g->p.m * g->p.n);
  void *a = cpu_alloc(na * es), *b = cpu_alloc(nb * es);
  g->p.a = a;
  g->p.b = b;
  g->p.c = cpu_alloc(nc * sizeof(float));
  if (!a || !b || !g->p.c)
    return host->fail(host, "out of memory for %zu MiB of matrices",
                      ((na + nb) * es + nc * sizeof(float)) >> 20);
  host->fill_random(host, a, na, g->p.dtype, 1);
  host->fill_random(host, b, nb, g->p.dtype, 2);

  if (g->variant == PACKED) {
    g->pack_floats = gemm_packed_buffer_floats(&g->kernel);
    g->pack = cpu_alloc(g->pack_floats * (size_t)used * sizeof(float));
    if (!g->pack) return host->fail(host, "out of memory for packing buffers");
    if (team_split(g, used)) {
      g->team = calloc(1, sizeof *g->team);
      if (!g->team || gemm_team_init(g->team, &g->kernel, used) != 0)
        return host->fail(host, "out of memory for packing buffers");
    }
  } else if (g->p.dtype == BENCH_F32) {
    g->a32 = a;
    g->b32 = b;
  } else {
    g->a_conv = cpu_alloc(na * sizeof(float));
    g->b_conv = cpu_alloc(nb * sizeof(float));
    if (!g->a_conv || !g->b_conv) return host->fail(host, "out of memory for f32 copies");
    g->a32 = g->a_conv;
    g->b32 = g->b_conv;
  }
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct gemm *g = state;
  switch (g->variant) {
  case NAIVE:
    convert_inputs(g);
    cpu_parallel_for(g->pool, g->p.m, rows_grain(g, 1), rows_naive, g);
    break;
  case BLOCKED:
    convert_inputs(g);
    cpu_parallel_for(g->pool, g->p.m, rows_grain(g, 4), rows_blocked, g);
    break;
  case PACKED:
    if (g->team) gemm_team_reset(g->team);
    cpu_pool_run(g->pool, packed_task, g);
    break;
  case OPENBLAS:
  case BLIS:
    convert_inputs(g);
    g->sgemm(GEMM_CBLAS_ROW_MAJOR, GEMM_CBLAS_NO_TRANS, GEMM_CBLAS_NO_TRANS, (int)g->p.m, (int)g->p.n,
             (int)g->p.k, 1.0f, g->a32, (int)g->p.k, g->b32, (int)g->p.n, 0.0f, g->p.c,
             (int)g->p.n);
    break;
  }
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  const struct gemm *g = state;
  struct bench_check c = {.op = "gemm", .dtype = g->p.dtype, .out_dtype = BENCH_F32,
                          .m = g->p.m, .n = g->p.n, .k = g->p.k,
                          .in = {g->p.a, g->p.b}, .out = g->p.c};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct gemm *g = state;
  cpu_pool_destroy(g->pool);
  cpu_free((void *)g->p.a);
  cpu_free((void *)g->p.b);
  cpu_free(g->p.c);
  cpu_free(g->a_conv);
  cpu_free(g->b_conv);
  cpu_free(g->pack);
  if (g->team) gemm_team_free(g->team);
  free(g->team);
  free(g);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_gemm",
    .backend = "cpu",
    .operation = "gemm",
    .description = "fp32 GEMM (f16/bf16 inputs too): naive, blocked, packed AVX2/AVX-512 "
                   "micro-kernel, OpenBLAS and BLIS anchors; threaded",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
