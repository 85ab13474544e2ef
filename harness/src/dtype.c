/* Element types: sizes and names, f16/bf16 <-> f32 conversions (round to
 * nearest even), loads as double, and the counter-based random fill that
 * gives every backend the same inputs for the same seed. */
#include "dtype.h"

#include <string.h>

size_t dtype_size(enum bench_dtype t) {
  switch (t) {
  case BENCH_F32: return 4;
  case BENCH_F16: return 2;
  case BENCH_BF16: return 2;
  }
  return 0;
}

const char *dtype_name(enum bench_dtype t) {
  switch (t) {
  case BENCH_F32: return "f32";
  case BENCH_F16: return "f16";
  case BENCH_BF16: return "bf16";
  }
  return "?";
}

int dtype_valid(enum bench_dtype t) {
  return t == BENCH_F32 || t == BENCH_F16 || t == BENCH_BF16;
}

static int same_lower(const char *s, const char *lower) {
  for (; *s && *lower; s++, lower++) {
    char ch = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
    if (ch != *lower) return 0;
  }
  return *s == '\0' && *lower == '\0';
}

int dtype_parse(const char *s, enum bench_dtype *out) {
  static const struct {
    const char *name;
    enum bench_dtype t;
  } names[] = {
      {"f32", BENCH_F32},  {"fp32", BENCH_F32}, {"float", BENCH_F32},
      {"f16", BENCH_F16},  {"fp16", BENCH_F16}, {"half", BENCH_F16},
      {"bf16", BENCH_BF16}, {"bfloat16", BENCH_BF16},
  };
  if (!s) return -1;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (same_lower(s, names[i].name)) {
      if (out) *out = names[i].t;
      return 0;
    }
  }
  return -1;
}

double dtype_eps(enum bench_dtype t) {
  switch (t) {
  case BENCH_F32: return 0x1p-24;
  case BENCH_F16: return 0x1p-11;
  case BENCH_BF16: return 0x1p-8;
  }
  return 0;
}

static uint32_t float_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return x;
}

static float bits_float(uint32_t x) {
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

/* Shift v right by `shift` bits (1..31), rounding to nearest, ties to even. */
static uint32_t shift_round_even(uint32_t v, unsigned shift) {
  uint32_t q = v >> shift;
  uint32_t rem = v & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) q++;
  return q;
}

float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f) /* inf, nan (payload kept) */
    return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) { /* zero or subnormal: mant * 2^-24, exact in float */
    float v = (float)mant * 0x1p-24f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t f32_to_f16(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t mant = x & 0x7fffff;
  if (exp == 0xff) { /* inf, or nan kept quiet with the top of its payload */
    if (!mant) return (uint16_t)(sign | 0x7c00);
    return (uint16_t)(sign | 0x7e00 | (mant >> 13));
  }
  int e = (int)exp - 127 + 15; /* the f16 biased exponent */
  if (e >= 0x1f) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) {
    /* f16 subnormal (or zero): the value in units of 2^-24 is
     * (mant | 1 << 23) >> (14 - e); a carry into bit 10 gives the
     * smallest normal, which is the right encoding. */
    unsigned shift = (unsigned)(14 - e);
    if (exp == 0 || shift > 24) return sign; /* below half of 2^-24 */
    return (uint16_t)(sign | shift_round_even(mant | 0x800000u, shift));
  }
  /* Normal: a carry out of the mantissa bumps the exponent, up to inf. */
  uint32_t v = ((uint32_t)e << 23) | mant;
  return (uint16_t)(sign | shift_round_even(v, 13));
}

float bf16_to_f32(uint16_t h) { return bits_float((uint32_t)h << 16); }

uint16_t f32_to_bf16(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) /* nan: keep it a (quiet) nan */
    return (uint16_t)((x >> 16) | 0x0040);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

double dtype_load(const void *p, size_t i, enum bench_dtype t) {
  switch (t) {
  case BENCH_F32: return ((const float *)p)[i];
  case BENCH_F16: return f16_to_f32(((const uint16_t *)p)[i]);
  case BENCH_BF16: return bf16_to_f32(((const uint16_t *)p)[i]);
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
  }
  for (size_t i = 0; i < count; i++) dst[i] = 0;
}

void dtype_store(void *p, size_t i, enum bench_dtype t, double v) {
  float f = (float)v;
  switch (t) {
  case BENCH_F32: ((float *)p)[i] = f; return;
  case BENCH_F16: ((uint16_t *)p)[i] = f32_to_f16(f); return;
  case BENCH_BF16: ((uint16_t *)p)[i] = f32_to_bf16(f); return;
  }
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
  for (size_t i = 0; i < count; i++) dtype_store(dst, i, t, random_uniform(seed, i));
}
