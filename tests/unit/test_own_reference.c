/* check/own_reference.c (bench.compare/1): a plugin's output against its own reference
 * in each tolerance class, the reference callback, and malformed
 * comparisons named by field. Also abi.c's growth rule. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/abi.h"
#include "check/own_reference.h"
#include "check/dtype.h"
#include "test.h"

static void test_exact_ints(void) {
  int32_t out[5] = {1, -2, 3, 40000, 5};
  const double ref[5] = {1, -2, 3, 40000, 5};
  struct bench_compare c = {.name = "dot", .dtype = BENCH_I32, .ref_dtype = BENCH_F64,
                            .count = 5, .out = out, .ref = ref, .tol = BENCH_TOL_EXACT};
  struct check_result r;
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(r.checked && r.pass && r.compared == 5 && r.max_abs_err == 0);
  CHECK(strcmp(r.method, "plugin-exact") == 0);
  out[3]++;
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.mismatches == 1 && r.first_bad == 3 && r.max_abs_err == 1);
  CHECK(strstr(r.message, "dot: 1 of 5 elements out of tolerance; first at [3]: got 40001, "
                          "expected 40000 (exact)") != NULL);
  /* the default class is exact for an integer dtype too */
  c.tol = BENCH_TOL_DEFAULT;
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.rtol == 0 && r.atol == 0);
  /* int8 out against an int8 reference; [row,col] with cols */
  int8_t o8[6] = {1, 2, 3, 4, 5, 6}, r8[6] = {1, 2, 3, 4, -5, 6};
  c = (struct bench_compare){.dtype = BENCH_I8, .ref_dtype = BENCH_I8, .count = 6, .cols = 3,
                             .out = o8, .ref = r8};
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.first_bad == 4 && strstr(r.message, "compare: ") == r.message &&
        strstr(r.message, "first at [1,1]"));
}

static void test_tolerances(void) {
  float out[3] = {1.0f, 100.0f, -3.0f};
  double ref[3] = {1.0, 100.0, -3.0};
  struct bench_compare c = {.dtype = BENCH_F32, .ref_dtype = BENCH_F64, .count = 3, .out = out,
                            .ref = ref, .reduction = 100};
  double rtol, atol;
  compare_tolerance(&c, &rtol, &atol);
  CHECK_NEAR(rtol, 1.3e-6 + 2 * 10 * ldexp(1, -24), 1e-18);
  CHECK(atol == 1e-5);
  struct check_result r;
  ref[1] = 100.0 * (1 + 0.9 * rtol); /* inside */
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(r.pass && strcmp(r.method, "plugin-tolerance") == 0);
  ref[1] = 100.0 * (1 + 1.5 * rtol) + 1e-5; /* outside */
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.first_bad == 1);
  /* explicit: loose enough */
  c.tol = BENCH_TOL_EXPLICIT, c.rtol = 1e-3, c.atol = 0;
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(r.pass && r.rtol == 1e-3 && r.atol == 0);
  /* f16 default base */
  uint16_t h[1] = {f32_to_f16(1.0f)};
  double one[1] = {1.0005};
  c = (struct bench_compare){.dtype = BENCH_F16, .ref_dtype = BENCH_F64, .count = 1, .out = h,
                             .ref = one};
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(r.pass); /* 5e-4 < 1e-3 */
  /* NaN matches NaN, not a number */
  float nf[2] = {NAN, 1.0f};
  double nr[2] = {NAN, NAN};
  c = (struct bench_compare){.dtype = BENCH_F32, .ref_dtype = BENCH_F64, .count = 2, .out = nf,
                             .ref = nr};
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.first_bad == 1 && isinf(r.max_abs_err));
  /* VERIFY_NONE: validated, not compared */
  REQUIRE(compare_output(&c, NULL, VERIFY_NONE, &r) == 0);
  CHECK(!r.checked && r.pass);
}

struct fn_state {
  int calls;
  int fail_at;
};

static int ref_fn(const struct bench_host *host, void *user, int64_t start, int64_t n,
                  double *dst) {
  (void)host;
  struct fn_state *s = user;
  s->calls++;
  if (s->fail_at >= 0 && start >= s->fail_at) return BENCH_ERROR;
  for (int64_t i = 0; i < n; i++) dst[i] = (double)(start + i);
  return BENCH_OK;
}

/* The callback is asked in chunks of at most 2^20 elements. */
static void test_ref_fn(void) {
  const int64_t n = ((int64_t)1 << 20) + 5;
  float *out = malloc((size_t)n * sizeof *out);
  REQUIRE(out);
  for (int64_t i = 0; i < n; i++) out[i] = (float)i;
  struct fn_state s = {0, -1};
  struct bench_compare c = {.dtype = BENCH_F32, .count = n, .out = out, .ref_fn = ref_fn,
                            .user = &s, .tol = BENCH_TOL_EXPLICIT, .rtol = 1e-7};
  struct check_result r;
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(r.pass && s.calls == 2 && r.compared == (uint64_t)n);
  s.calls = 0, s.fail_at = 1 << 20;
  CHECK(compare_output(&c, NULL, VERIFY_FULL, &r) == -2);
  free(out);
}

/* A serial fp32 inclusive prefix sum of 100000 uniform [-1, 1) values: the
 * running sum cancels, so its error follows the sum of |x| seen so far, not
 * |ref|. DEFAULT (relative to |ref|) rejects the correct kernel; SCALED with
 * the running sum of |x| accepts it and still catches one element planted
 * 20x its scaled tolerance off. */
#define PREFIX_N 100000
static double prefix_scale[PREFIX_N];
static int scale_fn(const struct bench_host *host, void *user, int64_t start, int64_t n,
                    double *dst) {
  (void)host, (void)user;
  memcpy(dst, prefix_scale + start, (size_t)n * sizeof *dst);
  return BENCH_OK;
}

static void test_scaled_prefix_sum(void) {
  const int64_t n = PREFIX_N;
  float *out = malloc((size_t)n * sizeof *out);
  double *ref = malloc((size_t)n * sizeof *ref);
  REQUIRE(out && ref);
  uint64_t st = 0x9E3779B97F4A7C15u;
  float run = 0;
  double exact = 0, mag = 0;
  for (int64_t i = 0; i < n; i++) {
    st ^= st << 13, st ^= st >> 7, st ^= st << 17;
    const float x = (float)((double)(st >> 11) * 0x1p-53 * 2 - 1); /* uniform [-1, 1) */
    run += x;
    out[i] = run;
    exact += x;
    ref[i] = exact;
    mag += fabs(x);
    prefix_scale[i] = mag;
  }
  struct bench_compare c = {.name = "scan", .dtype = BENCH_F32, .ref_dtype = BENCH_F64,
                            .count = n, .out = out, .ref = ref, .reduction = n};
  struct check_result r;
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.mismatches > 0); /* DEFAULT: the correct kernel is WRONG_ANSWER */
  fprintf(stderr, "  DEFAULT: %s\n", r.message);
  c.tol = BENCH_TOL_SCALED, c.reduction = 0, c.scale = prefix_scale;
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(r.pass && r.compared == (uint64_t)n && strcmp(r.method, "plugin-scaled") == 0);
  double rtol, atol;
  compare_tolerance(&c, &rtol, &atol);
  CHECK_NEAR(rtol, 1.3e-6 + 2 * ldexp(1, -24), 1e-18);
  CHECK(atol == 1e-5 && r.rtol == rtol && r.atol == atol);
  c.scale = NULL, c.scale_fn = scale_fn; /* the same through the callback */
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(r.pass);
  /* one element 20x its scaled tolerance off: caught, and named */
  const int64_t j = 81896;
  const double tol_j = atol + rtol * fmax(prefix_scale[j], fabs(ref[j]));
  out[j] = (float)(ref[j] + 20 * tol_j);
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.mismatches == 1 && r.first_bad == j);
  CHECK(strstr(r.message, "scan: 1 of 100000 elements out of tolerance; first at [81896]") != NULL);
  fprintf(stderr, "  SCALED, planted 20x: %s\n", r.message);
  /* 2x off is caught too; 0.5x passes */
  out[j] = (float)(ref[j] + 2 * tol_j);
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.first_bad == j);
  out[j] = (float)(ref[j] + 0.5 * tol_j);
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(r.pass);
  /* explicit rtol/atol under SCALED replace DEFAULT's */
  c.rtol = 1e-9, c.atol = 0;
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.rtol == 1e-9);
  /* a bad magnitude is a malformed compare */
  c.rtol = 0, c.scale_fn = NULL, c.scale = prefix_scale;
  prefix_scale[7] = -1;
  CHECK(compare_output(&c, NULL, VERIFY_FULL, &r) == -1);
  CHECK(strstr(r.message, "scan: BENCH_TOL_SCALED: scale[7] must be finite and >= 0") != NULL);
  free(out);
  free(ref);
}

/* An integer output stays exact under SCALED; integer kernels compared with
 * a tolerance get a note. */
static void test_int_notes(void) {
  int32_t out[3] = {1, 2, 3};
  const double ref[3] = {1, 2, 4}, sc[3] = {10, 10, 10};
  struct bench_compare c = {.name = "dot", .dtype = BENCH_I32, .ref_dtype = BENCH_F64, .count = 3,
                            .out = out, .ref = ref, .tol = BENCH_TOL_SCALED, .scale = sc};
  struct check_result r;
  char note[256] = "";
  REQUIRE(compare_output(&c, NULL, VERIFY_FULL, &r) == 0);
  CHECK(!r.pass && r.rtol == 0 && r.atol == 0 && strstr(r.message, "(exact)"));
  CHECK(compare_note(&c, note, sizeof note) == 0);
  c.tol = BENCH_TOL_DEFAULT;
  CHECK(compare_note(&c, note, sizeof note) == 0);
  c.tol = BENCH_TOL_EXPLICIT, c.rtol = 0.5; /* int out with a tolerance */
  CHECK(compare_note(&c, note, sizeof note) == 1);
  CHECK(strstr(note, "dot: an integer output compared with a tolerance (rtol 0.5, atol 0)") != NULL);
  /* an int32 reference against an f32 output under a tolerance */
  const float fo[3] = {1, 2, 3};
  const int32_t ir[3] = {1, 2, 3};
  c = (struct bench_compare){.name = "dot", .dtype = BENCH_F32, .ref_dtype = BENCH_I32,
                             .count = 3, .out = fo, .ref = ir};
  CHECK(compare_note(&c, note, sizeof note) == 1);
  CHECK(strstr(note, "dot: an integer reference compared with a f32 output under a tolerance") !=
        NULL);
  c.tol = BENCH_TOL_EXACT;
  CHECK(compare_note(&c, note, sizeof note) == 0);
  c.tol = BENCH_TOL_DEFAULT, c.ref_dtype = BENCH_F64, c.ref = ref; /* a float kernel */
  CHECK(compare_note(&c, note, sizeof note) == 0);
}

static void expect_bad(const struct bench_compare *c, const char *fragment) {
  char msg[256];
  CHECK(compare_validate(c, msg, sizeof msg) == -1);
  if (!strstr(msg, fragment)) fprintf(stderr, "  \"%s\" lacks \"%s\"\n", msg, fragment);
  CHECK(strstr(msg, fragment) != NULL);
}

static void test_malformed(void) {
  float buf[4] = {0};
  const struct bench_compare good = {.name = "sum", .count = 4, .out = buf, .ref = buf};
  struct bench_compare c = good;
  CHECK(compare_validate(&c, NULL, 0) == 0);
  expect_bad(NULL, "no struct bench_compare");
  c = good, c.out = NULL;
  expect_bad(&c, "sum: field out is NULL");
  c = good, c.ref = NULL;
  expect_bad(&c, "sum: give the reference in field ref or field ref_fn");
  c = good, c.ref_fn = ref_fn;
  expect_bad(&c, "fields ref and ref_fn are both set");
  c = good, c.count = 0;
  expect_bad(&c, "sum: field count must be in 1..2^46 (got 0)");
  c = good, c.dtype = (enum bench_dtype)42;
  expect_bad(&c, "field dtype: unknown element type 42");
  c = good, c.ref_dtype = (enum bench_dtype)-1;
  expect_bad(&c, "field ref_dtype");
  c = good, c.tol = (enum bench_tolerance)7;
  expect_bad(&c, "field tol: unknown tolerance class 7");
  c = good, c.tol = BENCH_TOL_EXPLICIT, c.rtol = NAN;
  expect_bad(&c, "field rtol must be finite");
  c = good, c.tol = BENCH_TOL_EXPLICIT, c.atol = -1;
  expect_bad(&c, "field atol must be finite");
  c = good, c.cols = -2;
  expect_bad(&c, "field cols must be >= 0");
  c = good, c.reduction = -2;
  expect_bad(&c, "field reduction must be >= 0");
  c = good, c.tol = BENCH_TOL_SCALED;
  expect_bad(&c, "sum: BENCH_TOL_SCALED: give the magnitudes in field scale or field scale_fn");
  c.scale = (const double *)buf, c.scale_fn = scale_fn;
  expect_bad(&c, "sum: fields scale and scale_fn are both set");
  c.scale_fn = NULL, c.rtol = -1;
  expect_bad(&c, "field rtol must be finite");
  c.rtol = 0, c.reduction = -1;
  expect_bad(&c, "field reduction must be >= 0");
  c.reduction = 0;
  CHECK(compare_validate(&c, NULL, 0) == 0);
}

/* The growth rule: same major, a needed minor we have; new fields read only
 * when the built version has them. */
static void test_abi_rule(void) {
  struct bench_plugin p = {.abi_version = BENCH_ABI_1_0, .abi_needed = BENCH_ABI(1, 9)};
  char msg[256];
  CHECK(abi_needed(&p) == BENCH_ABI_1_0); /* a 1.0 plugin has no abi_needed */
  CHECK(abi_accept(&p, msg, sizeof msg) == 0);
  p.run_batch = (int (*)(const struct bench_host *, void *, int64_t))1;
  CHECK(abi_run_batch(&p) == NULL);
  p.abi_version = BENCH_ABI(1, 7), p.abi_needed = 0;
  CHECK(abi_needed(&p) == BENCH_ABI_1_0 && abi_accept(&p, msg, sizeof msg) == 0);
  CHECK(abi_run_batch(&p) != NULL);
  p.abi_needed = BENCH_ABI(1, 5);
  CHECK(abi_accept(&p, msg, sizeof msg) == -1);
  CHECK_STR(msg, "needs plugin ABI 1.5, this bench speaks 1.4 (use a newer bench)");
  p.abi_needed = BENCH_ABI_1_1;
  CHECK(abi_accept(&p, msg, sizeof msg) == 0);
  p.abi_version = BENCH_ABI_1_1, p.abi_needed = BENCH_ABI(1, 4);
  CHECK(abi_accept(&p, msg, sizeof msg) == -1 && strstr(msg, "does not fit its abi_version 1.1"));
  p.abi_needed = BENCH_ABI(2, 0);
  CHECK(abi_accept(&p, msg, sizeof msg) == -1);
  p.abi_version = BENCH_ABI(2, 0), p.abi_needed = 0;
  CHECK(abi_accept(&p, msg, sizeof msg) == -1 && strstr(msg, "built for plugin ABI 2.0"));
  p.abi_version = BENCH_ABI(0, 9);
  CHECK(abi_accept(&p, msg, sizeof msg) == -1);

  /* bench_host_extension on a 1.0 host: NULL without reading get_extension */
  struct bench_host h;
  memset(&h, 0, sizeof h);
  h.abi_version = BENCH_ABI_1_0;
  h.get_extension = (const void *(*)(const struct bench_host *, const char *))1;
  CHECK(bench_host_extension(&h, BENCH_EXT_ITEMS) == NULL);
  CHECK(bench_host_extension(NULL, BENCH_EXT_ITEMS) == NULL);
}

TEST_MAIN(TEST_ENTRY(test_exact_ints), TEST_ENTRY(test_tolerances), TEST_ENTRY(test_ref_fn),
          TEST_ENTRY(test_scaled_prefix_sum), TEST_ENTRY(test_int_notes),
          TEST_ENTRY(test_malformed), TEST_ENTRY(test_abi_rule))
