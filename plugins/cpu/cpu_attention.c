/* cpu_attention: causal scaled dot-product attention in fp32,
 * O = softmax(Q K^T / sqrt(d) + causal mask) V, for q, k, v, o laid out
 * [batch][heads][seq][head_dim]; with rope=interleaved|halves, RoPE is
 * applied to q and k first (cos/sin table built in setup).
 *
 * One iteration:
 *  1. per (batch, head): q rotated (or used as is) and k rotated and
 *     packed transposed, JB keys at a time: kt[seq / JB][head_dim][JB], so
 *     scores vectorise over keys and read memory in order;
 *  2. per block of QB queries (work items handed out longest first, across
 *     `threads` threads): scores S = Q K^T for keys 0..last query of the
 *     block (a QB x JB register tile at a time), an exact softmax per row
 *     over its causal keys, then O = P V (a QB x TB register tile at a
 *     time, over all keys). Loops vectorised, AVX2/AVX-512 clones.
 * GFLOP/s counts 4 * batch * heads * seq^2 * head_dim / 2 (causal).
 * Verified against the harness's attention reference. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"

#define QB 6  /* queries per block: rows of the register tiles */
#define JB 16 /* keys per score tile */
#define TB 16 /* head_dim columns per output tile */

struct attn {
  int64_t batch, heads, seq, dim;
  uint32_t rope; /* 0, BENCH_ROPE_INTERLEAVED or BENCH_ROPE_HALVES */
  double theta;
  float scale;
  float *q, *k, *v, *o;
  float *qr, *kt;    /* rotated q (with RoPE); k rotated, packed transposed */
  int64_t kpad;      /* keys per group in kt: seq rounded up to JB */
  int64_t ld;        /* row stride of the scores: kpad plus a line, no 4K aliasing */
  float *cos, *sin;  /* [seq][head_dim / 2] */
  float *scores;     /* per thread: QB x seq */
  struct cpu_pool *pool;
  int64_t nblocks;   /* query blocks per group */
  atomic_llong next; /* the next work item */
};

/* ---- 1. RoPE and the transposed keys ----------------------------------------- */

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
  const int64_t d = s->dim, n = s->seq;
  float *tmp = s->scores + (size_t)tid * QB * s->ld; /* d <= QB * ld floats are free here */
  for (int64_t g = g0; g < g1; g++) {
    const float *k = s->k + g * n * d;
    float *kt = s->kt + g * s->kpad * d;
    for (int64_t p = 0; p < n; p++) {
      const float *kp = k + p * d;
      if (s->rope) {
        rope_row(s, s->q + (g * n + p) * d, p, s->qr + (g * n + p) * d);
        rope_row(s, kp, p, tmp);
        kp = tmp;
      }
      float *dst = kt + p / JB * d * JB + p % JB;
      for (int64_t t = 0; t < d; t++) dst[t * JB] = kp[t];
    }
  }
}

/* ---- 2. one block of queries --------------------------------------------------------- */

/* S[r][j] = scale * q_r . k_j for r < nq and j < nk, rounded up to JB
 * keys (S has row stride ld; kt is packed JB keys at a time). */
CPU_MULTIVERSION
static void block_scores(const float *restrict q, const float *restrict kt, int64_t d,
                         int64_t nq, int64_t nk, float scale, float *restrict S, int64_t ld) {
  for (int64_t j0 = 0; j0 < nk; j0 += JB) {
    const float *restrict panel = kt + j0 * d; /* j0 / JB * d * JB */
    if (nq == QB) {
      float acc[QB][JB] = {{0}};
      for (int64_t t = 0; t < d; t++) {
        const float *restrict kr = panel + t * JB;
        for (int r = 0; r < QB; r++) {
          const float qv = q[r * d + t];
#pragma omp simd
          for (int j = 0; j < JB; j++) acc[r][j] += qv * kr[j];
        }
      }
      for (int r = 0; r < QB; r++)
#pragma omp simd
        for (int j = 0; j < JB; j++) S[r * ld + j0 + j] = acc[r][j] * scale;
    } else { /* the last, short block of queries: one row at a time */
      for (int64_t r = 0; r < nq; r++) {
        float acc[JB] = {0};
        for (int64_t t = 0; t < d; t++) {
          const float qv = q[r * d + t];
#pragma omp simd
          for (int j = 0; j < JB; j++) acc[j] += qv * panel[t * JB + j];
        }
#pragma omp simd
        for (int j = 0; j < JB; j++) S[r * ld + j0 + j] = acc[j] * scale;
      }
    }
  }
}

/* Row r of P = softmax over its keys 0..last[r]; later keys get 0. */
CPU_MULTIVERSION
static void block_softmax(float *restrict S, int64_t ld, int64_t nq, int64_t nk, int64_t first,
                          float *restrict inv_sum) {
  for (int64_t r = 0; r < nq; r++) {
    float *restrict p = S + r * ld;
    const int64_t valid = first + r + 1; /* keys 0 .. query position */
    float mx = p[0];
#pragma omp simd reduction(max : mx)
    for (int64_t j = 0; j < valid; j++) mx = p[j] > mx ? p[j] : mx;
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < valid; j++) {
      p[j] = cpu_expf(p[j] - mx);
      sum += p[j];
    }
    for (int64_t j = valid; j < nk; j++) p[j] = 0;
    inv_sum[r] = 1.0f / sum;
  }
}

/* O[r] = inv_sum[r] * sum_j P[r][j] V[j] for r < nq. */
CPU_MULTIVERSION
static void block_output(const float *restrict P, int64_t ld, const float *restrict v,
                         int64_t d, int64_t nq, int64_t nk, const float *inv_sum,
                         float *restrict o) {
  int64_t t0 = 0;
  if (nq == QB)
    for (; t0 + TB <= d; t0 += TB) {
      float acc[QB][TB] = {{0}};
      for (int64_t j = 0; j < nk; j++) {
        const float *restrict vr = v + j * d + t0;
        for (int r = 0; r < QB; r++) {
          const float pv = P[r * ld + j];
#pragma omp simd
          for (int t = 0; t < TB; t++) acc[r][t] += pv * vr[t];
        }
      }
      for (int r = 0; r < QB; r++)
#pragma omp simd
        for (int t = 0; t < TB; t++) o[r * d + t0 + t] = acc[r][t] * inv_sum[r];
    }
  for (int64_t r = 0; r < nq; r++) /* the columns left over */
    for (int64_t t = t0; t < d; t++) {
      float acc = 0;
      for (int64_t j = 0; j < nk; j++) acc += P[r * ld + j] * v[j * d + t];
      o[r * d + t] = acc * inv_sum[r];
    }
}

static void attention_task(void *arg, int tid, int nthreads) {
  (void)nthreads;
  struct attn *s = arg;
  const int64_t d = s->dim, n = s->seq, groups = s->batch * s->heads;
  const float *q = s->rope ? s->qr : s->q;
  float *S = s->scores + (size_t)tid * QB * s->ld;
  float inv_sum[QB];
  for (;;) {
    const long long item = atomic_fetch_add(&s->next, 1);
    if (item >= s->nblocks * groups) return;
    /* the last blocks of every group (the most keys) first */
    const int64_t blk = s->nblocks - 1 - item / groups, g = item % groups;
    const int64_t i0 = blk * QB, nq = n - i0 < QB ? n - i0 : QB, nk = i0 + nq;
    const int64_t base = g * n * d;
    block_scores(q + base + i0 * d, s->kt + g * s->kpad * d, d, nq, nk, s->scale, S, s->ld);
    block_softmax(S, s->ld, nq, nk, i0, inv_sum);
    block_output(S, s->ld, s->v + base, d, nq, nk, inv_sum, s->o + base + i0 * d);
  }
}

/* ---- the plugin --------------------------------------------------------------------- */

static const struct bench_param params[] = {
    {.name = "batch", .type = BENCH_PARAM_INT, .description = "sequences", .min = 1,
     .max = 1 << 16, .zip = 1, .defaults = {"1,2", "1", "1,1", "1,2,1,1,1"}},
    {.name = "heads", .type = BENCH_PARAM_INT, .description = "attention heads", .min = 1,
     .max = 1 << 16, .zip = 1, .defaults = {"2,1", "8", "16,16", "1,3,2,1,2"}},
    {.name = "seq", .type = BENCH_PARAM_INT, .description = "sequence length (queries = keys)",
     .min = 1, .max = 1 << 20, .zip = 1, .defaults = {"64,19", "1024", "1024,2048", "1,5,17,37,70"}},
    {.name = "head_dim", .type = BENCH_PARAM_INT, .description = "elements per head", .min = 1,
     .max = 1 << 14, .zip = 1, .defaults = {"32,6", "64", "128,128", "2,6,16,64,18"}},
    {.name = "rope", .type = BENCH_PARAM_STRING,
     .description = "RoPE on q and k first: none, interleaved or halves pairs",
     .choices = "none,interleaved,halves",
     .defaults = {"none,halves", "none,interleaved", "none", "none,interleaved,halves"}},
    {.name = "theta", .type = BENCH_PARAM_FLOAT, .description = "RoPE frequency base", .min = 1,
     .max = 1e9, .defaults = {"10000", "10000", "10000", "10000"}},
    CPU_THREADS_PARAM("0", "0", "1,0", "1,3"),
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
  if (s->rope && s->dim % 2) return host->fail(host, "RoPE needs an even head_dim");
  s->scale = (float)(1.0 / sqrt((double)s->dim));
  if (!(s->pool = cpu_pool_from_param(host))) return BENCH_ERROR;
  const int threads = cpu_pool_size(s->pool);
  s->nblocks = (s->seq + QB - 1) / QB;
  s->kpad = (s->seq + JB - 1) / JB * JB;
  s->ld = s->kpad + 16;

  const size_t n = (size_t)(s->batch * s->heads * s->seq * s->dim), half = (size_t)s->dim / 2;
  s->q = cpu_alloc(n * sizeof(float));
  s->k = cpu_alloc(n * sizeof(float));
  s->v = cpu_alloc(n * sizeof(float));
  s->o = cpu_alloc(n * sizeof(float));
  const size_t nkt = (size_t)(s->batch * s->heads * s->kpad * s->dim);
  s->kt = cpu_alloc(nkt * sizeof(float));
  s->scores = cpu_alloc((size_t)threads * QB * (size_t)(s->ld > s->dim ? s->ld : s->dim) *
                        sizeof(float));
  if (!s->q || !s->k || !s->v || !s->o || !s->kt || !s->scores)
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
  const double bhd = (double)(s->batch * s->heads) * (double)s->dim;
  host->set_work(host, 4.0 * bhd * (double)s->seq * (double)s->seq / 2,
                 4.0 * bhd * (double)s->seq * sizeof(float));
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
                          .flags = s->rope ? (BENCH_ATTN_ROPE | s->rope) : 0,
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
  cpu_free(s->scores);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_attention",
    .backend = "cpu",
    .operation = "attention",
    .description = "fp32 causal attention (optional RoPE), register-tiled QK^T and PV, threaded",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
