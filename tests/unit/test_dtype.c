/* dtype.c: f16/bf16 conversions (exhaustive where cheap), names, and the
 * deterministic random fill. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/dtype.h"
#include "test.h"

static uint32_t bits(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return x;
}

static float from_bits(uint32_t x) {
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

static int f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

static void test_names_sizes(void) {
  CHECK(dtype_size(BENCH_F32) == 4);
  CHECK(dtype_size(BENCH_F16) == 2);
  CHECK(dtype_size(BENCH_BF16) == 2);
  CHECK(dtype_size((enum bench_dtype)7) == 0);
  CHECK_STR(dtype_name(BENCH_F32), "f32");
  CHECK_STR(dtype_name(BENCH_F16), "f16");
  CHECK_STR(dtype_name(BENCH_BF16), "bf16");
  CHECK_STR(dtype_name((enum bench_dtype)7), "?");
  CHECK(dtype_eps(BENCH_F32) == ldexp(1, -24));
  CHECK(dtype_eps(BENCH_F16) == ldexp(1, -11));
  CHECK(dtype_eps(BENCH_BF16) == ldexp(1, -8));
  CHECK(dtype_valid(BENCH_BF16) && !dtype_valid((enum bench_dtype)7));
  CHECK(dtype_size(BENCH_I8) == 1 && dtype_size(BENCH_U8) == 1);
  CHECK(dtype_size(BENCH_I32) == 4 && dtype_size(BENCH_F64) == 8);
  CHECK_STR(dtype_name(BENCH_I8), "i8");
  CHECK_STR(dtype_name(BENCH_U8), "u8");
  CHECK_STR(dtype_name(BENCH_I32), "i32");
  CHECK_STR(dtype_name(BENCH_F64), "f64");
  CHECK(dtype_is_int(BENCH_I8) && dtype_is_int(BENCH_U8) && dtype_is_int(BENCH_I32));
  CHECK(!dtype_is_int(BENCH_F32) && !dtype_is_int(BENCH_F64));
  CHECK(dtype_eps(BENCH_I32) == 0 && dtype_eps(BENCH_F64) == ldexp(1, -53));

  static const struct {
    const char *s;
    enum bench_dtype t;
  } ok[] = {{"f32", BENCH_F32},  {"fp32", BENCH_F32}, {"float", BENCH_F32},
            {"F32", BENCH_F32},  {"f16", BENCH_F16},  {"fp16", BENCH_F16},
            {"half", BENCH_F16}, {"bf16", BENCH_BF16}, {"bfloat16", BENCH_BF16},
            {"i8", BENCH_I8},    {"int8", BENCH_I8},  {"u8", BENCH_U8},
            {"uint8", BENCH_U8}, {"i32", BENCH_I32},  {"INT32", BENCH_I32},
            {"f64", BENCH_F64},  {"double", BENCH_F64}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    enum bench_dtype t = BENCH_F32;
    CHECK(dtype_parse(ok[i].s, &t) == 0 && t == ok[i].t);
  }
  enum bench_dtype t = BENCH_F16;
  CHECK(dtype_parse("i16", &t) == -1);
  CHECK(dtype_parse("", &t) == -1);
  CHECK(dtype_parse("f3", &t) == -1);
  CHECK(dtype_parse("f322", &t) == -1);
  CHECK(dtype_parse(NULL, &t) == -1);
  CHECK(t == BENCH_F16); /* untouched on failure */
}

/* Every f16 bit pattern survives f16 -> f32 -> f16 (NaNs stay NaN, quiet). */
static void test_f16_roundtrip_all(void) {
  int bad = 0;
  for (uint32_t h = 0; h < 65536; h++) {
    float f = f16_to_f32((uint16_t)h);
    uint16_t back = f32_to_f16(f);
    if (f16_is_nan((uint16_t)h)) {
      if (!isnan(f) || !f16_is_nan(back) || back != (h | 0x200)) bad++;
    } else if (back != h) {
      bad++;
    }
  }
  CHECK(bad == 0);
}

static void test_f16_known(void) {
  CHECK(f16_to_f32(0x3c00) == 1.0f);
  CHECK(f16_to_f32(0xc000) == -2.0f);
  CHECK(f16_to_f32(0x7bff) == 65504.0f);
  CHECK(f16_to_f32(0x0400) == ldexpf(1, -14)); /* smallest normal */
  CHECK(f16_to_f32(0x0001) == ldexpf(1, -24)); /* smallest subnormal */
  CHECK(f16_to_f32(0x03ff) == 1023 * ldexpf(1, -24));
  CHECK(f16_to_f32(0x3555) == 1365.0f / 4096); /* nearest to 1/3 */
  CHECK(isinf(f16_to_f32(0x7c00)) && f16_to_f32(0x7c00) > 0);
  CHECK(isinf(f16_to_f32(0xfc00)) && f16_to_f32(0xfc00) < 0);
  CHECK(bits(f16_to_f32(0x8000)) == 0x80000000u); /* -0 */
  CHECK(isnan(f16_to_f32(0x7e00)));

  CHECK(f32_to_f16(1.0f) == 0x3c00);
  CHECK(f32_to_f16(-2.0f) == 0xc000);
  CHECK(f32_to_f16(0.1f) == 0x2e66);
  CHECK(f32_to_f16(-0.0f) == 0x8000);
  CHECK(f32_to_f16(65504.0f) == 0x7bff);
  CHECK(f32_to_f16(65519.0f) == 0x7bff);  /* below the midpoint to 65536 */
  CHECK(f32_to_f16(65520.0f) == 0x7c00);  /* the midpoint: ties to even = inf */
  CHECK(f32_to_f16(1e6f) == 0x7c00);
  CHECK(f32_to_f16(-1e6f) == 0xfc00);
  CHECK(f32_to_f16(INFINITY) == 0x7c00);
  CHECK(f32_to_f16(-INFINITY) == 0xfc00);
  CHECK(f16_is_nan(f32_to_f16(NAN)));
  CHECK(f16_is_nan(f32_to_f16(from_bits(0x7f800001u)))); /* payload only in low bits */
  CHECK(f16_is_nan(f32_to_f16(from_bits(0xffc00000u))));
  /* Subnormals and underflow. */
  CHECK(f32_to_f16(ldexpf(1, -24)) == 0x0001);
  CHECK(f32_to_f16(ldexpf(1, -25)) == 0x0000);            /* tie: to even 0 */
  CHECK(f32_to_f16(ldexpf(1.0f + ldexpf(1, -20), -25)) == 0x0001);
  CHECK(f32_to_f16(3 * ldexpf(1, -25)) == 0x0002);        /* tie 1.5 -> 2 */
  CHECK(f32_to_f16(5 * ldexpf(1, -25)) == 0x0002);        /* tie 2.5 -> 2 */
  CHECK(f32_to_f16(-ldexpf(1, -26)) == 0x8000);
  CHECK(f32_to_f16(1e-8f) == 0x0000);
  CHECK(f32_to_f16(FLT_MIN) == 0x0000);
  CHECK(f32_to_f16(from_bits(0x00000001u)) == 0x0000);   /* f32 subnormal */
  CHECK(f32_to_f16(ldexpf(1023.5f, -24)) == 0x0400);     /* rounds up into the normals */
  /* Normal ties to even. */
  CHECK(f32_to_f16(1.0f + ldexpf(1, -11)) == 0x3c00);
  CHECK(f32_to_f16(1.0f + 3 * ldexpf(1, -11)) == 0x3c02);
  CHECK(f32_to_f16(1.0f + ldexpf(1, -11) + ldexpf(1, -20)) == 0x3c01);
  CHECK(f32_to_f16(2047.0f / 1024 + ldexpf(1, -11)) == 0x4000); /* carry into the exponent */
}

/* Every midpoint between neighbouring finite f16 values rounds to the even
 * one, and anything a hair off the midpoint to the nearer one. */
static void test_f16_midpoints(void) {
  int bad = 0;
  for (uint32_t h = 0; h < 0x7bff; h++) {
    for (uint32_t sign = 0; sign <= 0x8000; sign += 0x8000) {
      float lo = f16_to_f32((uint16_t)(h | sign)), hi = f16_to_f32((uint16_t)((h + 1) | sign));
      float mid = (lo + hi) / 2; /* exact: 12 significant bits */
      uint16_t even = (uint16_t)(((h & 1) ? h + 1 : h) | sign);
      if (f32_to_f16(mid) != even) bad++;
      if (f32_to_f16(nextafterf(mid, lo)) != (h | sign)) bad++;
      if (f32_to_f16(nextafterf(mid, hi)) != ((h + 1) | sign)) bad++;
    }
  }
  CHECK(bad == 0);
}

static void test_bf16(void) {
  int bad = 0;
  for (uint32_t h = 0; h < 65536; h++) {
    float f = bf16_to_f32((uint16_t)h);
    uint16_t back = f32_to_bf16(f);
    int nan = (h & 0x7f80) == 0x7f80 && (h & 0x7f);
    if (nan ? !(isnan(f) && back == (h | 0x40)) : back != h) bad++;
  }
  CHECK(bad == 0);
  bad = 0;
  for (uint32_t h = 0; h < 0x7f7f; h++) {
    float lo = bf16_to_f32((uint16_t)h), hi = bf16_to_f32((uint16_t)(h + 1));
    float mid = lo + (hi - lo) / 2; /* exact, and no overflow near FLT_MAX */
    if (f32_to_bf16(mid) != ((h & 1) ? h + 1 : h)) bad++;
    if (f32_to_bf16(nextafterf(mid, lo)) != h) bad++;
    if (f32_to_bf16(nextafterf(mid, hi)) != h + 1) bad++;
  }
  CHECK(bad == 0);

  CHECK(f32_to_bf16(1.0f) == 0x3f80);
  CHECK(bf16_to_f32(0x3f80) == 1.0f);
  CHECK(bf16_to_f32(0xc0a0) == -5.0f);
  CHECK(f32_to_bf16(1.0f + ldexpf(1, -8)) == 0x3f80);     /* tie to even */
  CHECK(f32_to_bf16(1.0f + 3 * ldexpf(1, -8)) == 0x3f82); /* tie to even */
  CHECK(f32_to_bf16(FLT_MAX) == 0x7f80);                  /* rounds to inf */
  CHECK(f32_to_bf16(-INFINITY) == 0xff80);
  uint16_t n = f32_to_bf16(from_bits(0x7f800001u));       /* truncation would be inf */
  CHECK((n & 0x7f80) == 0x7f80 && (n & 0x7f));
  CHECK(isnan(bf16_to_f32(f32_to_bf16(NAN))));
  CHECK(isnan(bf16_to_f32(f32_to_bf16(-NAN))));
}

static void test_load_store(void) {
  float f[3] = {1.5f, -2.25f, 0.1f};
  uint16_t h[3] = {0x3c00, 0xc000, 0x0001};
  uint16_t b[3] = {0x3f80, 0xc0a0, 0x0000};
  CHECK(dtype_load(f, 2, BENCH_F32) == (double)0.1f);
  CHECK(dtype_load(h, 1, BENCH_F16) == -2.0);
  CHECK(dtype_load(h, 2, BENCH_F16) == ldexp(1, -24));
  CHECK(dtype_load(b, 1, BENCH_BF16) == -5.0);
  double d[3];
  dtype_load_n(h, 0, 3, BENCH_F16, d);
  CHECK(d[0] == 1.0 && d[1] == -2.0 && d[2] == ldexp(1, -24));
  dtype_load_n(f, 1, 2, BENCH_F32, d);
  CHECK(d[0] == -2.25 && d[1] == (double)0.1f);
  dtype_store(h, 0, BENCH_F16, 0.1);
  CHECK(h[0] == 0x2e66);
  dtype_store(b, 2, BENCH_BF16, -1.0);
  CHECK(b[2] == 0xbf80);
  dtype_store(f, 0, BENCH_F32, 0.1);
  CHECK(f[0] == 0.1f);
}

/* The generator is SplitMix64: known outputs for seed 0 pin it down for
 * every backend that reimplements it. */
static void test_random_u64(void) {
  CHECK(random_u64(0, 0) == 0xe220a8397b1dcdafull);
  CHECK(random_u64(0, 1) == 0x6e789e6aa1b965f4ull);
  CHECK(random_u64(0, 2) == 0x06c45d188009454full);
  CHECK(random_u64(1, 0) != random_u64(0, 0));
  CHECK(random_uniform(0, 0) == (double)(0xe220a8397b1dcdafull >> 40) * ldexp(1, -23) - 1);
}

static void test_fill_random(void) {
  enum { N = 100000 };
  float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  uint16_t *h = malloc(N * sizeof *h), *bf = malloc(N * sizeof *bf);
  REQUIRE(a && b && h && bf);
  fill_random(a, N, BENCH_F32, 42);
  fill_random(b, N, BENCH_F32, 42);
  CHECK(memcmp(a, b, N * sizeof *a) == 0);
  fill_random(b, 10, BENCH_F32, 42); /* element i does not depend on count */
  CHECK(memcmp(a, b, 10 * sizeof *a) == 0);
  fill_random(b, N, BENCH_F32, 43);
  int same = 0;
  for (int i = 0; i < N; i++) same += a[i] == b[i];
  CHECK(same < N / 1000);

  double sum = 0, sq = 0, lo = 1, hi = -1;
  int off_grid = 0;
  for (int i = 0; i < N; i++) {
    double v = a[i];
    sum += v;
    sq += v * v;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    if (ldexp(v, 23) != floor(ldexp(v, 23))) off_grid++;
  }
  CHECK(lo >= -1 && hi < 1);
  CHECK(lo < -0.999 && hi > 0.999);
  CHECK(off_grid == 0);
  CHECK_NEAR(sum / N, 0.0, 0.01);
  CHECK_NEAR(sq / N, 1.0 / 3, 0.01);

  /* f16 / bf16: the same values, rounded; within [-1, 1]. */
  fill_random(h, N, BENCH_F16, 42);
  fill_random(bf, N, BENCH_BF16, 42);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    if (h[i] != f32_to_f16(a[i]) || bf[i] != f32_to_bf16(a[i])) bad++;
    double v = f16_to_f32(h[i]), w = bf16_to_f32(bf[i]);
    if (v < -1 || v > 1 || w < -1 || w > 1) bad++;
  }
  CHECK(bad == 0);
  free(a);
  free(b);
  free(h);
  free(bf);
}

/* Integer types and f64: loads, rounding and saturating stores, random ranges. */
static void test_int_types(void) {
  int8_t i8[2] = {-128, 127};
  uint8_t u8[2] = {0, 255};
  int32_t i32[2] = {-2000000000, 7};
  double f64[1] = {0.1};
  CHECK(dtype_load(i8, 0, BENCH_I8) == -128 && dtype_load(i8, 1, BENCH_I8) == 127);
  CHECK(dtype_load(u8, 1, BENCH_U8) == 255);
  CHECK(dtype_load(i32, 0, BENCH_I32) == -2e9);
  CHECK(dtype_load(f64, 0, BENCH_F64) == 0.1);
  double d[2];
  dtype_load_n(i32, 0, 2, BENCH_I32, d);
  CHECK(d[0] == -2e9 && d[1] == 7);
  dtype_store(i8, 0, BENCH_I8, 300.0); /* saturates */
  dtype_store(i8, 1, BENCH_I8, -2.5);  /* ties to even */
  CHECK(i8[0] == 127 && i8[1] == -2);
  dtype_store(u8, 0, BENCH_U8, -4.0);
  dtype_store(u8, 1, BENCH_U8, NAN);
  CHECK(u8[0] == 0 && u8[1] == 0);
  dtype_store(i32, 0, BENCH_I32, 1e12);
  CHECK(i32[0] == INT32_MAX);
  CHECK(dtype_round(BENCH_I32, 3.5) == 4 && dtype_round(BENCH_F16, 0.1) == f16_to_f32(0x2e66));
  CHECK(dtype_round(BENCH_F64, 0.1) == 0.1 && dtype_round(BENCH_F32, 0.1) == (double)0.1f);

  enum { N = 4096 };
  int8_t a8[N];
  uint8_t b8[N];
  int32_t c32[N];
  fill_random(a8, N, BENCH_I8, 7);
  fill_random(b8, N, BENCH_U8, 7);
  fill_random(c32, N, BENCH_I32, 7);
  int lo8 = 0, hi8 = 0, hiu = 0, bad = 0;
  int64_t lo32 = 0, hi32 = 0;
  for (int i = 0; i < N; i++) {
    if (a8[i] < lo8) lo8 = a8[i];
    if (a8[i] > hi8) hi8 = a8[i];
    if (b8[i] > hiu) hiu = b8[i];
    if (c32[i] < lo32) lo32 = c32[i];
    if (c32[i] > hi32) hi32 = c32[i];
    if ((uint8_t)a8[i] != b8[i]) bad++; /* the same top byte */
    if (a8[i] != (int8_t)(random_u64(7, (uint64_t)i) >> 56)) bad++;
  }
  CHECK(bad == 0);
  CHECK(lo8 < -120 && hi8 > 120 && hiu > 250);
  CHECK(lo32 >= -(1 << 24) && hi32 < (1 << 24) && lo32 < -(1 << 23) && hi32 > (1 << 23));
}

TEST_MAIN(TEST_ENTRY(test_names_sizes), TEST_ENTRY(test_int_types), TEST_ENTRY(test_f16_roundtrip_all),
          TEST_ENTRY(test_f16_known), TEST_ENTRY(test_f16_midpoints), TEST_ENTRY(test_bf16),
          TEST_ENTRY(test_load_store), TEST_ENTRY(test_random_u64),
          TEST_ENTRY(test_fill_random))
