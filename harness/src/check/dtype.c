/* Element types: sizes and names, f16/bf16 <-> f32 conversions (round to
 * nearest even; the code is in the installed <bench/dtype.h>), loads as double, and the counter-based random fill that
 * gives every backend the same inputs for the same seed. */
#include "check/dtype.h"

#include <math.h>
#include <string.h>

size_t dtype_size(enum bench_dtype t) { return bench_dtype_size(t); }

const char *dtype_name(enum bench_dtype t) { return bench_dtype_name(t); }

int dtype_valid(enum bench_dtype t) { return bench_dtype_size(t) != 0; }

int dtype_is_int(enum bench_dtype t) { return t == BENCH_I8 || t == BENCH_U8 || t == BENCH_I32; }

int dtype_parse(const char *s, enum bench_dtype *out) { return bench_dtype_parse(s, out); }

double dtype_eps(enum bench_dtype t) {
  switch (t) {
  case BENCH_F32: return 0x1p-24;
  case BENCH_F16: return 0x1p-11;
  case BENCH_BF16: return 0x1p-8;
  case BENCH_F64: return 0x1p-53;
  case BENCH_I8:
  case BENCH_U8:
  case BENCH_I32: return 0;
  }
  return 0;
}

float f16_to_f32(uint16_t h) { return bench_f16_to_f32(h); }
uint16_t f32_to_f16(float f) { return bench_f32_to_f16(f); }
float bf16_to_f32(uint16_t h) { return bench_bf16_to_f32(h); }
uint16_t f32_to_bf16(float f) { return bench_f32_to_bf16(f); }

double dtype_load(const void *p, size_t i, enum bench_dtype t) {
  switch (t) {
  case BENCH_F32: return ((const float *)p)[i];
  case BENCH_F16: return f16_to_f32(((const uint16_t *)p)[i]);
  case BENCH_BF16: return bf16_to_f32(((const uint16_t *)p)[i]);
  case BENCH_I8: return ((const int8_t *)p)[i];
  case BENCH_U8: return ((const uint8_t *)p)[i];
  case BENCH_I32: return ((const int32_t *)p)[i];
  case BENCH_F64: return ((const double *)p)[i];
  }
  return 0;
}

void dtype_load_n(const void *p, size_t start, size_t count, enum bench_dtype t,
                  double *dst) {
  switch (t) {
  case BENCH_F32: {
    const float *s = (const float *)p + start;
    for (size_t i = 0; i < count; i++) dst[i] = s[i];
    return;
  }
  case BENCH_F16: {
    const uint16_t *s = (const uint16_t *)p + start;
    for (size_t i = 0; i < count; i++) dst[i] = f16_to_f32(s[i]);
    return;
  }
  case BENCH_BF16: {
    const uint16_t *s = (const uint16_t *)p + start;
    for (size_t i = 0; i < count; i++) dst[i] = bf16_to_f32(s[i]);
    return;
  }
  case BENCH_I8:
  case BENCH_U8:
  case BENCH_I32:
  case BENCH_F64:
    for (size_t i = 0; i < count; i++) dst[i] = dtype_load(p, start + i, t);
    return;
  }
  for (size_t i = 0; i < count; i++) dst[i] = 0;
}

/* v rounded to nearest (ties to even) and saturated to [lo, hi]; NaN -> 0. */
static double round_int(double v, double lo, double hi) {
  if (v != v) return 0;
  v = nearbyint(v);
  return v < lo ? lo : v > hi ? hi : v;
}

void dtype_store(void *p, size_t i, enum bench_dtype t, double v) {
  float f = (float)v;
  switch (t) {
  case BENCH_F32: ((float *)p)[i] = f; return;
  case BENCH_F16: ((uint16_t *)p)[i] = f32_to_f16(f); return;
  case BENCH_BF16: ((uint16_t *)p)[i] = f32_to_bf16(f); return;
  case BENCH_I8: ((int8_t *)p)[i] = (int8_t)round_int(v, INT8_MIN, INT8_MAX); return;
  case BENCH_U8: ((uint8_t *)p)[i] = (uint8_t)round_int(v, 0, UINT8_MAX); return;
  case BENCH_I32: ((int32_t *)p)[i] = (int32_t)round_int(v, INT32_MIN, INT32_MAX); return;
  case BENCH_F64: ((double *)p)[i] = v; return;
  }
}

double dtype_round(enum bench_dtype t, double v) {
  union {
    double d;
    float f;
    uint16_t h;
    int32_t i32;
    int8_t i8;
    uint8_t u8;
  } u;
  dtype_store(&u, 0, t, v);
  return dtype_load(&u, 0, t);
}

uint64_t random_u64(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double random_uniform(uint64_t seed, uint64_t i) {
  return (double)(random_u64(seed, i) >> 40) * 0x1p-23 - 1.0;
}

void fill_random(void *dst, size_t count, enum bench_dtype t, uint64_t seed) {
  switch (t) {
  case BENCH_I8: /* the top byte of the word: uniform in [-128, 127] */
    for (size_t i = 0; i < count; i++) ((int8_t *)dst)[i] = (int8_t)(random_u64(seed, i) >> 56);
    return;
  case BENCH_U8:
    for (size_t i = 0; i < count; i++) ((uint8_t *)dst)[i] = (uint8_t)(random_u64(seed, i) >> 56);
    return;
  case BENCH_I32: /* uniform in [-2^24, 2^24): exact in float, sums fit */
    for (size_t i = 0; i < count; i++)
      ((int32_t *)dst)[i] = (int32_t)(random_u64(seed, i) >> 39) - (1 << 24);
    return;
  case BENCH_F32:
  case BENCH_F16:
  case BENCH_BF16:
  case BENCH_F64: break;
  }
  for (size_t i = 0; i < count; i++) dtype_store(dst, i, t, random_uniform(seed, i));
}
