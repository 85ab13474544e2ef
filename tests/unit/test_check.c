/* check.c: correct fp32 / fp16 / bf16 kernels pass, wrong answers are caught
 * (full, sampled, Freivalds), malformed checks are refused, the tolerance
 * edge sits where the rule says. The "kernels" here are plain float code as
 * a plugin would write it: sequential fp32 accumulation. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/dtype.h"
#include "check/reference.h"
#include "test.h"

#define SEED 0x62656e6368ull

/* ---- buffers ---------------------------------------------------------- */

static void *rand_buf(size_t n, enum bench_dtype t, uint64_t seed) {
  void *p = malloc(n * dtype_size(t));
  fill_random(p, n, t, seed);
  return p;
}

static float *to_f32(const void *p, size_t n, enum bench_dtype t) {
  float *f = malloc(n * sizeof *f);
  for (size_t i = 0; i < n; i++) f[i] = (float)dtype_load(p, i, t);
  return f;
}

/* A float result stored in t (rounded to nearest even). */
static void *from_f32(const float *f, size_t n, enum bench_dtype t) {
  void *p = malloc(n * dtype_size(t));
  for (size_t i = 0; i < n; i++) dtype_store(p, i, t, f[i]);
  return p;
}

static void scale_f32(float *f, size_t n, float s) {
  for (size_t i = 0; i < n; i++) f[i] *= s;
}

/* ---- fp32 kernels, written as a plugin would ------------------------- */

static void gemm_f32(const float *a, const float *b, float *c, int m, int n, int k) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0;
      for (int kk = 0; kk < k; kk++) acc += a[i * k + kk] * b[kk * n + j];
      c[i * n + j] = acc;
    }
}

static void rmsnorm_f32(const float *x, const float *w, float *y, int rows, int cols, float eps) {
  for (int r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    float ss = 0;
    for (int j = 0; j < cols; j++) ss += xr[j] * xr[j];
    float rstd = 1.0f / sqrtf(ss / (float)cols + eps);
    for (int j = 0; j < cols; j++) y[r * cols + j] = xr[j] * rstd * w[j];
  }
}

static void layernorm_f32(const float *x, const float *w, const float *b, float *y, int rows,
                          int cols, float eps) {
  for (int r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    float sum = 0, var = 0;
    for (int j = 0; j < cols; j++) sum += xr[j];
    float mean = sum / (float)cols;
    for (int j = 0; j < cols; j++) var += (xr[j] - mean) * (xr[j] - mean);
    float rstd = 1.0f / sqrtf(var / (float)cols + eps);
    for (int j = 0; j < cols; j++) y[r * cols + j] = (xr[j] - mean) * rstd * w[j] + b[j];
  }
}

/* exp2: the x*log2e - max*log2e form of fused kernels. */
static void softmax_f32(const float *x, float *y, int rows, int cols, int use_exp2) {
  const float log2e = 1.44269504f;
  for (int r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    float mx = xr[0], sum = 0;
    for (int j = 1; j < cols; j++) mx = xr[j] > mx ? xr[j] : mx;
    for (int j = 0; j < cols; j++) {
      y[r * cols + j] = use_exp2 ? exp2f(xr[j] * log2e - mx * log2e) : expf(xr[j] - mx);
      sum += y[r * cols + j];
    }
    for (int j = 0; j < cols; j++) y[r * cols + j] /= sum;
  }
}

/* RoPE of one row in fp32. recurrence: theta^(-2/d) raised by repeated
 * multiplication (llama.cpp); otherwise powf per pair. */
static void rope_row_f32(const float *x, float *y, int d, int pos, float theta, int halves,
                         int recurrence) {
  const float step = powf(theta, -2.0f / (float)d);
  float angle = (float)pos;
  for (int i = 0; i < d / 2; i++) {
    if (!recurrence) angle = (float)pos * powf(theta, -2.0f * (float)i / (float)d);
    const int a = halves ? i : 2 * i, b = halves ? i + d / 2 : 2 * i + 1;
    const float cs = cosf(angle), sn = sinf(angle);
    const float xa = x[a], xb = x[b];
    y[a] = xa * cs - xb * sn;
    y[b] = xa * sn + xb * cs;
    if (recurrence) angle *= step;
  }
}

/* Causal attention in fp32; p_dtype: P rounded to it before P*V (F32 = not). */
static void attention_f32(const float *q, const float *k, const float *v, float *o, int bh,
                          int seq, int d, int rope, float theta, enum bench_dtype p_dtype) {
  float *qr = malloc((size_t)seq * d * sizeof *qr), *kr = malloc((size_t)seq * d * sizeof *kr);
  float *p = malloc((size_t)seq * sizeof *p);
  const float inv_sqrt_d = 1.0f / sqrtf((float)d);
  for (int g = 0; g < bh; g++) {
    const float *qg = q + (size_t)g * seq * d, *kg = k + (size_t)g * seq * d;
    const float *vg = v + (size_t)g * seq * d;
    for (int s = 0; s < seq; s++) {
      if (rope) {
        rope_row_f32(qg + s * d, qr + s * d, d, s, theta, 1, 0);
        rope_row_f32(kg + s * d, kr + s * d, d, s, theta, 1, 0);
      } else {
        memcpy(qr + s * d, qg + s * d, (size_t)d * sizeof *qr);
        memcpy(kr + s * d, kg + s * d, (size_t)d * sizeof *kr);
      }
    }
    for (int s = 0; s < seq; s++) {
      float mx = -INFINITY, sum = 0;
      for (int j = 0; j <= s; j++) {
        float dot = 0;
        for (int t = 0; t < d; t++) dot += qr[s * d + t] * kr[j * d + t];
        p[j] = dot * inv_sqrt_d;
        mx = p[j] > mx ? p[j] : mx;
      }
      for (int j = 0; j <= s; j++) {
        p[j] = expf(p[j] - mx);
        sum += p[j];
      }
      for (int j = 0; j <= s; j++) {
        float pj = p[j] / sum;
        if (p_dtype == BENCH_F16) pj = f16_to_f32(f32_to_f16(pj));
        if (p_dtype == BENCH_BF16) pj = bf16_to_f32(f32_to_bf16(pj));
        p[j] = pj;
      }
      for (int t = 0; t < d; t++) {
        float acc = 0;
        for (int j = 0; j <= s; j++) acc += p[j] * vg[j * d + t];
        o[(size_t)g * seq * d + s * d + t] = acc;
      }
    }
  }
  free(p);
  free(kr);
  free(qr);
}

/* ---- helpers ------------------------------------------------------------ */

static int passes(const struct bench_check *c, enum verify_level level) {
  struct check_result r;
  if (check_output(c, level, SEED, &r) != 0) {
    fprintf(stderr, "malformed: %s\n", r.message);
    return 0;
  }
  if (!r.pass) fprintf(stderr, "  (%s, %s)\n", r.method, r.message);
  return r.checked && r.pass;
}

/* A correct fp32 GEMM of the given input/output types at m x n x k. */
static int gemm_case_passes(int m, int n, int k, enum bench_dtype in, enum bench_dtype out,
                            enum verify_level level) {
  void *a = rand_buf((size_t)m * k, in, 1), *b = rand_buf((size_t)k * n, in, 2);
  float *af = to_f32(a, (size_t)m * k, in), *bf = to_f32(b, (size_t)k * n, in);
  float *cf = malloc((size_t)m * n * sizeof *cf);
  gemm_f32(af, bf, cf, m, n, k);
  void *c = from_f32(cf, (size_t)m * n, out);
  struct bench_check chk = {.op = "gemm", .dtype = in, .out_dtype = out, .m = m, .n = n,
                            .k = k, .in = {a, b}, .out = c};
  int ok = passes(&chk, level);
  free(c);
  free(cf);
  free(bf);
  free(af);
  free(b);
  free(a);
  return ok;
}

/* ---- correct kernels pass ----------------------------------------------- */

static void test_gemm_f32_passes(void) {
  CHECK(gemm_case_passes(8, 8, 1, BENCH_F32, BENCH_F32, VERIFY_FULL));
  CHECK(gemm_case_passes(8, 8, 4096, BENCH_F32, BENCH_F32, VERIFY_FULL));
  CHECK(gemm_case_passes(8, 8, 4096, BENCH_F32, BENCH_F32, VERIFY_FAST));
  CHECK(gemm_case_passes(96, 80, 300, BENCH_F32, BENCH_F32, VERIFY_FAST)); /* sampled */
  CHECK(gemm_case_passes(96, 80, 300, BENCH_F32, BENCH_F32, VERIFY_FULL));
}

static void test_gemm_low_precision_passes(void) {
  for (enum bench_dtype t = BENCH_F16; t <= BENCH_BF16; t++) {
    CHECK(gemm_case_passes(8, 8, 1, t, BENCH_F32, VERIFY_FULL));
    CHECK(gemm_case_passes(8, 8, 4096, t, BENCH_F32, VERIFY_FULL));
    CHECK(gemm_case_passes(8, 8, 4096, t, t, VERIFY_FULL)); /* fp32 accumulate, round out */
    CHECK(gemm_case_passes(80, 80, 64, t, t, VERIFY_FAST));
  }
}

/* All positive inputs: the accumulation error grows like sqrt(k), the
 * hardest case for a relative rule; still within it at k = 4096. */
static void test_gemm_positive_inputs_pass(void) {
  enum { M = 8, N = 8, K = 4096 };
  float *a = rand_buf(M * K, BENCH_F32, 3), *b = rand_buf(K * N, BENCH_F32, 4);
  for (int i = 0; i < M * K; i++) a[i] = fabsf(a[i]) + 1;
  for (int i = 0; i < K * N; i++) b[i] = fabsf(b[i]);
  float c[M * N];
  gemm_f32(a, b, c, M, N, K);
  struct bench_check chk = {.op = "gemm", .m = M, .n = N, .k = K, .in = {a, b}, .out = c};
  CHECK(passes(&chk, VERIFY_FULL));
  free(a);
  free(b);
}

static void test_norms_softmax_pass(void) {
  enum { R = 16, C = 4096 };
  for (enum bench_dtype t = BENCH_F32; t <= BENCH_BF16; t++) {
    void *x = rand_buf(R * C, t, 5), *w = rand_buf(C, t, 6), *b = rand_buf(C, t, 7);
    float *xf = to_f32(x, R * C, t), *wf = to_f32(w, C, t), *bf = to_f32(b, C, t);
    float *yf = malloc(R * C * sizeof *yf);

    rmsnorm_f32(xf, wf, yf, R, C, 1e-6f);
    void *y = from_f32(yf, R * C, t);
    struct bench_check c = {.op = "rmsnorm", .dtype = t, .out_dtype = t, .rows = R, .cols = C,
                            .eps = 1e-6f, .in = {x, w}, .out = y};
    CHECK(passes(&c, VERIFY_FAST));
    free(y);

    layernorm_f32(xf, wf, bf, yf, R, C, 1e-5f);
    y = from_f32(yf, R * C, t);
    c = (struct bench_check){.op = "layernorm", .dtype = t, .out_dtype = t, .rows = R,
                             .cols = C, .eps = 1e-5f, .in = {x, w, b}, .out = y};
    CHECK(passes(&c, VERIFY_FULL));
    free(y);

    for (int use_exp2 = 0; use_exp2 <= 1; use_exp2++) {
      softmax_f32(xf, yf, R, C, use_exp2);
      y = from_f32(yf, R * C, t);
      c = (struct bench_check){.op = "softmax", .dtype = t, .out_dtype = t, .rows = R,
                               .cols = C, .in = {x}, .out = y};
      CHECK(passes(&c, VERIFY_FULL));
      free(y);
    }
    free(yf);
    free(bf);
    free(wf);
    free(xf);
    free(b);
    free(w);
    free(x);
  }
}

/* Harder inputs an fp32 kernel still gets right: layernorm rows with a mean
 * far from 0, softmax of large logits (exp2 form too). */
static void test_norms_softmax_large_values_pass(void) {
  enum { R = 8, C = 1024 };
  float *x = rand_buf(R * C, BENCH_F32, 8), *w = rand_buf(C, BENCH_F32, 9);
  float *b = rand_buf(C, BENCH_F32, 10), *y = malloc(R * C * sizeof *y);
  for (int i = 0; i < R * C; i++) x[i] = x[i] * 3 + 50;
  layernorm_f32(x, w, b, y, R, C, 1e-5f);
  struct bench_check c = {.op = "layernorm", .rows = R, .cols = C, .eps = 1e-5f,
                          .in = {x, w, b}, .out = y};
  CHECK(passes(&c, VERIFY_FULL));
  for (int i = 0; i < R * C; i++) x[i] = (x[i] - 50) * 30 + 1000; /* logits ~ 1000 +- 90 */
  for (int use_exp2 = 0; use_exp2 <= 1; use_exp2++) {
    softmax_f32(x, y, R, C, use_exp2);
    c = (struct bench_check){.op = "softmax", .rows = R, .cols = C, .in = {x}, .out = y};
    CHECK(passes(&c, VERIFY_FULL));
  }
  free(y);
  free(b);
  free(w);
  free(x);
}

/* RoPE in fp32 out to position 4095, with powf and with the recurrence;
 * f16 / bf16 in and out with powf. */
static void test_rope_pass(void) {
  enum { S = 4096, D = 32, N = S * D };
  for (enum bench_dtype t = BENCH_F32; t <= BENCH_BF16; t++) {
    void *x = rand_buf(N, t, 11);
    float *xf = to_f32(x, N, t), *yf = malloc(N * sizeof *yf);
    for (int variant = 0; variant < (t == BENCH_F32 ? 4 : 1); variant++) {
      const int halves = variant & 1, rec = variant >> 1;
      for (int r = 0; r < S; r++) rope_row_f32(xf + r * D, yf + r * D, D, r, 10000.0f, halves, rec);
      void *y = from_f32(yf, N, t);
      struct bench_check c = {.op = "rope", .dtype = t, .out_dtype = t, .rows = S, .cols = D,
                              .heads = 1,
                              .flags = halves ? BENCH_ROPE_HALVES : BENCH_ROPE_INTERLEAVED,
                              .in = {x}, .out = y};
      CHECK(passes(&c, VERIFY_FULL));
      free(y);
    }
    free(yf);
    free(xf);
    free(x);
  }
}

static int attention_case_passes(int b, int h, int s, int d, enum bench_dtype t, int rope,
                                 float qk_gain, enum verify_level level) {
  const size_t n = (size_t)b * h * s * d;
  void *q = rand_buf(n, t, 12), *k = rand_buf(n, t, 13), *v = rand_buf(n, t, 14);
  float *qf = to_f32(q, n, t), *kf = to_f32(k, n, t), *vf = to_f32(v, n, t);
  if (qk_gain != 1) { /* larger scores: sharper softmax, larger fp32 score errors */
    scale_f32(qf, n, qk_gain);
    scale_f32(kf, n, qk_gain);
    free(q);
    free(k);
    q = from_f32(qf, n, t);
    k = from_f32(kf, n, t);
  }
  float *of = malloc(n * sizeof *of);
  attention_f32(qf, kf, vf, of, b * h, s, d, rope, 10000.0f, t);
  void *o = from_f32(of, n, t);
  struct bench_check c = {.op = "attention", .dtype = t, .out_dtype = t, .batch = b,
                          .heads = h, .seq = s, .head_dim = d,
                          .flags = rope ? BENCH_ATTN_ROPE | BENCH_ROPE_HALVES : 0,
                          .in = {q, k, v}, .out = o};
  int ok = passes(&c, level);
  free(o);
  free(of);
  free(vf);
  free(kf);
  free(qf);
  free(v);
  free(k);
  free(q);
  return ok;
}

static void test_attention_pass(void) {
  for (enum bench_dtype t = BENCH_F32; t <= BENCH_BF16; t++) {
    CHECK(attention_case_passes(2, 1, 96, 64, t, 0, 1, VERIFY_FULL));
    CHECK(attention_case_passes(1, 1, 96, 64, t, 1, 1, VERIFY_FULL));
    CHECK(attention_case_passes(1, 1, 64, 128, t, 0, 4, VERIFY_FULL));
  }
  CHECK(attention_case_passes(1, 1, 512, 32, BENCH_F32, 1, 2, VERIFY_FAST));
}

/* The output of the reference itself, rounded to f16 / bf16, passes for
 * every op: the tolerance covers the output rounding. */
static void test_rounded_reference_passes(void) {
  float *a = rand_buf(1 << 14, BENCH_F32, 15), *b = rand_buf(1 << 14, BENCH_F32, 16);
  float *d = rand_buf(1 << 14, BENCH_F32, 17);
  struct bench_check cases[] = {
      {.op = "gemm", .m = 16, .n = 24, .k = 512, .in = {a, b}},
      {.op = "rmsnorm", .rows = 8, .cols = 512, .eps = 1e-5, .in = {a, b}},
      {.op = "layernorm", .rows = 8, .cols = 512, .eps = 1e-5, .in = {a, b, d}},
      {.op = "softmax", .rows = 8, .cols = 512, .in = {a}},
      {.op = "rope", .rows = 64, .cols = 64, .heads = 4, .flags = BENCH_ROPE_INTERLEAVED,
       .in = {a}},
      {.op = "attention", .batch = 2, .heads = 2, .seq = 32, .head_dim = 32,
       .flags = BENCH_ATTN_ROPE | BENCH_ROPE_INTERLEAVED, .in = {a, b, d}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const size_t n = (size_t)(ref_rows(&cases[i]) * ref_cols(&cases[i]));
    double *ref = malloc(n * sizeof *ref);
    ref_compute(&cases[i], ref, NULL);
    for (enum bench_dtype t = BENCH_F32; t <= BENCH_BF16; t++) {
      void *out = malloc(n * dtype_size(t));
      for (size_t e = 0; e < n; e++) dtype_store(out, e, t, ref[e]);
      cases[i].out_dtype = t;
      cases[i].out = out;
      if (!passes(&cases[i], VERIFY_FULL)) fprintf(stderr, "  %s %s\n", cases[i].op, dtype_name(t));
      CHECK(passes(&cases[i], VERIFY_FULL));
      free(out);
    }
    free(ref);
  }
  free(a);
  free(b);
  free(d);
}

/* ---- wrong answers are caught ------------------------------------------- */

static void test_gemm_corrupt_full(void) {
  enum { M = 8, N = 8, K = 16 };
  float *a = rand_buf(M * K, BENCH_F32, 1), *b = rand_buf(K * N, BENCH_F32, 2), c[M * N];
  gemm_f32(a, b, c, M, N, K);
  const float good = c[3 * N + 5];
  c[3 * N + 5] = good + 0.25f;
  struct bench_check chk = {.op = "gemm", .m = M, .n = N, .k = K, .in = {a, b}, .out = c};
  struct check_result r;
  REQUIRE(check_output(&chk, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.checked && !r.pass);
  CHECK_STR(r.method, "full");
  CHECK(r.compared == M * N && r.mismatches == 1);
  CHECK(r.first_bad == 3 * N + 5);
  CHECK(r.bad_out == good + 0.25f);
  CHECK_NEAR(r.bad_ref, good, 1e-5);
  CHECK_NEAR(r.max_abs_err, 0.25, 1e-5);
  char want[200];
  snprintf(want, sizeof want,
           "gemm: 1 of 64 elements out of tolerance; first at [3,5]: got %.6g, expected %.6g "
           "(tol ", r.bad_out, r.bad_ref);
  CHECK(strncmp(r.message, want, strlen(want)) == 0);
  CHECK(strstr(r.message, "(tol 1.") != NULL && r.message[strlen(r.message) - 1] == ')');
  free(a);
  free(b);
}

/* 512 x 512 with k = 4: an element that the samples do not include is still
 * found, by Freivalds, and the message names it. */
static void test_gemm_corrupt_freivalds(void) {
  enum { M = 512, N = 512, K = 4 };
  float *a = rand_buf(M * K, BENCH_F32, 1), *b = rand_buf(K * N, BENCH_F32, 2);
  float *c = malloc(M * N * sizeof *c);
  gemm_f32(a, b, c, M, N, K);
  struct bench_check chk = {.op = "gemm", .m = M, .n = N, .k = K, .in = {a, b}, .out = c};
  struct check_result r;
  REQUIRE(check_output(&chk, VERIFY_FAST, SEED, &r) == 0);
  CHECK(r.pass);
  CHECK_STR(r.method, "sampled+freivalds");
  CHECK(r.compared > 600 && r.compared < 660); /* 512 samples + 4 corners + 2 x 64 edges */

  /* Corrupt one element; try several until one lies outside the samples
   * (the sampled count does not include a row Freivalds sent to rescan). */
  const int64_t spots[][2] = {{300, 200}, {17, 411}, {123, 45}};
  for (size_t t = 0; t < sizeof spots / sizeof spots[0]; t++) {
    const int64_t i = spots[t][0], j = spots[t][1];
    const float good = c[i * N + j];
    c[i * N + j] = good + 0.05f;
    REQUIRE(check_output(&chk, VERIFY_FAST, SEED, &r) == 0);
    CHECK(!r.pass);
    CHECK(r.mismatches == 1);
    CHECK(r.first_bad == i * N + j);
    char where[64];
    snprintf(where, sizeof where, "first at [%d,%d]", (int)i, (int)j);
    CHECK(strstr(r.message, where) != NULL);
    snprintf(where, sizeof where, "Freivalds flagged 1 of 512 rows, first row %d", (int)i);
    CHECK(strstr(r.message, where) != NULL);
    if (t == 0) {
      REQUIRE(check_output(&chk, VERIFY_FULL, SEED, &r) == 0);
      CHECK(!r.pass && r.mismatches == 1 && r.first_bad == i * N + j);
    }
    c[i * N + j] = good;
  }

  /* A whole wrong column: every row is flagged; 4 blocks are recomputed, the rest
   * count one mismatch each. */
  for (int i = 0; i < M; i++) c[i * N + 7] += 1;
  REQUIRE(check_output(&chk, VERIFY_FAST, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == 7);
  CHECK(r.mismatches >= M);
  CHECK(strstr(r.message, "first at [0,7]") != NULL);
  CHECK(strstr(r.message, "Freivalds flagged 512 of 512 rows") != NULL);
  CHECK(r.compared > 600 + 4 * 8); /* the samples, plus 4 flagged blocks recomputed */
  free(c);
  free(a);
  free(b);
}

static void test_nan_inf_caught(void) {
  enum { M = 64, N = 128, K = 8 };
  float *a = rand_buf(M * K, BENCH_F32, 1), *b = rand_buf(K * N, BENCH_F32, 2);
  float *c = malloc(M * N * sizeof *c);
  gemm_f32(a, b, c, M, N, K);
  c[40 * N + 77] = NAN;
  struct bench_check chk = {.op = "gemm", .m = M, .n = N, .k = K, .in = {a, b}, .out = c};
  struct check_result r;
  for (enum verify_level l = VERIFY_FAST; l <= VERIFY_FULL; l++) {
    REQUIRE(check_output(&chk, l, SEED, &r) == 0);
    CHECK(!r.pass && r.mismatches == 1 && r.first_bad == 40 * N + 77);
    CHECK(isinf(r.max_abs_err) && isinf(r.max_rel_err));
    CHECK(strstr(r.message, "got nan") != NULL);
  }
  free(c);

  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
  softmax_f32(x, y, 2, 4, 0);
  y[6] = INFINITY;
  chk = (struct bench_check){.op = "softmax", .rows = 2, .cols = 4, .in = {x}, .out = y};
  REQUIRE(check_output(&chk, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == 6);
  free(a);
  free(b);
}

/* Plausible bugs in the other ops are far outside the tolerance. */
static void test_other_ops_bugs_caught(void) {
  enum { R = 4, C = 64 };
  float *x = rand_buf(R * C, BENCH_F32, 20), *w = rand_buf(C, BENCH_F32, 21);
  float *b = rand_buf(C, BENCH_F32, 22), y[R * C];
  struct check_result r;

  rmsnorm_f32(x, w, y, R, C, 0); /* eps forgotten */
  struct bench_check c = {.op = "rmsnorm", .rows = R, .cols = C, .eps = 1e-5, .in = {x, w},
                          .out = y};
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass);

  layernorm_f32(x, w, b, y, R, C, 1e-5f);
  for (int i = 0; i < R * C; i++) y[i] = (y[i] - b[i % C]) * sqrtf(64.0f / 63) + b[i % C];
  c = (struct bench_check){.op = "layernorm", .rows = R, .cols = C, .eps = 1e-5,
                           .in = {x, w, b}, .out = y}; /* unbiased variance */
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass);

  softmax_f32(x, y, R, C, 0);
  y[C + 3] *= 1.01f; /* 1e-4 would be under atol: y is about 1/64 */
  c = (struct bench_check){.op = "softmax", .rows = R, .cols = C, .in = {x}, .out = y};
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == C + 3 && r.mismatches == 1);
  CHECK(strstr(r.message, "softmax: 1 of 256 elements") == r.message);

  for (int row = 0; row < R; row++) /* the other layout */
    rope_row_f32(x + row * C, y + row * C, C, row, 10000.0f, 1, 0);
  c = (struct bench_check){.op = "rope", .rows = R, .cols = C, .heads = 1,
                           .flags = BENCH_ROPE_INTERLEAVED, .in = {x}, .out = y};
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass);
  c.flags = BENCH_ROPE_HALVES;
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.pass);
  free(b);
  free(w);
  free(x);
}

/* Sampled rows of attention: always the first and the last row. */
static void test_attention_fast(void) {
  enum { B = 2, H = 4, S = 64, D = 32, N = B * H * S * D };
  float *q = rand_buf(N, BENCH_F32, 1), *k = rand_buf(N, BENCH_F32, 2);
  float *v = rand_buf(N, BENCH_F32, 3), *o = malloc(N * sizeof *o);
  attention_f32(q, k, v, o, B * H, S, D, 0, 0, BENCH_F32);
  struct bench_check c = {.op = "attention", .batch = B, .heads = H, .seq = S, .head_dim = D,
                          .in = {q, k, v}, .out = o};
  struct check_result r;
  REQUIRE(check_output(&c, VERIFY_FAST, SEED, &r) == 0);
  CHECK(r.pass);
  CHECK_STR(r.method, "sampled-rows");
  CHECK(r.compared == 64 * D);
  o[N - 1] += 0.01f; /* the last row: b 1, h 3, s 63, t 31 */
  REQUIRE(check_output(&c, VERIFY_FAST, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == N - 1);
  CHECK(strstr(r.message, "first at [1,3,63,31]") != NULL);
  o[N - 1] -= 0.01f;
  o[5] = -o[5] - 1; /* the first row */
  REQUIRE(check_output(&c, VERIFY_FAST, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == 5);
  o[5] = -o[5] - 1;

  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.pass && r.compared == N);
  free(o);
  free(v);
  free(k);
  free(q);
}

/* ---- the tolerance edge --------------------------------------------------- */

/* gemm 1x1, k = 2, a = (1, 1), b = (1, -1): ref 0 but scale 2, so
 * tol = atol + rtol * 2. Just under passes, just over fails. */
static void test_tolerance_edge(void) {
  const float a[2] = {1, 1}, b[2] = {1, -1};
  float out;
  struct bench_check c = {.op = "gemm", .m = 1, .n = 1, .k = 2, .in = {a, b}, .out = &out};
  double rtol, atol;
  check_tolerance(&c, &rtol, &atol);
  CHECK(atol == 1e-5);
  CHECK_NEAR(rtol, 1.3e-6 + 2 * sqrt(2.0) * ldexp(1, -24), 1e-18);
  const double tol = atol + rtol * 2;
  struct check_result r;
  out = (float)(0.95 * tol);
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.pass);
  CHECK(r.rtol == rtol && r.atol == atol);
  CHECK_NEAR(r.max_abs_err, 0.95 * tol, 1e-12);
  CHECK_NEAR(r.max_rel_err, 0.95 * tol / atol, 1e-6); /* |ref| = 0 < atol */
  out = (float)(-1.05 * tol);
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass && r.mismatches == 1 && r.first_bad == 0);

  /* rmsnorm, f16 out: tol = 1e-5 + (1e-3 + 2 sqrt(4) eps32) |y| */
  const float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1};
  uint16_t y[4];
  struct bench_check n = {.op = "rmsnorm", .out_dtype = BENCH_F16, .rows = 1, .cols = 4,
                          .eps = 0.5, .in = {x, w}, .out = y};
  check_tolerance(&n, &rtol, &atol);
  CHECK_NEAR(rtol, 1e-3 + 4 * ldexp(1, -24), 1e-18);
  const double y3 = 4 / sqrt(8.0), t3 = atol + rtol * y3; /* about 1.43e-3 */
  for (int j = 0; j < 3; j++) y[j] = f32_to_f16((float)((j + 1) / sqrt(8.0)));
  /* f16 near 1.41 has a spacing of 2^-10 ~ 9.8e-4: pick the representable
   * values on each side of the edge */
  double under = f16_to_f32(f32_to_f16((float)(y3 + t3)));
  if (under - y3 > t3) under -= ldexp(1, -10);
  y[3] = f32_to_f16((float)under);
  REQUIRE(check_output(&n, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.pass);
  y[3] = f32_to_f16((float)(under + ldexp(1, -10)));
  REQUIRE(check_output(&n, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == 3);
}

/* ---- malformed checks, sizes, levels --------------------------------------- */

static void expect_malformed(const struct bench_check *c, const char *fragment) {
  struct check_result r;
  int rc = check_output(c, VERIFY_FULL, SEED, &r);
  CHECK(rc == -1);
  if (rc == -1 && !strstr(r.message, fragment))
    fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", r.message, fragment);
  CHECK(rc == -1 && strstr(r.message, fragment) != NULL);
  CHECK(!r.checked && !r.pass);
  rc = check_output(c, VERIFY_NONE, SEED, &r); /* malformed even unchecked */
  CHECK(rc == -1);
}

static void test_malformed(void) {
  float buf[64] = {0};
  const struct bench_check gemm = {.op = "gemm", .m = 2, .n = 2, .k = 2, .in = {buf, buf},
                                   .out = buf};
  struct bench_check c = gemm;
  struct check_result r;
  CHECK(check_output(&c, VERIFY_FULL, SEED, &r) == 0 && r.pass);

  c.op = "conv2d";
  expect_malformed(&c, "unknown operation \"conv2d\"");
  c.op = "sum"; /* names the field, the known ops and the way out */
  expect_malformed(&c, "field op: unknown operation \"sum\" (known: gemm, rmsnorm, layernorm, "
                       "softmax, rope, attention, copy, fill, add; for any other operation hand "
                       "your own reference to the bench.compare/1 extension)");
  c = gemm, c.flags = BENCH_ROPE_HALVES;
  expect_malformed(&c, "gemm: field flags has bits 0x2");
  c = (struct bench_check){.op = "copy", .n = 0, .in = {buf}, .out = buf};
  expect_malformed(&c, "copy: field n must be positive (got 0)");
  c = (struct bench_check){.op = "fill", .n = 4, .out = buf};
  expect_malformed(&c, "fill: field in[0] (input value) is NULL");
  c = (struct bench_check){.op = "add", .n = 4, .in = {buf}, .out = buf};
  expect_malformed(&c, "add: field in[1] (input y) is NULL");
  c.op = NULL;
  expect_malformed(&c, "field op is NULL (known: gemm, rmsnorm");
  c = gemm, c.in[1] = NULL;
  expect_malformed(&c, "gemm: field in[1] (input B) is NULL");
  c = gemm, c.out = NULL;
  expect_malformed(&c, "field out is NULL");
  c = gemm, c.k = 0;
  expect_malformed(&c, "gemm: field k must be positive (got 0)");
  c = gemm, c.m = -3;
  expect_malformed(&c, "m must be positive");
  c = gemm, c.n = (int64_t)1 << 40, c.m = (int64_t)1 << 40;
  expect_malformed(&c, "too large");
  c = gemm, c.dtype = (enum bench_dtype)9;
  expect_malformed(&c, "unknown input dtype");
  c = gemm, c.out_dtype = (enum bench_dtype)-1;
  expect_malformed(&c, "unknown output dtype");

  const struct bench_check rope = {.op = "rope", .rows = 4, .cols = 4, .heads = 2,
                                   .flags = BENCH_ROPE_HALVES, .in = {buf}, .out = buf};
  c = rope;
  CHECK(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  c.flags = BENCH_ROPE_HALVES | BENCH_ROPE_INTERLEAVED;
  expect_malformed(&c, "exactly one of");
  c.flags = 0;
  expect_malformed(&c, "exactly one of");
  c = rope, c.cols = 5;
  expect_malformed(&c, "must be even");
  c = rope, c.heads = 3;
  expect_malformed(&c, "seq * heads");
  c = rope, c.heads = 0;
  expect_malformed(&c, "heads must be positive");
  c = rope, c.seq = 3;
  expect_malformed(&c, "!= seq");
  c = rope, c.theta = -1;
  expect_malformed(&c, "theta");

  c = (struct bench_check){.op = "rmsnorm", .rows = 2, .cols = 4, .in = {buf, buf}, .out = buf};
  expect_malformed(&c, "eps must be > 0");
  c.eps = 1e-5, c.in[1] = NULL;
  expect_malformed(&c, "field in[1] (input w)");
  c = (struct bench_check){.op = "layernorm", .rows = 2, .cols = 4, .eps = 1e-5,
                           .in = {buf, buf}, .out = buf};
  expect_malformed(&c, "field in[2] (input b)");
  c = (struct bench_check){.op = "softmax", .rows = 0, .cols = 4, .in = {buf}, .out = buf};
  expect_malformed(&c, "rows must be positive");

  const struct bench_check attn = {.op = "attention", .batch = 1, .heads = 1, .seq = 2,
                                   .head_dim = 4, .in = {buf, buf, buf}, .out = buf};
  c = attn;
  CHECK(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  c.flags = BENCH_ATTN_ROPE;
  expect_malformed(&c, "exactly one of");
  c.flags = BENCH_ATTN_ROPE | BENCH_ROPE_INTERLEAVED, c.head_dim = 3;
  expect_malformed(&c, "even");
  c = attn, c.in[2] = NULL;
  expect_malformed(&c, "field in[2] (input v)");
  c = attn, c.seq = 0;
  expect_malformed(&c, "seq must be positive");

  CHECK(check_output(NULL, VERIFY_FULL, SEED, &r) == -1 && r.message[0]);
  CHECK(check_output(&gemm, VERIFY_FULL, SEED, NULL) == -1);
  CHECK(check_output(&gemm, (enum verify_level)7, SEED, &r) == -1);
  char msg[8];
  CHECK(check_validate(&c, msg, sizeof msg) == -1 && strlen(msg) == 7); /* truncated */
  CHECK(check_validate(&gemm, NULL, 0) == 0);
}

static void test_output_bytes(void) {
  float buf[4];
  struct bench_check c = {.op = "gemm", .m = 3, .n = 5, .k = 7, .in = {buf, buf}, .out = buf};
  CHECK(check_output_bytes(&c) == 3 * 5 * 4);
  c.out_dtype = BENCH_F16;
  CHECK(check_output_bytes(&c) == 3 * 5 * 2);
  c.out = NULL; /* only the shape matters here; check_output explains the rest */
  CHECK(check_output_bytes(&c) == 3 * 5 * 2);
  c.k = 0;
  CHECK(check_output_bytes(&c) == 0);
  c = (struct bench_check){.op = "attention", .out_dtype = BENCH_BF16, .batch = 2, .heads = 3,
                           .seq = 5, .head_dim = 8};
  CHECK(check_output_bytes(&c) == 2 * 3 * 5 * 8 * 2);
  c = (struct bench_check){.op = "rope", .rows = 6, .cols = 4, .heads = 3};
  CHECK(check_output_bytes(&c) == 6 * 4 * 4);
  c = (struct bench_check){.op = "softmax", .rows = 6, .cols = 4};
  CHECK(check_output_bytes(&c) == 96);
  c.op = "nope";
  CHECK(check_output_bytes(&c) == 0);
  CHECK(check_output_bytes(NULL) == 0);
}

/* The nominal work of each operation (operation.h's rule), from the dims
 * the check validates: one figure whatever backend hands the check. */
static void test_work(void) {
  float buf[4] = {0};
  const struct {
    struct bench_check c;
    double flops, bytes;
  } cases[] = {
      {{.op = "gemm", .m = 3, .n = 5, .k = 7}, 2 * 3 * 5 * 7, (21 + 35 + 15) * 4},
      {{.op = "gemm", .dtype = BENCH_F16, .m = 3, .n = 5, .k = 7}, 210, (21 + 35) * 2 + 15 * 4},
      {{.op = "gemm", .dtype = BENCH_I8, .out_dtype = BENCH_I32, .m = 2, .n = 2, .k = 4,
        .flags = BENCH_GEMM_TRANS_B}, 32, 8 + 8 + 16},
      {{.op = "rmsnorm", .rows = 4, .cols = 8, .eps = 1e-5}, 4 * 32, (32 + 8 + 32) * 4},
      {{.op = "layernorm", .dtype = BENCH_F16, .out_dtype = BENCH_F16, .rows = 4, .cols = 8,
        .eps = 1e-5}, 8 * 32, (32 + 8 + 8 + 32) * 2},
      {{.op = "softmax", .rows = 4, .cols = 8}, 5 * 32, 64 * 4},
      {{.op = "rope", .rows = 6, .cols = 4, .heads = 3, .flags = BENCH_ROPE_HALVES}, 3 * 24,
       48 * 4},
      {{.op = "attention", .out_dtype = BENCH_BF16, .batch = 2, .heads = 3, .seq = 5,
        .head_dim = 8}, 4.0 * 2 * 3 * 5 * 5 * 8 / 2, 3 * 240 * 4 + 240 * 2},
      {{.op = "copy", .out_dtype = BENCH_F16, .n = 10}, 0, 10 * 4 + 10 * 2},
      {{.op = "fill", .n = 10}, 0, 10 * 4},
      {{.op = "add", .n = 10}, 10, 30 * 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct bench_check c = cases[i].c;
    c.in[0] = c.in[1] = c.in[2] = buf;
    c.out = buf;
    struct check_problem p;
    char why[256] = "";
    REQUIRE(check_prepare(&c, &p, why, sizeof why) == 0);
    const struct op_work w = check_problem_work(&p);
    if (w.flops != cases[i].flops || w.bytes != cases[i].bytes)
      fprintf(stderr, "  %s: flops %g bytes %g, expected %g %g\n", c.op, w.flops, w.bytes,
              cases[i].flops, cases[i].bytes);
    CHECK(w.flops == cases[i].flops && w.bytes == cases[i].bytes);
  }
  /* check_prepare refuses what check_validate refuses, with the same line */
  struct bench_check bad = {.op = "gemm", .m = 2, .n = 2, .k = 0, .in = {buf, buf}, .out = buf};
  struct check_problem p;
  char why[256] = "";
  CHECK(check_prepare(&bad, &p, why, sizeof why) == -1 &&
        strcmp(why, "gemm: field k must be positive (got 0)") == 0);
}

static void test_verify_none(void) {
  float a[4] = {1, 2, 3, 4}, out[4] = {NAN, NAN, NAN, NAN};
  struct bench_check c = {.op = "gemm", .m = 2, .n = 2, .k = 2, .in = {a, a}, .out = out};
  struct check_result r;
  REQUIRE(check_output(&c, VERIFY_NONE, SEED, &r) == 0);
  CHECK(!r.checked && r.pass && r.compared == 0 && r.first_bad == -1);
  CHECK_STR(r.method, "none");
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.checked && !r.pass && r.mismatches == 4 && r.first_bad == 0);
}

/* ---- 1.1 ops: copy, fill, add, transposed gemm, integer types ------------ */

static void test_elementwise_ops(void) {
  enum { N = 5000 };
  float *x = rand_buf(N, BENCH_F32, 1), *y = rand_buf(N, BENCH_F32, 2);
  float *z = malloc(N * sizeof *z);
  uint16_t *h = malloc(N * sizeof *h);
  struct check_result r;
  /* copy f32 -> f16: exact after rounding; one ulp off is a mismatch */
  for (int i = 0; i < N; i++) h[i] = f32_to_f16(x[i]);
  struct bench_check c = {.op = "copy", .out_dtype = BENCH_F16, .n = N, .in = {x}, .out = h};
  REQUIRE(check_output(&c, VERIFY_FAST, SEED, &r) == 0);
  CHECK(r.pass && r.checked && r.rtol == 0 && r.atol == 0 && r.compared == N);
  h[4321] ^= 1;
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == 4321 && r.mismatches == 1 && strstr(r.message, "[4321]"));
  /* fill */
  const float v = 0.375f;
  for (int i = 0; i < N; i++) z[i] = v;
  c = (struct bench_check){.op = "fill", .n = N, .in = {&v}, .out = z};
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.pass);
  z[N - 1] = 0;
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == N - 1);
  /* add in fp32 passes; a wrong element fails */
  for (int i = 0; i < N; i++) z[i] = x[i] + y[i];
  c = (struct bench_check){.op = "add", .n = N, .in = {x, y}, .out = z};
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.pass && r.max_abs_err <= ldexp(1, -23));
  z[7] += 1e-3f;
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == 7);
  /* int32 add is exact: one off fails */
  int32_t ia[4] = {1, -5, 1 << 24, 7}, ib[4] = {2, 5, 1, -7}, ic[4] = {3, 0, (1 << 24) + 1, 0};
  c = (struct bench_check){.op = "add", .dtype = BENCH_I32, .out_dtype = BENCH_I32, .n = 4,
                           .in = {ia, ib}, .out = ic};
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.pass && r.rtol == 0 && r.atol == 0);
  ic[2]++;
  REQUIRE(check_output(&c, VERIFY_FULL, SEED, &r) == 0);
  CHECK(!r.pass && r.first_bad == 2 && r.max_abs_err == 1);
  free(x), free(y), free(z), free(h);
}

/* int8 inputs, int32 output: compared exactly (a 1.0 harness passed an
 * int8 dot with an error of 1e4 because it had no integer types). */
static void test_int8_gemm_exact(void) {
  enum { M = 70, N = 70, K = 300 };
  int8_t *a = rand_buf(M * K, BENCH_I8, 3), *b = rand_buf(K * N, BENCH_I8, 4);
  int32_t *c32 = malloc(M * N * sizeof *c32);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int32_t acc = 0;
      for (int k = 0; k < K; k++) acc += a[i * K + k] * b[k * N + j];
      c32[i * N + j] = acc;
    }
  struct bench_check c = {.op = "gemm", .dtype = BENCH_I8, .out_dtype = BENCH_I32, .m = M,
                          .n = N, .k = K, .in = {a, b}, .out = c32};
  struct check_result r;
  for (int level = VERIFY_FAST; level <= VERIFY_FULL; level++) {
    REQUIRE(check_output(&c, (enum verify_level)level, SEED, &r) == 0);
    CHECK(r.pass && r.max_abs_err == 0 && r.rtol == 0 && r.atol == 0);
  }
  c32[M * N / 2 + 3] += 1;
  for (int level = VERIFY_FAST; level <= VERIFY_FULL; level++) {
    REQUIRE(check_output(&c, (enum verify_level)level, SEED, &r) == 0);
    CHECK(!r.pass);
  }
  free(a), free(b), free(c32);
}

/* A kernel computing A^T B^T-style layouts passes with the matching flags,
 * and fails when the flags do not say what the kernel did. */
static void test_gemm_transposed_layouts(void) {
  enum { M = 80, N = 72, K = 40 };
  float *at = rand_buf(K * M, BENCH_F32, 5), *bt = rand_buf(N * K, BENCH_F32, 6);
  float *c = malloc(M * N * sizeof *c);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float acc = 0;
      for (int k = 0; k < K; k++) acc += at[k * M + i] * bt[j * K + k];
      c[i * N + j] = acc;
    }
  struct bench_check chk = {.op = "gemm", .m = M, .n = N, .k = K, .in = {at, bt}, .out = c,
                            .flags = BENCH_GEMM_TRANS_A | BENCH_GEMM_TRANS_B};
  struct check_result r;
  REQUIRE(check_output(&chk, VERIFY_FAST, SEED, &r) == 0);
  CHECK(r.pass && strcmp(r.method, "sampled+freivalds") == 0);
  REQUIRE(check_output(&chk, VERIFY_FULL, SEED, &r) == 0);
  CHECK(r.pass);
  chk.flags = BENCH_GEMM_TRANS_A; /* B read in the wrong layout */
  REQUIRE(check_output(&chk, VERIFY_FAST, SEED, &r) == 0);
  CHECK(!r.pass);
  free(at), free(bt), free(c);
}

TEST_MAIN(TEST_ENTRY(test_elementwise_ops), TEST_ENTRY(test_int8_gemm_exact),
          TEST_ENTRY(test_gemm_transposed_layouts), TEST_ENTRY(test_gemm_f32_passes), TEST_ENTRY(test_gemm_low_precision_passes),
          TEST_ENTRY(test_gemm_positive_inputs_pass), TEST_ENTRY(test_norms_softmax_pass),
          TEST_ENTRY(test_norms_softmax_large_values_pass), TEST_ENTRY(test_rope_pass),
          TEST_ENTRY(test_attention_pass), TEST_ENTRY(test_rounded_reference_passes),
          TEST_ENTRY(test_gemm_corrupt_full), TEST_ENTRY(test_gemm_corrupt_freivalds),
          TEST_ENTRY(test_nan_inf_caught), TEST_ENTRY(test_other_ops_bugs_caught),
          TEST_ENTRY(test_attention_fast), TEST_ENTRY(test_tolerance_edge),
          TEST_ENTRY(test_malformed), TEST_ENTRY(test_output_bytes), TEST_ENTRY(test_verify_none),
          TEST_ENTRY(test_work))
