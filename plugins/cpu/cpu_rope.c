/* cpu_rope: rotary position embedding, y = RoPE(x), for x laid out
 * [seq][heads][head_dim] in fp32. Position p = the row's seq index; pair i
 * of a head turns by p * theta^(-2i/head_dim). layout=interleaved pairs
 * (2i, 2i+1) (Meta/LLaMA), layout=halves pairs (i, i + head_dim/2)
 * (GPT-NeoX/HF). The cos/sin table [seq][head_dim/2] is built once in setup
 * (in double, rounded to float), as models cache it; y larger than the
 * last-level cache is written with non-temporal stores; rows split across
 * `threads` threads, loops vectorised. GB/s counts 2 * numel * 4 bytes
 * (the harness's rope figure). Verified against the harness's rope
 * reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plugin.h"
#include "cpu_common.h"
#include "cpu_pool.h"

struct rope {
  int64_t seq, heads, dim;
  int halves;
  double theta;
  float *x, *y, *cos, *sin; /* cos, sin: [seq][dim/2] */
  int stream;               /* non-temporal y */
  float *rowbuf;            /* per thread: one row of y on its way out */
  struct cpu_pool *pool;
};

CPU_MULTIVERSION
static void rope_rows(void *arg, int64_t r0, int64_t r1, int tid) {
  const struct rope *s = arg;
  const int64_t d = s->dim, half = d / 2;
  for (int64_t r = r0; r < r1; r++) {
    const int64_t pos = r / s->heads;
    const float *restrict x = s->x + r * d, *restrict cs = s->cos + pos * half,
                          *restrict sn = s->sin + pos * half;
    float *restrict y = s->stream ? s->rowbuf + tid * d : s->y + r * d;
    if (s->halves) {
#pragma omp simd
      for (int64_t i = 0; i < half; i++) {
        const float a = x[i], b = x[i + half];
        y[i] = a * cs[i] - b * sn[i];
        y[i + half] = a * sn[i] + b * cs[i];
      }
    } else {
#pragma omp simd
      for (int64_t i = 0; i < half; i++) {
        const float a = x[2 * i], b = x[2 * i + 1];
        y[2 * i] = a * cs[i] - b * sn[i];
        y[2 * i + 1] = a * sn[i] + b * cs[i];
      }
    }
    if (s->stream) cpu_stream_copy(s->y + r * d, y, d);
  }
  if (s->stream) cpu_stream_fence();
}

static const struct bench_param params[] = {
    BENCH_PARAM_ROPE_SEQ("16,5", "4096", "1024,8192", "1,7,33,3"),
    BENCH_PARAM_ROPE_HEADS("4,3", "32", "32,32", "1,3,2,5"),
    BENCH_PARAM_ROPE_HEAD_DIM("64,6", "128", "128,128", "2,6,130,64"),
    BENCH_PARAM_ROPE_LAYOUT("interleaved,halves", "interleaved,halves", "interleaved,halves",
                            "interleaved,halves"),
    BENCH_PARAM_ROPE_THETA("10000", "10000", "10000", "10000,500000"),
    CPU_THREADS_PARAM("0", "0", "1,0", "1,3"),
    {.name = NULL},
};

static int setup(const struct bench_host *host, void *ctx, void **state) {
  (void)ctx;
  struct rope *s = calloc(1, sizeof *s);
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  s->seq = host->param_int(host, "seq");
  s->heads = host->param_int(host, "heads");
  s->dim = host->param_int(host, "head_dim");
  s->halves = strcmp(host->param_str(host, "layout"), "halves") == 0;
  s->theta = host->param_float(host, "theta");
  if (s->dim % 2) return host->fail(host, "head_dim must be even (got %lld)", (long long)s->dim);
  if (!(s->pool = cpu_pool_from_param(host, s->seq * s->heads, cpu_row_grain(s->dim))))
    return BENCH_ERROR;
  const int64_t half = s->dim / 2;
  const size_t n = (size_t)(s->seq * s->heads * s->dim), nt = (size_t)(s->seq * half);
  s->x = cpu_alloc(n * sizeof(float));
  s->y = cpu_alloc(n * sizeof(float));
  s->cos = cpu_alloc(nt * sizeof(float));
  s->sin = cpu_alloc(nt * sizeof(float));
  s->stream = cpu_stream_output(host, (int64_t)(n * sizeof(float)));
  s->rowbuf = cpu_alloc((size_t)(cpu_pool_size(s->pool) * s->dim) * sizeof(float));
  if (!s->x || !s->y || !s->cos || !s->sin || !s->rowbuf)
    return host->fail(host, "out of memory");
  host->set_info(host, "stores", s->stream ? "nontemporal" : "normal");
  host->fill_random(host, s->x, n, BENCH_F32, 1);
  for (int64_t p = 0; p < s->seq; p++)
    for (int64_t i = 0; i < half; i++) {
      const double angle = (double)p * pow(s->theta, -2.0 * (double)i / (double)s->dim);
      s->cos[p * half + i] = (float)cos(angle);
      s->sin[p * half + i] = (float)sin(angle);
    }
  return BENCH_OK;
}

static int run(const struct bench_host *host, void *state) {
  (void)host;
  struct rope *s = state;
  cpu_parallel_for(s->pool, s->seq * s->heads, cpu_row_grain(s->dim), rope_rows, s);
  return BENCH_OK;
}

static int verify(const struct bench_host *host, void *state) {
  const struct rope *s = state;
  struct bench_check c = {.op = "rope", .dtype = BENCH_F32, .out_dtype = BENCH_F32,
                          .rows = s->seq * s->heads, .cols = s->dim, .heads = s->heads,
                          .seq = s->seq, .head_dim = s->dim, .theta = s->theta,
                          .flags = s->halves ? BENCH_ROPE_HALVES : BENCH_ROPE_INTERLEAVED,
                          .in = {s->x}, .out = s->y};
  return host->check(host, &c);
}

static void teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct rope *s = state;
  cpu_pool_destroy(s->pool);
  cpu_free(s->x);
  cpu_free(s->y);
  cpu_free(s->cos);
  cpu_free(s->sin);
  cpu_free(s->rowbuf);
  free(s);
}

BENCH_PLUGIN_DEFINE = {
    .abi_version = BENCH_ABI_VERSION,
    .name = "cpu_rope",
    .backend = "cpu",
    .operation = "rope",
    .description = "fp32 RoPE, interleaved or split-half pairs, cached cos/sin, threaded; GB/s of x + y",
    .params = params,
    .setup = setup,
    .run = run,
    .verify = verify,
    .teardown = teardown,
};
