/* Element types: conversions and deterministic random inputs. */
#ifndef BENCH_DTYPE_H
#define BENCH_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "bench/plugin.h"

size_t dtype_size(enum bench_dtype t);
const char *dtype_name(enum bench_dtype t); /* "f32", "f16", "bf16" */
int dtype_parse(const char *s, enum bench_dtype *out); /* 0 ok, -1 unknown */
double dtype_eps(enum bench_dtype t); /* unit roundoff: 2^-24, 2^-11, 2^-8 */

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);   /* round to nearest even, handles inf/nan/subnormals */
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);  /* round to nearest even */

/* Element i of a buffer of type t, as double. */
double dtype_load(const void *p, size_t i, enum bench_dtype t);

/* Uniform in [-1, 1) from (seed, index), rounded to t; identical everywhere. */
void fill_random(void *dst, size_t count, enum bench_dtype t, uint64_t seed);

#endif
