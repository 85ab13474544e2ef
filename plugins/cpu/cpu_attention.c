/* cpu_attention: scaled dot-product attention in fp32,
 * O = softmax(Q K^T / sqrt(d) + causal mask) V (mask=causal) or without the
 * mask (mask=none), for q, k, v, o laid out [batch][heads][seq][head_dim];
 * with rope=interleaved|halves, RoPE is applied to q and k first (cos/sin
 * table built in setup).
 *
 * Both products run on cpu_gemm's packed micro-kernel (cpu_gemm_packed.c,
 * AVX-512 12x32, AVX2 6x16 or portable 6x16: isa, auto = the widest this
 * CPU runs), mr queries at a time:
 *  1. per (batch, head): k (rotated) packed as the kernel's B micro-panels
 *     of nr keys (K^T), times 1/sqrt(d); v packed as B micro-panels of nr
 *     columns unless head_dim is a multiple of nr (then read in place);
 *  2. per tile of mr queries (the first: the seq % mr left over), handed
 *     out across `threads` threads group by group (its K^T and V stay in
 *     L2; tile by tile across all groups was 14% slower at 1 thread), in a
 *     group the longest first: S = Q K^T for the keys up to the tile's last
 *     query (every key with mask=none), nr keys per kernel call
 *     (k = head_dim), the kernel reading the tile's rows of q in place; an
 *     exact softmax per row over the keys it sees (cpu_rowops.c: vectorised
 *     exp), in place, later keys 0,
 *     the row's 1/sum kept; O = P V, nr columns per kernel call (k = the
 *     keys), the kernel reading P's rows in place (no packing), each row
 *     times its 1/sum. S/P stays in L1/L2.
 * GFLOP/s counts 4 * batch * heads * seq^2 * head_dim, halved when causal.
 * Verified against the harness's attention reference. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_gemm_packed.h"
#include "cpu_pool.h"
#include "cpu_rowops.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ATTN_X86 1
#endif

struct attn {
  int64_t batch, heads, seq, dim;
  uint32_t rope; /* 0, BENCH_ROPE_INTERLEAVED or BENCH_ROPE_HALVES */
  int causal;    /* mask=causal: query i sees keys 0..i; else every key */
  double theta;
  float scale;
  float *q, *k, *v, *o;
  float *qr;         /* rotated q (with RoPE) */
  struct gemm_kernel kern;
  int mr, nr;
  int64_t kpad;      /* keys rounded up to nr */
  int64_t dpad;      /* head_dim rounded up to nr */
  int64_t ld;        /* row stride of S: kpad plus a line, no 4K aliasing */
  float *kt;         /* per group: kpad / nr panels of [head_dim][nr] keys */
  float *vp;         /* per group: dpad / nr panels of [kpad][nr] columns;
                        NULL: v read in place (head_dim a multiple of nr) */
  float *cos, *sin;  /* [seq][head_dim / 2] */
  float *work;       /* per thread: S, packed P, packed Q, an output tile */
  size_t work_floats;
  struct cpu_pool *pool;
  int64_t ntiles;    /* query tiles per group */
  atomic_llong next; /* the next work item */
};

/* Multiply-adds a thread gets at least (cpu_gemm's MIN_WORK): smaller
 * problems use fewer threads, one below twice this. */
#define MIN_WORK ((int64_t)1 << 18)

/* ---- 1. RoPE and packing per (batch, head) ---------------------------------- */

#ifdef ATTN_X86
/* 32 keys (rows of src, d apart; d a multiple of 16) to one K^T micro-panel
 * of the AVX-512 kernel, panel[t * 32 + j] = src[j * d + t] * scale: 16 x 16
 * blocks transposed in registers (unpack ps, unpack pd, then two rounds of
 * 128-bit lane shuffles), a quarter of the shuffles and loads of 4 x 4. */
__attribute__((target("avx512f"))) static void pack_keys_512(const float *src, int64_t d,
                                                              float scale, float *panel) {
  const __m512 sc = _mm512_set1_ps(scale);
  for (int64_t t0 = 0; t0 < d; t0 += 16)
    for (int h = 0; h < 32; h += 16) {
      __m512 r[16], t[16], u[16];
      for (int i = 0; i < 16; i++) {
        _mm_prefetch((const char *)(src + (32 + h + i) * d + t0), _MM_HINT_T0); /* next panel */
        r[i] = _mm512_mul_ps(_mm512_loadu_ps(src + (h + i) * d + t0), sc);
      }
      for (int i = 0; i < 16; i += 2) { /* lane L: rows i, i+1 at columns 4L..4L+3, paired */
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
      }
      for (int i = 0; i < 16; i += 4) { /* u[i + c], lane L: rows i..i+3 of column 4L+c */
        const __m512d a = _mm512_castps_pd(t[i]), b = _mm512_castps_pd(t[i + 1]);
        const __m512d a2 = _mm512_castps_pd(t[i + 2]), b2 = _mm512_castps_pd(t[i + 3]);
        u[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, a2));
        u[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, a2));
        u[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, b2));
        u[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, b2));
      }
      for (int c = 0; c < 4; c++) { /* column 4L+c: lane L of u[c], u[4+c], u[8+c], u[12+c] */
        const __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44);
        const __m512 v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xee);
        const __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44);
        const __m512 v3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xee);
        float *p = panel + (t0 + c) * 32 + h;
        _mm512_storeu_ps(p, _mm512_shuffle_f32x4(v0, v2, 0x88));
        _mm512_storeu_ps(p + 4 * 32, _mm512_shuffle_f32x4(v0, v2, 0xdd));
        _mm512_storeu_ps(p + 8 * 32, _mm512_shuffle_f32x4(v1, v3, 0x88));
        _mm512_storeu_ps(p + 12 * 32, _mm512_shuffle_f32x4(v1, v3, 0xdd));
      }
    }
}
#endif

static void rope_row(const struct attn *s, const float *x, int64_t pos, float *y) {
  const int64_t d = s->dim, half = d / 2;
  const float *cs = s->cos + pos * half, *sn = s->sin + pos * half;
  for (int64_t i = 0; i < half; i++) {
    const int64_t a = s->rope == BENCH_ROPE_HALVES ? i : 2 * i;
    const int64_t b = s->rope == BENCH_ROPE_HALVES ? i + half : 2 * i + 1;
    y[a] = x[a] * cs[i] - x[b] * sn[i];
    y[b] = x[a] * sn[i] + x[b] * cs[i];
  }
}

static void prepare_groups(void *arg, int64_t g0, int64_t g1, int tid) {
  const struct attn *s = arg;
  const int64_t d = s->dim, n = s->seq, nr = s->nr;
  float *tmp = s->work + (size_t)tid * s->work_floats; /* nr x d floats are free here */
  for (int64_t g = g0; g < g1; g++) {
    const float *k = s->k + g * n * d, *v = s->v + g * n * d;
    float *kt = s->kt + g * s->kpad * d, *vp = s->vp ? s->vp + g * s->kpad * s->dpad : NULL;
    for (int64_t p0 = 0; p0 < n; p0 += nr) { /* nr keys: one micro-panel of K^T */
      const int64_t keys = n - p0 < nr ? n - p0 : nr;
      const float *src = k + p0 * d;
      if (s->rope) {
        for (int64_t p = p0; p < p0 + keys; p++) {
          rope_row(s, s->q + (g * n + p) * d, p, s->qr + (g * n + p) * d);
          rope_row(s, k + p * d, p, tmp + (p - p0) * d);
        }
        src = tmp;
      }
      float *panel = kt + p0 * d; /* times 1/sqrt(d): S comes out scaled */
#ifdef ATTN_X86
      if (keys == nr && nr == 32 && d % 16 == 0) {
        pack_keys_512(src, d, s->scale, panel);
        continue;
      }
#endif
      if (keys == nr) {
        gemm_pack_rows_f32(src, d, (int)nr, d, panel);
      } else {
        for (int64_t t = 0; t < d; t++)
          for (int64_t j = 0; j < keys; j++) panel[t * nr + j] = src[j * d + t];
      }
      for (int64_t t = 0; t < d * nr; t++) panel[t] *= s->scale;
    }
    for (int64_t p = 0; s->vp && p < n; p++) /* row p of v into the column panels (padding 0) */
      for (int64_t c0 = 0; c0 < d; c0 += nr) {
        const int64_t w = d - c0 < nr ? d - c0 : nr;
        memcpy(vp + c0 * s->kpad + p * nr, v + p * d + c0, (size_t)w * sizeof(float));
      }
  }
}

/* ---- 2. one tile of queries ------------------------------------------------------------ */

static void attention_task(void *arg, int tid, int nthreads) {
  (void)nthreads;
  struct attn *s = arg;
  const int64_t d = s->dim, n = s->seq, groups = s->batch * s->heads, ld = s->ld;
  const int mr = s->mr, nr = s->nr;
  const float *q = s->rope ? s->qr : s->q;
  float *S = s->work + (size_t)tid * s->work_floats; /* mr x ld */
  float *qt = S + (size_t)mr * ld;                    /* mr x d: a last, short tile */
  float *ot = qt + (size_t)d * mr + 16;               /* mr x nr */
  ot = (float *)(((uintptr_t)ot + 63) & ~(uintptr_t)63);
  float inv_sum[12];
  for (;;) {
    if (cpu_pool_yield_point()) return; /* between items; on the caller's CPU: stop */
    const long long item = atomic_fetch_add(&s->next, 1);
    if (item >= s->ntiles * groups) return;
    /* group by group (its K^T and V stay in L2), the last tiles (the most keys) first */
    const int64_t g = item / s->ntiles, tile = s->ntiles - 1 - item % s->ntiles;
    /* tile 0 is the short one (seq % mr queries, when not 0): it has the
       fewest keys, so its padding rows cost the least */
    const int64_t first = n - (s->ntiles - 1) * mr;
    const int64_t i0 = tile ? first + (tile - 1) * mr : 0, nq = tile ? mr : first;
    const int64_t keys = s->causal ? i0 + nq : n;      /* the tile's last query sees */
    const int64_t nk = (keys + nr - 1) / nr * nr; /* keys, to a whole micro-panel */
    const float *kt = s->kt + g * s->kpad * d;
    const float *qg = q + (g * n + i0) * d; /* the tile's queries, read in place */
    float *o = s->o + (g * n + i0) * d;
    for (int64_t t = 0; t < nq * d; t += 16) /* O's lines, for writing, meanwhile: */
      __builtin_prefetch(o + t, 1, 3); /* else the next item's atomic waits for them */
    if (nq < mr) { /* past the tile's last query: rows of zeros */
      memcpy(qt, qg, (size_t)(nq * d) * sizeof(float));
      memset(qt + nq * d, 0, (size_t)((mr - nq) * d) * sizeof(float));
      qg = qt;
    }
    for (int64_t j0 = 0; j0 < nk; j0 += nr) s->kern.rows(d, qg, d, kt + j0 * d, nr, S + j0, ld);
    for (int i = 0; i < mr; i++) { /* S -> P in place, row by row */
      float *row = S + i * ld;
      if (i >= nq) {
        memset(row, 0, (size_t)nk * sizeof(float));
        continue;
      }
      const int64_t valid = s->causal ? i0 + i + 1 : n; /* keys 0 .. the query's position */
      const float mx = cpu_row_max(row, valid);
      inv_sum[i] = 1.0f / cpu_row_exp_sum(row, row, valid, mx, NULL);
      memset(row + valid, 0, (size_t)(nk - valid) * sizeof(float));
    }
    for (int64_t c0 = 0; c0 < d; c0 += nr) { /* P is 0 past the last query */
      if (s->vp)
        s->kern.rows(keys, S, ld, s->vp + (g * s->dpad + c0) * s->kpad, nr, ot, nr);
      else
        s->kern.rows(keys, S, ld, s->v + g * n * d + c0, d, ot, nr);
      const int64_t w = d - c0 < nr ? d - c0 : nr;
      for (int64_t i = 0; i < nq; i++)
        for (int64_t c = 0; c < w; c++) o[i * d + c0 + c] = ot[i * nr + c] * inv_sum[i];
    }
  }
}

/* ---- the plugin --------------------------------------------------------------------- */

static const struct bench_param params[] = {
    BENCH_PARAM_ATTN_BATCH("1,2", "1", "1,1", "1,2,1,1,1"),
    BENCH_PARAM_ATTN_HEADS("2,1", "8", "16,16", "1,3,2,1,2"),
    BENCH_PARAM_ATTN_SEQ("64,19", "1024", "1024,2048", "1,5,17,37,70"),
    BENCH_PARAM_ATTN_HEAD_DIM(1 << 14, "32,6", "64", "128,128", "2,6,16,64,18"),
    BENCH_PARAM_ATTN_ROPE("none,halves", "none,interleaved", "none", "none,interleaved,halves"),
    BENCH_PARAM_ATTN_MASK("causal,none", "causal", "causal", "causal,none"),
    BENCH_PARAM_ATTN_THETA("10000", "10000", "10000", "10000"),
    CPU_THREADS_PARAM("0", "0", "1,0", "1,3"),
    {.name = "isa", .type = BENCH_PARAM_STRING,
     .description = "micro-kernel instruction set (auto = the widest this CPU runs)",
     .choices = "auto,avx512,avx2,generic", .defaults = {"auto", "auto", "auto", "auto"}},
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct attn *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  s->batch = host->param_int(host, "batch");
  s->heads = host->param_int(host, "heads");
  s->seq = host->param_int(host, "seq");
  s->dim = host->param_int(host, "head_dim");
  const char *rope = host->param_str(host, "rope");
  s->rope = !strcmp(rope, "interleaved") ? BENCH_ROPE_INTERLEAVED
            : !strcmp(rope, "halves")    ? BENCH_ROPE_HALVES
                                         : 0;
  s->theta = host->param_float(host, "theta");
  s->causal = strcmp(host->param_str(host, "mask"), "none") != 0;
  if (s->rope && s->dim % 2) return host->fail(host, "RoPE needs an even head_dim");
  s->scale = (float)(1.0 / sqrt((double)s->dim));
  const char *isa = host->param_str(host, "isa");
  if (gemm_kernel_pick(isa, &s->kern) != 0)
    return host->skip(host, "this CPU cannot run the %s micro-kernel", isa);
  host->set_info(host, "kernel", s->kern.name);
  cpu_rowops_use("widest"); /* its softmax on the widest row kernels, whatever a case before chose */
  cpu_caches_note(host); /* its GEMM blocks are sized by L2 and the LLC */
  s->mr = s->kern.mr;
  s->nr = s->kern.nr;
  s->ntiles = (s->seq + s->mr - 1) / s->mr;
  /* Threads: as many as get MIN_WORK multiply-adds each (as cpu_gemm),
   * and a tile of queries each. */
  const int asked = cpu_threads_resolve(host->param_int(host, "threads"));
  const int64_t bh = s->batch * s->heads;
  const double macs = (double)bh * (double)s->seq * (double)s->seq / 2 * (double)s->dim;
  const int by_work = cpu_threads_for(asked, macs < 9e18 ? (int64_t)macs : INT64_MAX, MIN_WORK);
  if (!(s->pool = cpu_pool_for_case(host, asked, cpu_threads_for(by_work, s->ntiles * bh, 1))))
    return BENCH_ERROR;
  const int threads = cpu_pool_size(s->pool);
  s->kpad = (s->seq + s->nr - 1) / s->nr * s->nr;
  s->dpad = (s->dim + s->nr - 1) / s->nr * s->nr;
  s->ld = s->kpad + 16;
  s->work_floats = (size_t)((s->mr * s->ld + s->dim * s->mr + 16 + 16 +
                             s->mr * s->nr + s->nr * s->dim + 15) / 16 * 16);

  const size_t n = (size_t)(s->batch * s->heads * s->seq * s->dim), half = (size_t)s->dim / 2;
  s->q = cpu_alloc(n * sizeof(float));
  s->k = cpu_alloc(n * sizeof(float));
  s->v = cpu_alloc(n * sizeof(float));
  s->o = cpu_alloc(n * sizeof(float));
  const size_t groups = (size_t)(s->batch * s->heads);
  const size_t nkt = groups * (size_t)(s->kpad * s->dim), nvp = groups * (size_t)(s->kpad * s->dpad);
  s->kt = cpu_alloc(nkt * sizeof(float));
  if (s->dim % s->nr) { /* else the kernel reads v's rows in place */
    if (!(s->vp = cpu_alloc(nvp * sizeof(float)))) return host->fail(host, "out of memory");
    memset(s->vp, 0, nvp * sizeof(float)); /* the padding columns stay 0 */
  }
  s->work = cpu_alloc((size_t)threads * s->work_floats * sizeof(float));
  if (!s->q || !s->k || !s->v || !s->o || !s->kt || !s->work)
    return host->fail(host, "out of memory");
  memset(s->kt, 0, nkt * sizeof(float)); /* the padding keys stay 0 */
  host->fill_random(host, s->q, n, BENCH_F32, 1);
  host->fill_random(host, s->k, n, BENCH_F32, 2);
  host->fill_random(host, s->v, n, BENCH_F32, 3);
  if (s->rope) {
    s->qr = cpu_alloc(n * sizeof(float));
    s->cos = cpu_alloc((size_t)s->seq * half * sizeof(float) + 1);
    s->sin = cpu_alloc((size_t)s->seq * half * sizeof(float) + 1);
    if (!s->qr || !s->cos || !s->sin) return host->fail(host, "out of memory");
    for (int64_t p = 0; p < s->seq; p++)
      for (size_t i = 0; i < half; i++) {
        const double angle = (double)p * pow(s->theta, -2.0 * (double)i / (double)s->dim);
        s->cos[(size_t)p * half + i] = (float)cos(angle);
        s->sin[(size_t)p * half + i] = (float)sin(angle);
      }
  }
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct attn *s = state;
  cpu_parallel_for(s->pool, s->batch * s->heads, 1, prepare_groups, s);
  atomic_store(&s->next, 0);
  cpu_pool_run(s->pool, attention_task, s);
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  const struct attn *s = state;
  struct bench_check c = {.op = "attention", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                          .batch = s->batch, .heads = s->heads, .seq = s->seq,
                          .head_dim = s->dim, .theta = s->theta,
                          .flags = (s->rope ? (BENCH_ATTN_ROPE | s->rope) : 0) |
                                   (s->causal ? 0 : BENCH_ATTN_FULL),
                          .in = {s->q, s->k, s->v}, .out = s->o};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct attn *s = state;
  cpu_pool_destroy(s->pool);
  cpu_free(s->q);
  cpu_free(s->k);
  cpu_free(s->v);
  cpu_free(s->o);
  cpu_free(s->kt);
  cpu_free(s->qr);
  cpu_free(s->cos);
  cpu_free(s->sin);
  cpu_free(s->vp);
  cpu_free(s->work);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_attention",
    .backend = "cpu",
    .operation = "attention",
    .description = "fp32 attention, causal or not (optional RoPE), QK^T and PV on the packed GEMM micro-kernel, threaded",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
