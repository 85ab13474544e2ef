/*
 * bench element types for plugins: f16 and bf16 <-> f32 conversions (round
 * to nearest even; inf, NaN and subnormals handled), element sizes, names
 * and the one parser of dtype names every backend and the harness use.
 * Header only (static inline), C11 and C++; the harness uses the same
 * functions, so a plugin's host-side conversions match the reference's.
 *
 *   #include <bench/dtype.h>
 *   uint16_t h = bench_f32_to_f16(1.5f);  float f = bench_f16_to_f32(h);
 */
#ifndef BENCH_DTYPE_PUBLIC_H
#define BENCH_DTYPE_PUBLIC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes per element of t; 0 for an unknown type. */
static inline size_t bench_dtype_size(enum bench_dtype t) {
  switch (t) {
  case BENCH_F32: return 4;
  case BENCH_F16: return 2;
  case BENCH_BF16: return 2;
  case BENCH_I8: return 1;
  case BENCH_U8: return 1;
  case BENCH_I32: return 4;
  case BENCH_F64: return 8;
  }
  return 0;
}

/* The name of t ("f32", "f16", "bf16", "i8", "u8", "i32", "f64"); "?" for
 * an unknown type. */
static inline const char *bench_dtype_name(enum bench_dtype t) {
  switch (t) {
  case BENCH_F32: return "f32";
  case BENCH_F16: return "f16";
  case BENCH_BF16: return "bf16";
  case BENCH_I8: return "i8";
  case BENCH_U8: return "u8";
  case BENCH_I32: return "i32";
  case BENCH_F64: return "f64";
  }
  return "?";
}

/* name -> *out: the names above and their aliases (fp32, float, fp16, half,
 * bfloat16, int8, uint8, int32, fp64, double), case-insensitive. 0, or -1
 * for NULL or an unknown name (*out untouched). out may be NULL. */
static inline int bench_dtype_parse(const char *name, enum bench_dtype *out) {
  static const struct {
    const char *name;
    enum bench_dtype t;
  } names[] = {
      {"f32", BENCH_F32},   {"fp32", BENCH_F32},      {"float", BENCH_F32}, {"f16", BENCH_F16},
      {"fp16", BENCH_F16},  {"half", BENCH_F16},      {"bf16", BENCH_BF16}, {"bfloat16", BENCH_BF16},
      {"i8", BENCH_I8},     {"int8", BENCH_I8},       {"u8", BENCH_U8},     {"uint8", BENCH_U8},
      {"i32", BENCH_I32},   {"int32", BENCH_I32},     {"f64", BENCH_F64},   {"fp64", BENCH_F64},
      {"double", BENCH_F64},
  };
  if (!name) return -1;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *a = name, *b = names[i].name;
    while (*a && (*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) == *b) a++, b++;
    if (*a || *b) continue;
    if (out) *out = names[i].t;
    return 0;
  }
  return -1;
}

static inline uint32_t bench_float_bits_(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return x;
}

static inline float bench_bits_float_(uint32_t x) {
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

/* v >> shift (1..31), rounded to nearest, ties to even. */
static inline uint32_t bench_shift_round_even_(uint32_t v, unsigned shift) {
  uint32_t q = v >> shift;
  uint32_t rem = v & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) q++;
  return q;
}

/* IEEE binary16 -> float: exact. */
static inline float bench_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f) /* inf, nan (payload kept) */
    return bench_bits_float_(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) { /* zero or subnormal: mant * 2^-24, exact in float */
    float v = (float)mant * 5.9604644775390625e-8f; /* 2^-24 */
    return sign ? -v : v;
  }
  return bench_bits_float_(sign | ((exp + 112) << 23) | (mant << 13));
}

/* float -> IEEE binary16, round to nearest even; overflow gives inf, NaN
 * stays a quiet NaN. */
static inline uint16_t bench_f32_to_f16(float f) {
  uint32_t x = bench_float_bits_(f);
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
     * (mant | 1 << 23) >> (14 - e); a carry into bit 10 gives the smallest
     * normal, which is the right encoding. */
    unsigned shift = (unsigned)(14 - e);
    if (exp == 0 || shift > 24) return sign; /* below half of 2^-24 */
    return (uint16_t)(sign | bench_shift_round_even_(mant | 0x800000u, shift));
  }
  /* Normal: a carry out of the mantissa bumps the exponent, up to inf. */
  uint32_t v = ((uint32_t)e << 23) | mant;
  return (uint16_t)(sign | bench_shift_round_even_(v, 13));
}

/* bfloat16 -> float: exact. */
static inline float bench_bf16_to_f32(uint16_t h) { return bench_bits_float_((uint32_t)h << 16); }

/* float -> bfloat16, round to nearest even; NaN stays a quiet NaN. */
static inline uint16_t bench_f32_to_bf16(float f) {
  uint32_t x = bench_float_bits_(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) /* nan: keep it a (quiet) nan */
    return (uint16_t)((x >> 16) | 0x0040);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

#ifdef __cplusplus
}
#endif

#endif /* BENCH_DTYPE_PUBLIC_H */
