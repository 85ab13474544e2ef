/*
 * bench parameters shared by every backend: one size grammar, and the
 * parameter declarations of each operation, so that cpu_*, vk_* and hip_*
 * plugins of one operation accept the same names, ranges and text. Header
 * only (static inline), C11 and C++. Element type names and sizes are in
 * <bench/dtype.h>.
 *
 * Sizes (bench_size_parse), in bytes:
 *   4096, 4096B       bytes
 *   64K, 64KiB        binary: K = KiB = 2^10, M = MiB = 2^20, G = GiB = 2^30,
 *                     T = TiB = 2^40
 *   64KB, 1GB         decimal: KB = 10^3, MB = 10^6, GB = 10^9, TB = 10^12
 *   1.5MiB, .5G       a decimal fraction (no exponent, no sign, no spaces);
 *                     the bytes are rounded down
 *   L1, L2/2, 4*LLC,  this machine's data caches, through a resolver the
 *   0.5*L3/4          caller supplies (the CPU plugins): L1 (L1d) .. L9, and
 *                     LLC (the last level), case-insensitive, with an
 *                     optional factor before ('*') and divisor after ('/')
 * A size is at least 1 byte and at most BENCH_SIZE_MAX (2^60); anything
 * else is refused with a status and one line of message.
 *
 *   int64_t bytes;
 *   if (bench_param_size(host, "size", NULL, &bytes)) return BENCH_ERROR;
 */
#ifndef BENCH_PARAMS_PUBLIC_H
#define BENCH_PARAMS_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sizes ---------------------------------------------------------------- */

#define BENCH_SIZE_MAX ((int64_t)1 << 60)
/* Examples for a size parameter's description. */
#define BENCH_SIZE_EXAMPLES "4096, 64KiB (= 64K), 1.5MiB, 2GB (decimal)"
#define BENCH_SIZE_CACHE_EXAMPLES "L1, L2/2, 4*LLC"

enum bench_size_status {
  BENCH_SIZE_OK = 0,
  BENCH_SIZE_MALFORMED = 1,   /* not a size */
  BENCH_SIZE_RANGE = 2,       /* below 1 byte or above BENCH_SIZE_MAX */
  BENCH_SIZE_NO_RESOLVER = 3, /* names a cache, and the caller has no caches */
  BENCH_SIZE_NO_CACHE = 4     /* names a cache level this machine does not have */
};

/* The level bench_caches.bytes gets for "LLC". */
#define BENCH_CACHE_LLC 0

/* A machine's data caches, for cache-relative sizes. */
struct bench_caches {
  /* Bytes of one instance of data cache `level` (1..9, or BENCH_CACHE_LLC
   * for the last level); 0 when the machine has no such level. */
  int64_t (*bytes)(void *user, int level);
  /* Optional: the levels it has, one line ("L1d 48 KiB, L2 1 MiB, ..."),
   * for the message about a level it has not. */
  void (*describe)(void *user, char *buf, size_t size);
  void *user;
};

/* A decimal number "12", "1.5", ".5" at *s: its value, and *s moved past
 * it; -1 when there is none. The integer part stops growing once past 2^60
 * (every such size is out of range; it never wraps). */
static inline double bench_size_number_(const char **s) {
  const char *p = *s;
  double frac = 0, scale = 1;
  uint64_t whole = 0;
  int digits = 0;
  for (; *p >= '0' && *p <= '9'; p++, digits++)
    if (whole <= ((uint64_t)1 << 60)) whole = whole * 10 + (uint64_t)(*p - '0');
  if (*p == '.') {
    for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
      if (scale < 1e18) {
        scale *= 10;
        frac += (double)(*p - '0') / scale;
      }
    }
  }
  if (!digits) return -1;
  *s = p;
  return (double)whole + frac;
}

static inline int bench_size_lower_(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

/* The cache level named at s (L1..L9 or LLC), *len its length; -1 none. */
static inline int bench_size_cache_name_(const char *s, size_t *len) {
  if (bench_size_lower_(s[0]) != 'l') return -1;
  if (bench_size_lower_(s[1]) == 'l' && bench_size_lower_(s[2]) == 'c') {
    *len = 3;
    return BENCH_CACHE_LLC;
  }
  if (s[1] >= '1' && s[1] <= '9') {
    *len = 2;
    return s[1] - '0';
  }
  return -1;
}

/* text -> *bytes (see the grammar above). caches may be NULL: then a
 * cache-relative size is BENCH_SIZE_NO_RESOLVER. *bytes is written only
 * on BENCH_SIZE_OK. */
static inline enum bench_size_status bench_size_parse(const char *text,
                                                      const struct bench_caches *caches,
                                                      int64_t *bytes) {
  static const struct {
    const char *suffix;
    double unit;
  } units[] = {{"", 1},
               {"B", 1},
               {"K", 1024.0},
               {"KiB", 1024.0},
               {"KB", 1e3},
               {"M", 1048576.0},
               {"MiB", 1048576.0},
               {"MB", 1e6},
               {"G", 1073741824.0},
               {"GiB", 1073741824.0},
               {"GB", 1e9},
               {"T", 1099511627776.0},
               {"TiB", 1099511627776.0},
               {"TB", 1e12}};
  if (!text) return BENCH_SIZE_MALFORMED;
  const char *s = text;
  double v = 1;
  size_t len = 0;
  int level = bench_size_cache_name_(s, &len);
  if (level < 0) { /* a number first: bytes with a unit, or a factor */
    v = bench_size_number_(&s);
    if (v < 0) return BENCH_SIZE_MALFORMED;
    if (*s != '*') {
      for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        const char *a = s, *b = units[i].suffix;
        while (*a && *a == *b) a++, b++;
        if (*a || *b) continue;
        const double r = v * units[i].unit;
        if (!(r >= 1) || r > (double)BENCH_SIZE_MAX) return BENCH_SIZE_RANGE;
        *bytes = (int64_t)r;
        return BENCH_SIZE_OK;
      }
      return BENCH_SIZE_MALFORMED;
    }
    s++;
    if ((level = bench_size_cache_name_(s, &len)) < 0) return BENCH_SIZE_MALFORMED;
  }
  s += len;
  double div = 1;
  if (*s == '/') {
    s++;
    if ((div = bench_size_number_(&s)) <= 0) return BENCH_SIZE_MALFORMED;
  }
  if (*s) return BENCH_SIZE_MALFORMED;
  if (!caches || !caches->bytes) return BENCH_SIZE_NO_RESOLVER;
  const int64_t cache = caches->bytes(caches->user, level);
  if (cache <= 0) return BENCH_SIZE_NO_CACHE;
  const double r = v * (double)cache / div;
  if (!(r >= 1) || r > (double)BENCH_SIZE_MAX) return BENCH_SIZE_RANGE;
  *bytes = (int64_t)r;
  return BENCH_SIZE_OK;
}

/* buf[*at..] += text, cut to fit size (always terminated). */
static inline void bench_size_cat_(char *buf, size_t size, size_t *at, const char *text) {
  while (*text && *at + 1 < size) buf[(*at)++] = *text++;
  if (size) buf[*at < size ? *at : size - 1] = '\0';
}

/* The one-line message for a size bench_size_parse refused with status st,
 * into buf (cut to fit): "<name> '<text>': ...". name is the parameter
 * ("size"). */
static inline void bench_size_message(char *buf, size_t size, const char *name, const char *text,
                                      enum bench_size_status st,
                                      const struct bench_caches *caches) {
  size_t at = 0;
  if (!text) text = "";
  bench_size_cat_(buf, size, &at, name);
  bench_size_cat_(buf, size, &at, " '");
  bench_size_cat_(buf, size, &at, text);
  bench_size_cat_(buf, size, &at, "': ");
  switch (st) {
  case BENCH_SIZE_OK: bench_size_cat_(buf, size, &at, "a size"); return;
  case BENCH_SIZE_RANGE:
    bench_size_cat_(buf, size, &at, "out of range (1 byte to 2^60 bytes)");
    return;
  case BENCH_SIZE_NO_RESOLVER:
    bench_size_cat_(buf, size, &at,
                    "sizes relative to the caches (" BENCH_SIZE_CACHE_EXAMPLES
                    ") are for CPU plugins; give bytes (" BENCH_SIZE_EXAMPLES ")");
    return;
  case BENCH_SIZE_NO_CACHE: {
    size_t len = 0;
    int level = -1;
    for (const char *s = text; *s && (level = bench_size_cache_name_(s, &len)) < 0; s++) {}
    char lv[4] = "LLC", have[192] = "";
    if (level > 0) lv[1] = (char)('0' + level), lv[2] = '\0';
    if (caches && caches->describe) caches->describe(caches->user, have, sizeof have);
    bench_size_cat_(buf, size, &at, "this machine has no ");
    bench_size_cat_(buf, size, &at, lv);
    bench_size_cat_(buf, size, &at, " cache");
    if (have[0]) {
      bench_size_cat_(buf, size, &at, " (");
      bench_size_cat_(buf, size, &at, have);
      bench_size_cat_(buf, size, &at, ")");
    }
    bench_size_cat_(buf, size, &at, "; LLC names its last level");
    return;
  }
  case BENCH_SIZE_MALFORMED: break;
  }
  bench_size_cat_(buf, size, &at, "not a size (" BENCH_SIZE_EXAMPLES);
  if (caches) bench_size_cat_(buf, size, &at, ", " BENCH_SIZE_CACHE_EXAMPLES);
  bench_size_cat_(buf, size, &at, ")");
}

/* The STRING parameter `name` as a size: BENCH_OK with *bytes, or
 * host->fail with the one-line message (BENCH_ERROR, *bytes 0). caches:
 * NULL, or the machine's caches (the CPU plugins'). */
static inline int bench_param_size(const struct bench_host *host, const char *name,
                                   const struct bench_caches *caches, int64_t *bytes) {
  const char *text = host->param_str(host, name);
  *bytes = 0;
  const enum bench_size_status st = bench_size_parse(text, caches, bytes);
  if (st == BENCH_SIZE_OK) return BENCH_OK;
  char msg[512];
  bench_size_message(msg, sizeof msg, name, text, st, caches);
  return host->fail(host, "%s", msg);
}

/* The STRING parameter `name` as an element type (bench_dtype_parse):
 * BENCH_OK with *dtype, or host->fail (BENCH_ERROR, *dtype BENCH_F32). */
static inline int bench_param_dtype(const struct bench_host *host, const char *name,
                                    enum bench_dtype *dtype) {
  const char *text = host->param_str(host, name);
  *dtype = BENCH_F32;
  if (bench_dtype_parse(text, dtype) == 0) return BENCH_OK;
  return host->fail(host, "%s '%s': not an element type (f32, f16, bf16, f64, i8, u8, i32)",
                    name, text ? text : "");
}

/* ---- parameter declarations of each operation --------------------------
 *
 * One initializer of struct bench_param each, positional (C and C++ alike),
 * with the name, type, description, range and zip group every backend
 * shares; the defaults per tier (smoke, standard, perf, verify) are the
 * plugin's. Shape parameters advance together (zip group 1).
 *
 *   static const struct bench_param params[] = {
 *       BENCH_PARAM_ROWS("7,64", "4096", "1024,16384", "1,3,17,5"),
 *       BENCH_PARAM_COLS("1000,4096", "4096", "4096,4096", "1,7,1000,4099"),
 *       BENCH_PARAM_RMSNORM_EPS("1e-5", "1e-5", "1e-5", "1e-5"),
 *       BENCH_PARAM_DTYPE("element type of x, w and y", "f32,f16", "f32", ...),
 *       {NULL}};
 */
#define BENCH_PARAM_DECL_(name, type, description, choices, min, max, zip, d0, d1, d2, d3) \
  { name, type, description, choices, min, max, zip, { d0, d1, d2, d3 }, 0, NULL, 0 }
#define BENCH_PARAM_SHAPE_(name, description, min, max, d0, d1, d2, d3) \
  BENCH_PARAM_DECL_(name, BENCH_PARAM_INT, description, NULL, min, max, 1, d0, d1, d2, d3)

/* The upper bounds of shape parameters. */
#define BENCH_ROWS_MAX 16777216     /* 2^24 */
#define BENCH_GEMM_DIM_MAX 65536    /* m, n, k */
#define BENCH_HEADS_MAX 65536      /* rope */
#define BENCH_ATTN_HEADS_MAX 65535 /* attention: batch x heads blocks on a grid axis */
#define BENCH_HEAD_DIM_MAX 65536
#define BENCH_BATCH_MAX 65535
#define BENCH_ATTN_SEQ_MAX 1048576  /* 2^20 */
/* eps: above 0 (1/sqrt(0) of a zero row is inf) and at most 1. */
#define BENCH_EPS_MIN 1e-12

/* An element type parameter: `choices` those this plugin runs, names of
 * bench_dtype_parse (f32, f16, bf16, ...); read with bench_param_dtype. */
#define BENCH_PARAM_DTYPE(description, choices, d0, d1, d2, d3) \
  BENCH_PARAM_DTYPE_ZIP(0, description, choices, d0, d1, d2, d3)
/* The same advancing with the other parameters of zip group `zip`. */
#define BENCH_PARAM_DTYPE_ZIP(zip, description, choices, d0, d1, d2, d3) \
  BENCH_PARAM_DECL_("dtype", BENCH_PARAM_STRING, description, choices, 0, 0, zip, d0, d1, d2, d3)

/* rmsnorm, layernorm (rows x cols, normalised along cols) */
#define BENCH_PARAM_ROWS(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("rows", "rows (tokens)", 1, BENCH_ROWS_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_COLS(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("cols", "row length (hidden size)", 1, BENCH_ROWS_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_RMSNORM_EPS(d0, d1, d2, d3)                                           \
  BENCH_PARAM_DECL_("eps", BENCH_PARAM_FLOAT, "added to the mean square", NULL, BENCH_EPS_MIN, \
                    1, 0, d0, d1, d2, d3)
#define BENCH_PARAM_LAYERNORM_EPS(d0, d1, d2, d3)                                       \
  BENCH_PARAM_DECL_("eps", BENCH_PARAM_FLOAT, "added to the variance", NULL, BENCH_EPS_MIN, \
                    1, 0, d0, d1, d2, d3)

/* softmax (rows x cols, along cols) */
#define BENCH_PARAM_SOFTMAX_ROWS(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("rows", "rows (e.g. heads x queries)", 1, BENCH_ROWS_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_SOFTMAX_COLS(d0, d1, d2, d3)                                          \
  BENCH_PARAM_SHAPE_("cols", "row length (e.g. vocabulary, keys)", 1, BENCH_ROWS_MAX, d0, d1, \
                     d2, d3)

/* gemm C[m][n] = A[m][k] B[k][n] */
#define BENCH_PARAM_GEMM_M(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("m", "rows of A and C", 1, BENCH_GEMM_DIM_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_GEMM_N(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("n", "columns of B and C", 1, BENCH_GEMM_DIM_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_GEMM_K(d0, d1, d2, d3)                                                  \
  BENCH_PARAM_SHAPE_("k", "columns of A, rows of B (reduction)", 1, BENCH_GEMM_DIM_MAX, d0, d1, \
                     d2, d3)

/* rope over x[seq][heads][head_dim] */
#define BENCH_PARAM_ROPE_SEQ(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("seq", "positions (tokens)", 1, BENCH_ROWS_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_ROPE_HEADS(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("heads", "heads per position", 1, BENCH_HEADS_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_ROPE_HEAD_DIM(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("head_dim", "elements per head (even)", 2, BENCH_HEAD_DIM_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_ROPE_LAYOUT(d0, d1, d2, d3)                                                \
  BENCH_PARAM_DECL_("layout", BENCH_PARAM_STRING,                                              \
                    "pairs: interleaved (2i, 2i+1) or halves (i, i+d/2)", "interleaved,halves", \
                    0, 0, 0, d0, d1, d2, d3)
#define BENCH_PARAM_ROPE_THETA(d0, d1, d2, d3) \
  BENCH_PARAM_DECL_("theta", BENCH_PARAM_FLOAT, "frequency base", NULL, 1, 1e9, 0, d0, d1, d2, d3)

/* attention over q, k, v [batch][heads][seq][head_dim]; head_dim_max: what
 * the plugin's kernels support (at most BENCH_HEAD_DIM_MAX) */
#define BENCH_PARAM_ATTN_BATCH(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("batch", "sequences", 1, BENCH_BATCH_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_ATTN_HEADS(d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("heads", "attention heads", 1, BENCH_ATTN_HEADS_MAX, d0, d1, d2, d3)
#define BENCH_PARAM_ATTN_SEQ(d0, d1, d2, d3)                                                \
  BENCH_PARAM_SHAPE_("seq", "sequence length (queries = keys)", 1, BENCH_ATTN_SEQ_MAX, d0, d1, \
                     d2, d3)
#define BENCH_PARAM_ATTN_HEAD_DIM(head_dim_max, d0, d1, d2, d3) \
  BENCH_PARAM_SHAPE_("head_dim", "elements per head", 1, head_dim_max, d0, d1, d2, d3)
#define BENCH_PARAM_ATTN_ROPE(d0, d1, d2, d3)                                          \
  BENCH_PARAM_DECL_("rope", BENCH_PARAM_STRING,                                        \
                    "RoPE on q and k first: none, interleaved or halves pairs",        \
                    "none,interleaved,halves", 0, 0, 0, d0, d1, d2, d3)
#define BENCH_PARAM_ATTN_MASK(d0, d1, d2, d3)                                               \
  BENCH_PARAM_DECL_("mask", BENCH_PARAM_STRING,                                           \
                    "causal (query i sees keys 0..i) or none (every key: BENCH_ATTN_FULL)", \
                    "causal,none", 0, 0, 0, d0, d1, d2, d3)
#define BENCH_PARAM_ATTN_THETA(d0, d1, d2, d3)                                              \
  BENCH_PARAM_DECL_("theta", BENCH_PARAM_FLOAT, "RoPE frequency base", NULL, 1, 1e9, 0, d0, d1, \
                    d2, d3)

/* copy, fill, add and memory sweeps: bytes per array, a size as above */
#define BENCH_PARAM_SIZE(description, d0, d1, d2, d3) \
  BENCH_PARAM_DECL_("size", BENCH_PARAM_STRING, description, NULL, 0, 0, 0, d0, d1, d2, d3)

#ifdef __cplusplus
}
#endif

#endif /* BENCH_PARAMS_PUBLIC_H */
