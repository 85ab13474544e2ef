/* reference.c: hand-computed answers for every operation, and the row-range
 * and per-element entry points agreeing with the full reference. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/dtype.h"
#include "check/operation.h"
#include "check/reference.h"
#include "test.h"

#define TOL 1e-12
#define LN2 0.69314718055994530942

static void test_op_names(void) {
  CHECK(operation_find("gemm") && strcmp(operation_find("gemm")->name, "gemm") == 0);
  CHECK(operation_find("attention") && operation_find("rope"));
  CHECK(operation_find("GEMM") == NULL);
  CHECK(operation_find("") == NULL);
  CHECK(operation_find(NULL) == NULL);
  CHECK(operation_find("copy") && operation_find("fill") && operation_find("add"));
  CHECK(strcmp(operation_names(), "gemm, rmsnorm, layernorm, softmax, rope, attention, copy, "
                                  "fill, add") == 0);
  /* every entry is complete and found by its name */
  size_t n = 0;
  for (const struct operation *op; (op = operation_at(n)) != NULL; n++) {
    CHECK(operation_find(op->name) == op);
    CHECK(op->dims[0].name && op->inputs[0] && op->shape && op->reference && op->flops);
  }
  CHECK(n == 9);
  struct bench_check c = {.op = "conv"};
  CHECK(ref_rows(&c) == 0 && ref_cols(&c) == 0);
}

/* copy rounds to out_dtype, fill repeats one value, add sums; n x 1. */
static void test_elementwise(void) {
  const float x[3] = {1.0f, 0.1f, -3.5f}, y[3] = {2.0f, 0.2f, 0.5f};
  const uint16_t v16 = f32_to_f16(0.1f);
  struct bench_check c = {.op = "copy", .out_dtype = BENCH_F16, .n = 3, .in = {x}};
  double ref[3], scale[3];
  CHECK(ref_rows(&c) == 3 && ref_cols(&c) == 1);
  ref_compute(&c, ref, scale);
  CHECK(ref[0] == 1.0 && ref[1] == f16_to_f32(v16) && ref[2] == -3.5 && scale[1] == 0);
  c = (struct bench_check){.op = "fill", .dtype = BENCH_F16, .out_dtype = BENCH_F32, .n = 3,
                           .in = {&v16}};
  ref_compute(&c, ref, NULL);
  CHECK(ref[0] == f16_to_f32(v16) && ref[2] == ref[0]);
  c = (struct bench_check){.op = "add", .n = 3, .in = {x, y}};
  ref_compute_rows(&c, 1, 2, ref, scale);
  CHECK(ref[0] == (double)0.1f + (double)0.2f && ref[1] == -3.0);
  CHECK(scale[0] == (double)0.1f + (double)0.2f && scale[1] == 4.0);
  const int8_t a8[2] = {100, -128}, b8[2] = {100, -1};
  c = (struct bench_check){.op = "add", .dtype = BENCH_I8, .out_dtype = BENCH_I32, .n = 2,
                           .in = {a8, b8}};
  ref_compute(&c, ref, NULL);
  CHECK(ref[0] == 200 && ref[1] == -129);
}

/* Transposed layouts give the same product as the plain one. */
static void test_gemm_transposed(void) {
  enum { M = 3, N = 4, K = 5 };
  float a[M * K], b[K * N], at[K * M], bt[N * K];
  fill_random(a, M * K, BENCH_F32, 11);
  fill_random(b, K * N, BENCH_F32, 12);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) at[k * M + i] = a[i * K + k];
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) bt[j * K + k] = b[k * N + j];
  struct bench_check c = {.op = "gemm", .m = M, .n = N, .k = K, .in = {a, b}};
  double want[M * N], got[M * N], ws[M * N], gs[M * N];
  ref_compute(&c, want, ws);
  const void *as[2] = {a, at}, *bs[2] = {b, bt};
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++) {
      c.in[0] = as[ta], c.in[1] = bs[tb];
      c.flags = (ta ? BENCH_GEMM_TRANS_A : 0) | (tb ? BENCH_GEMM_TRANS_B : 0);
      ref_compute(&c, got, gs);
      CHECK(memcmp(got, want, sizeof got) == 0 && memcmp(gs, ws, sizeof gs) == 0);
      const int64_t idx[2] = {0, M * N - 1};
      double e[2];
      ref_gemm_elements(&c, idx, 2, e, NULL);
      CHECK(e[0] == want[0] && e[1] == want[M * N - 1]);
    }
}

static void test_gemm_2x2(void) {
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  struct bench_check c = {.op = "gemm", .m = 2, .n = 2, .k = 2, .in = {a, b}};
  double ref[4], scale[4];
  ref_compute(&c, ref, scale);
  CHECK(ref[0] == 19 && ref[1] == 22 && ref[2] == 43 && ref[3] == 50);
  CHECK(scale[0] == 19 && scale[3] == 50);
  CHECK(ref_rows(&c) == 2 && ref_cols(&c) == 2);

  /* Signs: the scale is sum |a||b|, not |sum a b|. */
  const float an[4] = {1, -2, 3, 4};
  c.in[0] = an;
  ref_compute(&c, ref, scale);
  CHECK(ref[0] == 5 - 14 && scale[0] == 5 + 14);
  CHECK(ref[1] == 6 - 16 && scale[1] == 6 + 16);
}

/* Non-square: [2x3] * [3x1], f16 inputs read as given. */
static void test_gemm_rect_f16(void) {
  uint16_t a[6], b[3];
  const double av[6] = {1, 0.5, -2, 0.25, 3, 1}, bv[3] = {2, -4, 0.5};
  for (int i = 0; i < 6; i++) dtype_store(a, (size_t)i, BENCH_F16, av[i]);
  for (int i = 0; i < 3; i++) dtype_store(b, (size_t)i, BENCH_F16, bv[i]);
  struct bench_check c = {.op = "gemm", .dtype = BENCH_F16, .m = 2, .n = 1, .k = 3,
                          .in = {a, b}};
  double ref[2];
  ref_compute(&c, ref, NULL);
  CHECK(ref[0] == 2 - 2 - 1);
  CHECK(ref[1] == 0.5 - 12 + 0.5);
  const int64_t idx[2] = {1, 0};
  double e[2], s[2];
  ref_gemm_elements(&c, idx, 2, e, s);
  CHECK(e[0] == ref[1] && e[1] == ref[0]);
  CHECK(s[0] == 0.5 + 12 + 0.5);
}

static void test_rmsnorm(void) {
  /* mean(x^2) = 7.5, + eps 0.5 = 8: y = x * w / sqrt(8). */
  const float x[4] = {1, 2, 3, 4}, w[4] = {1, 2, 1, 0.5f};
  struct bench_check c = {.op = "rmsnorm", .rows = 1, .cols = 4, .eps = 0.5, .in = {x, w}};
  double y[4], s[4];
  ref_compute(&c, y, s);
  const double r = 1 / sqrt(8.0);
  CHECK_NEAR(y[0], 1 * r, TOL);
  CHECK_NEAR(y[1], 4 * r, TOL);
  CHECK_NEAR(y[2], 3 * r, TOL);
  CHECK_NEAR(y[3], 2 * r, TOL);
  for (int j = 0; j < 4; j++) CHECK(s[j] == fabs(y[j]));
}

static void test_layernorm(void) {
  /* mean 2.5, biased var 1.25, + eps 0.75 = 2. */
  const float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 2, 1}, b[4] = {0, 1, 0, -1};
  struct bench_check c = {.op = "layernorm", .rows = 1, .cols = 4, .eps = 0.75,
                          .in = {x, w, b}};
  double y[4], s[4];
  ref_compute(&c, y, s);
  const double r = 1 / sqrt(2.0);
  CHECK_NEAR(y[0], -1.5 * r, TOL);
  CHECK_NEAR(y[1], -0.5 * r + 1, TOL);
  CHECK_NEAR(y[2], 0.5 * r * 2, TOL);
  CHECK_NEAR(y[3], 1.5 * r - 1, TOL);
  /* (|x_j| + mean|x|) * rstd * |w_j| + |b_j| */
  CHECK_NEAR(s[0], (1 + 2.5) * r, TOL);
  CHECK_NEAR(s[1], (2 + 2.5) * r + 1, TOL);
  CHECK_NEAR(s[2], (3 + 2.5) * r * 2, TOL);
  for (int j = 0; j < 4; j++) CHECK(s[j] >= fabs(y[j]));
}

static void test_softmax(void) {
  /* [0, ln 2] -> [1/3, 2/3]; shifted by 1000 it must not overflow. */
  const float x[4] = {0, (float)LN2, 1000, 1000 + (float)LN2};
  struct bench_check c = {.op = "softmax", .rows = 2, .cols = 2, .in = {x}};
  double y[4], s[4];
  ref_compute(&c, y, s);
  const double e = (double)(float)LN2; /* the input as given */
  CHECK_NEAR(y[0], 1 / (1 + exp(e)), TOL);
  CHECK_NEAR(y[1], exp(e) / (1 + exp(e)), TOL);
  CHECK_NEAR(y[0], 1.0 / 3, 1e-7);
  CHECK_NEAR(y[1], 2.0 / 3, 1e-7);
  double x3 = (double)(1000 + (float)LN2) - 1000;
  CHECK_NEAR(y[2], 1 / (1 + exp(x3)), TOL);
  CHECK_NEAR(y[3], exp(x3) / (1 + exp(x3)), TOL);
  CHECK_NEAR(s[0], y[0] * (1 + 0 + e), TOL);
  CHECK_NEAR(s[3], y[3] * (1 + 2 * (1000 + x3)), 1e-9);
}

static void test_rope_identity_and_rotation(void) {
  /* seq 2, heads 3, d 2: the rows of position 0 are unchanged; at position
   * 1 with d = 2 (inv_freq 1) each pair turns by 1 radian. */
  float x[12];
  for (int i = 0; i < 12; i++) x[i] = (float)(i + 1) / 4;
  for (uint32_t layout = BENCH_ROPE_INTERLEAVED; layout <= BENCH_ROPE_HALVES; layout <<= 1) {
    struct bench_check c = {.op = "rope", .rows = 6, .cols = 2, .heads = 3, .flags = layout,
                            .in = {x}};
    double y[12], s[12];
    ref_compute(&c, y, s);
    for (int i = 0; i < 6; i++) CHECK(y[i] == x[i]);
    for (int r = 3; r < 6; r++) {
      double a = x[2 * r], b = x[2 * r + 1];
      CHECK_NEAR(y[2 * r], a * cos(1.0) - b * sin(1.0), TOL);
      CHECK_NEAR(y[2 * r + 1], a * sin(1.0) + b * cos(1.0), TOL);
      CHECK_NEAR(s[2 * r], (fabs(a) + fabs(b)) * 2, TOL);
    }
    CHECK_NEAR(s[0], (fabs(x[0]) + fabs(x[1])) * 1, TOL);
  }
}

/* d = 4 at position 1: inv_freq = (1, 10000^-0.5 = 0.01); the layouts pair
 * (0,1),(2,3) or (0,2),(1,3). theta 0 means 10000. */
static void test_rope_layouts(void) {
  const float x[8] = {0, 0, 0, 0, 1, 2, 3, 4};
  double y[8];
  const double c1 = cos(1.0), s1 = sin(1.0), c2 = cos(0.01), s2 = sin(0.01);
  struct bench_check c = {.op = "rope", .rows = 2, .cols = 4, .heads = 1,
                          .flags = BENCH_ROPE_INTERLEAVED, .in = {x}};
  ref_compute(&c, y, NULL);
  CHECK_NEAR(y[4], 1 * c1 - 2 * s1, TOL);
  CHECK_NEAR(y[5], 1 * s1 + 2 * c1, TOL);
  CHECK_NEAR(y[6], 3 * c2 - 4 * s2, TOL);
  CHECK_NEAR(y[7], 3 * s2 + 4 * c2, TOL);
  c.flags = BENCH_ROPE_HALVES;
  c.theta = 10000;
  ref_compute(&c, y, NULL);
  CHECK_NEAR(y[4], 1 * c1 - 3 * s1, TOL);
  CHECK_NEAR(y[6], 1 * s1 + 3 * c1, TOL);
  CHECK_NEAR(y[5], 2 * c2 - 4 * s2, TOL);
  CHECK_NEAR(y[7], 2 * s2 + 4 * c2, TOL);
  /* theta 100: inv_freq_1 = 0.1 */
  c.theta = 100;
  ref_compute(&c, y, NULL);
  CHECK_NEAR(y[5], 2 * cos(0.1) - 4 * sin(0.1), TOL);
}

/* seq = 1: each query sees only its own key, so o = v (with or without RoPE). */
static void test_attention_seq1(void) {
  enum { B = 2, H = 3, D = 4, N = B * H * D };
  float q[N], k[N], v[N];
  fill_random(q, N, BENCH_F32, 1);
  fill_random(k, N, BENCH_F32, 2);
  fill_random(v, N, BENCH_F32, 3);
  struct bench_check c = {.op = "attention", .batch = B, .heads = H, .seq = 1, .head_dim = D,
                          .in = {q, k, v}};
  double o[N], s[N];
  ref_compute(&c, o, s);
  for (int i = 0; i < N; i++) CHECK_NEAR(o[i], v[i], TOL);
  for (int i = 0; i < N; i++) CHECK(s[i] >= fabs(o[i]));
  c.flags = BENCH_ATTN_ROPE | BENCH_ROPE_HALVES;
  ref_compute(&c, o, NULL);
  for (int i = 0; i < N; i++) CHECK_NEAR(o[i], v[i], TOL);
}

/* seq = 2, d = 1: row 1 scores q1*k0 = 0 and q1*k1 = ln 2, weights 1/3 and
 * 2/3; row 0 is causal and sees only key 0. */
static void test_attention_seq2(void) {
  const float q[2] = {5, 1}, k[2] = {0, (float)LN2}, v[2] = {3, 6};
  struct bench_check c = {.op = "attention", .batch = 1, .heads = 1, .seq = 2, .head_dim = 1,
                          .in = {q, k, v}};
  double o[2];
  ref_compute(&c, o, NULL);
  CHECK_NEAR(o[0], 3, TOL);
  CHECK_NEAR(o[1], 3.0 / 3 + 6 * 2.0 / 3, 1e-6);
  /* head_dim 4: scores divide by sqrt(4) = 2 */
  const float q4[8] = {0, 0, 0, 0, 2 * (float)LN2, 0, 0, 0};
  const float k4[8] = {0, 0, 0, 0, 1, 0, 0, 0}, v4[8] = {1, 2, 3, 4, 4, 5, 6, 7};
  c.head_dim = 4;
  c.in[0] = q4;
  c.in[1] = k4;
  c.in[2] = v4;
  double o4[8];
  ref_compute(&c, o4, NULL);
  for (int t = 0; t < 4; t++) CHECK_NEAR(o4[4 + t], v4[t] / 3 + v4[4 + t] * 2 / 3, 1e-6);
}

/* No mask (BENCH_ATTN_FULL), seq = 2, d = 1: row 0 now sees key 1 too.
 * k = (0, 1): row 0's scores are 0 and ln 2 (weights 1/3, 2/3), row 1's 0
 * and 2 ln 2 (1/5, 4/5). Its work counts the whole square. */
static void test_attention_full(void) {
  const float q[2] = {(float)LN2, 2 * (float)LN2}, k[2] = {0, 1}, v[2] = {3, 6};
  struct bench_check c = {.op = "attention", .batch = 1, .heads = 1, .seq = 2, .head_dim = 1,
                          .flags = BENCH_ATTN_FULL, .in = {q, k, v}};
  double o[2];
  ref_compute(&c, o, NULL);
  CHECK_NEAR(o[0], 3.0 / 3 + 6 * 2.0 / 3, 1e-6);
  CHECK_NEAR(o[1], (3.0 + 6 * 4.0) / 5, 1e-6);
  c.flags = 0; /* causal: row 0 is v0 */
  ref_compute(&c, o, NULL);
  CHECK_NEAR(o[0], 3, TOL);
  const struct operation *op = operation_find("attention");
  REQUIRE(op);
  struct op_shape sh;
  op->shape(&c, &sh);
  const double causal = op->flops(&c, &sh);
  c.flags = BENCH_ATTN_FULL;
  CHECK_NEAR(op->flops(&c, &sh), 2 * causal, 0);
  CHECK_NEAR(causal, 4.0 * 2 * 2 * 1 / 2, 0);
}

/* Attention with RoPE equals attention without it on q and k rotated by the
 * rope reference: one formula, used in both places. */
static void test_attention_rope_consistent(void) {
  enum { S = 5, H = 2, D = 8, N = S * H * D };
  float q[N], k[N], v[N], qr[N], kr[N];
  fill_random(q, N, BENCH_F32, 4);
  fill_random(k, N, BENCH_F32, 5);
  fill_random(v, N, BENCH_F32, 6);
  /* attention layout [h][s][d]; rope wants [s][h][d]: rotate head by head */
  for (int h = 0; h < H; h++) {
    float xs[S * D];
    double ys[S * D];
    struct bench_check rc = {.op = "rope", .rows = S, .cols = D, .heads = 1, .theta = 500,
                             .flags = BENCH_ROPE_INTERLEAVED, .in = {xs}};
    memcpy(xs, q + h * S * D, sizeof xs);
    ref_compute(&rc, ys, NULL);
    for (int i = 0; i < S * D; i++) qr[h * S * D + i] = (float)ys[i];
    memcpy(xs, k + h * S * D, sizeof xs);
    ref_compute(&rc, ys, NULL);
    for (int i = 0; i < S * D; i++) kr[h * S * D + i] = (float)ys[i];
  }
  struct bench_check c = {.op = "attention", .batch = 1, .heads = H, .seq = S, .head_dim = D,
                          .theta = 500, .flags = BENCH_ATTN_ROPE | BENCH_ROPE_INTERLEAVED,
                          .in = {q, k, v}};
  double o1[N], o2[N];
  ref_compute(&c, o1, NULL);
  c.flags = 0;
  c.in[0] = qr;
  c.in[1] = kr;
  ref_compute(&c, o2, NULL);
  for (int i = 0; i < N; i++) CHECK_NEAR(o1[i], o2[i], 1e-6); /* qr, kr rounded to float */
}

/* ref_compute_rows of any range is the same slice of ref_compute. */
static void check_rows_match(const struct bench_check *c) {
  const int64_t rows = ref_rows(c), cols = ref_cols(c), n = rows * cols;
  double *full = malloc(2 * (size_t)n * sizeof *full), *part = malloc(2 * (size_t)n * sizeof *part);
  REQUIRE(full && part);
  ref_compute(c, full, full + n);
  const int64_t ranges[][2] = {{0, 1}, {rows - 1, 1}, {1, rows - 2}, {rows / 3, rows / 2}};
  for (size_t t = 0; t < sizeof ranges / sizeof ranges[0]; t++) {
    int64_t r0 = ranges[t][0], nr = ranges[t][1];
    ref_compute_rows(c, r0, nr, part, part + nr * cols);
    int diff = 0;
    for (int64_t e = 0; e < nr * cols; e++) {
      diff += part[e] != full[r0 * cols + e];
      diff += part[nr * cols + e] != full[n + r0 * cols + e];
    }
    CHECK(diff == 0);
  }
  int below = 0; /* scale >= |ref| everywhere */
  for (int64_t e = 0; e < n; e++) below += full[n + e] < fabs(full[e]);
  CHECK(below == 0);
  free(full);
  free(part);
}

static void test_rows_match_full(void) {
  enum { N = 4096 };
  float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *d = malloc(N * sizeof *d);
  REQUIRE(a && b && d);
  fill_random(a, N, BENCH_F32, 7);
  fill_random(b, N, BENCH_F32, 8);
  fill_random(d, N, BENCH_F32, 9);
  struct bench_check g = {.op = "gemm", .m = 7, .n = 9, .k = 5, .in = {a, b}};
  check_rows_match(&g);
  struct bench_check rn = {.op = "rmsnorm", .rows = 6, .cols = 10, .eps = 1e-5, .in = {a, b}};
  check_rows_match(&rn);
  struct bench_check ln = {.op = "layernorm", .rows = 6, .cols = 10, .eps = 1e-5,
                           .in = {a, b, d}};
  check_rows_match(&ln);
  struct bench_check sm = {.op = "softmax", .rows = 6, .cols = 10, .in = {a}};
  check_rows_match(&sm);
  struct bench_check rp = {.op = "rope", .rows = 12, .cols = 8, .heads = 3,
                           .flags = BENCH_ROPE_HALVES, .in = {a}};
  check_rows_match(&rp);
  struct bench_check at = {.op = "attention", .batch = 2, .heads = 2, .seq = 7, .head_dim = 6,
                           .flags = BENCH_ATTN_ROPE | BENCH_ROPE_INTERLEAVED, .in = {a, b, d}};
  check_rows_match(&at);

  /* gemm elements agree with the full reference */
  double full[63], sc[63], e[63], es[63];
  int64_t idx[63];
  ref_compute(&g, full, sc);
  for (int i = 0; i < 63; i++) idx[i] = (i * 17) % 63;
  ref_gemm_elements(&g, idx, 63, e, es);
  int diff = 0;
  for (int i = 0; i < 63; i++) diff += e[i] != full[idx[i]] || es[i] != sc[idx[i]];
  CHECK(diff == 0);
  free(a);
  free(b);
  free(d);
}

TEST_MAIN(TEST_ENTRY(test_op_names), TEST_ENTRY(test_elementwise), TEST_ENTRY(test_gemm_transposed), TEST_ENTRY(test_gemm_2x2), TEST_ENTRY(test_gemm_rect_f16),
          TEST_ENTRY(test_rmsnorm), TEST_ENTRY(test_layernorm), TEST_ENTRY(test_softmax),
          TEST_ENTRY(test_rope_identity_and_rotation), TEST_ENTRY(test_rope_layouts),
          TEST_ENTRY(test_attention_seq1), TEST_ENTRY(test_attention_seq2), TEST_ENTRY(test_attention_full),
          TEST_ENTRY(test_attention_rope_consistent), TEST_ENTRY(test_rows_match_full))
