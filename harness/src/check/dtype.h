/* Element types: conversions and deterministic random inputs. */
#ifndef BENCH_DTYPE_H
#define BENCH_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "bench/dtype.h"
#include "bench/plugin.h"

size_t dtype_size(enum bench_dtype t);      /* 0 for an unknown type */
/* "f32", "f16", "bf16", "i8", "u8", "i32", "f64"; "?" if unknown */
const char *dtype_name(enum bench_dtype t);
/* Also accepts "fp32", "float", "fp16", "half", "bfloat16", "int8", "uint8",
 * "int32", "fp64", "double"; any case. */
int dtype_parse(const char *s, enum bench_dtype *out); /* 0 ok, -1 unknown */
/* unit roundoff: 2^-24, 2^-11, 2^-8, 2^-53; 0 for the integer types */
double dtype_eps(enum bench_dtype t);
int dtype_valid(enum bench_dtype t);  /* 1 for every type of enum bench_dtype */
int dtype_is_int(enum bench_dtype t); /* 1 for I8, U8, I32 */

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);   /* round to nearest even, handles inf/nan/subnormals */
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);  /* round to nearest even */

/* Element i of a buffer of type t, as double. */
double dtype_load(const void *p, size_t i, enum bench_dtype t);
/* Elements [start, start + count) of a buffer of type t, as doubles. */
void dtype_load_n(const void *p, size_t start, size_t count, enum bench_dtype t,
                  double *dst);
/* Store v as element i of a buffer of type t: rounded to float, then to t
 * (both round to nearest even; for f16/bf16 this double rounding can differ
 * from a direct rounding of v in rare ties). Integer types round to nearest
 * even and saturate (NaN stores 0); f64 stores v. */
void dtype_store(void *p, size_t i, enum bench_dtype t, double v);
/* v as it reads back after dtype_store to type t. */
double dtype_round(enum bench_dtype t, double v);

/* The counter-based generator behind fill_random: output i of SplitMix64
 * started at seed, i.e. mix64(seed + (i + 1) * 0x9e3779b97f4a7c15), where
 * mix64 is SplitMix64's finalizer. Depends only on (seed, i). */
uint64_t random_u64(uint64_t seed, uint64_t i);
/* (random_u64(seed, i) >> 40) * 2^-23 - 1: uniform in [-1, 1), a multiple of
 * 2^-23, exact in float. */
double random_uniform(uint64_t seed, uint64_t i);

/* Element i = random_uniform(seed, i) rounded (to nearest even) to t;
 * identical everywhere. f32 keeps the value exactly; f16 and bf16 can round
 * values just below 1 up to 1, so theirs lie in [-1, 1]. Integer types take
 * the top bits of random_u64(seed, i): i8 uniform in [-128, 127] (the top
 * byte as signed), u8 in [0, 255], i32 in [-2^24, 2^24) ((u >> 39) - 2^24). */
void fill_random(void *dst, size_t count, enum bench_dtype t, uint64_t seed);

#endif
